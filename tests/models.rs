//! A config that names its model gets the model's parameter count and shape
//! from the model catalog or the model's local config.json, with provenance
//! (`show --output-format json`: `file` is `catalog:<id>` or the config.json,
//! `line` null), in every dialect that names a model.

mod common;

use std::path::Path;
use std::process::Command;

fn show(dir: &Path, file: &str, envs: &[(&str, &Path)]) -> (serde_json::Value, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_trainlint"));
    command.args(["show", "--output-format", "json", file]).current_dir(dir).env("NO_COLOR", "1");
    // An empty cache unless the test gives one: what the developer's cache holds never matters.
    command.env("HF_HUB_CACHE", dir.join("no-cache"));
    for (key, value) in envs {
        command.env(key, value);
    }
    let output = command.output().expect("run trainlint");
    let text = common::stdout(&output);
    (serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}{}", common::stderr(&output))), text)
}

fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn axolotl_base_model_from_the_catalog() {
    let dir = common::fresh_dir("models-axolotl");
    write(&dir, "qlora.yml", "base_model: meta-llama/Llama-3.1-8B\nmicro_batch_size: 2\nsequence_len: 2048\nload_in_4bit: true\n");
    let (json, _) = show(&dir, "qlora.yml", &[]);
    let roles = &json["roles"];
    assert_eq!(roles["model"]["value"], "meta-llama/Llama-3.1-8B");
    assert_eq!(roles["model"]["line"], 1);
    assert_eq!(roles["parameters"]["value"], 8_030_261_248u64);
    assert_eq!(roles["parameters"]["file"], "catalog:meta-llama/Llama-3.1-8B");
    assert!(roles["parameters"]["line"].is_null());
    assert!(roles["parameters"]["model_source"].as_str().unwrap().contains("litgpt"));
    for (role, value) in [("hidden_size", 4096), ("layers", 32), ("heads", 32), ("vocab_size", 128_256)] {
        assert_eq!(roles[role]["value"], value, "{role}");
        assert_eq!(roles[role]["file"], "catalog:meta-llama/Llama-3.1-8B", "{role}");
    }
    // Stated roles keep their file and line.
    assert_eq!(roles["sequence_length"]["line"], 3);
}

#[test]
fn torchtune_qlora_builder_names_the_model_and_the_4_bit_base() {
    let dir = common::fresh_dir("models-torchtune");
    write(
        &dir,
        "qlora.yaml",
        "model:\n  _component_: torchtune.models.llama2.qlora_llama2_7b\n  lora_rank: 8\nbatch_size: 2\ngradient_accumulation_steps: 16\ndtype: bf16\n",
    );
    let (json, _) = show(&dir, "qlora.yaml", &[]);
    let roles = &json["roles"];
    assert_eq!(json["dialect"], "torchtune");
    assert_eq!(roles["parameters"]["value"], 6_738_415_616u64);
    assert_eq!(roles["parameters"]["file"], "catalog:meta-llama/Llama-2-7b-hf");
    assert_eq!(roles["base_weights"]["value"], "int4");
    assert_eq!(roles["base_weights"]["line"], 2);
    // A plain `lora_` builder states no quantization.
    write(&dir, "lora.yaml", "model:\n  _component_: torchtune.models.llama2.lora_llama2_7b\nbatch_size: 2\n");
    let (json, _) = show(&dir, "lora.yaml", &[]);
    assert!(json["roles"].get("base_weights").is_none());
    assert_eq!(json["roles"]["parameters"]["value"], 6_738_415_616u64);
}

#[test]
fn hf_and_llama_factory_model_name_or_path_including_a_checkpoint_dir() {
    let dir = common::fresh_dir("models-hf");
    write(&dir, "sft.yaml", "model_name_or_path: checkpoints/mistralai/Mistral-7B-v0.1\nper_device_train_batch_size: 4\nnum_train_epochs: 1\n");
    let (json, _) = show(&dir, "sft.yaml", &[]);
    assert_eq!(json["dialect"], "hf-trainer");
    assert_eq!(json["roles"]["parameters"]["value"], 7_241_732_096u64);
    write(
        &dir,
        "lf.yaml",
        "model_name_or_path: Qwen/Qwen2.5-7B-Instruct\nstage: sft\nfinetuning_type: lora\nper_device_train_batch_size: 1\ncutoff_len: 2048\n",
    );
    let (json, _) = show(&dir, "lf.yaml", &[]);
    assert_eq!(json["dialect"], "llama-factory");
    assert_eq!(json["roles"]["parameters"]["file"], "catalog:Qwen/Qwen2.5-7B");
}

#[test]
fn a_stated_role_wins_over_the_catalog() {
    let dir = common::fresh_dir("models-stated");
    write(&dir, "native.yaml", "trainlint: 1\nbatch: {micro_batch: 1}\nmodel:\n  name: meta-llama/Llama-3.1-8B\n  parameters: 123456789\n");
    let (json, _) = show(&dir, "native.yaml", &[]);
    assert_eq!(json["roles"]["parameters"]["value"], 123_456_789);
    assert_eq!(json["roles"]["parameters"]["line"], 5);
    assert_eq!(json["roles"]["hidden_size"]["file"], "catalog:meta-llama/Llama-3.1-8B");
}

/// The fields of a Llama-3.1-8B config.json under another name.
const CONFIG_JSON: &str = r#"{"model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32,
 "num_hidden_layers": 32, "num_key_value_heads": 8, "tie_word_embeddings": false, "vocab_size": 128256}"#;

#[test]
fn a_local_model_folder_config_json() {
    let dir = common::fresh_dir("models-local");
    write(&dir, "my-finetune/config.json", CONFIG_JSON);
    write(&dir, "sft.yaml", "model_name_or_path: ./my-finetune\nper_device_train_batch_size: 4\nnum_train_epochs: 1\n");
    let (json, _) = show(&dir, "sft.yaml", &[]);
    assert_eq!(json["roles"]["parameters"]["value"], 8_030_261_248u64);
    assert!(json["roles"]["parameters"]["file"].as_str().unwrap().ends_with("my-finetune/config.json"));
}

#[test]
fn a_path_without_a_config_json_is_resolved_by_its_folder_name_and_says_so() {
    let dir = common::fresh_dir("models-folder-name");
    // No such folder: the last component is a catalog name, and the shape is assumed from it.
    write(&dir, "sft.yaml", "model_name_or_path: /nonexistent/models/Llama-2-7b-hf\nper_device_train_batch_size: 4\nnum_train_epochs: 1\n");
    let (json, _) = show(&dir, "sft.yaml", &[]);
    assert_eq!(json["roles"]["parameters"]["value"], 6_738_415_616u64);
    assert_eq!(json["roles"]["parameters"]["file"], "catalog:meta-llama/Llama-2-7b-hf");
    let text = common::stdout(&run(&dir, &["show", "sft.yaml"]));
    assert!(text.contains("assumed from the folder's name `/nonexistent/models/Llama-2-7b-hf`: no config.json there"), "{text}");
    // The folder exists with its config.json: that file describes the model, not its name.
    write(&dir, "ckpt/Llama-2-7b-hf/config.json", CONFIG_JSON);
    write(&dir, "local.yaml", "model_name_or_path: ./ckpt/Llama-2-7b-hf\nper_device_train_batch_size: 4\nnum_train_epochs: 1\n");
    let (json, _) = show(&dir, "local.yaml", &[]);
    assert_eq!(json["roles"]["parameters"]["value"], 8_030_261_248u64);
    assert!(json["roles"]["parameters"]["file"].as_str().unwrap().ends_with("Llama-2-7b-hf/config.json"));
    // A hub id of another organisation is another model, not a folder name (no guessing).
    write(&dir, "hub.yaml", "model_name_or_path: someone/Llama-2-7b-hf\nper_device_train_batch_size: 4\nnum_train_epochs: 1\n");
    let (json, _) = show(&dir, "hub.yaml", &[]);
    assert!(json["roles"].get("parameters").is_none());
}

#[test]
fn the_hugging_face_cache_is_read_and_its_location_never_shown() {
    // The cache lies outside the project (as `~/.cache/huggingface` does): the one
    // folder outside it that trainlint reads.
    let outside = common::fresh_dir("models-cache-outside");
    let dir = outside.join("project");
    let cache = outside.join("secret-cache-location");
    write(&cache, "models--acme--tiny-llama/snapshots/0123abc/config.json", CONFIG_JSON);
    write(&dir, "sft.yaml", "model_name_or_path: acme/tiny-llama\nper_device_train_batch_size: 4\nnum_train_epochs: 1\n");
    let (json, text) = show(&dir, "sft.yaml", &[("HF_HUB_CACHE", &cache)]);
    assert_eq!(json["roles"]["parameters"]["value"], 8_030_261_248u64);
    assert_eq!(json["roles"]["parameters"]["file"], "hf-cache:models--acme--tiny-llama/snapshots/0123abc/config.json");
    assert!(!text.contains("secret-cache-location"), "the cache folder (an environment value) is printed: {text}");
    // Without the cache the name is unknown and nothing is filled.
    let (json, _) = show(&dir, "sft.yaml", &[]);
    assert!(json["roles"].get("parameters").is_none());
}

