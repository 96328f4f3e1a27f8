//! PyTorch Lightning: LightningCLI's `trainer:`/`model:`/`data:`, a Hydra
//! Trainer config (`_target_: lightning.pytorch.Trainer`), a nested trainer
//! mapping (`training.trainer`), or saved hyperparameters.
//!
//! LightningCLI (lightning `src/lightning/pytorch/cli.py`, jsonargparse) spells a
//! class it instantiates as `class_path` + `init_args`: the model and the data
//! module in subclass mode (`LightningCLI(subclass_mode_model=True,
//! subclass_mode_data=True)`), `optimizer:` / `lr_scheduler:`, and each of
//! `trainer.callbacks` ("each callback must be given as a dictionary, including a
//! `class_path` entry … and optionally an `init_args` entry", Lightning docs,
//! *Configure hyperparameters from the CLI (Advanced)*). Without subclass mode the
//! arguments sit directly under `model:` / `data:`; jsonargparse ≥ 4.29 also accepts
//! them there for a non-abstract base class (omni-us/jsonargparse#505). LightningCLI
//! adds the trainer without subclass mode (`add_core_arguments_to_parser`:
//! `add_lightning_class_args(self.trainer_class, "trainer")`); a project whose CLI
//! subclass turns it on writes `trainer: {class_path, init_args}`, read from
//! `trainer.init_args` (the Trainer arguments are then checked there). A config given
//! before the subcommand nests all of it under `fit:` (or `validate:`, `test:`, `predict:`).

use super::{Doc, Dialect, DerivedRoles, Evidence, Framework, KnownKeys, WorldSize};
use crate::load::{Node, Value};
use crate::schema::{Manifest, Role};

pub(crate) const LIGHTNING: Dialect = Dialect(&Lightning);

pub struct Lightning;

const BINDINGS: [(Role, &str); 17] = [
    (Role::Devices, "trainer.devices"),
    (Role::Nodes, "trainer.num_nodes"),
    (Role::Precision, "trainer.precision"),
    (Role::Accumulation, "trainer.accumulate_grad_batches"),
    // The DataLoader's batch size is not a Trainer argument: where the
    // LightningCLI and common Hydra layouts put it (`data.dict_kwargs` is not
    // one: jsonargparse passes it as `**kwargs`, which a data module hands to its
    // dataset, not to its DataLoader).
    (Role::MicroBatch, "data.init_args.batch_size"),
    (Role::MicroBatch, "data.batch_size"),
    (Role::MicroBatch, "datamodule.batch_size"),
    (Role::MicroBatch, "data_loader.batch_size"),
    // A LightningModule's hub model (`model_name_or_path`, the argument of Lightning's
    // own Transformers example, `GLUETransformer`), in subclass mode or not.
    (Role::Model, "model.init_args.model_name_or_path"),
    (Role::Model, "model.model_name_or_path"),
    // LightningCLI's `optimizer:` (`add_optimizer_args`, class_path + init_args), else the module's own `lr`.
    (Role::LearningRate, "optimizer.init_args.lr"),
    (Role::LearningRate, "model.init_args.lr"),
    (Role::LearningRate, "model.init_args.learning_rate"),
    // A LightningCLI subclass with the trainer in subclass mode (module doc).
    (Role::Devices, "trainer.init_args.devices"),
    (Role::Nodes, "trainer.init_args.num_nodes"),
    (Role::Precision, "trainer.init_args.precision"),
    (Role::Accumulation, "trainer.init_args.accumulate_grad_batches"),
];

/// The subcommands a LightningCLI config may nest its sections under (`LightningCLI.subcommands`).
const SUBCOMMANDS: [&str; 4] = ["fit", "validate", "test", "predict"];

/// The LightningCLI sections whose `class_path` shows a LightningCLI config.
const CLI_SECTIONS: [&str; 5] = ["model", "data", "optimizer", "lr_scheduler", "trainer"];

/// Where the Trainer arguments of the mapping at `trainer` are: its `init_args` when
/// the trainer is given as `class_path` + `init_args`, else the mapping itself.
fn trainer_arguments(root: &Node, trainer: String) -> String {
    let subclass = root.get_dotted(&trainer).is_some_and(|t| t.get("class_path").is_some() && t.get("init_args").is_some());
    if subclass { format!("{trainer}.init_args") } else { trainer }
}

/// The sections of a LightningCLI config: the file's top level, or a subcommand's
/// mapping (`fit:`) when the file has no `trainer`, `model` or `data` of its own.
fn cli_prefix(root: &Node) -> Option<&'static str> {
    if ["trainer", "model", "data"].iter().any(|k| root.get(k).is_some()) {
        return Some("");
    }
    SUBCOMMANDS.iter().find(|s| root.get(s).is_some_and(|m| ["trainer", "model", "data"].iter().any(|k| m.get(k).is_some()))).map(|s| match *s {
        "fit" => "fit.",
        "validate" => "validate.",
        "test" => "test.",
        _ => "predict.",
    })
}

