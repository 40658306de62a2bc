//! `chmod`: change permission bits, octal (`755`) or symbolic (`u+x,go-w`,
//! `a=r`, `+x`, `g=u`), optionally recursive. Also the mode parser `mkdir -m`
//! uses.

use super::common::GnuError;
use super::common::{join, mode_string, parse_or_usage, quote, quote_locale, usage_error};
use crate::commands::CommandCtx;
use crate::commands::options::{Arg, OptSpec, Parsed, flag, long_flag, opt, with_arg};
use crate::fs::{FileKind, FsError, Metadata};

/// What `chmod --help` prints.
pub(crate) const USAGE: &str = "\
Usage: chmod [OPTION]... MODE[,MODE]... FILE...
  or:  chmod [OPTION]... OCTAL-MODE FILE...
  or:  chmod [OPTION]... --reference=RFILE FILE...
Set the permission bits of each FILE to MODE, or to those of RFILE.

  -c, --changes          like -v, but only for files whose mode changes
  -f, --silent, --quiet  leave out most error messages
  -v, --verbose          report on every file processed
      --no-preserve-root  do not treat '/' specially (the default)
      --reference=RFILE  take the mode of RFILE instead of a MODE
  -R, --recursive        also change the contents of directories, recursively
      --help        display this help and exit

A MODE is octal (755) or symbolic: clauses like u+x, go-w, a=r or g=u,
joined by commas; '[ugoa]*([-+=]([rwxXst]*|[ugo]))+'.
";

/// The sandbox's file-creation mask.
pub const UMASK: u32 = 0o022;

/// Applies a chmod mode `spec` to `old`, the way GNU `mode_adjust` does.
/// `None` when the spec is malformed.
pub fn apply_mode(spec: &str, old: u32, is_dir: bool, umask: u32) -> Option<u32> {
    if !spec.is_empty() && spec.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
        if spec.len() > 5 {
            return None;
        }
        let v = u32::from_str_radix(spec, 8).ok()?;
        if v > 0o7777 {
            return None;
        }
        // GNU keeps a directory's set-id bits unless the octal mode has five digits
        // or names them explicitly.
        if is_dir && spec.len() < 5 && v <= 0o777 {
            return Some(v | (old & 0o6000));
        }
        return Some(v);
    }
    let mut mode = old & 0o7777;
    for clause in spec.split(',') {
        let bytes = clause.as_bytes();
        let mut i = 0;
        let mut who = 0u32;
        while i < bytes.len() && matches!(bytes[i], b'u' | b'g' | b'o' | b'a') {
            who |= match bytes[i] {
                b'u' => 0o4700,
                b'g' => 0o2070,
                b'o' => 0o1007,
                _ => 0o7777,
            };
            i += 1;
        }
        let masked = who == 0;
        if masked {
            who = 0o7777;
        }
        if i >= bytes.len() {
            return None;
        }
        while i < bytes.len() {
            let op = bytes[i];
            if !matches!(op, b'+' | b'-' | b'=') {
                return None;
            }
            i += 1;
            let mut bits = 0u32;
            if i < bytes.len() && matches!(bytes[i], b'u' | b'g' | b'o') {
                let shift = match bytes[i] {
                    b'u' => 6,
                    b'g' => 3,
                    _ => 0,
                };
                let v = (mode >> shift) & 7;
                bits = v * 0o111;
                i += 1;
            } else {
                while i < bytes.len() && matches!(bytes[i], b'r' | b'w' | b'x' | b'X' | b's' | b't')
                {
                    bits |= match bytes[i] {
                        b'r' => 0o444,
                        b'w' => 0o222,
                        b'x' => 0o111,
                        b'X' if is_dir || old & 0o111 != 0 => 0o111,
                        b'X' => 0,
                        b's' => 0o6000,
                        _ => 0o1000,
                    };
                    i += 1;
                }
            }
            let mut affected = bits & who;
            if masked {
                affected &= !umask;
            }
            match op {
                b'+' => mode |= affected,
                b'-' => mode &= !affected,
                _ => {
                    let clear = if is_dir { who & !0o6000 } else { who };
                    mode = (mode & !clear) | affected;
                }
            }
        }
    }
    Some(mode)
}

