//! SARIF 2.1.0 (OASIS), for code-scanning uploads: every rule with its
//! documentation and help URI, every result with its region and fix.

use crate::diagnostic::{Diagnostic, Severity};
use crate::rules::codes;
use serde_json::{Value, json};

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

pub fn render(diagnostics: &[Diagnostic]) -> String {
    let rules: Vec<Value> = codes::ALL
        .iter()
        .map(|r| {
            json!({
                "id": r.code,
                "name": r.name,
                "shortDescription": {"text": r.summary()},
                "fullDescription": {"text": r.docs()},
                "help": {"text": r.docs(), "markdown": r.docs()},
                "helpUri": r.url(),
                "defaultConfiguration": {"level": level(r.severity)},
                "properties": {"since": r.since},
            })
        })
        .collect();
    let results: Vec<Value> = diagnostics
        .iter()
        .map(|d| {
            let (line, column) = d.file.line_col(d.span.start);
            let (end_line, end_column) = d.file.line_col(d.span.end);
            let index = codes::ALL.iter().position(|r| r.code == d.rule.code).unwrap_or(0);
            let mut message = d.message.clone();
            if let Some(help) = &d.help {
                message.push_str(&format!("\nhelp: {help}"));
            }
            let mut result = json!({
                "ruleId": d.rule.code,
                "ruleIndex": index,
                "level": level(d.severity),
                "message": {"text": message},
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": {"uri": uri(d.file.display())},
                        "region": {"startLine": line, "startColumn": column, "endLine": end_line, "endColumn": end_column.max(column)},
                    }
                }],
            });
            let mut properties = serde_json::Map::new();
            if let Some(stage) = &d.stage {
                properties.insert("stage".into(), stage.clone().into());
            }
            if let Some(gpu) = &d.gpu {
                properties.insert("gpu".into(), gpu.clone().into());
            }
            if !properties.is_empty() {
                result["properties"] = Value::Object(properties);
            }
            if let Some(fix) = d.fix.as_ref().filter(|f| !f.edits.is_empty()) {
                result["fixes"] = json!([{
                    "description": {"text": fix.message},
                    "artifactChanges": fix.edits.iter().map(|e| {
                        let (l, c) = e.file.line_col(e.span.start);
                        let (el, ec) = e.file.line_col(e.span.end);
                        json!({
                            "artifactLocation": {"uri": uri(e.file.display())},
                            "replacements": [{
                                "deletedRegion": {"startLine": l, "startColumn": c, "endLine": el, "endColumn": ec},
                                "insertedContent": {"text": e.content},
                            }],
                        })
                    }).collect::<Vec<_>>(),
                }]);
            }
            result
        })
        .collect();
    let sarif = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "trainlint", "version": env!("CARGO_PKG_VERSION"), "informationUri": "https://trainlint.dev", "rules": rules}},
            "results": results,
            "columnKind": "unicodeCodePoints",
        }],
    });
    serde_json::to_string_pretty(&sarif).unwrap_or_default() + "\n"
}

/// A relative path as a URI reference (forward slashes, spaces escaped).
fn uri(path: &str) -> String {
    path.replace('\\', "/").replace(' ', "%20")
}
