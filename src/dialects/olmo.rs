//! AI2's OLMo training YAML (`torchrun --nproc-per-node 8 scripts/train.py
//! configs/official-0724/OLMo-7B.yaml --device_train_microbatch_size=4`): `global_train_batch_size`,
//! `device_train_microbatch_size`, `precision: amp_bf16`, `fsdp: {wrapping_strategy, precision,
//! sharding_strategy}`, `activation_checkpointing`, `optimizer: {name, learning_rate}` and the
//! model spelled out by its dimensions (`model: {d_model, n_heads, n_layers, mlp_ratio, …}`).
//! OLMo shares the batch keys with llm-foundry (both come from MosaicML's Composer), so its
//! configs were read as llm-foundry's before; its `model:` and checkpointing keys are its own.
//!
//! Sources (allenai/OLMo, commit 59a53e3f68e546330ca5a99ec626e58f9ab96494):
//!
//! - `olmo/config.py`, `BaseConfig.load`: `om.load(path)`, then `om.merge(om.structured(TrainConfig),
//!   raw)` and `om.to_object`: OmegaConf reads the YAML, resolves `${…}` (and OLMo's own resolvers
//!   `path.glob`, `path.choose`, `path.last_checkpoint`, `_register_resolvers`), and a key that is not
//!   a field of the structured dataclass raises (`OLMoConfigurationError`) at start-up.
//! - `TrainConfig` (its fields are [`TRAIN_CONFIG_KEYS`]): `global_train_batch_size` (default 512),
//!   `device_train_microbatch_size` (default 16), `device_train_batch_size` and
//!   `device_train_grad_accum` ("Don't set this manually"), `precision` (`amp_bf16`, `amp_fp16`,
//!   `fp32`: `TrainConfig.autocast_precision`), `distributed_strategy` (default `fsdp`), `fsdp:
//!   FSDPConfig` (`sharding_strategy` default `FULL_SHARD`, `wrapping_strategy` default none,
//!   `precision` default `pure`), `activation_checkpointing` (an `ActivationCheckpointingStrategy`;
//!   `update_legacy_settings` reads `true` as `whole_layer` and `false` as none), `optimizer:
//!   OptimizerConfig` (`name` default `lionw`, `learning_rate`), `model: ModelConfig` (`d_model`,
//!   `n_heads`, `n_kv_heads`, `n_layers`, `mlp_ratio`, `mlp_hidden_size`, `max_sequence_length`,
//!   `vocab_size`, `embedding_size`, `weight_tying` default true).
//! - `scripts/train.py`, `main`: `cfg.device_train_batch_size = cfg.global_train_batch_size //
//!   get_world_size()` and `cfg.device_train_grad_accum = cfg.device_train_batch_size //
//!   cfg.device_train_microbatch_size` (both overwrite whatever the file says).
//! - `olmo/data/iterable_dataset.py`, `IterableDataset.__init__`: `assert global_batch_size %
//!   self.world_size == 0`: a global batch the world does not divide stops the run at start-up.
//! - `olmo/train.py`, `Trainer.split_batch`: the device batch is cut with `value.split(microbatch_size)`,
//!   the last piece possibly smaller, and a device batch no larger than the micro batch is one piece;
//!   `train_micro_batch` divides each piece's loss by the whole device batch's tokens
//!   (`batch_size_in_tokens`), so the step sees the global batch: accumulation is ⌈device ÷ micro⌉,
//!   as for Composer. (`device_train_grad_accum`'s floor is only logged.)
//! - The world is torchrun's (`get_world_size()`): the YAML states no device count.

use super::{BatchSemantics, DerivedRoles, Dialect, Doc, Evidence, Framework, KnownKeys, Unmodelled};
use crate::load::{Node, Value};
use crate::schema::{Manifest, Role};

pub(crate) const OLMO: Dialect = Dialect(&Olmo);

pub(crate) struct Olmo;

/// Role → key (`TrainConfig`, `ModelConfig`, `OptimizerConfig` in `olmo/config.py`).
const BINDINGS: [(Role, &str); 10] = [
    (Role::GlobalBatch, "global_train_batch_size"),
    (Role::MicroBatch, "device_train_microbatch_size"),
    (Role::SequenceLength, "model.max_sequence_length"),
    (Role::Precision, "precision"),
    (Role::HiddenSize, "model.d_model"),
    (Role::Heads, "model.n_heads"),
    (Role::Layers, "model.n_layers"),
    (Role::VocabSize, "model.vocab_size"),
    (Role::TieEmbeddings, "model.weight_tying"),
    (Role::LearningRate, "optimizer.learning_rate"),
];

