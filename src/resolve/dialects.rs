//! Framework dialects: how each framework names the roles, and the evidence
//! that a file is written for it (FACTS.md §6 has the key names).
//!
//! Detection looks at keys, never at file names alone, and the first dialect
//! whose evidence matches wins; the manifest's `[dialects]` table overrides it
//! per glob. Each dialect binds roles to key paths; a few roles are derived
//! from boolean switches (`bf16: true` is precision `bf16-mixed`).

use super::Dialect;
use crate::load::{Node, Value};
use crate::schema::Role;

/// The evidence for a dialect, in words, or `None`.
pub fn evidence(dialect: Dialect, root: &Node) -> Option<String> {
    let has = |k: &str| root.get(k).is_some();
    let listed = |keys: &[&str]| keys.iter().filter(|k| has(k)).map(|k| format!("`{k}`")).collect::<Vec<_>>();
    match dialect {
        Dialect::Accelerate => {
            let found = listed(&["compute_environment", "distributed_type"]);
            let typed = root
                .get("distributed_type")
                .and_then(Node::as_str)
                .is_some_and(|t| ["NO", "MULTI_GPU", "MULTI_CPU", "FSDP", "DEEPSPEED", "MEGATRON_LM", "XLA", "TPU", "MULTI_NPU", "MULTI_XPU"].contains(&t));
            (!found.is_empty() && (typed || has("num_processes") || has("mixed_precision") || has("machine_rank")))
                .then(|| format!("accelerate launch keys {}", found.join(", ")))
        }
        Dialect::Torchtune => contains_key(root, "_component_", 6).then(|| "`_component_` keys (torchtune recipe config)".to_owned()),
        Dialect::Axolotl => {
            let found = listed(&["micro_batch_size", "sequence_len", "datasets", "adapter", "lora_r", "sample_packing", "val_set_size"]);
            (has("base_model") && !found.is_empty()).then(|| format!("`base_model` with Axolotl keys {}", found.join(", ")))
        }
        Dialect::LlamaFactory => {
            let v0 = has("model_name_or_path")
                && (has("stage") || has("finetuning_type") || has("template") || has("export_dir") || has("infer_backend") || has("adapter_name_or_path"));
            let v1 = has("model") && (has("micro_batch_size") || has("model_class") || has("peft_config") || has("dist_config"));
            if v0 {
                Some("`model_name_or_path` with LLaMA-Factory keys (`stage`, `finetuning_type`, `template`)".to_owned())
            } else if v1 {
                Some("LLaMA-Factory v1 keys (`model` with `micro_batch_size`, `model_class`, `peft_config` or `dist_config`)".to_owned())
            } else {
                None
            }
        }
        Dialect::HfTrainer => {
            let found = listed(&[
                "per_device_train_batch_size",
                "per_device_eval_batch_size",
                "num_train_epochs",
                "eval_strategy",
                "evaluation_strategy",
                "save_strategy",
                "logging_steps",
                "output_dir",
                "gradient_checkpointing",
            ]);
            (found.len() >= 2).then(|| format!("HF TrainingArguments keys {}", found.join(", ")))
        }
        Dialect::Lightning => {
            if root.get("_target_").and_then(Node::as_str).is_some_and(|t| t.ends_with(".Trainer") && t.contains("lightning")) {
                return Some("`_target_` is a Lightning Trainer".to_owned());
            }
            if let Some(trainer) = root.get("trainer").filter(|t| t.entries().is_some()) {
                let known = LIGHTNING_TRAINER_KEYS.iter().filter(|k| trainer.get(k).is_some()).count();
                if known >= 1 && (has("model") || has("data") || has("seed_everything") || known >= 2) {
                    return Some("a `trainer:` mapping of Lightning Trainer arguments (LightningCLI)".to_owned());
                }
            }
            find_trainer(root).map(|path| format!("Lightning Trainer arguments under `{path}`"))
        }
        Dialect::ModelConfig => find_model_shape(root).map(|path| {
            let at = if path.is_empty() { String::new() } else { format!(" under `{path}`") };
            format!("a model configuration (`hidden_size`, `num_hidden_layers`, `num_attention_heads`){at}")
        }),
        Dialect::Hydra => {
            if root.get("defaults").is_some_and(|d| matches!(d.value, Value::Seq(_))) {
                return Some("a Hydra `defaults` list".to_owned());
            }
            if contains_key(root, "_target_", 6) {
                return Some("`_target_` keys (Hydra instantiation)".to_owned());
            }
            None
        }
        _ => None,
    }
}

/// The dotted path of a nested `trainer` mapping with at least two Lightning
/// Trainer arguments (`training.trainer` in seed 004's project).
pub fn find_trainer(root: &Node) -> Option<String> {
    fn walk(node: &Node, path: &str, depth: usize) -> Option<String> {
        let entries = node.entries()?;
        for entry in entries {
            let child = if path.is_empty() { entry.key.clone() } else { format!("{path}.{}", entry.key) };
            if entry.key == "trainer"
                && entry.value.entries().is_some_and(|_| LIGHTNING_TRAINER_KEYS.iter().filter(|k| entry.value.get(k).is_some()).count() >= 2)
            {
                return Some(child);
            }
            if depth > 0
                && let Some(found) = walk(&entry.value, &child, depth - 1)
            {
                return Some(found);
            }
        }
        None
    }
    walk(root, "", 3)
}

