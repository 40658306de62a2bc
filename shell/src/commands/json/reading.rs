//! How jq 1.6 reads JSON text where jaq's reader differs: jq's numbers go
//! through C's `strtod`, which also takes `nan`, `inf` and `infinity` in any
//! case and with a sign (`-NaN`, `INF`; jaq takes only `NaN`, `Infinity`
//! and `-Infinity`), and jq 1.6 stores every number as a double, so an
//! integer past 2^53 loses its last digits at once (jaq keeps it exact).
//! Used for the inputs and for `fromjson`. Also where in its input jq 1.6
//! is when a value ends ([`LineCount`]), for its error positions.

use std::borrow::Cow;
use std::rc::Rc;

use jaq_json::{Num, Val};

/// The largest integer up to which every integer is a double.
const EXACT: u64 = 1 << 53;

/// jaq's spelling of the special number `token` is, if `strtod` reads it as
/// one. A token starting with `n` is checked as `null` instead, except
/// `nan` itself, which Debian's jq 1.6 takes (see `super::parse_errors`).
fn special(token: &[u8]) -> Option<&'static [u8]> {
    let (negative, word) = match token.split_first()? {
        (b'-', rest) => (true, rest),
        (b'+', rest) => (false, rest),
        (b'n', _) if token == b"nan" => return Some(b"NaN"),
        (b'n', _) => return None,
        _ => (false, token),
    };
    let word = word.to_ascii_lowercase();
    match word.as_slice() {
        b"nan" => Some(b"NaN"),
        b"inf" | b"infinity" if negative => Some(b"-Infinity"),
        b"inf" | b"infinity" => Some(b"Infinity"),
        _ => None,
    }
}

/// Whether `strtod` reads `token` whole as a special number.
pub(super) fn is_special(token: &[u8]) -> bool {
    special(token).is_some()
}

/// `text` with `strtod`'s special numbers (outside strings) spelled as
/// jaq reads them; borrowed when there are none.
pub(super) fn specials_spelled(text: &[u8]) -> Cow<'_, [u8]> {
    let mut out: Option<Vec<u8>> = None;
    let mut done = 0;
    let mut i = 0;
    while i < text.len() {
        match text[i] {
            b'"' => i = string_end(text, i),
            c if is_literal_byte(c) => {
                let start = i;
                while i < text.len() && is_literal_byte(text[i]) {
                    i += 1;
                }
                if let Some(spelled) = special(&text[start..i]) {
                    let o = out.get_or_insert_with(|| Vec::with_capacity(text.len() + 8));
                    o.extend_from_slice(&text[done..start]);
                    o.extend_from_slice(spelled);
                    done = i;
                }
            }
            _ => i += 1,
        }
    }
    match out {
        Some(mut o) => {
            o.extend_from_slice(&text[done..]);
            Cow::Owned(o)
        }
        None => Cow::Borrowed(text),
    }
}

/// Whether `c` continues a literal token (jq's parser gathers these).
fn is_literal_byte(c: u8) -> bool {
    !matches!(
        c,
        b' ' | b'\t' | b'\r' | b'\n' | b'"' | b'[' | b']' | b'{' | b'}' | b',' | b':'
    )
}

/// The index after the string that starts at the quote at `i`.
fn string_end(text: &[u8], mut i: usize) -> usize {
    i += 1;
    while i < text.len() && text[i] != b'"' {
        i += if text[i] == b'\\' { 2 } else { 1 };
    }
    i + 1
}

/// Whether `text` may hold an integer too long for a double: a run of 16
/// digits or more (the values are then checked). Such a run covers a
/// multiple of 16, so only every 16th byte is looked at first: inputs are
/// often large and rarely hold one.
pub(super) fn may_hold_long_integers(text: &[u8]) -> bool {
    (0..text.len()).step_by(16).any(|i| {
        let digit = |j: &usize| text[*j].is_ascii_digit();
        if !digit(&i) {
            return false;
        }
        let before = (0..i).rev().take_while(digit).count();
        let after = (i..text.len()).take_while(digit).count();
        before + after >= 16
    })
}

/// `v` with every integer past 2^53 rounded to a double, as jq 1.6 reads it.
pub(super) fn as_doubles(v: Val) -> Val {
    match v {
        Val::Num(Num::Int(i)) if i.unsigned_abs() as u64 > EXACT => Val::Num(Num::Float(i as f64)),
        Val::Num(Num::BigInt(_) | Num::Dec(_)) => match &v {
            Val::Num(n) => Val::Num(Num::Float(super::format::num_to_f64(n))),
            _ => v,
        },
        Val::Arr(a) => Val::Arr(Rc::new(
            Rc::unwrap_or_clone(a).into_iter().map(as_doubles).collect(),
        )),
        Val::Obj(o) => Val::obj(
            Rc::unwrap_or_clone(o)
                .into_iter()
                .map(|(k, v)| (k, as_doubles(v)))
                .collect(),
        ),
        v => v,
    }
}

