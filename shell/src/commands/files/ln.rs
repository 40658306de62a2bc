//! `ln`: make symbolic links (`-s`), or hard links (one inode, two
//! names); and the bare system calls `link FILE1 FILE2` and `unlink FILE`.

use super::common::GnuError;
use super::common::{
    OptSpec, Parsed, base_name, flag, join, parse_or_usage, quote, quote_locale, usage_error,
    with_arg,
};
use super::paths::{Missing, canonical, relative_path};
use crate::commands::CommandCtx;
use crate::fs::{FileKind, FsError};

/// What `ln --help` prints.
pub(crate) const USAGE: &str = "\
Usage: ln [OPTION]... [-T] TARGET LINK_NAME
  or:  ln [OPTION]... TARGET
  or:  ln [OPTION]... TARGET... DIRECTORY
  or:  ln [OPTION]... -t DIRECTORY TARGET...
Make LINK_NAME a link to TARGET; given TARGET alone, make the link in the
current directory; given a DIRECTORY, make a link to each TARGET in it.
Links are hard links unless -s is given.

  -f, --force                 replace destination files that exist
  -n, --no-dereference        treat a LINK_NAME that is a symbolic link to a
                                directory as a plain file
  -P, --physical              hard-link a symbolic link itself (the default)
  -r, --relative              with -s, make links relative to where they are
  -s, --symbolic              make symbolic links instead of hard links
  -t, --target-directory=DIRECTORY  make the links in DIRECTORY
  -T, --no-target-directory   always treat LINK_NAME as a plain file name
  -v, --verbose               report each link made
      --help        display this help and exit
";

const SPEC: &[OptSpec] = &[
    flag('s', Some("symbolic"), "s"),
    flag('f', Some("force"), "f"),
    flag('n', Some("no-dereference"), "n"),
    flag('T', Some("no-target-directory"), "T"),
    with_arg(Some('t'), Some("target-directory"), "t"),
    flag('v', Some("verbose"), "v"),
    flag('r', Some("relative"), "r"),
    flag('i', Some("interactive"), "i"),
    flag('b', None, "b"),
    flag('L', Some("logical"), "L"),
    flag('P', Some("physical"), "P"),
];

/// `ln [-sfnTvr] TARGET [LINK]` / `ln TARGET... DIRECTORY`
pub fn ln(ctx: &mut CommandCtx<'_>) -> i32 {
    let Some(p) = parse_or_usage(ctx, SPEC, false) else {
        return 1;
    };
    let Some((targets, dest, into_dir)) = plan(ctx, &p) else {
        return 1;
    };
    let ops = &p.operands;
    let mut status = 0;
    for target in &targets {
        let link = if into_dir {
            if dest == "." && ops.len() == 1 {
                base_name(target).to_string()
            } else {
                join(&dest, base_name(target))
            }
        } else {
            dest.clone()
        };
        if !link_one(ctx, &p, target, &link) {
            status = 1;
        }
    }
    status
}

/// The targets, the destination, and whether links go into it as a
/// directory (`-t DIR`, one operand, or a last operand that is a directory
/// unless `-T`, or `-n` and it is a symlink). `None` after the error message.
fn plan(ctx: &mut CommandCtx<'_>, p: &Parsed) -> Option<(Vec<String>, String, bool)> {
    let ops = &p.operands;
    Some(if let Some(t) = p.last("t") {
        (ops.clone(), t.to_string(), true)
    } else {
        match ops.len() {
            0 => {
                usage_error(ctx, "missing file operand");
                return None;
            }
            1 => (ops.clone(), ".".to_string(), true),
            n => {
                let dest = ops[n - 1].clone();
                let dpath = ctx.path(&dest);
                let is_link = ctx
                    .fs
                    .symlink_metadata(&dpath)
                    .is_ok_and(|m| m.kind == FileKind::Symlink);
                let is_dir = !(p.has("T") || p.has("n") && is_link)
                    && ctx
                        .fs
                        .metadata(&dpath)
                        .is_ok_and(|m| m.kind == FileKind::Dir);
                if n > 2 && !is_dir {
                    let why = match ctx.fs.metadata(&dpath) {
                        Ok(_) => crate::fs::FsError::NotADirectory,
                        Err(e) => e,
                    };
                    ctx.gnu_error(format_args!("target {}: {why}", quote(&dest)));
                    return None;
                }
                (ops[..n - 1].to_vec(), dest, is_dir)
            }
        }
    })
}

