//! DeepSpeed's ZeRO model-state estimators, reproduced exactly (FACTS.md §2).
//!
//! `deepspeed/runtime/zero/stage_1_and_2.py` L2430-2447 and
//! `deepspeed/runtime/zero/stage3.py` L3008-3044 at DeepSpeed 38327e07
//! (`estimate_zero2_model_states_mem_needs`, `estimate_zero3_model_states_mem_needs`).
//! P = total parameters, L = largest layer's parameters, N = nodes × GPUs per
//! node, n = GPUs per node, f = additional_buffer_factor (DeepSpeed's default 1.5).
//! Python's `int()` truncates; so does `as u64` on these non-negative values.

/// Bytes on each GPU and in CPU memory, as DeepSpeed's estimator prints them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ModelStates {
    pub gpu: u64,
    pub cpu: u64,
}

/// ZeRO stage 1/2, current code (after PR #5099): 2 bytes of 16-bit params,
/// plus 18 bytes (2 grads16 + 4 grads32 + 4 params32 + 8 Adam) sharded over N.
pub fn zero2(total_params: f64, gpus_per_node: u64, nodes: u64, cpu_offload: bool, buffer_factor: f64) -> ModelStates {
    let total_gpus = (gpus_per_node * nodes) as f64;
    if cpu_offload {
        ModelStates { gpu: (2.0 * total_params) as u64, cpu: (total_params * (4.0 * total_gpus).max(16.0) * buffer_factor) as u64 }
    } else {
        ModelStates {
            gpu: (2.0 * total_params + (18.0 * total_params / total_gpus).trunc()) as u64,
            cpu: (total_params * 4.0 * gpus_per_node as f64 * buffer_factor) as u64,
        }
    }
}

/// ZeRO stage 3: the largest layer gathered in fp32 (4L) plus the sharded states.
#[allow(
    clippy::too_many_arguments,
    reason = "the arguments of DeepSpeed's estimate_zero3_model_states_mem_needs, in its order, so the peer cases read one to one"
)]
pub fn zero3(
    total_params: f64,
    largest_layer_params: f64,
    gpus_per_node: u64,
    nodes: u64,
    offload_optimizer: bool,
    offload_params: bool,
    zero_init: bool,
    buffer_factor: f64,
) -> ModelStates {
    let total_gpus = (gpus_per_node * nodes) as f64;
    let n = gpus_per_node as f64;
    let gpus_factor = 1.0 / nodes as f64;
    let largest_layer_memory = 4.0 * largest_layer_params;
    let (gpu, cpu) = match (offload_optimizer, offload_params) {
        (true, true) => {
            let cpu =
                if zero_init { total_params * 18.0 * gpus_factor * buffer_factor } else { total_params * (4.0 * n).max(18.0 * gpus_factor) * buffer_factor };
            (largest_layer_memory, cpu)
        }
        (true, false) => {
            let cpu =
                if zero_init { total_params * 16.0 * gpus_factor * buffer_factor } else { total_params * (4.0 * n).max(16.0 * gpus_factor) * buffer_factor };
            (largest_layer_memory + (2.0 * total_params / total_gpus).trunc(), cpu)
        }
        _ => {
            let cpu = if zero_init { largest_layer_params * 4.0 * n * buffer_factor } else { total_params * 4.0 * n * buffer_factor };
            (largest_layer_memory + (18.0 * total_params / total_gpus).trunc(), cpu)
        }
    };
    ModelStates { gpu: gpu as u64, cpu: cpu as u64 }
}

/// ZeRO-3's in-flight settings, in elements: what `DeepSpeedZeroConfig` reads
/// (DeepSpeed 38327e07 `runtime/zero/config.py`), with its defaults where a config does not
/// state them, and HF's `"auto"` resolved from the model's hidden size h as transformers'
/// `HfTrainerDeepSpeedConfig.trainer_config_finalize` fills it (`integrations/deepspeed.py` at
/// transformers 02348331: `reduce_bucket_size` = h², `stage3_prefetch_bucket_size` = 0.9·h²,
/// `stage3_param_persistence_threshold` = 10·h).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Stage3InFlight {
    /// `reduce_bucket_size`: the flat 16-bit gradient bucket (`__ipg_bucket_flat_buffer`).
    pub reduce_bucket: f64,
    /// `stage3_prefetch_bucket_size`: the most elements one module's fetch prefetches ahead.
    pub prefetch_bucket: f64,
    /// `stage3_max_live_parameters`: the ceiling the coordinator prefetches up to.
    pub max_live: f64,
    /// `stage3_param_persistence_threshold`: smaller parameters are never partitioned.
    pub persistence_threshold: f64,
}

/// DeepSpeed's defaults (`config.py`: `reduce_bucket_size` `pp_int(5e8)`, `prefetch_bucket_size`
/// `pp_int(5e7)`, `max_live_parameters` `pp_int(1e9)`, `param_persistence_threshold` `pp_int(1e5)`).
pub(crate) const STAGE3_DEFAULTS: Stage3InFlight = Stage3InFlight { reduce_bucket: 5e8, prefetch_bucket: 5e7, max_live: 1e9, persistence_threshold: 1e5 };

/// One setting as a config states it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Setting {
    Absent,
    Number(f64),
    /// `"auto"`: filled by HF's DeepSpeed integration.
    Auto,
}

impl Stage3InFlight {
    /// The settings a run uses; `hidden` is the model's hidden size, for `"auto"`. An `"auto"`
    /// without a known hidden size falls back to DeepSpeed's default, said in `notes`.
    pub fn resolve(
        reduce: Setting,
        prefetch: Setting,
        max_live: Setting,
        persistence: Setting,
        hidden: Option<f64>,
        notes: &mut Vec<String>,
    ) -> Stage3InFlight {
        let d = STAGE3_DEFAULTS;
        let mut pick = |setting: Setting, default: f64, auto: Option<f64>, name: &str| match (setting, auto) {
            (Setting::Number(n), _) => n,
            (Setting::Auto, Some(value)) => value,
            (Setting::Auto, None) => {
                notes.push(format!("`{name}: auto` needs the model's hidden size, not known: DeepSpeed's default {default:e} assumed"));
                default
            }
            (Setting::Absent, _) => default,
        };
        let h2 = hidden.map(|h| h * h);
        Stage3InFlight {
            reduce_bucket: pick(reduce, d.reduce_bucket, h2, "reduce_bucket_size"),
            // `0.9 * hidden_size * hidden_size`, then DeepSpeed's `int(prefetch_bucket_size)`.
            prefetch_bucket: pick(prefetch, d.prefetch_bucket, h2.map(|v| (0.9 * v).trunc()), "stage3_prefetch_bucket_size"),
            max_live: pick(max_live, d.max_live, None, "stage3_max_live_parameters"),
            persistence_threshold: pick(persistence, d.persistence_threshold, hidden.map(|h| 10.0 * h), "stage3_param_persistence_threshold"),
        }
    }
}
