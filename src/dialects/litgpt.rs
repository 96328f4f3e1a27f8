//! litgpt (Lightning-AI/litgpt): the YAML files its `litgpt finetune_lora`,
//! `finetune_full` and `pretrain` commands read with `--config` (jsonargparse,
//! `litgpt/utils.py` `CLI`), laid out in its repository as
//! `config_hub/finetune/<model>/{lora,qlora,full}.yaml` and
//! `config_hub/pretrain/*.yaml`. The top-level keys are the arguments of each
//! script's `setup(...)`; `train:` is `litgpt.args.TrainArgs`.
//!
//! Sources (repository Lightning-AI/litgpt, commit in parentheses):
//! `litgpt/finetune/lora.py` (c16c72c0) `setup`: `checkpoint_dir`, `precision`,
//! `quantize`, `devices`, `num_nodes`, `lora_r` … `lora_head`, `train`,
//! `optimizer`; `litgpt/pretrain.py` (e570612c) `setup`: `model_name`,
//! `model_config`, `devices` (default `"auto"`), `num_nodes`, `train`,
//! `optimizer`; `litgpt/args.py` (02f2fca4) `TrainArgs`; `litgpt/utils.py`
//! (d49df208) `parse_devices`, `instantiate_bnb_optimizer`; `litgpt/lora.py`
//! (a2bc1403 / 01e39f50) which linear layers each `lora_*` switch adapts.

use super::{BatchSemantics, Dialect, DerivedRoles, Doc, Evidence, Framework, KnownKeys, WorldSize};
use crate::load::{Node, Value};
use crate::schema::{Manifest, Role};

pub(crate) const LITGPT: Dialect = Dialect(&Litgpt);

pub(crate) struct Litgpt;

/// - `checkpoint_dir`: the base model's folder, `checkpoints/<org>/<name>` as `litgpt download`
///   writes it (`litgpt/utils.py` `auto_download_checkpoint`, `extend_checkpoint_dir`); the
///   catalog finds `<org>/<name>` at the end of the path (`crate::model::lookup`).
/// - `train.micro_batch_size`: "Number of samples per data-parallel rank"; `train.global_batch_size`:
///   "Number of samples between optimizer steps across data-parallel ranks" (`litgpt/args.py` `TrainArgs`).
/// - `train.max_seq_length`: "Limits the length of samples" (`TrainArgs`); finetune scripts cut
///   each sample to it (`finetune/lora.py` `fit`: `model.max_seq_length = min(longest, max_seq_length)`).
/// - `devices`, `num_nodes`: `L.Fabric(devices=…, num_nodes=…)` (`finetune/lora.py`, `pretrain.py` `setup`).
/// - `precision`: Fabric's precision string (`bf16-true`, `bf16-mixed`, `16-mixed`, `32-true`, …),
///   passed to `L.Fabric(precision=…)`; the typed `Precision` reads Lightning's spellings.
/// - `optimizer.init_args.lr` (`optimizer: {class_path, init_args}`, `utils.py` `instantiate_torch_optimizer`);
///   `train.learning_rate` in configs written for releases whose `TrainArgs` had it (`config_hub/pretrain/tinyllama.yaml`);
///   `optim.learning_rate` / `optim.optimizer` in the GaLore configs (`config_hub/finetune/tiny-llama/galore.yaml`, ee5f10fc:
///   "Possible choices: "adamw", "galore_adamw", "galore_adamw_8bit"").
/// - `lora_r`: "The LoRA rank" (`finetune/lora.py` `setup`, default 8).
const BINDINGS: [(Role, &str); 11] = [
    (Role::Model, "checkpoint_dir"),
    (Role::MicroBatch, "train.micro_batch_size"),
    (Role::GlobalBatch, "train.global_batch_size"),
    (Role::SequenceLength, "train.max_seq_length"),
    (Role::Devices, "devices"),
    (Role::Nodes, "num_nodes"),
    (Role::Precision, "precision"),
    (Role::LearningRate, "optimizer.init_args.lr"),
    (Role::LearningRate, "train.learning_rate"),
    (Role::LearningRate, "optim.learning_rate"),
    (Role::LoraRank, "lora_r"),
];

