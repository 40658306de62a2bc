//! Reading command inputs: a named file from the virtual tree, or standard
//! input for `-` (read in chunks, so `yes | head -1` ends).

use std::io::Read;
use std::sync::Arc;

use crate::commands::CommandCtx;
use crate::fs::{FileKind, FsError};

/// Where a command reads one of its inputs from.
pub enum Source {
    /// A file's content (a snapshot).
    Data(Arc<Vec<u8>>),
    /// The command's standard input.
    Stdin,
}

/// Opens input `name` (`-` or `/dev/stdin` is standard input). A directory
/// is `IsADirectory`.
pub fn open(ctx: &CommandCtx<'_>, name: &str) -> Result<Source, FsError> {
    if name == "-" || name == "/dev/stdin" || name == "/dev/fd/0" {
        return Ok(Source::Stdin);
    }
    let path = ctx.path(name);
    super::common::slash_check(ctx.fs, name, &path)?;
    let meta = ctx.fs.metadata(&path)?;
    if meta.kind == FileKind::Dir {
        return Err(FsError::IsADirectory);
    }
    Ok(Source::Data(ctx.fs.read_shared(&path)?))
}

/// Feeds `source` to `f` chunk by chunk until the input ends or `f` returns
/// false. Returns false when reading standard input failed.
pub fn for_each_chunk(
    stdin: &mut dyn Read,
    source: &Source,
    mut f: impl FnMut(&[u8]) -> bool,
) -> bool {
    match source {
        Source::Data(d) => {
            f(d);
            true
        }
        Source::Stdin => {
            let mut buf = vec![0u8; 64 * 1024];
            loop {
                match stdin.read(&mut buf) {
                    Ok(0) => return true,
                    Ok(n) => {
                        if !f(&buf[..n]) {
                            return true;
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(_) => return false,
                }
            }
        }
    }
}

/// The whole content of `source`.
pub fn read_all(stdin: &mut dyn Read, source: &Source) -> Arc<Vec<u8>> {
    match source {
        Source::Data(d) => d.clone(),
        Source::Stdin => {
            let mut v = Vec::new();
            let _ = stdin.read_to_end(&mut v);
            Arc::new(v)
        }
    }
}
