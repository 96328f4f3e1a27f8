//! trainlint's native training config: also the shape of the resolved view.
//!
//! Every field is optional except the format marker, because a config states
//! what it knows; what it does not state is unknown, never guessed. Fields
//! that carry a role say so in the schema as `x-trainlint: {role: ...}`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A training configuration in trainlint's native format.
///
/// Mark a file as native with `trainlint: 1` at the top level; point editors at
/// this schema with `# yaml-language-server: $schema=<path>/training-config.schema.json`.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "trainlint training config")]
pub(crate) struct TrainingConfig {
    /// Native format version. Its presence marks the file as trainlint's native format.
    #[schemars(range(min = 1, max = 1))]
    pub trainlint: u32,
    /// A name for the run, used in messages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Batch sizes: micro batch, gradient accumulation, explicit global batch, declared target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch: Option<Batch>,
    /// How the run is spread over devices and nodes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parallel: Option<Parallel>,
    /// Numeric precision of training.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-trainlint" = {"role": "precision", "resolution": "higher-is-finer"}))]
    pub precision: Option<Precision>,
    /// The optimizer, which decides the bytes of optimizer state per trainable parameter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-trainlint" = {"role": "optimizer"}))]
    pub optimizer: Option<Optimizer>,
    /// The rank r GaLore and APOLLO project each linear weight's gradient to (their optimizer
    /// states are r × max(d_in, d_out) per linear).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1), extend("x-trainlint" = {"role": "optimizer_rank"}))]
    pub optimizer_rank: Option<u32>,
    /// The optimizer steps inside the backward, parameter by parameter, so no full set of
    /// gradients is kept (PyTorch's `register_post_accumulate_grad_hook`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-trainlint" = {"role": "optimizer_in_backward"}))]
    pub optimizer_in_backward: Option<bool>,
    /// A preference objective: `dpo` (also `ipo`; a frozen reference model), `orpo`, `simpo`/`cpo`
    /// (no reference), `kto` (a reference model, unpaired), `reward` (reward modelling). Paired
    /// objectives run the chosen and the rejected sequence of each sample through the model together.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-trainlint" = {"role": "preference"}))]
    pub preference: Option<PreferenceKind>,
    /// Peak learning rate (BAT005 suggests the linearly scaled one when the effective batch changes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0), extend("x-trainlint" = {"role": "learning_rate"}))]
    pub learning_rate: Option<f64>,
    /// Model facts the memory model needs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<Model>,
    /// ZeRO / FSDP sharding of model states over the data-parallel world.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sharding: Option<Sharding>,
    /// GPU targets (catalog ids such as `rtx-4090`) this config must fit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpus: Option<Vec<String>>,
    /// Memory facts the model cannot know from the rest of the config.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<Memory>,
    /// Environment variables the run sets (for example `PYTORCH_ALLOC_CONF`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env: Option<BTreeMap<String, String>>,
    /// Free-form project settings (loss resolution, data limits, ...) that
    /// memory terms and resolution checks refer to by dotted path, e.g. `settings.loss.bin_size`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<serde_json::Map<String, serde_json::Value>>,
}

/// Batch sizes. effective batch = micro batch × accumulation × data-parallel world size.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Batch {
    /// Samples per device per forward pass (the physical batch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1), extend("x-trainlint" = {"role": "micro_batch"}))]
    pub micro_batch: Option<u32>,
    /// Gradient accumulation steps per optimizer step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1), extend("x-trainlint" = {"role": "accumulation"}))]
    pub accumulation: Option<u32>,
    /// An explicit global batch the launcher also uses (as DeepSpeed's `train_batch_size`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1), extend("x-trainlint" = {"role": "global_batch"}))]
    pub global_batch: Option<u32>,
    /// The effective batch this run must keep, across stages and GPU targets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1), extend("x-trainlint" = {"role": "effective_batch_target"}))]
    pub effective_batch: Option<u32>,
}

/// Parallelism. data-parallel world = devices × nodes ÷ (tensor × pipeline × context).
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Parallel {
    /// Devices (GPUs) per node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1), extend("x-trainlint" = {"role": "devices"}))]
    pub devices: Option<u32>,
    /// Number of nodes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1), extend("x-trainlint" = {"role": "nodes"}))]
    pub nodes: Option<u32>,
    /// Tensor-parallel degree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1), extend("x-trainlint" = {"role": "tensor_parallel"}))]
    pub tensor: Option<u32>,
    /// Pipeline-parallel degree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1), extend("x-trainlint" = {"role": "pipeline_parallel"}))]
    pub pipeline: Option<u32>,
    /// Context-parallel degree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1), extend("x-trainlint" = {"role": "context_parallel"}))]
    pub context: Option<u32>,
}

/// Training precision, in Lightning 2.x spelling.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum Precision {
    #[serde(rename = "64-true")]
    Fp64,
    #[serde(rename = "32-true")]
    Fp32,
    #[serde(rename = "16-mixed")]
    Fp16Mixed,
    #[serde(rename = "bf16-mixed")]
    Bf16Mixed,
    #[serde(rename = "16-true")]
    Fp16True,
    #[serde(rename = "bf16-true")]
    Bf16True,
    #[serde(rename = "fp8-mixed")]
    Fp8Mixed,
}

