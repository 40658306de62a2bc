//! Executing the AST: sources, command lists, and-or lists, and the
//! dispatch of one command. OWNER: exec helper.
//!
//! Contract used by the other interpreter modules:
//! - [`Interp::run_source`]: parse and run a string (`eval`, `source`).
//! - [`Interp::command_substitution`]: run in a subshell, capture stdout.
//! - [`Interp::write_fd`] / [`Interp::read_fd`]: I/O through the fd table.
//! - [`Interp::call_function`], [`Interp::run_argv`], [`Interp::resolve_command`].
//!
//! Pipelines live in `pipeline.rs`, compound commands in `compound.rs`,
//! simple commands in `simple.rs`, programs and scripts in `program.rs`.

use std::sync::{Arc, PoisonError};

use brush_parser::ast::{self, Command, CompoundList, SeparatorOperator};

use super::builtins;
use super::fd::Handle;
use super::parse::{Script, Step, SyntaxError};
use super::redirect::RedirRef;
use super::{ExecResult, Interp, Interrupt};
use crate::control::RunControl;
use crate::interp::fd::Capture;
use crate::limits::LimitKind;
use crate::{RunOptions, RunOutput, Shell};

pub use super::fd::FdTable;

/// Native stack given to threads that continue a deep recursion.
const HOP_STACK: usize = 16 << 20;

/// Call levels run on one native stack before hopping to a fresh thread.
const LEVELS_PER_STACK: usize = 64;

/// See [`super::run_script`].
pub fn run_script(shell: &Shell, script: &str, options: RunOptions) -> RunOutput {
    super::run::run_script(shell, script, options)
}

impl Interp {
    /// Parses and runs `source` in this shell (`eval`, `source`, `bash -c`).
    /// Parse errors print bash's message and give status 2.
    pub fn run_source(&mut self, source: &str) -> ExecResult {
        if self.source_depth >= self.control.limits.max_call_depth {
            self.control.trip(LimitKind::CallDepth);
            return Err(Interrupt::Limit(LimitKind::CallDepth));
        }
        self.source_depth += 1;
        let r = self.nest(|sh| sh.run_source_inner(source));
        self.source_depth -= 1;
        r
    }

    fn run_source_inner(&mut self, source: &str) -> ExecResult {
        // Refused before any parse: brush-parser recurses per level.
        let limit = self.control.limits.max_nesting;
        if crate::depth::nesting(source.as_bytes(), crate::depth::Syntax::Shell, limit) > limit {
            let prefix = match &self.script_name {
                None => "bash: -c".to_string(),
                Some(p) => p.clone(),
            };
            let msg = format!("{prefix}: line 1: {}\n", crate::depth::too_deep(limit));
            let _ = self.write_fd(2, msg.as_bytes());
            self.last_status = 2;
            return Ok(2);
        }
        let may_alias = self.opts.expand_aliases || source.contains("expand_aliases");
        let top = self.source_depth == 1;
        // History is kept line by line: such a script runs a line at a time.
        let history = top
            && (self.opts.get_set_option("history") == Some(true) || source.contains("history"));
        if !may_alias
            && !history
            && let Some(program) = self.parse_cache.get(source)
        {
            let mut status = 0;
            for cc in &program.complete_commands {
                status = self.exec_top(cc, top)?;
            }
            return Ok(status);
        }
        let mut script = Script::new(source);
        let mut status = 0;
        let mut lines = None;
        loop {
            let from = script.pos();
            let step = if self.opts.expand_aliases {
                let aliases = self.aliases.clone();
                script.next(Some(&aliases), true)
            } else {
                script.next(None, may_alias || history)
            };
            match step {
                Step::Run(cmds) => {
                    if top {
                        self.record_script_line(source, &script, from, &mut lines);
                    }
                    for cc in &cmds {
                        status = self.exec_top(cc, top)?;
                    }
                }
                Step::Error(e) => {
                    self.report_syntax_error(&e);
                    self.last_status = 2;
                    return Ok(2);
                }
                Step::Skip(e) => {
                    self.report_syntax_error(&e);
                    self.last_status = 1;
                    status = 1;
                }
                Step::Done => return Ok(status),
            }
        }
    }

