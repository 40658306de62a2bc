//! What a name means: `type`, `command`, `builtin`, `hash`.

use super::{err, out};
use crate::fs::{FileKind, Fs};
use crate::interp::{CommandKind, ExecResult, Interp};

/// Every executable `NAME` in `$PATH`, in order (`type -a`).
fn path_matches(interp: &Interp, name: &str) -> Vec<String> {
    if name.contains('/') {
        let p = Fs::resolve(&interp.cwd, name);
        return match interp.fs.metadata(&p) {
            Ok(m) if m.kind == FileKind::File && m.mode & 0o111 != 0 => vec![name.to_string()],
            _ => Vec::new(),
        };
    }
    let path = interp.vars.get_str("PATH").unwrap_or("").to_string();
    let mut v = Vec::new();
    let mut fallback = None;
    for dir in path.split(':') {
        let dir = if dir.is_empty() { "." } else { dir };
        let p = format!("{}/{name}", dir.trim_end_matches('/'));
        let abs = Fs::resolve(&interp.cwd, &p);
        if let Ok(m) = interp.fs.metadata(&abs)
            && m.kind == FileKind::File
        {
            if m.mode & 0o111 != 0 {
                if !v.contains(&p) {
                    v.push(p);
                }
            } else if fallback.is_none() {
                fallback = Some(p);
            }
        }
    }
    // Like bash, a non-executable file is reported when nothing executable is.
    if v.is_empty()
        && let Some(p) = fallback
    {
        v.push(p);
    }
    v
}

fn function_text(interp: &Interp, name: &str) -> String {
    interp
        .funcs
        .get(name)
        .map(|f| crate::interp::parse::function_text(f))
        .unwrap_or_default()
}

/// `type [-afptP] NAME...`
pub fn type_(interp: &mut Interp, args: &[String]) -> ExecResult {
    let (mut all, mut short, mut path_only, mut force_path, mut no_funcs) =
        (false, false, false, false, false);
    let mut i = 1;
    while i < args.len() && args[i].starts_with('-') && args[i].len() > 1 {
        if args[i] == "--" {
            i += 1;
            break;
        }
        for c in args[i][1..].chars() {
            match c {
                'a' => all = true,
                't' => short = true,
                'p' => path_only = true,
                'P' => force_path = true,
                'f' => no_funcs = true,
                _ => {
                    return Ok(super::invalid_option(
                        interp,
                        "type",
                        &format!("-{c}"),
                        "type [-afptP] name [name ...]",
                    ));
                }
            }
        }
        i += 1;
    }
    let mut status = 0;
    for name in &args[i..] {
        let mut text = String::new();
        let mut found = false;
        if !force_path {
            if let Some(v) = interp.aliases.get(name.as_str()) {
                found = true;
                if short {
                    text.push_str("alias\n");
                } else if !path_only {
                    text.push_str(&format!("{name} is aliased to `{v}'\n"));
                }
            }
            if (!found || all) && matches!(interp.resolve_command(name), CommandKind::Keyword) {
                found = true;
                if short {
                    text.push_str("keyword\n");
                } else if !path_only {
                    text.push_str(&format!("{name} is a shell keyword\n"));
                }
            }
            if (!found || all) && !no_funcs && interp.funcs.contains_key(name.as_str()) {
                found = true;
                if short {
                    text.push_str("function\n");
                } else if !path_only {
                    text.push_str(&format!(
                        "{name} is a function\n{}\n",
                        function_text(interp, name)
                    ));
                }
            }
            if (!found || all) && super::lookup(name).is_some() {
                found = true;
                if short {
                    text.push_str("builtin\n");
                } else if !path_only {
                    text.push_str(&format!("{name} is a shell builtin\n"));
                }
            }
        }
        if !found || all || force_path {
            let paths = path_matches(interp, name);
            let take = if all { paths.len() } else { paths.len().min(1) };
            for p in &paths[..take] {
                found = true;
                if short {
                    text.push_str("file\n");
                } else if path_only || force_path {
                    text.push_str(&format!("{p}\n"));
                } else {
                    text.push_str(&format!("{name} is {p}\n"));
                }
            }
        }
        if !text.is_empty() && !out(interp, text) {
            // A failed write (a full disk) fails `type`.
            status = 1;
        }
        if !found {
            if !short && !path_only && !force_path {
                err(interp, format!("type: {name}: not found"));
            }
            status = 1;
        }
    }
    Ok(status)
}

/// `command [-pvV] NAME [ARGS]`
pub fn command(interp: &mut Interp, args: &[String]) -> ExecResult {
    let (mut describe, mut verbose, mut default_path) = (false, false, false);
    let mut i = 1;
    while i < args.len() && args[i].starts_with('-') && args[i].len() > 1 {
        if args[i] == "--" {
            i += 1;
            break;
        }
        for c in args[i][1..].chars() {
            match c {
                'p' => default_path = true,
                'v' => describe = true,
                'V' => verbose = true,
                _ => {
                    return Ok(super::invalid_option(
                        interp,
                        "command",
                        &format!("-{c}"),
                        "command [-pVv] command [arg ...]",
                    ));
                }
            }
        }
        i += 1;
    }
    let rest = &args[i..];
    if verbose {
        let mut status = 0;
        for name in rest {
            let mut argv = vec!["type".to_string(), name.clone()];
            // `command -V` reports like `type`, with its own name on errors.
            if resolve_line(interp, name).is_none() {
                err(interp, format!("command: {name}: not found"));
                status = 1;
                continue;
            }
            argv.truncate(2);
            type_(interp, &argv)?;
        }
        return Ok(status);
    }
    if describe {
        // Status 0 when at least one name was found.
        let mut status = 1;
        let mut text = String::new();
        for name in rest {
            if let Some(l) = resolve_line(interp, name) {
                text.push_str(&l);
                status = 0;
            }
        }
        if !text.is_empty() {
            out(interp, text);
        }
        return Ok(status);
    }
    if rest.is_empty() {
        return Ok(0);
    }
    if default_path {
        // `command -p`: search the standard PATH, whatever $PATH says.
        let saved = interp.vars.get_raw("PATH").cloned();
        let _ = interp.vars.set_str("PATH", DEFAULT_PATH);
        let r = interp.run_argv(rest, true);
        match saved {
            Some(v) => {
                if let Some(slot) = interp.vars.get_raw_mut("PATH") {
                    *slot = v;
                }
            }
            None => {
                let _ = interp.vars.unset("PATH");
            }
        }
        return r;
    }
    interp.run_argv(rest, true)
}

