//! # sandkeep-shell
//!
//! An in-process bash interpreter over a virtual filesystem. Scripts are parsed
//! with [`brush_parser`] and executed by our own interpreter, whose only world
//! is the virtual tree ([`Fs`]) and its commands (built-in ones and the
//! embedder's, see [`ShellConfig::command`]):
//! no host files, no host processes, no host environment.
//!
//! ```
//! use sandkeep_shell::{RunOptions, Shell, ShellConfig};
//!
//! let shell = Shell::new(ShellConfig::default());
//! let out = shell.run("echo hello > note.txt; cat note.txt", RunOptions::default());
//! assert_eq!(out.exit_code, 0);
//! assert_eq!(out.stdout, b"hello\n");
//! ```
//!
//! Each [`Shell::run`] is a fresh `bash -c`: files persist for the life of the
//! [`Shell`], shell variables and the working directory do not.

#![deny(missing_docs)]

// The modules are private: the public API is what is re-exported below.
mod alloc;
mod builtin_core;
// Public: the runtime's stores and tar streams translate this escape form.
pub mod bytes;
mod cancel;
mod clock;
mod commands;
mod control;
mod depth;
mod fs;
mod interp;
mod limits;
mod time;
mod watchdog;

use std::sync::Arc;
use std::time::Duration;

pub use alloc::MeteredAlloc;
pub use clock::{Clock, Timestamp};
pub use commands::{
    CommandCtx, CommandFn, CustomCommand, Exec, ExecMode, ExecRequest, ProcessEntry,
};
pub use control::{CancelHandle, RunControl};
pub use fs::{Changes, Device, FileKind, FileReader, Fs, FsError, FsResult, Metadata, VfsAdapter};
pub use interp::read_caller_fd;
pub use interp::{
    ShellSnapshot, ShellState, SnapshotError, SnapshotFunction, SnapshotValue, SnapshotVar,
    UNKEPT_VARIABLES,
};
pub use limits::{FsLimits, LIMIT_STATUS, LimitKind, Limits, OUTPUT_LIMIT_STATUS};

/// Entry points for this crate's own integration tests (the built-in
/// command table, the awk parser for its fuzz test); not part of the API.
#[doc(hidden)]
pub mod testing {
    pub use crate::commands::awk::parser::parse as parse_awk;
    pub use crate::commands::lookup;
}

/// How a [`Shell`] is built: limits, determinism and the embedder's own
/// commands.
///
/// An embedder exposes a host tool as a command the script can pipe and
/// redirect like any other (it sees only what its closure captures and the
/// [`CommandCtx`]: arguments, environment, streams, the virtual
/// filesystem):
///
/// ```
/// use std::io::Write;
/// use sandkeep_shell::{RunOptions, Shell, ShellConfig};
///
/// let config = ShellConfig::default().command("greet", |ctx| {
///     let who = ctx.args.get(1).cloned().unwrap_or_else(|| "world".into());
///     let _ = writeln!(ctx.stdout, "hello, {who}");
///     0
/// });
/// let shell = Shell::new(config);
/// let out = shell.run("greet agent | tr a-z A-Z > g.txt; cat g.txt; ls /usr/bin/greet", RunOptions::default());
/// assert_eq!(out.stdout, b"HELLO, AGENT\n/usr/bin/greet\n");
/// ```
#[derive(Clone, Default)]
pub struct ShellConfig {
    /// Resource limits applied to every run and to the filesystem.
    pub limits: Limits,
    /// `Some` makes runs reproducible: the clock is fixed and `$RANDOM`/`mktemp`
    /// are seeded, so the same script gives the same bytes every run.
    pub deterministic: Option<Determinism>,
    /// Programs the embedder adds, listed in `/usr/bin` and found on `PATH`
    /// before the built-in commands of the same name (see
    /// [`ShellConfig::command`]).
    pub commands: Vec<(String, commands::CustomCommand)>,
}

