//! The command line: `trainlint check | show | estimate | plan | migrate | rule | gpus | schema | config`.

use crate::commands::{
    self,
    check::CheckArgs,
    estimate::{EstimateArgs, PlanArgs},
    gpus::GpusArgs,
    migrate::MigrateArgs,
    rule::RuleArgs,
    schema::SchemaArgs,
    show::ShowArgs,
};
use crate::error::FatalError;
use crate::render::full::ColorChoice;
use clap::{Args, Parser, Subcommand};
use std::process::ExitCode;

#[derive(Debug, Parser)]
#[command(
    name = "trainlint",
    version,
    about = "A fast linter and fixer for machine-learning training configs.",
    after_help = "Exit codes: 0 nothing failing; 1 errors found (`check`, also warnings with `--exit-non-zero-on-warning`), a config that does not fit (`estimate`) or changes to make (`--diff`); 2 a fatal or usage error."
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub command: Command,
    #[command(flatten)]
    pub global: GlobalArgs,
}

/// Options every subcommand takes, before or after its name.
#[derive(Debug, Args)]
pub(crate) struct GlobalArgs {
    /// Print findings only: no summary, notes or warnings (ruff's `--quiet`).
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Print nothing but fatal errors; the exit code still says whether checks failed.
    #[arg(long, global = true, conflicts_with = "verbose")]
    pub silent: bool,
    /// Also print, on stderr, the manifest used, every file found and what was done with it, and timings.
    #[arg(short, long, global = true)]
    pub verbose: bool,
    /// Colour the snippets: `auto` (a terminal, unless `NO_COLOR` is set; `FORCE_COLOR` forces it), `always`, `never`.
    #[arg(long, global = true, value_enum, default_value = "auto", value_name = "WHEN")]
    pub color: ColorChoice,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check configs: syntax, schema, batch invariance and memory fit.
    Check(Box<CheckArgs>),
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
    /// List the manifest's keys with their type and default, or show one key's text (`trainlint config per-file-ignores`).
    Config(commands::config::ConfigArgs),
    /// Print a shell completion script (`trainlint completions bash > ~/.local/share/bash-completion/completions/trainlint`).
    Completions(CompletionsArgs),
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete in.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

pub fn run() -> ExitCode {
    let cli = Cli::parse();
    let global = commands::Global { quiet: cli.global.quiet, silent: cli.global.silent, verbose: cli.global.verbose, color: cli.global.color };
    commands::set_global(global);
    let result = match cli.command {
        Command::Check(args) => commands::check::run(&args),
        Command::Show(args) => commands::show::run(&args),
        Command::Estimate(args) => commands::estimate::run_estimate(&args),
        Command::Plan(args) => commands::estimate::run_plan(&args),
        Command::Migrate(args) => commands::migrate::run(&args),
        Command::Rule(args) => commands::rule::run(&args),
        Command::Gpus(args) => commands::gpus::run(&args),
        Command::Schema(args) => commands::schema::run(&args),
        Command::Config(args) => commands::config::run(&args),
        Command::Completions(args) => {
            use clap::CommandFactory;
            let mut script = Vec::new();
            clap_complete::generate(args.shell, &mut Cli::command(), "trainlint", &mut script);
            commands::print(&String::from_utf8_lossy(&script));
            Ok(ExitCode::SUCCESS)
        }
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            report_fatal(error);
            ExitCode::from(2)
        }
    }
}

/// A fatal error on stderr. A refusal (`usage`), an unreadable file or a
/// failed fix is `error: message` and `help: ...`, as clap prints its own; a
/// bad manifest keeps miette's snippet of the manifest, coloured as `--color` says.
fn report_fatal(error: FatalError) {
    use std::io::IsTerminal;
    let color = commands::global().color.enabled(std::io::stderr().is_terminal());
    // A message names files, models and values from configs: their control characters
    // (ESC, newlines: a forged `::error` line in CI) are escaped (`render::escape_controls`).
    let safe = |text: &str| crate::render::escape_controls(text).into_owned();
    let error = sanitize_manifest(error);
    match &error {
        FatalError::Usage { message, help } => {
            eprintln!("{}: {}", if color { "\x1b[1;31merror\x1b[0m" } else { "error" }, safe(message));
            if let Some(help) = help {
                eprintln!("  help: {}", safe(help));
            }
        }
        FatalError::Io { .. } | FatalError::FixFailed { .. } => {
            eprintln!("{}: {}", if color { "\x1b[1;31merror\x1b[0m" } else { "error" }, safe(&error.to_string()));
            if let FatalError::Io { .. } = error {
                eprintln!("  help: check that the path exists and is readable");
            }
        }
        FatalError::Manifest(_) => {
            let theme = if color { miette::GraphicalTheme::unicode() } else { miette::GraphicalTheme::unicode_nocolor() };
            let mut out = String::new();
            let handler = miette::GraphicalReportHandler::new_themed(theme).with_width(100).with_links(false);
            if handler.render_report(&mut out, &WithoutCode(&error)).is_err() {
                out = error.to_string();
            }
            // miette's first line is `  × message`: the `error:` prefix takes the place of the cross.
            if let Some(at) = out.find('×').filter(|at| *at < 32) {
                out = out[at + '×'.len_utf8()..].trim_start_matches("\x1b[0m").trim_start_matches(' ').to_owned();
            }
            eprint!("{}: {out}", if color { "\x1b[1;31merror\x1b[0m" } else { "error" });
        }
    }
}

/// A manifest error whose texts are safe to print: the path, message and help escaped
/// (`render::escape_controls`), and each control character of the manifest's text (but
/// newlines and tabs, which miette lays out) shown as `?` — one `?` per byte, so that the
/// underlined span stays where it was.
fn sanitize_manifest(error: FatalError) -> FatalError {
    let FatalError::Manifest(mut manifest) = error else { return error };
    let safe = |text: &str| crate::render::escape_controls(text).into_owned();
    manifest.path = safe(&manifest.path);
    manifest.message = safe(&manifest.message);
    manifest.help = manifest.help.as_deref().map(safe);
    let text = manifest.source_code.inner();
    if text.chars().any(|c| c != '\n' && c != '\t' && crate::render::escape_controls(c.encode_utf8(&mut [0; 4])).len() > c.len_utf8()) {
        let clean: String = text
            .chars()
            .map(|c| {
                if c != '\n' && c != '\t' && crate::render::escape_controls(c.encode_utf8(&mut [0; 4])).len() > c.len_utf8() {
                    "?".repeat(c.len_utf8())
                } else {
                    c.to_string()
                }
            })
            .collect();
        manifest.source_code = miette::NamedSource::new(manifest.path.clone(), clean);
    }
    FatalError::Manifest(manifest)
}

/// A fatal error as miette shows it, less the `trainlint::…` code header (a
/// code for people to read is the message, as clap's errors have it).
struct WithoutCode<'a>(&'a FatalError);

impl std::fmt::Debug for WithoutCode<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.0, f)
    }
}

impl std::fmt::Display for WithoutCode<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self.0, f)
    }
}

impl std::error::Error for WithoutCode<'_> {}

impl miette::Diagnostic for WithoutCode<'_> {
    fn help<'b>(&'b self) -> Option<Box<dyn std::fmt::Display + 'b>> {
        miette::Diagnostic::help(self.0)
    }
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        miette::Diagnostic::source_code(self.0)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        miette::Diagnostic::labels(self.0)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn cli_is_well_formed() {
        use clap::CommandFactory;
        super::Cli::command().debug_assert();
    }
}
