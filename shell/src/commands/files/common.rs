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

/// Quotes a string the way GNU's `quote()` does in a UTF-8 locale: `‘a b’`,
/// with control characters as C escapes.
pub fn quote_locale(s: &str) -> String {
    let mut out = String::from("\u{2018}");
    for c in s.chars() {
        if c.is_control() {
            out.push_str(&c_escape(c));
        } else {
            out.push(c);
        }
    }
    out.push('\u{2019}');
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