/// Makes `link` point to `target` (`-s`) or a hard link of it; false after
/// the error message.
fn link_one(ctx: &mut CommandCtx<'_>, p: &Parsed, target: &String, link: &str) -> bool {
    let symbolic = p.has("s");
    let lpath = ctx.path(link);
    let kind = if symbolic {
        "symbolic link"
    } else {
        "hard link"
    };
    if !symbolic && ctx.fs.symlink_metadata(&lpath).is_ok() && !p.has("f") {
        ctx.gnu_error(format_args!(
            "failed to create hard link {}: File exists",
            quote(link)
        ));
        return false;
    }
    if !symbolic {
        match ctx.fs.symlink_metadata(&ctx.path(target)) {
            Ok(m) if m.kind == FileKind::Dir => {
                ctx.gnu_error(format_args!(
                    "{target}: hard link not allowed for directory"
                ));
                return false;
            }
            Ok(_) => {}
            Err(e) => {
                ctx.gnu_error(format_args!("failed to access {}: {e}", quote(target)));
                return false;
            }
        }
    }
    if let Ok(existing) = ctx.fs.symlink_metadata(&lpath) {
        if p.has("f") {
            if existing.kind == FileKind::Dir {
                ctx.gnu_error(format_args!("{}: cannot overwrite directory", quote(link)));
                return false;
            }
            if !symbolic
                && ctx.fs.canonicalize(&lpath).ok() == ctx.fs.canonicalize(&ctx.path(target)).ok()
            {
                ctx.gnu_error(format_args!(
                    "{} and {} are the same file",
                    quote(target),
                    quote(link)
                ));
                return false;
            }
            let _ = ctx.fs.remove_file(&lpath);
        } else {
            ctx.gnu_error(format_args!(
                "failed to create {kind} {}: File exists",
                quote(link)
            ));
            return false;
        }
    }
    let result = if symbolic {
        let stored = if p.has("r") {
            let abs_target = canonical(ctx.fs, &ctx.path(target), Missing::All, true)
                .unwrap_or_else(|_| ctx.path(target));
            let parent = crate::fs::Fs::resolve(&lpath, "..");
            let parent = canonical(ctx.fs, &parent, Missing::All, true).unwrap_or(parent);
            relative_path(&abs_target, &parent)
        } else {
            target.clone()
        };
        ctx.fs.symlink(&stored, &lpath)
    } else {
        // One inode under two names (a symlink source links the symlink
        // itself, as GNU ln's default -P does on Linux).
        ctx.fs.hard_link(&ctx.path(target), &lpath)
    };
    match result {
        Ok(()) => {
            if p.has("v") {
                let arrow = if symbolic { "->" } else { "=>" };
                let _ = writeln!(ctx.stdout, "{} {arrow} {}", quote(link), quote(target));
            }
            true
        }
        Err(e) => {
            ctx.gnu_error(format_args!("failed to create {kind} {}: {e}", quote(link)));
            false
        }
    }
}

/// What `link --help` prints.
pub(crate) const LINK_USAGE: &str = "\
Usage: link FILE1 FILE2
  or:  link OPTION
Call the link function to create a link named FILE2 to an existing FILE1.

      --help     display this help and exit
";

/// What `unlink --help` prints.
pub(crate) const UNLINK_USAGE: &str = "\
Usage: unlink FILE
  or:  unlink OPTION
Call the unlink function to remove the specified FILE.

      --help     display this help and exit
";

/// The operands of `link` (`n` = 2) or `unlink` (1), after the usage
/// error for a bad option or a wrong count (`None`, status 1).
fn exact_operands(ctx: &mut CommandCtx<'_>, n: usize) -> Option<Vec<String>> {
    let operands = parse_or_usage(ctx, &[], false)?.operands;
    let message = match operands.len() {
        len if len == n => return Some(operands),
        0 => "missing operand".to_string(),
        len if len < n => format!("missing operand after {}", quote_locale(&operands[len - 1])),
        _ => format!("extra operand {}", quote_locale(&operands[n])),
    };
    usage_error(ctx, &message);
    None
}

/// `link FILE1 FILE2`: `link(2)`, nothing more (no options, no target
/// directory, a final symlink not followed).
pub fn link(ctx: &mut CommandCtx<'_>) -> i32 {
    let Some(operands) = exact_operands(ctx, 2) else {
        return 1;
    };
    let (from, to) = (&operands[0], &operands[1]);
    let source = ctx.path(from);
    let made = match ctx.fs.symlink_metadata(&source) {
        // Linux refuses a hard link to a directory with EPERM.
        Ok(m) if m.kind == FileKind::Dir => Err("Operation not permitted".to_string()),
        _ => ctx
            .fs
            .hard_link(&source, &ctx.path(to))
            .map_err(|e| e.to_string()),
    };
    match made {
        Ok(()) => 0,
        Err(e) => {
            ctx.gnu_error(format_args!(
                "cannot create link {} to {}: {e}",
                quote(to),
                quote(from)
            ));
            1
        }
    }
}

/// `unlink FILE`: `unlink(2)`, which refuses directories.
pub fn unlink(ctx: &mut CommandCtx<'_>) -> i32 {
    let Some(operands) = exact_operands(ctx, 1) else {
        return 1;
    };
    let name = &operands[0];
    let path = ctx.path(name);
    let removed = match ctx.fs.symlink_metadata(&path) {
        Ok(m) if m.kind == FileKind::Dir => Err(FsError::IsADirectory),
        // `a/` names a directory: a file there is ENOTDIR.
        Ok(_) if name.ends_with('/') => Err(FsError::NotADirectory),
        _ => ctx.fs.remove_file(&path),
    };
    match removed {
        Ok(()) => 0,
        Err(e) => {
            ctx.gnu_error(format_args!("cannot unlink {}: {e}", quote(name)));
            1
        }
    }
}
