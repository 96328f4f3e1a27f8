//! torchtune recipe configs (`_component_` keys), read with OmegaConf.

use super::{Doc, Dialect, DerivedRoles, Evidence, Framework};
use crate::load::{Node, Value};
use crate::schema::{Manifest, Role};

pub(crate) const TORCHTUNE: Dialect = Dialect(&Torchtune);

pub(crate) struct Torchtune;

/// `model._component_` is the builder the recipe instantiates (`config.instantiate(cfg.model)` in
/// torchtune `recipes/full_finetune_single_device.py`, `lora_finetune_single_device.py`); the
/// builders are `torchtune/models/<family>/_model_builders.py`, whose names the model catalog lists.
///
/// The sequence length is the tokenizer's `max_seq_len` since torchtune 0.3 (`datasets/_alpaca.py`
/// @ v0.3.0 651a7300: "PackedDataset requires a max_seq_len to be set on the tokenizer"); in 0.1 and
/// 0.2 the dataset builders took it (`alpaca_dataset(..., max_seq_len: int = 512, ...)` @ v0.2.1
/// 83557aa9, written `dataset: {max_seq_len: 4096}` in e.g. `recipes/configs/phi3/mini_full.yaml`).
///
/// `tensor_parallel_dim` is the distributed recipes' tensor-parallel degree (`self.tp_degree =
/// cfg.get("tensor_parallel_dim", 1)` in `recipes/full_finetune_distributed.py`, with
/// `data_parallel_shard_dim: -1` inferring the FSDP degree from what TP leaves, as
/// `recipes/configs/llama4/maverick_17B_128E_full.yaml` says): each layer is split over that many
/// GPUs before FSDP shards it.
const BINDINGS: [(Role, &str); 7] = [
    (Role::Model, "model._component_"),
    (Role::MicroBatch, "batch_size"),
    (Role::Accumulation, "gradient_accumulation_steps"),
    (Role::SequenceLength, "tokenizer.max_seq_len"),
    (Role::SequenceLength, "dataset.max_seq_len"),
    (Role::LearningRate, "optimizer.lr"),
    (Role::TensorParallel, "tensor_parallel_dim"),
];

impl Framework for Torchtune {
    /// `tokenizer.max_seq_len` truncates; unless `dataset.packed` each batch is padded to its
    /// longest sample (torchtune `data/_collate.py` `padded_collate_sft`: `pad_sequence`).
    fn sequence_cap(&self, root: &Node) -> Option<String> {
        let packed = super::truthy(root, "dataset.packed");
        let stated = ["tokenizer.max_seq_len", "dataset.max_seq_len"].into_iter().find(|k| root.get_dotted(k).is_some_and(|n| n.value != crate::load::Value::Null))?;
        (!packed).then(|| format!("`{stated}` truncates longer samples and each batch is padded to its longest (no `dataset.packed`)"))
    }

