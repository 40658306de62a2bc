//! `node` for sandkeep's local sandbox (work in progress).

use sandkeep_shell::ShellConfig;

/// Adds `node` and `nodejs` to a shell configuration.
pub fn install(config: ShellConfig) -> ShellConfig {
    config
}
