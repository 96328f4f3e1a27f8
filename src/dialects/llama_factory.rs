//! LLaMA-Factory YAML: TrainingArguments plus its own keys (`stage`,
//! `finetuning_type`, `template`, `cutoff_len`), and the v1 examples
//! (`model` with `micro_batch_size`, `model_class`, ...). Its YAML is read with
//! OmegaConf, which reads `5e-5` as a float (SCH008 does not apply).

use super::{Doc, Dialect, DerivedRoles, Evidence, Framework, KnownKeys, hf_trainer};
use crate::load::Node;
use crate::schema::{Manifest, Role};

pub(crate) const LLAMA_FACTORY: Dialect = Dialect(&LlamaFactory);

pub(crate) struct LlamaFactory;

impl Framework for LlamaFactory {
    /// `cutoff_len` truncates; without `packing`/`neat_packing` (on by default only for the `pt`
    /// stage) each batch is padded to its longest sample (LLaMA-Factory `hparams/data_args.py`
    /// `cutoff_len`, `packing`; `train/sft/workflow.py` `SFTDataCollatorWith4DAttentionMask`, a
    /// `DataCollatorForSeq2Seq` with `pad_to_multiple_of=8`).
    fn sequence_cap(&self, root: &Node) -> Option<String> {
        let packed = super::truthy(root, "packing") || super::truthy(root, "neat_packing") || root.get("stage").and_then(Node::as_str) == Some("pt");
        (root.get("cutoff_len").is_some() && !packed)
            .then(|| "`cutoff_len` truncates longer samples and each batch is padded to its longest (no `packing`)".to_owned())
    }

