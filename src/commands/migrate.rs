use crate::apply;
use crate::commands::check::fix_loop;
use crate::error::FatalError;
use crate::render;
use crate::settings::Overrides;
use std::path::PathBuf;
use std::process::ExitCode;

use super::ConfigArgs;
/// Runs only the MIG rules, through the same fix passes as `check --fix`.
use clap::Args;

#[derive(Debug, Args)]
pub struct MigrateArgs {
    /// Files or folders (default: the current folder).
    pub paths: Vec<PathBuf>,
    /// Apply the migrations (default: print a unified diff and write nothing).
    #[arg(long)]
    pub write: bool,
    /// Also apply migrations marked unsafe (MIG006: older PyTorch ignores the new name; MIG001 when the Lightning version is unknown).
    #[arg(long)]
    pub unsafe_fixes: bool,
    #[command(flatten)]
    pub config: ConfigArgs,
}

pub(crate) fn run(args: &MigrateArgs) -> Result<ExitCode, FatalError> {
    let paths = if args.paths.is_empty() { vec![PathBuf::from(".")] } else { args.paths.clone() };
    super::refuse_set_when_writing(&args.config, "migrate")?;
    let mut overrides = Overrides { command_rules: Some(vec!["MIG".to_owned()]), ..args.config.overrides() };
    super::settings_for(&paths, &mut overrides)?;
    let outcome = fix_loop(&paths, &overrides, None, false, args.config.config.is_some() || args.config.isolated, args.unsafe_fixes)?;
    for message in &outcome.unconverged {
        super::say(&format!("warning: {message}"));
    }
    let count = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    if args.write {
        apply::write_all(&outcome.changes)?;
    } else {
        let diff: String = outcome.changes.iter().map(apply::unified_diff).collect();
        super::print(&diff);
    }
    // What is left needs a person: removed arguments, renames whose target is already set, unsafe ones.
    if !outcome.remaining.is_empty() {
        super::print(&render::full::render(&outcome.remaining, super::style()));
    }
    let verb = if args.write { "Applied" } else { "Would apply" };
    super::say(&format!(
        "{verb} {} in {}; {} left to do by hand.",
        count(outcome.applied, "migration"),
        count(outcome.changes.len(), "file"),
        count(outcome.remaining.len(), "finding")
    ));
    Ok(if !args.write && !outcome.changes.is_empty() { ExitCode::from(1) } else { ExitCode::SUCCESS })
}
