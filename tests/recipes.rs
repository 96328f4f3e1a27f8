//! The architecture page's three recipes (`book/src/architecture.md`: "Adding a framework",
//! "Adding a rule", "Adding a memory component"), followed to the letter on a copy of the crate,
//! so that they stay true as the code changes (issue 27).
//!
//! The test copies what the crate needs to build into `<target>/recipes/crate`, adds a toy
//! framework (`toyfw`, a file whose top-level key is `toy_trainer:`), a toy batch rule and a toy
//! memory component by writing their files and inserting one line at each place the recipe
//! names, builds the copy's binary into `<target>/recipes` and runs it on a toy config: `show`
//! names the dialect, `check` reports the rule, `estimate` prints the component's row. When a
//! place a recipe names is gone, the test fails saying which recipe step no longer matches the
//! code; when the copy no longer builds, it says which recipe's files the errors are in.
//!
//! The copy keeps its path and rewrites only the files whose text changed, so a second run
//! rebuilds nothing but what the repository changed. It is built `--offline --locked`: the
//! outer `cargo test` has already fetched every dependency the binary needs, so the copy never
//! needs the network.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `src/dialects/toy.rs`: "Adding a framework", steps 1–3.
const TOY_DIALECT: &str = r##"//! A toy framework, written by `tests/recipes.rs` as the "Adding a framework" recipe says.
//! Its files have a top-level `toy_trainer:` mapping.

use super::{Dialect, Doc, Evidence, Framework};
use crate::schema::{Manifest, Role};

pub const TOY: Dialect = Dialect(&Toy);

pub struct Toy;

/// Role → key path (the toy framework's own spelling).
const BINDINGS: [(Role, &str); 4] = [
    (Role::MicroBatch, "toy_trainer.micro_batch"),
    (Role::Accumulation, "toy_trainer.accumulate"),
    (Role::Devices, "toy_trainer.gpus"),
    (Role::Model, "toy_trainer.model"),
];

impl Framework for Toy {
    fn name(&self) -> &'static str {
        "toyfw"
    }

    fn title(&self) -> &'static str {
        "Toy framework"
    }

    fn doc(&self) -> Doc {
        Doc {
            evidence: "`toy_trainer`",
            roles: "`toy_trainer.micro_batch`, `toy_trainer.accumulate`, `toy_trainer.gpus`, `toy_trainer.model`",
            semantics: "",
        }
    }

    fn evidence(&self, cx: &Evidence) -> Option<String> {
        cx.has("toy_trainer").then(|| "the toy framework's top-level `toy_trainer`".to_owned())
    }

    fn bindings(&self, _manifest: &Manifest) -> Vec<(Role, String)> {
        super::owned(&BINDINGS)
    }
}
"##;

/// The toy rule's file, type and name: one name (`tests/codes.rs`).
const RULE_FILE: &str = "toy_config_noted";
const RULE_TYPE: &str = "ToyConfigNoted";

/// `src/rules/batch/toy_config_noted.rs`: "Adding a rule", steps 1–2.
const TOY_RULE: &str = r##"use super::at;
use crate::declare_rule;
use crate::diagnostic::Diagnostic;
use crate::resolve::ResolvedConfig;
use crate::schema::Role;

declare_rule! {
    /// ## What it does
    /// Notes every config of the toy framework (written by `tests/recipes.rs`).
    ///
    /// ## Why is this bad?
    /// It is not: the rule exists to show that the "Adding a rule" recipe builds.
    ///
    /// ## Example
    /// ```yaml
    /// toy_trainer:
    ///   micro_batch: 2
    /// ```
    ///
    /// Use instead:
    /// ```yaml
    /// micro_batch: 2
    /// ```
    ///
    /// ## Fix safety
    /// There is no fix.
    pub struct ToyConfigNoted {
        name: "toy-config-noted",
        severity: Warning,
        fix: None,
        since: "0.1.0",
        check: Batch,
    }
}

