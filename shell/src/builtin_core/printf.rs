//! bash's printf formatter: a pure function ([`format`]) that the `printf`
//! builtin and the `/usr/bin/printf` program share.
//!
//! Like bash (and C), widths and precisions count bytes; numbers are read
//! like `strtoimax` (`0x` hex, leading-zero octal, `'c` for a character
//! code), and a bad number prints `invalid number` but still uses the prefix
//! that parsed, with exit status 1.

use super::echo::{EscapeMode, unescape};
use super::quote::quote_backslash;
use crate::bytes::encode;
use crate::time::{Flavor, Zone, strftime_as};

/// The widest field (width or precision) printf builds: 64 MiB.
const MAX_FIELD: usize = 1 << 26;

/// The result of formatting.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Formatted {
    /// The bytes produced.
    pub output: Vec<u8>,
    /// Error messages, without the `printf: ` prefix.
    pub errors: Vec<String>,
    /// 0, or 1 after an invalid number or format.
    pub status: i32,
}

/// Times that `%(fmt)T` needs: `-1` means now, `-2` the shell's start.
#[derive(Clone, Debug)]
pub struct TimeCtx {
    /// Seconds since the epoch, now.
    pub now: i64,
    /// Seconds since the epoch when the shell started.
    pub start: i64,
    /// The local time zone: what an exported `TZ` names.
    pub zone: Zone,
}

impl Default for TimeCtx {
    fn default() -> TimeCtx {
        TimeCtx {
            now: 0,
            start: 0,
            zone: Zone::utc(),
        }
    }
}

/// A parsed `%` directive.
#[derive(Default, Clone)]
struct Spec {
    minus: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: Option<usize>,
    prec: Option<usize>,
}

/// Formats `fmt` with `args`, reusing the format while arguments remain.
pub fn format(fmt: &str, args: &[String], time: TimeCtx) -> Formatted {
    let mut res = Formatted::default();
    let fmt = crate::bytes::encode(fmt);
    let fmt = &fmt[..];
    let mut argi = 0;
    loop {
        let start_argi = argi;
        match format_once(fmt, args, &mut argi, &time, &mut res) {
            Pass::Stop => break,
            Pass::Done => {}
        }
        if argi >= args.len() || argi == start_argi {
            break;
        }
    }
    res
}

enum Pass {
    Done,
    Stop,
}

fn next_arg<'a>(args: &'a [String], argi: &mut usize) -> Option<&'a str> {
    let a = args.get(*argi).map(|s| s.as_str());
    if a.is_some() {
        *argi += 1;
    }
    a
}

