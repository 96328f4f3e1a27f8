//! DeepSpeed's config keys (FACTS.md §1 and §6; `deepspeed/runtime/config.py`).
//!
//! Only the batch keys, ZeRO stage and learning rate are bound so far; the
//! full dialect (offload, precision blocks, HF pairing of `"auto"`) comes with
//! the framework dialects. `"auto"` means "filled in by the HF Trainer": unknown here.

use crate::load::Node;
use crate::schema::Role;

pub const BINDINGS: [(Role, &str); 6] = [
    (Role::MicroBatch, "train_micro_batch_size_per_gpu"),
    (Role::Accumulation, "gradient_accumulation_steps"),
    (Role::GlobalBatch, "train_batch_size"),
    (Role::ZeroStage, "zero_optimization.stage"),
    (Role::LearningRate, "optimizer.params.lr"),
    (Role::OffloadOptimizer, "zero_optimization.offload_optimizer.device"),
];

/// Keys that only DeepSpeed configs have at their top level (DeepSpeed's
/// `docs/_pages/config-json.md`).
const EVIDENCE: [&str; 12] = [
    "train_micro_batch_size_per_gpu",
    "train_batch_size",
    "zero_optimization",
    "zero_allow_untested_optimizer",
    "steps_per_print",
    "wall_clock_breakdown",
    "gradient_clipping",
    "quantize_training",
    "flops_profiler",
    "compression_training",
    "data_efficiency",
    "elasticity",
];

pub fn evidence(root: &Node) -> Option<String> {
    let found: Vec<&str> = EVIDENCE.iter().copied().filter(|k| root.get(k).is_some()).collect();
    (!found.is_empty()).then(|| format!("DeepSpeed keys at the top level: {}", found.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")))
}
