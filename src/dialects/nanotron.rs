//! Hugging Face nanotron's training YAML (`torchrun --nproc_per_node=8 run_train.py
//! --config-file examples/config_tiny_llama.yaml`): `parallelism: {dp, tp, pp}`, `tokens:
//! {micro_batch_size, batch_accumulation_per_replica, sequence_length}`, `model.model_config`
//! (a Llama/Qwen2 config spelled out), `optimizer`, `general`, `checkpoints`.
//!
//! Sources (huggingface/nanotron, commit 2411b022a75fb7f7561a1bb4166706da5e1b76de):
//!
//! - `src/nanotron/config/config.py`, `get_config_from_file`: `yaml.load(f, Loader=SafeLoader)`
//!   (PyYAML, YAML 1.1), then `dacite.from_dict(Config, …, config=dacite.Config(strict=True))`: a
//!   key that is not a field of its dataclass raises (`UnexpectedDataError`) at start-up. `Config`'s
//!   fields are `general`, `parallelism`, `model`, `tokenizer`, `checkpoints`, `logging`,
//!   `metrics_logging`, `tokens`, `optimizer`, `data_stages`, `profiler`, `lighteval`, `s3_upload`.
//! - `config.py`, `Config.global_batch_size`: `tokens.micro_batch_size *
//!   tokens.batch_accumulation_per_replica * parallelism.dp` — the effective batch, in sequences
//!   of `tokens.sequence_length` tokens.
//! - `src/nanotron/parallel/context.py`, `ParallelContext.__init__`: asserts `tensor_parallel_size
//!   * pipeline_parallel_size * context_parallel_size * data_parallel_size == WORLD_SIZE`
//!   ("TP*CP*DP*PP=… != WORLD_SIZE=…"): the config states its world, and a launch with another
//!   number of processes stops at start-up. `src/nanotron/trainer.py` builds it from
//!   `parallelism.tp`, `pp`, `dp`, `expert_parallel_size`, `context_parallel_size`.
//! - `src/nanotron/config/parallelism_config.py`, `ParallelismArgs`: `dp`, `pp`, `tp` required,
//!   `context_parallel_size` default 1, `expert_parallel_size` default 1 (experts are split inside
//!   the other groups, not a factor of the world).
//! - `config.py`, `Config.__post_init__`: asserts `num_attention_heads % tp == 0` and
//!   `num_key_value_heads >= tp`.
//! - `src/nanotron/config/models_config.py` (`LlamaConfig`, `Qwen2Config`): `hidden_size`,
//!   `num_hidden_layers`, `num_attention_heads`, `num_key_value_heads`, `intermediate_size`,
//!   `vocab_size`; `config.py`, `OptimizerArgs`: `zero_stage`, `learning_rate_scheduler.learning_rate`.

use super::{DerivedRoles, Dialect, Doc, Evidence, Framework, KnownKeys, Unmodelled, WorldSize};
use crate::load::{Node, Value};
use crate::schema::{Manifest, Role};

pub(crate) const NANOTRON: Dialect = Dialect(&Nanotron);

pub(crate) struct Nanotron;

const BINDINGS: [(Role, &str); 12] = [
    (Role::MicroBatch, "tokens.micro_batch_size"),
    (Role::Accumulation, "tokens.batch_accumulation_per_replica"),
    (Role::SequenceLength, "tokens.sequence_length"),
    (Role::TensorParallel, "parallelism.tp"),
    (Role::PipelineParallel, "parallelism.pp"),
    (Role::ContextParallel, "parallelism.context_parallel_size"),
    (Role::HiddenSize, "model.model_config.hidden_size"),
    (Role::Layers, "model.model_config.num_hidden_layers"),
    (Role::Heads, "model.model_config.num_attention_heads"),
    (Role::VocabSize, "model.model_config.vocab_size"),
    (Role::ZeroStage, "optimizer.zero_stage"),
    (Role::LearningRate, "optimizer.learning_rate_scheduler.learning_rate"),
];

/// `Config`'s fields (`config.py`), the top-level keys dacite accepts.
const CONFIG_KEYS: [&str; 13] =
    ["general", "parallelism", "model", "tokenizer", "checkpoints", "logging", "metrics_logging", "tokens", "optimizer", "data_stages", "profiler", "lighteval", "s3_upload"];

/// The degrees that multiply to the world (`ParallelContext`), in the order the evidence names them.
const DEGREES: [&str; 4] = ["dp", "tp", "pp", "context_parallel_size"];

/// A positive whole degree as written, or 1 when the key is absent (`context_parallel_size`).
fn degree(root: &Node, key: &str) -> Option<u64> {
    match root.get_dotted(&format!("parallelism.{key}")) {
        None if key == "context_parallel_size" => Some(1),
        None => None,
        Some(node) => node.as_i64().and_then(|d| u64::try_from(d).ok()).filter(|d| *d > 0),
    }
}

