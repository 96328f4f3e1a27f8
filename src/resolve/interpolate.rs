//! OmegaConf interpolation: `${a.b}`, relative `${.x}` / `${..x}`, nested
//! `${a.${b}}`, inside strings (`run_${seed}`), `${oc.env:VAR,default}`,
//! `${oc.select:key,default}`, `${oc.decode:...}`, and `???` (mandatory
//! missing). Nothing is executed: custom resolvers (`${eval:...}`,
//! `${multiply:...}`) stay unresolved, and environment variables are never
//! read: `oc.env` resolves to its default when it has one, else stays
//! unknown — so no output can ever show an environment value.
//!
//! A value that is a single interpolation of a node takes that node, with the
//! span and file of its definition: diagnostics and fixes go where the value
//! is written. A string built from several parts is a new string at the
//! interpolation's own span.

use crate::load::tree::{BudgetExceeded, Expansion, ExpansionBudget, MAX_TREE_DEPTH};
use crate::load::{Entry, Node, Value};
use crate::source::Span;
use std::collections::HashMap;

/// Why an interpolation was not resolved.
#[derive(Clone, Debug, PartialEq)]
pub enum Unresolved {
    /// `???`: a value the user must give (OmegaConf's MISSING).
    Missing,
    /// `${oc.env:VAR}` without a default: the environment is never read.
    Environment(String),
    /// A resolver trainlint does not run (`eval`, `multiply`, ...).
    Resolver(String),
    /// The interpolated key does not exist.
    MissingKey(String),
    /// The key is missing because the composition failed (reported by SCH007).
    Incomplete(String),
    /// The interpolation refers back to itself, through these paths.
    Cycle(Vec<String>),
    /// Not a valid interpolation.
    Syntax(String),
    /// Interpolations nested (inside one string, or through the values they
    /// name) deeper than this many levels.
    TooDeep(usize),
    /// A chain of values naming values (`a: ${b}`, `b: ${c}`, ...) longer than this many links:
    /// every value of the chain fails the same way, so it is reported once per file, like the
    /// budget.
    ChainTooLong(usize),
    /// Resolving copies more than the expansion budget (shared with aliases).
    Budget(BudgetExceeded),
}

#[derive(Clone, Debug)]
pub struct Issue {
    /// Dotted path of the value whose interpolation failed.
    pub path: String,
    pub span: Span,
    pub origin: usize,
    pub problem: Unresolved,
}

/// Deepest chain of interpolations (`${a}` → `${b}` → ...), and deepest
/// nesting of `${` inside one string. OmegaConf has no such limit, but no real
/// config comes near it; each level costs stack, and lint workers have 2 MiB.
pub(crate) const MAX_DEPTH: usize = 64;
/// Stack that resolving may use: recursion goes through the tree and the
/// interpolations it names together (a chain of 64 interpolations through
/// 255-level mappings recurses 16,000 times), and frame sizes differ between
/// builds, so the bound is on bytes of stack, measured. Lint workers have
/// 2 MiB; this leaves half for everything else.
const STACK_BUDGET: usize = 1024 * 1024;

/// The address of a local of a new frame: how far down the stack is.
#[inline(never)]
fn stack_address() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

/// Resolves every interpolation of a tree; returns the resolved tree and what
/// could not be resolved. Unresolved values keep their original text.
/// Copies spend the expansion budget that the tree's aliases left.
pub fn resolve(root: &Node) -> (Node, Vec<Issue>) {
    resolve_with_budget(root, &mut ExpansionBudget::after_aliases(root))
}

