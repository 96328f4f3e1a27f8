// mimalloc instead of the system allocator, in the binary only (the library leaves the choice to
// its user): `check` allocates about 1,300 times a file, and glibc's malloc and free were a fifth
// of its CPU on the corpus (book/src/benchmarks.md, "Against peers").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

// mimalloc's C API (`include/mimalloc.h`, linked in by the `mimalloc` crate): option 15 is
// `mi_option_purge_delay` in both its v2 and v3 `mi_option_e` (the value the
// `MIMALLOC_PURGE_DELAY` environment variable sets).
unsafe extern "C" {
    fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
}
const MI_OPTION_PURGE_DELAY: std::ffi::c_int = 15;

fn main() -> std::process::ExitCode {
    // Freed memory goes back to the system at once rather than 10 ms later: a large run frees
    // each file's tree as it goes, and the delay kept about a tenth more resident (100x the
    // corpus: 97 -> 86 MiB peak, book/src/benchmarks.md "Scaling"). Read at each purge, so
    // setting it here holds for the whole run; an explicit `MIMALLOC_PURGE_DELAY` still wins.
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: sets one integer option of the allocator; mimalloc allows it at any time.
        unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, 0) };
    }
    trainlint::cli::run()
}
