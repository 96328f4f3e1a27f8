//! Hydra: which file is an option of a config group, which is a primary,
//! and composition of a primary's defaults list (groups, `_self_`, `@package`,
//! overrides). Interpolation is resolved afterwards by `resolve::interpolate`.

use crate::load::{self, Format, Loader, Node, Value};
use std::path::{Path, PathBuf};

/// A Hydra override: `key` (a group or a dotted value path) and its value.
type Override = (String, String);

/// The primary config whose `defaults:` list names the group `path` belongs to
/// (`configs/callbacks/none.yaml` is an option of group `callbacks` when
/// `configs/train.yaml` lists `- callbacks: ...`). Hydra reads an empty option
/// file as "nothing", so such a file is not an error.
pub(crate) fn primary_config_of_group_option(loader: &Loader, path: &Path) -> Option<PathBuf> {
    let absolute = std::path::absolute(path).ok()?;
    let mut group = absolute.parent()?;
    let mut group_name = group.file_name()?.to_str()?.to_owned();
    // Nested groups (`configs/model/encoder/x.yaml`) are named `model/encoder`.
    for _ in 0..4 {
        let search_dir = group.parent()?;
        if let Some(primary) = primary_listing(loader, search_dir, &group_name) {
            return Some(primary);
        }
        group_name = format!("{}/{group_name}", search_dir.file_name()?.to_str()?);
        group = search_dir;
    }
    None
}

fn primary_listing(loader: &Loader, dir: &Path, group: &str) -> Option<PathBuf> {
    primaries_in(loader, dir).iter().find(|primary| primary.groups.iter().any(|listed| listed == group)).map(|primary| primary.path.clone())
}

/// A YAML file with a `defaults:` list, and the groups that list names.
struct PrimaryCandidate {
    path: PathBuf,
    groups: Vec<String>,
}

/// The YAML files of `dir` that carry a `defaults:` list, sorted by path so
/// the answer does not depend on the file system's listing order. Every file
/// of a config group asks about the same few folders, so the answer is kept
/// in the loader's memo: without it a 1,000-file Hydra tree reads and parses
/// its primaries once per file. The memo lives as long as the run's loader and
/// answers from its source (the work tree, a fix pass's texts, a baseline
/// revision), so it cannot mix two states of the tree.
fn primaries_in(loader: &Loader, dir: &Path) -> std::sync::Arc<Vec<PrimaryCandidate>> {
    loader.memo("hydra-primaries", dir, || scan_primaries(loader, dir))
}

fn scan_primaries(loader: &Loader, dir: &Path) -> Vec<PrimaryCandidate> {
    let mut candidates = Vec::new();
    if let Ok(entries) = loader.list(dir) {
        // Sorted by name, so by path.
        for entry in entries {
            let path = dir.join(&entry.name);
            if Format::from_path(&path) != Some(Format::Yaml) || !loader.is_file(&path) {
                continue;
            }
            let Ok(text) = loader.read_text(&path) else { continue };
            if !text.contains("defaults") {
                continue;
            }
            let Ok((root, _)) = load::parse_text(&text, Format::Yaml) else { continue };
            let Some(Value::Seq(items)) = root.get("defaults").map(|n| &n.value) else { continue };
            let groups = items
                .iter()
                .filter_map(|item| item.entries())
                .flat_map(|entries| entries.iter())
                .map(|entry| {
                    let key = entry.key.trim_start_matches("override ").trim_start_matches("optional ");
                    key.split('@').next().unwrap_or(key).to_owned()
                })
                .collect();
            candidates.push(PrimaryCandidate { path, groups });
        }
    }
    candidates
}

/// A primary config (a YAML file with a `defaults` list) in one of the three
/// folders above `path`: the file belongs to that Hydra config tree.
pub(crate) fn primary_config_above(loader: &Loader, path: &Path) -> Option<PathBuf> {
    let absolute = std::path::absolute(path).ok()?;
    let mut dir = absolute.parent()?.parent();
    for _ in 0..3 {
        let current = dir?;
        if let Some(primary) = primaries_in(loader, current).first() {
            return Some(primary.path.clone());
        }
        dir = current.parent();
    }
    None
}

