// mimalloc instead of the system allocator, in the binary only (the library leaves the choice to
// its user): `check` allocates about 1,300 times a file, and glibc's malloc and free were a fifth
// of its CPU on the corpus (book/src/benchmarks.md, "Against peers").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    trainlint::cli::run()
}
