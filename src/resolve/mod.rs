//! Stage 2 of the pipeline: what a loaded config means for a training run.
//!
//! A dialect is detected from the keys a file has; its bindings map roles to
//! key paths; the result is a `ResolvedConfig`: each role's value with the
//! file and span it came from, and the batch arithmetic derived from them.
//! A curriculum stage is resolved the same way, on the base config with the
//! stage merged over it (`curriculum`).

pub mod batch;
pub mod curriculum;
pub mod hydra;
pub mod interpolate;
pub mod launch;
pub mod model;
pub mod versions;

use crate::load::{Document, Entry, Node};
use crate::schema::Role;
use crate::settings::Settings;
use crate::source::{SourceFile, Span};
use batch::{BatchView, WorldSource};
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::Arc;

pub use crate::dialects::Dialect;

/// Which dialect and the evidence for it (shown by `trainlint show`).
#[derive(Clone, Debug, Serialize)]
pub struct Detection {
    pub dialect: Dialect,
    pub reason: String,
    /// Named by the manifest's `[dialects]`, not inferred from the file's keys or
    /// place: the file is certainly written for the dialect (a DeepSpeed `{}` is
    /// then BAT007, not a fragment).
    pub declared: bool,
}

pub(crate) fn detect(root: &Node, settings: &Settings) -> Detection {
    detect_at(root, settings, None)
}

/// Detection with the file's path, for evidence that lies in the layout:
/// Lightning's `version_N/hparams.yaml`, a file of a Hydra config tree. The
/// manifest's `[dialects]` come first, then the registry's order.
pub(crate) fn detect_at(root: &Node, settings: &Settings, path: Option<&std::path::Path>) -> Detection {
    if let Some(path) = path
        && let Some(detection) = manifest_dialect(settings, path)
    {
        return detection;
    }
    let bound_paths: Vec<&str> = settings.manifest.bindings.values().map(String::as_str).collect();
    let hydra_primary =
        |path: &std::path::Path| hydra::primary_config_of_group_option(&settings.loader, path).or_else(|| hydra::primary_config_above(&settings.loader, path));
    let evidence = crate::dialects::Evidence { root, path, bound_paths: &bound_paths, hydra_primary: &hydra_primary };
    let (dialect, reason) = crate::dialects::detect(&evidence);
    Detection { dialect, reason, declared: false }
}

/// The manifest's `[dialects]` entry whose glob matches `path`.
fn manifest_dialect(settings: &Settings, path: &std::path::Path) -> Option<Detection> {
    if settings.manifest.dialects.is_empty() {
        return None;
    }
    let absolute = std::path::absolute(path).ok()?;
    let root = std::path::absolute(&settings.root).ok()?;
    let relative = absolute.strip_prefix(&root).unwrap_or(&absolute);
    for (pattern, name) in &settings.manifest.dialects {
        let matcher = globset::Glob::new(pattern).ok()?.compile_matcher();
        if matcher.is_match(relative) {
            let dialect = crate::dialects::by_name(name)?;
            return Some(Detection { dialect, reason: format!("the manifest's [dialects] \"{pattern}\" = \"{name}\""), declared: true });
        }
    }
    None
}

/// The role → key path table of a dialect, with the manifest's `[bindings]`
/// on top (a manifest binding wins where its path exists in the file).
pub(crate) fn bindings(dialect: Dialect, settings: &Settings) -> Vec<(Role, String)> {
    let mut table = dialect.bindings(&settings.manifest);
    for (role, path) in &settings.manifest.bindings {
        table.retain(|(r, _)| r != role);
        table.push((*role, path.clone()));
    }
    table
}

/// A role's value and where it is written.
#[derive(Clone, Debug)]
pub struct RoleValue {
    pub value: serde_json::Value,
    /// The key path it was read from.
    pub path: String,
    pub file: Arc<SourceFile>,
    pub span: Span,
    pub key_span: Span,
    /// Set by the manifest's `[hydra] overrides`, not written in any file.
    pub from_override: bool,
    /// Not written in the config: read from the model it names (the catalog or its config.json).
    /// `file`, `span` and `path` are then those of the model's name.
    pub from_model: Option<Arc<model::ModelFacts>>,
}

impl RoleValue {
    pub fn as_u64(&self) -> Option<u64> {
        self.value.as_u64().or_else(|| self.value.as_f64().filter(|f| f.fract() == 0.0 && *f >= 0.0).map(|f| f as u64))
    }

    /// `"auto"` (any case): a value another tool fills in at launch (DeepSpeed's, accelerate's).
    pub(crate) fn is_auto(&self) -> bool {
        self.value.as_str().is_some_and(|s| s.eq_ignore_ascii_case("auto"))
    }
}

