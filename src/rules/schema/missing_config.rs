use crate::declare_rule;
use crate::diagnostic::Diagnostic;
use crate::resolve::hydra::CompositionProblem;
use crate::rules::{Checker, Registered};
use crate::source::SourceFile;
use std::sync::Arc;

declare_rule! {
    /// ## What it does
    /// Composes a Hydra primary config (its defaults list: config groups,
    /// `_self_`, `override`, `optional`, `group@package`, `# @package`) and
    /// reports a defaults entry that names no config file, a defaults cycle,
    /// or an entry that leaves the config folder (`../../etc`).
    ///
    /// A missing config named by the defaults lists of several files is one
    /// error, at the first file, with the count of the others and labels at
    /// their entries.
    ///
    /// ## Why is this bad?
    /// Hydra fails at start-up with "Could not find 'group/option'" — or, for
    /// a path outside the project, reads a file nobody reviewed.
    ///
    /// ## Example
    /// A project with the group option `text_curriculum/default.yaml`:
    /// ```yaml,file=text_curriculum/default.yaml
    /// name: default
    /// ```
    /// and a primary config whose defaults list names another group:
    /// ```yaml
    /// defaults:
    ///   - _self_
    ///   - curriculum: default   # but the folder is text_curriculum/
    /// ```
    ///
    /// Use instead:
    /// ```yaml
    /// defaults:
    ///   - _self_
    ///   - text_curriculum: default
    /// ```
    ///
    /// ## Fix safety
    /// There is no fix.
    pub struct MissingConfig {
        name: "missing-config",
        severity: Error,
        fix: None,
        since: "0.1.0",
        check: Load,
    }
}

pub(crate) fn report(checker: &mut Checker, files: &[Arc<SourceFile>], problems: &[CompositionProblem]) {
    for problem in problems {
        let Some(file) = files.get(problem.file) else { continue };
        let rule = if problem.error { MissingConfig.id() } else { super::unresolved_value::UnresolvedValue.id() };
        checker.report(
            Diagnostic::new(rule, file, problem.span.clone(), problem.message.clone())
                .with_label(if problem.error { "cannot be composed" } else { "chosen at launch" })
                .with_note("Hydra composes the defaults list before anything runs; it fails on an entry it cannot find")
                .with_help(problem.help.unwrap_or("correct the group or option name, or mark the entry `optional`")),
        );
    }
}
