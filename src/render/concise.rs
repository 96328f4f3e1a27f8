use crate::diagnostic::Diagnostic;

/// `file:line:col: CODE message`, one line per diagnostic.
pub fn render(diagnostics: &[Diagnostic]) -> String {
    let mut out = String::new();
    for d in diagnostics {
        let (line, column) = d.line_col();
        out.push_str(&format!("{}:{line}:{column}: {} {}\n", d.file.display(), d.rule.code, d.message));
    }
    out
}
