//! EleutherAI GPT-NeoX's training YAML (`python ./deepy.py train.py configs/20B.yml
//! configs/local_setup.yml`): one flat mapping of NeoX arguments, with DeepSpeed's own
//! sections (`zero_optimization`, `optimizer`, `fp16`) inside it. The files are written like
//! JSON with comments (`{ "pipe_parallel_size": 4, … }`) and read as YAML.
//!
//! Sources (EleutherAI/gpt-neox, commit ea7aefd8f8e183256992d9fede4d7c71a46d67a5):
//!
//! - `megatron/neox_arguments/arguments.py`, `NeoXArgs.from_ymls`: every file is read with
//!   PyYAML (`yaml.load(conf_file, Loader=yaml.FullLoader)`), several files are merged (a key
//!   set in two of them raises "duplicate keys"), each top-level key has its `-` replaced by `_`
//!   (`conf_key.replace("-", "_")`), and the result is `cls(**config)`: `NeoXArgs` is a
//!   dataclass, so a top-level key that is not one of its fields raises `TypeError` at start-up.
//!   Its fields are those of the classes in `megatron/neox_arguments/neox_args.py` and
//!   `deepspeed_args.py` (`BASE_CLASSES`).
//! - `arguments.py`, `NeoXArgs.calculate_derived`: `global_num_gpus` comes from the hostfile
//!   (`num_gpus` per host, `num_nodes` hosts) or, without one, `torch.cuda.device_count()` — the
//!   launch, not the YAML; then "the actual `world size` deepspeed uses is the size of the
//!   data-parallel group, or (num_gpus / mp_size) / pp_size": `dp_world_size = (global_num_gpus /
//!   pp_size) / mp_size` with `pp_size = max(pipe_parallel_size, 1)` and `mp_size =
//!   max(model_parallel_size, 1)`, which must be whole (AssertionError otherwise).
//! - `arguments.py`, `NeoXArgs.calculate_batch_parameters(dp_world_size, train_batch,
//!   micro_batch, grad_acc)`: DeepSpeed's derivation on the data-parallel world (two given → the
//!   third by floor division; `train_batch_size` alone → accumulation 1; micro alone →
//!   accumulation 1), then `check_batch_parameters` asserts `train_batch == micro_batch *
//!   grad_acc * dp_world_size`.
//! - `arguments.py`, `calculate_derived`: `precision` is `"fp16"` when `fp16.enabled`,
//!   `"bfloat16"` when `bf16.enabled`, else as written (`fp16`, `bfloat16`, `fp32`).
//! - `neox_args.py`: `pipe_parallel_size` (default 0: no pipeline engine), `model_parallel_size`
//!   (default 1, tensor parallelism), `num_layers`, `hidden_size`, `num_attention_heads`,
//!   `seq_length`, `checkpoint_activations`; the vocabulary is the tokenizer's, padded
//!   (`padded_vocab_size`, `make_vocab_size_divisible_by`), never stated in the YAML.
//!
//! A GPT-NeoX file carries DeepSpeed keys (`train_micro_batch_size_per_gpu`,
//! `zero_optimization`), so this dialect is registered before DeepSpeed's and recognises a file
//! by keys DeepSpeed does not have.

use super::{DerivedRoles, Dialect, Doc, Evidence, Framework, KnownKeys, Unmodelled};
use crate::load::{Node, Value};
use crate::schema::{Manifest, Role};

pub(crate) const GPT_NEOX: Dialect = Dialect(&GptNeox);

pub(crate) struct GptNeox;

/// Role → top-level NeoX argument (either spelling, `-` or `_`, is read: `from_ymls`), or a
/// key inside a DeepSpeed section (`optimizer.params.lr`, `zero_optimization.stage`), which
/// NeoX passes to DeepSpeed as written.
const BINDINGS: [(Role, &str); 13] = [
    (Role::MicroBatch, "train_micro_batch_size_per_gpu"),
    (Role::Accumulation, "gradient_accumulation_steps"),
    (Role::GlobalBatch, "train_batch_size"),
    (Role::TensorParallel, "model_parallel_size"),
    (Role::PipelineParallel, "pipe_parallel_size"),
    (Role::Layers, "num_layers"),
    (Role::HiddenSize, "hidden_size"),
    (Role::Heads, "num_attention_heads"),
    (Role::SequenceLength, "seq_length"),
    (Role::ActivationCheckpointing, "checkpoint_activations"),
    (Role::ZeroStage, "zero_optimization.stage"),
    (Role::LearningRate, "optimizer.params.lr"),
    (Role::LearningRate, "lr"),
];

