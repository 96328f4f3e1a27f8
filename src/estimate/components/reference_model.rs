//! The frozen reference model of DPO, KTO and GRPO: a second copy of the policy's weights,
//! held for the reference log-probabilities, with no gradients or optimizer states.

use super::{MemoryComponent, Run, State, Term};
use crate::estimate::NotEstimable;
use crate::schema::typed::{Precision, Preference};

pub(crate) struct ReferenceModel;

impl MemoryComponent for ReferenceModel {
    fn certainty(&self) -> super::Certainty {
        super::Certainty::States
    }

    fn id(&self) -> &'static str {
        "reference-model"
    }

    fn source(&self) -> &'static str {
        "TRL `DPOTrainer`/`KTOTrainer` (`create_reference_model` copies the policy unless a PEFT adapter can be disabled or \
         `precompute_ref_log_probs` is set), torchtune `full_dpo_distributed.py` (`_ref_model`, sharded like the policy; its FSDP root stays gathered: \
         `Framework::fsdp_reference_root_gathered`), \
         LLaMA-Factory `create_ref_model`; TRL `GRPOTrainer.__init__` (v0.14.0: `from_pretrained(model_id)` under ZeRO-3, \
         prepared by `prepare_deepspeed`, else `create_reference_model`, unless PEFT; v0.16.0 on: none when `beta == 0.0`, \
         `estimate::grpo`); the copy is loaded in the compute dtype"
    }

    fn terms(&self, run: &Run, _notes: &mut Vec<String>) -> Result<Vec<Term>, NotEstimable> {
        let Some(parameters) = run.parameters else { return Ok(vec![]) };
        let grpo = run.grpo.as_ref().is_some_and(|g| g.reference);
        if !grpo && !run.typed::<Preference>().is_some_and(Preference::reference_model) {
            return Ok(vec![]);
        }
        // An adapter run gets its reference by disabling the adapters: no copy.
        if run.parts.as_ref().is_some_and(|p| p.added || p.frozen > 0.0) {
            return Ok(vec![]);
        }
        // (TRL's `precompute_ref_log_probs: true` is read by its dialect: a paired objective, no reference.)
        // The reference model is loaded in the dtype the policy computes in: 16-bit under mixed
        // or pure 16-bit precision (it never needs fp32 master weights), fp32 otherwise.
        let (bytes, dtype) = match run.precision {
            Precision::Mixed(_) | Precision::True(_) | Precision::Fp8Mixed => (2.0, "16-bit"),
            Precision::Fp64 => (8.0, "fp64"),
            Precision::Fp32 | Precision::Auto => (4.0, "fp32"),
        };
        // Sharded as the policy's weights are (FSDP, ZeRO-3, tensor parallelism).
        let divisor = run.zero_divisor(State::Weights).max(run.shard());
        let text = if divisor > 1.0 {
            format!("parameters × {bytes} B ({dtype}, frozen) ÷ {divisor}")
        } else {
            format!("parameters × {bytes} B ({dtype}, frozen)")
        };
        let mut out = vec![Term::fixed("reference model", parameters * bytes / divisor, text)];
        // Its FSDP root unit (embeddings, output head) gathered for the whole step, besides the
        // shards, where the framework never reshards it (`Framework::fsdp_reference_root_gathered`
        // cites the recipe and FSDP2). Split over tensor parallelism as the policy's is.
        let gathered_root = run.resolved.detection.dialect.fsdp_reference_root_gathered();
        if let (Some(entry), Some(_), true) = (run.entry, gathered_root, run.fsdp && run.world() > 1) {
            let root = entry.vocab_size as f64 * entry.hidden_size as f64 * if entry.tie_embeddings { 1.0 } else { 2.0 };
            out.push(Term::fixed(
                "reference model's root unit (gathered)",
                root * bytes / run.tensor_parallel(),
                format!("embeddings and head × {bytes} B, unsharded: never resharded after its no-grad forward"),
            ));
        }
        Ok(out)
    }
}
