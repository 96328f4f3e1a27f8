//! `trainlint config [KEY]`: the manifest's keys, as ruff's `ruff config`. Every
//! word comes from the manifest's JSON Schema (`docs::configuration_fields`, the
//! source of the configuration reference too), which is generated from
//! `schema::Manifest`: the one place settings are defined.

use crate::docs::{Field, configuration_fields};
use crate::error::FatalError;
use clap::Args;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct ConfigArgs {
    /// A key, as the manifest writes it (`per-file-ignores`, `gpu.memory-mib`, `gpu[].memory-mib`);
    /// without one, every key with its type and default.
    pub key: Option<String>,
}

pub(crate) fn run(args: &ConfigArgs) -> Result<ExitCode, FatalError> {
    let fields = configuration_fields();
    let Some(key) = &args.key else {
        super::print(&list(&fields));
        return Ok(ExitCode::SUCCESS);
    };
    // `gpu.id` and `gpu[].id` name the same key of a list of tables.
    let wanted = key.trim().replace("[]", "");
    match fields.iter().find(|f| f.path.replace("[]", "") == wanted) {
        Some(field) => {
            super::print(&describe(field, &fields));
            Ok(ExitCode::SUCCESS)
        }
        None => {
            let keys: Vec<String> = fields.iter().map(|f| f.path.replace("[]", "")).collect();
            let suggestion = crate::diagnostic::suggest::suggest(&wanted, &keys).map(|s| format!("did you mean `{s}`? "));
            Err(FatalError::usage(
                format!("unknown manifest key `{key}`"),
                Some(format!("{}`trainlint config` lists the keys", suggestion.unwrap_or_default())),
            ))
        }
    }
}

/// One line per key: the key, its type, its default.
fn list(fields: &[Field]) -> String {
    // A long default (`exclude`'s list) is cut here; `trainlint config KEY` shows it whole.
    const LONGEST_DEFAULT: usize = 40;
    let width = fields.iter().map(|f| f.path.chars().count()).max().unwrap_or(0);
    let type_width = fields.iter().map(|f| f.type_name.chars().count()).max().unwrap_or(0);
    let mut out = format!("{:width$}  {:type_width$}  DEFAULT\n", "KEY", "TYPE");
    for field in fields {
        let default = if field.default.chars().count() > LONGEST_DEFAULT {
            format!("{}…`", field.default.chars().take(LONGEST_DEFAULT - 2).collect::<String>())
        } else {
            field.default.clone()
        };
        let line = format!("{:width$}  {:type_width$}  {default}", field.path, field.type_name);
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out.push_str("\n`trainlint config KEY` shows a key's text and an example; the manifest is `trainlint.toml` or `[tool.trainlint]` in `pyproject.toml`.\n");
    out
}

/// A key's text, type, default, example, and the keys under it.
fn describe(field: &Field, fields: &[Field]) -> String {
    let mut out = format!("{}\n\n{}\n\nType: {}\nDefault: {}\n", field.path, field.description, field.type_name, field.default);
    if !field.example.is_empty() {
        out.push_str(&format!("\nExample:\n\n{}", field.example));
    }
    let prefix = format!("{}.", field.path);
    let list_prefix = format!("{}[].", field.path);
    let children: Vec<&str> = fields.iter().map(|f| f.path.as_str()).filter(|p| p.starts_with(&prefix) || p.starts_with(&list_prefix)).collect();
    if !children.is_empty() {
        out.push_str(&format!("\nKeys: {}\n", children.join(", ")));
    }
    out
}
