//! `dd`: copy a file in blocks, converting on the way, as GNU coreutils 9.1
//! does: `if=`, `of=`, `bs=`/`ibs=`/`obs=` (with `obs` reblocking), `count=`,
//! `skip=`/`iseek=`, `seek=`/`oseek=`, `conv=` (`ucase`, `lcase`, `swab`,
//! `sync`, `notrunc`, `excl`, `nocreat`, and `noerror`/`fsync`/`fdatasync`
//! which change nothing here), `iflag=` (`skip_bytes`, `count_bytes`,
//! `fullblock`), `oflag=` (`seek_bytes`, `append`), `status=`, and GNU's
//! `N+M records in/out` summary on stderr.
//!
//! Input is read one `read` per input block, as GNU does, so a pipe may give
//! partial records; files and devices give full ones. Output to a file is
//! written through [`crate::fs::Fs::write_at`] in chunks, so the
//! filesystem's size limit stops a runaway copy, and every block passes a
//! cancellation point.

use std::io::{Read, Write};

use crate::commands::CommandCtx;
use crate::commands::files::common::{parse_size, quote};
use crate::commands::text::common::{self, Arg, OptSpec, ParseMode, opt};
use crate::fs::{Device, FileKind, FsError};

pub(crate) const USAGE: &str = "\
Usage: dd [OPERAND]...
  or:  dd OPTION
Copy a file, converting and formatting according to the operands.

  bs=BYTES        read and write up to BYTES bytes at a time (default: 512);
                  overrides ibs and obs
  conv=CONVS      convert the file as per the comma separated symbol list
  count=N         copy only N input blocks
  ibs=BYTES       read up to BYTES bytes at a time (default: 512)
  if=FILE         read from FILE instead of stdin
  iflag=FLAGS     read as per the comma separated symbol list
  obs=BYTES       write BYTES bytes at a time (default: 512)
  of=FILE         write to FILE instead of stdout
  oflag=FLAGS     write as per the comma separated symbol list
  seek=N          (or oseek=N) skip N obs-sized output blocks
  skip=N          (or iseek=N) skip N ibs-sized input blocks
  status=LEVEL    The LEVEL of information to print to stderr;
                  'none' suppresses everything but error messages,
                  'noxfer' suppresses the final transfer statistics,
                  'progress' shows periodic transfer statistics

N and BYTES may be followed by the following multiplicative suffixes:
c=1, w=2, b=512, kB=1000, K=1024, MB=1000*1000, M=1024*1024, xM=M,
GB=1000*1000*1000, G=1024*1024*1024, and so on for T, P, E, Z, Y, R, Q.
Binary prefixes can be used, too: KiB=K, MiB=M, and so on.

Each CONV symbol may be:

  lcase     change upper case to lower case
  ucase     change lower case to upper case
  swab      swap every pair of input bytes
  sync      pad every input block with NULs to ibs-size
  excl      fail if the output file already exists
  nocreat   do not create the output file
  notrunc   do not truncate the output file
  noerror   continue after read errors
  fdatasync  physically write output file data before finishing
  fsync     likewise, but also write metadata

Each FLAG symbol may be:

  append    append mode (makes sense only for output; conv=notrunc suggested)
  fullblock  accumulate full blocks of input (iflag only)
  count_bytes  treat 'count=N' as a byte count (iflag only)
  skip_bytes  treat 'skip=N' as a byte count (iflag only)
  seek_bytes  treat 'seek=N' as a byte count (oflag only)

      --help        display this help and exit
      --version     output version information and exit
";

const SPEC: &[OptSpec] = &[opt("version", None, Some("version"), Arg::None)];

/// How much `dd` reports on stderr.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Level {
    All,
    NoXfer,
    None,
}

/// The operands, parsed.
struct Opts {
    input: Option<String>,
    output: Option<String>,
    ibs: usize,
    obs: usize,
    /// `bs=` given: each input block is written as it came (no reblocking).
    bs: bool,
    count: Option<u64>,
    skip: u64,
    seek: u64,
    ucase: bool,
    lcase: bool,
    swab: bool,
    sync: bool,
    notrunc: bool,
    excl: bool,
    nocreat: bool,
    skip_bytes: bool,
    count_bytes: bool,
    fullblock: bool,
    seek_bytes: bool,
    append: bool,
    level: Level,
}

/// A bad operand: the message, and whether GNU adds its "Try" line.
struct Bad(String, bool);

