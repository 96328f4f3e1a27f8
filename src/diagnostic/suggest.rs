//! "Did you mean": the nearest known name to an unknown one (unknown keys,
//! rule selectors, GPU ids).
//!
//! Names are compared normalised: ASCII lowercase, without `-` and `_`
//! (`micro-Batch` and `micro_batch` are the same name). The comparisons
//! allocate nothing per known name: the unknown name is normalised once, each
//! known name into one reused buffer, and the edit distance uses one reused
//! row. The framework dialects' static key sets are normalised once per run
//! (`NormalizedKeys::of`).

use std::collections::HashMap;
use std::sync::Mutex;

/// The closest known key, when it is close enough to be a typo.
///
/// The first known key equal to `unknown` once normalised wins; otherwise the
/// first of the nearest within a third of `unknown`'s length (at least one edit).
pub(crate) fn suggest<'k>(unknown: &str, known: &'k [String]) -> Option<&'k str> {
    let mut scratch = Scratch::default();
    let target: Vec<char> = normalized_chars(unknown).collect();
    let threshold = (unknown.chars().count() / 3).max(1);
    let mut best: Option<(usize, &'k str)> = None;
    for k in known {
        scratch.name.clear();
        scratch.name.extend(normalized_chars(k));
        // Equal once normalised (distance 0): the first such key, as before.
        if scratch.name == target {
            return Some(k);
        }
        // The distance is at least the difference in length: past the threshold, no need to compute it.
        if target.len().abs_diff(scratch.name.len()) > threshold {
            continue;
        }
        let bound = best.map_or(threshold, |(d, _)| d.saturating_sub(1)).min(threshold);
        let d = bounded_levenshtein(&target, &scratch.name, bound, &mut scratch.row);
        // `<`: the first of equally near keys wins (`min_by_key`'s rule).
        if d <= bound && best.is_none_or(|(b, _)| d < b) {
            best = Some((d, k.as_str()));
        }
    }
    best.map(|(_, k)| k)
}

/// Edit distance without a bound (the tests' reference).
#[cfg(test)]
fn levenshtein_public(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    bounded_levenshtein(&a, &b, usize::MAX, &mut Vec::new())
}

/// A name as the comparisons see it: ASCII lowercase, `-` and `_` dropped.
fn normalized_chars(s: &str) -> impl Iterator<Item = char> + '_ {
    s.chars().filter(|c| !matches!(c, '-' | '_')).map(|c| c.to_ascii_lowercase())
}

/// Buffers reused across comparisons.
#[derive(Default)]
struct Scratch {
    name: Vec<char>,
    row: Vec<usize>,
}

/// The edit distance of `a` and `b` when it is at most `bound`; some value
/// over `bound` otherwise (the computation stops once every cell of a row
/// exceeds it: a row's minimum never decreases further down). `row` is scratch.
fn bounded_levenshtein(a: &[char], b: &[char], bound: usize, row: &mut Vec<usize>) -> usize {
    row.clear();
    row.extend(0..=b.len());
    for (i, &ca) in a.iter().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        let mut row_min = row[0];
        for (j, &cb) in b.iter().enumerate() {
            let substitution = previous + usize::from(ca != cb);
            previous = row[j + 1];
            let cell = substitution.min(row[j] + 1).min(previous + 1);
            row[j + 1] = cell;
            row_min = row_min.min(cell);
        }
        if row_min > bound {
            return row_min;
        }
    }
    row[b.len()]
}

/// A static set of known keys, normalised once: the keys a framework dialect
/// knows (`KnownKeys::keys`), for SCH003's near-miss search.
pub(crate) struct NormalizedKeys {
    keys: Vec<Vec<char>>,
    /// Each key's `char_classes`.
    classes: Vec<u64>,
}