#[derive(Clone, Debug)]
pub struct ResolvedConfig {
    /// The files the tree was composed from; `files[0]` is the config itself
    /// (the base config of a curriculum), a node's `origin` indexes this list.
    pub files: Vec<Arc<SourceFile>>,
    pub detection: Detection,
    pub tree: Node,
    pub roles: BTreeMap<Role, RoleValue>,
    pub batch: BatchView,
    /// The curriculum stage this view is of; `None` for a plain config or the base.
    pub stage: Option<String>,
    /// Where a stage's keys sit in the composed tree (a Hydra package), for stage views.
    pub stage_package: Option<String>,
    /// The dialect's role → key path table (where a fix writes a role).
    pub bindings: Vec<(Role, String)>,
    /// OmegaConf interpolations that could not be resolved.
    pub unresolved: Vec<interpolate::Issue>,
    /// What the config's model name (`Role::Model`) led to; `None` when it names none.
    pub model: Option<model::ModelLookup>,
    /// The paths a launch line's overrides set (`loss._component_`), and that line
    /// (`run.sh:3`): `show` names it as their source.
    pub launch_overrides: Vec<(String, String)>,
}

impl ResolvedConfig {
    pub fn source(&self) -> &Arc<SourceFile> {
        &self.files[0]
    }

    pub fn role(&self, role: Role) -> Option<&RoleValue> {
        self.roles.get(&role)
    }

    /// The processes (GPUs) the run needs: the data-parallel world × the tensor, pipeline and
    /// context-parallel degrees — what a launcher starts, and what a framework compares with it.
    pub(crate) fn processes(&self) -> Option<u64> {
        [Role::TensorParallel, Role::PipelineParallel, Role::ContextParallel]
            .into_iter()
            .map(|r| self.role(r).and_then(RoleValue::as_u64).unwrap_or(1).max(1))
            .try_fold(self.batch.world_size?, u64::checked_mul)
    }

    /// A role's typed value (`Precision`, `Optimizer`, …): `None` when the role is
    /// absent or its value is not a known spelling.
    pub(crate) fn typed<T: crate::schema::typed::TypedRole>(&self) -> Option<T> {
        self.role(T::ROLE).and_then(|v| T::from_json(&v.value))
    }
}

/// A launch script: its values are command-line words, typed by the program's argument
/// parser, not by a YAML reader.
pub(crate) fn is_script(file: &SourceFile) -> bool {
    crate::load::Format::of(file.path(), file.text()) == crate::load::Format::Shell
}

/// How the `path` of a role a comment states begins (`Framework::comment_roles`): no key holds it.
pub(crate) const FROM_COMMENT: &str = "(comment: ";

/// Resolves one file on its own.
pub fn resolve(document: &Document, root: &Node, settings: &Settings) -> ResolvedConfig {
    if document.format == crate::load::Format::Shell {
        return script(document, root, settings);
    }
    if document.format == crate::load::Format::Python {
        return python_script(document, root, settings);
    }
    let detection = detect_at(root, settings, Some(document.source.path()));
    // A file no dialect recognises is not known to be read by OmegaConf: `${...}` is text.
    let omegaconf = detection.dialect.interpolates() && detection.dialect != crate::dialects::unknown::UNKNOWN;
    launched(vec![Arc::clone(&document.source)], root.clone(), detection, settings, None, omegaconf, None)
}

