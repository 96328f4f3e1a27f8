//! TRL's GRPO as the memory model reads it: what one training step and one generation hold, by
//! TRL release. Each semantic is read from TRL's own source at the tag that introduced it
//! (huggingface/trl `trl/trainer/grpo_trainer.py`, `trl/trainer/grpo_config.py`,
//! `trl/models/utils.py`); the HF dialect gives the roles (`dialects::hf_trainer`, `grpo`).
//!
//! A run is GRPO's when it has the `generations` role. The project's TRL version is read with
//! `resolve::versions` (the manifest's `[frameworks] trl`, lock and requirement files); the keys
//! a config writes that only a later GRPOConfig has raise the oldest release it can run on
//! (`hf_trainer::grpo_release_floor`). Where more than one release remains and they price the
//! run differently, the estimate is the newest's and the band spans them all
//! (`MemoryModel::build`: its low end the cheapest release's, its high end the costliest's).

use crate::resolve::{ResolvedConfig, versions};
use crate::schema::Role;
use crate::schema::version::Version;
use crate::settings::Settings;

/// The GRPOTrainer releases that hold different memory for the same config, oldest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Release {
    /// 0.14, GRPO's first release (no `grpo_trainer.py` at v0.13.0): `per_device_train_batch_size`
    /// is "Number of prompts sampled per device for training. The actual batch passed into the
    /// model will be this value multiplied by `num_generations`" (`grpo_config.py` @v0.14.0);
    /// `compute_loss` generates `num_return_sequences=num_generations` completions per prompt and
    /// runs the policy and the reference model on all of them. The reference model is always
    /// loaded (`__init__`: `from_pretrained` under ZeRO-3, else `create_reference_model`, unless
    /// PEFT), and generation always gathers ZeRO-3's parameters (`unwrap_model_for_generation`).
    V0_14,
    /// 0.15: the per-device batch counts completions ("redefining `per_device_batch_size` as
    /// generations per device", trl #2776, 2025-02-06; `RepeatRandomSampler` repeats each prompt
    /// `num_generations` times); each micro step generates its own completions.
    /// `ds3_gather_for_generation` (default True, trl #2667) may turn the gathering off. The
    /// reference model is still loaded whatever `beta` is.
    V0_15,
    /// 0.16: `beta == 0.0` loads no reference model (`__init__` @v0.16.0: `if self.beta == 0.0:
    /// self.ref_model = None`).
    V0_16,
    /// 0.17: one generation per accumulation window: `_prepare_inputs` @v0.17.0 generates the
    /// "accumulated local batch" (per-device batch × `gradient_accumulation_steps`) at once and
    /// splits it over the micro steps.
    V0_17,
    /// 0.18: the window is `steps_per_generation` (default: the accumulation), or
    /// `generation_batch_size` completions over all processes (`_get_train_sampler`,
    /// `_prepare_inputs` @v0.18.0).
    V0_18,
    /// 0.19 and later: `beta` defaults to 0.0 (`grpo_config.py` @v0.19.0), no reference model
    /// unless it is set.
    V0_19,
}

impl Release {
    pub const ALL: [Release; 6] = [Release::V0_14, Release::V0_15, Release::V0_16, Release::V0_17, Release::V0_18, Release::V0_19];

    /// The first version of the release.
    fn version(self) -> Version {
        Version::new(&[0, self.minor()])
    }

    fn minor(self) -> u64 {
        match self {
            Release::V0_14 => 14,
            Release::V0_15 => 15,
            Release::V0_16 => 16,
            Release::V0_17 => 17,
            Release::V0_18 => 18,
            Release::V0_19 => 19,
        }
    }

    /// `TRL 0.14`, `TRL 0.19 and later`.
    pub fn name(self) -> String {
        match self {
            Release::V0_19 => "TRL 0.19 and later".to_owned(),
            other => format!("TRL 0.{}", other.minor()),
        }
    }
}

/// Why GRPO's sequence length is a cap, not the length of every sample (`MemoryModel::build`'s
/// floor): `compute_loss` @v0.14.0 pads the prompts to the longest and `generate` stops when
/// every completion has ended, so a batch is as long as its longest prompt and completion.
pub(crate) const CAP: &str = "GRPO's prompts are padded to the longest in the batch and its completions end at their end-of-sequence token (`max_prompt_length` and `max_completion_length` cap them)";

/// How many sequences one generation holds in its KV cache.
#[derive(Clone, Debug, PartialEq)]
pub enum Generated {
    /// Per sample of the micro batch, with the words that say how many.
    PerSample(f64, String),
    /// The same at any micro batch (`generation_batch_size` ÷ processes), with the words.
    Fixed(f64, String),
}

