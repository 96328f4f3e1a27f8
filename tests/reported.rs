//! The regression set of real runs (issue 23): each `fixtures/reported/<case>/` holds the files a
//! user posted in a public issue thread, laid out as the command they ran names them, and its
//! `case.toml` says what the thread reports (the GPU, the world, whether the run failed and how)
//! and, under `[trainlint]`, the command a user would run before launch and what it reports.
//!
//! Each case is checked in a fresh git work tree holding only its files. The error and warning
//! codes must be exactly those recorded: a change that catches a miss or loses a catch shows up
//! here and is recorded by hand, with the cause of each miss. The book's page
//! `book/src/reported.md` is generated from the cases (`TRAINLINT_WRITE_BOOK=1 cargo test --test
//! reported` rewrites it); `TRAINLINT_WRITE_REPORTED=1` rewrites the recorded codes (review the diff).

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

struct Case {
    slug: String,
    path: PathBuf,
    source: String,
    framework: String,
    summary: String,
    gpu_named: String,
    outcome: String,
    failure: String,
    args: Vec<String>,
    errors: Vec<String>,
    warnings: Vec<String>,
    cause: String,
}

fn text(table: &toml::Table, key: &str, slug: &str) -> String {
    table.get(key).and_then(|v| v.as_str()).unwrap_or_else(|| panic!("{slug}: case.toml lacks `{key}`")).to_owned()
}

fn list(table: Option<&toml::Table>, key: &str) -> Vec<String> {
    table.and_then(|t| t.get(key)).and_then(|v| v.as_array()).map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect()).unwrap_or_default()
}

fn cases() -> Vec<Case> {
    let root = common::repo().join("fixtures/reported");
    let mut out = Vec::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(&root).unwrap().flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect();
    entries.sort();
    for path in entries {
        let slug = path.file_name().unwrap().to_string_lossy().into_owned();
        let table: toml::Table = std::fs::read_to_string(path.join("case.toml")).unwrap().parse().unwrap_or_else(|e| panic!("{slug}: {e}"));
        let tl = table.get("trainlint").and_then(|t| t.as_table());
        assert!(tl.is_some_and(|t| t.contains_key("args")), "{slug}: case.toml lacks `[trainlint] args` (the command a user runs)");
        let outcome = text(&table, "outcome", &slug);
        assert!(outcome == "failed" || outcome == "ran", "{slug}: outcome {outcome}");
        out.push(Case {
            source: text(&table, "source", &slug),
            framework: text(&table, "framework", &slug),
            summary: text(&table, "summary", &slug),
            gpu_named: text(&table, "gpu_named", &slug),
            failure: text(&table, "failure", &slug),
            args: list(tl, "args"),
            errors: list(tl, "errors"),
            warnings: list(tl, "warnings"),
            cause: tl.and_then(|t| t.get("cause")).and_then(|v| v.as_str()).unwrap_or("").to_owned(),
            outcome,
            slug,
            path,
        });
    }
    out
}

/// The codes that name a failure of this kind before launch.
fn names_failure(failure: &str, code: &str) -> bool {
    match failure {
        // MEM001 is sure (even the band's low end exceeds the card); MEM002 says "may not fit"
        // (the band straddles it): both name the failure, the page counts them apart.
        "oom" => code == "MEM001" || code == "MEM002",
        "bf16-unsupported" => code == "HW001",
        "batch-assertion" => matches!(code, "BAT001" | "BAT003" | "BAT004" | "BAT008"),
        "removed-argument" => code.starts_with("MIG"),
        _ => false,
    }
}

impl Case {
    fn caught(&self) -> bool {
        self.outcome == "failed" && self.errors.iter().chain(&self.warnings).any(|c| names_failure(&self.failure, c))
    }

    /// Caught by an error-level code (the run is blocked, exit 1).
    fn caught_as_error(&self) -> bool {
        self.outcome == "failed" && self.errors.iter().any(|c| names_failure(&self.failure, c))
    }

    /// A warning on a run that ran (printed, not blocking).
    fn warned(&self) -> bool {
        self.outcome == "ran" && self.errors.is_empty() && !self.warnings.is_empty()
    }

    fn false_alarm(&self) -> bool {
        self.outcome == "ran" && !self.errors.is_empty()
    }
}

/// The distinct error and warning codes of `check --output-format json ARGS .` in a fresh work tree.
fn run(case: &Case) -> (Vec<String>, Vec<String>) {
    let dir = common::fresh_dir(&format!("reported-{}", case.slug));
    common::copy_dir(&case.path, &dir);
    std::fs::remove_file(dir.join("case.toml")).unwrap();
    std::fs::create_dir_all(dir.join(".git")).unwrap();
    let mut args = vec!["check", "--output-format", "json"];
    args.extend(case.args.iter().map(String::as_str));
    args.push(".");
    let output = common::trainlint_in(&dir, &args);
    let json: serde_json::Value = serde_json::from_str(&common::stdout(&output)).unwrap_or_else(|e| panic!("{}: {e}: {}", case.slug, common::stderr(&output)));
    let (mut errors, mut warnings) = (BTreeSet::new(), BTreeSet::new());
    for d in json["diagnostics"].as_array().unwrap() {
        let code = d["code"].as_str().unwrap().to_owned();
        match d["severity"].as_str() {
            Some("error") => errors.insert(code),
            Some("warning") => warnings.insert(code),
            _ => false,
        };
    }
    let _ = std::fs::remove_dir_all(&dir);
    (errors.into_iter().collect(), warnings.into_iter().collect())
}

