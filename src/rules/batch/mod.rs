//! BAT rules: the effective batch (micro batch × accumulation × data-parallel
//! world) is consistent, reachable, equal to its target, and the same across
//! curriculum stages and commits.

pub(crate) mod batch_underspecified;
pub(crate) mod devices_launch_mismatch;
pub(crate) mod effective_batch_changed_since_baseline;
pub mod effective_batch_mismatch;
pub(crate) mod generations_indivisible;
pub(crate) mod global_batch_floored;
pub(crate) mod global_batch_mismatch;
pub(crate) mod stage_effective_batch_changed;
pub(crate) mod unreachable_batch;
pub(crate) mod world_size_unknown;

use crate::diagnostic::Diagnostic;
use crate::resolve::batch::{BatchProblem, Worlds};
use crate::resolve::{ResolvedConfig, RoleValue};
use crate::rules::Checker;
use crate::schema::Role;
use crate::source::{SourceFile, Span};
use std::sync::Arc;

/// Runs the batch rules that concern one resolved config (a file, the base or one stage).
pub fn check(checker: &mut Checker, resolved: &ResolvedConfig, settings: &crate::settings::Settings) {
    let batch = &resolved.batch;
    // Degrees that do not divide the GPUs leave no data-parallel world: PAR001 says so, not BAT006.
    let degrees_misfit = crate::rules::parallel::parallel_degrees_mismatch::check(checker, resolved);
    pinned(checker, resolved);
    match &batch.problem {
        Some(BatchProblem::Underspecified) => checker.report(batch_underspecified::diagnostic(resolved)),
        Some(BatchProblem::Floors { role, numerator, denominator }) => {
            checker.report(unreachable_batch::derivation(resolved, *role, *numerator, *denominator));
        }
        Some(BatchProblem::GlobalMismatch { global, micro, accumulation, .. }) if batch.worlds == Some(Worlds::None) => {
            checker.report(global_batch_mismatch::on_no_world(resolved, *global, *micro, *accumulation));
        }
        Some(BatchProblem::GlobalMismatch { global, micro, accumulation, world }) => {
            checker.report(global_batch_mismatch::diagnostic(resolved, *global, *micro, *accumulation, *world));
        }
        // A value out of range is SCH002 (schema-violation), not a BAT finding:
        // BAT rules compare valid values; this value is invalid on its own. A
        // native config's schema already reports it.
        Some(BatchProblem::NotPositive { role, text }) if !resolved.detection.dialect.is_native() => {
            let key = resolved.role(*role).map_or_else(|| role.name().to_owned(), |v| v.path.clone());
            checker.report(
                at(
                    crate::rules::schema::schema_violation::SchemaViolation,
                    resolved,
                    &[*role],
                    format!("`{key}` is {text}: a batch size must be a positive whole number"),
                )
                .with_label("not positive")
                .with_note("a batch of zero or fewer samples trains nothing; the framework refuses it at start-up")
                .with_help("set a positive value"),
            );
        }
        Some(BatchProblem::Overflow { product }) => checker.report(
            at(
                crate::rules::schema::schema_violation::SchemaViolation,
                resolved,
                &[Role::MicroBatch, Role::Accumulation, Role::GlobalBatch, Role::Devices],
                format!("{product} does not fit in 64 bits"),
            )
            .with_label("out of range")
            .with_note("no training run has a batch or world this large; the value is a typo or a placeholder")
            .with_help("set the real value"),
        ),
        Some(BatchProblem::FloorsToZero { global, micro, world }) => {
            checker.report(with_semantics(resolved, unreachable_batch::floors_to_zero(resolved, *global, *micro, *world)));
        }
        Some(BatchProblem::NotPositive { .. }) => {}
        None => {}
    }
    if let Some(diagnostic) = devices_launch_mismatch::check(resolved) {
        checker.report(diagnostic);
    }
    if batch.problem.is_none()
        && let Some(diagnostic) = generations_indivisible::check(resolved, settings)
    {
        checker.report(diagnostic);
    }
    if batch.problem.is_some() || degrees_misfit {
        return;
    }
    if batch.world_size.is_none() && (batch.micro_batch.is_some() || batch.global_batch.is_some()) {
        match (&batch.worlds, batch.target) {
            // The batch holds on some world, but none reaches the target.
            (Some(Worlds::None), Some(target)) => checker.report(with_semantics(resolved, unreachable_batch::target_on_no_world(resolved, target))),
            _ => checker.report(with_semantics(resolved, world_size_unknown::diagnostic(resolved))),
        }
        return;
    }
    if let Some(floored) = &batch.floored {
        checker.report(with_semantics(resolved, global_batch_floored::diagnostic(resolved, floored)));
    }
    if let (Some(target), Some(effective)) = (batch.target, batch.effective_batch)
        && target != effective
    {
        checker.report(with_semantics(resolved, effective_batch_mismatch::or_unreachable(resolved, target, effective)));
    }
}

