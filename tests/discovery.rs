//! Discovery as ruff does it: `.gitignore` and hidden folders respected,
//! default excludes, only training configs linted when a folder is walked,
//! JSONC read as JSONC, multi-document YAML skipped, infos summarised.

mod common;

use std::path::Path;
use std::process::Command;

fn write(dir: &Path, relative: &str, text: &str) {
    let path = dir.join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

const WORKFLOW: &str = "name: ci\non: [push]\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - run: docker build -t app:${{ github.sha }} .\n";
const KUBERNETES: &str =
    "apiVersion: v1\nkind: Service\nmetadata:\n  name: trainer\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: trainer\nspec:\n  replicas: 1\n";
const TSCONFIG: &str = "{\n  // TypeScript reads this file as JSONC\n  \"compilerOptions\": { \"strict\": true, },\n}\n";
const DEVCONTAINER: &str = "{\n  \"name\": \"dev\", // a comment\n  \"image\": \"python:3.12\",\n}\n";
/// A Hydra run's copy of its config, broken on purpose: linted, it would be an error.
const HYDRA_OUTPUT: &str = "per_device_train_batch_size: 0\noutput_dir: out\nnum_train_epochs: 1\n";
const CLEAN: &str =
    "model_name_or_path: gpt2\noutput_dir: out\nper_device_train_batch_size: 4\ngradient_accumulation_steps: 2\nlearning_rate: 2.0e-5\nnum_train_epochs: 1\n";

/// A repository root as issue 16 describes it: workflows, a Kubernetes
/// manifest, tsconfig and a dev container (JSONC), gitignored Hydra outputs,
/// and one clean training config.
fn repository(label: &str) -> std::path::PathBuf {
    let dir = common::fresh_dir(label);
    let git = Command::new("git").args(["init", "-q"]).current_dir(&dir).status();
    assert!(git.is_ok_and(|s| s.success()), "git init");
    write(&dir, ".github/workflows/ci.yml", WORKFLOW);
    write(&dir, "deploy/k8s.yaml", KUBERNETES);
    write(&dir, "tsconfig.json", TSCONFIG);
    write(&dir, ".devcontainer/devcontainer.json", DEVCONTAINER);
    write(&dir, ".gitignore", "/runs/\n");
    write(&dir, "runs/2026-11-23/10-00-00/.hydra/config.yaml", HYDRA_OUTPUT);
    write(&dir, "runs/2026-11-23/10-00-00/train.yaml", HYDRA_OUTPUT);
    write(&dir, "configs/train.yaml", CLEAN);
    dir
}

fn json(dir: &Path, args: &[&str]) -> (i32, serde_json::Value) {
    let output = common::trainlint_in(dir, args);
    let value = serde_json::from_str(&common::stdout(&output)).unwrap_or_else(|e| panic!("{e}: {}", common::stdout(&output)));
    (output.status.code().unwrap_or(-1), value)
}

fn files(value: &serde_json::Value) -> Vec<String> {
    let mut files: Vec<String> = value["diagnostics"].as_array().unwrap().iter().map(|d| d["file"].as_str().unwrap().to_owned()).collect();
    files.dedup();
    files
}

#[test]
fn a_repository_root_reports_only_training_configs_and_exits_0() {
    let dir = repository("root");
    let output = common::trainlint_in(&dir, &["check"]);
    let stdout = common::stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{stdout}{}", common::stderr(&output));
    assert!(!stdout.contains("SCH00"), "{stdout}");
    // The clean config's one info (BAT006: the launcher sets the world size) is folded.
    assert!(
        stdout.ends_with("1 info in 1 file checked; 2 files skipped: 1 not recognised as a training config, 1 multi-document YAML with no training config in it; `--show-files` lists them.\n"),
        "{stdout}"
    );
    let (code, value) = json(&dir, &["check", "--output-format", "json"]);
    assert_eq!(code, 0);
    assert_eq!(files(&value), ["configs/train.yaml"], "{value:#}");
    assert_eq!(value["summary"]["files"], 1);
    assert_eq!(value["summary"]["errors"], 0);
}

#[test]
fn show_files_lists_each_file_with_its_status_and_exits_0() {
    let dir = repository("show-files");
    let output = common::trainlint_in(&dir, &["check", "--show-files"]);
    assert_eq!(output.status.code(), Some(0));
    let lines: Vec<String> = common::stdout(&output).lines().map(|l| l.split_whitespace().collect::<Vec<_>>().join(" ")).collect();
    assert_eq!(
        lines,
        [
            "configs/train.yaml checked as hf-trainer",
            "deploy/k8s.yaml skipped: multi-document YAML with no training config in it",
            "tsconfig.json skipped: not recognised as a training config",
        ]
    );
}

#[test]
fn gitignore_is_respected_unless_told_otherwise() {
    let dir = repository("gitignore");
    // Without `.gitignore`, `runs/` is walked: its copy of a config is linted (SCH002 for the zero batch).
    let (code, value) = json(&dir, &["check", "--output-format", "json", "--no-respect-gitignore"]);
    assert_eq!(code, 1, "{value:#}");
    assert_eq!(files(&value), ["configs/train.yaml", "runs/2026-11-23/10-00-00/train.yaml"], "{value:#}");
    // The manifest says the same; the command line wins over it.
    write(&dir, "trainlint.toml", "respect-gitignore = false\n");
    let (code, _) = json(&dir, &["check", "--output-format", "json"]);
    assert_eq!(code, 1);
    let (code, value) = json(&dir, &["check", "--output-format", "json", "--respect-gitignore"]);
    assert_eq!((code, files(&value)), (0, vec!["configs/train.yaml".to_owned()]));
    // `.ignore` and `.git/info/exclude` count too.
    std::fs::remove_file(dir.join("trainlint.toml")).unwrap();
    std::fs::write(dir.join(".gitignore"), "").unwrap();
    std::fs::write(dir.join(".git/info/exclude"), "runs/\n").unwrap();
    assert_eq!(json(&dir, &["check", "--output-format", "json"]).0, 0);
    std::fs::write(dir.join(".git/info/exclude"), "").unwrap();
    std::fs::write(dir.join(".ignore"), "runs/\n").unwrap();
    assert_eq!(json(&dir, &["check", "--output-format", "json"]).0, 0);
    std::fs::remove_file(dir.join(".ignore")).unwrap();
    assert_eq!(json(&dir, &["check", "--output-format", "json"]).0, 1);
}

#[test]
fn default_excludes_and_hidden_folders() {
    let dir = common::fresh_dir("excludes");
    for folder in [
        "outputs/2026-11-23/10-00-00/.hydra",
        "multirun/0",
        "wandb/run-1",
        "lightning_logs/version_0",
        "mlruns/0",
        "node_modules/x",
        "venv",
        "build",
        "dist",
        ".hidden",
    ] {
        write(&dir, &format!("{folder}/config.yaml"), HYDRA_OUTPUT);
    }
    write(&dir, "configs/train.yaml", CLEAN);
    let (code, value) = json(&dir, &["check", "--output-format", "json"]);
    assert_eq!((code, value["summary"]["files"].as_u64()), (0, Some(1)), "{value:#}");
    // `extend-exclude` adds to the defaults; `exclude` replaces them (hidden folders stay skipped).
    write(&dir, "trainlint.toml", "extend-exclude = [\"configs\"]\n");
    let (_, value) = json(&dir, &["check", "--output-format", "json"]);
    assert_eq!(value["summary"]["files"], 0);
    write(&dir, "trainlint.toml", "exclude = [\"configs\"]\n");
    let (code, value) = json(&dir, &["check", "--output-format", "json"]);
    // Eight: `.hidden/` and the `.hydra/` folder under `outputs/` are hidden.
    assert_eq!((code, value["summary"]["files"].as_u64()), (1, Some(8)), "{value:#}");
    // A folder named on the command line is walked even when it is excluded itself.
    write(&dir, "trainlint.toml", "");
    let (_, value) = json(&dir, &["check", "--output-format", "json", "lightning_logs/version_0"]);
    assert_eq!(value["summary"]["files"], 1, "{value:#}");
    let (_, value) = json(&dir, &["check", "--output-format", "json", "outputs"]);
    assert_eq!(value["summary"]["files"], 0, "hidden `.hydra/` below it is still skipped: {value:#}");
    write(&dir, "trainlint.toml", "exclude = [\"configs\"]\n");
    // A file named on the command line is checked even when excluded (ruff), unless `--force-exclude`.
    let (code, _) = json(&dir, &["check", "--output-format", "json", "configs/train.yaml"]);
    assert_eq!(code, 0);
    let (_, value) = json(&dir, &["check", "--output-format", "json", "--force-exclude", "configs/train.yaml"]);
    assert_eq!(value["summary"]["files"], 0);
}

#[test]
fn files_named_explicitly_are_checked_without_false_errors() {
    let dir = repository("explicit");
    let named = [".github/workflows/ci.yml", "deploy/k8s.yaml", "tsconfig.json", ".devcontainer/devcontainer.json"];
    let mut args = vec!["check", "--output-format", "json"];
    args.extend(named);
    let (code, value) = json(&dir, &args);
    // No SCH005 for `${{ github.sha }}`, no SCH001 for JSONC comments and trailing commas nor for `---`.
    assert_eq!((code, value["diagnostics"].as_array().unwrap().len()), (0, 0), "{value:#}");
    assert_eq!(value["summary"]["files"], 4);
    let mut args = vec!["check"];
    args.extend(named);
    let output = common::trainlint_in(&dir, &args);
    let stdout = common::stdout(&output);
    assert!(stdout.starts_with("No training configs checked: 4 files named are not recognised as training configs"), "{stdout}");
    assert!(!stdout.contains("All checks passed"), "{stdout}");
    // A syntax error in a JSONC file is still one, and a JSON file keeps strict JSON.
    write(&dir, "tsconfig.json", "{\n  \"a\": [1,, 2]\n}\n");
    write(&dir, "strict.json", "{\"a\": 1,}\n");
    let (code, value) = json(&dir, &["check", "--output-format", "json", "tsconfig.json", "strict.json"]);
    let messages: Vec<&str> = value["diagnostics"].as_array().unwrap().iter().map(|d| d["message"].as_str().unwrap()).collect();
    assert_eq!(code, 1);
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert!(messages[0].starts_with("invalid JSON:") && messages[1].starts_with("invalid JSONC:"), "{messages:?}");
}

#[test]
fn a_multi_document_training_config_is_still_an_error() {
    let dir = common::fresh_dir("multidoc");
    write(&dir, "train.yaml", &format!("{CLEAN}---\nkind: Other\n"));
    let (code, value) = json(&dir, &["check", "--output-format", "json"]);
    assert_eq!(code, 1);
    assert_eq!(value["diagnostics"][0]["code"], "SCH001", "{value:#}");
    assert_eq!(value["diagnostics"][0]["message"], "several YAML documents in one file");
}

#[test]
fn no_training_configs_is_a_warning_and_exit_0() {
    let dir = common::fresh_dir("empty");
    write(&dir, "tsconfig.json", TSCONFIG);
    let output = common::trainlint_in(&dir, &["check"]);
    assert_eq!(output.status.code(), Some(0));
    assert!(common::stderr(&output).contains("warning: No training configs found"), "{}", common::stderr(&output));
    let stdout = common::stdout(&output);
    assert!(stdout.starts_with("No training configs found (0 files checked; 1 file skipped: 1 not recognised as a training config;"), "{stdout}");
    assert!(!stdout.contains("All checks passed"), "{stdout}");
}

#[test]
fn infos_are_summarised_in_human_formats_and_kept_in_json() {
    let dir = common::fresh_dir("infos");
    write(&dir, "a.yaml", CLEAN);
    write(&dir, "b.yaml", CLEAN);
    let output = common::trainlint_in(&dir, &["check", "--output-format", "concise"]);
    let stdout = common::stdout(&output);
    assert_eq!(stdout.lines().next(), Some("info: BAT006 × 2 (world-size-unknown) — `--show-infos` lists them"), "{stdout}");
    assert!(!stdout.contains("a.yaml:"), "{stdout}");
    let listed = common::stdout(&common::trainlint_in(&dir, &["check", "--output-format", "concise", "--show-infos"]));
    assert_eq!(listed.lines().filter(|l| l.contains(": BAT006 ")).count(), 2, "{listed}");
    write(&dir, "trainlint.toml", "show-infos = true\n");
    let listed = common::stdout(&common::trainlint_in(&dir, &["check", "--output-format", "concise"]));
    assert_eq!(listed.lines().filter(|l| l.contains(": BAT006 ")).count(), 2, "{listed}");
    let (_, value) = json(&dir, &["check", "--output-format", "json"]);
    assert_eq!(value["diagnostics"].as_array().unwrap().len(), 2);
}

#[test]
fn statistics_count_findings_per_code() {
    let dir = common::fresh_dir("statistics");
    write(&dir, "a.yaml", CLEAN);
    write(&dir, "b.yaml", CLEAN);
    write(&dir, "c.yaml", "output_dir: out\nper_device_train_batch_size: 0\nnum_train_epochs: 1\n");
    let output = common::trainlint_in(&dir, &["check", "--statistics"]);
    assert_eq!(output.status.code(), Some(1));
    let stdout = common::stdout(&output);
    let rows: Vec<&str> = stdout.lines().collect();
    assert_eq!(rows[0], "2\tBAT006\t[ ] world-size-unknown", "{stdout}");
    assert!(rows[1].starts_with("1\tSCH002\t"), "{stdout}");
    let (_, value) = json(&dir, &["check", "--statistics", "--output-format", "json"]);
    assert_eq!(value["version"], 1);
    assert_eq!(value["statistics"][0]["code"], "BAT006");
    assert_eq!(value["statistics"][0]["count"], 2);
}

#[test]
fn one_missing_node_is_one_error() {
    let dir = common::fresh_dir("root-cause");
    // Six values depend on `model.encoder`, which does not exist (two through `model.hidden`).
    write(
        &dir,
        "train.yaml",
        "trainer:\n  devices: 2\nmodel:\n  hidden: ${model.encoder.hidden}\n  train_ds:\n    batch: ${model.hidden}\n    seq: ${model.encoder.max_len}\n  val_ds:\n    seq: ${model.encoder.max_len}\n  other: ${model.decoder}\n",
    );
    let (code, value) = json(&dir, &["check", "--output-format", "json", "--select", "SCH005"]);
    assert_eq!(code, 1);
    let found = value["diagnostics"].as_array().unwrap();
    let messages: Vec<&str> = found.iter().map(|d| d["message"].as_str().unwrap()).collect();
    assert_eq!(
        messages,
        [
            "`model.hidden` interpolates `model.encoder.hidden`, which does not exist; `model.encoder` is missing, and 3 more values interpolate it",
            "`model.other` interpolates `model.decoder`, which does not exist",
        ]
    );
    let labels: Vec<(u64, &str)> =
        found[0]["labels"].as_array().unwrap().iter().map(|l| (l["line"].as_u64().unwrap(), l["message"].as_str().unwrap())).collect();
    assert_eq!(
        labels,
        [(6, "`model.train_ds.batch` depends on it too"), (7, "`model.train_ds.seq` depends on it too"), (9, "`model.val_ds.seq` depends on it too")]
    );
}

#[test]
fn a_missing_hydra_config_named_by_several_files_is_one_error() {
    let dir = common::fresh_dir("missing-config");
    write(&dir, "conf/model/default.yaml", "hidden: 8\n");
    for name in ["a", "b", "c"] {
        write(&dir, &format!("conf/{name}.yaml"), "defaults:\n  - model: default\n  - trainer: default\n  - _self_\nseed: 1\n");
    }
    let (code, value) = json(&dir, &["check", "--output-format", "json", "--select", "SCH007"]);
    assert_eq!(code, 1);
    let found = value["diagnostics"].as_array().unwrap();
    assert_eq!(found.len(), 1, "{value:#}");
    assert_eq!(found[0]["file"], "conf/a.yaml");
    assert!(found[0]["message"].as_str().unwrap().ends_with("; 2 more files name it"), "{value:#}");
    let labelled: Vec<&str> = found[0]["labels"].as_array().unwrap().iter().map(|l| l["file"].as_str().unwrap()).collect();
    assert_eq!(labelled, ["conf/b.yaml", "conf/c.yaml"]);
}

/// Issue 25: a repository root gives no false error. Found by walking, a JSON over 1 MiB (OLMo's
/// tokenizers, LLaMA-Factory's `data/dpo_en_demo.json`) is data, and a template whose values
/// are placeholders (Megatron-DeepSpeed's `ds_config_gpt_TEMPLATE.json`, filled by `sed`) does
/// not parse until a script fills it: both are skipped with the reason. A config that is broken
/// (a doubled comma) is still SCH001, and a large file named explicitly is checked.
#[test]
fn large_data_files_and_placeholder_templates_are_not_errors_at_a_root() {
    let dir = repository("discovery-root-data");
    let tokenizer = format!(
        "{{\"version\": \"1.0\", \"model\": {{\"vocab\": {{{}}}}}}}\n",
        (0..120_000).map(|i| format!("\"tok{i}\": {i}")).collect::<Vec<_>>().join(", ")
    );
    assert!(tokenizer.len() > 1 << 20);
    write(&dir, "olmo_data/tokenizers/allenai_dolma2.json", &tokenizer);
    write(
        &dir,
        "examples/ds_config_gpt_TEMPLATE.json",
        "{\n  \"train_batch_size\" : CONFIG_BATCH_SIZE,\n  \"train_micro_batch_size_per_gpu\": CONFIG_MBSIZE,\n  \"zero_optimization\": {\"stage\": ZERO_STAGE}\n}\n",
    );
    write(&dir, "examples/ds_broken.json", "{\n  \"train_batch_size\": 64,,\n  \"train_micro_batch_size_per_gpu\": 4\n}\n");
    // Megatron-LM's `tests/functional_tests/test_cases/moe/…/prompts.json`: JSON Lines under a `.json` name.
    write(&dir, "test_cases/moe/prompts.json", "{\"text\": \"The cat sat on the mat and\"}\n{\"text\": \"The sun rose in the east,\"}\n");
    let (code, value) = json(&dir, &["check", "--output-format", "json", "."]);
    let errors: Vec<(String, String)> = value["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["severity"] == "error")
        .map(|d| (d["code"].as_str().unwrap().to_owned(), d["file"].as_str().unwrap().to_owned()))
        .collect();
    assert_eq!(errors, vec![("SCH001".to_owned(), "examples/ds_broken.json".to_owned())], "exit {code}");
    let output = common::trainlint_in(&dir, &["check", "--show-files", "."]);
    let listed = common::stdout(&output);
    assert!(listed.contains("allenai_dolma2.json") && listed.contains("skipped: over 1 MiB"), "{listed}");
    assert!(listed.contains("ds_config_gpt_TEMPLATE.json") && listed.contains("skipped: templates whose placeholders a script fills in"), "{listed}");
    assert!(
        listed
            .lines()
            .any(|l| l.starts_with("test_cases/moe/prompts.json") && l.ends_with("skipped: JSON Lines (one value per line: data, not a training config)")),
        "{listed}"
    );
    let (code, value) = json(&dir, &["check", "--output-format", "json", "test_cases/moe/prompts.json"]);
    assert_eq!((code, value["diagnostics"][0]["code"].as_str()), (1, Some("SCH001")), "named, it is checked");
    let (code, value) = json(&dir, &["check", "--output-format", "json", "olmo_data/tokenizers/allenai_dolma2.json"]);
    assert_eq!((code, value["diagnostics"][0]["code"].as_str()), (1, Some("SCH001")), "named, it is checked");
}
