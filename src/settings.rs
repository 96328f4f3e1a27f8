//! Settings for a run: the manifest (found by walking up from the checked
//! paths, as ruff finds `ruff.toml`), overridden by command-line options.

use crate::diagnostic::RuleMeta;
use crate::diagnostic::selection::{RuleSelection, Selectors};
use crate::error::FatalError;
use crate::gpus;
use crate::schema::manifest::{Curriculum, StageFiles};
use crate::schema::{GpuTarget, Manifest};
use globset::Glob;
use miette::NamedSource;
use serde::Deserialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Default for `safety-margin`: 1, the whole card. The estimate's band (the accuracy
/// measured for its kind of run, the caching allocator's reserve and the CUDA context,
/// `estimate::band`) is what leaves room for error; a flat 0.85 on top of an accurate
/// estimate made errors of runs that trained (issue 24). A team that wants headroom
/// beyond the measured band sets a smaller margin.
pub const DEFAULT_SAFETY_MARGIN: f64 = 1.0;

#[derive(Clone, Debug)]
pub struct Settings {
    pub manifest: Manifest,
    /// The manifest file, when there is one.
    pub manifest_path: Option<PathBuf>,
    /// Where relative patterns in the manifest start: the manifest's folder, or the working directory.
    pub root: PathBuf,
    /// What the paths settings were discovered for are (`discover::Named`): the walk reads it.
    pub(crate) named: crate::load::discover::Named,
    pub selection: RuleSelection,
    /// `--world-size`, else the manifest's `world-size`.
    pub world_size: Option<u32>,
    /// `world_size` came from `--world-size` (it wins over a launch script's world).
    pub world_size_from_command_line: bool,
    /// `--set KEY=VALUE`: values every checked config is resolved with, in memory
    /// (`resolve::resolve_tree` applies them; never written).
    pub sets: Vec<(String, String)>,
    /// Built-in and custom GPU targets.
    pub catalog: Vec<GpuTarget>,
    /// The targets selected by `--gpu` or the manifest's `gpus`.
    pub gpus: Vec<GpuTarget>,
    /// Canonical paths of the curriculum's stage files (resolved over their base, not alone).
    pub stage_files: Vec<PathBuf>,
    /// Selectors named on the command line (an unknown one is a usage error,
    /// not a manifest error).
    pub command_line_selectors: Vec<String>,
    /// The manifest's text, to point at an unknown selector in it.
    pub manifest_text: Option<String>,
    /// What building the settings found worth telling the user (the GPU `--gpu auto`
    /// matched); the command prints them. Building settings prints nothing.
    pub notes: Vec<String>,
    /// `auto` is among the wanted GPUs but no probe was passed in
    /// (`Overrides::gpu_probe`): the command should probe and build again.
    pub gpu_probe_wanted: bool,
    /// How the pipeline reads files: disk, fixed texts not yet written, or a
    /// baseline revision; the shell training command. Its memo lives as long as the run.
    pub loader: crate::load::Loader,
    /// Walking skips gitignored and hidden entries (`--no-respect-gitignore`, else the manifest's `respect-gitignore`, else true).
    pub respect_gitignore: bool,
    /// The human formats list every info (`--show-infos`, else the manifest's `show-infos`, else false).
    pub show_infos: bool,
    /// Patterns never walked: `--exclude`, else the manifest's `exclude`, else the
    /// defaults (`None`); relative to `root`.
    pub exclude: Option<Vec<String>>,
    /// The manifest's `extend-exclude` and `--extend-exclude`.
    pub extend_exclude: Vec<String>,
    /// Codes ignored per pattern (relative to `root`): `--per-file-ignores`, else the
    /// manifest's `per-file-ignores`; then its `extend-per-file-ignores` and `--extend-per-file-ignores`.
    pub per_file_ignores: Vec<(String, Vec<String>)>,
    /// The report folds infos into counts (a human format without `show_infos`), so a linted
    /// file's infos keep only what the counts read (code, severity, message, label, position) and
    /// not the file's text: memory then grows with the findings shown, not with the files.
    pub shed_folded_infos: bool,
}

