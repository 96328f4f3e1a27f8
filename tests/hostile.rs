//! Hostile inputs: each gives a clear diagnostic or exit 2 within a second, no
//! panic, nothing written, nothing executed, no environment value printed.
//! (The alias bomb, deep nesting, binary and non-UTF-8 files are in tests/cli.rs.)

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn temp_dir(name: &str) -> PathBuf {
    common::fresh_dir(&format!("hostile-{name}"))
}

fn timed(dir: &Path, args: &[&str]) -> std::process::Output {
    timed_within(dir, args, Duration::from_secs(1))
}

/// `timed` with a bound of its own: a 1 MB input takes about 0.6 s of a debug build alone, and
/// more than a second on a loaded 2-core machine, while the regressions it guards took minutes.
fn timed_within(dir: &Path, args: &[&str], bound: Duration) -> std::process::Output {
    let start = Instant::now();
    let output = common::trainlint_in(dir, args);
    assert!(start.elapsed() < bound, "{args:?} took {:?}", start.elapsed());
    assert!(!common::stderr(&output).contains("panicked"), "{args:?}: {}", common::stderr(&output));
    output
}

#[test]
fn a_100_mb_file_is_refused_without_reading_it() {
    let dir = temp_dir("huge");
    let file = std::fs::File::create(dir.join("huge.yaml")).unwrap();
    file.set_len(100 * 1024 * 1024).unwrap();
    let output = timed(&dir, &["check", "--output-format", "concise", "huge.yaml"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(common::stdout(&output).contains("SCH001 file too large: 100.0 MiB"), "{}", common::stdout(&output));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_symlink_loop_in_a_walked_folder_ends() {
    let dir = temp_dir("loop");
    std::fs::write(dir.join("a.yaml"), "trainlint: 1\n").unwrap();
    std::os::unix::fs::symlink(".", dir.join("loop")).unwrap();
    std::os::unix::fs::symlink("b.yaml", dir.join("b.yaml")).unwrap_or(());
    let output = timed(&dir, &["check", "--output-format", "concise", "."]);
    assert!(output.status.code().is_some());
    assert!(common::stdout(&output).contains("1 file checked"), "{}", common::stdout(&output));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_unreadable_path_is_exit_2() {
    // As root every file is readable; a dangling link cannot be read by anyone.
    let dir = temp_dir("unreadable");
    std::os::unix::fs::symlink("nowhere.yaml", dir.join("dangling.yaml")).unwrap();
    let output = timed(&dir, &["check", "dangling.yaml"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(common::stderr(&output).contains("cannot read `dangling.yaml`"), "{}", common::stderr(&output));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn paths_outside_the_project_are_refused() {
    let dir = temp_dir("outside");
    std::fs::create_dir_all(dir.join("conf")).unwrap();
    std::fs::write(dir.join("conf/config.yaml"), "defaults:\n  - _self_\n  - secrets: ../../../../etc/passwd\nseed: 1\n").unwrap();
    let output = timed(&dir, &["check", "--output-format", "concise", "conf/config.yaml"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(common::stdout(&output).contains("SCH007") && common::stdout(&output).contains("leaves the config folder"), "{}", common::stdout(&output));
    std::fs::write(dir.join("trainlint.toml"), "[curriculum]\nbase = \"conf/config.yaml\"\nstages = \"../../../etc/*\"\n").unwrap();
    let output = timed(&dir, &["check", "conf/config.yaml"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(common::stderr(&output).contains("outside the project folder"), "{}", common::stderr(&output));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_interpolation_cycle_is_a_clear_error() {
    let dir = temp_dir("cycle");
    read_with_omegaconf(&dir);
    std::fs::write(dir.join("c.yaml"), "a: ${b}\nb: ${c}\nc: ${a}\n").unwrap();
    let output = timed(&dir, &["check", "--output-format", "concise", "c.yaml"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(common::stdout(&output).contains("SCH005 interpolation cycle: a → b → c → a"), "{}", common::stdout(&output));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn environment_values_never_appear_in_any_output() {
    let dir = temp_dir("secret");
    read_with_omegaconf(&dir);
    std::fs::write(dir.join("c.yaml"), "api_key: ${oc.env:TRAINLINT_TEST_SECRET}\ntoken: prefix-${oc.env:TRAINLINT_TEST_SECRET}\nwith_default: ${oc.env:TRAINLINT_TEST_SECRET,public-default}\n").unwrap();
    for format in ["full", "concise", "json", "sarif", "github"] {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_trainlint"))
            .args(["check", "--output-format", format, "c.yaml"])
            .current_dir(&dir)
            .env("TRAINLINT_TEST_SECRET", "hunter2-do-not-print")
            .output()
            .unwrap();
        let all = format!("{}{}", common::stdout(&output), common::stderr(&output));
        assert!(!all.contains("hunter2"), "{format} printed the environment value");
    }
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_trainlint"))
        .args(["show", "--output-format", "json", "c.yaml"])
        .current_dir(&dir)
        .env("TRAINLINT_TEST_SECRET", "hunter2-do-not-print")
        .output()
        .unwrap();
    let view: serde_json::Value = serde_json::from_str(&common::stdout(&output)).unwrap();
    assert!(!common::stdout(&output).contains("hunter2"));
    assert_eq!(view["resolved"]["with_default"], "public-default");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn targets_and_components_are_data_never_executed() {
    let dir = temp_dir("target");
    let marker = dir.join("pwned");
    std::fs::write(
        dir.join("c.yaml"),
        format!(
            "model:\n  _target_: os.system\n  command: touch {m}\nloss:\n  _component_: subprocess.call\n  args: [touch, {m}]\nbatch_size: 4\n",
            m = marker.display()
        ),
    )
    .unwrap();
    let output = timed(&dir, &["check", "c.yaml"]);
    assert!(output.status.code().is_some());
    timed(&dir, &["show", "c.yaml"]);
    assert!(!marker.exists(), "nothing from a config is executed");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A fix whose write dies between writing the new text and renaming it over
/// the original leaves the original byte for byte (never a truncated file).
/// The fault is injected through the library (`write_atomic_with`'s
/// `before_rename` hook); the release binary has no fault switch.
#[test]
fn a_fix_interrupted_before_the_rename_loses_nothing() {
    use trainlint::apply;
    use trainlint::commands::check::fix_loop;
    use trainlint::settings::Overrides;
    let dir = temp_dir("interrupted");
    let path = dir.join("config.yaml");
    let text = "trainlint: 1\nbatch:\n  micro_batch: 32   # keep this comment\n  accumulation: 2\n  effective_batch: 96\nparallel: {devices: 1}\n";
    std::fs::write(&path, text).unwrap();
    let outcome = fix_loop(std::slice::from_ref(&path), &Overrides::default(), None, false, false, true).unwrap();
    let [change] = outcome.changes.as_slice() else { panic!("one file to fix: {:?}", outcome.changes) };
    assert!(change.fixed.contains("accumulation: 3"), "{}", change.fixed);
    let temporary_files = || std::fs::read_dir(&dir).unwrap().flatten().filter(|e| e.file_name() != "config.yaml").map(|e| e.path()).collect::<Vec<_>>();

    // The process dies (a panic unwinds past the write, as a kill would): the
    // temporary file holds the whole new text, the original is untouched.
    let died = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        apply::write_atomic_with(change, |temporary| {
            assert_eq!(std::fs::read_to_string(temporary).unwrap(), change.fixed, "the new text is written before the rename");
            panic!("killed between the write and the rename")
        })
    }));
    assert!(died.is_err(), "the write died");
    assert_eq!(std::fs::read(&path).unwrap(), text.as_bytes(), "the original is intact");
    let left = temporary_files();
    assert_eq!(left.len(), 1, "a killed write leaves its temporary file: {left:?}");
    std::fs::remove_file(&left[0]).unwrap();

    // The write fails instead: an error, the original intact, no temporary file left.
    let error = apply::write_atomic_with(change, |_| Err(std::io::Error::other("disk full"))).unwrap_err().to_string();
    assert!(error.contains("disk full") && error.contains("the original is untouched"), "{error}");
    assert_eq!(std::fs::read(&path).unwrap(), text.as_bytes(), "the original is intact");
    assert!(temporary_files().is_empty(), "{:?}", temporary_files());

    // The next run (no fault) completes the fix.
    let output = common::trainlint_in(&dir, &["check", "--fix", "--unsafe-fixes", "config.yaml"]);
    assert_eq!(output.status.code(), Some(0), "{}", common::stdout(&output));
    assert!(std::fs::read_to_string(&path).unwrap().contains("accumulation: 3"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 13 item 1: 4,218 nested `${` overflowed the 2 MiB worker stack
/// (exit 134); `show` died at ~50,000 levels.
#[test]
fn deeply_nested_interpolation_is_a_diagnostic_not_a_stack_overflow() {
    let dir = temp_dir("deep-interpolation");
    let nested = |n: usize| format!("a: {}x{}\n", "${".repeat(n), "}".repeat(n));
    read_with_omegaconf(&dir);
    std::fs::write(dir.join("c.yaml"), nested(4_218)).unwrap();
    std::fs::write(dir.join("show.yaml"), nested(50_000)).unwrap();
    // A chain of interpolations through deep mappings: each link recurses through the mapping.
    let mut chain = String::from("m0: 1\n");
    for i in 1..12 {
        chain.push_str(&format!("m{i}: {}\"${{m{}}}\"{}\n", "{a: ".repeat(120), i - 1, "}".repeat(120)));
    }
    std::fs::write(dir.join("chain.yaml"), chain).unwrap();
    let output = timed(&dir, &["check", "--output-format", "concise", "c.yaml", "chain.yaml"]);
    assert_eq!(output.status.code(), Some(1), "{}", common::stderr(&output));
    assert!(common::stdout(&output).contains("c.yaml:1:4: SCH005 `a`: interpolations nested deeper than 64 levels"), "{}", common::stdout(&output));
    let output = timed(&dir, &["show", "show.yaml"]);
    assert!(matches!(output.status.code(), Some(0 | 1)), "{}", common::stderr(&output));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 13 item 3: interpolations copied strings and subtrees without a
/// budget (a 541-byte file took 7.7 s and 3.1 GB).
#[test]
fn interpolation_bombs_spend_the_expansion_budget() {
    let dir = temp_dir("interpolation-bomb");
    let mut strings = String::from("s0: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n");
    let mut nodes = String::from("a0: [x, x, x, x, x, x, x, x, x]\n");
    for i in 1..24 {
        strings.push_str(&format!("s{i}: ${{s{p}}}${{s{p}}}\n", p = i - 1));
        nodes.push_str(&format!("a{i}: [{}]\n", vec![format!("\"${{a{}}}\"", i - 1); 9].join(", ")));
    }
    read_with_omegaconf(&dir);
    std::fs::write(dir.join("strings.yaml"), strings).unwrap();
    std::fs::write(dir.join("nodes.yaml"), nodes).unwrap();
    let output = timed(&dir, &["check", "--output-format", "concise", "strings.yaml", "nodes.yaml"]);
    assert_eq!(output.status.code(), Some(1));
    let stdout = common::stdout(&output);
    for file in ["strings.yaml", "nodes.yaml"] {
        let lines: Vec<_> = stdout.lines().filter(|l| l.starts_with(file)).collect();
        assert_eq!(lines.len(), 1, "one finding per file: {stdout}");
        assert!(lines[0].contains("SCH005") && lines[0].contains("interpolations expand to more than 100000 nodes or 8 MiB of text"), "{stdout}");
    }
    timed(&dir, &["show", "nodes.yaml"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 13 item 2: overflowing batch products divided by zero (exit 101) or
/// wrapped to exactly the target; negative batches passed; `world-size = 0`
/// and `safety-margin = nan` were accepted.
#[test]
fn batch_values_out_of_range_are_diagnostics_never_panics() {
    let dir = temp_dir("overflow");
    let big = "9223372036854775808";
    std::fs::write(dir.join("ds_micro.json"), format!("{{\"train_batch_size\": 64, \"train_micro_batch_size_per_gpu\": {big}}}")).unwrap();
    std::fs::write(dir.join("ds_accum.json"), format!("{{\"train_batch_size\": 64, \"gradient_accumulation_steps\": {big}}}")).unwrap();
    std::fs::write(
        dir.join("ds_wrap.json"),
        "{\"train_batch_size\": 64, \"train_micro_batch_size_per_gpu\": 9223372036854775840, \"gradient_accumulation_steps\": 1}",
    )
    .unwrap();
    std::fs::write(dir.join("ds_negative.json"), "{\"train_batch_size\": -64, \"train_micro_batch_size_per_gpu\": 8}").unwrap();
    std::fs::write(dir.join("native.yaml"), format!("trainlint: 1\nbatch:\n  micro_batch: 4\n  accumulation: 2\nparallel:\n  devices: {big}\n")).unwrap();
    for gpu in [&["--world-size", "2"][..], &["--world-size", "2", "--gpu", "rtx-4090"][..]] {
        let mut args = vec!["check", "--output-format", "concise", "ds_micro.json", "ds_accum.json", "ds_wrap.json", "ds_negative.json", "native.yaml"];
        args.extend_from_slice(gpu);
        let output = timed(&dir, &args);
        let stdout = common::stdout(&output);
        assert_eq!(output.status.code(), Some(1), "{stdout}{}", common::stderr(&output));
        for file in ["ds_micro.json", "ds_accum.json", "ds_negative.json"] {
            assert!(stdout.lines().any(|l| l.starts_with(file) && l.contains("SCH002")), "{file}: {stdout}");
        }
        assert!(stdout.lines().any(|l| l.starts_with("ds_wrap.json") && l.contains("BAT004")), "2^63+32 × 2 must not wrap to 64: {stdout}");
    }
    // SCH002 selected alone still reports them: the batch family runs for it too.
    let output = timed(&dir, &["check", "--output-format", "concise", "--select", "SCH002", "--world-size", "2", "ds_micro.json", "ds_negative.json"]);
    let stdout = common::stdout(&output);
    for file in ["ds_micro.json", "ds_negative.json"] {
        assert!(stdout.lines().any(|l| l.starts_with(file) && l.contains("SCH002")), "--select SCH002, {file}: {stdout}");
    }
    let memory =
        format!("trainlint: 1\nbatch:\n  micro_batch: {big}\n  accumulation: 2\nparallel:\n  devices: 2\nmemory:\n  activation_bytes_per_sample: \"1 MiB\"\n");
    std::fs::write(dir.join("plan.yaml"), memory).unwrap();
    for command in ["estimate", "plan"] {
        // Was exit 101: `attempt to multiply with overflow` in the batch view.
        let output = timed(&dir, &[command, "--gpu", "a100-80gb", "plan.yaml"]);
        assert!(output.status.code().is_some_and(|c| c <= 2), "{command}: {}", common::stderr(&output));
    }
    for (manifest, why) in
        [("world-size = 0\n", "must be at least 1"), ("safety-margin = nan\n", "must be between 0.1 and 1.0"), ("effective-batch = 0\n", "must be at least 1")]
    {
        std::fs::write(dir.join("trainlint.toml"), manifest).unwrap();
        let output = timed(&dir, &["check", "ds_micro.json"]);
        assert_eq!(output.status.code(), Some(2), "{manifest}");
        assert!(common::stderr(&output).contains(why), "{manifest}: {}", common::stderr(&output));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 13 item 10: keys with ESC, BEL or a newline were printed raw.
#[test]
fn control_characters_from_a_config_never_reach_the_terminal() {
    let dir = temp_dir("escapes");
    std::fs::write(dir.join("c.yaml"), "trainlint: 1\nbatch:\n  \"evil\\e]0;pwned\\a\\nc.yaml:1:1: SCH000 forged\": 1\n  micro_batch: 4\n").unwrap();
    for format in ["full", "concise", "github"] {
        let output = timed(&dir, &["check", "--output-format", format, "c.yaml"]);
        let stdout = common::stdout(&output);
        assert_eq!(output.status.code(), Some(1), "{format}: {stdout}");
        assert!(stdout.contains("evil"), "{format}: the finding names the key: {stdout}");
        assert!(!stdout.contains(['\u{1b}', '\u{7}']), "{format} printed a control character: {stdout:?}");
        assert!(!stdout.lines().any(|l| l.starts_with("c.yaml:1:1: SCH000")), "{format}: a forged line: {stdout}");
    }
    for format in ["json", "sarif"] {
        let output = timed(&dir, &["check", "--output-format", format, "c.yaml"]);
        assert!(!common::stdout(&output).contains(['\u{1b}', '\u{7}']), "{format} printed a control character");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `timed`, but a run that hangs (a FIFO read) is killed after 10 s and fails the test instead of hanging it.
fn bounded(dir: &Path, args: &[&str]) -> std::process::Output {
    use std::io::Read;
    let start = Instant::now();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_trainlint"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{args:?} hung (killed after 10 s)");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    child.stdout.take().unwrap().read_to_end(&mut stdout).unwrap();
    child.stderr.take().unwrap().read_to_end(&mut stderr).unwrap();
    let output = std::process::Output { status, stdout, stderr };
    assert!(start.elapsed() < Duration::from_secs(1), "{args:?} took {:?}", start.elapsed());
    assert!(!common::stderr(&output).contains("panicked"), "{args:?}: {}", common::stderr(&output));
    output
}

/// stderr with miette's line wrapping undone.
fn flat(output: &std::process::Output) -> String {
    common::stderr(output).split_whitespace().filter(|w| *w != "│").collect::<Vec<_>>().join(" ")
}

fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success());
}

/// Issue 13 item 6: the per-file limit is a resource bound (1 MiB), for every
/// format (a `.sh` script too), and no file is read past it.
#[test]
fn files_over_the_per_file_limit_are_refused_in_every_format() {
    let dir = temp_dir("limit");
    // 5 MiB of a valid YAML mapping: under the old 64 MiB limit it was parsed (seconds, hundreds of MB).
    let line = "k: 1\n";
    let mut text = String::with_capacity(5 << 20);
    let mut i = 0;
    while text.len() < 5 << 20 {
        text.push_str(&format!("k{i}: 1\n"));
        i += 1;
    }
    let _ = line;
    std::fs::write(dir.join("big.yaml"), &text).unwrap();
    let output = bounded(&dir, &["check", "--output-format", "concise", "big.yaml"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(common::stdout(&output).contains("SCH001 file too large: 5.0 MiB (the limit is 1 MiB)"), "{}", common::stdout(&output));
    // A training script over the limit, walked because the manifest describes its flags.
    std::fs::remove_file(dir.join("big.yaml")).unwrap();
    std::fs::write(dir.join("trainlint.toml"), "[shell]\ncommand = \"train.py\"\n").unwrap();
    std::fs::File::create(dir.join("run.sh")).unwrap().set_len(10 * 1024 * 1024 * 1024).unwrap();
    let output = bounded(&dir, &["check", "--output-format", "concise", "."]);
    assert_eq!(output.status.code(), Some(1));
    assert!(common::stdout(&output).contains("run.sh:1:1: SCH001 file too large: 10240.0 MiB"), "{}", common::stdout(&output));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 13 item 7: a FIFO, `/dev/stdin` or `/dev/zero` named on the command
/// line is exit 2, not "0 files checked"; named by the manifest (a curriculum
/// stage, a pair) it is refused before anything opens it.
#[test]
fn non_regular_files_are_refused_never_read() {
    let dir = temp_dir("fifo");
    mkfifo(&dir.join("pipe.yaml"));
    for path in ["pipe.yaml", "/dev/zero", "/dev/stdin"] {
        let output = bounded(&dir, &["check", path]);
        assert_eq!(output.status.code(), Some(2), "{path}: {}{}", common::stdout(&output), common::stderr(&output));
        assert!(flat(&output).contains("not a regular file"), "{path}: {}", common::stderr(&output));
    }
    std::fs::write(dir.join("config.yaml"), "trainer:\n  max_epochs: 1\n").unwrap();
    std::os::unix::fs::symlink("/dev/zero", dir.join("zero.yaml")).unwrap();
    // A link to `/dev/zero` inside the project resolves outside it.
    for (manifest, why) in [
        ("[curriculum]\nbase = \"config.yaml\"\nstages = [\"pipe.yaml\"]\n", "not a regular file"),
        ("[curriculum]\nbase = \"config.yaml\"\nstages = [\"zero.yaml\"]\n", "outside the project"),
        ("[[pair]]\ndeepspeed = \"config.yaml\"\nwith = \"pipe.yaml\"\n", "not a regular file"),
        ("[[pair]]\ndeepspeed = \"zero.yaml\"\nwith = \"config.yaml\"\n", "outside the project"),
    ] {
        std::fs::write(dir.join("trainlint.toml"), manifest).unwrap();
        let output = bounded(&dir, &["check", "config.yaml"]);
        assert_eq!(output.status.code(), Some(2), "{manifest}: {}{}", common::stdout(&output), common::stderr(&output));
        assert!(flat(&output).contains(why), "{manifest}: {}", common::stderr(&output));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 13 item 8: nothing outside the project is read, and `--fix` /
/// `--diff` never touch a file outside it: a Hydra default beginning with
/// `//`, absolute curriculum and `[[pair]]` paths, a link in the tree whose
/// target is outside.
#[test]
fn nothing_outside_the_project_is_read_or_fixed() {
    let dir = temp_dir("escape");
    let outside = dir.join("outside");
    let project = dir.join("project");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::create_dir_all(project.join("conf")).unwrap();
    let secret = "trainer:\n  max_epochs: 1\nsecret_token: hunter2\n";
    std::fs::write(outside.join("secret.yaml"), secret).unwrap();
    // `//abs/path` loses one slash to the group syntax and became an absolute path.
    std::fs::write(project.join("conf/config.yaml"), format!("defaults:\n  - _self_\n  - /{}: secret\nseed: 1\n", outside.display())).unwrap();
    let output = bounded(&project, &["check", "--output-format", "concise", "conf/config.yaml"]);
    assert_eq!(output.status.code(), Some(1), "{}{}", common::stdout(&output), common::stderr(&output));
    assert!(common::stdout(&output).contains("SCH007") && common::stdout(&output).contains("leaves the config folder"), "{}", common::stdout(&output));
    let shown = bounded(&project, &["show", "--output-format", "json", "conf/config.yaml"]);
    assert!(!common::stdout(&shown).contains("hunter2"), "{}", common::stdout(&shown));

    let absolute = outside.join("secret.yaml").display().to_string();
    std::fs::write(project.join("base.yaml"), "trainer:\n  max_epochs: 1\n").unwrap();
    for manifest in [
        format!("[curriculum]\nbase = \"base.yaml\"\nstages = [\"{absolute}\"]\n"),
        format!("[curriculum]\nbase = \"{absolute}\"\nstages = []\n"),
        format!("[[pair]]\ndeepspeed = \"base.yaml\"\nwith = \"{absolute}\"\n"),
    ] {
        std::fs::write(project.join("trainlint.toml"), &manifest).unwrap();
        let output = bounded(&project, &["check", "base.yaml"]);
        assert_eq!(output.status.code(), Some(2), "{manifest}: {}{}", common::stdout(&output), common::stderr(&output));
        assert!(flat(&output).contains("outside the project"), "{manifest}: {}", common::stderr(&output));
    }
    std::fs::remove_file(project.join("trainlint.toml")).unwrap();
    std::fs::remove_file(project.join("conf/config.yaml")).unwrap();

    // A link in the tree to a file outside: not read, so neither diffed nor rewritten.
    let fixable = "trainer:\n  max_epochs: 1\n  gpus: 2\n";
    std::fs::write(outside.join("target.yaml"), fixable).unwrap();
    std::os::unix::fs::symlink(outside.join("target.yaml"), project.join("conf/link.yaml")).unwrap();
    std::fs::write(project.join("trainlint.toml"), "").unwrap();
    for args in [&["check", "--diff", "."][..], &["check", "--fix", "."], &["check", "."]] {
        let output = bounded(&project, args);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {}{}", common::stdout(&output), common::stderr(&output));
        assert!(flat(&output).contains("is outside the project"), "{args:?}: {}", common::stderr(&output));
        assert!(!common::stdout(&output).contains("gpus"), "{args:?}: {}", common::stdout(&output));
    }
    // Named on the command line, the link is refused too: its target is outside.
    let output = bounded(&project, &["check", "--fix", "conf/link.yaml"]);
    assert_eq!(output.status.code(), Some(2), "{}{}", common::stdout(&output), common::stderr(&output));
    assert!(flat(&output).contains("is outside the project"), "{}", common::stderr(&output));
    assert_eq!(std::fs::read_to_string(outside.join("target.yaml")).unwrap(), fixable);
    assert_eq!(std::fs::read_to_string(outside.join("secret.yaml")).unwrap(), secret);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 13 item 4: 26 files of ~30 bytes, each including the next twice,
/// compose 2^26 includes; the composition's budget stops it with SCH007.
#[test]
fn an_exponential_hydra_composition_is_bounded() {
    let dir = temp_dir("hydra-bomb");
    std::fs::create_dir_all(dir.join("conf")).unwrap();
    for i in 0..26 {
        let next = format!("f{}", i + 1);
        std::fs::write(dir.join(format!("conf/f{i}.yaml")), format!("defaults:\n  - {next}\n  - {next}\nv{i}: {i}\n")).unwrap();
    }
    std::fs::write(dir.join("conf/f26.yaml"), "leaf: 1\n").unwrap();
    let output = bounded(&dir, &["check", "--output-format", "concise", "conf/f0.yaml"]);
    assert_eq!(output.status.code(), Some(1), "{}{}", common::stdout(&output), common::stderr(&output));
    let stdout = common::stdout(&output);
    assert!(stdout.contains("SCH007 composition stopped at `f") && stdout.contains("include more than 500 configs in all"), "{stdout}");
    // The whole folder: every file is a primary of its own bomb; still bounded.
    let output = bounded(&dir, &["check", "--output-format", "concise", "conf"]);
    assert_eq!(output.status.code(), Some(1), "{}{}", common::stdout(&output), common::stderr(&output));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 13 item 8, the other side: without a manifest, a single file checked
/// in a git work tree (as pre-commit passes them) still reads its Hydra primary
/// in a folder above it: the work tree is the project.
#[test]
fn a_single_file_in_a_git_tree_still_finds_its_hydra_primary() {
    let dir = temp_dir("git-root");
    std::fs::create_dir_all(dir.join(".git")).unwrap();
    std::fs::create_dir_all(dir.join("conf/model")).unwrap();
    std::fs::write(dir.join("conf/config.yaml"), "defaults:\n  - model: small\n  - _self_\ntrainer:\n  max_epochs: 1\n").unwrap();
    std::fs::write(dir.join("conf/model/small.yaml"), "").unwrap();
    let output = bounded(&dir, &["check", "--output-format", "concise", "conf/model/small.yaml"]);
    assert_eq!(output.status.code(), Some(0), "{}{}", common::stdout(&output), common::stderr(&output));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The files of `dir` are read with OmegaConf (the manifest names their dialect):
/// `${...}` in a file no dialect recognises is text, never interpolated.
fn read_with_omegaconf(dir: &std::path::Path) {
    std::fs::write(dir.join("trainlint.toml"), "[dialects]\n\"*.yaml\" = \"lightning\"\n").unwrap();
}

/// Issue 26 item 8: 60 files of 1 MiB with 40,000 unknown keys each held 2.4 million findings
/// (4 GB, 3½ minutes). Past `MOST_PER_MAPPING` unknown keys in one mapping, the rest are one
/// finding, and the mapping's keys are not searched one by one: the findings, the memory and the
/// time are bounded by the schema, not the file.
#[test]
fn a_file_of_unknown_keys_gives_a_bounded_number_of_findings() {
    let dir = temp_dir("unknown-keys");
    let mut text = String::from("trainlint: 1\nbatch:\n  micro_batch: 2\n  accumulation: 4\n");
    let mut n = 0;
    while text.len() < 1_000_000 {
        text.push_str(&format!("unknown_key_{n}: {n}\n"));
        n += 1;
    }
    std::fs::write(dir.join("keys.yaml"), &text).unwrap();
    let output = timed_within(&dir, &["check", "--output-format", "concise", "keys.yaml"], Duration::from_secs(10));
    assert_eq!(output.status.code(), Some(1));
    let out = common::stdout(&output);
    let listed = out.lines().filter(|l| l.contains(": SCH003 unknown key `unknown_key_")).count();
    assert_eq!(listed, trainlint::rules::schema::unknown_key::MOST_PER_MAPPING, "{}", &out[..out.len().min(2000)]);
    let rest = format!("SCH003 {} more unknown keys at the top level, from `unknown_key_100` on", n - 100);
    assert!(out.contains(&rest), "{rest} not in {}", &out[out.len().saturating_sub(2000)..]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 27: a tree over the run's byte budget (256 MiB of config text) is not an exit 2 with no
/// findings: the files read are linted and reported, the rest are named as left unread in the
/// summary and on stderr, and the run exits 2 (it did not check everything).
#[test]
fn a_tree_over_the_byte_budget_reports_what_it_linted_and_what_was_left() {
    let dir = temp_dir("budget");
    // 310 files of 0.9 MB (each under the 1 MiB file limit): 279 MB, past 256 MiB (268 MB).
    let padding = format!("# {}\n", "x".repeat(900_000));
    for i in 0..310 {
        std::fs::write(dir.join(format!("c{i:03}.yaml")), format!("trainlint: 1\nbatch:\n  micro_batch: 0\n  accumulation: 4\n{padding}")).unwrap();
    }
    let output = timed_within(&dir, &["check", "--output-format", "concise", "."], Duration::from_secs(120));
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", common::stderr(&output));
    let (out, err) = (common::stdout(&output), common::stderr(&output));
    // The files read were linted: each has its SCH002 (micro batch 0).
    let linted = out.lines().filter(|l| l.contains("SCH002")).count();
    assert!((250..310).contains(&linted), "{linted} linted: {}", &out[out.len().saturating_sub(1500)..]);
    assert!(out.contains(&format!("{} left unread", 310 - linted)), "{}", &out[out.len().saturating_sub(1500)..]);
    assert!(err.contains(&format!("error: {} files left unread", 310 - linted)) && err.contains("budget of 256 MiB"), "{err}");
    assert!(!err.contains("check that the path exists"), "{err}");
}
