//! DeepSpeed's JSON config (FACTS.md §1 and §6; `deepspeed/runtime/config.py`).
//!
//! `"auto"` means "filled in by the HF Trainer" (HF's DeepSpeed integration):
//! unknown here unless the manifest pairs the config with the trainer config
//! that fills it (`[[pair]]`).

use super::{Doc, BatchSemantics, Dialect, DerivedRoles, Evidence, Framework, KnownKeys};
use crate::load::Node;
use crate::schema::{Manifest, Role};

pub(crate) const DEEPSPEED: Dialect = Dialect(&Deepspeed);

pub(crate) struct Deepspeed;

pub(crate) const BINDINGS: [(Role, &str); 10] = [
    (Role::MicroBatch, "train_micro_batch_size_per_gpu"),
    (Role::Accumulation, "gradient_accumulation_steps"),
    (Role::GlobalBatch, "train_batch_size"),
    (Role::ZeroStage, "zero_optimization.stage"),
    (Role::LearningRate, "optimizer.params.lr"),
    (Role::OffloadOptimizer, "zero_optimization.offload_optimizer.device"),
    ZERO3_IN_FLIGHT[0],
    ZERO3_IN_FLIGHT[1],
    ZERO3_IN_FLIGHT[2],
    ZERO3_IN_FLIGHT[3],
];

/// What ZeRO-3 keeps on the GPU in flight, as `DeepSpeedZeroConfig` names it (DeepSpeed 38327e07
/// `runtime/zero/config.py`: `reduce_bucket_size`, and the `stage3_*` aliases of
/// `prefetch_bucket_size`, `max_live_parameters`, `param_persistence_threshold`). A number, or
/// `"auto"`, which HF's integration fills from the model's hidden size (`estimate::zero::Stage3InFlight`).
/// Read here for a DeepSpeed config, and from the DeepSpeed file a training config names
/// (`resolve::fill_from_deepspeed_file`).
pub(crate) const ZERO3_IN_FLIGHT: [(Role, &str); 4] = [
    (Role::ZeroReduceBucketSize, "zero_optimization.reduce_bucket_size"),
    (Role::ZeroPrefetchBucketSize, "zero_optimization.stage3_prefetch_bucket_size"),
    (Role::ZeroMaxLiveParameters, "zero_optimization.stage3_max_live_parameters"),
    (Role::ZeroPersistenceThreshold, "zero_optimization.stage3_param_persistence_threshold"),
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

/// DeepSpeed's top-level config keys (`docs/_pages/config-json.md`,
/// `deepspeed/runtime/config.py`), and keys seen in DeepSpeed's own examples.
const KNOWN_KEYS: [&str; 52] = [
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

/// The DeepSpeed-only keys at the top level, in words, or `None`.
fn evidence(root: &Node) -> Option<String> {
    let found: Vec<&str> = EVIDENCE.iter().copied().filter(|k| root.get(k).is_some()).collect();
    (!found.is_empty()).then(|| format!("DeepSpeed keys at the top level: {}", found.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")))
}

impl Framework for Deepspeed {
    fn name(&self) -> &'static str {
        "deepspeed"
    }

    fn title(&self) -> &'static str {
        "DeepSpeed"
    }

    fn doc(&self) -> Doc {
        Doc {
            evidence: "DeepSpeed-only top-level keys (`train_micro_batch_size_per_gpu`, `zero_optimization`, `steps_per_print`, ...)",
            roles: "`train_micro_batch_size_per_gpu`, `gradient_accumulation_steps`, `train_batch_size`, `zero_optimization.stage`, `optimizer.params.lr`; ZeRO-3's buffers (`reduce_bucket_size`, `stage3_prefetch_bucket_size`, `stage3_max_live_parameters`, `stage3_param_persistence_threshold`); precision from `bf16.enabled` / `fp16.enabled`",
            semantics: "DeepSpeed's derivation (BAT003/BAT004/BAT007); `\"auto\"` is unknown, or filled from a `[[pair]]`ed HF config",
        }
    }

    fn evidence(&self, cx: &Evidence) -> Option<String> {
        evidence(cx.root)
    }

    fn bindings(&self, _manifest: &Manifest) -> Vec<(Role, String)> {
        super::owned(&BINDINGS)
    }

    /// Precision from `bf16.enabled` (or the legacy `bfloat16`), `fp16.enabled`;
    /// `"auto"` there is the precision `auto`.
    fn derived(&self, root: &Node) -> Vec<super::Derived> {
        let mut out = DerivedRoles::default();
        let sections = [("bf16", "bf16-mixed"), ("bfloat16", "bf16-mixed"), ("fp16", "16-mixed")];
        let enabled = |section: &str| root.get_dotted(&format!("{section}.enabled"));
        if let Some((section, precision)) =
            sections.iter().find(|(section, _)| enabled(section).is_some_and(|n| n.value == crate::load::Value::Bool(true) || n.as_str() == Some("true")))
        {
            out.push(Role::Precision, (*precision).into(), &format!("{section}.enabled"));
        } else if let Some((section, _)) =
            sections.iter().find(|(section, _)| enabled(section).and_then(Node::as_str).is_some_and(|s| s.eq_ignore_ascii_case("auto")))
        {
            // `"enabled": "auto"` is filled in by HF's DeepSpeed integration from
            // TrainingArguments' `bf16` / `fp16` (FACTS.md §6): unknown here, never bf16 (issue 15 item 5).
            out.push(Role::Precision, "auto".into(), &format!("{section}.enabled"));
        }
        out.0
    }

    /// Given two of (global, micro, accumulation) DeepSpeed derives the third
    /// (FACTS.md §1, `_set_batch_related_parameters`), and asserts when a
    /// config sets its batch only in part; `"auto"` is filled by HF's
    /// DeepSpeed integration (`integrations/deepspeed.py`, FACTS.md §6).
    fn batch(&self) -> BatchSemantics {
        BatchSemantics { needs_batch_size: true, auto_from_pair: true, ..BatchSemantics::default() }
    }

    /// The `deepspeed` distribution: MIG005 (`bfloat16` → `bf16`, DeepSpeed 0.6.0) reads its version.
    fn distributions(&self) -> &'static [&'static str] {
        &["deepspeed"]
    }

    /// DeepSpeed ignores keys it does not know: only near misses are reported.
    fn known_keys(&self, _root: &Node) -> Option<KnownKeys> {
        Some(KnownKeys { path: String::new(), keys: &KNOWN_KEYS, strict: false, reported_elsewhere: &[] })
    }

    /// The whole file, when it is a DeepSpeed config (MIG005).
    fn migration_scopes<'a>(&self, root: &'a Node) -> Vec<&'a Node> {
        evidence(root).map(|_| root).into_iter().collect()
    }
}
