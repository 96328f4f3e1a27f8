//! The memory components: one file each, summed by `MemoryModel`.
//!
//! A component reads the run (typed roles, memory facts) and gives zero or more
//! rows: a fixed number of bytes, bytes per micro-batch sample, or a user
//! expression. It states what each row depends on, and where its constants come
//! from (`source`). Adding one is a new file here plus one line in `REGISTRY`;
//! the order of `REGISTRY` is the order of the breakdown (fixed rows first).

pub mod cuda_context;
pub(crate) mod declared_activations;
pub mod ema;
pub mod gradients;
pub(crate) mod grpo_generation;
pub mod logits;
pub(crate) mod optimizer_states;
pub(crate) mod optimizer_step;
pub(crate) mod reference_model;
pub(crate) mod transformer_activations;
pub(crate) mod user_terms;
pub mod weights;
pub mod zero_in_flight;
pub(crate) mod zero_states;

use super::NotEstimable;
use super::expr::Expr;
use super::grpo::{self, Grpo};
use super::parts::{self, Parts};
use crate::model::Entry;
use crate::resolve::ResolvedConfig;
use crate::resolve::model::ModelLookup;
use crate::schema::training_config::Memory;
use crate::schema::typed::{Adapter, LoraTargets, Module, Optimizer, OptimizerKind, Precision, Preference, Quantization, TypedRole};
use crate::schema::{GpuTarget, Role};
use crate::settings::Settings;

/// Every component, in breakdown order.
pub const REGISTRY: &[&dyn MemoryComponent] = &[
    &zero_states::ZeroStates,
    &zero_in_flight::ZeroInFlight,
    &weights::Weights,
    &gradients::Gradients,
    &optimizer_states::OptimizerStates,
    &optimizer_step::OptimizerStep,
    &ema::Ema,
    &reference_model::ReferenceModel,
    &cuda_context::CudaContext,
    &declared_activations::DeclaredActivations,
    &transformer_activations::TransformerActivations,
    &logits::Logits,
    &grpo_generation::GrpoGeneration,
    &user_terms::UserTerms,
];

/// One memory component.
pub trait MemoryComponent: Sync {
    /// A kebab-case id, for docs and tests (`optimizer-states`).
    fn id(&self) -> &'static str;
    /// Where its constants and formula come from (framework source, paper, FACTS.md).
    fn source(&self) -> &'static str;
    /// Whether its per-sample rows account for the whole model's activations
    /// (not only some extra tensors): the estimate is then complete, not a lower bound.
    fn covers_activations(&self) -> bool {
        false
    }
    /// What its rows are to the estimate's band (`estimate::band`): model states counted
    /// from the parameters, the user's own sizes, or the rest trainlint computes (which the
    /// band widens).
    fn certainty(&self) -> Certainty {
        Certainty::Computed
    }
    /// The rows it adds for this run; none when it does not apply. What it had
    /// to assume or leave out goes into `notes`.
    fn terms(&self, run: &Run, notes: &mut Vec<String>) -> Result<Vec<Term>, NotEstimable>;
}

/// How sure a component's rows are, for the band (`estimate::band`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Certainty {
    /// Parameters × bytes per parameter (weights, gradients, optimizer states): as exact as
    /// the parameter count; the band does not widen them.
    States,
    /// The user's own sizes and terms: taken as stated.
    Declared,
    /// Activations, logits, workspaces, the CUDA context: the band measured for the kind of run widens them.
    Computed,
}

/// One row of the breakdown, before a micro batch is chosen.
#[derive(Clone, Debug)]
pub struct Term {
    pub name: String,
    /// The id of the component that gave the row (`MemoryComponent::id`), set when the model is built.
    pub component: &'static str,
    /// What it depends on, for the table.
    pub depends_on: String,
    pub bytes: Bytes,
    /// When in a training step it is alive.
    pub live: Live,
}

