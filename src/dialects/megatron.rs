//! NVIDIA Megatron-LM's training arguments: command-line flags, never a config file of its own.
//! Two places state them:
//!
//! - a launch script (`examples/gpt3/train_gpt3_175b_distributed.sh`): bash arrays of flags
//!   (`TRAINING_ARGS=( --micro-batch-size 1 --global-batch-size 1536 … )`) expanded on the launch
//!   line (`torchrun ${DISTRIBUTED_ARGS[@]} pretrain_gpt.py ${GPT_MODEL_ARGS[@]} …`). The shell
//!   reader (`load::shell`) expands the arrays and reads the program's flags as a tree
//!   (`--micro-batch-size 1` → `micro_batch_size: 1`, spans on the value as written); the
//!   launch line's `torchrun --nproc_per_node × --nnodes` is the world.
//! - a functional test's `model_config.yaml` (`tests/functional_tests/test_cases/**/`): the flags
//!   as a `MODEL_ARGS:` mapping (`--micro-batch-size: 4`), beside `ENV_VARS`, `TEST_TYPE`,
//!   `MODE`. `tests/functional_tests/shell_test_utils/_run_training.sh` substitutes the
//!   environment (`envsubst`), reads the mapping with `yq` (YAML 1.2) and passes each entry as
//!   `--key value` (a `true` value as the bare switch) to the program; the world is the recipe's
//!   (`tests/test_utils/recipes/**/*.yaml`, `nodes` × `gpus`), which trainlint does not read:
//!   `--world-size` or the manifest says it.
//!
//! Sources (NVIDIA/Megatron-LM, commit d98e8a64ddf34856e74b24714e3bedb2f5a39553):
//!
//! - `megatron/training/config/training_config.py`, `TrainingConfig` (its fields become the
//!   `--micro-batch-size`, `--global-batch-size`, `--rampup-batch-size` flags): "Global batch
//!   size is local batch size times data parallel size times number of micro batches"; the
//!   global batch "should be a multiple of micro-batch-size times data-parallel-size. If this
//!   value is None, then use micro-batch-size * data-parallel-size".
//! - `megatron/training/arguments.py`, `validate_args`: `args.data_parallel_size =
//!   args.world_size // total_model_size` with `total_model_size = tensor_model_parallel_size *
//!   pipeline_model_parallel_size * context_parallel_size * gtp_weight_remat_size`, after
//!   asserting "world size (…) is not divisible by total_model_size"; `assert
//!   args.micro_batch_size is not None`; `if args.global_batch_size is None:
//!   args.global_batch_size = args.micro_batch_size * args.data_parallel_size`; and "Cannot
//!   specify both --step-batch-size-schedule and --global-batch-size".
//! - `megatron/core/num_microbatches_calculator.py`, `ConstantNumMicroBatchesCalculator`:
//!   `assert global_batch_size % micro_batch_times_data_parallel_size == 0` ("global batch size
//!   (…) is not divisible by micro batch size (…) times data parallel size (…)"), then
//!   `num_micro_batches = global_batch_size // micro_batch_times_data_parallel_size` — the
//!   accumulation — asserted `>= 1`. (With `--decrease-batch-size-if-needed` the global batch is
//!   rounded down to a multiple instead.) The ramp-up calculators (`--rampup-batch-size`,
//!   `--step-batch-size-schedule`) assert the same divisibility of each batch size on the way.
//! - `megatron/core/model_parallel_config.py`, `ModelParallelConfig`:
//!   `tensor_model_parallel_size`, `pipeline_model_parallel_size`, `context_parallel_size`,
//!   `expert_model_parallel_size`, each default 1. Experts are split within the data- and
//!   context-parallel ranks, so the expert degree is no factor of the data-parallel size.
//! - `megatron/core/transformer/transformer_config.py`, `TransformerConfig`: `num_layers`,
//!   `hidden_size`, `num_attention_heads`, `ffn_hidden_size`; its `__post_init__` raises when
//!   `num_layers % pipeline_model_parallel_size != 0` for an even split (the uneven-split flags
//!   `--decoder-first-pipeline-num-layers`/`--decoder-last-pipeline-num-layers` and
//!   `--pipeline-model-parallel-layout` lift it).
//! - `arguments.py`: `--seq-length` ("Maximum sequence length to process"),
//!   `--max-position-embeddings`, `--lr`, `--use-distributed-optimizer`,
//!   `--make-vocab-size-divisible-by`; `TransformerConfig.recompute_granularity`:
//!   `'full'`/`'selective'`; `ModelParallelConfig.fp16`/`bf16`: "train with fp16 (bf16) mixed
//!   precision training" (neither: fp32 `params_dtype`); the distributed optimizer keeps an fp32
//!   copy of the half-precision parameters (`megatron/core/optimizer/distrib_optimizer.py`,
//!   `shard_fp32_from_float16_groups`). The vocabulary is the tokenizer's
//!   (`TrainingConfig`-side `tokenizer_type`, `vocab_size`, `padded_vocab_size` in
//!   `megatron/training/config/training_config.py`), padded to a multiple.
//! - `arguments.py`, `parse_args`: `parser.parse_args()` with `allow_abbrev=False`: an unknown
//!   flag stops the program (unless a caller passes `ignore_unknown_args`).