#[test]
fn an_unknown_model_is_not_estimated_and_never_fits() {
    let dir = common::fresh_dir("models-unknown");
    write(&dir, "a.yml", "base_model: my-org/my-model\nmicro_batch_size: 2\nsequence_len: 2048\nbf16: true\n");
    let json = check_4090(&dir, "a.yml");
    let mem004 = json["diagnostics"].as_array().unwrap().iter().find(|d| d["code"] == "MEM004").expect("MEM004");
    assert!(mem004["message"].as_str().unwrap().contains("`my-org/my-model` is not in the model catalog"));
    assert_eq!((mem004["line"].as_u64(), mem004["column"].as_u64()), (Some(1), Some(13)));
    assert!(mem004["help"].as_str().unwrap().contains("`base_model`"));
}

#[test]
fn a_known_unsupported_architecture_says_so() {
    let dir = common::fresh_dir("models-unsupported");
    write(&dir, "a.yml", "base_model: tiiuae/Falcon-H1-7B-Base\nmicro_batch_size: 2\nsequence_len: 2048\nbf16: true\n");
    let json = check_4090(&dir, "a.yml");
    let mem004 = json["diagnostics"].as_array().unwrap().iter().find(|d| d["code"] == "MEM004").expect("MEM004");
    let message = mem004["message"].as_str().unwrap();
    assert!(message.contains("`tiiuae/Falcon-H1-7B-Base` is a known Falcon-H1 architecture that the memory model does not support"), "{message}");
    assert!(message.contains("Mamba2") && !message.contains("not in the model catalog"), "{message}");
    assert_eq!((mem004["line"].as_u64(), mem004["column"].as_u64()), (Some(1), Some(13)));
    // Nothing is filled from a guess, and `show` says the same.
    let (json, _) = show(&dir, "a.yml", &[]);
    assert!(json["roles"].get("parameters").is_none());
    let text = common::stdout(&run(&dir, &["show", "a.yml"]));
    assert!(text.contains("a known Falcon-H1 architecture not supported by the memory model"), "{text}");
}

/// Runs trainlint in `dir` with an empty Hugging Face cache: what the developer's cache holds never matters.
fn run(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_trainlint")).args(args).current_dir(dir).env("HF_HUB_CACHE", dir.join("no-cache")).output().expect("run trainlint")
}

fn check_4090(dir: &Path, file: &str) -> serde_json::Value {
    serde_json::from_str(&common::stdout(&run(dir, &["check", "--gpu", "rtx-4090", "--output-format", "json", file]))).unwrap()
}

/// The first estimate of `estimate --output-format json ARGS` (`{"version": 1, "estimates": [...]}`).
fn estimate(dir: &Path, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["estimate", "--output-format", "json"];
    all.extend_from_slice(args);
    let output = run(dir, &all);
    let json: serde_json::Value = serde_json::from_str(&common::stdout(&output)).unwrap_or_else(|e| panic!("{e}: {}", common::stderr(&output)));
    json["estimates"][0].clone()
}

/// The bytes of the component named `name` in an estimate: at the peak, or at the other
/// moment of the step (`off_peak`: the activations of a run whose peak is the optimizer step).
fn bytes(estimate: &serde_json::Value, name: &str) -> f64 {
    component(estimate, name).unwrap_or_else(|| panic!("{name} in {estimate:#}"))
}

/// The bytes of the component named `name`, at the peak or the other moment; `None` when no moment has it.
fn component(estimate: &serde_json::Value, name: &str) -> Option<f64> {
    let rows = estimate["components"].as_array().unwrap().iter().chain(estimate["off_peak"]["components"].as_array().unwrap());
    rows.into_iter().find(|c| c["name"] == name).map(|c| c["bytes"].as_f64().unwrap())
}

#[test]
fn a_lora_run_is_not_priced_as_a_full_fine_tune() {
    let dir = common::fresh_dir("models-adapter");
    // Llama-3.1-8B QLoRA: priced as a full fine-tune it would be ~135 GiB, a false MEM001.
    // Its adapters are counted from `lora_r` and `lora_target_linear` on the catalog's shape.
    write(
        &dir,
        "qlora.yml",
        "base_model: meta-llama/Llama-3.1-8B\nadapter: qlora\nload_in_4bit: true\nlora_r: 32\nlora_target_linear: true\ngradient_checkpointing: true\nmicro_batch_size: 1\nsequence_len: 1024\nbf16: true\n",
    );
    let json = check_4090(&dir, "qlora.yml");
    let codes: Vec<&str> = json["diagnostics"].as_array().unwrap().iter().map(|d| d["code"].as_str().unwrap()).collect();
    assert!(!codes.contains(&"MEM001") && !codes.contains(&"MEM004"), "{codes:?}");
    let estimate = estimate(&dir, &["--gpu", "rtx-4090", "qlora.yml"]);
    let component = |name: &str| bytes(&estimate, name);
    // 83,886,080 adapter parameters (r 32 on every linear of 32 layers) in fp32: 4 B each.
    assert_eq!(component("weights (adapters)"), 83_886_080.0 * 4.0);
    assert_eq!(component("optimizer states"), 83_886_080.0 * 8.0);
    // 4-bit block linears (double-quantized, Axolotl's default), and the embeddings and head in
    // bf16: Axolotl casts them back after PEFT's prepare_model_for_kbit_training.
    assert!(component("weights (frozen base)") < 6.5e9, "a 4-bit base: {estimate:#}");
    // A LoRA run on a model whose architecture is not known is still not estimated.
    write(&dir, "lora.yml", "base_model: my-org/custom-7b\nadapter: lora\nlora_r: 16\nmicro_batch_size: 1\nsequence_len: 1024\nbf16: true\n");
    let json = check_4090(&dir, "lora.yml");
    let mem004 = json["diagnostics"].as_array().unwrap().iter().find(|d| d["code"] == "MEM004").expect("MEM004");
    assert!(mem004["message"].as_str().unwrap().contains("`my-org/custom-7b` is not in the model catalog"), "{mem004:#}");
    // An empty `adapter:` is a full fine-tune: estimated (and it does not fit a 24 GB card).
    write(&dir, "full.yml", "base_model: meta-llama/Llama-3.1-8B\nadapter:\nmicro_batch_size: 1\nsequence_len: 1024\nbf16: true\n");
    let json = check_4090(&dir, "full.yml");
    assert!(json["diagnostics"].as_array().unwrap().iter().any(|d| d["code"] == "MEM001"), "{json:#}");
}

#[test]
fn the_manifest_models_table_names_an_architecture() {
    let dir = common::fresh_dir("models-manifest");
    write(&dir, "local/config.json", CONFIG_JSON);
    write(
        &dir,
        "trainlint.toml",
        "[models.\"my-org/my-llama-finetune\"]\nsame-as = \"meta-llama/Llama-3.1-8B\"\n\n[models.\"my-org/other\"]\nconfig = \"local\"\n\n[models.\"my-org/broken\"]\nsame-as = \"no/such-model\"\n",
    );
    write(&dir, "a.yml", "base_model: My-Org/my-llama-finetune\nmicro_batch_size: 1\nsequence_len: 1024\n");
    let (json, _) = show(&dir, "a.yml", &[]);
    assert_eq!(json["roles"]["parameters"]["value"], 8_030_261_248u64);
    assert_eq!(json["roles"]["parameters"]["file"], "catalog:meta-llama/Llama-3.1-8B");
    write(&dir, "b.yml", "base_model: my-org/other\nmicro_batch_size: 1\nsequence_len: 1024\n");
    let (json, _) = show(&dir, "b.yml", &[]);
    assert_eq!(json["roles"]["parameters"]["value"], 8_030_261_248u64);
    assert!(json["roles"]["parameters"]["file"].as_str().unwrap().ends_with("local/config.json"));
    write(&dir, "c.yml", "base_model: my-org/broken\nmicro_batch_size: 1\nsequence_len: 1024\n");
    let json = check_4090(&dir, "c.yml");
    let mem004 = json["diagnostics"].as_array().unwrap().iter().find(|d| d["code"] == "MEM004").expect("MEM004");
    assert!(mem004["message"].as_str().unwrap().contains("`same-as = \"no/such-model\"` is not a catalog name either"), "{mem004:#}");
}

