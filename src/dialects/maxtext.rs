//! Google MaxText's YAML (`python3 -m maxtext.trainers.pre_train.train
//! src/maxtext/configs/base.yml per_device_batch_size=4 ici_fsdp_parallelism=8 …`): one flat
//! mapping. `base.yml` holds every default; another file names it in `base_config:` and states
//! what it changes; `configs/models/<model_name>.yml` states a model's dimensions.
//!
//! Sources (AI-Hypercomputer/maxtext, commit e591f30cbbf217ed67ef71263ec0538239f9c3b8):
//!
//! - `src/maxtext/configs/types.py`, `MaxTextConfig` validation, "F. CALCULATE BATCH SIZES":
//!   `calculate_global_batch_sizes(per_device_batch_size, expansion_factor, num_devices,
//!   grad_accum_steps)`: `micro_batch_to_train = int(num_devices * per_device_batch_size)` and
//!   `global_batch_to_train = int(micro_batch_to_train * grad_accum_steps)`. The per-device batch
//!   is per chip, whatever the mesh (tensor-parallel chips count), and may be fractional (`0.25`:
//!   one sequence per four chips), so the global batch depends on the device count.
//! - `types.py`, `get_num_target_devices`: the device count is `len(jax.devices())` (or the AOT
//!   `compile_topology`): the launch's, never a key of a training file.
//! - `base.yml`: `ici_*_parallelism` / `dcn_*_parallelism` shape the device mesh ("One axis for
//!   each parallelism type may hold a placeholder (-1)", filled with the devices left:
//!   `ici_fsdp_parallelism: -1`, `dcn_data_parallelism: -1` by default); they split the chips
//!   but do not change the batch arithmetic above.
//! - `types.py`: `emb_dim = 2**emb_scale * base_emb_dim` (and heads, MLP, layers likewise), the
//!   scales from `global_parameter_scale` (`get_individual_scales`; 0 for the default scale 1);
//!   `max_target_length` is the training sequence length; `dtype` is the activations' dtype and
//!   `weight_dtype` (default `float32`) the parameters'.
//! - `src/maxtext/configs/pyconfig.py`, `_load_config`: `omegaconf.OmegaConf.load` (PyYAML's
//!   YAML 1.1 scalars: `vocab_size: 32_000` is an integer), `base_config` merged under the file.

use super::{DerivedRoles, Dialect, Doc, Evidence, Framework, Unmodelled};
use crate::load::{Node, Value};
use crate::schema::{Manifest, Role};

pub const MAXTEXT: Dialect = Dialect(&MaxText);

pub struct MaxText;

/// Role → key. The batch and the sequence; the shape is read in `derived` (it depends on
/// `global_parameter_scale`).
const BINDINGS: [(Role, &str); 4] = [
    (Role::MicroBatch, "per_device_batch_size"),
    (Role::Accumulation, "gradient_accumulation_steps"),
    (Role::SequenceLength, "max_target_length"),
    (Role::LearningRate, "learning_rate"),
];

/// Model dimensions in MaxText's own names (`base.yml`), read as the shape at the default scale.
const SHAPE: [(Role, &str); 4] =
    [(Role::HiddenSize, "base_emb_dim"), (Role::Heads, "base_num_query_heads"), (Role::Layers, "base_num_decoder_layers"), (Role::VocabSize, "vocab_size")];

/// Keys only MaxText's files have (`base.yml`): the model's dimensions in its names.
const MODEL_KEYS: [&str; 5] = ["base_emb_dim", "base_num_query_heads", "base_num_kv_heads", "base_mlp_dim", "base_num_decoder_layers"];

/// MaxText keys that, beside `per_device_batch_size`, say the file is MaxText's.
const BESIDE_BATCH: [&str; 6] = ["base_config", "max_target_length", "model_name", "steps", "run_name", "dataset_type"];

/// A mesh axis: `ici_<axis>_parallelism` or `dcn_<axis>_parallelism`.
fn is_mesh_axis(key: &str) -> bool {
    (key.starts_with("ici_") || key.starts_with("dcn_")) && key.ends_with("_parallelism") && key.len() > "ici__parallelism".len()
}

fn evidence(root: &Node) -> Option<String> {
    let entries = root.entries()?;
    let mesh: Vec<&str> = entries.iter().map(|e| e.key.as_str()).filter(|k| is_mesh_axis(k)).collect();
    let model: Vec<&str> = MODEL_KEYS.iter().copied().filter(|k| root.get(k).is_some()).collect();
    let quoted = |keys: &[&str]| keys.iter().take(4).map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ");
    if !mesh.is_empty() {
        return Some(format!("MaxText mesh axes {}", quoted(&mesh)));
    }
    if !model.is_empty() {
        return Some(format!("MaxText model dimensions {}", quoted(&model)));
    }
    // `base_config: base.yml`: the file MaxText merges this one over (`pyconfig.py`, `_load_config`).
    if let Some(base) = root.get("base_config").and_then(Node::as_str).filter(|b| b.ends_with(".yml") || b.ends_with(".yaml")) {
        return Some(format!("MaxText's `base_config: {base}`"));
    }
    // The device mesh's axis names and the rules that map logical axes onto them (`base.yml`).
    let mesh_rules: Vec<&str> = ["mesh_axes", "logical_axis_rules", "data_sharding"].into_iter().filter(|k| root.get(k).is_some()).collect();
    if mesh_rules.len() >= 2 {
        return Some(format!("MaxText mesh keys {}", quoted(&mesh_rules)));
    }
    root.get("per_device_batch_size")?;
    let beside: Vec<&str> = BESIDE_BATCH.iter().copied().filter(|k| root.get(k).is_some()).collect();
    (!beside.is_empty()).then(|| format!("MaxText's `per_device_batch_size` with {}", quoted(&beside)))
}

