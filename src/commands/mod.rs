//! One module per subcommand; each returns the process exit code.

pub mod check;
pub mod config;
pub mod estimate;
pub mod gpus;
pub mod migrate;
pub mod rule;
pub mod schema;
pub mod show;

use crate::settings::Overrides;
use clap::Args;
use std::io::Write;
use std::path::PathBuf;

/// Options shared by every command that reads configs.
#[derive(Debug, Args)]
pub struct ConfigArgs {
    /// Use this manifest (`trainlint.toml` or `pyproject.toml`) instead of searching for one.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Read no manifest (`trainlint.toml`, `[tool.trainlint]`): the settings are the
    /// defaults and the command line's (ruff's `--isolated`).
    #[arg(long, conflicts_with = "config")]
    pub isolated: bool,
    /// GPU target id to check against (repeatable); overrides the manifest's `gpus`.
    #[arg(long = "gpu", value_name = "ID")]
    pub gpus: Vec<String>,
    /// Data-parallel world size when a config does not state a device count (no devices key, `auto`, `-1`).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub world_size: Option<u32>,
    /// What if a config said KEY=VALUE (repeatable; a dotted key path as Hydra
    /// writes it, `trainer.devices=32`; the value read as a YAML scalar). Applied
    /// in memory to every config checked, before its roles are read; files are
    /// never changed (`--fix`, `--diff` and `plan --apply` refuse it).
    #[arg(long = "set", value_name = "KEY=VALUE", value_parser = parse_set)]
    pub set: Vec<(String, String)>,
}

/// `KEY=VALUE` with a non-empty dotted key (a leading `+`, Hydra's "add", is allowed).
fn parse_set(text: &str) -> Result<(String, String), String> {
    let (key, value) = text.split_once('=').ok_or_else(|| format!("`{text}` is not KEY=VALUE (for example `trainer.devices=8`)"))?;
    let key = key.trim().trim_start_matches('+');
    if key.is_empty() || key.split('.').any(str::is_empty) {
        return Err(format!("`{text}`: the key must be a dotted path such as `trainer.devices`"));
    }
    Ok((key.to_owned(), value.trim().to_owned()))
}

/// `--set` on a command that writes files: refused, so that no file is ever
/// written from a value that is only supposed (exit 2).
pub(crate) fn refuse_set_when_writing(args: &ConfigArgs, writing: &str) -> Result<(), crate::error::FatalError> {
    match args.set.first() {
        Some((key, value)) => Err(crate::error::FatalError::usage(
            format!("`--set {key}={value}` cannot be used with {writing}: a what-if value must never reach a file"),
            Some(format!("run without {writing} to see what the value changes, or write `{key}: {value}` into the config")),
        )),
        None => Ok(()),
    }
}

impl ConfigArgs {
    pub(crate) fn overrides(&self) -> Overrides {
        Overrides {
            config: self.config.clone(),
            isolated: self.isolated,
            world_size: self.world_size,
            sets: self.set.clone(),
            gpus: self.gpus.clone(),
            gpu_probe_opt_in: std::env::var_os(GPU_PROBE_ENV).is_some_and(|v| v == "1"),
            ..Overrides::default()
        }
    }
}

/// `TRAINLINT_GPU_PROBE=1`: the user (not a repository) allows a manifest's
/// `gpus = ["auto"]` to probe the local GPU. `--gpu auto` on the command line
/// needs no opt-in.
pub(crate) const GPU_PROBE_ENV: &str = "TRAINLINT_GPU_PROBE";

/// The options every subcommand takes (`-q`, `--silent`, `-v`, `--color`), set
/// once by `cli` before the command runs.
#[derive(Clone, Copy, Debug, Default)]
pub struct Global {
    /// `--quiet`: findings only (no summary, notes or warnings).
    pub quiet: bool,
    /// `--silent`: nothing on stdout or stderr but fatal errors; the exit code still tells.
    pub silent: bool,
    /// `--verbose`: what was read and how long each step took, on stderr.
    pub verbose: bool,
    pub color: crate::render::full::ColorChoice,
}