/// `dd`
pub fn dd(ctx: &mut CommandCtx<'_>) -> i32 {
    let p = match common::start(ctx, SPEC, ParseMode::default(), 1) {
        Ok(p) => p,
        Err(s) => return s,
    };
    if p.has("version") {
        let _ = writeln!(ctx.stdout, "dd (GNU coreutils) 9.1");
        return 0;
    }
    let o = match parse_operands(&p.operands) {
        Ok(o) => o,
        Err(Bad(msg, try_help)) => {
            if try_help {
                common::usage_error(ctx, &msg);
            } else {
                common::err(ctx.stderr, "dd", msg);
            }
            return 1;
        }
    };
    // GNU allocates its buffers first; a huge block size fails there.
    let biggest = o.ibs.max(o.obs) as u64;
    if biggest > ctx.fs.max_file_size().max(1 << 20) {
        let which = if o.ibs as u64 == biggest {
            "input"
        } else {
            "output"
        };
        common::err(
            ctx.stderr,
            "dd",
            format_args!(
                "memory exhausted by {which} buffer of size {biggest} bytes ({})",
                human(biggest as f64, 1024.0, "iB").replace("kiB", "KiB")
            ),
        );
        return 1;
    }
    Copy::run(ctx, &o)
}

/// `key=value` operands into [`Opts`].
fn parse_operands(operands: &[String]) -> Result<Opts, Bad> {
    let mut o = Opts {
        input: None,
        output: None,
        ibs: 512,
        obs: 512,
        bs: false,
        count: None,
        skip: 0,
        seek: 0,
        ucase: false,
        lcase: false,
        swab: false,
        sync: false,
        notrunc: false,
        excl: false,
        nocreat: false,
        skip_bytes: false,
        count_bytes: false,
        fullblock: false,
        seek_bytes: false,
        append: false,
        level: Level::All,
    };
    let (mut ibs, mut obs, mut bs) = (None, None, None);
    for a in operands {
        let Some((key, val)) = a.split_once('=') else {
            return Err(Bad(
                format!("unrecognized operand {}", common::quote_locale(a)),
                true,
            ));
        };
        match key {
            "if" => o.input = Some(val.to_string()),
            "of" => o.output = Some(val.to_string()),
            "bs" => bs = Some(block_size(val)?),
            "ibs" => ibs = Some(block_size(val)?),
            "obs" => obs = Some(block_size(val)?),
            "cbs" => {
                block_size(val)?;
            }
            "count" => o.count = Some(number(val)?),
            "skip" | "iseek" => o.skip = number(val)?,
            "seek" | "oseek" => o.seek = number(val)?,
            "conv" => conversions(&mut o, val)?,
            "iflag" => flags(&mut o, val, true)?,
            "oflag" => flags(&mut o, val, false)?,
            "status" => {
                o.level = match val {
                    "none" => Level::None,
                    "noxfer" => Level::NoXfer,
                    "progress" => Level::All,
                    _ => {
                        let m = format!("invalid status level: {}", common::quote_locale(val));
                        return Err(Bad(m, true));
                    }
                }
            }
            _ => {
                return Err(Bad(
                    format!("unrecognized operand {}", common::quote_locale(a)),
                    true,
                ));
            }
        }
    }
    if o.ucase && o.lcase {
        return Err(Bad("cannot combine lcase and ucase".into(), true));
    }
    if o.excl && o.nocreat {
        return Err(Bad("cannot combine excl and nocreat".into(), true));
    }
    if let Some(b) = bs {
        (o.ibs, o.obs, o.bs) = (b, b, true);
    } else {
        o.ibs = ibs.unwrap_or(512);
        o.obs = obs.unwrap_or(512);
    }
    Ok(o)
}

/// A count or offset: digits with GNU's suffixes, `x` multiplying parts.
fn number(val: &str) -> Result<u64, Bad> {
    let invalid = |extra: &str| {
        Bad(
            format!("invalid number: {}{extra}", common::quote_locale(val)),
            false,
        )
    };
    let mut n: u64 = 1;
    for part in val.split('x') {
        let v = match parse_size(part) {
            Some(u64::MAX) => return Err(invalid(": Value too large for defined data type")),
            Some(v) => v,
            None => return Err(invalid("")),
        };
        n = n
            .checked_mul(v)
            .ok_or_else(|| invalid(": Value too large for defined data type"))?;
    }
    if n > i64::MAX as u64 {
        return Err(invalid(": Value too large for defined data type"));
    }
    Ok(n)
}

