//! Setting a value at a dotted path in a YAML file with one byte-range edit:
//! replace the value where the key exists, or insert the missing keys, as block
//! mappings, after the last line of the deepest mapping that exists. Flow
//! collections, aliases, and missing keys of JSON and TOML files are left alone (the fix is then
//! display-only): TOML values are replaced byte-exactly, never inserted.

use crate::diagnostic::Edit;
use crate::load::{Node, ScalarStyle, Value};
use crate::source::SourceFile;
use std::sync::Arc;

/// `new` written where the scalar at `node` is, with the quotes it had —
/// except a number, which is written plain in YAML and JSON: `"auto"` becomes
/// `2`, not the string `"2"` that a framework would not read as a batch size
/// (and a re-check would not see as a number). Shell arguments keep their
/// quotes (the shell removes them).
pub(crate) fn replace_scalar(source: &Arc<SourceFile>, node: &Node, new: &str) -> Option<Edit> {
    if node.alias.is_some() {
        return None;
    }
    let shell = source.path().extension().is_some_and(|e| e == "sh" || e == "bash");
    let number = matches!(crate::load::scalar::type_plain_scalar(new), Value::Int(_) | Value::UInt(_) | Value::Float(_));
    let content = match node.style? {
        ScalarStyle::Plain => new.to_owned(),
        ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted if number && !shell => new.to_owned(),
        ScalarStyle::SingleQuoted => format!("'{new}'"),
        ScalarStyle::DoubleQuoted => format!("\"{new}\""),
        ScalarStyle::Literal | ScalarStyle::Folded => return None,
    };
    Some(Edit { file: Arc::clone(source), span: node.span.clone(), content })
}

/// `new` written over the scalar at `span` of `source` (a role's value as
/// resolved: its file and span), when the file's own tree has a scalar there
/// holding `expected`; `None` otherwise (the fix is then display-only).
pub(crate) fn replace_at(source: &Arc<SourceFile>, span: &std::ops::Range<usize>, expected: &serde_json::Value, new: &str) -> Option<Edit> {
    let format = crate::load::Format::of(source.path(), source.text());
    let (root, _) = crate::load::parse_text(source.text(), format).ok()?;
    let node = scalar_at(&root, span)?;
    (node.to_json() == *expected).then_some(())?;
    if aliased_elsewhere(&root, span) {
        return None;
    }
    replace_scalar(source, node, new)
}

/// Whether the scalar written at `span` is an anchor that an alias elsewhere in the tree repeats
/// (`per_device_train_batch_size: &b 8` … `per_device_eval_batch_size: *b`): editing it would
/// change every key that aliases it (issue 26, item 7), so such a value is not edited (the fix
/// is then display-only).
fn aliased_elsewhere(node: &Node, span: &std::ops::Range<usize>) -> bool {
    match &node.value {
        Value::Map(entries) => entries.iter().any(|e| aliased_elsewhere(&e.value, span)),
        Value::Seq(items) => items.iter().any(|n| aliased_elsewhere(n, span)),
        _ => node.span == *span && node.alias.is_some(),
    }
}

fn scalar_at<'a>(node: &'a Node, span: &std::ops::Range<usize>) -> Option<&'a Node> {
    match &node.value {
        Value::Map(entries) => entries.iter().find_map(|e| scalar_at(&e.value, span)),
        Value::Seq(items) => items.iter().find_map(|n| scalar_at(n, span)),
        _ => (node.span == *span && node.alias.is_none()).then_some(node),
    }
}