/// [`resolve`] with a budget the caller shares (Hydra composition, say).
pub(crate) fn resolve_with_budget(root: &Node, budget: &mut ExpansionBudget) -> (Node, Vec<Issue>) {
    // The root's keys, indexed: a key is found in constant time, not by scanning the root's
    // entries (a chain through 58,000 top-level keys looks each value up to 64 times; issue 26
    // item 8). The first of duplicate keys wins, as `Node::get_dotted` finds it.
    let mut top: HashMap<&str, &Node> = HashMap::new();
    if let Value::Map(entries) = &root.value {
        for entry in entries {
            top.entry(entry.key.as_str()).or_insert(&entry.value);
        }
    }
    let mut state =
        State { root, top, memo: HashMap::new(), stack: Vec::new(), issues: Vec::new(), budget, frames: 0, stack_base: stack_address(), limit_reported: false };
    let resolved = state.resolve_subtree(root, "");
    let mut issues = state.issues;
    issues.sort_by_key(|i| (i.origin, i.span.start));
    issues.dedup_by(|a, b| a.span == b.span && a.origin == b.origin && a.problem == b.problem);
    (resolved, issues)
}

struct State<'a, 'b> {
    root: &'a Node,
    /// The root's entries by key (the first of duplicates).
    top: HashMap<&'a str, &'a Node>,
    /// Resolved values by path, with what one copy of each costs.
    memo: HashMap<String, (Result<Node, Unresolved>, Expansion)>,
    stack: Vec<String>,
    issues: Vec<Issue>,
    budget: &'b mut ExpansionBudget,
    /// Active recursion through `resolve_subtree` and `resolve_path`.
    frames: usize,
    /// Where the stack was when resolving began (see [`STACK_BUDGET`]).
    stack_base: usize,
    /// A budget or depth limit was reported: later values are left as they
    /// are, without one issue each.
    limit_reported: bool,
}

/// `node` without its value (a collection's place, style and origin).
fn shell(node: &Node) -> Node {
    Node { value: Value::Null, span: node.span.clone(), alias: node.alias.clone(), style: node.style, origin: node.origin }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() { key.to_owned() } else { format!("{path}.{key}") }
}

impl State<'_, '_> {
    fn resolve_subtree(&mut self, node: &Node, path: &str) -> Node {
        if self.too_deep() || self.budget.exceeded() {
            self.report_limit(node, path, if self.budget.exceeded() { None } else { Some(self.frames) });
            return node.clone();
        }
        self.frames += 1;
        let out = self.resolve_subtree_inner(node, path);
        self.frames -= 1;
        out
    }

    fn too_deep(&self) -> bool {
        self.stack_base.abs_diff(stack_address()) > STACK_BUDGET
    }

    /// Reports the first value left unresolved because a limit was reached.
    fn report_limit(&mut self, node: &Node, path: &str, depth: Option<usize>) {
        if !self.limit_reported {
            self.limit_reported = true;
            let problem = match depth {
                Some(depth) => Unresolved::TooDeep(depth),
                None => Unresolved::Budget(BudgetExceeded { limit: self.budget.limit() }),
            };
            self.issues.push(Issue { path: path.to_owned(), span: node.span.clone(), origin: node.origin, problem });
        }
    }

    fn resolve_subtree_inner(&mut self, node: &Node, path: &str) -> Node {
        match &node.value {
            // Each child resolved into a new collection (cloning the collection first copied
            // every subtree once per level above it).
            Value::Map(entries) => {
                let resolved = entries
                    .iter()
                    .map(|entry| Entry {
                        key: entry.key.clone(),
                        key_span: entry.key_span.clone(),
                        key_origin: entry.key_origin,
                        value: self.resolve_subtree(&entry.value, &join(path, &entry.key)),
                    })
                    .collect();
                Node { value: Value::Map(resolved), ..shell(node) }
            }
            Value::Seq(items) => {
                let resolved = items.iter().enumerate().map(|(i, item)| self.resolve_subtree(item, &join(path, &i.to_string()))).collect();
                Node { value: Value::Seq(resolved), ..shell(node) }
            }
            Value::Str(text) if text == "???" || text.contains("${") => match self.resolve_path(path) {
                Ok(value) => value,
                // Past the budget every value would fail the same way: one report. So would every
                // value of a chain of interpolations longer than the depth limit (58,000 keys
                // gave 57,985 errors, and rendering them was quadratic: issue 26 item 8).
                Err(Unresolved::Budget(_) | Unresolved::ChainTooLong(_)) if self.limit_reported => node.clone(),
                Err(problem) => {
                    self.limit_reported |= matches!(problem, Unresolved::Budget(_) | Unresolved::ChainTooLong(_));
                    self.issues.push(Issue { path: path.to_owned(), span: node.span.clone(), origin: node.origin, problem });
                    node.clone()
                }
            },
            _ => node.clone(),
        }
    }

