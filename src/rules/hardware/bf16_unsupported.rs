use crate::declare_rule;
use crate::diagnostic::Diagnostic;
use crate::resolve::{ResolvedConfig, RoleValue};
use crate::schema::GpuTarget;

declare_rule! {
    /// ## What it does
    /// Reports bf16 precision on a GPU target without native bf16: compute
    /// capability below 8.0 (V100, T4, Quadro RTX 6000). `torch.cuda.is_bf16_supported()`
    /// returns True only for capability ≥ 8.0 (or on ROCm); below, bf16 is emulated.
    ///
    /// ## Why is this bad?
    /// Emulated bf16 is slow, and some kernels (flash attention, fused
    /// optimizers) refuse it outright; the run fails or crawls on that GPU.
    ///
    /// ## Example
    /// ```yaml
    /// trainlint: 1
    /// precision: bf16-mixed
    /// gpus: [v100-32gb]
    /// ```
    ///
    /// Use instead:
    /// ```yaml
    /// trainlint: 1
    /// precision: 16-mixed
    /// gpus: [v100-32gb]
    /// ```
    ///
    /// ## Fix safety
    /// There is no fix: fp16 needs loss scaling and may overflow where bf16 did not.
    pub struct Bf16Unsupported {
        name: "bf16-unsupported",
        severity: Error,
        fix: None,
        since: "0.1.0",
        check: Hardware,
        needs: [GpuTargets],
        options: ["gpus", "gpu"],
    }
}

pub fn diagnostic(resolved: &ResolvedConfig, precision: &RoleValue, gpu: &GpuTarget) -> Diagnostic {
    super::lacks(
        Bf16Unsupported,
        resolved,
        precision,
        gpu,
        super::Lacks {
            feature: "native bf16",
            note: "native bf16 needs compute capability ≥ 8.0 (torch.cuda.is_bf16_supported); below it bf16 is emulated or refused",
            help: format!("use 16-mixed (fp16 with loss scaling) or 32-true on {}, or a GPU with compute capability ≥ 8.0", gpu.id),
        },
    )
}
