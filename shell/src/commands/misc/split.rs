//! `split`: cut one input into files `PREFIXaa`, `PREFIXab`, ... by lines
//! (`-l`, default 1000), bytes (`-b`) or a number of chunks (`-n N`,
//! `-n l/N`), with alphabetic or numeric (`-d`) suffixes of length `-a`.

use crate::commands::CommandCtx;
use crate::commands::files::common::parse_size;
use crate::commands::text::common::{self, Arg, OptSpec, ParseMode, opt};
use crate::fs::FsError;

pub(crate) const USAGE: &str = "\
Usage: split [OPTION]... [FILE [PREFIX]]
Output pieces of FILE to PREFIXaa, PREFIXab, ...;
default size is 1000 lines, and default PREFIX is 'x'.

  -a, --suffix-length=N   generate suffixes of length N (default 2)
      --additional-suffix=SUFFIX  append an additional SUFFIX to file names
  -b, --bytes=SIZE        put SIZE bytes per output file
  -d                      use numeric suffixes starting at 0, not alphabetic
  -l, --lines=NUMBER      put NUMBER lines/records per output file
  -n, --number=CHUNKS     generate CHUNKS output files (N or l/N)
      --help              display this help and exit
";

const SPEC: &[OptSpec] = &[
    opt("a", Some('a'), Some("suffix-length"), Arg::Required),
    opt("add", None, Some("additional-suffix"), Arg::Required),
    opt("b", Some('b'), Some("bytes"), Arg::Required),
    opt("d", Some('d'), Some("numeric-suffixes"), Arg::Optional),
    opt("l", Some('l'), Some("lines"), Arg::Required),
    opt("n", Some('n'), Some("number"), Arg::Required),
];

/// How the input is cut.
enum Mode {
    Lines(u64),
    Bytes(u64),
    Chunks(u64),
    LineChunks(u64),
}

/// The `i`th suffix of `len` characters, or `None` when exhausted. With
/// `widen` (no `-a` given) GNU never runs out: when the names starting with
/// the last symbol would come, it prefixes that symbol and grows the width
/// (`xyz` is followed by `xzaaa`, `x89` by `x9000`).
fn suffix(i: u64, len: usize, numeric: bool, widen: bool) -> Option<String> {
    let base: u64 = if numeric { 10 } else { 26 };
    let sym = |d: u64| (if numeric { b'0' } else { b'a' } + d as u8) as char;
    let digits = |mut i: u64, width: usize| {
        let mut s = vec!['a'; width];
        for slot in s.iter_mut().rev() {
            *slot = sym(i % base);
            i /= base;
        }
        (i == 0).then(|| s.into_iter().collect::<String>())
    };
    if !widen {
        return digits(i, len);
    }
    let (mut i, mut width, mut prefix) = (i, len, String::new());
    loop {
        let count = base
            .checked_pow(width as u32 - 1)
            .and_then(|p| p.checked_mul(base - 1))?;
        if i < count {
            return digits(i, width).map(|d| prefix + &d);
        }
        i -= count;
        prefix.push(sym(base - 1));
        width += 1;
    }
}

/// The last of `-l`, `-b`, `-n` (1000 lines by default). `None` after the
/// error message.
fn parse_mode(ctx: &mut CommandCtx<'_>, p: &common::Parsed) -> Option<Mode> {
    let mut mode = Mode::Lines(1000);
    for (id, v) in &p.opts {
        let v = v.as_deref().unwrap_or("");
        // A value that parses but is zero is out of range, as GNU says.
        let positive = |n: Option<u64>| match n {
            Some(0) => Err(": Numerical result out of range"),
            Some(n) => Ok(n),
            None => Err(""),
        };
        let (what, parsed) = match *id {
            "l" => ("lines", positive(v.parse().ok()).map(Mode::Lines)),
            "b" => ("bytes", positive(parse_size(v)).map(Mode::Bytes)),
            "n" => (
                "chunks",
                match v.strip_prefix("l/") {
                    Some(n) => positive(n.parse().ok()).map(Mode::LineChunks),
                    None => positive(v.parse().ok()).map(Mode::Chunks),
                },
            ),
            _ => continue,
        };
        match parsed {
            Ok(m) => mode = m,
            Err(why) => {
                // GNU names the count itself, without `-n l/`'s prefix.
                let v = common::quote_locale(v.strip_prefix("l/").unwrap_or(v));
                ctx.error(format!("invalid number of {what}: {v}{why}"));
                return None;
            }
        }
    }
    Some(mode)
}

