//! Translation of the POSIX syntax tree into the `regex` crate's syntax,
//! byte by byte (the crate runs with Unicode off, so `\xNN` is one byte).

use std::fmt::Write;

use super::parse::{ByteSet, Node, is_wide};
use super::{Flavor, RegexOptions};

/// The regex-crate source for `node`.
pub fn emit(node: &Node, opts: RegexOptions) -> String {
    let mut s = String::new();
    go(node, opts, &mut s);
    s
}

fn lit(b: u8, s: &mut String) {
    if b.is_ascii_alphanumeric() || b == b'_' || b == b' ' {
        s.push(b as char);
    } else {
        let _ = write!(s, "\\x{b:02X}");
    }
}

/// Any non-ASCII UTF-8 character. Case folding is off inside: Unicode
/// folding would let `K` (Kelvin) bring in ASCII `k`.
const WIDE_CHAR: &str = "(?u-i:[^\\x00-\\x7F])";

/// A byte class over `set[..end]`.
fn class(set: &ByteSet, end: usize, s: &mut String) {
    s.push('[');
    let mut b = 0usize;
    let mut any = false;
    while b < end {
        if !set[b] {
            b += 1;
            continue;
        }
        let st = b;
        while b + 1 < end && set[b + 1] {
            b += 1;
        }
        let _ = write!(s, "\\x{st:02X}");
        if b > st {
            let _ = write!(s, "-\\x{b:02X}");
        }
        any = true;
        b += 1;
    }
    if !any {
        // An empty class never matches.
        s.push_str("^\\x00-\\xFF");
    }
    s.push(']');
}

fn go(node: &Node, opts: RegexOptions, s: &mut String) {
    let grep = opts.flavor == Flavor::Grep;
    let bash = opts.flavor == Flavor::Bash;
    match node {
        Node::Empty => s.push_str("(?:)"),
        Node::Lit(b) => lit(*b, s),
        Node::Any if grep && opts.null_data => s.push_str("[^\\x00]"),
        Node::Any if bash => s.push_str("(?su-i:.)"),
        Node::Any => s.push_str(if grep { "[^\\n]" } else { "[\\x00-\\xFF]" }),
        Node::Class(set) if bash && is_wide(set) => {
            s.push_str("(?:");
            if set[..0x80].iter().any(|&b| b) {
                class(set, 0x80, s);
                s.push('|');
            }
            s.push_str(WIDE_CHAR);
            s.push(')');
        }
        Node::Class(set) => class(set, 256, s),
        Node::Group(n, cap) => {
            s.push_str(if cap.is_some() { "(" } else { "(?:" });
            go(n, opts, s);
            s.push(')');
        }
        Node::Concat(v) => {
            for n in v {
                go(n, opts, s);
            }
        }
        Node::Alt(v) => {
            s.push_str("(?:");
            for (i, n) in v.iter().enumerate() {
                if i > 0 {
                    s.push('|');
                }
                go(n, opts, s);
            }
            s.push(')');
        }
        Node::Repeat(n, min, max) => {
            s.push_str("(?:");
            go(n, opts, s);
            s.push(')');
            match (min, max) {
                (0, None) => s.push('*'),
                (1, None) => s.push('+'),
                (0, Some(1)) => s.push('?'),
                (m, None) => {
                    let _ = write!(s, "{{{m},}}");
                }
                (m, Some(x)) => {
                    let _ = write!(s, "{{{m},{x}}}");
                }
            }
        }
        Node::Backref(_) => unreachable!("back-references run on the backtracker"),
        Node::LineStart => s.push('^'),
        Node::LineEnd => s.push('$'),
        Node::TextStart => s.push_str(if grep { "^" } else { "\\A" }),
        Node::TextEnd => s.push_str(if grep { "$" } else { "\\z" }),
        Node::WordBoundary => s.push_str("\\b"),
        Node::NotWordBoundary => s.push_str("\\B"),
        Node::WordStart => s.push_str("\\b{start}"),
        Node::WordEnd => s.push_str("\\b{end}"),
        Node::NotWordBefore => s.push_str("\\b{start-half}"),
        Node::NotWordAfter => s.push_str("\\b{end-half}"),
    }
}