/// The finding, for a config of the toy framework.
pub fn check(resolved: &ResolvedConfig) -> Option<Diagnostic> {
    (resolved.detection.dialect.name() == "toyfw").then(|| {
        at(ToyConfigNoted, resolved, &[Role::MicroBatch], "a toy framework config".to_owned())
            .with_note("the recipe test's toy framework")
            .with_help("nothing to do")
    })
}
"##;

/// The call the batch family's function makes: "Adding a rule", step 2.
const TOY_RULE_CALL: &str = "    if let Some(diagnostic) = toy_config_noted::check(resolved) {\n        checker.report(diagnostic);\n    }";

/// `src/estimate/components/toy_part.rs`: "Adding a memory component", steps 1, 2 and 4.
const TOY_COMPONENT: &str = r##"//! A toy component, written by `tests/recipes.rs` as the "Adding a memory component" recipe says.

use super::{MemoryComponent, Run, Term};
use crate::estimate::{GIB, NotEstimable};

pub struct ToyPart;

/// The toy framework's buffer: 1 GiB (source: `tests/recipes.rs`, a made-up constant).
pub const TOY_BUFFER_GIB: f64 = 1.0;

impl MemoryComponent for ToyPart {
    fn id(&self) -> &'static str {
        "toy-part"
    }

    fn source(&self) -> &'static str {
        "tests/recipes.rs (a made-up constant)"
    }

    fn terms(&self, run: &Run, _notes: &mut Vec<String>) -> Result<Vec<Term>, NotEstimable> {
        if run.resolved.detection.dialect.name() != "toyfw" {
            return Ok(Vec::new());
        }
        Ok(vec![Term::fixed("toy buffer", TOY_BUFFER_GIB * GIB, "the toy framework's buffer")])
    }
}
"##;

/// A config of the toy framework.
const TOY_CONFIG: &str = "toy_trainer:\n  model: meta-llama/Llama-2-7b-hf\n  micro_batch: 2\n  accumulate: 4\n  gpus: 1\n";

/// A recipe step: the recipe's heading in the architecture page and the step's words.
#[derive(Clone, Copy)]
struct Step {
    recipe: &'static str,
    step: &'static str,
}

impl Step {
    fn fail(&self, what: &str) -> ! {
        panic!(
            "recipe \"{}\" in book/src/architecture.md, step \"{}\", no longer matches the code: {what}. \
             Update the recipe and tests/recipes.rs together.",
            self.recipe, self.step
        )
    }
}

const FRAMEWORK_FILE: Step =
    Step { recipe: "Adding a framework", step: "one file, `src/dialects/<name>.rs`, a unit struct implementing `dialects::Framework`" };
const FRAMEWORK_LINE: Step = Step { recipe: "Adding a framework", step: "one line in the `registry!` list of `src/dialects/mod.rs`" };
const RULE_CREATE: Step = Step { recipe: "Adding a rule", step: "1. Create `src/rules/<group>/<rule_name>.rs` … with `declare_rule!`" };
const RULE_MOD: Step = Step { recipe: "Adding a rule", step: "2. Add `pub mod rule_name;` to the group's `mod.rs`" };
const RULE_FAMILY: Step = Step { recipe: "Adding a rule", step: "2. report the finding from that family's function" };
const RULE_REGISTER: Step = Step { recipe: "Adding a rule", step: "3. one line `\"GRP009\" => group::rule_name::RuleName,` in `register_rules!`" };
const COMPONENT_FILE: Step =
    Step { recipe: "Adding a memory component", step: "1. Add `src/estimate/components/my_part.rs` … implementing `MemoryComponent`" };
const COMPONENT_LINE: Step = Step { recipe: "Adding a memory component", step: "3. in `components/mod.rs`, `pub mod my_part;` and one line in `REGISTRY`" };

