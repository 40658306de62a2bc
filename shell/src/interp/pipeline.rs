//! Pipelines: `a | b | c`, `! a`, `time a`, `PIPESTATUS` and `pipefail`.
//!
//! Every stage but the last runs in a subshell on its own scoped thread; the
//! stages are joined by bounded in-memory pipes, so `yes | head -1` ends: once
//! `head` exits its pipe's reader is dropped, `yes` gets a broken pipe and
//! ends with status 141 as if killed by SIGPIPE. The last stage runs on the
//! calling thread (in the shell itself under `shopt -s lastpipe`).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use brush_parser::ast;

use super::fd::Handle;
use super::pipe::pipe;
use super::vars::Value;
use super::{ExecResult, Interp, Interrupt};

/// Native stack of a pipeline stage's thread.
pub(crate) const STAGE_STACK: usize = 64 << 20;

impl Interp {
    /// Executes a pipeline and sets `PIPESTATUS`; returns its status.
    pub(crate) fn exec_pipeline(&mut self, p: &ast::Pipeline) -> ExecResult {
        let started = p.timed.as_ref().map(|_| Instant::now());
        let bang_off = p.bang && !self.opts.errexit;
        if p.bang {
            self.errexit_quiet += 1;
            self.errexit_bang_off += u32::from(bang_off);
        }
        let r = if p.seq.len() == 1 {
            self.exec_command(&p.seq[0]).map(|s| vec![s])
        } else {
            self.exec_stages(&p.seq)
        };
        if p.bang {
            self.errexit_quiet -= 1;
            self.errexit_bang_off -= u32::from(bang_off);
        }
        let statuses = r?;
        let mut status = *statuses.last().unwrap_or(&0);
        if self.opts.pipefail
            && let Some(s) = statuses.iter().rev().find(|&&s| s != 0)
        {
            status = *s;
        }
        // bash leaves PIPESTATUS to the inner commands of a lone compound
        // command (`if`, `{ }`, loops), except subshells and `(( ))`.
        let sets = p.seq.len() > 1
            || match p.seq.first() {
                Some(ast::Command::Compound(c, _)) => matches!(
                    c,
                    ast::CompoundCommand::Subshell(_) | ast::CompoundCommand::Arithmetic(_)
                ),
                Some(ast::Command::Function(_)) => false,
                // `time` with no command.
                _ => true,
            };
        let unchanged = sets
            && statuses.len() == 1
            && matches!(
                self.vars.get("PIPESTATUS").and_then(|v| v.value.as_ref()),
                Some(Value::Indexed(a)) if a.len() == 1 && a.get(&0).is_some_and(|v| v.parse() == Ok(statuses[0]))
            );
        if sets && !unchanged {
            let arr: BTreeMap<i64, String> = statuses
                .iter()
                .enumerate()
                .map(|(i, s)| (i as i64, s.to_string()))
                .collect();
            let _ = self.vars.set("PIPESTATUS", Value::Indexed(arr));
        }
        if p.bang {
            status = i32::from(status == 0);
        }
        if let (Some(t), Some(start)) = (&p.timed, started) {
            let secs = start.elapsed().as_secs_f64();
            let text = if t.is_posix_output() {
                format!("real {secs:.2}\nuser 0.00\nsys 0.00\n")
            } else {
                format!(
                    "\nreal\t{}m{:.3}s\nuser\t0m0.000s\nsys\t0m0.000s\n",
                    (secs / 60.0) as u64,
                    secs % 60.0
                )
            };
            let _ = self.write_fd(2, text.as_bytes());
        }
        Ok(status)
    }

