//! OpenRLHF's training command lines (`deepspeed --module openrlhf.cli.train_sft --pretrain …
//! --micro_train_batch_size 2 --train_batch_size 256 --zero_stage 2 --bf16 …`), read by the
//! shell reader into a tree of flags (`micro_train_batch_size: 2`, `bf16: true`, …).
//!
//! Sources (OpenRLHF/OpenRLHF; the flat flags as of commit 14fe44c6, 2025-05-19, the layout of
//! every release from 2023 until the dotted hierarchy of commit ed62d0e2, 2026-04-19, whose
//! names are read too, as of commit 3c3be623):
//!
//! - `openrlhf/cli/train_sft.py`, `train_dpo.py`, `train_rm.py`, `train_kto.py`,
//!   `train_ppo_ray.py` (argparse): `--pretrain`, `--micro_train_batch_size` ("batch size per
//!   GPU"; default 8 for SFT and DPO, 1 for RM, 4 for PPO), `--train_batch_size` ("Global
//!   training batch size", default 128 in every one of them), `--zero_stage` (default 2 in every
//!   one), `--max_len`, `--bf16`, `--flash_attn`, `--gradient_checkpointing`, `--adam_offload`,
//!   `--lora_rank` (default 0: no LoRA), `--target_modules` (default `all-linear`),
//!   `--load_in_4bit`, `--ds_tensor_parallel_size`, `--ring_attn_size`.
//! - `openrlhf/utils/deepspeed/deepspeed.py` `DeepspeedStrategy`: `setup_distributed` computes
//!   `accumulated_gradient = train_batch_size * ring_attn_size * ds_tensor_parallel_size //
//!   micro_train_batch_size // world_size` (floor division) and `get_ds_train_config` hands
//!   DeepSpeed `train_micro_batch_size_per_gpu = micro_train_batch_size` and `train_batch_size =
//!   train_batch_size * ring_attn_size * ds_tensor_parallel_size`; DeepSpeed then derives its own
//!   accumulation by the same floor division and asserts `train_batch_size == micro × accumulation
//!   × world` (`deepspeed/runtime/config.py` `_batch_assertion`, FACTS.md §1): a global batch the
//!   micro batch × world does not divide stops the run at start-up.
//! - `openrlhf/utils/deepspeed/deepspeed_utils.py` `get_train_ds_config`: `zero_optimization.stage
//!   = zero_stage`, `offload_optimizer.device = "cpu" if adam_offload`, `bf16.enabled = bf16`
//!   (DeepSpeed's bf16 mode: bf16 weights, fp32 master weights in the optimizer).
//! - `openrlhf/models/actor.py` `Actor`: `attn_implementation = "flash_attention_2" if
//!   use_flash_attention_2 else "eager"` (from commit 84917baf, 2023-12, until `--flash_attn` gave
//!   way to `--attn_implementation` in commit c250c21a, 2025-08); `load_in_4bit` loads the base
//!   with bitsandbytes 4-bit; `lora_rank > 0` wraps it in a PEFT LoRA of `target_modules`.
//! - `openrlhf/cli/train_dpo.py`: a reference model (`ref_pretrain`, else `pretrain`;
//!   `--ref_offload` offloads it), `--beta` (default 0.1), `--ipo`; the data are chosen/rejected
//!   pairs (`--chosen_key`, `--rejected_key`). `train_kto.py` has `--beta` with
//!   `--desirable_loss_weight`; `train_rm.py` pairs without `--beta`.
//! - `openrlhf/cli/train_ppo_ray.py`: the actor is `PPORayActorGroup(actor_num_nodes,
//!   actor_num_gpus_per_node, …)`, whose DeepSpeed world is `num_nodes * num_gpus_per_node`
//!   (`openrlhf/trainer/ray/launcher.py`); the critic, reference and reward models have their own
//!   groups, placed by Ray (colocated or not), and vLLM engines generate the rollouts.

use super::{BatchSemantics, DerivedRoles, Dialect, Doc, Evidence, Framework, Unmodelled};
use crate::load::Node;
use crate::schema::{Manifest, Role};

pub(crate) const OPENRLHF: Dialect = Dialect(&OpenRlhf);

pub(crate) struct OpenRlhf;