#[test]
fn the_recipes_add_a_framework_a_rule_and_a_component() {
    let started = std::time::Instant::now();
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let book = std::fs::read_to_string(repo.join("book/src/architecture.md")).expect("book/src/architecture.md");
    // What the test follows is what the page says.
    for (step, words) in [
        (FRAMEWORK_FILE, &["src/dialects/<name>.rs", "dialects::Framework"][..]),
        (FRAMEWORK_LINE, &["`registry!`", "src/dialects/mod.rs", "my_framework => MY_FRAMEWORK"]),
        (RULE_CREATE, &["src/rules/<group>/<rule_name>.rs", "declare_rule!"]),
        (RULE_MOD, &["pub mod rule_name;", "family's function"]),
        (RULE_REGISTER, &["register_rules!", "src/rules/codes.rs", "\"GRP009\" => group::rule_name::RuleName,"]),
        (COMPONENT_FILE, &["src/estimate/components/my_part.rs", "MemoryComponent"]),
        (COMPONENT_LINE, &["pub mod my_part;", "REGISTRY", "components/mod.rs"]),
    ] {
        let text = section(&book, step.recipe).unwrap_or_else(|| step.fail("the page has no such section"));
        for word in words {
            if !text.contains(word) {
                step.fail(&format!("the recipe no longer says `{word}`, which this test follows"));
            }
        }
    }

    let mut files = crate_files(&repo);
    let code = apply_recipes(&mut files);

    // `CARGO_TARGET_TMPDIR` is `<target>/tmp`: the copy and its build live beside it, in
    // `<target>/recipes`, where `cargo clean` and CI's cache see them. The outer `cargo test`
    // holds the lock of `<target>/debug`, not of this folder.
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).parent().expect("the target folder").join("recipes");
    let copy = target.join("crate");
    sync(&copy, &files);

    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let build_started = std::time::Instant::now();
    let build = Command::new(&cargo)
        .args(["build", "--offline", "--locked", "--bin", "trainlint"])
        .current_dir(&copy)
        .env("CARGO_TARGET_DIR", &target)
        .env("CARGO_TERM_COLOR", "never")
        // No debug info: the binary is run, never debugged (a third of the build's time and most of its disk).
        .env("CARGO_PROFILE_DEV_DEBUG", "false")
        .output()
        .expect("run cargo");
    if !build.status.success() {
        let errors = String::from_utf8_lossy(&build.stderr);
        let mut recipes: Vec<&str> = Vec::new();
        for (file, recipe) in
            [("src/dialects/", "Adding a framework"), ("src/rules/", "Adding a rule"), ("src/estimate/components/", "Adding a memory component")]
        {
            if errors.lines().any(|l| l.trim_start().starts_with("--> ") && l.contains(file)) {
                recipes.push(recipe);
            }
        }
        panic!(
            "the copy of the crate with the recipes followed ({}) does not build; the errors are in the files of {}: \
             a recipe no longer matches the code (book/src/architecture.md and tests/recipes.rs say what to write)\n{errors}",
            copy.display(),
            if recipes.is_empty() { "no recipe (the copy may lack a file the crate reads: see `crate_files`)".to_owned() } else { recipes.join(", ") }
        );
    }
    let build_time = build_started.elapsed();
    let binary = target.join("debug").join(format!("trainlint{}", std::env::consts::EXE_SUFFIX));

    let dir = std::env::temp_dir().join(format!("trainlint-recipes-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("toy.yaml"), TOY_CONFIG).unwrap();
    let run = |args: &[&str]| -> (Output, String) {
        let output = Command::new(&binary).args(args).arg("toy.yaml").current_dir(&dir).env("NO_COLOR", "1").output().expect("run the copy's trainlint");
        let text = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
        (output, text)
    };

    let (_, show) = run(&["show", "--isolated"]);
    let squeezed: Vec<String> = show.lines().map(|l| l.split_whitespace().collect::<Vec<_>>().join(" ")).collect();
    assert!(
        squeezed.iter().any(|l| l == "dialect: toyfw (the toy framework's top-level `toy_trainer`)"),
        "Adding a framework: `show` does not name the toy dialect:\n{show}"
    );
    for role in ["micro_batch 2 toy.yaml:3", "accumulation 4 toy.yaml:4", "devices 1 toy.yaml:5", "model meta-llama/Llama-2-7b-hf toy.yaml:2"] {
        assert!(squeezed.iter().any(|l| l == role), "Adding a framework: `show` lacks the bound role `{role}`:\n{show}");
    }

    let (_, check) = run(&["check", "--isolated", "--output-format", "concise"]);
    assert!(check.contains(&format!("{code} a toy framework config")), "Adding a rule: `check` does not report {code}:\n{check}");

    let (_, estimate) = run(&["estimate", "--isolated", "--gpu", "h100-sxm"]);
    let row = estimate
        .lines()
        .find(|l| l.trim_start().starts_with("toy buffer"))
        .unwrap_or_else(|| panic!("Adding a memory component: `estimate` has no toy buffer row:\n{estimate}"));
    assert!(row.contains("1.00 GiB") && row.contains("the toy framework's buffer"), "Adding a memory component: the row is not the component's 1 GiB:\n{row}");

    let _ = std::fs::remove_dir_all(&dir);
    eprintln!("recipes: built the copy in {:.1} s, {:.1} s in all", build_time.as_secs_f64(), started.elapsed().as_secs_f64());
}

/// A place a recipe names that is gone fails the test with the recipe and the step, before any build.
#[test]
fn a_place_gone_from_the_code_names_its_recipe_step() {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let files = crate_files(&repo);
    for (path, place, recipe, step) in [
        ("src/dialects/mod.rs", "registry! {", "Adding a framework", "`registry!`"),
        ("src/rules/codes.rs", "register_rules! {", "Adding a rule", "`register_rules!`"),
        ("src/rules/batch/mod.rs", "pub fn check(checker: &mut Checker, resolved: &ResolvedConfig", "Adding a rule", "family's function"),
        ("src/estimate/components/mod.rs", "pub const REGISTRY: &[&dyn MemoryComponent] = &[", "Adding a memory component", "`REGISTRY`"),
    ] {
        let mut changed = files.clone();
        let text = String::from_utf8(changed[Path::new(path)].clone()).unwrap();
        assert!(text.contains(place), "{path} has no `{place}`");
        changed.insert(PathBuf::from(path), text.replace(place, "renamed").into_bytes());
        let panic =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| apply_recipes(&mut changed))).expect_err("the recipes applied without their place");
        let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(message.contains(&format!("recipe \"{recipe}\"")) && message.contains(step), "{path} without `{place}`: {message}");
    }
}

