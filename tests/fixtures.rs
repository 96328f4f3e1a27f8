//! One insta snapshot per fixture: the input, the rendered diagnostics (no
//! colour, fixed width) and the JSON. Fixtures named `ok_*` must produce no
//! diagnostic of the rule their folder is named after.

mod common;

use trainlint::linter;
use trainlint::load::Format;
use trainlint::load::discover::SourcePath;
use trainlint::render::{self, Summary, full::Style};
use trainlint::settings::{Overrides, Settings};

fn snapshot_for(path: &std::path::Path) -> String {
    let repo = common::repo();
    let relative = path.strip_prefix(&repo).unwrap_or(path);
    let display = relative.display().to_string();
    let format = Format::from_path(path).unwrap_or(Format::Yaml);
    let settings = Settings::discover(&[path.to_path_buf()], &Overrides::default()).expect("settings");
    let file = SourcePath { path: path.to_path_buf(), display: display.clone(), format };
    let report = linter::lint_file(&file, &settings).expect("fixture is readable");

    let folder = relative.parent().and_then(|p| p.file_name()).and_then(|n| n.to_str()).unwrap_or("");
    let name = relative.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if name.starts_with("ok_") {
        assert!(
            !report.diagnostics.iter().any(|d| d.rule.code == folder),
            "{display} must not trigger {folder}: {:?}",
            report.diagnostics.iter().map(|d| &d.message).collect::<Vec<_>>()
        );
    } else if folder.len() == 6 && folder.chars().all(|c| c.is_ascii_alphanumeric()) {
        assert!(report.diagnostics.iter().any(|d| d.rule.code == folder), "{display} must trigger {folder}");
    }

    let bytes = std::fs::read(path).expect("read fixture");
    let input = match std::str::from_utf8(&bytes) {
        Ok(text) if !text.contains('\0') && text.len() < 4_000 => text.to_owned(),
        _ => format!("<{} bytes, not shown: binary, non-UTF-8 or large>\n", bytes.len()),
    };
    let full = render::full::render(&report.diagnostics, Style::plain());
    let json = render::json::render(&report.diagnostics, &Summary::new(1, &report.diagnostics));
    format!("----- input -----\n{input}\n----- diagnostics -----\n{full}\n----- json -----\n{json}")
}

#[test]
fn rule_fixtures() {
    insta::glob!("../fixtures/rules", "*/*", |path| {
        insta::assert_snapshot!(snapshot_for(path));
    });
}

#[test]
fn seed_fixtures() {
    insta::glob!("../fixtures/seeds", "**/*.yaml", |path| {
        insta::assert_snapshot!(snapshot_for(path));
    });
}
