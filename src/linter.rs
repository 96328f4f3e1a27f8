//! Runs the pipeline: load → resolve → rules, per file, then per curriculum
//! stage, then against a baseline revision. Rendering and applying fixes
//! happen after, on the diagnostics this returns.

use crate::diagnostic::Diagnostic;
use crate::error::FatalError;
use crate::load::discover::SourcePath;
use crate::load::git::Revision;
use crate::load::{self, Document, Format, LoadError};
use crate::resolve::curriculum::{self, ResolvedCurriculum};
use crate::resolve::{self, ResolvedConfig};
use crate::rules::{Check, Checker, Need, batch, curriculum as cur, env, memory, migration, resolution, schema as sch};
use crate::settings::Settings;
use globset::{Glob, GlobMatcher};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Everything known about one checked file.
#[derive(Debug)]
pub struct FileReport {
    pub document: Document,
    pub resolved: Option<ResolvedConfig>,
    pub diagnostics: Vec<Diagnostic>,
    pub status: FileStatus,
}

/// What a run did with a file (`check --show-files`, the summary's counts).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileStatus {
    /// Linted as a training config; how it was recognised (the dialect's name,
    /// `curriculum stage`, `hydra`, or `invalid YAML` for a file that does not parse); borrowed
    /// where it is a fixed name, so a checked file costs no allocation for it.
    Checked(Cow<'static, str>),
    /// Named on the command line but not recognised as a training config:
    /// syntax and duplicate keys only.
    Unrecognised,
    /// Found by walking a folder and not recognised: nothing checked.
    Skipped(Skip),
    /// Read as the dialect, but every value the batch and precision rules check is left to the
    /// program that launches it (DeepSpeed's `"auto"`) and nothing links it to that program.
    NotChecked { dialect: String, why: &'static str },
}

/// Why a file found by walking was not checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Skip {
    /// No dialect's keys, no manifest `[bindings]`, not a stage nor a Hydra file.
    NotTrainingConfig,
    /// Several YAML documents (Kubernetes manifests), none of them a training config.
    MultiDocument,
    /// Nothing in it.
    Empty,
    /// Over the size limit: a tokenizer, a dataset, golden values — training configs are small.
    TooLarge,
    /// A template whose values are placeholders a script fills in (`"train_batch_size":
    /// CONFIG_BATCH_SIZE`, `{{ batch }}`), so it does not parse as it stands.
    Template,
    /// JSON Lines with a `.json` name (one JSON value per line: prompts, samples, golden values).
    JsonLines,
    /// Not read: the run had read its budget of configuration bytes (`load::MAX_RUN_BYTES`)
    /// before this file's turn. `check` says how many were left and exits 2.
    RunBudget,
}

// `Skip::RunBudget`'s words name the budget.
const _: () = assert!(load::MAX_RUN_BYTES == 256 * 1024 * 1024);

impl Skip {
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Skip::NotTrainingConfig => "not recognised as a training config",
            Skip::MultiDocument => "multi-document YAML with no training config in it",
            Skip::Empty => "empty",
            Skip::TooLarge => "over 1 MiB (a tokenizer or a dataset, not a training config)",
            Skip::Template => "templates whose placeholders a script fills in",
            Skip::JsonLines => "JSON Lines (one value per line: data, not a training config)",
            Skip::RunBudget => "left unread: the run had read its budget of 256 MiB of config text (check them in another run)",
        }
    }
}

impl FileStatus {
    /// `checked as <dialect>` / `checked: not recognised ...` / `skipped: <reason>`.
    pub(crate) fn describe(&self) -> String {
        match self {
            FileStatus::Checked(how) => format!("checked as {how}"),
            FileStatus::Unrecognised => "checked: not recognised as a training config (named explicitly; syntax and duplicate keys only)".to_owned(),
            FileStatus::Skipped(skip) => format!("skipped: {}", skip.describe()),
            FileStatus::NotChecked { dialect, why } => format!("read as {dialect}; batch and precision not checked: {why}"),
        }
    }
}

