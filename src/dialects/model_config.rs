//! A model's shape: an HF `config.json`, or a nested model config.

use super::{Doc, Dialect, DerivedRoles, Evidence, Framework};
use crate::load::Node;
use crate::schema::Role;

pub(crate) const MODEL_CONFIG: Dialect = Dialect(&ModelConfig);

pub(crate) struct ModelConfig;

/// The path of the mapping that holds a transformer's shape (an HF `config.json`
/// at the top level, or nested as in DeepSpeedExamples' `bert_model_config`).
fn find_model_shape(root: &Node) -> Option<String> {
    let is_shape = |n: &Node| n.get("hidden_size").is_some() && n.get("num_hidden_layers").is_some() && n.get("num_attention_heads").is_some();
    if is_shape(root) {
        return Some(String::new());
    }
    root.entries()?.iter().find(|e| is_shape(&e.value)).map(|e| e.key.clone())
}

impl Framework for ModelConfig {
    fn name(&self) -> &'static str {
        "model-config"
    }

    fn title(&self) -> &'static str {
        "model config"
    }

    fn doc(&self) -> Doc {
        Doc {
            evidence: "`hidden_size` + `num_hidden_layers` + `num_attention_heads`",
            roles: "hidden size, layers, heads, vocabulary, max positions",
            semantics: "",
        }
    }

    fn evidence(&self, cx: &Evidence) -> Option<String> {
        find_model_shape(cx.root).map(|path| {
            let at = if path.is_empty() { String::new() } else { format!(" under `{path}`") };
            format!("a model configuration (`hidden_size`, `num_hidden_layers`, `num_attention_heads`){at}")
        })
    }

    /// The shape keys of HF's `PretrainedConfig`, where the shape mapping is.
    fn derived(&self, root: &Node) -> Vec<super::Derived> {
        let mut out = DerivedRoles::default();
        if let Some(path) = find_model_shape(root) {
            let prefix = if path.is_empty() { String::new() } else { format!("{path}.") };
            out.copy(
                root,
                &prefix,
                &[
                    (Role::HiddenSize, "hidden_size"),
                    (Role::Layers, "num_hidden_layers"),
                    (Role::Heads, "num_attention_heads"),
                    (Role::VocabSize, "vocab_size"),
                    (Role::SequenceLength, "max_position_embeddings"),
                ],
            );
        }
        out.0
    }
}
