//! `cmp`: compare two files byte by byte (`-l -s -b -n LIMIT -i SKIP`),
//! GNU diffutils' messages and exit statuses (0 same, 1 differ, 2 trouble).

use super::common::{self, Arg, OptSpec, ParseMode, opt};
use crate::commands::CommandCtx;

pub(crate) const USAGE: &str = "\
Usage: cmp [OPTION]... FILE1 [FILE2 [SKIP1 [SKIP2]]]
Compare two files byte by byte.

The optional SKIP1 and SKIP2 specify the number of bytes to skip
at the beginning of each file (zero by default).

  -b, --print-bytes          print differing bytes
  -i, --ignore-initial=SKIP         skip first SKIP bytes of both inputs
  -i, --ignore-initial=SKIP1:SKIP2  skip first SKIP1 bytes of FILE1 and
                                      first SKIP2 bytes of FILE2
  -l, --verbose              output byte numbers and differing byte values
  -n, --bytes=LIMIT          compare at most LIMIT bytes
  -s, --quiet, --silent      suppress all normal output
      --help                 display this help and exit

If a FILE is '-' or missing, read standard input.
Exit status is 0 if inputs are the same, 1 if different, 2 if trouble.
";

const SPEC: &[OptSpec] = &[
    opt("b", Some('b'), Some("print-bytes"), Arg::None),
    opt("i", Some('i'), Some("ignore-initial"), Arg::Required),
    opt("l", Some('l'), Some("verbose"), Arg::None),
    opt("n", Some('n'), Some("bytes"), Arg::Required),
    opt("s", Some('s'), Some("quiet"), Arg::None),
    opt("s", None, Some("silent"), Arg::None),
    opt("help", None, Some("help"), Arg::None),
];

/// A byte as `cmp -b` shows it (`^A`, `M-x`, ...).
fn show(b: u8) -> String {
    let mut s = String::new();
    let mut c = b;
    if c >= 0x80 {
        s.push_str("M-");
        c -= 0x80;
    }
    if c < 0x20 {
        s.push('^');
        s.push((c + 0x40) as char);
    } else if c == 0x7f {
        s.push_str("^?");
    } else {
        s.push(c as char);
    }
    s
}

fn parse_skip(s: &str) -> Option<u64> {
    let (num, mult) = match s.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, ""),
    };
    let n: u64 = num.parse().ok()?;
    let m: u64 = match mult {
        "" => 1,
        "kB" => 1000,
        "K" | "KiB" => 1024,
        "MB" => 1_000_000,
        "M" | "MiB" => 1 << 20,
        "GB" => 1_000_000_000,
        "G" | "GiB" => 1 << 30,
        _ => return None,
    };
    n.checked_mul(m)
}

/// `cmp`
pub fn cmp(ctx: &mut CommandCtx<'_>) -> i32 {
    let p = match common::parse(ctx.args, SPEC, ParseMode::default()) {
        Ok(p) => p,
        Err(e) => return common::diffutils_usage_error(ctx, &e),
    };
    let ops = &p.operands;
    if ops.is_empty() {
        let last = ctx.args.last().cloned().unwrap_or_default();
        return common::diffutils_usage_error(ctx, &format!("missing operand after '{last}'"));
    }
    // As GNU: the skips are checked before the count of operands.
    let (skip, limit) = match parse_ranges(&p) {
        Ok(r) => r,
        Err(e) => return common::diffutils_usage_error(ctx, &e),
    };
    if let Some(extra) = ops.get(4) {
        return common::diffutils_usage_error(ctx, &format!("extra operand '{extra}'"));
    }
    let names = [
        ops[0].clone(),
        ops.get(1).cloned().unwrap_or_else(|| "-".into()),
    ];
    let mut data = Vec::new();
    for n in &names {
        match common::read_input(ctx.fs, ctx.cwd, ctx.stdin, n) {
            Ok(d) => data.push(d),
            Err(e) => {
                common::err(ctx.stderr, "cmp", format!("{n}: {e}"));
                return 2;
            }
        }
    }
    let a = &data[0][(skip[0] as usize).min(data[0].len())..];
    let b = &data[1][(skip[1] as usize).min(data[1].len())..];
    let n = (a.len().min(b.len()) as u64).min(limit) as usize;
    let (quiet, verbose) = (p.has("s"), p.has("l"));
    let mut out = String::new();
    let differ = report_differences(a, b, n, &names, verbose, p.has("b"), quiet, &mut out);
    let _ = ctx.stdout.write_all(out.as_bytes());
    if differ && (quiet || !verbose) {
        return 1;
    }
    if a.len() != b.len() && (n as u64) < limit {
        // One file is a prefix of the other.
        if !quiet {
            let (short, len) = if a.len() < b.len() {
                (&names[0], a.len())
            } else {
                (&names[1], b.len())
            };
            let shorter = if a.len() < b.len() { a } else { b };
            let lines = shorter.iter().filter(|c| **c == b'\n').count() + 1;
            let tail = if len == 0 {
                format!("EOF on {short} which is empty")
            } else if verbose {
                format!("EOF on {short} after byte {len}")
            } else if shorter.last() == Some(&b'\n') {
                format!("EOF on {short} after byte {len}, line {}", lines - 1)
            } else {
                format!("EOF on {short} after byte {len}, in line {lines}")
            };
            common::err(ctx.stderr, "cmp", tail);
        }
        return 1;
    }
    i32::from(differ)
}

