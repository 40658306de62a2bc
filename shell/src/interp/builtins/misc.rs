//! Small builtins: `:`, `true`, `false`, `let`, `times`, `wait`, `kill`,
//! `umask`, `ulimit`, `exec CMD`, `help`. None of them reaches the host:
//! `kill` has no host processes to signal and `umask` is a per-shell value.

use super::trap::{signal_name, signal_number, signal_table};
use super::{err, out};
use crate::interp::{ExecResult, Interp, Interrupt};

/// `:`
pub fn colon(_: &mut Interp, _: &[String]) -> ExecResult {
    Ok(0)
}

/// `true`
pub fn true_(_: &mut Interp, _: &[String]) -> ExecResult {
    Ok(0)
}

/// `false`
pub fn false_(_: &mut Interp, _: &[String]) -> ExecResult {
    Ok(1)
}

/// `let EXPR...`: status 0 when the last value is non-zero.
pub fn let_(interp: &mut Interp, args: &[String]) -> ExecResult {
    if args.len() < 2 {
        err(interp, "let: expression expected");
        return Ok(1);
    }
    let mut last = 0;
    for a in &args[1..] {
        match interp.eval_arith_cmd(a, "let")? {
            Some(v) => last = v,
            None => return Ok(1),
        }
    }
    Ok(if last == 0 { 1 } else { 0 })
}

/// `times`: the shell and its children used no measurable CPU time.
pub fn times(interp: &mut Interp, _: &[String]) -> ExecResult {
    Ok(if out(interp, "0m0.000s 0m0.000s\n0m0.000s 0m0.000s\n") {
        0
    } else {
        1
    })
}

