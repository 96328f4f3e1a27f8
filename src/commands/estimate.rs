use crate::error::FatalError;
use crate::estimate::plan::{self, PlanRow};
use crate::estimate::{self, Estimate, MemoryModel, SolvedInput, Unstated, human_bytes, human_range, solve};
use crate::linter;
use crate::load::discover::{self, Excludes};
use crate::render::OutputFormat;
use crate::resolve::ResolvedConfig;
use crate::schema::GpuTarget;
use crate::settings::Settings;
use std::path::PathBuf;
use std::process::ExitCode;

use super::ConfigArgs;
/// The config and, when the manifest has a curriculum with this config as its
/// base, each stage (or the one `--stage` names).
use clap::Args;

#[derive(Debug, Args)]
pub struct EstimateArgs {
    /// The config (for a curriculum, its base config: every stage is estimated).
    pub config_file: PathBuf,
    /// Only this curriculum stage.
    #[arg(long, value_name = "NAME")]
    pub stage: Option<String>,
    /// Estimate at this micro batch instead of the config's.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub micro_batch: Option<u32>,
    #[arg(long, default_value = "full", value_parser = crate::render::formats(OutputFormat::ESTIMATE))]
    pub output_format: OutputFormat,
    #[command(flatten)]
    pub config: ConfigArgs,
}

#[derive(Debug, Args)]
pub struct PlanArgs {
    /// The config (for a curriculum, its base config: every stage is planned).
    pub config_file: PathBuf,
    /// Only this curriculum stage.
    #[arg(long, value_name = "NAME")]
    pub stage: Option<String>,
    /// Every GPU of the catalog.
    #[arg(long, conflicts_with = "gpus")]
    pub all_gpus: bool,
    /// Rewrite micro batch and accumulation for the one `--gpu` target, in the
    /// base config and in every stage file that needs its own.
    #[arg(long, conflicts_with = "all_gpus")]
    pub apply: bool,
    #[arg(long, default_value = "full", value_parser = crate::render::formats(OutputFormat::TABLE))]
    pub output_format: OutputFormat,
    #[command(flatten)]
    pub config: ConfigArgs,
}

fn views(config: &PathBuf, settings: &Settings, stage: Option<&str>) -> Result<Vec<ResolvedConfig>, FatalError> {
    let excludes = Excludes::new(&settings.root, None, &[])?;
    let files = discover::discover(std::slice::from_ref(config), &excludes, false)?;
    let file = files.first().ok_or_else(|| FatalError::usage(format!("`{}` is not a config file", config.display()), None))?;
    let report = linter::lint_file(file, settings)?;
    let base = report.resolved.ok_or_else(|| {
        FatalError::usage(format!("`{}` cannot be read as a config", file.display), Some(format!("`trainlint check {}` says why", file.display)))
    })?;
    let is_base =
        settings.manifest.curriculum.as_ref().is_some_and(|c| settings.loader.canonical(&settings.root.join(&c.base)) == settings.loader.canonical(&file.path));
    if !is_base {
        if let Some(name) = stage {
            return Err(FatalError::usage(format!("no curriculum stage `{name}`: `{}` is not the base of the manifest's [curriculum]", file.display), None));
        }
        return Ok(vec![base]);
    }
    let (curriculum, _) = linter::lint_curriculum(settings)?;
    let Some(curriculum) = curriculum else { return Ok(vec![base]) };
    let mut stages: Vec<ResolvedConfig> = curriculum.stages.into_iter().map(|s| s.resolved).collect();
    if let Some(name) = stage {
        let names: Vec<String> = stages.iter().filter_map(|s| s.stage.clone()).collect();
        stages.retain(|s| s.stage.as_deref() == Some(name));
        if stages.is_empty() {
            return Err(FatalError::usage(format!("no curriculum stage `{name}`"), Some(format!("the stages are: {}", names.join(", ")))));
        }
        return Ok(stages);
    }
    if stages.is_empty() { Ok(vec![base]) } else { Ok(stages) }
}