/// A launch script as the run it starts. With the manifest's `[shell]`, its flags are bound as
/// the manifest says. Otherwise the flags of the launch line (`shell::chosen_launch`) are read
/// as the framework they show (HfArgumentParser's `--per_device_train_batch_size 4 --bf16 True`,
/// LLaMA-Factory's `--stage sft`, …) and the launch line gives the world. A script that launches
/// no training program and exports no setting is not a training config (`unknown`).
fn script(document: &Document, root: &Node, settings: &Settings) -> ResolvedConfig {
    let source = &document.source;
    let command = settings.manifest.shell.as_ref().and_then(|s| s.command.as_deref());
    let launch = crate::load::shell::chosen_launch(source.text(), command);
    let own = launch.as_ref().map(|l| {
        let accelerate = launch::own_accelerate(settings, source.path(), l);
        let world = match l.world {
            Some(w) => Some((w, l.what.clone())),
            None => accelerate.as_ref().and_then(|(_, world)| world.clone()),
        };
        Own {
            world: world.map(|(w, what)| (w, format!("{}:{} ({what})", source.display(), l.line))),
            accelerate: accelerate.map(|(path, _)| path),
            program: l.script.clone(),
        }
    });
    let mut root = root.clone();
    let detection = if settings.manifest.shell.is_some() {
        Detection { dialect: crate::dialects::shell::SHELL, reason: crate::dialects::shell::reason(command), declared: false }
    } else {
        // DeepSpeed reads its settings from a JSON file, never from a program's flags: a flag that
        // shares a DeepSpeed key (diffusers' and accelerate examples' per-device `--train_batch_size`)
        // is the program's own, not DeepSpeed's global batch.
        let program = launch.as_ref().and_then(|l| l.script.as_deref());
        let found = crate::dialects::detect_launch(&root, program).filter(|(dialect, _)| *dialect != crate::dialects::deepspeed::DEEPSPEED);
        let line = launch.as_ref().map_or(String::new(), |l| format!(" (line {})", l.line));
        let written = launch.as_ref().filter(|_| found.is_none()).and_then(|l| written_config(source.text(), l));
        match (found, written) {
            (Some((dialect, why)), _) => {
                // A DeepSpeed config the script writes (`cat <<EOT > $DS_CONFIG`) and passes under
                // the dialect's DeepSpeed-file flag (Megatron-DeepSpeed's `--deepspeed_config`) is
                // read in place of its path: its ZeRO stage and offload are the run's.
                if let (Some(key), Some(l)) = (dialect.deepspeed_file_key(), launch.as_ref())
                    && let crate::load::Value::Map(entries) = &mut root.value
                    && let Some(entry) = entries.iter_mut().find(|e| e.key == key)
                    && let Some(name) = entry.value.as_str().map(|n| n.trim().trim_start_matches("./").to_owned())
                    && let Some((tree, ..)) = written_tree(source.text(), l).into_iter().find(|(_, target, _)| target.trim_start_matches("./") == name)
                    && matches!(tree.value, crate::load::Value::Map(_))
                {
                    entry.value = tree;
                }
                Detection { dialect, reason: format!("the training flags of the launch line{line}: {why}"), declared: false }
            }
            // The config the launch passes is one the script writes itself (`cat <<EOT > $DS_CONFIG`):
            // that text is the run's config, its values pointing at the heredoc's lines.
            (None, Some((mut tree, target, at, dialect, why))) => {
                if let (crate::load::Value::Map(entries), Some(env)) = (&mut tree.value, root.entry("env")) {
                    entries.push(env.clone());
                }
                root = tree;
                Detection {
                    dialect,
                    reason: format!("`{target}`, which the script writes at line {at} and the launch line{line} passes: {why}"),
                    declared: false,
                }
            }
            (None, None) if launch.is_some() || root.get("env").is_some() => {
                Detection { dialect: crate::dialects::shell::SHELL, reason: format!("a launch script{line}; its flags show no framework"), declared: false }
            }
            (None, None) => {
                Detection { dialect: crate::dialects::unknown::UNKNOWN, reason: "a shell script that launches no training program".into(), declared: false }
            }
        }
    };
    launched(vec![Arc::clone(source)], root, detection, settings, None, false, own)
}

/// A Python training script as the run its literal settings describe (`load::python`): the HF
/// Trainer's (TRL's configs are `TrainingArguments`), by the argument call it makes and the trainer
/// it trains (`python::training_call`). A Python file without both is not a training config
/// (`unknown`): a test that builds a trainer to compare logits is not a run. The launcher, and so the world, is not
/// read from the script (a launch line that runs it gives its flags, not the script's settings).
///
/// TRL's configs default differently from `TrainingArguments`, by release: `bf16` is true unless
/// `fp16` is set since 0.19 (trl #3515, `sft_config.py` `__post_init__`: `self.bf16 = not
/// (self.fp16) if self.bf16 is None`), and `gradient_checkpointing` is true since 0.22 (trl #3510,
/// every trainer's config). Where the script leaves them unwritten, the project's TRL release
/// (`resolve::versions`) decides; a project that states none gets the latest release's, as the
/// migrations assume, and the detection's reason says so.
fn python_script(document: &Document, root: &Node, settings: &Settings) -> ResolvedConfig {
    let mut tree = root.clone();
    let call = if crate::load::python::is_test_file(document.source.path()) {
        Err("a test suite's file (`test_*.py`, `*_test.py`, `conftest.py`, under `tests/`): no run")
    } else {
        crate::load::python::training_call(document.source.text())
    };
    let detection = match call {
        Ok((call, line, train, span)) => {
            let mut reason = format!("a Python training script: the literal keyword arguments of `{call}(...)` (line {line}), trained at line {train}");
            if crate::load::python::is_trl_config(&call) {
                let release = |version: &[u64]| match versions::at_least_of(
                    settings,
                    "trl",
                    &["trl"],
                    document.source.path(),
                    &crate::schema::version::Version::new(version),
                ) {
                    Ok((answer, _)) => (answer, false),
                    Err(_) => (true, true),
                };
                let mut defaults = Vec::new();
                let mut assumed = false;
                for (key, since, unless) in [("bf16", [0, 19], "fp16"), ("gradient_checkpointing", [0, 22], "")] {
                    let (applies, latest) = release(&since);
                    let written = tree.get(key).is_some() || (!unless.is_empty() && tree.get(unless).is_some());
                    if applies
                        && !written
                        && let crate::load::Value::Map(entries) = &mut tree.value
                    {
                        entries.push(Entry {
                            key: key.to_owned(),
                            key_span: span.clone(),
                            key_origin: 0,
                            value: Node::new(crate::load::Value::Bool(true), span.clone()),
                        });
                        defaults.push(format!("`{key}` true (TRL's default since {}.{})", since[0], since[1]));
                        assumed |= latest;
                    }
                }
                if !defaults.is_empty() {
                    let release = if assumed { "; the project states no TRL release: the latest's defaults" } else { "" };
                    reason.push_str(&format!(", with {}{release}", defaults.join(" and ")));
                }
            }
            Detection { dialect: crate::dialects::hf_trainer::HF_TRAINER, reason, declared: false }
        }
        Err(why) => Detection { dialect: crate::dialects::unknown::UNKNOWN, reason: why.into(), declared: false },
    };
    launched(vec![Arc::clone(&document.source)], tree, detection, settings, None, false, None)
}

