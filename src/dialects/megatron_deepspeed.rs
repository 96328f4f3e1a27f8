//! microsoft/Megatron-DeepSpeed: the fork of Megatron-LM that runs through DeepSpeed. Its
//! training arguments are Megatron's command-line flags, given on a launch script's launch line
//! with `--deepspeed --deepspeed_config ds_config.json` (`examples_deepspeed/*.sh`:
//! `deepspeed pretrain_gpt.py … --micro-batch-size ${MICRO_BATCH} --global-batch-size
//! ${GLOBAL_BATCH} --tensor-model-parallel-size ${TP} … $ds_args`); the scripts write the DeepSpeed
//! config themselves, from a heredoc (`cat <<EOT > $DS_CONFIG`, `pretrain_llama2_distributed.sh`)
//! or by `sed` over a template (`MoE/ds_pretrain_gpt_*.sh`: `ds_config_gpt_TEMPLATE.json`). The
//! shell reader (`load::shell`) reads the launch line's flags as a tree (`--micro-batch-size 4` →
//! `micro_batch_size: 4`); a heredoc-written DeepSpeed config the line passes is read in place of
//! its `--deepspeed_config` path (its ZeRO stage and offload, `resolve::fill_from_deepspeed_file`).
//!
//! Sources (microsoft/Megatron-DeepSpeed, commit f4157bea69f3df8c6cb66f2ebcda66ba03d1288e):
//!
//! - `megatron/arguments.py`, `parse_args`: argparse with `allow_abbrev=False` plus DeepSpeed's
//!   own `deepspeed.add_config_arguments(parser)` (`--deepspeed`, `--deepspeed_config`);
//!   `args.world_size = int(os.getenv("WORLD_SIZE", '1'))` (the launcher's processes);
//!   `args.ds_pipeline_enabled = not args.no_pipeline_parallel`.
//! - `megatron/arguments.py`, `validate_args`: `model_parallel_size =
//!   args.pipeline_model_parallel_size * args.tensor_model_parallel_size *
//!   args.ds_sequence_parallel_size`, asserted to divide the world ("world size (…) is not
//!   divisible by tensor parallel size (…) times pipeline parallel size (…) times seqence parallel
//!   size (…)"), then `args.data_parallel_size = args.world_size // model_parallel_size`;
//!   `assert args.micro_batch_size is not None`; `if args.global_batch_size is None:
//!   args.global_batch_size = args.micro_batch_size * args.data_parallel_size`;
//!   `--no-pipeline-parallel` asserts `pipeline_model_parallel_size == 1`. (The tensor degree is
//!   first clamped to the world and the pipeline degree to world ÷ tensor.)
//! - `megatron/core/parallel_state.py`, `initialize_model_parallel(…, sequence_parallel_size, …)`
//!   (called from `megatron/initialize.py` with `args.ds_sequence_parallel_size`):
//!   `data_parallel_size = world_size // (tensor_model_parallel_size *
//!   pipeline_model_parallel_size * sequence_parallel_size)`. DeepSpeed-Ulysses sequence
//!   parallelism (`--ds-sequence-parallel-size`, "Enable DeepSpeed's sequence parallel") splits
//!   each sample's sequence over its ranks: a context-parallel degree, read as one.
//! - `megatron/microbatches.py`, `ConstantNumMicroBatches.__init__`: `assert global_batch_size %
//!   micro_batch_times_data_parallel == 0` ("global batch size (…) is not divisible by micro batch
//!   size (…) times data parallel size (…)"), `num_micro_batches = global_batch_size //
//!   micro_batch_times_data_parallel` (the accumulation), asserted `>= 1`;
//!   `build_num_microbatches_calculator` uses `RampupBatchsizeNumMicroBatches` instead under
//!   `--rampup-batch-size <start> <increment> <samples>`, ending at the global batch.
//! - `megatron/training.py`, `pretrain`: `args.deepspeed_config_dict = _create_ds_config_dict()`
//!   (the `--deepspeed_config` JSON, read as is); `setup_model_and_optimizer`:
//!   `deepspeed.initialize(model=model[0], optimizer=optimizer, args=args, …, mpu=mpu if
//!   args.no_pipeline_parallel else None, config=args.deepspeed_config_dict)` (with the pipeline
//!   on, `GPTModelPipe`'s own topology: data parallel = the same world ÷ (pipe × model));
//!   `train`: before every step, `global_batch_size = mpu.get_data_parallel_world_size() *
//!   args.micro_batch_size * get_num_microbatches()` and
//!   `model[0].set_train_batch_size(global_batch_size)`. DeepSpeed's
//!   `DeepSpeedEngine.set_train_batch_size` (`deepspeed/runtime/engine.py`) keeps
//!   `train_micro_batch_size_per_gpu` and sets `gradient_accumulation_steps = train_batch_size //
//!   (micro × dp_world_size)` (a `ValueError` when not divisible), and `PipelineEngine` runs that
//!   many micro batches (`deepspeed/runtime/pipe/engine.py`). So the batch the run trains is
//!   Megatron's: global = micro × data parallel × `num_micro_batches`, whatever
//!   `train_batch_size` the DeepSpeed config says (DeepSpeed's start-up check of its own config,
//!   `train_batch_size == micro × accumulation × data parallel`, comes first and is not read here).
//! - `pretrain_gpt.py`, `model_provider`: `deepspeed.zero.Init(…, enabled=args.zero_stage == 3)`
//!   — `--zero-stage` (`_add_zero_args`, default 1) is Megatron's copy of the stage; DeepSpeed's
//!   engine shards by the config's `zero_optimization.stage`. The example scripts pass one
//!   variable to both (`--zero-stage=$ZERO_STAGE`, `"stage": $ZERO_STAGE`).
//! - `pretrain_gpt.py`, `model_provider`: `if args.deepspeed and not args.no_pipeline_parallel:
//!   model = GPTModelPipe(…)`, a DeepSpeed `PipelineModule` built with
//!   `partition_method='type:transformer'` (`megatron/model/gpt_model.py`), which balances the
//!   transformer layers over the stages: nothing asks layers ÷ pipeline to be whole.
//!   `megatron/model/transformer.py`, `ParallelAttention`: heads are divided by the tensor degree
//!   (`core.utils.divide`, which asserts).
//! - `megatron/arguments.py`: `--num-layers`, `--hidden-size`, `--num-attention-heads`,
//!   `--seq-length`, `--vocab-size`, `--lr`, `--recompute-granularity`; `--fp16` / `--bf16`
//!   ("Run model in fp16 (bfloat16) mode"; neither: fp32). The DeepSpeed config's `bf16.enabled` /
//!   `fp16.enabled` switch DeepSpeed's engine; the example scripts set both together.