    fn name(&self) -> &'static str {
        "llama-factory"
    }

    fn title(&self) -> &'static str {
        "LLaMA-Factory"
    }

    fn doc(&self) -> Doc {
        Doc {
            evidence: "`model_name_or_path` with `stage`/`finetuning_type`/`template`; v1: `model` with `micro_batch_size`/`model_class`",
            roles: "HF keys (`model_name_or_path`), `cutoff_len`, `finetuning_type` (with `lora_rank`/`lora_target`, `oft_block_size`/`oft_target`), `quantization_bit`, `use_galore`/`use_apollo` (rank, layerwise), `use_adam_mini`, `use_badam`; v1: `model`, `micro_batch_size`, `bf16`, `enable_activation_checkpointing`, `peft_config` (`name`, `r`, `target_modules`), `quant_config`, `dist_config.name` (`fsdp2`), `optim_config.name`, `cp_size`",
            semantics: "v0 without `bf16`/`fp16`: a 16-bit base (the inferred compute dtype) with fp32 trainable parameters, fp32 for a full fine-tune; v1: `bf16` (default true) is FSDP2's mixed precision, a full fine-tune is fp32 without FSDP2, checkpointing on by default",
        }
    }

    fn evidence(&self, cx: &Evidence) -> Option<String> {
        let has = |k: &str| cx.has(k);
        let v0 = has("model_name_or_path")
            && (has("stage") || has("finetuning_type") || has("template") || has("export_dir") || has("infer_backend") || has("adapter_name_or_path"));
        let v1 = has("model") && (has("micro_batch_size") || has("model_class") || has("peft_config") || has("dist_config"));
        if v0 {
            Some("`model_name_or_path` with LLaMA-Factory keys (`stage`, `finetuning_type`, `template`)".to_owned())
        } else if v1 {
            Some("LLaMA-Factory v1 keys (`model` with `micro_batch_size`, `model_class`, `peft_config` or `dist_config`)".to_owned())
        } else {
            None
        }
    }

    /// TrainingArguments' keys.
    fn bindings(&self, _manifest: &Manifest) -> Vec<(Role, String)> {
        super::owned(&hf_trainer::BINDINGS)
    }

    /// The TrainingArguments switches, then v1's `micro_batch_size` and `model`,
    /// `cutoff_len` (the sequence length) and `quantization_bit`.
    fn derived(&self, root: &Node) -> Vec<super::Derived> {
        let mut out = DerivedRoles::default();
        if is_v1(root) {
            v1(root, &mut out);
            return out.0;
        }
        v0_inferred_precision(root, &mut out);
        hf_trainer::switches(root, &mut out);
        if let Some(micro) = root.get("micro_batch_size") {
            out.push(Role::MicroBatch, micro.to_json(), "micro_batch_size");
        }
        if let Some(cutoff) = root.get("cutoff_len") {
            out.push(Role::SequenceLength, cutoff.to_json(), "cutoff_len");
        }
        // v1 names the model with a string `model` (LLaMA-Factory `src/llamafactory/v1/config/model_args.py`, `ModelArguments.model`).
        if let Some(model) = root.get("model").filter(|m| m.as_str().is_some()) {
            out.push(Role::Model, model.to_json(), "model");
        }
        // `finetuning_type`: lora, oft, freeze, full (`src/llamafactory/hparams/finetuning_args.py`,
        // `FinetuningArguments.finetuning_type`); `use_dora: true` turns LoRA into DoRA.
        if let Some(kind) = root.get("finetuning_type") {
            let dora = kind.as_str() == Some("lora") && super::truthy(root, "use_dora");
            out.push(Role::Adapter, if dora { "dora".into() } else { kind.to_json() }, "finetuning_type");
        }
        // `lora_rank` (default 8) and `lora_target` (default `all`: every linear layer),
        // `FinetuningArguments` in `hparams/finetuning_args.py`; read when the run is LoRA.
        if matches!(root.get("finetuning_type").and_then(Node::as_str), None | Some("lora")) {
            if let Some(rank) = root.get("lora_rank") {
                out.push(Role::LoraRank, rank.to_json(), "lora_rank");
            }
            match root.get("lora_target") {
                Some(target) => out.push(Role::LoraTargets, target.to_json(), "lora_target"),
                None => out.push_default(Role::LoraTargets, "all".into(), "lora_target", anchor(root)),
            }
        }
        // Gradient checkpointing is on unless `disable_gradient_checkpointing`
        // (`ModelArguments`, `hparams/model_args.py`; applied in `model/model_utils/checkpointing.py`).
        if !super::truthy(root, "disable_gradient_checkpointing") && root.get("gradient_checkpointing").is_none() {
            out.push_default(Role::ActivationCheckpointing, "full".into(), "disable_gradient_checkpointing", anchor(root));
        }
        // `flash_attn` (`ModelArguments`, default `auto`) sets the model config's
        // `_attn_implementation` in `configure_attn_implementation`: `disabled` (`off` before
        // #7231, 2025-03-10) → `eager`, `sdpa` → `sdpa`, `fa2` → `flash_attention_2`, `fa3` →
        // `flash_attention_3`; `auto` returns without setting it, leaving transformers' default
        // (SDPA, what trainlint assumes when nothing is stated). hiyouga/LLaMA-Factory@ff6d4d12
        // `src/llamafactory/model/model_utils/attention.py`, `extras/constants.py`
        // `AttentionFunction`; @5c9da798 `src/llmtuner/model/utils/attention.py` (`off`).
        // Not bound: `auto` and Gemma 2's switch to FA2 or eager by what is installed.
        if let Some(kind) = root.get("flash_attn").and_then(Node::as_str) {
            let implementation = match kind {
                "disabled" | "off" => Some("eager"),
                "sdpa" => Some("sdpa"),
                "fa2" | "fa3" => Some("flash"),
                _ => None,
            };
            if let Some(implementation) = implementation {
                out.push(Role::Attention, implementation.into(), "flash_attn");
            }
        }
        // `enable_liger_kernel` applies Liger with its fused linear cross-entropy for training
        // (`model/model_utils/liger_kernel.py`).
        if super::truthy(root, "enable_liger_kernel") {
            out.push(Role::Logits, "fused".into(), "enable_liger_kernel");
        }
        // `stage`: `rm` (pairwise reward model), `dpo` with `pref_loss` (default `sigmoid`: DPO with a
        // reference model; `orpo`/`simpo` use none: `FinetuningArguments.use_ref_model`), `kto`
        // (`hparams/finetuning_args.py`, `train/dpo/workflow.py`).
        match root.get("stage").and_then(Node::as_str) {
            Some("rm") => out.push(Role::Preference, "reward".into(), "stage"),
            Some("kto") => out.push(Role::Preference, "kto".into(), "stage"),
            Some("dpo") => match root.get("pref_loss") {
                Some(loss) => out.push(Role::Preference, loss.to_json(), "pref_loss"),
                None => out.push(Role::Preference, "dpo".into(), "stage"),
            },
            _ => {}
        }
        // OFT: `oft_block_size` (default 32) and `oft_target` (default `all`), `OFTArguments` in
        // `hparams/finetuning_args.py`, passed to PEFT's `OFTConfig(oft_block_size=…, target_modules=…)`
        // (`model/adapter.py`). A stated `oft_rank` fixes the number of blocks instead (block size
        // d_in ÷ r per linear), which is not modelled: no block size is bound then.
        if root.get("finetuning_type").and_then(Node::as_str) == Some("oft") {
            let by_rank = root.get("oft_rank").and_then(Node::as_i64).is_some_and(|r| r > 0);
            match root.get("oft_block_size") {
                Some(size) if !by_rank => out.push(Role::OftBlockSize, size.to_json(), "oft_block_size"),
                None if !by_rank => out.push_default(Role::OftBlockSize, 32.into(), "oft_block_size", anchor(root)),
                _ => {}
            }
            match root.get("oft_target") {
                Some(target) => out.push(Role::LoraTargets, target.to_json(), "oft_target"),
                None => out.push_default(Role::LoraTargets, "all".into(), "oft_target", anchor(root)),
            }
        }
        // Memory-saving optimizers (`hparams/finetuning_args.py` `GaloreArguments`, `ApolloArguments`,
        // `BAdamArgument`, `use_adam_mini`; built in `train/trainer_utils.py` `create_custom_optimizer`).
        // `*_layerwise` makes one optimizer per parameter, stepped in its post-accumulate-grad hook
        // (`_create_galore_optimizer`: `param.register_post_accumulate_grad_hook(optimizer_hook)`,
        // `optimizer_dict[param].zero_grad()`): the optimizer runs in the backward.
        for (switch, name, rank, layerwise) in [
            ("use_galore", "galore_adamw", "galore_rank", "galore_layerwise"),
            ("use_apollo", "apollo_adamw", "apollo_rank", "apollo_layerwise"),
        ] {
            if super::truthy(root, switch) {
                out.push(Role::Optimizer, name.into(), switch);
                // `galore_rank` / `apollo_rank` default to 16 (`GaloreArguments`, `ApolloArguments`).
                match root.get(rank) {
                    Some(r) => out.push(Role::OptimizerRank, r.to_json(), rank),
                    None => out.push_default(Role::OptimizerRank, 16.into(), rank, switch),
                }
                if super::truthy(root, layerwise) {
                    out.push(Role::OptimizerInBackward, true.into(), layerwise);
                }
            }
        }
        if super::truthy(root, "use_adam_mini") {
            out.push(Role::Optimizer, "adam_mini".into(), "use_adam_mini");
        }
        if super::truthy(root, "use_badam") {
            out.push(Role::Optimizer, "badam".into(), "use_badam");
            // "Pure bf16 / BAdam detected, remaining trainable params in half precision"
            // (`model/adapter.py`); without `bf16`/`fp16` no autocast runs and the compute dtype is
            // the checkpoint's (`hparams/parser.py`, `extras/misc.py` `infer_optim_dtype`: bf16 where
            // the GPU has it): the model trains in pure 16-bit.
            if ["pure_bf16", "bf16", "fp16"].iter().all(|k| root.get(k).is_none()) {
                out.push(Role::Precision, "bf16-true".into(), "use_badam");
            }
        }
        // bitsandbytes 4-bit with `double_quantization` (default true: `hparams/model_args.py`,
        // passed as `bnb_4bit_use_double_quant`, `model/model_utils/quantization.py`).
        if let Some(bits) = root.get("quantization_bit").and_then(Node::as_i64) {
            let double = root.get("double_quantization").map(|n| n.to_json().as_bool()) != Some(Some(false));
            let four = if double { "int4-double-quant" } else { "int4" };
            out.push(Role::BaseWeights, if bits <= 4 { four } else { "int8" }.into(), "quantization_bit");
        }
        out.0
    }

    fn known_keys(&self, _root: &Node) -> Option<KnownKeys> {
        Some(KnownKeys { path: String::new(), keys: &hf_trainer::BATCH_KEYS, strict: false, reported_elsewhere: &[] })
    }

    fn sequence_length_keys(&self) -> &'static [&'static str] {
        &["cutoff_len"]
    }
    /// transformers `training_args.py`: `deepspeed` is the path of a DeepSpeed config (or a dict).
    fn deepspeed_file_key(&self) -> Option<&'static str> {
        Some("deepspeed")
    }

    /// LLaMA-Factory `hparams/finetuning_args.py`: `use_galore`, `use_apollo`,
    /// `use_badam` and `use_adam_mini` replace AdamW with memory-saving optimizers (priced by
    /// the optimizer components; BAdam's ratio mode is not); `deepspeed` / `fsdp` are TrainingArguments'.
    /// `llamafactory-cli train` trains only with `do_train: true` (LLaMA-Factory
    /// `src/llamafactory/train/sft/workflow.py`: `if training_args.do_train:`; HF's
    /// `do_train` defaults to false); inference (`llamafactory-cli chat/api`) and
    /// merge/export configs (`export_dir`) do not set it. v1 configs have no `do_train`:
    /// they train on their `train_dataset` (`src/llamafactory/v1/config/data_args.py`).
    fn not_training(&self, root: &Node) -> Option<String> {
        match root.get("do_train").map(|n| &n.value) {
            Some(crate::load::tree::Value::Bool(true)) => None,
            None if root.get("train_dataset").is_some() => None,
            Some(_) => Some("`do_train` is not true: LLaMA-Factory does not train with this config".to_owned()),
            None if root.get("export_dir").is_some() => Some("an export config (`export_dir`, no `do_train`): LLaMA-Factory merges or exports, it does not train".to_owned()),
            None => Some("no `do_train: true`: LLaMA-Factory trains only when it is set (inference and export configs leave it out)".to_owned()),
        }
    }

    fn memory_unmodelled(&self, root: &Node) -> Option<super::Unmodelled> {
        // v1 reads its DeepSpeed config from `dist_config.config_file`
        // (`v1/plugins/trainer_plugins/distributed/deepspeed.py`: `DeepSpeedPlugin(hf_ds_config=config_file)`),
        // which this dialect does not open yet; `fsdpturbo` adds expert parallelism (`fsdpturbo.py`).
        if is_v1(root)
            && let Some(name @ ("deepspeed" | "fsdpturbo")) = root.get_dotted("dist_config.name").and_then(Node::as_str)
        {
            let reason = if name == "deepspeed" {
                "LLaMA-Factory v1 reads the DeepSpeed config `dist_config.config_file` names, which trainlint does not read for v1 yet"
            } else {
                "LLaMA-Factory v1's `fsdpturbo` shards experts as well (expert parallelism), which trainlint does not model yet"
            };
            return Some(super::Unmodelled { path: "dist_config.name".to_owned(), reason: reason.to_owned() });
        }
        // KTransformers (`use_kt`) runs the routed MoE experts on the CPU (LLaMA-Factory
        // `docs/en/advanced/ktransformers.md`, `hparams/model_args.py` `use_kt`); Muon (`use_muon`)
        // keeps one momentum buffer for the 2-D hidden weights and AdamW's two for the rest
        // (`train/trainer_utils.py` `_create_muon_optimizer`). Neither is modelled yet.
        for (key, reason) in [
            ("use_kt", "KTransformers keeps the routed MoE experts on the CPU, which trainlint does not model yet"),
            ("use_muon", "the Muon optimizer (one momentum buffer for hidden matrices, AdamW for the rest) is not modelled yet"),
        ] {
            if super::truthy(root, key) {
                return Some(super::Unmodelled { path: key.to_owned(), reason: reason.to_owned() });
            }
        }
        // BAdam's `badam_mode: ratio` updates a random share of every layer's weights (a sparse
        // mask), which is not modelled; `layer` (the default) is.
        if super::truthy(root, "use_badam") && root.get("badam_mode").and_then(Node::as_str) == Some("ratio") {
            return Some(super::Unmodelled {
                path: "badam_mode".to_owned(),
                reason: "BAdam's ratio mode updates a sparse share of every layer, which trainlint does not model yet".to_owned(),
            });
        }
        super::hf_trainer::sharding_unmodelled(root)
    }
}

