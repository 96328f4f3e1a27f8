//! Issue 24: a random sample of 30 of the corpus's MEM001/MEM002 verdicts, each judged by hand
//! from the framework's own code, in book/src/memory.md ("Corpus verdicts checked by hand").
//!
//! The sample is drawn here, from `trainlint check ../shared/corpus --gpu rtx-4090`: every
//! MEM001 and MEM002 finding ordered by the FNV-1a hash of `SEED`, its file and its code, the
//! first 30 kept (a finding's place depends on it alone: a change elsewhere does not reshuffle). The book's table must list exactly these (file, code) pairs:
//! when a verdict changes, this test fails and the changed rows must be judged again
//! (`TRAINLINT_WRITE_BOOK=1 cargo test --test verdict_sample` rewrites the table, keeping the
//! judgement of every row still drawn and leaving the new ones to judge). Every row needs a
//! judgement ("right", "wrong" or "unsure", then why). Issue 24 asks for at least 28 right; the
//! count reached is held as a regression bar (`RIGHT_WAS`) until then.

mod common;

use std::collections::BTreeMap;

const SEED: u64 = 24;
const SAMPLE: usize = 30;
/// Judged right on 2026-11-27 (issue 24 asks for 28; 26 before the fifth session): the wrong
/// ones and their causes are in book/src/memory.md.
const RIGHT_WAS: usize = 27;
const START: &str = "<!-- verdict-sample: generated rows, judged by hand; tests/verdict_sample.rs -->";
const END: &str = "<!-- /verdict-sample -->";

struct Drawn {
    file: String,
    code: String,
    message: String,
}

/// The findings the sample is drawn from, sorted.
fn findings() -> Vec<Drawn> {
    let output = common::trainlint(&["check", "../shared/corpus", "--gpu", "rtx-4090", "--output-format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&common::stdout(&output)).expect("check's JSON");
    let mut out: Vec<Drawn> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "MEM001" || d["code"] == "MEM002")
        .map(|d| Drawn {
            file: d["file"].as_str().unwrap().trim_start_matches("../shared/corpus/").to_owned(),
            code: d["code"].as_str().unwrap().to_owned(),
            message: d["message"].as_str().unwrap().to_owned(),
        })
        .collect();
    out.sort_by(|a, b| (&a.file, &a.code, &a.message).cmp(&(&b.file, &b.code, &b.message)));
    out
}

/// FNV-1a 64 of the seed, the file and the code: a finding's place in the draw depends on it
/// alone, so a verdict that appears or goes elsewhere does not reshuffle the rest.
fn key(d: &Drawn) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in SEED.to_le_bytes().iter().chain(d.file.as_bytes()).chain(b"\0").chain(d.code.as_bytes()) {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// The `n` findings with the smallest keys.
fn draw(mut all: Vec<Drawn>, n: usize) -> Vec<Drawn> {
    all.sort_by_key(key);
    all.truncate(n);
    all
}

#[test]
fn the_hand_checked_verdict_sample_is_the_one_the_binary_draws() {
    if common::shared().is_none() {
        eprintln!("../shared not present: skipped");
        return;
    }
    let sample = draw(findings(), SAMPLE);
    assert_eq!(sample.len(), SAMPLE, "too few MEM001/MEM002 findings in the corpus");
    let path = common::repo().join("book/src/memory.md");
    let book = std::fs::read_to_string(&path).unwrap();
    let (before, rest) = book.split_once(START).expect("the book's sample markers");
    let (table, after) = rest.split_once(END).expect("the book's sample end marker");
    // The judgements written so far, by (file, code).
    let mut judged: BTreeMap<(String, String), String> = BTreeMap::new();
    for line in table.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.split(" | ").collect();
        if cells.len() >= 4 {
            let file = cells[0].trim_start_matches("| ").trim_matches('`').to_owned();
            judged.insert((file, cells[1].to_owned()), cells[3].trim_end_matches(" |").to_owned());
        }
    }
    let mut rows = String::from("\n| file | code | the finding | judgement |\n|---|---|---|---|\n");
    for d in &sample {
        let judgement = judged.get(&(d.file.clone(), d.code.clone())).cloned().unwrap_or_default();
        let message = d.message.replace('|', "\\|");
        rows.push_str(&format!("| `{}` | {} | {} | {} |\n", d.file, d.code, message, judgement));
    }
    if std::env::var_os("TRAINLINT_WRITE_BOOK").is_some_and(|v| v == "1") {
        std::fs::write(&path, format!("{before}{START}{rows}{END}{after}")).unwrap();
        return;
    }
    assert_eq!(table, rows, "the sample changed: rerun with TRAINLINT_WRITE_BOOK=1 and judge the new rows");
    let unjudged: Vec<&Drawn> = sample.iter().filter(|d| judged.get(&(d.file.clone(), d.code.clone())).is_none_or(|j| j.trim().is_empty())).collect();
    assert!(unjudged.is_empty(), "rows without a judgement: {:?}", unjudged.iter().map(|d| &d.file).collect::<Vec<_>>());
    let right = judged.values().filter(|j| j.starts_with("right")).count();
    println!("{right} of {SAMPLE} right");
    assert!(right >= RIGHT_WAS, "{right} of {SAMPLE} verdicts judged right (was {RIGHT_WAS}; issue 24 asks for at least 28)");
}
