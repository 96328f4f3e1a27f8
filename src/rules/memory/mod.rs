//! MEM rules: the estimated peak of each config, stage and GPU target, with the
//! band measured for its kind of run (`estimate::band`), against the GPU's usable
//! memory (capacity × `safety-margin`, 1 unless set): MEM001 when even the band's low
//! end exceeds it, MEM002 when the band straddles it.

pub(crate) mod low_memory_headroom;
pub(crate) mod memory_not_estimated;
pub(crate) mod memory_underused;
pub mod out_of_memory;

use crate::diagnostic::{Applicability, Diagnostic, Fix};
use crate::estimate::{self, Estimate, MemoryModel, human_bytes, plan, solve};
use crate::resolve::ResolvedConfig;
use crate::rules::{Check, Checker, Need};
use crate::schema::{GpuTarget, Role};
use crate::settings::Settings;
use crate::source::{SourceFile, Span};
use std::sync::Arc;

/// The GPU targets a config is checked against: `--gpu` / the manifest's `gpus`,
/// else the native config's own `gpus` list.
pub(crate) fn targets(resolved: &ResolvedConfig, settings: &Settings) -> Vec<GpuTarget> {
    if !settings.gpus.is_empty() {
        return settings.gpus.clone();
    }
    let Some(crate::load::Value::Seq(list)) = resolved.tree.get("gpus").map(|n| &n.value) else {
        return Vec::new();
    };
    list.iter().filter_map(|item| item.as_str()).filter_map(|id| settings.catalog.iter().find(|t| t.id == id).cloned()).collect()
}

fn gpu_of<'g>(gpus: &'g [GpuTarget], id: &str) -> &'g GpuTarget {
    gpus.iter().find(|g| g.id == id).unwrap_or(&gpus[0])
}

