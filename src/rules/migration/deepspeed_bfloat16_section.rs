use super::rename_key;
use crate::declare_rule;
use crate::diagnostic::{Applicability, Diagnostic, Fix};
use crate::dialects::deepspeed::DEEPSPEED;
use crate::load::{Document, Node};
use crate::resolve::versions;
use crate::rules::Checker;
use crate::schema::version::Version;
use crate::settings::Settings;

declare_rule! {
    /// ## What it does
    /// Migrates DeepSpeed's `bfloat16` section to its current name `bf16`.
    ///
    /// ## Why is this bad?
    /// DeepSpeed documents and reads `bf16`; `bfloat16` is an alias kept for
    /// old configs (FACTS.md §6: `bf16.enabled` (alias `bfloat16`)). Tools that
    /// read the config themselves (the HF Trainer's DeepSpeed integration,
    /// config validators) look for `bf16` only.
    ///
    /// ## Example
    /// ```json
    /// {"bfloat16": {"enabled": true}, "zero_optimization": {"stage": 2}}
    /// ```
    ///
    /// Use instead:
    /// ```json
    /// {"bf16": {"enabled": true}, "zero_optimization": {"stage": 2}}
    /// ```
    ///
    /// ## Fix safety
    /// Safe for DeepSpeed ≥ 0.6.0, the release that renamed the section:
    /// its `deepspeed/runtime/constants.py` has `BFLOAT16 = "bf16"` and
    /// `BFLOAT16_OLD = "bfloat16"  # keeping for backwards compatibility`,
    /// and `config.py` `get_bfloat16_enabled` reads either (commit 4912e0ad,
    /// "rename config keys "bfloat16" -> "bf16"", first in tag v0.6.0;
    /// v0.5.10 reads `bfloat16` only). A project whose requirement, lock or
    /// `setup.py` file pins DeepSpeed below 0.6.0 gets no finding: its
    /// DeepSpeed ignores a `bf16` section, so the rename would turn bf16 off.
    /// Not offered when `bf16` is also set. A project that states no
    /// DeepSpeed version at all gets the finding as an info that says it
    /// assumes the latest release.
    pub struct DeepspeedBfloat16Section {
        name: "deepspeed-bfloat16-section",
        severity: Warning,
        fix: Sometimes,
        since: "0.1.0",
        check: Migrations,
        options: ["frameworks"],
    }
}

/// `root`: a DeepSpeed config (the DeepSpeed dialect's migration scope). `bf16` is read from
/// DeepSpeed 0.6.0 (`deepspeed/runtime/constants.py` `BFLOAT16 = "bf16"`, `BFLOAT16_OLD =
/// "bfloat16"`; commit 4912e0ad, first in v0.6.0): a project whose files pin DeepSpeed below it
/// reads `bfloat16` only, and gets no finding (`resolve::versions`).
pub fn check(checker: &mut Checker, document: &Document, root: &Node, settings: &Settings) {
    let Some(entry) = root.entry("bfloat16") else { return };
    // A project that states no DeepSpeed version gets an info that says it assumes the latest
    // release (issue 25), one pinned below 0.6.0 nothing.
    let Some(unstated) = super::unstated_if_applies(versions::at_least(settings, DEEPSPEED, document.source.path(), &Version::new(&[0, 6]))) else {
        return;
    };
    let message = if unstated {
        "DeepSpeed's `bfloat16` section is now `bf16` (assuming the latest DeepSpeed: the project states no DeepSpeed version)".to_owned()
    } else {
        "DeepSpeed's `bfloat16` section is now `bf16`".to_owned()
    };
    let mut diagnostic = Diagnostic::new(DeepspeedBfloat16Section, &document.source, entry.key_span.clone(), message)
        .with_label("old name")
        .with_note("`bfloat16` is a legacy alias; tools that read DeepSpeed configs look for `bf16`")
        .with_help("rename the section to `bf16`");
    if root.entry("bf16").is_none() {
        diagnostic = diagnostic.with_fix(Fix {
            applicability: Applicability::Safe,
            message: "Rename `bfloat16` to `bf16`".into(),
            edits: vec![rename_key(document, entry, "bf16")],
        });
    }
    if unstated {
        diagnostic = diagnostic.at_most(crate::diagnostic::Severity::Info);
    }
    checker.report(diagnostic);
}
