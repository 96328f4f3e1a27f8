//! The dialect registry: what trainlint knows about each framework's configs,
//! one file per framework, each implementing [`Framework`].
//!
//! A dialect says how a file shows it is written for the framework (its
//! evidence), which keys hold which roles (bindings, and values derived from
//! switches such as `bf16: true`), the framework's batch semantics, how it
//! learns its world size, the keys it knows (SCH003), whether it interpolates
//! `${...}`, its resolution-bearing spellings (RES001) and the mappings its
//! migrations look at. Detection, `show`, the manifest's `[dialects]`, the
//! docs and the migration rules all ask [`ALL`].
//!
//! This layer reads trees only: no settings, no filesystem. What it needs
//! from above (the manifest's `[bindings]`, a Hydra tree lookup) is passed in
//! [`Evidence`].

use crate::load::{Node, Value};
use crate::schema::{Manifest, Role};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// The registry, in detection order: the first dialect whose key evidence
/// matches wins; when none does, the first whose layout evidence matches.
/// One line per dialect: `module => CONSTANT`.
macro_rules! registry {
    ($($module:ident => $constant:ident),* $(,)?) => {
        $(pub mod $module;)*
        /// Every dialect, in detection order.
        pub const ALL: &[Dialect] = &[$($module::$constant),*];
    };
}

registry! {
    native => NATIVE,
    openrlhf => OPENRLHF,
    gpt_neox => GPT_NEOX,
    deepspeed => DEEPSPEED,
    accelerate => ACCELERATE,
    torchtune => TORCHTUNE,
    axolotl => AXOLOTL,
    llama_factory => LLAMA_FACTORY,
    litgpt => LITGPT,
    hf_trainer => HF_TRAINER,
    olmo => OLMO,
    mcli => MCLI,
    llm_foundry => LLM_FOUNDRY,
    nemo => NEMO,
    nanotron => NANOTRON,
    maxtext => MAXTEXT,
    torchtitan => TORCHTITAN,
    megatron_deepspeed => MEGATRON_DEEPSPEED,
    megatron => MEGATRON,
    levanter => LEVANTER,
    lightning => LIGHTNING,
    hydra => HYDRA,
    model_config => MODEL_CONFIG,
    shell => SHELL,
    bindings => BINDINGS,
    unknown => UNKNOWN,
}

/// Everything trainlint knows about one framework's configs. Every method but
/// `name` and `title` has a default: a framework states only what it has.
pub trait Framework: Sync {
    /// The one spelling of the dialect: `show`, JSON output, the manifest's
    /// `[dialects]` values, the docs.
    fn name(&self) -> &'static str;

    /// The framework's name in prose ("DeepSpeed").
    fn title(&self) -> &'static str;

    /// The dialect's row in the book (`book/src/dialects.md`, generated).
    fn doc(&self) -> Doc;

    /// Not a framework: a dialect trainlint assigns by file format or by the
    /// manifest rather than by a framework's keys.
    fn pseudo(&self) -> bool {
        false
    }

    /// Whether the framework's configs are TOML files (torchtitan's `tomllib`). A TOML file is
    /// only ever read as one of these, and these read only TOML files: `pyproject.toml`,
    /// `Cargo.toml` or a YAML file with the same keys is never taken for one (`detect`).
    fn reads_toml(&self) -> bool {
        false
    }

    /// Evidence, from the file's keys, that the file is written for this
    /// framework, in words (shown by `trainlint show`).
    fn evidence(&self, _cx: &Evidence) -> Option<String> {
        None
    }

    /// Evidence from a launch script's launch line: the program it starts (`pretrain_gpt.py`, as
    /// written) and its flags read as a tree (`--micro-batch-size 4` → `micro_batch_size: 4`).
    /// Asked before key evidence, for frameworks whose flags alone are too plain to tell.
    fn launch_evidence(&self, _program: &str, _flags: &Node) -> Option<String> {
        None
    }

    /// Evidence from where the file lies or from the manifest; asked only
    /// when no dialect's key evidence matched.
    fn layout_evidence(&self, _cx: &Evidence) -> Option<String> {
        None
    }

