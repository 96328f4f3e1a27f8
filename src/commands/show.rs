use super::ConfigArgs;
use crate::diagnostic::Severity;
use crate::error::FatalError;
use crate::linter;
use crate::load::discover::{self, Excludes};
use crate::render::{self, OutputFormat};
use crate::resolve::ResolvedConfig;
use crate::resolve::batch::WorldSource;
use crate::resolve::model::ModelLookup;
use crate::settings::Settings;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The config to resolve (for `--stage`, the curriculum's base config).
    pub config_file: PathBuf,
    /// Show this curriculum stage (its name, or its file stem): the base with the stage merged in.
    #[arg(long, value_name = "NAME")]
    pub stage: Option<String>,
    #[arg(long, default_value = "full", value_parser = crate::render::formats(OutputFormat::TABLE))]
    pub output_format: OutputFormat,
    #[command(flatten)]
    pub config: ConfigArgs,
}

pub(crate) fn run(args: &ShowArgs) -> Result<ExitCode, FatalError> {
    let paths = vec![args.config_file.clone()];
    let settings = super::settings_for(&paths, &mut args.config.overrides())?;
    let excludes = Excludes::new(&settings.root, None, &[])?;
    let files = discover::discover(&paths, &excludes, false)?;
    let Some(file) = files.first() else {
        return Err(FatalError::usage(format!("`{}` is not a config file", args.config_file.display()), None));
    };
    let mut report = linter::lint_file(file, &settings)?;
    if let Some(name) = &args.stage {
        report.resolved = Some(stage_view(&settings, name)?);
    }
    let Some(resolved) = &report.resolved else {
        // Nothing to show: say why, as `check` would.
        let output = match args.output_format {
            OutputFormat::Json => render::json::render_unresolved_show(&report.diagnostics, &render::Summary::new(1, &report.diagnostics)),
            OutputFormat::Concise => render::concise::render(&report.diagnostics),
            _ => render::full::render(&report.diagnostics, super::style()),
        };
        super::print(&output);
        return Ok(ExitCode::from(1));
    };
    let output = match args.output_format {
        OutputFormat::Json => render::json::show(resolved),
        _ => human(resolved, &settings.sets),
    };
    super::print(&output);
    let failed = report.diagnostics.iter().any(|d| d.severity == Severity::Error);
    if failed && args.output_format != OutputFormat::Json {
        super::print(&format!(
            "\n{} finding(s) in this file; run `trainlint check {}` for details.\n",
            report.diagnostics.len(),
            render::escape_controls(&file.display)
        ));
    }
    Ok(ExitCode::SUCCESS)
}

/// The resolved view of one curriculum stage, by name or file stem.
fn stage_view(settings: &Settings, name: &str) -> Result<ResolvedConfig, FatalError> {
    let Some(spec) = &settings.manifest.curriculum else {
        return Err(FatalError::usage(
            "--stage needs a manifest with a [curriculum] table",
            Some("name the base config and its stage files under [curriculum] in trainlint.toml".to_owned()),
        ));
    };
    let Some(curriculum) = crate::resolve::curriculum::resolve(spec, settings)? else {
        return Err(FatalError::usage("the curriculum's base config cannot be read", Some("`trainlint check` on it says why".to_owned())));
    };
    let names: Vec<String> = curriculum.stages.iter().map(|s| s.name.clone()).collect();
    curriculum
        .stages
        .into_iter()
        .find(|s| s.name == name || s.document.source.path().file_stem().is_some_and(|stem| stem == name))
        .map(|s| s.resolved)
        .ok_or_else(|| FatalError::usage(format!("no curriculum stage `{name}`"), Some(format!("the stages are: {}", names.join(", ")))))
}

