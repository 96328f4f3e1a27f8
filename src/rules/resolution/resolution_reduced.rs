use crate::declare_rule;
use crate::diagnostic::Diagnostic;
use crate::load::{Node, Value};
use crate::resolve::ResolvedConfig;
use crate::rules::Checker;
use crate::schema::manifest::ResolutionDirection;
use crate::settings::Settings;

declare_rule! {
    /// ## What it does
    /// With `--baseline REV`, reports a resolution-bearing value that got
    /// coarser against the same config at `REV`: a larger `bin_size`, a
    /// smaller `max_mz`, fewer peaks, a shorter maximum sequence length, a
    /// smaller token limit or image size, fewer negatives.
    ///
    /// Which values bear resolution: the manifest's `[resolution]` table
    /// (`"loss.bin_size" = "lower-is-finer"`, matched as a dotted path or its
    /// suffix), and built-in defaults by key name: `max_seq_length`,
    /// `max_seq_len`, `seq_len`, `seq_length`, `encoder_seq_length`,
    /// `sequence_len`, `sequence_length`, `seq-length` (GPT-NeoX), `--seq-length` (Megatron-LM), `max_target_length` (MaxText), `max_sequence_length` (OLMo),
    /// `cutoff_len`, `max_length`, `model_max_length`, `max_peaks`,
    /// `max_peaks_n`, `token_limit`, `image_size`, `img_size`, `n_negatives`,
    /// `num_negatives` (higher is finer) and `bin_size`, `patch_size` (lower is finer).
    ///
    /// ## Why is this bad?
    /// Lowering resolution is the memory fix of last resort: it frees memory
    /// by making the model see less, and it hurts quality (seed 000: "Don't
    /// reduce spectrum resolution"). Micro batch and accumulation free memory
    /// without changing what is learned.
    ///
    /// ## Example
    /// At `HEAD`, 20,000 bins up to `max_mz` 2000:
    /// ```yaml,before
    /// trainlint: 1
    /// batch: {micro_batch: 48, accumulation: 2}
    /// parallel: {devices: 1}
    /// settings:
    ///   loss: {bin_size: 0.1, max_mz: 2000.0}
    /// ```
    /// Now, checked with `--baseline HEAD`:
    /// ```yaml
    /// trainlint: 1
    /// batch: {micro_batch: 48, accumulation: 2}
    /// parallel: {devices: 1}
    /// settings:
    ///   loss: {bin_size: 0.2, max_mz: 2000.0}
    /// ```
    ///
    /// Use instead: keep `bin_size: 0.1`, and lower the micro batch with more
    /// accumulation.
    /// ```yaml
    /// trainlint: 1
    /// batch: {micro_batch: 24, accumulation: 4}
    /// parallel: {devices: 1}
    /// settings:
    ///   loss: {bin_size: 0.1, max_mz: 2000.0}
    /// ```
    ///
    /// ## Fix safety
    /// There is no fix: the change may be intended; the warning makes it visible.
    pub struct ResolutionReduced {
        name: "resolution-reduced",
        severity: Warning,
        fix: None,
        since: "0.1.0",
        check: Baseline,
        options: ["resolution"],
    }
}

/// Resolution-bearing names that are no framework's (the dialects add their
/// sequence-length spellings: `Framework::sequence_length_keys`).
const HIGHER_IS_FINER: [&str; 9] =
    ["seq_len", "sequence_length", "max_peaks", "max_peaks_n", "token_limit", "image_size", "img_size", "n_negatives", "num_negatives"];
const LOWER_IS_FINER: [&str; 2] = ["bin_size", "patch_size"];

/// The direction of a value at `path`: the manifest's table first, then the built-in names.
pub(crate) fn direction(settings: &Settings, path: &str) -> Option<ResolutionDirection> {
    for (pattern, direction) in &settings.manifest.resolution {
        if path == pattern || path.ends_with(&format!(".{pattern}")) {
            return Some(*direction);
        }
    }
    let leaf = path.rsplit('.').next().unwrap_or(path);
    if HIGHER_IS_FINER.contains(&leaf) || crate::dialects::ALL.iter().any(|d| d.sequence_length_keys().contains(&leaf)) {
        Some(ResolutionDirection::HigherIsFiner)
    } else if LOWER_IS_FINER.contains(&leaf) {
        Some(ResolutionDirection::LowerIsFiner)
    } else {
        None
    }
}

