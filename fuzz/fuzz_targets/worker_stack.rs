//! Runs a fuzz input on a thread with the stack a lint worker has.
//!
//! `trainlint check` lints on `std::thread::scope` workers
//! (src/commands/check.rs), which get Rust's default 2 MiB stack; libFuzzer
//! runs on the 8 MiB main stack, where a recursion that aborts a worker
//! (issue 13 item 1: 4,218 nested `${`) still fits. A panic on the worker is
//! re-raised here, so libFuzzer records the crash.
//!
//! One worker thread is started for the whole run and fed each input over a
//! channel: a thread per input cost more than most inputs (the 2026-11-23
//! runs were 10–60 times slower per input than on the main stack). Every input
//! still starts at the bottom of a fresh 2 MiB frame stack, as a lint worker's
//! file does.

use std::sync::{Mutex, OnceLock, mpsc};

/// Rust's default thread stack (`std::thread` docs: 2 MiB), as the workers get it.
pub const WORKER_STACK_BYTES: usize = 2 * 1024 * 1024;

type Job = (Vec<u8>, fn(&[u8]));

struct Worker {
    jobs: mpsc::Sender<Job>,
    done: mpsc::Receiver<std::thread::Result<()>>,
}

static WORKER: OnceLock<Mutex<Worker>> = OnceLock::new();

fn start() -> Mutex<Worker> {
    let (jobs, inbox) = mpsc::channel::<Job>();
    let (outbox, done) = mpsc::channel();
    std::thread::Builder::new()
        .name("fuzz-worker".to_owned())
        .stack_size(WORKER_STACK_BYTES)
        .spawn(move || {
            for (data, body) in inbox {
                let result = std::panic::catch_unwind(|| body(&data));
                if outbox.send(result).is_err() {
                    break;
                }
            }
        })
        .expect("spawn the fuzz worker");
    Mutex::new(Worker { jobs, done })
}

pub fn on_worker_stack(data: &[u8], body: fn(&[u8])) {
    let worker = WORKER.get_or_init(start).lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    worker.jobs.send((data.to_vec(), body)).expect("the fuzz worker takes inputs");
    if let Err(panic) = worker.done.recv().expect("the fuzz worker answers") {
        std::panic::resume_unwind(panic);
    }
}
