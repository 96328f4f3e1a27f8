//! The weights: every parameter at the precision's bytes; with a quantized
//! frozen base (QLoRA), the base at its 8/4-bit size and the adapters at the
//! training precision. FSDP divides them over the data-parallel world.

use super::{Live, MemoryComponent, Run, State, Term};
use crate::estimate::NotEstimable;
use crate::schema::typed::{ActivationCheckpointing, Precision, Quantization};

pub(crate) struct Weights;

/// Bytes per parameter for weights. fp32 4 B; mixed precision 6 B (fp32 weights
/// and their 16-bit copies, HF `model_memory_anatomy.md`, FACTS.md §4); pure 16-bit 2 B;
/// fp8 with fp32 master weights 5 B (4 + 1 B fp8 copy: our inference from
/// Transformer Engine's design); fp64 8 B. `auto` never reaches here (`Run`
/// assumes fp32 and says so).
pub(crate) fn bytes_per_parameter(precision: Precision) -> f64 {
    match precision {
        Precision::Fp64 => 8.0,
        Precision::Fp32 | Precision::Auto => 4.0,
        Precision::Mixed(_) => 6.0,
        Precision::True(_) => 2.0,
        Precision::Fp8Mixed => 5.0,
    }
}

/// The precision as the weights see it, for the table.
pub(crate) fn describe(precision: Precision) -> &'static str {
    match precision {
        Precision::Fp64 => "fp64",
        Precision::Fp32 | Precision::Auto => "fp32",
        Precision::Mixed(_) => "mixed 16-bit: fp32 weights + 16-bit copies",
        Precision::True(_) => "pure 16-bit",
        Precision::Fp8Mixed => "fp8 with fp32 master weights",
    }
}

/// Bytes per stored parameter of a quantized base: int8 1 B (LLM.int8 weights,
/// Dettmers et al. 2022, arXiv:2208.07339); 4-bit 0.5 B plus one fp32 absmax per
/// block of 64 (0.0625 B: QLoRA, Dettmers et al. 2023, arXiv:2305.14314 §3 "32/64 =
/// 0.5 bits per parameter" without double quantization; bitsandbytes' default
/// blocksize 64). Double quantization, where a framework turns it on: the absmax constants
/// in 8 bits per block of 64 plus one fp32 second-level constant per 256 blocks, 8/64 +
/// 32/(64 · 256) = 0.127 bits per parameter (QLoRA §3, "reduces the memory footprint from
/// 0.5 bits per parameter to 0.127 bits"); unstated, it is not assumed: the larger figure.
/// AQLM 1x16: a 16-bit code per group of 8 weights, 2 bits per weight (arXiv:2401.06118 §3);
/// its codebooks (2^16 codes × 8 weights × fp16 = 1 MiB per linear, about 3 % of an 8B
/// model's block linears) and per-channel scales are not counted.
pub(crate) fn quantized_bytes(quantization: Quantization) -> f64 {
    match quantization {
        Quantization::Int8 => 1.0,
        Quantization::Int4 => 0.5 + 4.0 / 64.0,
        Quantization::Int4DoubleQuant => 0.5 + (8.0 / 64.0 + 32.0 / (64.0 * 256.0)) / 8.0,
        Quantization::Aqlm2Bit => 16.0 / 8.0 / 8.0,
    }
}

/// Bytes per parameter of a frozen base: as stored. With adapters the frameworks
/// load the base in the 16-bit compute dtype under mixed precision (they pass
/// `torch_dtype` to `from_pretrained`, each dialect file cites where; an adapter run never needs fp32
/// master copies of weights it does not update): 2 B; fp32 4 B; fp64 8 B. A frozen
/// part of a full model in mixed precision stays in fp32 (4 B).
pub(crate) fn frozen_bytes(precision: Precision, adapters: bool) -> f64 {
    match precision {
        Precision::Fp64 => 8.0,
        Precision::Fp32 | Precision::Auto => 4.0,
        Precision::True(_) => 2.0,
        Precision::Mixed(_) | Precision::Fp8Mixed => {
            if adapters {
                2.0
            } else {
                4.0
            }
        }
    }
}

/// Bytes per trained adapter parameter: PEFT keeps adapters in fp32 under mixed
/// precision (`autocast_adapter_dtype=True`, peft `tuners_utils.py`
/// `_cast_adapter_dtype`: bf16/fp16 adapter weights cast to float32): 4 B; in pure
/// 16-bit (`bf16-true`) they are 16-bit: 2 B.
pub(crate) fn adapter_bytes(precision: Precision) -> f64 {
    match precision {
        Precision::Fp64 => 8.0,
        Precision::True(_) => 2.0,
        Precision::Fp32 | Precision::Auto | Precision::Mixed(_) | Precision::Fp8Mixed => 4.0,
    }
}

