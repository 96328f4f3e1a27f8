//! The command line: `trainlint check | show | rule | gpus | schema`.

use crate::commands;
use crate::error::FatalError;
use crate::render::OutputFormat;
use crate::settings::Overrides;
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Parser)]
#[command(name = "trainlint", version, about = "A fast linter and fixer for machine-learning training configs.")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check configs: syntax, schema, batch invariance and memory fit.
    Check(CheckArgs),
    /// Show the resolved view of one config: each role's value and where it comes from.
    Show(ShowArgs),
    /// The peak-memory breakdown of a config (per stage) on GPU targets.
    Estimate(EstimateArgs),
    /// For each GPU target (and stage): the largest micro batch that fits and keeps the effective batch.
    Plan(PlanArgs),
    /// Upgrade configs across framework deprecations (MIG rules): a diff, or `--write`.
    Migrate(MigrateArgs),
    /// Explain a rule (`trainlint rule SCH003`), or list them all (`--all`).
    Rule(RuleArgs),
    /// List the GPU targets: the built-in catalog and the manifest's custom ones.
    Gpus(GpusArgs),
    /// Print one of trainlint's JSON Schemas.
    Schema(SchemaArgs),
}

/// Options shared by every command that reads configs.
#[derive(Debug, Args)]
pub struct ConfigArgs {
    /// Use this manifest (`trainlint.toml` or `pyproject.toml`) instead of searching for one.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// GPU target id to check against (repeatable); overrides the manifest's `gpus`.
    #[arg(long = "gpu", value_name = "ID")]
    pub gpus: Vec<String>,
    /// Data-parallel world size when a config does not state it.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub world_size: Option<u32>,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Files or folders to check (default: the current folder).
    pub paths: Vec<PathBuf>,
    #[arg(long, value_enum, default_value = "full")]
    pub output_format: OutputFormat,
    #[command(flatten)]
    pub config: ConfigArgs,
    /// Only these rule codes or prefixes (comma-separated); replaces the manifest's `select`.
    #[arg(long, value_delimiter = ',', value_name = "CODES")]
    pub select: Option<Vec<String>>,
    /// Also these rule codes or prefixes.
    #[arg(long, value_delimiter = ',', value_name = "CODES")]
    pub extend_select: Vec<String>,
    /// Not these rule codes or prefixes.
    #[arg(long, value_delimiter = ',', value_name = "CODES")]
    pub ignore: Vec<String>,
    /// Exit 0 even when errors are found.
    #[arg(long)]
    pub exit_zero: bool,
    /// Apply the manifest's excludes to files named on the command line too (for pre-commit).
    #[arg(long)]
    pub force_exclude: bool,
    /// Write the report in `--output-format` to this file, and a human report to stdout.
    #[arg(long, value_name = "FILE")]
    pub output_file: Option<PathBuf>,
    /// Compare with the same files at this git revision (read with `git show`, nothing checked out).
    #[arg(long, value_name = "REV")]
    pub baseline: Option<String>,
    /// Only this curriculum stage: its findings and fixes (the base and other stage files are left alone).
    #[arg(long, value_name = "NAME")]
    pub stage: Option<String>,
    /// Apply safe fixes (files are rewritten in place; comments and formatting kept).
    #[arg(long)]
    pub fix: bool,
    /// Also apply unsafe fixes (ones that change training, such as a new micro batch), with --fix or --diff.
    #[arg(long)]
    pub unsafe_fixes: bool,
    /// Print the changes fixes would make as a unified diff; write nothing; exit 1 when there are changes.
    #[arg(long, conflicts_with_all = ["fix", "fix_only"])]
    pub diff: bool,
    /// Apply fixes and report nothing else.
    #[arg(long)]
    pub fix_only: bool,
}

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The config to resolve (for `--stage`, the curriculum's base config).
    pub config_file: PathBuf,
    /// Show this curriculum stage (its name, or its file stem): the base with the stage merged in.
    #[arg(long, value_name = "NAME")]
    pub stage: Option<String>,
    #[arg(long, value_enum, default_value = "full")]
    pub output_format: OutputFormat,
    #[command(flatten)]
    pub config: ConfigArgs,
}

