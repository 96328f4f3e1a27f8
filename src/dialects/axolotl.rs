//! Axolotl YAML (`base_model`, `micro_batch_size`, ...; FACTS.md §6). Its
//! pydantic config model coerces `5e-5` to a float (SCH008 does not apply).

use super::{Doc, BatchSemantics, Dialect, DerivedRoles, Evidence, Framework, KnownKeys};
use crate::load::Node;
use crate::schema::{Manifest, Role};

pub(crate) const AXOLOTL: Dialect = Dialect(&Axolotl);

pub struct Axolotl;

/// `base_model`: the hub id or local path Axolotl loads (axolotl `src/axolotl/utils/schemas/model.py`,
/// `ModelInputConfig.base_model`; FACTS.md §6).
/// `adapter`: `lora`, `qlora`, `llama-adapter` (axolotl `src/axolotl/utils/schemas/peft.py`, `LoraConfig.adapter`).
/// `lora_r`, `lora_target_modules` (axolotl `src/axolotl/utils/schemas/peft.py`, `LoraConfig`).
/// `rl`: `dpo`, `ipo`, `orpo`, `kto`, `simpo` (axolotl `src/axolotl/utils/schemas/enums.py`, `RLType`),
/// derived (`precompute_ref_log_probs`, which Axolotl passes to TRL's `DPOConfig`, drops the
/// reference model: `core/trainers/dpo/__init__.py`).
const BINDINGS: [(Role, &str); 12] = [
    (Role::Model, "base_model"),
    (Role::Adapter, "adapter"),
    (Role::LoraRank, "lora_r"),
    (Role::LoraTargets, "lora_target_modules"),
    (Role::MicroBatch, "micro_batch_size"),
    (Role::Accumulation, "gradient_accumulation_steps"),
    (Role::GlobalBatch, "batch_size"),
    (Role::LearningRate, "learning_rate"),
    (Role::Optimizer, "optimizer"),
    // `torch_compile`: bool or "auto" (axolotl `utils/schemas/config.py`), passed to TrainingArguments' `torch_compile`.
    (Role::Compile, "torch_compile"),
    // `accelerator_config` is passed to TrainingArguments (HF `AcceleratorConfig`): `sync_each_batch`
    // reduce-scatters FSDP gradients after every micro batch instead of `no_sync`.
    (Role::SyncEachBatch, "accelerator_config.gradient_accumulation_kwargs.sync_each_batch"),
    (Role::SequenceLength, "sequence_len"),
];

/// The keys a typo most often hides (SCH003 reports near misses only: Axolotl
/// configs carry many keys of their own).
const BATCH_KEYS: [&str; 6] = ["micro_batch_size", "gradient_accumulation_steps", "batch_size", "sequence_len", "learning_rate", "num_epochs"];

impl Framework for Axolotl {
    /// `sequence_len` truncates; without `sample_packing` or `pad_to_sequence_len` each batch is
    /// padded to its longest sample (Axolotl's config reference: `pad_to_sequence_len` "Pad
    /// inputs so each step uses constant sized buffers"; `sample_packing` packs to `sequence_len`
    /// and turns it on).
    fn sequence_cap(&self, root: &Node) -> Option<String> {
        if runs_grpo(root) {
            return Some("GRPO's prompts are padded to the longest in the batch and its completions end at their end-of-sequence token (`trl.max_completion_length` caps them, `sequence_len` is taken as the bound on prompt + completion)".to_owned());
        }
        let full = super::truthy(root, "sample_packing") || super::truthy(root, "pad_to_sequence_len");
        (root.get("sequence_len").is_some() && !full)
            .then(|| "`sequence_len` truncates longer samples and each batch is padded to its longest (no `sample_packing`, no `pad_to_sequence_len`)".to_owned())
    }