/// The text of the page's section `## {heading}`, up to the next `## `.
fn section<'a>(page: &'a str, heading: &str) -> Option<&'a str> {
    let start = page.find(&format!("\n## {heading}\n"))? + 1;
    let rest = &page[start + 3..];
    Some(&page[start..start + 3 + rest.find("\n## ").unwrap_or(rest.len())])
}

/// What the crate needs to build its binary, relative path → bytes: the manifest, the lock file,
/// `build.rs` where there is one, `src/`, the benches the manifest names, and every file an
/// `include_str!` / `include_bytes!` in `src/` reads (`data/models.json`, …).
fn crate_files(repo: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = BTreeMap::new();
    for name in ["Cargo.toml", "Cargo.lock", "build.rs"] {
        if let Ok(bytes) = std::fs::read(repo.join(name)) {
            files.insert(PathBuf::from(name), bytes);
        }
    }
    // Cargo refuses a manifest whose `[[bench]]` has no file.
    for folder in ["src", "benches"] {
        add_tree(repo, Path::new(folder), &mut files);
    }
    let sources: Vec<(PathBuf, String)> =
        files.iter().filter(|(p, _)| p.extension().is_some_and(|e| e == "rs")).map(|(p, b)| (p.clone(), String::from_utf8_lossy(b).into_owned())).collect();
    for (path, text) in sources {
        for macro_name in ["include_str!(\"", "include_bytes!(\""] {
            for (at, _) in text.match_indices(macro_name) {
                let rest = &text[at + macro_name.len()..];
                let Some(end) = rest.find('"') else { continue };
                let included = normalise(&path.parent().unwrap().join(&rest[..end]));
                let bytes = std::fs::read(repo.join(&included)).unwrap_or_else(|e| panic!("{} includes {}: {e}", path.display(), included.display()));
                files.insert(included, bytes);
            }
        }
    }
    // The copy lies inside the repository's folder: it is its own workspace, never a member of one above.
    let manifest = files.get_mut(Path::new("Cargo.toml")).expect("Cargo.toml");
    if !String::from_utf8_lossy(manifest).lines().any(|l| l.trim() == "[workspace]") {
        manifest.extend_from_slice(b"\n[workspace]\n");
    }
    files
}