/// Optimizers whose state size per trainable parameter is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Optimizer {
    Adamw,
    Adam,
    // `torch.optim.AdamW(fused=True)`: one kernel per step, no foreach workspace.
    AdamwFused,
    #[serde(rename = "adamw-8bit")]
    Adamw8bit,
    Sgd,
    SgdMomentum,
    Adafactor,
    Lion,
    AdamMini,
    GaloreAdamw,
    ApolloAdamw,
    Badam,
}

/// Model facts.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Model {
    /// The model trained: a Hugging Face hub id, a model builder or litgpt name, or a local folder
    /// with a config.json. The model catalog fills `parameters`, `hidden_size`, `layers`, `heads` and
    /// `vocab_size` from it where they are not stated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-trainlint" = {"role": "model"}))]
    pub name: Option<String>,
    /// Total parameters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1), extend("x-trainlint" = {"role": "parameters"}))]
    pub parameters: Option<u64>,
    /// Fraction of parameters that are trained (LoRA adapters: about 0.01).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0, max = 1.0), extend("x-trainlint" = {"role": "trainable_fraction"}))]
    pub trainable_fraction: Option<f64>,
    /// Whether an exponential moving average copy of the weights is kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-trainlint" = {"role": "ema"}))]
    pub ema: Option<bool>,
    /// Maximum sequence length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1), extend("x-trainlint" = {"role": "sequence_length", "resolution": "higher-is-finer"}))]
    pub sequence_length: Option<u32>,
    /// Hidden size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1), extend("x-trainlint" = {"role": "hidden_size"}))]
    pub hidden_size: Option<u32>,
    /// Transformer layers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1), extend("x-trainlint" = {"role": "layers"}))]
    pub layers: Option<u32>,
    /// Attention heads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1), extend("x-trainlint" = {"role": "heads"}))]
    pub heads: Option<u32>,
    /// Vocabulary size (for the logits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1), extend("x-trainlint" = {"role": "vocab_size"}))]
    pub vocab_size: Option<u32>,
    /// Attention implementation: eager keeps the s² score matrices, sdpa/flash do not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-trainlint" = {"role": "attention"}))]
    pub attention: Option<Attention>,
    /// Activation checkpointing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-trainlint" = {"role": "activation_checkpointing"}))]
    pub activation_checkpointing: Option<Checkpointing>,
    /// How the frozen base weights are stored when they are quantized (QLoRA: `int4`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-trainlint" = {"role": "base_weights"}))]
    pub base_weights: Option<BaseWeights>,
    /// Whether the parameters of a quantized base that are not 4/8-bit (embeddings, norms,
    /// output head) are cast to fp32 for training, as PEFT's `prepare_model_for_kbit_training`
    /// does (TRL's SFTTrainer and Axolotl call it; LLaMA-Factory does not). Default: false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-trainlint" = {"role": "kbit_prepare"}))]
    pub kbit_prepare: Option<bool>,
    /// Whether a model trained in 16-bit (`bf16-true`) keeps its embeddings and output head
    /// in fp32: Axolotl loads a full fine-tune in bf16 and leaves `embed_tokens`, `lm_head` and
    /// the norms in fp32 unless the attention needs one dtype (flash attention). Default: false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-trainlint" = {"role": "fp32_embeddings"}))]
    pub fp32_embeddings: Option<bool>,
    /// Whether the output head shares the input embedding's weights. Default: as the model's
    /// config says (catalog or config.json); litgpt never ties them in fine-tuning (its `GPT` has
    /// its own `lm_head`), so a tied checkpoint trains with a second V × h matrix there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-trainlint" = {"role": "tie_embeddings"}))]
    pub tie_embeddings: Option<bool>,
    /// Whether the run compiles its model and loss with `torch.compile` (torchtune `compile`,
    /// Hugging Face `torch_compile`). A compiled chunked loss keeps only the 16-bit logits for
    /// its backward. Default: false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-trainlint" = {"role": "compile"}))]
    pub compile: Option<bool>,
    /// What the fine-tune trains: every parameter (`full`, the default) or adapters on a frozen base.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-trainlint" = {"role": "adapter"}))]
    pub adapter: Option<AdapterKind>,
    /// OFT's block size b: each adapted linear trains d_in ÷ b rotations of b(b−1)/2 parameters
    /// (PEFT `OFTConfig.oft_block_size`, default 32).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 2), extend("x-trainlint" = {"role": "oft_block_size"}))]
    pub oft_block_size: Option<u32>,
    /// LoRA rank r.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1), extend("x-trainlint" = {"role": "lora_rank"}))]
    pub lora_rank: Option<u32>,
    /// The modules LoRA adapts: `all-linear`, or names as the framework spells them (`q_proj`, `v_proj`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-trainlint" = {"role": "lora_targets"}))]
    pub lora_targets: Option<LoraTargets>,
    /// How the loss holds the logits: `upcast` to fp32 (Hugging Face), `chunked` (a chunked-output loss), `fused` (Liger, cut-cross-entropy).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-trainlint" = {"role": "logits"}))]
    pub logits: Option<LogitsKind>,
    /// Parameters of the largest layer (DeepSpeed's ZeRO-3 estimator gathers it in fp32).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1), extend("x-trainlint" = {"role": "largest_layer_parameters"}))]
    pub largest_layer_parameters: Option<u64>,
}

