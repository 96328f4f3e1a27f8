use crate::declare_rule;
use crate::diagnostic::Diagnostic;
use crate::resolve::{ResolvedConfig, RoleValue};
use crate::schema::GpuTarget;

declare_rule! {
    /// ## What it does
    /// Reports fp8 training on a GPU target without fp8 support. NVIDIA
    /// Transformer Engine needs compute capability 8.9 or higher ("Device compute
    /// capability 8.9 or higher required for FP8 execution"); on AMD, only MI300X
    /// (gfx942) has fp8, in the FNUZ formats.
    ///
    /// ## Why is this bad?
    /// The run fails at the first fp8 layer.
    ///
    /// ## Example
    /// ```yaml
    /// trainlint: 1
    /// precision: fp8-mixed
    /// gpus: [a100-80gb]
    /// ```
    ///
    /// Use instead:
    /// ```yaml
    /// trainlint: 1
    /// precision: bf16-mixed
    /// gpus: [a100-80gb]
    /// ```
    ///
    /// ## Fix safety
    /// There is no fix.
    pub struct Fp8Unsupported {
        name: "fp8-unsupported",
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
        Fp8Unsupported,
        resolved,
        precision,
        gpu,
        super::Lacks {
            feature: "fp8",
            note: "Transformer Engine's fp8 needs compute capability ≥ 8.9 (Ada, Hopper, Blackwell)",
            help: format!("use bf16-mixed on {}, or an fp8-capable GPU (l4, l40s, rtx-4090, h100-sxm, h200, b200)", gpu.id),
        },
    )
}
