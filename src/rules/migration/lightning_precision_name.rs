use crate::declare_rule;
use crate::diagnostic::{Applicability, Diagnostic, Fix};
use crate::dialects::lightning::LIGHTNING;
use crate::load::yaml_edit::replace_scalar;
use crate::load::{Document, Node, Value};
use crate::resolve::versions;
use crate::rules::Checker;
use crate::schema::version::Version;
use crate::settings::Settings;

declare_rule! {
    /// ## What it does
    /// Migrates PyTorch Lightning 1.x precision values in `Trainer` arguments to
    /// their Lightning 2.0 names: `16` → `16-mixed`, `bf16` → `bf16-mixed`.
    ///
    /// ## Why is this bad?
    /// Lightning 2.0 renamed them to say what they do (mixed precision, fp32
    /// weights); the old spellings are kept as deprecated aliases and warn.
    /// Source: Lightning 2.0.0 release notes, "Trainer(precision=...)" (the
    /// accepted values are listed in FACTS.md §6).
    ///
    /// ## Example
    /// ```yaml
    /// trainer:
    ///   precision: 16
    /// ```
    ///
    /// Use instead:
    /// ```yaml
    /// trainer:
    ///   precision: 16-mixed
    /// ```
    ///
    /// ## Which Lightning version
    /// `16-mixed` and `bf16-mixed` do not exist before Lightning 2.0, so the
    /// rule depends on the version the project trains with, as ruff's fixes
    /// depend on its `target-version`. The version is read from the manifest
    /// (`[frameworks] lightning = "2.2"`), else from the project's lock files
    /// (`uv.lock`, `poetry.lock`) and requirements (`pyproject.toml`,
    /// `requirements*.txt`, `setup.cfg`, `environment.yml`), in the config's
    /// folder and each folder above it up to the project's root; the first
    /// that settles "at least 2.0?" wins (`lightning` and `pytorch-lightning`
    /// alike):
    ///
    /// - at least 2.0: the finding, with a safe fix;
    /// - below 2.0 (`pytorch-lightning==1.9.5`, `lightning<2`): no finding, the
    ///   1.x spelling is the right one there;
    /// - unknown (no version, or a range such as `>=1.8` that allows both): the
    ///   finding says it assumes Lightning ≥ 2.0, and its fix is unsafe.
    ///
    /// ## Fix safety
    /// Safe when the project is known to use Lightning ≥ 2.0: the new name
    /// selects the same precision plugin. Unsafe when the version is unknown:
    /// on Lightning 1.x the new name is an error. The version is read from the
    /// manifest, the project's lock and requirement files, and a LightningCLI
    /// config's own header (`# lightning.pytorch==2.0.6`, the `dump_header`
    /// `LightningCLI.init_parser` writes); a project that states none gets the
    /// finding as an info that says it assumes Lightning ≥ 2.0.
    pub struct LightningPrecisionName {
        name: "lightning-precision-name",
        severity: Warning,
        fix: Always,
        since: "0.1.0",
        check: Migrations,
        options: ["frameworks"],
    }
}

pub fn check(checker: &mut Checker, document: &Document, trainer: &Node, settings: &Settings) {
    let Some(entry) = trainer.entry("precision") else { return };
    let new = match &entry.value.value {
        Value::Int(16) => "16-mixed",
        Value::Str(s) if s == "16" => "16-mixed",
        Value::Str(s) if s == "bf16" => "bf16-mixed",
        _ => return,
    };
    let Some(edit) = replace_scalar(&document.source, &entry.value, new) else { return };
    let old = document.source.text().get(entry.value.span.clone()).unwrap_or("").to_owned();
    // The `-mixed` names appeared in Lightning 2.0 (its release notes, cited in the doc above).
    let renamed_in = Version::new(&[2, 0]);
    // No statement of the version at all: an info that says it assumes the latest release
    // (issue 25); a statement that allows both 1.x and 2.x keeps the warning.
    let mut stated = true;
    let (message, note, applicability) = match versions::at_least(settings, LIGHTNING, document.source.path(), &renamed_in) {
        Ok((false, _)) => return,
        Ok((true, declared)) => (
            format!("Lightning 2.0 renamed precision `{old}` to `{new}`"),
            format!("the 1.x spelling is a deprecated alias in Lightning 2.x, which this project uses ({})", declared.source),
            Applicability::Safe,
        ),
        Err(undecided) => {
            let why = match undecided.first() {
                Some(declared) => format!("{} allows Lightning 1.x and 2.x", declared.source),
                None => {
                    stated = false;
                    "the project states no Lightning version".to_owned()
                }
            };
            (
                format!("Lightning 2.0 renamed precision `{old}` to `{new}` (assuming Lightning ≥ 2.0: {why})"),
                format!(
                    "`{new}` is an error before Lightning 2.0; state the version (`[frameworks] lightning = \"2.2\"` in trainlint.toml, or pin `lightning` in requirements or a lock file) to make the fix safe, or to silence this on 1.x"
                ),
                Applicability::Unsafe,
            )
        }
    };
    let mut diagnostic = Diagnostic::new(LightningPrecisionName, &document.source, entry.value.span.clone(), message)
        .with_label("deprecated precision name")
        .with_note(note)
        .with_help(format!("write `{new}`"))
        .with_fix(Fix { applicability, message: format!("Replace `{old}` with `{new}`"), edits: vec![edit] });
    if !stated {
        diagnostic = diagnostic.at_most(crate::diagnostic::Severity::Info);
    }
    checker.report(diagnostic);
}
