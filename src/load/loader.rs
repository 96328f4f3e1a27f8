//! The pipeline's only way to the file system.
//!
//! load → resolve → rules → linter never call `std::fs`: every file they read
//! (a checked config, the HF file paired with a DeepSpeed config, the configs
//! of a Hydra tree, curriculum stages), every folder they list and every path
//! they canonicalise or test goes through a `Loader`. A loader answers from
//! one of three sources:
//!
//! - the work tree on disk;
//! - the work tree with an in-memory overlay: the fixed texts of `--fix` /
//!   `--diff` passes, which are not written until the fixes converge;
//! - a git revision, for `--baseline REV`: reading, listing and existence
//!   answer from that revision's tree (`git ls-tree`, `git show`), so a config
//!   at REV is resolved with the files it was paired with at REV.
//!
//! Lookups that many files repeat (the primary configs of a Hydra folder) are
//! memoised in the loader (`memo`), so the cache lives as long as the run's
//! loader and always answers from the loader's own source.
//!
//! Every read is bounded (book/src/hardening.md, "Budgets"):
//!
//! - only regular files are read: the file type is checked (links followed)
//!   before opening, so a FIFO, `/dev/zero` or a socket is refused, never read;
//! - a file over `MAX_FILE_BYTES` is refused from its size, and no read takes
//!   more than `MAX_FILE_BYTES + 1` bytes (`take`), so a file that grows while
//!   it is read (or a blob at a revision) cannot cost more;
//! - all reads of one loader (one run, or one fix pass) together stay under
//!   `MAX_RUN_BYTES`; past it every read fails with `RUN_BUDGET_EXCEEDED`;
//! - with project roots set (`with_roots`: the manifest's folder and the checked
//!   paths), a path whose canonical form (links resolved) is under none of
//!   them is refused, so nothing a config names (a Hydra default, a curriculum
//!   stage, a `[[pair]]`, a link in the tree) is read outside the project.

use super::git::Revision;
use super::{Document, Format, LoadError, MAX_FILE_BYTES, MAX_RUN_BYTES, Overlay, shell};
use crate::source::SourceFile;
use std::any::Any;
use std::collections::HashMap;
use std::ffi::OsStr;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Where a loader reads.
#[derive(Clone, Debug)]
enum Origin {
    Disk,
    Revision(Revision),
}

/// One entry of a folder listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DirEntry {
    pub name: String,
    pub is_dir: bool,
}

/// What a loader keeps for the run: values by (kind, path) (`Loader::memo`), and each folder's
/// canonical path (`Loader::canonical_folder`), the latter in a map of its own: one entry a
/// folder of every file read, about 120 bytes where a memo value takes about 290.
#[derive(Default)]
struct Memo {
    /// By kind, then by path as written (byte for byte: hashed at once, not component by
    /// component, and looked up without building a key).
    values: Mutex<HashMap<&'static str, HashMap<Box<OsStr>, MemoValue>>>,
    /// By folder as written, byte for byte.
    folders: Mutex<HashMap<Box<OsStr>, Canonical>>,
}

type MemoValue = Arc<dyn Any + Send + Sync>;

/// Where `Loader::in_canonical_folder` found a path.
enum InFolder {
    /// No folder to resolve apart (a bare name, a root, a path ending in `..` or `.`): the
    /// system resolves it whole.
    Whole,
    /// Its folder does not resolve.
    FolderMissing,
    /// Its folder's canonical path joined with its name, and what `lstat` says there.
    At(PathBuf, std::io::Result<std::fs::Metadata>),
}

/// A folder's canonical path, as `canonical_folder` keeps it.
enum Canonical {
    /// The folder's own path (no link, no `..`): not stored twice.
    Same,
    Other(Box<Path>),
    /// It does not resolve.
    Missing,
}

/// Reads files, lists folders and checks paths for one run (see the module docs).
/// Clones share the memo.
#[derive(Clone)]
pub struct Loader {
    origin: Origin,
    overlay: Overlay,
    shell_command: Option<String>,
    memo: Arc<Memo>,
    /// Canonical project roots; empty: no restriction (a loader built outside a run).
    roots: Arc<Vec<PathBuf>>,
    /// The roots no other root contains (`cover`): what "inside the project" is tested
    /// against. A path lies under some root exactly when it lies under one of these, and
    /// at most one of these holds it. `check` on 826 named files has 270 roots, 1 of them here.
    outermost: Arc<Vec<PathBuf>>,
    /// Bytes read so far by this loader and its clones, and their budget (`MAX_RUN_BYTES`).
    bytes_read: Arc<AtomicU64>,
    run_budget: u64,
}

impl std::fmt::Debug for Loader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Loader")
            .field("origin", &self.origin)
            .field("overlay", &self.overlay.len())
            .field("shell_command", &self.shell_command)
            .field("roots", &self.roots)
            .finish()
    }
}

impl Default for Loader {
    fn default() -> Self {
        Loader::disk()
    }
}

