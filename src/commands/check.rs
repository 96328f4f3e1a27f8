use super::ConfigArgs;
use crate::apply::{self, Change};
use crate::diagnostic::{Diagnostic, FoldedInfo, Severity};
use crate::error::FatalError;
use crate::linter::{self, FileReport, FileStatus, Skip};
use crate::load::Overlay;
use crate::load::discover::{self, Excludes};
use crate::load::git::Revision;
use crate::render::{self, OutputFormat, Summary};
use crate::resolve::ResolvedConfig;
use crate::settings::{Overrides, Settings, nearest_manifest};
use clap::Args;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Files or folders to check (default: the current folder); `-` reads one config from stdin (see `--stdin-filename`).
    pub paths: Vec<PathBuf>,
    #[arg(long, default_value = "full", value_parser = crate::render::formats(OutputFormat::CHECK))]
    pub output_format: OutputFormat,
    #[command(flatten)]
    pub config: ConfigArgs,
    /// Only these rule codes or prefixes (comma-separated); replaces the manifest's `select`.
    #[arg(long, value_delimiter = ',', value_name = "CODES")]
    pub select: Option<Vec<String>>,
    /// Also these rule codes or prefixes.
    #[arg(long, value_delimiter = ',', value_name = "CODES")]
    pub extend_select: Vec<String>,
    /// Not these rule codes or prefixes.
    #[arg(long, value_delimiter = ',', value_name = "CODES")]
    pub ignore: Vec<String>,
    /// Exit 0 even when errors are found (exit codes: 0 nothing failing, 1 errors found, 2 a fatal or usage error).
    #[arg(long)]
    pub exit_zero: bool,
    /// Glob patterns (comma-separated, relative to the project root) of files and folders
    /// never walked; replaces the manifest's `exclude` and the default list.
    #[arg(long, value_delimiter = ',', value_name = "PATTERNS")]
    pub exclude: Option<Vec<String>>,
    /// Glob patterns (comma-separated) excluded on top of `exclude` (the manifest's `extend-exclude` still applies).
    #[arg(long, value_delimiter = ',', value_name = "PATTERNS")]
    pub extend_exclude: Vec<String>,
    /// Apply the excludes to files named on the command line too (for pre-commit).
    #[arg(long)]
    pub force_exclude: bool,
    /// Codes ignored in the files a glob matches, `GLOB:CODE[,CODE...]` (repeatable;
    /// `a.yaml:SCH004,b.json:SCH003` as in ruff works too); replaces the manifest's `per-file-ignores`.
    #[arg(long, value_name = "GLOB:CODES", value_parser = parse_per_file_ignores)]
    pub per_file_ignores: Option<Vec<PerFileIgnores>>,
    /// As `--per-file-ignores`, on top of the manifest's `per-file-ignores`.
    #[arg(long, value_name = "GLOB:CODES", value_parser = parse_per_file_ignores)]
    pub extend_per_file_ignores: Vec<PerFileIgnores>,
    /// Write the report in `--output-format` to this file, and a human report to stdout.
    #[arg(long, value_name = "FILE")]
    pub output_file: Option<PathBuf>,
    /// Compare with the same files at this git revision (read with `git show`, nothing checked out).
    #[arg(long, value_name = "REV")]
    pub baseline: Option<String>,
    /// Only this curriculum stage: its findings and fixes (the base and other stage files are left alone).
    #[arg(long, value_name = "NAME")]
    pub stage: Option<String>,
    /// Apply safe fixes (files are rewritten in place; comments and formatting kept).
    #[arg(long)]
    pub fix: bool,
    /// Also apply unsafe fixes (ones that change training, such as a new micro batch), with --fix or --diff.
    #[arg(long)]
    pub unsafe_fixes: bool,
    /// Print the changes fixes would make as a unified diff; write nothing; exit 1 when there are changes.
    #[arg(long, conflicts_with_all = ["fix", "fix_only"])]
    pub diff: bool,
    /// Apply fixes and report nothing else.
    #[arg(long)]
    pub fix_only: bool,
    /// Skip gitignored (`.gitignore`, `.ignore`, `.git/info/exclude`) and hidden files when walking folders (the default).
    #[arg(long, overrides_with = "no_respect_gitignore")]
    pub respect_gitignore: bool,
    /// Walk gitignored and hidden files too (the manifest's `exclude` still applies).
    #[arg(long, overrides_with = "respect_gitignore")]
    pub no_respect_gitignore: bool,
    /// List every file found, with what the run does with it (`checked as <dialect>`, `skipped: <reason>`), and exit 0.
    #[arg(long, conflicts_with_all = ["fix", "fix_only", "diff", "statistics"])]
    pub show_files: bool,
    /// Print one line per rule code: how many findings, whether a fix is available, the rule's name.
    #[arg(long)]
    pub statistics: bool,
    /// List every info finding in the `full` and `concise` formats (default: one line per code with its count).
    #[arg(long)]
    pub show_infos: bool,
    /// Not these rule codes or prefixes either (added to `--ignore` and the manifest's `ignore`).
    #[arg(long, value_delimiter = ',', value_name = "CODES")]
    pub extend_ignore: Vec<String>,
    /// Exit 1 when a warning is found, not only an error (`--exit-zero` still wins).
    #[arg(long)]
    pub exit_non_zero_on_warning: bool,
    /// With `-` as the path: the file the text read from stdin stands for (its
    /// name and folder decide the dialect, the manifest and the messages; the
    /// file need not exist). `--fix` then prints the fixed text to stdout.
    #[arg(long, value_name = "PATH")]
    pub stdin_filename: Option<PathBuf>,
    /// Write a `# trainlint: ignore[CODE]` comment on each line with findings (YAML files only;
    /// every other byte kept), as ruff's `--add-noqa`; then exit 0.
    #[arg(long, conflicts_with_all = ["fix", "fix_only", "diff", "show_files", "statistics", "baseline", "show_settings"])]
    pub add_noqa: bool,
    /// Print the settings the first path is checked with (manifest, rules, GPU targets, world size, excludes) and exit.
    #[arg(long, conflicts_with_all = ["fix", "fix_only", "diff", "show_files", "statistics"])]
    pub show_settings: bool,
}

