//! `head` and `tail`: the first or last lines or bytes of files.

use super::common::GnuError;
use super::common::{parse_size, quote, quote_locale, usage_error};
use super::input::{Source, for_each_chunk, open, read_all};
use crate::commands::CommandCtx;
use crate::fs::FsError;

/// What `head --help` prints.
pub(crate) const HEAD_USAGE: &str = "\
Usage: head [OPTION]... [FILE]...
Write the first 10 lines of each FILE to standard output; with several
FILEs, each comes under a header giving its name.

With no FILE, or when FILE is -, read standard input.

  -c, --bytes=[-]NUM       write the first NUM bytes instead; with a leading
                             '-', everything but the last NUM bytes
  -n, --lines=[-]NUM       write the first NUM lines; with a leading '-',
                             everything but the last NUM lines
  -NUM                     same as -n NUM
  -q, --quiet, --silent    never write the headers
  -v, --verbose            always write the headers
  -z, --zero-terminated    lines end with NUL, not newline
      --help        display this help and exit

NUM may end in a multiplier: b 512, kB 1000, K 1024, MB 1000*1000,
M 1024*1024, and likewise G, GB, T, TB (KiB, MiB, ... as K, M, ...).
";

/// What `tail --help` prints.
pub(crate) const TAIL_USAGE: &str = "\
Usage: tail [OPTION]... [FILE]...
Write the last 10 lines of each FILE to standard output; with several
FILEs, each comes under a header giving its name.

With no FILE, or when FILE is -, read standard input.

  -c, --bytes=[+]NUM       write the last NUM bytes instead; with a leading
                             '+', everything from byte NUM on
  -n, --lines=[+]NUM       write the last NUM lines; with a leading '+',
                             everything from line NUM on
  -NUM                     same as -n NUM
  -q, --quiet, --silent    never write the headers
  -v, --verbose            always write the headers
  -z, --zero-terminated    lines end with NUL, not newline
      --help        display this help and exit

NUM may end in a multiplier: b 512, kB 1000, K 1024, MB 1000*1000,
M 1024*1024, and likewise G, GB, T, TB (KiB, MiB, ... as K, M, ...).
";

/// How much to take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Count {
    /// The first/last N lines or bytes.
    Plain(u64),
    /// `head -n -N`: all but the last N. `tail -n +N`: from the Nth on.
    Signed(u64),
}

struct Opts {
    count: Count,
    bytes: bool,
    headers: Option<bool>,
    zero: bool,
    follow: bool,
}

/// Sets the count from `-n`/`-c`'s argument `v`: a leading `+` (tail) or
/// `-` (head) makes it [`Count::Signed`]. False after the error message.
fn set_count(ctx: &mut CommandCtx<'_>, o: &mut Opts, v: &str, bytes: bool, is_tail: bool) -> bool {
    o.bytes = bytes;
    let what = if bytes { "bytes" } else { "lines" };
    let (signed, digits) = if is_tail {
        match v.strip_prefix('+') {
            Some(d) => (true, d),
            None => (false, v.strip_prefix('-').unwrap_or(v)),
        }
    } else {
        match v.strip_prefix('-') {
            Some(d) => (true, d),
            None => (false, v.strip_prefix('+').unwrap_or(v)),
        }
    };
    match parse_size(digits) {
        Some(n) => {
            o.count = if signed {
                Count::Signed(n)
            } else {
                Count::Plain(n)
            };
            true
        }
        None => {
            // GNU names the count after a `-` it consumed (a `+` stays).
            let shown = quote_locale(v.strip_prefix('-').unwrap_or(v));
            ctx.gnu_error(format_args!("invalid number of {what}: {shown}"));
            false
        }
    }
}