    /// Under `set -o history` a script's command lines go to the history
    /// list as bash's do (`chars`: the source's characters, split once).
    fn record_script_line(
        &mut self,
        source: &str,
        script: &Script,
        from: usize,
        chars: &mut Option<Vec<char>>,
    ) {
        if self.interactive || self.opts.get_set_option("history") != Some(true) {
            return;
        }
        let chars = chars.get_or_insert_with(|| source.chars().collect());
        if let Some(line) = script.text_since(from, chars) {
            self.record_history(&line);
        }
    }

    /// Prints a syntax error as bash does, with the offending line.
    fn report_syntax_error(&mut self, e: &SyntaxError) {
        let prefix = match &self.script_name {
            None => "bash: -c".to_string(),
            Some(p) => p.clone(),
        };
        let mut msg = format!("{prefix}: line {}: {}\n", e.line, e.message);
        if let Some(l) = &e.source_line {
            msg.push_str(&format!("{prefix}: line {}: `{l}'\n", e.line));
        }
        let _ = self.write_fd(2, msg.as_bytes());
    }

    /// Runs one complete command; at the top level of a shell, a
    /// [`Interrupt::Discard`] ends only this command.
    pub(crate) fn exec_top(&mut self, cc: &CompoundList, top: bool) -> ExecResult {
        match self.exec_list(cc) {
            Err(Interrupt::Discard(n)) if top => {
                self.last_status = n;
                Ok(n)
            }
            r => r,
        }
    }

    /// Runs `source` in a subshell and returns its stdout (`$(...)`, backticks),
    /// with trailing newlines NOT yet removed. Sets `last_status`.
    pub fn command_substitution(&mut self, source: &str) -> Result<Vec<u8>, Interrupt> {
        if let Some(data) = self.read_file_substitution(source)? {
            return Ok(data);
        }
        let buf = Capture::new(self.control.clone());
        let mut sub = self.subshell();
        if !sub.opts.inherit_errexit {
            sub.opts.errexit = false;
        }
        sub.fds.set(1, Some(Handle::Capture(buf.clone())));
        sub.line_base = self.lineno.saturating_sub(1);
        sub.line_map = Some(super::parse::comsub_line_map(source));
        let r = sub.nest(|sh| sh.run_source_inner(source));
        let status = sub.finish_subshell(r)?;
        drop(sub);
        self.last_status = status;
        self.last_cmdsub_status = Some(status);
        Ok(buf.take())
    }

    /// `$(< file)`: the file's contents, without running a command.
    fn read_file_substitution(&mut self, source: &str) -> Result<Option<Vec<u8>>, Interrupt> {
        if !source.trim_start().starts_with('<') {
            return Ok(None);
        }
        let Some(program) = self.parse_cache.get(source) else {
            return Ok(None);
        };
        let [cc] = &program.complete_commands[..] else {
            return Ok(None);
        };
        let [item] = &cc.0[..] else {
            return Ok(None);
        };
        let ao = &item.0;
        if !ao.additional.is_empty() || ao.first.seq.len() != 1 || ao.first.bang {
            return Ok(None);
        }
        let Command::Simple(sc) = &ao.first.seq[0] else {
            return Ok(None);
        };
        if sc.word_or_name.is_some() || sc.suffix.is_some() {
            return Ok(None);
        }
        let Some(prefix) = &sc.prefix else {
            return Ok(None);
        };
        let [ast::CommandPrefixOrSuffixItem::IoRedirect(r)] = &prefix.0[..] else {
            return Ok(None);
        };
        let ast::IoRedirect::File(
            None | Some(0),
            ast::IoFileRedirectKind::Read,
            ast::IoFileRedirectTarget::Filename(w),
        ) = r
        else {
            return Ok(None);
        };
        let fields = self.expand_words(std::slice::from_ref(w))?;
        let path = fields.join(" ");
        let abs = crate::fs::Fs::resolve(&self.cwd, &path);
        // A directory opens (bash reads nothing from it, silently).
        match self.fs.read(&abs).or_else(|e| match e {
            crate::fs::FsError::IsADirectory => Ok(Vec::new()),
            e => Err(e),
        }) {
            Ok(d) => {
                self.last_status = 0;
                self.last_cmdsub_status = Some(0);
                Ok(Some(d))
            }
            Err(e) => {
                self.shell_error(format_args!("{path}: {e}"));
                self.last_status = 1;
                self.last_cmdsub_status = Some(1);
                Ok(Some(Vec::new()))
            }
        }
    }

