//! `rm`: remove files and (with `-r`) directory trees. Refuses `/`, `.` and
//! `..` as GNU does. `-i` prompts on stderr and reads the answer from stdin.

use super::common::{GnuError, ask};
use super::common::{base_name, join, quote, usage_error};
use crate::commands::CommandCtx;
use crate::fs::{FileKind, FsError, Metadata};

declare_options! {
    /// `rm`'s options.
    pub(crate) enum RmOpt {
        usage: "Usage: rm [OPTION]... [FILE]...",
        about: "Remove each FILE. Directories stay unless -r or -d is given.
",
        after: "A file whose name starts with '-' is removed with 'rm -- -name' or
'rm ./-name'.",
        column: 24,
        rows: [
            Force: 'f' "force" none => "never ask, and say nothing of files that do not
                exist or of missing operands",
            Interactive: 'i' "interactive" none => "ask before each removal (answer read from stdin)",
            InteractiveOnce: 'I' - none => "",
            OneFileSystem: - "one-file-system" none => "accepted; there is one file system",
            NoPreserveRoot: - "no-preserve-root" none => "let -r remove '/'",
            PreserveRoot: - "preserve-root" none => "refuse to remove '/' with -r (the default)",
            Recursive: 'r' "recursive" none => "remove directories and everything in them (also -R)",
            RecursiveR: 'R' - none => "",
            Dir: 'd' "dir" none => "remove empty directories",
            Verbose: 'v' "verbose" none => "report each removal",
        ],
    }
}

struct RmOpts {
    force: bool,
    interactive: bool,
    recursive: bool,
    dir: bool,
    verbose: bool,
}

/// `rm [-fiIrRdv] FILE...`
pub fn rm(ctx: &mut CommandCtx<'_>) -> i32 {
    let Some(p) = RmOpt::TABLE.parse_or_usage(ctx) else {
        return 1;
    };
    // -I asks once before a large removal: with -f and -i, the last wins.
    let last = p.last_of(&[RmOpt::Force, RmOpt::Interactive, RmOpt::InteractiveOnce]);
    let o = RmOpts {
        force: last == Some(RmOpt::Force),
        interactive: last == Some(RmOpt::Interactive),
        recursive: p.has(RmOpt::Recursive) || p.has(RmOpt::RecursiveR),
        dir: p.has(RmOpt::Dir),
        verbose: p.has(RmOpt::Verbose),
    };
    // There is one file system: --one-file-system has nothing to keep to.
    let _ = p.has(RmOpt::OneFileSystem);
    let keep_root =
        p.last_of(&[RmOpt::NoPreserveRoot, RmOpt::PreserveRoot]) != Some(RmOpt::NoPreserveRoot);
    if p.operands.is_empty() {
        if o.force {
            return 0;
        }
        usage_error(ctx, "missing operand");
        return 1;
    }
    let mut status = 0;
    for name in &p.operands {
        let b = base_name(name);
        if b == "." || b == ".." {
            ctx.gnu_error(format_args!(
                "refusing to remove '.' or '..' directory: skipping {}",
                quote(name)
            ));
            status = 1;
            continue;
        }
        let path = ctx.path(name);
        if path == "/" && o.recursive && keep_root {
            let msg = if name == "/" {
                "it is dangerous to operate recursively on '/'".to_string()
            } else {
                format!(
                    "it is dangerous to operate recursively on {} (same as '/')",
                    quote(name)
                )
            };
            ctx.gnu_error(msg);
            ctx.gnu_error("use --no-preserve-root to override this failsafe");
            status = 1;
            continue;
        }
        let meta = match super::common::slash_check(ctx.fs, name, &path)
            .and_then(|()| ctx.fs.symlink_metadata(&path))
        {
            Ok(m) => m,
            Err(e) => {
                if !(o.force && e == FsError::NotFound) {
                    ctx.gnu_error(format_args!("cannot remove {}: {e}", quote(name)));
                    status = 1;
                }
                continue;
            }
        };
        if name.ends_with('/') && meta.kind == FileKind::Symlink {
            ctx.gnu_error(format_args!(
                "cannot remove {}: Not a directory",
                quote(name)
            ));
            status = 1;
            continue;
        }
        if !remove(ctx, &o, name, &path, &meta) {
            status = 1;
        }
    }
    status
}

fn describe(meta: &Metadata) -> &'static str {
    match meta.kind {
        FileKind::File if meta.size == 0 => "regular empty file",
        FileKind::File => "regular file",
        FileKind::Dir => "directory",
        FileKind::Symlink => "symbolic link",
        FileKind::CharDevice => "character special file",
        FileKind::Fifo => "fifo",
    }
}

/// Removes one node; returns false on any failure (already reported).
fn remove(ctx: &mut CommandCtx<'_>, o: &RmOpts, name: &str, path: &str, meta: &Metadata) -> bool {
    if ctx.control.check().is_err() {
        return false;
    }
    if meta.kind != FileKind::Dir {
        if o.interactive && !ask(ctx, &format!("remove {} {}", describe(meta), quote(name))) {
            return true;
        }
        return match ctx.fs.remove_file(path) {
            Ok(()) => {
                if o.verbose {
                    let _ = writeln!(ctx.stdout, "removed {}", quote(name));
                }
                true
            }
            Err(e) => {
                ctx.gnu_error(format_args!("cannot remove {}: {e}", quote(name)));
                false
            }
        };
    }
    if !o.recursive {
        if o.dir {
            if o.interactive && !ask(ctx, &format!("remove directory {}", quote(name))) {
                return true;
            }
            return match ctx.fs.remove_dir(path) {
                Ok(()) => {
                    if o.verbose {
                        let _ = writeln!(ctx.stdout, "removed directory {}", quote(name));
                    }
                    true
                }
                Err(e) => {
                    ctx.gnu_error(format_args!("cannot remove {}: {e}", quote(name)));
                    false
                }
            };
        }
        ctx.gnu_error(format_args!(
            "cannot remove {}: Is a directory",
            quote(name)
        ));
        return false;
    }
    if !o.verbose && !o.interactive {
        return match ctx.fs.remove_all(path) {
            Ok(()) => true,
            Err(e) => {
                ctx.gnu_error(format_args!("cannot remove {}: {e}", quote(name)));
                false
            }
        };
    }
    let entries = ctx.fs.read_dir(path).unwrap_or_default();
    if o.interactive
        && !entries.is_empty()
        && !ask(ctx, &format!("descend into directory {}", quote(name)))
    {
        return true;
    }
    let mut ok = true;
    for e in entries {
        let cpath = join(path, &e.name);
        let cname = join(name, &e.name);
        match ctx.fs.symlink_metadata(&cpath) {
            Ok(m) => ok &= remove(ctx, o, &cname, &cpath, &m),
            Err(err) => {
                ctx.gnu_error(format_args!("cannot remove {}: {err}", quote(&cname)));
                ok = false;
            }
        }
    }
    if o.interactive && !ask(ctx, &format!("remove directory {}", quote(name))) {
        return ok;
    }
    match ctx.fs.remove_dir(path) {
        Ok(()) => {
            if o.verbose {
                let _ = writeln!(ctx.stdout, "removed directory {}", quote(name));
            }
            ok
        }
        Err(FsError::DirectoryNotEmpty) if !ok => false,
        Err(e) => {
            ctx.gnu_error(format_args!("cannot remove {}: {e}", quote(name)));
            false
        }
    }
}