/// A run that shards with DeepSpeed/FSDP or uses a memory-saving optimizer the
/// memory model does not read yet is "not estimated" at that key, never a false
/// "does not fit" from pricing it as an unsharded AdamW run.
#[test]
fn sharded_or_unmodelled_runs_are_not_estimated_at_the_key() {
    let dir = common::fresh_dir("models-unmodelled");
    let cases = [
        (
            "ds.yml",
            "base_model: meta-llama/Llama-3.1-8B\nmicro_batch_size: 1\nsequence_len: 1024\nbf16: true\ndeepspeed: deepspeed_configs/zero3_bf16.json\n",
            5,
            "`deepspeed` is set",
        ),
        (
            "badam.yaml",
            "model_name_or_path: meta-llama/Meta-Llama-3-8B-Instruct\nstage: sft\nfinetuning_type: full\nuse_badam: true\nbadam_mode: ratio\nper_device_train_batch_size: 1\ncutoff_len: 1024\nbf16: true\ndo_train: true\n",
            5,
            "`badam_mode` is set",
        ),
    ];
    for (file, text, line, message) in cases {
        write(&dir, file, text);
        let json = check_4090(&dir, file);
        let diagnostics = json["diagnostics"].as_array().unwrap();
        assert!(!diagnostics.iter().any(|d| d["code"] == "MEM001"), "{file}: {json:#}");
        let mem004 = diagnostics.iter().find(|d| d["code"] == "MEM004").unwrap_or_else(|| panic!("{file}: no MEM004 in {json:#}"));
        assert!(mem004["message"].as_str().unwrap().contains(message), "{file}: {mem004}");
        assert_eq!(mem004["line"], line, "{file}");
    }
    // The optimizer in the backward is modelled: one parameter's gradient at a time (the
    // 128,256 × 4,096 embedding in bf16), not the whole model's.
    write(
        &dir,
        "inbwd.yaml",
        "model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\nbatch_size: 1\ntokenizer:\n  _component_: torchtune.models.llama3.llama3_tokenizer\n  max_seq_len: 1024\noptimizer:\n  _component_: torch.optim.AdamW\n  lr: 2e-5\noptimizer_in_bwd: True\ndtype: bf16\n",
    );
    let in_backward = estimate(&dir, &["--gpu", "h100-sxm", "inbwd.yaml"]);
    assert_eq!(bytes(&in_backward, "gradients"), 128_256.0 * 4096.0 * 2.0, "{in_backward:#}");
    // Without the key, the same full fine-tune is estimated: it does not fit a 24 GB card.
    write(&dir, "plain.yml", "base_model: meta-llama/Llama-3.1-8B\nmicro_batch_size: 1\nsequence_len: 1024\nbf16: true\n");
    assert!(check_4090(&dir, "plain.yml")["diagnostics"].as_array().unwrap().iter().any(|d| d["code"] == "MEM001"));
}

/// `pure_bf16` trains without AMP (LLaMA-Factory `FinetuningArguments`): bf16
/// weights and no fp32 master copy, so precision `bf16-true`; `bf16` is AMP.
#[test]
fn pure_bf16_is_pure_and_bf16_is_mixed() {
    let dir = common::fresh_dir("models-pure-bf16");
    let head = "model_name_or_path: meta-llama/Meta-Llama-3-8B-Instruct\nstage: sft\nfinetuning_type: full\nper_device_train_batch_size: 1\n";
    write(&dir, "pure.yaml", &format!("{head}pure_bf16: true\n"));
    write(&dir, "amp.yaml", &format!("{head}bf16: true\n"));
    let (pure, _) = show(&dir, "pure.yaml", &[]);
    assert_eq!(pure["roles"]["precision"]["value"], "bf16-true", "{pure:#}");
    let (amp, _) = show(&dir, "amp.yaml", &[]);
    assert_eq!(amp["roles"]["precision"]["value"], "bf16-mixed", "{amp:#}");
}

/// A TrainingArguments-style FSDP run (`fsdp: [full_shard, auto_wrap]`, Axolotl's list;
/// transformers' `"full_shard auto_wrap"` string) is estimated once the world is known:
/// the model states divided by it, plus FSDP's gathered units. Without a world it is
/// MEM004 at the `fsdp` key, never priced as unsharded.
#[test]
fn full_shard_fsdp_is_estimated_over_the_stated_world() {
    let dir = common::fresh_dir("models-fsdp");
    write(
        &dir,
        "fsdp.yml",
        "base_model: meta-llama/Llama-3.1-8B\nmicro_batch_size: 1\nsequence_len: 2048\nbf16: true\ngradient_checkpointing: true\nfsdp:\n  - full_shard\n  - auto_wrap\nfsdp_config:\n  fsdp_offload_params: false\n",
    );
    let json = check_4090(&dir, "fsdp.yml");
    let mem004 = json["diagnostics"].as_array().unwrap().iter().find(|d| d["code"] == "MEM004").expect("MEM004");
    assert!(mem004["message"].as_str().unwrap().contains("FSDP over the data-parallel world"), "{mem004:#}");
    assert_eq!(mem004["line"], 7, "the `fsdp` value");
    let on = |world: &str| estimate(&dir, &["--gpu", "h100-sxm", "--world-size", world, "fsdp.yml"]);
    let (two, eight) = (on("2"), on("8"));
    // AdamW's fp32 moments: 8 B per parameter, over 2 and over 8 GPUs.
    assert_eq!(bytes(&two, "optimizer states"), 8_030_261_248.0 * 8.0 / 2.0);
    assert_eq!(bytes(&eight, "optimizer states"), 8_030_261_248.0 * 8.0 / 8.0);
    assert!(bytes(&eight, "FSDP gathered parameters") > 0.0);
    // The string spelling and the offload option: parameters, gradients and states on the CPU.
    write(&dir, "fsdp.yml", "base_model: meta-llama/Llama-3.1-8B\nmicro_batch_size: 1\nsequence_len: 2048\nbf16: true\nfsdp: full_shard offload auto_wrap\n");
    let offloaded = on("8");
    assert_eq!(bytes(&offloaded, "optimizer states"), 0.0, "{offloaded:#}");
}

/// Issue 14: `plan` and `--fix --unsafe-fixes` on real configs with no manifest. Axolotl's
/// own Llama-3 QLoRA example at 4,096 tokens, its micro batch raised to 8 (× accumulation 1,
/// the same effective batch of 8), does not surely fit a 40 GB A100; the fix writes the micro batch
/// `plan` chooses (the largest whose band's high end fits and divides 8) and the accumulation
/// that keeps the effective batch of 8, in Axolotl's keys, and nothing else.
#[test]
fn plan_and_fix_work_on_a_real_axolotl_config() {
    let Some(shared) = common::shared() else { return };
    let dir = common::fresh_dir("models-fix");
    let source = shared.join("corpus/axolotl-ai-cloud__axolotl/examples/llama-3/qlora.yml");
    let published = std::fs::read_to_string(&source).unwrap();
    assert!(published.contains("micro_batch_size: 2") && published.contains("gradient_accumulation_steps: 4"));
    let text = published.replace("micro_batch_size: 2", "micro_batch_size: 8").replace("gradient_accumulation_steps: 4", "gradient_accumulation_steps: 1");
    write(&dir, "qlora.yml", &text);
    let plan = common::stdout(&run(&dir, &["plan", "--gpu", "a100-40gb", "--world-size", "1", "qlora.yml"]));
    let row: Vec<&str> = plan.lines().nth(1).unwrap().split_whitespace().collect();
    let (micro, accumulation): (u64, u64) = (row[2].parse().unwrap_or_else(|_| panic!("{plan}")), row[3].parse().unwrap());
    assert!(micro < 8 && micro * accumulation == 8 && row[4] == "8", "{plan}");
    // With no world at all (the launcher's), micro batch × accumulation per GPU is what the plan
    // keeps: the same micro batch and accumulation, the effective batch unknown.
    let plan = common::stdout(&run(&dir, &["plan", "--gpu", "a100-40gb", "qlora.yml"]));
    let row: Vec<&str> = plan.lines().nth(1).unwrap().split_whitespace().collect();
    assert_eq!(&row[..5], ["a100-40gb", "–", &micro.to_string(), &accumulation.to_string(), "–"], "{plan}");
    let json: serde_json::Value =
        serde_json::from_str(&common::stdout(&run(&dir, &["check", "--gpu", "a100-40gb", "--output-format", "json", "qlora.yml"]))).unwrap();
    // Sure (MEM001) or within the band (MEM002, "may not fit"): either carries the plan's fix.
    let finding = json["diagnostics"].as_array().unwrap().iter().find(|d| d["code"] == "MEM001" || d["code"] == "MEM002").expect("MEM001 or MEM002");
    assert!(finding["help"].as_str().unwrap().contains(&format!("micro batch {micro} with accumulation {accumulation} fits")), "{finding:#}");
    assert!(!finding["fix"].is_null(), "{finding:#}");
    let fix = run(&dir, &["check", "--gpu", "a100-40gb", "--world-size", "1", "--fix", "--unsafe-fixes", "qlora.yml"]);
    let fixed = std::fs::read_to_string(dir.join("qlora.yml")).unwrap();
    assert!(
        fixed.contains(&format!("micro_batch_size: {micro}\n")) && fixed.contains(&format!("gradient_accumulation_steps: {accumulation}\n")),
        "{}\n{fixed}",
        common::stdout(&fix)
    );
    // Nothing else changed: the same lines but those two.
    let changed = text.lines().zip(fixed.lines()).filter(|(a, b)| a != b).count();
    assert_eq!((changed, text.lines().count()), (2, fixed.lines().count()));
}

