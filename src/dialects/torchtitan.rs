//! PyTorch torchtitan's TOML training configs (`CONFIG_FILE=./torchtitan/models/llama3/
//! train_configs/llama3_8b.toml ./run_train.sh`, which runs `torchrun … -m torchtitan.train
//! --job.config_file …`): tables `[job]`, `[model]`, `[optimizer]`, `[training]`,
//! `[parallelism]`, `[activation_checkpoint]`, `[compile]`, … — one per `JobConfig` field.
//! torchtitan read TOML until its Python config registry replaced it (pytorch/torchtitan
//! 9810191b, "Config System Refactor: TOML to Python Dataclass Registry", #2386).
//!
//! Sources (pytorch/torchtitan, commit 238fa9953e4aec2a62582121564273d7cbb1e9f1, the last
//! before that refactor):
//!
//! - `torchtitan/config/manager.py`, `ConfigManager._maybe_load_toml`: the file named by
//!   `--job.config_file` is read with `tomllib.load` (TOML only); `_dict_to_dataclass` raises
//!   `ValueError("Invalid field names in …")` for a key that is not a field of its dataclass —
//!   of the class in use, which `[job] custom_config_module` may extend (`_merge_configs`:
//!   flux adds `[encoder]`), so only near misses of `JobConfig`'s own tables are reported.
//! - `torchtitan/config/job_config.py`, `JobConfig`: the tables; `Training.local_batch_size`
//!   (default 8; called `batch_size` before local/global were split), `Training.global_batch_size`
//!   (default -1: "defaults to `training.local_batch_size * data-parallel degree`"),
//!   `Training.seq_len` (2048), `Training.mixed_precision_param` (`"bfloat16"` | `"float32"`,
//!   default `"bfloat16"`, applied by `fully_shard`'s `MixedPrecisionPolicy` or by
//!   `torch.autocast` under DDP), `Training.dtype` (`"bfloat16"`: parameters, gradients and
//!   optimizer states all in bf16, no fp32 copy; default `"float32"`),
//!   `Training.enable_cpu_offload` (FSDP offloads parameters, gradients and optimizer states),
//!   `Parallelism.data_parallel_replicate_degree` (1), `data_parallel_shard_degree` (-1: "the
//!   leftover ranks will be used for sharding"), `tensor_parallel_degree`,
//!   `pipeline_parallel_degree`, `context_parallel_degree`, `expert_parallel_degree` (all 1),
//!   `ActivationCheckpoint.mode` (`selective` | `full` | `memory_budget` | `none`, default
//!   `selective`), `Optimizer.name` (`AdamW`), `Optimizer.lr`, `Model.name` (`llama3`),
//!   `Model.flavor` (`debugmodel`), `Model.converters` (`float8`, `mx`), `Compile.enable`.
//! - `torchtitan/distributed/parallel_dims.py`, `ParallelDims._validate`: every degree but
//!   `dp_shard` must be ≥ 1; `dp_shard` is -1 or ≥ 1, and -1 becomes `world_size // (dp_replicate
//!   * cp * tp * pp)`; then asserts `dp_replicate * dp_shard * cp * tp * pp == WORLD_SIZE`
//!   ("Invalid parallel dims"): a config with `dp_shard ≥ 1` states its world, and a launch of
//!   another size stops at start-up. Expert parallelism splits inside that world
//!   (`efsdp = fsdp * tp // (etp * ep)`), not a factor of it.
//! - `parallel_dims.py`, `build_mesh`: the `batch` mesh is `dp_replicate * dp_shard` (context
//!   parallel ranks share one batch); `fsdp` is `dp_shard * cp`, so FSDP shards over
//!   `dp_shard` (FSDP2 `fully_shard`, parameters, gradients and optimizer states sharded) —
//!   HSDP when `dp_replicate > 1` too.
//! - `torchtitan/train.py`, `Trainer.__init__`: `batch_degree` is the `batch` mesh's size;
//!   a `global_batch_size < 0` becomes `local_batch_size * batch_degree`; then asserts
//!   `global_batch_size % (local_batch_size * batch_degree) == 0` ("global batch size must be
//!   multiple of local batch size times data-parallel degree") and sets
//!   `gradient_accumulation_steps = global_batch_size // (local_batch_size * batch_degree)`.
//! - `torchtitan/models/llama3/__init__.py`, `llama3_args`: flavors `8B` (dim 4096, 32 layers,
//!   32 heads, 8 KV heads, `ffn_dim_multiplier` 1.3, `multiple_of` 1024), `70B` (8192, 80,
//!   64, 8, 1.3, 4096) and `405B` (16384, 126, 128, 8, 1.2, 4096), with `rope_theta` 500000 and
//!   `TransformerModelArgs.vocab_size` 128256 (`models/llama3/model/args.py`): Llama 3.1 8B,
//!   70B and 405B's shapes (`8B_flex`, `8B_varlen` change only the attention kernel).

