//! Reading files as they were at a git revision, for `--baseline REV`.
//!
//! `git show REV:./path` reads the blob without checking anything out and
//! without touching the work tree or the index.
//!
//! `git` is looked up as `--gpu auto` looks up `nvidia-smi`
//! (`gpus::find_program`): only absolute `PATH` entries outside the working
//! directory and the repository, so a `./git` planted in a cloned repository
//! never runs, even with `.` on `PATH`; it is run by its absolute path.

use super::loader::DirEntry;
use crate::error::FatalError;
use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(Clone, Debug)]
pub struct Revision {
    pub name: String,
    /// The `git` run, by its absolute path (`find_git`).
    pub git: PathBuf,
}

/// The `git` to run for the repository around `dir`: on `PATH`, skipping
/// relative entries and entries inside the working directory, `dir` or the
/// work tree around it (a program planted in the project never runs).
pub(crate) fn find_git(dir: &Path) -> Option<PathBuf> {
    find_git_on(&std::env::var_os("PATH").unwrap_or_default(), dir)
}

/// `find_git` with the search path given.
pub(crate) fn find_git_on(path: &std::ffi::OsStr, dir: &Path) -> Option<PathBuf> {
    let mut untrusted: Vec<PathBuf> = vec![dir.to_path_buf()];
    untrusted.extend(std::env::current_dir().ok());
    untrusted.extend(work_tree_root(dir));
    super::programs::find_program("git", path, &untrusted)
}

impl Revision {
    /// Checks that `name` is a commit of the repository around `dir`.
    pub fn verify(name: &str, dir: &Path) -> Result<Revision, FatalError> {
        let git = find_git(dir).ok_or_else(|| {
            FatalError::usage(
                "--baseline needs git: no `git` found on PATH",
                Some("relative PATH entries, the working directory and the repository's folders are not searched".to_owned()),
            )
        })?;
        let output = Command::new(&git)
            .arg("-C")
            .arg(dir)
            .args(["rev-parse", "--verify", "--quiet", &format!("{name}^{{commit}}")])
            .output()
            .map_err(|e| FatalError::usage(format!("--baseline needs git: {e}"), None))?;
        if !output.status.success() {
            return Err(FatalError::usage(
                format!("`{name}` is not a commit of the git repository at `{}`", dir.display()),
                Some("--baseline takes a revision git understands (HEAD, main, a tag, a commit hash) inside a git repository".to_owned()),
            ));
        }
        Ok(Revision { name: name.to_owned(), git })
    }

    /// The file at this revision, at most `limit` bytes of it (the caller
    /// tells a blob over its limit by the length); `None` when it did not exist there.
    pub fn read(&self, path: &Path, limit: u64) -> std::io::Result<Option<Vec<u8>>> {
        use std::io::Read;
        let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let name = path.file_name().and_then(|n| n.to_str()).ok_or_else(|| std::io::Error::other("path has no file name"))?;
        let mut child = Command::new(&self.git)
            .arg("-C")
            .arg(dir)
            .arg("show")
            .arg(format!("{}:./{name}", self.name))
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()?;
        let mut bytes = Vec::new();
        let read = child.stdout.take().map(|out| out.take(limit).read_to_end(&mut bytes));
        if bytes.len() as u64 >= limit {
            // Over the limit: stop git rather than read the rest of the blob.
            let _ = child.kill();
        }
        let status = child.wait()?;
        if let Some(result) = read {
            result?;
        }
        Ok((status.success() || bytes.len() as u64 >= limit).then_some(bytes))
    }

    /// The entries of `dir` at this revision (`git ls-tree`, names relative to
    /// `dir`); `None` when the folder did not exist there.
    pub fn list(&self, dir: &Path) -> std::io::Result<Option<Vec<DirEntry>>> {
        if !dir.is_dir() {
            // `git -C` needs the folder in the work tree; one deleted since is not listed.
            return Ok(None);
        }
        let output = Command::new(&self.git).arg("-C").arg(dir).args(["ls-tree", "-z", &self.name]).output()?;
        if !output.status.success() {
            return Ok(None);
        }
        let text = String::from_utf8_lossy(&output.stdout);
        // `<mode> SP <type> SP <object> TAB <name>`, NUL-terminated.
        let entries = text
            .split('\0')
            .filter_map(|line| {
                let (meta, name) = line.split_once('\t')?;
                let kind = meta.split(' ').nth(1)?;
                Some(DirEntry { name: name.to_owned(), is_dir: kind == "tree" })
            })
            .collect();
        Ok(Some(entries))
    }
}

/// The work tree around `start`: the nearest folder, `start` itself or above
/// it, holding a `.git` entry (a folder, or the file a worktree or submodule
/// has). Found by looking at the file system only; no git process is run.
pub(crate) fn work_tree_root(start: &Path) -> Option<std::path::PathBuf> {
    let absolute = std::fs::canonicalize(start).or_else(|_| std::path::absolute(start)).ok()?;
    absolute.ancestors().find(|dir| dir.join(".git").exists()).map(Path::to_path_buf)
}