/// Command-line values that override the manifest.
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    pub config: Option<PathBuf>,
    pub select: Option<Vec<String>>,
    pub extend_select: Vec<String>,
    /// `--ignore` and `--extend-ignore` (one list, as ruff).
    pub ignore: Vec<String>,
    /// The rules a subcommand runs (`migrate`: MIG), in place of the manifest's
    /// `select` and `extend-select`; the manifest's ignores still apply.
    pub command_rules: Option<Vec<String>>,
    pub world_size: Option<u32>,
    /// `--set KEY=VALUE`, in order.
    pub sets: Vec<(String, String)>,
    pub gpus: Vec<String>,
    /// `check --stage NAME`: only what that curriculum stage needs.
    pub stage: Option<String>,
    /// The local GPU as the command layer probed it (`gpus::probe`), for a
    /// wanted `auto` target. Settings never run the probe themselves.
    pub gpu_probe: Option<Result<gpus::ProbedGpu, gpus::DetectError>>,
    /// The user allows the manifest's `gpus = ["auto"]` to probe
    /// (`TRAINLINT_GPU_PROBE=1`, read by the command layer). Without it only
    /// `--gpu auto` on the command line probes: a cloned repository's
    /// manifest never makes `check` run a program.
    pub gpu_probe_opt_in: bool,
    /// `--respect-gitignore` / `--no-respect-gitignore`.
    pub respect_gitignore: Option<bool>,
    /// `--show-infos`.
    pub show_infos: Option<bool>,
    /// `--isolated`: no manifest is read (ruff's `--isolated`); only the command line counts.
    pub isolated: bool,
    /// `--exclude`: replaces the manifest's `exclude` and the defaults.
    pub exclude: Option<Vec<String>>,
    /// `--extend-exclude`: on top of the manifest's.
    pub extend_exclude: Vec<String>,
    /// `--per-file-ignores`: replaces the manifest's `per-file-ignores`.
    pub per_file_ignores: Option<Vec<(String, Vec<String>)>>,
    /// `--extend-per-file-ignores`: on top of the manifest's.
    pub extend_per_file_ignores: Vec<(String, Vec<String>)>,
    /// Set by `check` when its report folds infos (`Settings::shed_folded_infos`).
    pub report_folds_infos: bool,
}

impl Settings {
    /// Finds and reads the manifest for `paths`, then applies `overrides`.
    /// Starts a run: `nearest_manifest`'s answers of an earlier run are dropped.
    pub fn discover(paths: &[PathBuf], overrides: &Overrides) -> Result<Settings, FatalError> {
        manifests().clear();
        let found = match &overrides.config {
            Some(path) => Some(read_manifest(path, ManifestKind::from_path(path))?),
            None if overrides.isolated => None,
            None => find_manifest(paths)?,
        };
        Settings::from_found(found, overrides, paths)
    }

    /// Settings from a given manifest file (or none), with `overrides` applied.
    pub fn from_manifest(path: Option<&Path>, overrides: &Overrides) -> Result<Settings, FatalError> {
        let found = match path {
            Some(path) if !overrides.isolated || overrides.config.is_some() => Some(read_manifest(path, ManifestKind::from_path(path))?),
            _ => None,
        };
        Settings::from_found(found, overrides, &[])
    }