use super::{DerivedRoles, Dialect, Doc, Evidence, Framework, KnownKeys, Unmodelled, WorldSize};
use crate::load::{Node, Value};
use crate::schema::{Manifest, Role};

pub(crate) const TORCHTITAN: Dialect = Dialect(&Torchtitan);

pub(crate) struct Torchtitan;

/// Role → key path. `training.batch_size` is the older name of `local_batch_size`.
const BINDINGS: [(Role, &str); 9] = [
    (Role::MicroBatch, "training.local_batch_size"),
    (Role::MicroBatch, "training.batch_size"),
    (Role::SequenceLength, "training.seq_len"),
    (Role::TensorParallel, "parallelism.tensor_parallel_degree"),
    (Role::PipelineParallel, "parallelism.pipeline_parallel_degree"),
    (Role::ContextParallel, "parallelism.context_parallel_degree"),
    (Role::Optimizer, "optimizer.name"),
    (Role::LearningRate, "optimizer.lr"),
    (Role::Compile, "compile.enable"),
];

/// `JobConfig`'s fields (`job_config.py`): the tables `_dict_to_dataclass` accepts.
const JOB_CONFIG_KEYS: [&str; 18] = [
    "job",
    "profiling",
    "metrics",
    "model",
    "optimizer",
    "lr_scheduler",
    "training",
    "parallelism",
    "checkpoint",
    "activation_checkpoint",
    "compile",
    "quantize",
    "comm",
    "memory_estimation",
    "fault_tolerance",
    "experimental",
    "validation",
    "debug",
];

/// The model catalog's entry for a `[model] name`/`flavor` whose `*_args` match it (module doc).
fn catalog_model(name: &str, flavor: &str) -> Option<&'static str> {
    match (name, flavor) {
        ("llama3", "8B" | "8B_flex" | "8B_varlen") => Some("meta-llama/Llama-3.1-8B"),
        ("llama3", "70B") => Some("meta-llama/Llama-3.1-70B"),
        ("llama3", "405B") => Some("meta-llama/Llama-3.1-405B"),
        _ => None,
    }
}

/// A parallel degree as written, or torchtitan's default when the key is absent; `None` for a
/// value that is not a whole number.
fn degree(root: &Node, key: &str, default: i64) -> Option<i64> {
    match root.get_dotted(&format!("parallelism.{key}")) {
        None => Some(default),
        Some(node) => node.as_i64(),
    }
}