fn human(resolved: &ResolvedConfig, sets: &[(String, String)]) -> String {
    let mut out = String::new();
    match &resolved.stage {
        Some(stage) => push_line(&mut out, &format!("{} (stage `{stage}`)\n", resolved.source().display())),
        None => push_line(&mut out, &format!("{}\n", resolved.source().display())),
    }
    push_line(&mut out, &format!("  dialect: {} ({})\n", resolved.detection.dialect.name(), resolved.detection.reason));
    if resolved.roles.is_empty() {
        push_line(&mut out, "  roles: none resolved\n");
    } else {
        push_line(&mut out, "  roles:\n");
        let width = resolved.roles.keys().map(|r| r.name().len()).max().unwrap_or(0);
        for (role, value) in &resolved.roles {
            let (line, _) = value.file.line_col(value.span.start);
            let shown = match &value.value {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            if value.from_override
                && let Some((key, set)) = sets.iter().find(|(key, _)| *key == value.path)
            {
                push_line(&mut out, &format!("    {:width$}  {:<14} (--set {key}={set}, in no file)\n", role.name(), shown));
            } else if value.from_override
                && let Some((_, at)) = resolved.launch_overrides.iter().find(|(path, _)| *path == value.path)
            {
                push_line(&mut out, &format!("    {:width$}  {:<14} {} (the launch line's override)\n", role.name(), shown, at));
            } else if value.from_override {
                push_line(&mut out, &format!("    {:width$}  {:<14} (the manifest's [hydra] overrides)\n", role.name(), shown));
            } else if let Some(facts) = &value.from_model {
                let shown = value.as_u64().map(crate::model::thousands).unwrap_or(shown);
                push_line(&mut out, &format!("    {:width$}  {shown} from {}\n", role.name(), facts.described()));
            } else if let Some(said) = value.path.strip_prefix(crate::resolve::FROM_COMMENT).and_then(|p| p.strip_suffix(')')) {
                // A role a comment states (`Framework::comment_roles`): say so, not just the line.
                push_line(&mut out, &format!("    {:width$}  {:<14} {}:{line} (a comment: {said})\n", role.name(), shown, value.file.display()));
            } else {
                push_line(&mut out, &format!("    {:width$}  {:<14} {}:{line}\n", role.name(), shown, value.file.display()));
            }
        }
    }
    match &resolved.model {
        Some(ModelLookup::Found(facts)) => {
            push_line(&mut out, &format!("  model: {} is {} (source: {})\n", facts.name, facts.described(), facts.source()));
        }
        Some(ModelLookup::Unknown { name, why }) => {
            let why = why.as_deref().map(|w| format!(" ({w})")).unwrap_or_default();
            push_line(&mut out, &format!("  model: `{name}` is not in the model catalog and no local config.json was found{why}\n"));
        }
        Some(ModelLookup::Unsupported { name, known }) => {
            push_line(
                &mut out,
                &format!(
                    "  model: `{name}` is {}, a known {} architecture not supported by the memory model ({}); no local config.json was found\n",
                    known.id, known.family, known.reason
                ),
            );
        }
        None => {}
    }
    let b = &resolved.batch;
    match b.effective_batch {
        Some(effective) => {
            let set = resolved.role(crate::schema::Role::Devices).filter(|v| v.from_override).and_then(|v| sets.iter().find(|(key, _)| *key == v.path));
            let world = match (b.world_source, set) {
                (WorldSource::Config, Some((key, value))) => format!("world size from --set {key}={value}"),
                (WorldSource::Config, None) => "world size from the config".to_owned(),
                (WorldSource::Launcher, _) => format!("world size {} from {}", b.world_size.unwrap_or(0), b.launcher.as_deref().unwrap_or("a launch script")),
                _ => "world size from --world-size / the manifest".to_owned(),
            };
            let split = resolved.detection.dialect.batch().global_split_over_world;
            if split {
                // The global batch split over the world, each device's share cut into micro batches (the last may be smaller).
                let w = b.world_size.unwrap_or(1).max(1);
                push_line(
                    &mut out,
                    &format!(
                        "  effective batch: {effective} = global batch split over a data-parallel world of {w} ({} per device, {} micro batches of at most {}) ({world})\n",
                        effective / w,
                        b.accumulation_steps().unwrap_or(0),
                        b.micro().unwrap_or(0).min(effective / w)
                    ),
                );
            } else {
                push_line(
                    &mut out,
                    &format!(
                        "  effective batch: {effective} = {} micro batch × {} accumulation × {} data-parallel world ({world})\n",
                        b.micro().unwrap_or(0),
                        b.accumulation_steps().unwrap_or(0),
                        b.world_size.unwrap_or(0)
                    ),
                );
            }
        }
        None => {
            // `devices: auto` is the launcher's world, which `--world-size` states (below).
            let batch_auto: Vec<&str> = b.auto.iter().filter(|r| **r != crate::schema::Role::Devices).map(|r| r.name()).collect();
            let why = if !batch_auto.is_empty() {
                let when = if resolved.detection.dialect.batch().global_split_over_world {
                    "chosen at run time, lowered after each out-of-memory error"
                } else {
                    "filled in at launch"
                };
                format!("{} set to \"auto\" ({when})", batch_auto.join(", "))
            } else if let Some(problem) = &b.problem {
                format!(
                    "the batch values are inconsistent ({}); `trainlint check` explains",
                    match problem {
                        crate::resolve::batch::BatchProblem::Underspecified => "no batch size",
                        crate::resolve::batch::BatchProblem::Floors { .. } => "a derivation would floor",
                        crate::resolve::batch::BatchProblem::GlobalMismatch { .. } => "global batch ≠ micro × accumulation × world",
                        crate::resolve::batch::BatchProblem::NotPositive { .. } => "a batch value is not positive",
                        crate::resolve::batch::BatchProblem::Overflow { .. } => "a product does not fit in 64 bits",
                        crate::resolve::batch::BatchProblem::FloorsToZero { .. } => "the accumulation floors to 0",
                    }
                )
            } else if let Some(issue) = unresolved_batch(resolved) {
                let what = match &issue.problem {
                    crate::resolve::interpolate::Unresolved::Cycle(paths) => format!("interpolation cycle: {}", paths.join(" → ")),
                    crate::resolve::interpolate::Unresolved::MissingKey(key) => format!("it interpolates `{key}`, which does not exist"),
                    crate::resolve::interpolate::Unresolved::Syntax(why) => why.clone(),
                    _ => "its value is given only at launch".to_owned(),
                };
                format!("`{}` does not resolve ({what}); `trainlint check` explains", issue.path)
            } else if let Some((role, value)) = [crate::schema::Role::MicroBatch, crate::schema::Role::Accumulation, crate::schema::Role::GlobalBatch]
                .into_iter()
                .find_map(|r| resolved.role(r).filter(|v| v.as_u64().is_none() && v.value.is_number()).map(|v| (r, v)))
            {
                // A fraction (MaxText's `per_device_batch_size: 0.25`: one sequence per four devices).
                format!("the {} `{}` = {} is not a whole number", role.name().replace('_', " "), value.path, value.value)
            } else if b.micro_batch.is_none() && b.global_batch.is_none() {
                "the config states no batch size".to_owned()
            } else if b.world_size.is_none() {
                let from = match resolved.detection.dialect.world_size() {
                    crate::dialects::WorldSize::Launcher => "the launcher sets it",
                    crate::dialects::WorldSize::Devices => "the config's devices and nodes do not give it",
                };
                let holds = match &b.worlds {
                    Some(crate::resolve::batch::Worlds::Every) => "; the batch values hold for every world size".to_owned(),
                    Some(worlds) => format!("; {} holds for {}", b.equation(resolved.detection.dialect.batch()), worlds.describe()),
                    None => String::new(),
                };
                format!("data-parallel world size not known ({from}){holds}; `--world-size N` supplies it")
            } else {
                "a batch value is not a whole number".to_owned()
            };
            push_line(&mut out, &format!("  effective batch: unknown: {why}\n"));
        }
    }
    let how = if resolved.detection.dialect.batch().accumulation_floors && b.per_node {
        format!("by floor division, ⌊⌊global ÷ devices of one node⌋ ÷ micro⌋, as the project's {} derives it", resolved.detection.dialect.title())
    } else if resolved.detection.dialect.batch().accumulation_floors {
        format!("by floor division, ⌊⌊global ÷ world⌋ ÷ micro⌋, as {} derives it", resolved.detection.dialect.title())
    } else if resolved.detection.dialect.batch().global_split_over_world {
        "⌈per-device batch ÷ micro batch⌉, the per-device batch being global ÷ world".to_owned()
    } else if resolved.detection.dialect.batch().indivisible.is_some() {
        // A framework that always derives the accumulation says how (`BatchSemantics::indivisible`).
        "from the other batch values, global batch ÷ (micro batch × data-parallel world)".to_owned()
    } else {
        "from the other batch values, as DeepSpeed derives them".to_owned()
    };
    for (role, value) in &b.derived {
        push_line(&mut out, &format!("  derived: {} = {value} ({how})\n", role.name()));
    }
    if let Some(floored) = &b.floored {
        push_line(&mut out, &format!("  floored: the global batch {} is not trained; {} is (`trainlint check` explains)\n", floored.global, floored.effective));
    }
    if let Some(note) = &b.semantics_note {
        push_line(&mut out, &format!("  batch semantics: {note}\n"));
    }
    if let Some(target) = b.target {
        push_line(&mut out, &format!("  target effective batch: {target}\n"));
    }
    out
}

/// One line of `show`'s table: file names, model names and values come from configs, so
/// their control characters (ESC, a newline that would forge a `::error` line in CI) are
/// escaped (`render::escape_controls`); the line's own `\n` is kept.
fn push_line(out: &mut String, line: &str) {
    let body = line.strip_suffix('\n').unwrap_or(line);
    out.push_str(&render::escape_controls(body));
    out.push('\n');
}

/// The interpolation problem of a batch value (micro batch, accumulation,
/// global batch), when one of them does not resolve.
fn unresolved_batch(resolved: &ResolvedConfig) -> Option<&crate::resolve::interpolate::Issue> {
    use crate::schema::Role;
    let paths: Vec<&str> =
        [Role::MicroBatch, Role::Accumulation, Role::GlobalBatch].iter().filter_map(|role| resolved.roles.get(role)).map(|v| v.path.as_str()).collect();
    resolved.unresolved.iter().find(|issue| paths.contains(&issue.path.as_str()))
}
