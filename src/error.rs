//! Fatal errors: the run cannot go on (exit code 2). Findings in configs are
//! diagnostics, never these.

use miette::{Diagnostic, NamedSource, SourceSpan};

#[derive(Debug, thiserror::Error, Diagnostic)]
pub enum FatalError {
    #[error("cannot read `{path}`: {reason}")]
    #[diagnostic(code(trainlint::io), help("check that the path exists and is readable"))]
    Io { path: String, reason: String },

    /// Boxed: it carries the manifest's text, and `Result<_, FatalError>` is
    /// returned everywhere (clippy's `result_large_err`).
    #[error(transparent)]
    #[diagnostic(transparent)]
    Manifest(Box<ManifestError>),

    #[error("cannot fix `{path}`: {reason}")]
    #[diagnostic(code(trainlint::fix))]
    FixFailed { path: String, reason: String },

    #[error("{message}")]
    #[diagnostic(code(trainlint::usage))]
    Usage {
        message: String,
        #[help]
        help: Option<String>,
    },
}

/// A manifest that cannot be used, pointed at where it is wrong.
#[derive(Debug, thiserror::Error, Diagnostic)]
#[error("invalid manifest `{path}`: {message}")]
#[diagnostic(code(trainlint::manifest))]
pub struct ManifestError {
    pub path: String,
    pub message: String,
    #[source_code]
    pub source_code: NamedSource<String>,
    #[label("{message}")]
    pub span: Option<SourceSpan>,
    #[help]
    pub help: Option<String>,
}

impl FatalError {
    pub(crate) fn usage(message: impl Into<String>, help: impl Into<Option<String>>) -> Self {
        FatalError::Usage { message: message.into(), help: help.into() }
    }
}
