//! `fold`: wrap lines at a width (`-w`), at blanks (`-s`), counting bytes
//! (`-b`) or columns (tabs to the next multiple of 8, backspace back one).

use super::common::{self, Arg, OptSpec, ParseMode, opt};
use crate::commands::CommandCtx;

pub(crate) const USAGE: &str = "\
Usage: fold [OPTION]... [FILE]...
Wrap input lines in each FILE, writing to standard output.

With no FILE, or when FILE is -, read standard input.

  -b, --bytes         count bytes rather than columns
  -s, --spaces        break at spaces
  -w, --width=WIDTH   use WIDTH columns instead of 80
      --help        display this help and exit
";

const SPEC: &[OptSpec] = &[
    opt("b", Some('b'), Some("bytes"), Arg::None),
    opt("s", Some('s'), Some("spaces"), Arg::None),
    opt("w", Some('w'), Some("width"), Arg::Required),
    opt("help", None, Some("help"), Arg::None),
];

fn advance(col: usize, b: u8, bytes: bool) -> usize {
    if bytes {
        return col + 1;
    }
    match b {
        b'\t' => col + 8 - col % 8,
        8 => col.saturating_sub(1),
        b'\r' => 0,
        _ => col + 1,
    }
}

/// `fold`
pub fn fold(ctx: &mut CommandCtx<'_>) -> i32 {
    let mode = ParseMode {
        digit_option: true,
        ..Default::default()
    };
    let p = match common::start(ctx, SPEC, mode, 1) {
        Ok(p) => p,
        Err(s) => return s,
    };
    let mut width = 80usize;
    for (id, v) in &p.opts {
        if *id == "w" || *id == "NUM" {
            let v = v.as_deref().unwrap_or("");
            match common::decimal_in_range(v, 1, i64::MAX, false) {
                Ok(n) => width = n as usize,
                Err(why) => {
                    let v = common::quote_locale(v);
                    common::err(
                        ctx.stderr,
                        "fold",
                        format!("invalid number of columns: {v}{why}"),
                    );
                    return 1;
                }
            }
        }
    }
    let (bytes, spaces) = (p.has("b"), p.has("s"));
    let (inputs, ok) = common::read_operands(ctx, &p.operands);
    let mut out = Vec::new();
    for (_, data) in &inputs {
        let mut line: Vec<u8> = Vec::new();
        let mut col = 0;
        for &b in data.iter() {
            if b == b'\n' {
                out.extend_from_slice(&line);
                out.push(b'\n');
                line.clear();
                col = 0;
                continue;
            }
            loop {
                let next = advance(col, b, bytes);
                if next <= width || line.is_empty() {
                    col = next;
                    line.push(b);
                    break;
                }
                // Too wide: break the line, at the last blank with -s.
                let cut = if spaces {
                    line.iter().rposition(|c| *c == b' ' || *c == b'\t')
                } else {
                    None
                };
                match cut {
                    Some(i) => {
                        out.extend_from_slice(&line[..=i]);
                        out.push(b'\n');
                        line.drain(..=i);
                    }
                    None => {
                        out.extend_from_slice(&line);
                        out.push(b'\n');
                        line.clear();
                    }
                }
                col = line.iter().fold(0, |c, x| advance(c, *x, bytes));
            }
        }
        out.extend_from_slice(&line);
    }
    if ctx.stdout.write_all(&out).is_err() {
        return 1;
    }
    if ok { 0 } else { 1 }
}
