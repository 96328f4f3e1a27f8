//! The built-in catalog agrees with `../shared/peers/gpus.json`, the sourced facts;
//! the entries that file does not have yet carry their own nvidia-smi source.

mod common;

/// Catalog entries `../shared/peers/gpus.json` does not list (yet): each names
/// the public nvidia-smi output its memory comes from, and its bf16 / fp8 flags
/// follow from its compute capability. Move an id out of here when the shared
/// file gains it.
const NOT_IN_SHARED_FACTS: &[&str] = &[
    "p100-16gb",
    "rtx-2080-ti",
    "titan-rtx",
    "rtx-5090",
    "h20",
    "rtx-3060",
    "rtx-a4000",
    "rtx-a5000",
    "rtx-6000-ada",
    "a800-80gb",
    "a40",
    "l20",
    "h800",
    "h100-nvl",
    "rtx-4080",
    "rtx-4060-ti-16gb",
];

/// `"8.9"` as (8, 9).
fn capability(cc: &str) -> (u32, u32) {
    let (major, minor) = cc.split_once('.').unwrap_or_else(|| panic!("compute capability `{cc}` is major.minor"));
    (major.parse().unwrap(), minor.parse().unwrap())
}

/// Names a public issue or pull-request thread: a GitHub issue/PR URL, or
/// `owner/repo#N`, `repo issue #N`, `PR #N`.
fn names_a_thread(source: &str) -> bool {
    if source.contains("github.com/") && (source.contains("/issues/") || source.contains("/pull/")) {
        return true;
    }
    source.match_indices('#').any(|(at, _)| source[at + 1..].starts_with(|c: char| c.is_ascii_digit()))
}

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
    let (added, shared_facts): (Vec<_>, Vec<_>) = catalog.iter().partition(|t| NOT_IN_SHARED_FACTS.contains(&t.id.as_str()));
    assert_eq!(shared_facts.len(), facts.len(), "one catalog entry per GPU of gpus.json");
    for (target, fact) in shared_facts.iter().zip(facts) {
        assert_eq!(target.memory_mib, fact["nvidia_smi_total_mib"].as_u64().unwrap(), "{}", target.id);
        assert_eq!(target.bf16, fact["bf16_native"].as_bool().unwrap(), "{}", target.id);
        assert_eq!(target.fp8, fact["fp8"].as_bool().unwrap(), "{}", target.id);
        let cc = fact["compute_capability"].as_str().map(|s| s.split_whitespace().next().unwrap().to_owned());
        assert_eq!(target.compute_capability, cc, "{}", target.id);
    }
    assert_eq!(added.len(), NOT_IN_SHARED_FACTS.len());
    for target in &catalog {
        assert!(target.id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'), "{}", target.id);
    }
}

/// Runs without `../shared` too: it checks only the catalog itself.
#[test]
fn entries_not_in_the_shared_facts_name_their_nvidia_smi_source() {
    let catalog = trainlint::gpus::builtin();
    for id in NOT_IN_SHARED_FACTS {
        let target = catalog.iter().find(|t| t.id == *id).unwrap_or_else(|| panic!("{id} is not in the catalog"));
        let source = &target.sources[0];
        assert!(source.contains("nvidia-smi") && names_a_thread(source), "{}: source names no public nvidia-smi output: {source}", target.id);
        let cc = target.compute_capability.as_deref().unwrap_or_else(|| panic!("{}: an NVIDIA entry states its compute capability", target.id));
        let cc = capability(cc);
        assert_eq!(target.bf16, cc >= (8, 0), "{}: bf16 iff CC >= 8.0", target.id);
        assert_eq!(target.fp8, cc >= (8, 9), "{}: fp8 iff CC >= 8.9", target.id);
        assert!(target.memory_mib > 0, "{}", target.id);
    }
}

#[test]
fn gpus_command_lists_every_target() {
    let output = common::trainlint(&["gpus", "--output-format", "json"]);
    assert!(output.status.success());
    let value: serde_json::Value = serde_json::from_str(&common::stdout(&output)).unwrap();
    assert_eq!(value["version"], 1);
    let list = value["gpus"].as_array().unwrap();
    assert!(list.len() >= 29);
    for id in ["rtx-4090", "a100-80gb", "h100-sxm", "v100-32gb", "quadro-rtx-6000"].iter().chain(NOT_IN_SHARED_FACTS) {
        assert!(list.iter().any(|t| t["id"] == *id), "{id}");
    }
    let text = common::stdout(&common::trainlint(&["gpus"]));
    assert!(text.contains("quadro-rtx-6000") && text.contains("24576 MiB"));
}

/// Issue 26 item 6: `--gpu auto` ran `nvidia-smi` with no time or output limit. A query program
/// that hangs, or floods its output without ending, is killed after the time given and said.
#[cfg(unix)]
#[test]
fn a_hung_or_flooding_nvidia_smi_is_stopped() {
    use std::os::unix::fs::PermissionsExt;
    let dir = std::env::temp_dir().join(format!("trainlint-probe-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (body, what) in [("#!/bin/sh\nsleep 30\n", "hangs"), ("#!/bin/sh\nexec yes\n", "floods")] {
        let program = dir.join("nvidia-smi");
        std::fs::write(&program, body).unwrap();
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        let started = std::time::Instant::now();
        let result = trainlint::gpus::probe_within(dir.as_os_str(), &[], std::time::Duration::from_secs(1));
        let error = result.err().unwrap_or_else(|| panic!("an nvidia-smi that {what} gave an answer"));
        assert!(error.0.contains("did not answer within 1 s") || error.0.contains("printed more than 1 MiB"), "{what}: {}", error.0);
        assert!(started.elapsed() < std::time::Duration::from_secs(10), "{what}: {:?}", started.elapsed());
    }
    let _ = std::fs::remove_dir_all(&dir);
}
