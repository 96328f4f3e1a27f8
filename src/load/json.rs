//! Strict JSON → `Node` tree, with jsonc-parser and every leniency off.
//!
//! The YAML parser is not used for JSON: it would accept `[1,2,]` and
//! comments, reject duplicate keys outright and lose precision on large
//! integers (dependencies.md §2). jsonc-parser bounds nesting at 512 levels.

use super::tree::{Entry, KeyIndex, Node, ScalarStyle, Value};
use super::{DuplicateKey, LoadError};
use jsonc_parser::ast;
use jsonc_parser::common::Ranged;
use jsonc_parser::{CollectOptions, CommentCollectionStrategy, ParseOptions};

pub struct JsonTree {
    pub root: Node,
    pub duplicates: Vec<DuplicateKey>,
}

pub(crate) fn parse(text: &str) -> Result<JsonTree, LoadError> {
    parse_with(text, false)
}

/// JSON with comments (`//`, `/* */`) and trailing commas, as TypeScript and
/// VS Code read `tsconfig.json` and `devcontainer.json`; nothing else relaxed.
pub(crate) fn parse_jsonc(text: &str) -> Result<JsonTree, LoadError> {
    parse_with(text, true)
}

fn parse_with(text: &str, jsonc: bool) -> Result<JsonTree, LoadError> {
    let strict = ParseOptions {
        allow_comments: jsonc,
        allow_trailing_commas: jsonc,
        allow_loose_object_property_names: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    };
    let collect = CollectOptions { comments: CommentCollectionStrategy::Off, tokens: false };
    let parsed = jsonc_parser::parse_to_ast(text, &collect, &strict).map_err(|error| {
        let range = error.range();
        let message = error.kind().to_string();
        // jsonc-parser counts 512 levels where an object counts twice (the
        // object and its property): it stops past 512 nested arrays but 256
        // nested objects. The message states the depth actually exceeded.
        if message.contains("nesting depth") {
            LoadError::TooDeep { span: range.start..range.end, limit: depth_at(text, range.start).saturating_sub(1) }
        } else {
            LoadError::Syntax { message, span: range.start..range.end }
        }
    })?;
    let mut duplicates = Vec::new();
    let root = match parsed.value {
        Some(value) => convert(value, &mut duplicates),
        None => return Err(LoadError::Empty),
    };
    Ok(JsonTree { root, duplicates })
}

fn convert(value: ast::Value<'_>, duplicates: &mut Vec<DuplicateKey>) -> Node {
    match value {
        ast::Value::StringLit(s) => {
            Node { value: Value::Str(s.value.into_owned()), span: s.range.start..s.range.end, alias: None, style: Some(ScalarStyle::DoubleQuoted), origin: 0 }
        }
        ast::Value::NumberLit(n) => scalar(number(n.value), n.range),
        ast::Value::BooleanLit(b) => scalar(Value::Bool(b.value), b.range),
        ast::Value::NullKeyword(n) => scalar(Value::Null, n.range),
        ast::Value::Array(array) => {
            Node::new(Value::Seq(array.elements.into_iter().map(|e| convert(e, duplicates)).collect()), array.range.start..array.range.end)
        }
        ast::Value::Object(object) => {
            let span = object.range.start..object.range.end;
            let mut entries: Vec<Entry> = Vec::with_capacity(object.properties.len());
            let mut index = KeyIndex::default();
            for property in object.properties {
                let key_range = property.name.range();
                let key_span = key_range.start..key_range.end;
                let key = property.name.into_string();
                let value = convert(property.value, duplicates);
                if let Some(existing) = index.position(&entries, &key).map(|i| &mut entries[i]) {
                    // serde_json and Python's json keep the last value.
                    duplicates.push(DuplicateKey { key, first: existing.key_span.clone(), second: key_span.clone() });
                    existing.key_span = key_span;
                    existing.value = value;
                } else {
                    entries.push(Entry { key, key_span, key_origin: 0, value });
                }
            }
            Node::new(Value::Map(entries), span)
        }
    }
}

/// How many arrays and objects are open at byte `offset`, counting one that
/// opens there (strings skipped).
fn depth_at(text: &str, offset: usize) -> usize {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for &b in text.as_bytes().iter().take(offset.saturating_add(1)) {
        match (in_string, b) {
            (true, _) if escaped => escaped = false,
            (true, b'\\') => escaped = true,
            (true, b'"') => in_string = false,
            (true, _) => {}
            (false, b'"') => in_string = true,
            (false, b'[' | b'{') => depth += 1,
            (false, b']' | b'}') => depth = depth.saturating_sub(1),
            (false, _) => {}
        }
    }
    depth
}

fn scalar(value: Value, range: jsonc_parser::common::Range) -> Node {
    Node { value, span: range.start..range.end, alias: None, style: Some(ScalarStyle::Plain), origin: 0 }
}

fn number(text: &str) -> Value {
    if !text.contains(['.', 'e', 'E']) {
        if let Ok(i) = text.parse::<i64>() {
            return Value::Int(i);
        }
        if let Ok(u) = text.parse::<u64>() {
            return Value::UInt(u);
        }
    }
    text.parse::<f64>().map_or_else(|_| Value::Str(text.to_owned()), Value::Float)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 13 item 20: 257 nested objects were reported as "deeper than 512 levels".
    #[test]
    fn the_depth_message_states_the_limit_that_was_hit() {
        let objects = |n: usize| format!("{}1{}", "{\"a\":".repeat(n), "}".repeat(n));
        assert!(parse(&objects(256)).is_ok());
        assert!(matches!(parse(&objects(257)), Err(LoadError::TooDeep { limit: 256, .. })), "{:?}", parse(&objects(257)).err());
        let arrays = |n: usize| format!("{}1{}", "[".repeat(n), "]".repeat(n));
        assert!(parse(&arrays(512)).is_ok());
        assert!(matches!(parse(&arrays(513)), Err(LoadError::TooDeep { limit: 512, .. })), "{:?}", parse(&arrays(513)).err());
    }

    /// Issue 13 item 5: the duplicate-key check is linear (10^5 keys took 26.6 s).
    #[test]
    fn a_hundred_thousand_keys_load_in_linear_time() {
        let text = format!("{{{}, \"k7\": 0}}", (0..100_000).map(|i| format!("\"k{i}\": {i}")).collect::<Vec<_>>().join(", "));
        let start = std::time::Instant::now();
        let tree = parse(&text).unwrap();
        assert!(start.elapsed() < std::time::Duration::from_secs(30), "{:?}", start.elapsed());
        assert_eq!(tree.duplicates.len(), 1);
        assert_eq!(tree.root.get("k7").unwrap().value, Value::Int(0));
        assert_eq!(tree.root.entries().unwrap().len(), 100_000);
    }
}
