//! How jq 1.6 reads JSON text where jaq's reader differs: jq's numbers go
//! through C's `strtod`, which also takes `nan`, `inf` and `infinity` in any
//! case and with a sign (`-NaN`, `INF`; jaq takes only `NaN`, `Infinity`
//! and `-Infinity`), and jq 1.6 stores every number as a double, so an
//! integer past 2^53 loses its last digits at once (jaq keeps it exact).
//! Used for the inputs and for `fromjson`.

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
}
