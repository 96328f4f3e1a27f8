//! Stanford CRFM Levanter's YAML (`python -m levanter.main.train_lm --config_path
//! config/llama2_7b.yaml`): one file per run, parsed by draccus into the main program's dataclass
//! (`TrainLmConfig`, `LoraLmConfig`, `SFTConfig`, …), each holding `trainer:` (`TrainerConfig`),
//! `model:` (`type: llama|gpt2|mistral|…`, `seq_len`, `hidden_dim`, `num_layers`, …), `data:` and
//! `optimizer:`. Levanter is JAX: the run is every accelerator JAX sees, TPU chips or GPUs.
//!
//! Sources (stanford-crfm/levanter, commit 9263f81e8b453241332c2c0b2d2001bfb2d2241c):
//!
//! - `src/levanter/trainer.py`, `TrainerConfig`: `train_batch_size: int | IntSchedule = 512` (the
//!   global batch, or a schedule: a list of `{start, value}` steps), `per_device_parallelism: int =
//!   -1` ("how many examples to process in parallel on each device. -1 (default) means
//!   train_batch_size/num_devices"), `per_device_eval_parallelism = -1`, `model_axis_size = 1`,
//!   `replica_ici_axis_size = 1`, `replica_dcn_axis_size = 1`, `fsdp_axis = "embed"`,
//!   `tensor_parallel_axes = None`, `mp: jmp.Policy = jmp.get_policy("f32")`, `num_train_steps =
//!   400_000`, and the other fields of `TRAINER_KEYS` below.
//! - `trainer.py`, `TrainerConfig.data_axis_size`: `data_dcn × data_ici × replica_dcn ×
//!   replica_ici`, with `data_ici_axis_size = devices_per_slice // (replica_ici × model_axis_size)`
//!   and `data_dcn_axis_size = num_slices // replica_dcn`: the data-parallel devices are
//!   `jax.device_count() ÷ model_axis_size`, whatever the replica axes (they split the data axis
//!   between pure replication and FSDP, `create_fsdp_mesh`, not the batch).
//! - `trainer.py`, `TrainerConfig._validate_and_set_defaults`: raises `ValueError` when
//!   `jax.device_count() % model_axis_size != 0`; `per_device_parallelism == -1` with an int
//!   `train_batch_size` becomes `train_batch_size // data_axis_size`; `train_batch_size == -1`
//!   becomes `per_device_parallelism × data_axis_size`; then raises `ValueError("train_batch_size
//!   (…) must be divisible by per_device_parallelism * data_axis_size (…)")` (per phase for a
//!   schedule). `TrainerConfig.microbatch_size` is `per_device_parallelism × data_axis_size`, and
//!   `src/levanter/grad_accum.py`, `microbatched`: `num_micro_steps = batch_size //
//!   microbatch_size` (asserted exact): accumulation = train_batch_size ÷ (per_device_parallelism ×
//!   data-parallel devices), 1 with `-1`.
//! - jmp (google-deepmind/jmp, commit 14d490e219a0064034ce4690d974c80d6f1095d6),
//!   `jmp/_src/policy.py`, `get_policy`: `p`/`params`, `c`/`compute`, `o`/`output` (params default
//!   f32, compute follows params), or one dtype for all three (`f32`); dtype names `bf16`/`bfloat16`,
//!   `f16`/`float16`, `full`/`f32`/`float32`, and `half` (bf16 on TPU, f16 elsewhere).
//! - draccus (Levanter's `draccus>=0.11.5`; dlwh/draccus, commit
//!   1152aca544e791fd850a69ea5d14e71922a82a08): `draccus/parsers/decoding.py`,
//!   `decode_dataclass`, raises "The fields … do not belong to the class" for a key that is not a
//!   field; `draccus/parsers/yaml_loader.py` reads the file with PyYAML's `SafeLoader` (YAML 1.1)
//!   plus `!include <file>` (a section read from another file, relative to this one).
//! - `src/levanter/main/train_lm.py`, `TrainLmConfig`: `model: LmConfig` (`seq_len`), `optimizer`
//!   (`learning_rate`), `initialize_from_hf`; `src/levanter/main/sft.py`, `SFTConfig`:
//!   `max_seq_len`. The programs that evaluate, sample or export (`eval_harness.py`,
//!   `main/eval_lm.py`, `main/sample_lm.py`, `main/export_lm_to_hf.py`) take `checkpoint_path` or
//!   `hf_checkpoint`, which no training program has.
//!
//! Not read: a `!include`d section (`data: !include data/openwebtext_source.yaml` is the string
//! it names; no batch or parallel key is included anywhere in Levanter's own configs), a
//! `train_batch_size` schedule (its phases are not checked), the device mesh's replica axes and
//! `axis_resources` (they do not change the batch), and the model's shape (the memory is not
//! estimated).

