//! `mkfifo` and `mknod NAME p`: FIFOs (named pipes) in the virtual tree.
//! What reading and writing them does is the filesystem's (`fs/fifo.rs`);
//! device nodes (`mknod NAME c|b MAJOR MINOR`) need a privilege the sandbox
//! user does not have.

use super::chmod::{UMASK, apply_mode};
use super::common::GnuError;
use super::common::{OptSpec, flag, parse_or_usage, quote, quote_locale, usage_error, with_arg};
use crate::commands::CommandCtx;

/// What `mkfifo --help` prints.
pub(crate) const MKFIFO_USAGE: &str = "\
Usage: mkfifo [OPTION]... NAME...
Create a named pipe (FIFO) called NAME, for each NAME.

  -m, --mode=MODE    give the pipes MODE (octal or symbolic, as for chmod)
                       instead of a=rw less the umask
  -Z                 (ignored: there are no SELinux contexts)
      --help        display this help and exit
";

/// What `mknod --help` prints.
pub(crate) const MKNOD_USAGE: &str = "\
Usage: mknod [OPTION]... NAME TYPE [MAJOR MINOR]
Make NAME a special file of type TYPE. Only p, a named pipe (FIFO), can be
made here: the device types b, c and u (which take MAJOR and MINOR numbers)
need a privilege the sandbox user does not have.

  -m, --mode=MODE    give the file MODE (octal or symbolic, as for chmod)
                       instead of a=rw less the umask
  -Z                 (ignored: there are no SELinux contexts)
      --help        display this help and exit
";

const SPEC: &[OptSpec] = &[with_arg(Some('m'), Some("mode"), "m"), flag('Z', None, "Z")];

/// The permission bits `-m MODE` asks for (applied to `a=rw` as GNU does,
/// without the umask), or the default `0666` less the umask; `Err(())` once
/// an invalid mode is reported.
fn requested_mode(ctx: &mut CommandCtx<'_>, spec: Option<&str>) -> Result<u32, ()> {
    match spec {
        None => Ok(0o666 & !UMASK),
        Some(m) => apply_mode(m, 0o666, false, 0).ok_or_else(|| {
            ctx.gnu_error(format_args!("invalid mode"));
        }),
    }
}

/// Creates one FIFO, reporting a failure as `mkfifo` does.
fn make(ctx: &mut CommandCtx<'_>, name: &str, mode: u32) -> bool {
    let path = ctx.path(name);
    match ctx.fs.mkfifo(&path, mode) {
        Ok(()) => true,
        Err(e) => {
            ctx.gnu_error(format_args!("cannot create fifo {}: {e}", quote(name)));
            false
        }
    }
}

/// `mkfifo [-m MODE] NAME...`
pub fn mkfifo(ctx: &mut CommandCtx<'_>) -> i32 {
    let Some(p) = parse_or_usage(ctx, SPEC, false) else {
        return 1;
    };
    if p.operands.is_empty() {
        usage_error(ctx, "missing operand");
        return 1;
    }
    let Ok(mode) = requested_mode(ctx, p.last("m")) else {
        return 1;
    };
    let mut ok = true;
    for name in &p.operands {
        ok &= make(ctx, name, mode);
    }
    i32::from(!ok)
}

/// A usage error with GNU mknod's explanation line after it.
fn mknod_usage(ctx: &mut CommandCtx<'_>, message: &str, why: &str) -> i32 {
    let _ = ctx.stdout.flush();
    let _ = writeln!(ctx.stderr, "mknod: {message}");
    if !why.is_empty() {
        let _ = writeln!(ctx.stderr, "{why}");
    }
    let _ = writeln!(ctx.stderr, "Try 'mknod --help' for more information.");
    1
}

/// `mknod [-m MODE] NAME TYPE [MAJOR MINOR]`: TYPE `p` makes a FIFO; the
/// device types are refused as for an unprivileged user.
pub fn mknod(ctx: &mut CommandCtx<'_>) -> i32 {
    let Some(p) = parse_or_usage(ctx, SPEC, false) else {
        return 1;
    };
    let ops = &p.operands;
    const NUMBERS: &str = "Special files require major and minor device numbers.";
    match (ops.len(), ops.get(1).map(String::as_str)) {
        (0, _) => return mknod_usage(ctx, "missing operand", ""),
        (1, _) => {
            let msg = format!("missing operand after {}", quote_locale(&ops[0]));
            return mknod_usage(ctx, &msg, "");
        }
        (2.., Some("p")) if ops.len() > 2 => {
            let msg = format!("extra operand {}", quote_locale(&ops[2]));
            return mknod_usage(
                ctx,
                &msg,
                "Fifos do not have major and minor device numbers.",
            );
        }
        (2.., Some("p")) => {}
        (2 | 3, _) => {
            let msg = format!(
                "missing operand after {}",
                quote_locale(ops.last().unwrap_or(&ops[0]))
            );
            return mknod_usage(ctx, &msg, NUMBERS);
        }
        (_, Some("b" | "c" | "u")) => {
            ctx.gnu_error(format_args!("{}: Operation not permitted", ops[0]));
            return 1;
        }
        (_, Some(t)) => {
            let msg = format!("invalid device type {}", quote_locale(t));
            return mknod_usage(ctx, &msg, "");
        }
        (_, None) => return 1,
    }
    let Ok(mode) = requested_mode(ctx, p.last("m")) else {
        return 1;
    };
    let path = ctx.path(&ops[0]);
    match ctx.fs.mkfifo(&path, mode) {
        Ok(()) => 0,
        Err(e) => {
            ctx.gnu_error(format_args!("{}: {e}", ops[0]));
            1
        }
    }
}