/// GNU chmod's options in the order of its table. A mode letter, digit or
/// `,+=` is an option too (`chmod -w FILE`), whose optional argument is the
/// rest of the word: the word is then a mode (its id is `-` and the letter).
const SPEC: &[OptSpec] = &[
    flag('c', Some("changes"), "c"),
    flag('R', Some("recursive"), "R"),
    long_flag("no-preserve-root", "no-preserve-root"),
    long_flag("preserve-root", "preserve-root"),
    flag('f', Some("quiet"), "f"),
    with_arg(None, Some("reference"), "reference"),
    long_flag("silent", "f"),
    flag('v', Some("verbose"), "v"),
    opt("-r", Some('r'), None, Arg::Optional),
    opt("-w", Some('w'), None, Arg::Optional),
    opt("-x", Some('x'), None, Arg::Optional),
    opt("-X", Some('X'), None, Arg::Optional),
    opt("-s", Some('s'), None, Arg::Optional),
    opt("-t", Some('t'), None, Arg::Optional),
    opt("-u", Some('u'), None, Arg::Optional),
    opt("-g", Some('g'), None, Arg::Optional),
    opt("-o", Some('o'), None, Arg::Optional),
    opt("-a", Some('a'), None, Arg::Optional),
    opt("-,", Some(','), None, Arg::Optional),
    opt("-+", Some('+'), None, Arg::Optional),
    opt("-=", Some('='), None, Arg::Optional),
    opt("-0", Some('0'), None, Arg::Optional),
    opt("-1", Some('1'), None, Arg::Optional),
    opt("-2", Some('2'), None, Arg::Optional),
    opt("-3", Some('3'), None, Arg::Optional),
    opt("-4", Some('4'), None, Arg::Optional),
    opt("-5", Some('5'), None, Arg::Optional),
    opt("-6", Some('6'), None, Arg::Optional),
    opt("-7", Some('7'), None, Arg::Optional),
];

/// The modes given as options (`-w`, `-x,o-r`), joined by commas as GNU
/// chmod joins them.
fn option_modes(parsed: &Parsed) -> Option<String> {
    let modes: Vec<String> = parsed
        .opts
        .iter()
        .filter(|(id, _)| id.len() == 2 && id.starts_with('-'))
        .map(|(id, rest)| format!("{id}{}", rest.as_deref().unwrap_or("")))
        .collect();
    (!modes.is_empty()).then(|| modes.join(","))
}

struct ChmodOpts {
    recursive: bool,
    verbose: bool,
    changes: bool,
    quiet: bool,
}

/// `chmod [-Rcfv] MODE[,MODE]... FILE...` and `chmod --reference=RFILE FILE...`
pub fn chmod(ctx: &mut CommandCtx<'_>) -> i32 {
    let Some(parsed) = parse_or_usage(ctx, SPEC, false) else {
        return 1;
    };
    let o = ChmodOpts {
        recursive: parsed.has("R"),
        verbose: parsed.has("v"),
        changes: parsed.has("c"),
        quiet: parsed.has("f"),
    };
    let reference = parsed.last("reference").map(String::from);
    let mut mode = option_modes(&parsed);
    let mut files = parsed.operands;
    if mode.is_none() && reference.is_none() && !files.is_empty() {
        mode = Some(files.remove(0));
    }
    let spec = match (&reference, &mode) {
        (Some(r), _) => match ctx.fs.metadata(&ctx.path(r)) {
            Ok(m) => format!("{:o}", m.mode & 0o7777),
            Err(e) => {
                ctx.gnu_error(format_args!(
                    "failed to get attributes of {}: {e}",
                    quote(r)
                ));
                return 1;
            }
        },
        (None, Some(m)) => m.clone(),
        (None, None) => {
            usage_error(ctx, "missing operand");
            return 1;
        }
    };
    if files.is_empty() {
        let msg = if reference.is_some() || spec.starts_with('-') {
            "missing operand".to_string()
        } else {
            format!("missing operand after {}", quote_locale(&spec))
        };
        usage_error(ctx, &msg);
        return 1;
    }
    if apply_mode(&spec, 0o644, false, UMASK).is_none() {
        usage_error(ctx, &format!("invalid mode: {}", quote_locale(&spec)));
        return 1;
    }
    let mut status = 0;
    for f in &files {
        let path = ctx.path(f);
        status = status.max(chmod_one(ctx, &o, &spec, f, &path, true));
    }
    status
}

