//! Roles: what a config value means for a training run, whatever its key is called.
//!
//! A dialect binds roles to key paths (`micro_batch` is `batch.micro_batch` in
//! trainlint's native format, `train_micro_batch_size_per_gpu` in DeepSpeed).
//! Rules read roles, never key names.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    MicroBatch,
    Accumulation,
    GlobalBatch,
    EffectiveBatchTarget,
    Devices,
    Nodes,
    TensorParallel,
    PipelineParallel,
    ContextParallel,
    Precision,
    Optimizer,
    Parameters,
    TrainableFraction,
    Ema,
    SequenceLength,
    HiddenSize,
    Layers,
    Heads,
    VocabSize,
    Attention,
    ActivationCheckpointing,
    ZeroStage,
    Fsdp,
    LearningRate,
    BaseWeights,
    LargestLayerParameters,
    OffloadOptimizer,
    OffloadParams,
    // The model a config names (a Hugging Face hub id, a model builder, a local path): the
    // catalog (`crate::model`) fills the shape roles the config does not state. (A `///` comment
    // here would change the schema schemars generates for the manifest's `[bindings]` keys.)
    Model,
    // Parameter-efficient fine-tuning method (`lora`, `qlora`, `freeze`, ...; typed `Adapter`).
    Adapter,
    // LoRA rank r (each adapted d_in × d_out linear gains r·(d_in + d_out) trainable parameters).
    LoraRank,
    // The modules LoRA adapts (typed `LoraTargets`: q, k, v, o, gate, up, down, lm_head or all-linear).
    LoraTargets,
    // How the loss reads the logits (typed `Logits`: upcast to fp32, chunked, fused).
    Logits,
    // The optimizer steps inside the backward, parameter by parameter (a boolean).
    OptimizerInBackward,
    // A 4/8-bit base prepared for training: its other parameters cast to fp32 (a boolean).
    KbitPrepare,
    // A 16-bit model whose embeddings and output head stay fp32 (a boolean).
    Fp32Embeddings,
    // A preference objective (typed `Preference`: dpo, orpo, simpo, kto, reward): paired
    // chosen/rejected sequences, and a frozen reference model for DPO and KTO.
    Preference,
    // The run compiles its model or loss with `torch.compile` (a boolean).
    Compile,
    // Under FSDP, gradients are reduce-scattered after every micro batch instead of being
    // accumulated unsharded until the last one (a boolean).
    SyncEachBatch,
    // Whether the output head shares the input embedding's weights, where the framework decides
    // it rather than the model's config (a boolean).
    TieEmbeddings,
    // OFT's block size (each adapted linear trains d_in ÷ b skew-symmetric b × b blocks).
    OftBlockSize,
    // The rank GaLore and APOLLO project gradients to.
    OptimizerRank,
    // Completions generated per prompt by an online RL trainer (TRL GRPO's `num_generations`).
    Generations,
    // Optimizer steps one generation batch is split over (TRL GRPO's `steps_per_generation`).
    GenerationSteps,
    // Completions generated per batch, when stated (TRL GRPO's `generation_batch_size`).
    GenerationBatch,
    // ZeRO's gradient reduce bucket, in elements (DeepSpeed's `reduce_bucket_size`; a number, or
    // `auto`, which HF's DeepSpeed integration fills from the model's hidden size).
    ZeroReduceBucketSize,
    // ZeRO-3's parameter prefetch bucket, in elements (DeepSpeed's `stage3_prefetch_bucket_size`).
    ZeroPrefetchBucketSize,
    // The most parameters ZeRO-3 keeps gathered on a GPU (DeepSpeed's `stage3_max_live_parameters`).
    ZeroMaxLiveParameters,
    // Parameters smaller than this stay whole on every GPU under ZeRO-3 (DeepSpeed's
    // `stage3_param_persistence_threshold`).
    ZeroPersistenceThreshold,
}

