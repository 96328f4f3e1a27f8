//! The memory model against published *measured* peaks (issue 14, item 5).
//!
//! `data/published_peaks.json` holds 133 measured peaks (or published
//! out-of-memory failures) with their sources; `data/published_runs.json`
//! (made by `data/published_runs.py`) states each one as a trainlint run in the
//! native format. Every run is estimated by the real binary and compared like for
//! like: `max_memory_allocated`/`max_memory_reserved` with the estimate without
//! the CUDA context, nvidia-smi and unstated metrics with the whole estimate.
//! Run with `-- --nocapture` to see the table (book/src/memory.md shows it).

mod common;

use common::median;

use serde_json::Value;

struct Outcome {
    id: String,
    method: String,
    ratio: Option<f64>,
    note: String,
    /// The kind of run the binary classified it as (`band.kind` of its estimate).
    kind: Option<Value>,
    /// (measured tensors − model states) ÷ computed rows: what the band's high end is made of
    /// (`estimate::band`); None where the computed rows are under a tenth of the tensors.
    factor: Option<f64>,
    /// Measured ÷ estimated live tensors: what its low end is made of.
    tensor_ratio: Option<f64>,
    /// Measured live tensors ÷ estimated model states: the floor of its low end.
    states_ratio: Option<f64>,
}

/// What an estimate says: its total, CUDA context, computed rows (`widened_bytes`), allocator reserve and kind of run.
struct Estimated {
    total: f64,
    context: f64,
    widened: f64,
    kind: Value,
}

fn estimate(dir: &std::path::Path, run: &Value, gpu: &str) -> Result<Estimated, String> {
    let path = dir.join("run.yaml");
    std::fs::write(&path, serde_json::to_string_pretty(run).unwrap()).unwrap();
    let output = common::trainlint(&["estimate", path.to_str().unwrap(), "--gpu", gpu, "--output-format", "json"]);
    let text = common::stdout(&output);
    let json: Value = serde_json::from_str(&text).map_err(|_| format!("no estimate: {}", common::stderr(&output).lines().next().unwrap_or("")))?;
    let estimate = &json["estimates"][0];
    let total = estimate["total_bytes"].as_f64().ok_or_else(|| format!("no total in {text}"))?;
    let context: f64 = estimate["components"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["name"].as_str().is_some_and(|n| n.starts_with("CUDA context")))
        .filter_map(|c| c["bytes"].as_f64())
        .sum();
    let widened = estimate["widened_bytes"].as_f64().ok_or_else(|| format!("no widened_bytes in {text}"))?;
    Ok(Estimated { total, context, widened, kind: estimate["band"]["kind"].clone() })
}

/// `max_memory_reserved` over `max_memory_allocated`, PyTorch's caching allocator's
/// reserve beyond the live tensors, as measured on our 36 H200 setups
/// (data/measured_h200.json; `estimate::band::RESERVE_*`, what the binary's verdicts use):
/// 1.17 with activation checkpointing, 1.05 without. A like-for-like comparison of a reserved
/// or device-level figure (nvidia-smi: the reserve plus the CUDA context) needs it; the
/// estimate itself is of the live tensors.
fn allocator_overhead(run: &Value) -> f64 {
    use trainlint::estimate::band::{RESERVE_CHECKPOINTED, RESERVE_PLAIN};
    match run["model"]["activation_checkpointing"].as_str() {
        Some("none") | None => RESERVE_PLAIN,
        Some(_) => RESERVE_CHECKPOINTED,
    }
}

