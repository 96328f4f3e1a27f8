use super::AllocOption;
use crate::declare_rule;
use crate::diagnostic::Diagnostic;
use crate::load::Document;

declare_rule! {
    /// ## What it does
    /// Validates PyTorch allocator settings (`PYTORCH_ALLOC_CONF`,
    /// `PYTORCH_CUDA_ALLOC_CONF`) as PyTorch parses them: `max_split_size_mb`
    /// and `max_non_split_rounding_mb` are whole MB ≥ 20;
    /// `garbage_collection_threshold` is strictly between 0 and 1;
    /// `expandable_segments` and the boolean options are exactly `True` or
    /// `False`; `backend` is `native` or `cudaMallocAsync`;
    /// `roundup_power2_divisions` is a power of 2 or a list of `size:divisions`
    /// with powers of 2; `pinned_num_register_threads` a power of 2 ≤ 128; an
    /// unknown key is an error.
    ///
    /// ## Why is this bad?
    /// PyTorch refuses the whole string at the first CUDA allocation
    /// ("max_split_size_mb too small, must be >= 20", "Unrecognized key ... in
    /// CUDA allocator config"), after the job has started.
    ///
    /// ## Example
    /// ```yaml
    /// env:
    ///   PYTORCH_ALLOC_CONF: "expandable_segments:true,max_split_size_mb:16"
    /// ```
    ///
    /// Use instead:
    /// ```yaml
    /// env:
    ///   PYTORCH_ALLOC_CONF: "expandable_segments:True,max_split_size_mb:128"
    /// ```
    ///
    /// ## Fix safety
    /// There is no fix: the intended value is not known.
    pub struct InvalidAllocatorConfig {
        name: "invalid-allocator-config",
        severity: Error,
        fix: None,
        since: "0.1.0",
        check: Env,
    }
}

const BOOLEAN_OPTIONS: [&str; 5] = [
    "expandable_segments",
    "release_lock_on_cudamalloc",
    "pinned_use_cuda_host_register",
    "pinned_use_background_threads",
    "graph_capture_record_stream_reuse",
];
const OTHER_KNOWN: [&str; 3] = ["expandable_segments_reserve", "expandable_segments_reserve_by_class", "expandable_segments_handle_type"];

fn power_of_two(text: &str) -> bool {
    text.parse::<u64>().is_ok_and(|n| n.is_power_of_two())
}

/// What is wrong with one option, in PyTorch's terms; `None` when it parses.
pub(crate) fn problem(option: &AllocOption) -> Option<String> {
    let value = option.value.as_str();
    match option.key.as_str() {
        "max_split_size_mb" | "max_non_split_rounding_mb" => match value.parse::<u64>() {
            Ok(mb) if mb >= 20 => None,
            Ok(mb) => Some(format!("{} is {mb} MB; PyTorch requires at least 20 (kLargeBuffer)", option.key)),
            Err(_) => Some(format!("{} must be a whole number of MB, not `{value}`", option.key)),
        },
        "garbage_collection_threshold" => match value.parse::<f64>() {
            Ok(t) if t > 0.0 && t < 1.0 => None,
            _ => Some(format!("garbage_collection_threshold must be strictly between 0.0 and 1.0, not `{value}`")),
        },
        "per_process_memory_fraction" => match value.parse::<f64>() {
            Ok(f) if (0.0..=1.0).contains(&f) => None,
            _ => Some(format!("per_process_memory_fraction must be between 0 and 1, not `{value}`")),
        },
        "backend" => {
            (!matches!(value, "native" | "cudaMallocAsync" | "async")).then(|| format!("backend must be `native` or `cudaMallocAsync`, not `{value}`"))
        }
        "roundup_power2_divisions" => {
            if let Some(list) = value.strip_prefix('[').and_then(|v| v.strip_suffix(']')) {
                list.split(',').find_map(|pair| {
                    let (size, divisions) = pair.split_once(':')?;
                    let (size, divisions) = (size.trim(), divisions.trim());
                    if size != ">" && !power_of_two(size) {
                        Some(format!("roundup_power2_divisions interval `{size}` must be a power of 2 (MB) or `>`"))
                    } else if divisions != "0" && !power_of_two(divisions) {
                        Some(format!("roundup_power2_divisions value `{divisions}` must be a power of 2, or 0"))
                    } else {
                        None
                    }
                })
            } else if value == "0" || power_of_two(value) {
                None
            } else {
                Some(format!("roundup_power2_divisions must be a power of 2, not `{value}`"))
            }
        }
        "pinned_num_register_threads" => match value.parse::<u64>() {
            Ok(n) if n.is_power_of_two() && n <= 128 => None,
            _ => Some(format!("pinned_num_register_threads must be a power of 2 up to 128, not `{value}`")),
        },
        "pinned_reserve_segment_size_mb" => match value.parse::<u64>() {
            Ok(n) if n > 0 => None,
            _ => Some(format!("pinned_reserve_segment_size_mb must be a positive number of MB, not `{value}`")),
        },
        key if BOOLEAN_OPTIONS.contains(&key) => {
            (!matches!(value, "True" | "False")).then(|| format!("{key} must be exactly `True` or `False` (case-sensitive), not `{value}`"))
        }
        key if OTHER_KNOWN.contains(&key) => None,
        key => Some(format!("unrecognized key `{key}`: PyTorch rejects the whole allocator config")),
    }
}

pub fn diagnostic(document: &Document, variable: &str, option: &AllocOption, problem: &str) -> Diagnostic {
    Diagnostic::new(InvalidAllocatorConfig, &document.source, option.span.clone(), format!("invalid {variable} option: {problem}"))
        .with_label("rejected by PyTorch")
        .with_note("PyTorch parses the allocator config at the first CUDA allocation and raises on any invalid option")
        .with_help(
            "correct the option; the accepted options are listed in PyTorch's CUDA semantics notes (\"Optimizing memory usage with PYTORCH_CUDA_ALLOC_CONF\")",
        )
}