/// `model.class_path`, `data.class_path`, … that the config states (under its subcommand, if any).
fn class_paths(root: &Node) -> Vec<String> {
    let Some(prefix) = cli_prefix(root) else { return Vec::new() };
    CLI_SECTIONS
        .iter()
        .map(|section| format!("{prefix}{section}"))
        .filter(|section| root.get_dotted(section).and_then(|s| s.get("class_path")).and_then(Node::as_str).is_some())
        .map(|section| format!("`{section}.class_path`"))
        .collect()
}

/// A `GradientAccumulationScheduler` among `trainer.callbacks`: the path of its one
/// factor when the schedule is one factor from epoch 0 (`scheduling: {0: N}`, the
/// accumulation of every step), else the path of the whole schedule (the
/// accumulation changes between epochs: no single number). Lightning
/// `callbacks/gradient_accumulation_scheduler.py` (`on_train_epoch_start` sets
/// `trainer.accumulate_grad_batches` from the schedule; epochs before the first
/// key accumulate 1).
fn scheduled_accumulation(root: &Node, trainer: &str) -> Option<String> {
    let callbacks = root.get_dotted(&format!("{trainer}.callbacks"))?;
    // `Trainer(callbacks=...)` takes a list or one callback.
    let items: Vec<(String, &Node)> = match &callbacks.value {
        crate::load::Value::Seq(items) => items.iter().enumerate().map(|(i, c)| (format!("{trainer}.callbacks.{i}"), c)).collect(),
        crate::load::Value::Map(_) => vec![(format!("{trainer}.callbacks"), callbacks)],
        _ => return None,
    };
    items.into_iter().find_map(|(at, callback)| {
        let class = callback.get("class_path").and_then(Node::as_str)?;
        if class.rsplit('.').next() != Some("GradientAccumulationScheduler") {
            return None;
        }
        let scheduling = callback.get("init_args").and_then(|a| a.get("scheduling"))?;
        let entries = scheduling.entries()?;
        let path = format!("{at}.init_args.scheduling");
        Some(if entries.len() == 1 && entries[0].key == "0" { format!("{path}.0") } else { path })
    })
}

/// Lightning 2.x `Trainer.__init__` arguments (lightning 2.6, `trainer/trainer.py`).
pub(crate) const TRAINER_KEYS: [&str; 41] = [
    "accelerator",
    "strategy",
    "devices",
    "num_nodes",
    "precision",
    "logger",
    "callbacks",
    "fast_dev_run",
    "max_epochs",
    "min_epochs",
    "max_steps",
    "min_steps",
    "max_time",
    "limit_train_batches",
    "limit_val_batches",
    "limit_test_batches",
    "limit_predict_batches",
    "overfit_batches",
    "val_check_interval",
    "check_val_every_n_epoch",
    "num_sanity_val_steps",
    "log_every_n_steps",
    "enable_checkpointing",
    "enable_progress_bar",
    "enable_model_summary",
    "accumulate_grad_batches",
    "gradient_clip_val",
    "gradient_clip_algorithm",
    "deterministic",
    "benchmark",
    "inference_mode",
    "use_distributed_sampler",
    "profiler",
    "detect_anomaly",
    "barebones",
    "plugins",
    "sync_batchnorm",
    "reload_dataloaders_every_n_epochs",
    "default_root_dir",
    "model_registry",
    "enable_autolog_hparams",
];

/// Trainer arguments Lightning removed (1.7, 2.0), which MIG002/MIG003 report
/// with their replacement.
const REMOVED_TRAINER_KEYS: [&str; 19] = [
    "gpus",
    "replace_sampler_ddp",
    "resume_from_checkpoint",
    "auto_lr_find",
    "auto_scale_batch_size",
    "tpu_cores",
    "ipus",
    "num_processes",
    "track_grad_norm",
    "amp_backend",
    "amp_level",
    "move_metrics_to_cpu",
    "multiple_trainloader_mode",
    "auto_select_gpus",
    "weights_summary",
    "progress_bar_refresh_rate",
    "flush_logs_every_n_steps",
    "terminate_on_nan",
    "stochastic_weight_avg",
];

fn target_is_trainer(node: &Node) -> bool {
    node.get("_target_").and_then(Node::as_str).is_some_and(|t| t.ends_with(".Trainer") && t.contains("lightning"))
}