/// `-i SKIP[:SKIP2]` and the SKIP operands (which win), and `-n LIMIT`
/// (unlimited by default); the error is the message for status 2.
fn parse_ranges(p: &common::Parsed) -> Result<([u64; 2], u64), String> {
    let ops = &p.operands;
    let mut skip = [0u64; 2];
    if let Some(v) = p.last("i") {
        let parts: Vec<&str> = v.splitn(2, ':').collect();
        for (k, part) in parts.iter().enumerate() {
            skip[k] =
                parse_skip(part).ok_or_else(|| format!("invalid --ignore-initial value '{v}'"))?;
        }
        if parts.len() == 1 {
            skip[1] = skip[0];
        }
    }
    for (k, slot) in skip.iter_mut().enumerate() {
        if let Some(s) = ops.get(k + 2) {
            *slot = parse_skip(s).ok_or_else(|| format!("invalid --ignore-initial value '{s}'"))?;
        }
    }
    let limit = match p.last("n") {
        None => u64::MAX,
        Some(v) => parse_skip(v).ok_or_else(|| format!("invalid --bytes value '{v}'"))?,
    };
    Ok((skip, limit))
}

/// Compares the first `n` bytes of `a` and `b`, writing to `out` the first
/// difference (or with `-l` every one); true when they differ.
#[allow(clippy::too_many_arguments)]
fn report_differences(
    a: &[u8],
    b: &[u8],
    n: usize,
    names: &[String; 2],
    verbose: bool,
    bytes: bool,
    quiet: bool,
    out: &mut String,
) -> bool {
    let mut differ = false;
    let mut line = 1u64;
    let width = n.to_string().len();
    for i in 0..n {
        if a[i] != b[i] {
            differ = true;
            if quiet {
                break;
            }
            if verbose {
                if bytes {
                    out.push_str(&format!(
                        "{:>width$} {:3o} {:<4} {:3o} {}\n",
                        i + 1,
                        a[i],
                        show(a[i]),
                        b[i],
                        show(b[i])
                    ));
                } else {
                    out.push_str(&format!("{:>width$} {:3o} {:3o}\n", i + 1, a[i], b[i]));
                }
                continue;
            }
            if bytes {
                out.push_str(&format!(
                    "{} {} differ: byte {}, line {line} is {:3o} {} {:3o} {}\n",
                    names[0],
                    names[1],
                    i + 1,
                    a[i],
                    show(a[i]),
                    b[i],
                    show(b[i])
                ));
            } else {
                out.push_str(&format!(
                    "{} {} differ: char {}, line {line}\n",
                    names[0],
                    names[1],
                    i + 1
                ));
            }
            break;
        }
        if a[i] == b'\n' {
            line += 1;
        }
    }
    differ
}
