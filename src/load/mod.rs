//! Stage 1 of the pipeline: bytes → spanned tree.
//!
//! Reading never executes anything and never fails on content: a file that
//! cannot be read as a configuration comes back as a `LoadError`, which the
//! rules stage reports as SCH001. Only I/O failures (a missing path, a
//! permission problem) are fatal, because then there is nothing to lint.

pub mod discover;
pub mod git;
pub mod json;
pub mod loader;
pub(crate) mod programs;
pub(crate) mod python;
pub mod scalar;
pub mod shell;
pub mod toml;
pub mod tree;
pub mod yaml;
pub mod yaml_edit;

use crate::source::{SourceFile, Span};
pub use loader::Loader;
use std::path::Path;
use std::sync::Arc;
pub(crate) use tree::Entry;
pub use tree::{Node, ScalarStyle, Value};

/// Files above this size are refused before parsing (`SCH001 file too large`),
/// and no read takes more (`Loader`). A training config is a few KiB: the
/// corpus's largest file is 20,840 bytes (a RunPod config in the corpus),
/// 50 times below the limit. The limit is a resource bound: the costliest
/// shapes measured at 1 MiB (nested mappings, a 500,000-item flow sequence,
/// 100,000 interpolations, repeated duplicate keys; 2026-11-23, release build,
/// `/usr/bin/time`, two runs) take at most 0.52 s of CPU and 161 MB; at 4 MiB
/// the same shapes took 1.2 s and 374 MB, too close to the 2 s / 500 MB
/// promise (book/src/hardening.md, "Budgets").
pub(crate) const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// All the bytes one run (one loader: a `check`, or one `--fix` pass) may read,
/// every file and every file a config pulls in counted each time it is read.
/// Past it every read fails: a checked file with exit 2, a file a config pulls
/// in with SCH007 on that config. 256 files at the per-file limit; the
/// 10,000-file benchmark tree (book/src/benchmarks.md) is 2.4 MB, the corpus 4.7 MB.
pub(crate) const MAX_RUN_BYTES: u64 = 256 * 1024 * 1024;

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Yaml,
    Json,
    /// JSON with comments and trailing commas, where the file type says so
    /// (`*.jsonc`, `tsconfig.json`, `devcontainer.json`, VS Code settings): read
    /// as the tools that own them read it, never reported as invalid JSON.
    Jsonc,
    /// Training flags in a shell script.
    Shell,
    /// TOML (torchtitan's `train_configs/*.toml`): read only as the frameworks that read TOML
    /// (`dialects::Framework::reads_toml`); any other TOML file is not a training config.
    Toml,
    /// A Python training script: the literal keyword arguments of its `TrainingArguments` / TRL
    /// config call (`load::python`); read, never imported or run.
    Python,
}