/// Replaces the `errors` and `warnings` lines of a case's `[trainlint]` table.
fn record(path: &Path, errors: &[String], warnings: &[String]) {
    let file = path.join("case.toml");
    let text = std::fs::read_to_string(&file).unwrap();
    let quoted = |codes: &[String]| codes.iter().map(|c| format!("\"{c}\"")).collect::<Vec<_>>().join(", ");
    let mut out: Vec<String> = Vec::new();
    for line in text.lines() {
        if line.starts_with("errors = ") {
            out.push(format!("errors = [{}]", quoted(errors)));
        } else if line.starts_with("warnings = ") {
            out.push(format!("warnings = [{}]", quoted(warnings)));
        } else {
            out.push(line.to_owned());
        }
    }
    std::fs::write(&file, out.join("\n") + "\n").unwrap();
}

#[test]
fn each_reported_run_gets_its_recorded_verdict() {
    let write = std::env::var_os("TRAINLINT_WRITE_REPORTED").is_some_and(|v| v == "1");
    let mut wrong = Vec::new();
    for case in cases() {
        let (errors, warnings) = run(&case);
        if (errors.as_slice(), warnings.as_slice()) != (case.errors.as_slice(), case.warnings.as_slice()) {
            if write {
                record(&case.path, &errors, &warnings);
            }
            wrong.push(format!("{}: errors {errors:?} warnings {warnings:?}, recorded {:?} {:?}", case.slug, case.errors, case.warnings));
        }
        if (case.outcome == "failed" && !case.caught() || case.false_alarm()) && case.cause.is_empty() {
            wrong.push(format!("{}: a miss or a false alarm says why (`cause`)", case.slug));
        }
    }
    assert!(write || wrong.is_empty(), "verdicts changed (review, then `TRAINLINT_WRITE_REPORTED=1 cargo test --test reported`):\n{}", wrong.join("\n"));
}

#[test]
fn the_set_is_large_enough_and_the_book_shows_it() {
    let cases = cases();
    let failed = cases.iter().filter(|c| c.outcome == "failed").count();
    let ran = cases.len() - failed;
    assert!(failed >= 30 && ran >= 10, "issue 23 asks for at least 30 failures and 10 working runs: {failed} and {ran}");
    let caught = cases.iter().filter(|c| c.caught()).count();
    let as_errors = cases.iter().filter(|c| c.caught_as_error()).count();
    let alarms = cases.iter().filter(|c| c.false_alarm()).count();
    let warned = cases.iter().filter(|c| c.warned()).count();
    let mut page = String::new();
    page.push_str("# Real runs users reported\n\n");
    page.push_str("<!-- generated by `TRAINLINT_WRITE_BOOK=1 cargo test --test reported` from fixtures/reported/*/case.toml -->\n\n");
    page.push_str(&format!(
        "The regression set: {} runs that users posted in public issue threads, with the files as they \
ran them (`fixtures/reported/`), the GPU they named and what happened per the thread. Each is checked \
by `tests/reported.rs` with the command a user runs before launch (`trainlint check --gpu …`), and its \
error and warning codes must be exactly those recorded.\n\n",
        cases.len()
    ));
    page.push_str(&format!(
        "**Caught before launch: {caught} of {failed} failures** ({as_errors} by an error, which blocks the \
commit; {} by a warning only). **False alarms: {alarms} of {ran} runs that ran** (an error on a run the \
thread says completed); {warned} more runs that ran get a warning only. A failure is caught when trainlint \
reports the code that names it (out of memory: MEM001, sure, or MEM002, \"may not fit\": the estimate's \
measured band straddles the card; bf16 on a GPU without it: HW001; a batch assertion: BAT001, BAT003, BAT004 \
or BAT008; a removed argument: MIG001–MIG006).\n\n",
        caught - as_errors
    ));
    page.push_str("| case | framework | what happened | GPU | `trainlint check` | verdict | cause of a miss or false alarm |\n|---|---|---|---|---|---|---|\n");
    for case in &cases {
        let verdict = match (case.outcome.as_str(), case.caught(), case.false_alarm()) {
            ("failed", true, _) => "caught",
            ("failed", false, _) => "missed",
            (_, _, true) => "false alarm",
            _ => "ran, no error",
        };
        let codes: Vec<String> = case.errors.iter().map(|c| format!("{c} (error)")).chain(case.warnings.iter().map(|c| format!("{c} (warning)"))).collect();
        let codes = if codes.is_empty() { "nothing".to_owned() } else { codes.join(", ") };
        let cell = |s: &str| s.replace('|', "\\|").replace('\n', " ");
        page.push_str(&format!(
            "| [{}]({}) | {} | {} | {} | {} | {} | {} |\n",
            case.slug,
            case.source,
            case.framework,
            cell(&case.summary),
            cell(&case.gpu_named),
            codes,
            verdict,
            cell(&case.cause)
        ));
    }
    let path = common::repo().join("book/src/reported.md");
    if std::env::var_os("TRAINLINT_WRITE_BOOK").is_some_and(|v| v == "1") {
        std::fs::write(&path, &page).unwrap();
    } else {
        assert_eq!(
            std::fs::read_to_string(&path).unwrap_or_default(),
            page,
            "stale book/src/reported.md (`TRAINLINT_WRITE_BOOK=1 cargo test --test reported`)"
        );
    }
}
