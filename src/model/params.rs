//! The exact parameter count of an architecture: what
//! `sum(p.numel() for p in model.parameters())` returns for the Hugging Face
//! `*ForCausalLM` / `BertModel` / `T5ForConditionalGeneration` class. A port of
//! `data/param_count.py`; `data/README.md` ("Parameter formula") cites the
//! modeling file behind every term. The arithmetic is checked (a local
//! config.json can hold any number): an overflow gives `None`.

use super::{Component, ComponentKind, Entry, Mlp, Norm, Part, QkNorm};
use std::ops::{Add, Mul, Sub};

/// A checked count: `None` once any step overflows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct N(Option<u128>);

fn n(value: u64) -> N {
    N(Some(u128::from(value)))
}

const ZERO: N = N(Some(0));

impl Add for N {
    type Output = N;
    fn add(self, other: N) -> N {
        N(self.0.zip(other.0).and_then(|(a, b)| a.checked_add(b)))
    }
}

impl Mul for N {
    type Output = N;
    fn mul(self, other: N) -> N {
        N(self.0.zip(other.0).and_then(|(a, b)| a.checked_mul(b)))
    }
}

impl Sub for N {
    type Output = N;
    fn sub(self, other: N) -> N {
        N(self.0.zip(other.0).and_then(|(a, b)| a.checked_sub(b)))
    }
}

fn when(condition: bool, value: N) -> N {
    if condition { value } else { ZERO }
}

/// One norm of width `h`: RMSNorm has a weight, LayerNorm a weight and a bias
/// (unless the model's LayerNorm has no bias, `extra.norm_bias: false`).
fn norm(e: &Entry, h: N) -> N {
    match e.norm {
        Norm::Rmsnorm => h,
        Norm::Layernorm if e.extra.norm_bias == Some(false) => h,
        Norm::Layernorm => h * n(2),
    }
}

/// gate, up, down projections [+ their biases].
fn gated(h: N, i: N, bias: bool) -> N {
    n(3) * h * i + when(bias, n(2) * i + h)
}

/// fc1, fc2 [+ their biases].
fn plain(h: N, i: N, bias: bool) -> N {
    n(2) * h * i + when(bias, i + h)
}

/// The exact parameter count of an entry; `None` when it does not fit in 64 bits.
pub(crate) fn count(e: &Entry) -> Option<u64> {
    total(e).0.and_then(|v| u64::try_from(v).ok())
}

/// A fusion model's parameters by part (`super::Part`): the encoder's own, the fusion
/// parameters and the decoder's own (the top-level fields and any `decoder` component).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FusionParts {
    pub encoder: u64,
    pub fusion: u64,
    pub decoder: u64,
}

/// The entry's parameters by part, where every component says its part (`None` for a model
/// without components, one with an untagged component, or a count that overflows).
pub(crate) fn fusion_parts(e: &Entry) -> Option<FusionParts> {
    let components = &e.extra.components;
    if components.is_empty() || components.iter().any(|c| c.part.is_none()) {
        return None;
    }
    let sum = |part: Part| components.iter().filter(|c| c.part == Some(part)).fold(ZERO, |acc, c| acc + component(e, c));
    let as_u64 = |v: N| v.0.and_then(|v| u64::try_from(v).ok());
    let (encoder, fusion) = (sum(Part::Encoder), sum(Part::Fusion));
    Some(FusionParts { encoder: as_u64(encoder)?, fusion: as_u64(fusion)?, decoder: as_u64(total(e) - encoder - fusion)? })
}

/// Parameters used per token: the count with the routed experts a token does
/// not use taken out (equals `count` for a dense model).
#[cfg(test)]
pub(crate) fn active(e: &Entry) -> Option<u64> {
    let Some(moe) = &e.extra.moe else { return count(e) };
    let h = n(e.hidden_size);
    let unused = n(moe.experts) - n(moe.active);
    let inactive = match &e.extra.hybrid_pattern {
        Some(hp) => n(hp.pattern.matches('E').count() as u64) * unused * plain(h, n(moe.expert_intermediate_size), false),
        None => (n(e.num_layers) - n(moe.dense_layers)) * unused * gated(h, n(moe.expert_intermediate_size), moe.expert_bias),
    };
    (total(e) - inactive).0.and_then(|v| u64::try_from(v).ok())
}

