//! Doc examples run, as biome's do: each rule's `## Example` code block, checked
//! alone with only that rule selected, must yield that rule's finding, and its
//! `Use instead:` block none. Info-string markers make an example runnable
//! where it needs more than one file:
//!
//! - ```` ```json,world-size=2 ```` checks it with `--world-size 2` (a
//!   DeepSpeed config does not state its world size);
//! - a ```` ```yaml,before ```` block in `## Example` is the file at `HEAD`:
//!   both examples are then checked with `--baseline HEAD` in a scratch git
//!   repository whose HEAD holds it;
//! - a ```` ```yaml,file=PATH ```` block in `## Example` is another file of
//!   the project (a base config, a Hydra group option, `trainlint.toml`),
//!   written at `PATH` for both examples; ```` ```yaml,as=PATH ```` puts the
//!   example itself at `PATH` (a curriculum stage) instead of `config.yaml`;
//! - a `Use instead:` block in ```` ```toml ```` is a manifest: the example's
//!   config is checked again with it as `trainlint.toml`.
//!
//! An example that cannot run alone is listed in [`NOT_RUNNABLE`] with the
//! reason; its rule's fixtures (`fixtures/rules/CODE/`) cover it instead.
//!
//! The README's and the book's getting-started and estimate commands run too
//! ([`DOC_COMMANDS`], [`doc_commands_run_and_print_what_the_docs_show`]): in a
//! ```` ```console ```` block every `$ trainlint ...` line is run in the
//! repository root with the built binary, and what it prints (stdout, then
//! stderr; trailing spaces and blank lines dropped) must be the lines below
//! it; in a ```` ```sh ```` block every line starting with `trainlint ` is
//! run and must not be a usage error (exit 2), unless the block is marked
//! ```` ```sh no-run ```` (a placeholder path, a command that writes).
//! `TRAINLINT_WRITE_BOOK=1 cargo test --test doc_examples` rewrites the
//! console blocks' output; read the diff before committing it.

mod common;

use trainlint::rules::{RuleMeta, codes};
use trainlint::settings::Overrides;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Half {
    Example,
    UseInstead,
}

/// (code, half, why it cannot run alone).
const NOT_RUNNABLE: &[(&str, Half, &str)] = &[("SUP001", Half::UseInstead, "prose: delete the comment")];

#[derive(Clone)]
struct Block {
    lang: String,
    world_size: Option<u32>,
    /// The file at `HEAD` (marker `before`), not the example itself.
    before: bool,
    /// Another file of the project (marker `file=PATH`), not the example itself.
    path: Option<String>,
    /// Where the example itself is written (marker `as=PATH`).
    at: Option<String>,
    text: String,
}

/// The fenced code blocks of `section`, with their info strings' markers.
fn blocks(mut section: &str) -> Vec<Block> {
    let mut out = Vec::new();
    while let Some(start) = section.find("```") {
        let rest = &section[start + 3..];
        let Some((info, body)) = rest.split_once('\n') else { break };
        let Some(end) = body.find("```") else { break };
        let mut parts = info.trim().split(',');
        let lang = parts.next().unwrap_or("").to_owned();
        let mut block = Block { lang, world_size: None, before: false, path: None, at: None, text: body[..end].to_owned() };
        for marker in parts {
            match marker.split_once('=') {
                Some(("world-size", n)) => block.world_size = Some(n.parse().expect("world-size=N")),
                Some(("file", path)) => block.path = Some(path.to_owned()),
                Some(("as", path)) => block.at = Some(path.to_owned()),
                None if marker == "before" => block.before = true,
                _ => panic!("unknown doc-example marker `{marker}`"),
            }
        }
        out.push(block);
        section = &body[end + 3..];
    }
    out
}

/// The example itself: the first block that is not the file at `HEAD` or another file.
fn first_block(section: &str) -> Option<Block> {
    blocks(section).into_iter().find(|b| !b.before && b.path.is_none())
}

/// The other files of the project the example needs.
fn other_files(section: &str) -> Vec<Block> {
    blocks(section).into_iter().filter(|b| b.path.is_some()).collect()
}

/// The file at `HEAD`, when the example compares with a baseline.
fn before_block(section: &str) -> Option<Block> {
    blocks(section).into_iter().find(|b| b.before)
}

/// The `## Example` and `Use instead` parts of a rule's docs.
fn halves(rule: &RuleMeta) -> (String, String) {
    let docs = rule.docs();
    let example = docs.split("## Example").nth(1).unwrap_or("").split("## Fix safety").next().unwrap_or("").to_owned();
    match example.split_once("Use instead") {
        Some((invalid, valid)) => (invalid.to_owned(), valid.to_owned()),
        None => (example, String::new()),
    }
}

