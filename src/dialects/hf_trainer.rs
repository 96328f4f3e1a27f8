//! Hugging Face `TrainingArguments` / TRL configs (flat YAML or JSON, read by
//! `HfArgumentParser`; FACTS.md §6 has the key names). Frameworks built on
//! TrainingArguments reuse its bindings and switches from here.

use super::{Doc, Dialect, DerivedRoles, Evidence, Framework, KnownKeys};
use crate::load::Node;
use crate::schema::{Manifest, Role};

pub(crate) const HF_TRAINER: Dialect = Dialect(&HfTrainer);

pub(crate) struct HfTrainer;

/// `model_name_or_path` is not a TrainingArguments field: it is TRL's `ModelConfig.model_name_or_path`
/// (trl `trl/trainer/model_config.py`), the `ModelArguments` of the transformers example scripts
/// (`examples/pytorch/language-modeling/run_clm.py`) and of the trainers built on them
/// (each dialect file cites its own), parsed from the same file by `HfArgumentParser`.
pub(crate) const BINDINGS: [(Role, &str); 11] = [
    (Role::Model, "model_name_or_path"),
    (Role::MicroBatch, "per_device_train_batch_size"),
    (Role::Accumulation, "gradient_accumulation_steps"),
    (Role::LearningRate, "learning_rate"),
    (Role::Optimizer, "optim"),
    // `torch_compile`: "Whether or not to compile the model using PyTorch 2.0 torch.compile" (`training_args.py`).
    (Role::Compile, "torch_compile"),
    // `accelerator_config: {gradient_accumulation_kwargs: {sync_each_batch: true}}` (`trainer_pt_utils.py`
    // `AcceleratorConfig`, passed to accelerate's `GradientAccumulationPlugin`): no `no_sync` while accumulating.
    (Role::SyncEachBatch, "accelerator_config.gradient_accumulation_kwargs.sync_each_batch"),
    (Role::SequenceLength, "max_seq_length"),
    // TRL's trainers: `SFTConfig.max_length` (the spelling since TRL 0.20; `max_seq_length` before),
    // `DPOConfig`/`ORPOConfig`/`KTOConfig.max_length` (prompt + completion, `trl/trainer/dpo_config.py`).
    (Role::SequenceLength, "max_length"),
    // The scripts built on TrainingArguments add their own: `model_max_length` ("Maximum sequence
    // length. Sequences will be right padded (and possibly truncated).", tatsu-lab/stanford_alpaca
    // `train.py` and lm-sys/FastChat `fastchat/train/train.py` `TrainingArguments`), and run_clm's
    // `block_size` (the length texts are grouped into, transformers
    // `examples/pytorch/language-modeling/run_clm.py` `DataTrainingArguments`).
    (Role::SequenceLength, "model_max_length"),
    (Role::SequenceLength, "block_size"),
];

/// The TrainingArguments keys a typo most often hides.
pub(crate) const BATCH_KEYS: [&str; 8] = [
    "per_device_train_batch_size",
    "per_device_eval_batch_size",
    "gradient_accumulation_steps",
    "learning_rate",
    "num_train_epochs",
    "max_steps",
    "warmup_steps",
    "eval_accumulation_steps",
];

/// Maximum sequence length spellings: TRL's `max_seq_length` / `max_length`,
/// the tokenizer's `model_max_length`.
pub(crate) const SEQUENCE_LENGTH_KEYS: [&str; 3] = ["max_seq_length", "max_length", "model_max_length"];

/// The switches of TrainingArguments and the frameworks built on it:
/// `bf16`/`fp16` (mixed precision), `gradient_checkpointing`,
/// `flash_attention`/`sdp_attention`, `load_in_4bit`/`load_in_8bit`, TRL's `use_peft`.
pub(crate) fn switches(root: &Node, out: &mut DerivedRoles) {
    switches_launched(root, out, None);
}