/// Every row of a runs file estimated and compared: the outcomes, the rows not
/// estimated, and the published OOMs predicted to fit.
fn compare(file: &str, label: &str) -> (Vec<Outcome>, Vec<String>, Vec<String>) {
    let runs: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(common::repo().join(file)).unwrap()).unwrap();
    // The published rows are estimated on an H100 (their capacity is the row's own card,
    // compared below); our own rows on the card they ran on.
    let gpu_of = |row: &Value| if label == "measured" { row["gpu"].as_str().unwrap().to_owned() } else { "h100-sxm".to_owned() };
    let dir = common::fresh_dir(&format!("accuracy-{label}"));
    let mut outcomes = Vec::new();
    let mut oom_missed = Vec::new();
    let mut not_estimated = Vec::new();
    // Rows of models the catalog gained after issue 14's bars were set (issue 24 item 2): estimated and
    // shown, counted apart until the estimate for their architecture is checked (`pending` says why).
    let mut pending_errors: Vec<f64> = Vec::new();
    let mut pending_oom_missed: Vec<String> = Vec::new();
    for row in &runs {
        let id = row["id"].as_str().unwrap().to_owned();
        let method = row["method"].as_str().unwrap().to_owned();
        let pending = row["pending"].as_str();
        if let Some(why) = row["excluded"].as_str() {
            outcomes.push(Outcome {
                id,
                method,
                ratio: None,
                note: format!("excluded: {why}"),
                kind: None,
                factor: None,
                tensor_ratio: None,
                states_ratio: None,
            });
            continue;
        }
        let Estimated { total, context, widened, kind } = match estimate(&dir, &row["run"], &gpu_of(row)) {
            Ok(v) => v,
            Err(why) => {
                not_estimated.push(format!("{id}: {why}"));
                outcomes.push(Outcome { id, method, ratio: None, note: why, kind: None, factor: None, tensor_ratio: None, states_ratio: None });
                continue;
            }
        };
        // What the card holds at the estimate: the caching allocator's reserve plus the context.
        let overhead = allocator_overhead(&row["run"]);
        let device = (total - context) * overhead + context;
        if row["oom"].as_bool().unwrap() {
            let capacity = row["capacity_bytes"].as_f64().unwrap();
            let fits = device <= capacity;
            if fits {
                let missed = format!("{id}: {:.2} GiB on {:.0} GiB", device / 1073741824.0, capacity / 1073741824.0);
                if pending.is_some() { pending_oom_missed.push(missed) } else { oom_missed.push(missed) }
            }
            outcomes.push(Outcome {
                id,
                method,
                ratio: None,
                kind: Some(kind),
                factor: None,
                tensor_ratio: None,
                states_ratio: None,
                note: format!(
                    "{} OOM; estimate {:.2} GiB of {:.1} GiB: {}",
                    if label.starts_with("measured") { "measured" } else { "published" },
                    device / 1073741824.0,
                    capacity / 1073741824.0,
                    if fits { "FITS (wrong)" } else { "does not fit" }
                ) + &pending.map(|why| format!(" (pending: {why})")).unwrap_or_default(),
            });
            continue;
        }
        let measured = row["measured_bytes"].as_f64().unwrap();
        let compared = match row["compare"].as_str().unwrap() {
            "tensors" => total - context,
            "reserved" => (total - context) * overhead,
            _ => device,
        };
        let ratio = compared / measured;
        // The measured figure as live tensors (undoing the reserve and the context the
        // comparison added), less the model states: what the computed rows really were.
        let tensors = match row["compare"].as_str().unwrap() {
            "tensors" => measured,
            "reserved" => measured / overhead,
            _ => (measured - context) / overhead,
        };
        let states = total - context - widened;
        let factor = trainlint::estimate::band::factor_measurable(total - context, widened).then(|| (tensors - states) / widened);
        // The low end (live tensors and the context, no reserve) must not pass what the card held:
        // the most the live tensors can have been is the measured figure itself (a reserve of 1),
        // not the figure less the median reserve, which would push the low end under completed runs.
        let tensors_at_most = match row["compare"].as_str().unwrap() {
            "tensors" | "reserved" => measured,
            _ => measured - context,
        };
        let tensor_ratio = Some(tensors_at_most / (total - context));
        let states_ratio = (states > 0.0).then(|| tensors_at_most / states);
        if let Some(why) = pending {
            pending_errors.push((ratio - 1.0).abs());
            outcomes.push(Outcome {
                id,
                method,
                ratio: None,
                note: format!("pending ({why}): ratio {ratio:.2}, estimate {:.2} GiB, measured {:.2} GiB", compared / 1073741824.0, measured / 1073741824.0),
                // A pending row is a measurement all the same: the bands count it.
                kind: Some(kind),
                factor,
                tensor_ratio,
                states_ratio,
            });
            continue;
        }
        outcomes.push(Outcome {
            id,
            method,
            ratio: Some(ratio),
            kind: Some(kind),
            factor,
            tensor_ratio,
            states_ratio,
            note: format!("estimate {:.2} GiB, measured {:.2} GiB ({})", compared / 1073741824.0, measured / 1073741824.0, row["metric"].as_str().unwrap()),
        });
    }
    if !pending_errors.is_empty() || !pending_oom_missed.is_empty() {
        let worst = pending_errors.iter().copied().fold(0.0, f64::max);
        println!(
            "\n{label}: pending rows (models resolved since issue 24 item 2, not yet held to the bars): {} compared, median abs(ratio − 1) {:.3}, worst {worst:.3}; published OOMs predicted to fit: {pending_oom_missed:?}",
            pending_errors.len(),
            median(&mut pending_errors)
        );
    }
    (outcomes, not_estimated, oom_missed)
}

