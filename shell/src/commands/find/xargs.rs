//! `xargs`: reads items from stdin (or `-a FILE`), builds command lines and
//! runs them in the sandbox through [`crate::commands::Exec`].

use super::super::{CommandCtx, ExecMode, ExecRequest};
use crate::commands::options::{
    Arg, OptSpec, ParseMode, flag, long_flag, opt, parse, unimplemented, with_arg,
};
use crate::commands::system::which::{resolve_in_path, unrunnable_status};
use crate::commands::text::common::read_stdin;

/// How input is split into items.
enum Split {
    /// Blanks and newlines, with quotes and backslashes (the default).
    Shell,
    /// One byte delimiter (`-0`, `-d`).
    Delim(u8),
}

/// Runs `xargs`.
pub fn xargs(ctx: &mut CommandCtx<'_>) -> i32 {
    let o = match parse_options(ctx) {
        Ok(o) => o,
        Err(status) => return status,
    };
    let mut command: Vec<String> = o.command.clone();
    if command.is_empty() {
        command.push("echo".into());
    }
    let Some(lines) = read_lines(ctx, &o) else {
        return 1;
    };
    let batches = batches(&o, lines, &mut command);
    let Some(limit) = o.max_chars else {
        return run_batches(ctx, &command, batches, o.trace);
    };
    run_fitted(ctx, &o, &command, batches, limit)
}

/// `-s`: runs the batches cut to fit `limit` bytes a command line.
fn run_fitted(
    ctx: &mut CommandCtx<'_>,
    o: &XargsOptions,
    command: &[String],
    mut batches: Vec<Vec<String>>,
    limit: usize,
) -> i32 {
    if arg_size(command) > limit {
        ctx.error("cannot fit single argument within argument list size limit");
        return 1;
    }
    let whole = o.max_lines.is_some() || o.replace.is_some() || o.exit_if_too_long;
    if !whole && o.max_args.is_some() {
        // -n and -s both bound one stream of items.
        batches = vec![batches.into_iter().flatten().collect()];
    }
    let fitted = fit_size(batches, arg_size(command), limit, whole, o.max_args);
    let Some((msg, before)) = fitted.too_long else {
        return run_batches(ctx, command, fitted.batches, o.trace);
    };
    // GNU reports an overlong input line while the line before it still
    // waits to run; an item too long for any line after running the rest.
    let mut batches = fitted.batches;
    let rest = batches.split_off(before.min(batches.len()));
    let status = run_batches(ctx, command, batches, o.trace);
    if status != 0 && status != 123 {
        return status;
    }
    ctx.error(msg);
    match run_batches(ctx, command, rest, o.trace) {
        0 | 123 => 1,
        s => s,
    }
}

/// The bytes a command line's words take, as xargs counts them (each with
/// its terminating NUL).
fn arg_size(words: &[String]) -> usize {
    words.iter().map(|w| w.len() + 1).sum()
}

/// What `-s` leaves to run, and where the run stops with which message
/// (printed before the batch at that index runs).
struct Fitted {
    batches: Vec<Vec<String>>,
    too_long: Option<(&'static str, usize)>,
}

/// `-s`: splits the batches so that each command line (`base` bytes of
/// command plus its items, at most `max_args` items) fits in `limit`. A
/// batch that must stay whole (`-L`, `-I`, `-x`) and does not fit, or one
/// item that fits in no line, ends the run there with GNU's message.
fn fit_size(
    batches: Vec<Vec<String>>,
    base: usize,
    limit: usize,
    whole: bool,
    max_args: Option<usize>,
) -> Fitted {
    let mut out: Vec<Vec<String>> = Vec::new();
    let stop = |out: Vec<Vec<String>>, msg, before| Fitted {
        batches: out,
        too_long: Some((msg, before)),
    };
    for b in batches {
        if whole {
            if base + arg_size(&b) > limit {
                let before = out.len().saturating_sub(1);
                return stop(out, "argument list too long", before);
            }
            out.push(b);
            continue;
        }
        let mut cur: Vec<String> = Vec::new();
        let mut size = base;
        for item in b {
            let need = item.len() + 1;
            let full = max_args.is_some_and(|n| cur.len() >= n);
            if (size + need > limit || full) && !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
                size = base;
            }
            if size + need > limit {
                let before = out.len();
                return stop(out, "argument line too long", before);
            }
            size += need;
            cur.push(item);
        }
        if !cur.is_empty() || out.is_empty() {
            out.push(cur);
        }
    }
    Fitted {
        batches: out,
        too_long: None,
    }
}

