//! SCH003 for framework dialects: keys the framework does not know.
//!
//! Lightning's `Trainer(...)` raises on an unknown argument, so every unknown
//! key of a Trainer mapping is reported. DeepSpeed and the HF-style trainers
//! ignore keys they do not know, and configs carry intentional extras
//! (`_comment`, recipe metadata), so there only a near miss of a key the
//! framework does know is reported — the typo that silently leaves the batch
//! at its default.

use super::unknown_key;
use crate::load::{Document, Entry, Node};
use crate::resolve::dialects::{LIGHTNING_TRAINER_KEYS, find_trainer};
use crate::resolve::{Dialect, ResolvedConfig};
use crate::rules::Checker;

/// DeepSpeed's top-level config keys (`docs/_pages/config-json.md`,
/// `deepspeed/runtime/config.py`), and keys seen in DeepSpeed's own examples.
const DEEPSPEED_KEYS: [&str; 52] = [
    "train_batch_size",
    "train_micro_batch_size_per_gpu",
    "gradient_accumulation_steps",
    "optimizer",
    "scheduler",
    "communication_data_type",
    "prescale_gradients",
    "gradient_predivide_factor",
    "sparse_gradients",
    "fp16",
    "bf16",
    "bfloat16",
    "amp",
    "gradient_clipping",
    "zero_optimization",
    "zero_allow_untested_optimizer",
    "zero_force_ds_cpu_optimizer",
    "activation_checkpointing",
    "flops_profiler",
    "comms_logger",
    "autotuning",
    "steps_per_print",
    "wall_clock_breakdown",
    "dump_state",
    "memory_breakdown",
    "tensorboard",
    "wandb",
    "csv_monitor",
    "comet",
    "elasticity",
    "aio",
    "data_efficiency",
    "curriculum_learning",
    "compression_training",
    "sparse_attention",
    "pipeline",
    "checkpoint",
    "data_types",
    "quantize_training",
    "compile",
    "hybrid_engine",
    "nebula",
    "eigenvalue",
    "progressive_layer_drop",
    "weight_quantization",
    "tensor_parallel",
    "seq_parallel_communication_data_type",
    "disable_allgather",
    "dataloader_drop_last",
    "use_data_before_expert_parallel_",
    "torch_autocast",
    "graph_harvesting",
];

/// The HF TrainingArguments keys a typo most often hides.
const TRAINER_BATCH_KEYS: [&str; 8] = [
    "per_device_train_batch_size",
    "per_device_eval_batch_size",
    "gradient_accumulation_steps",
    "learning_rate",
    "num_train_epochs",
    "max_steps",
    "warmup_steps",
    "eval_accumulation_steps",
];

const AXOLOTL_BATCH_KEYS: [&str; 6] = ["micro_batch_size", "gradient_accumulation_steps", "batch_size", "sequence_len", "learning_rate", "num_epochs"];

pub fn check(checker: &mut Checker, document: &Document, root: &Node, resolved: &ResolvedConfig) {
    match resolved.detection.dialect {
        Dialect::Deepspeed => near_misses(checker, document, root, "", &DEEPSPEED_KEYS),
        Dialect::HfTrainer | Dialect::LlamaFactory => near_misses(checker, document, root, "", &TRAINER_BATCH_KEYS),
        Dialect::Axolotl => near_misses(checker, document, root, "", &AXOLOTL_BATCH_KEYS),
        Dialect::Lightning => {
            let path = if root.get("_target_").is_some() {
                Some(String::new())
            } else {
                root.get("trainer").map(|_| "trainer".to_owned()).or_else(|| find_trainer(root))
            };
            let Some(path) = path else { return };
            let trainer = if path.is_empty() { Some(root) } else { root.get_dotted(&path) };
            if let Some(entries) = trainer.and_then(Node::entries) {
                let known: Vec<String> = LIGHTNING_TRAINER_KEYS.iter().map(|k| (*k).to_owned()).collect();
                let pointer = format!("/{}", path.replace('.', "/"));
                for entry in entries {
                    if entry.key.starts_with('_') || LIGHTNING_TRAINER_KEYS.contains(&entry.key.as_str()) || removed_by_migration(&entry.key) {
                        continue;
                    }
                    checker.report(unknown_key::diagnostic(document, if path.is_empty() { "" } else { &pointer }, entry, &known));
                }
            }
        }
        _ => {}
    }
}

/// Keys MIG002/MIG003 already report with their replacement.
fn removed_by_migration(key: &str) -> bool {
    [
        "gpus",
        "replace_sampler_ddp",
        "resume_from_checkpoint",
        "auto_lr_find",
        "auto_scale_batch_size",
        "tpu_cores",
        "ipus",
        "num_processes",
        "track_grad_norm",
        "amp_backend",
        "amp_level",
        "move_metrics_to_cpu",
        "multiple_trainloader_mode",
        "auto_select_gpus",
        "weights_summary",
        "progress_bar_refresh_rate",
        "flush_logs_every_n_steps",
        "terminate_on_nan",
        "stochastic_weight_avg",
    ]
    .contains(&key)
}

/// Unknown keys within two edits of a known one (and not themselves known).
fn near_misses(checker: &mut Checker, document: &Document, root: &Node, pointer: &str, known: &[&str]) {
    let Some(entries) = root.entries() else { return };
    for entry in entries {
        if known.contains(&entry.key.as_str()) || entry.key.starts_with('_') {
            continue;
        }
        if close(&entry.key, known) {
            let known_owned: Vec<String> = known.iter().map(|k| (*k).to_owned()).collect();
            report(checker, document, pointer, entry, &known_owned);
        }
    }
}

fn close(key: &str, known: &[&str]) -> bool {
    let normalized = |s: &str| s.to_ascii_lowercase().replace(['-', '_'], "");
    let key = normalized(key);
    known.iter().any(|k| {
        let k = normalized(k);
        // Two strings whose lengths differ by more than 2 are more than 2 edits
        // apart: skip the distance (most keys of a config are far from all known ones).
        key.chars().count().abs_diff(k.chars().count()) <= 2 && (key == k || super::levenshtein_public(&key, &k) <= 2)
    })
}

fn report(checker: &mut Checker, document: &Document, pointer: &str, entry: &Entry, known: &[String]) {
    checker.report(unknown_key::diagnostic(document, pointer, entry, known));
}
