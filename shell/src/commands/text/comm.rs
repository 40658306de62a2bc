//! `comm`: compare two sorted files line by line (`-1 -2 -3`,
//! `--output-delimiter`, `--check-order`, `--nocheck-order`, `-z`).

use std::cmp::Ordering;

use super::common::{self, Arg, OptSpec, ParseMode, opt};
use crate::commands::CommandCtx;

pub(crate) const USAGE: &str = "\
Usage: comm [OPTION]... FILE1 FILE2
Compare sorted files FILE1 and FILE2 line by line.

When FILE1 or FILE2 (not both) is -, read standard input.

With no options, produce three-column output.  Column one contains
lines unique to FILE1, column two contains lines unique to FILE2,
and column three contains lines common to both files.

  -1              suppress column 1 (lines unique to FILE1)
  -2              suppress column 2 (lines unique to FILE2)
  -3              suppress column 3 (lines that appear in both files)

  --check-order     check that the input is correctly sorted, even
                      if all input lines are pairable
  --nocheck-order   do not check that the input is correctly sorted
  --output-delimiter=STR  separate columns with STR
  --total           output a summary
  -z, --zero-terminated    line delimiter is NUL, not newline
      --help        display this help and exit
";

const SPEC: &[OptSpec] = &[
    opt("1", Some('1'), None, Arg::None),
    opt("2", Some('2'), None, Arg::None),
    opt("3", Some('3'), None, Arg::None),
    opt("check-order", None, Some("check-order"), Arg::None),
    opt("nocheck-order", None, Some("nocheck-order"), Arg::None),
    opt(
        "output-delimiter",
        None,
        Some("output-delimiter"),
        Arg::Required,
    ),
    opt("total", None, Some("total"), Arg::None),
    opt("z", Some('z'), Some("zero-terminated"), Arg::None),
    opt("help", None, Some("help"), Arg::None),
];

/// `comm`
pub fn comm(ctx: &mut CommandCtx<'_>) -> i32 {
    let p = match common::start(ctx, SPEC, ParseMode::default(), 1) {
        Ok(p) => p,
        Err(s) => return s,
    };
    if let Err(msg) = check_operands(&p.operands) {
        common::usage_error(ctx, &msg);
        return 1;
    }
    let (inputs, ok) = common::read_operands(ctx, &p.operands);
    if !ok {
        return 1;
    }
    let eol = if p.has("z") { 0 } else { b'\n' };
    let delim = p
        .last("output-delimiter")
        .unwrap_or("\t")
        .as_bytes()
        .to_vec();
    let delim = if delim.is_empty() { vec![0u8] } else { delim };
    let show = [!p.has("1"), !p.has("2"), !p.has("3")];
    let check = if p.has("nocheck-order") {
        Some(false)
    } else if p.has("check-order") {
        Some(true)
    } else {
        None
    };
    let a: Vec<&[u8]> = common::records(&inputs[0].1, eol).collect();
    let b: Vec<&[u8]> = common::records(&inputs[1].1, eol).collect();
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    let mut counts = [0u64; 3];
    let mut disorder = [false; 2];
    let mut status = 0;
    let emit = |col: usize, line: &[u8], out: &mut Vec<u8>| {
        if !show[col] {
            return;
        }
        for _ in show.iter().take(col).filter(|s| **s) {
            out.extend_from_slice(&delim);
        }
        out.extend_from_slice(line);
        out.push(eol);
    };
    while i < a.len() || j < b.len() {
        let ord = match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) => x.cmp(y),
            (Some(_), None) => Ordering::Less,
            _ => Ordering::Greater,
        };
        // Order checks: a line smaller than its predecessor in the same file.
        let unpaired = ord != Ordering::Equal;
        for (k, (v, idx)) in [(&a, i), (&b, j)].into_iter().enumerate() {
            let advancing = match k {
                0 => ord != Ordering::Greater,
                _ => ord != Ordering::Less,
            };
            if advancing
                && idx > 0
                && idx < v.len()
                && v[idx] < v[idx - 1]
                && !disorder[k]
                && (check == Some(true) || (check.is_none() && unpaired))
            {
                disorder[k] = true;
                let _ = writeln!(ctx.stderr, "comm: file {} is not in sorted order", k + 1);
                status = 1;
            }
        }
        if check == Some(true) && status != 0 {
            break;
        }
        match ord {
            Ordering::Less => {
                emit(0, a[i], &mut out);
                counts[0] += 1;
                i += 1;
            }
            Ordering::Greater => {
                emit(1, b[j], &mut out);
                counts[1] += 1;
                j += 1;
            }
            Ordering::Equal => {
                emit(2, a[i], &mut out);
                counts[2] += 1;
                i += 1;
                j += 1;
            }
        }
    }
    if p.has("total") {
        for c in counts {
            out.extend_from_slice(c.to_string().as_bytes());
            out.extend_from_slice(&delim);
        }
        out.extend_from_slice(b"total");
        out.push(eol);
    }
    if ctx.stdout.write_all(&out).is_err() {
        return 1;
    }
    if status != 0 {
        let _ = writeln!(ctx.stderr, "comm: input is not in sorted order");
    }
    status
}

/// Exactly two FILE operands; the error is the usage error's message.
fn check_operands(operands: &[String]) -> Result<(), String> {
    match operands {
        [] => Err("missing operand".to_string()),
        [o] => Err(format!("missing operand after {}", common::quote_locale(o))),
        [_, _] => Ok(()),
        [_, _, extra, ..] => Err(format!("extra operand {}", common::quote_locale(extra))),
    }
}
