//! Bytes that are not UTF-8 inside the shell's `String` values.
//!
//! Shell values (variables, words, `$(...)` results) are Rust `String`s, but
//! bash's are byte strings: `x=$'\xff'` or `y=$(cat latin1.txt)` must come
//! back out byte for byte ("nothing lost"). The rule, surrogateescape as
//! Python uses it for file names:
//!
//! - **In** ([`decode`]): where bytes enter the shell (command substitution,
//!   `read`, `mapfile`, `$'\xNN'`, `printf -v`, `echo -e`/`printf %b`
//!   escapes), every byte of an invalid UTF-8 sequence becomes one char
//!   U+10FF00 + byte (U+10FF80..=U+10FFFF). Valid UTF-8 passes unchanged.
//! - **Out** ([`encode`]): where a string leaves as bytes (`echo`/`printf`
//!   output, here-documents and here-strings, `read`'s IFS and delimiter),
//!   each such char becomes its single byte again.
//!
//! So one raw byte is one char, and `${#x}` of `$'\xff'` is 1 as in bash
//! under C.UTF-8. The range lies in Supplementary Private Use Area-B, whose
//! last 128 code points no text encoding assigns; even so, a genuine U+10FF80..
//! in valid input cannot clash: [`decode`] takes its four bytes apart into four
//! escape chars, so it too comes back out unchanged (at the price of counting
//! as 4 characters, where bash counts 1).
//!
//! File names in the virtual tree stay `String`s: a name made from such a
//! value keeps the escape chars, which round-trip inside the sandbox but are
//! not the raw bytes a host tool would see. Commands (`crate::commands`) get
//! their arguments as `String`s and print them with the chars as UTF-8 unless
//! they call [`encode`].
//!
//! Both directions cost one scan and no copy when there is nothing to do.

use std::borrow::Cow;

/// The first char of the escape range: raw byte `b` is `BASE + b`.
const BASE: u32 = 0x10_FF00;

/// The lead byte of every UTF-8 encoding of U+100000..=U+10FFFF (plane 16):
/// text without it holds no escape char, the fast paths' test.
const PLANE16_LEAD: u8 = 0xF4;

/// The char standing for raw byte `b` (0x80..=0xFF; ASCII is never escaped).
pub fn escape_byte(b: u8) -> char {
    char::from_u32(BASE + u32::from(b)).unwrap_or(char::REPLACEMENT_CHARACTER)
}

/// The raw byte `c` stands for, when it is an escape char.
pub fn raw_byte(c: char) -> Option<u8> {
    let v = c as u32;
    (BASE + 0x80..=BASE + 0xFF)
        .contains(&v)
        .then(|| (v - BASE) as u8)
}

/// Bytes entering the shell as a string: valid UTF-8 unchanged, each byte of
/// an invalid sequence as its escape char.
pub fn decode(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) if !bytes.contains(&PLANE16_LEAD) => s.to_string(),
        _ => decode_slow(bytes),
    }
}

/// [`decode`] of an owned buffer, without a copy when it is valid UTF-8.
pub fn decode_vec(bytes: Vec<u8>) -> String {
    if bytes.contains(&PLANE16_LEAD) {
        return decode_slow(&bytes);
    }
    String::from_utf8(bytes).unwrap_or_else(|e| decode_slow(e.as_bytes()))
}

fn decode_slow(mut rest: &[u8]) -> String {
    let mut out = String::with_capacity(rest.len() + 8);
    loop {
        let (valid, bad) = match std::str::from_utf8(rest) {
            Ok(s) => (s, 0),
            Err(e) => {
                let (v, after) = rest.split_at(e.valid_up_to());
                let v = std::str::from_utf8(v).unwrap_or_default();
                (v, e.error_len().unwrap_or(after.len()))
            }
        };
        for c in valid.chars() {
            if raw_byte(c).is_some() {
                // A genuine escape-range char: its bytes one by one.
                let mut buf = [0u8; 4];
                out.extend(c.encode_utf8(&mut buf).bytes().map(escape_byte));
            } else {
                out.push(c);
            }
        }
        let after = &rest[valid.len()..];
        out.extend(after[..bad].iter().map(|&b| escape_byte(b)));
        rest = &after[bad..];
        if rest.is_empty() {
            return out;
        }
    }
}

/// A string leaving the shell as bytes: each escape char as its raw byte.
pub fn encode(s: &str) -> Cow<'_, [u8]> {
    if !s.as_bytes().contains(&PLANE16_LEAD) {
        return Cow::Borrowed(s.as_bytes());
    }
    let mut out = Vec::with_capacity(s.len());
    for c in s.chars() {
        push_encoded(&mut out, c);
    }
    Cow::Owned(out)
}

/// Appends the bytes `c` stands for: its raw byte or its UTF-8.
pub fn push_encoded(out: &mut Vec<u8>, c: char) {
    match raw_byte(c) {
        Some(b) => out.push(b),
        None => out.extend_from_slice(c.encode_utf8(&mut [0u8; 4]).as_bytes()),
    }
}

/// [`encode`] of an owned string, without a copy when there is nothing to do.
pub fn encode_string(s: String) -> Vec<u8> {
    match encode(&s) {
        Cow::Borrowed(_) => s.into_bytes(),
        Cow::Owned(v) => v,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_utf8_is_unchanged() {
        for s in ["", "abc", "é", "a😀b\n", "\u{10FEFF}"] {
            assert_eq!(decode(s.as_bytes()), s);
            assert_eq!(decode_vec(s.as_bytes().to_vec()), s);
            assert_eq!(&*encode(s), s.as_bytes());
        }
        assert!(matches!(encode("é😀"), Cow::Borrowed(_)));
    }

    #[test]
    fn invalid_bytes_are_one_char_each() {
        let s = decode(b"\xff\xfe");
        assert_eq!(s.chars().count(), 2);
        assert_eq!(raw_byte(s.chars().next().unwrap()), Some(0xff));
        // A truncated sequence and a lone continuation byte.
        let s = decode(b"a\xe2\x82b\x80\xc3\xa9");
        assert_eq!(s.chars().count(), 6);
        assert!(s.ends_with('é') && s.starts_with('a'));
    }

    #[test]
    fn every_byte_string_round_trips() {
        let cases: [&[u8]; 6] = [
            b"\xff\xfe",
            b"caf\xe9 \xc3\xa9 \xf0\x9f\x98\x80 \xf0\x9f",
            b"\x00\x7f\x80\xbf\xc0\xc1\xf5\xff",
            // A genuine U+10FF80 and U+10FFFF in valid input.
            b"x\xf4\x8f\xbe\x80y\xf4\x8f\xbf\xbf",
            b"\xf4",
            b"\xed\xa0\x80",
        ];
        for b in cases {
            assert_eq!(&*encode(&decode(b)), b, "{b:?}");
            assert_eq!(encode_string(decode_vec(b.to_vec())), b, "{b:?}");
        }
        let all: Vec<u8> = (0..=255).collect();
        assert_eq!(&*encode(&decode(&all)), &all[..]);
    }

    #[test]
    fn escape_and_raw_byte_are_inverse() {
        for b in 0x80..=0xff {
            assert_eq!(raw_byte(escape_byte(b)), Some(b));
        }
        assert_eq!(raw_byte('a'), None);
        assert_eq!(raw_byte('\u{10FF7F}'), None);
    }
}