    fn name(&self) -> &'static str {
        "axolotl"
    }

    /// `load_cfg` reads the file with `yaml.safe_load` (axolotl `src/axolotl/cli/config.py`).
    fn pyyaml(&self) -> bool {
        true
    }

    fn title(&self) -> &'static str {
        "Axolotl"
    }

    fn doc(&self) -> Doc {
        Doc {
            evidence: "`base_model` with Axolotl keys",
            roles: "`base_model`, `adapter`, `micro_batch_size`, `gradient_accumulation_steps`, `batch_size`, `sequence_len`; `rl: grpo`/`gdpo` with `trl.num_generations`, `trl.max_completion_length`, `trl.beta`, `trl.use_vllm` (TRL's GRPO); `bf16`, `flash_attention`, `load_in_4bit`, `gradient_checkpointing`, `torch_compile`, `accelerator_config…sync_each_batch`; read as PyYAML reads it (`500_000` is an integer)",
            semantics: "`batch_size` is micro × accumulation per process (Axolotl multiplies by the world itself)",
        }
    }

    fn evidence(&self, cx: &Evidence) -> Option<String> {
        let found = cx.listed(&["micro_batch_size", "sequence_len", "datasets", "adapter", "lora_r", "sample_packing", "val_set_size"]);
        (cx.has("base_model") && !found.is_empty()).then(|| format!("`base_model` with Axolotl keys {}", found.join(", ")))
    }

    fn bindings(&self, _manifest: &Manifest) -> Vec<(Role, String)> {
        super::owned(&BINDINGS)
    }

    /// The TrainingArguments switches (`bf16`, `flash_attention`, `load_in_4bit`, ...).
    fn derived(&self, root: &Node) -> Vec<super::Derived> {
        let mut out = DerivedRoles::default();
        // First: a full fine-tune's load dtype decides its precision (the first binding of a role wins).
        full_finetune_dtypes(root, &mut out);
        // `bf16: auto`: bf16 autocast where the GPU has it, else fp16 autocast unless
        // `fp16: false` (then fp32) (`normalize_config`, `src/axolotl/utils/config/__init__.py`).
        // Either way not "bf16 on a GPU without bf16" (issue 15 item 5).
        if bf16_auto(root) && !super::truthy(root, "pure_bf16") {
            push_bf16(root, &mut out, "bf16-or-16-mixed");
        }
        // QLoRA's base is loaded with `bnb_4bit_use_double_quant: True` unless `bnb_config_kwargs`
        // says otherwise (axolotl `loaders/model.py` `_set_quantization_config` @ 067b021c:
        // `elif self.cfg.adapter == "qlora" and self.cfg.load_in_4bit:` … `bnb_config.update(self.cfg.bnb_config_kwargs)`).
        if root.get("adapter").and_then(Node::as_str) == Some("qlora")
            && super::truthy(root, "load_in_4bit")
            && root.get_dotted("bnb_config_kwargs.bnb_4bit_use_double_quant").map(|n| n.to_json().as_bool()) != Some(Some(false))
        {
            out.push(Role::BaseWeights, "int4-double-quant".into(), "load_in_4bit");
        }
        // `rl: grpo`/`gdpo`: TRL's GRPOTrainer, its GRPOConfig built from the `trl:` section (`grpo`).
        let grpo = grpo(root, &mut out);
        // `rl` (a DPO-family value with `precompute_ref_log_probs: true`: the reference
        // log-probabilities are computed before training, no reference model is held then).
        if let Some(rl) = root.get("rl").filter(|n| n.as_str().is_some() && !grpo) {
            let dpo = rl.as_str().and_then(|s| s.parse::<crate::schema::typed::Preference>().ok()) == Some(crate::schema::typed::Preference::Dpo);
            if dpo && super::truthy(root, "precompute_ref_log_probs") {
                out.push(Role::Preference, "paired".into(), "precompute_ref_log_probs");
            } else {
                out.push(Role::Preference, rl.to_json(), "rl");
            }
        }
        super::hf_trainer::switches(root, &mut out);
        // A 4/8-bit base under an adapter is prepared with PEFT's `prepare_model_for_kbit_training`
        // (`_prepare_model_for_quantization`), which casts every non-quantized parameter to fp32, but
        // Axolotl then casts the norms and the embeddings and head back to the compute dtype
        // (`_configure_embedding_dtypes` @ 067b021c: `needs_fa2_dtype` is true for `lora`/`qlora`, so
        // `_convert_embedding_modules_dtype(..., dist_dtype=self.cfg.torch_dtype)`: `"norm" in name` →
        // `module.to(dist_dtype)`, `embed_tokens`/`lm_head` likewise; only `fp32_norms: true` keeps norms
        // fp32): no fp32 copies of them, and no fp32 norm outputs in the activations. So the role
        // `kbit_prepare` (what PEFT's step alone costs, measured in data/measured_h100.json) is not bound.

        // `lora_target_linear: true` adapts every linear layer (axolotl `utils/schemas/peft.py`;
        // `find_all_linear_names` in `loaders/adapter.py`), PEFT's all-linear.
        if super::truthy(root, "lora_target_linear") {
            out.push(Role::LoraTargets, "all-linear".into(), "lora_target_linear");
        }
        // Liger's fused linear cross-entropy (`liger_fused_linear_cross_entropy`, axolotl
        // `integrations/liger/args.py`) and Apple's Cut Cross-Entropy (`cut_cross_entropy`,
        // `integrations/cut_cross_entropy/args.py`) never materialise the logits whole.
        for key in ["liger_fused_linear_cross_entropy", "cut_cross_entropy"] {
            if super::truthy(root, key) {
                out.push(Role::Logits, "fused".into(), key);
            }
        }
        // Listing the plugin turns Cut Cross-Entropy on unless the key says otherwise:
        // `CutCrossEntropyArgs.cut_cross_entropy: Optional[bool] = True` since Axolotl 0.9.0
        // (PR #2562, "make cce default to true when using the plugin"; `None`, off, before).
        if root.get("cut_cross_entropy").is_none() && cce_plugin(root) {
            out.push_default(Role::Logits, "fused".into(), "cut_cross_entropy", "plugins");
        }
        out.0
    }

    /// Axolotl's `batch_size` is micro batch × accumulation per process; it
    /// multiplies by the world itself (FACTS.md §6, `normalize_config`).
    fn batch(&self) -> BatchSemantics {
        BatchSemantics { global_batch_per_process: true, ..BatchSemantics::default() }
    }

    /// `axolotl` on PyPI.
    fn distributions(&self) -> &'static [&'static str] {
        &["axolotl"]
    }

    /// The TRL each Axolotl release pins (`requirements.txt`, `pyproject.toml` at its tag), from
    /// v0.7.0, whose GRPO (#2307, ffae8d6a) came with `trl==0.15.0`: 0.8.0 `trl==0.16.0`, 0.9.0
    /// `0.17.0`, 0.10.0 `0.18.1`, 0.11.0 `0.18.2`, 0.12.0 `0.21.0`, then 0.23–0.29 and 1.x (1.8.0 at
    /// 067b021c, version 0.18.0).
    fn grpo_trl_pins(&self) -> &'static [(&'static [u64], u64)] {
        &[(&[0, 7], 15), (&[0, 8], 16), (&[0, 9], 17), (&[0, 10], 18), (&[0, 12], 19)]
    }

    fn known_keys(&self, _root: &Node) -> Option<KnownKeys> {
        Some(KnownKeys { path: String::new(), keys: &BATCH_KEYS, strict: false, reported_elsewhere: &[] })
    }

    fn sequence_length_keys(&self) -> &'static [&'static str] {
        &["sequence_len"]
    }
    /// transformers `training_args.py`: `deepspeed` is the path of a DeepSpeed config (or a dict).
    fn deepspeed_file_key(&self) -> Option<&'static str> {
        Some("deepspeed")
    }

    /// Axolotl's config schema (`utils/schemas/config.py`) passes `deepspeed`,
    /// `fsdp` and `fsdp_config` on to TrainingArguments.
    fn memory_unmodelled(&self, root: &Node) -> Option<super::Unmodelled> {
        // Expert parallelism (`ExpertParallelPlugin`, `expert_parallel_size`): each rank keeps
        // 1/size of the MoE experts (axolotl `integrations/expert_parallel/shard.py`), which the
        // memory model does not shard.
        if root.get("expert_parallel_size").and_then(|n| n.to_json().as_u64()).is_some_and(|size| size > 1) {
            return Some(super::Unmodelled {
                path: "expert_parallel_size".to_owned(),
                reason: "expert parallelism keeps a share of the MoE experts on each GPU (axolotl's ExpertParallelPlugin), which trainlint does not model yet".to_owned(),
            });
        }
        super::hf_trainer::sharding_unmodelled(root)
    }

    /// `bf16: auto` (written, or unwritten: Axolotl's default, `bf16_is_auto`) is bf16 on a card
    /// that has it, else fp16 unless `fp16: false` (then fp32)
    /// (`normalize_config`, `src/axolotl/utils/config/__init__.py`:
    /// `cfg.bf16 = True` where `is_torch_bf16_gpu_available()`, else `cfg.bf16 = False` and
    /// `cfg.fp16 = True`): priced as `bf16: true` / `fp16: true` are.
    fn auto_precision(&self, root: &Node, bf16: bool) -> Option<&'static str> {
        if !bf16_is_auto(root) {
            return None;
        }
        let no_fp16 = root.get("fp16").is_some_and(|n| n.value == crate::load::Value::Bool(false));
        Some(match (bf16, no_fp16) {
            (true, _) => "bf16-mixed",
            (false, false) => "16-mixed",
            (false, true) => "32-true",
        })
    }

    /// Axolotl's `HatcheryPlugin` with `hatchery.backend: tinker` trains on the remote Tinker
    /// service: the model is never loaded locally, and forward, backward and optimizer steps run
    /// through its API (axolotl `integrations/hatchery/plugin.py`, `trainer.py`).
    fn not_training(&self, root: &Node) -> Option<String> {
        let remote = root.get_dotted("hatchery.backend").and_then(Node::as_str).is_some_and(|b| b.eq_ignore_ascii_case("tinker"));
        remote.then(|| "`hatchery.backend: tinker` trains on the remote Tinker service (axolotl's HatcheryPlugin): no model on a local GPU".to_owned())
    }
}

