//! Gradients of the trainable parameters. FSDP divides them over the data-parallel world.

use super::{Live, MemoryComponent, Run, State, Term};
use crate::estimate::NotEstimable;
use crate::schema::Role;
use crate::schema::typed::Precision;

pub(crate) struct Gradients;

/// Bytes per trainable parameter for gradients: 4 B ("always fp32", HF
/// `model_memory_anatomy.md`, FACTS.md §4) except pure 16-bit (2 B) and fp64 (8 B).
pub(crate) fn bytes_per_parameter(precision: Precision) -> f64 {
    match precision {
        Precision::Fp64 => 8.0,
        Precision::True(_) => 2.0,
        Precision::Fp32 | Precision::Mixed(_) | Precision::Fp8Mixed | Precision::Auto => 4.0,
    }
}

impl MemoryComponent for Gradients {
    fn certainty(&self) -> super::Certainty {
        super::Certainty::States
    }

    fn id(&self) -> &'static str {
        "gradients"
    }

    fn source(&self) -> &'static str {
        "HF transformers docs model_memory_anatomy.md (FACTS.md §4)"
    }

    fn terms(&self, run: &Run, _notes: &mut Vec<String>) -> Result<Vec<Term>, NotEstimable> {
        let Some(trainable) = run.trainable().filter(|_| !run.zero()) else { return Ok(vec![]) };
        let per_param = bytes_per_parameter(run.precision);
        // Optimizer in the backward: each parameter is stepped and its gradient freed in
        // its post-accumulate-grad hook (PyTorch tutorial "How to save memory by fusing the
        // optimizer step into the backward pass"; the dialect that binds it cites its recipe), so at most
        // about one parameter's gradient is alive: the largest, the embedding or output head.
        if run.resolved.role(Role::OptimizerInBackward).and_then(|v| v.value.as_bool()) == Some(true)
            && let Some(entry) = run.entry
        {
            let largest = (entry.vocab_size * entry.hidden_size) as f64;
            return Ok(vec![Term::fixed(
                "gradients",
                largest.min(trainable) * per_param / run.zero_divisor(State::Gradients),
                format!("one parameter's gradient at a time (optimizer in the backward): largest {largest} × {per_param} B"),
            )]);
        }
        // Embeddings and head kept in fp32 (`fp32_embeddings`): their gradients are fp32 too.
        let fp32 = run.fp32_part();
        let text = if fp32 > 0.0 {
            format!("trainable parameters × {per_param} B, the embeddings and head × {} B", 2.0 * per_param)
        } else {
            format!("trainable parameters × {per_param} B")
        };
        let divisor = run.zero_divisor(State::Gradients);
        let sharded = (trainable + fp32) * per_param / divisor;
        let mut terms = vec![Term::fixed("gradients", sharded, text).live(Live::Gradients)];
        // FSDP accumulating with `no_sync` (accelerate's `Accelerator.accumulate` and Lightning
        // Fabric's `no_backward_sync` on every micro batch but the last, unless `sync_each_batch`)
        // "will accumulate the full model gradients (instead of gradient shards) until the eventual
        // sync" (PyTorch `torch/distributed/fsdp/fully_sharded_data_parallel.py` `no_sync`): in the
        // backward the gradients are whole on every GPU; the last micro batch reduce-scatters them
        // before the step. Counted only when the run accumulates (`Live::Accumulating`). With CPU
        // offload too: "the gradients will not be offloaded to CPU when inside the context manager".
        let sync_each_batch = run.resolved.role(Role::SyncEachBatch).and_then(|v| v.value.as_bool()) == Some(true);
        if run.fsdp && run.world() > 1 && !sync_each_batch {
            let whole = (trainable + fp32) * per_param / run.tensor_parallel();
            terms.push(
                Term::fixed(
                    "gradients (unsharded while accumulating)",
                    (whole - sharded).max(0.0),
                    format!("trainable parameters × {per_param} B × (1 − 1/{}): FSDP's no_sync keeps whole gradients until the last micro batch", run.world()),
                )
                .live(Live::Accumulating),
            );
        }
        Ok(terms)
    }
}