use super::{DerivedRoles, Dialect, Doc, Evidence, Framework, KnownKeys, Unmodelled};
use crate::load::{Node, Value};
use crate::schema::{Manifest, Role};

pub(crate) const LEVANTER: Dialect = Dialect(&Levanter);

pub struct Levanter;

/// Role → key path; the batch, the model axis and the precision are read in `derived`.
const BINDINGS: [(Role, &str); 3] = [(Role::SequenceLength, "model.seq_len"), (Role::SequenceLength, "max_seq_len"), (Role::LearningRate, "optimizer.learning_rate")];

/// `TrainerConfig`'s fields (`trainer.py`, commit 9263f81e): the keys draccus accepts under `trainer:`.
const TRAINER_KEYS: [&str; 43] = [
    "seed",
    "mp",
    "quantization",
    "model_averaging",
    "wandb",
    "log_dir",
    "id",
    "tracker",
    "watch",
    "profiler",
    "profiler_start_step",
    "profiler_num_steps",
    "profiler_perfetto_link",
    "log_jaxprs",
    "log_xla_hlo",
    "crash_on_nan",
    "crash_on_inf",
    "batch_axis",
    "fsdp_axis",
    "tensor_parallel_axes",
    "axis_resources",
    "parameter_axis_resources",
    "replica_ici_axis_size",
    "model_axis_size",
    "replica_dcn_axis_size",
    "train_batch_size",
    "per_device_parallelism",
    "per_device_eval_parallelism",
    "allow_nondivisible_batch_size",
    "num_train_steps",
    "steps_per_eval",
    "max_eval_batches",
    "checkpointer",
    "load_checkpoint",
    "load_checkpoint_path",
    "initialize_from",
    "allow_partial_checkpoint",
    "jax_config",
    "jax_compilation_cache_dir",
    "distributed",
    "ray",
    "require_accelerator",
    "shutdown_at_exit",
];

/// `TrainerConfig` fields that name Levanter's device mesh, batch split or jmp policy: one of them
/// must be in the `trainer:` mapping (a `train_batch_size` and a `tracker` alone are too plain).
const MESH_KEYS: [&str; 11] = [
    "per_device_parallelism",
    "per_device_eval_parallelism",
    "mp",
    "model_axis_size",
    "fsdp_axis",
    "tensor_parallel_axes",
    "batch_axis",
    "replica_ici_axis_size",
    "replica_dcn_axis_size",
    "axis_resources",
    "parameter_axis_resources",
];

/// `TrainerConfig`'s default `train_batch_size` (`trainer.py`).
const DEFAULT_TRAIN_BATCH_SIZE: i64 = 512;

/// Levanter's `LmConfig` names of a model's shape (`hidden_dim`, not Hugging Face's `hidden_size`).
const MODEL_DIMENSIONS: [&str; 4] = ["seq_len", "hidden_dim", "num_layers", "num_heads"];

/// The keys of Levanter's URL / mixture datasets (`src/levanter/data/text.py`).
const DATA_KEYS: [&str; 4] = ["train_urls", "validation_urls", "train_weights", "cache_dir"];

/// The `trainer:` mapping, when it holds Levanter's `TrainerConfig` and no Lightning Trainer argument.
fn trainer(root: &Node) -> Option<&Node> {
    let trainer = root.get("trainer").filter(|t| matches!(t.value, Value::Map(_)))?;
    let entries = trainer.entries()?;
    // A Lightning Trainer argument Levanter does not have (`devices`, `max_epochs`, …): draccus
    // would refuse it, so the mapping is not Levanter's (`profiler` is both).
    let lightning = entries.iter().any(|e| e.key != "profiler" && super::lightning::TRAINER_KEYS.contains(&e.key.as_str()));
    let mesh = entries.iter().any(|e| MESH_KEYS.contains(&e.key.as_str()));
    let ours = entries.iter().filter(|e| TRAINER_KEYS.contains(&e.key.as_str()) && e.key != "profiler" && e.key != "seed").count();
    (!lightning && mesh && ours >= 2).then_some(trainer)
}

