//! `rev`: reverse the bytes of each line (util-linux; the C locale's
//! characters are bytes).

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
        let mut rest: &[u8] = data;
        while !rest.is_empty() {
            let (line, term) = match memchr::memchr(delim, rest) {
                Some(i) => (&rest[..i], true),
                None => (rest, false),
            };
            out.extend(line.iter().rev());
            if term {
                out.push(delim);
                rest = &rest[line.len() + 1..];
            } else {
                rest = &[];
            }
        }
    }
    if ctx.stdout.write_all(&out).is_err() {
        return 1;
    }
    if ok { 0 } else { 1 }
}