pub fn lint_file(file: &SourcePath, settings: &Settings) -> Result<FileReport, FatalError> {
    let document = match settings.loader.load(&file.path, &file.display, file.format) {
        Ok(document) => document,
        // Past the run's budget a file is left unread and named, not a fatal error: the run
        // reports what it linted and how much was left (issue 27).
        Err(_) if settings.loader.over_run_budget() => {
            let document = Document {
                source: Arc::new(crate::source::SourceFile::new(file.path.clone(), file.display.clone(), "")),
                format: file.format,
                root: Err(LoadError::Empty),
                duplicates: Vec::new(),
            };
            return Ok(FileReport { document, resolved: None, diagnostics: Vec::new(), status: FileStatus::Skipped(Skip::RunBudget) });
        }
        Err(e) => return Err(FatalError::Io { path: file.display.clone(), reason: e.to_string() }),
    };
    Ok(lint_document_as(document, settings, file.explicit))
}

/// Lints a document. A document found by walking (`explicit` false) is linted
/// only when it is recognised as a training config; otherwise it is skipped,
/// with the reason in its status, and nothing is reported about it.
pub(crate) fn lint_document_as(document: Document, settings: &Settings, explicit: bool) -> FileReport {
    let skipped = |document: Document, skip: Skip| FileReport {
        document,
        resolved: None,
        diagnostics: Vec::new(),
        status: if explicit { FileStatus::Unrecognised } else { FileStatus::Skipped(skip) },
    };
    if let Err(LoadError::MultiDocument { .. }) = &document.root
        && !multi_document_has_config(&document, settings)
    {
        // Kubernetes manifests and other YAML streams: valid YAML, not a training config.
        return skipped(document, Skip::MultiDocument);
    }
    if !explicit
        && matches!(document.root, Err(LoadError::Empty))
        && resolve::hydra::primary_config_of_group_option(&settings.loader, document.source.path()).is_none()
    {
        return skipped(document, Skip::Empty);
    }
    if !explicit && matches!(document.root, Err(LoadError::TooLarge { .. })) && !(document.format == Format::Shell && settings.manifest.shell.is_some()) {
        // Found by walking: a file over the limit is data, not a config (named, or a script the
        // manifest's `[shell]` declares a training config, it is SCH001).
        return skipped(document, Skip::TooLarge);
    }
    if !explicit
        && let Err(LoadError::Syntax { span, .. }) = &document.root
        && is_placeholder(document.source.text(), span.start)
    {
        return skipped(document, Skip::Template);
    }
    if !explicit && document.format == Format::Json && document.root.is_err() && is_json_lines(document.source.text()) {
        // Megatron-LM's `prompts.json`: a `.json` name on JSON Lines data (issue 25: a walked data
        // file is never an error). Named explicitly, it is SCH001 as any invalid JSON.
        return skipped(document, Skip::JsonLines);
    }
    if !explicit && document.format == Format::Shell && document.root.is_err() && settings.manifest.shell.is_none() {
        // A script found by walking that the static reader cannot split into commands (or over
        // the size limit): not known to launch training. Named explicitly, or walked because the
        // manifest's `[shell]` says scripts are training configs, it is SCH001.
        return skipped(document, Skip::NotTrainingConfig);
    }
    let mut checker = Checker::new(&settings.selection);
    for duplicate in &document.duplicates {
        checker.report(sch::duplicate_key::diagnostic(&document, duplicate));
    }
    // A stage file means something only over its base: the curriculum pass resolves it.
    let is_stage = settings.is_stage_file(document.source.path());
    if let Ok(root) = &document.root
        && checker.runs(Check::Migrations)
    {
        migration::check(&mut checker, &document, root, settings);
    }
    let mut unrecognised = false;
    let mut primary = false;
    let resolved = match &document.root {
        Err(LoadError::Empty) if resolve::hydra::primary_config_of_group_option(&settings.loader, document.source.path()).is_some() => None,
        Err(error) => {
            checker.report(sch::invalid_syntax::diagnostic(&document, error));
            None
        }
        Ok(_) if is_stage => None,
        Ok(root) if resolve::hydra::is_primary(&settings.loader, root, document.source.path()) => {
            // A Hydra primary is checked as Hydra composes it.
            let overrides = settings.manifest.hydra.as_ref().map(|h| h.overrides.clone()).unwrap_or_default();
            let composition = resolve::hydra::compose(&document, root, &overrides, &settings.loader);
            sch::missing_config::report(&mut checker, &composition.files, &composition.problems);
            let detection = resolve::detect(&composition.tree, settings);
            let detection = resolve::Detection { reason: format!("{} (composed from {} files)", detection.reason, composition.files.len()), ..detection };
            let incomplete = composition.problems.iter().any(|p| p.error);
            primary = true;
            let mut resolved = resolve::resolve_tree(composition.files, composition.tree, detection, settings, None);
            if incomplete {
                // A key missing from a composition that failed is a consequence, reported once by SCH007.
                for issue in &mut resolved.unresolved {
                    if let resolve::interpolate::Unresolved::MissingKey(key) = &issue.problem {
                        issue.problem = resolve::interpolate::Unresolved::Incomplete(key.clone());
                    }
                }
            }
            per_config(&mut checker, &document, root, &resolved, settings);
            Some(resolved)
        }
        Ok(root) => {
            let resolved = resolve::resolve(&document, root, settings);
            if resolved.detection.dialect == crate::dialects::unknown::UNKNOWN {
                // A workflow, a tsconfig, a chart's values: nothing a training rule applies to.
                if !explicit {
                    return skipped(document, Skip::NotTrainingConfig);
                }
                unrecognised = true;
            }
            let native = resolved.detection.dialect.is_native();
            if native && checker.runs(Check::Schema) {
                sch::validate(&mut checker, &document, root, sch::compiled("training-config"));
                // A `--set` (or launch) value is checked as the file's values are.
                sch::validate_overrides(&mut checker, &document, &resolved.tree, sch::compiled("training-config"), &settings.sets);
            }
            // A launch script's flags go to the program's own argument parser (FastChat's
            // `--data_path`, `--lazy_preprocess`), whose fields trainlint does not know, and are
            // typed by it, not by YAML: no unknown-key or YAML-typing findings.
            let script = matches!(document.format, Format::Shell | Format::Python);
            if !native && !script && checker.runs(Check::Schema) {
                sch::dialect_keys::check(&mut checker, &document, root, &resolved);
            }
            if !native && !script && checker.runs(Check::PyyamlFloats) {
                sch::pyyaml_float_as_string::check(&mut checker, &document, root, &resolved);
            }
            per_config(&mut checker, &document, root, &resolved, settings);
            Some(resolved)
        }
    };
    let mut diagnostics = checker.into_diagnostics();
    retain_not_ignored(&mut diagnostics, settings);
    diagnostics.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    let status = match (&resolved, &document.root) {
        _ if unrecognised => FileStatus::Unrecognised,
        (Some(resolved), _) if primary && resolved.detection.dialect == crate::dialects::unknown::UNKNOWN => {
            FileStatus::Checked(Cow::Borrowed("hydra primary"))
        }
        (Some(resolved), _) if primary => FileStatus::Checked(Cow::Owned(format!("hydra primary ({})", resolved.detection.dialect.name()))),
        (Some(resolved), _) if diagnostics.is_empty() && left_to_launcher(resolved) => {
            FileStatus::NotChecked { dialect: resolved.detection.dialect.name().to_owned(), why: NOT_CHECKED_AUTO }
        }
        (Some(resolved), _) => FileStatus::Checked(Cow::Borrowed(resolved.detection.dialect.name())),
        (None, Ok(_)) => FileStatus::Checked(Cow::Borrowed("curriculum stage")),
        (None, Err(LoadError::Empty)) if !diagnostics.iter().any(|d| d.rule.code == "SCH001") => {
            FileStatus::Checked(Cow::Borrowed("hydra group option (empty)"))
        }
        (None, Err(_)) => FileStatus::Checked(Cow::Owned(format!("{} (unreadable: SCH001)", document.format.name()))),
    };
    FileReport { document, resolved, diagnostics, status }
}