/// A problem found while composing: a defaults entry that names no file, a
/// mandatory `???` choice, a cycle, a path leaving the config folder.
#[derive(Clone, Debug)]
pub struct CompositionProblem {
    /// Index into the composition's files.
    pub file: usize,
    pub span: crate::source::Span,
    pub message: String,
    /// An error (Hydra would fail) or a value that is only given at launch.
    pub error: bool,
    /// What to do, when the usual advice (correct the name, or mark the entry
    /// `optional`) does not fit: a file refused, a budget spent.
    pub help: Option<&'static str>,
}

/// A primary config with its defaults list composed: the merged tree (each
/// node's `origin` indexes `files`), and what went wrong.
pub struct Composition {
    pub files: Vec<std::sync::Arc<crate::source::SourceFile>>,
    pub tree: Node,
    pub problems: Vec<CompositionProblem>,
    /// group → chosen option, in the order they were composed.
    pub choices: Vec<(String, String)>,
}

/// Whether `root` is a Hydra primary config: it has a defaults list, and no
/// other primary lists it as a group option.
pub(crate) fn is_primary(loader: &Loader, root: &Node, path: &Path) -> bool {
    matches!(root.get("defaults").map(|d| &d.value), Some(Value::Seq(_))) && primary_config_of_group_option(loader, path).is_none()
}

/// `# @package <name>` in the file's header comments.
fn package_header(text: &str) -> Option<String> {
    for line in text.lines().take_while(|l| l.trim().is_empty() || l.trim_start().starts_with('#')) {
        if let Some(rest) = line.trim_start().trim_start_matches('#').trim_start().strip_prefix("@package") {
            return Some(rest.trim().to_owned());
        }
    }
    None
}

/// The composition budget, per composed primary: at most this many configs
/// included (every entry of every defaults list that names a file counts, the
/// same file again too)... A real Hydra tree includes tens (the corpus's
/// largest composes 12 files); 26 files that each include the next twice
/// would include 2^26.
pub(crate) const MAX_COMPOSED_CONFIGS: usize = 500;

/// ...and at most this many nodes in all the configs included, counted each
/// time one is included: the size of the tree the merge works through. The
/// same bound as the YAML alias budget (`load::yaml`, 100,000 nodes).
pub(crate) const MAX_COMPOSED_NODES: usize = 100_000;

/// A config of a composition as read once per loader (`Loader::memo`): a
/// file included many times, by one primary or by every primary of a folder,
/// is read and parsed once.
enum Included {
    Config(std::sync::Arc<crate::source::SourceFile>, Node),
    /// Not read, and why (outside the project, not a regular file, too large).
    Refused(String),
    /// Read, but not a config (its own check reports why).
    Unreadable,
}

struct Composer<'a> {
    config_root: PathBuf,
    files: Vec<std::sync::Arc<crate::source::SourceFile>>,
    roots: Vec<Node>,
    problems: Vec<CompositionProblem>,
    overrides: std::collections::HashMap<String, String>,
    choices: Vec<(String, String)>,
    loader: &'a Loader,
    stack: Vec<PathBuf>,
    /// Configs and nodes included so far, against `MAX_COMPOSED_CONFIGS` / `MAX_COMPOSED_NODES`.
    included: usize,
    nodes: usize,
    /// The budget ran out: nothing more is included.
    stopped: bool,
}

/// Composes a primary config as Hydra does (defaults lists, `_self_`,
/// `override`, `optional`, `group@package`, `# @package`), reading files with
/// `loader`; `overrides` are command-line-style group choices (`trainer=gpu`).
pub(crate) fn compose(primary: &crate::load::Document, root: &Node, overrides: &[String], loader: &Loader) -> Composition {
    let path = primary.source.path().to_path_buf();
    let config_root = config_root(loader, &path, root);
    let mut composer = Composer {
        config_root,
        files: vec![std::sync::Arc::clone(&primary.source)],
        roots: vec![root.clone()],
        problems: Vec::new(),
        overrides: overrides.iter().filter_map(|o| o.split_once('=')).map(|(g, v)| (g.trim_start_matches('/').to_owned(), v.to_owned())).collect(),
        choices: Vec::new(),
        loader,
        stack: vec![path],
        included: 0,
        nodes: root.count(),
        stopped: false,
    };
    // `group=option` chooses an option; `key.path=value` sets a value after composition.
    let (group_overrides, value_overrides): (Vec<Override>, Vec<Override>) =
        composer.overrides.drain().partition(|(key, _)| loader.is_dir(&composer.config_root.join(key)));
    composer.overrides = group_overrides.into_iter().collect();
    composer.collect_overrides(0, "");
    let parts = composer.process(0, String::new(), String::new());
    let mut tree = Node::new(Value::Map(Vec::new()), root.span.clone());
    for (index, package) in parts {
        let mut content = composer.roots[index].clone();
        if let Value::Map(entries) = &mut content.value {
            entries.retain(|e| e.key != "defaults");
        }
        content.set_origin(index);
        tree.merge(&wrap(content, &package));
    }
    for (key, value) in value_overrides {
        set_override(&mut tree, &key, &value);
    }
    Composition { files: composer.files, tree, problems: composer.problems, choices: composer.choices }
}