/// Checks `config` (and a manifest, and against the file at `HEAD`) in a
/// scratch folder with only `rule` selected; the codes found.
fn run(rule: &RuleMeta, config: &Block, manifest: Option<&str>, before: Option<&Block>, others: &[Block], tag: &str) -> Vec<String> {
    let dir = std::env::temp_dir().join(format!("trainlint-doc-example-{}-{}-{tag}", std::process::id(), rule.code));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(match (config.lang.as_str(), &config.at) {
        ("json" | "yaml", Some(at)) => at.as_str(),
        ("json", None) => "config.json",
        ("yaml", None) => "config.yaml",
        (other, _) => panic!("{}: a doc example in `{other}` cannot run; list it in NOT_RUNNABLE with the reason", rule.code),
    });
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    for other in others {
        let path = dir.join(other.path.as_deref().unwrap_or_default());
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, &other.text).unwrap();
    }
    if let Some(before) = before {
        std::fs::write(&file, &before.text).unwrap();
        for args in [&["init", "-q"][..], &["add", "-A"], &["commit", "-q", "-m", "HEAD"]] {
            let out = std::process::Command::new("git")
                .arg("-C")
                .arg(&dir)
                .args(["-c", "user.name=doc", "-c", "user.email=doc@example.com", "-c", "commit.gpgsign=false"])
                .args(args)
                .output()
                .expect("git runs");
            assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        }
    }
    std::fs::write(&file, &config.text).unwrap();
    if let Some(manifest) = manifest {
        std::fs::write(dir.join("trainlint.toml"), manifest).unwrap();
    }
    let overrides = Overrides { select: Some(vec![rule.code.to_owned()]), world_size: config.world_size, ..Overrides::default() };
    let (_, diagnostics) = trainlint::commands::check::collect(&[file], &overrides, before.map(|_| "HEAD"), false, false).expect("doc example checks");
    let _ = std::fs::remove_dir_all(&dir);
    diagnostics.iter().map(|d| d.rule.code.to_owned()).collect()
}

fn listed(code: &str, half: Half) -> bool {
    NOT_RUNNABLE.iter().any(|(c, h, _)| *c == code && *h == half)
}

