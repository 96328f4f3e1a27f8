//! Stage 3 of the pipeline: the peak-memory model.
//!
//! A `MemoryModel` is built from a resolved config (roles, memory terms) and
//! the manifest (memory facts, calibration); it gives the peak for any micro
//! batch, component by component, and the largest micro batch that fits a GPU.
//! Every constant cites its source (`../shared/peers/FACTS.md`); where a
//! figure is our own inference, the comment says so.

pub mod band;
pub mod calibration;
pub mod components;
pub mod expr;
pub mod grpo;
pub mod parts;
pub mod plan;
pub(crate) mod solve;
pub mod zero;

use crate::resolve::ResolvedConfig;
use crate::resolve::model::ModelLookup;
use crate::schema::GpuTarget;
use crate::schema::training_config::Memory;
use crate::settings::Settings;
pub(crate) use band::Band;
pub(crate) use calibration::Calibration;
pub use components::cuda_context::DEFAULT_CUDA_CONTEXT_MIB;
use components::{Live, REGISTRY, Run, Term};
use serde::Serialize;

pub(crate) const MIB: f64 = 1024.0 * 1024.0;
pub(crate) const GIB: f64 = 1024.0 * MIB;

/// One row of the breakdown.
#[derive(Clone, Debug, Serialize)]
pub struct Component {
    pub name: String,
    /// The memory component that gave the row (`MemoryComponent::id`; `calibration` for the fit's row).
    pub component: &'static str,
    pub bytes: f64,
    /// What it depends on, for the table.
    pub depends_on: String,
    /// Whether it grows with the micro batch.
    pub per_sample: bool,
}

/// The memory model of one resolved config: the sum of the rows the
/// components of `components::REGISTRY` give, then calibrated on measured peaks.
#[derive(Clone, Debug)]
pub struct MemoryModel {
    /// In breakdown order: the fixed rows first, then those that may grow with the micro batch.
    terms: Vec<Term>,
    pub activations_modelled: bool,
    /// Whether the per-sample part covers the whole model (a declared per-sample
    /// size or the transformer formula), not only some extra tensors.
    pub activations_complete: bool,
    /// What the model leaves out, said in the output.
    pub notes: Vec<String>,
    calibration: Option<Calibration>,
    /// Gradient accumulation keeps the gradients alive through the next micro batches'
    /// backward (`Live::Gradients` rows count at the loss's backward too).
    gradients_in_backward: bool,
    /// GRPO generates in every micro step (TRL 0.14–0.16), so the earlier micro batches'
    /// gradients are alive while it generates; from 0.17 it generates once per window, before
    /// its first backward (`grpo::Release`).
    generates_each_micro_batch: bool,
    /// The measured uncertainty for this kind of run (`band`).
    pub band: Band,
    /// The CUDA context's bytes (not a tensor: the band and the allocator's reserve leave it out).
    context: f64,
    /// Per term, what it is to the band (`MemoryComponent::certainty`).
    certainty: Vec<components::Certainty>,
    /// Where the stated sequence length is only a cap (`Framework::sequence_cap`): the same run
    /// at the shortest length searched (`solve::SEQUENCE_STEP` tokens), whose low end is this
    /// run's low end: data shorter than the cap needs less, so only what fails even then is sure.
    floor: Option<Box<MemoryModel>>,
    /// The same run under the other releases of its framework that price it differently (TRL's
    /// GRPO when the project's TRL version is not settled: `grpo::candidates`): the band's low
    /// end is the lowest of them all, its high end the highest, the estimate this one's.
    alternatives: Vec<MemoryModel>,
}

/// The moments of a training step whose largest total is the peak (`Live`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Phase {
    /// The loss's backward: activations and logits alive.
    Backward,
    /// A checkpointed layer recomputed in the backward: its activations and the gradients so far.
    Recompute,
    /// The end of the backward and the optimizer step: every gradient alive.
    Step,
    /// An online RL trainer's generation (TRL GRPO without vLLM): the gathered policy and the KV
    /// cache, no activations.
    Generation,
}

impl Phase {
    pub const ALL: [Phase; 4] = [Phase::Backward, Phase::Recompute, Phase::Step, Phase::Generation];

