//! The logits and the loss's copies of them, next to the transformer activations.

use super::{Live, MemoryComponent, Run, Term, transformer_activations};
use crate::estimate::NotEstimable;
use crate::schema::Role;
use crate::schema::typed::{Logits as Loss, Precision};

pub(crate) struct Logits;

/// Bytes per element of micro batch × sequence × vocabulary alive at the loss's
/// backward, by how the loss holds the logits:
/// - upcast (transformers `loss_utils.py` `ForCausalLMLoss`: `logits = logits.float()`,
///   then `cross_entropy`): at the loss's backward, the saved fp32 log-softmax (4 B), its
///   gradient and the input's gradient (4 + 4 B): 12 B. The model's own logits (16-bit)
///   and the fp32 copy are saved by no backward and are freed once the trainer keeps only
///   the loss (HF Trainer `compute_loss` returns `outputs["loss"]`); at the forward's
///   log-softmax 2 + 4 + 4 = 10 B are alive, less. Measured 12 B (data/measured_h200.json:
///   full-l1b-bf16-mixed-s2048-m4-ckpt, whose peak is the loss's backward); fp64 24 B;
/// - chunked (a chunked-output cross-entropy upcasts each 16-bit chunk and saves
///   its fp32 log-softmax; the dialects that bind `chunked` cite their loss): the 16-bit
///   chunks (2 B) and the saved log-softmax (4 B): 6 B, gradients one chunk at a time.
///   Compiled (role `compile`: torchtune `training/_compile.py` `compile_loss` compiles
///   `CEWithChunkedOutputLoss.compute_cross_entropy`, the upcast and the cross-entropy in one
///   graph, "The CE and upcasting have to be compiled together"), the fused graph keeps its
///   16-bit input for the backward and no fp32 copy: 2 B (torchtune README 'Optimization flags',
///   Llama-3.2-3B LoRA/QLoRA rows: 8.5 / 4.6 GiB, which 6 B cannot fit);
/// - fused (Liger `LigerFusedLinearCrossEntropyLoss`, `cut_cross_entropy`): the logits are
///   never whole: 0 B (a chunk's worth is left out).
pub(crate) fn bytes_per_element(logits: Loss, precision: Precision, compiled: bool) -> f64 {
    match logits {
        Loss::Upcast => match precision {
            Precision::Fp64 => 24.0,
            Precision::Fp32 | Precision::Auto | Precision::Mixed(_) | Precision::True(_) | Precision::Fp8Mixed => 12.0,
        },
        Loss::Chunked if compiled => 2.0,
        Loss::Chunked => 6.0,
        Loss::Fused => 0.0,
    }
}

impl MemoryComponent for Logits {
    fn id(&self) -> &'static str {
        "logits"
    }

    fn source(&self) -> &'static str {
        "transformers loss/loss_utils.py ForCausalLMLoss; the chunked and fused losses the dialects bind (cited there); Liger-Kernel fused_linear_cross_entropy"
    }

    fn terms(&self, run: &Run, notes: &mut Vec<String>) -> Result<Vec<Term>, NotEstimable> {
        // Only with the transformer formula: declared activations include what they include.
        if run.memory.activation_bytes_per_sample.is_some() || transformer_activations::shape(run).is_none() {
            return Ok(vec![]);
        }
        let (Some(s), Some(v)) = (run.number(Role::SequenceLength), run.number(Role::VocabSize)) else { return Ok(vec![]) };
        // GRPO's own log-probabilities, unless a fused loss never makes the logits whole (Liger's).
        if let Some(grpo) = run.grpo.as_ref().filter(|_| run.typed::<Loss>() != Some(Loss::Fused)) {
            return Ok(vec![grpo_logits(run, grpo, s, v)]);
        }
        let logits = run.typed::<Loss>().unwrap_or_else(|| {
            notes.push("loss implementation not stated: logits upcast to fp32 assumed (transformers' default)".into());
            Loss::Upcast
        });
        // Gemma 2's final logit softcapping (`final_logit_softcapping`: logits / cap, tanh, × cap,
        // transformers `modeling_gemma2.py` `Gemma2ForCausalLM.forward`) keeps the tanh's 16-bit
        // output for the backward: 2 B more per element where the logits are whole
        // (measured on Gemma-2-2B, data/measured_h200.json).
        let softcap = if logits != Loss::Fused && run.entry.is_some_and(|e| e.architecture == "gemma2") { 2.0 } else { 0.0 };
        let compiled = run.resolved.role(Role::Compile).and_then(|v| v.value.as_bool()) == Some(true);
        let per = bytes_per_element(logits, run.precision, compiled) + softcap;
        // Tensor parallelism splits the vocabulary (Megatron's vocab-parallel cross-entropy).
        let (sequences, paired) = run.sequences_per_sample();
        let bytes = sequences * s * v * per / run.tensor_parallel();
        Ok(vec![
            Term::per_sample(
                "logits",
                bytes,
                format!(
                    "micro batch{paired} × {s} × vocabulary {v} × {per} B ({}{})",
                    logits.name(),
                    if compiled && logits == Loss::Chunked { ", compiled" } else { "" }
                ),
            )
            .live(Live::Loss),
        ])
    }
}

/// TRL's GRPO computes its own loss from per-token log-probabilities, never transformers'
/// upcast cross-entropy: the policy's forward keeps the logits of the completion tokens only
/// (`get_per_token_logps` @v0.14.0: `model(input_ids, num_logits_to_keep=completion + 1)`;
/// `_get_per_token_logps(..., logits_to_keep)` since 0.15), in the model's 16-bit dtype, and
/// takes their log-softmax row by row (`logits_row.log_softmax(dim=-1)`, then `gather`;
/// `selective_log_softmax` since 0.16, the same per row for 16-bit logits). At the loss's
/// backward the saved 16-bit log-softmax and the logits' 16-bit gradient are alive: 2 × 2 B per
/// element (2 × 4 B in fp32). The tokens are at most the completion's, and no more than the
/// sequence (`MemoryModel`'s floor shortens it).
fn grpo_logits(run: &Run, grpo: &crate::estimate::grpo::Grpo, s: f64, v: f64) -> Term {
    let element = match run.precision {
        Precision::Mixed(_) | Precision::True(_) | Precision::Fp8Mixed => 2.0,
        Precision::Fp64 => 8.0,
        Precision::Fp32 | Precision::Auto => 4.0,
    };
    let per = 2.0 * element;
    let tokens = grpo.completion.min(s) + 1.0;
    let (sequences, paired) = run.sequences_per_sample();
    Term::per_sample(
        "logits",
        sequences * tokens * v * per / run.tensor_parallel(),
        format!("micro batch{paired} × {tokens} completion tokens × vocabulary {v} × {per} B (GRPO's log-softmax per row and the logits' gradient)"),
    )
    .live(Live::Loss)
}
