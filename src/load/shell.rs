//! Launch scripts read statically: nothing is ever executed and the process
//! environment is never read.
//!
//! The reader follows what bash would do with the text, as far as the text
//! alone says it:
//!
//! - **Words.** Commands end at a newline, `;`, `|`, `&`, `&&`, `||`; lines
//!   joined at `\` continuations; single and double quotes, backslashes,
//!   `$(…)`, `$((…))`, `${…}` and backticks are kept inside one word; `#`
//!   comments; heredoc bodies (`<<EOF`, `<<-EOF`, `<<'EOF'`) are not commands.
//! - **Variables.** `NAME=value`, `export`, `local`, `declare`/`typeset`/`readonly`
//!   (options skipped), arrays `NAME=(a b c)`, `unset`. A prefix assignment
//!   (`NAME=v cmd`) is that command's environment only, as in bash.
//! - **Expansions.** `$V`, `${V}`, `${V:-d}`/`${V-d}` (the default when `V` is
//!   not set), `${V:=d}`/`${V=d}` (also assigns), `${V:+x}`, `${#V}`,
//!   `${A[@]}`/`${A[*]}`/`${A[N]}`, `$((…))` integer arithmetic (checked), and the
//!   SLURM variables an `#SBATCH` header decides. Unquoted expansions are split
//!   into words (`torchrun $DISTRIBUTED_ARGS train.py`); quoted ones are not.
//! - **Unknown.** A value known only at run time — a variable the script never
//!   sets, `$1`, `$@`, `$(…)`, backticks, `${V%pattern}` — is unknown, never a
//!   default: a word holding one has no text.
//!
//! Each word keeps its byte span; a word that is exactly one variable points at
//! the variable's assignment (where a fix edits it, and the line `show` names).

use super::LoadError;
use super::scalar::type_plain_scalar;
use super::tree::{Entry, Node, ScalarStyle, Value};
use crate::source::Span;
use std::collections::HashMap;

/// A word as written: its text with quotes and expansions kept, its span, and
/// the text with quotes removed (what an assignment to the environment says).
#[derive(Clone, Debug)]
struct RawWord {
    raw: String,
    span: Span,
    unquoted: String,
}

#[derive(Clone, Debug, Default)]
struct RawCommand {
    words: Vec<RawWord>,
    /// The heredoc the command reads (`read -r -d '' ARGS <<EOF`): its body's span and
    /// whether the delimiter was quoted (then nothing in the body is expanded).
    heredoc: Option<(Span, bool)>,
}

/// A heredoc body: text a command reads on its standard input (`cat > x.yaml <<EOF`).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Heredoc {
    /// The body's span (the lines between the operator's line and the delimiter).
    body: Span,
    /// The file the command writes it to (`cat > F`, `cat >F`, `tee F`), as written.
    target: Option<String>,
}

/// A word after expansion.
#[derive(Clone, Debug)]
struct Word {
    /// `None`: known only at run time.
    text: Option<String>,
    span: Span,
    quoted: Option<ScalarStyle>,
    /// For a word that is exactly one variable: where the variable's value is written.
    from_variable: Option<(Span, Option<ScalarStyle>)>,
}

/// Where a value is written in the script, and how it is quoted there.
type Place = (Span, Option<ScalarStyle>);

/// A variable's value: its fields (one for a string, the elements of an array),
/// or `None` when only the running script knows it.
#[derive(Clone, Debug)]
struct Var {
    fields: Option<Vec<String>>,
    /// Where the value is written (the assignment's right-hand side).
    span: Span,
    quoted: Option<ScalarStyle>,
    /// The byte where the value's text starts in the script, when the value is
    /// that text verbatim (a field's span is then exact).
    at: Option<usize>,
    /// How its value was read (`${GPUS:-4} read as 4 …`).
    notes: Vec<String>,
    /// `export`ed: the programs the script runs see it.
    exported: bool,
    /// For an array, where each element's value is written, one per field (`None`: an element
    /// that expanded to several fields or to a value written elsewhere in part), so that a flag's
    /// value taken from `${ARGS[@]}` points at the element, not at the expansion.
    elements: Option<Vec<Option<Place>>>,
}

/// One command after expansion: its environment prefix and its words.
#[derive(Clone, Debug)]
struct Command {
    /// 1-based line of the command's first word.
    line: usize,
    /// `NAME=value` prefixes and `export NAME=value`: the whole assignment's span, and
    /// `NAME=value` as written without quotes (what the ENV rules read).
    environment: Vec<(Span, String)>,
    /// `export`ed (or prefix) assignments, to report as the process environment.
    exported: bool,
    words: Vec<Word>,
    /// How unset-variable defaults were read in this command.
    notes: Vec<String>,
    /// The launcher variables (`LAUNCHER_ENV`) the command's process sees: set as its
    /// prefix or exported before it; `Some(None)` when known only at run time.
    launcher_env: Vec<(String, Option<String>)>,
}

/// A script read: its commands and heredocs.
#[derive(Clone, Debug, Default)]
struct Script {
    commands: Vec<Command>,
    heredocs: Vec<Heredoc>,
    sb: Sbatch,
    /// Files the script writes from heredocs (`cat <<EOT > $DS_CONFIG`), as they are written.
    written: Vec<Written>,
}

/// A file a script writes from a heredoc (`cat <<EOT > $DS_CONFIG`, `cat > ds.json <<EOF`,
/// `tee F <<EOF`): its name as expanded, the text the file gets (the body expanded as bash
/// expands an unquoted heredoc; verbatim for a quoted delimiter), and where each piece of that
/// text is written in the script.
#[derive(Clone, Debug)]
pub struct Written {
    pub target: String,
    /// 1-based line of the command that writes it.
    pub line: usize,
    pub text: String,
    pieces: Vec<Piece>,
}

/// A run of `Written::text` and the script bytes it comes from: the same bytes (literal), or the
/// `$VAR` it expands (an expansion: any offset inside maps to the whole reference).
#[derive(Clone, Debug)]
struct Piece {
    text: Span,
    script: Span,
    literal: bool,
}

impl Written {
    /// The script offset of an offset in `text` (`end`: the end of a span).
    fn script_offset(&self, at: usize, end: bool) -> usize {
        let piece = self.pieces.iter().find(|p| if end { p.text.start < at && at <= p.text.end } else { p.text.start <= at && at < p.text.end });
        match piece {
            Some(p) if p.literal => p.script.start + (at - p.text.start),
            Some(p) => {
                if end {
                    p.script.end
                } else {
                    p.script.start
                }
            }
            None => self.pieces.last().map_or(0, |p| p.script.end),
        }
    }

    /// The file parsed as `format`, its spans moved into the script: a finding on a value points
    /// at the script's bytes that wrote it (`$GLOBAL_BATCH` in the heredoc).
    pub fn parse(&self, format: crate::load::Format) -> Option<Node> {
        let (mut root, _) = crate::load::parse_text(&self.text, format).ok()?;
        self.remap(&mut root, 0);
        Some(root)
    }

    fn remap(&self, node: &mut Node, depth: usize) {
        if depth > MAX_WORD_NESTING {
            return;
        }
        node.span = self.script_offset(node.span.start, false)..self.script_offset(node.span.end, true);
        match &mut node.value {
            Value::Map(entries) => {
                for entry in entries.iter_mut() {
                    entry.key_span = self.script_offset(entry.key_span.start, false)..self.script_offset(entry.key_span.end, true);
                    self.remap(&mut entry.value, depth + 1);
                }
            }
            Value::Seq(items) => {
                for item in items.iter_mut() {
                    self.remap(item, depth + 1);
                }
            }
            _ => {}
        }
    }
}

/// The files a script writes from heredocs.
pub(crate) fn written(text: &str) -> Vec<Written> {
    read(text).map(|s| s.written).unwrap_or_default()
}

/// Bounds on what one script may make the reader do.
const MAX_WORDS: usize = 1 << 20;
const MAX_VALUE_BYTES: usize = 64 * 1024;
const MAX_NESTING: usize = 4;

#[cfg(test)]
fn line_of(text: &str, at: usize) -> usize {
    text.as_bytes()[..at.min(text.len())].iter().filter(|b| **b == b'\n').count() + 1
}

/// Splits the script into commands of raw words, skipping comments and heredoc bodies.
fn tokenize(text: &str, offset: usize) -> Result<(Vec<RawCommand>, Vec<Heredoc>), LoadError> {
    let bytes = text.as_bytes();
    let mut out: Vec<RawCommand> = Vec::new();
    let mut heredocs = Vec::new();
    let mut current = RawCommand::default();
    // Heredocs opened on the current line: (delimiter, strip tabs, delimiter quoted).
    let mut pending: Vec<(String, bool, bool)> = Vec::new();
    let mut count = 0usize;
    let mut i = 0;
    let end_command = |current: &mut RawCommand, out: &mut Vec<RawCommand>| {
        if !current.words.is_empty() {
            out.push(std::mem::take(current));
        }
    };
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if bytes.get(i + 1) == Some(&b'\n') => i += 2,
            b'\\' if bytes.get(i + 1) == Some(&b'\r') && bytes.get(i + 2) == Some(&b'\n') => i += 3,
            b' ' | b'\t' | b'\r' => i += 1,
            b'\n' => {
                // A heredoc's target: the redirection's word in the command that opened it.
                let target = redirect_target(&current);
                let opened = !current.words.is_empty() && !pending.is_empty();
                end_command(&mut current, &mut out);
                i += 1;
                for (n, (delimiter, strip, quoted)) in std::mem::take(&mut pending).into_iter().enumerate() {
                    let start = i;
                    let mut end = bytes.len();
                    let mut after = bytes.len();
                    while i < bytes.len() {
                        let line_end = text[i..].find('\n').map_or(bytes.len(), |n| i + n);
                        let line = text[i..line_end].trim_end_matches('\r');
                        let line = if strip { line.trim_start_matches('\t') } else { line };
                        if line == delimiter {
                            end = i;
                            after = (line_end + 1).min(bytes.len());
                            break;
                        }
                        i = line_end + 1;
                    }
                    let body = offset + start..offset + end.min(bytes.len());
                    if opened
                        && n == 0
                        && let Some(command) = out.last_mut()
                    {
                        command.heredoc = Some((body.clone(), quoted));
                    }
                    heredocs.push(Heredoc { body, target: target.clone() });
                    i = after;
                }
            }
            b';' | b'|' | b'&' | b'(' | b')' => {
                end_command(&mut current, &mut out);
                i += 1;
            }
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            _ => {
                let start = i;
                let mut unquoted = String::new();
                while i < bytes.len() {
                    let c = bytes[i];
                    let redirect = |s: &String| s.ends_with('>') || s.ends_with('<');
                    if matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b';' | b'|' | b')') || c == b'&' && !redirect(&unquoted) {
                        break;
                    }
                    if c == b'(' {
                        if unquoted.ends_with('=') || unquoted.ends_with("+=") {
                            // An array assignment `NAME=(a b c)`: one word up to the matching `)`.
                            let close = balanced(text, i, b'(', b')').ok_or_else(|| syntax("unterminated array", offset + i))?;
                            unquoted.push_str(&text[i..close]);
                            i = close;
                            continue;
                        }
                        break;
                    }
                    match c {
                        b'\'' => {
                            let close = text[i + 1..].find('\'').ok_or_else(|| syntax("unterminated single quote", offset + i))?;
                            unquoted.push_str(&text[i + 1..i + 1 + close]);
                            i += close + 2;
                        }
                        b'"' => {
                            let close = double_quote_end(text, i).ok_or_else(|| syntax("unterminated double quote", offset + i))?;
                            unquoted.push_str(&unescape_double(&text[i + 1..close - 1]));
                            i = close;
                        }
                        b'`' => {
                            let close = text[i + 1..].find('`').ok_or_else(|| syntax("unterminated backquote", offset + i))?;
                            unquoted.push_str(&text[i..i + close + 2]);
                            i += close + 2;
                        }
                        b'$' if matches!(bytes.get(i + 1), Some(b'(' | b'{')) => {
                            let (open, close_byte) = if bytes[i + 1] == b'(' { (b'(', b')') } else { (b'{', b'}') };
                            let close = balanced(text, i + 1, open, close_byte).ok_or_else(|| syntax("unterminated expansion", offset + i))?;
                            unquoted.push_str(&text[i..close]);
                            i = close;
                        }
                        b'\\' if matches!(bytes.get(i + 1), Some(b'\n')) => break,
                        b'\\' if i + 1 < bytes.len() => {
                            let ch = text[i + 1..].chars().next().unwrap_or(' ');
                            unquoted.push(ch);
                            i += 1 + ch.len_utf8();
                        }
                        _ => {
                            let ch = text[i..].chars().next().unwrap_or(' ');
                            unquoted.push(ch);
                            i += ch.len_utf8();
                        }
                    }
                }
                if i == start {
                    // A lone `(` (a subshell) or `&` after a redirection: a separator.
                    end_command(&mut current, &mut out);
                    i += 1;
                    continue;
                }
                let raw = text[start..i].to_owned();
                // `<<EOF`, `<<-EOF`, `<< 'EOF'`: the body after this line is not a command.
                if let Some(rest) = raw.strip_prefix("<<").filter(|r| !r.starts_with('<')) {
                    let (strip, rest) = match rest.strip_prefix('-') {
                        Some(r) => (true, r),
                        None => (false, rest),
                    };
                    let delimiter = if rest.is_empty() {
                        // The delimiter is the next word.
                        let mut j = i;
                        while j < bytes.len() && matches!(bytes[j], b' ' | b'\t') {
                            j += 1;
                        }
                        let d_start = j;
                        while j < bytes.len() && !matches!(bytes[j], b' ' | b'\t' | b'\n' | b'\r' | b';' | b'|' | b'&' | b')') {
                            j += 1;
                        }
                        i = j;
                        text[d_start..j].to_owned()
                    } else {
                        rest.to_owned()
                    };
                    let quoted = delimiter.contains(['\'', '"', '\\']);
                    let delimiter = delimiter.trim_matches(|c| c == '\'' || c == '"').replace('\\', "");
                    if !delimiter.is_empty() {
                        pending.push((delimiter, strip, quoted));
                    }
                    continue;
                }
                count += 1;
                if count > MAX_WORDS {
                    return Err(syntax("more words than a launch script has", offset + start));
                }
                current.words.push(RawWord { raw, span: offset + start..offset + i, unquoted });
            }
        }
    }
    end_command(&mut current, &mut out);
    Ok((out, heredocs))
}