impl MemoryComponent for Weights {
    fn certainty(&self) -> super::Certainty {
        super::Certainty::States
    }

    fn id(&self) -> &'static str {
        "weights"
    }

    fn source(&self) -> &'static str {
        "HF transformers docs model_memory_anatomy.md (FACTS.md §4); QLoRA arXiv:2305.14314 §3; peft tuners_utils.py _cast_adapter_dtype; bitsandbytes MatMul4Bit"
    }

    fn terms(&self, run: &Run, notes: &mut Vec<String>) -> Result<Vec<Term>, NotEstimable> {
        let Some(parts) = &run.parts else {
            notes.push("parameter count unknown: weights, gradients and optimizer states left out".into());
            return Ok(vec![]);
        };
        if run.zero() {
            return Ok(vec![]);
        }
        let divisor = run.zero_divisor(State::Weights);
        let quantization = run.typed::<Quantization>().or(parts.quantized.gt(&0.0).then_some(Quantization::Int4));
        let frozen_per = frozen_bytes(run.precision, parts.added);
        let mut out = Vec::new();
        if parts.added {
            // The rest of a quantized base (embeddings, norms, head): fp32 once prepared for k-bit training.
            let frozen_per = if run.kbit_prepared() { 4.0 } else { frozen_per };
            let quantized = parts.quantized * quantization.map_or(frozen_per, quantized_bytes);
            let frozen = quantized + (parts.frozen - parts.quantized) * frozen_per;
            let what = match quantization.filter(|_| parts.quantized > 0.0) {
                Some(q) => format!("base: block linears × {} B ({}), the rest × {frozen_per} B", quantized_bytes(q), q.name()),
                None => format!("base parameters × {frozen_per} B (frozen, stored 16-bit)"),
            };
            out.push(Term::fixed("weights (frozen base)", frozen / divisor, what));
            let per = adapter_bytes(run.precision);
            out.push(Term::fixed("weights (adapters)", parts.trainable * per / divisor, format!("adapter parameters × {per} B")));
            if parts.built > 0.0 {
                // OFT builds each adapted linear's rotation from its parameters every forward and
                // keeps it for the backward (`parts::oft`), in the adapters' dtype.
                out.push(
                    Term::fixed(
                        "OFT rotations (built each step)",
                        parts.built * per / run.tensor_parallel(),
                        format!("adapted linears' d_in × block size × {per} B"),
                    )
                    .live(Live::Backward),
                );
            }
            gathered(run, parts, frozen_per, quantization, &mut out);
            if parts.quantized > 0.0 {
                // bitsandbytes `MatMul4Bit.forward` dequantizes the weight to the compute dtype
                // (`F.dequantize_4bit(B, quant_state).to(A.dtype)`), one linear at a time.
                out.push(Term::fixed("dequantization buffer", parts.largest_linear * 2.0 / run.tensor_parallel(), "largest linear × 2 B (16-bit)"));
            }
            return Ok(out);
        }
        let per_param = bytes_per_parameter(run.precision);
        if let Some((copied, what)) = autocast_copies(run, parts, quantization) {
            let master = parts.trainable + parts.frozen;
            out.push(Term::fixed("weights", master * 4.0 / divisor, "parameters × 4 B (fp32; autocast makes the 16-bit copies)"));
            let per = per_param - 4.0;
            out.push(
                Term::fixed("16-bit weight copies (autocast)", copied * per / divisor, format!("{what} × {per} B, saved for the backward"))
                    .live(Live::Backward),
            );
            return Ok(out);
        }
        let weights = match quantization {
            // A quantized frozen share with a stated trainable fraction (no architecture to split it by).
            Some(q) => parts.quantized * quantized_bytes(q) + parts.trainable * per_param,
            None => parts.trainable * per_param + parts.frozen * frozen_bytes(run.precision, false),
        };
        // Embeddings and head kept in fp32 in a 16-bit model (`fp32_embeddings`): twice the bytes.
        let fp32 = run.fp32_part();
        let weights = weights + fp32 * per_param;
        let what = if fp32 > 0.0 {
            format!("parameters × {per_param} B ({}), the embeddings and head × {} B (fp32)", describe(run.precision), 2.0 * per_param)
        } else {
            format!("parameters × {per_param} B ({})", describe(run.precision))
        };
        out.push(Term::fixed("weights", weights / divisor, what));
        gathered(run, parts, frozen_bytes(run.precision, true), quantization, &mut out);
        Ok(out)
    }
}