    /// A failing `( )` as the last stage of a pipeline runs the ERR trap
    /// in that stage too (bash's forked stage checks the subshell's status
    /// before the pipeline's own check: `true | (false)` reports twice).
    fn last_subshell_err(
        &self,
        stage: &mut Interp,
        cmd: &ast::Command,
        r: ExecResult,
    ) -> ExecResult {
        let status = match (&r, cmd) {
            (Ok(st), ast::Command::Compound(ast::CompoundCommand::Subshell(_), _)) if *st != 0 => {
                *st
            }
            _ => return r,
        };
        let enabled =
            self.errexit_quiet == 0 && self.trap_depth == 0 && self.err_trap_reaches_here();
        let Some(trap) = self.active_trap("ERR").filter(|_| enabled) else {
            return r;
        };
        stage.run_err_trap(&trap, status).map(|()| status)
    }

    fn exec_stages(&mut self, seq: &[ast::Command]) -> Result<Vec<i32>, Interrupt> {
        let n = seq.len();
        // `time` alone (`{ time; } |& wc`) is a pipeline with no command.
        if n == 0 {
            return Ok(vec![0]);
        }
        let mut statuses = vec![0; n];
        let mut limit = None;
        // Each stage but the last is a thread: past the run's process limit
        // (a fork bomb) the run ends here. The slots last as long as the
        // stages.
        let _slots = (1..n)
            .map(|_| self.control.start_thread())
            .collect::<Result<Vec<_>, _>>()
            .map_err(Interrupt::Limit)?;
        std::thread::scope(|s| {
            let mut prev_reader: Option<Handle> = None;
            let mut handles = Vec::new();
            for (i, cmd) in seq.iter().enumerate().take(n - 1) {
                let (r, w) = pipe(self.control.clone());
                let mut stage = self.subshell();
                if let Some(r) = prev_reader.take() {
                    stage.fds.set(0, Some(r));
                }
                stage.fds.set(1, Some(Handle::PipeWrite(Arc::new(w))));
                prev_reader = Some(Handle::PipeRead(Arc::new(r)));
                let spawned = std::thread::Builder::new()
                    .stack_size(STAGE_STACK)
                    .spawn_scoped(
                        s,
                        crate::alloc::inheriting(move || {
                            let r = stage.exec_command(cmd);
                            let r = stage.finish_subshell(r);
                            let broken = stage.broken_pipe;
                            drop(stage);
                            match r {
                                Ok(_) if broken => Ok(141),
                                r => r,
                            }
                        }),
                    );
                handles.push((i, spawned));
            }
            // The last stage, on this thread.
            let last = &seq[n - 1];
            let r = if self.opts.lastpipe && self.subshell_depth == 0 {
                let saved = self.fds.set(0, prev_reader.take());
                let r = self.exec_command(last);
                self.fds.set(0, saved);
                r
            } else {
                let mut stage = self.subshell();
                if let Some(r) = prev_reader.take() {
                    stage.fds.set(0, Some(r));
                }
                let r = stage.exec_command(last);
                let r = self.last_subshell_err(&mut stage, last, r);
                // `$LINENO` after a pipeline (in an ERR trap, say) is its line.
                let line = stage.lineno;
                let r = stage.finish_subshell(r);
                if self.trap_depth == 0 {
                    self.lineno = line;
                }
                r
            };
            match r {
                Ok(st) => statuses[n - 1] = st,
                Err(Interrupt::Limit(k)) => limit = Some(k),
                Err(Interrupt::Exit(st)) => statuses[n - 1] = st,
                Err(_) => statuses[n - 1] = self.last_status,
            }
            for (i, h) in handles {
                match h.map_err(|_| ()).and_then(|h| h.join().map_err(|_| ())) {
                    Ok(Ok(st)) => statuses[i] = st,
                    Ok(Err(Interrupt::Limit(k))) => limit = Some(k),
                    Ok(Err(_)) => statuses[i] = 1,
                    Err(()) => statuses[i] = 2,
                }
            }
        });
        if let Some(k) = limit {
            return Err(Interrupt::Limit(k));
        }
        if let Err(k) = self.control.check() {
            return Err(Interrupt::Limit(k));
        }
        Ok(statuses)
    }
}