/// The dotted path of a nested `trainer` mapping with at least two Lightning
/// Trainer arguments (`training.trainer` in seed 004's project).
pub(crate) fn find_trainer(root: &Node) -> Option<String> {
    fn walk(node: &Node, path: &str, depth: usize) -> Option<String> {
        let entries = node.entries()?;
        for entry in entries {
            let child = if path.is_empty() { entry.key.clone() } else { format!("{path}.{}", entry.key) };
            if entry.key == "trainer" && entry.value.entries().is_some_and(|_| TRAINER_KEYS.iter().filter(|k| entry.value.get(k).is_some()).count() >= 2) {
                return Some(child);
            }
            if depth > 0
                && let Some(found) = walk(&entry.value, &child, depth - 1)
            {
                return Some(found);
            }
        }
        None
    }
    walk(root, "", 3)
}

/// Mappings that are Trainer arguments: the value of a `trainer` key
/// (LightningCLI, Hydra), or a mapping whose `_target_` is a `...Trainer`
/// class (lightning-hydra-template's `configs/trainer/*.yaml`).
fn trainers(root: &Node) -> Vec<&Node> {
    fn collect<'a>(node: &'a Node, under_trainer_key: bool, out: &mut Vec<&'a Node>) {
        let Value::Map(entries) = &node.value else { return };
        if under_trainer_key || target_is_trainer(node) {
            // A trainer in subclass mode: its arguments are under `init_args`.
            match node.get("init_args").filter(|a| under_trainer_key && node.get("class_path").is_some() && a.entries().is_some()) {
                Some(arguments) => out.push(arguments),
                None => out.push(node),
            }
        }
        for entry in entries {
            collect(&entry.value, entry.key == "trainer", out);
        }
    }
    let mut out = Vec::new();
    collect(root, false, &mut out);
    out
}

