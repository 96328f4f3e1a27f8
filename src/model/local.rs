//! A model's architecture from a `config.json` on disk: a local model folder
//! the config names, or the Hugging Face cache
//! (`$HF_HUB_CACHE`, else `$HF_HOME/hub`, else `~/.cache/huggingface/hub`;
//! huggingface_hub `constants.py`), in
//! `models--{org}--{name}/snapshots/{revision}/config.json` (huggingface_hub
//! `file_download.py`, `repo_folder_name`). Never the network. Files are read
//! through the pipeline's `Loader`; the cache's location (an environment
//! value) is never shown: a cache file is displayed as
//! `hf-cache:models--org--name/snapshots/<rev>/config.json`.

use super::{Entry, Extra, Mlp, Norm, QkNorm};
use crate::load::loader::Loader;
use std::path::{Path, PathBuf};

/// An architecture read from a config.json, and where.
#[derive(Clone, Debug)]
pub struct LocalModel {
    pub entry: Entry,
    /// What to show for the file (never an environment value).
    pub display: String,
}

/// The Hugging Face cache folder, from the environment (not shown anywhere).
fn hub_cache() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    var("HF_HUB_CACHE")
        .or_else(|| var("HF_HOME").map(|home| home.join("hub")))
        .or_else(|| var("HOME").map(|home| home.join(".cache").join("huggingface").join("hub")))
}

/// The config.json for `model` as the config names it: a folder (relative to
/// the config's folder, then as written), else a hub id's snapshot in the
/// Hugging Face cache. `Err` says what was found but could not be used.
pub(crate) fn find(model: &str, config_dir: &Path, loader: &Loader) -> Option<Result<LocalModel, String>> {
    let model = model.trim();
    if model.is_empty() || model.contains("${") || model.contains("://") {
        return None;
    }
    let written = Path::new(model);
    let mut folders = Vec::new();
    if written.is_relative() {
        folders.push(config_dir.join(written));
    }
    folders.push(written.to_path_buf());
    for folder in folders {
        let file = folder.join("config.json");
        if loader.is_file(&file) {
            let display = file.display().to_string();
            return Some(read_config(loader, &file, display, model, |e| e.to_string()));
        }
    }
    // A hub id: `org/name` (huggingface_hub `repo_folder_name`: `models--org--name`).
    let parts: Vec<&str> = model.split('/').collect();
    if parts.len() != 2 || parts.iter().any(|p| p.is_empty() || *p == "." || *p == "..") || super::is_path(model) {
        return None;
    }
    let repo = format!("models--{}--{}", parts[0], parts[1]);
    let cache = hub_cache()?;
    // The cache lies outside the project: it is the one folder read there, through a
    // loader confined to it (same budgets); its location comes from the environment
    // and is never shown (`hf-cache:` paths, errors by kind only).
    let loader = loader.clone().with_roots(std::slice::from_ref(&cache));
    let snapshots = cache.join(&repo).join("snapshots");
    let revisions = loader.list(&snapshots).ok()?;
    for revision in revisions.iter().filter(|r| r.is_dir) {
        let file = snapshots.join(&revision.name).join("config.json");
        if loader.is_file(&file) {
            let display = format!("hf-cache:{repo}/snapshots/{}/config.json", revision.name);
            return Some(read_config(&loader, &file, display, model, |e| e.kind().to_string()));
        }
    }
    None
}

/// Reads and parses one config.json; `describe` words a read error (the cache's
/// errors are given by kind only, so that its location is never printed).
fn read_config(loader: &Loader, file: &Path, display: String, model: &str, describe: impl Fn(&std::io::Error) -> String) -> Result<LocalModel, String> {
    loader
        .read_text(file)
        .map_err(|e| format!("{display}: {}", describe(&e)))
        .and_then(|text| from_config_json(&text, model))
        .map(|entry| LocalModel { entry, display })
}

/// A config.json named directly (the manifest's `[models]` `config`): the file, or the folder that holds it.
pub(crate) fn read(path: &Path, model: &str, loader: &Loader) -> Result<LocalModel, String> {
    let file = if loader.is_dir(path) { path.join("config.json") } else { path.to_path_buf() };
    read_config(loader, &file, file.display().to_string(), model, |e| e.to_string())
}

