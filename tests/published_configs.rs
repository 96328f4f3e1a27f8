//! The memory model against published measured peaks, each stated in the framework's *own*
//! config format (issue 24, item 4). `fixtures/published/rows.json` lists the rows; each row's
//! folder `fixtures/published/<framework>/<id>/` holds the project's own config file (litgpt's
//! `config_hub/finetune/…`, torchtune's `recipes/configs/…`, LLaMA-Factory's `examples/…`,
//! Axolotl's `examples/…`, an HF launch script) and, where the published command passes
//! overrides, the launch script that passes them, exactly as the project writes it
//! (`fixtures/published/make.py` wrote them from the projects' git history).
//!
//! Every row is run through its dialect by the real binary in a fresh work tree holding only
//! its folder — `trainlint estimate <config> --gpu <gpu> --output-format json` and `trainlint
//! check` for MEM001 — and compared like for like as `tests/accuracy.rs` does:
//! `max_memory_allocated` with the estimate without the CUDA context, `max_memory_reserved` with
//! that times the allocator's overhead, nvidia-smi and unstated metrics with the reserve plus the
//! context. Run with `-- --nocapture` to see the table (book/src/memory.md shows it);
//! `TRAINLINT_WRITE_PUBLISHED=1` writes `fixtures/published/results.json`.

mod common;

use common::median;

use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::Path;

const GIB: f64 = 1073741824.0;

struct Outcome {
    id: String,
    framework: String,
    method: String,
    sharding: String,
    ratio: Option<f64>,
    oom: bool,
    predicted_fits: Option<bool>,
    mem001: Option<bool>,
    /// Why the row is reported but not counted (its published value is not the run its config describes).
    excluded: Option<String>,
    note: String,
    /// The kind of run the binary gave it (`band.kind`), and (measured as live tensors − model
    /// states) ÷ computed rows: what the uncertainty bands are made of (`estimate::band`, the
    /// bands test in tests/accuracy.rs reads them from results.json).
    kind: Option<Value>,
    factor: Option<f64>,
    /// Measured ÷ estimated live tensors (the bands' low end).
    tensor_ratio: Option<f64>,
    /// Measured live tensors ÷ estimated model states (the floor of the bands' low end).
    states_ratio: Option<f64>,
}

/// `max_memory_reserved` over `max_memory_allocated`: the reserve the binary itself applies for
/// this run (`band.reserve`, `estimate::band::RESERVE_*`: the median of our 36 H200 setups,
/// data/measured_h200.json, 1.17 with activation checkpointing, 1.05 without), from the
/// checkpointing trainlint read in the framework's config.
fn allocator_overhead(estimate: &Value) -> f64 {
    estimate["band"]["reserve"].as_f64().unwrap_or(trainlint::estimate::band::RESERVE_PLAIN)
}

fn unit_bytes(unit: &str) -> f64 {
    match unit {
        "GB" => 1e9,
        "GiB" => GIB,
        "MiB" => 1048576.0,
        "MB" => 1e6,
        other => panic!("unit {other}"),
    }
}

/// The row's folder copied into a fresh work tree of its own (a `.git` marks the project root,
/// so that no other row's launch script or README is read), and the config's path inside it.
fn work_tree(row: &Value) -> (std::path::PathBuf, String) {
    let config = row["config"].as_str().unwrap();
    let mut parts = config.splitn(3, '/');
    let (framework, id, inside) = (parts.next().unwrap(), parts.next().unwrap(), parts.next().unwrap());
    let dir = common::fresh_dir(&format!("published-{id}"));
    common::copy_dir(&common::repo().join("fixtures/published").join(framework).join(id), &dir);
    std::fs::create_dir_all(dir.join(".git")).unwrap();
    (dir, inside.to_owned())
}