/// `switches`, for a run launched by `program` (the launch line's, as written): a GRPO script
/// makes the run GRPO's (`grpo`).
fn switches_launched(root: &Node, out: &mut DerivedRoles, program: Option<&str>) {
    let truthy = |path: &str| super::truthy(root, path);
    // `pure_bf16` trains "in purely bf16 precision (without AMP)" (`FinetuningArguments`,
    // `hparams/finetuning_args.py`): bf16 weights, no fp32 master copy. `bf16` is AMP.
    // `"auto"` is not bf16: it is decided at launch (a framework's own `auto`, or a
    // value filled in by another tool), so it is the precision `auto`, unknown
    // until then; HW001 never reports it (issue 15 item 5).
    let on = |path: &str| {
        root.get_dotted(path).is_some_and(|n| n.value == crate::load::Value::Bool(true) || n.as_str() == Some("true") || matches!(n.value, crate::load::Value::Int(i) if i != 0))
    };
    let auto = |path: &str| root.get_dotted(path).and_then(|n| n.as_str()).is_some_and(|s| s.eq_ignore_ascii_case("auto"));
    if on("pure_bf16") {
        out.push(Role::Precision, "bf16-true".into(), "pure_bf16");
    } else if on("bf16") {
        out.push(Role::Precision, "bf16-mixed".into(), "bf16");
    } else if on("fp16") {
        out.push(Role::Precision, "16-mixed".into(), "fp16");
    } else if let Some(path) = ["pure_bf16", "bf16", "fp16"].into_iter().find(|p| auto(p)) {
        out.push(Role::Precision, "auto".into(), path);
    }
    // `gradient_checkpointing: offload` (Axolotl `utils/schemas/training.py`: checkpointing with
    // the kept layer inputs offloaded to the CPU) is checkpointing with offloaded activations.
    if root.get("gradient_checkpointing").and_then(Node::as_str) == Some("offload") {
        out.push(Role::ActivationCheckpointing, "offload".into(), "gradient_checkpointing");
    } else if truthy("gradient_checkpointing") {
        out.push(Role::ActivationCheckpointing, "full".into(), "gradient_checkpointing");
    } else if let Some(path) = ["fsdp_config.activation_checkpointing", "fsdp_config.fsdp_activation_checkpointing"]
        .into_iter()
        .find(|path| root.get_dotted(path).is_some_and(|n| n.to_json().as_bool() == Some(true)))
    {
        // FSDP's own activation checkpointing (accelerate `FullyShardedDataParallelPlugin.activation_checkpointing`,
        // `fsdp_activation_checkpointing` in its config; Axolotl passes `fsdp_config` to accelerate): each
        // wrapped transformer block is checkpointed, as `gradient_checkpointing` does.
        out.push(Role::ActivationCheckpointing, "full".into(), path);
    }
    if truthy("flash_attention") {
        out.push(Role::Attention, "flash".into(), "flash_attention");
    } else if truthy("sdp_attention") {
        out.push(Role::Attention, "sdpa".into(), "sdp_attention");
    } else if let Some(implementation) = root.get("attn_implementation").filter(|n| n.as_str().is_some()) {
        // transformers' `attn_implementation` (`eager`, `sdpa`, `flash_attention_2`, ...), which
        // Axolotl and TRL's `ModelConfig` pass to `from_pretrained`.
        out.push(Role::Attention, implementation.to_json(), "attn_implementation");
    }
    // TRL's preference trainers: `DPOConfig.loss_type` (`sigmoid`, `ipo`, `hinge`, ...: DPO's family,
    // with a reference model; trl `trainer/dpo_config.py`); without it, `beta` with `max_prompt_length`
    // is a paired preference config (DPOConfig, ORPOConfig and CPOConfig all have both) whose
    // reference model is not known: paired sequences, no reference counted. GRPOConfig has
    // `beta` (its KL coefficient) and `max_prompt_length` too, and `loss_type` (0.17+: `grpo`,
    // `bnpo`, `dr_grpo`): a GRPO run is no preference pair (`grpo`).
    let grpo = grpo(root, out, program);
    if grpo {
    } else if let Some(loss) = root.get("loss_type").filter(|l| l.as_str().is_some_and(|s| s.parse::<crate::schema::typed::Preference>().is_ok())) {
        // `precompute_ref_log_probs: true` (TRL `DPOConfig`) computes the reference log-probabilities
        // before training: the pair is still concatenated, and no reference model is held then.
        let dpo = loss.as_str().and_then(|s| s.parse::<crate::schema::typed::Preference>().ok()) == Some(crate::schema::typed::Preference::Dpo);
        if dpo && truthy("precompute_ref_log_probs") {
            out.push(Role::Preference, "paired".into(), "precompute_ref_log_probs");
        } else {
            out.push(Role::Preference, loss.to_json(), "loss_type");
        }
    } else if root.get("beta").is_some() && root.get("max_prompt_length").is_some() {
        out.push(Role::Preference, "paired".into(), "beta");
    }
    // TRL `ModelConfig.use_peft` / `use_dora` (trl `trl/trainer/model_config.py`): a PEFT LoRA (DoRA) adapter.
    // The same switch in the training scripts that HF-argument launches run and projects copy:
    // PEFT's `examples/sft/train.py` `ModelArguments.use_peft_lora` (huggingface/peft @93288afb
    // L54), Qwen's and FastChat's `finetune.py`/`train_lora.py` `use_lora` (QwenLM/Qwen @00dceebb
    // `finetune.py` L50: `get_peft_model` when set).
    if let Some(key) = ["use_peft", "use_peft_lora", "use_lora"].into_iter().find(|k| truthy(k)) {
        out.push(Role::Adapter, if truthy("use_dora") { "dora" } else { "lora" }.into(), key);
    }
    // TRL `ModelConfig.lora_r` / `lora_target_modules` (trl `trl/trainer/model_config.py`).
    if let Some(rank) = root.get("lora_r") {
        out.push(Role::LoraRank, rank.to_json(), "lora_r");
    }
    if let Some(targets) = root.get("lora_target_modules") {
        out.push(Role::LoraTargets, targets.to_json(), "lora_target_modules");
    }
    // `use_liger_kernel` (TrainingArguments, transformers `training_args.py`) patches the model
    // with Liger's fused linear cross-entropy (liger-kernel `_apply_liger_kernel`,
    // `fused_linear_cross_entropy=True` by default): the logits are never materialised whole.
    // TRL's `SFTConfig.use_liger` (0.12–0.17: "Monkey patch the model with Liger kernels to increase
    // throughput and reduce memory usage", deprecated for `use_liger_kernel` in 0.16, removed in
    // trl PR #3364) did the same. GRPOConfig's `use_liger_loss` (0.17+: "Whether to use the Liger
    // GRPO loss", `GRPOTrainer.compute_liger_loss` @v0.17.0 with `LigerFusedLinearGRPOLoss`)
    // computes the loss from the last hidden states, chunk by chunk.
    if let Some(key) = ["use_liger_kernel", "use_liger", "use_liger_loss"].into_iter().find(|k| truthy(k)) {
        out.push(Role::Logits, "fused".into(), key);
    }
    if full_shard(root) {
        let key = if root.get("fsdp").is_some() { "fsdp" } else { "fsdp_config" };
        out.push(Role::Fsdp, true.into(), key);
        if fsdp_offloads(root) {
            out.push(Role::OffloadParams, true.into(), key);
        }
    }
    // `optim: galore_*_layerwise` / `apollo_adamw_layerwise` make one optimizer per parameter,
    // stepped in its post-accumulate-grad hook (transformers `trainer.py` `_get_galore_optimizer`:
    // `param.register_post_accumulate_grad_hook(optimizer_hook)`), and LOMO/AdaLomo update each
    // parameter inside the backward (`Trainer.training_step`: `_is_lomo_optimizer` → the loss is
    // passed to `optimizer.fused_backward`; lomo-optim `lomo.py`): the optimizer runs in the backward.
    // GaLore / APOLLO through `optim`: their rank is `optim_args`' `rank=` (a "k=v,k=v" string), 128
    // when not given (transformers `trainer.py` `_get_galore_optimizer`: `int(optim_args.pop("rank", 128))`;
    // `_get_apollo_optimizer` the same). The projected modules are `optim_target_modules`; the memory
    // model projects every linear but the head (an approximation where fewer are named).
    for key in ["optim", "optimizer"] {
        if root.get(key).and_then(Node::as_str).is_some_and(|o| o.starts_with("galore_") || o.starts_with("apollo_")) {
            let stated = root.get("optim_args").and_then(Node::as_str).and_then(|args| {
                args.split(',').filter_map(|kv| kv.split_once('=')).find(|(k, _)| k.trim() == "rank").and_then(|(_, v)| v.trim().parse::<u64>().ok())
            });
            match stated {
                Some(rank) => out.push(Role::OptimizerRank, rank.into(), "optim_args"),
                None => out.push_default(Role::OptimizerRank, 128.into(), "optim_args", key),
            }
        }
    }
    // Axolotl spells it `optimizer` and passes it on as `optim` (`utils/schemas/training.py`).
    for key in ["optim", "optimizer"] {
        if let Some(optim) = root.get(key).and_then(Node::as_str).map(str::to_ascii_lowercase)
            && (optim.ends_with("_layerwise") || optim == "lomo" || optim == "adalomo")
        {
            out.push(Role::OptimizerInBackward, true.into(), key);
        }
    }
    // `load_in_4bit`/`load_in_8bit` (TRL `ModelConfig`, transformers' loading switches); PEFT's
    // `examples/sft/train.py` `use_4bit_quantization`/`use_8bit_quantization` (@93288afb L62:
    // a `BitsAndBytesConfig`); Qwen's `q_lora` (@00dceebb `finetune.py` L63, L306: 4-bit GPTQ on
    // its Int4 checkpoints, with `use_lora`) and FastChat's (`train_lora.py`: bitsandbytes 4-bit).
    if let Some(key) = ["load_in_4bit", "use_4bit_quantization", "q_lora"].into_iter().find(|k| truthy(k)) {
        out.push(Role::BaseWeights, "int4".into(), key);
    } else if let Some(key) = ["load_in_8bit", "use_8bit_quantization"].into_iter().find(|k| truthy(k)) {
        out.push(Role::BaseWeights, "int8".into(), key);
    }
}

