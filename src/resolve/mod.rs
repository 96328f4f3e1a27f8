//! Stage 2 of the pipeline: what a loaded config means for a training run.
//!
//! A dialect is detected from the keys a file has; its bindings map roles to
//! key paths; the result is a `ResolvedConfig`: each role's value with the
//! file and span it came from, and the batch arithmetic derived from them.

pub mod batch;
pub mod hydra;
pub mod native;

use crate::load::{Document, Node};
use crate::schema::Role;
use crate::settings::Settings;
use crate::source::{SourceFile, Span};
use batch::BatchView;
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Dialect {
    /// trainlint's native format (`trainlint: 1` at the top level).
    Native,
    /// No dialect recognised: the file is loaded and checked for syntax and duplicate keys only.
    Unknown,
}

impl Dialect {
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Native => "native",
            Dialect::Unknown => "unknown",
        }
    }
}

/// Which dialect and the evidence for it (shown by `trainlint show`).
#[derive(Clone, Debug, Serialize)]
pub struct Detection {
    pub dialect: Dialect,
    pub reason: String,
}

pub fn detect(root: &Node) -> Detection {
    if root.get("trainlint").is_some() {
        return Detection { dialect: Dialect::Native, reason: "the top-level key `trainlint` marks the native format".into() };
    }
    Detection {
        dialect: Dialect::Unknown,
        reason: "no native `trainlint` key; framework dialects (Hydra, Lightning, HF, DeepSpeed, ...) are not recognised yet".into(),
    }
}

/// A role's value and where it is written.
#[derive(Clone, Debug)]
pub struct RoleValue {
    pub value: serde_json::Value,
    pub file: Arc<SourceFile>,
    pub span: Span,
    pub key_span: Span,
}

#[derive(Clone, Debug)]
pub struct ResolvedConfig {
    pub source: Arc<SourceFile>,
    pub detection: Detection,
    pub tree: Node,
    pub roles: BTreeMap<Role, RoleValue>,
    pub batch: BatchView,
}

pub fn resolve(document: &Document, root: &Node, settings: &Settings) -> ResolvedConfig {
    let detection = detect(root);
    let bindings: &[(Role, &str)] = match detection.dialect {
        Dialect::Native => &native::BINDINGS,
        Dialect::Unknown => &[],
    };
    let mut roles = BTreeMap::new();
    for (role, path) in bindings {
        if let Some(entry) = root.entry_dotted(path) {
            roles.insert(
                *role,
                RoleValue { value: entry.value.to_json(), file: Arc::clone(&document.source), span: entry.value.span.clone(), key_span: entry.key_span.clone() },
            );
        }
    }
    let batch = BatchView::from_roles(&roles, detection.dialect, settings.world_size);
    ResolvedConfig { source: Arc::clone(&document.source), detection, tree: root.clone(), roles, batch }
}