/// `fromjson` as jq 1.6: exactly one value, read as [`as_doubles`] says,
/// or jq's message (`Unexpected extra JSON values (while parsing '1 2')`).
pub(super) fn from_json(text: &[u8]) -> Result<Val, String> {
    let shown = String::from_utf8_lossy(text);
    if let Some(m) = super::parse_errors::message(text) {
        return Err(format!("{m} (while parsing '{shown}')"));
    }
    let spelled = specials_spelled(text);
    let mut vals = jaq_json::read::parse_many(&spelled);
    let v = match (vals.next(), vals.next()) {
        (None, _) => return Err(format!("Expected JSON value (while parsing '{shown}')")),
        (Some(Ok(v)), None) => v,
        (Some(Ok(_)), Some(Ok(_))) => {
            return Err(format!(
                "Unexpected extra JSON values (while parsing '{shown}')"
            ));
        }
        (Some(Err(e)), _) | (_, Some(Err(e))) => {
            return Err(format!("{e} (while parsing '{shown}')"));
        }
    };
    Ok(if may_hold_long_integers(text) {
        as_doubles(v)
    } else {
        v
    })
}

/// How many lines jq 1.6 has read of a text as the values in it end at
/// growing offsets: it feeds its parser line by line (in pieces of at most
/// 4095 bytes), so the line holding a value's end is read whole. Each byte
/// is looked at once over all the values (counting from the start for
/// each made `seq 100000 | jq .` quadratic: 14 s).
pub struct LineCount<'t> {
    text: &'t [u8],
    /// The bytes counted so far, the newlines among them, and where the
    /// line holding the end of them starts.
    counted: usize,
    newlines: usize,
    line_start: usize,
    /// The first newline at or after some offset (searched from there),
    /// `None` when there is none.
    next_newline: Option<(usize, Option<usize>)>,
}

impl<'t> LineCount<'t> {
    /// A count over `text`, at its start.
    pub fn new(text: &'t [u8]) -> LineCount<'t> {
        LineCount {
            text,
            counted: 0,
            newlines: 0,
            line_start: 0,
            next_newline: None,
        }
    }

    /// The lines read once a value ending at byte `end` is parsed; `end`
    /// never goes back between calls.
    pub fn lines_read(&mut self, end: usize) -> usize {
        let text = self.text;
        let end = end.min(text.len()).max(self.counted);
        for i in memchr::memchr_iter(b'\n', &text[self.counted..end]) {
            self.newlines += 1;
            self.line_start = self.counted + i + 1;
        }
        self.counted = end;
        if end == 0 || text[end - 1] == b'\n' {
            return self.newlines;
        }
        let piece_end = self.line_start + ((end - 1 - self.line_start) / 4095 + 1) * 4095;
        let next = match self.next_newline {
            Some((from, found)) if from <= end && found.is_none_or(|n| n >= end) => found,
            _ => memchr::memchr(b'\n', &text[end..]).map(|i| end + i),
        };
        self.next_newline = Some((end, next));
        match next {
            Some(n) if n < piece_end => self.newlines + 1,
            _ => self.newlines,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spells_strtod_specials_as_jaq_reads_them() {
        let t = br#"[1,-NaN,"inf",INF,-infinity,nan,nan1,Infinity1]"#;
        assert_eq!(
            &*specials_spelled(t),
            br#"[1,NaN,"inf",Infinity,-Infinity,NaN,nan1,Infinity1]"#
        );
        assert!(matches!(specials_spelled(b"[1]"), Cow::Borrowed(_)));
    }

    #[test]
    fn finds_runs_of_sixteen_digits_anywhere() {
        for at in 0..20 {
            let mut t = vec![b' '; at];
            t.extend_from_slice(b"1234567890123456 ");
            assert!(may_hold_long_integers(&t), "at {at}");
            let mut t = vec![b' '; at];
            t.extend_from_slice(b"123456789012345 ");
            assert!(!may_hold_long_integers(&t), "at {at}");
        }
    }

    #[test]
    fn long_integers_become_doubles() {
        let v = from_json(b"[13911860366432393]").unwrap();
        assert_eq!(super::super::values::to_json(&v), "[13911860366432392]");
        assert!(from_json(b"1 2").is_err());
        assert!(from_json(b"NaN1").is_err());
    }

    /// What the count gives, computed from the start for each end.
    fn lines_read_from_start(text: &[u8], end: usize) -> usize {
        let before = text[..end].iter().filter(|&&b| b == b'\n').count();
        if end == 0 || text[end - 1] == b'\n' {
            return before;
        }
        let line_start = text[..end]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let piece_end = line_start + ((end - 1 - line_start) / 4095 + 1) * 4095;
        match text[end..].iter().position(|&b| b == b'\n') {
            Some(i) if end + i < piece_end => before + 1,
            _ => before,
        }
    }

    #[test]
    fn line_count_agrees_with_counting_from_the_start() {
        let mut long = vec![b' '; 5000];
        long.extend_from_slice(b"1 2\n3\n\n   4");
        for text in [&b"1\n2 3\n4"[..], b"\n\n1", b"1 2 3", &long] {
            let mut count = LineCount::new(text);
            for end in 0..=text.len() {
                let want = lines_read_from_start(text, end);
                assert_eq!(count.lines_read(end), want, "end {end}");
            }
        }
    }
}