impl Loader {
    /// Reads the work tree on disk.
    pub fn disk() -> Loader {
        Loader {
            origin: Origin::Disk,
            overlay: Overlay::default(),
            shell_command: None,
            memo: Arc::default(),
            roots: Arc::default(),
            outermost: Arc::default(),
            bytes_read: Arc::default(),
            run_budget: MAX_RUN_BYTES,
        }
    }

    /// The same loader reading from `revision` instead (overlay dropped, fresh memo;
    /// the same roots and run budget).
    pub fn at_revision(&self, revision: Revision) -> Loader {
        Loader { origin: Origin::Revision(revision), overlay: Overlay::default(), memo: Arc::default(), ..self.clone() }
    }

    /// Restricts reading to files under `roots` (each canonicalised; links resolved).
    pub(crate) fn with_roots(self, roots: &[PathBuf]) -> Loader {
        // Each distinct root resolved once (pre-commit names hundreds of files in a few folders).
        let mut distinct: Vec<&PathBuf> = roots.iter().collect();
        distinct.sort();
        distinct.dedup();
        let mut folders = HashMap::new();
        let canonical: Vec<PathBuf> = distinct.into_iter().map(|r| canonical_folder_cached(r, &mut folders).unwrap_or_else(|| r.clone())).collect();
        self.with_canonical_roots(&canonical)
    }

    /// `with_roots` for roots already canonical (`settings::project_roots` resolves each).
    pub(crate) fn with_canonical_roots(self, roots: &[PathBuf]) -> Loader {
        let mut canonical = roots.to_vec();
        canonical.sort();
        canonical.dedup();
        let mut outermost = cover(&canonical);
        outermost.sort_by(|a, b| separator_first(a, b));
        Loader { roots: Arc::new(canonical), outermost: Arc::new(outermost), ..self }
    }

    /// This loader's roots plus `other`'s (a group of files under a nested manifest).
    pub(crate) fn with_roots_of(self, other: &Loader) -> Loader {
        let roots: Vec<PathBuf> = self.roots.iter().chain(other.roots.iter()).cloned().collect();
        self.with_roots(&roots)
    }

    /// The canonical project roots (empty: reading is not restricted).
    pub(crate) fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    /// Whether `path` (links resolved) lies under a project root. A path that
    /// does not exist yet is judged by its folder; one whose folder does not
    /// exist either is not inside. For a writer: every file `--fix` edits was
    /// read through this loader, so it passed this check when it was read.
    pub(crate) fn is_inside_project(&self, path: &Path) -> bool {
        self.roots.is_empty() || self.resolved(path).is_some_and(|canonical| self.outermost_holding(&canonical).is_some())
    }

    /// The outermost project root that holds `canonical` (a canonical path), if any.
    pub(crate) fn outermost_holding(&self, canonical: &Path) -> Option<&Path> {
        // Sorted, and no root of `outermost` under another: the only one that can hold it is
        // the last one not after it (a root sorts before everything under it).
        // Compared as bytes with the separator first (`separator_first`), which orders canonical
        // paths as `Path` does (component by component) without splitting them into components
        // at each step: `check` asks for every file it reads and every launch it links.
        let after = self.outermost.partition_point(|root| separator_first(root, canonical).is_le());
        after.checked_sub(1).map(|at| self.outermost[at].as_path()).filter(|root| canonical.starts_with(root))
    }

    /// The canonical path, or its folder's canonical path and its name.
    fn resolved(&self, path: &Path) -> Option<PathBuf> {
        self.canonical(path).or_else(|| Some(self.canonical(parent(path))?.join(path.file_name()?)))
    }

    /// `Err` when `path` is outside the project (see `is_inside_project`). A
    /// path that resolves to nothing passes: its read fails as `NotFound`.
    fn check_inside(&self, path: &Path) -> std::io::Result<()> {
        self.check_inside_seen(path).map(|_| ())
    }