/// Issue 14: the DeepSpeed config a TrainingArguments-style config names (`deepspeed: …json`,
/// here in Axolotl's repository layout) is read through the loader: its ZeRO stage and offload
/// settings price the run. Without a world the finding points into that file; with one the
/// model states come from DeepSpeed's own ZeRO-3 estimator. A file outside the project is not read.
#[test]
fn the_named_deepspeed_file_is_read() {
    let dir = common::fresh_dir("models-deepspeed");
    std::fs::create_dir_all(dir.join(".git")).unwrap();
    std::fs::create_dir_all(dir.join("examples/llama")).unwrap();
    std::fs::create_dir_all(dir.join("deepspeed_configs")).unwrap();
    write(
        &dir,
        "deepspeed_configs/zero3.json",
        "{\n  \"zero_optimization\": {\n    \"stage\": 3,\n    \"offload_optimizer\": {\"device\": \"cpu\"},\n    \"offload_param\": {\"device\": \"cpu\"}\n  },\n  \"bf16\": {\"enabled\": true},\n  \"train_micro_batch_size_per_gpu\": \"auto\"\n}\n",
    );
    write(
        &dir,
        "examples/llama/ds.yml",
        "base_model: meta-llama/Llama-3.1-8B\nmicro_batch_size: 1\nsequence_len: 2048\nbf16: true\ngradient_checkpointing: true\nflash_attention: true\ndeepspeed: deepspeed_configs/zero3.json\n",
    );
    let json = check_4090(&dir, "examples/llama/ds.yml");
    let mem004 = json["diagnostics"].as_array().unwrap().iter().find(|d| d["code"] == "MEM004").expect("MEM004");
    assert!(mem004["message"].as_str().unwrap().contains("DeepSpeed ZeRO over the data-parallel world"), "{mem004:#}");
    assert!(mem004["file"].as_str().unwrap().ends_with("zero3.json") && mem004["line"] == 3, "{mem004:#}");
    let eight = estimate(&dir, &["--gpu", "rtx-4090", "--world-size", "8", "examples/llama/ds.yml"]);
    // Both offloaded: only the largest layer (the 128,256 × 4,096 embedding) gathered in fp32 stays on the GPU.
    assert_eq!(bytes(&eight, "model states (ZeRO-3, DeepSpeed estimator)"), 4.0 * 128_256.0 * 4_096.0, "{eight:#}");
}

/// torchtune names its recipe in the config's header comment; a `*_distributed` recipe shards
/// with FSDP2, so the run is estimated over the world the launcher gives, never as one GPU.
#[test]
fn a_torchtune_distributed_recipe_is_sharded() {
    let dir = common::fresh_dir("models-torchtune-distributed");
    let text = "# Config for multi-device LoRA in lora_finetune_distributed.py\n# using a Llama3.1 70B model\n#\n#   tune run --nproc_per_node 8 lora_finetune_distributed --config llama3_1/70B_lora\n\nmodel:\n  _component_: torchtune.models.llama3_1.lora_llama3_1_70b\n  lora_attn_modules: ['q_proj', 'k_proj', 'v_proj', 'output_proj']\n  apply_lora_to_mlp: True\n  lora_rank: 16\ntokenizer:\n  _component_: torchtune.models.llama3.llama3_tokenizer\n  max_seq_len: 2048\nbatch_size: 2\ndtype: bf16\nenable_activation_checkpointing: True\nfsdp_cpu_offload: False\noptimizer:\n  _component_: torch.optim.AdamW\n  lr: 3e-4\n";
    // The header launches `llama3_1/70B_lora`, not this file (it is not under `llama3_1/`): the world is unknown.
    // At micro batch 2 × 4,096 tokens, packed (every sample that long), what each GPU keeps
    // unsharded (the gathered root unit and two blocks, the checkpointed inputs, fp32 logits)
    // exceeds a 24 GB card on any world: a real MEM001.
    write(
        &dir,
        "70B_lora.yaml",
        &format!("{}dataset:\n  _component_: torchtune.datasets.alpaca_dataset\n  packed: True\n", text.replace("max_seq_len: 2048", "max_seq_len: 4096")),
    );
    let json = check_4090(&dir, "70B_lora.yaml");
    let mem001 = json["diagnostics"].as_array().unwrap().iter().find(|d| d["code"] == "MEM001").cloned().unwrap_or_else(|| panic!("{json:#}"));
    assert!(mem001["message"].as_str().unwrap().contains("even sharded over 4,096 GPUs"), "{mem001:#}");
    // At micro batch 1 × 512 tokens it fits from some world: MEM004 says from how many GPUs.
    write(&dir, "70B_lora.yaml", &text.replace("max_seq_len: 2048", "max_seq_len: 512").replace("batch_size: 2", "batch_size: 1"));
    let json = check_4090(&dir, "70B_lora.yaml");
    let diagnostics = json["diagnostics"].as_array().unwrap();
    assert!(!diagnostics.iter().any(|d| d["code"] == "MEM001"), "{json:#}");
    let mem004 = diagnostics.iter().find(|d| d["code"] == "MEM004").expect("MEM004");
    assert!(mem004["message"].as_str().unwrap().contains("with FSDP over the data-parallel world"), "{mem004:#}");
    assert!(mem004["message"].as_str().unwrap().contains("; it fits on rtx-4090 from "), "{mem004:#}");
    // `estimate` shows the run on that fewest number of GPUs, and says so.
    let fewest = estimate(&dir, &["--gpu", "rtx-4090", "70B_lora.yaml"]);
    assert_eq!(fewest["solved"]["input"], "world_size", "{fewest:#}");
    let w = fewest["solved"]["value"].as_f64().unwrap();
    assert!(mem004["message"].as_str().unwrap().contains(&format!("from {w} GPUs")), "{mem004:#}");
    assert_eq!(bytes(&fewest, "weights (frozen base)"), 70_553_706_496.0 * 2.0 / w, "{fewest:#}");
    assert_eq!(fewest["fits"], true);
    let fewer = estimate(&dir, &["--gpu", "rtx-4090", "--world-size", &(w as u64 - 1).to_string(), "70B_lora.yaml"]);
    assert_eq!(fewer["fits"], false, "one GPU fewer does not fit: {fewer:#}");
    write(&dir, "70B_lora.yaml", text);
    assert_eq!((mem004["line"].as_u64(), mem004["column"].as_u64()), (Some(1), Some(35)), "at the recipe the header names");
    let (json, _) = show(&dir, "70B_lora.yaml", &[]);
    assert_eq!(json["roles"]["fsdp"]["line"], 1);
    let shown = common::stdout(&run(&dir, &["show", "70B_lora.yaml"]));
    assert!(shown.contains("(a comment: the header names the recipe `lora_finetune_distributed`"), "{shown}");
    let eight = estimate(&dir, &["--gpu", "a100-80gb", "--world-size", "8", "70B_lora.yaml"]);
    assert_eq!(bytes(&eight, "weights (frozen base)"), 70_553_706_496.0 * 2.0 / 8.0, "{eight:#}");
    assert_eq!(eight["fits"], true, "{eight:#}");
}