impl Role {
    pub const ALL: [Role; 49] = [
        Role::MicroBatch,
        Role::Accumulation,
        Role::GlobalBatch,
        Role::EffectiveBatchTarget,
        Role::Devices,
        Role::Nodes,
        Role::TensorParallel,
        Role::PipelineParallel,
        Role::ContextParallel,
        Role::Precision,
        Role::Optimizer,
        Role::Parameters,
        Role::TrainableFraction,
        Role::Ema,
        Role::SequenceLength,
        Role::HiddenSize,
        Role::Layers,
        Role::Heads,
        Role::VocabSize,
        Role::Attention,
        Role::ActivationCheckpointing,
        Role::ZeroStage,
        Role::Fsdp,
        Role::LearningRate,
        Role::BaseWeights,
        Role::LargestLayerParameters,
        Role::OffloadOptimizer,
        Role::OffloadParams,
        Role::Model,
        Role::Adapter,
        Role::LoraRank,
        Role::LoraTargets,
        Role::Logits,
        Role::OptimizerInBackward,
        Role::KbitPrepare,
        Role::Fp32Embeddings,
        Role::Preference,
        Role::Compile,
        Role::SyncEachBatch,
        Role::TieEmbeddings,
        Role::OftBlockSize,
        Role::OptimizerRank,
        Role::Generations,
        Role::GenerationSteps,
        Role::GenerationBatch,
        Role::ZeroReduceBucketSize,
        Role::ZeroPrefetchBucketSize,
        Role::ZeroMaxLiveParameters,
        Role::ZeroPersistenceThreshold,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Role::MicroBatch => "micro_batch",
            Role::Accumulation => "accumulation",
            Role::GlobalBatch => "global_batch",
            Role::EffectiveBatchTarget => "effective_batch_target",
            Role::Devices => "devices",
            Role::Nodes => "nodes",
            Role::TensorParallel => "tensor_parallel",
            Role::PipelineParallel => "pipeline_parallel",
            Role::ContextParallel => "context_parallel",
            Role::Precision => "precision",
            Role::Optimizer => "optimizer",
            Role::Parameters => "parameters",
            Role::TrainableFraction => "trainable_fraction",
            Role::Ema => "ema",
            Role::SequenceLength => "sequence_length",
            Role::HiddenSize => "hidden_size",
            Role::Layers => "layers",
            Role::Heads => "heads",
            Role::VocabSize => "vocab_size",
            Role::Attention => "attention",
            Role::ActivationCheckpointing => "activation_checkpointing",
            Role::ZeroStage => "zero_stage",
            Role::Fsdp => "fsdp",
            Role::LearningRate => "learning_rate",
            Role::BaseWeights => "base_weights",
            Role::LargestLayerParameters => "largest_layer_parameters",
            Role::OffloadOptimizer => "offload_optimizer",
            Role::OffloadParams => "offload_params",
            Role::Model => "model",
            Role::Adapter => "adapter",
            Role::LoraRank => "lora_rank",
            Role::LoraTargets => "lora_targets",
            Role::Logits => "logits",
            Role::OptimizerInBackward => "optimizer_in_backward",
            Role::KbitPrepare => "kbit_prepare",
            Role::Fp32Embeddings => "fp32_embeddings",
            Role::Preference => "preference",
            Role::Compile => "compile",
            Role::SyncEachBatch => "sync_each_batch",
            Role::TieEmbeddings => "tie_embeddings",
            Role::OftBlockSize => "oft_block_size",
            Role::OptimizerRank => "optimizer_rank",
            Role::Generations => "generations",
            Role::GenerationSteps => "generation_steps",
            Role::GenerationBatch => "generation_batch",
            Role::ZeroReduceBucketSize => "zero_reduce_bucket_size",
            Role::ZeroPrefetchBucketSize => "zero_prefetch_bucket_size",
            Role::ZeroMaxLiveParameters => "zero_max_live_parameters",
            Role::ZeroPersistenceThreshold => "zero_persistence_threshold",
        }
    }

    pub fn from_name(name: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.name() == name)
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