    fn from_found(found: Option<(Manifest, PathBuf, String)>, overrides: &Overrides, paths: &[PathBuf]) -> Result<Settings, FatalError> {
        let (manifest, manifest_path, manifest_text) = match found {
            Some((manifest, path, text)) => (manifest, Some(path), Some(text)),
            None => (Manifest::default(), None, None),
        };
        let root = match &manifest_path {
            Some(path) => path.parent().map(Path::to_path_buf).unwrap_or_default(),
            None => PathBuf::from("."),
        };
        let manifest_error = |message: String, needle: Option<&str>, help: Option<String>| {
            manifest_error(manifest_path.as_deref(), manifest_text.as_deref(), message, needle, help)
        };

        // The manifest's layer, then the command line's, composed as ruff composes them (`RuleSelection::layered`).
        let manifest_ignore: Vec<String> = manifest.ignore.iter().chain(&manifest.extend_ignore).cloned().collect();
        let mut layers = vec![match &overrides.command_rules {
            Some(rules) => Selectors { select: Some(rules), extend_select: &[], ignore: &manifest_ignore },
            None => Selectors { select: manifest.select.as_deref(), extend_select: &manifest.extend_select, ignore: &manifest_ignore },
        }];
        if overrides.select.is_some() || !overrides.extend_select.is_empty() || !overrides.ignore.is_empty() {
            layers.push(Selectors { select: overrides.select.as_deref(), extend_select: &overrides.extend_select, ignore: &overrides.ignore });
        }
        let selection = RuleSelection::layered(&layers).with_severities(&manifest.severity);

        let catalog = gpus::catalog(&manifest.gpu);
        let wanted = if overrides.gpus.is_empty() { &manifest.gpus } else { &overrides.gpus };
        let mut gpus = Vec::new();
        let mut catalog = catalog;
        let mut notes = Vec::new();
        let mut gpu_probe_wanted = false;
        for id in wanted {
            if id == "auto" {
                if overrides.gpus.is_empty() && !overrides.gpu_probe_opt_in && overrides.gpu_probe.is_none() {
                    notes.push(
                        "the manifest's `gpus` lists `auto`, which is not probed unless you ask: pass `--gpu auto`, or set TRAINLINT_GPU_PROBE=1 to let the manifest probe; checked without it"
                            .to_owned(),
                    );
                    continue;
                }
                let Some(probe) = &overrides.gpu_probe else {
                    gpu_probe_wanted = true;
                    continue;
                };
                let probed = probe.as_ref().map_err(|e| {
                    FatalError::usage(
                        format!("--gpu auto: {}", e.0),
                        Some("pass a target id instead (`trainlint gpus` lists them), or check nvidia-smi / rocm-smi and CUDA_VISIBLE_DEVICES".to_owned()),
                    )
                })?;
                let (target, note) = gpus::match_name(&probed.name, probed.memory_mib, &catalog);
                notes.push(note);
                if !catalog.iter().any(|t| t.id == target.id) {
                    catalog.push(target.clone());
                }
                gpus.push(target);
                continue;
            }
            match catalog.iter().find(|t| t.id == *id) {
                Some(target) => gpus.push(target.clone()),
                None => {
                    let ids: Vec<String> = catalog.iter().map(|t| t.id.clone()).collect();
                    let suggestion = crate::diagnostic::suggest::suggest(id, &ids).map(|s| format!("did you mean `{s}`? "));
                    let help =
                        Some(format!("{}`trainlint gpus` lists the known targets; add others as `[[gpu]]` in the manifest", suggestion.unwrap_or_default()));
                    let message = format!("unknown GPU target `{id}`");
                    return Err(if overrides.gpus.is_empty() { manifest_error(message, Some(id), help) } else { FatalError::usage(message, help) });
                }
            }
        }

        let names: Vec<&str> = crate::dialects::ALL.iter().map(|d| d.name()).collect();
        for (pattern, dialect) in &manifest.dialects {
            if !names.contains(&dialect.as_str()) {
                return Err(manifest_error(
                    format!("unknown dialect `{dialect}` for `{pattern}`"),
                    Some(dialect),
                    Some(format!("the dialects are: {}", names.join(", "))),
                ));
            }
        }
        // Besides the dialects, the libraries whose version a rule or the memory model asks about
        // (`resolve::versions::at_least_of`): TRL (BAT010), bitsandbytes (the 4-bit matmul's saved input),
        // PyTorch (MIG006).
        const LIBRARIES: [&str; 3] = ["trl", "bitsandbytes", "torch"];
        for (framework, version) in &manifest.frameworks {
            if !names.contains(&framework.as_str()) && !LIBRARIES.contains(&framework.as_str()) {
                return Err(manifest_error(
                    format!("unknown framework `{framework}` in `[frameworks]`"),
                    Some(framework),
                    Some(format!("the names are the dialects': {}; and the libraries {}", names.join(", "), LIBRARIES.join(", "))),
                ));
            }
            if let Err(reason) = version.parse::<crate::schema::version::Version>() {
                return Err(manifest_error(format!("`[frameworks] {framework}`: {reason}"), Some(version), None));
            }
        }
        for pattern in manifest
            .per_file_ignores
            .keys()
            .chain(manifest.extend_per_file_ignores.keys())
            .chain(manifest.exclude.iter().flatten())
            .chain(&manifest.extend_exclude)
            .chain(manifest.dialects.keys())
        {
            if let Err(error) = globset::Glob::new(pattern) {
                return Err(manifest_error(format!("invalid glob pattern `{pattern}`: {error}"), Some(pattern), None));
            }
        }
        let command_line_patterns = overrides.exclude.iter().flatten().chain(&overrides.extend_exclude);
        let command_line_patterns =
            command_line_patterns.chain(overrides.per_file_ignores.iter().flatten().chain(&overrides.extend_per_file_ignores).map(|(pattern, _)| pattern));
        for pattern in command_line_patterns {
            if let Err(error) = globset::Glob::new(pattern) {
                return Err(FatalError::usage(format!("invalid glob pattern `{pattern}`: {error}"), None));
            }
        }
        // ruff's composition ("exclude", "per-file-ignores" in ruff's settings docs): the command
        // line's `--exclude` / `--per-file-ignores` replace the manifest's list, the `extend-` forms add to it.
        let exclude = overrides.exclude.clone().or_else(|| manifest.exclude.clone());
        let extend_exclude: Vec<String> = manifest.extend_exclude.iter().chain(&overrides.extend_exclude).cloned().collect();
        let per_file_ignores: Vec<(String, Vec<String>)> = match &overrides.per_file_ignores {
            Some(list) => list.clone(),
            None => manifest.per_file_ignores.iter().map(|(p, c)| (p.clone(), c.clone())).collect(),
        }
        .into_iter()
        .chain(manifest.extend_per_file_ignores.iter().map(|(p, c)| (p.clone(), c.clone())))
        .chain(overrides.extend_per_file_ignores.iter().cloned())
        .collect();

        let (manifest_respect_gitignore, manifest_show_infos) = (manifest.respect_gitignore, manifest.show_infos);
        let mut settings = Settings {
            world_size: overrides.world_size.or(manifest.world_size),
            world_size_from_command_line: overrides.world_size.is_some(),
            sets: overrides.sets.clone(),
            manifest,
            manifest_path,
            root,
            named: Default::default(),
            selection,
            command_line_selectors: overrides
                .select
                .iter()
                .flatten()
                .chain(&overrides.extend_select)
                .chain(&overrides.ignore)
                .chain(overrides.per_file_ignores.iter().flatten().chain(&overrides.extend_per_file_ignores).flat_map(|(_, codes)| codes))
                .cloned()
                .collect(),
            manifest_text,
            catalog,
            gpus,
            stage_files: Vec::new(),
            notes,
            gpu_probe_wanted,
            loader: crate::load::Loader::disk(),
            respect_gitignore: overrides.respect_gitignore.or(manifest_respect_gitignore).unwrap_or(true),
            show_infos: overrides.show_infos.or(manifest_show_infos).unwrap_or(false),
            shed_folded_infos: false,
            exclude,
            extend_exclude,
            per_file_ignores,
        };
        // Not with `--stage`: which findings are the stage's reads each one's stage.
        settings.shed_folded_infos = overrides.report_folds_infos && !settings.show_infos && overrides.stage.is_none();
        let (roots, named) = project_roots(settings.manifest_path.as_deref(), paths);
        settings.named = named;
        settings.loader = settings.loader.with_shell_command(settings.manifest.shell.as_ref().and_then(|s| s.command.clone())).with_canonical_roots(&roots);
        for pair in &settings.manifest.pair {
            inside_project(&settings, &pair.deepspeed, "`[[pair]]` file")?;
            inside_project(&settings, &pair.with, "`[[pair]]` file")?;
            for file in [&pair.deepspeed, &pair.with] {
                // A FIFO or a device named as a pair is refused here, never read.
                settings.loader.check_readable(&settings.root.join(file)).map_err(|e| FatalError::Io { path: file.clone(), reason: e.to_string() })?;
            }
        }
        if let Some(curriculum) = &settings.manifest.curriculum {
            let stages = stage_paths(curriculum, &settings)?;
            let named = [Some(&curriculum.base), curriculum.stage_defaults.as_ref()];
            for path in stages.iter().map(|(path, _)| path.clone()).chain(named.into_iter().flatten().map(|f| settings.root.join(f))) {
                // A FIFO or a device named as a curriculum file is refused here, never read.
                settings.loader.check_readable(&path).map_err(|e| FatalError::Io { path: path.display().to_string(), reason: e.to_string() })?;
            }
            settings.stage_files = stages.iter().filter_map(|(path, _)| settings.loader.canonical(path)).collect();
        }
        Ok(settings)
    }

