//! `base64`: encode or decode (`-d`, `-w COLS`, `-i`), RFC 4648 alphabet.

use super::common::{self, Arg, OptSpec, ParseMode, opt};
use crate::commands::CommandCtx;

pub(crate) const USAGE: &str = "\
Usage: base64 [OPTION]... [FILE]
Base64 encode or decode FILE, or standard input, to standard output.

With no FILE, or when FILE is -, read standard input.

  -d, --decode          decode data
  -i, --ignore-garbage  when decoding, ignore non-alphabet characters
  -w, --wrap=COLS       wrap encoded lines after COLS character (default 76).
                          Use 0 to disable line wrapping
      --help        display this help and exit
";

const SPEC: &[OptSpec] = &[
    opt("d", Some('d'), Some("decode"), Arg::None),
    opt("i", Some('i'), Some("ignore-garbage"), Arg::None),
    opt("w", Some('w'), Some("wrap"), Arg::Required),
    opt("help", None, Some("help"), Arg::None),
];

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Encodes `data` without line breaks.
pub fn encode(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len().div_ceil(3) * 4);
    for c in data.chunks(3) {
        let n = (c[0] as u32) << 16
            | (*c.get(1).unwrap_or(&0) as u32) << 8
            | *c.get(2).unwrap_or(&0) as u32;
        out.push(ALPHABET[(n >> 18) as usize & 63]);
        out.push(ALPHABET[(n >> 12) as usize & 63]);
        out.push(if c.len() > 1 {
            ALPHABET[(n >> 6) as usize & 63]
        } else {
            b'='
        });
        out.push(if c.len() > 2 {
            ALPHABET[n as usize & 63]
        } else {
            b'='
        });
    }
    out
}

fn value(b: u8) -> Option<u32> {
    Some(match b {
        b'A'..=b'Z' => b - b'A',
        b'a'..=b'z' => b - b'a' + 26,
        b'0'..=b'9' => b - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => return None,
    } as u32)
}

/// Decodes `data` (newlines ignored; other junk only with `ignore`).
/// Returns the bytes decoded before any error, and whether it was clean.
pub fn decode(data: &[u8], ignore: bool) -> (Vec<u8>, bool) {
    let mut out = Vec::with_capacity(data.len() / 4 * 3);
    let mut quad = [0u32; 4];
    let mut n = 0;
    let mut pad = 0;
    for &b in data {
        if b == b'\n' {
            continue;
        }
        if b == b'=' {
            if n < 2 {
                return (out, false);
            }
            pad += 1;
            quad[n] = 0;
            n += 1;
        } else {
            let Some(v) = value(b) else {
                if ignore {
                    continue;
                }
                return (out, false);
            };
            if pad > 0 {
                return (out, false);
            }
            quad[n] = v;
            n += 1;
        }
        if n == 4 {
            let x = quad[0] << 18 | quad[1] << 12 | quad[2] << 6 | quad[3];
            out.push((x >> 16) as u8);
            if pad < 2 {
                out.push((x >> 8) as u8);
            }
            if pad < 1 {
                out.push(x as u8);
            }
            n = 0;
            if pad > 0 {
                pad = 0;
                // Padding ends a group; more data may follow (concatenated input).
            }
        }
    }
    if n > 0 {
        // A partial final group: decode what it holds, but it is an error.
        let x = quad[0] << 18
            | if n > 1 { quad[1] << 12 } else { 0 }
            | if n > 2 { quad[2] << 6 } else { 0 };
        if n >= 2 {
            out.push((x >> 16) as u8);
        }
        if n >= 3 {
            out.push((x >> 8) as u8);
        }
        return (out, false);
    }
    (out, true)
}

/// `base64`
pub fn base64(ctx: &mut CommandCtx<'_>) -> i32 {
    let p = match common::start(ctx, SPEC, ParseMode::default(), 1) {
        Ok(p) => p,
        Err(s) => return s,
    };
    let wrap = match p.last("w") {
        None => 76,
        Some(v) => match v.parse::<usize>() {
            Ok(n) => n,
            Err(_) => {
                common::err(
                    ctx.stderr,
                    "base64",
                    format!("invalid wrap size: {}", common::quote_locale(v)),
                );
                return 1;
            }
        },
    };
    if p.operands.len() > 1 {
        let msg = format!("extra operand {}", common::quote_locale(&p.operands[1]));
        common::usage_error(ctx, &msg);
        return 1;
    }
    let (inputs, ok) = common::read_operands_saying(ctx, &p.operands, common::fread_error);
    if !ok {
        return 1;
    }
    let data = &inputs[0].1;
    if p.has("d") {
        let (bytes, clean) = decode(data, p.has("i"));
        let _ = ctx.stdout.write_all(&bytes);
        if !clean {
            common::err(ctx.stderr, "base64", "invalid input");
            return 1;
        }
        return 0;
    }
    let enc = encode(data);
    let mut out = Vec::with_capacity(enc.len() + enc.len() / 76 + 1);
    if wrap == 0 {
        // Unwrapped output ends without a newline, as GNU's does.
        out.extend_from_slice(&enc);
    } else {
        for chunk in enc.chunks(wrap) {
            out.extend_from_slice(chunk);
            out.push(b'\n');
        }
    }
    if ctx.stdout.write_all(&out).is_err() {
        return 1;
    }
    0
}

#[cfg(test)]
mod tests {
    use super::{decode, encode};

    #[test]
    fn round_trip() {
        for s in [&b""[..], b"a", b"ab", b"abc", b"abcd", b"\x00\xff\x10"] {
            let e = encode(s);
            assert_eq!(decode(&e, false), (s.to_vec(), true));
        }
        assert_eq!(encode(b"hello"), b"aGVsbG8=");
        assert_eq!(decode(b"aGVsbG8", false), (b"hello".to_vec(), false));
    }
}
