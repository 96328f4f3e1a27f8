//! `estimate --output-format html`: one self-contained page with, per GPU
//! target, a chart on a GiB axis with ticks and gridlines, the capacity and
//! usable-memory lines labelled, each bar's band, out-of-memory bars marked, the
//! plan's micro batch × accumulation under every bar, a legend, a table as text
//! alternative, responsive SVGs, and nothing loaded from anywhere else.
//! `scripts/render_chart.sh` renders the same page in headless Chromium for the book.

mod common;

fn seed_004_page() -> String {
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
    assert_eq!(output.status.code(), Some(1), "stage 01 does not fit the Quadro: {}", common::stderr(&output));
    common::stdout(&output)
}

#[test]
fn the_page_has_the_bars_and_no_external_requests() {
    let html = seed_004_page();
    assert!(html.starts_with("<!doctype html>"));
    // One chart per GPU target, five stages each, every line once per chart.
    assert_eq!(html.matches(r#"<svg class="chart""#).count(), 2);
    for line in ["capacity", "usable"] {
        assert_eq!(html.matches(&format!(r#"<line class="{line}""#)).count(), 2, "{line}");
        assert_eq!(html.matches(&format!(r#"class="{line}-label""#)).count(), 2, "{line} labelled per GPU");
    }
    assert!(html.contains(">capacity 24.0 GiB</text>") && html.contains(">usable 80.0 GiB</text>"), "the lines say their GPU's values");
    // Every bar has its band, as a whisker with a title.
    assert_eq!(html.matches(r#"<path class="band""#).count(), 10);
    assert!(html.matches(r#"class="bar""#).count() >= 10 * 4, "a rect per component per bar");
    for label in ["stage 01", "stage 05", "config 45", "fits ≤ 95", "quadro-rtx-6000 · 24.0 GiB capacity"] {
        assert!(html.contains(label), "{label}");
    }
    for external in ["http://", "https://", "<script", "<link", "src=", "@import", "url(http", "@font-face"] {
        assert!(!html.contains(external), "the page must not load anything: found {external}");
    }
}

#[test]
fn the_axis_is_in_gib_with_ticks_and_gridlines() {
    let html = seed_004_page();
    // 80 GiB of capacity is the top: ticks every 20 GiB, each with a gridline per chart.
    assert!(html.contains("peak memory (GiB)"));
    for tick in ["0", "20", "40", "60", "80"] {
        assert_eq!(html.matches(&format!(r#"text-anchor="end">{tick}</text>"#)).count(), 2, "tick {tick}");
    }
    assert_eq!(html.matches(r#"class="grid""#).count(), 2 * 5);
}

#[test]
fn out_of_memory_bars_are_marked_and_the_plan_is_under_every_bar() {
    let html = seed_004_page();
    // Stage 01 on the Quadro (38.3 GiB, 44.6 GiB on the card, over 24 GiB) is the one bar out of memory.
    assert_eq!(html.matches(r#"<rect class="oom""#).count(), 1);
    assert_eq!(html.matches(">OOM</text>").count(), 1);
    assert!(html.contains("out of memory: even the band's low end above usable memory (OOM)"), "a legend entry");
    // The plan's micro batch × accumulation under every bar, as `trainlint plan` prints them.
    assert_eq!(html.matches(">plan 15 × 15</text>").count(), 1);
    assert_eq!(html.matches(">plan 45 × 5</text>").count(), 4);
    assert_eq!(html.matches(">plan 75 × 3</text>").count(), 5);
    assert!(html.contains("45 is the largest micro batch up to 53 that divides the effective batch 225; 53 is the most whose band's high end fits (beyond it, MEM002: may not fit); 63 is the most that may fit"));
    // A legend entry per component.
    for component in ["weights", "gradients", "optimizer states", "CUDA context", "encoder activations"] {
        assert!(html.contains(&format!("</svg>{component}</li>")), "{component}");
    }
}

#[test]
fn the_svgs_are_responsive_and_accessible() {
    let html = seed_004_page();
    for svg in html.split(r#"<svg class="chart""#).skip(1) {
        let open = &svg[..svg.find('>').unwrap()];
        assert!(open.contains(r#" viewBox="0 0 "#), "{open}");
        assert!(!open.contains(" width=") && !open.contains(" height="), "no fixed size: {open}");
        assert!(open.contains(r#"role="img""#) && open.contains("aria-labelledby="), "{open}");
        assert!(svg.contains("<title id=") && svg.contains("<desc id="), "a title and a description");
    }
    assert!(html.contains("svg.chart{display:block;width:100%;height:auto}"));
    assert!(html.contains(r#"<meta name="viewport""#));
    // The description names every bar; the table repeats every number.
    assert!(html.contains("stage 01: peak 38.29 GiB (") && html.contains(" on the card) (out of memory), plan 15 × 15"), "{html}");
    assert_eq!(html.matches("<tr><td>").count(), 10);
}

#[test]
fn long_stage_names_are_rotated_not_overlapped() {
    let dir = common::fresh_dir("html-long-stages");
    common::copy_seed_004(&dir);
    let html = |dir: &std::path::Path| {
        let output = common::trainlint_in(dir, &["estimate", "config.yaml", "--gpu", "a100-80gb", "--output-format", "html"]);
        common::stdout(&output)
    };
    let short = html(&dir);
    assert!(!short.contains("rotate(35"), "short names stay horizontal");
    // A stage file's `name:` names the stage (src/resolve/curriculum.rs).
    let stage = dir.join("text_curriculum/01_stage.yaml");
    let text = std::fs::read_to_string(&stage).unwrap();
    assert!(text.contains("name: \"01\"\n"), "{text}");
    std::fs::write(&stage, text.replace("name: \"01\"\n", "name: warm-up with short sequences\n")).unwrap();
    let long = html(&dir);
    assert!(
        long.contains(r#"transform="rotate(35"#) && long.contains(">warm-up with short sequences<title>stage warm-up with short sequences</title></text>"),
        "{long}"
    );
}

/// Issue 27: a one-stage chart (the common case) is drawn at its own size, not stretched to the
/// column (its text was 2–4× too large), and its title fits its width (it was clipped).
#[test]
fn a_one_stage_chart_keeps_its_text_size_and_its_title() {
    let output = common::trainlint(&[
        "estimate",
        "fixtures/published/litgpt/litgpt-llama2-7b-lora-1xa10g/config_hub/finetune/llama-2-7b/lora.yaml",
        "--gpu",
        "a10g",
        "--gpu",
        "rtx-4090",
        "--output-format",
        "html",
    ]);
    let html = common::stdout(&output);
    let charts: Vec<&str> = html.split(r#"<svg class="chart""#).skip(1).collect();
    assert_eq!(charts.len(), 2, "{html}");
    for chart in charts {
        let view_box = chart.split(r#"viewBox="0 0 "#).nth(1).and_then(|v| v.split(' ').next()).expect("a viewBox");
        let width: f64 = view_box.parse().unwrap();
        assert!(chart.contains(&format!("max-width:{view_box}px")), "never drawn larger than 1:1: {}", &chart[..300]);
        // The title, bold at 15 px: at most about 9 px a character in a sans-serif.
        let title = chart.split(r#"font-weight="600">"#).nth(1).and_then(|t| t.split('<').next()).expect("a title");
        assert!(58.0 + title.chars().count() as f64 * 9.0 <= width + 1.0, "title `{title}` wider than the chart's {width}");
    }
}