/// Why a DeepSpeed config whose values are all `"auto"` is not checked.
pub(crate) const NOT_CHECKED_AUTO: &str =
    "every batch and precision value is \"auto\" (the HF Trainer or accelerate fills them in at launch) and no launch script or [[pair]] links it";

/// A DeepSpeed config whose batch and precision values are all `"auto"` or absent, with at least
/// one `"auto"`, after a `[[pair]]` or a linked launch filled what it could: nothing a batch or
/// precision rule can check.
fn left_to_launcher(resolved: &ResolvedConfig) -> bool {
    use crate::schema::Role;
    if resolved.detection.dialect != crate::dialects::deepspeed::DEEPSPEED {
        return false;
    }
    let auto = |role: Role| resolved.role(role).is_some_and(crate::resolve::RoleValue::is_auto);
    let open = |role: Role| resolved.role(role).is_none() || auto(role);
    let roles = [Role::MicroBatch, Role::Accumulation, Role::GlobalBatch, Role::Precision];
    roles.iter().all(|r| open(*r)) && roles.iter().any(|r| auto(*r))
}

/// Whether any document of a multi-document YAML file is a training config
/// (then the file is reported as SCH001: frameworks read one document). The
/// documents are parsed one by one, at most `MAX_DOCUMENTS` of them.
fn multi_document_has_config(document: &Document, settings: &Settings) -> bool {
    const MAX_DOCUMENTS: usize = 1000;
    let mut rest = document.source.text();
    for _ in 0..MAX_DOCUMENTS {
        let (chunk, next) = match load::parse_text(rest, Format::Yaml) {
            Err(LoadError::MultiDocument { span }) if span.start > 0 && span.start < rest.len() => {
                (load::parse_text(&rest[..span.start], Format::Yaml), Some(span.start))
            }
            other => (other, None),
        };
        if let Ok((root, _)) = chunk
            && resolve::detect_at(&root, settings, Some(document.source.path())).dialect != crate::dialects::unknown::UNKNOWN
        {
            return true;
        }
        match next {
            Some(start) => rest = &rest[start..],
            None => return false,
        }
    }
    false
}