fn add_tree(repo: &Path, relative: &Path, files: &mut BTreeMap<PathBuf, Vec<u8>>) {
    let Ok(entries) = std::fs::read_dir(repo.join(relative)) else { return };
    for entry in entries.flatten() {
        let path = relative.join(entry.file_name());
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            add_tree(repo, &path, files);
        } else {
            files.insert(path, std::fs::read(entry.path()).unwrap());
        }
    }
}

/// `src/model/../../data/models.json` → `data/models.json`.
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Follows the three recipes on the copy's files; returns the toy rule's code.
fn apply_recipes(files: &mut BTreeMap<PathBuf, Vec<u8>>) -> String {
    // Adding a framework: the file, and its line first in the registry (detection order: its
    // `toy_trainer` key is no other dialect's).
    create(files, "src/dialects/toy.rs", TOY_DIALECT, FRAMEWORK_FILE);
    edit(files, "src/dialects/mod.rs", FRAMEWORK_LINE, |lines| {
        let at = lines.iter().position(|l| l.trim() == "registry! {").unwrap_or_else(|| FRAMEWORK_LINE.fail("src/dialects/mod.rs has no `registry! {` list"));
        lines.insert(at + 1, "    toy => TOY,".to_owned());
    });

    // Adding a rule, in the batch group: the file, its `pub mod`, the call from the family's
    // function (`batch::check`, which `linter.rs` calls when `Check::Batch` runs), and its line
    // in the registry after the group's last code, with the next free number.
    create(files, &format!("src/rules/batch/{RULE_FILE}.rs"), TOY_RULE, RULE_CREATE);
    edit(files, "src/rules/batch/mod.rs", RULE_MOD, |lines| {
        let at = lines.iter().position(|l| l.starts_with("pub mod ")).unwrap_or_else(|| RULE_MOD.fail("src/rules/batch/mod.rs has no `pub mod` line"));
        lines.insert(at, format!("pub mod {RULE_FILE};"));
    });
    edit(files, "src/rules/batch/mod.rs", RULE_FAMILY, |lines| {
        let at = lines
            .iter()
            .position(|l| l.starts_with("pub fn check(checker: &mut Checker, resolved: &ResolvedConfig") && l.ends_with('{'))
            .unwrap_or_else(|| RULE_FAMILY.fail("src/rules/batch/mod.rs has no `pub fn check(checker: &mut Checker, resolved: &ResolvedConfig, …) {`"));
        lines.insert(at + 1, TOY_RULE_CALL.to_owned());
    });
    let mut code = String::new();
    edit(files, "src/rules/codes.rs", RULE_REGISTER, |lines| {
        let start = lines
            .iter()
            .position(|l| l.trim() == "register_rules! {")
            .unwrap_or_else(|| RULE_REGISTER.fail("src/rules/codes.rs has no `register_rules! {` list"));
        let end = start + lines[start..].iter().position(|l| l.trim() == "}").unwrap_or_else(|| RULE_REGISTER.fail("`register_rules! {` is never closed"));
        let batch: Vec<(usize, u32)> = (start + 1..end)
            .filter_map(|i| {
                let entry = lines[i].trim().strip_prefix("\"BAT")?;
                let (number, rest) = entry.split_once('"')?;
                rest.trim_start().starts_with("=> batch::").then_some((i, number.parse().ok()?))
            })
            .collect();
        let Some(&(last, _)) = batch.last() else { RULE_REGISTER.fail("`register_rules!` has no `\"BAT…\" => batch::…` line") };
        let next = batch.iter().map(|(_, n)| n).max().unwrap() + 1;
        code = format!("BAT{next:03}");
        lines.insert(last + 1, format!("    \"{code}\" => batch::{RULE_FILE}::{RULE_TYPE},"));
    });

    // Adding a memory component: the file, its `pub mod`, and its line first in `REGISTRY`
    // (a fixed row: fixed rows come first).
    create(files, "src/estimate/components/toy_part.rs", TOY_COMPONENT, COMPONENT_FILE);
    edit(files, "src/estimate/components/mod.rs", COMPONENT_LINE, |lines| {
        let module = lines.iter().position(|l| l.starts_with("pub mod ")).unwrap_or_else(|| COMPONENT_LINE.fail("components/mod.rs has no `pub mod` line"));
        lines.insert(module, "pub mod toy_part;".to_owned());
        let at = lines
            .iter()
            .position(|l| l.starts_with("pub const REGISTRY: &[&dyn MemoryComponent] = &["))
            .unwrap_or_else(|| COMPONENT_LINE.fail("components/mod.rs has no `pub const REGISTRY: &[&dyn MemoryComponent] = &[`"));
        lines.insert(at + 1, "    &toy_part::ToyPart,".to_owned());
    });
    code
}