/// `finetune/lora.py` `setup` switches and their defaults, with the canonical module
/// names each adapts (`litgpt/lora.py`): `lora_query`/`lora_key`/`lora_value` enable the
/// three parts of the fused `LoRAQKVLinear` (`enable_lora=(query, key, value)`);
/// `lora_projection` the attention output `proj`; `lora_mlp` every linear of the MLP
/// (`LLaMAMLP` `fc_1`, `fc_2`, `proj` = gate, up, down; `GptNeoxMLP` `fc`, `proj` = up,
/// down: `gate` is dropped when the catalog says the model's MLP is plain); `lora_head` the `lm_head`.
const LORA_SWITCHES: [(&str, bool, &[&str]); 6] = [
    ("lora_query", true, &["q"]),
    ("lora_key", false, &["k"]),
    ("lora_value", true, &["v"]),
    ("lora_projection", false, &["o"]),
    ("lora_mlp", false, &["gate", "up", "down"]),
    ("lora_head", false, &["lm_head"]),
];

/// The arguments of `finetune/lora.py`, `finetune/full.py` and `pretrain.py` `setup`
/// (SCH003 reports near misses: jsonargparse rejects an unknown key, but which keys
/// exist depends on the script the file is given to).
const TOP_KEYS: [&str; 27] = [
    "checkpoint_dir",
    "out_dir",
    "precision",
    "quantize",
    "devices",
    "num_nodes",
    "resume",
    "lora_r",
    "lora_alpha",
    "lora_dropout",
    "lora_query",
    "lora_key",
    "lora_value",
    "lora_projection",
    "lora_mlp",
    "lora_head",
    "data",
    "train",
    "eval",
    "optimizer",
    "optim",
    "logger_name",
    "seed",
    "access_token",
    "model_name",
    "model_config",
    "tokenizer_dir",
];

/// `quantize` values (`finetune/lora.py` `setup`: `Literal["bnb.nf4", "bnb.nf4-dq", "bnb.fp4",
/// "bnb.fp4-dq", "bnb.int8-training"]`, passed to `BitsandbytesPrecision(quantize[4:], dtype)`):
/// the stored width of the frozen base's linear weights; `-dq` is double quantization
/// (Lightning `fabric/plugins/precision/bitsandbytes.py`: `_NF4DQLinear` / `_FP4DQLinear` are
/// `Linear4bit(..., compress_statistics=True)`, bitsandbytes' double quantization).
fn quantization(value: &str) -> Option<&'static str> {
    match value {
        "bnb.nf4" | "bnb.fp4" => Some("int4"),
        "bnb.nf4-dq" | "bnb.fp4-dq" => Some("int4-double-quant"),
        "bnb.int8-training" | "bnb.int8" => Some("int8"),
        _ => None,
    }
}

fn switch(root: &Node, key: &str, default: bool) -> bool {
    match root.get(key).map(|n| &n.value) {
        Some(Value::Bool(on)) => *on,
        _ => default,
    }
}

/// The first top-level key of `keys` the file has.
fn first_present<'a>(root: &Node, keys: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    keys.into_iter().find(|k| root.get(k).is_some())
}

impl Framework for Litgpt {
    /// `train.max_seq_length` truncates; litgpt's SFT collate pads each batch to its longest
    /// sample (litgpt `data/base.py` `get_sft_collate_fn` → `_sft_collate_fn`: `max(len(s) …)`).
    fn sequence_cap(&self, root: &Node) -> Option<String> {
        root.get_dotted("train.max_seq_length")
            .filter(|n| n.value != crate::load::Value::Null)
            .map(|_| "`train.max_seq_length` truncates longer samples and each batch is padded to its longest".to_owned())
    }

