//! The spanned configuration tree every later stage works on.
//!
//! YAML and JSON both load into `Node`s. A node keeps the byte span of its
//! value and, for mapping entries, the span of the key, so that diagnostics can
//! point at either and fixes can splice bytes at the exact place.

use crate::source::Span;
use serde_json::{Map, Number, Value as Json};
use std::collections::HashMap;

#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub value: Value,
    /// Where the value is written. For a node copied from an anchor, this is
    /// the anchored definition: the place a fix has to edit.
    pub span: Span,
    /// For a node that came from an alias (`*name`), where the alias is.
    pub alias: Option<Span>,
    /// How the scalar was written; `None` for collections.
    pub style: Option<ScalarStyle>,
    /// Which file of a composed config the node was written in (an index into
    /// the resolved config's file list; 0 for a single file).
    pub origin: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScalarStyle {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
    Folded,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    /// Integers above `i64::MAX` (JSON allows them; DeepSpeed never needs them).
    UInt(u64),
    Float(f64),
    Str(String),
    Seq(Vec<Node>),
    Map(Vec<Entry>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub key: String,
    pub key_span: Span,
    /// The file the key was written in (see `Node::origin`).
    pub key_origin: usize,
    pub value: Node,
}

impl Node {
    pub fn new(value: Value, span: Span) -> Self {
        Node { value, span, alias: None, style: None, origin: 0 }
    }

    pub(crate) fn entries(&self) -> Option<&[Entry]> {
        match &self.value {
            Value::Map(entries) => Some(entries),
            _ => None,
        }
    }

    pub fn entry(&self, key: &str) -> Option<&Entry> {
        self.entries()?.iter().find(|e| e.key == key)
    }

    pub fn get(&self, key: &str) -> Option<&Node> {
        self.entry(key).map(|e| &e.value)
    }

    /// Follows a dotted path (`training.trainer.accumulate_grad_batches`); a
    /// numeric segment indexes a sequence.
    pub fn get_dotted(&self, path: &str) -> Option<&Node> {
        path.split('.').try_fold(self, |node, segment| node.child(segment))
    }

    /// The entry at a dotted path, with its key span.
    pub(crate) fn entry_dotted(&self, path: &str) -> Option<&Entry> {
        let (parent, last) = match path.rsplit_once('.') {
            Some((parent, last)) => (self.get_dotted(parent)?, last),
            None => (self, path),
        };
        parent.entry(last)
    }

    fn child(&self, segment: &str) -> Option<&Node> {
        match &self.value {
            Value::Map(entries) => entries.iter().find(|e| e.key == segment).map(|e| &e.value),
            Value::Seq(items) => segment.parse::<usize>().ok().and_then(|i| items.get(i)),
            _ => None,
        }
    }

    /// Resolves a JSON pointer (RFC 6901) to the node and, when the last step
    /// is a mapping key, that key's span.
    pub fn pointer(&self, pointer: &str) -> Option<(&Node, Option<&Span>)> {
        if pointer.is_empty() {
            return Some((self, None));
        }
        let mut node = self;
        let mut key_span = None;
        for raw in pointer.strip_prefix('/')?.split('/') {
            let segment = raw.replace("~1", "/").replace("~0", "~");
            match &node.value {
                Value::Map(entries) => {
                    let entry = entries.iter().find(|e| e.key == segment)?;
                    key_span = Some(&entry.key_span);
                    node = &entry.value;
                }
                Value::Seq(items) => {
                    node = items.get(segment.parse::<usize>().ok()?)?;
                    key_span = None;
                }
                _ => return None,
            }
        }
        Some((node, key_span))
    }

    pub fn as_i64(&self) -> Option<i64> {
        match self.value {
            Value::Int(i) => Some(i),
            Value::Float(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => Some(f as i64),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self.value {
            Value::Int(i) => Some(i as f64),
            Value::UInt(u) => Some(u as f64),
            Value::Float(f) => Some(f),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// Short human name of the value's type, as used in messages.
    pub fn type_name(&self) -> &'static str {
        match self.value {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Int(_) | Value::UInt(_) => "integer",
            Value::Float(_) => "number",
            Value::Str(_) => "string",
            Value::Seq(_) => "list",
            Value::Map(_) => "mapping",
        }
    }

    /// Marks this subtree as written in file `origin`.
    pub(crate) fn set_origin(&mut self, origin: usize) {
        self.origin = origin;
        match &mut self.value {
            Value::Seq(items) => items.iter_mut().for_each(|n| n.set_origin(origin)),
            Value::Map(entries) => entries.iter_mut().for_each(|e| {
                e.key_origin = origin;
                e.value.set_origin(origin);
            }),
            _ => {}
        }
    }

    /// Deep-merges `overlay` into this node, as a curriculum stage or a Hydra
    /// config does: mappings merge key by key; scalars and lists replace.
    /// An entry that is added or replaced keeps the overlay's spans and origin.
    pub(crate) fn merge(&mut self, overlay: &Node) {
        match (&mut self.value, &overlay.value) {
            (Value::Map(base), Value::Map(over)) => {
                let mut index = KeyIndex::default();
                for entry in over {
                    match index.position(base, &entry.key).map(|i| &mut base[i]) {
                        Some(existing) if matches!((&existing.value.value, &entry.value.value), (Value::Map(_), Value::Map(_))) => {
                            existing.value.merge(&entry.value);
                        }
                        Some(existing) => {
                            existing.key_span = entry.key_span.clone();
                            existing.key_origin = entry.key_origin;
                            existing.value = entry.value.clone();
                        }
                        None => base.push(entry.clone()),
                    }
                }
            }
            _ => *self = overlay.clone(),
        }
    }

    /// Number of nodes in this subtree (used for the alias expansion budget).
    pub fn count(&self) -> usize {
        1 + match &self.value {
            Value::Seq(items) => items.iter().map(Node::count).sum(),
            Value::Map(entries) => entries.iter().map(|e| e.value.count()).sum(),
            _ => 0,
        }
    }

    /// What copying this subtree costs: its nodes and the bytes of its strings
    /// and keys (charged against the [`ExpansionBudget`]).
    pub(crate) fn size(&self) -> Expansion {
        let own = Expansion { nodes: 1, bytes: if let Value::Str(s) = &self.value { s.len() } else { 0 } };
        match &self.value {
            Value::Seq(items) => items.iter().fold(own, |total, n| total.plus(n.size())),
            Value::Map(entries) => entries.iter().fold(own, |total, e| total.plus(Expansion { nodes: 0, bytes: e.key.len() }).plus(e.value.size())),
            _ => own,
        }
    }

    /// Nesting depth of this subtree (a scalar is 1).
    pub fn depth(&self) -> usize {
        1 + match &self.value {
            Value::Seq(items) => items.iter().map(Node::depth).max().unwrap_or(0),
            Value::Map(entries) => entries.iter().map(|e| e.value.depth()).max().unwrap_or(0),
            _ => 0,
        }
    }

    pub fn to_json(&self) -> Json {
        match &self.value {
            Value::Null => Json::Null,
            Value::Bool(b) => Json::Bool(*b),
            Value::Int(i) => Json::Number((*i).into()),
            Value::UInt(u) => Json::Number((*u).into()),
            // JSON has no NaN or infinity; such a float is kept as its YAML spelling.
            Value::Float(f) => Number::from_f64(*f).map_or_else(|| Json::String(yaml_float_name(*f)), Json::Number),
            Value::Str(s) => Json::String(s.clone()),
            Value::Seq(items) => Json::Array(items.iter().map(Node::to_json).collect()),
            Value::Map(entries) => {
                let mut map = Map::with_capacity(entries.len());
                for entry in entries {
                    map.insert(entry.key.clone(), entry.value.to_json());
                }
                Json::Object(map)
            }
        }
    }
}

/// Finds an entry of a mapping being built by its key: a scan while the
/// mapping is small, a hash map once it is large, so that a mapping of 100,000
/// keys is not checked for duplicates in quadratic time. Keys of `entries`
/// must be unique (a duplicate replaces the earlier entry in place).
#[derive(Debug, Default)]
pub(crate) struct KeyIndex {
    positions: HashMap<String, usize>,
}

/// Below this many entries a scan is faster than hashing.
const INDEX_FROM: usize = 32;

impl KeyIndex {
    pub fn position(&mut self, entries: &[Entry], key: &str) -> Option<usize> {
        if entries.len() < INDEX_FROM {
            return entries.iter().position(|e| e.key == key);
        }
        // Index the entries pushed since the last call.
        for (i, entry) in entries.iter().enumerate().skip(self.positions.len()) {
            self.positions.insert(entry.key.clone(), i);
        }
        self.positions.get(key).copied()
    }
}

/// Deepest tree that expansion (an alias, an interpolation) may produce;
/// granit limits written YAML nesting to 255. Deeper trees would overflow the
/// stack of every recursive walk (clone, drop, rules).
pub(crate) const MAX_TREE_DEPTH: usize = 512;

/// Nodes that expansion may add on top of those a file writes: YAML aliases
/// and merge keys, OmegaConf interpolation (and Hydra composition, which can
/// charge the same budget). A billion-laughs file asks for hundreds of
/// millions; real configs for a few hundred.
pub(crate) const EXPANSION_NODE_BUDGET: usize = 100_000;
/// Bytes of text (strings and keys) that expansion may copy: a 1 MB string
/// aliased or interpolated 100,000 times would otherwise take 100 GB.
pub(crate) const EXPANSION_BYTE_BUDGET: usize = 8 * 1024 * 1024;

/// The size of a copy: nodes and bytes of text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Expansion {
    pub nodes: usize,
    pub bytes: usize,
}

impl Expansion {
    pub(crate) fn plus(self, other: Expansion) -> Expansion {
        Expansion { nodes: self.nodes.saturating_add(other.nodes), bytes: self.bytes.saturating_add(other.bytes) }
    }
}

/// The one budget for everything that copies config content (see
/// [`EXPANSION_NODE_BUDGET`]). Once exceeded it stays exceeded.
#[derive(Clone, Debug)]
pub(crate) struct ExpansionBudget {
    spent: Expansion,
    limit: Expansion,
}

/// The budget was exceeded: the limits, for the message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BudgetExceeded {
    pub limit: Expansion,
}

impl std::fmt::Display for BudgetExceeded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "more than {} nodes or {} MiB of text", self.limit.nodes, self.limit.bytes / (1024 * 1024))
    }
}

