//! Helpers shared by the file and system commands: a GNU-style option parser
//! (`getopt_long` with argument permutation), GNU's two quoting styles for
//! file names in messages, and small formatting helpers.

use std::io::Write;

use crate::commands::CommandCtx;
use crate::fs::{FileKind, Metadata};

/// Whether an option takes an argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HasArg {
    /// A flag.
    No,
    /// `-n 5`, `-n5`, `--lines=5`, `--lines 5`.
    Required,
    /// Only as `--name=value` (long) or glued `-Ivalue` (short).
    Optional,
}

/// One option a command accepts.
#[derive(Clone, Copy, Debug)]
pub struct Opt {
    /// The short letter, if any.
    pub short: Option<char>,
    /// The long name without `--`, if any.
    pub long: Option<&'static str>,
    /// Whether it takes an argument.
    pub arg: HasArg,
    /// The key the parsed option is reported under.
    pub id: &'static str,
}

/// Shorthand for a flag with a short and an optional long name.
pub const fn flag(short: char, long: Option<&'static str>, id: &'static str) -> Opt {
    Opt {
        short: Some(short),
        long,
        arg: HasArg::No,
        id,
    }
}

/// Shorthand for an option taking a required argument.
pub const fn with_arg(short: Option<char>, long: Option<&'static str>, id: &'static str) -> Opt {
    Opt {
        short,
        long,
        arg: HasArg::Required,
        id,
    }
}

/// Shorthand for a long-only flag.
pub const fn long_flag(long: &'static str, id: &'static str) -> Opt {
    Opt {
        short: None,
        long: Some(long),
        arg: HasArg::No,
        id,
    }
}

/// Shorthand for a long option with an optional `=value`.
pub const fn long_opt(long: &'static str, id: &'static str) -> Opt {
    Opt {
        short: None,
        long: Some(long),
        arg: HasArg::Optional,
        id,
    }
}

/// The result of parsing a command line.
#[derive(Debug, Default)]
pub struct Parsed {
    /// Options in command-line order, with their arguments.
    pub opts: Vec<(&'static str, Option<String>)>,
    /// The operands (non-option arguments), in order.
    pub operands: Vec<String>,
}

impl Parsed {
    /// True when option `id` was given.
    pub fn has(&self, id: &str) -> bool {
        self.opts.iter().any(|(k, _)| *k == id)
    }

    /// The argument of the last occurrence of option `id`.
    pub fn value(&self, id: &str) -> Option<&str> {
        self.opts
            .iter()
            .rev()
            .find(|(k, _)| *k == id)
            .and_then(|(_, v)| v.as_deref())
    }

    /// The arguments of every occurrence of option `id`.
    pub fn values(&self, id: &str) -> Vec<&str> {
        self.opts
            .iter()
            .filter(|(k, _)| *k == id)
            .filter_map(|(_, v)| v.as_deref())
            .collect()
    }

    /// The position of the last occurrence of any of `ids` (for "last one wins").
    pub fn last_of(&self, ids: &[&str]) -> Option<&'static str> {
        self.opts
            .iter()
            .rev()
            .find(|(k, _)| ids.contains(k))
            .map(|(k, _)| *k)
    }
}