/// The config a launch line passes that the script writes before it from a heredoc, parsed (its
/// spans in the script), with the file's name, the writing command's line and its dialect.
fn written_config(text: &str, launch: &crate::load::shell::Launch) -> Option<(Node, String, usize, Dialect, String)> {
    written_tree(text, launch).into_iter().find_map(|(tree, target, line)| {
        let (dialect, why) = crate::dialects::detect_by_keys(&tree)?;
        Some((tree, target, line, dialect, why))
    })
}

/// Each config a launch line passes that the script writes before it from a heredoc, parsed (its
/// spans in the script), with the file's name and the writing command's line.
fn written_tree(text: &str, launch: &crate::load::shell::Launch) -> Vec<(Node, String, usize)> {
    let files = crate::load::shell::written(text);
    launch
        .configs
        .iter()
        .filter_map(|name| {
            let name = name.trim_start_matches("./");
            let written = files.iter().rev().find(|w| w.target.trim_start_matches("./") == name && w.line < launch.line)?;
            let format = match crate::load::Format::from_path(std::path::Path::new(name)) {
                Some(crate::load::Format::Shell) => return None,
                Some(format) => format,
                None if written.text.trim_start().starts_with('{') => crate::load::Format::Json,
                None => crate::load::Format::Yaml,
            };
            Some((written.parse(format)?, written.target.clone(), written.line))
        })
        .collect()
}

/// Interpolates the mapping at the top-level `key` as a config of its own (its `${...}` paths
/// relative to it: `Framework::interpolation_root`), leaving the rest of the tree as written.
fn interpolate_under(mut tree: Node, key: &str) -> (Node, Vec<interpolate::Issue>) {
    let mut issues = Vec::new();
    if let crate::load::Value::Map(entries) = &mut tree.value
        && let Some(entry) = entries.iter_mut().find(|e| e.key == key)
    {
        let (resolved, found) = interpolate::resolve(&entry.value);
        entry.value = resolved;
        issues = found;
    }
    (tree, issues)
}

/// What a launch script's own launch line gives the run it is: the world, and the accelerate
/// config it names.
struct Own {
    world: Option<(u64, String)>,
    accelerate: Option<std::path::PathBuf>,
    /// The program the launch line runs (`src/open_r1/grpo.py`).
    program: Option<String>,
}

/// Resolves a (possibly composed) tree whose nodes point into `files`, with the
/// `--set` values applied over it.
pub(crate) fn resolve_tree(files: Vec<Arc<SourceFile>>, tree: Node, detection: Detection, settings: &Settings, stage: Option<String>) -> ResolvedConfig {
    // OmegaConf-based frameworks interpolate `${...}`; the others read it as text.
    let omegaconf = detection.dialect.interpolates();
    launched(files, tree, detection, settings, stage, omegaconf, None)
}

