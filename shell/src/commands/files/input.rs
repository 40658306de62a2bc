//! Reading command inputs: a named file from the virtual tree, standard
//! input for `-` (read in chunks, so `yes | head -1` ends), or an endless
//! device (`/dev/zero`, `/dev/urandom`, ...) streamed in chunks that observe
//! the run's deadline, so `head -c 16 /dev/urandom` ends at once and
//! `cat /dev/zero > /dev/null` ends with the run's timeout.
//!
//! Three ways in: [`open`] + [`for_each_chunk`]/[`read_all`] for the
//! chunked readers (cat, head, tail, wc); [`open_reader`] for commands that
//! stream a named operand through their own reader (line readers, dumpers);
//! [`read_prefix`] for commands that need at most N bytes (`od -N`).

use std::io::{self, Read};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::commands::CommandCtx;
use crate::commands::text::common::read_stdin;
use crate::control::RunControl;
use crate::fs::{FileReader, FsError};

/// Bytes handed to a consumer per chunk.
const CHUNK: usize = 64 * 1024;

/// The first chunk read from a device (then 4x per read up to [`CHUNK`]).
const FIRST_CHUNK: usize = 1024;

/// Where a command reads one of its inputs from.
pub enum Source<'a> {
    /// A file's content (a snapshot). `/dev/null` is an empty one.
    Data(Arc<Vec<u8>>),
    /// The command's standard input.
    Stdin,
    /// An endless device's stream, or a FIFO's (which ends when its
    /// writers are done).
    Device(DeviceStream<'a>),
}

/// An endless device opened by [`open`], with the run it belongs to: every
/// chunk read checks the run's deadline and cancellation first.
pub struct DeviceStream<'a> {
    reader: Mutex<FileReader>,
    control: &'a RunControl,
}

impl DeviceStream<'_> {
    /// Reads the next chunk; `None` once the run is over (its deadline
    /// passed or a limit tripped elsewhere).
    fn next_chunk(&self, buf: &mut [u8]) -> Option<usize> {
        self.control.check().ok()?;
        let mut r = self.reader.lock().unwrap_or_else(|e| e.into_inner());
        r.read_until(buf, &|| self.control.check().is_err()).ok()
    }

    /// True for a FIFO: finite, its reads wait for its writers.
    fn is_fifo(&self) -> bool {
        let r = self.reader.lock().unwrap_or_else(|e| e.into_inner());
        r.is_fifo()
    }
}

/// Opens input `name` (`-` or `/dev/stdin` is standard input). A directory
/// is `IsADirectory`. The random devices are seeded from the run's seed.
pub fn open<'a>(ctx: &CommandCtx<'a>, name: &str) -> Result<Source<'a>, FsError> {
    if name == "-" || name == "/dev/stdin" || name == "/dev/fd/0" {
        return Ok(Source::Stdin);
    }
    let path = ctx.path(name);
    super::common::slash_check(ctx.fs, name, &path)?;
    let reader = ctx.fs.open_read(&path, ctx.control.seed)?;
    if let Some(data) = reader.snapshot() {
        return Ok(Source::Data(Arc::clone(data)));
    }
    let control: &'a RunControl = ctx.control;
    Ok(Source::Device(DeviceStream {
        reader: Mutex::new(reader),
        control,
    }))
}

/// True when a read error means the run is being cancelled (the pipe's
/// `run cancelled`), not a retryable `EINTR`: std's `EINTR` carries no
/// payload, the pipe's does.
fn cancelled(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::Interrupted && e.get_ref().is_some()
}