fn format_once(
    fmt: &[u8],
    args: &[String],
    argi: &mut usize,
    time: &TimeCtx,
    res: &mut Formatted,
) -> Pass {
    let mut i = 0;
    while i < fmt.len() {
        let c = fmt[i];
        if c == b'\\' {
            // Find the extent of one escape and interpret it.
            let mut j = i + 1;
            if j < fmt.len() {
                let e = fmt[j];
                j += 1;
                match e {
                    b'0'..=b'7' => {
                        let lim = j + 2;
                        while j < fmt.len() && j < lim && (b'0'..=b'7').contains(&fmt[j]) {
                            j += 1;
                        }
                    }
                    b'x' => {
                        let lim = j + 2;
                        while j < fmt.len() && j < lim && fmt[j].is_ascii_hexdigit() {
                            j += 1;
                        }
                    }
                    b'u' | b'U' => {
                        let lim = j + if e == b'u' { 4 } else { 8 };
                        while j < fmt.len() && j < lim && fmt[j].is_ascii_hexdigit() {
                            j += 1;
                        }
                    }
                    _ => {}
                }
            }
            unescape(&fmt[i..j], EscapeMode::Format, &mut res.output);
            i = j;
            continue;
        }
        if c != b'%' {
            res.output.push(c);
            i += 1;
            continue;
        }
        let dstart = i;
        i += 1;
        if i >= fmt.len() {
            res.errors.push("`%': missing format character".into());
            res.status = 1;
            return Pass::Stop;
        }
        if fmt[i] == b'%' {
            res.output.push(b'%');
            i += 1;
            continue;
        }
        let mut spec = Spec::default();
        while i < fmt.len() {
            match fmt[i] {
                b'-' => spec.minus = true,
                b'+' => spec.plus = true,
                b' ' => spec.space = true,
                b'#' => spec.alt = true,
                b'0' => spec.zero = true,
                _ => break,
            }
            i += 1;
        }
        if i < fmt.len() && fmt[i] == b'*' {
            i += 1;
            let (w, _) = parse_int(next_arg(args, argi).unwrap_or(""), res);
            if w < 0 {
                spec.minus = true;
            }
            spec.width = Some(w.unsigned_abs() as usize);
        } else {
            let s = i;
            while i < fmt.len() && fmt[i].is_ascii_digit() {
                i += 1;
            }
            if i > s {
                spec.width = std::str::from_utf8(&fmt[s..i])
                    .ok()
                    .and_then(|t| t.parse().ok());
            }
        }
        if i < fmt.len() && fmt[i] == b'.' {
            i += 1;
            if i < fmt.len() && fmt[i] == b'*' {
                i += 1;
                let (p, _) = parse_int(next_arg(args, argi).unwrap_or(""), res);
                spec.prec = if p < 0 { None } else { Some(p as usize) };
            } else {
                let s = i;
                while i < fmt.len() && fmt[i].is_ascii_digit() {
                    i += 1;
                }
                spec.prec = Some(
                    std::str::from_utf8(&fmt[s..i])
                        .ok()
                        .and_then(|t| t.parse().ok())
                        .unwrap_or(0),
                );
            }
        }
        // Length modifiers are accepted and ignored, as bash does.
        while i < fmt.len() && matches!(fmt[i], b'h' | b'l' | b'L' | b'j' | b't' | b'z') {
            i += 1;
        }
        if i >= fmt.len() {
            let d = String::from_utf8_lossy(&fmt[dstart..]).into_owned();
            res.errors.push(format!("`{d}': missing format character"));
            res.status = 1;
            return Pass::Stop;
        }
        // A field is built in memory before it is written: bound it, so
        // `printf '%*s' 2000000000 ''` cannot take the host's memory.
        if spec.width.max(spec.prec).is_some_and(|n| n > MAX_FIELD) {
            let d = String::from_utf8_lossy(&fmt[dstart..=i]).into_owned();
            res.errors
                .push(format!("`{d}': field width or precision too large"));
            res.status = 1;
            return Pass::Stop;
        }
        let conv = fmt[i];
        i += 1;
        match conv {
            b's' => {
                let a = encode(next_arg(args, argi).unwrap_or(""));
                let mut b = &a[..];
                if let Some(p) = spec.prec {
                    b = &b[..p.min(b.len())];
                }
                pad(&mut res.output, b, &spec, false);
            }
            b'b' => {
                let a = next_arg(args, argi).unwrap_or("");
                let mut tmp = Vec::new();
                let stop = unescape(&encode(a), EscapeMode::PrintfB, &mut tmp);
                if let Some(p) = spec.prec {
                    tmp.truncate(p);
                }
                pad(&mut res.output, &tmp, &spec, false);
                if stop {
                    return Pass::Stop;
                }
            }
            b'q' => {
                let a = next_arg(args, argi).unwrap_or("");
                let q = quote_backslash(a);
                pad(&mut res.output, q.as_bytes(), &spec, false);
            }
            b'c' => {
                // An empty or missing argument's first byte is its NUL
                // terminator, which both printfs print.
                let a = encode(next_arg(args, argi).unwrap_or(""));
                let b: &[u8] = if a.is_empty() { b"\0" } else { &a[..1] };
                pad(&mut res.output, b, &spec, false);
            }
            b'd' | b'i' => {
                let (v, _) = parse_int(next_arg(args, argi).unwrap_or(""), res);
                let digits = v.unsigned_abs().to_string();
                let sign = if v < 0 {
                    "-"
                } else if spec.plus {
                    "+"
                } else if spec.space {
                    " "
                } else {
                    ""
                };
                int_out(&mut res.output, sign, "", &digits, &spec);
            }
            b'u' | b'o' | b'x' | b'X' => {
                let u = parse_uint(next_arg(args, argi).unwrap_or(""), res);
                let (digits, prefix) = match conv {
                    b'u' => (u.to_string(), ""),
                    b'o' => (format!("{u:o}"), if spec.alt && u != 0 { "0" } else { "" }),
                    b'x' => (format!("{u:x}"), if spec.alt && u != 0 { "0x" } else { "" }),
                    _ => (format!("{u:X}"), if spec.alt && u != 0 { "0X" } else { "" }),
                };
                // `%#o` shows one leading zero, counted in the precision.
                let digits = if conv == b'o' && spec.alt && u != 0 {
                    format!("0{digits}")
                } else {
                    digits
                };
                let prefix = if conv == b'o' { "" } else { prefix };
                int_out(&mut res.output, "", prefix, &digits, &spec);
            }
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' => {
                let v = parse_float(next_arg(args, argi).unwrap_or(""), res);
                let body = float_body(v.abs(), conv, &spec);
                let sign = if v.is_sign_negative() && !v.is_nan() {
                    "-"
                } else if spec.plus {
                    "+"
                } else if spec.space {
                    " "
                } else {
                    ""
                };
                let finite = v.is_finite();
                let s2 = Spec {
                    zero: spec.zero && finite,
                    prec: None,
                    ..spec.clone()
                };
                int_out(&mut res.output, sign, "", &body, &s2);
            }
            b'(' => {
                // %(strftime)T
                let Some(close) = fmt[i..].iter().position(|&b| b == b')') else {
                    res.errors.push("`(': missing format character".into());
                    res.status = 1;
                    return Pass::Stop;
                };
                let tf = String::from_utf8_lossy(&fmt[i..i + close]).into_owned();
                i += close + 1;
                if i >= fmt.len() || fmt[i] != b'T' {
                    res.errors.push("`(': missing format character".into());
                    res.status = 1;
                    return Pass::Stop;
                }
                i += 1;
                let secs = match next_arg(args, argi) {
                    None | Some("") => time.now,
                    Some(a) => {
                        let (v, _) = parse_int(a, res);
                        match v {
                            -1 => time.now,
                            -2 => time.start,
                            v => v,
                        }
                    }
                };
                let mut s = strftime_as(Flavor::Libc, &tf, &time.zone.local(secs, 0));
                // bash formats into a 128-byte buffer and prints nothing on overflow.
                if s.len() >= 128 {
                    s.clear();
                }
                if let Some(p) = spec.prec {
                    s.truncate(p);
                }
                pad(&mut res.output, s.as_bytes(), &spec, false);
            }
            other => {
                res.errors
                    .push(format!("`{}': invalid format character", other as char));
                res.status = 1;
                return Pass::Stop;
            }
        }
    }
    Pass::Done
}

