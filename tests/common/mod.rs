#![allow(dead_code)]
//! Helpers shared by the integration tests.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `../shared`, when present. CI has it: with `CI` set, a missing `../shared` fails the test
/// that needs it instead of letting it skip and count as passed (issue 27).
pub fn shared() -> Option<PathBuf> {
    let path = repo().join("../shared");
    if path.is_dir() {
        return Some(path);
    }
    let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && !v.eq_ignore_ascii_case("false"));
    assert!(!ci, "CI is set but {} is missing: the tests that read it would pass without checking anything", path.display());
    None
}

/// Runs the trainlint binary in `dir` with `args`.
pub fn trainlint_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_trainlint")).args(args).current_dir(dir).env("NO_COLOR", "1").output().expect("run trainlint")
}

pub fn trainlint(args: &[&str]) -> Output {
    trainlint_in(&repo(), args)
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A new, empty `trainlint-{label}-{pid}` folder in the temporary directory.
pub fn fresh_dir(label: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("trainlint-{label}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Copies a folder tree (the fixtures are plain files and folders).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target)
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A copy of the seed 004 fixture (config, curriculum stages, manifest) at `to`.
pub fn copy_seed_004(to: &Path) {
    copy_dir(&repo().join("fixtures/seeds/004_naics_embedder"), to);
}

/// The median of a list (sorted in place); NaN when it is empty.
pub fn median(values: &mut [f64]) -> f64 {
    values.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = values.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 { values[n / 2] } else { (values[n / 2 - 1] + values[n / 2]) / 2.0 }
}