impl Default for ExpansionBudget {
    fn default() -> Self {
        ExpansionBudget::new()
    }
}

impl ExpansionBudget {
    pub fn new() -> Self {
        ExpansionBudget { spent: Expansion::default(), limit: Expansion { nodes: EXPANSION_NODE_BUDGET, bytes: EXPANSION_BYTE_BUDGET } }
    }

    /// A budget of which what `tree`'s aliases already copied is spent (the
    /// loader charged it; a tree does not say how much more its loader had left).
    pub(crate) fn after_aliases(tree: &Node) -> Self {
        let mut budget = ExpansionBudget::new();
        let mut stack = vec![tree];
        while let Some(node) = stack.pop() {
            if node.alias.is_some() {
                budget.spent = budget.spent.plus(node.size());
                continue;
            }
            match &node.value {
                Value::Seq(items) => stack.extend(items.iter()),
                Value::Map(entries) => stack.extend(entries.iter().map(|e| &e.value)),
                _ => {}
            }
        }
        budget
    }

    /// Spends `cost`; an error once the total passes either limit.
    pub(crate) fn charge(&mut self, cost: Expansion) -> Result<(), BudgetExceeded> {
        self.spent = self.spent.plus(cost);
        if self.exceeded() { Err(BudgetExceeded { limit: self.limit }) } else { Ok(()) }
    }

    pub(crate) fn exceeded(&self) -> bool {
        self.spent.nodes > self.limit.nodes || self.spent.bytes > self.limit.bytes
    }

    pub(crate) fn limit(&self) -> Expansion {
        self.limit
    }
}

fn yaml_float_name(f: f64) -> String {
    if f.is_nan() {
        ".nan".into()
    } else if f > 0.0 {
        ".inf".into()
    } else {
        "-.inf".into()
    }
}
