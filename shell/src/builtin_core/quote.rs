//! Quoting a string so the shell reads it back as the same word:
//! `${x@Q}` ([`quote_for_reuse`]), `printf %q` and `mapfile -C`
//! ([`quote_backslash`]), `declare -p` ([`quote_double`]) and `set`
//! ([`quote_set_style`]). Strings with control characters use `$'...'`
//! ([`quote_ansi`]) in all of them, as bash does. This is the one place
//! the builtins get their quoting from.

/// True when `s` needs the `$'...'` form (control characters, raw bytes
/// that are no UTF-8: see [`crate::bytes`]).
fn needs_ansi(s: &str) -> bool {
    s.chars()
        .any(|c| c.is_control() || crate::bytes::raw_byte(c).is_some())
}

/// The `$'...'` form of `s`.
pub fn quote_ansi(s: &str) -> String {
    let mut out = String::from("$'");
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\x07' => out.push_str("\\a"),
            '\x08' => out.push_str("\\b"),
            '\x0b' => out.push_str("\\v"),
            '\x0c' => out.push_str("\\f"),
            '\x1b' => out.push_str("\\E"),
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            // `is_control` is only true below U+00A0, so three octal
            // digits always suffice.
            c if c.is_control() => out.push_str(&format!("\\{:03o}", c as u32)),
            c => match crate::bytes::raw_byte(c) {
                Some(b) => out.push_str(&format!("\\{b:03o}")),
                None => out.push(c),
            },
        }
    }
    out.push('\'');
    out
}

/// `${x@Q}`: single quotes, `'` as `'\''`; `$'...'` for control characters.
pub fn quote_for_reuse(s: &str) -> String {
    if needs_ansi(s) {
        return quote_ansi(s);
    }
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        if c == '\'' {
            out.push_str("'\\''");
        } else {
            out.push(c);
        }
    }
    out.push('\'');
    out
}

/// `printf %q`: backslashes before shell-special characters (`''` for the
/// empty string, `$'...'` for control characters).
pub fn quote_backslash(s: &str) -> String {
    if s.is_empty() {
        return "''".to_string();
    }
    if needs_ansi(s) {
        return quote_ansi(s);
    }
    let mut out = String::with_capacity(s.len() + 4);
    for (i, c) in s.chars().enumerate() {
        // `#` starts a comment and `~` a tilde expansion only at the start
        // of a word; bash leaves them bare elsewhere (`a#b`, `a~`).
        let special = matches!(
            c,
            ' ' | '!'
                | '"'
                | '$'
                | '&'
                | '\''
                | '('
                | ')'
                | '*'
                | ','
                | ';'
                | '<'
                | '>'
                | '?'
                | '['
                | '\\'
                | ']'
                | '^'
                | '`'
                | '{'
                | '|'
                | '}'
        ) || (i == 0 && matches!(c, '#' | '~'));
        if special {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// `declare -p`: double quotes with `" \ $ `` ` escaped.
pub fn quote_double(s: &str) -> String {
    if needs_ansi(s) {
        return quote_ansi(s);
    }
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        if matches!(c, '"' | '\\' | '$' | '`') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// Quoting as `set` prints values: bare when every character is safe
/// unquoted, else `'...'` (nothing at all for the empty string).
pub fn quote_set_style(s: &str) -> String {
    if needs_ansi(s) {
        return quote_ansi(s);
    }
    if s.is_empty() {
        return String::new();
    }
    if s.chars()
        .all(|c| c.is_ascii_alphanumeric() || "_-./:,+=@%^".contains(c) || !c.is_ascii())
    {
        return s.to_string();
    }
    format!("'{}'", s.replace('\'', "'\\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reuse_quoting_matches_bash() {
        assert_eq!(quote_for_reuse("a b'c"), r"'a b'\''c'");
        assert_eq!(quote_for_reuse(""), "''");
        assert_eq!(quote_for_reuse("a\nb"), r"$'a\nb'");
        assert_eq!(quote_for_reuse("\x01z"), r"$'\001z'");
        let raw = crate::bytes::decode(b"\xff\xc3\xa9");
        assert_eq!(quote_for_reuse(&raw), r"$'\377é'");
        assert_eq!(quote_backslash(&raw), r"$'\377é'");
    }

    #[test]
    fn printf_q_matches_bash() {
        assert_eq!(quote_backslash("a b'c"), r"a\ b\'c");
        assert_eq!(quote_backslash(""), "''");
        assert_eq!(quote_backslash("a$b`c\"d\\e"), r#"a\$b\`c\"d\\e"#);
        assert_eq!(quote_backslash("~x"), r"\~x");
        assert_eq!(quote_backslash("a~"), "a~");
        assert_eq!(quote_backslash("a=b"), "a=b");
        assert_eq!(quote_backslash("a,b"), r"a\,b");
        assert_eq!(quote_backslash("\t"), r"$'\t'");
        assert_eq!(quote_backslash("a=b,#c"), r"a=b\,#c");
        assert_eq!(quote_backslash("#a"), r"\#a");
    }

    #[test]
    fn set_quoting_matches_bash() {
        assert_eq!(quote_set_style("a b"), "'a b'");
        assert_eq!(quote_set_style("it's"), r"'it'\''s'");
        assert_eq!(quote_set_style("1"), "1");
        assert_eq!(quote_set_style(""), "");
    }

    #[test]
    fn declare_quoting_matches_bash() {
        assert_eq!(quote_double("a b'c"), "\"a b'c\"");
        assert_eq!(quote_double("a$b`c\"d\\e"), r#""a\$b\`c\"d\\e""#);
        assert_eq!(quote_double("a\nb"), r"$'a\nb'");
    }
}
