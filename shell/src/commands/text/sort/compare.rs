//! The orderings sort knows, on raw bytes in the C locale: numeric (`-n`),
//! general numeric (`-g`), human sizes (`-h`), versions (`-V`), months
//! (`-M`), and text with folding/ignoring (`-f -d -i`).

use std::cmp::Ordering;

/// True for sort's blank bytes (C locale `isblank`, plus newline).
pub fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t' || b == b'\n'
}

/// A number as `-n` reads it: sign, integer digits without leading zeros,
/// fraction digits without trailing zeros. Compared exactly, any length.
#[derive(Clone, Copy, Debug, Default)]
pub struct Num<'a> {
    neg: bool,
    int: &'a [u8],
    frac: &'a [u8],
}

impl<'a> Num<'a> {
    /// Parses the leading number of `s` (after blanks); no number is zero.
    pub fn parse(s: &'a [u8]) -> (Num<'a>, usize) {
        let mut i = 0;
        while i < s.len() && is_blank(s[i]) {
            i += 1;
        }
        let neg = s.get(i) == Some(&b'-');
        if neg {
            i += 1;
        }
        let st = i;
        while i < s.len() && s[i].is_ascii_digit() {
            i += 1;
        }
        let mut int = &s[st..i];
        while int.first() == Some(&b'0') {
            int = &int[1..];
        }
        let mut frac: &[u8] = &[];
        if s.get(i) == Some(&b'.') {
            let fs = i + 1;
            i += 1;
            while i < s.len() && s[i].is_ascii_digit() {
                i += 1;
            }
            frac = &s[fs..i];
            while frac.last() == Some(&b'0') {
                frac = &frac[..frac.len() - 1];
            }
        }
        let zero = int.is_empty() && frac.is_empty();
        (
            Num {
                neg: neg && !zero,
                int,
                frac,
            },
            i,
        )
    }

    /// The value as an integer, when it is one and fits in 18 digits.
    pub fn as_i64(&self) -> Option<i64> {
        if !self.frac.is_empty() || self.int.len() > 18 {
            return None;
        }
        let mut v: i64 = 0;
        for d in self.int {
            v = v * 10 + (d - b'0') as i64;
        }
        Some(if self.neg { -v } else { v })
    }

    fn cmp_abs(&self, o: &Num<'_>) -> Ordering {
        self.int
            .len()
            .cmp(&o.int.len())
            .then_with(|| self.int.cmp(o.int))
            .then_with(|| self.frac.cmp(o.frac))
    }
}

impl Ord for Num<'_> {
    fn cmp(&self, o: &Self) -> Ordering {
        match (self.neg, o.neg) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => self.cmp_abs(o),
            (true, true) => o.cmp_abs(self),
        }
    }
}

impl PartialOrd for Num<'_> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl PartialEq for Num<'_> {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}

impl Eq for Num<'_> {}

/// `-n`
pub fn numeric(a: &[u8], b: &[u8]) -> Ordering {
    Num::parse(a).0.cmp(&Num::parse(b).0)
}

/// `-h`: the unit suffix decides first, then the number.
pub fn human(a: &[u8], b: &[u8]) -> Ordering {
    fn order(s: &[u8]) -> (i32, Num<'_>) {
        let (n, end) = Num::parse(s);
        let nonzero = !(n.int.is_empty() && n.frac.is_empty());
        let unit = match s.get(end) {
            Some(b'K') | Some(b'k') => 1,
            Some(b'M') => 2,
            Some(b'G') => 3,
            Some(b'T') => 4,
            Some(b'P') => 5,
            Some(b'E') => 6,
            Some(b'Z') => 7,
            Some(b'Y') => 8,
            Some(b'R') => 9,
            Some(b'Q') => 10,
            _ => 0,
        };
        let unit = if !nonzero {
            0
        } else if n.neg {
            -unit
        } else {
            unit
        };
        (unit, n)
    }
    let (ua, na) = order(a);
    let (ub, nb) = order(b);
    ua.cmp(&ub).then_with(|| na.cmp(&nb))
}

