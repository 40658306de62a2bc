//! `set` (flags, `-o NAME`, positional parameters, the variable listing)
//! and `shopt`.

use super::{err, out};
use crate::builtin_core::quote::quote_set_style;
use crate::interp::options::{Options, SET_O_OPTIONS, SHOPT_OPTIONS};
use crate::interp::{ExecResult, Interp, Value};

const SET_USAGE: &str = "set [-abefhkmnptuvxBCEHPT] [-o option-name] [--] [-] [arg ...]";

/// `set`
pub fn set(interp: &mut Interp, args: &[String]) -> ExecResult {
    if args.len() == 1 {
        let text = listing(interp);
        return Ok(if out(interp, text) { 0 } else { 1 });
    }
    let mut i = 1;
    let mut positional: Option<Vec<String>> = None;
    while i < args.len() {
        let a = &args[i];
        if a == "--" {
            positional = Some(args[i + 1..].to_vec());
            break;
        }
        if a == "-" {
            interp.opts.xtrace = false;
            interp.opts.verbose = false;
            positional = Some(args[i + 1..].to_vec()).filter(|p| !p.is_empty());
            break;
        }
        let on = match a.as_bytes().first() {
            Some(b'-') => true,
            Some(b'+') => false,
            _ => {
                positional = Some(args[i..].to_vec());
                break;
            }
        };
        if a.len() == 1 {
            // A lone `+` is ignored.
            i += 1;
            continue;
        }
        for c in a[1..].chars() {
            if c == 'o' {
                match args.get(i + 1) {
                    Some(name) => {
                        i += 1;
                        if !interp.opts.set_set_option(name, on) {
                            err(interp, format!("set: {name}: invalid option name"));
                            return Ok(2);
                        }
                    }
                    None => {
                        let text = if on {
                            list_set_o(&interp.opts)
                        } else {
                            list_set_plus_o(&interp.opts)
                        };
                        if !out(interp, text) {
                            return Ok(1);
                        }
                    }
                }
                continue;
            }
            match Options::flag_name(c) {
                Some(name) => {
                    interp.opts.set_set_option(name, on);
                }
                None => {
                    let sign = if on { '-' } else { '+' };
                    return Ok(super::invalid_option(
                        interp,
                        "set",
                        &format!("{sign}{c}"),
                        SET_USAGE,
                    ));
                }
            }
        }
        i += 1;
    }
    if let Some(p) = positional {
        interp.positional = p;
        interp.positional_sets = interp.positional_sets.wrapping_add(1);
    }
    Ok(0)
}

fn list_set_o(o: &Options) -> String {
    let mut s = String::new();
    for (name, _) in SET_O_OPTIONS {
        let on = o.get_set_option(name).unwrap_or(false);
        s.push_str(&format!("{name:<15}\t{}\n", if on { "on" } else { "off" }));
    }
    s
}

fn list_set_plus_o(o: &Options) -> String {
    let mut s = String::new();
    for (name, _) in SET_O_OPTIONS {
        let on = o.get_set_option(name).unwrap_or(false);
        s.push_str(&format!("set {}o {name}\n", if on { '-' } else { '+' }));
    }
    s
}

/// `set` with no arguments: every variable as `name=value`, quoted for reuse.
fn listing(interp: &Interp) -> String {
    let mut s = String::new();
    for (name, var) in interp.vars.visible() {
        if !crate::interp::vars::is_valid_name(&name) {
            continue;
        }
        let Some(v) = &var.value else { continue };
        match v {
            Value::Str(x) => s.push_str(&format!("{name}={}\n", quote_set_style(x))),
            Value::Indexed(_) | Value::Assoc(_) => {
                s.push_str(&format!("{name}={}\n", super::declare::array_body(v)));
            }
        }
    }
    s
}

const SHOPT_USAGE: &str = "shopt [-pqsu] [-o] [optname ...]";

/// `shopt`
pub fn shopt(interp: &mut Interp, args: &[String]) -> ExecResult {
    let (flags, i) = match super::flag_letters(interp, "shopt", args, "supqo", SHOPT_USAGE) {
        Ok(parsed) => parsed,
        Err(status) => return Ok(status),
    };
    let [set, unset, print, quiet, set_o] =
        [b's', b'u', b'p', b'q', b'o'].map(|c| flags.contains(c as char));
    if set && unset {
        err(
            interp,
            "shopt: cannot set and unset shell options simultaneously",
        );
        return Ok(1);
    }
    let names = &args[i..];
    let table = if set_o { SET_O_OPTIONS } else { SHOPT_OPTIONS };
    let get = |o: &Options, n: &str| {
        if set_o {
            o.get_set_option(n)
        } else {
            o.get_shopt(n)
        }
    };
    let line = |n: &str, on: bool, print: bool| {
        if print {
            if set_o {
                format!("set {}o {n}\n", if on { '-' } else { '+' })
            } else {
                format!("shopt {} {n}\n", if on { "-s" } else { "-u" })
            }
        } else {
            format!("{n:<15}\t{}\n", if on { "on" } else { "off" })
        }
    };
    if names.is_empty() {
        if quiet {
            return Ok(0);
        }
        let mut s = String::new();
        for (n, _) in table {
            let on = get(&interp.opts, n).unwrap_or(false);
            if (set && !on) || (unset && on) {
                continue;
            }
            s.push_str(&line(n, on, print));
        }
        return Ok(if out(interp, s) { 0 } else { 1 });
    }
    let mut status = 0;
    let mut text = String::new();
    for n in names {
        let known = get(&interp.opts, n);
        let Some(on) = known else {
            let what = if set_o {
                "invalid option name"
            } else {
                "invalid shell option name"
            };
            err(interp, format!("shopt: {n}: {what}"));
            status = 1;
            continue;
        };
        if set || unset {
            if set_o {
                interp.opts.set_set_option(n, set);
            } else {
                interp.opts.set_shopt(n, set);
            }
        } else {
            if !on {
                status = 1;
            }
            if !quiet {
                text.push_str(&line(n, on, print));
            }
        }
    }
    if !text.is_empty() && !out(interp, text) {
        return Ok(1);
    }
    Ok(status)
}