/// TRL's GRPO (`GRPOConfig`, trl `trl/trainer/grpo_config.py`): `num_generations` completions per
/// prompt (default 8 since trl 0.14), `steps_per_generation` and `generation_batch_size` (0.18+).
/// A config that does not state `num_generations` is GRPO's when it has the keys only GRPOConfig
/// has: `reward_funcs`/`reward_weights` (open-r1's `GRPOScriptArguments`, GRPOConfig 0.16+), or
/// `max_completion_length` with vLLM generation settings (`use_vllm`, `vllm_device`,
/// `vllm_gpu_memory_utilization`, `vllm_mode`), or when the launch line's program is a GRPO
/// script (`grpo_program`: open-r1's `src/open_r1/grpo.py` @bd0e15b parses
/// `TrlParser((GRPOScriptArguments, GRPOConfig, ModelConfig))` and builds a `GRPOTrainer`).
///
/// A GRPO run also gets what the memory model reads (`estimate::grpo`): `max_completion_length`
/// (GRPOConfig's default 256 in every release 0.14–0.29), the length of a trained sequence,
/// prompt + completion (`GRPOTrainer.compute_loss` @v0.14.0 concatenates the prompt, left-truncated
/// to `max_prompt_length`, default 512 through 0.25, with its completion), the KL coefficient
/// `beta` as stated (its default moved from 0.04 to 0.0 in 0.19: the estimate reads it by release),
/// `use_vllm` and `ds3_gather_for_generation` (0.15+). Whether the run is GRPO's is returned.
fn grpo(root: &Node, out: &mut DerivedRoles, program: Option<&str>) -> bool {
    for (role, key) in [(Role::Generations, "num_generations"), (Role::GenerationSteps, "steps_per_generation"), (Role::GenerationBatch, "generation_batch_size")] {
        if let Some(node) = root.get(key).filter(|n| n.to_json().is_u64()) {
            out.push(role, node.to_json(), key);
        }
    }
    let vllm = ["use_vllm", "vllm_device", "vllm_gpu_memory_utilization", "vllm_mode"].into_iter().find(|k| root.get(k).is_some());
    let marker = ["reward_funcs", "reward_weights"].into_iter().find(|k| root.get(k).is_some()).or(vllm.filter(|_| root.get("max_completion_length").is_some()));
    // A GRPO program with flags: the defaults are shown at the first GRPO or batch key it has.
    let by_program = program.filter(|p| grpo_program(p)).and_then(|_| {
        ["max_completion_length", "max_prompt_length", "per_device_train_batch_size", "model_name_or_path"].into_iter().find(|k| root.get(k).is_some())
    });
    let anchor = if root.get("num_generations").is_some() { "num_generations" } else if let Some(anchor) = marker.or(by_program) { anchor } else { return false };
    if root.get("num_generations").is_none() {
        out.push_default(Role::Generations, 8.into(), "num_generations", anchor);
    }
    let length = |key: &str| root.get(key).and_then(|n| n.to_json().as_u64());
    let completion = length("max_completion_length");
    match completion {
        Some(tokens) => out.push(Role::CompletionLength, tokens.into(), "max_completion_length"),
        None => out.push_default(Role::CompletionLength, 256.into(), "max_completion_length", anchor),
    }
    let prompt = length("max_prompt_length").unwrap_or(512);
    let at = ["max_completion_length", "max_prompt_length"].into_iter().find(|k| root.get(k).is_some()).unwrap_or(anchor);
    out.push_default(Role::SequenceLength, (prompt + completion.unwrap_or(256)).into(), "max_prompt_length + max_completion_length", at);
    if let Some(beta) = root.get("beta").filter(|n| n.to_json().is_number()) {
        out.push(Role::KlCoefficient, beta.to_json(), "beta");
    }
    for (role, key) in [(Role::VllmGeneration, "use_vllm"), (Role::GatherForGeneration, "ds3_gather_for_generation")] {
        if root.get(key).is_some() {
            out.push(role, super::truthy(root, key).into(), key);
        }
    }
    true
}