fn evidence(root: &Node) -> Option<String> {
    if let Some(trainer) = trainer(root) {
        let keys: Vec<String> = ["train_batch_size", "per_device_parallelism", "mp", "model_axis_size", "tensor_parallel_axes", "fsdp_axis", "tracker", "num_train_steps"]
            .into_iter()
            .filter(|k| trainer.get(k).is_some())
            .take(3)
            .map(|k| format!("`{k}`"))
            .collect();
        return Some(format!("Levanter's `trainer:` (`TrainerConfig`) with {}", keys.join(", ")));
    }
    // No `trainer:`: a Levanter model (`type` with its own dimension names) beside a Levanter dataset.
    if root.get("defaults").is_some() {
        return None;
    }
    let model = root.get("model").filter(|m| m.get("type").and_then(Node::as_str).is_some())?;
    let dimensions = MODEL_DIMENSIONS.iter().filter(|k| model.get(k).is_some()).count();
    let data = root.get("data")?;
    let dataset = DATA_KEYS.iter().filter(|k| data.get(k).is_some()).count();
    (dimensions >= 2 && dataset >= 2).then(|| "Levanter's `model: {type, seq_len, hidden_dim, …}` beside a Levanter dataset (`train_urls`, `cache_dir`, …)".to_owned())
}

/// A jmp policy string (`get_policy`) as trainlint's precision: parameters and compute dtypes.
fn precision(policy: &str) -> Option<&'static str> {
    fn dtype(name: &str) -> Option<&'static str> {
        match name.trim() {
            "bf16" | "bfloat16" => Some("bf16"),
            "f16" | "float16" => Some("f16"),
            "full" | "f32" | "float32" => Some("f32"),
            // `half` is bf16 on a TPU and f16 elsewhere (`half_dtype`); f64 is no training precision here.
            _ => None,
        }
    }
    let (params, compute) = if policy.contains('=') {
        let (mut params, mut compute) = ("f32", None);
        for part in policy.split(',') {
            let (key, value) = part.split_once('=')?;
            match key.trim() {
                "p" | "params" => params = dtype(value)?,
                "c" | "compute" => compute = Some(dtype(value)?),
                "o" | "output" => {
                    dtype(value)?;
                }
                _ => return None,
            }
        }
        (params, compute.unwrap_or(params))
    } else {
        let all = dtype(policy)?;
        (all, all)
    };
    Some(match (params, compute) {
        ("f32", "f32") => "32-true",
        ("f32", "bf16") => "bf16-mixed",
        ("f32", "f16") => "16-mixed",
        ("bf16", "bf16") => "bf16-true",
        ("f16", "f16") => "16-true",
        _ => return None,
    })
}