/// Whether `bf16` is `auto`, written or by default: Axolotl's schema defaults an unwritten `bf16`
/// to `"auto"` (axolotl-ai-cloud/axolotl@067b021c `src/axolotl/utils/schemas/config.py`:
/// `bf16: Literal["auto"] | bool | None = Field(default="auto", …)`; since @601b77bc, 2024-03-26,
/// "make sure to capture non-null defaults from config validation", #1415), and `resolve_dtype`
/// (`src/axolotl/utils/config/__init__.py`) resolves it only when `fp16` is not set: `if not
/// cfg.fp16 and cfg.bf16 == "auto"` (then `if cfg.fp16 and cfg.bf16 == "auto": cfg.bf16 = False`).
/// A `bf16:` written empty is `None`, not the default: fp32 unless another key says otherwise.
fn bf16_is_auto(root: &Node) -> bool {
    match root.get("bf16") {
        Some(node) => node.as_str().is_some_and(|s| s.eq_ignore_ascii_case("auto")),
        None => !super::truthy(root, "fp16"),
    }
}

/// `bf16: auto` (written or by default) that resolves to a 16-bit dtype: bf16 where the GPU has
/// it, else fp16 unless `fp16: false` (then fp32, a precision trainlint cannot tell from the
/// config alone) (`resolve_dtype`, `src/axolotl/utils/config/__init__.py`).
fn bf16_auto(root: &Node) -> bool {
    bf16_is_auto(root) && !root.get("fp16").is_some_and(|n| n.value == crate::load::Value::Bool(false))
}

