//! One real config per dialect through `trainlint show`: the dialect, and the
//! roles it states with the file and line they come from; DeepSpeed `"auto"`
//! from a paired HF config; a shell script checked and fixed in place.

mod common;

use std::path::PathBuf;

fn show(path: &str, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["show", "--output-format", "json", path];
    args.extend_from_slice(extra);
    let output = common::trainlint(&args);
    serde_json::from_str(&common::stdout(&output)).unwrap_or_else(|e| panic!("{path}: {e}: {}{}", common::stdout(&output), common::stderr(&output)))
}

fn role(view: &serde_json::Value, role: &str) -> (serde_json::Value, String, u64) {
    let r = &view["roles"][role];
    assert!(!r.is_null(), "no {role} in {view:#}");
    (r["value"].clone(), r["file"].as_str().unwrap().to_owned(), r["line"].as_u64().unwrap())
}

#[test]
fn one_config_of_every_dialect() {
    let Some(shared) = common::shared() else { return };
    let corpus = shared.join("corpus");
    // A framework the corpus has no file of has one in `fixtures/dialects/`, in its own layout.
    let at = |p: &str| if p.starts_with("fixtures/") { p.to_owned() } else { corpus.join(p).display().to_string() };
    // (corpus or fixture path, dialect, expected roles)
    type Case<'a> = (&'a str, &'a str, &'a [(&'a str, serde_json::Value)]);
    let cases: [Case; 25] = [
        (
            "fixtures/dialects/litgpt/config_hub/finetune/llama-2-7b/lora.yaml",
            "litgpt",
            &[("micro_batch", 2.into()), ("global_batch", 8.into()), ("precision", "bf16-true".into()), ("lora_rank", 32.into())],
        ),
        (
            "huggingface__alignment-handbook/recipes/smollm2/sft/config.yaml",
            "hf-trainer",
            &[("micro_batch", 4.into()), ("accumulation", 4.into()), ("precision", "bf16-mixed".into())],
        ),
        ("hiyouga__LLaMA-Factory/examples/train_lora/qwen3_lora_dpo.yaml", "llama-factory", &[("micro_batch", 1.into()), ("accumulation", 8.into())]),
        ("pytorch__torchtune/recipes/configs/llama3_1/70B_full.yaml", "torchtune", &[("micro_batch", 2.into()), ("precision", "bf16-true".into())]),
        ("axolotl-ai-cloud__axolotl/examples/llama-3/3b-qat-fsdp2.yaml", "axolotl", &[("micro_batch", 16.into()), ("accumulation", 1.into())]),
        ("huggingface__accelerate/examples/config_yaml_templates/multi_node.yaml", "accelerate", &[("devices", 8.into())]),
        ("microsoft__DeepSpeed/tests/model/Megatron_GPT2/ds_config_func_bs8_zero2.json", "deepspeed", &[("global_batch", 8.into()), ("zero_stage", 2.into())]),
        ("ashleve__lightning-hydra-template/configs/train.yaml", "lightning", &[("micro_batch", 128.into()), ("devices", 1.into())]),
        (
            "lowmason__naics-embedder/_history/e418955/conf/config.yaml",
            "lightning",
            &[("micro_batch", 4.into()), ("accumulation", 4.into()), ("devices", 1.into()), ("precision", "16-mixed".into())],
        ),
        (
            "microsoft__DeepSpeedExamples/training/bing_bert/bert_base.json",
            "model-config",
            &[("hidden_size", 768.into()), ("layers", 12.into()), ("heads", 12.into())],
        ),
        ("ashleve__lightning-hydra-template/configs/callbacks/default.yaml", "hydra", &[]),
        (
            "fixtures/dialects/llm_foundry/finetune_llama3_variables.yaml",
            "llm-foundry",
            &[("global_batch", 48.into()), ("micro_batch", 4.into()), ("sequence_length", 4096.into()), ("precision", "amp_fp16".into())],
        ),
        (
            "fixtures/dialects/nemo/gpt_pretrain_tp2.yaml",
            "nemo",
            &[
                ("micro_batch", 4.into()),
                ("global_batch", 256.into()),
                ("devices", 8.into()),
                ("nodes", 2.into()),
                ("tensor_parallel", 2.into()),
                ("pipeline_parallel", 2.into()),
                ("sequence_length", 2048.into()),
                ("heads", 16.into()),
            ],
        ),
        (
            "fixtures/dialects/nemo/citrinet_asr.yaml",
            "nemo",
            &[("micro_batch", 32.into()), ("accumulation", 2.into()), ("devices", 4.into()), ("precision", 32.into())],
        ),
        // An OpenRLHF DPO launch line as a user ran it (OpenRLHF issue 384).
        (
            "fixtures/reported/openrlhf-384/train.sh",
            "openrlhf",
            &[
                ("micro_batch", 1.into()),
                ("global_batch", 128.into()),
                ("zero_stage", 3.into()),
                ("preference", "dpo".into()),
                ("precision", "bf16-mixed".into()),
            ],
        ),
        // GPT-NeoX's own configs/20B.yml, nanotron's examples/config_tiny_llama.yaml, MaxText's
        // configs/gpu/models/llama2_7b.yml, copied verbatim (their commits are in their first line).
        (
            "fixtures/dialects/gpt_neox/20B.yml",
            "gpt-neox",
            &[
                ("micro_batch", 4.into()),
                ("accumulation", 32.into()),
                ("tensor_parallel", 2.into()),
                ("pipeline_parallel", 4.into()),
                ("layers", 44.into()),
                ("hidden_size", 6144.into()),
                ("heads", 64.into()),
                ("sequence_length", 2048.into()),
                ("zero_stage", 1.into()),
                ("precision", "16-mixed".into()),
                ("activation_checkpointing", true.into()),
            ],
        ),
        (
            "fixtures/dialects/nanotron/config_tiny_llama.yaml",
            "nanotron",
            &[
                ("micro_batch", 3.into()),
                ("accumulation", 1.into()),
                ("devices", 8.into()),
                ("tensor_parallel", 2.into()),
                ("pipeline_parallel", 1.into()),
                ("sequence_length", 4096.into()),
                ("hidden_size", 2048.into()),
                ("layers", 28.into()),
                ("heads", 16.into()),
                ("vocab_size", 128256.into()),
                ("zero_stage", 0.into()),
            ],
        ),
        ("fixtures/dialects/maxtext/llama2_7b.yml", "maxtext", &[("micro_batch", 4.into()), ("sequence_length", 4096.into())]),
        // Levanter's own config/llama2_7b.yaml (commit in its first line).
        (
            "fixtures/dialects/levanter/llama2_7b.yaml",
            "levanter",
            &[
                ("micro_batch", 2.into()),
                ("global_batch", 1024.into()),
                ("tensor_parallel", 1.into()),
                ("precision", "bf16-mixed".into()),
                ("sequence_length", 4096.into()),
            ],
        ),
        // torchtitan's own torchtitan/models/llama3/train_configs/llama3_8b.toml (commit in its first line).
        (
            "fixtures/dialects/torchtitan/llama3_8b.toml",
            "torchtitan",
            &[
                ("micro_batch", 1.into()),
                ("sequence_length", 8192.into()),
                ("tensor_parallel", 1.into()),
                ("pipeline_parallel", 1.into()),
                ("context_parallel", 1.into()),
                ("fsdp", true.into()),
                ("precision", "bf16-mixed".into()),
                ("activation_checkpointing", "selective".into()),
                ("optimizer", "AdamW".into()),
                ("model", "meta-llama/Llama-3.1-8B".into()),
            ],
        ),
        // Megatron-LM's functional test case (its `MODEL_ARGS`) and its Mixtral launch script (bash
        // arrays of flags), copied verbatim (their commit is in their header comment).
        (
            "fixtures/dialects/megatron/gpt3_tp2_pp2/model_config.yaml",
            "megatron-lm",
            &[
                ("micro_batch", 4.into()),
                ("global_batch", 32.into()),
                ("tensor_parallel", 2.into()),
                ("pipeline_parallel", 2.into()),
                ("layers", 12.into()),
                ("hidden_size", 512.into()),
                ("heads", 8.into()),
                ("sequence_length", 1024.into()),
                ("precision", "bf16-mixed".into()),
            ],
        ),
        (
            "fixtures/dialects/megatron/train_mixtral_8x7b_distributed.sh",
            "megatron-lm",
            &[
                ("micro_batch", 1.into()),
                ("global_batch", 256.into()),
                ("tensor_parallel", 1.into()),
                ("pipeline_parallel", 4.into()),
                ("precision", "bf16-mixed".into()),
            ],
        ),
        // Megatron-DeepSpeed's Llama 2 launch script, copied verbatim (commit in its second line):
        // Megatron's flags with `--deepspeed`, its DeepSpeed config written from a heredoc.
        (
            "fixtures/dialects/megatron_deepspeed/pretrain_llama2_distributed.sh",
            "megatron-deepspeed",
            &[
                ("micro_batch", 4.into()),
                ("global_batch", 32.into()),
                ("tensor_parallel", 2.into()),
                ("pipeline_parallel", 2.into()),
                ("layers", 24.into()),
                ("hidden_size", 2048.into()),
                ("heads", 16.into()),
                ("sequence_length", 2048.into()),
                ("precision", "bf16-mixed".into()),
                ("zero_stage", 0.into()),
            ],
        ),
        // OLMo's own configs/official-0724/OLMo-7B.yaml (commit in its first line).
        (
            "fixtures/dialects/olmo/OLMo-7B.yaml",
            "olmo",
            &[
                ("global_batch", 2048.into()),
                ("micro_batch", 2.into()),
                ("sequence_length", 2048.into()),
                ("precision", "amp_bf16".into()),
                ("hidden_size", 4096.into()),
                ("heads", 32.into()),
                ("layers", 32.into()),
                ("vocab_size", 50280.into()),
                ("tie_embeddings", false.into()),
                ("optimizer", "adamw".into()),
                ("fsdp", true.into()),
            ],
        ),
        // llm-foundry's own MosaicML run file mcli/mcli-1b-max-seq-len-8k.yaml (commit in its first line).
        (
            "fixtures/dialects/mcli/mcli-1b-max-seq-len-8k.yaml",
            "mcli",
            &[
                ("devices", 8.into()),
                ("global_batch", 128.into()),
                ("micro_batch", 1.into()),
                ("sequence_length", 8192.into()),
                ("precision", "amp_bf16".into()),
                ("fsdp", true.into()),
            ],
        ),
    ];
    // Every registered framework (the native format has its own tests) has a real config here.
    for dialect in trainlint::dialects::ALL.iter().filter(|d| !d.pseudo() && !d.is_native()) {
        assert!(cases.iter().any(|(_, name, _)| *name == dialect.name()), "no real config of `{}` in this test", dialect.name());
    }
    for (file, dialect, roles) in cases {
        let view = show(&at(file), &[]);
        assert_eq!(view["dialect"], dialect, "{file}: {}", view["dialect_reason"]);
        for (name, value) in roles {
            let (got, from, line) = role(&view, name);
            assert_eq!(&got, value, "{file}: {name}");
            assert!(line >= 1 && !from.is_empty(), "{file}: {name} has a place");
        }
    }
    // Composition: the Hydra template's micro batch comes from the data group file.
    let view = show(&at("ashleve__lightning-hydra-template/configs/train.yaml"), &[]);
    assert!(role(&view, "micro_batch").1.ends_with("configs/data/mnist.yaml"));
    assert!(role(&view, "devices").1.ends_with("configs/trainer/default.yaml"));
    // paths.root_dir is `${oc.env:PROJECT_ROOT}`: the environment is never read,
    // so everything built on it stays unresolved (and SCH006 says so).
    assert_eq!(view["resolved"]["data"]["data_dir"], "${paths.data_dir}");
    assert_eq!(view["resolved"]["data"]["_target_"], "src.data.mnist_datamodule.MNISTDataModule", "merged at the group's package");
}

#[test]
fn deepspeed_auto_is_filled_from_the_paired_hf_config() {
    let view = show("fixtures/dialects/deepspeed_auto_pair/ds_zero2.json", &[]);
    assert_eq!(role(&view, "micro_batch"), (4.into(), "fixtures/dialects/deepspeed_auto_pair/sft.yaml".into(), 4));
    assert_eq!(role(&view, "accumulation"), (8.into(), "fixtures/dialects/deepspeed_auto_pair/sft.yaml".into(), 5));
    assert_eq!(view["effective_batch"], 256, "4 × 8 × world 8 from the manifest");
}

#[test]
fn an_aam_style_shell_script_is_checked_and_fixed_in_place() {
    let dir = std::env::temp_dir().join(format!("trainlint-shell-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["trainlint.toml", "pretrain.sh"] {
        std::fs::copy(common::repo().join("fixtures/dialects/aam_shell").join(name), dir.join(name)).unwrap();
    }
    let output = common::trainlint_in(&dir, &["check", "--output-format", "json", "."]);
    let value: serde_json::Value = serde_json::from_str(&common::stdout(&output)).unwrap();
    let found: Vec<(&str, u64)> = value["diagnostics"].as_array().unwrap().iter().map(|d| (d["code"].as_str().unwrap(), d["line"].as_u64().unwrap())).collect();
    assert_eq!(found, vec![("BAT001", 10)], "{value:#}");
    let before = std::fs::read_to_string(dir.join("pretrain.sh")).unwrap();
    let fixed = common::trainlint_in(&dir, &["check", "--fix", "--unsafe-fixes", "."]);
    assert_eq!(fixed.status.code(), Some(0), "{}", common::stdout(&fixed));
    let after = std::fs::read_to_string(dir.join("pretrain.sh")).unwrap();
    assert_eq!(after, before.replace("--gradient-accumulation-steps 16", "--gradient-accumulation-steps 8"), "only that value changes");
    let _ = std::fs::remove_dir_all(&dir);
    let _: PathBuf = dir;
}

/// `[dialects]` overrides detection per glob; `[hydra] overrides` choose group
/// options and set values, which `show` attributes to the manifest.
#[test]
fn manifest_dialects_and_hydra_overrides() {
    let Some(shared) = common::shared() else { return };
    let dir = std::env::temp_dir().join(format!("trainlint-hydra-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    copy(&shared.join("corpus/ashleve__lightning-hydra-template/configs"), &dir.join("configs"));
    std::fs::write(dir.join("trainlint.toml"), "[hydra]\noverrides = [\"trainer=gpu\", \"data.batch_size=64\", \"trainer.accumulate_grad_batches=4\"]\n\n[dialects]\n\"configs/logger/*.yaml\" = \"hydra\"\n").unwrap();
    let output = common::trainlint_in(&dir, &["show", "--output-format", "json", "configs/train.yaml"]);
    let view: serde_json::Value = serde_json::from_str(&common::stdout(&output)).unwrap();
    assert_eq!(view["roles"]["micro_batch"]["value"], 64);
    assert_eq!(view["roles"]["micro_batch"]["override"], true);
    assert_eq!(view["roles"]["devices"]["file"], "configs/trainer/gpu.yaml", "trainer=gpu chose the option");
    assert_eq!(view["effective_batch"], 256);
    let output = common::trainlint_in(&dir, &["show", "--output-format", "json", "configs/logger/wandb.yaml"]);
    let view: serde_json::Value = serde_json::from_str(&common::stdout(&output)).unwrap();
    assert_eq!(view["dialect"], "hydra");
    assert!(view["dialect_reason"].as_str().unwrap().contains("[dialects]"));
    let _ = std::fs::remove_dir_all(&dir);
}

fn copy(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy(&entry.path(), &target)
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Issue 14's litgpt finetune config resolves with no manifest: the model from
/// `checkpoint_dir` (catalog), precision, sequence length, micro and global batch,
/// the world from `devices × num_nodes`, the adapter, its rank and target modules.
#[test]
fn litgpt_finetune_configs_resolve_without_a_manifest() {
    let lora = show("fixtures/dialects/litgpt/config_hub/finetune/llama-2-7b/lora.yaml", &[]);
    assert_eq!(lora["dialect"], "litgpt");
    for (name, value, line) in [
        ("model", serde_json::json!("checkpoints/meta-llama/Llama-2-7b-hf"), 2),
        ("precision", "bf16-true".into(), 4),
        ("devices", 1.into(), 6),
        ("nodes", 1.into(), 7),
        ("adapter", "lora".into(), 8),
        ("lora_rank", 32.into(), 8),
        ("lora_targets", serde_json::json!(["q", "v"]), 11),
        ("global_batch", 8.into(), 28),
        ("micro_batch", 2.into(), 29),
        ("sequence_length", 512.into(), 32),
        ("optimizer", "torch.optim.AdamW".into(), 36),
        ("learning_rate", 0.0002.into(), 38),
    ] {
        let (got, _, at) = role(&lora, name);
        assert_eq!((got, at), (value, line), "{name}");
    }
    assert_eq!(lora["roles"]["parameters"]["value"], 6_738_415_616u64, "Llama-2-7b from the catalog");
    assert_eq!(lora["roles"]["parameters"]["file"], "catalog:meta-llama/Llama-2-7b-hf");
    assert_eq!(
        (lora["batch"]["world_size"].as_u64(), lora["batch"]["derived"]["accumulation"].as_u64(), lora["effective_batch"].as_u64()),
        (Some(1), Some(4), Some(8))
    );
    let qlora = show("fixtures/dialects/litgpt/config_hub/finetune/mistral-7b/qlora.yaml", &[]);
    assert_eq!((role(&qlora, "adapter").0, role(&qlora, "base_weights").0), ("qlora".into(), "int4-double-quant".into()), "bnb.nf4-dq");
    assert_eq!(role(&qlora, "optimizer").0, "paged_adamw_32bit", "bitsandbytes PagedAdamW whatever the class");
    assert_eq!(role(&qlora, "lora_targets").0, serde_json::json!(["q", "k", "v", "o", "gate", "up", "down"]));
    assert_eq!(qlora["roles"]["parameters"]["file"], "catalog:mistralai/Mistral-7B-v0.1");
}

/// Issue 15's litgpt pretrain case: global 512, micro 128, `devices: auto`. The
/// world is `--world-size`'s; litgpt floors the accumulation: 3 GPUs train 384
/// (BAT008, a warning), 5 GPUs floor it to 0 and litgpt refuses to start (BAT003).
#[test]
fn litgpt_pretrain_floors_the_accumulation() {
    let file = "fixtures/dialects/litgpt/config_hub/pretrain/pythia-floor.yaml";
    let view = show(file, &["--world-size", "3"]);
    assert_eq!(view["dialect"], "litgpt");
    assert_eq!(role(&view, "model").0, "pythia-160m");
    assert_eq!((view["batch"]["world_size"].as_u64(), view["batch"]["world_source"].as_str()), (Some(3), Some("command-line-or-manifest")));
    assert_eq!(view["effective_batch"], 384);
    assert_eq!(view["batch"]["floored"], serde_json::json!({"global": 512, "micro": 128, "accumulation": 1, "world": 3, "effective": 384}));
    let check = |world: &str| {
        let mut args = vec!["check", "--output-format", "json", file];
        if !world.is_empty() {
            args.extend(["--world-size", world]);
        }
        let output = common::trainlint(&args);
        let value: serde_json::Value = serde_json::from_str(&common::stdout(&output)).unwrap();
        let found: Vec<(String, String, String)> = value["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| (d["code"].as_str().unwrap().to_owned(), d["severity"].as_str().unwrap().to_owned(), d["message"].as_str().unwrap().to_owned()))
            .collect();
        (output.status.code(), found)
    };
    let (code, found) = check("3");
    assert_eq!(code, Some(0), "a warning: {found:?}");
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!((found[0].0.as_str(), found[0].1.as_str()), ("BAT008", "warning"));
    assert!(found[0].2.contains("effective batch of 384, not the global batch 512"), "{}", found[0].2);
    let (code, found) = check("5");
    assert_eq!(code, Some(1));
    assert_eq!(found.iter().map(|f| (f.0.as_str(), f.1.as_str())).collect::<Vec<_>>(), vec![("BAT003", "error")]);
    assert!(found[0].2.contains("⌊512 ÷ 5⌋ = 102"), "{}", found[0].2);
    assert_eq!(check("4"), (Some(0), Vec::new()), "512 = 128 × 1 × 4");
    assert_eq!(check("2").1, Vec::new(), "512 = 128 × 2 × 2");
    // Without a world size: BAT006 says on which worlds 512 holds.
    let (_, found) = check("");
    assert_eq!(found.iter().map(|f| f.0.as_str()).collect::<Vec<_>>(), vec!["BAT006"], "{found:?}");
}

/// The memory fix on a litgpt config writes only the micro batch: litgpt derives
/// the accumulation from it (⌊⌊64 ÷ 1⌋ ÷ 4⌋ = 16), so the effective batch stays 64.
#[test]
fn litgpt_memory_fix_writes_only_the_micro_batch() {
    let dir = std::env::temp_dir().join(format!("trainlint-litgpt-fix-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let config = dir.join("config_hub/finetune/tiny-llama/full.yaml");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    std::fs::copy(common::repo().join("fixtures/dialects/litgpt/config_hub/finetune/tiny-llama/full.yaml"), &config).unwrap();
    let before = std::fs::read_to_string(&config).unwrap();
    let output = common::trainlint_in(&dir, &["check", "--output-format", "json", "--gpu", "a100-80gb", "."]);
    let value: serde_json::Value = serde_json::from_str(&common::stdout(&output)).unwrap();
    let codes: Vec<&str> = value["diagnostics"].as_array().unwrap().iter().map(|d| d["code"].as_str().unwrap()).collect();
    // Sure (MEM001) or within the band (MEM002: `train.max_seq_length` only caps the samples);
    // either carries the plan's fix.
    assert!(codes == ["MEM001"] || codes == ["MEM002"], "{value:#}");
    let fixed = common::trainlint_in(&dir, &["check", "--fix", "--unsafe-fixes", "--gpu", "a100-80gb", "."]);
    assert_eq!(fixed.status.code(), Some(0), "{}", common::stdout(&fixed));
    let after = std::fs::read_to_string(&config).unwrap();
    let changed: Vec<(&str, &str)> = before.lines().zip(after.lines()).filter(|(a, b)| a != b).collect();
    assert_eq!(before.lines().count(), after.lines().count());
    assert_eq!(changed.len(), 1, "{changed:?}");
    assert!(changed[0].0.contains("micro_batch_size: 16") && changed[0].1.trim_start().starts_with("micro_batch_size: "), "{changed:?}");
    let view = show(&config.display().to_string(), &[]);
    assert_eq!(view["effective_batch"], 64, "the accumulation litgpt derives keeps 64");
    let _ = std::fs::remove_dir_all(&dir);
}

fn check_json(path: &str, extra: &[&str]) -> (Option<i32>, Vec<(String, u64)>) {
    let mut args = vec!["check", "--output-format", "json", path];
    args.extend_from_slice(extra);
    let output = common::trainlint(&args);
    let value: serde_json::Value = serde_json::from_str(&common::stdout(&output)).unwrap_or_else(|e| panic!("{path}: {e}: {}", common::stdout(&output)));
    let found = value["diagnostics"].as_array().unwrap().iter().map(|d| (d["code"].as_str().unwrap().to_owned(), d["line"].as_u64().unwrap_or(0))).collect();
    (output.status.code(), found)
}

/// llm-foundry's training YAMLs (written in its `scripts/train/yamls/{pretrain,finetune}` layouts):
/// recognised without a manifest, `${variables.…}` resolved, `amp_*` precisions read.
#[test]
fn llm_foundry_layouts_are_recognised_and_their_roles_read() {
    let dir = "fixtures/dialects/llm_foundry";
    for (file, reason) in [
        ("pretrain_mpt_350m.yaml", "llm-foundry batch keys"),
        ("finetune_llama3_variables.yaml", "llm-foundry batch keys"),
        ("auto_microbatch.yaml", "llm-foundry batch keys"),
        ("eval_style_no_batch.yaml", "`model.name: mpt_causal_lm` with llm-foundry keys"),
    ] {
        let view = show(&format!("{dir}/{file}"), &[]);
        assert_eq!(view["dialect"], "llm-foundry", "{file}: {}", view["dialect_reason"]);
        assert!(view["dialect_reason"].as_str().unwrap().starts_with(reason), "{file}: {}", view["dialect_reason"]);
    }
    // `max_seq_len: ${variables.max_seq_len}`: the value and the place it is defined (line 5, in `variables:`).
    let view = show(&format!("{dir}/finetune_llama3_variables.yaml"), &[]);
    assert_eq!(role(&view, "sequence_length"), (4096.into(), format!("{dir}/finetune_llama3_variables.yaml"), 5));
    assert_eq!(view["resolved"]["seed"], 42, "`${{variables.global_seed}}` resolved");
    assert_eq!(role(&view, "model").0, "meta-llama/Meta-Llama-3-8B");
    assert_eq!(role(&view, "optimizer").0, "lion", "`decoupled_lionw` keeps one state, as Lion");
    assert_eq!(view["roles"]["parameters"]["value"], 8_030_261_248u64, "the hub id reaches the model catalog");
    // An MPT model states its shape; FULL_SHARD is FSDP; top-level `max_seq_len` without `variables`.
    let view = show(&format!("{dir}/pretrain_mpt_350m.yaml"), &[]);
    assert_eq!(role(&view, "hidden_size").0, 1024);
    assert_eq!(role(&view, "layers").0, 24);
    assert_eq!(role(&view, "fsdp").0, true);
    assert_eq!(role(&view, "sequence_length").0, 2048);
    assert_eq!(role(&view, "precision").0, "amp_bf16");
    // `auto` micro batch: read as written, no accumulation derived.
    let view = show(&format!("{dir}/auto_microbatch.yaml"), &["--world-size", "8"]);
    assert_eq!(role(&view, "micro_batch").0, "auto");
    assert_eq!(role(&view, "sequence_length"), (8192.into(), format!("{dir}/auto_microbatch.yaml"), 5));
}

/// The per-device batch is global ÷ world and must be whole (llm-foundry raises);
/// accumulation is ⌈device ÷ micro⌉ with a smaller last micro batch (Composer), never
/// DeepSpeed's "micro × accumulation × world = global" (no BAT003/BAT004 for 48 over 8 with micro 4).
#[test]
fn llm_foundry_batch_semantics() {
    let file = "fixtures/dialects/llm_foundry/finetune_llama3_variables.yaml";
    // 48 over 8 devices: 6 per device, micro batches 4 + 2 (DeepSpeed arithmetic would say 48 ÷ (4 × 8) floors).
    let view = show(file, &["--world-size", "8"]);
    assert_eq!(view["effective_batch"], 48);
    assert_eq!(view["batch"]["derived"]["accumulation"], 2);
    assert_eq!(check_json(file, &["--world-size", "8"]), (Some(0), vec![]));
    // 48 over 16: 3 per device, the micro batch 4 is lowered to 3: one micro batch.
    assert_eq!(show(file, &["--world-size", "16"])["batch"]["derived"]["accumulation"], 1);
    // 48 over 5 devices: 9.6 per device, llm-foundry refuses to start.
    assert_eq!(check_json(file, &["--world-size", "5"]), (Some(1), vec![("BAT003".to_owned(), 48)]));
    let output = common::trainlint(&["check", file, "--world-size", "5"]);
    let text = common::stdout(&output);
    assert!(text.contains("global batch 48 does not split evenly over a data-parallel world of 5"), "{text}");
    assert!(!text.contains("DeepSpeed"), "{text}");
    // World unknown: BAT006 (info), exit 0.
    assert_eq!(check_json(file, &[]), (Some(0), vec![("BAT006".to_owned(), 52)]));
    // `auto`: no accumulation, no arithmetic error, but 512 over 7 devices still does not split.
    let auto = "fixtures/dialects/llm_foundry/auto_microbatch.yaml";
    assert_eq!(check_json(auto, &["--world-size", "8"]), (Some(0), vec![]));
    assert!(show(auto, &["--world-size", "8"])["batch"]["derived"].as_object().is_none_or(|d| d.is_empty()));
    assert_eq!(check_json(auto, &["--world-size", "7"]), (Some(1), vec![("BAT003".to_owned(), 35)]));
}

/// OLMo's OLMo-7B config (allenai/OLMo `configs/official-0724/OLMo-7B.yaml`, verbatim): the
/// device batch is global ÷ world (`scripts/train.py`), which must be whole (`IterableDataset`
/// asserts), cut into micro batches with a smaller last one (`Trainer.split_batch`).
#[test]
fn olmo_batch_semantics() {
    let file = "fixtures/dialects/olmo/OLMo-7B.yaml";
    let view = show(file, &["--world-size", "256"]);
    assert_eq!(view["dialect"], "olmo");
    assert!(view["dialect_reason"].as_str().unwrap().starts_with("OLMo's `model.d_model` with model keys `block_type`"), "{}", view["dialect_reason"]);
    assert_eq!(role(&view, "global_batch"), (2048.into(), file.to_owned(), 76));
    assert_eq!(role(&view, "micro_batch"), (2.into(), file.to_owned(), 77));
    assert_eq!(role(&view, "sequence_length"), (2048.into(), file.to_owned(), 32));

    // 2048 over 256 GPUs: 8 per device, 4 micro batches of 2.
    assert_eq!(view["effective_batch"], 2048);
    assert_eq!(view["batch"]["derived"]["accumulation"], 4);
    // The peteish launch scripts' `--device_train_microbatch_size=4`: 8 per device, 2 micro batches of 4.
    let view = show(file, &["--world-size", "256", "--set", "device_train_microbatch_size=4"]);
    assert_eq!(view["batch"]["derived"]["accumulation"], 2);
    assert_eq!(view["effective_batch"], 2048);
    // `device_eval_batch_size: ${device_train_microbatch_size}` is interpolated (OmegaConf).
    assert_eq!(show(file, &[])["resolved"]["device_eval_batch_size"], 2);
    assert_eq!(check_json(file, &["--world-size", "256"]), (Some(0), vec![]));
    // 2048 over 24 GPUs: OLMo asserts `global_batch_size % world_size == 0`.
    assert_eq!(check_json(file, &["--world-size", "24"]), (Some(1), vec![("BAT003".to_owned(), 76)]));
    let text = common::stdout(&common::trainlint(&["check", file, "--world-size", "24"]));
    assert!(text.contains("OLMo gives each device global batch ÷ world samples"), "{text}");
    // OLMo's own model, not in the catalog, under FSDP: not estimated, and said so.
    let text = common::stdout(&common::trainlint(&["check", file, "--world-size", "256", "--gpu", "h100-sxm", "--show-infos"]));
    assert!(text.contains("MEM004") && text.contains("name no model of trainlint's catalog"), "{text}");
}

/// A MosaicML run file (llm-foundry's `mcli/mcli-1b-max-seq-len-8k.yaml`, verbatim): the world is
/// `compute.gpus`, the batch is llm-foundry's under `parameters`, whose `${max_seq_len}` is
/// interpolated within `parameters` (the file the run injects).
#[test]
fn mcli_run_file_world_and_batch() {
    let file = "fixtures/dialects/mcli/mcli-1b-max-seq-len-8k.yaml";
    let view = show(file, &[]);
    assert_eq!(view["dialect"], "mcli");
    assert_eq!(role(&view, "devices"), (8.into(), file.to_owned(), 25));
    assert_eq!(role(&view, "global_batch"), (128.into(), file.to_owned(), 110));
    assert_eq!(role(&view, "micro_batch"), (1.into(), file.to_owned(), 115));
    assert_eq!(role(&view, "sequence_length"), (8192.into(), file.to_owned(), 39));
    // 128 over 8 GPUs: 16 per device, 16 micro batches of 1.
    assert_eq!(view["effective_batch"], 128);
    assert_eq!(view["batch"]["derived"]["accumulation"], 16);
    assert_eq!(view["resolved"]["parameters"]["model"]["max_seq_len"], 8192, "`${{max_seq_len}}` within `parameters`");
    assert_eq!(check_json(file, &[]), (Some(0), vec![]));
    // Global 256 with micro 8 on the run's 8 GPUs: 32 per device, 4 micro batches.
    let view = show(file, &["--set", "parameters.global_train_batch_size=256", "--set", "parameters.device_train_microbatch_size=8"]);
    assert_eq!(view["batch"]["derived"]["accumulation"], 4);
    assert_eq!(view["effective_batch"], 256);
    // 128 over 12 GPUs does not split: llm-foundry raises.
    assert_eq!(check_json(file, &["--set", "compute.gpus=12"]), (Some(1), vec![("BAT003".to_owned(), 110)]));
}

/// `amp_bf16` is bf16 autocast (Composer's `Precision.AMP_BF16`): HW001 on a GPU without bf16.
#[test]
fn llm_foundry_amp_bf16_is_mixed_bf16() {
    let file = "fixtures/dialects/llm_foundry/pretrain_mpt_350m.yaml";
    let (code, found) = check_json(file, &["--gpu", "v100-32gb", "--world-size", "8"]);
    assert_eq!(code, Some(1));
    assert!(found.contains(&("HW001".to_owned(), 60)), "{found:?}");
    let (_, found) = check_json(file, &["--gpu", "a100-80gb", "--world-size", "8"]);
    assert!(!found.iter().any(|(c, _)| c == "HW001"), "{found:?}");
}

/// LightningCLI `class_path`/`init_args` (written in torchgeo's `tests/conf` and
/// `experiments/*/conf` layouts and a `fit:`-nested one): recognised without a
/// `trainer:` mapping; micro batch, model, learning rate and accumulation read where they nest.
#[test]
fn lightning_cli_class_path_and_init_args() {
    let dir = "fixtures/dialects/lightning_cli";
    let view = show(&format!("{dir}/segmentation_subclass_mode.yaml"), &[]);
    assert_eq!(view["dialect"], "lightning");
    assert_eq!(view["dialect_reason"], "LightningCLI classes `model.class_path`, `data.class_path`");
    assert_eq!(role(&view, "micro_batch"), (16.into(), format!("{dir}/segmentation_subclass_mode.yaml"), 15));
    assert_eq!(role(&view, "learning_rate").0, 0.001);
    assert!(view["roles"]["model"].is_null(), "`model.init_args.model: unet` is an architecture name, not a hub model");
    // `dict_kwargs` go to the dataset, not the DataLoader: not a batch size.
    assert_eq!(check_json(&format!("{dir}/segmentation_subclass_mode.yaml"), &[]), (Some(0), vec![("BAT006".to_owned(), 15)]));

    // Trainer arguments, and a constant GradientAccumulationScheduler among the callbacks.
    let view = show(&format!("{dir}/pretrain_with_trainer_and_callbacks.yaml"), &[]);
    assert_eq!(role(&view, "accumulation"), (4.into(), format!("{dir}/pretrain_with_trainer_and_callbacks.yaml"), 16));
    assert_eq!(role(&view, "micro_batch").0, 64);
    assert_eq!(view["effective_batch"], 2048, "64 × 4 × (4 devices × 2 nodes)");

    // A schedule that changes with the epoch is no single accumulation: no effective batch.
    let view = show(&format!("{dir}/scheduled_accumulation_changes.yaml"), &[]);
    assert!(view["effective_batch"].is_null(), "{view:#}");
    assert_eq!(role(&view, "accumulation").2, 9);

    // Everything under the `fit:` subcommand; the module's hub model reaches the catalog.
    let view = show(&format!("{dir}/fit_subcommand_hf_module.yaml"), &[]);
    assert_eq!(view["dialect"], "lightning");
    assert_eq!(role(&view, "micro_batch"), (4.into(), format!("{dir}/fit_subcommand_hf_module.yaml"), 14));
    assert_eq!(role(&view, "model").0, "Qwen/Qwen2.5-0.5B");
    assert_eq!(view["roles"]["parameters"]["value"], 494_032_768u64);
    assert_eq!(role(&view, "learning_rate").0, 2.0e-5);
    assert_eq!(view["effective_batch"], 64, "4 × 8 × 2 devices");

    // A trainer in subclass mode (a LightningCLI subclass's spelling): arguments under `trainer.init_args`,
    // checked there (SCH003), one callback given as a mapping.
    let file = format!("{dir}/trainer_subclass_mode.yaml");
    let view = show(&file, &[]);
    assert_eq!(role(&view, "devices"), (8.into(), file.clone(), 6));
    assert_eq!(role(&view, "accumulation"), (2.into(), file.clone(), 13));
    assert_eq!(view["effective_batch"], 2048, "128 × 2 × 8");
    assert_eq!(check_json(&file, &[]), (Some(0), vec![]), "`class_path`/`init_args` are not unknown Trainer arguments");
}

/// A target effective batch for an llm-foundry file: the global batch is what reaches it
/// (the micro batch does not change the effective batch), and the fix sets it.
#[test]
fn llm_foundry_target_effective_batch_sets_the_global_batch() {
    let dir = common::fresh_dir("llm-foundry-target");
    std::fs::copy(common::repo().join("fixtures/dialects/llm_foundry/finetune_llama3_variables.yaml"), dir.join("sft.yaml")).unwrap();
    std::fs::write(dir.join("trainlint.toml"), "world-size = 8\neffective-batch = 64\n").unwrap();
    let output = common::trainlint_in(&dir, &["check", "sft.yaml"]);
    let text = common::stdout(&output);
    assert!(text.contains("effective batch 48 (the global batch) ≠ target 64"), "{text}");
    assert!(text.contains("set the global batch to 64: 8 per device on a data-parallel world of 8"), "{text}");
    let before = std::fs::read_to_string(dir.join("sft.yaml")).unwrap();
    let fixed = common::trainlint_in(&dir, &["check", "--fix", "--unsafe-fixes", "sft.yaml"]);
    assert_eq!(fixed.status.code(), Some(0), "{}", common::stdout(&fixed));
    let after = std::fs::read_to_string(dir.join("sft.yaml")).unwrap();
    assert_eq!(after, before.replace("global_train_batch_size: 48", "global_train_batch_size: 64"));
    // A target the world does not divide has no fix.
    std::fs::write(dir.join("trainlint.toml"), "world-size = 8\neffective-batch = 60\n").unwrap();
    let text = common::stdout(&common::trainlint_in(&dir, &["check", "sft.yaml"]));
    assert!(text.contains("target 60 does not split evenly over the data-parallel world 8"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// NeMo/Megatron (issue 15): the accumulation is derived from the global batch
/// (global ÷ (micro × data-parallel world)), the data-parallel world is devices ×
/// nodes ÷ (TP × PP × CP), and `trainer.accumulate_grad_batches` (1, "do not
/// modify") is not read as the accumulation: no BAT004 from DeepSpeed's arithmetic.
#[test]
fn nemo_megatron_batch_semantics() {
    let view = show("fixtures/dialects/nemo/gpt_pretrain_tp2.yaml", &[]);
    assert_eq!(view["dialect"], "nemo", "{}", view["dialect_reason"]);
    assert_eq!(view["batch"]["world_size"], 4, "8 devices × 2 nodes ÷ (TP 2 × PP 2)");
    assert_eq!(view["batch"]["derived"]["accumulation"], 16, "256 ÷ (4 × 4)");
    assert_eq!(view["effective_batch"], 256);
    assert!(view["roles"]["accumulation"].is_null(), "accumulate_grad_batches is not Megatron's accumulation");

    let codes = |path: &str, extra: &[&str]| -> Vec<serde_json::Value> {
        let mut args = vec!["check", "--output-format", "json", path];
        args.extend_from_slice(extra);
        let output = common::trainlint(&args);
        let value: serde_json::Value = serde_json::from_str(&common::stdout(&output)).unwrap();
        value["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["code"].as_str().is_some_and(|c| c.starts_with("BAT") || c.starts_with("PAR") || c == "SCH002"))
            .cloned()
            .collect()
    };
    assert_eq!(codes("fixtures/dialects/nemo/gpt_pretrain_tp2.yaml", &[]), Vec::<serde_json::Value>::new(), "accumulate_grad_batches: 1 is what NeMo requires");
    assert_eq!(codes("fixtures/dialects/nemo/llama_peft_lora.yaml", &[]), Vec::<serde_json::Value>::new(), "32 = 2 × 16 × 1");

    // 100 is not a multiple of micro 8 × data-parallel 4 (8 GPUs ÷ TP 2): Megatron asserts.
    let found = codes("fixtures/dialects/nemo/gpt_global_not_divisible.yaml", &[]);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0]["code"], "BAT003");
    assert_eq!(
        found[0]["message"],
        "gradient accumulation cannot be derived: global batch 100 is not divisible by micro batch 8 × data-parallel world 4 = 32 samples"
    );
    assert!(found[0]["note"].as_str().unwrap().contains("num_microbatches_calculator.py"), "{}", found[0]["note"]);
    assert!(found[0]["help"].as_str().unwrap().contains("(96 or 128)"), "{}", found[0]["help"]);
    assert!(found[0]["fix"].is_null(), "no fix rewrites global_batch_size or the \"do not modify\" line");

    // `--fix --unsafe-fixes` leaves the file as it is.
    let dir = common::fresh_dir("nemo-fix");
    let file = dir.join("gpt.yaml");
    std::fs::copy("fixtures/dialects/nemo/gpt_global_not_divisible.yaml", &file).unwrap();
    let before = std::fs::read_to_string(&file).unwrap();
    common::trainlint_in(&dir, &["check", "--fix", "--unsafe-fixes", "gpt.yaml"]);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before);
    let _ = std::fs::remove_dir_all(&dir);

    // Lightning's accumulation on a Megatron model: NeMo raises; SCH002 with the global batch that accumulates.
    let found = codes("fixtures/rules/SCH002/nemo_megatron_accumulate_grad_batches.yaml", &[]);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!((found[0]["code"].as_str(), found[0]["line"].as_u64()), (Some("SCH002"), Some(9)));
    assert!(found[0]["help"].as_str().unwrap().contains("to 2 micro batch × 4 × 4 data-parallel world = 32 samples"), "{}", found[0]["help"]);

    // An ASR model accumulates as Lightning does: 32 × 2 × 4 GPUs.
    let view = show("fixtures/dialects/nemo/citrinet_asr.yaml", &[]);
    assert_eq!(view["effective_batch"], 256);
    assert_eq!(view["batch"]["world_size"], 4);
}

/// LLaMA-Factory v1 (`llamafactory-cli v1 train`, LLaMA-Factory @ ff6d4d12 `src/llamafactory/v1/`) is not
/// TrainingArguments: its LoRA is `peft_config` (rank 8 and every linear by default), `bf16` defaults to
/// true and reaches only FSDP2's mixed precision (a full fine-tune is cast to fp32), activation
/// checkpointing is on by default, `quant_config` quantizes the base with bitsandbytes. v0 without
/// `bf16`/`fp16` infers a 16-bit compute dtype for the base and trains fp32 adapters.
#[test]
fn llama_factory_v1_semantics_and_v0_inferred_precision() {
    let dir = "fixtures/dialects/llama_factory";
    let lora = show(&format!("{dir}/v1_train_lora_sft.yaml"), &[]);
    assert_eq!(lora["dialect"], "llama-factory");
    for (name, value) in [
        ("adapter", serde_json::json!("lora")),
        ("lora_rank", 16.into()),
        ("lora_targets", "all".into()),
        ("precision", "bf16-mixed".into()),
        ("activation_checkpointing", "full".into()),
        ("fsdp", true.into()),
        ("micro_batch", 1.into()),
        ("sequence_length", 2048.into()),
    ] {
        assert_eq!(role(&lora, name).0, value, "{name}: {lora:#}");
    }
    let qlora = show(&format!("{dir}/v1_quantization.yaml"), &[]);
    assert_eq!(role(&qlora, "base_weights").0, "int4-double-quant");
    let full = show(&format!("{dir}/v1_train_full_single_gpu.yaml"), &[]);
    assert_eq!(role(&full, "precision").0, "32-true", "no FSDP2: the fp32 model trains without autocast");
    assert!(full["roles"]["adapter"].is_null() && full["roles"]["fsdp"].is_null(), "{full:#}");
    let v0 = show(&format!("{dir}/v0_lora_sft_no_precision.yaml"), &[]);
    assert_eq!(role(&v0, "precision").0, "16-mixed", "{v0:#}");
    // v1's export config (LLaMA-Factory's own `examples/v1/train_lora/export_lora.yaml`) trains
    // nothing: no default micro batch, so no "effective batch not checked" on it.
    let export = show(&format!("{dir}/v1_export_lora.yaml"), &[]);
    assert!(export["roles"]["micro_batch"].is_null() && export["roles"]["sequence_length"].is_null(), "{export:#}");
    let (code, found) = check_json(&format!("{dir}/v1_export_lora.yaml"), &["--show-infos"]);
    assert_eq!((code, found), (Some(0), vec![]));
}

/// torchtune before 0.3 bounded the sequence in the dataset builder (`dataset.max_seq_len`,
/// `alpaca_dataset(..., max_seq_len=512)` @ v0.2.1); since 0.3 the tokenizer's `max_seq_len`.
#[test]
fn torchtune_before_0_3_reads_the_dataset_max_seq_len() {
    let view = show("fixtures/dialects/torchtune/v0.2_phi3_mini_full_low_memory.yaml", &[]);
    assert_eq!(view["dialect"], "torchtune");
    let (value, _, line) = role(&view, "sequence_length");
    assert_eq!((value, line), (4096.into(), 31));
    assert_eq!(role(&view, "optimizer").0, "paged_adamw_32bit");
}

/// GPT-NeoX's 20B config as trained (96 GPUs, pipe 4 × model 2): the data-parallel world is
/// 96 ÷ 8 = 12 and the effective batch 4 × 32 × 12 = 1,536 (gpt-neox `calculate_derived`), not
/// 4 × 32 × 96. A world the degrees do not divide has no data-parallel size.
#[test]
fn gpt_neox_data_parallel_world_is_gpus_over_pipe_times_model() {
    let file = "fixtures/dialects/gpt_neox/20B.yml";
    let view = show(file, &["--world-size", "96"]);
    assert_eq!(view["dialect"], "gpt-neox", "{}", view["dialect_reason"]);
    assert_eq!(view["batch"]["world_size"], 12);
    assert_eq!(view["effective_batch"], 1536);
    assert_eq!(show(file, &["--world-size", "16"])["effective_batch"], 4 * 32 * 2);
    assert!(show(file, &["--world-size", "20"])["effective_batch"].is_null(), "20 GPUs do not split into replicas of 8");
    // NeoX asserts "(global_num_gpus / pp_size) / mp_size … must be a whole number": PAR001, not BAT006.
    assert_eq!(check_json(file, &["--world-size", "20"]), (Some(1), vec![("PAR001".to_owned(), 17)]));
    // DeepSpeed's PipelineModule balances the 44 layers over 5 stages: no PAR001 (`pipe_partition_method`).
    assert_eq!(check_json(file, &["--world-size", "10", "--set", "pipe_parallel_size=5", "--set", "model_parallel_size=1"]).0, Some(0));
    // A stated global batch is checked on the data-parallel world: 1536 holds on 96 GPUs, not on 48.
    assert_eq!(check_json(file, &["--world-size", "96", "--set", "train_batch_size=1536"]).0, Some(0));
    let (code, found) = check_json(file, &["--world-size", "48", "--set", "train_batch_size=1536"]);
    assert_eq!(code, Some(1), "{found:?}");
    assert!(found.iter().any(|(c, _)| c == "BAT004"), "{found:?}");
    // NeoX's own `comment` (DeepSpeed runner's `--comment`) is a NeoX key: no `comment` → `comet`.
    let slurm = "fixtures/dialects/gpt_neox/slurm_125M.yml";
    assert_eq!(show(slurm, &[])["dialect"], "gpt-neox");
    assert!(!check_json(slurm, &[]).1.iter().any(|(c, _)| c == "SCH003"), "`comment` is a GPT-NeoX argument");
    // A key NeoX does not have is refused at start-up (`NeoXArgs(**config)`): llemma/7B.yml's
    // `decay_lr_to` and `warmup_iters` (older NeoX names); 20B.yml's `tensorboard-dir` is
    // `tensorboard_dir` (`-` reads as `_`).
    let (code, found) = check_json("fixtures/dialects/gpt_neox/llemma_7B.yml", &[]);
    let unknown: Vec<u64> = found.iter().filter(|(c, _)| c == "SCH003").map(|(_, line)| *line).collect();
    assert_eq!((code, unknown), (Some(1), vec![83, 84]), "{found:?}");
    assert!(!check_json(file, &[]).1.iter().any(|(c, _)| c == "SCH003"));
    // A renamed argument gets its new name, not the nearest spelling (`eval_interval`):
    // configs/autotuning_configs/small_tune.json at the same commit, verbatim.
    let output = common::trainlint(&["check", "--output-format", "json", "fixtures/dialects/gpt_neox/small_tune.json"]);
    let value: serde_json::Value = serde_json::from_str(&common::stdout(&output)).unwrap();
    let renamed: Vec<&serde_json::Value> = value["diagnostics"].as_array().unwrap().iter().filter(|d| d["code"] == "SCH003").collect();
    assert_eq!(renamed.len(), 1, "{value:#}");
    assert!(renamed[0]["message"].as_str().unwrap().ends_with("GPT-NeoX renamed it `checkpoint_factor`"), "{value:#}");
    assert!(renamed[0].to_string().contains("\\\"checkpoint_factor\\\""), "the fix keeps the quotes: {value:#}");
    // A plain DeepSpeed config stays DeepSpeed's.
    assert_eq!(show("fixtures/dialects/deepspeed_auto_pair/ds_zero2.json", &[])["dialect"], "deepspeed");
}

/// nanotron's tiny-llama example states its world: dp 4 × tp 2 × pp 1 = 8 GPUs, a data-parallel
/// world of 4, effective batch 3 × 1 × 4 = 12 (`Config.global_batch_size`).
#[test]
fn nanotron_world_is_dp_times_tp_times_pp() {
    let file = "fixtures/dialects/nanotron/config_tiny_llama.yaml";
    let view = show(file, &[]);
    assert_eq!(view["roles"]["devices"]["value"], 8);
    assert_eq!(view["batch"]["world_size"], 4);
    assert_eq!(view["effective_batch"], 12);
    // The config's world wins over `--world-size`; other degrees change it.
    assert_eq!(show(file, &["--world-size", "64"])["effective_batch"], 12);
    let view = show(file, &["--set", "parallelism.dp=2", "--set", "parallelism.pp=2", "--set", "tokens.batch_accumulation_per_replica=8"]);
    assert_eq!((view["roles"]["devices"]["value"].clone(), view["effective_batch"].clone()), (8.into(), (3 * 8 * 2).into()));
    assert_eq!(check_json(file, &[]), (Some(0), vec![]));
    // The blocks are balanced over the pipeline ranks by cost (`build_model`): 28 layers on pp 3 is no PAR001.
    assert_eq!(check_json(file, &["--set", "parallelism.pp=3", "--set", "parallelism.dp=1"]), (Some(0), vec![]));
    // nanotron asserts num_attention_heads % tp == 0 (`Config.__post_init__`): PAR001.
    let (code, found) = check_json(file, &["--set", "parallelism.tp=3"]);
    assert_eq!(code, Some(1), "{found:?}");
    assert!(found.iter().any(|(c, _)| c == "PAR001"), "{found:?}");
}

/// MaxText's per-device batch counts every chip; the device count is the launch's. A fractional
/// per-device batch (one sequence per several chips) derives nothing, and no memory verdict is
/// given for a JAX run (MEM004 with its reason).
#[test]
fn maxtext_batch_over_every_chip_and_no_memory_verdict() {
    let file = "fixtures/dialects/maxtext/llama2_7b.yml";
    assert_eq!(show(file, &["--world-size", "8"])["effective_batch"], 32);
    assert_eq!(show(file, &["--world-size", "8", "--set", "gradient_accumulation_steps=4"])["effective_batch"], 128);
    let fractional = show(file, &["--world-size", "8", "--set", "per_device_batch_size=0.25"]);
    assert!(fractional["effective_batch"].is_null(), "{fractional:#}");
    assert_eq!(check_json(file, &["--world-size", "8", "--set", "per_device_batch_size=0.25"]).0, Some(0));
    let text = common::stdout(&common::trainlint(&["show", file, "--world-size", "8", "--set", "per_device_batch_size=0.25"]));
    assert!(text.contains("effective batch: unknown: the micro batch `per_device_batch_size` = 0.25 is not a whole number"), "{text}");
    let output = common::trainlint(&["check", file, "--world-size", "8", "--gpu", "h100-sxm", "--show-infos", "--output-format", "concise"]);
    let text = common::stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{text}");
    assert!(text.contains("MEM004") && text.contains("JAX/XLA"), "{text}");
    assert!(!text.contains("MEM001"), "{text}");
    let model = show("fixtures/dialects/maxtext/model_llama2-7b.yml", &[]);
    assert_eq!((model["dialect"].clone(), model["roles"]["layers"]["value"].clone()), ("maxtext".into(), 32.into()));
}

/// Levanter's `TrainerConfig` (stanford-crfm/levanter@9263f81e, src/levanter/trainer.py): the
/// global batch `train_batch_size` over `per_device_parallelism` × the data-parallel devices
/// (devices ÷ `model_axis_size`) is the accumulation, asserted whole (`_validate_and_set_defaults`);
/// `per_device_parallelism: -1` is no accumulation. Levanter's own configs, copied verbatim.
#[test]
fn levanter_accumulation_is_train_batch_over_per_device_parallelism_and_data_axis() {
    let biomed = "fixtures/dialects/levanter/mpt_biomed.yaml";
    let accumulation = |view: &serde_json::Value| (view["batch"]["derived"]["accumulation"].clone(), view["effective_batch"].clone());
    // 256 ÷ (4 × 16) = 4; the file's own 1024 ÷ (4 × 16) = 16.
    let view = show(biomed, &["--world-size", "16", "--set", "trainer.train_batch_size=256"]);
    assert_eq!(view["dialect"], "levanter", "{}", view["dialect_reason"]);
    assert_eq!(accumulation(&view), (4.into(), 256.into()));
    assert_eq!(accumulation(&show(biomed, &["--world-size", "16"])), (16.into(), 1024.into()));
    // -1: train_batch_size ÷ the data axis per device, no microbatching.
    let auto = show(biomed, &["--world-size", "16", "--set", "trainer.per_device_parallelism=-1", "--set", "trainer.train_batch_size=256"]);
    assert_eq!(accumulation(&auto), (1.into(), 256.into()));
    assert_eq!(auto["batch"]["derived"]["micro_batch"], 16);
    // `train_batch_size: -1` is per_device_parallelism × the data axis.
    let minus_one = show(biomed, &["--world-size", "16", "--set", "trainer.train_batch_size=-1"]);
    assert_eq!(accumulation(&minus_one), (1.into(), 64.into()));
    // The model axis takes its devices from the data axis: 16 devices, model axis 4 → 4 data-parallel.
    let model_axis = show(biomed, &["--world-size", "16", "--set", "trainer.model_axis_size=4"]);
    assert_eq!((model_axis["batch"]["world_size"].clone(), accumulation(&model_axis)), (4.into(), (64.into(), 1024.into())));
    // gpt2_small_fast: `per_device_parallelism: -1`, 256 on 16 devices is 16 each, accumulation 1;
    // its `data: !include data/openwebtext_source.yaml` is not read and says nothing.
    let small = show("fixtures/dialects/levanter/gpt2_small_fast.yaml", &["--world-size", "16"]);
    assert_eq!(accumulation(&small), (1.into(), 256.into()));
    assert_eq!(small["batch"]["derived"]["micro_batch"], 16);
    assert!(small["roles"]["micro_batch"].is_null(), "-1 is no micro batch");
    // The roles point at their keys (the header comment is line 1).
    let llama = "fixtures/dialects/levanter/llama2_7b.yaml";
    let view = show(llama, &["--world-size", "16"]);
    assert_eq!((role(&view, "micro_batch").2, role(&view, "global_batch").2, role(&view, "tensor_parallel").2, role(&view, "precision").2), (78, 110, 73, 74));
    assert_eq!(accumulation(&view), (32.into(), 1024.into()));
    // Levanter's configs check clean, with or without a world; a JAX run's memory is not estimated.
    for file in [llama, biomed, "fixtures/dialects/levanter/gpt2_small_fast.yaml"] {
        // Without a world only BAT006's info: the world sizes the batch holds for.
        let (code, found) = check_json(file, &[]);
        assert!(code == Some(0) && found.iter().all(|(c, _)| c == "BAT006"), "{file}: {found:?}");
        assert_eq!(check_json(file, &["--world-size", "16"]), (Some(0), vec![]), "{file}");
    }
    let output = common::trainlint(&["check", llama, "--world-size", "16", "--gpu", "h100-sxm", "--show-infos", "--output-format", "concise"]);
    let text = common::stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{text}");
    assert!(text.contains("MEM004") && text.contains("JAX/XLA"), "{text}");
    // Checked on a copy with the one value changed, so the finding points into the file.
    let changed = |from: &str, to: &str| {
        let dir = std::env::temp_dir().join(format!("trainlint-levanter-{}-{}", std::process::id(), to.replace([':', ' '], "")));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let text = std::fs::read_to_string(common::repo().join(llama)).unwrap();
        assert!(text.contains(from));
        std::fs::write(dir.join("llama2_7b.yaml"), text.replace(from, to)).unwrap();
        let found = check_json(&dir.join("llama2_7b.yaml").display().to_string(), &["--world-size", "16"]);
        let _ = std::fs::remove_dir_all(&dir);
        found
    };
    // 1000 is not a multiple of 2 × 16: Levanter raises (BAT003), at `train_batch_size`.
    assert_eq!(changed("train_batch_size: 1024", "train_batch_size: 1000"), (Some(1), vec![("BAT003".to_owned(), 110)]));
    // A model axis that does not divide the devices: Levanter raises "num_devices (…) is not
    // divisible by model_axis_size (…)" (PAR001), at `model_axis_size`.
    assert_eq!(changed("model_axis_size: 1", "model_axis_size: 3"), (Some(1), vec![("PAR001".to_owned(), 73)]));
    // A near miss of a `TrainerConfig` field is SCH003 (draccus raises on it); Levanter's own keys are not.
    assert_eq!(changed("per_device_parallelism: 2", "per_device_paralelism: 2"), (Some(1), vec![("SCH003".to_owned(), 78)]));
}

/// nanotron compares dp × tp × pp × cp with the processes torchrun starts (`ParallelContext`):
/// the tiny-llama example on 8 processes is its own world (dp 4 × tp 2), on 4 it stops (BAT009).
/// The launch is compared with the GPUs, not with the data-parallel world.
#[test]
fn nanotron_launch_is_compared_with_all_its_gpus() {
    for (processes, expected) in [(8, vec![]), (4, vec!["BAT009".to_owned()])] {
        let dir = std::env::temp_dir().join(format!("trainlint-nanotron-launch-{}-{processes}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(common::repo().join("fixtures/dialects/nanotron/config_tiny_llama.yaml"), dir.join("config_tiny_llama.yaml")).unwrap();
        std::fs::write(dir.join("train.sh"), format!("torchrun --nproc_per_node={processes} run_train.py --config-file config_tiny_llama.yaml\n")).unwrap();
        let output = common::trainlint_in(&dir, &["check", "--output-format", "json", "."]);
        let value: serde_json::Value = serde_json::from_str(&common::stdout(&output)).unwrap();
        let codes: Vec<String> = value["diagnostics"].as_array().unwrap().iter().map(|d| d["code"].as_str().unwrap().to_owned()).collect();
        assert_eq!(codes, expected, "{processes} processes: {value:#}");
        if let Some(finding) = value["diagnostics"].as_array().unwrap().first() {
            let message = finding["message"].as_str().unwrap();
            assert!(message.starts_with("the config asks for 8 processes (`parallelism.dp` × the tensor"), "dp itself is 4: {message}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// NeMo's tensor × pipeline-parallel run on 2 nodes × 8 GPUs, launched on 16 processes, is the
/// run its config states: BAT009 compares the launch with the GPUs (16), not with the
/// data-parallel world (16 ÷ (2 × 2) = 4). On 4 processes it is BAT009.
#[test]
fn nemo_launch_is_compared_with_all_its_gpus() {
    for (per_node, expected) in [(8, vec![]), (2, vec!["BAT009".to_owned()])] {
        let dir = std::env::temp_dir().join(format!("trainlint-nemo-launch-{}-{per_node}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(common::repo().join("fixtures/dialects/nemo/gpt_pretrain_tp2.yaml"), dir.join("gpt_pretrain_tp2.yaml")).unwrap();
        let line = format!("torchrun --nnodes 2 --nproc_per_node {per_node} megatron_gpt_pretraining.py --config-path . --config-name gpt_pretrain_tp2.yaml\n");
        std::fs::write(dir.join("train.sh"), line).unwrap();
        let output = common::trainlint_in(&dir, &["check", "--output-format", "json", "--select", "BAT", "."]);
        let value: serde_json::Value = serde_json::from_str(&common::stdout(&output)).unwrap();
        let codes: Vec<String> = value["diagnostics"].as_array().unwrap().iter().map(|d| d["code"].as_str().unwrap().to_owned()).collect();
        assert_eq!(codes, expected, "{per_node} per node: {value:#}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// torchtitan's llama3 presets (`torchtitan/models/llama3/train_configs/*.toml` at
/// pytorch/torchtitan@238fa995, copied verbatim): `data_parallel_shard_degree = -1` takes what the
/// launch leaves (`ParallelDims._validate`), so the data-parallel degree is GPUs ÷ (tp × pp × cp);
/// `global_batch_size` sets the accumulation, global ÷ (local × dp), asserted whole (`train.py`).
#[test]
fn torchtitan_world_and_batch_follow_parallel_dims_and_train_py() {
    let file = "fixtures/dialects/torchtitan/llama3_8b.toml";
    let view = show(file, &["--world-size", "8"]);
    assert_eq!(view["dialect"], "torchtitan", "{}", view["dialect_reason"]);
    assert_eq!((view["batch"]["world_size"].clone(), view["effective_batch"].clone()), (8.into(), 8.into()));
    let tp2 = show(file, &["--world-size", "8", "--set", "parallelism.tensor_parallel_degree=2"]);
    assert_eq!((tp2["batch"]["world_size"].clone(), tp2["effective_batch"].clone()), (4.into(), 4.into()));
    // 70B is 8-way TP: 64 GPUs are a data-parallel degree of 8, its effective batch 8 × 8.
    let seventy = show("fixtures/dialects/torchtitan/llama3_70b.toml", &["--world-size", "64"]);
    assert_eq!((seventy["batch"]["world_size"].clone(), seventy["effective_batch"].clone()), (8.into(), 64.into()));
    assert_eq!(seventy["roles"]["model"]["value"], "meta-llama/Llama-3.1-70B");
    // global 64 on 8 ranks of local 1: 8 accumulation steps; global 12 is not a multiple of 8: BAT003.
    let global = show(file, &["--world-size", "8", "--set", "training.global_batch_size=64"]);
    assert_eq!((global["batch"]["derived"]["accumulation"].clone(), global["effective_batch"].clone()), (8.into(), 64.into()));
    let minus_one = show(file, &["--world-size", "8", "--set", "training.global_batch_size=-1"]);
    assert_eq!(minus_one["effective_batch"], 8, "-1 is local × dp");
    let (code, found) = check_json(file, &["--world-size", "8", "--set", "training.global_batch_size=12"]);
    assert_eq!(code, Some(1));
    assert!(found.iter().any(|(c, _)| c == "BAT003"), "{found:?}");
    // A positive shard degree states the world: dp_replicate × dp_shard × cp × tp × pp.
    let stated = show(file, &["--set", "parallelism.data_parallel_shard_degree=4", "--set", "parallelism.tensor_parallel_degree=2"]);
    assert_eq!((stated["roles"]["devices"]["value"].clone(), stated["batch"]["world_size"].clone()), (8.into(), 4.into()));
    // The roles point at the keys: `local_batch_size = 1` is line 33 (32 in torchtitan's file, below the header line).
    assert_eq!(role(&view, "micro_batch").2, 33);
    assert_eq!(role(&view, "tensor_parallel").2, 42);
    // The debug model has no catalog entry: no model, no memory verdict claimed from a guess.
    assert!(show("fixtures/dialects/torchtitan/debug_model.toml", &[])["roles"]["model"].is_null());
}

/// The llama3 presets check clean as torchtitan ships them, on the 8 GPUs of its run_train.sh and
/// without a world; the findings are spanned at the key.
#[test]
fn torchtitan_presets_check_clean_and_findings_point_at_the_key() {
    // Without a world only BAT006 (an info: the effective batch is not known) is said.
    let (code, found) = check_json("fixtures/dialects/torchtitan", &[]);
    assert_eq!(code, Some(0));
    assert!(found.iter().all(|(c, _)| c == "BAT006"), "{found:?}");
    assert_eq!(check_json("fixtures/dialects/torchtitan", &["--world-size", "64"]), (Some(0), vec![]));
    let output =
        common::trainlint(&["check", "--output-format", "json", "--world-size", "8", "--gpu", "h100-sxm", "fixtures/dialects/torchtitan/llama3_70b.toml"]);
    let value: serde_json::Value = serde_json::from_str(&common::stdout(&output)).unwrap();
    let mem = value["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "MEM001")
        .unwrap_or_else(|| panic!("70B with TP 8 on 8 GPUs holds 16 B per parameter ÷ 8: {value:#}"));
    assert_eq!((mem["line"].clone(), mem["column"].clone()), (33.into(), 20.into()), "at `local_batch_size`'s value");
}

/// A TOML file is read only as torchtitan: the walker collects only TOML files that look like
/// torchtitan configs (pyproject.toml, Cargo.toml, ruff.toml are not even listed), named
/// explicitly they are "not a training config" (no YAML error, issue 25), and a template whose
/// placeholders a script fills in is skipped.
#[test]
fn toml_files_other_than_torchtitan_configs_give_nothing() {
    let dir = common::fresh_dir("torchtitan-toml");
    std::fs::copy(common::repo().join("fixtures/dialects/torchtitan/llama3_8b.toml"), dir.join("llama3_8b.toml")).unwrap();
    std::fs::copy(common::repo().join("Cargo.toml"), dir.join("Cargo.toml")).unwrap();
    std::fs::write(dir.join("ruff.toml"), "line-length = 100\n[lint]\nselect = [\"E\"]\n").unwrap();
    std::fs::write(dir.join("pyproject.toml"), "[project]\nname = \"x\"\n[tool.pytest.ini_options]\naddopts = \"-q\"\n").unwrap();
    std::fs::write(dir.join("template.toml"), "[model]\nname = \"llama3\"\n[training]\nlocal_batch_size = {{ batch }}\n").unwrap();
    let listed = common::stdout(&common::trainlint_in(&dir, &["check", "--show-files", "."]));
    let listed: Vec<&str> = listed.lines().map(str::trim_end).collect();
    assert_eq!(listed.len(), 2, "only torchtitan-like TOML files are collected: {listed:?}");
    assert!(listed[0].starts_with("llama3_8b.toml") && listed[0].ends_with("checked as torchtitan"), "{listed:?}");
    assert!(listed[1].starts_with("template.toml") && listed[1].ends_with("skipped: templates whose placeholders a script fills in"), "{listed:?}");
    let output = common::trainlint_in(&dir, &["check", "--output-format", "json", "--world-size", "8", "."]);
    assert_eq!(output.status.code(), Some(0), "{}", common::stdout(&output));
    let value: serde_json::Value = serde_json::from_str(&common::stdout(&output)).unwrap();
    assert_eq!(value["diagnostics"].as_array().unwrap().len(), 0, "{value:#}");
    assert_eq!(value["summary"]["files"], 1, "only the torchtitan config is checked: {value:#}");
    for name in ["Cargo.toml", "ruff.toml"] {
        let output = common::trainlint_in(&dir, &["check", "--output-format", "json", name]);
        assert_eq!(output.status.code(), Some(0), "{name}: {}", common::stdout(&output));
        let value: serde_json::Value = serde_json::from_str(&common::stdout(&output)).unwrap();
        assert_eq!(value["diagnostics"].as_array().unwrap().len(), 0, "{name}: {value:#}");
        let text = common::stdout(&common::trainlint_in(&dir, &["show", name]));
        assert!(text.contains("dialect: unknown (a TOML file without the keys of a framework that reads TOML (torchtitan))"), "{text}");
    }
    // Named explicitly, a TOML file that does not parse is SCH001 as TOML, not as YAML.
    let output = common::trainlint_in(&dir, &["check", "--output-format", "concise", "template.toml"]);
    assert!(common::stdout(&output).contains("SCH001 invalid TOML"), "{}", common::stdout(&output));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A fix on a torchtitan config replaces the value's bytes and nothing else: the micro batch that
/// fits, with the accumulation torchtitan derives from the written global batch.
#[test]
fn torchtitan_fix_edits_only_the_value() {
    let dir = common::fresh_dir("torchtitan-fix");
    let original = std::fs::read_to_string(common::repo().join("fixtures/dialects/torchtitan/llama3_8b.toml")).unwrap();
    let text = original.replace("local_batch_size = 1\n", "local_batch_size = 4  # per rank\nglobal_batch_size = 32\n");
    std::fs::write(dir.join("llama3_8b.toml"), &text).unwrap();
    let output = common::trainlint_in(&dir, &["check", "--fix", "--unsafe-fixes", "--world-size", "8", "--gpu", "h200", "llama3_8b.toml"]);
    let fixed = std::fs::read_to_string(dir.join("llama3_8b.toml")).unwrap();
    assert_eq!(fixed, text.replace("local_batch_size = 4  # per rank", "local_batch_size = 1  # per rank"), "{}", common::stdout(&output));
    // Without a written global batch the accumulation has no key to go to: the fix is shown, not applied.
    std::fs::write(dir.join("llama3_8b.toml"), original.replace("local_batch_size = 1\n", "local_batch_size = 4\n")).unwrap();
    common::trainlint_in(&dir, &["check", "--fix", "--unsafe-fixes", "--world-size", "8", "--gpu", "h200", "llama3_8b.toml"]);
    assert_eq!(std::fs::read_to_string(dir.join("llama3_8b.toml")).unwrap(), original.replace("local_batch_size = 1\n", "local_batch_size = 4\n"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Megatron-LM: data-parallel size = GPUs ÷ (tensor × pipeline × context) (`validate_args`), and
/// accumulation = global ÷ (micro × data parallel), asserted whole (`ConstantNumMicroBatchesCalculator`).
/// The functional test case (tp 2, pp 2, micro 4, global 32) has no world of its own: on 8 GPUs the
/// data-parallel size is 2 and the accumulation 32 ÷ (4 × 2) = 4.
#[test]
fn megatron_data_parallel_is_gpus_over_tp_pp_cp() {
    let file = "fixtures/dialects/megatron/gpt3_tp2_pp2/model_config.yaml";
    let view = show(file, &["--world-size", "8"]);
    assert_eq!(view["dialect"], "megatron-lm", "{}", view["dialect_reason"]);
    assert_eq!(view["batch"]["world_size"], 2);
    assert_eq!(view["batch"]["derived"]["accumulation"], 4);
    assert_eq!(view["effective_batch"], 32);
    // Each value points at the flag's value in `MODEL_ARGS` (the header comment is line 1).
    assert_eq!(role(&view, "micro_batch"), (4.into(), file.to_owned(), 16));
    assert_eq!(role(&view, "tensor_parallel").2, 41);
    for (gpus, dp, accumulation) in [(4, 1, 8), (16, 4, 2), (32, 8, 1)] {
        let view = show(file, &["--world-size", &gpus.to_string()]);
        assert_eq!((view["batch"]["world_size"].clone(), view["batch"]["derived"]["accumulation"].clone()), (dp.into(), accumulation.into()), "{gpus} GPUs");
    }
    assert_eq!(check_json(file, &["--world-size", "8"]), (Some(0), vec![]));
    // 12 GPUs: data parallel 3, and 32 is no multiple of 4 × 3: Megatron asserts (BAT003).
    assert_eq!(check_json(file, &["--world-size", "12"]), (Some(1), vec![("BAT003".to_owned(), 17)]));
    // 64 GPUs: data parallel 16, 4 × 16 = 64 > 32: no whole accumulation either.
    assert_eq!(check_json(file, &["--world-size", "64"]).1, vec![("BAT003".to_owned(), 17)]);
    // 6 GPUs do not split into replicas of tp 2 × pp 2: PAR001, at the first degree.
    assert_eq!(check_json(file, &["--world-size", "6"]), (Some(1), vec![("PAR001".to_owned(), 41)]));
    // No global batch: Megatron uses micro × data parallel (accumulation 1).
    let dir = std::env::temp_dir().join(format!("trainlint-megatron-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = std::fs::read_to_string(common::repo().join(file)).unwrap();
    std::fs::write(dir.join("model_config.yaml"), text.replace("  --global-batch-size: 32\n", "")).unwrap();
    let view = show(dir.join("model_config.yaml").to_str().unwrap(), &["--world-size", "8"]);
    assert_eq!((view["batch"]["derived"]["global_batch"].clone(), view["effective_batch"].clone()), (8.into(), 8.into()), "{view:#}");
    let _ = std::fs::remove_dir_all(&dir);

    // The Mixtral script: its flags in bash arrays, torchrun on 1 node × 8 GPUs, tp 1 × pp 4:
    // data parallel 2, accumulation 256 ÷ (1 × 2) = 128. Values point at the array elements.
    let script = "fixtures/dialects/megatron/train_mixtral_8x7b_distributed.sh";
    let view = show(script, &[]);
    assert_eq!(view["dialect"], "megatron-lm", "{}", view["dialect_reason"]);
    assert_eq!(view["batch"]["world_size"], 2);
    assert_eq!(view["batch"]["derived"]["accumulation"], 128);
    assert_eq!(view["effective_batch"], 256);
    assert_eq!(role(&view, "micro_batch"), (1.into(), script.to_owned(), 70));
    assert_eq!(role(&view, "pipeline_parallel"), (4.into(), script.to_owned(), 85));
    assert_eq!(check_json(script, &[]), (Some(0), vec![]));
    // pp 3: tp × pp = 3 does not divide the launch's 8 GPUs (PAR001).
    let (code, found) = check_json(script, &["--set", "pipeline_model_parallel_size=3"]);
    assert_eq!(code, Some(1), "{found:?}");
    assert!(found.iter().any(|(c, _)| c == "PAR001"), "{found:?}");
}

/// Megatron-DeepSpeed: data-parallel size = GPUs ÷ (tensor × pipeline × DeepSpeed sequence
/// parallel) (`validate_args`, `parallel_state.initialize_model_parallel`), accumulation = global ÷
/// (micro × data parallel), asserted whole (`ConstantNumMicroBatches`), and Megatron's global batch
/// is the one DeepSpeed trains (`train` calls `set_train_batch_size` with it before every step).
/// `pretrain_llama2_distributed.sh`: torchrun on 1 node × 8 GPUs, tp 2 × pp 2: data parallel 2,
/// accumulation 32 ÷ (4 × 2) = 4 (read as DeepSpeed before, it was 32 = 4 × 1 × 8).
#[test]
fn megatron_deepspeed_data_parallel_is_gpus_over_tp_pp_sp() {
    let script = "fixtures/dialects/megatron_deepspeed/pretrain_llama2_distributed.sh";
    let view = show(script, &[]);
    assert_eq!(view["dialect"], "megatron-deepspeed", "{}", view["dialect_reason"]);
    assert_eq!(view["batch"]["world_size"], 2);
    assert_eq!(view["batch"]["derived"]["accumulation"], 4);
    assert_eq!(view["effective_batch"], 32);
    // Values point at the script's variables; the ZeRO stage at the heredoc's `"stage": $ZERO_STAGE`.
    assert_eq!(role(&view, "micro_batch"), (4.into(), script.to_owned(), 32));
    assert_eq!(role(&view, "tensor_parallel"), (2.into(), script.to_owned(), 15));
    assert_eq!(role(&view, "zero_stage"), (0.into(), script.to_owned(), 74));
    assert_eq!(check_json(script, &[]), (Some(0), vec![]));
    // Other worlds through `--world-size`: (GPUs, data parallel, accumulation).
    for (gpus, dp, accumulation) in [(4, 1, 8), (16, 4, 2), (32, 8, 1)] {
        let view = show(script, &["--world-size", &gpus.to_string()]);
        assert_eq!((view["batch"]["world_size"].clone(), view["batch"]["derived"]["accumulation"].clone()), (dp.into(), accumulation.into()), "{gpus} GPUs");
    }
    // 12 GPUs: data parallel 3, and 32 is no multiple of 4 × 3: Megatron asserts (BAT003, on
    // `GLOBAL_BATCH_SIZE=32`).
    assert_eq!(check_json(script, &["--world-size", "12"]), (Some(1), vec![("BAT003".to_owned(), 33)]));
    // tp 3 × pp 2 does not divide the launch's 8 GPUs (PAR001).
    let (code, found) = check_json(script, &["--set", "tensor_model_parallel_size=3"]);
    assert_eq!(code, Some(1), "{found:?}");
    assert!(found.iter().any(|(c, _)| c == "PAR001"), "{found:?}");

    // The sequence-parallel example (flags in `\`-continued double-quoted strings, the program
    // under `${dir}`): `deepspeed --num_gpus 8`, tp 1 × pp 1 × sp 4: data parallel 2,
    // accumulation 8 ÷ (1 × 2) = 4; ZeRO-3 with optimizer offload from the heredoc-written config.
    let script = "fixtures/dialects/megatron_deepspeed/ds_pretrain_gpt_seq_parallel.sh";
    let view = show(script, &[]);
    assert_eq!(view["dialect"], "megatron-deepspeed", "{}", view["dialect_reason"]);
    assert_eq!(role(&view, "context_parallel").0, 4);
    assert_eq!(view["batch"]["world_size"], 2);
    assert_eq!(view["batch"]["derived"]["accumulation"], 4);
    assert_eq!(view["effective_batch"], 8);
    assert_eq!(role(&view, "precision").0, "bf16-mixed");
    assert_eq!(role(&view, "zero_stage"), (3.into(), script.to_owned(), 46));
    assert_eq!(role(&view, "offload_optimizer").0, true);
    assert_eq!(check_json(script, &[]), (Some(0), vec![]));
    // 24 GPUs: data parallel 6 does not divide the global batch 8.
    assert_eq!(check_json(script, &["--world-size", "24"]).1, vec![("BAT003".to_owned(), 65)]);
}
