//! Job builtins: `wait`, `kill`, `jobs`, `disown`, and `fg`/`bg`, which a
//! shell without job control refuses. Jobs are the shell's background
//! threads ([`crate::interp::jobs`]); there are no host processes to signal.

use std::sync::PoisonError;

use super::trap::{signal_name, signal_number, signal_table};
use super::{err, flag_letters, out};
use crate::interp::expand::special::SHELL_PID;
use crate::interp::{ExecResult, Interp, Interrupt, Value};

/// `wait [-fn] [-p VAR] [ID...]`: waits for background jobs (all of them
/// without operands, the next one to end with `-n`) and returns the last
/// one's status.
pub fn wait(interp: &mut Interp, args: &[String]) -> ExecResult {
    let mut next = false;
    let mut pid_var = None;
    let mut ids = Vec::new();
    let mut rest = args[1..].iter();
    while let Some(a) = rest.next() {
        match a.as_str() {
            "-n" => next = true,
            "-p" => pid_var = rest.next().cloned(),
            "--" => ids.extend(rest.by_ref().cloned()),
            s if s.starts_with('-') && s.len() > 1 && ids.is_empty() => {}
            _ => ids.push(a.clone()),
        }
    }
    if next {
        let control = interp.control.clone();
        let Some((pid, status)) = interp.jobs.wait_next(|| control.check().is_ok()) else {
            return Ok(127);
        };
        if let Some(var) = pid_var {
            let _ = interp.vars.set(&var, Value::Str(pid.to_string()));
        }
        return Ok(status);
    }
    if ids.is_empty() {
        interp.jobs.wait_all();
        return Ok(0);
    }
    let mut status = 0;
    for a in &ids {
        if !a.starts_with('%') && (a.is_empty() || !a.bytes().all(|b| b.is_ascii_digit())) {
            err(interp, format!("wait: `{a}': not a pid or valid job spec"));
            status = 1;
            continue;
        }
        let pid = resolve_job(&interp.jobs.pids(), a);
        match pid.and_then(|p| interp.jobs.wait(p).map(|s| (p, s))) {
            Some((p, s)) => {
                status = s;
                // A waited-for job leaves the job table (`wait %%` twice
                // fails the second time); its pid's status stays known.
                if a.starts_with('%') {
                    interp.jobs.remove(p);
                }
            }
            None if a.starts_with('%') => {
                err(interp, format!("wait: {a}: no such job"));
                status = 127;
            }
            None => {
                err(
                    interp,
                    format!("wait: pid {a} is not a child of this shell"),
                );
                status = 127;
            }
        }
    }
    Ok(status)
}

const KILL_USAGE: &str =
    "kill [-s sigspec | -n signum | -sigspec] pid | jobspec ... or kill -l [sigspec]";