/// The attention of one decoder layer (q, k, v, o [+ biases, q/k norms, sinks]).
fn attention(e: &Entry) -> N {
    let x = &e.extra;
    let (h, nh, nkv, hd) = (n(e.hidden_size), n(e.num_heads), n(e.num_kv_heads), n(e.head_dim));
    let (q, kv) = (nh * hd, nkv * hd);
    let mut attn = match &x.mla {
        // DeepSeek MLA (transformers modeling_deepseek_v3: q_a/q_b or q_proj, kv_a_proj_with_mqa, kv_b, o_proj).
        Some(mla) => {
            let qk = n(mla.qk_nope_head_dim) + n(mla.qk_rope_head_dim);
            let rank = n(mla.q_lora_rank);
            let q_part = if mla.q_lora_rank > 0 { h * rank + rank + rank * nh * qk } else { h * nh * qk };
            q_part
                + h * (n(mla.kv_lora_rank) + n(mla.qk_rope_head_dim))
                + n(mla.kv_lora_rank)
                + n(mla.kv_lora_rank) * nh * (n(mla.qk_nope_head_dim) + n(mla.v_head_dim))
                + nh * n(mla.v_head_dim) * h
        }
        None => h * q + n(2) * h * kv + q * h,
    };
    // Qwen3-Next / Qwen3.5: q_proj also emits an output gate.
    attn = attn + when(x.attn_output_gate, h * q);
    attn = attn + when(e.qkv_bias, q + n(2) * kv) + when(e.o_bias, h);
    attn = attn
        + match x.qk_norm {
            Some(QkNorm::Head) => n(2) * hd,
            Some(QkNorm::Full) => q + kv,
            None => ZERO,
        };
    // gpt-oss: one learned sink logit per query head.
    attn + when(x.attention_sinks, nh)
}

/// A Gated DeltaNet token mixer (transformers `modeling_qwen3_5.py` `Qwen3_5GatedDeltaNet`).
fn gated_deltanet(h: N, la: &super::LinearAttention) -> N {
    let kd = n(la.key_heads) * n(la.key_head_dim);
    let vd = n(la.value_heads) * n(la.value_head_dim);
    let nv = n(la.value_heads);
    h * (n(2) * kd + vd) + h * vd + n(2) * h * nv + (n(2) * kd + vd) * n(la.conv_kernel) + n(2) * nv + n(la.value_head_dim) + vd * h
}

/// A Mamba2 mixer (transformers `modeling_nemotron_h.py` `NemotronHMamba2Mixer`).
fn mamba2(h: N, m: &super::Mamba2) -> N {
    let di = n(m.heads) * n(m.head_dim);
    let gs = n(2) * n(m.groups) * n(m.state);
    let conv = di + gs;
    h * (n(2) * di + gs + n(m.heads)) + conv * n(m.conv_kernel) + when(m.conv_bias, conv) + n(3) * n(m.heads) + di + di * h
}

/// The Nemotron-H block stack: each block one RMSNorm and one mixer.
fn hybrid_layers(e: &Entry, hp: &super::HybridPattern) -> Option<N> {
    let h = n(e.hidden_size);
    let attn = h * n(e.num_heads) * n(e.head_dim) + n(2) * h * n(e.num_kv_heads) * n(e.head_dim) + n(e.num_heads) * n(e.head_dim) * h;
    let mut total = ZERO;
    for block in hp.pattern.chars() {
        total = total + h;
        total = total
            + match block {
                'M' => mamba2(h, &hp.mamba),
                '*' => attn,
                'E' => {
                    let moe = e.extra.moe.as_ref()?;
                    n(moe.experts) * plain(h, n(moe.expert_intermediate_size), false)
                        + h * n(moe.experts)
                        + n(moe.shared_experts) * plain(h, n(moe.shared_intermediate_size), false)
                }
                '-' => plain(h, n(e.intermediate_size), false),
                _ => return None,
            };
    }
    Some(total)
}