/// `TrainConfig`'s fields (`olmo/config.py`), the top-level keys `om.merge` accepts.
pub(crate) const TRAIN_CONFIG_KEYS: [&str; 65] = [
    "run_name",
    "seed",
    "epoch",
    "dry_run",
    "model",
    "optimizer",
    "scheduler",
    "data",
    "restore_dataloader",
    "fast_forward_batches",
    "evaluators",
    "eval_interval",
    "tokenizer",
    "save_folder",
    "remote_save_folder",
    "canceled_check_interval",
    "save_interval",
    "save_interval_unsharded",
    "save_interval_ephemeral",
    "save_num_checkpoints_to_keep",
    "save_num_unsharded_checkpoints_to_keep",
    "save_overwrite",
    "force_save_unsharded",
    "no_pre_train_checkpoint",
    "load_path",
    "load_path_sharded_checkpointer",
    "try_load_latest_save",
    "reset_optimizer_state",
    "reset_trainer_state",
    "sharded_checkpointer",
    "new_style_checkpoints",
    "max_duration",
    "global_train_batch_size",
    "device_train_batch_size",
    "device_train_microbatch_size",
    "device_eval_batch_size",
    "eval_subset_num_batches",
    "eval_on_load",
    "device_train_grad_accum",
    "max_grad_norm",
    "max_grad_norm_ratio",
    "precision",
    "wandb",
    "speed_monitor",
    "console_log_interval",
    "gen1_gc_interval",
    "compile",
    "distributed_strategy",
    "fsdp",
    "ddp",
    "single",
    "softmax_auxiliary_loss",
    "auxiliary_loss_multiplier",
    "time_limit",
    "extra_steps_after_cancel",
    "early_stopping_factor",
    "save_data_indices",
    "python_profiling",
    "torch_profiling",
    "stop_at",
    "stop_after",
    "activation_checkpointing",
    "fused_loss",
    "hf_datasets_cache_dir",
    "module_outputs_save_steps",
];

/// `ModelConfig` fields beside `d_model` that llm-foundry's models do not have (MPT spells them
/// `expansion_ratio`, `max_seq_len`, `no_bias`, `attn_config.rope`, `tie_word_embeddings`).
const MODEL_KEYS: [&str; 12] = [
    "block_type",
    "include_bias",
    "rope",
    "alibi",
    "attention_layer_norm",
    "max_sequence_length",
    "mlp_ratio",
    "mlp_hidden_size",
    "weight_tying",
    "layer_norm_type",
    "embedding_size",
    "init_fn",
];

/// `TrainConfig` fields that llm-foundry's `TrainConfig` does not have: with a batch key, a
/// file (or a launch line's flags, `--sharded_checkpointer=olmo_core`) is OLMo's.
const TOP_KEYS: [&str; 10] = [
    "sharded_checkpointer",
    "save_interval_unsharded",
    "save_interval_ephemeral",
    "save_num_unsharded_checkpoints_to_keep",
    "remote_save_folder",
    "try_load_latest_save",
    "evaluators",
    "speed_monitor",
    "distributed_strategy",
    "softmax_auxiliary_loss",
];

/// The first of `keys` the root has: where a framework default is shown.
fn anchor<'a>(root: &Node, keys: &[&'a str]) -> Option<&'a str> {
    keys.iter().copied().find(|k| root.get(k).is_some())
}

