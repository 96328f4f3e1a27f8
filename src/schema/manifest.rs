//! The manifest: `trainlint.toml`, or `[tool.trainlint]` in `pyproject.toml`.

use super::gpu_target::GpuTarget;
use super::role::Role;
use super::training_config::Memory;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// trainlint's project configuration.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
#[schemars(title = "trainlint manifest")]
pub struct Manifest {
    /// Rule codes or prefixes to enable (default: all). `"ALL"` selects every rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = ["ALL"]), example = ["BAT", "MEM001"])]
    pub select: Option<Vec<String>>,
    /// Rule codes or prefixes to enable on top of `select`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("default" = []), example = ["RES"])]
    pub extend_select: Vec<String>,
    /// Rule codes or prefixes to disable. The most specific selector wins (`select = ["BAT001"]`
    /// with `ignore = ["BAT"]` keeps BAT001); an ignore wins over an equally specific select.
    /// `--select` on the command line starts over from its own list (this `ignore` no longer
    /// applies), `--extend-select` and `--ignore` add to it, as in ruff.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("default" = []), example = ["SCH004", "MEM003"])]
    pub ignore: Vec<String>,
    /// Rule codes or prefixes to disable on top of `ignore` (the same as adding them to
    /// `ignore`, as in ruff, where `extend-ignore` is kept for configurations that compose).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("default" = []), example = ["MEM003"])]
    pub extend_ignore: Vec<String>,
    /// Severity per rule code or prefix, e.g. `MEM003 = "warning"` (the most specific wins).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[schemars(extend("default" = {}), example = serde_json::json!({"MEM003": "warning", "BAT": "error"}))]
    pub severity: BTreeMap<String, crate::diagnostic::Severity>,
    /// Glob patterns (relative to the manifest) of files and folders never walked;
    /// replaces the default list (version control, virtual environments, caches,
    /// CI and editor folders, build outputs, and the run folders of Hydra, W&B,
    /// Lightning and MLflow). A file named on the command line is checked even
    /// when excluded, unless `--force-exclude`. `--exclude` on the command line
    /// replaces this list, as in ruff.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(transform = default_exclude, example = ["outputs", "wandb", "third_party/**"])]
    pub exclude: Option<Vec<String>>,
    /// Glob patterns excluded on top of `exclude` (`--extend-exclude` adds more; both
    /// still apply when `--exclude` replaces `exclude`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("default" = []), example = ["experiments/old/**"])]
    pub extend_exclude: Vec<String>,
    /// When walking folders, skip what `.gitignore`, `.ignore`, `.git/info/exclude`
    /// and git's global excludes ignore, and hidden files and folders (default `true`,
    /// as ruff; `--no-respect-gitignore` overrides). Files named on the command line are always checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = true), example = false)]
    pub respect_gitignore: Option<bool>,
    /// List every info finding in the `full` and `concise` formats (default `false`:
    /// one line per code with its count; `--show-infos` overrides). JSON, SARIF and
    /// GitHub output always carry every finding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = false), example = true)]
    pub show_infos: Option<bool>,
    /// Rule codes ignored per glob pattern (relative to the manifest; a pattern without a `/`
    /// also matches a file name anywhere); the only way to silence a JSON file.
    /// `--per-file-ignores` replaces it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[schemars(extend("default" = {}), example = serde_json::json!({"deepspeed/*.json": ["SCH004"]}))]
    pub per_file_ignores: BTreeMap<String, Vec<String>>,
    /// Rule codes ignored per glob pattern, on top of `per-file-ignores` (kept when
    /// `--per-file-ignores` replaces that; `--extend-per-file-ignores` adds to both).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[schemars(extend("default" = {}), example = serde_json::json!({"experiments/**": ["MEM003"]}))]
    pub extend_per_file_ignores: BTreeMap<String, Vec<String>>,
    /// Data-parallel world size when a config does not state a device count (no devices key, `auto`, `-1`: the launcher decides); `--world-size` overrides.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "positive")]
    #[schemars(range(min = 1), extend("default" = null), example = 8)]
    pub world_size: Option<u32>,
    /// The effective batch every config and stage must keep.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "positive")]
    #[schemars(range(min = 1), extend("default" = null), example = 256)]
    pub effective_batch: Option<u32>,
    /// Fraction of a GPU's capacity a run may use (default 1: the estimate's measured band is
    /// the margin; set less for headroom beyond it).
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "margin")]
    #[schemars(range(min = 0.1, max = 1.0), extend("default" = 1), example = 0.9)]
    pub safety_margin: Option<f64>,
    /// GPU targets (catalog or custom ids) to check against (`--gpu` overrides).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("default" = []), example = ["rtx-4090", "a100-80gb"])]
    pub gpus: Vec<String>,
    /// Custom GPU targets, as `[[gpu]]` tables.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("default" = []), example = serde_json::json!([{"id": "lab-a6000-ecc", "name": "NVIDIA RTX A6000", "memory-mib": 48676, "compute-capability": "8.6", "bf16": true, "fp8": false, "sources": ["nvidia-smi on the lab machine"]}]))]
    pub gpu: Vec<GpuTarget>,
    /// Dialect per glob (relative to the manifest), overriding detection, e.g.
    /// `"recipes/**/*.yaml" = "hf-trainer"`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[schemars(extend("default" = {}), example = serde_json::json!({"recipes/**/*.yaml": "hf-trainer", "ds/*.json": "deepspeed"}))]
    pub dialects: BTreeMap<String, String>,
    /// The version of a framework the project trains with, by dialect name
    /// (`lightning = "2.2"`, `deepspeed`, `litgpt`, …) or library name (`trl`,
    /// `bitsandbytes`, `torch`): migrations (MIG001–MIG006) and
    /// version-dependent semantics (litgpt's batch division over nodes) use it
    /// before the project's requirement and lock files. A version below the
    /// one a migration needs turns it off; without any version the finding is
    /// an info that says it assumes the latest release (MIG001: kept with an
    /// unsafe fix).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[schemars(extend("default" = {}), example = serde_json::json!({"lightning": "2.2"}))]
    pub frameworks: BTreeMap<String, String>,
    /// Role → dotted key path, for configs in a layout no dialect knows
    /// (`micro_batch = "data_loader.batch_size"`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[schemars(schema_with = "bindings_schema", extend("default" = {}), example = serde_json::json!({"micro_batch": "data_loader.batch_size", "accumulation": "trainer.grad_accum"}))]
    pub bindings: BTreeMap<Role, String>,
    /// Models the catalog does not know, by the name configs write (`base_model`,
    /// `model_name_or_path`, ...; matched case-insensitively): each names a catalog
    /// model with the same architecture (`same-as`) or a config.json (`config`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[schemars(extend("default" = {}), example = serde_json::json!({"my-org/llama-3.1-8b-sft": {"same-as": "meta-llama/Llama-3.1-8B"}, "local-encoder": {"config": "models/encoder"}}))]
    pub models: BTreeMap<String, ModelSpec>,
    /// Quality-bearing values, by dotted path (or path suffix), and which way is finer.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    #[schemars(extend("default" = {}), example = serde_json::json!({"data.max_length": "higher-is-finer", "bin_size": "lower-is-finer"}))]
    pub resolution: BTreeMap<String, ResolutionDirection>,
    /// A base config and its ordered curriculum stages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = null), example = serde_json::json!({"base": "conf/config.yaml", "stages": "conf/curriculum/*.yaml", "package": "curriculum"}))]
    pub curriculum: Option<Curriculum>,
    /// Memory facts for configs whose format has no place for them (merged under a native config's own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = null), example = serde_json::json!({"activation_bytes_per_sample": "131 MiB", "cuda_context_mib": 1000, "terms": [{"name": "peak buffer", "bytes": "micro_batch * 4 MiB"}]}))]
    pub memory: Option<Memory>,
    /// Measured peaks that replace the formula's fixed and per-sample parts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("default" = []), example = serde_json::json!([{"gpu": "rtx-4090", "stage": "01", "micro-batch": 16, "peak-mib": 21800}]))]
    pub calibration: Vec<CalibrationPoint>,
    /// DeepSpeed configs paired with the HF-style trainer config whose
    /// arguments fill their `"auto"` values, as `[[pair]]` tables.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("default" = []), example = serde_json::json!([{"deepspeed": "ds/zero2.json", "with": "train.yaml"}]))]
    pub pair: Vec<Pair>,
    /// Hydra composition settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = null), example = serde_json::json!({"overrides": ["experiment=example", "trainer=gpu"]}))]
    pub hydra: Option<Hydra>,
    /// Training flags of a program trainlint does not know, in shell scripts: which command is
    /// the run and which flag holds which role. Without it, a script's launch line is read by the
    /// framework its flags show (HF TrainingArguments, LLaMA-Factory, …), and a script that
    /// launches nothing is skipped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = null), example = serde_json::json!({"command": "python -m aam.cli pretrain", "flags": {"--batch-size": "micro_batch"}}))]
    pub shell: Option<Shell>,
}

