use super::{at, divisors_near, product};
use crate::declare_rule;
use crate::diagnostic::{Applicability, Diagnostic};
use crate::resolve::ResolvedConfig;
use crate::schema::Role;

declare_rule! {
    /// ## What it does
    /// Checks that the effective batch (micro batch × gradient accumulation ×
    /// data-parallel world size) equals the declared target: `effective-batch`
    /// in the manifest, or `batch.effective_batch` in a native config or stage.
    ///
    /// ## Why is this bad?
    /// The effective batch sets the optimisation dynamics: the learning rate,
    /// warm-up and schedule were tuned for it. Changing the physical batch to
    /// fit memory without changing accumulation silently changes the run.
    ///
    /// ## Example
    /// ```yaml
    /// trainlint: 1
    /// batch:
    ///   micro_batch: 32     # was 48 × 2 = 96
    ///   accumulation: 2
    ///   effective_batch: 96
    /// parallel:
    ///   devices: 1
    /// ```
    ///
    /// Use instead:
    /// ```yaml
    /// trainlint: 1
    /// batch:
    ///   micro_batch: 32
    ///   accumulation: 3
    ///   effective_batch: 96
    /// parallel:
    ///   devices: 1
    /// ```
    ///
    /// ## Fix safety
    /// The fix sets the accumulation that restores the target when micro batch ×
    /// world divides it. It is unsafe: it changes how many samples each
    /// optimizer step sees, which is the point, but it also changes steps per
    /// epoch and wall time.
    pub struct EffectiveBatchMismatch {
        name: "effective-batch-mismatch",
        severity: Error,
        fix: Sometimes,
        since: "0.1.0",
        check: Batch,
        options: ["effective-batch", "world-size"],
    }
}

/// BAT001 when an integer accumulation can reach the target, BAT003 when none can.
pub(crate) fn or_unreachable(resolved: &ResolvedConfig, target: u64, effective: u64) -> Diagnostic {
    let batch = &resolved.batch;
    if resolved.detection.dialect.batch().global_split_over_world {
        return split_over_world(resolved, target, effective);
    }
    let (micro, accumulation, world) = (batch.micro().unwrap_or(0), batch.accumulation_steps().unwrap_or(0), batch.world_size.unwrap_or(0));
    let per_step = micro * world;
    if per_step == 0 || !target.is_multiple_of(per_step) {
        return super::unreachable_batch::target(resolved, target, micro, world, divisors_near(target / world.max(1), micro, 4));
    }
    let wanted = target / per_step;
    let mut diagnostic = at(
        EffectiveBatchMismatch,
        resolved,
        &[Role::Accumulation, Role::MicroBatch],
        format!("effective batch {effective} ≠ target {target}: {} = {effective}", product(micro, accumulation, world)),
    )
    .with_label(format!("effective batch {effective}"))
    .with_note("the learning rate and schedule were tuned for the target effective batch; a different one changes training")
    .with_help(format!("set accumulation to {wanted}: {} = {target}", product(micro, wanted, world)));
    if let Some(target_value) = resolved.role(Role::EffectiveBatchTarget) {
        diagnostic = diagnostic.with_secondary(&target_value.file, target_value.span.clone(), "target declared here");
    }
    // A global batch the config states is set with it (a global batch size such as
    // DeepSpeed's `train_batch_size`): else BAT004 would undo this fix.
    let per_process = resolved.detection.dialect.batch().global_batch_per_process;
    let global = batch.global_batch.map(|_| micro * wanted * if per_process { 1 } else { world });
    let (values, message) = match global {
        Some(global) => {
            (vec![(Role::Accumulation, wanted), (Role::GlobalBatch, global)], format!("Set accumulation to {wanted} and the global batch to {global}"))
        }
        None => (vec![(Role::Accumulation, wanted)], format!("Set accumulation to {wanted}")),
    };
    diagnostic.with_fix(crate::rules::fixes::set_roles(resolved, &values, Applicability::Unsafe, message))
}

/// A global batch split over the world (`BatchSemantics::global_split_over_world`):
/// the effective batch is the global batch, whatever the micro batch, so the global
/// batch is what changes; the target must split evenly over the world.
fn split_over_world(resolved: &ResolvedConfig, target: u64, effective: u64) -> Diagnostic {
    let world = resolved.batch.world_size.unwrap_or(1).max(1);
    let diagnostic = at(EffectiveBatchMismatch, resolved, &[Role::GlobalBatch], format!("effective batch {effective} (the global batch) ≠ target {target}"))
        .with_label(format!("effective batch {effective}"))
        .with_note("the learning rate and schedule were tuned for the target effective batch; a different one changes training");
    if !target.is_multiple_of(world) {
        let title = resolved.detection.dialect.title();
        return diagnostic.with_help(format!(
            "target {target} does not split evenly over the data-parallel world {world} ({title} refuses a global batch the world does not divide): change the target or the number of devices"
        ));
    }
    let message = format!("Set the global batch to {target}");
    diagnostic
        .with_help(format!("set the global batch to {target}: {} per device on a data-parallel world of {world}", target / world))
        .with_fix(crate::rules::fixes::set_roles(resolved, &[(Role::GlobalBatch, target)], Applicability::Unsafe, message))
}
