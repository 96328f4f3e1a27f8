//! Every file of `../shared/corpus` (826 real configs from 10 repositories)
//! goes through the whole `check` pipeline without a panic; only the five
//! DeepSpeedExamples `*_TEMPLATE.json` files (unquoted placeholders, not
//! JSON) are unreadable; the findings per rule are printed and pinned.

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
    assert_eq!(files, 826, "the corpus holds 826 configs");
    let mut per_rule: BTreeMap<&str, usize> = BTreeMap::new();
    for d in &diagnostics {
        *per_rule.entry(d.rule.code).or_default() += 1;
    }
    println!("corpus: {files} files; findings per rule: {per_rule:?}");
    let invalid: Vec<&str> = diagnostics.iter().filter(|d| d.rule.code == "SCH001").map(|d| d.file.display()).collect();
    assert_eq!(invalid.len(), 5, "{invalid:#?}");
    assert!(invalid.iter().all(|p| p.ends_with("_TEMPLATE.json")), "{invalid:#?}");
    // Real duplicate keys, which OmegaConf refuses (SOURCES.md warns of them):
    // accelerate's sagemaker test config (`debug`) and two naics-embedder stage
    // files (`positive_level`, the stage's filter set twice).
    let duplicates: Vec<String> = diagnostics.iter().filter(|d| d.rule.code == "SCH004").map(|d| format!("{}:{}", d.file.display(), d.line_col().0)).collect();
    assert_eq!(duplicates.len(), 3, "{duplicates:#?}");
    // Without a world size, batch rules only say they could not check (info).
    let errors: Vec<String> = diagnostics
        .iter()
        .filter(|d| d.severity == trainlint::diagnostic::Severity::Error && !["SCH001", "SCH004"].contains(&d.rule.code))
        .map(|d| format!("{}: {} {}", d.file.display(), d.rule.code, d.message))
        .collect();
    assert!(errors.is_empty(), "unexpected errors: {errors:#?}");
}
