//! SCH rules: files that cannot be read, and native-format configs that do not
//! match their JSON Schema.

pub(crate) mod dialect_keys;
pub(crate) mod duplicate_key;
pub mod interpolation;
pub(crate) mod interpolation_error;
pub(crate) mod invalid_syntax;
pub(crate) mod missing_config;
pub(crate) mod pyyaml_float_as_string;
pub(crate) mod schema_violation;
pub mod unknown_key;
pub(crate) mod unresolved_value;

use crate::load::{Document, Node};
use crate::rules::Checker;
use crate::schema::validate::{ErrorKind, ValidationError, Validator};
use serde_json::Value as Json;
use std::sync::OnceLock;

/// A compiled schema and its JSON (kept to look up known keys for suggestions).
pub struct CompiledSchema {
    pub json: Json,
    validator: Validator,
}

/// The compiled schema `name` (one of `crate::schema::NAMES`), compiled once per process.
pub(crate) fn compiled(name: &str) -> &'static CompiledSchema {
    static TRAINING: OnceLock<CompiledSchema> = OnceLock::new();
    static STAGE: OnceLock<CompiledSchema> = OnceLock::new();
    let cell = match name {
        "curriculum-stage" => &STAGE,
        _ => &TRAINING,
    };
    let name = if name == "curriculum-stage" { name } else { "training-config" };
    cell.get_or_init(|| {
        let json = crate::schema::schema(name).expect("built-in schema name");
        // `validate::tests` compiles every built-in schema, so this holds for each release.
        let validator = Validator::new(&json).expect("built-in schemas use only the keywords the validator implements");
        CompiledSchema { json, validator }
    })
}

/// Validates a loaded native-format config against a schema: unknown keys
/// become SCH003 at the key, every other violation SCH002 at the value.
pub fn validate(checker: &mut Checker, document: &Document, root: &Node, schema: &CompiledSchema) {
    let instance = root.to_json();
    for error in schema.validator.iter_errors(&instance) {
        report(checker, document, root, schema, &error, None);
    }
}

/// Validates a config as launched (`tree`: the file with `--set` and launch overrides applied)
/// and reports only the violations at a value an override set: a `--set batch.micro_batch=0`
/// is SCH002 as the same value in the file is (issue 26 item 7b), never fail-open. The file's
/// own values are `validate`'s.
pub(crate) fn validate_overrides(checker: &mut Checker, document: &Document, tree: &Node, schema: &CompiledSchema, sets: &[(String, String)]) {
    let instance = tree.to_json();
    for error in schema.validator.iter_errors(&instance) {
        report(checker, document, tree, schema, &error, Some(sets));
    }
}

/// A value set by an override: written in no file (`resolve::hydra::set_override`).
fn is_override(node: &Node) -> bool {
    node.span == (0..0) && node.alias == Some(0..0)
}

fn report(checker: &mut Checker, document: &Document, root: &Node, schema: &CompiledSchema, error: &ValidationError<'_>, sets: Option<&[(String, String)]>) {
    let pointer = error.instance_path.as_str();
    let Some((node, key_span)) = root.pointer(pointer) else { return };
    // Over a tree with overrides: only a value an override set (the rest is the file's).
    let set_by = match sets {
        None => None,
        Some(_) if !is_override(node) && !matches!(error.kind, ErrorKind::AnyOf { .. } | ErrorKind::OneOfNotValid { .. }) => return,
        Some(sets) => {
            let path = schema_violation::dotted(pointer);
            Some(match sets.iter().find(|(key, _)| key.trim_start_matches('+') == path) {
                Some((key, value)) => format!("`--set {key}={value}`"),
                None => "a launch override".to_owned(),
            })
        }
    };
    let report_one = |checker: &mut Checker, diagnostic: crate::diagnostic::Diagnostic| {
        let diagnostic = match &set_by {
            Some(by) => {
                let message = format!("{} (from {by}, in no file)", diagnostic.message);
                crate::diagnostic::Diagnostic { message, ..diagnostic }.with_label("set on the command line")
            }
            None => diagnostic,
        };
        checker.report(diagnostic);
    };
    match &error.kind {
        ErrorKind::AdditionalProperties { unexpected } => {
            let known = known_keys(&schema.json, pointer);
            // Looked up lazily: a key's entry is a search of the mapping, so only the keys listed
            // and the first of the rest are looked up (the rest are counted).
            let mut entries = unexpected.iter().filter_map(|key| node.entry(key)).filter(|entry| sets.is_none() || is_override(&entry.value));
            for entry in entries.by_ref().take(unknown_key::MOST_PER_MAPPING) {
                report_one(checker, unknown_key::diagnostic(document, pointer, entry, &known));
            }
            if let Some(first) = entries.next() {
                let more = if sets.is_none() { unexpected.len() - unknown_key::MOST_PER_MAPPING } else { 1 + entries.count() };
                report_one(checker, unknown_key::the_rest(document, pointer, first, more));
            }
        }
        // schemars writes an optional struct or enum as `anyOf: [T, null]`: the
        // errors that matter are those of the one non-null branch, each at its own path.
        ErrorKind::AnyOf { context } | ErrorKind::OneOfNotValid { context } => {
            let branches: Vec<_> = context.iter().filter(|branch| !is_null_branch(branch)).collect();
            match branches.as_slice() {
                [only] if !only.is_empty() => {
                    for inner in only.iter() {
                        report(checker, document, root, schema, inner, sets);
                    }
                }
                _ if sets.is_some() && !is_override(node) => {}
                _ => {
                    let message = format!("{} matches none of the allowed forms", short(error.instance));
                    report_one(checker, schema_violation::diagnostic(document, pointer, node, key_span, message));
                }
            }
        }
        kind => {
            let message = describe(kind, error.instance, &error.to_string());
            report_one(checker, schema_violation::diagnostic(document, pointer, node, key_span, message));
        }
    }
}

