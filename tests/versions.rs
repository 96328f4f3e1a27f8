//! MIG001 (Lightning precision names) depends on the Lightning version the
//! project uses: the manifest's `[frameworks]`, else lock and requirement
//! files from the config's folder up to the project's root.

mod common;

const CONFIG: &str = "trainer:\n  precision: 16\n";

/// A scratch project (`.git` marks its root) with `files`, checked with MIG001 only; the JSON diagnostics.
fn mig001(label: &str, files: &[(&str, &str)]) -> Vec<serde_json::Value> {
    let dir = common::fresh_dir(&format!("versions-{label}"));
    std::fs::create_dir_all(dir.join(".git")).unwrap();
    std::fs::create_dir_all(dir.join("configs")).unwrap();
    std::fs::write(dir.join("configs/train.yaml"), CONFIG).unwrap();
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let output = common::trainlint_in(&dir, &["check", "--select", "MIG001", "--output-format", "json", "configs/train.yaml"]);
    assert!(matches!(output.status.code(), Some(0 | 1)), "{}", common::stderr(&output));
    let json: serde_json::Value = serde_json::from_str(&common::stdout(&output)).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    json["diagnostics"].as_array().unwrap().clone()
}

fn applicability(found: &[serde_json::Value]) -> &str {
    assert_eq!(found.len(), 1, "{found:#?}");
    found[0]["fix"]["applicability"].as_str().unwrap()
}

#[test]
fn a_known_lightning_2_gives_a_safe_fix() {
    for (label, files) in [
        ("manifest", vec![("trainlint.toml", "[frameworks]\nlightning = \"2.2\"\n")]),
        ("uv-lock", vec![("uv.lock", "version = 1\n[[package]]\nname = \"lightning\"\nversion = \"2.2.1\"\n")]),
        ("poetry-lock", vec![("poetry.lock", "[[package]]\nname = \"pytorch-lightning\"\nversion = \"2.0.9\"\n")]),
        ("requirements", vec![("requirements-train.txt", "torch>=2.1\npytorch_lightning>=2.0,<3  # trainer\n")]),
        ("pyproject", vec![("pyproject.toml", "[project]\nname = \"x\"\ndependencies = [\"lightning~=2.1\"]\n")]),
        ("poetry", vec![("pyproject.toml", "[tool.poetry.dependencies]\nlightning = \"^2.1\"\n")]),
        ("setup-cfg", vec![("setup.cfg", "[options]\ninstall_requires =\n    lightning==2.1.*\n")]),
        ("conda", vec![("environment.yml", "dependencies:\n  - python=3.11\n  - conda-forge::lightning=2.2\n")]),
        // The lock file settles what a loose requirement leaves open.
        ("lock-over-loose", vec![("requirements.txt", "lightning>=1.8\n"), ("uv.lock", "[[package]]\nname = \"lightning\"\nversion = \"2.1.0\"\n")]),
    ] {
        // Labels are per test: two tests running at once must not share a folder.
        let found = mig001(&format!("v2-{label}"), &files);
        assert_eq!(applicability(&found), "safe", "{label}: {found:#?}");
        assert_eq!(found[0]["message"], "Lightning 2.0 renamed precision `16` to `16-mixed`", "{label}");
        assert!(found[0]["note"].as_str().unwrap().contains("which this project uses ("), "{label}: the note names the source: {}", found[0]["note"]);
    }
}

#[test]
fn lightning_1x_gets_no_finding() {
    for (label, files) in [
        ("manifest", vec![("trainlint.toml", "[frameworks]\nlightning = \"1.9\"\n")]),
        ("requirements", vec![("requirements.txt", "pytorch-lightning==1.9.5\n")]),
        ("ceiling", vec![("requirements.txt", "lightning<2\n")]),
        ("lock", vec![("poetry.lock", "[[package]]\nname = \"pytorch-lightning\"\nversion = \"1.9.5\"\n")]),
        // The manifest comes first.
        (
            "manifest-first",
            vec![("trainlint.toml", "[frameworks]\nlightning = \"1.9.5\"\n"), ("uv.lock", "[[package]]\nname = \"lightning\"\nversion = \"2.2.1\"\n")],
        ),
    ] {
        assert!(mig001(&format!("v1-{label}"), &files).is_empty(), "{label}");
    }
}

