//! Activations declared per sample (`memory.activation_bytes_per_sample`,
//! measured or worked out by the user): they replace the transformer formula.

use super::{MemoryComponent, Run, Term};
use crate::estimate::{NotEstimable, expr};

pub(crate) struct DeclaredActivations;

impl MemoryComponent for DeclaredActivations {
    fn certainty(&self) -> super::Certainty {
        super::Certainty::Declared
    }

    fn id(&self) -> &'static str {
        "declared-activations"
    }

    fn source(&self) -> &'static str {
        "the manifest or config (`memory.activation_bytes_per_sample`)"
    }

    fn covers_activations(&self) -> bool {
        true
    }

    fn terms(&self, run: &Run, _notes: &mut Vec<String>) -> Result<Vec<Term>, NotEstimable> {
        let Some(text) = &run.memory.activation_bytes_per_sample else { return Ok(vec![]) };
        let per_sample = expr::quantity(text).map_err(|e| NotEstimable::new(format!("memory.activation_bytes_per_sample `{text}`: {e}")))?;
        Ok(vec![Term::per_sample("activations", per_sample, format!("micro batch × {text}"))])
    }
}