    /// `check_inside`, with the file's canonical path and what `lstat` said of it when it is not
    /// a link (then it is what `stat` of `path` says too: a read need not ask again).
    fn check_inside_seen(&self, path: &Path) -> std::io::Result<Option<(PathBuf, std::fs::Metadata)>> {
        if self.roots.is_empty() {
            return Ok(None);
        }
        // Resolved once (`is_inside_project` would resolve it again).
        let (resolved, seen) = match self.canonical_seen(path) {
            Some((canonical, seen)) => (Some(canonical), Some(seen)),
            None => (self.resolved(path), None),
        };
        match resolved {
            None => return Ok(None),
            Some(canonical) if self.outermost_holding(&canonical).is_some() => return Ok(seen.map(|seen| (canonical, seen))),
            Some(_) => {}
        }
        let shown = self.canonical(path).unwrap_or_else(|| path.to_path_buf());
        let roots: Vec<String> = self.roots.iter().map(|r| format!("`{}`", r.display())).collect();
        Err(std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            format!(
                "`{}` is outside the project ({}); trainlint reads only files under the project root (the manifest's folder, or the checked path)",
                shown.display(),
                roots.join(", ")
            ),
        ))
    }

    /// The same loader with another budget for the whole run (tests; the commands keep `MAX_RUN_BYTES`).
    #[cfg(test)]
    pub(crate) fn with_run_budget(self, bytes: u64) -> Loader {
        Loader { run_budget: bytes, ..self }
    }

    /// `Err` when `path` exists but is not something trainlint reads: outside
    /// the project, or not a regular file (a FIFO, a device). A missing path is
    /// `Ok`: the read that needs it says so. Nothing is opened.
    pub(crate) fn check_readable(&self, path: &Path) -> std::io::Result<()> {
        self.check_inside(path)?;
        if let Origin::Disk = self.origin
            && let Ok(metadata) = std::fs::metadata(path)
            && !metadata.is_file()
            && !metadata.is_dir()
        {
            return Err(not_regular());
        }
        Ok(())
    }

    /// Bytes this loader (and its clones) read so far.
    pub(crate) fn bytes_read(&self) -> u64 {
        self.bytes_read.load(Ordering::Relaxed)
    }

    /// Whether the run has read past its budget (`MAX_RUN_BYTES`): every later read fails.
    pub(crate) fn over_run_budget(&self) -> bool {
        self.bytes_read() > self.run_budget
    }

    /// Counts `bytes` against the run budget; `Err` past `MAX_RUN_BYTES`.
    fn charge(&self, bytes: u64) -> std::io::Result<()> {
        let total = self.bytes_read.fetch_add(bytes, Ordering::Relaxed).saturating_add(bytes);
        if total > self.run_budget {
            return Err(self.over_budget());
        }
        Ok(())
    }

    fn over_budget(&self) -> std::io::Error {
        std::io::Error::other(format!(
            "{RUN_BUDGET_EXCEEDED} ({:.1} MiB in all); check fewer files at a time, or a smaller tree",
            self.run_budget as f64 / 1_048_576.0
        ))
    }

    /// The bytes of a file on disk or at the revision, bounded as the module docs say.
    fn read_bounded(&self, path: &Path) -> std::io::Result<Bounded> {
        if self.bytes_read() > self.run_budget {
            return Err(self.over_budget());
        }
        let seen = self.check_inside_seen(path)?;
        let mut canonical = None;
        let bytes = match &self.origin {
            Origin::Disk => {
                // The type of what the path names, links followed: never open a FIFO or a device.
                let metadata = match seen {
                    Some((at, metadata)) => {
                        canonical = Some(at);
                        metadata
                    }
                    None => std::fs::metadata(path)?,
                };
                if metadata.is_dir() {
                    return Err(std::io::Error::new(std::io::ErrorKind::IsADirectory, "is a directory"));
                }
                if !metadata.is_file() {
                    return Err(not_regular());
                }
                if metadata.len() > MAX_FILE_BYTES {
                    return Ok(Bounded::TooLarge(metadata.len()));
                }
                let file = open_nonblocking(path)?;
                if !file.metadata()?.is_file() {
                    // Swapped for something else since the check.
                    return Err(not_regular());
                }
                let mut bytes = Vec::with_capacity(metadata.len() as usize);
                file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes).map_err(|e| {
                    if e.kind() == std::io::ErrorKind::WouldBlock {
                        std::io::Error::new(
                            std::io::ErrorKind::WouldBlock,
                            "a kernel file with nothing to read yet (procfs or sysfs); trainlint reads only what it can read at once, so it never waits",
                        )
                    } else {
                        e
                    }
                })?;
                bytes
            }
            Origin::Revision(revision) => revision.read(path, MAX_FILE_BYTES + 1)?.ok_or_else(|| not_at(revision))?,
        };
        let len = bytes.len() as u64;
        self.charge(len)?;
        if len > MAX_FILE_BYTES {
            return Ok(Bounded::TooLarge(len));
        }
        Ok(Bounded::Read(bytes, canonical))
    }

    /// Texts that replace files on disk (keyed by canonical path); a fresh memo.
    pub(crate) fn with_overlay(self, overlay: Overlay) -> Loader {
        Loader { overlay, memo: Arc::default(), ..self }
    }

    /// A loader for one pass of a run over `overlay`: fresh memo and a fresh byte count (each
    /// fix pass reads the tree anew, within the budget of one run).
    pub(crate) fn for_pass(self, overlay: Overlay) -> Loader {
        Loader { bytes_read: Arc::default(), ..self.with_overlay(overlay) }
    }

    /// The training command whose flags a shell script's tree holds (the manifest's `[shell] command`).
    pub(crate) fn with_shell_command(self, command: Option<String>) -> Loader {
        Loader { shell_command: command, ..self }
    }

    /// The revision this loader reads, when it is a baseline's.
    pub(crate) fn revision(&self) -> Option<&Revision> {
        match &self.origin {
            Origin::Revision(revision) => Some(revision),
            Origin::Disk => None,
        }
    }

    /// Reads and parses one file. `Err` only for I/O problems (`NotFound` when
    /// the file does not exist in this loader's source); a file that cannot be
    /// read as a configuration is a `Document` whose root is a `LoadError`.
    pub fn load(&self, path: &Path, display: &str, format: Format) -> std::io::Result<Document> {
        let display = match &self.origin {
            Origin::Disk => display.to_owned(),
            Origin::Revision(revision) => format!("{display}@{}", revision.name),
        };
        let (bytes, canonical) = match self.overlaid(path) {
            Some(text) => (text.into_bytes(), None),
            None => match self.read_bounded(path)? {
                Bounded::Read(bytes, canonical) => (bytes, canonical),
                Bounded::TooLarge(bytes) => return Ok(too_large(path, &display, format, bytes)),
            },
        };
        let mut document = super::load_bytes_at(path, canonical.as_deref(), &display, format, bytes);
        if format == Format::Shell
            && let Some(command) = &self.shell_command
            && document.root.is_ok()
        {
            document.root = shell::parse(document.source.text(), Some(command));
        }
        Ok(document)
    }

    /// A file's text (lossy UTF-8), for lookups that only scan it.
    /// Bounded as `load` is: a file over the limit is an error here.
    pub fn read_text(&self, path: &Path) -> std::io::Result<String> {
        if let Some(text) = self.overlaid(path) {
            return Ok(text);
        }
        match self.read_bounded(path)? {
            Bounded::Read(bytes, _) => Ok(String::from_utf8_lossy(&bytes).into_owned()),
            Bounded::TooLarge(bytes) => Err(std::io::Error::new(
                std::io::ErrorKind::FileTooLarge,
                format!("file too large: {:.1} MiB (the limit is {} MiB)", bytes as f64 / 1_048_576.0, MAX_FILE_BYTES / 1_048_576),
            )),
        }
    }

    /// The entries of a folder, sorted by name (so answers never depend on the
    /// file system's listing order).
    pub fn list(&self, dir: &Path) -> std::io::Result<Vec<DirEntry>> {
        let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
        let mut entries = match &self.origin {
            Origin::Disk => {
                // A folder outside the project is not listed either (a Hydra primary looked for
                // up to three folders above a file at the project's root would list its parent).
                self.check_inside(dir)?;
                let mut entries = Vec::new();
                for entry in std::fs::read_dir(dir)?.flatten() {
                    let Some(name) = entry.file_name().to_str().map(str::to_owned) else { continue };
                    // A symbolic link counts as what it points to, as `Path::is_dir` says.
                    let is_dir = match entry.file_type() {
                        Ok(kind) if !kind.is_symlink() => kind.is_dir(),
                        _ => entry.path().is_dir(),
                    };
                    entries.push(DirEntry { name, is_dir });
                }
                entries
            }
            Origin::Revision(revision) => {
                let listed = self.memo("git-ls-tree", dir, || revision.list(dir).ok().flatten());
                (*listed).clone().ok_or_else(|| not_at(revision))?
            }
        };
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(entries)
    }

    /// Whether `path` is a file (following links on disk; a blob at a revision).
    pub fn is_file(&self, path: &Path) -> bool {
        match &self.origin {
            Origin::Disk => path.is_file(),
            Origin::Revision(_) => self.entry(path).is_some_and(|e| !e.is_dir),
        }
    }

    /// Whether `path` is a folder (following links on disk; a tree at a revision).
    pub fn is_dir(&self, path: &Path) -> bool {
        match &self.origin {
            Origin::Disk => path.is_dir(),
            Origin::Revision(_) => self.entry(path).is_some_and(|e| e.is_dir),
        }
    }

    /// The canonical path (links and `..` resolved), for telling whether two
    /// paths name the same file; `None` when it cannot be resolved. At a
    /// revision the folders are the work tree's: a path of the revision's tree
    /// is its folder canonicalised on disk plus its name, any other path (the
    /// project folder, a file deleted since) is canonicalised on disk.
    pub fn canonical(&self, path: &Path) -> Option<PathBuf> {
        match &self.origin {
            Origin::Disk => self.canonical_on_disk(path),
            Origin::Revision(_) => match self.entry(path) {
                Some(entry) => Some(std::fs::canonicalize(parent(path)).ok()?.join(entry.name)),
                None => std::fs::canonicalize(path).ok(),
            },
        }
    }

    /// `std::fs::canonicalize`, with each folder resolved once per loader: every file of a
    /// folder shares its folder's real path (a real path costs one `readlink` per component,
    /// and `check` asks for several per file). The last component is still looked at each
    /// time (a link is followed, a missing file is `None`), so the answer is the same.
    fn canonical_on_disk(&self, path: &Path) -> Option<PathBuf> {
        match self.in_canonical_folder(path) {
            InFolder::Whole => std::fs::canonicalize(path).ok(),
            InFolder::FolderMissing | InFolder::At(_, Err(_)) => None,
            InFolder::At(candidate, Ok(meta)) if meta.file_type().is_symlink() => std::fs::canonicalize(&candidate).ok(),
            InFolder::At(candidate, Ok(_)) => Some(candidate),
        }
    }

    /// The canonical path of a file on disk that is not a link, and what `lstat` said of it;
    /// `None` for a link, a path at a revision, or one `canonical_on_disk` resolves whole.
    fn canonical_seen(&self, path: &Path) -> Option<(PathBuf, std::fs::Metadata)> {
        if !matches!(self.origin, Origin::Disk) {
            return None;
        }
        match self.in_canonical_folder(path) {
            InFolder::At(candidate, Ok(meta)) if !meta.file_type().is_symlink() => Some((candidate, meta)),
            _ => None,
        }
    }

    /// `path`'s last component in its folder's canonical path, and what `lstat` says of it.
    fn in_canonical_folder(&self, path: &Path) -> InFolder {
        let (Some(folder), Some(name)) = (path.parent().filter(|p| !p.as_os_str().is_empty()), path.file_name()) else { return InFolder::Whole };
        if !matches!(path.components().next_back(), Some(std::path::Component::Normal(_))) {
            return InFolder::Whole;
        }
        let Some(folder) = self.canonical_folder(folder) else { return InFolder::FolderMissing };
        let candidate = folder.join(name);
        let meta = std::fs::symlink_metadata(&candidate);
        InFolder::At(candidate, meta)
    }

    /// `std::fs::canonicalize` of a folder, kept for the run, each folder resolved from its
    /// parent's (`canonical_folder`).
    fn canonical_folder(&self, folder: &Path) -> Option<PathBuf> {
        let folders = || self.memo.folders.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        canonical_folder(
            folder,
            |path| {
                folders().get(path.as_os_str()).map(|found| match found {
                    Canonical::Same => Some(path.to_path_buf()),
                    Canonical::Other(canonical) => Some(canonical.to_path_buf()),
                    Canonical::Missing => None,
                })
            },
            |path, resolved| {
                let kept = match resolved {
                    // Byte for byte (`Path`'s equality would call `a/./b` and `a/b` the same).
                    Some(canonical) if canonical.as_os_str() == path.as_os_str() => Canonical::Same,
                    Some(canonical) => Canonical::Other(canonical.into_boxed_path()),
                    None => Canonical::Missing,
                };
                folders().insert(path.as_os_str().into(), kept);
            },
        )
    }

    /// Drops the values the memo holds (for this loader and its clones): the files are linted,
    /// and what is left of the run (the report) recomputes the little it asks for. The folders'
    /// canonical paths stay: the de-duplication of the findings asks for most of them again.
    pub(crate) fn forget(&self) {
        std::mem::take(&mut *self.memo.values.lock().unwrap_or_else(|poisoned| poisoned.into_inner()));
    }

    /// A value computed once per loader for (`kind`, `key`): lookups every file
    /// of a folder repeats. The value must depend only on what this loader reads.
    pub(crate) fn memo<T: Any + Send + Sync>(&self, kind: &'static str, key: &Path, compute: impl FnOnce() -> T) -> Arc<T> {
        let values = || self.memo.values.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let key = key.as_os_str();
        if let Some(found) = values().get(kind).and_then(|of_kind| of_kind.get(key)).cloned()
            && let Ok(found) = found.downcast::<T>()
        {
            return found;
        }
        let value = Arc::new(compute());
        values().entry(kind).or_default().insert(key.into(), value.clone());
        value
    }

    fn overlaid(&self, path: &Path) -> Option<String> {
        if self.overlay.is_empty() || self.revision().is_some() {
            return None;
        }
        self.overlay.get(&overlay_key(path)).cloned()
    }

    /// The listing entry of `path` in its parent folder (revision sources).
    fn entry(&self, path: &Path) -> Option<DirEntry> {
        let name = path.file_name()?.to_str()?;
        self.list(parent(path)).ok()?.into_iter().find(|e| e.name == name)
    }
}