/// NeoX arguments that name a GPT-NeoX model and no DeepSpeed, Megatron-LM or Hugging Face
/// key: the pipeline degree in NeoX's own name (Megatron-LM says `pipeline_model_parallel_size`;
/// `model_parallel_size` is also Megatron-LM's older `--model-parallel-size`, so it counts only
/// beside another NeoX key), and the model's NeoX-only switches (`neox_args.py`). Arguments NeoX
/// shares with Megatron-LM (`lr_decay_style`, `data_impl`, `tokenizer_type`,
/// `synchronize_each_layer`: microsoft/Megatron-DeepSpeed `megatron/arguments.py`) are no evidence:
/// a Megatron launch line has them too.
const PRIMARY: [&str; 2] = ["pipe_parallel_size", "model_parallel_size"];
const SECONDARY: [&str; 10] = [
    "pos_emb",
    "rotary_pct",
    "gpt_j_residual",
    "output_layer_parallelism",
    "no_weight_tying",
    "scaled_upper_triang_masked_softmax_fusion",
    "bias_gelu_fusion",
    "output_layer_init_method",
    "attention_config",
    "checkpoint_factor",
];

/// The top-level keys of `root`, each as `from_ymls` reads it (`-` → `_`).
fn keys(root: &Node) -> Vec<String> {
    root.entries().map(|entries| entries.iter().map(|e| e.key.replace('-', "_")).collect()).unwrap_or_default()
}

/// Whether `key` is `name` with `-` written for `_` (NeoX reads both spellings).
fn spelled(key: &str, name: &str) -> bool {
    key.len() == name.len() && key.bytes().zip(name.bytes()).all(|(a, b)| a == b || (a == b'-' && b == b'_'))
}

fn evidence(root: &Node) -> Option<String> {
    // Asked of every config: compared in place, not copied with `_` for `-` first.
    let entries = root.entries().unwrap_or_default();
    let has = |k: &str| entries.iter().any(|entry| spelled(&entry.key, k));
    let primary: Vec<&str> = PRIMARY.iter().copied().filter(|k| has(k)).collect();
    let secondary: Vec<&str> = SECONDARY.iter().copied().filter(|k| has(k)).collect();
    let quoted = |keys: &[&str]| keys.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ");
    let neox_only = primary.contains(&"pipe_parallel_size");
    if !primary.is_empty() && (neox_only || !secondary.is_empty()) {
        let with = if secondary.is_empty() { String::new() } else { format!(" with {}", quoted(&secondary)) };
        return Some(format!("GPT-NeoX arguments {}{with}", quoted(&primary)));
    }
    (secondary.len() >= 2).then(|| format!("GPT-NeoX arguments {}", quoted(&secondary)))
}