/// The path of the mapping that holds a transformer's shape (an HF `config.json`
/// at the top level, or nested as in DeepSpeedExamples' `bert_model_config`).
pub fn find_model_shape(root: &Node) -> Option<String> {
    let is_shape = |n: &Node| n.get("hidden_size").is_some() && n.get("num_hidden_layers").is_some() && n.get("num_attention_heads").is_some();
    if is_shape(root) {
        return Some(String::new());
    }
    root.entries()?.iter().find(|e| is_shape(&e.value)).map(|e| e.key.clone())
}

fn contains_key(node: &Node, key: &str, depth: usize) -> bool {
    if depth == 0 {
        return false;
    }
    match &node.value {
        Value::Map(entries) => entries.iter().any(|e| e.key == key || contains_key(&e.value, key, depth - 1)),
        Value::Seq(items) => items.iter().any(|i| contains_key(i, key, depth - 1)),
        _ => false,
    }
}

/// Lightning 2.x `Trainer.__init__` arguments (lightning 2.6, `trainer/trainer.py`).
pub const LIGHTNING_TRAINER_KEYS: [&str; 41] = [
    "accelerator",
    "strategy",
    "devices",
    "num_nodes",
    "precision",
    "logger",
    "callbacks",
    "fast_dev_run",
    "max_epochs",
    "min_epochs",
    "max_steps",
    "min_steps",
    "max_time",
    "limit_train_batches",
    "limit_val_batches",
    "limit_test_batches",
    "limit_predict_batches",
    "overfit_batches",
    "val_check_interval",
    "check_val_every_n_epoch",
    "num_sanity_val_steps",
    "log_every_n_steps",
    "enable_checkpointing",
    "enable_progress_bar",
    "enable_model_summary",
    "accumulate_grad_batches",
    "gradient_clip_val",
    "gradient_clip_algorithm",
    "deterministic",
    "benchmark",
    "inference_mode",
    "use_distributed_sampler",
    "profiler",
    "detect_anomaly",
    "barebones",
    "plugins",
    "sync_batchnorm",
    "reload_dataloaders_every_n_epochs",
    "default_root_dir",
    "model_registry",
    "enable_autolog_hparams",
];

/// Role → key path for a dialect (paths relative to the file's root).
pub fn bindings(dialect: Dialect) -> &'static [(Role, &'static str)] {
    match dialect {
        Dialect::HfTrainer | Dialect::LlamaFactory => &[
            (Role::MicroBatch, "per_device_train_batch_size"),
            (Role::Accumulation, "gradient_accumulation_steps"),
            (Role::LearningRate, "learning_rate"),
            (Role::Optimizer, "optim"),
            (Role::SequenceLength, "max_seq_length"),
        ],
        Dialect::Axolotl => &[
            (Role::MicroBatch, "micro_batch_size"),
            (Role::Accumulation, "gradient_accumulation_steps"),
            (Role::GlobalBatch, "batch_size"),
            (Role::LearningRate, "learning_rate"),
            (Role::Optimizer, "optimizer"),
            (Role::SequenceLength, "sequence_len"),
        ],
        Dialect::Torchtune => &[
            (Role::MicroBatch, "batch_size"),
            (Role::Accumulation, "gradient_accumulation_steps"),
            (Role::SequenceLength, "tokenizer.max_seq_len"),
            (Role::LearningRate, "optimizer.lr"),
        ],
        Dialect::Accelerate => &[
            (Role::Devices, "num_processes"),
            (Role::ZeroStage, "deepspeed_config.zero_stage"),
            (Role::Accumulation, "deepspeed_config.gradient_accumulation_steps"),
        ],
        Dialect::Lightning => &[
            (Role::Devices, "trainer.devices"),
            (Role::Nodes, "trainer.num_nodes"),
            (Role::Precision, "trainer.precision"),
            (Role::Accumulation, "trainer.accumulate_grad_batches"),
            // The DataLoader's batch size is not a Trainer argument: where the
            // LightningCLI and common Hydra layouts put it.
            (Role::MicroBatch, "data.init_args.batch_size"),
            (Role::MicroBatch, "data.batch_size"),
            (Role::MicroBatch, "datamodule.batch_size"),
            (Role::MicroBatch, "data_loader.batch_size"),
        ],
        _ => &[],
    }
}

/// A role whose value is derived from switches, with the key it is read from.
pub struct Derived {
    pub role: Role,
    pub value: serde_json::Value,
    pub path: String,
}

