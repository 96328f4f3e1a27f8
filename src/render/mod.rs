//! Stage 5 of the pipeline: diagnostics rendered for people and machines.

pub mod concise;
pub mod full;
pub mod github;
pub mod gitlab;
pub mod html;
pub mod json;
pub mod junit;
pub mod sarif;

use crate::diagnostic::{Diagnostic, FoldedInfo, Severity};
use serde::Serialize;
use std::borrow::Cow;

/// Text from a config (a key, a value, a file name) as a human format may
/// print it: control characters (ESC, BEL, a newline that would forge a
/// `concise` line) and bidirectional overrides become `\u{1b}`-style escapes,
/// so nothing a config holds can drive the terminal. JSON and SARIF escape
/// through serde instead.
pub(crate) fn escape_controls(text: &str) -> Cow<'_, str> {
    let unsafe_char = |c: char| c.is_control() || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}');
    if !text.chars().any(unsafe_char) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if unsafe_char(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Multi-line text whose lines are safe to print: each line's control characters
/// (ESC, a lone CR, C1, bidi overrides; tabs kept) escaped as [`escape_controls`] does,
/// its line break (`\n` or `\r\n`) kept. For text made of lines that each start with
/// something of ours (a unified diff: `--- a/`, `+`, `-`, ` `), so that no line a file
/// holds can pass for a line of the output.
pub(crate) fn escape_controls_in_lines(text: &str) -> Cow<'_, str> {
    let unsafe_char = |c: char| c != '\t' && c != '\n' && (c.is_control() || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'));
    if !text.chars().any(unsafe_char) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for line in text.split_inclusive('\n') {
        let (body, end) = match line.strip_suffix("\r\n") {
            Some(body) => (body, "\r\n"),
            None => line.strip_suffix('\n').map_or((line, ""), |body| (body, "\n")),
        };
        for c in body.chars() {
            if unsafe_char(c) {
                out.extend(c.escape_default());
            } else {
                out.push(c);
            }
        }
        out.push_str(end);
    }
    Cow::Owned(out)
}

/// A copy of a diagnostic whose texts are safe to print ([`escape_controls`]).
pub(crate) fn escaped(d: &Diagnostic) -> Diagnostic {
    let mut d = d.clone();
    let clean = |s: &mut String| {
        if let Cow::Owned(clean) = escape_controls(s) {
            *s = clean;
        }
    };
    clean(&mut d.message);
    for text in [d.label.as_mut(), d.note.as_mut(), d.help.as_mut(), d.fix.as_mut().map(|f| &mut f.message)].into_iter().flatten() {
        clean(text);
    }
    d.labels.iter_mut().for_each(|l| clean(&mut l.message));
    d
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// Source snippets with labels, why and what to do (miette).
    Full,
    /// One line per finding: `file:line:col: CODE message`.
    Concise,
    /// One JSON object: `{"diagnostics": [...], "summary": {...}}`.
    Json,
    /// SARIF 2.1.0, for code-scanning uploads.
    Sarif,
    /// GitHub Actions annotations (`::error file=...`).
    Github,
    /// GitLab Code Quality report (JSON list: description, check_name, fingerprint, severity, location).
    Gitlab,
    /// JUnit XML: one testsuite per file, one failing testcase per finding.
    Junit,
    /// A self-contained HTML page (`estimate`): stacked bars per stage and GPU.
    Html,
}

impl OutputFormat {
    /// What `check` writes.
    pub(crate) const CHECK: &[OutputFormat] =
        &[OutputFormat::Full, OutputFormat::Concise, OutputFormat::Json, OutputFormat::Sarif, OutputFormat::Github, OutputFormat::Gitlab, OutputFormat::Junit];
    /// What `estimate` writes.
    pub(crate) const ESTIMATE: &[OutputFormat] = &[OutputFormat::Full, OutputFormat::Json, OutputFormat::Html];
    /// What `show`, `plan` and `gpus` write.
    pub(crate) const TABLE: &[OutputFormat] = &[OutputFormat::Full, OutputFormat::Json];
    /// What `rule` writes.
    pub(crate) const RULE: &[OutputFormat] = &[OutputFormat::Full, OutputFormat::Concise, OutputFormat::Json];
}

/// The `--output-format` parser of a subcommand: only the formats it writes are
/// accepted (clap lists them in `--help` and rejects any other with exit 2).
pub(crate) fn formats(allowed: &'static [OutputFormat]) -> impl clap::builder::TypedValueParser<Value = OutputFormat> {
    use clap::ValueEnum;
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(allowed.iter().filter_map(ValueEnum::to_possible_value))
        .map(|name: String| OutputFormat::from_str(&name, false).unwrap_or(OutputFormat::Full))
}

#[derive(Clone, Debug, Default, Serialize, schemars::JsonSchema)]
pub struct Summary {
    /// Files checked: recognised as training configs, or named on the command line.
    pub files: usize,
    pub errors: usize,
    pub warnings: usize,
    pub infos: usize,
    pub fixable: usize,
    /// Of `files`, those named on the command line but not recognised (syntax and duplicate keys only).
    #[serde(skip)]
    pub unrecognised: usize,
    /// Files found by walking and not checked: why, and how many.
    #[serde(skip)]
    pub skipped: Vec<(&'static str, usize)>,
    /// Of `files`, those read whose batch and precision were not checked: why, and how many.
    #[serde(skip)]
    pub not_checked: Vec<(&'static str, usize)>,
    /// Configs with no memory verdict because they name a model trainlint does not know, and
    /// those models: the closing line says so, not only a folded info (issue 24).
    #[serde(skip)]
    pub unknown_models: (usize, Vec<String>),
}

impl Summary {
    pub fn new(files: usize, diagnostics: &[Diagnostic]) -> Self {
        let count = |s: Severity| diagnostics.iter().filter(|d| d.severity == s).count();
        Summary {
            files,
            errors: count(Severity::Error),
            warnings: count(Severity::Warning),
            infos: count(Severity::Info),
            fixable: diagnostics.iter().filter(|d| d.fix.is_some()).count(),
            unrecognised: 0,
            skipped: Vec::new(),
            not_checked: Vec::new(),
            unknown_models: unknown_models(diagnostics),
        }
    }

    /// `N files checked`, with the unrecognised ones and the skipped ones when there are any.
    fn checked(&self) -> String {
        let mut text = format!("{} file{} checked", self.files, plural(self.files));
        if self.unrecognised > 0 {
            text.push_str(&format!(
                ", {} of them not recognised as a training config (syntax and duplicate keys only)",
                if self.unrecognised == self.files { "all".to_owned() } else { self.unrecognised.to_string() }
            ));
        }
        let not_checked = total_of(&self.not_checked);
        if not_checked > 0 && not_checked < self.files {
            text.push_str(&format!("; batch and precision not checked in {not_checked} of them: {}", reasons(&self.not_checked)));
        }
        let skipped: usize = self.skipped.iter().map(|(_, n)| n).sum();
        if skipped > 0 {
            let reasons: Vec<String> = self.skipped.iter().map(|(why, n)| format!("{n} {why}")).collect();
            text.push_str(&format!("; {skipped} file{} skipped: {}; `--show-files` lists them", plural(skipped), reasons.join(", ")));
        }
        text
    }

    /// The closing line of the human formats.
    pub(crate) fn line(&self) -> String {
        let total = self.errors + self.warnings + self.infos;
        if total == 0 && self.files == 0 {
            return format!("No training configs found ({}).", self.checked());
        }
        if total == 0 && self.unrecognised == self.files {
            let skipped: usize = self.skipped.iter().map(|(_, n)| n).sum();
            return format!(
                "No training configs checked: {} file{} named {} not recognised as training configs (syntax and duplicate keys checked only){}.",
                self.files,
                plural(self.files),
                if self.files == 1 { "is" } else { "are" },
                if skipped > 0 { format!("; {skipped} file{} skipped (`--show-files` lists them)", plural(skipped)) } else { String::new() }
            );
        }
        if total == 0 && total_of(&self.not_checked) == self.files {
            // Never "All checks passed" over files nothing was checked in.
            let skipped = total_of(&self.skipped);
            return format!(
                "No findings, but nothing was checked: {} file{} read, and {}{}.",
                self.files,
                plural(self.files),
                reasons(&self.not_checked),
                if skipped > 0 { format!("; {skipped} file{} skipped (`--show-files` lists them)", plural(skipped)) } else { String::new() }
            );
        }
        if total == 0 {
            return format!("All checks passed ({}).", self.checked());
        }
        let mut text = format!(
            "Found {} error{}, {} warning{}, {} info{} in {}.",
            self.errors,
            plural(self.errors),
            self.warnings,
            plural(self.warnings),
            self.infos,
            plural(self.infos),
            self.checked()
        );
        if self.fixable > 0 {
            text.push_str(&format!(" {} with a fix available (`--output-format json` shows the edits).", self.fixable));
        }
        let (configs, models) = &self.unknown_models;
        if *configs > 0 {
            let mut names: Vec<String> = models.iter().take(3).map(|m| format!("`{}`", escape_controls(m))).collect();
            if models.len() > 3 {
                names.push(format!("{} more", models.len() - 3));
            }
            text.push_str(&format!(
                " Memory not checked in {configs} config{}: the model{} {} {} not known (`--show-infos` says what was tried).",
                plural(*configs),
                plural(models.len()),
                names.join(", "),
                if models.len() == 1 { "is" } else { "are" }
            ));
        }
        text
    }
}

/// MEM004 findings whose reason is a model name trainlint does not resolve: how many, and the names.
fn unknown_models(diagnostics: &[Diagnostic]) -> (usize, Vec<String>) {
    let mut configs = 0;
    let mut models: Vec<String> = Vec::new();
    for d in diagnostics.iter().filter(|d| d.rule.code == "MEM004") {
        if d.label.as_deref() != Some("not in the model catalog") {
            continue;
        }
        configs += 1;
        if let Some(model) = crate::rules::memory::memory_not_estimated::summary_reason(d).1.filter(|m| !models.contains(m)) {
            models.push(model);
        }
    }
    (configs, models)
}

/// How many files a list of (why, how many) counts.
fn total_of(counts: &[(&'static str, usize)]) -> usize {
    counts.iter().map(|(_, n)| n).sum()
}

/// The reasons of a list of (why, how many), joined.
fn reasons(counts: &[(&'static str, usize)]) -> String {
    counts.iter().map(|(why, _)| *why).collect::<Vec<_>>().join("; ")
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// What the human formats list, and one line per rule code for the infos they
/// fold: `info: BAT006 × 611 (unknown-world-size) — --show-infos lists them`.
/// With `show_infos`, everything is listed and nothing folded. Errors and
/// warnings are always listed; JSON, SARIF and GitHub output never fold.
/// `folded_infos`: infos already folded on the worker threads (`commands::check::shed_folded_infos`), counted with the others.
pub(crate) fn fold_infos(diagnostics: &[Diagnostic], folded_infos: &[FoldedInfo], show_infos: bool) -> (Vec<Diagnostic>, String) {
    if show_infos {
        return (diagnostics.to_vec(), String::new());
    }
    let listed = diagnostics.iter().filter(|d| d.severity != Severity::Info).cloned().collect();
    let mut folded = String::new();
    for (code, name, count, _) in counts(diagnostics.iter().filter(|d| d.severity == Severity::Info), folded_infos) {
        if code == "MEM004" {
            folded.push_str(&no_verdict(diagnostics.iter().filter(|d| d.rule.code == code && d.severity == Severity::Info), count));
            continue;
        }
        folded.push_str(&format!("info: {code} × {count} ({name}) — `--show-infos` lists them\n"));
    }
    (listed, folded)
}

/// The folded MEM004 line: how many configs got no memory verdict, and why, grouped (a user who
/// passed `--gpu` learns which runs were not checked without `--show-infos`).
fn no_verdict<'a>(found: impl Iterator<Item = &'a Diagnostic>, count: usize) -> String {
    let mut groups: Vec<(&'static str, usize, Vec<String>)> = Vec::new();
    for d in found {
        let (why, model) = crate::rules::memory::memory_not_estimated::summary_reason(d);
        let at = match groups.iter().position(|(w, ..)| *w == why) {
            Some(at) => at,
            None => {
                groups.push((why, 0, Vec::new()));
                groups.len() - 1
            }
        };
        groups[at].1 += 1;
        if let Some(model) = model.filter(|m| !groups[at].2.contains(m)) {
            groups[at].2.push(model);
        }
    }
    groups.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let parts: Vec<String> = groups
        .iter()
        .map(|(why, n, models)| {
            let mut names: Vec<String> = models.iter().take(3).map(|m| format!("`{}`", escape_controls(m))).collect();
            if models.len() > 3 {
                names.push("…".into());
            }
            if names.is_empty() { format!("{n} {why}") } else { format!("{n} {why} ({})", names.join(", ")) }
        })
        .collect();
    format!(
        "info: MEM004 × {count} (memory-not-estimated): no memory verdict for {count} config{}: {} — `--show-infos` lists them\n",
        plural(count),
        parts.join(", ")
    )
}

/// Findings per rule code, in code order: code, name, count, whether any has a fix.
fn counts<'a>(diagnostics: impl Iterator<Item = &'a Diagnostic>, folded: &[FoldedInfo]) -> Vec<(&'static str, &'static str, usize, bool)> {
    let mut by_code: std::collections::BTreeMap<&'static str, (&'static str, usize, bool)> = std::collections::BTreeMap::new();
    for d in diagnostics {
        let entry = by_code.entry(d.rule.code).or_insert((d.rule.name, 0, false));
        entry.1 += 1;
        entry.2 |= d.fix.is_some();
    }
    // A folded info has no fix (`shed_folded_infos` keeps those whole).
    for d in folded {
        by_code.entry(d.rule.code).or_insert((d.rule.name, 0, false)).1 += 1;
    }
    by_code.into_iter().map(|(code, (name, count, fix))| (code, name, count, fix)).collect()
}

/// Findings per rule code, most frequent first: code, name, count, whether any has a fix.
fn statistics_rows(diagnostics: &[Diagnostic], folded: &[FoldedInfo]) -> Vec<(&'static str, &'static str, usize, bool)> {
    let mut rows = counts(diagnostics.iter(), folded);
    rows.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.cmp(b.0)));
    rows
}

/// `--statistics`, as ruff prints it: count, code, `[*]` when a fix is available, name; most frequent first
/// (`json::statistics` for `--output-format json`).
pub(crate) fn statistics(diagnostics: &[Diagnostic], folded: &[FoldedInfo]) -> String {
    let rows = statistics_rows(diagnostics, folded);
    let width = rows.iter().map(|r| r.2.to_string().len()).max().unwrap_or(1);
    rows.iter().map(|(code, name, count, fix)| format!("{count:>width$}\t{code}\t[{}] {name}\n", if *fix { "*" } else { " " })).collect()
}
