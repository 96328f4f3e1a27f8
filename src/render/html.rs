//! One self-contained HTML page: per GPU target a chart (a stacked bar per
//! stage, a colour per component) on one shared GiB axis with ticks and
//! gridlines, the capacity and usable-memory lines labelled in the chart's
//! right margin, each bar's band as a whisker, out-of-memory bars hatched and labelled, the
//! plan's micro batch × accumulation under each bar, a legend, and a table
//! with the same numbers as a text alternative. Every SVG has a `viewBox` and
//! scales with the page (the charts wrap below each other on a narrow page).
//! No scripts, styles or fonts from anywhere else: it opens offline.

use crate::estimate::plan::PlanRow;
use crate::estimate::{Estimate, Verdict, human_bytes, human_range};

const COLOURS: [&str; 10] = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"];
const GIB: f64 = 1024.0 * 1024.0 * 1024.0;
/// The chart's geometry, in viewBox units (one unit is one CSS pixel at 1:1).
const LEFT: f64 = 58.0;
const TOP: f64 = 64.0;
const PLOT_HEIGHT: f64 = 300.0;
const SLOT: f64 = 94.0;
const BAR: f64 = 50.0;
const RIGHT: f64 = 142.0;
const FONT: f64 = 13.0;
/// Average advance of a character at `FONT` in a system sans-serif, for layout.
const CHAR: f64 = 7.4;
const LINE: f64 = 16.0;
const CAPACITY_COLOUR: &str = "#333";
const USABLE_COLOUR: &str = "#c00";
const BAND_COLOUR: &str = "#7a4b00";
const OOM_COLOUR: &str = "#b00000";

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

fn gib(bytes: f64) -> String {
    format!("{:.1} GiB", bytes / GIB)
}

/// A round tick step (1, 2, 2.5 or 5 × 10ⁿ GiB) giving at most about six ticks up to `max` GiB.
fn tick_step(max: f64) -> f64 {
    let raw = (max / 6.0).max(1e-3);
    let magnitude = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0].iter().map(|m| m * magnitude).find(|step| *step >= raw).unwrap_or(10.0 * magnitude)
}

/// Vertical positions for labels that must not overlap: each at its wish or just below the one above.
fn spread(wishes: &[f64], min_gap: f64) -> Vec<f64> {
    let mut order: Vec<usize> = (0..wishes.len()).collect();
    order.sort_by(|a, b| wishes[*a].total_cmp(&wishes[*b]));
    let mut placed = vec![0.0; wishes.len()];
    let mut last = f64::NEG_INFINITY;
    for i in order {
        let y = wishes[i].max(last + min_gap);
        placed[i] = y;
        last = y;
    }
    placed
}

/// A stage name for an x label: at most 32 characters (the full name is in the label's `<title>`).
fn short(name: &str) -> String {
    if name.chars().count() <= 32 { name.to_owned() } else { name.chars().take(31).chain(['…']).collect() }
}

fn plan_text(plan: &PlanRow) -> String {
    match (plan.micro_batch, plan.accumulation) {
        (Some(m), Some(a)) => format!("plan {m} × {a}"),
        (Some(m), None) => format!("plan {m} × ?"),
        _ => "no plan".to_owned(),
    }
}

struct Chart<'a> {
    gpu: &'a str,
    bars: Vec<(&'a Estimate, &'a PlanRow)>,
}