    /// Whether `path` is one of the curriculum's stage files.
    pub(crate) fn is_stage_file(&self, path: &Path) -> bool {
        !self.stage_files.is_empty() && self.loader.canonical(path).is_some_and(|p| self.stage_files.contains(&p))
    }

    /// Every selector and severity key must select a rule of `rules` (the
    /// registry, which the command layer passes in): an unknown one is a usage
    /// error, pointed at in the manifest when it comes from there.
    pub(crate) fn check_selectors(&self, rules: &[&RuleMeta]) -> Result<(), FatalError> {
        // A per-file ignore names codes or prefixes as a selector does (ruff refuses an unknown one too).
        let per_file = self.per_file_ignores.iter().flat_map(|(_, codes)| codes).find(|code| {
            let code = code.to_ascii_uppercase();
            code != "ALL" && !rules.iter().any(|r| r.code.starts_with(code.as_str()))
        });
        let Some(unknown) = self.selection.unknown(rules).or(per_file.map(String::as_str)) else { return Ok(()) };
        let help = Some("selectors are rule codes or prefixes (`SCH`, `SCH003`) or `ALL`; `trainlint rule --all` lists the codes".to_owned());
        let message = format!("`{unknown}` selects no rule");
        if self.command_line_selectors.iter().any(|s| s.eq_ignore_ascii_case(unknown)) {
            return Err(FatalError::usage(message, help));
        }
        let needle = self.manifest_text.as_deref().and_then(|text| find_case_insensitive(text, unknown));
        Err(manifest_error(self.manifest_path.as_deref(), self.manifest_text.as_deref(), message, needle.as_deref(), help))
    }

