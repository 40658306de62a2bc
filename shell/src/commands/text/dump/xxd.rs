//! `xxd`: hex dump (`-c -g -l -s -u -p`) and its reverse (`-r`, `-r -p`).

use super::{common, parse_size};
use crate::commands::CommandCtx;
use crate::commands::files::input;
use crate::commands::text::common::{Arg, OptSpec, ParseMode, opt};
use crate::fs::Fs;
use crate::fs::FsError;

pub(crate) const USAGE: &str = "\
Usage:
       xxd [options] [infile [outfile]]
    or
       xxd -r [-s [-]offset] [-c cols] [-ps] [infile [outfile]]
Options:
    -c cols     format <cols> octets per line. Default 16 (-p: 30).
    -g bytes    number of octets per group in normal output. Default 2.
    -l len      stop after <len> octets.
    -p          output in postscript plain hexdump style.
    -r          reverse operation: convert (or patch) hexdump into binary.
    -s [+][-]seek  start at <seek> bytes abs. infile offset.
    -u          use upper case hex letters.
    -h          print this summary.
";

const SPEC: &[OptSpec] = &[
    opt("c", Some('c'), Some("cols"), Arg::Required),
    opt("g", Some('g'), Some("groupsize"), Arg::Required),
    opt("l", Some('l'), Some("len"), Arg::Required),
    opt("p", Some('p'), Some("ps"), Arg::None),
    opt("r", Some('r'), Some("revert"), Arg::None),
    opt("s", Some('s'), Some("seek"), Arg::Required),
    opt("u", Some('u'), None, Arg::None),
    opt("help", Some('h'), Some("help"), Arg::None),
];