/// `kill`: lists signals; there are no host processes to signal.
pub fn kill(interp: &mut Interp, args: &[String]) -> ExecResult {
    let mut rest = &args[1..];
    if rest.is_empty() {
        let _ = interp.write_fd(2, format!("kill: usage: {KILL_USAGE}\n").as_bytes());
        return Ok(2);
    }
    if rest[0] == "-l" || rest[0] == "-L" {
        if rest.len() == 1 {
            let t = signal_table();
            return Ok(if out(interp, t) { 0 } else { 1 });
        }
        let mut status = 0;
        let mut text = String::new();
        for s in &rest[1..] {
            match s.parse::<i64>() {
                Ok(n) => {
                    let n = if n > 128 { n - 128 } else { n };
                    if n == 0 {
                        text.push_str("EXIT\n");
                        continue;
                    }
                    match signal_name(n) {
                        Some(name) => text.push_str(&format!("{name}\n")),
                        None => {
                            err(interp, format!("kill: {s}: invalid signal specification"));
                            status = 1;
                        }
                    }
                }
                Err(_) => match signal_number(s) {
                    Some(n) => text.push_str(&format!("{n}\n")),
                    None => {
                        err(interp, format!("kill: {s}: invalid signal specification"));
                        status = 1;
                    }
                },
            }
        }
        out(interp, text);
        return Ok(status);
    }
    let mut sig = 15;
    // The signal: `-s SPEC`, `-n SPEC` or `-SPEC`, then the operands.
    let spec = if rest[0] == "-s" || rest[0] == "-n" {
        let Some(spec) = rest.get(1) else {
            err(
                interp,
                format!("kill: {}: option requires an argument", rest[0]),
            );
            return Ok(2);
        };
        rest = &rest[2..];
        Some(spec.as_str())
    } else if rest[0] == "--" {
        rest = &rest[1..];
        None
    } else if let Some(spec) = rest[0].strip_prefix('-') {
        rest = &rest[1..];
        Some(spec)
    } else {
        None
    };
    if let Some(spec) = spec {
        if signal_number(spec).is_none() && spec != "0" {
            err(
                interp,
                format!("kill: {spec}: invalid signal specification"),
            );
            return Ok(1);
        }
        sig = signal_number(spec).unwrap_or(0);
    }
    if rest.is_empty() {
        let _ = interp.write_fd(2, format!("kill: usage: {KILL_USAGE}\n").as_bytes());
        return Ok(2);
    }
    let mut status = 0;
    for p in rest {
        if signal_self(interp, p, sig)? {
            continue;
        }
        let pid = resolve_job(&interp.jobs.pids(), p);
        match pid.and_then(|pid| interp.jobs.kill(pid, sig as i32)) {
            Some(true) => continue,
            Some(false) => {
                err(
                    interp,
                    format!("kill: ({}) - No such process", pid.unwrap_or(0)),
                );
                status = 1;
                continue;
            }
            None => {}
        }
        status = 1;
        if p.starts_with('%') {
            err(interp, format!("kill: {p}: no such job"));
        } else if p.trim_start_matches('-').parse::<i64>().is_ok() {
            err(interp, format!("kill: ({p}) - No such process"));
        } else {
            err(
                interp,
                format!("kill: {p}: arguments must be process or job IDs"),
            );
        }
    }
    Ok(status)
}

/// `kill -SIG $$`: the shell signals itself (see [`take_signal`]). From a
/// subshell, job or child shell of the top shell, a signal to the top
/// shell waits in its queue until its current command is done. False when
/// `p` is neither.
fn signal_self(interp: &mut Interp, p: &str, sig: i64) -> Result<bool, Interrupt> {
    let Ok(target) = p.parse::<i64>() else {
        return Ok(false);
    };
    if target == interp.pid && interp.subshell_depth == interp.process_depth {
        // The trap runs once `kill` is done: `$?` there is kill's 0.
        interp.last_status = 0;
        take_signal(interp, sig)?;
        return Ok(true);
    }
    if target != SHELL_PID {
        return Ok(false);
    }
    if sig != 0 {
        let queue = interp.pending_signals.lock();
        queue.unwrap_or_else(PoisonError::into_inner).push(sig);
    }
    Ok(true)
}

/// A signal arrives at this shell: a trapped one runs its trap, one whose
/// default is to be ignored (or `0`) does nothing, and any other ends the
/// shell with 128 + the signal's number.
pub(crate) fn take_signal(interp: &mut Interp, sig: i64) -> Result<(), Interrupt> {
    let name = signal_name(sig).unwrap_or_default();
    if let Some(action) = interp.traps.get(&name).cloned() {
        return interp.run_signal_trap(&action);
    }
    // SIGCHLD, SIGCONT, SIGURG, SIGWINCH are ignored by default.
    if matches!(sig, 0 | 17 | 18 | 23 | 28) {
        return Ok(());
    }
    Err(Interrupt::Exit(128 + sig as i32))
}