/// The classes of the characters in a name, one bit each (`a`–`z`, `0`–`9`, and the rest by
/// code point in 28 more). Each class one name has and the other lacks needs an edit of its
/// own, so the larger count of such classes is a lower bound of the edit distance: names with
/// no letter in common are told apart without computing it.
fn char_classes(name: &[char]) -> u64 {
    name.iter().fold(0, |mask, &c| {
        let bit = match c {
            'a'..='z' => c as u32 - 'a' as u32,
            '0'..='9' => 26 + (c as u32 - '0' as u32),
            _ => 36 + c as u32 % 28,
        };
        mask | 1 << bit
    })
}

/// `char_classes`' lower bound of the edit distance of two names.
fn classes_apart(a: u64, b: u64) -> usize {
    (a & !b).count_ones().max((b & !a).count_ones()) as usize
}

/// Normalised key sets by the address and length of their static slice (a
/// `'static` slice is never freed, so an address always names the same keys).
static NORMALIZED: Mutex<Option<HashMap<(usize, usize), &'static NormalizedKeys>>> = Mutex::new(None);

impl NormalizedKeys {
    /// The normalised form of `keys`, built on first use and kept for the run.
    pub(crate) fn of(keys: &'static [&'static str]) -> &'static NormalizedKeys {
        let slot = (keys.as_ptr() as usize, keys.len());
        let mut cache = NORMALIZED.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        cache.get_or_insert_with(HashMap::new).entry(slot).or_insert_with(|| {
            // One per distinct key set (a handful of dialect tables): kept for the process.
            let keys: Vec<Vec<char>> = keys.iter().map(|k| normalized_chars(k).collect()).collect();
            let classes = keys.iter().map(|k| char_classes(k)).collect();
            Box::leak(Box::new(NormalizedKeys { keys, classes }))
        })
    }

    /// Whether `key` is within `max_edits` edits of one of the keys (both normalised).
    pub(crate) fn any_within(&self, key: &str, max_edits: usize, scratch: &mut KeyScratch) -> bool {
        scratch.key.clear();
        scratch.key.extend(normalized_chars(key));
        let key = &scratch.key;
        let classes = char_classes(key);
        self.keys.iter().zip(&self.classes).any(|(k, &k_classes)| {
            // Two names whose lengths differ by more than `max_edits`, or with more than
            // `max_edits` character classes apart, are further apart: skip the distance (most
            // keys of a config are far from all known ones).
            key.len().abs_diff(k.len()) <= max_edits
                && classes_apart(classes, k_classes) <= max_edits
                && (key == k || bounded_levenshtein(key, k, max_edits, &mut scratch.row) <= max_edits)
        })
    }
}

