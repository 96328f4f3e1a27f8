//! The uncertainty of an estimate: a band measured from the accuracy table for its
//! kind of run (method × sharding × framework), not a flat margin.
//!
//! An estimate has three parts: the model states (weights, gradients, optimizer states:
//! parameters × bytes, as exact as the parameter count) and the user's declared sizes, taken
//! as they are; the rows trainlint computes (activations, logits, workspaces), where most of
//! its errors are; and the CUDA context. For every published or measured peak the binary
//! estimates, the test that writes `data/uncertainty.json` (`tests/accuracy.rs`
//! `bands_are_computed_from_the_accuracy_table`, `TRAINLINT_WRITE_BANDS=1`) takes, like for
//! like, the ratio r = measured ÷ estimated live tensors and the factor f = (measured tensors −
//! model states) ÷ computed rows, and keeps per kind of run the smallest r and the largest f.
//! The test fails when the file is not what the table gives, so a change to a component that
//! moves an estimate moves the bands, or the test says so. A run's band is the most specific
//! cell with at least `MIN_ROWS` rows: its own (method, sharding, framework), else (method,
//! sharding) over every framework, else the method's, else every row's.
//!
//! The card then holds, at the low end, the estimate's tensors × the smallest r (an
//! overestimate may be anywhere, in the states too), and at the high end the model states
//! plus the computed rows × the largest f (an underestimate is in what trainlint computes:
//! the states are counted), each × the caching allocator's reserve, plus the CUDA context,
//! widened to contain the estimate itself. On every row of the table the low end is at most what was
//! measured (no MEM001 on a run that completed) and the high end at least.

use super::components::Run;
use crate::schema::typed::{ActivationCheckpointing, Adapter, Quantization};
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

/// `max_memory_reserved` ÷ `max_memory_allocated`, the caching allocator's reserve beyond
/// the live tensors, measured on our 36 H200 setups (`data/measured_h200.json`): median
/// 1.17 with activation checkpointing (the recomputed layers' blocks interleave with the
/// gradients'), 1.05 without.
pub const RESERVE_CHECKPOINTED: f64 = 1.17;
pub const RESERVE_PLAIN: f64 = 1.05;

/// The fewest rows a cell needs to give a band: with fewer, the pooled cell above it is used.
pub const MIN_ROWS: usize = 3;

/// What is trained.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// Every parameter (and partial training with a stated share).
    Full,
    /// Adapters (LoRA, DoRA, OFT) on a 16-bit base.
    Lora,
    /// Adapters on a k-bit quantized base.
    Qlora,
}

/// How the model states are split over the data-parallel world.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Sharding {
    None,
    /// DeepSpeed ZeRO (any stage) or a ZeRO-2-like FSDP strategy.
    Zero,
    /// FSDP full sharding.
    Fsdp,
}

/// The kind of run a band is measured for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Kind {
    pub method: Method,
    pub sharding: Sharding,
    /// The dialect trainlint read the config as (`litgpt`, `axolotl`, `native`, ...).
    pub framework: String,
}

impl Kind {
    pub(crate) fn of(run: &Run) -> Kind {
        let quantized = run.resolved.typed::<Quantization>().is_some();
        let method = match run.resolved.typed::<Adapter>() {
            Some(Adapter::Qlora) => Method::Qlora,
            Some(Adapter::Lora | Adapter::Dora | Adapter::Oft) if quantized => Method::Qlora,
            Some(Adapter::Lora | Adapter::Dora | Adapter::Oft) => Method::Lora,
            _ => Method::Full,
        };
        let sharding = if run.fsdp {
            Sharding::Fsdp
        } else if run.zero_stage >= 1 {
            Sharding::Zero
        } else {
            Sharding::None
        };
        Kind { method, sharding, framework: run.resolved.detection.dialect.name().to_owned() }
    }

    /// "lora · fsdp · axolotl".
    pub(crate) fn describe(&self) -> String {
        format!("{} · {} · {}", name(&self.method), name(&self.sharding), self.framework)
    }
}

fn name<T: Serialize>(value: &T) -> String {
    serde_json::to_value(value).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
}

/// One cell of the measured table. `framework` and `sharding` are absent in pooled cells.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
pub struct Cell {
    pub method: Option<Method>,
    pub sharding: Option<Sharding>,
    pub framework: Option<String>,
    pub rows: usize,
    /// Smallest measured ÷ estimated live tensors over the cell's rows.
    pub ratio_min: f64,
    /// Smallest measured live tensors ÷ estimated model states (and declared sizes) over the
    /// cell's rows: how far below its states a run of this kind has been measured.
    pub states_ratio_min: f64,
    /// Largest (measured tensors − model states) ÷ computed rows over the cell's rows that have
    /// computed rows large enough to measure it (`factor_measurable`; `factor_rows` of them).
    pub factor_max: f64,
    pub factor_rows: usize,
}