use super::{DerivedRoles, Dialect, Doc, Evidence, Framework, Unmodelled};
use crate::load::{Node, Value};
use crate::schema::{Manifest, Role};

pub(crate) const MEGATRON: Dialect = Dialect(&Megatron);

pub struct Megatron;

/// The mapping of a functional test's `model_config.yaml` that holds the flags.
const MODEL_ARGS: &str = "MODEL_ARGS";

/// Role → flag (without `--`), as `arguments.py` spells it.
const FLAGS: [(Role, &str); 12] = [
    (Role::MicroBatch, "micro-batch-size"),
    (Role::GlobalBatch, "global-batch-size"),
    (Role::TensorParallel, "tensor-model-parallel-size"),
    (Role::PipelineParallel, "pipeline-model-parallel-size"),
    (Role::ContextParallel, "context-parallel-size"),
    (Role::Layers, "num-layers"),
    (Role::HiddenSize, "hidden-size"),
    (Role::Heads, "num-attention-heads"),
    (Role::SequenceLength, "seq-length"),
    (Role::VocabSize, "vocab-size"),
    (Role::LearningRate, "lr"),
    (Role::ActivationCheckpointing, "recompute-granularity"),
];

/// Flags no other framework's launch line has, each a batch or a parallel degree: what a launch
/// of a `pretrain_*.py` program must pass to be read as Megatron-LM, and what a `MODEL_ARGS`
/// mapping must hold.
const EVIDENCE: [&str; 6] =
    ["micro-batch-size", "global-batch-size", "tensor-model-parallel-size", "pipeline-model-parallel-size", "context-parallel-size", "expert-model-parallel-size"];

/// Flags that lay the pipeline stages out other than evenly (`Framework::pipeline_balances_layers`).
const UNEVEN_PIPELINE: [&str; 6] = [
    "pipeline-model-parallel-layout",
    "decoder-first-pipeline-num-layers",
    "decoder-last-pipeline-num-layers",
    "hybrid-layer-pattern",
    "account-for-embedding-in-pipeline-split",
    "account-for-loss-in-pipeline-split",
];

/// The paths a flag is read at: `MODEL_ARGS.--flag` (a test case's YAML) and `flag` with `_`
/// for `-` (a launch line, as the shell reader keys its flags).
fn paths(flag: &str) -> [String; 2] {
    [format!("{MODEL_ARGS}.--{flag}"), flag.replace('-', "_")]
}

/// The node of a flag, in whichever of its places the tree has it, with its path.
fn flag<'a>(root: &'a Node, flag: &str) -> Option<(&'a Node, String)> {
    paths(flag).into_iter().find_map(|path| root.get_dotted(&path).map(|node| (node, path)))
}

