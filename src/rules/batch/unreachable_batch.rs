use super::at;
use crate::declare_rule;
use crate::diagnostic::Diagnostic;
use crate::resolve::ResolvedConfig;
use crate::schema::Role;

declare_rule! {
    /// ## What it does
    /// Reports a batch that no integer can make consistent: a declared target
    /// that micro batch × world size does not divide, or a value that would
    /// have to be derived by floor division (DeepSpeed derives the missing one
    /// of `train_batch_size`, `train_micro_batch_size_per_gpu` and
    /// `gradient_accumulation_steps` that way, then fails its own assertion),
    /// or, for a framework that floors the accumulation itself (⌊⌊global ÷
    /// world⌋ ÷ micro⌋), a world on which it floors to 0 and the framework
    /// refuses to start.
    ///
    /// ## Why is this bad?
    /// 225 is not reachable with micro batch 48 on one device: 48 × 4 = 192,
    /// 48 × 5 = 240. A script that floors picks 192 and the run trains with a
    /// batch nobody chose; DeepSpeed refuses to start.
    ///
    /// ## Example
    /// ```json,world-size=1
    /// {"train_batch_size": 33, "train_micro_batch_size_per_gpu": 17}
    /// ```
    ///
    /// Use instead:
    /// ```json,world-size=1
    /// {"train_batch_size": 34, "train_micro_batch_size_per_gpu": 17}
    /// ```
    ///
    /// ## Fix safety
    /// There is no fix: either the target or the micro batch has to change,
    /// and which one is the author's choice. The help lists micro batches
    /// that divide the target.
    pub struct UnreachableBatch {
        name: "unreachable-batch",
        severity: Error,
        fix: None,
        since: "0.1.0",
        check: Batch,
        options: ["world-size"],
    }
}

pub(crate) fn target(resolved: &ResolvedConfig, target: u64, micro: u64, world: u64, candidates: Vec<u64>) -> Diagnostic {
    let list = candidates.iter().map(u64::to_string).collect::<Vec<_>>().join(", ");
    let help = if target.is_multiple_of(world.max(1)) {
        format!("use a micro batch that divides {} (target {target} ÷ world {world}): {list}", target / world.max(1))
    } else {
        format!("target {target} is not divisible by the data-parallel world {world}: change the target or the number of devices")
    };
    let mut diagnostic = at(UnreachableBatch, resolved, &[Role::MicroBatch, Role::Accumulation], format!("target effective batch {target} is not reachable with micro batch {micro} on a data-parallel world of {world}: {micro} × {world} = {} does not divide {target}", micro * world))
        .with_label(format!("{micro} × {world} does not divide {target}"))
        .with_note("no integer accumulation gives the target; flooring would silently train with another effective batch")
        .with_help(help);
    if let Some(target_value) = resolved.role(Role::EffectiveBatchTarget) {
        diagnostic = diagnostic.with_secondary(&target_value.file, target_value.span.clone(), "target declared here");
    }
    diagnostic
}

