//! SCH003 for framework dialects: keys the framework does not know, as the
//! dialect states them (`Framework::known_keys`).
//!
//! A framework that raises on an unknown key (Lightning's `Trainer(...)`) gets
//! every unknown key of its mapping reported. Frameworks that ignore keys they
//! do not know, whose configs carry intentional extras (`_comment`, recipe
//! metadata), get only a near miss of a key they do know reported — the typo
//! that silently leaves the batch at its default. Keys starting with `_` are
//! never reported. A key the framework renamed (`Framework::renamed_keys`) is
//! reported either way with its new name, and a suggestion is only ever a key
//! of that framework (the dialect's `known_keys`).

use super::unknown_key;
use crate::diagnostic::suggest::{KeyScratch, NormalizedKeys};
use crate::dialects::Dialect;
use crate::load::{Document, Node};
use crate::resolve::ResolvedConfig;
use crate::rules::Checker;

pub fn check(checker: &mut Checker, document: &Document, root: &Node, resolved: &ResolvedConfig) {
    let Some(known) = resolved.detection.dialect.known_keys(root) else { return };
    let pointer = if known.path.is_empty() { String::new() } else { format!("/{}", known.path.replace('.', "/")) };
    let mapping = if known.path.is_empty() { Some(root) } else { root.get_dotted(&known.path) };
    let Some(mapping) = mapping else { return };
    let dialect = resolved.detection.dialect;
    let spelling = |key: &str| dialect.known_key_spelling(key);
    if !known.strict {
        near_misses(checker, document, mapping, &pointer, known.keys, dialect);
        return;
    }
    let Some(entries) = mapping.entries() else { return };
    // The owned names the diagnostic takes, built only when a key is reported.
    let mut names: Option<Vec<String>> = None;
    for entry in entries {
        let key = spelling(&entry.key);
        if entry.key.starts_with('_') || known.keys.contains(&key.as_str()) || known.reported_elsewhere.contains(&key.as_str()) {
            continue;
        }
        if let Some(renamed) = dialect.renamed_keys().iter().find(|r| r.old == key) {
            checker.report(unknown_key::renamed(document, &pointer, entry, dialect.title(), renamed.new, renamed.why));
            continue;
        }
        let names = names.get_or_insert_with(|| owned(known.keys));
        // A strict framework does not ignore the key: it stops (`Trainer(**kwargs)`, `NeoXArgs(**config)`).
        let refuses = format!("{} raises on an argument it does not have, so the run stops at start-up", dialect.title());
        checker.report(unknown_key::diagnostic(document, &pointer, entry, names).with_note(refuses));
    }
}

/// Unknown keys within two edits of a known one (and not themselves known).
fn near_misses(checker: &mut Checker, document: &Document, root: &Node, pointer: &str, known: &'static [&'static str], dialect: Dialect) {
    let Some(entries) = root.entries() else { return };
    // The known keys normalised once per key set (they are static per dialect), and
    // the buffers of the comparisons shared by every key of the mapping.
    let normalized = NormalizedKeys::of(known);
    let mut scratch = KeyScratch::default();
    let mut names: Option<Vec<String>> = None;
    for entry in entries {
        let key = dialect.known_key_spelling(&entry.key);
        if known.contains(&key.as_str()) || entry.key.starts_with('_') {
            continue;
        }
        if let Some(renamed) = dialect.renamed_keys().iter().find(|r| r.old == key) {
            checker.report(unknown_key::renamed(document, pointer, entry, dialect.title(), renamed.new, renamed.why));
            continue;
        }
        if normalized.any_within(&entry.key, 2, &mut scratch) {
            let names = names.get_or_insert_with(|| owned(known));
            checker.report(unknown_key::diagnostic(document, pointer, entry, names));
        }
    }
}

fn owned(keys: &[&str]) -> Vec<String> {
    keys.iter().map(|k| (*k).to_owned()).collect()
}