    /// The resolved node at an absolute path (memoised; cycles detected).
    /// Every copy it returns is charged to the expansion budget.
    fn resolve_path(&mut self, path: &str) -> Result<Node, Unresolved> {
        if let Some((done, size)) = self.memo.get(path) {
            let (done, size) = (done.clone(), *size);
            if done.is_ok() {
                self.budget.charge(size).map_err(Unresolved::Budget)?;
            }
            return done;
        }
        if self.budget.exceeded() {
            return Err(Unresolved::Budget(BudgetExceeded { limit: self.budget.limit() }));
        }
        if let Some(position) = self.stack.iter().position(|p| p == path) {
            let mut cycle = self.stack[position..].to_vec();
            cycle.push(path.to_owned());
            return Err(Unresolved::Cycle(cycle));
        }
        if self.stack.len() >= MAX_DEPTH {
            return Err(Unresolved::ChainTooLong(MAX_DEPTH));
        }
        if self.too_deep() {
            return Err(Unresolved::TooDeep(self.frames));
        }
        let node = self.lookup(path).ok_or_else(|| Unresolved::MissingKey(path.to_owned()))?;
        self.stack.push(path.to_owned());
        self.frames += 1;
        let result = match &node.value {
            Value::Str(text) if text == "???" => Err(Unresolved::Missing),
            Value::Str(text) if text.contains("${") => self.evaluate(text, path, node),
            Value::Map(_) | Value::Seq(_) => Ok(self.resolve_subtree(node, path)),
            _ => Ok(node.clone()),
        };
        self.frames -= 1;
        self.stack.pop();
        // A subtree grafted here must not make the tree deeper than the loader allows.
        let result = match result {
            Ok(node) if !matches!(node.value, Value::Map(_) | Value::Seq(_)) => Ok(node),
            Ok(node) if path.split('.').count() + node.depth() > MAX_TREE_DEPTH => Err(Unresolved::TooDeep(MAX_TREE_DEPTH)),
            other => other,
        };
        let size = result.as_ref().map(Node::size).unwrap_or_default();
        // A limit reached below this value is not memoised as this value's own error.
        if !matches!(result, Err(Unresolved::Budget(_))) {
            self.memo.insert(path.to_owned(), (result.clone(), size));
        }
        if result.is_ok() {
            self.budget.charge(size).map_err(Unresolved::Budget)?;
        }
        result
    }

    /// Evaluates a string with interpolations, found at `path`.
    fn evaluate(&mut self, text: &str, path: &str, node: &Node) -> Result<Node, Unresolved> {
        let parts = parse(text)?;
        if let [Part::Interpolation(inner)] = parts.as_slice() {
            return self.interpolation(inner, path, node);
        }
        let mut out = String::new();
        for part in &parts {
            match part {
                Part::Text(t) => out.push_str(t),
                Part::Interpolation(inner) => out.push_str(&scalar_text(&self.interpolation(inner, path, node)?)?),
            }
        }
        Ok(Node { value: Value::Str(out), ..node.clone() })
    }