/// `data/uncertainty.json`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
pub struct Table {
    /// What made the file, and from which rows.
    pub source: String,
    /// The fewest rows a cell needs to be used.
    pub min_rows: usize,
    pub cells: Vec<Cell>,
}

/// The table compiled into the binary.
pub(crate) fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| serde_json::from_str(include_str!("../../data/uncertainty.json")).expect("data/uncertainty.json is checked by tests/accuracy.rs"))
}

/// What an estimate is made of at one moment of the step, for its band.
#[derive(Clone, Copy, Debug, Default)]
pub struct Parts {
    /// Everything: live tensors and the CUDA context.
    pub total: f64,
    /// The rows trainlint computes (activations, logits, workspaces), not the context.
    pub computed: f64,
    /// The user's declared sizes and terms.
    pub declared: f64,
    pub context: f64,
}

/// The band of one run: which cell gave it, and the factors on the computed rows.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Band {
    pub kind: Kind,
    /// The cell used: the kind itself, or the pooled cell it fell back to ("lora · any sharding · any framework").
    pub measured_on: String,
    /// Rows of the accuracy table in that cell.
    pub rows: usize,
    /// The lowest multiple of the estimate's live tensors the measured runs of this kind needed
    /// (the cell's smallest ratio, at most 1).
    pub low_ratio: f64,
    /// The lowest multiple of the model states alone they needed (the cell's smallest states
    /// ratio, at most 1): the low end is never below the states × it, whatever the rest.
    pub low_states: f64,
    /// The highest multiple of the computed rows (activations, logits, workspaces) they needed
    /// (the cell's largest factor, at least 1).
    pub high_factor: f64,
    /// The caching allocator's reserve, as a multiple of the live tensors.
    pub reserve: f64,
    /// Measured peaks of this run (`[[calibration]]`) gave the band instead: the fit's
    /// largest residual either side of it, in bytes.
    pub calibrated_residual_bytes: Option<f64>,
}

impl Band {
    pub(crate) fn of(run: &Run) -> Band {
        let kind = Kind::of(run);
        let checkpointed = run.resolved.typed::<ActivationCheckpointing>().is_some_and(|c| c != ActivationCheckpointing::None);
        let reserve = if checkpointed { RESERVE_CHECKPOINTED } else { RESERVE_PLAIN };
        let table = table();
        let fits = |cell: &&Cell| cell.rows >= table.min_rows;
        let levels: [&dyn Fn(&Cell) -> bool; 4] = [
            &|c| c.method == Some(kind.method) && c.sharding == Some(kind.sharding) && c.framework.as_deref() == Some(kind.framework.as_str()),
            &|c| c.method == Some(kind.method) && c.sharding == Some(kind.sharding) && c.framework.is_none(),
            &|c| c.method == Some(kind.method) && c.sharding.is_none() && c.framework.is_none(),
            &|c| c.method.is_none() && c.sharding.is_none() && c.framework.is_none(),
        ];
        let cell = levels.iter().find_map(|level| table.cells.iter().filter(fits).find(|c| level(c)));
        match cell {
            Some(cell) => Band {
                measured_on: describe_cell(cell),
                rows: cell.rows,
                low_ratio: cell.ratio_min.clamp(0.0, 1.0),
                low_states: cell.states_ratio_min.clamp(0.0, 1.0),
                high_factor: cell.factor_max.max(1.0),
                reserve,
                calibrated_residual_bytes: None,
                kind,
            },
            // Only an empty table has no pooled cell: no band, the estimate alone.
            None => Band {
                measured_on: "no measured rows".into(),
                rows: 0,
                low_ratio: 1.0,
                low_states: 1.0,
                high_factor: 1.0,
                reserve,
                calibrated_residual_bytes: None,
                kind,
            },
        }
    }

    /// The band of a run whose own measured peaks (as nvidia-smi shows them) were fitted:
    /// the fit's largest residual either side, no reserve (the measurement includes it).
    pub(crate) fn calibrated(mut self, residual: f64) -> Band {
        self.measured_on = "this run's measured peaks ([[calibration]])".into();
        self.low_ratio = 1.0;
        self.low_states = 1.0;
        self.high_factor = 1.0;
        self.reserve = 1.0;
        self.calibrated_residual_bytes = Some(residual.max(0.0));
        self
    }

