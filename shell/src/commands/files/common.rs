//! Helpers shared by the file and system commands: the shared option parser
//! with GNU's usage error, GNU's two quoting styles for file names in
//! messages, and small formatting helpers.

use crate::commands::CommandCtx;
use crate::fs::{FileKind, Metadata};

pub use crate::commands::options::{
    Arg, OptSpec, ParseMode, Parsed, flag, long_flag, long_opt, parse, with_arg,
};

/// Parses the command line, printing GNU's usage error (`NAME: invalid option
/// -- 'z'` + `Try 'NAME --help'...`) on failure.
pub fn parse_or_usage(
    ctx: &mut CommandCtx<'_>,
    spec: &[OptSpec],
    stop_at_operand: bool,
) -> Option<Parsed> {
    let mode = ParseMode {
        stop_at_operand,
        ..ParseMode::default()
    };
    match parse(ctx.args, spec, mode) {
        Ok(p) => Some(p),
        Err(e) => {
            usage_error(ctx, &e);
            None
        }
    }
}

/// GNU's `error()`: flushes what the command already wrote to stdout, so
/// that with `2>&1` the two streams interleave as they do with coreutils,
/// then prints `NAME: message`.
pub trait GnuError {
    /// Flushes stdout, then writes `NAME: message` to stderr.
    fn gnu_error(&mut self, message: impl std::fmt::Display);
}

impl GnuError for CommandCtx<'_> {
    fn gnu_error(&mut self, message: impl std::fmt::Display) {
        let _ = self.stdout.flush();
        self.error(message);
    }
}

/// Prompts `NAME: QUESTION? ` (`rm -i`, `cp -i`, `mv -i`) and reads one
/// line of stdin: true when it starts with `y` or `Y`.
pub fn ask(ctx: &mut CommandCtx<'_>, question: &str) -> bool {
    let _ = write!(ctx.stderr, "{}: {question}? ", ctx.args[0]);
    let mut first = None;
    let mut b = [0u8; 1];
    while let Ok(1) = ctx.stdin.read(&mut b) {
        if b[0] == b'\n' {
            break;
        }
        first.get_or_insert(b[0]);
    }
    matches!(first, Some(b'y' | b'Y'))
}

/// `cp` and `mv` stat the destination first, as GNU does: a file on its way
/// (`f/x` with `f` a file), or a file named with a trailing slash, fails
/// there with `cannot stat`. True after that message.
pub fn destination_not_a_directory(ctx: &mut CommandCtx<'_>, name: &str, path: &str) -> bool {
    let dest = ctx.fs.metadata(path);
    let fails = matches!(dest, Err(crate::fs::FsError::NotADirectory))
        || (name.ends_with('/') && dest.is_ok_and(|m| m.kind != FileKind::Dir));
    if fails {
        let e = crate::fs::FsError::NotADirectory;
        ctx.gnu_error(format_args!("cannot stat {}: {e}", quote(name)));
    }
    fails
}

/// GNU's rule for a trailing slash: `f/` names a directory, so an existing
/// non-directory there is `Not a directory` (a missing one is left to the caller).
pub fn slash_check(fs: &crate::fs::Fs, name: &str, path: &str) -> Result<(), crate::fs::FsError> {
    if name.len() > 1
        && name.ends_with('/')
        && let Ok(m) = fs.metadata(path)
        && m.kind != FileKind::Dir
    {
        return Err(crate::fs::FsError::NotADirectory);
    }
    Ok(())
}

/// GNU's `usage (EXIT_FAILURE)`: the line that follows a bad invocation's
/// message, `Try 'NAME --help' for more information.`
pub fn try_help(ctx: &mut CommandCtx<'_>) {
    let _ = ctx.stdout.flush();
    let _ = writeln!(
        ctx.stderr,
        "Try '{} --help' for more information.",
        ctx.args[0]
    );
}

/// A bad invocation as coreutils and util-linux report it: `NAME: message`,
/// then [`try_help`]'s line.
pub fn usage_error(ctx: &mut CommandCtx<'_>, message: &str) {
    ctx.gnu_error(message);
    try_help(ctx);
}

