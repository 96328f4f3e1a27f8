//! NVIDIA NeMo (1.x) Hydra YAML: a `trainer:` mapping of Lightning Trainer
//! arguments, a `model:` mapping and `exp_manager:`. Megatron models
//! (GPT pretraining, SFT/PEFT fine-tuning) state `model.micro_batch_size`,
//! `model.global_batch_size` and the model-parallel degrees; other models
//! (ASR, TTS) state a DataLoader batch (`model.train_ds.batch_size`) and
//! accumulate as Lightning does.
//!
//! Sources (NVIDIA/NeMo unless said otherwise):
//! - `examples/nlp/language_modeling/conf/megatron_gpt_config.yaml`,
//!   `examples/nlp/language_modeling/tuning/conf/megatron_gpt_finetuning_config.yaml`,
//!   `examples/asr/conf/citrinet/citrinet_1024.yaml`: the layouts.
//! - `nemo/collections/nlp/models/language_modeling/megatron_base_model.py`
//!   (commit 000316c8c3c8a10a0bbbdd54cac5981719e53db2), `MegatronBaseModel.__init__`:
//!   `initialize_model_parallel_for_nemo(world_size=trainer.world_size,
//!   tensor_model_parallel_size=cfg.get('tensor_model_parallel_size', 1),
//!   pipeline_model_parallel_size=cfg.get('pipeline_model_parallel_size', 1),
//!   context_parallel_size=cfg.get('context_parallel_size', 1),
//!   micro_batch_size=cfg.get('micro_batch_size'), global_batch_size=cfg.get('global_batch_size'))`;
//!   Lightning's `trainer.world_size` is `devices × num_nodes`.
//! - `nemo/collections/nlp/modules/common/megatron/megatron_init.py` (same commit),
//!   `fake_initialize_model_parallel`: asserts `world_size % (TP × PP × CP) == 0`, then
//!   `data_parallel_size = world_size // (TP × PP × CP)`; `initialize_model_parallel_for_nemo`
//!   sets up the microbatch calculator with that data-parallel size.
//! - NVIDIA/Megatron-LM `megatron/core/num_microbatches_calculator.py`
//!   (commit 00caa53af30912914981c86f39db123961678bbd), `ConstantNumMicroBatchesCalculator`:
//!   `assert global_batch_size % (micro_batch_size * data_parallel_size) == 0` ("global batch
//!   size (…) is not divisible by micro batch size (…) times data parallel size (…)"), and
//!   `num_micro_batches = global_batch_size // (micro_batch_size * data_parallel_size)`: the
//!   accumulation is derived, never stated.
//! - `nemo/collections/nlp/models/language_modeling/megatron_gpt_model.py`,
//!   `MegatronGPTModel._validate_trainer`: `trainer.accumulate_grad_batches > 1` raises
//!   ("Gradient accumulation is done within training_step"); the configs keep it at 1
//!   with the comment "do not modify".

use super::{BatchSemantics, Doc, Dialect, DerivedRoles, Evidence, Framework, KnownKeys, Pinned, WorldSize};
use crate::load::{Node, Value};
use crate::schema::{Manifest, Role};

pub(crate) const NEMO: Dialect = Dialect(&Nemo);

pub(crate) struct Nemo;

/// Keys of `model:` that only a Megatron model has (`megatron_gpt_config.yaml`).
const MEGATRON_KEYS: [&str; 5] = ["micro_batch_size", "global_batch_size", "tensor_model_parallel_size", "pipeline_model_parallel_size", "context_parallel_size"];