    pub(crate) fn describe(self) -> &'static str {
        match self {
            Phase::Backward => "the loss's backward (activations alive)",
            Phase::Recompute => "a checkpointed layer's recomputation (gradients so far alive)",
            Phase::Step => "the optimizer step (every gradient alive)",
            Phase::Generation => "GRPO's generation (the policy generating its completions)",
        }
    }
}

/// The reason an unknown model gives: what is missing (MEM004's message).
pub(crate) fn unknown_model(name: &str, why: Option<&str>) -> String {
    let why = why.map(|w| format!(" ({w})")).unwrap_or_default();
    format!("model `{name}` is not in the model catalog and no local config.json describes it{why}, so its parameter count and shape are unknown")
}

/// The reason a known model whose architecture the memory model does not support gives (MEM004's message).
pub(crate) fn unsupported_model(name: &str, known: &crate::model::Unsupported) -> String {
    let id = if known.id.eq_ignore_ascii_case(name) { String::new() } else { format!(" ({})", known.id) };
    format!(
        "model `{name}`{id} is a known {} architecture that the memory model does not support ({}), so its parameter count and shape are unknown",
        known.family, known.reason
    )
}

/// A config that trains only part of the model without a stated trainable share,
/// where the share cannot be derived: LoRA/QLoRA/DoRA adapters are counted from
/// their rank and target modules on the model's architecture (`parts::adapters`), OFT from
/// its block size (`parts::oft`),
/// which needs the architecture (the catalog or a config.json); `freeze` and other
/// adapters are not modelled. Pricing every parameter as trained would overstate
/// the peak several times, so such a run is not estimated rather than reported as not fitting.
pub(crate) fn partial_training(resolved: &ResolvedConfig) -> Option<String> {
    use crate::schema::Role;
    use crate::schema::typed::Adapter;
    if resolved.role(Role::TrainableFraction).is_some() {
        return None;
    }
    let value = resolved.role(Role::Adapter).filter(|v| !v.value.is_null() && v.value != serde_json::Value::Bool(false))?;
    let adapter = resolved.typed::<Adapter>();
    if adapter == Some(Adapter::Full) {
        return None;
    }
    let architecture = matches!(resolved.model, Some(ModelLookup::Found(_)));
    if architecture && matches!(adapter, Some(Adapter::Lora | Adapter::Qlora | Adapter::Dora)) {
        return None;
    }
    let oft_block = resolved.role(Role::OftBlockSize).and_then(|v| v.value.as_f64()).is_some_and(|b| b >= 2.0);
    if architecture && adapter == Some(Adapter::Oft) && oft_block {
        return None;
    }
    let spelled = value.value.as_str().map(str::to_owned).unwrap_or_else(|| value.value.to_string());
    let why = if matches!(adapter, Some(Adapter::Lora | Adapter::Qlora | Adapter::Dora)) {
        "the adapters are counted from their rank and target modules on the model's architecture, which is not known here (no catalog model or config.json)"
    } else if adapter == Some(Adapter::Oft) && !oft_block {
        "OFT is counted from its block size on the model's architecture; a number of blocks (`oft_rank`) instead of a block size is not modelled"
    } else if adapter == Some(Adapter::Oft) {
        "OFT is counted from its block size on the model's architecture, which is not known here (no catalog model or config.json)"
    } else {
        "the memory of this kind of partial training is not modelled"
    };
    Some(format!(
        "`{}: {spelled}` trains only part of the model and its trainable share is not stated; {why}, and pricing every parameter as trained would overstate the peak several times",
        value.path
    ))
}

/// MEM004's message, first part, for a run whose activations nothing gives (no sequence length).
pub(crate) const ACTIVATIONS_UNKNOWN: &str = "the activations are unknown (the config does not bound the sequence length, and declares no activation size):";

/// Why a config gets no training-memory estimate: it describes no training run (`Framework::not_training`).
pub(crate) const NOT_TRAINING: &str = "not a training run:";

/// MEM004's message for a run that shards with FSDP over a world nobody states.
pub(crate) const FSDP_WORLD_UNKNOWN: &str =
    "the run shards its parameters, gradients and optimizer states with FSDP over the data-parallel world, whose size is not known here";