/// The PATH `command -p` searches.
const DEFAULT_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// The `command -v` line for `name`, or `None` when it means nothing.
fn resolve_line(interp: &Interp, name: &str) -> Option<String> {
    if let Some(v) = interp.aliases.get(name) {
        return Some(format!("alias {name}='{}'\n", v.replace('\'', "'\\''")));
    }
    match interp.resolve_command(name) {
        CommandKind::Keyword | CommandKind::Function | CommandKind::Builtin => {
            Some(format!("{name}\n"))
        }
        _ => path_matches(interp, name).into_iter().next().map(|p| {
            // A name with a slash is shown as given; a PATH hit in a
            // relative directory is made absolute.
            let shown = if p.starts_with('/') || name.contains('/') {
                p
            } else {
                Fs::resolve(&interp.cwd, &p)
            };
            format!("{shown}\n")
        }),
    }
}

/// `builtin NAME [ARGS]`
pub fn builtin(interp: &mut Interp, args: &[String]) -> ExecResult {
    let skip = if args.get(1).map(|s| s.as_str()) == Some("--") {
        2
    } else {
        1
    };
    let Some(name) = args.get(skip) else {
        return Ok(0);
    };
    match super::lookup(name) {
        Some(f) => super::help::builtin_help(interp, &args[skip..])
            .unwrap_or_else(|| f(interp, &args[skip..])),
        None => {
            err(interp, format!("builtin: {name}: not a shell builtin"));
            Ok(1)
        }
    }
}

/// `hash` without names: the table as bash prints it (`-l`: as commands).
fn print_hash(interp: &mut Interp, reusable: bool) {
    let table = interp.command_hash().clone();
    if table.is_empty() {
        out(interp, "hash: hash table empty\n");
        return;
    }
    let text: String = if reusable {
        let line = |(n, p, _): &(String, String, u32)| format!("builtin hash -p {p} {n}\n");
        table.iter().map(line).collect()
    } else {
        let line = |(_, p, h): &(String, String, u32)| format!("{h:4}\t{p}\n");
        std::iter::once("hits\tcommand\n".to_string())
            .chain(table.iter().map(line))
            .collect()
    };
    out(interp, text);
}

/// `hash NAME`: remembers where NAME is (a builtin or function: nothing).
fn hash_name(interp: &mut Interp, name: &str) -> bool {
    if super::lookup(name).is_some() || interp.funcs.contains_key(name) {
        return true;
    }
    let Some(path) = path_matches(interp, name).into_iter().next() else {
        err(interp, format!("hash: {name}: not found"));
        return false;
    };
    let path = Fs::resolve(&interp.cwd, &path);
    let table = interp.command_hash();
    table.retain(|(n, ..)| n != name);
    table.push((name.to_string(), path, 0));
    true
}

/// `hash [-lr] [-p PATH] [-dt] [NAME...]`: bash's table of command paths.
pub fn hash(interp: &mut Interp, args: &[String]) -> ExecResult {
    let (mut flags, mut i, mut given) = (String::new(), 1, None);
    while let Some(a) = args.get(i).filter(|a| a.starts_with('-') && a.len() > 1) {
        i += 1;
        if a == "--" {
            break;
        }
        for c in a[1..].chars() {
            match c {
                'l' | 'r' | 'd' | 't' => flags.push(c),
                'p' => {
                    given = args.get(i).cloned();
                    i += 1;
                }
                _ => {
                    let usage = "hash [-lr] [-p pathname] [-dt] [name ...]";
                    return Ok(super::invalid_option(
                        interp,
                        "hash",
                        &format!("-{c}"),
                        usage,
                    ));
                }
            }
        }
    }
    if flags.contains('r') {
        interp.command_hash().clear();
    }
    let names = &args[i.min(args.len())..];
    if names.is_empty() {
        if !flags.contains('r') {
            print_hash(interp, flags.contains('l'));
        }
        return Ok(0);
    }
    let mut status = 0;
    for n in names {
        let table = interp.command_hash();
        let pos = table.iter().position(|(name, ..)| name == n);
        let ok = if let Some(p) = &given {
            table.retain(|(name, ..)| name != n);
            table.push((n.clone(), p.clone(), 0));
            true
        } else if flags.contains('d') {
            pos.map(|k| table.remove(k)).is_some()
        } else if flags.contains('t') {
            let path = pos.map(|k| table[k].1.clone());
            path.map(|p| out(interp, format!("{p}\n"))).is_some()
        } else {
            hash_name(interp, n)
        };
        if !ok && (flags.contains('d') || flags.contains('t')) {
            err(interp, format!("hash: {n}: not found"));
        }
        if !ok {
            status = 1;
        }
    }
    Ok(status)
}
