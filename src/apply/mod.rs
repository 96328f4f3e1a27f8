//! Stage 5b of the pipeline: applying fixes.
//!
//! Fixes are byte-range edits on the original text: everything outside the
//! edited ranges (comments, quoting, order, blank lines) is kept byte for byte.
//! A fixed text must parse again; a file is written atomically (temporary file
//! in the same folder, then rename, permissions kept), never when nothing
//! changed, and never when it changed on disk since it was read: each file is
//! locked and checked again immediately before its rename, and a run that
//! cannot replace every file puts back the ones it replaced (`write_all`).

pub(crate) mod add_noqa;

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
pub(crate) struct Accepted {
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
/// edits overlaps an edit already taken (the rest wait for the next pass),
/// leaving out every fix that edits one of `skipped` (files whose fixes did
/// not converge: they are left as they are).
pub(crate) fn accept_except(diagnostics: &[Diagnostic], unsafe_fixes: bool, skipped: &std::collections::BTreeSet<PathBuf>) -> Accepted {
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
pub(crate) fn canonical(path: &Path) -> PathBuf {
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

/// Why a file is left alone: another program changed it between trainlint's read and its write.
const CHANGED: &str = "the file changed on disk since it was read (another program edited it); it is left as it is";

/// How long a fix waits for another trainlint run that is replacing the same file.
const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Whether `bytes` (a file as now on disk) are the text a change was made from (a BOM aside).
fn is_original(bytes: &[u8], original: &str) -> bool {
    let bytes = bytes.strip_prefix(BOM.as_bytes()).unwrap_or(bytes);
    bytes == original.as_bytes()
}

/// Reads a change's file, which must still hold the text the change was made from.
fn read_unchanged(change: &Change) -> Result<Vec<u8>, FatalError> {
    let on_disk = std::fs::read(&change.path).map_err(|e| FatalError::Io { path: change.display.clone(), reason: e.to_string() })?;
    if !is_original(&on_disk, &change.original) {
        return Err(FatalError::FixFailed { path: change.display.clone(), reason: format!("{CHANGED}; nothing was written (run again)") });
    }
    Ok(on_disk)
}

/// Checks every file before writing any: each must be unchanged on disk and writable.
pub(crate) fn preflight(changes: &[Change]) -> Result<(), FatalError> {
    for change in changes {
        read_unchanged(change)?;
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
    let mut hook = Some(before_rename);
    let written = write_all_with(std::slice::from_ref(change), |step, _, temporary| match step {
        Step::Rename => hook.take().map_or(Ok(()), |hook| hook(temporary)),
        Step::Temporary | Step::Checked => Ok(()),
    })?;
    Ok(!written.is_empty())
}

/// Writes every changed file or none, as far as POSIX allows:
///
/// 1. every file is checked (unchanged on disk, not read-only);
/// 2. every fixed text is written to a temporary file beside its original
///    (so a read-only folder, a full disk or a failed `chown` shows up
///    before any original is replaced);
/// 3. every original is opened and locked (`flock`, in path order, so two
///    runs never deadlock; another run's lock is waited for up to 10 s);
/// 4. each file in turn is checked again, immediately before its rename:
///    the path must still name the inode that was locked, holding the text
///    the fix was made from; a file changed meanwhile is left alone;
/// 5. its temporary file (locked too, so another run waits for it) is renamed
///    over it, and the replaced inode is checked once more: a write that
///    landed in it between the check and the rename is put back.
///
/// When a check or a rename fails, the files already replaced are put back
/// from their original bytes (kept in memory), each only while it is still
/// the file this run wrote, and the error says what happened to each.
/// Returns the files written.
pub fn write_all(changes: &[Change]) -> Result<Vec<String>, FatalError> {
    write_all_with(changes, |_, _, _| Ok(()))
}

/// A step of `write_all`, for the test hook.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The temporary file of a changed file was just written.
    Temporary,
    /// Its temporary file is about to be renamed over it: the file is checked
    /// (unchanged since it was read) right after this step.
    Rename,
    /// The file was checked; the rename follows at once (a write made here
    /// lands in the replaced inode and is put back after the rename).
    Checked,
}

/// `write_all` with `hook(step, i, temporary)` called at each step of the
/// `i`-th changed file; an `Err` fails that step (tests inject a full disk,
/// a failed rename, or edit a file as another program would). The commands
/// pass a no-op.
pub fn write_all_with(changes: &[Change], mut hook: impl FnMut(Step, usize, &Path) -> std::io::Result<()>) -> Result<Vec<String>, FatalError> {
    let changes: Vec<&Change> = changes.iter().filter(|c| c.fixed != c.original).collect();
    let owned: Vec<Change> = changes.iter().map(|c| (*c).clone()).collect();
    preflight(&owned)?;
    let targets: Vec<PathBuf> = changes.iter().map(|c| canonical(&c.path)).collect();
    if let Some(i) = (1..targets.len()).find(|&i| targets[..i].contains(&targets[i])) {
        return Err(FatalError::FixFailed { path: changes[i].display.clone(), reason: "two changes name this file (a bug); nothing was written".into() });
    }
    let mut prepared: Vec<Prepared> = Vec::new();
    let discard = |prepared: &[Prepared]| {
        for p in prepared {
            let _ = std::fs::remove_file(&p.temporary);
        }
    };
    for (i, change) in changes.iter().enumerate() {
        let step = read_unchanged(change).and_then(|bytes| {
            prepare(change, &targets[i], bytes).map_err(|error| FatalError::FixFailed {
                path: change.display.clone(),
                reason: format!("cannot write its fixed text beside it ({error}); nothing was written, every file is untouched"),
            })
        });
        let step = step.and_then(|p| {
            let result = hook(Step::Temporary, i, &p.temporary);
            prepared.push(p);
            result.map_err(|error| FatalError::FixFailed {
                path: change.display.clone(),
                reason: format!("cannot write its fixed text beside it ({error}); nothing was written, every file is untouched"),
            })
        });
        if let Err(error) = step {
            discard(&prepared);
            return Err(error);
        }
    }
    // Lock every original, in path order (two runs over overlapping files take their locks in the same order).
    let mut order: Vec<usize> = (0..prepared.len()).collect();
    order.sort_by(|&a, &b| prepared[a].target.cmp(&prepared[b].target));
    let mut locked: Vec<Option<std::fs::File>> = (0..prepared.len()).map(|_| None).collect();
    for i in order {
        match lock_original(&prepared[i].target) {
            Ok(file) => locked[i] = Some(file),
            Err(error) => {
                discard(&prepared);
                return Err(FatalError::FixFailed {
                    path: changes[i].display.clone(),
                    reason: format!("{error}; nothing was written, every file is untouched"),
                });
            }
        }
    }
    let mut replaced: Vec<usize> = Vec::new();
    for i in 0..prepared.len() {
        let p = &prepared[i];
        let original = locked[i].as_mut().expect("every original is locked");
        let failure = commit(p, original, |step| hook(step, i, &p.temporary));
        let (reason, restore_this) = match failure {
            Ok(()) => {
                replaced.push(i);
                continue;
            }
            Err(Failure::Changed) => (CHANGED.to_owned(), None),
            Err(Failure::Io(error)) => (format!("cannot replace it ({error})"), None),
            Err(Failure::ChangedWhileReplaced(bytes)) => {
                (format!("{CHANGED}: another program wrote to it while it was replaced; its text, that write included, is put back"), Some(bytes))
            }
        };
        let mut notes = Vec::new();
        if let Some(Err(error)) = restore_this.map(|bytes| restore(p, &bytes)) {
            notes.push(format!("it could not be put back ({error})"));
        }
        discard(&prepared[i..]);
        let mut put_back = Vec::new();
        let mut left = Vec::new();
        for &j in replaced.iter().rev() {
            match restore(&prepared[j], &prepared[j].original) {
                Ok(()) => put_back.push(changes[j].display.as_str()),
                Err(error) => left.push(format!("{} ({error})", changes[j].display)),
            }
        }
        let outcome = if replaced.is_empty() {
            "the original is untouched; nothing was written".to_owned()
        } else if left.is_empty() {
            format!("the files already replaced were put back as they were ({}); nothing was written", put_back.join(", "))
        } else {
            format!(
                "put back as they were: {}; not put back, left with their fixes: {}",
                if put_back.is_empty() { "none".to_owned() } else { put_back.join(", ") },
                left.join(", ")
            )
        };
        notes.push(outcome);
        return Err(FatalError::FixFailed { path: changes[i].display.clone(), reason: format!("{reason}; {}", notes.join("; ")) });
    }
    drop(locked);
    drop(prepared);
    Ok(changes.iter().map(|c| c.display.clone()).collect())
}

/// Why a file was not replaced.
enum Failure {
    /// It changed since it was read: nothing done to it.
    Changed,
    /// Its bytes changed between the check and the rename (a writer with the
    /// file open): the rename was made; these are its bytes now, to put back.
    ChangedWhileReplaced(Vec<u8>),
    Io(std::io::Error),
}

/// What identifies a file's content without reading it: inode, size, times of change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Identity {
    dev: u64,
    ino: u64,
    len: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl Identity {
    fn of(metadata: &std::fs::Metadata) -> Identity {
        use std::os::unix::fs::MetadataExt;
        Identity {
            dev: metadata.dev(),
            ino: metadata.ino(),
            len: metadata.len(),
            mtime: (metadata.mtime(), metadata.mtime_nsec()),
            ctime: (metadata.ctime(), metadata.ctime_nsec()),
        }
    }
}

/// Opens the file at `target` and takes an exclusive advisory lock on it,
/// waiting up to `LOCK_WAIT` for another run that holds it. A file system
/// without `flock` is not locked (the content checks still hold).
fn lock_original(target: &Path) -> std::io::Result<std::fs::File> {
    let file = std::fs::File::open(target)?;
    let started = std::time::Instant::now();
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(file),
            Err(std::fs::TryLockError::WouldBlock) if started.elapsed() < LOCK_WAIT => std::thread::sleep(std::time::Duration::from_millis(10)),
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(std::io::Error::other(format!("another program (another `trainlint --fix`?) held a lock on it for {} s", LOCK_WAIT.as_secs())));
            }
            Err(std::fs::TryLockError::Error(_)) => return Ok(file),
        }
    }
}