/// GRPOConfig's own keys by the release that added them (the fields of `trl/trainer/grpo_config.py`
/// at each tag against the one before; `TrainingArguments` keys it re-declares, such as `bf16` and
/// `logging_steps` in 0.19, and `reward_weights`, which open-r1's script arguments may carry, are
/// left out). TRL's parser refuses a key its GRPOConfig does not have (`TrlParser`,
/// `HfArgumentParser`), so a config that writes one runs on that release or a later one.
const GRPO_KEYS_SINCE: [(u64, &[&str]); 4] = [
    (15, &["ds3_gather_for_generation", "log_completions", "sync_ref_model", "ref_model_sync_steps", "ref_model_mixup_alpha", "vllm_dtype", "vllm_max_model_len"]),
    (
        16,
        &[
            "num_iterations",
            "epsilon",
            "epsilon_high",
            "scale_rewards",
            "vllm_server_host",
            "vllm_server_port",
            "vllm_server_timeout",
            "vllm_guided_decoding_regex",
            "vllm_enable_prefix_caching",
            "cache_implementation",
        ],
    ),
    (17, &["mask_truncated_completions", "use_liger_loss", "num_completions_to_print", "wandb_log_unique_prompts"]),
    (18, &["steps_per_generation", "generation_batch_size", "vllm_mode", "vllm_server_base_url", "vllm_tensor_parallel_size"]),
];

