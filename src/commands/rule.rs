use crate::error::FatalError;
use crate::render::OutputFormat;
use crate::rules::{RuleMeta, codes};
use clap::Args;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct RuleArgs {
    /// A rule code (`SCH003`) or name (`unknown-key`).
    #[arg(required_unless_present = "all", conflicts_with = "all")]
    pub code: Option<String>,
    /// Every rule.
    #[arg(long)]
    pub all: bool,
    /// `full` prints the docs; `json` prints `{"version": 1, "rules": [...]}`, each with code, name, severity, fix, since, summary, docs and url.
    #[arg(long, default_value = "full", value_parser = crate::render::formats(OutputFormat::RULE))]
    pub output_format: OutputFormat,
}

pub(crate) fn run(args: &RuleArgs) -> Result<ExitCode, FatalError> {
    let rules: Vec<&RuleMeta> = match &args.code {
        Some(code) => match codes::find(code) {
            Some(rule) => vec![rule],
            None => {
                let known: Vec<String> = codes::ALL.iter().map(|r| r.code.to_owned()).collect();
                let hint = crate::rules::schema::suggest(code, &known).map(|s| format!("did you mean `{s}`? ")).unwrap_or_default();
                return Err(FatalError::usage(format!("unknown rule `{code}`"), Some(format!("{hint}`trainlint rule --all` lists every rule"))));
            }
        },
        None => codes::ALL.to_vec(),
    };
    let output = match args.output_format {
        OutputFormat::Json => crate::render::json::rules(&rules),
        OutputFormat::Concise => rules.iter().map(|r| format!("{} {} [{}] {}\n", r.code, r.name, r.severity.as_str(), r.summary())).collect(),
        _ => rules.iter().map(|r| crate::docs::page(r)).collect::<Vec<_>>().join("\n"),
    };
    super::print(&output);
    Ok(ExitCode::SUCCESS)
}
