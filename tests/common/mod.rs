#![allow(dead_code)]
//! Helpers shared by the integration tests.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `../shared`, when present (CI has it).
pub fn shared() -> Option<PathBuf> {
    let path = repo().join("../shared");
    path.is_dir().then_some(path)
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
