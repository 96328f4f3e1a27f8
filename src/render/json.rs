//! The JSON output: a stable contract (brief: "Contract that tests outside the project rely on").

use super::Summary;
use crate::diagnostic::{Diagnostic, Edit};
use crate::source::{SourceFile, Span};
use serde_json::{Value, json};

pub fn render(diagnostics: &[Diagnostic], summary: &Summary) -> String {
    let value = json!({
        "diagnostics": diagnostics.iter().map(diagnostic).collect::<Vec<_>>(),
        "summary": summary,
    });
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
    text.push('\n');
    text
}

pub fn diagnostic(d: &Diagnostic) -> Value {
    let (line, column) = d.file.line_col(d.span.start);
    let (end_line, end_column) = d.file.line_col(d.span.end);
    json!({
        "code": d.rule.code,
        "name": d.rule.name,
        "severity": d.severity,
        "message": d.message,
        "file": d.file.display(),
        "line": line,
        "column": column,
        "end_line": end_line,
        "end_column": end_column,
        "stage": d.stage,
        "gpu": d.gpu,
        "note": d.note,
        "help": d.help,
        "labels": d.labels.iter().map(|l| location(&l.file, &l.span, Some(&l.message))).collect::<Vec<_>>(),
        "fix": d.fix.as_ref().map(|fix| json!({
            "applicability": fix.applicability,
            "message": fix.message,
            "edits": fix.edits.iter().map(edit).collect::<Vec<_>>(),
        })),
        "url": d.rule.url(),
    })
}

fn location(file: &SourceFile, span: &Span, message: Option<&str>) -> Value {
    let (line, column) = file.line_col(span.start);
    let (end_line, end_column) = file.line_col(span.end);
    json!({ "file": file.display(), "line": line, "column": column, "end_line": end_line, "end_column": end_column, "message": message })
}

fn edit(e: &Edit) -> Value {
    let mut value = location(&e.file, &e.span, None);
    if let Some(object) = value.as_object_mut() {
        object.remove("message");
        object.insert("start".into(), e.span.start.into());
        object.insert("end".into(), e.span.end.into());
        object.insert("content".into(), e.content.clone().into());
    }
    value
}
