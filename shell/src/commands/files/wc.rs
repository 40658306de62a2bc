//! `wc`: count lines, words, characters, bytes and the longest line, with
//! GNU's column widths.

use super::common::{GnuError, quote, quotef};
use std::io::Write;

use super::input::{for_each_chunk, open};
use crate::commands::CommandCtx;
use crate::fs::FileKind;

declare_options! {
    /// `wc`'s options.
    pub(crate) enum WcOpt {
        usage: "Usage: wc [OPTION]... [FILE]...
  or:  wc [OPTION]... --files0-from=F",
        about: "Count the lines, words and bytes of each FILE, and give a total when there
are several. A word is a run of printable characters between white space.

With no FILE, or when FILE is -, read standard input.

Options pick the counts; they are printed in the order lines, words,
characters, bytes, maximum line length (without options: -lwc).",
        after: "",
        column: 25,
        rows: [
            Bytes: 'c' "bytes" none => "the number of bytes",
            Chars: 'm' "chars" none => "the number of characters",
            Lines: 'l' "lines" none => "the number of newlines",
            Files0From: - "files0-from" required "F" => "read the FILEs from F, names ended by NULs
                (F - is standard input)",
            MaxLineLength: 'L' "max-line-length" none => "the width of the widest line",
            Words: 'w' "words" none => "the number of words",
            Total: - "total" required "WHEN" => "when to print the total line: auto (with several
                FILEs), always, only (nothing else), never",
        ],
    }
}

#[derive(Default, Clone, Copy)]
struct Counts {
    lines: u64,
    words: u64,
    chars: u64,
    bytes: u64,
    max_line: u64,
}

/// Streaming counter (a UTF-8 sequence may straddle chunks).
#[derive(Default)]
struct Counter {
    c: Counts,
    in_word: bool,
    col: u64,
    pending: Vec<u8>,
    /// Only bytes and lines are asked for (`wc -l`, `wc -c`): newlines are
    /// counted with memchr, nothing is decoded.
    bytes_and_lines: bool,
}

impl Counter {
    fn feed(&mut self, chunk: &[u8]) {
        self.c.bytes += chunk.len() as u64;
        if self.bytes_and_lines {
            self.c.lines += memchr::memchr_iter(b'\n', chunk).count() as u64;
            return;
        }
        let mut data = std::mem::take(&mut self.pending);
        data.extend_from_slice(chunk);
        let mut i = 0;
        while i < data.len() {
            let b = data[i];
            if b < 0x80 {
                i += 1;
                self.c.chars += 1;
                self.ascii(b);
                continue;
            }
            let len = match b {
                0xc0..=0xdf => 2,
                0xe0..=0xef => 3,
                0xf0..=0xf7 => 4,
                _ => 1,
            };
            // A sequence cut by the chunk's end waits for the next chunk, but
            // only while what follows the lead byte could continue it: in
            // `\xe0\n` the newline still counts. Left pending at the end of
            // input, its bytes are invalid ones and count as nothing.
            if i + len > data.len() && data[i + 1..].iter().all(|b| b & 0xc0 == 0x80) {
                self.pending = data[i..].to_vec();
                break;
            }
            let len = len.min(data.len() - i);
            match std::str::from_utf8(&data[i..i + len]) {
                Ok(s) => {
                    let ch = s.chars().next().unwrap_or(' ');
                    self.c.chars += 1;
                    if is_glibc_space(ch) {
                        self.in_word = false;
                    } else if !ch.is_control() && !self.in_word {
                        self.in_word = true;
                        self.c.words += 1;
                    }
                    self.col += char_width(ch);
                    i += len;
                }
                Err(_) => {
                    // An invalid byte: neither a character nor a word separator.
                    i += 1;
                }
            }
        }
    }

    fn ascii(&mut self, b: u8) {
        match b {
            b'\n' => {
                self.c.lines += 1;
                self.c.max_line = self.c.max_line.max(self.col);
                self.col = 0;
                self.in_word = false;
            }
            b'\t' => {
                self.col = (self.col / 8 + 1) * 8;
                self.in_word = false;
            }
            b'\r' | b'\x0c' => {
                self.col = 0;
                self.in_word = false;
            }
            b' ' | b'\x0b' => {
                self.col += 1;
                self.in_word = false;
            }
            _ => {
                if b >= 0x20 && b != 0x7f {
                    self.col += 1;
                }
                if !self.in_word && b > b' ' && b != 0x7f {
                    self.in_word = true;
                    self.c.words += 1;
                }
            }
        }
    }

    fn finish(mut self) -> Counts {
        self.c.max_line = self.c.max_line.max(self.col);
        self.c
    }
}

/// A word separator for GNU wc: glibc's `iswspace` in UTF-8 locales plus the
/// no-break spaces coreutils adds (`iswnbspace`).
fn is_glibc_space(c: char) -> bool {
    matches!(
        c as u32,
        0x1680 | 0x2000..=0x200a | 0x2028 | 0x2029 | 0x205f | 0x3000 | 0xa0 | 0x202f | 0x2060
    )
}

/// Display width of a non-ASCII character (wide East Asian: 2, combining: 0).
fn char_width(c: char) -> u64 {
    let u = c as u32;
    if (0x300..=0x36f).contains(&u) || (0x200b..=0x200f).contains(&u) {
        0
    } else if (0x1100..=0x115f).contains(&u)
        || (0x2e80..=0xa4cf).contains(&u)
        || (0xac00..=0xd7a3).contains(&u)
        || (0xf900..=0xfaff).contains(&u)
        || (0xfe30..=0xfe4f).contains(&u)
        || (0xff00..=0xff60).contains(&u)
        || (0xffe0..=0xffe6).contains(&u)
        || (0x1f300..=0x1faff).contains(&u)
        || (0x20000..=0x3fffd).contains(&u)
    {
        2
    } else {
        1
    }
}

