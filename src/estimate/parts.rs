//! What the parameters of a run are: which are trained, which are frozen, which
//! are stored quantized, and the linears LoRA adds to. Read once per run from
//! the model's architecture (`crate::model::Entry`) and the adapter roles, and
//! shared by the weights, gradients, optimizer-state and activation components.

use crate::model::{Entry, Mlp};
use crate::schema::typed::{Adapter, LoraTargets, Module};

/// One kind of linear layer: `count` matrices of `d_in` × `d_out`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Linear {
    pub module: Module,
    pub d_in: f64,
    pub d_out: f64,
    pub count: f64,
    /// The share of the tokens each instance sees: 1, or for a routed MoE expert the active
    /// experts over the experts (the router sends each token to `active` of them).
    pub tokens: f64,
}

impl Linear {
    pub(crate) fn parameters(&self) -> f64 {
        self.d_in * self.d_out * self.count
    }
}

/// The linears of an architecture, by module (the shapes of transformers'
/// modeling files: q (h → heads·head_dim), k and v (h → kv_heads·head_dim),
/// o (heads·head_dim → h), gate and up (h → intermediate), down (intermediate → h),
/// the output head (h → vocabulary)). MoE experts count once per expert; T5's
/// decoder has a second (cross-) attention per layer. MLA and linear-attention
/// layers are priced as the dense attention of the same heads (the caller says so).
pub(crate) fn linears(e: &Entry) -> Vec<Linear> {
    let h = e.hidden_size as f64;
    let (q, kv) = ((e.num_heads * e.head_dim) as f64, (e.num_kv_heads * e.head_dim) as f64);
    let layers = e.num_layers as f64;
    let (attention_layers, mlp_layers) = match &e.extra.encoder_decoder {
        Some(ed) => ((ed.encoder_layers + 2 * ed.decoder_layers) as f64, (ed.encoder_layers + ed.decoder_layers) as f64),
        None => (layers, layers),
    };
    let mut out = vec![
        Linear { module: Module::Q, d_in: h, d_out: q, count: attention_layers, tokens: 1.0 },
        Linear { module: Module::K, d_in: h, d_out: kv, count: attention_layers, tokens: 1.0 },
        Linear { module: Module::V, d_in: h, d_out: kv, count: attention_layers, tokens: 1.0 },
        Linear { module: Module::O, d_in: q, d_out: h, count: attention_layers, tokens: 1.0 },
    ];
    let mut mlp = |i: f64, count: f64, gated: bool, tokens: f64| {
        if gated {
            out.push(Linear { module: Module::Gate, d_in: h, d_out: i, count, tokens });
        }
        out.push(Linear { module: Module::Up, d_in: h, d_out: i, count, tokens });
        out.push(Linear { module: Module::Down, d_in: i, d_out: h, count, tokens });
    };
    let gated = e.mlp == Mlp::Gated;
    match &e.extra.moe {
        Some(moe) => {
            let dense = moe.dense_layers as f64;
            if dense > 0.0 {
                mlp(e.intermediate_size as f64, dense, gated, 1.0);
            }
            let routed = moe.active as f64 / (moe.experts as f64).max(1.0);
            mlp(moe.expert_intermediate_size as f64, (mlp_layers - dense) * moe.experts as f64, true, routed);
            if moe.shared_experts > 0 {
                mlp(moe.shared_intermediate_size as f64, (mlp_layers - dense) * moe.shared_experts as f64, true, 1.0);
            }
        }
        None => mlp(e.intermediate_size as f64, mlp_layers, gated, 1.0),
    }
    out.push(Linear { module: Module::LmHead, d_in: h, d_out: e.vocab_size as f64, count: 1.0, tokens: 1.0 });
    out
}