/// Role → key path; for a role with several paths the first present wins.
const BINDINGS: [(Role, &str); 18] = [
    (Role::Devices, "trainer.devices"),
    (Role::Nodes, "trainer.num_nodes"),
    (Role::Precision, "trainer.precision"),
    // Megatron models: the micro batch per data-parallel rank and the global batch.
    (Role::MicroBatch, "model.micro_batch_size"),
    (Role::GlobalBatch, "model.global_batch_size"),
    // Other models: the training DataLoader's batch (ASR `train_ds.batch_size`; TTS
    // `train_ds.dataloader_params.batch_size`).
    (Role::MicroBatch, "model.train_ds.batch_size"),
    (Role::MicroBatch, "model.train_ds.dataloader_params.batch_size"),
    (Role::TensorParallel, "model.tensor_model_parallel_size"),
    (Role::PipelineParallel, "model.pipeline_model_parallel_size"),
    (Role::ContextParallel, "model.context_parallel_size"),
    // GPT pretraining states `encoder_seq_length` (`data.seq_length: ${model.encoder_seq_length}`);
    // fine-tuning states the dataset's `max_seq_length`.
    (Role::SequenceLength, "model.encoder_seq_length"),
    (Role::SequenceLength, "model.seq_length"),
    (Role::SequenceLength, "model.data.seq_length"),
    (Role::SequenceLength, "model.data.train_ds.max_seq_length"),
    (Role::HiddenSize, "model.hidden_size"),
    (Role::Layers, "model.num_layers"),
    (Role::Heads, "model.num_attention_heads"),
    (Role::LearningRate, "model.optim.lr"),
];

/// What Megatron's microbatch calculator does when the accumulation it derives is not whole.
const INDIVISIBLE: &str = "NeMo/Megatron derives the accumulation as global_batch_size ÷ (micro_batch_size × data-parallel size) \
    and asserts that it is whole at start-up (Megatron-LM num_microbatches_calculator.py: \"global batch size is not divisible by \
    micro batch size times data parallel size\")";

/// Whether `model:` is a Megatron model's (it states a micro/global batch or a parallel degree).
fn is_megatron(root: &Node) -> bool {
    root.get("model").is_some_and(|model| MEGATRON_KEYS.iter().any(|k| model.get(k).is_some()))
}

