//! `tr`: translate, squeeze and delete bytes (`-c -d -s -t`), with GNU's
//! set syntax: escapes, ranges, `[:class:]`, `[=c=]`, `[c*n]` and `[c*]`.
//! Streams its input in chunks.

use std::io::{BufWriter, Write};

use super::common::{self, Arg, OptSpec, ParseMode, opt};
use super::posix_regex::parse::add_class;
use crate::commands::CommandCtx;

pub(crate) const USAGE: &str = "\
Usage: tr [OPTION]... STRING1 [STRING2]
Translate, squeeze, and/or delete characters from standard input,
writing to standard output.  STRING1 and STRING2 specify arrays of
characters ARRAY1 and ARRAY2 that control the action.

  -c, -C, --complement    use the complement of ARRAY1
  -d, --delete            delete characters in ARRAY1, do not translate
  -s, --squeeze-repeats   replace each sequence of a repeated character
                            that is listed in the last specified ARRAY,
                            with a single occurrence of that character
  -t, --truncate-set1     first truncate ARRAY1 to length of ARRAY2
      --help     display this help and exit

ARRAYs are specified as strings of characters.  Most represent themselves.
Interpreted sequences are: \\NNN \\\\ \\a \\b \\f \\n \\r \\t \\v, CHAR1-CHAR2,
[CHAR*], [CHAR*REPEAT], [:alnum:] [:alpha:] [:blank:] [:cntrl:] [:digit:]
[:graph:] [:lower:] [:print:] [:punct:] [:space:] [:upper:] [:xdigit:], [=CHAR=].
";

const SPEC: &[OptSpec] = &[
    opt("c", Some('c'), Some("complement"), Arg::None),
    opt("c", Some('C'), None, Arg::None),
    opt("d", Some('d'), Some("delete"), Arg::None),
    opt("s", Some('s'), Some("squeeze-repeats"), Arg::None),
    opt("t", Some('t'), Some("truncate-set1"), Arg::None),
    opt("help", None, Some("help"), Arg::None),
];

/// One element of a parsed set.
enum Elem {
    Byte(u8),
    /// `[c*n]`; `None` is `[c*]` (fill).
    Repeat(u8, Option<usize>),
    /// A class, with whether it is `lower`/`upper` (for case mapping).
    Class(Vec<u8>, Option<bool>),
}

fn unescape(s: &[u8], i: &mut usize) -> u8 {
    // At a backslash.
    *i += 1;
    let Some(&c) = s.get(*i) else {
        return b'\\';
    };
    *i += 1;
    match c {
        b'a' => 7,
        b'b' => 8,
        b'f' => 12,
        b'n' => b'\n',
        b'r' => b'\r',
        b't' => b'\t',
        b'v' => 11,
        b'0'..=b'7' => {
            let mut v = (c - b'0') as u32;
            let mut n = 1;
            while n < 3 && s.get(*i).is_some_and(|d| (b'0'..=b'7').contains(d)) {
                let nv = v * 8 + (s[*i] - b'0') as u32;
                if nv > 255 {
                    break;
                }
                v = nv;
                *i += 1;
                n += 1;
            }
            v as u8
        }
        _ => c,
    }
}