/// The pairs of one `--per-file-ignores` value: (glob, codes).
#[derive(Clone, Debug)]
pub struct PerFileIgnores(pub Vec<(String, Vec<String>)>);

/// `GLOB:CODE,CODE` and ruff's `GLOB:CODE,GLOB:CODE` alike: the value is split at
/// commas outside `{…}` (a glob's alternatives); an item with a `:` starts a pair
/// (the glob is what precedes its last `:`), an item without one adds a code to the pair before.
fn parse_per_file_ignores(text: &str) -> Result<PerFileIgnores, String> {
    let mut items = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    for (at, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                items.push(&text[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    items.push(&text[start..]);
    let mut pairs: Vec<(String, Vec<String>)> = Vec::new();
    for item in items.into_iter().map(str::trim).filter(|i| !i.is_empty()) {
        match item.rsplit_once(':') {
            Some((glob, code)) if !glob.trim().is_empty() && !code.trim().is_empty() => pairs.push((glob.trim().to_owned(), vec![code.trim().to_owned()])),
            Some(_) => return Err(format!("`{item}` is not GLOB:CODE (for example `deepspeed/*.json:SCH004`)")),
            None => match pairs.last_mut() {
                Some((_, codes)) => codes.push(item.to_owned()),
                None => return Err(format!("`{text}` is not GLOB:CODE[,CODE...] (for example `deepspeed/*.json:SCH004,SCH003`)")),
            },
        }
    }
    if pairs.is_empty() {
        return Err("expected GLOB:CODE[,CODE...] (for example `deepspeed/*.json:SCH004`)".to_owned());
    }
    Ok(PerFileIgnores(pairs))
}

/// One file found, as the report names it, and what the run did with it.
#[derive(Clone, Debug)]
pub struct FileEntry {
    /// Shared with the file's `SourceFile` (no copy per file).
    pub display: std::sync::Arc<str>,
    pub status: FileStatus,
}

pub(crate) fn run(args: &CheckArgs) -> Result<ExitCode, FatalError> {
    let started = std::time::Instant::now();
    let global = super::global();
    // `trainlint check -`: the text comes from stdin and is checked as if it were `--stdin-filename`.
    let stdin = read_stdin(args)?;
    let paths = match &stdin {
        Some((path, _)) => vec![path.clone()],
        None if args.paths.is_empty() => vec![PathBuf::from(".")],
        None => manifests_as_folders(&args.paths),
    };
    let mut overrides = Overrides {
        select: args.select.clone(),
        extend_select: args.extend_select.clone(),
        ignore: args.ignore.iter().chain(&args.extend_ignore).cloned().collect(),
        stage: args.stage.clone(),
        respect_gitignore: if args.no_respect_gitignore {
            Some(false)
        } else if args.respect_gitignore {
            Some(true)
        } else {
            None
        },
        show_infos: args.show_infos.then_some(true),
        exclude: args.exclude.clone(),
        extend_exclude: args.extend_exclude.clone(),
        per_file_ignores: args.per_file_ignores.as_ref().map(|all| all.iter().flat_map(|p| p.0.clone()).collect()),
        extend_per_file_ignores: args.extend_per_file_ignores.iter().flat_map(|p| p.0.clone()).collect(),
        // A plain check rendered in a human format folds its infos into counts (without
        // `show_infos`): their texts need not outlive the linting. Fixes, `--add-noqa` and the
        // machine formats use every finding whole.
        report_folds_infos: !(args.fix || args.diff || args.fix_only || args.add_noqa)
            && matches!(args.output_format, OutputFormat::Concise | OutputFormat::Full)
            && args.output_file.is_none(),
        ..args.config.overrides()
    };
    // `--gpu auto` is probed once here, and the notes printed once, not per fix pass.
    let settings = super::settings_for(&paths, &mut overrides)?;
    let sarif_root = render::sarif::source_root(&paths, &settings);
    if args.show_settings {
        super::print(&show_settings(&paths, &settings));
        return Ok(ExitCode::SUCCESS);
    }
    super::verbose(|| format!("manifest: {}", settings.manifest_path.as_ref().map_or_else(|| "none (defaults)".to_owned(), |p| p.display().to_string())));
    let show_infos = settings.show_infos;
    // `--config` or `--isolated`: one set of settings for every file, no manifest looked for.
    let forced = args.config.config.is_some() || args.config.isolated;
    let base: HashMap<PathBuf, String> = stdin.iter().map(|(path, text)| (overlay_key(path), text.clone())).collect();
    let collect = |overlay: &Overlay| {
        let mut merged = base.clone();
        merged.extend(overlay.iter().map(|(k, v)| (k.clone(), v.clone())));
        collect_discovered(&paths, &settings, &overrides, args.baseline.as_deref(), args.force_exclude, forced, &Overlay::new(merged))
    };
    let human = |diagnostics: &[Diagnostic], folded_infos: &[FoldedInfo], format: OutputFormat| -> String {
        if args.statistics {
            return render::statistics(diagnostics, folded_infos);
        }
        let (listed, folded) = render::fold_infos(diagnostics, folded_infos, show_infos);
        // `--quiet`: the findings and nothing else.
        let folded = if global.quiet { String::new() } else { folded };
        match format {
            OutputFormat::Concise => format!("{}{folded}", render::concise::render(&listed)),
            _ => format!("{}{folded}", render::full::render(&listed, super::style())),
        }
    };
    // The closing lines of a human report (none with `--quiet`).
    let closing = |lines: &[String]| if global.quiet { String::new() } else { lines.iter().map(|l| format!("{l}\n")).collect() };
    let machine = |diagnostics: &[Diagnostic], summary: &Summary, format: OutputFormat| match format {
        OutputFormat::Json if args.statistics => Some(render::json::statistics(diagnostics)),
        OutputFormat::Json => Some(render::json::render(diagnostics, summary)),
        OutputFormat::Sarif => Some(render::sarif::render(diagnostics, &sarif_root)),
        OutputFormat::Github => Some(render::github::render(diagnostics)),
        OutputFormat::Gitlab => Some(render::gitlab::render(diagnostics, &render::gitlab::project_root(&sarif_root))),
        OutputFormat::Junit => Some(render::junit::render(diagnostics)),
        OutputFormat::Concise | OutputFormat::Full | OutputFormat::Html => None,
    };
    if args.show_files {
        let files = collect(&Overlay::default())?.files;
        let width = files.iter().map(|f| f.display.chars().count()).max().unwrap_or(0);
        let listing: String =
            files.iter().map(|f| format!("{:width$}  {}\n", render::escape_controls(&f.display), f.status.describe(), width = width)).collect();
        super::print(&listing);
        return Ok(ExitCode::SUCCESS);
    }
    if args.add_noqa {
        if stdin.is_some() {
            return Err(FatalError::usage("`--add-noqa` writes files: it cannot check stdin", Some("name the files to add suppressions to".to_owned())));
        }
        super::refuse_set_when_writing(&args.config, "--add-noqa")?;
        let diagnostics = collect(&Overlay::default())?.diagnostics;
        let added = apply::add_noqa::add_noqa(&diagnostics);
        apply::write_all(&added.changes)?;
        let files = added.changes.len();
        super::say(&format!("Added {} suppression{} in {files} file{}.", added.added, plural(added.added), plural(files)));
        if added.left > 0 {
            super::say(&format!(
                "warning: {} finding{} left unsuppressed: JSON and shell files take no comment (use `per-file-ignores`), and a comment on a line continued below would change its value",
                added.left,
                plural(added.left)
            ));
        }
        return Ok(ExitCode::SUCCESS);
    }
    if args.fix || args.diff || args.fix_only {
        super::refuse_set_when_writing(&args.config, if args.diff { "--diff" } else { "--fix" })?;
        let outcome = fix_passes(|overlay| collect(overlay).map(|checked| (checked.files, checked.diagnostics)), args.unsafe_fixes)?;
        super::verbose(|| format!("{} fixes applied in memory in {} ms", outcome.applied, started.elapsed().as_millis()));
        for message in &outcome.unconverged {
            super::say(&format!("warning: {message}"));
        }
        let unsafe_hint = unsafe_hint(&outcome.remaining, args.unsafe_fixes);
        if args.diff {
            let diff: String = outcome.changes.iter().map(apply::unified_diff).collect();
            super::print(&diff);
            super::say(&format!("Would fix {} in {} file{}.{unsafe_hint}", fixed_count(&outcome), outcome.changes.len(), plural(outcome.changes.len())));
            return Ok(if outcome.changes.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) });
        }
        let fixed_line = format!("Fixed {} in {} file{}.{unsafe_hint}", fixed_count(&outcome), outcome.changes.len(), plural(outcome.changes.len()));
        let diagnostics = &outcome.remaining;
        if let Some((path, text)) = &stdin {
            // ruff's way: the fixed text on stdout (nothing is written), the report on stderr.
            let key = overlay_key(path);
            let fixed = outcome.changes.iter().find(|c| c.path == key || apply::canonical(&c.path) == key).map_or(text.as_str(), |c| c.fixed.as_str());
            super::print(fixed);
            if !global.silent {
                eprint!("{}", human(diagnostics, &[], args.output_format));
            }
            super::say(&fixed_line);
            return Ok(exit_code(args, diagnostics));
        }
        apply::write_all(&outcome.changes)?;
        if args.fix_only {
            if !global.quiet {
                super::print(&format!("{fixed_line}\n"));
            }
            return Ok(ExitCode::SUCCESS);
        }
        let summary = summary(&outcome.files, diagnostics);
        let output = machine(diagnostics, &summary, args.output_format)
            .unwrap_or_else(|| format!("{}{}", human(diagnostics, &[], args.output_format), closing(&[fixed_line, summary.line()])));
        warn_when_empty(&summary);
        super::print(&output);
        return Ok(exit_code(args, diagnostics));
    }
    let Checked { files, diagnostics, folded } = collect(&Overlay::default())?;
    super::verbose(|| format!("{} files found, {} findings, in {} ms", files.len(), diagnostics.len() + folded.len(), started.elapsed().as_millis()));
    if global.verbose {
        for file in &files {
            super::verbose(|| format!("{}: {}", render::escape_controls(&file.display), file.status.describe()));
        }
    }
    let mut summary = summary(&files, &diagnostics);
    summary.infos += folded.len();
    warn_when_empty(&summary);
    let report = |format: OutputFormat| {
        // Only a human report folds infos (`Settings::shed_folded_infos`): a machine format has them all whole.
        debug_assert!(folded.is_empty() || matches!(format, OutputFormat::Concise | OutputFormat::Full));
        machine(&diagnostics, &summary, format).unwrap_or_else(|| format!("{}{}", human(&diagnostics, &folded, format), closing(&[summary.line()])))
    };
    match &args.output_file {
        Some(path) => {
            apply::write_report(path, &report(args.output_format))?;
            super::print(&report(OutputFormat::Full));
        }
        None => super::print(&report(args.output_format)),
    }
    super::verbose(|| format!("done in {} ms", started.elapsed().as_millis()));
    if let Some(warning) = left_unread(&files) {
        super::say(&warning);
        return Ok(ExitCode::from(2));
    }
    Ok(exit_code(args, &diagnostics))
}

/// The files a run left unread once it had read its byte budget: the report covers the others,
/// and this says how many were left; the run then exits 2 (it did not check everything).
fn left_unread(files: &[FileEntry]) -> Option<String> {
    let unread: Vec<&FileEntry> = files.iter().filter(|f| f.status == FileStatus::Skipped(linter::Skip::RunBudget)).collect();
    let first = unread.first()?;
    let checked = files.iter().filter(|f| !matches!(f.status, FileStatus::Skipped(_))).count();
    Some(format!(
        "error: {} file{} left unread (`{}` the first by name): the run had read its budget of {} MiB of config text; the report above covers the {checked} checked; check the rest in another run (name their folders), or fewer files at a time",
        unread.len(),
        plural(unread.len()),
        render::escape_controls(&first.display),
        crate::load::MAX_RUN_BYTES / (1024 * 1024),
    ))
}

/// 1 when an error is left (or a warning, with `--exit-non-zero-on-warning`), unless `--exit-zero`.
fn exit_code(args: &CheckArgs, diagnostics: &[Diagnostic]) -> ExitCode {
    let failing = |d: &&Diagnostic| d.severity == Severity::Error || args.exit_non_zero_on_warning && d.severity == Severity::Warning;
    if !args.exit_zero && diagnostics.iter().any(|d| failing(&d)) { ExitCode::from(1) } else { ExitCode::SUCCESS }
}

/// `2 findings (1 error, 1 warning)`: what the fixes were for, by severity.
fn fixed_count(outcome: &FixOutcome) -> String {
    let n = outcome.applied;
    let infos = n.saturating_sub(outcome.applied_errors + outcome.applied_warnings);
    let parts: Vec<String> = [(outcome.applied_errors, "error"), (outcome.applied_warnings, "warning"), (infos, "info")]
        .iter()
        .filter(|(count, _)| *count > 0)
        .map(|(count, what)| format!("{count} {what}{}", plural(*count)))
        .collect();
    let breakdown = if parts.is_empty() { String::new() } else { format!(" ({})", parts.join(", ")) };
    format!("{n} finding{}{breakdown}", plural(n))
}

/// ruff's hint when fixes remain that only `--unsafe-fixes` applies: ` 2 fixes are available with `--unsafe-fixes`.`
fn unsafe_hint(remaining: &[Diagnostic], unsafe_fixes: bool) -> String {
    let n = remaining.iter().filter(|d| d.fix.as_ref().is_some_and(|f| f.applicability == crate::diagnostic::Applicability::Unsafe)).count();
    match n {
        _ if unsafe_fixes => String::new(),
        0 => String::new(),
        1 => " 1 fix is available with `--unsafe-fixes`.".to_owned(),
        n => format!(" {n} fixes are available with `--unsafe-fixes`."),
    }
}

/// `check -`: stdin's text and the path it stands for (`--stdin-filename`,
/// else `stdin.yaml` in the current folder). `None` when no path is `-`.
fn read_stdin(args: &CheckArgs) -> Result<Option<(PathBuf, String)>, FatalError> {
    if !args.paths.iter().any(|p| p.as_os_str() == "-") {
        if args.stdin_filename.is_some() {
            return Err(FatalError::usage("`--stdin-filename` names the text read from stdin: pass `-` as the path", None));
        }
        return Ok(None);
    }
    if args.paths.len() > 1 {
        return Err(FatalError::usage(
            "`-` (stdin) cannot be checked together with other paths",
            Some("run trainlint once for stdin and once for the files".to_owned()),
        ));
    }
    let mut bytes = Vec::new();
    use std::io::Read;
    std::io::stdin()
        .take(crate::load::MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| FatalError::Io { path: "<stdin>".to_owned(), reason: e.to_string() })?;
    if bytes.len() as u64 > crate::load::MAX_FILE_BYTES {
        return Err(FatalError::Io { path: "<stdin>".to_owned(), reason: format!("more than {} MiB", crate::load::MAX_FILE_BYTES / 1_048_576) });
    }
    let text = String::from_utf8(bytes).map_err(|_| FatalError::Io { path: "<stdin>".to_owned(), reason: "not UTF-8 text".to_owned() })?;
    let path = args.stdin_filename.clone().unwrap_or_else(|| PathBuf::from("stdin.yaml"));
    if path.is_dir() {
        return Err(FatalError::usage(format!("`--stdin-filename {}` is a folder; name the file the text stands for", path.display()), None));
    }
    Ok(Some((path, text)))
}

/// The key the loader's overlay finds `path` by: its canonical path, or its
/// folder's canonical path and its name when the file does not exist (stdin).
fn overlay_key(path: &Path) -> PathBuf {
    crate::load::loader::overlay_key(path)
}

/// A manifest named on the command line (pre-commit passes a changed
/// `trainlint.toml`, or a `pyproject.toml` with `[tool.trainlint]`) stands for
/// the folder it governs: a manifest edit can break every config under it.
/// Files already under such a folder are not named twice.
fn manifests_as_folders(paths: &[PathBuf]) -> Vec<PathBuf> {
    // The name first: a `stat` per named file only for the two names that can be manifests.
    let is_manifest = |path: &Path| {
        path.file_name().is_some_and(|name| {
            name == "trainlint.toml" && path.is_file()
                || name == "pyproject.toml" && path.is_file() && std::fs::read_to_string(path).is_ok_and(|text| text.contains("[tool.trainlint"))
        })
    };
    let folders: Vec<PathBuf> = paths
        .iter()
        .filter(|p| is_manifest(p))
        .map(|p| p.parent().filter(|d| !d.as_os_str().is_empty()).map_or_else(|| PathBuf::from("."), Path::to_path_buf))
        .collect();
    // A `pyproject.toml` without `[tool.trainlint]` is neither a manifest nor a config (pre-commit passes every one).
    let paths: Vec<PathBuf> =
        paths.iter().filter(|p| is_manifest(p) || !(p.file_name().is_some_and(|n| n == "pyproject.toml") && p.is_file())).cloned().collect();
    if folders.is_empty() {
        return paths;
    }
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let covered: Vec<PathBuf> = folders.iter().map(|f| absolute(f)).collect();
    let mut out: Vec<PathBuf> = Vec::new();
    for folder in folders {
        if !out.iter().any(|o| absolute(&folder).starts_with(absolute(o))) {
            out.retain(|o| !absolute(o).starts_with(absolute(&folder)));
            out.push(folder);
        }
    }
    out.extend(paths.iter().filter(|p| !is_manifest(p) && !covered.iter().any(|c| absolute(p).starts_with(c))).cloned());
    out
}

/// `--show-settings`: what the run would use for the first path, ruff's way.
fn show_settings(paths: &[PathBuf], settings: &Settings) -> String {
    let rules = crate::rules::codes::ALL;
    let enabled: Vec<&str> = rules.iter().filter(|r| settings.selection.is_enabled(r)).map(|r| r.code).collect();
    let disabled: Vec<&str> = rules.iter().filter(|r| !settings.selection.is_enabled(r)).map(|r| r.code).collect();
    let changed: Vec<String> = rules
        .iter()
        .filter(|r| settings.selection.is_enabled(r) && settings.selection.severity(r) != r.severity)
        .map(|r| format!("{} = {}", r.code, settings.selection.severity(r).as_str()))
        .collect();
    let list = |items: &[String]| if items.is_empty() { "(none)".to_owned() } else { items.join(", ") };
    let owned = |items: &[&str]| items.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    let gpus: Vec<String> = settings.gpus.iter().map(|g| format!("{} ({}, {} MiB)", g.id, g.name, g.memory_mib)).collect();
    let excludes = match &settings.exclude {
        Some(list) => list.join(", "),
        None => format!("the defaults ({})", crate::load::discover::DEFAULT_EXCLUDE.join(", ")),
    };
    let sets: Vec<String> = settings.sets.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let mut out = format!("Settings for {}:\n", paths.iter().map(|p| format!("`{}`", p.display())).collect::<Vec<_>>().join(", "));
    out.push_str(&format!("  manifest: {}\n", settings.manifest_path.as_ref().map_or_else(|| "none (the defaults)".to_owned(), |p| p.display().to_string())));
    out.push_str(&format!("  root: {}\n", settings.root.display()));
    out.push_str(&format!("  rules enabled ({} of {}): {}\n", enabled.len(), rules.len(), list(&owned(&enabled))));
    out.push_str(&format!("  rules disabled: {}\n", list(&owned(&disabled))));
    out.push_str(&format!("  severity overrides: {}\n", list(&changed)));
    out.push_str(&format!("  gpus: {}\n", if gpus.is_empty() { "none (memory rules need a target)".to_owned() } else { gpus.join(", ") }));
    out.push_str(&format!("  world-size: {}\n", settings.world_size.map_or_else(|| "unset (from each config)".to_owned(), |n| n.to_string())));
    out.push_str(&format!("  safety-margin: {}\n", settings.safety_margin()));
    out.push_str(&format!("  exclude: {excludes}\n"));
    out.push_str(&format!("  extend-exclude: {}\n", list(&settings.extend_exclude)));
    let per_file: Vec<String> = settings.per_file_ignores.iter().map(|(glob, codes)| format!("{glob}: {}", codes.join(" "))).collect();
    out.push_str(&format!("  per-file-ignores: {}\n", list(&per_file)));
    out.push_str(&format!("  respect-gitignore: {}\n", settings.respect_gitignore));
    out.push_str(&format!("  show-infos: {}\n", settings.show_infos));
    out.push_str(&format!("  set: {}\n", list(&sets)));
    out
}

/// The summary's counts: files checked (recognised or named), skipped and why.
pub fn summary(files: &[FileEntry], diagnostics: &[Diagnostic]) -> Summary {
    let checked = files.iter().filter(|f| !matches!(f.status, FileStatus::Skipped(_))).count();
    let mut summary = Summary::new(checked, diagnostics);
    summary.unrecognised = files.iter().filter(|f| f.status == FileStatus::Unrecognised).count();
    let mut skipped: BTreeMap<Skip, usize> = BTreeMap::new();
    for file in files {
        if let FileStatus::Skipped(skip) = file.status {
            *skipped.entry(skip).or_default() += 1;
        }
    }
    summary.skipped = skipped.into_iter().map(|(skip, n)| (skip.describe(), n)).collect();
    let mut not_checked: BTreeMap<&'static str, usize> = BTreeMap::new();
    for file in files {
        if let FileStatus::NotChecked { why, .. } = file.status {
            *not_checked.entry(why).or_default() += 1;
        }
    }
    summary.not_checked = not_checked.into_iter().collect();
    summary
}

/// ruff's "No Python files found": a warning on stderr, exit code unchanged (0 when nothing else failed).
fn warn_when_empty(summary: &Summary) {
    if summary.files == 0 {
        super::say("warning: No training configs found under the given paths; `--show-files` lists what was found and why it was skipped");
    }
}

/// Discovers the files under `paths` and returns what was done with each and
/// every diagnostic, sorted: the whole of `check` but the rendering.
pub fn collect(
    paths: &[PathBuf],
    overrides: &Overrides,
    baseline: Option<&str>,
    force_exclude: bool,
    forced_manifest: bool,
) -> Result<(Vec<FileEntry>, Vec<Diagnostic>), FatalError> {
    collect_with(paths, overrides, baseline, force_exclude, forced_manifest, &Overlay::default())
}

/// `collect`, reading files from `overlay` where it holds them (fixes not yet written).
pub(crate) fn collect_with(
    paths: &[PathBuf],
    overrides: &Overrides,
    baseline: Option<&str>,
    force_exclude: bool,
    forced_manifest: bool,
    overlay: &Overlay,
) -> Result<(Vec<FileEntry>, Vec<Diagnostic>), FatalError> {
    // A GPU probe (`--gpu auto`) is run at most once, here when the caller did not.
    let mut overrides = overrides.clone();
    // The manifest found from the first path decides what is walked (its excludes)...
    let settings = super::with_gpu_probe(&mut overrides, |o| Settings::discover(paths, o))?;
    let checked = collect_discovered(paths, &settings, &overrides, baseline, force_exclude, forced_manifest, overlay)?;
    // Only `check`'s human report folds infos, and it calls `collect_discovered` itself.
    debug_assert!(checked.folded.is_empty(), "collect_with's callers keep every finding whole");
    Ok((checked.files, checked.diagnostics))
}

/// `collect_with` with the settings `Settings::discover` gave for `paths` and `overrides`
/// (`check` discovers them once, for its notes and every fix pass; nothing a pass changes is
/// read by discovery: fixes stay in the overlay until the end).
fn collect_discovered(
    paths: &[PathBuf],
    discovered: &Settings,
    overrides: &Overrides,
    baseline: Option<&str>,
    force_exclude: bool,
    forced_manifest: bool,
    overlay: &Overlay,
) -> Result<Checked, FatalError> {
    let mut overrides = overrides.clone();
    let mut settings = discovered.clone();
    // One loader for the run: every group shares its memo (the Hydra lookups).
    settings.loader = settings.loader.for_pass(overlay.clone());
    let excludes = Excludes::new(&settings.root, settings.exclude.as_deref(), &settings.extend_exclude)?;
    // A path with its text in the overlay and nothing on disk is stdin's (`check -`).
    // (An empty overlay, the usual case, holds none: then no named path is looked up on disk here.)
    let in_memory =
        paths.iter().filter(|p| !overlay.is_empty() && !p.exists() && overlay.contains_key(&crate::load::loader::overlay_key(p))).cloned().collect();
    let walk = discover::Walk { excludes, force_exclude, shell: true, respect_gitignore: settings.respect_gitignore, in_memory, named: settings.named.clone() };
    let files = discover::walk(paths, &walk)?;
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
    let mut entries = Vec::new();
    let mut folded = Vec::new();
    for (manifest, group) in group_by_manifest(files, &settings, forced_manifest) {
        let group_settings = if manifest == settings.manifest_path {
            settings.clone()
        } else {
            let mut group = super::with_gpu_probe(&mut overrides, |o| Settings::from_manifest(manifest.as_deref(), o))?;
            group.loader =
                settings.loader.clone().with_shell_command(group.manifest.shell.as_ref().and_then(|s| s.command.clone())).with_roots_of(&group.loader);
            group
        };
        let checked = check_group(group, &group_settings, revision.as_ref())?;
        // The first group's lists are taken as they are (one manifest: no copy at all).
        append(&mut diagnostics, checked.diagnostics);
        append(&mut entries, checked.files);
        append(&mut folded, checked.folded);
    }
    entries.sort_by(|a: &FileEntry, b: &FileEntry| a.display.cmp(&b.display));
    linter::dedupe(&mut diagnostics, &settings.loader);
    // A folded info duplicates only another folded one: both are infos without a fix, in the same file.
    linter::dedupe_folded(&mut folded, &settings.loader);
    linter::collapse_missing_configs(&mut diagnostics);
    if let Some(stage) = &overrides.stage {
        // The stage's own findings, and those of its stage file; not the base's or other stages'.
        diagnostics.retain(|d| {
            d.stage.as_deref() == Some(stage.as_str())
                || d.stage.is_none() && settings.is_stage_file(d.file.path()) && d.file.path().file_stem().is_some_and(|s| s.to_string_lossy() == *stage)
        });
    }
    diagnostics.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    Ok(Checked { files: entries, diagnostics, folded })
}

/// `to.extend(list)`, taking `list` as it is when `to` is empty (no copy).
fn append<T>(to: &mut Vec<T>, list: Vec<T>) {
    if to.is_empty() {
        *to = list;
    } else {
        to.extend(list);
    }
}

/// Fix passes, ruff's way: apply the fixes that do not overlap, check the
/// result again, repeat until nothing is left to fix. Convergence is per
/// file: a file still changing after `MAX_PASSES` passes (two rules undoing
/// each other) is put back as it was, named in `unconverged`, and the passes
/// go on for the others (each restart leaves out one more file, so this ends).
/// Everything happens in memory; the caller writes (or diffs) the changes.
pub(crate) const MAX_PASSES: usize = 10;

pub struct FixOutcome {
    pub files: Vec<FileEntry>,
    pub applied: usize,
    /// Of `applied`, the fixes of errors and of warnings (the rest were infos).
    pub applied_errors: usize,
    pub applied_warnings: usize,
    pub changes: Vec<Change>,
    /// The diagnostics of the fixed texts.
    pub remaining: Vec<Diagnostic>,
    /// Files whose fixes did not converge, left unchanged: a message each.
    pub unconverged: Vec<String>,
}

pub fn fix_loop(
    paths: &[PathBuf],
    overrides: &Overrides,
    baseline: Option<&str>,
    force_exclude: bool,
    forced_manifest: bool,
    unsafe_fixes: bool,
) -> Result<FixOutcome, FatalError> {
    fix_passes(|overlay| collect_with(paths, overrides, baseline, force_exclude, forced_manifest, overlay), unsafe_fixes)
}

/// The passes of `fix_loop` over any checker: `collect` returns the number of
/// files and the diagnostics of the texts in the overlay (or on disk).
pub fn fix_passes(
    mut collect: impl FnMut(&Overlay) -> Result<(Vec<FileEntry>, Vec<Diagnostic>), FatalError>,
    unsafe_fixes: bool,
) -> Result<FixOutcome, FatalError> {
    let mut overlay: HashMap<PathBuf, String> = HashMap::new();
    let mut originals: BTreeMap<PathBuf, (String, String)> = BTreeMap::new();
    // Fixes applied, per file they were counted on (the first file each edits).
    let mut applied: BTreeMap<PathBuf, usize> = BTreeMap::new();
    let mut applied_severity: BTreeMap<PathBuf, (usize, usize)> = BTreeMap::new();
    let mut codes: BTreeMap<PathBuf, std::collections::BTreeSet<&'static str>> = BTreeMap::new();
    let mut linked: Vec<Vec<PathBuf>> = Vec::new();
    let mut skipped: std::collections::BTreeSet<PathBuf> = std::collections::BTreeSet::new();
    let mut unconverged = Vec::new();
    let mut passes = 0;
    loop {
        let (files, diagnostics) = collect(&Overlay::new(overlay.clone()))?;
        let accepted = apply::accept_except(&diagnostics, unsafe_fixes, &skipped);
        if accepted.fixes == 0 {
            let changes = originals
                .into_iter()
                .filter_map(|(path, (display, original))| {
                    let fixed = overlay.remove(&path)?;
                    (fixed != original).then_some(Change { path, display, original, fixed })
                })
                .collect();
            return Ok(FixOutcome {
                files,
                applied: applied.values().sum(),
                applied_errors: applied_severity.values().map(|s| s.0).sum(),
                applied_warnings: applied_severity.values().map(|s| s.1).sum(),
                changes,
                remaining: diagnostics,
                unconverged,
            });
        }
        if passes == MAX_PASSES {
            // The files still changing, and those a fix edits together with one of them.
            let mut stuck: std::collections::BTreeSet<PathBuf> = accepted.edits.keys().cloned().collect();
            while let Some(group) = linked.iter().find(|g| g.iter().any(|p| stuck.contains(p)) && g.iter().any(|p| !stuck.contains(p))) {
                stuck.extend(group.iter().cloned());
            }
            for path in stuck {
                overlay.remove(&path);
                applied.remove(&path);
                applied_severity.remove(&path);
                let display = originals.remove(&path).map_or_else(|| path.display().to_string(), |(display, _)| display);
                let rules: Vec<&str> = codes
                    .remove(&path)
                    .unwrap_or_default()
                    .into_iter()
                    .chain(accepted.codes.get(&path).into_iter().flatten().copied())
                    .collect::<std::collections::BTreeSet<_>>()
                    .into_iter()
                    .collect();
                unconverged.push(format!(
                    "fixes for `{display}` did not converge after {MAX_PASSES} passes ({} kept changing it); the file is left as it is; the fixes in other files still apply",
                    rules.join(", ")
                ));
                skipped.insert(path);
            }
            passes = 0;
            continue;
        }
        for (path, edits) in accepted.edits {
            let source = std::sync::Arc::clone(&edits[0].file);
            originals.entry(path.clone()).or_insert_with(|| (source.display().to_owned(), source.text().to_owned()));
            let fixed = apply::splice(source.text(), &edits);
            apply::check_reparses(&path, source.display(), &fixed)?;
            overlay.insert(path, fixed);
        }
        for (path, fixes) in accepted.per_file {
            *applied.entry(path).or_default() += fixes;
        }
        for (path, (errors, warnings)) in accepted.per_file_severity {
            let entry = applied_severity.entry(path).or_default();
            entry.0 += errors;
            entry.1 += warnings;
        }
        for (path, file_codes) in accepted.codes {
            codes.entry(path).or_default().extend(file_codes);
        }
        linked.extend(accepted.linked);
        passes += 1;
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// Files grouped by the manifest that governs them (all under `--config` when given).
fn group_by_manifest(files: Vec<discover::SourcePath>, settings: &Settings, forced: bool) -> Vec<(Option<PathBuf>, Vec<discover::SourcePath>)> {
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
            Some((_, group)) => group.push(file),
            None => groups.push((manifest, vec![file])),
        }
    }
    groups
}

/// The whole pipeline for files that share settings: per file, curriculum, baseline.
fn check_group(files: Vec<discover::SourcePath>, settings: &Settings, revision: Option<&Revision>) -> Result<Checked, FatalError> {
    let touches_curriculum = touches_curriculum(&files, settings);
    // Each file's tree is dropped as soon as it is linted; the resolved config
    // is kept only when the baseline pass compares it. Memory then grows with
    // the findings, not with the number of files.
    let keep_resolved = revision.is_some();
    let reports = check_files(files, settings, |report| CheckedFile {
        // Suppression comments are read from the file's text (not a skipped file's); a finding keeps its own file.
        suppressions_in: (!matches!(report.status, FileStatus::Skipped(_)) && crate::rules::suppression::may_have_suppressions(&report.document.source))
            .then(|| std::sync::Arc::clone(&report.document.source)),
        entry: FileEntry { display: report.document.source.shared_display(), status: report.status },
        resolved: if keep_resolved { report.resolved.map(Box::new) } else { None },
        diagnostics_and_folded: {
            let (kept, folded) = if settings.shed_folded_infos { shed_folded_infos(report.diagnostics) } else { (report.diagnostics, Vec::new()) };
            (kept.into_boxed_slice(), folded.into_boxed_slice())
        },
    })?;
    // The files are linted: the run's lookups (launch scripts, folder listings, Hydra primaries)
    // are not needed to gather what was found, and are as large as the lists gathered (100× the
    // corpus); the folders' canonical paths stay (`Loader::forget`).
    settings.loader.forget();
    // Sized once: growing by doubling would hold up to twice the findings at the end.
    let mut diagnostics: Vec<Diagnostic> = Vec::with_capacity(reports.iter().flatten().map(|r| r.diagnostics_and_folded.0.len()).sum());
    let mut folded: Vec<FoldedInfo> = Vec::with_capacity(reports.iter().flatten().map(|r| r.diagnostics_and_folded.1.len()).sum());
    let mut sources = Vec::new();
    let mut configs: Vec<ResolvedConfig> = Vec::new();
    let mut entries = Vec::with_capacity(reports.iter().map(Vec::len).sum());
    for report in reports.into_iter().flatten() {
        entries.push(report.entry);
        diagnostics.extend(report.diagnostics_and_folded.0.into_vec());
        folded.extend(report.diagnostics_and_folded.1.into_vec());
        sources.extend(report.suppressions_in);
        configs.extend(report.resolved.map(|r| *r));
    }
    let curriculum = if touches_curriculum {
        let (curriculum, found) = linter::lint_curriculum(settings)?;
        diagnostics.extend(found);
        curriculum
    } else {
        None
    };
    if let Some(revision) = revision {
        let configs: Vec<&ResolvedConfig> = configs.iter().collect();
        diagnostics.extend(linter::lint_baseline(settings, revision, &configs, curriculum.as_ref())?);
    }
    let mut checker = crate::rules::Checker::new(&settings.selection);
    crate::rules::suppression::apply(&mut diagnostics, &sources, &mut checker);
    diagnostics.extend(checker.into_diagnostics());
    Ok(Checked { files: entries, diagnostics, folded })
}

/// What a run found: each file and what was done with it, every finding kept whole (sorted), and
/// the infos a human report only counts (`FoldedInfo`: empty unless `Settings::shed_folded_infos`).
pub(crate) struct Checked {
    pub files: Vec<FileEntry>,
    pub diagnostics: Vec<Diagnostic>,
    pub folded: Vec<FoldedInfo>,
}

/// A linted file's infos as the folded report reads them (issue 27: 100× the corpus under
/// 100 MiB): an info is counted, so it keeps its rule, its file (without the text) and its span
/// (`FoldedInfo`), not its message, notes, help or labels, which only a listed finding shows; a
/// MEM004 stays a text-less `Diagnostic` with its message and label (the folded MEM004 line
/// groups by them). Kept whole: a finding with a fix (its edits need the text), and one in a file
/// with a `# trainlint:` comment (the suppressions read its line). A file whose findings are all
/// folded is then dropped once linted.
fn shed_folded_infos(diagnostics: Vec<Diagnostic>) -> (Vec<Diagnostic>, Vec<FoldedInfo>) {
    use std::sync::Arc;
    let mut textless: Vec<(Arc<crate::source::SourceFile>, Option<Arc<crate::source::SourceFile>>)> = Vec::new();
    let mut kept = Vec::new();
    let mut folded = Vec::new();
    for mut d in diagnostics {
        if d.severity != Severity::Info || d.fix.is_some() {
            kept.push(d);
            continue;
        }
        let at = match textless.iter().position(|(file, _)| Arc::ptr_eq(file, &d.file)) {
            Some(at) => at,
            None => {
                let bare = (!crate::rules::suppression::may_have_suppressions(&d.file)).then(|| Arc::new(d.file.without_text()));
                textless.push((Arc::clone(&d.file), bare));
                textless.len() - 1
            }
        };
        let Some(bare) = &textless[at].1 else {
            kept.push(d);
            continue;
        };
        // The folded MEM004 line groups by the label and names the model from the message
        // (`memory_not_estimated::summary_reason`); every other folded code is only counted.
        if d.rule.code != "MEM004" {
            folded.push(FoldedInfo { rule: d.rule, file: Arc::clone(bare), span: d.span });
            continue;
        }
        d.file = Arc::clone(bare);
        d.labels = Vec::new();
        d.note = None;
        d.help = None;
        kept.push(d);
    }
    (kept, folded)
}

/// What `check` keeps of a linted file.
struct CheckedFile {
    entry: FileEntry,
    suppressions_in: Option<std::sync::Arc<crate::source::SourceFile>>,
    /// Boxed: most files keep none, and a `ResolvedConfig` inline made every kept file ~800 bytes.
    resolved: Option<Box<ResolvedConfig>>,
    /// Kept whole, and folded (`shed_folded_infos`); boxed slices, 16 bytes each where a `Vec` takes 24
    /// (one per linted file), and nothing allocated when empty.
    diagnostics_and_folded: (Box<[Diagnostic]>, Box<[FoldedInfo]>),
}

/// Whether the run checks any file of the manifest's curriculum.
fn touches_curriculum(files: &[discover::SourcePath], settings: &Settings) -> bool {
    let Some(curriculum) = &settings.manifest.curriculum else { return false };
    let mut members = settings.stage_files.clone();
    members.extend(settings.loader.canonical(&settings.root.join(&curriculum.base)));
    files.iter().any(|f| settings.loader.canonical(&f.path).is_some_and(|p| members.contains(&p)))
}

/// Lints files on all cores, keeping the input order; `keep` picks, on the
/// worker thread, what of each report outlives it. The files are cut into
/// small batches that the workers take one at a time, so a worker that drew
/// cheap files takes more of them (fixed halves left one core idle for a
/// quarter of a corpus run). Each worker owns the batch it took and drops each
/// path once linted; the batches' lists are returned as they are, in input
/// order (flattening them would hold every kept file twice).
fn check_files<T: Send>(files: Vec<discover::SourcePath>, settings: &Settings, keep: impl Fn(FileReport) -> T + Sync) -> Result<Vec<Vec<T>>, FatalError> {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let total = files.len();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(total.max(1));
    // Small enough to even out the last batches, large enough that taking one costs nothing.
    let batch = total.div_ceil(threads * 4).clamp(1, 256);
    let mut batches: Vec<Mutex<Vec<discover::SourcePath>>> = Vec::with_capacity(total.div_ceil(batch));
    let mut files = files.into_iter();
    loop {
        let part: Vec<_> = files.by_ref().take(batch).collect();
        if part.is_empty() {
            break;
        }
        batches.push(Mutex::new(part));
    }
    let next = AtomicUsize::new(0);
    let failed = std::sync::atomic::AtomicBool::new(false);
    let (keep, batches, next, failed) = (&keep, &batches, &next, &failed);
    // Per worker: the batches it linted, each with its place in the input.
    type Linted<T> = Result<Vec<(usize, Vec<T>)>, FatalError>;
    let work = move || -> Linted<T> {
        let mut out = Vec::new();
        loop {
            let at = next.fetch_add(1, Ordering::Relaxed);
            if at >= batches.len() || failed.load(Ordering::Relaxed) {
                return Ok(out);
            }
            let part = std::mem::take(&mut *batches[at].lock().unwrap_or_else(|poisoned| poisoned.into_inner()));
            // Sized once (collecting grows by doubling: up to twice the kept files at the end).
            let mut kept = Vec::with_capacity(part.len());
            let linted = part.into_iter().try_for_each(|f| linter::lint_file(&f, settings).map(|report| kept.push(keep(report)))).map(|()| kept);
            match linted {
                Ok(linted) => out.push((at, linted)),
                Err(error) => {
                    failed.store(true, Ordering::Relaxed);
                    return Err(error);
                }
            }
        }
    };
    // This thread is one of the workers: one thread fewer to start.
    let done: Vec<Linted<T>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (1..threads).map(|_| scope.spawn(work)).collect();
        let mine = work();
        std::iter::once(mine).chain(handles.into_iter().map(|handle| handle.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))).collect()
    });
    let mut linted: Vec<(usize, Vec<T>)> = Vec::with_capacity(batches.len());
    for worker in done {
        linted.extend(worker?);
    }
    linted.sort_unstable_by_key(|(at, _)| *at);
    Ok(linted.into_iter().map(|(_, part)| part).collect())
}