fn chmod_one(
    ctx: &mut CommandCtx<'_>,
    o: &ChmodOpts,
    spec: &str,
    name: &str,
    path: &str,
    top: bool,
) -> i32 {
    let lmeta = match super::common::slash_check(ctx.fs, name, path)
        .and_then(|()| ctx.fs.symlink_metadata(path))
    {
        Ok(m) => m,
        Err(e) => {
            if !o.quiet {
                ctx.gnu_error(format_args!("cannot access {}: {e}", quote(name)));
            }
            return 1;
        }
    };
    if lmeta.kind == FileKind::Symlink && !top {
        return 0;
    }
    let meta = match ctx.fs.metadata(path) {
        Ok(m) => m,
        Err(e) => {
            if o.quiet {
            } else if e == FsError::NotFound {
                ctx.gnu_error(format_args!(
                    "cannot operate on dangling symlink {}",
                    quote(name)
                ));
            } else {
                ctx.gnu_error(format_args!("cannot access {}: {e}", quote(name)));
            }
            return 1;
        }
    };
    let is_dir = meta.kind == FileKind::Dir;
    let new = apply_mode(spec, meta.mode, is_dir, UMASK).unwrap_or(meta.mode);
    let mut status = 0;
    if let Err(e) = ctx.fs.set_mode(path, new) {
        if !o.quiet {
            ctx.gnu_error(format_args!("changing permissions of {}: {e}", quote(name)));
        }
        status = 1;
    } else if o.verbose || (o.changes && new != meta.mode & 0o7777) {
        let show = |m: u32| {
            let md = Metadata {
                mode: m,
                ..meta.clone()
            };
            format!("{:04o} ({})", m, &mode_string(&md)[1..])
        };
        let line = if new == meta.mode & 0o7777 {
            format!("mode of {} retained as {}", quote(name), show(new))
        } else {
            format!(
                "mode of {} changed from {} to {}",
                quote(name),
                show(meta.mode & 0o7777),
                show(new)
            )
        };
        let _ = writeln!(ctx.stdout, "{line}");
    }
    if o.recursive && is_dir && lmeta.kind == FileKind::Dir {
        let entries = ctx.fs.read_dir(path).unwrap_or_default();
        for e in entries {
            if ctx.control.check().is_err() {
                return 1;
            }
            let child = join(path, &e.name);
            let child_name = join(name, &e.name);
            status = status.max(chmod_one(ctx, o, spec, &child_name, &child, false));
        }
    }
    status
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symbolic_modes() {
        assert_eq!(apply_mode("u+x", 0o644, false, UMASK), Some(0o744));
        assert_eq!(apply_mode("go-w", 0o666, false, UMASK), Some(0o644));
        assert_eq!(apply_mode("a=r", 0o755, false, UMASK), Some(0o444));
        assert_eq!(apply_mode("+x", 0o644, false, UMASK), Some(0o755));
        assert_eq!(apply_mode("+w", 0o444, false, UMASK), Some(0o644));
        assert_eq!(apply_mode("g=u", 0o640, false, UMASK), Some(0o660));
        assert_eq!(apply_mode("u=rwx,g=rx,o=", 0, false, UMASK), Some(0o750));
        assert_eq!(apply_mode("a+X", 0o644, true, UMASK), Some(0o755));
        assert_eq!(apply_mode("a+X", 0o644, false, UMASK), Some(0o644));
        assert_eq!(apply_mode("u+s", 0o755, false, UMASK), Some(0o4755));
        assert_eq!(apply_mode("755", 0, false, UMASK), Some(0o755));
        assert_eq!(apply_mode("zz", 0, false, UMASK), None);
        assert_eq!(apply_mode("u", 0, false, UMASK), None);
    }
}
