use crate::cli::SchemaArgs;
use crate::error::FatalError;
use std::process::ExitCode;

pub fn run(args: &SchemaArgs) -> Result<ExitCode, FatalError> {
    let text = crate::schema::schema_text(&args.name).ok_or_else(|| FatalError::usage(format!("unknown schema `{}`", args.name), None))?;
    super::print(&text);
    Ok(ExitCode::SUCCESS)
}
