//! Fatal errors: the run cannot go on (exit code 2). Findings in configs are
//! diagnostics, never these.

use miette::{Diagnostic, NamedSource, SourceSpan};

#[derive(Debug, thiserror::Error, Diagnostic)]
pub enum FatalError {
    #[error("cannot read `{path}`: {reason}")]
    #[diagnostic(code(trainlint::io), help("check that the path exists and is readable"))]
    Io { path: String, reason: String },

    #[error("invalid manifest `{path}`: {message}")]
    #[diagnostic(code(trainlint::manifest))]
    Manifest {
        path: String,
        message: String,
        #[source_code]
        source_code: NamedSource<String>,
        #[label("{message}")]
        span: Option<SourceSpan>,
        #[help]
        help: Option<String>,
    },

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

impl FatalError {
    pub fn usage(message: impl Into<String>, help: impl Into<Option<String>>) -> Self {
        FatalError::Usage { message: message.into(), help: help.into() }
    }
}
