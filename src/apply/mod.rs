//! Stage 5b of the pipeline: applying fixes.
//!
//! Fixes are byte-range edits on the original text: everything outside the
//! edited ranges (comments, quoting, order, blank lines) is kept byte for byte.
//! A fixed text must parse again; a file is written atomically (temporary file
//! in the same folder, then rename, permissions kept), never when nothing
//! changed, and never when it changed on disk since it was read.

use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix};
use crate::error::FatalError;
use crate::load::{self, Format};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Whether a fix is applied under the chosen options (ruff's rule: `--fix`
/// applies safe fixes, `--unsafe-fixes` adds unsafe ones; display-only never).
pub fn applies(fix: &Fix, unsafe_fixes: bool) -> bool {
    match fix.applicability {
        Applicability::Safe => true,
        Applicability::Unsafe => unsafe_fixes,
        Applicability::DisplayOnly => false,
    }
}

/// Edits accepted in one pass, per file (canonical path), and the fixes they came from.
#[derive(Default)]
pub struct Accepted {
    pub edits: BTreeMap<PathBuf, Vec<Edit>>,
    pub fixes: usize,
    /// The rule codes of the accepted fixes, per file they edit.
    pub codes: BTreeMap<PathBuf, std::collections::BTreeSet<&'static str>>,
    /// Files edited by one fix together (a fix is applied whole or not at all).
    pub linked: Vec<Vec<PathBuf>>,
    /// How many fixes, per file (a fix is counted on the first file it edits).
    pub per_file: BTreeMap<PathBuf, usize>,
    /// Of `per_file`, how many fixes were for errors and how many for warnings (the rest infos).
    pub per_file_severity: BTreeMap<PathBuf, (usize, usize)>,
}

/// Picks the fixes to apply in one pass: a fix is taken only when none of its
/// edits overlaps an edit already taken (the rest wait for the next pass).
pub fn accept(diagnostics: &[Diagnostic], unsafe_fixes: bool) -> Accepted {
    accept_except(diagnostics, unsafe_fixes, &std::collections::BTreeSet::new())
}

/// `accept`, leaving out every fix that edits one of `skipped` (files whose
/// fixes did not converge: they are left as they are).
pub fn accept_except(diagnostics: &[Diagnostic], unsafe_fixes: bool, skipped: &std::collections::BTreeSet<PathBuf>) -> Accepted {
    let mut accepted = Accepted::default();
    for diagnostic in diagnostics {
        let Some(fix) = diagnostic.fix.as_ref().filter(|f| applies(f, unsafe_fixes)) else { continue };
        let keyed: Vec<(PathBuf, &Edit)> = fix.edits.iter().map(|e| (canonical(e.file.path()), e)).collect();
        let overlaps = keyed.iter().any(|(path, edit)| accepted.edits.get(path).is_some_and(|taken| taken.iter().any(|t| overlap(&t.span, &edit.span))));
        // Two edits of one fix that touch each other cannot both be applied either.
        let self_overlap = keyed.iter().enumerate().any(|(i, (p, a))| keyed.iter().skip(i + 1).any(|(q, b)| p == q && overlap(&a.span, &b.span)));
        if overlaps || self_overlap || keyed.is_empty() || keyed.iter().any(|(path, _)| skipped.contains(path)) {
            continue;
        }
        let mut files: Vec<PathBuf> = keyed.iter().map(|(p, _)| p.clone()).collect();
        files.dedup();
        for (path, edit) in keyed {
            accepted.codes.entry(path.clone()).or_default().insert(diagnostic.rule.code);
            accepted.edits.entry(path).or_default().push(edit.clone());
        }
        *accepted.per_file.entry(files[0].clone()).or_default() += 1;
        let severity = accepted.per_file_severity.entry(files[0].clone()).or_default();
        match diagnostic.severity {
            crate::diagnostic::Severity::Error => severity.0 += 1,
            crate::diagnostic::Severity::Warning => severity.1 += 1,
            crate::diagnostic::Severity::Info => {}
        }
        if files.len() > 1 {
            accepted.linked.push(files);
        }
        accepted.fixes += 1;
    }
    accepted
}

fn overlap(a: &std::ops::Range<usize>, b: &std::ops::Range<usize>) -> bool {
    // Two insertions at the same point would be ambiguous too; an insertion at
    // the start of a replacement is not (it goes first).
    a.start < b.end && b.start < a.end || a.is_empty() && b.is_empty() && a.start == b.start
}

/// The canonical path, as the loader's overlay keys it (a text from stdin has no file on disk).
pub fn canonical(path: &Path) -> PathBuf {
    crate::load::loader::overlay_key(path)
}

pub use crate::diagnostic::splice;

/// A fixed text that no longer parses is a bug in a fix: report it, write nothing.
pub fn check_reparses(path: &Path, display: &str, text: &str) -> Result<(), FatalError> {
    let format = Format::of(path, text);
    load::parse_text(text, format)
        .map(|_| ())
        .map_err(|error| FatalError::FixFailed { path: display.to_owned(), reason: format!("the fixed text would not parse ({error:?}); nothing was written") })
}

/// A file to write: its text as first read, and the fixed text.
#[derive(Clone, Debug)]
pub struct Change {
    pub path: PathBuf,
    pub display: String,
    pub original: String,
    pub fixed: String,
}

const BOM: &str = "\u{feff}";

/// Checks every file before writing any: each must be unchanged on disk and writable.
pub fn preflight(changes: &[Change]) -> Result<(), FatalError> {
    for change in changes {
        let on_disk = std::fs::read(&change.path).map_err(|e| FatalError::Io { path: change.display.clone(), reason: e.to_string() })?;
        let text = String::from_utf8_lossy(&on_disk);
        if text.strip_prefix(BOM).unwrap_or(&text) != change.original {
            return Err(FatalError::FixFailed {
                path: change.display.clone(),
                reason: "the file changed on disk since it was read; nothing was written (run again)".into(),
            });
        }
        let metadata = std::fs::metadata(&change.path).map_err(|e| FatalError::Io { path: change.display.clone(), reason: e.to_string() })?;
        if metadata.permissions().readonly() {
            return Err(FatalError::FixFailed { path: change.display.clone(), reason: "the file is read-only; nothing was written".into() });
        }
    }
    Ok(())
}

/// Writes a fixed text atomically: a temporary file beside it, flushed to disk,
/// with the original's permissions, owner and group, renamed over the
/// original. Never writes when the text is unchanged or the file changed
/// since it was read.
pub fn write_atomic(change: &Change) -> Result<bool, FatalError> {
    write_atomic_with(change, |_| Ok(()))
}

/// `write_atomic` with `before_rename` called between the temporary file's
/// write and the rename, with the temporary file's path. The commands pass a
/// no-op; tests pass a hook that fails (`Err`: the temporary file is removed)
/// or panics (as a killed process would, leaving it) and check that the
/// original survives byte for byte. Nothing in a release build reads the
/// environment to inject a fault.
pub fn write_atomic_with(change: &Change, before_rename: impl FnOnce(&Path) -> std::io::Result<()>) -> Result<bool, FatalError> {
    if change.fixed == change.original {
        return Ok(false);
    }
    preflight(std::slice::from_ref(change))?;
    let fail = |reason: String| FatalError::FixFailed { path: change.display.clone(), reason: format!("{reason}; the original is untouched") };
    let prepared = prepare(change).map_err(|e| fail(e.to_string()))?;
    let result = before_rename(&prepared.temporary).and_then(|()| std::fs::rename(&prepared.temporary, &prepared.target));
    if let Err(error) = result {
        let _ = std::fs::remove_file(&prepared.temporary);
        return Err(fail(error.to_string()));
    }
    Ok(true)
}

/// Writes every changed file or none: all are checked (unchanged on disk, not
/// read-only), then every fixed text is written to a temporary file beside
/// its original (so a read-only folder, a full disk or a failed `chown`
/// shows up before any original is replaced), and only then are the
/// temporary files renamed over the originals. Returns the files written.
pub fn write_all(changes: &[Change]) -> Result<Vec<String>, FatalError> {
    write_all_with(changes, |_, _, _| Ok(()))
}

/// A step of `write_all`, for the test hook.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The temporary file of a changed file was just written.
    Temporary,
    /// Its temporary file is about to be renamed over it.
    Rename,
}

