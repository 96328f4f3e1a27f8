//! Runs the pipeline over files: load → resolve → rules. Rendering and
//! applying fixes happen after, on the reports this returns.

use crate::diagnostic::Diagnostic;
use crate::error::FatalError;
use crate::load::discover::SourcePath;
use crate::load::{self, Document, LoadError};
use crate::resolve::{self, Dialect, ResolvedConfig};
use crate::rules::{Checker, schema as sch};
use crate::settings::Settings;
use globset::{Glob, GlobMatcher};
use std::path::Path;

/// Everything known about one checked file.
#[derive(Debug)]
pub struct FileReport {
    pub document: Document,
    pub resolved: Option<ResolvedConfig>,
    pub diagnostics: Vec<Diagnostic>,
}

pub fn lint_file(file: &SourcePath, settings: &Settings) -> Result<FileReport, FatalError> {
    let document = load::load_file(&file.path, &file.display, file.format)
        .map_err(|e| FatalError::Io { path: file.display.clone(), reason: e.to_string() })?;
    Ok(lint_document(document, settings))
}

pub fn lint_document(document: Document, settings: &Settings) -> FileReport {
    let mut checker = Checker::new(&settings.selection);
    for duplicate in &document.duplicates {
        checker.report(sch::duplicate_key::diagnostic(&document, duplicate));
    }
    let resolved = match &document.root {
        Err(LoadError::Empty) if resolve::hydra::primary_config_of_group_option(document.source.path()).is_some() => None,
        Err(error) => {
            checker.report(sch::invalid_syntax::diagnostic(&document, error));
            None
        }
        Ok(root) => {
            let resolved = resolve::resolve(&document, root, settings);
            if resolved.detection.dialect == Dialect::Native {
                sch::validate(&mut checker, &document, root, sch::compiled("training-config"));
            }
            Some(resolved)
        }
    };
    let mut diagnostics = checker.into_diagnostics();
    let ignored = per_file_ignores(settings, document.source.path());
    diagnostics.retain(|d| !ignored.iter().any(|code| d.rule.code.starts_with(code.as_str())));
    diagnostics.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    FileReport { document, resolved, diagnostics }
}

/// The codes `per-file-ignores` silences for a path (patterns are relative to the manifest).
fn per_file_ignores(settings: &Settings, path: &Path) -> Vec<String> {
    if settings.manifest.per_file_ignores.is_empty() {
        return Vec::new();
    }
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let root = std::path::absolute(&settings.root).unwrap_or_else(|_| settings.root.clone());
    let relative = absolute.strip_prefix(&root).unwrap_or(&absolute);
    settings
        .manifest
        .per_file_ignores
        .iter()
        .filter(|(pattern, _)| matcher(pattern).is_some_and(|m| m.is_match(relative) || relative.file_name().is_some_and(|n| m.is_match(n))))
        .flat_map(|(_, codes)| codes.iter().map(|c| c.to_ascii_uppercase()))
        .collect()
}

fn matcher(pattern: &str) -> Option<GlobMatcher> {
    Glob::new(pattern).ok().map(|g| g.compile_matcher())
}
