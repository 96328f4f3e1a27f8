//! The memory model against its peers and the seeds' own arithmetic.
//!
//! - DeepSpeed's ZeRO-2/3 model-state estimators (`deepspeed_mem_cases.json`,
//!   current-code values): reproduced exactly, by the functions and through
//!   `trainlint estimate`.
//! - accelerate's `estimate-memory` fp32 training row: reproduced exactly.
//!   Its mixed-precision row takes the *largest* component (`max(values)`),
//!   where trainlint adds everything that is alive at the optimizer step
//!   (fp32 weights + 16-bit copies + fp32 gradients + Adam moments, HF's
//!   18 B/param); the test states both values.
//! - The seeds: AAM attention 0.74 GB per layer, embeddings 0.16 GB; seed 000's
//!   spectrum loss 0.77 GB at 96 × 100 × 20,000 bins and 7,500 bins after
//!   bin_size 0.2 / max_mz 1500.

mod common;

use std::path::PathBuf;
use trainlint::estimate::zero;

fn cases(name: &str) -> Option<serde_json::Value> {
    let shared = common::shared()?;
    Some(serde_json::from_str(&std::fs::read_to_string(shared.join("peers").join(name)).unwrap()).unwrap())
}

#[test]
fn deepspeed_zero_estimators_exactly() {
    let Some(cases) = cases("deepspeed_mem_cases.json") else { return };
    let mut checked = 0;
    for case in cases.as_array().unwrap() {
        let Some(expected) = case.get("current_code_output_bytes") else { continue };
        let i = &case["inputs"];
        let p = i["total_params"].as_f64().unwrap();
        let (n, nodes, f) = (i["num_gpus_per_node"].as_u64().unwrap(), i["num_nodes"].as_u64().unwrap(), i["additional_buffer_factor"].as_f64().unwrap());
        let got = match case["estimator"].as_str().unwrap() {
            "zero2" => zero::zero2(p, n, nodes, i["cpu_offload"].as_bool().unwrap(), f),
            "zero3" => zero::zero3(
                p,
                i["largest_layer_params"].as_f64().unwrap(),
                n,
                nodes,
                i["cpu_offload"].as_bool().unwrap(),
                i["cpu_offload_params"].as_bool().unwrap(),
                i["zero_init"].as_bool().unwrap(),
                f,
            ),
            other => panic!("{other}"),
        };
        assert_eq!(got.gpu, expected["gpu"].as_u64().unwrap(), "gpu bytes for {i}");
        assert_eq!(got.cpu, expected["cpu"].as_u64().unwrap(), "cpu bytes for {i}");
        checked += 1;
    }
    assert_eq!(checked, 8, "every case with current-code bytes");
}