impl Framework for Lightning {
    fn name(&self) -> &'static str {
        "lightning"
    }

    fn title(&self) -> &'static str {
        "Lightning"
    }

    fn doc(&self) -> Doc {
        Doc {
            evidence: "a `trainer:` mapping (LightningCLI), a nested one (`training.trainer`), a Hydra `_target_: ...Trainer`, LightningCLI `class_path` under `model`/`data`/`optimizer`/`lr_scheduler`/`trainer` (also under `fit:`), or `version_N/hparams.yaml`",
            roles: "`trainer.devices`, `num_nodes`, `precision`, `accumulate_grad_batches` (or a constant `GradientAccumulationScheduler` in `trainer.callbacks`); micro batch from `data.init_args.batch_size`, `data.batch_size`, `datamodule.batch_size`, `data_loader.batch_size`; `model.init_args.model_name_or_path`; learning rate from `optimizer.init_args.lr`, `model.init_args.lr`; the same under a subcommand (`fit:`); `trainer.init_args` for a trainer in subclass mode",
            semantics: "unknown Trainer arguments are SCH003 (Trainer raises)",
        }
    }

    fn evidence(&self, cx: &Evidence) -> Option<String> {
        if target_is_trainer(cx.root) {
            return Some("`_target_` is a Lightning Trainer".to_owned());
        }
        if let Some(trainer) = cx.root.get("trainer").filter(|t| t.entries().is_some()) {
            let known = TRAINER_KEYS.iter().filter(|k| trainer.get(k).is_some()).count();
            if known >= 1 && (cx.has("model") || cx.has("data") || cx.has("seed_everything") || known >= 2) {
                return Some("a `trainer:` mapping of Lightning Trainer arguments (LightningCLI)".to_owned());
            }
        }
        if let Some(path) = find_trainer(cx.root) {
            return Some(format!("Lightning Trainer arguments under `{path}`"));
        }
        let classes = class_paths(cx.root);
        (!classes.is_empty()).then(|| format!("LightningCLI classes {}", classes.join(", ")))
    }

    /// Lightning's saved hyperparameters: `version_N/hparams.yaml`.
    fn layout_evidence(&self, cx: &Evidence) -> Option<String> {
        let path = cx.path?;
        let in_version_folder = path.parent().and_then(|p| p.file_name()).and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("version_"));
        (path.file_name().is_some_and(|n| n == "hparams.yaml") && in_version_folder).then(|| "Lightning's saved hyperparameters (`version_N/hparams.yaml`)".to_owned())
    }

    fn bindings(&self, _manifest: &Manifest) -> Vec<(Role, String)> {
        super::owned(&BINDINGS)
    }

    /// A Hydra trainer group file has the Trainer arguments at its top level;
    /// an in-house layout nests them (`training.trainer`).
    /// A LightningCLI config under its subcommand (`fit:`) has the bound keys there;
    /// a constant `GradientAccumulationScheduler` callback gives the accumulation.
    fn derived(&self, root: &Node) -> Vec<super::Derived> {
        let mut out = DerivedRoles::default();
        if root.get("trainer").is_none() {
            let prefix = find_trainer(root).map(|p| format!("{p}.")).unwrap_or_default();
            out.copy(
                root,
                &prefix,
                &[(Role::Devices, "devices"), (Role::Nodes, "num_nodes"), (Role::Precision, "precision"), (Role::Accumulation, "accumulate_grad_batches")],
            );
        }
        if let Some(prefix) = cli_prefix(root).filter(|p| !p.is_empty()) {
            out.copy(root, prefix, &BINDINGS);
        }
        // Lightning raises when the Trainer's `accumulate_grad_batches` is not 1 beside the
        // callback, so the callback's factor is read only where the Trainer states none.
        let trainer = match cli_prefix(root) {
            Some(prefix) if root.get_dotted(&format!("{prefix}trainer")).is_some() => format!("{prefix}trainer"),
            _ => find_trainer(root).unwrap_or_else(|| "trainer".to_owned()),
        };
        let trainer = trainer_arguments(root, trainer);
        if root.get_dotted(&format!("{trainer}.accumulate_grad_batches")).is_none()
            && let Some(path) = scheduled_accumulation(root, &trainer)
            && let Some(factor) = root.get_dotted(&path)
        {
            out.push(Role::Accumulation, factor.to_json(), &path);
        }
        out.0
    }

    /// `devices × num_nodes`; `devices: -1` or `"auto"` (every visible GPU) is not known from the file.
    fn world_size(&self) -> WorldSize {
        WorldSize::Devices
    }

    /// Lightning checks the devices against the launcher.
    fn refuses_other_world(&self) -> Option<&'static str> {
        Some(super::LIGHTNING_VALIDATES_WORLD)
    }

    /// `Trainer(...)` raises on an unknown argument: every unknown key of the Trainer mapping is reported.
    fn known_keys(&self, root: &Node) -> Option<KnownKeys> {
        let path = if root.get("_target_").is_some() {
            Some(String::new())
        } else {
            root.get("trainer").map(|_| trainer_arguments(root, "trainer".to_owned())).or_else(|| find_trainer(root))
        };
        Some(KnownKeys { path: path?, keys: &TRAINER_KEYS, strict: true, reported_elsewhere: &REMOVED_TRAINER_KEYS })
    }

    fn interpolates(&self) -> bool {
        true
    }

    /// The Trainer mappings anywhere in the file (MIG001–MIG003).
    fn migration_scopes<'a>(&self, root: &'a Node) -> Vec<&'a Node> {
        trainers(root)
    }

    /// PyPI's `lightning` (the unified package, `import lightning.pytorch`)
    /// and `pytorch-lightning` (`import pytorch_lightning`) carry the same
    /// version numbers (Lightning-AI/pytorch-lightning `src/version.info`,
    /// published as both since 1.8).
    fn distributions(&self) -> &'static [&'static str] {
        &["lightning", "pytorch-lightning"]
    }
}

#[cfg(test)]
mod tests {
    use crate::dialects::{Evidence, detect};
    use std::path::Path;

    fn detected(text: &str) -> (&'static str, String) {
        let root = crate::load::yaml::parse(text).expect("valid YAML").root;
        let no_tree = |_: &Path| None;
        let (dialect, reason) = detect(&Evidence { root: &root, path: None, bound_paths: &[], hydra_primary: &no_tree });
        (dialect.name(), reason)
    }

    #[test]
    fn lightning_cli_class_paths_are_evidence() {
        assert_eq!(detected("data:\n  class_path: MyData\n  init_args:\n    batch_size: 2\n").1, "LightningCLI classes `data.class_path`");
        assert_eq!(detected("fit:\n  model:\n    class_path: M\n").1, "LightningCLI classes `fit.model.class_path`");
        assert_eq!(detected("optimizer:\n  class_path: torch.optim.AdamW\nmodel:\n  class_path: M\n").0, "lightning");
        // A `class_path` elsewhere, or under a key LightningCLI does not instantiate, is not evidence.
        assert_eq!(detected("encoder:\n  class_path: M\n").0, "unknown");
        assert_eq!(detected("model:\n  init_args:\n    lr: 1\n").0, "unknown");
        // Files of frameworks registered before Lightning keep their dialect.
        assert_eq!(detected("train_micro_batch_size_per_gpu: 4\nmodel:\n  class_path: M\n").0, "deepspeed");
        assert_eq!(detected("global_train_batch_size: 8\nmodel:\n  class_path: M\n").0, "llm-foundry");
    }
}
