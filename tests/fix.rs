//! Applying fixes: in place, byte-exact, converging, atomic, and never
//! writing a broken, changed or read-only file.

mod common;

use std::path::{Path, PathBuf};
use trainlint::apply::{self, Change};

fn temp_dir(name: &str) -> PathBuf {
    common::fresh_dir(&format!("fix-{name}"))
}

fn snapshot_dir(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            if entry.path().is_dir() { stack.push(entry.path()) } else { out.push((entry.path(), std::fs::read(entry.path()).unwrap())) }
        }
    }
    out.sort();
    out
}

/// The acceptance test: seed 004's stage 01 overflows a 24 GB target;
/// `--fix --unsafe-fixes` rewrites that stage file and only it, keeps its
/// comments, keeps the effective batch, and a second run has nothing to fix.
#[test]
fn seed_004_overflowing_stage_is_fixed_in_its_stage_file() {
    let dir = temp_dir("seed004");
    common::copy_seed_004(&dir);
    let before = snapshot_dir(&dir);
    let output = common::trainlint_in(&dir, &["check", "--fix", "--unsafe-fixes", "--gpu", "quadro-rtx-6000", "--output-format", "concise", "."]);
    assert_eq!(output.status.code(), Some(0), "{}{}", common::stdout(&output), common::stderr(&output));
    assert!(common::stdout(&output).contains("Fixed 1 finding (1 error) in 1 file."), "{}", common::stdout(&output));
    let after = snapshot_dir(&dir);
    let changed: Vec<&PathBuf> = before.iter().zip(&after).filter(|(a, b)| a.1 != b.1).map(|(a, _)| &a.0).collect();
    assert_eq!(changed, vec![&dir.join("text_curriculum/01_stage.yaml")]);
    let stage = std::fs::read_to_string(dir.join("text_curriculum/01_stage.yaml")).unwrap();
    let original = std::fs::read_to_string(common::repo().join("fixtures/seeds/004_naics_embedder/text_curriculum/01_stage.yaml")).unwrap();
    assert_eq!(stage, format!("{original}batch:\n  micro_batch: 15\n  accumulation: 15\n"), "only the lines it must, comments kept");

    let shown = common::trainlint_in(&dir, &["show", "--output-format", "json", "--stage", "01", "config.yaml"]);
    let view: serde_json::Value = serde_json::from_str(&common::stdout(&shown)).unwrap();
    assert_eq!(view["effective_batch"], 225, "effective batch unchanged");

    let again = common::trainlint_in(&dir, &["check", "--fix", "--unsafe-fixes", "--gpu", "quadro-rtx-6000", "--output-format", "concise", "."]);
    assert!(common::stdout(&again).contains("Fixed 0 findings in 0 files."), "{}", common::stdout(&again));
    assert_eq!(snapshot_dir(&dir), after, "a second run changes nothing");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn diff_exits_1_and_leaves_the_file_byte_identical() {
    let dir = temp_dir("diff");
    let path = dir.join("config.yaml");
    let text = "# keep me\ntrainlint: 1\nbatch:\n  micro_batch: 32   # lowered\n  accumulation: 2\n  effective_batch: 96\nparallel: {devices: 1}\n";
    std::fs::write(&path, text).unwrap();
    let output = common::trainlint_in(&dir, &["check", "--diff", "--unsafe-fixes", "config.yaml"]);
    assert_eq!(output.status.code(), Some(1));
    let diff = common::stdout(&output);
    assert!(diff.contains("--- a/config.yaml") && diff.contains("+++ b/config.yaml"), "{diff}");
    assert!(diff.contains("-  accumulation: 2\n+  accumulation: 3\n"), "{diff}");
    assert!(common::stderr(&output).contains("Would fix 1 finding (1 error) in 1 file."));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    // Without --unsafe-fixes the accumulation fix is not applied: nothing to diff.
    let safe_only = common::trainlint_in(&dir, &["check", "--diff", "config.yaml"]);
    assert_eq!(safe_only.status.code(), Some(0));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_read_only_file_is_an_error_and_untouched() {
    use std::os::unix::fs::PermissionsExt;
    let dir = temp_dir("readonly");
    let path = dir.join("config.yaml");
    let text = "trainlint: 1\nbatch:\n  micro_batch: 32\n  accumulation: 2\n  effective_batch: 96\nparallel: {devices: 1}\n";
    std::fs::write(&path, text).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
    let output = common::trainlint_in(&dir, &["check", "--fix", "--unsafe-fixes", "config.yaml"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(common::stderr(&output).contains("read-only"), "{}", common::stderr(&output));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o444);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_file_changed_since_it_was_read_is_not_overwritten() {
    let dir = temp_dir("changed");
    let path = dir.join("config.yaml");
    std::fs::write(&path, "a: 1\n").unwrap();
    let change = Change { path: path.clone(), display: "config.yaml".into(), original: "a: 1\n".into(), fixed: "a: 2\n".into() };
    // Someone edits the file between the read and the write.
    std::fs::write(&path, "a: 1  # edited meanwhile\n").unwrap();
    let error = apply::write_atomic(&change).unwrap_err().to_string();
    assert!(error.contains("changed on disk"), "{error}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "a: 1  # edited meanwhile\n");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_fix_that_would_not_reparse_is_refused() {
    let error = apply::check_reparses(Path::new("config.yaml"), "config.yaml", "a: [1, 2\n").unwrap_err().to_string();
    assert!(error.contains("would not parse"), "{error}");
    assert!(apply::check_reparses(Path::new("c.json"), "c.json", "{\"a\": 1,}").is_err());
    assert!(apply::check_reparses(Path::new("config.yaml"), "config.yaml", "a: 1\n").is_ok());
}

#[test]
fn an_atomic_write_keeps_permissions_and_leaves_no_temporary_file() {
    use std::os::unix::fs::PermissionsExt;
    let dir = temp_dir("atomic");
    let path = dir.join("config.yaml");
    std::fs::write(&path, "a: 1\n").unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
    let change = Change { path: path.clone(), display: "config.yaml".into(), original: "a: 1\n".into(), fixed: "a: 2\n".into() };
    assert!(apply::write_atomic(&change).unwrap());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "a: 2\n");
    assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o640);
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1, "no temporary file left behind");
    // Nothing is written when nothing changes.
    let same = Change { path: path.clone(), display: "config.yaml".into(), original: "a: 2\n".into(), fixed: "a: 2\n".into() };
    assert!(!apply::write_atomic(&same).unwrap());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn json_fixes_keep_quotes_and_fix_only_reports_nothing_else() {
    let dir = temp_dir("json");
    std::fs::write(dir.join("trainlint.toml"), "world-size = 2\n").unwrap();
    let path = dir.join("ds.json");
    std::fs::write(&path, "{\n  \"train_batch_size\": 64,\n  \"train_micro_batch_size_per_gpu\": 8,\n  \"gradient_accumulation_steps\": 2\n}\n").unwrap();
    let output = common::trainlint_in(&dir, &["check", "--fix-only", "--unsafe-fixes", "ds.json"]);
    assert_eq!(common::stdout(&output), "Fixed 1 finding (1 error) in 1 file.\n");
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "{\n  \"train_batch_size\": 64,\n  \"train_micro_batch_size_per_gpu\": 8,\n  \"gradient_accumulation_steps\": 4\n}\n"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `trainlint migrate --write` on a Lightning 1.x config with comments gives a
/// 2.x config with the same comments; running it again changes nothing. The
/// project names the Lightning it migrates to (MIG001's fix is safe only then).
#[test]
fn migrate_write_keeps_comments_and_is_idempotent() {
    let dir = temp_dir("migrate");
    std::fs::write(dir.join("trainlint.toml"), "[frameworks]\nlightning = \"2.2\"\n").unwrap();
    let path = dir.join("config.yaml");
    std::fs::copy(common::repo().join("fixtures/migrations/lightning_1x.yaml"), &path).unwrap();
    let dry = common::trainlint_in(&dir, &["migrate", "config.yaml"]);
    assert_eq!(dry.status.code(), Some(1), "a dry run with pending migrations exits 1");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), std::fs::read_to_string(common::repo().join("fixtures/migrations/lightning_1x.yaml")).unwrap());
    let output = common::trainlint_in(&dir, &["migrate", "--write", "config.yaml"]);
    assert_eq!(output.status.code(), Some(0), "{}", common::stderr(&output));
    let migrated = std::fs::read_to_string(&path).unwrap();
    assert_eq!(
        migrated,
        "# A LightningCLI config written for Lightning 1.x.\nseed_everything: 42\ntrainer:\n  accelerator: gpu\n  devices: 2               # two cards on the lab machine\n  precision: 16-mixed         # AMP\n  max_epochs: 20\n  use_distributed_sampler: false\n  resume_from_checkpoint: null   # set to resume\nmodel:\n  lr: 3.0e-4            # tuned for an effective batch of 64\n"
    );
    let again = common::trainlint_in(&dir, &["migrate", "--write", "config.yaml"]);
    assert_eq!(again.status.code(), Some(0));
    assert!(common::stderr(&again).contains("Applied 0 migrations in 0 files; 1 finding left to do by hand."), "{}", common::stderr(&again));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), migrated);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `plan --apply --gpu ID` rewrites the base for the target and gives a stage
/// that needs less its own values; the effective batch stays 225 everywhere.
#[test]
fn plan_apply_rewrites_base_and_the_stage_that_needs_it() {
    let dir = temp_dir("plan-apply");
    common::copy_seed_004(&dir);
    let output = common::trainlint_in(&dir, &["plan", "config.yaml", "--gpu", "quadro-rtx-6000", "--apply"]);
    assert_eq!(output.status.code(), Some(0), "{}", common::stderr(&output));
    assert!(common::stderr(&output).contains("Wrote 1 file for quadro-rtx-6000."), "{}", common::stderr(&output));
    let stage = std::fs::read_to_string(dir.join("text_curriculum/01_stage.yaml")).unwrap();
    assert!(stage.ends_with("batch:\n  micro_batch: 15\n  accumulation: 15\n"), "{stage}");
    let check = common::trainlint_in(&dir, &["check", "--gpu", "quadro-rtx-6000", "--output-format", "concise", "."]);
    assert_eq!(check.status.code(), Some(0), "{}", common::stdout(&check));
    for stage in ["01", "02", "05"] {
        let shown = common::trainlint_in(&dir, &["show", "--output-format", "json", "--stage", stage, "config.yaml"]);
        let view: serde_json::Value = serde_json::from_str(&common::stdout(&shown)).unwrap();
        assert_eq!(view["effective_batch"], 225, "stage {stage}");
    }
    // Applying again writes nothing.
    let again = common::trainlint_in(&dir, &["plan", "config.yaml", "--gpu", "quadro-rtx-6000", "--apply"]);
    assert!(common::stderr(&again).contains("Wrote 0 files"), "{}", common::stderr(&again));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 13, item 11: BAT001 on the real naics-embedder config (its manifest
/// as tests/curriculum.rs sets it up, with a target and without `[bindings]`,
/// so the Lightning dialect reads `training.trainer.accumulate_grad_batches`)
/// edits that key, not a new top-level `trainer:` the program never reads.
#[test]
fn bat001_edits_the_key_the_role_was_read_from() {
    let Some(shared) = common::shared() else {
        eprintln!("../shared not present: skipped");
        return;
    };
    let dir = temp_dir("naics-bat001");
    common::copy_dir(&shared.join("corpus/lowmason__naics-embedder/_history/fd98e9f/conf"), &dir.join("conf"));
    let conf = std::fs::canonicalize(dir.join("conf")).unwrap();
    make_writable(&conf);
    std::fs::write(
        dir.join("trainlint.toml"),
        format!(
            "effective-batch = 64\n\n[curriculum]\nbase = \"{c}/config.yaml\"\nstages = \"{c}/text_curriculum/0*_stage.yaml\"\npackage = \"curriculum\"\nstage-defaults = \"{c}/text_curriculum/default.yaml\"\n",
            c = conf.display()
        ),
    )
    .unwrap();
    let original = std::fs::read_to_string(conf.join("config.yaml")).unwrap();
    let output = common::trainlint_in(&dir, &["check", "--fix", "--unsafe-fixes", "--output-format", "concise", "conf/config.yaml"]);
    assert!(common::stdout(&output).contains("Fixed 1 finding (1 error) in 1 file."), "{}{}", common::stdout(&output), common::stderr(&output));
    let fixed = std::fs::read_to_string(conf.join("config.yaml")).unwrap();
    assert_eq!(fixed, original.replace("    accumulate_grad_batches: 2\n", "    accumulate_grad_batches: 8\n"), "only the key the value came from");
    assert!(!fixed.contains("\ntrainer:"), "no new top-level `trainer:`");
    let shown = common::trainlint_in(&dir, &["show", "--output-format", "json", "conf/config.yaml"]);
    let view: serde_json::Value = serde_json::from_str(&common::stdout(&shown)).unwrap();
    assert_eq!(view["roles"]["accumulation"]["value"], 8);
    assert_eq!(view["roles"]["accumulation"]["line"], 75);
    assert_eq!(view["effective_batch"], 64);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The corpus is read-only; its copies are made writable.
fn make_writable(dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        if entry.path().is_dir() {
            std::fs::set_permissions(entry.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
            make_writable(&entry.path());
        } else {
            std::fs::set_permissions(entry.path(), std::fs::Permissions::from_mode(0o644)).unwrap();
        }
    }
}

/// Issue 13, item 13: a DeepSpeed `"auto"` filled from its paired
/// TrainingArguments is fixed where HF reads it (the paired file), as a
/// number; never as the string `"2"` in the DeepSpeed config, which the
/// re-check could not read and so passed.
#[test]
fn a_fixed_auto_value_is_a_number_where_it_is_read() {
    let dir = temp_dir("auto-number");
    std::fs::write(dir.join("trainlint.toml"), "effective-batch = 16\nworld-size = 1\n\n[[pair]]\ndeepspeed = \"ds.json\"\nwith = \"args.yaml\"\n").unwrap();
    let ds = "{\n  \"train_batch_size\": \"auto\",\n  \"train_micro_batch_size_per_gpu\": \"auto\",\n  \"gradient_accumulation_steps\": \"auto\"\n}\n";
    std::fs::write(dir.join("ds.json"), ds).unwrap();
    std::fs::write(dir.join("args.yaml"), "output_dir: out\nper_device_train_batch_size: 8\ngradient_accumulation_steps: 1\ndeepspeed: ds.json\n").unwrap();
    let output = common::trainlint_in(&dir, &["check", "--fix", "--unsafe-fixes", "--output-format", "concise", "ds.json"]);
    assert!(common::stdout(&output).contains("Fixed 1 finding (1 error) in 1 file."), "{}{}", common::stdout(&output), common::stderr(&output));
    assert_eq!(std::fs::read_to_string(dir.join("ds.json")).unwrap(), ds, "`auto` is left to HF");
    assert_eq!(
        std::fs::read_to_string(dir.join("args.yaml")).unwrap(),
        "output_dir: out\nper_device_train_batch_size: 8\ngradient_accumulation_steps: 2\ndeepspeed: ds.json\n"
    );
    let shown = common::trainlint_in(&dir, &["show", "--output-format", "json", "ds.json"]);
    let view: serde_json::Value = serde_json::from_str(&common::stdout(&shown)).unwrap();
    assert_eq!(view["roles"]["accumulation"]["value"], 2, "the re-check reads a number");
    assert_eq!(view["effective_batch"], 16);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 13, item 14: SCH003 offers no rename when the key it suggests is
/// already set beside the typo (the rename would write it twice: PyYAML reads
/// the later value, OmegaConf refuses the file); its help says to remove the typo.
#[test]
fn no_rename_onto_a_key_that_is_already_set() {
    let dir = temp_dir("rename-duplicate");
    let axolotl = "base_model: m\nmicro_batch_size: 2\nmicro_batch_sise: 8\nsequence_len: 512\n";
    let native = "trainlint: 1\nbatch:\n  micro_batch: 2\n  micro_bach: 8\n  accumulation: 1\nparallel: {devices: 1}\n";
    std::fs::write(dir.join("ax.yaml"), axolotl).unwrap();
    std::fs::write(dir.join("native.yaml"), native).unwrap();
    for (file, text, line) in [("ax.yaml", axolotl, 2), ("native.yaml", native, 3)] {
        let json = common::trainlint_in(&dir, &["check", "--output-format", "json", file]);
        let value: serde_json::Value = serde_json::from_str(&common::stdout(&json)).unwrap();
        let sch003: Vec<&serde_json::Value> = value["diagnostics"].as_array().unwrap().iter().filter(|d| d["code"] == "SCH003").collect();
        assert_eq!(sch003.len(), 1, "{value:#}");
        assert!(sch003[0]["fix"].is_null(), "{:#}", sch003[0]);
        assert!(sch003[0]["help"].as_str().unwrap().contains(&format!("is already set on line {line}")), "{:#}", sch003[0]);
        let diff = common::trainlint_in(&dir, &["check", "--diff", "--unsafe-fixes", file]);
        assert!(common::stderr(&diff).contains("Would fix 0 findings in 0 files."), "{}", common::stderr(&diff));
        let fixed = common::trainlint_in(&dir, &["check", "--fix", "--unsafe-fixes", file]);
        assert_eq!(fixed.status.code(), Some(1));
        assert_eq!(std::fs::read_to_string(dir.join(file)).unwrap(), text);
    }
    // Without the right key beside it, the rename is still offered.
    std::fs::write(dir.join("typo.yaml"), "base_model: m\nmicro_batch_sise: 8\nsequence_len: 512\n").unwrap();
    let json = common::trainlint_in(&dir, &["check", "--output-format", "json", "typo.yaml"]);
    let value: serde_json::Value = serde_json::from_str(&common::stdout(&json)).unwrap();
    assert!(
        value["diagnostics"].as_array().unwrap().iter().any(|d| d["code"] == "SCH003" && d["fix"]["edits"][0]["content"] == "micro_batch_size"),
        "{value:#}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 13, item 12: BAT001 and BAT004 no longer undo each other on an
/// Axolotl config that states `batch_size` (BAT001 sets it with the
/// accumulation), and the fix of one file is applied beside another's.
#[test]
fn bat001_and_bat004_do_not_fight_over_an_axolotl_batch_size() {
    let dir = temp_dir("axolotl-fight");
    std::fs::write(dir.join("trainlint.toml"), "effective-batch = 32\nworld-size = 1\n").unwrap();
    std::fs::create_dir_all(dir.join("a")).unwrap();
    std::fs::create_dir_all(dir.join("b")).unwrap();
    std::fs::write(dir.join("a/ax.yaml"), "base_model: m\nmicro_batch_size: 2\ngradient_accumulation_steps: 4\nbatch_size: 8\nsequence_len: 512\n").unwrap();
    let native = "trainlint: 1\nbatch:\n  micro_batch: 32\n  accumulation: 2\n  effective_batch: 96\nparallel: {devices: 1}\n";
    std::fs::write(dir.join("b/native.yaml"), native).unwrap();
    let output = common::trainlint_in(&dir, &["check", "--fix", "--unsafe-fixes", "--output-format", "concise", "."]);
    assert_eq!(output.status.code(), Some(0), "{}{}", common::stdout(&output), common::stderr(&output));
    assert!(common::stdout(&output).contains("Fixed 2 findings (2 errors) in 2 files."), "{}", common::stdout(&output));
    assert_eq!(
        std::fs::read_to_string(dir.join("a/ax.yaml")).unwrap(),
        "base_model: m\nmicro_batch_size: 2\ngradient_accumulation_steps: 16\nbatch_size: 32\nsequence_len: 512\n"
    );
    assert_eq!(std::fs::read_to_string(dir.join("b/native.yaml")).unwrap(), native.replace("accumulation: 2", "accumulation: 3"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 13, item 12: convergence is per file. A file whose fixes undo each
/// other is left as it is and named; the fixes of the other files still apply
/// (before, one such file made the whole run fail, naming `.`).
#[test]
fn a_file_that_does_not_converge_is_named_and_the_rest_is_fixed() {
    use std::sync::Arc;
    use trainlint::commands::check::FileEntry;
    use trainlint::diagnostic::{Applicability, Diagnostic, Edit, Fix};
    use trainlint::linter::FileStatus;
    use trainlint::source::SourceFile;
    let rule = trainlint::rules::batch::effective_batch_mismatch::EffectiveBatchMismatch;
    let files = [("/nonexistent/fighting.yaml", "x: 1\n"), ("/nonexistent/fine.yaml", "y: 1\n")];
    let outcome = trainlint::commands::check::fix_passes(
        |overlay| {
            let mut diagnostics = Vec::new();
            for (path, original) in files {
                let text = overlay.get(Path::new(path)).cloned().unwrap_or_else(|| original.to_owned());
                let source = Arc::new(SourceFile::new(path, path.trim_start_matches("/nonexistent/"), text.as_str()));
                // `fighting.yaml` flips between 1 and 2 for ever; `fine.yaml` goes to 2 once.
                let (from, to) = match text.as_str() {
                    "x: 1\n" => ("1", "2"),
                    "x: 2\n" => ("2", "1"),
                    "y: 1\n" => ("1", "2"),
                    _ => continue,
                };
                let span = 3..3 + from.len();
                let fix = Fix {
                    applicability: Applicability::Safe,
                    message: "flip".into(),
                    edits: vec![Edit { file: Arc::clone(&source), span: span.clone(), content: to.into() }],
                };
                diagnostics.push(Diagnostic::new(rule, &source, span, "flip").with_fix(fix));
            }
            let checked = files.iter().map(|(path, _)| FileEntry { display: (*path).into(), status: FileStatus::Checked("test".into()) }).collect();
            Ok((checked, diagnostics))
        },
        false,
    )
    .expect("one file that does not converge does not cancel the others");
    assert_eq!(outcome.changes.len(), 1);
    assert_eq!((outcome.changes[0].display.as_str(), outcome.changes[0].fixed.as_str()), ("fine.yaml", "y: 2\n"));
    assert_eq!(outcome.applied, 1);
    assert_eq!(outcome.unconverged.len(), 1);
    assert!(outcome.unconverged[0].contains("`fighting.yaml` did not converge after 10 passes (BAT001 kept changing it)"), "{:?}", outcome.unconverged);
    assert!(outcome.remaining.iter().any(|d| d.file.display() == "fighting.yaml"), "its finding is still reported");
}

const FIXABLE: &str = "trainlint: 1\nbatch:\n  micro_batch: 32\n  accumulation: 2\n  effective_batch: 96\nparallel: {devices: 1}\n";

/// Issue 13, item 15: a full disk while the second file's fixed text is
/// written leaves every file untouched (all temporary files are written
/// before the first rename) and no temporary file behind.
#[test]
fn a_full_disk_on_the_second_file_writes_nothing() {
    let dir = temp_dir("full-disk");
    let changes: Vec<Change> = ["a", "b"]
        .iter()
        .map(|folder| {
            std::fs::create_dir_all(dir.join(folder)).unwrap();
            let path = dir.join(folder).join("config.yaml");
            std::fs::write(&path, "a: 1\n").unwrap();
            Change { path, display: format!("{folder}/config.yaml"), original: "a: 1\n".into(), fixed: "a: 2\n".into() }
        })
        .collect();
    let full_disk =
        |step, i, _: &Path| if (step, i) == (apply::Step::Temporary, 1) { Err(std::io::Error::from(std::io::ErrorKind::StorageFull)) } else { Ok(()) };
    let error = apply::write_all_with(&changes, full_disk).unwrap_err().to_string();
    assert!(error.contains("b/config.yaml") && error.contains("nothing was written"), "{error}");
    for folder in ["a", "b"] {
        assert_eq!(std::fs::read_to_string(dir.join(folder).join("config.yaml")).unwrap(), "a: 1\n", "{folder} untouched");
        assert_eq!(std::fs::read_dir(dir.join(folder)).unwrap().count(), 1, "no temporary file left in {folder}");
    }
    // A rename that fails after the first (EBUSY, a race) puts the first file back (issue 26, item 4).
    let failed_rename = |step, i, _: &Path| if (step, i) == (apply::Step::Rename, 1) { Err(std::io::Error::other("injected")) } else { Ok(()) };
    let error = apply::write_all_with(&changes, failed_rename).unwrap_err().to_string();
    assert!(
        error.contains("cannot replace it (injected); the files already replaced were put back as they were (a/config.yaml); nothing was written"),
        "{error}"
    );
    for folder in ["a", "b"] {
        assert_eq!(std::fs::read_to_string(dir.join(folder).join("config.yaml")).unwrap(), "a: 1\n", "{folder} as it was");
        assert_eq!(std::fs::read_dir(dir.join(folder)).unwrap().count(), 1, "no temporary file left in {folder}");
    }
    assert_eq!(apply::write_all(&changes).unwrap(), vec!["a/config.yaml".to_owned(), "b/config.yaml".to_owned()], "says what was written");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 13, item 15: `--fix` over two folders, the second of which cannot be
/// written (immutable as root, mode 555 otherwise), writes neither file.
#[test]
fn a_read_only_second_folder_writes_nothing() {
    use std::os::unix::fs::PermissionsExt;
    let dir = temp_dir("readonly-folder");
    for folder in ["a", "b"] {
        std::fs::create_dir_all(dir.join(folder)).unwrap();
        std::fs::write(dir.join(folder).join("config.yaml"), FIXABLE).unwrap();
    }
    let locked = dir.join("b");
    let root = std::process::Command::new("id").arg("-u").output().is_ok_and(|o| o.stdout == b"0\n");
    let lock = |on: bool| {
        if root {
            std::process::Command::new("chattr").arg(if on { "+i" } else { "-i" }).arg(&locked).status().is_ok_and(|s| s.success())
        } else {
            std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(if on { 0o555 } else { 0o755 })).is_ok()
        }
    };
    if !lock(true) {
        eprintln!("cannot make a folder read-only here (no chattr): skipped");
        return;
    }
    let output = common::trainlint_in(&dir, &["check", "--fix", "--unsafe-fixes", "a", "b"]);
    lock(false);
    assert_eq!(output.status.code(), Some(2), "{}{}", common::stdout(&output), common::stderr(&output));
    let stderr = common::stderr(&output);
    assert!(stderr.contains("nothing was written"), "{stderr}");
    for folder in ["a", "b"] {
        assert_eq!(std::fs::read_to_string(dir.join(folder).join("config.yaml")).unwrap(), FIXABLE, "{folder} untouched");
        assert_eq!(std::fs::read_dir(dir.join(folder)).unwrap().count(), 1, "no temporary file left in {folder}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 13, item 16: the temporary file a killed `--fix` left beside a file
/// (`kill -9` between write and rename) is removed by the next `--fix` of that
/// file; one of a process still running is not.
#[test]
fn stale_temporary_files_of_a_dead_run_are_removed() {
    let dir = temp_dir("stale-temporaries");
    std::fs::write(dir.join("config.yaml"), FIXABLE).unwrap();
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    let stale = dir.join(apply::temporary_name("config.yaml", dead));
    let live = dir.join(apply::temporary_name("config.yaml", 1));
    let other = dir.join(apply::temporary_name("other.yaml", dead));
    for path in [&stale, &live, &other] {
        std::fs::write(path, "half written").unwrap();
    }
    let output = common::trainlint_in(&dir, &["check", "--fix", "--unsafe-fixes", "config.yaml"]);
    assert_eq!(output.status.code(), Some(0), "{}{}", common::stdout(&output), common::stderr(&output));
    assert!(!stale.exists(), "the dead run's temporary file is removed");
    assert!(live.exists(), "a running process's temporary file is kept");
    assert!(other.exists(), "only temporary files of the file being fixed");
    assert!(std::fs::read_to_string(dir.join("config.yaml")).unwrap().contains("accumulation: 3"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 13, item 18: `--fix` run as root keeps the owner and group of the
/// files it rewrites.
#[test]
fn a_fixed_file_keeps_its_owner_and_group() {
    use std::os::unix::fs::MetadataExt;
    let dir = temp_dir("owner");
    let path = dir.join("config.yaml");
    std::fs::write(&path, FIXABLE).unwrap();
    if std::os::unix::fs::chown(&path, Some(4321), Some(8765)).is_err() {
        eprintln!("not root: cannot give the file another owner, skipped");
        return;
    }
    let output = common::trainlint_in(&dir, &["check", "--fix", "--unsafe-fixes", "config.yaml"]);
    assert_eq!(output.status.code(), Some(0), "{}{}", common::stdout(&output), common::stderr(&output));
    assert!(std::fs::read_to_string(&path).unwrap().contains("accumulation: 3"));
    let metadata = std::fs::metadata(&path).unwrap();
    assert_eq!((metadata.uid(), metadata.gid()), (4321, 8765));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 13, item 17: `--fix` keeps a CRLF file CRLF (inserted lines too), a
/// file without a final newline without one, and the edits shown in JSON are
/// the bytes written.
#[test]
fn fixes_keep_line_endings_and_the_final_newline_state() {
    let dir = temp_dir("line-endings");
    let crlf = "trainlint: 1\r\nbatch:\r\n  micro_batch: 32\r\n  effective_batch: 96\r\nparallel: {devices: 1}\r\n";
    let no_final = "trainlint: 1\nparallel: {devices: 1}\nbatch:\n  micro_batch: 32\n  effective_batch: 96";
    std::fs::write(dir.join("crlf.yaml"), crlf).unwrap();
    std::fs::write(dir.join("no_final.yaml"), no_final).unwrap();
    let json = common::trainlint_in(&dir, &["check", "--output-format", "json", "crlf.yaml"]);
    let value: serde_json::Value = serde_json::from_str(&common::stdout(&json)).unwrap();
    assert_eq!(value["diagnostics"][0]["fix"]["edits"][0]["content"], "  accumulation: 3\r\n", "{value:#}");
    let output = common::trainlint_in(&dir, &["check", "--fix", "--unsafe-fixes", "--output-format", "concise", "crlf.yaml", "no_final.yaml"]);
    assert!(common::stdout(&output).contains("Fixed 2 findings (2 errors) in 2 files."), "{}{}", common::stdout(&output), common::stderr(&output));
    assert_eq!(
        std::fs::read_to_string(dir.join("crlf.yaml")).unwrap(),
        crlf.replace("  effective_batch: 96\r\n", "  effective_batch: 96\r\n  accumulation: 3\r\n")
    );
    assert_eq!(std::fs::read_to_string(dir.join("no_final.yaml")).unwrap(), format!("{no_final}\n  accumulation: 3"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 13, item 11: a missing accumulation in naics-embedder's nested
/// Lightning trainer is inserted beside the trainer keys it was read with
/// (`training.trainer`), never as a new top-level `trainer:`; without such a
/// mapping the fix is display-only.
#[test]
fn a_missing_role_goes_beside_the_keys_its_siblings_were_read_from() {
    let Some(shared) = common::shared() else {
        eprintln!("../shared not present: skipped");
        return;
    };
    let dir = temp_dir("naics-missing");
    let original = std::fs::read_to_string(shared.join("corpus/lowmason__naics-embedder/_history/fd98e9f/conf/config.yaml")).unwrap();
    let without = original.replace("    accumulate_grad_batches: 2\n", "");
    std::fs::write(dir.join("config.yaml"), &without).unwrap();
    std::fs::write(dir.join("trainlint.toml"), "effective-batch = 64\n").unwrap();
    let output = common::trainlint_in(&dir, &["check", "--fix", "--unsafe-fixes", "--output-format", "concise", "config.yaml"]);
    assert!(common::stdout(&output).contains("Fixed 1 finding (1 error) in 1 file."), "{}{}", common::stdout(&output), common::stderr(&output));
    let fixed = std::fs::read_to_string(dir.join("config.yaml")).unwrap();
    assert_eq!(fixed, without.replace("    val_check_interval: 1.0\n", "    val_check_interval: 1.0\n    accumulate_grad_batches: 8\n"));
    // A Lightning trainer whose keys are nowhere the dialect reads: display-only.
    let flat = "training:\n  trainer:\n    max_epochs: 2\n    accelerator: gpu\ndata_loader:\n  batch_size: 8\n";
    std::fs::write(dir.join("config.yaml"), flat).unwrap();
    std::fs::write(dir.join("trainlint.toml"), "effective-batch = 64\nworld-size = 1\n").unwrap();
    let json = common::trainlint_in(&dir, &["check", "--output-format", "json", "config.yaml"]);
    let value: serde_json::Value = serde_json::from_str(&common::stdout(&json)).unwrap();
    let bat001 = value["diagnostics"].as_array().unwrap().iter().find(|d| d["code"] == "BAT001").expect("BAT001");
    assert_eq!(bat001["fix"]["applicability"], "display-only", "{bat001:#}");
    let diff = common::trainlint_in(&dir, &["check", "--diff", "--unsafe-fixes", "config.yaml"]);
    assert!(!common::stdout(&diff).contains("+trainer:"), "{}", common::stdout(&diff));
    assert_eq!(std::fs::read_to_string(dir.join("config.yaml")).unwrap(), flat);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 15 item 7: two GPU targets used to pull the micro batch apart (MEM001
/// halved it for the 24 GB card, MEM003 doubled it for the 80 GB one) and
/// `--fix` gave up after 10 passes, writing nothing. One micro batch now fits
/// every target: the smallest of the targets' plans, from either side.
#[test]
fn two_gpu_targets_converge_on_the_micro_batch_that_fits_both() {
    let dir = temp_dir("two-targets");
    // 500 MiB of activations per sample: micro batch 32 fits a 24 GB RTX 4090 with headroom, 64 does not; both fit an 80 GB A100.
    let config = |micro: u64, accumulation: u64| {
        format!(
            "trainlint: 1\nbatch:\n  micro_batch: {micro}\n  accumulation: {accumulation}\n  effective_batch: 64\nparallel:\n  devices: 1\nmemory:\n  activation_bytes_per_sample: \"500 MiB\"\ngpus: [rtx-4090, a100-80gb]\n"
        )
    };
    for (micro, accumulation) in [(64, 1), (8, 8), (32, 2)] {
        let path = dir.join("config.yaml");
        std::fs::write(&path, config(micro, accumulation)).unwrap();
        let output = common::trainlint_in(&dir, &["check", "--fix", "--unsafe-fixes", "--output-format", "concise", "config.yaml"]);
        let (stdout, stderr) = (common::stdout(&output), common::stderr(&output));
        assert!(!stderr.contains("did not converge"), "from micro batch {micro}: {stderr}");
        assert_eq!(output.status.code(), Some(0), "from micro batch {micro}: {stdout}{stderr}");
        assert!(stdout.contains("All checks passed"), "from micro batch {micro}: {stdout}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), config(32, 2), "from micro batch {micro}: 32 × 2 fits both targets and keeps 64");
    }
    // The fix says it is for both targets.
    std::fs::write(dir.join("config.yaml"), config(8, 8)).unwrap();
    let output = common::trainlint_in(&dir, &["check", "--output-format", "json", "config.yaml"]);
    let json: serde_json::Value = serde_json::from_str(&common::stdout(&output)).unwrap();
    let fix = &json["diagnostics"][0]["fix"]["message"];
    assert_eq!(fix, "Set micro batch 32 and accumulation 2 for every GPU target (rtx-4090, a100-80gb)", "{json}");
    std::fs::remove_dir_all(&dir).unwrap();
}
