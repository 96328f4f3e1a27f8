use super::{at, batch_fix, biggest};
use crate::declare_rule;
use crate::diagnostic::Diagnostic;
use crate::estimate::plan::PlanRow;
use crate::estimate::{Estimate, human_bytes, human_range};
use crate::resolve::ResolvedConfig;

declare_rule! {
    /// ## What it does
    /// Reports an estimate whose band straddles the usable memory: the run may
    /// fit or may not. The band is the uncertainty measured for this kind of
    /// run (method × sharding × framework) on the accuracy table in the book's
    /// memory chapter, applied to the live tensors, with PyTorch's caching
    /// allocator reserve and the CUDA context added.
    ///
    /// ## Why is this bad?
    /// Runs of this kind have measured peaks up to the band's high end for the
    /// same estimate; a run that needs that much dies with "CUDA out of memory",
    /// often hours in, when the longest batch arrives.
    ///
    /// ## Example
    /// A 350M-parameter transformer at micro batch 8 × 2,048 tokens with
    /// checkpointing: about 17 GiB of estimate, and up to 39 GiB on the card at
    /// the high end of the band measured for full fine-tunes, on a 24 GB RTX 4090.
    /// ```yaml
    /// trainlint: 1
    /// batch: {micro_batch: 8, accumulation: 8, effective_batch: 64}
    /// parallel: {devices: 1}
    /// precision: bf16-mixed
    /// optimizer: adamw
    /// model: {parameters: 350000000, sequence_length: 2048, hidden_size: 1024, layers: 24, heads: 16, vocab_size: 50257, attention: flash, activation_checkpointing: full}
    /// gpus: [rtx-4090]
    /// ```
    ///
    /// Use instead: the micro batch whose band's high end fits, with the
    /// accumulation that keeps the effective batch (`trainlint plan`), or
    /// calibrate the estimate with a measured peak (`[[calibration]]` in the
    /// manifest), which narrows the band to the fit's residual.
    /// ```yaml
    /// trainlint: 1
    /// batch: {micro_batch: 4, accumulation: 16, effective_batch: 64}
    /// parallel: {devices: 1}
    /// precision: bf16-mixed
    /// optimizer: adamw
    /// model: {parameters: 350000000, sequence_length: 2048, hidden_size: 1024, layers: 24, heads: 16, vocab_size: 50257, attention: flash, activation_checkpointing: full}
    /// gpus: [rtx-4090]
    /// ```
    ///
    /// ## Fix safety
    /// Where a smaller micro batch fits even at the band's high end and divides
    /// the effective batch, the fix sets it and the accumulation that keeps the
    /// effective batch, like MEM001's. It is unsafe: throughput and batch-norm
    /// statistics change, and the run may have fitted as it was.
    pub struct LowMemoryHeadroom {
        name: "low-memory-headroom",
        severity: Warning,
        fix: Sometimes,
        since: "0.1.0",
        check: Memory,
        needs: [GpuTargets, MemoryModel],
        options: ["gpus", "gpu", "safety-margin", "memory", "calibration", "models"],
    }
}

pub fn diagnostic(resolved: &ResolvedConfig, estimate: &Estimate, row: &PlanRow, names: &[&str]) -> Diagnostic {
    let stage = resolved.stage.as_ref().map(|s| format!(" (stage `{s}`)")).unwrap_or_default();
    let smaller = match (row.micro_batch, row.accumulation) {
        (Some(micro), Some(accumulation)) if row.fits && micro < estimate.micro_batch => Some((micro, accumulation)),
        _ => None,
    };
    let help = match smaller {
        Some((micro, accumulation)) => format!(
            "micro batch {micro} with accumulation {accumulation} fits even at the band's high end ({}) and keeps the effective batch; or calibrate with a measured peak (`[[calibration]]`), which narrows the band",
            row.high_bytes.map(human_bytes).unwrap_or_default()
        ),
        None => "use a smaller micro batch with the accumulation that keeps the effective batch (`trainlint plan`), or calibrate with a measured peak (`[[calibration]]`), which narrows the band".to_owned(),
    };
    let diagnostic = at(
        LowMemoryHeadroom,
        resolved,
        None,
        Some(&estimate.gpu),
        format!(
            "may not fit: estimated peak {} ({} on the card) straddles usable {} on {}{stage}: {}",
            human_bytes(estimate.total_bytes),
            human_range(estimate.low_bytes, estimate.high_bytes),
            human_bytes(estimate.usable_bytes),
            estimate.gpu,
            biggest(estimate, 3)
        ),
    )
    .with_label(format!("up to {} > {} usable", human_bytes(estimate.high_bytes), human_bytes(estimate.usable_bytes)))
    .with_note(format!("band {}", estimate.band.describe()))
    .with_help(help);
    match smaller.and_then(|(micro, accumulation)| {
        batch_fix(
            resolved,
            micro,
            accumulation,
            format!("Set micro batch {micro} and accumulation {accumulation} {}", super::for_targets(&estimate.gpu, names)),
        )
    }) {
        Some(fix) => diagnostic.with_fix(fix),
        None => diagnostic,
    }
}