fn parse_set(s: &[u8]) -> Result<Vec<Elem>, String> {
    let mut v = Vec::new();
    let mut i = 0;
    while i < s.len() {
        if s[i] == b'['
            && s.get(i + 1) == Some(&b':')
            && let Some(end) = s[i + 2..].windows(2).position(|w| w == b":]")
        {
            {
                let name = std::str::from_utf8(&s[i + 2..i + 2 + end]).unwrap_or("");
                let mut set = [false; 256];
                if !add_class(&mut set, name) {
                    return Err(format!("invalid character class '{name}'"));
                }
                let bytes: Vec<u8> = (0..=255u8).filter(|b| set[*b as usize]).collect();
                let case = match name {
                    "lower" => Some(false),
                    "upper" => Some(true),
                    _ => None,
                };
                v.push(Elem::Class(bytes, case));
                i += 2 + end + 2;
                continue;
            }
        }
        if s[i] == b'['
            && s.get(i + 1) == Some(&b'=')
            && s.get(i + 3) == Some(&b'=')
            && s.get(i + 4) == Some(&b']')
        {
            v.push(Elem::Byte(s[i + 2]));
            i += 5;
            continue;
        }
        if s[i] == b'[' && i + 2 < s.len() {
            // [c*n] / [c*]
            let mut j = i + 1;
            let c = if s[j] == b'\\' {
                unescape(s, &mut j)
            } else {
                j += 1;
                s[j - 1]
            };
            if s.get(j) == Some(&b'*') {
                let st = j + 1;
                let mut k = st;
                while k < s.len() && s[k].is_ascii_digit() {
                    k += 1;
                }
                if s.get(k) == Some(&b']') {
                    let digits = std::str::from_utf8(&s[st..k]).unwrap();
                    let n = if digits.is_empty() {
                        None
                    } else {
                        let radix = if digits.starts_with('0') { 8 } else { 10 };
                        match usize::from_str_radix(digits, radix) {
                            Ok(0) => None,
                            Ok(n) => Some(n),
                            Err(_) => {
                                return Err(format!(
                                    "invalid repeat count '{digits}' in [c*n] construct"
                                ));
                            }
                        }
                    };
                    v.push(Elem::Repeat(c, n));
                    i = k + 1;
                    continue;
                }
            }
        }
        let c = if s[i] == b'\\' {
            unescape(s, &mut i)
        } else {
            i += 1;
            s[i - 1]
        };
        if s.get(i) == Some(&b'-') && i + 1 < s.len() {
            let mut j = i + 1;
            let hi = if s[j] == b'\\' {
                unescape(s, &mut j)
            } else {
                j += 1;
                s[j - 1]
            };
            if hi < c {
                return Err(format!(
                    "range-endpoints of '{}-{}' are in reverse collating sequence order",
                    show(c),
                    show(hi)
                ));
            }
            for b in c..=hi {
                v.push(Elem::Byte(b));
            }
            i = j;
            continue;
        }
        v.push(Elem::Byte(c));
    }
    Ok(v)
}

fn show(b: u8) -> String {
    if b.is_ascii_graphic() {
        (b as char).to_string()
    } else {
        format!("\\{b:03o}")
    }
}

fn expand(set: &[Elem], fill_to: usize) -> Vec<u8> {
    let fixed: usize = set
        .iter()
        .map(|e| match e {
            Elem::Byte(_) => 1,
            Elem::Repeat(_, Some(n)) => *n,
            Elem::Repeat(_, None) => 0,
            Elem::Class(b, _) => b.len(),
        })
        .sum();
    let mut out = Vec::new();
    for e in set {
        match e {
            Elem::Byte(b) => out.push(*b),
            Elem::Repeat(c, Some(n)) => out.extend(std::iter::repeat_n(*c, *n)),
            Elem::Repeat(c, None) => {
                out.extend(std::iter::repeat_n(*c, fill_to.saturating_sub(fixed)))
            }
            Elem::Class(b, _) => out.extend_from_slice(b),
        }
    }
    out
}

/// The mode options.
#[derive(Clone, Copy)]
struct Mode {
    complement: bool,
    delete: bool,
    squeeze: bool,
    truncate: bool,
}

/// `tr`
pub fn tr(ctx: &mut CommandCtx<'_>) -> i32 {
    let name = "tr";
    let parsed = match common::parse(ctx.args, SPEC, ParseMode::default()) {
        Ok(p) => p,
        Err(e) => {
            common::usage_error(ctx, &e);
            return 1;
        }
    };
    let mode = Mode {
        complement: parsed.has("c"),
        delete: parsed.has("d"),
        squeeze: parsed.has("s"),
        truncate: parsed.has("t"),
    };
    let ops = &parsed.operands;
    if let Err(msg) = check_operands(ops, mode) {
        common::usage_error(ctx, &msg);
        return 1;
    }
    let tables = match Tables::build(ops, mode) {
        Ok(t) => t,
        Err(e) => {
            common::err(ctx.stderr, name, e);
            return 1;
        }
    };
    filter_stdin(ctx, &tables, mode)
}

/// As many STRING operands as the mode takes; the error is the usage
/// error's message.
fn check_operands(ops: &[String], mode: Mode) -> Result<(), String> {
    let Mode {
        delete, squeeze, ..
    } = mode;
    let need2 = !delete && !squeeze || (delete && squeeze);
    if ops.is_empty() {
        return Err("missing operand".into());
    }
    if need2 && ops.len() < 2 {
        let msg = if delete && squeeze {
            format!(
                "missing operand after {}\nTwo strings must be given when both deleting and squeezing repeats.",
                common::quote_locale(&ops[0])
            )
        } else {
            format!(
                "missing operand after {}\nTwo strings must be given when translating.",
                common::quote_locale(&ops[0])
            )
        };
        return Err(msg);
    }
    let max = if need2 || (squeeze && !delete) { 2 } else { 1 };
    if ops.len() > max {
        let mut msg = format!("extra operand {}", common::quote_locale(&ops[max]));
        if delete && max == 1 {
            msg.push_str("\nOnly one string may be given when deleting without squeezing repeats.");
        }
        return Err(msg);
    }
    Ok(())
}