/// Parses the longest `strtod` prefix of `s`; `None` when there is none.
pub fn strtod(s: &[u8]) -> Option<f64> {
    let mut i = 0;
    while i < s.len() && (is_blank(s[i]) || s[i] == b'\r' || s[i] == 0x0b || s[i] == 0x0c) {
        i += 1;
    }
    let st = i;
    if matches!(s.get(i), Some(b'+') | Some(b'-')) {
        i += 1;
    }
    let rest = &s[i..];
    let lower: Vec<u8> = rest
        .iter()
        .take(8)
        .map(|b| b.to_ascii_lowercase())
        .collect();
    let neg = s.get(st) == Some(&b'-');
    let sign = if neg { -1.0 } else { 1.0 };
    if lower.starts_with(b"inf") {
        return Some(sign * f64::INFINITY);
    }
    if lower.starts_with(b"nan") {
        return Some(f64::NAN);
    }
    if lower.starts_with(b"0x") {
        let mut j = 2;
        let mut v = 0f64;
        let mut any = false;
        while j < rest.len() && rest[j].is_ascii_hexdigit() {
            v = v * 16.0 + (rest[j] as char).to_digit(16).unwrap() as f64;
            j += 1;
            any = true;
        }
        if any {
            return Some(sign * v);
        }
        return Some(0.0);
    }
    let mut j = i;
    let mut digits = false;
    while j < s.len() && s[j].is_ascii_digit() {
        j += 1;
        digits = true;
    }
    if s.get(j) == Some(&b'.') {
        j += 1;
        while j < s.len() && s[j].is_ascii_digit() {
            j += 1;
            digits = true;
        }
    }
    if !digits {
        return None;
    }
    if matches!(s.get(j), Some(b'e') | Some(b'E')) {
        let mut k = j + 1;
        if matches!(s.get(k), Some(b'+') | Some(b'-')) {
            k += 1;
        }
        if s.get(k).is_some_and(|b| b.is_ascii_digit()) {
            while k < s.len() && s[k].is_ascii_digit() {
                k += 1;
            }
            j = k;
        }
    }
    std::str::from_utf8(&s[st..j]).ok()?.parse::<f64>().ok()
}

/// `-g`: conversion errors first, then NaNs, then numbers.
pub fn general(a: &[u8], b: &[u8]) -> Ordering {
    match (strtod(a), strtod(b)) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Less,
        (Some(_), None) => Ordering::Greater,
        (Some(x), Some(y)) => match (x.is_nan(), y.is_nan()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            _ => x.partial_cmp(&y).unwrap(),
        },
    }
}

/// `-M`: unknown < JAN < ... < DEC.
pub fn month(a: &[u8], b: &[u8]) -> Ordering {
    fn m(s: &[u8]) -> usize {
        const NAMES: [&[u8]; 12] = [
            b"JAN", b"FEB", b"MAR", b"APR", b"MAY", b"JUN", b"JUL", b"AUG", b"SEP", b"OCT", b"NOV",
            b"DEC",
        ];
        let t: Vec<u8> = s
            .iter()
            .skip_while(|b| is_blank(**b))
            .take(3)
            .map(|b| b.to_ascii_uppercase())
            .collect();
        NAMES
            .iter()
            .position(|n| *n == t.as_slice())
            .map(|p| p + 1)
            .unwrap_or(0)
    }
    m(a).cmp(&m(b))
}

/// `-V`: gnulib's `filevercmp`.
pub fn version(a: &[u8], b: &[u8]) -> Ordering {
    if a == b {
        return Ordering::Equal;
    }
    for special in [&b""[..], b".", b".."] {
        if a == special {
            return Ordering::Less;
        }
        if b == special {
            return Ordering::Greater;
        }
    }
    let (ha, hb) = (a.first() == Some(&b'.'), b.first() == Some(&b'.'));
    if ha != hb {
        return if ha {
            Ordering::Less
        } else {
            Ordering::Greater
        };
    }
    let (a, b) = if ha { (&a[1..], &b[1..]) } else { (a, b) };
    let pa = prefix_len(a);
    let pb = prefix_len(b);
    let r = verrevcmp(&a[..pa], &b[..pb]);
    if r != 0 {
        return r.cmp(&0);
    }
    verrevcmp(a, b).cmp(&0)
}

