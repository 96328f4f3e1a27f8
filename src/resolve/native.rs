//! Bindings of trainlint's native format: role → dotted key path.
//!
//! The schema carries the same facts as `x-trainlint.role` annotations;
//! `tests/schemas.rs` checks that the two agree.

use crate::schema::Role;

pub const BINDINGS: [(Role, &str); 28] = [
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
    (Role::LargestLayerParameters, "model.largest_layer_parameters"),
    (Role::OffloadOptimizer, "sharding.offload_optimizer"),
    (Role::OffloadParams, "sharding.offload_params"),
];