/// The per-byte tables the sets come down to.
struct Tables {
    /// Bytes of ARRAY1 (after `-c`): what `-d` deletes.
    in_set1: [bool; 256],
    /// What each byte translates to (itself unless translating).
    map: [u8; 256],
    /// What `-s` squeezes: the bytes of the last array given.
    squeeze: [bool; 256],
}

impl Tables {
    /// Parses and expands the sets; the error is the message for status 1.
    fn build(ops: &[String], mode: Mode) -> Result<Tables, String> {
        let s1 = parse_set(ops[0].as_bytes())?;
        let s2 = ops.get(1).map(|s| parse_set(s.as_bytes())).transpose()?;
        if s1.iter().any(|e| matches!(e, Elem::Repeat(..))) {
            return Err("the [c*] repeat construct may not appear in string1".into());
        }
        let mut a1 = expand(&s1, 0);
        if mode.complement {
            let mut inset = [false; 256];
            for b in &a1 {
                inset[*b as usize] = true;
            }
            a1 = (0..=255u8).filter(|b| !inset[*b as usize]).collect();
        }
        let mut in_set1 = [false; 256];
        for b in &a1 {
            in_set1[*b as usize] = true;
        }
        let translating = !mode.delete && s2.is_some();
        let mut map: [u8; 256] = std::array::from_fn(|i| i as u8);
        let mut a2 = Vec::new();
        if let Some(s2) = &s2 {
            a2 = expand(s2, a1.len());
            if translating {
                Self::check_translation(&a1, &a2, s2)?;
                if mode.truncate {
                    a1.truncate(a2.len());
                } else if a2.len() < a1.len() {
                    let last = *a2.last().unwrap();
                    a2.resize(a1.len(), last);
                }
                for (x, y) in a1.iter().zip(a2.iter()) {
                    map[*x as usize] = *y;
                }
            }
        }
        let mut squeeze = [false; 256];
        if mode.squeeze {
            // The last given array is the squeeze set.
            let src = if s2.is_some() { &a2 } else { &a1 };
            for b in src {
                squeeze[*b as usize] = true;
            }
        }
        Ok(Tables {
            in_set1,
            map,
            squeeze,
        })
    }

    /// GNU's checks of a translation's STRING2 (`a2` expanded, `s2` parsed).
    fn check_translation(a1: &[u8], a2: &[u8], s2: &[Elem]) -> Result<(), String> {
        if a2.is_empty() && !a1.is_empty() {
            return Err("when not truncating set1, string2 must be non-empty".into());
        }
        let classes2: Vec<Option<bool>> = s2
            .iter()
            .filter_map(|e| {
                if let Elem::Class(_, c) = e {
                    Some(*c)
                } else {
                    None
                }
            })
            .collect();
        if classes2.iter().any(|c| c.is_none()) {
            return Err("when translating, the only character classes that may appear in\nstring2 are 'upper' and 'lower'".into());
        }
        Ok(())
    }
}

/// Streams stdin to stdout through the tables, in chunks.
fn filter_stdin(ctx: &mut CommandCtx<'_>, t: &Tables, mode: Mode) -> i32 {
    let (delete, squeeze) = (mode.delete, mode.squeeze);
    let mut out = BufWriter::with_capacity(64 * 1024, &mut *ctx.stdout);
    let mut buf = vec![0u8; 64 * 1024];
    let mut last: Option<u8> = None;
    let mut res = Vec::with_capacity(buf.len());
    loop {
        let n = match ctx.stdin.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                common::err(
                    ctx.stderr,
                    "tr",
                    format!("read error: {}", crate::fs::strerror(&e)),
                );
                return 1;
            }
        };
        if ctx.control.check().is_err() {
            return 1;
        }
        res.clear();
        for &b in &buf[..n] {
            if delete && t.in_set1[b as usize] {
                continue;
            }
            let c = t.map[b as usize];
            if squeeze && t.squeeze[c as usize] && last == Some(c) {
                continue;
            }
            last = Some(c);
            res.push(c);
        }
        if out.write_all(&res).is_err() {
            return 1;
        }
    }
    if out.flush().is_err() {
        return 1;
    }
    0
}
