//! `mv`: move and rename files and directories.

use super::common::{GnuError, ask};
use super::common::{
    OptSpec, base_name, destination_not_a_directory, flag, join, parse_or_usage, quote, with_arg,
};
use super::cp::targets;
use crate::commands::CommandCtx;
use crate::fs::FileKind;

/// What `mv --help` prints.
pub(crate) const USAGE: &str = "\
Usage: mv [OPTION]... [-T] SOURCE DEST
  or:  mv [OPTION]... SOURCE... DIRECTORY
  or:  mv [OPTION]... -t DIRECTORY SOURCE...
Rename SOURCE to DEST, or move each SOURCE into DIRECTORY.

  -f, --force                  overwrite without asking
  -i, --interactive            ask before overwriting (answer read from stdin)
  -n, --no-clobber             never overwrite an existing file
                                 (of -f, -i and -n, the last one given counts)
  -t, --target-directory=DIRECTORY  move every SOURCE into DIRECTORY
  -T, --no-target-directory    treat DEST as a plain file name
  -u, --update                 skip a SOURCE whose destination is not older
  -v, --verbose                report each rename
      --help        display this help and exit
";

const SPEC: &[OptSpec] = &[
    flag('f', Some("force"), "f"),
    flag('i', Some("interactive"), "i"),
    flag('n', Some("no-clobber"), "n"),
    flag('v', Some("verbose"), "v"),
    flag('T', Some("no-target-directory"), "T"),
    with_arg(Some('t'), Some("target-directory"), "t"),
    flag('u', Some("update"), "u"),
    flag('b', None, "b"),
];

/// `mv [-finvTu] [-t DIR] SOURCE... DEST`
pub fn mv(ctx: &mut CommandCtx<'_>) -> i32 {
    let Some(p) = parse_or_usage(ctx, SPEC, false) else {
        return 1;
    };
    let mode = p.last_of(&["f", "i", "n"]);
    let Some((srcs, dest, into_dir)) = targets(ctx, &p.operands, p.last("t"), p.has("T")) else {
        return 1;
    };
    let mut status = 0;
    for src in &srcs {
        let spath = ctx.path(src);
        let smeta = match super::common::slash_check(ctx.fs, src, &spath)
            .and_then(|()| ctx.fs.symlink_metadata(&spath))
        {
            Ok(m) => m,
            Err(e) => {
                ctx.gnu_error(format_args!("cannot stat {}: {e}", quote(src)));
                status = 1;
                continue;
            }
        };
        let dname = if into_dir {
            join(&dest, base_name(src))
        } else {
            dest.clone()
        };
        let dpath = ctx.path(&dname);
        if destination_not_a_directory(ctx, &dname, &dpath) {
            status = 1;
            continue;
        }
        if dname.ends_with('/')
            && smeta.kind != FileKind::Dir
            && !ctx
                .fs
                .metadata(&dpath)
                .is_ok_and(|m| m.kind == FileKind::Dir)
        {
            ctx.gnu_error(format_args!(
                "cannot move {} to {}: Not a directory",
                quote(src),
                quote(&dname)
            ));
            status = 1;
            continue;
        }
        if spath == dpath {
            ctx.gnu_error(format_args!(
                "{} and {} are the same file",
                quote(src),
                quote(&dname)
            ));
            status = 1;
            continue;
        }
        if smeta.kind == FileKind::Dir && dpath.starts_with(&format!("{spath}/")) {
            ctx.gnu_error(format_args!(
                "cannot move {} to a subdirectory of itself, {}",
                quote(src),
                quote(&dname)
            ));
            status = 1;
            continue;
        }
        if let Ok(dm) = ctx.fs.symlink_metadata(&dpath) {
            if mode == Some("n") {
                continue;
            }
            if p.has("u") && dm.mtime >= smeta.mtime {
                continue;
            }
            if mode == Some("i") && !ask(ctx, &format!("overwrite {}", quote(&dname))) {
                continue;
            }
            let d_is_dir = dm.kind == FileKind::Dir;
            let s_is_dir = smeta.kind == FileKind::Dir;
            if d_is_dir && !s_is_dir {
                ctx.gnu_error(format_args!(
                    "cannot overwrite directory {} with non-directory",
                    quote(&dname)
                ));
                status = 1;
                continue;
            }
            if !d_is_dir && s_is_dir {
                ctx.gnu_error(format_args!(
                    "cannot overwrite non-directory {} with directory {}",
                    quote(&dname),
                    quote(src)
                ));
                status = 1;
                continue;
            }
        }
        match ctx.fs.rename(&spath, &dpath) {
            Ok(()) => {
                if p.has("v") {
                    let _ = writeln!(ctx.stdout, "renamed {} -> {}", quote(src), quote(&dname));
                }
            }
            Err(e) => {
                ctx.gnu_error(format_args!(
                    "cannot move {} to {}: {e}",
                    quote(src),
                    quote(&dname)
                ));
                status = 1;
            }
        }
    }
    status
}
