//! `truncate`: shrink or extend files to a size (`-s [+-<>/%]SIZE`), creating
//! them unless `-c`.

use crate::commands::CommandCtx;
use crate::commands::files::common::parse_size;
use crate::commands::text::common::{self, Arg, OptSpec, ParseMode, opt};
use crate::fs::{FileKind, FsError};

pub(crate) const USAGE: &str = "\
Usage: truncate OPTION... FILE...
Shrink or extend the size of each FILE to the specified size.

  -c, --no-create        do not create any files
  -s, --size=SIZE        set or adjust the file size by SIZE bytes
      --help             display this help and exit

SIZE may have a prefix: '+' extend by, '-' reduce by, '<' at most,
'>' at least, '/' round down to multiple of, '%' round up to multiple of.
";

const SPEC: &[OptSpec] = &[
    opt("c", Some('c'), Some("no-create"), Arg::None),
    opt("s", Some('s'), Some("size"), Arg::Required),
    opt("o", Some('o'), Some("io-blocks"), Arg::None),
];

/// `truncate`
pub fn truncate(ctx: &mut CommandCtx<'_>) -> i32 {
    let p = match common::start(ctx, SPEC, ParseMode::default(), 1) {
        Ok(p) => p,
        Err(s) => return s,
    };
    let Some(spec) = p.last("s").map(str::to_string) else {
        common::usage_error(ctx, "you must specify either ‘--size’ or ‘--reference’");
        return 1;
    };
    let (op, num) = match spec.chars().next() {
        Some(c @ ('+' | '-' | '<' | '>' | '/' | '%')) => (Some(c), &spec[1..]),
        _ => (None, spec.as_str()),
    };
    let Some(n) = parse_size(num.trim_start()) else {
        ctx.error(format!("Invalid number: {}", common::quote_locale(num)));
        return 1;
    };
    if matches!(op, Some('/' | '%')) && n == 0 {
        ctx.error("division by zero");
        return 1;
    }
    if p.operands.is_empty() {
        common::usage_error(ctx, "missing file operand");
        return 1;
    }
    let mut status = 0;
    for name in &p.operands {
        let path = ctx.path(name);
        let cur = match ctx.fs.metadata(&path) {
            Ok(m) if m.kind == FileKind::Dir => {
                ctx.error(format!("cannot open '{name}' for writing: Is a directory"));
                status = 1;
                continue;
            }
            Ok(m) => m.size,
            Err(FsError::NotFound) if p.has("c") => continue,
            Err(FsError::NotFound) => {
                if let Err(e) = ctx.fs.create(&path, false) {
                    ctx.error(format!("cannot open '{name}' for writing: {e}"));
                    status = 1;
                    continue;
                }
                0
            }
            Err(e) => {
                ctx.error(format!("cannot open '{name}' for writing: {e}"));
                status = 1;
                continue;
            }
        };
        let new = match op {
            None => n,
            Some('+') => cur.saturating_add(n),
            Some('-') => cur.saturating_sub(n),
            Some('<') => cur.min(n),
            Some('>') => cur.max(n),
            Some('/') => cur / n * n,
            _ => cur.div_ceil(n).saturating_mul(n),
        };
        if let Err(e) = ctx.fs.truncate(&path, new) {
            ctx.error(format!("failed to truncate '{name}' at {new} bytes: {e}"));
            status = 1;
        }
    }
    status
}