    /// The low end: the estimate's live tensors but the declared sizes × the smallest measured
    /// ratio, the declared sizes as stated, and the context (no reserve: the allocator holds at
    /// least what is allocated); never below the model states × the smallest measured states ratio.
    pub(crate) fn low(&self, at: &Parts) -> f64 {
        match self.calibrated_residual_bytes {
            Some(residual) => (at.total - residual).max(0.0),
            None => {
                let declared = at.declared.max(0.0);
                let rest = (at.total - at.context - declared).max(0.0);
                // No allocator reserve at the low end: the caching allocator holds at least what
                // is allocated (the smallest reserve measured over our 45 H200 runs,
                // data/measured_h200.json: 1.013 × allocated with checkpointing, 1.018 without),
                // and the median is no bound.
                let spread = rest * self.low_ratio + declared + at.context;
                // The model states (and declared sizes) alone, at the smallest multiple of them
                // measured: an overestimate of the rest cannot take the low end below them.
                let states = (at.total - at.context - at.computed.max(0.0)).max(0.0);
                let states_only = (states * self.low_states).max(declared) + at.context;
                spread.max(states_only)
            }
        }
    }

    /// The high end: the model states and declared sizes as they are, the computed rows × the
    /// largest measured factor, the reserve over every tensor, the context.
    pub(crate) fn high(&self, at: &Parts) -> f64 {
        match self.calibrated_residual_bytes {
            Some(residual) => at.total + residual,
            None => {
                let computed = at.computed.max(0.0);
                let kept = (at.total - at.context - computed).max(0.0);
                (kept + computed * self.high_factor) * self.reserve + at.context
            }
        }
    }

    /// "lora · none · litgpt: from the tensors −8 % to the computed rows +21 % with the model states as counted (measured on 12 runs of this kind), then ×1.05 allocator reserve and the CUDA context".
    pub(crate) fn describe(&self) -> String {
        if let Some(residual) = self.calibrated_residual_bytes {
            return format!("{}: ± {} (the fit of this run's measured peaks, [[calibration]])", self.kind.describe(), super::human_bytes(residual));
        }
        let percent = |factor: f64| {
            let p = ((factor - 1.0) * 100.0).round();
            if p < 0.0 { format!("\u{2212}{:.0} %", -p) } else { format!("+{p:.0} %") }
        };
        let runs = if self.rows == 1 { "1 run".to_owned() } else { format!("{} runs", self.rows) };
        let cell = if self.measured_on == format!("measured on {}", self.kind.describe()) {
            format!("measured on {runs} of this kind")
        } else {
            format!("{} {runs} ({})", self.measured_on, "too few of this kind")
        };
        format!(
            "{}: from the tensors {} to the computed rows {} with the model states as counted ({cell}), then ×{} allocator reserve and the CUDA context",
            self.kind.describe(),
            percent(self.low_ratio),
            percent(self.high_factor),
            self.reserve
        )
    }
}

/// "measured on lora · none · litgpt" / "measured on lora · any sharding · any framework".
fn describe_cell(cell: &Cell) -> String {
    format!(
        "measured on {} · {} · {}",
        cell.method.as_ref().map(name).unwrap_or_else(|| "any method".into()),
        cell.sharding.as_ref().map(name).unwrap_or_else(|| "any sharding".into()),
        cell.framework.clone().unwrap_or_else(|| "any framework".into())
    )
}

/// Whether a measured row can give a factor on its computed rows: they are at least a tenth of
/// its live tensors and at least 1 GiB. Below that, an error elsewhere (the states, a fixed
/// overhead nothing models: a small model's measurement is mostly those) divided by small
/// computed rows would be read as a huge factor and widen every run of the kind.
pub fn factor_measurable(tensors: f64, computed: f64) -> bool {
    computed >= 0.1 * tensors && computed >= super::GIB
}

/// One measured row for the table: its kind, measured ÷ estimated live tensors, and the factor
/// on its computed rows (none where those are under a tenth of its tensors: the factor would
/// magnify an error in the states).
pub struct Measured {
    pub kind: Kind,
    pub ratio: f64,
    pub factor: Option<f64>,
    /// Measured live tensors ÷ estimated model states (and declared sizes).
    pub states_ratio: Option<f64>,
}

