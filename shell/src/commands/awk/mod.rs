//! The awk family of commands: a POSIX awk with the common gawk extensions
//! (`gensub`, `strftime`/`mktime`, regex RS, 3-argument `match`,
//! `IGNORECASE`, `asort`/`asorti`, `PROCINFO["sorted_in"]`, BEGINFILE /
//! ENDFILE, FPAT, `patsplit`, `typeof`, bit functions), over the virtual
//! filesystem. Lexer → parser (AST as plain data) → tree-walking interpreter;
//! output ordering follows gawk's buffering (see [`output`]).

pub mod ast;
pub mod builtins;
pub mod fields;
pub mod input;
pub mod interp;
pub mod io;
pub mod lexer;
pub mod output;
pub mod parser;
pub mod printf;
pub mod regex;
pub mod sort;
pub mod time;
pub mod value;

use super::{Command, CommandCtx};

/// The commands of this family.
pub const COMMANDS: &[Command] = &[
    Command::own("awk", awk),
    Command::own("gawk", awk),
    Command::own("mawk", awk),
    Command::own("nawk", awk),
];

const USAGE: &str = "Usage: awk [POSIX or GNU style options] -f progfile [--] file ...\n\
Usage: awk [POSIX or GNU style options] [--] 'program' file ...\n\
POSIX options:\n\
\t-f progfile\n\
\t-F fs\n\
\t-v var=val\n\
GNU options:\n\
\t-e 'program-text'\t--source='program-text'\n";

/// `awk [-F fs] [-v var=val]... [-f progfile | -e text | 'prog'] [file | var=val]...`
pub fn awk(ctx: &mut CommandCtx<'_>) -> i32 {
    let args: Vec<String> = ctx.args.to_vec();
    let mut fs: Option<String> = None;
    let mut assigns: Vec<(String, String)> = Vec::new();
    // `-f FILE` and `-e TEXT` (gawk's `--source`), in the order given.
    let mut sources: Vec<Source> = Vec::new();
    let mut i = 1;
    while i < args.len() {
        let a = &args[i];
        if a == "--" {
            i += 1;
            break;
        }
        if a == "--help" {
            let _ = ctx.stdout.write_all(usage(ctx).as_bytes());
            return 0;
        }
        if a == "--version" || a == "-V" {
            let _ = writeln!(
                ctx.stdout,
                "awk (sandkeep) 1.0, compatible with POSIX awk and common gawk extensions"
            );
            return 0;
        }
        if !a.starts_with('-') || a == "-" {
            break;
        }
        if let Some(text) = a.strip_prefix("--source=") {
            sources.push(Source::Text(text.to_string()));
            i += 1;
            continue;
        }
        if a == "--source" {
            match args.get(i + 1) {
                Some(t) => sources.push(Source::Text(t.clone())),
                None => return usage_error(ctx, "option '--source' requires an argument"),
            }
            i += 2;
            continue;
        }
        let (opt, rest) = a.split_at(2.min(a.len()));
        let take = |i: &mut usize| -> Option<String> {
            if !rest.is_empty() {
                Some(rest.to_string())
            } else {
                *i += 1;
                args.get(*i).cloned()
            }
        };
        match opt {
            "-F" => match take(&mut i) {
                Some(v) => fs = Some(v),
                None => return usage_error(ctx, "option requires an argument -- F"),
            },
            "-v" => match take(&mut i) {
                Some(v) => match v.split_once('=') {
                    Some((n, val)) => assigns.push((n.to_string(), val.to_string())),
                    None => {
                        ctx.error(format!("`{v}' argument to `-v' not in `var=value' form"));
                        return 2;
                    }
                },
                None => return usage_error(ctx, "option requires an argument -- v"),
            },
            "-f" => match take(&mut i) {
                Some(v) => sources.push(Source::File(v)),
                None => return usage_error(ctx, "option requires an argument -- f"),
            },
            "-e" => match take(&mut i) {
                Some(v) => sources.push(Source::Text(v)),
                None => return usage_error(ctx, "option requires an argument -- e"),
            },
            _ if a.starts_with("--posix")
                || a.starts_with("--re-interval")
                || a == "--traditional" => {}
            _ => return usage_error(ctx, &format!("unknown option {a}")),
        }
        i += 1;
    }
    let src = if sources.is_empty() {
        match args.get(i) {
            Some(p) => {
                i += 1;
                p.clone()
            }
            None => return usage_error(ctx, "no program text"),
        }
    } else {
        match program_text(ctx, &sources) {
            Ok(s) => s,
            Err(status) => return status,
        }
    };
    let prog = match parser::parse(&src) {
        Ok(p) => p,
        Err(e) => {
            let _ = writeln!(ctx.stderr, "awk: line {}: {}", e.line, e.msg);
            return 2;
        }
    };
    let mut argv = vec!["awk".to_string()];
    argv.extend(args[i..].iter().cloned());
    let mut it = interp::Interp::new(ctx, prog);
    if let Err(e) = it.compile_regexes() {
        let _ = writeln!(it.ctx.stderr, "awk: {e}");
        return 2;
    }
    it.set_argv(&argv);
    if let Some(fs) = fs {
        // gawk takes `-Ft` literally (POSIX awks read it as a tab).
        let fs = lexer::unescape(&fs);
        it.assign_global("FS", fs);
    }
    for (n, v) in assigns {
        it.assign_global(&n, lexer::unescape(&v));
    }
    it.run()
}

/// One piece of the program given by option.
enum Source {
    /// `-f FILE`
    File(String),
    /// `-e TEXT` / `--source=TEXT`
    Text(String),
}

/// The program from `-f` files and `-e` texts, each piece ending a line.
/// `Err` is the status after the message.
fn program_text(ctx: &mut CommandCtx<'_>, sources: &[Source]) -> Result<String, i32> {
    let mut s = String::new();
    for src in sources {
        match src {
            Source::Text(t) => s.push_str(t),
            Source::File(f) => {
                let data = if f == "-" || f == "/dev/stdin" {
                    let mut v = Vec::new();
                    let _ = ctx.stdin.read_to_end(&mut v);
                    v
                } else {
                    match ctx.fs.read_shared(&ctx.path(f)) {
                        Ok(d) => d.to_vec(),
                        Err(_) => {
                            ctx.error(format!("fatal: can't open source file `{f}' for reading: No such file or directory"));
                            return Err(2);
                        }
                    }
                };
                s.push_str(&String::from_utf8_lossy(&data));
            }
        }
        s.push('\n');
    }
    Ok(s)
}

/// gawk's usage, naming the program as it was called (`gawk`, `nawk`).
fn usage(ctx: &CommandCtx<'_>) -> String {
    let name = ctx.args[0].rsplit('/').next().unwrap_or("awk");
    USAGE.replace("Usage: awk ", &format!("Usage: {name} "))
}

/// A bad command line: the message and the usage on stderr, status 1 (as
/// gawk's `usage(EXIT_FAILURE)`).
fn usage_error(ctx: &mut CommandCtx<'_>, msg: &str) -> i32 {
    ctx.error(msg);
    let _ = ctx.stderr.write_all(usage(ctx).as_bytes());
    1
}
