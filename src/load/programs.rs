//! Finding the programs trainlint runs (`nvidia-smi`, `rocm-smi` for `--gpu
//! auto`, `git` for `--baseline`) without running one a repository planted.

use std::path::PathBuf;

/// The absolute path of an executable `name` on `path`, skipping relative
/// entries and entries inside `untrusted` (canonicalised, links resolved).
pub(crate) fn find_program(name: &str, path: &std::ffi::OsStr, untrusted: &[PathBuf]) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let untrusted: Vec<PathBuf> = untrusted.iter().filter_map(|p| std::fs::canonicalize(p).ok()).collect();
    for dir in std::env::split_paths(path) {
        if !dir.is_absolute() {
            continue;
        }
        let Ok(canonical) = std::fs::canonicalize(&dir) else { continue };
        if untrusted.iter().any(|u| canonical.starts_with(u)) {
            continue;
        }
        let candidate = canonical.join(name);
        if std::fs::metadata(&candidate).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0) {
            return Some(candidate);
        }
    }
    None
}
