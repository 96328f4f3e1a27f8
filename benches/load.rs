//! `cargo bench --bench load`: files/s and ms for loading `../shared/corpus`
//! (read + parse + spanned tree), and for the whole `check` pipeline on it.
//! Prints numbers; compare ratios within one run (these machines are noisy).

use std::time::Instant;
use trainlint::linter;
use trainlint::load::{self, discover};
use trainlint::settings::{Overrides, Settings};

fn main() {
    let corpus = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    if !corpus.is_dir() {
        eprintln!("../shared/corpus not found; nothing to measure");
        return;
    }
    let excludes = discover::Excludes::new(&corpus, None, &[]).expect("excludes");
    let files = discover::discover(&[corpus.clone()], &excludes, false).expect("discover");
    let bytes: u64 = files.iter().map(|f| std::fs::metadata(&f.path).map_or(0, |m| m.len())).sum();
    let settings = Settings::discover(&[corpus.clone()], &Overrides::default()).expect("settings");
    let rounds = 20;

    let mut best_load = f64::MAX;
    for _ in 0..rounds {
        let start = Instant::now();
        for file in &files {
            let document = load::load_file(&file.path, &file.display, file.format).expect("read");
            std::hint::black_box(&document);
        }
        best_load = best_load.min(start.elapsed().as_secs_f64());
    }

    let mut best_check = f64::MAX;
    for _ in 0..rounds {
        let start = Instant::now();
        for file in &files {
            std::hint::black_box(linter::lint_file(file, &settings).expect("lint"));
        }
        best_check = best_check.min(start.elapsed().as_secs_f64());
    }

    let n = files.len() as f64;
    println!("corpus: {} files, {:.1} KiB", files.len(), bytes as f64 / 1024.0);
    println!("load  (1 thread, best of {rounds}): {:8.2} ms  {:9.0} files/s  {:6.1} MB/s", best_load * 1e3, n / best_load, bytes as f64 / best_load / 1e6);
    println!("check (1 thread, best of {rounds}): {:8.2} ms  {:9.0} files/s", best_check * 1e3, n / best_check);
}
