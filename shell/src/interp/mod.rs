//! The interpreter: executes brush-parser's AST over the virtual filesystem.
//!
//! Module map (each file one concept):
//! - `exec`, `run`, `parse`, `compound`, `simple`, `program`, `pipeline`,
//!   `pipe`, `redirect`, `fd`: parsing command by command, running commands,
//!   programs and scripts, pipelines, redirections and the file-descriptor
//!   table (OWNER: exec helper)
//! - `expand/`, `arith`, `pattern`, `glob`, `cond`: word expansion, arithmetic,
//!   pattern matching, pathname expansion, `[[ ]]` (OWNER: expand helper)
//! - `vars`, `options`, `builtins/`: variables, `set`/`shopt` options and the
//!   shell builtins (OWNER: builtins helper)

pub mod arith;
pub mod array_literal;
pub mod builtins;
mod compound;
pub mod cond;
pub mod exec;
pub mod expand;
pub mod fd;
mod interactive;
pub mod jobs;
mod keep;
pub mod options;
pub mod parse;
pub mod pattern;
mod pipe;
mod pipeline;
mod program;
pub use program::read_caller_fd;
mod redirect;
mod run;
mod select;
mod simple;
pub mod vars;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::control::RunControl;
use crate::fs::Fs;
use crate::limits::LimitKind;
use crate::{RunOptions, RunOutput, Shell};

pub use keep::{
    ShellSnapshot, ShellState, SnapshotError, SnapshotFunction, SnapshotValue, SnapshotVar,
    UNKEPT_VARIABLES,
};
pub use options::Options;
pub use simple::CommandKind;
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
    /// An error that makes a non-interactive bash abandon the rest of the
    /// current top-level command and go on with the next one, with this
    /// status (assigning to a readonly variable, an arithmetic error in an
    /// expansion). In a subshell or `bash -c` child it ends that shell.
    Discard(i32),
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
    /// How many times `set` replaced the positional parameters: a sourced
    /// file given arguments keeps the ones it `set` (not those it `shift`ed).
    pub(crate) positional_sets: u32,
    /// The working directory (absolute, virtual).
    pub cwd: String,
    /// `$?`
    pub last_status: i32,
    /// Trap commands by signal name (`EXIT`, `ERR`, `DEBUG`, `RETURN`, ...).
    pub traps: HashMap<String, String>,
    /// Names of the functions being executed, innermost last (`FUNCNAME`).
    pub call_stack: Vec<String>,
    /// The line each entry of `call_stack` was called from (`BASH_LINENO`).
    pub call_lines: Vec<u32>,
    /// Added to the line numbers of the text being run: the text of `eval`
    /// and `$(...)` counts its lines from the command that runs it, as bash
    /// reports them (0 for a script, a sourced file, a function body).
    pub(crate) line_base: u32,
    /// The line numbers of a `$(...)` text as bash counts them (see
    /// [`parse::comsub_line_map`]), added to `line_base` in place of the
    /// text's own; `None` elsewhere.
    pub(crate) line_map: Option<Arc<[u32]>>,
    /// This shell process runs a `bash -c` string (not a script file or
    /// stdin): a fatal expansion error then ends it with 127, not 1.
    pub dash_c: bool,
    /// `bash -i`: an unbound variable or `${x:?}` then abandons only the
    /// current command line, `$-` holds `i`, and stdin is read as typed
    /// lines (prompts, `PROMPT_COMMAND`, history).
    pub interactive: bool,
    /// bash's table of remembered command paths (`hash`): name, path, hits,
    /// in the order they were added.
    pub command_hash: Vec<(String, String, u32)>,
    /// The `PATH` the table was filled under: assigning `PATH` empties it.
    pub command_hash_path: String,
    /// `subshell_depth` when this shell process started: deeper means a
    /// subshell of it.
    pub process_depth: u32,
    /// Nesting of subshells (`BASH_SUBSHELL`).
    pub subshell_depth: u32,
    /// This shell process's `$$`: the top shell's is fixed, a child `bash`
    /// gets its own, so `kill $$` there signals the child.
    pub(crate) pid: i64,
    /// Signals sent to the top shell by its subshells, jobs and child
    /// shells (`sh -c "kill -USR1 $$"`), shared by all of them; the top
    /// shell takes them after its current command, as bash does after a
    /// child exits.
    pub(crate) pending_signals: Arc<Mutex<Vec<i64>>>,
    /// `pushd`/`popd` stack (without the cwd itself).
    pub dir_stack: Vec<String>,
    /// The `name=(...)` words a declaration command (`declare`, `local`...)
    /// was written with: only those assign arrays (`declare $a` with
    /// `a='x=(y)'` stores a string, as in bash).
    pub(crate) compound_words: Vec<String>,
    /// State of `$RANDOM`.
    pub random_state: u64,
    /// The current line number (`LINENO`).
    pub lineno: u32,
    /// The file-descriptor table (OWNER: exec helper).
    pub fds: exec::FdTable,
    /// Nesting of contexts where a failure does not trigger `set -e` or the
    /// ERR trap (`if`/`while` conditions, `!`, all but the last of `&& ||`).
    pub errexit_quiet: u32,
    /// Nesting of loops being executed (for `break`/`continue` diagnostics).
    pub loop_depth: u32,
    /// How errors name the shell: `bash` for `bash -c`, the script's path for
    /// a script (then followed by `: line N`). See [`Interp::err_prefix`].
    pub script_name: Option<String>,
    /// The programs of `/usr/bin`: built-in commands and the embedder's.
    pub registry: Arc<crate::commands::Registry>,
    /// Parsed `$(...)`/`eval` sources, shared by every shell of the run.
    pub parse_cache: parse::ParseCache,
    /// This shell's background jobs (`$!`, `wait`, `kill`).
    pub jobs: Arc<jobs::JobTable>,
    /// The pseudo pid of the last background job (`$!`).
    pub last_bg_pid: Option<u32>,
    /// Set when a write hit a closed pipe: the shell then ends like SIGPIPE would.
    pub broken_pipe: bool,
    /// The first failed write of the running builtin other than a closed
    /// pipe (`echo hi > /dev/full`), reported as bash's `write error`.
    pub(crate) write_error: Option<String>,
    /// Native-stack hops taken for deep recursion (see `Interp::nest`).
    pub(crate) stack_hops: u32,
    /// Nesting of `eval`/`source`/`bash -c` sources being run.
    pub(crate) source_depth: usize,
    /// Status of the last `$(...)` of the current command (`x=$(false)` is 1).
    pub last_cmdsub_status: Option<i32>,
    /// Process substitutions of the current command, cleaned up after it.
    pub(crate) procsubs: Vec<redirect::ProcSub>,
    /// Nesting of trap handlers being run: `LINENO` keeps the line of the
    /// command that triggered them, and DEBUG does not trigger itself.
    pub trap_depth: u32,
    /// The DEBUG handler is running: DEBUG does not trigger itself, but a
    /// failure there runs the ERR trap, as in bash.
    pub(crate) in_debug_trap: bool,
    /// The ERR handler is running: ERR does not trigger itself, but its
    /// commands run the DEBUG trap, as in bash.
    pub(crate) in_err_trap: bool,
    /// The last failure came from a short-circuited `&&`/`||` list, which
    /// `set -e` ignores even when it ends a compound command.
    pub(crate) errexit_exempt: bool,
    /// How many of the `errexit_quiet` levels are `!` pipelines entered
    /// while `set -e` was off: a `set -e` run inside them (say in a
    /// function) still ends the shell, as in bash.
    pub(crate) errexit_bang_off: u32,
    /// Traps a subshell inherited for display only: they do not run there.
    pub inherited_traps: Arc<HashMap<String, String>>,
}