/// When in a training step a row is alive. The peak is the largest of three moments
/// (measured on an H200 for 38 setups, `data/measured_h200.json`, and read from what
/// autograd and `torch.optim` allocate):
/// - the loss's backward: the saved activations and the logits' copies are all alive,
///   the gradients not yet (the trainers free them after each optimizer step:
///   `zero_grad(set_to_none=True)`, PyTorch's default since 2.0), unless gradient
///   accumulation keeps the previous micro batches' gradients;
/// - under full checkpointing, a layer's recomputation in the backward: the checkpointed
///   inputs, one layer's activations and the gradients made so far (all of them, the
///   upper bound), the logits long freed;
/// - the optimizer step: every gradient, and the step's own workspace; the activations
///   are gone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Live {
    /// Weights, optimizer states, the CUDA context: the whole step.
    Always,
    /// Saved activations, autocast's 16-bit weight copies: from the forward through the backward.
    Backward,
    /// The logits and the loss's copies of them: only until the loss's backward is done.
    Loss,
    /// One checkpointed layer's activations while it is recomputed in the backward.
    Recompute,
    /// From the backward that makes them to the optimizer step.
    Gradients,
    /// Only in the backward, and only when the run accumulates gradients over micro batches:
    /// what FSDP's `no_sync` keeps unsharded until the last micro batch reduce-scatters it.
    Accumulating,
    /// The optimizer step's temporaries.
    Step,
    /// Only while an online RL trainer generates (TRL GRPO's completions): the gathered policy,
    /// the KV cache.
    Generation,
}

#[derive(Clone, Debug)]
pub enum Bytes {
    /// The same at any micro batch.
    Fixed(f64),
    /// Bytes per micro-batch sample.
    PerSample(f64),
    /// A manifest expression; `lookup` holds the config numbers it names (all but `micro_batch`).
    Expression { expr: Expr, names: Vec<String>, lookup: Vec<(String, f64)> },
}

impl Term {
    pub fn fixed(name: impl Into<String>, bytes: f64, depends_on: impl Into<String>) -> Term {
        Term { name: name.into(), component: "", depends_on: depends_on.into(), bytes: Bytes::Fixed(bytes), live: Live::Always }
    }

    pub(crate) fn per_sample(name: impl Into<String>, bytes: f64, depends_on: impl Into<String>) -> Term {
        Term { name: name.into(), component: "", depends_on: depends_on.into(), bytes: Bytes::PerSample(bytes), live: Live::Backward }
    }

    /// The same row, alive at another moment of the step.
    pub(crate) fn live(mut self, live: Live) -> Term {
        self.live = live;
        self
    }

    /// Whether it grows with the micro batch.
    pub(crate) fn scales(&self) -> bool {
        match &self.bytes {
            Bytes::Fixed(_) => false,
            Bytes::PerSample(_) => true,
            Bytes::Expression { names, .. } => names.iter().any(|n| n == "micro_batch"),
        }
    }

    /// Bytes at micro batch `micro`.
    pub fn at(&self, micro: u64) -> f64 {
        match &self.bytes {
            Bytes::Fixed(bytes) => *bytes,
            Bytes::PerSample(bytes) => bytes * micro as f64,
            Bytes::Expression { expr, lookup, .. } => {
                expr.eval(&|n: &str| if n == "micro_batch" { Some(micro as f64) } else { lookup.iter().find(|(k, _)| k == n).map(|(_, v)| *v) }).unwrap_or(0.0)
            }
        }
    }
}

/// What the components read: the resolved config, its memory facts, and the
/// typed roles every component shares, read once.
pub struct Run<'a> {
    pub resolved: &'a ResolvedConfig,
    pub memory: &'a Memory,
    /// The stated precision, or fp32 where none is stated, `auto` or unrecognised (said in a note).
    pub precision: Precision,
    pub parameters: Option<f64>,
    /// How the parameters split (trained, frozen, quantized), where the count is known.
    pub parts: Option<Parts>,
    /// The model's architecture, when the catalog or a config.json gave it.
    pub entry: Option<&'a Entry>,
    /// DeepSpeed ZeRO stage (0 when not stated).
    pub zero_stage: u64,
    pub fsdp: bool,
    /// Whether bitsandbytes' 4-bit matmul keeps each quantized linear's input for the backward:
    /// releases before 0.43.2 did (`MatMul4Bit.forward`: `ctx.tensors = (A, B)`), 0.43.2 and later
    /// keep the packed weight only (`ctx.tensors = (None, B)`, bitsandbytes commit 9e753741 "fix
    /// QLoRA mem bug: delete useless buffered activation", #1270, 2024-07-16). Read from the
    /// project's declared bitsandbytes version (`[frameworks] bitsandbytes`, lock and requirement
    /// files: `resolve::versions`); not declared, the current behaviour (no input) is assumed.
    pub bnb_keeps_4bit_input: bool,
    /// TRL's GRPO, for a run that has the `generations` role (`estimate::grpo`): under the newest
    /// release the project may run; `MemoryModel::build` prices the others as alternatives.
    pub grpo: Option<Grpo>,
}

