//! One self-contained HTML page: a stacked bar per stage × GPU target, a
//! colour per component, a line at usable memory, and the micro batch that
//! fits. No scripts, styles or fonts from anywhere else: it opens offline.

use crate::estimate::{Estimate, human_bytes};

const COLOURS: [&str; 10] = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"];

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

pub fn render(title: &str, estimates: &[Estimate]) -> String {
    let mut names: Vec<String> = Vec::new();
    for e in estimates {
        for c in &e.components {
            if c.bytes > 0.0 && !names.contains(&c.name) {
                names.push(c.name.clone());
            }
        }
    }
    let colour = |name: &str| COLOURS[names.iter().position(|n| n == name).unwrap_or(0) % COLOURS.len()];
    let scale_max = estimates.iter().map(|e| e.total_bytes.max(e.capacity_bytes)).fold(1.0, f64::max);
    let (bar_width, gap, height, top, left) = (70.0, 40.0, 360.0, 30.0, 70.0);
    let width = left + estimates.len() as f64 * (bar_width + gap) + 40.0;
    let y = |bytes: f64| top + height - bytes / scale_max * height;
    let mut svg = format!(r##"<svg width="{width}" height="{}" role="img" aria-label="{}">"##, top + height + 80.0, escape(title));
    svg.push_str(&format!(r##"<line x1="{left}" y1="{}" x2="{}" y2="{}" stroke="#333"/>"##, top + height, width - 20.0, top + height));
    for (i, e) in estimates.iter().enumerate() {
        let x = left + i as f64 * (bar_width + gap);
        let mut stacked = 0.0;
        for c in e.components.iter().filter(|c| c.bytes > 0.0) {
            let (y0, y1) = (y(stacked + c.bytes), y(stacked));
            svg.push_str(&format!(
                r##"<rect class="bar" x="{x}" y="{y0:.1}" width="{bar_width}" height="{:.1}" fill="{}"><title>{}: {}</title></rect>"##,
                (y1 - y0).max(0.0),
                colour(&c.name),
                escape(&c.name),
                human_bytes(c.bytes)
            ));
            stacked += c.bytes;
        }
        let usable = y(e.usable_bytes);
        svg.push_str(&format!(r##"<line class="usable" x1="{}" y1="{usable:.1}" x2="{}" y2="{usable:.1}" stroke="#d00" stroke-width="2" stroke-dasharray="5,3"><title>usable {}</title></line>"##, x - 6.0, x + bar_width + 6.0, human_bytes(e.usable_bytes)));
        let label = format!("{}{}", e.gpu, e.stage.as_ref().map(|s| format!(" · {s}")).unwrap_or_default());
        svg.push_str(&format!(
            r##"<text x="{}" y="{}" font-size="11" text-anchor="middle">{}</text>"##,
            x + bar_width / 2.0,
            top + height + 16.0,
            escape(&label)
        ));
        let fit = e.max_micro_batch.map_or("no fit".to_owned(), |m| format!("fits ≤ {m}"));
        svg.push_str(&format!(
            r##"<text x="{}" y="{}" font-size="11" text-anchor="middle">micro {} · {}</text>"##,
            x + bar_width / 2.0,
            top + height + 32.0,
            e.micro_batch,
            escape(&fit)
        ));
        svg.push_str(&format!(
            r##"<text x="{}" y="{:.1}" font-size="11" text-anchor="middle">{}</text>"##,
            x + bar_width / 2.0,
            y(stacked) - 6.0,
            human_bytes(e.total_bytes)
        ));
    }
    svg.push_str("</svg>");
    let legend: String = names.iter().map(|n| format!(r##"<li><span style="background:{}"></span>{}</li>"##, colour(n), escape(n))).collect();
    format!(
        r##"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{t}</title>
<style>body{{font-family:system-ui,sans-serif;margin:24px;color:#222}}ul{{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:12px}}li span{{display:inline-block;width:12px;height:12px;margin-right:6px}}</style>
</head><body>
<h1>{t}</h1>
<p>Estimated peak memory per stage and GPU target (trainlint {v}). The dashed red line is usable memory (capacity × safety margin).</p>
{svg}
<ul class="legend">{legend}</ul>
</body></html>
"##,
        t = escape(title),
        v = env!("CARGO_PKG_VERSION"),
    )
}