/// An edit that makes `path` hold `value` (written as given) in `source`, whose
/// tree is `root`. The edited text is parsed again before the edit is returned:
/// an edit that would not parse, or would not set the value, is `None` (the fix
/// is then display-only) — layouts this function does not foresee fail safe.
pub fn set(source: &Arc<SourceFile>, root: &Node, path: &str, value: &str) -> Option<Edit> {
    let edit = set_unchecked(source, root, path, value)?;
    let text = crate::diagnostic::splice(source.text(), std::slice::from_ref(&edit));
    let format = crate::load::Format::of(source.path(), source.text());
    let (fixed, _) = crate::load::parse_text(&text, format).ok()?;
    let unquoted = value.trim_matches(['"', '\'']);
    let expected = crate::load::scalar::type_plain_scalar(unquoted);
    // The value as typed: a string holds only where the value is written quoted. A tag the
    // edit leaves in place (`a: !!str 5` → `!!str 7`, still a string: found by the
    // `fix_reparse` fuzz target) fails this, and the fix is display-only.
    let quoted = unquoted.len() != value.len();
    let relative_path_holds = fixed.get_dotted(path).is_some_and(|n| n.value == expected || quoted && n.as_str() == Some(unquoted));
    // Shell scripts are checked by flag name, not by path.
    (relative_path_holds || format == crate::load::Format::Shell).then_some(edit)
}

fn set_unchecked(source: &Arc<SourceFile>, root: &Node, path: &str, value: &str) -> Option<Edit> {
    let text = source.text();
    // JSON, TOML and shell scripts: only values that are written can be replaced (byte-exactly,
    // `replace_scalar`); a missing key is never inserted, so the fix is display-only.
    if source.path().extension().is_some_and(|e| e == "json" || e == "jsonc" || e == "toml" || e == "sh" || e == "bash" || e == "py") {
        let entry = root.entry_dotted(path)?;
        return replace_scalar(source, &entry.value, value);
    }
    if let Some(entry) = root.entry_dotted(path) {
        return match entry.value.value {
            Value::Map(_) | Value::Seq(_) => None,
            _ if aliased_elsewhere(root, &entry.value.span) => None,
            _ => replace_scalar(source, &entry.value, value),
        };
    }
    let segments: Vec<&str> = path.split('.').collect();
    let mut parent = root;
    let mut depth = 0;
    for segment in &segments {
        match parent.get(segment) {
            Some(child) if matches!(child.value, Value::Map(_)) => {
                parent = child;
                depth += 1;
            }
            Some(_) => return None,
            None => break,
        }
    }
    let entries = match &parent.value {
        Value::Map(entries) => entries.as_slice(),
        Value::Null if depth == 0 => &[],
        _ => return None,
    };
    if entries.iter().any(|e| e.value.alias.is_some()) || text.get(parent.span.start..).is_some_and(|t| t.starts_with('{')) {
        return None;
    }
    let (indent, step) = match entries.first() {
        Some(first) => {
            let column = column(text, first.key_span.start)?;
            (column, if depth == 0 { 2 } else { column.checked_sub(column_of_parent(text, root, &segments[..depth])?).filter(|s| *s > 0).unwrap_or(2) })
        }
        None => (0, 2),
    };
    let end = entries.iter().map(|e| subtree_end(&e.value).max(e.key_span.end)).max().unwrap_or(0);
    // After the line's break: `\n`, `\r\n` or a lone `\r` (a CR-only file).
    let insert_at = match text[end..].find(['\n', '\r']) {
        Some(offset) if text[end + offset..].starts_with("\r\n") => end + offset + 2,
        Some(offset) => end + offset + 1,
        None => text.len(),
    };
    let mut content = String::new();
    if insert_at == text.len() && !text.is_empty() && !text.ends_with(['\n', '\r']) {
        content.push('\n');
    }
    for (level, segment) in segments[depth..].iter().enumerate() {
        content.push_str(&" ".repeat(indent + level * step));
        content.push_str(segment);
        content.push(':');
        if depth + level + 1 == segments.len() {
            content.push(' ');
            content.push_str(value);
        }
        content.push('\n');
    }
    Some(Edit { file: Arc::clone(source), span: insert_at..insert_at, content })
}