/// Feeds `source` to `f` chunk by chunk until the input ends or `f` returns
/// false. Fails when reading standard input failed (`< dir`: `Is a
/// directory`), after feeding what came before. A stream stops quietly
/// when the run ends (its timeout), as the process would be killed; the
/// interpreter reports the limit.
pub fn for_each_chunk(
    stdin: &mut dyn Read,
    source: &Source<'_>,
    mut f: impl FnMut(&[u8]) -> bool,
) -> Result<(), FsError> {
    match source {
        Source::Data(d) => {
            f(d);
            Ok(())
        }
        Source::Stdin => {
            let mut buf = vec![0u8; CHUNK];
            loop {
                match stdin.read(&mut buf) {
                    Ok(0) => return Ok(()),
                    Ok(n) => {
                        if !f(&buf[..n]) {
                            return Ok(());
                        }
                    }
                    Err(e) if cancelled(&e) => return Ok(()),
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(FsError::from_read(&e)),
                }
            }
        }
        Source::Device(dev) => {
            // Small first reads: `head -c 4 /dev/urandom` should not make
            // 64 KiB of random bytes; long reads grow to full chunks.
            let mut buf = vec![0u8; FIRST_CHUNK];
            while let Some(n) = dev.next_chunk(&mut buf) {
                if n == 0 || !f(&buf[..n]) {
                    break;
                }
                if buf.len() < CHUNK {
                    buf.resize(buf.len() * 4, 0);
                }
            }
            Ok(())
        }
    }
}

/// How often a command waiting on an endless input re-checks the run.
const POLL: Duration = Duration::from_millis(20);

/// The whole content of `source`. Standard input longer than `cap` bytes
/// (the filesystem's per-file size limit) is `File too large` (`EFBIG`), as
/// in `sort`, so `yes | head -n -1` fails within bounded memory. An endless
/// device has no content: as on Linux (`tail -c 5 /dev/zero` never
/// finishes) the command waits, idle and without buffering, until the run
/// ends at its timeout or another limit, then gets an empty buffer.
pub fn read_all(
    stdin: &mut dyn Read,
    source: &Source<'_>,
    cap: u64,
) -> Result<Arc<Vec<u8>>, FsError> {
    match source {
        Source::Data(d) => Ok(d.clone()),
        Source::Stdin => Ok(Arc::new(read_stdin(stdin, cap)?)),
        Source::Device(dev) if dev.is_fifo() => {
            let mut all = Vec::new();
            let mut buf = vec![0u8; CHUNK];
            while let Some(n) = dev.next_chunk(&mut buf).filter(|&n| n > 0) {
                if (all.len() + n) as u64 > cap {
                    return Err(FsError::FileTooLarge);
                }
                all.extend_from_slice(&buf[..n]);
            }
            Ok(Arc::new(all))
        }
        Source::Device(dev) => {
            while dev.control.check().is_ok() {
                std::thread::sleep(POLL);
            }
            Ok(Arc::default())
        }
    }
}

/// A named operand opened for streaming by [`open_reader`]. Regular files
/// and `/dev/null` read their snapshot. An endless device streams, but each
/// read first checks the run (a cancelled run reads as an `Interrupted`
/// error carrying `run cancelled`, like a pipe's), and after the
/// filesystem's per-file size limit it fails with `File too large`
/// (`EFBIG`): a consumer that buffers what it reads (a line reader looking
/// for a newline in `/dev/zero`) fails within bounded memory instead of
/// growing until the timeout.
pub struct InputReader<'a> {
    reader: FileReader,
    control: &'a RunControl,
    /// Bytes an endless device may still deliver.
    left: u64,
}

impl InputReader<'_> {
    /// A regular file's (or `/dev/null`'s) whole content, before any read:
    /// the whole-buffer fast path. `None` for an endless device.
    pub fn snapshot(&self) -> Option<&Arc<Vec<u8>>> {
        self.reader.snapshot()
    }
}

impl Read for InputReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.reader.is_fifo() {
            let control = self.control;
            return self.reader.read_until(buf, &|| control.check().is_err());
        }
        if !self.reader.is_endless() {
            return self.reader.read(buf);
        }
        if self.control.check().is_err() {
            return Err(io::Error::new(io::ErrorKind::Interrupted, "run cancelled"));
        }
        if self.left == 0 {
            return Err(io::Error::other(FsError::FileTooLarge));
        }
        let want = buf
            .len()
            .min(usize::try_from(self.left).unwrap_or(usize::MAX));
        let n = self.reader.read(&mut buf[..want])?;
        self.left -= n as u64;
        Ok(n)
    }
}

