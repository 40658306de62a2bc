//! jq 1.6's words for invalid JSON (`Invalid numeric literal at line 1,
//! column 6`): jaq's parser finds the error, this walks the text as jq's
//! parser (jv_parse.c) does to say what jq would say, and where.
//!
//! jq's parser is a byte-at-a-time state machine: letters, digits and the
//! like gather into a literal token that is checked when a space, quote or
//! bracket ends it, and strings are checked at their closing quote. Lines
//! count from 1; the column counts the bytes since the last newline, the
//! one that revealed the error included.

/// One open container: an array, an object, or an object's key waiting
/// for its value.
#[derive(Clone, Copy, PartialEq)]
enum Open {
    Array { empty: bool },
    Object { empty: bool },
    Key,
}

/// What jq's parser holds.
#[derive(Default)]
struct Parser {
    stack: Vec<Open>,
    /// A complete value waiting for a separator (jq's `p->next`).
    next: Option<Kind>,
    token: Vec<u8>,
    line: usize,
    column: usize,
}

/// The kind of a parsed value, as far as the parser's checks care.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Str,
    Other,
}

type Step = Result<(), &'static str>;

impl Parser {
    fn value(&mut self, k: Kind) -> Step {
        if self.next.is_some() {
            return Err("Expected separator between values");
        }
        self.next = Some(k);
        Ok(())
    }

    /// Ends the literal token gathered so far, if any.
    fn literal(&mut self) -> Step {
        if self.token.is_empty() {
            return Ok(());
        }
        let t = std::mem::take(&mut self.token);
        let pattern: Option<&[u8]> = match t[0] {
            b't' => Some(b"true"),
            b'f' => Some(b"false"),
            b'n' if t.len() == 3 => Some(b"nan"),
            b'n' => Some(b"null"),
            _ => None,
        };
        match pattern {
            // Debian's jq 1.6 (1.6-2.1+deb12u3, the reference here) reads a
            // three-letter `n...` other than `nan` as a number.
            Some(b"nan") if t != b"nan" => Err("Invalid numeric literal"),
            Some(p) if t != p => Err("Invalid literal"),
            Some(_) => self.value(Kind::Other),
            None if is_number(&t) => self.value(Kind::Other),
            None => Err("Invalid numeric literal"),
        }
    }

    fn structure(&mut self, c: u8) -> Step {
        match c {
            b'[' | b'{' => {
                if self.next.is_some() {
                    return Err("Expected separator between values");
                }
                self.stack.push(if c == b'[' {
                    Open::Array { empty: true }
                } else {
                    Open::Object { empty: true }
                });
            }
            b':' => {
                if !matches!(self.stack.last(), Some(Open::Object { .. })) {
                    return Err("':' not as part of an object");
                }
                match self.next.take() {
                    None => return Err("Expected string key before ':'"),
                    Some(Kind::Other) => return Err("Object keys must be strings"),
                    Some(Kind::Str) => self.stack.push(Open::Key),
                }
            }
            b',' => {
                if self.next.is_none() {
                    return Err("Expected value before ','");
                }
                match self.stack.last() {
                    None => return Err("',' not as part of an object or array"),
                    Some(Open::Array { .. }) => self.filled(),
                    Some(Open::Key) => {
                        self.stack.pop();
                        self.filled();
                    }
                    Some(Open::Object { .. }) => {
                        return Err("Objects must consist of key:value pairs");
                    }
                }
            }
            b']' => {
                let Some(Open::Array { empty }) = self.stack.last().copied() else {
                    return Err("Unmatched ']'");
                };
                if self.next.is_none() && !empty {
                    return Err("Expected another array element");
                }
                self.stack.pop();
                self.next = Some(Kind::Other);
            }
            _ => {
                // `}`
                match self.stack.last().copied() {
                    None => return Err("Unmatched '}'"),
                    Some(Open::Key) if self.next.is_some() => {
                        self.stack.pop();
                    }
                    _ if self.next.is_some() => {
                        return Err("Objects must consist of key:value pairs");
                    }
                    Some(Open::Object { empty }) => {
                        if !empty {
                            return Err("Expected another key-value pair");
                        }
                    }
                    _ => return Err("Unmatched '}'"),
                }
                self.stack.pop();
                self.next = Some(Kind::Other);
            }
        }
        Ok(())
    }

    /// The value in `next` joins the container on top of the stack.
    fn filled(&mut self) {
        self.next = None;
        if let Some(Open::Array { empty } | Open::Object { empty }) = self.stack.last_mut() {
            *empty = false;
        }
    }
}

/// Whether jq's `strtod` takes `t` whole as a number.
fn is_number(t: &[u8]) -> bool {
    if super::reading::is_special(t) {
        return true;
    }
    let s = std::str::from_utf8(t).unwrap_or("");
    let s = s.strip_prefix(['-', '+']).unwrap_or(s);
    let (mantissa, exp) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let digits = mantissa.replacen('.', "", 1);
    let mantissa_ok = !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && mantissa.matches('.').count() <= 1;
    let exp_ok = exp.is_none_or(|e| {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        !e.is_empty() && e.bytes().all(|b| b.is_ascii_digit())
    });
    mantissa_ok && exp_ok
}

