//! HW rules: the precision a config asks for, against what each GPU target supports.

pub(crate) mod bf16_unsupported;
pub(crate) mod fp8_unsupported;

use crate::diagnostic::Diagnostic;
use crate::resolve::{ResolvedConfig, RoleValue};
use crate::rules::Checker;
use crate::schema::typed::Precision;
use crate::schema::{GpuTarget, Role};

pub fn check(checker: &mut Checker, resolved: &ResolvedConfig, gpus: &[GpuTarget]) {
    let (Some(value), Some(precision)) = (resolved.role(Role::Precision), resolved.typed::<Precision>()) else { return };
    for gpu in gpus {
        if precision.needs_bf16() && !gpu.bf16 {
            checker.report(bf16_unsupported::diagnostic(resolved, value, gpu));
        }
        if precision.needs_fp8() && !gpu.fp8 {
            checker.report(fp8_unsupported::diagnostic(resolved, value, gpu));
        }
    }
}

/// What a precision needs that a card lacks, in words: the rule, the feature (`native bf16`,
/// `fp8`), why, and what to use instead. One place for both HW rules' findings.
pub(crate) struct Lacks {
    pub feature: &'static str,
    pub note: &'static str,
    pub help: String,
}

/// The finding of a HW rule: at the precision's value, for one GPU target and stage.
pub(crate) fn lacks(
    rule: impl Into<crate::rules::codes::RuleId>,
    resolved: &ResolvedConfig,
    precision: &RoleValue,
    gpu: &GpuTarget,
    lacks: Lacks,
) -> Diagnostic {
    let cc = gpu.compute_capability.as_deref().map_or_else(|| "not stated".to_owned(), |cc| format!("compute capability {cc}"));
    let short = lacks.feature.trim_start_matches("native ");
    let mut diagnostic = Diagnostic::new(
        rule,
        &precision.file,
        precision.span.clone(),
        format!("precision {} needs {}, which {} ({cc}) lacks", precision.value, lacks.feature, gpu.id),
    )
    .with_label(format!("{short} on {}", gpu.id))
    .with_note(lacks.note)
    .with_help(lacks.help);
    diagnostic.stage = resolved.stage.clone();
    diagnostic.gpu = Some(gpu.id.clone());
    diagnostic
}