/// What the options ask for.
struct XargsOptions {
    split: Split,
    /// `-n`: items per command line.
    max_args: Option<usize>,
    /// `-L` (and `-I`): input lines per command line.
    max_lines: Option<usize>,
    /// `-I STR` / `-i`: replace STR in the command by each line.
    replace: Option<String>,
    /// `-s`: bytes a command line may take (words with their NULs).
    max_chars: Option<usize>,
    /// `-x`: a batch of `-n` items that overflows `-s` is an error.
    exit_if_too_long: bool,
    /// `-r`: no run at all for empty input.
    no_run_empty: bool,
    /// `-t`: print each command line to stderr first.
    trace: bool,
    /// `-E STR`: input ends at a line that is STR.
    eof: Option<String>,
    /// `-a FILE`: read items from FILE, not stdin.
    file: Option<String>,
    /// The command and its initial arguments.
    command: Vec<String>,
}

/// GNU xargs's options, in the order of its table; `-p` is accepted and
/// ignored, `-P` checked and ignored.
const SPEC: &[OptSpec] = &[
    flag('0', Some("null"), "0"),
    with_arg(Some('a'), Some("arg-file"), "a"),
    with_arg(Some('d'), Some("delimiter"), "d"),
    with_arg(Some('E'), None, "E"),
    opt("e", Some('e'), Some("eof"), Arg::Optional),
    with_arg(Some('I'), None, "I"),
    opt("i", Some('i'), Some("replace"), Arg::Optional),
    opt("l", Some('l'), Some("max-lines"), Arg::Optional),
    with_arg(Some('L'), None, "L"),
    with_arg(Some('n'), Some("max-args"), "n"),
    unimplemented("open-tty"),
    flag('p', Some("interactive"), "p"),
    flag('r', Some("no-run-if-empty"), "r"),
    with_arg(Some('s'), Some("max-chars"), "s"),
    unimplemented("show-limits"),
    flag('t', Some("verbose"), "t"),
    flag('x', Some("exit"), "x"),
    with_arg(Some('P'), Some("max-procs"), "P"),
    unimplemented("process-slot-var"),
    long_flag("help", "help"),
];

/// The options of argv, up to the command (options stop at the first
/// operand, as GNU's `+` optstring says). `Err` is the status to exit
/// with, the message written (`--help` exits 0).
fn parse_options(ctx: &mut CommandCtx<'_>) -> Result<XargsOptions, i32> {
    let mode = ParseMode {
        stop_at_operand: true,
        ..ParseMode::default()
    };
    let parsed = match parse(ctx.args, SPEC, mode) {
        Ok(parsed) => parsed,
        Err(e) => {
            ctx.error(e);
            let _ = writeln!(ctx.stderr, "Try 'xargs --help' for more information.");
            return Err(1);
        }
    };
    if parsed.has("help") {
        let _ = ctx.stdout.write_all(USAGE.as_bytes());
        return Err(0);
    }
    let mut o = XargsOptions {
        split: Split::Shell,
        max_args: None,
        max_lines: None,
        replace: None,
        max_chars: None,
        exit_if_too_long: false,
        no_run_empty: false,
        trace: false,
        eof: None,
        file: None,
        command: parsed.operands.clone(),
    };
    for (id, value) in &parsed.opts {
        o.apply(ctx, id, value.as_deref())?;
    }
    Ok(o)
}