    /// Writes to file descriptor `fd` (1 = stdout, 2 = stderr).
    pub fn write_fd(&mut self, fd: i32, data: &[u8]) -> std::io::Result<()> {
        match self.fds.get(fd) {
            Some(h) => {
                let r = h.write(data);
                match &r {
                    Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => self.broken_pipe = true,
                    Err(e) if self.write_error.is_none() => {
                        self.write_error = Some(crate::fs::strerror(e));
                    }
                    _ => {}
                }
                r
            }
            None => Err(std::io::Error::from_raw_os_error(9)),
        }
    }

    /// Reads from file descriptor `fd` (0 = stdin); `Ok(0)` at end of input.
    pub fn read_fd(&mut self, fd: i32, buf: &mut [u8]) -> std::io::Result<usize> {
        match self.fds.get(fd) {
            Some(h) => h.read(buf),
            None => Err(std::io::Error::from_raw_os_error(9)),
        }
    }

    /// Calls function `name` with `args` as `$1...`.
    pub fn call_function(&mut self, name: &str, args: &[String]) -> ExecResult {
        let Some(f) = self.funcs.get(name).cloned() else {
            self.shell_error(format_args!("{name}: command not found"));
            return Ok(127);
        };
        if self.call_stack.len() >= self.control.limits.max_call_depth {
            self.control.trip(LimitKind::CallDepth);
            return Err(Interrupt::Limit(LimitKind::CallDepth));
        }
        let saved_args = std::mem::replace(&mut self.positional, args.to_vec());
        // A function does not inherit the RETURN trap (unless `set -T`): it
        // fires on return only when the function itself set it.
        let return_trap_at_entry = self.traps.get("RETURN").cloned();
        self.call_stack.push(name.to_string());
        self.call_lines.push(self.lineno);
        let saved_line = self.lineno;
        // The body's lines are the script's own.
        let saved_base = std::mem::take(&mut self.line_base);
        let saved_map = self.line_map.take();
        self.vars.push_scope();
        let r = self.nest(|sh| {
            let body = &f.body;
            match &body.1 {
                Some(redirs) => {
                    let list: Vec<RedirRef<'_>> = redirs.0.iter().map(|r| (r, None)).collect();
                    sh.with_redirects(&list, |sh| sh.exec_compound(&body.0))
                }
                None => sh.exec_compound(&body.0),
            }
        });
        let mut trap_result = Ok(0);
        if let Some(trap) = self.active_trap("RETURN")
            && !trap.is_empty()
            && self.trap_depth == 0
            && (self.opts.get_set_option("functrace") == Some(true)
                || return_trap_at_entry.as_ref() != Some(&trap))
        {
            trap_result = self.run_trap(&trap);
        }
        self.vars.pop_scope();
        self.call_stack.pop();
        self.call_lines.pop();
        // `$LINENO` (say in an ERR trap for the call) is the caller's again.
        self.lineno = saved_line;
        self.line_base = saved_base;
        self.line_map = saved_map;
        self.positional = saved_args;
        if let Err(e @ (Interrupt::Exit(_) | Interrupt::Limit(_))) = trap_result {
            return Err(e);
        }
        match r {
            Err(Interrupt::Return(n)) => Ok(n),
            other => other,
        }
    }