    fn interpolation(&mut self, inner: &[Part], path: &str, node: &Node) -> Result<Node, Unresolved> {
        // Nested interpolations inside the key or the arguments come first.
        let mut text = String::new();
        for part in inner {
            match part {
                Part::Text(t) => text.push_str(t),
                Part::Interpolation(nested) => text.push_str(&scalar_text(&self.interpolation(nested, path, node)?)?),
            }
        }
        let text = text.trim();
        match resolver_call(text) {
            Some((name, args)) => self.resolver(name, &args, path, node),
            None => {
                let target = absolute(path, text).ok_or_else(|| Unresolved::MissingKey(text.to_owned()))?;
                self.resolve_path(&target)
            }
        }
    }

    fn resolver(&mut self, name: &str, args: &[String], path: &str, node: &Node) -> Result<Node, Unresolved> {
        let string = |s: &str| Node { value: Value::Str(s.to_owned()), ..node.clone() };
        match name {
            "oc.env" => match args.get(1) {
                // OmegaConf returns the default as a string; `null` stays null.
                Some(default) if default == "null" => Ok(Node { value: Value::Null, ..node.clone() }),
                Some(default) => Ok(string(unquote(default))),
                None => Err(Unresolved::Environment(args.first().cloned().unwrap_or_default())),
            },
            "oc.select" => {
                let key = args.first().map(|k| unquote(k).to_owned()).unwrap_or_default();
                match absolute(path, &key).map(|target| self.resolve_path(&target)) {
                    Some(Ok(found)) => Ok(found),
                    Some(Err(Unresolved::MissingKey(_))) | None => match args.get(1) {
                        Some(default) => Ok(typed(unquote(default), node)),
                        None => Ok(Node { value: Value::Null, ..node.clone() }),
                    },
                    Some(Err(other)) => Err(other),
                }
            }
            "oc.decode" => Ok(typed(unquote(args.first().map(String::as_str).unwrap_or("")), node)),
            other => Err(Unresolved::Resolver(other.to_owned())),
        }
    }
}

/// A scalar as it reads inside a string.
fn scalar_text(node: &Node) -> Result<String, Unresolved> {
    Ok(match &node.value {
        Value::Null => "None".to_owned(),
        Value::Bool(b) => {
            if *b {
                "True".to_owned()
            } else {
                "False".to_owned()
            }
        }
        Value::Int(i) => i.to_string(),
        Value::UInt(u) => u.to_string(),
        Value::Float(f) => python_float(*f),
        Value::Str(s) => s.clone(),
        Value::Map(_) | Value::Seq(_) => return Err(Unresolved::Syntax("a mapping or list cannot be part of a string".into())),
    })
}

/// Python's `str(float)`: `0.0001` is `0.0001`, `3e-4` is `0.0003`, `1e-05` stays `1e-05`.
fn python_float(f: f64) -> String {
    if f.fract() == 0.0 && f.abs() < 1e16 {
        return format!("{f:.1}");
    }
    let abs = f.abs();
    if (1e-4..1e16).contains(&abs) {
        format!("{f}")
    } else {
        let text = format!("{f:e}");
        let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
        let exponent: i32 = exponent.parse().unwrap_or(0);
        format!("{mantissa}e{}{:02}", if exponent < 0 { '-' } else { '+' }, exponent.abs())
    }
}

fn typed(text: &str, node: &Node) -> Node {
    Node { value: crate::load::scalar::type_plain_scalar(text), ..node.clone() }
}

fn unquote(text: &str) -> &str {
    let t = text.trim();
    t.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')).or_else(|| t.strip_prefix('"').and_then(|s| s.strip_suffix('"'))).unwrap_or(t)
}

/// `oc.env:HOME,/tmp` → ("oc.env", ["HOME", "/tmp"]).
fn resolver_call(text: &str) -> Option<(&str, Vec<String>)> {
    let (name, rest) = text.split_once(':')?;
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.') || name.starts_with('.') {
        return None;
    }
    let args = if rest.trim().is_empty() { Vec::new() } else { split_args(rest) };
    Some((name, args))
}

