//! What a rule reports: a finding with its spans, why and what to do, and an optional fix.

pub mod rule;
pub mod selection;
pub(crate) mod suggest;

use crate::source::{SourceFile, Span};
pub use rule::{RuleId, RuleMeta};
use serde::Serialize;
use std::sync::Arc;

/// An info a human report only counts (`check` without `--show-infos`): its rule, its file
/// (text-less) and its span, what the counts, the summary and the de-duplication read, in
/// 40 bytes where a whole `Diagnostic` takes about 290 (issue 27: 100× the corpus under 100 MiB).
#[derive(Clone, Debug)]
pub struct FoldedInfo {
    pub rule: &'static RuleMeta,
    pub file: Arc<SourceFile>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// How safe a fix is, ordered as ruff orders them: display-only < unsafe < safe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Applicability {
    /// Shown to the user, never applied.
    DisplayOnly,
    /// Changes what training does (a new micro batch); applied with `--unsafe-fixes`.
    Unsafe,
    /// Keeps the meaning (a key rename); applied with `--fix`.
    Safe,
}

/// Replace the bytes of `span` in `file` with `content`.
#[derive(Clone, Debug)]
pub struct Edit {
    pub file: Arc<SourceFile>,
    pub span: Span,
    pub content: String,
}

#[derive(Clone, Debug)]
pub struct Fix {
    pub applicability: Applicability,
    pub message: String,
    pub edits: Vec<Edit>,
}

/// A secondary span with its own message (the first occurrence of a duplicate key, ...).
#[derive(Clone, Debug)]
pub struct Label {
    pub file: Arc<SourceFile>,
    pub span: Span,
    pub message: String,
}

#[derive(Clone, Debug)]
pub struct Diagnostic {
    pub rule: &'static RuleMeta,
    pub severity: Severity,
    /// What is wrong.
    pub message: String,
    pub file: Arc<SourceFile>,
    pub span: Span,
    /// Text under the primary span.
    pub label: Option<String>,
    pub labels: Vec<Label>,
    /// Why it matters.
    pub note: Option<String>,
    /// What to do.
    pub help: Option<String>,
    pub fix: Option<Fix>,
    pub stage: Option<String>,
    pub gpu: Option<String>,
    /// The most severe this finding may be, whatever the rule's configured severity: a migration
    /// that assumes a version the project does not state is an info (`at_most`).
    pub severity_cap: Option<Severity>,
}

impl Diagnostic {
    /// Caps the finding's severity (the selection's severity for its rule is applied under it).
    pub(crate) fn at_most(mut self, severity: Severity) -> Self {
        self.severity_cap = Some(severity);
        self.severity = self.severity.min(severity);
        self
    }

    /// A finding of a registered rule (a rule type such as `OutOfMemory`, or its `RuleId`).
    pub fn new(rule: impl Into<RuleId>, file: &Arc<SourceFile>, span: Span, message: impl Into<String>) -> Self {
        let rule = rule.into().meta();
        Diagnostic {
            rule,
            severity: rule.severity,
            message: message.into(),
            file: Arc::clone(file),
            span,
            label: None,
            labels: Vec::new(),
            note: None,
            help: None,
            fix: None,
            severity_cap: None,
            stage: None,
            gpu: None,
        }
    }

    pub(crate) fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    pub(crate) fn with_secondary(mut self, file: &Arc<SourceFile>, span: Span, message: impl Into<String>) -> Self {
        self.labels.push(Label { file: Arc::clone(file), span, message: message.into() });
        self
    }

    pub(crate) fn with_note(mut self, note: impl Into<String>) -> Self {
        self.note = Some(note.into());
        self
    }

    pub(crate) fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub fn with_fix(mut self, fix: Fix) -> Self {
        self.fix = Some(conform_fix(fix));
        self
    }

    pub(crate) fn with_fix_opt(mut self, fix: Option<Fix>) -> Self {
        self.fix = fix.map(conform_fix);
        self
    }

    /// 1-based line and column of the primary span's start.
    pub fn line_col(&self) -> (usize, usize) {
        self.file.line_col(self.span.start)
    }

    /// Output order: file, position, then code.
    pub(crate) fn sort_key(&self) -> (&str, usize, &'static str) {
        (self.file.display(), self.span.start, self.rule.code)
    }
}

/// A fix whose edits are written as their files write lines (`conform`), so
/// the edits shown (`--output-format json`) are the bytes `--fix` writes.
fn conform_fix(mut fix: Fix) -> Fix {
    for edit in &mut fix.edits {
        edit.content = conform(edit.file.text(), &edit.span, &edit.content);
    }
    fix
}

/// Splices non-overlapping edits into a text, each in the text's own line
/// endings and final-newline state (`conform`).
pub fn splice(text: &str, edits: &[Edit]) -> String {
    let mut sorted: Vec<&Edit> = edits.iter().collect();
    sorted.sort_by_key(|e| (e.span.start, e.span.end));
    let mut out = String::with_capacity(text.len() + 64);
    let mut cursor = 0;
    for edit in sorted {
        let start = edit.span.start.min(text.len()).max(cursor);
        out.push_str(&text[cursor..start]);
        out.push_str(&conform(text, &edit.span, &edit.content));
        cursor = edit.span.end.min(text.len()).max(start);
    }
    out.push_str(&text[cursor..]);
    out
}

/// An edit's content as the file writes lines: `\r\n` line ends in a file
/// whose first line ends so, `\r` in a file whose first line ends with a lone
/// `\r` (classic Mac OS; YAML reads it as a line break), and no final newline
/// added at the end of a file that has none. Fixes build their content with
/// `\n`; every edit goes through here (when a fix is attached and when it is spliced).
pub(crate) fn conform(text: &str, span: &Span, content: &str) -> String {
    let line_end = match text.find(['\n', '\r']) {
        Some(i) if text[i..].starts_with("\r\n") => "\r\n",
        Some(i) if text[i..].starts_with('\r') => "\r",
        _ => "\n",
    };
    let mut content = if line_end != "\n" && content.contains('\n') {
        let mut out = String::with_capacity(content.len() + 8);
        for (i, line) in content.split('\n').enumerate() {
            if i > 0 {
                out.push_str(line_end);
            }
            out.push_str(line.strip_suffix('\r').unwrap_or(line));
        }
        out
    } else {
        content.to_owned()
    };
    let at_end = span.end >= text.len();
    if at_end && !text.is_empty() && !text.ends_with(['\n', '\r']) && content.ends_with(['\n', '\r']) && content.pop() == Some('\n') && content.ends_with('\r')
    {
        content.pop();
    }
    content
}
