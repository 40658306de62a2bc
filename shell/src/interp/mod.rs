//! The interpreter: executes brush-parser's AST over the virtual filesystem.
//!
//! Module map (each file one concept):
//! - `exec`, `pipeline`, `redirect`, `fd`: running commands, pipes, redirections
//!   and the file-descriptor table (OWNER: exec helper)
//! - `expand/`, `arith`, `pattern`, `glob`, `cond`: word expansion, arithmetic,
//!   pattern matching, pathname expansion, `[[ ]]` (OWNER: expand helper)
//! - `vars`, `options`, `builtins/`: variables, `set`/`shopt` options and the
//!   shell builtins (OWNER: builtins helper)

pub mod arith;
pub mod builtins;
pub mod cond;
pub mod exec;
pub mod expand;
pub mod options;
pub mod pattern;
pub mod vars;

use std::collections::HashMap;
use std::sync::Arc;

use crate::control::RunControl;
use crate::fs::Fs;
use crate::limits::LimitKind;
use crate::{RunOptions, RunOutput, Shell};

pub use options::Options;
pub use vars::{Attrs, Value, Var, Vars};

/// Why execution stopped before the end of a command list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Interrupt {
    /// `break N`
    Break(u32),
    /// `continue N`
    Continue(u32),
    /// `return N` (from a function or a sourced file)
    Return(i32),
    /// `exit N`, `set -e`, or a fatal expansion error (`${x:?}`): the shell
    /// (or the current subshell) ends with this status.
    Exit(i32),
    /// A limit was exceeded; the whole run ends.
    Limit(LimitKind),
}

/// The result of executing something: its exit status, or an interruption.
pub type ExecResult = Result<i32, Interrupt>;

/// A defined shell function.
pub type Function = Arc<brush_parser::ast::FunctionDefinition>;

/// The state of one shell process (a subshell is a clone).
#[derive(Clone)]
pub struct Interp {
    /// The virtual filesystem.
    pub fs: Fs,
    /// Limits, deadline and clock shared by every thread of the run.
    pub control: Arc<RunControl>,
    /// Shell variables.
    pub vars: Vars,
    /// Shell functions by name.
    pub funcs: HashMap<String, Function>,
    /// Aliases by name.
    pub aliases: HashMap<String, String>,
    /// `set -o` and `shopt` options.
    pub opts: Options,
    /// `$0`
    pub arg0: String,
    /// `$1 ... $N`
    pub positional: Vec<String>,
    /// The working directory (absolute, virtual).
    pub cwd: String,
    /// `$?`
    pub last_status: i32,
    /// Trap commands by signal name (`EXIT`, `ERR`, `DEBUG`, `RETURN`, ...).
    pub traps: HashMap<String, String>,
    /// Names of the functions being executed, innermost last (`FUNCNAME`).
    pub call_stack: Vec<String>,
    /// Nesting of subshells (`BASH_SUBSHELL`).
    pub subshell_depth: u32,
    /// `pushd`/`popd` stack (without the cwd itself).
    pub dir_stack: Vec<String>,
    /// State of `$RANDOM`.
    pub random_state: u64,
    /// The current line number (`LINENO`).
    pub lineno: u32,
    /// The file-descriptor table (OWNER: exec helper).
    pub fds: exec::FdTable,
}

/// Runs a script the way `bash -c SCRIPT` would, in a fresh interpreter over
/// the shell's filesystem. OWNER: exec helper.
pub fn run_script(shell: &Shell, script: &str, options: RunOptions) -> RunOutput {
    exec::run_script(shell, script, options)
}
