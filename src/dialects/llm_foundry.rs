//! MosaicML Composer through llm-foundry's training YAML (`scripts/train/train.py`
//! reads it with OmegaConf): `global_train_batch_size`, `device_train_microbatch_size`
//! (a number or `auto`), `max_seq_len`, `precision: amp_bf16`, `fsdp_config`, and a
//! `variables:` block that the rest of the file interpolates (`${variables.global_seed}`).
//!
//! Sources (mosaicml/llm-foundry, `llmfoundry/utils/config_utils.py`, commit 0081bd28;
//! mosaicml/composer, `composer/trainer/trainer.py` — commit ef6e6918 for
//! `_adjust_device_train_microbatch_size` and the `train_dataloader` note "the per-rank
//! batch will be divided into 256 / 128 = 2 microbatches", a later version's `Trainer`
//! docstring for the smaller last section — and `composer/core/precision.py`):
//!
//! - `TrainConfig` lists the top-level keys the training script accepts; any other
//!   top-level key raises "Unused parameter … Please place any variables under the
//!   `variables` key" (`make_dataclass_and_log_config`). `variables` itself is
//!   ignored by the trainer: it exists to be interpolated.
//! - `calculate_batch_size_info`: the per-device batch is `global_train_batch_size ÷
//!   world size`, and a global batch the world does not divide raises ValueError
//!   ("Global batchsize … is not divisible by …"); a micro batch larger than the
//!   device batch is lowered to it (a warning); the accumulation is
//!   `ceil(device batch ÷ micro batch)`; `auto` leaves it `auto`.
//! - Composer `Trainer(device_train_microbatch_size=…)`: the device batch is cut into
//!   sections of the micro batch size, "the last section will be potentially smaller"
//!   when it does not divide, and each section's loss is weighted by its share of the
//!   device batch, so the step still sees the whole global batch. `auto` is adjusted at run
//!   time: the micro batch is halved after each CUDA OOM
//!   (`_adjust_device_train_microbatch_size`).
//! - The world is the launcher's (`composer -n 8 train.py …`, torchrun): the YAML
//!   states no device count.

use super::{BatchSemantics, Dialect, DerivedRoles, Doc, Evidence, Framework, KnownKeys};
use crate::load::Node;
use crate::schema::{Manifest, Role};

pub(crate) const LLM_FOUNDRY: Dialect = Dialect(&LlmFoundry);

pub(crate) struct LlmFoundry;

/// Role → key. `max_seq_len` is the top-level key `TrainConfig` requires; older
/// files and files whose top level interpolates it keep it in `variables`.
/// `model.pretrained_model_name_or_path` is the hub id an `hf_causal_lm` model loads
/// (llm-foundry `llmfoundry/models/hf/hf_causal_lm.py`, `ComposerHFCausalLM`); an
/// `mpt_causal_lm` states its shape (`llmfoundry/models/mpt/configuration_mpt.py`,
/// `MPTConfig(d_model, n_heads, n_layers, vocab_size, max_seq_len)`).
pub(crate) const BINDINGS: [(Role, &str); 12] = [
    (Role::GlobalBatch, "global_train_batch_size"),
    (Role::MicroBatch, "device_train_microbatch_size"),
    (Role::SequenceLength, "max_seq_len"),
    (Role::SequenceLength, "variables.max_seq_len"),
    (Role::Precision, "precision"),
    (Role::Model, "model.pretrained_model_name_or_path"),
    (Role::HiddenSize, "model.d_model"),
    (Role::Heads, "model.n_heads"),
    (Role::Layers, "model.n_layers"),
    (Role::VocabSize, "model.vocab_size"),
    (Role::LearningRate, "optimizer.lr"),
    (Role::ActivationCheckpointing, "fsdp_config.activation_checkpointing"),
];

