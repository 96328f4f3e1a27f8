//! Source files and byte-offset ↔ line/column conversion.
//!
//! Every span in trainlint is a byte range into the text of one `SourceFile`.
//! Lines and columns are 1-based; columns count characters, as editors and
//! ruff do, so a multi-byte character before a value does not shift the caret.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A byte range into a source text.
pub(crate) type Span = Range<usize>;

#[derive(Debug)]
pub struct SourceFile {
    /// The path as the user gave it (or relative to the manifest), used in output; shared with
    /// `check`'s file list and a folded finding's text-less copy (`without_text`).
    display: Arc<str>,
    /// The path used to read the file.
    path: Arc<Path>,
    text: Arc<str>,
    line_starts: Vec<usize>,
}

impl SourceFile {
    pub fn new(path: impl Into<PathBuf>, display: impl Into<String>, text: impl Into<Arc<str>>) -> Self {
        let text: Arc<str> = text.into();
        let line_starts = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
        SourceFile { display: Arc::from(display.into()), path: Arc::from(path.into()), text, line_starts }
    }

    pub fn display(&self) -> &str {
        &self.display
    }

    /// The display name, shared (no copy).
    pub(crate) fn shared_display(&self) -> Arc<str> {
        Arc::clone(&self.display)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    pub(crate) fn shared_text(&self) -> Arc<str> {
        Arc::clone(&self.text)
    }

    /// 1-based line and character column of a byte offset (clamped to the text).
    /// The same file without its text, for a finding that is only counted (a folded info):
    /// its path and display name are kept, its positions read as line 1.
    pub(crate) fn without_text(&self) -> SourceFile {
        SourceFile { display: Arc::clone(&self.display), path: Arc::clone(&self.path), text: Arc::from(""), line_starts: vec![0] }
    }

    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line_index = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let line_start = self.line_starts[line_index];
        let mut boundary = offset;
        while !self.text.is_char_boundary(boundary) {
            boundary -= 1;
        }
        let column = self.text[line_start..boundary].chars().count() + 1;
        (line_index + 1, column)
    }

    /// The text of the 1-based line `line`, without its line break.
    pub(crate) fn line_text(&self, line: usize) -> &str {
        let Some(&start) = self.line_starts.get(line.saturating_sub(1)) else { return "" };
        let end = self.line_starts.get(line).copied().unwrap_or(self.text.len());
        self.text[start..end].trim_end_matches(['\n', '\r'])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_characters_not_bytes() {
        let file = SourceFile::new("a.yaml", "a.yaml", "name: café\nb: 1\n");
        assert_eq!(file.line_col(0), (1, 1));
        assert_eq!(file.line_col(file.text().find('b').unwrap()), (2, 1));
        assert_eq!(file.line_col(file.text().find('\n').unwrap()), (1, 11));
        assert_eq!(file.line_text(2), "b: 1");
    }
}