/// The table and the statistics per method; the |ratio − 1| of every compared row.
fn report(title: &str, outcomes: &[Outcome], not_estimated: &[String], oom_missed: &[String]) -> Vec<f64> {
    println!("\n## {title}\n\n| row | method | ratio | |\n|---|---|---:|---|");
    for o in outcomes {
        println!("| {} | {} | {} | {} |", o.id, o.method, o.ratio.map(|r| format!("{r:.2}")).unwrap_or_default(), o.note);
    }
    println!("\n| method | rows | median abs(ratio − 1) | worst abs(ratio − 1) |\n|---|---:|---:|---:|");
    let mut all = Vec::new();
    for method in ["full", "lora", "qlora", "fsdp", "zero"] {
        let mut errors: Vec<f64> = outcomes.iter().filter(|o| o.method == method).filter_map(|o| o.ratio).map(|r| (r - 1.0).abs()).collect();
        if errors.is_empty() {
            continue;
        }
        all.extend(errors.iter().copied());
        let worst = errors.iter().copied().fold(0.0, f64::max);
        println!("| {method} | {} | {:.3} | {:.3} |", errors.len(), median(&mut errors), worst);
    }
    let worst = all.iter().copied().fold(0.0, f64::max);
    let med = median(&mut all.clone());
    println!("| all | {} | {med:.3} | {worst:.3} |", all.len());
    println!("\nnot estimated: {not_estimated:#?}\npublished OOM predicted to fit: {oom_missed:#?}");
    all
}

#[test]
fn estimates_match_published_measured_peaks() {
    let (outcomes, not_estimated, oom_missed) = compare("data/published_runs.json", "published");
    let mut all = report("Published measured peaks", &outcomes, &not_estimated, &oom_missed);
    let med = median(&mut all.clone());
    // Issue 14's bars, over every row (published and ours): median |ratio − 1| ≤ 0.10, worst
    // ≤ 0.35, and every published OOM predicted not to fit.
    assert!(all.len() >= 63, "too few rows compared: {}", all.len());
    assert!(med <= 0.10, "median |ratio − 1| = {med:.3} (was 0.086)");
    assert!(oom_missed.is_empty(), "a published OOM predicted to fit: {oom_missed:?}");
    let outside: Vec<&Outcome> = outcomes.iter().filter(|o| o.ratio.is_some_and(|r| (r - 1.0).abs() > 0.35)).collect();
    println!("outside ±35 %: {:?}", outside.iter().map(|o| &o.id).collect::<Vec<_>>());
    assert!(outside.is_empty(), "rows outside ±35 %: {:?}", outside.iter().map(|o| &o.id).collect::<Vec<_>>());
    // Every row together, ours and the published: the statistic.
    let (ours, ..) = compare("data/measured_runs.json", "measured-all");
    all.extend(ours.iter().filter_map(|o| o.ratio).map(|r| (r - 1.0).abs()));
    let worst = all.iter().copied().fold(0.0, f64::max);
    let together = median(&mut all);
    println!("\nall rows together: {} rows, median {together:.3}, worst {worst:.3}", all.len());
    assert!(together <= 0.10, "median |ratio − 1| over every row = {together:.3} (was 0.041)");
    assert!(worst <= 0.35, "worst |ratio − 1| over every row = {worst:.3} (was 0.341)");
}

/// Our own measurements: 47 setups on one H200 (45 that ran, 2 out of memory) (`scripts/measure_gpu_peaks.py`,
/// `data/measured_h200.json`, stated as runs by `data/measured_runs.py`), every one
/// `max_memory_allocated` against the estimate without the CUDA context.
#[test]
fn estimates_match_our_measured_peaks() {
    let (outcomes, not_estimated, oom_missed) = compare("data/measured_runs.json", "measured");
    let mut all = report("Measured here (H200)", &outcomes, &not_estimated, &oom_missed);
    assert!(not_estimated.is_empty(), "{not_estimated:?}");
    assert_eq!(all.len(), 45, "every setup that ran is compared");
    assert!(oom_missed.is_empty(), "a measured OOM predicted to fit: {oom_missed:?}");
    let worst = all.iter().copied().fold(0.0, f64::max);
    let med = median(&mut all);
    // Reached 2026-11-26: median 0.018, worst 0.226 (GPT-2's gelu_new, not modelled); 0.017 since
    // the q/k norms' saved inputs are counted (Qwen3-1.7B LoRA without checkpointing 0.94 → 1.00).
    assert!(med <= 0.03, "median |ratio − 1| = {med:.3} (was 0.017)");
    assert!(worst <= 0.25, "worst |ratio − 1| = {worst:.3} (was 0.226)");
}