impl Format {
    /// The format's name in prose: `YAML`, `JSON`, `JSONC`, `shell script`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Yaml => "YAML",
            Format::Json => "JSON",
            Format::Jsonc => "JSONC",
            Format::Shell => "shell script",
            Format::Toml => "TOML",
            Format::Python => "Python script",
        }
    }

    /// The format a path's extension implies; `None` for files trainlint does not read.
    /// A file without an extension whose first line is a shell shebang (`#!/bin/bash`,
    /// `#!/usr/bin/env bash`, `sh`, `zsh`, `dash`, `ksh`): a launch script (`scripts/train`).
    pub(crate) fn from_shebang(head: &[u8]) -> Option<Format> {
        let line = head.strip_prefix(b"#!")?;
        let line = &line[..line.iter().position(|b| *b == b'\n').unwrap_or(line.len())];
        let line = std::str::from_utf8(line).ok()?;
        let mut words = line.split_whitespace();
        let mut program = words.next()?.rsplit('/').next()?;
        if program == "env" {
            program = words.find(|w| !w.starts_with('-'))?;
        }
        matches!(program, "bash" | "sh" | "zsh" | "dash" | "ksh").then_some(Format::Shell)
    }

    /// The format of a file without an extension, from its first bytes (`from_shebang`).
    pub(crate) fn sniff(path: &Path) -> Option<Format> {
        use std::io::Read;
        if path.extension().is_some() {
            return None;
        }
        // A regular file with content: procfs and sysfs files report 0 bytes and may block on read
        // (`/proc/kmsg`), so they are never opened here.
        let metadata = std::fs::metadata(path).ok()?;
        if !metadata.is_file() || metadata.len() == 0 {
            return None;
        }
        let mut head = [0u8; 128];
        let file = std::fs::File::open(path).ok()?;
        let n = file.take(128).read(&mut head).ok()?;
        Format::from_shebang(&head[..n])
    }

    /// Whether a `.toml` file found by walking looks like a torchtitan config: a `[training]`
    /// table header, a `local_batch_size` or `batch_size` key, and a `[parallelism]` or `[model]`
    /// table header, each at the start of a line. Only such TOML files are collected by the
    /// walker (`discover::walk`); the dialect's evidence (`dialects::torchtitan`) then decides on
    /// the parsed tree. `pyproject.toml`, `Cargo.toml`, `ruff.toml` and trainlint's own manifest
    /// are never collected. Reads at most `MAX_FILE_BYTES` + 1 bytes of a regular file; a larger
    /// file is data, not a config.
    pub(crate) fn looks_like_torchtitan(path: &Path) -> bool {
        walked_text(path).is_some_and(|text| Format::toml_text_looks_like_torchtitan(&text))
    }

    /// Whether a `.py` file found by walking may be a training script: it calls `TrainingArguments`
    /// or a TRL config (`python::looks_like_training_script`). Only such files are collected by the
    /// walker; the reader (`load::python`) then reads their calls. Reads at most `MAX_FILE_BYTES` + 1
    /// bytes of a regular file; a larger file is not read.
    pub(crate) fn looks_like_training_script(path: &Path) -> bool {
        walked_text(path).is_some_and(|text| python::looks_like_training_script(&text))
    }

    /// `looks_like_torchtitan` on a text.
    pub(crate) fn toml_text_looks_like_torchtitan(text: &str) -> bool {
        let header = |line: &str, name: &str| line.strip_prefix('[').and_then(|rest| rest.split(']').next()).is_some_and(|inside| inside.trim() == name);
        let key = |line: &str, name: &str| line.strip_prefix(name).is_some_and(|rest| rest.trim_start().starts_with('='));
        let lines: Vec<&str> = text.lines().map(str::trim_start).collect();
        lines.iter().any(|l| header(l, "training"))
            && lines.iter().any(|l| key(l, "local_batch_size") || key(l, "batch_size"))
            && lines.iter().any(|l| header(l, "parallelism") || header(l, "model"))
    }

    /// A file's format by its extension, else by its text's shebang (an extensionless launch
    /// script), else YAML: the parsers and the fixes read a file by this.
    pub(crate) fn of(path: &Path, text: &str) -> Format {
        Format::from_path(path).or_else(|| if path.extension().is_none() { Format::from_shebang(text.as_bytes()) } else { None }).unwrap_or(Format::Yaml)
    }

    pub fn from_path(path: &Path) -> Option<Format> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "yaml" | "yml" => Some(Format::Yaml),
            "json" if is_jsonc_by_name(path) => Some(Format::Jsonc),
            "json" => Some(Format::Json),
            "jsonc" => Some(Format::Jsonc),
            "sh" | "bash" | "slurm" | "sbatch" => Some(Format::Shell),
            "toml" => Some(Format::Toml),
            "py" => Some(Format::Python),
            _ => None,
        }
    }
}

