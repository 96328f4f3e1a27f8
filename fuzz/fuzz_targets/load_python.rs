#![no_main]
//! Python training-script reader (`load::python`): any bytes give a tree or a LoadError.
use libfuzzer_sys::fuzz_target;
use std::path::Path;
use trainlint::load::{Format, load_bytes};

#[path = "worker_stack.rs"]
mod worker_stack;

fuzz_target!(|data: &[u8]| worker_stack::on_worker_stack(data, run));

fn run(data: &[u8]) {
    let document = load_bytes(Path::new("fuzz.py"), "fuzz.py", Format::Python, data.to_vec());
    if let Ok(root) = &document.root {
        let _ = root.to_json();
    }
}