/// A value from the manifest's overrides (or `--set`): typed as a YAML scalar, and marked
/// as not written in any config (a fix cannot edit it in place).
pub(crate) fn set_override(tree: &mut Node, key: &str, value: &str) {
    let mut node = tree;
    let segments: Vec<&str> = key.trim_start_matches('+').split('.').collect();
    for (i, segment) in segments.iter().enumerate() {
        let last = i + 1 == segments.len();
        if !matches!(node.value, Value::Map(_)) {
            node.value = Value::Map(Vec::new());
        }
        let Value::Map(entries) = &mut node.value else { return };
        let position = match entries.iter().position(|e| e.key == *segment) {
            Some(p) => p,
            None => {
                entries.push(crate::load::Entry { key: (*segment).to_owned(), key_span: 0..0, key_origin: 0, value: Node::new(Value::Map(Vec::new()), 0..0) });
                entries.len() - 1
            }
        };
        if last {
            let mut scalar = Node::new(crate::load::scalar::type_plain_scalar(value), 0..0);
            scalar.alias = Some(0..0);
            scalar.style = Some(crate::load::ScalarStyle::Plain);
            entries[position].value = scalar;
            return;
        }
        node = &mut entries[position].value;
    }
}

/// The folder the defaults list's groups are relative to: the primary's own
/// folder, or the nearest folder above it (two levels at most) that holds one
/// of the groups it lists (a primary kept in a subfolder of the config path).
fn config_root(loader: &Loader, path: &Path, root: &Node) -> PathBuf {
    let own = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let groups: Vec<String> = match root.get("defaults").map(|d| &d.value) {
        Some(Value::Seq(items)) => {
            items.iter().filter_map(|i| i.entries().and_then(|e| e.first()).map(|e| parse_key(&e.key).group.trim_start_matches('/').to_owned())).collect()
        }
        _ => Vec::new(),
    };
    let mut candidate = Some(own.clone());
    for _ in 0..3 {
        let Some(dir) = candidate else { break };
        if groups.iter().any(|g| loader.is_dir(&dir.join(g))) {
            return dir;
        }
        candidate = dir.parent().map(Path::to_path_buf);
    }
    own
}

fn wrap(node: Node, package: &str) -> Node {
    if package.is_empty() {
        return node;
    }
    let span = node.span.clone();
    let origin = node.origin;
    package.rsplit('.').fold(node, |inner, key| {
        let entry = crate::load::Entry { key: key.to_owned(), key_span: span.clone(), key_origin: origin, value: inner };
        Node { value: Value::Map(vec![entry]), span: span.clone(), alias: None, style: None, origin }
    })
}

/// A defaults entry `[override ][optional ]group[@package]: option`.
struct Choice {
    is_override: bool,
    optional: bool,
    group: String,
    package: Option<String>,
}

fn parse_key(key: &str) -> Choice {
    let mut rest = key.trim();
    let mut is_override = false;
    let mut optional = false;
    loop {
        if let Some(r) = rest.strip_prefix("override ") {
            is_override = true;
            rest = r.trim_start();
        } else if let Some(r) = rest.strip_prefix("optional ") {
            optional = true;
            rest = r.trim_start();
        } else {
            break;
        }
    }
    let (group, package) = match rest.split_once('@') {
        Some((g, p)) => (g.to_owned(), Some(p.to_owned())),
        None => (rest.to_owned(), None),
    };
    Choice { is_override, optional, group, package }
}

