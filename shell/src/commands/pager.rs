//! `less` and `more` as they behave when their output is not a terminal,
//! which in the sandbox it never is: `less` copies its files (or stdin) to
//! stdout, its options having nothing to page; util-linux `more` does the
//! same, with a `::::::::::::::` banner naming each file it was given.

use super::common::GnuError;
use super::{Command, CommandCtx};

/// The commands of this family.
pub const COMMANDS: &[Command] = &[
    Command::own("less", less),
    Command::declared("more", MoreOpt::HELP, more),
];

declare_options! {
    /// util-linux more's options.
    pub(crate) enum MoreOpt {
        usage: "
Usage:
 more [options] <file>...",
        about: "
A file perusal filter for CRT viewing; on a pipe it copies the files.

Options:",
        after: "",
        rows: [
            Silent: 'd' "silent" none => "display help instead of ringing bell",
            Logical: 'f' "logical" none => "count logical rather than screen lines",
            NoPause: 'l' "no-pause" none => "suppress pause after form feed",
            Print: 'c' "print-over" none => "do not scroll, display text and clean line ends",
            Clean: 'p' "clean-print" none => "do not scroll, clean screen and display text",
            Squeeze: 's' "squeeze" none => "squeeze multiple blank lines into one",
            Plain: 'u' "plain" none => "suppress underlining and bold",
            Lines: 'n' "lines" required "NUMBER" => "the number of lines per screenful",
            Version: 'V' "version" none => "display version",
        ],
    }
}

/// Long options of less that only change how a terminal shows the text.
const LESS_LONG: &[&str] = &[
    "quit-if-one-screen",
    "no-init",
    "RAW-CONTROL-CHARS",
    "raw-control-chars",
    "chop-long-lines",
    "LINE-NUMBERS",
    "line-numbers",
    "ignore-case",
    "IGNORE-CASE",
    "quiet",
    "silent",
    "QUIET",
    "squeeze-blank-lines",
    "tabs",
    "quit-at-eof",
    "QUIT-AT-EOF",
    "mouse",
    "no-keypad",
    "follow-name",
    "use-color",
];

/// Copies one file (or stdin for `-`) to stdout.
fn copy(ctx: &mut CommandCtx<'_>, name: &str) -> Result<(), crate::fs::FsError> {
    if name == "-" {
        let mut data = Vec::new();
        let _ = ctx.stdin.read_to_end(&mut data);
        let _ = ctx.stdout.write_all(&data);
        return Ok(());
    }
    match ctx.fs.read_shared(&ctx.path(name)) {
        Ok(d) => {
            let _ = ctx.stdout.write_all(&d);
            Ok(())
        }
        Err(e) => Err(e),
    }
}

/// `less [OPTIONS] [FILE]...`
pub fn less(ctx: &mut CommandCtx<'_>) -> i32 {
    let mut files = Vec::new();
    let mut options_done = false;
    for arg in ctx.args[1..].iter().cloned() {
        if options_done || arg == "-" || !(arg.starts_with('-') || arg.starts_with('+')) {
            files.push(arg);
            continue;
        }
        if arg == "--" {
            options_done = true;
            continue;
        }
        match arg.strip_prefix("--") {
            Some("help") => {
                let _ = ctx.stdout.write_all(
                    b"\n                   SUMMARY OF LESS COMMANDS\n\n      Commands marked with * may be preceded by a number, N.\n",
                );
                return 0;
            }
            Some("version") => {
                let _ = ctx
                    .stdout
                    .write_all(b"less 590 (GNU regular expressions)\n");
                return 0;
            }
            Some(long) => {
                let name = long.split('=').next().unwrap_or_default();
                if !LESS_LONG.contains(&name) {
                    let _ = writeln!(
                        ctx.stderr,
                        "There is no {name} option (\"less --help\" for help)"
                    );
                    return 0;
                }
            }
            None => {}
        }
    }
    if files.is_empty() {
        files.push("-".to_string());
    }
    for name in &files {
        if let Err(e) = copy(ctx, name) {
            let _ = writeln!(ctx.stderr, "{name}: {e}");
        }
    }
    0
}

/// `more [options] <file>...`
pub fn more(ctx: &mut CommandCtx<'_>) -> i32 {
    // `+NUM` and `+/PATTERN` start the display elsewhere on a terminal.
    let args: Vec<String> = ctx
        .args
        .iter()
        .enumerate()
        .filter(|(i, a)| *i == 0 || !a.starts_with('+'))
        .map(|(_, a)| a.clone())
        .collect();
    let p = match MoreOpt::TABLE.parse(&args) {
        Ok(p) => p,
        Err(e) => {
            super::common::usage_error(ctx, &e);
            return 1;
        }
    };
    for (opt, _) in &p.opts {
        match opt {
            MoreOpt::Version => {
                let _ = ctx.stdout.write_all(b"more from util-linux 2.38.1\n");
                return 0;
            }
            // Screen behaviour, with no screen.
            MoreOpt::Silent
            | MoreOpt::Logical
            | MoreOpt::NoPause
            | MoreOpt::Print
            | MoreOpt::Clean
            | MoreOpt::Squeeze
            | MoreOpt::Plain
            | MoreOpt::Lines => {}
        }
    }
    if p.operands.is_empty() {
        let mut data = Vec::new();
        let _ = ctx.stdin.read_to_end(&mut data);
        let _ = ctx.stdout.write_all(&data);
        return 0;
    }
    for name in &p.operands {
        let path = ctx.path(name);
        match ctx.fs.read_shared(&path) {
            Ok(d) => {
                let banner = format!("::::::::::::::\n{name}\n::::::::::::::\n");
                let _ = ctx.stdout.write_all(banner.as_bytes());
                let _ = ctx.stdout.write_all(&d);
            }
            Err(e) => {
                let is_dir = ctx
                    .fs
                    .metadata(&path)
                    .is_ok_and(|m| m.kind == crate::fs::FileKind::Dir);
                if is_dir {
                    let text = format!("\n*** {name}: directory ***\n\n");
                    let _ = ctx.stdout.write_all(text.as_bytes());
                } else {
                    ctx.gnu_error(format_args!("cannot open {name}: {e}"));
                }
            }
        }
    }
    0
}