/// One `--NAME[=VALUE]` word (`long` is it without the dashes); a required
/// value not given with `=` is the next word (`*i` moves past it). False
/// after the error message.
fn parse_long(
    ctx: &mut CommandCtx<'_>,
    o: &mut Opts,
    long: &str,
    args: &[String],
    i: &mut usize,
    is_tail: bool,
) -> bool {
    let (name, val) = match long.split_once('=') {
        Some((n, v)) => (n, Some(v.to_string())),
        None => (long, None),
    };
    let take_val = |i: &mut usize| -> Option<String> {
        val.clone().or_else(|| {
            let v = args.get(*i).cloned();
            *i += 1;
            v
        })
    };
    match name {
        "lines" | "bytes" => {
            let Some(v) = take_val(i) else {
                usage_error(ctx, &format!("option '--{name}' requires an argument"));
                return false;
            };
            if !set_count(ctx, o, &v, name == "bytes", is_tail) {
                return false;
            }
        }
        "quiet" | "silent" => o.headers = Some(false),
        "verbose" => o.headers = Some(true),
        "zero-terminated" => o.zero = true,
        "follow" => o.follow = true,
        _ => {
            usage_error(ctx, &format!("unrecognized option '--{long}'"));
            return false;
        }
    }
    true
}

/// Parses head/tail arguments, including the `-5` shorthand.
fn parse(ctx: &mut CommandCtx<'_>, is_tail: bool) -> Option<(Opts, Vec<String>)> {
    let mut o = Opts {
        count: Count::Plain(10),
        bytes: false,
        headers: None,
        zero: false,
        follow: false,
    };
    let mut files = Vec::new();
    let args = ctx.args.to_vec();
    let mut i = 1;
    let mut only_operands = false;
    while i < args.len() {
        let a = args[i].clone();
        i += 1;
        if only_operands || a == "-" || !a.starts_with('-') {
            files.push(a);
            continue;
        }
        if a == "--" {
            only_operands = true;
            continue;
        }
        if let Some(long) = a.strip_prefix("--") {
            if !parse_long(ctx, &mut o, long, &args, &mut i, is_tail) {
                return None;
            }
            continue;
        }
        let body = &a[1..];
        if body.bytes().next().is_some_and(|b| b.is_ascii_digit()) {
            // `-5`, `-5c`, `-5l`
            let (num, unit) = body.split_at(
                body.find(|c: char| !c.is_ascii_digit())
                    .unwrap_or(body.len()),
            );
            let bytes = unit.starts_with('c');
            if !set_count(ctx, &mut o, num, bytes, is_tail) {
                return None;
            }
            continue;
        }
        let chars: Vec<char> = body.chars().collect();
        let mut j = 0;
        while j < chars.len() {
            let c = chars[j];
            j += 1;
            match c {
                'n' | 'c' => {
                    let rest: String = chars[j..].iter().collect();
                    let v = if !rest.is_empty() {
                        rest
                    } else if i < args.len() {
                        i += 1;
                        args[i - 1].clone()
                    } else {
                        usage_error(ctx, &format!("option requires an argument -- '{c}'"));
                        return None;
                    };
                    if !set_count(ctx, &mut o, &v, c == 'c', is_tail) {
                        return None;
                    }
                    break;
                }
                'q' => o.headers = Some(false),
                'v' => o.headers = Some(true),
                'z' => o.zero = true,
                'f' | 'F' if is_tail => o.follow = true,
                's' if is_tail => {
                    i += 1;
                    break;
                }
                _ => {
                    usage_error(ctx, &format!("invalid option -- '{c}'"));
                    return None;
                }
            }
        }
    }
    if files.is_empty() {
        files.push("-".into());
    }
    Some((o, files))
}

