//! Typed role values: what a precision, optimizer, attention, activation
//! checkpointing or base-weight quantization *means*, parsed once.
//!
//! Dialects bind roles to keys and hand over the raw JSON value; everything
//! downstream (the memory model, RES002, HW001/HW002) asks these types, never
//! the spelling. Each accepted spelling cites where it comes from. A spelling
//! that is not listed does not parse: callers say so ("not recognised") rather
//! than guess from a substring.
//!
//! This module imports nothing above the schema layer.

use super::Role;
use std::fmt;
use std::str::FromStr;

/// A role whose value has a typed meaning.
pub trait TypedRole: Sized {
    /// The role this type is the value of.
    const ROLE: Role;
    /// The value as a config states it (a string, or a number where a framework
    /// accepts one); `None` when it is not a known spelling.
    fn from_json(value: &serde_json::Value) -> Option<Self>;
}

/// A spelling that is not in a type's list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unrecognised {
    pub role: Role,
    pub text: String,
}

impl fmt::Display for Unrecognised {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` is not a known {} value", self.text, self.role)
    }
}

impl std::error::Error for Unrecognised {}

/// A JSON string, case-folded; numbers as Lightning accepts them (`16`, `32`, `64`).
fn text_of(value: &serde_json::Value, numbers: bool) -> Option<String> {
    match value {
        serde_json::Value::String(s) => Some(s.to_ascii_lowercase()),
        serde_json::Value::Number(n) if numbers => Some(n.to_string()),
        _ => None,
    }
}

// ---------------------------------------------------------------- precision

/// The 16-bit floating-point format of a run's 16-bit tensors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Half {
    Fp16,
    Bf16,
    /// bf16 where the GPU has it, else fp16: decided at start-up from the GPU
    /// (Axolotl's `bf16: auto`, `normalize_config` in `src/axolotl/utils/config/__init__.py`:
    /// `cfg.bf16 = is_torch_bf16_gpu_available()`, else `cfg.fp16 = True`). Never needs native bf16.
    BestAvailable,
}

/// Training precision: which dtype the parameters are *stored* in and which
/// the forward/backward *computes* in.
///
/// - `Mixed`: autocast. Parameters (the master copy), gradients and optimizer
///   states stay fp32; matmuls run in 16-bit copies (PyTorch AMP, Lightning
///   `*-mixed`, HF `bf16: true` / `fp16: true`, DeepSpeed `bf16.enabled`).
/// - `True`: "pure" 16-bit: parameters, gradients and optimizer states in the
///   16-bit dtype (Lightning `*-true`; a dialect's `dtype: bf16`, mapped in its file under `src/dialects/`).
/// - `Auto`: the framework decides at run time (`"auto"` in HF/DeepSpeed and the trainers built on HF):
///   unknown to a static check, never guessed here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Precision {
    Fp64,
    Fp32,
    Mixed(Half),
    True(Half),
    /// Transformer Engine fp8 layers with fp32 master weights (the other layers in 16-bit).
    Fp8Mixed,
    Auto,
}

impl FromStr for Precision {
    type Err = Unrecognised;

    /// Accepted spellings (case-insensitive):
    /// - Lightning 2.x `Trainer(precision=…)` (`lightning/fabric/connector.py`
    ///   `_PRECISION_INPUT`, FACTS.md §6): `64`, `32`, `16`, `bf16` (legacy aliases of
    ///   `64-true`, `32-true`, `16-mixed`, `bf16-mixed`), `64-true`, `32-true`,
    ///   `16-mixed`, `bf16-mixed`, `16-true`, `bf16-true`, `transformer-engine`,
    ///   `transformer-engine-float16`;
    /// - Lightning 1.x `PrecisionType.MIXED`: `mixed` (native AMP, fp16);
    /// - accelerate `mixed_precision` (`utils/dataclasses.py` `PrecisionType`): `no`,
    ///   `fp16`, `bf16`, `fp8`;
    /// - trainlint's native schema: `fp8-mixed`; plain names `fp64`, `fp32`;
    ///   torch dtype names `double` (`torch.double` = float64) and `float32`;
    /// - `bf16-or-16-mixed`: trainlint's spelling of Axolotl's `bf16: auto` (bf16 autocast
    ///   where the GPU has it, else fp16 autocast), which the Axolotl dialect derives;
    ///   `bf16-or-16-true` the same for an Axolotl full fine-tune, loaded in that dtype;
    /// - `auto` (HF `TrainingArguments`/DeepSpeed `"auto"`: filled in at launch, unknown here);
    /// - MosaicML's `Precision` enum (`core/precision.py`, cited in the dialect that
    ///   binds it): `fp32`, `amp_fp16`, `amp_bf16` (`torch.autocast` with fp32
    ///   parameters: mixed), `amp_fp8` (Transformer Engine `fp8_autocast`).
    fn from_str(text: &str) -> Result<Precision, Unrecognised> {
        Ok(match text.to_ascii_lowercase().as_str() {
            "64" | "64-true" | "fp64" | "double" => Precision::Fp64,
            "32" | "32-true" | "fp32" | "float32" | "no" => Precision::Fp32,
            "16" | "16-mixed" | "fp16" | "mixed" | "amp_fp16" => Precision::Mixed(Half::Fp16),
            "bf16" | "bf16-mixed" | "amp_bf16" => Precision::Mixed(Half::Bf16),
            "bf16-or-16-mixed" => Precision::Mixed(Half::BestAvailable),
            "bf16-or-16-true" => Precision::True(Half::BestAvailable),
            "16-true" => Precision::True(Half::Fp16),
            "bf16-true" => Precision::True(Half::Bf16),
            "fp8" | "fp8-mixed" | "transformer-engine" | "transformer-engine-float16" | "amp_fp8" => Precision::Fp8Mixed,
            "auto" => Precision::Auto,
            _ => return Err(Unrecognised { role: Role::Precision, text: text.to_owned() }),
        })
    }
}

impl TypedRole for Precision {
    const ROLE: Role = Role::Precision;
    fn from_json(value: &serde_json::Value) -> Option<Precision> {
        text_of(value, true)?.parse().ok()
    }
}

impl Precision {
    /// Whether the run needs native bf16 (HW001): bf16 autocast or pure bf16.
    pub(crate) fn needs_bf16(self) -> bool {
        matches!(self, Precision::Mixed(Half::Bf16) | Precision::True(Half::Bf16))
    }

    /// Whether the run needs fp8 support (HW002).
    pub(crate) fn needs_fp8(self) -> bool {
        self == Precision::Fp8Mixed
    }

    /// How much numeric precision training keeps, higher keeps more:
    /// fp64 > fp32 > 16-bit mixed (fp32 master weights) > pure 16-bit > fp8.
    /// `None` for `auto`, which cannot be compared.
    pub(crate) fn rank(self) -> Option<u8> {
        Some(match self {
            Precision::Fp64 => 5,
            Precision::Fp32 => 4,
            Precision::Mixed(_) => 3,
            Precision::True(_) => 2,
            Precision::Fp8Mixed => 1,
            Precision::Auto => return None,
        })
    }

    /// A short name for messages.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Precision::Fp64 => "fp64",
            Precision::Fp32 => "fp32",
            Precision::Mixed(_) => "16-bit mixed (fp32 master weights)",
            Precision::True(_) => "pure 16-bit",
            Precision::Fp8Mixed => "fp8",
            Precision::Auto => "decided at run time (auto)",
        }
    }
}

// ---------------------------------------------------------------- optimizer

/// The update rule, which decides how many state tensors per parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum OptimizerKind {
    /// Adam / AdamW: two moments (exp_avg, exp_avg_sq).
    Adam,
    /// SGD without momentum: no state.
    Sgd,
    /// SGD with momentum: one momentum buffer.
    SgdMomentum,
    /// Adafactor: factored second moment.
    Adafactor,
    /// Lion: one momentum buffer.
    Lion,
    /// Adam-mini: Adam's first moment, and one second moment per block (head or neuron)
    /// (Zhang et al. 2024, arXiv:2406.16793; `adam_mini/adam_mini.py`).
    AdamMini,
    /// GaLore / APOLLO: Adam's moments of each linear weight's gradient projected to rank r
    /// (Zhao et al. 2024, arXiv:2403.03507; Zhu et al. 2024, arXiv:2412.05270), full Adam elsewhere.
    LowRankAdam,
    /// BAdam: AdamW on one block of layers at a time, kept in fp32 (Luo et al. 2024, arXiv:2404.02827).
    BlockAdam,
    /// One state tensor per parameter: RMSprop (`square_avg`), Adagrad (`sum`), schedule-free
    /// SGD (`z`) (`torch/optim/rmsprop.py`, `adagrad.py`; schedulefree `sgd_schedulefree.py`).
    OneMoment,
    /// Three state tensors per parameter: AdEMAMix (fast and slow first moments and the second
    /// moment, Pagliardini et al. 2024, arXiv:2409.03137; bitsandbytes `optim/ademamix.py`) and
    /// GrokAdamW (`exp_avg`, `exp_avg_sq`, `grok_ema`; grokadamw `grokadamw.py`).
    ThreeMoments,
    /// LOMO / AdaLomo: the update is fused into the backward, one parameter at a time, with no
    /// state (LOMO) or factored row/column second moments (AdaLomo) (Lv et al. 2023,
    /// arXiv:2306.09782, arXiv:2310.10195; lomo-optim `lomo.py`, `adalomo.py`).
    Lomo,
}

/// The dtype optimizer states are kept in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum StateBits {
    /// Full-width states (fp32 for an fp32 master copy).
    Full,
    /// bitsandbytes' (or torchao's `AdamW8bit`) 8-bit blockwise-quantized states.
    Eight,
    /// torchao's `AdamW4bit`: 4-bit blockwise-quantized states.
    Four,
}

/// An optimizer as the memory model needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Optimizer {
    pub kind: OptimizerKind,
    pub state: StateBits,
    /// bitsandbytes paged states: CUDA managed memory outside PyTorch's caching allocator,
    /// evicted to host memory when the GPU is full (bitsandbytes `functional.py` `get_paged`).
    pub paged: bool,
    /// A bitsandbytes optimizer (transformers `_BITSANDBYTES_OPTIMIZERS`): its 32-bit states
    /// are fp32 whatever the parameter's dtype (`optim/optimizer.py` `Optimizer2State.init_state`).
    pub bnb: bool,
    /// A fused kernel (`torch.optim.AdamW(fused=True)`).
    pub fused: bool,
}

impl Optimizer {
    const fn plain(kind: OptimizerKind) -> Optimizer {
        Optimizer { kind, state: StateBits::Full, paged: false, bnb: false, fused: false }
    }

    /// AdamW, what HF `TrainingArguments` (and the trainers built on it) and trainlint assume when none is named.
    pub(crate) const ADAMW: Optimizer = Optimizer::plain(OptimizerKind::Adam);
}

impl FromStr for Optimizer {
    type Err = Unrecognised;

    /// Accepted spellings (case-insensitive):
    /// - every HF transformers `training_args.py` `OptimizerNames` (the `optim` of HF-based
    ///   trainers, FACTS.md §6; transformers @ fd798335, and `adamw_hf`, removed in 4.51), as
    ///   `trainer.py` `get_optimizer_cls_and_kwargs` builds it: `adamw_torch`, `adamw_torch_fused`,
    ///   `adamw_torch_xla`, `adamw_torch_npu_fused`, `adamw_apex_fused`, `adamw_anyprecision`,
    ///   `adamw_hf` (AdamW, two moments); `adamw_torch_8bit` / `adamw_torch_4bit` (torchao's
    ///   `AdamW8bit` / `AdamW4bit`); the bitsandbytes group (`_BITSANDBYTES_OPTIMIZERS`:
    ///   "paged" in the name → `is_paged`, "8bit" → `optim_bits = 8`, else 32): `adamw_bnb_8bit`,
    ///   `adamw_8bit` ("just an alias for adamw_bnb_8bit"), `paged_adamw_32bit`, `paged_adamw_8bit`,
    ///   `ademamix`, `ademamix_8bit`, `paged_ademamix_32bit`, `paged_ademamix_8bit`, `lion_32bit`,
    ///   `lion_8bit`, `paged_lion_32bit`, `paged_lion_8bit`, `rmsprop_bnb`, `rmsprop_bnb_8bit`,
    ///   `rmsprop_bnb_32bit`; `rmsprop`, `adagrad`, `sgd`, `adafactor`; GaLore and APOLLO
    ///   (`galore_adamw`, `galore_adamw_8bit`, `galore_adafactor` and their `_layerwise`,
    ///   `apollo_adamw`, `apollo_adamw_layerwise`); `lomo`, `adalomo`; `grokadamw`;
    ///   `schedule_free_adamw`, `schedule_free_radam` (`z` and `exp_avg_sq`), `schedule_free_sgd`
    ///   (`z`); `stable_adamw` (torch-optimi `StableAdamW`: `exp_avg`, `exp_avg_sq`);
    /// - torch class paths (an `optimizer._component_` / `_target_`): `torch.optim.AdamW`, `torch.optim.Adam`;
    /// - LLaMA-Factory's optimizer switches as its dialect binds them (`use_adam_mini` →
    ///   `adam_mini`, `use_galore` → `galore_adamw`, `use_apollo` → `apollo_adamw`, `use_badam` → `badam`);
    /// - trainlint's native schema (`adamw`, `adam`, `adamw-fused`, `adamw-8bit`, `sgd`,
    ///   `sgd-momentum`, `adafactor`, `lion`, `adam-mini`, `galore-adamw`, `apollo-adamw`, `badam`).
    ///
    /// Any other spelling is not recognised (the memory model says so in a note).
    fn from_str(text: &str) -> Result<Optimizer, Unrecognised> {
        use OptimizerKind::*;
        let name = text.to_ascii_lowercase();
        let eight = |kind| Optimizer { state: StateBits::Eight, ..Optimizer::plain(kind) };
        let mut optimizer = match name.as_str() {
            "adamw"
            | "adam"
            | "adamw-fused"
            | "adamw_torch"
            | "adamw_torch_fused"
            | "adamw_hf"
            | "torch.optim.adamw"
            | "torch.optim.adam"
            | "adamw_torch_xla"
            | "adamw_torch_npu_fused"
            | "adamw_apex_fused"
            | "adamw_anyprecision"
            | "schedule_free_adamw"
            | "schedule_free_radam"
            | "stable_adamw"
            | "paged_adamw_32bit" => Optimizer::plain(Adam),
            "adamw-8bit" | "adamw_8bit" | "adamw_bnb_8bit" | "paged_adamw_8bit" | "adamw_torch_8bit" => eight(Adam),
            "adamw_torch_4bit" => Optimizer { state: StateBits::Four, ..Optimizer::plain(Adam) },
            "lion_8bit" | "paged_lion_8bit" => eight(Lion),
            "lion" | "lion_32bit" | "paged_lion_32bit" => Optimizer::plain(Lion),
            "ademamix" | "paged_ademamix_32bit" | "grokadamw" => Optimizer::plain(ThreeMoments),
            "ademamix_8bit" | "paged_ademamix_8bit" => eight(ThreeMoments),
            "rmsprop" | "adagrad" | "rmsprop_bnb" | "rmsprop_bnb_32bit" | "schedule_free_sgd" => Optimizer::plain(OneMoment),
            "rmsprop_bnb_8bit" => eight(OneMoment),
            "sgd-momentum" => Optimizer::plain(SgdMomentum),
            "sgd" => Optimizer::plain(Sgd),
            "adafactor" => Optimizer::plain(Adafactor),
            "adam_mini" | "adam-mini" => Optimizer::plain(AdamMini),
            "galore_adamw"
            | "apollo_adamw"
            | "galore-adamw"
            | "apollo-adamw"
            | "galore_adamw_8bit"
            | "galore_adafactor"
            | "galore_adamw_layerwise"
            | "galore_adamw_8bit_layerwise"
            | "galore_adafactor_layerwise"
            | "apollo_adamw_layerwise" => Optimizer::plain(LowRankAdam),
            "lomo" | "adalomo" => Optimizer::plain(Lomo),
            "badam" => Optimizer::plain(BlockAdam),
            _ => return Err(Unrecognised { role: Role::Optimizer, text: text.to_owned() }),
        };
        optimizer.paged = name.starts_with("paged_");
        optimizer.bnb = optimizer.paged
            || matches!(
                name.as_str(),
                "adamw_bnb_8bit"
                    | "adamw_8bit"
                    | "ademamix"
                    | "ademamix_8bit"
                    | "lion_32bit"
                    | "lion_8bit"
                    | "rmsprop_bnb"
                    | "rmsprop_bnb_8bit"
                    | "rmsprop_bnb_32bit"
            );
        optimizer.fused = name.ends_with("_fused") || name.ends_with("-fused");
        Ok(optimizer)
    }
}

impl TypedRole for Optimizer {
    const ROLE: Role = Role::Optimizer;
    fn from_json(value: &serde_json::Value) -> Option<Optimizer> {
        text_of(value, false)?.parse().ok()
    }
}

// ---------------------------------------------------------------- attention

/// The attention implementation: whether the s×s score matrices are kept for backward.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Attention {
    /// Materialises scores, softmax and dropout (HF `attn_implementation="eager"`).
    Eager,
    /// `torch.nn.functional.scaled_dot_product_attention` (HF `"sdpa"`; `sdp_attention` switches).
    Sdpa,
    /// FlashAttention (HF `"flash_attention_2"`; `flash_attention` switches).
    Flash,
}

impl FromStr for Attention {
    type Err = Unrecognised;

    /// trainlint's native schema (`eager`, `sdpa`, `flash`, what the dialects derive)
    /// and HF transformers' `attn_implementation` values (`eager`, `sdpa`,
    /// `flash_attention_2`, `modeling_utils.py`).
    fn from_str(text: &str) -> Result<Attention, Unrecognised> {
        Ok(match text.to_ascii_lowercase().as_str() {
            "eager" => Attention::Eager,
            "sdpa" => Attention::Sdpa,
            "flash" | "flash_attention_2" => Attention::Flash,
            _ => return Err(Unrecognised { role: Role::Attention, text: text.to_owned() }),
        })
    }
}

impl TypedRole for Attention {
    const ROLE: Role = Role::Attention;
    fn from_json(value: &serde_json::Value) -> Option<Attention> {
        text_of(value, false)?.parse().ok()
    }
}

impl Attention {
    /// Whether the s×s attention scores, softmax and dropout mask are kept for
    /// backward: eager only; SDPA's fused kernels and FlashAttention recompute
    /// them (FACTS.md §4, FlashAttention removes the 5as/h term).
    pub(crate) fn keeps_score_matrices(self) -> bool {
        self == Attention::Eager
    }

    pub fn name(self) -> &'static str {
        match self {
            Attention::Eager => "eager",
            Attention::Sdpa => "sdpa",
            Attention::Flash => "flash",
        }
    }
}

// ---------------------------------------------------- activation checkpointing

/// Activation checkpointing (recomputation in backward).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum ActivationCheckpointing {
    None,
    /// Recompute the attention core only (Korthikanti et al. 2022 "selective").
    Selective,
    /// Keep each layer's input only, recompute the layer.
    Full,
    /// Full checkpointing with the kept layer inputs moved to CPU memory (the dialect
    /// that binds it cites its framework's switch): only the layer being recomputed is on the GPU.
    Offloaded,
}

impl FromStr for ActivationCheckpointing {
    type Err = Unrecognised;

    /// trainlint's native schema (`none`, `selective`, `full`), Megatron-LM's
    /// `--recompute-granularity` (`full`, `selective`).
    fn from_str(text: &str) -> Result<ActivationCheckpointing, Unrecognised> {
        Ok(match text.to_ascii_lowercase().as_str() {
            "none" => ActivationCheckpointing::None,
            "selective" => ActivationCheckpointing::Selective,
            "full" => ActivationCheckpointing::Full,
            "offload" | "offloaded" => ActivationCheckpointing::Offloaded,
            _ => return Err(Unrecognised { role: Role::ActivationCheckpointing, text: text.to_owned() }),
        })
    }
}

impl TypedRole for ActivationCheckpointing {
    const ROLE: Role = Role::ActivationCheckpointing;
    /// Also a switch: `gradient_checkpointing: true` (HF and the trainers built on
    /// it), `enable_activation_checkpointing: true` (FACTS.md §6; each dialect's
    /// file names its switch) checkpoint every layer, i.e. `full`; `false` is `none`.
    fn from_json(value: &serde_json::Value) -> Option<ActivationCheckpointing> {
        match value {
            serde_json::Value::Bool(true) => Some(ActivationCheckpointing::Full),
            serde_json::Value::Bool(false) => Some(ActivationCheckpointing::None),
            other => text_of(other, false)?.parse().ok(),
        }
    }
}

impl ActivationCheckpointing {
    pub fn name(self) -> &'static str {
        match self {
            ActivationCheckpointing::None => "none",
            ActivationCheckpointing::Selective => "selective",
            ActivationCheckpointing::Full => "full",
            ActivationCheckpointing::Offloaded => "offload",
        }
    }
}

// ------------------------------------------------------------ quantization

/// How frozen base weights are stored when quantized (role `base_weights`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Quantization {
    /// bitsandbytes LLM.int8 (HF `load_in_8bit`, `quantization_bit: 8`).
    Int8,
    /// bitsandbytes 4-bit (NF4/FP4; HF `load_in_4bit`, `quantization_bit: 4`).
    Int4,
    /// bitsandbytes 4-bit with double quantization (`bnb_4bit_use_double_quant=True`: the
    /// per-block absmax constants quantized to 8 bits in turn; QLoRA, Dettmers et al. 2023,
    /// arXiv:2305.14314 §3), what Axolotl's and LLaMA-Factory's QLoRA load by default.
    Int4DoubleQuant,
    /// AQLM with one 16-bit codebook over groups of 8 weights ("1x16": 16 bits of code per 8
    /// weights, 2 bits per weight; Egiazarian et al. 2024, arXiv:2401.06118 §3), a checkpoint
    /// stored that way (`stored_quantization: aqlm-2bit-1x16` in the catalog) and loaded
    /// quantized by transformers' AQLM integration for adapter training.
    Aqlm2Bit,
}

impl FromStr for Quantization {
    type Err = Unrecognised;

    /// trainlint's native schema `model.base_weights` (`int8`, `int4`), which the
    /// dialects derive from the switches above, and `int4-double-quant`, which they derive
    /// from a framework's double-quantization default.
    fn from_str(text: &str) -> Result<Quantization, Unrecognised> {
        Ok(match text.to_ascii_lowercase().as_str() {
            "int8" => Quantization::Int8,
            "int4" => Quantization::Int4,
            "int4-double-quant" => Quantization::Int4DoubleQuant,
            "aqlm-2bit-1x16" => Quantization::Aqlm2Bit,
            _ => return Err(Unrecognised { role: Role::BaseWeights, text: text.to_owned() }),
        })
    }
}

impl Quantization {
    pub fn name(self) -> &'static str {
        match self {
            Quantization::Int8 => "int8",
            Quantization::Int4 => "4-bit",
            Quantization::Int4DoubleQuant => "4-bit, double-quantized",
            Quantization::Aqlm2Bit => "AQLM 2-bit",
        }
    }
}

impl TypedRole for Quantization {
    const ROLE: Role = Role::BaseWeights;
    fn from_json(value: &serde_json::Value) -> Option<Quantization> {
        text_of(value, false)?.parse().ok()
    }
}

// ---------------------------------------------------------------- adapter

/// What a fine-tune trains (role `adapter`): the whole model, or a
/// parameter-efficient part of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Adapter {
    /// Every parameter (`full`).
    Full,
    /// LoRA adapters on a frozen 16-bit base (Hu et al. 2021, arXiv:2106.09685).
    Lora,
    /// LoRA on a 4-bit quantized frozen base (Dettmers et al. 2023, arXiv:2305.14314).
    Qlora,
    /// Weight-decomposed LoRA (Liu et al. 2024, arXiv:2402.09353).
    Dora,
    /// Some layers trained, the rest frozen (`freeze`).
    Freeze,
    /// Orthogonal fine-tuning: a block-diagonal rotation of each adapted linear's input
    /// (Qiu et al. 2023, arXiv:2306.07280; PEFT `tuners/oft`).
    Oft,
    /// `llama-adapter` and other adapters.
    Other,
}

impl FromStr for Adapter {
    type Err = Unrecognised;

    /// The values the dialects bind to the role (each dialect file cites its
    /// framework's source for them): `lora`, `qlora`, `dora`, `full`, `freeze`,
    /// `oft`, `llama-adapter`.
    fn from_str(text: &str) -> Result<Adapter, Unrecognised> {
        Ok(match text.to_ascii_lowercase().as_str() {
            "full" => Adapter::Full,
            "lora" => Adapter::Lora,
            "qlora" => Adapter::Qlora,
            "dora" => Adapter::Dora,
            "freeze" => Adapter::Freeze,
            "oft" => Adapter::Oft,
            "llama-adapter" => Adapter::Other,
            _ => return Err(Unrecognised { role: Role::Adapter, text: text.to_owned() }),
        })
    }
}

impl TypedRole for Adapter {
    const ROLE: Role = Role::Adapter;
    fn from_json(value: &serde_json::Value) -> Option<Adapter> {
        text_of(value, false)?.parse().ok()
    }
}

// ------------------------------------------------------------ LoRA targets

/// A linear layer LoRA can adapt, by its role in a decoder block (every framework
/// names them differently; `LoraTargets` maps the names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Module {
    Q,
    K,
    V,
    /// The attention output projection.
    O,
    /// The gate projection of a gated MLP (SwiGLU/GeGLU); absent from plain MLPs.
    Gate,
    /// The up projection (`fc1` of a plain MLP).
    Up,
    /// The down projection (`fc2` of a plain MLP).
    Down,
    /// The output head.
    LmHead,
}

impl Module {
    /// Every linear of a block (PEFT's `all-linear`: every linear but the output head,
    /// peft `tuners_utils.py` `_maybe_include_all_linear_layers`).
    pub(crate) const ALL_LINEAR: [Module; 7] = [Module::Q, Module::K, Module::V, Module::O, Module::Gate, Module::Up, Module::Down];

    pub fn name(self) -> &'static str {
        match self {
            Module::Q => "q",
            Module::K => "k",
            Module::V => "v",
            Module::O => "o",
            Module::Gate => "gate",
            Module::Up => "up",
            Module::Down => "down",
            Module::LmHead => "lm_head",
        }
    }

    /// The modules a framework's module name stands for. PEFT matches
    /// `target_modules` by name suffix, so a name shared by two linears adapts
    /// both (GPT-2/Qwen-1 `c_proj` is the attention output and the MLP down projection).
    /// Names: transformers `modeling_llama.py` (q_proj … down_proj, lm_head),
    /// `modeling_falcon.py`/`modeling_bloom.py` (query_key_value, dense, dense_h_to_4h,
    /// dense_4h_to_h), `modeling_gpt2.py` (c_attn, c_proj, c_fc), `modeling_phi.py`
    /// (dense, fc1, fc2), `modeling_t5.py` (q, k, v, o, wi, wi_0, wi_1, wo),
    /// `modeling_mixtral.py` experts (w1 gate, w2 down, w3 up), Qwen-1 `modeling_qwen.py`
    /// (c_attn, c_proj, w1, w2), and the canonical names themselves (q, k, v, o, gate, up,
    /// down, lm_head, which the dialects map their own spellings to), and litgpt's
    /// (query, key, value, projection, mlp, head).
    pub(crate) fn named(name: &str) -> Option<&'static [Module]> {
        use Module::*;
        let name = name.rsplit('.').next().unwrap_or(name).to_ascii_lowercase();
        Some(match name.as_str() {
            "q_proj" | "q" | "query" => &[Q],
            "k_proj" | "k" | "key" => &[K],
            "v_proj" | "v" | "value" => &[V],
            "o_proj" | "o" | "out_proj" | "dense" | "projection" => &[O],
            "query_key_value" | "c_attn" | "qkv_proj" => &[Q, K, V],
            "gate_proj" | "w1" | "gate" => &[Gate],
            "up_proj" | "w3" | "up" | "fc1" | "c_fc" | "dense_h_to_4h" | "wi" | "wi_0" | "wi_1" | "fc_in" => &[Up],
            "down_proj" | "w2" | "down" | "fc2" | "dense_4h_to_h" | "wo" | "fc_out" => &[Down],
            "c_proj" => &[O, Down],
            "lm_head" | "embed_out" | "head" => &[LmHead],
            // litgpt's switches (`lora_query`, `lora_key`, `lora_value`, `lora_projection`,
            // `lora_mlp`, `lora_head`: litgpt `litgpt/lora.py` `Config`), which the litgpt
            // dialect and the native format name by their suffix; `mlp` is every MLP linear.
            "mlp" => &[Gate, Up, Down],
            _ => return None,
        })
    }
}

/// The modules a LoRA run adapts (role `lora_targets`): a list of module names, or
/// `all-linear` (PEFT), `all` (every linear layer; the dialect that writes it cites its docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoraTargets(pub Vec<Module>);

impl FromStr for LoraTargets {
    type Err = Unrecognised;

    /// One name, `all-linear`/`all`, or names separated by commas (`q_proj,v_proj`).
    fn from_str(text: &str) -> Result<LoraTargets, Unrecognised> {
        let lower = text.trim().to_ascii_lowercase();
        if matches!(lower.as_str(), "all-linear" | "all_linear" | "all") {
            return Ok(LoraTargets(Module::ALL_LINEAR.to_vec()));
        }
        let mut out = Vec::new();
        for name in lower.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            out.extend_from_slice(Module::named(name).ok_or_else(|| Unrecognised { role: Role::LoraTargets, text: name.to_owned() })?);
        }
        if out.is_empty() {
            return Err(Unrecognised { role: Role::LoraTargets, text: text.to_owned() });
        }
        out.sort_unstable();
        out.dedup();
        Ok(LoraTargets(out))
    }
}

impl TypedRole for LoraTargets {
    const ROLE: Role = Role::LoraTargets;
    fn from_json(value: &serde_json::Value) -> Option<LoraTargets> {
        match value {
            serde_json::Value::String(s) => s.parse().ok(),
            serde_json::Value::Array(items) => {
                let names: Option<Vec<&str>> = items.iter().map(serde_json::Value::as_str).collect();
                names?.join(",").parse().ok()
            }
            _ => None,
        }
    }
}

// ------------------------------------------------------------------ logits

/// How the loss holds the logits (role `logits`), which decides their bytes per
/// element of micro batch × sequence × vocabulary at the peak.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Logits {
    /// The whole logits tensor is upcast to fp32 for the cross-entropy (transformers
    /// `loss_utils.py` `ForCausalLMLoss`: `logits = logits.float()`).
    Upcast,
    /// The head and the loss run over chunks of the sequence, only 16-bit chunks kept
    /// (the dialects that bind it cite their loss).
    Chunked,
    /// A fused linear cross-entropy never materialises the logits (Liger
    /// `fused_linear_cross_entropy`, Apple `cut_cross_entropy`).
    Fused,
}

impl FromStr for Logits {
    type Err = Unrecognised;

    /// trainlint's native `model.logits`: `upcast`, `chunked`, `fused`.
    fn from_str(text: &str) -> Result<Logits, Unrecognised> {
        Ok(match text.to_ascii_lowercase().as_str() {
            "upcast" => Logits::Upcast,
            "chunked" => Logits::Chunked,
            "fused" => Logits::Fused,
            _ => return Err(Unrecognised { role: Role::Logits, text: text.to_owned() }),
        })
    }
}

impl TypedRole for Logits {
    const ROLE: Role = Role::Logits;
    fn from_json(value: &serde_json::Value) -> Option<Logits> {
        text_of(value, false)?.parse().ok()
    }
}

impl Logits {
    pub fn name(self) -> &'static str {
        match self {
            Logits::Upcast => "upcast to fp32",
            Logits::Chunked => "chunked",
            Logits::Fused => "fused",
        }
    }
}

// ------------------------------------------------------------------ preference

/// A preference objective (role `preference`), for what it holds in memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Preference {
    /// DPO and its losses that keep the reference term (IPO, hinge, RSO): chosen and rejected
    /// sequences concatenated in one forward (TRL `DPOTrainer.concatenated_forward`, torchtune
    /// `full_dpo_distributed.py` `concatenated_forward`), and a frozen reference model
    /// (TRL `create_reference_model` when no PEFT adapter can be disabled; torchtune's `ref_model`).
    Dpo,
    /// Paired without a reference model: ORPO (Hong et al. 2024, arXiv:2403.07691), SimPO
    /// (Meng et al. 2024, arXiv:2405.14734), CPO; TRL `ORPOTrainer`/`CPOTrainer` concatenate the pair.
    Paired,
    /// KTO: unpaired samples, and a frozen reference model (TRL `KTOTrainer`).
    Kto,
    /// Reward modelling: a chosen and a rejected sequence per sample (TRL `RewardTrainer`), no reference.
    Reward,
}

impl FromStr for Preference {
    type Err = Unrecognised;

    /// The spellings of the frameworks: native `preference`, Axolotl `rl`, LLaMA-Factory
    /// `stage`/`pref_loss`, TRL `loss_type`.
    fn from_str(text: &str) -> Result<Preference, Unrecognised> {
        Ok(match text.to_ascii_lowercase().as_str() {
            "dpo" | "ipo" | "sigmoid" | "hinge" | "rso" | "dpo_paired" => Preference::Dpo,
            "orpo" | "simpo" | "cpo" | "paired" => Preference::Paired,
            "kto" | "kto_pair" => Preference::Kto,
            "reward" | "rm" => Preference::Reward,
            _ => return Err(Unrecognised { role: Role::Preference, text: text.to_owned() }),
        })
    }
}

impl TypedRole for Preference {
    const ROLE: Role = Role::Preference;
    fn from_json(value: &serde_json::Value) -> Option<Preference> {
        text_of(value, false)?.parse().ok()
    }
}

impl Preference {
    /// Sequences through the model per sample: 2 for a chosen/rejected pair.
    pub(crate) fn sequences_per_sample(self) -> f64 {
        match self {
            Preference::Dpo | Preference::Paired | Preference::Reward => 2.0,
            Preference::Kto => 1.0,
        }
    }

    /// Whether a frozen reference model is held next to the policy.
    pub(crate) fn reference_model(self) -> bool {
        matches!(self, Preference::Dpo | Preference::Kto)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn precision_spellings() {
        for (text, expected) in [
            ("64-true", Precision::Fp64),
            ("double", Precision::Fp64),
            ("float32", Precision::Fp32),
            ("no", Precision::Fp32),
            ("16", Precision::Mixed(Half::Fp16)),
            ("bf16", Precision::Mixed(Half::Bf16)),
            ("BF16-Mixed", Precision::Mixed(Half::Bf16)),
            ("bf16-true", Precision::True(Half::Bf16)),
            ("16-true", Precision::True(Half::Fp16)),
            ("transformer-engine", Precision::Fp8Mixed),
            ("auto", Precision::Auto),
            ("bf16-or-16-mixed", Precision::Mixed(Half::BestAvailable)),
            ("bf16-or-16-true", Precision::True(Half::BestAvailable)),
            // MosaicML's Precision enum: autocast over fp32 parameters.
            ("amp_bf16", Precision::Mixed(Half::Bf16)),
            ("AMP_BF16", Precision::Mixed(Half::Bf16)),
            ("amp_fp16", Precision::Mixed(Half::Fp16)),
            ("amp_fp8", Precision::Fp8Mixed),
            ("fp32", Precision::Fp32),
        ] {
            assert_eq!(text.parse::<Precision>(), Ok(expected), "{text}");
        }
        assert!("amp_bf16-true".parse::<Precision>().is_err());
        assert_eq!(Precision::from_json(&json!(16)), Some(Precision::Mixed(Half::Fp16)));
        assert_eq!(Precision::from_json(&json!(64)), Some(Precision::Fp64));
        assert_eq!(Precision::from_json(&json!(true)), None);
        assert!("bf16_mixed".parse::<Precision>().is_err());
    }

    #[test]
    fn precision_semantics() {
        assert!(Precision::True(Half::Bf16).needs_bf16() && Precision::Mixed(Half::Bf16).needs_bf16());
        assert!(!Precision::Mixed(Half::Fp16).needs_bf16() && !Precision::Fp8Mixed.needs_bf16());
        // `auto` is unknown until the GPU is known: never "bf16 on a GPU without bf16" (issue 15 item 5).
        assert!(!Precision::Mixed(Half::BestAvailable).needs_bf16() && !Precision::Auto.needs_bf16());
        assert!(Precision::Fp8Mixed.needs_fp8() && !Precision::Auto.needs_fp8());
        let order = [Precision::Fp64, Precision::Fp32, Precision::Mixed(Half::Bf16), Precision::True(Half::Bf16), Precision::Fp8Mixed];
        assert!(order.windows(2).all(|w| w[0].rank() > w[1].rank()));
        assert_eq!(Precision::Auto.rank(), None);
    }

    #[test]
    fn optimizer_spellings() {
        let paged: Optimizer = "paged_adamw_8bit".parse().unwrap();
        assert_eq!((paged.kind, paged.state, paged.paged, paged.fused), (OptimizerKind::Adam, StateBits::Eight, true, false));
        let fused: Optimizer = "adamw_torch_fused".parse().unwrap();
        assert_eq!((fused.kind, fused.state, fused.fused), (OptimizerKind::Adam, StateBits::Full, true));
        assert_eq!("torch.optim.AdamW".parse::<Optimizer>().map(|o| o.kind), Ok(OptimizerKind::Adam));
        assert_eq!("sgd-momentum".parse::<Optimizer>().map(|o| o.kind), Ok(OptimizerKind::SgdMomentum));
        assert!("muon".parse::<Optimizer>().is_err());
        assert_eq!(Optimizer::from_json(&json!(null)), None);
    }

    /// Every spelling the native schema offers parses, so a native config never
    /// reaches the memory model or a rule as "not recognised".
    #[test]
    fn every_native_schema_spelling_parses() {
        let schema = crate::schema::schema("training-config").unwrap();
        let spellings = |name: &str| -> Vec<String> {
            let values = schema["$defs"][name]["enum"].as_array().unwrap_or_else(|| panic!("no enum {name}"));
            values.iter().map(|v| v.as_str().unwrap().to_owned()).collect()
        };
        for text in spellings("Precision") {
            assert!(text.parse::<Precision>().is_ok_and(|p| p != Precision::Auto), "precision {text}");
        }
        for text in spellings("Optimizer") {
            assert!(text.parse::<Optimizer>().is_ok(), "optimizer {text}");
        }
        for text in spellings("Attention") {
            assert_eq!(text.parse::<Attention>().map(Attention::name), Ok(text.as_str()));
        }
        for text in spellings("Checkpointing") {
            assert_eq!(text.parse::<ActivationCheckpointing>().map(ActivationCheckpointing::name), Ok(text.as_str()));
        }
        for text in spellings("BaseWeights") {
            assert!(text.parse::<Quantization>().is_ok(), "base weights {text}");
        }
    }

    #[test]
    fn lora_target_names() {
        let llama: LoraTargets = "q_proj,v_proj".parse().unwrap();
        assert_eq!(llama.0, vec![Module::Q, Module::V]);
        assert_eq!(LoraTargets::from_json(&json!("all-linear")).unwrap().0.len(), 7);
        assert_eq!(
            LoraTargets::from_json(&json!(["c_attn", "c_proj", "w1", "w2"])).unwrap().0,
            vec![Module::Q, Module::K, Module::V, Module::O, Module::Gate, Module::Down]
        );
        assert_eq!(LoraTargets::from_json(&json!(["q_proj", "v_proj", "o", "w1", "w2", "w3"])).unwrap().0.len(), 6);
        assert!(LoraTargets::from_json(&json!(["q_proj", "frobnicate"])).is_none());
        assert_eq!(Logits::from_json(&json!("chunked")), Some(Logits::Chunked));
    }

    #[test]
    fn switches_and_names() {
        assert_eq!(ActivationCheckpointing::from_json(&json!(true)), Some(ActivationCheckpointing::Full));
        assert_eq!(ActivationCheckpointing::from_json(&json!("selective")), Some(ActivationCheckpointing::Selective));
        assert_eq!(Attention::from_json(&json!("flash_attention_2")), Some(Attention::Flash));
        assert_eq!(Attention::from_json(&json!("xformers")), None);
        assert_eq!(Quantization::from_json(&json!("int4")), Some(Quantization::Int4));
        assert_eq!(Quantization::from_json(&json!("nf4")), None);
    }
}
