//! Package versions and the version ranges requirement files allow: PEP 440
//! specifiers (`==2.2.*`, `>=2.0,<3`, `~=2.1`; PEP 440 "Version specifiers"),
//! Poetry's `^2.1` / `~2.1` / bare `2.1` (Poetry docs, "Dependency
//! specification") and conda's `=2.2` (a prefix match, conda docs "Package
//! match specifications"). Only what decides "every allowed version is at
//! least X" is kept: the lowest and highest allowed versions.

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

/// A release number, `2.2.1`; pre-release and local parts are dropped
/// (`2.0.0rc1` is read as `2.0.0`, the release it leads to).
#[derive(Clone, Debug)]
pub struct Version(Vec<u64>);

impl Version {
    pub fn new(parts: &[u64]) -> Version {
        Version(parts.to_vec())
    }

    /// The first version after every version starting with the first `len` parts (`2.2` → `2.3`).
    fn bump(&self, len: usize) -> Version {
        let len = len.clamp(1, self.0.len().max(1));
        let mut parts: Vec<u64> = self.0.iter().copied().chain(std::iter::repeat(0)).take(len).collect();
        if let Some(last) = parts.last_mut() {
            *last = last.saturating_add(1);
        }
        Version(parts)
    }
}

impl PartialEq for Version {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Version {}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// `2.0` = `2.0.0` = `2`: missing parts are zeros (PEP 440 "release segment" padding).
impl Ord for Version {
    fn cmp(&self, other: &Self) -> Ordering {
        let len = self.0.len().max(other.0.len());
        (0..len).map(|i| self.0.get(i).unwrap_or(&0).cmp(other.0.get(i).unwrap_or(&0))).find(|o| o.is_ne()).unwrap_or(Ordering::Equal)
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.0.iter().map(u64::to_string).collect();
        f.write_str(&parts.join("."))
    }
}

impl FromStr for Version {
    type Err = String;

    /// `2`, `2.2`, `v2.2.1`, `2.0.0rc1`, `2.2.1+cu121`: the leading numbers.
    fn from_str(text: &str) -> Result<Version, String> {
        let text = text.trim();
        let text = text.strip_prefix(['v', 'V']).unwrap_or(text);
        let mut parts = Vec::new();
        for part in text.split('.') {
            let digits: String = part.chars().take_while(char::is_ascii_digit).collect();
            match digits.parse::<u64>() {
                Ok(n) => parts.push(n),
                Err(_) => break,
            }
            if digits.len() != part.len() {
                break;
            }
        }
        if parts.is_empty() {
            return Err(format!("`{text}` is not a version (write it as numbers with dots, e.g. `2.2`)"));
        }
        Ok(Version(parts))
    }
}

/// The versions a requirement allows, as its bounds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VersionRange {
    /// The lowest allowed version (inclusive, or exclusive for `>`).
    pub min: Option<Version>,
    /// The ceiling, and whether it is allowed itself (`<3`: `(3, false)`; `<=2.2`: `(2.2, true)`).
    pub max: Option<(Version, bool)>,
}

impl VersionRange {
    /// Exactly one version (a lock file's `version = "2.2.1"`).
    pub(crate) fn exact(version: Version) -> VersionRange {
        VersionRange { min: Some(version.clone()), max: Some((version, true)) }
    }

