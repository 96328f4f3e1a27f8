//! Accelerate's launch config (`accelerate config` writes it:
//! `compute_environment`, `distributed_type`, `num_processes`).

use super::{Doc, Dialect, DerivedRoles, Evidence, Framework, WorldSize};
use crate::load::Node;
use crate::schema::{Manifest, Role};

pub(crate) const ACCELERATE: Dialect = Dialect(&Accelerate);

pub(crate) struct Accelerate;

/// `num_processes` is the whole world (all machines), not the devices of one. The DeepSpeed and
/// FSDP plugins' roles are derived (`derived`): they count only under their `distributed_type`.
const BINDINGS: [(Role, &str); 2] = [(Role::Devices, "num_processes"), (Role::Accumulation, "deepspeed_config.gradient_accumulation_steps")];

/// accelerate's `DistributedType` values.
const DISTRIBUTED_TYPES: [&str; 10] = ["NO", "MULTI_GPU", "MULTI_CPU", "FSDP", "DEEPSPEED", "MEGATRON_LM", "XLA", "TPU", "MULTI_NPU", "MULTI_XPU"];

impl Framework for Accelerate {
    fn name(&self) -> &'static str {
        "accelerate"
    }

    fn title(&self) -> &'static str {
        "accelerate"
    }

    fn doc(&self) -> Doc {
        Doc {
            evidence: "`compute_environment` / `distributed_type`",
            roles: "`num_processes` (the whole world), `mixed_precision`",
            semantics: "",
        }
    }

    fn evidence(&self, cx: &Evidence) -> Option<String> {
        let found = cx.listed(&["compute_environment", "distributed_type"]);
        let typed = cx.root.get("distributed_type").and_then(Node::as_str).is_some_and(|t| DISTRIBUTED_TYPES.contains(&t));
        (!found.is_empty() && (typed || cx.has("num_processes") || cx.has("mixed_precision") || cx.has("machine_rank")))
            .then(|| format!("accelerate launch keys {}", found.join(", ")))
    }

    fn bindings(&self, _manifest: &Manifest) -> Vec<(Role, String)> {
        super::owned(&BINDINGS)
    }

    /// `mixed_precision: bf16 | fp16 | fp8 | no`, and the plugin `distributed_type` selects.
    /// `accelerate launch` exports the plugin's settings to the program (`commands/launch.py`
    /// `prepare_deepspeed_cmd_env`: `ACCELERATE_DEEPSPEED_ZERO_STAGE`,
    /// `ACCELERATE_DEEPSPEED_OFFLOAD_OPTIMIZER_DEVICE`, `…_OFFLOAD_PARAM_DEVICE`;
    /// `prepare_multi_gpu_env`: `FSDP_SHARDING_STRATEGY`, `FSDP_RESHARD_AFTER_FORWARD`,
    /// `FSDP_OFFLOAD_PARAMS`, `FSDP_ACTIVATION_CHECKPOINTING`), and another `distributed_type`
    /// leaves the other plugin's section unread.
    fn derived(&self, root: &Node) -> Vec<super::Derived> {
        let mut out = DerivedRoles::default();
        let on = |path: &str| root.get_dotted(path).is_some_and(|n| n.to_json().as_bool() == Some(true) || n.as_str().is_some_and(|s| s.eq_ignore_ascii_case("true")));
        let off_gpu = |path: &str| root.get_dotted(path).and_then(Node::as_str).is_some_and(|d| d.eq_ignore_ascii_case("cpu") || d.eq_ignore_ascii_case("nvme"));
        match root.get("distributed_type").and_then(Node::as_str) {
            Some("DEEPSPEED") => {
                if let Some(stage) = root.get_dotted("deepspeed_config.zero_stage").filter(|n| n.to_json().is_u64()) {
                    out.push(Role::ZeroStage, stage.to_json(), "deepspeed_config.zero_stage");
                }
                if off_gpu("deepspeed_config.offload_optimizer_device") {
                    out.push(Role::OffloadOptimizer, true.into(), "deepspeed_config.offload_optimizer_device");
                }
                if off_gpu("deepspeed_config.offload_param_device") {
                    out.push(Role::OffloadParams, true.into(), "deepspeed_config.offload_param_device");
                }
            }
            Some("FSDP") => {
                // FSDP1's `fsdp_sharding_strategy` (a name or its 1-based number, `FullyShardedDataParallelPlugin`,
                // default FULL_SHARD); FSDP2's `fsdp_reshard_after_forward` (default true: FULL_SHARD's
                // behaviour; false keeps the gathered parameters, SHARD_GRAD_OP's). SHARD_GRAD_OP shards
                // gradients and optimizer states like ZeRO-2 (PyTorch's `ShardingStrategy` docs).
                let strategy = root.get_dotted("fsdp_config.fsdp_sharding_strategy").map(|n| n.to_json());
                let strategy = strategy.as_ref().map(|v| v.as_str().map(str::to_ascii_uppercase).or_else(|| v.as_u64().map(|n| n.to_string())).unwrap_or_default());
                let reshard = root.get_dotted("fsdp_config.fsdp_reshard_after_forward").map(|n| n.to_json().as_bool() != Some(false));
                let key = if strategy.is_some() { "fsdp_config.fsdp_sharding_strategy" } else if reshard.is_some() { "fsdp_config.fsdp_reshard_after_forward" } else { "distributed_type" };
                match (strategy.as_deref(), reshard) {
                    (Some("SHARD_GRAD_OP" | "2" | "HYBRID_SHARD_ZERO2" | "5"), _) | (None, Some(false)) => out.push(Role::ZeroStage, 2.into(), key),
                    (Some("NO_SHARD" | "3"), _) => {}
                    _ => out.push(Role::Fsdp, true.into(), key),
                }
                if on("fsdp_config.fsdp_offload_params") {
                    out.push(Role::OffloadParams, true.into(), "fsdp_config.fsdp_offload_params");
                }
                if on("fsdp_config.fsdp_activation_checkpointing") {
                    out.push(Role::ActivationCheckpointing, "full".into(), "fsdp_config.fsdp_activation_checkpointing");
                }
            }
            _ => {}
        }
        if let Some(mixed) = root.get("mixed_precision").and_then(Node::as_str) {
            let value = match mixed {
                "bf16" => "bf16-mixed",
                "fp16" => "16-mixed",
                "fp8" => "fp8-mixed",
                _ => "32-true",
            };
            out.push(Role::Precision, value.into(), "mixed_precision");
        }
        out.0
    }

    /// `deepspeed_config.deepspeed_config_file`: a DeepSpeed JSON the plugin reads instead of the
    /// `deepspeed_config` keys (accelerate `DeepSpeedPlugin.hf_ds_config`).
    fn deepspeed_file_key(&self) -> Option<&'static str> {
        Some("deepspeed_config.deepspeed_config_file")
    }

    fn world_size(&self) -> WorldSize {
        WorldSize::Devices
    }
}