/// A model named by the manifest's `[models]`: exactly one of `same-as` and `config`.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ModelSpec {
    /// A catalog name (hub id, alias, model builder, litgpt name) with the same architecture,
    /// e.g. `"meta-llama/Llama-3.1-8B"` for a fine-tune of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = null))]
    pub same_as: Option<String>,
    /// The model's config.json, or the folder that holds it (relative to the manifest).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = null))]
    pub config: Option<String>,
}

/// How Hydra primaries are composed.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Hydra {
    /// Command-line-style group choices applied to every primary, e.g. `["experiment=example", "trainer=gpu"]`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("default" = []))]
    #[schemars(example = ["experiment=example", "trainer=gpu"])]
    pub overrides: Vec<String>,
}

/// Which command of a script is the training command, and what its flags mean.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Shell {
    /// The words that start the training command, e.g. `python -m aam.cli pretrain`
    /// (default: the first command with `--` flags).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = null))]
    #[schemars(example = &"python -m aam.cli pretrain")]
    pub command: Option<String>,
    /// Flag → role, e.g. `"--batch-size" = "micro_batch"`. Other flags are
    /// values too (`--token-limit 1024` is `token_limit` in memory terms).
    #[serde(default)]
    #[schemars(example = serde_json::json!({"--batch-size": "micro_batch", "--accumulate": "accumulation"}))]
    pub flags: BTreeMap<String, Role>,
}