/// llm-foundry `TrainConfig` fields (`llmfoundry/utils/config_utils.py`, commit
/// 0081bd28). SCH003 reports near misses only: older llm-foundry releases accepted
/// extra top-level keys (`data_local`, `global_seed`) that the current one refuses.
const TRAIN_CONFIG_KEYS: [&str; 66] = [
    "model",
    "tokenizer",
    "optimizer",
    "scheduler",
    "train_loader",
    "device_train_batch_size",
    "device_eval_batch_size",
    "max_duration",
    "eval_interval",
    "max_seq_len",
    "seed",
    "precision",
    "code_paths",
    "max_split_size_mb",
    "expandable_segments",
    "cuda_load_lazy",
    "dist_timeout",
    "fsdp_config",
    "eval_loader",
    "eval_loaders",
    "icl_tasks",
    "icl_tasks_str",
    "eval_gauntlet",
    "eval_gauntlet_str",
    "icl_subset_num_batches",
    "icl_seq_len",
    "loggers",
    "progress_bar",
    "log_to_console",
    "python_log_level",
    "console_log_interval",
    "log_config",
    "callbacks",
    "algorithms",
    "save_folder",
    "save_latest_filename",
    "save_overwrite",
    "save_weights_only",
    "save_filename",
    "save_interval",
    "save_num_checkpoints_to_keep",
    "load_path",
    "load_weights_only",
    "load_strict_model_weights",
    "load_ignore_keys",
    "save_ignore_keys",
    "device_train_microbatch_size",
    "global_train_batch_size",
    "eval_subset_num_batches",
    "eval_first",
    "compile_config",
    "metadata",
    "run_name",
    "autoresume",
    "profiler",
    "variables",
    "n_gpus",
    "device_train_grad_accum",
    // Not TrainConfig fields, but keys of llm-foundry's own YAMLs that a typo of a
    // known key should not be mistaken for.
    "global_seed",
    "data_local",
    "data_remote",
    "integrations",
    "tp_config",
    "parallelism_config",
    "load_strict",
    "spin_dataloaders",
];

/// The training model classes llm-foundry registers under `model.name`
/// (`llmfoundry/models/__init__.py`, `models.register('mpt_causal_lm' | 'hf_causal_lm' | 'hf_t5', …)`;
/// the others registered there are evaluation API wrappers).
const MODEL_NAMES: [&str; 3] = ["mpt_causal_lm", "hf_causal_lm", "hf_t5"];

/// Keys beside `model.name` that only an llm-foundry training YAML has together.
const LAYOUT_KEYS: [&str; 6] = ["train_loader", "max_seq_len", "variables", "fsdp_config", "max_duration", "device_eval_batch_size"];