    /// The manifest's `[memory]` facts must not be less than nothing (`bytes = "-1000 GiB"`,
    /// a negative `cuda_context_mib`): an invalid manifest, exit 2, the value underlined —
    /// never a negative peak and a MEM003 "fix". `bytes_of` evaluates a term or quantity that
    /// names no config value (`estimate::expr`, which the command layer passes in, as it passes
    /// the rule registry to `check_selectors`); `None` for one that does, judged when it is
    /// evaluated (`user_terms`).
    pub(crate) fn check_memory(&self, bytes_of: impl Fn(&str) -> Option<f64>) -> Result<(), FatalError> {
        let Some(memory) = &self.manifest.memory else { return Ok(()) };
        let bad = |v: f64| !(v.is_finite() && v >= 0.0);
        let problem = if let Some(mib) = memory.cuda_context_mib.filter(|v| bad(*v)) {
            Some((format!("`cuda_context_mib` is {mib}: it must be a finite number of MiB, zero or more"), None))
        } else if let Some(text) = &memory.activation_bytes_per_sample
            && let Some(bytes) = bytes_of(text).filter(|b| bad(*b))
        {
            Some((format!("`activation_bytes_per_sample` `{text}` is {bytes} bytes: it must be zero or more"), Some(text.as_str())))
        } else {
            memory.terms.iter().find_map(|term| {
                let bytes = bytes_of(&term.bytes).filter(|b| bad(*b))?;
                Some((
                    format!("memory term `{}` is `{}` = {bytes} bytes: a memory term must be zero or more", term.name, term.bytes),
                    Some(term.bytes.as_str()),
                ))
            })
        };
        let Some((message, needle)) = problem else { return Ok(()) };
        let help = Some("a memory term is memory the run takes: a number of bytes, zero or more (`trainlint schema manifest`)".to_owned());
        Err(manifest_error(self.manifest_path.as_deref(), self.manifest_text.as_deref(), message, needle, help))
    }

    pub(crate) fn safety_margin(&self) -> f64 {
        self.manifest.safety_margin.unwrap_or(DEFAULT_SAFETY_MARGIN)
    }
}

/// An error about the manifest, pointing at `"needle"` in its text when found.
fn manifest_error(path: Option<&Path>, text: Option<&str>, message: String, needle: Option<&str>, help: Option<String>) -> FatalError {
    match (path, text) {
        (Some(path), Some(text)) => FatalError::Manifest(Box::new(crate::error::ManifestError {
            path: path.display().to_string(),
            span: needle.and_then(|n| text.find(&format!("\"{n}\""))).map(|start| (start, needle.map_or(0, str::len) + 2).into()),
            source_code: NamedSource::new(path.display().to_string(), text.to_owned()),
            message,
            help,
        })),
        _ => FatalError::usage(message, help),
    }
}

/// The selector as the manifest spells it (selectors are matched case-insensitively).
fn find_case_insensitive(text: &str, selector: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    let at = lower.find(&format!("\"{}\"", selector.to_ascii_lowercase()))?;
    text.get(at + 1..at + 1 + selector.len()).map(str::to_owned)
}