/// A config as it is launched: a launch script's Hydra overrides (`trainer.devices=8`) first,
/// then `--set KEY=VALUE` (what if the config said so: set as Hydra sets a value override
/// after composition, a YAML scalar marked as written in no file, so that no fix edits it and
/// `show` says where it came from), which wins over them; and the world the launch gives.
/// `own`: what a launch script's own launch line gives (the script is the run). The accelerate
/// config the launch names (`accelerate launch --config_file F`) adds its plugin and precision
/// (`fill_from_accelerate`).
fn launched(
    files: Vec<Arc<SourceFile>>,
    mut tree: Node,
    detection: Detection,
    settings: &Settings,
    stage: Option<String>,
    omegaconf: bool,
    own: Option<Own>,
) -> ResolvedConfig {
    let linked = if files[0].path().as_os_str().is_empty() { None } else { launch::linked(settings, files[0].path()) };
    let mut launch_overrides = Vec::new();
    for (key, value) in linked.iter().flat_map(|l| &l.overrides) {
        // `experiment=x` selects a config group (not recomposed here); a top-level key is set only when written.
        if !key.contains('.') && tree.get(key).is_none() {
            continue;
        }
        let path = detection.dialect.override_path(&tree, key);
        hydra::set_override(&mut tree, &path, value);
        if let Some(at) = linked.as_ref().and_then(|l| l.at.clone()) {
            launch_overrides.push((path.trim_start_matches('+').to_owned(), at));
        }
    }
    for (key, value) in &settings.sets {
        hydra::set_override(&mut tree, key, value);
    }
    // The world: the config's devices, else `--world-size`, else the launch, else the manifest's
    // `world-size`, else the launch the config's header comment shows.
    let (own_world, own_accelerate, own_program) = own.map_or((None, None, None), |o| (o.world, o.accelerate, o.program));
    let mut accelerate = own_accelerate.or_else(|| linked.as_ref().and_then(|l| l.accelerate.clone()));
    // The program the run's launch line starts (its own, else the launch that passes the config):
    // the one place a dialect learns it (`Framework::derived_launched`).
    let program = own_program.or_else(|| linked.as_ref().and_then(|l| l.program.clone()));
    let launch_world = own_world.or(linked.and_then(|l| l.world));
    // The header's launch stands for the run when no launch gives a world or an accelerate
    // config: its world as a launch script's would be (`--world-size` and the manifest's win),
    // its accelerate config's plugin and precision whatever says the world.
    let header_stands = launch_world.is_none() && accelerate.is_none();
    let mut launcher = launch_world.filter(|_| !settings.world_size_from_command_line);
    let launched_world = launcher.clone();
    if header_stands
        && !files[0].path().as_os_str().is_empty()
        && let Some(header) = launch::from_header(settings, files[0].display(), files[0].text(), files[0].path())
    {
        if settings.world_size.is_none() {
            launcher = header.world;
        }
        accelerate = header.accelerate;
    }
    let world = launcher.as_ref().map(|(w, _)| u32::try_from(*w).unwrap_or(u32::MAX)).or(settings.world_size);
    let mut resolved = resolve_tree_with(files, tree, detection, settings, stage, omegaconf, world, accelerate.as_deref(), program.as_deref());
    // `--set` wins over a launch's override of the same path: it is named as `--set`.
    launch_overrides.retain(|(path, _)| !settings.sets.iter().any(|(key, _)| key.trim_start_matches('+') == path));
    resolved.launch_overrides = launch_overrides;
    if let Some((_, from)) = launcher
        && (resolved.batch.world_source == WorldSource::CommandLineOrManifest || resolved.batch.undivided_launch.is_some())
    {
        if resolved.batch.world_source == WorldSource::CommandLineOrManifest {
            resolved.batch.world_source = WorldSource::Launcher;
        }
        resolved.batch.launcher = Some(from);
    }
    // The config states its devices and a launch starts another number of processes (BAT009).
    if resolved.batch.world_source == WorldSource::Config
        && let Some((world, from)) = launched_world
        && resolved.processes().is_some_and(|w| w != world)
    {
        resolved.batch.launched_world = Some((world, from));
    }
    resolved
}

/// A tree as written, without `--set` or a launch (a file a config is paired with).
fn resolve_tree_as_written(
    files: Vec<Arc<SourceFile>>,
    tree: Node,
    detection: Detection,
    settings: &Settings,
    stage: Option<String>,
    world: Option<u32>,
) -> ResolvedConfig {
    // OmegaConf-based frameworks interpolate `${...}`; the others read it as text.
    let omegaconf = detection.dialect.interpolates();
    resolve_tree_with(files, tree, detection, settings, stage, omegaconf, world, None, None)
}