/// MEM004's message for a run that shards with the ZeRO stage of the DeepSpeed file it names over a world nobody states.
pub(crate) const ZERO_WORLD_UNKNOWN: &str = "the run shards its model states with DeepSpeed ZeRO over the data-parallel world, whose size is not known here";

/// MEM004's message for a setting the memory model does not read yet.
pub(crate) fn unmodelled_reason(unmodelled: &crate::dialects::Unmodelled) -> String {
    format!("`{}` is set: {}", unmodelled.path, unmodelled.reason)
}

/// Why there is no estimate: the reason in words, and its kind, which callers branch on (where
/// MEM004 points, whether to solve for the fewest GPUs), never on the words.
#[derive(Clone, Debug, PartialEq)]
pub struct NotEstimable(pub String, pub Why);

/// The kind of reason a run has no estimate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Why {
    /// The dialect says the file is no training run (an export, an inference or eval config).
    NotTraining,
    /// The named model is in no catalog and no config.json describes it.
    UnknownModel,
    /// The named model's architecture is known and not supported by the memory model.
    UnsupportedModel,
    /// Adapters or partial training of a model whose shape is unknown.
    PartialTraining,
    /// A setting the memory model does not read yet (the dialect's `memory_unmodelled`).
    Unmodelled,
    /// Nothing gives the activations (no sequence length).
    ActivationsUnknown,
    /// The run shards over a data-parallel world nobody states.
    World(WorldUnknown),
    /// Anything else: a malformed memory term, nothing to estimate from.
    Other,
}

/// What shards over a data-parallel world nobody states.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WorldUnknown {
    /// FSDP full sharding.
    Fsdp,
    /// A ZeRO stage read from another file (the DeepSpeed file, the accelerate config).
    Zero,
}

impl NotEstimable {
    /// Not estimable for a reason said in words, of no kind a caller branches on.
    pub fn new(reason: impl Into<String>) -> NotEstimable {
        NotEstimable(reason.into(), Why::Other)
    }

    /// Not estimable for a reason of a kind callers branch on.
    pub(crate) fn because(why: Why, reason: impl Into<String>) -> NotEstimable {
        NotEstimable(reason.into(), why)
    }

    /// The world nobody states, when that is why.
    pub(crate) fn world_unknown(&self) -> Option<WorldUnknown> {
        match self.1 {
            Why::World(by) => Some(by),
            _ => None,
        }
    }

    /// Not estimable because the run shards over a world nobody states.
    pub(crate) fn world(by: WorldUnknown) -> NotEstimable {
        let reason = match by {
            WorldUnknown::Fsdp => FSDP_WORLD_UNKNOWN,
            WorldUnknown::Zero => ZERO_WORLD_UNKNOWN,
        };
        NotEstimable(reason.to_owned(), Why::World(by))
    }
}

impl MemoryModel {
    pub fn build(resolved: &ResolvedConfig, settings: &Settings, gpu: Option<&GpuTarget>) -> Result<MemoryModel, NotEstimable> {
        MemoryModel::build_as(resolved, settings, gpu, None)
    }