/// How a run's parameters split.
#[derive(Clone, Debug, PartialEq)]
pub struct Parts {
    /// Parameters trained (with gradients and optimizer states).
    pub trainable: f64,
    /// Parameters held frozen (no gradient, no optimizer state).
    pub frozen: f64,
    /// Of the frozen ones, those stored quantized (the block linears of a QLoRA base).
    pub quantized: f64,
    /// The largest single linear of the base, in parameters (QLoRA dequantizes one at a time).
    pub largest_linear: f64,
    /// The linears that carry an adapter (for their activations).
    pub adapted: Vec<Linear>,
    /// Whether the trained parameters are adapters added to the base (LoRA, DoRA, OFT),
    /// kept in their own dtype, rather than part of the base.
    pub added: bool,
    /// Bytes per token and input feature an adapted linear's adapter saves for the backward
    /// (LoRA 3: its dropout mask and dropped input; OFT 2: the input it rotates).
    pub saved_per_input: f64,
    /// Elements of the matrices the adapters build from their parameters each step and keep
    /// for the backward (OFT's rotations: d_in × b per adapted linear); 0 for LoRA.
    pub built: f64,
}

/// PEFT `LoraConfig.r` default (peft `tuners/lora/config.py`).
pub(crate) const DEFAULT_RANK: f64 = 8.0;

/// A full fine-tune, or one that trains the stated share of the parameters.
pub(crate) fn whole(parameters: f64, trainable_fraction: f64) -> Parts {
    let trainable = parameters * trainable_fraction;
    Parts { trainable, frozen: parameters - trainable, quantized: 0.0, largest_linear: 0.0, adapted: vec![], added: false, saved_per_input: 0.0, built: 0.0 }
}

/// LoRA/QLoRA/DoRA on a known architecture: the adapters' r·(d_in + d_out) per adapted
/// linear (Hu et al. 2021, arXiv:2106.09685 §4.1; DoRA adds a magnitude vector of
/// d_out per adapted linear, Liu et al. 2024, arXiv:2402.09353 §3), the base frozen;
/// with QLoRA the block linears stored 4-bit and the embeddings, norms and
/// output head kept in 16 bits (transformers `get_keys_to_not_convert` leaves
/// the output embedding unquantized; bitsandbytes replaces `nn.Linear` only).
pub(crate) fn adapters(e: &Entry, parameters: f64, adapter: Adapter, rank: f64, targets: &LoraTargets, quantized_base: bool) -> Parts {
    let dora = adapter == Adapter::Dora;
    let trainable = |l: &Linear| (rank * (l.d_in + l.d_out) + if dora { l.d_out } else { 0.0 }) * l.count;
    on_frozen_base(e, parameters, targets, quantized_base, trainable, |_| 0.0, 3.0)
}

/// OFT on a known architecture (PEFT `tuners/oft/layer.py`): each adapted linear rotates its
/// input with a block-diagonal orthogonal matrix of d_in ÷ b blocks, each the Cayley transform
/// of a skew-symmetric b × b block stored as its b(b−1)/2 upper entries
/// (`OFTRotationModule.weight`: `(r, n_elements)`, `n_elements = b(b−1)/2`): d_in·(b−1)/2
/// trainable parameters per linear. The forward saves the input it rotates (2 B per feature,
/// 16-bit) and the rotation it built (d_in × b elements) for the backward.
pub(crate) fn oft(e: &Entry, parameters: f64, block: f64, targets: &LoraTargets, quantized_base: bool) -> Parts {
    let trainable = |l: &Linear| l.d_in * (block - 1.0) / 2.0 * l.count;
    on_frozen_base(e, parameters, targets, quantized_base, trainable, |l| l.d_in * block * l.count, 2.0)
}

