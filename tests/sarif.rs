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
    // Each rule carries its whole page (a clicked alert shows it); a link only where the build
    // says where the book is served (Cargo.toml `homepage`), never to a site that does not exist.
    assert!(rules.iter().all(|r| r["help"]["markdown"].as_str().is_some_and(|page| page.contains("## What it does"))));
    match trainlint::diagnostic::rule::homepage() {
        Some(home) => assert!(rules.iter().all(|r| r["helpUri"].as_str().unwrap() == format!("{home}/rules/{}.html", r["id"].as_str().unwrap()))),
        None => {
            assert!(rules.iter().all(|r| r.get("helpUri").is_none()), "{rules:?}");
            assert!(sarif["runs"][0]["tool"]["driver"].get("informationUri").is_none());
        }
    }
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

fn locations(sarif: &serde_json::Value) -> Vec<(String, String)> {
    sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let location = &r["locations"][0]["physicalLocation"]["artifactLocation"];
            assert_eq!(location["uriBaseId"], "%SRCROOT%", "{r}");
            (r["ruleId"].as_str().unwrap().to_owned(), location["uri"].as_str().unwrap().to_owned())
        })
        .collect()
}

#[test]
fn uris_are_relative_to_the_git_root_whatever_the_working_folder() {
    let repo = common::repo();
    let fixture = "fixtures/rules/SCH002/mixed_errors.yaml";
    let from_root = sarif_for(&[fixture]);
    let root_uri = from_root["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"].as_str().unwrap().to_owned();
    let canonical = std::fs::canonicalize(&repo).unwrap();
    assert_eq!(root_uri, format!("file://{}/", canonical.display()), "the worktree holds `.git`");
    let expected = locations(&from_root);
    assert_eq!(expected.len(), 3);
    assert!(expected.iter().all(|(_, uri)| uri == fixture), "{expected:?}");
    // From a subfolder, with a relative path.
    let sub = common::trainlint_in(&repo.join("fixtures/rules"), &["check", "--output-format", "sarif", "SCH002/mixed_errors.yaml"]);
    let sub: serde_json::Value = serde_json::from_str(&common::stdout(&sub)).unwrap();
    assert_eq!(locations(&sub), expected);
    assert_eq!(sub["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"], root_uri.as_str());
    // From outside the repository, with an absolute path.
    let outside = common::fresh_dir("sarif-outside");
    let absolute = canonical.join(fixture);
    let out = common::trainlint_in(&outside, &["check", "--output-format", "sarif", absolute.to_str().unwrap()]);
    let out: serde_json::Value = serde_json::from_str(&common::stdout(&out)).unwrap();
    assert_eq!(locations(&out), expected);
    assert_eq!(out["runs"][0]["results"], from_root["runs"][0]["results"], "fingerprints and fixes too");
    // A fix's artifact is relative to the same base.
    let change = &from_root["runs"][0]["results"][1]["fixes"][0]["artifactChanges"][0]["artifactLocation"];
    assert_eq!(change["uriBaseId"], "%SRCROOT%");
    assert_eq!(change["uri"], fixture);
    std::fs::remove_dir_all(&outside).unwrap();
}

#[test]
fn without_git_the_manifest_folder_is_the_root() {
    // No `.git` above the temporary folder: the manifest's folder is the base.
    let dir = common::fresh_dir("sarif-manifest");
    if dir.ancestors().any(|d| d.join(".git").exists()) {
        return;
    }
    std::fs::create_dir_all(dir.join("project/configs")).unwrap();
    std::fs::write(dir.join("project/trainlint.toml"), "").unwrap();
    std::fs::copy(common::repo().join("fixtures/rules/SCH002/mixed_errors.yaml"), dir.join("project/configs/run.yaml")).unwrap();
    let output = common::trainlint_in(&dir, &["check", "--output-format", "sarif", "project/configs/run.yaml"]);
    let sarif: serde_json::Value = serde_json::from_str(&common::stdout(&output)).unwrap();
    let canonical = std::fs::canonicalize(dir.join("project")).unwrap();
    assert_eq!(sarif["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"], format!("file://{}/", canonical.display()));
    assert!(locations(&sarif).iter().all(|(_, uri)| uri == "configs/run.yaml"));
    std::fs::remove_dir_all(&dir).unwrap();
}

fn fingerprints(sarif: &serde_json::Value) -> Vec<(String, String)> {
    sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["ruleId"].as_str().unwrap().to_owned(), r["partialFingerprints"]["primaryLocationLineHash"].as_str().unwrap().to_owned()))
        .collect()
}

