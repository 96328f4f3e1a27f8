use super::AllocOption;
use crate::declare_rule;
use crate::diagnostic::Diagnostic;
use crate::load::Document;

declare_rule! {
    /// ## What it does
    /// Reports allocator options that PyTorch accepts but that do nothing, or
    /// less than they seem, in combination:
    /// `max_split_size_mb`, `roundup_power2_divisions` and
    /// `garbage_collection_threshold` under `backend:cudaMallocAsync` (ignored);
    /// `garbage_collection_threshold` without a per-process memory fraction (GC
    /// runs only when a fraction is set); `max_split_size_mb` with
    /// `expandable_segments:True` (the split limit is bypassed; only the
    /// oversize-block rules remain).
    ///
    /// ## Why is this bad?
    /// The setting is believed to prevent fragmentation and does not; the OOM
    /// it was meant to fix comes back.
    ///
    /// ## Example
    /// ```yaml
    /// env:
    ///   PYTORCH_ALLOC_CONF: "expandable_segments:True,max_split_size_mb:128"
    /// ```
    ///
    /// Use instead:
    /// ```yaml
    /// env:
    ///   PYTORCH_ALLOC_CONF: "expandable_segments:True"
    /// ```
    ///
    /// ## Fix safety
    /// There is no fix: which of the two settings is wanted is a choice.
    pub struct IneffectiveAllocatorOption {
        name: "ineffective-allocator-option",
        severity: Warning,
        fix: None,
        since: "0.1.0",
        check: Env,
    }
}

/// Options that have no (or partial) effect, with why. Sources: PyTorch
/// `docs/source/notes/cuda.rst` and `CUDACachingAllocator.cpp` (FACTS.md §5).
pub(crate) fn problems(options: &[AllocOption]) -> Vec<(&AllocOption, String)> {
    let get = |key: &str| options.iter().find(|o| o.key == key);
    let mut out = Vec::new();
    if get("backend").is_some_and(|o| o.value == "cudaMallocAsync" || o.value == "async") {
        for key in ["max_split_size_mb", "roundup_power2_divisions", "garbage_collection_threshold"] {
            if let Some(option) = get(key) {
                out.push((option, format!("{key} is ignored with backend:cudaMallocAsync")));
            }
        }
        return out;
    }
    if let Some(option) = get("garbage_collection_threshold")
        && get("per_process_memory_fraction").is_none()
    {
        out.push((option, "garbage_collection_threshold acts only when a per-process memory fraction is set (per_process_memory_fraction, or torch.cuda.set_per_process_memory_fraction in code)".to_owned()));
    }
    if let Some(option) = get("max_split_size_mb")
        && get("expandable_segments").is_some_and(|o| o.value == "True")
    {
        out.push((
            option,
            "with expandable_segments:True, blocks are split regardless of max_split_size_mb; only its oversize-block rules still apply".to_owned(),
        ));
    }
    out
}

pub fn diagnostic(document: &Document, variable: &str, option: &AllocOption, why: &str) -> Diagnostic {
    Diagnostic::new(IneffectiveAllocatorOption, &document.source, option.span.clone(), format!("{variable}: {why}"))
        .with_label("no full effect")
        .with_note("the option is accepted but does not do what it suggests in this combination")
        .with_help("remove the option, or change the setting it depends on")
}