fn run_row(row: &Value) -> Outcome {
    let text = |k: &str| row[k].as_str().unwrap_or_else(|| panic!("{}: no `{k}`", row["id"])).to_owned();
    let (id, gpu, metric) = (text("id"), text("gpu"), text("metric"));
    let oom = row["oom"].as_bool().unwrap();
    let mut outcome = Outcome {
        id: id.clone(),
        framework: text("framework"),
        method: text("method"),
        sharding: text("sharding"),
        ratio: None,
        oom,
        predicted_fits: None,
        mem001: None,
        excluded: row["excluded"].as_str().map(str::to_owned),
        note: String::new(),
        kind: None,
        factor: None,
        tensor_ratio: None,
        states_ratio: None,
    };
    let (dir, config) = work_tree(row);
    let extra: Vec<String> = row["args"].as_array().into_iter().flatten().filter_map(|a| a.as_str().map(str::to_owned)).collect();
    let mut args = vec!["estimate", config.as_str(), "--gpu", gpu.as_str(), "--output-format", "json"];
    args.extend(extra.iter().map(String::as_str));
    let output = common::trainlint_in(&dir, &args);
    let json: Value = match serde_json::from_str(&common::stdout(&output)) {
        Ok(v) => v,
        Err(_) => {
            outcome.note = format!("not estimated: {}", common::stderr(&output).lines().next().unwrap_or("no output"));
            return outcome;
        }
    };
    let estimate = &json["estimates"][0];
    let Some(total) = estimate["total_bytes"].as_f64() else {
        outcome.note = format!("not estimated: {}", estimate["notes"]);
        return outcome;
    };
    let context: f64 = estimate["components"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["name"].as_str().is_some_and(|n| n.starts_with("CUDA context")))
        .filter_map(|c| c["bytes"].as_f64())
        .sum();
    let overhead = allocator_overhead(estimate);
    let device = (total - context) * overhead + context;
    let capacity = estimate["capacity_bytes"].as_f64().unwrap();
    outcome.predicted_fits = estimate["fits"].as_bool();

    let mut check = vec!["check", config.as_str(), "--gpu", gpu.as_str(), "--output-format", "json"];
    check.extend(extra.iter().map(String::as_str));
    let checked: Value = serde_json::from_str(&common::stdout(&common::trainlint_in(&dir, &check))).unwrap_or(Value::Null);
    outcome.mem001 = Some(checked["diagnostics"].as_array().into_iter().flatten().any(|d| d["code"] == "MEM001"));

    if oom {
        outcome.note = format!(
            "published OOM; estimate {:.2} GiB (device {:.2} GiB) of {:.1} GiB: {}",
            total / GIB,
            device / GIB,
            capacity / GIB,
            if outcome.predicted_fits == Some(true) { "FITS (wrong)" } else { "does not fit" }
        );
        return outcome;
    }
    // A completed run whose thread gives no peak: only whether it fits (MEM001) is checked.
    let Some(value) = row["value"].as_f64() else {
        outcome.note = format!("completed, no peak published; estimate {:.2} GiB (device {:.2} GiB) of {:.1} GiB", total / GIB, device / GIB, capacity / GIB);
        return outcome;
    };
    // An input the config leaves open (no sequence length: PEFT's `--max_seq_len`, argparse's
    // abbreviation of `max_seq_length`, is not read) is solved for what fits, through the bands:
    // such an estimate is not the published run's, and is not compared.
    if !estimate["solved"].is_null() {
        outcome.note = format!("not compared: the estimate solved {} (the config leaves it open)", estimate["solved"]);
        return outcome;
    }
    let measured = value * unit_bytes(row["unit"].as_str().unwrap());
    let compared = match metric.as_str() {
        "max_memory_allocated" => total - context,
        "max_memory_reserved" => (total - context) * overhead,
        _ => device,
    };
    let ratio = compared / measured;
    outcome.ratio = Some(ratio);
    // As tests/accuracy.rs: the measured figure as live tensors, less the model states, over the
    // computed rows (none where those are too small to measure it: `band::factor_measurable`).
    let widened = estimate["widened_bytes"].as_f64().unwrap_or(0.0);
    let tensors = match metric.as_str() {
        "max_memory_allocated" => measured,
        "max_memory_reserved" => measured / overhead,
        _ => (measured - context) / overhead,
    };
    let states = total - context - widened;
    outcome.kind = Some(estimate["band"]["kind"].clone());
    outcome.factor = trainlint::estimate::band::factor_measurable(total - context, widened).then(|| ((tensors - states) / widened * 1000.0).round() / 1000.0);
    // The low end (live tensors and the context, no reserve) must not pass what the card held: the
    // most the live tensors can have been is the measured figure itself (a reserve of 1), not the
    // figure less the median reserve, which would push the low end under runs that completed.
    let tensors_at_most = match metric.as_str() {
        "max_memory_allocated" | "max_memory_reserved" => measured,
        _ => measured - context,
    };
    outcome.tensor_ratio = Some((tensors_at_most / (total - context) * 1000.0).round() / 1000.0);
    outcome.states_ratio = (states > 0.0).then(|| (tensors_at_most / states * 1000.0).round() / 1000.0);
    outcome.note = format!("estimate {:.2} GiB, published {:.2} GiB ({metric})", compared / GIB, measured / GIB);
    outcome
}

struct Stats {
    rows: usize,
    median: f64,
    worst: f64,
}

fn stats(outcomes: &[&Outcome]) -> Stats {
    let mut errors: Vec<f64> = outcomes.iter().filter(|o| o.excluded.is_none()).filter_map(|o| o.ratio).map(|r| (r - 1.0).abs()).collect();
    let worst = errors.iter().copied().fold(0.0, f64::max);
    Stats { rows: errors.len(), median: median(&mut errors), worst }
}