    /// `build`, with TRL's GRPO priced as `release` runs it (an alternative, or a floor of one);
    /// `None`: as the newest release the project may run, the others as alternatives.
    fn build_as(resolved: &ResolvedConfig, settings: &Settings, gpu: Option<&GpuTarget>, release: Option<grpo::Release>) -> Result<MemoryModel, NotEstimable> {
        if let Some(why) = resolved.detection.dialect.not_training(&resolved.tree) {
            return Err(NotEstimable::because(Why::NotTraining, format!("{NOT_TRAINING} {why}")));
        }
        let memory = memory_facts(resolved, settings);
        let mut notes = Vec::new();
        let mut run = Run::new(resolved, &memory, settings, gpu, &mut notes);
        let grpo_releases = match (&run.grpo, release) {
            (Some(_), Some(release)) => {
                run.grpo = grpo::read(resolved, release);
                None
            }
            (Some(grpo), None) => {
                let (releases, why) = grpo::candidates(resolved, settings);
                notes.push(grpo::note(grpo, &releases, why.as_deref()));
                Some(releases)
            }
            (None, _) => None,
        };
        let (mut fixed, mut scaling) = (Vec::new(), Vec::new());
        let mut activations_complete = false;
        let mut context = 0.0;
        for component in REGISTRY {
            let terms = component.terms(&run, &mut notes)?;
            activations_complete |= component.covers_activations() && !terms.is_empty();
            if component.id() == "cuda-context" {
                context += terms.iter().map(|t| t.at(1)).sum::<f64>();
            }
            for mut term in terms {
                term.component = component.id();
                let declared = component.certainty();
                if matches!(term.bytes, components::Bytes::Fixed(_)) { fixed.push((term, declared)) } else { scaling.push((term, declared)) }
            }
        }
        let activations_modelled = activations_complete || scaling.iter().any(|(t, _)| t.scales());
        if activations_modelled && !activations_complete {
            notes.push("only the declared memory terms grow with the micro batch: the estimate is a lower bound".into());
        }
        if !activations_modelled {
            notes.push("activations not modelled: declare memory.activation_bytes_per_sample, memory terms, or the transformer shape (sequence_length, hidden_size, layers, heads)".into());
        }
        fixed.extend(scaling);
        let (terms, certainty): (Vec<Term>, Vec<components::Certainty>) = fixed.into_iter().unzip();
        // Accumulating over micro batches (stated, or derived from the global batch: > 1) keeps the gradients alive in the backward.
        let gradients_in_backward = resolved.batch.accumulation_steps().is_some_and(|a| a > 1);
        let band = Band::of(&run);
        if certainty.contains(&components::Certainty::Declared) {
            notes.push("the declared memory sizes and terms are taken as stated: the band widens only the rows trainlint computes".into());
        }
        let mut model = MemoryModel {
            terms,
            certainty,
            activations_modelled,
            activations_complete,
            notes,
            calibration: None,
            gradients_in_backward,
            generates_each_micro_batch: run.grpo.as_ref().is_some_and(|g| g.release <= grpo::Release::V0_16),
            band,
            context,
            floor: None,
            alternatives: Vec::new(),
        };
        let points = calibration::points(settings, resolved, gpu);
        // A named model whose size is unknown is not estimated from the rest (an activation-only
        // lower bound would read as "fits"), unless measured peaks calibrate it.
        if run.parameters.is_none()
            && points.is_empty()
            && let Some(ModelLookup::Unknown { name, why }) = &resolved.model
        {
            return Err(NotEstimable::because(Why::UnknownModel, unknown_model(name, why.as_deref())));
        }
        if run.parameters.is_none()
            && points.is_empty()
            && let Some(ModelLookup::Unsupported { name, known }) = &resolved.model
        {
            return Err(NotEstimable::because(Why::UnsupportedModel, unsupported_model(name, known)));
        }
        if points.is_empty()
            && let Some(reason) = partial_training(resolved)
        {
            return Err(NotEstimable::because(Why::PartialTraining, reason));
        }
        // A DeepSpeed file the resolver read gives the ZeRO stage: the key that names it is modelled.
        let read_deepspeed =
            |path: &str| resolved.detection.dialect.deepspeed_file_key() == Some(path) && resolved.role(crate::schema::Role::ZeroStage).is_some();
        if points.is_empty()
            && let Some(unmodelled) = resolved.detection.dialect.memory_unmodelled(&resolved.tree).filter(|u| !read_deepspeed(&u.path))
        {
            return Err(NotEstimable::because(Why::Unmodelled, unmodelled_reason(&unmodelled)));
        }
        if points.is_empty() && run.fsdp && resolved.batch.world_size.is_none() {
            return Err(NotEstimable::world(WorldUnknown::Fsdp));
        }
        // The stage read from another file (the DeepSpeed file the config names, the accelerate
        // config it is launched with) shards over a world this config does not state.
        let zero_elsewhere = resolved.role(crate::schema::Role::ZeroStage).is_some_and(|v| v.file.path() != resolved.source().path());
        if points.is_empty()
            && run.zero_stage >= 1
            && resolved.batch.world_size.is_none()
            && (resolved.detection.dialect.deepspeed_file_key().is_some_and(read_deepspeed) || zero_elsewhere)
        {
            return Err(NotEstimable::world(WorldUnknown::Zero));
        }
        if let Some(ModelLookup::Found(facts)) = &resolved.model
            && resolved.role(crate::schema::Role::Parameters).is_some_and(|v| v.from_model.is_some())
        {
            model.notes.push(format!("model shape from {} ({} parameters, exact count)", facts.described(), crate::model::thousands(facts.parameters)));
        }
        if run.parameters.is_none() && !model.activations_modelled && memory.terms.is_empty() && points.is_empty() {
            return Err(NotEstimable::new("the config states no parameter count, activation size, memory term or calibration point"));
        }
        model.calibration = calibration::fit(&points, |m| model.formula_total(m));
        if let Some(fit) = &model.calibration {
            model.band = model.band.clone().calibrated(fit.residual_bytes);
        }
        // A length that only caps the samples: the low end is the run at the shortest length.
        let stated = resolved.role(crate::schema::Role::SequenceLength).and_then(|v| v.as_u64());
        let this_release = run.grpo.as_ref().map(|g| g.release);
        if model.calibration.is_none()
            && model.activations_complete
            && let Some(tokens) = stated.filter(|t| *t > solve::SEQUENCE_STEP)
            && let Some(why) = resolved.detection.dialect.sequence_cap(&resolved.tree).or_else(|| this_release.map(|_| grpo::CAP.to_owned()))
        {
            let mut shortest = resolved.clone();
            solve::set_sequence_length(&mut shortest, solve::SEQUENCE_STEP);
            if let Ok(floor) = MemoryModel::build_as(&shortest, settings, gpu, this_release) {
                model.notes.push(format!(
                    "{why}: the estimate is at {} tokens per sample, the most a sample has; the band's low end is at {} tokens, so only a run that does not fit even then is out of memory for sure (MEM001)",
                    crate::model::thousands(tokens),
                    solve::SEQUENCE_STEP
                ));
                model.floor = Some(Box::new(floor));
            }
        }
        // GRPO under every other release the project may run (a model that fails to build is
        // no alternative: the same checks fail for every release).
        for other in grpo_releases.into_iter().flatten().filter(|r| Some(*r) != this_release) {
            if let Ok(alternative) = MemoryModel::build_as(resolved, settings, gpu, Some(other)) {
                model.alternatives.push(alternative);
            }
        }
        Ok(model)
    }

