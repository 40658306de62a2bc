//! The working directory: `cd`, `pwd`, and the directory stack (`pushd`,
//! `popd`, `dirs`). Only the virtual tree is ever consulted.

use super::{err, out};
use crate::fs::{FileKind, Fs, FsError};
use crate::interp::{ExecResult, Interp};

/// Changes to `dir` (already chosen), updating `PWD`/`OLDPWD`. `Err` holds
/// the message after `cd: `.
fn change_dir(interp: &mut Interp, shown: &str, dir: &str, physical: bool) -> Result<(), String> {
    // Like bash, `cd missing/..` fails: every directory a `..` climbs out
    // of must exist.
    if dir.split('/').any(|c| c == "..") {
        let mut path = if dir.starts_with('/') {
            String::from("/")
        } else {
            interp.cwd.clone()
        };
        for comp in dir.split('/') {
            if comp == ".." {
                match interp.fs.metadata(&path) {
                    Ok(m) if m.kind == FileKind::Dir => {}
                    Ok(_) => return Err(format!("{shown}: Not a directory")),
                    Err(e) => return Err(format!("{shown}: {}", fs_msg(&e))),
                }
            }
            path = Fs::resolve(&path, comp);
        }
    }
    let target = Fs::resolve(&interp.cwd, dir);
    let meta = interp
        .fs
        .metadata(&target)
        .map_err(|e| format!("{shown}: {}", fs_msg(&e)))?;
    if meta.kind != FileKind::Dir {
        return Err(format!("{shown}: Not a directory"));
    }
    if meta.mode & 0o100 == 0 {
        return Err(format!("{shown}: Permission denied"));
    }
    let new = if physical {
        interp.fs.canonicalize(&target).unwrap_or(target)
    } else {
        target
    };
    let old = std::mem::replace(&mut interp.cwd, new.clone());
    for (name, value) in [("OLDPWD", old), ("PWD", new)] {
        if interp.vars.set_str(name, value).is_ok()
            && let Some(v) = interp.vars.get_mut(name)
        {
            // bash exports both once `cd` has set them.
            v.attrs.insert(crate::interp::Attrs::EXPORT);
        }
    }
    Ok(())
}

/// The `strerror` text of a filesystem error.
fn fs_msg(e: &FsError) -> String {
    let s = e.to_string();
    // FsError's Display may include the path; keep only the reason.
    match s.rsplit_once(": ") {
        Some((_, reason)) => reason.to_string(),
        None => s,
    }
}

/// `cd [-L|-P] [DIR]`
pub fn cd(interp: &mut Interp, args: &[String]) -> ExecResult {
    let mut physical = false;
    let mut i = 1;
    while i < args.len() {
        match args[i].as_str() {
            "--" => {
                i += 1;
                break;
            }
            "-L" => physical = false,
            "-P" => physical = true,
            "-e" | "-@" | "-Pe" | "-eP" => {}
            a if a.starts_with('-') && a.len() > 1 => {
                return Ok(super::invalid_option(
                    interp,
                    "cd",
                    a,
                    "cd [-L|[-P [-e]] [-@]] [dir]",
                ));
            }
            _ => break,
        }
        i += 1;
    }
    let rest = &args[i..];
    if rest.len() > 1 {
        err(interp, "cd: too many arguments");
        return Ok(1);
    }
    let (dir, print) = match rest.first().map(|s| s.as_str()) {
        None => match interp.vars.get_str("HOME") {
            Some(h) => (h.to_string(), false),
            None => {
                err(interp, "cd: HOME not set");
                return Ok(1);
            }
        },
        Some("") => return Ok(0),
        Some("-") => match interp.vars.get_str("OLDPWD") {
            Some(o) if !o.is_empty() => (o.to_string(), true),
            _ => {
                err(interp, "cd: OLDPWD not set");
                return Ok(1);
            }
        },
        Some(d) => (d.to_string(), false),
    };
    // CDPATH applies to relative names that do not start with `.` or `..`.
    let relative = !dir.starts_with('/')
        && !dir.starts_with("./")
        && !dir.starts_with("../")
        && dir != "."
        && dir != "..";
    if relative && let Some(cdpath) = interp.vars.get_str("CDPATH").map(|s| s.to_string()) {
        for entry in cdpath.split(':') {
            let base = if entry.is_empty() { "." } else { entry };
            let candidate = Fs::resolve(&Fs::resolve(&interp.cwd, base), &dir);
            if interp
                .fs
                .metadata(&candidate)
                .is_ok_and(|m| m.kind == FileKind::Dir)
                && change_dir(interp, &dir, &candidate, physical).is_ok()
            {
                if !entry.is_empty() {
                    let cwd = format!("{}\n", interp.cwd);
                    out(interp, cwd);
                }
                return Ok(0);
            }
        }
    }
    match change_dir(interp, &dir, &dir, physical) {
        Ok(()) => {
            if print {
                let cwd = format!("{}\n", interp.cwd);
                out(interp, cwd);
            }
            Ok(0)
        }
        Err(m) => {
            err(interp, format!("cd: {m}"));
            Ok(1)
        }
    }
}

