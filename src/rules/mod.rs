//! Stage 4 of the pipeline: rules turn loaded and resolved configs into diagnostics.
//!
//! One rule, one file, under `rules/<group>/`. A rule is declared with
//! `declare_rule!`: its doc comment (What it does / Why is this bad? / Example /
//! Fix safety) is the text of `trainlint rule CODE`, of the book's rule page
//! and of SARIF's rule description. `codes::ALL` is the single table of codes.

pub mod batch;
pub mod codes;
pub mod curriculum;
pub mod env;
pub mod fixes;
pub mod hardware;
pub mod memory;
pub mod migration;
pub mod resolution;
pub mod schema;
pub mod selection;
pub mod suppression;

use crate::diagnostic::Severity;
use serde::Serialize;

/// Whether a rule can offer a fix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FixAvailability {
    None,
    Sometimes,
    Always,
}

/// The static description of a rule.
#[derive(Debug, Serialize)]
pub struct RuleMeta {
    /// Stable code, e.g. `SCH003`. Never reused once shipped.
    pub code: &'static str,
    /// kebab-case name, e.g. `unknown-key`.
    pub name: &'static str,
    /// Default severity.
    pub severity: Severity,
    pub fix: FixAvailability,
    /// The trainlint version that introduced the rule.
    pub since: &'static str,
    /// The rule's doc comment, verbatim (each line keeps the space after `///`).
    #[serde(skip)]
    pub raw_docs: &'static str,
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

    /// Where the rule's page lives in the book.
    pub fn url(&self) -> String {
        format!("https://trainlint.dev/rules/{}.html", self.code)
    }
}

/// Declares a rule's metadata; the doc comment becomes its documentation.
#[macro_export]
macro_rules! declare_rule {
    (
        $(#[doc = $doc:literal])*
        pub static $ident:ident = {
            code: $code:literal,
            name: $name:literal,
            severity: $severity:ident,
            fix: $fix:ident,
            since: $since:literal $(,)?
        };
    ) => {
        $(#[doc = $doc])*
        pub static $ident: $crate::rules::RuleMeta = $crate::rules::RuleMeta {
            code: $code,
            name: $name,
            severity: $crate::diagnostic::Severity::$severity,
            fix: $crate::rules::FixAvailability::$fix,
            since: $since,
            raw_docs: concat!($($doc, "\n"),*),
        };
    };
}

use crate::diagnostic::Diagnostic;
use selection::RuleSelection;

/// Collects the diagnostics of enabled rules.
pub struct Checker<'a> {
    selection: &'a RuleSelection,
    diagnostics: Vec<Diagnostic>,
}

impl<'a> Checker<'a> {
    pub fn new(selection: &'a RuleSelection) -> Self {
        Checker { selection, diagnostics: Vec::new() }
    }

    pub fn enabled(&self, rule: &RuleMeta) -> bool {
        self.selection.is_enabled(rule)
    }

    pub fn report(&mut self, mut diagnostic: Diagnostic) {
        if self.selection.is_enabled(diagnostic.rule) {
            diagnostic.severity = self.selection.severity(diagnostic.rule);
            self.diagnostics.push(diagnostic);
        }
    }

    pub fn into_diagnostics(self) -> Vec<Diagnostic> {
        self.diagnostics
    }
}