/// Adapters on the targeted linears of a frozen base: `trainable` and `built` per adapted
/// linear, and the bytes per input feature each saves (`Parts::saved_per_input`).
fn on_frozen_base(
    e: &Entry,
    parameters: f64,
    targets: &LoraTargets,
    quantized_base: bool,
    trainable: impl Fn(&Linear) -> f64,
    built: impl Fn(&Linear) -> f64,
    saved_per_input: f64,
) -> Parts {
    let all = linears(e);
    let adapted: Vec<Linear> = all.iter().filter(|l| targets.0.contains(&l.module)).copied().collect();
    let block: f64 = all.iter().filter(|l| l.module != Module::LmHead).map(Linear::parameters).sum();
    let largest_linear = all.iter().filter(|l| l.module != Module::LmHead).map(|l| l.d_in * l.d_out).fold(0.0, f64::max);
    Parts {
        trainable: adapted.iter().map(&trainable).sum(),
        frozen: parameters,
        quantized: if quantized_base { block.min(parameters) } else { 0.0 },
        largest_linear,
        built: adapted.iter().map(&built).sum(),
        adapted,
        added: true,
        saved_per_input,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: &str) -> Entry {
        crate::model::lookup(id).unwrap_or_else(|| panic!("{id} in the catalog")).0.clone()
    }

    /// A routed expert sees `active` of every `experts` tokens (Qwen1.5-MoE-A2.7B: 4 of 60); the
    /// shared expert and the attention see them all (the LoRA activations scale with it).
    #[test]
    fn routed_experts_see_their_share_of_the_tokens() {
        let all = linears(&entry("Qwen/Qwen1.5-MoE-A2.7B"));
        let share = |module: Module, d_out_or_in: f64| {
            all.iter().filter(|l| l.module == module && (l.d_out == d_out_or_in || l.d_in == d_out_or_in)).map(|l| l.tokens).collect::<Vec<_>>()
        };
        assert_eq!(share(Module::Gate, 1408.0), [4.0 / 60.0]);
        assert_eq!(share(Module::Gate, 5632.0), [1.0]);
        assert_eq!(share(Module::Q, 2048.0), [1.0]);
    }

    /// PEFT's `print_trainable_parameters` for Llama-2-7B, r = 8 on q_proj and v_proj:
    /// "trainable params: 4,194,304" (PEFT README quicktour / `docs/source/quicktour.md`).
    #[test]
    fn lora_parameters_as_peft_counts_them() {
        let e = entry("meta-llama/Llama-2-7b-hf");
        let parts = adapters(&e, e.parameters as f64, Adapter::Lora, 8.0, &"q_proj,v_proj".parse().unwrap(), false);
        assert_eq!(parts.trainable, 4_194_304.0);
        assert_eq!(parts.frozen, 6_738_415_616.0);
        // all-linear r16 on Llama-3.1-8B: 32 layers × 16 × (q 4096+4096, k 4096+1024, v 4096+1024,
        // o 4096+4096, gate/up 4096+14336 ×2, down 14336+4096) = 41,943,040.
        let e = entry("meta-llama/Llama-3.1-8B");
        let parts = adapters(&e, e.parameters as f64, Adapter::Qlora, 16.0, &"all-linear".parse().unwrap(), true);
        assert_eq!(parts.trainable, 41_943_040.0);
        // Everything but the embeddings, the head and the norms is quantized.
        let embeddings_and_head = 2.0 * 128_256.0 * 4096.0;
        let norms = (32.0 * 2.0 + 1.0) * 4096.0;
        assert_eq!(parts.quantized, e.parameters as f64 - embeddings_and_head - norms);
    }

    /// OFT with block size 32 on every linear of Llama-3-8B: d_in·31/2 per linear, 32 layers ×
    /// (q, k, v, o, gate, up: 4096 each; down: 14336) = 32 × 15.5 × (6 × 4096 + 14336) = 19,300,352.
    #[test]
    fn oft_parameters_as_peft_counts_them() {
        let e = entry("meta-llama/Meta-Llama-3-8B");
        let parts = oft(&e, e.parameters as f64, 32.0, &"all-linear".parse().unwrap(), false);
        assert_eq!(parts.trainable, 32.0 * 15.5 * (6.0 * 4096.0 + 14336.0));
        assert_eq!(parts.trainable, 19_300_352.0);
        assert_eq!(parts.built, 32.0 * 32.0 * (6.0 * 4096.0 + 14336.0));
    }
}
