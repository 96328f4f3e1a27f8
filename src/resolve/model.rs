//! The model a config names, and the shape roles it gives: when a config
//! names its model (`Role::Model`) and does not state `parameters`,
//! `hidden_size`, `layers`, `heads` or `vocab_size`, they come from the model
//! catalog (`crate::model`) or from the model's local config.json
//! (`crate::model::local`), and each such role says so (`RoleValue::from_model`).

use super::RoleValue;
use crate::model::{self, Entry, params};
use crate::schema::Role;
use crate::settings::Settings;
use crate::source::SourceFile;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Where the model's architecture was found.
#[derive(Clone, Debug)]
pub enum ModelOrigin {
    /// A catalog entry (`data/models.json`).
    Catalog,
    /// A config.json on disk; `display` is what to show for it (never an environment value).
    ConfigJson { display: String },
    /// The manifest's `[models]` entry names a catalog model with the same architecture.
    ManifestSameAs,
    /// A path with no readable config.json whose last component(s) are a catalog name
    /// (`/data/models/Llama-2-7b-hf`, a torchtune `checkpoint_dir`): the shape is
    /// assumed from the folder's name.
    FolderName,
    /// The config spells the architecture out (a generic builder called with its dimensions,
    /// `Framework::inline_architecture`); `key` holds it.
    Inline { key: String },
}

/// The architecture behind a named model.
#[derive(Clone, Debug)]
pub struct ModelFacts {
    /// The name as the config writes it.
    pub name: String,
    pub entry: Entry,
    pub origin: ModelOrigin,
    /// The exact parameter count (`model::params::count`).
    pub parameters: u64,
    /// How the catalog matched the name when not as written (a re-upload organisation,
    /// variant suffixes stripped: `model::Found::assumption`), shown with the origin.
    pub matched: Option<String>,
    /// The stored weight width the name's quantization suffix states ("int4"/"int8"), for
    /// `Role::BaseWeights` when the config states none.
    pub name_quantization: Option<&'static str>,
}

impl ModelFacts {
    /// `catalog:<id>` or the config.json's path: the `file` of a role it gives, in `show --output-format json`.
    pub fn file(&self) -> String {
        match &self.origin {
            ModelOrigin::Catalog | ModelOrigin::ManifestSameAs | ModelOrigin::FolderName => format!("catalog:{}", self.entry.id),
            ModelOrigin::ConfigJson { display } => display.clone(),
            ModelOrigin::Inline { key } => format!("config:{key}"),
        }
    }

    /// "the model catalog: meta-llama/Llama-3.1-8B" / "the model's config.json: …", and whether
    /// the framework builds the head otherwise than the checkpoint (`Role::TieEmbeddings`).
    pub(crate) fn described(&self) -> String {
        let retied = match model::by_id(&self.entry.id) {
            Some(catalog) if catalog.tie_embeddings && !self.entry.tie_embeddings => {
                ", with an output head of its own beside the tied embedding (the framework unties it)"
            }
            Some(catalog) if !catalog.tie_embeddings && self.entry.tie_embeddings => ", with its output head tied to the embedding (the framework ties it)",
            _ => "",
        };
        format!("{}{retied}", self.origin_described())
    }

    fn origin_described(&self) -> String {
        let described = self.origin_only();
        match &self.matched {
            Some(matched) => format!("{described} ({matched})"),
            None => described,
        }
    }

    fn origin_only(&self) -> String {
        match &self.origin {
            ModelOrigin::Catalog => format!("the model catalog: {}", self.entry.id),
            ModelOrigin::ConfigJson { display } => format!("the model's config.json: {display}"),
            ModelOrigin::ManifestSameAs => format!("the model catalog: {} (the manifest's [models] `same-as`)", self.entry.id),
            ModelOrigin::FolderName => {
                format!("the model catalog: {} (assumed from the folder's name `{}`: no config.json there)", self.entry.id, self.name)
            }
            ModelOrigin::Inline { key } => format!("the builder's arguments under `{key}`"),
        }
    }

