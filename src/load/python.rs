//! Training scripts' literal settings, read statically (issue 23 item 5): the keyword arguments
//! written as literals in the calls that configure a Hugging Face `Trainer` or TRL run. The file is
//! tokenized, never imported or executed, and nothing it names is run.
//!
//! What is read, into one flat mapping of the names `HfArgumentParser` would read (so the HF
//! dialect reads it as it reads a YAML of the same keys):
//!
//! - **The arguments.** Every keyword argument of the first call of `TrainingArguments`,
//!   `Seq2SeqTrainingArguments` (transformers `training_args.py`, `training_args_seq2seq.py`) or
//!   a TRL config (`SFTConfig`, `DPOConfig`, `GRPOConfig`, … trl `trl/trainer/*_config.py`).
//! - **The trainer's own length arguments.** `max_seq_length`, `max_length`,
//!   `max_prompt_length`, `packing` and `beta` of a `…Trainer(...)` call: TRL before 0.12 took
//!   them there (trl v0.11 `SFTTrainer.__init__`, `DPOTrainer.__init__`).
//! - **The model.** The first argument of `<Model class>.from_pretrained(...)` (a class whose name
//!   starts with `AutoModel` or holds `For…`: `AutoModelForCausalLM`, `LlamaForCausalLM`), with its
//!   `torch_dtype`/`dtype`, `attn_implementation`, `load_in_4bit`/`load_in_8bit`; for a model
//!   built `from_config`, the id of `AutoConfig.from_pretrained(...)`.
//! - **Quantization and adapters.** `BitsAndBytesConfig(load_in_4bit=…)` (transformers
//!   `utils/quantization_config.py`) gives `load_in_4bit`/`load_in_8bit`; `LoraConfig(r=…,
//!   target_modules=…, use_dora=…)` (peft `tuners/lora/config.py`) gives TRL `ModelConfig`'s
//!   `use_peft`, `lora_r`, `lora_target_modules`, `use_dora`.
//! - **`model.gradient_checkpointing_enable()`**, and PEFT's `prepare_model_for_kbit_training(model)`
//!   (which enables it unless `use_gradient_checkpointing=False`), give `gradient_checkpointing`:
//!   the model trains with it whatever the arguments say (the Trainer never turns it off).
//!
//! A literal is a string (not an f-string or bytes), a number (a leading sign allowed), `True`,
//! `False`, `None`, a list or tuple of literals, `torch.bfloat16`-style dtypes (as the dtype's
//! name), or a name the file assigns exactly once, to a literal (the value then points at that
//! assignment: where a fix edits it). Anything else is known only at run time. Where a setting
//! the memory model reads (`MEMORY_KEYS`) is written but not a literal, the model is left out of
//! the mapping: the script's run is not estimated, rather than estimated with a default it does
//! not have.

use super::LoadError;
use super::tree::{Entry, Node, ScalarStyle, Value};
use crate::source::Span;
use std::collections::HashMap;

/// The argument classes whose keyword arguments are the run's settings, by the callee's last name.
const ARGUMENT_CALLS: &[&str] = &[
    "TrainingArguments",
    "Seq2SeqTrainingArguments",
    "SFTConfig",
    "DPOConfig",
    "GRPOConfig",
    "ORPOConfig",
    "KTOConfig",
    "CPOConfig",
    "RewardConfig",
    "PRMConfig",
    "GKDConfig",
    "OnlineDPOConfig",
    "RLOOConfig",
];

/// A trainer's keyword arguments that older TRL releases took on the trainer itself.
const TRAINER_KEYS: &[&str] = &["max_seq_length", "max_length", "max_prompt_length", "packing", "beta"];

/// The settings the memory estimate reads: written but not a literal, the run is not estimated.
const MEMORY_KEYS: &[&str] = &[
    "per_device_train_batch_size",
    "gradient_accumulation_steps",
    "bf16",
    "fp16",
    "gradient_checkpointing",
    "optim",
    "max_seq_length",
    "max_length",
    "max_prompt_length",
    "max_completion_length",
    "num_generations",
    "packing",
    "deepspeed",
    "fsdp",
    "fsdp_config",
    "torch_dtype",
    "dtype",
    "load_in_4bit",
    "load_in_8bit",
    "r",
    "target_modules",
    "use_liger_kernel",
];

/// Whether a text may be a training script: it calls one of `ARGUMENT_CALLS` (the name, then
/// an opening parenthesis). What `discover::walk` collects of `.py` files; a file named on the
/// command line is read whatever it holds.
pub(crate) fn looks_like_training_script(text: &str) -> bool {
    // Every name in `ARGUMENT_CALLS` ends in one of two words: two passes over the text, not one
    // per name (a repository's every `.py` file is read by this when it is walked).
    ["Arguments", "Config"].into_iter().any(|suffix| {
        text.match_indices(suffix).any(|(at, _)| {
            let end = at + suffix.len();
            if !text[end..].trim_start_matches([' ', '\t']).starts_with('(') {
                return false;
            }
            let start = text[..at].char_indices().rev().find(|(_, c)| !(c.is_alphanumeric() || *c == '_')).map_or(0, |(i, c)| i + c.len_utf8());
            ARGUMENT_CALLS.contains(&&text[start..end])
        })
    })
}