    /// Runs `f` one nesting level deeper (functions, `eval`, `source`,
    /// subshells), moving to a fresh thread with a large stack every
    /// `LEVELS_PER_STACK` levels so deep recursion never overflows the
    /// caller's stack.
    pub(crate) fn nest<T: Send>(
        &mut self,
        f: impl FnOnce(&mut Interp) -> Result<T, Interrupt> + Send,
    ) -> Result<T, Interrupt> {
        let depth = self.call_stack.len() + self.subshell_depth as usize + self.source_depth;
        if depth < LEVELS_PER_STACK
            || !depth.is_multiple_of(LEVELS_PER_STACK)
            || self.stack_hops as usize * LEVELS_PER_STACK > depth
        {
            return f(self);
        }
        self.stack_hops += 1;
        let r = std::thread::scope(|s| {
            let h = std::thread::Builder::new()
                .stack_size(HOP_STACK)
                .spawn_scoped(s, crate::alloc::inheriting(|| f(self)));
            match h {
                Ok(h) => h.join().map_err(|_| ()),
                Err(_) => Err(()),
            }
        });
        self.stack_hops -= 1;
        match r {
            Ok(r) => r,
            Err(()) => {
                self.control.trip(LimitKind::CallDepth);
                Err(Interrupt::Limit(LimitKind::CallDepth))
            }
        }
    }

    /// A subshell: a copy of this shell whose traps are reset and whose
    /// changes never reach the parent. (`trap` still lists the parent's
    /// traps there, as bash does, but they do not run.)
    pub fn subshell(&self) -> Interp {
        let mut sub = self.clone();
        sub.subshell_depth += 1;
        if !self.traps.is_empty() {
            let errtrace = self.opts.get_set_option("errtrace") == Some(true);
            let mut inherited = (*self.inherited_traps).clone();
            for (k, v) in &self.traps {
                if !v.is_empty() && (!errtrace || k != "ERR") {
                    inherited.insert(k.clone(), v.clone());
                }
            }
            sub.inherited_traps = Arc::new(inherited);
        }
        sub.last_bg_pid = None;
        sub.jobs = Arc::new(super::jobs::JobTable::child_of(&self.jobs));
        sub.procsubs.clear();
        sub
    }

    /// Ends a subshell: `exit N` becomes its status; its EXIT trap runs.
    pub(crate) fn finish_subshell(&mut self, r: ExecResult) -> ExecResult {
        let status = match r {
            Ok(s) => s,
            Err(Interrupt::Exit(s)) | Err(Interrupt::Return(s)) | Err(Interrupt::Discard(s)) => s,
            Err(Interrupt::Break(_)) | Err(Interrupt::Continue(_)) => self.last_status,
            Err(Interrupt::Limit(k)) => return Err(Interrupt::Limit(k)),
        };
        self.last_status = status;
        self.run_exit_trap()?;
        Ok(self.last_status)
    }

    /// The handler of `name` if it is set in this shell (not merely inherited
    /// from a parent shell) and not empty.
    pub(crate) fn active_trap(&self, name: &str) -> Option<String> {
        let t = self.traps.get(name)?;
        if t.is_empty() || self.inherited_traps.get(name) == Some(t) {
            return None;
        }
        Some(t.clone())
    }

    /// Runs the EXIT trap (once), keeping `$?` as the exit status unless the
    /// trap calls `exit`.
    pub(crate) fn run_exit_trap(&mut self) -> Result<(), Interrupt> {
        if let Some(trap) = self.active_trap("EXIT")
            && self.traps.remove("EXIT").is_some()
        {
            let saved = self.last_status;
            match self.run_source(&trap) {
                Err(Interrupt::Exit(n)) => self.last_status = n,
                Err(Interrupt::Limit(k)) => return Err(Interrupt::Limit(k)),
                _ => self.last_status = saved,
            }
        }
        Ok(())
    }

    /// Runs a signal's trap as bash does: a fresh script (`LINENO` from 1,
    /// the ERR and DEBUG traps and `set -e` apply), `$?` kept.
    pub(crate) fn run_signal_trap(&mut self, action: &str) -> Result<(), Interrupt> {
        let (status, line) = (self.last_status, self.lineno);
        let quiet = std::mem::take(&mut self.errexit_quiet);
        let r = self.run_source(action);
        self.errexit_quiet = quiet;
        self.last_status = status;
        self.lineno = line;
        r.map(|_| ())
    }

