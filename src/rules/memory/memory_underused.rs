use super::{at, batch_fix};
use crate::declare_rule;
use crate::diagnostic::Diagnostic;
use crate::estimate::plan::PlanRow;
use crate::estimate::{Estimate, human_bytes};
use crate::resolve::ResolvedConfig;

declare_rule! {
    /// ## What it does
    /// Reports a config whose estimated peak, even at the high end of its
    /// measured band, uses less than half of the usable memory on a target,
    /// when a larger micro batch with less accumulation would keep the
    /// effective batch and still fit at the band's high end.
    ///
    /// ## Why is this bad?
    /// It is not wrong, only slow: each accumulation step is a full forward and
    /// backward pass; a larger micro batch does the same work in fewer steps.
    ///
    /// ## Example
    /// Micro batch 4 × accumulation 16 on an 80 GB A100, where 64 × 1 fits.
    /// ```yaml
    /// trainlint: 1
    /// batch: {micro_batch: 4, accumulation: 16, effective_batch: 64}
    /// parallel: {devices: 1}
    /// memory: {activation_bytes_per_sample: "500 MiB"}
    /// gpus: [a100-80gb]
    /// ```
    ///
    /// Use instead: the micro batch `trainlint plan` gives for the GPU.
    /// ```yaml
    /// trainlint: 1
    /// batch: {micro_batch: 64, accumulation: 1, effective_batch: 64}
    /// parallel: {devices: 1}
    /// memory: {activation_bytes_per_sample: "500 MiB"}
    /// gpus: [a100-80gb]
    /// ```
    ///
    /// ## Fix safety
    /// The fix sets the larger micro batch and the smaller accumulation. It is
    /// unsafe: the effective batch is kept, but batch-norm statistics change
    /// and memory estimates can be wrong.
    pub struct MemoryUnderused {
        name: "memory-underused",
        severity: Info,
        fix: Sometimes,
        since: "0.1.0",
        check: Memory,
        needs: [GpuTargets, MemoryModel],
        options: ["gpus", "gpu", "safety-margin", "memory", "calibration", "models"],
    }
}

pub fn diagnostic(resolved: &ResolvedConfig, estimate: &Estimate, row: &PlanRow, better: u64, names: &[&str]) -> Diagnostic {
    let accumulation = row.accumulation.unwrap_or(1);
    let share = estimate.high_bytes / estimate.usable_bytes * 100.0;
    let mut diagnostic = at(
        MemoryUnderused,
        resolved,
        None,
        Some(&estimate.gpu),
        format!(
            "estimated peak {} (up to {} on the card) uses at most {share:.0} % of usable {} on {}: micro batch {better} with accumulation {accumulation} also fits",
            human_bytes(estimate.total_bytes),
            human_bytes(estimate.high_bytes),
            human_bytes(estimate.usable_bytes),
            estimate.gpu
        ),
    )
    .with_label(format!("{share:.0} % of usable memory"))
    .with_note("fewer accumulation steps do the same work with fewer passes; the effective batch stays the same")
    .with_help(format!(
        "set micro batch {better} and accumulation {accumulation} ({} estimate, up to {} on the card)",
        row.peak_bytes.map(human_bytes).unwrap_or_default(),
        row.high_bytes.map(human_bytes).unwrap_or_default()
    ));
    if let Some(fix) = batch_fix(
        resolved,
        better,
        accumulation,
        format!("Set micro batch {better} and accumulation {accumulation} {}", super::for_targets(&estimate.gpu, names)),
    ) {
        diagnostic = diagnostic.with_fix(fix);
    }
    diagnostic
}