/// Whether the file at `target` is still the one that was read: the path
/// names the inode `original` was opened on, and that inode holds `bytes`.
/// Returns its identity then (to see whether it changes during the rename),
/// `None` when it changed. This is the check made immediately before each
/// rename.
fn still_original(target: &Path, original: &mut std::fs::File, bytes: &[u8]) -> std::io::Result<Option<Identity>> {
    use std::io::{Read, Seek};
    let opened = Identity::of(&original.metadata()?);
    let at_path = Identity::of(&std::fs::metadata(target)?);
    if (opened.dev, opened.ino) != (at_path.dev, at_path.ino) || opened.len != bytes.len() as u64 {
        return Ok(None);
    }
    original.seek(std::io::SeekFrom::Start(0))?;
    let mut now = Vec::with_capacity(bytes.len());
    original.take(bytes.len() as u64 + 1).read_to_end(&mut now)?;
    // Read again after the bytes: a write during the read shows in the times.
    Ok((now == bytes && Identity::of(&original.metadata()?) == opened).then_some(opened))
}

/// Checks one file and renames its temporary file over it.
fn commit(p: &Prepared, original: &mut std::fs::File, mut hook: impl FnMut(Step) -> std::io::Result<()>) -> Result<(), Failure> {
    use std::io::{Read, Seek};
    hook(Step::Rename).map_err(Failure::Io)?;
    let identity = match still_original(&p.target, original, &p.original) {
        Ok(Some(identity)) => identity,
        Ok(None) => return Err(Failure::Changed),
        Err(error) => return Err(Failure::Io(error)),
    };
    hook(Step::Checked).map_err(Failure::Io)?;
    std::fs::rename(&p.temporary, &p.target).map_err(Failure::Io)?;
    // A program that had the file open may have written to it after the check.
    // (Its change time moves with the rename, which unlinks it: size and modification time tell.)
    let after = original.metadata().map(|m| Identity::of(&m));
    if after.as_ref().is_ok_and(|after| (after.len, after.mtime) == (identity.len, identity.mtime)) {
        return Ok(());
    }
    let mut bytes = Vec::new();
    let _ = original.seek(std::io::SeekFrom::Start(0)).and_then(|_| original.read_to_end(&mut bytes));
    Err(Failure::ChangedWhileReplaced(bytes))
}

