//! One insta snapshot per fixture: the input, the rendered diagnostics (no
//! colour, fixed width) and the JSON. A fixture is a file, or a folder (with
//! its own `trainlint.toml`) checked as a whole. Fixtures named `ok_*` must
//! produce no diagnostic of the rule their folder is named after; the others
//! must produce at least one.

mod common;

use std::path::{Path, PathBuf};
use trainlint::commands::check::collect;
use trainlint::render::{self, Summary, full::Style};
use trainlint::settings::Overrides;

fn input_of(path: &Path) -> String {
    let mut files: Vec<PathBuf> = if path.is_dir() {
        walk(path)
    } else {
        vec![path.to_path_buf()]
    };
    files.sort();
    let mut out = String::new();
    for file in files {
        let bytes = std::fs::read(&file).expect("read fixture");
        if path.is_dir() {
            out.push_str(&format!("==> {} <==\n", file.strip_prefix(path).unwrap_or(&file).display()));
        }
        match std::str::from_utf8(&bytes) {
            Ok(text) if !text.contains('\0') && text.len() < 4_000 => out.push_str(text),
            _ => out.push_str(&format!("<{} bytes, not shown: binary, non-UTF-8 or large>\n", bytes.len())),
        }
    }
    out
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() { out.extend(walk(&path)) } else { out.push(path) }
    }
    out
}

fn snapshot_for(path: &Path) -> String {
    let repo = common::repo();
    let relative = path.strip_prefix(&repo).unwrap_or(path).to_path_buf();
    let (files, diagnostics) = collect(&[relative.clone()], &Overrides::default(), None, false, false).expect("fixture checks");

    let folder = relative.parent().and_then(|p| p.file_name()).and_then(|n| n.to_str()).unwrap_or("");
    let name = relative.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let display = relative.display();
    if name.starts_with("ok_") {
        assert!(
            !diagnostics.iter().any(|d| d.rule.code == folder),
            "{display} must not trigger {folder}: {:?}",
            diagnostics.iter().map(|d| &d.message).collect::<Vec<_>>()
        );
    } else if trainlint::rules::codes::find(folder).is_some() {
        assert!(diagnostics.iter().any(|d| d.rule.code == folder), "{display} must trigger {folder}");
    }

    let full = render::full::render(&diagnostics, Style::plain());
    let json = render::json::render(&diagnostics, &Summary::new(files, &diagnostics));
    format!("----- input -----\n{}\n----- diagnostics -----\n{full}\n----- json -----\n{json}", input_of(path))
}

#[test]
fn rule_fixtures() {
    insta::glob!("../fixtures/rules", "*/*", |path| {
        insta::assert_snapshot!(snapshot_for(path));
    });
}

#[test]
fn seed_fixtures() {
    insta::glob!("../fixtures/seeds", "[0-9]*", |path| {
        insta::assert_snapshot!(snapshot_for(path));
    });
}