/// A DeepSpeed config and the trainer config that fills its `"auto"` values
/// (HF's DeepSpeed integration, FACTS.md §6), both relative to the manifest.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Pair {
    /// The DeepSpeed config (JSON) whose `"auto"` values the trainer config fills.
    #[schemars(example = &"ds/zero2.json")]
    pub deepspeed: String,
    /// The trainer config (HF TrainingArguments / TRL / Axolotl style YAML) launched with it.
    #[schemars(example = &"train.yaml")]
    pub with: String,
}

/// One measured peak: on `gpu`, at `stage` (or any), with `micro-batch`, the
/// peak nvidia-smi showed (or `torch.cuda.max_memory_reserved` plus the CUDA context).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct CalibrationPoint {
    /// The GPU target it was measured on (a catalog or `[[gpu]]` id).
    #[schemars(example = &"rtx-4090")]
    pub gpu: String,
    /// The curriculum stage it was measured at; unset: it holds for the base config and every stage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = null))]
    #[schemars(example = &"01")]
    pub stage: Option<String>,
    /// The micro batch the run used when the peak was measured (samples per device).
    #[serde(deserialize_with = "positive_u64")]
    #[schemars(range(min = 1))]
    #[schemars(example = 16)]
    pub micro_batch: u64,
    /// The measured peak, in MiB.
    #[serde(deserialize_with = "peak")]
    #[schemars(range(min = 1.0))]
    #[schemars(example = 21800.0)]
    pub peak_mib: f64,
}

/// `exclude`'s default in the schema: the folders discovery skips
/// (`load::discover::DEFAULT_EXCLUDE`, the one list).
fn default_exclude(schema: &mut schemars::Schema) {
    schema.insert("default".into(), crate::load::discover::DEFAULT_EXCLUDE.to_vec().into());
}

/// `[bindings]`: one optional key per role, each described by the native
/// format's field that carries the role (`x-trainlint: {role}` in the
/// training-config schema, the one description of what a role means).
fn bindings_schema(_generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let native = schemars::schema_for!(super::TrainingConfig).to_value();
    let mut found = BTreeMap::new();
    native_roles(&native, &native, "", &mut found, 0);
    let properties: serde_json::Map<String, serde_json::Value> = Role::ALL
        .iter()
        .map(|role| {
            let (text, example) = match found.get(role.name()).cloned() {
                Some((path, description)) => {
                    (format!("The dotted key path of `{role}` in your configs. {description} (In trainlint's native format: `{path}`.)"), path)
                }
                // A role no native field carries (an online-RL trainer's): the key of the framework that has it.
                None => {
                    let key = match role {
                        Role::Generations => "num_generations",
                        Role::GenerationSteps => "steps_per_generation",
                        Role::GenerationBatch => "generation_batch_size",
                        Role::CompletionLength => "max_completion_length",
                        Role::KlCoefficient => "beta",
                        Role::VllmGeneration => "use_vllm",
                        Role::GatherForGeneration => "ds3_gather_for_generation",
                        _ => role.name(),
                    };
                    (
                        format!(
                            "The dotted key path of `{role}` in your configs (TRL's GRPOConfig calls it `{key}`; trainlint's native format has no such field)."
                        ),
                        key.to_owned(),
                    )
                }
            };
            (role.name().to_owned(), serde_json::json!({"type": "string", "description": text, "examples": [example]}))
        })
        .collect();
    schemars::json_schema!({"type": "object", "additionalProperties": false, "properties": properties})
}

