//! Data flows one way: a module may import only from its own layer or the
//! layers below it. This test reads every `crate::…` path in `src/` and fails
//! when a module reaches into a layer above its own (or into a module that no
//! layer lists, so a new top-level module must be placed here on purpose).
//!
//! The layers, lowest first, are the ones book/src/architecture.md draws.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Lowest first. Modules in one layer may import each other.
const LAYERS: &[&[&str]] = &[
    &["source", "error"],
    &["diagnostic"],
    &["load"],
    &["schema", "gpus", "model"],
    &["dialects"],
    &["settings"],
    &["resolve"],
    &["estimate"],
    &["rules"],
    &["linter"],
    &["render", "apply"],
    &["docs"],
    &["commands"],
    &["cli"],
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src/ is readable") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a file of `src/` belongs to (`src/rules/batch/mod.rs` → `rules`).
fn module_of(src: &Path, file: &Path) -> String {
    let relative = file.strip_prefix(src).expect("under src");
    let first = relative.components().next().expect("a component").as_os_str().to_string_lossy().into_owned();
    first.trim_end_matches(".rs").to_owned()
}

/// Every top-level module named after `crate::` in the text (code only: comments are skipped).
fn imported_modules(text: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            rest = &rest[at + "crate::".len()..];
            let name: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            if !name.is_empty() {
                found.insert(name);
            }
        }
        // `use crate::{a, b}` groups.
        if let Some(at) = code.find("crate::{") {
            let group = &code[at + "crate::{".len()..];
            for part in group.split([',', '}']) {
                let name: String = part.trim().chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                if !name.is_empty() {
                    found.insert(name);
                }
            }
        }
    }
    found
}

/// Names of `#[macro_export]` macros: they live at the crate root, whatever file declares them.
fn exported_macros(files: &[PathBuf]) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for file in files {
        let text = std::fs::read_to_string(file).expect("readable");
        let mut exported = false;
        for line in text.lines() {
            let line = line.trim();
            if line == "#[macro_export]" {
                exported = true;
            } else if let Some(rest) = line.strip_prefix("macro_rules!").filter(|_| exported) {
                names.insert(rest.trim().trim_end_matches('{').trim().to_owned());
                exported = false;
            } else if !line.starts_with("#[") {
                exported = false;
            }
        }
    }
    names
}

#[test]
fn modules_import_only_from_their_layer_or_below() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let macros = exported_macros(&files);
    let mut violations = Vec::new();
    for file in &files {
        let module = module_of(&src, file);
        if module == "lib" || module == "main" {
            continue;
        }
        let Some(own) = layer_of(&module) else {
            violations.push(format!("{}: module `{module}` is in no layer (add it to LAYERS in tests/layering.rs)", file.display()));
            continue;
        };
        let text = std::fs::read_to_string(file).expect("readable");
        for imported in imported_modules(&text) {
            if imported == module {
                continue;
            }
            // Macros exported at the crate root (`use crate::declare_rule;`) are not modules.
            if macros.contains(&imported) {
                continue;
            }
            match layer_of(&imported) {
                Some(layer) if layer <= own => {}
                Some(_) => violations.push(format!("{}: `{module}` imports `crate::{imported}` from a layer above it", file.display())),
                None => violations.push(format!("{}: `crate::{imported}` is in no layer", file.display())),
            }
        }
    }
    assert!(violations.is_empty(), "layering violations:\n{}", violations.join("\n"));
}

#[test]
fn the_check_can_fail() {
    // An import from above is seen, in a `use` line and in a path in code.
    let found = imported_modules("use crate::rules::RuleMeta;\nlet x = crate::commands::print(\"\"); // crate::cli in a comment\n");
    assert_eq!(found.into_iter().collect::<Vec<_>>(), ["commands", "rules"]);
    let grouped = imported_modules("use crate::{load, resolve::Dialect};");
    assert!(grouped.contains("load") && grouped.contains("resolve"));
    assert!(layer_of("rules") > layer_of("resolve"));
}

/// The identifier after `pub fn` / `pub const` / `pub static` (`pub const fn` included) on a line
/// of `src/`, if the line declares one.
fn public_item(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix("pub ")?;
    let rest =
        rest.strip_prefix("const fn ").or_else(|| rest.strip_prefix("fn ")).or_else(|| rest.strip_prefix("const ")).or_else(|| rest.strip_prefix("static "))?;
    let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(rest.len());
    (end > 0).then(|| &rest[..end])
}

/// Issue 27: internals are crate-private, and the library's surface is what the tests, the bench,
/// the fuzz targets and `main.rs` use. Every `pub fn`, `pub const` and `pub static` of `src/` is
/// named in one of them as they would reach it: a module's item by a path (`discover::walk`, or
/// through a module re-exporting it) or in a `use trainlint::…` list, a method after `.` or `::` (a new item starts `pub(crate)`:
/// book/src/architecture.md, "What is public"). A type stays `pub` where a public signature
/// needs it, which the compiler's `private_interfaces` lint holds (every `pub` type no test
/// names was tried `pub(crate)` on 2026-11-27, and each one a public signature or
/// `declare_rule!` needs).
#[test]
fn public_functions_are_the_surface_the_tests_use() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut outside = vec![repo.join("src/main.rs")];
    for dir in ["tests", "benches", "fuzz/fuzz_targets"] {
        if repo.join(dir).is_dir() {
            rust_files(&repo.join(dir), &mut outside);
        }
    }
    let text: String = outside.iter().map(|file| std::fs::read_to_string(file).expect("readable") + "\n").collect();
    // The names in `use trainlint::…;` statements.
    let mut imported = BTreeSet::new();
    for statement in text.split("use trainlint::").skip(1) {
        let statement = statement.split(';').next().unwrap_or("");
        imported.extend(statement.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|t| !t.is_empty()).map(str::to_owned));
    }
    let reached = |prefix: &str, name: &str| {
        text.match_indices(&format!("{prefix}{name}")).any(|(at, found)| !text[at + found.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_'))
    };
    let mut src = Vec::new();
    rust_files(&repo.join("src"), &mut src);
    let mut unnamed = Vec::new();
    let mut public = 0;
    for file in src.iter().filter(|f| !f.ends_with("main.rs")) {
        let source = std::fs::read_to_string(file).expect("readable");
        for (index, line) in source.lines().enumerate() {
            let Some(name) = public_item(line) else { continue };
            public += 1;
            let at_module_level = !line.starts_with(char::is_whitespace);
            let named = if at_module_level { reached("::", name) || imported.contains(name) } else { reached(".", name) || reached("::", name) };
            if !named {
                unnamed.push(format!("{}:{}: {name}", file.strip_prefix(repo).unwrap_or(file).display(), index + 1));
            }
        }
    }
    assert!(public > 100, "the scan finds the public functions: {public}");
    assert!(unnamed.is_empty(), "`pub` items no test, bench, fuzz target or main.rs names (make them `pub(crate)`):\n{}", unnamed.join("\n"));
    assert_eq!(public_item("    pub const fn limit(self) -> usize {"), Some("limit"));
    assert_eq!(public_item("pub(crate) fn hidden() {}"), None);
}
