//! `strings`: print runs of printable characters (`-n MIN`, `-t o|d|x`,
//! `-a`, `-f`), as binutils' strings does with its default (whole-file) scan.

use super::common::{self, Arg, OptSpec, ParseMode, opt};
use crate::commands::CommandCtx;
use crate::fs::FsError;

pub(crate) const USAGE: &str = "\
Usage: strings [option(s)] [file(s)]
 Display printable strings in [file(s)] (stdin by default)
 The options are:
  -a - --all                Scan the entire file, not just the data section [default]
  -f --print-file-name      Print the name of the file before each string
  -n <number>               Locate & print any sequence of at least <number>
    --bytes=<number>         displayable characters.  (The default is 4).
  -t --radix={o,d,x}        Print the location of the string in base 8, 10 or 16
  -o                        An alias for --radix=o
  -h --help                 Display this information
";

const SPEC: &[OptSpec] = &[
    opt("a", Some('a'), Some("all"), Arg::None),
    opt("f", Some('f'), Some("print-file-name"), Arg::None),
    opt("n", Some('n'), Some("bytes"), Arg::Required),
    opt("t", Some('t'), Some("radix"), Arg::Required),
    opt("o", Some('o'), None, Arg::None),
    opt("help", Some('h'), Some("help"), Arg::None),
];

/// `strings`
pub fn strings(ctx: &mut CommandCtx<'_>) -> i32 {
    let mode = ParseMode {
        digit_option: true,
        ..Default::default()
    };
    let p = match common::parse(ctx.args, SPEC, mode) {
        Ok(p) => p,
        Err(e) => {
            common::usage_text_error(ctx, &e, USAGE);
            return 1;
        }
    };
    if p.has("help") {
        let _ = ctx.stdout.write_all(USAGE.as_bytes());
        return 0;
    }
    let mut min = 4usize;
    let mut radix: Option<char> = None;
    for (id, v) in &p.opts {
        let v = v.as_deref().unwrap_or("");
        match *id {
            "n" | "NUM" => match v.parse::<usize>() {
                Ok(n) if n > 0 => min = n,
                _ => {
                    common::err(
                        ctx.stderr,
                        "strings",
                        format!("invalid minimum string length {v}"),
                    );
                    return 1;
                }
            },
            "t" => match v {
                "o" | "d" | "x" => radix = v.chars().next(),
                _ => {
                    common::err(ctx.stderr, "strings", format!("invalid radix: {v}"));
                    return 1;
                }
            },
            "o" => radix = Some('o'),
            _ => {}
        }
    }
    // binutils' words.
    let (inputs, ok) = common::read_operands_saying(ctx, &p.operands, |name, e| match e {
        FsError::NotFound => format!("'{name}': No such file"),
        FsError::IsADirectory => format!("Warning: '{name}' is a directory"),
        _ => format!("{name}: {e}"),
    });
    let mut out = Vec::new();
    for (name, data) in &inputs {
        let mut start = 0;
        let printable = |b: u8| (0x20..0x7f).contains(&b) || b == b'\t';
        let mut i = 0;
        while i <= data.len() {
            let end_run = i == data.len() || !printable(data[i]);
            if end_run {
                if i - start >= min {
                    if p.has("f") {
                        let shown = if name == "-" {
                            "{standard input}"
                        } else {
                            name.as_str()
                        };
                        out.extend_from_slice(format!("{shown}: ").as_bytes());
                    }
                    match radix {
                        Some('o') => out.extend_from_slice(format!("{start:7o} ").as_bytes()),
                        Some('d') => out.extend_from_slice(format!("{start:7} ").as_bytes()),
                        Some('x') => out.extend_from_slice(format!("{start:7x} ").as_bytes()),
                        _ => {}
                    }
                    out.extend_from_slice(&data[start..i]);
                    out.push(b'\n');
                }
                start = i + 1;
            }
            i += 1;
        }
    }
    if ctx.stdout.write_all(&out).is_err() {
        return 1;
    }
    if ok { 0 } else { 1 }
}