/// (role → (native key path, description)) of the fields of `node` marked `x-trainlint: {role}`.
fn native_roles(root: &serde_json::Value, node: &serde_json::Value, path: &str, out: &mut BTreeMap<String, (String, String)>, depth: usize) {
    if depth > 6 {
        return;
    }
    if let Some(name) = node.get("$ref").and_then(|r| r.as_str()).and_then(|r| r.strip_prefix("#/$defs/"))
        && let Some(definition) = root.get("$defs").and_then(|d| d.get(name))
    {
        native_roles(root, definition, path, out, depth + 1);
    }
    if let Some(role) = node.get("x-trainlint").and_then(|x| x.get("role")).and_then(|r| r.as_str()) {
        let description = node.get("description").and_then(|d| d.as_str()).unwrap_or_default().replace('\n', " ");
        out.entry(role.to_owned()).or_insert((path.to_owned(), description));
    }
    for branch in ["anyOf", "oneOf", "allOf"].iter().filter_map(|k| node.get(*k)).filter_map(|b| b.as_array()).flatten() {
        native_roles(root, branch, path, out, depth + 1);
    }
    for (key, child) in node.get("properties").and_then(|p| p.as_object()).into_iter().flatten() {
        let child_path = if path.is_empty() { key.clone() } else { format!("{path}.{key}") };
        native_roles(root, child, &child_path, out, depth + 1);
    }
}

// The ranges the JSON schema states, enforced when the manifest is read: a
// value out of range is an invalid manifest (exit 2, the value underlined),
// never a division by zero later (`world-size = 0`) or a NaN margin.

fn positive<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<u32>, D::Error> {
    let value = u32::deserialize(deserializer)?;
    if value == 0 {
        return Err(serde::de::Error::custom("must be at least 1"));
    }
    Ok(Some(value))
}

fn positive_u64<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<u64, D::Error> {
    let value = u64::deserialize(deserializer)?;
    if value == 0 {
        return Err(serde::de::Error::custom("must be at least 1"));
    }
    Ok(value)
}

fn margin<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<f64>, D::Error> {
    let value = f64::deserialize(deserializer)?;
    // `!(in range)` so that NaN is refused too.
    if !(0.1..=1.0).contains(&value) {
        return Err(serde::de::Error::custom(format!("must be between 0.1 and 1.0 (a fraction of the GPU's capacity), not {value}")));
    }
    Ok(Some(value))
}

fn peak<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<f64, D::Error> {
    let value = f64::deserialize(deserializer)?;
    if !(value.is_finite() && value >= 1.0) {
        return Err(serde::de::Error::custom(format!("must be a finite number of MiB, at least 1, not {value}")));
    }
    Ok(value)
}

/// Which direction of a value keeps more detail.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ResolutionDirection {
    /// Larger is finer (sequence length, number of peaks, negatives, image size).
    HigherIsFiner,
    /// Smaller is finer (bin size, patch size).
    LowerIsFiner,
}

/// A curriculum: a base config and the stage overlays applied to it, one at a time.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Curriculum {
    /// The base config, relative to the manifest.
    #[schemars(example = &"conf/config.yaml")]
    pub base: String,
    /// The stage files in order: a list of paths, or one glob (sorted by name), relative to the manifest.
    #[schemars(example = &"conf/curriculum/*.yaml")]
    pub stages: StageFiles,
    /// Where a stage's keys go in the base config (a Hydra package such as
    /// `curriculum`); default: the top level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = null))]
    #[schemars(example = &"curriculum")]
    pub package: Option<String>,
    /// A file merged at `package` before any stage (the stage group's default
    /// option in Hydra): the keys a stage may set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = null))]
    #[schemars(example = &"conf/curriculum/default.yaml")]
    pub stage_defaults: Option<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum StageFiles {
    Glob(String),
    List(Vec<String>),
}