pub fn render(title: &str, estimates: &[Estimate], plans: &[PlanRow]) -> String {
    let mut names: Vec<String> = Vec::new();
    for e in estimates {
        for c in &e.components {
            if c.bytes > 0.0 && !names.contains(&c.name) {
                names.push(c.name.clone());
            }
        }
    }
    let colour = |name: &str| COLOURS[names.iter().position(|n| n == name).unwrap_or(0) % COLOURS.len()];
    let mut charts: Vec<Chart> = Vec::new();
    for (e, p) in estimates.iter().zip(plans) {
        match charts.iter_mut().find(|c| c.gpu == e.gpu) {
            Some(chart) => chart.bars.push((e, p)),
            None => charts.push(Chart { gpu: &e.gpu, bars: vec![(e, p)] }),
        }
    }
    let max_gib = estimates.iter().map(|e| e.high_bytes.max(e.total_bytes).max(e.capacity_bytes)).fold(0.0, f64::max) / GIB;
    let step = tick_step(max_gib.max(1.0));
    let axis_max = (max_gib / step).ceil().max(1.0) * step;
    let any_oom = estimates.iter().any(|e| e.verdict == Verdict::DoesNotFit);
    let svgs: String = charts.iter().enumerate().map(|(i, chart)| chart_svg(i, chart, axis_max, step, &colour)).collect();

    let swatch = |style: &str| format!(r##"<svg class="key" viewBox="0 0 24 12" aria-hidden="true">{style}</svg>"##);
    let mut legend: Vec<String> =
        names.iter().map(|n| format!(r##"<li>{}{}</li>"##, swatch(&format!(r##"<rect width="24" height="12" fill="{}"/>"##, colour(n))), escape(n))).collect();
    legend.push(format!(
        r##"<li>{}capacity of the GPU</li>"##,
        swatch(&format!(r##"<line x1="0" y1="6" x2="24" y2="6" stroke="{CAPACITY_COLOUR}" stroke-width="2"/>"##))
    ));
    legend.push(format!(
        r##"<li>{}usable memory (capacity × safety margin)</li>"##,
        swatch(&format!(r##"<line x1="0" y1="6" x2="24" y2="6" stroke="{USABLE_COLOUR}" stroke-width="2" stroke-dasharray="5,3"/>"##))
    ));
    legend.push(format!(
        r##"<li>{}the band: what the card may hold, low to high end (the uncertainty measured for this kind of run, the allocator's reserve and the CUDA context included); the plan keeps the high end within usable memory</li>"##,
        swatch(&format!(r##"<path d="M12,1 L12,11 M8,1 L16,1 M8,11 L16,11" stroke="{BAND_COLOUR}" stroke-width="2" fill="none"/>"##)),
    ));
    if any_oom {
        legend.push(format!(
            r##"<li class="oom-key">{}out of memory: even the band's low end above usable memory (OOM)</li>"##,
            swatch(&format!(
                r##"<rect width="24" height="12" fill="#fff" stroke="{OOM_COLOUR}" stroke-width="2"/><path d="M0,12 L12,0 M6,12 L18,0 M12,12 L24,0" stroke="{OOM_COLOUR}" stroke-width="2"/>"##
            ))
        ));
    }
    let rows: String = estimates
        .iter()
        .zip(plans)
        .map(|(e, p)| {
            let plan = match (p.micro_batch, p.accumulation) {
                (Some(m), Some(a)) => format!("{m} × {a}"),
                (Some(m), None) => format!("{m} × ?"),
                _ => "none".to_owned(),
            };
            format!(
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{:.2}</td><td>{:.2}–{:.2}</td><td>{:.2}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                escape(&e.gpu),
                escape(e.stage.as_deref().unwrap_or("–")),
                e.micro_batch,
                e.total_bytes / GIB,
                e.low_bytes / GIB,
                e.high_bytes / GIB,
                e.usable_bytes / GIB,
                match e.verdict {
                    Verdict::Fits => "yes",
                    Verdict::MayNotFit => "<strong>may not</strong>",
                    Verdict::DoesNotFit => "<strong>no (OOM)</strong>",
                },
                e.max_micro_batch.map_or("–".to_owned(), |m| m.to_string()),
                p.max_with_headroom.map_or("–".to_owned(), |m| m.to_string()),
                plan
            )
        })
        .collect();
    // Why each plan stops where it does, once per GPU and reason (stages with the same reason share a line).
    let mut reasons: Vec<(String, Vec<String>, String)> = Vec::new();
    for p in plans {
        let Some(why) = p.why_smaller.clone().or_else(|| p.reason.clone()) else { continue };
        match reasons.iter_mut().find(|(gpu, _, w)| *gpu == p.gpu && *w == why) {
            Some((_, stages, _)) => stages.extend(p.stage.clone()),
            None => reasons.push((p.gpu.clone(), p.stage.iter().cloned().collect(), why)),
        }
    }
    let reasons: String = reasons
        .iter()
        .map(|(gpu, stages, why)| {
            let stages = match stages.len() {
                0 => String::new(),
                1 => format!(", stage {}", stages[0]),
                _ => format!(", stages {}", stages.join(", ")),
            };
            format!("<li><strong>{}</strong>{}: {}</li>\n", escape(gpu), escape(&stages), escape(why))
        })
        .collect();
    format!(
        r##"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>{t}</title>
<style>
body{{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:16px;color:#222;max-width:1400px}}
h1{{font-size:1.25rem;overflow-wrap:anywhere}}
.legend{{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:6px 18px;font-size:.9rem}}
.legend li{{display:flex;align-items:center;gap:6px}}
svg.key{{width:24px;height:12px;flex:none}}
.charts{{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,440px),1fr));gap:24px}}
figure{{margin:0;overflow-x:auto}}
svg.chart{{display:block;width:100%;height:auto}}
svg.chart text{{font-family:inherit}}
.halo{{paint-order:stroke;stroke:#fff;stroke-width:4px;stroke-linejoin:round}}
.table{{overflow-x:auto}}
table{{border-collapse:collapse;font-size:.85rem;margin-top:16px}}
th,td{{border-bottom:1px solid #ddd;padding:4px 8px;text-align:right;white-space:nowrap}}
th{{white-space:normal;vertical-align:bottom}}
th:nth-child(-n+2),td:nth-child(-n+2){{text-align:left}}
h2{{font-size:1.05rem}}
.why{{font-size:.9rem;padding-left:1.2em}}
@media (max-width:640px){{body{{margin:10px}}table{{font-size:.72rem}}th,td{{padding:3px 2px;white-space:normal}}}}
</style>
</head><body>
<h1>{t}</h1>
<p>Estimated peak memory per curriculum stage and GPU target (trainlint {v}), at the config's micro batch. Under each bar: the config's micro batch (<em>config</em>), the micro batch × accumulation that <code>trainlint plan</code> picks (it keeps the effective batch and the band's high end within usable memory), and the largest micro batch whose band's low end fits usable memory (<em>fits ≤</em>; above it, out of memory for sure).</p>
<ul class="legend">{legend}</ul>
<div class="charts">
{svgs}</div>
<div class="table"><table>
<caption>The same numbers as the charts</caption>
<thead><tr><th>GPU</th><th>stage</th><th>micro batch</th><th>peak (GiB)</th><th>band (GiB)</th><th>usable (GiB)</th><th>fits</th><th>largest that may fit</th><th>largest that surely fits</th><th>plan: micro × accum.</th></tr></thead>
<tbody>
{rows}</tbody></table></div>
<h2>Why the plan stops where it does</h2>
<ul class="why">
{reasons}</ul>
</body></html>
"##,
        t = escape(title),
        v = env!("CARGO_PKG_VERSION"),
        legend = legend.join(""),
    )
}

fn chart_svg(index: usize, chart: &Chart, axis_max: f64, step: f64, colour: &dyn Fn(&str) -> &'static str) -> String {
    let n = chart.bars.len() as f64;
    let plot_width = n * SLOT;
    // Stage labels wider than a slot are rotated; the bottom margin makes room for them.
    let longest = chart.bars.iter().filter_map(|(e, _)| e.stage.as_ref()).map(|s| short(s).chars().count()).max().unwrap_or(0) as f64;
    let rotate = longest * CHAR > SLOT - 8.0;
    // Rotated labels run down and to the right (cos 35° ≈ 0.82): the last one may need more than the right margin.
    let overhang = if rotate { (longest * CHAR * 0.82 - SLOT / 2.0 - RIGHT).max(0.0) } else { 0.0 };
    let stage_height = if longest == 0.0 {
        0.0
    } else if rotate {
        longest * CHAR * 0.58 + LINE
    } else {
        LINE
    };
    let bottom = 3.0 * LINE + stage_height + 12.0;
    // The title (`FONT + 2`, bold) is never clipped: a one-stage chart is as wide as its title.
    let title = format!("{} · {} capacity", chart.gpu, gib(chart.bars[0].0.capacity_bytes));
    let title_width = LEFT + title.chars().count() as f64 * CHAR * (FONT + 2.0) / FONT * 1.08 + 8.0;
    let width = (LEFT + plot_width + RIGHT + overhang).max(title_width).ceil();
    let height = TOP + PLOT_HEIGHT + bottom;
    let y = |bytes: f64| TOP + PLOT_HEIGHT - (bytes / GIB / axis_max * PLOT_HEIGHT).min(PLOT_HEIGHT);
    let capacity = chart.bars[0].0.capacity_bytes;
    let usable = chart.bars[0].0.usable_bytes;
    let summary: Vec<String> = chart
        .bars
        .iter()
        .map(|(e, p)| {
            format!(
                "{}peak {} ({} on the card){}, {}",
                e.stage.as_ref().map(|s| format!("stage {s}: ")).unwrap_or_default(),
                human_bytes(e.total_bytes),
                human_range(e.low_bytes, e.high_bytes),
                match e.verdict {
                    Verdict::Fits => "",
                    Verdict::MayNotFit => " (may not fit)",
                    Verdict::DoesNotFit => " (out of memory)",
                },
                plan_text(p)
            )
        })
        .collect();
    let label = format!("Peak memory on {} ({} capacity, {} usable): {}", chart.gpu, gib(capacity), gib(usable), summary.join("; "));
    let id = format!("chart-{index}");
    let mut svg = format!(
        r##"<figure><svg class="chart" id="{id}" viewBox="0 0 {width:.0} {height}" style="min-width:{min:.0}px;max-width:{width:.0}px" role="img" aria-labelledby="{id}-title {id}-desc" font-size="{FONT}">
<title id="{id}-title">{}</title><desc id="{id}-desc">{}</desc>
<defs><pattern id="{id}-oom" patternUnits="userSpaceOnUse" width="8" height="8" patternTransform="rotate(45)"><rect width="8" height="8" fill="#fff" fill-opacity="0.35"/><line x1="0" y1="0" x2="0" y2="8" stroke="{OOM_COLOUR}" stroke-width="3"/></pattern></defs>
"##,
        escape(&format!("Peak memory on {}", chart.gpu)),
        escape(&label),
        min = width * 0.6,
    );
    svg.push_str(&format!(r##"<text x="{LEFT}" y="{:.1}" font-size="{}" font-weight="600">{}</text>"##, TOP - 40.0, FONT + 2.0, escape(&title)));
    // Axis, ticks and gridlines.
    let mut tick = 0.0;
    while tick <= axis_max + step / 1000.0 {
        let ty = y(tick * GIB);
        svg.push_str(&format!(r##"<line class="grid" x1="{LEFT}" y1="{ty:.1}" x2="{:.1}" y2="{ty:.1}" stroke="#e3e3e3"/>"##, LEFT + plot_width));
        svg.push_str(&format!(r##"<line x1="{:.1}" y1="{ty:.1}" x2="{LEFT}" y2="{ty:.1}" stroke="#333"/>"##, LEFT - 5.0));
        let text = if step.fract() == 0.0 { format!("{tick:.0}") } else { format!("{tick:.1}") };
        svg.push_str(&format!(r##"<text class="tick" x="{:.1}" y="{:.1}" text-anchor="end">{text}</text>"##, LEFT - 8.0, ty + 4.0));
        tick += step;
    }
    svg.push_str(&format!(r##"<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{:.1}" stroke="#333"/>"##, TOP + PLOT_HEIGHT));
    svg.push_str(&format!(r##"<line x1="{LEFT}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#333"/>"##, TOP + PLOT_HEIGHT, LEFT + plot_width, TOP + PLOT_HEIGHT));
    svg.push_str(&format!(
        r##"<text class="axis-title" transform="translate(14 {:.1}) rotate(-90)" text-anchor="middle">peak memory (GiB)</text>"##,
        TOP + PLOT_HEIGHT / 2.0
    ));
    // Bars and the labels under them.
    let lines = [y(capacity), y(usable)];
    // Value labels are drawn after the lines, with a white halo, so no line crosses them.
    let mut labels = String::new();
    for (i, (e, p)) in chart.bars.iter().enumerate() {
        let x = LEFT + i as f64 * SLOT + (SLOT - BAR) / 2.0;
        let centre = x + BAR / 2.0;
        let mut stacked = 0.0;
        for c in e.components.iter().filter(|c| c.bytes > 0.0) {
            let (y0, y1) = (y(stacked + c.bytes), y(stacked));
            svg.push_str(&format!(
                r##"<rect class="bar" x="{x:.1}" y="{y0:.1}" width="{BAR}" height="{:.1}" fill="{}"><title>{}: {}</title></rect>"##,
                (y1 - y0).max(0.0),
                colour(&c.name),
                escape(&c.name),
                human_bytes(c.bytes)
            ));
            stacked += c.bytes;
        }
        let top = y(e.total_bytes);
        let oom = e.verdict == Verdict::DoesNotFit;
        if oom {
            svg.push_str(&format!(
                r##"<rect class="oom" x="{x:.1}" y="{top:.1}" width="{BAR}" height="{:.1}" fill="url(#{id}-oom)" stroke="{OOM_COLOUR}" stroke-width="2.5"><title>out of memory: at least {} above {} usable</title></rect>"##,
                TOP + PLOT_HEIGHT - top,
                human_bytes(e.low_bytes),
                human_bytes(e.usable_bytes)
            ));
        }
        // The band: a whisker from the low to the high end, beside the bar's centre.
        let (band_low, band_high) = (y(e.low_bytes), y(e.high_bytes));
        svg.push_str(&format!(
            r##"<path class="band" d="M{centre:.1},{band_low:.1} L{centre:.1},{band_high:.1} M{:.1},{band_low:.1} L{:.1},{band_low:.1} M{:.1},{band_high:.1} L{:.1},{band_high:.1}" stroke="{BAND_COLOUR}" stroke-width="2" fill="none"><title>on the card: {}; band {}</title></path>"##,
            centre - 6.0,
            centre + 6.0,
            centre - 6.0,
            centre + 6.0,
            human_range(e.low_bytes, e.high_bytes),
            escape(&e.band.describe())
        ));
        let top = top.min(band_high);
        // The value label sits above the bar, moved above any line it would touch.
        let mut label_y = top - 6.0;
        let label_lines = if e.verdict == Verdict::Fits { 1.0 } else { 2.0 };
        for _ in 0..lines.len() {
            for line in lines {
                let (upper, lower) = (label_y - label_lines * LINE + 2.0, label_y + 4.0);
                if line >= upper && line <= lower {
                    label_y = line - 6.0;
                }
            }
        }
        labels.push_str(&format!(r##"<text class="value halo" x="{centre:.1}" y="{label_y:.1}" text-anchor="middle">{}</text>"##, gib(e.total_bytes)));
        if e.verdict != Verdict::Fits {
            labels.push_str(&format!(
                r##"<text class="oom-label halo" x="{centre:.1}" y="{:.1}" text-anchor="middle" font-weight="700" fill="{OOM_COLOUR}">{}</text>"##,
                label_y - LINE,
                if oom { "OOM" } else { "may not fit" }
            ));
        }
        let base = TOP + PLOT_HEIGHT + LINE;
        let fit = e.max_micro_batch.map_or("no fit".to_owned(), |m| format!("fits ≤ {m}"));
        let current = format!("config {}", e.micro_batch);
        for (k, text) in [current, plan_text(p), fit].iter().enumerate() {
            let weight = if k == 1 { r##" font-weight="600""## } else { "" };
            svg.push_str(&format!(
                r##"<text class="xlabel" x="{centre:.1}" y="{:.1}" text-anchor="middle"{weight}>{}</text>"##,
                base + k as f64 * LINE,
                escape(text)
            ));
        }
        if let Some(stage) = &e.stage {
            let sy = base + 3.0 * LINE + 2.0;
            if rotate {
                let x = centre - 6.0;
                svg.push_str(&format!(
                    r##"<text class="stage" x="{x:.1}" y="{sy:.1}" text-anchor="start" transform="rotate(35 {x:.1} {sy:.1})">{}<title>stage {}</title></text>"##,
                    escape(&short(stage)),
                    escape(stage)
                ));
            } else {
                svg.push_str(&format!(
                    r##"<text class="stage" x="{centre:.1}" y="{sy:.1}" text-anchor="middle" font-weight="600">{}</text>"##,
                    escape(&format!("stage {stage}"))
                ));
            }
        }
    }
    // Capacity and usable lines across the plot, labelled in the right margin.
    let specs = [
        ("capacity", format!("capacity {}", gib(capacity)), capacity, CAPACITY_COLOUR, "", 2.0),
        ("usable", format!("usable {}", gib(usable)), usable, USABLE_COLOUR, r##" stroke-dasharray="6,3""##, 2.0),
    ];
    let placed = spread(&specs.iter().map(|s| y(s.2) + 4.0).collect::<Vec<_>>(), LINE - 1.0);
    for ((class, text, bytes, stroke, dash, width), label_y) in specs.iter().zip(placed) {
        let ly = y(*bytes);
        svg.push_str(&format!(
            r##"<line class="{class}" x1="{LEFT}" y1="{ly:.1}" x2="{:.1}" y2="{ly:.1}" stroke="{stroke}" stroke-width="{width}"{dash}><title>{}</title></line>"##,
            LEFT + plot_width + 4.0,
            escape(&format!("{text} ({})", human_bytes(*bytes)))
        ));
        svg.push_str(&format!(r##"<text class="{class}-label" x="{:.1}" y="{label_y:.1}" fill="{stroke}">{}</text>"##, LEFT + plot_width + 8.0, escape(text)));
    }
    svg.push_str(&labels);
    svg.push_str("</svg></figure>\n");
    svg
}

#[cfg(test)]
mod tests {
    use super::{short, spread, tick_step};

    #[test]
    fn long_stage_names_are_shortened_for_the_axis() {
        assert_eq!(short("02"), "02");
        assert_eq!(short(&"x".repeat(32)), "x".repeat(32));
        assert_eq!(short(&"x".repeat(40)), format!("{}…", "x".repeat(31)));
    }

    #[test]
    fn ticks_are_round_and_few() {
        assert_eq!(tick_step(24.0), 5.0);
        assert_eq!(tick_step(80.0), 20.0);
        assert_eq!(tick_step(12.0), 2.0);
        assert_eq!(tick_step(14.0), 2.5);
        assert_eq!(tick_step(0.9), 0.2);
    }

    #[test]
    fn labels_are_spread_without_overlap() {
        assert_eq!(spread(&[100.0, 105.0, 50.0], 14.0), vec![100.0, 114.0, 50.0]);
        assert_eq!(spread(&[10.0, 40.0], 14.0), vec![10.0, 40.0]);
    }
}