/// Opens the named operand `name` (not `-`: the caller reads its stdin
/// itself) as a reader; see [`InputReader`]. A directory is `IsADirectory`,
/// `name/` on a non-directory `NotADirectory`; the random devices are
/// seeded from the run's seed.
pub fn open_reader<'a>(ctx: &CommandCtx<'a>, name: &str) -> Result<InputReader<'a>, FsError> {
    let path = ctx.path(name);
    super::common::slash_check(ctx.fs, name, &path)?;
    let reader = ctx.fs.open_read(&path, ctx.control.seed)?;
    let control: &'a RunControl = ctx.control;
    Ok(InputReader {
        reader,
        control,
        left: control.limits.fs.max_file_size,
    })
}

/// At most `max` bytes of input `name` (`-`: standard input), reading no
/// further: what `od -N`, `xxd -l`, `hexdump -n` and `shuf
/// --random-source` need, and the reason `od -N4 /dev/urandom` ends.
/// With `max == None` everything is read; an endless device then fails
/// with `File too large` (`EFBIG`) at once, and standard input longer than
/// the per-file size limit fails the same way instead of growing without
/// bound. When the run is cancelled (timeout) mid-read, what was read so
/// far is returned: the interpreter reports the limit.
pub fn read_prefix(
    ctx: &mut CommandCtx<'_>,
    name: &str,
    max: Option<u64>,
) -> Result<Arc<Vec<u8>>, FsError> {
    let cap = ctx.control.limits.fs.max_file_size;
    if name == "-" || name == "/dev/stdin" || name == "/dev/fd/0" {
        let control = ctx.control;
        return read_bounded(ctx.stdin, control, max, cap);
    }
    let mut r = open_reader(ctx, name)?;
    if let Some(data) = r.snapshot() {
        let end = max.map_or(data.len(), |m| data.len().min(m as usize));
        return Ok(if end == data.len() {
            Arc::clone(data)
        } else {
            Arc::new(data[..end].to_vec())
        });
    }
    if max.is_none() {
        return Err(FsError::FileTooLarge);
    }
    let control = r.control;
    read_bounded(&mut r, control, max, cap)
}

