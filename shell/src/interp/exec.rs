//! Executing the AST: command lists, and-or lists, pipelines, compound
//! commands, simple commands, functions. OWNER: exec helper.
//!
//! Contract used by the other interpreter modules:
//! - [`Interp::run_source`]: parse and run a string (`eval`, `source`).
//! - [`Interp::command_substitution`]: run in a subshell, capture stdout.
//! - [`Interp::write_fd`] / [`Interp::read_fd`]: I/O through the fd table.

use super::{ExecResult, Interp, Interrupt};
use crate::{RunOptions, RunOutput, Shell};

/// The file-descriptor table of one shell. (Placeholder: the exec helper
/// defines the real representation.)
#[derive(Clone, Default)]
pub struct FdTable {}

/// See [`super::run_script`].
pub fn run_script(shell: &Shell, script: &str, options: RunOptions) -> RunOutput {
    let _ = (shell, script, options);
    todo!()
}

impl Interp {
    /// Parses and runs `source` in this shell (`eval`, `source`, `bash -c`).
    /// Parse errors print bash's message and give status 2.
    pub fn run_source(&mut self, source: &str) -> ExecResult {
        let _ = source;
        todo!()
    }

    /// Runs `source` in a subshell and returns its stdout (`$(...)`, backticks),
    /// with trailing newlines NOT yet removed. Sets `last_status`.
    pub fn command_substitution(&mut self, source: &str) -> Result<Vec<u8>, Interrupt> {
        let _ = source;
        todo!()
    }

    /// Writes to file descriptor `fd` (1 = stdout, 2 = stderr).
    pub fn write_fd(&mut self, fd: i32, data: &[u8]) -> std::io::Result<()> {
        let _ = (fd, data);
        todo!()
    }

    /// Reads from file descriptor `fd` (0 = stdin); `Ok(0)` at end of input.
    pub fn read_fd(&mut self, fd: i32, buf: &mut [u8]) -> std::io::Result<usize> {
        let _ = (fd, buf);
        todo!()
    }

    /// Calls function `name` with `args` as `$1...`.
    pub fn call_function(&mut self, name: &str, args: &[String]) -> ExecResult {
        let _ = (name, args);
        todo!()
    }
}
