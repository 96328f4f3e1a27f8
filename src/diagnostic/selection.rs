//! Which rules run: `select`, `extend-select`, `ignore` and `extend-ignore`,
//! by code or prefix (as ruff), and per-code severity overrides.
//!
//! A selection is a stack of layers, the manifest's and then the command
//! line's, composed as ruff composes them (`RuleSelection` in ruff's
//! `crates/ruff_workspace/src/configuration.rs`; "Rule selection" in ruff's
//! docs: "`--select` on the command line overrides `select` in the
//! configuration, `--extend-select` adds to it"). In a layer, the most
//! specific selector that matches a rule's code decides (`ignore = ["BAT"]`
//! with `select = ["BAT001"]` keeps BAT001); among equally specific ones an
//! ignore wins. A layer with `select` starts over (the layers before it no
//! longer count); a layer without one changes only the rules its selectors
//! name. It needs no rule table to answer, so settings build it; the command
//! layer checks its selectors against the registry (`unknown`) before anything runs.

use super::Severity;
use super::rule::RuleMeta;
use std::collections::BTreeMap;

#[derive(Clone, Debug)]
pub struct RuleSelection {
    /// The manifest's layer first, then the command line's.
    layers: Vec<Layer>,
    /// Severity overrides by code or prefix, most specific first.
    severities: Vec<(String, Severity)>,
}

impl RuleSelection {
    /// Every rule.
    pub fn all() -> Self {
        RuleSelection::new(None, &[], &[])
    }

    /// `select` (default: all), plus `extend_select`, minus `ignore`: one layer.
    pub fn new(select: Option<&[String]>, extend_select: &[String], ignore: &[String]) -> Self {
        RuleSelection::layered(&[Selectors { select, extend_select, ignore }])
    }

    /// The layers composed in order (the manifest's, then the command
    /// line's). The first layer's `select` defaults to `ALL`. A layer whose
    /// `select` is empty and that only ignores hands its ignores on to the
    /// next layer, as ruff's `carryover_ignores` does (`--select '' --ignore X`
    /// followed by a layer that selects).
    pub(crate) fn layered(layers: &[Selectors]) -> Self {
        let default = ["ALL".to_owned()];
        let mut built = Vec::new();
        let mut carried: Vec<String> = Vec::new();
        for (index, layer) in layers.iter().enumerate() {
            let select = if index == 0 { Some(layer.select.unwrap_or(&default)) } else { layer.select };
            let mut selectors: Vec<(String, bool)> = select.into_iter().flatten().map(|s| (s.to_ascii_uppercase(), true)).collect();
            selectors.extend(layer.extend_select.iter().map(|s| (s.to_ascii_uppercase(), true)));
            selectors.extend(layer.ignore.iter().chain(&carried).map(|s| (s.to_ascii_uppercase(), false)));
            // A stable sort keeps selects before ignores among equally specific selectors: the ignore wins.
            selectors.sort_by_key(|(s, _)| specificity(s));
            carried = match select {
                Some(list) if list.is_empty() && layer.extend_select.is_empty() => layer.ignore.to_vec(),
                _ => Vec::new(),
            };
            built.push(Layer { resets: select.is_some(), selectors });
        }
        RuleSelection { layers: built, severities: Vec::new() }
    }

    /// Adds severity overrides (`MEM003 = "warning"`).
    pub(crate) fn with_severities(mut self, overrides: &BTreeMap<String, Severity>) -> Self {
        let mut list: Vec<(String, Severity)> = overrides.iter().map(|(k, v)| (k.to_ascii_uppercase(), *v)).collect();
        list.sort_by_key(|(k, _)| std::cmp::Reverse(specificity(k)));
        self.severities = list;
        self
    }

    /// The first selector or severity key that matches none of `rules` (a usage error).
    pub(crate) fn unknown<'a>(&'a self, rules: &[&RuleMeta]) -> Option<&'a str> {
        let keys = self.layers.iter().flat_map(|l| &l.selectors).map(|(s, _)| s).chain(self.severities.iter().map(|(s, _)| s));
        keys.map(String::as_str).find(|selector| !rules.iter().any(|r| matches(selector, r.code)))
    }

    pub(crate) fn is_enabled(&self, rule: &RuleMeta) -> bool {
        let mut enabled = false;
        for layer in &self.layers {
            match layer.selectors.iter().rfind(|(s, _)| matches(s, rule.code)) {
                Some((_, on)) => enabled = *on,
                // A layer that selects starts over: a rule it does not name is off.
                None if layer.resets => enabled = false,
                None => {}
            }
        }
        enabled
    }

    /// The severity a rule's findings get.
    pub fn severity(&self, rule: &RuleMeta) -> Severity {
        self.severities.iter().find(|(k, _)| matches(k, rule.code)).map_or(rule.severity, |(_, s)| *s)
    }
}

/// One layer's selectors as written: `select` (`None`: not set), `extend-select`,
/// and `ignore` with `extend-ignore` (one list: ruff made `extend-ignore` the same as `ignore`).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Selectors<'a> {
    pub select: Option<&'a [String]>,
    pub extend_select: &'a [String],
    pub ignore: &'a [String],
}

#[derive(Clone, Debug)]
struct Layer {
    /// The layer sets `select`: what it does not name is off.
    resets: bool,
    /// (upper-case selector, enabled), least specific first; among equals selects before ignores.
    selectors: Vec<(String, bool)>,
}

fn specificity(selector: &str) -> usize {
    if selector == "ALL" { 0 } else { selector.len() }
}

fn matches(selector: &str, code: &str) -> bool {
    selector == "ALL" || code.starts_with(selector)
}