/// Pads `body` to the width (spaces; left-justified with `-`).
fn pad(out: &mut Vec<u8>, body: &[u8], spec: &Spec, _zero: bool) {
    let w = spec.width.unwrap_or(0);
    let fill = w.saturating_sub(body.len());
    if !spec.minus {
        out.extend(std::iter::repeat_n(b' ', fill));
    }
    out.extend_from_slice(body);
    if spec.minus {
        out.extend(std::iter::repeat_n(b' ', fill));
    }
}

/// Writes a number: sign, prefix, digits padded to the precision, then the
/// whole padded to the width (with zeros after the sign for `0`).
fn int_out(out: &mut Vec<u8>, sign: &str, prefix: &str, digits: &str, spec: &Spec) {
    let mut digits = digits.to_string();
    if let Some(p) = spec.prec {
        if p == 0 && digits == "0" {
            digits.clear();
        }
        while digits.len() < p {
            digits.insert(0, '0');
        }
    }
    let len = sign.len() + prefix.len() + digits.len();
    let w = spec.width.unwrap_or(0);
    let fill = w.saturating_sub(len);
    if spec.minus {
        out.extend_from_slice(sign.as_bytes());
        out.extend_from_slice(prefix.as_bytes());
        out.extend_from_slice(digits.as_bytes());
        out.extend(std::iter::repeat_n(b' ', fill));
    } else if spec.zero && spec.prec.is_none() {
        out.extend_from_slice(sign.as_bytes());
        out.extend_from_slice(prefix.as_bytes());
        out.extend(std::iter::repeat_n(b'0', fill));
        out.extend_from_slice(digits.as_bytes());
    } else {
        out.extend(std::iter::repeat_n(b' ', fill));
        out.extend_from_slice(sign.as_bytes());
        out.extend_from_slice(prefix.as_bytes());
        out.extend_from_slice(digits.as_bytes());
    }
}

