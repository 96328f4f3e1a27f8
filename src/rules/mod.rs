//! Stage 4 of the pipeline: rules turn loaded and resolved configs into diagnostics.
//!
//! One rule, one file, one name: `rules/<group>/out_of_memory.rs` declares the
//! type `OutOfMemory` named `out-of-memory` with `declare_rule!`. Its doc
//! comment (What it does / Why is this bad? / Example / Fix safety) is the text
//! of `trainlint rule CODE`, of the book's rule page and of SARIF's rule
//! description. `codes.rs` registers each rule with its code in one table,
//! from which the code list, selection, the linter's gates and the docs come.

pub mod batch;
pub mod codes;
pub mod curriculum;
pub mod env;
pub mod fixes;
pub(crate) mod hardware;
pub mod memory;
pub mod migration;
pub mod parallel;
pub mod resolution;
pub mod schema;
pub mod suppression;

use crate::diagnostic::Severity;
pub use crate::diagnostic::rule::RuleMeta;
pub(crate) use crate::diagnostic::rule::{Check, FixAvailability, Need, Pass};

/// What a rule declares about itself (`declare_rule!`). A rule reports only
/// once `codes.rs` registers it with a code ([`Registered`]).
pub(crate) trait Rule {
    const NAME: &'static str;
    const SEVERITY: Severity;
    const FIX: FixAvailability;
    const SINCE: &'static str;
    const CHECK: Check;
    const NEEDS: &'static [Need];
    /// The manifest settings that change what the rule reports (the rule page's "Options").
    const OPTIONS: &'static [&'static str];
    const DOCS: &'static str;
    const MODULE: &'static str;
    const TYPE_NAME: &'static str;
}

/// A rule with a code: implemented only by `register_rules!` in `codes.rs`.
/// `Diagnostic::new` takes a [`codes::RuleId`], which only a registered rule
/// gives, so a rule missing from the registry does not compile.
pub(crate) trait Registered: Rule + Copy {
    const ID: codes::RuleId;

    fn id(self) -> codes::RuleId {
        Self::ID
    }
}

/// Declares a rule: a unit type whose doc comment becomes its documentation.
/// The code comes from the registry (`codes.rs`).
#[macro_export]
macro_rules! declare_rule {
    (
        $(#[doc = $doc:literal])*
        pub struct $ident:ident {
            name: $name:literal,
            severity: $severity:ident,
            fix: $fix:ident,
            since: $since:literal,
            check: $check:ident
            $(, needs: [$($need:ident),* $(,)?])?
            $(, options: [$($option:literal),* $(,)?])? $(,)?
        }
    ) => {
        $(#[doc = $doc])*
        #[derive(Clone, Copy, Debug)]
        pub struct $ident;

        impl $crate::rules::Rule for $ident {
            const NAME: &'static str = $name;
            const SEVERITY: $crate::diagnostic::Severity = $crate::diagnostic::Severity::$severity;
            const FIX: $crate::rules::FixAvailability = $crate::rules::FixAvailability::$fix;
            const SINCE: &'static str = $since;
            const CHECK: $crate::rules::Check = $crate::rules::Check::$check;
            const NEEDS: &'static [$crate::rules::Need] = &[$($($crate::rules::Need::$need),*)?];
            const OPTIONS: &'static [&'static str] = &[$($($option),*)?];
            const DOCS: &'static str = concat!($($doc, "\n"),*);
            const MODULE: &'static str = module_path!();
            const TYPE_NAME: &'static str = stringify!($ident);
        }
    };
}

use crate::diagnostic::Diagnostic;
use crate::diagnostic::selection::RuleSelection;

/// Collects the diagnostics of enabled rules.
pub struct Checker<'a> {
    selection: &'a RuleSelection,
    diagnostics: Vec<Diagnostic>,
}

impl<'a> Checker<'a> {
    pub fn new(selection: &'a RuleSelection) -> Self {
        Checker { selection, diagnostics: Vec::new() }
    }

    pub(crate) fn enabled(&self, rule: impl Into<codes::RuleId>) -> bool {
        self.selection.is_enabled(rule.into().meta())
    }

    /// Whether a selected rule needs `need` computed.
    pub(crate) fn needs(&self, need: Need) -> bool {
        codes::ALL.iter().any(|r| r.needs(need) && self.selection.is_enabled(r))
    }

    /// Whether a selected rule is reported by `check` (the family runs).
    pub(crate) fn runs(&self, check: Check) -> bool {
        codes::ALL.iter().any(|r| r.check == check && self.selection.is_enabled(r))
    }