/// Role → flag, flat layout first, then the dotted hierarchy of commit ed62d0e2
/// (`--model.model_name_or_path`, `--train.micro_batch_size`, `--data.max_len`, `--ds.zero_stage`,
/// `--adam.lr`, `--ds.tensor_parallel_size`, `--ds.ring_attn_size`; `openrlhf/cli/train_sft.py`).
/// The global batch is derived (`derived`): its default is read only beside a micro batch.
const BINDINGS: [(Role, &str); 15] = [
    (Role::Model, "pretrain"),
    (Role::Model, "model.model_name_or_path"),
    (Role::MicroBatch, "micro_train_batch_size"),
    (Role::MicroBatch, "train.micro_batch_size"),
    (Role::SequenceLength, "max_len"),
    (Role::SequenceLength, "data.max_len"),
    (Role::ZeroStage, "zero_stage"),
    (Role::ZeroStage, "ds.zero_stage"),
    // `--learning_rate` (SFT, DPO, RM), `--actor_learning_rate` (PPO), `--adam.lr` (dotted).
    (Role::LearningRate, "learning_rate"),
    (Role::LearningRate, "actor_learning_rate"),
    (Role::LearningRate, "adam.lr"),
    // DeepSpeed AutoTP (`--ds_tensor_parallel_size`) and ring attention (`--ring_attn_size`)
    // divide the world before the data-parallel split (`setup_distributed`'s device mesh).
    (Role::TensorParallel, "ds_tensor_parallel_size"),
    (Role::TensorParallel, "ds.tensor_parallel_size"),
    (Role::ContextParallel, "ring_attn_size"),
    (Role::ContextParallel, "ds.ring_attn_size"),
];

/// `--train_batch_size` default, the same in `train_sft.py`, `train_dpo.py`, `train_rm.py` and
/// `train_ppo_ray.py` (and `--train.batch_size` in the dotted layout).
const DEFAULT_TRAIN_BATCH_SIZE: i64 = 128;

/// `--zero_stage` default, the same in every `openrlhf/cli/train_*.py`.
const DEFAULT_ZERO_STAGE: i64 = 2;

/// What DeepSpeed does with OpenRLHF's global batch when the division is not whole (BAT003's note).
const INDIVISIBLE: &str = "OpenRLHF hands DeepSpeed train_micro_batch_size_per_gpu = micro_train_batch_size and train_batch_size; \
    DeepSpeed derives the accumulation as train_batch_size ÷ micro ÷ world by floor division and asserts that the product is the \
    global batch at start-up (OpenRLHF openrlhf/utils/deepspeed/deepspeed.py get_ds_train_config; DeepSpeed runtime/config.py \
    _batch_assertion)";

/// The flags that name an OpenRLHF run in its flat layout: the model (`--pretrain`) and the
/// per-GPU batch (`--micro_train_batch_size`), names no other framework's flags use.
const PRIMARY: [&str; 2] = ["micro_train_batch_size", "pretrain"];

/// Flags OpenRLHF's trainers have beside them (argparse of `openrlhf/cli/train_*.py`).
const SECONDARY: [&str; 11] = [
    "train_batch_size",
    "zero_stage",
    "max_len",
    "micro_rollout_batch_size",
    "rollout_batch_size",
    "prompt_max_len",
    "actor_num_nodes",
    "actor_num_gpus_per_node",
    "flash_attn",
    "adam_offload",
    "save_path",
];

/// Flags only OpenRLHF's PPO has (`openrlhf/cli/train_ppo_ray.py`, and `train_ppo.py` until
/// commit 15d31511): rollouts, a critic, a reward model, the KL penalty, Ray's model groups and
/// vLLM engines.
const PPO: [&str; 11] = [
    "micro_rollout_batch_size",
    "rollout_batch_size",
    "reward_pretrain",
    "critic_pretrain",
    "remote_rm_url",
    "init_kl_coef",
    "actor_num_nodes",
    "actor_num_gpus_per_node",
    "ref_num_nodes",
    "critic_num_nodes",
    "vllm_num_engines",
];

/// Where a default the command line does not write is shown: the first flag of the run it has.
fn anchor(root: &Node) -> &'static str {
    ["micro_train_batch_size", "pretrain", "train_batch_size", "zero_stage", "train.micro_batch_size", "model.model_name_or_path", "ds.zero_stage"]
        .into_iter()
        .find(|k| root.get_dotted(k).is_some())
        .unwrap_or("pretrain")
}