#[allow(clippy::too_many_arguments, reason = "the pieces of one resolution, each from a different caller")]
fn resolve_tree_with(
    files: Vec<Arc<SourceFile>>,
    tree: Node,
    detection: Detection,
    settings: &Settings,
    stage: Option<String>,
    omegaconf: bool,
    world: Option<u32>,
    accelerate: Option<&std::path::Path>,
    program: Option<&str>,
) -> ResolvedConfig {
    // OmegaConf and plain PyYAML (`Framework::pyyaml`) read plain scalars as YAML 1.1.
    let tree = if omegaconf {
        yaml_1_1_typing(tree, crate::load::scalar::omegaconf_retype)
    } else if detection.dialect.pyyaml() && !is_script(&files[0]) {
        yaml_1_1_typing(tree, crate::load::scalar::pyyaml_retype)
    } else {
        tree
    };
    let (tree, unresolved) = if omegaconf && files.iter().any(|f| f.text().contains("${") || f.text().contains("???")) {
        match detection.dialect.interpolation_root(&tree) {
            Some(key) => interpolate_under(tree, key),
            None => interpolate::resolve(&tree),
        }
    } else {
        (tree, Vec::new())
    };
    let mut roles = BTreeMap::new();
    let table = bindings(detection.dialect, settings);
    for (role, path) in &table {
        if roles.contains_key(role) {
            continue;
        }
        if let Some(entry) = tree.entry_dotted(path) {
            roles.insert(*role, role_value(&files, path, entry));
        }
    }
    for derived in detection.dialect.derived_launched(&tree, program) {
        if roles.contains_key(&derived.role) {
            continue;
        }
        if let Some(entry) = tree.entry_dotted(&derived.path) {
            let mut value = role_value(&files, &derived.path, entry);
            value.value = derived.value;
            roles.insert(derived.role, value);
        } else if let Some(entry) = derived.anchor.as_deref().and_then(|anchor| tree.entry_dotted(anchor)) {
            // A default for a key the config does not write: shown at the anchor, named as the default.
            let mut value = role_value(&files, &format!("{} (default)", derived.path), entry);
            value.value = derived.value;
            roles.insert(derived.role, value);
        }
    }
    for said in detection.dialect.comment_roles(files[0].text()) {
        roles.entry(said.role).or_insert_with(|| RoleValue {
            value: said.value,
            path: format!("{FROM_COMMENT}{})", said.what),
            file: Arc::clone(&files[0]),
            span: said.span.clone(),
            key_span: said.span,
            from_override: false,
            from_model: None,
        });
    }
    if let Some(key) = detection.dialect.deepspeed_file_key() {
        fill_from_deepspeed_file(&mut roles, &tree, key, &files, settings);
    }
    if let Some(path) = accelerate {
        fill_from_accelerate(&mut roles, path, settings);
    }
    let inline = detection.dialect.inline_architecture(&tree);
    let model = model::fill(&mut roles, &files[0], settings, inline);
    // The framework's batch semantics as the project's version of it has them (litgpt's division
    // on more than one node changed in 0.5.8).
    let nodes = roles.get(&Role::Nodes).and_then(RoleValue::as_u64);
    let (semantics, semantics_note) = versions::batch_semantics(settings, detection.dialect, files[0].path(), nodes);
    if semantics.auto_from_pair {
        fill_auto_from_pair(&mut roles, &files[0], settings);
    }
    let target_default = settings.manifest.effective_batch.map(u64::from);
    let mut batch = BatchView::from_roles(&roles, semantics, world, target_default, detection.declared);
    batch.semantics_note = semantics_note;
    ResolvedConfig { files, detection, tree, roles, batch, stage, stage_package: None, bindings: table, unresolved, model, launch_overrides: Vec::new() }
}

