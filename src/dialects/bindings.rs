//! No framework recognised, but the manifest's `[bindings]` match: the roles
//! are the manifest's (applied on top of every dialect's own bindings).

use super::{Doc, Dialect, Evidence, Framework};

pub const BINDINGS: Dialect = Dialect(&Bindings);

pub(crate) struct Bindings;

impl Framework for Bindings {
    fn name(&self) -> &'static str {
        "bindings"
    }

    fn title(&self) -> &'static str {
        "manifest bindings"
    }

    fn doc(&self) -> Doc {
        Doc {
            evidence: "no framework's keys, but a path of the manifest's `[bindings]` exists in the file",
            roles: "the manifest's `[bindings]`",
            semantics: "",
        }
    }

    fn pseudo(&self) -> bool {
        true
    }

    fn layout_evidence(&self, cx: &Evidence) -> Option<String> {
        let bound = cx.bound();
        (!bound.is_empty()).then(|| format!("the manifest's [bindings] match {}", bound.join(", ")))
    }

    /// In-house layouts are most often Hydra/OmegaConf configs.
    fn interpolates(&self) -> bool {
        true
    }
}
