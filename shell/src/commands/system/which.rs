//! `which`: locate a command along `$PATH` in the virtual tree.

use crate::commands::CommandCtx;
use crate::commands::files::common::{Opt, flag, join, parse_or_usage};
use crate::fs::{FileKind, Fs};

/// The first executable regular file called `name` along `path_var` (a name
/// with a slash is checked as is, relative to `cwd`).
pub fn find_in_path(fs: &Fs, path_var: &str, cwd: &str, name: &str) -> Option<String> {
    find_all(fs, path_var, cwd, name, false).into_iter().next()
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

/// `which [-a] NAME...`
pub fn which(ctx: &mut CommandCtx<'_>) -> i32 {
    let spec: [Opt; 2] = [flag('a', Some("all"), "a"), flag('s', None, "s")];
    let Some(p) = parse_or_usage(ctx, &spec, false) else {
        return 2;
    };
    let path_var = ctx.getenv("PATH").unwrap_or("").to_string();
    let mut status = 0;
    if p.operands.is_empty() {
        return 1;
    }
    for name in &p.operands {
        let found = find_all(ctx.fs, &path_var, ctx.cwd, name, p.has("a"));
        if found.is_empty() {
            status = 1;
        }
        if !p.has("s") {
            for f in found {
                let _ = writeln!(ctx.stdout, "{f}");
            }
        }
    }
    status
}
