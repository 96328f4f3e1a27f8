//! `--output-format sarif` validates against the official SARIF 2.1.0 schema
//! (`../shared/peers/sarif-schema-2.1.0.json`, OASIS sarif-spec e0583813);
//! `--output-format github` and `--output-file` behave as CI jobs need.

mod common;

fn sarif_for(args: &[&str]) -> serde_json::Value {
    let mut all = vec!["check", "--output-format", "sarif"];
    all.extend_from_slice(args);
    let output = common::trainlint(&all);
    serde_json::from_str(&common::stdout(&output)).unwrap()
}

#[test]
fn sarif_validates_against_the_official_schema() {
    let Some(shared) = common::shared() else { return };
    let schema: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(shared.join("peers/sarif-schema-2.1.0.json")).unwrap()).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the SARIF schema compiles");
    // Findings of many rules, fixes included, and a clean run.
    for args in [vec!["fixtures/rules", "fixtures/seeds", "fixtures/migrations"], vec!["fixtures/seeds/002_dreams.yaml"]] {
        let sarif = sarif_for(&args);
        let errors: Vec<String> = validator.iter_errors(&sarif).map(|e| format!("{} at {}", e, e.instance_path())).collect();
        assert!(errors.is_empty(), "{args:?}: {errors:#?}");
    }
    // The validation can fail: an invalid level is caught.
    let mut broken = sarif_for(&["fixtures/rules/SCH002/mixed_errors.yaml"]);
    broken["runs"][0]["results"][0]["level"] = "fatal".into();
    assert!(!validator.is_valid(&broken), "the schema check is not a no-op");
    let sarif = sarif_for(&["fixtures/rules/SCH002/mixed_errors.yaml"]);
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 3);
    assert_eq!(results[0]["ruleId"], "SCH002");
    assert_eq!(results[0]["locations"][0]["physicalLocation"]["region"]["startLine"], 4);
    assert_eq!(results[0]["locations"][0]["physicalLocation"]["region"]["startColumn"], 16);
    let rules = sarif["runs"][0]["tool"]["driver"]["rules"].as_array().unwrap();
    assert_eq!(rules.len(), trainlint::rules::codes::ALL.len());
    assert!(rules.iter().all(|r| r["helpUri"].as_str().unwrap().ends_with(&format!("{}.html", r["id"].as_str().unwrap()))));
    assert!(results[1]["fixes"][0]["artifactChanges"][0]["replacements"][0]["insertedContent"]["text"] == "accumulation");
}

#[test]
fn github_annotations_are_escaped() {
    let output = common::trainlint(&["check", "--output-format", "github", "fixtures/rules/SCH002/mixed_errors.yaml"]);
    let text = common::stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3);
    assert!(
        lines[0].starts_with("::error file=fixtures/rules/SCH002/mixed_errors.yaml,line=4,col=16,endLine=4,endColumn=20,title=trainlint (SCH002)::"),
        "{}",
        lines[0]
    );
    assert!(lines[0].contains("%0Ahelp: "), "newlines escaped");
    let warning = common::stdout(&common::trainlint(&["check", "--output-format", "github", "fixtures/rules/ENV002/async_backend.yaml"]));
    assert!(warning.starts_with("::warning file="), "{warning}");
}

#[test]
fn output_file_gets_the_format_and_stdout_the_human_report() {
    let path = std::env::temp_dir().join(format!("trainlint-{}.sarif", std::process::id()));
    let path_text = path.display().to_string();
    let output = common::trainlint(&["check", "--output-format", "sarif", "--output-file", &path_text, "fixtures/rules/SCH002/mixed_errors.yaml"]);
    assert_eq!(output.status.code(), Some(1));
    let sarif: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(sarif["version"], "2.1.0");
    assert!(common::stdout(&output).contains("SCH004 (duplicate-key)"), "a human report on stdout");
    std::fs::remove_file(&path).unwrap();
}