    fn name(&self) -> &'static str {
        "torchtune"
    }

    /// pytorch/torchtune@bd2a0fc7 `recipes/full_dpo_distributed.py` `_setup_reference_model`
    /// shards the reference model with `training.shard_model`, whose last call is
    /// `fully_shard(model, reshard_after_forward=False)` for the root
    /// (`torchtune/training/_distributed.py`), and the recipe runs it only under
    /// `torch.no_grad()` (`concatenated_forward(self._ref_model, ...)`). In FSDP2 a root with
    /// `reshard_after_forward=False` stays gathered after its forward (pytorch/pytorch@002a76fb
    /// `torch/distributed/fsdp/_fully_shard/_fsdp_param_group.py` `reshard`: returns in
    /// `FORWARD` when not `_reshard_after_forward`); only the post-backward final callback
    /// reshards it, and under `no_grad` none is registered (pytorch/pytorch@01c9f4fc
    /// `_fsdp_state.py` `_register_pre_backward_hook`: `if not torch.is_grad_enabled(): return`).
    fn fsdp_reference_root_gathered(&self) -> Option<&'static str> {
        Some("torchtune's `shard_model` keeps the root unsharded after forward, and the reference runs under no_grad (no backward reshards it)")
    }

    /// `tune run … loss=X` on a node with a `_component_` sets that component and keeps the
    /// node's other fields (torchtune `config/_utils.py` `_merge_yaml_and_cli_args`: "If a cli
    /// arg overrides a yaml arg with a _component_ field, the cli arg can be specified with the
    /// parent field directly, e.g., model=torchtune.models…").
    fn override_path(&self, root: &Node, key: &str) -> String {
        match root.get_dotted(key) {
            Some(node) if node.get("_component_").is_some() => format!("{key}._component_"),
            _ => key.to_owned(),
        }
    }

    fn title(&self) -> &'static str {
        "torchtune"
    }

    fn doc(&self) -> Doc {
        Doc {
            evidence: "`_component_` keys",
            roles: "`model._component_` (the builder; `lora_`/`qlora_` → adapter, `qlora_` → 4-bit base), `batch_size`, `gradient_accumulation_steps`, `tokenizer.max_seq_len` (`dataset.max_seq_len` before 0.3), `optimizer._component_` (and `fused`), `optimizer.lr`, `tensor_parallel_dim`, `compile`, `loss._component_`; `dtype` → pure 16-bit precision; a generic `llama2`/`llama3` builder's dimensions → the architecture",
            semantics: "",
        }
    }

    fn evidence(&self, cx: &Evidence) -> Option<String> {
        super::contains_key(cx.root, "_component_", 6).then(|| "`_component_` keys (torchtune recipe config)".to_owned())
    }

    fn bindings(&self, _manifest: &Manifest) -> Vec<(Role, String)> {
        super::owned(&BINDINGS)
    }

    /// `dtype` is pure (not mixed) precision; `enable_activation_checkpointing`.
    fn derived(&self, root: &Node) -> Vec<super::Derived> {
        let mut out = DerivedRoles::default();
        if let Some(dtype) = root.get("dtype").and_then(Node::as_str) {
            let value = match dtype {
                "bf16" => "bf16-true",
                "fp16" => "16-true",
                "fp64" => "64-true",
                _ => "32-true",
            };
            out.push(Role::Precision, value.into(), "dtype");
        }
        // `qlora_*` builders are the `lora_*` builder with `quantize_base=True`: the frozen base is
        // NF4, 4-bit (torchtune `models/llama3_1/_model_builders.py`, `qlora_llama3_1_8b`).
        if let Some(builder) = root.get("model").and_then(|m| m.get("_component_")).and_then(Node::as_str) {
            match builder_adapter(builder) {
                Some(BuilderAdapter::Qlora) => {
                    out.push(Role::Adapter, "qlora".into(), "model._component_");
                    out.push(Role::BaseWeights, "int4".into(), "model._component_");
                }
                Some(BuilderAdapter::Lora) => {
                    // `use_dora: True` builds DoRA adapters (torchtune `models/llama3_1/_component_builders.py`, `lora_llama3_1(use_dora=...)`).
                    let dora = super::truthy(root, "model.use_dora");
                    out.push(Role::Adapter, if dora { "dora" } else { "lora" }.into(), "model._component_");
                }
                None => {}
            }
        }
        // A fusion model's `*_trainable` switches (or its builder's defaults): the share of its
        // parameters that trains (`fusion_share`).
        if let Some(Ok(share)) = fusion_share(root) {
            match share.written {
                true => out.push(Role::TrainableFraction, share.fraction.into(), &share.path),
                false => out.push_default(Role::TrainableFraction, share.fraction.into(), &share.path, "model._component_"),
            }
        }
        if super::truthy(root, "enable_activation_checkpointing") {
            // `enable_activation_offloading` moves the kept layer inputs to the CPU
            // (torchtune `training/_activation_offloading.py`, the recipes' `enable_activation_offloading`).
            let offload = super::truthy(root, "enable_activation_offloading");
            out.push(Role::ActivationCheckpointing, if offload { "offload" } else { "full" }.into(), "enable_activation_checkpointing");
        }
        // The LoRA builders' `lora_rank`, `lora_attn_modules`, `apply_lora_to_mlp` and
        // `apply_lora_to_output` (torchtune `models/llama3_1/_component_builders.py`, `lora_llama3_1`).
        if let Some(model) = root.get("model").filter(|_| out.0.iter().any(|d| d.role == Role::Adapter)) {
            if let Some(rank) = model.get("lora_rank") {
                out.push(Role::LoraRank, rank.to_json(), "model.lora_rank");
            }
            if let Some(serde_json::Value::Array(modules)) = model.get("lora_attn_modules").map(Node::to_json) {
                // torchtune's module names (`modules/attention.py`: q_proj, k_proj, v_proj,
                // output_proj; `modules/feed_forward.py`: w1 gate, w2 down, w3 up;
                // `TransformerDecoder.output` the head) in trainlint's canonical ones.
                let canonical = |name: &str| match name {
                    "output_proj" => "o".to_owned(),
                    other => other.to_owned(),
                };
                let mut names: Vec<serde_json::Value> = modules.iter().filter_map(|m| m.as_str()).map(|m| canonical(m).into()).collect();
                if super::truthy(root, "model.apply_lora_to_mlp") {
                    names.extend(["w1", "w2", "w3"].map(serde_json::Value::from));
                }
                if super::truthy(root, "model.apply_lora_to_output") {
                    names.push("lm_head".into());
                }
                out.push(Role::LoraTargets, serde_json::Value::Array(names), "model.lora_attn_modules");
            }
        }
        // `fsdp_cpu_offload: True` (the distributed recipes' `CPUOffload`): parameters,
        // gradients and optimizer states on the CPU.
        if super::truthy(root, "fsdp_cpu_offload") {
            out.push(Role::OffloadParams, true.into(), "fsdp_cpu_offload");
        }
        // The recipes build `optimizer` with `config.instantiate` (torchtune `config/_instantiate.py`):
        // the class is `optimizer._component_`, its keyword arguments the other keys, so
        // `fused: True` is `torch.optim.AdamW(fused=True)` (one kernel, no foreach workspace).
        if let Some(component) = root.get("optimizer").and_then(|o| o.get("_component_")).and_then(Node::as_str) {
            let class = component.rsplit('.').next().unwrap_or(component);
            let fused = super::truthy(root, "optimizer.fused");
            let name = match class {
                "AdamW" | "Adam" if component.starts_with("torch.optim") && fused => "adamw_torch_fused".to_owned(),
                // bitsandbytes `optim/adamw.py`: AdamW8bit, PagedAdamW8bit (8-bit states), PagedAdamW (32-bit);
                // torchao `optim/adam.py` AdamW8bit (8-bit states).
                "PagedAdamW8bit" => "paged_adamw_8bit".to_owned(),
                "AdamW8bit" | "Adam8bit" => "adamw_8bit".to_owned(),
                "PagedAdamW" | "PagedAdamW32bit" => "paged_adamw_32bit".to_owned(),
                _ => component.to_owned(),
            };
            out.push(Role::Optimizer, name.into(), "optimizer._component_");
        }
        // `compile: True`: the recipes compile each transformer layer and the loss
        // (`training/_compile.py` `compile_model`, `compile_loss`; `lora_finetune_single_device.py` `_setup`).
        // The distributed recipes also take a mapping (`compile: {model, loss, optimizer_step,
        // scale_grads}`, `full_finetune_distributed.py`; `loss` defaults to true there).
        match root.get("compile").map(Node::to_json) {
            Some(serde_json::Value::Bool(on)) => out.push(Role::Compile, on.into(), "compile"),
            Some(serde_json::Value::Object(parts)) => {
                let loss = parts.get("loss").and_then(serde_json::Value::as_bool).unwrap_or(true);
                out.push(Role::Compile, loss.into(), "compile");
            }
            _ => {}
        }
        // The distributed recipes call `loss.backward()` on every micro batch with FSDP2's default
        // gradient sync (no `no_sync`/`set_requires_gradient_sync(False)`: `full_finetune_distributed.py`,
        // `lora_finetune_distributed.py` training loops; torchtune issue #1275), so gradients are
        // reduce-scattered each time and accumulate sharded.
        if root.get("gradient_accumulation_steps").is_some() {
            out.push(Role::SyncEachBatch, true.into(), "gradient_accumulation_steps");
        }
        // `optimizer_in_bwd: True` steps each parameter in its post-accumulate-grad hook
        // (`full_finetune_single_device.py`, `training.register_optim_in_bwd_hooks`).
        if let Some(in_bwd) = root.get("optimizer_in_bwd") {
            out.push(Role::OptimizerInBackward, in_bwd.to_json(), "optimizer_in_bwd");
        }
        // The recipes' loss: `CEWithChunkedOutputLoss` chunks the output (torchtune
        // `modules/loss/ce_chunked_output_loss.py`); `LinearCrossEntropyLoss` fuses the head and the loss.
        if let Some(loss) = root.get("loss").and_then(|l| l.get("_component_")).and_then(Node::as_str) {
            match loss.rsplit('.').next() {
                Some("CEWithChunkedOutputLoss") => out.push(Role::Logits, "chunked".into(), "loss._component_"),
                Some("LinearCrossEntropyLoss") => out.push(Role::Logits, "fused".into(), "loss._component_"),
                // `torchtune.rlhf.loss`: DPO and RSO keep a reference model (`full_dpo_distributed.py`
                // builds `_ref_model`; the LoRA DPO recipes disable the adapters instead); SimPO none.
                Some("DPOLoss" | "RSOLoss" | "IPOLoss") => out.push(Role::Preference, "dpo".into(), "loss._component_"),
                Some("SimPOLoss") => out.push(Role::Preference, "simpo".into(), "loss._component_"),
                _ => {}
            }
        }
        out.0
    }

    /// torchtune's configs name their recipe in their header (`# Config for multi-device LoRA in
    /// lora_finetune_distributed.py`, `#   tune run --nproc_per_node 8 lora_finetune_distributed
    /// --config …`). The `*_distributed` recipes shard the model with FSDP2 (`fully_shard` through
    /// `training.shard_model`, recipes `full_finetune_distributed.py`, `lora_finetune_distributed.py`);
    /// the world is the launcher's (`--nproc_per_node` there is advice, not the run).
    fn comment_roles(&self, text: &str) -> Vec<super::CommentRole> {
        let mut offset = 0;
        for line in text.split_inclusive('\n') {
            let trimmed = line.trim_start();
            if !trimmed.is_empty() && !trimmed.starts_with('#') {
                break;
            }
            let mut start = 0;
            for word in line.split(|c: char| c.is_whitespace() || c == '/') {
                let at = line[start..].find(word).map(|i| i + start).unwrap_or(start);
                start = at + word.len();
                let name = word.strip_suffix(".py").unwrap_or(word);
                if name.ends_with("_distributed") && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                    return vec![super::CommentRole {
                        role: Role::Fsdp,
                        value: true.into(),
                        span: offset + at..offset + at + word.len(),
                        what: format!("the header names the recipe `{name}`, which shards with FSDP"),
                    }];
                }
            }
            offset += line.len();
        }
        Vec::new()
    }

    fn interpolates(&self) -> bool {
        true
    }

    /// The generic decoder builders called with their dimensions (`model._component_:
    /// torchtune.models.llama2.llama2` with `vocab_size`, `num_layers`, `num_heads`,
    /// `num_kv_heads`, `embed_dim`, `max_seq_len`, optional `intermediate_dim`): torchtune
    /// `models/llama2/_component_builders.py` `llama2` and `models/llama3/_component_builders.py`
    /// `llama3` build RMSNorm/SwiGLU decoders with a separate `output_proj` (untied) and, without
    /// `intermediate_dim`, `scale_hidden_dim_for_mlp(embed_dim)` = 4·⌊2·d/3⌋ rounded up to a
    /// multiple of 256 (`models/llama2/_model_utils.py`).
    fn inline_architecture(&self, root: &Node) -> Option<(serde_json::Value, String)> {
        let model = root.get("model")?;
        let builder = model.get("_component_").and_then(Node::as_str)?;
        if !matches!(builder, "torchtune.models.llama2.llama2" | "torchtune.models.llama3.llama3") {
            return None;
        }
        let int = |key: &str| model.get(key).and_then(Node::as_i64).filter(|v| *v > 0).map(|v| v as u64);
        let embed = int("embed_dim")?;
        let heads = int("num_heads")?;
        // Checked: a config's numbers are not trusted to be small.
        let intermediate = match int("intermediate_dim") {
            Some(stated) => stated,
            None => embed.checked_mul(2).map(|d| d / 3).and_then(|d| d.checked_mul(4)).and_then(|h| h.div_ceil(256).checked_mul(256))?,
        };
        let json = serde_json::json!({
            "model_type": "llama",
            "hidden_size": embed,
            "num_hidden_layers": int("num_layers")?,
            "num_attention_heads": heads,
            "num_key_value_heads": int("num_kv_heads").unwrap_or(heads),
            "intermediate_size": intermediate,
            "vocab_size": int("vocab_size")?,
            "max_position_embeddings": int("max_seq_len").unwrap_or(0),
            "tie_word_embeddings": false,
        });
        Some((json, "model".to_owned()))
    }

    /// The training recipes build an optimizer from the config's `optimizer` (top level,
    /// or under a section such as `training:` in the dev GRPO recipes); `eleuther_eval`,
    /// `generate`, `dev/generate_v2` and `quantize` read no optimizer (torchtune
    /// `recipes/eleuther_eval.py`, `recipes/generate.py`, `recipes/quantize.py`).
    fn not_training(&self, root: &Node) -> Option<String> {
        let has_optimizer =
            root.get("optimizer").is_some() || root.entries().is_some_and(|e| e.iter().any(|section| section.value.get("optimizer").is_some()));
        (!has_optimizer).then(|| "no `optimizer`: the config is for a torchtune recipe that does not train (evaluation, generation, quantization)".to_owned())
    }

    fn sequence_length_keys(&self) -> &'static [&'static str] {
        &["max_seq_len"]
    }

    /// A fusion model that freezes a part whose size the catalog does not give (`fusion_share`):
    /// pricing every parameter as trained would overstate the peak, any other share would be a guess.
    fn memory_unmodelled(&self, root: &Node) -> Option<super::Unmodelled> {
        fusion_share(root)?.err()
    }
}