    /// Role → key path (relative to the file's root).
    fn bindings(&self, _manifest: &Manifest) -> Vec<(Role, String)> {
        Vec::new()
    }

    /// Roles spelled as switches or under other keys, read from the tree.
    fn derived(&self, _root: &Node) -> Vec<Derived> {
        Vec::new()
    }

    /// `derived`, for a run whose launch line's program is known (`src/open_r1/grpo.py`, as
    /// written: `resolve` passes the program of a launch script's own launch line, or of the
    /// launch that passes the config). A framework whose programs say what their flags do not
    /// (TRL's GRPO scripts: GRPOConfig's defaults) overrides it; the others derive from the keys.
    fn derived_launched(&self, root: &Node, _program: Option<&str>) -> Vec<Derived> {
        self.derived(root)
    }

    /// How the framework relates its batch values.
    fn batch(&self) -> BatchSemantics {
        BatchSemantics::default()
    }

    /// How the framework learns its data-parallel world size.
    fn world_size(&self) -> WorldSize {
        WorldSize::Launcher
    }

    /// The keys the framework knows, for SCH003.
    fn known_keys(&self, _root: &Node) -> Option<KnownKeys> {
        None
    }

    /// A key as the framework matches it against its known keys (SCH003): GPT-NeoX reads
    /// `pipe-parallel-size` as `pipe_parallel_size`. The key itself by default.
    fn known_key_spelling(&self, key: &str) -> String {
        key.to_owned()
    }

    /// Whether the framework spreads this config's layers over pipeline stages without needing the
    /// pipeline degree to divide them (it balances them by cost, or the config lays the stages out
    /// itself; the dialect file cites where): PAR001 then does not ask layers ÷ pipeline parallel
    /// to be whole, as Megatron-LM does for an even split.
    fn pipeline_balances_layers(&self, _root: &Node) -> bool {
        false
    }

