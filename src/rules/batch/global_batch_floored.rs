use super::{at, product};
use crate::declare_rule;
use crate::diagnostic::Diagnostic;
use crate::resolve::ResolvedConfig;
use crate::resolve::batch::Floored;
use crate::schema::Role;

declare_rule! {
    /// ## What it does
    /// Reports a global batch that the framework does not train because it
    /// derives the gradient accumulation by floor division: accumulation =
    /// ⌊⌊global ÷ world⌋ ÷ micro⌋, and the run trains micro × accumulation ×
    /// world, which is smaller when the divisions leave a remainder. The
    /// finding gives both numbers and the world sizes on which the global
    /// batch holds exactly. Only dialects with this semantics are checked
    /// (the dialects page says which).
    ///
    /// ## Why is this bad?
    /// The run starts and trains, without a message, with a batch nobody
    /// chose: global batch 512 with micro batch 128 on 3 GPUs is ⌊512 ÷ 3⌋ =
    /// 170 samples per GPU, ⌊170 ÷ 128⌋ = 1 accumulation step, 128 × 1 × 3 =
    /// 384 samples per optimizer step. The learning rate and schedule were
    /// tuned for 512, and a comparison with a run on 4 GPUs compares two
    /// batch sizes.
    ///
    /// ## Example
    /// ```yaml,world-size=3
    /// model_name: pythia-160m
    /// devices: auto
    /// train:
    ///   global_batch_size: 512
    ///   micro_batch_size: 128
    /// ```
    ///
    /// Use instead:
    /// ```yaml,world-size=3
    /// model_name: pythia-160m
    /// devices: auto
    /// train:
    ///   global_batch_size: 384
    ///   micro_batch_size: 128
    /// ```
    ///
    /// ## Fix safety
    /// There is no fix: whether the global batch, the micro batch or the
    /// number of GPUs should change is the author's choice.
    pub struct GlobalBatchFloored {
        name: "global-batch-floored",
        severity: Warning,
        fix: None,
        since: "0.1.0",
        check: Batch,
        options: ["world-size"],
    }
}

pub fn diagnostic(resolved: &ResolvedConfig, floored: &Floored) -> Diagnostic {
    let Floored { global, micro, accumulation, world, effective } = *floored;
    let framework = resolved.detection.dialect.title();
    // The devices of one node where the project's framework divides by them (litgpt before 0.5.8).
    let divisor = resolved.batch.floor_divisor(world);
    let per_rank = global / divisor.max(1);
    let finding = at(
        GlobalBatchFloored,
        resolved,
        &[Role::GlobalBatch, Role::MicroBatch],
        format!(
            "{framework} trains an effective batch of {effective}, not the global batch {global}, on a data-parallel world of {world}: {effective} = {}",
            product(micro, accumulation, world)
        ),
    )
    .with_label(format!("{global} samples per step asked, {effective} trained"));
    if divisor != world {
        let nodes = world / divisor.max(1);
        return finding
            .with_note(format!(
                "{framework} derives the accumulation from the devices of one node: ⌊{global} ÷ {divisor} devices⌋ = {per_rank} samples per GPU, ⌊{per_rank} ÷ micro batch {micro}⌋ = {accumulation} accumulation step(s), on each of {nodes} nodes"
            ))
            .with_help(format!(
                "to train {global} samples per step, set the global batch to {global} ÷ {nodes} nodes = {}, or move to litgpt 0.5.8 or later, which divides by devices × num_nodes",
                global / nodes.max(1)
            ));
    }
    let exact = exact_worlds(global, micro, 8);
    let holds = if exact.is_empty() {
        format!("no world size makes {global} = {micro} × accumulation × world ({global} is not a multiple of the micro batch {micro})")
    } else {
        format!(
            "{global} = {micro} × accumulation × world holds for a data-parallel world of {}",
            exact.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")
        )
    };
    finding
        .with_note(format!(
            "{framework} derives the accumulation by floor division: ⌊{global} ÷ {world} GPUs⌋ = {per_rank} samples per GPU, ⌊{per_rank} ÷ micro batch {micro}⌋ = {accumulation} accumulation step(s); {holds}"
        ))
        .with_help(format!("make the global batch a multiple of micro batch × world ({micro} × {world} = {}), or run on a world size that divides it", micro.saturating_mul(world)))
}

/// The data-parallel world sizes up to `limit` values on which `global` is exactly
/// micro × accumulation × world (accumulation ≥ 1).
pub(crate) fn exact_worlds(global: u64, micro: u64, limit: usize) -> Vec<u64> {
    if micro == 0 || !global.is_multiple_of(micro) {
        return Vec::new();
    }
    let per_micro = global / micro;
    (1..=per_micro.min(1 << 20)).filter(|w| per_micro.is_multiple_of(*w)).take(limit).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn exact_worlds_divide_global_over_micro() {
        assert_eq!(super::exact_worlds(512, 128, 8), vec![1, 2, 4]);
        assert_eq!(super::exact_worlds(8, 2, 8), vec![1, 2, 4]);
        assert_eq!(super::exact_worlds(12, 1, 3), vec![1, 2, 3]);
        assert!(super::exact_worlds(500, 128, 8).is_empty());
    }
}
