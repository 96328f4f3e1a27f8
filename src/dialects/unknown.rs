//! No dialect recognised: the file is loaded and checked for syntax and
//! duplicate keys only.

use super::{Doc, ALL, Dialect, Evidence, Framework};

pub(crate) const UNKNOWN: Dialect = Dialect(&Unknown);

pub struct Unknown;

/// Which frameworks' keys were looked for.
pub(crate) fn reason() -> String {
    let frameworks: Vec<&str> = ALL.iter().filter(|d| !d.pseudo() && !d.reads_toml()).map(|d| d.title()).collect();
    format!("no framework's keys found ({}) and no manifest [bindings] match", frameworks.join(", "))
}

/// Why a TOML file is not a training config: only the frameworks that read TOML could claim it.
pub(crate) fn toml_reason() -> String {
    let frameworks: Vec<&str> = ALL.iter().filter(|d| d.reads_toml()).map(|d| d.title()).collect();
    format!("a TOML file without the keys of a framework that reads TOML ({})", frameworks.join(", "))
}

impl Framework for Unknown {
    fn name(&self) -> &'static str {
        "unknown"
    }

    fn title(&self) -> &'static str {
        "unknown"
    }

    fn doc(&self) -> Doc {
        Doc {
            evidence: "nothing else matches",
            roles: "none",
            semantics: "syntax and duplicate keys only",
        }
    }

    fn pseudo(&self) -> bool {
        true
    }

    /// Always: the last dialect of the registry.
    fn layout_evidence(&self, _cx: &Evidence) -> Option<String> {
        Some(reason())
    }

    /// Inside a Hydra composition or a curriculum (OmegaConf merges them), read
    /// as OmegaConf reads it, so that `${...}` is not taken as text. A file
    /// alone that no dialect recognises is read as text (`resolve::resolve`):
    /// `${{ github.sha }}` in a workflow is not an interpolation.
    fn interpolates(&self) -> bool {
        true
    }
}
