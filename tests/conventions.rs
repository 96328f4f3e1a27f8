//! The command-line conventions a ruff user expects (issue 16): `--quiet`,
//! `--silent`, `--verbose`, `--color` with `NO_COLOR` / `FORCE_COLOR`, stdin
//! with `--stdin-filename`, shell completions, `--show-settings`,
//! `--extend-ignore`, `--exit-non-zero-on-warning`, the `gitlab` and `junit`
//! formats, output formats per subcommand, and the `--fix` and refusal messages;
//! issue 27's `--exclude` / `--extend-exclude` / `--force-exclude`,
//! `--per-file-ignores` / `--extend-per-file-ignores`, select / ignore / extend-*
//! composed as ruff composes them, `--isolated`, and the bare `# trainlint: ignore`.

mod common;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// Runs trainlint in `dir` with `env` set (and `NO_COLOR` / `FORCE_COLOR` cleared first), feeding `stdin`.
fn run(dir: &Path, args: &[&str], env: &[(&str, &str)], stdin: Option<&str>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_trainlint"));
    command.args(args).current_dir(dir).env_remove("NO_COLOR").env_remove("FORCE_COLOR").env_remove("CI_PROJECT_DIR");
    for (key, value) in env {
        command.env(key, value);
    }
    command.stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() }).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = command.spawn().expect("run trainlint");
    if let Some(text) = stdin {
        // A run that refuses its arguments exits before it reads its input: the pipe is then
        // closed under the writer, which is no failure of the test (its output says what happened).
        match child.stdin.take().unwrap().write_all(text.as_bytes()) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
            other => other.unwrap(),
        }
    }
    child.wait_with_output().unwrap()
}

/// An effective-batch error with an unsafe fix (accumulation 2 → 3).
const MISMATCH: &str = "# keep me\ntrainlint: 1\nbatch:\n  micro_batch: 32   # lowered\n  accumulation: 2\n  effective_batch: 96\nparallel: {devices: 1}\n";

fn project(label: &str) -> std::path::PathBuf {
    let dir = common::fresh_dir(label);
    std::fs::write(dir.join("config.yaml"), MISMATCH).unwrap();
    // Warnings only (MIG006, ENV002) and an info (BAT006). MIG006 is a warning where the project
    // states a PyTorch that reads `PYTORCH_ALLOC_CONF` (2.9 or later; no version: an info).
    std::fs::copy(common::repo().join("fixtures/seeds/001_rna_3e_ffi.yaml"), dir.join("warnings.yaml")).unwrap();
    std::fs::write(dir.join("requirements.txt"), "torch==2.9.1\n").unwrap();
    dir
}

