//! What the diagnostic layer knows of a rule: its static description
//! (`RuleMeta`) and the handle a diagnostic names (`RuleId`). The rules
//! themselves live in `rules/`, registered in `rules/codes.rs`.

use super::Severity;
use serde::Serialize;

/// Whether a rule can offer a fix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FixAvailability {
    None,
    Sometimes,
    Always,
}

/// The family function of the linter that reports a rule. The linter calls a
/// family only when a selected rule names it, so selecting one rule always runs
/// it and selecting none of a family skips its work.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Check {
    /// Reported while the file is read or composed (syntax, duplicate keys, a
    /// Hydra defaults entry that cannot be found): nothing to skip.
    Load,
    /// A native config against its JSON Schema, a dialect config against its known keys.
    Schema,
    /// Float literals PyYAML reads as strings (HF configs read by `HfArgumentParser`).
    PyyamlFloats,
    /// OmegaConf `${...}` that cannot or need not be resolved.
    Interpolation,
    /// Framework deprecations (`trainlint migrate` runs only these).
    Migrations,
    /// The effective batch of one config or stage.
    Batch,
    /// The curriculum across stages.
    Curriculum,
    /// The memory model against each GPU target.
    Memory,
    /// The precision against each GPU target.
    Hardware,
    /// Allocator environment variables.
    Env,
    /// A config against its state at `--baseline REV` (reads git).
    Baseline,
    /// Suppression comments, after every other pass.
    Suppressions,
}

impl Check {
    /// The passes of the linter that run this family.
    pub(crate) fn passes(self) -> &'static [Pass] {
        match self {
            Check::Load | Check::PyyamlFloats | Check::Interpolation | Check::Migrations => &[Pass::File],
            Check::Schema | Check::Batch | Check::Memory | Check::Hardware | Check::Env => &[Pass::File, Pass::Stage],
            Check::Curriculum => &[Pass::Stage],
            Check::Baseline => &[Pass::Baseline],
            Check::Suppressions => &[Pass::Suppressions],
        }
    }
}

/// A pass of the linter (`linter.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    /// Each file on its own.
    File,
    /// Each curriculum stage over its base.
    Stage,
    /// Each config against a git revision.
    Baseline,
    /// The suppression comments of every checked file.
    Suppressions,
}

/// What a rule needs computed before it can report; the linter computes it
/// only when a selected rule needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    /// The GPU targets (`--gpu`, the manifest's `gpus`, a native config's `gpus`).
    GpuTargets,
    /// The memory model, built once per GPU target.
    MemoryModel,
}

/// The static description of a rule, as registered in `codes.rs`.
#[derive(Debug, Serialize)]
pub struct RuleMeta {
    /// Stable code, e.g. `SCH003`. Never reused once shipped.
    pub code: &'static str,
    /// kebab-case name, e.g. `unknown-key`; the rule's file is `unknown_key.rs`, its type `UnknownKey`.
    pub name: &'static str,
    /// Default severity.
    pub severity: Severity,
    pub fix: FixAvailability,
    /// The trainlint version that introduced the rule.
    pub since: &'static str,
    #[serde(skip)]
    pub check: Check,
    #[serde(skip)]
    pub needs: &'static [Need],
    /// The manifest settings (top-level keys of `trainlint.toml`) that change
    /// what the rule reports, beyond the selection every rule follows.
    #[serde(skip)]
    pub options: &'static [&'static str],
    /// The rule's doc comment, verbatim (each line keeps the space after `///`).
    #[serde(skip)]
    pub raw_docs: &'static str,
    /// The module that declares the rule and the rule's type name (one name per rule, `tests/codes.rs`).
    #[serde(skip)]
    pub module: &'static str,
    #[serde(skip)]
    pub type_name: &'static str,
}

impl RuleMeta {
    /// The documentation as Markdown, without the doc-comment indentation.
    pub fn docs(&self) -> String {
        let mut out = String::with_capacity(self.raw_docs.len());
        for line in self.raw_docs.lines() {
            out.push_str(line.strip_prefix(' ').unwrap_or(line));
            out.push('\n');
        }
        out.trim_end().to_owned() + "\n"
    }

    /// The first paragraph under `## What it does`, as one line (SARIF short description).
    pub fn summary(&self) -> String {
        let docs = self.docs();
        let body = docs.split("## What it does").nth(1).unwrap_or(&docs);
        body.trim_start().split("\n\n").next().unwrap_or("").split_whitespace().collect::<Vec<_>>().join(" ")
    }

    /// Where the rule's page lives in the book, when the build says where the book is served:
    /// Cargo.toml's `homepage` (an installation hosting the book sets it, e.g.
    /// `https://your-org.gitlab.io/trainlint/`), `{homepage}/rules/{CODE}.html` as mdBook builds
    /// `book/src/rules/{CODE}.md`. Without it, none: a link to a site that does not exist is worse
    /// than none, and each rule's whole page is in SARIF's `help` and JSON's `docs` anyway.
    pub(crate) fn url(&self) -> Option<String> {
        homepage().map(|home| format!("{home}/rules/{}.html", self.code))
    }

    pub(crate) fn needs(&self, need: Need) -> bool {
        self.needs.contains(&need)
    }
}

/// Where the book is served (Cargo.toml `homepage`, without a trailing `/`), if the build says.
pub fn homepage() -> Option<&'static str> {
    Some(env!("CARGO_PKG_HOMEPAGE").trim_end_matches('/')).filter(|h| h.starts_with("https://") || h.starts_with("http://"))
}

/// A registered rule: what a diagnostic names. Only `register_rules!`
/// (`rules/codes.rs`) makes one — `tests/codes.rs` fails when anything else
/// constructs it — so a rule missing from the registry cannot report.
#[derive(Clone, Copy, Debug)]
pub struct RuleId(pub(crate) &'static RuleMeta);

impl RuleId {
    pub(crate) fn meta(self) -> &'static RuleMeta {
        self.0
    }
}