/// What a bounded read found.
enum Bounded {
    /// The bytes, and the file's canonical path when the check before the read found it.
    Read(Vec<u8>, Option<PathBuf>),
    /// Over `MAX_FILE_BYTES`: this many bytes (the size, or what was read before stopping).
    TooLarge(u64),
}

/// The start of the error every read gives once a run has read `MAX_RUN_BYTES`.
pub(crate) const RUN_BUDGET_EXCEEDED: &str = "this run has read more than its budget of configuration bytes";

fn not_regular() -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        "not a regular file (a FIFO, a device or a socket); trainlint reads only regular files, so it never waits on a pipe or reads a device without end",
    )
}

/// `std::fs::canonicalize(folder)` (`None` where it fails), with the answers of earlier
/// calls (`known`, `keep`): a folder is its parent's canonical path joined with its name
/// unless it is a link (then it is resolved whole), which costs one `lstat` where
/// `realpath` costs one `readlink` per component. The folders above are resolved first,
/// from the nearest known one down, without recursion (a config may name a path of
/// thousands of components). A path that ends in `..` or `.`, a root, or a single
/// relative component is resolved whole, as are paths deeper than `MAX_FOLDER_DEPTH`.
pub(crate) fn canonical_folder(
    folder: &Path,
    mut known: impl FnMut(&Path) -> Option<Option<PathBuf>>,
    mut keep: impl FnMut(&Path, Option<PathBuf>),
) -> Option<PathBuf> {
    const MAX_FOLDER_DEPTH: usize = 256;
    let mut below: Vec<&Path> = Vec::new();
    let mut at = folder;
    let mut resolved = loop {
        if let Some(found) = known(at) {
            break found;
        }
        match (at.parent().filter(|p| !p.as_os_str().is_empty()), at.components().next_back()) {
            (Some(parent), Some(std::path::Component::Normal(_))) if below.len() < MAX_FOLDER_DEPTH => {
                below.push(at);
                at = parent;
            }
            _ => {
                let whole = std::fs::canonicalize(at).ok();
                keep(at, whole.clone());
                break whole;
            }
        }
    };
    while let Some(path) = below.pop() {
        resolved = resolved.and_then(|parent| {
            let candidate = parent.join(path.file_name()?);
            match std::fs::symlink_metadata(&candidate) {
                Ok(meta) if meta.file_type().is_symlink() => std::fs::canonicalize(&candidate).ok(),
                Ok(_) => Some(candidate),
                Err(_) => None,
            }
        });
        keep(path, resolved.clone());
    }
    resolved
}

