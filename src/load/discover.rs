//! Which files a run checks: explicit files as given, folders walked for
//! `.yaml`, `.yml` and `.json` (and `.sh` when the manifest describes its
//! flags, and `.toml` files that look like torchtitan configs), minus excluded patterns, gitignored files and hidden entries — as
//! ruff walks a project (`respect-gitignore`, `exclude`, `extend-exclude`).

use super::Format;
use crate::error::FatalError;
use globset::{Glob, GlobSet, GlobSetBuilder};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Folders (and files) never walked unless `exclude` replaces this list:
/// ruff's defaults for version control, virtual environments and caches, plus
/// the trees ML runs write (their configs are copies of a run's config, not
/// sources): Hydra's `outputs/` and `multirun/` (with `.hydra/`), Weights &
/// Biases' `wandb/`, Lightning's `lightning_logs/`, MLflow's `mlruns/`; CI
/// and editor folders (`.github`, `.gitlab`, `.vscode`, `.idea`, `.devcontainer`)
/// whose YAML/JSON are workflows and editor settings; build outputs.
pub const DEFAULT_EXCLUDE: [&str; 34] = [
    ".bzr",
    ".direnv",
    ".eggs",
    ".git",
    ".hg",
    ".jj",
    ".svn",
    ".nox",
    ".tox",
    ".venv",
    "venv",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    "__pycache__",
    "__pypackages__",
    ".ipynb_checkpoints",
    "node_modules",
    "site-packages",
    "target",
    "build",
    "dist",
    ".github",
    ".gitlab",
    ".vscode",
    ".idea",
    ".devcontainer",
    "outputs",
    "multirun",
    ".hydra",
    "wandb",
    "lightning_logs",
    "mlruns",
    ".trainlint_cache",
];

#[derive(Clone, Debug)]
pub struct SourcePath {
    pub path: PathBuf,
    /// The path as output shows it: as given on the command line, or below a given folder.
    pub display: String,
    pub format: Format,
    /// Named on the command line (always checked, recognised or not), rather
    /// than found by walking a folder (checked only when recognised as a training config).
    pub explicit: bool,
}

#[derive(Clone)]
pub struct Excludes {
    root: PathBuf,
    set: GlobSet,
}

impl Excludes {
    pub fn new(root: &Path, exclude: Option<&[String]>, extend_exclude: &[String]) -> Result<Self, FatalError> {
        let defaults: Vec<String> = DEFAULT_EXCLUDE.iter().map(|s| (*s).to_owned()).collect();
        let mut builder = GlobSetBuilder::new();
        for pattern in exclude.unwrap_or(&defaults).iter().chain(extend_exclude) {
            let glob = Glob::new(pattern.trim_end_matches('/')).map_err(|e| FatalError::usage(format!("invalid exclude pattern `{pattern}`: {e}"), None))?;
            builder.add(glob);
        }
        let set = builder.build().map_err(|e| FatalError::usage(format!("invalid exclude patterns: {e}"), None))?;
        Ok(Excludes { root: std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf()), set })
    }

    /// A pattern matches the path relative to the manifest, or any one of its components.
    pub(crate) fn is_excluded(&self, path: &Path) -> bool {
        let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        let relative = absolute.strip_prefix(&self.root).unwrap_or(&absolute);
        self.set.is_match(relative) || relative.components().any(|c| self.set.is_match(c.as_os_str()))
    }

    /// `is_excluded` for an entry found by walking the folder `walked`: a
    /// pattern matches the path relative to the manifest, or one of the
    /// components below `walked` — a folder named on the command line is
    /// walked even when it is itself excluded (`trainlint check outputs/run-1`), as ruff does.
    fn is_excluded_below(&self, absolute: &Path, walked: &Path) -> bool {
        let relative = absolute.strip_prefix(&self.root).unwrap_or(absolute);
        let below = absolute.strip_prefix(walked).unwrap_or(relative);
        self.set.is_match(relative) || below.components().any(|c| self.set.is_match(c.as_os_str()))
    }
}

/// How folders are walked.
#[derive(Clone)]
pub struct Walk {
    pub excludes: Excludes,
    /// Apply the excludes to files named on the command line too (`--force-exclude`).
    pub force_exclude: bool,
    /// Walk `.sh` scripts too (the manifest describes their flags).
    pub shell: bool,
    /// Skip what `.gitignore`, `.ignore`, `.git/info/exclude` and the global
    /// git excludes ignore, and hidden files and folders (`respect-gitignore`, default true).
    pub respect_gitignore: bool,
    /// Files whose text is in memory (`check -` with `--stdin-filename`): named
    /// explicitly, checked even when nothing exists at that path on disk.
    pub in_memory: Vec<PathBuf>,
    /// What settings discovery found the named paths to be (`Named`).
    pub named: Named,
}

/// What `stat` (links followed) said of each path named on the command line, asked once per run:
/// settings discovery places the project roots by it (`settings::project_roots`) and the walk
/// reads it, instead of asking again for each of the hundreds of files pre-commit names.
/// A path it does not hold is looked at when asked.
#[derive(Clone, Debug, Default)]
pub struct Named(Arc<std::collections::HashMap<PathBuf, Kind>>);

/// What a path names, links followed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    File,
    Folder,
    /// A FIFO, a device, a socket.
    Other,
}

impl Kind {
    pub(crate) fn of(metadata: &std::fs::Metadata) -> Kind {
        if metadata.is_file() {
            Kind::File
        } else if metadata.is_dir() {
            Kind::Folder
        } else {
            Kind::Other
        }
    }
}

impl Named {
    pub(crate) fn new(seen: std::collections::HashMap<PathBuf, Kind>) -> Named {
        Named(Arc::new(seen))
    }