use super::{BatchSemantics, DerivedRoles, Dialect, Doc, Framework, Unmodelled};
use crate::load::{Node, Value};
use crate::schema::{Manifest, Role};

pub(crate) const MEGATRON_DEEPSPEED: Dialect = Dialect(&MegatronDeepSpeed);

pub(crate) struct MegatronDeepSpeed;

/// Role → flag, as the shell reader keys it (`--micro-batch-size` → `micro_batch_size`), as
/// `megatron/arguments.py` spells them.
const FLAGS: [(Role, &str); 12] = [
    (Role::MicroBatch, "micro_batch_size"),
    (Role::GlobalBatch, "global_batch_size"),
    (Role::TensorParallel, "tensor_model_parallel_size"),
    (Role::PipelineParallel, "pipeline_model_parallel_size"),
    // DeepSpeed-Ulysses: divides the world before the data-parallel split (`validate_args`).
    (Role::ContextParallel, "ds_sequence_parallel_size"),
    (Role::Layers, "num_layers"),
    (Role::HiddenSize, "hidden_size"),
    (Role::Heads, "num_attention_heads"),
    (Role::SequenceLength, "seq_length"),
    (Role::VocabSize, "vocab_size"),
    (Role::LearningRate, "lr"),
    (Role::ActivationCheckpointing, "recompute_granularity"),
];

/// Megatron's batch and parallel-degree flags: one of them beside `--deepspeed` on a
/// `pretrain_*.py` launch is the evidence.
const EVIDENCE: [&str; 5] = ["micro-batch-size", "global-batch-size", "tensor-model-parallel-size", "pipeline-model-parallel-size", "ds-sequence-parallel-size"];

/// The flag that names the DeepSpeed config (`deepspeed.add_config_arguments`).
const CONFIG_FLAG: &str = "deepspeed_config";

/// Whether a launch's flags run Megatron through DeepSpeed: `--deepspeed` or
/// `--deepspeed_config` (Megatron-LM's dialect leaves such a launch to this one).
pub(super) fn runs_deepspeed(flags: &Node) -> bool {
    ["deepspeed", CONFIG_FLAG].iter().any(|k| flags.get(k).is_some())
}