/// The fields of `NeoXArgs` (`megatron/neox_arguments/neox_args.py` and `deepspeed_args.py`,
/// commit ea7aefd8): the keys `cls(**config)` accepts.
const KNOWN_KEYS: [&str; 318] = [
    "account",
    "activation",
    "activation_checkpointing",
    "adlr_autoresume",
    "adlr_autoresume_interval",
    "allow_chopped",
    "amp",
    "apply_query_key_layer_scaling",
    "attention_config",
    "attention_dropout",
    "attention_softmax_in_fp32",
    "autotuning",
    "autotuning_run",
    "base_shapes_file",
    "batch_size",
    "bf16",
    "bias_dropout_fusion",
    "bias_gelu_fusion",
    "char_level_ppl",
    "checkpoint",
    "checkpoint_activations",
    "checkpoint_factor",
    "checkpoint_in_cpu",
    "checkpoint_num_layers",
    "checkpoint_scale",
    "checkpoint_validation_with_forward_pass",
    "clip_grad",
    "comet_experiment",
    "comet_experiment_name",
    "comet_others",
    "comet_project",
    "comet_tags",
    "comet_workspace",
    "comment",
    "comms_logger",
    "communication_data_type",
    "compression_training",
    "config_files",
    "contiguous_checkpointing",
    "coord_check",
    "csv_monitor",
    "curriculum_learning",
    "curriculum_seqlen",
    "data_efficiency",
    "data_impl",
    "data_path",
    "data_types",
    "dataset_impl",
    "deepscale",
    "deepscale_config",
    "deepspeed",
    "deepspeed_activation_checkpointing",
    "deepspeed_extra_args",
    "deepspeed_mpi",
    "deepspeed_slurm",
    "dim_att",
    "distributed_backend",
    "do_test",
    "do_train",
    "do_valid",
    "dpo_beta",
    "dpo_fp32",
    "dpo_reference_free",
    "dump_state",
    "dynamic_loss_scale",
    "elasticity",
    "eod_mask_loss",
    "eval_interval",
    "eval_iters",
    "eval_results_prefix",
    "eval_tasks",
    "exclude",
    "exit_interval",
    "expansion_factor",
    "extra_save_iters",
    "ffn_dim",
    "finetune",
    "flops_profiler",
    "force_multi",
    "fp16",
    "fp16_lm_cross_entropy",
    "fp32_allreduce",
    "fp32_reinforce",
    "fused_kernels_build_path",
    "git_hash",
    "global_num_gpus",
    "gmlp_attn_dim",
    "gpt_j_residual",
    "gpt_j_tied",
    "gradient_accumulation_steps",
    "gradient_clipping",
    "gradient_noise_scale_cpu_offload",
    "gradient_noise_scale_n_batches",
    "gradient_predivide_factor",
    "head_size",
    "hidden_dropout",
    "hidden_size",
    "hostfile",
    "hysteresis",
    "include",
    "init_method",
    "init_method_std",
    "intermediate_size",
    "is_pipe_parallel",
    "iteration",
    "keep_last_n_checkpoints",
    "kl_div_beta",
    "kl_impl",
    "kto_beta",
    "kto_desirable_weight",
    "kto_fp32",
    "kto_undesirable_weight",
    "launcher",
    "layernorm_epsilon",
    "layernorm_fusion",
    "lazy_mpu_init",
    "load",
    "local_rank",
    "log_dir",
    "log_grad_norm",
    "log_grad_pct_zeros",
    "log_gradient_noise_scale",
    "log_interval",
    "log_optimizer_states",
    "log_param_norm",
    "loss_scale",
    "loss_scale_window",
    "lr",
    "lr_decay_fraction",
    "lr_decay_iters",
    "lr_decay_style",
    "make_vocab_size_divisible_by",
    "mamba_causal_conv_fusion",
    "mamba_inner_func_fusion",
    "mamba_selective_fp32_params",
    "mamba_selective_scan_fusion",
    "mamba_use_bias_in_conv",
    "mamba_use_bias_in_linears",
    "master_addr",
    "master_port",
    "max_position_embeddings",
    "maximum_tokens",
    "memory_profiling",
    "memory_profiling_path",
    "merge_file",
    "min_lr",
    "min_scale",
    "mlp_multiple_of",
    "mmap_warmup",
    "model_parallel_size",
    "moe_expert_interval",
    "moe_jitter_eps",
    "moe_lbl_in_fp32",
    "moe_num_experts",
    "moe_router_type",
    "moe_top_k",
    "mup_attn_temp",
    "mup_embedding_mult",
    "mup_init_scale",
    "mup_output_temp",
    "mup_rp_embedding_mult",
    "mup_width_scale",
    "neg_test_data_paths",
    "neg_test_label_data_paths",
    "neg_train_data_paths",
    "neg_train_label_data_paths",
    "neg_valid_data_paths",
    "neg_valid_label_data_paths",
    "no_load_optim",
    "no_load_rng",
    "no_save_optim",
    "no_save_rng",
    "no_ssh_check",
    "no_weight_tying",
    "norm",
    "num_attention_heads",
    "num_gpus",
    "num_kv_heads",
    "num_layers",
    "num_nodes",
    "num_samples",
    "num_unique_layers",
    "num_workers",
    "online_dataserver_ips",
    "online_dataserver_ports",
    "onnx_safe",
    "opt_pos_emb_offset",
    "optimizer",
    "optimizer_type",
    "output_layer_init_method",
    "output_layer_parallelism",
    "override_lr_scheduler",
    "pack_impl",
    "padded_vocab_size",
    "param_sharing_style",
    "partition_activations",
    "peak_theoretical_tflops",
    "pipe_parallel_size",
    "pipe_partition_method",
    "pos_emb",
    "pos_test_data_paths",
    "pos_test_label_data_paths",
    "pos_train_data_paths",
    "pos_train_label_data_paths",
    "pos_valid_data_paths",
    "pos_valid_label_data_paths",
    "precision",
    "precompute_model_name",
    "prescale_gradients",
    "profile",
    "profile_backward",
    "profile_step_start",
    "profile_step_stop",
    "prompt_end",
    "rank",
    "recompute",
    "reinforce_leave_one_out",
    "return_logits",
    "rms_norm_epsilon",
    "rmsnorm_fusion",
    "rope_fusion",
    "rotary_emb_base",
    "rotary_pct",
    "rotary_save_freqs_buffer",
    "rpe_max_distance",
    "rpe_num_buckets",
    "s3_chunk_size",
    "s3_path",
    "sample_input_file",
    "sample_output_file",
    "save",
    "save_base_shapes",
    "scaled_masked_softmax_fusion",
    "scaled_upper_triang_masked_softmax_fusion",
    "scalenorm_epsilon",
    "scheduler",
    "seed",
    "seq_length",
    "sequence_parallel",
    "serve_model_weights",
    "short_seq_prob",
    "sliding_window_width",
    "soft_prompt_tuning",
    "sparse_attention",
    "sparse_gradients",
    "sparsity_config",
    "split",
    "steps_per_print",
    "synchronize_each_layer",
    "te_columnparallel",
    "te_fp8_amax_compute_algo",
    "te_fp8_amax_history_len",
    "te_fp8_format",
    "te_fp8_margin",
    "te_fp8_mha",
    "te_fp8_wgrad",
    "te_layernorm_mlp",
    "te_mha",
    "te_rowparallel",
    "temperature",
    "tensorboard",
    "tensorboard_dir",
    "test_data_paths",
    "test_data_weights",
    "test_label_data_paths",
    "test_reward_data_paths",
    "text_gen_type",
    "tokenizer_type",
    "top_k",
    "top_p",
    "train_batch_size",
    "train_data_paths",
    "train_data_weights",
    "train_epochs",
    "train_impl",
    "train_iters",
    "train_label_data_paths",
    "train_micro_batch_size_per_gpu",
    "train_reward_data_paths",
    "use_bias_in_attn_linear",
    "use_bias_in_mlp",
    "use_bias_in_norms",
    "use_bnb_optimizer",
    "use_checkpoint_lr_scheduler",
    "use_comet",
    "use_cpu_initialization",
    "use_flashattn_swiglu",
    "use_mup",
    "use_qk_layernorm",
    "use_shared_fs",
    "use_wandb",
    "user_script",
    "valid_data_paths",
    "valid_data_weights",
    "valid_label_data_paths",
    "valid_reward_data_paths",
    "vocab_file",
    "wall_clock_breakdown",
    "wandb",
    "wandb_group",
    "wandb_host",
    "wandb_init_all_ranks",
    "wandb_project",
    "wandb_run_name",
    "wandb_team",
    "warmup",
    "weight_by_num_documents",
    "weight_decay",
    "weight_server_port",
    "weighted_sampler_alpha",
    "world_size",
    "z_loss",
    "zero_allgather_bucket_size",
    "zero_contiguous_gradients",
    "zero_optimization",
    "zero_reduce_bucket_size",
    "zero_reduce_scatter",
    "zero_stage",
];

