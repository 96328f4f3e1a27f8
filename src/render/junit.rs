//! JUnit XML, as CI test reports read it (GitLab `artifacts: reports: junit`,
//! Jenkins, Azure): one `<testsuite>` per file with findings, one `<testcase>`
//! per finding (ruff's layout), and one passing test case when there is
//! nothing to report. An error or warning is a `<failure>`; an info (which never
//! fails a run) is a `<skipped>` case, so a CI's failed-test count is the
//! findings that fail the run.

use crate::diagnostic::{Diagnostic, Severity};

pub fn render(diagnostics: &[Diagnostic]) -> String {
    let mut files: Vec<(&str, Vec<&Diagnostic>)> = Vec::new();
    for d in diagnostics {
        match files.iter_mut().find(|(name, _)| *name == d.file.display()) {
            Some((_, found)) => found.push(d),
            None => files.push((d.file.display(), vec![d])),
        }
    }
    let total = diagnostics.len();
    let failing = |found: &[&Diagnostic]| found.iter().filter(|d| d.severity != Severity::Info).count();
    let failures = diagnostics.iter().filter(|d| d.severity != Severity::Info).count();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.push_str(&format!(
        "<testsuites name=\"trainlint\" tests=\"{}\" failures=\"{failures}\" errors=\"0\" skipped=\"{}\">\n",
        total.max(1),
        total - failures
    ));
    if files.is_empty() {
        out.push_str("  <testsuite name=\"trainlint\" tests=\"1\" failures=\"0\" errors=\"0\">\n");
        out.push_str("    <testcase name=\"No findings\" classname=\"trainlint\"/>\n");
        out.push_str("  </testsuite>\n");
    }
    for (file, found) in &files {
        let failed = failing(found);
        out.push_str(&format!(
            "  <testsuite name=\"{}\" tests=\"{n}\" failures=\"{failed}\" errors=\"0\" skipped=\"{}\">\n",
            escape(file),
            found.len() - failed,
            n = found.len()
        ));
        for d in found {
            let (line, column) = d.file.line_col(d.span.start);
            let kind = match d.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Info => "info",
            };
            let mut body = format!("{file}:{line}:{column}: {} {}", d.rule.code, d.message);
            if let Some(help) = &d.help {
                body.push_str(&format!("\nhelp: {help}"));
            }
            let element = if d.severity == Severity::Info { "skipped" } else { "failure" };
            out.push_str(&format!(
                "    <testcase name=\"{} ({})\" classname=\"{}\" file=\"{}\" line=\"{line}\">\n      <{element} message=\"{}\" type=\"{kind}\">{}</{element}>\n    </testcase>\n",
                d.rule.code,
                d.rule.name,
                escape(file),
                escape(file),
                escape(&d.message),
                escape(&body)
            ));
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

/// Text as XML 1.0 allows it in attributes and content: the five markup
/// characters as entities, and the control characters XML forbids (all but
/// tab, line feed and carriage return) as `\u{..}` escapes.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\t' | '\r' => out.push_str(&format!("&#{};", c as u32)),
            c if c.is_control() || matches!(c, '\u{FFFE}' | '\u{FFFF}') => out.extend(c.escape_default()),
            c => out.push(c),
        }
    }
    out
}
