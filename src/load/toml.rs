//! TOML → `Node` tree with byte spans, through the `toml` crate's spanned document
//! (`toml::de::DeTable::parse`: every key and value is a `serde_spanned::Spanned`), the
//! crate the manifest reader already uses: no second TOML parser.
//!
//! Python's `tomllib` (what torchtitan reads its configs with, `torchtitan/config/manager.py`)
//! and the `toml` crate both implement TOML 1.0/1.1: a key defined twice is an error in both,
//! so a TOML tree has no duplicate keys to record. `DeTable` keeps its entries in key order;
//! the tree keeps them in the order the file writes them (by key span).
//!
//! Scalars keep their style so that fixes replace a value byte-exactly (`yaml_edit::replace_scalar`):
//! integers, floats, booleans and datetimes are `Plain`, a basic string `"…"` is `DoubleQuoted`,
//! a literal string `'…'` is `SingleQuoted`, and multi-line strings (`"""`, `'''`) are `Literal`,
//! which no fix edits.

use super::LoadError;
use super::tree::{Entry, Node, ScalarStyle, Value};
use toml::de::{DeTable, DeValue};

/// The `toml` crate's own bound on nesting (arrays, inline tables, dotted keys:
/// `toml/src/de/parser/mod.rs`, `LIMIT`, through `toml_parser`'s `RecursionGuard`): deeper
/// input is an error before anything recurses, reported as `TooDeep`.
pub(crate) const MAX_DEPTH: usize = 80;

pub(crate) fn parse(text: &str) -> Result<Node, LoadError> {
    let document = DeTable::parse(text).map_err(|error| {
        let span = error.span().unwrap_or(0..0);
        let message = error.message().trim().to_owned();
        if message.contains("recursion") { LoadError::TooDeep { span, limit: MAX_DEPTH } } else { LoadError::Syntax { message, span } }
    })?;
    let span = document.span();
    Ok(Node::new(Value::Map(table(document.into_inner(), text)), span))
}

fn table(table: DeTable<'_>, text: &str) -> Vec<Entry> {
    let mut entries: Vec<Entry> = table
        .into_iter()
        .map(|(key, value)| {
            let key_span = key.span();
            let span = value.span();
            Entry { key: key.into_inner().into_owned(), key_span, key_origin: 0, value: node(value.into_inner(), span, text) }
        })
        .collect();
    entries.sort_by_key(|e| e.key_span.start);
    entries
}

fn node(value: DeValue<'_>, span: std::ops::Range<usize>, text: &str) -> Node {
    let scalar = |value: Value, style: ScalarStyle, span: std::ops::Range<usize>| Node { value, span, alias: None, style: Some(style), origin: 0 };
    match value {
        DeValue::String(s) => {
            let written = text.get(span.clone()).unwrap_or_default();
            let style = if written.starts_with("\"\"\"") || written.starts_with("'''") {
                ScalarStyle::Literal
            } else if written.starts_with('\'') {
                ScalarStyle::SingleQuoted
            } else {
                ScalarStyle::DoubleQuoted
            };
            scalar(Value::Str(s.into_owned()), style, span)
        }
        DeValue::Integer(i) => {
            let value = i64::from_str_radix(i.as_str(), i.radix())
                .map(Value::Int)
                .or_else(|_| u64::from_str_radix(i.as_str(), i.radix()).map(Value::UInt))
                .unwrap_or_else(|_| Value::Str(i.as_str().to_owned()));
            scalar(value, ScalarStyle::Plain, span)
        }
        DeValue::Float(f) => {
            let value = f.as_str().parse::<f64>().map_or_else(|_| Value::Str(f.as_str().to_owned()), Value::Float);
            scalar(value, ScalarStyle::Plain, span)
        }
        DeValue::Boolean(b) => scalar(Value::Bool(b), ScalarStyle::Plain, span),
        DeValue::Datetime(d) => scalar(Value::Str(d.to_string()), ScalarStyle::Plain, span),
        DeValue::Array(items) => Node::new(
            Value::Seq(
                items
                    .into_iter()
                    .map(|item| {
                        let span = item.span();
                        node(item.into_inner(), span, text)
                    })
                    .collect(),
            ),
            span,
        ),
        DeValue::Table(t) => Node::new(Value::Map(table(t, text)), span),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "# a comment\n[training]\nlocal_batch_size = 8  # per rank\nseq_len = 2_048\ndataset = \"c4\"\nlit = 'x'\n\n[parallelism]\ndata_parallel_shard_degree = -1\n\n[quantize.linear.float8]\nfilter_fqns = [\"output\"]\nlr = 3e-4\n";

    #[test]
    fn keys_and_values_keep_their_bytes() {
        let root = parse(TEXT).unwrap();
        let entry = root.entry_dotted("training.local_batch_size").unwrap();
        assert_eq!(&TEXT[entry.key_span.clone()], "local_batch_size");
        assert_eq!(&TEXT[entry.value.span.clone()], "8");
        assert_eq!(entry.value.value, Value::Int(8));
        let seq = root.get_dotted("training.seq_len").unwrap();
        assert_eq!((&TEXT[seq.span.clone()], &seq.value), ("2_048", &Value::Int(2048)));
        let dataset = root.get_dotted("training.dataset").unwrap();
        assert_eq!((&TEXT[dataset.span.clone()], dataset.style), ("\"c4\"", Some(ScalarStyle::DoubleQuoted)));
        assert_eq!(root.get_dotted("training.lit").unwrap().style, Some(ScalarStyle::SingleQuoted));
        let shard = root.entry_dotted("parallelism.data_parallel_shard_degree").unwrap();
        assert_eq!((&TEXT[shard.key_span.clone()], &TEXT[shard.value.span.clone()]), ("data_parallel_shard_degree", "-1"));
        assert_eq!(root.get_dotted("quantize.linear.float8.lr").unwrap().value, Value::Float(3e-4));
        assert!(matches!(&root.get_dotted("quantize.linear.float8.filter_fqns").unwrap().value, Value::Seq(items) if items.len() == 1));
        let keys: Vec<&str> = root.entries().unwrap().iter().map(|e| e.key.as_str()).collect();
        assert_eq!(keys, ["training", "parallelism", "quantize"], "the file's order");
    }

    #[test]
    fn errors_are_syntax_with_a_span_and_duplicates_are_errors() {
        assert!(matches!(parse("[training]\nlocal_batch_size = \n"), Err(LoadError::Syntax { .. })));
        let Err(LoadError::Syntax { message, span }) = parse("[a]\nx = 1\nx = 2\n") else { panic!("a duplicate key is a TOML error") };
        assert!(message.contains("duplicate"), "{message}");
        assert!(span.start > 0);
        // YAML is not TOML.
        assert!(parse("training:\n  local_batch_size: 8\n").is_err());
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let deep = format!("a = {}1{}\n", "[".repeat(20_000), "]".repeat(20_000));
        assert!(matches!(parse(&deep), Err(LoadError::TooDeep { limit: MAX_DEPTH, .. })));
        let inline = format!("a = {}1{}\n", "{b = ".repeat(300), "}".repeat(300));
        assert!(matches!(parse(&inline), Err(LoadError::TooDeep { .. })));
        let fine = format!("[t]\na = {}1{}\ns = \"[[[[\"\n", "[".repeat(50), "]".repeat(50));
        assert!(parse(&fine).is_ok());
    }
}