/// A branch whose only complaint is "not null": the `null` half of an optional.
fn is_null_branch(branch: &[ValidationError<'_>]) -> bool {
    branch.iter().any(|e| matches!(&e.kind, ErrorKind::Type { expected } if expected[..] == ["null"]))
        || branch.iter().any(|e| matches!(e.kind, ErrorKind::Constant { expected } if expected.is_null()))
}

/// One message for one violation, in the user's terms.
fn describe(kind: &ErrorKind<'_>, instance: &Json, fallback: &str) -> String {
    match kind {
        ErrorKind::Type { expected } => {
            // One allowed type is named even when it is `null`; of several, `null` goes unsaid.
            let expected: Vec<&str> = if expected.len() == 1 { expected.clone() } else { expected.iter().copied().filter(|t| *t != "null").collect() };
            format!("expected {}, found {} {}", expected.join(" or "), json_type(instance), short(instance))
        }
        ErrorKind::Enum { options } => {
            let options = options.as_array().map(|o| o.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", ")).unwrap_or_default();
            format!("{} is not one of {}", short(instance), options)
        }
        ErrorKind::Minimum { limit } => format!("{} is less than the minimum of {limit}", short(instance)),
        ErrorKind::Maximum { limit } => format!("{} is greater than the maximum of {limit}", short(instance)),
        ErrorKind::Required { property } => format!("missing required key {}", Json::from(*property)),
        _ => fallback.to_owned(),
    }
}

fn json_type(value: &Json) -> &'static str {
    match value {
        Json::Null => "null",
        Json::Bool(_) => "boolean",
        Json::Number(n) if n.is_f64() => "number",
        Json::Number(_) => "integer",
        Json::String(_) => "string",
        Json::Array(_) => "list",
        Json::Object(_) => "mapping",
    }
}

fn short(value: &Json) -> String {
    let text = value.to_string();
    if text.chars().count() > 40 { format!("{}…", text.chars().take(39).collect::<String>()) } else { text }
}

/// The property names the schema allows at an instance pointer.
pub(crate) fn known_keys(schema: &Json, pointer: &str) -> Vec<String> {
    let mut current = resolve(schema, schema);
    if !pointer.is_empty() {
        for segment in pointer.trim_start_matches('/').split('/') {
            let next = current
                .get("properties")
                .and_then(|p| p.get(segment))
                .or_else(|| current.get("items"))
                .or_else(|| current.get("additionalProperties").filter(|a| a.is_object()));
            match next {
                Some(next) => current = resolve(schema, next),
                None => return Vec::new(),
            }
        }
    }
    current.get("properties").and_then(Json::as_object).map(|p| p.keys().cloned().collect()).unwrap_or_default()
}

/// Follows `$ref` into `$defs`, and into the non-null branch of an `anyOf`.
fn resolve<'s>(root: &'s Json, mut node: &'s Json) -> &'s Json {
    for _ in 0..16 {
        if let Some(reference) = node.get("$ref").and_then(Json::as_str) {
            match reference.strip_prefix("#/$defs/").and_then(|name| root.get("$defs")?.get(name)) {
                Some(target) => node = target,
                None => return node,
            }
        } else if let Some(branches) = node.get("anyOf").or_else(|| node.get("oneOf")).and_then(Json::as_array) {
            match branches.iter().find(|b| b.get("type") != Some(&Json::String("null".into()))) {
                Some(branch) => node = branch,
                None => return node,
            }
        } else {
            return node;
        }
    }
    node
}

pub(crate) use crate::diagnostic::suggest::suggest;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions() {
        let known: Vec<String> = ["micro_batch", "accumulation", "global_batch", "effective_batch"].iter().map(|s| s.to_string()).collect();
        assert_eq!(suggest("micro_bach", &known), Some("micro_batch"));
        assert_eq!(suggest("accumulaton", &known), Some("accumulation"));
        assert_eq!(suggest("micro-batch", &known), Some("micro_batch"));
        assert_eq!(suggest("learning_rate", &known), None);
    }

    #[test]
    fn known_keys_follow_refs_and_options() {
        let schema = crate::schema::schema("training-config").unwrap();
        assert!(known_keys(&schema, "/batch").contains(&"micro_batch".to_owned()));
        assert!(known_keys(&schema, "").contains(&"trainlint".to_owned()));
    }
}
