use crate::cli::CheckArgs;
use crate::diagnostic::{Diagnostic, Severity};
use crate::error::FatalError;
use crate::linter::{self, FileReport};
use crate::load::discover::{self, Excludes};
use crate::render::{self, OutputFormat, Summary, full::Style};
use crate::settings::{Overrides, Settings};
use std::path::PathBuf;
use std::process::ExitCode;

pub fn run(args: &CheckArgs) -> Result<ExitCode, FatalError> {
    let paths = if args.paths.is_empty() { vec![PathBuf::from(".")] } else { args.paths.clone() };
    let overrides = Overrides {
        select: args.select.clone(),
        extend_select: args.extend_select.clone(),
        ignore: args.ignore.clone(),
        ..args.config.overrides()
    };
    let settings = Settings::discover(&paths, &overrides)?;
    let excludes = Excludes::new(&settings.root, settings.manifest.exclude.as_deref(), &settings.manifest.extend_exclude)?;
    let files = discover::discover(&paths, &excludes, args.force_exclude)?;
    let reports = check_files(&files, &settings)?;
    let diagnostics: Vec<Diagnostic> = reports.into_iter().flat_map(|r| r.diagnostics).collect();
    let summary = Summary::new(files.len(), &diagnostics);
    let output = match args.output_format {
        OutputFormat::Json => render::json::render(&diagnostics, &summary),
        OutputFormat::Concise => format!("{}{}\n", render::concise::render(&diagnostics), summary.line()),
        OutputFormat::Full => format!("{}{}\n", render::full::render(&diagnostics, Style::detect()), summary.line()),
    };
    super::print(&output);
    let failed = diagnostics.iter().any(|d| d.severity == Severity::Error);
    Ok(if failed && !args.exit_zero { ExitCode::from(1) } else { ExitCode::SUCCESS })
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