#[derive(Clone, Debug, PartialEq)]
enum Kind {
    Name,
    Number,
    /// A string's value, and how it was quoted (`None`: a form a fix does not rewrite: triple
    /// quotes, a prefix, an escape).
    Str(String, Option<ScalarStyle>),
    /// An f-string or a bytes literal: not a literal value.
    Opaque,
    Op,
    /// The end of a logical line (outside brackets).
    Newline,
}

#[derive(Clone, Debug)]
struct Token {
    kind: Kind,
    span: Span,
}

/// Splits Python source into tokens: names, numbers, strings, operators and logical line ends.
/// Comments and line continuations are skipped; newlines inside brackets are not line ends.
fn tokenize(text: &str) -> Vec<Token> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut depth: usize = 0;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'\\' if bytes.get(i + 1) == Some(&b'\n') => i += 2,
            b'\\' if bytes.get(i + 1) == Some(&b'\r') && bytes.get(i + 2) == Some(&b'\n') => i += 3,
            b'\n' => {
                if depth == 0 && tokens.last().is_some_and(|t: &Token| t.kind != Kind::Newline) {
                    tokens.push(Token { kind: Kind::Newline, span: i..i + 1 });
                }
                i += 1;
            }
            _ if c.is_ascii_whitespace() => i += 1,
            b'\'' | b'"' => i = string(text, i, i, &mut tokens),
            _ if c.is_ascii_alphabetic() || c == b'_' || c >= 0x80 => {
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' || bytes[i] >= 0x80) {
                    i += 1;
                }
                let word = &text[start..i];
                // A string prefix (`r'…'`, `f"…"`, `b'…'`, `rb"…"`) directly before a quote.
                if word.len() <= 2 && word.chars().all(|ch| "rRbBuUfF".contains(ch)) && matches!(bytes.get(i), Some(b'\'' | b'"')) {
                    i = string(text, start, i, &mut tokens);
                } else {
                    tokens.push(Token { kind: Kind::Name, span: start..i });
                }
            }
            _ if c.is_ascii_digit() || c == b'.' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit) => {
                let start = i;
                while i < bytes.len() {
                    let b = bytes[i];
                    let exponent_sign = (b == b'+' || b == b'-') && matches!(bytes[i - 1], b'e' | b'E') && !text[start..i].starts_with("0x");
                    if b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || exponent_sign {
                        i += 1;
                    } else {
                        break;
                    }
                }
                tokens.push(Token { kind: Kind::Number, span: start..i });
            }
            _ => {
                let start = i;
                // `=` alone is an assignment or a keyword argument; `==`, `+=`, `:=`, `->`, `**` are not.
                let two = bytes
                    .get(i + 1)
                    .is_some_and(|&next| next == b'=' && b"=!<>+-*/%&|^@:".contains(&c) || (c, next) == (b'-', b'>') || (c, next) == (b'*', b'*'));
                i += if two { 2 } else { 1 };
                match c {
                    b'(' | b'[' | b'{' => depth += 1,
                    b')' | b']' | b'}' => depth = depth.saturating_sub(1),
                    _ => {}
                }
                tokens.push(Token { kind: Kind::Op, span: start..i });
            }
        }
    }
    tokens
}

/// One string literal starting at `quote` (its prefix from `start`): its token, and where it ends.
fn string(text: &str, start: usize, quote: usize, tokens: &mut Vec<Token>) -> usize {
    let bytes = text.as_bytes();
    let prefix = text[start..quote].to_ascii_lowercase();
    let q = bytes[quote];
    let triple = bytes.get(quote + 1) == Some(&q) && bytes.get(quote + 2) == Some(&q);
    let open = if triple { 3 } else { 1 };
    let mut i = quote + open;
    let mut escaped = false;
    let body_start = i;
    let body_end;
    loop {
        let Some(&b) = bytes.get(i) else {
            body_end = i;
            break;
        };
        if b == b'\\' {
            escaped = true;
            i += 2;
            continue;
        }
        if !triple && b == b'\n' {
            // An unterminated one-line string ends at the line: the rest is read as code.
            body_end = i;
            break;
        }
        if b == q && (!triple || bytes.get(i + 1) == Some(&q) && bytes.get(i + 2) == Some(&q)) {
            body_end = i;
            i += open;
            break;
        }
        i += 1;
    }
    let end = i.min(text.len());
    let body = text.get(body_start..body_end.min(text.len())).unwrap_or_default();
    let kind = if prefix.contains('f') || prefix.contains('b') {
        Kind::Opaque
    } else {
        let style = (!triple && prefix.is_empty() && !escaped).then_some(if q == b'"' { ScalarStyle::DoubleQuoted } else { ScalarStyle::SingleQuoted });
        let value = if escaped && !prefix.contains('r') { unescape(body) } else { body.to_owned() };
        Kind::Str(value, style)
    };
    tokens.push(Token { kind, span: start..end });
    end
}

