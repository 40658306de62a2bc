//! `which`: locate a command along `$PATH` in the virtual tree.

use crate::commands::CommandCtx;
use crate::commands::files::common::join;
use crate::commands::options::{ParseMode, flag, parse};
use crate::fs::{FileKind, Fs, FsError};

/// The first executable regular file called `name` along `path_var` (a name
/// with a slash is checked as is, relative to `cwd`).
pub fn find_in_path(fs: &Fs, path_var: &str, cwd: &str, name: &str) -> Option<String> {
    find_all(fs, path_var, cwd, name, false).into_iter().next()
}

/// What `execvp` finds for `name` along `path_var`: the path to run, or
/// why it cannot run: `NotFound` (status 127), or `PermissionDenied` (126)
/// when only a directory or a file without execute permission has the name.
pub fn resolve_program(fs: &Fs, path_var: &str, cwd: &str, name: &str) -> Result<String, FsError> {
    if let Some(found) = find_in_path(fs, path_var, cwd, name) {
        return Ok(found);
    }
    let candidates: Vec<String> = if name.contains('/') {
        vec![Fs::resolve(cwd, name)]
    } else {
        let dirs = path_var
            .split(':')
            .map(|d| if d.is_empty() { "." } else { d });
        dirs.map(|d| Fs::resolve(cwd, &join(d, name))).collect()
    };
    if !name.is_empty() && candidates.iter().any(|p| fs.metadata(p).is_ok()) {
        Err(FsError::PermissionDenied)
    } else {
        Err(FsError::NotFound)
    }
}

/// [`resolve_program`] along the running command's own `PATH` (execvp's
/// default, `/bin:/usr/bin`, without one).
pub fn resolve_in_path(ctx: &CommandCtx<'_>, name: &str) -> Result<String, FsError> {
    let path_var = ctx.getenv("PATH").unwrap_or("/bin:/usr/bin");
    resolve_program(ctx.fs, path_var, ctx.cwd, name)
}

/// The status a shell or wrapper gives a program [`resolve_program`]
/// could not run.
pub fn unrunnable_status(e: FsError) -> i32 {
    if e == FsError::NotFound { 127 } else { 126 }
}

fn executable(fs: &Fs, path: &str) -> bool {
    fs.metadata(path)
        .is_ok_and(|m| m.kind == FileKind::File && m.mode & 0o111 != 0)
}

fn find_all(fs: &Fs, path_var: &str, cwd: &str, name: &str, all: bool) -> Vec<String> {
    if name.is_empty() {
        return Vec::new();
    }
    if name.contains('/') {
        let p = Fs::resolve(cwd, name);
        return if executable(fs, &p) {
            vec![name.to_string()]
        } else {
            Vec::new()
        };
    }
    let mut found = Vec::new();
    for dir in path_var.split(':') {
        let dir = if dir.is_empty() { "." } else { dir };
        let shown = join(dir, name);
        if executable(fs, &Fs::resolve(cwd, &shown)) {
            found.push(shown);
            if !all {
                break;
            }
        }
    }
    found
}

/// `which [-a] NAME...` (Debian's `which` has no `-s`)
pub fn which(ctx: &mut CommandCtx<'_>) -> i32 {
    // Debian's `which` is a script using getopts: options come first.
    let getopts = ParseMode {
        stop_at_operand: true,
        no_long: true,
        ..ParseMode::default()
    };
    let spec = [flag('a', None, "a")];
    let parsed = match parse(ctx.args, &spec, getopts) {
        Ok(parsed) => parsed,
        Err(e) => {
            // getopts names the letter: `Illegal option -z`.
            let letter = e.strip_prefix("invalid option -- '").unwrap_or(&e);
            let letter = letter.strip_suffix('\'').unwrap_or(letter);
            // getopts complains on stderr; the script's usage goes to stdout.
            let _ = writeln!(ctx.stderr, "Illegal option -{letter}");
            let _ = writeln!(ctx.stdout, "Usage: /usr/bin/which [-a] args");
            return 2;
        }
    };
    let all = parsed.has("a");
    let operands = parsed.operands;
    let path_var = ctx.getenv("PATH").unwrap_or("").to_string();
    let mut status = 0;
    if operands.is_empty() {
        return 1;
    }
    for name in &operands {
        let found = find_all(ctx.fs, &path_var, ctx.cwd, name, all);
        if found.is_empty() {
            status = 1;
        }
        for f in found {
            let _ = writeln!(ctx.stdout, "{f}");
        }
    }
    status
}