    /// Whether a row is alive at a moment of the step. While GRPO generates, the gradients of the
    /// micro batches before are alive when the run accumulates and TRL 0.14–0.16 generate in
    /// every micro step.
    fn alive(&self, live: Live, phase: Phase) -> bool {
        match (live, phase) {
            (Live::Always, _) | (Live::Backward, Phase::Backward | Phase::Recompute) | (Live::Loss, Phase::Backward) => true,
            (Live::Recompute, Phase::Recompute) | (Live::Gradients, Phase::Recompute | Phase::Step) | (Live::Step, Phase::Step) => true,
            (Live::Generation, Phase::Generation) => true,
            (Live::Gradients, Phase::Generation) => self.gradients_in_backward && self.generates_each_micro_batch,
            (Live::Gradients, Phase::Backward) | (Live::Accumulating, Phase::Backward | Phase::Recompute) => self.gradients_in_backward,
            _ => false,
        }
    }

    /// Whether a moment happens in this run's step: the recomputation only where a row is
    /// recomputed (full checkpointing), the generation only where a row is generated (GRPO).
    fn happens(&self, phase: Phase) -> bool {
        match phase {
            Phase::Recompute => self.terms.iter().any(|t| t.live == Live::Recompute),
            Phase::Generation => self.terms.iter().any(|t| t.live == Live::Generation),
            Phase::Backward | Phase::Step => true,
        }
    }

    /// The bytes alive at a moment of the step at `micro` (0 for a moment the run does not have).
    fn phase_total(&self, micro: u64, phase: Phase) -> f64 {
        if !self.happens(phase) {
            return 0.0;
        }
        self.terms.iter().filter(|t| self.alive(t.live, phase)).map(|t| t.at(micro)).sum()
    }