/// A block size: a [`number`] above zero.
fn block_size(val: &str) -> Result<usize, Bad> {
    match number(val)? {
        0 => Err(Bad(
            format!("invalid number: {}", common::quote_locale(val)),
            false,
        )),
        n => Ok(usize::try_from(n).unwrap_or(usize::MAX)),
    }
}

fn conversions(o: &mut Opts, list: &str) -> Result<(), Bad> {
    for c in list.split(',') {
        match c {
            "ucase" => o.ucase = true,
            "lcase" => o.lcase = true,
            "swab" => o.swab = true,
            "sync" => o.sync = true,
            "notrunc" => o.notrunc = true,
            "excl" => o.excl = true,
            "nocreat" => o.nocreat = true,
            "noerror" | "fsync" | "fdatasync" => {}
            "ascii" | "ebcdic" | "ibm" | "block" | "unblock" | "sparse" => {
                return Err(Bad(format!("conversion '{c}' is not supported"), false));
            }
            _ => {
                let m = format!("invalid conversion: {}", common::quote_locale(c));
                return Err(Bad(m, true));
            }
        }
    }
    Ok(())
}

fn flags(o: &mut Opts, list: &str, input: bool) -> Result<(), Bad> {
    for f in list.split(',') {
        match (f, input) {
            ("skip_bytes", true) => o.skip_bytes = true,
            ("count_bytes", true) => o.count_bytes = true,
            ("fullblock", true) => o.fullblock = true,
            ("seek_bytes", false) => o.seek_bytes = true,
            ("append", false) => o.append = true,
            ("append" | "skip_bytes" | "count_bytes" | "seek_bytes" | "fullblock", _) => {}
            (
                "direct" | "directory" | "dsync" | "sync" | "nonblock" | "noatime" | "nocache"
                | "noctty" | "nofollow" | "binary" | "text",
                _,
            ) => {}
            _ => {
                let side = if input { "input" } else { "output" };
                let m = format!("invalid {side} flag: {}", common::quote_locale(f));
                return Err(Bad(m, true));
            }
        }
    }
    Ok(())
}

/// Where the output goes.
enum Sink {
    Stdout,
    Stderr,
    /// Writes vanish (`/dev/null` and the like).
    Discard,
    /// `/dev/full`.
    Full,
    /// A file in the tree, written from this offset on.
    File {
        path: String,
        at: u64,
    },
}

/// The streams and tree a copy writes to (all of the context but stdin,
/// which the copy reads).
struct Streams<'a> {
    stdout: &'a mut dyn Write,
    stderr: &'a mut dyn Write,
    fs: &'a crate::fs::Fs,
}

/// Records and bytes moved, and where a copy is.
struct Copy {
    full_in: u64,
    part_in: u64,
    full_out: u64,
    part_out: u64,
    bytes_out: u64,
    /// Output waiting for a full `obs` block (or for a file chunk).
    pending: Vec<u8>,
    sink: Sink,
    started: std::time::Instant,
    /// The output was a pipe whose reader left.
    sigpipe: bool,
    /// A read failed (and was reported): the copy stopped there.
    read_failed: bool,
}

impl Copy {
    fn run(ctx: &mut CommandCtx<'_>, o: &Opts) -> i32 {
        let mut input = match open_input(ctx, o) {
            Ok(r) => r,
            Err(status) => return status,
        };
        let sink = match open_output(ctx, o) {
            Ok(s) => s,
            Err(status) => return status,
        };
        let mut c = Copy {
            full_in: 0,
            part_in: 0,
            full_out: 0,
            part_out: 0,
            bytes_out: 0,
            pending: Vec::new(),
            sink,
            started: std::time::Instant::now(),
            sigpipe: false,
            read_failed: false,
        };
        let mut io = Streams {
            stdout: &mut *ctx.stdout,
            stderr: &mut *ctx.stderr,
            fs: ctx.fs,
        };
        let ok = match input.as_mut() {
            Some(r) => c.copy(&mut io, o, r.as_mut()),
            None => c.copy(&mut io, o, &mut *ctx.stdin),
        };
        let ok = ok && c.finish(&mut io, o);
        if !c.sigpipe {
            c.report(&mut io, o);
        }
        i32::from(!ok || c.read_failed)
    }