/// Parses an integer argument like bash's printf. Records an error for
/// trailing garbage or no digits; returns the value that parsed.
fn parse_int(a: &str, res: &mut Formatted) -> (i64, bool) {
    match parse_c_integer(a) {
        Ok(v) => (v, true),
        Err((v, kind)) => {
            match kind {
                NumErr::Invalid => res.errors.push(format!("{a}: invalid number")),
                NumErr::Range => res
                    .errors
                    .push(format!("warning: {a}: Numerical result out of range")),
            }
            if kind == NumErr::Invalid {
                res.status = 1;
            }
            (v, false)
        }
    }
}

/// Parses an unsigned argument like `strtoumax`: the full 64-bit range,
/// negative values wrapping.
fn parse_uint(a: &str, res: &mut Formatted) -> u64 {
    let t = a.trim_start_matches([' ', '\t', '\n']);
    let (neg, body) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let digits_only =
        !body.is_empty() && body.bytes().all(|b| b.is_ascii_digit()) && !body.starts_with('0');
    if digits_only {
        return match body.parse::<u64>() {
            Ok(v) => {
                if neg {
                    v.wrapping_neg()
                } else {
                    v
                }
            }
            Err(_) => {
                res.errors
                    .push(format!("warning: {a}: Numerical result out of range"));
                u64::MAX
            }
        };
    }
    parse_int(a, res).0 as u64
}

/// Why a number did not parse cleanly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NumErr {
    /// Not a number, or trailing garbage.
    Invalid,
    /// Out of the 64-bit range (value clamped).
    Range,
}

/// Parses like `strtoimax(s, &end, 0)` plus bash's `'c` form. `Err` carries
/// the value to use anyway.
pub fn parse_c_integer(a: &str) -> Result<i64, (i64, NumErr)> {
    let t = a.trim_start_matches([' ', '\t', '\n']);
    if a.is_empty() {
        return Ok(0);
    }
    if let Some(rest) = t.strip_prefix(['\'', '"']) {
        return Ok(rest.chars().next().map_or(0, |c| c as i64));
    }
    let b = t.as_bytes();
    let mut i = 0;
    let neg = match b.first() {
        Some(b'-') => {
            i = 1;
            true
        }
        Some(b'+') => {
            i = 1;
            false
        }
        _ => false,
    };
    let (radix, mut j) =
        if b.len() > i + 1 && b[i] == b'0' && (b[i + 1] == b'x' || b[i + 1] == b'X') {
            (16, i + 2)
        } else if b.len() > i && b[i] == b'0' {
            (8, i)
        } else {
            (10, i)
        };
    let digits_start = j;
    let mut v: i128 = 0;
    let mut overflow = false;
    while j < b.len() {
        let Some(d) = (b[j] as char).to_digit(radix) else {
            break;
        };
        v = v * radix as i128 + d as i128;
        if v > i64::MAX as i128 + 1 {
            overflow = true;
            v = i64::MAX as i128 + 1;
        }
        j += 1;
    }
    if j == digits_start {
        if radix == 16 {
            // "0x" with no hex digits: the "0" parsed.
            return Err((0, NumErr::Invalid));
        }
        return Err((0, NumErr::Invalid));
    }
    let v = if neg { -v } else { v };
    let clamped = v.clamp(i64::MIN as i128, i64::MAX as i128) as i64;
    if j < b.len() {
        return Err((clamped, NumErr::Invalid));
    }
    if overflow || v != clamped as i128 {
        return Err((clamped, NumErr::Range));
    }
    Ok(clamped)
}

fn parse_float(a: &str, res: &mut Formatted) -> f64 {
    let t = a.trim_start_matches([' ', '\t', '\n']);
    if t.is_empty() {
        return 0.0;
    }
    if let Some(rest) = t.strip_prefix(['\'', '"']) {
        return rest.chars().next().map_or(0.0, |c| c as u32 as f64);
    }
    // The longest prefix that parses as a float.
    let mut best = None;
    let chars: Vec<(usize, char)> = t.char_indices().collect();
    for (idx, c) in chars.iter().rev() {
        let end = idx + c.len_utf8();
        if let Ok(v) = t[..end].parse::<f64>() {
            best = Some((v, end));
            break;
        }
    }
    if let Ok(v) = parse_c_integer(t)
        && (t.starts_with("0x") || t.starts_with("0X"))
    {
        return v as f64;
    }
    match best {
        Some((v, end)) if end == t.len() => v,
        Some((v, _)) => {
            res.errors.push(format!("{a}: invalid number"));
            res.status = 1;
            v
        }
        None => {
            res.errors.push(format!("{a}: invalid number"));
            res.status = 1;
            0.0
        }
    }
}