/// Where a LLaMA-Factory default the config does not write is shown: the key that says what
/// the run trains (`finetuning_type`), else the model.
fn anchor(root: &Node) -> &'static str {
    if root.get("finetuning_type").is_some() { "finetuning_type" } else { "model_name_or_path" }
}

/// A v1 config (`llamafactory-cli v1 train`, LLaMA-Factory `src/llamafactory/v1/`): it names the model
/// with a string `model` (`v1/config/model_args.py`) and has no v0 `model_name_or_path`.
fn is_v1(root: &Node) -> bool {
    root.get("model").is_some_and(|m| m.as_str().is_some()) && root.get("model_name_or_path").is_none()
}

/// LLaMA-Factory v1's own arguments and defaults (LLaMA-Factory @ ff6d4d12, `src/llamafactory/v1/`), which
/// are not TrainingArguments':
/// - `config/training_args.py`: `micro_batch_size` (default 1), `cutoff_len` (2048), `bf16` (True),
///   `enable_activation_checkpointing` (True: `core/base_trainer.py` calls
///   `gradient_checkpointing_enable({"use_reentrant": False})`), `dist_config`, `optim_config`
///   (none: `torch.optim.AdamW` over the trainable parameters, `BaseTrainer._init_optimizer`), `cp_size`;
/// - `config/model_args.py`: `model`, `peft_config`, `quant_config`;
/// - precision (`core/model_engine.py` `_init_model`): the checkpoint is loaded with `dtype="auto"`; a full
///   fine-tune (no `peft_config`) is then cast to fp32 (`model.to(torch.float32)`), and `bf16` reaches only
///   FSDP2 (`BaseTrainer._shard_model` → `fsdp2.py` `MixedPrecisionPolicy(param_dtype=bfloat16,
///   reduce_dtype=float32)`): bf16 compute on fp32 master weights under `dist_config.name: fsdp2`, fp32
///   everywhere without it (no autocast in `BaseTrainer.fit`). LoRA and freeze keep the base in the
///   checkpoint's 16-bit dtype and train fp32 parameters (PEFT's adapters; `plugins/model_plugins/peft.py`
///   `get_freeze_model`: `cast_trainable_params_to_fp32` True);
/// - `plugins/model_plugins/peft.py` `LoraParams`: `r` (8), `target_modules` (`all`: every linear but the
///   head), `use_dora`; `FreezeParams` for `name: freeze`;
/// - `plugins/model_plugins/quantization.py`: `quant_config.quantization_bit` (bitsandbytes, 4 when not
///   given), with no `prepare_model_for_kbit_training` call.
fn v1(root: &Node, out: &mut DerivedRoles) {
    let anchor = "model";
    let text = |path: &str| root.get_dotted(path).and_then(Node::as_str);
    // The training defaults only for a run that trains (a `train_dataset`): an export config
    // (`peft_config.export_dir`) has no micro batch to check (`Framework::not_training`).
    let trains = root.get("train_dataset").is_some();
    match root.get("micro_batch_size") {
        Some(micro) => out.push(Role::MicroBatch, micro.to_json(), "micro_batch_size"),
        None if trains => out.push_default(Role::MicroBatch, 1.into(), "micro_batch_size", anchor),
        None => {}
    }
    match root.get("cutoff_len") {
        Some(cutoff) => out.push(Role::SequenceLength, cutoff.to_json(), "cutoff_len"),
        None if trains => out.push_default(Role::SequenceLength, 2048.into(), "cutoff_len", anchor),
        None => {}
    }
    if let Some(model) = root.get("model") {
        out.push(Role::Model, model.to_json(), "model");
    }
    let bf16 = root.get("bf16").map(|n| n.to_json().as_bool() == Some(true)).unwrap_or(true);
    let peft = text("peft_config.name");
    let fsdp2 = text("dist_config.name") == Some("fsdp2");
    let precision = match (peft, bf16, fsdp2) {
        (Some(_), true, _) | (None, true, true) => "bf16-mixed",
        _ => "32-true",
    };
    match root.get("bf16") {
        Some(_) => out.push(Role::Precision, precision.into(), "bf16"),
        None => out.push_default(Role::Precision, precision.into(), "bf16", anchor),
    }
    match root.get("enable_activation_checkpointing").map(|n| n.to_json().as_bool()) {
        Some(Some(false)) => out.push(Role::ActivationCheckpointing, "none".into(), "enable_activation_checkpointing"),
        Some(_) => out.push(Role::ActivationCheckpointing, "full".into(), "enable_activation_checkpointing"),
        None => out.push_default(Role::ActivationCheckpointing, "full".into(), "enable_activation_checkpointing", anchor),
    }
    match peft {
        Some("lora") => {
            let dora = super::truthy(root, "peft_config.use_dora");
            out.push(Role::Adapter, if dora { "dora" } else { "lora" }.into(), "peft_config.name");
            match root.get_dotted("peft_config.r") {
                Some(rank) => out.push(Role::LoraRank, rank.to_json(), "peft_config.r"),
                None => out.push_default(Role::LoraRank, 8.into(), "peft_config.r", "peft_config.name"),
            }
            match root.get_dotted("peft_config.target_modules") {
                Some(targets) => out.push(Role::LoraTargets, targets.to_json(), "peft_config.target_modules"),
                None => out.push_default(Role::LoraTargets, "all".into(), "peft_config.target_modules", "peft_config.name"),
            }
        }
        Some(name) => out.push(Role::Adapter, name.into(), "peft_config.name"),
        None => {}
    }
    if root.get_dotted("quant_config.name").is_some_and(|n| n.as_str().is_some()) {
        let bits = root.get_dotted("quant_config.quantization_bit").and_then(Node::as_i64).unwrap_or(4);
        // `QuantizationParams.double_quantization` defaults to true (`bnb_4bit_use_double_quant`).
        let double = root.get_dotted("quant_config.double_quantization").map(|n| n.to_json().as_bool()) != Some(Some(false));
        let four = if double { "int4-double-quant" } else { "int4" };
        out.push(Role::BaseWeights, if bits <= 4 { four } else { "int8" }.into(), "quant_config.name");
    }
    if fsdp2 {
        out.push(Role::Fsdp, true.into(), "dist_config.name");
        // `fsdp2.py`: `offload_params` → `CPUOffloadPolicy`.
        if super::truthy(root, "dist_config.offload_params") {
            out.push(Role::OffloadParams, true.into(), "dist_config.offload_params");
        }
    }
    if let Some(name) = root.get_dotted("optim_config.name") {
        out.push(Role::Optimizer, name.to_json(), "optim_config.name");
    }
    if let Some(cp) = root.get("cp_size") {
        out.push(Role::ContextParallel, cp.to_json(), "cp_size");
    }
}

