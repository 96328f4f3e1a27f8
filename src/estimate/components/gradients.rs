//! Gradients of the trainable parameters. FSDP divides them over the data-parallel world.

use super::{Live, MemoryComponent, Run, State, Term};
use crate::estimate::NotEstimable;
use crate::schema::Role;
use crate::schema::typed::Precision;

pub struct Gradients;

/// Bytes per trainable parameter for gradients: 4 B ("always fp32", HF
/// `model_memory_anatomy.md`, FACTS.md §4) except pure 16-bit (2 B) and fp64 (8 B).
pub fn bytes_per_parameter(precision: Precision) -> f64 {
    match precision {
        Precision::Fp64 => 8.0,
        Precision::True(_) => 2.0,
        Precision::Fp32 | Precision::Mixed(_) | Precision::Fp8Mixed | Precision::Auto => 4.0,
    }
}

impl MemoryComponent for Gradients {
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
        Ok(vec![Term::fixed("gradients", (trainable + fp32) * per_param / run.zero_divisor(State::Gradients), text).live(Live::Gradients)])
    }
}
