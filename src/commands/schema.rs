use crate::error::FatalError;
use clap::Args;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// An input format (training-config, curriculum-stage, gpu-target, manifest) or a command's
    /// `--output-format json` (check-output, show-output, estimate-output, plan-output, rule-output, gpus-output).
    #[arg(value_parser = clap::builder::PossibleValuesParser::new(names()))]
    pub name: String,
}

/// Every schema trainlint has, as `schemas/<name>.schema.json` names it: the
/// formats it reads (`schema::NAMES`), then the JSON it prints (`render::json::NAMES`).
pub fn names() -> impl Iterator<Item = &'static str> {
    crate::schema::NAMES.into_iter().chain(crate::render::json::NAMES)
}

/// The committed text of one of `names()`: pretty JSON with a final newline.
pub fn text(name: &str) -> Option<String> {
    crate::schema::schema_text(name).or_else(|| crate::render::json::schema(name).map(|schema| crate::render::json::to_text(&schema)))
}

pub(crate) fn run(args: &SchemaArgs) -> Result<ExitCode, FatalError> {
    let text = text(&args.name).ok_or_else(|| FatalError::usage(format!("unknown schema `{}`", args.name), None))?;
    super::print(&text);
    Ok(ExitCode::SUCCESS)
}
