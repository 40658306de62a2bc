//! `trap` (stored in `Interp::traps`, keyed by `EXIT`, `ERR`, `DEBUG`,
//! `RETURN` or a signal name without `SIG`; the executor runs them) and the
//! signal table that `trap -l` and `kill -l` print.

use super::{err, out};
use crate::interp::{ExecResult, Interp};

/// Linux signal names by number (index 0 unused; 32 and 33 do not exist).
pub fn signal_name(n: i64) -> Option<String> {
    const NAMES: [&str; 32] = [
        "", "HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "BUS", "FPE", "KILL", "USR1", "SEGV",
        "USR2", "PIPE", "ALRM", "TERM", "STKFLT", "CHLD", "CONT", "STOP", "TSTP", "TTIN", "TTOU",
        "URG", "XCPU", "XFSZ", "VTALRM", "PROF", "WINCH", "IO", "PWR", "SYS",
    ];
    match n {
        1..=31 => Some(NAMES[n as usize].to_string()),
        34 => Some("RTMIN".into()),
        35..=49 => Some(format!("RTMIN+{}", n - 34)),
        50..=63 => Some(format!("RTMAX-{}", 64 - n)),
        64 => Some("RTMAX".into()),
        _ => None,
    }
}

/// The number of a signal given as `9`, `KILL`, `SIGKILL` or `kill`.
pub fn signal_number(spec: &str) -> Option<i64> {
    if let Ok(n) = spec.parse::<i64>() {
        return signal_name(n).map(|_| n);
    }
    let up = spec.to_ascii_uppercase();
    let bare = up.strip_prefix("SIG").unwrap_or(&up);
    (1..=64).find(|&n| signal_name(n).as_deref() == Some(bare))
}

/// The `kill -l` / `trap -l` table.
pub fn signal_table() -> String {
    let nums: Vec<i64> = (1..=64).filter(|n| signal_name(*n).is_some()).collect();
    let mut s = String::new();
    for (i, n) in nums.iter().enumerate() {
        s.push_str(&format!(
            "{n:2}) SIG{}",
            signal_name(*n).unwrap_or_default()
        ));
        s.push(if i % 5 == 4 { '\n' } else { '\t' });
    }
    if !s.ends_with('\n') {
        s.push('\n');
    }
    s
}

/// The `interp.traps` key for a trap spec, or `None` for an invalid one.
fn trap_key(spec: &str) -> Option<String> {
    let up = spec.to_ascii_uppercase();
    match up.as_str() {
        "0" | "EXIT" | "SIGEXIT" => return Some("EXIT".into()),
        "ERR" | "DEBUG" | "RETURN" => return Some(up),
        _ => {}
    }
    signal_number(spec).and_then(signal_name)
}

/// Display order: EXIT, signals by number, then DEBUG, ERR, RETURN.
fn order(key: &str) -> i64 {
    match key {
        "EXIT" => 0,
        "DEBUG" => 100,
        "ERR" => 101,
        "RETURN" => 102,
        k => signal_number(k).unwrap_or(99),
    }
}

fn shown(key: &str) -> String {
    match key {
        "EXIT" | "DEBUG" | "ERR" | "RETURN" => key.to_string(),
        k => format!("SIG{k}"),
    }
}

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

fn listing(interp: &Interp, only: Option<&[String]>) -> String {
    let mut keys: Vec<&String> = interp.traps.keys().collect();
    keys.sort_by_key(|k| order(k));
    let mut s = String::new();
    for k in keys {
        if let Some(only) = only
            && !only
                .iter()
                .any(|o| trap_key(o).as_deref() == Some(k.as_str()))
        {
            continue;
        }
        s.push_str(&format!(
            "trap -- {} {}\n",
            quote(&interp.traps[k]),
            shown(k)
        ));
    }
    s
}

/// `trap [-lp] [[ACTION] SIGSPEC ...]`
pub fn trap(interp: &mut Interp, args: &[String]) -> ExecResult {
    let mut rest = &args[1..];
    let mut print = false;
    while let Some(a) = rest.first() {
        match a.as_str() {
            "-l" => {
                let t = signal_table();
                return Ok(if out(interp, t) { 0 } else { 1 });
            }
            "-p" => print = true,
            "--" => {
                rest = &rest[1..];
                break;
            }
            a if a.starts_with('-') && a.len() > 1 => {
                // bash names a bad numeric option whole (`-1`), else by
                // its first letter (`-I` for `-INT`).
                let bad = if a.as_bytes()[1].is_ascii_digit() {
                    a
                } else {
                    &a[..a.char_indices().nth(2).map_or(a.len(), |(i, _)| i)]
                };
                return Ok(super::invalid_option(
                    interp,
                    "trap",
                    bad,
                    "trap [-lp] [[arg] signal_spec ...]",
                ));
            }
            _ => break,
        }
        rest = &rest[1..];
    }
    if rest.is_empty() || print {
        let t = listing(interp, if rest.is_empty() { None } else { Some(rest) });
        return Ok(if out(interp, t) { 0 } else { 1 });
    }
    // A single operand that names a signal resets it (POSIX).
    // So does a first operand that is an unsigned integer: every operand is then a signal.
    let unsigned = !rest[0].is_empty() && rest[0].bytes().all(|b| b.is_ascii_digit());
    let (action, specs) = if rest.len() == 1 || unsigned {
        ("-", rest)
    } else {
        (rest[0].as_str(), &rest[1..])
    };
    let mut status = 0;
    for spec in specs {
        match trap_key(spec) {
            Some(k) => {
                if action == "-" {
                    interp.traps.remove(&k);
                } else {
                    interp.traps.insert(k, action.to_string());
                }
            }
            None => {
                err(
                    interp,
                    format!("trap: {spec}: invalid signal specification"),
                );
                status = 1;
            }
        }
    }
    Ok(status)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signal_names() {
        assert_eq!(signal_number("SIGKILL"), Some(9));
        assert_eq!(signal_number("term"), Some(15));
        assert_eq!(signal_name(35).as_deref(), Some("RTMIN+1"));
        assert!(signal_table().starts_with(" 1) SIGHUP\t 2) SIGINT"));
        assert!(signal_table().ends_with("64) SIGRTMAX\t\n"));
        assert_eq!(trap_key("0").as_deref(), Some("EXIT"));
    }
}