/// What is wrong with the string between quotes `s`, in jq's words.
fn check_string(s: &[u8]) -> Step {
    let mut i = 0;
    while i < s.len() {
        if s[i] != b'\\' {
            i += 1;
            continue;
        }
        let Some(&e) = s.get(i + 1) else {
            return Err("Expected escape character at end of string");
        };
        i += 2;
        match e {
            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {}
            b'u' => {
                let hex4 = |at: usize| {
                    s.get(at..at + 4)
                        .and_then(|h| std::str::from_utf8(h).ok())
                        .and_then(|h| u32::from_str_radix(h, 16).ok())
                };
                let Some(c) = hex4(i) else {
                    return Err("Invalid \\uXXXX escape");
                };
                i += 4;
                if (0xD800..0xDC00).contains(&c) {
                    let low = (s.get(i..i + 2) == Some(b"\\u"))
                        .then(|| hex4(i + 2))
                        .flatten();
                    if !low.is_some_and(|l| (0xDC00..0xE000).contains(&l)) {
                        return Err("Invalid \\uXXXX\\uXXXX surrogate pair escape");
                    }
                    i += 6;
                }
            }
            _ => return Err("Invalid escape"),
        }
    }
    Ok(())
}

/// jq 1.6's message for the first error in `text`, a sequence of JSON
/// values: `Invalid literal at line 2, column 0`; `None` if jq's parser
/// finds none.
pub(super) fn message(text: &[u8]) -> Option<String> {
    let mut p = Parser::default();
    let mut string: Option<Vec<u8>> = None;
    let mut escaped = false;
    for &c in text {
        p.column += 1;
        if c == b'\n' {
            p.line += 1;
            p.column = 0;
        }
        let step = if let Some(s) = &mut string {
            if c == b'"' && !escaped {
                let s = string.take().unwrap_or_default();
                check_string(&s).and_then(|()| p.value(Kind::Str))
            } else {
                escaped = c == b'\\' && !escaped;
                s.push(c);
                Ok(())
            }
        } else {
            match c {
                b' ' | b'\t' | b'\r' | b'\n' => p.literal(),
                b'"' => p.literal().map(|()| {
                    string = Some(Vec::new());
                    escaped = false;
                }),
                b'[' | b',' | b']' | b'{' | b':' | b'}' => {
                    p.literal().and_then(|()| p.structure(c))
                }
                _ => {
                    p.token.push(c);
                    Ok(())
                }
            }
        };
        if let Err(msg) = step {
            return Some(format!("{msg} at line {}, column {}", p.line + 1, p.column));
        }
        if p.stack.is_empty() && p.next.is_some() {
            p.next = None;
        }
    }
    let at = format!("at EOF at line {}, column {}", p.line + 1, p.column);
    if string.is_some() {
        return Some(format!("Unfinished string {at}"));
    }
    if let Err(msg) = p.literal() {
        return Some(format!("{msg} {at}"));
    }
    if !p.stack.is_empty() {
        return Some(format!("Unfinished JSON term {at}"));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::message;

    #[test]
    fn words_errors_like_jq_1_6() {
        let m = |s: &str| message(s.as_bytes());
        assert_eq!(
            m("{\"a\":1} xx\n").as_deref(),
            Some("Invalid numeric literal at line 2, column 0")
        );
        assert_eq!(
            m("{\"a\":1\n").as_deref(),
            Some("Unfinished JSON term at EOF at line 2, column 0")
        );
        assert_eq!(
            m("{\"a\" 1}").as_deref(),
            Some("Expected separator between values at line 1, column 7")
        );
        assert_eq!(
            m("nul\n").as_deref(),
            Some("Invalid numeric literal at line 2, column 0")
        );
        assert_eq!(
            m("tru\n").as_deref(),
            Some("Invalid literal at line 2, column 0")
        );
        assert_eq!(
            m("[1,2").as_deref(),
            Some("Unfinished JSON term at EOF at line 1, column 4")
        );
        assert_eq!(
            m("abc").as_deref(),
            Some("Invalid numeric literal at EOF at line 1, column 3")
        );
        assert_eq!(
            m("\"\\ud83d\"\n").as_deref(),
            Some("Invalid \\uXXXX\\uXXXX surrogate pair escape at line 1, column 8")
        );
        assert_eq!(
            m("[1,]").as_deref(),
            Some("Expected another array element at line 1, column 4")
        );
        assert_eq!(
            m("{\"a\":1,}").as_deref(),
            Some("Expected another key-value pair at line 1, column 8")
        );
        assert_eq!(m("1 [2] {\"a\":[]}\n"), None);
    }
}