/// HF's DeepSpeed integration fills `"auto"` from TrainingArguments
/// (`integrations/deepspeed.py`, FACTS.md §6): micro batch ←
/// `per_device_train_batch_size`, accumulation ← `gradient_accumulation_steps`,
/// `train_batch_size` ← world × both. A value filled this way points at the
/// paired file, where it is written. The paired file is read with
/// `settings.loader`: at a baseline revision, as it was at that revision.
///
/// Without a `[[pair]]`, a launch line that passes the config with training flags
/// (`torchrun train.py --deepspeed ds.json --per_device_train_batch_size 4 --bf16 True`)
/// is the pair: its flags fill the `"auto"` values, precision included.
fn fill_auto_from_pair(roles: &mut BTreeMap<Role, RoleValue>, source: &Arc<SourceFile>, settings: &Settings) {
    let loader = &settings.loader;
    let Some(this) = loader.canonical(source.path()) else { return };
    let paired = match settings.manifest.pair.iter().find(|p| loader.canonical(&settings.root.join(&p.deepspeed)).as_ref() == Some(&this)) {
        Some(pair) => {
            let path = settings.root.join(&pair.with);
            let display = crate::settings::display(&settings.root, &pair.with);
            let format = crate::load::Format::from_path(&path).unwrap_or(crate::load::Format::Yaml);
            let Ok(document) = loader.load(&path, &display, format) else { return };
            let Ok(root) = &document.root else { return };
            resolve_tree_as_written(
                vec![Arc::clone(&document.source)],
                root.clone(),
                detect_at(root, settings, Some(&path)),
                settings,
                None,
                settings.world_size,
            )
        }
        None => {
            let Some((path, display, line)) = launch::linked(settings, source.path()).and_then(|l| l.with_flags) else { return };
            let Ok(document) = loader.load(&path, &display, crate::load::Format::Shell) else { return };
            let Some(root) = crate::load::shell::flags_of_launch(document.source.text(), line) else { return };
            let Some((dialect, reason)) = crate::dialects::detect_by_keys(&root) else { return };
            let detection = Detection { dialect, reason, declared: false };
            resolve_tree_as_written(vec![Arc::clone(&document.source)], root, detection, settings, None, settings.world_size)
        }
    };
    let is_auto = |value: Option<&RoleValue>| value.is_none_or(RoleValue::is_auto);
    // `bf16.enabled: "auto"` / `fp16.enabled: "auto"` follow the arguments' bf16/fp16 (`HfTrainerDeepSpeedConfig.trainer_config_process`).
    if roles.get(&Role::Precision).is_some_and(RoleValue::is_auto)
        && let Some(value) = paired.role(Role::Precision)
    {
        roles.insert(Role::Precision, value.clone());
    }
    for role in [Role::MicroBatch, Role::Accumulation, Role::LearningRate] {
        if is_auto(roles.get(&role))
            && let Some(value) = paired.role(role)
        {
            roles.insert(role, value.clone());
        }
    }
    // train_batch_size "auto" is derived from the other two and the world.
    if roles.get(&Role::GlobalBatch).is_some_and(RoleValue::is_auto) {
        roles.remove(&Role::GlobalBatch);
    }
}

/// The accelerate config a run is launched with (`accelerate launch --config_file F`):
/// `accelerate launch` exports its settings to the program's environment
/// (`accelerate/commands/launch.py` `prepare_multi_gpu_env` / `prepare_deepspeed_cmd_env`:
/// `ACCELERATE_MIXED_PRECISION`, `ACCELERATE_USE_DEEPSPEED`, `ACCELERATE_DEEPSPEED_ZERO_STAGE`,
/// `ACCELERATE_USE_FSDP`, `FSDP_SHARDING_STRATEGY`, …), and the program's `Accelerator` builds
/// its DeepSpeed or FSDP plugin from them. What the config itself says wins: TrainingArguments'
/// `deepspeed`/`fsdp` replace the plugin, and its `bf16`/`fp16` replace the precision
/// (transformers `training_args.py` `__post_init__`: `mixed_precision_dtype =
/// os.environ.get("ACCELERATE_MIXED_PRECISION", "no")`, then `if self.fp16` / `elif self.bf16`).
/// So each role is taken only where the config has none; it points into the accelerate config.
fn fill_from_accelerate(roles: &mut BTreeMap<Role, RoleValue>, path: &std::path::Path, settings: &Settings) {
    let relative = path.strip_prefix(&settings.root).unwrap_or(path).to_string_lossy().into_owned();
    let display = crate::settings::display(&settings.root, &relative);
    let Ok(document) = settings.loader.load(path, &display, crate::load::Format::Yaml) else { return };
    let Ok(root) = &document.root else { return };
    let dialect = crate::dialects::accelerate::ACCELERATE;
    let detection = Detection { dialect, reason: format!("the accelerate config the run is launched with ({display})"), declared: false };
    let launcher = resolve_tree_as_written(vec![Arc::clone(&document.source)], root.clone(), detection, settings, None, None);
    // A sharding plugin is one decision: the config's own DeepSpeed file or FSDP keeps all of it.
    let sharded = [Role::ZeroStage, Role::Fsdp].iter().any(|r| roles.contains_key(r));
    let plugin = [Role::ZeroStage, Role::Fsdp, Role::OffloadOptimizer, Role::OffloadParams, Role::ActivationCheckpointing];
    for role in [Role::Precision].iter().chain(plugin.iter().filter(|_| !sharded)) {
        if !roles.contains_key(role)
            && let Some(value) = launcher.role(*role)
        {
            roles.insert(*role, value.clone());
        }
    }
}

