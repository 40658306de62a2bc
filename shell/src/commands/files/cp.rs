//! `cp`: copy files and (with `-r`/`-a`) directory trees, into a directory
//! or onto a name, preserving modes and mtimes with `-p`/`-a`, and hard
//! links within the copied set with `-a`, `-d` or `--preserve=links` (as GNU
//! does: the second name of a source inode becomes a link to the first copy).

use std::cell::RefCell;
use std::collections::HashMap;

use super::chmod::UMASK;
use super::common::{GnuError, ask};
use super::common::{
    OptSpec, base_name, destination_not_a_directory, flag, join, long_flag, long_opt,
    parse_or_usage, quote, usage_error, with_arg,
};
use crate::commands::CommandCtx;
use crate::fs::{FileKind, FsError, Metadata};

/// What `cp --help` prints.
pub(crate) const USAGE: &str = "\
Usage: cp [OPTION]... [-T] SOURCE DEST
  or:  cp [OPTION]... SOURCE... DIRECTORY
  or:  cp [OPTION]... -t DIRECTORY SOURCE...
Copy SOURCE to DEST, or each SOURCE into DIRECTORY.

  -a, --archive                copy trees keeping links and all attributes
                                 (same as -dR --preserve=all)
  -d                           copy symbolic links as links and keep hard
                                 links between copied files
  -f, --force                  overwrite without asking (cancels -i and -n)
  -i, --interactive            ask before overwriting (answer read from stdin)
  -H                           follow symbolic links named on the command line
  -L, --dereference            always follow symbolic links in SOURCE
  -n, --no-clobber             never overwrite an existing file
  -P, --no-dereference         never follow symbolic links in SOURCE
  -p                           keep mode and timestamps
      --preserve[=ATTR_LIST]   keep the listed attributes: mode, timestamps,
                                 ownership, links, all (default: the first 3)
      --no-preserve=ATTR_LIST  do not keep the listed attributes
      --parents                append each SOURCE's full name to DIRECTORY
  -R, -r, --recursive          copy directories and their contents
      --reflink[=WHEN]         accepted; a full copy is always made
      --remove-destination     remove an existing destination before copying
      --sparse=WHEN            accepted; has no effect
      --strip-trailing-slashes  remove trailing slashes from each SOURCE
  -s, --symbolic-link          make symbolic links instead of copies
  -t, --target-directory=DIRECTORY  copy every SOURCE into DIRECTORY
  -T, --no-target-directory    treat DEST as a plain file name
  -u, --update                 skip a file whose destination is not older
  -v, --verbose                report each copy made
  -x, --one-file-system        accepted; there is one file system
      --help        display this help and exit
";

const SPEC: &[OptSpec] = &[
    flag('r', Some("recursive"), "r"),
    flag('R', None, "r"),
    flag('a', Some("archive"), "a"),
    flag('p', None, "p"),
    flag('f', Some("force"), "f"),
    flag('n', Some("no-clobber"), "n"),
    flag('i', Some("interactive"), "i"),
    flag('v', Some("verbose"), "v"),
    flag('T', Some("no-target-directory"), "T"),
    with_arg(Some('t'), Some("target-directory"), "t"),
    flag('L', Some("dereference"), "L"),
    flag('P', Some("no-dereference"), "P"),
    flag('H', None, "H"),
    flag('d', None, "d"),
    flag('u', Some("update"), "u"),
    flag('l', Some("link"), "l"),
    flag('s', Some("symbolic-link"), "s"),
    flag('x', Some("one-file-system"), "x"),
    long_opt("preserve", "preserve"),
    long_opt("no-preserve", "no-preserve"),
    long_flag("parents", "parents"),
    long_flag("remove-destination", "remove-destination"),
    long_opt("reflink", "reflink"),
    long_opt("sparse", "sparse"),
    long_flag("strip-trailing-slashes", "strip"),
];

struct CpOpts {
    recursive: bool,
    preserve: bool,
    /// Copies made so far of multiply linked source files, by source inode,
    /// when links are preserved (`-a`, `-d`, `--preserve=links`).
    links: Option<RefCell<HashMap<u64, String>>>,
    no_clobber: bool,
    interactive: bool,
    verbose: bool,
    deref: bool,
    deref_cmdline: bool,
    update: bool,
    symlink: bool,
    remove_dest: bool,
    parents: bool,
}