impl Framework for Olmo {
    fn name(&self) -> &'static str {
        "olmo"
    }

    fn title(&self) -> &'static str {
        "OLMo"
    }

    fn doc(&self) -> Doc {
        Doc {
            evidence: "`model.d_model` with OLMo's model keys (`block_type`, `include_bias`, `rope`, `mlp_ratio`, `max_sequence_length`, `weight_tying`, …) and no `model.name`, or a batch key with OLMo-only keys (`sharded_checkpointer`, `save_interval_unsharded`, `evaluators`, `speed_monitor`, `distributed_strategy`, …)",
            roles: "`global_train_batch_size`, `device_train_microbatch_size`, `model.max_sequence_length`, `precision` (`amp_bf16`, `amp_fp16`, `fp32`), `model.d_model`/`n_heads`/`n_layers`/`vocab_size`/`weight_tying`, `optimizer.learning_rate`, `optimizer.name` (`adamw`, `lionw` → Lion, the default); `distributed_strategy` (default `fsdp`) with `fsdp.sharding_strategy` (default `FULL_SHARD`) → FSDP, `activation_checkpointing: whole_layer` (or `true`) → full",
            semantics: "device batch = global ÷ world, which must be whole (OLMo asserts); accumulation = ⌈device ÷ micro⌉, the last micro batch may be smaller (`Trainer.split_batch`); `${…}` is interpolated (OmegaConf; `${path.choose:…}` is OLMo's resolver, not run); an unknown top-level key is reported (OmegaConf's structured merge raises); world from the launcher; memory not estimated (OLMo's own model, named by its dimensions, under FSDP)",
        }
    }

    fn evidence(&self, cx: &Evidence) -> Option<String> {
        if let Some(model) = cx.root.get("model").filter(|m| m.get("d_model").is_some() && m.get("name").is_none()) {
            let keys: Vec<String> = MODEL_KEYS.iter().filter(|k| model.get(k).is_some()).map(|k| format!("`{k}`")).collect();
            if !keys.is_empty() {
                return Some(format!("OLMo's `model.d_model` with model keys {}", keys.join(", ")));
            }
        }
        let batch = cx.listed(&["global_train_batch_size", "device_train_microbatch_size"]);
        let own = cx.listed(&TOP_KEYS);
        (!batch.is_empty() && !own.is_empty()).then(|| format!("batch keys {} with OLMo's keys {}", batch.join(", "), own.join(", ")))
    }

    fn bindings(&self, _manifest: &Manifest) -> Vec<(Role, String)> {
        super::owned(&BINDINGS)
    }

    /// The optimizer (`olmo/optim.py`, `build_optimizer`: `OptimizerType.lionw` → `LionW`, one
    /// momentum; `adamw` → `AdamW`), FSDP (`scripts/train.py` wraps the model in
    /// `FullyShardedDataParallel(sharding_strategy=cfg.fsdp.sharding_strategy)` when
    /// `distributed_strategy` is `fsdp`, the default) and whole-layer activation checkpointing.
    fn derived(&self, root: &Node) -> Vec<super::Derived> {
        let mut out = DerivedRoles::default();
        match root.get_dotted("optimizer.name").and_then(Node::as_str) {
            Some(name) => {
                let typed = match name {
                    "lionw" => "lion",
                    other => other,
                };
                out.push(Role::Optimizer, typed.into(), "optimizer.name");
            }
            None if root.get("optimizer").is_some_and(|o| matches!(o.value, Value::Map(_))) => {
                out.push_default(Role::Optimizer, "lion".into(), "optimizer.name", "optimizer");
            }
            None => {}
        }
        match root.get("distributed_strategy").and_then(Node::as_str) {
            Some("ddp" | "single") => out.push(Role::Fsdp, false.into(), "distributed_strategy"),
            Some("fsdp") | None => match root.get_dotted("fsdp.sharding_strategy").and_then(Node::as_str) {
                Some(strategy) => out.push(Role::Fsdp, (!strategy.eq_ignore_ascii_case("NO_SHARD")).into(), "fsdp.sharding_strategy"),
                None => {
                    if let Some(at) = anchor(root, &["fsdp", "distributed_strategy", "global_train_batch_size", "model"]) {
                        out.push_default(Role::Fsdp, true.into(), "fsdp.sharding_strategy", at);
                    }
                }
            },
            Some(_) => {}
        }
        if let Some(node) = root.get("activation_checkpointing") {
            match (&node.value, node.as_str()) {
                (Value::Bool(true), _) | (_, Some("whole_layer")) => out.push(Role::ActivationCheckpointing, "full".into(), "activation_checkpointing"),
                (Value::Bool(false), _) => out.push(Role::ActivationCheckpointing, "none".into(), "activation_checkpointing"),
                // `one_in_two`, …, `fine_grained` checkpoint some layers or parts: no typed value says that.
                _ => {}
            }
        }
        out.0
    }

    /// The global batch split over the world, accumulation by ceiling (module doc).
    fn batch(&self) -> BatchSemantics {
        BatchSemantics { global_split_over_world: true, ..BatchSemantics::default() }
    }

    fn known_keys(&self, _root: &Node) -> Option<KnownKeys> {
        Some(KnownKeys { path: String::new(), keys: &TRAIN_CONFIG_KEYS, strict: true, reported_elsewhere: &[] })
    }

    /// `BaseConfig.load`: `om.load`, then `om.to_object` resolves every interpolation.
    fn interpolates(&self) -> bool {
        true
    }

    fn sequence_length_keys(&self) -> &'static [&'static str] {
        &["max_sequence_length"]
    }

    /// OLMo builds its own transformer from `model:`'s dimensions: no model of the catalog is
    /// named, so no parameter count is derived, and FSDP with OLMo's wrapping and mixed
    /// precision shards it over the launcher's world.
    fn memory_unmodelled(&self, root: &Node) -> Option<Unmodelled> {
        root.get("model")?;
        Some(Unmodelled {
            path: "model".to_owned(),
            reason: "OLMo builds its own transformer from these dimensions, which name no model of trainlint's catalog (no parameter count is derived), and shards it with PyTorch FSDP (`fsdp`, FULL_SHARD by default) over the launcher's world".to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{detected, parse};
    use super::*;

    #[test]
    fn recognised_without_taking_llm_foundry_files() {
        assert_eq!(detected("model:\n  d_model: 4096\n  block_type: sequential\nglobal_train_batch_size: 2048\n"), "olmo");
        assert_eq!(detected("global_train_batch_size: 8\nsharded_checkpointer: olmo_core\n"), "olmo");
        // llm-foundry's MPT spells its shape with `d_model` too, under a registered `model.name`.
        assert_eq!(detected("global_train_batch_size: 8\nmodel:\n  name: mpt_causal_lm\n  d_model: 1024\n  max_seq_len: 2048\n"), "llm-foundry");
        assert_eq!(detected("global_train_batch_size: 8\nsave_folder: x\nsave_overwrite: true\n"), "llm-foundry");
        assert_eq!(detected("model:\n  d_model: 4096\n"), "unknown");
    }

    #[test]
    fn own_keys_are_not_llm_foundrys() {
        let foundry = crate::dialects::llm_foundry::LlmFoundry.known_keys(&parse("{}\n")).expect("llm-foundry keys").keys;
        for key in TOP_KEYS {
            assert!(TRAIN_CONFIG_KEYS.contains(&key), "{key} is a TrainConfig field");
            assert!(!foundry.contains(&key), "{key} is llm-foundry's too");
        }
    }

    #[test]
    fn fsdp_optimizer_and_checkpointing() {
        let derived = |text: &str| Olmo.derived(&parse(text)).into_iter().map(|d| (d.role, d.value, d.path)).collect::<Vec<_>>();
        let fsdp_default = derived("global_train_batch_size: 8\nfsdp:\n  precision: mixed\noptimizer:\n  learning_rate: 1\n");
        assert!(fsdp_default.contains(&(Role::Fsdp, true.into(), "fsdp.sharding_strategy".to_owned())));
        assert!(fsdp_default.contains(&(Role::Optimizer, "lion".into(), "optimizer.name".to_owned())), "lionw is OptimizerConfig's default");
        assert!(derived("distributed_strategy: ddp\n").contains(&(Role::Fsdp, false.into(), "distributed_strategy".to_owned())));
        assert!(derived("fsdp:\n  sharding_strategy: NO_SHARD\n").contains(&(Role::Fsdp, false.into(), "fsdp.sharding_strategy".to_owned())));
        assert!(derived("activation_checkpointing: whole_layer\n").contains(&(Role::ActivationCheckpointing, "full".into(), "activation_checkpointing".to_owned())));
        assert!(derived("activation_checkpointing: true\n").contains(&(Role::ActivationCheckpointing, "full".into(), "activation_checkpointing".to_owned())));
        assert!(!derived("activation_checkpointing: one_in_two\n").iter().any(|d| d.0 == Role::ActivationCheckpointing));
        assert!(derived("optimizer:\n  name: adamw\n").contains(&(Role::Optimizer, "adamw".into(), "optimizer.name".to_owned())));
    }
}