fn split_args(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0;
    let mut quote: Option<char> = None;
    let mut current = String::new();
    for c in text.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => {
                quote = None;
                current.push(c);
            }
            (Some(_), c) => current.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                current.push(c);
            }
            (None, '[' | '{' | '(') => {
                depth += 1;
                current.push(c);
            }
            (None, ']' | '}' | ')') => {
                depth -= 1;
                current.push(c);
            }
            (None, ',') if depth == 0 => out.push(std::mem::take(&mut current).trim().to_owned()),
            (None, c) => current.push(c),
        }
    }
    out.push(current.trim().to_owned());
    out
}

/// The absolute dotted path a reference names from `path` (`.x`: a sibling;
/// `..x`: a sibling of the parent; `a.b`: from the root).
fn absolute(path: &str, reference: &str) -> Option<String> {
    let reference = reference.replace('[', ".").replace(']', "");
    let dots = reference.chars().take_while(|c| *c == '.').count();
    if dots == 0 {
        return Some(reference);
    }
    let mut base: Vec<&str> = if path.is_empty() { Vec::new() } else { path.split('.').collect() };
    // One dot is the node's own container; each further dot goes up one level.
    for _ in 0..dots {
        base.pop()?;
    }
    let rest = &reference[dots..];
    let mut parts: Vec<String> = base.into_iter().map(str::to_owned).collect();
    if !rest.is_empty() {
        parts.push(rest.to_owned());
    }
    Some(parts.join("."))
}

