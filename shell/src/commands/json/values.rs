//! Native filters where jq's answer about a value differs from jaq's:
//! `tojson`/`tostring` print numbers as jq does (`1.0` is `1`, `1e3` is
//! `1000`), and `/` and `%` fail on a zero divisor instead of yielding
//! infinity, and a string times a number repeats it as jq 1.6 does (the
//! [`super::rewrite`] pass routes the operators here).

use jaq_core::native::{Filter, Fun, bome, run, v};
use jaq_core::{DataT, RunPtr};
use jaq_json::{Num, Val};

use super::format::{Layout, num_to_f64, write_value};
use super::paths::type_name;

type Error = jaq_core::Error<Val>;

/// How deep jq 1.6 lets JSON text nest (its `MAX_PARSING_DEPTH`).
pub(super) const JSON_DEPTH: usize = 256;

/// The native filters of this module.
pub(super) fn funs<D: for<'a> DataT<V<'a> = Val>>() -> impl Iterator<Item = Fun<D>> {
    base().into_vec().into_iter().map(run)
}

fn base<D: for<'a> DataT<V<'a> = Val>>() -> Box<[Filter<RunPtr<D>>]> {
    Box::new([
        ("__sk_tojson", v(0), |cv| {
            bome(Ok(Val::from(to_json(&cv.1))))
        }),
        ("__sk_tostring", v(0), |cv| {
            bome(Ok(match cv.1 {
                s @ (Val::TStr(_) | Val::BStr(_)) => s,
                v => Val::from(to_json(&v)),
            }))
        }),
        ("__sk_base32", v(0), |cv| {
            bome(match &cv.1 {
                Val::TStr(s) | Val::BStr(s) => Ok(Val::from(base32_encode(s))),
                v => Ok(Val::from(base32_encode(to_json(v).as_bytes()))),
            })
        }),
        ("__sk_base32d", v(0), |cv| {
            bome(match &cv.1 {
                Val::TStr(s) | Val::BStr(s) => Ok(Val::from(
                    String::from_utf8_lossy(&base32_decode(s)).into_owned(),
                )),
                v => Ok(Val::from(
                    String::from_utf8_lossy(&base32_decode(to_json(v).as_bytes())).into_owned(),
                )),
            })
        }),
        // Whether a string is JSON nested deeper than jq parses (256):
        // jaq's `fromjson` recurses per level without a limit, so `fromjson`
        // asks first (see the prelude).
        ("__sk_json_too_deep", v(0), |cv| {
            let deep = match &cv.1 {
                Val::TStr(s) | Val::BStr(s) => {
                    crate::depth::nesting(s, crate::depth::Syntax::Json, JSON_DEPTH) > JSON_DEPTH
                }
                _ => false,
            };
            bome(Ok(Val::from(deep)))
        }),
        ("__sk_div", v(2), |mut cv| {
            let r = cv.0.pop_var();
            let l = cv.0.pop_var();
            bome(div(l, r))
        }),
        ("__sk_fromjson_text", v(0), |cv| {
            bome(match &cv.1 {
                Val::TStr(s) | Val::BStr(s) => super::reading::from_json(s).map_err(Error::str),
                v => Err(Error::str(format!(
                    "{} only strings can be parsed",
                    describe(v)
                ))),
            })
        }),
        ("__sk_mul", v(2), |mut cv| {
            let r = cv.0.pop_var();
            let l = cv.0.pop_var();
            bome(mul(l, r))
        }),
        ("__sk_rem", v(2), |mut cv| {
            let r = cv.0.pop_var();
            let l = cv.0.pop_var();
            bome(rem(l, r))
        }),
    ])
}

/// `v` as compact JSON text, numbers printed as jq prints them.
pub(super) fn to_json(v: &Val) -> String {
    let mut out = Vec::new();
    let layout = Layout {
        indent: None,
        ..Layout::default()
    };
    write_value(&mut out, &layout, v);
    String::from_utf8_lossy(&out).into_owned()
}

