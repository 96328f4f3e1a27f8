//! Transformer activations from the model's shape, when none are declared.

use super::{Live, MemoryComponent, Run, Term};
use crate::estimate::NotEstimable;
use crate::model::Mlp;
use crate::schema::Role;
use crate::schema::typed::{ActivationCheckpointing, Attention, Precision};

/// Whether the residual stream is fp32 under autocast (see `terms`).
fn fp32_residual(run: &Run) -> bool {
    let mixed = matches!(run.precision, Precision::Mixed(_) | Precision::Fp8Mixed) && !run.fsdp && run.zero_stage == 0;
    // A full model's fp32 weights, a k-bit base whose embedding was cast to fp32, or a 16-bit
    // model whose embedding stayed fp32 (`fp32_embeddings`).
    (mixed && (!run.parts.as_ref().is_some_and(|p| p.added) || run.kbit_prepared())) || run.fp32_part() > 0.0
}

/// Bytes per layer and sample of the s×s attention matrices the backward keeps:
/// - eager (transformers `eager_attention_forward`: `softmax(..., dtype=torch.float32)`
///   saved for its backward, then `.to(query.dtype)` saved by the product with v): 4 + 2 B
///   per element in 16-bit runs, 4 B in fp32 (the cast is a no-op); the dropout mask and
///   output (1 + 2 B) only with attention dropout, which the Llama-style configs set to 0;
///   measured 6.1 B on TinyLlama bf16 (data/measured_h200.json, `…-eager` rows);
///   Gemma 2's attention softcapping adds the tanh's output (2 B; measured on Gemma-2-2B);
/// - SDPA in fp32 on a grouped-query model: no fused kernel takes it (FlashAttention needs
///   16-bit inputs; the memory-efficient kernel does not support grouped-query attention,
///   PyTorch `aten/src/ATen/native/transformers/cuda/sdp_utils.cpp`
///   `check_grouped_query_attention`), so PyTorch runs its math path, which keeps the fp32
///   softmax: 4 B (measured on TinyLlama fp32, `full-tl-fp32-s2048-m2-nockpt`);
/// - otherwise none (Korthikanti et al. 2022: FlashAttention removes the 5·a·s² term).
fn score_bytes(run: &Run, keeps_scores: bool, attention: &str, heads: f64, s: f64, notes: &mut Vec<String>) -> f64 {
    let fp32 = matches!(run.precision, Precision::Fp32 | Precision::Auto | Precision::Fp64);
    let elements = heads * s * s;
    if keeps_scores {
        // Gemma 2's attention softcapping (`attn_logit_softcapping`: scores / cap, tanh, × cap,
        // transformers `modeling_gemma2.py`) keeps the tanh's 16-bit output too.
        let softcap = if run.entry.is_some_and(|e| e.architecture == "gemma2") && !fp32 { 2.0 } else { 0.0 };
        return elements * (if fp32 { 4.0 * dtype_factor(run.precision) / 2.0 } else { 6.0 } + softcap);
    }
    let grouped = run.entry.is_some_and(|e| e.num_kv_heads < e.num_heads);
    if fp32 && attention == "sdpa" && grouped {
        notes.push("SDPA in fp32 on a grouped-query model runs PyTorch's math path (no fused kernel takes it): the s×s softmax is kept".into());
        return elements * 4.0 * dtype_factor(run.precision) / 2.0;
    }
    0.0
}

/// Korthikanti et al. 2022, Table 2 (FACTS.md §4), per micro-batch sample, bytes:
/// per layer s·h·(34 + 5·a·s/h) for 16-bit activations without parallelism (the s×s part
/// as `score_bytes` counts it, 6·a·s² for eager attention); SDPA and
/// flash attention do not keep the s×s scores (drop 5·a·s/h); selective recompute
/// keeps 34·s·h; full checkpointing keeps the layer input 2·s·h per layer plus one
/// layer's full activations while it is recomputed.
pub(crate) struct TransformerActivations;