    /// The top shell takes the signals its subshells, jobs and child
    /// shells sent it while its command ran.
    fn take_pending_signals(&mut self) -> Result<(), Interrupt> {
        if self.subshell_depth != 0 {
            return Ok(());
        }
        let pending = {
            let queue = self.pending_signals.lock();
            std::mem::take(&mut *queue.unwrap_or_else(PoisonError::into_inner))
        };
        for sig in pending {
            builtins::jobs::take_signal(self, sig)?;
        }
        Ok(())
    }

    /// Executes a command list (`a; b & c`).
    pub(crate) fn exec_list(&mut self, list: &CompoundList) -> ExecResult {
        let mut status = 0;
        for item in &list.0 {
            let ast::CompoundListItem(and_or, sep) = item;
            if matches!(sep, SeparatorOperator::Async) {
                status = self.exec_background(and_or)?;
            } else {
                status = self.exec_and_or(and_or)?;
            }
        }
        Ok(status)
    }

    /// `cmd &`: runs `and_or` in a subshell on its own thread and records
    /// it for `wait`, `kill` and `$!`. Its stdin is `/dev/null`, as without
    /// job control in bash, unless this shell reads a pipe (`echo hi | {
    /// cat & wait; }` prints `hi`). A deterministic run (fixed seed) runs
    /// the job to completion here instead, so the same script always writes
    /// the same bytes.
    fn exec_background(&mut self, and_or: &ast::AndOrList) -> ExecResult {
        let mut sub = self.subshell();
        if !matches!(self.fds.get(0), Some(Handle::PipeRead(_))) {
            sub.fds.set(0, Some(Handle::Null));
        }
        let pid = if self.control.seed.is_some() {
            let r = sub.exec_async_body(and_or);
            let status = sub.finish_subshell(r)?;
            drop(sub);
            self.jobs.record(and_or.to_string(), status)
        } else {
            // Every job is a thread: past the run's process limit (a fork
            // bomb) the run ends here.
            let slot = self.control.start_thread().map_err(Interrupt::Limit)?;
            let control = RunControl::for_job(&self.control);
            sub.control = control.clone();
            let owned = and_or.clone();
            let body = move || {
                let _slot = slot;
                let r = sub.exec_async_body(&owned);
                let r = sub.finish_subshell(r);
                let killed = sub.control.killed_by();
                drop(sub);
                match (killed, r) {
                    (Some(signal), _) => 128 + signal,
                    (None, Ok(status)) => status,
                    // A limit of the run: the run itself reports it.
                    (None, Err(_)) => 124,
                }
            };
            let command = and_or.to_string();
            match self
                .jobs
                .start(command, control, super::pipeline::STAGE_STACK, body)
            {
                Ok(pid) => pid,
                Err(e) => {
                    let msg = format!("bash: fork: {}\n", crate::fs::strerror(&e));
                    let _ = self.write_fd(2, msg.as_bytes());
                    return Ok(254);
                }
            }
        };
        self.last_bg_pid = Some(pid);
        // `$!` is read from the variable `!`.
        self.vars.global_entry("!").value = Some(super::vars::Value::Str(pid.to_string()));
        self.last_status = 0;
        Ok(0)
    }

    /// The body of `cmd &`: a lone pipeline's own failure does not run the
    /// ERR trap (bash: `false &` reports nothing, `{ false; } &` and
    /// `true && false &` do).
    fn exec_async_body(&mut self, list: &ast::AndOrList) -> ExecResult {
        if list.additional.is_empty() && !self.opts.noexec {
            return self.exec_pipeline_checked(&list.first, false);
        }
        self.exec_and_or(list)
    }