/// `canonical_folder` with the answers kept in `cache` (a caller without a loader).
pub(crate) fn canonical_folder_cached(folder: &Path, cache: &mut HashMap<PathBuf, Option<PathBuf>>) -> Option<PathBuf> {
    let cache = std::cell::RefCell::new(cache);
    canonical_folder(
        folder,
        |path| cache.borrow().get(path).cloned(),
        |path, resolved| {
            cache.borrow_mut().insert(path.to_path_buf(), resolved);
        },
    )
}

/// The paths of a sorted list that no other path of it lies under. Sorted, a path's
/// ancestors in the list come before it and before anything between them and it
/// (`a/b` < `a/b/…` < `a/c`), so each path need only be compared with the last one kept.
fn cover(sorted: &[PathBuf]) -> Vec<PathBuf> {
    let mut kept: Vec<PathBuf> = Vec::new();
    for path in sorted {
        if !kept.last().is_some_and(|last| path.starts_with(last)) {
            kept.push(path.clone());
        }
    }
    kept
}

/// The order of two paths' bytes with `/` before every other byte: for normalised paths (no
/// `.`, no doubled or trailing separator, as canonical ones are) the order `Path` gives component
/// by component (`a/b` < `a/b/c` < `a-b`), at the cost of comparing bytes.
fn separator_first(a: &Path, b: &Path) -> std::cmp::Ordering {
    let (a, b) = (a.as_os_str().as_encoded_bytes(), b.as_os_str().as_encoded_bytes());
    let rank = |byte: u8| if byte == b'/' { 0 } else { u16::from(byte) + 1 };
    match a.iter().zip(b).position(|(x, y)| x != y) {
        Some(at) => rank(a[at]).cmp(&rank(b[at])),
        None => a.len().cmp(&b.len()),
    }
}

