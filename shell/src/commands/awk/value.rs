//! awk values: the string/number duality. A value is a number, a string, a
//! "strnum" (input text that looks numeric and then compares as a number),
//! or uninitialized (both "" and 0).

use super::printf::format_number;

/// An awk value.
#[derive(Clone, Debug, Default)]
pub enum Value {
    /// Never assigned: "" and 0.
    #[default]
    Uninit,
    /// A number.
    Num(f64),
    /// A string constant or computed string.
    Str(String),
    /// Text from input (fields, getline, ARGV, ENVIRON, -v): numeric if it
    /// looks like a number.
    StrNum(String),
}

/// The leading numeric prefix of `s` as strtod reads it (0 when none).
pub fn str_to_num(s: &str) -> f64 {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c') {
        i += 1;
    }
    let st = i;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    let ds = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let mut digits = i - ds;
    if i < b.len() && b[i] == b'.' {
        i += 1;
        let f = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        digits += i - f;
    }
    if digits == 0 {
        // inf/nan as gawk reads them: "+inf", "-nan" only with a sign.
        let rest = &s[ds..];
        if ds > st {
            let low = rest.get(..3).map(|x| x.to_ascii_lowercase());
            if low.as_deref() == Some("inf") {
                return if b[st] == b'-' {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                };
            }
            if low.as_deref() == Some("nan") {
                return f64::NAN;
            }
        }
        return 0.0;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        if j < b.len() && b[j].is_ascii_digit() {
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            i = j;
        }
    }
    // Fast path for plain integers.
    let t = &s[st..i];
    t.parse::<f64>().unwrap_or(0.0)
}

/// True when the whole of `s` (blanks around allowed) is a number.
pub fn looks_numeric(s: &str) -> bool {
    let t = s.trim_matches(|c| matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c'));
    if t.is_empty() {
        return false;
    }
    let b = t.as_bytes();
    let mut i = 0;
    if b[0] == b'+' || b[0] == b'-' {
        i = 1;
    }
    let body = &t[i..];
    let low = body.to_ascii_lowercase();
    if i == 1 && (low == "inf" || low == "nan") {
        return true;
    }
    let mut digits = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
        digits += 1;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
            digits += 1;
        }
    }
    if digits == 0 {
        return false;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        let s = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == s {
            return false;
        }
    }
    i == b.len()
}

/// Formats a number as a string: integers as integers, others by `fmt`
/// (CONVFMT or OFMT).
pub fn num_to_string(n: f64, fmt: &str) -> String {
    if n.is_nan() {
        return if n.is_sign_negative() {
            "-nan".into()
        } else {
            "+nan".into()
        };
    }
    if n.is_infinite() {
        return if n < 0.0 {
            "-inf".into()
        } else {
            "+inf".into()
        };
    }
    if n == n.trunc() {
        if n == 0.0 {
            return "0".into();
        }
        if n.abs() < 1e18 {
            return format!("{}", n as i64);
        }
        return format!("{n:.0}");
    }
    format_number(fmt, n)
}

impl Value {
    /// The numeric value.
    pub fn num(&self) -> f64 {
        match self {
            Value::Uninit => 0.0,
            Value::Num(n) => *n,
            Value::Str(s) | Value::StrNum(s) => str_to_num(s),
        }
    }

    /// The string value, numbers formatted with `convfmt`.
    pub fn str_with(&self, convfmt: &str) -> String {
        match self {
            Value::Uninit => String::new(),
            Value::Num(n) => num_to_string(*n, convfmt),
            Value::Str(s) | Value::StrNum(s) => s.clone(),
        }
    }

    /// Truth: numbers non-zero, strings non-empty, strnums by number.
    pub fn truthy(&self) -> bool {
        match self {
            Value::Uninit => false,
            Value::Num(n) => *n != 0.0,
            Value::Str(s) => !s.is_empty(),
            Value::StrNum(s) => {
                if looks_numeric(s) {
                    str_to_num(s) != 0.0
                } else {
                    !s.is_empty()
                }
            }
        }
    }

    /// True when comparisons treat this value as a number.
    pub fn is_numeric(&self) -> bool {
        match self {
            Value::Uninit | Value::Num(_) => true,
            Value::Str(_) => false,
            Value::StrNum(s) => looks_numeric(s),
        }
    }
}