/// Puts `bytes` back at `p.target`, atomically (a temporary file, the
/// original's mode, owner and group), only while the file there is still
/// the one this run wrote (its inode): a file another program replaced since
/// is left as it is.
fn restore(p: &Prepared, bytes: &[u8]) -> std::io::Result<()> {
    let now = Identity::of(&std::fs::metadata(&p.target)?);
    if (now.dev, now.ino) != p.written {
        return Err(std::io::Error::other("another program replaced it since"));
    }
    let file = write_temporary(&p.temporary, bytes, &p.metadata)?;
    drop(file);
    std::fs::rename(&p.temporary, &p.target).inspect_err(|_| {
        let _ = std::fs::remove_file(&p.temporary);
    })
}

/// A fixed text in its temporary file, ready to be renamed over `target`.
struct Prepared {
    temporary: PathBuf,
    target: PathBuf,
    /// The original's bytes (its BOM included), as checked against the
    /// text the fix was made from: what a failed run puts back.
    original: Vec<u8>,
    /// The original's metadata: mode, owner and group.
    metadata: std::fs::Metadata,
    /// The temporary file's device and inode: after the rename, the file at
    /// `target` is this run's while it has them.
    written: (u64, u64),
    /// The temporary file, open and locked: after the rename another run
    /// waits for this run to finish with it (commit or put back).
    _lock: std::fs::File,
}

