use crate::cli::CheckArgs;
use crate::diagnostic::{Diagnostic, Severity};
use crate::error::FatalError;
use crate::linter::{self, FileReport};
use crate::load::git::Revision;
use crate::resolve::ResolvedConfig;
use crate::load::discover::{self, Excludes};
use crate::render::{self, OutputFormat, Summary, full::Style};
use crate::settings::{Overrides, Settings, nearest_manifest};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub fn run(args: &CheckArgs) -> Result<ExitCode, FatalError> {
    let paths = if args.paths.is_empty() { vec![PathBuf::from(".")] } else { args.paths.clone() };
    let overrides = Overrides {
        select: args.select.clone(),
        extend_select: args.extend_select.clone(),
        ignore: args.ignore.clone(),
        ..args.config.overrides()
    };
    let (files, diagnostics) = collect(&paths, &overrides, args.baseline.as_deref(), args.force_exclude, args.config.config.is_some())?;
    let summary = Summary::new(files, &diagnostics);
    let output = match args.output_format {
        OutputFormat::Json => render::json::render(&diagnostics, &summary),
        OutputFormat::Concise => format!("{}{}\n", render::concise::render(&diagnostics), summary.line()),
        OutputFormat::Full => format!("{}{}\n", render::full::render(&diagnostics, Style::detect()), summary.line()),
    };
    super::print(&output);
    let failed = diagnostics.iter().any(|d| d.severity == Severity::Error);
    Ok(if failed && !args.exit_zero { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// Discovers the files under `paths` and returns how many there are and every
/// diagnostic, sorted: the whole of `check` but the rendering.
pub fn collect(paths: &[PathBuf], overrides: &Overrides, baseline: Option<&str>, force_exclude: bool, forced_manifest: bool) -> Result<(usize, Vec<Diagnostic>), FatalError> {
    // The manifest found from the first path decides what is walked (its excludes)...
    let settings = Settings::discover(paths, overrides)?;
    let excludes = Excludes::new(&settings.root, settings.manifest.exclude.as_deref(), &settings.manifest.extend_exclude)?;
    let files = discover::discover(paths, &excludes, force_exclude)?;
    let revision = match baseline {
        Some(name) => {
            let first = paths.first().cloned().unwrap_or_else(|| PathBuf::from("."));
            let dir = if first.is_dir() { first } else { first.parent().map(Path::to_path_buf).unwrap_or_default() };
            Some(Revision::verify(name, if dir.as_os_str().is_empty() { Path::new(".") } else { &dir })?)
        }
        None => None,
    };
    // ...and each file is checked with the settings of its nearest manifest, as ruff does.
    let mut diagnostics = Vec::new();
    for (manifest, group) in group_by_manifest(&files, &settings, forced_manifest) {
        let group_settings = if manifest == settings.manifest_path { settings.clone() } else { Settings::from_manifest(manifest.as_deref(), overrides)? };
        diagnostics.extend(check_group(&group, &group_settings, revision.as_ref())?);
    }
    linter::dedupe(&mut diagnostics);
    diagnostics.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    Ok((files.len(), diagnostics))
}

/// Files grouped by the manifest that governs them (all under `--config` when given).
fn group_by_manifest(files: &[discover::SourcePath], settings: &Settings, forced: bool) -> Vec<(Option<PathBuf>, Vec<discover::SourcePath>)> {
    let mut groups: Vec<(Option<PathBuf>, Vec<discover::SourcePath>)> = Vec::new();
    let mut by_dir: std::collections::HashMap<PathBuf, Option<PathBuf>> = std::collections::HashMap::new();
    for file in files {
        let manifest = if forced {
            settings.manifest_path.clone()
        } else {
            let dir = file.path.parent().map(Path::to_path_buf).unwrap_or_default();
            by_dir.entry(dir.clone()).or_insert_with(|| nearest_manifest(if dir.as_os_str().is_empty() { Path::new(".") } else { &dir })).clone()
        };
        let manifest = manifest.map(|m| std::path::absolute(&m).unwrap_or(m));
        match groups.iter_mut().find(|(m, _)| *m == manifest) {
            Some((_, group)) => group.push(file.clone()),
            None => groups.push((manifest, vec![file.clone()])),
        }
    }
    groups
}

/// The whole pipeline for files that share settings: per file, curriculum, baseline.
fn check_group(files: &[discover::SourcePath], settings: &Settings, revision: Option<&Revision>) -> Result<Vec<Diagnostic>, FatalError> {
    let reports = check_files(files, settings)?;
    let mut diagnostics: Vec<Diagnostic> = reports.iter().flat_map(|r| r.diagnostics.iter().cloned()).collect();
    let curriculum = if touches_curriculum(files, settings) {
        let (curriculum, found) = linter::lint_curriculum(settings)?;
        diagnostics.extend(found);
        curriculum
    } else {
        None
    };
    if let Some(revision) = revision {
        let configs: Vec<&ResolvedConfig> = reports.iter().filter_map(|r| r.resolved.as_ref()).collect();
        diagnostics.extend(linter::lint_baseline(settings, revision, &configs, curriculum.as_ref())?);
    }
    Ok(diagnostics)
}

/// Whether the run checks any file of the manifest's curriculum.
fn touches_curriculum(files: &[discover::SourcePath], settings: &Settings) -> bool {
    let Some(curriculum) = &settings.manifest.curriculum else { return false };
    let mut members = settings.stage_files.clone();
    members.extend(std::fs::canonicalize(settings.root.join(&curriculum.base)));
    files.iter().any(|f| std::fs::canonicalize(&f.path).is_ok_and(|p| members.contains(&p)))
}

/// Lints files on all cores, keeping the input order.
pub fn check_files(files: &[discover::SourcePath], settings: &Settings) -> Result<Vec<FileReport>, FatalError> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(files.len().max(1));
    let chunk = files.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = files.chunks(chunk).map(|part| scope.spawn(move || part.iter().map(|f| linter::lint_file(f, settings)).collect::<Vec<_>>())).collect();
        handles.into_iter().flat_map(|h| h.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))).collect()
    })
}