/// `write_all` with `hook(step, i, temporary)` called at each step of the
/// `i`-th changed file; an `Err` fails that step (tests inject a full disk,
/// a failed rename). The commands pass a no-op.
pub fn write_all_with(changes: &[Change], mut hook: impl FnMut(Step, usize, &Path) -> std::io::Result<()>) -> Result<Vec<String>, FatalError> {
    let changes: Vec<&Change> = changes.iter().filter(|c| c.fixed != c.original).collect();
    let owned: Vec<Change> = changes.iter().map(|c| (*c).clone()).collect();
    preflight(&owned)?;
    let mut prepared: Vec<Prepared> = Vec::new();
    let discard = |prepared: &[Prepared]| {
        for p in prepared {
            let _ = std::fs::remove_file(&p.temporary);
        }
    };
    for (i, change) in changes.iter().enumerate() {
        let step = prepare(change).and_then(|p| {
            let result = hook(Step::Temporary, i, &p.temporary);
            prepared.push(p);
            result
        });
        if let Err(error) = step {
            discard(&prepared);
            return Err(FatalError::FixFailed {
                path: change.display.clone(),
                reason: format!("cannot write its fixed text beside it ({error}); nothing was written, every file is untouched"),
            });
        }
    }
    let mut written = Vec::new();
    for (i, p) in prepared.iter().enumerate() {
        if let Err(error) = hook(Step::Rename, i, &p.temporary).and_then(|()| std::fs::rename(&p.temporary, &p.target)) {
            discard(&prepared[i..]);
            let not_written: Vec<&str> = changes[i..].iter().map(|c| c.display.as_str()).collect();
            return Err(FatalError::FixFailed {
                path: changes[i].display.clone(),
                reason: format!(
                    "cannot replace it ({error}); written: {}; not written: {}",
                    if written.is_empty() { "none".to_owned() } else { written.join(", ") },
                    not_written.join(", ")
                ),
            });
        }
        written.push(changes[i].display.clone());
    }
    Ok(written)
}