    /// The moment of the step that makes the peak at `micro` (the first of equals).
    pub(crate) fn peak_phase(&self, micro: u64) -> Phase {
        let mut best = (Phase::Backward, self.phase_total(micro, Phase::Backward));
        for phase in [Phase::Recompute, Phase::Step, Phase::Generation] {
            let total = self.phase_total(micro, phase);
            if total > best.1 {
                best = (phase, total);
            }
        }
        best.0
    }

    fn rows(&self, micro: u64, keep: impl Fn(Live) -> bool) -> Vec<Component> {
        self.terms
            .iter()
            .filter(|term| keep(term.live))
            .map(|term| Component {
                name: term.name.clone(),
                component: term.component,
                bytes: term.at(micro),
                depends_on: term.depends_on.clone(),
                per_sample: term.scales(),
            })
            .collect()
    }

    fn formula_components(&self, micro: u64) -> Vec<Component> {
        let peak = self.peak_phase(micro);
        self.rows(micro, |live| self.alive(live, peak))
    }

    /// The largest of the other moments of the step: its total, and the rows alive then and
    /// not at the peak (what the output says beside the breakdown).
    pub(crate) fn off_peak(&self, micro: u64) -> (Phase, f64, Vec<Component>) {
        let peak = self.peak_phase(micro);
        let (other, total) = Phase::ALL
            .into_iter()
            .filter(|p| *p != peak)
            .map(|p| (p, self.phase_total(micro, p)))
            .fold((Phase::Step, f64::MIN), |best, next| if next.1 > best.1 { next } else { best });
        (other, total, self.rows(micro, |live| !self.alive(live, peak) && self.alive(live, other)))
    }

    fn formula_total(&self, micro: u64) -> f64 {
        Phase::ALL.into_iter().map(|p| self.phase_total(micro, p)).fold(0.0, f64::max)
    }

    /// The same model for a run that accumulates gradients (what `plan` proposes when
    /// the micro batch shrinks): the earlier micro batches' gradients stay alive in the backward.
    pub(crate) fn accumulating(&self) -> MemoryModel {
        MemoryModel { gradients_in_backward: true, alternatives: self.alternatives.iter().map(MemoryModel::accumulating).collect(), ..self.clone() }
    }

    /// The breakdown at a micro batch; with calibration, a last row brings the
    /// total to the measured fit.
    pub fn components(&self, micro: u64) -> Vec<Component> {
        let mut out = self.formula_components(micro);
        if let Some(calibration) = &self.calibration {
            let fitted = calibration.fixed_bytes + calibration.per_sample_bytes * micro as f64;
            let formula: f64 = out.iter().map(|c| c.bytes).sum();
            out.push(Component {
                name: "calibration (measured − formula)".into(),
                component: "calibration",
                bytes: fitted - formula,
                depends_on: format!("{} measured peak(s)", calibration.points),
                per_sample: false,
            });
        }
        out
    }

    pub(crate) fn total(&self, micro: u64) -> f64 {
        match &self.calibration {
            Some(c) => c.fixed_bytes + c.per_sample_bytes * micro as f64,
            None => self.formula_total(micro),
        }
    }

    /// The config names the memory terms read (besides `micro_batch`).
    pub fn dependencies(&self) -> Vec<String> {
        let mut out = Vec::new();
        for term in &self.terms {
            if let components::Bytes::Expression { lookup, .. } = &term.bytes {
                out.extend(lookup.iter().map(|(name, _)| name.clone()));
            }
        }
        out
    }

    pub(crate) fn calibration(&self) -> Option<&Calibration> {
        self.calibration.as_ref()
    }

    /// The rows of one certainty alive at `phase` at `micro`.
    fn certain_at(&self, micro: u64, phase: Phase, certainty: components::Certainty) -> f64 {
        self.terms.iter().zip(&self.certainty).filter(|(t, c)| **c == certainty && self.alive(t.live, phase)).map(|(t, _)| t.at(micro)).sum()
    }