fn temp_config(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("trainlint-mem-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("config.yaml");
    std::fs::write(&path, text).unwrap();
    path
}

fn estimate(path: &std::path::Path, extra: &[&str]) -> serde_json::Value {
    let text = path.display().to_string();
    let mut args = vec!["estimate", "--output-format", "json", text.as_str()];
    args.extend_from_slice(extra);
    let output = common::trainlint(&args);
    let value: serde_json::Value =
        serde_json::from_str(&common::stdout(&output)).unwrap_or_else(|e| panic!("{e}: {}{}", common::stdout(&output), common::stderr(&output)));
    // One shape for one target or many (schemas/estimate-output.schema.json): the one estimate is the list's only entry.
    assert_eq!(value["version"], 1, "{value:#}");
    let estimates = value["estimates"].as_array().unwrap_or_else(|| panic!("{value:#}"));
    assert_eq!(estimates.len(), 1, "{value:#}");
    estimates[0].clone()
}

fn component(estimate: &serde_json::Value, name: &str) -> f64 {
    estimate["components"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"].as_str().unwrap().starts_with(name))
        .unwrap_or_else(|| panic!("no {name} in {estimate:#}"))["bytes"]
        .as_f64()
        .unwrap()
}

/// A row of the other moment of the step (`off_peak`), by the start of its name.
fn off_peak(estimate: &serde_json::Value, name: &str) -> f64 {
    estimate["off_peak"]["components"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"].as_str().unwrap().starts_with(name))
        .unwrap_or_else(|| panic!("no {name} off the peak in {estimate:#}"))["bytes"]
        .as_f64()
        .unwrap()
}

/// open-r1's README GRPO command of 2025-01-29 (open-r1 issue 100, an OOM on A100 40GB):
/// DeepSeek-R1-Distill-Qwen-7B (Qwen2.5-7B's shape: 7,615,616,512 parameters, 28 layers, 4 KV heads
/// of 128, vocabulary 152,064) under ZeRO-3 over 8 processes in bf16, per-device batch 1,
/// `max_prompt_length` 256 + `max_completion_length` 256 (GRPOConfig's default) = 512 tokens,
/// `num_generations` 8 (its default), no vLLM. TRL 0.14 and the newest release price it differently
/// (`estimate::grpo`).
#[test]
fn grpo_by_trl_release_on_the_open_r1_readme_command() {
    let gpu = ["--gpu", "a100-40gb"];
    // `trl==0.14.0` (the fixture's requirements.txt): the per-device batch counts prompts.
    let old = estimate(std::path::Path::new("fixtures/memory/grpo_trl014/train.sh"), &gpu);
    assert_eq!(old["peak_phase"], "backward", "{old:#}");
    // The reference model (always loaded in 0.14), sharded by ZeRO-3: 7,615,616,512 × 2 B ÷ 8.
    assert_eq!(component(&old, "reference model"), 1_903_904_128.0);
    // GRPO's log-probabilities: 8 completions × (256 + 1) kept logits × 152,064 × (2 + 2) B.
    assert_eq!(component(&old, "logits"), 1_250_574_336.0);
    // Generation, the other moment: the whole policy gathered, 7,615,616,512 × 2 B, and the KV
    // cache of 8 completions × 512 tokens × 28 layers × 2 × 4 × 128 × 2 B (57,344 B a token).
    assert_eq!(off_peak(&old, "GRPO generation: policy gathered"), 15_231_233_024.0);
    assert_eq!(off_peak(&old, "GRPO generation: KV cache"), 234_881_024.0);
    // No version stated: priced as the newest release (0.19+: one completion per sample, generated
    // for the 16 accumulation steps at once, `beta` 0 by default: no reference model), whose peak
    // is the generation: 16 × 512 × 57,344 B of KV cache.
    let new = estimate(std::path::Path::new("fixtures/published/hf/trl-openr1-100/train.sh"), &gpu);
    assert_eq!(new["peak_phase"], "generation", "{new:#}");
    assert_eq!(component(&new, "GRPO generation: policy gathered"), 15_231_233_024.0);
    assert_eq!(component(&new, "GRPO generation: KV cache"), 469_762_048.0);
    assert!(new["components"].as_array().unwrap().iter().all(|c| c["name"] != "reference model"), "{new:#}");
    // 0.14 trains each prompt as its 8 completions: 8 × the activations of one.
    let one = off_peak(&new, "activations (transformer)");
    assert!((component(&old, "activations (transformer)") / one - 8.0).abs() < 1e-9);
    // Unsettled, the band spans both: its high end covers 0.14's, its low end is no higher than
    // the newest's own; the OOM is predicted (MEM002: the lengths only cap the samples).
    assert!(new["high_bytes"].as_f64() >= old["high_bytes"].as_f64(), "{new:#}");
    assert!(new["low_bytes"].as_f64() <= old["low_bytes"].as_f64(), "{new:#}");
    assert_eq!((old["verdict"].as_str(), new["verdict"].as_str()), (Some("may-not-fit"), Some("may-not-fit")));
    let note = new["notes"].as_array().unwrap().iter().filter_map(|n| n.as_str()).find(|n| n.contains("GRPO priced as")).unwrap_or_default().to_owned();
    assert!(note.starts_with("no file states the project's TRL version: GRPO priced as TRL 0.19 and later"), "{note}");
}

/// A recipe with no GRPO key is GRPO's when the launch that passes it runs a GRPO script (open-r1's
/// `grpo.py --config recipes/…/config.yaml`): the program reaches the dialect through the launch.
#[test]
fn a_recipe_launched_by_a_grpo_script_is_grpo() {
    let dir = common::fresh_dir("grpo-linked");
    std::fs::create_dir_all(dir.join(".git")).unwrap();
    std::fs::create_dir_all(dir.join("recipes")).unwrap();
    let recipe = "model_name_or_path: Qwen/Qwen2.5-1.5B-Instruct\nbf16: true\nper_device_train_batch_size: 4\nmax_prompt_length: 512\noutput_dir: out\nlogging_steps: 10\n";
    std::fs::write(dir.join("recipes/config.yaml"), recipe).unwrap();
    let estimate_of = |script: &str| {
        std::fs::write(dir.join("train.sh"), format!("torchrun --nproc_per_node 2 src/{script} --config recipes/config.yaml\n")).unwrap();
        let output = common::trainlint_in(&dir, &["estimate", "--output-format", "json", "recipes/config.yaml", "--gpu", "a100-80gb"]);
        let value: serde_json::Value = serde_json::from_str(&common::stdout(&output)).unwrap_or_else(|e| panic!("{e}: {}", common::stderr(&output)));
        value["estimates"][0].clone()
    };
    let grpo = estimate_of("grpo.py");
    let notes = grpo["notes"].to_string();
    assert!(notes.contains("GRPO priced as"), "{grpo:#}");
    // 512 prompt + 256 completion tokens (GRPOConfig's default), the logits of 257 of them.
    assert!(notes.contains("the estimate is at 768 tokens per sample"), "{notes}");
    assert!(grpo["components"].to_string().contains("257 completion tokens"), "{grpo:#}");
    let sft = estimate_of("sft.py");
    assert!(!sft["notes"].to_string().contains("GRPO"), "{sft:#}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Axolotl's GRPO (`fixtures/memory/axolotl_grpo.yaml`, written as its `docs/grpo.qmd` and
/// `examples/` write it): `rl: grpo` with the
/// GRPOConfig values under `trl:` (axolotl @ 067b021c `GRPOStrategy.set_training_args_kwargs`,
/// `trl.beta` → `beta` in `core/builders/rl.py`), `micro_batch_size` the per-device batch of
/// completions. Qwen2.5-1.5B (1,543,714,304 parameters, 28 layers, 2 KV heads of 128, vocabulary
/// 151,936), a full fine-tune in bf16 (loaded in bf16: 2 B a parameter), flash attention.
#[test]
fn axolotl_grpo_is_priced_by_the_trl_its_version_pins() {
    let dir = common::fresh_dir("axolotl-grpo");
    std::fs::create_dir_all(dir.join(".git")).unwrap();
    let config = std::fs::read_to_string(common::repo().join("fixtures/memory/axolotl_grpo.yaml")).unwrap();
    std::fs::write(dir.join("grpo.yaml"), &config).unwrap();
    let estimate_with = |requirements: Option<&str>| {
        match requirements {
            Some(text) => std::fs::write(dir.join("requirements.txt"), text).unwrap(),
            None => {
                let _ = std::fs::remove_file(dir.join("requirements.txt"));
            }
        }
        let output = common::trainlint_in(&dir, &["estimate", "--output-format", "json", "grpo.yaml", "--gpu", "a100-80gb"]);
        let value: serde_json::Value = serde_json::from_str(&common::stdout(&output)).unwrap_or_else(|e| panic!("{e}: {}", common::stderr(&output)));
        value["estimates"][0].clone()
    };
    let grpo_note = |estimate: &serde_json::Value| {
        estimate["notes"].as_array().unwrap().iter().filter_map(|n| n.as_str()).find(|n| n.contains("GRPO priced as")).unwrap_or_default().to_owned()
    };
    let row = |estimate: &serde_json::Value, name: &str| {
        let moments = [&estimate["components"], &estimate["off_peak"]["components"]];
        moments
            .iter()
            .filter_map(|m| m.as_array())
            .flatten()
            .find(|c| c["name"].as_str().is_some_and(|n| n.starts_with(name)))
            .map(|c| c["bytes"].as_f64().unwrap())
    };

    // No Axolotl version stated: Axolotl's GRPO has pinned TRL 0.15 or later since v0.7.0, so the
    // releases are 0.15 to 0.19+ (never 0.14), priced as the newest.
    let newest = estimate_with(None);
    let note = grpo_note(&newest);
    assert!(note.starts_with("the TRL release is one of TRL 0.15 to 0.19 and later (Axolotl's GRPO pins TRL 0.15 or later"), "{note}");
    assert!(note.contains("GRPO priced as TRL 0.19 and later"), "{note}");
    // `trl.beta` 0.001: the reference model, 1,543,714,304 × 2 B.
    assert_eq!(row(&newest, "reference model"), Some(3_087_428_608.0));
    // The logits: micro batch 2 × (1,024 completion tokens + 1) × 151,936 × (2 + 2) B.
    assert_eq!(row(&newest, "logits"), Some(1_245_875_200.0));
    // One generation per accumulation window (0.18+: `steps_per_generation` defaults to the
    // accumulation, which Axolotl does not pass): 2 × 64 = 128 completions × 2,048 tokens
    // (`sequence_len`) × 28 layers × 2 × 2 KV heads × 128 × 2 B (28,672 B a token), 7 GiB: the
    // peak, 19.48 GiB (weights, states and reference 11.50 GiB + 1000 MiB of context + 7 GiB),
    // above the loss's backward, 16.84 GiB (the same 11.50 GiB and context, the accumulated
    // gradients 2.88 GiB, 2 × 28 × 2,048 × 1,536 × 2 B = 336 MiB of checkpointed inputs, the logits).
    assert_eq!(row(&newest, "GRPO generation: KV cache"), Some(7_516_192_768.0));
    assert_eq!(newest["peak_phase"], "generation", "{newest:#}");
    // No ZeRO-3: nothing gathered.
    assert_eq!(row(&newest, "GRPO generation: policy gathered"), None);

    // Axolotl 0.7.0 pins `trl==0.15.0`: one generation per micro batch (2 × 2,048 × 28,672 B,
    // 112 MiB), so the peak is the loss's backward, with the reference model (always in 0.15).
    let v07 = estimate_with(Some("axolotl==0.7.0\n"));
    let note = grpo_note(&v07);
    assert!(note.starts_with("GRPO priced as TRL 0.15 "), "{note}");
    assert!(note.contains("requirements.txt"), "{note}");
    assert_eq!(v07["peak_phase"], "backward", "{v07:#}");
    assert_eq!(row(&v07, "reference model"), Some(3_087_428_608.0));
    assert!(v07["total_bytes"].as_f64() < newest["total_bytes"].as_f64(), "{v07:#}");
    // Axolotl 0.9.x pins `trl==0.17.0`: the accumulation window again, 128 completions.
    let v09 = estimate_with(Some("axolotl>=0.9,<0.10\n"));
    assert!(grpo_note(&v09).starts_with("GRPO priced as TRL 0.17 "), "{}", grpo_note(&v09));
    assert_eq!(row(&v09, "GRPO generation: KV cache"), Some(7_516_192_768.0));

    // `trl.use_vllm: true`: vLLM generates, no KV cache counted here; without `trl.beta`, TRL
    // 0.19+'s `beta` 0.0 loads no reference model.
    std::fs::write(dir.join("grpo.yaml"), config.replace("  beta: 0.001\n", "").replace("use_vllm: false", "use_vllm: true")).unwrap();
    let vllm = estimate_with(None);
    assert_eq!(row(&vllm, "GRPO generation: KV cache"), None, "{vllm:#}");
    assert_eq!(row(&vllm, "reference model"), None, "{vllm:#}");
    assert!(vllm["notes"].to_string().contains("generated by vLLM"), "{vllm:#}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn zero2_through_the_command_line() {
    let path = temp_config(
        "zero2",
        "trainlint: 1\nbatch: {micro_batch: 1}\nparallel: {devices: 8}\nmodel: {parameters: 2851000000}\nsharding: {zero_stage: 2}\ngpus: [a100-80gb]\n",
    );
    let value = estimate(&path, &[]);
    assert_eq!(component(&value, "model states (ZeRO-2"), 12_116_750_000.0);
    let path = temp_config(
        "zero2-offload",
        "trainlint: 1\nbatch: {micro_batch: 1}\nparallel: {devices: 8}\nmodel: {parameters: 2851000000}\nsharding: {zero_stage: 2, offload_optimizer: true}\ngpus: [a100-80gb]\n",
    );
    assert_eq!(component(&estimate(&path, &[]), "model states (ZeRO-2"), 5_702_000_000.0);
    let path = temp_config(
        "zero3",
        "trainlint: 1\nbatch: {micro_batch: 1}\nparallel: {devices: 8}\nmodel: {parameters: 2851000000, largest_layer_parameters: 32000000}\nsharding: {zero_stage: 3}\ngpus: [a100-80gb]\n",
    );
    assert_eq!(component(&estimate(&path, &[]), "model states (ZeRO-3"), 6_542_750_000.0);
}

#[test]
fn accelerate_fp32_row_exactly_and_the_mixed_precision_difference() {
    let Some(cases) = cases("accelerate_mem_cases.json") else { return };
    let bert = cases["cases"].as_array().unwrap().iter().find(|c| c["model"] == "bert-base-cased" && c["dtype"] == "float32").unwrap();
    let fp32_bytes = bert["fp32_bytes_from_test"]["total"].as_u64().unwrap();
    let breakdown = &bert["current_code_output"]["training_breakdown_bytes"];
    let accelerate_peak = ["model", "optimizer", "gradients", "step"].iter().map(|k| breakdown[k].as_u64().unwrap()).max().unwrap();
    let parameters = fp32_bytes / 4;
    let config = |precision: &str| {
        format!(
            "trainlint: 1\nbatch: {{micro_batch: 1}}\nparallel: {{devices: 1}}\nprecision: {precision}\noptimizer: adamw\nmodel: {{parameters: {parameters}}}\ngpus: [a100-80gb]\n"
        )
    };
    let value = estimate(&temp_config("acc32", &config("32-true")), &[]);
    let model_states = component(&value, "weights") + component(&value, "gradients") + component(&value, "optimizer states");
    assert_eq!(model_states as u64, accelerate_peak, "fp32: weights + gradients + AdamW = accelerate's 4 × fp32 size");
    assert_eq!(accelerate_peak, 1_732_997_120);

    // Mixed precision: accelerate reports max(model, gradients, optimizer, step) = 2 × fp32 size;
    // trainlint adds the tensors alive together at the optimizer step: fp32 weights 4 + gradients 4
    // + AdamW 8 B per parameter, and foreach AdamW's workspace (4 B); autocast's 16-bit copies
    // (2 B) are alive only from the forward to the backward (measured, data/measured_h200.json).
    let fp16 = cases["cases"].as_array().unwrap().iter().find(|c| c["model"] == "bert-base-cased" && c["dtype"] == "float16").unwrap();
    let b = &fp16["current_code_output"]["training_breakdown_bytes"];
    let accelerate_mixed = ["model", "optimizer", "gradients", "step"].iter().map(|k| b[k].as_u64().unwrap()).max().unwrap();
    let value = estimate(&temp_config("acc16", &config("16-mixed")), &[]);
    let ours = component(&value, "weights") + component(&value, "gradients") + component(&value, "optimizer states");
    assert_eq!(accelerate_mixed, 866_498_560);
    assert_eq!(ours as u64, parameters * 16, "documented difference: a sum, not accelerate's max");
    assert_eq!(value["peak_phase"], "step");
    assert_eq!(value["total_bytes"].as_u64(), Some(parameters * 20 + 1000 * 1024 * 1024), "+ the CUDA context");
    let copies = &value["off_peak"]["components"][0];
    assert_eq!((copies["name"].as_str(), copies["bytes"].as_u64()), (Some("16-bit weight copies (autocast)"), Some(parameters * 2)));
}

#[test]
fn aam_attention_and_embeddings_as_the_seed_computes_them() {
    let value = estimate(&common::repo().join("fixtures/seeds/003_aam.yaml"), &[]);
    let per_layer = component(&value, "ASV attention") / 4.0;
    assert_eq!(per_layer, 737_280_000.0, "[2048, 150, 150] × 4 heads × 4 B = 0.74 GB per layer");
    assert_eq!(component(&value, "sample attention") / 4.0, 33_554_432.0, "[2, 1024, 1024] × 4 heads × 4 B = 0.03 GB per layer");
    assert_eq!(component(&value, "embeddings"), 157_286_400.0, "[2048, 150, 128] × 4 B = 0.16 GB");
}

#[test]
fn seed_000_spectrum_loss_and_its_last_resort() {
    let config = common::repo().join("fixtures/seeds/000_spectrum_rtx4090/config.yaml");
    let value = estimate(&config, &["--micro-batch", "96"]);
    assert_eq!(component(&value, "gaussian spectrum loss"), 768_000_000.0, "96 × 100 × 20,000 bins × 4 B ≈ 0.8 GB");
    let text = std::fs::read_to_string(&config).unwrap().replace("bin_size: 0.1 ", "bin_size: 0.2 ").replace("max_mz: 2000.0", "max_mz: 1500.0");
    let path = temp_config("seed000", &text);
    let value = estimate(&path, &["--micro-batch", "96"]);
    assert_eq!(component(&value, "gaussian spectrum loss"), 288_000_000.0, "7,500 bins: 96 × 100 × 7,500 × 4 B");
}

#[test]
fn calibration_with_two_points_reproduces_them() {
    let config = common::repo().join("fixtures/seeds/000_spectrum_rtx4090/config.yaml");
    for (micro, peak_mib) in [("48", 16212.0), ("96", 24564.0)] {
        let value = estimate(&config, &["--micro-batch", micro]);
        assert!((value["total_bytes"].as_f64().unwrap() - peak_mib * 1048576.0).abs() < 2.0, "{micro}: {value:#}");
        assert_eq!(value["calibration"]["points"], 2);
        assert!(value["calibration"]["residual_bytes"].as_f64().unwrap() < 1.0);
    }
}

#[test]
fn seed_004_plan_keeps_one_effective_batch_on_four_gpus() {
    let output = common::trainlint(&[
        "plan",
        "fixtures/seeds/004_naics_embedder/config.yaml",
        "--gpu",
        "quadro-rtx-6000",
        "--gpu",
        "v100-32gb",
        "--gpu",
        "a100-40gb",
        "--gpu",
        "a100-80gb",
        "--output-format",
        "json",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", common::stderr(&output));
    let rows: Vec<serde_json::Value> = serde_json::from_str(&common::stdout(&output)).unwrap();
    assert_eq!(rows.len(), 4 * 5, "four targets × five stages");
    for row in &rows {
        assert_eq!(row["effective_batch"], 225, "{row}");
        let (micro, accumulation) = (row["micro_batch"].as_u64().unwrap(), row["accumulation"].as_u64().unwrap());
        assert_eq!(micro * accumulation, 225, "{row}");
        assert!(row["fits"].as_bool().unwrap());
        assert!(row["peak_bytes"].as_f64().unwrap() <= row["usable_bytes"].as_f64().unwrap());
    }
    let text = common::stdout(&common::trainlint(&["plan", "fixtures/seeds/004_naics_embedder/config.yaml", "--gpu", "quadro-rtx-6000", "--stage", "02"]));
    assert!(text.contains("quadro-rtx-6000") && text.contains("45") && text.contains("225"), "{text}");
}

/// Issue 16: `estimate` said "fits ≤ 81" while `plan` picked 45 without saying why.
/// Both now report the most that may fit (the band's low end), the most that surely fits
/// (its high end, the plan's limit), and the plan.
#[test]
fn estimate_and_plan_agree_on_the_headroom() {
    // A 350M transformer at 2,048 tokens on a 24 GB card: its band is wide, so the most that
    // may fit (the band's low end) and the most that surely fits (the high end) differ.
    let config = "trainlint: 1\nbatch: {micro_batch: 8, accumulation: 8, effective_batch: 64}\nparallel: {devices: 1}\nprecision: bf16-mixed\noptimizer: adamw\nmodel: {parameters: 350000000, sequence_length: 2048, hidden_size: 1024, layers: 24, heads: 16, vocab_size: 50257, attention: flash, activation_checkpointing: full}\n";
    let path = temp_config("plan-agree", config);
    let args = [path.to_str().unwrap(), "--gpu", "rtx-4090"];
    let value = estimate_json(&args);
    let e = &value["estimates"][0];
    let (most, surely) = (e["max_micro_batch"].as_u64().unwrap(), e["max_micro_batch_with_headroom"].as_u64().unwrap());
    assert!(surely < most, "{e:#}");
    let rows: Vec<serde_json::Value> =
        serde_json::from_str(&common::stdout(&common::trainlint(&[&["plan"][..], &args, &["--output-format", "json"]].concat()))).unwrap();
    assert_eq!((rows[0]["max_micro_batch"].as_u64(), rows[0]["max_micro_batch_with_headroom"].as_u64()), (Some(most), Some(surely)));
    assert_eq!(e["plan"]["micro_batch"], rows[0]["micro_batch"]);
    assert_eq!(e["plan"]["accumulation"], rows[0]["accumulation"]);
    assert_eq!(e["plan"]["why_smaller"], rows[0]["why_smaller"]);
    // The plan is the largest micro batch up to the one that surely fits that divides 64.
    let planned = rows[0]["micro_batch"].as_u64().unwrap();
    assert_eq!(planned, (1..=surely).rev().find(|m| 64 % m == 0).unwrap());
    assert_eq!(rows[0]["accumulation"].as_u64(), Some(64 / planned));
    let why = rows[0]["why_smaller"].as_str().unwrap();
    assert!(why.contains(&format!("{surely} is the most whose band's high end fits")) && why.contains(&format!("{most} is the most that may fit")), "{why}");
    // The text of both commands says the same.
    let plan = common::stdout(&common::trainlint(&[&["plan"][..], &args].concat()));
    assert!(plan.contains(&format!("rtx-4090: {why}\n")), "{plan}");
    let text = common::stdout(&common::trainlint(&[&["estimate"][..], &args].concat()));
    assert!(text.contains(&format!("largest micro batch that may fit: {most}; that surely fits (the band's high end): {surely}\n")), "{text}");
    // The plan's high end fits usable memory; the estimate's does not (MAYBE).
    assert!(rows[0]["high_bytes"].as_f64().unwrap() <= rows[0]["usable_bytes"].as_f64().unwrap());
    assert_eq!(e["verdict"], "may-not-fit", "{e:#}");
    assert!(e["low_bytes"].as_f64().unwrap() <= e["usable_bytes"].as_f64().unwrap() && e["high_bytes"].as_f64().unwrap() > e["usable_bytes"].as_f64().unwrap());
}

fn estimate_json(args: &[&str]) -> serde_json::Value {
    let output = common::trainlint(&[&["estimate"][..], args, &["--output-format", "json"]].concat());
    serde_json::from_str(&common::stdout(&output)).unwrap_or_else(|e| panic!("{e}: {}", common::stderr(&output)))
}

#[test]
fn mem001_on_the_overflowing_stage_points_at_the_stage_file() {
    let output = common::trainlint(&["check", "--output-format", "json", "fixtures/seeds/004_naics_embedder"]);
    let value: serde_json::Value = serde_json::from_str(&common::stdout(&output)).unwrap();
    let mem: Vec<&serde_json::Value> = value["diagnostics"].as_array().unwrap().iter().filter(|d| d["code"] == "MEM001").collect();
    assert_eq!(mem.len(), 1, "{value:#}");
    assert_eq!(mem[0]["file"], "fixtures/seeds/004_naics_embedder/text_curriculum/01_stage.yaml");
    assert_eq!(mem[0]["stage"], "01");
    assert_eq!(mem[0]["gpu"], "quadro-rtx-6000");
    let fix = &mem[0]["fix"];
    assert_eq!(fix["applicability"], "unsafe");
    let edits = fix["edits"].as_array().unwrap();
    assert_eq!(edits.len(), 1, "{fix:#}");
    assert_eq!(edits[0]["file"], "fixtures/seeds/004_naics_embedder/text_curriculum/01_stage.yaml", "the stage file, not the base");
    assert_eq!(edits[0]["content"], "batch:\n  micro_batch: 15\n  accumulation: 15\n", "micro batch 15 × accumulation 15 = 225");
}

#[test]
fn expressions_are_never_code() {
    let path = temp_config(
        "evil",
        "trainlint: 1\nbatch: {micro_batch: 1}\nparallel: {devices: 1}\nmemory:\n  terms:\n    - name: evil\n      bytes: \"__import__('os').system('touch /tmp/pwned')\"\ngpus: [a100-80gb]\n",
    );
    let text = path.display().to_string();
    let output = common::trainlint(&["estimate", &text]);
    assert_eq!(output.status.code(), Some(2));
    assert!(common::stderr(&output).contains("memory term `evil`"), "{}", common::stderr(&output));
}

#[test]
fn one_precision_spelling_means_one_thing_in_the_memory_model() {
    let config = |precision: &str| format!("trainlint: 1\nbatch: {{micro_batch: 1}}\nprecision: {precision}\nmodel: {{parameters: 1000}}\ngpus: [a100-80gb]\n");
    // `double` is fp64 for RES002; the memory model read it as "not stated" (fp32) before the typed roles.
    let value = estimate(&temp_config("double", &config("double")), &[]);
    assert_eq!((component(&value, "weights"), component(&value, "gradients")), (8000.0, 8000.0), "{value:#}");
    assert!(!value["notes"].to_string().contains("precision"), "{value:#}");
    // `auto` is decided at run time: fp32 assumed, and said so.
    let value = estimate(&temp_config("auto", &config("auto")), &[]);
    assert_eq!(component(&value, "weights"), 4000.0);
    assert!(value["notes"].to_string().contains("precision `auto` is decided at run time"), "{value:#}");
    let value = estimate(&temp_config("bf16-true", &config("bf16-true")), &[]);
    assert_eq!((component(&value, "weights"), component(&value, "gradients")), (2000.0, 2000.0), "{value:#}");
}

/// A run whose micro batch 1 may fit usable memory but not surely (its band straddles it):
/// `plan` says that, not "does not fit".
#[test]
fn plan_says_when_micro_batch_one_fits_only_without_headroom() {
    // 350M parameters at 4,096 tokens on a 12 GB card: micro batch 1 may fit (the band's low
    // end) but not surely (its high end): no plan, and the reason says so.
    let config = "trainlint: 1\nbatch: {micro_batch: 8, accumulation: 8, effective_batch: 64}\nparallel: {devices: 1}\nprecision: bf16-mixed\noptimizer: adamw\nmodel: {parameters: 350000000, sequence_length: 4096, hidden_size: 1024, layers: 24, heads: 16, vocab_size: 50257, attention: flash, activation_checkpointing: full}\ngpus: [rtx-3060]\n";
    let path = temp_config("plan-headroom", config);
    let output = common::trainlint(&["plan", path.to_str().unwrap()]);
    let text = common::stdout(&output);
    assert!(
        text.contains("micro batch 1 may not fit: its band reaches ") && text.contains(" of 12.00 GiB usable (MEM002)"),
        "{text}{}",
        common::stderr(&output)
    );
}

/// Axolotl turns Cut Cross-Entropy on when its plugin is listed (`CutCrossEntropyArgs.cut_cross_entropy`
/// defaults to `True` since 0.9.0, PR #2562): the logits are never materialised whole, as with the
/// key set; `cut_cross_entropy: false` keeps them.
#[test]
fn axolotl_cce_plugin_listed_is_fused_logits() {
    let config = "base_model: Qwen/Qwen2.5-7B\nplugins:\n  - axolotl.integrations.cut_cross_entropy.CutCrossEntropyPlugin\nsequence_len: 4096\nmicro_batch_size: 2\ngradient_accumulation_steps: 4\nadapter: lora\nlora_r: 16\nlora_target_linear: true\nbf16: true\ngradient_checkpointing: true\nflash_attention: true\noptimizer: adamw_torch_fused\nlearning_rate: 0.0002\n";
    let fused = estimate(&temp_config("cce-on", config), &["--gpu", "a100-80gb"]);
    let kept = estimate(&temp_config("cce-off", &format!("{config}cut_cross_entropy: false\n")), &["--gpu", "a100-80gb"]);
    let logits = |e: &serde_json::Value| {
        e["components"].as_array().unwrap().iter().find(|c| c["name"].as_str().unwrap().starts_with("logits")).map_or(0.0, |c| c["bytes"].as_f64().unwrap())
    };
    // The vocabulary of 152,064 × 4096 tokens × 2 sequences upcast to fp32 is gigabytes; fused, a chunk.
    assert!(logits(&kept) > 4.0 * logits(&fused) && logits(&kept) > 2.0 * 1024.0 * 1024.0 * 1024.0, "{} vs {}", logits(&kept), logits(&fused));
    let shown = common::stdout(&common::trainlint(&["show", temp_config("cce-show", config).to_str().unwrap()]));
    assert!(shown.contains("logits") && shown.contains("fused") && shown.contains(":3"), "the default, shown at the plugins list\n{shown}");
}

/// bitsandbytes' paged optimizers keep their states in CUDA managed memory outside PyTorch's
/// allocator, paged to the host when the GPU is full (bitsandbytes `get_paged` →
/// `cudaMallocManaged`): not in the peak that decides an out-of-memory error, said in a note.
/// The same 8-bit states unpaged (`adamw_bnb_8bit`) are in it.
#[test]
fn paged_optimizer_states_are_not_in_the_peak() {
    let fixture = |name: &str| common::repo().join("fixtures/memory").join(name);
    let paged = estimate(&fixture("hf_paged_adamw_8bit.yaml"), &["--gpu", "rtx-4090"]);
    let unpaged = estimate(&fixture("hf_adamw_bnb_8bit.yaml"), &["--gpu", "rtx-4090"]);
    let states = component(&unpaged, "optimizer states");
    // Qwen2.5-0.5B, every parameter trained: 8-bit AdamW, 2 B per parameter.
    assert_eq!(states, 494_032_768.0 * 2.0, "{unpaged:#}");
    let rows = paged["components"].as_array().unwrap();
    assert!(rows.iter().all(|c| !c["name"].as_str().unwrap().starts_with("optimizer states")), "{paged:#}");
    assert!(paged["notes"].to_string().contains("bitsandbytes paged memory"), "{paged:#}");
    let (a, b) = (paged["total_bytes"].as_f64().unwrap(), unpaged["total_bytes"].as_f64().unwrap());
    assert!((b - a - states).abs() < 1.0, "paged {a}, unpaged {b}, states {states}");

    // torchtune's `bitsandbytes.optim.PagedAdamW` (32-bit states, fp32 whatever the dtype):
    // qwen2_5/3B_full_single_device.yaml fits a 24 GB card, as the recipe is published for.
    let torchtune = estimate(&fixture("torchtune_paged_adamw.yaml"), &["--gpu", "rtx-4090"]);
    assert!(torchtune["notes"].to_string().contains("paged_adamw_32bit: trainable parameters × 8 B"), "{torchtune:#}");
    assert_eq!(torchtune["fits"], true, "{torchtune:#}");
}

/// Every `optim` spelling of HF transformers' `OptimizerNames` (training_args.py @ fd798335)
/// is recognised: none falls back to AdamW with the "not recognised" note.
#[test]
fn every_hf_optimizer_name_is_recognised() {
    for name in [
        "adamw_torch",
        "adamw_torch_fused",
        "adamw_torch_xla",
        "adamw_torch_npu_fused",
        "adamw_apex_fused",
        "adafactor",
        "adamw_anyprecision",
        "adamw_torch_4bit",
        "adamw_torch_8bit",
        "ademamix",
        "sgd",
        "adagrad",
        "adamw_bnb_8bit",
        "adamw_8bit",
        "ademamix_8bit",
        "lion_8bit",
        "lion_32bit",
        "paged_adamw_32bit",
        "paged_adamw_8bit",
        "paged_ademamix_32bit",
        "paged_ademamix_8bit",
        "paged_lion_32bit",
        "paged_lion_8bit",
        "rmsprop",
        "rmsprop_bnb",
        "rmsprop_bnb_8bit",
        "rmsprop_bnb_32bit",
        "galore_adamw",
        "galore_adamw_8bit",
        "galore_adafactor",
        "galore_adamw_layerwise",
        "galore_adamw_8bit_layerwise",
        "galore_adafactor_layerwise",
        "lomo",
        "adalomo",
        "grokadamw",
        "schedule_free_radam",
        "schedule_free_adamw",
        "schedule_free_sgd",
        "apollo_adamw",
        "apollo_adamw_layerwise",
        "stable_adamw",
        "adamw_hf",
    ] {
        let text = std::fs::read_to_string(common::repo().join("fixtures/memory/hf_adamw_bnb_8bit.yaml")).unwrap().replace("adamw_bnb_8bit", name);
        let value = estimate(&temp_config(&format!("optim-{name}"), &text), &["--gpu", "rtx-4090"]);
        assert!(!value["notes"].to_string().contains("not recognised"), "{name}: {value:#}");
    }
}

/// HF `optim: galore_adamw` takes its rank from `optim_args` (`rank=64`), 128 when not given
/// (transformers `trainer.py` `_get_galore_optimizer`); `_layerwise` steps in the backward.
#[test]
fn hf_galore_rank_comes_from_optim_args() {
    let base = std::fs::read_to_string(common::repo().join("fixtures/memory/hf_adamw_bnb_8bit.yaml")).unwrap();
    let with = |optim: &str, args: &str| base.replace("optim: adamw_bnb_8bit", &format!("optim: {optim}\n{args}"));
    let rows = |value: &serde_json::Value| value["components"].to_string();
    let ranked = estimate(&temp_config("galore-64", &with("galore_adamw", "optim_args: \"rank=64, update_proj_gap=200, scale=0.25\"")), &["--gpu", "h100-sxm"]);
    assert!(rows(&ranked).contains("rank-64 moments"), "{ranked:#}");
    let default = estimate(&temp_config("galore-default", &with("galore_adamw", "")), &["--gpu", "h100-sxm"]);
    assert!(rows(&default).contains("rank-128 moments"), "{default:#}");
    let layerwise = estimate(&temp_config("galore-layerwise", &with("galore_adamw_layerwise", "")), &["--gpu", "h100-sxm"]);
    assert!(rows(&layerwise).contains("one parameter's gradient at a time"), "{layerwise:#}");
}

/// Axolotl's QLoRA loads the base double-quantized (`bnb_4bit_use_double_quant: True`) and, after
/// PEFT's `prepare_model_for_kbit_training`, casts the norms, embeddings and head back to the
/// compute dtype (axolotl `loaders/model.py` `_configure_embedding_dtypes` @ 067b021c): the base's
/// other parameters are 16-bit, not fp32.
#[test]
fn axolotl_qlora_base_is_double_quantized_and_cast_back() {
    let path = common::repo().join("fixtures/memory/axolotl_llama3_qlora.yml");
    let value = estimate(&path, &["--gpu", "rtx-4090"]);
    let base = value["components"].as_array().unwrap().iter().find(|c| c["name"] == "weights (frozen base)").unwrap().clone();
    let what = base["depends_on"].as_str().unwrap();
    assert!(what.contains("4-bit, double-quantized") && what.ends_with("the rest × 2 B"), "{base:#}");
}

/// QLoRA without activation checkpointing against the H100 measurements (data/measured_h100.json,
/// `max_memory_allocated`, without the CUDA context): bitsandbytes' `MatMul4Bit` keeps no input
/// (`ctx.tensors = (None, B)`), so an unprepared QLoRA holds what LoRA holds; PEFT's k-bit
/// preparation makes the MLP's saved tensors fp32 (+6·i per token and layer, measured).
#[test]
fn qlora_without_checkpointing_matches_the_h100_measurements() {
    let measured: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(common::repo().join("data/measured_h100.json")).unwrap()).unwrap();
    let rows = measured["rows"].as_array().unwrap();
    let mut checked = 0;
    for (id, model, prepared) in [
        ("qlora-tl-r16-all-bf16-mixed-s2048-m1-nockpt", "TinyLlama/TinyLlama-1.1B-intermediate-step-1431k-3T", true),
        ("qlora-tl-r16-all-bf16-mixed-s2048-m2-nockpt", "TinyLlama/TinyLlama-1.1B-intermediate-step-1431k-3T", true),
        ("qlora-tl-r16-all-bf16-mixed-s2048-m2-nockpt-noprep", "TinyLlama/TinyLlama-1.1B-intermediate-step-1431k-3T", false),
        ("qlora-l8b-r16-all-bf16-mixed-s2048-m1-nockpt", "meta-llama/Llama-3.1-8B", true),
        ("qlora-l8b-r16-all-bf16-mixed-s2048-m2-nockpt", "meta-llama/Llama-3.1-8B", true),
        ("qlora-l8b-r16-all-bf16-mixed-s2048-m1-nockpt-noprep", "meta-llama/Llama-3.1-8B", false),
    ] {
        let row = rows.iter().find(|r| r["id"] == id).unwrap_or_else(|| panic!("{id}"));
        let micro = row["micro_batch"].as_u64().unwrap();
        let text = format!(
            "trainlint: 1\nprecision: bf16-mixed\noptimizer: adamw\nbatch: {{micro_batch: {micro}}}\nparallel: {{devices: 1}}\nmodel: {{name: {model}, sequence_length: 2048, attention: sdpa, activation_checkpointing: none, logits: upcast, adapter: qlora, lora_rank: 16, lora_targets: all-linear, base_weights: int4, kbit_prepare: {prepared}}}\n"
        );
        let value = estimate(&temp_config(id, &text), &["--gpu", "h100-sxm"]);
        let tensors = value["total_bytes"].as_f64().unwrap() - component(&value, "CUDA context");
        let ratio = tensors / row["allocated_bytes"].as_f64().unwrap();
        assert!((ratio - 1.0).abs() < 0.04, "{id}: estimate / measured = {ratio:.3}");
        checked += 1;
    }
    assert_eq!(checked, 6);
}

/// bitsandbytes before 0.43.2 kept each 4-bit linear's input for the backward (`MatMul4Bit`:
/// `ctx.tensors = (A, B)`, fixed in bitsandbytes #1270): a project that pins such a release
/// (litgpt pinned `bitsandbytes==0.42.0` when it published its QLoRA table) keeps, per layer,
/// 2·s·(2h + q_dim + i) more; one that states no version is priced as the current release.
#[test]
fn qlora_on_bitsandbytes_before_0_43_2_keeps_the_4bit_inputs() {
    let config = std::fs::read_to_string(common::repo().join("fixtures/dialects/litgpt/config_hub/finetune/mistral-7b/qlora.yaml")).unwrap();
    let activations = |dir: &std::path::Path| {
        let path = dir.join("qlora.yaml");
        std::fs::write(&path, &config).unwrap();
        let value = estimate(&path, &["--gpu", "h100-sxm"]);
        (component(&value, "activations"), value["notes"].to_string())
    };
    let current = common::fresh_dir("bnb-current");
    let old = common::fresh_dir("bnb-0.42");
    std::fs::write(old.join("requirements.txt"), "litgpt\nbitsandbytes==0.42.0\n").unwrap();
    let ((now, _), (then, notes)) = (activations(&current), activations(&old));
    assert!(notes.contains("bitsandbytes before 0.43.2, as ") && notes.contains("`bitsandbytes==0.42.0`"), "{notes}");
    // Mistral-7B: h 4,096, q_dim 4,096, i 14,336, 32 layers; micro batch 4 × 1,024 tokens.
    let expected = 2.0 * 1024.0 * (2.0 * 4096.0 + 4096.0 + 14336.0) * 32.0 * 4.0;
    assert!((then - now - expected).abs() < 1.0, "{then} − {now} ≠ {expected}");
    // The manifest may state it too (`[frameworks] bitsandbytes`, as for the dialects).
    let stated = common::fresh_dir("bnb-manifest");
    std::fs::write(stated.join("trainlint.toml"), "[frameworks]\nbitsandbytes = \"0.41.0\"\n").unwrap();
    assert_eq!(activations(&stated).0, then);
}

/// Axolotl's `bf16: auto` is bf16 on a card that has it, else fp16 unless `fp16: false`, then
/// fp32 (`normalize_config`): each GPU target prices what the framework picks for it, and says so.
/// Found in the hand-checked corpus sample: an adapter run's `auto` was priced as fp32 everywhere.
#[test]
fn axolotl_bf16_auto_is_priced_as_it_resolves_on_each_card() {
    let config = "base_model: bigcode/starcoder2-3b\nload_in_4bit: true\nadapter: qlora\nlora_r: 32\nlora_target_linear: true\nsequence_len: 8192\nsample_packing: true\nmicro_batch_size: 2\ngradient_accumulation_steps: 8\nbf16: auto\nfp16: false\ngradient_checkpointing: true\nattn_implementation: flash_attention_2\n";
    let path = temp_config("axolotl-bf16-auto", config);
    let on = |gpu: &str| estimate(&path, &["--gpu", gpu]);
    let (ada, volta) = (on("rtx-4090"), on("v100-32gb"));
    let notes = |e: &serde_json::Value| e["notes"].to_string();
    assert!(notes(&ada).contains("resolves to bf16-mixed on rtx-4090"), "{ada:#}");
    assert!(notes(&volta).contains("resolves to 32-true on v100-32gb"), "{volta:#}");
    assert!(ada["total_bytes"].as_f64().unwrap() < volta["total_bytes"].as_f64().unwrap());
}

/// torchtune's Llama 3.2 Vision full fine-tunes (`recipes/configs/llama3_2_vision/11B_full.yaml`,
/// `90B_full.yaml`, copied as published) train the vision encoder and the fusion parameters and
/// freeze the decoder (`decoder_trainable: False`; `DeepFusionModel.__init__`): gradients and
/// AdamW states are priced for those parameters only, counted from the catalog's parts. The
/// decoder's own parameters are Llama 3.1's text model (8,030,261,248 for 11B, 70,553,706,496
/// for 90B), so the trained ones are 10,629,184,035 − 8,030,261,248 = 2,598,922,787 (11B) and
/// 88,552,318,523 − 70,553,706,496 = 17,998,612,027 (90B).
#[test]
fn torchtune_vision_full_finetune_trains_encoder_and_fusion_only() {
    let fixture = |name: &str| common::repo().join("fixtures/memory").join(name);
    for (file, world, parameters, trained) in [
        ("torchtune_llama3_2_vision_11B_full.yaml", "4", 10_629_184_035.0, 2_598_922_787.0),
        ("torchtune_llama3_2_vision_90B_full.yaml", "8", 88_552_318_523.0, 17_998_612_027.0),
    ] {
        let e = estimate(&fixture(file), &["--gpu", "rtx-4090", "--world-size", world]);
        let world: f64 = world.parse().unwrap();
        // Pure bf16 (`dtype: bf16`), FSDP over the world: every parameter's weight, the trained ones' gradients
        // (2 B) and fused AdamW's two bf16 moments (4 B).
        let weights = component(&e, "weights");
        assert!((weights / (parameters * 2.0 / world) - 1.0).abs() < 1e-6, "{file}: {e:#}");
        let gradients = component(&e, "gradients");
        let states = component(&e, "optimizer states");
        let share = gradients / weights;
        assert!((share * parameters / trained - 1.0).abs() < 0.01, "{file}: trained {} of {parameters}, expected {trained}", share * parameters);
        assert!((states / (trained * 4.0 / world) - 1.0).abs() < 0.01, "{file}: {e:#}");
        assert!(e["notes"].to_string().contains("as `model.decoder_trainable` says"), "{file}: {e:#}");
    }

    // The same 11B config with every part trained prices every parameter; without the switches,
    // the builder's defaults (`llama3_2_vision_11b(decoder_trainable=False, encoder_trainable=True,
    // fusion_trainable=True)`) give the published config's share.
    let text = std::fs::read_to_string(fixture("torchtune_llama3_2_vision_11B_full.yaml")).unwrap();
    let all = temp_config("tt-vision-all", &text.replace("decoder_trainable: False", "decoder_trainable: True"));
    let all = estimate(&all, &["--gpu", "rtx-4090", "--world-size", "4"]);
    assert!((component(&all, "gradients") / component(&all, "weights") - 1.0).abs() < 1e-9, "{all:#}");
    let unwritten: String = text.lines().filter(|l| !l.contains("_trainable:")).map(|l| format!("{l}\n")).collect();
    let defaults = estimate(&temp_config("tt-vision-defaults", &unwritten), &["--gpu", "rtx-4090", "--world-size", "4"]);
    let published = estimate(&fixture("torchtune_llama3_2_vision_11B_full.yaml"), &["--gpu", "rtx-4090", "--world-size", "4"]);
    assert_eq!(component(&defaults, "gradients"), component(&published, "gradients"));
    assert!(defaults["notes"].to_string().contains("`model.decoder_trainable (default)`"), "{defaults:#}");
    // Only the fusion parameters: 1,933,770,784.
    let fusion = text.replace("encoder_trainable: True", "encoder_trainable: False");
    let fusion = estimate(&temp_config("tt-vision-fusion", &fusion), &["--gpu", "rtx-4090", "--world-size", "4"]);
    let trained = component(&fusion, "gradients") / component(&fusion, "weights") * 10_629_184_035.0;
    assert!((trained / 1_933_770_784.0 - 1.0).abs() < 1e-6, "{trained}");
}

/// A checkpoint stored AQLM 2-bit (LLaMA-Factory's own example, `ISTA-DASLab/…-AQLM-2Bit-1x16`)
/// keeps its block linears at 2 bits per weight, not 16: the frozen base of Llama-3-8B is
/// 6.98 B block-linear parameters × 0.25 B plus 1.05 B embeddings and head × 2 B ≈ 3.6 GiB.
#[test]
fn an_aqlm_checkpoint_is_priced_at_two_bits_per_weight() {
    let text = "model_name_or_path: ISTA-DASLab/Meta-Llama-3-8B-Instruct-AQLM-2Bit-1x16\ntrust_remote_code: true\n\nstage: sft\ndo_train: true\nfinetuning_type: lora\nlora_rank: 8\nlora_target: all\n\ndataset: identity,alpaca_en_demo\ntemplate: llama3\ncutoff_len: 2048\n\nper_device_train_batch_size: 1\ngradient_accumulation_steps: 8\nlearning_rate: 1.0e-4\nnum_train_epochs: 3.0\nbf16: true\n";
    let e = estimate(&temp_config("lf-aqlm", text), &["--gpu", "rtx-4090"]);
    let base = component(&e, "weights (frozen base)") / 1073741824.0;
    assert!((3.3..3.9).contains(&base), "frozen base {base:.2} GiB: {e:#}");
    assert!(e["components"].to_string().contains("AQLM 2-bit"), "{e:#}");
    // Not bitsandbytes: its 4-bit matmul's saved input does not apply.
    assert!(!e["notes"].to_string().contains("bitsandbytes"), "{e:#}");
}

/// torchtune's `tensor_parallel_dim` splits each layer before FSDP shards it
/// (`recipes/full_finetune_distributed.py`: `self.tp_degree = cfg.get("tensor_parallel_dim", 1)`):
/// Llama-4-Maverick's full fine-tune at TP 8 gathers an eighth of each block per GPU, so it is not
/// called out of memory on every world (it was, at 34.86 GiB of gathered blocks), and the GPUs it
/// may fit on count the tensor-parallel degree.
#[test]
fn torchtune_tensor_parallel_divides_the_gathered_blocks() {
    let Some(shared) = common::shared() else { return };
    let config = shared.join("corpus/pytorch__torchtune/recipes/configs/llama4/maverick_17B_128E_full.yaml");
    let output = common::trainlint(&["check", "--exit-zero", "--output-format", "json", "--gpu", "rtx-4090", "--select", "MEM", config.to_str().unwrap()]);
    let json: serde_json::Value = serde_json::from_str(&common::stdout(&output)).expect("json");
    let found: Vec<(&str, &str)> =
        json["diagnostics"].as_array().unwrap().iter().map(|d| (d["code"].as_str().unwrap(), d["message"].as_str().unwrap())).collect();
    assert!(!found.iter().any(|(code, _)| *code == "MEM001"), "{found:?}");
    assert!(found.iter().any(|(_, message)| message.contains("× 8 tensor-parallel")), "{found:?}");
}