    /// Keys the framework renamed: an old name is reported (SCH003) with its new name as the
    /// rename, whatever the spelling distance.
    fn renamed_keys(&self) -> &'static [Renamed] {
        &[]
    }

    /// The path a launch line's `key=value` override sets in this framework's config: the
    /// key itself, unless the framework routes it elsewhere (torchtune sets a component's
    /// `_component_`).
    fn override_path(&self, _root: &Node, key: &str) -> String {
        key.to_owned()
    }

    /// Whether the framework reads its files with OmegaConf: `${...}` is
    /// interpolated and plain scalars are typed as YAML 1.1.
    fn interpolates(&self) -> bool {
        false
    }

    /// The top-level key whose mapping is the config the framework loads, when the file wraps it
    /// (a MosaicML run file's `parameters:`, written to `/mnt/config/parameters.yaml`): `${...}`
    /// paths are relative to it. `None`: the file's root.
    fn interpolation_root(&self, _root: &Node) -> Option<&'static str> {
        None
    }

    /// The architecture a config spells out itself rather than naming a checkpoint (a generic
    /// model builder called with its dimensions): a Hugging Face config.json-like object
    /// (`model_type`, `hidden_size`, …, read by `model::local::from_config_json`) and the key
    /// that holds it.
    fn inline_architecture(&self, _root: &Node) -> Option<(serde_json::Value, String)> {
        None
    }

    /// Whether the framework reads its YAML with PyYAML's `safe_load` (YAML 1.1): integers with
    /// `_` separators (`500_000`), `yes`/`no`/`on`/`off` booleans, `0b` binary and leading-zero
    /// octal are typed as YAML 1.1 types them (PyYAML `resolver.py` `Resolver.add_implicit_resolver`).
    fn pyyaml(&self) -> bool {
        false
    }

    /// Whether `5e-5` in the framework's YAML reaches it as a string: PyYAML's
    /// YAML 1.1 float pattern needs a dot and a signed exponent, and nothing
    /// coerces the value afterwards (SCH008).
    fn exponent_without_dot_is_string(&self) -> bool {
        false
    }

    /// trainlint's native format, validated against its JSON Schema.
    fn is_native(&self) -> bool {
        false
    }

    /// A file of a Hydra config tree: keys it interpolates may come from
    /// the composed config.
    fn composed_by_hydra(&self) -> bool {
        false
    }

    /// Key names of a maximum sequence length (higher is finer, RES001).
    fn sequence_length_keys(&self) -> &'static [&'static str] {
        &[]
    }

    /// The mappings of a file that the framework's migrations (MIG rules) look at.
    fn migration_scopes<'a>(&self, _root: &'a Node) -> Vec<&'a Node> {
        Vec::new()
    }

    /// The Python distributions (PyPI names, PEP 503-normalised) whose
    /// version is the framework's version, as requirement and lock files name
    /// them: what version-gated migrations read (`resolve::versions`).
    fn distributions(&self) -> &'static [&'static str] {
        &[]
    }

    /// For a framework that builds TRL's GRPOConfig itself from its own keys (Axolotl's `trl:`
    /// section): its versions, oldest first from the first that runs GRPO, with the TRL minor
    /// release (0.x; 19 for 0.19 and later) each pins. The project's version of the framework
    /// then says which GRPO releases are possible (`estimate::grpo::candidates`), and no release
    /// older than the first pin's is; the HF dialect's GRPOConfig keys raise none (the framework's
    /// schema, not TRL's parser, reads them). Empty: TRL's own configs.
    fn grpo_trl_pins(&self) -> &'static [(&'static [u64], u64)] {
        &[]
    }

    /// A setting the config states that changes the peak memory in a way the
    /// memory model does not read yet (a referenced DeepSpeed or FSDP config, a
    /// memory-saving optimizer): its key path and why. The run is then "not
    /// estimated" (MEM004) rather than priced as an unsharded AdamW run, which
    /// would report a false "does not fit".
    /// Roles a config's own header comment states, for frameworks whose configs say in a
    /// comment which program runs them (torchtune: `tune run … <recipe> --config …`).
    fn comment_roles(&self, _text: &str) -> Vec<CommentRole> {
        Vec::new()
    }

    /// The key that names a DeepSpeed config file this config hands to DeepSpeed
    /// (TrainingArguments' `deepspeed`); the resolver reads the file through the loader
    /// for its ZeRO stage and offload settings.
    fn deepspeed_file_key(&self) -> Option<&'static str> {
        None
    }

    /// Where the framework refuses to start when the config's device count (× nodes) differs
    /// from the processes its launcher started (Lightning's `validate_settings`), for BAT009;
    /// `None`: the launcher's count wins without a word.
    fn refuses_other_world(&self) -> Option<&'static str> {
        None
    }

    fn memory_unmodelled(&self, _root: &Node) -> Option<Unmodelled> {
        None
    }

    /// The precision an `auto` precision resolves to on a card with (`bf16`) or without native
    /// bf16, where the framework decides it from the card alone; `None` where it is not known
    /// before launch. The memory model prices that precision on each GPU target.
    fn auto_precision(&self, _root: &Node, _bf16: bool) -> Option<&'static str> {
        None
    }

    /// Why the sequence length the config states is only a cap: each batch is padded to its
    /// longest sample (no packing), so the memory at that length is reached only by data that
    /// long. `None` where every sample is that long (packing, padding to the length) or the
    /// framework does not say. The estimate is at the cap; MEM001's sure claim is not (the
    /// band's low end is at the shortest length, `estimate::MemoryModel::build`).
    fn sequence_cap(&self, _root: &Node) -> Option<String> {
        None
    }

    /// Why a frozen reference model sharded with FSDP keeps its root unit (embeddings, output
    /// head, final norm) gathered through the whole step, for the memory model: the framework
    /// shards it with the root's `reshard_after_forward=False` and runs it only under
    /// `torch.no_grad()`, so no backward ever reshards it. `None` where the framework does not.
    fn fsdp_reference_root_gathered(&self) -> Option<&'static str> {
        None
    }

    /// Why the config describes no training run (an evaluation, generation, inference,
    /// merge or export config of the framework): its training memory is not estimated
    /// and the memory rules say nothing about it.
    fn not_training(&self, _root: &Node) -> Option<String> {
        None
    }

    /// Keys the framework requires at one value (it raises at start-up
    /// otherwise), for this file: SCH002 where the file sets another value.
    fn pinned_values(&self, _root: &Node) -> Vec<Pinned> {
        Vec::new()
    }
}