pub fn check(checker: &mut Checker, resolved: &ResolvedConfig, settings: &Settings) {
    // The linter calls this when a selected rule needs GPU targets; the memory
    // model is built only when a selected rule needs it (both from the registry).
    let gpus = targets(resolved, settings);
    if gpus.is_empty() {
        return;
    }
    if checker.runs(Check::Hardware) {
        crate::rules::hardware::check(checker, resolved, &gpus);
    }
    if !checker.needs(Need::MemoryModel) {
        return;
    }
    let Some(micro) = resolved.batch.micro() else { return };
    // An evaluation, generation or export config trains nothing: no training memory to check.
    if resolved.detection.dialect.not_training(&resolved.tree).is_some() {
        return;
    }
    let mut reported_unknown = false;
    let mut planned = Vec::new();
    for gpu in &gpus {
        let model = match MemoryModel::build(resolved, settings, Some(gpu)) {
            Ok(model) => model,
            Err(reason) if reason.world_unknown().is_some() => {
                // The world is the launcher's: say the fewest GPUs the run fits on, or that none do.
                match solve::smallest_world(resolved, settings, gpu, settings.safety_margin(), micro) {
                    // Sure only where even the band's low end exceeds the card on the widest world.
                    Err(solve::Unsolved::FitsNowhere(solved)) if solved.model.low(micro) > gpu.memory_bytes() as f64 * settings.safety_margin() => {
                        let estimate = estimate::estimate(&solved.model, &solved.resolved, gpu, settings.safety_margin(), micro);
                        let row = plan::plan(&solved.model, &solved.resolved, gpu, settings.safety_margin());
                        let mut diagnostic = out_of_memory::diagnostic(&solved.resolved, &solved.model, &estimate, &row, settings, &[&gpu.id]);
                        diagnostic.message.push_str(&format!(
                            " even sharded over {} GPUs (the world is the launcher's; what each GPU keeps unsharded does not fit)",
                            crate::model::thousands(solve::MAX_WORLD)
                        ));
                        checker.report(diagnostic);
                    }
                    solved if !reported_unknown => {
                        let mut diagnostic = memory_not_estimated::diagnostic_world(resolved, &reason);
                        match solved {
                            Ok(solved) => {
                                let gpus = if solved.value == 1 { "1 GPU".to_owned() } else { format!("{} GPUs", crate::model::thousands(solved.value)) };
                                // The world solved is the data-parallel one; a stated tensor-parallel
                                // degree multiplies the GPUs the run takes.
                                let gpus = match resolved.role(Role::TensorParallel).and_then(|t| t.as_u64()).filter(|t| *t > 1) {
                                    Some(tp) => format!(
                                        "{gpus} of data parallelism (× {tp} tensor-parallel: {} GPUs)",
                                        crate::model::thousands(solved.value.saturating_mul(tp))
                                    ),
                                    None => gpus,
                                };
                                let at = solved
                                    .at_sequence
                                    .map(|t| format!(" and {t} tokens (the sequence length is unbounded: longer samples need more)"))
                                    .unwrap_or_default();
                                diagnostic.message.push_str(&format!("; it fits on {} from {gpus} at micro batch {micro}{at}", gpu.id));
                            }
                            // Even the widest world leaves the band straddling the card: not sure either way.
                            Err(solve::Unsolved::FitsNowhere(solved)) => {
                                let high = solved.model.high(micro);
                                diagnostic.message.push_str(&format!(
                                    "; even sharded over {} GPUs it may not fit {} at micro batch {micro} (its band reaches {})",
                                    crate::model::thousands(solve::MAX_WORLD),
                                    gpu.id,
                                    estimate::human_bytes(high)
                                ));
                            }
                            Err(solve::Unsolved::NotEstimable) => {}
                        }
                        checker.report(diagnostic);
                        reported_unknown = true;
                    }
                    _ => {}
                }
                continue;
            }
            Err(reason) => {
                if !reported_unknown {
                    checker.report(memory_not_estimated::diagnostic(resolved, &reason));
                    reported_unknown = true;
                }
                continue;
            }
        };
        let estimate = estimate::estimate(&model, resolved, gpu, settings.safety_margin(), micro);
        let row = plan::plan(&model, resolved, gpu, settings.safety_margin());
        planned.push((model, estimate, row));
    }
    // One micro batch for the file: the smallest of the targets' plans fits every
    // target (the peak grows with the micro batch, and the accumulation that keeps
    // the effective batch is the same on each). The fixes of MEM001 and MEM003
    // all set it, so two targets never pull the micro batch apart (issue 15 item 7).
    let common = planned.iter().filter_map(|(_, _, row)| row.fits.then_some(row.micro_batch?)).min();
    let names: Vec<&str> = planned.iter().map(|(_, estimate, _)| estimate.gpu.as_str()).collect();
    for (model, estimate, row) in &planned {
        let row = &for_every_target(model, row, common, resolved.batch.world_size.unwrap_or(1));
        if estimate.verdict == estimate::Verdict::DoesNotFit {
            checker.report(out_of_memory::diagnostic(resolved, model, estimate, row, settings, &names));
        } else if !model.activations_modelled && model.calibration().is_none() {
            // The model states fit, but nothing gives the activations (no sequence length):
            // whether the run fits is not known, and a silent "fits" would say otherwise.
            if !reported_unknown {
                let longest = match solve::longest_sequence(resolved, settings, gpu_of(&gpus, &estimate.gpu), settings.safety_margin(), micro) {
                    Some(Ok(s)) => format!("; sequences up to {} tokens fit at micro batch {micro}", crate::model::thousands(s.value)),
                    Some(Err(_)) => format!("; not even {} tokens fit at micro batch {micro}", solve::SEQUENCE_STEP),
                    None => String::new(),
                };
                let reason = format!(
                    "{} the model states alone take {} of {} usable on {}{longest}",
                    estimate::ACTIVATIONS_UNKNOWN,
                    estimate::human_bytes(estimate.total_bytes),
                    estimate::human_bytes(estimate.usable_bytes),
                    estimate.gpu
                );
                checker.report(memory_not_estimated::diagnostic(resolved, &estimate::NotEstimable::because(estimate::Why::ActivationsUnknown, reason)));
                reported_unknown = true;
            }
        } else if estimate.verdict == estimate::Verdict::MayNotFit {
            checker.report(low_memory_headroom::diagnostic(resolved, estimate, row, &names));
        } else if estimate.high_bytes < 0.5 * estimate.usable_bytes
            && (model.activations_complete || model.calibration().is_some())
            && let Some(better) = row.micro_batch.filter(|m| *m > micro && row.fits)
        {
            checker.report(memory_underused::diagnostic(resolved, estimate, row, better, &names));
        }
    }
}