/// The precision role from `bf16`: at the key where the config writes it, else as Axolotl's
/// default, shown at `base_model` (`bf16_is_auto`).
fn push_bf16(root: &Node, out: &mut DerivedRoles, value: &str) {
    if root.get("bf16").is_some() {
        out.push(Role::Precision, value.into(), "bf16");
    } else {
        out.push_default(Role::Precision, value.into(), "bf16", "base_model");
    }
}

/// A full fine-tune with `bf16: true` (no adapter, no FSDP or DeepSpeed) trains a model loaded in
/// bf16, not fp32 master weights under autocast: `normalize_config` sets `torch_dtype =
/// torch.bfloat16` and the model loader passes it to `from_pretrained` (axolotl
/// `utils/config/__init__.py`, `loaders/model.py`), so the weights, their gradients and AdamW's
/// states (PyTorch keeps them in the parameter's dtype) are bf16. The loader then keeps
/// `embed_tokens`, `lm_head` and the norms in fp32 (`_convert_embedding_modules_dtype`) unless the
/// attention implementation needs one dtype (`attn_needs_dtype_cast`: anything but SDPA and eager,
/// i.e. flash attention) or Cut Cross-Entropy is on; HF Trainer's autocast bridges the two.
/// Read in axolotl 0.18.0's source as a public analysis quotes it (line numbers there).
/// `bf16: auto` resolves first (`normalize_config`: `cfg.bf16 = True` where
/// `is_torch_bf16_gpu_available()`, else `cfg.bf16 = False` and `cfg.fp16 = True` unless set),
/// and `torch_dtype` follows (`if cfg.bf16 …: torch.bfloat16 elif … cfg.fp16: torch.float16`): a
/// model loaded in bf16 or fp16, 2 B either way (`bf16-or-16-true`), unless `fp16: false`.
fn full_finetune_dtypes(root: &Node, out: &mut DerivedRoles) {
    let auto = bf16_auto(root);
    let bf16 = auto || root.get("bf16").is_some_and(|n| n.value == crate::load::Value::Bool(true) || n.as_str() == Some("true"));
    let adapter = root.get("adapter").is_some_and(|n| n.as_str().is_some_and(|a| !a.trim().is_empty()));
    let sharded = ["fsdp", "fsdp_config", "deepspeed"].into_iter().any(|k| root.get(k).is_some_and(|n| !matches!(n.value, crate::load::Value::Null)));
    if !bf16 || adapter || sharded || super::truthy(root, "pure_bf16") {
        return;
    }
    push_bf16(root, out, if auto { "bf16-or-16-true" } else { "bf16-true" });
    let attention = root.get("attn_implementation").and_then(Node::as_str);
    let one_dtype = super::truthy(root, "flash_attention")
        || super::truthy(root, "cut_cross_entropy")
        || root.get("cut_cross_entropy").is_none() && cce_plugin(root)
        || attention.is_some_and(|a| !matches!(a, "sdpa" | "eager"));
    if !one_dtype {
        if root.get("bf16").is_some() {
            out.push(Role::Fp32Embeddings, true.into(), "bf16");
        } else {
            out.push_default(Role::Fp32Embeddings, true.into(), "bf16", "base_model");
        }
    }
}