impl std::fmt::Debug for ShellConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShellConfig")
            .field("limits", &self.limits)
            .field("deterministic", &self.deterministic)
            .field(
                "commands",
                &self.commands.iter().map(|(n, _)| n).collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl ShellConfig {
    /// Adds a program called `name`: `run` gets the command's context and
    /// returns its exit status.
    pub fn command(
        mut self,
        name: impl Into<String>,
        run: impl Fn(&mut commands::CommandCtx<'_>) -> i32 + Send + Sync + 'static,
    ) -> ShellConfig {
        self.commands.push((name.into(), Arc::new(run)));
        self
    }
}

/// Fixed inputs for reproducible runs.
#[derive(Clone, Copy, Debug)]
pub struct Determinism {
    /// The wall clock, in seconds since the Unix epoch, that `date` and mtimes see.
    pub epoch_secs: i64,
    /// The seed of `$RANDOM`, `mktemp` and `shuf`.
    pub seed: u64,
}

impl Default for Determinism {
    fn default() -> Self {
        // 2024-01-01T00:00:00Z
        Determinism {
            epoch_secs: 1_704_067_200,
            seed: 42,
        }
    }
}

/// Receives output as it is produced, for callers that stream it.
pub trait OutputSink: Send + Sync {
    /// A chunk written to the script's stdout.
    fn stdout(&self, chunk: &[u8]);
    /// A chunk written to the script's stderr.
    fn stderr(&self, chunk: &[u8]);

    /// True when the sink takes the output for good (a terminal, a pipe):
    /// the run then keeps none of what it streamed, so its output may be
    /// as large as the output limit allows without being held in memory
    /// ([`RunOutput::stdout`] and [`RunOutput::stderr`] stay empty).
    fn takes_output(&self) -> bool {
        false
    }

    /// True once the reader of the streamed stdout is gone (the caller's
    /// stdout was a pipe that closed): the script's later writes to stdout
    /// fail as on a broken pipe, so a `yes` ends with status 141 instead of
    /// writing into the void.
    fn stdout_closed(&self) -> bool {
        false
    }
}

/// Inputs of one [`Shell::run`].
#[derive(Clone, Default)]
pub struct RunOptions {
    /// Working directory; relative paths resolve from `/workspace`. Default `/workspace`.
    pub cwd: Option<String>,
    /// Extra environment variables, on top of the sandbox's fixed environment.
    pub env: Vec<(String, String)>,
    /// Bytes the script reads on stdin.
    pub stdin: Vec<u8>,
    /// Wall-clock limit for this run; default [`Limits::timeout`].
    pub timeout: Option<Duration>,
    /// Streams output while the script runs (it is still collected in [`RunOutput`]).
    pub sink: Option<Arc<dyn OutputSink>>,
    /// Ends the run from outside when cancelled (as its deadline would).
    pub cancel: Option<CancelHandle>,
}

/// What one [`Shell::run`] produced.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunOutput {
    /// The script's exit status (bash's: 0-255). When a limit ended the run it
    /// is [`LimitKind::exit_status`] (124 like `timeout(1)`, 141 for the output
    /// limit); `limit` says which one,
    /// and stderr ends with `bash: <limit> exceeded (...)`.
    pub exit_code: i32,
    /// Everything written to stdout, up to the output limit (nothing when
    /// the sink [takes the output](OutputSink::takes_output)).
    pub stdout: Vec<u8>,
    /// Everything written to stderr, up to the output limit (as stdout).
    pub stderr: Vec<u8>,
    /// True when output was cut at the output limit.
    pub truncated: bool,
    /// The limit that ended the run, if one did.
    pub limit: Option<LimitKind>,
}

/// The names `/usr/bin` lists in a new sandbox, sorted: every registry
/// command plus the shell itself (`bash`, `sh`). The commands are built in;
/// the stubs exist so that `ls /usr/bin`, `which` and `test -x` see them.
pub fn usr_bin_names() -> &'static [&'static str] {
    static NAMES: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| {
        let mut names = commands::names();
        for shell in ["bash", "sh"] {
            if let Err(at) = names.binary_search(&shell) {
                names.insert(at, shell);
            }
        }
        names
    })
}

/// A sandbox: one virtual filesystem and the interpreter that runs scripts over it.
#[derive(Clone)]
pub struct Shell {
    fs: Fs,
    config: ShellConfig,
    registry: Arc<commands::Registry>,
}

impl Shell {
    /// A fresh sandbox with the standard tree (`/workspace`, `/tmp`, `/dev`, `/usr/bin`).
    pub fn new(config: ShellConfig) -> Shell {
        let clock = match config.deterministic {
            Some(d) => Clock::fixed(d.epoch_secs),
            None => Clock::real(),
        };
        let registry = Arc::new(commands::Registry::new(&config.commands));
        let fs = if config.commands.is_empty() {
            Fs::new(config.limits.fs.clone(), clock, usr_bin_names())
        } else {
            let mut names: Vec<&str> = usr_bin_names().to_vec();
            names.extend(registry.custom_names());
            names.sort_unstable();
            names.dedup();
            Fs::new(config.limits.fs.clone(), clock, &names)
        };
        Shell {
            fs,
            config,
            registry,
        }
    }

    /// The sandbox's filesystem.
    pub fn fs(&self) -> &Fs {
        &self.fs
    }

    /// The configuration this sandbox was built with.
    pub fn config(&self) -> &ShellConfig {
        &self.config
    }

    /// The programs of this sandbox's `/usr/bin`.
    pub(crate) fn registry(&self) -> &Arc<commands::Registry> {
        &self.registry
    }

    /// Runs `script` as `bash -c script` would, in a fresh shell process over this
    /// sandbox's filesystem.
    pub fn run(&self, script: &str, options: RunOptions) -> RunOutput {
        interp::run_script(self, script, options)
    }

    /// Runs `script` as [`Shell::run`] does, but in a session's shell: it
    /// starts from `state` (its directory, variables, functions, aliases,
    /// options, umask) and leaves in it what the run reached, whether the
    /// run succeeded, failed or was cut by a limit. Changes made in a
    /// subshell or a pipeline stage stay there, as in bash; traps and jobs
    /// end with the run.
    ///
    /// ```
    /// use sandkeep_shell::{RunOptions, Shell, ShellConfig, ShellState};
    ///
    /// let shell = Shell::new(ShellConfig::default());
    /// let mut state = ShellState::default();
    /// shell.run_keeping("mkdir -p src && cd src && export N=1 && f() { echo f$N; }", RunOptions::default(), &mut state);
    /// let out = shell.run_keeping("pwd; f", RunOptions::default(), &mut state);
    /// assert_eq!(out.stdout, b"/workspace/src\nf1\n");
    /// ```
    pub fn run_keeping(
        &self,
        script: &str,
        options: RunOptions,
        state: &mut ShellState,
    ) -> RunOutput {
        interp::run_script_keeping(self, script, options, state)
    }
}