/// The `*_trainable` keys of torchtune's fusion models, in the order `FusionShare::path` prefers.
const FUSION_KEYS: [&str; 3] = ["decoder_trainable", "encoder_trainable", "fusion_trainable"];

/// The full (not LoRA) fusion builders' defaults for `FUSION_KEYS`: torchtune
/// `models/llama3_2_vision/_model_builders.py` `llama3_2_vision_11b` and `llama3_2_vision_90b`
/// (`decoder_trainable: bool = False, encoder_trainable: bool = True, fusion_trainable: bool = True`);
/// `models/llama4/_model_builders.py` `llama4_scout_17b_16e` and `llama4_maverick_17b_128e`
/// (`decoder_trainable: bool = True, encoder_trainable: bool = False, fusion_trainable: bool = True`).
fn fusion_defaults(builder: &str) -> Option<[bool; 3]> {
    let (module, name) = builder.rsplit_once('.')?;
    match (module, name) {
        ("torchtune.models.llama3_2_vision", "llama3_2_vision_11b" | "llama3_2_vision_90b") => Some([false, true, true]),
        ("torchtune.models.llama4", "llama4_scout_17b_16e" | "llama4_maverick_17b_128e") => Some([true, false, true]),
        _ => None,
    }
}

/// The share of a fusion model's parameters that trains, and the key that says so.
#[derive(Clone, Debug, PartialEq)]
struct FusionShare {
    fraction: f64,
    /// `model.<key>`: the first part frozen.
    path: String,
    /// Whether the config writes that key (else it is the builder's default).
    written: bool,
}