/// Activation bytes relative to the 16-bit activations Korthikanti's formula
/// counts: fp32 ×2, fp64 ×4.
pub(crate) fn dtype_factor(precision: Precision) -> f64 {
    match precision {
        Precision::Fp64 => 4.0,
        Precision::Fp32 | Precision::Auto => 2.0,
        Precision::Mixed(_) | Precision::True(_) | Precision::Fp8Mixed => 1.0,
    }
}

/// The shape the formula needs: (sequence length, hidden size, layers).
pub(crate) fn shape(run: &Run) -> Option<(f64, f64, f64)> {
    Some((run.number(Role::SequenceLength)?, run.number(Role::HiddenSize)?, run.number(Role::Layers)?))
}

/// An attention or checkpointing value that is stated but not a known spelling.
fn unrecognised<T: crate::schema::typed::TypedRole>(run: &Run, role: Role, assumed: &str, notes: &mut Vec<String>) {
    if let Some(value) = run.resolved.role(role)
        && value.value.is_string()
        && run.typed::<T>().is_none()
    {
        notes.push(format!("{role} {} not recognised: {assumed} assumed", value.value));
    }
}

impl MemoryComponent for TransformerActivations {
    fn id(&self) -> &'static str {
        "transformer-activations"
    }

    fn source(&self) -> &'static str {
        "Korthikanti et al. 2022 (arXiv:2205.05198) Table 2; Megatron-LM theoretical_memory_usage.py (FACTS.md §4)"
    }

    fn covers_activations(&self) -> bool {
        true
    }

    fn terms(&self, run: &Run, notes: &mut Vec<String>) -> Result<Vec<Term>, NotEstimable> {
        if run.memory.activation_bytes_per_sample.is_some() {
            return Ok(vec![]);
        }
        let Some((s, h, layers)) = shape(run) else { return Ok(vec![]) };
        let heads = run.number(Role::Heads).unwrap_or(1.0);
        unrecognised::<Attention>(run, Role::Attention, "an implementation without s×s scores", notes);
        let (attention, keeps_scores) = match (run.typed::<Attention>(), run.resolved.role(Role::Attention).and_then(|v| v.value.as_str())) {
            (Some(attention), _) => (attention.name(), attention.keeps_score_matrices()),
            // Stated but not a known implementation: read as it was before the typed roles (noted above).
            (None, Some(raw)) => (raw, false),
            // Not stated: PyTorch's scaled_dot_product_attention, what transformers picks by
            // default since 4.36 (`_autoset_attn_implementation` → "sdpa") and what the other
            // PyTorch training frameworks call (their dialect files cite it).
            (None, None) => {
                notes.push("attention implementation not stated: PyTorch SDPA assumed (transformers' default since 4.36, and PyTorch training frameworks'), no s×s scores kept".into());
                ("sdpa", false)
            }
        };
        unrecognised::<ActivationCheckpointing>(run, Role::ActivationCheckpointing, "no checkpointing", notes);
        let checkpointing = run.typed::<ActivationCheckpointing>().unwrap_or(ActivationCheckpointing::None);
        let scores = score_bytes(run, keeps_scores, attention, heads, s, notes);
        let (layer, formula) = match run.entry {
            Some(entry) => (per_layer(entry, run, s), "saved tensors of the model's layer (norms, q/k/v, attention output, MLP)"),
            // Korthikanti's 34·s·h; the s×s matrices as `score_bytes` counts them.
            None => (s * h * 34.0, "s·h·34 + the attention matrices"),
        };
        let factor = dtype_factor(run.precision);
        // Autocast over fp32 weights (a full fine-tune in mixed precision without FSDP or
        // ZeRO, which hand the model 16-bit parameters): the embedding is not on autocast's
        // list of ops it casts, so the residual stream stays fp32 and each norm keeps fp32
        // tensors where a 16-bit model keeps 16-bit ones; checkpointed layer inputs are fp32.
        // Measured +10 B·s·h per layer (data/measured_h200.json: full-tl-bf16-mixed vs
        // bf16-pure, 10.1 B·s·h; full-gpt2 and full-q05 rows alike).
        //
        // A k-bit base prepared by PEFT (`kbit_prepared`: its norms cast to fp32) under adapters is
        // different: the norms' fp32 output makes each 4-bit MLP projection's output fp32
        // (bitsandbytes `Linear4bit.forward` returns `out.to(inp_dtype)`), so the MLP tensors
        // autograd keeps are fp32, twice their 16-bit bytes (measured on an H100 without
        // checkpointing: +33,862 B per token and layer on TinyLlama, 6·i = 33,792; +84,725 on
        // Llama-3.1-8B, 6·i = 86,016; data/measured_h100.json, data/measured_gpu_peaks.md round
        // three (a)). The 4-bit matmul itself keeps no input (bitsandbytes `autograd/_functions.py`
        // `MatMul4Bit.forward` @ 95f9af30: `ctx.tensors = (None, B)`, the packed weight only; the
        // measured QLoRA without preparation holds what LoRA on a 16-bit base holds, to the byte),
        // which `per_layer`'s frozen linears already assume. Checkpointed inputs are fp32 either way.
        let prepared_mlp = match run.entry {
            Some(entry) if run.kbit_prepared() => Some(frozen_mlp(entry, s)),
            _ => None,
        };
        let (residual, input_bytes) = match prepared_mlp {
            Some(mlp) => (mlp, 4.0),
            None if fp32_residual(run) => (10.0 * s * h, 4.0),
            None => (0.0, 2.0 * factor),
        };
        let full_layer = layer * factor + residual + scores;
        let (sequences, paired) = run.sequences_per_sample();
        let per_sample = |bytes: f64| bytes * sequences / run.tensor_parallel();
        let shape = format!("s={s}, h={h}, a={heads}, {attention}");
        Ok(match checkpointing {
            // The checkpointed inputs stay from the forward through the backward; one layer's
            // activations exist only while it is recomputed, after the loss's backward.
            ActivationCheckpointing::Full => vec![
                Term::per_sample(
                    "activations (checkpointed inputs)",
                    per_sample(layers * input_bytes * s * h),
                    format!("micro batch{paired} × {layers} layers × s·h × {input_bytes} B ({shape})"),
                ),
                Term::per_sample("activations (layer recomputed)", per_sample(full_layer), format!("micro batch{paired} × one layer × {formula} ({shape})"))
                    .live(Live::Recompute),
            ],
            // The kept inputs are in CPU memory; on the GPU only the layer being recomputed,
            // after the loss's backward, as under full checkpointing.
            ActivationCheckpointing::Offloaded => vec![
                Term::per_sample(
                    "activations (layer recomputed)",
                    per_sample(full_layer),
                    format!("micro batch{paired} × one layer × {formula} ({shape}; the checkpointed inputs offloaded to CPU memory)"),
                )
                .live(Live::Recompute),
            ],
            _ => {
                let bytes = match checkpointing {
                    ActivationCheckpointing::Selective => layers * (full_layer - scores),
                    _ => layers * full_layer,
                };
                let text = format!("micro batch{paired} × {layers} layers × {formula} ({shape}, checkpointing {})", checkpointing.name());
                vec![Term::per_sample("activations (transformer)", per_sample(bytes), text)]
            }
        })
    }
}