/// Whether a syntax error at `at` is a template's placeholder where a value belongs: an
/// upper-case identifier (`CONFIG_BATCH_SIZE`, Megatron-DeepSpeed's `sed` templates), a shell
/// variable (`$GLOBAL_BATCH`, `${MBS}`) or a Jinja/Mustache field (`{{ batch }}`), at the error
/// or right after the `:` before it.
/// Whether a text is JSON Lines: its first two non-blank lines are each a whole JSON object or
/// array (a JSON document spread over lines has no line that is a whole value but the last).
fn is_json_lines(text: &str) -> bool {
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let whole =
        |line: Option<&str>| line.is_some_and(|l| (l.starts_with('{') || l.starts_with('[')) && serde_json::from_str::<serde::de::IgnoredAny>(l).is_ok());
    whole(lines.next()) && whole(lines.next())
}

fn is_placeholder(text: &str, at: usize) -> bool {
    let Some(line_start) = text.get(..at.min(text.len())).map(|t| t.rfind('\n').map_or(0, |n| n + 1)) else { return false };
    let line_end = text[line_start..].find('\n').map_or(text.len(), |n| line_start + n);
    let line = &text[line_start..line_end];
    // The value after the line's key: `"key": VALUE,` / `key: VALUE` / TOML's `key = VALUE`.
    let value = line.split_once([':', '=']).map_or(line, |(_, v)| v).trim().trim_end_matches(',').trim();
    let upper = !value.is_empty()
        && value.len() >= 3
        && value.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        && value.starts_with(|c: char| c.is_ascii_uppercase());
    upper || value.starts_with('$') || value.starts_with("{{") || value.starts_with("\"{{")
}

/// The batch family also reports SCH002 for a batch value that is out of range on
/// its own (zero, negative, or a product past 64 bits): it runs when either is selected.
fn batch_family_runs(checker: &Checker) -> bool {
    checker.runs(Check::Batch) || checker.runs(Check::Schema)
}

/// The families that concern one resolved config, each run when a selected rule names it.
fn per_config(checker: &mut Checker, document: &Document, root: &load::Node, resolved: &ResolvedConfig, settings: &Settings) {
    if checker.runs(Check::Interpolation) {
        sch::interpolation::check(checker, resolved, &settings.loader);
    }
    if batch_family_runs(checker) {
        batch::check(checker, resolved, settings);
    }
    if checker.needs(Need::GpuTargets) {
        memory::check(checker, resolved, settings);
    }
    if checker.runs(Check::Env) {
        env::check(checker, document, root);
    }
}