/// The newest TRL minor release (0.x) whose GRPOConfig key the config writes, with the key: the
/// oldest release the run can be launched on (`GRPO_KEYS_SINCE`).
pub(crate) fn grpo_release_floor(root: &Node) -> Option<(u64, &'static str)> {
    GRPO_KEYS_SINCE.iter().rev().find_map(|(minor, keys)| keys.iter().find(|k| root.get(k).is_some()).map(|k| (*minor, *k)))
}

/// A launch line's program that runs TRL's GRPO: a Python script named for it (open-r1's
/// `src/open_r1/grpo.py`, TRL's `trl/scripts/grpo.py`, `train_grpo.py`), `grpo` a whole word of
/// its name. (TRL's own command line, `trl grpo`, is not a launch line trainlint reads yet.)
pub(crate) fn grpo_program(program: &str) -> bool {
    let name = program.rsplit(['/', '\\']).next().unwrap_or(program).to_ascii_lowercase();
    name.strip_suffix(".py").unwrap_or(&name).split(|c: char| !c.is_ascii_alphanumeric()).any(|word| word == "grpo")
}

/// Flat TrainingArguments, for the migrations (MIG004): two or more HF keys
/// at the top level (old names included), and none of the marker keys of the
/// launch, DeepSpeed or `base_model`-style configs that share some HF names.
fn is_training_arguments(root: &Node) -> bool {
    let hf =
        ["per_device_train_batch_size", "per_gpu_train_batch_size", "output_dir", "num_train_epochs", "evaluation_strategy", "eval_strategy", "learning_rate"];
    let foreign = ["base_model", "micro_batch_size", "compute_environment", "distributed_type", "train_micro_batch_size_per_gpu"];
    hf.iter().filter(|k| root.get(k).is_some()).count() >= 2 && !foreign.iter().any(|k| root.get(k).is_some())
}