    /// Executes `a && b || c`, applying `set -e` and the ERR trap to the last
    /// pipeline only.
    pub(crate) fn exec_and_or(&mut self, list: &ast::AndOrList) -> ExecResult {
        if self.opts.noexec {
            return Ok(0);
        }
        let n = list.additional.len();
        let mut status = if n == 0 {
            self.exec_pipeline_checked(&list.first, true)?
        } else {
            self.errexit_quiet += 1;
            let r = self.exec_pipeline_checked(&list.first, false);
            self.errexit_quiet -= 1;
            r?
        };
        let mut ran_last = n == 0;
        for (i, next) in list.additional.iter().enumerate() {
            let last = i + 1 == n;
            let (run, p) = match next {
                ast::AndOr::And(p) => (status == 0, p),
                ast::AndOr::Or(p) => (status != 0, p),
            };
            if !run {
                continue;
            }
            status = if last {
                ran_last = true;
                self.exec_pipeline_checked(p, true)?
            } else {
                self.errexit_quiet += 1;
                let r = self.exec_pipeline_checked(p, false);
                self.errexit_quiet -= 1;
                r?
            };
        }
        if !ran_last {
            // `a && b` failing in `a`: a compound command ending with this
            // status does not trigger `set -e` either.
            self.errexit_exempt = status != 0;
        }
        Ok(status)
    }

    fn exec_pipeline_checked(&mut self, p: &ast::Pipeline, last: bool) -> ExecResult {
        self.errexit_exempt = false;
        let status = self.exec_pipeline(p)?;
        self.last_status = status;
        self.take_pending_signals()?;
        let exempt =
            self.errexit_exempt && p.seq.len() == 1 && matches!(p.seq[0], Command::Compound(..));
        if status != 0 && last && !p.bang && !exempt {
            if self.errexit_quiet == 0 {
                // The ERR trap already ran for the failing command inside a
                // loop, `if`, `case` or `{ }`; bash does not run it again for
                // the compound command (it does for `( )` and `(( ))`).
                let inner_reported = p.seq.len() == 1
                    && matches!(&p.seq[0], Command::Compound(c, _) if !matches!(
                        c,
                        ast::CompoundCommand::Subshell(_) | ast::CompoundCommand::Arithmetic(_)
                    ));
                self.on_failure(status, !inner_reported)?;
            } else if self.opts.errexit
                && self.errexit_quiet == self.errexit_bang_off
                && self.trap_depth == 0
            {
                // `set -e` turned on inside `! f`: bash still exits.
                return Err(Interrupt::Exit(status));
            }
        }
        if self.broken_pipe && self.subshell_depth > 0 {
            return Err(Interrupt::Exit(141));
        }
        Ok(status)
    }

    /// A command failed outside a condition: run the ERR trap (when
    /// `run_trap`), then apply `set -e`.
    pub(crate) fn on_failure(&mut self, status: i32, run_trap: bool) -> Result<(), Interrupt> {
        if run_trap
            && let Some(trap) = self.active_trap("ERR")
            && !trap.is_empty()
            && !self.in_err_trap
            && (self.trap_depth == 0 || self.in_debug_trap)
            && self.err_trap_reaches_here()
        {
            self.run_err_trap(&trap, status)?;
        }
        if self.opts.errexit {
            return Err(Interrupt::Exit(status));
        }
        Ok(())
    }

    /// The ERR trap applies here: at top level, or in a function with
    /// `set -o errtrace`.
    pub(crate) fn err_trap_reaches_here(&self) -> bool {
        self.call_stack.is_empty() || self.opts.get_set_option("errtrace") == Some(true)
    }

    /// Runs the ERR handler `trap` after a failure with `status`. Unlike
    /// other traps, `set -e` applies inside it (a failing command there ends
    /// the shell); it does not re-run the ERR trap itself.
    pub(crate) fn run_err_trap(&mut self, trap: &str, status: i32) -> Result<(), Interrupt> {
        self.trap_depth += 1;
        let outer = std::mem::replace(&mut self.in_err_trap, true);
        let r = self.run_source(trap);
        self.in_err_trap = outer;
        self.trap_depth -= 1;
        self.last_status = status;
        r.map(|_| ())
    }