impl Framework for Levanter {
    fn name(&self) -> &'static str {
        "levanter"
    }

    fn title(&self) -> &'static str {
        "Levanter"
    }

    fn doc(&self) -> Doc {
        Doc {
            evidence: "a `trainer:` mapping of Levanter `TrainerConfig` fields with one of its mesh, batch-split or precision keys (`per_device_parallelism`, `mp`, `model_axis_size`, `fsdp_axis`, `tensor_parallel_axes`, …) and no Lightning Trainer argument; or `model: {type, seq_len, hidden_dim, …}` beside a Levanter dataset (`train_urls`, `cache_dir`, `train_weights`)",
            roles: "`trainer.train_batch_size` (global; 512 when absent; `-1` and a schedule list are no global batch), `trainer.per_device_parallelism` (the per-device micro batch; `-1`: none), `trainer.model_axis_size` (tensor parallel), `trainer.mp` (a jmp policy: `p=f32,c=bfloat16` is bf16-mixed), `model.seq_len`/`max_seq_len`, `optimizer.learning_rate`",
            semantics: "devices are the launch's (`jax.device_count()`); data-parallel devices = devices ÷ `model_axis_size` (Levanter raises when it does not divide: PAR001); accumulation = train_batch_size ÷ (per_device_parallelism × data-parallel devices), raised on when not whole (`_validate_and_set_defaults`: BAT003); `per_device_parallelism: -1` is train_batch_size ÷ data-parallel devices with no accumulation; a near miss of a `TrainerConfig` field is reported (draccus raises on unknown keys); a `!include`d section and a batch schedule are not read; memory not estimated (JAX/XLA sharding over the device mesh)",
        }
    }

    fn evidence(&self, cx: &Evidence) -> Option<String> {
        evidence(cx.root)
    }

    fn bindings(&self, _manifest: &Manifest) -> Vec<(Role, String)> {
        super::owned(&BINDINGS)
    }

    fn derived(&self, root: &Node) -> Vec<super::Derived> {
        let mut out = DerivedRoles::default();
        let Some(trainer) = root.get("trainer").filter(|t| matches!(t.value, Value::Map(_))) else { return out.0 };
        // The global batch: an int; `-1` is per_device_parallelism × data axis, a schedule is not read.
        match trainer.get("train_batch_size") {
            Some(node) if node.as_i64().is_some_and(|b| b != -1) => out.push(Role::GlobalBatch, node.to_json(), "trainer.train_batch_size"),
            Some(_) => {}
            None if self.not_training(root).is_none() => {
                out.push_default(Role::GlobalBatch, DEFAULT_TRAIN_BATCH_SIZE.into(), "trainer.train_batch_size", "trainer");
            }
            None => {}
        }
        // The per-device micro batch; a negative one (`-1`, the default) is none: no microbatching
        // (`TrainerConfig.microbatch_size`).
        if let Some(node) = trainer.get("per_device_parallelism").filter(|n| n.as_i64().is_none_or(|p| p >= 0)) {
            out.push(Role::MicroBatch, node.to_json(), "trainer.per_device_parallelism");
        }
        // The model axis takes its devices out of the data axis, as a tensor-parallel degree does.
        if let Some(node) = trainer.get("model_axis_size") {
            out.push(Role::TensorParallel, node.to_json(), "trainer.model_axis_size");
        }
        if let Some(level) = trainer.get("mp").and_then(Node::as_str).and_then(precision) {
            out.push(Role::Precision, level.into(), "trainer.mp");
        }
        out.0
    }

    fn batch(&self) -> super::BatchSemantics {
        super::BatchSemantics {
            indivisible: Some(
                "Levanter raises `ValueError(\"train_batch_size (…) must be divisible by per_device_parallelism * data_axis_size (…)\")` (src/levanter/trainer.py, `TrainerConfig._validate_and_set_defaults`; with `per_device_parallelism: -1` and fewer sequences than data-parallel devices, `train_batch_size // data_axis_size` is 0 and the same check divides by zero) and does not start",
            ),
            accumulation_from_global: true,
            ..Default::default()
        }
    }

    /// draccus raises on a key that is no field (`decode_dataclass`), but `TrainerConfig` changes
    /// between Levanter releases: only near misses of its fields are reported. The top level is
    /// each program's own dataclass (and projects built on Levanter add their own): not checked.
    fn known_keys(&self, root: &Node) -> Option<KnownKeys> {
        root.get("trainer")?;
        Some(KnownKeys { path: "trainer".to_owned(), keys: &TRAINER_KEYS, strict: false, reported_elsewhere: &[] })
    }

    /// draccus reads the file with PyYAML's `SafeLoader` (`yaml_loader.py`).
    fn pyyaml(&self) -> bool {
        true
    }

    fn sequence_length_keys(&self) -> &'static [&'static str] {
        &["seq_len", "max_seq_len"]
    }

    /// Evaluation, sampling and export programs take a checkpoint to read, which no training
    /// program does (module doc).
    fn not_training(&self, root: &Node) -> Option<String> {
        let key = ["checkpoint_path", "hf_checkpoint", "engine"].into_iter().find(|k| root.get(k).is_some())?;
        Some(format!("`{key}` is an argument of Levanter's evaluation, sampling and export programs (eval_harness.py, main/eval_lm.py, main/sample_lm.py, main/export_lm_to_hf.py), not of a training one"))
    }

    /// Levanter is JAX: XLA shards parameters, optimizer states and activations over the device
    /// mesh (FSDP over the data axis, the model axis for tensor parallelism), on TPUs or GPUs.
    /// trainlint's memory model prices a PyTorch run on a GPU: it says nothing here.
    fn memory_unmodelled(&self, root: &Node) -> Option<Unmodelled> {
        let path = ["trainer", "model"].into_iter().find(|k| root.get(k).is_some())?;
        Some(Unmodelled {
            path: path.to_owned(),
            reason: "Levanter runs on JAX/XLA (TPUs and GPUs) and shards parameters, optimizer states and activations over its device mesh (FSDP over the data axis, `model_axis_size` for tensor parallelism) under its own remat policy, which trainlint's memory model does not read".to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use super::super::test_support::{detected, parse};

    fn roles(text: &str) -> Vec<(Role, serde_json::Value, String)> {
        Levanter.derived(&parse(text)).into_iter().map(|d| (d.role, d.value, d.path)).collect()
    }

    fn role(text: &str, role: Role) -> Option<serde_json::Value> {
        roles(text).into_iter().find(|(r, _, _)| *r == role).map(|(_, v, _)| v)
    }

    #[test]
    fn recognised_by_its_trainer_config() {
        assert_eq!(detected("trainer:\n  train_batch_size: 256\n  per_device_parallelism: -1\n"), "levanter");
        assert_eq!(detected("trainer:\n  mp: p=f32,c=bfloat16\n  tracker:\n    type: wandb\n"), "levanter");
        assert_eq!(detected("model:\n  type: gpt2\ntrainer:\n  mp: f32\n  num_train_steps: 100\n"), "levanter");
        // One key, or plain keys without a mesh / batch-split / precision key, is not enough.
        assert_eq!(detected("trainer:\n  per_device_parallelism: 4\n"), "unknown");
        assert_eq!(detected("trainer:\n  train_batch_size: 8\n  num_train_steps: 100\n  tracker: wandb\n"), "unknown");
        // The model and dataset route, without a trainer.
        let model = "model:\n  type: llama\n  seq_len: 1024\n  hidden_dim: 768\ndata:\n  train_urls: [a]\n  cache_dir: c\n";
        assert_eq!(detected(model), "levanter");
        assert_ne!(detected(&format!("defaults:\n  - _self_\n{model}")), "levanter");
        assert_ne!(detected("model:\n  type: llama\n  seq_len: 1024\n  hidden_dim: 768\ndata:\n  batch_size: 4\n"), "levanter");
    }

    #[test]
    fn lightning_trainers_stay_lightning() {
        // Lightning Trainer arguments beside Levanter's keys: draccus would refuse `devices`.
        assert_eq!(detected("trainer:\n  devices: 2\n  max_epochs: 3\n  mp: f32\n  train_batch_size: 8\n"), "lightning");
        assert_eq!(detected("trainer:\n  accelerator: gpu\n  profiler: simple\nmodel:\n  lr: 0.1\n"), "lightning");
    }

    #[test]
    fn batch_roles_follow_trainer_config() {
        let base = "trainer:\n  mp: p=f32,c=bfloat16\n";
        assert_eq!(role(&format!("{base}  train_batch_size: 256\n"), Role::GlobalBatch), Some(256.into()));
        assert_eq!(role(&format!("{base}  train_batch_size: -1\n  per_device_parallelism: 4\n"), Role::GlobalBatch), None);
        assert_eq!(role(&format!("{base}  train_batch_size: [{{start: 0, value: 64}}]\n"), Role::GlobalBatch), None, "a schedule");
        assert_eq!(role(base, Role::GlobalBatch), Some(512.into()), "TrainerConfig's default");
        assert_eq!(role(&format!("checkpoint_path: c\n{base}"), Role::GlobalBatch), None, "an evaluation config");
        assert_eq!(role(&format!("{base}  per_device_parallelism: -1\n"), Role::MicroBatch), None);
        assert_eq!(role(&format!("{base}  per_device_parallelism: 4\n"), Role::MicroBatch), Some(4.into()));
        assert_eq!(role(&format!("{base}  model_axis_size: 4\n"), Role::TensorParallel), Some(4.into()));
    }

    #[test]
    fn jmp_policies_as_precision() {
        for (policy, expected) in [
            ("p=f32,c=bfloat16", Some("bf16-mixed")),
            ("compute=bfloat16,params=float32,output=bfloat16", Some("bf16-mixed")),
            ("c=bf16", Some("bf16-mixed")),
            ("f32", Some("32-true")),
            ("p=bfloat16,c=bfloat16", Some("bf16-true")),
            ("p=f16", Some("16-true")),
            ("c=f16", Some("16-mixed")),
            ("half", None),
            ("x=f32", None),
            ("p=f32,c=fp8", None),
        ] {
            assert_eq!(precision(policy), expected, "{policy}");
        }
    }
}