impl Framework for HfTrainer {
    /// TRL's `max_length`/`max_seq_length` truncate; without `packing` its collator pads each
    /// batch to its longest sample (trl `trainer/sft_trainer.py` `DataCollatorForLanguageModeling`
    /// `pad`). `model_max_length` is not a cap: the scripts that pass it (Qwen's and FastChat's
    /// `finetune.py`/`train.py`) tokenize with `padding="max_length"`.
    fn sequence_cap(&self, root: &Node) -> Option<String> {
        let key = ["max_seq_length", "max_length"].into_iter().find(|k| root.get(k).is_some())?;
        (!super::truthy(root, "packing")).then(|| format!("`{key}` truncates longer samples and each batch is padded to its longest (no `packing`)"))
    }

    fn name(&self) -> &'static str {
        "hf-trainer"
    }

    fn title(&self) -> &'static str {
        "HF"
    }

    fn doc(&self) -> Doc {
        Doc {
            evidence: "two or more TrainingArguments keys",
            roles: "`model_name_or_path`, `per_device_train_batch_size`, `gradient_accumulation_steps`, `learning_rate`, `optim`, `max_seq_length`; `bf16`/`fp16`",
            semantics: "SCH008: PyYAML reads `5e-5` as a string",
        }
    }

    fn evidence(&self, cx: &Evidence) -> Option<String> {
        let found = cx.listed(&[
            "per_device_train_batch_size",
            "per_device_eval_batch_size",
            "num_train_epochs",
            "eval_strategy",
            "evaluation_strategy",
            "save_strategy",
            "logging_steps",
            "output_dir",
            "gradient_checkpointing",
        ]);
        (found.len() >= 2).then(|| format!("HF TrainingArguments keys {}", found.join(", ")))
    }

    fn bindings(&self, _manifest: &Manifest) -> Vec<(Role, String)> {
        super::owned(&BINDINGS)
    }

    fn derived(&self, root: &Node) -> Vec<super::Derived> {
        self.derived_launched(root, None)
    }

    fn derived_launched(&self, root: &Node, program: Option<&str>) -> Vec<super::Derived> {
        let mut out = DerivedRoles::default();
        switches_launched(root, &mut out, program);
        out.0
    }

    /// TrainingArguments is transformers' (the `transformers` distribution on PyPI).
    fn distributions(&self) -> &'static [&'static str] {
        &["transformers"]
    }

    /// Recipes carry intentional extras (metadata for their scripts): only a
    /// near miss of a batch key is reported, the typo that silently leaves the
    /// batch at its default.
    fn known_keys(&self, _root: &Node) -> Option<KnownKeys> {
        Some(KnownKeys { path: String::new(), keys: &BATCH_KEYS, strict: false, reported_elsewhere: &[] })
    }

    /// `HfArgumentParser.parse_yaml_file` reads YAML with PyYAML's `safe_load`
    /// and hands the string to the dataclass.
    fn exponent_without_dot_is_string(&self) -> bool {
        true
    }

    fn pyyaml(&self) -> bool {
        true
    }

    fn sequence_length_keys(&self) -> &'static [&'static str] {
        &SEQUENCE_LENGTH_KEYS
    }

    /// The whole file, when it is flat TrainingArguments (MIG004).
    fn migration_scopes<'a>(&self, root: &'a Node) -> Vec<&'a Node> {
        is_training_arguments(root).then_some(root).into_iter().collect()
    }
    /// transformers `training_args.py`: `deepspeed` is the path of a DeepSpeed config (or a dict).
    fn deepspeed_file_key(&self) -> Option<&'static str> {
        Some("deepspeed")
    }

    /// HF transformers `training_args.py`: `deepspeed` (a DeepSpeed config file
    /// or dict) and `fsdp` / `fsdp_config` (PyTorch FSDP) shard the model
    /// states over the world; the memory model does not read them yet.
    fn memory_unmodelled(&self, root: &Node) -> Option<super::Unmodelled> {
        sharding_unmodelled(root)
    }
}