/// A key the framework renamed (`Framework::renamed_keys`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Renamed {
    /// The old name, as `Framework::known_key_spelling` spells it.
    pub old: &'static str,
    pub new: &'static str,
    /// Where the framework renamed it.
    pub why: &'static str,
}

/// A key the framework requires at one value (`Framework::pinned_values`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pinned {
    /// The dotted key path.
    pub path: &'static str,
    pub value: i64,
    /// Why, with the framework source that enforces it.
    pub reason: &'static str,
}

/// A memory-relevant setting the memory model does not read yet (`Framework::memory_unmodelled`).
/// A role read from a comment: its value and the bytes of the text that say it.
#[derive(Clone, Debug, PartialEq)]
pub struct CommentRole {
    pub role: Role,
    pub value: serde_json::Value,
    pub span: std::ops::Range<usize>,
    /// What the comment is, for `show` (`header comment: tune run … lora_finetune_distributed`).
    pub what: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unmodelled {
    /// The dotted key path it is written at.
    pub path: String,
    pub reason: String,
}

/// The first of `keys` the root sets (a true switch, a non-empty string, list or
/// mapping), with the reason given for it.
pub(crate) fn first_set(root: &Node, keys: &[(&str, &str)]) -> Option<Unmodelled> {
    keys.iter().find_map(|(key, reason)| {
        let node = root.get_dotted(key)?;
        let set = match &node.value {
            Value::Bool(on) => *on,
            Value::Str(text) => !text.trim().is_empty() && !matches!(text.trim(), "false" | "False" | "null" | "none" | "None"),
            Value::Seq(items) => !items.is_empty(),
            Value::Map(entries) => !entries.is_empty(),
            _ => false,
        };
        set.then(|| Unmodelled { path: (*key).to_owned(), reason: (*reason).to_owned() })
    })
}

/// A dialect: a `Copy` handle on a registered [`Framework`]. Two handles are
/// equal when they name the same dialect.
#[derive(Clone, Copy)]
pub struct Dialect(pub &'static dyn Framework);

impl std::ops::Deref for Dialect {
    type Target = dyn Framework;
    fn deref(&self) -> &Self::Target {
        self.0
    }
}

impl PartialEq for Dialect {
    fn eq(&self, other: &Self) -> bool {
        self.0.name() == other.0.name()
    }
}

impl Eq for Dialect {}

impl std::fmt::Debug for Dialect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.name())
    }
}

impl Serialize for Dialect {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.0.name())
    }
}

/// A dialect's name, one of the registered ones.
impl schemars::JsonSchema for Dialect {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Dialect".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let names: Vec<&str> = ALL.iter().map(|d| d.name()).collect();
        schemars::json_schema!({"description": "The dialect the file is read as.", "type": "string", "enum": names})
    }
}

/// The registered dialect of this name.
pub(crate) fn by_name(name: &str) -> Option<Dialect> {
    ALL.iter().copied().find(|d| d.name() == name)
}

/// What detection may look at.
pub struct Evidence<'a> {
    pub root: &'a Node,
    /// The file's path, where known (a curriculum base or a composed tree has none).
    pub path: Option<&'a Path>,
    /// The key paths of the manifest's `[bindings]`.
    pub bound_paths: &'a [&'a str],
    /// The primary config of the Hydra config tree a file lies in (the caller looks it up).
    pub hydra_primary: &'a dyn Fn(&Path) -> Option<PathBuf>,
}

impl Evidence<'_> {
    pub fn has(&self, key: &str) -> bool {
        self.root.get(key).is_some()
    }

    /// The keys of `keys` the file has at its top level, each in backticks.
    pub(crate) fn listed(&self, keys: &[&str]) -> Vec<String> {
        keys.iter().filter(|k| self.has(k)).map(|k| format!("`{k}`")).collect()
    }

    /// The manifest's `[bindings]` paths that exist in the file.
    pub(crate) fn bound(&self) -> Vec<&str> {
        self.bound_paths.iter().copied().filter(|p| self.root.entry_dotted(p).is_some()).collect()
    }
}

