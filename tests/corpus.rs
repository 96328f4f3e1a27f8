//! Every file of `../shared/corpus` (826 real configs from 10 repositories)
//! goes through the whole `check` pipeline without a panic; the five
//! DeepSpeedExamples `*_TEMPLATE.json` files (unquoted placeholders a script
//! fills in, not JSON) are skipped as templates, not errors; the findings per
//! rule are printed and pinned.

mod common;

use std::collections::BTreeMap;
use trainlint::commands::check::collect;
use trainlint::settings::Overrides;

#[test]
fn corpus_checks_without_false_alarms() {
    let Some(shared) = common::shared() else {
        eprintln!("../shared not present: skipped");
        return;
    };
    let corpus = shared.join("corpus");
    let (files, diagnostics) = collect(&[corpus], &Overrides::default(), None, false, false).expect("corpus checks");
    // 826 files: 18 Lightning `hparams.yaml` under naics-embedder's `outputs/`
    // (a default exclude: written by runs) and one under axolotl's hidden
    // `.runpod/` are not walked; 15 are walked but not recognised as training configs.
    let checked = files.iter().filter(|f| !matches!(f.status, trainlint::linter::FileStatus::Skipped(_))).count();
    let skipped: Vec<&str> = files.iter().filter(|f| matches!(f.status, trainlint::linter::FileStatus::Skipped(_))).map(|f| &*f.display).collect();
    assert_eq!((checked, skipped.len(), files.len()), (787, 20, 807), "{skipped:#?}");
    let templates: Vec<&str> =
        files.iter().filter(|f| matches!(f.status, trainlint::linter::FileStatus::Skipped(trainlint::linter::Skip::Template))).map(|f| &*f.display).collect();
    assert!(templates.len() == 5 && templates.iter().all(|p| p.ends_with("_TEMPLATE.json")), "{templates:#?}");
    let files = checked;
    let mut per_rule: BTreeMap<&str, usize> = BTreeMap::new();
    for d in &diagnostics {
        *per_rule.entry(d.rule.code).or_default() += 1;
    }
    println!("corpus: {files} files; findings per rule: {per_rule:?}");
    let invalid: Vec<&str> = diagnostics.iter().filter(|d| d.rule.code == "SCH001").map(|d| d.file.display()).collect();
    assert!(invalid.is_empty(), "{invalid:#?}");
    // Real duplicate keys, which OmegaConf refuses (SOURCES.md warns of them):
    // accelerate's sagemaker test config (`debug`) and two naics-embedder stage
    // files (`positive_level`, the stage's filter set twice).
    let duplicates: Vec<String> = diagnostics.iter().filter(|d| d.rule.code == "SCH004").map(|d| format!("{}:{}", d.file.display(), d.line_col().0)).collect();
    assert_eq!(duplicates.len(), 3, "{duplicates:#?}");
    // One real interpolation error: torchtune's llama4 maverick full config uses
    // `${model_dir}` and never defines it (it must come as a launch override).
    let interpolation: Vec<String> = diagnostics.iter().filter(|d| d.rule.code == "SCH005").map(|d| d.file.display().to_owned()).collect();
    assert_eq!(interpolation.len(), 1, "{interpolation:#?}");
    assert!(interpolation[0].ends_with("llama4/maverick_17B_128E_full.yaml"));
    // Real composition errors in seed 004's project history: defaults lists that
    // name groups or options that do not exist (Hydra fails on them the same way):
    // 5a64958 `trainer: default` (the folder is `training/`) and `curriculum: stage1`
    // (the file is `stage_1.yaml`), in config.yaml and its copy loss/default.yaml;
    // fd98e9f `curriculum: default` (the folder is `text_curriculum/`). The copy
    // names the same missing configs: one error each, at config.yaml, counting the copy.
    let missing: Vec<String> = diagnostics.iter().filter(|d| d.rule.code == "SCH007").map(|d| format!("{}:{}", d.file.display(), d.line_col().0)).collect();
    assert_eq!(missing.len(), 3, "{missing:#?}");
    assert!(missing.iter().all(|m| m.contains("lowmason__naics-embedder/_history/")), "{missing:#?}");
    // Without a world size, batch rules only say they could not check (info).
    let errors: Vec<String> = diagnostics
        .iter()
        .filter(|d| d.severity == trainlint::diagnostic::Severity::Error && !["SCH001", "SCH004", "SCH005", "SCH007"].contains(&d.rule.code))
        .map(|d| format!("{}: {} {}", d.file.display(), d.rule.code, d.message))
        .collect();
    assert!(errors.is_empty(), "unexpected errors: {errors:#?}");
}

/// A dialect for at least 95 % of the corpus, and batch roles wherever a
/// file states a batch size in its dialect's keys.
#[test]
fn corpus_dialects() {
    let Some(shared) = common::shared() else { return };
    let corpus = shared.join("corpus");
    let settings = trainlint::settings::Settings::discover(std::slice::from_ref(&corpus), &Overrides::default()).unwrap();
    // Every file, the run folders and hidden folders included: this measures detection, not discovery.
    let excludes = trainlint::load::discover::Excludes::new(&corpus, Some(&[]), &[]).unwrap();
    let walk = trainlint::load::discover::Walk { respect_gitignore: false, ..trainlint::load::discover::Walk::new(excludes) };
    let files = trainlint::load::discover::walk(std::slice::from_ref(&corpus), &walk).unwrap();
    assert_eq!(files.len(), 826);
    let mut per_dialect: BTreeMap<&str, usize> = BTreeMap::new();
    let mut missing_roles = Vec::new();
    for file in &files {
        let report = trainlint::linter::lint_file(file, &settings).unwrap();
        let name = report.resolved.as_ref().map_or("unreadable", |r| r.detection.dialect.name());
        *per_dialect.entry(name).or_default() += 1;
        if let Some(resolved) = &report.resolved {
            for (role, path) in &resolved.bindings {
                if matches!(role, trainlint::schema::Role::MicroBatch | trainlint::schema::Role::Accumulation)
                    && resolved.tree.get_dotted(path).is_some()
                    && resolved.role(*role).is_none()
                {
                    missing_roles.push(format!("{} {path}", file.display));
                }
            }
        }
    }
    let detected: usize = per_dialect.iter().filter(|(d, _)| !["unknown", "unreadable"].contains(d)).map(|(_, n)| n).sum();
    let rate = detected as f64 / files.len() as f64;
    println!("corpus dialects: {per_dialect:?}; detected {detected}/{} = {:.1} %", files.len(), rate * 100.0);
    assert!(rate >= 0.95, "{rate}");
    assert!(missing_roles.is_empty(), "{missing_roles:#?}");
    for (dialect, at_least) in [
        ("axolotl", 250),
        ("torchtune", 195),
        ("deepspeed", 115),
        ("llama-factory", 80),
        ("accelerate", 30),
        ("hf-trainer", 20),
        ("lightning", 20),
        ("hydra", 40),
    ] {
        assert!(per_dialect.get(dialect).copied().unwrap_or(0) >= at_least, "{dialect}: {per_dialect:?}");
    }
}
