//! Control flow: `exit`, `return`, `break`, `continue`, `shift`, `caller`.

use super::err;
use crate::interp::{ExecResult, Interp, Interrupt};

/// A usage error that makes bash jump back to its top level (`exit 1 2`,
/// `break x`): a `bash -c` shell ends there, a script goes on with its next
/// command.
fn abandon(interp: &Interp, status: i32) -> Interrupt {
    if interp.dash_c {
        Interrupt::Exit(status)
    } else {
        Interrupt::Discard(status)
    }
}

/// Parses a numeric argument of a flow builtin (`exit 3`, `break 2`).
fn numeric(s: &str) -> Option<i64> {
    let t = s.trim_matches([' ', '\t', '\n']);
    let digits = t.strip_prefix(['-', '+']).unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    t.parse::<i64>().ok()
}

/// `exit [N]`
pub fn exit(interp: &mut Interp, args: &[String]) -> ExecResult {
    let mut rest = &args[1..];
    if rest.first().map(|s| s.as_str()) == Some("--") {
        rest = &rest[1..];
    }
    match rest {
        [] => Err(Interrupt::Exit(interp.last_status)),
        [n] => match numeric(n) {
            Some(v) => Err(Interrupt::Exit((v & 255) as i32)),
            None => {
                err(
                    interp,
                    format!("{}: {n}: numeric argument required", args[0]),
                );
                Err(Interrupt::Exit(2))
            }
        },
        [n, ..] => match numeric(n) {
            Some(_) => {
                err(interp, format!("{}: too many arguments", args[0]));
                Err(abandon(interp, 1))
            }
            None => {
                err(
                    interp,
                    format!("{}: {n}: numeric argument required", args[0]),
                );
                Err(Interrupt::Exit(2))
            }
        },
    }
}

/// `return [N]`
pub fn return_(interp: &mut Interp, args: &[String]) -> ExecResult {
    if interp.call_stack.is_empty() {
        err(
            interp,
            "return: can only `return' from a function or sourced script",
        );
        return Ok(2);
    }
    let mut rest = &args[1..];
    if rest.first().map(|s| s.as_str()) == Some("--") {
        rest = &rest[1..];
    }
    match rest {
        [] => Err(Interrupt::Return(interp.last_status)),
        [n] => match numeric(n) {
            Some(v) => Err(Interrupt::Return((v & 255) as i32)),
            None => {
                err(interp, format!("return: {n}: numeric argument required"));
                Err(Interrupt::Return(2))
            }
        },
        _ => {
            err(interp, "return: too many arguments");
            Err(abandon(interp, 1))
        }
    }
}

/// The loop count of `break`/`continue`. A bad count is reported; a
/// non-number or extra arguments abandon the command line (status 128 or 1).
fn loop_count(interp: &mut Interp, args: &[String]) -> Result<Result<u32, i32>, Interrupt> {
    if args.len() > 2 {
        err(interp, format!("{}: too many arguments", args[0]));
        return Err(abandon(interp, 1));
    }
    Ok(match args.get(1) {
        None => Ok(1),
        Some(n) => match numeric(n) {
            Some(v) if v >= 1 => Ok(v.min(u32::MAX as i64) as u32),
            Some(_) => {
                // bash reports it, then leaves the loop anyway.
                err(interp, format!("{}: {n}: loop count out of range", args[0]));
                interp.last_status = 1;
                Err(1)
            }
            None => {
                err(
                    interp,
                    format!("{}: {n}: numeric argument required", args[0]),
                );
                return Err(abandon(interp, 128));
            }
        },
    })
}

/// `break [N]`
pub fn break_(interp: &mut Interp, args: &[String]) -> ExecResult {
    if interp.loop_depth == 0 {
        err(
            interp,
            "break: only meaningful in a `for', `while', or `until' loop",
        );
        return Ok(0);
    }
    let out_of_range = args.get(1).and_then(|n| numeric(n)).is_some_and(|n| n < 1);
    match loop_count(interp, args)? {
        Ok(n) => Err(Interrupt::Break(n)),
        Err(_) if out_of_range => Err(Interrupt::Break(1)),
        Err(st) => Ok(st),
    }
}

/// `continue [N]`
pub fn continue_(interp: &mut Interp, args: &[String]) -> ExecResult {
    if interp.loop_depth == 0 {
        err(
            interp,
            "continue: only meaningful in a `for', `while', or `until' loop",
        );
        return Ok(0);
    }
    if args.get(1).and_then(|n| numeric(n)).is_some_and(|n| n < 1) {
        // `continue 0` leaves the loop, like `break`.
        return match loop_count(interp, args)? {
            Ok(n) => Err(Interrupt::Continue(n)),
            Err(_) => Err(Interrupt::Break(1)),
        };
    }
    match loop_count(interp, args)? {
        Ok(n) => Err(Interrupt::Continue(n)),
        Err(st) => Ok(st),
    }
}

/// `shift [N]`
pub fn shift(interp: &mut Interp, args: &[String]) -> ExecResult {
    if args.len() > 2 {
        err(interp, "shift: too many arguments");
        return Err(abandon(interp, 1));
    }
    let n = match args.get(1) {
        None => 1,
        Some(a) => match numeric(a) {
            Some(v) if v >= 0 => v as usize,
            Some(_) => {
                err(interp, format!("shift: {a}: shift count out of range"));
                return Ok(1);
            }
            None => {
                err(interp, format!("shift: {a}: numeric argument required"));
                return Ok(1);
            }
        },
    };
    if n > interp.positional.len() {
        if interp.opts.get_shopt("shift_verbose") == Some(true) {
            err(interp, format!("shift: {n}: shift count out of range"));
        }
        return Ok(1);
    }
    interp.positional.drain(..n);
    Ok(0)
}

/// `caller [N]`: the line and function that called the current function.
pub fn caller(interp: &mut Interp, args: &[String]) -> ExecResult {
    if interp.call_stack.is_empty() {
        return Ok(1);
    }
    let depth = interp.call_stack.len();
    // The line frame `n` (0 = innermost) was called from.
    let line_of = |n: usize| interp.call_lines.get(depth - 1 - n).copied().unwrap_or(0);
    let text = match args.get(1) {
        None => {
            let line = line_of(0);
            let name = if depth >= 2 {
                interp.call_stack[depth - 2].clone()
            } else {
                "NULL".to_string()
            };
            format!("{line} {name}\n")
        }
        Some(n) => {
            let Some(n) = numeric(n).filter(|n| *n >= 0) else {
                err(interp, format!("caller: {n}: invalid number"));
                return Ok(2);
            };
            let n = n as usize;
            if n >= depth {
                return Ok(1);
            }
            let line = line_of(n);
            let name = if depth >= n + 2 {
                interp.call_stack[depth - n - 2].clone()
            } else {
                "main".to_string()
            };
            format!("{line} {name} {}\n", interp.arg0)
        }
    };
    Ok(if super::out(interp, text) { 0 } else { 1 })
}
