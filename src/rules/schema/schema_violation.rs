use crate::declare_rule;
use crate::diagnostic::Diagnostic;
use crate::load::{Document, Node};
use crate::source::Span;

declare_rule! {
    /// ## What it does
    /// Reports a value in a trainlint-native config (or curriculum stage) that
    /// violates the schema: a wrong type (`micro_batch: "48"`), a value out of
    /// range (`accumulation: 0`), a value outside a fixed set
    /// (`precision: bf16`), or a missing required key.
    ///
    /// ## Why is this bad?
    /// A value of the wrong type or range either crashes the run at start-up or,
    /// worse, is read differently than intended: a quoted `"48"` is a string to
    /// every YAML reader.
    ///
    /// ## Example
    /// ```yaml
    /// trainlint: 1
    /// batch:
    ///   micro_batch: "48"
    ///   accumulation: 0
    /// ```
    ///
    /// Use instead:
    /// ```yaml
    /// trainlint: 1
    /// batch:
    ///   micro_batch: 48
    ///   accumulation: 1
    /// ```
    ///
    /// ## Fix safety
    /// There is no fix: the intended value is not known.
    pub struct SchemaViolation {
        name: "schema-violation",
        severity: Error,
        fix: None,
        since: "0.1.0",
        check: Schema,
    }
}

pub fn diagnostic(document: &Document, pointer: &str, node: &Node, key_span: Option<&Span>, message: String) -> Diagnostic {
    let path = dotted(pointer);
    let message = if path.is_empty() { message } else { format!("`{path}`: {message}") };
    let mut diagnostic = Diagnostic::new(SchemaViolation, &document.source, node.span.clone(), message)
        .with_label("invalid value")
        .with_note("the training-config schema (`trainlint schema training-config`) defines the allowed values")
        .with_help("change the value to one the schema allows; `trainlint schema training-config` lists them");
    if let Some(key_span) = key_span {
        diagnostic = diagnostic.with_secondary(&document.source, key_span.clone(), "for this key");
    }
    diagnostic
}

/// `/batch/micro_batch` → `batch.micro_batch`.
pub(crate) fn dotted(pointer: &str) -> String {
    pointer.trim_start_matches('/').split('/').map(|s| s.replace("~1", "/").replace("~0", "~")).collect::<Vec<_>>().join(".")
}