/// What a full fine-tune of a torchtune fusion model trains. `DeepFusionModel.__init__` and
/// `EarlyFusionModel.__init__` (`modules/model_fusion/_deep_fusion.py`, `_early_fusion.py`)
/// collect the encoder's parameters when `encoder_trainable`, the decoder's when
/// `decoder_trainable`, then add the fusion parameters (`_fusion_utils.py` `get_fusion_params`:
/// the projection head, the cross-attention `FusionLayer.fusion_layer`s, `FusionEmbedding`'s
/// extra rows) when `fusion_trainable` and remove them otherwise, and freeze the rest
/// (`modules/peft/_utils.py` `set_trainable_params`); the full recipes then build the optimizer
/// over the parameters that require a gradient. So the trained parameters are the encoder's own,
/// the decoder's own and the fusion parameters, each by its switch, counted from the catalog
/// entry's parts (`model::params::fusion_parts`). The switches are read as Python's truth
/// (`if encoder_trainable:`); an unwritten one is the builder's default (`fusion_defaults`).
///
/// `None`: not a fusion builder, a LoRA builder (the LoRA recipes train the adapters only,
/// `set_trainable_params(model, get_adapter_params(model))` in `lora_finetune_single_device.py`,
/// counted as adapters), every part trained, or a builder the catalog does not know (the
/// unknown model says so). `Err`: a part is frozen but the parts' sizes (or an unwritten
/// switch of an unknown builder) are not known.
fn fusion_share(root: &Node) -> Option<Result<FusionShare, super::Unmodelled>> {
    let model = root.get("model")?;
    let builder = model.get("_component_").and_then(Node::as_str)?;
    if builder_adapter(builder).is_some() {
        return None;
    }
    let defaults = fusion_defaults(builder);
    let written: Vec<Option<bool>> = FUSION_KEYS
        .iter()
        .map(|key| {
            model.get(key).map(|node| match &node.value {
                Value::Bool(on) => *on,
                Value::Null => false,
                Value::Int(i) => *i != 0,
                Value::UInt(u) => *u != 0,
                Value::Float(f) => *f != 0.0,
                Value::Str(s) => !s.is_empty(),
                Value::Seq(items) => !items.is_empty(),
                Value::Map(entries) => !entries.is_empty(),
            })
        })
        .collect();
    if defaults.is_none() && written.iter().all(Option::is_none) {
        return None;
    }
    let on: Vec<Option<bool>> = (0..3).map(|i| written[i].or(defaults.map(|d| d[i]))).collect();
    let frozen = on.iter().position(|v| *v == Some(false))?;
    let path = format!("model.{}", FUSION_KEYS[frozen]);
    let unmodelled = |why: &str| {
        Err(super::Unmodelled {
            path: path.clone(),
            reason: format!("torchtune's fusion model trains only the parts its `*_trainable` switches name, and {why}, so the share that trains is unknown"),
        })
    };
    let (entry, _) = crate::model::lookup(builder)?;
    let Some(parts) = crate::model::params::fusion_parts(entry) else {
        return Some(unmodelled(&format!("the model catalog does not give the sizes of `{}`'s encoder, decoder and fusion parameters", entry.id)));
    };
    let Some(on) = on.iter().copied().collect::<Option<Vec<bool>>>() else {
        return Some(unmodelled("an unwritten switch's default is not known for this builder"));
    };
    let trained = [parts.decoder, parts.encoder, parts.fusion].iter().zip(&on).filter(|(_, on)| **on).map(|(n, _)| *n as f64).sum::<f64>();
    let total = (parts.decoder + parts.encoder + parts.fusion) as f64;
    Some(Ok(FusionShare { fraction: trained / total, path, written: written[frozen].is_some() }))
}

