//! Test support for the file and system commands: the shared runner of
//! [`crate::commands::testing`], with output decoded as text.

use crate::commands::CommandFn;
use crate::commands::testing;
use crate::control::RunControl;
use crate::fs::Fs;

pub use crate::commands::testing::new_fs;

/// What a test run produced, decoded lossily.
pub struct Out {
    /// Exit status.
    pub status: i32,
    /// Captured stdout.
    pub stdout: String,
    /// Captured stderr.
    pub stderr: String,
}

/// Runs `f` with argv `args` in `/workspace`.
pub fn run(fs: &Fs, f: CommandFn, args: &[&str], stdin: &str) -> Out {
    run_with(fs, f, args, stdin, &testing::control())
}

/// Runs `f` under a given control block (deadline, seed).
pub fn run_with(fs: &Fs, f: CommandFn, args: &[&str], stdin: &str, control: &RunControl) -> Out {
    let o = testing::run_cmd(fs, f, args, &mut stdin.as_bytes(), control);
    Out {
        status: o.status,
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}