/// A target's plan lowered to the micro batch that fits every target (`common`),
/// with its accumulation and its peak on this target.
fn for_every_target(model: &MemoryModel, row: &plan::PlanRow, common: Option<u64>, world: u64) -> plan::PlanRow {
    let mut row = row.clone();
    if let (Some(common), Some(own), Some(target)) = (common, row.micro_batch, row.effective_batch)
        && row.fits
        && common < own
    {
        let peak = model.total(common);
        row.micro_batch = Some(common);
        // `common` is another target's plan for the same effective batch and world
        // (`plan::plan`): common × world divides the target.
        row.accumulation = common.checked_mul(world).filter(|step| *step > 0).map(|step| target / step);
        row.peak_bytes = Some(peak);
        row.high_bytes = Some(model.high(common));
        row.utilisation = Some(peak / row.capacity_bytes);
    }
    row
}

/// "for rtx-4090", or "for every GPU target (rtx-4090, a100-80gb)" when a file has several.
pub(crate) fn for_targets(gpu: &str, names: &[&str]) -> String {
    if names.len() > 1 { format!("for every GPU target ({})", names.join(", ")) } else { format!("for {gpu}") }
}

/// "weights 1.2 GiB, activations 17.5 GiB, CUDA context 1000 MiB".
pub(crate) fn biggest(estimate: &Estimate, count: usize) -> String {
    let mut components: Vec<_> = estimate.components.iter().filter(|c| c.bytes > 0.0).collect();
    components.sort_by(|a, b| b.bytes.total_cmp(&a.bytes));
    components.iter().take(count).map(|c| format!("{} {}", c.name, human_bytes(c.bytes))).collect::<Vec<_>>().join(", ")
}

/// Where a memory finding points: a stage-file value that feeds a memory term
/// (stage 01's `n_negatives`), else the micro batch, else the top of the file.
pub(crate) fn anchor(resolved: &ResolvedConfig, model: Option<&MemoryModel>) -> (Arc<SourceFile>, Span) {
    if resolved.stage.is_some()
        && let Some(model) = model
    {
        let stage_origin = resolved.files.len() - 1;
        for name in model.dependencies() {
            if let Some(entry) = resolved.tree.entry_dotted(&name).filter(|e| e.value.origin == stage_origin) {
                return (Arc::clone(&resolved.files[stage_origin]), entry.value.span.clone());
            }
        }
    }
    match resolved.role(Role::MicroBatch) {
        Some(value) => (Arc::clone(&value.file), value.span.clone()),
        None => (Arc::clone(resolved.source()), 0..0),
    }
}

/// A diagnostic at the memory anchor, with stage and GPU set.
pub(crate) fn at(
    rule: impl Into<crate::rules::codes::RuleId>,
    resolved: &ResolvedConfig,
    model: Option<&MemoryModel>,
    gpu: Option<&str>,
    message: String,
) -> Diagnostic {
    let (file, span) = anchor(resolved, model);
    let mut diagnostic = Diagnostic::new(rule, &file, span, message);
    diagnostic.stage = resolved.stage.clone();
    diagnostic.gpu = gpu.map(str::to_owned);
    diagnostic
}

/// The fix that sets micro batch and accumulation, where they are defined
/// (for a stage: in the stage file).
pub(crate) fn batch_fix(resolved: &ResolvedConfig, micro: u64, accumulation: u64, message: String) -> Option<Fix> {
    let mut values = vec![(Role::MicroBatch, micro)];
    // A framework that derives the accumulation from the global batch
    // (⌊⌊global ÷ world⌋ ÷ micro⌋) derives this one from the new micro batch: only the
    // micro batch is written when the derivation gives `accumulation`.
    let batch = &resolved.batch;
    let semantics = resolved.detection.dialect.batch();
    let derived_by_framework = resolved.role(Role::Accumulation).is_none()
        && batch.global_batch.zip(batch.world_size).is_some_and(|(global, world)| {
            (semantics.accumulation_floors && (global / batch.floor_divisor(world).max(1)).checked_div(micro) == Some(accumulation))
                // Derived exactly (torchtitan asserts the division is whole).
                || (semantics.accumulation_from_global && micro.checked_mul(accumulation).and_then(|p| p.checked_mul(world)) == Some(global))
        });
    // An accumulation of 1 need not be written where none is.
    if !derived_by_framework && (accumulation != 1 || resolved.role(Role::Accumulation).is_some()) {
        values.push((Role::Accumulation, accumulation));
    }
    Some(crate::rules::fixes::set_roles(resolved, &values, Applicability::Unsafe, message))
}
