//! End-to-end behaviour of the binary: exit codes, JSON contract, hostile inputs.

mod common;

use std::time::{Duration, Instant};

fn json(args: &[&str]) -> (i32, serde_json::Value) {
    let output = common::trainlint(args);
    let value = serde_json::from_str(&common::stdout(&output)).unwrap_or_else(|e| panic!("{e}: {}", common::stdout(&output)));
    (output.status.code().unwrap_or(-1), value)
}

#[test]
fn sch002_sch003_sch004_at_the_right_line_and_column() {
    let (code, value) = json(&["check", "--output-format", "json", "fixtures/rules/SCH002/mixed_errors.yaml"]);
    assert_eq!(code, 1);
    let found: Vec<(String, u64, u64)> = value["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["code"].as_str().unwrap().to_owned(), d["line"].as_u64().unwrap(), d["column"].as_u64().unwrap()))
        .collect();
    assert_eq!(found, vec![("SCH002".into(), 4, 16), ("SCH003".into(), 5, 3), ("SCH004".into(), 8, 3)]);
    let sch003 = &value["diagnostics"][1];
    assert!(sch003["message"].as_str().unwrap().contains("did you mean `accumulation`?"));
    assert_eq!(sch003["fix"]["applicability"], "unsafe");
    assert_eq!(sch003["fix"]["edits"][0]["content"], "accumulation");
    for d in value["diagnostics"].as_array().unwrap() {
        for key in ["code", "severity", "message", "file", "line", "column", "stage", "gpu", "fix"] {
            assert!(d.get(key).is_some(), "diagnostic lacks `{key}`");
        }
        assert_eq!(d["file"], "fixtures/rules/SCH002/mixed_errors.yaml");
    }
    assert_eq!(value["summary"]["errors"], 3);
}

#[test]
fn exit_codes() {
    assert_eq!(common::trainlint(&["check", "fixtures/seeds/002_dreams.yaml"]).status.code(), Some(0));
    // Seed 004's stage 01 does not fit its 24 GB GPU (MEM001).
    assert_eq!(common::trainlint(&["check", "fixtures/seeds"]).status.code(), Some(1));
    assert_eq!(common::trainlint(&["check", "fixtures/rules/SCH004/duplicate_keys.yaml"]).status.code(), Some(1));
    assert_eq!(common::trainlint(&["check", "--exit-zero", "fixtures/rules/SCH004/duplicate_keys.yaml"]).status.code(), Some(0));
    let missing = common::trainlint(&["check", "no/such/path.yaml"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(common::stderr(&missing).contains("no/such/path.yaml"));
    assert_eq!(common::trainlint(&["check", "--select", "NOPE", "fixtures/seeds"]).status.code(), Some(2));
    assert_eq!(common::trainlint(&["check", "--gpu", "rtx-409", "fixtures/seeds"]).status.code(), Some(2));
    assert_eq!(common::trainlint(&["check", "--bogus-flag"]).status.code(), Some(2));
}

#[test]
fn select_and_ignore() {
    let (_, value) = json(&["check", "--output-format", "json", "--ignore", "SCH004", "fixtures/rules/SCH002/mixed_errors.yaml"]);
    let codes: Vec<&str> = value["diagnostics"].as_array().unwrap().iter().map(|d| d["code"].as_str().unwrap()).collect();
    assert_eq!(codes, vec!["SCH002", "SCH003"]);
    let (_, value) = json(&["check", "--output-format", "json", "--select", "SCH003", "fixtures/rules/SCH002/mixed_errors.yaml"]);
    assert_eq!(value["diagnostics"].as_array().unwrap().len(), 1);
}

/// Each hostile file: under a second, no panic, a clear SCH001 message, exit 1.
#[test]
fn hostile_inputs_fail_fast_and_clearly() {
    let cases = [
        ("fixtures/rules/SCH001/alias_bomb.yaml", "aliases expand"),
        ("fixtures/rules/SCH001/deep_nesting.json", "nesting deeper"),
        ("fixtures/rules/SCH001/deep_nesting.yaml", "nesting deeper"),
        ("fixtures/rules/SCH001/binary.yaml", "binary file"),
        ("fixtures/rules/SCH001/empty.yaml", "empty file"),
        ("fixtures/rules/SCH001/latin1.yaml", "not UTF-8"),
    ];
    for (path, expected) in cases {
        let start = Instant::now();
        let output = common::trainlint(&["check", "--output-format", "concise", path]);
        let elapsed = start.elapsed();
        assert_eq!(output.status.code(), Some(1), "{path}");
        assert!(elapsed < Duration::from_secs(1), "{path} took {elapsed:?}");
        let text = common::stdout(&output);
        assert!(text.contains("SCH001") && text.contains(expected), "{path}: {text}");
        assert!(!common::stderr(&output).contains("panicked"), "{path}");
    }
}

#[test]
fn rule_command_prints_docs() {
    let output = common::trainlint(&["rule", "SCH003"]);
    assert!(output.status.success());
    let text = common::stdout(&output);
    for part in ["unknown-key (SCH003)", "## What it does", "## Why is this bad?", "## Example", "## Fix safety"] {
        assert!(text.contains(part), "{part}");
    }
    let all = common::stdout(&common::trainlint(&["rule", "--all"]));
    for rule in trainlint::rules::codes::ALL {
        assert!(all.contains(rule.code));
    }
    assert_eq!(common::trainlint(&["rule", "SCH999"]).status.code(), Some(2));
}

#[test]
fn show_reports_roles_with_their_lines_and_the_effective_batch() {
    let (code, value) = json(&["show", "--output-format", "json", "fixtures/seeds/000_spectrum_rtx4090/config.yaml"]);
    assert_eq!(code, 0);
    assert_eq!(value["dialect"], "native");
    assert_eq!(value["roles"]["micro_batch"]["value"], 48);
    assert_eq!(value["roles"]["micro_batch"]["line"], 14);
    assert_eq!(value["roles"]["accumulation"]["value"], 2);
    assert_eq!(value["effective_batch"], 96);
    assert_eq!(value["resolved"]["settings"]["loss"]["bin_size"], 0.1);
    // No world size in the config: unknown until given.
    let (_, value) = json(&["show", "--output-format", "json", "fixtures/seeds/001_rna_3e_ffi.yaml"]);
    assert!(value["effective_batch"].is_null());
    let (_, value) = json(&["show", "--output-format", "json", "--world-size", "4", "fixtures/seeds/001_rna_3e_ffi.yaml"]);
    assert_eq!(value["effective_batch"], 8);
    let text = common::stdout(&common::trainlint(&["show", "fixtures/seeds/002_dreams.yaml"]));
    assert!(text.contains("effective batch: 4 = 1 micro batch × 2 accumulation × 2 data-parallel world"), "{text}");
}

#[test]
fn manifest_is_found_by_walking_up_and_its_errors_exit_2() {
    let dir = std::env::temp_dir().join(format!("trainlint-manifest-{}", std::process::id()));
    let nested = dir.join("conf/deep");
    std::fs::create_dir_all(&nested).unwrap();
    std::fs::write(nested.join("a.yaml"), "trainlint: 1\nbatch: {micro_batch: 8, micro_batch: 4}\n").unwrap();
    std::fs::write(dir.join("trainlint.toml"), "ignore = [\"SCH004\"]\n").unwrap();
    let output = common::trainlint_in(&dir, &["check", "conf/deep/a.yaml"]);
    assert_eq!(output.status.code(), Some(0), "{}", common::stdout(&output));

    std::fs::write(dir.join("trainlint.toml"), "ignore = [\"SCH004\"]\nworld-sise = 2\n").unwrap();
    let output = common::trainlint_in(&dir, &["check", "conf/deep/a.yaml"]);
    assert_eq!(output.status.code(), Some(2));
    let err = common::stderr(&output);
    assert!(err.contains("world-sise") && err.contains("trainlint.toml"), "{err}");

    std::fs::remove_file(dir.join("trainlint.toml")).unwrap();
    std::fs::write(dir.join("pyproject.toml"), "[project]\nname = \"x\"\n\n[tool.trainlint]\nselect = [\"SCH00\"]\nignore = [\"SCH004\"]\n").unwrap();
    let output = common::trainlint_in(&dir.join("conf"), &["check", "deep/a.yaml"]);
    assert_eq!(output.status.code(), Some(0), "{}", common::stdout(&output));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_file_is_never_modified_by_check() {
    let path = common::repo().join("fixtures/rules/SCH003/typo_keys.yaml");
    let before = std::fs::read(&path).unwrap();
    common::trainlint(&["check", "fixtures/rules/SCH003/typo_keys.yaml"]);
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

/// An empty file that is an option of a Hydra config group means "nothing" to Hydra.
#[test]
fn an_empty_hydra_group_option_is_not_an_error() {
    let output = common::trainlint(&["check", "fixtures/hydra"]);
    assert_eq!(output.status.code(), Some(0), "{}", common::stdout(&output));
    let output = common::trainlint(&["check", "fixtures/rules/SCH001/empty.yaml"]);
    assert_eq!(output.status.code(), Some(1));
}

/// `[severity]` in the manifest changes a rule's severity, and so the exit code.
#[test]
fn severity_overrides() {
    let dir = std::env::temp_dir().join(format!("trainlint-severity-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("a.yaml"), "trainlint: 1\nbatch: {micro_batch: 8, micro_batch: 4}\n").unwrap();
    std::fs::write(dir.join("trainlint.toml"), "[severity]\nSCH004 = \"warning\"\nBAT = \"error\"\n").unwrap();
    let output = common::trainlint_in(&dir, &["check", "--output-format", "json", "a.yaml"]);
    let value: serde_json::Value = serde_json::from_str(&common::stdout(&output)).unwrap();
    let severities: Vec<(&str, &str)> =
        value["diagnostics"].as_array().unwrap().iter().map(|d| (d["code"].as_str().unwrap(), d["severity"].as_str().unwrap())).collect();
    assert_eq!(severities, vec![("SCH004", "warning"), ("BAT006", "error")], "{value:#}");
    std::fs::write(dir.join("trainlint.toml"), "[severity]\nNOPE = \"warning\"\n").unwrap();
    assert_eq!(common::trainlint_in(&dir, &["check", "a.yaml"]).status.code(), Some(2));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 27: a human report counts its infos from compact records folded on the worker threads
/// (`FoldedInfo`); the counts it prints are those of the whole findings the JSON report lists,
/// code by code, on the corpus, and a file reached twice (through a linked folder) counts once.
#[test]
fn folded_infos_count_what_the_json_report_lists() {
    fn human_counts(output: &std::process::Output) -> (u64, std::collections::BTreeMap<String, u64>) {
        let text = common::stdout(output);
        let mut by_code = std::collections::BTreeMap::new();
        for line in text.lines().filter_map(|l| l.strip_prefix("info: ")) {
            let (code, rest) = line.split_once(" × ").expect("a folded line: `info: CODE × N (name)`");
            let count: u64 = rest.split_whitespace().next().unwrap().parse().unwrap();
            by_code.insert(code.to_owned(), count);
        }
        let found = text.lines().find(|l| l.starts_with("Found ")).unwrap_or_else(|| panic!("no summary line: {text}"));
        // "Found 7 errors, 0 warnings, 467 infos in 787 files checked; …"
        let infos = found.split(", ").find_map(|part| part.split_once(" info")).and_then(|(n, _)| n.parse().ok());
        (infos.unwrap_or_else(|| panic!("no info count in {found}")), by_code)
    }
    fn json_counts(value: &serde_json::Value) -> (u64, std::collections::BTreeMap<String, u64>) {
        let mut by_code = std::collections::BTreeMap::new();
        for d in value["diagnostics"].as_array().unwrap().iter().filter(|d| d["severity"] == "info") {
            *by_code.entry(d["code"].as_str().unwrap().to_owned()).or_insert(0) += 1;
        }
        (value["summary"]["infos"].as_u64().unwrap(), by_code)
    }
    let Some(shared) = common::shared() else { return };
    let corpus = shared.join("corpus");
    let corpus = corpus.to_str().unwrap();
    let human = common::trainlint(&["check", "--exit-zero", corpus]);
    let (_, json) = json(&["check", "--exit-zero", "--output-format", "json", corpus]);
    let (infos, by_code) = human_counts(&human);
    assert!(infos > 100, "the corpus has hundreds of infos: {infos}");
    assert_eq!((infos, by_code), json_counts(&json));

    // The same file through a linked folder: its folded infos are counted once, as the JSON lists them once.
    #[cfg(unix)]
    {
        let dir = common::fresh_dir("folded-infos-link");
        std::fs::create_dir_all(dir.join("a")).unwrap();
        std::fs::copy(common::repo().join("fixtures/rules/BAT006/deepspeed_no_world.json"), dir.join("a/ds.json")).unwrap();
        std::os::unix::fs::symlink("a", dir.join("b")).unwrap();
        std::fs::create_dir(dir.join(".git")).unwrap();
        let single = human_counts(&common::trainlint_in(&dir, &["check", "--exit-zero", "a"]));
        assert!(single.0 > 0, "the fixture gives an info: {single:?}");
        let both = common::trainlint_in(&dir, &["check", "--exit-zero", "a/ds.json", "b/ds.json"]);
        let both_json: serde_json::Value =
            serde_json::from_str(&common::stdout(&common::trainlint_in(&dir, &["check", "--exit-zero", "--output-format", "json", "a/ds.json", "b/ds.json"])))
                .unwrap();
        assert_eq!(human_counts(&both), single, "{}", common::stdout(&both));
        assert_eq!(json_counts(&both_json), single);
        // A link to the file itself, named with the file: its read finds no real path of its
        // own (a link), the file's read does; they are still one file.
        std::os::unix::fs::symlink("a/ds.json", dir.join("c.json")).unwrap();
        for pair in [["a/ds.json", "c.json"], ["c.json", "a/ds.json"]] {
            let linked = common::trainlint_in(&dir, &["check", "--exit-zero", pair[0], pair[1]]);
            assert_eq!(human_counts(&linked), single, "{}", common::stdout(&linked));
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
