use super::rename_key;
use crate::declare_rule;
use crate::diagnostic::{Applicability, Diagnostic, Fix};
use crate::dialects::hf_trainer::HF_TRAINER;
use crate::load::{Document, Node};
use crate::resolve::versions;
use crate::rules::Checker;
use crate::schema::version::Version;
use crate::settings::Settings;

declare_rule! {
    /// ## What it does
    /// Migrates renamed Hugging Face `TrainingArguments` in configs that are
    /// passed to the HF Trainer (flat YAML/JSON of TrainingArguments, TRL and
    /// alignment-handbook recipes): `evaluation_strategy` → `eval_strategy`,
    /// `no_cuda` → `use_cpu`, `per_gpu_train_batch_size` →
    /// `per_device_train_batch_size`, `per_gpu_eval_batch_size` →
    /// `per_device_eval_batch_size`.
    ///
    /// Configs of frameworks that only share some TrainingArguments names
    /// (launch configs, `base_model`-style fine-tuning configs) are left alone.
    ///
    /// ## Why is this bad?
    /// transformers warns ("`evaluation_strategy` is deprecated and will be
    /// removed in version 4.46 of 🤗 Transformers. Use `eval_strategy`
    /// instead"; "`no_cuda` is deprecated ... Use `use_cpu` instead") and then
    /// removes the old name: `HfArgumentParser` rejects it. Source:
    /// transformers `training_args.py` deprecation messages.
    ///
    /// ## Example
    /// ```yaml
    /// per_device_train_batch_size: 8
    /// evaluation_strategy: steps
    /// ```
    ///
    /// Use instead:
    /// ```yaml
    /// per_device_train_batch_size: 8
    /// eval_strategy: steps
    /// ```
    ///
    /// ## Fix safety
    /// Safe for transformers ≥ 4.41 (where the new names exist); a project
    /// whose requirement, lock or `setup.py` file pins transformers below 4.41
    /// gets no `evaluation_strategy` finding (it has no `eval_strategy`). Not
    /// offered when the new name is already set. A project that states no
    /// transformers version at all gets the `evaluation_strategy` finding as an
    /// info that says it assumes the latest release.
    pub struct HfRenamedTrainingArgument {
        name: "hf-renamed-training-argument",
        severity: Warning,
        fix: Sometimes,
        since: "0.1.0",
        check: Migrations,
        options: ["frameworks"],
    }
}

const RENAMES: [(&str, &str); 4] = [
    ("evaluation_strategy", "eval_strategy"),
    ("no_cuda", "use_cpu"),
    ("per_gpu_train_batch_size", "per_device_train_batch_size"),
    ("per_gpu_eval_batch_size", "per_device_eval_batch_size"),
];

/// `root`: flat TrainingArguments (the HF dialect's migration scope). `eval_strategy` exists
/// from transformers 4.41 (the version whose `training_args.py` deprecates `evaluation_strategy`,
/// "will be removed in version 4.46"): a project whose files pin transformers below it has no
/// new name to migrate to, and gets no finding (`resolve::versions`).
pub fn check(checker: &mut Checker, document: &Document, root: &Node, settings: &Settings) {
    for (old, new) in RENAMES {
        let Some(entry) = root.entry(old) else { continue };
        // `evaluation_strategy`: a project that states no transformers version gets an info that
        // says it assumes the latest release (issue 25), one pinned below 4.41 nothing.
        let mut unstated = false;
        if old == "evaluation_strategy" {
            let Some(assumed) = super::unstated_if_applies(versions::at_least(settings, HF_TRAINER, document.source.path(), &Version::new(&[4, 41]))) else {
                continue;
            };
            unstated = assumed;
        }
        let message = if unstated {
            format!("transformers renamed `{old}` to `{new}` (assuming the latest transformers: the project states no transformers version)")
        } else {
            format!("transformers renamed `{old}` to `{new}`")
        };
        let mut diagnostic = Diagnostic::new(HfRenamedTrainingArgument, &document.source, entry.key_span.clone(), message)
            .with_label("deprecated name")
            .with_note("transformers removes deprecated TrainingArguments names; the parser then rejects them")
            .with_help(format!("rename `{old}` to `{new}`"));
        if root.entry(new).is_none() {
            diagnostic = diagnostic.with_fix(Fix {
                applicability: Applicability::Safe,
                message: format!("Rename `{old}` to `{new}`"),
                edits: vec![rename_key(document, entry, new)],
            });
        }
        if unstated {
            diagnostic = diagnostic.at_most(crate::diagnostic::Severity::Info);
        }
        checker.report(diagnostic);
    }
}