impl Framework for Nanotron {
    fn name(&self) -> &'static str {
        "nanotron"
    }

    fn title(&self) -> &'static str {
        "nanotron"
    }

    fn doc(&self) -> Doc {
        Doc {
            evidence: "a `parallelism:` mapping with `dp`, `tp` and `pp`, beside `tokens:`, `general:` or `model.model_config`",
            roles: "`tokens.micro_batch_size`, `tokens.batch_accumulation_per_replica`, `tokens.sequence_length`, `parallelism.dp`/`tp`/`pp`/`context_parallel_size`, `model.model_config.hidden_size`/`num_hidden_layers`/`num_attention_heads`/`vocab_size`, `optimizer.zero_stage`, `optimizer.learning_rate_scheduler.learning_rate`",
            semantics: "world = dp × tp × pp × cp, stated by the config (nanotron asserts it equals the launch's WORLD_SIZE: BAT009); effective batch = micro × accumulation × dp (`Config.global_batch_size`); heads ÷ tp (PAR001), the layers balanced over pp by cost (no split needed); a near miss of a top-level key is reported (dacite raises on unknown keys, but a trainer may subclass `Config`); memory not estimated (nanotron's own TP/PP engine)",
        }
    }

    fn evidence(&self, cx: &Evidence) -> Option<String> {
        let parallelism = cx.root.get("parallelism").filter(|p| matches!(p.value, Value::Map(_)))?;
        if !["dp", "tp", "pp"].iter().all(|k| parallelism.get(k).is_some()) {
            return None;
        }
        let beside: Vec<String> = ["tokens", "general"].iter().filter(|k| cx.has(k)).map(|k| format!("`{k}:`")).collect();
        let beside = if cx.root.get_dotted("model.model_config").is_some() { [beside, vec!["`model.model_config`".to_owned()]].concat() } else { beside };
        (!beside.is_empty()).then(|| format!("nanotron's `parallelism: {{dp, tp, pp}}` with {}", beside.join(", ")))
    }

    fn bindings(&self, _manifest: &Manifest) -> Vec<(Role, String)> {
        super::owned(&BINDINGS)
    }

    /// The world the config states: dp × tp × pp × cp (`ParallelContext`), shown at `parallelism.dp`;
    /// the data-parallel world is that ÷ (tp × pp × cp) = dp.
    fn derived(&self, root: &Node) -> Vec<super::Derived> {
        let mut out = DerivedRoles::default();
        let degrees: Option<Vec<u64>> = DEGREES.iter().map(|k| degree(root, k)).collect();
        if let Some(world) = degrees.and_then(|d| d.iter().try_fold(1u64, |p, x| p.checked_mul(*x))) {
            out.push(Role::Devices, world.into(), "parallelism.dp");
        }
        out.0
    }

    /// `build_model` (`src/nanotron/models/base.py`) cuts the blocks at thresholds of their
    /// cumulative compute cost (`get_block_compute_costs`), one share per pipeline rank: any number
    /// of layers splits over any pipeline degree.
    fn pipeline_balances_layers(&self, _root: &Node) -> bool {
        true
    }

    fn world_size(&self) -> WorldSize {
        WorldSize::Devices
    }

    fn refuses_other_world(&self) -> Option<&'static str> {
        Some("`ParallelContext.__init__` (src/nanotron/parallel/context.py): \"TP*CP*DP*PP=… != WORLD_SIZE=…\"")
    }

    /// dacite's `strict=True` raises on an unknown key, but of the class the program passes:
    /// a trainer may subclass `Config` (`examples/doremi/doremi/config.py`, `DoReMiConfig(Config)`
    /// adds `doremi`), so only near misses of `Config`'s own fields are reported.
    fn known_keys(&self, _root: &Node) -> Option<KnownKeys> {
        Some(KnownKeys { path: String::new(), keys: &CONFIG_KEYS, strict: false, reported_elsewhere: &[] })
    }

    fn pyyaml(&self) -> bool {
        true
    }

    fn sequence_length_keys(&self) -> &'static [&'static str] {
        &["sequence_length"]
    }

    /// nanotron's own tensor/pipeline engine, its ZeRO-1 over `dp` and its fp32 gradient
    /// accumulation buffers (`optimizer.accumulate_grad_in_fp32`) set the peak.
    fn memory_unmodelled(&self, root: &Node) -> Option<Unmodelled> {
        root.get_dotted("parallelism.dp")?;
        Some(Unmodelled {
            path: "parallelism".to_owned(),
            reason: "nanotron's tensor/pipeline-parallel engine, its ZeRO over the data-parallel replicas and its fp32 gradient accumulation buffers set the peak memory, which trainlint's memory model does not read yet".to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use super::super::test_support::{detected, parse};

    #[test]
    fn recognised_by_its_parallelism_and_sections() {
        assert_eq!(detected("parallelism:\n  dp: 4\n  tp: 2\n  pp: 1\ntokens:\n  micro_batch_size: 3\n"), "nanotron");
        assert_eq!(detected("parallelism:\n  dp: 4\n  tp: 2\n  pp: 1\nmodel:\n  model_config:\n    hidden_size: 8\n"), "nanotron");
        assert_eq!(detected("parallelism:\n  dp: 4\n  tp: 2\n  pp: 1\n"), "unknown");
        assert_eq!(detected("parallelism:\n  dp: 4\ntokens:\n  micro_batch_size: 3\n"), "unknown");
    }

    #[test]
    fn world_is_the_product_of_the_degrees() {
        let world = |text: &str| Nanotron.derived(&parse(text)).into_iter().map(|d| (d.value, d.path)).collect::<Vec<_>>();
        assert_eq!(world("parallelism:\n  dp: 4\n  tp: 2\n  pp: 1\n"), vec![(8.into(), "parallelism.dp".to_owned())]);
        assert_eq!(world("parallelism:\n  dp: 2\n  tp: 2\n  pp: 2\n  context_parallel_size: 3\n"), vec![(24.into(), "parallelism.dp".to_owned())]);
        assert!(world("parallelism:\n  dp: 0\n  tp: 2\n  pp: 1\n").is_empty());
        assert!(world("parallelism:\n  tp: 2\n  pp: 1\n").is_empty());
    }
}