#[test]
fn fingerprints_survive_lines_inserted_above_and_tell_results_apart() {
    let dir = common::fresh_dir("sarif-fingerprints");
    std::fs::create_dir(dir.join(".git")).unwrap();
    let original = std::fs::read_to_string(common::repo().join("fixtures/rules/SCH002/mixed_errors.yaml")).unwrap();
    std::fs::write(dir.join("run.yaml"), &original).unwrap();
    let run = || {
        let output = common::trainlint_in(&dir, &["check", "--output-format", "sarif", "run.yaml"]);
        serde_json::from_str::<serde_json::Value>(&common::stdout(&output)).unwrap()
    };
    let before = run();
    let first = fingerprints(&before);
    assert_eq!(first.len(), 3);
    let mut hashes: Vec<&String> = first.iter().map(|(_, h)| h).collect();
    hashes.sort();
    hashes.dedup();
    assert_eq!(hashes.len(), 3, "every result has its own fingerprint: {first:?}");
    assert!(first.iter().all(|(_, h)| h.len() == 18 && h.ends_with(":1")), "{first:?}");
    // Two lines inserted above every finding: lines move, fingerprints do not.
    std::fs::write(dir.join("run.yaml"), format!("# a new comment\n# and another\n{original}")).unwrap();
    let after = run();
    assert_eq!(fingerprints(&after), first);
    let line = |s: &serde_json::Value| s["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"].as_u64().unwrap();
    assert_eq!(line(&after), line(&before) + 2, "the finding did move");
    // Changing the finding's own line changes its fingerprint.
    std::fs::write(dir.join("run.yaml"), original.replace("micro_batch: \"32\"", "micro_batch: \"64\"")).unwrap();
    let changed = fingerprints(&run());
    assert_ne!(changed[0], first[0]);
    assert_eq!(changed[1..], first[1..]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_books_workflow_uploads_sarif_even_when_checks_fail() {
    let page = std::fs::read_to_string(common::repo().join("book/src/integrations.md")).unwrap();
    let start = page.find("## GitHub Actions").expect("the Actions section");
    let block = &page[start..];
    let block = &block[block.find("```yaml").unwrap()..];
    let block = &block[..block[3..].find("```").unwrap() + 3];
    let steps: Vec<&str> = block.split("\n      - ").skip(1).collect();
    let upload = steps.iter().position(|s| s.contains("upload-sarif")).expect("an upload step");
    assert!(steps[upload].contains("if: always()"), "the upload runs after a failed step: {}", steps[upload]);
    let sarif = steps.iter().position(|s| s.contains("--output-format sarif")).expect("a SARIF step");
    assert!(steps[sarif].contains("--exit-zero") || sarif < upload, "{}", steps[sarif]);
    // No example installs a package that is not published.
    for file in ["README.md", "book/src/integrations.md", "book/src/getting-started.md"] {
        let text = std::fs::read_to_string(common::repo().join(file)).unwrap();
        assert!(!text.lines().any(|l| l.trim_start().trim_start_matches("- run: ").trim_start_matches("- ").starts_with("pip install trainlint")), "{file}");
    }
}

#[test]
fn a_file_outside_the_root_keeps_an_absolute_uri() {
    let Some(shared) = common::shared() else { return };
    let dir = common::fresh_dir("sarif-elsewhere");
    std::fs::copy(common::repo().join("fixtures/rules/SCH002/mixed_errors.yaml"), dir.join("run.yaml")).unwrap();
    let outside = std::fs::canonicalize(dir.join("run.yaml")).unwrap();
    if outside.ancestors().any(|d| d.join(".git").exists()) {
        return;
    }
    let sarif = sarif_for(&["fixtures/rules/SCH002/mixed_errors.yaml", outside.to_str().unwrap()]);
    let uris: Vec<&serde_json::Value> =
        sarif["runs"][0]["results"].as_array().unwrap().iter().map(|r| &r["locations"][0]["physicalLocation"]["artifactLocation"]).collect();
    assert!(uris.iter().any(|l| l["uri"] == "fixtures/rules/SCH002/mixed_errors.yaml" && l["uriBaseId"] == "%SRCROOT%"));
    let absolute: Vec<_> = uris.iter().filter(|l| l.get("uriBaseId").is_none()).collect();
    assert_eq!(absolute.len(), 3, "{uris:?}");
    assert!(absolute.iter().all(|l| l["uri"] == format!("file://{}", outside.display())), "{absolute:?}");
    let schema: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(shared.join("peers/sarif-schema-2.1.0.json")).unwrap()).unwrap();
    assert!(jsonschema::validator_for(&schema).unwrap().is_valid(&sarif));
    std::fs::remove_dir_all(&dir).unwrap();
}