#[derive(Debug, Args)]
pub struct EstimateArgs {
    /// The config (for a curriculum, its base config: every stage is estimated).
    pub config_file: PathBuf,
    /// Only this curriculum stage.
    #[arg(long, value_name = "NAME")]
    pub stage: Option<String>,
    /// Estimate at this micro batch instead of the config's.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub micro_batch: Option<u32>,
    #[arg(long, value_enum, default_value = "full")]
    pub output_format: OutputFormat,
    #[command(flatten)]
    pub config: ConfigArgs,
}

#[derive(Debug, Args)]
pub struct PlanArgs {
    /// The config (for a curriculum, its base config: every stage is planned).
    pub config_file: PathBuf,
    /// Only this curriculum stage.
    #[arg(long, value_name = "NAME")]
    pub stage: Option<String>,
    /// Every GPU of the catalog.
    #[arg(long, conflicts_with = "gpus")]
    pub all_gpus: bool,
    /// Rewrite micro batch and accumulation for the one `--gpu` target, in the
    /// base config and in every stage file that needs its own.
    #[arg(long, conflicts_with = "all_gpus")]
    pub apply: bool,
    #[arg(long, value_enum, default_value = "full")]
    pub output_format: OutputFormat,
    #[command(flatten)]
    pub config: ConfigArgs,
}

#[derive(Debug, Args)]
pub struct MigrateArgs {
    /// Files or folders (default: the current folder).
    pub paths: Vec<PathBuf>,
    /// Apply the migrations (default: print a unified diff and write nothing).
    #[arg(long)]
    pub write: bool,
    /// Also apply migrations marked unsafe (MIG006: older PyTorch ignores the new name).
    #[arg(long)]
    pub unsafe_fixes: bool,
    #[command(flatten)]
    pub config: ConfigArgs,
}

#[derive(Debug, Args)]
pub struct RuleArgs {
    /// A rule code (`SCH003`) or name (`unknown-key`).
    #[arg(required_unless_present = "all", conflicts_with = "all")]
    pub code: Option<String>,
    /// Every rule.
    #[arg(long)]
    pub all: bool,
    /// `full` prints the docs; `json` prints code, name, severity, fix, since and docs.
    #[arg(long, value_enum, default_value = "full")]
    pub output_format: OutputFormat,
}

#[derive(Debug, Args)]
pub struct GpusArgs {
    #[arg(long, value_enum, default_value = "full")]
    pub output_format: OutputFormat,
    /// Use this manifest (for its custom `[[gpu]]` targets).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// One of: training-config, curriculum-stage, gpu-target, manifest.
    #[arg(value_parser = clap::builder::PossibleValuesParser::new(crate::schema::NAMES))]
    pub name: String,
}

impl ConfigArgs {
    pub fn overrides(&self) -> Overrides {
        Overrides { config: self.config.clone(), world_size: self.world_size, gpus: self.gpus.clone(), ..Overrides::default() }
    }
}

pub fn run() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Check(args) => commands::check::run(&args),
        Command::Show(args) => commands::show::run(&args),
        Command::Estimate(args) => commands::estimate::run_estimate(&args),
        Command::Plan(args) => commands::estimate::run_plan(&args),
        Command::Migrate(args) => commands::migrate::run(&args),
        Command::Rule(args) => commands::rule::run(&args),
        Command::Gpus(args) => commands::gpus::run(&args),
        Command::Schema(args) => commands::schema::run(&args),
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            report_fatal(error);
            ExitCode::from(2)
        }
    }
}

fn report_fatal(error: FatalError) {
    let report = miette::Report::new(error);
    eprintln!("trainlint: {report:?}");
}

#[cfg(test)]
mod tests {
    #[test]
    fn cli_is_well_formed() {
        use clap::CommandFactory;
        super::Cli::command().debug_assert();
    }
}