/// The folders everything a run reads must stay under (`Loader::with_roots`):
/// the manifest's folder, and each checked path (a folder, or a file's folder;
/// canonical, so a link to a file outside does not widen them); without a
/// manifest, the git work tree around a checked path instead, when there is
/// one. Without a manifest and paths: none (the caller adds its own, as
/// `check` does for the files of a nested manifest).
pub(crate) fn project_roots(manifest: Option<&Path>, paths: &[PathBuf]) -> (Vec<PathBuf>, crate::load::discover::Named) {
    let mut roots = Vec::new();
    if let Some(manifest) = manifest {
        let dir = manifest.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        roots.extend(std::fs::canonicalize(dir).ok());
    }
    // Each path is looked at once (`stat`, kept for the walk), each folder resolved once, and
    // each folder above it looked at once for `.git`: pre-commit names hundreds of files in a
    // few folders. (On all cores it took longer: the calls are the kernel's path walks.)
    let mut by_folder: HashMap<&Path, Option<PathBuf>> = HashMap::new();
    let mut has_git: HashMap<PathBuf, bool> = HashMap::new();
    let mut folders = HashMap::new();
    let mut seen = HashMap::with_capacity(paths.len());
    for path in paths {
        let kind = std::fs::metadata(path).map(|m| crate::load::discover::Kind::of(&m));
        // A file's folder, not its link's target: a checked link to a file outside is refused as any other.
        let dir = if matches!(kind, Ok(crate::load::discover::Kind::Folder)) {
            path.as_path()
        } else {
            path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."))
        };
        if let Ok(kind) = kind {
            seen.insert(path.clone(), kind);
        }
        let root = by_folder.entry(dir).or_insert_with(|| {
            let dir = crate::load::loader::canonical_folder_cached(dir, &mut folders)?;
            // Without a manifest, a checked file's project is its git work tree, when
            // it has one: pre-commit passes single files, whose Hydra primary sits
            // in a folder above them.
            let repository = if manifest.is_none() {
                dir.ancestors().find(|d| *has_git.entry(d.to_path_buf()).or_insert_with(|| d.join(".git").exists())).map(Path::to_path_buf)
            } else {
                None
            };
            Some(repository.unwrap_or(dir))
        });
        roots.extend(root.clone());
    }
    (roots, crate::load::discover::Named::new(seen))
}

#[derive(Clone, Copy)]
enum ManifestKind {
    Trainlint,
    Pyproject,
}

impl ManifestKind {
    fn from_path(path: &Path) -> Self {
        if path.file_name().is_some_and(|n| n == "pyproject.toml") { ManifestKind::Pyproject } else { ManifestKind::Trainlint }
    }
}

/// Walks up from the first path (or the working directory) to the first
/// `trainlint.toml`, or `pyproject.toml` with a `[tool.trainlint]` table.
fn find_manifest(paths: &[PathBuf]) -> Result<Option<(Manifest, PathBuf, String)>, FatalError> {
    let start = paths.first().cloned().unwrap_or_else(|| PathBuf::from("."));
    let start = std::path::absolute(&start).unwrap_or(start);
    let dir = if start.is_dir() { start.as_path() } else { start.parent().unwrap_or(Path::new("/")) };
    match nearest_manifest(dir) {
        Some(path) => read_manifest(&path, ManifestKind::from_path(&path)).map(Some),
        None => Ok(None),
    }
}

/// The manifest that governs files in `dir`: the nearest `trainlint.toml`, or
/// `pyproject.toml` with a `[tool.trainlint]` table, in `dir` or above (as ruff
/// finds the nearest configuration for each file), up to the root of the git work
/// tree `dir` is in, never above it.
///
/// Answers are kept per folder for the run (`MANIFESTS`, emptied by each
/// `Settings::discover`): every folder walked on the way up is answered
/// once, so the files of sibling folders do not look for the same missing
/// `trainlint.toml` and re-read the same `pyproject.toml` above them.
pub(crate) fn nearest_manifest(dir: &Path) -> Option<PathBuf> {
    let mut absolute = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    // `Path::parent` is lexical: from `repo/../other` it steps to `repo`, whose manifest does not
    // govern `other`. A folder named through `..` is walked up from where it really is.
    if absolute.components().any(|c| c == std::path::Component::ParentDir)
        && let Ok(real) = std::fs::canonicalize(&absolute)
    {
        absolute = real;
    }
    let mut walked: Vec<&Path> = Vec::new();
    let mut found = None;
    let mut current = Some(absolute.as_path());
    while let Some(dir) = current {
        if let Some(known) = manifests().get(dir) {
            found = known.clone();
            break;
        }
        walked.push(dir);
        if let Some(manifest) = manifest_in(dir) {
            found = Some(manifest);
            break;
        }
        // The git work tree's root is the last folder looked in: a manifest above it (a home
        // folder's, a parent checkout's) would widen the project past the repository (issue 26,
        // item 6). `.git` is a folder in a work tree, a file in a worktree or a submodule.
        if dir.join(".git").exists() {
            break;
        }
        current = dir.parent();
    }
    let mut cache = manifests();
    for dir in walked {
        cache.insert(dir.to_path_buf(), found.clone());
    }
    found
}