fn total(e: &Entry) -> N {
    let x = &e.extra;
    let (h, layers) = (n(e.hidden_size), n(e.num_layers));
    let attn = attention(e);
    let dense_mlp = match e.mlp {
        Mlp::Gated => gated(h, n(e.intermediate_size), e.mlp_bias),
        Mlp::Plain => plain(h, n(e.intermediate_size), e.mlp_bias),
    };
    let layer_norms = n(x.norms_per_layer.unwrap_or(2)) * norm(e, h);
    let attn_total = match &x.linear_attention {
        Some(la) if la.full_attention_interval > 0 => {
            let full = n(e.num_layers / la.full_attention_interval);
            full * attn + (layers - full) * gated_deltanet(h, la)
        }
        Some(_) => N(None),
        None => layers * attn,
    };
    let mut stack = match &x.moe {
        Some(moe) => {
            let mut mlp = n(moe.experts) * gated(h, n(moe.expert_intermediate_size), moe.expert_bias) + h * n(moe.experts);
            mlp = mlp + when(moe.router_bias, n(moe.experts));
            if moe.shared_experts > 0 {
                mlp = mlp + n(moe.shared_experts) * gated(h, n(moe.shared_intermediate_size), false) + when(moe.shared_gate, h);
            }
            let dense = n(moe.dense_layers);
            attn_total + layers * layer_norms + dense * dense_mlp + (layers - dense) * mlp
        }
        None => attn_total + layers * (dense_mlp + layer_norms),
    };
    if let Some(hp) = &x.hybrid_pattern {
        stack = hybrid_layers(e, hp).unwrap_or(N(None));
    }
    if let Some(ed) = &x.encoder_decoder {
        // T5: encoder (self-attention, FF, 2 norms), decoder (self- and cross-attention, FF, 3 norms),
        // relative position bias in each stack's first layer, the encoder's final norm.
        let one = norm(e, h);
        let encoder = n(ed.encoder_layers) * (attn + dense_mlp + n(2) * one);
        let decoder = n(ed.decoder_layers) * (n(2) * attn + dense_mlp + n(3) * one);
        stack = encoder + decoder + n(2) * n(ed.relative_attention_buckets) * n(e.num_heads) + one;
    }
    let vocab = n(e.vocab_size);
    let mut sum = stack + vocab * h + n(e.learned_positions) * h + n(x.token_type_vocab) * h;
    sum = sum + when(x.embedding_norm, norm(e, h)) + when(x.final_norm.unwrap_or(true), norm(e, h));
    sum = sum + when(!e.tie_embeddings, vocab * h + when(x.lm_head_bias, vocab));
    sum = sum + when(x.pooler, h * h + h);
    for c in &x.components {
        sum = sum + component(e, c);
    }
    sum
}