/// `pwd [-L|-P]`
pub fn pwd(interp: &mut Interp, args: &[String]) -> ExecResult {
    let mut physical = false;
    for a in &args[1..] {
        match a.as_str() {
            "-L" => physical = false,
            "-P" => physical = true,
            "--" => break,
            a if a.starts_with('-') && a.len() > 1 => {
                return Ok(super::invalid_option(
                    interp,
                    "pwd",
                    super::option_head(a),
                    "pwd [-LP]",
                ));
            }
            _ => {}
        }
    }
    let dir = if physical {
        interp
            .fs
            .canonicalize(&interp.cwd)
            .unwrap_or_else(|_| interp.cwd.clone())
    } else {
        interp.cwd.clone()
    };
    Ok(if out(interp, format!("{dir}\n")) {
        0
    } else {
        1
    })
}

/// Replaces a leading `$HOME` with `~` (what `dirs` shows without `-l`).
fn tilde(interp: &Interp, dir: &str, long: bool) -> String {
    if !long
        && let Some(home) = interp.vars.get_str("HOME")
        && !home.is_empty()
        && home != "/"
    {
        if dir == home {
            return "~".to_string();
        }
        if let Some(rest) = dir.strip_prefix(home)
            && rest.starts_with('/')
        {
            return format!("~{rest}");
        }
    }
    dir.to_string()
}

fn stack(interp: &Interp) -> Vec<String> {
    let mut v = vec![interp.cwd.clone()];
    v.extend(interp.dir_stack.iter().cloned());
    v
}

fn print_stack(interp: &mut Interp, long: bool, per_line: bool, numbered: bool) -> bool {
    let entries: Vec<String> = stack(interp)
        .iter()
        .map(|d| tilde(interp, d, long))
        .collect();
    let text = if numbered {
        entries
            .iter()
            .enumerate()
            .map(|(i, d)| format!("{i:2}  {d}\n"))
            .collect()
    } else if per_line {
        entries.iter().map(|d| format!("{d}\n")).collect()
    } else {
        format!("{}\n", entries.join(" "))
    };
    out(interp, text)
}

/// `dirs [-clpv] [+N|-N]`
pub fn dirs(interp: &mut Interp, args: &[String]) -> ExecResult {
    let (mut long, mut per_line, mut numbered) = (false, false, false);
    for a in &args[1..] {
        if let Some(n) = a
            .strip_prefix('+')
            .or_else(|| a.strip_prefix('-'))
            .and_then(|n| n.parse::<usize>().ok())
        {
            let st = stack(interp);
            let idx = if a.starts_with('+') {
                Some(n)
            } else {
                st.len().checked_sub(n + 1)
            };
            return match idx.and_then(|i| st.get(i)) {
                Some(d) => {
                    let d = tilde(interp, d, long);
                    Ok(if out(interp, format!("{d}\n")) { 0 } else { 1 })
                }
                None => {
                    err(
                        interp,
                        format!("dirs: {a}: directory stack index out of range"),
                    );
                    Ok(1)
                }
            };
        }
        match a.as_str() {
            "-c" => {
                interp.dir_stack.clear();
                return Ok(0);
            }
            "-l" => long = true,
            "-p" => per_line = true,
            "-v" => {
                per_line = true;
                numbered = true;
            }
            a => {
                return Ok(super::invalid_option(
                    interp,
                    "dirs",
                    a,
                    "dirs [-clpv] [+N] [-N]",
                ));
            }
        }
    }
    Ok(if print_stack(interp, long, per_line, numbered) {
        0
    } else {
        1
    })
}