    /// Where the numbers were read.
    pub fn source(&self) -> &str {
        match &self.origin {
            ModelOrigin::Catalog | ModelOrigin::ManifestSameAs | ModelOrigin::FolderName => &self.entry.source,
            ModelOrigin::ConfigJson { .. } => "config.json fields; parameter count computed by trainlint (model::params)",
            ModelOrigin::Inline { .. } => {
                "the builder's arguments in the config (the dialect cites the builder); parameter count computed by trainlint (model::params)"
            }
        }
    }
}

/// What the config's model name led to.
#[derive(Clone, Debug)]
pub enum ModelLookup {
    Found(Arc<ModelFacts>),
    /// Not in the catalog and no readable config.json; `why` says what was found but not usable.
    Unknown {
        name: String,
        why: Option<String>,
    },
    /// A model the catalog knows by name whose architecture the memory model does not
    /// support (`model::unsupported`), and no readable config.json.
    Unsupported {
        name: String,
        known: &'static model::Unsupported,
    },
}

/// Looks up the config's model and fills the shape roles it does not state.
pub(crate) fn fill(
    roles: &mut BTreeMap<Role, RoleValue>,
    source: &Arc<SourceFile>,
    settings: &Settings,
    inline: Option<(serde_json::Value, String)>,
) -> Option<ModelLookup> {
    let named = roles.get(&Role::Model)?.clone();
    let name = named.value.as_str()?.trim().to_owned();
    if name.is_empty() {
        return None;
    }
    let mut lookup = find(&name, source, settings, inline);
    // A framework that decides the tying itself (`Role::TieEmbeddings`: litgpt builds its own
    // `lm_head`) allocates the model as it builds it, not as the config.json says.
    let tie = roles.get(&Role::TieEmbeddings).and_then(|v| v.value.as_bool());
    if let (ModelLookup::Found(facts), Some(tie)) = (&lookup, tie)
        && facts.entry.tie_embeddings != tie
    {
        let mut entry = facts.entry.clone();
        entry.tie_embeddings = tie;
        if let Some(parameters) = params::count(&entry) {
            lookup = ModelLookup::Found(Arc::new(ModelFacts { entry, parameters, ..(**facts).clone() }));
        }
    }
    let ModelLookup::Found(facts) = &lookup else { return Some(lookup) };
    let e = &facts.entry;
    // A checkpoint stored quantized (`stored_quantization`: a GPTQ/AWQ/bitsandbytes upload) loads
    // its block linears at that width, whatever the config says of quantizing: its frozen base is
    // priced as stored (GPTQ/AWQ 4-bit with group 128 keep 0.5 B + an fp16 scale and a 4-bit zero
    // per 128 weights, 0.52 B, within 8 % of the bitsandbytes 4-bit figure used for every 4-bit base;
    // AQLM 1x16 at its 2 bits per weight).
    // Else a quantization suffix the name was matched without (`-GPTQ`, `-AWQ`, `-bnb-4bit`, `-Int4`:
    // 4-bit; `-Int8`, `-FP8`: 8-bit) says the same of the checkpoint it names.
    let stored = match e.stored_quantization.as_deref() {
        Some("nf4" | "gptq-int4" | "awq-int4") => Some("int4"),
        Some("int8") => Some("int8"),
        Some("aqlm-2bit-1x16") => Some("aqlm-2bit-1x16"),
        Some(_) => None,
        None => facts.name_quantization,
    };
    if let Some(width) = stored.filter(|_| !roles.contains_key(&Role::BaseWeights)) {
        let mut filled = named.clone();
        filled.value = width.into();
        filled.from_model = Some(Arc::clone(facts));
        roles.insert(Role::BaseWeights, filled);
    }
    let values = [
        (Role::Parameters, facts.parameters),
        (Role::HiddenSize, e.hidden_size),
        (Role::Layers, e.num_layers),
        (Role::Heads, e.num_heads),
        (Role::VocabSize, e.vocab_size),
    ];
    for (role, value) in values {
        if roles.contains_key(&role) {
            continue;
        }
        // Points at the model name, where the value comes from; a fix never edits it (the model is not a key of its own).
        let mut filled = named.clone();
        filled.value = value.into();
        filled.from_model = Some(Arc::clone(facts));
        roles.insert(role, filled);
    }
    Some(lookup)
}

