//! `--output-format json` of every command: one typed shape per command, with a
//! `version`, and its JSON Schema generated from these types
//! (`schemas/<command>-output.schema.json`, `trainlint schema <command>-output`;
//! tests/schemas.rs keeps the files current, tests/output_schemas.rs validates
//! real output against them). `check`, `show`, `estimate` and `plan` are a
//! stable contract (brief: "Contract that tests outside the project rely on").

use super::Summary;
use crate::diagnostic::rule::FixAvailability;
use crate::diagnostic::{Applicability, Diagnostic, Edit, RuleMeta, Severity};
use crate::estimate::calibration::Calibration;
use crate::estimate::plan::PlanRow;
use crate::estimate::{Band, Estimate, Phase, SolvedInput, Verdict};
use crate::resolve::ResolvedConfig;
use crate::resolve::batch::BatchView;
use crate::schema::GpuTarget;
use crate::source::{SourceFile, Span};
use schemars::{JsonSchema, Schema, SchemaGenerator, generate::SchemaSettings, json_schema, transform::RecursiveTransform};
use serde::Serialize;
use std::borrow::Cow;

/// The output schemas, as `schemas/<name>.schema.json` and `trainlint schema <name>` name them.
pub(crate) const NAMES: [&str; 6] = ["check-output", "show-output", "estimate-output", "plan-output", "rule-output", "gpus-output"];

/// The JSON Schema (draft 2020-12) of one of `NAMES`, for the output as serialized.
pub fn schema(name: &str) -> Option<serde_json::Value> {
    let generator = SchemaSettings::draft2020_12().for_serialize().with_transform(RecursiveTransform(close as fn(&mut Schema))).into_generator();
    let (mut schema, description) = match name {
        "check-output" => (
            generator.into_root_schema_for::<CheckOutput>(),
            "The output of `trainlint check --output-format json`: the findings and their counts, or with `--statistics` one row per rule code.",
        ),
        "show-output" => (
            generator.into_root_schema_for::<ShowOutput>(),
            "The output of `trainlint show --output-format json`: the resolved view of one config (each role's value and where it comes from, the batch arithmetic, the whole tree), or, when the config cannot be resolved, the findings that say why (as `check` prints them).",
        ),
        "estimate-output" => (
            generator.into_root_schema_for::<Estimates>(),
            "The output of `trainlint estimate --output-format json`: one object whatever the number of curriculum stages and GPU targets, with one entry in `estimates` per stage × GPU target (stage-major, targets in the order given).",
        ),
        "plan-output" => (
            generator.into_root_schema_for::<Vec<Plan>>(),
            "The output of `trainlint plan --output-format json`: one object per stage × GPU target (stage-major, targets in the order given), each with its own `version`.",
        ),
        "rule-output" => {
            (generator.into_root_schema_for::<Rules>(), "The output of `trainlint rule --output-format json`: the rule named, or with `--all` every rule.")
        }
        "gpus-output" => (
            generator.into_root_schema_for::<Gpus>(),
            "The output of `trainlint gpus --output-format json`: the built-in catalog, then the manifest's custom targets.",
        ),
        _ => return None,
    };
    let command = name.trim_end_matches("-output");
    schema.insert("title".into(), format!("trainlint {command} --output-format json").into());
    schema.insert("description".into(), description.into());
    Some(crate::schema::with_header_first(name, schema.to_value()))
}

/// Every object the output types describe has exactly its properties: one a
/// consumer does not know is an error, as a missing one is.
fn close(schema: &mut Schema) {
    if schema.get("properties").is_some() && schema.get("additionalProperties").is_none() {
        schema.insert("additionalProperties".into(), false.into());
    }
}

/// Pretty JSON with a final newline, as every command prints it.
pub(crate) fn to_text(value: &impl Serialize) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
}

/// The `version` of a command's JSON: bumped when a field is removed or
/// changes meaning (adding one does not); the schema pins it.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Version<const N: u32>;