/// The table the accuracy rows give: every (method, sharding, framework) cell and the pooled
/// ones, with their smallest ratio and largest factor. The test that writes
/// `data/uncertainty.json` calls it.
pub fn measure(rows: &[Measured], min_rows: usize, source: &str) -> Table {
    use std::collections::BTreeMap;
    type Key = (Option<Method>, Option<Sharding>, Option<String>);
    /// A cell's key, its ratios and its factors.
    type Group = (Key, Vec<f64>, Vec<f64>, Vec<f64>);
    let mut groups: BTreeMap<(String, String, String), Group> = BTreeMap::new();
    for row in rows.iter().filter(|r| r.ratio.is_finite() && r.ratio > 0.0) {
        let kind = &row.kind;
        let keys = [
            (Some(kind.method), Some(kind.sharding), Some(kind.framework.clone())),
            (Some(kind.method), Some(kind.sharding), None),
            (Some(kind.method), None, None),
            (None, None, None),
        ];
        for (method, sharding, framework) in keys {
            let key = (method.as_ref().map(name).unwrap_or_default(), sharding.as_ref().map(name).unwrap_or_default(), framework.clone().unwrap_or_default());
            let group = groups.entry(key).or_insert_with(|| ((method, sharding, framework), Vec::new(), Vec::new(), Vec::new()));
            group.1.push(row.ratio);
            if let Some(factor) = row.factor.filter(|f| f.is_finite()) {
                group.2.push(factor.max(0.0));
            }
            if let Some(states) = row.states_ratio.filter(|r| r.is_finite()) {
                group.3.push(states.max(0.0));
            }
        }
    }
    let round = |x: f64| (x * 1000.0).round() / 1000.0;
    let cells = groups
        .into_values()
        .map(|((method, sharding, framework), ratios, factors, states)| Cell {
            method,
            sharding,
            framework,
            rows: ratios.len(),
            ratio_min: round(ratios.iter().copied().fold(f64::INFINITY, f64::min)),
            states_ratio_min: round(states.iter().copied().fold(1.0, f64::min)),
            factor_max: round(factors.iter().copied().fold(1.0, f64::max)),
            factor_rows: factors.len(),
        })
        .collect();
    Table { source: source.to_owned(), min_rows, cells }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(method: Method, framework: &str) -> Kind {
        Kind { method, sharding: Sharding::None, framework: framework.into() }
    }

    #[test]
    fn a_cell_is_the_extremes_of_its_rows_and_pooled_cells_hold_every_row() {
        let row = |method, framework: &str, ratio, factor| Measured { kind: kind(method, framework), ratio, factor, states_ratio: None };
        let rows = [row(Method::Lora, "litgpt", 0.8, Some(0.5)), row(Method::Lora, "litgpt", 1.1, Some(1.4)), row(Method::Full, "native", 1.0, None)];
        let table = measure(&rows, 2, "test");
        let litgpt = table.cells.iter().find(|c| c.framework.as_deref() == Some("litgpt")).unwrap();
        assert_eq!((litgpt.rows, litgpt.ratio_min, litgpt.factor_max, litgpt.factor_rows), (2, 0.8, 1.4, 2));
        let all = table.cells.iter().find(|c| c.method.is_none()).unwrap();
        assert_eq!((all.rows, all.ratio_min, all.factor_max, all.factor_rows), (3, 0.8, 1.4, 2));
    }

    #[test]
    fn the_band_widens_the_computed_rows_then_adds_the_reserve_and_the_context() {
        let band = Band {
            kind: kind(Method::Lora, "litgpt"),
            measured_on: String::new(),
            rows: 4,
            low_ratio: 0.9,
            low_states: 1.0,
            high_factor: 1.25,
            reserve: 1.05,
            calibrated_residual_bytes: None,
        };
        // 11 GiB: 1 GiB context, 6 GiB model states, 4 GiB computed rows.
        let gib = 1024.0 * 1024.0 * 1024.0;
        let at = Parts { total: 11.0 * gib, computed: 4.0 * gib, declared: 0.0, context: gib };
        assert!((band.low(&at) / gib - (10.0 * 0.9 + 1.0)).abs() < 1e-9);
        assert!((band.high(&at) / gib - ((6.0 + 4.0 * 1.25) * 1.05 + 1.0)).abs() < 1e-9);
        // 2 GiB of the states declared instead: taken as stated at both ends.
        let declared = Parts { declared: 2.0 * gib, ..at };
        assert!((band.low(&declared) / gib - (8.0 * 0.9 + 2.0 + 1.0)).abs() < 1e-9);
        let measured = band.calibrated(0.5 * gib);
        let at = Parts { total: 10.0 * gib, computed: 0.0, declared: 0.0, context: gib };
        assert!((measured.high(&at) / gib - 10.5).abs() < 1e-9);
        assert!((measured.low(&at) / gib - 9.5).abs() < 1e-9);
    }

    #[test]
    fn the_compiled_table_has_a_pooled_cell_for_every_method() {
        let table = table();
        for method in [Method::Full, Method::Lora, Method::Qlora] {
            assert!(
                table.cells.iter().any(|c| c.method == Some(method) && c.sharding.is_none() && c.rows >= table.min_rows),
                "no pooled {method:?} cell with ≥ {} rows",
                table.min_rows
            );
        }
    }
}