fn find(name: &str, source: &Arc<SourceFile>, settings: &Settings, inline: Option<(serde_json::Value, String)>) -> ModelLookup {
    let unknown = |why: String| ModelLookup::Unknown { name: name.to_owned(), why: Some(why) };
    let found_as = |entry: Entry, origin: ModelOrigin, how: Option<&model::Found>| match params::count(&entry) {
        Some(parameters) => ModelLookup::Found(Arc::new(ModelFacts {
            // A config.json read says what the model is; the name's match is then no assumption.
            matched: how.filter(|_| !matches!(origin, ModelOrigin::ConfigJson { .. })).and_then(model::Found::assumption),
            name_quantization: how.and_then(|f| f.quantization),
            name: name.to_owned(),
            entry,
            origin,
            parameters,
        })),
        None => ModelLookup::Unknown { name: name.to_owned(), why: Some("its parameter count overflows 64 bits".into()) },
    };
    let found = |entry: Entry, origin: ModelOrigin| found_as(entry, origin, None);
    // The manifest's `[models]` first: the user's statement wins over the catalog.
    if let Some(spec) = settings.manifest.models.iter().find(|(key, _)| key.eq_ignore_ascii_case(name)).map(|(_, spec)| spec) {
        return match (&spec.same_as, &spec.config) {
            (Some(same), None) => match model::lookup(same) {
                Some((entry, _)) => found(entry.clone(), ModelOrigin::ManifestSameAs),
                None => unknown(format!("the manifest's [models] `same-as = \"{same}\"` is not a catalog name either")),
            },
            (None, Some(config)) => match model::local::read(&settings.root.join(config), name, &settings.loader) {
                Ok(local) => found(local.entry, ModelOrigin::ConfigJson { display: local.display }),
                Err(why) => unknown(format!("the manifest's [models] `config`: {why}")),
            },
            _ => unknown("the manifest's [models] entry needs exactly one of `same-as` and `config`".into()),
        };
    }
    let dir = source.path().parent().unwrap_or(std::path::Path::new("."));
    let tried = match model::resolve(name) {
        Ok(how) if how.how == model::Match::Name => return found_as(how.entry.clone(), ModelOrigin::Catalog, Some(&how)),
        // A path matched by its last component(s), or a hub id matched by a re-upload organisation or
        // without variant suffixes: the model's own config.json (the folder's, or the Hugging Face
        // cache's), when it is there and readable, says more than its name; else the name is the
        // assumption, and the message says how it was matched.
        Ok(how) => {
            let origin = if model::is_path(name) { ModelOrigin::FolderName } else { ModelOrigin::Catalog };
            return match model::local::find(name, dir, &settings.loader) {
                Some(Ok(local)) => found_as(local.entry, ModelOrigin::ConfigJson { display: local.display }, Some(&how)),
                _ => found_as(how.entry.clone(), origin, Some(&how)),
            };
        }
        Err(tried) => tried,
    };
    if let Some((json, key)) = inline {
        return match model::local::from_config_json(&json.to_string(), name) {
            Ok(entry) => found(entry, ModelOrigin::Inline { key }),
            Err(why) => unknown(format!("the builder's arguments under `{key}`: {why}")),
        };
    }
    match model::local::find(name, dir, &settings.loader) {
        Some(Ok(local)) => found(local.entry, ModelOrigin::ConfigJson { display: local.display }),
        Some(Err(why)) => unknown(why),
        None => match model::unsupported(name) {
            Some(known) => ModelLookup::Unsupported { name: name.to_owned(), known },
            // What the name rules tried (issue 24 item 2: an unresolved id says what it tried).
            None => ModelLookup::Unknown { name: name.to_owned(), why: model::tried_reason(&tried) },
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `fill` for a config that names `model` and states `base_weights` (or not).
    fn filled(model: &str, base_weights: Option<&str>) -> (BTreeMap<Role, RoleValue>, Option<ModelLookup>) {
        let dir = std::env::temp_dir().join(format!("trainlint-resolve-model-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let settings = Settings::discover(std::slice::from_ref(&dir), &Default::default()).expect("settings");
        let source = Arc::new(SourceFile::new(dir.join("c.yml"), "c.yml", format!("base_model: {model}\n")));
        let value = |v: &str, path: &str| RoleValue {
            value: v.into(),
            path: path.into(),
            file: Arc::clone(&source),
            span: 0..1,
            key_span: 0..1,
            from_override: false,
            from_model: None,
        };
        let mut roles = BTreeMap::new();
        roles.insert(Role::Model, value(model, "base_model"));
        if let Some(width) = base_weights {
            roles.insert(Role::BaseWeights, value(width, "load_in_8bit"));
        }
        let lookup = fill(&mut roles, &source, &settings, None);
        (roles, lookup)
    }

    #[test]
    fn a_quantization_suffix_sets_base_weights_only_when_the_config_states_none() {
        let (roles, lookup) = filled("TechxGenus/Meta-Llama-3-70B-Instruct-GPTQ", None);
        let Some(ModelLookup::Found(facts)) = lookup else { panic!("found") };
        assert_eq!(facts.entry.id, "meta-llama/Meta-Llama-3-70B");
        assert!(facts.described().contains("`-GPTQ`"), "{}", facts.described());
        let base = &roles[&Role::BaseWeights];
        assert_eq!((base.value.as_str(), base.from_model.is_some()), (Some("int4"), true));
        assert_eq!(roles[&Role::Parameters].from_model.as_ref().map(|f| f.entry.id.as_str()), Some("meta-llama/Meta-Llama-3-70B"));
        // An 8-bit suffix.
        let (roles, _) = filled("Qwen/Qwen2.5-7B-Instruct-GPTQ-Int8", None);
        assert_eq!(roles[&Role::BaseWeights].value.as_str(), Some("int8"));
        // The config's own statement stays.
        let (roles, _) = filled("TechxGenus/Meta-Llama-3-70B-Instruct-GPTQ", Some("int8"));
        let base = &roles[&Role::BaseWeights];
        assert_eq!((base.value.as_str(), base.from_model.is_none()), (Some("int8"), true));
        // No quantization suffix: nothing filled.
        let (roles, _) = filled("NousResearch/Llama-2-70b-chat-hf", None);
        assert!(!roles.contains_key(&Role::BaseWeights));
        assert_eq!(roles[&Role::Parameters].as_u64(), model::by_id("meta-llama/Llama-2-70b-hf").map(|e| e.parameters));
    }

    #[test]
    fn an_unknown_name_says_what_the_rules_tried() {
        let (_, lookup) = filled("NousResearch/Llama-2-71b-chat-hf", None);
        let Some(ModelLookup::Unknown { why: Some(why), .. }) = lookup else { panic!("unknown with a reason") };
        assert!(why.starts_with("tried `NousResearch/Llama-2-71b-chat-hf`, `Llama-2-71b-chat-hf`, `NousResearch/Llama-2-71b-chat` (`-hf` dropped)"), "{why}");
        let (_, lookup) = filled("my-org/my-model", None);
        let Some(ModelLookup::Unknown { why: Some(why), .. }) = lookup else { panic!("unknown with a reason") };
        assert!(why.starts_with("tried `my-org/my-model`; no variant suffix to drop"), "{why}");
    }
}
