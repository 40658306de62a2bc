//! `mkdir` and `rmdir`.

use super::chmod::{UMASK, apply_mode};
use super::common::GnuError;
use super::common::{quote, quote_locale, usage_error};
use crate::commands::CommandCtx;
use crate::fs::{FileKind, FsError};

declare_options! {
    /// `mkdir`'s options.
    pub(crate) enum MkdirOpt {
        usage: "Usage: mkdir [OPTION]... DIRECTORY...",
        about: "Create each DIRECTORY; it is an error if one exists already (unless -p).
",
        after: "",
        column: 20,
        rows: [
            Mode: 'm' "mode" required "MODE" => "give the new directory MODE (octal or symbolic, as for
                chmod) instead of a=rwx less the umask",
            Parents: 'p' "parents" none => "create missing parent directories too, and accept
                existing ones; -m applies only to the last component",
            Verbose: 'v' "verbose" none => "report each directory created",
            Context: 'Z' - none => "(ignored: there are no SELinux contexts)",
        ],
    }
}

declare_options! {
    /// `rmdir`'s options.
    pub(crate) enum RmdirOpt {
        usage: "Usage: rmdir [OPTION]... DIRECTORY...",
        about: "Remove each DIRECTORY, which must be empty.
",
        after: "",
        column: 20,
        rows: [
            IgnoreFailOnNonEmpty: - "ignore-fail-on-non-empty" none => "say nothing when a directory is not removed only
                because it still has entries",
            Parents: 'p' "parents" none => "then remove each parent named in DIRECTORY too, as
                'rmdir a/b/c a/b a' would for 'rmdir -p a/b/c'",
            Verbose: 'v' "verbose" none => "report each directory as it is removed",
        ],
    }
}

/// `mkdir [-pv] [-m MODE] DIRECTORY...`
pub fn mkdir(ctx: &mut CommandCtx<'_>) -> i32 {
    let Some(p) = MkdirOpt::TABLE.parse_or_usage(ctx) else {
        return 1;
    };
    if p.operands.is_empty() {
        usage_error(ctx, "missing operand");
        return 1;
    }
    let mode = match p.last(MkdirOpt::Mode) {
        Some(m) => match apply_mode(m, 0o777, true, 0) {
            Some(v) => Some(v),
            None => {
                ctx.gnu_error(format_args!("invalid mode {}", quote_locale(m)));
                return 1;
            }
        },
        None => None,
    };
    let parents = p.has(MkdirOpt::Parents);
    let verbose = p.has(MkdirOpt::Verbose);
    // SELinux contexts: there are none to set.
    let _ = p.has(MkdirOpt::Context);
    let default_mode = 0o777 & !UMASK;
    let mut status = 0;
    for name in &p.operands {
        let path = ctx.path(name);
        if parents {
            // Walk the operand's prefixes as written, creating what is missing.
            let mut prefixes = Vec::new();
            let trimmed = name.trim_end_matches('/');
            for (i, c) in trimmed.char_indices() {
                if c == '/' && i > 0 && !trimmed[..i].ends_with('/') {
                    prefixes.push(&trimmed[..i]);
                }
            }
            prefixes.push(if trimmed.is_empty() {
                name.as_str()
            } else {
                trimmed
            });
            let last = prefixes.len() - 1;
            for (k, pre) in prefixes.iter().enumerate() {
                let pp = ctx.path(pre);
                match ctx.fs.metadata(&pp) {
                    Ok(m) if m.kind == FileKind::Dir => {
                        if k == last
                            && let Some(md) = mode
                        {
                            let _ = ctx.fs.set_mode(&pp, md);
                        }
                        continue;
                    }
                    Ok(_) => {
                        let e = if k == last {
                            FsError::AlreadyExists
                        } else {
                            FsError::NotADirectory
                        };
                        ctx.gnu_error(format_args!(
                            "cannot create directory {}: {e}",
                            quote_locale(pre)
                        ));
                        status = 1;
                        break;
                    }
                    Err(_) => {}
                }
                let md = if k == last {
                    mode.unwrap_or(default_mode)
                } else {
                    default_mode
                };
                match ctx.fs.mkdir(&pp, md) {
                    Ok(()) => {
                        if verbose {
                            let _ = writeln!(ctx.stdout, "mkdir: created directory {}", quote(pre));
                        }
                    }
                    Err(FsError::AlreadyExists) => {}
                    Err(e) => {
                        ctx.gnu_error(format_args!(
                            "cannot create directory {}: {e}",
                            quote_locale(pre)
                        ));
                        status = 1;
                        break;
                    }
                }
            }
            continue;
        }
        match ctx.fs.mkdir(&path, mode.unwrap_or(default_mode)) {
            Ok(()) => {
                if let Some(md) = mode {
                    let _ = ctx.fs.set_mode(&path, md);
                }
                if verbose {
                    let _ = writeln!(ctx.stdout, "mkdir: created directory {}", quote(name));
                }
            }
            Err(e) => {
                let e = if path == "/" {
                    FsError::AlreadyExists
                } else {
                    e
                };
                ctx.gnu_error(format_args!(
                    "cannot create directory {}: {e}",
                    quote_locale(name)
                ));
                status = 1;
            }
        }
    }
    status
}

/// `rmdir [-pv] [--ignore-fail-on-non-empty] DIRECTORY...`
pub fn rmdir(ctx: &mut CommandCtx<'_>) -> i32 {
    let Some(p) = RmdirOpt::TABLE.parse_or_usage(ctx) else {
        return 1;
    };
    if p.operands.is_empty() {
        usage_error(ctx, "missing operand");
        return 1;
    }
    let ignore = p.has(RmdirOpt::IgnoreFailOnNonEmpty);
    let mut status = 0;
    for name in &p.operands {
        let mut cur = name.trim_end_matches('/').to_string();
        if cur.is_empty() {
            cur = name.clone();
        }
        let mut parent = false;
        loop {
            if p.has(RmdirOpt::Verbose) {
                let shown = if parent { cur.as_str() } else { name.as_str() };
                let _ = writeln!(ctx.stdout, "rmdir: removing directory, {}", quote(shown));
            }
            if let Err(e) = remove_one(ctx, &cur) {
                if !(ignore && e == FsError::DirectoryNotEmpty) {
                    let what = if parent { "directory " } else { "" };
                    let shown = if parent { cur.as_str() } else { name.as_str() };
                    ctx.gnu_error(format_args!("failed to remove {what}{}: {e}", quote(shown)));
                    status = 1;
                }
                break;
            }
            if !p.has(RmdirOpt::Parents) {
                break;
            }
            parent = true;
            match cur.rfind('/') {
                Some(i) if i > 0 => {
                    cur.truncate(i);
                    let t = cur.trim_end_matches('/').len();
                    cur.truncate(t.max(1));
                    if cur == "/" {
                        break;
                    }
                }
                _ => break,
            }
        }
    }
    status
}

fn remove_one(ctx: &CommandCtx<'_>, name: &str) -> Result<(), FsError> {
    let last = super::common::base_name(name);
    if last == "." || last == ".." {
        return Err(if last == "." {
            FsError::InvalidArgument
        } else {
            FsError::DirectoryNotEmpty
        });
    }
    let path = ctx.path(name);
    let m = ctx.fs.symlink_metadata(&path)?;
    if m.kind != FileKind::Dir {
        return Err(FsError::NotADirectory);
    }
    if path == "/" {
        return Err(FsError::Busy);
    }
    ctx.fs.remove_dir(&path)
}