impl<const N: u32> Serialize for Version<N> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u32(N)
    }
}

impl<const N: u32> JsonSchema for Version<N> {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        format!("Version{N}").into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"description": "The version of this shape; bumped when a field is removed or changes meaning.", "const": N})
    }
}

/// `check`: the report, or `--statistics`.
#[derive(Serialize, JsonSchema)]
#[serde(untagged)]
pub(crate) enum CheckOutput {
    Report(Report),
    Statistics(Statistics),
}

/// The findings and their counts.
#[derive(Serialize, JsonSchema)]
pub(crate) struct Report {
    pub version: Version<1>,
    pub diagnostics: Vec<DiagnosticOutput>,
    pub summary: Summary,
}

/// `check --output-format json` (and `show` on a config that cannot be resolved).
pub fn render(diagnostics: &[Diagnostic], summary: &Summary) -> String {
    to_text(&CheckOutput::Report(Report::new(diagnostics, summary)))
}

/// `show` of a config that does not resolve: its findings (`ShowOutput::Unresolved`).
pub(crate) fn render_unresolved_show(diagnostics: &[Diagnostic], summary: &Summary) -> String {
    to_text(&ShowOutput::Unresolved(Report::new(diagnostics, summary)))
}

impl Report {
    fn new(diagnostics: &[Diagnostic], summary: &Summary) -> Self {
        Report { version: Version, diagnostics: diagnostics.iter().map(DiagnosticOutput::new).collect(), summary: summary.clone() }
    }
}

