use super::at;
use crate::declare_rule;
use crate::diagnostic::Diagnostic;
use crate::resolve::{ResolvedConfig, versions};
use crate::schema::Role;
use crate::schema::version::Version;
use crate::settings::Settings;

declare_rule! {
    /// ## What it does
    /// Checks that TRL's GRPO can split each batch of completions into whole
    /// groups of `num_generations` (8 when not stated): the completions of one
    /// generation batch must be divisible by it. What a generation batch is
    /// depends on the TRL release (trl `grpo_trainer.py` / `grpo_config.py`):
    /// processes × `per_device_train_batch_size` in 0.15 and 0.16;
    /// × `gradient_accumulation_steps` in 0.17; × `steps_per_generation` (the
    /// accumulation by default), or `generation_batch_size`, since 0.18. The
    /// project's TRL version is read from its requirement, lock and `setup.py`
    /// files (or the manifest's `[frameworks] trl`); when none states it, only
    /// the check every release since 0.15 makes is applied.
    ///
    /// ## Why is this bad?
    /// GRPOTrainer refuses to start, after the model (and often a vLLM
    /// server) has loaded: "The global train batch size (7 x 1) must be evenly
    /// divisible by the number of generations per prompt (8)". Users meet it
    /// when one GPU of eight serves vLLM and seven train.
    ///
    /// ## Example
    /// ```yaml,world-size=1
    /// model_name_or_path: Qwen/Qwen2.5-0.5B-Instruct
    /// reward_funcs: [accuracy, format]
    /// num_generations: 8
    /// per_device_train_batch_size: 2
    /// gradient_accumulation_steps: 2
    /// max_completion_length: 1024
    /// output_dir: out
    /// ```
    ///
    /// Use instead:
    /// ```yaml,world-size=1
    /// model_name_or_path: Qwen/Qwen2.5-0.5B-Instruct
    /// reward_funcs: [accuracy, format]
    /// num_generations: 8
    /// per_device_train_batch_size: 4
    /// gradient_accumulation_steps: 2
    /// max_completion_length: 1024
    /// output_dir: out
    /// ```
    ///
    /// ## Fix safety
    /// There is no fix: the number of completions per prompt, the per-device
    /// batch and the number of training processes are each the author's choice.
    pub struct GenerationsIndivisible {
        name: "generations-indivisible",
        severity: Error,
        fix: None,
        since: "0.1.0",
        check: Batch,
        options: ["world-size", "frameworks"],
    }
}

/// Which TRL check applies.
enum Release {
    /// 0.15–0.16: processes × per-device batch.
    PerStep(String),
    /// 0.17+: × the steps one generation batch spans (or `generation_batch_size`, 0.18+).
    PerGeneration(Option<String>),
}

pub fn check(resolved: &ResolvedConfig, settings: &Settings) -> Option<Diagnostic> {
    let generations = resolved.role(Role::Generations)?.as_u64()?;
    let world = resolved.batch.world_size?;
    let micro = resolved.batch.micro()?;
    let path = resolved.source().path();
    let trl = |v: &[u64]| versions::at_least_of(settings, "trl", &["trl"], path, &Version::new(v));
    let release = match (trl(&[0, 15]), trl(&[0, 17])) {
        // 0.14 groups inside each prompt batch: no such check.
        (Ok((false, _)), _) => return None,
        (Ok((true, _)), Ok((false, declared))) => Release::PerStep(declared.source),
        (_, Ok((true, declared))) => Release::PerGeneration(Some(declared.source)),
        _ => Release::PerGeneration(None),
    };
    let accumulation = resolved.batch.accumulation_steps().unwrap_or(1);
    let steps = resolved.role(Role::GenerationSteps).and_then(|v| v.as_u64()).unwrap_or(accumulation);
    let per_step = world.checked_mul(micro)?;
    let (completions, how) = match &release {
        Release::PerStep(_) => (per_step, format!("{world} processes × {micro} per device = {per_step}")),
        Release::PerGeneration(_) => match resolved.role(Role::GenerationBatch).and_then(|v| v.as_u64()) {
            Some(batch) => (batch, format!("generation_batch_size {batch}")),
            None => {
                let n = per_step.checked_mul(steps)?;
                (n, format!("{world} processes × {micro} per device × {steps} steps per generation = {n}"))
            }
        },
    };
    if generations >= 2 && completions.is_multiple_of(generations) {
        return None;
    }
    let release_text = match &release {
        Release::PerStep(source) => format!("TRL 0.15–0.16 (from {source}) checks each step's completions"),
        Release::PerGeneration(Some(source)) => format!("TRL 0.17 and later (from {source}) checks each generation batch"),
        Release::PerGeneration(None) => {
            "every TRL release since 0.15 refuses this (no file states the project's TRL version; 0.15–0.16 check each step's completions, stricter still)"
                .to_owned()
        }
    };
    let valid: Vec<String> = (2..=completions.min(1 << 16)).filter(|g| completions.is_multiple_of(*g)).map(|g| g.to_string()).collect();
    // The smallest per-device batch at or above this one that makes the groups whole.
    let factor = match release {
        Release::PerStep(_) => world,
        Release::PerGeneration(_) => world.saturating_mul(steps),
    };
    let fitting = (micro..micro.saturating_add(generations.max(2))).find(|m| m.saturating_mul(factor).is_multiple_of(generations.max(2)));
    let help = match (fitting, valid.is_empty()) {
        (Some(m), false) => format!("set num_generations to one of {} (divisors of {completions}), or per_device_train_batch_size to {m}", valid.join(", ")),
        (Some(m), true) => format!("set per_device_train_batch_size to {m}"),
        (None, _) => "change num_generations, the per-device batch or the number of training processes".to_owned(),
    };
    let stated = resolved.role(Role::Generations).is_some_and(|v| !v.path.ends_with("(default)"));
    let named = if stated { format!("num_generations {generations}") } else { format!("num_generations {generations} (GRPOConfig's default)") };
    Some(
        at(
            GenerationsIndivisible,
            resolved,
            &[Role::Generations, Role::MicroBatch],
            format!("GRPO cannot group its completions: {how} completions are not divisible by {named}"),
        )
        .with_label(format!("{completions} completions ÷ {generations} is not whole"))
        .with_note(format!("GRPOTrainer refuses to start when a batch's completions do not split into whole groups of num_generations; {release_text}"))
        .with_help(help),
    )
}