/// Where the operands go: (sources, destination, destination-is-a-directory).
pub fn targets(
    ctx: &mut CommandCtx<'_>,
    operands: &[String],
    target_dir: Option<&str>,
    no_target_dir: bool,
) -> Option<(Vec<String>, String, bool)> {
    if let Some(t) = target_dir {
        if operands.is_empty() {
            usage_error(ctx, "missing file operand");
            return None;
        }
        match ctx.fs.metadata(&ctx.path(t)) {
            Ok(m) if m.kind == FileKind::Dir => {}
            Ok(_) => {
                ctx.gnu_error(format_args!(
                    "target directory {}: Not a directory",
                    quote(t)
                ));
                return None;
            }
            Err(e) => {
                ctx.gnu_error(format_args!("target directory {}: {e}", quote(t)));
                return None;
            }
        }
        return Some((operands.to_vec(), t.to_string(), true));
    }
    match operands.len() {
        0 => {
            usage_error(ctx, "missing file operand");
            None
        }
        1 => {
            usage_error(
                ctx,
                &format!(
                    "missing destination file operand after {}",
                    quote(&operands[0])
                ),
            );
            None
        }
        n => {
            let dest = operands[n - 1].clone();
            let srcs = operands[..n - 1].to_vec();
            if no_target_dir {
                if n > 2 {
                    usage_error(ctx, &format!("extra operand {}", quote(&operands[2])));
                    return None;
                }
                return Some((srcs, dest, false));
            }
            let is_dir = ctx
                .fs
                .metadata(&ctx.path(&dest))
                .is_ok_and(|m| m.kind == FileKind::Dir);
            if n > 2 && !is_dir {
                let why = match ctx.fs.metadata(&ctx.path(&dest)) {
                    Ok(_) => FsError::NotADirectory,
                    Err(e) => e,
                };
                ctx.gnu_error(format_args!("target {}: {why}", quote(&dest)));
                return None;
            }
            Some((srcs, dest, is_dir))
        }
    }
}

/// `cp [OPTION]... SOURCE... DEST`
pub fn cp(ctx: &mut CommandCtx<'_>) -> i32 {
    let Some(p) = parse_or_usage(ctx, SPEC, false) else {
        return 1;
    };
    let archive = p.has("a");
    let recursive = p.has("r") || archive;
    let link_mode = p.last_of(&["L", "P", "d", "a", "H"]);
    let (preserve, keep_links) = preserved(&p.opts);
    let o = CpOpts {
        recursive,
        preserve,
        links: keep_links.then(RefCell::default),
        no_clobber: p.last_of(&["n", "i", "f"]) == Some("n"),
        interactive: p.last_of(&["n", "i", "f"]) == Some("i"),
        verbose: p.has("v"),
        deref: match link_mode {
            Some("L") => true,
            Some(_) => false,
            None => !recursive,
        },
        deref_cmdline: matches!(link_mode, Some("L" | "H")) || link_mode.is_none() && !recursive,
        update: p.has("u"),
        symlink: p.has("s"),
        remove_dest: p.has("remove-destination"),
        parents: p.has("parents"),
    };
    let Some((srcs, dest, into_dir)) = targets(ctx, &p.operands, p.last("t"), p.has("T")) else {
        return 1;
    };
    let mut status = 0;
    for src in &srcs {
        let src_name = if p.has("strip") {
            src.trim_end_matches('/').to_string()
        } else {
            src.clone()
        };
        let dst_name = if into_dir {
            if o.parents {
                join(&dest, src_name.trim_start_matches('/'))
            } else {
                join(&dest, base_name(&src_name))
            }
        } else {
            dest.clone()
        };
        if o.parents
            && let Some(parent) = dst_name.rfind('/').map(|i| &dst_name[..i])
        {
            let _ = ctx.fs.mkdir_all(&ctx.path(parent));
        }
        let spath = ctx.path(&src_name);
        let meta = if o.deref_cmdline {
            ctx.fs.metadata(&spath)
        } else {
            ctx.fs.symlink_metadata(&spath)
        };
        let meta = match super::common::slash_check(ctx.fs, &src_name, &spath).and(meta) {
            Ok(m) => m,
            Err(e) => {
                ctx.gnu_error(format_args!("cannot stat {}: {e}", quote(&src_name)));
                status = 1;
                continue;
            }
        };
        if meta.kind == FileKind::Dir && !o.recursive {
            ctx.gnu_error(format_args!(
                "-r not specified; omitting directory {}",
                quote(&src_name)
            ));
            status = 1;
            continue;
        }
        let dpath = ctx.path(&dst_name);
        if destination_not_a_directory(ctx, &dst_name, &dpath) {
            status = 1;
            continue;
        }
        if dst_name.ends_with('/')
            && meta.kind != FileKind::Dir
            && !ctx
                .fs
                .metadata(&dpath)
                .is_ok_and(|m| m.kind == FileKind::Dir)
        {
            ctx.gnu_error(format_args!(
                "cannot create regular file {}: Not a directory",
                quote(&dst_name)
            ));
            status = 1;
            continue;
        }
        if meta.kind == FileKind::Dir
            && (dpath == spath || dpath.starts_with(&format!("{spath}/")) || spath == "/")
        {
            ctx.gnu_error(format_args!(
                "cannot copy a directory, {}, into itself, {}",
                quote(&src_name),
                quote(&dst_name)
            ));
            status = 1;
            continue;
        }
        if !copy(ctx, &o, &src_name, &spath, &meta, &dst_name, &dpath) {
            status = 1;
        }
    }
    status
}