impl Framework for Nemo {
    fn name(&self) -> &'static str {
        "nemo"
    }

    fn title(&self) -> &'static str {
        "NeMo"
    }

    fn doc(&self) -> Doc {
        Doc {
            evidence: "`trainer:` and `model:` mappings with `exp_manager:`, or with two of `model.micro_batch_size`, `global_batch_size`, `tensor_model_parallel_size`, `pipeline_model_parallel_size`, `context_parallel_size`",
            roles: "`trainer.devices`, `num_nodes`, `precision`; `model.micro_batch_size`, `global_batch_size`, `tensor_model_parallel_size`, `pipeline_model_parallel_size`, `context_parallel_size`, `encoder_seq_length` (or `seq_length`, `data.seq_length`, `data.train_ds.max_seq_length`), `hidden_size`, `num_layers`, `num_attention_heads`, `optim.lr`; other models: `model.train_ds.batch_size` and `trainer.accumulate_grad_batches`",
            semantics: "Megatron models: data-parallel world = devices × nodes ÷ (TP × PP × CP); accumulation = global ÷ (micro × data-parallel world), which must be whole (BAT003); `trainer.accumulate_grad_batches` is not the accumulation and must be 1 (SCH002); TP × PP × CP divides the GPUs, heads ÷ TP, layers ÷ PP (PAR001)",
        }
    }

    /// NeMo's example configs all have `trainer:`, `model:` and `exp_manager:`
    /// (NeMo's experiment manager, `nemo/utils/exp_manager.py`); a Megatron
    /// `model:` without `exp_manager:` is recognised by its batch and parallel keys.
    fn evidence(&self, cx: &Evidence) -> Option<String> {
        let is_map = |key: &str| cx.root.get(key).is_some_and(|n| matches!(n.value, Value::Map(_)));
        if !is_map("trainer") || !is_map("model") {
            return None;
        }
        let model = cx.root.get("model")?;
        let megatron: Vec<String> = MEGATRON_KEYS.iter().filter(|k| model.get(k).is_some()).map(|k| format!("`model.{k}`")).collect();
        if is_map("exp_manager") {
            let with = if megatron.is_empty() { String::new() } else { format!(", Megatron keys {}", megatron.join(", ")) };
            return Some(format!("`trainer:`, `model:` and `exp_manager:` (NeMo){with}"));
        }
        (megatron.len() >= 2).then(|| format!("`trainer:` and a Megatron `model:` ({}) (NeMo)", megatron.join(", ")))
    }

    fn bindings(&self, _manifest: &Manifest) -> Vec<(Role, String)> {
        super::owned(&BINDINGS)
    }

    /// A model that is not a Megatron model accumulates as Lightning does
    /// (`trainer.accumulate_grad_batches`). A Megatron model derives its
    /// accumulation from the global batch; its `trainer.accumulate_grad_batches`
    /// must stay 1 and is not bound.
    fn derived(&self, root: &Node) -> Vec<super::Derived> {
        let mut out = DerivedRoles::default();
        if !is_megatron(root) {
            out.copy(root, "trainer.", &[(Role::Accumulation, "accumulate_grad_batches")]);
        }
        out.0
    }

    fn batch(&self) -> BatchSemantics {
        BatchSemantics { indivisible: Some(INDIVISIBLE), ..BatchSemantics::default() }
    }

    /// `devices × num_nodes` (Lightning's `trainer.world_size`), divided by
    /// TP × PP × CP for the data-parallel world; `devices: -1` or `auto` is not known.
    fn world_size(&self) -> WorldSize {
        WorldSize::Devices
    }

    /// Lightning checks the devices against the launcher through the Lightning Trainer NeMo builds.
    fn refuses_other_world(&self) -> Option<&'static str> {
        Some(super::LIGHTNING_VALIDATES_WORLD)
    }

    /// NeMo builds `Trainer(**cfg.trainer)`: the Trainer's keys, as Lightning's dialect knows them.
    fn known_keys(&self, root: &Node) -> Option<KnownKeys> {
        super::lightning::LIGHTNING.known_keys(root)
    }

    /// Hydra/OmegaConf configs (`${model.encoder_seq_length}`).
    fn interpolates(&self) -> bool {
        true
    }

    fn sequence_length_keys(&self) -> &'static [&'static str] {
        &["encoder_seq_length", "seq_length", "max_seq_length"]
    }

    /// A Megatron model accumulates by itself: `MegatronGPTModel._validate_trainer`
    /// (`nemo/collections/nlp/models/language_modeling/megatron_gpt_model.py`) raises
    /// when `trainer.accumulate_grad_batches` is not 1.
    fn pinned_values(&self, root: &Node) -> Vec<Pinned> {
        if !is_megatron(root) {
            return Vec::new();
        }
        vec![Pinned {
            path: "trainer.accumulate_grad_batches",
            value: 1,
            reason: "NeMo's Megatron models accumulate by themselves (global_batch_size ÷ (micro_batch_size × data-parallel size)) and raise \"Gradient accumulation is done within training_step. trainer.accumulate_grad_batches must equal 1\" otherwise (megatron_gpt_model.py, _validate_trainer)",
        }]
    }

    /// The memory model does not split weights and activations over the
    /// model-parallel degrees, nor model FSDP, adapters or a Megatron model's kernels and optimizer.
    fn memory_unmodelled(&self, root: &Node) -> Option<super::Unmodelled> {
        for key in ["model.tensor_model_parallel_size", "model.pipeline_model_parallel_size", "model.context_parallel_size"] {
            if root.get_dotted(key).and_then(Node::as_f64).is_some_and(|d| d > 1.0) {
                return Some(super::Unmodelled {
                    path: key.to_owned(),
                    reason: "the model is split over tensor/pipeline/context-parallel GPUs, which trainlint's memory model does not read yet".to_owned(),
                });
            }
        }
        const KEYS: [(&str, &str); 2] = [
            ("model.fsdp", "FSDP shards parameters, gradients and optimizer states, which trainlint does not model yet"),
            ("model.peft.peft_scheme", "parameter-efficient fine-tuning trains only adapters, which trainlint does not model for NeMo yet"),
        ];
        if let Some(unmodelled) = super::first_set(root, &KEYS) {
            return Some(unmodelled);
        }
        // Even unsplit, a Megatron model's peak depends on what the memory model does not read
        // yet: its attention kernel (Transformer Engine's fused attention keeps no s² scores),
        // the distributed optimizer and O2 master weights. An estimate from the shape alone
        // prices eager attention and would report a false "does not fit".
        let model = root.get("model")?;
        MEGATRON_KEYS.iter().find(|k| model.get(k).is_some()).map(|key| super::Unmodelled {
            path: format!("model.{key}"),
            reason: "a Megatron model's attention kernel, distributed optimizer and O2 master weights set its peak memory, which trainlint's memory model does not read yet".to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Node {
        crate::load::yaml::parse(text).expect("valid YAML").root
    }

    fn detect(text: &str) -> String {
        let root = parse(text);
        let no_tree = |_: &std::path::Path| None;
        super::super::detect(&Evidence { root: &root, path: None, bound_paths: &[], hydra_primary: &no_tree }).0.name().to_owned()
    }

    #[test]
    fn evidence_needs_trainer_model_and_exp_manager_or_megatron_keys() {
        assert_eq!(detect("trainer:\n  devices: 1\nmodel:\n  train_ds:\n    batch_size: 32\nexp_manager:\n  name: x\n"), "nemo");
        assert_eq!(detect("trainer:\n  devices: 8\nmodel:\n  micro_batch_size: 4\n  global_batch_size: 8\n"), "nemo");
        // One Megatron-looking key and no exp_manager: a LightningCLI config, not NeMo.
        assert_eq!(detect("trainer:\n  devices: 8\n  max_epochs: 3\nmodel:\n  micro_batch_size: 4\n"), "lightning");
        assert_eq!(detect("trainer:\n  devices: 8\n  max_epochs: 3\nmodel:\n  lr: 0.1\n"), "lightning");
        assert_eq!(detect("model:\n  micro_batch_size: 4\n  global_batch_size: 8\n"), "unknown");
    }

    #[test]
    fn megatron_accumulation_is_derived_not_bound() {
        let megatron = parse("trainer:\n  accumulate_grad_batches: 1\nmodel:\n  global_batch_size: 8\n");
        assert!(Nemo.derived(&megatron).is_empty());
        let asr = parse("trainer:\n  accumulate_grad_batches: 4\nmodel:\n  train_ds:\n    batch_size: 32\n");
        let derived = Nemo.derived(&asr);
        assert_eq!((derived[0].role, derived[0].value.clone(), derived[0].path.as_str()), (Role::Accumulation, 4.into(), "trainer.accumulate_grad_batches"));
    }

    #[test]
    fn only_megatron_models_pin_accumulate_grad_batches() {
        let megatron = parse("trainer:\n  accumulate_grad_batches: 4\nmodel:\n  micro_batch_size: 2\n");
        assert_eq!(Nemo.pinned_values(&megatron).iter().map(|p| (p.path, p.value)).collect::<Vec<_>>(), vec![("trainer.accumulate_grad_batches", 1)]);
        let asr = parse("trainer:\n  accumulate_grad_batches: 4\nmodel:\n  train_ds:\n    batch_size: 32\n");
        assert!(Nemo.pinned_values(&asr).is_empty());
    }

    #[test]
    fn model_parallel_runs_are_not_estimated() {
        let split = parse("model:\n  tensor_model_parallel_size: 2\n");
        assert_eq!(Nemo.memory_unmodelled(&split).map(|u| u.path), Some("model.tensor_model_parallel_size".to_owned()));
        let unsplit = Nemo.memory_unmodelled(&parse("model:\n  tensor_model_parallel_size: 1\n")).expect("a Megatron model");
        assert!(unsplit.reason.contains("attention kernel"), "{}", unsplit.reason);
        assert_eq!(Nemo.memory_unmodelled(&parse("model:\n  train_ds:\n    batch_size: 32\n")), None, "an ASR model is estimated as usual");
    }
}
