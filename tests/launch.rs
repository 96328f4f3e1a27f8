//! Issue 15 items 1 and 6: the world size a project's launch scripts give the
//! configs they pass. Each test builds a repository the way its framework lays it
//! out, with the launch script teams write, and checks what `show` and `check` say.

mod common;

use std::path::{Path, PathBuf};

fn repo(label: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = common::fresh_dir(&format!("launch-{label}"));
    // A git work tree: a checked file's project (where its launch scripts are) is the repository.
    std::fs::create_dir_all(dir.join(".git")).unwrap();
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

fn show(dir: &Path, file: &str, args: &[&str]) -> String {
    let mut all = vec!["show"];
    all.extend_from_slice(args);
    all.push(file);
    let output = common::trainlint_in(dir, &all);
    format!("{}{}", common::stdout(&output), common::stderr(&output))
}

fn codes(dir: &Path, file: &str, args: &[&str]) -> Vec<String> {
    let mut all = vec!["check", "--output-format", "json"];
    all.extend_from_slice(args);
    all.push(file);
    let output = common::trainlint_in(dir, &all);
    let json: serde_json::Value = serde_json::from_str(&common::stdout(&output)).unwrap_or_else(|e| panic!("{e}: {}", common::stderr(&output)));
    json["diagnostics"].as_array().unwrap().iter().map(|d| d["code"].as_str().unwrap().to_owned()).collect()
}

const SBATCH: &str = "#!/bin/bash\n#SBATCH --job-name=pretrain\n#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=1\n#SBATCH --gpus-per-node=8\n#SBATCH --time=48:00:00\n\nexport PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\nMASTER_ADDR=$(scontrol show hostnames $SLURM_JOB_NODELIST | head -n 1)\n\nsrun torchrun \\\n  --nnodes $SLURM_NNODES \\\n  --nproc_per_node 8 \\\n  --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:29500 \\\n  train.py --deepspeed configs/ds_zero2.json --output_dir out\n";

/// `srun torchrun` under `#SBATCH --nodes=2`: 2 nodes × 8 processes = 16.
#[test]
fn sbatch_with_srun_torchrun_gives_the_deepspeed_config_its_world() {
    let ds = "{\n  \"train_batch_size\": 256,\n  \"train_micro_batch_size_per_gpu\": 4,\n  \"gradient_accumulation_steps\": 4,\n  \"zero_optimization\": {\"stage\": 2}\n}\n";
    let dir = repo("sbatch", &[("scripts/pretrain.sbatch", SBATCH), ("configs/ds_zero2.json", ds)]);
    let shown = show(&dir, "configs/ds_zero2.json", &[]);
    assert!(shown.contains("× 16 data-parallel world"), "{shown}");
    assert!(
        shown.contains("world size 16 from scripts/pretrain.sbatch:11 (torchrun --nnodes=2 × --nproc_per_node=8; $SLURM_NNODES = 2 from #SBATCH --nodes=2)"),
        "{shown}"
    );
    assert!(!codes(&dir, "configs/ds_zero2.json", &[]).contains(&"BAT006".to_owned()));
    // 128 ≠ 4 × 4 × 16: on the launched world the global batch is wrong (unknown world: W = 8 would hold).
    std::fs::write(dir.join("configs/ds_zero2.json"), ds.replace("256", "128")).unwrap();
    assert!(codes(&dir, "configs/ds_zero2.json", &[]).contains(&"BAT004".to_owned()));
    // `--world-size` on the command line wins over the launch.
    assert!(!codes(&dir, "configs/ds_zero2.json", &["--world-size", "8"]).contains(&"BAT004".to_owned()));
    assert!(show(&dir, "configs/ds_zero2.json", &["--world-size", "8"]).contains("world size from --world-size / the manifest"));
}

/// `accelerate launch --config_file` without `--num_processes`: the accelerate YAML's `num_processes`.
#[test]
fn accelerate_launch_reads_num_processes_from_its_config_file() {
    let accelerate = "compute_environment: LOCAL_MACHINE\ndistributed_type: MULTI_GPU\nmachine_rank: 0\nmixed_precision: bf16\nnum_machines: 1\nnum_processes: 4\nuse_cpu: false\n";
    let axolotl = "base_model: NousResearch/Llama-2-7b-hf\nmodel_type: LlamaForCausalLM\nadapter: lora\nsequence_len: 4096\nmicro_batch_size: 2\ngradient_accumulation_steps: 4\nnum_epochs: 1\noptimizer: adamw_torch\nlearning_rate: 0.0002\nbf16: true\n";
    let script =
        "#!/usr/bin/env bash\nset -euo pipefail\naccelerate launch --config_file configs/accelerate/4gpu.yaml -m axolotl.cli.train examples/llama-2/lora.yml\n";
    let dir = repo("accelerate", &[("train.sh", script), ("configs/accelerate/4gpu.yaml", accelerate), ("examples/llama-2/lora.yml", axolotl)]);
    let shown = show(&dir, "examples/llama-2/lora.yml", &[]);
    assert!(shown.contains("effective batch: 32 = 2 micro batch × 4 accumulation × 4 data-parallel world"), "{shown}");
    assert!(shown.contains("from train.sh:3 (accelerate launch --config_file configs/accelerate/4gpu.yaml (num_processes: 4))"), "{shown}");
    // With `--num_processes` on the line, the flag says it.
    std::fs::write(dir.join("train.sh"), script.replace("launch --config_file", "launch --num_processes 8 --config_file")).unwrap();
    assert!(show(&dir, "examples/llama-2/lora.yml", &[]).contains("× 8 data-parallel world"));
}

/// `deepspeed --include localhost:0,1,2`: three GPUs of this machine.
#[test]
fn deepspeed_include_counts_the_listed_gpus() {
    let ds = "{\"train_batch_size\": 24, \"train_micro_batch_size_per_gpu\": 4, \"gradient_accumulation_steps\": 2}\n";
    let script = "deepspeed --include localhost:0,1,2 --master_port 29501 train.py --deepspeed ds_config.json --model_name_or_path gpt2\n";
    let dir = repo("deepspeed", &[("run.sh", script), ("ds_config.json", ds)]);
    let shown = show(&dir, "ds_config.json", &[]);
    assert!(shown.contains("world size 3 from run.sh:1 (deepspeed --include localhost:0,1,2)"), "{shown}");
    // A hostfile: the machines decide; still unknown.
    std::fs::write(dir.join("run.sh"), "deepspeed --hostfile hostfile train.py --deepspeed ds_config.json\n").unwrap();
    assert!(codes(&dir, "ds_config.json", &[]).contains(&"BAT006".to_owned()));
}

/// `litgpt finetune_lora … --config … --devices 4`: jsonargparse's flag overrides the file's `devices: 1`.
#[test]
fn litgpt_cli_devices_override_the_config() {
    let config = "checkpoint_dir: checkpoints/meta-llama/Llama-2-7b-hf\nout_dir: out/finetune/lora-llama2-7b\nprecision: bf16-true\ndevices: 1\nnum_nodes: 1\nlora_r: 8\nlora_alpha: 16\nlora_query: true\nlora_value: true\ntrain:\n  global_batch_size: 16\n  micro_batch_size: 2\n  epochs: 1\n";
    let script =
        "#!/bin/bash\nlitgpt finetune_lora checkpoints/meta-llama/Llama-2-7b-hf \\\n  --config config_hub/finetune/llama-2-7b/lora.yaml \\\n  --devices 4\n";
    let dir = repo("litgpt", &[("finetune.sh", script), ("config_hub/finetune/llama-2-7b/lora.yaml", config)]);
    let shown = show(&dir, "config_hub/finetune/llama-2-7b/lora.yaml", &[]);
    assert!(shown.contains("4 data-parallel world"), "{shown}");
}

/// Hydra: `python src/train.py trainer.devices=4 experiment=x`; the config found through `@hydra.main`.
#[test]
fn hydra_overrides_on_the_command_line_apply_to_the_config() {
    let main = "import hydra\n\n@hydra.main(version_base=\"1.3\", config_path=\"../configs\", config_name=\"train.yaml\")\ndef main(cfg):\n    pass\n";
    let train = "defaults:\n  - _self_\n\ntrainer:\n  _target_: lightning.pytorch.trainer.Trainer\n  accelerator: gpu\n  devices: 1\n  accumulate_grad_batches: 2\n  max_epochs: 10\ndata:\n  _target_: src.data.mnist_datamodule.MNISTDataModule\n  batch_size: 64\n";
    let script = "#!/bin/bash\n# Schedule execution of many runs\npython src/train.py trainer.devices=${1:-4} experiment=example\n";
    let dir = repo("hydra", &[("scripts/schedule.sh", script), ("src/train.py", main), ("configs/train.yaml", train)]);
    let shown = show(&dir, "configs/train.yaml", &[]);
    assert!(shown.contains("devices       4"), "{shown}");
    assert!(shown.contains("4 data-parallel world"), "{shown}");
    // `--set` wins over the script's override.
    assert!(show(&dir, "configs/train.yaml", &["--set", "trainer.devices=2"]).contains("2 data-parallel world"));
}

/// Two scripts launch the same config on different worlds: the smallest is used, the other named.
#[test]
fn two_launches_use_the_smallest_world_and_name_the_other() {
    let ds = "{\"train_micro_batch_size_per_gpu\": 4, \"gradient_accumulation_steps\": 2}\n";
    let dir = repo(
        "two",
        &[
            ("scripts/big.sh", "torchrun --nnodes=4 --nproc_per_node=8 train.py --deepspeed ds.json\n"),
            ("scripts/small.sh", "torchrun --standalone --nproc-per-node=2 train.py --deepspeed ds.json\n"),
            ("ds.json", ds),
        ],
    );
    let shown = show(&dir, "ds.json", &[]);
    assert!(shown.contains("effective batch: 16 = 4 micro batch × 2 accumulation × 2 data-parallel world"), "{shown}");
    assert!(shown.contains("also 32 from scripts/big.sh:1"), "{shown}");
    // `--nproc_per_node gpu` counts the machine: unknown, so only the small launch gives a world.
    std::fs::write(dir.join("scripts/small.sh"), "torchrun --nproc_per_node gpu train.py --deepspeed ds.json\n").unwrap();
    assert!(show(&dir, "ds.json", &[]).contains("× 32 data-parallel world"));
}

/// Item 6: `export PYTORCH_CUDA_ALLOC_CONF=…` (and a `VAR=value cmd` prefix) in a script with no
/// manifest is checked by ENV001 and migrated by MIG006, pointing into the script.
#[test]
fn allocator_exports_in_a_script_are_checked_without_a_manifest() {
    let script =
        "#!/bin/bash\nexport PYTORCH_CUDA_ALLOC_CONF=expandable_segments:true\nPYTORCH_ALLOC_CONF=max_split_size_mb:16 torchrun --nproc_per_node 2 train.py\n";
    let dir = repo("env", &[("train.sh", script)]);
    let output = common::trainlint_in(&dir, &["check", "--output-format", "json", "train.sh"]);
    let json: serde_json::Value = serde_json::from_str(&common::stdout(&output)).unwrap();
    let found: Vec<(String, u64)> =
        json["diagnostics"].as_array().unwrap().iter().map(|d| (d["code"].as_str().unwrap().to_owned(), d["line"].as_u64().unwrap_or(0))).collect();
    assert!(found.contains(&("ENV001".to_owned(), 2)) && found.contains(&("ENV001".to_owned(), 3)), "{found:?}");
    assert!(found.contains(&("MIG006".to_owned(), 2)), "{found:?}");
    // An assignment that is neither exported nor prefixes a command is not the process environment.
    std::fs::write(dir.join("train.sh"), "PYTORCH_ALLOC_CONF=max_split_size_mb:16\n").unwrap();
    assert!(!codes(&dir, "train.sh", &[]).contains(&"ENV001".to_owned()));
}

/// Hydra's `-cp`/`-cn` under torchrun: the composed config gets the launch's world.
#[test]
fn hydra_config_name_under_torchrun() {
    let config = "defaults:\n  - _self_\n\ntrainer:\n  _target_: lightning.pytorch.trainer.Trainer\n  accelerator: gpu\n  devices: auto\n  accumulate_grad_batches: 1\ndata:\n  _target_: src.data.datamodule.DataModule\n  batch_size: 32\n";
    let script = "#!/bin/bash\nGPUS=${GPUS:-4}\ntorchrun --standalone --nproc_per_node=$GPUS src/train.py -cp ../conf -cn experiment/base\n";
    let dir = repo("hydra-cn", &[("launch/run.sh", script), ("src/train.py", "print()\n"), ("conf/experiment/base.yaml", config)]);
    let shown = show(&dir, "conf/experiment/base.yaml", &[]);
    assert!(shown.contains("× 4 data-parallel world"), "{shown}");
    assert!(
        shown.contains(
            "launch/run.sh:3 (torchrun --standalone × --nproc_per_node=4; ${GPUS:-4} read as 4 ($GPUS is not set by the script; the environment is never read))"
        ),
        "{shown}"
    );
}

/// torchtune's configs say how they are launched in their header (`recipes/configs/llama3_1/8B_full.yaml`):
/// `tune run` hands its torchrun options to torchrun (torchtune `_cli/run.py`), so the distributed recipe
/// runs on 4 processes. A launch of another config in the same header does not count; a launch script wins.
#[test]
fn a_torchtune_header_comment_gives_the_world() {
    let config = "# Config for multi-device full finetuning in full_finetune_distributed.py\n# using a Llama3.1 8B Instruct model\n#\n# To launch on 4 devices, run the following command from root:\n#   tune run --nproc_per_node 4 full_finetune_distributed --config llama3_1/8B_full\n#\n# Single device full finetuning requires more memory optimizations. It's\n# best to use 8B_full_single_device.yaml for those cases:\n#   tune run --nproc_per_node 2 full_finetune_distributed --config llama3_1/8B_full_single_device\n\noutput_dir: /tmp/torchtune/llama3_1_8B/full\nmodel:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\ntokenizer:\n  _component_: torchtune.models.llama3.llama3_tokenizer\n  path: /tmp/Meta-Llama-3.1-8B-Instruct/original/tokenizer.model\n  max_seq_len: 2048\nbatch_size: 2\ngradient_accumulation_steps: 1\noptimizer:\n  _component_: torch.optim.AdamW\n  lr: 2e-5\n  fused: True\nenable_activation_checkpointing: True\ndtype: bf16\n";
    let dir = repo("tune-header", &[("recipes/configs/llama3_1/8B_full.yaml", config)]);
    let shown = show(&dir, "recipes/configs/llama3_1/8B_full.yaml", &[]);
    assert!(shown.contains("effective batch: 8 = 2 micro batch × 1 accumulation × 4 data-parallel world"), "{shown}");
    assert!(
        shown.contains("world size 4 from recipes/configs/llama3_1/8B_full.yaml:5 (the config's header comment: tune run one node × --nproc_per_node=4)"),
        "{shown}"
    );
    // `--world-size` wins over the comment.
    assert!(show(&dir, "recipes/configs/llama3_1/8B_full.yaml", &["--world-size", "8"]).contains("× 8 data-parallel world"));
    // A header that launches another config says nothing about this one.
    std::fs::write(dir.join("recipes/configs/llama3_1/8B_full.yaml"), config.replace("--config llama3_1/8B_full\n#\n", "--config llama3_1/8B_lora\n#\n"))
        .unwrap();
    let shown = show(&dir, "recipes/configs/llama3_1/8B_full.yaml", &[]);
    assert!(shown.contains("data-parallel world size not known"), "{shown}");
    // `tune run` with no torchrun option runs the recipe in one process.
    std::fs::write(dir.join("recipes/configs/llama3_1/8B_full.yaml"), config.replace("--nproc_per_node 4 full", "full")).unwrap();
    let shown = show(&dir, "recipes/configs/llama3_1/8B_full.yaml", &[]);
    assert!(shown.contains("× 1 data-parallel world") && shown.contains("tune run without torchrun options (one process)"), "{shown}");
}

/// LLaMA-Factory's `examples/ascend/*_fsdp2.yaml` show their launch in the header: `accelerate
/// launch --config_file examples/accelerate/fsdp2_config_qwen35_moe.yaml src/train.py <this config>`,
/// run from the repository root. Read as the same line in a launch script: accelerate's
/// `num_processes` is the world (accelerate `commands/launch.py`: the config file's value without
/// `--num_processes`) and its FSDP plugin the sharding (`ACCELERATE_USE_FSDP`, which the Trainer's
/// `Accelerator` builds its plugin from). Issue 24: the 65 GiB frozen base of Qwen3.5-35B-A3B was
/// priced unsharded on one RTX 4090 (MEM001); FSDP2 over 8 processes keeps an eighth of it.
#[test]
fn a_llamafactory_header_launch_takes_its_accelerate_config_world_and_sharding() {
    let accelerate = "compute_environment: LOCAL_MACHINE\ndebug: false\ndistributed_type: FSDP\ndowncast_bf16: 'no'\nfsdp_config:\n  fsdp_version: 2\n  fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP\n  fsdp_transformer_layer_cls_to_wrap: Qwen3_5MoeDecoderLayer,Qwen3_5MoeVisionBlock\n  fsdp_cpu_ram_efficient_loading: true\n  fsdp_offload_params: false\n  fsdp_reshard_after_forward: true\n  fsdp_state_dict_type: FULL_STATE_DICT\nmachine_rank: 0\nmain_training_function: main\nmixed_precision: bf16\nnum_machines: 1\nnum_processes: 8  # Change to match your NPU count (e.g., 8 for A2, 16 for A3)\nrdzv_backend: static\nsame_network: true\nuse_cpu: false\n";
    let config = "# Start FSDP2 full fine-tuning on Ascend NPU\n# Usage:\n#   accelerate launch \\\n#       --config_file examples/accelerate/fsdp2_config_qwen35_moe.yaml \\\n#       src/train.py examples/ascend/qwen3_5moe_lora_sft_fsdp2.yaml\n#\n# Note: Change `num_processes` in fsdp2_config_qwen35_moe.yaml to match your NPU count\n\n### model\nmodel_name_or_path: Qwen/Qwen3.5-35B-A3B\ntrust_remote_code: true\nuse_v1_kernels: false\nflash_attn: fa2\n\n### method\nstage: sft\ndo_train: true\nfinetuning_type: lora\nlora_rank: 8\nlora_target: all\n\n### dataset\ndataset: alpaca_en_demo\ntemplate: qwen3_5_nothink\ncutoff_len: 2048\nmax_samples: 1000\noverwrite_cache: true\npreprocessing_num_workers: 16\ndataloader_num_workers: 4\npacking: false\n\n### output\noutput_dir: saves/Qwen3.5-35B/lora/sft\nlogging_steps: 1\nsave_steps: 2000\nmax_steps: 2000\nplot_loss: true\noverwrite_output_dir: true\nsave_only_model: false\nreport_to: none  # choices: [none, wandb, tensorboard, swanlab, mlflow]\n\n### train\nper_device_train_batch_size: 1\ngradient_accumulation_steps: 1\nlearning_rate: 1.0e-5\nlr_scheduler_type: cosine\nwarmup_ratio: 0.1\nbf16: true\nddp_timeout: 1800\nresume_from_checkpoint: null\ndisable_gradient_checkpointing: true\n";
    let file = "examples/ascend/qwen3_5moe_lora_sft_fsdp2.yaml";
    let dir = repo("lmf-header", &[(file, config), ("examples/accelerate/fsdp2_config_qwen35_moe.yaml", accelerate)]);
    let fsdp_from =
        |shown: &str| shown.lines().find(|l| l.trim_start().starts_with("fsdp ")).map(|l| l.split_whitespace().skip(1).collect::<Vec<_>>().join(" "));
    let shown = show(&dir, file, &[]);
    assert!(
        shown.contains("effective batch: 8 = 1 micro batch × 1 accumulation × 8 data-parallel world (world size 8 from examples/ascend/qwen3_5moe_lora_sft_fsdp2.yaml:3 (the config's header comment: accelerate launch --config_file examples/accelerate/fsdp2_config_qwen35_moe.yaml (num_processes: 8)))"),
        "{shown}"
    );
    assert_eq!(fsdp_from(&shown).as_deref(), Some("true examples/accelerate/fsdp2_config_qwen35_moe.yaml:11"), "fsdp_reshard_after_forward: true\n{shown}");
    let estimate = common::stdout(&common::trainlint_in(&dir, &["estimate", "--gpu", "rtx-4090", file]));
    assert!(estimate.contains("weights (frozen base)         8.17 GiB") && estimate.contains("lora · fsdp"), "{estimate}");
    let found = codes(&dir, file, &["--gpu", "rtx-4090"]);
    assert!(!found.contains(&"MEM001".to_owned()) && !found.contains(&"BAT006".to_owned()), "{found:?}");

    // `--world-size` wins over the header's world; the accelerate config still shards the run.
    let shown = show(&dir, file, &["--world-size", "4"]);
    assert!(shown.contains("× 4 data-parallel world") && fsdp_from(&shown).is_some(), "{shown}");
    // `--num_processes` on the header's line gives the world, the file the plugin.
    std::fs::write(dir.join(file), config.replace("accelerate launch \\", "accelerate launch --num_processes 2 \\")).unwrap();
    let shown = show(&dir, file, &[]);
    assert!(
        shown.contains("world size 2 from examples/ascend/qwen3_5moe_lora_sft_fsdp2.yaml:3 (the config's header comment: accelerate launch --num_processes=2)"),
        "{shown}"
    );
    assert!(fsdp_from(&shown).is_some(), "{shown}");

    // The path is the command's, run from the project root: a file beside the config, or one
    // outside the project, is not the one the header names; nothing is said, as before.
    let outside = dir.parent().unwrap().join(format!("trainlint-lmf-outside-{}.yaml", std::process::id()));
    std::fs::write(&outside, accelerate).unwrap();
    std::fs::write(dir.join("examples/ascend/beside.yaml"), accelerate).unwrap();
    for named in ["beside.yaml".to_owned(), format!("../{}", outside.file_name().unwrap().to_string_lossy()), "examples/accelerate/missing.yaml".to_owned()] {
        std::fs::write(dir.join(file), config.replace("examples/accelerate/fsdp2_config_qwen35_moe.yaml \\", &format!("{named} \\"))).unwrap();
        let shown = show(&dir, file, &[]);
        assert!(shown.contains("data-parallel world size not known") && fsdp_from(&shown).is_none(), "{named}\n{shown}");
        assert!(codes(&dir, file, &["--gpu", "rtx-4090"]).contains(&"MEM001".to_owned()), "{named}");
    }
    let _ = std::fs::remove_file(outside);

    // Checked from a folder above the repository (the corpus: one folder per repository), the
    // command runs where the config's own path on it starts, not at the checked root.
    let corpus = repo(
        "lmf-header-corpus",
        &[(&format!("hiyouga__LLaMA-Factory/{file}"), config), ("hiyouga__LLaMA-Factory/examples/accelerate/fsdp2_config_qwen35_moe.yaml", accelerate)],
    );
    let output = common::trainlint_in(&corpus, &["check", "--output-format", "json", "--gpu", "rtx-4090", "."]);
    let json: serde_json::Value = serde_json::from_str(&common::stdout(&output)).unwrap();
    let found: Vec<&str> = json["diagnostics"].as_array().unwrap().iter().filter_map(|d| d["code"].as_str()).collect();
    assert!(found.contains(&"MEM002") && !found.contains(&"MEM001") && !found.contains(&"BAT006"), "{found:?}");

    // A launch script that launches the config is the run; the header is not read.
    std::fs::write(dir.join(file), config).unwrap();
    let script = "#!/bin/bash\nCUDA_VISIBLE_DEVICES=0,1 accelerate launch --num_processes 2 src/train.py examples/ascend/qwen3_5moe_lora_sft_fsdp2.yaml\n";
    std::fs::write(dir.join("examples/ascend/train.sh"), script).unwrap();
    let shown = show(&dir, file, &[]);
    assert!(shown.contains("world size 2 from examples/ascend/train.sh:2") && fsdp_from(&shown).is_none(), "{shown}");
}

/// torchtune's own override semantics: `tune run … loss=X` on a node with a `_component_` sets the
/// component and keeps the node's other fields (`config/_utils.py` `_merge_yaml_and_cli_args`);
/// a plain key is set as written. Found on torchtune's README command (issue 24 item 4): the
/// chunked loss was read as replacing the node, and the logits priced in fp32.
#[test]
fn a_tune_run_override_of_a_component_sets_its_component() {
    let config = "model:\n  _component_: torchtune.models.llama3_2.lora_llama3_2_3b\n  lora_attn_modules: ['q_proj', 'v_proj']\n  lora_rank: 8\n  lora_alpha: 16\ntokenizer:\n  _component_: torchtune.models.llama3.llama3_tokenizer\n  path: /tmp/Llama-3.2-3B-Instruct/original/tokenizer.model\n  max_seq_len: null\nloss:\n  _component_: torch.nn.CrossEntropyLoss\n  ignore_index: -100\nbatch_size: 4\ngradient_accumulation_steps: 8\noptimizer:\n  _component_: torch.optim.AdamW\n  lr: 3e-4\ndtype: bf16\n";
    let script = "tune run lora_finetune_single_device --config recipes/configs/llama3_2/3B_lora_single_device.yaml \\\n  loss=torchtune.modules.loss.CEWithChunkedOutputLoss \\\n  tokenizer.max_seq_len=2048 batch_size=2\n";
    let dir = repo("tune-override", &[("recipes/configs/llama3_2/3B_lora_single_device.yaml", config), ("run.sh", script)]);
    let shown = show(&dir, "recipes/configs/llama3_2/3B_lora_single_device.yaml", &[]);
    assert!(shown.contains("micro_batch      2              run.sh:1 (the launch line's override)"), "{shown}");
    let estimate = common::stdout(&common::trainlint_in(&dir, &["estimate", "--gpu", "a100-80gb", "recipes/configs/llama3_2/3B_lora_single_device.yaml"]));
    assert!(estimate.contains("(chunked"), "the override sets loss._component_:\n{estimate}");
    assert!(!estimate.contains("upcast to fp32"), "{estimate}");
}

/// Issue 23 items 1–4: a FastChat-style launch script (`scripts/train_vicuna_7b.sh`: every
/// training argument a flag, `--deepspeed` naming an all-`"auto"` JSON) is the run: walked by
/// `check .`, read as HF TrainingArguments, its world from `torchrun`, its DeepSpeed JSON's ZeRO
/// stage and `"auto"` values filled from the flags, and `--bf16 True` on a V100 is HW001.
const FASTCHAT: &str = "#!/bin/bash\n# Vicuna-7B on 4 GPUs\nexport PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\nNPROC=4\ntorchrun --nproc_per_node=$NPROC --master_port=20001 fastchat/train/train_mem.py \\\n    --model_name_or_path meta-llama/Llama-2-7b-hf \\\n    --data_path data/dummy_conversation.json \\\n    --bf16 True \\\n    --output_dir output_vicuna \\\n    --num_train_epochs 3 \\\n    --per_device_train_batch_size 2 \\\n    --gradient_accumulation_steps 16 \\\n    --learning_rate 2e-5 \\\n    --model_max_length 2048 \\\n    --gradient_checkpointing True \\\n    --lazy_preprocess True \\\n    --deepspeed playground/zero3.json\n";
const ZERO3_AUTO: &str = "{\n  \"bf16\": {\"enabled\": \"auto\"},\n  \"zero_optimization\": {\"stage\": 3},\n  \"train_micro_batch_size_per_gpu\": \"auto\",\n  \"gradient_accumulation_steps\": \"auto\",\n  \"train_batch_size\": \"auto\"\n}\n";

#[test]
fn a_launch_script_with_training_flags_is_checked_as_the_run() {
    let dir = repo(
        "fastchat",
        &[("scripts/train_vicuna_7b.sh", FASTCHAT), ("playground/zero3.json", ZERO3_AUTO), ("setup.sh", "pip install --upgrade pip\npip install -e .\n")],
    );
    let files = common::trainlint_in(&dir, &["check", ".", "--show-files"]);
    let listing = common::stdout(&files);
    assert!(listing.contains("scripts/train_vicuna_7b.sh  checked as hf-trainer"), "{listing}");
    assert!(listing.contains("setup.sh") && listing.contains("skipped: not recognised as a training config"), "{listing}");
    let shown = show(&dir, "scripts/train_vicuna_7b.sh", &[]);
    assert!(shown.contains("dialect: hf-trainer (the training flags of the launch line (line 5)"), "{shown}");
    assert!(shown.contains("micro_batch               2              scripts/train_vicuna_7b.sh:11"), "{shown}");
    assert!(shown.contains("zero_stage                3              playground/zero3.json:3"), "{shown}");
    assert!(
        shown.contains("effective batch: 128 = 2 micro batch × 16 accumulation × 4 data-parallel world (world size 4 from scripts/train_vicuna_7b.sh:5 (torchrun one node × --nproc_per_node=4))"),
        "{shown}"
    );
    // The provenance of a value from a variable: the line it is assigned on.
    let json = common::trainlint_in(&dir, &["check", ".", "--gpu", "v100-32gb", "--output-format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&common::stdout(&json)).unwrap();
    let found: Vec<(String, String, u64)> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["code"].as_str().unwrap().to_owned(), d["file"].as_str().unwrap_or_default().to_owned(), d["line"].as_u64().unwrap_or(0)))
        .collect();
    assert!(found.iter().any(|(c, f, r)| c == "HW001" && f.ends_with("train_vicuna_7b.sh") && *r == 8), "{found:?}");
    assert!(found.iter().any(|(c, f, _)| c == "MIG006" && f.ends_with("train_vicuna_7b.sh")), "{found:?}");
    // FastChat's own arguments (`--data_path`, `--lazy_preprocess`) are not unknown TrainingArguments keys.
    assert!(!found.iter().any(|(c, ..)| c == "SCH003" || c == "SCH008"), "{found:?}");
    // The DeepSpeed JSON sees the same run: its "auto" filled from the flags.
    let shown = show(&dir, "playground/zero3.json", &[]);
    assert!(shown.contains("micro_batch    2              scripts/train_vicuna_7b.sh:11"), "{shown}");
    assert!(shown.contains("precision      bf16-mixed     scripts/train_vicuna_7b.sh:8"), "{shown}");
    assert!(shown.contains("effective batch: 128"), "{shown}");
}

/// Issue 23 item 6: an all-`"auto"` DeepSpeed JSON that nothing links is not "All checks passed".
#[test]
fn an_all_auto_deepspeed_config_alone_says_nothing_was_checked() {
    let dir = repo("all-auto", &[("ds_z3.json", ZERO3_AUTO)]);
    let output = common::trainlint_in(&dir, &["check", "."]);
    let out = common::stdout(&output);
    assert!(!out.contains("All checks passed"), "{out}");
    assert!(out.contains("No findings, but nothing was checked: 1 file read, and every batch and precision value is \"auto\""), "{out}");
    let listing = common::stdout(&common::trainlint_in(&dir, &["check", ".", "--show-files"]));
    assert!(listing.contains("read as deepspeed; batch and precision not checked"), "{listing}");
}

/// Done-when: `check .` on a folder holding a training script that exports the allocator
/// settings reports ENV/MIG findings with no manifest (the seed RNA-3E-FFI's layout).
#[test]
fn a_training_script_exporting_allocator_settings_is_found_by_walking() {
    let script = "#!/bin/bash\nexport PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True,max_split_size_mb:512\npython -m rna3effi.train --config configs/base.yaml --batch-size 8\n";
    let dir = repo("alloc", &[("scripts/train.sh", script)]);
    // No PyTorch version stated: MIG006 is an info (issue 25), listed by `--show-infos`.
    let output = common::trainlint_in(&dir, &["check", ".", "--output-format", "concise", "--show-infos"]);
    let out = common::stdout(&output);
    assert!(out.contains("scripts/train.sh:2:8: MIG006"), "{out}");
    assert!(out.contains("scripts/train.sh:2:") && out.contains("ENV002"), "{out}");
}

/// `llamafactory-cli train` under `FORCE_TORCHRUN=1 NNODES=2 NPROC_PER_NODE=8` gives the
/// YAML it trains world 16 (LLaMA-Factory `cli.py`).
#[test]
fn llamafactory_cli_gives_its_yaml_the_torchrun_world() {
    let yaml = "model_name_or_path: meta-llama/Meta-Llama-3-8B-Instruct\nstage: sft\ndo_train: true\nfinetuning_type: lora\nlora_target: all\ndataset: identity\ncutoff_len: 2048\nper_device_train_batch_size: 1\ngradient_accumulation_steps: 8\nlearning_rate: 1.0e-4\nbf16: true\noutput_dir: saves/llama3-8b/lora/sft\n";
    let script = "#!/bin/bash\nFORCE_TORCHRUN=1 NNODES=2 NODE_RANK=0 MASTER_ADDR=192.168.0.1 MASTER_PORT=29500 NPROC_PER_NODE=8 \\\n  llamafactory-cli train examples/train_lora/llama3_lora_sft.yaml\n";
    let dir = repo("lmf", &[("examples/train_lora/llama3_lora_sft.yaml", yaml), ("examples/multi_node.sh", script)]);
    let shown = show(&dir, "examples/train_lora/llama3_lora_sft.yaml", &[]);
    assert!(shown.contains("effective batch: 128 = 1 micro batch × 8 accumulation × 16 data-parallel world"), "{shown}");
    assert!(shown.contains("examples/multi_node.sh:2 (llamafactory-cli train (torchrun) NNODES=2 × NPROC_PER_NODE=8)"), "{shown}");
}

/// Real layouts from the survey (book: batch page, "Launch scripts on public repositories"):
/// LMFlow's `scripts/run_finetune.sh` is the run and takes accelerate's `--config_file`
/// `num_processes`; LLaMA-Factory's `examples/extras/fsdp_qlora/train.sh` names its files from
/// the repository root, three folders up.
#[test]
fn a_script_run_takes_its_accelerate_config_and_root_relative_paths_link() {
    let lmflow = "#!/bin/bash\nmodel_name_or_path=meta-llama/Llama-2-7b-hf\noutput_dir=output_models/finetune\nexp_id=finetune\naccelerate launch --config_file configs/accelerate_fsdp_config.yaml \\\n  examples/finetune.py \\\n    --model_name_or_path ${model_name_or_path} \\\n    --output_dir ${output_dir} --overwrite_output_dir \\\n    --num_train_epochs 0.01 \\\n    --learning_rate 2e-5 \\\n    --block_size 512 \\\n    --per_device_train_batch_size 1 \\\n    --bf16 \\\n    --gradient_checkpointing 1 \\\n    --run_name ${exp_id}\n";
    let accelerate = "compute_environment: LOCAL_MACHINE\ndistributed_type: FSDP\nmixed_precision: bf16\nnum_machines: 1\nnum_processes: 8\n";
    let lmf_script = "#!/bin/bash\n# FSDP+QLoRA\n\nCUDA_VISIBLE_DEVICES=0,1 accelerate launch \\\n    --config_file examples/accelerate/fsdp_config.yaml \\\n    src/train.py examples/extras/fsdp_qlora/llama3_lora_sft.yaml\n";
    let lmf_yaml = "model_name_or_path: meta-llama/Meta-Llama-3-8B-Instruct\nquantization_bit: 4\nstage: sft\ndo_train: true\nfinetuning_type: lora\nlora_target: all\ndataset: identity\ncutoff_len: 2048\nper_device_train_batch_size: 1\ngradient_accumulation_steps: 8\nlearning_rate: 1.0e-4\nbf16: true\noutput_dir: saves/llama3-8b/lora/sft\n";
    let dir = repo(
        "real-layouts",
        &[
            ("scripts/run_finetune.sh", lmflow),
            ("configs/accelerate_fsdp_config.yaml", accelerate),
            ("examples/extras/fsdp_qlora/train.sh", lmf_script),
            ("examples/extras/fsdp_qlora/llama3_lora_sft.yaml", lmf_yaml),
            ("examples/accelerate/fsdp_config.yaml", &accelerate.replace("num_processes: 8", "num_processes: 2")),
        ],
    );
    let shown = show(&dir, "scripts/run_finetune.sh", &[]);
    assert!(shown.contains("effective batch: 8 = 1 micro batch × 1 accumulation × 8 data-parallel world (world size 8 from scripts/run_finetune.sh:5 (accelerate launch --config_file configs/accelerate_fsdp_config.yaml (num_processes: 8)))"), "{shown}");
    assert!(shown.contains("meta-llama/Llama-2-7b-hf scripts/run_finetune.sh:2"), "a value from a variable: its assignment's line\n{shown}");
    // `--gradient_checkpointing 1`: HfArgumentParser's `string_to_bool` reads 1 as True.
    assert!(shown.contains("activation_checkpointing") && shown.contains("full"), "{shown}");
    let shown = show(&dir, "examples/extras/fsdp_qlora/llama3_lora_sft.yaml", &[]);
    assert!(shown.contains("effective batch: 16 = 1 micro batch × 8 accumulation × 2 data-parallel world"), "{shown}");
}

/// alignment-handbook's layout: a recipe's launch command lives in its README (```` ```shell ````),
/// and the accelerate config it names carries the ZeRO stage and the precision; the recipe
/// itself says neither. The run is the three together: ZeRO-3 over the README's 8 processes,
/// not an unsharded 7B full fine-tune (issue 23: 183 GiB instead of ~32).
#[test]
fn a_readme_launch_and_its_accelerate_config_shard_the_recipe() {
    let readme = "# Zephyr 7B Gemma\n\nYou will require 8 GPUs (80GB of VRAM).\n\n```python\naccelerate launch --num_processes 1 not_a_launch.py --config recipes/zephyr-7b-gemma/sft/config_full.yaml\n```\n\n```shell\n# Step 1 - SFT\nACCELERATE_LOG_LEVEL=info accelerate launch --config_file recipes/accelerate_configs/zero3.yaml scripts/sft.py --config recipes/zephyr-7b-gemma/sft/config_full.yaml\n```\n";
    let zero3 = "compute_environment: LOCAL_MACHINE\ndebug: false\ndeepspeed_config:\n  deepspeed_multinode_launcher: standard\n  offload_optimizer_device: none\n  offload_param_device: none\n  zero3_init_flag: true\n  zero3_save_16bit_model: true\n  zero_stage: 3\ndistributed_type: DEEPSPEED\ndowncast_bf16: 'no'\nmachine_rank: 0\nmain_training_function: main\nmixed_precision: bf16\nnum_machines: 1\nnum_processes: 8\nrdzv_backend: static\nsame_network: true\nuse_cpu: false\n";
    let recipe = "# Model arguments\nmodel_name_or_path: google/gemma-7b\ntorch_dtype: bfloat16\nattn_implementation: flash_attention_2\n\n# SFT trainer config\nbf16: true\ndo_eval: true\neval_strategy: epoch\ngradient_accumulation_steps: 4\ngradient_checkpointing: true\nlearning_rate: 2.0e-05\nlogging_steps: 5\nmax_seq_length: 2048\nnum_train_epochs: 3\noutput_dir: data/zephyr-7b-gemma-sft\nper_device_eval_batch_size: 4\nper_device_train_batch_size: 4\nsave_strategy: \"no\"\n";
    let dir = repo(
        "handbook",
        &[
            ("recipes/zephyr-7b-gemma/README.md", readme),
            ("recipes/accelerate_configs/zero3.yaml", zero3),
            ("recipes/zephyr-7b-gemma/sft/config_full.yaml", recipe),
        ],
    );
    let file = "recipes/zephyr-7b-gemma/sft/config_full.yaml";
    let shown = show(&dir, file, &[]);
    assert!(
        shown.contains("128 = 4 micro batch × 4 accumulation × 8 data-parallel world (world size 8 from recipes/zephyr-7b-gemma/README.md:11 (accelerate launch --config_file recipes/accelerate_configs/zero3.yaml (num_processes: 8)))"),
        "the shell block's line, not the python block's\n{shown}"
    );
    assert!(shown.contains("zero_stage                3              recipes/accelerate_configs/zero3.yaml:9"), "{shown}");
    let estimate = common::trainlint_in(&dir, &["estimate", "--gpu", "h100-sxm", file]);
    let estimate = common::stdout(&estimate);
    // Sharded over the README's 8 GPUs the run is not out of memory (its logits' band may straddle the card: not an error).
    assert!(estimate.contains("model states (ZeRO-3, DeepSpeed estimator)") && !estimate.contains("fits: NO"), "{estimate}");
    assert!(codes(&dir, file, &["--gpu", "h100-sxm"]).iter().all(|c| c != "MEM001"));

    // The recipe's own DeepSpeed file is the plugin (TrainingArguments' `deepspeed` wins); the
    // accelerate config's precision still applies where the recipe sets none.
    let ds = "{\"zero_optimization\": {\"stage\": 2}, \"train_micro_batch_size_per_gpu\": \"auto\"}\n";
    std::fs::write(dir.join("ds_z2.json"), ds).unwrap();
    std::fs::write(dir.join(file), recipe.replace("bf16: true\n", "deepspeed: ds_z2.json\n")).unwrap();
    let shown = show(&dir, file, &[]);
    assert!(shown.contains("zero_stage                2              ds_z2.json:1"), "{shown}");
    assert!(shown.contains("precision                 bf16-mixed     recipes/accelerate_configs/zero3.yaml:14"), "{shown}");
    // bf16 from the accelerate config on a V100: HW001 on the line that sets it.
    let output = common::trainlint_in(&dir, &["check", "--output-format", "concise", "--gpu", "v100-32gb", file]);
    assert!(common::stdout(&output).contains("recipes/accelerate_configs/zero3.yaml:14:18: HW001"), "{}", common::stdout(&output));
}

/// accelerate's FSDP plugin: `FULL_SHARD` shards like ZeRO-3, `SHARD_GRAD_OP` like ZeRO-2,
/// `NO_SHARD` not at all, FSDP2's `fsdp_reshard_after_forward: false` like SHARD_GRAD_OP; a
/// `distributed_type` that is not DEEPSPEED leaves `deepspeed_config` unread.
#[test]
fn accelerate_plugins_become_the_run_s_sharding() {
    let recipe = "model_name_or_path: Qwen/Qwen2.5-7B\nper_device_train_batch_size: 2\ngradient_accumulation_steps: 8\nlearning_rate: 1.0e-5\nmax_length: 4096\nbf16: true\ngradient_checkpointing: true\noutput_dir: out\n";
    let script = "#!/bin/bash\naccelerate launch --config_file accelerate.yaml train.py --config recipe.yaml\n";
    let cases = [
        (
            "distributed_type: FSDP\nfsdp_config:\n  fsdp_sharding_strategy: FULL_SHARD\n  fsdp_offload_params: true\nnum_processes: 4\n",
            "fsdp                      true",
        ),
        ("distributed_type: FSDP\nfsdp_config:\n  fsdp_sharding_strategy: 2\nnum_processes: 4\n", "zero_stage                2"),
        ("distributed_type: FSDP\nfsdp_config:\n  fsdp_version: 2\n  fsdp_reshard_after_forward: false\nnum_processes: 4\n", "zero_stage                2"),
        ("distributed_type: FSDP\nfsdp_config:\n  fsdp_sharding_strategy: NO_SHARD\nnum_processes: 4\n", ""),
        ("distributed_type: MULTI_GPU\ndeepspeed_config:\n  zero_stage: 3\nnum_processes: 4\n", ""),
    ];
    for (accelerate, expected) in cases {
        let accelerate = format!("compute_environment: LOCAL_MACHINE\nmixed_precision: bf16\n{accelerate}");
        let dir = repo("plugins", &[("train.sh", script), ("accelerate.yaml", &accelerate), ("recipe.yaml", recipe)]);
        let shown = show(&dir, "recipe.yaml", &[]);
        assert!(shown.contains("× 4 data-parallel world"), "{shown}");
        if expected.is_empty() {
            assert!(!shown.contains("zero_stage") && !shown.contains("fsdp  "), "{accelerate}\n{shown}");
        } else {
            assert!(shown.contains(expected), "{accelerate}\n{shown}");
        }
        if accelerate.contains("fsdp_offload_params: true") {
            assert!(shown.contains("offload_params            true"), "{shown}");
        }
    }
    // `--num_processes` on the line gives the world; the config file still gives the plugin
    // (open-r1's `accelerate launch --config_file zero3.yaml --num_processes=7 …`).
    let accelerate = "compute_environment: LOCAL_MACHINE\ndistributed_type: DEEPSPEED\ndeepspeed_config:\n  zero_stage: 3\nnum_processes: 8\n";
    let script = "#!/bin/bash\naccelerate launch --config_file accelerate.yaml --num_processes=7 train.py --config recipe.yaml\n";
    let dir = repo("plugins-flag", &[("train.sh", script), ("accelerate.yaml", accelerate), ("recipe.yaml", recipe)]);
    let shown = show(&dir, "recipe.yaml", &[]);
    assert!(shown.contains("× 7 data-parallel world") && shown.contains("zero_stage                3              accelerate.yaml:4"), "{shown}");
}

/// A launch script without an extension (`scripts/train`, `#!/usr/bin/env bash`) is walked and
/// checked as the run; an extensionless file of another kind (a Python shebang, `LICENSE`) is
/// not walked; named on the command line, a shebang script is read as shell, never as YAML.
#[test]
fn extensionless_scripts_with_a_shell_shebang_are_launch_scripts() {
    let script = "#!/usr/bin/env bash\nset -euo pipefail\ntorchrun --nproc_per_node 8 train.py \\\n  --model_name_or_path meta-llama/Llama-2-7b-hf \\\n  --per_device_train_batch_size 4 \\\n  --gradient_accumulation_steps 4 \\\n  --bf16 True \\\n  --output_dir out\n";
    let dir = repo(
        "shebang",
        &[("scripts/train", script), ("scripts/prepare", "#!/usr/bin/env python3\nprint('--per_device_train_batch_size 4')\n"), ("LICENSE", "MIT License\n")],
    );
    let output = common::trainlint_in(&dir, &["check", "--gpu", "v100-32gb", "--output-format", "concise", "."]);
    let text = common::stdout(&output);
    assert!(text.contains("scripts/train:7:10: HW001"), "bf16 on a V100 at the script's line\n{text}");
    let output = common::trainlint_in(&dir, &["check", "--show-files", "."]);
    let files = common::stdout(&output);
    assert!(files.contains("scripts/train") && !files.contains("scripts/prepare") && !files.contains("LICENSE"), "{files}");
    let shown = show(&dir, "scripts/train", &[]);
    assert!(shown.contains("dialect: hf-trainer") && shown.contains("× 8 data-parallel world"), "{shown}");
}

/// A file named on the command line in a project with a manifest (pre-commit passes single
/// files): its own folder is a project root too, and the launch scripts above it, up to the
/// manifest's folder, still give its world.
#[test]
fn a_single_file_checked_under_a_manifest_finds_its_launch_above_it() {
    let ds = "{\"train_batch_size\": 64, \"train_micro_batch_size_per_gpu\": 2, \"gradient_accumulation_steps\": 4}\n";
    let dir = repo(
        "manifest-single",
        &[
            ("trainlint.toml", "# project\n"),
            ("train.sh", "deepspeed --num_gpus 8 train.py --deepspeed configs/ds/zero2/ds.json\n"),
            ("configs/ds/zero2/ds.json", ds),
        ],
    );
    let shown = show(&dir, "configs/ds/zero2/ds.json", &[]);
    assert!(shown.contains("× 8 data-parallel world (world size 8 from train.sh:1"), "{shown}");
}

/// Scripts write their DeepSpeed config from a heredoc (`cat <<EOT > $DS_CONFIG`, values from the
/// script's variables, as Megatron-DeepSpeed's examples do) and pass it on the launch line: that
/// text, expanded as bash expands it, is the run's DeepSpeed config, and each value points at the
/// script's bytes that wrote it. For a Megatron-DeepSpeed launch (`pretrain_gpt.py --deepspeed`)
/// the run is Megatron's flags, and the written config gives the ZeRO stage.
#[test]
fn a_heredoc_the_script_writes_is_the_config_its_launch_passes() {
    let script = "#!/bin/bash\nset -ex\n\nDS_CONFIG=ds_config.json\nGLOBAL_BATCH=64\nMICRO_BATCH=4\nZERO_STAGE=2\n\ncat <<EOT > $DS_CONFIG\n{\n  \"train_batch_size\" : $GLOBAL_BATCH,\n  \"train_micro_batch_size_per_gpu\": $MICRO_BATCH,\n  \"zero_optimization\": {\n    \"stage\": $ZERO_STAGE\n  },\n  \"fp16\": {\"enabled\": true}\n}\nEOT\n\nds_args=\"\"\nds_args=\" --deepspeed ${ds_args}\"\nds_args=\" --deepspeed_config=$DS_CONFIG ${ds_args}\"\n\ndeepspeed --num_gpus 4 train.py \\\n    --num-layers 24 \\\n    --micro-batch-size 4 \\\n    $ds_args \\\n    --exit-interval 5000\n";
    let dir = repo("heredoc-config", &[("examples/run_deepspeed_example.sh", script)]);
    let file = "examples/run_deepspeed_example.sh";
    let shown = show(&dir, file, &[]);
    assert!(shown.contains("dialect: deepspeed (`ds_config.json`, which the script writes at line 9 and the launch line (line 24) passes"), "{shown}");
    assert!(shown.contains("global_batch  64             examples/run_deepspeed_example.sh:11"), "{shown}");
    assert!(shown.contains("zero_stage    2              examples/run_deepspeed_example.sh:14"), "{shown}");
    assert!(shown.contains("64 = 4 micro batch × 4 accumulation × 4 data-parallel world (world size 4 from examples/run_deepspeed_example.sh:24"), "{shown}");
    // On 3 GPUs DeepSpeed refuses the batch: the finding is on `$GLOBAL_BATCH` in the heredoc.
    std::fs::write(dir.join(file), script.replace("--num_gpus 4", "--num_gpus 3")).unwrap();
    let output = common::trainlint_in(&dir, &["check", "--output-format", "concise", file]);
    assert!(common::stdout(&output).contains("examples/run_deepspeed_example.sh:11:24: BAT003"), "{}", common::stdout(&output));
    // A quoted delimiter writes the text as it stands: `$GLOBAL_BATCH` is not a number then.
    std::fs::write(dir.join(file), script.replace("cat <<EOT", "cat <<'EOT'")).unwrap();
    assert!(!show(&dir, file, &[]).contains("global_batch  64"));
    // Megatron-DeepSpeed's `pretrain_gpt.py` (examples_deepspeed/run_deepspeed_example.sh): its
    // flags are the run (no `--global-batch-size`: micro × data parallel, which `train` hands to
    // DeepSpeed's `set_train_batch_size`), the written config's ZeRO stage is the run's.
    std::fs::write(dir.join(file), script.replace("train.py", "pretrain_gpt.py")).unwrap();
    let shown = show(&dir, file, &[]);
    assert!(shown.contains("dialect: megatron-deepspeed (the training flags of the launch line (line 24)"), "{shown}");
    let zero = shown.lines().find(|l| l.trim_start().starts_with("zero_stage ")).map(|l| l.split_whitespace().collect::<Vec<_>>());
    assert_eq!(zero, Some(vec!["zero_stage", "2", "examples/run_deepspeed_example.sh:14"]), "{shown}");
    assert!(shown.contains("effective batch: 16 = 4 micro batch × 1 accumulation × 4 data-parallel world"), "{shown}");
}

/// A DeepSpeed config on disk that a Megatron-DeepSpeed launch passes (`pretrain_gpt.py --deepspeed
/// --deepspeed_config ds.json`) is checked on DeepSpeed's data-parallel world: the launch's
/// processes ÷ (tensor × pipeline × sequence parallel), Megatron's groups handed to DeepSpeed.
#[test]
fn a_megatron_deepspeed_launch_gives_its_deepspeed_config_the_data_parallel_world() {
    let ds = "{\"train_batch_size\": 32, \"train_micro_batch_size_per_gpu\": 4, \"gradient_accumulation_steps\": 2}\n";
    let script = "deepspeed --num_gpus 8 pretrain_gpt.py --tensor-model-parallel-size 2 --micro-batch-size 4 --global-batch-size 32 --deepspeed --deepspeed_config ds.json\n";
    let dir = repo("megatron-deepspeed-ds", &[("run.sh", script), ("ds.json", ds)]);
    let shown = show(&dir, "ds.json", &[]);
    assert!(shown.contains("32 = 4 micro batch × 2 accumulation × 4 data-parallel world (world size 4 from run.sh:1 ("), "{shown}");
    assert!(shown.contains("÷ tensor 2 × pipeline 1 × sequence parallel 1 on the launch line"), "{shown}");
    let output = common::trainlint_in(&dir, &["check", "--output-format", "concise", "."]);
    assert_eq!(output.status.code(), Some(0), "{}", common::stdout(&output));
    // Another program's launch with the same flags is no Megatron's: its world is the 8
    // processes, on which 4 × 2 × 8 is not 32 (BAT004).
    std::fs::write(dir.join("run.sh"), script.replace("pretrain_gpt.py", "train.py")).unwrap();
    let output = common::trainlint_in(&dir, &["check", "--output-format", "concise", "ds.json"]);
    assert!(common::stdout(&output).contains("BAT004"), "{}", common::stdout(&output));
}

/// Issue 23's launch patterns, each as a script projects write it, launching the same DeepSpeed
/// config (micro 2 × accumulation 4): `show` gives the world, the effective batch and where the
/// world was read (`scripts/train.sh:LINE (…)`); a value known only at run time gives none.
#[test]
fn every_launch_pattern_gives_world_effective_batch_and_provenance() {
    let ds = "{\"train_micro_batch_size_per_gpu\": 2, \"gradient_accumulation_steps\": 4, \"zero_optimization\": {\"stage\": 2}}\n";
    // (pattern, script, world and the line it is read on; `None`: unknown).
    type Case = (&'static str, &'static str, Option<(u64, usize)>);
    let cases: [Case; 19] = [
        ("composer -n", "composer -n 8 train.py ds.json\n", Some((8, 1))),
        ("mpirun", "mpirun -np 4 python train.py --deepspeed ds.json\n", Some((4, 1))),
        ("an assigning default", ": ${GPUS:=2}\ntorchrun --nproc_per_node $GPUS train.py --deepspeed ds.json\n", Some((2, 2))),
        ("plain torchrun", "torchrun --nproc_per_node 8 train.py --deepspeed ds.json\n", Some((8, 1))),
        (
            "options in a variable",
            "DISTRIBUTED_ARGS=\"--nproc_per_node 4 --nnodes 2\"\ntorchrun $DISTRIBUTED_ARGS train.py --deepspeed ds.json\n",
            Some((8, 2)),
        ),
        ("options in an array", "ARGS=(--nproc_per_node 2 --nnodes 2)\ntorchrun \"${ARGS[@]}\" train.py --deepspeed ds.json\n", Some((4, 2))),
        ("export and a default", "export GPUS=${GPUS:-4}\ntorchrun --nproc_per_node $GPUS train.py --deepspeed ds.json\n", Some((4, 2))),
        ("local in a function", "main() {\n  local n=2\n  torchrun --nproc_per_node $n train.py --deepspeed ds.json\n}\nmain\n", Some((2, 3))),
        ("arithmetic", "NNODES=2\ntorchrun --nproc_per_node $((NNODES * 4)) train.py --deepspeed ds.json\n", Some((8, 2))),
        ("continuations", "torchrun \\\n  --nproc_per_node 4 \\\n  train.py \\\n  --deepspeed ds.json\n", Some((4, 1))),
        ("env prefix", "env NCCL_DEBUG=INFO torchrun --nproc_per_node 2 train.py --deepspeed ds.json\n", Some((2, 1))),
        ("uv run", "uv run torchrun --nproc_per_node 2 train.py --deepspeed ds.json\n", Some((2, 1))),
        ("bash -c", "bash -c \"torchrun --nproc_per_node 4 train.py --deepspeed ds.json\"\n", Some((4, 1))),
        ("python -m torch.distributed.run", "python -u -m torch.distributed.run --nproc_per_node 4 train.py --deepspeed ds.json\n", Some((4, 1))),
        ("deepspeed --deepspeed_config=", "deepspeed --num_gpus 4 train.py --deepspeed_config=ds.json\n", Some((4, 1))),
        ("nohup exec time", "nohup time torchrun --nproc_per_node 2 train.py --deepspeed ds.json > log 2>&1 &\n", Some((2, 1))),
        ("sbatch ntasks with srun", "#!/bin/bash\n#SBATCH --ntasks=16\n#SBATCH --gres=gpu:8\nsrun python train.py --deepspeed ds.json\n", Some((16, 4))),
        ("an unset variable", "torchrun --nnodes \"$NUM_NODES\" --nproc_per_node 8 train.py --deepspeed ds.json\n", None),
        ("a wrapper after --", "submit --gpus 16 -- torchrun --nproc_per_node 8 train.py --deepspeed ds.json\n", None),
    ];
    for (label, script, expected) in cases {
        let dir = repo("patterns", &[("scripts/train.sh", script), ("ds.json", ds)]);
        let shown = show(&dir, "ds.json", &[]);
        match expected {
            Some((world, line)) => {
                let wanted =
                    format!("{} = 2 micro batch × 4 accumulation × {world} data-parallel world (world size {world} from scripts/train.sh:{line} (", 8 * world);
                assert!(shown.contains(&wanted), "{label}: {wanted}\n{shown}");
            }
            None => assert!(shown.contains("effective batch: unknown") && !shown.contains("world size from"), "{label}\n{shown}"),
        }
    }
}