impl Composer<'_> {
    /// The group path an entry names, from the config folder (`/x` is absolute).
    fn group_path(&self, relative_dir: &str, group: &str) -> String {
        match group.strip_prefix('/') {
            Some(absolute) => absolute.to_owned(),
            None if relative_dir.is_empty() => group.to_owned(),
            None => format!("{relative_dir}/{group}"),
        }
    }

    /// `override` entries anywhere in the defaults tree win over the choices they override.
    fn collect_overrides(&mut self, index: usize, relative_dir: &str) {
        let Some(Value::Seq(items)) = self.roots[index].get("defaults").map(|d| d.value.clone()) else { return };
        for item in &items {
            let Some([entry]) = item.entries() else { continue };
            let choice = parse_key(&entry.key);
            let group = self.group_path(relative_dir, &choice.group);
            if choice.is_override
                && let Some(option) = entry.value.as_str()
            {
                self.overrides.entry(group).or_insert_with(|| option.to_owned());
            }
        }
    }

    fn load_option(&mut self, file: &Path, from: usize, span: &crate::source::Span, optional: bool, what: &str) -> Option<usize> {
        if what.starts_with('/') || what.split('/').any(|segment| segment == "..") {
            self.problems.push(CompositionProblem {
                file: from,
                span: span.clone(),
                message: format!("`{what}` leaves the config folder"),
                error: true,
                help: None,
            });
            return None;
        }
        if !self.loader.is_file(file) {
            if !optional {
                self.problems.push(CompositionProblem {
                    file: from,
                    span: span.clone(),
                    message: format!("no config `{what}` (looked for `{}`)", file.display()),
                    error: true,
                    help: None,
                });
            }
            return None;
        }
        if self.stack.iter().any(|p| p == file) || self.stack.len() > 32 {
            self.problems.push(CompositionProblem {
                file: from,
                span: span.clone(),
                message: format!("the defaults of `{what}` include it again (a cycle)"),
                error: true,
                help: None,
            });
            return None;
        }
        if self.stopped {
            return None;
        }
        let included = self.loader.memo("hydra-config", file, || {
            let display = crate::settings::display(Path::new(""), &file.display().to_string());
            match self.loader.load(file, &display, Format::Yaml) {
                // Outside the project, not a regular file, over the run's budget: said, not skipped.
                Err(error) => Included::Refused(error.to_string()),
                Ok(document) => match document.root {
                    Ok(root) => Included::Config(document.source, root),
                    Err(crate::load::LoadError::TooLarge { bytes }) => Included::Refused(format!(
                        "file too large: {:.1} MiB (the limit is {} MiB)",
                        bytes as f64 / 1_048_576.0,
                        crate::load::MAX_FILE_BYTES / 1_048_576
                    )),
                    Err(_) => Included::Unreadable,
                },
            }
        });
        let (source, root) = match &*included {
            Included::Config(source, root) => (source, root),
            Included::Refused(why) => {
                self.problems.push(CompositionProblem {
                    file: from,
                    span: span.clone(),
                    message: format!("`{what}` is not read: {why}"),
                    error: true,
                    help: Some(
                        "keep the configs a defaults list names inside the project, as regular files under the size limit (see the book's Hardening page)",
                    ),
                });
                return None;
            }
            Included::Unreadable => return None,
        };
        self.included += 1;
        self.nodes = self.nodes.saturating_add(root.count());
        if self.included > MAX_COMPOSED_CONFIGS || self.nodes > MAX_COMPOSED_NODES {
            self.stopped = true;
            self.problems.push(CompositionProblem {
                file: from,
                span: span.clone(),
                message: if self.included > MAX_COMPOSED_CONFIGS {
                    format!("composition stopped at `{what}`: the defaults lists include more than {MAX_COMPOSED_CONFIGS} configs in all, counting a config each time it is included")
                } else {
                    format!("composition stopped at `{what}`: the configs the defaults lists include hold more than {MAX_COMPOSED_NODES} nodes in all")
                },
                error: true,
                help: Some("include each config once: a defaults list that names the same config several times, through configs that include each other, grows exponentially"),
            });
            return None;
        }
        let (source, root) = (std::sync::Arc::clone(source), root.clone());
        self.files.push(source);
        self.roots.push(root);
        Some(self.files.len() - 1)
    }

    /// The (config index, package) parts of a config, in merge order.
    fn process(&mut self, index: usize, package: String, relative_dir: String) -> Vec<(usize, String)> {
        let defaults = match self.roots[index].get("defaults").map(|d| d.value.clone()) {
            Some(Value::Seq(items)) => items,
            _ => return vec![(index, package)],
        };
        let mut parts = Vec::new();
        let mut self_added = false;
        for item in &defaults {
            if item.as_str() == Some("_self_") {
                parts.push((index, package.clone()));
                self_added = true;
                continue;
            }
            if let Some(name) = item.as_str() {
                // A config of the same folder (or `/path` from the config root).
                let relative = match name.strip_prefix('/') {
                    Some(absolute) => absolute.to_owned(),
                    None if relative_dir.is_empty() => name.to_owned(),
                    None => format!("{relative_dir}/{name}"),
                };
                let file = self.config_root.join(format!("{relative}.yaml"));
                if let Some(child) = self.load_option(&file, index, &item.span, false, &relative) {
                    let dir = relative.rsplit_once('/').map_or(String::new(), |(d, _)| d.to_owned());
                    let child_package =
                        package_header(self.files[child].text()).map(|p| if p == "_global_" { String::new() } else { p }).unwrap_or_else(|| package.clone());
                    self.stack.push(file);
                    parts.extend(self.process(child, child_package, dir));
                    self.stack.pop();
                }
                continue;
            }
            let Some([entry]) = item.entries() else { continue };
            let choice = parse_key(&entry.key);
            if choice.is_override {
                continue;
            }
            let group = self.group_path(&relative_dir, &choice.group);
            let options: Vec<(String, crate::source::Span)> = match self.overrides.get(&group) {
                Some(option) => vec![(option.clone(), entry.value.span.clone())],
                None => match &entry.value.value {
                    Value::Null => Vec::new(),
                    Value::Str(option) if option == "???" => {
                        self.problems.push(CompositionProblem {
                            file: index,
                            span: entry.value.span.clone(),
                            message: format!("the config group `{group}` is `???`: its option is chosen at launch"),
                            error: false,
                            help: None,
                        });
                        Vec::new()
                    }
                    Value::Seq(items) => items.iter().filter_map(|i| i.as_str().map(|s| (s.to_owned(), i.span.clone()))).collect(),
                    _ => entry.value.as_str().map(|s| vec![(s.to_owned(), entry.value.span.clone())]).unwrap_or_default(),
                },
            };
            for (option, span) in options {
                let what = format!("{group}/{option}");
                let file = self.config_root.join(format!("{what}.yaml"));
                let Some(child) = self.load_option(&file, index, &span, choice.optional, &what) else { continue };
                self.choices.push((group.clone(), option.clone()));
                let header = package_header(self.files[child].text());
                let child_package = match choice.package.as_deref().or(header.as_deref()) {
                    Some("_global_") => String::new(),
                    Some(explicit) => explicit.to_owned(),
                    None => {
                        let own = group.replace('/', ".");
                        if package.is_empty() { own } else { format!("{package}.{}", choice.group.trim_start_matches('/').replace('/', ".")) }
                    }
                };
                self.stack.push(file);
                parts.extend(self.process(child, child_package, group.clone()));
                self.stack.pop();
            }
        }
        if !self_added {
            // Hydra appends `_self_` when a config with content does not place it (FACTS.md §6).
            parts.push((index, package));
        }
        parts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 13 item 4: few includes of a wide config pass the node bound;
    /// the included file is read once however often it is included.
    #[test]
    fn composition_counts_nodes_and_reads_each_file_once() {
        let dir = std::env::temp_dir().join(format!("trainlint-hydra-nodes-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let big = format!("xs: [{}]\n", vec!["0"; 40_000].join(","));
        std::fs::write(dir.join("big.yaml"), &big).unwrap();
        std::fs::write(dir.join("main.yaml"), "defaults:\n  - big\n  - big\n  - big\n").unwrap();
        let loader = Loader::disk();
        let document = loader.load(&dir.join("main.yaml"), "main.yaml", Format::Yaml).unwrap();
        let root = document.root.clone().unwrap();
        let read_before = loader.bytes_read();
        let composition = compose(&document, &root, &[], &loader);
        assert_eq!(composition.files.len(), 3, "two includes of 40,001 nodes fit, the third does not");
        let messages: Vec<&str> = composition.problems.iter().map(|p| p.message.as_str()).collect();
        assert_eq!(messages, ["composition stopped at `big`: the configs the defaults lists include hold more than 100000 nodes in all"]);
        assert_eq!(loader.bytes_read() - read_before, big.len() as u64, "big.yaml is read once");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
