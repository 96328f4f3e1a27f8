//! Python training scripts (issue 23 item 5, `src/load/python.rs`): the literal keyword arguments
//! of `TrainingArguments` / TRL config calls in a script that trains a trainer are the run, read
//! statically; a script that trains nothing is no run; a value known only at run time is never a
//! default; fixes edit the literal where it is written.

mod common;

use serde_json::Value;
use std::path::Path;

/// The script of transformers#29822 (a GaLore tutorial run on a Colab A100 40GB, out of memory),
/// as the reported case keeps it: Mistral-7B built `from_config` in fp32, batch 1, no checkpointing.
fn galore() -> String {
    std::fs::read_to_string(common::repo().join("fixtures/reported/hf-trainer-29822/train.py")).unwrap()
}

/// An accelerate config for DeepSpeed ZeRO-3 on 8 processes.
const ZERO3: &str =
    "compute_environment: LOCAL_MACHINE\ndistributed_type: DEEPSPEED\ndeepspeed_config:\n  zero_stage: 3\nmixed_precision: bf16\nnum_processes: 8\n";

fn json(dir: &Path, args: &[&str]) -> Value {
    let mut all = vec!["check", "--output-format", "json"];
    all.extend_from_slice(args);
    let output = common::trainlint_in(dir, &all);
    serde_json::from_str(&common::stdout(&output)).unwrap_or_else(|e| panic!("{e}: {}{}", common::stdout(&output), common::stderr(&output)))
}

fn codes(report: &Value) -> Vec<(String, String)> {
    report["diagnostics"].as_array().unwrap().iter().map(|d| (d["code"].as_str().unwrap().to_owned(), d["file"].as_str().unwrap().to_owned())).collect()
}