impl Framework for Torchtitan {
    fn name(&self) -> &'static str {
        "torchtitan"
    }

    fn title(&self) -> &'static str {
        "torchtitan"
    }

    fn doc(&self) -> Doc {
        Doc {
            evidence: "a TOML file (only TOML: torchtitan reads `--job.config_file` with `tomllib`) with a `[training]` table holding `local_batch_size` (or the older `batch_size`), beside a `[parallelism]` or `[model]` table",
            roles: "`training.local_batch_size`/`batch_size`, `training.global_batch_size` (when positive), `training.seq_len`, `parallelism.tensor_parallel_degree`/`pipeline_parallel_degree`/`context_parallel_degree`, `parallelism.data_parallel_shard_degree` (≥ 1: the world; FSDP), `training.mixed_precision_param`/`dtype` (precision), `training.enable_cpu_offload`, `activation_checkpoint.mode`, `optimizer.name`/`lr`, `compile.enable`, `model.name` + `model.flavor` (llama3 8B/70B/405B → Llama 3.1)",
            semantics: "world = dp_replicate × dp_shard × cp × tp × pp (`ParallelDims`; dp_shard -1 takes what the launch leaves, otherwise the config states the world and torchtitan asserts it equals WORLD_SIZE: BAT009); data-parallel degree = dp_replicate × dp_shard; global batch -1 = local × dp, else accumulation = global ÷ (local × dp), asserted whole (`train.py`); FSDP over dp_shard; read-only where a fix would insert a key (a value already written is replaced byte-exactly)",
        }
    }

    fn reads_toml(&self) -> bool {
        true
    }

    fn evidence(&self, cx: &Evidence) -> Option<String> {
        let training = cx.root.get("training").filter(|t| matches!(t.value, Value::Map(_)))?;
        let batch = ["local_batch_size", "batch_size"].into_iter().find(|k| training.get(k).is_some())?;
        let tables: Vec<String> =
            ["parallelism", "model"].iter().filter(|k| cx.root.get(k).is_some_and(|t| matches!(t.value, Value::Map(_)))).map(|k| format!("`[{k}]`")).collect();
        (!tables.is_empty()).then(|| format!("torchtitan's `[training] {batch}` with {}", tables.join(" and ")))
    }

    fn bindings(&self, _manifest: &Manifest) -> Vec<(Role, String)> {
        super::owned(&BINDINGS)
    }

    fn derived(&self, root: &Node) -> Vec<super::Derived> {
        let mut out = DerivedRoles::default();
        // `global_batch_size` -1 (or absent) is no global batch: train.py makes it local × dp.
        if let Some(global) = root.get_dotted("training.global_batch_size").filter(|n| n.as_i64().is_none_or(|g| g > 0)) {
            out.push(Role::GlobalBatch, global.to_json(), "training.global_batch_size");
        }
        // The world, where the config states it: dp_shard ≥ 1 (`ParallelDims._validate`).
        let shard = degree(root, "data_parallel_shard_degree", -1);
        let others: Option<Vec<i64>> =
            ["data_parallel_replicate_degree", "context_parallel_degree", "tensor_parallel_degree", "pipeline_parallel_degree"].iter().map(|k| degree(root, k, 1)).collect();
        if let (Some(shard), Some(others)) = (shard, others)
            && shard >= 1
            && others.iter().all(|d| *d >= 1)
            && let Some(world) = others.iter().try_fold(shard as u64, |p, d| p.checked_mul(*d as u64))
        {
            out.push(Role::Devices, world.into(), "parallelism.data_parallel_shard_degree");
        }
        // FSDP2 over dp_shard (`build_mesh`: `fsdp = dp_shard * cp`): -1 (the default) shards
        // over whatever the launch leaves.
        if let Some(shard) = shard
            && (shard == -1 || shard > 1)
        {
            match root.get_dotted("parallelism.data_parallel_shard_degree") {
                Some(_) => out.push(Role::Fsdp, true.into(), "parallelism.data_parallel_shard_degree"),
                None if root.get("parallelism").is_some() => {
                    out.push_default(Role::Fsdp, true.into(), "parallelism.data_parallel_shard_degree", "parallelism")
                }
                None => out.push_default(Role::Fsdp, true.into(), "parallelism.data_parallel_shard_degree", "training"),
            }
        }
        // Precision: `dtype = "bfloat16"` trains in bf16 throughout; otherwise
        // `mixed_precision_param` (default bfloat16) is the compute dtype over fp32 parameters.
        if root.get_dotted("training.dtype").and_then(Node::as_str) == Some("bfloat16") {
            out.push(Role::Precision, "bf16-true".into(), "training.dtype");
        } else {
            match root.get_dotted("training.mixed_precision_param").map(|n| n.as_str()) {
                Some(Some("bfloat16")) => out.push(Role::Precision, "bf16-mixed".into(), "training.mixed_precision_param"),
                Some(Some("float32")) => out.push(Role::Precision, "32-true".into(), "training.mixed_precision_param"),
                Some(_) => {}
                None => out.push_default(Role::Precision, "bf16-mixed".into(), "training.mixed_precision_param", "training"),
            }
        }
        if root.get_dotted("training.enable_cpu_offload").is_some_and(|n| n.value == Value::Bool(true)) {
            out.push(Role::OffloadParams, true.into(), "training.enable_cpu_offload");
            out.push(Role::OffloadOptimizer, true.into(), "training.enable_cpu_offload");
        }
        match root.get_dotted("activation_checkpoint.mode").map(|n| n.as_str()) {
            Some(Some(mode @ ("selective" | "full" | "none"))) => out.push(Role::ActivationCheckpointing, mode.into(), "activation_checkpoint.mode"),
            Some(_) => {}
            None => out.push_default(Role::ActivationCheckpointing, "selective".into(), "activation_checkpoint.mode", "training"),
        }
        let name = root.get_dotted("model.name").and_then(Node::as_str).unwrap_or("llama3");
        if let Some(flavor) = root.get_dotted("model.flavor").and_then(Node::as_str)
            && let Some(id) = catalog_model(name, flavor)
        {
            out.push(Role::Model, id.into(), "model.flavor");
        }
        out.0
    }

    fn world_size(&self) -> WorldSize {
        WorldSize::Devices
    }

    fn refuses_other_world(&self) -> Option<&'static str> {
        Some("`ParallelDims._validate` (torchtitan/distributed/parallel_dims.py): \"Invalid parallel dims: dp_replicate(…) * dp_shard(…) * cp(…) * tp(…) * pp(…) != WORLD_SIZE(…)\"")
    }

    fn batch(&self) -> super::BatchSemantics {
        super::BatchSemantics {
            indivisible: Some(
                "torchtitan asserts `global_batch_size % (local_batch_size * batch_degree) == 0` (torchtitan/train.py, `Trainer.__init__`: \"global batch size must be multiple of local batch size times data-parallel degree\") and does not start",
            ),
            accumulation_from_global: true,
            ..Default::default()
        }
    }

    /// `_dict_to_dataclass` raises on a table that is not a `JobConfig` field, but of the class
    /// in use: `custom_config_module` merges a model's own tables (flux's `[encoder]`).
    fn known_keys(&self, _root: &Node) -> Option<KnownKeys> {
        Some(KnownKeys { path: String::new(), keys: &JOB_CONFIG_KEYS, strict: false, reported_elsewhere: &[] })
    }

    fn sequence_length_keys(&self) -> &'static [&'static str] {
        &["seq_len"]
    }

    /// What trainlint's memory model does not price: float8/MX converters, mixture-of-experts
    /// parallelism, and a model whose flavor the catalog has no entry for is left to the estimate.
    fn memory_unmodelled(&self, root: &Node) -> Option<Unmodelled> {
        if let Some(found) = super::first_set(root, &[("model.converters", "float8/MX converters (`[model] converters`) change the weights' and activations' dtypes, which trainlint's memory model does not read yet")]) {
            return Some(found);
        }
        let ep = root.get_dotted("parallelism.expert_parallel_degree").and_then(Node::as_i64).unwrap_or(1);
        (ep > 1).then(|| Unmodelled {
            path: "parallelism.expert_parallel_degree".to_owned(),
            reason: "expert parallelism splits the experts of a mixture-of-experts model over ranks, which trainlint's memory model does not read yet".to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn parse(text: &str) -> Node {
        crate::load::toml::parse(text).expect("valid TOML")
    }

    fn detected(text: &str, path: &str) -> &'static str {
        let root = match crate::load::Format::from_path(Path::new(path)) {
            Some(crate::load::Format::Toml) => parse(text),
            _ => super::super::test_support::parse(text),
        };
        let no_tree = |_: &Path| None;
        super::super::detect(&Evidence { root: &root, path: Some(Path::new(path)), bound_paths: &[], hydra_primary: &no_tree }).0.name()
    }

    fn roles(text: &str) -> Vec<(Role, serde_json::Value, String)> {
        Torchtitan.derived(&parse(text)).into_iter().map(|d| (d.role, d.value, d.path)).collect()
    }

    fn role(text: &str, role: Role) -> Option<serde_json::Value> {
        roles(text).into_iter().find(|(r, _, _)| *r == role).map(|(_, v, _)| v)
    }

    #[test]
    fn recognised_only_in_toml_by_its_training_and_parallelism_tables() {
        let config = "[training]\nlocal_batch_size = 8\n[parallelism]\ndata_parallel_shard_degree = -1\n";
        assert_eq!(detected(config, "train_configs/llama3_8b.toml"), "torchtitan");
        assert_eq!(detected("[model]\nname = \"llama3\"\n[training]\nbatch_size = 8\n", "old.toml"), "torchtitan");
        assert_eq!(detected("[training]\nlocal_batch_size = 8\n", "a.toml"), "unknown", "no [parallelism] nor [model]");
        assert_eq!(detected("[training]\nsteps = 8\n[parallelism]\n", "a.toml"), "unknown", "no batch size");
        // The same keys in YAML are not torchtitan's (it reads TOML only), and a TOML file
        // never reads as a YAML/JSON framework.
        assert_ne!(detected("training:\n  local_batch_size: 8\nparallelism:\n  data_parallel_shard_degree: -1\n", "a.yaml"), "torchtitan");
        assert_eq!(detected("train_micro_batch_size_per_gpu = 4\ngradient_accumulation_steps = 2\n", "ds.toml"), "unknown");
        assert_eq!(detected("[project]\nname = \"x\"\n[tool.ruff]\nline-length = 88\n", "pyproject.toml"), "unknown");
    }

    #[test]
    fn world_is_stated_only_by_a_positive_shard_degree() {
        // -1 (the default): the launch decides; no devices role.
        assert_eq!(role("[training]\nlocal_batch_size = 1\n[parallelism]\ndata_parallel_shard_degree = -1\ntensor_parallel_degree = 2\n", Role::Devices), None);
        assert_eq!(role("[training]\nlocal_batch_size = 1\n[parallelism]\n", Role::Devices), None);
        // dp_replicate × dp_shard × cp × tp × pp.
        let stated = "[training]\nlocal_batch_size = 1\n[parallelism]\ndata_parallel_replicate_degree = 2\ndata_parallel_shard_degree = 4\ntensor_parallel_degree = 2\npipeline_parallel_degree = 2\ncontext_parallel_degree = 3\n";
        assert_eq!(role(stated, Role::Devices), Some(96.into()));
        assert_eq!(role("[training]\nlocal_batch_size = 1\n[parallelism]\ndata_parallel_shard_degree = 0\n", Role::Devices), None);
    }

    #[test]
    fn global_batch_only_when_positive_and_fsdp_over_the_shard_degree() {
        assert_eq!(role("[training]\nlocal_batch_size = 1\nglobal_batch_size = -1\n[model]\n", Role::GlobalBatch), None);
        assert_eq!(role("[training]\nlocal_batch_size = 1\nglobal_batch_size = 64\n[model]\n", Role::GlobalBatch), Some(64.into()));
        assert_eq!(role("[training]\nlocal_batch_size = 1\n[parallelism]\ndata_parallel_shard_degree = 1\n", Role::Fsdp), None);
        assert_eq!(role("[training]\nlocal_batch_size = 1\n[parallelism]\ndata_parallel_shard_degree = 8\n", Role::Fsdp), Some(true.into()));
        assert_eq!(role("[training]\nlocal_batch_size = 1\n[parallelism]\n", Role::Fsdp), Some(true.into()));
    }

    #[test]
    fn precision_checkpointing_and_model() {
        let base = "[training]\nlocal_batch_size = 1\n";
        assert_eq!(role(base, Role::Precision), Some("bf16-mixed".into()), "mixed_precision_param defaults to bfloat16");
        assert_eq!(role(&format!("{base}mixed_precision_param = \"float32\"\n"), Role::Precision), Some("32-true".into()));
        assert_eq!(role(&format!("{base}dtype = \"bfloat16\"\n"), Role::Precision), Some("bf16-true".into()));
        assert_eq!(role(base, Role::ActivationCheckpointing), Some("selective".into()));
        assert_eq!(role(&format!("{base}[activation_checkpoint]\nmode = \"full\"\n"), Role::ActivationCheckpointing), Some("full".into()));
        assert_eq!(role(&format!("{base}[model]\nname = \"llama3\"\nflavor = \"70B\"\n"), Role::Model), Some("meta-llama/Llama-3.1-70B".into()));
        assert_eq!(role(&format!("{base}[model]\nname = \"llama3\"\nflavor = \"debugmodel\"\n"), Role::Model), None);
        assert_eq!(role(&format!("{base}[model]\nname = \"qwen3\"\nflavor = \"8B\"\n"), Role::Model), None);
    }
}
