//! `bzip2`, `bunzip2` and `bzcat` on the `bzip2` crate with its pure-Rust
//! `libbz2-rs-sys` backend (a port of libbzip2 1.0.8, so the compressed
//! bytes are the ones the host's bzip2 writes), with bzip2 1.0.8's file
//! naming (`a` ↔ `a.bz2`, `x.tbz2` → `x.tar`, `NAME.out` when no suffix
//! fits), messages and exit statuses: 1 for a file problem, 2 for data that
//! is not bzip2 or is corrupt.

use std::io::Read;

use bzip2::Compression;
use bzip2::bufread::BzDecoder;
use bzip2::write::BzEncoder;

use super::codec::{self, DecodeError, Event, Opts, Tool, Verdict, say};
use crate::commands::CommandCtx;
use crate::commands::options::{self, OptSpec, ParseMode, flag, long_flag};

const HELP: &str = "\
bzip2, a block-sorting file compressor.  Version 1.0.8, 13-Jul-2019.

   usage: bzip2 [flags and input files in any order]

   -h --help           print this message
   -d --decompress     force decompression
   -z --compress       force compression
   -k --keep           keep (don't delete) input files
   -f --force          overwrite existing output files
   -t --test           test compressed file integrity
   -c --stdout         output to standard out
   -q --quiet          suppress noncritical error messages
   -v --verbose        be verbose (a 2nd -v gives more)
   -L --license        display software version & license
   -V --version        display software version & license
   -s --small          use less memory (at most 2500k)
   -1 .. -9            set block size to 100k .. 900k
   --fast              alias for -1
   --best              alias for -9

   If invoked as `bzip2', default action is to compress.
              as `bunzip2',  default action is to decompress.
              as `bzcat', default action is to decompress to stdout.

   If no file names are given, bzip2 compresses or decompresses
   from standard input to standard output.  You can combine
   short flags, so `-v -4' means the same as -v4 or -4v, &c.

";

const SPEC: &[OptSpec] = &[
    flag('h', Some("help"), "help"),
    flag('d', Some("decompress"), "d"),
    flag('z', Some("compress"), "z"),
    flag('k', Some("keep"), "k"),
    flag('f', Some("force"), "f"),
    flag('t', Some("test"), "t"),
    flag('c', Some("stdout"), "c"),
    flag('q', Some("quiet"), "q"),
    flag('v', Some("verbose"), "v"),
    flag('L', Some("license"), "V"),
    flag('V', Some("version"), "V"),
    flag('s', Some("small"), "s"),
    long_flag("fast", "1"),
    long_flag("best", "9"),
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
    suffix: ".bz2",
    known: &[
        (".bz2", ""),
        (".bz", ""),
        (".tbz2", ".tar"),
        (".tbz", ".tar"),
    ],
    compress,
    decompress,
    event,
};

/// The `bzip2` command.
pub fn bzip2(ctx: &mut CommandCtx<'_>) -> i32 {
    run(ctx, false, false)
}

/// The `bunzip2` command (`bzip2 -d`).
pub fn bunzip2(ctx: &mut CommandCtx<'_>) -> i32 {
    run(ctx, true, false)
}

/// The `bzcat` command (`bzip2 -dc`).
pub fn bzcat(ctx: &mut CommandCtx<'_>) -> i32 {
    run(ctx, true, true)
}

fn run(ctx: &mut CommandCtx<'_>, decompress: bool, stdout: bool) -> i32 {
    let p = match options::parse(ctx.args, SPEC, ParseMode::default()) {
        Ok(p) => p,
        Err(e) => {
            // bzip2 names the whole word it did not know.
            let word = bad_word(ctx.args, &e);
            say(ctx, format_args!("Bad flag `{word}'"));
            let _ = ctx.stderr.write_all(HELP.as_bytes());
            return 1;
        }
    };
    if p.has("help") {
        // bzip2 prints its usage on stderr.
        let _ = ctx.stderr.write_all(HELP.as_bytes());
        return 0;
    }
    if p.has("V") {
        let _ = ctx
            .stderr
            .write_all(HELP.lines().next().unwrap_or("").as_bytes());
        let _ = ctx.stderr.write_all(b"\n");
        return 0;
    }
    const LEVELS: [&str; 9] = ["1", "2", "3", "4", "5", "6", "7", "8", "9"];
    let o = Opts::from_parsed(&p, decompress, stdout, &LEVELS, 9);
    codec::run(ctx, &TOOL, &o, &p.operands)
}

/// The argv word an option error is about (bzip2 quotes it whole).
fn bad_word<'a>(args: &'a [String], err: &str) -> &'a str {
    args[1..]
        .iter()
        .find(|a| {
            a.starts_with('-')
                && a.len() > 1
                && err.contains(a.trim_start_matches('-').get(..1).unwrap_or(""))
        })
        .map_or("", String::as_str)
}

