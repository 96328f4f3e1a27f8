//! Safe arithmetic for user memory terms: numbers, names, + − × ÷, parentheses,
//! `min`/`max`, `^` for integer powers, and byte units. Nothing is executed:
//! a name is looked up in the resolved config, never evaluated as code.
//!
//! `micro_batch * settings.model.max_peaks * (settings.loss.max_mz / settings.loss.bin_size) * 4 B`

use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Number(f64),
    Name(String),
    Neg(Box<Expr>),
    Binary(Box<Expr>, Op, Box<Expr>),
    Call(Function, Vec<Expr>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Function {
    Min,
    Max,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ParseError {
    pub message: String,
    /// Character offset in the expression.
    pub at: usize,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (at character {})", self.message, self.at + 1)
    }
}

/// Byte units: binary (KiB, MiB, GiB, TiB) and decimal (KB, MB, GB, TB), and `B`.
pub(crate) fn unit(name: &str) -> Option<f64> {
    Some(match name {
        "B" | "bytes" => 1.0,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        "TiB" => 1024.0f64.powi(4),
        "KB" | "kB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "TB" => 1e12,
        _ => return None,
    })
}

/// Longest expression accepted, and deepest nesting: a term is one line of arithmetic.
const MAX_LENGTH: usize = 2_000;
const MAX_DEPTH: usize = 64;

pub fn parse(text: &str) -> Result<Expr, ParseError> {
    if text.len() > MAX_LENGTH {
        return Err(ParseError { message: format!("expression longer than {MAX_LENGTH} characters"), at: 0 });
    }
    let tokens = tokenize(text)?;
    let mut parser = Parser { tokens, position: 0, depth: 0 };
    let expr = parser.sum()?;
    match parser.tokens.get(parser.position) {
        None => Ok(expr),
        Some((token, at)) => Err(ParseError { message: format!("unexpected {token}"), at: *at }),
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Token {
    Number(f64),
    Name(String),
    Op(char),
    Open,
    Close,
    Comma,
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Token::Number(n) => write!(f, "number {n}"),
            Token::Name(n) => write!(f, "name `{n}`"),
            Token::Op(c) => write!(f, "`{c}`"),
            Token::Open => f.write_str("`(`"),
            Token::Close => f.write_str("`)`"),
            Token::Comma => f.write_str("`,`"),
        }
    }
}

fn tokenize(text: &str) -> Result<Vec<(Token, usize)>, ParseError> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let start = i;
        match c {
            ' ' | '\t' => i += 1,
            '0'..='9' | '.' => {
                while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.' || chars[i] == '_') {
                    i += 1;
                }
                // An exponent: 3e-4, 1.5E6.
                if i < chars.len() && (chars[i] == 'e' || chars[i] == 'E') {
                    let mut j = i + 1;
                    if j < chars.len() && (chars[j] == '+' || chars[j] == '-') {
                        j += 1;
                    }
                    if j < chars.len() && chars[j].is_ascii_digit() {
                        i = j;
                        while i < chars.len() && chars[i].is_ascii_digit() {
                            i += 1;
                        }
                    }
                }
                let literal: String = chars[start..i].iter().filter(|c| **c != '_').collect();
                let value = literal.parse::<f64>().map_err(|_| ParseError { message: format!("invalid number `{literal}`"), at: start })?;
                tokens.push((Token::Number(value), start));
            }
            'a'..='z' | 'A'..='Z' | '_' => {
                while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_' || chars[i] == '.') {
                    i += 1;
                }
                tokens.push((Token::Name(chars[start..i].iter().collect()), start));
            }
            '+' | '-' | '*' | '/' | '^' => {
                tokens.push((Token::Op(c), start));
                i += 1;
            }
            '×' => {
                tokens.push((Token::Op('*'), start));
                i += 1;
            }
            '÷' => {
                tokens.push((Token::Op('/'), start));
                i += 1;
            }
            '−' => {
                tokens.push((Token::Op('-'), start));
                i += 1;
            }
            '(' => {
                tokens.push((Token::Open, start));
                i += 1;
            }
            ')' => {
                tokens.push((Token::Close, start));
                i += 1;
            }
            ',' => {
                tokens.push((Token::Comma, start));
                i += 1;
            }
            other => return Err(ParseError { message: format!("unexpected character `{other}`"), at: start }),
        }
    }
    Ok(tokens)
}

