//! Issue 26 ("Never lose an edit: reliability, round three"): item 7 (wrong values
//! accepted or written) and item 9 (control characters reaching the terminal).
//! Each test is the reproducer of its defect.

mod common;

use std::path::PathBuf;

fn temp_dir(name: &str) -> PathBuf {
    common::fresh_dir(&format!("reliability-{name}"))
}

fn both(output: &std::process::Output) -> String {
    format!("{}{}", common::stdout(output), common::stderr(output))
}

/// Item 7a: `gradient_accumulation_steps: 010` is octal 8 to PyYAML (HfArgumentParser's
/// `yaml.safe_load`) and to OmegaConf; it was read as 10. `08` is the string "08" to both.
/// In the native format (YAML 1.2 would say 10) it is text: SCH002, never a guess.
#[test]
fn a_leading_zero_integer_is_read_as_the_dialects_loader_reads_it() {
    let dir = temp_dir("octal");
    std::fs::write(dir.join("hf.yaml"), "output_dir: out\nper_device_train_batch_size: 8\ngradient_accumulation_steps: 010\n").unwrap();
    let output = common::trainlint_in(&dir, &["show", "hf.yaml"]);
    let stdout = common::stdout(&output);
    assert!(stdout.lines().any(|l| l.trim_start().starts_with("accumulation") && l.contains(" 8 ")), "010 is octal 8: {stdout}");
    let output = common::trainlint_in(&dir, &["show", "--output-format", "json", "hf.yaml"]);
    assert!(!common::stdout(&output).contains("\"value\": 10"), "{}", common::stdout(&output));
    // OmegaConf (a Lightning config here) reads it the same way.
    std::fs::write(dir.join("trainlint.toml"), "[dialects]\n\"light.yaml\" = \"lightning\"\n").unwrap();
    std::fs::write(dir.join("light.yaml"), "trainer:\n  devices: 1\n  accumulate_grad_batches: 010\ndata:\n  batch_size: 4\n").unwrap();
    let output = common::trainlint_in(&dir, &["show", "light.yaml"]);
    let stdout = common::stdout(&output);
    assert!(stdout.lines().any(|l| l.trim_start().starts_with("accumulation") && l.contains(" 8 ")), "OmegaConf: {stdout}");
    std::fs::write(dir.join("native.yaml"), "trainlint: 1\nbatch:\n  micro_batch: 010\n").unwrap();
    let output = common::trainlint_in(&dir, &["check", "--output-format", "concise", "native.yaml"]);
    assert_eq!(output.status.code(), Some(1), "{}", both(&output));
    assert!(common::stdout(&output).contains("SCH002 `batch.micro_batch`: expected integer, found string \"010\""), "{}", common::stdout(&output));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Item 7b: `--set batch.micro_batch=0` passed where the same value in the file is SCH002.
#[test]
fn a_set_value_is_validated_as_the_file_value_is() {
    let dir = temp_dir("set");
    std::fs::write(dir.join("n.yaml"), "trainlint: 1\nbatch:\n  micro_batch: 4\n  accumulation: 2\nparallel:\n  devices: 1\n").unwrap();
    let output = common::trainlint_in(&dir, &["check", "--output-format", "concise", "n.yaml"]);
    assert_eq!(output.status.code(), Some(0), "{}", both(&output));
    let output = common::trainlint_in(&dir, &["check", "--output-format", "concise", "--set", "batch.micro_batch=0", "n.yaml"]);
    let stdout = common::stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{}", both(&output));
    assert!(stdout.contains("SCH002 `batch.micro_batch`: 0 is less than the minimum of 1 (from `--set batch.micro_batch=0`, in no file)"), "{stdout}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Item 7c: a memory term of `-1000 GiB` gave a negative peak and a MEM003 "fix".
#[test]
fn negative_memory_terms_are_refused() {
    let dir = temp_dir("negative-term");
    let config = "trainlint: 1\nbatch:\n  micro_batch: 4\n  accumulation: 2\nparallel:\n  devices: 1\nmodel: {parameters: 1000000000}\n";
    std::fs::write(dir.join("n.yaml"), config).unwrap();
    std::fs::write(dir.join("trainlint.toml"), "[memory]\nterms = [{name = \"refund\", bytes = \"-1000 GiB\"}]\n").unwrap();
    for args in [&["check", "--gpu", "a100-80gb", "n.yaml"][..], &["estimate", "--gpu", "a100-80gb", "n.yaml"], &["plan", "--gpu", "a100-80gb", "n.yaml"]] {
        let output = common::trainlint_in(&dir, args);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {}", both(&output));
        assert!(
            common::stderr(&output).contains("invalid manifest") && common::stderr(&output).contains("memory term `refund`"),
            "{}",
            common::stderr(&output)
        );
    }
    // A term over config values is judged when it is evaluated: estimate refuses it.
    std::fs::remove_file(dir.join("trainlint.toml")).unwrap();
    std::fs::write(dir.join("n.yaml"), format!("{config}memory:\n  terms:\n    - {{name: refund, bytes: \"micro_batch * -1000 GiB\"}}\n")).unwrap();
    let output = common::trainlint_in(&dir, &["estimate", "--gpu", "a100-80gb", "n.yaml"]);
    assert_eq!(output.status.code(), Some(2), "{}", both(&output));
    assert!(common::stderr(&output).contains("memory term `refund` is"), "{}", common::stderr(&output));
    let output = common::trainlint_in(&dir, &["check", "--output-format", "concise", "--gpu", "a100-80gb", "n.yaml"]);
    assert!(!common::stdout(&output).contains("MEM003"), "no fix from a negative term: {}", both(&output));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Item 7d: `memory-mib = 2^44` wrapped to "usable 0 MiB".
#[test]
fn a_gpu_memory_past_64_bits_is_refused() {
    let dir = temp_dir("memory-mib");
    std::fs::write(dir.join("n.yaml"), "trainlint: 1\nbatch:\n  micro_batch: 4\nparallel:\n  devices: 1\nmodel: {parameters: 1000000000}\n").unwrap();
    let gpu = |mib: u64| format!("[[gpu]]\nid = \"huge\"\nname = \"Huge\"\nmemory-mib = {mib}\nbf16 = true\nfp8 = false\n");
    std::fs::write(dir.join("trainlint.toml"), gpu(1 << 44)).unwrap();
    let output = common::trainlint_in(&dir, &["estimate", "--gpu", "huge", "n.yaml"]);
    assert_eq!(output.status.code(), Some(2), "{}", both(&output));
    assert!(common::stderr(&output).contains("must be between 1 and 17592186044415 MiB"), "{}", common::stderr(&output));
    // The largest value that fits is used as it is, never wrapped.
    std::fs::write(dir.join("trainlint.toml"), gpu((1 << 44) - 1)).unwrap();
    let output = common::trainlint_in(&dir, &["estimate", "--gpu", "huge", "n.yaml"]);
    assert_eq!(output.status.code(), Some(0), "{}", both(&output));
    assert!(common::stdout(&output).contains("(17179869184.00 GiB × safety margin 0.85)"), "{}", common::stdout(&output));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Item 7e: a `stages` glob that matched no file was silent (a curriculum of no stages).
#[test]
fn a_stages_glob_that_matches_no_file_is_reported() {
    let dir = temp_dir("empty-glob");
    std::fs::write(dir.join("n.yaml"), "trainlint: 1\nbatch:\n  micro_batch: 4\nparallel:\n  devices: 1\n").unwrap();
    std::fs::create_dir_all(dir.join("stages")).unwrap();
    std::fs::write(dir.join("stages/01.yml"), "name: \"01\"\n").unwrap();
    std::fs::write(dir.join("trainlint.toml"), "[curriculum]\nbase = \"n.yaml\"\nstages = \"stages/*.yaml\"\n").unwrap();
    let output = common::trainlint_in(&dir, &["check", "n.yaml"]);
    assert_eq!(output.status.code(), Some(2), "{}", both(&output));
    assert!(common::stderr(&output).contains("the curriculum stage pattern `stages/*.yaml` matches no file in `stages`"), "{}", common::stderr(&output));
    std::fs::write(dir.join("trainlint.toml"), "[curriculum]\nbase = \"n.yaml\"\nstages = \"stages/*.yml\"\n").unwrap();
    let output = common::trainlint_in(&dir, &["check", "n.yaml"]);
    assert_ne!(output.status.code(), Some(2), "{}", both(&output));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Item 7f: a file with CR-only line ends came back with other line ends after a fix.
#[test]
fn cr_only_line_endings_are_kept_by_fixes() {
    let dir = temp_dir("cr-only");
    let cr = "trainlint: 1\rbatch:\r  micro_batch: 32\r  effective_batch: 96\rparallel: {devices: 1}\r";
    let cr_no_final = "trainlint: 1\rparallel: {devices: 1}\rbatch:\r  micro_batch: 32\r  effective_batch: 96";
    std::fs::write(dir.join("cr.yaml"), cr).unwrap();
    std::fs::write(dir.join("cr_no_final.yaml"), cr_no_final).unwrap();
    let output = common::trainlint_in(&dir, &["check", "--fix", "--unsafe-fixes", "--output-format", "concise", "cr.yaml", "cr_no_final.yaml"]);
    assert!(common::stdout(&output).contains("Fixed 2 findings (2 errors) in 2 files."), "{}", both(&output));
    assert_eq!(std::fs::read_to_string(dir.join("cr.yaml")).unwrap(), cr.replace("  effective_batch: 96\r", "  effective_batch: 96\r  accumulation: 3\r"));
    assert_eq!(std::fs::read_to_string(dir.join("cr_no_final.yaml")).unwrap(), format!("{cr_no_final}\r  accumulation: 3"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Item 9: a model name holding ESC and `\n::error::forged`, and a file name holding a
/// newline, reached the terminal raw from `show`, `estimate` and `plan` errors, `--diff`
/// headers and fatal errors: they could colour the terminal or forge a GitHub `::error`
/// workflow command.
#[test]
fn control_characters_never_reach_the_terminal_from_any_command() {
    let dir = temp_dir("controls");
    let config = "output_dir: out\nper_device_train_batch_size: 8\nlearning_rate: 5e-5\nmodel_name_or_path: \"evil\\e[31m\\n::error::forged\"\n";
    std::fs::write(dir.join("c.yaml"), config).unwrap();
    let newline_name = "bad\n::error::file.yaml";
    std::fs::write(dir.join(newline_name), "output_dir: out\nper_device_train_batch_size: 8\nlearning_rate: 5e-5\n").unwrap();
    let runs: Vec<Vec<&str>> = vec![
        vec!["show", "c.yaml"],
        vec!["show", newline_name],
        vec!["estimate", "--gpu", "a100-80gb", "c.yaml"],
        vec!["estimate", "--gpu", "a100-80gb", newline_name],
        vec!["plan", "--gpu", "a100-80gb", "c.yaml"],
        vec!["check", "--diff", "c.yaml", newline_name],
        vec!["check", "--output-format", "github", "c.yaml", newline_name],
        vec!["check", "--output-format", "github", "--diff", "."],
        vec!["check", "missing\n::error::gone.yaml"],
        vec!["check", "--verbose", "--show-files", "."],
    ];
    for args in &runs {
        let output = common::trainlint_in(&dir, args);
        let text = both(&output);
        assert!(!text.contains("panicked"), "{args:?}: {text}");
        assert!(!text.contains(['\u{1b}', '\r']), "{args:?} printed a control character: {text:?}");
        assert!(
            !text.lines().any(|l| l.starts_with("::error::forged") || l.starts_with("::error::file") || l.starts_with("::error::gone")),
            "{args:?}: a forged line: {text}"
        );
    }
    // What they name is still there, escaped.
    let output = common::trainlint_in(&dir, &["show", "c.yaml"]);
    assert!(common::stdout(&output).contains("evil\\u{1b}[31m\\n::error::forged"), "{}", common::stdout(&output));
    let output = common::trainlint_in(&dir, &["check", "--diff", newline_name]);
    assert!(common::stdout(&output).contains("--- a/bad\\n::error::file.yaml"), "{}", common::stdout(&output));
    // A manifest holding ESC: its error snippet shows `?`, its message the escape.
    std::fs::write(dir.join("trainlint.toml"), "[memory]\nterms = [{name = \"x\\u001b[31m\\n::error::forged\", bytes = \"-1 GiB\"}]\nnote = \"\u{1b}[31m\"\n")
        .unwrap();
    let output = common::trainlint_in(&dir, &["check", "c.yaml"]);
    let text = both(&output);
    assert_eq!(output.status.code(), Some(2), "{text}");
    assert!(!text.contains('\u{1b}') && !text.lines().any(|l| l.starts_with("::error::forged")), "{text:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}