/// Whether `plugins` lists Axolotl's Cut Cross-Entropy plugin
/// (`axolotl.integrations.cut_cross_entropy.CutCrossEntropyPlugin`).
fn cce_plugin(root: &Node) -> bool {
    let listed = |n: &Node| n.as_str().is_some_and(|p| p.trim().ends_with("cut_cross_entropy.CutCrossEntropyPlugin"));
    match root.get("plugins").map(|n| &n.value) {
        Some(crate::load::Value::Seq(items)) => items.iter().any(listed),
        _ => false,
    }
}

/// Whether `rl` runs TRL's GRPOTrainer: `grpo` and `gdpo` (axolotl `utils/schemas/enums.py`
/// `RLType`; `core/builders/rl.py` @ 067b021c builds both with `GRPOStrategy`, GDPO only setting
/// `multi_objective_aggregation`). `ebft` is not: its trainer adds a frozen feature network (a
/// deep copy of the policy unless PEFT, `core/trainers/ebft/trainer.py`) or, strided, its own
/// generation, which the memory model does not price.
fn runs_grpo(root: &Node) -> bool {
    root.get("rl").and_then(Node::as_str).is_some_and(|rl| rl.eq_ignore_ascii_case("grpo") || rl.eq_ignore_ascii_case("gdpo"))
}

