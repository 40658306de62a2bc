//! printf/sprintf formatting with C semantics: `%d %i %o %x %X %u %c %s %e
//! %E %f %F %g %G %%`, flags `- + space # 0`, width, precision and `*`.

use super::value::Value;

/// Formats one number with a single C conversion such as `%.6g`.
pub fn format_number(fmt: &str, n: f64) -> String {
    let mut out = String::new();
    let _ = format(fmt, &[Value::Num(n)], "%.6g", false, &mut out);
    out
}

struct Spec {
    minus: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    prec: Option<usize>,
}

fn pad(out: &mut String, body: &str, sp: &Spec, numeric: bool) {
    let len = body.chars().count();
    if len >= sp.width {
        out.push_str(body);
        return;
    }
    let fill = sp.width - len;
    if sp.minus {
        out.push_str(body);
        out.extend(std::iter::repeat_n(' ', fill));
    } else if sp.zero && numeric {
        // Zeros go after the sign / 0x prefix.
        let (pre, rest) = split_sign(body);
        out.push_str(pre);
        out.extend(std::iter::repeat_n('0', fill));
        out.push_str(rest);
    } else {
        out.extend(std::iter::repeat_n(' ', fill));
        out.push_str(body);
    }
}

fn split_sign(s: &str) -> (&str, &str) {
    let mut i = 0;
    if s.starts_with(['-', '+', ' ']) {
        i = 1;
    }
    if s[i..].starts_with("0x") || s[i..].starts_with("0X") {
        i += 2;
    }
    s.split_at(i)
}

/// C's `%e` body for a finite non-negative `x`.
fn fmt_e(x: f64, prec: usize, upper: bool, alt: bool) -> String {
    let s = format!("{:.*e}", prec, x);
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let mut m = mant.to_string();
    if alt && prec == 0 {
        m.push('.');
    }
    let e = if upper { 'E' } else { 'e' };
    format!("{m}{e}{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs())
}

fn fmt_g(x: f64, prec: usize, upper: bool, alt: bool) -> String {
    let p = if prec == 0 { 1 } else { prec };
    if x == 0.0 {
        let mut s = "0".to_string();
        if alt && p > 1 {
            s.push('.');
            s.extend(std::iter::repeat_n('0', p - 1));
        }
        return s;
    }
    let es = format!("{:.*e}", p - 1, x);
    let exp: i32 = es
        .split_once('e')
        .map(|(_, e)| e.parse().unwrap_or(0))
        .unwrap_or(0);
    let mut s = if exp < -4 || exp >= p as i32 {
        fmt_e(x, p - 1, upper, alt)
    } else {
        format!("{:.*}", (p as i32 - 1 - exp).max(0) as usize, x)
    };
    if !alt {
        // Strip trailing zeros of the fraction.
        let (mant, rest) = match s.find(['e', 'E']) {
            Some(i) => (s[..i].to_string(), s[i..].to_string()),
            None => (s.clone(), String::new()),
        };
        if mant.contains('.') {
            let m = mant.trim_end_matches('0').trim_end_matches('.');
            s = format!("{m}{rest}");
        }
    }
    s
}

fn signed(neg: bool, body: String, sp: &Spec) -> String {
    if neg {
        format!("-{body}")
    } else if sp.plus {
        format!("+{body}")
    } else if sp.space {
        format!(" {body}")
    } else {
        body
    }
}

fn float_conv(c: char, x: f64, sp: &Spec) -> String {
    let neg = x.is_sign_negative() && !x.is_nan();
    let a = x.abs();
    if !a.is_finite() {
        let s = if a.is_nan() { "nan" } else { "inf" };
        let s = if c.is_ascii_uppercase() {
            s.to_ascii_uppercase()
        } else {
            s.to_string()
        };
        return signed(x.is_sign_negative(), s, sp);
    }
    let prec = sp.prec.unwrap_or(6);
    let body = match c {
        'f' | 'F' => {
            let mut s = format!("{:.*}", prec, a);
            if sp.alt && prec == 0 {
                s.push('.');
            }
            s
        }
        'e' | 'E' => fmt_e(a, prec, c == 'E', sp.alt),
        _ => fmt_g(a, prec, c == 'G', sp.alt),
    };
    signed(neg, body, sp)
}

fn to_int(x: f64) -> i128 {
    if x.is_nan() {
        return 0;
    }
    x.trunc().clamp(-1.7e38, 1.7e38) as i128
}

/// The arguments of one `printf`, taken in order; one asked for past the
/// end is uninitialised and marks the format as unsatisfied.
struct ArgCursor<'a> {
    args: &'a [Value],
    next: usize,
    missing: bool,
    /// The locale's characters are UTF-8.
    utf8: bool,
}

impl ArgCursor<'_> {
    fn next(&mut self) -> Value {
        let v = self.args.get(self.next).cloned().unwrap_or_else(|| {
            self.missing = true;
            Value::Uninit
        });
        self.next += 1;
        v
    }
}