/// The manifest in `dir` itself, if any (`trainlint.toml` first).
fn manifest_in(dir: &Path) -> Option<PathBuf> {
    let candidate = dir.join("trainlint.toml");
    if candidate.is_file() {
        return Some(candidate);
    }
    let pyproject = dir.join("pyproject.toml");
    if pyproject.is_file() && std::fs::read_to_string(&pyproject).is_ok_and(|text| text.contains("[tool.trainlint")) {
        return Some(pyproject);
    }
    None
}

/// `nearest_manifest`'s answers for the run, by absolute folder.
static MANIFESTS: std::sync::LazyLock<std::sync::Mutex<HashMap<PathBuf, Option<PathBuf>>>> = std::sync::LazyLock::new(Default::default);

fn manifests() -> std::sync::MutexGuard<'static, HashMap<PathBuf, Option<PathBuf>>> {
    MANIFESTS.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[derive(Deserialize)]
struct Pyproject {
    #[serde(default)]
    tool: Option<PyprojectTools>,
}

#[derive(Deserialize)]
struct PyprojectTools {
    #[serde(default)]
    trainlint: Option<Manifest>,
}

fn read_manifest(path: &Path, kind: ManifestKind) -> Result<(Manifest, PathBuf, String), FatalError> {
    let text = std::fs::read_to_string(path).map_err(|e| FatalError::Io { path: path.display().to_string(), reason: e.to_string() })?;
    let parsed = match kind {
        ManifestKind::Trainlint => toml::from_str::<Manifest>(&text),
        ManifestKind::Pyproject => toml::from_str::<Pyproject>(&text).map(|p| p.tool.and_then(|t| t.trainlint).unwrap_or_default()),
    };
    match parsed {
        Ok(manifest) => Ok((manifest, path.to_path_buf(), text)),
        Err(error) => Err(FatalError::Manifest(Box::new(crate::error::ManifestError {
            path: path.display().to_string(),
            message: error.message().trim().to_owned(),
            span: error.span().map(Into::into),
            source_code: NamedSource::new(path.display().to_string(), text),
            help: Some("`trainlint schema manifest` describes every field".to_owned()),
        }))),
    }
}

/// The stage files the manifest names, in order, with their display paths.
pub(crate) fn stage_paths(curriculum: &Curriculum, settings: &Settings) -> Result<Vec<(PathBuf, String)>, FatalError> {
    let files = match &curriculum.stages {
        StageFiles::List(list) => list.clone(),
        StageFiles::Glob(pattern) => {
            let (dir, name) = match pattern.rsplit_once('/') {
                Some((dir, name)) => (dir.to_owned(), name.to_owned()),
                None => (String::new(), pattern.clone()),
            };
            let matcher =
                Glob::new(&name).map_err(|e| FatalError::usage(format!("invalid curriculum stage pattern `{pattern}`: {e}"), None))?.compile_matcher();
            // The folder is judged before it is listed (nothing outside the project is listed).
            if !dir.is_empty() {
                inside_project(settings, &dir, "curriculum stage folder")?;
            }
            let read = settings
                .loader
                .list(&settings.root.join(&dir))
                .map_err(|e| FatalError::Io { path: settings.root.join(&dir).display().to_string(), reason: e.to_string() })?;
            // Sorted by the loader.
            let names: Vec<String> = read.into_iter().map(|e| e.name).filter(|n| matcher.is_match(n)).collect();
            if names.is_empty() {
                // As a listed stage file that is missing: exit 2, never a curriculum of no stages.
                let folder = if dir.is_empty() { ".".to_owned() } else { dir.clone() };
                return Err(manifest_error(
                    settings.manifest_path.as_deref(),
                    settings.manifest_text.as_deref(),
                    format!("the curriculum stage pattern `{pattern}` matches no file in `{folder}`"),
                    Some(pattern),
                    Some("check the pattern and the folder (paths are relative to the manifest), or list the stage files".to_owned()),
                ));
            }
            names.into_iter().map(|n| if dir.is_empty() { n } else { format!("{dir}/{n}") }).collect()
        }
    };
    for file in &files {
        inside_project(settings, file, "curriculum file")?;
    }
    Ok(files.into_iter().map(|f| (settings.root.join(&f), display(&settings.root, &f))).collect())
}