#[test]
fn an_unknown_version_keeps_the_finding_with_an_unsafe_fix() {
    let found = mig001("unknown", &[]);
    assert_eq!(applicability(&found), "unsafe");
    assert!(found[0]["message"].as_str().unwrap().contains("assuming Lightning ≥ 2.0: the project states no Lightning version"), "{}", found[0]["message"]);
    assert!(found[0]["note"].as_str().unwrap().contains("[frameworks] lightning"), "says how to state it");
    let loose = mig001("loose", &[("requirements.txt", "lightning>=1.8\n")]);
    assert_eq!(applicability(&loose), "unsafe");
    assert!(loose[0]["message"].as_str().unwrap().contains("requirements.txt (`lightning>=1.8`) allows Lightning 1.x and 2.x"), "{}", loose[0]["message"]);
    // A file above the project's root (`.git`) is not read: the folder above holds a pin that must not count.
    let outer = common::fresh_dir("versions-outer");
    std::fs::write(outer.join("requirements.txt"), "lightning==2.2\n").unwrap();
    let inner = outer.join("project");
    std::fs::create_dir_all(inner.join(".git")).unwrap();
    std::fs::write(inner.join("train.yaml"), CONFIG).unwrap();
    let output = common::trainlint_in(&inner, &["check", "--select", "MIG001", "--output-format", "json", "train.yaml"]);
    let json: serde_json::Value = serde_json::from_str(&common::stdout(&output)).unwrap();
    assert_eq!(applicability(json["diagnostics"].as_array().unwrap()), "unsafe");
    std::fs::remove_dir_all(&outer).unwrap();
}