/// `--files0-from=F`: the names in F (`-`: stdin), each ended by a NUL.
/// `Err` is the status after GNU's message.
fn files0_from(
    ctx: &mut CommandCtx<'_>,
    list: &str,
    operands: &[String],
) -> Result<Vec<String>, i32> {
    if let Some(extra) = operands.first() {
        ctx.gnu_error(format_args!(
            "extra operand {}",
            super::common::quote_locale(extra)
        ));
        let _ = writeln!(
            ctx.stderr,
            "file operands cannot be combined with --files0-from"
        );
        super::common::try_help(ctx);
        return Err(1);
    }
    let data = if list == "-" {
        let mut d = Vec::new();
        let _ = ctx.stdin.read_to_end(&mut d);
        d
    } else {
        match ctx.fs.read(&ctx.path(list)) {
            Ok(d) => d,
            Err(e) => {
                ctx.gnu_error(format_args!(
                    "cannot open {} for reading: {e}",
                    super::common::quote_locale(list)
                ));
                return Err(1);
            }
        }
    };
    Ok(data
        .split(|b| *b == 0)
        .filter(|n| !n.is_empty())
        .map(|n| String::from_utf8_lossy(n).into_owned())
        .collect())
}

/// `wc [-clmwL] [FILE]...`
pub fn wc(ctx: &mut CommandCtx<'_>) -> i32 {
    let Some(p) = WcOpt::TABLE.parse_or_usage(ctx) else {
        return 1;
    };
    let mut show = [
        p.has(WcOpt::Lines),
        p.has(WcOpt::Words),
        p.has(WcOpt::Chars),
        p.has(WcOpt::Bytes),
        p.has(WcOpt::MaxLineLength),
    ];
    if !show.iter().any(|s| *s) {
        show = [true, true, false, true, false];
    }
    let nshow = show.iter().filter(|s| **s).count();
    let files = match p.last(WcOpt::Files0From) {
        Some(list) => match files0_from(ctx, list, &p.operands) {
            Ok(files) => files,
            Err(status) => return status,
        },
        None if p.operands.is_empty() => vec!["-".to_string()],
        None => p.operands.clone(),
    };
    let total_mode = p.last(WcOpt::Total).unwrap_or("auto").to_string();
    // GNU sizes the columns from the regular files' total size; any other input
    // (a pipe) forces a width of at least 7. One count of one input: no padding.
    let mut width = 1;
    if !(files.len() == 1 && nshow == 1) {
        let mut min = 1;
        let mut total: u64 = 0;
        for f in &files {
            if f == "-" {
                min = 7;
                continue;
            }
            match ctx.fs.metadata(&ctx.path(f)) {
                Ok(m) if m.kind == FileKind::File => total += m.size,
                Ok(_) => min = 7,
                Err(_) => {}
            }
        }
        width = total.to_string().len().max(min);
    }
    let mut status = 0;
    let mut sum = Counts::default();
    let mut out = Vec::new();
    for name in &files {
        let src = match open(ctx, name) {
            Ok(s) => Some(s),
            Err(e) => {
                let _ = ctx.stdout.write_all(&out);
                out.clear();
                ctx.gnu_error(format_args!("{}: {e}", quotef(name)));
                status = 1;
                if e != crate::fs::FsError::IsADirectory {
                    continue;
                }
                None
            }
        };
        let mut counter = Counter {
            // [lines, words, chars, bytes, max line]
            bytes_and_lines: !(show[1] || show[2] || show[4]),
            ..Counter::default()
        };
        if let Some(src) = &src
            && let Err(e) = for_each_chunk(ctx.stdin, src, |chunk| {
                counter.feed(chunk);
                true
            })
        {
            let _ = ctx.stdout.write_all(&out);
            out.clear();
            let shown = if name == "-" { "standard input" } else { name };
            ctx.gnu_error(format_args!("{}: {e}", quote(shown)));
            status = 1;
        }
        let c = counter.finish();
        sum.lines += c.lines;
        sum.words += c.words;
        sum.chars += c.chars;
        sum.bytes += c.bytes;
        sum.max_line = sum.max_line.max(c.max_line);
        if total_mode != "only" {
            let shown = if name == "-" && p.operands.is_empty() {
                None
            } else {
                Some(name.as_str())
            };
            line(&mut out, &c, &show, width, shown);
        }
    }
    let print_total = match total_mode.as_str() {
        "always" | "only" => true,
        "never" => false,
        _ => files.len() > 1,
    };
    if print_total {
        let label = if total_mode == "only" {
            None
        } else {
            Some("total")
        };
        line(&mut out, &sum, &show, width, label);
    }
    let _ = ctx.stdout.write_all(&out);
    status
}

fn line(out: &mut Vec<u8>, c: &Counts, show: &[bool; 5], width: usize, name: Option<&str>) {
    let vals = [c.lines, c.words, c.chars, c.bytes, c.max_line];
    let mut first = true;
    for (v, s) in vals.iter().zip(show) {
        if !*s {
            continue;
        }
        if !first {
            out.push(b' ');
        }
        first = false;
        let _ = write!(out, "{v:>width$}");
    }
    if let Some(n) = name {
        let _ = write!(out, " {n}");
    }
    out.push(b'\n');
}