/// The common escapes of a Python string (`\n`, `\t`, `\\`, quotes); others are kept as written.
fn unescape(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some(c @ ('\\' | '\'' | '"')) => out.push(c),
            Some('\n') | None => {}
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    out
}

/// A call's argument: its keyword (and the keyword's span), and its value's tokens.
struct Arg {
    keyword: Option<(String, Span)>,
    value: std::ops::Range<usize>,
}

struct Script<'a> {
    text: &'a str,
    tokens: Vec<Token>,
    /// Every name assigned at statement level (`NAME = …`, `NAME += …`, `for NAME in`, `as NAME`),
    /// with the value's tokens when it is a plain `NAME = value` (else `None`).
    assigned: HashMap<&'a str, Vec<Option<std::ops::Range<usize>>>>,
}

/// The most calls of interest read in one file (trainers, model loads, quantization and adapter
/// configs): a script makes a handful.
const MAX_CALLS_READ: usize = 64;

/// How deep a name may refer to another name before its value counts as unknown.
const MAX_NAME_DEPTH: usize = 8;

impl<'a> Script<'a> {
    fn new(text: &'a str) -> Script<'a> {
        let tokens = tokenize(text);
        let mut assigned: HashMap<&'a str, Vec<Option<std::ops::Range<usize>>>> = HashMap::new();
        let mut depth = 0usize;
        for (i, token) in tokens.iter().enumerate() {
            let t = &text[token.span.clone()];
            if token.kind == Kind::Op {
                match t {
                    "(" | "[" | "{" => depth += 1,
                    ")" | "]" | "}" => depth = depth.saturating_sub(1),
                    _ => {}
                }
                continue;
            }
            if token.kind != Kind::Name || depth != 0 {
                continue;
            }
            let next = tokens.get(i + 1).map(|n| &text[n.span.clone()]);
            let previous = i.checked_sub(1).map(|p| &text[tokens[p].span.clone()]);
            let statement_start = i == 0 || tokens[i - 1].kind == Kind::Newline || previous == Some(":") || previous == Some(";");
            match next {
                Some("=") if statement_start => {
                    let from = (i + 2).min(tokens.len());
                    // To the statement's end: the line's, or a `;` (`a = 1; b = 2`).
                    let to = tokens[from..]
                        .iter()
                        .position(|t| t.kind == Kind::Newline || t.kind == Kind::Op && &text[t.span.clone()] == ";")
                        .map_or(tokens.len(), |p| from + p);
                    assigned.entry(t).or_default().push(Some(from..to));
                }
                // Tuple targets, augmented assignments, loop and `with … as` targets: not constants.
                Some("=" | "," | "+=" | "-=" | "*=" | "/=" | "//=" | "|=" | ":=") => assigned.entry(t).or_default().push(None),
                _ if matches!(previous, Some("for" | "as")) => assigned.entry(t).or_default().push(None),
                _ => {}
            }
        }
        Script { text, tokens, assigned }
    }

    fn text_of(&self, i: usize) -> &'a str {
        &self.text[self.tokens[i].span.clone()]
    }

    fn is_op(&self, i: usize, op: &str) -> bool {
        self.tokens.get(i).is_some_and(|t| t.kind == Kind::Op) && self.text_of(i) == op
    }

    /// The index of the bracket closing the one at `open`, or the end of the tokens.
    fn closing(&self, open: usize) -> usize {
        let mut depth = 0usize;
        for i in open..self.tokens.len() {
            if self.tokens[i].kind != Kind::Op {
                continue;
            }
            match self.text_of(i) {
                "(" | "[" | "{" => depth += 1,
                ")" | "]" | "}" => {
                    depth -= 1;
                    if depth == 0 {
                        return i;
                    }
                }
                _ => {}
            }
        }
        self.tokens.len()
    }

    /// The arguments of the call whose `(` is at `open`.
    fn arguments(&self, open: usize) -> Vec<Arg> {
        let close = self.closing(open);
        let mut args = Vec::new();
        let mut start = open + 1;
        let mut depth = 0usize;
        for i in open + 1..=close.min(self.tokens.len()) {
            let at_end = i == close;
            if !at_end && self.tokens[i].kind == Kind::Op {
                match self.text_of(i) {
                    "(" | "[" | "{" => depth += 1,
                    ")" | "]" | "}" => depth = depth.saturating_sub(1),
                    _ => {}
                }
            }
            if at_end || depth == 0 && self.is_op(i, ",") {
                if start < i {
                    let keyword = (self.tokens[start].kind == Kind::Name && self.is_op(start + 1, "="))
                        .then(|| (self.text_of(start).to_owned(), self.tokens[start].span.clone()));
                    let value = if keyword.is_some() { start + 2..i } else { start..i };
                    args.push(Arg { keyword, value });
                }
                start = i + 1;
            }
        }
        args
    }

