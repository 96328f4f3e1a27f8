//! YAML 1.2 → `Node` tree, from granit-parser's event stream.
//!
//! granit-parser gives byte spans that end at a quoted scalar's closing quote
//! (dependencies.md §1), bounds nesting (255 levels) and never panics. On top
//! of it this builder expands aliases under a budget, applies merge keys
//! (`<<:`), and records duplicate keys instead of failing on them.

use super::scalar::type_plain_scalar;
use super::tree::{Entry, Node, ScalarStyle, Value};
use super::{DuplicateKey, LoadError};
use crate::source::Span;
use granit_parser::{Event, Parser, ScalarStyle as GranitStyle};
use std::collections::HashMap;

/// Nodes that aliases may add on top of those written in the file. A
/// billion-laughs file asks for hundreds of millions; real configs for a few.
const ALIAS_EXPANSION_BUDGET: usize = 100_000;
/// Deepest tree an alias may produce (granit limits written nesting to 255).
const MAX_DEPTH: usize = 512;

pub struct YamlTree {
    pub root: Node,
    pub duplicates: Vec<DuplicateKey>,
}

enum Frame {
    Seq { start: usize, anchor: usize, items: Vec<Node> },
    Map { start: usize, anchor: usize, entries: Vec<Entry>, key: Option<(String, Span)>, merges: Vec<Node> },
}

struct Anchored {
    node: Node,
    count: usize,
    depth: usize,
}

pub fn parse(text: &str) -> Result<YamlTree, LoadError> {
    let options = granit_parser::options! {
        // PyYAML, ruamel.yaml and libyaml do not add a final line feed to a
        // block scalar that ends the file; the frameworks read YAML with them.
        block_scalar_eof_without_line_feed: true,
    };
    let mut parser = Parser::new_from_str_with_options(text, options);
    let mut builder = Builder { text, stack: Vec::new(), anchors: HashMap::new(), expanded: 0, duplicates: Vec::new(), root: None, documents: 0 };
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
    expanded: usize,
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
                    self.anchors.insert(anchor, Anchored { count: 1, depth: 1, node: node.clone() });
                }
                self.push(node)?;
            }
            Event::SequenceStart(_, anchor, _) => self.stack.push(Frame::Seq { start: span.start, anchor, items: Vec::new() }),
            Event::MappingStart(_, anchor, _) => self.stack.push(Frame::Map { start: span.start, anchor, entries: Vec::new(), key: None, merges: Vec::new() }),
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
                self.expanded += anchored.count;
                if self.expanded > ALIAS_EXPANSION_BUDGET {
                    return Err(LoadError::AliasBudget { span, budget: ALIAS_EXPANSION_BUDGET });
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
            self.anchors.insert(anchor, Anchored { count: node.count(), depth: node.depth(), node: node.clone() });
        }
        self.push(node)
    }

    fn push(&mut self, node: Node) -> Result<(), LoadError> {
        match self.stack.last_mut() {
            None => self.root = Some(node),
            Some(Frame::Seq { items, .. }) => items.push(node),
            Some(Frame::Map { entries, key, merges, .. }) => match key.take() {
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
                    } else if let Some(existing) = entries.iter_mut().find(|e| e.key == name) {
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
                if !merged.iter().any(|e| e.key == entry.key) {
                    merged.push(entry);
                }
            }
        }
    }
    merged.retain(|m| !entries.iter().any(|e| e.key == m.key));
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
        _ if style == ScalarStyle::Plain => type_plain_scalar(text),
        _ => Value::Str(text.to_owned()),
    };
    Node { value, span, alias: None, style: Some(style), origin: 0 }
}