/// The pid a `wait`/`kill` operand names: a pid, or a job spec (`%%`, `%+`,
/// `%` the current job, `%-` the previous one, `%N` job number N).
fn resolve_job(jobs: &[u32], spec: &str) -> Option<u32> {
    let Some(js) = spec.strip_prefix('%') else {
        return spec.parse().ok();
    };
    match js {
        "" | "%" | "+" => jobs.last().copied(),
        "-" => jobs
            .len()
            .checked_sub(2)
            .map_or(jobs.last(), |i| jobs.get(i))
            .copied(),
        n => {
            let n: usize = n.parse().ok()?;
            jobs.get(n.checked_sub(1)?).copied()
        }
    }
}

/// `jobs [-lprs] [JOBSPEC...]`: the running jobs, as bash prints them
/// (`[1]+  Running                 sleep 5 &`); `-p` prints pids only.
pub fn jobs(interp: &mut Interp, args: &[String]) -> ExecResult {
    let usage = "jobs [-lnprs] [jobspec ...] or jobs -x command [args]";
    let (flags, first) = match flag_letters(interp, "jobs", args, "lnprs", usage) {
        Ok(parsed) => parsed,
        Err(status) => return Ok(status),
    };
    let pids_only = flags.contains('p');
    let long = flags.contains('l');
    // `-r` and `-s` as last given: no job is ever stopped here.
    let stopped_only = flags.rfind('s') > flags.rfind('r');
    let specs = &args[first..];
    let running = interp.jobs.running();
    let all = interp.jobs.pids();
    let mut status = 0;
    let mut chosen = Vec::new();
    for spec in specs {
        match resolve_job(&all, spec).and_then(|p| running.iter().find(|j| j.pid == p)) {
            Some(job) => chosen.push(job),
            None => {
                err(interp, format!("jobs: {spec}: no such job"));
                status = 1;
            }
        }
    }
    if specs.is_empty() {
        chosen = running.iter().collect();
    }
    if stopped_only {
        chosen.clear();
    }
    // The current job (`+`) and the previous one (`-`) are the two most
    // recent still running: ended jobs are reaped.
    let current = running.last().map(|j| j.pid);
    let previous = running.len().checked_sub(2).map(|i| running[i].pid);
    let mut text = String::new();
    for job in chosen {
        if pids_only {
            text.push_str(&format!("{}\n", job.pid));
            continue;
        }
        let mark = match Some(job.pid) {
            p if p == current => '+',
            p if p == previous => '-',
            _ => ' ',
        };
        let pid = if long {
            format!("{} ", job.pid)
        } else {
            " ".to_string()
        };
        text.push_str(&format!(
            "[{}]{mark} {pid}{:<24}{} &\n",
            job.number, "Running", job.command
        ));
    }
    out(interp, text);
    Ok(status)
}

/// `disown [-ahr] [JOBSPEC...]`: takes jobs out of the table (`jobs`, job
/// specs); they still end with the run, as nothing outlives it.
pub fn disown(interp: &mut Interp, args: &[String]) -> ExecResult {
    let mut every = false;
    let mut specs = Vec::new();
    for a in &args[1..] {
        match a.as_str() {
            "-a" | "-r" => every = true,
            "-h" => {}
            _ => specs.push(a.clone()),
        }
    }
    let all = interp.jobs.pids();
    if every || specs.is_empty() {
        let targets = if every {
            all.clone()
        } else {
            all.last().copied().into_iter().collect()
        };
        if targets.is_empty() && !every {
            err(interp, "disown: current: no such job");
            return Ok(1);
        }
        for pid in targets {
            interp.jobs.disown(pid);
        }
        return Ok(0);
    }
    let mut status = 0;
    for spec in &specs {
        match resolve_job(&all, spec).filter(|p| all.contains(p)) {
            Some(pid) => interp.jobs.disown(pid),
            None => {
                err(interp, format!("disown: {spec}: no such job"));
                status = 1;
            }
        }
    }
    Ok(status)
}

/// `fg` and `bg`: there is no job control in a non-interactive shell.
pub fn fg_bg(interp: &mut Interp, args: &[String]) -> ExecResult {
    err(interp, format!("{}: no job control", args[0]));
    Ok(1)
}
