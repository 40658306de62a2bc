//! `hexdump` (and `hd`): the canonical `-C` form, the default 2-byte hex
//! words, `-x -d -o -c -b`, and `-e FORMAT` ([`super::hexfmt`]), with `-n
//! -s -v`.

use super::hexfmt::Format;
use super::{common, lines, parse_size, read_all};
use crate::commands::CommandCtx;
use crate::commands::text::common::{Arg, OptSpec, ParseMode, opt};

pub(crate) const USAGE: &str = "
Usage:
 hexdump [options] <file>...

Display file contents in hexadecimal, decimal, octal, or ascii.

Options:
 -b, --one-byte-octal      one-byte octal display
 -c, --one-byte-char       one-byte character display
 -C, --canonical           canonical hex+ASCII display
 -d, --two-bytes-decimal   two-byte decimal display
 -o, --two-bytes-octal     two-byte octal display
 -x, --two-bytes-hex       two-byte hexadecimal display
 -e, --format <format>     format string to be used for displaying data
 -n, --length <length>     interpret only length bytes of input
 -s, --skip <offset>       skip offset bytes from the beginning
 -v, --no-squeezing        output identical lines
 -h, --help                display this help
";

const SPEC: &[OptSpec] = &[
    opt("b", Some('b'), Some("one-byte-octal"), Arg::None),
    opt("c", Some('c'), Some("one-byte-char"), Arg::None),
    opt("C", Some('C'), Some("canonical"), Arg::None),
    opt("d", Some('d'), Some("two-bytes-decimal"), Arg::None),
    opt("o", Some('o'), Some("two-bytes-octal"), Arg::None),
    opt("x", Some('x'), Some("two-bytes-hex"), Arg::None),
    opt("e", Some('e'), Some("format"), Arg::Required),
    opt("n", Some('n'), Some("length"), Arg::Required),
    opt("s", Some('s'), Some("skip"), Arg::Required),
    opt("v", Some('v'), Some("no-squeezing"), Arg::None),
    opt("help", Some('h'), Some("help"), Arg::None),
];

fn char_field(b: u8) -> String {
    match b {
        0 => "  \\0".into(),
        7 => "  \\a".into(),
        8 => "  \\b".into(),
        9 => "  \\t".into(),
        10 => "  \\n".into(),
        11 => "  \\v".into(),
        12 => "  \\f".into(),
        13 => "  \\r".into(),
        0x20..=0x7e => format!("   {}", b as char),
        _ => format!(" {b:03o}"),
    }
}

/// `-s` and `-n`: the bytes to skip and to show at most. `Err` is the
/// status after the message.
fn range(ctx: &mut CommandCtx<'_>, p: &common::Parsed) -> Result<(usize, Option<usize>), i32> {
    let skip = match p.last("s").map(parse_size) {
        None => 0,
        Some(Some(n)) => n as usize,
        Some(None) => {
            common::err(ctx.stderr, "hexdump", "invalid skip argument");
            return Err(1);
        }
    };
    let len = match p.last("n").map(parse_size) {
        None => None,
        Some(Some(n)) => Some(n as usize),
        Some(None) => {
            common::err(ctx.stderr, "hexdump", "invalid length argument");
            return Err(1);
        }
    };
    Ok((skip, len))
}