/// A finding that derives from the batch semantics, on a config where the framework's releases
/// differ (litgpt on more than one node): its note says which release's semantics it follows and
/// why (`resolve::versions::batch_semantics`).
fn with_semantics(resolved: &ResolvedConfig, diagnostic: Diagnostic) -> Diagnostic {
    let Some(semantics) = &resolved.batch.semantics_note else { return diagnostic };
    let note = match &diagnostic.note {
        Some(note) => format!("{note}; {semantics}"),
        None => semantics.clone(),
    };
    diagnostic.with_note(note)
}

/// A batch key the framework requires at one value (`Framework::pinned_values`) set to another: SCH002.
fn pinned(checker: &mut Checker, resolved: &ResolvedConfig) {
    for pinned in resolved.detection.dialect.pinned_values(&resolved.tree) {
        let Some(node) = resolved.tree.get_dotted(pinned.path) else { continue };
        if node.as_i64() == Some(pinned.value) || node.as_i64().is_none() && node.as_f64().is_none() {
            continue;
        }
        let file = resolved.files.get(node.origin).unwrap_or(resolved.source());
        let written = node.to_json();
        let help = match (
            resolved.batch.micro(),
            resolved.batch.world_size,
            node.as_i64().and_then(|n| u64::try_from(n).ok()),
            resolved.role(Role::GlobalBatch),
        ) {
            (Some(micro), Some(world), Some(steps), Some(global)) if steps > 1 => match micro.checked_mul(steps).and_then(|p| p.checked_mul(world)) {
                Some(wanted) => format!(
                    "set it to {}; to accumulate {steps} micro batches, set `{}` to {micro} micro batch × {steps} × {world} data-parallel world = {wanted} samples",
                    pinned.value, global.path
                ),
                None => format!("set it to {}", pinned.value),
            },
            _ => format!("set it to {}", pinned.value),
        };
        let help = match (resolved.batch.accumulation_steps(), resolved.role(Role::GlobalBatch)) {
            (Some(steps), Some(global)) => format!("{help} (`{}` already gives {steps} accumulation steps)", global.path),
            _ => help,
        };
        let mut diagnostic = Diagnostic::new(
            crate::rules::schema::schema_violation::SchemaViolation,
            file,
            node.span.clone(),
            format!("`{}` is {written}: {} requires {}", pinned.path, resolved.detection.dialect.title(), pinned.value),
        )
        .with_label(format!("must be {}", pinned.value))
        .with_note(pinned.reason)
        .with_help(help);
        diagnostic.stage = resolved.stage.clone();
        checker.report(diagnostic);
    }
}

/// Where a batch finding points: the first of `roles` the config states, else the top of the file.
pub(crate) fn anchor<'a>(resolved: &'a ResolvedConfig, roles: &[Role]) -> (Arc<SourceFile>, Span, Option<&'a RoleValue>) {
    for role in roles {
        if let Some(value) = resolved.role(*role) {
            return (Arc::clone(&value.file), value.span.clone(), Some(value));
        }
    }
    (Arc::clone(resolved.source()), 0..0, None)
}

/// A diagnostic at `roles`' anchor, with the stage set.
pub(crate) fn at(rule: impl Into<crate::rules::codes::RuleId>, resolved: &ResolvedConfig, roles: &[Role], message: String) -> Diagnostic {
    let (file, span, _) = anchor(resolved, roles);
    let mut diagnostic = Diagnostic::new(rule, &file, span, message);
    diagnostic.stage = resolved.stage.clone();
    diagnostic
}

/// "45 micro × 5 accumulation × 1 world".
pub(crate) fn product(micro: u64, accumulation: u64, world: u64) -> String {
    format!("{micro} micro batch × {accumulation} accumulation × {world} data-parallel world")
}

/// Micro batches that divide `per_world` (the target ÷ world), nearest to `micro` first.
/// Divisors come in pairs (d, per_world ÷ d) with d ≤ √per_world; the search
/// stops at d = 2^20, so a target of 2^63 does not loop 2^63 times.
pub(crate) fn divisors_near(per_world: u64, micro: u64, count: usize) -> Vec<u64> {
    let mut divisors: Vec<u64> = Vec::new();
    let mut d = 1u64;
    while d <= 1 << 20 && d.checked_mul(d).is_some_and(|square| square <= per_world) {
        if per_world.is_multiple_of(d) {
            divisors.push(d);
            if per_world / d != d {
                divisors.push(per_world / d);
            }
        }
        d += 1;
    }
    divisors.sort_by_key(|d| (d.abs_diff(micro), *d));
    divisors.truncate(count);
    divisors.sort_unstable();
    divisors
}
