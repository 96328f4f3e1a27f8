//! Model states under DeepSpeed ZeRO-1/2/3, by DeepSpeed's own estimator
//! (`estimate_zero2_model_states_mem_needs` / `estimate_zero3_model_states_mem_needs`,
//! reproduced exactly in `estimate::zero`, FACTS.md §2). It assumes mixed
//! precision with Adam: 2 B of 16-bit parameters + 18 B of states sharded over N.

use super::{MemoryComponent, Run, Term};
use crate::estimate::{NotEstimable, zero};
use crate::schema::Role;

pub(crate) struct ZeroStates;

impl MemoryComponent for ZeroStates {
    fn certainty(&self) -> super::Certainty {
        super::Certainty::States
    }

    fn id(&self) -> &'static str {
        "zero-states"
    }

    fn source(&self) -> &'static str {
        "DeepSpeed 38327e07 stage_1_and_2.py L2430-2447, stage3.py L3008-3044 (FACTS.md §2)"
    }

    fn terms(&self, run: &Run, notes: &mut Vec<String>) -> Result<Vec<Term>, NotEstimable> {
        let Some(parameters) = run.parameters.filter(|_| run.zero()) else { return Ok(vec![]) };
        let devices = run.world();
        let offload_optimizer = run.resolved.role(Role::OffloadOptimizer).is_some_and(|v| v.value.as_bool() == Some(true) || v.value.as_str() == Some("cpu"));
        // DeepSpeed's estimator default additional_buffer_factor.
        let buffer_factor = 1.5;
        let states = if run.zero_stage >= 3 {
            // The largest layer, when the config does not state it: the model's largest parameter
            // tensor, its embedding (vocabulary × hidden; DeepSpeed's `estimate_zero3_model_states_mem_needs_all_live`
            // takes the largest module's parameter count).
            let from_model = run.entry.map(|e| (e.vocab_size * e.hidden_size) as f64);
            let largest = run.number(Role::LargestLayerParameters).or(from_model).unwrap_or_else(|| {
                notes.push("largest layer unknown: ZeRO-3's gathered layer (4 B × largest layer) left out".into());
                0.0
            });
            let offload_params = run.resolved.role(Role::OffloadParams).and_then(|v| v.value.as_bool()).unwrap_or(false);
            zero::zero3(parameters, largest, devices, 1, offload_optimizer, offload_params, true, buffer_factor)
        } else {
            zero::zero2(parameters, devices, 1, offload_optimizer, buffer_factor)
        };
        Ok(vec![Term::fixed(
            format!("model states (ZeRO-{}, DeepSpeed estimator)", run.zero_stage),
            states.gpu as f64,
            format!("parameters, {devices} data-parallel GPUs, offload"),
        )])
    }
}
