//! ENV rules: PyTorch caching-allocator settings (`PYTORCH_ALLOC_CONF`, and the
//! deprecated `PYTORCH_CUDA_ALLOC_CONF` / `PYTORCH_HIP_ALLOC_CONF`) wherever a
//! config sets them, validated as `c10/core/AllocatorConfig.cpp` parses them
//! (FACTS.md §5).

pub(crate) mod ineffective_allocator_option;
pub(crate) mod invalid_allocator_config;

use crate::load::{Document, Node, Value};
use crate::rules::Checker;
use crate::source::Span;

pub(crate) const VARIABLES: [&str; 3] = ["PYTORCH_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_HIP_ALLOC_CONF"];

/// One `key:value` option of an allocator string, with its span in the file.
#[derive(Clone, Debug)]
pub struct AllocOption {
    pub key: String,
    pub value: String,
    pub span: Span,
}

/// Every allocator string in a document: `PYTORCH_ALLOC_CONF: "..."` entries and
/// `"PYTORCH_ALLOC_CONF=..."` strings (env lists, command lines).
pub(crate) fn allocator_settings(root: &Node) -> Vec<(String, &Node)> {
    let mut out = Vec::new();
    collect(root, &mut out);
    out
}

fn collect<'a>(node: &'a Node, out: &mut Vec<(String, &'a Node)>) {
    match &node.value {
        Value::Map(entries) => {
            for entry in entries {
                if VARIABLES.contains(&entry.key.as_str()) && entry.value.as_str().is_some() {
                    out.push((entry.key.clone(), &entry.value));
                } else {
                    collect(&entry.value, out);
                }
            }
        }
        Value::Seq(items) => items.iter().for_each(|item| collect(item, out)),
        Value::Str(text) => {
            for variable in VARIABLES {
                if text.strip_prefix(variable).is_some_and(|rest| rest.starts_with('=')) {
                    out.push((variable.to_owned(), node));
                }
            }
        }
        _ => {}
    }
}

/// Splits `key:value,key:[a:1,b:2]` into options, each with its span in the
/// file when the scalar's source text contains it verbatim (else the value's span).
pub(crate) fn parse(document: &Document, node: &Node) -> Vec<AllocOption> {
    let Some(text) = node.as_str() else { return Vec::new() };
    let raw = document.source.text().get(node.span.clone()).unwrap_or("");
    let body = text.split_once('=').filter(|(name, _)| VARIABLES.contains(name)).map_or(text, |(_, rest)| rest);
    let mut options = Vec::new();
    let mut depth = 0;
    let mut start = 0;
    let bytes: Vec<char> = body.chars().collect();
    let mut pieces = Vec::new();
    for (i, c) in bytes.iter().enumerate() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            ',' if depth == 0 => {
                pieces.push(bytes[start..i].iter().collect::<String>());
                start = i + 1;
            }
            _ => {}
        }
    }
    pieces.push(bytes[start..].iter().collect::<String>());
    let mut cursor = 0;
    for piece in pieces {
        let trimmed = piece.trim();
        if trimmed.is_empty() {
            continue;
        }
        let (key, value) = trimmed.split_once(':').map_or((trimmed, ""), |(k, v)| (k.trim(), v.trim()));
        let span = match raw[cursor..].find(trimmed) {
            Some(offset) => {
                cursor += offset + trimmed.len();
                let start = node.span.start + cursor - trimmed.len();
                start..start + trimmed.len()
            }
            None => node.span.clone(),
        };
        options.push(AllocOption { key: key.to_owned(), value: value.to_owned(), span });
    }
    options
}

pub fn check(checker: &mut Checker, document: &Document, root: &Node) {
    for (variable, node) in allocator_settings(root) {
        let options = parse(document, node);
        let mut invalid = Vec::new();
        for option in &options {
            if let Some(problem) = invalid_allocator_config::problem(option) {
                checker.report(invalid_allocator_config::diagnostic(document, &variable, option, &problem));
                invalid.push(option.span.clone());
            }
        }
        // An option PyTorch rejects is not also reported as ineffective.
        for (option, why) in ineffective_allocator_option::problems(&options) {
            if !invalid.contains(&option.span) {
                checker.report(ineffective_allocator_option::diagnostic(document, &variable, option, &why));
            }
        }
    }
}