fn run(ctx: &mut CommandCtx<'_>, is_tail: bool) -> i32 {
    let Some((o, files)) = parse(ctx, is_tail) else {
        return 1;
    };
    if o.follow {
        ctx.gnu_error("following files (-f) is not supported in the sandbox");
        return 1;
    }
    let headers = o.headers.unwrap_or(files.len() > 1);
    let mut status = 0;
    let mut first = true;
    for name in &files {
        let src = match open(ctx, name) {
            Ok(s) => s,
            Err(FsError::IsADirectory) => {
                if headers {
                    let sep = if first { "" } else { "\n" };
                    let _ = writeln!(ctx.stdout, "{sep}==> {name} <==");
                    first = false;
                }
                ctx.gnu_error(format_args!(
                    "error reading {}: Is a directory",
                    quote(name)
                ));
                status = 1;
                continue;
            }
            Err(e) => {
                ctx.gnu_error(format_args!("cannot open {} for reading: {e}", quote(name)));
                status = 1;
                continue;
            }
        };
        if headers {
            let sep = if first { "" } else { "\n" };
            let shown = if name == "-" { "standard input" } else { name };
            let _ = writeln!(ctx.stdout, "{sep}==> {shown} <==");
        }
        first = false;
        let delim = if o.zero { b'\0' } else { b'\n' };
        let done = if is_tail {
            tail_one(ctx, &o, &src, delim)
        } else {
            head_one(ctx, &o, &src, delim)
        };
        let ok = match done {
            Ok(ok) => ok,
            Err(e) => {
                let shown = if name == "-" { "standard input" } else { name };
                ctx.gnu_error(format_args!("error reading {}: {e}", quote(shown)));
                status = 1;
                continue;
            }
        };
        if !ok {
            return status.max(1);
        }
    }
    status
}

/// Writes the head of `src`; false when stdout is closed, an error when the
/// input could not be read.
fn head_one(ctx: &mut CommandCtx<'_>, o: &Opts, src: &Source, delim: u8) -> Result<bool, FsError> {
    match o.count {
        Count::Plain(n) => {
            let mut left = n;
            let out = &mut *ctx.stdout;
            let mut ok = true;
            if left == 0 {
                return Ok(true);
            }
            let read = for_each_chunk(ctx.stdin, src, |chunk| {
                let take = if o.bytes {
                    let t = (left as usize).min(chunk.len());
                    left -= t as u64;
                    t
                } else {
                    let mut end = chunk.len();
                    for (k, &b) in chunk.iter().enumerate() {
                        if b == delim {
                            left -= 1;
                            if left == 0 {
                                end = k + 1;
                                break;
                            }
                        }
                    }
                    end
                };
                ok = out.write_all(&chunk[..take]).is_ok();
                ok && left > 0
            });
            read.map(|()| ok)
        }
        Count::Signed(n) => {
            let data = read_all(ctx.stdin, src, ctx.fs.max_file_size())?;
            let end = if o.bytes {
                data.len().saturating_sub(n as usize)
            } else {
                cut_last_lines(&data, n, delim)
            };
            Ok(ctx.stdout.write_all(&data[..end]).is_ok())
        }
    }
}

/// The offset where the last `n` lines of `data` start.
fn cut_last_lines(data: &[u8], n: u64, delim: u8) -> usize {
    if n == 0 {
        return data.len();
    }
    let mut pos = data.len();
    let mut seen = 0;
    // A final line without a delimiter counts as a line.
    let mut k = data.len();
    if k > 0 && data[k - 1] == delim {
        k -= 1;
    }
    while k > 0 {
        k -= 1;
        if data[k] == delim {
            seen += 1;
            if seen == n {
                return k + 1;
            }
        }
    }
    if seen < n {
        pos = 0;
    }
    pos
}

/// Where the output of `tail` starts in `data`, the whole input.
fn tail_start(data: &[u8], o: &Opts, delim: u8) -> usize {
    match (o.count, o.bytes) {
        (Count::Plain(n), true) => data.len().saturating_sub(n as usize),
        (Count::Plain(n), false) => cut_last_lines(data, n, delim),
        (Count::Signed(n), true) => (n.saturating_sub(1) as usize).min(data.len()),
        (Count::Signed(n), false) => {
            let mut line = 1;
            let mut start = data.len();
            if n <= 1 {
                start = 0;
            } else {
                for (k, &b) in data.iter().enumerate() {
                    if b == delim {
                        line += 1;
                        if line == n {
                            start = k + 1;
                            break;
                        }
                    }
                }
            }
            start
        }
    }
}

