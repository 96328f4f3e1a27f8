//! Every command's `--output-format json` validates against its committed
//! schema (`schemas/<command>-output.schema.json`, generated from the output
//! types in `render::json`): real output, on the fixtures and on real configs
//! of `../shared/corpus`. `estimate` has its own cases in tests/estimate_json.rs.

mod common;

use std::path::Path;

fn validator(name: &str) -> jsonschema::Validator {
    let text = std::fs::read_to_string(common::repo().join(format!("schemas/{name}.schema.json"))).unwrap();
    let schema: serde_json::Value = serde_json::from_str(&text).unwrap();
    jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("the {name} schema compiles: {e}"))
}

/// The JSON `args` print in `dir` (exit 0 or 1: 2 is a usage error, never a shape).
fn json_in(dir: &Path, args: &[&str]) -> serde_json::Value {
    let output = common::trainlint_in(dir, args);
    assert!(matches!(output.status.code(), Some(0 | 1)), "{args:?}: {:?}\n{}", output.status, common::stderr(&output));
    serde_json::from_str(&common::stdout(&output)).unwrap_or_else(|e| panic!("{args:?}: {e}: {}{}", common::stdout(&output), common::stderr(&output)))
}

/// Validates what `args` print against the `schema`, and returns it.
fn valid(schema: &jsonschema::Validator, dir: &Path, args: &[&str]) -> serde_json::Value {
    let value = json_in(dir, args);
    let errors: Vec<String> = schema.iter_errors(&value).map(|e| format!("{e} at {}", e.instance_path())).collect();
    assert!(errors.is_empty(), "{args:?}: {errors:#?}");
    value
}

/// A file of `../shared/corpus`, when present.
fn corpus(path: &str) -> Option<String> {
    let path = common::shared()?.join("corpus").join(path);
    assert!(path.is_file(), "{} is in the corpus", path.display());
    Some(path.display().to_string())
}

const SEED_000: &str = "fixtures/seeds/000_spectrum_rtx4090/config.yaml";
const SEED_001: &str = "fixtures/seeds/001_rna_3e_ffi.yaml";
const SEED_003: &str = "fixtures/seeds/003_aam.yaml";
const SEED_004: &str = "fixtures/seeds/004_naics_embedder/config.yaml";
const TORCHTUNE: &str = "pytorch__torchtune/recipes/configs/llama3_1/8B_lora_single_device.yaml";
const DEEPSPEED: &str = "huggingface__transformers/tests/deepspeed/ds_config_zero3.json";
/// FSDP with the sequence length unbounded: the estimate solves for it (`solved`).
const TORCHTUNE_70B: &str = "pytorch__torchtune/recipes/configs/llama3_1/70B_lora.yaml";
const AXOLOTL: &str = "axolotl-ai-cloud__axolotl/examples/llama-3/fft-8b.yaml";

#[test]
fn check_output_validates() {
    let schema = validator("check-output");
    let repo = common::repo();
    let rules = valid(&schema, &repo, &["check", "--output-format", "json", "fixtures/rules"]);
    assert_eq!(rules["version"], 1);
    let diagnostics = rules["diagnostics"].as_array().unwrap();
    // The optional parts are covered: a fix with edits, secondary labels, a stage, a GPU.
    assert!(diagnostics.iter().any(|d| d["fix"]["edits"].as_array().is_some_and(|e| !e.is_empty())));
    assert!(diagnostics.iter().any(|d| d["labels"].as_array().is_some_and(|l| !l.is_empty())));
    assert!(diagnostics.iter().any(|d| d["stage"].is_string()));
    assert!(diagnostics.iter().any(|d| d["gpu"].is_string()));
    valid(&schema, &repo, &["check", "--output-format", "json", "fixtures/seeds", "--gpu", "rtx-4090", "--gpu", "a100-80gb"]);
    let statistics = valid(&schema, &repo, &["check", "--statistics", "--output-format", "json", "fixtures/rules"]);
    assert_eq!(statistics["version"], 1);
    assert!(statistics["statistics"].as_array().is_some_and(|s| !s.is_empty()));
    let Some(shared) = common::shared() else { return };
    for project in ["pytorch__torchtune", "huggingface__transformers", "axolotl-ai-cloud__axolotl"] {
        let path = shared.join("corpus").join(project).display().to_string();
        valid(&schema, &repo, &["check", "--output-format", "json", &path]);
    }
}

