//! Helpers shared by the file and system commands: the shared option parser
//! with GNU's usage error, GNU's two quoting styles for file names in
//! messages, and small formatting helpers.

use crate::commands::CommandCtx;
use crate::fs::{FileKind, Metadata};

pub use crate::commands::common::{
    GnuError, invalid_choice, parse_or_usage, quote, quote_locale, quotef, restore_locale,
    set_locale, try_help, usage_error,
};
pub use crate::commands::options::{Arg, OptSpec, Parsed, flag, long_flag, long_opt, with_arg};

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