/// Arguments GPT-NeoX renamed. `save_interval` became `checkpoint_factor` in commit 8d1c5c88
/// ("Allow specifying arbitrary step numbers for saving extra checkpoints", #737): with the default
/// `checkpoint_scale: linear` it is the same interval (`neox_args.py`, `checkpoint_factor`), and
/// `configs/20B.yml` says "`checkpoint_factor`: this variable previously called `save-interval`".
const RENAMED: [super::Renamed; 1] = [super::Renamed {
    old: "save_interval",
    new: "checkpoint_factor",
    why: "`save_interval` became `checkpoint_factor` in gpt-neox commit 8d1c5c88 (#737); with the default `checkpoint_scale: linear` it is the same interval",
}];

impl Framework for GptNeox {
    fn name(&self) -> &'static str {
        "gpt-neox"
    }

    fn title(&self) -> &'static str {
        "GPT-NeoX"
    }

    fn doc(&self) -> Doc {
        Doc {
            evidence: "`pipe_parallel_size` (either spelling, `-` or `_`), `model_parallel_size` with a NeoX-only model key (`pos_emb`, `rotary_pct`, `gpt_j_residual`, `attention_config`, …), or two NeoX-only keys; read before DeepSpeed, whose keys NeoX files carry; keys NeoX shares with Megatron-LM are no evidence",
            roles: "`train_micro_batch_size_per_gpu`, `gradient_accumulation_steps`, `train_batch_size`, `model_parallel_size` (tensor), `pipe_parallel_size`, `num_layers`, `hidden_size`, `num_attention_heads`, `seq_length`, `checkpoint_activations`, `zero_optimization.stage`, `optimizer.params.lr`; precision from `precision` or `fp16.enabled` / `bf16.enabled`",
            semantics: "data-parallel world = GPUs ÷ (max(pipe, 1) × max(model, 1)), which must be whole; DeepSpeed's derivation on that world, asserted (`calculate_batch_parameters`, `check_batch_parameters`); GPUs from the launch (hostfile or visible devices); heads ÷ model parallel (PAR001), the layers balanced over the pipeline stages (no split needed); an unknown top-level key raises (SCH003 reports each); `-` in a top-level key reads as `_`; memory not estimated (Megatron kernels, pipeline engine, padded vocabulary)",
        }
    }

    fn evidence(&self, cx: &Evidence) -> Option<String> {
        evidence(cx.root)
    }

    /// Each top-level argument in both spellings (`from_ymls` turns `-` into `_`).
    fn bindings(&self, _manifest: &Manifest) -> Vec<(Role, String)> {
        let mut out = Vec::new();
        for (role, key) in BINDINGS {
            out.push((role, key.to_owned()));
            if !key.contains('.') && key.contains('_') {
                out.push((role, key.replace('_', "-")));
            }
        }
        out
    }

    /// `precision` as written, else DeepSpeed's `fp16.enabled` / `bf16.enabled`
    /// (`calculate_derived`): DeepSpeed's mixed precision, fp32 master weights.
    fn derived(&self, root: &Node) -> Vec<super::Derived> {
        let mut out = DerivedRoles::default();
        let on = |section: &str| root.get_dotted(&format!("{section}.enabled")).is_some_and(|n| n.value == Value::Bool(true));
        if let Some(node) = root.get("precision") {
            let typed = match node.as_str() {
                Some("fp16") => "16-mixed",
                Some("bfloat16") => "bf16-mixed",
                Some("fp32") => "fp32",
                _ => return out.0,
            };
            out.push(Role::Precision, typed.into(), "precision");
        } else if on("fp16") {
            out.push(Role::Precision, "16-mixed".into(), "fp16.enabled");
        } else if on("bf16") {
            out.push(Role::Precision, "bf16-mixed".into(), "bf16.enabled");
        }
        out.0
    }

    /// `NeoXArgs(**config)` raises on a key that is not a field: every unknown top-level key.
    fn known_keys(&self, _root: &Node) -> Option<KnownKeys> {
        Some(KnownKeys { path: String::new(), keys: &KNOWN_KEYS, strict: true, reported_elsewhere: &[] })
    }

    fn renamed_keys(&self) -> &'static [super::Renamed] {
        &RENAMED
    }

    /// NeoX builds a DeepSpeed `PipelineModule(partition_method=pipe_partition_method)`
    /// (`megatron/model/gpt2_model.py`), default `"type:transformer|mlp"`: DeepSpeed balances the
    /// matching layers over the stages (`neox_args.py`, `pipe_partition_method`); the number of
    /// layers need not divide by the pipeline degree.
    fn pipeline_balances_layers(&self, _root: &Node) -> bool {
        true
    }

    /// `from_ymls`: `conf_key.replace("-", "_")` before the keys are matched.
    fn known_key_spelling(&self, key: &str) -> String {
        key.replace('-', "_")
    }

    /// `yaml.load(…, Loader=yaml.FullLoader)`: YAML 1.1 (`True`, `1_000`).
    fn pyyaml(&self) -> bool {
        true
    }

    fn sequence_length_keys(&self) -> &'static [&'static str] {
        &["seq_length", "seq-length"]
    }

    /// A GPT-NeoX run's peak depends on what the memory model does not read: the model split
    /// over pipeline and tensor-parallel GPUs, the fused kernels and attention implementation
    /// (`attention_config`), and a vocabulary padded from the tokenizer the YAML only names.
    fn memory_unmodelled(&self, root: &Node) -> Option<Unmodelled> {
        let keys = keys(root);
        for key in ["pipe_parallel_size", "model_parallel_size"] {
            if let Some(entry) = root.entries()?.iter().find(|e| e.key.replace('-', "_") == key)
                && entry.value.as_f64().is_some_and(|d| d > 1.0)
            {
                return Some(Unmodelled {
                    path: entry.key.clone(),
                    reason: "the model is split over pipeline/tensor-parallel GPUs, which trainlint's memory model does not read yet".to_owned(),
                });
            }
        }
        let anchor = ["num_layers", "hidden_size", "train_micro_batch_size_per_gpu"].into_iter().find(|k| keys.iter().any(|key| key == k))?;
        let path = root.entries()?.iter().find(|e| e.key.replace('-', "_") == anchor)?.key.clone();
        Some(Unmodelled {
            path,
            reason: "a GPT-NeoX model's fused kernels, attention implementation and vocabulary (padded from the tokenizer, not stated in the YAML) set its peak memory, which trainlint's memory model does not read yet".to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use super::super::test_support::{detected, parse};

    #[test]
    fn recognised_before_deepspeed_by_keys_deepspeed_lacks() {
        assert_eq!(detected("{\"pipe_parallel_size\": 4, \"model_parallel_size\": 2, \"train_micro_batch_size_per_gpu\": 4}\n"), "gpt-neox");
        assert_eq!(detected("\"pipe-parallel-size\": 1\n\"pos-emb\": rotary\n"), "gpt-neox");
        assert_eq!(detected("pos_emb: rotary\nrotary_pct: 0.25\nzero_optimization:\n  stage: 1\n"), "gpt-neox");
        // A plain DeepSpeed config stays DeepSpeed's, and one NeoX-looking key is not enough.
        assert_eq!(detected("train_micro_batch_size_per_gpu: 4\nzero_optimization:\n  stage: 1\n"), "deepspeed");
        assert_eq!(detected("train_micro_batch_size_per_gpu: 4\nmodel_parallel_size: 2\n"), "deepspeed");
        // Megatron-LM's flags NeoX shares (microsoft/Megatron-DeepSpeed `examples/pretrain_bert.sh`).
        assert_eq!(detected("num-layers: 24\nmicro-batch-size: 4\nlr-decay-style: linear\ndata-impl: mmap\nmodel-parallel-size: 2\n"), "unknown");
    }

    #[test]
    fn both_spellings_are_bound_and_known() {
        let bindings = GptNeox.bindings(&Manifest::default());
        assert!(bindings.contains(&(Role::PipelineParallel, "pipe-parallel-size".to_owned())));
        assert!(bindings.contains(&(Role::ZeroStage, "zero_optimization.stage".to_owned())));
        assert!(!bindings.iter().any(|(_, k)| k == "zero-optimization.stage"));
        assert_eq!(GptNeox.known_key_spelling("tensorboard-dir"), "tensorboard_dir");
        for key in ["comment", "tensorboard_dir", "pipe_parallel_size", "train_micro_batch_size_per_gpu", "use_comet"] {
            assert!(KNOWN_KEYS.contains(&key), "{key}");
        }
    }

    #[test]
    fn precision_from_precision_or_deepspeed_sections() {
        let derived = |text: &str| GptNeox.derived(&parse(text)).into_iter().map(|d| (d.value, d.path)).collect::<Vec<_>>();
        assert_eq!(derived("fp16:\n  enabled: true\n"), vec![("16-mixed".into(), "fp16.enabled".to_owned())]);
        assert_eq!(derived("precision: bfloat16\nfp16:\n  enabled: true\n"), vec![("bf16-mixed".into(), "precision".to_owned())]);
        assert_eq!(derived("bf16:\n  enabled: true\n"), vec![("bf16-mixed".into(), "bf16.enabled".to_owned())]);
        assert!(derived("fp16:\n  enabled: false\n").is_empty());
    }

    #[test]
    fn memory_is_not_estimated() {
        let split = GptNeox.memory_unmodelled(&parse("\"pipe-parallel-size\": 4\nnum_layers: 44\n")).expect("split");
        assert_eq!(split.path, "pipe-parallel-size");
        let unsplit = GptNeox.memory_unmodelled(&parse("pipe_parallel_size: 1\nnum_layers: 6\n")).expect("a NeoX model");
        assert_eq!(unsplit.path, "num_layers");
        assert_eq!(GptNeox.memory_unmodelled(&parse("data_path: x\n")), None);
    }
}
