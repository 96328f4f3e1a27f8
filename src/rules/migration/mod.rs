//! MIG rules: framework deprecations, each an ordered, idempotent migration
//! with an id, the framework version that made the change, and its source.
//! `trainlint migrate` runs only these (diff by default, `--write` to apply);
//! `check` reports them as warnings and `--fix` applies the safe ones.

pub mod deepspeed_bfloat16_section;
pub mod hf_renamed_training_argument;
pub mod lightning_gpus_argument;
pub mod lightning_precision_name;
pub mod lightning_removed_trainer_argument;
pub mod pytorch_alloc_conf_name;

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
        lightning_gpus_argument::check(checker, document, trainer);
        lightning_removed_trainer_argument::check(checker, document, trainer);
    }
    for arguments in HF_TRAINER.migration_scopes(root) {
        hf_renamed_training_argument::check(checker, document, arguments, settings);
    }
    for config in DEEPSPEED.migration_scopes(root) {
        deepspeed_bfloat16_section::check(checker, document, config);
    }
    pytorch_alloc_conf_name::check(checker, document, root);
}

/// A key renamed in place, keeping its quotes.
pub fn rename_key(document: &Document, entry: &Entry, new: &str) -> Edit {
    let raw = document.source.text().get(entry.key_span.clone()).unwrap_or("");
    let content = match raw.chars().next() {
        Some(quote @ ('"' | '\'')) => format!("{quote}{new}{quote}"),
        _ => new.to_owned(),
    };
    Edit { file: Arc::clone(&document.source), span: entry.key_span.clone(), content }
}