    /// What the estimate is made of at `phase`, for the band.
    fn parts_at(&self, micro: u64, phase: Phase) -> band::Parts {
        let computed = self.certain_at(micro, phase, components::Certainty::Computed);
        band::Parts {
            total: self.phase_total(micro, phase),
            computed: (computed - self.context).max(0.0),
            declared: self.certain_at(micro, phase, components::Certainty::Declared),
            context: self.context,
        }
    }

    /// The computed rows at the peak (what `estimate` shows as `widened_bytes`).
    pub(crate) fn widened(&self, micro: u64) -> f64 {
        if self.calibration.is_some() {
            return 0.0;
        }
        self.parts_at(micro, self.peak_phase(micro)).computed
    }

    /// An end of the band: the largest over the moments of the step, since the peak is the
    /// largest moment and a wider band may move it (a step with few computed rows, a
    /// backward with many).
    fn band_end(&self, micro: u64, end: impl Fn(&Band, &band::Parts) -> f64) -> f64 {
        if self.calibration.is_some() {
            return end(&self.band, &band::Parts { total: self.total(micro), context: self.context, ..Default::default() });
        }
        Phase::ALL.into_iter().filter(|p| self.happens(*p)).map(|p| end(&self.band, &self.parts_at(micro, p))).fold(0.0, f64::max)
    }

    /// The lowest the card may hold at `micro` (the band's low end; above usable memory: MEM001);
    /// where the length is a cap, the run's at the shortest length.
    pub(crate) fn low(&self, micro: u64) -> f64 {
        let own = self.band_end(micro, Band::low);
        let own = match &self.floor {
            Some(floor) => floor.low(micro).min(own),
            None => own,
        };
        self.alternatives.iter().map(|a| a.low(micro)).fold(own, f64::min)
    }

    /// The most the card may hold at `micro` (the band's high end; what a plan must fit): under
    /// every alternative.
    pub(crate) fn high(&self, micro: u64) -> f64 {
        self.alternatives.iter().map(|a| a.high(micro)).fold(self.band_end(micro, Band::high), f64::max)
    }

    /// The end of the band a decision uses.
    pub fn end(&self, micro: u64, end: End) -> f64 {
        match end {
            End::Low => self.low(micro),
            End::High => self.high(micro),
        }
    }

    /// The largest micro batch (up to 65,536) whose `end` of the band fits `usable` bytes:
    /// with `End::High` surely, with `End::Low` possibly (beyond it the run surely does not).
    pub(crate) fn max_micro_batch(&self, usable: f64, end: End) -> Option<u64> {
        if self.end(1, end) > usable {
            return None;
        }
        if !self.activations_modelled && self.calibration.as_ref().is_none_or(|c| c.per_sample_bytes <= 0.0) {
            return None;
        }
        let (mut low, mut high) = (1u64, 2u64);
        while high <= 65_536 && self.end(high, end) <= usable {
            low = high;
            high *= 2;
        }
        let mut high = high.min(65_537);
        while high - low > 1 {
            let mid = (low + high) / 2;
            if self.end(mid, end) <= usable { low = mid } else { high = mid }
        }
        Some(low)
    }
}

/// Which end of an estimate's band a decision uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    Low,
    High,
}

/// What an estimate says about a run on a card, from its band against usable memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Even the band's high end fits.
    Fits,
    /// The band straddles usable memory (MEM002).
    MayNotFit,
    /// Even the band's low end exceeds usable memory (MEM001).
    DoesNotFit,
}

/// The native config's memory facts, over the manifest's.
fn memory_facts(resolved: &ResolvedConfig, settings: &Settings) -> Memory {
    let mut memory = settings.manifest.memory.clone().unwrap_or_default();
    if let Some(node) = resolved.tree.get("memory")
        && let Ok(native) = serde_json::from_value::<Memory>(node.to_json())
    {
        if native.activation_bytes_per_sample.is_some() {
            memory.activation_bytes_per_sample = native.activation_bytes_per_sample;
        }
        if native.cuda_context_mib.is_some() {
            memory.cuda_context_mib = native.cuda_context_mib;
        }
        memory.terms.extend(native.terms);
    }
    memory
}