/// What a fine-tune trains.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum AdapterKind {
    Full,
    Lora,
    Qlora,
    Dora,
    Oft,
}

/// LoRA target modules: one name (`all-linear`) or a list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub(crate) enum LoraTargets {
    One(String),
    List(Vec<String>),
}

/// A preference objective.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum PreferenceKind {
    Dpo,
    Ipo,
    Orpo,
    Simpo,
    Cpo,
    Kto,
    Reward,
}

/// How the loss holds the logits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum LogitsKind {
    Upcast,
    Chunked,
    Fused,
}

/// Storage of quantized frozen base weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum BaseWeights {
    Int8,
    Int4,
}

/// Memory facts: a per-sample activation size, extra terms, the CUDA context.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Memory {
    /// Activation bytes per sample, with a unit (`"131 MiB"`); measured or declared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = null))]
    #[schemars(example = &"131 MiB")]
    pub activation_bytes_per_sample: Option<String>,
    /// Memory the CUDA context and kernels take, in MiB (default 1000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0), extend("default" = 1000))]
    #[schemars(example = 800)]
    pub cuda_context_mib: Option<f64>,
    /// Extra tensors, each a safe arithmetic expression over config values
    /// and roles with units, e.g. `micro_batch * settings.model.max_peaks * 4 B`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("default" = []))]
    #[schemars(example = serde_json::json!([{"name": "peak buffer", "bytes": "micro_batch * 4 MiB"}]))]
    pub terms: Vec<MemoryTerm>,
}

/// One named memory term.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MemoryTerm {
    /// Shown in the breakdown table.
    #[schemars(example = &"peak buffer")]
    pub name: String,
    /// Bytes, as an expression: numbers, names (roles such as `micro_batch`,
    /// or dotted config paths), + - * / ^, parentheses, min/max, units (B, KiB, MiB, GiB, KB, MB, GB).
    #[schemars(example = &"micro_batch * settings.model.max_peaks * 4 B")]
    pub bytes: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Attention {
    Eager,
    Sdpa,
    Flash,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Checkpointing {
    None,
    Selective,
    Full,
    // Full checkpointing with the kept layer inputs offloaded to CPU memory. (A `///` comment
    // would turn the schema's enum into a oneOf.)
    Offload,
}

/// Sharding of model states.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Sharding {
    /// DeepSpeed ZeRO stage (0 = off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(max = 3), extend("x-trainlint" = {"role": "zero_stage"}))]
    pub zero_stage: Option<u8>,
    /// Fully sharded data parallel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-trainlint" = {"role": "fsdp"}))]
    pub fsdp: Option<bool>,
    /// ZeRO optimizer states offloaded to CPU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-trainlint" = {"role": "offload_optimizer"}))]
    pub offload_optimizer: Option<bool>,
    /// ZeRO-3 parameters offloaded to CPU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-trainlint" = {"role": "offload_params"}))]
    pub offload_params: Option<bool>,
    /// ZeRO's gradient reduce bucket in elements (DeepSpeed's `reduce_bucket_size`, default 5e8):
    /// one flat 16-bit buffer on each GPU under ZeRO-3.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-trainlint" = {"role": "zero_reduce_bucket_size"}))]
    pub reduce_bucket_size: Option<u64>,
    /// ZeRO-3's parameter prefetch bucket in elements (DeepSpeed's `stage3_prefetch_bucket_size`, default 5e7).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-trainlint" = {"role": "zero_prefetch_bucket_size"}))]
    pub prefetch_bucket_size: Option<u64>,
    /// The most parameters ZeRO-3 keeps gathered on each GPU besides the module it runs
    /// (DeepSpeed's `stage3_max_live_parameters`, default 1e9).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-trainlint" = {"role": "zero_max_live_parameters"}))]
    pub max_live_parameters: Option<u64>,
    /// Parameters with fewer elements stay whole on every GPU under ZeRO-3 (DeepSpeed's
    /// `stage3_param_persistence_threshold`, default 1e5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-trainlint" = {"role": "zero_persistence_threshold"}))]
    pub param_persistence_threshold: Option<u64>,
    /// Under FSDP with gradient accumulation, whether gradients are reduce-scattered after every
    /// micro batch (`true`: torchtune's FSDP2 recipes, accelerate's `sync_each_batch`) or
    /// accumulated unsharded until the last one (FSDP's `no_sync`, what accelerate and Lightning
    /// Fabric do by default: the whole model's gradients on each GPU). Default: false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-trainlint" = {"role": "sync_each_batch"}))]
    pub sync_each_batch: Option<bool>,
}
