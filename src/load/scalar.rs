//! Typing of plain YAML scalars by the YAML 1.2 core schema (§10.3.2).
//!
//! YAML 1.2 is what OmegaConf effectively applies to numbers (it adds a float
//! resolver so that `3e-4` is a float, unlike plain PyYAML) and what JSON
//! implies. YAML 1.1 booleans (`yes`, `on`) stay strings here.

use super::tree::Value;

/// `[-+]?0[0-9]+`: an integer written with a leading zero (`010`, `08`). YAML 1.2 reads
/// `010` as 10; YAML 1.1 — PyYAML's `resolver.py` (`[-+]?0[0-7_]+` is octal,
/// `[-+]?(?:0|[1-9][0-9_]*)` decimal) and so OmegaConf, whose `get_yaml_loader` adds only a
/// float resolver to PyYAML's `SafeLoader` — reads `010` as octal 8 and `08` as the string
/// `"08"` (neither pattern matches). The loader keeps such a scalar as text, so that the
/// dialect's reading decides (`pyyaml_retype`, `omegaconf_retype`); where none applies it
/// stays text (an SCH002 type error in the native format), never a guess between 8 and 10.
pub(crate) fn is_leading_zero_integer(text: &str) -> bool {
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    digits.len() > 1 && digits.starts_with('0') && digits.bytes().all(|b| b.is_ascii_digit())
}

pub(crate) fn type_plain_scalar(text: &str) -> Value {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        "true" | "True" | "TRUE" => return Value::Bool(true),
        "false" | "False" | "FALSE" => return Value::Bool(false),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => return Value::Float(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => return Value::Float(f64::NEG_INFINITY),
        ".nan" | ".NaN" | ".NAN" => return Value::Float(f64::NAN),
        _ => {}
    }
    if let Some(int) = parse_core_int(text) {
        return int;
    }
    if is_core_float(text)
        && let Ok(f) = text.parse::<f64>()
    {
        return Value::Float(f);
    }
    Value::Str(text.to_owned())
}

fn parse_core_int(text: &str) -> Option<Value> {
    if let Some(octal) = text.strip_prefix("0o") {
        return (!octal.is_empty() && octal.bytes().all(|b| (b'0'..=b'7').contains(&b))).then(|| i64::from_str_radix(octal, 8).ok().map(Value::Int)).flatten();
    }
    if let Some(hex) = text.strip_prefix("0x") {
        return (!hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit())).then(|| i64::from_str_radix(hex, 16).ok().map(Value::Int)).flatten();
    }
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    match text.parse::<i64>() {
        Ok(i) => Some(Value::Int(i)),
        Err(_) => match digits.parse::<u64>() {
            Ok(u) if !text.starts_with('-') => Some(Value::UInt(u)),
            _ => text.parse::<f64>().ok().map(Value::Float),
        },
    }
}

/// `[-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )?`
fn is_core_float(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    if matches!(bytes.first(), Some(b'-' | b'+')) {
        i += 1;
    }
    let int_start = i;
    while i < bytes.len() && bytes[i].is_ascii_digit() {
        i += 1;
    }
    let int_digits = i - int_start;
    let mut frac_digits = 0;
    if i < bytes.len() && bytes[i] == b'.' {
        i += 1;
        let frac_start = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        frac_digits = i - frac_start;
        if int_digits == 0 && frac_digits == 0 {
            return false;
        }
    } else if int_digits == 0 {
        return false;
    }
    if i < bytes.len() && matches!(bytes[i], b'e' | b'E') {
        i += 1;
        if i < bytes.len() && matches!(bytes[i], b'-' | b'+') {
            i += 1;
        }
        let exp_start = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        if i == exp_start {
            return false;
        }
    }
    let _ = frac_digits;
    i == bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_schema_types() {
        assert_eq!(type_plain_scalar("3e-4"), Value::Float(3e-4));
        assert_eq!(type_plain_scalar("1.0e+5"), Value::Float(1e5));
        assert_eq!(type_plain_scalar(".5"), Value::Float(0.5));
        assert_eq!(type_plain_scalar("48"), Value::Int(48));
        assert_eq!(type_plain_scalar("-3"), Value::Int(-3));
        assert_eq!(type_plain_scalar("0x1F"), Value::Int(31));
        assert_eq!(type_plain_scalar("0o17"), Value::Int(15));
        assert_eq!(type_plain_scalar("True"), Value::Bool(true));
        assert_eq!(type_plain_scalar("~"), Value::Null);
        assert_eq!(type_plain_scalar("yes"), Value::Str("yes".into()));
        assert_eq!(type_plain_scalar("1_000"), Value::Str("1_000".into()));
        assert_eq!(type_plain_scalar("e5"), Value::Str("e5".into()));
        assert_eq!(type_plain_scalar("."), Value::Str(".".into()));
        assert_eq!(type_plain_scalar("1e"), Value::Str("1e".into()));
        assert_eq!(type_plain_scalar("bf16-mixed"), Value::Str("bf16-mixed".into()));
        assert_eq!(type_plain_scalar("18446744073709551615"), Value::UInt(u64::MAX));
    }
}