/// `pushd [-n] [DIR | +N | -N]`
pub fn pushd(interp: &mut Interp, args: &[String]) -> ExecResult {
    let mut no_cd = false;
    let mut target = None;
    let mut opts_done = false;
    for a in &args[1..] {
        if !opts_done && a == "--" {
            opts_done = true;
        } else if !opts_done && a == "-n" {
            no_cd = true;
        } else if !opts_done
            && a.starts_with('-')
            && a.len() > 1
            && a[1..].parse::<usize>().is_err()
        {
            return Ok(super::invalid_option(
                interp,
                "pushd",
                super::option_head(a),
                "pushd [-n] [+N | -N | dir]",
            ));
        } else if target.is_none() {
            target = Some(a.clone());
        } else {
            err(interp, "pushd: too many arguments");
            return Ok(1);
        }
    }
    match target {
        // bash: `-n` alone neither swaps nor prints.
        None if no_cd => return Ok(0),
        None => {
            if interp.dir_stack.is_empty() {
                err(interp, "pushd: no other directory");
                return Ok(1);
            }
            let top = interp.dir_stack[0].clone();
            let old = interp.cwd.clone();
            if let Err(m) = change_dir(interp, &top, &top, false) {
                err(interp, format!("pushd: {m}"));
                return Ok(1);
            }
            interp.dir_stack[0] = old;
        }
        Some(t)
            if (t.starts_with('+') || t.starts_with('-')) && t[1..].parse::<usize>().is_ok() =>
        {
            let n: usize = t[1..].parse().unwrap_or(0);
            let mut st = stack(interp);
            if n >= st.len() {
                err(
                    interp,
                    format!("pushd: {t}: directory stack index out of range"),
                );
                return Ok(1);
            }
            let k = if t.starts_with('+') {
                n
            } else {
                st.len() - 1 - n
            };
            st.rotate_left(k);
            let dir = st[0].clone();
            if let Err(m) = change_dir(interp, &dir, &dir, false) {
                err(interp, format!("pushd: {m}"));
                return Ok(1);
            }
            interp.dir_stack = st[1..].to_vec();
        }
        Some(t) => {
            if no_cd {
                // Kept as written, as bash does (`dirs` then shows `d1`).
                interp.dir_stack.insert(0, t);
            } else {
                let old = interp.cwd.clone();
                if let Err(m) = change_dir(interp, &t, &t, false) {
                    err(interp, format!("pushd: {m}"));
                    return Ok(1);
                }
                interp.dir_stack.insert(0, old);
            }
        }
    }
    Ok(if print_stack(interp, false, false, false) {
        0
    } else {
        1
    })
}

/// `popd [-n] [+N | -N]`
pub fn popd(interp: &mut Interp, args: &[String]) -> ExecResult {
    let mut no_cd = false;
    let mut which: Option<String> = None;
    for a in &args[1..] {
        if a == "--" {
            continue;
        }
        if a == "-n" {
            no_cd = true;
        } else if (a.starts_with('+') || a.starts_with('-')) && a[1..].parse::<usize>().is_ok() {
            which = Some(a.clone());
        } else {
            return Ok(super::invalid_option(
                interp,
                "popd",
                a,
                "popd [-n] [+N | -N]",
            ));
        }
    }
    if interp.dir_stack.is_empty() {
        err(interp, "popd: directory stack empty");
        return Ok(1);
    }
    match which {
        Some(w) => {
            let n: usize = w[1..].parse().unwrap_or(0);
            let st = stack(interp);
            if n >= st.len() {
                err(
                    interp,
                    format!("popd: {w}: directory stack index out of range"),
                );
                return Ok(1);
            }
            let k = if w.starts_with('+') {
                n
            } else {
                st.len() - 1 - n
            };
            if k == 0 {
                let top = interp.dir_stack.remove(0);
                if !no_cd && let Err(m) = change_dir(interp, &top, &top, false) {
                    err(interp, format!("popd: {m}"));
                    return Ok(1);
                }
            } else {
                interp.dir_stack.remove(k - 1);
            }
        }
        None => {
            if no_cd {
                interp.dir_stack.remove(0);
            } else {
                let top = interp.dir_stack[0].clone();
                if let Err(m) = change_dir(interp, &top, &top, false) {
                    err(interp, format!("popd: {m}"));
                    return Ok(1);
                }
                interp.dir_stack.remove(0);
            }
        }
    }
    Ok(if print_stack(interp, false, false, false) {
        0
    } else {
        1
    })
}
