//! The built-in catalog agrees with `../shared/peers/gpus.json`, the sourced facts.

mod common;

#[test]
fn catalog_matches_the_sourced_facts() {
    let Some(shared) = common::shared() else {
        eprintln!("../shared not present: skipped");
        return;
    };
    let text = std::fs::read_to_string(shared.join("peers/gpus.json")).unwrap();
    let facts: serde_json::Value = serde_json::from_str(&text).unwrap();
    let facts = facts["gpus"].as_array().unwrap();
    let catalog = trainlint::gpus::builtin();
    assert_eq!(catalog.len(), facts.len(), "one catalog entry per GPU of gpus.json");
    for (target, fact) in catalog.iter().zip(facts) {
        assert_eq!(target.memory_mib, fact["nvidia_smi_total_mib"].as_u64().unwrap(), "{}", target.id);
        assert_eq!(target.bf16, fact["bf16_native"].as_bool().unwrap(), "{}", target.id);
        assert_eq!(target.fp8, fact["fp8"].as_bool().unwrap(), "{}", target.id);
        let cc = fact["compute_capability"].as_str().map(|s| s.split_whitespace().next().unwrap().to_owned());
        assert_eq!(target.compute_capability, cc, "{}", target.id);
        assert!(target.id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'), "{}", target.id);
    }
}

#[test]
fn gpus_command_lists_every_target() {
    let output = common::trainlint(&["gpus", "--output-format", "json"]);
    assert!(output.status.success());
    let value: serde_json::Value = serde_json::from_str(&common::stdout(&output)).unwrap();
    assert_eq!(value["version"], 1);
    let list = value["gpus"].as_array().unwrap();
    assert!(list.len() >= 19);
    for id in ["rtx-4090", "a100-80gb", "h100-sxm", "v100-32gb", "quadro-rtx-6000"] {
        assert!(list.iter().any(|t| t["id"] == id), "{id}");
    }
    let text = common::stdout(&common::trainlint(&["gpus"]));
    assert!(text.contains("quadro-rtx-6000") && text.contains("24576 MiB"));
}