    /// Keeps a finding when its rule is selected. Every diagnostic names a
    /// registered rule (`Diagnostic::new` takes a `RuleId`), so nothing is
    /// dropped for being missing from the registry.
    pub fn report(&mut self, mut diagnostic: Diagnostic) {
        if self.selection.is_enabled(diagnostic.rule) {
            diagnostic.severity = self.selection.severity(diagnostic.rule);
            if let Some(cap) = diagnostic.severity_cap {
                diagnostic.severity = diagnostic.severity.min(cap);
            }
            self.diagnostics.push(diagnostic);
        }
    }

    pub(crate) fn into_diagnostics(self) -> Vec<Diagnostic> {
        self.diagnostics
    }
}

#[cfg(test)]
mod tests {
    use super::codes::{self, RuleId};
    use super::schema::duplicate_key::DuplicateKey;
    use super::{Check, Checker, Need};
    use crate::diagnostic::selection::RuleSelection;

    fn enabled(selection: &RuleSelection) -> bool {
        selection.is_enabled(RuleId::from(DuplicateKey).meta())
    }

    #[test]
    fn prefixes_and_specificity() {
        assert!(!enabled(&RuleSelection::new(Some(&["SCH".into()]), &[], &["SCH00".into()])));
        assert!(!enabled(&RuleSelection::new(None, &[], &["SCH".into(), "SCH004".into()])));
        assert!(enabled(&RuleSelection::new(Some(&["SCH004".into()]), &[], &["SCH".into()])));
        assert!(enabled(&RuleSelection::new(Some(&["sch004".into()]), &[], &[])));
        assert_eq!(RuleSelection::new(Some(&["XYZ".into()]), &[], &[]).unknown(codes::ALL), Some("XYZ"));
        assert_eq!(RuleSelection::new(Some(&["BAT".into()]), &[], &["MEM00".into()]).unknown(codes::ALL), None);
    }

    #[test]
    fn layers_compose_as_ruffs_rule_selections() {
        use crate::diagnostic::selection::Selectors;
        let list = |codes: &[&str]| codes.iter().map(|c| (*c).to_owned()).collect::<Vec<String>>();
        let (sch, sch004, bat) = (list(&["SCH"]), list(&["SCH004"]), list(&["BAT"]));
        let layered = |second: Selectors| RuleSelection::layered(&[Selectors { select: None, extend_select: &[], ignore: &sch004 }, second]);
        // A later layer without `select` changes only what it names; with `select` it starts over.
        assert!(!enabled(&layered(Selectors { ignore: &bat, ..Selectors::default() })));
        assert!(enabled(&layered(Selectors { extend_select: &sch004, ..Selectors::default() })));
        assert!(enabled(&layered(Selectors { select: Some(&sch), ..Selectors::default() })));
        assert!(!enabled(&layered(Selectors { select: Some(&bat), ..Selectors::default() })));
        // An ignore wins over an equally specific select in its layer.
        assert!(!enabled(&layered(Selectors { select: Some(&sch004), ignore: &sch004, ..Selectors::default() })));
        // ruff's carried-over ignores: `select = []` that only ignores hands them to the next layer.
        let carried = RuleSelection::layered(&[
            Selectors { select: Some(&[]), extend_select: &[], ignore: &sch004 },
            Selectors { select: Some(&sch), ..Selectors::default() },
        ]);
        assert!(!enabled(&carried));
    }

    #[test]
    fn families_and_needs_follow_the_selected_rules() {
        let one = RuleSelection::new(Some(&["HW001".into()]), &[], &[]);
        let checker = Checker::new(&one);
        assert!(checker.runs(Check::Hardware) && !checker.runs(Check::Memory) && !checker.runs(Check::Migrations));
        assert!(checker.needs(Need::GpuTargets) && !checker.needs(Need::MemoryModel));
        let memory = RuleSelection::new(Some(&["MEM004".into()]), &[], &[]);
        let checker = Checker::new(&memory);
        assert!(checker.runs(Check::Memory) && checker.needs(Need::MemoryModel));
        let all = RuleSelection::all();
        for rule in codes::ALL {
            assert!(Checker::new(&all).runs(rule.check), "{}", rule.code);
        }
        let none_of_baseline = RuleSelection::new(None, &[], &["BAT005".into(), "RES".into()]);
        assert!(!Checker::new(&none_of_baseline).runs(Check::Baseline));
    }
}
