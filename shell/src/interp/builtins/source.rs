//! `source`/`.` (run a file of the virtual tree in this shell) and `eval`.

use super::err;
use crate::fs::{FileKind, Fs};
use crate::interp::{ExecResult, Interp, Interrupt};

/// `eval ARGS`: joins its arguments with spaces and runs the result.
pub fn eval(interp: &mut Interp, args: &[String]) -> ExecResult {
    let mut rest = &args[1..];
    if rest.first().map(|s| s.as_str()) == Some("--") {
        rest = &rest[1..];
    } else if let Some(a) = rest.first()
        && a.starts_with('-')
        && a.len() > 1
    {
        return Ok(super::invalid_option(
            interp,
            "eval",
            super::option_head(a),
            "eval [arg ...]",
        ));
    }
    if rest.is_empty() {
        return Ok(0);
    }
    let text = rest.join(" ");
    // The eval'd text counts its lines from the eval command's.
    let saved_base = interp.line_base;
    let saved_map = interp.line_map.take();
    interp.line_base = interp.lineno.saturating_sub(1);
    let r = interp.run_source(&text);
    interp.line_base = saved_base;
    interp.line_map = saved_map;
    match r {
        // An error that abandons the current command (assigning to a
        // readonly variable, a bad arithmetic expansion) ends only the
        // eval'd text: `eval` then fails.
        Err(Interrupt::Discard(n)) => Ok(n),
        r => r,
    }
}

/// Finds the file `source NAME` reads: a name with a slash as is, otherwise
/// the first match in `$PATH`, then the working directory.
fn find(interp: &Interp, name: &str) -> Option<String> {
    if name.contains('/') {
        return Some(Fs::resolve(&interp.cwd, name));
    }
    if interp.opts.get_shopt("sourcepath") != Some(false)
        && let Some(path) = interp.vars.get_str("PATH")
    {
        for dir in path.split(':').filter(|d| !d.is_empty()) {
            let p = Fs::resolve(&Fs::resolve(&interp.cwd, dir), name);
            if interp
                .fs
                .metadata(&p)
                .is_ok_and(|m| m.kind == FileKind::File)
            {
                return Some(p);
            }
        }
    }
    Some(Fs::resolve(&interp.cwd, name))
}

/// The RETURN trap fires when a sourced file finishes, unless a function
/// is running that does not inherit it (without `set -T`).
fn run_return_trap(interp: &mut Interp) -> Result<(), Interrupt> {
    let in_function = interp.call_stack.iter().any(|f| f != "source");
    if interp.trap_depth > 0
        || (in_function && interp.opts.get_set_option("functrace") != Some(true))
    {
        return Ok(());
    }
    if let Some(trap) = interp.active_trap("RETURN")
        && let Err(e @ (Interrupt::Exit(_) | Interrupt::Limit(_))) = interp.run_trap(&trap)
    {
        return Err(e);
    }
    Ok(())
}

/// `source FILE [ARGS]` / `. FILE [ARGS]`
pub fn source(interp: &mut Interp, args: &[String]) -> ExecResult {
    let mut rest = &args[1..];
    if rest.first().map(|s| s.as_str()) == Some("--") {
        rest = &rest[1..];
    }
    let Some(name) = rest.first() else {
        err(interp, format!("{}: filename argument required", args[0]));
        let usage = format!("{}: usage: {} filename [arguments]\n", args[0], args[0]);
        let _ = interp.write_fd(2, usage.as_bytes());
        return Ok(2);
    };
    let path = find(interp, name).unwrap_or_default();
    let data = match interp.fs.metadata(&path) {
        Ok(m) if m.kind == FileKind::Dir => {
            err(interp, format!("{name}: is a directory"));
            return Ok(1);
        }
        Ok(_) => interp.fs.read(&path),
        Err(e) => Err(e),
    };
    let data = match data {
        Ok(d) => d,
        Err(e) => {
            err(interp, format!("{name}: {e}"));
            return Ok(1);
        }
    };
    let text = crate::bytes::decode_vec(sourced_bytes(data));
    let saved_positional = if rest.len() > 1 {
        Some(std::mem::replace(
            &mut interp.positional,
            rest[1..].to_vec(),
        ))
    } else {
        None
    };
    let sets_before = interp.positional_sets;
    let saved_name = interp.script_name.replace(name.clone());
    let saved_line = interp.lineno;
    let saved_base = std::mem::take(&mut interp.line_base);
    let saved_map = interp.line_map.take();
    interp.call_stack.push("source".to_string());
    interp.call_lines.push(saved_line);
    let r = interp.run_source(&text);
    interp.call_stack.pop();
    interp.call_lines.pop();
    run_return_trap(interp)?;
    interp.script_name = saved_name;
    interp.lineno = saved_line;
    interp.line_base = saved_base;
    interp.line_map = saved_map;
    // bash restores the caller's parameters unless the file `set` its own.
    if let Some(p) = saved_positional
        && interp.positional_sets == sets_before
    {
        interp.positional = p;
    }
    match r {
        Err(Interrupt::Return(n)) => Ok(n),
        other => other,
    }
}

/// A sourced file's text as bash's `source` reads it: each NUL is removed
/// and the byte after it skipped (so of two NULs in a row the second
/// stays), and the text ends at the first NUL left.
fn sourced_bytes(data: Vec<u8>) -> Vec<u8> {
    if !data.contains(&0) {
        return data;
    }
    let mut out = Vec::with_capacity(data.len());
    let mut bytes = data.iter();
    while let Some(&b) = bytes.next() {
        if b != 0 {
            out.push(b);
        } else if let Some(&next) = bytes.next() {
            out.push(next);
        }
    }
    if let Some(end) = out.iter().position(|b| *b == 0) {
        out.truncate(end);
    }
    out
}