/// The uncertainty bands (`data/uncertainty.json`, compiled into the binary, `estimate::band`)
/// are what the accuracy table gives: every row the binary estimated, grouped by the kind of
/// run the binary itself gives it (method × sharding × framework), each cell its extreme
/// ratios. A change to the memory model that moves a ratio changes a cell, and this test
/// fails until the file is rewritten (`TRAINLINT_WRITE_BANDS=1`) and the change reviewed.
#[test]
fn bands_are_computed_from_the_accuracy_table() {
    use trainlint::estimate::band::{Kind, MIN_ROWS, Measured, Table, measure};
    let mut rows: Vec<Measured> = Vec::new();
    // The peaks published in each framework's own config format (tests/published_configs.rs,
    // which checks that results.json is what the binary gives): the rows that make the
    // frameworks' own cells.
    let published: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(common::repo().join("fixtures/published/results.json")).unwrap()).unwrap();
    let compared = |row: &&Value| row["excluded"].is_null() && row["tensor_ratio"].as_f64().is_some() && !row["kind"].is_null();
    // One measurement is one row: a peak restated in the native format (data/published_runs.json)
    // that is also compared in its framework's own config format counts once, as the latter.
    let in_framework_format: std::collections::HashSet<&str> = published.iter().filter(compared).filter_map(|r| r["id"].as_str()).collect();
    for (file, label) in [("data/published_runs.json", "published"), ("data/measured_runs.json", "measured")] {
        let (outcomes, ..) = compare(file, &format!("bands-{label}"));
        for o in outcomes {
            if in_framework_format.contains(o.id.as_str()) {
                continue;
            }
            if let (Some(ratio), Some(kind)) = (o.tensor_ratio, o.kind) {
                let kind: Kind = serde_json::from_value(kind).unwrap_or_else(|e| panic!("{}: kind {e}", o.id));
                rows.push(Measured { kind, ratio, factor: o.factor, states_ratio: o.states_ratio });
            }
        }
    }
    for row in published.iter().filter(compared) {
        let ratio = row["tensor_ratio"].as_f64().unwrap_or_default();
        let kind: Kind = serde_json::from_value(row["kind"].clone()).unwrap_or_else(|e| panic!("{}: kind {e}", row["id"]));
        rows.push(Measured { kind, ratio, factor: row["factor"].as_f64(), states_ratio: row["states_ratio"].as_f64() });
    }
    assert!(rows.len() >= 150, "too few rows for the bands: {}", rows.len());
    let table = measure(
        &rows,
        MIN_ROWS,
        "tests/accuracy.rs bands_are_computed_from_the_accuracy_table: every row of data/published_runs.json, data/measured_runs.json and fixtures/published/results.json the binary estimated, each measurement once (a published peak compared in its framework's own config format is not counted again as its native restatement); ratio = measured ÷ estimated live tensors; states ratio = measured live tensors ÷ estimated model states; factor = (measured live tensors − model states) ÷ computed rows, over the rows whose computed rows are at least a tenth of their tensors and 1 GiB (`band::factor_measurable`)",
    );
    let path = common::repo().join("data/uncertainty.json");
    let text = serde_json::to_string_pretty(&table).unwrap() + "\n";
    if std::env::var_os("TRAINLINT_WRITE_BANDS").is_some() {
        std::fs::write(&path, &text).unwrap();
    }
    let stored: Table = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let same = stored.min_rows == table.min_rows
        && stored.cells.len() == table.cells.len()
        && stored.cells.iter().zip(&table.cells).all(|(a, b)| {
            (&a.method, &a.sharding, &a.framework, a.rows, a.factor_rows) == (&b.method, &b.sharding, &b.framework, b.rows, b.factor_rows)
                && (a.ratio_min - b.ratio_min).abs() < 1e-6
                && (a.states_ratio_min - b.states_ratio_min).abs() < 1e-6
                && (a.factor_max - b.factor_max).abs() < 1e-6
        });
    assert!(
        same,
        "data/uncertainty.json is not what the accuracy table gives: rerun with TRAINLINT_WRITE_BANDS=1 and review the change\nstored: {stored:#?}\ncomputed: {table:#?}"
    );
}