/// transformers `training_args.py`: `fsdp` is a string of options (`"full_shard auto_wrap"`,
/// `"full_shard offload auto_wrap"`) or a list of them (Axolotl writes a YAML list).
fn fsdp_options(root: &Node) -> Vec<String> {
    match root.get("fsdp").map(|n| &n.value) {
        Some(crate::load::tree::Value::Str(text)) => text.split_whitespace().map(str::to_ascii_lowercase).collect(),
        Some(crate::load::tree::Value::Seq(items)) => items.iter().filter_map(Node::as_str).map(str::to_ascii_lowercase).collect(),
        _ => Vec::new(),
    }
}

/// Whether the run shards parameters, gradients and optimizer states with FSDP: the
/// `full_shard` or `hybrid_shard` option (within a node), or `fsdp_config` with
/// `fsdp_version: 2` (accelerate's FSDP2, Axolotl `fsdp_version: 2`: `fully_shard`,
/// which shards like `full_shard`).
pub(crate) fn full_shard(root: &Node) -> bool {
    let version_2 = [root.get_dotted("fsdp_version"), root.get_dotted("fsdp_config.fsdp_version"), root.get_dotted("fsdp_config.version")]
        .into_iter()
        .flatten()
        .any(|n| n.as_i64() == Some(2));
    fsdp_options(root).iter().any(|o| o == "full_shard" || o == "hybrid_shard") || (version_2 && root.get("fsdp_config").is_some())
}

/// Whether the FSDP options move parameters to the CPU: the `offload` option, or
/// `fsdp_config.fsdp_offload_params` / `offload_params` (accelerate's FSDP plugin, Axolotl).
pub(crate) fn fsdp_offloads(root: &Node) -> bool {
    fsdp_options(root).iter().any(|o| o == "offload") || super::truthy(root, "fsdp_config.fsdp_offload_params") || super::truthy(root, "fsdp_config.offload_params")
}

/// What the memory model cannot read in a TrainingArguments-style config: a DeepSpeed
/// config, or an FSDP strategy other than full sharding.
pub(crate) fn sharding_unmodelled(root: &Node) -> Option<super::Unmodelled> {
    if let Some(found) = super::first_set(root, &HF_SHARDING[..1]) {
        return Some(found);
    }
    if full_shard(root) { None } else { super::first_set(root, &HF_SHARDING[1..]) }
}

/// TrainingArguments that shard the model states (transformers `training_args.py`:
/// `deepspeed`, `fsdp`, `fsdp_config`); the frameworks built on TrainingArguments
/// take the same keys.
pub(crate) const HF_SHARDING: [(&str, &str); 3] = [
    ("deepspeed", "the run shards with the DeepSpeed config this key names, which trainlint does not read yet"),
    ("fsdp", "the run shards with a PyTorch FSDP strategy other than full sharding, which trainlint does not model yet"),
    ("fsdp_config", "the run shards with a PyTorch FSDP strategy other than full sharding, which trainlint does not model yet"),
];

#[cfg(test)]
mod tests {
    use super::*;

