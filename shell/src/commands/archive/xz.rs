//! `xz`, `unxz` and `xzcat` on `lzma-rust2` (a pure-Rust port of XZ for
//! Java: real LZMA2 compression, no system library), with XZ Utils 5.4's
//! file naming (`a` ↔ `a.xz`, `x.txz` → `x.tar`), messages and exit
//! statuses: 1 for errors, 2 for warnings (a directory, a file skipped for
//! its suffix). The compressed bytes are valid `.xz` (CRC64 check by
//! default) but not byte-identical to XZ Utils' own.

use std::io::Read;

use lzma_rust2::{CheckType, XzOptions, XzReader, XzWriter};

use super::codec::{self, DecodeError, Event, Opts, Tool, Verdict, say};
use crate::commands::CommandCtx;
use crate::commands::options::{
    self, OptSpec, ParseMode, flag, long_flag, unimplemented, with_arg,
};

const HELP: &str = "\
Usage: xz [OPTION]... [FILE]...
Compress or decompress FILEs in the .xz format.

  -z, --compress      force compression
  -d, --decompress    force decompression
  -t, --test          test compressed file integrity
  -k, --keep          keep (don't delete) input files
  -f, --force         force overwrite of output file and (de)compress links
  -c, --stdout        write to standard output and don't delete input files
  -0 ... -9           compression preset; default is 6; take compressor *and*
                      decompressor memory usage into account before using 7-9!
  -e, --extreme       try to improve compression ratio by using more CPU time;
                      does not affect decompressor memory requirements
  -T, --threads=NUM   use at most NUM threads; the default is 1; set to 0
                      to use as many threads as there are processor cores
  -q, --quiet         suppress warnings; specify twice to suppress errors too
  -v, --verbose       be verbose; specify twice for even more verbose
  -h, --help          display this short help and exit
  -V, --version       display the version number and exit

With no FILE, or when FILE is -, read standard input.
";

const SPEC: &[OptSpec] = &[
    flag('z', Some("compress"), "z"),
    flag('d', Some("decompress"), "d"),
    long_flag("uncompress", "d"),
    flag('t', Some("test"), "t"),
    unimplemented("list"),
    flag('k', Some("keep"), "k"),
    flag('f', Some("force"), "f"),
    flag('c', Some("stdout"), "c"),
    long_flag("to-stdout", "c"),
    unimplemented("single-stream"),
    unimplemented("no-sparse"),
    unimplemented("suffix"),
    unimplemented("files"),
    unimplemented("files0"),
    with_arg(Some('F'), Some("format"), "F"),
    with_arg(Some('C'), Some("check"), "C"),
    flag('e', Some("extreme"), "e"),
    long_flag("fast", "0"),
    long_flag("best", "9"),
    with_arg(Some('T'), Some("threads"), "T"),
    flag('q', Some("quiet"), "q"),
    flag('v', Some("verbose"), "v"),
    flag('h', Some("help"), "help"),
    flag('H', Some("long-help"), "help"),
    flag('V', Some("version"), "V"),
    flag('0', None, "0"),
    flag('1', None, "1"),
    flag('2', None, "2"),
    flag('3', None, "3"),
    flag('4', None, "4"),
    flag('5', None, "5"),
    flag('6', None, "6"),
    flag('7', None, "7"),
    flag('8', None, "8"),
    flag('9', None, "9"),
];

const TOOL: Tool = Tool {
    suffix: ".xz",
    known: &[(".xz", ""), (".txz", ".tar")],
    compress,
    decompress,
    event,
};

/// The `xz` command.
pub fn xz(ctx: &mut CommandCtx<'_>) -> i32 {
    run(ctx, false, false)
}

/// The `unxz` command (`xz -d`).
pub fn unxz(ctx: &mut CommandCtx<'_>) -> i32 {
    run(ctx, true, false)
}

/// The `xzcat` command (`xz -dc`).
pub fn xzcat(ctx: &mut CommandCtx<'_>) -> i32 {
    run(ctx, true, true)
}

fn usage(ctx: &mut CommandCtx<'_>, text: impl std::fmt::Display) -> i32 {
    say(ctx, text);
    say(ctx, "Try `xz --help' for more information.");
    1
}

fn run(ctx: &mut CommandCtx<'_>, decompress: bool, stdout: bool) -> i32 {
    let p = match options::parse(ctx.args, SPEC, ParseMode::default()) {
        Ok(p) => p,
        Err(e) => return usage(ctx, e),
    };
    if p.has("help") {
        // xz names itself as called (`Usage: unxz ...`).
        let name = ctx.args[0].rsplit('/').next().unwrap_or("xz");
        let help = HELP.replacen("Usage: xz ", &format!("Usage: {name} "), 1);
        let _ = ctx.stdout.write_all(help.as_bytes());
        return 0;
    }
    if p.has("V") {
        let _ = ctx
            .stdout
            .write_all(b"xz (XZ Utils) 5.4.1\nliblzma 5.4.1\n");
        return 0;
    }
    if let Some(f) = p.last("F")
        && !matches!(f, "auto" | "xz")
    {
        return usage(ctx, format_args!("{f}: Unsupported file format"));
    }
    let check = match p.last("C") {
        None | Some("crc64") => CheckType::Crc64,
        Some("crc32") => CheckType::Crc32,
        Some("sha256") => CheckType::Sha256,
        Some("none") => CheckType::None,
        Some(c) => return usage(ctx, format_args!("{c}: Unsupported integrity check type")),
    };
    const LEVELS: [&str; 10] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"];
    let o = Opts {
        variant: check as u32,
        ..Opts::from_parsed(&p, decompress, stdout, &LEVELS, 6)
    };
    codec::run(ctx, &TOOL, &o, &p.operands)
}

fn compress(data: &[u8], level: u32, check: u32) -> Vec<u8> {
    let mut opts = XzOptions::with_preset(level.min(9));
    opts.set_check_sum_type(match check {
        0 => CheckType::None,
        1 => CheckType::Crc32,
        10 => CheckType::Sha256,
        _ => CheckType::Crc64,
    });
    // A dictionary no larger than the input (at least 4 KiB) decodes the
    // same and keeps preset 9's 64 MiB window off a small input's budget.
    let fit = (data.len() as u64).next_power_of_two().max(4096);
    opts.lzma_options.dict_size = opts
        .lzma_options
        .dict_size
        .min(fit.min(u32::MAX as u64) as u32);
    let out = Vec::with_capacity(data.len() / 3 + 64);
    match XzWriter::new(out, opts) {
        Ok(w) => codec::encode_chunked(w, data).finish().unwrap_or_default(),
        Err(_) => Vec::new(),
    }
}

/// Every stream in `data` (with zero padding between), through a
/// cancellation point per read.
fn decompress(data: &[u8]) -> Result<(Vec<u8>, bool), DecodeError> {
    if !data.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0]) {
        return Err(DecodeError::NotThisFormat);
    }
    let mut out = Vec::with_capacity(data.len() * 4);
    let mut dec = XzReader::new(crate::cancel::Reader(data), true);
    match dec.read_to_end(&mut out) {
        Ok(_) => Ok((out, false)),
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Err(DecodeError::Truncated),
        Err(_) => Err(DecodeError::Corrupt),
    }
}