pub(crate) fn derivation(resolved: &ResolvedConfig, role: Role, numerator: u64, denominator: u64) -> Diagnostic {
    // A global batch split over the world (`BatchSemantics::global_split_over_world`):
    // the framework refuses a world that does not divide it.
    if resolved.detection.dialect.batch().global_split_over_world {
        let title = resolved.detection.dialect.title();
        return at(
            UnreachableBatch,
            resolved,
            &[Role::GlobalBatch],
            format!("global batch {numerator} does not split evenly over a data-parallel world of {denominator}: the per-device batch would be {numerator} ÷ {denominator}"),
        )
        .with_label(format!("{numerator} ÷ {denominator} is not an integer"))
        .with_note(format!("{title} gives each device global batch ÷ world samples and refuses to start when that is not a whole number"))
        .with_help(format!("make the global batch a multiple of {denominator}, or run on a world that divides {numerator}"));
    }
    let what = match role {
        Role::Accumulation => "gradient accumulation",
        Role::MicroBatch => "micro batch",
        _ => role.name(),
    };
    if resolved.batch.worlds == Some(crate::resolve::batch::Worlds::None) {
        // The world is unknown and the derivation floors on every world: `denominator`
        // is the derivation's divisor on a world of 1, and W only multiplies it.
        return at(
            UnreachableBatch,
            resolved,
            &[Role::GlobalBatch, Role::MicroBatch],
            format!(
                "{what} cannot be derived on any data-parallel world size W: global batch {numerator} is not divisible by {denominator}, so not by {denominator} × W either"
            ),
        )
        .with_label(format!("{numerator} ÷ ({denominator} × W) is not an integer for any W"))
        .with_note("DeepSpeed floor-divides here, then fails its batch assertion, on any number of GPUs; another launcher would train with a floored batch")
        .with_help(format!("make the global batch a multiple of {denominator}, or state all three of global batch, micro batch and accumulation"));
    }
    let world = resolved.batch.world_size.unwrap_or(1);
    // A framework that always derives the accumulation (the global batch and the micro batch are
    // its only batch keys) is told so in its own terms; the others get DeepSpeed's.
    let (message, note, help) = match (resolved.detection.dialect.batch().indivisible, role, resolved.batch.micro_batch) {
        (Some(note), Role::Accumulation, Some(micro)) => {
            let below = numerator / denominator * denominator;
            let nearest = if below == 0 { format!("{denominator}") } else { format!("{below} or {}", below.saturating_add(denominator)) };
            (
                format!(
                    "gradient accumulation cannot be derived: global batch {numerator} is not divisible by micro batch {micro} × data-parallel world {world} = {denominator} samples"
                ),
                note.to_owned(),
                format!("make the global batch a multiple of {denominator} samples ({nearest}), or change the micro batch or the number of GPUs"),
            )
        }
        (note, _, _) => (
            format!("{what} cannot be derived: global batch {numerator} is not divisible by {denominator} (on a data-parallel world of {world})"),
            note.unwrap_or("DeepSpeed floor-divides here, then fails its batch assertion; another launcher would train with a floored batch").to_owned(),
            format!("make the global batch a multiple of {denominator}, or state all three of global batch, micro batch and accumulation"),
        ),
    };
    at(UnreachableBatch, resolved, &[Role::GlobalBatch, Role::MicroBatch], message)
        .with_label(format!("{numerator} ÷ {denominator} is not an integer"))
        .with_note(note)
        .with_help(help)
}

/// A flooring framework's accumulation is 0: ⌊⌊global ÷ world⌋ ÷ micro⌋ < 1.
pub(crate) fn floors_to_zero(resolved: &ResolvedConfig, global: u64, micro: u64, world: u64) -> Diagnostic {
    let framework = resolved.detection.dialect.title();
    // The devices of one node where the project's framework divides by them (litgpt before 0.5.8).
    let divisor = resolved.batch.floor_divisor(world);
    let per_rank = global / divisor.max(1);
    let largest_world = global / micro.max(1);
    // Divided by one node's devices, the GPUs limit is per node.
    let gpus = if divisor == world { "GPUs" } else { "GPUs per node" };
    let help = if largest_world >= 1 {
        format!(
            "run on at most {largest_world} {gpus} (⌊{global} ÷ {micro}⌋), lower the micro batch to at most {per_rank}, or raise the global batch to at least {}",
            micro.saturating_mul(divisor)
        )
    } else {
        format!("the global batch {global} is smaller than one micro batch ({micro}): lower the micro batch or raise the global batch")
    };
    at(
        UnreachableBatch,
        resolved,
        &[Role::GlobalBatch, Role::MicroBatch],
        format!("gradient accumulation is 0 on a data-parallel world of {world}: ⌊{global} ÷ {divisor}⌋ = {per_rank} samples per GPU is less than the micro batch {micro}"),
    )
    .with_label(format!("⌊⌊{global} ÷ {divisor}⌋ ÷ {micro}⌋ = 0"))
    .with_note(format!("{framework} derives the accumulation by floor division and asserts that it is positive: the run stops at start-up"))
    .with_help(help)
}

/// The world is unknown, the batch values hold on some world size, but on none
/// does micro batch × accumulation × W equal the target.
pub(crate) fn target_on_no_world(resolved: &ResolvedConfig, target: u64) -> Diagnostic {
    let batch = &resolved.batch;
    let equation = batch.equation(resolved.detection.dialect.batch());
    let mut diagnostic = at(
        UnreachableBatch,
        resolved,
        &[Role::MicroBatch, Role::Accumulation, Role::GlobalBatch],
        format!("target effective batch {target} is reached on no data-parallel world size: {equation} has no whole-number W"),
    )
    .with_label(format!("no W gives {target}"))
    .with_note("the world is not known here, but no number of GPUs gives the target; the run would train with another effective batch")
    .with_help("change the micro batch or the accumulation so that their product divides the target, or change the target");
    if let Some(target_value) = resolved.role(Role::EffectiveBatchTarget) {
        diagnostic = diagnostic.with_secondary(&target_value.file, target_value.span.clone(), "target declared here");
    }
    diagnostic
}
