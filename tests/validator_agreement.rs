//! trainlint's own JSON Schema validator (`trainlint::schema::validate`) against
//! its peer, the `jsonschema` crate it replaced (now a dev-dependency): over every
//! fixture and corpus config, and over variations of every native one, both
//! validators see the same errors: the same kinds, instance paths, messages
//! and branch errors of `anyOf`, so SCH002 and SCH003 report what they did.
//!
//! Errors are compared path by path: the linter sorts diagnostics by position,
//! so only the order of errors at one instance path reaches a user.

mod common;

use jsonschema::error::{TypeKind, ValidationErrorKind};
use serde_json::{Value as Json, json};
use std::path::{Path, PathBuf};
use trainlint::load::{self, Format};
use trainlint::schema::validate::{ErrorKind, ValidationError, Validator};

/// The schemas SCH002 validates against.
const VALIDATED: [&str; 2] = ["training-config", "curriculum-stage"];

/// One error, as both validators can describe it: instance path, message, kind, branch errors.
#[derive(Debug, PartialEq)]
struct Seen {
    path: String,
    message: String,
    kind: String,
    branches: Vec<Vec<Seen>>,
}

fn by_path(mut errors: Vec<Seen>) -> Vec<Seen> {
    errors.sort_by(|a, b| a.path.cmp(&b.path));
    errors
}

fn ours(error: &ValidationError<'_>) -> Seen {
    let (kind, branches) = match &error.kind {
        ErrorKind::Type { expected } => (format!("type {}", expected.join(",")), None),
        ErrorKind::Constant { expected } => (format!("const {expected}"), None),
        ErrorKind::Enum { options } => (format!("enum {options}"), None),
        ErrorKind::Minimum { limit } => (format!("minimum {limit}"), None),
        ErrorKind::Maximum { limit } => (format!("maximum {limit}"), None),
        ErrorKind::ExclusiveMinimum { limit } => (format!("exclusiveMinimum {limit}"), None),
        ErrorKind::ExclusiveMaximum { limit } => (format!("exclusiveMaximum {limit}"), None),
        ErrorKind::MinItems { limit } => (format!("minItems {limit}"), None),
        ErrorKind::MaxItems { limit } => (format!("maxItems {limit}"), None),
        ErrorKind::Required { property } => (format!("required {}", Json::from(*property)), None),
        ErrorKind::AdditionalProperties { unexpected } => (format!("additionalProperties {unexpected:?}"), None),
        ErrorKind::FalseSchema => ("false".to_owned(), None),
        ErrorKind::AnyOf { context } => ("anyOf".to_owned(), Some(context)),
        ErrorKind::OneOfNotValid { context } => ("oneOf none".to_owned(), Some(context)),
        ErrorKind::OneOfMultipleValid { context } => ("oneOf several".to_owned(), Some(context)),
    };
    let branches = branches.map(|context| context.iter().map(|branch| by_path(branch.iter().map(ours).collect())).collect()).unwrap_or_default();
    Seen { path: error.instance_path.clone(), message: error.to_string(), kind, branches }
}

fn peer(error: &jsonschema::ValidationError<'_>) -> Seen {
    let (kind, branches) = match error.kind() {
        ValidationErrorKind::Type { kind: TypeKind::Single(t) } => (format!("type {t}"), None),
        ValidationErrorKind::Type { kind: TypeKind::Multiple(set) } => {
            (format!("type {}", set.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(",")), None)
        }
        ValidationErrorKind::Constant { expected_value } => (format!("const {expected_value}"), None),
        ValidationErrorKind::Enum { options } => (format!("enum {options}"), None),
        ValidationErrorKind::Minimum { limit } => (format!("minimum {limit}"), None),
        ValidationErrorKind::Maximum { limit } => (format!("maximum {limit}"), None),
        ValidationErrorKind::ExclusiveMinimum { limit } => (format!("exclusiveMinimum {limit}"), None),
        ValidationErrorKind::ExclusiveMaximum { limit } => (format!("exclusiveMaximum {limit}"), None),
        ValidationErrorKind::MinItems { limit } => (format!("minItems {limit}"), None),
        ValidationErrorKind::MaxItems { limit } => (format!("maxItems {limit}"), None),
        ValidationErrorKind::Required { property } => (format!("required {property}"), None),
        ValidationErrorKind::AdditionalProperties { unexpected } => (format!("additionalProperties {unexpected:?}"), None),
        ValidationErrorKind::FalseSchema => ("false".to_owned(), None),
        ValidationErrorKind::AnyOf { context } => ("anyOf".to_owned(), Some(context)),
        ValidationErrorKind::OneOfNotValid { context } => ("oneOf none".to_owned(), Some(context)),
        ValidationErrorKind::OneOfMultipleValid { context } => ("oneOf several".to_owned(), Some(context)),
        other => (format!("unexpected kind {other:?}"), None),
    };
    let branches = branches.map(|context| context.iter().map(|branch| by_path(branch.iter().map(peer).collect())).collect()).unwrap_or_default();
    Seen { path: error.instance_path().to_string(), message: error.to_string(), kind, branches }
}