/// Preference training: DPO runs the chosen and the rejected sequence of each pair in one
/// forward (TRL `concatenated_forward`), so activations and logits double; a full DPO run holds a
/// frozen 16-bit reference copy of the policy, a LoRA one disables its adapters instead; ORPO keeps
/// no reference. Written as Axolotl (`rl`), LLaMA-Factory (`stage`/`pref_loss`) and TRL (`loss_type`) write them.
#[test]
fn preference_runs_double_the_sequences_and_hold_a_reference_model() {
    let dir = common::fresh_dir("models-preference");
    let sft = "base_model: Qwen/Qwen2.5-0.5B\nmicro_batch_size: 2\nsequence_len: 1024\nbf16: true\ngradient_checkpointing: true\n";
    write(&dir, "sft.yml", sft);
    write(&dir, "dpo.yml", &format!("{sft}rl: dpo\n"));
    write(&dir, "orpo.yml", &format!("{sft}rl: orpo\n"));
    write(&dir, "dpo_lora.yml", &format!("{sft}rl: dpo\nadapter: lora\nlora_r: 16\nlora_target_linear: true\n"));
    let [sft, dpo, orpo, lora] = ["sft.yml", "dpo.yml", "orpo.yml", "dpo_lora.yml"].map(|f| estimate(&dir, &["--gpu", "h100-sxm", f]));
    for name in ["activations (checkpointed inputs)", "logits"] {
        assert_eq!(bytes(&dpo, name), 2.0 * bytes(&sft, name), "{name}");
        assert_eq!(bytes(&orpo, name), 2.0 * bytes(&sft, name), "{name}");
    }
    // Qwen2.5-0.5B: 494,032,768 parameters (catalog) × 2 B.
    assert_eq!(bytes(&dpo, "reference model"), 494_032_768.0 * 2.0);
    let names = |e: &serde_json::Value| e["components"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap().to_owned()).collect::<Vec<_>>();
    assert!(!names(&orpo).contains(&"reference model".to_owned()), "{orpo:#}");
    assert!(!names(&lora).contains(&"reference model".to_owned()), "{lora:#}");
    assert!(!names(&sft).contains(&"reference model".to_owned()));
    // LLaMA-Factory: `stage: dpo` (pref_loss sigmoid by default) holds a reference; `pref_loss: orpo` does not.
    let lf = "model_name_or_path: Qwen/Qwen2.5-0.5B\nstage: dpo\ndo_train: true\nfinetuning_type: full\nper_device_train_batch_size: 2\ncutoff_len: 1024\nbf16: true\n";
    write(&dir, "lf_dpo.yaml", lf);
    write(&dir, "lf_orpo.yaml", &format!("{lf}pref_loss: orpo\n"));
    assert!(names(&estimate(&dir, &["--gpu", "h100-sxm", "lf_dpo.yaml"])).contains(&"reference model".to_owned()));
    assert!(!names(&estimate(&dir, &["--gpu", "h100-sxm", "lf_orpo.yaml"])).contains(&"reference model".to_owned()));
    // TRL: `loss_type: sigmoid` is DPO; `precompute_ref_log_probs: true` needs no reference model at training time.
    let trl = "model_name_or_path: Qwen/Qwen2.5-0.5B\nper_device_train_batch_size: 2\ngradient_accumulation_steps: 4\nlearning_rate: 5.0e-7\noutput_dir: out\nmax_length: 1024\nbf16: true\nbeta: 0.1\nmax_prompt_length: 512\nloss_type: sigmoid\n";
    write(&dir, "trl.yaml", trl);
    write(&dir, "trl_pre.yaml", &format!("{trl}precompute_ref_log_probs: true\n"));
    let trl_dpo = estimate(&dir, &["--gpu", "h100-sxm", "trl.yaml"]);
    assert!(names(&trl_dpo).contains(&"reference model".to_owned()), "{trl_dpo:#}");
    assert!(bytes(&trl_dpo, "activations (transformer)") > 0.0, "max_length gives the sequence length: {trl_dpo:#}");
    assert!(!names(&estimate(&dir, &["--gpu", "h100-sxm", "trl_pre.yaml"])).contains(&"reference model".to_owned()));
    // Axolotl passes `precompute_ref_log_probs` to TRL's DPOConfig (`core/trainers/dpo/__init__.py`): the same.
    let axolotl = "base_model: Qwen/Qwen2.5-0.5B\nrl: dpo\nmicro_batch_size: 2\ngradient_accumulation_steps: 4\nsequence_len: 1024\nbf16: true\n";
    write(&dir, "ax_dpo.yml", axolotl);
    write(&dir, "ax_dpo_pre.yml", &format!("{axolotl}precompute_ref_log_probs: true\n"));
    assert!(names(&estimate(&dir, &["--gpu", "h100-sxm", "ax_dpo.yml"])).contains(&"reference model".to_owned()));
    assert!(!names(&estimate(&dir, &["--gpu", "h100-sxm", "ax_dpo_pre.yml"])).contains(&"reference model".to_owned()));
}

/// Configs that train nothing (torchtune's evaluation and generation recipes, LLaMA-Factory's
/// inference and export configs) get no training-memory estimate and no memory finding.
#[test]
fn evaluation_and_export_configs_are_not_priced_as_training() {
    let dir = common::fresh_dir("models-not-training");
    write(
        &dir,
        "eval.yaml",
        "# tune run eleuther_eval --config eval\nmodel:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\ntokenizer:\n  _component_: torchtune.models.llama3.llama3_tokenizer\n  path: /tmp/tokenizer.model\n  max_seq_len: 4096\nbatch_size: 8\ndtype: bf16\ntasks: [\"truthfulqa_mc2\"]\n",
    );
    write(
        &dir,
        "export.yaml",
        "model_name_or_path: Qwen/Qwen3-4B-Instruct-2507\nadapter_name_or_path: saves/qwen3-4b/lora/sft\ntemplate: qwen3_nothink\nfinetuning_type: lora\nexport_dir: output/qwen3_lora_sft\nexport_size: 5\n",
    );
    for file in ["eval.yaml", "export.yaml"] {
        let json = check_4090(&dir, file);
        let codes: Vec<&str> = json["diagnostics"].as_array().unwrap().iter().map(|d| d["code"].as_str().unwrap()).collect();
        assert!(!codes.iter().any(|c| c.starts_with("MEM")), "{file}: {codes:?}");
        let output = run(&dir, &["estimate", "--gpu", "rtx-4090", file]);
        assert!(common::stderr(&output).contains("not a training run"), "{file}: {}", common::stderr(&output));
    }
    // The same torchtune config with an optimizer trains: it is estimated (and does not fit a 24 GB card).
    let train = std::fs::read_to_string(dir.join("eval.yaml"))
        .unwrap()
        .replace("tasks: [\"truthfulqa_mc2\"]\n", "optimizer:\n  _component_: torch.optim.AdamW\n  lr: 2e-5\n");
    write(&dir, "train.yaml", &train);
    let json = check_4090(&dir, "train.yaml");
    assert!(json["diagnostics"].as_array().unwrap().iter().any(|d| d["code"] == "MEM001"), "{json:#}");
}

/// torchtune's `max_seq_len: null` leaves the length to the longest sample: the estimate is shown
/// at the longest sequence that fits (a multiple of 64 tokens), which 64 tokens more would not.
#[test]
fn an_unbounded_sequence_length_is_solved_for() {
    let dir = common::fresh_dir("models-longest-sequence");
    let text = "# tune run lora_finetune_single_device --config llama3_1/8B_lora_single_device\nmodel:\n  _component_: torchtune.models.llama3_1.lora_llama3_1_8b\n  lora_attn_modules: ['q_proj', 'v_proj', 'output_proj']\n  apply_lora_to_mlp: True\n  lora_rank: 8\n  lora_alpha: 16\ntokenizer:\n  _component_: torchtune.models.llama3.llama3_tokenizer\n  path: /tmp/Meta-Llama-3.1-8B-Instruct/original/tokenizer.model\n  max_seq_len: null\nbatch_size: 2\ngradient_accumulation_steps: 8\noptimizer:\n  _component_: torch.optim.AdamW\n  fused: True\n  lr: 3e-4\nloss:\n  _component_: torchtune.modules.loss.LinearCrossEntropyLoss\ndtype: bf16\nenable_activation_checkpointing: True\n";
    write(&dir, "8B_lora_single_device.yaml", text);
    let solved = estimate(&dir, &["--gpu", "rtx-4090", "8B_lora_single_device.yaml"]);
    assert_eq!(solved["solved"]["input"], "sequence_length", "{solved:#}");
    let tokens = solved["solved"]["value"].as_u64().unwrap();
    assert!(tokens.is_multiple_of(64) && tokens >= 1024, "{solved:#}");
    assert_eq!(solved["fits"], true);
    assert!(solved["components"].as_array().unwrap().iter().any(|c| c["name"].as_str().unwrap().starts_with("activations (")), "{solved:#}");
    // Stated, the same length fits and 64 tokens more do not.
    let at = |n: u64| {
        write(&dir, "stated.yaml", &text.replace("max_seq_len: null", &format!("max_seq_len: {n}")));
        estimate(&dir, &["--gpu", "rtx-4090", "stated.yaml"])
    };
    assert_eq!(at(tokens)["total_bytes"], solved["total_bytes"]);
    assert_eq!(at(tokens)["fits"], true);
    assert_eq!(at(tokens + 64)["fits"], false);
    assert!(at(tokens)["solved"].is_null());
    // `check` says the bound in MEM004.
    let json = check_4090(&dir, "8B_lora_single_device.yaml");
    let mem004 = json["diagnostics"].as_array().unwrap().iter().find(|d| d["code"] == "MEM004").cloned().unwrap_or_else(|| panic!("{json:#}"));
    assert!(
        mem004["message"].as_str().unwrap().contains(&format!("sequences up to {} tokens fit at micro batch 2", trainlint::model::thousands(tokens))),
        "{mem004:#}"
    );
}

/// Both open inputs: a torchtune distributed recipe (the launcher's world) that bounds no
/// sequence length. The world is solved at the shortest sequence searched, 64 tokens, and said
/// to be a lower bound; a single-device recipe whose model states alone exceed the card is
/// shown at 64 tokens too, complete and out of memory (the verdict holds for every length).
#[test]
fn a_world_and_a_length_both_open() {
    let dir = common::fresh_dir("models-two-open-inputs");
    let distributed = "# tune run --nproc_per_node 8 lora_finetune_distributed --config llama3_1/70B_lora\nmodel:\n  _component_: torchtune.models.llama3_1.lora_llama3_1_70b\n  lora_attn_modules: ['q_proj', 'v_proj']\n  lora_rank: 16\ntokenizer:\n  _component_: torchtune.models.llama3.llama3_tokenizer\n  max_seq_len: null\nbatch_size: 1\ndtype: bf16\nenable_activation_checkpointing: True\noptimizer:\n  _component_: torch.optim.AdamW\n  lr: 3e-4\n";
    write(&dir, "70B_lora.yaml", distributed);
    let solved = estimate(&dir, &["--gpu", "h100-sxm", "70B_lora.yaml"]);
    assert_eq!(solved["solved"]["input"], "world_size", "{solved:#}");
    assert_eq!(solved["fits"], true);
    assert!(solved["notes"].as_array().unwrap().iter().any(|n| n.as_str().unwrap().contains("and 64 tokens, the shortest sequence searched")), "{solved:#}");
    let single = distributed.replace("lora_finetune_distributed", "lora_finetune_single_device").replace("--nproc_per_node 8 ", "");
    write(&dir, "70B_single.yaml", &single);
    let shortest = estimate(&dir, &["--gpu", "rtx-4090", "70B_single.yaml"]);
    assert_eq!((shortest["solved"]["input"].as_str(), shortest["solved"]["value"].as_u64()), (Some("sequence_length"), Some(64)), "{shortest:#}");
    assert_eq!(shortest["fits"], false);
    assert!(bytes(&shortest, "activations (checkpointed inputs)") > 0.0, "a complete estimate: {shortest:#}");
}

