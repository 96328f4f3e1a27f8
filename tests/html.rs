//! `estimate --output-format html`: one self-contained page with a stacked bar
//! per stage × GPU target, a usable-memory line for each, and nothing loaded
//! from anywhere else.

mod common;

#[test]
fn the_page_has_the_bars_and_no_external_requests() {
    let output = common::trainlint(&[
        "estimate",
        "fixtures/seeds/004_naics_embedder/config.yaml",
        "--gpu",
        "quadro-rtx-6000",
        "--gpu",
        "a100-80gb",
        "--output-format",
        "html",
    ]);
    let html = common::stdout(&output);
    assert!(html.starts_with("<!doctype html>"));
    // 5 stages × 2 targets, each with a usable line and a label.
    assert_eq!(html.matches(r#"class="usable""#).count(), 10);
    assert!(html.matches(r#"class="bar""#).count() >= 10 * 4, "a rect per component per bar");
    for label in ["quadro-rtx-6000 · 01", "a100-80gb · 05", "micro 45"] {
        assert!(html.contains(label), "{label}");
    }
    for external in ["http://", "https://", "<script", "<link", "src=", "@import", "url("] {
        assert!(!html.contains(external), "the page must not load anything: found {external}");
    }
}