/// What one GRPO run holds, under one release.
#[derive(Clone, Debug, PartialEq)]
pub struct Grpo {
    pub release: Release,
    /// Completions per prompt (`num_generations`).
    pub generations: f64,
    /// Tokens of one completion, at most (`max_completion_length`).
    pub completion: f64,
    /// Sequences the policy trains on per sample of the micro batch: `num_generations` under
    /// 0.14 (the sample is a prompt), else 1 (the sample is a completion).
    pub sequences_per_sample: f64,
    /// The sequences one generation call holds.
    pub generated: Generated,
    /// Whether the frozen reference model is loaded (for the KL term).
    pub reference: bool,
    /// Whether generation runs in the trained model (no vLLM) with ZeRO-3's parameters gathered
    /// whole on every GPU (`unwrap_model_for_generation`, `trl/models/utils.py` @v0.14.0:
    /// `deepspeed.zero.GatheredParameters(model.parameters())`; `gather_deepspeed3_params` from
    /// `ds3_gather_for_generation` since 0.15). Only ZeRO-3 runs gather.
    pub gathers: bool,
    /// Completions are generated by vLLM, not by the trained model.
    pub vllm: bool,
}

/// The releases the project may run, oldest first, and the words that say why: the stated TRL
/// version (`versions::at_least_of`, a range may leave several), raised by the GRPOConfig keys
/// the config writes. Never empty.
pub(crate) fn candidates(resolved: &ResolvedConfig, settings: &Settings) -> (Vec<Release>, Option<String>) {
    let path = resolved.source().path();
    let mut out = Vec::new();
    let mut sources = Vec::new();
    for release in Release::ALL {
        // A release is possible unless a declaration says the version is below it or at/above the next.
        let at_least = |r: Release| versions::at_least_of(settings, "trl", &["trl"], path, &r.version());
        let below = match at_least(release) {
            Ok((false, declared)) => {
                sources.push(declared.source);
                true
            }
            _ => false,
        };
        let next = Release::ALL.iter().copied().find(|r| *r > release);
        let above = match next.map(at_least) {
            Some(Ok((true, declared))) => {
                sources.push(declared.source);
                true
            }
            _ => false,
        };
        if !below && !above {
            out.push(release);
        }
    }
    sources.dedup();
    let mut why: Vec<String> = sources;
    let dialect = resolved.detection.dialect;
    let pins = dialect.grpo_trl_pins();
    if !pins.is_empty() {
        // A framework that builds GRPOConfig itself runs the TRL its own version pins.
        let (pinned, declared) = pinned_minors(settings, dialect, path, pins);
        let kept: Vec<Release> = out.iter().copied().filter(|r| pinned.contains(&r.minor())).collect();
        if !kept.is_empty() && kept.len() < out.len() {
            out = kept;
            let first = pins[0].0.iter().map(u64::to_string).collect::<Vec<_>>().join(".");
            why.push(match declared {
                Some(declared) => {
                    format!("{declared}, whose {} pins TRL 0.{}", dialect.title(), pinned.iter().map(u64::to_string).collect::<Vec<_>>().join(" or 0."))
                }
                None => format!(
                    "{}'s GRPO pins TRL 0.{} or later since its v{first}; no file states the project's {} version",
                    dialect.title(),
                    pins[0].1,
                    dialect.title()
                ),
            });
        }
    } else if let Some((minor, key)) = crate::dialects::hf_trainer::grpo_release_floor(&resolved.tree) {
        let kept: Vec<Release> = out.iter().copied().filter(|r| r.minor() >= minor).collect();
        if !kept.is_empty() && kept.len() < out.len() {
            out = kept;
            why.push(format!("`{key}`, a GRPOConfig key since TRL 0.{minor}"));
        }
    }
    let why = (!why.is_empty()).then(|| why.join(" and "));
    if out.is_empty() {
        // Declarations that exclude every release (a version older than GRPO): the newest is priced.
        out.push(Release::V0_19);
    }
    (out, why)
}

