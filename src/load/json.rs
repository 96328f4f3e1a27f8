//! Strict JSON → `Node` tree, with jsonc-parser and every leniency off.
//!
//! The YAML parser is not used for JSON: it would accept `[1,2,]` and
//! comments, reject duplicate keys outright and lose precision on large
//! integers (dependencies.md §2). jsonc-parser bounds nesting at 512 levels.

use super::tree::{Entry, Node, ScalarStyle, Value};
use super::{DuplicateKey, LoadError};
use jsonc_parser::ast;
use jsonc_parser::common::Ranged;
use jsonc_parser::{CollectOptions, CommentCollectionStrategy, ParseOptions};

pub struct JsonTree {
    pub root: Node,
    pub duplicates: Vec<DuplicateKey>,
}

pub fn parse(text: &str) -> Result<JsonTree, LoadError> {
    let strict = ParseOptions {
        allow_comments: false,
        allow_loose_object_property_names: false,
        allow_trailing_commas: false,
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
        // jsonc-parser stops at 512 nested arrays or objects.
        if message.contains("nesting depth") {
            LoadError::TooDeep { span: range.start..range.end, limit: 512 }
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
            for property in object.properties {
                let key_range = property.name.range();
                let key_span = key_range.start..key_range.end;
                let key = property.name.into_string();
                let value = convert(property.value, duplicates);
                if let Some(existing) = entries.iter_mut().find(|e| e.key == key) {
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
