//! Writes values the way jq 1.6 prints them: 2-space (or N-space, or tab)
//! indentation, `"key": value`, numbers as doubles in jq's shortest form
//! (`1e+20`, `1e-05`, `0.30000000000000004`), key order kept unless sorted.

use std::io::Write;

use jaq_json::{Num, Val};

/// How to lay values out.
#[derive(Clone, Debug)]
pub struct Layout {
    /// Indentation unit: `None` is compact (`-c`).
    pub indent: Option<String>,
    /// Sort object keys (`-S`).
    pub sort_keys: bool,
    /// Escape every non-ASCII character as `\uXXXX` (`-a`).
    pub ascii: bool,
}

impl Default for Layout {
    fn default() -> Self {
        Layout {
            indent: Some("  ".into()),
            sort_keys: false,
            ascii: false,
        }
    }
}

/// Writes `v` on `out` (no trailing newline).
pub fn write_value(out: &mut Vec<u8>, layout: &Layout, v: &Val) {
    write_at(out, layout, 0, v);
}

fn newline(out: &mut Vec<u8>, layout: &Layout, level: usize) {
    if let Some(unit) = &layout.indent {
        out.push(b'\n');
        for _ in 0..level {
            out.extend_from_slice(unit.as_bytes());
        }
    }
}

fn write_at(out: &mut Vec<u8>, layout: &Layout, level: usize, v: &Val) {
    match v {
        Val::Null => out.extend_from_slice(b"null"),
        Val::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        Val::Num(n) => write_number(out, num_to_f64(n)),
        Val::TStr(s) | Val::BStr(s) => write_string(out, &String::from_utf8_lossy(s), layout.ascii),
        Val::Arr(items) => {
            if items.is_empty() {
                out.extend_from_slice(b"[]");
                return;
            }
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                newline(out, layout, level + 1);
                write_at(out, layout, level + 1, item);
            }
            newline(out, layout, level);
            out.push(b']');
        }
        Val::Obj(map) => {
            if map.is_empty() {
                out.extend_from_slice(b"{}");
                return;
            }
            let mut entries: Vec<(&Val, &Val)> = map.iter().collect();
            if layout.sort_keys {
                entries.sort_by(|a, b| a.0.cmp(b.0));
            }
            out.push(b'{');
            for (i, (k, val)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                newline(out, layout, level + 1);
                match k {
                    Val::TStr(s) | Val::BStr(s) => {
                        write_string(out, &String::from_utf8_lossy(s), layout.ascii)
                    }
                    other => {
                        let mut key = Vec::new();
                        write_at(
                            &mut key,
                            &Layout {
                                indent: None,
                                ..layout.clone()
                            },
                            0,
                            other,
                        );
                        write_string(out, &String::from_utf8_lossy(&key), layout.ascii);
                    }
                }
                out.push(b':');
                if layout.indent.is_some() {
                    out.push(b' ');
                }
                write_at(out, layout, level + 1, val);
            }
            newline(out, layout, level);
            out.push(b'}');
        }
    }
}

/// The number as the double jq 1.6 would hold.
pub fn num_to_f64(n: &Num) -> f64 {
    match n {
        Num::Int(i) => *i as f64,
        Num::Float(f) => *f,
        Num::BigInt(b) => b.to_string().parse().unwrap_or(f64::NAN),
        Num::Dec(s) => s.parse().unwrap_or(f64::NAN),
    }
}

/// jq 1.6's number format: shortest round-trip digits; exponent form when
/// the decimal point sits 4+ places left of the digits or 15+ right of them.
pub fn write_number(out: &mut Vec<u8>, f: f64) {
    if f.is_nan() {
        out.extend_from_slice(b"null");
        return;
    }
    let f = if f.is_infinite() {
        f.signum() * f64::MAX
    } else {
        f
    };
    if f == 0.0 {
        out.extend_from_slice(if f.is_sign_negative() { b"-0" } else { b"0" });
        return;
    }
    // `{:e}` gives the shortest round-trip digits: "d.ddde-N".
    let sci = format!("{:e}", f.abs());
    let (mantissa, exp) = sci.split_once('e').expect("scientific format");
    let exp: i32 = exp.parse().expect("exponent");
    let digits: Vec<u8> = mantissa.bytes().filter(|c| *c != b'.').collect();
    let ndigits = digits.len() as i32;
    let decpt = exp + 1; // position of the decimal point relative to the digits
    if f < 0.0 {
        out.push(b'-');
    }
    if decpt <= -4 || decpt > ndigits + 15 {
        out.extend_from_slice(&digits[..1]);
        if ndigits > 1 {
            out.push(b'.');
            out.extend_from_slice(&digits[1..]);
        }
        let _ = write!(out, "e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs());
    } else if decpt <= 0 {
        out.extend_from_slice(b"0.");
        out.extend(std::iter::repeat_n(b'0', (-decpt) as usize));
        out.extend_from_slice(&digits);
    } else if decpt >= ndigits {
        out.extend_from_slice(&digits);
        out.extend(std::iter::repeat_n(b'0', (decpt - ndigits) as usize));
    } else {
        out.extend_from_slice(&digits[..decpt as usize]);
        out.push(b'.');
        out.extend_from_slice(&digits[decpt as usize..]);
    }
}

/// A JSON string literal with jq's escapes.
pub fn write_string(out: &mut Vec<u8>, s: &str, ascii: bool) {
    out.push(b'"');
    for c in s.chars() {
        match c {
            '"' => out.extend_from_slice(b"\\\""),
            '\\' => out.extend_from_slice(b"\\\\"),
            '\n' => out.extend_from_slice(b"\\n"),
            '\t' => out.extend_from_slice(b"\\t"),
            '\r' => out.extend_from_slice(b"\\r"),
            '\u{8}' => out.extend_from_slice(b"\\b"),
            '\u{c}' => out.extend_from_slice(b"\\f"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c if ascii && !c.is_ascii() => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{:04x}", u);
                }
            }
            c => {
                let mut buf = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
        }
    }
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn num(f: f64) -> String {
        let mut out = Vec::new();
        write_number(&mut out, f);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn numbers_print_like_jq_1_6() {
        // Each expectation was printed by `jq -n` (1.6) on this machine.
        assert_eq!(num(1.0), "1");
        assert_eq!(num(1e3), "1000");
        assert_eq!(num(1.5e300), "1.5e+300");
        assert_eq!(num(1e20), "1e+20");
        assert_eq!(num(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(num(1e-5), "1e-05");
        assert_eq!(num(0.0001), "0.0001");
        assert_eq!(num(0.00012), "0.00012");
        assert_eq!(num(1e15), "1000000000000000");
        assert_eq!(num(1e16), "1e+16");
        assert_eq!(num(123456789012345678.0), "123456789012345680");
        assert_eq!(num(2.5e-7), "2.5e-07");
        assert_eq!(num(-1.5e-10), "-1.5e-10");
        assert_eq!(num(-0.0), "-0");
        assert_eq!(num(f64::INFINITY), "1.7976931348623157e+308");
        assert_eq!(num(f64::NAN), "null");
    }

    #[test]
    fn strings_escape_like_jq() {
        let mut out = Vec::new();
        write_string(&mut out, "é\u{1}\t\"\\\u{7f}/", false);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "\"é\\u0001\\t\\\"\\\\\\u007f/\""
        );
        let mut out = Vec::new();
        write_string(&mut out, "é😀", true);
        assert_eq!(String::from_utf8(out).unwrap(), "\"\\u00e9\\ud83d\\ude00\"");
    }
}
