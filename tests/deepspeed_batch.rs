//! DeepSpeed's own batch table (`../shared/peers/deepspeed_batch_cases.json`,
//! 18 cases from `tests/unit/runtime/test_ds_config_dict.py`) through the
//! real command line: `trainlint check --world-size W` on generated DeepSpeed
//! JSON files. "ok" cases get no BAT error and the values DeepSpeed derives;
//! "error" cases get a BAT error.

mod common;

#[test]
fn deepspeed_batch_table() {
    let Some(shared) = common::shared() else {
        eprintln!("../shared not present: skipped");
        return;
    };
    let cases: Vec<serde_json::Value> = serde_json::from_str(&std::fs::read_to_string(shared.join("peers/deepspeed_batch_cases.json")).unwrap()).unwrap();
    assert_eq!(cases.len(), 18);
    let dir = std::env::temp_dir().join(format!("trainlint-ds-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (i, case) in cases.iter().enumerate() {
        let mut config = serde_json::Map::new();
        for (ours, theirs) in
            [("train_batch_size", "train_batch_size"), ("train_micro_batch_size_per_gpu", "micro_batch"), ("gradient_accumulation_steps", "grad_acc")]
        {
            if let Some(v) = case[theirs].as_u64() {
                config.insert(ours.into(), v.into());
            }
        }
        // Every DeepSpeed config of the table also carries a ZeRO block, so that a
        // config with only `gradient_accumulation_steps` is still recognised as DeepSpeed.
        config.insert("zero_optimization".into(), serde_json::json!({"stage": 0}));
        let path = dir.join(format!("case_{i:02}.json"));
        std::fs::write(&path, serde_json::to_string_pretty(&config).unwrap()).unwrap();
        let world = case["world_size"].as_u64().unwrap().to_string();
        let path_text = path.display().to_string();
        let output = common::trainlint(&["check", "--output-format", "json", "--world-size", &world, &path_text]);
        let value: serde_json::Value = serde_json::from_str(&common::stdout(&output)).unwrap();
        let bat_errors: Vec<&serde_json::Value> =
            value["diagnostics"].as_array().unwrap().iter().filter(|d| d["code"].as_str().unwrap().starts_with("BAT") && d["severity"] == "error").collect();
        match case["expect"].as_str().unwrap() {
            "ok" => {
                assert!(bat_errors.is_empty(), "case {i} ({case}) expected ok, got {bat_errors:?}");
                let shown = common::trainlint(&["show", "--output-format", "json", "--world-size", &world, &path_text]);
                let view: serde_json::Value = serde_json::from_str(&common::stdout(&shown)).unwrap();
                let batch = &view["batch"];
                let value_of = |given: &str, role: &str| batch[given].as_u64().or_else(|| batch["derived"][role].as_u64());
                let derived = &case["derived"];
                assert_eq!(value_of("global_batch", "global_batch"), derived["train_batch_size"].as_u64(), "case {i}: train_batch_size");
                assert_eq!(value_of("micro_batch", "micro_batch"), derived["micro_batch"].as_u64(), "case {i}: micro batch");
                assert_eq!(value_of("accumulation", "accumulation"), derived["grad_acc"].as_u64(), "case {i}: accumulation");
                assert_eq!(output.status.code(), Some(0), "case {i}");
            }
            "error" => {
                assert!(!bat_errors.is_empty(), "case {i} ({case}) expected a BAT error");
                assert_eq!(output.status.code(), Some(1), "case {i}");
            }
            other => panic!("unknown expectation {other}"),
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