/// Writes a new file of the copy; the recipe says it is new, so it must not exist yet.
fn create(files: &mut BTreeMap<PathBuf, Vec<u8>>, path: &str, text: &str, step: Step) {
    if files.insert(PathBuf::from(path), text.as_bytes().to_vec()).is_some() {
        step.fail(&format!("{path} already exists in the crate"));
    }
}

/// Edits a file of the copy line by line.
fn edit(files: &mut BTreeMap<PathBuf, Vec<u8>>, path: &str, step: Step, change: impl FnOnce(&mut Vec<String>)) {
    let bytes = files.get_mut(Path::new(path)).unwrap_or_else(|| step.fail(&format!("{path} does not exist")));
    let mut lines: Vec<String> = String::from_utf8_lossy(bytes).lines().map(str::to_owned).collect();
    change(&mut lines);
    *bytes = (lines.join("\n") + "\n").into_bytes();
}

/// Makes `folder` hold exactly `files`, writing only those whose bytes changed: cargo then
/// rebuilds the copy only when the repository (or a recipe) changed.
fn sync(folder: &Path, files: &BTreeMap<PathBuf, Vec<u8>>) {
    fn prune(folder: &Path, relative: &Path, files: &BTreeMap<PathBuf, Vec<u8>>) {
        let Ok(entries) = std::fs::read_dir(folder.join(relative)) else { return };
        for entry in entries.flatten() {
            let path = relative.join(entry.file_name());
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                prune(folder, &path, files);
                let _ = std::fs::remove_dir(entry.path());
            } else if !files.contains_key(&path) {
                std::fs::remove_file(entry.path()).unwrap();
            }
        }
    }
    prune(folder, Path::new(""), files);
    for (path, bytes) in files {
        let target = folder.join(path);
        if std::fs::read(&target).is_ok_and(|old| &old == bytes) {
            continue;
        }
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::write(&target, bytes).unwrap();
    }
}
