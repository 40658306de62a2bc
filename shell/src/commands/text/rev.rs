//! `rev`: reverse the bytes of each line (util-linux; the C locale's
//! characters are bytes), a NUL cutting its line as util-linux's does.

use super::common::{self, Arg, OptSpec, ParseMode, opt};
use crate::commands::CommandCtx;
use crate::fs::FsError;

pub(crate) const USAGE: &str = "\
Usage: rev [options] [file ...]

Reverse lines characterwise.

Options:
 -0, --zero     zero line delimiter
 -h, --help     display this help
";

const SPEC: &[OptSpec] = &[
    opt("0", Some('0'), Some("zero"), Arg::None),
    opt("help", Some('h'), Some("help"), Arg::None),
];

/// `rev`
pub fn rev(ctx: &mut CommandCtx<'_>) -> i32 {
    let p = match common::start(ctx, SPEC, ParseMode::default(), 1) {
        Ok(p) => p,
        Err(s) => return s,
    };
    if p.has("help") {
        let _ = ctx.stdout.write_all(USAGE.as_bytes());
        return 0;
    }
    let delim = if p.has("0") { 0 } else { b'\n' };
    // util-linux's words: the name bare, and the line a read failed on.
    let (inputs, ok) = common::read_operands_saying(ctx, &p.operands, |name, e| match e {
        FsError::IsADirectory if name == "-" => format!("stdin: 0: {e}"),
        FsError::IsADirectory => format!("{name}: 0: {e}"),
        _ => format!("cannot open {name}: {e}"),
    });
    let mut out = Vec::new();
    for (_, data) in &inputs {
        reverse_lines(data, delim, &mut out);
    }
    if ctx.stdout.write_all(&out).is_err() {
        return 1;
    }
    if ok { 0 } else { 1 }
}

/// Reverses each line of `data` into `out`, as util-linux reads them: a
/// line is what `fgetws` returns, cut at its first NUL (`wcslen`); a cut
/// line lacks its newline, so the next read is appended where the NUL was,
/// and the text between a NUL and the newline is lost.
fn reverse_lines(data: &[u8], delim: u8, out: &mut Vec<u8>) {
    let mut pos = 0;
    while pos < data.len() {
        let mut line: Vec<u8> = Vec::new();
        loop {
            let end = memchr::memchr(delim, &data[pos..]).map_or(data.len(), |i| pos + i + 1);
            line.extend_from_slice(&data[pos..end]);
            pos = end;
            if delim != 0
                && let Some(nul) = memchr::memchr(0, &line)
            {
                line.truncate(nul);
            }
            if line.last() == Some(&delim) || pos >= data.len() {
                break;
            }
        }
        let term = line.last() == Some(&delim);
        let body = if term {
            &line[..line.len() - 1]
        } else {
            &line[..]
        };
        out.extend(body.iter().rev());
        if term {
            out.push(delim);
        }
    }
}