/// The text of a regular file found by walking, for a look at whether it is a config at all: at
/// most `MAX_FILE_BYTES` (a larger file is data, not a config), UTF-8 (else `None`).
fn walked_text(path: &Path) -> Option<String> {
    use std::io::Read;
    let metadata = std::fs::metadata(path).ok()?;
    if !metadata.is_file() || metadata.len() > MAX_FILE_BYTES {
        return None;
    }
    let mut text = String::new();
    std::fs::File::open(path).ok()?.take(MAX_FILE_BYTES + 1).read_to_string(&mut text).ok()?;
    Some(text)
}

/// `.json` files whose owners read them as JSONC: TypeScript's `tsconfig.json`
/// and `jsconfig.json` (and `tsconfig.*.json`), the Dev Container spec's
/// `devcontainer.json` / `.devcontainer.json`, and VS Code's `.vscode/*.json`
/// (settings, launch, tasks, extensions), all documented as "JSON with Comments".
fn is_jsonc_by_name(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else { return false };
    let name = name.to_ascii_lowercase();
    let parent = path.parent().and_then(|p| p.file_name()).and_then(|n| n.to_str()).unwrap_or_default();
    name.starts_with("tsconfig.")
        || name.starts_with("jsconfig.")
        || name == "devcontainer.json"
        || name == ".devcontainer.json"
        || parent == ".vscode"
        || parent == ".devcontainer"
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DuplicateKey {
    pub key: String,
    pub first: Span,
    pub second: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum LoadError {
    Empty,
    Binary { offset: usize },
    NotUtf8 { offset: usize },
    TooLarge { bytes: u64 },
    Syntax { message: String, span: Span },
    AliasBudget { span: Span, budget: usize },
    TooDeep { span: Span, limit: usize },
    MultiDocument { span: Span },
}

impl LoadError {
    pub fn span(&self) -> Span {
        match self {
            LoadError::Empty | LoadError::TooLarge { .. } => 0..0,
            LoadError::Binary { offset } | LoadError::NotUtf8 { offset } => *offset..*offset,
            LoadError::Syntax { span, .. } | LoadError::AliasBudget { span, .. } | LoadError::TooDeep { span, .. } | LoadError::MultiDocument { span } => {
                span.clone()
            }
        }
    }
}

/// A loaded file: its source, its tree or why there is none, and its duplicate keys.
#[derive(Debug)]
pub struct Document {
    pub source: Arc<SourceFile>,
    pub format: Format,
    pub root: Result<Node, LoadError>,
    pub duplicates: Vec<DuplicateKey>,
}

/// Texts that replace files on disk while fixes are computed in memory
/// (`--fix` converges before anything is written; `--diff` writes nothing).
/// Keyed by canonical path. A `Loader` reads through it.
pub(crate) type Overlay = std::sync::Arc<std::collections::HashMap<std::path::PathBuf, String>>;

/// Reads and parses one file from disk (`Loader::disk().load`). `Err` only for I/O problems.
pub fn load_file(path: &Path, display: &str, format: Format) -> std::io::Result<Document> {
    Loader::disk().load(path, display, format)
}

/// Parses bytes already read (from disk, or from `git show` for a baseline).
pub fn load_bytes(path: &Path, display: &str, format: Format, bytes: Vec<u8>) -> Document {
    load_bytes_at(path, None, display, format, bytes)
}

/// `load_bytes` for a file read at `canonical` (`SourceFile::identity`).
pub(crate) fn load_bytes_at(path: &Path, canonical: Option<&Path>, display: &str, format: Format, bytes: Vec<u8>) -> Document {
    let (text, root) = match decode(bytes) {
        Ok(text) => (text, None),
        Err((lossy, error)) => (lossy, Some(error)),
    };
    let source = SourceFile::new(path, display, text);
    let source = Arc::new(match canonical {
        Some(canonical) => source.at_canonical(canonical),
        None => source,
    });
    let mut duplicates = Vec::new();
    let root = match root {
        Some(error) => Err(error),
        None => parse_text(source.text(), format).map(|(root, dups)| {
            duplicates = dups;
            root
        }),
    };
    Document { source, format, root, duplicates }
}

/// Parses a text in a format: the tree and the duplicate keys found on the way.
pub fn parse_text(text: &str, format: Format) -> Result<(Node, Vec<DuplicateKey>), LoadError> {
    // An empty Python file (`__init__.py`) is a module with nothing in it, not an empty config.
    if text.trim().is_empty() && format != Format::Python {
        return Err(LoadError::Empty);
    }
    match format {
        Format::Yaml => yaml::parse(text).map(|t| (t.root, t.duplicates)),
        Format::Json => json::parse(text).map(|t| (t.root, t.duplicates)),
        Format::Jsonc => json::parse_jsonc(text).map(|t| (t.root, t.duplicates)),
        Format::Shell => shell::parse(text, None).map(|root| (root, Vec::new())),
        Format::Toml => toml::parse(text).map(|root| (root, Vec::new())),
        Format::Python => python::parse(text).map(|root| (root, Vec::new())),
    }
}

/// Text of the file, or a lossy text (for display) and why it is not a config.
fn decode(bytes: Vec<u8>) -> Result<String, (String, LoadError)> {
    // A NUL byte never occurs in a text config; it marks a binary file.
    if let Some(offset) = bytes.iter().position(|&b| b == 0) {
        return Err((String::new(), LoadError::Binary { offset }));
    }
    let bytes = match bytes.strip_prefix(b"\xEF\xBB\xBF") {
        Some(rest) => rest.to_vec(),
        None => bytes,
    };
    match String::from_utf8(bytes) {
        Ok(text) => Ok(text),
        Err(error) => {
            let offset = error.utf8_error().valid_up_to();
            // The valid prefix is copied unchanged, so the offset holds in the lossy text.
            let lossy = String::from_utf8_lossy(error.as_bytes()).into_owned();
            Err((lossy, LoadError::NotUtf8 { offset }))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn yaml(text: &str) -> Result<(Node, Vec<DuplicateKey>), LoadError> {
        parse_text(text, Format::Yaml)
    }

    #[test]
    fn spans_are_bytes_and_end_at_the_closing_quote() {
        let text = "name: \"café ☕\"  # c\nbatch: \"4\"  # quoted\n";
        let (root, _) = yaml(text).unwrap();
        let batch = root.get("batch").unwrap();
        assert_eq!(&text[batch.span.clone()], "\"4\"");
        assert_eq!(batch.value, Value::Str("4".into()));
        let key = &root.entry("batch").unwrap().key_span;
        assert_eq!(&text[key.clone()], "batch");
    }

    #[test]
    fn anchors_aliases_and_merge_keys() {
        let text = "base: &b\n  lr: 3e-4\n  batch: 8\nrun:\n  <<: *b\n  batch: 16\n";
        let (root, dups) = yaml(text).unwrap();
        assert!(dups.is_empty());
        let run = root.get("run").unwrap();
        assert_eq!(run.get("lr").unwrap().value, Value::Float(3e-4));
        assert_eq!(run.get("batch").unwrap().value, Value::Int(16));
        // The merged value points at its definition under the anchor.
        assert_eq!(&text[run.get("lr").unwrap().span.clone()], "3e-4");
    }

    #[test]
    fn duplicate_keys_are_recorded_and_the_last_wins() {
        let (root, dups) = yaml("a: 1\nb: 2\na: 3\n").unwrap();
        assert_eq!(root.get("a").unwrap().value, Value::Int(3));
        assert_eq!(dups.len(), 1);
        assert_eq!(dups[0].first, 0..1);
        let (_, dups) = parse_text("{\"a\": 1, \"a\": 2}", Format::Json).unwrap();
        assert_eq!(dups.len(), 1);
    }

    #[test]
    fn alias_bomb_is_an_error_not_an_allocation() {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x]\n");
        for i in 1..10 {
            let prev = format!("*a{}", i - 1);
            text.push_str(&format!("a{i}: &a{i} [{}]\n", [prev.as_str(); 9].join(", ")));
        }
        assert!(matches!(yaml(&text), Err(LoadError::AliasBudget { .. })));
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let deep = format!("{}{}", "[".repeat(20_000), "]".repeat(20_000));
        assert!(matches!(yaml(&deep), Err(LoadError::TooDeep { limit: 255, .. })));
        assert!(matches!(parse_text(&deep, Format::Json), Err(LoadError::TooDeep { limit: 512, .. })));
    }

    #[test]
    fn binary_and_non_utf8_bytes() {
        let doc = load_bytes(Path::new("x.yaml"), "x.yaml", Format::Yaml, b"a: 1\n\x00\x01".to_vec());
        assert_eq!(doc.root, Err(LoadError::Binary { offset: 5 }));
        let doc = load_bytes(Path::new("x.yaml"), "x.yaml", Format::Yaml, b"a: \xff\n".to_vec());
        assert_eq!(doc.root, Err(LoadError::NotUtf8 { offset: 3 }));
        let doc = load_bytes(Path::new("x.yaml"), "x.yaml", Format::Yaml, b"  \n# only a comment\n".to_vec());
        assert!(doc.root.is_ok(), "a comment-only file is an empty mapping-less document, not an error");
    }

    #[test]
    fn toml_files_walked_only_when_they_look_like_torchtitan() {
        assert!(Format::toml_text_looks_like_torchtitan("[model]\nname = \"llama3\"\n\n[training]\nlocal_batch_size = 8\n"));
        assert!(Format::toml_text_looks_like_torchtitan("[ training ]\nbatch_size=8\n[parallelism]\n"));
        assert!(!Format::toml_text_looks_like_torchtitan("[training]\nlocal_batch_size = 8\n"));
        assert!(!Format::toml_text_looks_like_torchtitan("[training]\nlocal_batch_size_x = 8\n[model]\n"));
        assert!(!Format::toml_text_looks_like_torchtitan("[project]\nname = \"x\"\n[tool.ruff]\nline-length = 88\n"));
    }

    #[test]
    fn jsonc_where_the_file_type_says_so() {
        for path in [
            "tsconfig.json",
            "web/tsconfig.base.json",
            "jsconfig.json",
            ".devcontainer/devcontainer.json",
            ".devcontainer.json",
            ".vscode/settings.json",
            "a.jsonc",
        ] {
            assert_eq!(Format::from_path(Path::new(path)), Some(Format::Jsonc), "{path}");
        }
        for path in ["ds_config.json", "configs/devcontainer.jsonx", "settings.json", "package.json"] {
            assert_ne!(Format::from_path(Path::new(path)), Some(Format::Jsonc), "{path}");
        }
        let text = "{\n  // a comment\n  \"a\": [1, 2,], /* another */\n}\n";
        let (root, _) = parse_text(text, Format::Jsonc).unwrap();
        assert!(matches!(&root.get("a").unwrap().value, Value::Seq(items) if items.len() == 2));
        assert!(parse_text(text, Format::Json).is_err(), "plain JSON stays strict");
        assert!(parse_text("{'a': 1}", Format::Jsonc).is_err(), "JSONC is not JSON5");
    }

    #[test]
    fn strict_json() {
        assert!(parse_text("[1,2,]", Format::Json).is_err());
        assert!(parse_text("{\"a\": 1} // c", Format::Json).is_err());
        let (root, _) = parse_text("{\"n\": 12345678901234567890, \"f\": 3e-4}", Format::Json).unwrap();
        assert_eq!(root.get("n").unwrap().value, Value::UInt(12345678901234567890));
        assert_eq!(root.get("f").unwrap().value, Value::Float(3e-4));
    }
}
