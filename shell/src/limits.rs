//! Resource limits: what ends a runaway script, and how it is reported.

use std::fmt;
use std::time::Duration;

/// Limits for one sandbox. Defaults are what an agent host would pick.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Wall-clock time per run.
    pub timeout: Duration,
    /// Simple commands executed per run.
    pub max_commands: u64,
    /// Iterations of all loops together per run.
    pub max_loop_iterations: u64,
    /// Nesting of function calls, `source`, `eval` and subshells.
    pub max_call_depth: usize,
    /// Bytes of stdout and of stderr a run may write (each); past it the
    /// rest is dropped, flagged and the run ends (`usize::MAX`: no limit, for
    /// a caller whose sink takes the output as it comes, see
    /// [`crate::OutputSink::takes_output`]).
    pub max_output_bytes: usize,
    /// Bytes of memory one run may hold (all its threads together), counted
    /// when the binary installs [`crate::alloc::MeteredAlloc`]; the files
    /// the run writes count against [`FsLimits`] instead.
    pub max_memory_bytes: u64,
    /// Pipeline stages and background jobs of one run alive at once (each
    /// is a thread): a fork bomb ends the run with the process limit.
    pub max_processes: usize,
    /// Nesting depth of brackets, groups and subshells in one script,
    /// arithmetic expression, condition or jq program, and of arrays and
    /// objects in JSON input: deeper input is refused before it is parsed.
    pub max_nesting: usize,
    /// Filesystem limits.
    pub fs: FsLimits,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            timeout: Duration::from_secs(30),
            max_commands: 10_000_000,
            max_loop_iterations: 10_000_000,
            max_call_depth: 1_000,
            max_output_bytes: 1 << 20,
            max_memory_bytes: 256 << 20,
            max_nesting: 1_000,
            max_processes: 512,
            fs: FsLimits::default(),
        }
    }
}

/// Size limits of the virtual filesystem.
#[derive(Clone, Debug)]
pub struct FsLimits {
    /// Bytes of file content in the whole tree.
    pub max_total_bytes: u64,
    /// Files, directories and symlinks in the whole tree.
    pub max_files: u64,
    /// Bytes in one file.
    pub max_file_size: u64,
}

impl Default for FsLimits {
    fn default() -> Self {
        FsLimits {
            max_total_bytes: 512 << 20,
            max_files: 200_000,
            max_file_size: 128 << 20,
        }
    }
}

/// Which limit ended a run (more limits may come: match with a catch-all arm).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LimitKind {
    /// The run's wall-clock time.
    Timeout,
    /// The number of commands.
    Commands,
    /// The number of loop iterations.
    LoopIterations,
    /// The depth of function calls, `source`/`eval` and subshells.
    CallDepth,
    /// The number of output bytes.
    Output,
    /// The bytes one command substitution may hold in memory (the
    /// filesystem's file-size limit): `x=$(yes)`.
    Memory,
    /// The number of pipeline stages and background jobs alive at once
    /// (a fork bomb).
    Processes,
}

/// The status of a run the output limit ended: 141 (128 + SIGPIPE), as for
/// a program whose reader stopped reading. A timeout is 124 (`timeout(1)`'s).
pub const OUTPUT_LIMIT_STATUS: i32 = 141;

/// The status of a run any other limit ended (`timeout(1)`'s 124).
pub const LIMIT_STATUS: i32 = 124;

impl LimitKind {
    /// The exit status of a run this limit ended: 141 for the output limit
    /// (the caller stopped taking output; never reported as a timeout), 124
    /// for the others.
    pub fn exit_status(self) -> i32 {
        match self {
            LimitKind::Output => OUTPUT_LIMIT_STATUS,
            _ => LIMIT_STATUS,
        }
    }
}

impl fmt::Display for LimitKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LimitKind::Timeout => "timeout",
            LimitKind::Commands => "command limit",
            LimitKind::LoopIterations => "loop iteration limit",
            LimitKind::CallDepth => "call depth limit",
            LimitKind::Output => "output limit",
            LimitKind::Memory => "memory limit",
            LimitKind::Processes => "process limit",
        })
    }
}
