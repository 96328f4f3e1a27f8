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
    /// The path used to read the file; `None`: the display name is that path (no second copy).
    path: Option<Arc<Path>>,
    text: Arc<str>,
    /// Where each line after the first starts (the first at 0): nothing allocated for a
    /// one-line or text-less file.
    line_starts: Vec<usize>,
    /// `identity_of` the file's canonical path when the read found it (a file on disk, not a
    /// link, read under project roots); 0 when not: `linter::dedupe` resolves it then.
    identity: u64,
}

/// A canonical path's identity: its bytes hashed (SipHash with fixed keys, the same in every
/// run). Equal paths have equal identities; two files with one are compared by their paths.
pub(crate) fn identity_of(canonical: &Path) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::hash::DefaultHasher::new();
    canonical.as_os_str().as_encoded_bytes().hash(&mut hasher);
    // 0 means "not known".
    hasher.finish().max(1)
}

impl SourceFile {
    pub fn new(path: impl Into<PathBuf>, display: impl Into<String>, text: impl Into<Arc<str>>) -> Self {
        let text: Arc<str> = text.into();
        let line_starts = text.match_indices('\n').map(|(i, _)| i + 1).collect();
        let (path, display): (PathBuf, String) = (path.into(), display.into());
        let path = (path.as_os_str() != display.as_str()).then(|| Arc::from(path));
        SourceFile { display: Arc::from(display), path, text, line_starts, identity: 0 }
    }

    /// The same file, known to be at `canonical` (`identity_of`).
    pub(crate) fn at_canonical(self, canonical: &Path) -> SourceFile {
        SourceFile { identity: identity_of(canonical), ..self }
    }

    /// `identity_of` its canonical path, when the read found it; 0 when not.
    pub(crate) fn identity(&self) -> u64 {
        self.identity
    }

    pub fn display(&self) -> &str {
        &self.display
    }

    /// The display name, shared (no copy).
    pub(crate) fn shared_display(&self) -> Arc<str> {
        Arc::clone(&self.display)
    }

    pub fn path(&self) -> &Path {
        self.path.as_deref().unwrap_or_else(|| Path::new(&*self.display))
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
        static EMPTY: std::sync::OnceLock<Arc<str>> = std::sync::OnceLock::new();
        let text = Arc::clone(EMPTY.get_or_init(|| Arc::from("")));
        SourceFile { display: Arc::clone(&self.display), path: self.path.clone(), text, line_starts: Vec::new(), identity: self.identity }
    }

    /// Where the 0-based line `index` starts.
    fn line_start(&self, index: usize) -> Option<usize> {
        if index == 0 { Some(0) } else { self.line_starts.get(index - 1).copied() }
    }

    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        // `line_starts[i]` starts the line of index i + 1.
        let line_index = match self.line_starts.binary_search(&offset) {
            Ok(i) => i + 1,
            Err(i) => i,
        };
        let line_start = self.line_start(line_index).unwrap_or(0);
        let mut boundary = offset;
        while !self.text.is_char_boundary(boundary) {
            boundary -= 1;
        }
        let column = self.text[line_start..boundary].chars().count() + 1;
        (line_index + 1, column)
    }

    /// The text of the 1-based line `line`, without its line break.
    pub(crate) fn line_text(&self, line: usize) -> &str {
        let Some(start) = self.line_start(line.saturating_sub(1)) else { return "" };
        let end = self.line_start(line).unwrap_or(self.text.len());
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
        assert_eq!((file.line_text(0), file.line_text(1), file.line_text(3), file.line_text(4)), ("", "name: café", "", ""));
        assert_eq!(file.line_col(file.text().len()), (3, 1));
        let one = SourceFile::new("b.yaml", "b.yaml", "a: 1");
        assert_eq!((one.line_col(3), one.line_text(1), one.path()), ((1, 4), "a: 1", Path::new("b.yaml")));
        let other = SourceFile::new("/abs/b.yaml", "b.yaml", "");
        assert_eq!((other.line_col(0), other.path(), other.display()), ((1, 1), Path::new("/abs/b.yaml"), "b.yaml"));
        let bare = file.without_text();
        assert_eq!((bare.line_col(5), bare.path(), bare.line_text(1)), ((1, 1), Path::new("a.yaml"), ""));
    }
}
