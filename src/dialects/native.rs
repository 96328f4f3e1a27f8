//! trainlint's native format (`trainlint: 1` at the top level): bindings
//! role → dotted key path.
//!
//! The schema carries the same facts as `x-trainlint.role` annotations;
//! `tests/schemas.rs` checks that the two agree.

use super::{Doc, Dialect, Evidence, Framework, WorldSize};
use crate::schema::{Manifest, Role};

pub(crate) const NATIVE: Dialect = Dialect(&Native);

pub(crate) struct Native;

pub const BINDINGS: [(Role, &str); 46] = [
    (Role::MicroBatch, "batch.micro_batch"),
    (Role::Accumulation, "batch.accumulation"),
    (Role::GlobalBatch, "batch.global_batch"),
    (Role::EffectiveBatchTarget, "batch.effective_batch"),
    (Role::Devices, "parallel.devices"),
    (Role::Nodes, "parallel.nodes"),
    (Role::TensorParallel, "parallel.tensor"),
    (Role::PipelineParallel, "parallel.pipeline"),
    (Role::ContextParallel, "parallel.context"),
    (Role::Precision, "precision"),
    (Role::Optimizer, "optimizer"),
    (Role::OptimizerRank, "optimizer_rank"),
    (Role::Parameters, "model.parameters"),
    (Role::TrainableFraction, "model.trainable_fraction"),
    (Role::Ema, "model.ema"),
    (Role::SequenceLength, "model.sequence_length"),
    (Role::HiddenSize, "model.hidden_size"),
    (Role::Layers, "model.layers"),
    (Role::Heads, "model.heads"),
    (Role::VocabSize, "model.vocab_size"),
    (Role::Attention, "model.attention"),
    (Role::ActivationCheckpointing, "model.activation_checkpointing"),
    (Role::ZeroStage, "sharding.zero_stage"),
    (Role::Fsdp, "sharding.fsdp"),
    (Role::LearningRate, "learning_rate"),
    (Role::BaseWeights, "model.base_weights"),
    (Role::KbitPrepare, "model.kbit_prepare"),
    (Role::Fp32Embeddings, "model.fp32_embeddings"),
    (Role::TieEmbeddings, "model.tie_embeddings"),
    (Role::Compile, "model.compile"),
    (Role::SyncEachBatch, "sharding.sync_each_batch"),
    (Role::LargestLayerParameters, "model.largest_layer_parameters"),
    (Role::OffloadOptimizer, "sharding.offload_optimizer"),
    (Role::OffloadParams, "sharding.offload_params"),
    (Role::ZeroReduceBucketSize, "sharding.reduce_bucket_size"),
    (Role::ZeroPrefetchBucketSize, "sharding.prefetch_bucket_size"),
    (Role::ZeroMaxLiveParameters, "sharding.max_live_parameters"),
    (Role::ZeroPersistenceThreshold, "sharding.param_persistence_threshold"),
    (Role::Model, "model.name"),
    (Role::Adapter, "model.adapter"),
    (Role::LoraRank, "model.lora_rank"),
    (Role::OftBlockSize, "model.oft_block_size"),
    (Role::LoraTargets, "model.lora_targets"),
    (Role::Logits, "model.logits"),
    (Role::OptimizerInBackward, "optimizer_in_backward"),
    (Role::Preference, "preference"),
];

impl Framework for Native {
    fn name(&self) -> &'static str {
        "native"
    }

    fn title(&self) -> &'static str {
        "native"
    }

    fn doc(&self) -> Doc {
        Doc {
            evidence: "`trainlint: 1`",
            roles: "`batch.micro_batch`, ... (schema)",
            semantics: "validated against the JSON Schema",
        }
    }

    fn evidence(&self, cx: &Evidence) -> Option<String> {
        cx.has("trainlint").then(|| "the top-level key `trainlint` marks the native format".to_owned())
    }

    fn bindings(&self, _manifest: &Manifest) -> Vec<(Role, String)> {
        super::owned(&BINDINGS)
    }

    fn world_size(&self) -> WorldSize {
        WorldSize::Devices
    }

    fn is_native(&self) -> bool {
        true
    }
}