/// A builder's adapter: `lora_…` and `qlora_…` builders build the same
/// architecture with LoRA adapters (QLoRA: on an NF4-quantized base). torchtune
/// `models/llama3_1/_model_builders.py` (`lora_llama3_1_8b`,
/// `qlora_llama3_1_8b = partial(lora_llama3_1_8b, quantize_base=True)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BuilderAdapter {
    Lora,
    Qlora,
}

fn builder_adapter(builder: &str) -> Option<BuilderAdapter> {
    let last = builder.rsplit('.').next()?;
    if last.starts_with("qlora_") {
        Some(BuilderAdapter::Qlora)
    } else if last.starts_with("lora_") {
        Some(BuilderAdapter::Lora)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::{BuilderAdapter, FusionShare, builder_adapter, fusion_share};
    use crate::dialects::Framework;
    use crate::dialects::test_support::parse;

    fn share(text: &str) -> Option<FusionShare> {
        fusion_share(&parse(text)).map(|r| r.expect("sizes known"))
    }

    /// Llama 3.2 Vision 11B by part (`model::params::fusion_parts`): encoder 665,152,003,
    /// fusion 1,933,770,784, decoder 8,030,261,248, of 10,629,184,035.
    #[test]
    fn fusion_switches_give_the_trained_share() {
        let total = 10_629_184_035.0;
        let vision = |rest: &str| format!("model:\n  _component_: torchtune.models.llama3_2_vision.llama3_2_vision_11b\n{rest}");
        // 11B_full.yaml as published: the encoder and the fusion parameters train.
        let published = share(&vision("  decoder_trainable: False\n  encoder_trainable: True\n  fusion_trainable: True\n")).unwrap();
        assert!((published.fraction * total - 2_598_922_787.0).abs() < 1.0, "{published:?}");
        assert_eq!((published.path.as_str(), published.written), ("model.decoder_trainable", true));
        // Unwritten: the builder's defaults (False, True, True), shown at the builder.
        let defaults = share(&vision("")).unwrap();
        assert_eq!((defaults.fraction, defaults.path.as_str(), defaults.written), (published.fraction, "model.decoder_trainable", false));
        // `fusion_trainable: False` removes the fusion parameters even from a trained encoder.
        let encoder = share(&vision("  fusion_trainable: False\n")).unwrap();
        assert!((encoder.fraction * total - 665_152_003.0).abs() < 1.0, "{encoder:?}");
        // Python's truth (`if decoder_trainable:`): a non-empty string is true, null false.
        let decoder = share(&vision("  decoder_trainable: \"yes\"\n  encoder_trainable: null\n  fusion_trainable: 0\n")).unwrap();
        assert!((decoder.fraction * total - 8_030_261_248.0).abs() < 1.0, "{decoder:?}");
        assert_eq!(decoder.path, "model.encoder_trainable");
        // Everything trained, a LoRA builder (adapters only), a model without fusion: nothing derived.
        assert_eq!(share(&vision("  decoder_trainable: True\n")), None);
        assert_eq!(share("model:\n  _component_: torchtune.models.llama3_2_vision.lora_llama3_2_vision_11b\n  decoder_trainable: frozen\n"), None);
        assert_eq!(share("model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\n"), None);
        // Llama 4's full builders freeze the vision encoder by default (True, False, True).
        let scout = share("model:\n  _component_: torchtune.models.llama4.llama4_scout_17b_16e\n").unwrap();
        assert!((scout.fraction * 108_641_793_536.0 - (108_641_793_536.0 - 811_115_008.0)).abs() < 10.0, "{scout:?}");
        assert_eq!(scout.path, "model.encoder_trainable");
    }

    /// A frozen part whose size the catalog does not give is not priced: MEM004 says why.
    #[test]
    fn a_frozen_part_of_unknown_size_is_not_estimated() {
        let root = parse("model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\n  decoder_trainable: False\n");
        let unmodelled = super::Torchtune.memory_unmodelled(&root).expect("unmodelled");
        assert_eq!(unmodelled.path, "model.decoder_trainable");
        assert!(unmodelled.reason.contains("meta-llama/Llama-3.1-8B"), "{}", unmodelled.reason);
        assert!(!super::Torchtune.derived(&root).iter().any(|d| d.role == crate::schema::Role::TrainableFraction));
        let published = parse("model:\n  _component_: torchtune.models.llama3_2_vision.llama3_2_vision_11b\n  decoder_trainable: False\n");
        assert_eq!(super::Torchtune.memory_unmodelled(&published), None);
    }

    #[test]
    fn lora_and_qlora_builders() {
        assert_eq!(builder_adapter("torchtune.models.llama3_1.qlora_llama3_1_8b"), Some(BuilderAdapter::Qlora));
        assert_eq!(builder_adapter("torchtune.models.llama3_1.lora_llama3_1_8b"), Some(BuilderAdapter::Lora));
        assert_eq!(builder_adapter("torchtune.models.llama3_1.llama3_1_8b"), None);
        assert_eq!(crate::model::lookup("torchtune.models.llama3_1.qlora_llama3_1_8b").map(|(e, _)| e.id.as_str()), Some("meta-llama/Llama-3.1-8B"));
    }
}