    /// Skips, then copies block by block. False after a write error.
    fn copy(&mut self, io: &mut Streams<'_>, o: &Opts, input: &mut dyn Read) -> bool {
        let skip = if o.skip_bytes {
            o.skip
        } else {
            o.skip.saturating_mul(o.ibs as u64)
        };
        if skip > 0 && !skip_input(input, skip) {
            let name = o
                .input
                .as_deref()
                .map_or("'standard input'".to_string(), common::quotef);
            common::err(
                io.stderr,
                "dd",
                format_args!("{name}: cannot skip to specified offset"),
            );
        }
        let mut left = o.count.map(|n| {
            if o.count_bytes {
                n
            } else {
                n.saturating_mul(o.ibs as u64)
            }
        });
        let mut buf = vec![0u8; o.ibs];
        loop {
            crate::cancel::point();
            let want = left.map_or(o.ibs, |l| l.min(o.ibs as u64) as usize);
            if want == 0 {
                return true;
            }
            let n = match read_block(input, &mut buf[..want], o.fullblock) {
                Ok(n) => n,
                Err(e) => {
                    let name = o
                        .input
                        .as_deref()
                        .map_or("'standard input'".to_string(), quote);
                    let why = crate::fs::strerror(&e);
                    common::err(io.stderr, "dd", format_args!("error reading {name}: {why}"));
                    self.read_failed = true;
                    return true;
                }
            };
            if n == 0 {
                return true;
            }
            if let Some(l) = left.as_mut() {
                *l -= n as u64;
            }
            if n == o.ibs {
                self.full_in += 1;
            } else {
                self.part_in += 1;
            }
            let mut block = buf[..n].to_vec();
            convert(&mut block, o);
            if o.sync && n < o.ibs {
                block.resize(o.ibs, 0);
            }
            if !self.put(io, o, &block) {
                return false;
            }
        }
    }

    /// Queues one converted input block for output. False on a write error.
    fn put(&mut self, io: &mut Streams<'_>, o: &Opts, block: &[u8]) -> bool {
        if o.bs {
            // bs=: each block goes out as it came in.
            if block.len() == o.obs {
                self.full_out += 1;
            } else {
                self.part_out += 1;
            }
            return self.emit(io, block);
        }
        self.pending.extend_from_slice(block);
        let whole = self.pending.len() / o.obs * o.obs;
        if whole == 0 {
            return true;
        }
        self.full_out += (whole / o.obs) as u64;
        let out: Vec<u8> = self.pending.drain(..whole).collect();
        self.emit(io, &out)
    }

    /// The partial last output block. False on a write error.
    fn finish(&mut self, io: &mut Streams<'_>, o: &Opts) -> bool {
        if o.bs || self.pending.is_empty() {
            return true;
        }
        self.part_out += 1;
        let rest = std::mem::take(&mut self.pending);
        self.emit(io, &rest)
    }

    /// Writes bytes to the sink. False (the message written) on an error.
    fn emit(&mut self, io: &mut Streams<'_>, data: &[u8]) -> bool {
        let result = match &mut self.sink {
            Sink::Stdout => io.stdout.write_all(data).map_err(|e| {
                // A reader gone is SIGPIPE for GNU dd: it dies silently.
                self.sigpipe = e.kind() == std::io::ErrorKind::BrokenPipe;
                FsError::NoSpace
            }),
            Sink::Stderr => io.stderr.write_all(data).map_err(|_| FsError::NoSpace),
            Sink::Discard => Ok(()),
            Sink::Full if data.is_empty() => Ok(()),
            Sink::Full => Err(FsError::NoSpace),
            Sink::File { path, at } => {
                let r = io.fs.write_at(path, *at, data);
                if r.is_ok() {
                    *at += data.len() as u64;
                }
                r
            }
        };
        match result {
            Ok(()) => {
                self.bytes_out += data.len() as u64;
                true
            }
            Err(_) if self.sigpipe => false,
            Err(e) => {
                let name = output_name(&self.sink);
                common::err(io.stderr, "dd", format_args!("error writing {name}: {e}"));
                // The failed block is not counted as written.
                if self.part_out > 0 {
                    self.part_out -= 1;
                } else {
                    self.full_out = self.full_out.saturating_sub(1);
                }
                false
            }
        }
    }

