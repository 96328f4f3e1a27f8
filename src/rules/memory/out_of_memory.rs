use super::{at, batch_fix, biggest};
use crate::declare_rule;
use crate::diagnostic::Diagnostic;
use crate::estimate::plan::PlanRow;
use crate::estimate::{Estimate, MemoryModel, human_bytes, human_range};
use crate::resolve::ResolvedConfig;
use crate::rules::resolution::resolution_reduced::direction;
use crate::settings::Settings;

declare_rule! {
    /// ## What it does
    /// Estimates the peak GPU memory of a config, per curriculum stage and per
    /// GPU target, with the uncertainty measured for its kind of run (method ×
    /// sharding × framework: the band, from the accuracy table in the book's
    /// memory chapter), and reports when even the band's low end exceeds the
    /// usable memory: the GPU's capacity (as nvidia-smi reports it) × the safety
    /// margin (`safety-margin`, 1 unless set). The band is of what the card
    /// holds: the live tensors, PyTorch's caching-allocator reserve and the CUDA
    /// context. The message names the band, the usable memory and the three
    /// biggest components; `trainlint estimate` prints the whole table. A band
    /// that straddles usable memory is MEM002, not this error.
    ///
    /// ## Why is this bad?
    /// The run dies with "CUDA out of memory" after it has waited for its GPU,
    /// often in a later curriculum stage that needs more memory than the first.
    ///
    /// ## Example
    /// A 350M-parameter transformer at micro batch 16 × 2048 tokens with eager
    /// attention and no checkpointing: about 250 GiB of estimate, at least 230
    /// GiB on the card, on a 24 GB RTX 4090.
    /// ```yaml
    /// trainlint: 1
    /// batch: {micro_batch: 16, accumulation: 4, effective_batch: 64}
    /// parallel: {devices: 1}
    /// precision: bf16-mixed
    /// optimizer: adamw
    /// model: {parameters: 350000000, sequence_length: 2048, hidden_size: 1024, layers: 24, heads: 16, vocab_size: 50257, attention: eager}
    /// gpus: [rtx-4090]
    /// ```
    ///
    /// Use instead: the micro batch that fits even at the band's high end, with
    /// the accumulation that keeps the effective batch (`trainlint plan`), here
    /// with flash attention and full checkpointing: micro batch 4 ×
    /// accumulation 16, about 12 GiB of estimate.
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
    /// The fix sets the largest micro batch that fits even at the band's high
    /// end and divides the effective batch, and the accumulation that keeps it. It is unsafe: the
    /// effective batch is kept, but batch-norm statistics and throughput change.
    /// It never lowers a resolution-bearing value; the help lists those as last resorts.
    pub struct OutOfMemory {
        name: "out-of-memory",
        severity: Error,
        fix: Sometimes,
        since: "0.1.0",
        check: Memory,
        needs: [GpuTargets, MemoryModel],
        options: ["gpus", "gpu", "safety-margin", "memory", "calibration", "models"],
    }
}

pub fn diagnostic(resolved: &ResolvedConfig, model: &MemoryModel, estimate: &Estimate, row: &PlanRow, settings: &Settings, names: &[&str]) -> Diagnostic {
    let stage = resolved.stage.as_ref().map(|s| format!(" (stage `{s}`)")).unwrap_or_default();
    let message = format!(
        "estimated peak {} ({} on the card) exceeds usable {} on {}{stage}: {}",
        human_bytes(estimate.total_bytes),
        human_range(estimate.low_bytes, estimate.high_bytes),
        human_bytes(estimate.usable_bytes),
        estimate.gpu,
        biggest(estimate, 3)
    );
    let mut diagnostic = at(OutOfMemory, resolved, Some(model), Some(&estimate.gpu), message)
        .with_label(format!("at least {} > {} usable", human_bytes(estimate.low_bytes), human_bytes(estimate.usable_bytes)))
        .with_note(format!(
            "even the band's low end exceeds usable memory ({} capacity × {} safety margin): the run would fail with CUDA out of memory; band {}",
            human_bytes(estimate.capacity_bytes),
            estimate.safety_margin,
            estimate.band.describe()
        ));
    let last_resorts: Vec<String> = model.dependencies().into_iter().filter(|name| direction(settings, name).is_some()).collect();
    let last_resort_text = if last_resorts.is_empty() {
        String::new()
    } else {
        format!("; last resorts, which hurt quality: lower {}", last_resorts.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", "))
    };
    match (row.micro_batch, row.accumulation) {
        (Some(micro), Some(accumulation)) if row.fits => {
            let keeps = match (row.effective_batch, row.per_process) {
                (Some(effective), _) => format!("the effective batch {effective}"),
                (None, Some(product)) => format!("{product} samples per GPU per step, so the effective batch on any world"),
                (None, None) => "the effective batch".to_owned(),
            };
            diagnostic = diagnostic.with_help(format!(
                "micro batch {micro} with accumulation {accumulation} fits ({} estimate, up to {} on the card) and keeps {keeps}{last_resort_text}",
                row.peak_bytes.map(human_bytes).unwrap_or_default(),
                row.high_bytes.map(human_bytes).unwrap_or_default()
            ));
            if let Some(fix) = batch_fix(
                resolved,
                micro,
                accumulation,
                format!("Set micro batch {micro} and accumulation {accumulation} {}", super::for_targets(&estimate.gpu, names)),
            ) {
                diagnostic = diagnostic.with_fix(fix);
            }
        }
        _ => {
            let reason = row.reason.clone().unwrap_or_default();
            diagnostic = diagnostic.with_help(format!("no micro batch fits and keeps the effective batch ({reason}); consider activation checkpointing, 8-bit optimizer states, ZeRO/FSDP sharding or a larger GPU{last_resort_text}"));
        }
    }
    diagnostic
}