struct Pair {
    name: &'static str,
    ours: Validator,
    peer: jsonschema::Validator,
}

fn pairs() -> Vec<Pair> {
    VALIDATED
        .iter()
        .map(|&name| {
            let schema = trainlint::schema::schema(name).expect("built-in schema");
            Pair { name, ours: Validator::new(&schema).expect("ours compiles"), peer: jsonschema::validator_for(&schema).expect("peer compiles") }
        })
        .collect()
}

/// Both validators over one instance; the disagreement, if any, as text.
fn disagreement(pair: &Pair, instance: &Json) -> Option<String> {
    let ours_errors = by_path(pair.ours.iter_errors(instance).iter().map(ours).collect());
    let peer_errors = by_path(pair.peer.iter_errors(instance).map(|e| peer(&e)).collect());
    let valid = (pair.ours.is_valid(instance), pair.peer.is_valid(instance));
    (ours_errors != peer_errors || valid.0 != valid.1)
        .then(|| format!("{} on {instance}:\n  ours {valid:?} {ours_errors:#?}\n  peer {peer_errors:#?}", pair.name))
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files(&path, out);
        } else if Format::from_path(&path).is_some() {
            out.push(path);
        }
    }
}

/// Every fixture and corpus file that parses, as JSON.
fn instances() -> Vec<(PathBuf, Json)> {
    let mut paths = Vec::new();
    files(&common::repo().join("fixtures"), &mut paths);
    match common::shared() {
        Some(shared) => files(&shared.join("corpus"), &mut paths),
        None => eprintln!("../shared is missing: fixtures only"),
    }
    paths.sort();
    paths
        .into_iter()
        .filter_map(|path| {
            let format = Format::from_path(&path)?;
            let text = std::fs::read_to_string(&path).ok()?;
            let (root, _) = load::parse_text(&text, format).ok()?;
            Some((path, root.to_json()))
        })
        .collect()
}

#[test]
fn both_validators_agree_on_every_fixture_and_corpus_file() {
    let pairs = pairs();
    let instances = instances();
    assert!(instances.len() > 150, "only {} files parsed", instances.len());
    let mut invalid = 0;
    let mut disagreements = Vec::new();
    for (path, instance) in &instances {
        for pair in &pairs {
            invalid += usize::from(!pair.peer.is_valid(instance));
            if let Some(text) = disagreement(pair, instance) {
                disagreements.push(format!("{}: {text}", path.display()));
            }
        }
    }
    assert!(disagreements.is_empty(), "{} disagreements; the first:\n{}", disagreements.len(), disagreements[0]);
    assert!(invalid > 0 && invalid < instances.len() * pairs.len(), "both valid and invalid instances were seen");
}

/// Each value of each native config (the files SCH002 checks) replaced in turn by
/// values of every type and edge: the errors those give agree too.
#[test]
fn both_validators_agree_on_variations_of_native_configs() {
    let pairs = pairs();
    let replacements = [
        json!(null),
        json!(true),
        json!(0),
        json!(-1),
        json!(1),
        json!(1.0),
        json!(1.5),
        json!(-0.5),
        json!(4294967296_u64),
        json!(1e300),
        json!(""),
        json!("fp8"),
        json!([]),
        json!([1, "a"]),
        json!({}),
        json!({"unknown": 1, "micro_batch": "x"}),
    ];
    let natives: Vec<Json> = instances().into_iter().map(|(_, instance)| instance).filter(|i| i.get("trainlint").is_some()).collect();
    assert!(!natives.is_empty(), "native fixtures exist");
    let mut checked = 0;
    let mut disagreements = Vec::new();
    for native in &natives {
        let mut pointers = Vec::new();
        leaves(native, String::new(), &mut pointers);
        for pointer in &pointers {
            for replacement in &replacements {
                let mut variant = native.clone();
                *variant.pointer_mut(pointer).expect("pointer from the tree") = replacement.clone();
                for pair in &pairs {
                    checked += 1;
                    if let Some(text) = disagreement(pair, &variant) {
                        disagreements.push(text);
                    }
                }
            }
        }
    }
    assert!(disagreements.is_empty(), "{} of {checked} disagree; the first:\n{}", disagreements.len(), disagreements[0]);
}

