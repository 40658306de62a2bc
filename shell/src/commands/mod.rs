//! Commands that scripts run as programs (`ls`, `tar`, `grep`, ...), grouped by
//! family, each a plain function over a [`CommandCtx`]. They see the virtual
//! filesystem, their arguments, environment and streams, nothing else. Each
//! family lists its commands as [`Command`] rows (name, `--help`, entry);
//! the registry answers `--help` before a command runs.
//!
//! Shell builtins that need interpreter state (`cd`, `read`, `declare`, ...)
//! live in [`crate::interp`]; this module holds what `/usr/bin` would.
//!
//! ```ignore
//! // Internal (the module is private), so not run as a doctest.
//! assert!(sandkeep_shell::commands::lookup("cat").is_some());
//! assert!(sandkeep_shell::commands::lookup("no-such-tool").is_none());
//! ```

#[macro_use]
pub mod common;
pub mod archive;
pub mod awk;
pub mod basenc;
pub mod diff3;
pub mod envsubst;
pub mod files;
pub mod find;
pub mod iconv;
pub mod json;
pub mod make;
pub mod misc;
pub mod pager;
pub mod patch;
pub mod ps;
pub mod rg;
pub use common::getopt as options;
mod registry;
pub mod shellutils;
pub mod system;
#[cfg(test)]
pub(crate) mod testing;
pub mod text;

use std::io::{Read, Write};

use crate::control::RunControl;
use crate::fs::Fs;

pub use registry::{Command, Program, Registry, lookup, names};

/// A command's entry point; returns its exit status.
pub type CommandFn = fn(&mut CommandCtx<'_>) -> i32;

/// A program an embedder adds to the sandbox ([`crate::ShellConfig::command`]):
/// any closure over a [`CommandCtx`], returning the exit status.
pub type CustomCommand = std::sync::Arc<dyn Fn(&mut CommandCtx<'_>) -> i32 + Send + Sync>;

/// Everything a command may touch.
pub struct CommandCtx<'a> {
    /// `argv`, with the command name at index 0.
    pub args: &'a [String],
    /// The exported environment, in definition order.
    pub env: &'a [(String, String)],
    /// The working directory (absolute virtual path).
    pub cwd: &'a str,
    /// The virtual filesystem.
    pub fs: &'a Fs,
    /// Standard input.
    pub stdin: &'a mut dyn Read,
    /// Standard output.
    pub stdout: &'a mut dyn Write,
    /// Standard error.
    pub stderr: &'a mut dyn Write,
    /// Limits, deadline and clock of the run.
    pub control: &'a RunControl,
    /// Runs another command (for `xargs`, `find -exec`, `timeout`, `env CMD`).
    pub exec: &'a mut dyn Exec,
}

impl CommandCtx<'_> {
    /// The value of an environment variable.
    pub fn getenv(&self, name: &str) -> Option<&str> {
        self.env
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Resolves a path argument against the working directory.
    pub fn path(&self, arg: &str) -> String {
        Fs::resolve(self.cwd, arg)
    }

    /// Writes `NAME: message` to stderr (the GNU error shape).
    pub fn error(&mut self, message: impl std::fmt::Display) {
        let _ = writeln!(self.stderr, "{}: {}", self.args[0], message);
    }
}

/// Runs a program by name the way `execvp` would: a registry command, a
/// script in the virtual tree, or `bash`/`sh` itself. Commands that run other
/// commands (`xargs`, `find -exec`, `env`, `timeout`, awk's `system()`) build
/// an [`ExecRequest`] and hand it over.
///
/// ```
/// use std::io::Write;
/// use sandkeep_shell::{Exec, ExecMode, ExecRequest};
///
/// /// Prints what it was asked to run instead of running it.
/// struct Echo;
///
/// impl Exec for Echo {
///     fn exec(&mut self, req: ExecRequest<'_>) -> i32 {
///         let _ = writeln!(req.stdout, "{}", req.argv.join(" "));
///         0
///     }
/// }
///
/// let argv = ["ls".to_string(), "-l".to_string()];
/// let mut out = Vec::new();
/// let status = Echo.exec(ExecRequest {
///     argv: &argv,
///     env: &[],
///     cwd: "/workspace",
///     stdin: &mut std::io::empty(),
///     stdout: &mut out,
///     stderr: &mut std::io::sink(),
///     mode: ExecMode::Inherit,
/// });
/// assert_eq!((status, out), (0, b"ls -l\n".to_vec()));
/// ```
pub trait Exec {
    /// Runs `req.argv` as `req.mode` says; returns its exit status (127 when
    /// not found, 126 when not executable, 124 when a [`ExecMode::Deadline`]
    /// stopped it). An implementation that cannot hide variables or keep a
    /// deadline may treat every mode as [`ExecMode::Inherit`].
    fn exec(&mut self, req: ExecRequest<'_>) -> i32;

    /// The processes of the run, as `ps` lists them: the shell, then its
    /// background jobs still running. The default is none (an embedder's
    /// runner without a job table).
    fn processes(&self) -> Vec<ProcessEntry> {
        Vec::new()
    }
}

/// One process of a run, for `ps` ([`Exec::processes`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ProcessEntry {
    /// Its pseudo pid (`$$`, `$!`).
    pub pid: u32,
    /// The pid of the shell that started it.
    pub ppid: u32,
    /// Its command line (`bash`, `sleep 30`).
    pub command: String,
}

impl ProcessEntry {
    /// A process entry.
    pub fn new(pid: u32, ppid: u32, command: impl Into<String>) -> ProcessEntry {
        ProcessEntry {
            pid,
            ppid,
            command: command.into(),
        }
    }
}

/// One program to run through [`Exec::exec`]: what, where, on which streams.
pub struct ExecRequest<'a> {
    /// `argv`, with the program name at index 0; empty runs nothing (status 0).
    pub argv: &'a [String],
    /// Variables the program sees; how they combine with the caller's
    /// exported ones is up to `mode`.
    pub env: &'a [(String, String)],
    /// The working directory (absolute virtual path).
    pub cwd: &'a str,
    /// Standard input.
    pub stdin: &'a mut dyn Read,
    /// Standard output.
    pub stdout: &'a mut dyn Write,
    /// Standard error.
    pub stderr: &'a mut dyn Write,
    /// Environment and time rules of the run.
    pub mode: ExecMode,
}

/// How an [`ExecRequest`] treats the environment and time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExecMode {
    /// `env` is added on top of the calling shell's exported variables
    /// (`xargs`, `find -exec`, awk's `system()`).
    Inherit,
    /// `env` is the COMPLETE environment the program sees, so variables can be
    /// hidden (`env -i CMD`, `env -u NAME CMD`).
    Complete,
    /// As [`ExecMode::Inherit`], but the program is stopped at this instant and
    /// the call then returns 124, as `timeout(1)` does. The run's own limits
    /// still apply: when the run's deadline comes first, the whole run ends as
    /// usual.
    Deadline(std::time::Instant),
}