/// util-linux's formats for the display options, used when they are given
/// along with `-e` (each option adds its formats where it stands).
fn builtin_formats(id: &str) -> &'static [&'static str] {
    const END: &str = r#""%07.7_Ax\n""#;
    match id {
        "C" => &[
            r#""%08.8_Ax\n""#,
            r#""%08.8_ax  " 8/1 "%02x " "  " 8/1 "%02x ""#,
            r#""  |" 16/1 "%_p" "|\n""#,
        ],
        "b" => &[END, r#""%07.7_ax " 16/1 "%03o " "\n""#],
        "c" => &[END, r#""%07.7_ax " 16/1 "%3_c " "\n""#],
        "d" => &[END, r#""%07.7_ax " 8/2 "  %05u " "\n""#],
        "o" => &[END, r#""%07.7_ax " 8/2 " %06o " "\n""#],
        "x" => &[END, r#""%07.7_ax " 8/2 "   %04x " "\n""#],
        _ => &[],
    }
}

/// The `-e` formats, parsed, with those of the display options given
/// along with them, in order (none without `-e`). `Err` is the status
/// after the message.
fn formats(ctx: &mut CommandCtx<'_>, p: &common::Parsed) -> Result<Vec<Format>, i32> {
    if !p.has("e") {
        return Ok(Vec::new());
    }
    let mut texts: Vec<&str> = Vec::new();
    if ctx.args[0] == "hd" {
        texts.extend(builtin_formats("C"));
    }
    for (id, v) in &p.opts {
        match *id {
            "e" => texts.push(v.as_deref().unwrap_or("")),
            other => texts.extend(builtin_formats(other)),
        }
    }
    let mut parsed = Vec::new();
    for text in texts {
        match super::hexfmt::parse(text) {
            Ok(f) => parsed.push(f),
            Err(e) => {
                common::err(ctx.stderr, "hexdump", e);
                return Err(1);
            }
        }
    }
    Ok(parsed)
}

/// `hexdump` / `hd`
pub fn hexdump(ctx: &mut CommandCtx<'_>) -> i32 {
    let p = match common::start(ctx, SPEC, ParseMode::default(), 1) {
        Ok(p) => p,
        Err(s) => return s,
    };
    if p.has("help") {
        let _ = ctx.stdout.write_all(USAGE.as_bytes());
        return 0;
    }
    let canonical = p.has("C") || ctx.args[0] == "hd";
    let mode = p
        .opts
        .iter()
        .rev()
        .find_map(|(id, _)| ["b", "c", "d", "o", "x"].contains(id).then_some(*id));
    let (skip, len) = match range(ctx, &p) {
        Ok(r) => r,
        Err(s) => return s,
    };
    let formats = match formats(ctx, &p) {
        Ok(f) => f,
        Err(s) => return s,
    };
    let data = match read_all(ctx, &p.operands, len.map(|n| (skip + n) as u64)) {
        Ok(d) => d,
        Err(s) => return s,
    };
    let start = skip.min(data.len());
    let end = len
        .map(|l| (start + l).min(data.len()))
        .unwrap_or(data.len());
    let d = &data[start..end];
    let verbose = p.has("v");
    let mut out = String::new();
    if !formats.is_empty() {
        out = super::hexfmt::dump(&formats, d, start as u64, verbose);
    } else if canonical {
        lines(
            d,
            16,
            start as u64,
            verbose,
            |off, chunk, out| {
                let mut hex = String::new();
                for (k, b) in chunk.iter().enumerate() {
                    if k == 8 {
                        hex.push(' ');
                    }
                    hex.push_str(&format!("{b:02x} "));
                }
                out.push_str(&format!("{off:08x}  {hex:<49} |"));
                out.extend(chunk.iter().map(|b| {
                    if (0x20..0x7f).contains(b) {
                        *b as char
                    } else {
                        '.'
                    }
                }));
                out.push_str("|\n");
            },
            &mut out,
        );
        if !d.is_empty() || start > 0 {
            out.push_str(&format!("{:08x}\n", start + d.len()));
        }
    } else {
        let mode = mode.unwrap_or("default");
        lines(
            d,
            16,
            start as u64,
            verbose,
            |off, chunk, out| {
                let mut line = format!("{off:07x}");
                let fields: Vec<String> = match mode {
                    "c" => chunk.iter().map(|b| char_field(*b)).collect(),
                    "b" => chunk.iter().map(|b| format!(" {b:03o}")).collect(),
                    _ => chunk
                        .chunks(2)
                        .map(|w| {
                            let v = w[0] as u16 | (*w.get(1).unwrap_or(&0) as u16) << 8;
                            match mode {
                                "x" => format!("    {v:04x}"),
                                "d" => format!("   {v:05}"),
                                "o" => format!("  {v:06o}"),
                                _ => format!(" {v:04x}"),
                            }
                        })
                        .collect(),
                };
                let full = match mode {
                    "c" | "b" => 16 * 4,
                    "default" => 8 * 5,
                    _ => 8 * 8,
                };
                let body: String = fields.concat();
                line.push_str(&format!("{body:<full$}"));
                line.push('\n');
                out.push_str(&line);
            },
            &mut out,
        );
        if !d.is_empty() || start > 0 {
            out.push_str(&format!("{:07x}\n", start + d.len()));
        }
    }
    if ctx.stdout.write_all(out.as_bytes()).is_err() {
        return 1;
    }
    0
}