    /// Reads a specifier: PEP 440 clauses separated by commas, Poetry's `^`,
    /// `~` and bare versions, conda's `=`; `*` or nothing allows every version.
    /// Clauses it does not understand (`!=`, an URL) leave the range as wide as it was.
    pub fn parse(spec: &str) -> VersionRange {
        let mut range = VersionRange::default();
        for clause in spec.split(',').map(str::trim).filter(|c| !c.is_empty() && *c != "*") {
            let (operator, rest) = split_operator(clause);
            let rest = rest.trim();
            let (text, wildcard) = match rest.strip_suffix(".*") {
                Some(prefix) => (prefix, true),
                None => (rest, false),
            };
            let Ok(version) = text.parse::<Version>() else { continue };
            let parts = version.0.len();
            let (min, max) = match operator {
                "==" | "===" | "" if wildcard => (Some(version.clone()), Some((version.bump(parts), false))),
                "==" | "===" | "" => (Some(version.clone()), Some((version, true))),
                // conda's `=2.2` is `2.2.*`.
                "=" => (Some(version.clone()), Some((version.bump(parts), false))),
                ">=" | ">" => (Some(version), None),
                "<=" => (None, Some((version, true))),
                "<" => (None, Some((version, false))),
                "~=" => {
                    let max = (parts >= 2).then(|| (version.bump(parts - 1), false));
                    (Some(version), max)
                }
                // Poetry: `^2.1` is `>=2.1,<3`, `^0.3` is `>=0.3,<0.4`.
                "^" => {
                    let first_non_zero = version.0.iter().position(|&p| p != 0).unwrap_or(parts.saturating_sub(1));
                    (Some(version.clone()), Some((version.bump(first_non_zero + 1), false)))
                }
                // Poetry: `~2.1` is `>=2.1,<2.2`, `~2` is `>=2,<3`.
                "~" => (Some(version.clone()), Some((version.bump(parts.min(2)), false))),
                _ => continue,
            };
            if let Some(min) = min
                && range.min.as_ref().is_none_or(|m| &min > m)
            {
                range.min = Some(min);
            }
            if let Some((max, inclusive)) = max
                && range.max.as_ref().is_none_or(|(m, _)| &max < m)
            {
                range.max = Some((max, inclusive));
            }
        }
        range
    }

    /// `Some(true)` when every allowed version is at least `version`,
    /// `Some(false)` when none is, `None` when the range allows both.
    pub(crate) fn at_least(&self, version: &Version) -> Option<bool> {
        if self.min.as_ref().is_some_and(|min| min >= version) {
            return Some(true);
        }
        match &self.max {
            Some((max, true)) if max < version => Some(false),
            Some((max, false)) if max <= version => Some(false),
            _ => None,
        }
    }
}

fn split_operator(clause: &str) -> (&str, &str) {
    for operator in ["===", "==", "~=", ">=", "<=", "!=", ">", "<", "^", "~", "="] {
        if let Some(rest) = clause.strip_prefix(operator) {
            return (operator, rest);
        }
    }
    ("", clause)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at_least_2(spec: &str) -> Option<bool> {
        VersionRange::parse(spec).at_least(&Version::new(&[2, 0]))
    }

    #[test]
    fn specifiers_decide_at_least_two() {
        for spec in ["==2.2.1", ">=2.0", ">=2", "~=2.1", "^2.1", "~2.1", "2.2", "==2.*", "=2.2", ">=2.0,<3", "===2.0.0"] {
            assert_eq!(at_least_2(spec), Some(true), "{spec}");
        }
        for spec in ["==1.9.5", "<2.0", "<=1.9", "~=1.9", "^1.8", "~1.9", "1.9.5", "==1.*", "=1.9", ">=1.6,<2"] {
            assert_eq!(at_least_2(spec), Some(false), "{spec}");
        }
        for spec in ["", "*", ">=1.8", "<3", ">=1.9,<3", "!=1.9.0", "<=2.0"] {
            assert_eq!(at_least_2(spec), None, "{spec}");
        }
    }

    #[test]
    fn versions_compare_with_padding() {
        assert_eq!("2".parse::<Version>().unwrap(), "2.0.0".parse().unwrap());
        assert!("2.0.0rc1".parse::<Version>().unwrap() >= Version::new(&[2]));
        assert_eq!("v2.2.1+cu121".parse::<Version>().unwrap().to_string(), "2.2.1");
        assert!("two".parse::<Version>().is_err());
        assert!(Version::new(&[1, 10]) > Version::new(&[1, 9, 9]));
    }
}
