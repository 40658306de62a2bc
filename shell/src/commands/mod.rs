//! Commands that scripts run as programs (`ls`, `tar`, `grep`, ...), grouped by
//! family, each a plain function over a [`CommandCtx`]. They see the virtual
//! filesystem, their arguments, environment and streams, nothing else.
//!
//! Shell builtins that need interpreter state (`cd`, `read`, `declare`, ...)
//! live in [`crate::interp`]; this module holds what `/usr/bin` would.
//!
//! ```
//! assert!(sandkeep_shell::commands::lookup("cat").is_some());
//! assert!(sandkeep_shell::commands::lookup("no-such-tool").is_none());
//! ```

pub mod archive;
pub mod awk;
pub mod files;
pub mod find;
pub mod json;
pub mod misc;
pub mod options;
pub mod shellutils;
pub mod system;
#[cfg(test)]
pub(crate) mod testing;
pub mod text;

use std::collections::HashMap;
use std::io::{Read, Write};
use std::sync::OnceLock;

use crate::control::RunControl;
use crate::fs::Fs;

/// A command's entry point; returns its exit status.
pub type CommandFn = fn(&mut CommandCtx<'_>) -> i32;

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
/// script in the virtual tree, or `bash`/`sh` itself.
///
/// Three ways in:
/// - [`Exec::exec`]: `env` is added on top of the calling shell's exported
///   variables (`xargs`, `find -exec`).
/// - [`Exec::exec_env`]: `env` is the COMPLETE environment the program sees,
///   so variables can be hidden (`env -i CMD`, `env -u NAME CMD`).
/// - [`Exec::exec_with_deadline`]: like `exec`, but the program is stopped at
///   `deadline` and the call then returns 124, as `timeout(1)` does
///   (`timeout DURATION CMD`). The run's own limits still apply: when the
///   run's deadline comes first, the whole run ends as usual.
pub trait Exec {
    /// Runs `argv` with extra environment `env`, in `cwd`, on the given streams;
    /// returns its exit status (127 when not found, 126 when not executable).
    #[allow(clippy::too_many_arguments)]
    fn exec(
        &mut self,
        argv: &[String],
        env: &[(String, String)],
        cwd: &str,
        stdin: &mut dyn Read,
        stdout: &mut dyn Write,
        stderr: &mut dyn Write,
    ) -> i32;

    /// Runs `argv` with exactly the environment `env` (nothing inherited);
    /// otherwise as [`Exec::exec`]. The default inherits, for implementations
    /// that cannot hide variables.
    #[allow(clippy::too_many_arguments)]
    fn exec_env(
        &mut self,
        argv: &[String],
        env: &[(String, String)],
        cwd: &str,
        stdin: &mut dyn Read,
        stdout: &mut dyn Write,
        stderr: &mut dyn Write,
    ) -> i32 {
        self.exec(argv, env, cwd, stdin, stdout, stderr)
    }

    /// Runs `argv` as [`Exec::exec`] does, stopping it at `deadline`: returns
    /// 124 when the deadline stopped it, else its exit status. The default
    /// ignores the deadline.
    #[allow(clippy::too_many_arguments)]
    fn exec_with_deadline(
        &mut self,
        argv: &[String],
        env: &[(String, String)],
        cwd: &str,
        stdin: &mut dyn Read,
        stdout: &mut dyn Write,
        stderr: &mut dyn Write,
        deadline: std::time::Instant,
    ) -> i32 {
        let _ = deadline;
        self.exec(argv, env, cwd, stdin, stdout, stderr)
    }
}

/// Every command family's table, in lookup order.
const FAMILIES: &[&[(&str, CommandFn)]] = &[
    files::COMMANDS,
    archive::COMMANDS,
    system::COMMANDS,
    text::COMMANDS,
    shellutils::COMMANDS,
    json::COMMANDS,
    awk::COMMANDS,
    find::COMMANDS,
    misc::COMMANDS,
];

fn registry() -> &'static HashMap<&'static str, CommandFn> {
    static REGISTRY: OnceLock<HashMap<&'static str, CommandFn>> = OnceLock::new();
    REGISTRY.get_or_init(|| FAMILIES.iter().flat_map(|f| f.iter().copied()).collect())
}

/// The command called `name`, if there is one.
pub fn lookup(name: &str) -> Option<CommandFn> {
    registry().get(name).copied()
}

/// The names of all commands, sorted (what `ls /usr/bin` shows).
pub fn names() -> Vec<&'static str> {
    let mut v: Vec<_> = registry().keys().copied().collect();
    v.sort_unstable();
    v
}