/// The model types whose config.json fully determines the parameter count
/// here, with their class defaults (transformers `configuration_<type>.py`):
/// (qkv bias, q/k head norm). `LlamaConfig`/`MistralConfig`/`Qwen2Config`/
/// `Qwen3Config` all default `tie_word_embeddings=False`; `LlamaConfig` has
/// `attention_bias`/`mlp_bias` (default False); Qwen2 always has q/k/v biases
/// (`modeling_qwen2.py` `Qwen2Attention`, `bias=True`); Qwen3 has none and a
/// q/k RMSNorm over head_dim (`modeling_qwen3.py` `q_norm`/`k_norm`).
fn family(model_type: &str) -> Option<(bool, Option<QkNorm>)> {
    match model_type {
        "llama" | "mistral" => Some((false, None)),
        "qwen2" => Some((true, None)),
        "qwen3" => Some((false, Some(QkNorm::Head))),
        _ => None,
    }
}

/// An architecture from a Hugging Face config.json (decoder families of `family` only).
pub(crate) fn from_config_json(text: &str, model: &str) -> Result<Entry, String> {
    let json: serde_json::Value = serde_json::from_str(text).map_err(|e| format!("config.json is not JSON: {e}"))?;
    let model_type = json.get("model_type").and_then(|v| v.as_str()).ok_or("config.json has no `model_type`")?;
    let (qkv_bias, qk_norm) =
        family(model_type).ok_or_else(|| format!("model_type `{model_type}` is not one trainlint counts parameters for (llama, mistral, qwen2, qwen3)"))?;
    let number = |key: &str| json.get(key).and_then(serde_json::Value::as_u64);
    let required = |key: &str| number(key).filter(|v| *v > 0).ok_or_else(|| format!("config.json has no positive `{key}`"));
    let flag = |key: &str| json.get(key).and_then(serde_json::Value::as_bool).unwrap_or(false);
    let hidden_size = required("hidden_size")?;
    let num_heads = required("num_attention_heads")?;
    let head_dim = match number("head_dim") {
        Some(d) if d > 0 => d,
        _ => hidden_size / num_heads,
    };
    Ok(Entry {
        id: model.to_owned(),
        aliases: vec![],
        builders: vec![],
        litgpt: vec![],
        architecture: model_type.to_owned(),
        hidden_size,
        num_layers: required("num_hidden_layers")?,
        num_heads,
        num_kv_heads: number("num_key_value_heads").filter(|v| *v > 0).unwrap_or(num_heads),
        head_dim,
        intermediate_size: required("intermediate_size")?,
        vocab_size: required("vocab_size")?,
        tie_embeddings: flag("tie_word_embeddings"),
        mlp: Mlp::Gated,
        norm: Norm::Rmsnorm,
        qkv_bias: qkv_bias || flag("attention_bias"),
        o_bias: flag("attention_bias"),
        mlp_bias: flag("mlp_bias"),
        learned_positions: 0,
        extra: Extra { qk_norm, ..Extra::default() },
        max_positions: number("max_position_embeddings").unwrap_or(0),
        parameters: 0,
        parameters_source: "computed from config.json".into(),
        source: "config.json".into(),
        same_architecture_as: None,
        stored_quantization: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{by_id, params};

    /// meta-llama/Llama-3.1-8B's config.json (the fields it states).
    const LLAMA_3_1_8B: &str = r#"{"architectures": ["LlamaForCausalLM"], "attention_bias": false, "hidden_size": 4096,
        "intermediate_size": 14336, "max_position_embeddings": 131072, "mlp_bias": false, "model_type": "llama",
        "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8, "rms_norm_eps": 1e-05,
        "tie_word_embeddings": false, "torch_dtype": "bfloat16", "vocab_size": 128256}"#;

    #[test]
    fn a_config_json_counts_like_the_catalog() {
        let entry = from_config_json(LLAMA_3_1_8B, "my/llama").unwrap();
        assert_eq!(params::count(&entry), Some(8_030_261_248));
        assert_eq!(params::count(&entry), Some(by_id("meta-llama/Llama-3.1-8B").unwrap().parameters));
    }

    #[test]
    fn an_unsupported_or_incomplete_config_is_an_error_not_a_guess() {
        assert!(from_config_json(r#"{"model_type": "mamba", "hidden_size": 768}"#, "x").unwrap_err().contains("mamba"));
        assert!(from_config_json(r#"{"model_type": "llama", "hidden_size": 4096}"#, "x").unwrap_err().contains("num_attention_heads"));
        assert!(from_config_json("not json", "x").is_err());
    }

    #[test]
    fn a_local_folder_is_read_through_the_loader() {
        let dir = std::env::temp_dir().join(format!("trainlint-local-model-{}", std::process::id()));
        let folder = dir.join("my-llama");
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("config.json"), LLAMA_3_1_8B).unwrap();
        let found = find("my-llama", &dir, &Loader::disk()).expect("found").expect("read");
        assert_eq!(found.entry.hidden_size, 4096);
        assert!(found.display.ends_with("config.json"));
        assert!(find("not-there", &dir, &Loader::disk()).is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
