//! What ZeRO-3 keeps on the GPU in flight, beyond the model states its estimator prices
//! (`zero_states`: the largest layer's 16-bit parameters and gradients, 4L, and the partitions).
//! Read from DeepSpeed 38327e07:
//!
//! - **gathered parameters** (`partitioned_param_coordinator.py`, `fetch_sub_module`): the module
//!   about to run is gathered whatever its size, then the coordinator prefetches the next modules'
//!   parameters, `min(max_live_parameters − resident, prefetch_bucket_size)` elements per module,
//!   and `__params_to_release` keeps those reused within `max_reuse_distance`. So up to
//!   `stage3_max_live_parameters` stay gathered (DeepSpeed's docstring: "the maximum number of
//!   parameters resident per GPU before releasing") besides the largest layer the estimator
//!   counts: `min(max_live, P − L)` × the 16-bit bytes, from the forward through the backward
//!   (`release_and_reset_all` after it). The upper end: the prefetch window and the reuse distance
//!   decide how much of it is reached.
//! - **persistent parameters** (`partition_parameters.py`: `ds_persist` when `numel <
//!   param_persistence_threshold`): never partitioned nor offloaded, so whole on every GPU where the
//!   estimator divides them by N (and prices none on the GPU under parameter offload). For a
//!   named model: its norms and biases.
//! - **the gradient bucket** (`stage3.py` `_setup_for_real_optimizer`: `__ipg_bucket_flat_buffer =
//!   torch.empty(reduce_bucket_size, dtype=self.dtype, device=<the GPU>)` when
//!   `contiguous_gradients`, DeepSpeed's default): allocated once, the whole step.
//! - **the bucket's reduced partitions** (`__avg_scatter_grads`: `reduce_scatter_coalesced` gives
//!   each rank bucket ÷ N elements in the 16-bit dtype; `partition_grads` under optimizer offload
//!   also copies each partition to the GPU in the accumulation dtype, `grad_buffer.to(...)`, and to
//!   fp32 for the CPU optimizer, `grad_buffer.float()`): in the backward. The accumulation dtype is
//!   the 16-bit one under ZeRO (`engine.py` `get_data_types`). A parameter larger than the
//!   bucket is not copied into it (`__add_grad_to_ipg_bucket` copies only while
//!   `elements_in_ipg_bucket + param.grad.numel() <= reduce_bucket_size`) and is reduced alone, so
//!   the partition is the larger of the bucket and the largest parameter, ÷ N (HF's `auto` bucket,
//!   h², is smaller than a vocab × h embedding or head). Under optimizer offload, at the
//!   accumulation boundary, `partition_grads` also takes the partition's norm with
//!   `_constant_buffered_norm2`, which copies it to fp64 (`part.data.double()`) in chunks of
//!   250,000,000 elements on the GPU (the partition was moved there, `grad_buffer.to(grad_partition.device)`):
//!   8 B per element of one chunk, alive beside the two 16-bit copies; the fp32 copy comes after it.
//!
//! Not on the GPU, so not here: with `offload_optimizer` the fp32 gradient partitions
//! (`grad_partitions_flat_buffer` on `self.device`, the CPU: `stage3.py` L261, L547) and the
//! `sub_group_size` buffers of the CPU step (`initialize_optimizer_states`: `device=self.device`,
//! pinned); without it they are the estimator's 18 B per parameter ÷ N.

use super::{Live, MemoryComponent, Run, Term};
use crate::estimate::NotEstimable;
use crate::estimate::zero::{Setting, Stage3InFlight};
use crate::model::{Entry, Mlp, Norm};
use crate::schema::Role;
use crate::schema::typed::Precision;

pub(crate) struct ZeroInFlight;

/// `_constant_buffered_norm2`'s chunk (`buffer_size=250000000`, DeepSpeed 38327e07 `runtime/zero/stage3.py`).
const NORM_CHUNK: f64 = 250_000_000.0;

