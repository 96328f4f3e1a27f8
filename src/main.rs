fn main() -> std::process::ExitCode {
    trainlint::cli::run()
}