/// XZ Utils' wording and statuses.
fn event(ctx: &mut CommandCtx<'_>, ev: &Event<'_>, quiet: bool) -> Verdict {
    let warn = |ctx: &mut CommandCtx<'_>, text: std::fmt::Arguments<'_>| {
        if !quiet {
            say(ctx, text);
        }
        Verdict {
            status: 2,
            go_on_as: None,
        }
    };
    let error = |ctx: &mut CommandCtx<'_>, text: std::fmt::Arguments<'_>| {
        let _ = ctx.stdout.flush();
        say(ctx, text);
        Verdict {
            status: 1,
            go_on_as: None,
        }
    };
    match *ev {
        Event::CantOpen(name, e) | Event::CantWrite(name, e) => {
            error(ctx, format_args!("{name}: {e}"))
        }
        Event::Directory(name) => warn(ctx, format_args!("{name}: Is a directory, skipping")),
        Event::HasSuffix(name) => warn(
            ctx,
            format_args!("{name}: File already has `.xz' suffix, skipping"),
        ),
        Event::UnknownSuffix(name) => warn(
            ctx,
            format_args!("{name}: Filename has an unknown suffix, skipping"),
        ),
        Event::OutputExists(name) => error(ctx, format_args!("{name}: File exists")),
        Event::Decode(name, DecodeError::NotThisFormat) => {
            error(ctx, format_args!("{name}: File format not recognized"))
        }
        Event::Decode(name, DecodeError::Truncated) => {
            error(ctx, format_args!("{name}: Unexpected end of input"))
        }
        Event::Decode(name, DecodeError::Corrupt) | Event::TrailingGarbage(name) => {
            error(ctx, format_args!("{name}: Compressed data is corrupt"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_errors() {
        let xz = compress(b"hello\n", 6, 4);
        assert_eq!(decompress(&xz), Ok((b"hello\n".to_vec(), false)));
        let mut two = xz.clone();
        two.extend_from_slice(&[0, 0, 0, 0]);
        two.extend_from_slice(&xz);
        assert_eq!(decompress(&two), Ok((b"hello\nhello\n".to_vec(), false)));
        assert_eq!(decompress(b"junk"), Err(DecodeError::NotThisFormat));
        let big = compress(&[7u8; 50_000], 6, 4);
        assert!(decompress(&big[..big.len() / 2]).is_err());
        assert!(decompress(&[]).is_err());
    }
}
