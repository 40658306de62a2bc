//! The `sandkeep` binary: see `sandkeep --help` and [`cli`].

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