#[test]
fn estimates_match_peaks_published_in_each_frameworks_own_config() {
    let rows: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(common::repo().join("fixtures/published/rows.json")).unwrap()).unwrap();
    let outcomes: Vec<Outcome> = rows.iter().map(run_row).collect();

    println!("\n| row | framework | method | ratio | note |\n|---|---|---|---:|---|");
    for o in &outcomes {
        let excluded = o.excluded.as_deref().map(|why| format!(" (not counted: {why})")).unwrap_or_default();
        println!("| {} | {} | {} | {} | {}{excluded} |", o.id, o.framework, o.method, o.ratio.map(|r| format!("{r:.2}")).unwrap_or_default(), o.note);
    }
    let mut groups: BTreeMap<(String, String), Vec<&Outcome>> = BTreeMap::new();
    let mut frameworks: BTreeMap<String, Vec<&Outcome>> = BTreeMap::new();
    for o in &outcomes {
        groups.entry((o.framework.clone(), o.method.clone())).or_default().push(o);
        frameworks.entry(o.framework.clone()).or_default().push(o);
    }
    println!("\n| framework | method | rows | compared | median abs(ratio − 1) | worst abs(ratio − 1) |\n|---|---|---:|---:|---:|---:|");
    for ((framework, method), group) in &groups {
        let s = stats(group);
        println!("| {framework} | {method} | {} | {} | {:.3} | {:.3} |", group.len(), s.rows, s.median, s.worst);
    }
    for (framework, group) in &frameworks {
        let s = stats(group);
        println!("| {framework} | all | {} | {} | {:.3} | {:.3} |", group.len(), s.rows, s.median, s.worst);
    }
    let all = stats(&outcomes.iter().collect::<Vec<_>>());
    println!("| all | all | {} | {} | {:.3} | {:.3} |", outcomes.len(), all.rows, all.median, all.worst);

    let counted = |o: &&Outcome| o.excluded.is_none();
    let oom_missed: Vec<&str> = outcomes.iter().filter(counted).filter(|o| o.oom && o.predicted_fits == Some(true)).map(|o| o.id.as_str()).collect();
    let mem001_completed: Vec<&str> = outcomes.iter().filter(counted).filter(|o| !o.oom && o.mem001 == Some(true)).map(|o| o.id.as_str()).collect();
    let mem001_excluded: Vec<&str> = outcomes.iter().filter(|o| o.excluded.is_some() && !o.oom && o.mem001 == Some(true)).map(|o| o.id.as_str()).collect();
    let not_estimated: Vec<String> = outcomes.iter().filter(|o| o.predicted_fits.is_none()).map(|o| format!("{}: {}", o.id, o.note)).collect();
    println!(
        "\npublished OOM predicted to fit: {oom_missed:#?}\ncompleted runs that get MEM001: {mem001_completed:#?}\n\
         (rows not counted that get MEM001: {mem001_excluded:?})\nnot estimated: {not_estimated:#?}"
    );

    // results.json is what the bands are computed from (tests/accuracy.rs): it must be current.
    let results: Vec<Value> = outcomes
        .iter()
        .map(|o| {
            json!({"id": o.id, "framework": o.framework, "method": o.method, "sharding": o.sharding,
                   "ratio": o.ratio.map(|r| (r * 1000.0).round() / 1000.0), "oom": o.oom,
                   "predicted_fits": o.predicted_fits, "mem001": o.mem001, "excluded": o.excluded,
                   "kind": o.kind, "tensor_ratio": o.tensor_ratio, "states_ratio": o.states_ratio, "factor": o.factor, "note": o.note})
        })
        .collect();
    let text = serde_json::to_string_pretty(&results).unwrap() + "\n";
    let path = common::repo().join("fixtures/published/results.json");
    if std::env::var_os("TRAINLINT_WRITE_PUBLISHED").is_some() {
        std::fs::write(&path, &text).unwrap();
    }
    assert!(
        std::fs::read_to_string(&path).is_ok_and(|stored| stored == text),
        "fixtures/published/results.json is not what the binary gives: rerun with TRAINLINT_WRITE_PUBLISHED=1, review, then rewrite the bands (TRAINLINT_WRITE_BANDS=1 cargo test --test accuracy)"
    );

    // Every row is estimated, or says why not.
    for o in &outcomes {
        assert!(o.predicted_fits.is_some() || o.note.starts_with("not estimated: ") && o.note.len() > 16, "{}: neither estimated nor a reason", o.id);
    }
    assert!(not_estimated.len() <= NOT_ESTIMATED_WAS, "rows not estimated: {not_estimated:#?} (was {NOT_ESTIMATED_WAS})");
    // The rows stated so far (fixtures/published/make.py); a row lost is a regression.
    let count = |f: &str| frameworks.get(f).map_or(0, Vec::len);
    for (framework, at_least) in MIN_ROWS {
        assert!(count(framework) >= *at_least, "{framework}: {} rows, expected at least {at_least}", count(framework));
    }
    // Issue 24's bars are median |r − 1| ≤ 0.10 and worst ≤ 0.35 per framework, every published
    // OOM predicted not to fit and no completed run with MEM001. The ratio bars are NOT met yet;
    // these are the statistics reached on 2026-11-27 as regression bars (book/src/memory.md has
    // the table).
    for (framework, median_was, worst_was) in REACHED {
        let s = stats(frameworks.get(*framework).map(Vec::as_slice).unwrap_or(&[]));
        assert!(s.median <= median_was + 0.02, "{framework}: median |ratio − 1| = {:.3} (was {median_was:.3})", s.median);
        assert!(s.worst <= worst_was + 0.02, "{framework}: worst |ratio − 1| = {:.3} (was {worst_was:.3})", s.worst);
    }
    // The bar, met since GRPO is priced by TRL release (trl-openr1-100 gets MEM002): every
    // published OOM is predicted not to fit (MEM001 or MEM002).
    assert!(oom_missed.is_empty(), "published OOMs predicted to fit: {oom_missed:?}");
    // The bar, met: no run published as completed gets MEM001.
    assert!(mem001_completed.is_empty(), "completed runs with MEM001: {mem001_completed:?}");
}

