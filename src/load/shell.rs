//! Training flags in shell scripts (`python -m aam.cli pretrain --batch-size 8
//! --gradient-accumulation-steps 16`), read without running anything.
//!
//! Lines joined at `\` continuations are split into words with sh quoting
//! (single quotes, double quotes, backslashes); each word keeps its byte span.
//! `NAME=value` assignments earlier in the script (also after `export`) are
//! substituted into `$NAME` / `${NAME}`, and a value that came from a variable
//! points at the assignment, where a fix edits it. The flags of one command —
//! the first whose words start with the manifest's `[shell] command`, else the
//! first with flags — become a mapping: `--batch-size 8` and `--batch-size=8`
//! give `batch_size: 8`, a flag without a value gives `true`.

use super::LoadError;
use super::scalar::type_plain_scalar;
use super::tree::{Entry, Node, ScalarStyle, Value};
use crate::source::Span;
use std::collections::HashMap;

#[derive(Clone, Debug)]
struct Word {
    text: String,
    span: Span,
    quoted: Option<ScalarStyle>,
    /// For a word that is exactly one `$VAR`: where the variable's value is written.
    from_variable: Option<(Span, Option<ScalarStyle>)>,
}

pub fn parse(text: &str, command: Option<&str>) -> Result<Node, LoadError> {
    let mut variables: HashMap<String, (String, Span, Option<ScalarStyle>)> = HashMap::new();
    let mut chosen: Option<Vec<Word>> = None;
    for words in commands(text)? {
        // `NAME=value` (optionally after `export`) defines a variable for later lines.
        let assignments: Vec<&Word> = words.iter().skip_while(|w| w.text == "export").take_while(|w| is_assignment(&w.text)).collect();
        let rest: Vec<Word> = words.iter().skip_while(|w| w.text == "export").skip(assignments.len()).cloned().collect();
        for word in &assignments {
            let (name, value) = word.text.split_once('=').unwrap_or_default();
            let offset = word.span.start + name.len() + 1;
            variables.insert(name.to_owned(), (value.to_owned(), offset..word.span.end, word.quoted));
        }
        if rest.is_empty() || chosen.is_some() {
            continue;
        }
        let substituted: Vec<Word> = rest.into_iter().map(|w| substitute(w, &variables)).collect();
        let program: Vec<&str> = substituted.iter().take_while(|w| !w.text.starts_with("--")).map(|w| w.text.as_str()).collect();
        let has_flags = substituted.iter().any(|w| w.text.starts_with("--"));
        let matches = match command {
            Some(prefix) => program.join(" ").contains(prefix.trim()),
            None => has_flags,
        };
        if matches {
            chosen = Some(substituted);
        }
    }
    let words = chosen.unwrap_or_default();
    let mut entries: Vec<Entry> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let word = &words[i];
        let Some(flag) = word.text.strip_prefix("--").filter(|f| !f.is_empty()) else {
            i += 1;
            continue;
        };
        let (name, value_node, consumed) = match flag.split_once('=') {
            Some((name, value)) => {
                let start = word.span.end - value.len();
                (name.to_owned(), scalar(value, start..word.span.end, word.quoted.map(|_| ScalarStyle::Plain), None), 1)
            }
            None => match words.get(i + 1).filter(|next| !next.text.starts_with("--")) {
                Some(next) => (flag.to_owned(), scalar(&next.text, next.span.clone(), next.quoted, next.from_variable.clone()), 2),
                None => (flag.to_owned(), Node { value: Value::Bool(true), span: word.span.clone(), alias: None, style: None, origin: 0 }, 1),
            },
        };
        let key = name.replace('-', "_");
        let key_span = word.span.start..word.span.start + 2 + name.len();
        if let Some(existing) = entries.iter_mut().find(|e| e.key == key) {
            existing.value = value_node;
        } else {
            entries.push(Entry { key, key_span, key_origin: 0, value: value_node });
        }
        i += consumed;
    }
    Ok(Node::new(Value::Map(entries), 0..text.len()))
}

fn scalar(text: &str, span: Span, quoted: Option<ScalarStyle>, from_variable: Option<(Span, Option<ScalarStyle>)>) -> Node {
    let (span, quoted) = from_variable.unwrap_or((span, quoted));
    let value = match quoted {
        Some(ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted) => match type_plain_scalar(text) {
            // A quoted number is still a number to argparse.
            typed @ (Value::Int(_) | Value::Float(_)) => typed,
            _ => Value::Str(text.to_owned()),
        },
        _ => type_plain_scalar(text),
    };
    Node { value, span, alias: None, style: Some(quoted.unwrap_or(ScalarStyle::Plain)), origin: 0 }
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !name.starts_with(|c: char| c.is_ascii_digit())
    })
}