/// Reads `r` up to `max` bytes (or its end), failing with `EFBIG` past
/// `cap` bytes; a cancelled run ends the read early.
fn read_bounded(
    r: &mut dyn Read,
    control: &RunControl,
    max: Option<u64>,
    cap: u64,
) -> Result<Arc<Vec<u8>>, FsError> {
    let limit = max.unwrap_or(u64::MAX);
    let mut out = Vec::new();
    let mut buf = vec![0u8; FIRST_CHUNK];
    while (out.len() as u64) < limit {
        if control.check().is_err() {
            break;
        }
        let want = buf
            .len()
            .min(usize::try_from(limit - out.len() as u64).unwrap_or(usize::MAX));
        match r.read(&mut buf[..want]) {
            Ok(0) => break,
            Ok(n) => {
                if out.len() as u64 + n as u64 > cap {
                    return Err(FsError::FileTooLarge);
                }
                out.extend_from_slice(&buf[..n]);
                if buf.len() < CHUNK {
                    buf.resize(buf.len() * 4, 0);
                }
            }
            Err(e) if cancelled(&e) => break,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            // EFBIG from an endless device's reader, and `< dir`'s EISDIR,
            // are reported; other errors end the input.
            Err(e) => match e.get_ref().and_then(|i| i.downcast_ref::<FsError>()) {
                Some(fe) => return Err(*fe),
                None => match FsError::reported_read(&e) {
                    Some(reported) => return Err(reported),
                    None => break,
                },
            },
        }
    }
    Ok(Arc::new(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::testing::{control, new_fs, run_cmd};

    /// A test command: `prefix NAME [MAX]` prints `read_prefix`'s bytes
    /// (or its error).
    fn prefix(ctx: &mut CommandCtx<'_>) -> i32 {
        let name = ctx.args[1].clone();
        let max = ctx.args.get(2).map(|m| m.parse().unwrap());
        match read_prefix(ctx, &name, max) {
            Ok(d) => {
                let _ = ctx.stdout.write_all(&d);
                0
            }
            Err(e) => {
                let _ = write!(ctx.stderr, "{e}");
                1
            }
        }
    }

    /// `lines NAME`: counts lines through `open_reader` and a `BufRead`.
    fn lines(ctx: &mut CommandCtx<'_>) -> i32 {
        use std::io::BufRead;
        let name = ctx.args[1].clone();
        let n = ctx.args[2].parse().unwrap();
        let r = match open_reader(ctx, &name) {
            Ok(r) => r,
            Err(e) => {
                let _ = write!(ctx.stderr, "{e}");
                return 1;
            }
        };
        let mut count = 0;
        for line in io::BufReader::new(r).split(b'\n').take(n) {
            if let Err(e) = line {
                let _ = write!(ctx.stderr, "{e}");
                return 1;
            }
            count += 1;
        }
        let _ = write!(ctx.stdout, "{count}");
        0
    }

    #[test]
    fn prefixes_of_files_devices_and_stdin() {
        let fs = new_fs();
        fs.write("/workspace/f", b"hello world").unwrap();
        let c = control();
        let run = |args: &[&str], stdin: &[u8]| run_cmd(&fs, prefix, args, &mut &stdin[..], &c);
        assert_eq!(run(&["prefix", "f", "5"], b"").stdout, b"hello");
        assert_eq!(run(&["prefix", "f"], b"").stdout, b"hello world");
        assert_eq!(run(&["prefix", "/dev/zero", "4"], b"").stdout, [0; 4]);
        assert_eq!(
            run(&["prefix", "/dev/urandom", "70000"], b"").stdout.len(),
            70000
        );
        assert_eq!(run(&["prefix", "/dev/null", "4"], b"").stdout, b"");
        assert_eq!(run(&["prefix", "-", "3"], b"abcdef").stdout, b"abc");
        assert_eq!(run(&["prefix", "-"], b"abcdef").stdout, b"abcdef");
        let o = run(&["prefix", "/dev/zero"], b"");
        assert_eq!((o.status, o.stderr), (1, b"File too large".to_vec()));
        let o = run(&["prefix", "/workspace"], b"");
        assert_eq!((o.status, o.stderr), (1, b"Is a directory".to_vec()));
    }

    #[test]
    fn prefixes_are_seeded_by_the_run() {
        let fs = new_fs();
        let a = run_cmd(
            &fs,
            prefix,
            &["p", "/dev/urandom", "16"],
            &mut &b""[..],
            &control(),
        );
        let fs2 = new_fs();
        let b = run_cmd(
            &fs2,
            prefix,
            &["p", "/dev/urandom", "16"],
            &mut &b""[..],
            &control(),
        );
        assert_eq!(a.stdout, b.stdout, "seed 42 both times");
        let c = run_cmd(
            &fs2,
            prefix,
            &["p", "/dev/urandom", "16"],
            &mut &b""[..],
            &control(),
        );
        assert_ne!(b.stdout, c.stdout, "a second open reads on");
    }

    #[test]
    fn endless_line_readers_fail_within_the_size_limit() {
        let fs = new_fs();
        let mut limits = crate::limits::Limits::default();
        limits.fs.max_file_size = 1 << 20;
        let c = RunControl::new(limits, crate::clock::Clock::fixed(0), None, Some(1));
        let o = run_cmd(&fs, lines, &["lines", "/dev/zero", "1"], &mut &b""[..], &c);
        assert_eq!((o.status, o.stderr), (1, b"File too large".to_vec()));
        // Random bytes have newlines: a few lines come quickly.
        let o = run_cmd(
            &fs,
            lines,
            &["lines", "/dev/urandom", "3"],
            &mut &b""[..],
            &c,
        );
        assert_eq!((o.status, o.stdout), (0, b"3".to_vec()));
    }
}