/// The first dialect whose key evidence matches, else the first whose layout
/// evidence does; the last dialect (`unknown`) always matches.
/// The first framework whose key evidence a tree alone shows (no path, no manifest, no layout:
/// a launch line's flags say nothing by where the script lies); pseudo-dialects are not frameworks.
pub(crate) fn detect_by_keys(root: &Node) -> Option<(Dialect, String)> {
    let cx = Evidence { root, path: None, bound_paths: &[], hydra_primary: &|_| None };
    ALL.iter().filter(|d| !d.pseudo() && !d.reads_toml()).find_map(|d| d.evidence(&cx).map(|why| (*d, why)))
}

/// The framework a launch line's flags show: the first whose launch evidence the program and its
/// flags give (`pretrain_gpt.py --micro-batch-size 4`), else the first whose key evidence the flags
/// alone show (`detect_by_keys`).
pub(crate) fn detect_launch(flags: &Node, program: Option<&str>) -> Option<(Dialect, String)> {
    let by_program = program.and_then(|program| ALL.iter().filter(|d| !d.pseudo()).find_map(|d| d.launch_evidence(program, flags).map(|why| (*d, why))));
    by_program.or_else(|| detect_by_keys(flags))
}

pub(crate) fn detect(cx: &Evidence) -> (Dialect, String) {
    // TOML is read only by the frameworks that read TOML, by their keys alone; they read nothing else.
    let toml = cx.path.and_then(crate::load::Format::from_path) == Some(crate::load::Format::Toml);
    if toml {
        return ALL
            .iter()
            .filter(|d| d.reads_toml())
            .find_map(|d| d.evidence(cx).map(|why| (*d, why)))
            .unwrap_or_else(|| (unknown::UNKNOWN, unknown::toml_reason()));
    }
    for dialect in ALL.iter().filter(|d| !d.reads_toml()) {
        if let Some(reason) = dialect.evidence(cx) {
            return (*dialect, reason);
        }
    }
    for dialect in ALL.iter().filter(|d| !d.reads_toml()) {
        if let Some(reason) = dialect.layout_evidence(cx) {
            return (*dialect, reason);
        }
    }
    (unknown::UNKNOWN, unknown::reason())
}

/// What the book says about a dialect, in Markdown.
pub struct Doc {
    /// What detection looks for.
    pub evidence: &'static str,
    /// The roles' key paths and switches.
    pub roles: &'static str,
    /// What the framework does with them that trainlint follows.
    pub semantics: &'static str,
}

/// A role whose value is derived from switches, with the key it is read from.
pub struct Derived {
    pub role: Role,
    pub value: serde_json::Value,
    pub path: String,
    /// A framework default whose key the config does not write: the key it is shown at
    /// (a findings' span) while `path` names the setting (`push_default`).
    pub anchor: Option<String>,
}

/// Collects derived roles.
#[derive(Default)]
pub struct DerivedRoles(pub Vec<Derived>);

impl DerivedRoles {
    pub fn push(&mut self, role: Role, value: serde_json::Value, path: &str) {
        self.0.push(Derived { role, value, path: path.to_owned(), anchor: None });
    }

    /// A framework's default for a setting the config leaves out (`path`, absent from the
    /// tree), located at `anchor`, a key the config has.
    pub(crate) fn push_default(&mut self, role: Role, value: serde_json::Value, path: &str, anchor: &str) {
        self.0.push(Derived { role, value, path: path.to_owned(), anchor: Some(anchor.to_owned()) });
    }

    /// Each `(role, key)` under `prefix` that the tree has, with its value as written.
    pub fn copy(&mut self, root: &Node, prefix: &str, keys: &[(Role, &str)]) {
        for (role, key) in keys {
            let path = format!("{prefix}{key}");
            if let Some(node) = root.get_dotted(&path) {
                self.push(*role, node.to_json(), &path);
            }
        }
    }
}

/// A switch that is on: `true`, `"true"`, `"auto"`, or a non-zero integer (Python's truth of
/// `1`, and HfArgumentParser's `string_to_bool`, which reads `--gradient_checkpointing 1` as True).
pub(crate) fn truthy(root: &Node, path: &str) -> bool {
    root.get_dotted(path)
        .is_some_and(|n| n.value == Value::Bool(true) || n.as_str() == Some("auto") || n.as_str() == Some("true") || matches!(n.value, Value::Int(i) if i != 0))
}