    /// The value of an expression, when it is a literal (module doc); `None` when known only at run time.
    fn literal(&self, range: std::ops::Range<usize>, depth: usize) -> Option<Node> {
        if range.is_empty() || depth > MAX_NAME_DEPTH {
            return None;
        }
        let (first, last) = (range.start, range.end - 1);
        let span = self.tokens[first].span.start..self.tokens[last].span.end;
        let scalar = |value: Value, style: Option<ScalarStyle>| Some(Node { value, span: span.clone(), alias: None, style, origin: 0 });
        // A string, or strings written side by side (one value: not one a fix rewrites).
        if self.tokens[range.clone()].iter().all(|t| matches!(t.kind, Kind::Str(..))) {
            let mut joined = String::new();
            let mut style = None;
            for t in &self.tokens[range.clone()] {
                if let Kind::Str(value, s) = &t.kind {
                    joined.push_str(value);
                    style = *s;
                }
            }
            return scalar(Value::Str(joined), if range.len() == 1 { style } else { None });
        }
        if range.len() == 1 {
            let token = &self.tokens[first];
            let text = self.text_of(first);
            return match &token.kind {
                Kind::Number => number(text).and_then(|v| scalar(v, Some(ScalarStyle::Plain))),
                Kind::Name => match text {
                    "True" => scalar(Value::Bool(true), Some(ScalarStyle::Plain)),
                    "False" => scalar(Value::Bool(false), Some(ScalarStyle::Plain)),
                    "None" => scalar(Value::Null, Some(ScalarStyle::Plain)),
                    name => self.constant(name, depth),
                },
                _ => None,
            };
        }
        // A signed number.
        if range.len() == 2 && (self.is_op(first, "-") || self.is_op(first, "+")) && self.tokens[last].kind == Kind::Number {
            let signed = format!("{}{}", self.text_of(first), self.text_of(last));
            return number(&signed).and_then(|v| scalar(v, Some(ScalarStyle::Plain)));
        }
        // `torch.bfloat16`: the dtype's name, as `torch_dtype: bfloat16` says it in a config.
        if range.len() == 3 && self.text_of(first) == "torch" && self.is_op(first + 1, ".") {
            let dtype = match self.text_of(last) {
                "bfloat16" => "bfloat16",
                "float16" | "half" => "float16",
                "float32" | "float" => "float32",
                _ => return None,
            };
            return scalar(Value::Str(dtype.to_owned()), None);
        }
        // A list or a tuple of literals.
        let open = self.text_of(first);
        if (open == "[" || open == "(") && self.closing(first) == last {
            let mut items = Vec::new();
            let mut start = first + 1;
            let mut nesting = 0usize;
            let mut commas = 0;
            for i in first + 1..=last {
                if i < last && self.tokens[i].kind == Kind::Op {
                    match self.text_of(i) {
                        "(" | "[" | "{" => nesting += 1,
                        ")" | "]" | "}" => nesting = nesting.saturating_sub(1),
                        _ => {}
                    }
                }
                if i == last || nesting == 0 && self.is_op(i, ",") {
                    if i < last {
                        commas += 1;
                    }
                    if start < i {
                        items.push(self.literal(start..i, depth + 1)?);
                    }
                    start = i + 1;
                }
            }
            // `(x)` is x; `(x,)` and `[x]` are sequences.
            if open == "(" && commas == 0 && items.len() == 1 {
                return items.pop();
            }
            return scalar(Value::Seq(items), None);
        }
        None
    }

    /// A name the file assigns exactly once, to a literal: that literal, where it is written.
    fn constant(&self, name: &str, depth: usize) -> Option<Node> {
        match self.assigned.get(name).map(Vec::as_slice) {
            Some([Some(range)]) => self.literal(range.clone(), depth + 1),
            _ => None,
        }
    }

    /// Every call in the file: (the callee's dotted name, the index of its `(`).
    fn calls(&self) -> Vec<(Vec<&'a str>, usize)> {
        let mut calls = Vec::new();
        for i in 1..self.tokens.len() {
            if !self.is_op(i, "(") || self.tokens[i - 1].kind != Kind::Name {
                continue;
            }
            let mut parts = vec![self.text_of(i - 1)];
            let mut j = i - 1;
            while j >= 2 && self.is_op(j - 1, ".") && self.tokens[j - 2].kind == Kind::Name {
                parts.insert(0, self.text_of(j - 2));
                j -= 2;
            }
            // `def TrainingArguments(` and `class X(`: a definition, not a call.
            if j >= 1 && self.tokens[j - 1].kind == Kind::Name && matches!(self.text_of(j - 1), "def" | "class") {
                continue;
            }
            calls.push((parts, i));
        }
        calls
    }
}