struct Parser {
    tokens: Vec<(Token, usize)>,
    position: usize,
    depth: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.position).map(|(t, _)| t)
    }

    fn at(&self) -> usize {
        self.tokens.get(self.position).map_or_else(|| self.tokens.last().map_or(0, |(_, a)| a + 1), |(_, a)| *a)
    }

    fn sum(&mut self) -> Result<Expr, ParseError> {
        let mut left = self.product()?;
        while let Some(Token::Op(op @ ('+' | '-'))) = self.peek().cloned() {
            self.position += 1;
            let right = self.product()?;
            left = Expr::Binary(Box::new(left), if op == '+' { Op::Add } else { Op::Sub }, Box::new(right));
        }
        Ok(left)
    }

    /// Products, including juxtaposed units: `4 B`, `1000 MiB`.
    fn product(&mut self) -> Result<Expr, ParseError> {
        let mut left = self.power()?;
        loop {
            match self.peek().cloned() {
                Some(Token::Op(op @ ('*' | '/'))) => {
                    self.position += 1;
                    let right = self.power()?;
                    left = Expr::Binary(Box::new(left), if op == '*' { Op::Mul } else { Op::Div }, Box::new(right));
                }
                Some(Token::Name(name)) if unit(&name).is_some() => {
                    self.position += 1;
                    left = Expr::Binary(Box::new(left), Op::Mul, Box::new(Expr::Number(unit(&name).unwrap_or(1.0))));
                }
                _ => return Ok(left),
            }
        }
    }

    fn power(&mut self) -> Result<Expr, ParseError> {
        let base = self.unary()?;
        if let Some(Token::Op('^')) = self.peek() {
            self.position += 1;
            let exponent = self.unary()?;
            return Ok(Expr::Binary(Box::new(base), Op::Pow, Box::new(exponent)));
        }
        Ok(base)
    }

    fn unary(&mut self) -> Result<Expr, ParseError> {
        if let Some(Token::Op('-')) = self.peek() {
            self.position += 1;
            return Ok(Expr::Neg(Box::new(self.unary()?)));
        }
        self.atom()
    }

    fn atom(&mut self) -> Result<Expr, ParseError> {
        let at = self.at();
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(ParseError { message: format!("nested deeper than {MAX_DEPTH} levels"), at });
        }
        let result = match self.tokens.get(self.position).cloned() {
            Some((Token::Number(n), _)) => {
                self.position += 1;
                Ok(Expr::Number(n))
            }
            Some((Token::Open, _)) => {
                self.position += 1;
                let inner = self.sum()?;
                self.expect_close()?;
                Ok(inner)
            }
            Some((Token::Name(name), _)) => {
                self.position += 1;
                let function = match name.as_str() {
                    "min" => Some(Function::Min),
                    "max" => Some(Function::Max),
                    _ => None,
                };
                match (function, self.peek()) {
                    (Some(function), Some(Token::Open)) => {
                        self.position += 1;
                        let mut args = vec![self.sum()?];
                        while let Some(Token::Comma) = self.peek() {
                            self.position += 1;
                            args.push(self.sum()?);
                        }
                        self.expect_close()?;
                        Ok(Expr::Call(function, args))
                    }
                    _ if unit(&name).is_some() => Ok(Expr::Number(unit(&name).unwrap_or(1.0))),
                    _ => Ok(Expr::Name(name)),
                }
            }
            Some((token, at)) => Err(ParseError { message: format!("unexpected {token}"), at }),
            None => Err(ParseError { message: "unexpected end of expression".into(), at }),
        };
        self.depth -= 1;
        result
    }

    fn expect_close(&mut self) -> Result<(), ParseError> {
        match self.peek() {
            Some(Token::Close) => {
                self.position += 1;
                Ok(())
            }
            _ => Err(ParseError { message: "expected `)`".into(), at: self.at() }),
        }
    }
}