/// The dotted layout (commit ed62d0e2): a `ds` mapping of DeepSpeed settings and a `train`
/// mapping of batch sizes (`--ds.zero_stage 2 --train.micro_batch_size 2`).
fn dotted(root: &Node) -> bool {
    let ds = ["ds.zero_stage", "ds.param_dtype", "ds.adam_offload", "ds.attn_implementation", "ds.packing_samples"].iter().any(|k| root.get_dotted(k).is_some());
    ds && (root.get_dotted("train.micro_batch_size").is_some() || root.get_dotted("train.batch_size").is_some())
}

fn evidence(root: &Node) -> Option<String> {
    let has = |k: &str| root.get(k).is_some();
    let primary: Vec<&str> = PRIMARY.iter().copied().filter(|k| has(k)).collect();
    let secondary: Vec<&str> = SECONDARY.iter().copied().filter(|k| has(k)).collect();
    let quoted = |keys: &[&str]| keys.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ");
    if !primary.is_empty() && (primary.len() == 2 || !secondary.is_empty()) {
        let with = if secondary.is_empty() { String::new() } else { format!(" with {}", quoted(&secondary)) };
        return Some(format!("OpenRLHF flags {}{with}", quoted(&primary)));
    }
    dotted(root).then(|| "OpenRLHF's dotted flags (`ds.*` DeepSpeed settings with `train.micro_batch_size` / `train.batch_size`)".to_owned())
}

/// The first of `paths` the tree has.
fn first<'a>(root: &'a Node, paths: &[&'static str]) -> Option<(&'static str, &'a Node)> {
    paths.iter().find_map(|p| root.get_dotted(p).map(|n| (*p, n)))
}

