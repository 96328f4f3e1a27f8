//! YAML 1.2 → `Node` tree, from granit-parser's event stream.
//!
//! granit-parser gives byte spans that end at a quoted scalar's closing quote
//! (dependencies.md §1), bounds nesting (255 levels) and never panics. On top
//! of it this builder expands aliases under a budget, applies merge keys
//! (`<<:`), and records duplicate keys instead of failing on them.

use super::scalar::type_plain_scalar;
use super::tree::{Entry, Expansion, ExpansionBudget, KeyIndex, Node, ScalarStyle, Value};
use super::{DuplicateKey, LoadError};
use crate::source::Span;
use granit_parser::{Event, Parser, ScalarStyle as GranitStyle};
use std::collections::{HashMap, HashSet};

/// Deepest tree an alias may produce (granit limits written nesting to 255).
const MAX_DEPTH: usize = super::tree::MAX_TREE_DEPTH;

pub struct YamlTree {
    pub root: Node,
    pub duplicates: Vec<DuplicateKey>,
}

enum Frame {
    Seq { start: usize, anchor: usize, items: Vec<Node> },
    Map { start: usize, anchor: usize, entries: Vec<Entry>, index: KeyIndex, key: Option<(String, Span)>, merges: Vec<Node> },
}

struct Anchored {
    node: Node,
    /// What one copy of the node costs (nodes and bytes of text).
    size: Expansion,
    depth: usize,
}

pub(crate) fn parse(text: &str) -> Result<YamlTree, LoadError> {
    let options = granit_parser::options! {
        // PyYAML, ruamel.yaml and libyaml do not add a final line feed to a
        // block scalar that ends the file; the frameworks read YAML with them.
        block_scalar_eof_without_line_feed: true,
    };
    let mut parser = Parser::new_from_str_with_options(text, options);
    let mut builder =
        Builder { text, stack: Vec::new(), anchors: HashMap::new(), budget: ExpansionBudget::new(), duplicates: Vec::new(), root: None, documents: 0 };
    while let Some(result) = parser.next_event() {
        let (event, span) = result.map_err(|error| {
            let marker = error.marker();
            let offset = marker.byte_offset().unwrap_or_else(|| char_to_byte(text, marker.index()));
            let message = error.info();
            // granit stops at 255 nested collections (Options::*_nesting_limit).
            if message.contains("recursion limit") || message.contains("nesting limit") {
                LoadError::TooDeep { span: offset..offset, limit: 255 }
            } else {
                LoadError::Syntax { message, span: offset..offset }
            }
        })?;
        let range = byte_range(text, &span);
        builder.event(event, range)?;
    }
    let root = builder.root.unwrap_or_else(|| Node::new(Value::Null, 0..0));
    Ok(YamlTree { root, duplicates: builder.duplicates })
}

fn byte_range(text: &str, span: &granit_parser::Span) -> Span {
    span.byte_range().unwrap_or_else(|| char_to_byte(text, span.start.index())..char_to_byte(text, span.end.index()))
}

fn char_to_byte(text: &str, chars: usize) -> usize {
    text.char_indices().nth(chars).map_or(text.len(), |(i, _)| i)
}

struct Builder<'t> {
    text: &'t str,
    stack: Vec<Frame>,
    anchors: HashMap<usize, Anchored>,
    /// Aliases spend the expansion budget shared with interpolation.
    budget: ExpansionBudget,
    duplicates: Vec<DuplicateKey>,
    root: Option<Node>,
    documents: usize,
}