/// Axolotl's GRPO: the roles the HF dialect reads from a GRPOConfig (`hf_trainer::grpo`), read
/// where Axolotl takes them (axolotl @ 067b021c, `core/builders/rl.py` `_build_training_arguments`
/// and `core/trainers/grpo/__init__.py` `GRPOStrategy.set_training_args_kwargs`):
/// `trl.num_generations` → `num_generations` (passed only when set: GRPOConfig's default, 8 in
/// every release 0.14–1.8); `trl.generation_batch_size` → `generation_batch_size`;
/// `trl.max_completion_length` → `max_completion_length` (always passed: `None` when unset, which
/// leaves the length to `generate`'s own limit; priced at GRPOConfig's default, 256);
/// `trl.beta`, else `rl_beta` → `beta` (`_build_training_arguments`); `trl.use_vllm` →
/// `use_vllm`; `trl.use_liger_loss` → the Liger GRPO loss (`use_liger_kernel` at TRL 1.8,
/// `use_liger_loss` before). `micro_batch_size` is `per_device_train_batch_size`
/// (`core/builders/base.py` `_set_base_training_args`) and `gradient_accumulation_steps` the
/// accumulation, both bound already. Axolotl passes neither `steps_per_generation` nor
/// `ds3_gather_for_generation` (GRPOConfig's defaults: the accumulation, True), and neither
/// `sequence_len` nor `max_prompt_len` reaches GRPOConfig (`max_length` and `max_prompt_length`
/// are in `GRPOStrategy.get_blocklist_args_kwargs`) or trims a GRPO prompt (`utils/data/rl.py`:
/// GRPO samples are kept whole): `sequence_len`, bound, is still the config's own bound on a
/// sample and prices prompt + completion; without it, 512 + the completion, as the HF dialect.
/// Whether the run is GRPO's is returned.
fn grpo(root: &Node, out: &mut DerivedRoles) -> bool {
    if !runs_grpo(root) {
        return false;
    }
    let count = |key: &str| root.get_dotted(key).filter(|n| n.to_json().is_u64());
    match count("trl.num_generations") {
        Some(node) => out.push(Role::Generations, node.to_json(), "trl.num_generations"),
        None => out.push_default(Role::Generations, 8.into(), "trl.num_generations", "rl"),
    }
    if let Some(node) = count("trl.generation_batch_size") {
        out.push(Role::GenerationBatch, node.to_json(), "trl.generation_batch_size");
    }
    let completion = count("trl.max_completion_length").and_then(|n| n.to_json().as_u64());
    match completion {
        Some(tokens) => out.push(Role::CompletionLength, tokens.into(), "trl.max_completion_length"),
        None => out.push_default(Role::CompletionLength, 256.into(), "trl.max_completion_length", "rl"),
    }
    let at = if completion.is_some() { "trl.max_completion_length" } else { "rl" };
    out.push_default(Role::SequenceLength, (512 + completion.unwrap_or(256)).into(), "512 + trl.max_completion_length", at);
    if let Some((key, beta)) = ["trl.beta", "rl_beta"].into_iter().find_map(|k| root.get_dotted(k).filter(|n| n.to_json().is_number()).map(|n| (k, n))) {
        out.push(Role::KlCoefficient, beta.to_json(), key);
    }
    if root.get_dotted("trl.use_vllm").is_some() {
        out.push(Role::VllmGeneration, super::truthy(root, "trl.use_vllm").into(), "trl.use_vllm");
    }
    if super::truthy(root, "trl.use_liger_loss") {
        out.push(Role::Logits, "fused".into(), "trl.use_liger_loss");
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialects::Framework;

    fn derived(text: &str) -> Vec<(Role, serde_json::Value, String)> {
        let root = crate::load::yaml::parse(text).expect("valid YAML").root;
        Axolotl.derived(&root).into_iter().map(|d| (d.role, d.value, d.path)).collect()
    }

    fn role(all: &[(Role, serde_json::Value, String)], role: Role) -> Option<(serde_json::Value, String)> {
        all.iter().find(|(r, _, _)| *r == role).map(|(_, v, p)| (v.clone(), p.clone()))
    }

    #[test]
    fn grpo_and_gdpo_read_the_trl_section() {
        // examples/llama-3/qlora-1b-gdpo.yaml's `trl:` section, abridged.
        let gdpo = derived("rl: gdpo\ntrl:\n  beta: 0.001\n  max_completion_length: 128\n  num_generations: 2\n  use_vllm: false\n");
        assert_eq!(role(&gdpo, Role::Generations), Some((2.into(), "trl.num_generations".into())));
        assert_eq!(role(&gdpo, Role::CompletionLength), Some((128.into(), "trl.max_completion_length".into())));
        assert_eq!(role(&gdpo, Role::KlCoefficient), Some((serde_json::json!(0.001), "trl.beta".into())));
        assert_eq!(role(&gdpo, Role::VllmGeneration), Some((false.into(), "trl.use_vllm".into())));
        // GRPO is no preference pair.
        assert_eq!(role(&gdpo, Role::Preference), None);
        // Unset: GRPOConfig's 8 generations and (priced) 256 completion tokens; `rl_beta` is `beta`.
        let bare = derived("rl: grpo\nrl_beta: 0.04\ntrl:\n  use_liger_loss: true\n");
        assert_eq!(role(&bare, Role::Generations).map(|r| r.0), Some(8.into()));
        assert_eq!(role(&bare, Role::CompletionLength).map(|r| r.0), Some(256.into()));
        assert_eq!(role(&bare, Role::SequenceLength).map(|r| r.0), Some(768.into()));
        assert_eq!(role(&bare, Role::KlCoefficient), Some((serde_json::json!(0.04), "rl_beta".into())));
        assert_eq!(role(&bare, Role::Logits), Some(("fused".into(), "trl.use_liger_loss".into())));
        // EBFT's trainer adds its feature network: not priced as GRPO; DPO keeps its preference.
        assert_eq!(role(&derived("rl: ebft\ntrl:\n  num_generations: 4\n"), Role::Generations), None);
        assert_eq!(role(&derived("rl: dpo\n"), Role::Preference).map(|r| r.0), Some("dpo".into()));
    }
}