/// Where the pieces of `data` start and end, as byte offsets.
fn piece_bounds(data: &[u8], mode: Mode) -> Vec<(usize, usize)> {
    let mut pieces: Vec<(usize, usize)> = Vec::new();
    let size = data.len();
    match mode {
        Mode::Lines(n) => {
            let mut start = 0;
            let mut count = 0;
            for (i, b) in data.iter().enumerate() {
                if *b == b'\n' {
                    count += 1;
                    if count == n {
                        pieces.push((start, i + 1));
                        start = i + 1;
                        count = 0;
                    }
                }
            }
            if start < size {
                pieces.push((start, size));
            }
        }
        Mode::Bytes(n) => {
            let n = n.min(usize::MAX as u64) as usize;
            let mut start = 0;
            while start < size {
                let end = (start + n).min(size);
                pieces.push((start, end));
                start = end;
            }
        }
        Mode::Chunks(n) | Mode::LineChunks(n) => {
            let n = n as usize;
            let cs = size / n;
            let lines = matches!(mode, Mode::LineChunks(_));
            let mut start = 0;
            for k in 0..n {
                let end = if k + 1 == n {
                    size
                } else if lines {
                    let target = ((k + 1) * cs).max(1) - 1;
                    if target < start {
                        start
                    } else {
                        memchr::memchr(b'\n', &data[target..]).map_or(size, |i| target + i + 1)
                    }
                } else {
                    (k + 1) * cs
                };
                let end = end.max(start);
                pieces.push((start, end));
                start = end;
            }
        }
    }
    pieces
}

/// `split`
pub fn split(ctx: &mut CommandCtx<'_>) -> i32 {
    let p = match common::start(ctx, SPEC, ParseMode::default(), 1) {
        Ok(p) => p,
        Err(s) => return s,
    };
    if p.operands.len() > 2 {
        let msg = format!("extra operand {}", common::quote_locale(&p.operands[2]));
        common::usage_error(ctx, &msg);
        return 1;
    }
    let Some(mode) = parse_mode(ctx, &p) else {
        return 1;
    };
    let numeric = p.has("d");
    let widen = !p.has("a") && matches!(mode, Mode::Lines(_) | Mode::Bytes(_));
    let len = match p.last("a") {
        Some(a) => match a.parse::<usize>() {
            // 0 leaves the length to split, as no -a does.
            Ok(0) => 2,
            Ok(n) if n < 64 => n,
            _ => {
                ctx.error(format!(
                    "invalid suffix length: {}",
                    common::quote_locale(a)
                ));
                return 1;
            }
        },
        None => 2,
    };
    let extra = p.last("add").unwrap_or("").to_string();
    if extra.contains('/') {
        ctx.error(format!(
            "invalid suffix '{extra}', contains directory separator"
        ));
        return 1;
    }
    let input = p.operands.first().cloned().unwrap_or_else(|| "-".into());
    let prefix = p.operands.get(1).cloned().unwrap_or_else(|| "x".into());
    let data = match common::read_input(ctx.fs, ctx.cwd, ctx.stdin, &input) {
        Ok(d) => d,
        Err(e @ FsError::IsADirectory) => {
            ctx.error(format!("{}: {e}", common::quotef(&input)));
            return 1;
        }
        Err(e) => {
            let input = crate::commands::files::common::quote(&input);
            ctx.error(format!("cannot open {input} for reading: {e}"));
            return 1;
        }
    };
    if matches!(mode, Mode::Chunks(_) | Mode::LineChunks(_)) && input == "-" {
        ctx.error("-: cannot determine file size");
        return 1;
    }
    for (i, (a, b)) in piece_bounds(&data, mode).into_iter().enumerate() {
        if ctx.control.check().is_err() {
            return 1;
        }
        let Some(suf) = suffix(i as u64, len, numeric, widen) else {
            ctx.error("output file suffixes exhausted");
            return 1;
        };
        let name = format!("{prefix}{suf}{extra}");
        let path = ctx.path(&name);
        if let Err(e) = ctx.fs.write(&path, &data[a..b]) {
            ctx.error(format!("{}: {e}", common::quotef(&name)));
            return 1;
        }
    }
    0
}