/// A fixed text in its temporary file, ready to be renamed over `target`.
struct Prepared {
    temporary: PathBuf,
    target: PathBuf,
}

/// Writes the temporary file of a change: BOM kept, permissions, owner and
/// group of the original, flushed to disk. The temporary file is removed
/// again when any step fails. Stale temporary files of a killed run are
/// removed first.
fn prepare(change: &Change) -> std::io::Result<Prepared> {
    use std::os::unix::fs::MetadataExt;
    let target = canonical(&change.path);
    let on_disk = std::fs::read(&target)?;
    let bom = if on_disk.starts_with(BOM.as_bytes()) { BOM } else { "" };
    let metadata = std::fs::metadata(&target)?;
    let dir = target.parent().unwrap_or(Path::new("."));
    let name = target.file_name().and_then(|n| n.to_str()).unwrap_or("config");
    remove_stale_temporaries(dir, name);
    let temporary = dir.join(temporary_name(name, std::process::id()));
    let mut file = std::fs::OpenOptions::new().write(true).create_new(true).open(&temporary)?;
    let result = (|| -> std::io::Result<()> {
        file.write_all(bom.as_bytes())?;
        file.write_all(change.fixed.as_bytes())?;
        // Running as root, a new file is root's: give it the original's owner and group.
        let created = file.metadata()?;
        if (created.uid(), created.gid()) != (metadata.uid(), metadata.gid()) {
            std::os::unix::fs::fchown(&file, Some(metadata.uid()), Some(metadata.gid()))
                .map_err(|e| std::io::Error::new(e.kind(), format!("cannot keep its owner {} and group {}: {e}", metadata.uid(), metadata.gid())))?;
        }
        file.sync_all()?;
        std::fs::set_permissions(&temporary, metadata.permissions())
    })();
    match result {
        Ok(()) => Ok(Prepared { temporary, target }),
        Err(error) => {
            let _ = std::fs::remove_file(&temporary);
            Err(error)
        }
    }
}

/// `.<name>.trainlint-<pid>.tmp`: the temporary file of `name` written by process `pid`.
pub fn temporary_name(name: &str, pid: u32) -> String {
    format!(".{name}.trainlint-{pid}.tmp")
}

/// Removes the temporary files of `name` that a killed `--fix` left in `dir`
/// (`kill -9` between the write and the rename): those of a process that no
/// longer runs, or of this process's id (a reused id of a dead process).
/// Only regular files named exactly so are removed; where the process table
/// cannot be read (no `/proc`), only this process's id is cleaned.
pub fn remove_stale_temporaries(dir: &Path, name: &str) -> Vec<PathBuf> {
    let prefix = format!(".{name}.trainlint-");
    let proc_readable = Path::new("/proc/self").exists();
    let mut removed = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return removed };
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(pid) = file_name.to_str().and_then(|n| n.strip_prefix(&prefix)).and_then(|n| n.strip_suffix(".tmp")) else { continue };
        let Ok(pid) = pid.parse::<u32>() else { continue };
        let dead = pid == std::process::id() || proc_readable && !Path::new("/proc").join(pid.to_string()).exists();
        if dead && entry.file_type().is_ok_and(|t| t.is_file()) && std::fs::remove_file(entry.path()).is_ok() {
            removed.push(entry.path());
        }
    }
    removed
}

/// A unified diff of one change (`--- a/path`, `+++ b/path`). Control characters of the
/// path (a file name with a newline or ESC) and of the file's lines are escaped
/// (`render::escape_controls_in_lines`): nothing a file or its name holds reaches the
/// terminal raw or forges a line (a CI `::error` command).
pub fn unified_diff(change: &Change) -> String {
    let path = crate::render::escape_controls(change.display.trim_start_matches('/')).into_owned();
    let diff = similar::TextDiff::from_lines(&change.original, &change.fixed)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string();
    crate::render::escape_controls_in_lines(&diff).into_owned()
}