#[test]
fn show_output_validates() {
    let schema = validator("show-output");
    let repo = common::repo();
    for args in [
        &[SEED_000][..],
        &[SEED_001, "--world-size", "4"],
        &[SEED_001, "--set", "batch.micro_batch=4"],
        &["fixtures/seeds/002_dreams.yaml"],
        &[SEED_003],
        &[SEED_004, "--stage", "03"],
    ] {
        let value = valid(&schema, &repo, &[&["show", "--output-format", "json"][..], args].concat());
        assert_eq!(value["version"], 1, "{args:?}");
    }
    let overridden = json_in(&repo, &["show", "--output-format", "json", SEED_001, "--set", "batch.micro_batch=4"]);
    assert_eq!(overridden["roles"]["micro_batch"]["override"], true);
    // A config that cannot be resolved: the findings that say why.
    let dir = common::fresh_dir("show-output");
    std::fs::write(dir.join("broken.yaml"), "batch: [1, 2\n").unwrap();
    let broken = valid(&schema, &dir, &["show", "--output-format", "json", "broken.yaml"]);
    assert!(broken["diagnostics"].as_array().is_some_and(|d| !d.is_empty()), "{broken:#}");
    for file in [TORCHTUNE, DEEPSPEED, AXOLOTL] {
        let Some(path) = corpus(file) else { return };
        let value = valid(&schema, &repo, &["show", "--output-format", "json", &path]);
        assert!(value["roles"].as_object().is_some_and(|r| !r.is_empty()), "{file}");
        if file == TORCHTUNE {
            // Roles read from the model the config names.
            assert!(value["roles"].as_object().unwrap().values().any(|r| r["model_source"].is_string()), "{value:#}");
        }
    }
}

#[test]
fn estimate_output_validates_on_the_corpus() {
    let schema = validator("estimate-output");
    let repo = common::repo();
    for file in [TORCHTUNE, TORCHTUNE_70B, AXOLOTL] {
        let Some(path) = corpus(file) else { return };
        valid(&schema, &repo, &["estimate", "--output-format", "json", &path, "--gpu", "a100-80gb", "--gpu", "rtx-4090"]);
    }
}

#[test]
fn plan_output_validates() {
    let schema = validator("plan-output");
    let repo = common::repo();
    for args in [&[SEED_003, "--gpu", "a100-80gb"][..], &[SEED_004, "--gpu", "quadro-rtx-6000", "--gpu", "a100-80gb"], &[SEED_000, "--all-gpus"]] {
        let value = valid(&schema, &repo, &[&["plan", "--output-format", "json"][..], args].concat());
        let rows = value.as_array().unwrap();
        assert!(!rows.is_empty() && rows.iter().all(|r| r["version"] == 1), "{args:?}");
    }
    for file in [TORCHTUNE, AXOLOTL] {
        let Some(path) = corpus(file) else { return };
        valid(&schema, &repo, &["plan", "--output-format", "json", &path, "--gpu", "a100-80gb", "--gpu", "rtx-4090"]);
    }
}

#[test]
fn rule_output_validates() {
    let schema = validator("rule-output");
    let repo = common::repo();
    let one = valid(&schema, &repo, &["rule", "SCH003", "--output-format", "json"]);
    assert_eq!((one["version"].as_u64(), one["rules"].as_array().map(Vec::len)), (Some(1), Some(1)));
    assert_eq!(one["rules"][0]["code"], "SCH003");
    let all = valid(&schema, &repo, &["rule", "--all", "--output-format", "json"]);
    assert_eq!(all["rules"].as_array().map(Vec::len), Some(trainlint::rules::codes::ALL.len()));
}

#[test]
fn gpus_output_validates() {
    let schema = validator("gpus-output");
    let builtin = valid(&schema, &common::repo(), &["gpus", "--output-format", "json"]);
    assert_eq!(builtin["version"], 1);
    // A custom target from the manifest, without the optional facts.
    let dir = common::fresh_dir("gpus-output");
    std::fs::write(dir.join("trainlint.toml"), "[[gpu]]\nid = \"lab-a6000\"\nname = \"NVIDIA RTX A6000\"\nmemory-mib = 48676\nbf16 = true\nfp8 = false\n")
        .unwrap();
    let custom = valid(&schema, &dir, &["gpus", "--output-format", "json", "--config", "trainlint.toml"]);
    assert!(custom["gpus"].as_array().unwrap().iter().any(|g| g["id"] == "lab-a6000"), "{custom:#}");
}

/// The schemas are closed: another version, an unknown field or a missing one is not the shape.
#[test]
fn output_schemas_reject_other_shapes() {
    let repo = common::repo();
    let cases: [(&str, &[&str]); 5] = [
        ("check-output", &["check", "--output-format", "json", "fixtures/seeds"]),
        ("show-output", &["show", "--output-format", "json", SEED_000]),
        ("estimate-output", &["estimate", "--output-format", "json", SEED_003, "--gpu", "a100-80gb"]),
        ("rule-output", &["rule", "SCH003", "--output-format", "json"]),
        ("gpus-output", &["gpus", "--output-format", "json"]),
    ];
    for (name, args) in cases {
        let schema = validator(name);
        let value = valid(&schema, &repo, args);
        let mut version = value.clone();
        version["version"] = 2.into();
        assert!(!schema.is_valid(&version), "{name}: version 2");
        let mut extra = value.clone();
        extra["surprise"] = true.into();
        assert!(!schema.is_valid(&extra), "{name}: an unknown field");
        let mut missing = value;
        missing.as_object_mut().unwrap().remove("version");
        assert!(!schema.is_valid(&missing), "{name}: no version");
    }
    let plan = validator("plan-output");
    let rows = valid(&plan, &repo, &["plan", "--output-format", "json", SEED_003, "--gpu", "a100-80gb"]);
    let mut version = rows.clone();
    version[0]["version"] = 2.into();
    assert!(!plan.is_valid(&version));
    let mut missing = rows;
    missing[0].as_object_mut().unwrap().remove("fits");
    assert!(!plan.is_valid(&missing));
}
