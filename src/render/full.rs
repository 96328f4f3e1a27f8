//! Human output with source snippets, through miette's graphical handler.

use crate::diagnostic::{Applicability, Diagnostic, Severity};
use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource, SourceCode};
use std::fmt;
use std::sync::Arc;

/// How the snippets look: colour as [`ColorChoice::enabled`] decides.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    pub color: bool,
    pub width: usize,
}

/// `--color auto|always|never`, as ruff and clap spell it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// Colour on a terminal, unless `NO_COLOR` is set; `FORCE_COLOR` turns it on off a terminal.
    #[default]
    Auto,
    /// Always colour (ANSI escapes even into a file or a pipe).
    Always,
    /// Never colour.
    Never,
}

impl ColorChoice {
    /// Whether to colour a stream that is (or is not) a terminal. `always` and
    /// `never` win; with `auto`, a non-empty `NO_COLOR` turns colour off
    /// (<https://no-color.org>), else a non-empty `FORCE_COLOR` turns it on
    /// (<https://force-color.org>), else colour follows the terminal.
    pub(crate) fn enabled(self, is_terminal: bool) -> bool {
        let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty());
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto if set("NO_COLOR") => false,
            ColorChoice::Auto if set("FORCE_COLOR") => true,
            ColorChoice::Auto => is_terminal,
        }
    }
}

impl Style {
    /// Colour or not, at the fixed width.
    pub fn new(color: bool) -> Self {
        Style { color, width: 100 }
    }

    pub fn plain() -> Self {
        Style { color: false, width: 100 }
    }
}

const MAX_SNIPPET_LINE: usize = 400;

pub fn render(diagnostics: &[Diagnostic], style: Style) -> String {
    let theme = if style.color { GraphicalTheme::unicode() } else { GraphicalTheme::unicode_nocolor() };
    let handler = GraphicalReportHandler::new_themed(theme).with_width(style.width).with_links(false);
    let mut out = String::new();
    for d in diagnostics {
        let d = &super::escaped(d);
        let view = MietteView::new(d);
        if handler.render_report(&mut out, &view).is_err() {
            out.push_str(&format!("{}: {} {}\n", super::escape_controls(d.file.display()), d.rule.code, d.message));
        }
        if !view.has_snippet() {
            let (line, column) = d.line_col();
            out.push_str(&format!("  at {}:{line}:{column}\n", super::escape_controls(d.file.display())));
        }
        if let Some(note) = &d.note {
            out.push_str(&format!("  note: {note}\n"));
        }
        if let Some(fix) = &d.fix {
            let kind = match fix.applicability {
                Applicability::Safe => "safe fix",
                Applicability::Unsafe => "unsafe fix",
                Applicability::DisplayOnly => "suggestion",
            };
            out.push_str(&format!("  {kind}: {}\n", fix.message));
        }
        out.push('\n');
    }
    out
}

/// A `Diagnostic` as miette sees it.
struct MietteView<'a> {
    d: &'a Diagnostic,
    source: NamedSource<Arc<str>>,
}

impl<'a> MietteView<'a> {
    fn new(d: &'a Diagnostic) -> Self {
        MietteView { d, source: NamedSource::new(super::escape_controls(d.file.display()), d.file.shared_text()) }
    }
}

impl MietteView<'_> {
    /// Binary and empty files have no text to show, and a line of thousands of
    /// characters (minified JSON, a nesting bomb) is not worth showing. Nor are
    /// lines with control characters (an ESC in a key): the snippet prints
    /// source lines as they are, so such a diagnostic gives `at file:line:col`.
    fn has_snippet(&self) -> bool {
        let text = self.d.file.text();
        if text.is_empty() || self.d.span.end > text.len() {
            return false;
        }
        let (line, _) = self.d.file.line_col(self.d.span.start);
        if self.d.file.line_text(line).len() > MAX_SNIPPET_LINE {
            return false;
        }
        // The lines miette shows: the spans' and one of context either side.
        let spans = std::iter::once(&self.d.span).chain(self.d.labels.iter().filter(|l| Arc::ptr_eq(&l.file, &self.d.file)).map(|l| &l.span));
        let (first, last) = spans.fold((usize::MAX, 0), |(lo, hi), s| (lo.min(s.start), hi.max(s.end)));
        let from = text[..first.min(text.len())].rfind('\n').map_or(0, |i| text[..i].rfind('\n').map_or(0, |j| j + 1));
        let to = text[last.min(text.len())..].find('\n').map_or(text.len(), |i| {
            let after = last + i + 1;
            text[after.min(text.len())..].find('\n').map_or(text.len(), |j| after + j)
        });
        let shown = text.get(from..to).unwrap_or("");
        !shown.chars().any(|c| c != '\t' && c != '\n' && c != '\r' && super::escape_controls(c.encode_utf8(&mut [0; 4])).len() > c.len_utf8())
    }
}

impl fmt::Debug for MietteView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.d.message)
    }
}

impl fmt::Display for MietteView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.d.message)
    }
}

impl std::error::Error for MietteView<'_> {}

impl miette::Diagnostic for MietteView<'_> {
    fn code<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        Some(Box::new(format!("{} ({})", self.d.rule.code, self.d.rule.name)))
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.d.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
            Severity::Info => miette::Severity::Advice,
        })
    }

    fn help<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        self.d.help.as_ref().map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.has_snippet().then_some(&self.source as &dyn SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        if !self.has_snippet() {
            return None;
        }
        let d = self.d;
        let primary = LabeledSpan::new_primary_with_span(d.label.clone(), d.span.start..d.span.end);
        // Labels in another file (a stage file, a Hydra defaults file) cannot share
        // this snippet; their message is part of the diagnostic's text instead.
        let secondary =
            d.labels.iter().filter(|l| Arc::ptr_eq(&l.file, &d.file)).map(|l| LabeledSpan::new_with_span(Some(l.message.clone()), l.span.start..l.span.end));
        Some(Box::new(std::iter::once(primary).chain(secondary)))
    }
}