/// Bytes one layer keeps for the backward per sample, 16-bit activations, read
/// from the architecture (transformers `modeling_llama.py` and kin, which every
/// Llama-style model follows; the tensors autograd saves):
/// - each norm (two per layer, four in Gemma 2/3): its input upcast to fp32 (`LlamaRMSNorm`:
///   `hidden_states.to(torch.float32)`, 4 B) and its 16-bit output (2 B): 6·s·h each;
///   Gemma's also its fp32 normalised input (10 B);
/// - attention: the 16-bit q, k and v after RoPE that SDPA saves, its output, and the
///   output projection's input: 2·s·(3·q_dim + 2·kv_dim);
/// - q/k norms (`extra.qk_norm`: Qwen3, Gemma 3, OLMo 2/3, Apertus, Hunyuan, ...): an RMSNorm on
///   every element of the q and k projections' outputs, over head_dim or the whole projection
///   alike, whose fp32 upcast `pow` and the product with the reciprocal RMS save (4 B), as the
///   block norms' (transformers `modeling_qwen3.py` `Qwen3RMSNorm`, `modeling_olmo3.py`
///   `Olmo3RMSNorm`: `hidden_states.to(torch.float32)`); a trained norm weight's product also keeps
///   the normalised input, 16-bit where the norm casts before weighting (`Qwen3RMSNorm`:
///   `self.weight * hidden_states.to(input_dtype)`, 2 B), fp32 where it weights first
///   (`Olmo3RMSNorm`: `(self.weight * hidden_states).to(input_dtype)`; Gemma 3's
///   `output * (1.0 + self.weight.float())`; litgpt's own `RMSNorm` for every model,
///   `litgpt/model.py`: `(x_normed * weight.float()).to(dtype=dtype)`: 4 B). The RoPE that
///   follows keeps no copy of q or k (its products save `cos` and `sin`):
///   s·(q_dim + kv_dim)·(4, 6 or 8 B). Measured: Qwen3-1.7B LoRA r16 without checkpointing, 4 × 2,048
///   tokens (data/measured_h200.json `lora-q3-r16-all-bf16-mixed-s2048-m4-nockpt`), 45.88 GiB
///   allocated against 43.12 GiB estimated without them, 45.75 GiB with;
/// - MLP: gated — gate and up outputs, the activation's output and the product
///   (4 × 2·s·i); plain — the up projection's output and the activation's (2 × 2·s·i).
///   A MoE layer routes each token through `active` experts of its intermediate size.
/// - under a frozen base (LoRA, QLoRA) the frozen linears keep no input and the frozen
///   norms no 16-bit copy: norms 4·s·h each, attention 2·s·(2·q_dim + 2·kv_dim), MLP
///   6·s·i gated or 2·s·i plain (measured: Llama-3.1-8B LoRA r16 all-linear, 2 × 2,048
///   tokens, 33.28 GiB after the forward against 33.2 GiB so counted; data/measured_h200.json);
/// - LoRA: each adapted linear's dropout mask (1 B) and dropped input (2 B) that `lora_A`
///   saves (peft `tuners/lora/layer.py` `Linear.forward`): 3·s·d_in, for the tokens the linear
///   sees (a routed MoE expert: active ÷ experts of them); OFT the 16-bit input its rotation
///   saves (peft `tuners/oft/layer.py`): 2·s·d_in.
///
/// The eager attention's s×s matrices are added by the caller (`score_bytes`).
pub(crate) fn per_layer(e: &crate::model::Entry, run: &Run, s: f64) -> f64 {
    let h = e.hidden_size as f64;
    let (q, kv) = ((e.num_heads * e.head_dim) as f64, (e.num_kv_heads * e.head_dim) as f64);
    // A frozen base (adapter runs): autograd saves a matrix product's input only when its
    // weight needs a gradient (PyTorch `tools/autograd/derivatives.yaml` `mm`/`addmm`: `self`
    // is used only by the weight's gradient), and a frozen norm weight keeps no normalised copy.
    let frozen = run.parts.as_ref().is_some_and(|p| p.added);
    // Gemma's RMSNorm (`Gemma*RMSNorm`: `self._norm(x.float()) * (1.0 + self.weight.float())`)
    // also keeps its fp32 normalised input for the weight's gradient: 10 B·s·h trained.
    // Gemma 2 and 3 have four norms per layer (sandwich: `norms_per_layer`).
    let gemma = e.architecture.starts_with("gemma");
    let per_norm = match (frozen, gemma) {
        (true, _) => 4.0,
        (false, true) => 10.0,
        (false, false) => 6.0,
    };
    let norms = e.extra.norms_per_layer.unwrap_or(2) as f64 * per_norm * s * h;
    // q, k, v and the SDPA output it saves; the output projection's own input copy when trained.
    let attention = 2.0 * s * (if frozen { 2.0 } else { 3.0 } * q + 2.0 * kv);
    // The q/k norms' fp32 inputs, and a trained weight's normalised operand (see above).
    let weights_first = gemma || e.architecture.starts_with("olmo") || run.resolved.detection.dialect.name() == "litgpt";
    let per_qk_element = match (frozen, weights_first) {
        (true, _) => 4.0,
        (false, true) => 8.0,
        (false, false) => 6.0,
    };
    // Qwen3-Next / Qwen3.5: only the full-attention layers (one in `full_attention_interval`) have
    // them; their Gated DeltaNet layers normalise q and k inside the kernel
    // (`use_qk_l2norm_in_kernel=True`), which autograd does not see. `per_layer` is a layer's mean.
    let attention_share = match &e.extra.linear_attention {
        Some(la) if la.full_attention_interval > 0 => (e.num_layers / la.full_attention_interval) as f64 / e.num_layers.max(1) as f64,
        _ => 1.0,
    };
    let qk_norm = if e.extra.qk_norm.is_some() { per_qk_element * s * (q + kv) * attention_share } else { 0.0 };
    // Gated: gate and up outputs, the activation's output, and (trained down projection) the product.
    let (gated, plain) = if frozen { (6.0, 2.0) } else { (8.0, 4.0) };
    let mlp = mlp_bytes(e, s, gated, plain);
    let layers = e.num_layers.max(1) as f64;
    let lora: f64 = run.parts.as_ref().map_or(0.0, |p| {
        p.adapted
            .iter()
            .filter(|l| l.module != crate::schema::typed::Module::LmHead)
            .map(|l| p.saved_per_input * s * l.d_in * l.count * l.tokens / layers)
            .sum()
    });
    // bitsandbytes before 0.43.2 (`Run::bnb_keeps_4bit_input`): every 4-bit linear keeps its 16-bit
    // input, which a frozen linear otherwise does not: the attention norm's output (q, k, v share it),
    // the output projection's input, the MLP norm's output (gate and up share it) and the down
    // projection's input (a gated MLP's product, a plain one's activation output).
    let old_bnb = if run.bnb_keeps_4bit_input && frozen {
        let down_in = match (&e.extra.moe, e.mlp) {
            (Some(moe), _) => moe.active as f64 * moe.expert_intermediate_size as f64 + moe.shared_experts as f64 * moe.shared_intermediate_size as f64,
            _ => e.intermediate_size as f64,
        };
        2.0 * s * (2.0 * h + q + down_in)
    } else {
        0.0
    };
    norms + attention + qk_norm + mlp + lora + old_bnb
}

/// The 16-bit bytes a frozen layer's MLP keeps per sample (see `per_layer`).
fn frozen_mlp(e: &crate::model::Entry, s: f64) -> f64 {
    mlp_bytes(e, s, 6.0, 2.0)
}

/// The MLP's saved bytes per sample at `gated` / `plain` bytes per intermediate element.
fn mlp_bytes(e: &crate::model::Entry, s: f64, gated: f64, plain: f64) -> f64 {
    match (&e.extra.moe, e.mlp) {
        (Some(moe), _) => {
            moe.active as f64 * gated * s * moe.expert_intermediate_size as f64 + moe.shared_experts as f64 * gated * s * moe.shared_intermediate_size as f64
        }
        (None, Mlp::Gated) => gated * s * e.intermediate_size as f64,
        (None, Mlp::Plain) => plain * s * e.intermediate_size as f64,
    }
}