    /// GNU's summary on stderr.
    fn report(&self, io: &mut Streams<'_>, o: &Opts) {
        if o.level == Level::None {
            return;
        }
        let mut s = format!(
            "{}+{} records in\n{}+{} records out\n",
            self.full_in, self.part_in, self.full_out, self.part_out
        );
        if o.level == Level::All {
            s.push_str(&transfer_line(
                self.bytes_out,
                self.started.elapsed().as_secs_f64(),
            ));
        }
        let _ = io.stdout.flush();
        let _ = io.stderr.write_all(s.as_bytes());
    }
}

/// How GNU names the output in a write error.
fn output_name(sink: &Sink) -> String {
    match sink {
        Sink::File { path, .. } => quote(path),
        _ => "'standard output'".to_string(),
    }
}

/// Opens `if=`: `Ok(None)` for stdin; `Err(status)` with the message written.
fn open_input(ctx: &mut CommandCtx<'_>, o: &Opts) -> Result<Option<Box<dyn Read>>, i32> {
    let Some(name) = &o.input else {
        return Ok(None);
    };
    let path = ctx.path(name);
    match ctx.fs.open_read(&path, ctx.control.seed) {
        Ok(r) => Ok(Some(Box::new(r))),
        Err(FsError::IsADirectory) => Ok(Some(Box::new(DirectoryReader))),
        Err(e) => {
            common::err(
                ctx.stderr,
                "dd",
                format_args!("failed to open {}: {e}", quote(name)),
            );
            Err(1)
        }
    }
}

/// Opens `of=` as GNU does: created unless `nocreat`, truncated at the seek
/// offset unless `notrunc` (or `append`).
fn open_output(ctx: &mut CommandCtx<'_>, o: &Opts) -> Result<Sink, i32> {
    let seek = if o.seek_bytes {
        o.seek
    } else {
        o.seek.saturating_mul(o.obs as u64)
    };
    let Some(name) = &o.output else {
        return Ok(Sink::Stdout);
    };
    let path = ctx.path(name);
    let fail = |ctx: &mut CommandCtx<'_>, e: FsError| {
        common::err(
            ctx.stderr,
            "dd",
            format_args!("failed to open {}: {e}", quote(name)),
        );
        Err(1)
    };
    if let Some(dev) = ctx.fs.device(&path) {
        return Ok(match (dev, path.as_str()) {
            (Device::Full, _) => Sink::Full,
            (Device::Descriptor, "/dev/stdout" | "/dev/fd/1") => Sink::Stdout,
            (Device::Descriptor, "/dev/stderr" | "/dev/fd/2") => Sink::Stderr,
            _ => Sink::Discard,
        });
    }
    let size = match ctx.fs.metadata(&path) {
        Ok(m) if m.kind == FileKind::Dir => return fail(ctx, FsError::IsADirectory),
        Ok(_) if o.excl => return fail(ctx, FsError::AlreadyExists),
        Ok(m) => m.size,
        Err(FsError::NotFound) if o.nocreat => return fail(ctx, FsError::NotFound),
        Err(FsError::NotFound) => {
            if let Err(e) = ctx.fs.create(&path, false) {
                return fail(ctx, e);
            }
            0
        }
        Err(e) => return fail(ctx, e),
    };
    if o.append {
        return Ok(Sink::File { path, at: size });
    }
    if !o.notrunc {
        // GNU opens with O_TRUNC unless whole output blocks are skipped,
        // then truncates at the seek offset: with seek_bytes below one
        // block the old bytes before the offset become zeros.
        let cut = if seek / o.obs as u64 == 0 { 0 } else { seek };
        if let Err(e) = ctx
            .fs
            .truncate(&path, cut)
            .and_then(|()| ctx.fs.truncate(&path, seek))
        {
            return fail(ctx, e);
        }
    }
    Ok(Sink::File { path, at: seek })
}

/// Reads and drops `n` bytes; false when the input ended first.
fn skip_input(input: &mut dyn Read, n: u64) -> bool {
    let mut left = n;
    let mut buf = vec![0u8; 64 << 10];
    while left > 0 {
        crate::cancel::point();
        let want = left.min(buf.len() as u64) as usize;
        match input.read(&mut buf[..want]) {
            Ok(0) | Err(_) => return false,
            Ok(k) => left -= k as u64,
        }
    }
    true
}

/// One `read` of up to `buf.len()` bytes (several with `fullblock`, until
/// the block is full or the input ends). A failure GNU reports (`< dir`)
/// is an error; any other (a cancelled run's pipe) ends the input.
fn read_block(input: &mut dyn Read, buf: &mut [u8], fullblock: bool) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match input.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(k) => got += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) if FsError::reported_read(&e).is_some() => return Err(e),
            Err(_) => break,
        }
        if !fullblock {
            break;
        }
    }
    Ok(got)
}

