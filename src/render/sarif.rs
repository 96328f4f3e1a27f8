//! SARIF 2.1.0 (OASIS), for code-scanning uploads: every rule with its
//! documentation and help URI, every result with its region, fix and
//! fingerprint.
//!
//! Every location is relative to one base, `%SRCROOT%` (`originalUriBaseIds`):
//! the git work tree around the checked paths, else the manifest's folder,
//! else the working folder ([`source_root`]). So one finding has the same URI
//! whichever folder `trainlint` ran in and however its paths were spelled,
//! which code scanning needs to match a finding across runs (SARIF 2.1.0
//! §3.4.4 `uriBaseId`, §3.14.14 `originalUriBaseIds`). A file outside the base
//! keeps an absolute `file://` URI and no base.

use crate::diagnostic::{Diagnostic, Severity};
use crate::rules::codes;
use crate::settings::Settings;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The name of the base every URI is relative to.
pub(crate) const SRCROOT: &str = "%SRCROOT%";

/// `%SRCROOT%` for a run over `paths`: the git work tree around the first
/// path (found by looking for `.git`, no git process), else the manifest's
/// folder, else the working folder. Absolute and canonical.
pub(crate) fn source_root(paths: &[PathBuf], settings: &Settings) -> PathBuf {
    let first = paths.first().map(PathBuf::as_path).unwrap_or(Path::new("."));
    crate::load::git::work_tree_root(first)
        .or_else(|| {
            settings.manifest_path.as_deref().and_then(Path::parent).and_then(|dir| absolute(if dir.as_os_str().is_empty() { Path::new(".") } else { dir }))
        })
        .or_else(|| absolute(Path::new(".")))
        .unwrap_or_default()
}

fn absolute(path: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(path).or_else(|_| std::path::absolute(path)).ok()
}

/// Where a result's file is: a URI relative to `root` with `uriBaseId`, or an
/// absolute `file://` URI when the file is not under `root`.
fn artifact_location(path: &Path, root: &Path) -> Value {
    let file = absolute(path).unwrap_or_else(|| path.to_path_buf());
    match file.strip_prefix(root) {
        Ok(relative) => json!({"uri": uri(&relative.to_string_lossy()), "uriBaseId": SRCROOT}),
        Err(_) => json!({"uri": file_uri(&file)}),
    }
}

/// `partialFingerprints.primaryLocationLineHash`, in the form GitHub code
/// scanning documents (`<hash>:<occurrence>`): a 64-bit FNV-1a hash of the
/// rule code, the file's URI and the trimmed text of the finding's first
/// line, then the 1-based count of earlier results with the same three. Line
/// numbers are left out, so lines inserted above a finding keep its
/// fingerprint; FNV-1a is fixed by its definition, so the value is the same
/// on every build and platform.
fn line_hash(rule: &str, uri: &str, line_text: &str, seen: &mut HashMap<u64, usize>) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in [rule.as_bytes(), b"\0", uri.as_bytes(), b"\0", line_text.trim().as_bytes()].concat() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    let occurrence = seen.entry(hash).or_default();
    *occurrence += 1;
    format!("{hash:016x}:{occurrence}")
}

/// The text of the line holding byte `offset`.
fn line_at(text: &str, offset: usize) -> &str {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    &text[start..end]
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// The SARIF log of `diagnostics`, every URI relative to `root` ([`source_root`]).
pub fn render(diagnostics: &[Diagnostic], root: &Path) -> String {
    let mut seen = HashMap::new();
    let rules: Vec<Value> = codes::ALL
        .iter()
        .map(|r| {
            let mut rule = json!({
                "id": r.code,
                "name": r.name,
                "shortDescription": {"text": r.summary()},
                "fullDescription": {"text": r.docs()},
                // The rule's whole page: a code scanning alert shows it without a link to follow.
                "help": {"text": r.docs(), "markdown": r.docs()},
                "defaultConfiguration": {"level": level(r.severity)},
                "properties": {"since": r.since},
            });
            // Only a link that resolves (SARIF 2.1.0 §3.49.12: `helpUri` is optional).
            if let Some(url) = r.url() {
                rule["helpUri"] = url.into();
            }
            rule
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
            let location = artifact_location(d.file.path(), root);
            let uri_text = location["uri"].as_str().unwrap_or_default().to_owned();
            let fingerprint = line_hash(d.rule.code, &uri_text, line_at(d.file.text(), d.span.start), &mut seen);
            let mut result = json!({
                "ruleId": d.rule.code,
                "ruleIndex": index,
                "level": level(d.severity),
                "message": {"text": message},
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": location,
                        "region": {"startLine": line, "startColumn": column, "endLine": end_line, "endColumn": end_column.max(column)},
                    }
                }],
                "partialFingerprints": {"primaryLocationLineHash": fingerprint},
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
                            "artifactLocation": artifact_location(e.file.path(), root),
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
            "tool": {"driver": driver(rules)},
            "originalUriBaseIds": {SRCROOT: {"uri": format!("{}/", file_uri(root).trim_end_matches('/'))}},
            "results": results,
            "columnKind": "unicodeCodePoints",
        }],
    });
    serde_json::to_string_pretty(&sarif).unwrap_or_default() + "\n"
}

/// An absolute path as a `file://` URI (`file:///C:/...` on Windows).
fn file_uri(path: &Path) -> String {
    let text = uri(&path.to_string_lossy());
    if text.starts_with('/') { format!("file://{text}") } else { format!("file:///{text}") }
}

/// A path as a URI reference: forward slashes, and every byte outside
/// RFC 3986's unreserved characters and `/` percent-encoded (a space, `#`,
/// `%`, `?` in a file name would otherwise change what the URI means).
fn uri(path: &str) -> String {
    let path = path.replace('\\', "/");
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~' | b'/' | b'@' | b'+') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// The tool: its name, version and rules, and `informationUri` where the book is served (§3.19.17, optional).
fn driver(rules: Vec<Value>) -> Value {
    let mut driver = json!({"name": "trainlint", "version": env!("CARGO_PKG_VERSION"), "rules": rules});
    if let Some(home) = crate::diagnostic::rule::homepage() {
        driver["informationUri"] = format!("{home}/").into();
    }
    driver
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_line_twice_is_told_apart_by_its_occurrence() {
        let mut seen = HashMap::new();
        let first = line_hash("SCH004", "a.yaml", "  devices: 2", &mut seen);
        let second = line_hash("SCH004", "a.yaml", "devices: 2  ", &mut seen);
        let other_rule = line_hash("SCH003", "a.yaml", "devices: 2", &mut seen);
        assert_eq!(first.split_once(':').unwrap().0, second.split_once(':').unwrap().0, "trimmed text");
        assert!(first.ends_with(":1") && second.ends_with(":2"), "{first} {second}");
        assert_ne!(first.split_once(':').unwrap().0, other_rule.split_once(':').unwrap().0);
        // FNV-1a is fixed: the value is the same on every build.
        assert_eq!(line_hash("A", "b", "c", &mut HashMap::new()), "ea7d0ea1d4f5a327:1".replace("ea7d0ea1d4f5a327", &format!("{:016x}", fnv(b"A\0b\0c"))));
    }

    fn fnv(bytes: &[u8]) -> u64 {
        bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3))
    }

    #[test]
    fn uris_escape_what_would_change_their_meaning() {
        assert_eq!(uri("configs/my run#2.yaml"), "configs/my%20run%232.yaml");
        assert_eq!(uri(r"configs\a.yaml"), "configs/a.yaml");
    }
}