/// The TRL minor releases (0.x, 19 for 0.19 and later) a framework that pins TRL may run, from
/// its `pins` (`Framework::grpo_trl_pins`) and the project's version of it, with the declarations
/// that narrowed them (`None`: no file states its version, every pin remains).
fn pinned_minors(settings: &Settings, dialect: crate::dialects::Dialect, path: &std::path::Path, pins: &[(&[u64], u64)]) -> (Vec<u64>, Option<String>) {
    let at_least = |version: &[u64]| versions::at_least(settings, dialect, path, &Version::new(version));
    let mut minors = Vec::new();
    let mut sources = Vec::new();
    for (i, (version, minor)) in pins.iter().enumerate() {
        // This pin is possible unless the version is declared below it or at/above the next pin.
        let below = match at_least(version) {
            Ok((false, declared)) => {
                sources.push(declared.source);
                true
            }
            _ => false,
        };
        let above = match pins.get(i + 1).map(|(next, _)| at_least(next)) {
            Some(Ok((true, declared))) => {
                sources.push(declared.source);
                true
            }
            _ => false,
        };
        if !below && !above && !minors.contains(minor) {
            minors.push(*minor);
        }
    }
    sources.dedup();
    if minors.is_empty() {
        // A version older than the framework's GRPO: the newest pin.
        minors.extend(pins.last().map(|(_, minor)| *minor));
    }
    (minors, (!sources.is_empty()).then(|| sources.join(" and ")))
}

/// The run's GRPO under `release`; `None` for a run that is not GRPO's.
pub(crate) fn read(resolved: &ResolvedConfig, release: Release) -> Option<Grpo> {
    let number = |role: Role| resolved.role(role).and_then(|v| v.value.as_f64());
    let generations = number(Role::Generations)?.max(1.0);
    // GRPOConfig's default `max_completion_length` is 256 in every release (0.14–0.29).
    let completion = number(Role::CompletionLength).unwrap_or(256.0);
    // `beta`: 0.04 by default before 0.19, 0.0 from it.
    let beta = number(Role::KlCoefficient).unwrap_or(if release >= Release::V0_19 { 0.0 } else { 0.04 });
    let reference = release <= Release::V0_15 || beta != 0.0;
    let flag = |role: Role| resolved.role(role).and_then(|v| v.value.as_bool());
    let vllm = flag(Role::VllmGeneration) == Some(true);
    let gathers = !vllm && (release == Release::V0_14 || flag(Role::GatherForGeneration) != Some(false));
    let accumulation = resolved.batch.accumulation_steps().unwrap_or(1) as f64;
    let g = generations;
    let generated = match release {
        Release::V0_14 => Generated::PerSample(g, format!(" × {g} completions per prompt")),
        Release::V0_15 | Release::V0_16 => Generated::PerSample(1.0, String::new()),
        Release::V0_17 => Generated::PerSample(accumulation, format!(" × {accumulation} accumulation steps")),
        Release::V0_18 | Release::V0_19 => match (number(Role::GenerationBatch), resolved.batch.world_size) {
            (Some(batch), Some(world)) if world > 0 => {
                Generated::Fixed((batch / world as f64).ceil(), format!("generation_batch_size {batch} ÷ {world} processes"))
            }
            _ => {
                let steps = number(Role::GenerationSteps).unwrap_or(accumulation);
                Generated::PerSample(steps, format!(" × {steps} steps per generation"))
            }
        },
    };
    Some(Grpo { release, generations, completion, sequences_per_sample: if release == Release::V0_14 { g } else { 1.0 }, generated, reference, gathers, vllm })
}

/// The note that says which release the estimate prices, and what the band spans.
pub(crate) fn note(run: &Grpo, releases: &[Release], why: Option<&str>) -> String {
    let what = |r: Release| match r {
        Release::V0_14 => "the per-device batch counts prompts, each trained and generated as num_generations completions",
        Release::V0_15 | Release::V0_16 => "the per-device batch counts completions, generated each micro step",
        Release::V0_17 => "the per-device batch counts completions, generated once per accumulation window",
        Release::V0_18 | Release::V0_19 => "the per-device batch counts completions, generated once per steps_per_generation window",
    };
    let priced = format!("{} ({})", run.release.name(), what(run.release));
    match (releases.len(), why) {
        (1, Some(why)) => format!("GRPO priced as {priced}, from {why}"),
        (1, None) => format!("GRPO priced as {priced}"),
        (_, why) => {
            let (first, last) = (releases[0], releases[releases.len() - 1]);
            let span = format!("{} to {}", first.name(), last.name().trim_start_matches("TRL "));
            let known = why.map_or("no file states the project's TRL version".to_owned(), |w| format!("the TRL release is one of {span} ({w})"));
            let oldest = if first == Release::V0_14 { format!(" (TRL 0.14: {})", what(Release::V0_14)) } else { String::new() };
            format!(
                "{known}: GRPO priced as {priced} (assumed: the newest); the band runs from the cheapest to the costliest of {span}{oldest}, so only a run none of them fits is out of memory for sure (MEM001); the manifest's `[frameworks] trl` or a pin settles it"
            )
        }
    }
}
