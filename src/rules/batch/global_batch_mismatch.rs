use super::{at, product};
use crate::declare_rule;
use crate::diagnostic::Diagnostic;
use crate::resolve::ResolvedConfig;
use crate::schema::Role;

declare_rule! {
    /// ## What it does
    /// Checks that an explicit global batch (DeepSpeed `train_batch_size`,
    /// native `batch.global_batch`) equals micro batch × accumulation ×
    /// data-parallel world size, and says which world size would make it
    /// consistent, or that none can. With the world unknown it is reported
    /// when no world size W makes it hold (the example below fails on any
    /// number of GPUs: 32 = 18 × 1 × W has no whole-number W).
    ///
    /// ## Why is this bad?
    /// DeepSpeed asserts this equality at start-up ("train_batch_size is not
    /// equal to micro_batch_per_gpu * gradient_acc_step * world_size"), after
    /// the job has waited for its GPUs. Other tools read only one of the
    /// values and train with a batch the other value contradicts.
    ///
    /// ## Example
    /// ```json,world-size=2
    /// {"train_batch_size": 32, "train_micro_batch_size_per_gpu": 18, "gradient_accumulation_steps": 1}
    /// ```
    ///
    /// Use instead:
    /// ```json,world-size=2
    /// {"train_batch_size": 32, "train_micro_batch_size_per_gpu": 16, "gradient_accumulation_steps": 1}
    /// ```
    ///
    /// ## Fix safety
    /// The fix keeps the explicit global batch and sets the accumulation that
    /// reaches it (or, when the micro batch does not divide it, the micro batch
    /// for the current accumulation). It is unsafe: the global batch may be the
    /// wrong one of the three.
    pub struct GlobalBatchMismatch {
        name: "global-batch-mismatch",
        severity: Error,
        fix: Sometimes,
        since: "0.1.0",
        check: Batch,
        options: ["world-size", "pair"],
    }
}

pub fn diagnostic(resolved: &ResolvedConfig, global: u64, micro: u64, accumulation: u64, world: u64) -> Diagnostic {
    // Checked: the values are the config's, and their product may not fit in 64 bits.
    let show = |n: Option<u64>| n.map_or_else(|| "more than 2^64".to_owned(), |n| n.to_string());
    let per_world = micro.checked_mul(accumulation);
    let consistent = match per_world {
        Some(per_world) if per_world > 0 && global.is_multiple_of(per_world) => format!("it holds on a data-parallel world of {}", global / per_world),
        _ => format!("no world size makes it hold ({global} is not a multiple of {micro} × {accumulation} = {})", show(per_world)),
    };
    let total = show(per_world.and_then(|p| p.checked_mul(world)));
    at(GlobalBatchMismatch, resolved, &[Role::GlobalBatch], format!("global batch {global} ≠ {} = {total}", product(micro, accumulation, world)))
        .with_label(format!("{global} ≠ {total}"))
        .with_note(format!("DeepSpeed asserts train_batch_size == micro batch × accumulation × world size; {consistent}"))
        .with_help("make the three values agree, or state only two of them and let the third be derived")
        .with_fix_opt(restore(resolved, global, micro, accumulation, world))
}

/// The accumulation (else the micro batch) that reaches the explicit global batch.
fn restore(resolved: &ResolvedConfig, global: u64, micro: u64, accumulation: u64, world: u64) -> Option<crate::diagnostic::Fix> {
    use crate::diagnostic::Applicability;
    let set = |role: Role, value: u64, what: &str| {
        crate::rules::fixes::set_roles(resolved, &[(role, value)], Applicability::Unsafe, format!("Set {what} to {value} to reach the global batch {global}"))
    };
    let divides = |step: Option<u64>| step.filter(|s| *s > 0 && global.is_multiple_of(*s));
    if let Some(step) = divides(micro.checked_mul(world)) {
        Some(set(Role::Accumulation, global / step, "accumulation"))
    } else {
        divides(accumulation.checked_mul(world)).map(|step| set(Role::MicroBatch, global / step, "micro batch"))
    }
}

/// The world is unknown and no world size makes the three values agree: the
/// global batch is not micro × accumulation × W for any whole W (issue 15 item 2).
pub(crate) fn on_no_world(resolved: &ResolvedConfig, global: u64, micro: u64, accumulation: u64) -> Diagnostic {
    let per_world = micro.checked_mul(accumulation);
    let step = per_world.map_or_else(|| "more than 2^64".to_owned(), |p| p.to_string());
    // What would hold: a micro batch that divides global ÷ accumulation (the accumulation kept).
    let micros: Vec<String> = super::divisors_near(global / accumulation.max(1), micro, 4).iter().map(u64::to_string).collect();
    let help = if accumulation > 0 && global.is_multiple_of(accumulation) && !micros.is_empty() {
        format!(
            "make the global batch a multiple of {step} (micro batch × accumulation), or use a micro batch that divides {}: {}; or state only two of the three and let the third be derived",
            global / accumulation,
            micros.join(", ")
        )
    } else {
        format!("make the global batch a multiple of {step} (micro batch × accumulation), or state only two of the three and let the third be derived")
    };
    if resolved.detection.dialect.batch().global_batch_per_process {
        // Counted per process: the world does not enter the equation at all.
        return at(
            GlobalBatchMismatch,
            resolved,
            &[Role::GlobalBatch],
            format!(
                "global batch {global} ≠ {micro} micro batch × {accumulation} accumulation = {step}, on every data-parallel world size (it counts per process)"
            ),
        )
        .with_label(format!("{global} ≠ {step}"))
        .with_note("the framework multiplies this batch size by the world size itself; per process it must equal micro batch × accumulation")
        .with_help("state only two of the three and let the third be derived, or make them agree");
    }
    at(
        GlobalBatchMismatch,
        resolved,
        &[Role::GlobalBatch],
        format!("global batch {global} ≠ {micro} micro batch × {accumulation} accumulation × W for every data-parallel world size W: {global} is not a multiple of {step}"),
    )
    .with_label(format!("{global} = {micro} × {accumulation} × W has no whole-number W"))
    .with_note(format!(
        "DeepSpeed asserts train_batch_size == micro batch × accumulation × world size at start-up; the world is not known here, but no world size W makes {global} = {step} × W hold, so the run fails on any number of GPUs"
    ))
    .with_help(help)
}