/// `finetune_llama.py` (the repository root): Megatron's arguments and `megatron.training.pretrain`
/// as the `pretrain_*.py` programs (`examples_deepspeed/finetune_hf_llama/finetune_llama.sh`).
fn is_finetune_program(program: &str) -> bool {
    program.rsplit('/').next() == Some("finetune_llama.py")
}

/// The DeepSpeed config the script writes and the launch passes, read in place of its path.
fn written_config(root: &Node) -> Option<&Node> {
    root.get(CONFIG_FLAG).filter(|n| matches!(n.value, Value::Map(_)))
}

impl Framework for MegatronDeepSpeed {
    fn name(&self) -> &'static str {
        "megatron-deepspeed"
    }

    fn title(&self) -> &'static str {
        "Megatron-DeepSpeed"
    }

    fn doc(&self) -> Doc {
        Doc {
            evidence: "a launch script whose launch line runs a `pretrain_*.py` program (or `finetune_llama.py`) with `--deepspeed` (or `--deepspeed_config`) and one of Megatron's batch or parallel-degree flags (`--micro-batch-size`, `--global-batch-size`, `--tensor-model-parallel-size`, `--pipeline-model-parallel-size`, `--ds-sequence-parallel-size`)",
            roles: "`--micro-batch-size`, `--global-batch-size`, `--tensor-model-parallel-size`, `--pipeline-model-parallel-size`, `--ds-sequence-parallel-size` (as context parallel), `--num-layers`, `--hidden-size`, `--num-attention-heads`, `--seq-length`, `--vocab-size`, `--lr`, `--recompute-granularity`; precision from `--bf16` / `--fp16` (else the DeepSpeed config's `bf16`/`fp16.enabled`; neither: fp32); ZeRO stage and offload from the DeepSpeed config the script writes from a heredoc, else `--zero-stage`, else the `--deepspeed_config` file",
            semantics: "data-parallel world = GPUs ÷ (tensor × pipeline × DeepSpeed sequence parallel), which must be whole; accumulation = global ÷ (micro × data parallel), asserted whole (`ConstantNumMicroBatches`); no global batch: micro × data parallel; Megatron's global batch is the run's (`train` calls DeepSpeed's `set_train_batch_size` with it before every step, whatever the DeepSpeed config's `train_batch_size`); GPUs from the launch line (`deepspeed --num_gpus`/`--num_nodes`, hostfile, `torchrun`); heads ÷ tensor (PAR001), layers balanced over DeepSpeed's pipeline stages; memory not estimated",
        }
    }

    /// A `pretrain_*.py` launch with `--deepspeed` and Megatron's batch or parallel flags.
    fn launch_evidence(&self, program: &str, flags: &Node) -> Option<String> {
        if !(super::megatron::is_pretrain_program(program) || is_finetune_program(program)) || !runs_deepspeed(flags) {
            return None;
        }
        let found: Vec<String> = EVIDENCE.iter().filter(|f| flags.get(&f.replace('-', "_")).is_some()).map(|f| format!("`--{f}`")).collect();
        (!found.is_empty()).then(|| format!("Megatron-DeepSpeed's `{program}` with `--deepspeed` and {}", found.join(", ")))
    }

    fn bindings(&self, _manifest: &Manifest) -> Vec<(Role, String)> {
        super::owned(&FLAGS)
    }

    /// Precision from `--bf16` / `--fp16`, else from the written DeepSpeed config's
    /// `bf16.enabled` / `fp16.enabled`; the ZeRO stage from `--zero-stage` unless the script writes
    /// the DeepSpeed config, whose stage DeepSpeed's engine follows (read with its offload by
    /// `Framework::deepspeed_file_key`, as a config file on disk is when no flag states it).
    fn derived(&self, root: &Node) -> Vec<super::Derived> {
        let mut out = DerivedRoles::default();
        let on = |path: &str| root.get_dotted(path).is_some_and(|n| n.value == Value::Bool(true));
        let written = written_config(root).is_some();
        if on("bf16") {
            out.push(Role::Precision, "bf16-mixed".into(), "bf16");
        } else if on("fp16") {
            out.push(Role::Precision, "16-mixed".into(), "fp16");
        } else if written && on("deepspeed_config.bf16.enabled") {
            out.push(Role::Precision, "bf16-mixed".into(), "deepspeed_config.bf16.enabled");
        } else if written && on("deepspeed_config.fp16.enabled") {
            out.push(Role::Precision, "16-mixed".into(), "deepspeed_config.fp16.enabled");
        }
        // A written config's stage is read with its offload (`resolve::fill_from_deepspeed_file`).
        if !written
            && let Some(flag) = root.get("zero_stage").filter(|n| matches!(n.value, Value::Int(_)))
        {
            out.push(Role::ZeroStage, flag.to_json(), "zero_stage");
        }
        out.0
    }

    /// DeepSpeed's `PipelineModule` (`GPTModelPipe`, `partition_method='type:transformer'`)
    /// balances the layers over the stages; without DeepSpeed's pipeline
    /// (`--no-pipeline-parallel`) the pipeline degree is 1.
    fn pipeline_balances_layers(&self, _root: &Node) -> bool {
        true
    }

    fn batch(&self) -> BatchSemantics {
        BatchSemantics {
            indivisible: Some(
                "Megatron-DeepSpeed asserts that the global batch is a multiple of micro batch × data-parallel size (`ConstantNumMicroBatches`, megatron/microbatches.py): \"global batch size (…) is not divisible by micro batch size (…) times data parallel size (…)\"; DeepSpeed's `set_train_batch_size`, which megatron/training.py `train` calls with it, raises a ValueError on the same division",
            ),
            ..BatchSemantics::default()
        }
    }

    fn sequence_length_keys(&self) -> &'static [&'static str] {
        &["seq_length"]
    }

    /// The DeepSpeed config `--deepspeed_config` names, read for its ZeRO stage and offload when
    /// no stage is stated on the launch line or in a heredoc-written config.
    fn deepspeed_file_key(&self) -> Option<&'static str> {
        Some(CONFIG_FLAG)
    }

    /// As Megatron-LM's: the model-parallel engine and a model stated only by shape flags.
    fn memory_unmodelled(&self, root: &Node) -> Option<Unmodelled> {
        let path = ["micro_batch_size", "num_layers", "hidden_size"].into_iter().find(|f| root.get(f).is_some())?;
        Some(Unmodelled {
            path: path.to_owned(),
            reason: "Megatron-DeepSpeed's model-parallel engine (tensor and DeepSpeed pipeline stages, DeepSpeed-Ulysses sequence parallel, ZeRO over the data-parallel ranks) sets the peak, and its model is stated only by shape flags, whose parameter count depends on Megatron's layer spec and tokenizer (no catalog entry): trainlint's memory model does not read either yet".to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use super::super::test_support::parse;
    use crate::dialects::detect_launch;

    #[test]
    fn a_pretrain_launch_with_deepspeed_is_megatron_deepspeed() {
        let name = |flags: &str, program: &str| detect_launch(&parse(flags), Some(program)).map(|d| d.0.name());
        assert_eq!(name("micro_batch_size: 4\ndeepspeed: true\ndeepspeed_config: ds.json\n", "pretrain_gpt.py"), Some("megatron-deepspeed"));
        assert_eq!(name("tensor_model_parallel_size: 2\ndeepspeed_config: ds.json\n", "../pretrain_bert.py"), Some("megatron-deepspeed"));
        assert_eq!(name("micro_batch_size: 16\ndeepspeed: true\n", "finetune_llama.py"), Some("megatron-deepspeed"));
        // Without `--deepspeed` it is Megatron-LM's; another program or no batch flag is neither.
        assert_eq!(name("micro_batch_size: 4\n", "pretrain_gpt.py"), Some("megatron-lm"));
        assert_eq!(name("micro_batch_size: 4\ndeepspeed: true\n", "train.py"), None);
        assert_eq!(name("num_layers: 2\ndeepspeed: true\n", "pretrain_gpt.py"), None);
    }

    #[test]
    fn zero_stage_and_precision_prefer_the_written_config() {
        let derived = |text: &str| MegatronDeepSpeed.derived(&parse(text)).into_iter().map(|d| (d.role, d.value, d.path)).collect::<Vec<_>>();
        // The written config's stage is the resolver's to read (with its offload), not the flag's.
        let written = "zero_stage: 1\ndeepspeed_config:\n  zero_optimization:\n    stage: 2\n  bf16:\n    enabled: true\n";
        assert_eq!(derived(written), vec![(Role::Precision, "bf16-mixed".into(), "deepspeed_config.bf16.enabled".to_owned())]);
        assert_eq!(
            derived("zero_stage: 3\nfp16: true\ndeepspeed_config: ds.json\n"),
            vec![(Role::Precision, "16-mixed".into(), "fp16".to_owned()), (Role::ZeroStage, 3.into(), "zero_stage".to_owned())]
        );
    }
}