/// LLaMA-Factory checkpoints unless `disable_gradient_checkpointing` and adapts every linear
/// unless `lora_target` says otherwise (`hparams/model_args.py`, `finetuning_args.py`): defaults
/// for keys the config does not write, shown at `finetuning_type`, and priced.
#[test]
fn llama_factory_defaults_bind_where_the_keys_are_absent() {
    let dir = common::fresh_dir("models-lf-defaults");
    let text = "model_name_or_path: Qwen/Qwen3-4B-Instruct-2507\nstage: sft\ndo_train: true\nfinetuning_type: lora\nlora_rank: 8\ncutoff_len: 2048\nper_device_train_batch_size: 1\nbf16: true\n";
    write(&dir, "sft.yaml", text);
    let show: serde_json::Value = serde_json::from_str(&common::stdout(&run(&dir, &["show", "--output-format", "json", "sft.yaml"]))).unwrap();
    let role = |name: &str| show["roles"][name].clone();
    assert_eq!((role("activation_checkpointing")["value"].as_str(), role("activation_checkpointing")["line"].as_u64()), (Some("full"), Some(4)), "{show:#}");
    assert_eq!(role("lora_targets")["value"], "all", "{show:#}");
    let on = estimate(&dir, &["--gpu", "rtx-4090", "sft.yaml"]);
    assert!(bytes(&on, "activations (checkpointed inputs)") > 0.0, "{on:#}");
    // Stated off, the run keeps every layer's activations.
    write(&dir, "off.yaml", &format!("{text}disable_gradient_checkpointing: true\n"));
    assert!(bytes(&estimate(&dir, &["--gpu", "rtx-4090", "off.yaml"]), "activations (transformer)") > 0.0);
}

/// Axolotl loads a full fine-tune with `bf16: true` in bf16 (`normalize_config`'s `torch_dtype`)
/// and keeps `embed_tokens` and `lm_head` in fp32 unless the attention needs one dtype
/// (`_convert_embedding_modules_dtype`): bf16 weights, gradients and AdamW states, fp32 for
/// the embeddings and head, not fp32 master weights for all of it.
#[test]
fn an_axolotl_full_fine_tune_in_bf16_keeps_its_embeddings_in_fp32() {
    let dir = common::fresh_dir("models-axolotl-fft");
    let text = "base_model: meta-llama/Llama-3.1-8B\nmicro_batch_size: 1\ngradient_accumulation_steps: 4\nsequence_len: 2048\nbf16: true\ngradient_checkpointing: true\noptimizer: adamw_torch\n";
    write(&dir, "fft.yml", text);
    let fft = estimate(&dir, &["--gpu", "h100-sxm", "fft.yml"]);
    // Llama-3.1-8B: 8,030,261,248 parameters; embeddings and head 2 × 128,256 × 4,096.
    let (all, fp32) = (8_030_261_248.0, 2.0 * 128_256.0 * 4_096.0);
    assert_eq!(bytes(&fft, "weights"), all * 2.0 + fp32 * 2.0, "{fft:#}");
    assert_eq!(bytes(&fft, "gradients"), all * 2.0 + fp32 * 2.0);
    assert_eq!(bytes(&fft, "optimizer states"), all * 4.0 + fp32 * 4.0);
    // `bf16: auto` resolves before the load dtype is chosen: bf16 where the GPU has it, fp16
    // elsewhere, 2 B either way; on a V100 it is not "bf16 on a GPU without bf16" (no HW001).
    write(&dir, "auto.yml", &text.replace("bf16: true", "bf16: auto"));
    let auto = estimate(&dir, &["--gpu", "h100-sxm", "auto.yml"]);
    assert_eq!(bytes(&auto, "weights"), all * 2.0 + fp32 * 2.0, "{auto:#}");
    let v100 = run(&dir, &["check", "--output-format", "json", "--gpu", "v100-32gb", "auto.yml"]);
    assert!(!common::stdout(&v100).contains("HW001"), "{}", common::stdout(&v100));
    // Flash attention needs one dtype: the loader casts them back to bf16.
    write(&dir, "flash.yml", &format!("{text}flash_attention: true\n"));
    assert_eq!(bytes(&estimate(&dir, &["--gpu", "h100-sxm", "flash.yml"]), "weights"), all * 2.0);
    // With an adapter the base is frozen and PEFT's adapters train in fp32 under autocast: unchanged.
    write(&dir, "lora.yml", &format!("{text}adapter: lora\nlora_r: 16\nlora_target_linear: true\n"));
    let lora = estimate(&dir, &["--gpu", "h100-sxm", "lora.yml"]);
    assert_eq!(bytes(&lora, "weights (frozen base)"), all * 2.0, "{lora:#}");
}

#[test]
fn fsdp_accumulating_with_no_sync_keeps_whole_gradients_in_the_backward() {
    let dir = common::fresh_dir("models-fsdp-no-sync");
    // litgpt's config_hub/finetune/llama-2-7b/full.yaml: 4 devices, global 64, micro 4 → 4 micro
    // batches per step under Fabric's `no_backward_sync` (FSDP `no_sync`).
    let text = "checkpoint_dir: checkpoints/meta-llama/Llama-2-7b-hf\nprecision: bf16-true\ndevices: 4\ntrain:\n  global_batch_size: 64\n  micro_batch_size: 4\n  max_seq_length: 512\n";
    write(&dir, "full.yaml", text);
    let full = estimate(&dir, &["--gpu", "a10g", "full.yaml"]);
    let parameters = 6_738_415_616.0;
    assert_eq!(bytes(&full, "gradients"), parameters * 2.0 / 4.0, "{full:#}");
    assert_eq!(bytes(&full, "gradients (unsharded while accumulating)"), parameters * 2.0 * 3.0 / 4.0);
    // Published as out of memory on 4 × A10G (litgpt config_hub/finetune/README.md).
    assert_eq!(full["fits"], false, "{full:#}");
    // No accumulation (global 16 = 4 devices × micro 4): the gradients are sharded throughout.
    write(&dir, "one.yaml", &text.replace("global_batch_size: 64", "global_batch_size: 16"));
    let one = estimate(&dir, &["--gpu", "a10g", "one.yaml"]);
    assert_eq!(component(&one, "gradients (unsharded while accumulating)"), None, "{one:#}");
    // Reduce-scattered after every micro batch (torchtune's recipes, accelerate's `sync_each_batch`): sharded.
    let native = r#"{"trainlint": 1, "precision": "bf16-true", "batch": {"micro_batch": 4, "accumulation": 4}, "parallel": {"devices": 4},
        "model": {"name": "meta-llama/Llama-2-7b-hf", "sequence_length": 512, "activation_checkpointing": "full"}, "sharding": {"fsdp": true, "sync_each_batch": true}}"#;
    write(&dir, "sync.json", native);
    let sync = estimate(&dir, &["--gpu", "a10g", "sync.json"]);
    assert_eq!(component(&sync, "gradients (unsharded while accumulating)"), None, "{sync:#}");
    write(&dir, "nosync.json", &native.replace(", \"sync_each_batch\": true", ""));
    let nosync = estimate(&dir, &["--gpu", "a10g", "nosync.json"]);
    assert_eq!(bytes(&nosync, "gradients (unsharded while accumulating)"), parameters * 2.0 * 3.0 / 4.0, "{nosync:#}");
}

#[test]
fn litgpt_trains_its_own_head_beside_a_tied_embedding() {
    let dir = common::fresh_dir("models-litgpt-untied");
    // Gemma-2B ties its head in Hugging Face; litgpt's `GPT` has its own `lm_head`.
    write(
        &dir,
        "lora.yaml",
        "checkpoint_dir: checkpoints/google/gemma-2b\nprecision: bf16-true\nlora_r: 8\ntrain:\n  micro_batch_size: 1\n  max_seq_length: 512\n",
    );
    let lora = estimate(&dir, &["--gpu", "a10g", "lora.yaml"]);
    let tied = 2_506_172_416.0;
    assert_eq!(bytes(&lora, "weights (frozen base)"), (tied + 256_000.0 * 2_048.0) * 2.0, "{lora:#}");
    // The same model in an Axolotl config (transformers builds it) keeps the tie.
    write(
        &dir,
        "axolotl.yml",
        "base_model: google/gemma-2b\nadapter: lora\nlora_r: 8\nlora_target_linear: true\nmicro_batch_size: 1\nsequence_len: 512\nbf16: true\n",
    );
    let axolotl = estimate(&dir, &["--gpu", "a10g", "axolotl.yml"]);
    assert_eq!(bytes(&axolotl, "weights (frozen base)"), tied * 2.0, "{axolotl:#}");
}