fn parent(path: &Path) -> &Path {
    path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."))
}

fn not_at(revision: &Revision) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::NotFound, format!("not in the baseline revision {}", revision.name))
}

fn too_large(path: &Path, display: &str, format: Format, bytes: u64) -> Document {
    let source = Arc::new(SourceFile::new(path, display, ""));
    Document { source, format, root: Err(LoadError::TooLarge { bytes }), duplicates: Vec::new() }
}

/// The key an overlay holds `path`'s text under: its canonical path, or, when
/// nothing exists there (a text read from stdin), its folder's canonical path
/// joined with its name.
pub(crate) fn overlay_key(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| {
        let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let dir = std::fs::canonicalize(parent).unwrap_or_else(|_| std::path::absolute(parent).unwrap_or_else(|_| parent.to_path_buf()));
        path.file_name().map_or(dir.clone(), |name| dir.join(name))
    })
}

/// Opens a file for reading without blocking: procfs and sysfs files pass as regular files of
/// 0 bytes, and some block on read until the kernel has something (`/proc/kmsg`); with
/// `O_NONBLOCK` such a read fails at once (`EAGAIN`) and the file gets a clear error instead of a
/// hang. Regular files ignore the flag (open(2)).
fn open_nonblocking(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // O_NONBLOCK: <asm-generic/fcntl.h> 00004000 on Linux; 0x0004 on the BSDs and macOS (<sys/fcntl.h>).
        #[cfg(target_os = "linux")]
        const O_NONBLOCK: i32 = 0o4000;
        #[cfg(not(target_os = "linux"))]
        const O_NONBLOCK: i32 = 0x0004;
        options.custom_flags(O_NONBLOCK);
    }
    options.open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn disk_overlay_and_listing() {
        let dir = std::env::temp_dir().join(format!("trainlint-loader-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("b.yaml"), "a: 1\n").unwrap();
        std::fs::write(dir.join("a.yaml"), "a: 2\n").unwrap();
        let loader = Loader::disk();
        let names: Vec<(String, bool)> = loader.list(&dir).unwrap().into_iter().map(|e| (e.name, e.is_dir)).collect();
        assert_eq!(names, [("a.yaml".to_owned(), false), ("b.yaml".to_owned(), false), ("sub".to_owned(), true)]);
        assert!(loader.is_file(&dir.join("a.yaml")) && !loader.is_file(&dir.join("sub")) && loader.is_dir(&dir.join("sub")));
        assert!(loader.canonical(&dir.join("nope.yaml")).is_none());
        let path = dir.join("b.yaml");
        let overlay: HashMap<PathBuf, String> = [(std::fs::canonicalize(&path).unwrap(), "a: 3\n".to_owned())].into();
        let fixed = loader.clone().with_overlay(Arc::new(overlay));
        assert_eq!(fixed.read_text(&path).unwrap(), "a: 3\n");
        assert_eq!(loader.read_text(&path).unwrap(), "a: 1\n");
        let document = fixed.load(&path, "b.yaml", Format::Yaml).unwrap();
        assert_eq!(document.root.unwrap().get("a").unwrap().value, crate::load::Value::Int(3));
        assert_eq!(loader.load(&dir.join("nope.yaml"), "nope.yaml", Format::Yaml).unwrap_err().kind(), std::io::ErrorKind::NotFound);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn memo_computes_once_per_loader() {
        let loader = Loader::disk();
        let calls = std::sync::atomic::AtomicUsize::new(0);
        let compute = || {
            calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            7_u32
        };
        assert_eq!(*loader.memo("k", Path::new("x"), compute), 7);
        assert_eq!(*loader.clone().memo("k", Path::new("x"), compute), 7);
        assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 1, "clones share the memo");
        assert_eq!(*Loader::disk().memo("k", Path::new("x"), compute), 7);
        assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 2, "another loader (another run) computes again");
    }

    /// Issue 13 items 6 and 7: every read is bounded, whichever method asks.
    #[test]
    fn reads_are_bounded_per_file_and_per_run() {
        let dir = std::env::temp_dir().join(format!("trainlint-loader-bounds-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        // A Hydra sibling scan (`read_text`) of a 1 GiB file: refused from its size, nothing read.
        let huge = dir.join("huge.yaml");
        std::fs::File::create(&huge).unwrap().set_len(1 << 30).unwrap();
        let loader = Loader::disk();
        assert_eq!(loader.read_text(&huge).unwrap_err().kind(), std::io::ErrorKind::FileTooLarge);
        for format in [Format::Yaml, Format::Json, Format::Shell] {
            assert_eq!(loader.load(&huge, "huge", format).unwrap().root, Err(LoadError::TooLarge { bytes: 1 << 30 }));
        }
        assert_eq!(loader.bytes_read(), 0, "nothing was read");
        // A device is never opened by any method (a link to one neither).
        std::os::unix::fs::symlink("/dev/zero", dir.join("zero.yaml")).unwrap();
        for path in [Path::new("/dev/zero"), &dir.join("zero.yaml")] {
            assert_eq!(loader.read_text(path).unwrap_err().kind(), std::io::ErrorKind::InvalidInput);
            assert_eq!(loader.load(path, "zero", Format::Yaml).unwrap_err().kind(), std::io::ErrorKind::InvalidInput);
            assert!(loader.check_readable(path).is_err());
        }
        // The run's budget: the reads of a loader and its clones add up; past it every read fails.
        std::fs::write(dir.join("a.yaml"), "a: 1\n".repeat(100)).unwrap();
        let small = Loader::disk().with_run_budget(1000);
        assert!(small.read_text(&dir.join("a.yaml")).is_ok());
        assert!(small.clone().load(&dir.join("a.yaml"), "a", Format::Yaml).is_ok());
        let error = small.read_text(&dir.join("a.yaml")).unwrap_err();
        assert!(error.to_string().starts_with(RUN_BUDGET_EXCEEDED), "{error}");
        assert!(small.load(&dir.join("a.yaml"), "a", Format::Yaml).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// `canonical_folder` answers as `std::fs::canonicalize` does, links and `..` included,
    /// whatever was asked before.
    #[test]
    fn a_folder_resolved_from_its_parent_is_what_realpath_gives() {
        let dir = std::env::temp_dir().join(format!("trainlint-canonical-folder-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("real/a/b")).unwrap();
        std::fs::create_dir_all(dir.join("other/c")).unwrap();
        std::fs::write(dir.join("real/a/file.yaml"), "x: 1\n").unwrap();
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(dir.join("other"), dir.join("real/link")).unwrap();
            std::os::unix::fs::symlink("../other/c", dir.join("real/a/rel")).unwrap();
        }
        let probes = [
            "real/a/b",
            "real/a",
            "real/link/c",
            "real/link/c/..",
            "real/link/../a/b",
            "real/a/rel",
            "real/a/rel/..",
            "real/a/file.yaml",
            "real/a/file.yaml/x",
            "real/missing/b",
            "real/./a/b",
            "real/a/b/../../a",
            "other/c",
        ];
        let mut cache = HashMap::new();
        for order in [probes.to_vec(), probes.iter().rev().copied().collect()] {
            for probe in order {
                let path = dir.join(probe);
                assert_eq!(canonical_folder_cached(&path, &mut cache), std::fs::canonicalize(&path).ok(), "{probe}");
            }
            cache.clear();
        }
        let deep: PathBuf = std::iter::repeat_n("d", 5000).collect();
        assert_eq!(canonical_folder_cached(&dir.join(&deep), &mut cache), None, "a path of 5,000 folders is no stack overflow");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_cover_keeps_the_roots_no_other_root_holds() {
        let paths = |list: &[&str]| list.iter().map(PathBuf::from).collect::<Vec<_>>();
        let mut roots = paths(&["/r/a/b", "/r/a", "/r/a-b", "/r/a/c/d", "/s", "/r/ab/x", "/r/ab"]);
        roots.sort();
        assert_eq!(cover(&roots), paths(&["/r/a", "/r/a-b", "/r/ab", "/s"]));
        // The same answer as asking every root.
        for probe in ["/r/a/x", "/r/a-b/y", "/r/abc", "/t", "/r/ab/x/y"] {
            let probe = Path::new(probe);
            assert_eq!(cover(&roots).iter().any(|r| probe.starts_with(r)), roots.iter().any(|r| probe.starts_with(r)), "{probe:?}");
        }
        // Bytes with the separator first order normalised paths as `Path` does.
        let mut sorted = paths(&["/r/a/b", "/r/a", "/r/a-b", "/r/a/c/d", "/s", "/r/ab/x", "/r/ab", "/r/a/b-c", "/r/a b", "/r/a.b", "/", "/r/a0"]);
        let mut by_bytes = sorted.clone();
        sorted.sort();
        by_bytes.sort_by(|a, b| separator_first(a, b));
        assert_eq!(by_bytes, sorted);
        // The loader's search (a binary search of the cover) finds the outermost root holding a path.
        let loader = Loader::disk().with_roots(&paths(&[
            "/nonexistent-trainlint/r/a/b",
            "/nonexistent-trainlint/r/a",
            "/nonexistent-trainlint/r/a-b",
            "/nonexistent-trainlint/s",
        ]));
        for (probe, holder) in [
            ("/nonexistent-trainlint/r/a/b/c", Some("/nonexistent-trainlint/r/a")),
            ("/nonexistent-trainlint/r/a-b", Some("/nonexistent-trainlint/r/a-b")),
            ("/nonexistent-trainlint/r/a-c", None),
            ("/nonexistent-trainlint/r", None),
            ("/nonexistent-trainlint/s/t", Some("/nonexistent-trainlint/s")),
            ("/nonexistent-trainlint/t", None),
            ("/a", None),
        ] {
            assert_eq!(loader.outermost_holding(Path::new(probe)), holder.map(Path::new), "{probe}");
        }
    }

    /// Issue 13 item 8: with roots, nothing outside them is read, links resolved.
    #[test]
    fn roots_confine_every_read() {
        let dir = std::env::temp_dir().join(format!("trainlint-loader-roots-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("project/conf")).unwrap();
        std::fs::write(dir.join("secret.yaml"), "token: x\n").unwrap();
        std::fs::write(dir.join("project/conf/a.yaml"), "a: 1\n").unwrap();
        std::os::unix::fs::symlink(dir.join("secret.yaml"), dir.join("project/conf/link.yaml")).unwrap();
        let loader = Loader::disk().with_roots(&[dir.join("project")]);
        assert!(loader.is_inside_project(&dir.join("project/conf/a.yaml")));
        assert!(loader.is_inside_project(&dir.join("project/conf/new.yaml")), "a file not written yet is judged by its folder");
        for path in [dir.join("secret.yaml"), dir.join("project/conf/link.yaml"), dir.join("project/conf/../../secret.yaml")] {
            assert!(!loader.is_inside_project(&path), "{}", path.display());
            assert_eq!(loader.read_text(&path).unwrap_err().kind(), std::io::ErrorKind::PermissionDenied);
            assert_eq!(loader.load(&path, "x", Format::Yaml).unwrap_err().kind(), std::io::ErrorKind::PermissionDenied);
        }
        assert!(loader.read_text(&dir.join("project/conf/a.yaml")).is_ok());
        assert!(Loader::disk().read_text(&dir.join("secret.yaml")).is_ok(), "no roots: no restriction");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