/// Buffers reused by `NormalizedKeys::any_within` across the keys of a mapping.
#[derive(Default)]
pub(crate) struct KeyScratch {
    key: Vec<char>,
    row: Vec<usize>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The implementation before the buffers and bounds: the reference.
    fn reference_suggest<'k>(unknown: &str, known: &'k [String]) -> Option<&'k str> {
        let normalized = |s: &str| s.to_ascii_lowercase().replace(['-', '_'], "");
        let target = normalized(unknown);
        if let Some(same) = known.iter().find(|k| normalized(k) == target) {
            return Some(same);
        }
        let threshold = (unknown.chars().count() / 3).max(1);
        known.iter().map(|k| (levenshtein_public(&target, &normalized(k)), k)).filter(|(d, _)| *d <= threshold).min_by_key(|(d, _)| *d).map(|(_, k)| k.as_str())
    }

    fn reference_levenshtein(a: &str, b: &str) -> usize {
        let b: Vec<char> = b.chars().collect();
        let mut row: Vec<usize> = (0..=b.len()).collect();
        for (i, ca) in a.chars().enumerate() {
            let mut previous = row[0];
            row[0] = i + 1;
            for (j, &cb) in b.iter().enumerate() {
                let substitution = previous + usize::from(ca != cb);
                previous = row[j + 1];
                row[j + 1] = substitution.min(row[j] + 1).min(previous + 1);
            }
        }
        row[b.len()]
    }

    const WORDS: &[&str] = &[
        "",
        "a",
        "ab",
        "ba",
        "abc",
        "micro_batch",
        "micro-Batch",
        "microbatch",
        "micro_bach",
        "macro_batch",
        "accumulation",
        "accumulaton",
        "global_batch",
        "effective_batch",
        "learning_rate",
        "lr",
        "LR",
        "train_batch_size",
        "train_micro_batch_size_per_gpu",
        "gradient_accumulation_steps",
        "gradient_accumulation_step",
        "per_device_train_batch_size",
        "per_device_eval_batch_size",
        "größe",
        "grösse",
        "_comment",
        "__",
        "batch_size",
        "batchsize",
        "batch",
        "batches",
        "bs",
    ];

    #[test]
    fn distances_match_the_reference() {
        let mut row = Vec::new();
        for a in WORDS {
            for b in WORDS {
                let exact = reference_levenshtein(a, b);
                assert_eq!(levenshtein_public(a, b), exact, "{a} / {b}");
                let (ac, bc): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
                for bound in 0..4 {
                    let d = bounded_levenshtein(&ac, &bc, bound, &mut row);
                    assert_eq!(d <= bound, exact <= bound, "{a} / {b} within {bound}");
                    if exact <= bound {
                        assert_eq!(d, exact, "{a} / {b} within {bound}");
                    }
                }
            }
        }
    }

    #[test]
    fn suggestions_match_the_reference() {
        // Every ordered subset of a few sizes, so ties and first-wins orders are covered.
        let owned: Vec<String> = WORDS.iter().map(|s| s.to_string()).collect();
        for unknown in WORDS {
            for start in 0..owned.len() {
                for len in [1, 2, 3, 5, 8, owned.len()] {
                    let known: Vec<String> = owned.iter().cycle().skip(start).take(len).cloned().collect();
                    assert_eq!(suggest(unknown, &known), reference_suggest(unknown, &known), "{unknown} in {known:?}");
                }
            }
            let mut reversed = owned.clone();
            reversed.reverse();
            assert_eq!(suggest(unknown, &reversed), reference_suggest(unknown, &reversed), "{unknown}");
        }
    }

    /// The character classes' bound never exceeds the edit distance (so skipping by it never
    /// drops a near miss), and it does tell names apart.
    #[test]
    fn character_classes_bound_the_edit_distance() {
        let mut apart = 0;
        for a in WORDS.iter().chain(&["ßtraße", "naïve_ключ", "a.b/c", "x-1_y"]) {
            for b in WORDS.iter().chain(&["strasse", "naive_key", "ab/c", "x1y"]) {
                let (na, nb): (Vec<char>, Vec<char>) = (normalized_chars(a).collect(), normalized_chars(b).collect());
                let bound = classes_apart(char_classes(&na), char_classes(&nb));
                let distance = reference_levenshtein(&na.iter().collect::<String>(), &nb.iter().collect::<String>());
                assert!(bound <= distance, "{a} / {b}: bound {bound} > distance {distance}");
                apart += usize::from(bound > 2);
            }
        }
        assert!(apart > 100, "the bound skips most pairs: {apart}");
    }

    static KEYS: [&str; 4] = ["micro_batch", "accumulation", "global_batch", "lr"];

    #[test]
    fn near_misses_match_the_reference() {
        let normalized = |s: &str| s.to_ascii_lowercase().replace(['-', '_'], "");
        let keys = NormalizedKeys::of(&KEYS);
        assert!(std::ptr::eq(keys, NormalizedKeys::of(&KEYS)), "built once per key set");
        let mut scratch = KeyScratch::default();
        for word in WORDS {
            let key = normalized(word);
            let reference = KEYS.iter().any(|k| {
                let k = normalized(k);
                key.chars().count().abs_diff(k.chars().count()) <= 2 && (key == k || reference_levenshtein(&key, &k) <= 2)
            });
            assert_eq!(keys.any_within(word, 2, &mut scratch), reference, "{word}");
        }
    }
}