/// Whether `key` occurs in the tree within `depth` levels.
pub(crate) fn contains_key(node: &Node, key: &str, depth: usize) -> bool {
    if depth == 0 {
        return false;
    }
    match &node.value {
        Value::Map(entries) => entries.iter().any(|e| e.key == key || contains_key(&e.value, key, depth - 1)),
        Value::Seq(items) => items.iter().any(|i| contains_key(i, key, depth - 1)),
        _ => false,
    }
}

/// A static binding table as owned pairs.
pub(crate) fn owned(table: &[(Role, &str)]) -> Vec<(Role, String)> {
    table.iter().map(|(r, p)| (*r, (*p).to_owned())).collect()
}

/// How a framework relates micro batch, accumulation and global batch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BatchSemantics {
    /// The global batch key counts per process: the framework multiplies it by the world itself.
    pub global_batch_per_process: bool,
    /// Accumulation without a micro or global batch is an error (the framework asserts).
    pub needs_batch_size: bool,
    /// `"auto"` batch values are filled at launch from a paired trainer config (the manifest's `[[pair]]`).
    pub auto_from_pair: bool,
    /// The config states the global and the micro batch, and the framework derives the
    /// accumulation by floor division, `global ÷ world ÷ micro`: it trains micro ×
    /// accumulation × world, less than the global batch when the division has a remainder,
    /// and refuses to start when the accumulation floors to 0. Without a global or a micro
    /// batch the framework's default for the missing one applies (the dialect file cites it),
    /// so nothing is derived.
    pub accumulation_floors: bool,
    /// With `accumulation_floors`: the global batch is divided by the devices of one node, not
    /// by the world, `⌊⌊global ÷ devices⌋ ÷ micro⌋`, so each node trains the whole global batch
    /// (litgpt before 0.5.8: `TrainArgs.batch_size(devices)`). Set from the project's version of
    /// the framework (`resolve::versions::batch_semantics`), never by a dialect's `batch()`.
    pub accumulation_per_node: bool,
    /// The global batch is split evenly over the world (the framework raises when the
    /// world does not divide it); each device cuts its share into micro batches, the
    /// last one possibly smaller, so accumulation = ⌈device batch ÷ micro batch⌉ and
    /// the effective batch is the global batch. A micro batch `"auto"` is chosen at
    /// run time and derives no accumulation.
    pub global_split_over_world: bool,
    /// What the framework does when a value it derives by division (the accumulation from the
    /// global batch) is not whole, with its source: BAT003's note. `None`: DeepSpeed's
    /// floor-then-assert.
    pub indivisible: Option<&'static str>,
    /// The framework has no accumulation key: it always derives the accumulation from the
    /// global batch, `global ÷ (micro × world)` (torchtitan's `train.py`). A fix that keeps the
    /// global batch writes only the micro batch.
    pub accumulation_from_global: bool,
}

/// Lightning's check of its devices against the launcher's processes (`Framework::refuses_other_world`).
pub(crate) const LIGHTNING_VALIDATES_WORLD: &str =
    "`validate_settings` of its cluster environments: lightning/fabric/plugins/environments/torchelastic.py for torchrun, slurm.py for SLURM";

/// How a framework learns its data-parallel world size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WorldSize {
    /// From the launcher (`torchrun`, `deepspeed`, `accelerate launch`): only
    /// `--world-size` or the manifest's `world-size` tell it.
    Launcher,
    /// From the config's devices (× nodes) roles; a devices value that is not
    /// a positive count (`-1`, `"auto"`: every visible GPU) leaves it to `--world-size`.
    Devices,
}

/// The keys a framework knows in one mapping of a file.
pub struct KnownKeys {
    /// The dotted path of the mapping (`""`: the top level).
    pub path: String,
    pub keys: &'static [&'static str],
    /// The framework raises on an unknown key: report each one. Otherwise the
    /// framework ignores unknown keys and only a near miss of a known key is reported.
    pub strict: bool,
    /// Keys another rule reports with their replacement (removed arguments).
    pub reported_elsewhere: &'static [&'static str],
}