/// A config that names a DeepSpeed config file (`deepspeed: ds_z3.json`): its ZeRO stage and
/// offload settings (`zero_optimization.stage`, `offload_optimizer.device`, `offload_param.device`,
/// DeepSpeed `runtime/zero/config.py`, `offload_config.py`) become this run's roles, pointing
/// into that file. The path is tried as the frameworks resolve it — from the folder the run is
/// launched in, the project root here — then next to the config and in its parent folders; the
/// file is read with `settings.loader` (inside the project, within the byte budgets).
fn fill_from_deepspeed_file(roles: &mut BTreeMap<Role, RoleValue>, tree: &Node, key: &str, files: &[Arc<SourceFile>], settings: &Settings) {
    if roles.contains_key(&Role::ZeroStage) {
        return;
    }
    // A config the launch script writes itself, read in place (`script`): its values point at the script.
    if tree.get_dotted(key).is_some_and(|n| matches!(n.value, crate::load::Value::Map(_))) {
        fill_zero(roles, |path: &str| tree.entry_dotted(&format!("{key}.{path}")).map(|entry| role_value(files, &format!("{key}.{path}"), entry)));
        return;
    }
    let Some(named) = tree.get_dotted(key).and_then(Node::as_str).map(str::trim).filter(|p| p.ends_with(".json")) else { return };
    let loader = &settings.loader;
    let mut candidates = vec![settings.root.join(named)];
    let mut folder = files[0].path().parent();
    while let Some(dir) = folder {
        candidates.push(dir.join(named));
        folder = dir.parent().filter(|parent| loader.is_inside_project(parent));
    }
    let Some(path) = candidates.into_iter().find(|p| loader.is_inside_project(p) && loader.is_file(p)) else { return };
    let relative = path.strip_prefix(&settings.root).unwrap_or(&path).to_string_lossy().into_owned();
    let display = crate::settings::display(&settings.root, &relative);
    let Ok(document) = loader.load(&path, &display, crate::load::Format::Json) else { return };
    let Ok(root) = &document.root else { return };
    let source = [Arc::clone(&document.source)];
    fill_zero(roles, |path: &str| root.entry_dotted(path).map(|entry| role_value(&source, path, entry)));
}

/// The ZeRO stage, offload and ZeRO-3 in-flight settings of a DeepSpeed config, `at` a path in it.
fn fill_zero(roles: &mut BTreeMap<Role, RoleValue>, at: impl Fn(&str) -> Option<RoleValue>) {
    let Some(stage) = at("zero_optimization.stage").filter(|v| v.value.is_u64()) else { return };
    roles.insert(Role::ZeroStage, stage);
    let on_cpu = |v: &RoleValue| v.value.as_str().is_some_and(|d| d.eq_ignore_ascii_case("cpu") || d.eq_ignore_ascii_case("nvme"));
    if let Some(mut device) = at("zero_optimization.offload_optimizer.device").filter(on_cpu) {
        device.value = serde_json::Value::Bool(true);
        roles.insert(Role::OffloadOptimizer, device);
    }
    if let Some(mut device) = at("zero_optimization.offload_param.device").filter(on_cpu) {
        device.value = serde_json::Value::Bool(true);
        roles.insert(Role::OffloadParams, device);
    }
    for (role, key) in crate::dialects::deepspeed::ZERO3_IN_FLIGHT {
        if let Some(value) = at(key) {
            roles.entry(role).or_insert(value);
        }
    }
}

/// Re-types plain scalars as a YAML 1.1 loader reads them (`55_000`, `yes`).
fn yaml_1_1_typing(mut node: Node, retype: fn(&str) -> Option<crate::load::Value>) -> Node {
    match &mut node.value {
        crate::load::Value::Map(entries) => {
            for entry in entries.iter_mut() {
                entry.value = yaml_1_1_typing(std::mem::replace(&mut entry.value, Node::new(crate::load::Value::Null, 0..0)), retype);
            }
        }
        crate::load::Value::Seq(items) => {
            for item in items.iter_mut() {
                *item = yaml_1_1_typing(std::mem::replace(item, Node::new(crate::load::Value::Null, 0..0)), retype);
            }
        }
        crate::load::Value::Str(text) if node.style == Some(crate::load::ScalarStyle::Plain) => {
            if let Some(value) = retype(text) {
                node.value = value;
            }
        }
        _ => {}
    }
    node
}

fn role_value(files: &[Arc<SourceFile>], path: &str, entry: &Entry) -> RoleValue {
    let file = files.get(entry.value.origin).unwrap_or(&files[0]);
    let from_override = entry.value.alias == Some(0..0) && entry.value.span == (0..0);
    RoleValue {
        value: entry.value.to_json(),
        path: path.to_owned(),
        file: Arc::clone(file),
        span: entry.value.span.clone(),
        key_span: entry.key_span.clone(),
        from_override,
        from_model: None,
    }
}