impl Builder<'_> {
    fn event(&mut self, event: Event<'_>, span: Span) -> Result<(), LoadError> {
        match event {
            Event::StreamStart | Event::StreamEnd | Event::DocumentEnd => {}
            Event::DocumentStart(..) => {
                self.documents += 1;
                if self.documents > 1 {
                    return Err(LoadError::MultiDocument { span });
                }
            }
            Event::Scalar(text, style, anchor, tag) => {
                let node = scalar_node(&text, style, tag.as_deref(), span);
                if anchor != 0 {
                    self.anchors.insert(anchor, Anchored { size: node.size(), depth: 1, node: node.clone() });
                }
                self.push(node)?;
            }
            Event::SequenceStart(_, anchor, _) => self.stack.push(Frame::Seq { start: span.start, anchor, items: Vec::new() }),
            Event::MappingStart(_, anchor, _) => {
                self.stack.push(Frame::Map { start: span.start, anchor, entries: Vec::new(), index: KeyIndex::default(), key: None, merges: Vec::new() })
            }
            Event::SequenceEnd => {
                if let Some(Frame::Seq { start, anchor, items }) = self.stack.pop() {
                    let node = Node::new(Value::Seq(items), start..span.end.max(start));
                    self.finish_collection(node, anchor)?;
                }
            }
            Event::MappingEnd => {
                if let Some(Frame::Map { start, anchor, mut entries, merges, .. }) = self.stack.pop() {
                    apply_merges(&mut entries, merges);
                    let node = Node::new(Value::Map(entries), start..span.end.max(start));
                    self.finish_collection(node, anchor)?;
                }
            }
            Event::Alias(id) => {
                let Some(anchored) = self.anchors.get(&id) else {
                    // An alias to a collection that is still open refers to itself.
                    return Err(LoadError::Syntax { message: "an alias refers to the collection that contains it (recursive alias)".into(), span });
                };
                if self.budget.charge(anchored.size).is_err() {
                    return Err(LoadError::AliasBudget { span, budget: self.budget.limit().nodes });
                }
                if self.stack.len() + anchored.depth > MAX_DEPTH {
                    return Err(LoadError::TooDeep { span, limit: MAX_DEPTH });
                }
                let mut node = anchored.node.clone();
                node.alias = Some(span);
                self.push(node)?;
            }
            _ => {}
        }
        Ok(())
    }

    fn finish_collection(&mut self, node: Node, anchor: usize) -> Result<(), LoadError> {
        if anchor != 0 {
            self.anchors.insert(anchor, Anchored { size: node.size(), depth: node.depth(), node: node.clone() });
        }
        self.push(node)
    }

    fn push(&mut self, node: Node) -> Result<(), LoadError> {
        match self.stack.last_mut() {
            None => self.root = Some(node),
            Some(Frame::Seq { items, .. }) => items.push(node),
            Some(Frame::Map { entries, index, key, merges, .. }) => match key.take() {
                None => {
                    let name = key_text(&node, self.text).ok_or_else(|| LoadError::Syntax {
                        message: "a mapping key must be a scalar (complex keys are not supported in training configs)".into(),
                        span: node.span.clone(),
                    })?;
                    *key = Some((name, node.span));
                }
                Some((name, key_span)) => {
                    if name == "<<" && is_plain_key(self.text, &key_span) {
                        merges.push(node);
                    } else if let Some(existing) = index.position(entries, &name).map(|i| &mut entries[i]) {
                        // PyYAML keeps the last value; OmegaConf refuses. SCH004 reports it.
                        self.duplicates.push(DuplicateKey { key: name, first: existing.key_span.clone(), second: key_span.clone() });
                        existing.key_span = key_span;
                        existing.value = node;
                    } else {
                        entries.push(Entry { key: name, key_span, key_origin: 0, value: node });
                    }
                }
            },
        }
        Ok(())
    }
}

fn is_plain_key(text: &str, span: &Span) -> bool {
    text.get(span.clone()) == Some("<<")
}

/// The key of a mapping entry: scalars by their text, as PyYAML would print them.
fn key_text(node: &Node, text: &str) -> Option<String> {
    Some(match &node.value {
        Value::Str(s) => s.clone(),
        Value::Null => String::new(),
        Value::Seq(_) | Value::Map(_) => return None,
        _ => text.get(node.span.clone()).unwrap_or_default().to_owned(),
    })
}

