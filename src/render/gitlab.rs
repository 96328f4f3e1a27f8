//! GitLab Code Quality reports (`artifacts: reports: codequality`): a JSON
//! list of issues, each with the fields GitLab reads —
//! `description`, `check_name`, `fingerprint`, `severity` (`info`, `minor`,
//! `major`, `critical` or `blocker`) and `location.path` with
//! `location.lines.begin` (docs.gitlab.com/ci/testing/code_quality/,
//! "Code Quality report format").

use crate::diagnostic::{Diagnostic, Severity};
use serde_json::json;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The folder GitLab's paths are relative to: the job's checkout (`CI_PROJECT_DIR`, "the full
/// path the repository is cloned to, and where the job runs from", GitLab's predefined CI/CD
/// variables) when it is set and absolute, else `fallback` (the run's source root, as SARIF's
/// `%SRCROOT%`: the git work tree around the first path). Code Quality matches `location.path`
/// against the repository's files, so a path relative to a subfolder the job `cd`s into, or to
/// the current folder, would not be found. Only the variable's use is shown, never its value.
pub(crate) fn project_root(fallback: &Path) -> PathBuf {
    std::env::var_os("CI_PROJECT_DIR")
        .map(PathBuf::from)
        .filter(|dir| dir.is_absolute())
        .map(|dir| std::fs::canonicalize(&dir).unwrap_or(dir))
        .unwrap_or_else(|| fallback.to_path_buf())
}

/// A finding's path relative to `root` (`/` separators), or as displayed when the file is not under it.
fn path_in(d: &Diagnostic, root: &Path) -> String {
    let path = d.file.path();
    let absolute = std::fs::canonicalize(path).or_else(|_| std::path::absolute(path)).unwrap_or_else(|_| path.to_path_buf());
    match absolute.strip_prefix(root) {
        Ok(relative) if !relative.as_os_str().is_empty() => relative.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/"),
        _ => d.file.display().to_owned(),
    }
}

pub fn render(diagnostics: &[Diagnostic], root: &Path) -> String {
    let mut seen: HashMap<u64, u64> = HashMap::new();
    let issues: Vec<serde_json::Value> = diagnostics
        .iter()
        .map(|d| {
            let (begin, _) = d.file.line_col(d.span.start);
            let (end, _) = d.file.line_col(d.span.end);
            let mut description = format!("{} {}", d.rule.code, d.message);
            if let Some(help) = &d.help {
                description.push_str(&format!(" (help: {help})"));
            }
            // Two identical findings in one file (same code, message and text) differ by their occurrence number.
            let base = fingerprint(d);
            let occurrence = seen.entry(base).or_default();
            let print = format!("{:016x}", fnv1a(&[&base.to_le_bytes()[..], &occurrence.to_le_bytes()[..]]));
            *occurrence += 1;
            json!({
                "description": description,
                "check_name": d.rule.code,
                "fingerprint": print,
                "severity": severity(d.severity),
                "location": {"path": path_in(d, root), "lines": {"begin": begin, "end": end}},
            })
        })
        .collect();
    serde_json::to_string_pretty(&issues).unwrap_or_default() + "\n"
}

/// GitLab's scale has five steps: an error is `major` (it fails `check`), a warning `minor`, an info `info`.
fn severity(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "major",
        Severity::Warning => "minor",
        Severity::Info => "info",
    }
}

/// Stable across runs and line moves: the rule, the file, the message and the
/// spanned text, not the line number (GitLab matches issues between the base
/// and the merge request by fingerprint).
fn fingerprint(d: &Diagnostic) -> u64 {
    let spanned = d.file.text().get(d.span.clone()).unwrap_or("");
    fnv1a(&[d.rule.code.as_bytes(), d.file.display().as_bytes(), d.message.as_bytes(), spanned.as_bytes()])
}

/// FNV-1a, 64 bits (the parts separated by a 0xff byte, which UTF-8 never contains):
/// a hash whose value does not depend on the Rust version, unlike `DefaultHasher`.
fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for byte in part.iter().chain(std::iter::once(&0xff)) {
            hash ^= u64::from(*byte);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    hash
}