fn substitute(mut word: Word, variables: &HashMap<String, (String, Span, Option<ScalarStyle>)>) -> Word {
    let name = word.text.strip_prefix("${").and_then(|r| r.strip_suffix('}')).or_else(|| word.text.strip_prefix('$'));
    if let Some((value, span, quoted)) = name.and_then(|n| variables.get(n)) {
        word.from_variable = Some((span.clone(), *quoted));
        word.text = value.clone();
    }
    word
}

/// Splits the script into commands (one per logical line, `;`, `&&`, `|`),
/// each a list of words with spans. Comments and heredoc-free scripts only.
fn commands(text: &str) -> Result<Vec<Vec<Word>>, LoadError> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut words: Vec<Word> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'\\' if bytes.get(i + 1) == Some(&b'\n') => i += 2,
            b' ' | b'\t' | b'\r' => i += 1,
            b'\n' | b';' | b'|' | b'&' => {
                if !words.is_empty() {
                    out.push(std::mem::take(&mut words));
                }
                i += 1;
            }
            b'#' if words.is_empty() || bytes.get(i.wrapping_sub(1)).is_some_and(|b| b.is_ascii_whitespace()) => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            _ => {
                let start = i;
                let mut textual = String::new();
                let mut quoted = None;
                while i < bytes.len() && !matches!(bytes[i], b' ' | b'\t' | b'\n' | b'\r' | b';' | b'|' | b'&') {
                    match bytes[i] {
                        b'\'' => {
                            let close =
                                text[i + 1..].find('\'').ok_or_else(|| LoadError::Syntax { message: "unterminated single quote".into(), span: i..i + 1 })?;
                            textual.push_str(&text[i + 1..i + 1 + close]);
                            quoted = Some(ScalarStyle::SingleQuoted);
                            i += close + 2;
                        }
                        b'"' => {
                            let mut j = i + 1;
                            while j < bytes.len() && bytes[j] != b'"' {
                                if bytes[j] == b'\\' && j + 1 < bytes.len() {
                                    textual.push(bytes[j + 1] as char);
                                    j += 2;
                                } else {
                                    let ch = text[j..].chars().next().unwrap_or(' ');
                                    textual.push(ch);
                                    j += ch.len_utf8();
                                }
                            }
                            if j >= bytes.len() {
                                return Err(LoadError::Syntax { message: "unterminated double quote".into(), span: i..i + 1 });
                            }
                            quoted = Some(ScalarStyle::DoubleQuoted);
                            i = j + 1;
                        }
                        b'\\' if bytes.get(i + 1) == Some(&b'\n') => break,
                        b'\\' if i + 1 < bytes.len() => {
                            textual.push(bytes[i + 1] as char);
                            i += 2;
                        }
                        _ => {
                            let ch = text[i..].chars().next().unwrap_or(' ');
                            textual.push(ch);
                            i += ch.len_utf8();
                        }
                    }
                }
                // The value span of a quoted word is inside its quotes' outer bounds: a
                // fix that keeps the quotes replaces the whole word.
                words.push(Word { text: textual, span: start..i, quoted, from_variable: None });
            }
        }
    }
    if !words.is_empty() {
        out.push(words);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aam_style_flags_with_continuations_quotes_and_variables() {
        let text = "#!/bin/bash\nBATCH=2\nexport PYTORCH_ALLOC_CONF=expandable_segments:True\npython -m aam.cli pretrain \\\n  --batch-size $BATCH \\\n  --gradient-accumulation-steps=16 \\\n  --token-limit \"1024\" \\\n  --use-expandable-segments\n";
        let root = parse(text, Some("python -m aam.cli pretrain")).unwrap();
        let batch = root.get("batch_size").unwrap();
        assert_eq!(batch.value, Value::Int(2));
        assert_eq!(&text[batch.span.clone()], "2", "a value from a variable points at the assignment");
        let accumulation = root.get("gradient_accumulation_steps").unwrap();
        assert_eq!(accumulation.value, Value::Int(16));
        assert_eq!(&text[accumulation.span.clone()], "16");
        let tokens = root.get("token_limit").unwrap();
        assert_eq!(tokens.value, Value::Int(1024));
        assert_eq!(&text[tokens.span.clone()], "\"1024\"");
        assert_eq!(root.get("use_expandable_segments").unwrap().value, Value::Bool(true));
        assert_eq!(&text[root.entry("token_limit").unwrap().key_span.clone()], "--token-limit");
    }

    #[test]
    fn unterminated_quotes_are_errors() {
        assert!(parse("python train.py --name 'x\n", None).is_err());
    }
}