#[test]
fn a_compiled_chunked_loss_keeps_only_the_16_bit_logits() {
    let dir = common::fresh_dir("models-torchtune-compile");
    // torchtune's README 'Optimization flags' LoRA row: compile, CEWithChunkedOutputLoss, fused AdamW.
    let text = "model:\n  _component_: torchtune.models.llama3_2.lora_llama3_2_3b\n  lora_attn_modules: ['q_proj', 'v_proj', 'output_proj']\n  apply_lora_to_mlp: True\n  lora_rank: 64\nbatch_size: 2\ngradient_accumulation_steps: 1\ntokenizer:\n  _component_: torchtune.models.llama3.llama3_tokenizer\n  max_seq_len: 4096\nloss:\n  _component_: torchtune.modules.loss.CEWithChunkedOutputLoss\noptimizer:\n  _component_: torch.optim.AdamW\n  fused: True\n  lr: 3e-4\nenable_activation_checkpointing: True\nenable_activation_offloading: True\ndtype: bf16\n";
    write(&dir, "eager.yaml", &format!("{text}compile: False\n"));
    write(&dir, "compiled.yaml", &format!("{text}compile: True\n"));
    let elements = 2.0 * 4096.0 * 128_256.0;
    let eager = estimate(&dir, &["--gpu", "a100-80gb", "eager.yaml"]);
    assert_eq!(bytes(&eager, "logits"), elements * 6.0, "{eager:#}");
    let compiled = estimate(&dir, &["--gpu", "a100-80gb", "compiled.yaml"]);
    assert_eq!(bytes(&compiled, "logits"), elements * 2.0, "{compiled:#}");
    // `fused: True`: no foreach workspace at the optimizer step.
    assert_eq!(component(&compiled, "optimizer step workspace"), None, "{compiled:#}");
    // Measured 8.5 GiB of tensors (torchtune README); the estimate without the CUDA context is within 5 %.
    let tensors = compiled["total_bytes"].as_f64().unwrap() - bytes(&compiled, "CUDA context");
    assert!((tensors / (8.5 * 1024f64.powi(3)) - 1.0).abs() < 0.05, "{tensors}");
}

#[test]
fn llama_factory_memory_saving_optimizers_are_priced_from_their_states() {
    let dir = common::fresh_dir("models-lf-optimizers");
    let base = "model_name_or_path: meta-llama/Meta-Llama-3-8B-Instruct\nstage: sft\ndo_train: true\nfinetuning_type: full\ncutoff_len: 2048\nper_device_train_batch_size: 1\n";
    // Llama-3-8B's linears (q, k, v, o, gate, up, down; 32 layers) and the rest (embeddings, head, norms).
    let linears: [(f64, f64); 7] =
        [(4096.0, 4096.0), (4096.0, 1024.0), (4096.0, 1024.0), (4096.0, 4096.0), (4096.0, 14336.0), (4096.0, 14336.0), (14336.0, 4096.0)];
    let all = 8_030_261_248.0;
    let in_linears: f64 = 32.0 * linears.iter().map(|(i, o)| i * o).sum::<f64>();
    // GaLore, rank 128, layerwise, pure bf16: per linear 2 × r × max + r × min elements, full Adam elsewhere, 2 B each.
    write(
        &dir,
        "galore.yaml",
        &format!("{base}gradient_accumulation_steps: 1\npure_bf16: true\nuse_galore: true\ngalore_layerwise: true\ngalore_target: all\ngalore_rank: 128\n"),
    );
    let galore = estimate(&dir, &["--gpu", "h100-sxm", "galore.yaml"]);
    let low_rank: f64 = 32.0 * linears.iter().map(|(i, o)| 2.0 * 128.0 * i.max(*o) + 128.0 * i.min(*o)).sum::<f64>();
    assert_eq!(bytes(&galore, "optimizer states"), (low_rank + 2.0 * (all - in_linears)) * 2.0, "{galore:#}");
    // Layerwise: one parameter's gradient at a time (the largest: the embedding or the head).
    assert_eq!(bytes(&galore, "gradients"), 128_256.0 * 4096.0 * 2.0);
    // BAdam, layer mode: one decoder layer trains, its fp32 copy and AdamW moments (12 B), bf16 gradients.
    write(&dir, "badam.yaml", &format!("{base}gradient_accumulation_steps: 8\nuse_badam: true\nbadam_mode: layer\n"));
    let badam = estimate(&dir, &["--gpu", "h100-sxm", "badam.yaml"]);
    let layer = (all - 2.0 * 128_256.0 * 4096.0 - 4096.0) / 32.0;
    assert_eq!(layer, 218_112_000.0);
    assert_eq!(bytes(&badam, "optimizer states"), layer * 12.0, "{badam:#}");
    assert_eq!(bytes(&badam, "gradients"), layer * 2.0);
    assert_eq!(bytes(&badam, "weights"), all * 2.0);
    // Adam-mini under bf16 autocast: fp32 parameters, gradients and first moment (4 B each).
    write(&dir, "mini.yaml", &format!("{base}gradient_accumulation_steps: 8\nbf16: true\nuse_adam_mini: true\n"));
    let mini = estimate(&dir, &["--gpu", "h100-sxm", "mini.yaml"]);
    assert_eq!(bytes(&mini, "optimizer states"), all * 4.0, "{mini:#}");
    // BAdam's ratio mode is not modelled: no estimate rather than a wrong one.
    write(&dir, "ratio.yaml", &format!("{base}use_badam: true\nbadam_mode: ratio\n"));
    let output = run(&dir, &["estimate", "--gpu", "h100-sxm", "ratio.yaml"]);
    assert!(common::stderr(&output).contains("ratio mode"), "{}", common::stderr(&output));
}

#[test]
fn a_torchtune_generic_builder_with_its_dimensions_is_counted_from_them() {
    let dir = common::fresh_dir("models-torchtune-inline");
    // recipes/configs/llama2/1B_qat_single_device.yaml: TinyLlama's shape written out for `llama2`.
    let text = "model:\n  _component_: torchtune.models.llama2.llama2\n  vocab_size: 32000\n  num_layers: 22\n  num_heads: 32\n  num_kv_heads: 4\n  embed_dim: 2048\n  max_seq_len: 2048\nbatch_size: 2\ntokenizer:\n  _component_: torchtune.models.llama2.llama2_tokenizer\n  max_seq_len: 2048\noptimizer:\n  _component_: bitsandbytes.optim.PagedAdamW\n  lr: 2e-5\ndtype: bf16\n";
    write(&dir, "qat.yaml", text);
    let (json, _) = show(&dir, "qat.yaml", &[]);
    // intermediate_dim unset: 4·⌊2·2048/3⌋ rounded up to 256 = 5632, TinyLlama's; the same count as the catalog's.
    assert_eq!(json["roles"]["parameters"]["value"], 1_100_048_384u64, "{json:#}");
    assert_eq!(json["roles"]["parameters"]["file"], "config:model");
    let estimate = estimate(&dir, &["--gpu", "rtx-4090", "qat.yaml"]);
    // bitsandbytes' 32-bit PagedAdamW keeps fp32 moments for bf16 parameters: 8 B each, in paged
    // (CUDA managed) memory outside the peak, said in a note.
    assert!(component(&estimate, "optimizer states").is_none(), "{estimate:#}");
    assert!(estimate["notes"].to_string().contains("optimizer states 8.20 GiB (paged_adamw_32bit: trainable parameters × 8 B)"), "{estimate:#}");
    // A builder with a dimension missing is not guessed.
    write(&dir, "partial.yaml", &text.replace("  embed_dim: 2048\n", ""));
    let output = run(&dir, &["estimate", "--gpu", "rtx-4090", "partial.yaml"]);
    assert!(!output.status.success(), "{}", common::stdout(&output));
}