#[test]
fn unsafe_fixes_apply_the_assumed_rename_and_fix_does_not() {
    let dir = common::fresh_dir("versions-fix");
    std::fs::create_dir_all(dir.join(".git")).unwrap();
    let path = dir.join("train.yaml");
    std::fs::write(&path, CONFIG).unwrap();
    common::trainlint_in(&dir, &["check", "--select", "MIG001", "--fix", "train.yaml"]);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), CONFIG, "--fix leaves an unsafe fix");
    common::trainlint_in(&dir, &["check", "--select", "MIG001", "--fix", "--unsafe-fixes", "train.yaml"]);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "trainer:\n  precision: 16-mixed\n");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_bad_frameworks_table_is_a_manifest_error() {
    for (manifest, expected) in [
        ("[frameworks]\nlightning = \"two\"\n", "`two` is not a version"),
        ("[frameworks]\nlightnin = \"2.2\"\n", "unknown framework `lightnin` in `[frameworks]`"),
    ] {
        let dir = common::fresh_dir("versions-bad");
        std::fs::write(dir.join("trainlint.toml"), manifest).unwrap();
        std::fs::write(dir.join("train.yaml"), CONFIG).unwrap();
        let output = common::trainlint_in(&dir, &["check", "train.yaml"]);
        assert_eq!(output.status.code(), Some(2), "{manifest}");
        // The error is wrapped to the terminal width: compare its words.
        let words = common::stderr(&output).replace('│', " ").split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(words.contains(expected), "{}", common::stderr(&output));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// MIG004's `evaluation_strategy` → `eval_strategy` depends on transformers 4.41, where the new
/// name appeared. alignment-handbook's 2023 layout pins transformers in `setup.py`'s `_deps`
/// table (read as text, never run): pinned below 4.41 there is nothing to migrate to.
#[test]
fn mig004_follows_the_transformers_pin_of_setup_py() {
    let recipe = "model_name_or_path: HuggingFaceH4/mistral-7b-sft-beta\nbf16: true\nevaluation_strategy: steps\ngradient_accumulation_steps: 2\nper_device_train_batch_size: 8\noutput_dir: data/zephyr-7b-dpo-full\n";
    let setup = |pin: &str| {
        format!(
            "# Adapted from huggingface/transformers\nfrom setuptools import setup\n\n_deps = [\n    \"accelerate==0.23.0\",\n    \"{pin}\",  # pinned\n    'trl==0.7.4',\n]\n\nsetup(name=\"alignment-handbook\", install_requires=_deps)\n"
        )
    };
    let codes = |pin: &str| {
        let dir = common::fresh_dir("versions-mig004");
        std::fs::create_dir_all(dir.join(".git")).unwrap();
        std::fs::create_dir_all(dir.join("recipes")).unwrap();
        std::fs::write(dir.join("recipes/config_full.yaml"), recipe).unwrap();
        std::fs::write(dir.join("setup.py"), setup(pin)).unwrap();
        let output = common::trainlint_in(&dir, &["check", "--select", "MIG004", "--output-format", "json", "recipes/config_full.yaml"]);
        let json: serde_json::Value = serde_json::from_str(&common::stdout(&output)).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        json["diagnostics"].as_array().unwrap().len()
    };
    assert_eq!(codes("transformers==4.35.0"), 0, "transformers 4.35 has no eval_strategy");
    assert_eq!(codes("transformers>=4.41.0"), 1);
    assert_eq!(codes("transformers @ git+https://github.com/huggingface/transformers.git@main"), 1, "a version no file states: the finding stays");
    // Pinned to 4.41 or later: a warning; no statement of the version at all: an info that says
    // it assumes the latest release (issue 25).
    let severity = |setup_py: Option<&str>| {
        let dir = common::fresh_dir("versions-mig004-severity");
        std::fs::create_dir_all(dir.join(".git")).unwrap();
        std::fs::write(dir.join("config_full.yaml"), recipe).unwrap();
        if let Some(pin) = setup_py {
            std::fs::write(dir.join("setup.py"), setup(pin)).unwrap();
        }
        let output = common::trainlint_in(&dir, &["check", "--select", "MIG004", "--output-format", "json", "config_full.yaml"]);
        let json: serde_json::Value = serde_json::from_str(&common::stdout(&output)).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        let d = &json["diagnostics"][0];
        (d["severity"].as_str().unwrap().to_owned(), d["message"].as_str().unwrap().to_owned())
    };
    assert_eq!(severity(Some("transformers==4.45.0")).0, "warning");
    let (level, message) = severity(None);
    assert_eq!(level, "info");
    assert!(message.contains("assuming the latest transformers: the project states no transformers version"), "{message}");
}

/// Issue 25: a LightningCLI config names the Lightning that wrote it (`# lightning.pytorch==2.0.6`,
/// `LightningCLI.init_parser`'s `dump_header`): MIG001 reads it as a statement of the version,
/// a safe fix on 2.x and no finding on 1.x, instead of "the project states no Lightning version".
#[test]
fn a_lightning_cli_header_states_the_version() {
    let check = |label: &str, header: &str| {
        let dir = common::fresh_dir(&format!("versions-header-{label}"));
        std::fs::create_dir_all(dir.join(".git")).unwrap();
        std::fs::write(dir.join("config.yaml"), format!("{header}\n{CONFIG}")).unwrap();
        let output = common::trainlint_in(&dir, &["check", "--select", "MIG001", "--output-format", "json", "config.yaml"]);
        let json: serde_json::Value = serde_json::from_str(&common::stdout(&output)).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        json["diagnostics"].as_array().unwrap().clone()
    };
    let two = check("two", "# lightning.pytorch==2.0.6");
    assert_eq!(applicability(&two), "safe", "{two:#?}");
    assert!(two[0]["note"].as_str().unwrap().contains("config.yaml:1 (LightningCLI's header comment)"), "{}", two[0]["note"]);
    assert!(check("one", "# pytorch_lightning==1.9.0").is_empty());
}

/// Issue 25: every Lightning 2.0 migration is gated by the project's Lightning version: `gpus`
/// (MIG002) and a removed Trainer argument (MIG003) give nothing on a project pinned to 1.x, a
/// warning on 2.x, and an info that says it assumes the latest release when nothing states it.
#[test]
fn lightning_removals_follow_the_version() {
    let run = |label: &str, requirements: Option<&str>| {
        let dir = common::fresh_dir(&format!("versions-removals-{label}"));
        std::fs::create_dir_all(dir.join(".git")).unwrap();
        std::fs::write(dir.join("train.yaml"), "trainer:\n  gpus: 2\n  resume_from_checkpoint: last.ckpt\n").unwrap();
        if let Some(text) = requirements {
            std::fs::write(dir.join("requirements.txt"), text).unwrap();
        }
        let output = common::trainlint_in(&dir, &["check", "--select", "MIG002,MIG003", "--output-format", "json", "train.yaml"]);
        let json: serde_json::Value = serde_json::from_str(&common::stdout(&output)).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        json["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| (d["code"].as_str().unwrap().to_owned(), d["severity"].as_str().unwrap().to_owned()))
            .collect::<Vec<_>>()
    };
    assert_eq!(run("one", Some("pytorch-lightning==1.9.5\n")), vec![]);
    let two = run("two", Some("lightning==2.2.1\n"));
    assert_eq!(two, vec![("MIG002".to_owned(), "warning".to_owned()), ("MIG003".to_owned(), "warning".to_owned())]);
    let unstated = run("unstated", None);
    assert_eq!(unstated, vec![("MIG002".to_owned(), "info".to_owned()), ("MIG003".to_owned(), "info".to_owned())]);
}

/// A scratch project (`.git` marks its root) with `config` at `name` and, when given, a pin file;
/// `args` before the config's name; the JSON the command prints.
fn in_project(label: &str, name: &str, config: &str, pin: Option<(&str, &str)>, args: &[&str]) -> serde_json::Value {
    let dir = common::fresh_dir(&format!("versions-{label}"));
    std::fs::create_dir_all(dir.join(".git")).unwrap();
    std::fs::write(dir.join(name), config).unwrap();
    if let Some((file, text)) = pin {
        std::fs::write(dir.join(file), text).unwrap();
    }
    let mut all = args.to_vec();
    all.push(name);
    let output = common::trainlint_in(&dir, &all);
    assert!(matches!(output.status.code(), Some(0 | 1)), "{}", common::stderr(&output));
    let json: serde_json::Value = serde_json::from_str(&common::stdout(&output)).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    json
}

/// One rule's findings as (severity, message).
fn findings(label: &str, name: &str, config: &str, pin: Option<(&str, &str)>, code: &str) -> Vec<(String, String)> {
    let json = in_project(label, name, config, pin, &["check", "--select", code, "--output-format", "json"]);
    json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            assert_eq!(d["code"], code);
            (d["severity"].as_str().unwrap().to_owned(), d["message"].as_str().unwrap().to_owned())
        })
        .collect()
}

/// Issue 25: MIG005 (`bfloat16` → `bf16`) follows the project's DeepSpeed: the `bf16` key is
/// read from DeepSpeed 0.6.0 (`constants.py` `BFLOAT16 = "bf16"`, `BFLOAT16_OLD = "bfloat16"`),
/// so a project pinned below it gets nothing (the rename would turn bf16 off), one pinned to 0.6
/// or later a warning, one that states no version an info that says it assumes the latest release.
#[test]
fn mig005_follows_the_deepspeed_version() {
    let config = "{\"bfloat16\": {\"enabled\": true}, \"train_micro_batch_size_per_gpu\": 4, \"zero_optimization\": {\"stage\": 2}}\n";
    let run = |label: &str, pin: Option<(&str, &str)>| findings(&format!("mig005-{label}"), "ds_config.json", config, pin, "MIG005");
    assert_eq!(run("old", Some(("requirements.txt", "torch==1.10.0\ndeepspeed==0.5.10\n"))), vec![]);
    let new = run("new", Some(("pyproject.toml", "[project]\nname = \"x\"\ndependencies = [\"deepspeed>=0.14\"]\n")));
    assert_eq!(new, vec![("warning".to_owned(), "DeepSpeed's `bfloat16` section is now `bf16`".to_owned())]);
    let unstated = run("unstated", None);
    assert_eq!(unstated.len(), 1, "{unstated:?}");
    assert_eq!(unstated[0].0, "info");
    assert!(unstated[0].1.contains("assuming the latest DeepSpeed: the project states no DeepSpeed version"), "{}", unstated[0].1);
}

/// Issue 25: MIG006 (`PYTORCH_CUDA_ALLOC_CONF` → `PYTORCH_ALLOC_CONF`) follows the project's
/// PyTorch: the new name is read, and the old one deprecated, from PyTorch 2.9.0; 2.8 ignores it.
#[test]
fn mig006_follows_the_torch_version() {
    let config = "env:\n  PYTORCH_CUDA_ALLOC_CONF: expandable_segments:True\nargs:\n  - PYTORCH_HIP_ALLOC_CONF=expandable_segments:True\n";
    let run = |label: &str, pin: Option<(&str, &str)>| findings(&format!("mig006-{label}"), "job.yaml", config, pin, "MIG006");
    assert_eq!(run("old", Some(("requirements.txt", "torch==2.8.0\n"))), vec![]);
    assert_eq!(run("conda-old", Some(("environment.yml", "dependencies:\n  - pytorch=2.5\n"))), vec![]);
    let new = run("new", Some(("requirements.txt", "torch>=2.9\n")));
    assert_eq!(new.iter().map(|(s, _)| s.as_str()).collect::<Vec<_>>(), ["warning", "warning"], "{new:?}");
    assert_eq!(run("manifest", Some(("trainlint.toml", "[frameworks]\ntorch = \"2.10\"\n"))).len(), 2, "the manifest states it too");
    let unstated = run("unstated", None);
    assert_eq!(unstated.iter().map(|(s, _)| s.as_str()).collect::<Vec<_>>(), ["info", "info"], "{unstated:?}");
    assert!(unstated[0].1.contains("assuming the latest PyTorch: the project states no PyTorch version"), "{}", unstated[0].1);
}

/// Issue 25: litgpt's division of the global batch over nodes changed in 0.5.8 (#1947:
/// `TrainArgs.batch_size(devices, num_nodes)` = `global // (devices * num_nodes)`; before it
/// `global // devices`). On 2 nodes of 4 GPUs, global 64 and micro 4: litgpt 0.5.8 accumulates
/// ⌊64 ÷ 8 ÷ 4⌋ = 2 steps and trains 64; 0.5.7 accumulates ⌊64 ÷ 4 ÷ 4⌋ = 4 and trains 128
/// (BAT008). With no version stated the latest division is used and BAT008's note says so.
#[test]
fn litgpt_batch_division_follows_the_version() {
    let config = "checkpoint_dir: checkpoints/meta-llama/Llama-2-7b-hf\ndevices: 4\nnum_nodes: 2\ntrain:\n  global_batch_size: 64\n  micro_batch_size: 4\n";
    let show = |label: &str, pin: Option<(&str, &str)>| {
        let view = in_project(&format!("litgpt-{label}"), "lora.yaml", config, pin, &["show", "--output-format", "json"]);
        assert_eq!(view["dialect"], "litgpt");
        (view["batch"]["derived"]["accumulation"].as_u64(), view["effective_batch"].as_u64())
    };
    assert_eq!(show("new", Some(("requirements.txt", "litgpt[all]==0.5.8\n"))), (Some(2), Some(64)));
    assert_eq!(show("old", Some(("requirements.txt", "litgpt==0.5.7\n"))), (Some(4), Some(128)));
    assert_eq!(show("unstated", None), (Some(2), Some(64)), "the latest release's division");
    // The old release trains 128: BAT008 says so, and why.
    let check = |label: &str, config: &str, pin: Option<(&str, &str)>| {
        in_project(&format!("litgpt-check-{label}"), "lora.yaml", config, pin, &["check", "--select", "BAT008", "--output-format", "json"])["diagnostics"]
            .as_array()
            .unwrap()
            .clone()
    };
    let old = check("old", config, Some(("pyproject.toml", "[project]\nname = \"x\"\ndependencies = [\"litgpt==0.5.3\"]\n")));
    assert_eq!(old.len(), 1, "{old:#?}");
    assert!(old[0]["message"].as_str().unwrap().contains("trains an effective batch of 128, not the global batch 64"), "{}", old[0]["message"]);
    let note = old[0]["note"].as_str().unwrap();
    assert!(note.contains("⌊64 ÷ 4 devices⌋ = 16 samples per GPU") && note.contains("states litgpt before 0.5.8"), "{note}");
    assert!(check("new", config, Some(("requirements.txt", "litgpt==0.5.8\n"))).is_empty());
    // A remainder on 2 nodes with no version stated: BAT008 on the latest division, its note
    // saying that release's division was assumed.
    let uneven = config.replace("global_batch_size: 64", "global_batch_size: 60");
    let unstated = check("unstated", &uneven, None);
    assert_eq!(unstated.len(), 1, "{unstated:#?}");
    assert!(unstated[0]["message"].as_str().unwrap().contains("trains an effective batch of 32, not the global batch 60"), "{}", unstated[0]["message"]);
    let note = unstated[0]["note"].as_str().unwrap();
    assert!(note.contains("litgpt 0.5.8's division was assumed") && note.contains("the project states no litgpt version"), "{note}");
}