/// `wait [-n] [PID...]`: background jobs have already finished here.
pub fn wait(interp: &mut Interp, args: &[String]) -> ExecResult {
    let jobs = interp.jobs.lock().map(|j| j.clone()).unwrap_or_default();
    let mut status = 0;
    let mut any = false;
    for a in &args[1..] {
        if a == "-n" {
            status = jobs.last().map_or(127, |(_, s)| *s);
            any = true;
            continue;
        }
        if a.starts_with('-') {
            continue;
        }
        any = true;
        if !a.starts_with('%') && (a.is_empty() || !a.bytes().all(|b| b.is_ascii_digit())) {
            err(interp, format!("wait: `{a}': not a pid or valid job spec"));
            status = 1;
            continue;
        }
        let pid = resolve_job(&jobs, a);
        match pid.and_then(|p| jobs.iter().find(|(j, _)| *j == p)) {
            Some((p, s)) => {
                status = *s;
                // A waited-for job leaves the job table (`wait %%` twice
                // fails the second time); its pid's status stays known.
                if a.starts_with('%') {
                    let p = *p;
                    if let Ok(mut j) = interp.jobs.lock() {
                        j.retain(|(q, _)| *q != p);
                    }
                }
            }
            None => {
                if a.starts_with('%') {
                    err(interp, format!("wait: {a}: no such job"));
                } else {
                    err(
                        interp,
                        format!("wait: pid {a} is not a child of this shell"),
                    );
                }
                status = 127;
            }
        }
    }
    if !any {
        status = 0;
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
    // Skip the signal spec.
    let mut sig = 15;
    if rest[0] == "-s" || rest[0] == "-n" {
        let Some(spec) = rest.get(1) else {
            err(
                interp,
                format!("kill: {}: option requires an argument", rest[0]),
            );
            return Ok(2);
        };
        if signal_number(spec).is_none() && spec != "0" {
            err(
                interp,
                format!("kill: {spec}: invalid signal specification"),
            );
            return Ok(1);
        }
        sig = signal_number(spec).unwrap_or(0);
        rest = &rest[2..];
    } else if let Some(spec) = rest[0].strip_prefix('-') {
        if rest[0] == "--" {
            rest = &rest[1..];
        } else {
            if signal_number(spec).is_none() && spec != "0" {
                err(
                    interp,
                    format!("kill: {spec}: invalid signal specification"),
                );
                return Ok(1);
            }
            sig = signal_number(spec).unwrap_or(0);
            rest = &rest[1..];
        }
    }
    if rest.is_empty() {
        let _ = interp.write_fd(2, format!("kill: usage: {KILL_USAGE}\n").as_bytes());
        return Ok(2);
    }
    let mut status = 0;
    for p in rest {
        // Background jobs run to completion when started; one still in the
        // job table (not yet waited for) takes the signal as its status, as
        // if it had been running: `sleep 1 & kill $!; wait $!` gives 143.
        let jobs = interp.jobs.lock().map(|j| j.clone()).unwrap_or_default();
        if let Some(pid) = resolve_job(&jobs, p).filter(|q| jobs.iter().any(|(j, _)| j == q)) {
            if sig != 0
                && let Ok(mut j) = interp.jobs.lock()
                && let Some(entry) = j.iter_mut().find(|(q, _)| *q == pid)
            {
                entry.1 = 128 + sig as i32;
            }
            continue;
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

/// The pid a `wait`/`kill` operand names: a pid, or a job spec (`%%`, `%+`,
/// `%` the current job, `%-` the previous one, `%N` job number N).
fn resolve_job(jobs: &[(u32, i32)], spec: &str) -> Option<u32> {
    let Some(js) = spec.strip_prefix('%') else {
        return spec.parse().ok();
    };
    match js {
        "" | "%" | "+" => jobs.last().map(|j| j.0),
        "-" => jobs
            .len()
            .checked_sub(2)
            .map_or(jobs.last(), |i| jobs.get(i))
            .map(|j| j.0),
        n => {
            let n: usize = n.parse().ok()?;
            jobs.get(n.checked_sub(1)?).map(|j| j.0)
        }
    }
}

/// Hidden variable holding the shell's file-creation mask (invisible to
/// scripts: its name is not an identifier). The host umask is never touched.
const UMASK: &str = "\u{1}umask";

fn current_umask(interp: &Interp) -> u32 {
    interp
        .vars
        .get_str(UMASK)
        .and_then(|s| u32::from_str_radix(s, 8).ok())
        .unwrap_or(0o022)
}

fn symbolic(mask: u32) -> String {
    let part = |shift: u32| {
        let allowed = !mask >> shift & 7;
        let mut s = String::new();
        if allowed & 4 != 0 {
            s.push('r');
        }
        if allowed & 2 != 0 {
            s.push('w');
        }
        if allowed & 1 != 0 {
            s.push('x');
        }
        s
    };
    format!("u={},g={},o={}", part(6), part(3), part(0))
}

/// Applies a symbolic mode (`u=rwx,g=rx,o=`) to a mask.
fn apply_symbolic(mask: u32, spec: &str) -> Option<u32> {
    let mut allowed = !mask & 0o777;
    for clause in spec.split(',') {
        let op_pos = clause.find(['=', '+', '-'])?;
        let (who, rest) = clause.split_at(op_pos);
        let op = rest.as_bytes()[0];
        let mut perm = 0;
        for c in rest[1..].chars() {
            perm |= match c {
                'r' => 4,
                'w' => 2,
                'x' => 1,
                _ => return None,
            };
        }
        let shifts: Vec<u32> = if who.is_empty() || who.contains('a') {
            vec![6, 3, 0]
        } else {
            who.chars()
                .map(|c| match c {
                    'u' => Some(6),
                    'g' => Some(3),
                    'o' => Some(0),
                    _ => None,
                })
                .collect::<Option<Vec<u32>>>()?
        };
        for s in shifts {
            match op {
                b'=' => allowed = (allowed & !(7 << s)) | (perm << s),
                b'+' => allowed |= perm << s,
                _ => allowed &= !(perm << s),
            }
        }
    }
    Some(!allowed & 0o777)
}

/// `umask [-p] [-S] [MODE]`
pub fn umask(interp: &mut Interp, args: &[String]) -> ExecResult {
    let (mut sym, mut print) = (false, false);
    let mut mode = None;
    for a in &args[1..] {
        match a.as_str() {
            "-S" => sym = true,
            "-p" => print = true,
            a if a.starts_with('-') && a.len() > 1 => {
                return Ok(super::invalid_option(
                    interp,
                    "umask",
                    &a[..2],
                    "umask [-p] [-S] [mode]",
                ));
            }
            a => mode = Some(a.to_string()),
        }
    }
    let mask = current_umask(interp);
    match mode {
        None => {
            let text = if sym {
                format!(
                    "{}{}\n",
                    if print { "umask -S " } else { "" },
                    symbolic(mask)
                )
            } else {
                format!("{}{mask:04o}\n", if print { "umask " } else { "" })
            };
            Ok(if out(interp, text) { 0 } else { 1 })
        }
        Some(m) => {
            let new = if m.bytes().all(|b| b.is_ascii_digit()) {
                match u32::from_str_radix(&m, 8) {
                    Ok(v) if v <= 0o777 => v,
                    _ => {
                        err(interp, format!("umask: {m}: octal number out of range"));
                        return Ok(1);
                    }
                }
            } else {
                match apply_symbolic(mask, &m) {
                    Some(v) => v,
                    None => {
                        err(
                            interp,
                            format!(
                                "umask: `{}': invalid symbolic mode operator",
                                m.chars().last().unwrap_or(' ')
                            ),
                        );
                        return Ok(1);
                    }
                }
            };
            let _ = interp.vars.set_str(UMASK, format!("{new:04o}"));
            if sym {
                let t = format!("{}\n", symbolic(new));
                out(interp, t);
            }
            Ok(0)
        }
    }
}

/// `ulimit [-SHa...] [LIMIT]`: the sandbox's limits are not rlimits; every
/// resource reads as `unlimited` and setting one is accepted.
pub fn ulimit(interp: &mut Interp, args: &[String]) -> ExecResult {
    if args[1..].iter().any(|a| a == "-a") {
        let text = "core file size              (blocks, -c) unlimited\n\
data seg size               (kbytes, -d) unlimited\n\
file size                   (blocks, -f) unlimited\n\
max memory size             (kbytes, -m) unlimited\n\
open files                          (-n) unlimited\n\
stack size                  (kbytes, -s) unlimited\n\
cpu time                   (seconds, -t) unlimited\n\
max user processes                  (-u) unlimited\n\
virtual memory              (kbytes, -v) unlimited\n";
        return Ok(if out(interp, text) { 0 } else { 1 });
    }
    let setting = args[1..].iter().any(|a| !a.starts_with('-'));
    if setting {
        return Ok(0);
    }
    Ok(if out(interp, "unlimited\n") { 0 } else { 1 })
}

/// `exec CMD ARGS`: runs CMD in place of the shell, which then ends with
/// its status. (`exec` with only redirections is handled by the executor.)
pub fn exec(interp: &mut Interp, args: &[String]) -> ExecResult {
    let mut i = 1;
    while i < args.len() {
        match args[i].as_str() {
            "--" => {
                i += 1;
                break;
            }
            "-c" | "-l" => i += 1,
            "-a" => i += 2,
            _ => break,
        }
    }
    let rest = &args[i.min(args.len())..];
    if rest.is_empty() {
        return Ok(0);
    }
    let status = interp.run_argv(rest, true)?;
    Err(Interrupt::Exit(status))
}

/// `help [NAME]`: one-line synopses.
pub fn help(interp: &mut Interp, args: &[String]) -> ExecResult {
    const SYNOPSES: &[(&str, &str)] = &[
        ("cd", "cd [-L|[-P [-e]] [-@]] [dir]"),
        (
            "declare",
            "declare [-aAfFgiIlnrtux] [name[=value] ...] or declare -p [-aAfFilnrtux] [name ...]",
        ),
        ("echo", "echo [-neE] [arg ...]"),
        ("exit", "exit [n]"),
        ("export", "export [-fn] [name[=value] ...] or export -p"),
        ("getopts", "getopts optstring name [arg ...]"),
        ("local", "local [option] name[=value] ..."),
        ("printf", "printf [-v var] format [arguments]"),
        (
            "read",
            "read [-ers] [-a array] [-d delim] [-i text] [-n nchars] [-N nchars] [-p prompt] [-t timeout] [-u fd] [name ...]",
        ),
        (
            "set",
            "set [-abefhkmnptuvxBCEHPT] [-o option-name] [--] [-] [arg ...]",
        ),
        ("shift", "shift [n]"),
        ("test", "test [expr]"),
        ("trap", "trap [-lp] [[arg] signal_spec ...]"),
        ("type", "type [-afptP] name [name ...]"),
        ("unset", "unset [-f] [-v] [-n] [name ...]"),
    ];
    if args.len() < 2 {
        let mut text =
            String::from("sandkeep shell: bash builtins. Type `help name' for a synopsis.\n\n");
        for n in super::names() {
            text.push_str(n);
            text.push('\n');
        }
        return Ok(if out(interp, text) { 0 } else { 1 });
    }
    let mut status = 0;
    for name in &args[1..] {
        if let Some((_, s)) = SYNOPSES.iter().find(|(n, _)| n == name) {
            out(interp, format!("{name}: {s}\n"));
        } else if super::lookup(name).is_some() {
            out(interp, format!("{name}: {name} [arg ...]\n"));
        } else {
            err(
                interp,
                format!(
                    "help: no help topics match `{name}'.  Try `help help' or `man -k {name}' or `info {name}'."
                ),
            );
            status = 1;
        }
    }
    Ok(status)
}