/// `if=` naming a directory: Linux opens it and fails every read.
struct DirectoryReader;

impl Read for DirectoryReader {
    fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
        Err(std::io::Error::from_raw_os_error(21))
    }
}

/// `conv=swab`, then `ucase`/`lcase`, on one input block.
fn convert(block: &mut [u8], o: &Opts) {
    if o.swab {
        for pair in block.chunks_exact_mut(2) {
            pair.swap(0, 1);
        }
    }
    if o.ucase {
        block.make_ascii_uppercase();
    } else if o.lcase {
        block.make_ascii_lowercase();
    }
}

/// GNU's third summary line: bytes (with SI and IEC sizes from 1000 on),
/// seconds, rate.
fn transfer_line(bytes: u64, secs: f64) -> String {
    let size = if bytes < 1000 {
        let s = if bytes == 1 { "byte" } else { "bytes" };
        format!("{bytes} {s} copied")
    } else if bytes < 1024 {
        format!(
            "{bytes} bytes ({}) copied",
            human(bytes as f64, 1000.0, "B")
        )
    } else {
        format!(
            "{bytes} bytes ({}, {}) copied",
            human(bytes as f64, 1000.0, "B"),
            human(bytes as f64, 1024.0, "iB").replace("kiB", "KiB")
        )
    };
    let rate = if secs > 0.0 {
        // GNU divides in floating point, where the scaling always takes a
        // first step: a slow (or empty) copy shows `0.0 kB/s`, not `0 B/s`.
        let per_second = bytes as f64 / secs;
        if per_second < 1000.0 {
            format!("{:.1} kB/s", per_second / 1000.0)
        } else {
            format!("{}/s", human(per_second, 1000.0, "B"))
        }
    } else {
        "Infinity B/s".to_string()
    };
    format!("{size}, {} s, {rate}\n", short_float(secs))
}

/// `%g` with five significant digits (GNU prints the seconds so).
fn short_float(x: f64) -> String {
    if x == 0.0 {
        return "0".to_string();
    }
    if !(1e-4..1e5).contains(&x) {
        let s = format!("{x:.4e}");
        let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
        let e: i32 = e.parse().unwrap_or(0);
        let m = m.trim_end_matches('0').trim_end_matches('.');
        return format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs());
    }
    let digits = 4 - x.log10().floor() as i32;
    let s = format!("{x:.*}", digits.max(0) as usize);
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// GNU's `human_readable` with autoscale: one decimal below 10, whole
/// numbers above, units k, M, G, ... (`unit` follows the prefix).
fn human(x: f64, base: f64, unit: &str) -> String {
    const PREFIXES: [&str; 9] = ["", "k", "M", "G", "T", "P", "E", "Z", "Y"];
    let mut v = x;
    let mut i = 0;
    while v >= base && i < PREFIXES.len() - 1 {
        v /= base;
        i += 1;
    }
    if i == 0 {
        return format!("{} {}", v.round(), unit.trim_start_matches('i'));
    }
    let shown = if v < 10.0 && format!("{v:.1}") != "10.0" {
        format!("{v:.1}")
    } else if v.round() >= base && i < PREFIXES.len() - 1 {
        i += 1;
        "1.0".to_string()
    } else {
        format!("{}", v.round())
    };
    format!("{shown} {}{unit}", PREFIXES[i])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_sizes_like_gnu() {
        assert!(transfer_line(3000, 0.0).starts_with("3000 bytes (3.0 kB, 2.9 KiB) copied, 0 s"));
        assert!(transfer_line(3893, 1.0).starts_with("3893 bytes (3.9 kB, 3.8 KiB) copied"));
        assert!(transfer_line(1, 1.0).starts_with("1 byte copied"));
        assert!(transfer_line(0, 0.5).ends_with(", 0.5 s, 0.0 kB/s\n"));
        assert!(transfer_line(400, 1.0).ends_with(", 0.4 kB/s\n"));
        assert!(transfer_line(1000, 1.0).starts_with("1000 bytes (1.0 kB) copied"));
        assert_eq!(short_float(2.8267e-05), "2.8267e-05");
        assert_eq!(short_float(0.5), "0.5");
        assert_eq!(number("2x3K").ok(), Some(6144));
        assert!(number("-1").is_err());
        assert!(block_size("0").is_err());
    }
}