#[test]
fn quiet_prints_findings_only_and_silent_prints_nothing() {
    let dir = project("quiet");
    let normal = run(&dir, &["check", "--output-format", "concise", "."], &[], None);
    assert!(common::stdout(&normal).contains("Found 1 error, 2 warnings"), "{}", common::stdout(&normal));
    let quiet = run(&dir, &["check", "-q", "--output-format", "concise", "."], &[], None);
    assert_eq!(quiet.status.code(), Some(1));
    let out = common::stdout(&quiet);
    assert!(out.contains("config.yaml:5:17: BAT001"), "{out}");
    assert!(!out.contains("Found") && !out.contains("info: BAT006"), "no summary, no folded infos: {out}");
    assert!(out.lines().all(|l| l.contains(": ")), "{out}");
    let silent = run(&dir, &["check", "--silent", "."], &[], None);
    assert_eq!(silent.status.code(), Some(1), "the exit code still tells");
    assert_eq!((common::stdout(&silent).as_str(), common::stderr(&silent).as_str()), ("", ""));
    // Global: after the subcommand or before it.
    let before = run(&dir, &["--quiet", "check", "--output-format", "concise", "."], &[], None);
    assert_eq!(common::stdout(&before), out);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn verbose_tells_what_was_read_on_stderr() {
    let dir = project("verbose");
    std::fs::write(dir.join("trainlint.toml"), "world-size = 1\n").unwrap();
    let output = run(&dir, &["check", "-v", "--output-format", "concise", "."], &[], None);
    let err = common::stderr(&output);
    assert!(err.contains("trainlint: manifest: ") && err.contains("trainlint.toml"), "{err}");
    assert!(err.contains("config.yaml: checked as"), "{err}");
    assert!(err.contains("2 files found") && err.contains(" ms"), "{err}");
    assert_eq!(common::stdout(&output), common::stdout(&run(&dir, &["check", "--output-format", "concise", "."], &[], None)), "stdout unchanged");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn color_follows_the_flag_then_no_color_then_force_color() {
    let dir = project("color");
    let escapes = |args: &[&str], env: &[(&str, &str)]| common::stdout(&run(&dir, args, env, None)).contains("\u{1b}[");
    let check = ["check", "config.yaml"];
    assert!(!escapes(&check, &[]), "a pipe is not a terminal: no colour by default");
    assert!(escapes(&check, &[("FORCE_COLOR", "1")]), "FORCE_COLOR colours a pipe");
    assert!(!escapes(&check, &[("FORCE_COLOR", "1"), ("NO_COLOR", "1")]), "NO_COLOR wins over FORCE_COLOR");
    assert!(!escapes(&check, &[("FORCE_COLOR", "")]), "an empty FORCE_COLOR is unset");
    assert!(escapes(&["check", "--color", "always", "config.yaml"], &[("NO_COLOR", "1")]), "--color always wins");
    assert!(!escapes(&["check", "--color", "never", "config.yaml"], &[("FORCE_COLOR", "1")]), "--color never wins");
    assert_eq!(run(&dir, &["check", "--color", "sometimes", "config.yaml"], &[], None).status.code(), Some(2));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn stdin_is_checked_as_the_stdin_filename_and_fix_prints_the_fixed_text() {
    let dir = common::fresh_dir("stdin");
    std::fs::create_dir(dir.join("sub")).unwrap();
    let output = run(&dir, &["check", "-", "--stdin-filename", "sub/x.yaml", "--output-format", "concise"], &[], Some(MISMATCH));
    assert_eq!(output.status.code(), Some(1));
    assert!(common::stdout(&output).starts_with("sub/x.yaml:5:17: BAT001 "), "{}", common::stdout(&output));
    // The file name decides the format: a trailing comma is fine in a YAML flow mapping, not in JSON.
    let text = "{\"a\": 1,}\n";
    let json = run(&dir, &["check", "-", "--stdin-filename", "x.json", "--output-format", "concise"], &[], Some(text));
    assert!(common::stdout(&json).contains("x.json:") && common::stdout(&json).contains("SCH001"), "{}", common::stdout(&json));
    let yaml = run(&dir, &["check", "-", "--stdin-filename", "x.yaml", "--output-format", "concise"], &[], Some(text));
    assert!(!common::stdout(&yaml).contains("SCH001"), "{}", common::stdout(&yaml));
    // --fix: the fixed text on stdout, the report on stderr, nothing written.
    let fixed = run(&dir, &["check", "-", "--fix", "--unsafe-fixes", "--stdin-filename", "sub/x.yaml"], &[], Some(MISMATCH));
    assert_eq!(fixed.status.code(), Some(0), "{}", common::stderr(&fixed));
    assert_eq!(common::stdout(&fixed), MISMATCH.replace("accumulation: 2", "accumulation: 3"));
    assert!(common::stderr(&fixed).contains("Fixed 1 finding (1 error) in 1 file."), "{}", common::stderr(&fixed));
    assert!(!dir.join("sub/x.yaml").exists() && !dir.join("stdin.yaml").exists());
    // An existing file named by --stdin-filename is not touched either.
    std::fs::write(dir.join("sub/x.yaml"), "on: disk\n").unwrap();
    let fixed = run(&dir, &["check", "-", "--fix", "--unsafe-fixes", "--stdin-filename", "sub/x.yaml"], &[], Some(MISMATCH));
    assert!(common::stdout(&fixed).contains("accumulation: 3"));
    assert_eq!(std::fs::read_to_string(dir.join("sub/x.yaml")).unwrap(), "on: disk\n");
    // Misuse is a usage error.
    assert_eq!(run(&dir, &["check", "--stdin-filename", "x.yaml", "sub"], &[], None).status.code(), Some(2));
    assert_eq!(run(&dir, &["check", "-", "sub"], &[], Some(MISMATCH)).status.code(), Some(2));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn completions_for_every_shell() {
    for (shell, marker) in
        [("bash", "_trainlint()"), ("zsh", "#compdef trainlint"), ("fish", "complete -c trainlint"), ("powershell", "Register-ArgumentCompleter")]
    {
        let output = common::trainlint(&["completions", shell]);
        assert_eq!(output.status.code(), Some(0), "{shell}");
        let script = common::stdout(&output);
        assert!(script.contains(marker), "{shell}: {script}");
        assert!(script.contains("stdin-filename") && script.contains("estimate"), "{shell}: subcommands and their flags");
    }
    assert_eq!(common::trainlint(&["completions", "tcsh"]).status.code(), Some(2));
}

#[test]
fn show_settings_prints_what_the_file_is_checked_with() {
    let dir = project("settings");
    std::fs::write(
        dir.join("trainlint.toml"),
        "select = [\"BAT\", \"MEM\"]\nignore = [\"BAT006\"]\ngpus = [\"a100-80gb\"]\nworld-size = 4\nextend-exclude = [\"old\"]\n[severity]\nMEM002 = \"error\"\n",
    )
    .unwrap();
    let output = run(&dir, &["check", "--show-settings", "--extend-ignore", "BAT007", "config.yaml"], &[], None);
    assert_eq!(output.status.code(), Some(0), "{}", common::stderr(&output));
    let out = common::stdout(&output);
    assert!(out.contains("manifest: ") && out.contains("trainlint.toml"), "{out}");
    assert!(out.contains("rules enabled (12 of "), "BAT001-010 and MEM001-004 less BAT006 and BAT007: {out}");
    assert!(out.contains("BAT006") && out.contains("BAT007") && out.contains("SCH001"), "{out}");
    assert!(out.contains("severity overrides: MEM002 = error"), "{out}");
    assert!(out.contains("gpus: a100-80gb ("), "{out}");
    assert!(out.contains("world-size: 4"), "{out}");
    assert!(out.contains("extend-exclude: old"), "{out}");
    assert!(out.contains("respect-gitignore: true"), "{out}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn extend_ignore_adds_to_ignore() {
    let dir = project("ignore");
    let codes = |args: &[&str]| common::stdout(&run(&dir, args, &[], None));
    let all = codes(&["check", "--output-format", "concise", "warnings.yaml"]);
    assert!(all.contains("MIG006") && all.contains("ENV002"), "{all}");
    let less = codes(&["check", "--output-format", "concise", "--ignore", "ENV002", "--extend-ignore", "MIG006", "warnings.yaml"]);
    assert!(!less.contains("MIG006") && !less.contains("ENV002"), "{less}");
    assert_eq!(run(&dir, &["check", "--extend-ignore", "NOPE999", "warnings.yaml"], &[], None).status.code(), Some(2), "an unknown code is a usage error");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn warnings_fail_only_with_exit_non_zero_on_warning() {
    let dir = project("strict");
    assert_eq!(run(&dir, &["check", "warnings.yaml"], &[], None).status.code(), Some(0));
    assert_eq!(run(&dir, &["check", "--exit-non-zero-on-warning", "warnings.yaml"], &[], None).status.code(), Some(1));
    assert_eq!(run(&dir, &["check", "--exit-non-zero-on-warning", "--exit-zero", "warnings.yaml"], &[], None).status.code(), Some(0));
    assert_eq!(
        run(&dir, &["check", "--exit-non-zero-on-warning", "--ignore", "MIG006,ENV002", "warnings.yaml"], &[], None).status.code(),
        Some(0),
        "an info never fails"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// GitLab's Code Quality fields (docs.gitlab.com/ci/testing/code_quality/,
/// "Code Quality report format"): `description`, `check_name`,
/// `fingerprint`, `severity` (one of five), `location.path`, `location.lines.begin`.
#[test]
fn gitlab_code_quality_has_the_documented_fields() {
    let dir = project("gitlab");
    let output = run(&dir, &["check", "--output-format", "gitlab", "."], &[], None);
    assert_eq!(output.status.code(), Some(1));
    let issues: Vec<serde_json::Value> = serde_json::from_str(&common::stdout(&output)).expect("a JSON list");
    let json: serde_json::Value = serde_json::from_str(&common::stdout(&run(&dir, &["check", "--output-format", "json", "."], &[], None))).unwrap();
    assert_eq!(issues.len(), json["diagnostics"].as_array().unwrap().len(), "one issue per finding");
    assert!(issues.len() >= 4);
    let mut fingerprints = std::collections::BTreeSet::new();
    for issue in &issues {
        let object = issue.as_object().unwrap();
        assert!(object["description"].as_str().is_some_and(|s| !s.is_empty()), "{issue}");
        assert!(object["check_name"].as_str().is_some_and(|s| s.len() == 6), "{issue}");
        assert!(["info", "minor", "major", "critical", "blocker"].contains(&object["severity"].as_str().unwrap()), "{issue}");
        assert!(["config.yaml", "warnings.yaml"].contains(&issue["location"]["path"].as_str().unwrap()), "relative paths: {issue}");
        assert!(issue["location"]["lines"]["begin"].as_u64().is_some_and(|l| l >= 1), "{issue}");
        let fingerprint = object["fingerprint"].as_str().unwrap();
        assert!(fingerprints.insert(fingerprint.to_owned()), "unique fingerprints: {fingerprint}");
    }
    let error = issues.iter().find(|i| i["check_name"] == "BAT001").unwrap();
    assert_eq!((error["severity"].as_str(), error["location"]["lines"]["begin"].as_u64()), (Some("major"), Some(5)));
    // Stable across runs, and across a line moving (GitLab matches issues by fingerprint).
    std::fs::write(dir.join("config.yaml"), format!("# a new first line\n{MISMATCH}")).unwrap();
    let moved: Vec<serde_json::Value> = serde_json::from_str(&common::stdout(&run(&dir, &["check", "--output-format", "gitlab", "."], &[], None))).unwrap();
    let moved_error = moved.iter().find(|i| i["check_name"] == "BAT001").unwrap();
    assert_eq!(moved_error["fingerprint"], error["fingerprint"]);
    assert_eq!(moved_error["location"]["lines"]["begin"], 6);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// GitLab matches `location.path` against the repository's files: paths are relative to the
/// job's checkout (`CI_PROJECT_DIR`), else to the git work tree, never to the folder the job
/// `cd`s into (issue 27).
#[test]
fn gitlab_paths_are_relative_to_the_repository_root() {
    let dir = common::fresh_dir("gitlab-root");
    std::fs::create_dir_all(dir.join("configs")).unwrap();
    std::fs::write(dir.join("configs/config.yaml"), MISMATCH).unwrap();
    let paths = |env: &[(&str, &str)]| -> Vec<String> {
        let output = run(&dir.join("configs"), &["check", "--output-format", "gitlab", "."], env, None);
        let issues: Vec<serde_json::Value> = serde_json::from_str(&common::stdout(&output)).expect("a JSON list");
        issues.iter().map(|i| i["location"]["path"].as_str().unwrap().to_owned()).collect()
    };
    // No repository, no variable: relative to where it runs, as before.
    assert!(paths(&[]).iter().all(|p| p == "config.yaml"), "{:?}", paths(&[]));
    // The job's checkout.
    let root = dir.to_str().unwrap();
    assert!(paths(&[("CI_PROJECT_DIR", root)]).iter().all(|p| p == "configs/config.yaml"), "{:?}", paths(&[("CI_PROJECT_DIR", root)]));
    // A relative variable is not a checkout: ignored.
    assert!(paths(&[("CI_PROJECT_DIR", "elsewhere")]).iter().all(|p| p == "config.yaml"));
    // The git work tree around the files.
    std::fs::create_dir_all(dir.join(".git")).unwrap();
    std::fs::write(dir.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    assert!(paths(&[]).iter().all(|p| p == "configs/config.yaml"), "{:?}", paths(&[]));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A small XML 1.0 well-formedness check: balanced, properly nested tags,
/// quoted attributes, only the five predefined or numeric entities, no raw
/// `<` or `&` in text, no forbidden control characters. Returns the element names opened, in order.
fn well_formed(xml: &str) -> Result<Vec<String>, String> {
    let body = xml.strip_prefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n").ok_or("no XML declaration")?;
    let check_text = |text: &str| -> Result<(), String> {
        if text.chars().any(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r')) {
            return Err(format!("control character in {text:?}"));
        }
        let mut rest = text;
        while let Some(at) = rest.find('&') {
            let end = rest[at..].find(';').ok_or_else(|| format!("unterminated entity in {text:?}"))?;
            let entity = &rest[at + 1..at + end];
            let numeric = entity.strip_prefix('#').is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
            if !numeric && !["amp", "lt", "gt", "quot", "apos"].contains(&entity) {
                return Err(format!("unknown entity &{entity};"));
            }
            rest = &rest[at + end + 1..];
        }
        Ok(())
    };
    let mut stack: Vec<String> = Vec::new();
    let mut opened = Vec::new();
    let mut rest = body;
    while let Some(start) = rest.find('<') {
        check_text(&rest[..start])?;
        let end = rest[start..].find('>').ok_or("unterminated tag")? + start;
        let tag = &rest[start + 1..end];
        if tag.contains('<') {
            return Err(format!("`<` inside a tag: {tag}"));
        }
        if let Some(name) = tag.strip_prefix('/') {
            if stack.pop().as_deref() != Some(name) {
                return Err(format!("mismatched </{name}>"));
            }
        } else {
            let self_closing = tag.ends_with('/');
            let tag = tag.trim_end_matches('/');
            let name = tag.split_whitespace().next().ok_or("empty tag")?.to_owned();
            let mut attributes = tag[name.len()..].trim();
            while !attributes.is_empty() {
                let (key, value) = attributes.split_once("=\"").ok_or_else(|| format!("unquoted attribute in <{tag}>"))?;
                if key.trim().is_empty() || key.trim().contains(char::is_whitespace) {
                    return Err(format!("bad attribute name in <{tag}>"));
                }
                let close = value.find('"').ok_or("unterminated attribute")?;
                check_text(&value[..close])?;
                attributes = value[close + 1..].trim_start();
            }
            opened.push(name.clone());
            if !self_closing {
                stack.push(name);
            }
        }
        rest = &rest[end + 1..];
        if stack.is_empty() && !rest.trim().is_empty() {
            return Err("content after the root element".into());
        }
    }
    if !stack.is_empty() {
        return Err(format!("unclosed: {stack:?}"));
    }
    Ok(opened)
}

#[test]
fn the_xml_checker_rejects_broken_xml() {
    let head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    assert!(well_formed(&format!("{head}<a><b x=\"1\"/></a>\n")).is_ok());
    for broken in ["<a><b></a></b>", "<a>x & y</a>", "<a x=1/>", "<a>\u{1b}</a>", "<a>&nbsp;</a>", "<a>", "<a/><b/>"] {
        assert!(well_formed(&format!("{head}{broken}\n")).is_err(), "{broken}");
    }
}

#[test]
fn junit_is_well_formed_with_a_testsuite_per_file_and_a_testcase_per_finding() {
    let dir = project("junit");
    // A key with markup characters reaches the message (SCH003 names unknown keys in some dialects; the value reaches the file name here).
    std::fs::write(dir.join("odd <&\">.yaml"), MISMATCH).unwrap();
    let output = run(&dir, &["check", "--output-format", "junit", "."], &[], None);
    assert_eq!(output.status.code(), Some(1));
    let xml = common::stdout(&output);
    let opened = well_formed(&xml).unwrap_or_else(|e| panic!("{e}\n{xml}"));
    let json: serde_json::Value = serde_json::from_str(&common::stdout(&run(&dir, &["check", "--output-format", "json", "."], &[], None))).unwrap();
    let findings = json["diagnostics"].as_array().unwrap();
    let files: std::collections::BTreeSet<&str> = findings.iter().map(|d| d["file"].as_str().unwrap()).collect();
    assert_eq!(opened.iter().filter(|n| *n == "testsuites").count(), 1);
    assert_eq!(opened.iter().filter(|n| *n == "testsuite").count(), files.len());
    assert_eq!(opened.iter().filter(|n| *n == "testcase").count(), findings.len());
    // An error or warning fails; an info (which never fails the run) is a skipped case.
    let failing = findings.iter().filter(|d| d["severity"] != "info").count();
    assert_eq!(opened.iter().filter(|n| *n == "failure").count(), failing);
    assert_eq!(opened.iter().filter(|n| *n == "skipped").count(), findings.len() - failing);
    assert!(xml.contains("name=\"odd &lt;&amp;&quot;&gt;.yaml\""), "{xml}");
    assert!(
        xml.contains(&format!(
            "<testsuites name=\"trainlint\" tests=\"{}\" failures=\"{failing}\" errors=\"0\" skipped=\"{}\"",
            findings.len(),
            findings.len() - failing
        )),
        "{xml}"
    );
    // Infos alone: no failed test (BAT006, the world left to the launcher).
    let infos = common::fresh_dir("junit-infos");
    std::fs::write(infos.join("ds.json"), "{\"train_micro_batch_size_per_gpu\": 2, \"gradient_accumulation_steps\": 4}\n").unwrap();
    let output = run(&infos, &["check", "--output-format", "junit", "ds.json"], &[], None);
    let xml = common::stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{xml}");
    assert!(xml.contains("failures=\"0\"") && xml.contains("<skipped message="), "{xml}");
    std::fs::remove_dir_all(&infos).unwrap();
    // Nothing found: still a report, with one passing test case.
    let clean = common::fresh_dir("junit-clean");
    std::fs::write(clean.join("config.yaml"), MISMATCH.replace("accumulation: 2", "accumulation: 3")).unwrap();
    let output = run(&clean, &["check", "--output-format", "junit", "config.yaml"], &[], None);
    assert_eq!(output.status.code(), Some(0));
    let opened = well_formed(&common::stdout(&output)).unwrap();
    assert_eq!(opened, ["testsuites", "testsuite", "testcase"]);
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_dir_all(&clean).unwrap();
}

#[test]
fn each_subcommand_accepts_only_the_formats_it_writes() {
    let seed = "fixtures/seeds/002_dreams.yaml";
    for (args, format) in [
        (vec!["check", seed], "html"),
        (vec!["plan", seed, "--gpu", "a100-80gb"], "html"),
        (vec!["plan", seed, "--gpu", "a100-80gb"], "sarif"),
        (vec!["show", seed], "github"),
        (vec!["estimate", seed, "--gpu", "a100-80gb"], "concise"),
        (vec!["gpus"], "concise"),
        (vec!["rule", "SCH001"], "gitlab"),
    ] {
        let mut args = args.clone();
        args.extend(["--output-format", format]);
        let output = common::trainlint(&args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let err = common::stderr(&output);
        assert!(err.contains(&format!("invalid value '{format}'")) && err.contains("possible values"), "{err}");
        assert!(common::stdout(&output).is_empty());
    }
    let help = |command: &str| common::stdout(&common::trainlint(&[command, "-h"]));
    assert!(help("check").contains("[possible values: full, concise, json, sarif, github, gitlab, junit]"), "{}", help("check"));
    assert!(help("estimate").contains("[possible values: full, json, html]"));
    assert!(help("plan").contains("[possible values: full, json]"));
    assert!(common::stdout(&common::trainlint(&["--help"])).contains("Exit codes: 0"));
}

#[test]
fn fix_counts_findings_by_severity_and_hints_at_unsafe_fixes() {
    let dir = project("fixmsg");
    let safe = run(&dir, &["check", "--fix", "--output-format", "concise", "."], &[], None);
    let out = common::stdout(&safe);
    assert!(out.contains("Fixed 0 findings in 0 files. 2 fixes are available with `--unsafe-fixes`."), "{out}");
    let diff = run(&dir, &["check", "--diff", "."], &[], None);
    assert!(common::stderr(&diff).contains("Would fix 0 findings in 0 files. 2 fixes are available with `--unsafe-fixes`."), "{}", common::stderr(&diff));
    let fixed = run(&dir, &["check", "--fix", "--unsafe-fixes", "--output-format", "concise", "."], &[], None);
    let out = common::stdout(&fixed);
    assert!(out.contains("Fixed 2 findings (1 error, 1 warning) in 2 files.\n"), "a warning is not counted as an error: {out}");
    assert!(!out.contains("--unsafe-fixes`."), "{out}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_refusal_is_a_human_error_not_a_diagnostic_code() {
    let output = common::trainlint(&["estimate", "fixtures/seeds/002_dreams.yaml"]);
    assert_eq!(output.status.code(), Some(2));
    let err = common::stderr(&output);
    assert!(err.starts_with("error: no GPU target\n  help: pass `--gpu ID`"), "{err}");
    assert!(!err.contains("trainlint::"), "{err}");
    let missing = common::stderr(&common::trainlint(&["check", "no/such/file.yaml"]));
    assert!(missing.starts_with("error: cannot read `no/such/file.yaml`"), "{missing}");
    // A bad manifest keeps its snippet, under the same `error:` header.
    let dir = common::fresh_dir("bad-manifest");
    std::fs::write(dir.join("trainlint.toml"), "select = [\"NOPE\"]\n").unwrap();
    std::fs::write(dir.join("config.yaml"), MISMATCH).unwrap();
    let output = run(&dir, &["check", "config.yaml"], &[], None);
    assert_eq!(output.status.code(), Some(2));
    let err = common::stderr(&output);
    assert!(err.starts_with("error: invalid manifest `") && err.contains("`NOPE` selects no rule") && err.contains("select = [\"NOPE\"]"), "{err}");
    assert!(!err.contains("trainlint::") && !err.contains('\u{1b}'), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// pre-commit passes a changed manifest: it stands for the folder it governs,
/// so a manifest edit that breaks a config is caught; a `pyproject.toml`
/// without `[tool.trainlint]` is passed over.
#[test]
fn a_manifest_on_the_command_line_checks_its_folder() {
    let dir = common::fresh_dir("manifest-arg");
    std::fs::create_dir(dir.join("conf")).unwrap();
    std::fs::write(dir.join("conf/config.yaml"), format!("{}extra_key: 1\n", MISMATCH.replace("accumulation: 2", "accumulation: 3"))).unwrap();
    std::fs::write(dir.join("trainlint.toml"), "ignore = [\"SCH003\"]\n").unwrap();
    let clean = run(&dir, &["check", "--force-exclude", "--output-format", "concise", "trainlint.toml"], &[], None);
    assert_eq!(clean.status.code(), Some(0), "{}", common::stdout(&clean));
    assert!(common::stdout(&clean).contains("All checks passed (1 file checked)"), "{}", common::stdout(&clean));
    std::fs::write(dir.join("trainlint.toml"), "world-size = 1\n").unwrap();
    let broken = run(&dir, &["check", "--force-exclude", "--output-format", "concise", "trainlint.toml", "conf/config.yaml"], &[], None);
    assert_eq!(broken.status.code(), Some(1));
    let out = common::stdout(&broken);
    assert_eq!(out.matches("SCH003").count(), 1, "the config once, not twice: {out}");
    std::fs::write(dir.join("pyproject.toml"), "[project]\nname = \"x\"\n").unwrap();
    let other = run(&dir, &["check", "--output-format", "concise", "pyproject.toml"], &[], None);
    assert_eq!(other.status.code(), Some(0), "{}", common::stdout(&other));
    assert!(!common::stdout(&other).contains("SCH001"));
    std::fs::write(dir.join("pyproject.toml"), "[tool.trainlint]\nworld-size = 1\n").unwrap();
    std::fs::remove_file(dir.join("trainlint.toml")).unwrap();
    assert_eq!(run(&dir, &["check", "pyproject.toml"], &[], None).status.code(), Some(1), "a pyproject manifest too");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A project shaped like a real one (issue 27): a git work tree with configs, a
/// vendored `third_party/` copy, a Hydra `outputs/` run folder, and each config
/// one SCH002, one SCH003 and one SCH004.
fn layout(label: &str, manifest: &str) -> std::path::PathBuf {
    let dir = common::fresh_dir(label);
    std::fs::create_dir_all(dir.join(".git")).unwrap();
    let config = std::fs::read_to_string(common::repo().join("fixtures/rules/SCH002/mixed_errors.yaml")).unwrap();
    for file in ["configs/train.yaml", "configs/ds/zero2.yaml", "third_party/lib/train.yaml", "outputs/2024-01-01/config.yaml"] {
        std::fs::create_dir_all(dir.join(file).parent().unwrap()).unwrap();
        std::fs::write(dir.join(file), &config).unwrap();
    }
    if !manifest.is_empty() {
        std::fs::write(dir.join("trainlint.toml"), manifest).unwrap();
    }
    dir
}

/// `file:CODE` for each finding of `check --output-format json` in `dir`, and the exit code.
fn findings(dir: &Path, args: &[&str]) -> (Option<i32>, Vec<String>) {
    let mut all = vec!["check", "--output-format", "json"];
    all.extend(args);
    let output = run(dir, &all, &[], None);
    let value: serde_json::Value = serde_json::from_str(&common::stdout(&output)).unwrap_or_else(|e| panic!("{e}: {}", common::stderr(&output)));
    let found = value["diagnostics"].as_array().unwrap().iter().map(|d| format!("{}:{}", d["file"].as_str().unwrap(), d["code"].as_str().unwrap())).collect();
    (output.status.code(), found)
}

fn files_of(found: &[String]) -> Vec<String> {
    let mut files: Vec<String> = found.iter().map(|f| f.rsplit_once(':').unwrap().0.to_owned()).collect();
    files.dedup();
    files
}

#[test]
fn exclude_and_extend_exclude_on_the_command_line_as_ruff() {
    let dir = layout("exclude", "extend-exclude = [\"third_party\"]\n");
    // The defaults skip `outputs/`, the manifest's extend-exclude `third_party/`.
    assert_eq!(files_of(&findings(&dir, &["."]).1), ["configs/ds/zero2.yaml", "configs/train.yaml"]);
    // `--exclude` replaces the defaults (and the manifest's `exclude`): `outputs/` is walked; `extend-exclude` still applies.
    assert_eq!(files_of(&findings(&dir, &["--exclude", "configs/ds", "."]).1), ["configs/train.yaml", "outputs/2024-01-01/config.yaml"]);
    // Comma-separated, globs relative to the project root.
    assert_eq!(files_of(&findings(&dir, &["--exclude", "outputs,configs/*/*.yaml", "."]).1), ["configs/train.yaml"]);
    // `--extend-exclude` adds to the defaults and the manifest's.
    assert_eq!(files_of(&findings(&dir, &["--extend-exclude", "ds", "."]).1), ["configs/train.yaml"]);
    // A file named on the command line is checked even when excluded, unless `--force-exclude`; a folder too.
    assert_eq!(files_of(&findings(&dir, &["--extend-exclude", "ds", "configs/ds/zero2.yaml"]).1), ["configs/ds/zero2.yaml"]);
    let (code, found) = findings(&dir, &["--extend-exclude", "ds", "--force-exclude", "configs/ds/zero2.yaml", "third_party", "configs/train.yaml"]);
    assert_eq!((code, files_of(&found)), (Some(1), vec!["configs/train.yaml".to_owned()]));
    let output = run(&dir, &["check", "--show-settings", "--exclude", "outputs", "--extend-exclude", "ds", "."], &[], None);
    let out = common::stdout(&output);
    assert!(out.contains("  exclude: outputs\n") && out.contains("  extend-exclude: third_party, ds\n"), "{out}");
    let bad = run(&dir, &["check", "--extend-exclude", "a/[", "."], &[], None);
    assert_eq!(bad.status.code(), Some(2), "an invalid glob is a usage error");
    assert!(common::stderr(&bad).contains("invalid glob pattern `a/[`"), "{}", common::stderr(&bad));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn per_file_ignores_on_the_command_line_replace_the_manifests_and_extend_adds() {
    let manifest = "[per-file-ignores]\n\"configs/ds/*.yaml\" = [\"SCH004\"]\n[extend-per-file-ignores]\n\"train.yaml\" = [\"SCH003\"]\n";
    let dir = layout("per-file", manifest);
    let codes_in =
        |found: &[String], file: &str| -> Vec<String> { found.iter().filter_map(|f| f.strip_prefix(&format!("{file}:")).map(str::to_owned)).collect() };
    let (_, found) = findings(&dir, &["configs"]);
    assert_eq!(codes_in(&found, "configs/ds/zero2.yaml"), ["SCH002", "SCH003"], "the manifest's per-file-ignores");
    assert_eq!(codes_in(&found, "configs/train.yaml"), ["SCH002", "SCH004"], "its extend-per-file-ignores (a bare name matches anywhere)");
    // `--per-file-ignores GLOB:CODE,CODE` replaces `per-file-ignores`; `extend-per-file-ignores` stays.
    let (_, found) = findings(&dir, &["--per-file-ignores", "configs/ds/*.yaml:SCH002,SCH003", "configs"]);
    assert_eq!(codes_in(&found, "configs/ds/zero2.yaml"), ["SCH004"]);
    assert_eq!(codes_in(&found, "configs/train.yaml"), ["SCH002", "SCH004"]);
    // ruff's spelling, pairs separated by commas, and repeated flags; `--extend-per-file-ignores` adds.
    let (_, found) = findings(
        &dir,
        &[
            "--per-file-ignores",
            "configs/ds/*.yaml:SCH002,train.yaml:SCH002",
            "--per-file-ignores",
            "*.yaml:SCH003",
            "--extend-per-file-ignores",
            "**/ds/*:SCH004",
            "configs",
        ],
    );
    assert_eq!(codes_in(&found, "configs/ds/zero2.yaml"), Vec::<String>::new());
    assert_eq!(codes_in(&found, "configs/train.yaml"), ["SCH004"]);
    // A glob's `{a,b}` keeps its comma.
    let (_, found) = findings(&dir, &["--extend-per-file-ignores", "configs/{ds,x}/*.yaml:SCH002", "configs"]);
    assert_eq!(codes_in(&found, "configs/ds/zero2.yaml"), ["SCH003"]);
    for bad in ["SCH002", "configs:", "configs:NOPE9"] {
        let output = run(&dir, &["check", "--per-file-ignores", bad, "configs"], &[], None);
        assert_eq!(output.status.code(), Some(2), "`{bad}`: {}", common::stderr(&output));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn select_ignore_and_their_extend_forms_compose_as_ruff() {
    let dir = layout("compose", "select = [\"SCH\"]\nignore = [\"SCH004\"]\nextend-ignore = [\"SCH003\"]\n");
    let codes = |args: &[&str]| -> Vec<String> {
        let mut all = args.to_vec();
        all.push("configs/train.yaml");
        findings(&dir, &all).1.into_iter().map(|f| f.rsplit_once(':').unwrap().1.to_owned()).collect()
    };
    // The manifest's `extend-ignore` is one more `ignore`.
    assert_eq!(codes(&[]), ["SCH002"]);
    // `--extend-select` and `--ignore` change the manifest's selection...
    assert_eq!(codes(&["--extend-select", "SCH004"]), ["SCH002", "SCH004"]);
    assert_eq!(codes(&["--ignore", "SCH002"]), Vec::<String>::new());
    // ...`--select` starts over: the manifest's ignores no longer apply.
    assert_eq!(codes(&["--select", "SCH"]), ["SCH002", "SCH003", "SCH004"]);
    assert_eq!(codes(&["--select", "SCH", "--extend-ignore", "SCH002"]), ["SCH003", "SCH004"]);
    // In one layer the more specific selector wins, and an ignore wins over an equal select.
    assert_eq!(codes(&["--select", "SCH003", "--ignore", "SCH"]), ["SCH003"]);
    assert_eq!(codes(&["--extend-select", "SCH003", "--ignore", "SCH003"]), ["SCH002"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn isolated_reads_no_manifest() {
    let dir = layout("isolated", "ignore = [\"SCH\"]\n");
    std::fs::write(dir.join("configs/pyproject.toml"), "[tool.trainlint]\nignore = [\"SCH002\"]\n").unwrap();
    let codes: Vec<String> = findings(&dir, &["."]).1.into_iter().map(|f| f.rsplit_once(':').unwrap().1.to_owned()).collect();
    assert_eq!(codes, ["SCH003", "SCH004", "SCH003", "SCH004"], "each file's nearest manifest: `configs/` ignores SCH002, the rest SCH");
    let (code, found) = findings(&dir, &["--isolated", "."]);
    assert_eq!(code, Some(1));
    assert_eq!(files_of(&found), ["configs/ds/zero2.yaml", "configs/train.yaml", "third_party/lib/train.yaml"], "defaults only: `outputs/` skipped");
    // Only the command line counts.
    assert_eq!(findings(&dir, &["--isolated", "--select", "SCH004", "configs/train.yaml"]).1, ["configs/train.yaml:SCH004"]);
    let output = run(&dir, &["check", "--isolated", "--show-settings", "configs/train.yaml"], &[], None);
    assert!(common::stdout(&output).contains("manifest: none"), "{}", common::stdout(&output));
    let both = run(&dir, &["check", "--isolated", "--config", "trainlint.toml", "."], &[], None);
    assert_eq!(both.status.code(), Some(2), "as ruff: `--isolated` and `--config` conflict");
    for command in [&["show", "--isolated", "configs/train.yaml"][..], &["migrate", "--isolated", "configs"]] {
        let output = run(&dir, command, &[], None);
        assert_ne!(output.status.code(), Some(2), "{command:?}: {}", common::stderr(&output));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_bare_suppression_suppresses_nothing_and_says_so() {
    // The book rejects blanket suppressions (SUP001's page): ruff's bare `# noqa` has no counterpart.
    let dir = common::fresh_dir("bare-ignore");
    std::fs::write(dir.join("train.yaml"), "trainlint: 1\nbatch:\n  micro_batch: \"32\"  # trainlint: ignore\n  accumulation: 1\n").unwrap();
    let (code, found) = findings(&dir, &["train.yaml"]);
    assert_eq!(code, Some(1));
    assert_eq!(found, ["train.yaml:SCH002", "train.yaml:SUP001"], "the finding stays, and the comment is reported");
    let output = run(&dir, &["check", "--output-format", "full", "train.yaml"], &[], None);
    let out = common::stdout(&output);
    assert!(out.contains("suppresses nothing") && out.contains("# trainlint: ignore[CODE] why it is fine"), "{out}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn config_lists_the_manifest_keys_from_its_schema_and_explains_one() {
    let dir = common::fresh_dir("config-command");
    let output = run(&dir, &["config"], &[], None);
    assert_eq!(output.status.code(), Some(0));
    let out = common::stdout(&output);
    // Every top-level key of the manifest's schema, in its order: the list is the schema's, not a second one.
    let schema: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(common::repo().join("schemas/manifest.schema.json")).unwrap()).unwrap();
    let keys: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
    let listed: Vec<&str> = out.lines().skip(1).filter_map(|l| l.split_whitespace().next()).filter(|k| !k.contains('.') && !k.starts_with('`')).collect();
    assert_eq!(listed, keys, "{out}");
    assert!(out.lines().any(|l| l.starts_with("extend-per-file-ignores ") && l.contains("table of list of string") && l.ends_with("`{}`")), "{out}");
    assert!(out.lines().any(|l| l.starts_with("world-size ") && l.contains("integer") && l.ends_with("not set")), "{out}");
    assert!(out.contains("gpu[].memory-mib"), "nested keys too: {out}");
    let one = run(&dir, &["config", "extend-ignore"], &[], None);
    assert_eq!(one.status.code(), Some(0));
    let text = common::stdout(&one);
    assert!(text.starts_with("extend-ignore\n\nRule codes or prefixes to disable on top of `ignore`"), "{text}");
    assert!(text.contains("Type: list of string\nDefault: `[]`\n") && text.contains("extend-ignore = [\"MEM003\"]"), "{text}");
    assert!(common::stdout(&run(&dir, &["config", "gpu.memory-mib"], &[], None)).contains("Total memory in MiB"));
    let unknown = run(&dir, &["config", "per-file-ignore"], &[], None);
    assert_eq!(unknown.status.code(), Some(2));
    let err = common::stderr(&unknown);
    assert!(err.contains("error: unknown manifest key `per-file-ignore`") && err.contains("did you mean `per-file-ignores`?"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn add_noqa_writes_suppressions_on_the_lines_with_findings_and_nothing_else() {
    let dir = common::fresh_dir("add-noqa");
    std::fs::create_dir_all(dir.join(".git")).unwrap();
    std::fs::create_dir_all(dir.join("configs/ds")).unwrap();
    // A comment already on the line, a bare suppression, a suppression to extend, CRLF line ends,
    // a plain scalar continued on the next line (a ` #` there would end it), and a JSON file.
    let train =
        "# keep me\ntrainlint: 1\nbatch:\n  micro_batch: \"32\"   # lowered\n  acumulation: 4\nparallel:\n  devices: 2\n  devices: 4  # trainlint: ignore\n";
    let crlf = "trainlint: 1\r\nbatch:\r\n  micro_batch: \"32\"  # trainlint: ignore[SCH003] tuned\r\n  accumulation: 1\r\n";
    let continued = "trainlint: 1\nbatch:\n  micro_batch: 4\n  acumulation: four\n    and more\n";
    std::fs::write(dir.join("configs/train.yaml"), train).unwrap();
    std::fs::write(dir.join("configs/crlf.yaml"), crlf).unwrap();
    std::fs::write(dir.join("configs/continued.yaml"), continued).unwrap();
    std::fs::write(dir.join("configs/ds/zero.json"), "{\"train_batch_size\": 2, \"train_batch_size\": 4}\n").unwrap();
    let output = run(&dir, &["check", "--add-noqa", "--select", "SCH", "."], &[], None);
    assert_eq!(output.status.code(), Some(0), "{}", common::stderr(&output));
    let err = common::stderr(&output);
    assert!(err.contains("Added 4 suppressions in 2 files."), "{err}");
    assert!(err.contains("warning: 2 findings left unsuppressed"), "the JSON file's and the continued scalar's: {err}");
    let read = |name: &str| std::fs::read_to_string(dir.join("configs").join(name)).unwrap();
    assert_eq!(
        read("train.yaml"),
        "# keep me\ntrainlint: 1\nbatch:\n  micro_batch: \"32\"   # lowered  # trainlint: ignore[SCH002]\n  acumulation: 4  # trainlint: ignore[SCH003]\nparallel:\n  devices: 2\n  devices: 4  # trainlint: ignore[SCH004]\n"
    );
    assert_eq!(read("crlf.yaml"), "trainlint: 1\r\nbatch:\r\n  micro_batch: \"32\"  # trainlint: ignore[SCH003, SCH002] tuned\r\n  accumulation: 1\r\n");
    assert_eq!(read("continued.yaml"), continued, "a comment there would change the value: left alone");
    // The findings are suppressed; SUP002 asks for the reasons (trainlint never writes one for you).
    let (_, found) = findings(&dir, &["--select", "SCH,SUP", "configs/train.yaml", "configs/crlf.yaml"]);
    assert_eq!(found, ["configs/train.yaml:SUP002", "configs/train.yaml:SUP002", "configs/train.yaml:SUP002"]);
    // A second run has nothing to add.
    let again = run(&dir, &["check", "--add-noqa", "--select", "SCH", "configs/train.yaml", "configs/crlf.yaml"], &[], None);
    assert!(common::stderr(&again).contains("Added 0 suppressions in 0 files."), "{}", common::stderr(&again));
    let refused = run(&dir, &["check", "--add-noqa", "--fix", "."], &[], None);
    assert_eq!(refused.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).unwrap();
}