impl Expr {
    /// Evaluates with `lookup` for names; the error names an unknown name.
    pub fn eval(&self, lookup: &dyn Fn(&str) -> Option<f64>) -> Result<f64, String> {
        Ok(match self {
            Expr::Number(n) => *n,
            Expr::Name(name) => lookup(name).ok_or_else(|| format!("`{name}` is not a number in the config"))?,
            Expr::Neg(inner) => -inner.eval(lookup)?,
            Expr::Binary(left, op, right) => {
                let (a, b) = (left.eval(lookup)?, right.eval(lookup)?);
                match op {
                    Op::Add => a + b,
                    Op::Sub => a - b,
                    Op::Mul => a * b,
                    Op::Div if b == 0.0 => return Err("division by zero".into()),
                    Op::Div => a / b,
                    Op::Pow if b.fract() != 0.0 || !(0.0..=16.0).contains(&b) => return Err("`^` takes a whole exponent from 0 to 16".into()),
                    Op::Pow => a.powi(b as i32),
                }
            }
            Expr::Call(function, args) => {
                let values = args.iter().map(|a| a.eval(lookup)).collect::<Result<Vec<_>, _>>()?;
                match function {
                    Function::Min => values.into_iter().fold(f64::INFINITY, f64::min),
                    Function::Max => values.into_iter().fold(f64::NEG_INFINITY, f64::max),
                }
            }
        })
    }

    /// The names the expression reads (what a term depends on).
    pub(crate) fn names(&self) -> Vec<String> {
        let mut out = Vec::new();
        self.collect_names(&mut out);
        out.dedup();
        out
    }

    fn collect_names(&self, out: &mut Vec<String>) {
        match self {
            Expr::Name(n) if !out.contains(n) => out.push(n.clone()),
            Expr::Neg(inner) => inner.collect_names(out),
            Expr::Binary(a, _, b) => {
                a.collect_names(out);
                b.collect_names(out);
            }
            Expr::Call(_, args) => args.iter().for_each(|a| a.collect_names(out)),
            _ => {}
        }
    }
}

/// A quantity with an optional unit: `131 MiB`, `4 GB`, `1000000` (bytes).
pub(crate) fn quantity(text: &str) -> Result<f64, String> {
    let expr = parse(text).map_err(|e| e.to_string())?;
    expr.eval(&|_| None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(text: &str) -> f64 {
        let lookup = |name: &str| match name {
            "micro_batch" => Some(96.0),
            "settings.model.max_peaks" => Some(100.0),
            "settings.loss.max_mz" => Some(2000.0),
            "settings.loss.bin_size" => Some(0.1),
            _ => None,
        };
        parse(text).unwrap().eval(&lookup).unwrap()
    }

    #[test]
    fn seed_000_spectrum_loss() {
        // 96 × 100 × 20,000 bins × 4 B = 768,000,000 B ≈ 0.8 GB (the seed's figure).
        let bytes = eval("micro_batch * settings.model.max_peaks * (settings.loss.max_mz / settings.loss.bin_size) * 4 B");
        assert!((bytes - 768_000_000.0).abs() < 1.0, "{bytes}");
        assert_eq!(eval("micro_batch × 2 ÷ 4"), 48.0);
    }

    #[test]
    fn units_precedence_functions() {
        assert_eq!(eval("1000 MiB"), 1000.0 * 1048576.0);
        assert_eq!(eval("2 + 3 * 4"), 14.0);
        assert_eq!(eval("(2 + 3) * 4"), 20.0);
        assert_eq!(eval("150^2 * 4 B"), 90000.0);
        assert_eq!(eval("min(3, 1, 2) + max(1, 5)"), 6.0);
        assert_eq!(eval("-2 * 3"), -6.0);
        assert_eq!(eval("3e-4 * 1_000"), 0.3);
        assert_eq!(eval("1 GB + 1 KiB"), 1e9 + 1024.0);
    }

    #[test]
    fn errors_are_clear_and_nothing_runs() {
        assert!(parse("2 +").is_err());
        assert!(parse("(2").is_err());
        assert!(parse("__import__('os')").is_err());
        assert!(parse("a; b").is_err());
        assert!(parse(&"(".repeat(10_000)).is_err());
        assert!(parse("unknown_name * 2").unwrap().eval(&|_| None).unwrap_err().contains("unknown_name"));
        assert!(parse("1 / 0").unwrap().eval(&|_| None).is_err());
        assert!(parse("2 ^ 100").unwrap().eval(&|_| None).is_err());
    }
}