/// The manifest's curriculum, read with `settings.loader`: stage schema, CUR001, and
/// the batch rules per stage with BAT002 across stages.
pub fn lint_curriculum(settings: &Settings) -> Result<(Option<ResolvedCurriculum>, Vec<Diagnostic>), FatalError> {
    let Some(spec) = &settings.manifest.curriculum else { return Ok((None, Vec::new())) };
    let Some(resolved) = curriculum::resolve(spec, settings)? else { return Ok((None, Vec::new())) };
    let mut checker = Checker::new(&settings.selection);
    let native = resolved.base.detection.dialect.is_native();
    let reference = resolved.base.batch.effective_batch;
    for stage in &resolved.stages {
        let Ok(stage_root) = &stage.document.root else { continue };
        if native && checker.runs(Check::Schema) {
            let mut stage_checker = Checker::new(&settings.selection);
            sch::validate(&mut stage_checker, &stage.document, stage_root, sch::compiled("curriculum-stage"));
            for mut d in stage_checker.into_diagnostics() {
                d.stage = Some(stage.name.clone());
                checker.report(d);
            }
        }
        if checker.runs(Check::Curriculum) {
            cur::stage_key_not_in_base::check(&mut checker, &stage.document, stage_root, &resolved.known, &stage.name, native.then_some("settings"));
        }
        if checker.runs(Check::Env) {
            env::check(&mut checker, &stage.document, stage_root);
        }
        if checker.needs(Need::GpuTargets) {
            memory::check(&mut checker, &stage.resolved, settings);
        }
        if checker.runs(Check::Interpolation) {
            stage_interpolation(&mut checker, &resolved.base, stage, settings);
        }

        let own_target =
            stage.resolved.role(crate::schema::Role::EffectiveBatchTarget).is_some_and(|v| std::sync::Arc::ptr_eq(&v.file, &stage.document.source));
        match (reference, stage.resolved.batch.effective_batch) {
            (Some(reference), Some(effective)) if effective != reference && !own_target && stage.resolved.batch.problem.is_none() => {
                checker.report(batch::stage_effective_batch_changed::diagnostic(&stage.resolved, reference, "base config", effective));
            }
            _ if batch_family_runs(&checker) => batch::check(&mut checker, &stage.resolved, settings),
            _ => {}
        }
    }
    let mut diagnostics = checker.into_diagnostics();
    retain_not_ignored(&mut diagnostics, settings);
    Ok((Some(resolved), diagnostics))
}