/// A file the manifest names (a curriculum file, a `[[pair]]` file) must stay
/// inside the project (the manifest's folder, and the paths checked): a path that climbs out
/// (`../../etc/passwd`), an absolute path elsewhere, or a link whose target is
/// outside is refused. The path is canonicalised (links resolved), then
/// compared with the canonical folder; a file that does not exist yet is
/// judged by its folder.
pub(crate) fn inside_project(settings: &Settings, relative: &str, what: &str) -> Result<(), FatalError> {
    let path = Path::new(relative);
    let joined = settings.root.join(path);
    let own = settings.loader.canonical(&settings.root).or_else(|| std::path::absolute(&settings.root).ok()).unwrap_or_else(|| settings.root.clone());
    // The loader's roots: the manifest's folder and the checked paths.
    let roots: Vec<PathBuf> = if settings.loader.roots().is_empty() { vec![own] } else { settings.loader.roots().to_vec() };
    let resolved = settings.loader.canonical(&joined).or_else(|| {
        Some(settings.loader.canonical(joined.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new(".")))?.join(joined.file_name()?))
    });
    let outside = match resolved {
        Some(target) => !roots.iter().any(|root| target.starts_with(root)),
        // Nothing of it exists: judged by its text.
        None => path.is_absolute() || path.components().any(|c| c == std::path::Component::ParentDir),
    };
    if outside {
        return Err(FatalError::usage(
            format!(
                "the {what} `{relative}` is outside the project folder `{}`",
                roots.iter().map(|r| r.display().to_string()).collect::<Vec<_>>().join("`, `")
            ),
            Some(
                "paths in the manifest are relative to it and stay inside its folder (links resolved); trainlint reads nothing outside the project".to_owned(),
            ),
        ));
    }
    Ok(())
}

/// A manifest-relative path as output shows it: relative to the working directory when below it.
pub(crate) fn display(root: &Path, relative: &str) -> String {
    let joined = root.join(relative);
    let shown = std::env::current_dir().ok().and_then(|cwd| joined.strip_prefix(&cwd).ok().map(Path::to_path_buf)).unwrap_or(joined);
    let text = shown.display().to_string();
    text.strip_prefix("./").map(str::to_owned).unwrap_or(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn auto(probe: Option<Result<gpus::ProbedGpu, gpus::DetectError>>) -> Result<Settings, FatalError> {
        Settings::from_manifest(None, &Overrides { gpus: vec!["auto".into()], gpu_probe: probe, ..Overrides::default() })
    }

    #[test]
    fn gpu_auto_is_passed_in_never_probed_here() {
        // No probe given: nothing is run, the settings say a probe is wanted.
        let settings = auto(None).unwrap();
        assert!(settings.gpu_probe_wanted && settings.gpus.is_empty() && settings.notes.is_empty());
        // A probe given: matched against the catalog, the note kept as a value.
        let settings = auto(Some(Ok(gpus::ProbedGpu { name: "NVIDIA GeForce RTX 4090".into(), memory_mib: 24564 }))).unwrap();
        assert!(!settings.gpu_probe_wanted);
        assert_eq!(settings.gpus.iter().map(|g| g.id.as_str()).collect::<Vec<_>>(), ["rtx-4090"]);
        assert_eq!(settings.notes.len(), 1);
        assert!(settings.notes[0].contains("detected `NVIDIA GeForce RTX 4090` with 24564 MiB"), "{:?}", settings.notes);
        // A failed probe is a usage error when `auto` is wanted, and nothing when it is not.
        let error = auto(Some(Err(gpus::DetectError("nvidia-smi failed: x".into())))).unwrap_err();
        assert!(error.to_string().contains("--gpu auto: nvidia-smi failed"), "{error}");
        let plain = Settings::from_manifest(None, &Overrides { gpu_probe: Some(Err(gpus::DetectError("x".into()))), ..Overrides::default() }).unwrap();
        assert!(plain.notes.is_empty() && !plain.gpu_probe_wanted);
    }
}