/// Autocast's 16-bit copies of fp32 weights (a full fine-tune in mixed precision, not
/// under FSDP, whose `MixedPrecision(param_dtype)` gathers 16-bit parameters instead):
/// `torch.autocast` casts each weight as an op uses it and the matrix product saves the
/// copy for its backward, so the copies are alive from the forward to the backward
/// (`Live::Backward`), not for the whole step. The embedding lookup is not on autocast's
/// list of cast ops (an untied input embedding is not copied). Under full checkpointing
/// the blocks' saved tensors are dropped and recomputed: only the output head's copy
/// stays. Which parameters, and the words for the table.
fn autocast_copies(run: &Run, parts: &crate::estimate::parts::Parts, quantization: Option<Quantization>) -> Option<(f64, String)> {
    if !matches!(run.precision, Precision::Mixed(_) | Precision::Fp8Mixed) || run.fsdp || quantization.is_some() {
        return None;
    }
    let all = parts.trainable + parts.frozen;
    let head = run.entry.map(|e| (e.vocab_size * e.hidden_size) as f64);
    let checkpointed = matches!(run.typed::<ActivationCheckpointing>(), Some(ActivationCheckpointing::Full | ActivationCheckpointing::Offloaded));
    Some(match (checkpointed, head, run.entry) {
        (true, Some(head), _) => (head.min(all), "the output head (blocks checkpointed)".into()),
        (false, Some(head), Some(e)) if !e.tie_embeddings => ((all - head).max(0.0), "parameters but the input embedding".into()),
        _ => (all, "parameters".into()),
    })
}

/// FSDP's unsharded parameters: the root unit (embeddings, output head, final norm)
/// stays gathered from the forward through the backward, and one transformer block is
/// gathered while the next is prefetched (PyTorch FSDP `FULL_SHARD` with the block as
/// the wrapping unit: two blocks), at the compute dtype (FSDP `MixedPrecision(param_dtype)`),
/// quantized blocks at their storage size. Two, in the backward, read in torch's source:
/// FSDP1's `_pre_backward_hook` unshards the block and then, under the default
/// `BackwardPrefetch.BACKWARD_PRE`, `_prefetch_handles(.., _PrefetchMode.BACKWARD)` all-gathers
/// the next one before the block's gradients are computed (pytorch/pytorch@00ae0bc9
/// `torch/distributed/fsdp/_runtime_utils.py`); FSDP2's `FSDPParamGroup.pre_backward` does
/// `unshard()`, `wait_for_unshard()`, then `_backward_prefetch()` of the previous module in
/// post-forward order (pytorch/pytorch@62a45b6f `torch/distributed/fsdp/_fully_shard/_fsdp_param_group.py`).
/// Every block of the model counts, trained or frozen: a full fine-tune's blocks are
/// gathered as a frozen base's are (`parts.trainable` is the model's own parameters
/// there, the adapters beside it otherwise).
fn gathered(run: &Run, parts: &crate::estimate::parts::Parts, per: f64, quantization: Option<Quantization>, out: &mut Vec<Term>) {
    // Sharded over more than one GPU, or offloaded to the CPU (`CPUOffload(offload_params=True)`
    // copies each unit to the GPU for its forward and backward, whatever the world).
    let offloaded = run.zero_divisor(super::State::Weights).is_infinite();
    let (Some(entry), true) = (run.entry, run.fsdp && (run.world() > 1 || offloaded)) else { return };
    let h = entry.hidden_size as f64;
    let root = entry.vocab_size as f64 * h * if entry.tie_embeddings { 1.0 } else { 2.0 };
    let total = parts.frozen + parts.trainable;
    let layers = entry.num_layers.max(1) as f64;
    let block = ((total - root) / layers).max(0.0);
    let block_bytes = match quantization.filter(|_| parts.quantized > 0.0) {
        Some(q) => (parts.quantized / layers) * quantized_bytes(q) + (block - parts.quantized / layers).max(0.0) * per,
        None => block * per,
    };
    let bytes = (root * per + 2.0 * block_bytes) / run.tensor_parallel();
    out.push(Term::fixed("FSDP gathered parameters", bytes, format!("root unit (embeddings, head) + 2 blocks × {per} B, unsharded")));
}