    /// Runs the DEBUG trap before a command, if one is set.
    pub(crate) fn debug_trap(&mut self) -> Result<(), Interrupt> {
        // Inside the ERR handler (only) the DEBUG trap still runs.
        if self.in_debug_trap || (self.trap_depth > 0 && !self.in_err_trap) {
            return Ok(());
        }
        // Functions do not inherit the DEBUG trap unless `set -o functrace`.
        if !self.call_stack.is_empty() && self.opts.get_set_option("functrace") != Some(true) {
            return Ok(());
        }
        let Some(trap) = self.active_trap("DEBUG") else {
            return Ok(());
        };
        let saved_errexit_quiet = std::mem::take(&mut self.errexit_quiet);
        let saved = self.last_status;
        self.trap_depth += 1;
        let outer = std::mem::replace(&mut self.in_debug_trap, true);
        let r = self.run_source(&trap);
        self.in_debug_trap = outer;
        self.trap_depth -= 1;
        self.errexit_quiet = saved_errexit_quiet;
        self.last_status = saved;
        match r {
            Ok(_) | Err(Interrupt::Return(_)) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// `name` is a POSIX special builtin and the shell is in POSIX mode,
    /// where special builtins differ: bindings before them stay, they are
    /// found before functions, no function may take their name.
    pub(crate) fn posix_special(&self, name: &str) -> bool {
        builtins::is_special(name) && self.opts.get_set_option("posix") == Some(true)
    }

    /// In POSIX mode a function may not take a special builtin's name:
    /// bash reports it and a non-interactive shell exits with status 2.
    fn refuse_special_function(&mut self, name: &str) -> Result<(), Interrupt> {
        if !self.posix_special(name) {
            return Ok(());
        }
        let _ = self.write_fd(
            2,
            format!("bash: `{name}': is a special builtin\n").as_bytes(),
        );
        Err(Interrupt::Exit(2))
    }

    /// Executes one command of a pipeline.
    pub(crate) fn exec_command(&mut self, cmd: &Command) -> ExecResult {
        match cmd {
            Command::Simple(s) => self.exec_simple(s),
            Command::Compound(c, redirs) => match redirs {
                Some(r) if !r.0.is_empty() => {
                    let list: Vec<RedirRef<'_>> = r.0.iter().map(|r| (r, None)).collect();
                    self.with_redirects(&list, |sh| sh.exec_compound(c))
                }
                _ => self.exec_compound(c),
            },
            Command::Function(def) => {
                self.control.count_command().map_err(Interrupt::Limit)?;
                let name = def.fname.value.clone();
                if name.contains(['$', '`', '\'', '"']) {
                    self.shell_error(format_args!("`{name}': not a valid identifier"));
                    return Ok(1);
                }
                self.refuse_special_function(&name)?;
                self.funcs.insert(name, Arc::new(def.clone()));
                Ok(0)
            }
            Command::ExtendedTest(t, redirs) => {
                self.control.count_command().map_err(Interrupt::Limit)?;
                self.set_line(t.loc.start.line);
                self.debug_trap()?;
                let run = |sh: &mut Interp| -> ExecResult {
                    if sh.opts.xtrace {
                        let line = format!("[[ {} ]]", t.expr);
                        sh.trace(&line);
                    }
                    sh.eval_cond_status(&t.expr)
                };
                match redirs {
                    Some(r) if !r.0.is_empty() => {
                        let list: Vec<RedirRef<'_>> = r.0.iter().map(|r| (r, None)).collect();
                        self.with_redirects(&list, run)
                    }
                    _ => run(self),
                }
            }
        }
    }

    /// Writes an `xtrace` line (`+ cmd args`) to stderr.
    pub(crate) fn trace(&mut self, text: &str) {
        let ps4 = self
            .vars
            .get_str("PS4")
            .map(str::to_string)
            .unwrap_or_else(|| "+ ".to_string());
        let ps4 = if ps4.contains('$') || ps4.contains('`') {
            let saved = self.opts.xtrace;
            self.opts.xtrace = false;
            let r = self.expand_string(&ps4).unwrap_or(ps4);
            self.opts.xtrace = saved;
            r
        } else {
            ps4
        };
        let line = format!("{ps4}{text}\n");
        let _ = self.write_fd(2, line.as_bytes());
    }
}