/// Parses `args[1..]` like GNU `getopt_long`: options may follow operands,
/// `--` ends options, a lone `-` is an operand. With `stop_at_operand` the
/// first operand ends option parsing (POSIX style, as `env` needs).
pub fn parse_args(args: &[String], spec: &[Opt], stop_at_operand: bool) -> Result<Parsed, String> {
    let mut p = Parsed::default();
    let mut i = 1;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if a == "--" {
            p.operands.extend(args[i..].iter().cloned());
            break;
        }
        if let Some(body) = a.strip_prefix("--") {
            let (name, inline) = match body.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (body, None),
            };
            let exact = spec.iter().find(|o| o.long == Some(name));
            let opt = match exact {
                Some(o) => *o,
                None => {
                    let cands: Vec<&Opt> = spec
                        .iter()
                        .filter(|o| o.long.is_some_and(|l| l.starts_with(name)))
                        .collect();
                    let distinct = cands
                        .iter()
                        .map(|o| o.id)
                        .collect::<std::collections::HashSet<_>>();
                    match distinct.len() {
                        1 => *cands[0],
                        0 => return Err(format!("unrecognized option '{a}'")),
                        _ => return Err(format!("option '{a}' is ambiguous")),
                    }
                }
            };
            let long = opt.long.unwrap_or(name);
            match opt.arg {
                HasArg::No => {
                    if inline.is_some() {
                        return Err(format!("option '--{long}' doesn't allow an argument"));
                    }
                    p.opts.push((opt.id, None));
                }
                HasArg::Optional => p.opts.push((opt.id, inline)),
                HasArg::Required => {
                    let v = match inline {
                        Some(v) => v,
                        None if i < args.len() => {
                            i += 1;
                            args[i - 1].clone()
                        }
                        None => return Err(format!("option '--{long}' requires an argument")),
                    };
                    p.opts.push((opt.id, Some(v)));
                }
            }
            continue;
        }
        if a.len() > 1 && a.starts_with('-') {
            let chars: Vec<char> = a[1..].chars().collect();
            let mut j = 0;
            while j < chars.len() {
                let c = chars[j];
                j += 1;
                let Some(opt) = spec.iter().find(|o| o.short == Some(c)) else {
                    return Err(format!("invalid option -- '{c}'"));
                };
                match opt.arg {
                    HasArg::No => p.opts.push((opt.id, None)),
                    HasArg::Optional => {
                        let rest: String = chars[j..].iter().collect();
                        p.opts.push((opt.id, (!rest.is_empty()).then_some(rest)));
                        break;
                    }
                    HasArg::Required => {
                        let rest: String = chars[j..].iter().collect();
                        let v = if !rest.is_empty() {
                            rest
                        } else if i < args.len() {
                            i += 1;
                            args[i - 1].clone()
                        } else {
                            return Err(format!("option requires an argument -- '{c}'"));
                        };
                        p.opts.push((opt.id, Some(v)));
                        break;
                    }
                }
            }
            continue;
        }
        p.operands.push(a.clone());
        if stop_at_operand {
            p.operands.extend(args[i..].iter().cloned());
            break;
        }
    }
    Ok(p)
}

/// Parses the command line, printing GNU's usage error (`NAME: invalid option
/// -- 'z'` + `Try 'NAME --help'...`) on failure.
pub fn parse_or_usage(
    ctx: &mut CommandCtx<'_>,
    spec: &[Opt],
    stop_at_operand: bool,
) -> Option<Parsed> {
    match parse_args(ctx.args, spec, stop_at_operand) {
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

/// Prints `NAME: message` and GNU's `Try 'NAME --help'` line.
pub fn usage_error(ctx: &mut CommandCtx<'_>, message: &str) {
    let _ = ctx.stdout.flush();
    let name = ctx.args[0].clone();
    let _ = writeln!(
        ctx.stderr,
        "{name}: {message}\nTry '{name} --help' for more information."
    );
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

/// Writes, mapping any failure (a closed pipe) to `false`.
pub fn emit(out: &mut dyn Write, data: &[u8]) -> bool {
    out.write_all(data).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    const SPEC: &[Opt] = &[
        flag('a', Some("all"), "all"),
        with_arg(Some('n'), Some("lines"), "lines"),
        long_flag("almost", "almost"),
    ];

    #[test]
    fn permutes_and_clusters() {
        let p = parse_args(
            &argv(&["x", "f", "-an3", "g", "--lines=4", "--", "-a"]),
            SPEC,
            false,
        )
        .unwrap();
        assert_eq!(p.operands, vec!["f", "g", "-a"]);
        assert!(p.has("all"));
        assert_eq!(p.values("lines"), vec!["3", "4"]);
    }

    #[test]
    fn errors_have_getopt_shape() {
        assert_eq!(
            parse_args(&argv(&["x", "-z"]), SPEC, false).unwrap_err(),
            "invalid option -- 'z'"
        );
        assert_eq!(
            parse_args(&argv(&["x", "-n"]), SPEC, false).unwrap_err(),
            "option requires an argument -- 'n'"
        );
        assert_eq!(
            parse_args(&argv(&["x", "--al"]), SPEC, false).unwrap_err(),
            "option '--al' is ambiguous"
        );
        assert!(
            parse_args(&argv(&["x", "--alm"]), SPEC, false)
                .unwrap()
                .has("almost")
        );
    }

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
