//! GNU's quoting of names and values in messages (`quote`, `quotef`,
//! `quote()` after the locale), and the per-command locale it reads.

use crate::commands::CommandCtx;

/// Quotes a file name the way GNU coreutils does in most diagnostics
/// (`shell-escape-always`): `'a b'`, `"a'b"`, `'a'$'\n''b'`.
pub fn quote(name: &str) -> String {
    let needs_ansi = name.chars().any(|c| c.is_control());
    if !needs_ansi {
        if name.contains('\'') {
            if !name.chars().any(|c| matches!(c, '"' | '$' | '`' | '\\')) {
                return format!("\"{name}\"");
            }
            return format!("'{}'", name.replace('\'', "'\\''"));
        }
        return format!("'{name}'");
    }
    let mut out = String::from("'");
    let mut in_plain = true;
    for c in name.chars() {
        if c.is_control() {
            if in_plain {
                out.push('\'');
                in_plain = false;
            }
            out.push_str("$'");
            out.push_str(&c_escape(c));
            out.push('\'');
        } else {
            if !in_plain {
                out.push('\'');
                in_plain = true;
            }
            if c == '\'' {
                out.push_str("'\\''");
            } else {
                out.push(c);
            }
        }
    }
    if in_plain {
        out.push('\'');
    }
    out
}

/// GNU's `quotef`: a file name as the prefix of an error message shows it
/// (`cat: 'a b': No such file or directory`): bare when no character
/// could mislead (a `:` counts, as it would end the prefix), else as
/// [`quote`].
pub fn quotef(name: &str) -> String {
    let special = |(i, c): (usize, char)| {
        c.is_control() || " !\"$&'()*;<=>?[\\^`|:".contains(c) || (i == 0 && (c == '#' || c == '~'))
    };
    let lone_brace = name == "{" || name == "}";
    if name.is_empty() || lone_brace || name.char_indices().any(special) {
        quote(name)
    } else {
        name.to_string()
    }
}

thread_local! {
    /// Whether the running command's locale is UTF-8 (see [`set_locale`]).
    static UTF8_LOCALE: std::cell::Cell<bool> = const { std::cell::Cell::new(true) };
}

/// Reads the locale of the command about to run from its environment
/// (`LC_ALL`, else `LC_CTYPE`, else `LANG`), as each GNU tool's
/// `setlocale(LC_ALL, "")` does; returns the previous setting, for the
/// caller to restore when the command ends (commands nest: `xargs`).
pub fn set_locale(ctx: &CommandCtx<'_>) -> bool {
    let name = ["LC_ALL", "LC_CTYPE", "LANG"]
        .iter()
        .find_map(|k| ctx.getenv(k).filter(|v| !v.is_empty()));
    let utf8 = name.is_some_and(|n| {
        let n = n.to_ascii_lowercase();
        n.contains("utf-8") || n.contains("utf8")
    });
    UTF8_LOCALE.replace(utf8)
}

/// Restores the setting [`set_locale`] returned.
pub fn restore_locale(utf8: bool) {
    UTF8_LOCALE.set(utf8);
}

/// Quotes a string the way GNU's `quote()` does: `‘a b’` in a UTF-8
/// locale, `'a b'` in the C locale, control characters as C escapes.
pub fn quote_locale(s: &str) -> String {
    let (open, close) = if UTF8_LOCALE.get() {
        ('\u{2018}', '\u{2019}')
    } else {
        ('\'', '\'')
    };
    let mut out = String::from(open);
    for c in s.chars() {
        if c.is_control() {
            out.push_str(&c_escape(c));
        } else {
            out.push(c);
        }
    }
    out.push(close);
    out
}

fn c_escape(c: char) -> String {
    match c {
        '\n' => "\\n".into(),
        '\t' => "\\t".into(),
        '\r' => "\\r".into(),
        '\x07' => "\\a".into(),
        '\x08' => "\\b".into(),
        '\x0b' => "\\v".into(),
        '\x0c' => "\\f".into(),
        c => format!("\\{:03o}", c as u32),
    }
}