#[test]
fn doc_examples_run() {
    let mut failures = Vec::new();
    for rule in codes::ALL {
        let (invalid, valid) = halves(rule);
        let example = first_block(&invalid);
        let before = before_block(&invalid);
        let others = other_files(&invalid);
        if !listed(rule.code, Half::Example) {
            match &example {
                None => failures.push(format!("{}: `## Example` has no code block (add one, or list it in NOT_RUNNABLE with the reason)", rule.code)),
                Some(block) => {
                    let found = run(rule, block, None, before.as_ref(), &others, "example");
                    if found.is_empty() {
                        failures.push(format!("{}: the `## Example` block yields no {} finding", rule.code, rule.code));
                    }
                }
            }
        }
        if !listed(rule.code, Half::UseInstead) {
            match first_block(&valid) {
                None => failures.push(format!("{}: `Use instead:` has no code block (add one, or list it in NOT_RUNNABLE with the reason)", rule.code)),
                // A manifest: the example's config, checked again with it.
                Some(manifest) if manifest.lang == "toml" => match &example {
                    Some(config) => {
                        let found = run(rule, config, Some(&manifest.text), before.as_ref(), &others, "manifest");
                        if !found.is_empty() {
                            failures.push(format!("{}: the example with the `Use instead:` manifest still yields {found:?}", rule.code));
                        }
                    }
                    None => failures.push(format!("{}: a `Use instead:` manifest needs an example config", rule.code)),
                },
                Some(block) => {
                    let found = run(rule, &block, None, before.as_ref(), &others, "use_instead");
                    if !found.is_empty() {
                        failures.push(format!("{}: the `Use instead:` block yields {found:?}", rule.code));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "doc examples:\n{}", failures.join("\n"));
}

/// The list names only registered codes, each half once: a stale entry shows up.
#[test]
fn not_runnable_list_is_current() {
    let mut seen = std::collections::BTreeSet::new();
    for (code, half, reason) in NOT_RUNNABLE {
        assert!(codes::find(code).is_some(), "{code} is not a registered code");
        assert!(seen.insert((*code, format!("{half:?}"))), "{code} {half:?} listed twice");
        assert!(!reason.is_empty());
    }
}

/// Files whose example commands are run.
const DOC_COMMANDS: &[&str] = &["README.md", "book/src/getting-started.md", "book/src/estimate.md"];

/// A fenced block: its info string's words, its lines, and the byte range of its body.
struct Fenced {
    info: Vec<String>,
    body: std::ops::Range<usize>,
}

fn fenced_blocks(text: &str) -> Vec<Fenced> {
    let mut blocks = Vec::new();
    let mut offset = 0;
    let mut open: Option<(Vec<String>, usize)> = None;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_end();
        match &open {
            None if trimmed.starts_with("```") => {
                let info = trimmed[3..].split([' ', ',']).filter(|w| !w.is_empty()).map(str::to_owned).collect();
                open = Some((info, offset + line.len()));
            }
            Some((info, start)) if trimmed == "```" => {
                blocks.push(Fenced { info: info.clone(), body: *start..offset });
                open = None;
            }
            _ => {}
        }
        offset += line.len();
    }
    blocks
}

/// A command line split as a POSIX shell would for these examples: words, `'…'` and `"…"` quoting.
fn words(command: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut quote = None;
    let mut in_word = false;
    for c in command.chars() {
        match (quote, c) {
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (Some(q), c) if c == q => quote = None,
            (None, c) if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut current));
                    in_word = false;
                }
            }
            (_, c) => {
                current.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        out.push(current);
    }
    out
}

/// `trainlint ARGS` run in the repository root: exit code and what it printed, normalised.
fn run_documented(command: &str) -> (Option<i32>, String) {
    let command = command.split("  #").next().unwrap_or(command).trim();
    let args = words(command);
    assert_eq!(args.first().map(String::as_str), Some("trainlint"), "{command}");
    let args: Vec<&str> = args[1..].iter().map(String::as_str).collect();
    let output = common::trainlint(&args);
    let printed = common::stdout(&output) + &common::stderr(&output);
    let lines: Vec<&str> = printed.lines().map(str::trim_end).collect();
    let text = lines.join("\n");
    (output.status.code(), text.trim_end_matches('\n').to_owned())
}

#[test]
fn doc_commands_run_and_print_what_the_docs_show() {
    let write = std::env::var_os("TRAINLINT_WRITE_BOOK").is_some_and(|v| v == "1");
    let mut failures = Vec::new();
    let mut compared = 0;
    for file in DOC_COMMANDS {
        let path = common::repo().join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let mut rewritten = text.clone();
        // Back to front, so the ranges of earlier blocks stay valid while rewriting.
        for block in fenced_blocks(&text).into_iter().rev() {
            let body = &text[block.body.clone()];
            let lang = block.info.first().map(String::as_str).unwrap_or_default();
            if lang == "sh" && !block.info.iter().any(|w| w == "no-run") {
                for line in body.lines().filter(|l| l.starts_with("trainlint ")) {
                    let (code, printed) = run_documented(line);
                    if !matches!(code, Some(0 | 1)) {
                        failures.push(format!("{file}: `{line}` exited {code:?}:\n{printed}"));
                    }
                }
            }
            if lang != "console" {
                continue;
            }
            let mut expected_body = String::new();
            let mut pending: Option<(&str, Vec<&str>)> = None;
            let mut commands = Vec::new();
            for line in body.lines() {
                if let Some(command) = line.strip_prefix("$ ") {
                    commands.extend(pending.take());
                    pending = Some((command, Vec::new()));
                } else if let Some((_, out)) = pending.as_mut() {
                    out.push(line.trim_end());
                } else {
                    failures.push(format!("{file}: a console block's output before any `$ ` command: {line}"));
                }
            }
            commands.extend(pending);
            for (command, expected) in commands {
                compared += 1;
                let (code, printed) = run_documented(command);
                let expected = expected.join("\n").trim_end_matches('\n').to_owned();
                if !matches!(code, Some(0 | 1)) {
                    failures.push(format!("{file}: `{command}` exited {code:?}:\n{printed}"));
                } else if printed != expected {
                    failures.push(format!("{file}: `{command}` printed\n{printed}\n--- but the docs show\n{expected}"));
                }
                expected_body.push_str(&format!("$ {command}\n{printed}\n"));
            }
            rewritten.replace_range(block.body.clone(), &expected_body);
        }
        if write && rewritten != text {
            std::fs::write(&path, rewritten).unwrap();
        }
    }
    assert!(compared >= 3, "the README and getting started show commands with their output ({compared} found)");
    if !write {
        assert!(
            failures.is_empty(),
            "doc commands (`TRAINLINT_WRITE_BOOK=1 cargo test --test doc_examples` rewrites console output):\n{}",
            failures.join("\n\n")
        );
    }
}

#[test]
fn doc_command_parsing() {
    assert_eq!(words(r#"trainlint check 'a b' "c"  d"#), ["trainlint", "check", "a b", "c", "d"]);
    let blocks = fenced_blocks("x\n```sh no-run\na\n```\n```console\n$ trainlint gpus\nout\n```\n");
    assert_eq!(blocks.len(), 2);
    assert_eq!(blocks[0].info, ["sh", "no-run"]);
    assert_eq!(blocks[1].info, ["console"]);
}
