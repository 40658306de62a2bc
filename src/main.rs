//! The `sandkeep` binary: see `sandkeep --help` and [`cli`].

mod cli;

/// Charges each local run's allocations to its memory budget, so a runaway
/// script ends its run instead of exhausting the host (see
/// `sandkeep_shell::MeteredAlloc`).
#[global_allocator]
static ALLOCATOR: sandkeep_shell::MeteredAlloc = sandkeep_shell::MeteredAlloc;

fn main() -> std::process::ExitCode {
    cli::main()
}
