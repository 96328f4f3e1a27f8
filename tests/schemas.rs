//! `schemas/*.schema.json` (the formats trainlint reads and the JSON each
//! command prints) are generated from the Rust types and committed.
//! This test fails when one is stale; `TRAINLINT_WRITE_SCHEMAS=1 cargo test
//! --test schemas` rewrites them.

mod common;

use trainlint::commands::schema::{names, text};
use trainlint::schema::{self, Role};

#[test]
fn committed_schemas_are_current() {
    let write = std::env::var_os("TRAINLINT_WRITE_SCHEMAS").is_some_and(|v| v == "1");
    let mut stale = Vec::new();
    for name in names() {
        let path = common::repo().join("schemas").join(format!("{name}.schema.json"));
        let expected = text(name).expect("known schema");
        if write {
            std::fs::write(&path, &expected).expect("write schema");
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(expected.as_str()) {
            stale.push(path.display().to_string());
        }
    }
    assert!(stale.is_empty(), "stale schemas (run `TRAINLINT_WRITE_SCHEMAS=1 cargo test --test schemas`): {stale:?}");
}

#[test]
fn schema_command_prints_the_committed_file() {
    for name in names() {
        let output = common::trainlint(&["schema", name]);
        assert!(output.status.success(), "{name}");
        let committed = std::fs::read_to_string(common::repo().join(format!("schemas/{name}.schema.json"))).unwrap();
        assert_eq!(common::stdout(&output), committed, "{name}");
    }
}

/// Every role annotation in the native schema matches the native bindings table, and back.
#[test]
fn schema_roles_agree_with_native_bindings() {
    let schema = schema::schema("training-config").unwrap();
    let mut annotated = Vec::new();
    collect_roles(&schema, &schema, "", &mut annotated);
    annotated.sort();
    let mut bound: Vec<(String, String)> = trainlint::dialects::native::BINDINGS.iter().map(|(r, p)| (p.to_string(), r.name().to_string())).collect();
    bound.sort();
    assert_eq!(annotated, bound);
    for (_, role) in &annotated {
        assert!(Role::from_name(role).is_some(), "unknown role {role}");
    }
}

fn collect_roles(root: &serde_json::Value, node: &serde_json::Value, path: &str, out: &mut Vec<(String, String)>) {
    let Some(properties) = node.get("properties").and_then(|p| p.as_object()) else { return };
    for (key, property) in properties {
        let dotted = if path.is_empty() { key.clone() } else { format!("{path}.{key}") };
        if let Some(role) = property.pointer("/x-trainlint/role").and_then(|r| r.as_str()) {
            out.push((dotted.clone(), role.to_owned()));
        }
        let target = deref(root, property);
        collect_roles(root, target, &dotted, out);
    }
}

fn deref<'a>(root: &'a serde_json::Value, node: &'a serde_json::Value) -> &'a serde_json::Value {
    if let Some(r) = node.get("$ref").and_then(|r| r.as_str()) {
        return root.pointer(&r[1..]).unwrap_or(node);
    }
    if let Some(branch) = node.get("anyOf").and_then(|a| a.as_array()).and_then(|a| a.iter().find(|b| b.get("$ref").is_some())) {
        return deref(root, branch);
    }
    node
}

/// A stage repeats the base config's fields (serde cannot flatten with
/// `deny_unknown_fields`): every stage field must be a config field with the
/// same role, so an edit to one struct that forgets the other fails here.
#[test]
fn stage_fields_are_config_fields_with_the_same_roles() {
    let config = schema::schema("training-config").unwrap();
    let stage = schema::schema("curriculum-stage").unwrap();
    let config_keys = config["properties"].as_object().unwrap();
    for key in stage["properties"].as_object().unwrap().keys() {
        assert!(config_keys.contains_key(key), "stage field `{key}` is not a training-config field");
    }
    let (mut config_roles, mut stage_roles) = (Vec::new(), Vec::new());
    collect_roles(&config, &config, "", &mut config_roles);
    collect_roles(&stage, &stage, "", &mut stage_roles);
    for role in &stage_roles {
        assert!(config_roles.contains(role), "stage role {role:?} differs from the training config's");
    }
    assert!(!stage_roles.is_empty());
}
