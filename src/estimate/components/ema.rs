//! An exponential-moving-average copy of the weights.

use super::{MemoryComponent, Run, Term};
use crate::estimate::NotEstimable;
use crate::schema::Role;

pub(crate) struct Ema;

/// One fp32 copy of the parameters, 4 B each (FACTS.md §4, marked there as inference).
const BYTES_PER_PARAMETER: f64 = 4.0;

impl MemoryComponent for Ema {
    fn certainty(&self) -> super::Certainty {
        super::Certainty::States
    }

    fn id(&self) -> &'static str {
        "ema"
    }

    fn source(&self) -> &'static str {
        "FACTS.md §4 (EMA: one fp32 copy of the parameters, inference)"
    }

    fn terms(&self, run: &Run, _notes: &mut Vec<String>) -> Result<Vec<Term>, NotEstimable> {
        let Some(parameters) = run.parameters else { return Ok(vec![]) };
        if run.resolved.role(Role::Ema).and_then(|v| v.value.as_bool()) != Some(true) {
            return Ok(vec![]);
        }
        Ok(vec![Term::fixed("EMA copy", parameters * BYTES_PER_PARAMETER, "parameters × 4 B")])
    }
}