/// Writes the temporary file of a change: BOM kept, permissions, owner and
/// group of the original, flushed to disk. The temporary file is removed
/// again when any step fails. Stale temporary files of a killed run are
/// removed first.
fn prepare(change: &Change, target: &Path, on_disk: Vec<u8>) -> std::io::Result<Prepared> {
    use std::os::unix::fs::MetadataExt;
    let bom = if on_disk.starts_with(BOM.as_bytes()) { BOM } else { "" };
    let metadata = std::fs::metadata(target)?;
    let dir = target.parent().unwrap_or(Path::new("."));
    let name = target.file_name().ok_or_else(|| std::io::Error::other("no file name"))?;
    remove_stale_temporaries(dir, name);
    let temporary = dir.join(temporary_name(name, std::process::id()));
    let text = [bom.as_bytes(), change.fixed.as_bytes()].concat();
    let file = write_temporary(&temporary, &text, &metadata)?;
    let created = file.metadata()?;
    // Locked before the rename: nothing else holds a file just created.
    let _ = file.try_lock();
    Ok(Prepared { temporary, target: target.to_path_buf(), original: on_disk, metadata, written: (created.dev(), created.ino()), _lock: file })
}

/// Creates `temporary` (it must not exist) holding `bytes`, with the mode,
/// owner and group of `like`, flushed to disk; removed again on any error.
fn write_temporary(temporary: &Path, bytes: &[u8], like: &std::fs::Metadata) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::MetadataExt;
    let mut file = std::fs::OpenOptions::new().write(true).create_new(true).open(temporary)?;
    let result = (|| -> std::io::Result<()> {
        file.write_all(bytes)?;
        // Running as root, a new file is root's: give it the original's owner and group.
        let created = file.metadata()?;
        if (created.uid(), created.gid()) != (like.uid(), like.gid()) {
            std::os::unix::fs::fchown(&file, Some(like.uid()), Some(like.gid()))
                .map_err(|e| std::io::Error::new(e.kind(), format!("cannot keep its owner {} and group {}: {e}", like.uid(), like.gid())))?;
        }
        file.sync_all()?;
        std::fs::set_permissions(temporary, like.permissions())
    })();
    match result {
        Ok(()) => Ok(file),
        Err(error) => {
            let _ = std::fs::remove_file(temporary);
            Err(error)
        }
    }
}

/// The longest file name most file systems take (`NAME_MAX`).
const NAME_MAX: usize = 255;