impl Framework for LlmFoundry {
    fn name(&self) -> &'static str {
        "llm-foundry"
    }

    fn title(&self) -> &'static str {
        "llm-foundry (Composer)"
    }

    fn doc(&self) -> Doc {
        Doc {
            evidence: "`global_train_batch_size` or `device_train_microbatch_size`, or `model.name: mpt_causal_lm`/`hf_causal_lm`/`hf_t5` with llm-foundry keys (`train_loader`, `max_seq_len`, `variables`, `fsdp_config`, …)",
            roles: "`global_train_batch_size`, `device_train_microbatch_size` (a number or `auto`), `max_seq_len` (or `variables.max_seq_len`), `precision` (`fp32`, `amp_fp16`, `amp_bf16`, `amp_fp8`), `model.pretrained_model_name_or_path`, `model.d_model`/`n_heads`/`n_layers`/`vocab_size`, `optimizer.lr`, `optimizer.name` (`decoupled_adamw` → AdamW, `decoupled_lionw` → Lion); `fsdp_config.sharding_strategy` → FSDP, `fsdp_config.activation_checkpointing`",
            semantics: "device batch = global ÷ world, which must be whole (llm-foundry raises); accumulation = ⌈device ÷ micro⌉, the last micro batch may be smaller (Composer); micro `auto` is chosen at run time (no accumulation is derived); `${variables.…}` is interpolated; world from the launcher",
        }
    }

    fn evidence(&self, cx: &Evidence) -> Option<String> {
        let batch = cx.listed(&["global_train_batch_size", "device_train_microbatch_size"]);
        if !batch.is_empty() {
            return Some(format!("llm-foundry batch keys {}", batch.join(", ")));
        }
        let name = cx.root.get("model").and_then(|m| m.get("name")).and_then(Node::as_str)?;
        let layout = cx.listed(&LAYOUT_KEYS);
        (MODEL_NAMES.contains(&name) && !layout.is_empty()).then(|| format!("`model.name: {name}` with llm-foundry keys {}", layout.join(", ")))
    }

    fn bindings(&self, _manifest: &Manifest) -> Vec<(Role, String)> {
        super::owned(&BINDINGS)
    }

    /// The optimizer's state size, and `fsdp_config.sharding_strategy` (Composer's FSDP config, default `FULL_SHARD`
    /// when the mapping is given; mosaicml/composer `composer/utils/parallelism.py`, `FSDPConfig`):
    /// `FULL_SHARD` shards parameters, gradients and optimizer states; `NO_SHARD` is DDP.
    fn derived(&self, root: &Node) -> Vec<super::Derived> {
        let mut out = DerivedRoles::default();
        // `optimizer.name` is a key of llm-foundry's optimizer registry (`llmfoundry/optim/__init__.py`,
        // `optimizers.register`): `decoupled_adamw` is Composer's `DecoupledAdamW(AdamW)` (two fp32 states,
        // `composer/optim/decoupled_weight_decay.py`), `decoupled_lionw` one momentum
        // (`llmfoundry/optim/lion.py`), `decoupled_lionw_8b` its 8-bit version. Other names
        // are passed as written (the memory model says it assumes AdamW for a name it does not know).
        if let Some(name) = root.get("optimizer").and_then(|o| o.get("name")).and_then(Node::as_str) {
            let typed = match name {
                "decoupled_adamw" | "adamw" => "adamw",
                "decoupled_lionw" => "lion",
                "decoupled_lionw_8b" => "lion_8bit",
                other => other,
            };
            out.push(Role::Optimizer, typed.into(), "optimizer.name");
        }
        if let Some(fsdp) = root.get("fsdp_config").filter(|f| f.entries().is_some()) {
            match fsdp.get("sharding_strategy").and_then(Node::as_str) {
                Some(strategy) if strategy.eq_ignore_ascii_case("FULL_SHARD") => out.push(Role::Fsdp, true.into(), "fsdp_config.sharding_strategy"),
                Some(strategy) if strategy.eq_ignore_ascii_case("NO_SHARD") => out.push(Role::Fsdp, false.into(), "fsdp_config.sharding_strategy"),
                _ => {}
            }
        }
        out.0
    }

    /// Global and micro batch; the device batch is the global batch split over
    /// the world, accumulation derived by ceiling (module doc).
    fn batch(&self) -> BatchSemantics {
        BatchSemantics { global_split_over_world: true, ..BatchSemantics::default() }
    }

    fn known_keys(&self, _root: &Node) -> Option<KnownKeys> {
        Some(KnownKeys { path: String::new(), keys: &TRAIN_CONFIG_KEYS, strict: false, reported_elsewhere: &[] })
    }

    /// `scripts/train/train.py` loads the YAML with `om.load` and resolves it
    /// (`om.to_container(cfg, resolve=True)` in `make_dataclass_and_log_config`).
    fn interpolates(&self) -> bool {
        true
    }

    fn sequence_length_keys(&self) -> &'static [&'static str] {
        &["max_seq_len"]
    }

    /// A sharded FSDP run (any strategy but `NO_SHARD`) divides the model states
    /// over a world the YAML does not state, and `mixed_precision: PURE` keeps
    /// 16-bit parameter copies: the memory model does not price that yet.
    fn memory_unmodelled(&self, root: &Node) -> Option<super::Unmodelled> {
        let fsdp = root.get("fsdp_config").filter(|f| f.entries().is_some())?;
        let strategy = fsdp.get("sharding_strategy").and_then(Node::as_str).unwrap_or("FULL_SHARD");
        (!strategy.eq_ignore_ascii_case("NO_SHARD")).then(|| super::Unmodelled {
            path: "fsdp_config".to_owned(),
            reason: format!("the run shards with PyTorch FSDP ({strategy}) over the launcher's world, which trainlint does not model for this framework yet"),
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::dialects::{Evidence, detect};
    use std::path::Path;

    fn detected(text: &str) -> &'static str {
        let root = crate::load::yaml::parse(text).expect("valid YAML").root;
        let no_tree = |_: &Path| None;
        detect(&Evidence { root: &root, path: None, bound_paths: &[], hydra_primary: &no_tree }).0.name()
    }

    #[test]
    fn recognised_without_taking_other_frameworks_files() {
        assert_eq!(detected("global_train_batch_size: 8\n"), "llm-foundry");
        assert_eq!(detected("device_train_microbatch_size: auto\n"), "llm-foundry");
        assert_eq!(detected("model:\n  name: hf_causal_lm\nvariables:\n  seed: 1\n"), "llm-foundry");
        // `model.name` alone, or a name llm-foundry does not register, is not evidence.
        assert_eq!(detected("model:\n  name: hf_causal_lm\n"), "unknown");
        assert_eq!(detected("model:\n  name: resnet50\nmax_seq_len: 128\n"), "unknown");
        // Other frameworks' files that share a key keep their dialect.
        assert_eq!(detected("model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\nmax_seq_len: 2048\nbatch_size: 2\n"), "torchtune");
        assert_eq!(detected("train_micro_batch_size_per_gpu: 4\nglobal_train_batch_size: 8\n"), "deepspeed");
        assert_eq!(detected("trainer:\n  devices: 2\n  max_epochs: 3\nmodel:\n  name: mpt_causal_lm\n"), "lightning");
    }
}