/// What the dialects' unit tests share: a YAML tree from text, and the dialect detection gives it.
#[cfg(test)]
pub(crate) mod test_support {
    use super::Evidence;
    use crate::load::Node;

    pub fn parse(text: &str) -> Node {
        crate::load::yaml::parse(text).expect("valid YAML").root
    }

    pub(crate) fn detected(text: &str) -> &'static str {
        let root = parse(text);
        let no_tree = |_: &std::path::Path| None;
        super::detect(&Evidence { root: &root, path: None, bound_paths: &[], hydra_primary: &no_tree }).0.name()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn detect_yaml(text: &str, path: Option<&Path>, bound_paths: &[&str]) -> (Dialect, String) {
        let root = crate::load::yaml::parse(text).expect("valid YAML").root;
        let no_tree = |_: &Path| None;
        detect(&Evidence { root: &root, path, bound_paths, hydra_primary: &no_tree })
    }

    #[test]
    fn names_are_unique_kebab_case_and_found_by_name() {
        for (i, dialect) in ALL.iter().enumerate() {
            assert!(dialect.name().chars().all(|c| c.is_ascii_lowercase() || c == '-'), "{}", dialect.name());
            assert_eq!(ALL.iter().position(|d| d == dialect), Some(i), "{} is registered twice", dialect.name());
            assert_eq!(by_name(dialect.name()), Some(*dialect));
        }
        assert_eq!(by_name("manifest bindings"), None);
    }