/// YAML merge keys: explicit keys win, then earlier merge sources over later.
fn apply_merges(entries: &mut Vec<Entry>, merges: Vec<Node>) {
    if merges.is_empty() {
        return;
    }
    let mut merged: Vec<Entry> = Vec::new();
    let mut index = KeyIndex::default();
    for source in merges {
        let maps = match source.value {
            Value::Map(map) => vec![map],
            Value::Seq(items) => items
                .into_iter()
                .filter_map(|n| match n.value {
                    Value::Map(map) => Some(map),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        for map in maps {
            for entry in map {
                if index.position(&merged, &entry.key).is_none() {
                    merged.push(entry);
                }
            }
        }
    }
    let explicit: HashSet<&str> = entries.iter().map(|e| e.key.as_str()).collect();
    merged.retain(|m| !explicit.contains(m.key.as_str()));
    merged.append(entries);
    *entries = merged;
}

fn scalar_node(text: &str, style: GranitStyle, tag: Option<&granit_parser::Tag>, span: Span) -> Node {
    let style = match style {
        GranitStyle::Plain => ScalarStyle::Plain,
        GranitStyle::SingleQuoted => ScalarStyle::SingleQuoted,
        GranitStyle::DoubleQuoted => ScalarStyle::DoubleQuoted,
        GranitStyle::Literal => ScalarStyle::Literal,
        _ => ScalarStyle::Folded,
    };
    let core_tag = tag.filter(|t| t.handle() == "tag:yaml.org,2002:").map(|t| t.suffix());
    let value = match core_tag {
        Some("str") => Value::Str(text.to_owned()),
        Some("int" | "float" | "bool" | "null") => match type_plain_scalar(text) {
            Value::Int(i) if core_tag == Some("float") => Value::Float(i as f64),
            typed => typed,
        },
        // `010`: octal 8 to YAML 1.1 (PyYAML, OmegaConf), 10 to YAML 1.2; the dialect's typing decides.
        _ if style == ScalarStyle::Plain && super::scalar::is_leading_zero_integer(text) => Value::Str(text.to_owned()),
        _ if style == ScalarStyle::Plain => type_plain_scalar(text),
        _ => Value::Str(text.to_owned()),
    };
    Node { value, span, alias: None, style: Some(style), origin: 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 13 item 5: the duplicate-key check is linear (10^5 keys took 26.6 s).
    #[test]
    fn a_hundred_thousand_keys_load_in_linear_time() {
        let mut text: String = (0..100_000).map(|i| format!("k{i}: {i}\n")).collect();
        text.push_str("k7: 0\nmerged:\n  <<: [{a: 1}, {a: 2, b: 3}]\n  b: 4\n");
        let start = std::time::Instant::now();
        let tree = parse(&text).unwrap();
        assert!(start.elapsed() < std::time::Duration::from_secs(30), "{:?}", start.elapsed());
        assert_eq!(tree.duplicates.len(), 1);
        assert_eq!(tree.root.get("k7").unwrap().value, Value::Int(0));
        let merged = tree.root.get("merged").unwrap();
        assert_eq!((merged.get("a").unwrap().value.clone(), merged.get("b").unwrap().value.clone()), (Value::Int(1), Value::Int(4)));
    }

    #[test]
    fn a_merge_of_50000_keys_is_linear() {
        let base: String = (0..50_000).map(|i| format!("  k{i}: {i}\n")).collect();
        let text = format!("base: &b\n{base}run:\n  <<: *b\n  k5: 0\n");
        let start = std::time::Instant::now();
        let tree = parse(&text).unwrap();
        assert!(start.elapsed() < std::time::Duration::from_secs(30), "{:?}", start.elapsed());
        assert_eq!(tree.root.get_dotted("run.k5").unwrap().value, Value::Int(0));
        assert_eq!(tree.root.get("run").unwrap().entries().unwrap().len(), 50_000);
    }

    /// Issue 13 item 3: the budget counts text too; a 1 MB string aliased
    /// 20,000 times (20 GB) is refused, not copied.
    #[test]
    fn aliased_text_spends_the_budget() {
        let text = format!("a: &a \"{}\"\nb: [{}]\n", "x".repeat(1_000_000), vec!["*a"; 20_000].join(", "));
        assert!(matches!(parse(&text), Err(LoadError::AliasBudget { .. })));
    }
}
