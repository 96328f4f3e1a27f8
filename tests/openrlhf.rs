//! OpenRLHF launch lines through `trainlint show` / `check`: the dialect, its roles and the
//! effective batch of a script laid out as OpenRLHF's `examples/scripts/train_sft_llama.sh`
//! (OpenRLHF/OpenRLHF commit 14fe44c6) lays it out, launched directly with `deepspeed --module`.

mod common;

/// `examples/scripts/train_sft_llama.sh`'s flags, in its order, on a direct launch line with
/// the world stated (`--num_gpus 8`).
const TRAIN_SFT: &str = r#"set -x

deepspeed --num_gpus 8 --module openrlhf.cli.train_sft \
   --max_len 2048 \
   --dataset Open-Orca/OpenOrca \
   --input_key question \
   --output_key response \
   --train_batch_size 256 \
   --micro_train_batch_size 2 \
   --max_samples 500000 \
   --pretrain meta-llama/Meta-Llama-3-8B \
   --save_path ./checkpoint/llama3-8b-sft \
   --save_steps -1 \
   --logging_steps 1 \
   --eval_steps -1 \
   --zero_stage 2 \
   --max_epochs 1 \
   --bf16 \
   --flash_attn \
   --learning_rate 5e-6 \
   --load_checkpoint \
   --packing_samples \
   --gradient_checkpointing
    # --wandb [WANDB_TOKENS]
    # --packing_samples
"#;

fn show(dir: &std::path::Path) -> serde_json::Value {
    let output = common::trainlint_in(dir, &["show", "--output-format", "json", "train.sh"]);
    serde_json::from_str(&common::stdout(&output)).unwrap_or_else(|e| panic!("{e}: {}{}", common::stdout(&output), common::stderr(&output)))
}

fn script_dir(label: &str, text: &str) -> std::path::PathBuf {
    let dir = common::fresh_dir(label);
    std::fs::create_dir_all(dir.join(".git")).unwrap();
    std::fs::write(dir.join("train.sh"), text).unwrap();
    dir
}

#[test]
fn train_sft_launch_is_openrlhf_with_its_roles_and_batch() {
    let dir = script_dir("openrlhf-sft", TRAIN_SFT);
    let view = show(&dir);
    assert_eq!(view["dialect"], "openrlhf", "{}", view["dialect_reason"]);
    let role = |name: &str| (view["roles"][name]["value"].clone(), view["roles"][name]["line"].as_u64().unwrap_or(0));
    assert_eq!(role("model"), ("meta-llama/Meta-Llama-3-8B".into(), 11));
    assert_eq!(role("micro_batch"), (2.into(), 9));
    assert_eq!(role("global_batch"), (256.into(), 8));
    assert_eq!(role("sequence_length"), (2048.into(), 4));
    assert_eq!(role("zero_stage"), (2.into(), 16));
    assert_eq!(role("precision"), ("bf16-mixed".into(), 18));
    assert_eq!(role("attention"), ("flash".into(), 19));
    assert_eq!(role("activation_checkpointing"), ("full".into(), 23));
    // 256 ÷ (2 × 8) = 16 (DeepspeedStrategy.setup_distributed's accumulated_gradient).
    assert_eq!(view["batch"]["world_size"], 8);
    assert_eq!(view["batch"]["derived"]["accumulation"], 16);
    assert_eq!(view["effective_batch"], 256);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_indivisible_global_batch_stops_deepspeed_and_zero_stage_defaults_to_2() {
    let text = TRAIN_SFT.replace("--train_batch_size 256", "--train_batch_size 100").replace("   --zero_stage 2 \\\n", "").replace("   --flash_attn \\\n", "");
    let dir = script_dir("openrlhf-floor", &text);
    let view = show(&dir);
    assert_eq!(view["dialect"], "openrlhf");
    assert_eq!(view["roles"]["zero_stage"]["value"], 2, "the argparse default");
    assert_eq!(view["roles"]["attention"]["value"], "eager", "Actor without --flash_attn");
    let output = common::trainlint_in(&dir, &["check", "--output-format", "json", "."]);
    let value: serde_json::Value = serde_json::from_str(&common::stdout(&output)).unwrap();
    let codes: Vec<&str> = value["diagnostics"].as_array().unwrap().iter().map(|d| d["code"].as_str().unwrap()).collect();
    assert!(codes.contains(&"BAT003"), "100 ÷ (2 × 8) is not whole: {value:#}");
    assert_eq!(output.status.code(), Some(1));
    let _ = std::fs::remove_dir_all(&dir);
}