/// GNU's `argmatch` failure, for an option that takes one of a set of
/// words: the value, the valid words (synonyms share a line), the Try
/// line. Returns its status, 1.
pub fn invalid_choice(
    ctx: &mut CommandCtx<'_>,
    option: &str,
    value: &str,
    valid: &[&[&str]],
) -> i32 {
    let _ = ctx.stdout.flush();
    let name = &ctx.args[0];
    let mut text = format!(
        "{name}: invalid argument {} for {}\nValid arguments are:\n",
        quote_locale(value),
        quote_locale(option)
    );
    for synonyms in valid {
        let words: Vec<String> = synonyms.iter().map(|w| quote_locale(w)).collect();
        text.push_str(&format!("  - {}\n", words.join(", ")));
    }
    text.push_str(&format!("Try '{name} --help' for more information.\n"));
    let _ = ctx.stderr.write_all(text.as_bytes());
    1
}

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

/// `ls -l`'s ten-character mode string, e.g. `-rw-r--r--`.
pub fn mode_string(meta: &Metadata) -> String {
    let t = match meta.kind {
        FileKind::File => '-',
        FileKind::Dir => 'd',
        FileKind::Symlink => 'l',
        FileKind::CharDevice => 'c',
        FileKind::Fifo => 'p',
    };
    let m = meta.mode;
    let mut s = String::with_capacity(10);
    s.push(t);
    let bit = |b: u32, c: char| if m & b != 0 { c } else { '-' };
    s.push(bit(0o400, 'r'));
    s.push(bit(0o200, 'w'));
    s.push(match (m & 0o100 != 0, m & 0o4000 != 0) {
        (true, true) => 's',
        (false, true) => 'S',
        (true, false) => 'x',
        (false, false) => '-',
    });
    s.push(bit(0o040, 'r'));
    s.push(bit(0o020, 'w'));
    s.push(match (m & 0o010 != 0, m & 0o2000 != 0) {
        (true, true) => 's',
        (false, true) => 'S',
        (true, false) => 'x',
        (false, false) => '-',
    });
    s.push(bit(0o004, 'r'));
    s.push(bit(0o002, 'w'));
    s.push(match (m & 0o001 != 0, m & 0o1000 != 0) {
        (true, true) => 't',
        (false, true) => 'T',
        (true, false) => 'x',
        (false, false) => '-',
    });
    s
}

/// The last path component of `path` (`a/b/` → `b`, `/` → `/`).
pub fn base_name(path: &str) -> &str {
    let t = path.trim_end_matches('/');
    if t.is_empty() {
        return if path.is_empty() { "" } else { "/" };
    }
    match t.rfind('/') {
        Some(i) => &t[i + 1..],
        None => t,
    }
}

/// Joins a directory and a name with one slash.
pub fn join(dir: &str, name: &str) -> String {
    if dir.ends_with('/') {
        format!("{dir}{name}")
    } else {
        format!("{dir}/{name}")
    }
}

/// Parses a GNU size/count with an optional multiplier suffix (`b`, `K`,
/// `KB`, `KiB`, `M`, ...). Returns `None` when malformed.
pub fn parse_size(s: &str) -> Option<u64> {
    let digits_end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    if digits_end == 0 {
        return None;
    }
    let n: u64 = s[..digits_end].parse().ok()?;
    let suffix = &s[digits_end..];
    let mult: u64 = match suffix {
        "" => 1,
        "b" => 512,
        "c" => 1,
        "w" => 2,
        "kB" | "KB" => 1000,
        "K" | "k" | "KiB" | "kiB" => 1024,
        "MB" => 1_000_000,
        "M" | "MiB" => 1 << 20,
        "GB" => 1_000_000_000,
        "G" | "GiB" => 1 << 30,
        "TB" => 1_000_000_000_000,
        "T" | "TiB" => 1 << 40,
        _ => return None,
    };
    n.checked_mul(mult).or(Some(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_matches_gnu() {
        assert_eq!(quote("x"), "'x'");
        assert_eq!(quote("a'b"), "\"a'b\"");
        assert_eq!(quote("a'b$c"), "'a'\\''b$c'");
        assert_eq!(quote("a\nb"), "'a'$'\\n''b'");
        assert_eq!(quote("\t"), "''$'\\t'");
        assert_eq!(quote_locale("x\ny"), "‘x\\ny’");
    }
}