/// Length of `s` without its file suffix `(\.[A-Za-z~][A-Za-z0-9~]*)*$`.
fn prefix_len(s: &[u8]) -> usize {
    let mut prefix = s.len();
    let mut i = 0;
    while i < s.len() {
        if s[i] == b'.' {
            let mut j = i + 1;
            let mut ok = j < s.len() && (s[j].is_ascii_alphabetic() || s[j] == b'~');
            if ok {
                j += 1;
                while j < s.len() && (s[j].is_ascii_alphanumeric() || s[j] == b'~') {
                    j += 1;
                }
            }
            // This dot starts a suffix chain only if the chain reaches the end.
            let mut k = i;
            ok = true;
            while k < s.len() {
                if s[k] != b'.' {
                    ok = false;
                    break;
                }
                let mut m = k + 1;
                if !(m < s.len() && (s[m].is_ascii_alphabetic() || s[m] == b'~')) {
                    ok = false;
                    break;
                }
                m += 1;
                while m < s.len() && (s[m].is_ascii_alphanumeric() || s[m] == b'~') {
                    m += 1;
                }
                k = m;
            }
            if ok {
                prefix = i;
                break;
            }
            i = j.max(i + 1);
        } else {
            i += 1;
        }
    }
    prefix
}

fn order(c: Option<u8>) -> i32 {
    match c {
        None => 0,
        Some(c) if c.is_ascii_digit() => 0,
        Some(c) if c.is_ascii_alphabetic() => c as i32,
        Some(b'~') => -1,
        Some(c) => c as i32 + 256,
    }
}

fn verrevcmp(a: &[u8], b: &[u8]) -> i32 {
    let (mut i, mut j) = (0, 0);
    let dig = |s: &[u8], k: usize| s.get(k).is_some_and(|c| c.is_ascii_digit());
    while i < a.len() || j < b.len() {
        while (i < a.len() && !dig(a, i)) || (j < b.len() && !dig(b, j)) {
            let ac = order(a.get(i).copied());
            let bc = order(b.get(j).copied());
            if ac != bc {
                return ac - bc;
            }
            i += 1;
            j += 1;
        }
        while a.get(i) == Some(&b'0') {
            i += 1;
        }
        while b.get(j) == Some(&b'0') {
            j += 1;
        }
        let mut first_diff = 0;
        while dig(a, i) && dig(b, j) {
            if first_diff == 0 {
                first_diff = a[i] as i32 - b[j] as i32;
            }
            i += 1;
            j += 1;
        }
        if dig(a, i) {
            return 1;
        }
        if dig(b, j) {
            return -1;
        }
        if first_diff != 0 {
            return first_diff;
        }
    }
    0
}

/// Text comparison with `-f` (fold to upper), `-d` (only blanks and
/// alphanumerics count), `-i` (only printables count).
pub fn text(a: &[u8], b: &[u8], fold: bool, dict: bool, nonprint: bool) -> Ordering {
    if !fold && !dict && !nonprint {
        return a.cmp(b);
    }
    let keep = |c: u8| {
        (!dict || c.is_ascii_alphanumeric() || c == b' ' || c == b'\t')
            && (!nonprint || (0x20..0x7f).contains(&c))
    };
    let tr = |c: u8| if fold { c.to_ascii_uppercase() } else { c };
    let mut ia = a.iter().copied().filter(|c| keep(*c)).map(tr);
    let mut ib = b.iter().copied().filter(|c| keep(*c)).map(tr);
    loop {
        match (ia.next(), ib.next()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(x), Some(y)) if x != y => return x.cmp(&y),
            _ => {}
        }
    }
}