/// The file a command redirects its output to (`cat > F <<EOF`, `tee F`).
fn redirect_target(command: &RawCommand) -> Option<String> {
    let words = &command.words;
    for (i, word) in words.iter().enumerate() {
        let w = word.unquoted.as_str();
        if let Some(target) = w.strip_prefix(">>").or_else(|| w.strip_prefix('>')) {
            return if target.is_empty() { words.get(i + 1).map(|n| n.unquoted.clone()) } else { Some(target.to_owned()) };
        }
    }
    if words.first().is_some_and(|w| w.unquoted == "tee") {
        return words.iter().skip(1).find(|w| !w.unquoted.starts_with('-')).map(|w| w.unquoted.clone());
    }
    None
}

fn syntax(message: &str, at: usize) -> LoadError {
    LoadError::Syntax { message: message.into(), span: at..at + 1 }
}

/// How deep `$(` and quotes may nest inside one word (deeper is a syntax error, not a stack overflow).
const MAX_WORD_NESTING: usize = 64;

/// The byte after the `close` matching the `open` at `at` (quotes inside skipped).
fn balanced(text: &str, at: usize, open: u8, close: u8) -> Option<usize> {
    balanced_at(text, at, open, close, 0)
}

fn balanced_at(text: &str, at: usize, open: u8, close: u8, nesting: usize) -> Option<usize> {
    if nesting > MAX_WORD_NESTING {
        return None;
    }
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut i = at;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1,
            b'\'' if open != b'{' => i += text[i + 1..].find('\'')? + 1,
            b'"' => i = double_quote_end_at(text, i, nesting + 1)? - 1,
            c if c == open => depth += 1,
            c if c == close => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The byte after the `"` closing the one at `at`; `$(…)` inside may hold quotes.
fn double_quote_end(text: &str, at: usize) -> Option<usize> {
    double_quote_end_at(text, at, 0)
}

fn double_quote_end_at(text: &str, at: usize, nesting: usize) -> Option<usize> {
    if nesting > MAX_WORD_NESTING {
        return None;
    }
    let bytes = text.as_bytes();
    let mut i = at + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            b'$' if bytes.get(i + 1) == Some(&b'(') => i = balanced_at(text, i + 1, b'(', b')', nesting + 1)?,
            _ => i += 1,
        }
    }
    None
}

/// The text of a double-quoted string: `\"`, `\\`, `\$`, `` \` `` lose their backslash, and a
/// backslash-newline is removed (bash's manual, "Double Quotes": the backslash keeps its meaning
/// before `$`, `` ` ``, `"`, `\` or newline; Megatron-DeepSpeed's `megatron_options=" \` lines).
fn unescape_double(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\'
            && let Some(&next) = chars.peek()
            && matches!(next, '"' | '\\' | '$' | '`' | '\n')
        {
            if next != '\n' {
                out.push(next);
            }
            chars.next();
            continue;
        }
        out.push(c);
    }
    out
}

/// Stands for a part of a word known only at run time (`--nnodes=$UNSET`); a loaded text
/// never holds a NUL (such a file is binary), so it cannot be written in a script.
const UNKNOWN: char = '\0';

/// One piece of a word being expanded.
#[derive(Default)]
struct Fields {
    done: Vec<Option<String>>,
    current: String,
    unknown: bool,
    started: bool,
    /// Keep a field with unknown parts as text (an assignment's value: the parts known stay
    /// usable where the variable is split into words later).
    keep_unknown: bool,
}

impl Fields {
    fn push_str(&mut self, s: &str) {
        self.started = true;
        self.unknown |= s.contains(UNKNOWN);
        self.current.push_str(s);
    }

    fn unknown(&mut self) {
        self.started = true;
        self.unknown = true;
        self.current.push(UNKNOWN);
    }

    fn split(&mut self) {
        if self.started {
            let field = std::mem::take(&mut self.current);
            // `--flag=$UNSET` keeps its flag: the value is unknown, not the flag. A Python program
            // under a folder known only at run time (`${dir}/../../pretrain_gpt.py`, `dir=`pwd``
            // in Megatron-DeepSpeed's examples) keeps its name: what the program is shows in it.
            let program =
                field.rsplit(UNKNOWN).next().is_some_and(|tail| tail.starts_with('/') && tail.ends_with(".py") && !tail.contains(char::is_whitespace));
            let keep = !self.unknown
                || self.keep_unknown
                || program
                || field.starts_with("--") && field.split_once('=').is_some_and(|(name, _)| !name.contains(UNKNOWN));
            self.done.push(keep.then_some(field));
        }
        self.unknown = false;
        self.started = false;
    }
}

/// What a `$…` expansion gave.
enum Expanded {
    /// Fields (several only for an array's `[@]`), and the variable it read.
    Known(Vec<String>, Option<String>),
    Unknown,
}

struct Reader<'a> {
    vars: HashMap<String, Var>,
    sb: &'a Sbatch,
    /// Byte offsets of the script's newlines (a command's line by binary search).
    newlines: Vec<usize>,
    /// How deep expansions nest now (`${A:-${B:-…}}`); past `MAX_WORD_NESTING` a value is unknown.
    depth: usize,
}

impl Reader<'_> {
    /// Where an array element's value is written: the element itself when its text is the value
    /// (`4`), inside its quotes when quoted verbatim (`"0:16 2.4B:320"`), the variable's
    /// assignment when the element is exactly one variable (`$GPUS_PER_NODE`); `None` otherwise.
    fn element_span(&self, raw: &str, field: &str, at: Span) -> Option<Place> {
        if raw == field {
            return Some((at, None));
        }
        for (quote, style) in [('"', ScalarStyle::DoubleQuoted), ('\'', ScalarStyle::SingleQuoted)] {
            if raw.len() >= 2 && raw.starts_with(quote) && raw.ends_with(quote) && &raw[1..raw.len() - 1] == field {
                return Some((at.start + 1..at.end - 1, Some(style)));
            }
        }
        let name = raw.strip_prefix("${").and_then(|r| r.strip_suffix('}')).or_else(|| raw.strip_prefix('$'))?;
        let var = self.vars.get(name).filter(|v| v.span.end > v.span.start)?;
        (var.fields.as_ref().is_some_and(|f| f.len() == 1 && f[0] == field)).then(|| (var.span.clone(), var.quoted))
    }

    /// For a word that is exactly `${A[@]}` (or `${A[*]}`, quoted or not), where each of its
    /// fields is written in A's assignment: an element split into several fields (unquoted, at
    /// whitespace) has no place of its own. `None` when the fields do not line up with A's elements.
    fn array_fields(&self, bare: &str, quoted: bool, fields: &[Option<String>]) -> Option<Vec<Option<Place>>> {
        let name = bare.strip_prefix("${").and_then(|r| r.strip_suffix("[@]}").or_else(|| r.strip_suffix("[*]}")))?;
        let var = self.vars.get(name)?;
        let (values, spans) = (var.fields.as_ref()?, var.elements.as_ref()?);
        let mut out = Vec::new();
        for (value, span) in values.iter().zip(spans) {
            let pieces = if quoted { 1 } else { value.split_whitespace().count() };
            if pieces == 1 && (quoted || value.trim() == value) {
                out.push(span.clone());
            } else {
                out.extend(std::iter::repeat_n(None, pieces));
            }
        }
        (out.len() == fields.len()).then_some(out)
    }

    fn lookup(&self, name: &str, notes: &mut Vec<String>) -> Option<Option<Vec<String>>> {
        if let Some(var) = self.vars.get(name) {
            for note in &var.notes {
                if !notes.contains(note) {
                    notes.push(note.clone());
                }
            }
            return Some(var.fields.clone());
        }
        // SLURM sets these from the job's allocation (sbatch's "OUTPUT ENVIRONMENT VARIABLES").
        let sb = self.sb;
        let slurm = match name {
            "SLURM_NNODES" | "SLURM_JOB_NUM_NODES" => sb.nodes.as_ref(),
            "SLURM_GPUS_ON_NODE" | "SLURM_GPUS_PER_NODE" => sb.gpus_per_node.as_ref(),
            "SLURM_NTASKS_PER_NODE" => sb.tasks_per_node.as_ref(),
            "SLURM_NTASKS" | "SLURM_NPROCS" => sb.ntasks.as_ref(),
            _ => None,
        };
        slurm.map(|(v, written)| {
            notes.push(format!("${name} = {v} from #SBATCH {written}"));
            Some(vec![v.to_string()])
        })
    }

    /// `${…}` (without the braces) or a bare name.
    fn parameter(&mut self, body: &str, notes: &mut Vec<String>) -> Expanded {
        let name_end = body.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(body.len());
        if let Some(name) = body.strip_prefix('#') {
            // `${#V}`: the length.
            return match self.lookup(name, notes).flatten() {
                Some(fields) => Expanded::Known(vec![fields.join(" ").chars().count().to_string()], None),
                None => Expanded::Unknown,
            };
        }
        let (name, rest) = body.split_at(name_end);
        if name.is_empty() {
            return Expanded::Unknown;
        }
        let positional = name.starts_with(|c: char| c.is_ascii_digit());
        let value = if positional { None } else { self.lookup(name, notes) };
        let element = |fields: Vec<String>, index: &str| -> Expanded {
            match index {
                "@" | "*" => Expanded::Known(fields, Some(name.to_owned())),
                n => match n.parse::<usize>() {
                    Ok(n) => fields.get(n).map_or(Expanded::Known(Vec::new(), None), |f| Expanded::Known(vec![f.clone()], None)),
                    Err(_) => Expanded::Unknown,
                },
            }
        };
        if let Some(index) = rest.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
            return match value {
                Some(Some(fields)) => element(fields, index),
                _ => Expanded::Unknown,
            };
        }
        let joined = |fields: Vec<String>| fields.into_iter().next().unwrap_or_default();
        let (op, word) = if let Some(w) = rest.strip_prefix(":-") {
            (":-", w)
        } else if let Some(w) = rest.strip_prefix(":=") {
            (":=", w)
        } else if let Some(w) = rest.strip_prefix(":+") {
            (":+", w)
        } else if let Some(w) = rest.strip_prefix('-') {
            ("-", w)
        } else if let Some(w) = rest.strip_prefix('=') {
            ("=", w)
        } else if let Some(w) = rest.strip_prefix('+') {
            ("+", w)
        } else if rest.is_empty() {
            ("", "")
        } else {
            // `%`, `#`, `/`, `^`, `,`, `:offset`: a pattern operation, not followed here.
            return Expanded::Unknown;
        };
        let known = match &value {
            Some(Some(fields)) => Some(fields.clone()),
            _ => None,
        };
        let empty = known.as_ref().is_some_and(|f| f.iter().all(String::is_empty));
        let unset = value.is_none();
        match op {
            "" => match known {
                Some(fields) => Expanded::Known(vec![joined(fields)], Some(name.to_owned())),
                None => Expanded::Unknown,
            },
            ":-" | "-" | ":=" | "=" => {
                let use_default = unset || (op.starts_with(':') && empty);
                if !use_default {
                    return match known {
                        Some(fields) => Expanded::Known(vec![joined(fields)], Some(name.to_owned())),
                        None => Expanded::Unknown,
                    };
                }
                let default = self.expand_string(word, notes);
                if default.contains(UNKNOWN) {
                    return Expanded::Unknown;
                }
                let what = if positional { "a positional parameter, unset when linting" } else { "not set by the script; the environment is never read" };
                notes.push(format!("${{{name}{op}{word}}} read as {default} (${name} is {what})"));
                if op.ends_with('=') && !positional {
                    self.vars.insert(
                        name.to_owned(),
                        Var { fields: Some(vec![default.clone()]), span: 0..0, quoted: None, at: None, notes: Vec::new(), exported: false, elements: None },
                    );
                }
                Expanded::Known(vec![default], None)
            }
            _ => {
                // `${V:+x}`: x when V is set (and not empty).
                if unset {
                    return if positional { Expanded::Unknown } else { Expanded::Known(vec![String::new()], None) };
                }
                if known.is_none() {
                    return Expanded::Unknown;
                }
                if op == ":+" && empty {
                    return Expanded::Known(vec![String::new()], None);
                }
                Expanded::Known(vec![self.expand_string(word, notes)], None)
            }
        }
    }

    /// A string expanded without word splitting (an assignment's value, a default). Parts
    /// known only at run time are `UNKNOWN` in the text (`--master_port \0`): where the value
    /// is later split into words, only those words are unknown.
    fn expand_string(&mut self, raw: &str, notes: &mut Vec<String>) -> String {
        let fields = self.expand(raw, false, notes);
        fields.into_iter().map(|f| f.unwrap_or_else(|| UNKNOWN.to_string())).collect::<Vec<_>>().join(" ")
    }

    /// Expands a raw word into fields (`None`: known only at run time).
    /// `split`: unquoted expansions are split at whitespace (a command's words).
    fn expand(&mut self, raw: &str, split: bool, notes: &mut Vec<String>) -> Vec<Option<String>> {
        if self.depth > MAX_WORD_NESTING {
            return vec![None];
        }
        self.depth += 1;
        // Brace expansion comes first, on command words only (not on assignments): bash's
        // `config_{grok,anthropic}.yaml` is two words.
        let out = match brace_expand(raw).filter(|_| split) {
            Some(words) => words.iter().flat_map(|w| self.expand_inner(w, split, notes)).collect(),
            None => self.expand_inner(raw, split, notes),
        };
        self.depth -= 1;
        out
    }

    fn expand_inner(&mut self, raw: &str, split: bool, notes: &mut Vec<String>) -> Vec<Option<String>> {
        let bytes = raw.as_bytes();
        let mut fields = Fields { keep_unknown: !split, ..Fields::default() };
        let mut i = 0;
        let mut quoted_any = false;
        let mut in_double = false;
        while i < bytes.len() {
            let c = bytes[i];
            match c {
                b'\'' if !in_double => {
                    quoted_any = true;
                    let close = raw[i + 1..].find('\'').map_or(bytes.len(), |n| i + 1 + n);
                    fields.push_str(&raw[i + 1..close]);
                    i = close + 1;
                }
                b'"' => {
                    quoted_any = true;
                    in_double = !in_double;
                    fields.push_str("");
                    i += 1;
                }
                b'\\' if i + 1 < bytes.len() => {
                    let ch = raw[i + 1..].chars().next().unwrap_or(' ');
                    if in_double && !matches!(ch, '"' | '\\' | '$' | '`' | '\n') {
                        fields.push_str("\\");
                    }
                    // A backslash-newline is a line continuation, quoted or not: both go.
                    if ch != '\n' {
                        fields.push_str(&ch.to_string());
                    }
                    i += 1 + ch.len_utf8();
                }
                b'`' => {
                    let close = raw[i + 1..].find('`').map_or(bytes.len(), |n| i + 2 + n);
                    fields.unknown();
                    i = close;
                }
                b'$' => {
                    let (expanded, len) = self.dollar(&raw[i..], notes);
                    match expanded {
                        Expanded::Unknown => fields.unknown(),
                        Expanded::Known(values, array) => {
                            let many = array.is_some() && values.len() != 1 && raw[i..].contains("[@]");
                            if in_double && many {
                                // `"${A[@]}"`: each element its own word.
                                for (n, value) in values.iter().enumerate() {
                                    if n > 0 {
                                        fields.split();
                                    }
                                    fields.push_str(value);
                                }
                            } else if in_double || !split {
                                fields.push_str(&values.join(" "));
                            } else {
                                // Unquoted: split at whitespace (IFS' default).
                                let joined = values.join(" ");
                                let mut first = true;
                                let starts_with_space = joined.starts_with(char::is_whitespace);
                                if starts_with_space {
                                    fields.split();
                                }
                                for piece in joined.split_whitespace() {
                                    if !first {
                                        fields.split();
                                    }
                                    fields.push_str(piece);
                                    first = false;
                                }
                                if joined.ends_with(char::is_whitespace) && !joined.trim().is_empty() {
                                    fields.split();
                                }
                            }
                        }
                    }
                    i += len.max(1);
                }
                _ => {
                    let ch = raw[i..].chars().next().unwrap_or(' ');
                    fields.push_str(&ch.to_string());
                    i += ch.len_utf8();
                }
            }
        }
        if quoted_any && !fields.started {
            fields.started = true;
        }
        fields.split();
        for field in &mut fields.done {
            if field.as_ref().is_some_and(|f| f.len() > MAX_VALUE_BYTES) {
                *field = None;
            }
        }
        fields.done
    }

    /// A `$` expansion at the start of `s`: what it gives and how many bytes it spans.
    fn dollar(&mut self, s: &str, notes: &mut Vec<String>) -> (Expanded, usize) {
        let bytes = s.as_bytes();
        match bytes.get(1) {
            Some(b'(') if bytes.get(2) == Some(&b'(') => {
                let Some(close) = balanced(s, 1, b'(', b')') else { return (Expanded::Unknown, s.len()) };
                let body = &s[3..close.saturating_sub(2).max(3)];
                (self.arithmetic(body, notes).map_or(Expanded::Unknown, |n| Expanded::Known(vec![n.to_string()], None)), close)
            }
            // `$(…)`: a command's output, never run.
            Some(b'(') => (Expanded::Unknown, balanced(s, 1, b'(', b')').unwrap_or(s.len())),
            Some(b'{') => {
                let close = balanced(s, 1, b'{', b'}').unwrap_or(s.len());
                let body = &s[2..close.saturating_sub(1).max(2)];
                (self.parameter(body, notes), close)
            }
            Some(c) if c.is_ascii_digit() || matches!(c, b'@' | b'*' | b'#' | b'?' | b'$' | b'!' | b'-') => (Expanded::Unknown, 2),
            Some(c) if c.is_ascii_alphabetic() || *c == b'_' => {
                let end = s[1..].find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).map_or(s.len(), |n| n + 1);
                (self.parameter(&s[1..end], notes), end)
            }
            // A lone `$` is itself.
            _ => (Expanded::Known(vec!["$".into()], None), 1),
        }
    }

    /// `$((…))`: integers with `+ - * / %`, parentheses and variables (bash's
    /// arithmetic, checked: an overflow or a division by zero is unknown).
    fn arithmetic(&mut self, body: &str, notes: &mut Vec<String>) -> Option<i64> {
        if self.depth > MAX_WORD_NESTING {
            return None;
        }
        // Substitute `$V`, `${V}` and bare names, then evaluate.
        let mut expr = String::new();
        let bytes = body.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let c = bytes[i];
            if c == b'$' {
                let (value, len) = self.dollar(&body[i..], notes);
                match value {
                    Expanded::Known(v, _) => expr.push_str(&format!("({})", v.join(" "))),
                    Expanded::Unknown => return None,
                }
                i += len.max(1);
            } else if c.is_ascii_alphabetic() || c == b'_' {
                let end = body[i..].find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).map_or(body.len(), |n| n + i);
                let value = self.lookup(&body[i..end], notes).flatten()?.join(" ");
                // A variable inside arithmetic is itself evaluated (bash), once.
                let value = if value.trim().is_empty() { "0".to_owned() } else { value };
                expr.push_str(&format!("({value})"));
                i = end;
            } else {
                expr.push(c as char);
                i += 1;
            }
        }
        let tokens: Vec<char> = expr.chars().filter(|c| !c.is_whitespace()).collect();
        let mut at = 0;
        let value = arith_sum(&tokens, &mut at, 0)?;
        (at == tokens.len()).then_some(value)
    }
}