/// Roles spelled as switches: `bf16: true` (HF, Axolotl, LLaMA-Factory),
/// `bf16.enabled` (DeepSpeed), `mixed_precision: bf16` (accelerate), `dtype`
/// (torchtune), `gradient_checkpointing`, `flash_attention`, `load_in_4bit`,
/// LLaMA-Factory v1 `micro_batch_size`, LLaMA-Factory `cutoff_len`, a Hydra
/// Lightning trainer file's top-level arguments.
pub fn derived(dialect: Dialect, root: &Node) -> Vec<Derived> {
    let mut out = Vec::new();
    let truthy = |path: &str| root.get_dotted(path).is_some_and(|n| n.value == Value::Bool(true) || n.as_str() == Some("auto") || n.as_str() == Some("true"));
    let mut push = |role: Role, value: serde_json::Value, path: &str| out.push(Derived { role, value, path: path.to_owned() });
    match dialect {
        Dialect::HfTrainer | Dialect::LlamaFactory | Dialect::Axolotl => {
            if truthy("bf16") || truthy("pure_bf16") {
                push(Role::Precision, "bf16-mixed".into(), if truthy("bf16") { "bf16" } else { "pure_bf16" });
            } else if truthy("fp16") {
                push(Role::Precision, "16-mixed".into(), "fp16");
            }
            if truthy("gradient_checkpointing") {
                push(Role::ActivationCheckpointing, "full".into(), "gradient_checkpointing");
            }
            if truthy("flash_attention") {
                push(Role::Attention, "flash".into(), "flash_attention");
            } else if truthy("sdp_attention") {
                push(Role::Attention, "sdpa".into(), "sdp_attention");
            }
            if truthy("load_in_4bit") {
                push(Role::BaseWeights, "int4".into(), "load_in_4bit");
            } else if truthy("load_in_8bit") {
                push(Role::BaseWeights, "int8".into(), "load_in_8bit");
            }
            if dialect == Dialect::LlamaFactory {
                if root.get("micro_batch_size").is_some() {
                    push(Role::MicroBatch, root.get("micro_batch_size").map(Node::to_json).unwrap_or_default(), "micro_batch_size");
                }
                if let Some(cutoff) = root.get("cutoff_len") {
                    push(Role::SequenceLength, cutoff.to_json(), "cutoff_len");
                }
                if let Some(bits) = root.get("quantization_bit").and_then(Node::as_i64) {
                    push(Role::BaseWeights, if bits <= 4 { "int4" } else { "int8" }.into(), "quantization_bit");
                }
            }
        }
        Dialect::Deepspeed => {
            for (section, precision) in [("bf16", "bf16-mixed"), ("bfloat16", "bf16-mixed"), ("fp16", "16-mixed")] {
                if truthy(&format!("{section}.enabled")) {
                    push(Role::Precision, precision.into(), &format!("{section}.enabled"));
                    break;
                }
            }
        }
        Dialect::Accelerate => {
            if let Some(mixed) = root.get("mixed_precision").and_then(Node::as_str) {
                let value = match mixed {
                    "bf16" => "bf16-mixed",
                    "fp16" => "16-mixed",
                    "fp8" => "fp8-mixed",
                    _ => "32-true",
                };
                push(Role::Precision, value.into(), "mixed_precision");
            }
        }
        Dialect::Torchtune => {
            if let Some(dtype) = root.get("dtype").and_then(Node::as_str) {
                let value = match dtype {
                    "bf16" => "bf16-true",
                    "fp16" => "16-true",
                    "fp64" => "64-true",
                    _ => "32-true",
                };
                push(Role::Precision, value.into(), "dtype");
            }
            if truthy("enable_activation_checkpointing") {
                push(Role::ActivationCheckpointing, "full".into(), "enable_activation_checkpointing");
            }
        }
        Dialect::Lightning if root.get("trainer").is_none() => {
            // A Hydra trainer group file has the Trainer arguments at its top level;
            // an in-house layout nests them (`training.trainer`).
            let prefix = find_trainer(root).map(|p| format!("{p}.")).unwrap_or_default();
            for (role, key) in
                [(Role::Devices, "devices"), (Role::Nodes, "num_nodes"), (Role::Precision, "precision"), (Role::Accumulation, "accumulate_grad_batches")]
            {
                let path = format!("{prefix}{key}");
                if let Some(node) = root.get_dotted(&path) {
                    push(role, node.to_json(), &path);
                }
            }
        }
        Dialect::ModelConfig => {
            if let Some(path) = find_model_shape(root) {
                let prefix = if path.is_empty() { String::new() } else { format!("{path}.") };
                for (role, key) in [
                    (Role::HiddenSize, "hidden_size"),
                    (Role::Layers, "num_hidden_layers"),
                    (Role::Heads, "num_attention_heads"),
                    (Role::VocabSize, "vocab_size"),
                    (Role::SequenceLength, "max_position_embeddings"),
                ] {
                    let path = format!("{prefix}{key}");
                    if let Some(node) = root.get_dotted(&path) {
                        push(role, node.to_json(), &path);
                    }
                }
            }
        }
        _ => {}
    }
    out
}