/// v0 without `bf16`, `fp16` or `pure_bf16`: no autocast, and the model is loaded in the compute dtype
/// LLaMA-Factory infers (`model/patcher.py` `patch_config`: `infer_optim_dtype(config.torch_dtype)`,
/// `extras/misc.py`: bf16 where the device has it and the checkpoint is bf16 or unstated, else fp16),
/// then its trainable parameters are upcast to fp32 (`model/adapter.py` `init_adapter`:
/// `cast_trainable_params_to_fp32` unless `pure_bf16` or BAdam). So a full fine-tune trains in fp32,
/// and LoRA, OFT and freeze train fp32 parameters on a 16-bit base (bf16 or fp16, by the GPU: priced as
/// 16-bit mixed precision). LLaMA-Factory @ ff6d4d12.
fn v0_inferred_precision(root: &Node, out: &mut DerivedRoles) {
    // `bf16: false` is not stated precision: the dtype is inferred all the same (a `true` or `auto` decides).
    let stated = |key: &str| root.get(key).is_some_and(|n| n.to_json().as_bool() != Some(false));
    if ["bf16", "fp16", "pure_bf16"].into_iter().any(stated) || super::truthy(root, "use_badam") {
        return;
    }
    // `FinetuningArguments.finetuning_type` defaults to `lora` (`hparams/finetuning_args.py`).
    let full = root.get("finetuning_type").and_then(Node::as_str) == Some("full");
    out.push_default(Role::Precision, if full { "32-true" } else { "16-mixed" }.into(), "bf16", anchor(root));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attention(text: &str) -> Option<serde_json::Value> {
        let root = crate::load::yaml::parse(text).expect("valid YAML").root;
        LlamaFactory.derived(&root).into_iter().find(|d| d.role == Role::Attention).map(|d| d.value)
    }

    #[test]
    fn flash_attn_sets_the_attention_implementation() {
        let base = "model_name_or_path: meta-llama/Llama-2-7b-hf\nstage: sft\nfinetuning_type: lora\n";
        for (value, expected) in [("off", Some("eager")), ("disabled", Some("eager")), ("sdpa", Some("sdpa")), ("fa2", Some("flash")), ("fa3", Some("flash")), ("auto", None)] {
            assert_eq!(attention(&format!("{base}flash_attn: {value}\n")), expected.map(Into::into), "flash_attn: {value}");
        }
        assert_eq!(attention(base), None, "unstated: transformers' default");
    }
}