/// `read [-r] [-d ''] NAME <<EOF … EOF`: the heredoc's text becomes NAME's value (OpenRLHF's
/// example scripts keep their training flags this way, then run `deepspeed --module
/// $training_commands`). As bash reads it: an unquoted delimiter expands `$…` in the body and
/// drops `\<newline>`; `-d ''` reads the whole body, otherwise its first line; leading and trailing
/// whitespace is trimmed (IFS). Only the first NAME is set; other options' arguments are skipped.
fn read_heredoc(reader: &mut Reader, args: &[RawWord], body: Span, quoted: bool, chunk: &str, offset: usize) {
    let mut whole = false;
    let mut names = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let word = args[i].unquoted.as_str();
        match word {
            "-d" => {
                whole = args.get(i + 1).is_some_and(|d| d.unquoted.is_empty());
                i += 1;
            }
            "-p" | "-n" | "-N" | "-t" | "-u" | "-i" => i += 1,
            w if w.starts_with('-') => {}
            w => names.push(w.to_owned()),
        }
        i += 1;
    }
    let Some(name) = names.first() else { return };
    let Some(text) = chunk.get(body.start.saturating_sub(offset)..body.end.saturating_sub(offset)) else { return };
    let text = if quoted { text.to_owned() } else { text.replace("\\\r\n", "").replace("\\\n", "") };
    let text = if whole { text.as_str() } else { text.lines().next().unwrap_or("") };
    let mut notes = Vec::new();
    let value = if quoted {
        Some(text.trim().to_owned())
    } else {
        // Quotes in a heredoc are literal characters: escaped so that the expansion keeps them.
        let escaped = text.replace('\'', "\\'").replace('"', "\\\"");
        let expanded = reader.expand_string(&escaped, &mut notes);
        Some(expanded.trim().to_owned())
    };
    let var = Var { fields: value.map(|v| vec![v]), span: body, quoted: None, at: None, notes, exported: false, elements: None };
    reader.vars.insert(name.clone(), var);
}

/// Most heredoc-written files one script records.
const MAX_WRITTEN: usize = 64;

/// An unquoted heredoc's body as bash expands it: `$V`, `${…}`, `$((…))` (known values; a
/// value known only at run time is `UNKNOWN`), `$(…)` and backticks unknown, `\$`, `` \` `` and
/// `\\` escapes, `\<newline>` removed; quotes are literal. Each piece records the script bytes
/// it comes from (`at`: the body's offset in the script).
fn expand_heredoc(reader: &mut Reader, body: &str, at: usize) -> (String, Vec<Piece>) {
    let mut text = String::with_capacity(body.len());
    let mut pieces: Vec<Piece> = Vec::new();
    let literal = |text: &mut String, pieces: &mut Vec<Piece>, s: &str, from: usize| {
        let start = text.len();
        text.push_str(s);
        match pieces.last_mut() {
            Some(last) if last.literal && last.text.end == start && last.script.end == from => {
                last.text.end = text.len();
                last.script.end = from + s.len();
            }
            _ => pieces.push(Piece { text: start..text.len(), script: from..from + s.len(), literal: true }),
        }
    };
    let bytes = body.as_bytes();
    let mut i = 0;
    let mut notes = Vec::new();
    while i < bytes.len() && text.len() <= MAX_VALUE_BYTES * 4 {
        match bytes[i] {
            b'\\' if matches!(bytes.get(i + 1), Some(b'\n')) => i += 2,
            b'\\' if matches!(bytes.get(i + 1), Some(b'$' | b'`' | b'\\')) => {
                literal(&mut text, &mut pieces, &body[i + 1..i + 2], at + i + 1);
                i += 2;
            }
            b'$' => {
                let (expanded, len) = reader.dollar(&body[i..], &mut notes);
                let len = len.max(1).min(body.len() - i);
                let value = match expanded {
                    Expanded::Known(values, _) => values.join(" "),
                    Expanded::Unknown => UNKNOWN.to_string(),
                };
                let start = text.len();
                text.push_str(&value);
                pieces.push(Piece { text: start..text.len(), script: at + i..at + i + len, literal: false });
                i += len;
            }
            b'`' => {
                let close = body[i + 1..].find('`').map_or(body.len(), |n| i + 2 + n);
                let start = text.len();
                text.push(UNKNOWN);
                pieces.push(Piece { text: start..text.len(), script: at + i..at + close, literal: false });
                i = close;
            }
            _ => {
                let end = body[i..].find(['\\', '$', '`']).map_or(body.len(), |n| i + n.max(1));
                let end = if body.is_char_boundary(end) { end } else { body.len() };
                literal(&mut text, &mut pieces, &body[i..end], at + i);
                i = end;
            }
        }
    }
    (text, pieces)
}

/// Most words one brace expansion makes (`{a,b}{c,d}` makes four).
const MAX_BRACE_WORDS: usize = 64;