/// How OmegaConf types a plain scalar where it differs from YAML 1.2: OmegaConf
/// loads with PyYAML's YAML 1.1 resolvers (booleans `yes`/`no`/`on`/`off`,
/// integers with `_` separators, `0b` binary, leading-zero octal) plus its own
/// float resolver, which accepts `1e-4` without a dot (omegaconf `_utils.py`,
/// `get_yaml_loader`). `None` when the 1.2 reading stands.
pub(crate) fn omegaconf_retype(text: &str) -> Option<Value> {
    yaml_1_1_retype(text, false)
}

/// The same for plain PyYAML (`yaml.safe_load`): its YAML 1.1 float pattern needs a dot
/// (`[-+]?[0-9][0-9_]*\.[0-9_]*([eE][-+][0-9]+)?`, PyYAML `resolver.py`), so `1_0e5` stays text.
pub(crate) fn pyyaml_retype(text: &str) -> Option<Value> {
    yaml_1_1_retype(text, true)
}

fn yaml_1_1_retype(text: &str, float_needs_dot: bool) -> Option<Value> {
    match text {
        "yes" | "Yes" | "YES" | "on" | "On" | "ON" => return Some(Value::Bool(true)),
        "no" | "No" | "NO" | "off" | "Off" | "OFF" => return Some(Value::Bool(false)),
        _ => {}
    }
    if !text.contains('_') && !text.starts_with("0b") && !text.trim_start_matches(['-', '+']).starts_with('0') {
        return None;
    }
    let (sign, digits) = match text.strip_prefix('-') {
        Some(rest) => (-1i64, rest),
        None => (1, text.strip_prefix('+').unwrap_or(text)),
    };
    let clean: String = digits.chars().filter(|c| *c != '_').collect();
    if clean.is_empty() || digits.starts_with('_') {
        return None;
    }
    if let Some(binary) = clean.strip_prefix("0b") {
        return i64::from_str_radix(binary, 2).ok().map(|v| Value::Int(sign * v));
    }
    if clean.len() > 1 && clean.starts_with('0') && clean.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
        return i64::from_str_radix(&clean[1..], 8).ok().map(|v| Value::Int(sign * v));
    }
    if clean.bytes().all(|b| b.is_ascii_digit()) && !clean.starts_with('0') {
        return clean.parse::<i64>().ok().map(|v| Value::Int(sign * v));
    }
    if digits.contains('_') && is_core_float(&clean) && digits.chars().next().is_some_and(|c| c.is_ascii_digit()) && (!float_needs_dot || clean.contains('.')) {
        return clean.parse::<f64>().ok().map(|f| Value::Float(sign as f64 * f));
    }
    None
}

#[cfg(test)]
mod omegaconf_tests {
    use super::*;

    #[test]
    fn yaml_11_readings() {
        assert_eq!(omegaconf_retype("55_000"), Some(Value::Int(55000)));
        assert_eq!(omegaconf_retype("yes"), Some(Value::Bool(true)));
        assert_eq!(omegaconf_retype("Off"), Some(Value::Bool(false)));
        assert_eq!(omegaconf_retype("0b101"), Some(Value::Int(5)));
        assert_eq!(omegaconf_retype("0755"), Some(Value::Int(493)));
        assert_eq!(omegaconf_retype("1_000.5"), Some(Value::Float(1000.5)));
        assert_eq!(omegaconf_retype("run_1"), None);
        assert_eq!(omegaconf_retype("0"), None);
        assert_eq!(omegaconf_retype("_1"), None);
        assert_eq!(pyyaml_retype("500_000"), Some(Value::Int(500_000)));
        assert_eq!(pyyaml_retype("1_0e5"), None);
        assert_eq!(omegaconf_retype("1_0e5"), Some(Value::Float(1e6)));
    }

    /// Issue 26 item 7a: `010` is octal 8 to PyYAML and OmegaConf; `08` and `09` match
    /// neither int pattern of PyYAML's resolver and stay strings.
    #[test]
    fn leading_zero_integers_are_octal_or_text_in_yaml_11() {
        for retype in [pyyaml_retype, omegaconf_retype] {
            assert_eq!(retype("010"), Some(Value::Int(8)));
            assert_eq!(retype("-010"), Some(Value::Int(-8)));
            assert_eq!(retype("+017"), Some(Value::Int(15)));
            assert_eq!(retype("00"), Some(Value::Int(0)));
            assert_eq!(retype("08"), None);
            assert_eq!(retype("09"), None);
        }
        assert!(is_leading_zero_integer("010") && is_leading_zero_integer("-08") && is_leading_zero_integer("00"));
        assert!(!is_leading_zero_integer("0") && !is_leading_zero_integer("10") && !is_leading_zero_integer("0x10") && !is_leading_zero_integer("0.5"));
    }
}