fn targets(view: &ResolvedConfig, settings: &Settings, all: bool) -> Result<Vec<GpuTarget>, FatalError> {
    if all {
        return Ok(settings.catalog.clone());
    }
    let targets = crate::rules::memory::targets(view, settings);
    if targets.is_empty() {
        return Err(FatalError::usage(
            "no GPU target",
            Some("pass `--gpu ID` (repeatable; `trainlint gpus` lists them), set `gpus` in the manifest or the config, or use --all-gpus".to_owned()),
        ));
    }
    Ok(targets)
}

pub(crate) fn run_estimate(args: &EstimateArgs) -> Result<ExitCode, FatalError> {
    let settings = super::settings_for(std::slice::from_ref(&args.config_file), &mut args.config.overrides())?;
    let views = views(&args.config_file, &settings, args.stage.as_deref())?;
    let mut estimates = Vec::new();
    let mut plans = Vec::new();
    for view in &views {
        for gpu in targets(view, &settings, false)? {
            let micro = args.micro_batch.map(u64::from).or(view.batch.micro()).unwrap_or(1);
            let margin = settings.safety_margin();
            let refused = |e: crate::estimate::NotEstimable| FatalError::usage(format!("memory cannot be estimated: {}", e.0), None);
            // An input the config leaves open is solved for, and the estimate shown at it (`estimate::solve`).
            let (model, solved_view, note) = match MemoryModel::build(view, &settings, Some(&gpu)) {
                Err(e) if e.world_unknown().is_some() => match solve::smallest_world(view, &settings, &gpu, margin, micro) {
                    Ok(solved) => {
                        let at = shortest_note(solved.at_sequence);
                        let note = format!(
                            "the data-parallel world is the launcher's (not stated): shown on {}, the fewest over which the sharded run fits on {} at micro batch {micro}{at}; `--world-size N` estimates another",
                            gpus_text(solved.value),
                            gpu.id
                        );
                        (solved.model, Some(solved.resolved), Some((note, SolvedInput { input: Unstated::WorldSize, value: solved.value })))
                    }
                    Err(solve::Unsolved::FitsNowhere(solved)) => {
                        let at = shortest_note(solved.at_sequence);
                        let note = format!(
                            "the data-parallel world is the launcher's (not stated): shown on {}, the most searched{at}; what each GPU keeps unsharded does not fit",
                            gpus_text(solved.value)
                        );
                        (solved.model, Some(solved.resolved), Some((note, SolvedInput { input: Unstated::WorldSize, value: solved.value })))
                    }
                    Err(solve::Unsolved::NotEstimable) => return Err(refused(e)),
                },
                Err(e) => return Err(refused(e)),
                Ok(model) if !model.activations_modelled => match solve::longest_sequence(view, &settings, &gpu, margin, micro) {
                    Some(Err(shortest)) => {
                        let note = format!(
                            "the config does not bound the sequence length (the longest sample decides): shown at {} tokens, the shortest searched: no length fits on {} at micro batch {micro}",
                            shortest.value, gpu.id
                        );
                        (shortest.model, Some(shortest.resolved), Some((note, SolvedInput { input: Unstated::SequenceLength, value: shortest.value })))
                    }
                    Some(Ok(solved)) => {
                        let note = format!(
                            "the config does not bound the sequence length (the longest sample decides): shown at {} tokens, the longest that fits on {} at micro batch {micro}",
                            crate::model::thousands(solved.value),
                            gpu.id
                        );
                        (solved.model, Some(solved.resolved), Some((note, SolvedInput { input: Unstated::SequenceLength, value: solved.value })))
                    }
                    None => (model, None, None),
                },
                Ok(model) => (model, None, None),
            };
            let at = solved_view.as_ref().unwrap_or(view);
            let mut estimate = estimate::estimate(&model, at, &gpu, margin, micro);
            let mut row = plan::plan(&model, at, &gpu, margin);
            if let Some((note, solved)) = note {
                estimate.notes.push(note);
                estimate.solved = Some(solved);
                if solved.input == Unstated::SequenceLength {
                    // The micro batch to plan depends on the length the data gives.
                    row = PlanRow { micro_batch: None, accumulation: None, reason: Some("the sequence length is not bounded: state it to plan".into()), ..row };
                }
            }
            estimates.push(estimate);
            plans.push(row);
        }
    }
    let output = match args.output_format {
        OutputFormat::Json => crate::render::json::estimates(&estimates, &plans),
        OutputFormat::Html => crate::render::html::render(&format!("trainlint estimate: {}", args.config_file.display()), &estimates, &plans),
        _ => estimates.iter().zip(&plans).map(|(e, p)| estimate_table(e, p)).collect::<Vec<_>>().join("\n"),
    };
    super::print(&output);
    Ok(if estimates.iter().all(|e| e.fits) { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// Where a world was solved at the shortest sequence (the length unbounded too), the words that say so.
fn shortest_note(at_sequence: Option<u64>) -> String {
    at_sequence
        .map(|tokens| format!(" and {tokens} tokens, the shortest sequence searched (the config does not bound the length: longer samples need more GPUs)"))
        .unwrap_or_default()
}

fn gpus_text(n: u64) -> String {
    if n == 1 { "1 GPU".to_owned() } else { format!("{} GPUs", crate::model::thousands(n)) }
}

fn estimate_table(e: &Estimate, p: &PlanRow) -> String {
    // Stage names, term names, GPU ids and notes come from configs and the manifest: their
    // control characters are escaped (`render::escape_controls`), never printed raw.
    let esc = |text: &str| crate::render::escape_controls(text).into_owned();
    let stage = e.stage.as_ref().map(|s| format!(", stage `{}`", esc(s))).unwrap_or_default();
    let mut out = format!("{} (micro batch {}{stage})\n\n", esc(&e.gpu), e.micro_batch);
    let width = e.components.iter().map(|c| c.name.chars().count()).max().unwrap_or(9).max(9);
    out.push_str(&format!("  {:<width$}  {:>11}  {:>6}  {}\n", "component", "memory", "share", "depends on"));
    for c in &e.components {
        let share = if e.total_bytes > 0.0 { c.bytes / e.total_bytes * 100.0 } else { 0.0 };
        out.push_str(&format!("  {:<width$}  {:>11}  {:>5.1}%  {}\n", esc(&c.name), human_bytes(c.bytes), share, esc(&c.depends_on)));
    }
    out.push_str(&format!("  {:<width$}  {:>11}  peak at {}\n", "total", human_bytes(e.total_bytes), e.peak_phase.describe()));
    if !e.off_peak.components.is_empty() {
        let rows: Vec<String> = e.off_peak.components.iter().map(|c| format!("{} {}", esc(&c.name), human_bytes(c.bytes))).collect();
        out.push_str(&format!(
            "  {:<width$}  {:>11}  at {}, with {}\n",
            "(other)",
            human_bytes(e.off_peak.total_bytes),
            e.off_peak.phase.describe(),
            rows.join(", ")
        ));
    }
    out.push_str(&format!("  {:<width$}  {:>11}  on the card, {}\n", "band", human_range(e.low_bytes, e.high_bytes), esc(&e.band.describe())));
    out.push_str(&format!(
        "  {:<width$}  {:>11}  ({} × safety margin {})\n",
        "usable",
        human_bytes(e.usable_bytes),
        human_bytes(e.capacity_bytes),
        e.safety_margin
    ));
    out.push_str(&format!(
        "  fits: {}",
        match (e.fits, e.activations_modelled, e.solved) {
            (false, ..) if e.verdict == crate::estimate::Verdict::DoesNotFit => "NO".to_owned(),
            (false, ..) => "MAYBE (the band straddles usable memory)".to_owned(),
            (true, true, Some(SolvedInput { input: Unstated::SequenceLength, value })) =>
                format!("only sequences up to {} tokens", crate::model::thousands(value)),
            (true, true, Some(SolvedInput { value, .. })) => format!("from {}", gpus_text(value)),
            (true, true, None) => "yes".to_owned(),
            (true, false, _) => "unknown (the rest fits; the activations are not modelled)".to_owned(),
        }
    ));
    match e.max_micro_batch {
        Some(m) => out.push_str(&format!("; largest micro batch that may fit: {m}")),
        None => out.push_str("; largest micro batch that may fit: unknown or none"),
    }
    match p.max_with_headroom {
        Some(m) => out.push_str(&format!("; that surely fits (the band's high end): {m}\n")),
        None => out.push('\n'),
    }
    if let (Some(micro), Some(accumulation)) = (p.micro_batch, p.accumulation) {
        let why = p.why_smaller.as_ref().map(|w| format!(" ({})", esc(w))).unwrap_or_default();
        out.push_str(&format!("  plan: micro batch {micro} × accumulation {accumulation}{why}\n"));
    } else if let Some(reason) = &p.reason {
        out.push_str(&format!("  plan: none ({})\n", esc(reason)));
    }
    if let Some(c) = &e.calibration {
        out.push_str(&format!(
            "  calibrated on {} measured peak(s): fixed {}, per sample {}; formula error {}, residual {}\n",
            c.points,
            human_bytes(c.fixed_bytes),
            human_bytes(c.per_sample_bytes),
            human_bytes(c.formula_error_bytes),
            human_bytes(c.residual_bytes)
        ));
    }
    for note in &e.notes {
        out.push_str(&format!("  note: {}\n", esc(note)));
    }
    out
}

pub(crate) fn run_plan(args: &PlanArgs) -> Result<ExitCode, FatalError> {
    if args.apply {
        super::refuse_set_when_writing(&args.config, "plan --apply")?;
    }
    let settings = super::settings_for(std::slice::from_ref(&args.config_file), &mut args.config.overrides())?;
    let views = views(&args.config_file, &settings, args.stage.as_deref())?;
    let mut rows: Vec<PlanRow> = Vec::new();
    for view in &views {
        for gpu in targets(view, &settings, args.all_gpus)? {
            match MemoryModel::build(view, &settings, Some(&gpu)) {
                Ok(model) => rows.push(plan::plan(&model, view, &gpu, settings.safety_margin())),
                Err(reason) => return Err(FatalError::usage(format!("memory cannot be estimated: {}", reason.0), None)),
            }
        }
    }
    let output = match args.output_format {
        OutputFormat::Json => crate::render::json::plans(&rows),
        _ => plan_table(&rows),
    };
    // A stage-scoped --apply prints only its launch line.
    if !(args.apply && args.stage.is_some()) {
        super::print(&output);
    }
    let fits = rows.iter().all(|r| r.fits);
    if args.apply && args.stage.is_some() {
        return apply_stage(&settings, &views[0], &rows[0]);
    }
    if args.apply {
        if settings.gpus.len() != 1 {
            return Err(FatalError::usage("--apply needs exactly one --gpu target", None));
        }
        if !fits {
            eprintln!("Nothing written: not every stage fits {} with the effective batch kept.", crate::render::escape_controls(&settings.gpus[0].id));
            return Ok(ExitCode::from(1));
        }
        let written = apply_plan(&settings, &args.config_file, &views, &rows)?;
        eprintln!("Wrote {written} file{} for {}.", if written == 1 { "" } else { "s" }, crate::render::escape_controls(&settings.gpus[0].id));
    }
    Ok(if fits { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// Before a curriculum stage starts: make this stage fit this GPU, touching only
/// its stage file, and print one line a launch script can log. Exit 0: ready
/// (fixed, or nothing to fix); 1: cannot fit without lowering a resolution
/// (the options are listed); 2: error.
fn apply_stage(settings: &Settings, view: &ResolvedConfig, row: &PlanRow) -> Result<ExitCode, FatalError> {
    use crate::diagnostic::Applicability;
    use crate::rules::fixes::set_roles;
    use crate::schema::Role;
    let gpu = settings.gpus.first().ok_or_else(|| FatalError::usage("--apply needs one --gpu target (or --gpu auto)", None))?;
    let stage = crate::render::escape_controls(view.stage.as_deref().unwrap_or_default()).into_owned();
    let model = MemoryModel::build(view, settings, Some(gpu)).map_err(|e| FatalError::usage(format!("memory cannot be estimated: {}", e.0), None))?;
    let current_micro = view.batch.micro();
    let current = current_micro.map(|m| estimate::estimate(&model, view, gpu, settings.safety_margin(), m));
    let target = view.batch.target.or(view.batch.effective_batch);
    let keeps_target = target.is_some() && view.batch.effective_batch == target;
    let line = |micro: Option<u64>, accumulation: Option<u64>, peak: Option<f64>, usable: f64, changed: &str| {
        format!(
            "stage={stage} gpu={} micro_batch={} accumulation={} effective_batch={} peak={} usable={} changed={changed}\n",
            crate::render::escape_controls(&gpu.id),
            micro.map_or("?".into(), |m| m.to_string()),
            accumulation.map_or("?".into(), |a| a.to_string()),
            target.map_or("?".into(), |t| t.to_string()),
            peak.map_or("?".into(), |p| human_bytes(p).replace(' ', "")),
            human_bytes(usable).replace(' ', ""),
        )
    };
    if let Some(current) = current.as_ref().filter(|c| c.fits && keeps_target) {
        super::print(&line(current_micro, view.batch.accumulation_steps(), Some(current.total_bytes), current.usable_bytes, "no"));
        return Ok(ExitCode::SUCCESS);
    }
    let (Some(micro), Some(accumulation)) = (row.micro_batch, row.accumulation) else {
        let resorts: Vec<String> =
            model.dependencies().into_iter().filter(|n| crate::rules::resolution::resolution_reduced::direction(settings, n).is_some()).collect();
        eprintln!(
            "trainlint: stage `{stage}` cannot fit {} with the effective batch kept ({}); last resorts, which hurt quality: {}",
            crate::render::escape_controls(&gpu.id),
            crate::render::escape_controls(row.reason.as_deref().unwrap_or_default()),
            if resorts.is_empty() {
                "activation checkpointing, 8-bit optimizer states, sharding, a larger GPU".to_owned()
            } else {
                crate::render::escape_controls(&resorts.join(", ")).into_owned()
            }
        );
        super::print(&line(None, None, None, row.usable_bytes, "no"));
        return Ok(ExitCode::from(1));
    };
    let fix = set_roles(view, &[(Role::MicroBatch, micro), (Role::Accumulation, accumulation)], Applicability::Unsafe, "plan".into());
    if fix.edits.is_empty() {
        return Err(FatalError::usage(format!("cannot write the plan into stage `{stage}` in place: {}", fix.message), None));
    }
    let source = std::sync::Arc::clone(&fix.edits[0].file);
    let fixed = crate::apply::splice(source.text(), &fix.edits);
    crate::apply::check_reparses(source.path(), source.display(), &fixed)?;
    let change =
        crate::apply::Change { path: crate::apply::canonical(source.path()), display: source.display().to_owned(), original: source.text().to_owned(), fixed };
    crate::apply::write_all(std::slice::from_ref(&change))?;
    super::print(&line(Some(micro), Some(accumulation), row.peak_bytes, row.usable_bytes, "yes"));
    Ok(ExitCode::SUCCESS)
}

/// Writes the plan: the base config gets the plan of the base; a stage whose
/// plan differs (or that sets the values itself) gets its own in its stage file.
fn apply_plan(settings: &Settings, config: &PathBuf, views: &[ResolvedConfig], rows: &[PlanRow]) -> Result<usize, FatalError> {
    use crate::diagnostic::Applicability;
    use crate::rules::fixes::set_roles;
    use crate::schema::Role;
    let excludes = Excludes::new(&settings.root, None, &[])?;
    let files = discover::discover(std::slice::from_ref(config), &excludes, false)?;
    let file = files.first().ok_or_else(|| FatalError::usage("no config", None))?;
    let base = linter::lint_file(file, settings)?.resolved.ok_or_else(|| FatalError::usage("the config cannot be read", None))?;
    let gpu = &settings.gpus[0];
    let model = MemoryModel::build(&base, settings, Some(gpu)).map_err(|e| FatalError::usage(format!("memory cannot be estimated: {}", e.0), None))?;
    let base_row = plan::plan(&model, &base, gpu, settings.safety_margin());
    let (Some(base_micro), Some(base_accumulation)) = (base_row.micro_batch, base_row.accumulation) else {
        return Err(FatalError::usage(format!("no plan for the base config: {}", base_row.reason.unwrap_or_default()), None));
    };
    let mut fixes = vec![set_roles(&base, &[(Role::MicroBatch, base_micro), (Role::Accumulation, base_accumulation)], Applicability::Unsafe, "plan".into())];
    for (view, row) in views.iter().zip(rows).filter(|(v, _)| v.stage.is_some()) {
        let (Some(micro), Some(accumulation)) = (row.micro_batch, row.accumulation) else { continue };
        let stage_file = view.files.last();
        let sets_its_own = [Role::MicroBatch, Role::Accumulation]
            .iter()
            .any(|r| view.role(*r).is_some_and(|v| stage_file.is_some_and(|f| std::sync::Arc::ptr_eq(&v.file, f))));
        if (micro, accumulation) != (base_micro, base_accumulation) || sets_its_own {
            fixes.push(set_roles(view, &[(Role::MicroBatch, micro), (Role::Accumulation, accumulation)], Applicability::Unsafe, "plan".into()));
        }
    }
    if let Some(manual) = fixes.iter().find(|f| f.edits.is_empty() && f.applicability == Applicability::DisplayOnly) {
        return Err(FatalError::usage(format!("cannot apply the plan in place: {}", manual.message), None));
    }
    let mut per_file: std::collections::BTreeMap<PathBuf, Vec<crate::diagnostic::Edit>> = std::collections::BTreeMap::new();
    for edit in fixes.into_iter().flat_map(|f| f.edits) {
        per_file.entry(crate::apply::canonical(edit.file.path())).or_default().push(edit);
    }
    let mut changes = Vec::new();
    for (path, edits) in per_file {
        let source = std::sync::Arc::clone(&edits[0].file);
        let fixed = crate::apply::splice(source.text(), &edits);
        crate::apply::check_reparses(&path, source.display(), &fixed)?;
        changes.push(crate::apply::Change { path, display: source.display().to_owned(), original: source.text().to_owned(), fixed });
    }
    Ok(crate::apply::write_all(&changes)?.len())
}

fn plan_table(rows: &[PlanRow]) -> String {
    let esc = |text: &str| crate::render::escape_controls(text).into_owned();
    // PEAK is the estimate; UP TO the band's high end on the card, which the plan keeps within USABLE.
    let mut out = format!(
        "{:<16} {:<10} {:>6} {:>6} {:>9} {:>11} {:>11} {:>11} {:>7}\n",
        "GPU", "STAGE", "MICRO", "ACCUM", "EFFECTIVE", "PEAK", "UP TO", "USABLE", "OF GPU"
    );
    for r in rows {
        let dash = || "–".to_owned();
        out.push_str(&format!(
            "{:<16} {:<10} {:>6} {:>6} {:>9} {:>11} {:>11} {:>11} {:>7}\n",
            esc(&r.gpu),
            r.stage.as_deref().map_or_else(dash, esc),
            r.micro_batch.map_or_else(dash, |m| m.to_string()),
            r.accumulation.map_or_else(dash, |a| a.to_string()),
            r.effective_batch.map_or_else(dash, |e| e.to_string()),
            r.peak_bytes.map_or_else(dash, human_bytes),
            r.high_bytes.map_or_else(dash, human_bytes),
            human_bytes(r.usable_bytes),
            r.high_bytes.map_or_else(dash, |h| format!("{:.0}%", h / r.capacity_bytes * 100.0)),
        ));
        if let Some(reason) = &r.reason {
            out.push_str(&format!("  {}: {}\n", esc(&r.gpu), esc(reason)));
        }
        if let Some(why) = &r.why_smaller {
            let stage = r.stage.as_ref().map(|s| format!(" · {}", esc(s))).unwrap_or_default();
            out.push_str(&format!("  {}{stage}: {}\n", esc(&r.gpu), esc(why)));
        }
    }
    out
}
