//! The file handling that `bzip2` and `xz` share (and gzip's shape): each
//! operand compressed to `NAME.SUF` or decompressed back, or stdin to
//! stdout; `-c`, `-k`, `-f`, `-t`, `-q`, the input's mode and mtime kept on
//! the output, the input removed unless kept. What differs between the two
//! tools, their suffixes, codecs and GNU-style messages with their exit
//! statuses, comes in a [`Tool`].

use std::io::Write;

use crate::clock::Timestamp;
use crate::commands::CommandCtx;
use crate::commands::text::common::read_stdin;
use crate::fs::{FileKind, FsError};

/// What a decompression can fail with.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum DecodeError {
    /// The data does not start like this format.
    NotThisFormat,
    /// The data ends inside a stream.
    Truncated,
    /// A checksum or structure error.
    Corrupt,
}

/// What a decompression gives: the data and whether non-padding bytes
/// followed the last stream.
pub(super) type Decoded = Result<(Vec<u8>, bool), DecodeError>;

/// A situation a tool words in its own way.
#[derive(Clone, Copy, Debug)]
pub(super) enum Event<'a> {
    /// An input that cannot be opened, with the reason.
    CantOpen(&'a str, &'a FsError),
    /// A directory operand.
    Directory(&'a str),
    /// Compressing a file that already has the suffix.
    HasSuffix(&'a str),
    /// Decompressing a file with no known suffix.
    UnknownSuffix(&'a str),
    /// The output file exists and `-f` was not given.
    OutputExists(&'a str),
    /// The output could not be written.
    CantWrite(&'a str, &'a FsError),
    /// Decompressing failed.
    Decode(&'a str, &'a DecodeError),
    /// Bytes after the last stream that are not padding.
    TrailingGarbage(&'a str),
}

/// What to do after an [`Event`]: the exit status it sets (0 keeps it), and
/// for an unknown suffix the output name to use anyway (bzip2's `.out`).
pub(super) struct Verdict {
    pub status: i32,
    pub go_on_as: Option<String>,
}

/// One compressor: names, codec and messages.
pub(super) struct Tool {
    /// The suffix added when compressing.
    pub suffix: &'static str,
    /// Suffixes stripped when decompressing, with what replaces them.
    pub known: &'static [(&'static str, &'static str)],
    /// Compresses at a level, with the tool's [`Opts::variant`].
    pub compress: fn(&[u8], u32, u32) -> Vec<u8>,
    /// Decompresses every stream; the flag says whether non-padding bytes
    /// followed the last one.
    pub decompress: fn(&[u8]) -> Decoded,
    /// Writes the message of an event (unless quiet, for warnings) and
    /// says what follows.
    pub event: fn(&mut CommandCtx<'_>, &Event<'_>, bool) -> Verdict,
}

/// The options every tool has.
pub(super) struct Opts {
    pub decompress: bool,
    pub stdout: bool,
    pub keep: bool,
    pub force: bool,
    pub quiet: bool,
    pub test: bool,
    pub level: u32,
    /// A setting of one tool's own for its compressor (xz's check type).
    pub variant: u32,
}

impl Opts {
    /// The common options as both tools read them: `-d`/`-z` (the last
    /// wins over the command's own mode), `-c`, `-k`, `-f`, `-q`, `-t`
    /// (which decompresses) and a level among `levels` (ids `"0"`..`"9"`).
    pub(super) fn from_parsed(
        p: &crate::commands::options::Parsed,
        decompress: bool,
        stdout: bool,
        levels: &[&str],
        default_level: u32,
    ) -> Opts {
        let test = p.has("t");
        Opts {
            decompress: test
                || match p.last_of(&["d", "z"]) {
                    Some("d") => true,
                    Some(_) => false,
                    None => decompress,
                },
            stdout: stdout || p.has("c"),
            keep: p.has("k"),
            force: p.has("f"),
            quiet: p.has("q"),
            test,
            level: p
                .last_of(levels)
                .map_or(default_level, |l| l.parse().unwrap_or(default_level)),
            variant: 0,
        }
    }
}

/// The stdin name in messages.
pub(super) const STDIN: &str = "(stdin)";

/// Runs the tool over `files` (stdin when empty); the exit status.
pub(super) fn run(ctx: &mut CommandCtx<'_>, tool: &Tool, o: &Opts, files: &[String]) -> i32 {
    let mut status = 0;
    if files.is_empty() || files.iter().all(|f| f == "-") {
        for _ in 0..files.len().max(1) {
            status = status.max(do_stdin(ctx, tool, o));
        }
        return status;
    }
    for f in files {
        if ctx.control.check().is_err() {
            return 1;
        }
        let s = if f == "-" {
            do_stdin(ctx, tool, o)
        } else {
            do_file(ctx, tool, o, f)
        };
        status = worse(status, s);
    }
    status
}

/// Combines statuses: errors (1) and corruption (2) as each tool ranks them
/// are both kept, the higher winning.
fn worse(a: i32, b: i32) -> i32 {
    a.max(b)
}

fn do_stdin(ctx: &mut CommandCtx<'_>, tool: &Tool, o: &Opts) -> i32 {
    let data = match read_stdin(ctx.stdin, ctx.fs.max_file_size()) {
        Ok(d) => d,
        Err(e) => return (tool.event)(ctx, &Event::CantOpen(STDIN, &e), o.quiet).status,
    };
    let (out, status) = match transform(ctx, tool, o, STDIN, &data) {
        Ok(r) => r,
        Err(status) => return status,
    };
    if !o.test {
        let _ = ctx.stdout.write_all(&out);
    }
    status
}

/// Compresses or decompresses `data`; `Err(status)` with the message written.
fn transform(
    ctx: &mut CommandCtx<'_>,
    tool: &Tool,
    o: &Opts,
    name: &str,
    data: &[u8],
) -> Result<(Vec<u8>, i32), i32> {
    if !o.decompress {
        return Ok(((tool.compress)(data, o.level, o.variant), 0));
    }
    match (tool.decompress)(data) {
        Ok((out, garbage)) => {
            let status = if garbage {
                (tool.event)(ctx, &Event::TrailingGarbage(name), o.quiet).status
            } else {
                0
            };
            Ok((out, status))
        }
        Err(e) => Err((tool.event)(ctx, &Event::Decode(name, &e), o.quiet).status),
    }
}

/// The output name for operand `name`; `Err(status)` when it is skipped.
fn output_name(ctx: &mut CommandCtx<'_>, tool: &Tool, o: &Opts, name: &str) -> Result<String, i32> {
    let base = name.rsplit('/').next().unwrap_or(name);
    let known = tool
        .known
        .iter()
        .find(|(suf, _)| base.len() > suf.len() && base.ends_with(suf));
    if o.decompress {
        return match known {
            Some((suf, repl)) => Ok(format!("{}{repl}", &name[..name.len() - suf.len()])),
            None => {
                let v = (tool.event)(ctx, &Event::UnknownSuffix(name), o.quiet);
                v.go_on_as.ok_or(v.status)
            }
        };
    }
    if known.is_some() && !o.force {
        return Err((tool.event)(ctx, &Event::HasSuffix(name), o.quiet).status);
    }
    Ok(format!("{name}{}", tool.suffix))
}

fn do_file(ctx: &mut CommandCtx<'_>, tool: &Tool, o: &Opts, name: &str) -> i32 {
    let path = ctx.path(name);
    let meta = match ctx.fs.metadata(&path) {
        Ok(m) if m.kind == FileKind::Dir => {
            return (tool.event)(ctx, &Event::Directory(name), o.quiet).status;
        }
        Ok(m) => m,
        Err(e) => return (tool.event)(ctx, &Event::CantOpen(name, &e), o.quiet).status,
    };
    let to_stdout = o.stdout || o.test;
    let out_name = if to_stdout {
        String::new()
    } else {
        match output_name(ctx, tool, o, name) {
            Ok(n) => n,
            Err(status) => return status,
        }
    };
    let out_path = ctx.path(&out_name);
    if !to_stdout && ctx.fs.symlink_metadata(&out_path).is_ok() && !o.force {
        return (tool.event)(ctx, &Event::OutputExists(&out_name), o.quiet).status;
    }
    let data = match ctx.fs.read_shared(&path) {
        Ok(d) => d,
        Err(e) => return (tool.event)(ctx, &Event::CantOpen(name, &e), o.quiet).status,
    };
    let (out, status) = match transform(ctx, tool, o, name, &data) {
        Ok(r) => r,
        Err(status) => return status,
    };
    if o.test {
        return status;
    }
    if to_stdout {
        let _ = ctx.stdout.write_all(&out);
        return status;
    }
    let _ = ctx.fs.remove_file(&out_path);
    if let Err(e) = ctx.fs.write(&out_path, &out) {
        return (tool.event)(ctx, &Event::CantWrite(&out_name, &e), o.quiet).status;
    }
    let _ = ctx.fs.set_mode(&out_path, meta.mode);
    let _ = ctx.fs.set_mtime(
        &out_path,
        Timestamp {
            secs: meta.mtime.secs,
            nanos: meta.mtime.nanos,
        },
    );
    if !o.keep
        && let Err(e) = ctx.fs.remove_file(&path)
    {
        return (tool.event)(ctx, &Event::CantOpen(name, &e), o.quiet).status;
    }
    status
}

/// Writes `PROG: text` on stderr, PROG being the name the tool was run as.
pub(super) fn say(ctx: &mut CommandCtx<'_>, text: impl std::fmt::Display) {
    let prog = ctx.args[0].rsplit('/').next().unwrap_or("").to_string();
    let _ = writeln!(ctx.stderr, "{prog}: {text}");
}

/// Compresses through a writer in chunks, passing a cancellation point
/// between them (compression of a big input is long work).
pub(super) fn encode_chunked<W: Write>(mut enc: W, data: &[u8]) -> W {
    for chunk in data.chunks(crate::cancel::CHUNK) {
        crate::cancel::point();
        // Writing into a Vec-backed encoder cannot fail.
        let _ = enc.write_all(chunk);
    }
    enc
}