/// `number (1)`: how jq names a value in an error message.
pub(super) fn describe(v: &Val) -> String {
    let text = to_json(v);
    let text = if text.len() > 11 {
        let cut = (0..=11)
            .rev()
            .find(|i| text.is_char_boundary(*i))
            .unwrap_or(0);
        format!("{}...", &text[..cut])
    } else {
        text
    };
    format!("{} ({text})", type_name(v))
}

fn is_zero(n: &Num) -> bool {
    num_to_f64(n) == 0.0
}

/// `l * r`: as jaq, except that a string times a number is jq 1.6's: the
/// string repeated `n` times, `n` the count less one truncated to a C
/// `int` (so `0.5` and `1.5` give the string once) plus one, and null when
/// that is below zero, as for `nan`, whose conversion yields `INT_MIN`.
fn mul(l: Val, r: Val) -> Result<Val, Error> {
    let (s, n) = match (&l, &r) {
        (Val::TStr(_) | Val::BStr(_), Val::Num(n)) => (&l, n),
        (Val::Num(n), Val::TStr(_) | Val::BStr(_)) => (&r, n),
        _ => return l * r,
    };
    let extra = num_to_f64(n) - 1.0;
    // C's (int) conversion: truncation, and INT_MIN when out of range.
    let extra = if extra.is_nan()
        || extra <= f64::from(i32::MIN) - 1.0
        || extra >= f64::from(i32::MAX) + 1.0
    {
        i64::from(i32::MIN)
    } else {
        extra.trunc() as i64
    };
    if extra < 0 {
        return Ok(Val::Null);
    }
    match s {
        Val::TStr(b) => Ok(Val::utf8_str(b.repeat(extra as usize + 1))),
        Val::BStr(b) => Ok(Val::byte_str(b.repeat(extra as usize + 1))),
        _ => l * r,
    }
}

/// `l / r`: as jaq, except that a zero divisor is an error.
fn div(l: Val, r: Val) -> Result<Val, Error> {
    if let (Val::Num(_), Val::Num(d)) = (&l, &r)
        && is_zero(d)
    {
        return Err(Error::str(format!(
            "{} and {} cannot be divided because the divisor is zero",
            describe(&l),
            describe(&r)
        )));
    }
    l / r
}

/// `l % r`: jq truncates both sides to integers first.
fn rem(l: Val, r: Val) -> Result<Val, Error> {
    let (Val::Num(a), Val::Num(b)) = (&l, &r) else {
        return l % r;
    };
    let (a, b) = (num_to_f64(a) as i64, num_to_f64(b) as i64);
    if b == 0 {
        return Err(Error::str(format!(
            "{} and {} cannot be divided (remainder) because the divisor is zero",
            describe(&l),
            describe(&r)
        )));
    }
    Ok(Val::from(a.wrapping_rem(b.wrapping_abs()) as isize))
}

const BASE32: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/// RFC 4648 base32, padded with `=`.
fn base32_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(5) * 8);
    for chunk in bytes.chunks(5) {
        let mut buf = [0u8; 5];
        buf[..chunk.len()].copy_from_slice(chunk);
        let n = buf.iter().fold(0u64, |n, b| n << 8 | u64::from(*b));
        let chars = (chunk.len() * 8).div_ceil(5);
        for i in 0..8 {
            if i < chars {
                out.push(BASE32[((n >> (35 - 5 * i)) & 31) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Decodes base32, ignoring padding and anything outside the alphabet.
fn base32_decode(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() * 5 / 8);
    let (mut acc, mut bits) = (0u64, 0u32);
    for c in text {
        let Some(v) = BASE32.iter().position(|b| b == &c.to_ascii_uppercase()) else {
            continue;
        };
        acc = acc << 5 | v as u64;
        bits += 5;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base32_round_trips() {
        assert_eq!(base32_encode(b"abc"), "MFRGG===");
        assert_eq!(base32_encode(b"hello"), "NBSWY3DP");
        assert_eq!(base32_decode(b"MFRGG==="), b"abc");
        assert_eq!(base32_decode(b"NBSWY3DP"), b"hello");
    }
}