/// A Python number literal as a value (underscores allowed; hex, octal and binary integers).
fn number(text: &str) -> Option<Value> {
    let clean: String = text.chars().filter(|c| *c != '_').collect();
    let (sign, digits) = match clean.strip_prefix('-') {
        Some(rest) => (-1i64, rest.to_owned()),
        None => (1, clean.trim_start_matches('+').to_owned()),
    };
    let lower = digits.to_ascii_lowercase();
    let radix = [("0x", 16), ("0o", 8), ("0b", 2)].into_iter().find(|(p, _)| lower.starts_with(p));
    if let Some((prefix, radix)) = radix {
        return i64::from_str_radix(&lower[prefix.len()..], radix).ok().and_then(|v| v.checked_mul(sign)).map(Value::Int);
    }
    if lower.chars().all(|c| c.is_ascii_digit()) {
        return lower.parse::<i64>().ok().and_then(|v| v.checked_mul(sign)).map(Value::Int);
    }
    lower.trim_end_matches('j').parse::<f64>().ok().filter(|v| v.is_finite() && !lower.ends_with('j')).map(|v| Value::Float(v * sign as f64))
}

/// A Python file of a test suite, by pytest's default discovery (`test_*.py`, `*_test.py`,
/// `conftest.py`) or under a `tests` or `test` folder: it builds trainers on tiny models, or on real
/// ones it never trains on a GPU, so it is no run (the walker passes it over; named, it is not read
/// as one: `resolve::python_script`).
pub(crate) fn is_test_file(path: &std::path::Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let stem = name.strip_suffix(".py").unwrap_or(name);
    stem.starts_with("test_")
        || stem.ends_with("_test")
        || stem == "conftest"
        || path.parent().is_some_and(|dir| dir.components().any(|c| matches!(c.as_os_str().to_str(), Some("tests" | "test"))))
}

/// Whether an argument call is one of TRL's configs (`SFTConfig`, …), whose defaults differ from
/// `TrainingArguments`' by release (`resolve::python_script`).
pub(crate) fn is_trl_config(call: &str) -> bool {
    let name = call.rsplit('.').next().unwrap_or(call);
    ARGUMENT_CALLS.contains(&name) && !name.ends_with("TrainingArguments")
}

/// What makes a Python file a training config: the first argument call it makes (not one in a
/// comment or a string) and its line (1-based), and the line of the call that trains (`.train(`
/// on a trainer: a receiver whose name holds `trainer`, as in `trainer.train()`,
/// `self.trainer.train()`, or a `…Trainer(...)` call itself). A script that builds arguments but
/// trains nothing (a test comparing logits, a helper) is not a run: `Err` says which is missing.
pub(crate) fn training_call(text: &str) -> Result<(String, usize, usize, Span), &'static str> {
    let script = Script::new(text);
    let calls = script.calls();
    let line = |open: usize| text[..script.tokens[open - 1].span.start].matches('\n').count() + 1;
    let Some((parts, open)) = calls.iter().find(|(parts, _)| parts.last().is_some_and(|n| ARGUMENT_CALLS.contains(n))) else {
        return Err("a Python file that calls no `TrainingArguments` or TRL config");
    };
    let trains = calls.iter().find(|(parts, open)| {
        parts.last() == Some(&"train")
            && (parts.len() >= 2 && parts[parts.len() - 2].to_ascii_lowercase().contains("trainer")
                || parts.len() == 1 && *open >= 3 && script.is_op(open - 2, ".") && script.is_op(open - 3, ")"))
    });
    match trains {
        Some((_, train)) => Ok((parts.join("."), line(*open), line(*train), script.tokens[open - 1].span.clone())),
        None => Err("a Python file that builds training arguments but calls no trainer's `.train()`"),
    }
}

/// Whether a class's `from_pretrained` loads the model trained (not a tokenizer, config or processor).
fn model_class(name: &str) -> bool {
    name.starts_with("AutoModel")
        || name.starts_with("AutoPeftModel")
        || name.match_indices("For").any(|(at, _)| name[at + 3..].starts_with(|c: char| c.is_ascii_uppercase()))
}

