//! The Rust types behind trainlint's JSON Schemas, and their generation.
//!
//! `schemas/*.schema.json` are generated from these types with schemars and
//! committed; `tests/schemas.rs` fails when they are stale
//! (`TRAINLINT_WRITE_SCHEMAS=1 cargo test --test schemas` rewrites them).

pub(crate) mod gpu_target;
pub mod manifest;
pub mod role;
pub mod stage;
pub(crate) mod training_config;
pub mod typed;
pub mod validate;
pub mod version;

pub(crate) use gpu_target::GpuTarget;
pub(crate) use manifest::Manifest;
pub use role::Role;
pub(crate) use stage::CurriculumStage;
pub(crate) use training_config::TrainingConfig;

/// The schema names `trainlint schema NAME` accepts, in listing order.
pub(crate) const NAMES: [&str; 4] = ["training-config", "curriculum-stage", "gpu-target", "manifest"];

/// The JSON Schema (draft 2020-12) of one of `NAMES`.
pub fn schema(name: &str) -> Option<serde_json::Value> {
    let schema = match name {
        "training-config" => schemars::schema_for!(TrainingConfig),
        "curriculum-stage" => schemars::schema_for!(CurriculumStage),
        "gpu-target" => schemars::schema_for!(GpuTarget),
        "manifest" => schemars::schema_for!(Manifest),
        _ => return None,
    };
    Some(with_header_first(name, schema.to_value()))
}

/// `$schema`, `$id`, `title` and `description` first, as people expect to read them.
pub(crate) fn with_header_first(name: &str, value: serde_json::Value) -> serde_json::Value {
    let serde_json::Value::Object(mut map) = value else { return value };
    let mut ordered = serde_json::Map::new();
    // A URN, not a URL on a domain the project does not have: the id names the schema (JSON
    // Schema 2020-12 §8.2.1: `$id` is a URI, resolution is not required), `schemas/{name}.schema.json`
    // is where it is.
    map.insert("$id".into(), format!("urn:trainlint:schema:{name}").into());
    for key in ["$schema", "$id", "title", "description"] {
        if let Some(v) = map.remove(key) {
            ordered.insert(key.into(), v);
        }
    }
    ordered.extend(map);
    serde_json::Value::Object(ordered)
}

/// The committed text of a schema file: pretty JSON with a final newline.
pub(crate) fn schema_text(name: &str) -> Option<String> {
    let value = schema(name)?;
    let mut text = serde_json::to_string_pretty(&value).ok()?;
    text.push('\n');
    Some(text)
}