/// Column (0-based, in characters) of a byte offset, if only spaces precede it on its line.
fn column(text: &str, offset: usize) -> Option<usize> {
    let line_start = text[..offset].rfind(['\n', '\r']).map_or(0, |i| i + 1);
    let prefix = &text[line_start..offset];
    prefix.chars().all(|c| c == ' ').then(|| prefix.chars().count())
}

fn column_of_parent(text: &str, root: &Node, path: &[&str]) -> Option<usize> {
    let entry = root.entry_dotted(&path.join("."))?;
    column(text, entry.key_span.start)
}

/// The last byte any scalar of the subtree occupies.
fn subtree_end(node: &Node) -> usize {
    match &node.value {
        Value::Map(entries) => entries.iter().map(|e| subtree_end(&e.value).max(e.key_span.end)).max().unwrap_or(node.span.start),
        Value::Seq(items) => items.iter().map(subtree_end).max().unwrap_or(node.span.start),
        _ => node.span.end,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::splice;
    use crate::load::{Format, parse_text};

    fn set_in(text: &str, path: &str, value: &str) -> Option<String> {
        let source = Arc::new(SourceFile::new("stage.yaml", "stage.yaml", text));
        let (root, _) = parse_text(text, Format::Yaml).unwrap();
        set(&source, &root, path, value).map(|edit| splice(text, &[edit]))
    }

    /// Found by the `fix_reparse` fuzz target (2026-11-27): a value under an explicit `!!str` tag
    /// kept its tag when replaced, so `micro_batch: !!str 8` fixed to 7 was still the string
    /// "7" (and `{a: !!str\n7}` was a no-op reported as set). Such a fix is display-only; a
    /// tag that agrees with the value (`!!int`) is kept.
    #[test]
    fn a_value_under_a_str_tag_is_not_replaced_by_one_that_stays_a_string() {
        assert_eq!(set_in("a: !!str 5\n", "a", "7"), None);
        assert_eq!(set_in("{a: !!str\n7}", "a", "7"), None);
        assert_eq!(set_in("a: !!int 5\n", "a", "7").as_deref(), Some("a: !!int 7\n"));
        assert_eq!(set_in("a: \"5\"\n", "a", "7").as_deref(), Some("a: 7\n"));
        assert_eq!(set_in("a: 5\n", "a", "'7'").as_deref(), Some("a: '7'\n"));
    }

    /// Issue 26, item 7: a value shared through an anchor and an alias is not edited (either
    /// key's value would change the other's); an anchor nothing aliases is.
    #[test]
    fn an_anchored_value_an_alias_repeats_is_not_edited() {
        let text = "per_device_train_batch_size: &b 8\nper_device_eval_batch_size: *b\n";
        assert_eq!(set_in(text, "per_device_train_batch_size", "4"), None);
        assert_eq!(set_in(text, "per_device_eval_batch_size", "4"), None);
        let source = Arc::new(SourceFile::new("c.yaml", "c.yaml", text));
        let span = text.find('8').unwrap()..text.find('8').unwrap() + 1;
        assert!(replace_at(&source, &span, &serde_json::json!(8), "4").is_none());
        let lone = "per_device_train_batch_size: &b 8\nper_device_eval_batch_size: 8\n";
        assert_eq!(set_in(lone, "per_device_train_batch_size", "4").as_deref(), Some("per_device_train_batch_size: &b 4\nper_device_eval_batch_size: 8\n"));
    }

    #[test]
    fn inserts_a_missing_mapping_after_the_last_line() {
        let text = "# Stage 01\nname: \"01\"\nsettings:\n  n_positives: 32   # more\n  n_negatives: 24\n";
        let once = set_in(text, "batch.micro_batch", "15").unwrap();
        assert_eq!(once, format!("{text}batch:\n  micro_batch: 15\n"));
        let root = parse_text(&once, Format::Yaml).unwrap().0;
        assert_eq!(root.get_dotted("batch.micro_batch").unwrap().as_i64(), Some(15));
        let twice = set_in(&once, "batch.accumulation", "15").unwrap();
        assert_eq!(twice, format!("{text}batch:\n  micro_batch: 15\n  accumulation: 15\n"));
    }

    /// Issue 13, item 13: a number written over DeepSpeed's `"auto"` is a JSON
    /// number, which the file then holds as a number.
    #[test]
    fn a_number_over_a_quoted_string_is_written_plain() {
        let text = "{\n  \"gradient_accumulation_steps\": \"auto\"\n}\n";
        let source = Arc::new(SourceFile::new("ds.json", "ds.json", text));
        let (root, _) = parse_text(text, Format::Json).unwrap();
        let node = &root.entry("gradient_accumulation_steps").unwrap().value;
        let edit = replace_at(&source, &node.span, &serde_json::json!("auto"), "2").unwrap();
        let fixed = splice(text, &[edit]);
        assert_eq!(fixed, "{\n  \"gradient_accumulation_steps\": 2\n}\n");
        assert_eq!(parse_text(&fixed, Format::Json).unwrap().0.get("gradient_accumulation_steps").unwrap().as_i64(), Some(2));
    }

    /// Issue 13, item 17: inserted lines take the file's line ending, and a
    /// file without a final newline does not gain one.
    #[test]
    fn insertions_keep_line_endings_and_the_final_newline_state() {
        let crlf = "# Stage\r\nsettings:\r\n  n: 1\r\n";
        assert_eq!(set_in(crlf, "batch.micro_batch", "15").unwrap(), format!("{crlf}batch:\r\n  micro_batch: 15\r\n"));
        assert_eq!(set_in(crlf, "settings.m", "2").unwrap(), "# Stage\r\nsettings:\r\n  n: 1\r\n  m: 2\r\n");
        let crlf_no_final = "settings:\r\n  n: 1";
        assert_eq!(set_in(crlf_no_final, "settings.m", "2").unwrap(), "settings:\r\n  n: 1\r\n  m: 2");
        assert_eq!(set_in("settings:\n  n: 1\nother: 2", "settings.m", "2").unwrap(), "settings:\n  n: 1\n  m: 2\nother: 2");
        assert_eq!(set_in("settings:\n  n: 1", "settings.m", "2").unwrap(), "settings:\n  n: 1\n  m: 2");
    }

    #[test]
    fn inserts_inside_a_nested_mapping_with_its_indentation() {
        let text = "training:\n    trainer:\n        devices: 1 # one\n    lr: 3e-4\nother: 1\n";
        let fixed = set_in(text, "training.trainer.accumulate_grad_batches", "4").unwrap();
        assert_eq!(fixed, "training:\n    trainer:\n        devices: 1 # one\n        accumulate_grad_batches: 4\n    lr: 3e-4\nother: 1\n");
    }

    #[test]
    fn replaces_keeping_quotes_but_numbers_and_refuses_flow_and_aliases() {
        assert_eq!(set_in("batch:\n  micro_batch: \"48\"  # q\n", "batch.micro_batch", "32").unwrap(), "batch:\n  micro_batch: 32  # q\n");
        assert_eq!(set_in("batch:\n  name: 'old'\n", "batch.name", "new").unwrap(), "batch:\n  name: 'new'\n");
        assert_eq!(set_in("batch: {micro_batch: 48}\n", "batch.accumulation", "2"), None);
        assert_eq!(set_in("base: &b 48\nbatch:\n  micro_batch: *b\n", "batch.micro_batch", "32"), None);
        assert_eq!(set_in("no_newline: 1", "batch.micro_batch", "8").unwrap(), "no_newline: 1\nbatch:\n  micro_batch: 8");
        assert_eq!(set_in("# only a comment\n", "batch.micro_batch", "8").unwrap(), "# only a comment\nbatch:\n  micro_batch: 8\n");
    }
}