impl Framework for MaxText {
    fn name(&self) -> &'static str {
        "maxtext"
    }

    fn title(&self) -> &'static str {
        "MaxText"
    }

    fn doc(&self) -> Doc {
        Doc {
            evidence: "an `ici_*_parallelism` / `dcn_*_parallelism` mesh axis, a MaxText model dimension (`base_emb_dim`, `base_num_query_heads`, `base_num_decoder_layers`, …), `base_config: <file>.yml`, two of `mesh_axes`/`logical_axis_rules`/`data_sharding`, or `per_device_batch_size` with `max_target_length`, `model_name`, `steps`, …",
            roles: "`per_device_batch_size` (a whole number; a fractional one is read as written and derives nothing), `gradient_accumulation_steps`, `max_target_length`, `learning_rate`; `base_emb_dim`, `base_num_query_heads`, `base_num_decoder_layers`, `vocab_size` as the shape at the default `global_parameter_scale`",
            semantics: "global batch = int(devices × per_device_batch_size) × accumulation over every chip of the mesh, tensor-parallel ones included (`calculate_global_batch_sizes`); the device count is the launch's (`jax.devices()`), so without `--world-size` the batch holds for every world; the mesh axes are not read; memory not estimated (JAX/XLA sharding, TPUs)",
        }
    }

    fn evidence(&self, cx: &Evidence) -> Option<String> {
        evidence(cx.root)
    }

    fn bindings(&self, _manifest: &Manifest) -> Vec<(Role, String)> {
        super::owned(&BINDINGS)
    }

    /// The model dimensions, when `global_parameter_scale` is absent or 1 (every scale 0:
    /// the dimension is the `base_` value).
    fn derived(&self, root: &Node) -> Vec<super::Derived> {
        let mut out = DerivedRoles::default();
        let scale = root.get("global_parameter_scale");
        if scale.is_none_or(|s| s.as_f64() == Some(1.0)) {
            for (role, key) in SHAPE {
                if let Some(node) = root.get(key).filter(|n| matches!(n.value, Value::Int(_))) {
                    out.push(role, node.to_json(), key);
                }
            }
        }
        out.0
    }

    fn pyyaml(&self) -> bool {
        true
    }

    /// OmegaConf loads the file (`_load_config`).
    fn interpolates(&self) -> bool {
        true
    }

    fn sequence_length_keys(&self) -> &'static [&'static str] {
        &["max_target_length"]
    }

    /// MaxText is JAX: XLA shards parameters, optimizer states and activations over the device
    /// mesh (FSDP filling every chip by default), under a remat policy, mostly on TPUs. trainlint's
    /// memory model prices a PyTorch run on a GPU: it says nothing here.
    fn memory_unmodelled(&self, root: &Node) -> Option<Unmodelled> {
        let path = ["per_device_batch_size", "base_emb_dim", "base_num_decoder_layers"].into_iter().find(|k| root.get(k).is_some())?;
        Some(Unmodelled {
            path: path.to_owned(),
            reason: "MaxText runs on JAX/XLA (TPUs mostly) and shards parameters, optimizer states and activations over its device mesh (ici_*/dcn_* parallelism, FSDP over every chip by default) under a remat policy, which trainlint's memory model does not read".to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Node {
        crate::load::yaml::parse(text).expect("valid YAML").root
    }

    fn detected(text: &str) -> &'static str {
        let root = parse(text);
        let no_tree = |_: &std::path::Path| None;
        super::super::detect(&Evidence { root: &root, path: None, bound_paths: &[], hydra_primary: &no_tree }).0.name()
    }

    #[test]
    fn recognised_by_its_own_names() {
        assert_eq!(detected("ici_fsdp_parallelism: -1\n"), "maxtext");
        assert_eq!(detected("base_emb_dim: 4096\nbase_num_query_heads: 32\n"), "maxtext");
        assert_eq!(detected("base_config: base.yml\nper_device_batch_size: 2\n"), "maxtext");
        assert_eq!(detected("base_config: \"base.yml\"\nlearning_rate: 2.e-5\n"), "maxtext");
        assert_eq!(detected("mesh_axes: ['data']\nlogical_axis_rules: []\n"), "maxtext");
        assert_eq!(detected("base_config: 7\n"), "unknown");
        // `per_device_batch_size` alone, or a key that only looks like an axis, is not enough.
        assert_eq!(detected("per_device_batch_size: 2\n"), "unknown");
        assert_eq!(detected("ici__parallelism: 2\n"), "unknown");
    }

    #[test]
    fn shape_only_at_the_default_scale() {
        let roles = |text: &str| MaxText.derived(&parse(text)).into_iter().map(|d| (d.role, d.value)).collect::<Vec<_>>();
        assert_eq!(roles("base_emb_dim: 4096\nvocab_size: 32_000\n"), vec![(Role::HiddenSize, 4096.into())]);
        assert_eq!(roles("base_emb_dim: 4096\nglobal_parameter_scale: 1\n"), vec![(Role::HiddenSize, 4096.into())]);
        assert!(roles("base_emb_dim: 4096\nglobal_parameter_scale: 16\n").is_empty());
    }
}