/// `.<name>.trainlint-<pid>.tmp`: the temporary file of `name` written by
/// process `pid`, built from the name's bytes (a name that is not UTF-8
/// gets a temporary name of its own, never a shared stand-in). A name too
/// long for that (over 229 bytes) is cut to 128 bytes and a hash of the
/// whole name: `.<first 128 bytes>~<16 hex digits>.trainlint-<pid>.tmp`.
pub fn temporary_name(name: impl AsRef<std::ffi::OsStr>, pid: u32) -> std::ffi::OsString {
    use std::os::unix::ffi::OsStringExt;
    let mut bytes = temporary_stem(name.as_ref());
    bytes.extend_from_slice(format!("{pid}.tmp").as_bytes());
    std::ffi::OsString::from_vec(bytes)
}

/// `.<name>.trainlint-` (or its shortened form): what every temporary file of `name` starts with.
fn temporary_stem(name: &std::ffi::OsStr) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    let name = name.as_bytes();
    let longest = format!(".{}.trainlint-{}.tmp", "", u32::MAX).len();
    let mut stem = vec![b'.'];
    if name.len() + longest <= NAME_MAX {
        stem.extend_from_slice(name);
    } else {
        // FNV-1a: the same name gives the same stem in every run (stale files are found again).
        let hash = name.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3));
        stem.extend_from_slice(&name[..128]);
        stem.extend_from_slice(format!("~{hash:016x}").as_bytes());
    }
    stem.extend_from_slice(b".trainlint-");
    stem
}

/// Removes the temporary files of `name` that a killed `--fix` left in `dir`
/// (`kill -9` between the write and the rename): those of a process that no
/// longer runs, or of this process's id (a reused id of a dead process).
/// Only regular files named exactly so are removed; where the process table
/// cannot be read (no `/proc`), only this process's id is cleaned.
pub(crate) fn remove_stale_temporaries(dir: &Path, name: impl AsRef<std::ffi::OsStr>) -> Vec<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    let prefix = temporary_stem(name.as_ref());
    let proc_readable = Path::new("/proc/self").exists();
    let mut removed = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return removed };
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(pid) = file_name.as_bytes().strip_prefix(prefix.as_slice()).and_then(|n| n.strip_suffix(b".tmp")) else { continue };
        let Some(pid) = std::str::from_utf8(pid).ok().and_then(|p| p.parse::<u32>().ok()) else { continue };
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