impl MemoryComponent for ZeroInFlight {
    fn id(&self) -> &'static str {
        "zero-in-flight"
    }

    fn source(&self) -> &'static str {
        "DeepSpeed 38327e07 runtime/zero/stage3.py (_setup_for_real_optimizer, __avg_scatter_grads, partition_grads), partitioned_param_coordinator.py (fetch_sub_module, __params_to_release), config.py defaults; transformers 02348331 integrations/deepspeed.py trainer_config_finalize (\"auto\")"
    }

    fn terms(&self, run: &Run, notes: &mut Vec<String>) -> Result<Vec<Term>, NotEstimable> {
        let Some(parameters) = run.parameters.filter(|_| run.zero() && run.zero_stage >= 3) else { return Ok(vec![]) };
        let setting = |role: Role| match run.resolved.role(role).map(|v| &v.value) {
            Some(value) if value.as_str().is_some_and(|s| s.eq_ignore_ascii_case("auto")) => Setting::Auto,
            Some(value) => value.as_f64().filter(|n| *n >= 0.0).map_or(Setting::Absent, Setting::Number),
            None => Setting::Absent,
        };
        let hidden = run.entry.map(|e| e.hidden_size as f64).or_else(|| run.number(Role::HiddenSize));
        let knobs = Stage3InFlight::resolve(
            setting(Role::ZeroReduceBucketSize),
            setting(Role::ZeroPrefetchBucketSize),
            setting(Role::ZeroMaxLiveParameters),
            setting(Role::ZeroPersistenceThreshold),
            hidden,
            notes,
        );
        let devices = run.world().max(1) as f64;
        // The engine's model dtype (`engine.py` `get_data_types`): fp16/bf16 when enabled, else fp32.
        let bytes = match run.precision {
            Precision::Mixed(_) | Precision::True(_) | Precision::Fp8Mixed => 2.0,
            Precision::Fp64 => 8.0,
            Precision::Fp32 | Precision::Auto => 4.0,
        };
        let offload_params = run.resolved.role(Role::OffloadParams).and_then(|v| v.value.as_bool()).unwrap_or(false);
        let offload_optimizer = run.resolved.role(Role::OffloadOptimizer).is_some_and(|v| v.value.as_bool() == Some(true) || v.value.as_str() == Some("cpu"));
        // The largest layer the estimator already gathers (as `zero_states` takes it).
        let largest = run.number(Role::LargestLayerParameters).or(run.entry.map(|e| (e.vocab_size * e.hidden_size) as f64)).unwrap_or(0.0);
        let mut terms = Vec::new();
        let gathered = knobs.max_live.min((parameters - largest).max(0.0));
        if gathered > 0.0 {
            terms.push(
                Term::fixed(
                    "ZeRO-3 gathered parameters (max live)",
                    gathered * bytes,
                    format!("{} max live + prefetch {} elements, besides the largest layer", elements(knobs.max_live), elements(knobs.prefetch_bucket)),
                )
                .live(Live::Backward),
            );
        }
        if let Some(entry) = run.entry {
            let persistent = persistent_parameters(entry, knobs.persistence_threshold);
            let on_gpu = if offload_params { persistent } else { persistent * (1.0 - 1.0 / devices) };
            if on_gpu > 0.0 {
                terms.push(Term::fixed(
                    "ZeRO-3 persistent parameters",
                    on_gpu * bytes,
                    format!("norms and biases under {} elements, whole on every GPU", elements(knobs.persistence_threshold)),
                ));
            }
        }
        terms.push(Term::fixed("ZeRO-3 gradient bucket", knobs.reduce_bucket * bytes, format!("reduce bucket {} elements", elements(knobs.reduce_bucket))));
        // Per reduction: the reduce-scattered partition of the bucket, or of a parameter larger than
        // it, reduced alone (`reduce_independent_p_g_buckets_and_remove_grads`); under optimizer
        // offload its copy in the accumulation dtype (16-bit under ZeRO) and, at its largest, the
        // fp64 chunk of `_constant_buffered_norm2` (DeepSpeed 38327e07 `stage3.py` `partition_grads`,
        // `_constant_buffered_norm2(input, buffer_size=250000000)`); the fp32 copy for the CPU
        // optimizer (`grad_buffer.float()`) comes after the fp64 chunk is freed, and is smaller.
        let partition = knobs.reduce_bucket.max(largest) / devices;
        let bytes_alive = if offload_optimizer { partition * (bytes + bytes) + partition.min(NORM_CHUNK) * 8.0 } else { partition * bytes };
        let what = if largest > knobs.reduce_bucket { "the largest parameter (reduced alone, over the bucket)" } else { "reduce bucket" };
        terms.push(
            Term::fixed(
                "ZeRO-3 reduced gradient partitions",
                bytes_alive,
                format!("{what} ÷ {devices} GPUs{}", if offload_optimizer { ", copied for the CPU optimizer, its norm in fp64" } else { "" }),
            )
            .live(Live::Backward),
        );
        Ok(terms)
    }
}

/// The model's parameters below the persistence threshold, tensor by tensor: per layer its two
/// norms (with a bias under LayerNorm) and its linears' biases, and the final norm.
fn persistent_parameters(entry: &Entry, threshold: f64) -> f64 {
    let h = entry.hidden_size as f64;
    let kv = (entry.num_kv_heads * entry.head_dim) as f64;
    let q = (entry.num_heads * entry.head_dim) as f64;
    let norm: &[f64] = if entry.norm == Norm::Layernorm { &[h, h] } else { &[h] };
    let mut per_layer: Vec<f64> = [norm, norm].concat();
    if entry.qkv_bias {
        per_layer.extend([q, kv, kv]);
    }
    if entry.o_bias {
        per_layer.push(h);
    }
    if entry.mlp_bias {
        let i = entry.intermediate_size as f64;
        per_layer.extend(if entry.mlp == Mlp::Gated { vec![i, i, h] } else { vec![i, h] });
    }
    let small = |tensors: &[f64]| tensors.iter().filter(|n| **n < threshold).sum::<f64>();
    small(&per_layer) * entry.num_layers as f64 + small(norm)
}

/// Elements, with thousands separators.
fn elements(n: f64) -> String {
    crate::model::thousands(n.round() as u64)
}