impl XargsOptions {
    /// Takes one parsed option (`id` as in [`SPEC`]) into account.
    fn apply(
        &mut self,
        ctx: &mut CommandCtx<'_>,
        id: &str,
        value: Option<&str>,
    ) -> Result<(), i32> {
        let value = value.map(String::from);
        match id {
            "0" => self.split = Split::Delim(0),
            "d" => self.split = Split::Delim(parse_delim(&value.unwrap_or_default())),
            "a" => self.file = value,
            "E" | "e" => self.eof = value,
            "r" => self.no_run_empty = true,
            "t" => self.trace = true,
            "x" => self.exit_if_too_long = true,
            "I" | "i" => {
                self.replace = Some(value.unwrap_or_else(|| "{}".to_string()));
                self.max_lines = Some(1);
            }
            "n" | "L" | "l" | "P" | "s" => {
                let v = value.unwrap_or_else(|| "1".to_string());
                let try_help = "Try 'xargs --help' for more information.";
                let Ok(n) = v.parse::<usize>() else {
                    ctx.error(format!("invalid number \"{v}\" for -{id} option"));
                    let _ = writeln!(ctx.stderr, "{try_help}");
                    return Err(1);
                };
                if n == 0 && id != "P" {
                    ctx.error(format!("value 0 for -{id} option should be >= 1"));
                    // GNU goes on with -s 1 (which nothing fits in).
                    if id != "s" {
                        let _ = writeln!(ctx.stderr, "{try_help}");
                        return Err(1);
                    }
                }
                match id {
                    "n" => self.max_args = Some(n),
                    "s" => self.max_chars = Some(n.max(1)),
                    "L" | "l" => self.max_lines = Some(n),
                    _ => {}
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// The input's items, grouped by input line (for `-L` and `-I`), up to the
/// `-E` line. `None` after the error message.
fn read_lines(ctx: &mut CommandCtx<'_>, o: &XargsOptions) -> Option<Vec<Vec<String>>> {
    let input = match &o.file {
        Some(f) => match ctx.fs.read(&ctx.path(f)) {
            Ok(d) => d,
            Err(e) => {
                ctx.error(format!("{f}: {e}"));
                return None;
            }
        },
        None => match read_stdin(ctx.stdin, ctx.fs.max_file_size()) {
            Ok(d) => d,
            Err(e) => {
                ctx.error(format!("standard input: {e}"));
                return None;
            }
        },
    };
    // Items grouped by input line (for -L / -I).
    let lines = match o.split {
        Split::Delim(d) => {
            let mut v: Vec<Vec<String>> = input
                .split(|b| *b == d)
                .map(|s| vec![String::from_utf8_lossy(s).into_owned()])
                .collect();
            if input.last() == Some(&d) || input.is_empty() {
                v.pop();
            }
            v
        }
        Split::Shell => match shell_items(&input, o.replace.is_some()) {
            Ok(v) => v,
            Err(msg) => {
                ctx.error(msg);
                return None;
            }
        },
    };
    let mut lines = lines;
    if let Some(e) = &o.eof
        && let Some(pos) = lines.iter().position(|l| l.first() == Some(e))
    {
        lines.truncate(pos);
    }
    Some(lines)
}

/// The items of each command line. With `-I` each batch is a whole
/// command line and `command` is emptied.
fn batches(
    o: &XargsOptions,
    lines: Vec<Vec<String>>,
    command: &mut Vec<String>,
) -> Vec<Vec<String>> {
    let mut batches: Vec<Vec<String>> = Vec::new();
    if let Some(r) = &o.replace {
        for l in &lines {
            let item = l.join(" ");
            batches.push(
                command
                    .iter()
                    .map(|a| a.replace(r.as_str(), &item))
                    .collect(),
            );
        }
        command.clear();
    } else if let Some(n) = o.max_lines {
        for chunk in lines.chunks(n) {
            batches.push(chunk.iter().flatten().cloned().collect());
        }
    } else {
        let items: Vec<String> = lines.into_iter().flatten().collect();
        match o.max_args {
            Some(n) => batches.extend(items.chunks(n).map(|c| c.to_vec())),
            None => {
                if !items.is_empty() {
                    batches.push(items)
                }
            }
        }
    }
    if let (Some(n), None) = (o.max_args, &o.replace)
        && o.max_lines.is_some()
    {
        let flat: Vec<String> = batches.into_iter().flatten().collect();
        batches = flat.chunks(n).map(|c| c.to_vec()).collect();
    }
    if batches.is_empty() && !o.no_run_empty && o.replace.is_none() {
        batches.push(Vec::new());
    }
    batches
}

/// Runs `command` with each batch appended; xargs's status (123 when a
/// command failed, 124 for a 255, ...).
fn run_batches(
    ctx: &mut CommandCtx<'_>,
    command: &[String],
    batches: Vec<Vec<String>>,
    trace: bool,
) -> i32 {
    let mut status = 0;
    for b in batches {
        if ctx.control.check().is_err() {
            return 1;
        }
        let mut argv = command.to_vec();
        argv.extend(b);
        if trace {
            let _ = writeln!(ctx.stderr, "{}", argv.join(" "));
        }
        if let Err(e) = resolve_in_path(ctx, &argv[0]) {
            ctx.error(format!("{}: {e}", argv[0]));
            return unrunnable_status(e);
        }
        let mut empty: &[u8] = &[];
        let cwd = ctx.cwd.to_string();
        let rc = ctx.exec.exec(ExecRequest {
            argv: &argv,
            env: &[],
            cwd: &cwd,
            stdin: &mut empty,
            stdout: ctx.stdout,
            stderr: ctx.stderr,
            mode: ExecMode::Inherit,
        });
        // Each command's output before the next trace line, as with GNU's
        // child processes (it matters under `2>&1`).
        let _ = ctx.stdout.flush();
        match rc {
            0 => {}
            255 => {
                ctx.error(format!("{}: exited with status 255; aborting", argv[0]));
                return 124;
            }
            126 | 127 => return rc,
            1..=125 => status = 123,
            _ => return 125,
        }
    }
    status
}

pub(crate) const USAGE: &str = "Usage: xargs [OPTION]... COMMAND [INITIAL-ARGS]...\n\
Run COMMAND with arguments INITIAL-ARGS and more arguments read from input.\n\n\
  -0, --null                   items are separated by a null, not whitespace\n\
  -a, --arg-file=FILE          read arguments from FILE, not standard input\n\
  -d, --delimiter=CHARACTER    items in input stream are separated by CHARACTER\n\
  -E END                       set logical EOF string\n\
  -I R                         replace R in INITIAL-ARGS with names read from input\n\
  -L, --max-lines=MAX-LINES    use at most MAX-LINES non-blank input lines per command line\n\
  -n, --max-args=MAX-ARGS      use at most MAX-ARGS arguments per command line\n\
  -P, --max-procs=MAX-PROCS    accepted; commands run one after another\n\
  -r, --no-run-if-empty        if there are no arguments, then do not run COMMAND\n\
  -t, --verbose                print commands before executing them\n";

fn parse_delim(d: &str) -> u8 {
    match d {
        "\\n" => b'\n',
        "\\t" => b'\t',
        "\\0" => 0,
        "\\\\" => b'\\',
        _ => d.as_bytes().first().copied().unwrap_or(b'\n'),
    }
}

/// Splits input the way xargs' default parser does: blanks separate items,
/// quotes and backslashes protect them. With `-I` each line is one item
/// (leading blanks removed). Returns the items of each input line.
fn shell_items(input: &[u8], whole_lines: bool) -> Result<Vec<Vec<String>>, String> {
    let text = String::from_utf8_lossy(input);
    let mut lines = Vec::new();
    let mut cur_line: Vec<String> = Vec::new();
    let mut item = String::new();
    let mut have = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\n' => {
                if have {
                    cur_line.push(std::mem::take(&mut item));
                    have = false;
                }
                if !cur_line.is_empty() {
                    lines.push(std::mem::take(&mut cur_line));
                }
            }
            ' ' | '\t' if !whole_lines || !have => {
                if have {
                    cur_line.push(std::mem::take(&mut item));
                    have = false;
                }
            }
            // `-I` skips every white-space character before a line's text
            // (GNU's `isspace`), the vertical ones too.
            '\x0b' | '\x0c' | '\r' if whole_lines && !have => {}
            '\'' | '"' => {
                have = true;
                loop {
                    match chars.next() {
                        Some(q) if q == c => break,
                        Some('\n') | None => {
                            let kind = if c == '\'' { "single" } else { "double" };
                            return Err(format!(
                                "unmatched {kind} quote; by default quotes are special to xargs unless you use the -0 option"
                            ));
                        }
                        Some(o) => item.push(o),
                    }
                }
            }
            '\\' => {
                have = true;
                if let Some(n) = chars.next() {
                    item.push(n);
                }
            }
            c => {
                have = true;
                item.push(c);
            }
        }
    }
    if have {
        cur_line.push(item);
    }
    if !cur_line.is_empty() {
        lines.push(cur_line);
    }
    if whole_lines {
        for l in &mut lines {
            let s = l.join(" ");
            *l = vec![s];
        }
    }
    Ok(lines)
}