/// Which attributes the options keep, in command-line order (a later
/// `--no-preserve` undoes an earlier `-a`): (mode and timestamps, links).
/// `-p` and a bare `--preserve` keep mode, ownership and timestamps; `-d`
/// keeps links; `-a` keeps everything.
fn preserved(opts: &[(&'static str, Option<String>)]) -> (bool, bool) {
    let (mut attrs, mut links) = (false, false);
    for (id, value) in opts {
        let on = *id != "no-preserve";
        match (*id, value.as_deref()) {
            ("a", _) => (attrs, links) = (true, true),
            ("p", _) | ("preserve", None) => attrs = true,
            ("d", _) => links = true,
            ("preserve" | "no-preserve", Some(list)) => {
                for attr in list.split(',') {
                    match attr {
                        "links" => links = on,
                        "all" => (attrs, links) = (on, on),
                        "mode" | "timestamps" | "ownership" => attrs = on,
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    (attrs, links)
}

/// With links preserved, a source file seen before under another name is
/// linked to its first copy instead of copied again: `Some` with the
/// outcome then, `None` when it must be copied (and is recorded).
fn link_to_earlier_copy(
    ctx: &mut CommandCtx<'_>,
    o: &CpOpts,
    smeta: &Metadata,
    dpath: &str,
) -> Option<Result<(), FsError>> {
    let links = o.links.as_ref()?;
    if smeta.nlink < 2 || smeta.kind == FileKind::Dir {
        return None;
    }
    let first = links.borrow().get(&smeta.ino).cloned();
    let Some(first) = first else {
        links.borrow_mut().insert(smeta.ino, dpath.to_string());
        return None;
    };
    if ctx.fs.symlink_metadata(dpath).is_ok() {
        let _ = ctx.fs.remove_file(dpath);
    }
    Some(ctx.fs.hard_link(&first, dpath))
}

fn copy(
    ctx: &mut CommandCtx<'_>,
    o: &CpOpts,
    sname: &str,
    spath: &str,
    smeta: &Metadata,
    dname: &str,
    dpath: &str,
) -> bool {
    if ctx.control.check().is_err() {
        return false;
    }
    let dmeta = ctx.fs.metadata(dpath).ok();
    let dlmeta = ctx.fs.symlink_metadata(dpath).ok();
    if smeta.kind == FileKind::Dir {
        match &dmeta {
            Some(m) if m.kind != FileKind::Dir => {
                ctx.gnu_error(format_args!(
                    "cannot overwrite non-directory {} with directory {}",
                    quote(dname),
                    quote(sname)
                ));
                return false;
            }
            Some(_) => {}
            None => {
                if let Err(e) = ctx.fs.mkdir(dpath, smeta.mode & !UMASK | 0o700) {
                    ctx.gnu_error(format_args!(
                        "cannot create directory {}: {e}",
                        quote(dname)
                    ));
                    return false;
                }
                if o.verbose {
                    let _ = writeln!(ctx.stdout, "{} -> {}", quote(sname), quote(dname));
                }
            }
        }
        let entries = match ctx.fs.read_dir(spath) {
            Ok(e) => e,
            Err(e) => {
                ctx.gnu_error(format_args!("cannot access {}: {e}", quote(sname)));
                return false;
            }
        };
        let mut ok = true;
        for e in entries {
            let cs = join(spath, &e.name);
            let m = if o.deref {
                ctx.fs.metadata(&cs)
            } else {
                ctx.fs.symlink_metadata(&cs)
            };
            let m = match m {
                Ok(m) => m,
                Err(err) => {
                    ctx.gnu_error(format_args!(
                        "cannot stat {}: {err}",
                        quote(&join(sname, &e.name))
                    ));
                    ok = false;
                    continue;
                }
            };
            ok &= copy(
                ctx,
                o,
                &join(sname, &e.name),
                &cs,
                &m,
                &join(dname, &e.name),
                &join(dpath, &e.name),
            );
        }
        let mode = if o.preserve {
            smeta.mode
        } else {
            smeta.mode & !UMASK
        };
        let _ = ctx.fs.set_mode(dpath, mode);
        if o.preserve {
            let _ = ctx.fs.set_mtime(dpath, smeta.mtime);
        }
        return ok;
    }
    // Destination checks for a non-directory source.
    if let Some(dm) = &dmeta {
        if dm.kind == FileKind::Dir {
            ctx.gnu_error(format_args!(
                "cannot overwrite directory {} with non-directory",
                quote(dname)
            ));
            return false;
        }
        let same = ctx
            .fs
            .canonicalize(spath)
            .ok()
            .is_some_and(|a| ctx.fs.canonicalize(dpath).ok() == Some(a));
        if same && smeta.kind != FileKind::Symlink {
            ctx.gnu_error(format_args!(
                "{} and {} are the same file",
                quote(sname),
                quote(dname)
            ));
            return false;
        }
        if o.no_clobber {
            return true;
        }
        if o.update && dm.mtime >= smeta.mtime {
            return true;
        }
        if o.interactive && !ask(ctx, &format!("overwrite {}", quote(dname))) {
            return true;
        }
    } else if dlmeta.is_some() && o.no_clobber {
        return true;
    }
    let replace_link = dlmeta.as_ref().is_some_and(|m| m.kind == FileKind::Symlink)
        && (smeta.kind == FileKind::Symlink || o.remove_dest);
    if (o.remove_dest || replace_link) && dlmeta.is_some() {
        let _ = ctx.fs.remove_file(dpath);
    }
    let result = if let Some(linked) = link_to_earlier_copy(ctx, o, smeta, dpath) {
        linked
    } else if o.symlink {
        let _ = ctx.fs.remove_file(dpath).ok().filter(|_| dlmeta.is_some());
        ctx.fs.symlink(&ctx.path(sname), dpath)
    } else if smeta.kind == FileKind::Fifo && o.recursive {
        // `-R` copies special files as such (GNU without --copy-contents).
        if dlmeta.is_some() {
            let _ = ctx.fs.remove_file(dpath);
        }
        let mode = if o.preserve {
            smeta.mode
        } else {
            smeta.mode & !UMASK
        };
        ctx.fs.mkfifo(dpath, mode)
    } else if smeta.kind == FileKind::Symlink {
        match ctx.fs.read_link(spath) {
            Ok(target) => {
                if dlmeta.is_some() {
                    let _ = ctx.fs.remove_file(dpath);
                }
                ctx.fs.symlink(&target, dpath)
            }
            Err(e) => Err(e),
        }
    } else {
        copy_file(ctx, o, spath, smeta, dpath, dmeta.is_some())
    };
    match result {
        Ok(()) => {
            if o.verbose {
                let _ = writeln!(ctx.stdout, "{} -> {}", quote(sname), quote(dname));
            }
            true
        }
        Err(FsError::IsADirectory) => {
            ctx.gnu_error(format_args!(
                "cannot overwrite directory {} with non-directory",
                quote(dname)
            ));
            false
        }
        Err(e @ (FsError::NoSpace | FsError::FileTooLarge)) => {
            ctx.gnu_error(format_args!("error writing {}: {e}", quote(dname)));
            false
        }
        Err(e) => {
            ctx.gnu_error(format_args!(
                "cannot create regular file {}: {e}",
                quote(dname)
            ));
            false
        }
    }
}

fn copy_file(
    ctx: &mut CommandCtx<'_>,
    o: &CpOpts,
    spath: &str,
    smeta: &Metadata,
    dpath: &str,
    existed: bool,
) -> Result<(), FsError> {
    let data = ctx.fs.read_shared(spath)?;
    ctx.fs.write(dpath, &data)?;
    if o.preserve {
        ctx.fs.set_mode(dpath, smeta.mode)?;
        ctx.fs.set_mtime(dpath, smeta.mtime)?;
    } else if !existed {
        ctx.fs.set_mode(dpath, smeta.mode & !UMASK & 0o777)?;
    }
    Ok(())
}