/// Issue 14's litgpt finetune config (Llama-2-7B, `lora_r: 32`, `bf16-true`, micro 2, 512 tokens)
/// and its Axolotl, LLaMA-Factory and torchtune equivalents, written as those projects write
/// theirs: each gets a complete estimate with no manifest (the model from its name), the same
/// frozen base and adapters, and a plan.
#[test]
fn the_issue_litgpt_config_and_its_equivalents_estimate_without_a_manifest() {
    let dir = common::fresh_dir("models-equivalents");
    let litgpt = std::fs::read_to_string(common::repo().join("fixtures/dialects/litgpt/config_hub/finetune/llama-2-7b/lora.yaml")).unwrap();
    write(&dir, "litgpt.yaml", &litgpt);
    write(
        &dir,
        "axolotl.yml",
        "base_model: meta-llama/Llama-2-7b-hf\nadapter: lora\nlora_r: 32\nlora_alpha: 16\nlora_target_modules:\n  - q_proj\n  - v_proj\nsequence_len: 512\nmicro_batch_size: 2\ngradient_accumulation_steps: 4\noptimizer: adamw_torch\nlearning_rate: 0.0002\nbf16: true\n",
    );
    write(
        &dir,
        "llama_factory.yaml",
        "model_name_or_path: meta-llama/Llama-2-7b-hf\nstage: sft\ndo_train: true\nfinetuning_type: lora\nlora_rank: 32\nlora_target: q_proj,v_proj\ncutoff_len: 512\nper_device_train_batch_size: 2\ngradient_accumulation_steps: 4\npure_bf16: true\ndisable_gradient_checkpointing: true\n",
    );
    write(
        &dir,
        "torchtune.yaml",
        "model:\n  _component_: torchtune.models.llama2.lora_llama2_7b\n  lora_attn_modules: ['q_proj', 'v_proj']\n  lora_rank: 32\n  lora_alpha: 16\ntokenizer:\n  _component_: torchtune.models.llama2.llama2_tokenizer\n  max_seq_len: 512\nbatch_size: 2\ngradient_accumulation_steps: 4\noptimizer:\n  _component_: torch.optim.AdamW\n  lr: 2e-4\ndtype: bf16\n",
    );
    // r 32 on q and v of 32 layers: 32 × 2 × 32 × (4,096 + 4,096).
    let adapters = 32.0 * 2.0 * 32.0 * 8192.0;
    for file in ["litgpt.yaml", "axolotl.yml", "llama_factory.yaml", "torchtune.yaml"] {
        let estimate = estimate(&dir, &["--gpu", "a10g", file]);
        assert_eq!(bytes(&estimate, "weights (frozen base)"), 6_738_415_616.0 * 2.0, "{file}: {estimate:#}");
        let per = if file == "axolotl.yml" { 4.0 } else { 2.0 };
        assert_eq!(bytes(&estimate, "weights (adapters)"), adapters * per, "{file}");
        let names: Vec<&str> = estimate["components"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
        assert!(names.iter().any(|n| n.starts_with("activations")), "{file}: {names:?}");
        assert!(estimate["fits"].as_bool().is_some(), "{file}: {estimate:#}");
        let plan = run(&dir, &["plan", "--gpu", "a10g", "--world-size", "1", file]);
        assert!(plan.status.success(), "{file}: {}", common::stderr(&plan));
        let row: Vec<String> = common::stdout(&plan).lines().nth(1).unwrap().split_whitespace().map(str::to_owned).collect();
        assert_eq!(row[0], "a10g", "{file}: {row:?}");
    }
}

/// One line of a name list: its count and its name (`data/corpus_models.txt`, `data/published_models.txt`).
fn name_rows(text: &str) -> Vec<(usize, String)> {
    text.lines()
        .take_while(|l| !l.starts_with("# excluded"))
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let mut cols = l.split('\t');
            let count = cols.next().and_then(|c| c.parse().ok()).expect("a count column");
            (count, cols.next().expect("a name column").to_owned())
        })
        .collect()
}

/// How many names and files resolve to an architecture: (names in the catalog, names known but
/// unsupported, names, files in the catalog, files known but unsupported, files), and the names
/// not resolved with their reason.
type Rate = (usize, usize, usize, usize, usize, usize, Vec<String>);

fn rate(rows: &[(String, usize, Option<bool>, String)]) -> Rate {
    let mut out: Rate = (0, 0, 0, 0, 0, 0, Vec::new());
    let mut seen = std::collections::BTreeSet::new();
    for (name, files, found, why) in rows {
        let first = seen.insert(name.clone());
        out.5 += files;
        out.2 += usize::from(first);
        match found {
            Some(true) => {
                out.0 += usize::from(first);
                out.3 += files;
            }
            Some(false) => {
                out.1 += usize::from(first);
                out.4 += files;
            }
            None if first => out.6.push(format!("{files}\t{name}\t{why}")),
            None => {}
        }
    }
    out
}

fn print_rate(title: &str, r: &Rate) {
    let pct = |a: usize, b: usize| 100.0 * a as f64 / b.max(1) as f64;
    println!(
        "{title}: names {}/{} in the catalog ({:.1} %), {}/{} with the known-unsupported ({:.1} %); files {}/{} ({:.1} %), {}/{} ({:.1} %)",
        r.0,
        r.2,
        pct(r.0, r.2),
        r.0 + r.1,
        r.2,
        pct(r.0 + r.1, r.2),
        r.3,
        r.5,
        pct(r.3, r.5),
        r.3 + r.4,
        r.5,
        pct(r.3 + r.4, r.5)
    );
    for line in &r.6 {
        println!("  unresolved: {line}");
    }
}

/// Issue 24 item 2: the share of the model names that resolve to an architecture, over the
/// corpus (the model each file names, as `check` resolves it: catalog, re-upload organisations,
/// variant and quantization suffixes, paths) and over the published rows and framework example
/// configs (`data/published_models.txt`). A known architecture the memory model does not support
/// (`data/unsupported.json`) is counted apart. A local path or a run-time placeholder that names
/// no known model is an output folder, not a model name: it is left out of the corpus count.
/// Fails when resolution regresses; prints every name still unresolved.
#[test]
fn model_names_resolve_to_an_architecture() {
    use trainlint::resolve::model::ModelLookup;
    let published_rows: Vec<(String, usize, Option<bool>, String)> = name_rows(include_str!("../data/published_models.txt"))
        .into_iter()
        .map(|(count, name)| {
            let found = match trainlint::model::resolve(&name) {
                Ok(_) => Some(true),
                Err(_) => trainlint::model::unsupported(&name).map(|_| false),
            };
            let why = trainlint::model::resolve(&name).err().and_then(|tried| trainlint::model::tried_reason(&tried)).unwrap_or_default();
            (name, count, found, why)
        })
        .collect();
    let published = rate(&published_rows);
    print_rate("published rows and framework configs", &published);
    assert!(published.6.is_empty(), "every published name resolves: {:#?}", published.6);

    let Some(shared) = common::shared() else {
        eprintln!("../shared not present: corpus part skipped");
        return;
    };
    let corpus = shared.join("corpus");
    let settings = trainlint::settings::Settings::discover(std::slice::from_ref(&corpus), &Default::default()).expect("settings");
    let excludes = trainlint::load::discover::Excludes::new(&settings.root, None, &[]).expect("excludes");
    let files = trainlint::load::discover::discover(std::slice::from_ref(&corpus), &excludes, false).expect("corpus files");
    let mut rows = Vec::new();
    let mut left_out = 0;
    for file in &files {
        let Ok(report) = trainlint::linter::lint_file(file, &settings) else { continue };
        let Some(model) = report.resolved.and_then(|r| r.model) else { continue };
        let row = match model {
            ModelLookup::Found(facts) => (facts.name.clone(), 1, Some(true), String::new()),
            ModelLookup::Unsupported { name, .. } => (name, 1, Some(false), String::new()),
            ModelLookup::Unknown { name, why } => {
                if name.contains("${") || name.starts_with('$') || trainlint::model::is_path(&name) {
                    left_out += 1;
                    continue;
                }
                (name, 1, None, why.unwrap_or_default())
            }
        };
        rows.push(row);
    }
    let corpus_rate = rate(&rows);
    print_rate(&format!("corpus ({left_out} files naming only a local path or a placeholder left out)"), &corpus_rate);
    let mut both = rows.clone();
    both.extend(published_rows.iter().cloned());
    let both = rate(&both);
    println!(
        "corpus and published together: {} of {} distinct names resolve to an architecture ({:.1} %), {} in the catalog",
        both.0 + both.1,
        both.2,
        100.0 * (both.0 + both.1) as f64 / both.2 as f64,
        both.0
    );
    // The issue's bar is 97 % of names, reached for the published rows (above) and for the corpus; the
    // corpus names still unresolved are listed in data/corpus_models.txt with why (no config.json read):
    // these floors are the measured rates, so that resolution cannot regress.
    let share = |known: usize, all: usize| known as f64 / all as f64;
    assert!(share(corpus_rate.0 + corpus_rate.1, corpus_rate.2) >= CORPUS_NAMES_FLOOR, "corpus names regressed");
    assert!(share(corpus_rate.3 + corpus_rate.4, corpus_rate.5) >= CORPUS_FILES_FLOOR, "corpus files regressed");
    assert!(share(corpus_rate.0, corpus_rate.2) >= CORPUS_CATALOG_NAMES_FLOOR, "corpus catalog names regressed");
}

/// Measured rates (see `model_names_resolve_to_an_architecture`), rounded down.
/// Measured (issue 24, ninth catalog pass): 258 of 265 names (catalog or known-unsupported, 97.4 %; the issue's bar is
/// 0.97 of names), 541 of 552 files, 232 of 265 names in the catalog. Before it: 251, 534 and 225. The 7 names still
/// unresolved have no config.json in any source read (data/corpus_models.txt says which and why).
const CORPUS_NAMES_FLOOR: f64 = 0.973;
const CORPUS_FILES_FLOOR: f64 = 0.98;
const CORPUS_CATALOG_NAMES_FLOOR: f64 = 0.875;