/// Hand-picked instances for what the files lack: a missing required key, a
/// closed object under an optional, non-string environment values, floats that
/// are integers.
#[test]
fn both_validators_agree_on_edge_cases() {
    let pairs = pairs();
    let cases = [
        json!({}),
        json!([]),
        json!("trainlint"),
        json!({"trainlint": 1.0, "batch": {"micro_batch": 2.0, "accumulation": 0.5}}),
        json!({"trainlint": 2, "batch": {"micro_batch": 0, "bogus": 1, "other": 2}, "env": {"A": 1, "B": "x", "C": null}}),
        json!({"trainlint": 1, "precision": "fp9", "optimizer": 3, "gpus": ["h100", 7], "settings": {"any": [1]}}),
        json!({"trainlint": -1, "model": {"parameters": -5, "layers": "x"}, "memory": {"bogus": {}}, "name": 5}),
        json!({"trainlint": 1, "parallel": {"devices": 18446744073709551615_u64, "nodes": -9223372036854775808_i64}}),
        json!({"micro_batch": 4, "name": "stage", "batch": null, "learning_rate": -0.0}),
    ];
    for case in &cases {
        for pair in &pairs {
            if let Some(text) = disagreement(pair, case) {
                panic!("{text}");
            }
        }
    }
}

/// The keywords only `estimate-output.schema.json` (validated in tests, not by
/// SCH002) or no schema yet uses, on a schema made to reach each of them.
#[test]
fn both_validators_agree_on_the_other_keywords() {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "required": ["version", "rows"],
        "properties": {
            "version": {"const": 1},
            "rows": {"type": "array", "minItems": 1, "maxItems": 2, "items": {"$ref": "#/$defs/Row"}},
            "closed": {"type": "object", "additionalProperties": false},
            "open": {"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": {"type": "string"}},
            "kind": {"enum": ["a", "b", "c", "d", "e"]},
            "few": {"enum": ["a", "b"]}
        },
        "$defs": {
            "Row": {
                "type": "object",
                "required": ["gib", "fits", "label"],
                "properties": {
                    "gib": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 80.5},
                    "fits": {"oneOf": [{"type": "boolean"}, {"type": "integer"}, {"type": "number", "minimum": 0}]},
                    "label": {"anyOf": [{"type": "string"}, {"type": "null"}]}
                }
            }
        }
    });
    let pair =
        Pair { name: "made-up", ours: Validator::new(&schema).expect("ours compiles"), peer: jsonschema::validator_for(&schema).expect("peer compiles") };
    let cases = [
        json!({"version": 1, "rows": [{"gib": 1.5, "fits": true, "label": null}]}),
        json!({"version": 1.0, "rows": []}),
        json!({"version": 2, "rows": [{}, {"gib": 0, "fits": 3, "label": 4}, {"gib": 80.5, "fits": -1.5}]}),
        json!({"rows": [{"gib": -1, "fits": "no", "label": "x"}], "closed": {"z": 1, "y": 2}, "open": {"a": "x", "b": 1, "c": "s"}}),
        json!({"version": [1], "rows": "none", "closed": {}, "kind": "f", "few": "c"}),
        json!({"version": 1, "rows": [{"gib": 80, "fits": 2.0, "label": null}], "kind": 1, "few": null}),
    ];
    for case in &cases {
        if let Some(text) = disagreement(&pair, case) {
            panic!("{text}");
        }
    }
}

fn leaves(value: &Json, pointer: String, out: &mut Vec<String>) {
    match value {
        Json::Object(map) => {
            for (key, child) in map {
                leaves(child, format!("{pointer}/{}", key.replace('~', "~0").replace('/', "~1")), out);
            }
        }
        Json::Array(items) => {
            for (index, child) in items.iter().enumerate() {
                leaves(child, format!("{pointer}/{index}"), out);
            }
        }
        _ => {}
    }
    if !pointer.is_empty() {
        out.push(pointer);
    }
}
