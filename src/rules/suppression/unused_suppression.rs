use super::Suppression;
use crate::declare_rule;
use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix};
use std::sync::Arc;

declare_rule! {
    /// ## What it does
    /// Reports a `# trainlint: ignore[...]` or `file-ignore[...]` comment that
    /// suppresses nothing: the finding it was written for is gone, or the code
    /// is misspelt. A bare `# trainlint: ignore` (no rule list) suppresses
    /// nothing either and is reported too: unlike ruff's blanket `# noqa`, a
    /// suppression names the rules it silences.
    ///
    /// ## Why is this bad?
    /// A stale suppression will silently hide the next, different problem on
    /// that line.
    ///
    /// ## Example
    /// ```yaml
    /// micro_batch: 32  # trainlint: ignore[BAT001] tuned separately
    /// ```
    /// where BAT001 no longer fires.
    ///
    /// Use instead: delete the comment.
    ///
    /// ## Fix safety
    /// Safe: removing a comment that suppresses nothing changes nothing else.
    /// A bare `# trainlint: ignore` gets no fix: which rule it was meant for is
    /// the author's call.
    pub struct UnusedSuppression {
        name: "unused-suppression",
        severity: Warning,
        fix: Sometimes,
        since: "0.1.0",
        check: Suppressions,
    }
}

pub fn diagnostic(s: &Suppression) -> Diagnostic {
    let codes = s.codes.join(", ");
    let text = s.file.text();
    // Remove the comment and the spaces before it; a comment alone on its line goes with the line.
    let line_start = text[..s.span.start].rfind('\n').map_or(0, |i| i + 1);
    let span = if s.own_line {
        line_start..text[s.span.end..].find('\n').map_or(text.len(), |i| s.span.end + i + 1)
    } else {
        let trimmed = text[line_start..s.span.start].trim_end().len();
        line_start + trimmed..s.span.end
    };
    let (message, note, help) = if s.codes.is_empty() {
        (
            "suppression names no rule: `# trainlint: ignore` without `[CODE]` suppresses nothing".to_owned(),
            "unlike ruff's blanket `# noqa`, a trainlint suppression lists the rules it silences, so a new finding on this line is never hidden by accident",
            "name the rules and why: `# trainlint: ignore[CODE] why it is fine`, or remove the comment",
        )
    } else {
        (format!("unused suppression of {codes}"), "a stale suppression hides the next problem on this line", "remove the comment")
    };
    let diagnostic = Diagnostic::new(UnusedSuppression, &s.file, s.span.clone(), message).with_label("suppresses nothing").with_note(note).with_help(help);
    // A rule-less comment was meant to silence something: which rule is the author's call, not a fix's.
    if s.codes.is_empty() {
        return diagnostic;
    }
    diagnostic.with_fix(Fix {
        applicability: Applicability::Safe,
        message: "Remove the unused suppression".into(),
        edits: vec![Edit { file: Arc::clone(&s.file), span, content: String::new() }],
    })
}