/// A switch given: a bare flag on a launch line (`true`), or `--bf16: true` in `MODEL_ARGS`.
fn switch(root: &Node, name: &str) -> Option<String> {
    flag(root, name).filter(|(node, _)| node.value == Value::Bool(true)).map(|(_, path)| path)
}

/// Megatron-LM's programs: `pretrain_gpt.py`, `pretrain_bert.py`, `pretrain_t5.py`,
/// `pretrain_mamba.py`, `pretrain_vlm.py`, … (the repository root), as a path ends.
pub(super) fn is_pretrain_program(program: &str) -> bool {
    let name = program.rsplit('/').next().unwrap_or(program);
    name.starts_with("pretrain_") && name.ends_with(".py")
}

impl Framework for Megatron {
    fn name(&self) -> &'static str {
        "megatron-lm"
    }

    fn title(&self) -> &'static str {
        "Megatron-LM"
    }

    fn doc(&self) -> Doc {
        Doc {
            evidence: "a functional test's `MODEL_ARGS:` mapping with a batch or parallel-degree flag as its key (`--micro-batch-size: 4`, `--tensor-model-parallel-size: 2`); a launch script whose launch line runs a `pretrain_*.py` program with one of those flags (bash arrays of flags expanded) and without `--deepspeed` (a launch with it is Megatron-DeepSpeed's, `megatron-deepspeed`)",
            roles: "`--micro-batch-size`, `--global-batch-size`, `--tensor-model-parallel-size`, `--pipeline-model-parallel-size`, `--context-parallel-size`, `--num-layers`, `--hidden-size`, `--num-attention-heads`, `--seq-length`, `--vocab-size`, `--lr`, `--recompute-granularity`; precision from `--bf16` / `--fp16` (neither: fp32)",
            semantics: "data-parallel world = GPUs ÷ (tensor × pipeline × context), which must be whole; accumulation = global ÷ (micro × data parallel), asserted whole (`ConstantNumMicroBatchesCalculator`); no global batch: micro × data parallel; GPUs from the launch line (`torchrun --nproc_per_node × --nnodes`), for a test case from `--world-size` (its recipe is not read); heads ÷ tensor and layers ÷ pipeline (PAR001); `MODE: inference` test cases are not training; memory not estimated (Megatron's model-parallel engine, distributed optimizer and a shape without a catalog entry)",
        }
    }

    /// A `MODEL_ARGS` mapping keyed by Megatron's batch or parallel flags.
    fn evidence(&self, cx: &Evidence) -> Option<String> {
        let args = cx.root.get(MODEL_ARGS).filter(|n| matches!(n.value, Value::Map(_)))?;
        let found: Vec<String> = EVIDENCE.iter().filter(|f| args.get(&format!("--{f}")).is_some()).map(|f| format!("`--{f}`")).collect();
        (!found.is_empty()).then(|| format!("Megatron-LM's `MODEL_ARGS` with {}", found.join(", ")))
    }

    /// A `pretrain_*.py` launch with Megatron's batch or parallel flags. A launch with
    /// `--deepspeed` (or `--deepspeed_config`) runs microsoft/Megatron-DeepSpeed's fork through
    /// DeepSpeed: its own dialect (`megatron_deepspeed.rs`), not this one.
    fn launch_evidence(&self, program: &str, flags: &Node) -> Option<String> {
        if !is_pretrain_program(program) || super::megatron_deepspeed::runs_deepspeed(flags) {
            return None;
        }
        let found: Vec<String> = EVIDENCE.iter().filter(|f| flags.get(&f.replace('-', "_")).is_some()).map(|f| format!("`--{f}`")).collect();
        (!found.is_empty()).then(|| format!("Megatron-LM's `{program}` with {}", found.join(", ")))
    }

    fn bindings(&self, _manifest: &Manifest) -> Vec<(Role, String)> {
        FLAGS.iter().flat_map(|(role, flag)| paths(flag).map(|path| (*role, path))).collect()
    }

    /// `--bf16` / `--fp16`: mixed precision (`ModelParallelConfig`: "train with bf16 mixed precision
    /// training"; fp32 main parameters in the optimizer); neither is fp32.
    fn derived(&self, root: &Node) -> Vec<super::Derived> {
        let mut out = DerivedRoles::default();
        if let Some(path) = switch(root, "bf16") {
            out.push(Role::Precision, "bf16-mixed".into(), &path);
        } else if let Some(path) = switch(root, "fp16") {
            out.push(Role::Precision, "16-mixed".into(), &path);
        }
        out.0
    }

    /// Megatron asserts layers ÷ pipeline parallel whole for an even split only (`validate_args`:
    /// "Number of layers should be divisible by the pipeline-model-parallel size";
    /// `TransformerConfig.__post_init__`). A config that lays the stages out itself
    /// (`--pipeline-model-parallel-layout`, `--decoder-first-pipeline-num-layers`,
    /// `--decoder-last-pipeline-num-layers`, `--hybrid-layer-pattern`) or counts the embedding or
    /// the loss as a layer (`--account-for-embedding-in-pipeline-split`,
    /// `--account-for-loss-in-pipeline-split`: layers + 1 or + 2 must divide) is checked by its own
    /// rules, which PAR001 does not follow.
    fn pipeline_balances_layers(&self, root: &Node) -> bool {
        UNEVEN_PIPELINE.iter().any(|f| flag(root, f).is_some())
    }

    fn batch(&self) -> super::BatchSemantics {
        super::BatchSemantics {
            indivisible: Some(
                "Megatron-LM asserts that the global batch is a multiple of micro batch × data-parallel size (`ConstantNumMicroBatchesCalculator`, megatron/core/num_microbatches_calculator.py): \"global batch size (…) is not divisible by micro batch size (…) times data parallel size (…)\"",
            ),
            ..super::BatchSemantics::default()
        }
    }

    fn sequence_length_keys(&self) -> &'static [&'static str] {
        &["seq_length", "--seq-length"]
    }

    /// A functional test that runs inference (`MODE: inference`) trains nothing.
    fn not_training(&self, root: &Node) -> Option<String> {
        let mode = root.get("MODE")?.as_str()?;
        (mode == "inference").then(|| "a Megatron-LM functional test with `MODE: inference`: it runs inference, not training".to_owned())
    }

    /// The memory model prices neither Megatron's model-parallel engine (the pipeline split,
    /// tensor/context/expert parallel activations, the distributed optimizer's sharding, fp32 main
    /// gradients) nor a model stated only by its shape flags: the parameter count follows from
    /// them only through Megatron's layer spec (`--num-query-groups`, `--swiglu`,
    /// `--untie-embeddings-and-output-weights`, MoE flags, a vocabulary padded from the tokenizer),
    /// and no catalog entry names it.
    fn memory_unmodelled(&self, root: &Node) -> Option<Unmodelled> {
        let (_, path) = ["micro-batch-size", "num-layers", "hidden-size"].into_iter().find_map(|f| flag(root, f))?;
        Some(Unmodelled {
            path,
            reason: "Megatron-LM's model-parallel engine (pipeline stages, tensor/context/expert parallel, the distributed optimizer, fp32 main gradients) sets the peak, and its model is stated only by shape flags, whose parameter count depends on Megatron's layer spec and tokenizer (no catalog entry): trainlint's memory model does not read either yet".to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use super::super::test_support::{detected, parse};
    use crate::dialects::{detect_by_keys, detect_launch};

    #[test]
    fn recognised_by_model_args_with_its_flags() {
        assert_eq!(detected("MODEL_ARGS:\n  --micro-batch-size: 4\n  --num-layers: 12\n"), "megatron-lm");
        assert_eq!(detected("ENV_VARS:\n  X: 1\nMODEL_ARGS:\n  --tensor-model-parallel-size: 2\n"), "megatron-lm");
        // NeMo's test cases keep a `MODEL_ARGS` of Hydra overrides: not Megatron's flags.
        assert_ne!(detected("MODEL_ARGS:\n  trainer.devices: 8\n  data.micro_batch_size: 2\n"), "megatron-lm");
        // A model shape alone is no evidence, nor are the flags outside `MODEL_ARGS`.
        assert_ne!(detected("MODEL_ARGS:\n  --num-layers: 12\n"), "megatron-lm");
        assert_ne!(detected("--micro-batch-size: 4\n"), "megatron-lm");
    }

    #[test]
    fn a_launch_is_megatron_only_with_a_pretrain_program() {
        let flags = parse("micro_batch_size: 1\nglobal_batch_size: 8\nnum_layers: 2\n");
        assert_eq!(detect_launch(&flags, Some("pretrain_gpt.py")).map(|d| d.0.name()), Some("megatron-lm"));
        assert_eq!(detect_launch(&flags, Some("/opt/Megatron-LM/pretrain_bert.py")).map(|d| d.0.name()), Some("megatron-lm"));
        // The same flags for another program, or from the keys alone, are not Megatron's.
        assert_eq!(detect_launch(&flags, Some("train.py")), None);
        assert_eq!(detect_by_keys(&flags), None);
        assert_eq!(detect_launch(&parse("num_layers: 2\n"), Some("pretrain_gpt.py")), None);
        // Megatron-DeepSpeed's launch (`--deepspeed --deepspeed_config ds.json`) is its own dialect's.
        assert_eq!(detect_launch(&parse("micro_batch_size: 4\ndeepspeed: true\n"), Some("pretrain_gpt.py")).map(|d| d.0.name()), Some("megatron-deepspeed"));
    }

    #[test]
    fn bound_in_both_places() {
        let bindings = Megatron.bindings(&Manifest::default());
        assert!(bindings.contains(&(Role::MicroBatch, "MODEL_ARGS.--micro-batch-size".to_owned())));
        assert!(bindings.contains(&(Role::MicroBatch, "micro_batch_size".to_owned())));
        assert!(bindings.contains(&(Role::TensorParallel, "tensor_model_parallel_size".to_owned())));
    }

    #[test]
    fn an_uneven_pipeline_layout_lifts_the_even_split() {
        assert!(!Megatron.pipeline_balances_layers(&parse("MODEL_ARGS:\n  --num-layers: 15\n  --pipeline-model-parallel-size: 2\n")));
        assert!(Megatron.pipeline_balances_layers(&parse("MODEL_ARGS:\n  --num-layers: 15\n  --pipeline-model-parallel-layout: Et*3|(tt|)*6mL\n")));
        assert!(Megatron.pipeline_balances_layers(&parse("num_layers: 6\naccount_for_embedding_in_pipeline_split: true\n")));
    }

    #[test]
    fn precision_from_the_switches() {
        let derived = |text: &str| Megatron.derived(&parse(text)).into_iter().map(|d| (d.value, d.path)).collect::<Vec<_>>();
        assert_eq!(derived("MODEL_ARGS:\n  --bf16: true\n"), vec![("bf16-mixed".into(), "MODEL_ARGS.--bf16".to_owned())]);
        assert_eq!(derived("fp16: true\n"), vec![("16-mixed".into(), "fp16".to_owned())]);
        assert!(derived("MODEL_ARGS:\n  --bf16: false\n").is_empty());
    }

    #[test]
    fn inference_test_cases_are_not_training_and_memory_is_not_estimated() {
        assert!(Megatron.not_training(&parse("MODE: inference\nMODEL_ARGS:\n  --micro-batch-size: 1\n")).is_some());
        assert!(Megatron.not_training(&parse("MODEL_ARGS:\n  --micro-batch-size: 1\n")).is_none());
        let unmodelled = Megatron.memory_unmodelled(&parse("MODEL_ARGS:\n  --micro-batch-size: 1\n")).expect("not estimated");
        assert_eq!(unmodelled.path, "MODEL_ARGS.--micro-batch-size");
    }
}