/// One `extra.components` part (`data/param_count.py` `component`); a missing field gives `None`.
fn component(e: &Entry, c: &Component) -> N {
    let field = |v: Option<u64>| v.map(n).unwrap_or(N(None));
    let copies = n(c.count.unwrap_or(1));
    match c.kind {
        ComponentKind::Vit => {
            let h = field(c.hidden);
            let (q, kv, hd) = match c.heads {
                Some(heads) => {
                    let hd = match (c.head_dim, c.hidden) {
                        (Some(hd), _) => n(hd),
                        (None, Some(hidden)) if heads > 0 => n(hidden / heads),
                        _ => N(None),
                    };
                    (n(heads) * hd, n(c.kv_heads.unwrap_or(heads)) * hd, hd)
                }
                None => (h, h, N(None)),
            };
            let mut attn = h * q + n(2) * h * kv + q * h;
            attn = attn + when(c.attn_bias == Some(true), q + n(2) * kv + h);
            attn = attn + when(c.qk_norm == Some(true), n(2) * hd);
            let intermediate = field(c.intermediate);
            let bias = c.mlp_bias.unwrap_or(true);
            let mlp = match c.mlp.unwrap_or(Mlp::Plain) {
                Mlp::Gated => gated(h, intermediate, bias),
                Mlp::Plain => plain(h, intermediate, bias),
            };
            let one = match c.norm.unwrap_or(Norm::Layernorm) {
                Norm::Rmsnorm => h,
                Norm::Layernorm => n(2) * h,
            };
            copies * field(c.layers) * (attn + mlp + n(c.norms.unwrap_or(2)) * one + n(c.gates.unwrap_or(0)))
        }
        ComponentKind::Linear => {
            let out = field(c.out);
            copies * (field(c.input) * out + when(c.bias == Some(true), out))
        }
        ComponentKind::Conv => {
            let kernel = match &c.kernel {
                Some(k) => k.iter().fold(n(1), |acc, d| acc * n(*d)),
                None => N(None),
            };
            let out = field(c.out);
            copies * (field(c.in_channels) * kernel * out + when(c.bias == Some(true), out))
        }
        ComponentKind::Norm => {
            let dim = field(c.dim);
            copies
                * match c.norm.unwrap_or(Norm::Layernorm) {
                    Norm::Rmsnorm => dim,
                    Norm::Layernorm => n(2) * dim,
                }
        }
        ComponentKind::Vector => copies * field(c.dim),
        ComponentKind::MllamaPositions => {
            let (h, t, r, tiles) = (field(c.hidden), field(c.tokens), field(c.aspect_rows), field(c.tiles));
            (t * h + n(1)) + r * tiles * t * h + n(2) * (r * tiles * h + n(1))
        }
        ComponentKind::CrossAttentionLayers => {
            let (h, nh, nkv, hd) = (n(e.hidden_size), n(e.num_heads), n(e.num_kv_heads), n(e.head_dim));
            let layer = h * nh * hd + n(2) * h * nkv * hd + nh * hd * h + n(2) * hd + gated(h, n(e.intermediate_size), false) + n(2) * h + n(2);
            field(c.layers) * layer
        }
        ComponentKind::EmbeddingRows => field(c.rows) * n(e.hidden_size),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{by_id, entries};

    #[test]
    fn every_catalog_entry_counts_to_its_stated_parameters() {
        let wrong: Vec<String> = entries()
            .iter()
            .filter(|e| count(e) != Some(e.parameters))
            .map(|e| format!("{}: computed {:?}, catalog {}", e.id, count(e), e.parameters))
            .collect();
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    /// torchtune's Llama 3.2 Vision by part: its decoder's own parameters are Llama 3.1's (the
    /// text model: 8,030,261,248 for 8B, 70,553,706,496 for 70B, the catalog's published
    /// counts), the CLIP encoder and the fusion parameters the rest.
    #[test]
    fn fusion_parts_of_llama_3_2_vision() {
        let parts = |id: &str| fusion_parts(by_id(id).expect(id)).expect(id);
        let small = parts("torchtune.models.llama3_2_vision.llama3_2_vision_11b");
        assert_eq!(small, FusionParts { encoder: 665_152_003, fusion: 1_933_770_784, decoder: 8_030_261_248 });
        assert_eq!(small.decoder, count(by_id("meta-llama/Llama-3.1-8B").unwrap()).unwrap());
        let large = parts("torchtune.models.llama3_2_vision.llama3_2_vision_90b");
        assert_eq!(large, FusionParts { encoder: 665_152_003, fusion: 17_333_460_024, decoder: 70_553_706_496 });
        assert_eq!(large.decoder, count(by_id("meta-llama/Llama-3.1-70B").unwrap()).unwrap());
        let scout = parts("meta-llama/Llama-4-Scout-17B-16E");
        assert_eq!((scout.encoder, scout.fusion), (811_115_008, 60_817_408));
        // No components, or components without parts: no split.
        assert_eq!(fusion_parts(by_id("meta-llama/Llama-3.1-8B").unwrap()), None);
        assert_eq!(fusion_parts(by_id("google/gemma-3-4b-it").unwrap()), None);
    }

    #[test]
    fn published_totals() {
        // Issue 14's three totals (Meta / Mistral model cards, keras-hub presets; data/README.md).
        for (id, total) in
            [("meta-llama/Llama-2-7b-hf", 6_738_415_616), ("meta-llama/Llama-3.1-8B", 8_030_261_248), ("mistralai/Mistral-7B-v0.1", 7_241_732_096)]
        {
            let entry = by_id(id).unwrap_or_else(|| panic!("{id} in the catalog"));
            assert_eq!(count(entry), Some(total), "{id}");
        }
    }

    #[test]
    fn a_changed_field_changes_the_count() {
        // The test above could not pass by reading `parameters`: one row less of the MLP is 3·H fewer.
        let mut entry = by_id("mistralai/Mistral-7B-v0.1").unwrap().clone();
        entry.intermediate_size -= 1;
        assert_eq!(count(&entry), Some(7_241_732_096 - 32 * 3 * 4096));
        entry.tie_embeddings = true;
        assert_eq!(count(&entry), Some(7_241_732_096 - 32 * 3 * 4096 - 32_000 * 4096));
    }

    #[test]
    fn moe_active_parameters() {
        // Mixtral-8x7B: 46.7 B total, 12.9 B active (Mistral AI, "Mixtral of experts", arXiv:2401.04088 §2).
        let mixtral = by_id("mistralai/Mixtral-8x7B-v0.1").expect("Mixtral in the catalog");
        let (total, used) = (count(mixtral).unwrap(), active(mixtral).unwrap());
        assert_eq!(total, 46_702_792_704);
        assert!((12_800_000_000..13_000_000_000).contains(&used), "{used}");
        let dense = by_id("meta-llama/Llama-3.1-8B").unwrap();
        assert_eq!(active(dense), count(dense));
    }

    #[test]
    fn an_overflowing_shape_counts_to_none() {
        let mut entry = by_id("meta-llama/Llama-3.1-8B").unwrap().clone();
        entry.hidden_size = u64::MAX;
        entry.intermediate_size = u64::MAX;
        assert_eq!(count(&entry), None);
    }
}