    #[test]
    fn registry_order_is_detection_order() {
        // DeepSpeed keys and HF keys in one file: DeepSpeed is registered first.
        let both = "train_micro_batch_size_per_gpu: 4\nper_device_train_batch_size: 4\noutput_dir: out\nnum_train_epochs: 1\n";
        assert_eq!(detect_yaml(both, None, &[]).0.name(), "deepspeed");
        // `base_model` with Axolotl keys and HF keys: Axolotl is registered before HF.
        let axolotl = "base_model: m\nmicro_batch_size: 2\noutput_dir: out\nnum_train_epochs: 1\n";
        assert_eq!(detect_yaml(axolotl, None, &[]).0.name(), "axolotl");
        // Key evidence before layout evidence: a Trainer mapping in a `version_N/hparams.yaml`.
        let hparams = Path::new("logs/version_3/hparams.yaml");
        assert_eq!(
            detect_yaml("trainer:\n  devices: 2\n  max_epochs: 3\n", Some(hparams), &[]).1,
            "a `trainer:` mapping of Lightning Trainer arguments (LightningCLI)"
        );
        assert_eq!(detect_yaml("lr: 0.1\n", Some(hparams), &[]).0.name(), "lightning");
        // A TOML file is read only by the TOML frameworks, before any order: DeepSpeed's keys in
        // TOML are nobody's, torchtitan's tables in YAML are not torchtitan's.
        let toml = |text: &str, path: &str| {
            let root = crate::load::toml::parse(text).expect("valid TOML");
            let no_tree = |_: &Path| None;
            detect(&Evidence { root: &root, path: Some(Path::new(path)), bound_paths: &["training.local_batch_size"], hydra_primary: &no_tree }).0.name()
        };
        assert_eq!(toml("[training]\nlocal_batch_size = 2\n[parallelism]\ntensor_parallel_degree = 2\n", "llama3_8b.toml"), "torchtitan");
        assert_eq!(toml("train_micro_batch_size_per_gpu = 4\n", "ds_config.toml"), "unknown");
        assert_eq!(toml("[training]\nlocal_batch_size = 2\n", "x.toml"), "unknown", "not the manifest's [bindings] either");
        assert_ne!(
            detect_yaml("training:\n  local_batch_size: 2\nparallelism:\n  tensor_parallel_degree: 2\n", Some(Path::new("a.yaml")), &[]).0.name(),
            "torchtitan"
        );
        // OLMo shares llm-foundry's batch keys and adds its own: it is registered before llm-foundry,
        // whose files (`model.name`, no OLMo key) stay llm-foundry's.
        let olmo = "global_train_batch_size: 2048\ndevice_train_microbatch_size: 2\nmodel:\n  d_model: 4096\n  block_type: sequential\n";
        assert_eq!(detect_yaml(olmo, None, &[]).0.name(), "olmo");
        let foundry = "global_train_batch_size: 256\nmodel:\n  name: mpt_causal_lm\n  d_model: 1024\nsave_overwrite: true\n";
        assert_eq!(detect_yaml(foundry, None, &[]).0.name(), "llm-foundry");
        // A MosaicML run file wraps an llm-foundry config in `parameters:`, beside `compute.gpus`.
        let mcli = "compute:\n  gpus: 8\ncommand: composer train/train.py /mnt/config/parameters.yaml\nparameters:\n  global_train_batch_size: 256\n";
        assert_eq!(detect_yaml(mcli, None, &[]).0.name(), "mcli");
        // Megatron-LM's `MODEL_ARGS` is its own key: no dialect registered before it reads one,
        // and a NeMo test case's `MODEL_ARGS` of Hydra overrides is not Megatron's.
        let megatron =
            "ENV_VARS:\n  CUDA_DEVICE_MAX_CONNECTIONS: 1\nMODEL_ARGS:\n  --micro-batch-size: 4\n  --num-layers: 12\n  --bf16: true\nTEST_TYPE: regular\n";
        assert_eq!(detect_yaml(megatron, None, &[]).0.name(), "megatron-lm");
        let nemo = "MODEL_ARGS:\n  trainer.devices: 8\n  data.micro_batch_size: 2\n";
        assert_ne!(detect_yaml(nemo, None, &[]).0.name(), "megatron-lm");
        // Levanter is registered before Lightning: its `trainer:` (`TrainerConfig`) is read as
        // Levanter's, and a Lightning Trainer mapping, even with a Levanter key in it, stays
        // Lightning's (draccus would refuse `devices`, Lightning `train_batch_size`).
        let levanter = "model:\n  type: llama\ntrainer:\n  mp: p=f32,c=bfloat16\n  per_device_parallelism: -1\n  train_batch_size: 256\n";
        assert_eq!(detect_yaml(levanter, None, &[]).0.name(), "levanter");
        let lightning = "model:\n  lr: 0.1\ntrainer:\n  devices: 2\n  max_epochs: 3\n  profiler: simple\n  train_batch_size: 256\n";
        assert_eq!(detect_yaml(lightning, None, &[]).0.name(), "lightning");
        assert_eq!(detect_yaml("trainer:\n  devices: 2\n  max_epochs: 3\n", None, &[]).0.name(), "lightning");
        // A launch line's program is asked before the flags' keys: `pretrain_gpt.py` with
        // Megatron's flags is Megatron-LM's, the same flags for another program are no framework's.
        let flags = crate::load::yaml::parse("micro_batch_size: 4\ntensor_model_parallel_size: 2\n").expect("valid YAML").root;
        assert_eq!(detect_launch(&flags, Some("pretrain_gpt.py")).map(|d| d.0.name()), Some("megatron-lm"));
        assert_eq!(detect_launch(&flags, Some("train.py")).map(|d| d.0.name()), None);
        // With `--deepspeed` the same launch is Megatron-DeepSpeed's: it is registered before
        // Megatron-LM, which leaves such a launch to it.
        let flags = crate::load::yaml::parse("micro_batch_size: 4\ntensor_model_parallel_size: 2\ndeepspeed: true\n").expect("valid YAML").root;
        assert_eq!(detect_launch(&flags, Some("pretrain_gpt.py")).map(|d| d.0.name()), Some("megatron-deepspeed"));
    }

    #[test]
    fn manifest_bindings_then_unknown() {
        let (dialect, reason) = detect_yaml("loader:\n  batch: 8\n", None, &["loader.batch", "absent.path"]);
        assert_eq!((dialect.name(), reason.as_str()), ("bindings", "the manifest's [bindings] match loader.batch"));
        let (dialect, reason) = detect_yaml("loader:\n  batch: 8\n", None, &["absent.path"]);
        assert_eq!(dialect.name(), "unknown");
        assert!(reason.starts_with("no framework's keys found (native, OpenRLHF, GPT-NeoX, DeepSpeed,"), "{reason}");
        assert!(!reason.contains("shell script"), "pseudo-dialects are not listed: {reason}");
    }
}
