//! `check --add-noqa`: a `# trainlint: ignore[CODE, ...]` comment on each line
//! with findings, as ruff's `--add-noqa` writes `# noqa: CODE` (ruff's docs:
//! "Enable automatic additions of `noqa` directives to failing lines"). The
//! comment is the suppression syntax `rules::suppression` reads, added at the
//! end of the finding's line (or merged into the suppression already there);
//! every other byte of the file is kept. YAML files only: a JSON file has no
//! comments (`per-file-ignores` is the way there), and a `#` in a shell
//! script's line may land in a heredoc or a quoted word.
//!
//! A comment must never change what the file says: each file's parsed values
//! are compared before and after, and a line whose comment would change them (a
//! plain scalar continued on the next line, where ` #` would end it) is left
//! alone and counted in `AddedSuppressions::left`.

use super::Change;
use crate::diagnostic::Diagnostic;
use crate::load::{self, Format};
use crate::rules::suppression;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Arc;

/// The codes to suppress on each 1-based line of a file.
type CodesByLine = BTreeMap<usize, BTreeSet<&'static str>>;

/// What `--add-noqa` would write.
#[derive(Debug, Default)]
pub(crate) struct AddedSuppressions {
    pub changes: Vec<Change>,
    /// Comments added or extended.
    pub added: usize,
    /// Findings in files that take no comment (JSON, shell), and on lines a comment would change.
    pub left: usize,
}

/// The changes that suppress `diagnostics` where they are reported. Suppression
/// findings (SUP) are never suppressed: they are about the comments themselves.
pub(crate) fn add_noqa(diagnostics: &[Diagnostic]) -> AddedSuppressions {
    let mut out = AddedSuppressions::default();
    let mut files: BTreeMap<PathBuf, (Arc<crate::source::SourceFile>, CodesByLine)> = BTreeMap::new();
    for diagnostic in diagnostics.iter().filter(|d| !d.rule.code.starts_with("SUP")) {
        let file = &diagnostic.file;
        if Format::of(file.path(), file.text()) != Format::Yaml || !file.path().is_file() {
            out.left += 1;
            continue;
        }
        let (line, _) = diagnostic.line_col();
        let entry = files.entry(super::canonical(file.path())).or_insert_with(|| (Arc::clone(file), BTreeMap::new()));
        entry.1.entry(line).or_default().insert(diagnostic.rule.code);
    }
    for (path, (file, lines)) in files {
        let original = file.text();
        let Ok((before, _)) = load::parse_text(original, Format::Yaml) else {
            out.left += lines.values().map(BTreeSet::len).sum::<usize>();
            continue;
        };
        let existing = suppression::parse(&file);
        let mut text = original.to_owned();
        // From the last line up, so that each edit leaves the offsets above it as they were.
        for (line, codes) in lines.iter().rev() {
            let candidate = with_comment(&text, *line, codes, &existing);
            let keeps_values = load::parse_text(&candidate, Format::Yaml).is_ok_and(|(after, _)| after.to_json() == before.to_json());
            if keeps_values && candidate != text {
                text = candidate;
                out.added += 1;
            } else if !keeps_values {
                out.left += codes.len();
            }
        }
        if text != original {
            out.changes.push(Change { path, display: file.display().to_owned(), original: original.to_owned(), fixed: text });
        }
    }
    out
}

/// `text` with `codes` suppressed on its 1-based `line`: added to the list of the
/// trailing suppression the line has, else a new comment at the line's end.
fn with_comment(text: &str, line: usize, codes: &BTreeSet<&str>, existing: &[suppression::Suppression]) -> String {
    let Some((start, content)) = text.split_inclusive('\n').scan(0, |at, l| Some((std::mem::replace(at, *at + l.len()), l))).nth(line - 1) else {
        return text.to_owned();
    };
    let body = content.trim_end_matches(['\n', '\r']);
    if let Some(found) = existing.iter().find(|s| s.line == line && !s.own_line && !s.whole_file && !s.codes.is_empty())
        && let Some(open) = text[found.span.clone()].find('[')
        && let Some(close) = text[found.span.clone()].find(']')
    {
        let missing: Vec<&str> = codes.iter().copied().filter(|c| !found.codes.iter().any(|have| c.starts_with(have.as_str()))).collect();
        if missing.is_empty() {
            return text.to_owned();
        }
        let list: Vec<String> = found.codes.iter().cloned().chain(missing.iter().map(|c| (*c).to_owned())).collect();
        let (open, close) = (found.span.start + open, found.span.start + close);
        return format!("{}[{}]{}", &text[..open], list.join(", "), &text[close + 1..]);
    }
    let list: Vec<&str> = codes.iter().copied().collect();
    // A bare `# trainlint: ignore` on the line (which suppresses nothing, SUP001) gets the list.
    if let Some(bare) = existing.iter().find(|s| s.line == line && !s.own_line && !s.whole_file && s.codes.is_empty())
        && let Some(word) = text[bare.span.clone()].find("ignore")
    {
        let at = bare.span.start + word + "ignore".len();
        return format!("{}[{}]{}", &text[..at], list.join(", "), &text[at..]);
    }
    let at = start + body.len();
    let gap = if body.trim().is_empty() || body.ends_with(' ') { "" } else { "  " };
    format!("{}{gap}# trainlint: ignore[{}]{}", &text[..at], list.join(", "), &text[at..])
}