    fn derived(text: &str, program: Option<&str>) -> Vec<(Role, serde_json::Value, String)> {
        let root = crate::load::yaml::parse(text).expect("valid YAML").root;
        HfTrainer.derived_launched(&root, program).into_iter().map(|d| (d.role, d.value, d.path)).collect()
    }

    fn role(all: &[(Role, serde_json::Value, String)], role: Role) -> Option<serde_json::Value> {
        all.iter().find(|(r, _, _)| *r == role).map(|(_, v, _)| v.clone())
    }

    #[test]
    fn grpo_programs_by_name() {
        for program in ["src/open_r1/grpo.py", "grpo.py", "train_grpo.py", "/opt/trl/trl/scripts/grpo.py", "GRPO-train.py"] {
            assert!(grpo_program(program), "{program}");
        }
        // `grpo` must be a whole word of the name.
        for program in ["src/open_r1/sft.py", "train.py", "agrpo.py", "dpo.py", "grpo/sft.py"] {
            assert!(!grpo_program(program), "{program}");
        }
    }

    #[test]
    fn the_open_r1_readme_command_is_grpo_by_its_program() {
        // open-r1's README command of 2025-01-29: no GRPO key among its flags, `grpo.py` its program.
        let flags = "model_name_or_path: deepseek-ai/DeepSeek-R1-Distill-Qwen-7B\nmax_prompt_length: 256\nper_device_train_batch_size: 1\nbf16: true\n";
        assert_eq!(role(&derived(flags, None), Role::Generations), None);
        let grpo = derived(flags, Some("src/open_r1/grpo.py"));
        assert_eq!(role(&grpo, Role::Generations), Some(8.into()));
        assert_eq!(role(&grpo, Role::CompletionLength), Some(256.into()));
        // prompt 256 + GRPOConfig's default completion 256.
        assert_eq!(role(&grpo, Role::SequenceLength), Some(512.into()));
        assert_eq!(role(&derived(flags, Some("src/open_r1/sft.py")), Role::Generations), None);
    }

    #[test]
    fn grpo_beta_is_its_kl_coefficient_not_a_preference_pair() {
        // DPOConfig has `beta` and `max_prompt_length`: a paired preference config.
        let dpo = derived("beta: 0.1\nmax_prompt_length: 512\nmax_length: 1024\n", None);
        assert_eq!(role(&dpo, Role::Preference), Some("paired".into()));
        // GRPOConfig has both too: with `num_generations` it is GRPO's, `beta` its KL coefficient.
        let grpo = derived("beta: 0.0\nmax_prompt_length: 512\nmax_completion_length: 1024\nnum_generations: 16\nuse_vllm: true\n", None);
        assert_eq!(role(&grpo, Role::Preference), None);
        assert_eq!(role(&grpo, Role::KlCoefficient), Some(serde_json::json!(0.0)));
        assert_eq!(role(&grpo, Role::SequenceLength), Some(1536.into()));
        assert_eq!(role(&grpo, Role::VllmGeneration), Some(true.into()));
        // The same flags launched by a GRPO script.
        let launched = derived("beta: 0.04\nmax_prompt_length: 512\n", Some("grpo.py"));
        assert_eq!(role(&launched, Role::Preference), None);
        assert_eq!(role(&launched, Role::Generations), Some(8.into()));
    }

    #[test]
    fn grpo_keys_raise_the_oldest_release() {
        let root = |text: &str| crate::load::yaml::parse(text).expect("valid YAML").root;
        assert_eq!(grpo_release_floor(&root("num_generations: 8\nuse_vllm: true\n")), None);
        assert_eq!(grpo_release_floor(&root("num_generations: 8\nds3_gather_for_generation: false\n")), Some((15, "ds3_gather_for_generation")));
        assert_eq!(grpo_release_floor(&root("log_completions: true\nvllm_mode: colocate\n")), Some((18, "vllm_mode")));
        // Liger's GRPO loss never makes the logits whole.
        assert_eq!(role(&derived("num_generations: 8\nuse_liger_loss: true\n", None), Role::Logits), Some("fused".into()));
    }
}
