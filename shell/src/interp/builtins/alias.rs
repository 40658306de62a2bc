//! `alias` and `unalias`.

use super::{err, out};
use crate::interp::{ExecResult, Interp};

fn quote(v: &str) -> String {
    format!("'{}'", v.replace('\'', "'\\''"))
}

/// `alias [-p] [NAME[=VALUE] ...]`
pub fn alias(interp: &mut Interp, args: &[String]) -> ExecResult {
    let mut rest = &args[1..];
    let mut print_all = rest.is_empty();
    while let Some(a) = rest.first() {
        match a.as_str() {
            "-p" => print_all = true,
            "--" => {
                rest = &rest[1..];
                break;
            }
            a if a.starts_with('-') && a.len() > 1 => {
                return Ok(super::invalid_option(
                    interp,
                    "alias",
                    super::option_head(a),
                    "alias [-p] [name[=value] ... ]",
                ));
            }
            _ => break,
        }
        rest = &rest[1..];
    }
    let mut text = String::new();
    if print_all {
        let mut names: Vec<&String> = interp.aliases.keys().collect();
        names.sort();
        for n in names {
            text.push_str(&format!("alias {n}={}\n", quote(&interp.aliases[n])));
        }
    }
    let mut status = 0;
    for a in rest {
        match a.split_once('=') {
            Some((n, v)) if !n.is_empty() => {
                if n.contains([
                    '/', '$', '`', '=', ' ', '\t', '\n', '\'', '"', '\\', '|', '&', ';', '(', ')',
                    '<', '>',
                ]) {
                    err(interp, format!("alias: `{n}': invalid alias name"));
                    status = 1;
                    continue;
                }
                interp.aliases.insert(n.to_string(), v.to_string());
            }
            _ => match interp.aliases.get(a.as_str()) {
                Some(v) => text.push_str(&format!("alias {a}={}\n", quote(v))),
                None => {
                    if !text.is_empty() {
                        out(interp, std::mem::take(&mut text));
                    }
                    err(interp, format!("alias: {a}: not found"));
                    status = 1;
                }
            },
        }
    }
    if !text.is_empty() && !out(interp, text) {
        return Ok(1);
    }
    Ok(status)
}

/// `unalias [-a] NAME...`
pub fn unalias(interp: &mut Interp, args: &[String]) -> ExecResult {
    let rest = &args[1..];
    if rest.first().map(|s| s.as_str()) == Some("-a") {
        interp.aliases.clear();
        return Ok(0);
    }
    if rest.is_empty() {
        let _ = interp.write_fd(2, b"unalias: usage: unalias [-a] name [name ...]\n");
        return Ok(2);
    }
    let mut status = 0;
    for n in rest {
        if n == "--" {
            continue;
        }
        if interp.aliases.remove(n.as_str()).is_none() {
            err(interp, format!("unalias: {n}: not found"));
            status = 1;
        }
    }
    Ok(status)
}