impl<'a> State<'a, '_> {
    /// The node at a dotted path: its first segment through the root's index.
    fn lookup(&self, path: &str) -> Option<&'a Node> {
        if path.is_empty() {
            return Some(self.root);
        }
        let (first, rest) = match path.split_once('.') {
            Some((first, rest)) => (first, Some(rest)),
            None => (path, None),
        };
        let node = match self.top.get(first) {
            Some(node) => *node,
            // A sequence root, or a numeric segment: the tree's own walk.
            None if !matches!(self.root.value, Value::Map(_)) => return self.root.get_dotted(path),
            None => return None,
        };
        match rest {
            Some(rest) => node.get_dotted(rest),
            None => Some(node),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Part {
    Text(String),
    Interpolation(Vec<Part>),
}

/// Splits a string into text and `${...}` parts (nested at most
/// [`MAX_DEPTH`] levels); `\${` is a literal.
fn parse(text: &str) -> Result<Vec<Part>, Unresolved> {
    let chars: Vec<char> = text.chars().collect();
    let (parts, end) = parse_parts(&chars, 0, 0)?;
    if end != chars.len() {
        return Err(Unresolved::Syntax(format!("unbalanced `}}` in `{text}`")));
    }
    Ok(parts)
}

/// The parts from `i` to the `}` that closes an interpolation opened
/// `depth` levels deep (0: the whole string).
fn parse_parts(chars: &[char], mut i: usize, depth: usize) -> Result<(Vec<Part>, usize), Unresolved> {
    let mut parts = Vec::new();
    let mut text = String::new();
    while i < chars.len() {
        match chars[i] {
            '\\' if chars.get(i + 1) == Some(&'$') => {
                text.push('$');
                i += 2;
            }
            '$' if chars.get(i + 1) == Some(&'{') => {
                if !text.is_empty() {
                    parts.push(Part::Text(std::mem::take(&mut text)));
                }
                if depth >= MAX_DEPTH {
                    return Err(Unresolved::TooDeep(MAX_DEPTH));
                }
                let (inner, end) = parse_parts(chars, i + 2, depth + 1)?;
                if chars.get(end) != Some(&'}') {
                    return Err(Unresolved::Syntax("an interpolation `${` is not closed".into()));
                }
                parts.push(Part::Interpolation(inner));
                i = end + 1;
            }
            '}' if depth > 0 => break,
            c => {
                text.push(c);
                i += 1;
            }
        }
    }
    if !text.is_empty() {
        parts.push(Part::Text(text));
    }
    Ok((parts, i))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::{Format, parse_text};

    fn run(yaml: &str) -> (serde_json::Value, Vec<Issue>) {
        let (root, _) = parse_text(yaml, Format::Yaml).unwrap();
        let (resolved, issues) = resolve(&root);
        (resolved.to_json(), issues)
    }

    #[test]
    fn absolute_relative_nested_and_inside_strings() {
        let (v, issues) =
            run("a: {b: 8}\nc: ${a.b}\nd:\n  x: 2\n  y: ${.x}\n  z: ${..a.b}\nname: run_${a.b}_${d.x}\nkey: b\nnested: ${a.${key}}\nlr: 3e-4\ns: lr=${lr}\n");
        assert!(issues.is_empty(), "{issues:?}");
        assert_eq!(v["c"], 8);
        assert_eq!(v["d"]["y"], 2);
        assert_eq!(v["d"]["z"], 8);
        assert_eq!(v["name"], "run_8_2");
        assert_eq!(v["nested"], 8);
        assert_eq!(v["s"], "lr=0.0003");
    }

    #[test]
    fn env_is_never_read_select_and_missing() {
        let (v, issues) = run("home: ${oc.env:HOME}\ndir: ${oc.env:PROJECT_ROOT,/tmp/x}\nsel: ${oc.select:nope,5}\nm: ???\nr: ${eval:'1+1'}\n");
        assert_eq!(v["home"], "${oc.env:HOME}", "the environment is never read");
        assert_eq!(v["dir"], "/tmp/x");
        assert_eq!(v["sel"], 5);
        let problems: Vec<_> = issues.iter().map(|i| i.problem.clone()).collect();
        assert!(problems.contains(&Unresolved::Environment("HOME".into())));
        assert!(problems.contains(&Unresolved::Missing));
        assert!(problems.contains(&Unresolved::Resolver("eval".into())));
    }

    #[test]
    fn cycles_and_missing_keys_are_clear() {
        let (_, issues) = run("a: ${b}\nb: ${a}\nc: ${nope.x}\n");
        assert!(issues.iter().any(|i| matches!(&i.problem, Unresolved::Cycle(p) if p.len() >= 2)), "{issues:?}");
        assert!(issues.iter().any(|i| i.problem == Unresolved::MissingKey("nope.x".into())), "{issues:?}");
    }

    /// Issue 13 items 1 and 3: nesting and copies are bounded, with one
    /// finding per deep string and one for the whole budget.
    #[test]
    fn depth_and_budget_are_bounded() {
        let deep = format!("{}x{}", "${".repeat(5_000), "}".repeat(5_000));
        let (_, issues) = run(&format!("a: {deep}\nb: {deep}\nc: ${{a}}\n"));
        let deep_ones: Vec<_> = issues.iter().filter(|i| i.problem == Unresolved::TooDeep(MAX_DEPTH)).map(|i| i.path.as_str()).collect();
        assert_eq!(deep_ones, ["a", "b", "c"], "{issues:?}");
        let mut bomb = String::from("s0: xxxxxxxxxxxxxxxx\n");
        for i in 1..40 {
            bomb.push_str(&format!("s{i}: ${{s{p}}}${{s{p}}}\n", p = i - 1));
        }
        let (_, issues) = run(&bomb);
        assert_eq!(issues.len(), 1, "{issues:?}");
        assert!(matches!(issues[0].problem, Unresolved::Budget(_)), "{issues:?}");
    }

    #[test]
    fn a_single_interpolation_keeps_the_definition_span() {
        let text = "batch: 48\ndata:\n  batch_size: ${batch}\n";
        let (root, _) = parse_text(text, Format::Yaml).unwrap();
        let (resolved, _) = resolve(&root);
        let node = resolved.get_dotted("data.batch_size").unwrap();
        assert_eq!(node.value, Value::Int(48));
        assert_eq!(&text[node.span.clone()], "48");
    }
}