#[test]
fn a_training_script_is_walked_and_checked_as_the_run_its_literals_describe() {
    let dir = common::fresh_dir("python-walk");
    std::fs::write(dir.join("train.py"), galore()).unwrap();
    // Builds a trainer to compare its logits and never trains it (maxtext's GRPO correctness test).
    std::fs::write(
        dir.join("compare_logits.py"),
        "cfg = GRPOConfig(output_dir='o', per_device_train_batch_size=4)\nt = GRPOTrainer(model='meta-llama/Llama-3.1-8B', args=cfg)\nlogits = t.model(x)\n",
    )
    .unwrap();
    // A test suite's training script: a test, not a run.
    std::fs::create_dir_all(dir.join("tests")).unwrap();
    std::fs::write(dir.join("tests/test_sft.py"), galore()).unwrap();
    std::fs::write(dir.join("tests/train_helper.py"), galore()).unwrap();
    // No training call at all.
    std::fs::write(dir.join("utils.py"), "import os\n\ndef helper():\n    return os.getcwd()\n").unwrap();
    let report = json(&dir, &["--gpu", "a100-40gb", "."]);
    let found = codes(&report);
    assert!(found.contains(&("MEM001".into(), "train.py".into())), "{found:?}");
    assert!(found.iter().all(|(_, file)| file == "train.py"), "{found:?}");
    let mem = report["diagnostics"].as_array().unwrap().iter().find(|d| d["code"] == "MEM001").unwrap();
    // At the batch's literal: line 11, `per_device_train_batch_size=1`.
    assert_eq!((mem["line"].as_u64(), mem["column"].as_u64()), (Some(11), Some(33)), "{mem:#}");
    let files = common::stdout(&common::trainlint_in(&dir, &["check", "--show-files", "."]));
    assert!(files.lines().any(|l| l.starts_with("train.py") && l.contains("checked as hf-trainer")), "{files}");
    assert!(files.lines().any(|l| l.starts_with("compare_logits.py") && l.contains("skipped")), "{files}");
    assert!(!files.contains("tests/"), "a test suite's scripts are not walked:\n{files}");
    assert!(!files.contains("utils.py"), "a Python file that calls no training arguments is not walked:\n{files}");
    let shown = common::stdout(&common::trainlint_in(&dir, &["show", "train.py"]));
    assert!(shown.contains("a Python training script: the literal keyword arguments of `TrainingArguments(...)` (line 8), trained at line 31"), "{shown}");
    assert!(shown.contains("mistralai/Mistral-7B-v0.1 train.py:16"), "{shown}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_setting_known_only_at_run_time_gives_no_memory_verdict_rather_than_a_default() {
    let dir = common::fresh_dir("python-runtime");
    // `bf16` decided when the script runs: fp32 would be the default, and a wrong one.
    let text = galore().replace("    optim=\"galore_adamw\",\n", "    optim=\"galore_adamw\",\n    bf16=torch.cuda.is_bf16_supported(),\n");
    std::fs::write(dir.join("train.py"), &text).unwrap();
    let report = json(&dir, &["--gpu", "a100-40gb", "--show-infos", "train.py"]);
    let found = codes(&report);
    assert!(!found.iter().any(|(code, _)| code == "MEM001" || code == "MEM002"), "{found:?}");
    assert!(found.iter().any(|(code, _)| code == "MEM004"), "{found:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_fix_edits_the_literal_where_it_is_written_and_nothing_else() {
    let dir = common::fresh_dir("python-fix");
    // `evaluation_strategy` was renamed `eval_strategy` (transformers 4.46): MIG004's fix renames the keyword.
    let text = galore().replace("    max_steps=100,\n", "    max_steps=100,\n    evaluation_strategy = \"steps\",\n");
    std::fs::write(dir.join("train.py"), &text).unwrap();
    let output = common::trainlint_in(&dir, &["check", "--fix", "--show-infos", "--gpu", "a100-40gb", "train.py"]);
    let fixed = std::fs::read_to_string(dir.join("train.py")).unwrap();
    assert_eq!(fixed, text.replace("evaluation_strategy = \"steps\"", "eval_strategy = \"steps\""), "{}", common::stdout(&output));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_launch_line_that_runs_the_script_gives_its_world_and_accelerate_plugin() {
    let dir = common::fresh_dir("python-launch");
    std::fs::write(dir.join("train.py"), galore()).unwrap();
    std::fs::write(dir.join("run.sh"), "#!/bin/bash\naccelerate launch --config_file zero3.yaml --num_processes 8 train.py\n").unwrap();
    std::fs::write(dir.join("zero3.yaml"), ZERO3).unwrap();
    let shown = common::stdout(&common::trainlint_in(&dir, &["show", "train.py"]));
    assert!(shown.contains("effective batch: 8 = 1 micro batch × 1 accumulation × 8 data-parallel world (world size 8 from run.sh:2"), "{shown}");
    // ZeRO-3 over 8 GPUs in bf16: the 7B model's states are sharded, and the run fits a 40 GB card.
    let report = json(&dir, &["--gpu", "a100-40gb", "train.py"]);
    let found = codes(&report);
    assert!(!found.iter().any(|(code, _)| code == "MEM001"), "{found:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// TRL's `examples/scripts/sft_gemma3.py` layout: an `SFTConfig` that leaves `gradient_checkpointing`
/// and `bf16` unwritten, launched by the command its module docstring shows.
const TRL_EXAMPLE: &str = r#"# Copyright 2020-2026 The HuggingFace Team. All rights reserved.

"""
Train on the Codeforces COTS dataset.

accelerate launch --config_file zero3.yaml sft.py
"""

from transformers import AutoModelForCausalLM
from trl import SFTConfig, SFTTrainer


def main():
    model_id = "Qwen/Qwen2.5-7B"
    model = AutoModelForCausalLM.from_pretrained(model_id)
    training_args = SFTConfig(
        output_dir="out",
        max_length=8192,
        per_device_train_batch_size=1,
        gradient_accumulation_steps=8,
    )
    trainer = SFTTrainer(args=training_args, model=model)
    trainer.train()


if __name__ == "__main__":
    main()
"#;

#[test]
fn trl_configs_take_their_releases_defaults_and_the_docstrings_launch() {
    let dir = common::fresh_dir("python-trl");
    std::fs::write(dir.join("sft.py"), TRL_EXAMPLE).unwrap();
    std::fs::write(dir.join("zero3.yaml"), ZERO3).unwrap();
    let roles = |dir: &Path| {
        let shown = common::stdout(&common::trainlint_in(dir, &["show", "--output-format", "json", "sft.py"]));
        serde_json::from_str::<Value>(&shown).unwrap_or_else(|e| panic!("{e}: {shown}"))
    };
    let shown = common::stdout(&common::trainlint_in(&dir, &["show", "sft.py"]));
    // No TRL release stated: the latest's defaults, said so.
    assert!(
        shown.contains(
            "with `bf16` true (TRL's default since 0.19) and `gradient_checkpointing` true (TRL's default since 0.22); the project states no TRL release"
        ),
        "{shown}"
    );
    assert!(shown.contains("world size 8 from sft.py:6 (the config's header comment"), "{shown}");
    let json = roles(&dir);
    let text = json.to_string();
    assert!(text.contains("\"activation_checkpointing\"") && text.contains("bf16-mixed"), "{json:#}");
    // TRL 0.21 had neither default on (checkpointing since 0.22), 0.18 not bf16 either.
    std::fs::write(dir.join("requirements.txt"), "trl==0.21.0\n").unwrap();
    let shown = common::stdout(&common::trainlint_in(&dir, &["show", "sft.py"]));
    assert!(shown.contains("with `bf16` true (TRL's default since 0.19)") && !shown.contains("gradient_checkpointing` true"), "{shown}");
    std::fs::write(dir.join("requirements.txt"), "trl==0.18.2\n").unwrap();
    let shown = common::stdout(&common::trainlint_in(&dir, &["show", "sft.py"]));
    assert!(!shown.contains("TRL's default since"), "{shown}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_python_file_named_that_trains_nothing_is_not_a_training_config() {
    let dir = common::fresh_dir("python-named");
    std::fs::write(
        dir.join("infer.py"),
        "from transformers import AutoModelForCausalLM\nm = AutoModelForCausalLM.from_pretrained('meta-llama/Llama-3.1-70B')\n",
    )
    .unwrap();
    // As pre-commit passes them: an empty `__init__.py` (no empty config: a module with nothing in
    // it) and a test suite's training script (no run) are not errors either.
    std::fs::write(dir.join("__init__.py"), "").unwrap();
    std::fs::write(dir.join("test_train.py"), galore()).unwrap();
    let output = common::trainlint_in(&dir, &["check", "--gpu", "rtx-4090", "infer.py", "__init__.py", "test_train.py"]);
    assert_eq!(output.status.code(), Some(0), "{}", common::stdout(&output));
    assert!(common::stdout(&output).contains("3 files named are not recognised as training configs"), "{}", common::stdout(&output));
    std::fs::remove_dir_all(&dir).unwrap();
}