/// Formats `args` by `fmt` into `out`; `convfmt` turns numbers given to `%s`
/// into strings; `utf8`: the locale's characters are UTF-8 (`%c` of a code
/// above 255). The error is gawk's: too few arguments for the format.
pub fn format(
    fmt: &str,
    args: &[Value],
    convfmt: &str,
    utf8: bool,
    out: &mut String,
) -> Result<(), String> {
    let f: Vec<char> = fmt.chars().collect();
    let mut args = ArgCursor {
        args,
        next: 0,
        missing: false,
        utf8,
    };
    let mut i = 0;
    while i < f.len() {
        if f[i] != '%' {
            out.push(f[i]);
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        if f.get(i) == Some(&'%') {
            out.push('%');
            i += 1;
            continue;
        }
        let sp = parse_spec(&f, &mut i, &mut args);
        let Some(&conv) = f.get(i) else {
            out.extend(&f[start..]);
            break;
        };
        i += 1;
        if conv == '%' {
            out.push('%');
            continue;
        }
        if args.missing {
            break;
        }
        convert(conv, sp, &mut args, convfmt, &f[start..i], out);
    }
    if args.missing {
        return Err("fatal: not enough arguments to satisfy format string".into());
    }
    Ok(())
}

/// The flags, width, precision (either may be `*`: taken from the
/// arguments) and ignored length modifiers of a directive, from `f[*i]`
/// (just past the `%`); `*i` ends at the conversion character.
fn parse_spec(f: &[char], i: &mut usize, args: &mut ArgCursor<'_>) -> Spec {
    let mut sp = Spec {
        minus: false,
        plus: false,
        space: false,
        alt: false,
        zero: false,
        width: 0,
        prec: None,
    };
    while let Some(&c) = f.get(*i) {
        match c {
            '-' => sp.minus = true,
            '+' => sp.plus = true,
            ' ' => sp.space = true,
            '#' => sp.alt = true,
            '0' => sp.zero = true,
            _ => break,
        }
        *i += 1;
    }
    if f.get(*i) == Some(&'*') {
        *i += 1;
        let w = args.next().num() as i64;
        if w < 0 {
            sp.minus = true;
        }
        sp.width = (w.unsigned_abs() as usize).min(100_000);
    } else {
        while let Some(d) = f.get(*i).and_then(|c| c.to_digit(10)) {
            sp.width = (sp.width * 10 + d as usize).min(100_000);
            *i += 1;
        }
    }
    if f.get(*i) == Some(&'.') {
        *i += 1;
        let mut p = 0usize;
        if f.get(*i) == Some(&'*') {
            *i += 1;
            let v = args.next().num() as i64;
            sp.prec = if v < 0 {
                None
            } else {
                Some((v as usize).min(100_000))
            };
        } else {
            while let Some(d) = f.get(*i).and_then(|c| c.to_digit(10)) {
                p = (p * 10 + d as usize).min(100_000);
                *i += 1;
            }
            sp.prec = Some(p);
        }
    }
    // Length modifiers are accepted and ignored.
    while matches!(f.get(*i), Some('h' | 'l' | 'L' | 'q' | 'j' | 'z' | 't')) {
        *i += 1;
    }
    sp
}

/// One conversion `conv` of the next argument by `sp`; an unknown one is
/// copied as written (`directive`).
fn convert(
    conv: char,
    mut sp: Spec,
    args: &mut ArgCursor<'_>,
    convfmt: &str,
    directive: &[char],
    out: &mut String,
) {
    match conv {
        'd' | 'i' => {
            let x = args.next().num();
            if !x.is_finite() {
                let s = float_conv(
                    'f',
                    x,
                    &Spec {
                        prec: Some(0),
                        ..sp
                    },
                );
                pad(out, &s, &sp, false);
                return;
            }
            let n = to_int(x);
            let mut digits = n.unsigned_abs().to_string();
            if let Some(p) = sp.prec {
                if p == 0 && n == 0 {
                    digits.clear();
                }
                while digits.len() < p {
                    digits.insert(0, '0');
                }
                sp.zero = false;
            }
            let s = signed(n < 0, digits, &sp);
            pad(out, &s, &sp, true);
        }
        'o' | 'x' | 'X' | 'u' => {
            let x = args.next().num();
            let n = to_int(x);
            let u = if n < 0 {
                (n as i64) as u64 as u128
            } else {
                n as u128
            };
            let mut digits = match conv {
                'o' => format!("{u:o}"),
                'x' => format!("{u:x}"),
                'X' => format!("{u:X}"),
                _ => u.to_string(),
            };
            if let Some(p) = sp.prec {
                if p == 0 && u == 0 {
                    digits.clear();
                }
                while digits.len() < p {
                    digits.insert(0, '0');
                }
                sp.zero = false;
            }
            if sp.alt && u != 0 {
                match conv {
                    'o' if !digits.starts_with('0') => digits.insert(0, '0'),
                    'x' => digits.insert_str(0, "0x"),
                    'X' => digits.insert_str(0, "0X"),
                    _ => {}
                }
            }
            pad(out, &digits, &sp, true);
        }
        'e' | 'E' | 'f' | 'F' | 'g' | 'G' => {
            let x = args.next().num();
            let s = float_conv(conv, x, &sp);
            pad(out, &s, &sp, x.is_finite());
        }
        'c' => {
            let v = args.next();
            // A number (numeric input text too) is a character code, 0 a
            // NUL; a string gives its first character, a NUL when empty.
            let s = if v.is_numeric() {
                let code = v.num();
                let code = if code.is_finite() { code as i64 } else { 0 };
                // In a UTF-8 locale a code point, as gawk prints one (one
                // that is none, a surrogate, prints a NUL); below 256, and
                // in the C locale, the code modulo 256.
                match u32::try_from(code) {
                    Ok(c) if c > 0xff && args.utf8 => char::from_u32(c).unwrap_or('\0').to_string(),
                    _ => char::from((code & 0xff) as u8).to_string(),
                }
            } else {
                let text = v.str_with(convfmt);
                text.chars().next().unwrap_or('\0').to_string()
            };
            pad(out, &s, &sp, false);
        }
        's' => {
            let v = args.next();
            let s = v.str_with(convfmt);
            let s: String = match sp.prec {
                Some(p) => s.chars().take(p).collect(),
                None => s,
            };
            pad(out, &s, &sp, false);
        }
        _ => {
            out.extend(directive);
        }
    }
}
