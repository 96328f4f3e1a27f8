//! MIG rules: framework deprecations, each an ordered, idempotent migration
//! with an id, the framework version that made the change, and its source.
//! `trainlint migrate` runs only these (diff by default, `--write` to apply);
//! `check` reports them as warnings and `--fix` applies the safe ones.

pub(crate) mod deepspeed_bfloat16_section;
pub(crate) mod hf_renamed_training_argument;
pub(crate) mod lightning_gpus_argument;
pub(crate) mod lightning_precision_name;
pub(crate) mod lightning_removed_trainer_argument;
pub(crate) mod pytorch_alloc_conf_name;

use crate::diagnostic::Edit;
use crate::dialects::{deepspeed::DEEPSPEED, hf_trainer::HF_TRAINER, lightning::LIGHTNING};
use crate::load::{Document, Entry, Node};
use crate::rules::Checker;
use crate::settings::Settings;
use std::sync::Arc;

pub fn check(checker: &mut Checker, document: &Document, root: &Node, settings: &Settings) {
    // Each framework names the mappings its migrations look at.
    for trainer in LIGHTNING.migration_scopes(root) {
        lightning_precision_name::check(checker, document, trainer, settings);
        lightning_gpus_argument::check(checker, document, trainer, settings);
        lightning_removed_trainer_argument::check(checker, document, trainer, settings);
    }
    for arguments in HF_TRAINER.migration_scopes(root) {
        hf_renamed_training_argument::check(checker, document, arguments, settings);
    }
    for config in DEEPSPEED.migration_scopes(root) {
        deepspeed_bfloat16_section::check(checker, document, config, settings);
    }
    pytorch_alloc_conf_name::check(checker, document, root, settings);
}

/// A key renamed in place, keeping its quotes.
pub(crate) fn rename_key(document: &Document, entry: &Entry, new: &str) -> Edit {
    let raw = document.source.text().get(entry.key_span.clone()).unwrap_or("");
    let content = match raw.chars().next() {
        Some(quote @ ('"' | '\'')) => format!("{quote}{new}{quote}"),
        _ => new.to_owned(),
    };
    Edit { file: Arc::clone(&document.source), span: entry.key_span.clone(), content }
}

/// Whether a Lightning change made in `version` applies to the project (issue 25: versions are
/// read where they are written, `resolve::versions`): `None` when the project states an older
/// Lightning (no finding), `Some(true)` when it states this one or later, or a range that allows
/// both (the finding as the rule's severity), `Some(false)` when it states no version at all (the
/// finding as an info that says it assumes the latest release: the caller appends `assumed`).
pub(crate) fn lightning_applies(settings: &Settings, document: &Document, version: &[u64]) -> Option<bool> {
    use crate::resolve::versions;
    use crate::schema::version::Version;
    unstated_if_applies(versions::at_least(settings, LIGHTNING, document.source.path(), &Version::new(version))).map(|unstated| !unstated)
}

/// What `versions::at_least` (or `at_least_of`) for the release that made a change means for a
/// migration's finding (issue 25): `None` when the project states an older release (no finding),
/// `Some(false)` when it states that release or later, or a range that allows both (the rule's
/// severity), `Some(true)` when it states no version at all (an info that says it assumes the
/// latest release). Every version-gated migration reads its finding from here.
pub(crate) fn unstated_if_applies(found: Result<(bool, crate::resolve::versions::Declared), Vec<crate::resolve::versions::Declared>>) -> Option<bool> {
    match found {
        Ok((false, _)) => None,
        Ok((true, _)) => Some(false),
        Err(undecided) => Some(undecided.is_empty()),
    }
}

/// The words an unstated version adds to a migration's message.
pub(crate) const ASSUMED_LIGHTNING: &str = " (assuming the latest Lightning: the project states no Lightning version)";