/// An estimate for one config (or stage) on one GPU at one micro batch.
#[derive(Clone, Debug, Serialize)]
pub struct Estimate {
    pub gpu: String,
    pub stage: Option<String>,
    pub micro_batch: u64,
    pub components: Vec<Component>,
    pub total_bytes: f64,
    /// The band of what the card holds (allocator reserve and context included).
    pub low_bytes: f64,
    pub high_bytes: f64,
    /// The computed rows at the peak (activations, logits, workspaces; not the model states,
    /// declared sizes or the CUDA context): what the band widens.
    pub widened_bytes: f64,
    pub band: Band,
    pub verdict: Verdict,
    pub capacity_bytes: f64,
    pub usable_bytes: f64,
    pub safety_margin: f64,
    /// The band's high end fits usable memory.
    pub fits: bool,
    /// Whether the activations are in the total; without them `fits` says only that the
    /// rest (weights, gradients, optimizer states) fits.
    pub activations_modelled: bool,
    /// The largest micro batch whose band's low end fits (beyond it: MEM001).
    pub max_micro_batch: Option<u64>,
    pub calibration: Option<Calibration>,
    pub notes: Vec<String>,
    /// An input the config leaves open, solved for (`solve`): the estimate is shown at it.
    pub solved: Option<SolvedInput>,
    /// The moment of the step the peak is at; `components` are the rows alive then.
    pub peak_phase: Phase,
    /// The other moment: its total, and the rows alive only then.
    pub off_peak: OffPeak,
}

/// The moment of the step that is not the peak.
#[derive(Clone, Debug, Serialize)]
pub struct OffPeak {
    pub phase: Phase,
    pub total_bytes: f64,
    /// Rows alive then and not at the peak.
    pub components: Vec<Component>,
}

/// Which input was solved for, and its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct SolvedInput {
    pub input: Unstated,
    #[schemars(range(min = 1))]
    pub value: u64,
}

/// An input the config leaves open.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Unstated {
    /// The config does not bound it (the longest sample decides): solved for the longest that
    /// fits; where none fits (`fits` false), the shortest searched (64 tokens).
    SequenceLength,
    /// The launcher decides it: solved for the fewest GPUs a sharded run fits on; where no
    /// world holds it (`fits` false), the most searched (4,096).
    WorldSize,
}

pub fn estimate(model: &MemoryModel, resolved: &ResolvedConfig, gpu: &GpuTarget, margin: f64, micro: u64) -> Estimate {
    let capacity = gpu.memory_bytes() as f64;
    let usable = capacity * margin;
    let total = model.total(micro);
    let (low, high) = (model.low(micro), model.high(micro));
    let verdict = if high <= usable {
        Verdict::Fits
    } else if low > usable {
        Verdict::DoesNotFit
    } else {
        Verdict::MayNotFit
    };
    let (phase, off_total, off_rows) = model.off_peak(micro);
    Estimate {
        gpu: gpu.id.clone(),
        stage: resolved.stage.clone(),
        micro_batch: micro,
        components: model.components(micro),
        total_bytes: total,
        low_bytes: low,
        high_bytes: high,
        widened_bytes: model.widened(micro),
        band: model.band.clone(),
        verdict,
        capacity_bytes: capacity,
        usable_bytes: usable,
        safety_margin: margin,
        fits: verdict == Verdict::Fits,
        activations_modelled: model.activations_modelled || model.calibration().is_some(),
        max_micro_batch: model.max_micro_batch(usable, End::Low),
        calibration: model.calibration().cloned(),
        notes: model.notes.clone(),
        solved: None,
        peak_phase: model.peak_phase(micro),
        off_peak: OffPeak { phase, total_bytes: off_total, components: off_rows },
    }
}

/// A band in words: `44.63 GiB` where both ends print the same, else `17.41 GiB to 28.78 GiB`.
pub(crate) fn human_range(low: f64, high: f64) -> String {
    let (low, high) = (human_bytes(low), human_bytes(high));
    if low == high { low } else { format!("{low} to {high}") }
}

/// `12.34 GiB`, `512 MiB`.
pub(crate) fn human_bytes(bytes: f64) -> String {
    if bytes.abs() >= GIB { format!("{:.2} GiB", bytes / GIB) } else { format!("{:.0} MiB", bytes / MIB) }
}