impl<'a> Run<'a> {
    pub fn new(resolved: &'a ResolvedConfig, memory: &'a Memory, settings: &Settings, gpu: Option<&GpuTarget>, notes: &mut Vec<String>) -> Run<'a> {
        let number = |role: Role| resolved.role(role).and_then(|v| v.value.as_f64());
        // An `auto` the framework resolves from the card alone (`Framework::auto_precision`): priced as it resolves on this GPU.
        let on_card = gpu.and_then(|gpu| {
            let text = resolved.detection.dialect.auto_precision(&resolved.tree, gpu.bf16)?;
            Some((text.parse::<Precision>().ok()?, text, gpu))
        });
        let precision = match (resolved.role(Role::Precision), resolved.typed::<Precision>()) {
            (_, Some(p)) if p != Precision::Auto => p,
            (Some(value), Some(_)) if let Some((precision, text, gpu)) = on_card => {
                notes.push(format!("`{}: auto` resolves to {text} on {} (the framework decides it from the card)", value.path, gpu.id));
                precision
            }
            (_, Some(_)) => {
                notes.push("precision `auto` is decided at run time: fp32 assumed".into());
                Precision::Fp32
            }
            (Some(value), None) if !value.value.is_null() => {
                notes.push(format!("precision {} not recognised: fp32 assumed", value.value));
                Precision::Fp32
            }
            _ => {
                notes.push("precision not stated: fp32 assumed".into());
                Precision::Fp32
            }
        };
        let entry = match &resolved.model {
            Some(ModelLookup::Found(facts)) => Some(&facts.entry),
            _ => None,
        };
        let parameters = number(Role::Parameters);
        let stated_fraction = number(Role::TrainableFraction).map(|f| f.clamp(0.0, 1.0));
        // Only part of the model trains: say how much, and which setting says so (a dialect's
        // translation, e.g. torchtune's `*_trainable` switches, or the role written as such).
        if let (Some(fraction), Some(p), Some(value)) = (stated_fraction.filter(|f| *f < 1.0), parameters, resolved.role(Role::TrainableFraction)) {
            notes.push(format!(
                "{} of {} parameters train ({:.1} %), as `{}` says: gradients and optimizer states are priced for them only",
                crate::model::thousands((p * fraction).round() as u64),
                crate::model::thousands(p as u64),
                fraction * 100.0,
                value.path
            ));
        }
        let parts = parameters.map(|p| match (stated_fraction, resolved.typed::<Adapter>(), entry) {
            (None, Some(adapter @ (Adapter::Lora | Adapter::Qlora | Adapter::Dora)), Some(entry)) => {
                let rank = number(Role::LoraRank).filter(|r| *r >= 1.0).unwrap_or_else(|| {
                    notes.push(format!("LoRA rank not stated: r = {} assumed (PEFT's default)", parts::DEFAULT_RANK));
                    parts::DEFAULT_RANK
                });
                let targets = resolved.typed::<LoraTargets>().unwrap_or_else(|| {
                    match resolved.role(Role::LoraTargets).filter(|v| !v.value.is_null()) {
                        Some(v) => notes.push(format!("LoRA target modules {} not recognised: every linear layer assumed", v.value)),
                        None => notes.push("LoRA target modules not stated: every linear layer assumed".into()),
                    }
                    LoraTargets(Module::ALL_LINEAR.to_vec())
                });
                let quantized = adapter == Adapter::Qlora || resolved.typed::<Quantization>().is_some();
                parts::adapters(entry, p, adapter, rank, &targets, quantized)
            }
            (None, Some(Adapter::Oft), Some(entry)) if number(Role::OftBlockSize).is_some_and(|b| b >= 2.0) => {
                let block = number(Role::OftBlockSize).unwrap_or(32.0);
                let targets = resolved.typed::<LoraTargets>().unwrap_or_else(|| {
                    notes.push("OFT target modules not recognised or not stated: every linear layer assumed".into());
                    LoraTargets(Module::ALL_LINEAR.to_vec())
                });
                parts::oft(entry, p, block, &targets, resolved.typed::<Quantization>().is_some())
            }
            // BAdam trains one decoder layer at a time (LLaMA-Factory `badam_mode: layer`; BAdam
            // `block_optim.py` `infer_param_groups`: blocks are `layers.<i>.`; the embeddings, head
            // and final norm are never trained): the rest is frozen, without gradients.
            (None, _, Some(entry)) if resolved.typed::<Optimizer>().is_some_and(|o| o.kind == OptimizerKind::BlockAdam) => {
                let h = entry.hidden_size as f64;
                let outside = entry.vocab_size as f64 * h * if entry.tie_embeddings { 1.0 } else { 2.0 } + h;
                let layer = ((p - outside) / (entry.num_layers as f64).max(1.0)).max(0.0);
                parts::whole(p, (layer / p).clamp(0.0, 1.0))
            }
            _ => {
                // The stated trainable share, in [0, 1] (1 when not stated).
                let mut whole = parts::whole(p, stated_fraction.unwrap_or(1.0));
                if resolved.typed::<Quantization>().is_some() {
                    whole.quantized = whole.frozen;
                }
                whole
            }
        });
        // bitsandbytes' 4-bit matmul only (an unstated width on a quantized base is priced as it).
        let four_bit = parts.as_ref().is_some_and(|p| p.quantized > 0.0)
            && matches!(resolved.typed::<Quantization>(), None | Some(Quantization::Int4 | Quantization::Int4DoubleQuant));
        let bnb_keeps_4bit_input = four_bit && bnb_before_input_fix(settings, resolved, notes);
        Run {
            resolved,
            memory,
            precision,
            parameters,
            parts,
            entry,
            zero_stage: number(Role::ZeroStage).unwrap_or(0.0) as u64,
            fsdp: resolved.role(Role::Fsdp).and_then(|v| v.value.as_bool()).unwrap_or(false),
            bnb_keeps_4bit_input,
            // The project's TRL version is looked up only for a GRPO run.
            grpo: resolved
                .role(Role::Generations)
                .and_then(|_| grpo::candidates(resolved, settings).0.last().copied())
                .and_then(|release| grpo::read(resolved, release)),
        }
    }

    /// A role's value as a number.
    pub(crate) fn number(&self, role: Role) -> Option<f64> {
        self.resolved.role(role).and_then(|v| v.value.as_f64())
    }

    /// A role's typed value.
    pub(crate) fn typed<T: TypedRole>(&self) -> Option<T> {
        self.resolved.typed::<T>()
    }

    /// Sequences the model runs per sample of the micro batch: 2 under a paired preference
    /// objective (chosen and rejected concatenated in one forward), `num_generations` under TRL
    /// 0.14's GRPO (the sample is a prompt, trained as its completions: `estimate::grpo`), else 1;
    /// and the words that say so in a breakdown row.
    pub(crate) fn sequences_per_sample(&self) -> (f64, String) {
        if let Some(grpo) = self.grpo.as_ref().filter(|g| g.sequences_per_sample > 1.0) {
            return (grpo.sequences_per_sample, format!(" × {} completions per prompt ({})", grpo.sequences_per_sample, grpo.release.name()));
        }
        match self.typed::<Preference>().map(Preference::sequences_per_sample) {
            Some(n) if n > 1.0 => (n, " × 2 sequences (chosen + rejected)".to_owned()),
            _ => (1.0, String::new()),
        }
    }

    /// Trainable parameters, where the parameter count is known.
    pub(crate) fn trainable(&self) -> Option<f64> {
        self.parts.as_ref().map(|p| p.trainable)
    }

    /// The parameters a 16-bit model keeps in fp32 (role `fp32_embeddings`: the input
    /// embedding and the output head, V × h each, once when tied), where the model's shape is
    /// known and the run trains every parameter in pure 16-bit; 0 otherwise. The components
    /// price them at twice the 16-bit bytes (weights, gradients, AdamW states, the step's workspace).
    pub(crate) fn fp32_part(&self) -> f64 {
        let on = self.resolved.role(Role::Fp32Embeddings).and_then(|v| v.value.as_bool()) == Some(true);
        match (on, self.entry, &self.parts) {
            (true, Some(e), Some(p)) if matches!(self.precision, Precision::True(_)) && !p.added => {
                ((e.vocab_size * e.hidden_size) as f64 * if e.tie_embeddings { 1.0 } else { 2.0 }).min(p.trainable)
            }
            _ => 0.0,
        }
    }

    /// A quantized base trained under mixed precision and prepared for it (role
    /// `kbit_prepare`, which the dialects that call PEFT's `prepare_model_for_kbit_training`
    /// bind: Axolotl's model loader; TRL `SFTTrainer._prepare_peft_model` too), which casts every parameter that is not 4/8-bit
    /// (embeddings, norms, output head) to fp32 (peft `utils/other.py`). Measured: +1.95 GiB
    /// on Llama-3.1-8B QLoRA against the same run without it (data/measured_h200.json).
    pub(crate) fn kbit_prepared(&self) -> bool {
        self.resolved.role(Role::KbitPrepare).and_then(|v| v.value.as_bool()) == Some(true)
            && matches!(self.precision, Precision::Mixed(_) | Precision::Fp8Mixed)
            && self.parts.as_ref().is_some_and(|p| p.added && p.quantized > 0.0)
    }

    /// Data-parallel world size (1 when not known).
    pub(crate) fn world(&self) -> u64 {
        self.resolved.batch.world_size.unwrap_or(1)
    }

    /// Tensor-parallel degree (1 when not stated): weights, gradients, optimizer
    /// states and most activations are split over it (Megatron-LM, Shoeybi et al.
    /// 2019, arXiv:1909.08053 §3; Korthikanti et al. 2022 Table 2 with sequence parallelism).
    pub(crate) fn tensor_parallel(&self) -> f64 {
        self.number(Role::TensorParallel).filter(|t| *t >= 1.0).unwrap_or(1.0)
    }

    /// Whether DeepSpeed ZeRO's own estimator prices the model states (weights,
    /// gradients, optimizer states) — a full fine-tune under ZeRO, the case it was
    /// written for — so the per-state components stand aside. Adapters under ZeRO
    /// are priced by the per-state components with ZeRO's partitioning (`zero_divisor`).
    pub fn zero(&self) -> bool {
        self.zero_stage >= 1 && !self.parts.as_ref().is_some_and(|p| p.added)
    }

    /// What parameters, gradients and optimizer states are divided by: FSDP
    /// shards all three over the data-parallel world like ZeRO-3 (PyTorch FSDP
    /// `FULL_SHARD`; FACTS.md §4, "ZeRO-3 also params ÷ num_gpus"), and tensor parallelism splits them.
    pub(crate) fn shard(&self) -> f64 {
        let data = if self.fsdp { self.world() as f64 } else { 1.0 };
        data * self.tensor_parallel()
    }

    /// The divisor of one model state under ZeRO partitioning for adapter runs
    /// (ZeRO-1 partitions optimizer states, ZeRO-2 also gradients, ZeRO-3 also
    /// the parameters: Rajbhandari et al. 2020, arXiv:1910.02054 §5), times `shard()`.
    /// A state moved to CPU memory divides to nothing on the GPU (`INFINITY`): FSDP
    /// `CPUOffload(offload_params=True)` keeps parameters and gradients on the CPU and
    /// steps there; ZeRO-Offload moves gradients and optimizer states (Ren et al. 2021,
    /// arXiv:2101.06840 §4), ZeRO-Infinity's `offload_param` the parameters.
    pub(crate) fn zero_divisor(&self, state: State) -> f64 {
        let flag = |role: Role| self.resolved.role(role).is_some_and(|v| v.value.as_bool() == Some(true) || v.value.as_str() == Some("cpu"));
        let offloaded = match state {
            _ if self.fsdp && flag(Role::OffloadParams) => true,
            State::Optimizer | State::Gradients => self.zero_stage >= 1 && flag(Role::OffloadOptimizer),
            State::Weights => self.zero_stage >= 3 && flag(Role::OffloadParams),
        };
        if offloaded {
            return f64::INFINITY;
        }
        let from = match state {
            State::Optimizer => 1,
            State::Gradients => 2,
            State::Weights => 3,
        };
        let zero = if self.zero_stage >= from { self.world() as f64 } else { 1.0 };
        zero * self.shard()
    }
}