    fn name(&self) -> &'static str {
        "litgpt"
    }

    fn title(&self) -> &'static str {
        "litgpt"
    }

    fn doc(&self) -> Doc {
        Doc {
            evidence: "`checkpoint_dir` with `train.global_batch_size`/`train.micro_batch_size` or `lora_query`…`lora_head`; `model_name`/`model_config`/`tokenizer_dir` with both batch keys (pretrain); or a file under `config_hub/finetune/<model>/` or `config_hub/pretrain/`",
            roles: "`checkpoint_dir` / `model_name` (model), `train.micro_batch_size`, `train.global_batch_size`, `train.max_seq_length`, `devices`, `num_nodes`, `precision`, `optimizer` (name or `class_path`; `PagedAdamW` when quantized), `lora_r`; `lora_query`…`lora_head` → adapter and target modules, `quantize: bnb.*` → QLoRA base; attention is SDPA (eager for Gemma 2's softcapping); the head is untied (litgpt's own `lm_head`)",
            semantics: "accumulation = ⌊⌊global ÷ (devices × num_nodes)⌋ ÷ micro⌋: a remainder trains a smaller batch (BAT008), 0 refuses to start (BAT003); `devices: auto` is every visible GPU (`--world-size`); a project pinned below litgpt 0.5.8 gets ⌊⌊global ÷ devices⌋ ÷ micro⌋, that release's division (each node trains the global batch)",
        }
    }

    fn evidence(&self, cx: &Evidence) -> Option<String> {
        let train = cx.root.get("train");
        let has_train = |key: &str| train.and_then(|t| t.get(key)).is_some();
        let lora = cx.listed(&["lora_query", "lora_key", "lora_value", "lora_projection", "lora_mlp", "lora_head"]);
        if cx.has("checkpoint_dir") && (has_train("global_batch_size") || has_train("micro_batch_size") || !lora.is_empty()) {
            return Some("`checkpoint_dir` with litgpt's `train.global_batch_size`/`micro_batch_size` or `lora_*` switches (finetune)".to_owned());
        }
        let pretrain = cx.listed(&["model_name", "model_config", "tokenizer_dir"]);
        if !pretrain.is_empty() && has_train("global_batch_size") && has_train("micro_batch_size") {
            return Some(format!("{} with litgpt's `train.global_batch_size` and `train.micro_batch_size` (pretrain)", pretrain.join(", ")));
        }
        (cx.has("lora_r") && lora.len() >= 2).then(|| format!("`lora_r` with litgpt's switches {}", lora.join(", ")))
    }

    /// litgpt's repository layout: `config_hub/finetune/<model>/<method>.yaml`, `config_hub/pretrain/<name>.yaml`.
    fn layout_evidence(&self, cx: &Evidence) -> Option<String> {
        let path = cx.path?;
        let parts: Vec<&str> = path.iter().filter_map(|p| p.to_str()).collect();
        let yaml = parts.last().is_some_and(|f| f.ends_with(".yaml") || f.ends_with(".yml"));
        let hub = parts.iter().rposition(|p| *p == "config_hub")?;
        let layout = match parts.get(hub + 1..)? {
            ["finetune", _model, _file] => "config_hub/finetune/<model>/",
            ["pretrain", _file] => "config_hub/pretrain/",
            _ => return None,
        };
        yaml.then(|| format!("a file under litgpt's `{layout}`"))
    }

    fn bindings(&self, _manifest: &Manifest) -> Vec<(Role, String)> {
        super::owned(&BINDINGS)
    }

    fn derived(&self, root: &Node) -> Vec<super::Derived> {
        let mut out = DerivedRoles::default();
        // pretrain.py: `model_name` names a `litgpt/config.py` configuration; a `model_config`
        // mapping "Overrides the `model_name` if specified" (`setup` docstring), and then gives the shape.
        let custom = root.get("model_config").filter(|m| m.entries().is_some());
        match custom {
            None => {
                if let Some(name) = root.get("model_name").filter(|n| n.as_str().is_some()) {
                    out.push(Role::Model, name.to_json(), "model_name");
                }
            }
            // `litgpt/config.py` `Config`: `n_embd`, `n_layer`, `n_head`, `padded_vocab_size`.
            Some(_) => out.copy(
                root,
                "model_config.",
                &[(Role::HiddenSize, "n_embd"), (Role::Layers, "n_layer"), (Role::Heads, "n_head"), (Role::VocabSize, "padded_vocab_size")],
            ),
        }
        // Attention: `torch.nn.functional.scaled_dot_product_attention`, except with
        // `attention_logit_softcapping`, where scores are materialised (`litgpt/model.py` 981d0418,
        // `CausalSelfAttention.scaled_dot_product_attention`); `litgpt/config.py` sets softcapping
        // for the Gemma 2 configurations (`Gemma-2-*`).
        let model_key = ["checkpoint_dir", "model_name"].into_iter().find(|k| root.get(k).and_then(Node::as_str).is_some_and(|v| !v.trim().is_empty()));
        if let Some(config) = custom {
            let softcap = config.get("attention_logit_softcapping").is_some_and(|v| !matches!(v.value, Value::Null));
            out.push(Role::Attention, if softcap { "eager" } else { "sdpa" }.into(), "model_config");
        } else if let Some(key) = model_key {
            let name = root.get(key).and_then(Node::as_str).unwrap_or_default();
            let base = name.trim_end_matches('/').rsplit('/').next().unwrap_or_default().to_ascii_lowercase();
            out.push(Role::Attention, if base.starts_with("gemma-2-") { "eager" } else { "sdpa" }.into(), key);
        }
        // litgpt's `GPT` always builds its own `lm_head` beside `transformer.wte` (`litgpt/model.py`
        // `GPT.__init__`), so a checkpoint that ties them trains two V × h matrices; only
        // `pretrain.py` ties them, with `train.tie_embeddings: true` (`finetune/*.py` `validate_args`
        // rejects that argument).
        if super::truthy(root, "train.tie_embeddings") {
            out.push(Role::TieEmbeddings, true.into(), "train.tie_embeddings");
        } else if let Some(key) = model_key.filter(|_| custom.is_none()) {
            out.push(Role::TieEmbeddings, false.into(), key);
        }
        // `optimizer`: "An optimizer name (such as "AdamW") or config" (`finetune/lora.py`,
        // `pretrain.py` `setup`); a name without a module is `torch.optim.<name>`
        // (`utils.py` `instantiate_torch_optimizer`), a mapping's class is its `class_path`. A quantized
        // run trains with bitsandbytes' `PagedAdamW` whatever the class (AdamW only; `utils.py`
        // `instantiate_bnb_optimizer`): 32-bit states, paged.
        let quantize = root.get("quantize").and_then(Node::as_str).and_then(quantization);
        if quantize.is_some() {
            out.push(Role::Optimizer, "paged_adamw_32bit".into(), "quantize");
        } else if let Some(name) = root.get("optimizer").filter(|o| o.as_str().is_some()) {
            out.push(Role::Optimizer, name.to_json(), "optimizer");
        } else if let Some(class) = root.get_dotted("optimizer.class_path") {
            out.push(Role::Optimizer, class.to_json(), "optimizer.class_path");
        } else if let Some(name) = root.get_dotted("optim.optimizer") {
            out.push(Role::Optimizer, name.to_json(), "optim.optimizer");
        }
        // LoRA: `finetune/lora.py` is the script with `lora_*` arguments; `full.py` and `pretrain.py` have none.
        let lora_keys = ["lora_r", "lora_alpha", "lora_dropout"].into_iter().chain(LORA_SWITCHES.iter().map(|(k, _, _)| *k));
        if let Some(at) = first_present(root, lora_keys) {
            let kind = if quantize.is_some_and(|q| q.starts_with("int4")) { "qlora" } else { "lora" };
            out.push(Role::Adapter, kind.into(), at);
            // A plain MLP (`GptNeoxMLP`: `fc`, `proj`) has no gate: the catalog's `mlp` says which kind the model has.
            let plain_mlp = model_key
                .and_then(|k| root.get(k).and_then(Node::as_str))
                .and_then(crate::model::lookup)
                .is_some_and(|(entry, _)| entry.mlp == crate::model::Mlp::Plain);
            let targets: Vec<serde_json::Value> = LORA_SWITCHES
                .iter()
                .filter(|(key, default, _)| switch(root, key, *default))
                .flat_map(|(_, _, names)| names.iter().filter(|n| !(plain_mlp && **n == "gate")).map(|n| (*n).into()))
                .collect();
            let at = first_present(root, LORA_SWITCHES.iter().map(|(k, _, _)| *k)).unwrap_or(at);
            out.push(Role::LoraTargets, targets.into(), at);
        }
        if let Some(width) = quantize {
            out.push(Role::BaseWeights, width.into(), "quantize");
        }
        // One device: `strategy="auto"`, no activation checkpointing. More than one: FSDP
        // (`FSDPStrategy(... sharding_strategy` FULL_SHARD by default) with
        // `activation_checkpointing_policy={Block}` (`finetune/lora.py`, `finetune/full.py` `setup`).
        let one = |key: &str| root.get(key).is_none_or(|n| n.as_i64() == Some(1));
        let many = |key: &str| root.get(key).and_then(Node::as_i64).is_some_and(|n| n > 1);
        if root.get("devices").and_then(Node::as_i64) == Some(1) && one("num_nodes") {
            out.push(Role::ActivationCheckpointing, "none".into(), "devices");
        } else if let Some(key) = ["devices", "num_nodes"].into_iter().find(|k| many(k)) {
            out.push(Role::Fsdp, true.into(), key);
            out.push(Role::ActivationCheckpointing, "full".into(), key);
        }
        // The finetune scripts compute the head in chunks (`lm_head_chunk_size=128`) and the loss
        // with `chunked_cross_entropy` (`finetune/lora.py`, `finetune/full.py`; `litgpt/utils.py`).
        if let Some(key) = ["train", "checkpoint_dir"].into_iter().find(|k| root.get(k).is_some()).filter(|_| root.get("checkpoint_dir").is_some()) {
            out.push(Role::Logits, "chunked".into(), key);
        }
        out.0
    }

    /// `TrainArgs.gradient_accumulation_iters(devices, num_nodes)` = `batch_size(devices, num_nodes)
    /// // micro_batch_size`, with `batch_size` = `global_batch_size // (devices * num_nodes)`, each
    /// asserted `> 0` (`litgpt/args.py`, 02f2fca4). Both are floors: the run trains micro ×
    /// accumulation × world. Releases before 0.5.8 (commit 3eb93c8d, #1947) divide by `devices`
    /// only (`batch_size(devices)`, the scripts' `gradient_accumulation_iters(devices)`), so each
    /// node accumulates toward the whole global batch: a project whose files pin such a release
    /// gets that division (`resolve::versions::batch_semantics`). Without `global_batch_size` or
    /// `micro_batch_size` the script's `TrainArgs(...)` default applies (`finetune/lora.py`: 16 and 1;
    /// `pretrain.py`: 512 and 4), so nothing is derived.
    fn batch(&self) -> BatchSemantics {
        BatchSemantics { accumulation_floors: true, ..BatchSemantics::default() }
    }

    /// `devices × num_nodes`; `devices: auto` or `-1` is `torch.cuda.device_count()` (`utils.py`
    /// `parse_devices`), unknown to a static check: `--world-size` says it.
    fn world_size(&self) -> WorldSize {
        WorldSize::Devices
    }

    /// Lightning checks the devices against the launcher through Fabric, which litgpt launches its runs with.
    fn refuses_other_world(&self) -> Option<&'static str> {
        Some(super::LIGHTNING_VALIDATES_WORLD)
    }

    fn known_keys(&self, _root: &Node) -> Option<KnownKeys> {
        Some(KnownKeys { path: String::new(), keys: &TOP_KEYS, strict: false, reported_elsewhere: &[] })
    }

    /// `litgpt` on PyPI; `lit-gpt`, the repository's name before 0.3 (Lit-GPT → LitGPT, 4839345a).
    /// The batch division on more than one node depends on it (`batch`).
    fn distributions(&self) -> &'static [&'static str] {
        &["litgpt", "lit-gpt"]
    }

    fn sequence_length_keys(&self) -> &'static [&'static str] {
        &["max_seq_length"]
    }

    /// More than one device or node: `finetune/lora.py`, `finetune/full.py` and `pretrain.py`
    /// `setup` train with `FSDPStrategy` (sharded parameters, gradients and optimizer states).
    /// GaLore (`optim.optimizer: galore_adamw`, `galore_adamw_8bit`, `config_hub/finetune/*/galore.yaml`)
    /// projects the gradients to low rank.
    fn memory_unmodelled(&self, root: &Node) -> Option<super::Unmodelled> {
        if root.get_dotted("optim.optimizer").and_then(Node::as_str).is_some_and(|o| o.starts_with("galore")) {
            return Some(super::Unmodelled {
                path: "optim.optimizer".to_owned(),
                reason: "GaLore projects the gradients to low rank, which trainlint does not model yet".to_owned(),
            });
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn derived(text: &str) -> Vec<(Role, serde_json::Value, String)> {
        let root = crate::load::yaml::parse(text).expect("valid YAML").root;
        Litgpt.derived(&root).into_iter().map(|d| (d.role, d.value, d.path)).collect()
    }

    fn role(all: &[(Role, serde_json::Value, String)], role: Role) -> Option<serde_json::Value> {
        all.iter().find(|(r, _, _)| *r == role).map(|(_, v, _)| v.clone())
    }

    #[test]
    fn lora_switches_with_litgpt_defaults() {
        let lora = derived("checkpoint_dir: checkpoints/meta-llama/Llama-2-7b-hf\ndevices: 1\nlora_r: 32\nlora_key: true\nlora_mlp: true\n");
        assert_eq!(role(&lora, Role::Adapter), Some("lora".into()));
        // query and value default to true (`finetune/lora.py` `setup`).
        assert_eq!(role(&lora, Role::LoraTargets), Some(serde_json::json!(["q", "k", "v", "gate", "up", "down"])));
        assert_eq!(role(&lora, Role::ActivationCheckpointing), Some("none".into()));
        let qlora = derived("lora_r: 8\nlora_query: false\nlora_head: true\nquantize: bnb.nf4-dq\ndevices: 2\n");
        assert_eq!(role(&qlora, Role::Adapter), Some("qlora".into()));
        assert_eq!(role(&qlora, Role::BaseWeights), Some("int4-double-quant".into()), "`-dq`: double quantization");
        assert_eq!(role(&qlora, Role::Optimizer), Some("paged_adamw_32bit".into()));
        assert_eq!(role(&qlora, Role::LoraTargets), Some(serde_json::json!(["v", "lm_head"])));
        assert_eq!(role(&qlora, Role::ActivationCheckpointing), Some("full".into()), "FSDP on 2 devices checkpoints every block");
        assert_eq!(role(&qlora, Role::Fsdp), Some(true.into()));
        let pythia = derived("checkpoint_dir: checkpoints/EleutherAI/pythia-1b\nlora_r: 8\nlora_mlp: true\n");
        assert_eq!(role(&pythia, Role::LoraTargets), Some(serde_json::json!(["q", "v", "up", "down"])), "GptNeoxMLP: fc, proj");
        let int8 = derived("lora_r: 8\nquantize: bnb.int8-training\n");
        assert_eq!((role(&int8, Role::Adapter), role(&int8, Role::BaseWeights)), (Some("lora".into()), Some("int8".into())));
        let full = derived("checkpoint_dir: checkpoints/x/y\nquantize:\n");
        assert_eq!((role(&full, Role::Adapter), role(&full, Role::BaseWeights)), (None, None));
    }

    #[test]
    fn pretrain_model_name_unless_a_model_config() {
        assert_eq!(role(&derived("model_name: pythia-160m\nmodel_config:\n"), Role::Model), Some("pythia-160m".into()));
        let custom = derived("model_name: pythia-160m\nmodel_config:\n  n_embd: 256\n  n_layer: 4\n");
        assert_eq!((role(&custom, Role::Model), role(&custom, Role::HiddenSize), role(&custom, Role::Layers)), (None, Some(256.into()), Some(4.into())));
        assert_eq!(role(&derived("optimizer: AdamW\n"), Role::Optimizer), Some("AdamW".into()));
        assert_eq!(role(&custom, Role::Attention), Some("sdpa".into()));
        assert_eq!(role(&derived("checkpoint_dir: checkpoints/google/gemma-2-9b\n"), Role::Attention), Some("eager".into()), "softcapping");
        assert_eq!(role(&derived("checkpoint_dir: checkpoints/google/gemma-7b\n"), Role::Attention), Some("sdpa".into()));
    }

    #[test]
    fn layout_evidence_is_config_hub() {
        let root = crate::load::yaml::parse("seed: 1\n").expect("valid YAML").root;
        let no_tree = |_: &std::path::Path| None;
        let at = |p: &str| Litgpt.layout_evidence(&Evidence { root: &root, path: Some(std::path::Path::new(p)), bound_paths: &[], hydra_primary: &no_tree });
        assert!(at("repo/config_hub/finetune/llama-2-7b/lora.yaml").is_some());
        assert!(at("config_hub/pretrain/tinyllama.yaml").is_some());
        assert!(at("config_hub/finetune/README.md").is_none());
        assert!(at("config_hub/pretrain/sub/x.yaml").is_none());
        assert!(at("configs/finetune/llama/lora.yaml").is_none());
    }

    #[test]
    fn multi_gpu_is_fsdp_and_galore_is_not_modelled() {
        let root = crate::load::yaml::parse("devices: 4\nnum_nodes: 1\n").expect("valid YAML").root;
        assert_eq!(Litgpt.memory_unmodelled(&root), None);
        assert_eq!(role(&derived("devices: 4\nnum_nodes: 1\n"), Role::Fsdp), Some(true.into()));
        let root = crate::load::yaml::parse("devices: auto\nnum_nodes: 1\n").expect("valid YAML").root;
        assert_eq!(Litgpt.memory_unmodelled(&root), None);
        let root = crate::load::yaml::parse("devices: 1\noptim:\n  optimizer: galore_adamw_8bit\n").expect("valid YAML").root;
        assert_eq!(Litgpt.memory_unmodelled(&root).map(|u| u.path), Some("optim.optimizer".to_owned()));
    }
}
