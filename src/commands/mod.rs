//! One module per subcommand; each returns the process exit code.

pub mod check;
pub mod estimate;
pub mod gpus;
pub mod migrate;
pub mod rule;
pub mod schema;
pub mod show;

use std::io::Write;

/// Writes to stdout, ignoring a closed pipe (`trainlint check | head`).
pub fn print(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes());
    let _ = stdout.flush();
}
