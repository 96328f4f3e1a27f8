//! HW rules: the precision a config asks for, against what each GPU target supports.

pub mod bf16_unsupported;
pub mod fp8_unsupported;

use crate::resolve::ResolvedConfig;
use crate::rules::Checker;
use crate::schema::{GpuTarget, Role};

pub fn check(checker: &mut Checker, resolved: &ResolvedConfig, gpus: &[GpuTarget]) {
    let Some(precision) = resolved.role(Role::Precision) else { return };
    let text = match &precision.value {
        serde_json::Value::String(s) => s.to_ascii_lowercase(),
        other => other.to_string(),
    };
    for gpu in gpus {
        if text.contains("bf16") && !gpu.bf16 {
            checker.report(bf16_unsupported::diagnostic(resolved, precision, gpu));
        }
        if (text.contains("fp8") || text.starts_with("transformer-engine")) && !gpu.fp8 {
            checker.report(fp8_unsupported::diagnostic(resolved, precision, gpu));
        }
    }
}