static GLOBAL: std::sync::OnceLock<Global> = std::sync::OnceLock::new();

/// Sets the global options (the first call wins; `cli::run` makes it).
pub(crate) fn set_global(global: Global) {
    let _ = GLOBAL.set(global);
}

/// The global options (defaults when `cli` did not set them: a library caller).
pub(crate) fn global() -> Global {
    GLOBAL.get().copied().unwrap_or_default()
}

/// The snippet style for stdout: colour as `--color`, `NO_COLOR` and `FORCE_COLOR` say.
pub(crate) fn style() -> crate::render::full::Style {
    use std::io::IsTerminal;
    crate::render::full::Style::new(global().color.enabled(std::io::stdout().is_terminal()))
}

/// A message for people on stderr (a note, a warning, a count): not with `--quiet` or `--silent`.
pub(crate) fn say(text: &str) {
    let global = global();
    if !global.quiet && !global.silent {
        // One line; what it names (files, GPUs) is escaped: no control character, no second line.
        eprintln!("{}", crate::render::escape_controls(text));
    }
}

/// A `--verbose` line on stderr, prefixed `trainlint: `.
pub(crate) fn verbose(text: impl FnOnce() -> String) {
    let global = global();
    if global.verbose && !global.silent {
        eprintln!("trainlint: {}", crate::render::escape_controls(&text()));
    }
}

/// Writes to stdout, ignoring a closed pipe (`trainlint check | head`); nothing with `--silent`.
pub fn print(text: &str) {
    if global().silent {
        return;
    }
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes());
    let _ = stdout.flush();
}

/// Builds settings with `build`; when they want `--gpu auto` (the command line,
/// or the manifest with `TRAINLINT_GPU_PROBE=1`) and no probe is in `overrides` yet, probes the local GPU
/// here, once (`gpus::probe` runs nvidia-smi / rocm-smi), keeps the answer in
/// `overrides` for every later build, and builds again. Settings themselves
/// never spawn a process.
pub(crate) fn with_gpu_probe(
    overrides: &mut crate::settings::Overrides,
    build: impl Fn(&crate::settings::Overrides) -> Result<crate::settings::Settings, crate::error::FatalError>,
) -> Result<crate::settings::Settings, crate::error::FatalError> {
    let settings = build(overrides)?;
    settings.check_selectors(crate::rules::codes::ALL)?;
    settings.check_memory(|text| {
        let parsed = crate::estimate::expr::parse(text).ok()?;
        parsed.names().is_empty().then(|| parsed.eval(&|_| None).ok()).flatten()
    })?;
    if !settings.gpu_probe_wanted || overrides.gpu_probe.is_some() {
        return Ok(settings);
    }
    // Never a program from the working directory or the project (a cloned repository's `./nvidia-smi`).
    let mut untrusted: Vec<PathBuf> = settings.loader.roots().to_vec();
    untrusted.extend(std::env::current_dir().ok());
    untrusted.push(settings.root.clone());
    overrides.gpu_probe = Some(crate::gpus::probe(&untrusted));
    build(overrides)
}

/// Settings for `paths` (`Settings::discover`, GPU probed when wanted), with
/// their notes printed to stderr.
pub(crate) fn settings_for(
    paths: &[std::path::PathBuf],
    overrides: &mut crate::settings::Overrides,
) -> Result<crate::settings::Settings, crate::error::FatalError> {
    let settings = with_gpu_probe(overrides, |o| crate::settings::Settings::discover(paths, o))?;
    print_notes(&settings);
    Ok(settings)
}

/// The notes building settings produced (`trainlint: detected ...`), on stderr.
pub(crate) fn print_notes(settings: &crate::settings::Settings) {
    for note in &settings.notes {
        say(&format!("trainlint: {note}"));
    }
}
