use super::schema_violation::dotted;
use super::suggest;
use crate::declare_rule;
use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix};
use crate::load::{Document, Entry};

declare_rule! {
    /// ## What it does
    /// Reports a key that the format does not know, with the closest known key
    /// when one is close enough to be a typo.
    ///
    /// ## Why is this bad?
    /// Launchers silently ignore keys they do not know: a misspelt
    /// `micro_bach: 8` leaves the micro batch at its default, and the run
    /// trains with a batch nobody chose.
    ///
    /// ## Example
    /// ```yaml
    /// trainlint: 1
    /// batch:
    ///   micro_bach: 8
    /// ```
    ///
    /// Use instead:
    /// ```yaml
    /// trainlint: 1
    /// batch:
    ///   micro_batch: 8
    /// ```
    ///
    /// ## Fix safety
    /// Renaming to the suggestion is unsafe: the key may be meant for another
    /// tool, and the rename changes what the launcher reads.
    pub struct UnknownKey {
        name: "unknown-key",
        severity: Error,
        fix: Sometimes,
        since: "0.1.0",
        check: Schema,
    }
}

/// More known keys than this are counted in the help, not listed.
const MAX_LISTED: usize = 80;

pub fn diagnostic(document: &Document, parent_pointer: &str, entry: &Entry, known: &[String]) -> Diagnostic {
    let parent = dotted(parent_pointer);
    let place = if parent.is_empty() { "at the top level".to_owned() } else { format!("in `{parent}`") };
    let suggestion = suggest(&entry.key, known);
    let message = match suggestion {
        Some(s) => format!("unknown key `{}` {place}; did you mean `{s}`?", entry.key),
        None => format!("unknown key `{}` {place}", entry.key),
    };
    let diagnostic = Diagnostic::new(UnknownKey, &document.source, entry.key_span.clone(), message)
        .with_note("a key the format does not know is ignored by the launcher, so its value never takes effect");
    with_suggestion(diagnostic, document, parent_pointer, entry, suggestion, known)
}

/// Past this many unknown keys in one mapping, the rest are one finding (issue 26 item 8: 60
/// files of 1 MiB with 40,000 unknown keys each held 2.4 million findings, 4 GB, for 3½ minutes).
/// A mapping with this many keys the format does not know is not a config of that format: the
/// first ones say so, and memory and time stay bounded by the schema's size, not the file's.
pub const MOST_PER_MAPPING: usize = 100;

/// One finding for the unknown keys of a mapping beyond `MOST_PER_MAPPING`, at the first of them.
pub(crate) fn the_rest(document: &Document, parent_pointer: &str, first: &Entry, more: usize) -> Diagnostic {
    let parent = dotted(parent_pointer);
    let place = if parent.is_empty() { "at the top level".to_owned() } else { format!("in `{parent}`") };
    let message = format!("{more} more unknown keys {place}, from `{}` on (after {MOST_PER_MAPPING} listed one by one)", first.key);
    Diagnostic::new(UnknownKey, &document.source, first.key_span.clone(), message).with_note(
        "a key the format does not know is ignored by the launcher; a mapping with this many is probably not a config of this format: check the file's format, or exclude it",
    )
}

/// A key the framework renamed (`Framework::renamed_keys`): the new name is the suggestion,
/// however far its spelling is from the old one, and `why` says where the framework renamed it.
pub(crate) fn renamed(document: &Document, parent_pointer: &str, entry: &Entry, title: &str, new: &str, why: &str) -> Diagnostic {
    let parent = dotted(parent_pointer);
    let place = if parent.is_empty() { "at the top level".to_owned() } else { format!("in `{parent}`") };
    let message = format!("unknown key `{}` {place}; {title} renamed it `{new}`", entry.key);
    let diagnostic =
        Diagnostic::new(UnknownKey, &document.source, entry.key_span.clone(), message).with_note(format!("{title} no longer reads `{}`: {why}", entry.key));
    with_suggestion(diagnostic, document, parent_pointer, entry, Some(new), &[])
}

fn with_suggestion(
    mut diagnostic: Diagnostic,
    document: &Document,
    parent_pointer: &str,
    entry: &Entry,
    suggestion: Option<&str>,
    known: &[String],
) -> Diagnostic {
    // The right key already set beside the typo: a rename would write it twice
    // (PyYAML would read the later value, OmegaConf refuses the file). No fix.
    let already = suggestion.and_then(|s| document.root.as_ref().ok()?.pointer(parent_pointer)?.0.entry(s));
    match suggestion {
        Some(suggestion) if let Some(existing) = already => {
            let line = document.source.line_col(existing.key_span.start).0;
            diagnostic = diagnostic.with_label(format!("`{suggestion}` is already set on line {line}")).with_help(format!(
                "remove `{}`: `{suggestion}` is already set on line {line} and is the value read; renaming would write `{suggestion}` twice",
                entry.key
            ));
        }
        Some(suggestion) => {
            diagnostic =
                diagnostic.with_label(format!("did you mean `{suggestion}`?")).with_help(format!("rename `{}` to `{suggestion}`", entry.key)).with_fix(Fix {
                    applicability: Applicability::Unsafe,
                    message: format!("Rename `{}` to `{suggestion}`", entry.key),
                    edits: vec![Edit { file: document.source.clone(), span: entry.key_span.clone(), content: quoted_like(document, entry, suggestion) }],
                });
        }
        // A framework with hundreds of arguments (GPT-NeoX's 318): their list is no help.
        None if known.len() > MAX_LISTED => {
            diagnostic = diagnostic.with_label("unknown key").with_help(format!("remove it, or use one of the {} keys the framework knows", known.len()));
        }
        None => {
            let list = if known.is_empty() { "none".to_owned() } else { known.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ") };
            diagnostic = diagnostic.with_label("unknown key").with_help(format!("remove it, or use one of the known keys: {list}"));
        }
    }
    diagnostic
}

/// The new key written with the quotes the old one had (`"micro_bach"` → `"micro_batch"`).
fn quoted_like(document: &Document, entry: &Entry, key: &str) -> String {
    match document.source.text().get(entry.key_span.clone()).and_then(|t| t.chars().next()) {
        Some(quote @ ('"' | '\'')) => format!("{quote}{key}{quote}"),
        _ => key.to_owned(),
    }
}
