use super::rename_key;
use crate::declare_rule;
use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix};
use crate::load::{Document, Node};
use crate::rules::Checker;
use std::sync::Arc;

declare_rule! {
    /// ## What it does
    /// Migrates the Lightning 1.x `Trainer(gpus=N)` argument, removed in
    /// Lightning 2.0, to `accelerator: gpu` and `devices: N`.
    ///
    /// ## Why is this bad?
    /// Lightning 2.0 removed `gpus` (with `tpu_cores`, `ipus`, `num_processes`);
    /// a config that still sets it fails with "unexpected keyword argument
    /// 'gpus'". Source: Lightning 2.0.0 changelog, "Removed the
    /// Trainer(gpus=...) argument".
    ///
    /// ## Example
    /// ```yaml
    /// trainer:
    ///   gpus: 2
    /// ```
    ///
    /// Use instead:
    /// ```yaml
    /// trainer:
    ///   accelerator: gpu
    ///   devices: 2
    /// ```
    ///
    /// ## Fix safety
    /// Safe: `devices` takes the same values `gpus` took (a count, a list of
    /// indices, "0,1", -1). When `devices` is already set, the fix is not
    /// offered: which of the two was meant is for the author to decide.
    ///
    /// A project that states Lightning 1.x (manifest, lock, requirement
    /// files, a LightningCLI header) gets no finding; one that states no
    /// version gets it as an info that says it assumes the latest release.
    pub struct LightningGpusArgument {
        name: "lightning-gpus-argument",
        severity: Warning,
        fix: Sometimes,
        since: "0.1.0",
        check: Migrations,
    }
}

pub fn check(checker: &mut Checker, document: &Document, trainer: &Node, settings: &crate::settings::Settings) {
    let Some(gpus) = trainer.entry("gpus") else { return };
    // A project on Lightning 1.x keeps `gpus` (deprecated from 1.7, removed in 2.0).
    let Some(stated) = super::lightning_applies(settings, document, &[2, 0]) else { return };
    let assumed = if stated { "" } else { super::ASSUMED_LIGHTNING };
    let mut diagnostic = Diagnostic::new(
        LightningGpusArgument,
        &document.source,
        gpus.key_span.clone(),
        format!("Lightning 2.0 removed `gpus`: use `accelerator: gpu` with `devices`{assumed}"),
    )
    .with_label("removed in Lightning 2.0")
    .with_note("Trainer(gpus=...) raises a TypeError in Lightning 2.x")
    .with_help("rename `gpus` to `devices` and set `accelerator: gpu`");
    if trainer.entry("devices").is_none() {
        let mut edits = vec![rename_key(document, gpus, "devices")];
        if trainer.entry("accelerator").is_none() {
            let text = document.source.text();
            let line_start = text[..gpus.key_span.start].rfind('\n').map_or(0, |i| i + 1);
            let indent = &text[line_start..gpus.key_span.start];
            if indent.chars().all(|c| c == ' ') {
                edits.push(Edit { file: Arc::clone(&document.source), span: line_start..line_start, content: format!("{indent}accelerator: gpu\n") });
            } else {
                edits.clear();
            }
        }
        if !edits.is_empty() {
            diagnostic =
                diagnostic.with_fix(Fix { applicability: Applicability::Safe, message: "Replace `gpus` with `accelerator: gpu` and `devices`".into(), edits });
        }
    }
    if !stated {
        diagnostic = diagnostic.at_most(crate::diagnostic::Severity::Info);
    }
    checker.report(diagnostic);
}
