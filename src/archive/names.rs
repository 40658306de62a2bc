//! File names that are not UTF-8, byte-exact across every boundary of a
//! workspace: a sandbox's listing and tar streams, the generation store's
//! manifests, restores, merges, and what `sandkeep archive` prints.
//!
//! Linux file names are bytes; the store keeps paths as `String`s (manifests
//! are JSON, and a store written before this module must still read). So a
//! name is held in the **shell's own escape form**
//! ([`sandkeep_shell::bytes`]): valid UTF-8 unchanged, each byte of an
//! invalid sequence as one char U+10FF80..=U+10FFFF. It is the form the
//! local backend's virtual filesystem already holds such names in
//! (`touch $'\xff'` makes the name `"\u{10FFFF}"`), so a name travels local
//! -> store -> docker and back without a conversion that could lose it:
//!
//! - bytes entering the host side (a docker listing, a tar member's name or
//!   link target) go through [`from_bytes`];
//! - names leaving it (a tar written for a restore or `archive export`, the
//!   path list of an export) go through [`to_bytes`] / [`to_path`].
//!
//! Old manifests hold plain UTF-8 names (a name that was not UTF-8 came out
//! as U+FFFD before, and stays that way): they read as before.
//!
//! For people, [`quote`] prints a name the way `git` does with
//! `core.quotePath=false`: as it is when it is printable UTF-8, else in
//! double quotes with C escapes (`\t`, `\n`, `\"`, `\\`) and octal `\377`
//! for each byte that is not UTF-8. [`unquote`] reads that form back, so a
//! name `archive ls` printed can be given to `archive show`.

use std::borrow::Cow;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use sandkeep_shell::bytes;

/// A name's bytes (from a listing or a tar header) in the escape form.
///
/// ```
/// use sandkeep::cli_support::names::{from_bytes, to_bytes};
/// let name = from_bytes(b"caf\xe9.txt");
/// assert_eq!(name, "caf\u{10FFE9}.txt");
/// assert_eq!(&*to_bytes(&name), b"caf\xe9.txt");
/// assert_eq!(from_bytes("café".as_bytes()), "café");
/// ```
pub fn from_bytes(raw: &[u8]) -> String {
    bytes::decode(raw)
}

/// The bytes a name in the escape form stands for.
pub fn to_bytes(name: &str) -> Cow<'_, [u8]> {
    bytes::encode(name)
}

/// The name as a host path (for the `tar` crate's writers), byte-exact.
pub fn to_path(name: &str) -> Cow<'_, Path> {
    match to_bytes(name) {
        Cow::Borrowed(b) => Cow::Borrowed(Path::new(OsStr::from_bytes(b))),
        Cow::Owned(b) => Cow::Owned(OsStr::from_bytes(&b).into()),
    }
}

/// True when the name stands for bytes that are not valid UTF-8.
pub fn is_raw(name: &str) -> bool {
    name.chars().any(|c| bytes::raw_byte(c).is_some())
}

/// A name as `git` prints it (`core.quotePath=false`): unchanged when it is
/// printable UTF-8 without `"` or `\`, else double-quoted with C escapes and
/// each byte that is not UTF-8 in octal.
///
/// ```
/// use sandkeep::cli_support::names::{from_bytes, quote};
/// assert_eq!(quote("notes/é.md"), "notes/é.md");
/// assert_eq!(quote(&from_bytes(b"a\xffb")), r#""a\377b""#);
/// assert_eq!(quote("tab\there"), r#""tab\there""#);
/// ```
pub fn quote(name: &str) -> Cow<'_, str> {
    let plain =
        |c: char| !(c.is_control() || c == '"' || c == '\\' || bytes::raw_byte(c).is_some());
    if name.chars().all(plain) {
        return Cow::Borrowed(name);
    }
    let mut out = String::with_capacity(name.len() + 8);
    out.push('"');
    for c in name.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{b}' => out.push_str("\\v"),
            '\u{c}' => out.push_str("\\f"),
            c => match bytes::raw_byte(c) {
                Some(b) => out.push_str(&format!("\\{b:03o}")),
                None if c.is_control() => {
                    let mut buf = [0u8; 4];
                    for b in c.encode_utf8(&mut buf).bytes() {
                        out.push_str(&format!("\\{b:03o}"));
                    }
                }
                None => out.push(c),
            },
        }
    }
    out.push('"');
    Cow::Owned(out)
}

/// Reads back what [`quote`] printed (`None` when `text` is not a quoted
/// name: no surrounding double quotes, or a bad escape).
///
/// ```
/// use sandkeep::cli_support::names::{from_bytes, quote, unquote};
/// let name = from_bytes(b"x\xfe\ny");
/// assert_eq!(unquote(&quote(&name)).as_deref(), Some(name.as_str()));
/// assert_eq!(unquote("plain"), None);
/// ```
pub fn unquote(text: &str) -> Option<String> {
    let inner = text.strip_prefix('"')?.strip_suffix('"')?;
    let mut raw = Vec::with_capacity(inner.len());
    let mut rest = inner.as_bytes();
    while let Some((&b, after)) = rest.split_first() {
        rest = after;
        if b != b'\\' {
            raw.push(b);
            continue;
        }
        let (&e, after) = rest.split_first()?;
        rest = after;
        raw.push(match e {
            b'"' => b'"',
            b'\\' => b'\\',
            b't' => b'\t',
            b'n' => b'\n',
            b'r' => b'\r',
            b'a' => 0x07,
            b'b' => 0x08,
            b'v' => 0x0b,
            b'f' => 0x0c,
            b'0'..=b'3' => {
                let digits = rest.get(..2)?;
                rest = &rest[2..];
                let text = [e, digits[0], digits[1]];
                u8::from_str_radix(std::str::from_utf8(&text).ok()?, 8).ok()?
            }
            _ => return None,
        });
    }
    Some(from_bytes(&raw))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_string_round_trips() {
        let cases: [&[u8]; 6] = [
            b"plain",
            b"\xff",
            b"a\xc3(b",
            "\u{10FF80}".as_bytes(),
            b"\xe2\x82",
            b"\xf4\x8f\xbf\xbf\xff",
        ];
        for raw in cases {
            let name = from_bytes(raw);
            assert_eq!(&*to_bytes(&name), raw, "{name:?}");
            let shown = quote(&name);
            assert_eq!(unquote(&shown).unwrap_or_else(|| shown.into_owned()), name);
            assert_eq!(to_path(&name).as_os_str().as_bytes(), raw);
        }
        assert!(is_raw(&from_bytes(b"\xff")) && !is_raw("é"));
    }

    #[test]
    fn quoting_follows_git() {
        assert_eq!(quote(r#"a"b\c"#), r#""a\"b\\c""#);
        assert_eq!(quote("\u{1}"), r#""\001""#);
        assert_eq!(quote(&from_bytes(b"\xe9t\xe9")), r#""\351t\351""#);
        assert_eq!(unquote(r#""\q""#), None);
        assert_eq!(unquote(r#""\37""#), None);
    }
}
