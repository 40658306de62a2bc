//! Small builtins: `:`, `true`, `false`, `let`, `times`, `umask`, `ulimit`,
//! `exec CMD`. None of them reaches the host: `umask` is a per-shell
//! value.

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

/// Hidden variable holding the shell's file-creation mask (invisible to
/// scripts: its name is not an identifier). The host umask is never touched.
const UMASK: &str = "\u{1}umask";

/// The shell's file-creation mask (`umask`), 022 until set.
pub(crate) fn current_umask(interp: &Interp) -> u32 {
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
                    super::option_head(a),
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
