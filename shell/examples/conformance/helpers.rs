//! The helper programs Oils spec cases call, as test-only commands injected
//! through `ShellConfig::commands` (never shipped in the product).

use std::sync::Arc;

use sandkeep_shell::{CommandCtx, CommandFn, CustomCommand};

/// Python 2's `repr` of a byte string.
fn py_repr(s: &[u8]) -> String {
    let quote = if s.contains(&b'\'') && !s.contains(&b'"') {
        b'"'
    } else {
        b'\''
    };
    let mut out = String::new();
    out.push(quote as char);
    for &b in s {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\t' => out.push_str("\\t"),
            b'\r' => out.push_str("\\r"),
            b if b == quote => {
                out.push('\\');
                out.push(b as char);
            }
            b if !(0x20..0x7f).contains(&b) => out.push_str(&format!("\\x{b:02x}")),
            b => out.push(b as char),
        }
    }
    out.push(quote as char);
    out
}

/// `argv.py ARGS`: prints its arguments as a Python 2 list.
fn argv_py(ctx: &mut CommandCtx<'_>) -> i32 {
    let items: Vec<String> = ctx.args[1..]
        .iter()
        // An argument's raw bytes (the shell keeps non-UTF-8 bytes as escape
        // chars in its strings), as the real argv.py receives them.
        .map(|a| py_repr(&sandkeep_shell::bytes::encode(a)))
        .collect();
    let _ = writeln!(ctx.stdout, "[{}]", items.join(", "));
    0
}

/// `printenv.py NAMES`: each variable's value, or `None`.
fn printenv_py(ctx: &mut CommandCtx<'_>) -> i32 {
    for name in &ctx.args[1..] {
        let v = ctx.getenv(name).unwrap_or("None").to_string();
        let _ = writeln!(ctx.stdout, "{v}");
    }
    0
}

/// `stdout_stderr.py [OUT [ERR [STATUS]]]`.
fn stdout_stderr_py(ctx: &mut CommandCtx<'_>) -> i32 {
    let out = ctx.args.get(1).cloned().unwrap_or_else(|| "STDOUT".into());
    let err = ctx.args.get(2).cloned().unwrap_or_else(|| "STDERR".into());
    // Python buffers stdout when it is not a terminal: stderr comes out first.
    let _ = writeln!(ctx.stderr, "{err}");
    let _ = writeln!(ctx.stdout, "{out}");
    ctx.args.get(3).and_then(|s| s.parse().ok()).unwrap_or(0)
}

/// `read_from_fd.py FDS`: prints `N: ` and the content of each descriptor.
fn read_from_fd_py(ctx: &mut CommandCtx<'_>) -> i32 {
    for a in &ctx.args[1..] {
        let Ok(fd) = a.parse::<i32>() else {
            return 2;
        };
        let data = if fd == 0 {
            let mut v = Vec::new();
            let _ = ctx.stdin.read_to_end(&mut v);
            Some(v)
        } else {
            sandkeep_shell::read_caller_fd(fd)
        };
        match data {
            Some(d) => {
                let _ = write!(ctx.stdout, "{fd}: ");
                let _ = ctx.stdout.write_all(&d);
            }
            None => {
                let _ = writeln!(ctx.stderr, "read_from_fd.py: fd {fd} is not open");
                return 1;
            }
        }
    }
    0
}

/// The helper commands by name.
pub fn commands() -> Vec<(String, CustomCommand)> {
    let helpers: [(&str, CommandFn); 4] = [
        ("argv.py", argv_py),
        ("printenv.py", printenv_py),
        ("stdout_stderr.py", stdout_stderr_py),
        ("read_from_fd.py", read_from_fd_py),
    ];
    helpers
        .into_iter()
        .map(|(name, f)| (name.to_string(), Arc::new(f) as CustomCommand))
        .collect()
}