pub fn check(checker: &mut Checker, settings: &Settings, current: &ResolvedConfig, baseline: &ResolvedConfig, revision: &str) {
    if !checker.enabled(ResolutionReduced) {
        return;
    }
    let mut leaves = Vec::new();
    numeric_leaves(&current.tree, String::new(), &mut leaves);
    for (path, node) in leaves {
        let Some(direction) = direction(settings, &path) else { continue };
        let (Some(new), Some(old)) = (node.as_f64(), baseline.tree.get_dotted(&path).and_then(Node::as_f64)) else { continue };
        let coarser = match direction {
            ResolutionDirection::HigherIsFiner => new < old,
            ResolutionDirection::LowerIsFiner => new > old,
        };
        if !coarser {
            continue;
        }
        let file = current.files.get(node.origin).unwrap_or(current.source());
        let (way, factor) = match direction {
            ResolutionDirection::HigherIsFiner => ("higher is finer", old / new),
            ResolutionDirection::LowerIsFiner => ("lower is finer", new / old),
        };
        let mut meaning = times(factor);
        if let Some(count) = bins(current, baseline, &path) {
            meaning = format!("{meaning}; {count}");
        }
        let mut diagnostic = Diagnostic::new(
            ResolutionReduced,
            file,
            node.span.clone(),
            format!("`{path}` got coarser against {revision}: {} → {} ({way}): {meaning}", number(old), number(new)),
        )
        .with_label(format!("was {}", number(old)))
        .with_note("lowering resolution frees memory by making the model see less; it is the last resort and hurts quality")
        .with_help("if memory is the reason, lower the micro batch and raise accumulation instead, and keep the resolution");
        diagnostic.stage = current.stage.clone();
        checker.report(diagnostic);
    }
}

/// For a bin width next to a `max_*` range (`bin_size` beside `max_mz`): the bin counts before and after.
fn bins(current: &ResolvedConfig, baseline: &ResolvedConfig, path: &str) -> Option<String> {
    let (parent, leaf) = path.rsplit_once('.').map_or(("", path), |(p, l)| (p, l));
    if !leaf.contains("bin") {
        return None;
    }
    let sibling = |tree: &Node| -> Option<(String, f64)> {
        let map = if parent.is_empty() { tree } else { tree.get_dotted(parent)? };
        map.entries()?.iter().find(|e| e.key.starts_with("max_")).and_then(|e| e.value.as_f64().map(|v| (e.key.clone(), v)))
    };
    let (name, new_max) = sibling(&current.tree)?;
    let (_, old_max) = sibling(&baseline.tree)?;
    let new_width = current.tree.get_dotted(path)?.as_f64()?;
    let old_width = baseline.tree.get_dotted(path)?.as_f64()?;
    let (old_bins, new_bins) = ((old_max / old_width).round(), (new_max / new_width).round());
    Some(format!("bins ({name} ÷ {leaf}): {} → {}", thousands(old_bins), thousands(new_bins)))
}

fn numeric_leaves(node: &Node, path: String, out: &mut Vec<(String, Node)>) {
    match &node.value {
        Value::Map(entries) => {
            for entry in entries {
                let child = if path.is_empty() { entry.key.clone() } else { format!("{path}.{}", entry.key) };
                numeric_leaves(&entry.value, child, out);
            }
        }
        Value::Int(_) | Value::UInt(_) | Value::Float(_) => out.push((path, node.clone())),
        _ => {}
    }
}

fn times(factor: f64) -> String {
    if (factor - 2.0).abs() < 1e-9 { "2× coarser (half the resolution)".to_owned() } else { format!("{factor:.2}× coarser") }
}

fn number(value: f64) -> String {
    if value.fract() == 0.0 && value.abs() < 1e15 { thousands(value) } else { format!("{value}") }
}

fn thousands(value: f64) -> String {
    let digits = format!("{}", value.round() as i64);
    let (sign, digits) = digits.strip_prefix('-').map_or(("", digits.as_str()), |d| ("-", d));
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    format!("{sign}{out}")
}

#[cfg(test)]
mod tests {
    /// The rule's documentation lists every built-in name, the dialects' included.
    #[test]
    fn documented_names_are_the_built_in_ones() {
        let names = super::HIGHER_IS_FINER.iter().chain(&super::LOWER_IS_FINER).chain(crate::dialects::ALL.iter().flat_map(|d| d.sequence_length_keys()));
        for name in names {
            assert!(<super::ResolutionReduced as crate::rules::Rule>::DOCS.contains(&format!("`{name}`")), "RES001's docs do not list `{name}`");
        }
    }
}
