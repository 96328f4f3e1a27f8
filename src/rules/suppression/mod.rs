//! Suppressions: `# trainlint: ignore[CODE, ...] reason` on the line of a
//! finding or on a comment line just above it, and `# trainlint:
//! file-ignore[CODE] reason` anywhere in a file. JSON has no comments: there,
//! `per-file-ignores` in the manifest is the way. An unused suppression
//! (SUP001) and one without a reason (SUP002) are reported, as ruff reports
//! unused `noqa`.

pub(crate) mod suppression_without_reason;
pub(crate) mod unused_suppression;

use crate::diagnostic::Diagnostic;
use crate::rules::Checker;
use crate::source::{SourceFile, Span};
use std::sync::Arc;

#[derive(Clone, Debug)]
pub struct Suppression {
    pub file: Arc<SourceFile>,
    /// 1-based line of the comment.
    pub line: usize,
    pub span: Span,
    pub codes: Vec<String>,
    pub whole_file: bool,
    pub reason: String,
    /// Whether the comment is alone on its line (then it covers the next line).
    pub own_line: bool,
    pub used: bool,
}

const MARKER: &str = "# trainlint:";

/// Whether the file may hold a suppression comment (cheap; `parse` says which).
pub(crate) fn may_have_suppressions(file: &SourceFile) -> bool {
    file.text().contains(MARKER)
}

pub(crate) fn parse(file: &Arc<SourceFile>) -> Vec<Suppression> {
    let text = file.text();
    if !text.contains(MARKER) {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut offset = 0;
    for (index, line) in text.split_inclusive('\n').enumerate() {
        if let Some(position) = line.find(MARKER) {
            let rest = line[position + MARKER.len()..].trim_start();
            let (whole_file, rest) = match rest.strip_prefix("file-ignore[") {
                Some(r) => (true, Some(r)),
                None => (false, rest.strip_prefix("ignore[")),
            };
            // `# trainlint: ignore` without a rule list: ruff's blanket `# noqa` has no counterpart
            // here (a suppression names its rules), so it suppresses nothing and says so (SUP001).
            let bare = line[position + MARKER.len()..].trim_start();
            let blanket = ["ignore", "file-ignore"]
                .into_iter()
                .find(|w| bare.strip_prefix(w).is_some_and(|after| after.is_empty() || after.starts_with(char::is_whitespace)));
            if rest.is_none()
                && let Some(word) = blanket
            {
                let start = offset + position;
                out.push(Suppression {
                    file: Arc::clone(file),
                    line: index + 1,
                    span: start..offset + line.trim_end().len(),
                    codes: Vec::new(),
                    whole_file: word == "file-ignore",
                    reason: bare[word.len()..].trim().to_owned(),
                    own_line: line[..position].trim().is_empty(),
                    used: false,
                });
            }
            if let Some(rest) = rest
                && let Some((codes, reason)) = rest.split_once(']')
            {
                let start = offset + position;
                out.push(Suppression {
                    file: Arc::clone(file),
                    line: index + 1,
                    span: start..offset + line.trim_end().len(),
                    codes: codes.split(',').map(|c| c.trim().to_ascii_uppercase()).filter(|c| !c.is_empty()).collect(),
                    whole_file,
                    reason: reason.trim().to_owned(),
                    own_line: line[..position].trim().is_empty(),
                    used: false,
                });
            }
        }
        offset += line.len();
    }
    out
}

/// Drops suppressed diagnostics, then reports unused and reasonless suppressions.
pub fn apply(diagnostics: &mut Vec<Diagnostic>, files: &[Arc<SourceFile>], checker: &mut Checker) {
    let mut suppressions: Vec<Suppression> = files.iter().flat_map(parse).collect();
    if suppressions.is_empty() {
        return;
    }
    diagnostics.retain(|d| {
        let (line, _) = d.line_col();
        let mut suppressed = false;
        for s in suppressions.iter_mut() {
            if !Arc::ptr_eq(&s.file, &d.file) && s.file.path() != d.file.path() {
                continue;
            }
            let applies = s.whole_file || s.line == line || s.own_line && s.line + 1 == line;
            if applies && s.codes.iter().any(|c| d.rule.code.starts_with(c.as_str())) {
                s.used = true;
                suppressed = true;
            }
        }
        !suppressed
    });
    for s in &suppressions {
        if !s.used {
            checker.report(unused_suppression::diagnostic(s));
        }
        if s.reason.is_empty() && !s.codes.is_empty() {
            checker.report(suppression_without_reason::diagnostic(s));
        }
    }
}