    /// What `std::fs::metadata(path)` says `path` is, from what was seen when there is an answer.
    pub(crate) fn kind(&self, path: &Path) -> std::io::Result<Kind> {
        match self.0.get(path) {
            Some(kind) => Ok(*kind),
            None => std::fs::metadata(path).map(|m| Kind::of(&m)),
        }
    }
}

impl Walk {
    pub fn new(excludes: Excludes) -> Self {
        Walk { excludes, force_exclude: false, shell: false, respect_gitignore: true, in_memory: Vec::new(), named: Named::default() }
    }
}

/// Expands the command-line paths into the files to check, in a stable order.
/// An explicit file is checked even when excluded, unless `force_exclude`.
pub fn discover(paths: &[PathBuf], excludes: &Excludes, force_exclude: bool) -> Result<Vec<SourcePath>, FatalError> {
    walk(paths, &Walk { force_exclude, ..Walk::new(excludes.clone()) })
}

/// `discover` with every walking option.
pub fn walk(paths: &[PathBuf], options: &Walk) -> Result<Vec<SourcePath>, FatalError> {
    let mut files = Vec::new();
    for path in paths {
        if options.in_memory.contains(path) && !path.is_dir() {
            if options.force_exclude && options.excludes.is_excluded(path) {
                continue;
            }
            let format = Format::from_path(path).unwrap_or(Format::Yaml);
            files.push(SourcePath { path: path.clone(), display: display(path), format, explicit: true });
            continue;
        }
        let kind = options.named.kind(path).map_err(|e| FatalError::Io { path: path.display().to_string(), reason: e.to_string() })?;
        if kind == Kind::Other {
            // A FIFO, `/dev/stdin`, `/dev/zero`: refused, never skipped, so a CI job cannot pass having checked nothing.
            return Err(FatalError::Io {
                path: path.display().to_string(),
                reason: "not a regular file or a folder (a FIFO, a device or a socket); trainlint checks only regular files".to_owned(),
            });
        }
        if kind == Kind::File {
            if options.force_exclude && options.excludes.is_excluded(path) {
                continue;
            }
            // An explicit file with another extension is read as YAML: the user asked for it;
            // one without an extension that opens with a shell shebang is a launch script.
            let format = Format::from_path(path).or_else(|| Format::sniff(path)).unwrap_or(Format::Yaml);
            files.push(SourcePath { path: path.clone(), display: display(path), format, explicit: true });
            continue;
        }
        // ruff's `--force-exclude` holds for a folder named on the command line too
        // (ruff's `python_files_in_path` drops every excluded path given).
        if options.force_exclude && options.excludes.is_excluded(path) {
            continue;
        }
        let excludes = Arc::new(options.excludes.clone());
        let walked = std::path::absolute(path).unwrap_or_else(|_| path.clone());
        let given = path.clone();
        let mut builder = ignore::WalkBuilder::new(path);
        builder
            // ruff's `respect-gitignore`: `.gitignore`, `.ignore`, `.git/info/exclude`, the global excludes and hidden entries.
            .standard_filters(options.respect_gitignore)
            // A `.gitignore` counts in an unpacked archive too, not only inside a git repository.
            .require_git(false)
            .follow_links(false)
            .sort_by_file_name(|a, b| a.cmp(b))
            .filter_entry(move |entry| {
                // The entry's absolute path from the walked folder's (`std::path::absolute` asks
                // the system for the working folder each time: one `getcwd` per entry).
                let absolute = match entry.path().strip_prefix(&given) {
                    Ok(below) => walked.join(below),
                    Err(_) => std::path::absolute(entry.path()).unwrap_or_else(|_| entry.path().to_path_buf()),
                };
                entry.depth() == 0 || !excludes.is_excluded_below(&absolute, &walked)
            });
        for entry in builder.build() {
            let entry = entry.map_err(|e| FatalError::Io { path: path.display().to_string(), reason: e.to_string() })?;
            // A file without an extension counts when it opens with a shell shebang (`scripts/train`).
            let sniffed = || if options.shell && entry.file_type().is_some_and(|t| t.is_file()) { Format::sniff(entry.path()) } else { None };
            let Some(format) = Format::from_path(entry.path()).or_else(sniffed).filter(|f| options.shell || *f != Format::Shell) else { continue };
            // Of TOML files, only those that look like torchtitan configs (`Format::looks_like_torchtitan`).
            if format == Format::Toml && !Format::looks_like_torchtitan(entry.path()) {
                continue;
            }
            // Of Python files, only those that call `TrainingArguments` or a TRL config
            // (`Format::looks_like_training_script`), and none of a test suite: a test builds a
            // trainer on a tiny model or a real one it never trains on a GPU.
            if format == Format::Python
                && (super::python::is_test_file(entry.path().strip_prefix(path).unwrap_or(entry.path())) || !Format::looks_like_training_script(entry.path()))
            {
                continue;
            }
            // Symlinked files are read; symlinked folders are not followed, so a link loop cannot recur.
            // The entry's type comes with the listing; only a link costs a `stat`.
            let is_file = match entry.file_type() {
                Some(kind) if !kind.is_symlink() => kind.is_file(),
                _ => entry.path().is_file(),
            };
            if is_file {
                files.push(SourcePath { path: entry.path().to_path_buf(), display: display(entry.path()), format, explicit: false });
            }
        }
    }
    files.dedup_by(|a, b| a.path == b.path);
    Ok(files)
}

fn display(path: &Path) -> String {
    let text = path.display().to_string();
    text.strip_prefix("./").map(str::to_owned).unwrap_or(text)
}