impl Interp {
    /// The prefix of the shell's own error messages, as bash 5.2 prints
    /// it: `bash: line N` for `bash -c` (`$0` in place of `bash`),
    /// `PATH: line N` in a script file or a sourced one. In a function of a
    /// `bash -c` script bash names the source `environment` (`main` for a
    /// script read from stdin). Builtins print `{prefix}: NAME: message`.
    pub fn err_prefix(&self) -> String {
        let source = match &self.script_name {
            Some(p) => p.as_str(),
            None if self.call_stack.iter().any(|f| f != "source") => {
                if self.dash_c {
                    "environment"
                } else {
                    "main"
                }
            }
            None => self.arg0.as_str(),
        };
        format!("{source}: line {}", self.lineno)
    }

    /// Records the line of the command about to run (`LINENO`).
    pub(crate) fn set_line(&mut self, line: usize) {
        if self.trap_depth == 0 {
            let line = match &self.line_map {
                Some(map) => map
                    .get(line.wrapping_sub(1))
                    .copied()
                    .unwrap_or(line as u32),
                None => line as u32,
            };
            self.lineno = line + self.line_base;
        }
    }

    /// Runs a trap handler: `$?` is preserved, `LINENO` is not changed.
    pub(crate) fn run_trap(&mut self, source: &str) -> ExecResult {
        let saved = self.last_status;
        self.trap_depth += 1;
        self.errexit_quiet += 1;
        let r = self.run_source(source);
        self.errexit_quiet -= 1;
        self.trap_depth -= 1;
        self.last_status = saved;
        r
    }

    /// Writes `{prefix}: message` and a newline to fd 2.
    pub fn shell_error(&mut self, message: impl std::fmt::Display) {
        let line = format!("{}: {message}\n", self.err_prefix());
        let _ = self.write_fd(2, line.as_bytes());
    }
}

/// Runs a script the way `bash -c SCRIPT` would, in a fresh interpreter over
/// the shell's filesystem. OWNER: exec helper.
pub fn run_script(shell: &Shell, script: &str, options: RunOptions) -> RunOutput {
    exec::run_script(shell, script, options)
}

/// Runs a script as [`run_script`] does, starting from `state` (a
/// session's shell state) and leaving in it what the run's top shell
/// reached, however the run ended.
pub fn run_script_keeping(
    shell: &Shell,
    script: &str,
    options: RunOptions,
    state: &mut ShellState,
) -> RunOutput {
    run::run_script_in(shell, script, options, Some(state))
}