/// Rows per framework in fixtures/published/rows.json.
const MIN_ROWS: &[(&str, usize)] = &[("litgpt", 46), ("torchtune", 13), ("llama_factory", 21), ("axolotl", 22), ("hf", 25)];
/// (framework, median |r − 1|, worst |r − 1|) over the counted rows, reached on 2026-11-27
/// after each framework's semantics (issue 24 item 1), the scripts' own LoRA switches and
/// torchtune's component override. The bars (≤ 0.10 / ≤ 0.35 per framework) are met by
/// HF (0.037 / 0.184), litgpt (0.089 / 0.214, its rows' folders holding litgpt's
/// `pyproject.toml`, whose bitsandbytes 0.42.0 kept the 4-bit inputs) and torchtune (0.060 /
/// 0.202, its 8-bit row on the `AdamW8bit` its README names), and by LLaMA-Factory's median; not
/// by LLaMA-Factory's worst 0.492 (ZeRO-3 offload under; 0.653 before ZeRO-3's in-flight
/// buffers, `zero_in_flight`, 0.557 before a parameter over the reduce bucket was priced reduced
/// alone with its fp64 norm), Axolotl 0.198 / 0.476 (QLoRA over; 0.193 / 0.488 before the q/k
/// norms' saved inputs were counted: Hunyuan and OLMo 3, under, move up, and Apertus, over, too).
/// litgpt 0.089 / 0.214 since an FSDP full fine-tune's two gathered blocks are counted (0.095 /
/// 0.224 before). book/src/memory.md lists the causes.
const REACHED: &[(&str, f64, f64)] =
    &[("litgpt", 0.089, 0.214), ("torchtune", 0.060, 0.202), ("llama_factory", 0.086, 0.492), ("axolotl", 0.198, 0.476), ("hf", 0.037, 0.184)];
/// Rows trainlint refuses to estimate (each with its reason in the table).
const NOT_ESTIMATED_WAS: usize = 12;

#[test]
fn every_row_names_its_source_metric_and_config() {
    let rows: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(common::repo().join("fixtures/published/rows.json")).unwrap()).unwrap();
    let mut ids = std::collections::BTreeSet::new();
    for row in &rows {
        let id = row["id"].as_str().unwrap();
        assert!(ids.insert(id), "{id} twice");
        for key in ["source", "quote", "metric", "gpu", "config", "framework", "method", "sharding"] {
            assert!(row[key].as_str().is_some_and(|s| !s.is_empty()), "{id}: `{key}` missing");
        }
        assert!(Path::new(&common::repo().join("fixtures/published").join(row["config"].as_str().unwrap())).is_file(), "{id}: config missing");
        // A peak only for a run that completed, always with its unit; a completed run may publish none.
        let oom = row["oom"].as_bool().unwrap();
        assert!(!oom || row["value"].is_null(), "{id}: a published OOM has no peak");
        assert!(row["value"].is_null() || row["unit"].as_str().is_some_and(|u| ["GB", "GiB", "MiB", "MB"].contains(&u)), "{id}: a value has a unit");
    }
}