/// The digits of a float conversion (no sign).
fn float_body(v: f64, conv: u8, spec: &Spec) -> String {
    let upper = conv.is_ascii_uppercase();
    if v.is_infinite() {
        return if upper { "INF".into() } else { "inf".into() };
    }
    if v.is_nan() {
        return if upper { "NAN".into() } else { "nan".into() };
    }
    let p = spec.prec.unwrap_or(6);
    let s = match conv.to_ascii_lowercase() {
        b'f' => {
            let s = format!("{v:.p$}");
            if spec.alt && p == 0 { s + "." } else { s }
        }
        b'e' => exp_form(v, p, spec.alt),
        b'a' => exp_form(v, p, spec.alt),
        _ => {
            let p = if p == 0 { 1 } else { p };
            if v == 0.0 {
                let s = if spec.alt {
                    format!("{:.*}", p - 1, 0.0)
                } else {
                    "0".to_string()
                };
                return s;
            }
            // The exponent after rounding to p significant digits.
            let e_str = format!("{:.*e}", p - 1, v);
            let x: i32 = e_str
                .split('e')
                .nth(1)
                .and_then(|e| e.parse().ok())
                .unwrap_or(0);
            let s = if x < -4 || x >= p as i32 {
                exp_form(v, p - 1, spec.alt)
            } else {
                format!("{:.*}", (p as i32 - 1 - x).max(0) as usize, v)
            };
            if spec.alt { s } else { strip_zeros(&s) }
        }
    };
    if upper { s.to_uppercase() } else { s }
}

/// `d.ddde+XX` with at least two exponent digits, as C prints it.
fn exp_form(v: f64, p: usize, alt: bool) -> String {
    let s = format!("{v:.p$e}");
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    let m = if alt && p == 0 {
        format!("{m}.")
    } else {
        m.to_string()
    };
    format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
}

/// Removes trailing zeros of the fraction (and a bare `.`), keeping an exponent.
fn strip_zeros(s: &str) -> String {
    let (m, e) = match s.find('e') {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, ""),
    };
    let m = if m.contains('.') {
        m.trim_end_matches('0').trim_end_matches('.')
    } else {
        m
    };
    format!("{m}{e}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(fmt: &str, args: &[&str]) -> (String, i32) {
        let a: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let r = format(fmt, &a, TimeCtx::default());
        (String::from_utf8(r.output).unwrap(), r.status)
    }

    #[test]
    fn conversions() {
        assert_eq!(
            f(
                "%5.2f|%-5s|%05d|%+d|% d|%x|%X|%o|%#x|%#o",
                &[
                    "3.14159", "ab", "42", "5", "5", "255", "255", "8", "255", "8"
                ]
            )
            .0,
            " 3.14|ab   |00042|+5| 5|ff|FF|10|0xff|010"
        );
        assert_eq!(
            f(
                "%e|%g|%g|%g|%G|%E",
                &["1234.5", "0.0001", "1234567", "100", "1e20", "12"]
            )
            .0,
            "1.234500e+03|0.0001|1.23457e+06|100|1E+20|1.200000E+01"
        );
        assert_eq!(f("%s %s\n", &["a", "b", "c"]).0, "a b\nc \n");
        assert_eq!(
            f("%.3s|%*d|%-*d|", &["abcdef", "5", "42", "4", "7"]).0,
            "abc|   42|7   |"
        );
        assert_eq!(
            f("%.2d|%5.3d|%-05d|", &["3", "4", "5"]).0,
            "03|  004|5    |"
        );
        assert_eq!(f("%d", &["'A"]).0, "65");
        assert_eq!(
            f("%i|%u|%x", &["-1", "-1", "-1"]).0,
            "-1|18446744073709551615|ffffffffffffffff"
        );
        assert_eq!(f("x\n", &["a", "b"]).0, "x\n");
        assert_eq!(f("%b|", &["\\101", "\\0101"]).0, "A|A|");
        assert_eq!(f("\\101\\x41\\u00e9\\q\\\"", &[]).0, "AAé\\q\"");
    }

    #[test]
    fn errors() {
        assert_eq!(f("%d %d", &["12abc", "3"]), ("12 3".into(), 1));
        assert_eq!(f("abc%", &[]), ("abc".into(), 1));
        assert_eq!(f("%y", &[]).1, 1);
        assert_eq!(
            f("%d", &["99999999999999999999"]),
            ("9223372036854775807".into(), 0)
        );
    }
}
