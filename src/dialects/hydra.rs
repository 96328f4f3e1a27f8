//! Hydra/OmegaConf configs without a framework's batch keys: a defaults list,
//! `_target_` keys, or a file of a Hydra config tree. Roles come from the
//! manifest's `[bindings]`.

use super::{Doc, Dialect, Evidence, Framework};
use crate::load::Value;

pub(crate) const HYDRA: Dialect = Dialect(&Hydra);

pub struct Hydra;

impl Framework for Hydra {
    fn name(&self) -> &'static str {
        "hydra"
    }

    fn title(&self) -> &'static str {
        "Hydra"
    }

    fn doc(&self) -> Doc {
        Doc {
            evidence: "a defaults list, `_target_`, or a file of a Hydra config tree",
            roles: "the manifest's `[bindings]`",
            semantics: "composition",
        }
    }

    fn evidence(&self, cx: &Evidence) -> Option<String> {
        if cx.root.get("defaults").is_some_and(|d| matches!(d.value, Value::Seq(_))) {
            return Some("a Hydra `defaults` list".to_owned());
        }
        if super::contains_key(cx.root, "_target_", 6) {
            return Some("`_target_` keys (Hydra instantiation)".to_owned());
        }
        None
    }

    /// A file of a Hydra config tree (a group option, or a file below a
    /// primary's folder), unless the manifest's `[bindings]` match it.
    fn layout_evidence(&self, cx: &Evidence) -> Option<String> {
        let primary = (cx.hydra_primary)(cx.path?)?;
        cx.bound().is_empty().then(|| format!("a file of the Hydra config tree of `{}`", primary.display()))
    }

    fn interpolates(&self) -> bool {
        true
    }

    fn composed_by_hydra(&self) -> bool {
        true
    }
}