fn compress(data: &[u8], level: u32, _: u32) -> Vec<u8> {
    let enc = BzEncoder::new(
        Vec::with_capacity(data.len() / 3 + 64),
        Compression::new(level),
    );
    codec::encode_chunked(enc, data)
        .finish()
        .unwrap_or_default()
}

/// Every stream in `data`, through a cancellation point per read.
fn decompress(data: &[u8]) -> Result<(Vec<u8>, bool), DecodeError> {
    if !data.starts_with(b"BZh") {
        return Err(DecodeError::NotThisFormat);
    }
    let mut out = Vec::with_capacity(data.len() * 4);
    let mut rest = data;
    loop {
        let mut dec = BzDecoder::new(crate::cancel::Reader(rest));
        if let Err(e) = dec.read_to_end(&mut out) {
            return Err(match e.kind() {
                std::io::ErrorKind::UnexpectedEof => DecodeError::Truncated,
                _ => DecodeError::Corrupt,
            });
        }
        let used = dec.total_in() as usize;
        rest = &rest[used.min(rest.len())..];
        if rest.is_empty() {
            return Ok((out, false));
        }
        if !rest.starts_with(b"BZh") {
            return Ok((out, true));
        }
    }
}

/// bzip2 1.0.8's wording and statuses.
fn event(ctx: &mut CommandCtx<'_>, ev: &Event<'_>, quiet: bool) -> Verdict {
    let stop = |status| Verdict {
        status,
        go_on_as: None,
    };
    match *ev {
        Event::CantOpen(name, e) => {
            say(ctx, format_args!("Can't open input file {name}: {e}."));
            stop(1)
        }
        Event::Directory(name) => {
            say(ctx, format_args!("Input file {name} is a directory."));
            stop(1)
        }
        Event::HasSuffix(name) => {
            say(
                ctx,
                format_args!("Input file {name} already has .bz2 suffix."),
            );
            stop(1)
        }
        Event::UnknownSuffix(name) => {
            if !quiet {
                say(
                    ctx,
                    format_args!("Can't guess original name for {name} -- using {name}.out"),
                );
            }
            Verdict {
                status: 0,
                go_on_as: Some(format!("{name}.out")),
            }
        }
        Event::OutputExists(name) => {
            say(ctx, format_args!("Output file {name} already exists."));
            stop(1)
        }
        Event::CantWrite(name, e) => {
            say(ctx, format_args!("Can't create output file {name}: {e}."));
            stop(1)
        }
        Event::Decode(name, DecodeError::NotThisFormat) => {
            say(ctx, format_args!("{name} is not a bzip2 file."));
            stop(2)
        }
        Event::Decode(name, e) => {
            let what = if *e == DecodeError::Truncated {
                "Compressed file ends unexpectedly;\n\tperhaps it is corrupted?"
            } else {
                "Data integrity error when decompressing."
            };
            let _ = ctx.stdout.flush();
            say(ctx, format_args!("{name}: {what}"));
            let _ = ctx.stderr.write_all(
                b"\nIt is possible that the compressed file(s) have become corrupted.\n\
                  You can use the -tvv option to test integrity of such files.\n",
            );
            stop(2)
        }
        Event::TrailingGarbage(name) => {
            if !quiet {
                say(
                    ctx,
                    format_args!("{name}: trailing garbage after EOF ignored"),
                );
            }
            stop(0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_errors() {
        let bz = compress(b"hello\n", 9, 0);
        assert!(bz.starts_with(b"BZh9"));
        assert_eq!(decompress(&bz), Ok((b"hello\n".to_vec(), false)));
        let mut two = bz.clone();
        two.extend_from_slice(&bz);
        assert_eq!(decompress(&two), Ok((b"hello\nhello\n".to_vec(), false)));
        let mut junk = bz.clone();
        junk.extend_from_slice(b"junk");
        assert_eq!(decompress(&junk), Ok((b"hello\n".to_vec(), true)));
        assert_eq!(decompress(b"junk"), Err(DecodeError::NotThisFormat));
        let big = compress(&[7u8; 50_000], 9, 0);
        assert!(decompress(&big[..big.len() / 2]).is_err());
    }
}