/// Writes the tail of `src`, as [`head_one`] does its head.
fn tail_one(ctx: &mut CommandCtx<'_>, o: &Opts, src: &Source, delim: u8) -> Result<bool, FsError> {
    if matches!(src, Source::Stdin) {
        return tail_stream(ctx, o, delim);
    }
    let data = read_all(ctx.stdin, src, ctx.fs.max_file_size())?;
    let start = tail_start(&data, o, delim);
    Ok(ctx.stdout.write_all(&data[start..]).is_ok())
}

/// `tail` of standard input without holding all of it: `-n N` / `-c N`
/// keep a window that is trimmed to the last N lines or bytes as it grows
/// (so `seq 1 100000000 | tail -1` runs in constant memory), `+N` skips
/// the start and copies the rest through. False when stdout is closed, an
/// error when the input could not be read.
fn tail_stream(ctx: &mut CommandCtx<'_>, o: &Opts, delim: u8) -> Result<bool, FsError> {
    let out = &mut *ctx.stdout;
    let mut ok = true;
    let read_ok = match o.count {
        Count::Signed(n) => {
            let mut to_skip = n.saturating_sub(1);
            for_each_chunk(ctx.stdin, &Source::Stdin, |chunk| {
                let mut from = 0;
                if to_skip > 0 {
                    if o.bytes {
                        from = (to_skip as usize).min(chunk.len());
                        to_skip -= from as u64;
                    } else {
                        for (k, &b) in chunk.iter().enumerate() {
                            from = k + 1;
                            if b == delim {
                                to_skip -= 1;
                                if to_skip == 0 {
                                    break;
                                }
                            }
                        }
                    }
                    if to_skip > 0 {
                        return true;
                    }
                }
                ok = out.write_all(&chunk[from..]).is_ok();
                ok
            })
        }
        Count::Plain(_) => {
            let mut window: Vec<u8> = Vec::new();
            let mut trim_at = TAIL_WINDOW;
            let read_ok = for_each_chunk(ctx.stdin, &Source::Stdin, |chunk| {
                window.extend_from_slice(chunk);
                if window.len() >= trim_at {
                    let start = tail_start(&window, o, delim);
                    window.drain(..start);
                    // Amortised: trim again once the window has doubled.
                    trim_at = (window.len() * 2).max(TAIL_WINDOW);
                }
                true
            });
            read_ok?;
            let start = tail_start(&window, o, delim);
            ok = out.write_all(&window[start..]).is_ok();
            Ok(())
        }
    };
    read_ok.map(|()| ok)
}

/// How much standard input `tail` gathers before trimming its window.
const TAIL_WINDOW: usize = 1 << 20;

/// `head [-n [-]N | -c [-]N] [-qvz] [FILE]...`
pub fn head(ctx: &mut CommandCtx<'_>) -> i32 {
    run(ctx, false)
}

/// `tail [-n [+]N | -c [+]N] [-qvz] [FILE]...`
pub fn tail(ctx: &mut CommandCtx<'_>) -> i32 {
    run(ctx, true)
}

#[cfg(test)]
mod tests {
    use super::cut_last_lines;

    #[test]
    fn last_lines_offsets() {
        assert_eq!(cut_last_lines(b"a\nb\nc\n", 2, b'\n'), 2);
        assert_eq!(cut_last_lines(b"a\nb\nc", 2, b'\n'), 2);
        assert_eq!(cut_last_lines(b"a\nb\n", 5, b'\n'), 0);
        assert_eq!(cut_last_lines(b"a\nb\n", 0, b'\n'), 4);
    }
}