impl Framework for OpenRlhf {
    fn name(&self) -> &'static str {
        "openrlhf"
    }

    fn title(&self) -> &'static str {
        "OpenRLHF"
    }

    fn doc(&self) -> Doc {
        Doc {
            evidence: "a launch line's `--micro_train_batch_size` or `--pretrain` with another OpenRLHF flag (`--train_batch_size`, `--zero_stage`, `--max_len`, `--micro_rollout_batch_size`, …); the dotted `--ds.*` with `--train.micro_batch_size`",
            roles: "`pretrain`, `micro_train_batch_size`, `train_batch_size` (default 128), `max_len`, `zero_stage` (default 2), `learning_rate`, `ds_tensor_parallel_size`, `ring_attn_size`; `bf16`, `flash_attn` (else eager), `gradient_checkpointing`, `adam_offload`, `lora_rank` > 0 with `target_modules`, `load_in_4bit`; `beta`/`ipo`/`ref_offload` (DPO), `desirable_loss_weight` (KTO); Ray's `actor_num_nodes` × `actor_num_gpus_per_node`",
            semantics: "accumulation = train_batch_size ÷ micro ÷ world by floor division, and DeepSpeed asserts the product is the global batch; world from the launcher, or the actor's Ray group when both its flags are literal; PPO's several models are not estimated",
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
        let on = |path: &str| super::truthy(root, path);
        let at = anchor(root);
        // The global batch. Without a micro batch flag the module's own micro default applies
        // (8, 8, 1, 4: module doc), which the flags do not say: nothing is derived then.
        if first(root, &["micro_train_batch_size", "train.micro_batch_size"]).is_some() {
            match first(root, &["train_batch_size", "train.batch_size"]) {
                Some((path, node)) => out.push(Role::GlobalBatch, node.to_json(), path),
                None => out.push_default(Role::GlobalBatch, DEFAULT_TRAIN_BATCH_SIZE.into(), "train_batch_size", at),
            }
        }
        if first(root, &["zero_stage", "ds.zero_stage"]).is_none() {
            out.push_default(Role::ZeroStage, DEFAULT_ZERO_STAGE.into(), "zero_stage", at);
        }
        // `--bf16` is DeepSpeed's `bf16.enabled` (`get_train_ds_config`): bf16 weights with fp32
        // masters, as the DeepSpeed dialect reads `bf16.enabled`. `--param_dtype` / `--ds.param_dtype`
        // (bf16 or fp16, default bf16; commit c1ba971c and the dotted layout) replace it.
        if on("bf16") {
            out.push(Role::Precision, "bf16-mixed".into(), "bf16");
        } else if let Some((path, dtype)) = first(root, &["param_dtype", "ds.param_dtype"]) {
            match dtype.as_str() {
                Some("bf16") => out.push(Role::Precision, "bf16-mixed".into(), path),
                Some("fp16") => out.push(Role::Precision, "16-mixed".into(), path),
                _ => {}
            }
        } else if dotted(root) {
            out.push_default(Role::Precision, "bf16-mixed".into(), "ds.param_dtype", at);
        }
        // `--flash_attn`: FlashAttention 2, else eager attention (`Actor`, module doc);
        // `--attn_implementation` / `--ds.attn_implementation` (default `flash_attention_2`) later.
        if on("flash_attn") {
            out.push(Role::Attention, "flash".into(), "flash_attn");
        } else if let Some((path, implementation)) = first(root, &["attn_implementation", "ds.attn_implementation"]).filter(|(_, n)| n.as_str().is_some()) {
            out.push(Role::Attention, implementation.to_json(), path);
        } else if dotted(root) {
            out.push_default(Role::Attention, "flash_attention_2".into(), "ds.attn_implementation", at);
        } else {
            out.push_default(Role::Attention, "eager".into(), "flash_attn", at);
        }
        // `--gradient_checkpointing` (`model.gradient_checkpointing_enable()` in every trainer);
        // dotted: `--model.gradient_checkpointing_enable`, PPO's `--actor.gradient_checkpointing_enable`.
        if let Some(path) = ["gradient_checkpointing", "model.gradient_checkpointing_enable", "actor.gradient_checkpointing_enable"].into_iter().find(|p| on(p)) {
            out.push(Role::ActivationCheckpointing, "full".into(), path);
        }
        // `--adam_offload`: `offload_optimizer.device = "cpu"` and DeepSpeedCPUAdam (`create_optimizer`).
        if let Some(path) = ["adam_offload", "ds.adam_offload"].into_iter().find(|p| on(p)) {
            out.push(Role::OffloadOptimizer, "cpu".into(), path);
        }
        // `--lora_rank` > 0: a PEFT LoRA of `--target_modules` (default `all-linear`).
        if let Some((path, rank)) = first(root, &["lora_rank", "ds.lora.rank"]).filter(|(_, n)| n.as_i64().is_some_and(|r| r > 0)) {
            out.push(Role::Adapter, "lora".into(), path);
            out.push(Role::LoraRank, rank.to_json(), path);
            match first(root, &["target_modules", "ds.lora.target_modules"]) {
                Some((targets_path, targets)) => out.push(Role::LoraTargets, targets.to_json(), targets_path),
                None => out.push_default(Role::LoraTargets, "all-linear".into(), "target_modules", path),
            }
        }
        // `--load_in_4bit`: bitsandbytes 4-bit base weights (`Actor`).
        if let Some(path) = ["load_in_4bit", "ds.load_in_4bit"].into_iter().find(|p| on(p)) {
            out.push(Role::BaseWeights, "int4".into(), path);
        }
        // Preference trainers (module doc): KTO's `--desirable_loss_weight`; DPO's `--ipo`, `--beta`,
        // `--ref_offload`, `--ref_pretrain`; RM's chosen/rejected keys without `--beta`.
        if let Some(path) = ["desirable_loss_weight", "undesirable_loss_weight"].into_iter().find(|p| root.get(p).is_some()) {
            out.push(Role::Preference, "kto".into(), path);
        } else if on("ipo") {
            out.push(Role::Preference, "ipo".into(), "ipo");
        } else if let Some(path) = ["beta", "ref_offload", "ref_pretrain"].into_iter().find(|p| root.get(p).is_some()) {
            out.push(Role::Preference, "dpo".into(), path);
        } else if root.get("chosen_key").is_some() && root.get("rejected_key").is_some() && !PPO.iter().any(|k| root.get(k).is_some()) {
            out.push(Role::Preference, "reward".into(), "chosen_key");
        }
        // Ray: the actor's DeepSpeed world is actor_num_nodes × actor_num_gpus_per_node
        // (`PPORayActorGroup`), read only when both are literal on the line: a flag whose value
        // is known only at run time is left out of the tree, and its default would then be a guess.
        for (nodes, gpus) in [("actor_num_nodes", "actor_num_gpus_per_node"), ("actor.num_nodes", "actor.num_gpus_per_node")] {
            if let (Some(n), Some(g)) = (root.get_dotted(nodes), root.get_dotted(gpus))
                && n.as_i64().is_some()
                && g.as_i64().is_some()
            {
                out.push(Role::Devices, g.to_json(), gpus);
                out.push(Role::Nodes, n.to_json(), nodes);
                break;
            }
        }
        out.0
    }

    /// The accumulation is derived from the global batch by floor division and DeepSpeed asserts
    /// the product (module doc): a remainder is an error, not a smaller batch.
    fn batch(&self) -> BatchSemantics {
        BatchSemantics { indivisible: Some(INDIVISIBLE), ..BatchSemantics::default() }
    }

    /// PPO trains an actor and a critic and runs a reference and a reward model (and vLLM
    /// engines under Ray), on the same GPUs or on Ray placement groups (module doc): the memory
    /// model prices one model.
    fn memory_unmodelled(&self, root: &Node) -> Option<Unmodelled> {
        let path = PPO.iter().find(|k| root.get(k).is_some())?;
        Some(Unmodelled {
            path: (*path).to_owned(),
            reason: "an OpenRLHF PPO run trains an actor and a critic and keeps a reference and a reward model (and vLLM engines under Ray) on its GPUs, which trainlint does not model yet".to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialects::detect_by_keys;

    fn tree(line: &str) -> Node {
        crate::load::shell::parse(line, None).expect("a script")
    }

    fn derived(line: &str) -> Vec<(Role, serde_json::Value, String, Option<String>)> {
        OpenRlhf.derived(&tree(line)).into_iter().map(|d| (d.role, d.value, d.path, d.anchor)).collect()
    }

    fn role(line: &str, role: Role) -> Option<serde_json::Value> {
        derived(line).into_iter().find(|d| d.0 == role).map(|d| d.1)
    }

    const SFT: &str = "deepspeed --module openrlhf.cli.train_sft --max_len 2048 --dataset Open-Orca/OpenOrca --train_batch_size 256 \
        --micro_train_batch_size 2 --max_samples 500000 --pretrain meta-llama/Meta-Llama-3-8B --save_path ./ckpt --zero_stage 2 \
        --max_epochs 1 --bf16 --flash_attn --learning_rate 5e-6 --gradient_checkpointing --adam_offload\n";

    #[test]
    fn launch_lines_are_openrlhf_and_deepspeed_files_stay_deepspeed() {
        let (dialect, why) = detect_by_keys(&tree(SFT)).expect("detected");
        assert_eq!(dialect.name(), "openrlhf", "{why}");
        assert!(why.starts_with("OpenRLHF flags `micro_train_batch_size`, `pretrain` with `train_batch_size`"), "{why}");
        let ppo_ray = "python3 -m openrlhf.cli.train_ppo_ray --actor_num_nodes 1 --actor_num_gpus_per_node 8 --pretrain m --micro_rollout_batch_size 8\n";
        assert_eq!(detect_by_keys(&tree(ppo_ray)).unwrap().0.name(), "openrlhf");
        let dotted = "deepspeed --module openrlhf.cli.train_sft --train.batch_size 256 --train.micro_batch_size 2 --ds.zero_stage 2\n";
        assert_eq!(detect_by_keys(&tree(dotted)).unwrap().0.name(), "openrlhf");
        // DeepSpeed JSON (its `train_batch_size` with no OpenRLHF flag) stays DeepSpeed.
        let json = crate::load::json::parse("{\"train_batch_size\": 256, \"train_micro_batch_size_per_gpu\": 2, \"zero_optimization\": {\"stage\": 2}}")
            .expect("JSON")
            .root;
        assert_eq!(detect_by_keys(&json).unwrap().0.name(), "deepspeed");
        // `pretrain` alone, or LitGPT's `--train.micro_batch_size` without `ds.*`, is not OpenRLHF.
        assert_eq!(detect_by_keys(&tree("python train.py --pretrain x\n")).map(|d| d.0.name()), None);
        assert_ne!(detect_by_keys(&tree("litgpt finetune --train.micro_batch_size 2 --train.global_batch_size 8\n")).map(|d| d.0.name()), Some("openrlhf"));
    }

    #[test]
    fn switches_and_defaults() {
        assert_eq!(role(SFT, Role::GlobalBatch), Some(256.into()));
        assert_eq!(role(SFT, Role::Precision), Some("bf16-mixed".into()));
        assert_eq!(role(SFT, Role::Attention), Some("flash".into()));
        assert_eq!(role(SFT, Role::ActivationCheckpointing), Some("full".into()));
        assert_eq!(role(SFT, Role::OffloadOptimizer), Some("cpu".into()));
        assert_eq!(role(SFT, Role::ZeroStage), None, "written: bound, not derived");
        assert_eq!(role(SFT, Role::Adapter), None);
        // Defaults: ZeRO 2, global batch 128 beside a micro batch, eager attention without --flash_attn.
        let bare = "deepspeed --module openrlhf.cli.train_sft --pretrain m --micro_train_batch_size 4\n";
        let found = derived(bare);
        assert!(found.contains(&(Role::ZeroStage, 2.into(), "zero_stage".into(), Some("micro_train_batch_size".into()))), "{found:?}");
        assert!(found.contains(&(Role::GlobalBatch, 128.into(), "train_batch_size".into(), Some("micro_train_batch_size".into()))), "{found:?}");
        assert_eq!(role(bare, Role::Attention), Some("eager".into()));
        // No micro batch flag: the module's micro default is unknown, so no global batch either.
        assert_eq!(role("deepspeed --module openrlhf.cli.train_sft --pretrain m --train_batch_size 64\n", Role::GlobalBatch), None);
        // LoRA and 4-bit.
        let lora = "deepspeed --module openrlhf.cli.train_sft --pretrain m --micro_train_batch_size 1 --lora_rank 64 --load_in_4bit\n";
        assert_eq!(role(lora, Role::Adapter), Some("lora".into()));
        assert_eq!(role(lora, Role::LoraRank), Some(64.into()));
        assert_eq!(role(lora, Role::LoraTargets), Some("all-linear".into()));
        assert_eq!(role(lora, Role::BaseWeights), Some("int4".into()));
        assert_eq!(role("x --pretrain m --micro_train_batch_size 1 --lora_rank 0\n", Role::Adapter), None);
        // The dotted layout's defaults: bf16 and FlashAttention 2.
        let dotted = "deepspeed --module openrlhf.cli.train_sft --train.micro_batch_size 2 --ds.zero_stage 3 --model.gradient_checkpointing_enable\n";
        assert_eq!(role(dotted, Role::Precision), Some("bf16-mixed".into()));
        assert_eq!(role(dotted, Role::Attention), Some("flash_attention_2".into()));
        assert_eq!(role(dotted, Role::ActivationCheckpointing), Some("full".into()));
        assert_eq!(role(dotted, Role::GlobalBatch), Some(128.into()));
    }

    #[test]
    fn preference_and_ray_placement() {
        let dpo = "deepspeed --module openrlhf.cli.train_dpo --pretrain m --micro_train_batch_size 1 --beta 0.1 --chosen_key c --rejected_key r\n";
        assert_eq!(role(dpo, Role::Preference), Some("dpo".into()));
        assert_eq!(role("x --pretrain m --micro_train_batch_size 1 --ipo\n", Role::Preference), Some("ipo".into()));
        assert_eq!(role("x --pretrain m --micro_train_batch_size 1 --beta 0.1 --desirable_loss_weight 1\n", Role::Preference), Some("kto".into()));
        assert_eq!(role("x --pretrain m --micro_train_batch_size 1 --chosen_key c --rejected_key r\n", Role::Preference), Some("reward".into()));
        assert_eq!(role(SFT, Role::Preference), None);
        let ray = "python3 -m openrlhf.cli.train_ppo_ray --actor_num_nodes 4 --actor_num_gpus_per_node 8 --pretrain m --micro_train_batch_size 1\n";
        assert_eq!((role(ray, Role::Devices), role(ray, Role::Nodes)), (Some(8.into()), Some(4.into())));
        // A flag known only at run time: no placement (the launcher's world, or --world-size).
        let unknown = "python3 -m openrlhf.cli.train_ppo_ray --actor_num_nodes $NODES --actor_num_gpus_per_node 8 --pretrain m\n";
        assert_eq!(role(unknown, Role::Devices), None);
        assert_eq!(OpenRlhf.memory_unmodelled(&tree(ray)).map(|u| u.path), Some("actor_num_nodes".to_owned()));
        let ppo = "deepspeed --module openrlhf.cli.train_ppo --pretrain m --reward_pretrain r --micro_rollout_batch_size 4\n";
        assert_eq!(OpenRlhf.memory_unmodelled(&tree(ppo)).map(|u| u.path), Some("micro_rollout_batch_size".to_owned()));
        assert!(OpenRlhf.memory_unmodelled(&tree(SFT)).is_none());
    }
}