/// Writes a report (`check --output-file`) without following a link: a path
/// that is a symbolic link is refused (it could point anywhere, outside the
/// project too), and the text goes to a new temporary file beside it that is
/// renamed over the path, so a link planted after the check is replaced,
/// never written through, and a reader never sees half a report.
pub(crate) fn write_report(path: &Path, text: &str) -> Result<(), FatalError> {
    let display = path.display().to_string();
    let fail = |reason: String| FatalError::usage(format!("cannot write the report to `{}`: {reason}", crate::render::escape_controls(&display)), None);
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(FatalError::usage(
            format!("`--output-file {}` is a symbolic link: the report is not written through it", crate::render::escape_controls(&display)),
            Some("name the file the link points to, or remove the link".to_owned()),
        ));
    }
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        return Err(fail("not a regular file; the report is not written".to_owned()));
    }
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().ok_or_else(|| fail("no file name".to_owned()))?;
    let temporary = dir.join(temporary_name(name, std::process::id()));
    let result = (|| -> std::io::Result<()> {
        let mut file = std::fs::OpenOptions::new().write(true).create_new(true).open(&temporary)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&temporary, path)
    })();
    result.map_err(|e| {
        let _ = std::fs::remove_file(&temporary);
        fail(e.to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("trainlint-apply-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn change(path: &Path, original: &str, fixed: &str) -> Change {
        Change { path: path.to_path_buf(), display: path.file_name().unwrap().to_string_lossy().into_owned(), original: original.into(), fixed: fixed.into() }
    }

    /// Issue 26, item 2: the check made immediately before the rename sees a
    /// file modified between the read and the commit: appended to (same
    /// inode), or replaced (another inode, same text).
    #[test]
    fn the_check_before_the_rename_sees_a_file_modified_since_it_was_read() {
        let dir = scratch("still-original");
        let path = dir.join("c.yaml");
        std::fs::write(&path, "a: 1\n").unwrap();
        let mut opened = std::fs::File::open(&path).unwrap();
        assert!(still_original(&path, &mut opened, b"a: 1\n").unwrap().is_some(), "unchanged");
        // A writer appends a line.
        std::fs::OpenOptions::new().append(true).open(&path).unwrap().write_all(b"b: 2\n").unwrap();
        assert!(still_original(&path, &mut opened, b"a: 1\n").unwrap().is_none(), "appended to");
        // An editor saves the same text through a rename: another file, no longer the one read.
        std::fs::write(dir.join("new"), "a: 1\n").unwrap();
        let mut opened = std::fs::File::open(&path).unwrap();
        std::fs::rename(dir.join("new"), &path).unwrap();
        assert!(still_original(&path, &mut opened, b"a: 1\nb: 2\n").unwrap().is_none(), "replaced");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Issue 26, item 2: a line appended after the fix was computed and after
    /// the first check (the hook runs right before the last check) is kept,
    /// nothing is written, and the message names the file.
    #[test]
    fn a_file_appended_to_while_fix_runs_is_left_alone() {
        let dir = scratch("appended");
        let path = dir.join("c.yaml");
        std::fs::write(&path, "a: 1\n").unwrap();
        let append = |step, _, _: &Path| {
            if step == Step::Rename {
                std::fs::OpenOptions::new().append(true).open(&path)?.write_all(b"# added by another program\n")?;
            }
            Ok(())
        };
        let error = write_all_with(&[change(&path, "a: 1\n", "a: 2\n")], append).unwrap_err().to_string();
        assert!(error.contains("`c.yaml`") && error.contains("changed on disk since it was read") && error.contains("nothing was written"), "{error}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "a: 1\n# added by another program\n");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1, "no temporary file left");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Issue 26, item 2: a write that lands in the file between the last check
    /// and the rename (a program that had it open) is seen in the replaced
    /// inode after the rename, and the file is put back with that write.
    #[test]
    fn a_write_between_the_check_and_the_rename_is_put_back() {
        let dir = scratch("raced");
        let path = dir.join("c.yaml");
        std::fs::write(&path, "a: 1\n").unwrap();
        let mut writer = None;
        let race = |step, _, _: &Path| {
            if step == Step::Checked {
                let mut file = std::fs::OpenOptions::new().append(true).open(&path)?;
                file.write_all(b"# raced\n")?;
                writer = Some(file);
            }
            Ok(())
        };
        let error = write_all_with(&[change(&path, "a: 1\n", "a: 2\n")], race).unwrap_err().to_string();
        assert!(error.contains("while it was replaced") && error.contains("put back"), "{error}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "a: 1\n# raced\n", "the write is kept");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1, "no temporary file left");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Issue 26, item 4: a name of 250 bytes (NAME_MAX is 255) gets a
    /// temporary name that fits, in the same folder, and the stale-file
    /// cleanup finds it again; a name that is not UTF-8 keeps its own bytes.
    #[test]
    fn temporary_names_fit_and_are_distinct() {
        use std::os::unix::ffi::{OsStrExt, OsStringExt};
        let long = format!("{}.yaml", "n".repeat(245));
        let name = temporary_name(&long, u32::MAX);
        assert!(name.len() <= NAME_MAX, "{} bytes", name.len());
        assert_ne!(temporary_name(&long, 7), temporary_name(format!("{}.yaml", "n".repeat(244) + "m"), 7), "the hash tells long names apart");
        let a = std::ffi::OsString::from_vec(b"a\xff.yaml".to_vec());
        let b = std::ffi::OsString::from_vec(b"b\xfe.yaml".to_vec());
        assert_ne!(temporary_name(&a, 7), temporary_name(&b, 7));
        assert_eq!(temporary_name(&a, 7).as_bytes(), b".a\xff.yaml.trainlint-7.tmp");
        let dir = scratch("long-name");
        std::fs::write(dir.join(temporary_name(&long, std::process::id())), "stale").unwrap();
        assert_eq!(remove_stale_temporaries(&dir, &long).len(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