/// Bash's brace expansion of a word, when it has an unquoted `{a,b,…}` (not `${…}`): each
/// alternative between the prefix and the suffix, left to right, groups expanded in turn.
/// Only comma lists are expanded (`{1..4}` sequences and nested groups are left as written);
/// `None` when the word has none, or would make more than `MAX_BRACE_WORDS` words.
fn brace_expand(raw: &str) -> Option<Vec<String>> {
    let bytes = raw.as_bytes();
    let (mut i, mut quote) = (0, None::<u8>);
    while i < bytes.len() {
        let c = bytes[i];
        match (quote, c) {
            (Some(q), _) if c == q => quote = None,
            (Some(b'"'), b'\\') => i += 1,
            (Some(_), _) => {}
            (None, b'\'' | b'"') => quote = Some(c),
            (None, b'\\') => i += 1,
            (None, b'$') if matches!(bytes.get(i + 1), Some(b'{' | b'(')) => {
                let (open, close) = if bytes[i + 1] == b'{' { (b'{', b'}') } else { (b'(', b')') };
                i = balanced(raw, i + 1, open, close)? - 1;
            }
            (None, b'{') => {
                let close = raw[i + 1..].find('}').map(|n| i + 1 + n)?;
                let body = &raw[i + 1..close];
                if body.contains(',') && !body.contains(['{', '\'', '"', '\\', '$', ' ']) {
                    let (prefix, suffix) = (&raw[..i], &raw[close + 1..]);
                    let mut out = Vec::new();
                    for alternative in body.split(',') {
                        let word = format!("{prefix}{alternative}{suffix}");
                        match brace_expand(&word) {
                            Some(more) => out.extend(more),
                            None => out.push(word),
                        }
                        if out.len() > MAX_BRACE_WORDS {
                            return None;
                        }
                    }
                    return Some(out);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

fn arith_sum(t: &[char], at: &mut usize, depth: usize) -> Option<i64> {
    let mut value = arith_product(t, at, depth)?;
    while let Some(op) = t.get(*at).copied().filter(|c| *c == '+' || *c == '-') {
        *at += 1;
        let rhs = arith_product(t, at, depth)?;
        value = if op == '+' { value.checked_add(rhs)? } else { value.checked_sub(rhs)? };
    }
    Some(value)
}

fn arith_product(t: &[char], at: &mut usize, depth: usize) -> Option<i64> {
    let mut value = arith_atom(t, at, depth)?;
    while let Some(op) = t.get(*at).copied().filter(|c| matches!(c, '*' | '/' | '%')) {
        *at += 1;
        let rhs = arith_atom(t, at, depth)?;
        value = match op {
            '*' => value.checked_mul(rhs)?,
            '/' => value.checked_div(rhs)?,
            _ => value.checked_rem(rhs)?,
        };
    }
    Some(value)
}

fn arith_atom(t: &[char], at: &mut usize, depth: usize) -> Option<i64> {
    if depth > 64 {
        return None;
    }
    match t.get(*at)? {
        '(' => {
            *at += 1;
            let value = arith_sum(t, at, depth + 1)?;
            (t.get(*at) == Some(&')')).then(|| *at += 1)?;
            Some(value)
        }
        '-' => {
            *at += 1;
            arith_atom(t, at, depth + 1)?.checked_neg()
        }
        '+' => {
            *at += 1;
            arith_atom(t, at, depth + 1)
        }
        c if c.is_ascii_digit() => {
            let start = *at;
            while t.get(*at).is_some_and(char::is_ascii_digit) {
                *at += 1;
            }
            t[start..*at].iter().collect::<String>().parse().ok()
        }
        _ => None,
    }
}

/// A `NAME=value` / `NAME+=value` word: (name, append, raw value, byte where the value starts in the word).
fn assignment(raw: &str) -> Option<(&str, bool, &str, usize)> {
    let eq = raw.find('=')?;
    let (name, append) = match raw[..eq].strip_suffix('+') {
        Some(n) => (n, true),
        None => (&raw[..eq], false),
    };
    let valid = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !name.starts_with(|c: char| c.is_ascii_digit());
    valid.then(|| (name, append, &raw[eq + 1..], eq + 1))
}

fn is_assignment(word: &str) -> bool {
    assignment(word).is_some()
}

/// Reads a whole script: every command expanded in order.
fn read(text: &str) -> Result<Script, LoadError> {
    let sb = sbatch(text);
    let mut script = Script { sb: sb.clone(), ..Script::default() };
    let newlines = text.bytes().enumerate().filter(|(_, b)| *b == b'\n').map(|(i, _)| i).collect();
    let mut reader = Reader { vars: HashMap::new(), sb: &sb, newlines, depth: 0 };
    read_into(&mut reader, text, 0, 0, &mut script)?;
    Ok(script)
}

fn read_into(reader: &mut Reader, chunk: &str, offset: usize, depth: usize, script: &mut Script) -> Result<(), LoadError> {
    let (commands, heredocs) = tokenize(chunk, offset)?;
    script.heredocs.extend(heredocs);
    for raw in commands {
        let mut words: &[RawWord] = &raw.words;
        // Keywords that open a command list, and the `name() {` of a function.
        while let Some(first) = words.first()
            && matches!(first.raw.as_str(), "then" | "do" | "else" | "{" | "}" | "!" | "fi" | "done" | "esac")
        {
            words = &words[1..];
        }
        let Some(first) = words.first() else { continue };
        let line = reader.newlines.partition_point(|n| *n < first.span.start) + 1;
        let mut notes = Vec::new();
        if first.raw == "read"
            && let Some((body, quoted)) = raw.heredoc.clone()
        {
            read_heredoc(reader, &words[1..], body, quoted, chunk, offset);
            continue;
        }
        if let Some((body, quoted)) = raw.heredoc.clone()
            && let Some(target) = redirect_target(&raw)
            && script.written.len() < MAX_WRITTEN
        {
            let mut why = Vec::new();
            let target = reader.expand_string(&target, &mut why);
            if !target.contains(UNKNOWN)
                && let Some(text) = chunk.get(body.start.saturating_sub(offset)..body.end.saturating_sub(offset))
            {
                let (text, pieces) = if quoted {
                    (text.to_owned(), vec![Piece { text: 0..text.len(), script: body.clone(), literal: true }])
                } else {
                    expand_heredoc(reader, text, body.start)
                };
                script.written.push(Written { target, line, text, pieces });
            }
        }
        let builtin = matches!(first.raw.as_str(), "export" | "local" | "declare" | "typeset" | "readonly");
        let exported = first.raw == "export" || (builtin && words.iter().skip(1).take_while(|w| w.raw.starts_with('-')).any(|w| w.raw.contains('x')));
        let mut rest = if builtin { &words[1..] } else { words };
        if builtin {
            while rest.first().is_some_and(|w| w.raw.starts_with('-')) {
                rest = &rest[1..];
            }
        }
        if first.raw == "unset" {
            for word in &words[1..] {
                reader.vars.remove(&word.raw);
            }
            continue;
        }
        if exported {
            // `export NAME`: an existing variable becomes part of the environment.
            for word in rest.iter().filter(|w| !is_assignment(&w.raw)) {
                if let Some(var) = reader.vars.get_mut(&word.raw) {
                    var.exported = true;
                }
            }
        }
        let count = rest.iter().take_while(|w| is_assignment(&w.raw)).count();
        let (assignments, program) = rest.split_at(if builtin { rest.len() } else { count });
        let prefix = !program.is_empty();
        let mut environment = Vec::new();
        let mut values: Vec<(String, Var)> = Vec::new();
        for word in assignments {
            let Some((name, append, value, value_at)) = assignment(&word.raw) else { continue };
            let span = word.span.start + value_at..word.span.end;
            let quoted = match value.as_bytes().first() {
                Some(b'\'') => Some(ScalarStyle::SingleQuoted),
                Some(b'"') => Some(ScalarStyle::DoubleQuoted),
                _ => None,
            };
            let mut why = Vec::new();
            let mut element_spans = None;
            let fields: Option<Vec<String>> = if let Some(body) = value.strip_prefix('(').and_then(|v| v.strip_suffix(')')) {
                // An array: its elements, each word of the body expanded; each field keeps where
                // its element is written (the body starts one byte into the value, after `(`).
                let (inner, _) = tokenize(body, 0).unwrap_or_default();
                let mut elements = Vec::new();
                let mut spans = Vec::new();
                let mut known = true;
                for element in inner.iter().flat_map(|c| &c.words) {
                    let expanded = reader.expand(&element.raw, true, &mut why);
                    let at = span.start + 1 + element.span.start..span.start + 1 + element.span.end;
                    let one = expanded.len() == 1;
                    for field in expanded {
                        match field {
                            Some(f) => {
                                spans.push(one.then(|| reader.element_span(&element.raw, &f, at.clone())).flatten());
                                elements.push(f);
                            }
                            None => known = false,
                        }
                    }
                }
                element_spans = Some(spans);
                known.then_some(elements)
            } else {
                Some(vec![reader.expand_string(value, &mut why)])
            };
            let fields = match (append, fields) {
                (true, Some(more)) => match reader.vars.get(name).map(|v| v.fields.clone()) {
                    Some(Some(mut old)) if value.starts_with('(') => {
                        let old_spans = reader.vars.get(name).and_then(|v| v.elements.clone()).unwrap_or_else(|| vec![None; old.len()]);
                        element_spans = element_spans.map(|more| [old_spans, more].concat());
                        old.extend(more);
                        Some(old)
                    }
                    Some(Some(old)) => Some(vec![format!("{}{}", old.join(" "), more.join(" "))]),
                    Some(None) => None,
                    None => Some(more),
                },
                (_, fields) => fields,
            };
            // The value's text starts where it is written, when nothing was expanded or unquoted.
            let verbatim = fields.as_ref().and_then(|f| f.first()).is_some_and(|f| f == value);
            let inner_at = match quoted {
                Some(_) if fields.as_ref().and_then(|f| f.first()).is_some_and(|f| format!("{}{f}{}", &value[..1], &value[..1]) == value) => {
                    Some(span.start + 1)
                }
                None if verbatim => Some(span.start),
                _ => None,
            };
            environment.push((word.span.clone(), format!("{name}={}", word.unquoted.split_once('=').map_or("", |(_, v)| v))));
            let elements = element_spans.filter(|spans| fields.as_ref().is_some_and(|f| f.len() == spans.len()));
            values.push((name.to_owned(), Var { fields, span, quoted, at: inner_at, notes: why, exported, elements }));
        }
        let launcher_env: Vec<(String, Option<String>)> = LAUNCHER_ENV
            .iter()
            .filter_map(|name| {
                let prefixed = values.iter().find(|(n, _)| n == name).filter(|_| prefix).map(|(_, v)| v.fields.clone());
                let exported = reader.vars.get(*name).filter(|v| v.exported).map(|v| v.fields.clone());
                prefixed.or(exported).map(|fields| ((*name).to_owned(), fields.map(|f| f.join(" ")).filter(|v| !v.contains(UNKNOWN))))
            })
            .collect();
        if !prefix {
            // An assignment alone sets the variable for the rest of the script.
            for (name, var) in values {
                reader.vars.insert(name, var);
            }
        }
        if program.is_empty() {
            if exported || builtin || !environment.is_empty() {
                script.commands.push(Command { line, environment, exported, words: Vec::new(), notes, launcher_env });
            }
            continue;
        }
        // `bash -c "…"` / `sh -c '…'`: the string is a script of its own, read in place.
        if depth < MAX_NESTING
            && matches!(program[0].raw.as_str(), "bash" | "sh" | "zsh")
            && program.get(1).is_some_and(|w| w.raw == "-c")
            && let Some(body) = program.get(2)
        {
            let quote = usize::from(body.raw.starts_with(['"', '\'']));
            let inner = reader.expand_string(&body.raw, &mut notes);
            read_into(reader, &inner, body.span.start + quote, depth + 1, script)?;
            continue;
        }
        // `eval "$cmd"` / `eval $CMD …`: the words, expanded and joined, are a command line read in
        // place (a command assembled in a variable, then run). When the argument is one variable
        // holding its text verbatim, the values point at that assignment.
        if depth < MAX_NESTING && program[0].raw == "eval" && program.len() > 1 {
            let words: Vec<String> = program[1..].iter().map(|w| reader.expand_string(&w.raw, &mut notes)).collect();
            let inner = words.join(" ");
            if !inner.contains(UNKNOWN) {
                let bare = program[1].raw.trim_matches('"');
                let name = bare.strip_prefix("${").and_then(|b| b.strip_suffix('}')).or_else(|| bare.strip_prefix('$')).unwrap_or("");
                let verbatim = reader
                    .vars
                    .get(name)
                    .filter(|_| program.len() == 2)
                    .and_then(|v| v.at.filter(|_| v.fields.as_ref().is_some_and(|f| f.len() == 1 && f[0] == inner)));
                read_into(reader, &inner, verbatim.unwrap_or(program[1].span.start), depth + 1, script)?;
                continue;
            }
        }
        let mut expanded = Vec::new();
        for word in program {
            let mut fields = reader.expand(&word.raw, true, &mut notes);
            if fields.is_empty() {
                continue;
            }
            let quoted = if word.raw.starts_with('\'') {
                Some(ScalarStyle::SingleQuoted)
            } else if word.raw.starts_with('"') {
                Some(ScalarStyle::DoubleQuoted)
            } else {
                None
            };
            // A word that is exactly one variable points at its assignment.
            let bare = word.raw.trim_matches('"');
            let single_var = bare
                .strip_prefix("${")
                .and_then(|r| r.strip_suffix('}'))
                .map(|b| b.split([':', '-', '=', '+']).next().unwrap_or(b))
                .or_else(|| bare.strip_prefix('$'))
                .filter(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
                .and_then(|n| reader.vars.get(n))
                .filter(|v| v.span.end > v.span.start);
            let many = fields.len() > 1;
            // `${ARGS[@]}` / `"${ARGS[@]}"`: each field points at its element in the assignment.
            let in_array = reader.array_fields(bare, word.raw.starts_with('"'), &fields);
            for (n, field) in fields.drain(..).enumerate() {
                if let Some(Some((span, style))) = in_array.as_ref().map(|spans| spans[n].clone()) {
                    expanded.push(Word { text: field, span: span.clone(), quoted: None, from_variable: Some((span, style)) });
                    continue;
                }
                let (span, from_variable) = match single_var {
                    Some(var) if !many => (word.span.clone(), Some((var.span.clone(), var.quoted))),
                    Some(var) if var.at.is_some() => {
                        // One field of a variable holding several words: its place in the assignment.
                        let value = var.fields.as_ref().map(|f| f.join(" ")).unwrap_or_default();
                        let base = var.at.unwrap_or(0);
                        let found = field.as_ref().and_then(|f| nth_field_offset(&value, f));
                        match found {
                            Some(off) => {
                                let s = base + off..base + off + field.as_ref().map_or(0, String::len);
                                (s.clone(), Some((s, None)))
                            }
                            None => (word.span.clone(), None),
                        }
                    }
                    _ => (word.span.clone(), None),
                };
                expanded.push(Word { text: field, span, quoted: if many { None } else { quoted }, from_variable });
            }
        }
        script.commands.push(Command {
            line,
            environment: if prefix || exported { environment } else { Vec::new() },
            exported,
            words: expanded,
            notes,
            launcher_env,
        });
    }
    Ok(())
}

/// Where `field` starts in `value` (searching from the field's order), for spans into an assignment.
fn nth_field_offset(value: &str, field: &str) -> Option<usize> {
    value.match_indices(field).map(|(at, _)| at).find(|at| {
        let before = value[..*at].chars().next_back().is_none_or(char::is_whitespace);
        let after = value[at + field.len()..].chars().next().is_none_or(char::is_whitespace);
        before && after
    })
}

/// The training flags of a script as a mapping: the command the manifest's
/// `[shell] command` names, else the first launch of a training program with
/// `--` flags, else the first command with flags. `--batch-size 8` and
/// `--batch-size=8` give `batch_size: 8`, `--trainer.devices 8` gives
/// `trainer: {devices: 8}`, a flag without a value gives `true`, a flag whose
/// value is known only at run time is left out. The launcher's own options
/// (`torchrun --nproc_per_node 8`) are not the program's flags. The script's
/// `export`s and prefix assignments are its `env` (a list of `NAME=value`).
pub(crate) fn parse(text: &str, command: Option<&str>) -> Result<Node, LoadError> {
    let script = read(text)?;
    let chosen = chosen(&script, command);
    let mut entries: Vec<Entry> = Vec::new();
    if let Some((index, program_at)) = chosen {
        let words = &script.commands[index].words[program_at..];
        flags_into(words, &mut entries);
    }
    let environment: Vec<Node> = script
        .commands
        .iter()
        .filter(|c| c.exported || !c.words.is_empty())
        .flat_map(|c| &c.environment)
        .map(|(span, written)| Node { value: Value::Str(written.clone()), span: span.clone(), alias: None, style: Some(ScalarStyle::Plain), origin: 0 })
        .collect();
    if !environment.is_empty() && !entries.iter().any(|e| e.key == "env") {
        let span = environment[0].span.start..environment[environment.len() - 1].span.end;
        entries.push(Entry { key: "env".into(), key_span: span.start..span.start, key_origin: 0, value: Node::new(Value::Seq(environment), span) });
    }
    Ok(Node::new(Value::Map(entries), 0..text.len()))
}

/// The training flags of the launch on `line` (as `parse` reads the chosen one).
pub(crate) fn flags_of_launch(text: &str, line: usize) -> Option<Node> {
    let script = read(text).ok()?;
    // The launch on that line (an assignment on the same line is not it: `eval "$cmd"` reads a
    // command whose words lie in the assignment's line).
    let (c, at) = script.commands.iter().filter(|c| c.line == line).find_map(|c| launch_of(c, &script.sb).map(|(_, at)| (c, at)))?;
    let mut entries = Vec::new();
    flags_into(&c.words[at..], &mut entries);
    Some(Node::new(Value::Map(entries), 0..text.len()))
}

/// The command whose flags are the run's: (index in `script.commands`, where its program's words start).
fn chosen(script: &Script, command: Option<&str>) -> Option<(usize, usize)> {
    let has_flags = |words: &[Word]| words.iter().any(|w| w.text.as_deref().is_some_and(|t| t.starts_with("--") && t.len() > 2));
    if let Some(prefix) = command {
        return script.commands.iter().enumerate().find_map(|(i, c)| {
            let program: Vec<&str> = c.words.iter().map_while(|w| w.text.as_deref()).take_while(|w| !w.starts_with("--")).collect();
            program.join(" ").contains(prefix.trim()).then_some((i, 0))
        });
    }
    let launched = script.commands.iter().enumerate().find_map(|(i, c)| {
        let (_, at) = launch_of(c, &script.sb)?;
        has_flags(&c.words[at..]).then_some((i, at))
    });
    launched.or_else(|| script.commands.iter().position(|c| has_flags(&c.words)).map(|i| (i, 0)))
}

/// `--key value` / `--key=value` / `--switch` words into entries (dots nest).
fn flags_into(words: &[Word], entries: &mut Vec<Entry>) {
    let mut i = 0;
    while i < words.len() {
        let word = &words[i];
        let Some(flag) = word.text.as_deref().and_then(|t| t.strip_prefix("--")).filter(|f| !f.is_empty() && !f.starts_with('-')) else {
            i += 1;
            continue;
        };
        let (name, value_node, consumed) = match flag.split_once('=') {
            Some((name, value)) if value.contains(UNKNOWN) => (name.to_owned(), None, 1),
            Some((name, value)) => {
                let start = word.span.end.saturating_sub(value.len() + usize::from(word.quoted.is_some())).max(word.span.start);
                let span = start..word.span.end;
                let node = match &word.from_variable {
                    Some(_) if word.quoted.is_none() => scalar(value, word.span.clone(), None, word.from_variable.clone()),
                    _ => scalar(value, span, word.quoted.map(|_| ScalarStyle::Plain), None),
                };
                (name.to_owned(), Some(node), 1)
            }
            None => match words.get(i + 1).filter(|next| !next.text.as_deref().is_some_and(|t| t.starts_with("--"))) {
                Some(next) => match &next.text {
                    Some(text) => (flag.to_owned(), Some(scalar(text, next.span.clone(), next.quoted, next.from_variable.clone())), 2),
                    // Known only at run time: no value.
                    None => (flag.to_owned(), None, 2),
                },
                None => (flag.to_owned(), Some(Node { value: Value::Bool(true), span: word.span.clone(), alias: None, style: None, origin: 0 }), 1),
            },
        };
        i += consumed;
        let Some(value_node) = value_node else { continue };
        let key = name.replace('-', "_");
        let key_span = word.span.start..(word.span.start + 2 + name.len()).min(word.span.end);
        insert_dotted(entries, &key, key_span, value_node);
    }
}

fn insert_dotted(entries: &mut Vec<Entry>, key: &str, key_span: Span, value: Node) {
    match key.split_once('.').filter(|(head, tail)| !head.is_empty() && !tail.is_empty()) {
        Some((head, tail)) => {
            let at = match entries.iter().position(|e| e.key == head) {
                Some(at) => at,
                None => {
                    entries.push(Entry {
                        key: head.to_owned(),
                        key_span: key_span.clone(),
                        key_origin: 0,
                        value: Node::new(Value::Map(Vec::new()), key_span.clone()),
                    });
                    entries.len() - 1
                }
            };
            if let Value::Map(inner) = &mut entries[at].value.value {
                insert_dotted(inner, tail, key_span, value);
            }
        }
        None => match entries.iter_mut().find(|e| e.key == key) {
            Some(existing) => existing.value = value,
            None => entries.push(Entry { key: key.to_owned(), key_span, key_origin: 0, value }),
        },
    }
}

fn scalar(text: &str, span: Span, quoted: Option<ScalarStyle>, from_variable: Option<(Span, Option<ScalarStyle>)>) -> Node {
    let (span, quoted) = from_variable.unwrap_or((span, quoted));
    let value = match quoted {
        Some(ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted) => match type_plain_scalar(text) {
            // A quoted number or boolean is still one to argparse (HfArgumentParser's `string_to_bool`).
            typed @ (Value::Int(_) | Value::Float(_) | Value::Bool(_)) => typed,
            _ => Value::Str(text.to_owned()),
        },
        _ => type_plain_scalar(text),
    };
    Node { value, span, alias: None, style: Some(quoted.unwrap_or(ScalarStyle::Plain)), origin: 0 }
}

/// One launch line of a script: the data-parallel processes it starts (when the
/// script says), why, and the configs it passes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    /// 1-based line of the launch command.
    pub line: usize,
    /// The number of processes the launch starts; `None` when the script leaves it
    /// to the machine (`--nproc_per_node gpu`, a hostfile, an unset variable).
    pub world: Option<u64>,
    /// How the world was counted, or why it is unknown (`#SBATCH --nodes=2 × --gpus-per-node=8`).
    pub what: String,
    /// `accelerate launch --config_file F`: F says the world when `--num_processes` does not, and
    /// its plugin and precision are the run's.
    pub accelerate_config: Option<String>,
    /// Config files the command passes (`--config x.yaml`, `--deepspeed ds.json`,
    /// a positional `.yaml`), as written; Hydra's `--config-path`/`--config-name` joined.
    pub configs: Vec<String>,
    /// The script the launcher runs (`train.py`), where Hydra's `--config-path` starts.
    pub script: Option<String>,
    /// Hydra overrides on the command line (`trainer.devices=8`, `+x=y`), in order.
    pub overrides: Vec<(String, String)>,
    /// Whether the program gets training flags on the command line (`--per_device_train_batch_size 4`).
    pub flags: bool,
}

/// `#SBATCH` header values: torchrun under `srun` runs once per node.
#[derive(Clone, Debug, Default)]
struct Sbatch {
    nodes: Option<(u64, String)>,
    gpus_per_node: Option<(u64, String)>,
    tasks_per_node: Option<(u64, String)>,
    ntasks: Option<(u64, String)>,
}

/// Reads `#SBATCH` headers: `--nodes=N` / `-N N`, `--gpus-per-node=N` (also
/// `type:N`), `--gres=gpu:N` / `gpu:a100:N`, `--ntasks-per-node=N`,
/// `--ntasks=N` / `-n N` (SLURM's sbatch manual,
/// <https://slurm.schedmd.com/sbatch.html>). A range `--nodes=2-4` is unknown.
fn sbatch(text: &str) -> Sbatch {
    let mut out = Sbatch::default();
    for line in text.lines() {
        let Some(rest) = line.trim_start().strip_prefix("#SBATCH") else { continue };
        let words: Vec<&str> = rest.split_whitespace().take_while(|w| !w.starts_with('#')).collect();
        let mut i = 0;
        while i < words.len() {
            let (flag, value, step) = match words[i].split_once('=') {
                Some((f, v)) => (f, Some(v), 1),
                None if (words[i].starts_with("-N") || words[i].starts_with("-n")) && words[i].len() > 2 => (&words[i][..2], Some(&words[i][2..]), 1),
                None => (words[i], words.get(i + 1).copied(), 2),
            };
            let count = |v: &str| v.rsplit(':').next().and_then(|n| n.parse::<u64>().ok());
            match (flag, value) {
                ("--nodes" | "-N", Some(v)) => out.nodes = v.parse().ok().map(|n| (n, format!("{flag}={v}"))),
                ("--gpus-per-node", Some(v)) => out.gpus_per_node = count(v).map(|n| (n, format!("--gpus-per-node={v}"))),
                ("--gres", Some(v)) if v.starts_with("gpu") => out.gpus_per_node = count(v).map(|n| (n, format!("--gres={v}"))),
                ("--ntasks-per-node", Some(v)) => out.tasks_per_node = v.parse().ok().map(|n| (n, format!("--ntasks-per-node={v}"))),
                ("--ntasks" | "-n", Some(v)) => out.ntasks = v.parse().ok().map(|n| (n, format!("{flag}={v}"))),
                _ => {}
            }
            i += step;
        }
    }
    out
}

fn is_config_path(word: &str) -> bool {
    [".yaml", ".yml", ".json", ".toml"].iter().any(|e| word.ends_with(e)) && !word.contains('=')
}

/// The launch lines of a script, read without running anything: `torchrun` /
/// `python -m torch.distributed.run|launch`, `accelerate launch`, `deepspeed`,
/// `composer`, `llamafactory-cli train`, `tune run`, `mpirun`/`srun` under
/// `#SBATCH`, and frameworks' `--devices`/`--num_nodes`. Each flag is
/// documented at `launch_of`.
pub(crate) fn launches(text: &str) -> Vec<Launch> {
    let Ok(script) = read(text) else { return Vec::new() };
    script.commands.iter().filter_map(|c| launch_of(c, &script.sb).map(|(l, _)| l)).collect()
}

/// The launch whose program's flags `parse` reads (the run the script describes).
pub(crate) fn chosen_launch(text: &str, command: Option<&str>) -> Option<Launch> {
    let script = read(text).ok()?;
    let (index, _) = chosen(&script, command)?;
    let c = &script.commands[index];
    launch_of(c, &script.sb).map(|(l, _)| l)
}

/// A flag's value: `--flag value`, `--flag=value`; `-` and `_` spell the same flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flag<'a> {
    Absent,
    /// Given, with no value or one known only at run time.
    Unknown,
    Value(&'a str),
}

impl<'a> Flag<'a> {
    fn value(self) -> Option<&'a str> {
        match self {
            Flag::Value(v) => Some(v),
            _ => None,
        }
    }

    fn given(self) -> bool {
        self != Flag::Absent
    }
}

fn flag<'a>(words: &'a [Option<String>], names: &[&str]) -> Flag<'a> {
    let norm = |s: &str| s.replace('_', "-");
    for (i, word) in words.iter().enumerate() {
        let Some(word) = word else { continue };
        let (name, inline) = match word.split_once('=') {
            Some((n, v)) if n.starts_with('-') => (n, Some(v)),
            _ => (word.as_str(), None),
        };
        if names.iter().any(|n| norm(n) == norm(name)) {
            return match inline {
                Some(v) if v.contains(UNKNOWN) => Flag::Unknown,
                Some(v) => Flag::Value(v),
                None => match words.get(i + 1) {
                    Some(Some(next)) if !next.starts_with('-') => Flag::Value(next),
                    _ => Flag::Unknown,
                },
            };
        }
    }
    Flag::Absent
}

/// A process count: a number, or why it is not one.
fn count(flag: Flag, written: &str) -> Result<(u64, String), String> {
    match flag {
        Flag::Absent => Err(format!("{written} not given")),
        Flag::Unknown => Err(format!("{written} is known only at run time")),
        Flag::Value(v) => v.parse::<u64>().map(|n| (n, format!("{written}={v}"))).map_err(|_| format!("{written}={v} is not a number")),
    }
}

/// srun's options that take no value (srun(1)); the others take one.
const SRUN_SWITCHES: &[&str] = &[
    "--exclusive",
    "--unbuffered",
    "-u",
    "-l",
    "--label",
    "--overlap",
    "--pty",
    "-K",
    "--kill-on-bad-exit",
    "--quiet",
    "-Q",
    "-v",
    "--verbose",
    "--wait-all-nodes",
    "--no-kill",
    "-k",
    "--exact",
    "--whole",
    "--mpi=pmix",
];

/// Options of `uv run` / `conda run` / `poetry run` that take a value.
const RUNNER_VALUE_OPTIONS: &[&str] =
    &["--with", "--python", "-p", "--project", "--extra", "--group", "--env-file", "--directory", "--package", "--index", "-n", "--name", "--prefix"];

/// Environment variables a launcher reads, looked up where the command sets them or exports them.
const LAUNCHER_ENV: &[&str] = &["FORCE_TORCHRUN", "NNODES", "NPROC_PER_NODE", "CUDA_VISIBLE_DEVICES", "USE_MCA"];

/// The launch a command's words describe, and where the program's own words start.
fn launch_of(command: &Command, sb: &Sbatch) -> Option<(Launch, usize)> {
    let words: Vec<Option<String>> = command.words.iter().map(|w| w.text.clone()).collect();
    launch_from(&words, 0, sb, command, 0)
}

fn launch_from(words: &[Option<String>], start: usize, sb: &Sbatch, command: &Command, depth: usize) -> Option<(Launch, usize)> {
    let line = command.line;
    let text = |i: usize| words.get(i).and_then(|w| w.as_deref()).unwrap_or("");
    let base = |w: &str| w.rsplit('/').next().unwrap_or(w).to_owned();
    let env = |name: &str| command.launcher_env.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
    // Skip `srun [opts]`, `mpirun -np N`, `env X=1`, `uv run`, … to the launcher.
    let mut i = start;
    let mut srun: Option<(Flag, Flag, Flag)> = None;
    let mut mpi: Option<u64> = None;
    while i < words.len() {
        match base(text(i)).as_str() {
            "srun" => {
                let from = i + 1;
                i += 1;
                while text(i).starts_with('-') {
                    let w = text(i);
                    i += if w.contains('=') || SRUN_SWITCHES.contains(&w) || (!w.starts_with("--") && w.len() > 2) { 1 } else { 2 };
                }
                let own = &words[from..i.min(words.len())];
                srun = Some((flag(own, &["--nodes", "-N"]), flag(own, &["--ntasks", "-n"]), flag(own, &["--ntasks-per-node"])));
            }
            "mpirun" | "mpiexec" => {
                let own: Vec<Option<String>> = words[i..].to_vec();
                mpi = flag(&own, &["-np", "-n", "--np"]).value().and_then(|v| v.parse().ok());
                i += 1;
                while text(i).starts_with('-') {
                    i += if text(i).contains('=') { 1 } else { 2 };
                }
            }
            "nohup" | "exec" | "time" | "command" | "builtin" => i += 1,
            "env" => {
                i += 1;
                while text(i).starts_with('-') || is_assignment(text(i)) {
                    i += if text(i) == "-u" { 2 } else { 1 };
                }
            }
            "stdbuf" | "numactl" | "taskset" => {
                i += 1;
                while text(i).starts_with('-') {
                    i += 1;
                }
            }
            "timeout" | "nice" => {
                i += 1;
                while text(i).starts_with('-') {
                    i += if text(i) == "-n" || text(i) == "-s" || text(i) == "-k" { 2 } else { 1 };
                }
                if base(text(i - 1)) == "timeout" || text(i).chars().next().is_some_and(|c| c.is_ascii_digit()) {
                    i += 1;
                }
            }
            "uv" | "poetry" | "pipenv" | "pixi" | "hatch" | "conda" | "mamba" | "micromamba" if text(i + 1) == "run" => {
                i += 2;
                while text(i).starts_with('-') && text(i) != "--" {
                    i += if !text(i).contains('=') && RUNNER_VALUE_OPTIONS.contains(&text(i)) { 2 } else { 1 };
                }
                if text(i) == "--" {
                    i += 1;
                }
            }
            _ => break,
        }
    }
    let first = base(text(i));
    // `python [-u -O -B -W x -X x] -m module`.
    let mut m = i + 1;
    if first.starts_with("python") {
        while text(m).starts_with('-') && text(m) != "-m" && text(m) != "-c" {
            m += if matches!(text(m), "-W" | "-X") { 2 } else { 1 };
        }
    }
    let module = if first.starts_with("python") && text(m) == "-m" { text(m + 1).to_owned() } else { String::new() };
    // `python -c …`, `python -m pip …`: not a training program.
    if first.starts_with("python") && (text(m) == "-c" || matches!(module.as_str(), "pip" | "venv" | "ensurepip" | "http.server" | "json.tool")) {
        return None;
    }
    let kind = match (first.as_str(), module.as_str(), text(i + 1)) {
        ("torchrun", _, _) | (_, "torch.distributed.run" | "torch.distributed.launch", _) => "torchrun",
        ("accelerate", _, "launch") | (_, "accelerate.commands.launch", _) => "accelerate",
        // torchtune/_cli/run.py: `tune run [TORCHRUN-OPTIONS] <recipe> --config <config>`.
        ("tune", _, "run") => "tune",
        ("deepspeed", _, _) | (_, "deepspeed.launcher.runner", _) => "deepspeed",
        // composer/cli/launcher.py: `composer -n NPROC [--world_size N] train.py …`.
        ("composer", _, _) => "composer",
        // LLaMA-Factory src/llamafactory/cli.py: `llamafactory-cli train` (alias `lmf`).
        ("llamafactory-cli" | "lmf", _, "train") => "llamafactory",
        (p, md, _) if (p.starts_with("python") && (!md.is_empty() || text(m).ends_with(".py"))) || p == "litgpt" || p.ends_with(".py") => "program",
        _ => return wrapped(words, i, sb, command, depth),
    };
    // `python mason.py --gpus 8 -- accelerate launch …`: a program that passes a launch after `--`.
    if kind == "program"
        && let Some(found) = wrapped(words, i, sb, command, depth)
    {
        return Some(found);
    }
    // Where the launcher's own options start, and where the program starts.
    let own_start = match kind {
        "program" => i,
        _ if !module.is_empty() => m + 2,
        "accelerate" | "tune" | "llamafactory" => i + 2,
        _ => i + 1,
    };
    let script_at = match kind {
        "program" => Some(i),
        "llamafactory" => Some(own_start),
        "tune" => tune_recipe_at(words, own_start),
        _ => words
            .iter()
            .enumerate()
            .skip(own_start)
            // `-m`/`--module` (torchrun's and deepspeed's runner: the script is a Python module,
            // `deepspeed --module openrlhf.cli.train_sft …`): the program starts there.
            .find(|(_, w)| w.as_deref().is_some_and(|w| w.ends_with(".py") || w == "-m" || w == "--module" || w == "--"))
            .map(|(at, w)| if w.as_deref() == Some("--") { at + 1 } else { at }),
    };
    let program_at = script_at.unwrap_or(words.len()).min(words.len());
    let own = &words[own_start.min(program_at)..program_at];
    let program = &words[program_at..];
    // Launcher options held in a variable known only at run time (`torchrun $DISTRIBUTED_ARGS`
    // with it unset): an option it does not show may be in there.
    let opaque = own.iter().any(|w| w.as_deref().is_none_or(|w| w.contains(UNKNOWN)));
    // `accelerate launch --config_file F`: F's plugin and precision are the run's
    // (`resolve::fill_from_accelerate`), and its `num_processes` the world without `--num_processes`.
    let accelerate_config = if kind == "accelerate" { flag(own, &["--config_file", "--config-file"]).value().map(str::to_owned) } else { None };
    let (world, what): (Option<u64>, String) = match kind {
        // torchtune/_cli/run.py: with no torchrun option before the recipe, `tune run` runs the
        // recipe in this process (`_run_single_device`): one process.
        "tune" if own.is_empty() => (Some(1), "tune run without torchrun options (one process)".into()),
        // torch/distributed/run.py: `--nproc_per_node` (also `--nproc-per-node`) default "1"; "gpu"/"auto"
        // count the machine's devices. `--nnodes` default "1:1"; "MIN:MAX" is elastic. `--standalone`: one node.
        // `tune run` hands its torchrun options to torchrun (`_run_distributed`).
        "torchrun" | "tune" => {
            let nnodes = flag(own, &["--nnodes"]);
            let nodes: Result<(u64, String), String> = match nnodes {
                _ if flag(own, &["--standalone"]).given() => Ok((1, "--standalone".into())),
                Flag::Absent if srun.is_some() => match srun.and_then(|(n, ..)| n.value().map(str::to_owned)) {
                    Some(v) => v.parse().map(|n| (n, format!("srun --nodes={v}"))).map_err(|_| format!("srun --nodes={v}")),
                    None => sb.nodes.clone().map(|(n, w)| (n, format!("#SBATCH {w}"))).ok_or_else(|| "srun without #SBATCH --nodes".to_owned()),
                },
                Flag::Absent if opaque => Err("options known only at run time may set --nnodes".into()),
                Flag::Absent => Ok((1, "one node".into())),
                Flag::Unknown => Err("--nnodes is known only at run time".into()),
                Flag::Value(v) => match v.split_once(':') {
                    Some((a, b)) if a == b => a.parse().map(|n| (n, format!("--nnodes={v}"))).map_err(|_| format!("--nnodes={v}")),
                    Some(_) => Err(format!("--nnodes={v} is elastic")),
                    None => v.parse().map(|n| (n, format!("--nnodes={v}"))).map_err(|_| format!("--nnodes={v}")),
                },
            };
            let procs: Result<(u64, String), String> = match flag(own, &["--nproc_per_node", "--nproc-per-node"]) {
                Flag::Absent if opaque => Err("options known only at run time may set --nproc_per_node".into()),
                Flag::Absent => Ok((1, "--nproc_per_node default 1".into())),
                Flag::Value(v) => {
                    v.parse().map(|n| (n, format!("--nproc_per_node={v}"))).map_err(|_| format!("--nproc_per_node={v} counts the machine's GPUs"))
                }
                Flag::Unknown => Err("--nproc_per_node is known only at run time".into()),
            };
            match (nodes, procs) {
                (Ok((n, nw)), Ok((p, pw))) => (n.checked_mul(p), format!("{} {nw} × {pw}", launcher_name(kind))),
                (Err(e), _) | (_, Err(e)) => (None, format!("{}: {e}", launcher_name(kind))),
            }
        }
        // accelerate/commands/launch.py: `--num_processes` is the total over all machines;
        // `--config_file` holds `num_processes` when the flag is absent.
        "accelerate" => match flag(own, &["--num_processes", "--num-processes"]) {
            Flag::Value(v) => match v.parse::<u64>() {
                Ok(n) => (Some(n), format!("accelerate launch --num_processes={n}")),
                Err(_) => (None, format!("accelerate launch --num_processes={v} is not a number")),
            },
            Flag::Unknown => (None, "accelerate launch: --num_processes is known only at run time".into()),
            Flag::Absent if opaque => (None, "accelerate launch: options known only at run time may set --num_processes".into()),
            Flag::Absent => (None, "accelerate launch without --num_processes".into()),
        },
        // deepspeed/launcher/runner.py: `--num_gpus`/`--num_nodes` (-1: every one), `--include host:0,1,2`,
        // `--hostfile` (default /job/hostfile: the machines decide).
        "deepspeed" => {
            let gpus = flag(own, &["--num_gpus", "--num-gpus"]);
            let nodes = flag(own, &["--num_nodes", "--num-nodes"]);
            let include = flag(own, &["--include", "-i"]).value();
            let hostfile = flag(own, &["--hostfile", "-H"]).given();
            // `NODE_SPEC[@NODE_SPEC…]`, `NODE_SPEC = NAME[:SLOT[,SLOT…]]`; a node without slots is all of its GPUs.
            let slots =
                include.and_then(|spec| spec.split('@').map(|node| node.split_once(':').map(|(_, s)| s.split(',').count() as u64)).sum::<Option<u64>>());
            let num = |f: Flag| f.value().and_then(|v| v.parse::<u64>().ok());
            match (num(gpus), num(nodes), slots) {
                (_, _, Some(count)) => (Some(count), format!("deepspeed --include {}", include.unwrap_or_default())),
                _ if gpus == Flag::Unknown || nodes == Flag::Unknown => (None, "deepspeed: --num_gpus/--num_nodes known only at run time".into()),
                (Some(g), Some(n), _) => (g.checked_mul(n), format!("deepspeed --num_gpus={g} × --num_nodes={n}")),
                // Without `--hostfile` the runner starts this machine only (its default, /job/hostfile, assumed absent).
                (Some(g), None, _) if !hostfile => {
                    (Some(g), format!("deepspeed --num_gpus={g} on one node (no --hostfile; the default /job/hostfile assumed absent)"))
                }
                _ => (None, "deepspeed: the hostfile or the machine decides the GPUs".into()),
            }
        }
        // composer/cli/launcher.py: `-n/--nproc` processes on this node (default: the node's GPUs),
        // `--world_size` the total across nodes (default: nproc).
        "composer" => {
            let total = flag(own, &["--world_size", "--world-size"]);
            let (f, written) = if total.given() { (total, "composer --world_size") } else { (flag(own, &["-n", "--nproc"]), "composer -n") };
            match count(f, written) {
                Ok((v, why)) => (Some(v), why),
                Err(_) if !f.given() => (None, "composer without -n: one process per GPU of the machine".into()),
                Err(e) => (None, e),
            }
        }
        // LLaMA-Factory src/llamafactory/cli.py: `train` runs under torchrun when FORCE_TORCHRUN is set or
        // the machine has more than one device; then NNODES (default 1) × NPROC_PER_NODE (default: the
        // device count, which CUDA_VISIBLE_DEVICES limits). With one visible device it runs in process.
        "llamafactory" => {
            let forced =
                env("FORCE_TORCHRUN").or_else(|| env("USE_MCA")).flatten().is_some_and(|v| matches!(v.to_ascii_lowercase().as_str(), "1" | "true" | "y"));
            let visible = env("CUDA_VISIBLE_DEVICES").map(|v| v.map(|v| v.split(',').filter(|d| !d.trim().is_empty()).count() as u64));
            let nnodes = env("NNODES").map_or(Ok((1, "NNODES default 1".to_owned())), |v| match v {
                Some(v) => v.parse::<u64>().map(|n| (n, format!("NNODES={n}"))).map_err(|_| format!("NNODES={v}")),
                None => Err("NNODES is known only at run time".to_owned()),
            });
            let nproc = match (env("NPROC_PER_NODE"), visible) {
                (Some(Some(v)), _) => v.parse::<u64>().map(|n| (n, format!("NPROC_PER_NODE={n}"))).map_err(|_| format!("NPROC_PER_NODE={v}")),
                (Some(None), _) => Err("NPROC_PER_NODE is known only at run time".to_owned()),
                (None, Some(Some(n))) => Ok((n, format!("CUDA_VISIBLE_DEVICES lists {n}"))),
                (None, _) => Err("NPROC_PER_NODE not set: the machine's GPU count".to_owned()),
            };
            match (nnodes, nproc) {
                (Ok(_), Ok((1, why))) if !forced => (Some(1), format!("llamafactory-cli train: {why}, one process")),
                (Ok((n, nw)), Ok((p, pw))) => (n.checked_mul(p), format!("llamafactory-cli train (torchrun) {nw} × {pw}")),
                (Err(e), _) | (_, Err(e)) => (None, format!("llamafactory-cli train: {e}")),
            }
        }
        _ => {
            // srun/mpirun start one process per task; a framework CLI counts its own devices.
            // jsonargparse (litgpt, LightningCLI): a flag after `--config` overrides the file's value.
            let num = |f: Flag| f.value().and_then(|v| v.parse::<u64>().ok());
            // litgpt's CLI takes `--devices`/`--num_nodes`; any LightningCLI `--trainer.devices`. A
            // `--gpus` of an unknown program is its own (open-instruct's `mason.py --gpus 8`).
            let litgpt = first == "litgpt";
            let devices = num(flag(program, if litgpt { &["--devices", "--trainer.devices"] } else { &["--trainer.devices"] }));
            let nodes = num(flag(program, if litgpt { &["--num_nodes", "--num-nodes", "--trainer.num_nodes"] } else { &["--trainer.num_nodes"] }));
            match (mpi, srun, devices) {
                (Some(n), _, _) => (Some(n), format!("mpirun -np {n}")),
                (None, _, Some(d)) => (d.checked_mul(nodes.unwrap_or(1)), format!("--devices {d} × --num_nodes {}", nodes.unwrap_or(1))),
                (None, Some((s_nodes, s_tasks, s_per_node)), None) => {
                    // srun(1): `--ntasks` is the total; else nodes × tasks per node.
                    let num = |f: Flag| f.value().and_then(|v| v.parse::<u64>().ok());
                    match (num(s_tasks), num(s_per_node), num(s_nodes), &sb.ntasks, &sb.nodes, &sb.tasks_per_node) {
                        (Some(n), ..) => (Some(n), format!("srun --ntasks={n}")),
                        (None, Some(t), Some(n), ..) => (n.checked_mul(t), format!("srun --nodes={n} × --ntasks-per-node={t}")),
                        (None, None, None, Some((n, w)), ..) => (Some(*n), format!("srun: #SBATCH {w}")),
                        (None, None, None, None, Some((n, nw)), Some((t, tw))) => (n.checked_mul(*t), format!("srun: #SBATCH {nw} × {tw}")),
                        _ => (None, "srun without #SBATCH --ntasks, or --nodes and --ntasks-per-node".into()),
                    }
                }
                _ => {
                    let launch = single(program, line, &command.notes)?;
                    return Some((launch, program_at));
                }
            }
        }
    };
    let mut launch = single(program, line, &command.notes).unwrap_or(Launch {
        line,
        world: None,
        what: String::new(),
        accelerate_config: None,
        configs: Vec::new(),
        script: None,
        overrides: Vec::new(),
        flags: false,
    });
    // Config files the launcher itself takes (`accelerate launch --deepspeed_config_file ds.json`,
    // `deepspeed --deepspeed_config ds.json`).
    for name in ["--deepspeed_config_file", "--deepspeed-config-file"] {
        if let Some(v) = flag(own, &[name]).value() {
            launch.configs.push(v.to_owned());
        }
    }
    launch.world = world;
    launch.what = format!("{what}{}", launch.what);
    launch.accelerate_config = accelerate_config;
    Some((launch, program_at))
}

/// A wrapper that passes the command after `--` (`submit --gpus 8 -- torchrun …`, open-instruct's
/// `python mason.py … -- accelerate launch …`): the launch after `--` gives the configs and the
/// flags, but not the world — how many times, on how many nodes, the wrapper runs the command
/// (and what it rewrites in it) is the wrapper's own.
fn wrapped(words: &[Option<String>], i: usize, sb: &Sbatch, command: &Command, depth: usize) -> Option<(Launch, usize)> {
    let dash = words[i..].iter().position(|w| w.as_deref() == Some("--")).map(|p| p + i)?;
    if depth >= MAX_NESTING {
        return None;
    }
    let (mut launch, at) = launch_from(words, dash + 1, sb, command, depth + 1)?;
    let wrapper = words.get(i).cloned().flatten().unwrap_or_default();
    let wrapper = words.get(i + 1).cloned().flatten().filter(|w| wrapper.starts_with("python") && w.ends_with(".py")).unwrap_or(wrapper);
    let inner = launch.world.map_or(String::new(), |w| format!(" (the launch after it says {w})"));
    launch.world = None;
    launch.what = format!("the command after `--` of `{wrapper}`: the wrapper decides where and how often it runs{inner}");
    Some((launch, at))
}

fn launcher_name(kind: &str) -> &'static str {
    if kind == "tune" { "tune run" } else { "torchrun" }
}

/// Where `tune run`'s recipe is: the first word after the torchrun options (they take a
/// value, `--opt=value`, or are one of torchrun's switches).
fn tune_recipe_at(rest: &[Option<String>], skip: usize) -> Option<usize> {
    // torch/distributed/run.py `get_args_parser`: the options that take no value.
    const SWITCHES: &[&str] = &["--standalone", "--no-python", "--no_python", "--run-path", "--run_path", "--module", "-m"];
    let mut i = skip;
    while let Some(word) = rest.get(i) {
        let word = word.as_deref()?;
        if !word.starts_with('-') {
            return Some(i);
        }
        i += if word.contains('=') || SWITCHES.contains(&word) { 1 } else { 2 };
    }
    None
}

/// The configs and Hydra overrides of the training command; its world unknown.
fn single(program: &[Option<String>], line: usize, notes: &[String]) -> Option<Launch> {
    let mut configs = Vec::new();
    let mut overrides = Vec::new();
    // A folder known only at run time is shown as `…` (`…/../../pretrain_gpt.py`).
    let script = program.iter().flatten().find(|w| w.ends_with(".py")).map(|w| w.replace(UNKNOWN, "…"));
    let flags = program.iter().flatten().any(|w| w.starts_with("--") && w.len() > 2 && !w.starts_with("--config"));
    let (mut path, mut name) = (None, None);
    let mut i = 0;
    while i < program.len() {
        let Some(word) = &program[i] else {
            i += 1;
            continue;
        };
        let next = program.get(i + 1).and_then(|w| w.clone());
        let (flag, inline) = match word.split_once('=') {
            Some((f, v)) if f.starts_with('-') => (f, Some(v.to_owned())),
            _ => (word.as_str(), None),
        };
        let value = inline.clone().or(next).filter(|v| !v.contains(UNKNOWN));
        let step = if inline.is_some() { 1 } else { 2 };
        match flag {
            "--config" | "--config_file" | "--config-file" | "--deepspeed" | "--deepspeed_config" | "--deepspeed-config" | "--ds_config" | "-c" => {
                configs.extend(value);
                i += step;
            }
            "--config-path" | "--config_path" | "-cp" => {
                path = value;
                i += step;
            }
            "--config-name" | "--config_name" | "-cn" => {
                name = value;
                i += step;
            }
            "--devices" | "--num_nodes" | "--num-nodes" | "--trainer.devices" | "--trainer.num_nodes" | "--trainer.num-nodes" => {
                if let Some(value) = value {
                    overrides.push((flag.trim_start_matches('-').replace('-', "_"), value));
                }
                i += step;
            }
            f if f.starts_with('-') => i += 1,
            w if is_config_path(w) => {
                configs.push(w.to_owned());
                i += 1;
            }
            w => {
                // Hydra: `key=value`, `+key=value`, `++key=value` (`~key` deletes: ignored).
                if let Some((key, value)) = w.split_once('=')
                    && !key.is_empty()
                    && key.trim_start_matches('+').chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/'))
                {
                    overrides.push((key.trim_start_matches('+').to_owned(), value.to_owned()));
                }
                i += 1;
            }
        }
    }
    if let Some(name) = name {
        let name = if name.ends_with(".yaml") { name } else { format!("{name}.yaml") };
        configs.push(match path {
            Some(p) => format!("{}/{name}", p.trim_end_matches('/')),
            None => name,
        });
    }
    // A program with nothing after it still names the run when it is a Python script: one that
    // writes its `TrainingArguments` as literals is the config (`resolve::launch`).
    if configs.is_empty() && overrides.is_empty() && !flags && !script.as_deref().is_some_and(|s| s.ends_with(".py")) {
        return None;
    }
    let what = if notes.is_empty() { String::new() } else { format!("; {}", notes.join("; ")) };
    Some(Launch { line, world: None, what, accelerate_config: None, configs, script, overrides, flags })
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

    fn one(text: &str) -> Launch {
        let all = launches(text);
        assert_eq!(all.len(), 1, "{all:?}");
        all.into_iter().next().unwrap()
    }

    #[test]
    fn torchrun_spellings() {
        let l = one("python -m torch.distributed.run --nnodes=2 --nproc-per-node=4 train.py --config cfg.yaml\n");
        assert_eq!((l.world, l.configs.clone()), (Some(8), vec!["cfg.yaml".to_owned()]));
        assert_eq!(one("python -m torch.distributed.launch --nproc_per_node 2 train.py c.yaml\n").world, Some(2));
        assert_eq!(one("torchrun --nnodes 1:4 --nproc_per_node 8 train.py --config=c.yaml\n").world, None, "elastic range");
        assert_eq!(one("torchrun --nnodes 2:2 --nproc_per_node 8 train.py --config=c.yaml\n").world, Some(16));
        assert_eq!(one("torchrun --nproc_per_node auto train.py --config c.yaml\n").world, None);
        assert_eq!(one("torchrun train.py --config c.yaml\n").world, Some(1), "torchrun's default nproc_per_node is 1");
    }

    #[test]
    fn slurm_headers_defaults_and_variables() {
        let sbatch = "#!/bin/bash\n#SBATCH -N 4\n#SBATCH --gres=gpu:a100:8\n#SBATCH --ntasks-per-node=8\nsrun python train.py --config conf/a.yaml\n";
        let l = one(sbatch);
        assert_eq!(l.world, Some(32));
        assert!(l.what.contains("#SBATCH -N=4 × --ntasks-per-node=8"), "{}", l.what);
        let l = one("NPROC=${1:-2}\nGPUS=$NPROC\ntorchrun --nproc_per_node ${GPUS} train.py --config c.yaml\n");
        assert_eq!(l.world, Some(2));
        let l = one("torchrun --nproc_per_node ${1:-4} train.py --config c.yaml\n");
        assert_eq!(l.world, Some(4));
        assert!(l.what.contains("${1:-4} read as 4 ($1 is a positional parameter, unset when linting)"), "{}", l.what);
        assert_eq!(one("N=$(nvidia-smi -L | wc -l)\ntorchrun --nproc_per_node $N train.py --config c.yaml\n").world, None, "never executed");
        assert_eq!(one("mpirun -np 16 python train.py --config c.yaml\n").world, Some(16));
    }

    #[test]
    fn configs_and_overrides_a_command_passes() {
        let l = one("python train.py -cp conf -cn exp/big trainer.devices=8 +trainer.num_nodes=2 ~logger\n");
        assert_eq!(l.configs, vec!["conf/exp/big.yaml".to_owned()]);
        assert_eq!(l.overrides, vec![("trainer.devices".to_owned(), "8".to_owned()), ("trainer.num_nodes".to_owned(), "2".to_owned())]);
        let l = one("accelerate launch --multi_gpu --num_processes=8 --num_machines 1 train.py --config_file run.yaml\n");
        assert_eq!((l.world, l.configs.clone()), (Some(8), vec!["run.yaml".to_owned()]));
        assert!(launches("echo done\ncd /tmp\n").is_empty());
    }

    #[test]
    fn deepspeed_counts() {
        assert_eq!(one("deepspeed --include localhost:0,1@worker-1:0,1,2 train.py --deepspeed ds.json\n").world, Some(5));
        assert_eq!(one("deepspeed --include worker-1 train.py --deepspeed ds.json\n").world, None, "a node without slots is all its GPUs");
        assert_eq!(one("deepspeed --num_gpus 8 train.py --deepspeed ds.json\n").world, Some(8));
        assert_eq!(one("deepspeed --hostfile hosts --num_gpus 8 train.py --deepspeed ds.json\n").world, None, "every host of the hostfile");
        assert_eq!(one("deepspeed --hostfile hosts --num_nodes 2 --num_gpus 8 train.py --deepspeed ds.json\n").world, Some(16));
    }

    #[test]
    fn unterminated_quotes_are_errors() {
        assert!(parse("python train.py --name 'x\n", None).is_err());
    }

    /// Issue 23 item 2: each launch pattern, written the way the projects write theirs.
    #[test]
    fn options_held_in_variables_and_arrays_are_expanded_where_used() {
        // Megatron-LM / MindSpeed style: the options in one variable, split where it is used.
        let text = "GPUS_PER_NODE=8\nNNODES=2\nDISTRIBUTED_ARGS=\"\n    --nproc_per_node $GPUS_PER_NODE \\\n    --nnodes $NNODES \\\n    --master_port 6000\n\"\ntorchrun $DISTRIBUTED_ARGS pretrain_gpt.py --micro-batch-size 4\n";
        let l = one(text);
        assert_eq!(l.world, Some(16), "{l:?}");
        assert_eq!(l.line, 8);
        // A bash array, quoted and unquoted.
        let text = "ARGS=(--nproc_per_node 4 --nnodes=1)\ntorchrun \"${ARGS[@]}\" train.py --config c.yaml\ntorchrun ${ARGS[@]} train.py --config c.yaml\n";
        let all = launches(text);
        assert_eq!(all.iter().map(|l| l.world).collect::<Vec<_>>(), vec![Some(4), Some(4)]);
        // `+=` appends to an array.
        let text = "A=(--nproc_per_node 2)\nA+=(--nnodes 3)\ntorchrun ${A[@]} train.py c.yaml\n";
        assert_eq!(one(text).world, Some(6));
    }

    /// Megatron-DeepSpeed's examples keep their flags in a double-quoted string continued with
    /// `\` (`megatron_options=" \` … `--fp16 \` … `"`): in double quotes a backslash-newline is
    /// removed as it is outside them, so `--fp16` is a switch, not `--fp16 \`. Their program lies
    /// under a folder known only at run time (`dir=`pwd``; `${dir}/../../pretrain_gpt.py`): its
    /// name is kept.
    #[test]
    fn a_quoted_backslash_newline_continues_and_a_program_keeps_its_name() {
        let text = "dir=`pwd`\nopts=\" \\\n    --micro-batch-size 2 \\\n    --fp16 \\\n    --global-batch-size 8\"\ndeepspeed ${dir}/../../pretrain_gpt.py ${opts} --deepspeed\n";
        let root = parse(text, None).unwrap();
        assert_eq!(root.get("fp16").map(|n| n.value.clone()), Some(Value::Bool(true)), "{root:?}");
        assert_eq!(root.get("micro_batch_size").map(|n| n.value.clone()), Some(Value::Int(2)));
        assert_eq!(root.get("global_batch_size").map(|n| n.value.clone()), Some(Value::Int(8)));
        assert_eq!(one(text).script.as_deref(), Some("…/../../pretrain_gpt.py"));
        assert_eq!(unescape_double("a \\\n b \\$c"), "a  b $c");
    }

    /// Issue 25: Megatron-LM's scripts keep their flags in bash arrays (`TRAINING_ARGS=( … )`) and
    /// expand them on the launch line (`${TRAINING_ARGS[@]}`): each value points at its element.
    #[test]
    fn flags_from_array_elements_point_at_the_elements() {
        let text = "N=4\nT=(\n  --micro-batch-size 2 # two\n  --lr \"1e-4\"\n  --seq-length $N\n)\nT+=(--bf16)\nP=(--tensor-model-parallel-size 8)\ntorchrun --nproc_per_node 8 pretrain_gpt.py ${T[@]} \"${P[@]}\"\n";
        let root = parse(text, None).unwrap();
        let at = |key: &str| root.get(key).unwrap_or_else(|| panic!("{key}: {root:?}")).span.clone();
        let micro = text.find("2 # two").unwrap();
        assert_eq!(at("micro_batch_size"), micro..micro + 1);
        let lr = text.find("1e-4").unwrap();
        assert_eq!(at("lr"), lr..lr + 4, "inside the quotes");
        assert_eq!(at("seq_length"), 2..3, "an element that is one variable points at its assignment");
        let bf16 = text.find("--bf16").unwrap();
        assert_eq!(at("bf16"), bf16..bf16 + 6, "`+=` keeps the elements' places");
        let tp = text.find("8)").unwrap();
        assert_eq!(at("tensor_model_parallel_size"), tp..tp + 1, "quoted `\"${{P[@]}}\"`");
        // An element split into several words (unquoted) has no place of its own: the expansion.
        let text = "T=(--sched \"0:16 1B:32\" --micro-batch-size 2)\ntorchrun pretrain_gpt.py ${T[@]}\n";
        let root = parse(text, None).unwrap();
        let micro = text.rfind('2').unwrap();
        assert_eq!(root.get("micro_batch_size").unwrap().span, micro..micro + 1);
        let expansion = text.find("${T[@]}").unwrap();
        assert_eq!(root.get("sched").unwrap().span, expansion..expansion + 7);
    }

    #[test]
    fn a_value_known_only_at_run_time_is_unknown_never_a_default() {
        // An unset `--nnodes "$NUM_NODES"` is not one node.
        let l = one("torchrun --nnodes \"$NUM_NODES\" --nproc_per_node 8 train.py --config c.yaml\n");
        assert_eq!(l.world, None);
        assert!(l.what.contains("--nnodes is known only at run time"), "{}", l.what);
        assert_eq!(one("torchrun --nproc_per_node $1 train.py --config c.yaml\n").world, None, "a positional parameter");
        assert_eq!(one("N=$(nvidia-smi --list-gpus | wc -l)\ntorchrun --nproc_per_node=$N train.py c.yaml\n").world, None);
        assert_eq!(one("N=`nproc`\ntorchrun --nproc_per_node=$N train.py c.yaml\n").world, None);
        assert_eq!(one("torchrun --nproc_per_node=${GPUS%,*} train.py c.yaml\n").world, None, "a pattern operation");
        assert_eq!(one("accelerate launch --num_processes $NPROC train.py --config c.yaml\n").world, None);
        assert_eq!(one("deepspeed --num_gpus $G train.py --deepspeed ds.json\n").world, None);
        // `${V:=d}` assigns the default; `${V:+x}` is empty when V is unset.
        let l = one("torchrun --nproc_per_node ${G:=4} --nnodes 1 ${EXTRA:+--standalone} train.py c.yaml\necho $G\n");
        assert_eq!(l.world, Some(4));
        assert!(l.what.contains("${G:=4} read as 4"), "{}", l.what);
    }

    #[test]
    fn arithmetic_is_evaluated_and_checked() {
        let l = one("NNODES=2\nGPUS=8\nWORLD=$((NNODES * GPUS))\naccelerate launch --num_processes $WORLD train.py --config c.yaml\n");
        assert_eq!(l.world, Some(16));
        assert_eq!(one("accelerate launch --num_processes $(( ($X + 1) * 2 )) train.py c.yaml\n").world, None, "X unset");
        assert_eq!(one("accelerate launch --num_processes $((4/0)) train.py c.yaml\n").world, None, "division by zero");
        assert_eq!(one("accelerate launch --num_processes $((9223372036854775807 + 1)) train.py c.yaml\n").world, None, "overflow");
        assert_eq!(one("G=4\naccelerate launch --num_processes $(( $G * 2 - 1 )) train.py c.yaml\n").world, Some(7));
    }

    #[test]
    fn prefixes_and_wrappers_reach_the_launcher() {
        assert_eq!(one("python -u -m torch.distributed.run --nproc_per_node 4 train.py c.yaml\n").world, Some(4));
        assert_eq!(one("python3 -W ignore -m torch.distributed.launch --nproc_per_node=2 --use_env train.py c.yaml\n").world, Some(2));
        assert_eq!(one("env NCCL_DEBUG=INFO OMP_NUM_THREADS=1 torchrun --nproc_per_node 8 train.py c.yaml\n").world, Some(8));
        assert_eq!(one("uv run --with deepspeed torchrun --nproc_per_node 2 train.py c.yaml\n").world, Some(2));
        assert_eq!(one("nohup torchrun --nproc_per_node 2 train.py c.yaml > log 2>&1 &\n").world, Some(2));
        assert_eq!(one("CUDA_VISIBLE_DEVICES=0,1 exec time torchrun --nproc_per_node 2 train.py c.yaml\n").world, Some(2));
        let l = one("bash -c \"torchrun --nproc_per_node 4 train.py --config c.yaml\"\n");
        assert_eq!((l.world, l.configs.clone()), (Some(4), vec!["c.yaml".to_owned()]));
        // A job submitter passing the command after `--`.
        let l = one("submit_job --gpus 16 --queue a100 -- torchrun --nnodes 2 --nproc_per_node 8 train.py c.yaml\n");
        assert_eq!((l.world, l.configs.clone()), (None, vec!["c.yaml".to_owned()]), "the wrapper decides: {}", l.what);
        assert!(l.what.contains("the command after `--` of `submit_job`") && l.what.contains("says 16"), "{}", l.what);
        // open-instruct: `python mason.py --gpus 8 --num_nodes 2 -- accelerate launch --num_processes 4 …`.
        let l = one(
            "python mason.py --cluster ai2/jupiter --gpus 8 --num_nodes 2 -- accelerate launch --num_processes 4 open_instruct/finetune.py --per_device_train_batch_size 1\n",
        );
        assert_eq!(l.world, None, "{}", l.what);
        assert!(l.what.contains("`mason.py`"), "{}", l.what);
        assert_eq!(one("python foo.py --gpus 8 --per_device_train_batch_size 2\n").world, None, "an unknown program's --gpus is its own");
        // Megatron: `$RANDOM` in one option leaves the others known; an unset options variable hides them.
        let l = one(
            "GPUS_PER_NODE=16\nNNODES=1\nMASTER_PORT=$(($RANDOM + 1024))\nDISTRIBUTED_ARGS=\"--nproc_per_node $GPUS_PER_NODE --nnodes $NNODES --master_port $MASTER_PORT\"\npython -m torch.distributed.run $DISTRIBUTED_ARGS finetune_gpt.py --micro-batch-size 4\n",
        );
        assert_eq!(l.world, Some(16), "{}", l.what);
        assert_eq!(one("torchrun $UNSET_ARGS train.py --config c.yaml\n").world, None);
        assert_eq!(one("srun --unbuffered --nodes 4 torchrun --nproc_per_node 8 train.py c.yaml\n").world, Some(32));
    }

    #[test]
    fn composer_llamafactory_and_slurm_tasks() {
        assert_eq!(one("composer -n 8 train.py yamls/mpt-7b.yaml\n").world, Some(8));
        assert_eq!(one("composer --world_size 16 --nproc 8 train.py yamls/mpt-7b.yaml\n").world, Some(16));
        assert_eq!(one("composer train.py yamls/mpt-7b.yaml\n").world, None, "one process per GPU of the machine");
        let l = one("FORCE_TORCHRUN=1 NNODES=2 NPROC_PER_NODE=8 llamafactory-cli train examples/train_lora/llama3_lora_sft.yaml\n");
        assert_eq!((l.world, l.configs.clone()), (Some(16), vec!["examples/train_lora/llama3_lora_sft.yaml".to_owned()]));
        assert_eq!(one("CUDA_VISIBLE_DEVICES=0 llamafactory-cli train x.yaml\n").world, Some(1));
        assert_eq!(one("CUDA_VISIBLE_DEVICES=0,1,2,3 llamafactory-cli train x.yaml\n").world, Some(4));
        assert_eq!(one("llamafactory-cli train x.yaml\n").world, None, "the machine's device count");
        // Only exported variables reach the program.
        assert_eq!(one("export NPROC_PER_NODE=4\nFORCE_TORCHRUN=1 llamafactory-cli train x.yaml\n").world, Some(4));
        assert_eq!(one("NPROC_PER_NODE=4\nFORCE_TORCHRUN=1 llamafactory-cli train x.yaml\n").world, None);
        let sbatch = "#!/bin/bash\n#SBATCH --ntasks=32\n#SBATCH --gpus-per-task=1\nsrun python train.py --config c.yaml\n";
        assert_eq!(one(sbatch).world, Some(32));
        assert_eq!(one("#SBATCH -n 8\nsrun -n 4 python train.py --config c.yaml\n").world, Some(4), "srun's own --ntasks wins");
    }

    #[test]
    fn deepspeed_files_the_launchers_take() {
        let l = one("accelerate launch --config_file acc.yaml --deepspeed_config_file ds_z3.json train.py --config c.yaml\n");
        assert!(l.configs.contains(&"ds_z3.json".to_owned()) && l.configs.contains(&"c.yaml".to_owned()), "{l:?}");
        let l = one("deepspeed --num_gpus 8 train.py --deepspeed_config=ds.json\n");
        assert_eq!((l.world, l.configs.clone()), (Some(8), vec!["ds.json".to_owned()]));
    }

    #[test]
    fn brace_lists_expand_on_command_words_only() {
        // alignment-handbook's recipes/constitutional-ai/README.md.
        let l = one("accelerate launch --num_processes 8 scripts/sft.py --config recipes/cai/sft/config_{grok,anthropic}.yaml\n");
        assert_eq!(l.configs, vec!["recipes/cai/sft/config_grok.yaml".to_owned(), "recipes/cai/sft/config_anthropic.yaml".to_owned()], "{l:?}");
        assert_eq!(brace_expand("a{1,2}b{x,y}"), Some(vec!["a1bx".into(), "a1by".into(), "a2bx".into(), "a2by".into()]));
        for plain in ["${V:-{a,b}}", "'{a,b}'", "\"{a,b}\"", "{a}", "{1..4}", "x{a,b"] {
            assert_eq!(brace_expand(plain), None, "{plain}");
        }
        assert_eq!(brace_expand(&"{a,b}".repeat(7)), None, "2^7 words is more than the bound");
        // An assignment is not brace-expanded: `C=x{a,b}` holds the text as written.
        let l = one("C=c_{a,b}.yaml\ntorchrun --nproc_per_node 2 train.py --config $C\n");
        assert_eq!(l.configs, vec!["c_{a,b}.yaml".to_owned()], "a variable's value is not brace-expanded where used: {l:?}");
    }

    #[test]
    fn read_from_a_heredoc_sets_the_variable() {
        // OpenRLHF's examples/scripts/train_sft_llama.sh: the flags live in a heredoc.
        let text = "set -x\nZERO=3\nread -r -d '' training_commands <<EOF\nopenrlhf.cli.train_sft \\\n   --max_len 2048 \\\n   --zero_stage $ZERO \\\n   --bf16\nEOF\n\nif [[ ${1} != \"slurm\" ]]; then\n    deepspeed --num_gpus 8 --module $training_commands\nfi\n";
        let l = one(text);
        assert_eq!((l.world, l.flags), (Some(8), true), "{l:?}");
        let root = flags_of_launch(text, l.line).unwrap();
        assert_eq!(root.get("zero_stage").map(|n| n.to_json()), Some(3.into()), "the body is expanded");
        assert_eq!(root.get("max_len").map(|n| n.to_json()), Some(2048.into()));
        assert_eq!(root.get("bf16").map(|n| n.to_json()), Some(true.into()));
        // A quoted delimiter keeps `$ZERO` as text; without `-d ''` only the first line is read.
        let quoted = text.replace("<<EOF", "<<'EOF'");
        let root = flags_of_launch(&quoted, one(&quoted).line).unwrap();
        assert_eq!(root.get("zero_stage").map(|n| n.to_json()), Some("$ZERO".into()));
        // Unquoted, `\<newline>` joins the body into one line, so plain `read` gets it all too;
        // quoted, the first line ends at its backslash.
        let first = text.replace("-d '' ", "");
        assert!(flags_of_launch(&first, one(&first).line).unwrap().get("max_len").is_some());
        let first = quoted.replace("-d '' ", "");
        let root = flags_of_launch(&first, one(&first).line);
        assert!(root.as_ref().is_none_or(|r| r.get("max_len").is_none()), "{root:?}");
    }

    #[test]
    fn eval_reads_the_command_a_variable_holds() {
        // FastChat-style: the command is assembled in a string, then `eval`'d.
        let text = "NPROC=4\nrun_cmd=\"torchrun --nproc_per_node $NPROC train.py --config cfg.yaml --per_device_train_batch_size 2\"\necho $run_cmd\neval \"$run_cmd\"\n";
        let l = one(text);
        assert_eq!((l.world, l.configs.clone(), l.flags), (Some(4), vec!["cfg.yaml".to_owned()], true), "{l:?}");
        // The value is the variable's text verbatim only when nothing was expanded: here `$NPROC` was,
        // so the flags point at the `eval` word; a literal command points into its assignment.
        let literal = "run_cmd=\"torchrun --nproc_per_node 4 train.py --per_device_train_batch_size 2\"\neval \"$run_cmd\"\n";
        let root = flags_of_launch(literal, one(literal).line).unwrap();
        let span = root.get("per_device_train_batch_size").unwrap().span.clone();
        assert_eq!(&literal[span], "2", "inside the assignment");
        // An eval of something known only at run time is not read.
        assert!(launches("eval \"$(build_cmd)\"\n").is_empty());
    }

    #[test]
    fn shebangs_name_shell_scripts() {
        use crate::load::Format;
        for shell in ["#!/bin/bash\n", "#!/usr/bin/env bash\nset -e\n", "#!/bin/sh", "#! /usr/bin/env -S zsh -f\n"] {
            assert_eq!(Format::from_shebang(shell.as_bytes()), Some(Format::Shell), "{shell}");
        }
        for other in ["#!/usr/bin/env python3\n", "model: x\n", "#!", "# bash\n"] {
            assert_eq!(Format::from_shebang(other.as_bytes()), None, "{other}");
        }
    }

    #[test]
    fn heredoc_bodies_are_not_commands() {
        let text = "cat > run.yaml <<EOF\nmodel: x\n\"unbalanced: 'quote\ntorchrun --nproc_per_node 64 fake.py c.yaml\nEOF\ncat <<-'END' | tee b.yaml\n\tx: 1\n\tEND\ntorchrun --nproc_per_node 2 train.py --config run.yaml\n";
        let script = read(text).unwrap();
        assert_eq!(script.heredocs.len(), 2);
        assert_eq!(script.heredocs[0].target.as_deref(), Some("run.yaml"));
        assert!(text[script.heredocs[0].body.clone()].starts_with("model: x\n"));
        let l = one(text);
        assert_eq!((l.world, l.line), (Some(2), 9));
    }

    #[test]
    fn the_run_of_a_script_is_its_training_launch_not_the_first_command_with_flags() {
        let text = "pip install --upgrade transformers\npython -m pip install --no-deps peft\nwandb login --relogin\ntorchrun --nproc_per_node=4 train.py --per_device_train_batch_size 2 --bf16 True --model_max_length 2048\n";
        let root = parse(text, None).unwrap();
        assert_eq!(root.get("per_device_train_batch_size").map(|n| &n.value), Some(&Value::Int(2)));
        assert_eq!(root.get("bf16").map(|n| &n.value), Some(&Value::Bool(true)));
        assert!(root.get("nproc_per_node").is_none(), "the launcher's options are not the program's");
        assert!(root.get("upgrade").is_none());
        // A flag whose value is known only at run time is left out; LightningCLI's dots nest.
        let root = parse("python train.py --per_device_train_batch_size $BS --trainer.devices 2 --lr=1e-4\n", None).unwrap();
        assert!(root.get("per_device_train_batch_size").is_none());
        assert_eq!(root.get_dotted("trainer.devices").map(|n| &n.value), Some(&Value::Int(2)));
        // One field of an options variable points into the assignment.
        let text = "TRAIN_ARGS=\"--per_device_train_batch_size 4 --gradient_accumulation_steps 8\"\ntorchrun --nproc_per_node 2 train.py $TRAIN_ARGS\n";
        let root = parse(text, None).unwrap();
        let micro = root.get("per_device_train_batch_size").unwrap();
        assert_eq!((&micro.value, &text[micro.span.clone()]), (&Value::Int(4), "4"));
        assert_eq!(line_of(text, micro.span.start), 1);
    }
}

#[cfg(test)]
mod hostile {
    use super::*;

    /// Deep nesting and many commands are bounded: no stack overflow, no quadratic line count.
    #[test]
    fn deep_nesting_and_long_scripts_are_bounded() {
        let deep = format!("torchrun --nproc_per_node 2 train.py --x \"{}\"\n", "$(\"".repeat(50_000));
        let _ = read(&deep);
        let defaults = format!("X={}1{}\ntorchrun --nproc_per_node $X train.py c.yaml\n", "${A:-".repeat(5_000), "}".repeat(5_000));
        let _ = launches(&defaults);
        let arithmetic = format!("torchrun --nproc_per_node $(({}1{})) train.py c.yaml\n", "(".repeat(10_000), ")".repeat(10_000));
        let _ = launches(&arithmetic);
        let many = "A=1\n".repeat(200_000) + "torchrun --nproc_per_node 2 train.py c.yaml\n";
        let started = std::time::Instant::now();
        assert_eq!(launches(&many).first().map(|l| (l.world, l.line)), Some((Some(2), 200_001)));
        assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
    }
}