/// The settings a training script writes as literals (module doc), as one mapping. Never fails:
/// a file with none of the calls is an empty mapping (not a training config).
pub(crate) fn parse(text: &str) -> Result<Node, LoadError> {
    let script = Script::new(text);
    let mut entries: Vec<Entry> = Vec::new();
    let mut unknown_memory_setting = false;
    let put = |entries: &mut Vec<Entry>, key: &str, key_span: Span, value: Node| {
        if !entries.iter().any(|e| e.key == key) {
            entries.push(Entry { key: key.to_owned(), key_span, key_origin: 0, value });
        }
    };
    let calls = script.calls();
    fn last<'b>(parts: &[&'b str]) -> &'b str {
        parts.last().copied().unwrap_or_default()
    }
    // The arguments: the first argument call's keywords.
    if let Some((_, open)) = calls.iter().find(|(parts, _)| ARGUMENT_CALLS.contains(&last(parts))) {
        for arg in script.arguments(*open) {
            let Some((key, key_span)) = arg.keyword else { continue };
            match script.literal(arg.value, 0) {
                Some(value) => put(&mut entries, &key, key_span, value),
                None => unknown_memory_setting |= MEMORY_KEYS.contains(&key.as_str()),
            }
        }
    }
    let mut model: Option<(Node, Span)> = None;
    let mut model_seen = false;
    let mut config_model: Option<(Node, Span)> = None;
    // The calls read are few in a script; a bound keeps a generated file with thousands of them linear.
    let mut read = 0usize;
    // Where a call enables gradient checkpointing on the model.
    let mut checkpointing: Option<Span> = None;
    for (parts, open) in &calls {
        if read >= MAX_CALLS_READ {
            break;
        }
        let name = last(parts);
        let receiver = parts.len().checked_sub(2).map(|i| parts[i]).unwrap_or_default();
        let args = || script.arguments(*open);
        let keyword_literals = |keys: &[&str], entries: &mut Vec<Entry>, unknown: &mut bool, rename: &dyn Fn(&str) -> String| {
            for arg in args() {
                let Some((key, key_span)) = arg.keyword else { continue };
                if !keys.contains(&key.as_str()) {
                    continue;
                }
                match script.literal(arg.value, 0) {
                    Some(value) => put(entries, &rename(&key), key_span, value),
                    None => *unknown |= MEMORY_KEYS.contains(&key.as_str()),
                }
            }
        };
        if name.ends_with("Trainer")
            || matches!(
                name,
                "from_pretrained" | "from_config" | "BitsAndBytesConfig" | "LoraConfig" | "gradient_checkpointing_enable" | "prepare_model_for_kbit_training"
            )
        {
            read += 1;
        }
        if name.ends_with("Trainer") && !ARGUMENT_CALLS.contains(&name) {
            keyword_literals(TRAINER_KEYS, &mut entries, &mut unknown_memory_setting, &|k| k.to_owned());
        } else if name == "from_pretrained" || name == "from_config" {
            let model_load = model_class(receiver);
            let first = args().into_iter().find(|a| a.keyword.is_none() || a.keyword.as_ref().is_some_and(|(k, _)| k == "pretrained_model_name_or_path"));
            let id = first.and_then(|a| {
                script.literal(a.value.clone(), 0).filter(|n| matches!(n.value, Value::Str(_))).map(|n| (n, script.tokens[a.value.start].span.clone()))
            });
            if model_load {
                // The first model loaded is the one trained; a later one (a reference or reward
                // model) is not, even where the first's name is known only at run time.
                if name == "from_pretrained" && !model_seen {
                    model_seen = true;
                    model = id;
                }
                keyword_literals(
                    &["torch_dtype", "dtype", "attn_implementation", "load_in_4bit", "load_in_8bit"],
                    &mut entries,
                    &mut unknown_memory_setting,
                    &|k| {
                        if k == "dtype" { "torch_dtype".to_owned() } else { k.to_owned() }
                    },
                );
            } else if receiver == "AutoConfig" && name == "from_pretrained" && config_model.is_none() {
                config_model = id;
            }
        } else if name == "BitsAndBytesConfig" {
            keyword_literals(&["load_in_4bit", "load_in_8bit"], &mut entries, &mut unknown_memory_setting, &|k| k.to_owned());
        } else if name == "LoraConfig" {
            let span = script.tokens[open - 1].span.clone();
            put(&mut entries, "use_peft", span.clone(), Node { value: Value::Bool(true), span: span.clone(), alias: None, style: None, origin: 0 });
            keyword_literals(&["r", "target_modules", "use_dora"], &mut entries, &mut unknown_memory_setting, &|k| match k {
                "r" => "lora_r".to_owned(),
                "target_modules" => "lora_target_modules".to_owned(),
                other => other.to_owned(),
            });
        } else if name == "gradient_checkpointing_enable" {
            checkpointing = Some(script.tokens[open - 1].span.clone());
        } else if name == "prepare_model_for_kbit_training" {
            // peft `utils/other.py`: `prepare_model_for_kbit_training(model, use_gradient_checkpointing=True, …)`
            // enables checkpointing unless told not to.
            let told = args().into_iter().find(|a| a.keyword.as_ref().is_some_and(|(k, _)| k == "use_gradient_checkpointing"));
            match told.map(|a| script.literal(a.value, 0).map(|n| n.value)) {
                None | Some(Some(Value::Bool(true))) => checkpointing = checkpointing.or(Some(script.tokens[open - 1].span.clone())),
                Some(Some(Value::Bool(false))) => {}
                Some(_) => unknown_memory_setting = true,
            }
        }
    }
    // A model whose checkpointing a call enables trains with it whatever the arguments say: the
    // Trainer enables it when `gradient_checkpointing` is set and never turns it off (transformers
    // `trainer.py`: `if args.gradient_checkpointing: self.model.gradient_checkpointing_enable(…)`).
    if let Some(span) = checkpointing {
        let on = Node { value: Value::Bool(true), span: span.clone(), alias: None, style: None, origin: 0 };
        match entries.iter_mut().find(|e| e.key == "gradient_checkpointing") {
            Some(entry) if entry.value.value == Value::Bool(false) => entry.value = on,
            Some(_) => {}
            None => put(&mut entries, "gradient_checkpointing", span, on),
        }
    }
    // The model, unless a setting the estimate reads is known only at run time. A model built
    // `from_config` is named by `AutoConfig.from_pretrained`; one loaded by a name known only at
    // run time is not.
    let model = if model_seen { model } else { config_model };
    if !unknown_memory_setting && let Some((id, key_span)) = model {
        put(&mut entries, "model_name_or_path", key_span, id);
    }
    Ok(Node::new(Value::Map(entries), 0..text.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> serde_json::Value {
        parse(text).unwrap().to_json()
    }

    #[test]
    fn literal_keyword_arguments_become_the_runs_settings() {
        let text = "import torch\nMODEL = \"mistralai/Mistral-7B-v0.1\"  # the base\nBATCH = 4\n\
            args = TrainingArguments(\n    output_dir='out',\n    per_device_train_batch_size=BATCH,\n    learning_rate=2e-4,\n    bf16=True,\n    \
            optim_target_modules=[\"attn\", 'mlp'],\n    warmup_ratio=-0.0,\n)\n\
            model = AutoModelForCausalLM.from_pretrained(MODEL, torch_dtype=torch.bfloat16)\n\
            tok = AutoTokenizer.from_pretrained('other/tokenizer')\n\
            trainer = trl.SFTTrainer(model=model, args=args, max_seq_length=512, dataset_text_field='text')\n";
        let json = read(text);
        assert_eq!(json["output_dir"], "out");
        assert_eq!(json["per_device_train_batch_size"], 4);
        assert_eq!(json["learning_rate"], 2e-4);
        assert_eq!(json["bf16"], true);
        assert_eq!(json["optim_target_modules"], serde_json::json!(["attn", "mlp"]));
        assert_eq!(json["model_name_or_path"], "mistralai/Mistral-7B-v0.1");
        assert_eq!(json["torch_dtype"], "bfloat16");
        assert_eq!(json["max_seq_length"], 512);
        assert!(json.get("dataset_text_field").is_none(), "{json}");
        // The batch points at the constant's assignment: where a fix edits it.
        let root = parse(text).unwrap();
        let batch = root.get("per_device_train_batch_size").unwrap();
        assert_eq!(&text[batch.span.clone()], "4");
        assert_eq!(batch.style, Some(ScalarStyle::Plain));
        let model = root.get("model_name_or_path").unwrap();
        assert_eq!(&text[model.span.clone()], "\"mistralai/Mistral-7B-v0.1\"");
    }

    #[test]
    fn a_value_known_only_at_run_time_is_never_a_default() {
        // `bf16` from a function call: the precision is not known, so the run is not estimated.
        let json = read(
            "args = TrainingArguments(output_dir='o', per_device_train_batch_size=2, bf16=torch.cuda.is_bf16_supported())\nm = AutoModelForCausalLM.from_pretrained('gpt2')\n",
        );
        assert!(json.get("bf16").is_none() && json.get("model_name_or_path").is_none(), "{json}");
        assert_eq!(json["per_device_train_batch_size"], 2);
        // A name assigned twice, or in a loop, is no constant.
        let json =
            read("B = 2\nB = 8\nfor lr in (1, 2):\n    pass\nargs = TrainingArguments(output_dir='o', per_device_train_batch_size=B, learning_rate=lr)\n");
        assert!(json.get("per_device_train_batch_size").is_none() && json.get("learning_rate").is_none(), "{json}");
        // f-strings, and calls to anything else, are not literals.
        let json = read("args = TrainingArguments(output_dir=f'out/{name}', logging_steps=len(x))\n");
        assert!(json.get("output_dir").is_none() && json.get("logging_steps").is_none(), "{json}");
    }

    #[test]
    fn the_walkers_test_finds_every_argument_call() {
        for name in ARGUMENT_CALLS {
            assert!(name.ends_with("Arguments") || name.ends_with("Config"), "{name}: `looks_like_training_script` searches by these endings");
            assert!(looks_like_training_script(&format!("x = é.{name} (a=1)")), "{name}");
            assert!(!looks_like_training_script(&format!("x = My{name}(a=1)")), "{name}");
        }
    }

    #[test]
    fn comments_strings_and_definitions_are_not_calls() {
        let text = "# TrainingArguments(per_device_train_batch_size=64)\ns = 'TrainingArguments(per_device_train_batch_size=32)'\n\"\"\"\nTrainingArguments(bf16=True)\n\"\"\"\ndef TrainingArguments(x):\n    pass\n";
        assert_eq!(read(text), serde_json::json!({}));
        assert!(looks_like_training_script(text), "the walker's test is a cheap one; the reader decides");
        assert!(!looks_like_training_script("from transformers import TrainingArguments\nMyTrainingArguments(x)\n"));
    }

    #[test]
    fn quantization_adapters_and_checkpointing_from_their_own_calls() {
        let json = read(
            "bnb = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_compute_dtype=torch.bfloat16)\npeft_config = LoraConfig(r=16, lora_alpha=32, target_modules=['q_proj', 'v_proj'])\n\
             model = LlamaForCausalLM.from_pretrained(\n    'meta-llama/Llama-2-7b-hf',\n    quantization_config=bnb,\n)\nmodel.gradient_checkpointing_enable()\n\
             cfg = SFTConfig(output_dir='o', per_device_train_batch_size=1, gradient_checkpointing=False, max_length=1024)\n",
        );
        assert_eq!(json["load_in_4bit"], true);
        assert_eq!((json["use_peft"].clone(), json["lora_r"].clone()), (serde_json::json!(true), serde_json::json!(16)));
        assert_eq!(json["lora_target_modules"], serde_json::json!(["q_proj", "v_proj"]));
        assert_eq!(json["model_name_or_path"], "meta-llama/Llama-2-7b-hf");
        // The model's own call enables it: the arguments' `False` does not turn it off.
        assert_eq!(json["gradient_checkpointing"], true);
        // PEFT's k-bit preparation enables it unless told not to.
        let prepared = |call: &str| read(&format!("args = TrainingArguments(output_dir='o')\nm = {call}\n"))["gradient_checkpointing"].clone();
        assert_eq!(prepared("prepare_model_for_kbit_training(m)"), true);
        assert_eq!(prepared("prepare_model_for_kbit_training(m, use_gradient_checkpointing=False)"), serde_json::Value::Null);
        assert_eq!(json["max_length"], 1024);
    }

    #[test]
    fn the_first_model_loaded_is_the_one_trained() {
        // A reference model loaded by a literal name after a trained model whose name is known only at run time.
        let json =
            read("m = AutoModelForCausalLM.from_pretrained(args.model)\nref = AutoModelForCausalLM.from_pretrained('gpt2')\nc = DPOConfig(output_dir='o')\n");
        assert!(json.get("model_name_or_path").is_none(), "{json}");
        let json = read(
            "m = AutoModelForCausalLM.from_pretrained('Qwen/Qwen2.5-7B')\nref = AutoModelForCausalLM.from_pretrained('gpt2')\nc = DPOConfig(output_dir='o')\n",
        );
        assert_eq!(json["model_name_or_path"], "Qwen/Qwen2.5-7B");
    }

    #[test]
    fn a_model_built_from_its_config_is_the_configs_model() {
        let json = read(
            "config = AutoConfig.from_pretrained('mistralai/Mistral-7B-v0.1')\nmodel = AutoModelForCausalLM.from_config(config).to(0)\nargs = TrainingArguments(output_dir='x', per_device_train_batch_size=1)\n",
        );
        assert_eq!(json["model_name_or_path"], "mistralai/Mistral-7B-v0.1");
    }

    #[test]
    fn numbers_and_unterminated_text_read_without_panicking() {
        assert_eq!(number("1_000"), Some(Value::Int(1000)));
        assert_eq!(number("-3"), Some(Value::Int(-3)));
        assert_eq!(number("0x10"), Some(Value::Int(16)));
        assert_eq!(number("5e-5"), Some(Value::Float(5e-5)));
        assert_eq!(number("1j"), None);
        assert_eq!(number("99999999999999999999"), None);
        for text in [
            "TrainingArguments(",
            "TrainingArguments(x='",
            "x = '''",
            "TrainingArguments(a=(((",
            "é = 1\nTrainingArguments(é=é)",
            "\\",
            "TrainingArguments(**kw, a=)",
        ] {
            let _ = parse(text);
        }
        // Every prefix of a script, and deterministic byte changes of it (the `load_python` fuzz
        // target explores further): a tree, never a panic.
        let script = "A = 'x'\nargs = TrainingArguments(output_dir=A, per_device_train_batch_size=-2, lr=[1, (2,), \"3\"], bf16=torch.bfloat16)\n\
            m = AutoModelForCausalLM.from_pretrained(f'{A}', r'''q''')  # c\ntrainer.train()\n";
        for end in (0..=script.len()).filter(|&i| script.is_char_boundary(i)) {
            let _ = parse(&script[..end]);
            let _ = training_call(&script[..end]);
        }
        // Generated files stay linear: many statements on one line, many trainer calls.
        let many = "a=1;".repeat(50_000) + &"SFTTrainer(max_seq_length=1)\n".repeat(20_000) + "TrainingArguments(output_dir='o')\n";
        let started = std::time::Instant::now();
        assert_eq!(parse(&many).unwrap().get("max_seq_length").map(|n| n.to_json()), Some(serde_json::json!(1)));
        assert!(started.elapsed() < std::time::Duration::from_secs(5), "{:?}", started.elapsed());
        let alphabet = b"()[]{}'\"=,.#\\\n -0e_rfTx";
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..2_000 {
            let mut bytes = script.as_bytes().to_vec();
            for _ in 0..4 {
                state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                let at = (state >> 33) as usize % bytes.len();
                bytes[at] = alphabet[(state >> 13) as usize % alphabet.len()];
            }
            if let Ok(text) = std::str::from_utf8(&bytes) {
                let _ = parse(text);
                let _ = training_call(text);
            }
        }
    }
}
