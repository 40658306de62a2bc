//! Nesting depth of text, measured before it reaches a recursive parser.
//!
//! brush-parser, the arithmetic parser, jaq's filter parser and its JSON
//! reader all recurse once per bracket level; 100,000 `(` overflow a
//! thread's stack, and a stack overflow aborts the whole host process (it
//! cannot be caught). So every text bound for one of them is scanned first,
//! in linear time and without recursion, and refused when its brackets nest
//! deeper than [`crate::Limits::max_nesting`].

/// How the scanner reads quotes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// Shell text: single quotes and backslash escapes hide brackets,
    /// `#` at the start of a word begins a comment; `( { [` nest, and so do
    /// `$(`, `$((` and `${` inside double quotes.
    Shell,
    /// JSON and jq text: brackets inside `"..."` strings do not count.
    Json,
}

/// The deepest bracket nesting in `text`, or `limit + 1` as soon as it is
/// known to pass `limit`.
///
/// ```ignore
/// // Internal (the module is private), so not run as a doctest.
/// use sandkeep_shell::depth::{nesting, Syntax};
/// assert_eq!(nesting(b"( ( echo ')))' ) )", Syntax::Shell, 100), 2);
/// assert_eq!(nesting(br#"[{"a": "[[["}]"#, Syntax::Json, 100), 2);
/// assert_eq!(nesting(&[b'['; 50], Syntax::Json, 10), 11);
/// ```
pub fn nesting(text: &[u8], syntax: Syntax, limit: usize) -> usize {
    let mut depth = 0usize;
    let mut max = 0usize;
    let mut i = 0;
    let mut in_double = false;
    let n = text.len();
    while i < n {
        let c = text[i];
        match syntax {
            Syntax::Shell => match c {
                b'\\' => {
                    i += 2;
                    continue;
                }
                b'\'' if !in_double => {
                    i += 1;
                    while i < n && text[i] != b'\'' {
                        i += 1;
                    }
                }
                b'"' => in_double = !in_double,
                b'#' if !in_double && (i == 0 || text[i - 1].is_ascii_whitespace()) => {
                    while i < n && text[i] != b'\n' {
                        i += 1;
                    }
                }
                b'(' | b'{' | b'[' if !in_double => depth += 1,
                b'(' | b'{' if in_double && i > 0 && text[i - 1] == b'$' => depth += 1,
                b')' | b'}' | b']' => depth = depth.saturating_sub(1),
                _ => {}
            },
            Syntax::Json => match c {
                b'"' => {
                    i += 1;
                    while i < n && text[i] != b'"' {
                        if text[i] == b'\\' {
                            i += 1;
                        }
                        i += 1;
                    }
                }
                b'(' | b'{' | b'[' => depth += 1,
                b')' | b'}' | b']' => depth = depth.saturating_sub(1),
                _ => {}
            },
        }
        if depth > max {
            max = depth;
            if max > limit {
                return limit + 1;
            }
        }
        i += 1;
    }
    max
}

/// The message a too-deep text gets.
pub fn too_deep(limit: usize) -> String {
    format!("nesting too deep (more than {limit} levels)")
}