/// SCH005 / SCH006 for a stage, resolved over its base: what the stage file
/// itself cannot resolve (a cycle, a missing key), at the stage file's span,
/// and what the stage breaks in the base (a base value that resolves alone
/// but not with the stage merged in). What the base cannot resolve alone is
/// the base's own finding, reported once by its own check.
fn stage_interpolation(checker: &mut Checker, base: &ResolvedConfig, stage: &curriculum::Stage, settings: &Settings) {
    let mut found = Checker::new(&settings.selection);
    sch::interpolation::check(&mut found, &stage.resolved, &settings.loader);
    let mut alone = Checker::new(&settings.selection);
    sch::interpolation::check(&mut alone, base, &settings.loader);
    let alone: HashSet<(&'static str, PathBuf, usize, usize)> =
        alone.into_diagnostics().into_iter().map(|d| (d.rule.code, d.file.path().to_path_buf(), d.span.start, d.span.end)).collect();
    for diagnostic in found.into_diagnostics() {
        let in_stage = std::sync::Arc::ptr_eq(&diagnostic.file, &stage.document.source);
        if in_stage || !alone.contains(&(diagnostic.rule.code, diagnostic.file.path().to_path_buf(), diagnostic.span.start, diagnostic.span.end)) {
            checker.report(diagnostic);
        }
    }
}

/// Compares configs with their state at a git revision: BAT005, RES001, RES002.
/// The old state is resolved with a loader reading the revision, so everything
/// it reads (the config, its paired HF file, Hydra lookups, curriculum stages)
/// is as it was at that revision.
pub(crate) fn lint_baseline(
    settings: &Settings,
    revision: &Revision,
    files: &[&ResolvedConfig],
    curriculum: Option<&ResolvedCurriculum>,
) -> Result<Vec<Diagnostic>, FatalError> {
    let at_revision = Settings { loader: settings.loader.at_revision(revision.clone()), ..settings.clone() };
    let mut checker = Checker::new(&settings.selection);
    if !checker.runs(Check::Baseline) {
        return Ok(Vec::new());
    }
    for current in files {
        let source = current.source();
        let format = Format::from_path(source.path()).unwrap_or(Format::Yaml);
        let document = match at_revision.loader.load(source.path(), source.display(), format) {
            Ok(document) => document,
            // Not in the revision: a new file has nothing to compare with.
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => continue,
            Err(error) => return Err(FatalError::Io { path: source.display().to_owned(), reason: error.to_string() }),
        };
        let Ok(root) = &document.root else { continue };
        let old = resolve::resolve(&document, root, &at_revision);
        compare(&mut checker, settings, current, &old, &revision.name);
    }
    if let (Some(spec), Some(current)) = (&settings.manifest.curriculum, curriculum)
        && let Ok(Some(old)) = curriculum::resolve(spec, &at_revision)
    {
        for stage in &current.stages {
            if let Some(old_stage) = old.stages.iter().find(|s| s.name == stage.name) {
                compare(&mut checker, settings, &stage.resolved, &old_stage.resolved, &revision.name);
            }
        }
    }
    let mut diagnostics = checker.into_diagnostics();
    retain_not_ignored(&mut diagnostics, settings);
    Ok(diagnostics)
}

fn compare(checker: &mut Checker, settings: &Settings, current: &ResolvedConfig, old: &ResolvedConfig, revision: &str) {
    if let (Some(new), Some(before)) = (current.batch.effective_batch, old.batch.effective_batch)
        && new != before
    {
        checker.report(batch::effective_batch_changed_since_baseline::diagnostic(current, old, revision, before, new));
    }
    resolution::resolution_reduced::check(checker, settings, current, old, revision);
    if let Some(d) = resolution::precision_lowered::diagnostic(current, old, revision) {
        checker.report(d);
    }
}

/// Drops diagnostics that the same finding already produced (a base-config
/// value seen again from every stage): same code, file and span.
pub(crate) fn dedupe(diagnostics: &mut Vec<Diagnostic>, loader: &load::Loader) {
    dedupe_by(diagnostics, loader, |d| (d.rule.code, &d.file, &d.span));
}

/// `dedupe` for the infos a human report only counts.
pub(crate) fn dedupe_folded(folded: &mut Vec<crate::diagnostic::FoldedInfo>, loader: &load::Loader) {
    dedupe_by(folded, loader, |d| (d.rule.code, &d.file, &d.span));
}

/// Keeps the first of the findings with the same code, real file and span.
fn dedupe_by<T>(found: &mut Vec<T>, loader: &load::Loader, key: impl Fn(&T) -> (&'static str, &Arc<crate::source::SourceFile>, &crate::source::Span)) {
    use crate::source::SourceFile;
    // Each file is numbered once (not once per finding, nor kept per finding: a run of 80,000
    // files has about as many findings), by its real path's identity: the one its read found
    // (`SourceFile::identity`), else the path resolved here. Files with one identity are the
    // same file when their real paths are (a hash shared by two paths is told apart).
    let mut numbers: HashMap<u64, Vec<(usize, &Arc<SourceFile>)>> = HashMap::new();
    let mut of_file: HashMap<*const SourceFile, usize> = HashMap::new();
    let mut count = 0;
    let real = |file: &SourceFile| loader.canonical(file.path()).unwrap_or_else(|| file.path().to_path_buf());
    for d in found.iter() {
        let (_, file, _) = key(d);
        if of_file.contains_key(&Arc::as_ptr(file)) {
            continue;
        }
        let (identity, mut path) = match file.identity() {
            0 => {
                let path = real(file);
                (crate::source::identity_of(&path), Some(path))
            }
            known => (known, None),
        };
        let same = numbers.entry(identity).or_default();
        let number = match same.iter().find(|(_, other)| other.path() == file.path() || real(other) == *path.get_or_insert_with(|| real(file))) {
            Some((number, _)) => *number,
            None => {
                count += 1;
                same.push((count, file));
                count
            }
        };
        of_file.insert(Arc::as_ptr(file), number);
    }
    let mut seen: HashSet<(&'static str, usize, usize, usize)> = HashSet::with_capacity(found.len());
    found.retain(|d| {
        let (code, file, span) = key(d);
        seen.insert((code, of_file[&Arc::as_ptr(file)], span.start, span.end))
    });
}

/// One missing Hydra config, one error: the defaults entries of several files
/// that name the same missing config (SCH007 with the same message, which
/// names the file looked for) are reported once, at the first, with the
/// others as labels and their count in the message.
pub(crate) fn collapse_missing_configs(diagnostics: &mut Vec<Diagnostic>) {
    use crate::rules::Registered;
    let code = crate::rules::schema::missing_config::MissingConfig.id().meta().code;
    let mut groups: std::collections::HashMap<String, Vec<usize>> = std::collections::HashMap::new();
    for (i, d) in diagnostics.iter().enumerate() {
        if d.rule.code == code {
            groups.entry(d.message.clone()).or_default().push(i);
        }
    }
    let mut drop: HashSet<usize> = HashSet::new();
    for (_, mut members) in groups.into_iter().filter(|(_, m)| m.len() > 1) {
        members.sort_by(|a, b| diagnostics[*a].sort_key().cmp(&diagnostics[*b].sort_key()));
        let (first, others) = members.split_first().expect("a group has members");
        let labels: Vec<crate::diagnostic::Label> = others
            .iter()
            .map(|i| {
                let d = &diagnostics[*i];
                crate::diagnostic::Label { file: std::sync::Arc::clone(&d.file), span: d.span.clone(), message: "names the same missing config".to_owned() }
            })
            .collect();
        let names: Vec<String> = others.iter().map(|i| format!("`{}`", diagnostics[*i].file.display())).collect();
        let root = &mut diagnostics[*first];
        let (files, verb) = if others.len() == 1 { ("file", "names") } else { ("files", "name") };
        root.message = format!("{}; {} more {files} {verb} it", root.message, others.len());
        root.note = Some(format!("{}; one missing config, reported once: {} also {verb} it", root.note.clone().unwrap_or_default(), names.join(", ")));
        root.labels.extend(labels);
        drop.extend(others.iter().copied());
    }
    let mut index = 0;
    diagnostics.retain(|_| {
        index += 1;
        !drop.contains(&(index - 1))
    });
}

fn retain_not_ignored(diagnostics: &mut Vec<Diagnostic>, settings: &Settings) {
    if settings.per_file_ignores.is_empty() {
        return;
    }
    diagnostics.retain(|d| {
        let ignored = per_file_ignores(settings, d.file.path());
        !ignored.iter().any(|code| code == "ALL" || d.rule.code.starts_with(code.as_str()))
    });
}

/// The codes `per-file-ignores` (and `--per-file-ignores`, the `extend-` forms) silence
/// for a path: patterns are relative to the manifest's folder, and one without a `/`
/// matches a file name too, as ruff's per-file-ignores do.
fn per_file_ignores(settings: &Settings, path: &Path) -> Vec<String> {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let root = std::path::absolute(&settings.root).unwrap_or_else(|_| settings.root.clone());
    let relative = absolute.strip_prefix(&root).unwrap_or(&absolute);
    settings
        .per_file_ignores
        .iter()
        .filter(|(pattern, _)| matcher(pattern).is_some_and(|m| m.is_match(relative) || relative.file_name().is_some_and(|n| m.is_match(n))))
        .flat_map(|(_, codes)| codes.iter().map(|c| c.to_ascii_uppercase()))
        .collect()
}

fn matcher(pattern: &str) -> Option<GlobMatcher> {
    Glob::new(pattern).ok().map(|g| g.compile_matcher())
}