/// Whether the project declares a bitsandbytes older than 0.43.2, whose `MatMul4Bit` kept its input
/// (see `Run::bnb_keeps_4bit_input`); said in a note when it does.
fn bnb_before_input_fix(settings: &Settings, resolved: &ResolvedConfig, notes: &mut Vec<String>) -> bool {
    let fix = crate::schema::version::Version::new(&[0, 43, 2]);
    match crate::resolve::versions::at_least_of(settings, "bitsandbytes", &["bitsandbytes"], resolved.source().path(), &fix) {
        Ok((false, declared)) => {
            notes.push(format!(
                "bitsandbytes before 0.43.2, as {} declares: its 4-bit matmul keeps each quantized linear's input for the backward",
                declared.source
            ));
            true
        }
        _ => false,
    }
}

/// A model state, for ZeRO's partitioning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum State {
    Weights,
    Gradients,
    Optimizer,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::typed::{Half, Optimizer};

    #[test]
    fn registry_ids_are_unique_kebab_case_and_cite_a_source() {
        let mut ids: Vec<&str> = REGISTRY.iter().map(|c| c.id()).collect();
        for component in REGISTRY {
            assert!(component.id().chars().all(|c| c.is_ascii_lowercase() || c == '-'), "{}", component.id());
            assert!(component.source().len() > 10, "{} cites no source", component.id());
        }
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), REGISTRY.len(), "duplicate component id");
    }

    #[test]
    fn one_precision_spelling_one_meaning() {
        // `double` was fp64 for RES002 and "not stated" (fp32) for the memory model.
        let double: Precision = "double".parse().unwrap();
        assert_eq!(double, Precision::Fp64);
        assert_eq!((weights::bytes_per_parameter(double), gradients::bytes_per_parameter(double)), (8.0, 8.0));
        assert_eq!(transformer_activations::dtype_factor(double), 4.0);
        let bf16_true: Precision = "bf16-true".parse().unwrap();
        assert_eq!((weights::bytes_per_parameter(bf16_true), gradients::bytes_per_parameter(bf16_true)), (2.0, 2.0));
        let mixed = Precision::Mixed(Half::Bf16);
        assert_eq!((weights::bytes_per_parameter(mixed), gradients::bytes_per_parameter(mixed)), (6.0, 4.0));
    }

    #[test]
    fn optimizer_bytes_per_spelling_as_before_the_typed_roles() {
        for (name, bytes) in [
            ("adamw", 8.0),
            ("adam", 8.0),
            ("adamw_torch", 8.0),
            ("adamw_torch_fused", 8.0),
            ("adamw_hf", 8.0),
            ("torch.optim.AdamW", 8.0),
            ("torch.optim.Adam", 8.0),
            ("adamw-8bit", 2.0),
            ("adamw_8bit", 2.0),
            ("adamw_bnb_8bit", 2.0),
            ("paged_adamw_8bit", 2.0),
            ("adamw_torch_8bit", 2.0),
            ("adamw_torch_4bit", 1.0),
            ("lion_8bit", 2.0),
            ("sgd-momentum", 4.0),
            ("sgd", 0.0),
            ("adafactor", 4.0),
            ("lion", 4.0),
            ("lion_32bit", 4.0),
            ("paged_lion_8bit", 2.0),
            ("ademamix", 12.0),
            ("ademamix_8bit", 3.0),
            ("grokadamw", 12.0),
            ("rmsprop", 4.0),
            ("adagrad", 4.0),
            ("rmsprop_bnb_8bit", 1.0),
            ("schedule_free_sgd", 4.0),
            ("schedule_free_adamw", 8.0),
            ("stable_adamw", 8.0),
            ("lomo", 0.0),
            ("adalomo", 0.0),
        ] {
            assert_eq!(optimizer_states::bytes_per_parameter(name.parse::<Optimizer>().unwrap()), bytes, "{name}");
        }
    }
}