fn hexval(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

/// `xxd`
pub fn xxd(ctx: &mut CommandCtx<'_>) -> i32 {
    // vim's xxd answers a bad option, and `-h`, with its summary alone on
    // stderr, status 1.
    let p = match common::parse(ctx.args, SPEC, ParseMode::default()) {
        Ok(p) if !p.has("help") => p,
        _ => {
            common::usage_text_error(ctx, "", USAGE);
            return 1;
        }
    };
    let num = |id: &str| -> Result<Option<u64>, String> {
        match p.last(id) {
            None => Ok(None),
            Some(v) => parse_size(v.trim_start_matches('+'))
                .map(Some)
                .ok_or_else(|| format!("invalid number '{v}'")),
        }
    };
    let (cols, group, len, seek) = match (num("c"), num("g"), num("l"), num("s")) {
        (Ok(c), Ok(g), Ok(l), Ok(s)) => (c, g, l, s.unwrap_or(0)),
        (Err(e), ..) | (_, Err(e), ..) | (_, _, Err(e), _) | (.., Err(e)) => {
            common::err(ctx.stderr, "xxd", e);
            return 1;
        }
    };
    let plain = p.has("p");
    let upper = p.has("u");
    let name = p.operands.first().map_or("-", String::as_str).to_string();
    // Reading stops after -s + -l bytes (not with -r, which reads a dump).
    let max = len.filter(|_| !p.has("r")).map(|l| seek.saturating_add(l));
    let data = match input::read_prefix(ctx, &name, max) {
        Ok(d) => d,
        // xxd names the file it cannot open, not one it cannot read (a
        // directory, or `< dir`), and exits 2 either way.
        Err(FsError::IsADirectory) => {
            common::err(ctx.stderr, "xxd", FsError::IsADirectory);
            return 2;
        }
        Err(e) => {
            common::err(ctx.stderr, "xxd", format!("{name}: {e}"));
            return 2;
        }
    };
    let out = if p.has("r") {
        if plain {
            revert_plain(&data)
        } else {
            revert_dump(&data)
        }
    } else {
        let start = (seek as usize).min(data.len());
        let end = len
            .map(|l| (start + l as usize).min(data.len()))
            .unwrap_or(data.len());
        let d = &data[start..end];
        if plain {
            dump_plain(d, cols.unwrap_or(30).max(1) as usize, upper)
        } else {
            let cols = cols.unwrap_or(16).max(1) as usize;
            dump(d, start, cols, group.unwrap_or(2) as usize, upper)
        }
    };
    if let Some(dest) = p.operands.get(1) {
        if let Err(e) = ctx.fs.write(&Fs::resolve(ctx.cwd, dest), &out) {
            common::err(ctx.stderr, "xxd", format!("{dest}: {e}"));
            return 2;
        }
        return 0;
    }
    if ctx.stdout.write_all(&out).is_err() {
        return 1;
    }
    0
}

/// A byte as two hex digits.
fn hex(b: u8, upper: bool) -> String {
    if upper {
        format!("{b:02X}")
    } else {
        format!("{b:02x}")
    }
}

/// `-r -p`, as xxd decodes it: blanks and newlines are skipped; two hex
/// digits in a row make a byte; one other character breaks a pair, and
/// after a byte two of them in a row (three non-digits counting the
/// pair's end) drop the rest of the line. Garbage before the first digit
/// is ignored.
fn revert_plain(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    // The last three characters' digit values (-1: not a digit).
    let (mut n1, mut n2): (i16, i16) = (-1, 0);
    let mut ignore_garbage = true;
    let mut i = 0;
    while i < data.len() {
        let c = data[i];
        i += 1;
        if matches!(c, b'\r' | b' ' | b'\n' | b'\t') {
            continue;
        }
        let n3 = n2;
        n2 = n1;
        n1 = hexval(c).map_or(-1, i16::from);
        if n1 < 0 && ignore_garbage {
            continue;
        }
        ignore_garbage = false;
        if n2 >= 0 && n1 >= 0 {
            out.push(((n2 << 4) | n1) as u8);
            n1 = -1;
        } else if n1 < 0 && n2 < 0 && n3 < 0 {
            match memchr::memchr(b'\n', &data[i..]) {
                Some(nl) => i += nl + 1,
                None => i = data.len(),
            }
            ignore_garbage = true;
        }
    }
    out
}

/// `-r`: each `OFFSET: HEX...  TEXT` line puts its bytes at OFFSET (a gap
/// is zero-filled).
fn revert_dump(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for line in common::records(data, b'\n') {
        let Some(colon) = line.iter().position(|b| *b == b':') else {
            continue;
        };
        let off = std::str::from_utf8(&line[..colon])
            .ok()
            .and_then(|s| u64::from_str_radix(s.trim(), 16).ok());
        let Some(off) = off else { continue };
        let mut bytes = Vec::new();
        let mut hi: Option<u8> = None;
        let mut spaces = 0;
        for &b in &line[colon + 1..] {
            if b == b' ' {
                spaces += 1;
                // Two spaces in a row end the hex column (the text column follows).
                if spaces >= 2 && !bytes.is_empty() {
                    break;
                }
                continue;
            }
            spaces = 0;
            let Some(v) = hexval(b) else { break };
            match hi.take() {
                None => hi = Some(v),
                Some(h) => bytes.push(h << 4 | v),
            }
        }
        let off = off as usize;
        if out.len() < off {
            out.resize(off, 0);
        }
        let end = off + bytes.len();
        if out.len() < end {
            out.resize(end, 0);
        }
        out[off..end].copy_from_slice(&bytes);
    }
    out
}

/// `-p`: plain hex, `cols` bytes a line.
fn dump_plain(d: &[u8], cols: usize, upper: bool) -> Vec<u8> {
    let mut out = Vec::new();
    for chunk in d.chunks(cols) {
        for b in chunk {
            out.extend_from_slice(hex(*b, upper).as_bytes());
        }
        out.push(b'\n');
    }
    out
}

/// The default dump: offset (`start` is that of `d`), `cols` bytes a line in
/// groups of `group` (0: one group), and the printable text.
fn dump(d: &[u8], start: usize, cols: usize, group: usize, upper: bool) -> Vec<u8> {
    let mut out = Vec::new();
    let hex_width = cols * 2 + if group == 0 { 0 } else { cols.div_ceil(group) };
    for (i, chunk) in d.chunks(cols).enumerate() {
        let mut line = format!("{:08x}: ", start + i * cols);
        let mut h = String::new();
        for (k, b) in chunk.iter().enumerate() {
            h.push_str(&hex(*b, upper));
            if group != 0 && (k + 1) % group == 0 {
                h.push(' ');
            }
        }
        line.push_str(&format!("{h:<hex_width$}"));
        if group == 0 {
            line.push(' ');
        }
        line.push(' ');
        line.extend(chunk.iter().map(|b| {
            if (0x20..0x7f).contains(b) {
                *b as char
            } else {
                '.'
            }
        }));
        line.push('\n');
        out.extend_from_slice(line.as_bytes());
    }
    out
}