/// One finding.
#[derive(Serialize, JsonSchema)]
pub(crate) struct DiagnosticOutput {
    /// The rule's code (`SCH003`).
    pub code: &'static str,
    /// The rule's name (`unknown-key`).
    pub name: &'static str,
    pub severity: Severity,
    pub message: String,
    /// As given on the command line, or relative to the manifest.
    pub file: String,
    /// 1-based.
    pub line: usize,
    /// 1-based, in characters.
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
    /// The curriculum stage, when the finding is about one.
    pub stage: Option<String>,
    /// The GPU target id, when the finding is about one.
    pub gpu: Option<String>,
    /// Why it matters.
    pub note: Option<String>,
    /// What to do.
    pub help: Option<String>,
    /// Secondary places, each with its own message.
    pub labels: Vec<Location>,
    pub fix: Option<FixOutput>,
    /// The rule's page in the book, where the installation says the book is served (Cargo.toml
    /// `homepage`); absent otherwise (`trainlint rule CODE` prints the page).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

impl DiagnosticOutput {
    fn new(d: &Diagnostic) -> Self {
        let (line, column) = d.file.line_col(d.span.start);
        let (end_line, end_column) = d.file.line_col(d.span.end);
        DiagnosticOutput {
            code: d.rule.code,
            name: d.rule.name,
            severity: d.severity,
            message: d.message.clone(),
            file: d.file.display().to_owned(),
            line,
            column,
            end_line,
            end_column,
            stage: d.stage.clone(),
            gpu: d.gpu.clone(),
            note: d.note.clone(),
            help: d.help.clone(),
            labels: d.labels.iter().map(|l| Location::new(&l.file, &l.span, &l.message)).collect(),
            fix: d.fix.as_ref().map(|fix| FixOutput {
                applicability: fix.applicability,
                message: fix.message.clone(),
                edits: fix.edits.iter().map(EditOutput::new).collect(),
            }),
            url: d.rule.url(),
        }
    }
}

/// A secondary span and what it says.
#[derive(Serialize, JsonSchema)]
pub(crate) struct Location {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
    pub message: String,
}

impl Location {
    fn new(file: &SourceFile, span: &Span, message: &str) -> Self {
        let (line, column) = file.line_col(span.start);
        let (end_line, end_column) = file.line_col(span.end);
        Location { file: file.display().to_owned(), line, column, end_line, end_column, message: message.to_owned() }
    }
}

#[derive(Serialize, JsonSchema)]
pub(crate) struct FixOutput {
    pub applicability: Applicability,
    pub message: String,
    /// Empty for a display-only fix.
    pub edits: Vec<EditOutput>,
}

/// Replace the text from `start` to `end` (byte offsets) with `content`.
#[derive(Serialize, JsonSchema)]
pub(crate) struct EditOutput {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
    pub start: usize,
    pub end: usize,
    pub content: String,
}

impl EditOutput {
    fn new(e: &Edit) -> Self {
        let (line, column) = e.file.line_col(e.span.start);
        let (end_line, end_column) = e.file.line_col(e.span.end);
        EditOutput { file: e.file.display().to_owned(), line, column, end_line, end_column, start: e.span.start, end: e.span.end, content: e.content.clone() }
    }
}

/// `check --statistics`: one row per rule code, most frequent first.
#[derive(Serialize, JsonSchema)]
pub(crate) struct Statistics {
    pub version: Version<1>,
    pub statistics: Vec<StatisticsRow>,
}

#[derive(Serialize, JsonSchema)]
pub(crate) struct StatisticsRow {
    pub code: &'static str,
    pub name: &'static str,
    pub count: usize,
    /// Whether any of these findings has a fix.
    pub fixable: bool,
}

/// `check --statistics --output-format json`.
pub(crate) fn statistics(diagnostics: &[Diagnostic]) -> String {
    let rows = super::statistics_rows(diagnostics, &[]);
    to_text(&CheckOutput::Statistics(Statistics {
        version: Version,
        statistics: rows.into_iter().map(|(code, name, count, fixable)| StatisticsRow { code, name, count, fixable }).collect(),
    }))
}

/// `show`: the resolved view, or the findings when there is none.
#[derive(Serialize, JsonSchema)]
#[serde(untagged)]
pub(crate) enum ShowOutput {
    Resolved(Box<Show>),
    /// Nothing resolved: the findings that say why, as `check` writes them.
    Unresolved(Report),
}

/// The resolved view of one config (or curriculum stage).
#[derive(Serialize, JsonSchema)]
pub(crate) struct Show {
    pub version: Version<1>,
    /// The config, as given on the command line.
    pub file: String,
    pub stage: Option<String>,
    pub dialect: crate::dialects::Dialect,
    /// Why the file was read as this dialect.
    pub dialect_reason: String,
    /// Each role the config states (or a model, an override, a comment gives): its value and where it comes from.
    pub roles: std::collections::BTreeMap<crate::schema::Role, RoleSource>,
    pub batch: BatchView,
    pub effective_batch: Option<u64>,
    /// The whole config tree after composition and interpolation.
    pub resolved: serde_json::Value,
}

/// A role's value and where it comes from: a file and line, the manifest's
/// `[hydra]` overrides or `--set` (`override`), or the model the config names
/// (`model_source`, `file` being `catalog:<id>` or the model's config.json).
#[derive(Serialize, JsonSchema)]
pub(crate) struct RoleSource {
    pub value: serde_json::Value,
    pub file: Option<String>,
    pub line: Option<usize>,
    pub column: Option<usize>,
    #[serde(rename = "override", skip_serializing_if = "std::ops::Not::not")]
    pub from_override: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_source: Option<String>,
}

/// `show --output-format json`.
pub(crate) fn show(resolved: &ResolvedConfig) -> String {
    let roles = resolved
        .roles
        .iter()
        .map(|(role, value)| {
            let source = if value.from_override {
                RoleSource { value: value.value.clone(), file: None, line: None, column: None, from_override: true, model_source: None }
            } else if let Some(facts) = &value.from_model {
                let (file, model_source) = (Some(facts.file()), Some(facts.source().to_owned()));
                RoleSource { value: value.value.clone(), file, line: None, column: None, from_override: false, model_source }
            } else {
                let (line, column) = value.file.line_col(value.span.start);
                let file = Some(value.file.display().to_owned());
                RoleSource { value: value.value.clone(), file, line: Some(line), column: Some(column), from_override: false, model_source: None }
            };
            (*role, source)
        })
        .collect();
    to_text(&ShowOutput::Resolved(Box::new(Show {
        version: Version,
        file: resolved.source().display().to_owned(),
        stage: resolved.stage.clone(),
        dialect: resolved.detection.dialect,
        dialect_reason: resolved.detection.reason.clone(),
        roles,
        batch: resolved.batch.clone(),
        effective_batch: resolved.batch.effective_batch,
        resolved: resolved.tree.to_json(),
    })))
}

/// `estimate`: one entry per stage × GPU target.
#[derive(Serialize, JsonSchema)]
pub(crate) struct Estimates {
    pub version: Version<1>,
    #[schemars(length(min = 1))]
    pub estimates: Vec<EstimateOutput>,
}

/// The peak-memory breakdown of one config (or stage) on one GPU target.
#[derive(Serialize, JsonSchema)]
pub(crate) struct EstimateOutput {
    /// GPU id from the catalog (`trainlint gpus`).
    pub gpu: String,
    /// Curriculum stage name, or null for a config without stages.
    pub stage: Option<String>,
    /// The micro batch estimated at: the config's, or `--micro-batch`.
    #[schemars(range(min = 1))]
    pub micro_batch: u64,
    pub components: Vec<ComponentOutput>,
    /// The estimate: the sum of the components (live tensors and CUDA context).
    pub total_bytes: i64,
    /// The lowest the card may hold: the band's low end (measured uncertainty for this kind
    /// of run, the caching allocator's reserve and the CUDA context included).
    pub low_bytes: i64,
    /// The most the card may hold: the band's high end.
    pub high_bytes: i64,
    /// The rows the band widens: those trainlint computes (activations, logits, workspaces),
    /// not the model states (parameters × bytes), declared sizes or the CUDA context.
    pub widened_bytes: i64,
    /// Where the band comes from: the kind of run and the accuracy-table cell measured for it.
    pub band: Band,
    /// `fits` (the high end fits usable memory), `may-not-fit` (the band straddles it: MEM002)
    /// or `does-not-fit` (even the low end exceeds it: MEM001).
    pub verdict: Verdict,
    /// The GPU's memory.
    pub capacity_bytes: u64,
    /// `capacity_bytes` × `safety_margin`.
    pub usable_bytes: u64,
    /// The share of the GPU's memory a run may use (1 unless set: the band is the margin).
    #[schemars(extend("exclusiveMinimum" = 0), range(max = 1))]
    pub safety_margin: f64,
    /// `high_bytes` ≤ `usable_bytes`.
    pub fits: bool,
    /// The largest micro batch whose band's low end fits usable memory (beyond it, MEM001); null when none fits or the activations are not modelled.
    #[schemars(range(min = 1))]
    pub max_micro_batch: Option<u64>,
    /// Deprecated, always 1: the band's high end replaced the flat 90 % threshold.
    #[schemars(extend("exclusiveMinimum" = 0), range(max = 1))]
    pub headroom_threshold: f64,
    /// The largest micro batch whose band's high end fits usable memory (beyond it, MEM002; what `plan` chooses from).
    #[schemars(range(min = 1))]
    pub max_micro_batch_with_headroom: Option<u64>,
    pub plan: PlanSummary,
    /// The fit of measured peaks (the manifest's `[[calibration]]`), when there are any.
    pub calibration: Option<Calibration>,
    /// An input the config leaves open, solved for: the estimate is shown at it. Null when the config states every input.
    pub solved: Option<SolvedInput>,
    /// The moment of the training step the peak is at: `backward` (the loss's backward:
    /// activations and logits alive), `recompute` (a checkpointed layer recomputed, the
    /// gradients so far alive) or `step` (the optimizer step: every gradient and the step's
    /// workspace). `components` are the rows alive then.
    pub peak_phase: Phase,
    /// The largest other moment of the step: its total and the rows alive then but not at the peak.
    pub off_peak: OffPeakOutput,
    /// What the model had to assume.
    pub notes: Vec<String>,
}

/// The largest moment of the step that is not the peak.
#[derive(Serialize, JsonSchema)]
pub(crate) struct OffPeakOutput {
    pub phase: Phase,
    pub total_bytes: i64,
    /// Rows alive then and not at the peak (not in `components`).
    pub components: Vec<ComponentOutput>,
}

fn component_rows(rows: &[crate::estimate::Component]) -> Vec<ComponentOutput> {
    rows.iter()
        .map(|c| ComponentOutput {
            name: c.name.clone(),
            component: c.component.to_owned(),
            bytes: c.bytes.round() as i64,
            depends_on: c.depends_on.clone(),
            per_sample: c.per_sample,
        })
        .collect()
}

/// One row of the breakdown.
#[derive(Serialize, JsonSchema)]
pub(crate) struct ComponentOutput {
    /// What it is: `weights`, `optimizer states`, `activations`, `CUDA context`, ...
    pub name: String,
    /// The memory component that gave it (`weights`, `zero-states`, …, `calibration`): one file
    /// each under `src/estimate/components/`.
    pub component: String,
    pub bytes: i64,
    pub depends_on: String,
    /// Whether it grows with the micro batch.
    pub per_sample: bool,
}

/// What `plan` would choose on this target.
#[derive(Serialize, JsonSchema)]
pub(crate) struct PlanSummary {
    pub micro_batch: Option<u64>,
    pub accumulation: Option<u64>,
    pub effective_batch: Option<u64>,
    /// Why there is no plan, when there is none.
    pub reason: Option<String>,
    /// Why the planned micro batch is below the largest that fits, when it is.
    pub why_smaller: Option<String>,
}

/// `estimate --output-format json`.
pub(crate) fn estimates(estimates: &[Estimate], plans: &[PlanRow]) -> String {
    let estimates = estimates
        .iter()
        .zip(plans)
        .map(|(e, p)| EstimateOutput {
            gpu: e.gpu.clone(),
            stage: e.stage.clone(),
            micro_batch: e.micro_batch,
            components: component_rows(&e.components),
            total_bytes: e.total_bytes.round() as i64,
            low_bytes: e.low_bytes.round() as i64,
            high_bytes: e.high_bytes.round() as i64,
            widened_bytes: e.widened_bytes.round() as i64,
            band: e.band.clone(),
            verdict: e.verdict,
            capacity_bytes: e.capacity_bytes as u64,
            usable_bytes: e.usable_bytes.round() as u64,
            safety_margin: e.safety_margin,
            fits: e.fits,
            max_micro_batch: e.max_micro_batch,
            headroom_threshold: 1.0,
            max_micro_batch_with_headroom: p.max_with_headroom,
            plan: PlanSummary {
                micro_batch: p.micro_batch,
                accumulation: p.accumulation,
                effective_batch: p.effective_batch,
                reason: p.reason.clone(),
                why_smaller: p.why_smaller.clone(),
            },
            calibration: e.calibration.clone(),
            solved: e.solved,
            peak_phase: e.peak_phase,
            off_peak: OffPeakOutput {
                phase: e.off_peak.phase,
                total_bytes: e.off_peak.total_bytes.round() as i64,
                components: component_rows(&e.off_peak.components),
            },
            notes: e.notes.clone(),
        })
        .collect();
    to_text(&Estimates { version: Version, estimates })
}

/// `plan`: one object per stage × GPU target.
#[derive(Serialize, JsonSchema)]
pub(crate) struct Plan {
    pub version: Version<1>,
    /// GPU id from the catalog (`trainlint gpus`).
    pub gpu: String,
    /// Curriculum stage name, or null for a config without stages.
    pub stage: Option<String>,
    /// The largest micro batch that fits and keeps the effective batch; null when there is none.
    pub micro_batch: Option<u64>,
    pub accumulation: Option<u64>,
    pub effective_batch: Option<u64>,
    /// The estimate at `micro_batch` (live tensors and CUDA context).
    pub peak_bytes: Option<i64>,
    /// The band's high end at `micro_batch`: what the card may hold (at most `usable_bytes`).
    pub high_bytes: Option<i64>,
    pub usable_bytes: u64,
    pub capacity_bytes: u64,
    /// `peak_bytes` ÷ `usable_bytes`.
    pub utilisation: Option<f64>,
    pub fits: bool,
    /// The largest micro batch whose band's low end fits usable memory (what `estimate` reports; beyond it, MEM001).
    pub max_micro_batch: Option<u64>,
    /// The largest micro batch whose band's high end fits usable memory (beyond it, MEM002).
    pub max_micro_batch_with_headroom: Option<u64>,
    /// Why there is no plan, when there is none.
    pub reason: Option<String>,
    /// Why `micro_batch` is below `max_micro_batch`, when it is.
    pub why_smaller: Option<String>,
}

/// `plan --output-format json`.
pub(crate) fn plans(rows: &[PlanRow]) -> String {
    let plans: Vec<Plan> = rows
        .iter()
        .map(|r| Plan {
            version: Version,
            gpu: r.gpu.clone(),
            stage: r.stage.clone(),
            micro_batch: r.micro_batch,
            accumulation: r.accumulation,
            effective_batch: r.effective_batch,
            peak_bytes: r.peak_bytes.map(|p| p.round() as i64),
            high_bytes: r.high_bytes.map(|p| p.round() as i64),
            usable_bytes: r.usable_bytes.round() as u64,
            capacity_bytes: r.capacity_bytes as u64,
            utilisation: r.utilisation,
            fits: r.fits,
            max_micro_batch: r.max_fit,
            max_micro_batch_with_headroom: r.max_with_headroom,
            reason: r.reason.clone(),
            why_smaller: r.why_smaller.clone(),
        })
        .collect();
    to_text(&plans)
}

/// `rule`: the rule named, or every rule.
#[derive(Serialize, JsonSchema)]
pub(crate) struct Rules {
    pub version: Version<1>,
    pub rules: Vec<RuleOutput>,
}

#[derive(Serialize, JsonSchema)]
pub(crate) struct RuleOutput {
    pub code: &'static str,
    pub name: &'static str,
    /// The default severity.
    pub severity: Severity,
    pub fix: FixAvailability,
    /// The trainlint version that introduced the rule.
    pub since: &'static str,
    /// The first paragraph of the docs, as one line.
    pub summary: String,
    /// The documentation, as Markdown.
    pub docs: String,
    /// The rule's page in the book, where the installation says the book is served; absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// `rule --output-format json`.
pub fn rules(rules: &[&RuleMeta]) -> String {
    to_text(&Rules {
        version: Version,
        rules: rules
            .iter()
            .map(|r| RuleOutput {
                code: r.code,
                name: r.name,
                severity: r.severity,
                fix: r.fix,
                since: r.since,
                summary: r.summary(),
                docs: r.docs(),
                url: r.url(),
            })
            .collect(),
    })
}

/// `gpus`: the targets a config can be checked against.
#[derive(Serialize, JsonSchema)]
pub(crate) struct Gpus {
    pub version: Version<1>,
    pub gpus: Vec<GpuTarget>,
}

/// `gpus --output-format json`.
pub(crate) fn gpus(catalog: &[GpuTarget]) -> String {
    to_text(&Gpus { version: Version, gpus: catalog.to_vec() })
}
