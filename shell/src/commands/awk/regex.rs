//! awk regular expressions: POSIX ERE over bytes, matched against a whole
//! string (`^`/`$` anchor the string, `.` matches newline), compiled by the
//! shared [`posix_regex`] module after awk's own escapes are resolved.

use crate::commands::text::posix_regex::{Flavor, Regex, RegexOptions, Syntax};

/// A compiled awk regex.
pub struct AwkRegex {
    re: Regex,
    slots: std::cell::RefCell<Option<crate::commands::text::posix_regex::Slots>>,
}

/// Turns awk escapes (`\t`, `\n`, octal, `\/`, `\"`) into the bytes they name,
/// keeping regex escapes (`\.`, `\(`, ...) for the regex parser.
fn translate(src: &str) -> Vec<u8> {
    let b = src.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' || i + 1 >= b.len() {
            out.push(b[i]);
            i += 1;
            continue;
        }
        let c = b[i + 1];
        i += 2;
        let lit = match c {
            b'n' => Some(b'\n'),
            b't' => Some(b'\t'),
            b'r' => Some(b'\r'),
            b'f' => Some(0x0c),
            b'v' => Some(0x0b),
            b'a' => Some(0x07),
            b'/' => Some(b'/'),
            b'"' => Some(b'"'),
            b'0'..=b'7' => {
                let mut v = (c - b'0') as u32;
                let mut n = 1;
                while n < 3 && i < b.len() && (b'0'..=b'7').contains(&b[i]) {
                    v = v * 8 + (b[i] - b'0') as u32;
                    i += 1;
                    n += 1;
                }
                Some((v & 0xff) as u8)
            }
            _ => None,
        };
        match lit {
            // A literal byte that is special in a regex must stay literal.
            Some(x) if b"\\^$.[]|()*+?{}".contains(&x) => {
                out.push(b'\\');
                out.push(x);
            }
            Some(x) => out.push(x),
            None => {
                out.push(b'\\');
                out.push(c);
            }
        }
    }
    out
}

impl AwkRegex {
    /// Compiles an awk ERE; the error is the regex library's message.
    pub fn new(src: &str) -> Result<AwkRegex, String> {
        AwkRegex::with_case(src, false)
    }

    /// Compiles an awk ERE, case-insensitive when `icase` (gawk's
    /// `IGNORECASE`).
    pub fn with_case(src: &str, icase: bool) -> Result<AwkRegex, String> {
        let opts = RegexOptions {
            syntax: Syntax::Extended,
            flavor: Flavor::Sed,
            icase,
            ..Default::default()
        };
        let re = Regex::new(&translate(src), opts)?;
        Ok(AwkRegex {
            re,
            slots: std::cell::RefCell::new(None),
        })
    }

    /// True when it matches somewhere in `s`.
    pub fn is_match(&self, s: &str) -> bool {
        self.re.is_match(s.as_bytes())
    }

    /// The first match at or after byte `start`.
    pub fn find_at(&self, s: &str, start: usize) -> Option<(usize, usize)> {
        if start > s.len() {
            return None;
        }
        self.re.find_at(s.as_bytes(), start)
    }

    /// The first match at or after `start` with its groups.
    pub fn captures_at(&self, s: &str, start: usize) -> Option<Vec<Option<(usize, usize)>>> {
        if start > s.len() {
            return None;
        }
        let mut slot = self.slots.borrow_mut();
        let slots = slot.get_or_insert_with(|| self.re.capture_slots());
        if self.re.captures_at(s.as_bytes(), start, slots) {
            Some(slots.caps.clone())
        } else {
            None
        }
    }
}

/// `s[a..b]` by bytes, safe on any byte offsets.
pub fn slice(s: &str, a: usize, b: usize) -> std::borrow::Cow<'_, str> {
    let a = a.min(s.len());
    let b = b.clamp(a, s.len());
    match s.get(a..b) {
        Some(x) => std::borrow::Cow::Borrowed(x),
        None => String::from_utf8_lossy(&s.as_bytes()[a..b]),
    }
}
