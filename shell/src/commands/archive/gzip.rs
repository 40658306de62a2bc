//! `gzip`, `gunzip` and `zcat` on `flate2`, with GNU gzip's file naming
//! (`a` ↔ `a.gz`, `x.tgz` → `x.tar`), kept modes and mtimes, refusal to
//! overwrite without `-f`, and its messages and exit statuses (1 for errors,
//! 2 for warnings).

use crate::commands::text::common::read_stdin;
use std::io::Read;

use flate2::bufread::GzDecoder;

use super::gzip_bytes;
use crate::clock::Timestamp;
use crate::commands::CommandCtx;
use crate::commands::options::{
    self, OptSpec, ParseMode, flag, long_flag, unimplemented, with_arg,
};
use crate::fs::{FileKind, FsError, Metadata};

/// Parsed options.
struct Opts {
    decompress: bool,
    stdout: bool,
    keep: bool,
    force: bool,
    quiet: bool,
    verbose: bool,
    test: bool,
    no_name: bool,
    level: u32,
    suffix: String,
}

/// Exit status bookkeeping: an error (1) wins over a warning (2).
struct Status(i32);

impl Status {
    fn warning(&mut self) {
        if self.0 == 0 {
            self.0 = 2;
        }
    }
    fn error(&mut self) {
        self.0 = 1;
    }
}

/// The `gzip` command.
pub fn gzip(ctx: &mut CommandCtx<'_>) -> i32 {
    run(ctx, false, false)
}

/// The `gunzip` command (`gzip -d`).
pub fn gunzip(ctx: &mut CommandCtx<'_>) -> i32 {
    run(ctx, true, false)
}

/// The `zcat` command (`gzip -dc`).
pub fn zcat(ctx: &mut CommandCtx<'_>) -> i32 {
    run(ctx, true, true)
}

fn usage(ctx: &mut CommandCtx<'_>, text: impl std::fmt::Display) -> i32 {
    msg(ctx, text);
    let _ = writeln!(ctx.stderr, "Try `gzip --help' for more information.");
    1
}

/// gzip 1.12's options, long names in the order of its table.
const SPEC: &[OptSpec] = &[
    unimplemented("ascii"),
    flag('c', Some("to-stdout"), "c"),
    long_flag("stdout", "c"),
    flag('d', Some("decompress"), "d"),
    long_flag("uncompress", "d"),
    flag('f', Some("force"), "f"),
    long_flag("help", "help"),
    flag('k', Some("keep"), "k"),
    unimplemented("list"),
    unimplemented("license"),
    flag('n', Some("no-name"), "n"),
    flag('N', Some("name"), "N"),
    unimplemented("-presume-input-tty"),
    flag('q', Some("quiet"), "q"),
    long_flag("silent", "q"),
    unimplemented("synchronous"),
    unimplemented("recursive"),
    with_arg(Some('S'), Some("suffix"), "S"),
    flag('t', Some("test"), "t"),
    flag('v', Some("verbose"), "v"),
    long_flag("version", "version"),
    flag('1', Some("fast"), "1"),
    flag('9', Some("best"), "9"),
    unimplemented("lzw"),
    unimplemented("bits"),
    unimplemented("rsyncable"),
    flag('2', None, "2"),
    flag('3', None, "3"),
    flag('4', None, "4"),
    flag('5', None, "5"),
    flag('6', None, "6"),
    flag('7', None, "7"),
    flag('8', None, "8"),
];

const HELP: &str = "\
Usage: gzip [OPTION]... [FILE]...
Compress or uncompress FILEs (by default, compress FILES in-place).

  -c, --stdout      write on standard output, keep original files unchanged
  -d, --decompress  decompress
  -f, --force       force overwrite of output file
  -k, --keep        keep (don't delete) input files
  -n, --no-name     do not save the original name and timestamp
  -q, --quiet       suppress all warnings
  -S, --suffix=SUF  use suffix SUF on compressed files
  -t, --test        test compressed file integrity
  -v, --verbose     verbose mode
  -1, --fast        compress faster
  -9, --best        compress better
";

fn run(ctx: &mut CommandCtx<'_>, decompress: bool, stdout: bool) -> i32 {
    let p = match options::parse(ctx.args, SPEC, ParseMode::default()) {
        Ok(p) => p,
        Err(e) => return usage(ctx, e),
    };
    if p.has("help") {
        let _ = ctx.stdout.write_all(HELP.as_bytes());
        return 0;
    }
    if p.has("version") {
        let _ = writeln!(ctx.stdout, "gzip 1.12");
        return 0;
    }
    const LEVELS: [&str; 9] = ["1", "2", "3", "4", "5", "6", "7", "8", "9"];
    let mut o = Opts {
        decompress: decompress || p.has("d"),
        stdout: stdout || p.has("c"),
        keep: p.has("k"),
        force: p.has("f"),
        quiet: p.has("q"),
        verbose: p.has("v"),
        test: p.has("t"),
        no_name: p.last_of(&["n", "N"]) == Some("n"),
        level: p.last_of(&LEVELS).map_or(6, |l| l.parse().unwrap_or(6)),
        suffix: p.last("S").unwrap_or(".gz").to_string(),
    };
    let mut files = p.operands;
    if o.test {
        o.decompress = true;
    }
    if files.is_empty() {
        files.push("-".to_string());
    }
    let mut st = Status(0);
    for f in &files {
        if ctx.control.check().is_err() {
            return 1;
        }
        if f == "-" {
            do_stdin(ctx, &o, &mut st);
        } else {
            do_file(ctx, &o, &mut st, f);
        }
    }
    st.0
}

fn msg(ctx: &mut CommandCtx<'_>, text: impl std::fmt::Display) {
    let name = ctx.args[0].clone();
    let _ = writeln!(
        ctx.stderr,
        "{}: {text}",
        if name == "zcat" || name == "gunzip" {
            "gzip"
        } else {
            &name
        }
    );
}

fn do_stdin(ctx: &mut CommandCtx<'_>, o: &Opts, st: &mut Status) {
    let data = match read_stdin(ctx.stdin, ctx.fs.max_file_size()) {
        Ok(d) => d,
        Err(e) => {
            msg(ctx, format_args!("stdin: {e}"));
            st.error();
            return;
        }
    };
    if o.decompress {
        match decompress(&data) {
            Ok((out, garbage)) => {
                if !o.test {
                    let _ = ctx.stdout.write_all(&out);
                }
                if garbage {
                    if !o.quiet {
                        msg(ctx, "stdin: decompression OK, trailing garbage ignored");
                    }
                    st.warning();
                }
            }
            Err(e) => {
                msg(ctx, format_args!("stdin: {e}"));
                st.error();
            }
        }
    } else {
        let _ = ctx.stdout.write_all(&gzip_bytes(&data, o.level, None, 0));
    }
}

/// Known compressed-file suffixes and what replaces them.
fn strip_suffix<'a>(name: &'a str, o: &Opts) -> Option<(&'a str, &'static str)> {
    let base = name.rsplit('/').next().unwrap_or(name);
    if base.len() > o.suffix.len()
        && let Some(stem) = name.strip_suffix(o.suffix.as_str())
    {
        return Some((stem, ""));
    }
    for (suf, repl) in [
        (".gz", ""),
        ("-gz", ""),
        (".z", ""),
        ("-z", ""),
        ("_z", ""),
        (".tgz", ".tar"),
        (".taz", ".tar"),
    ] {
        // gzip compares these without regard to case (`a.Z`, `x.TGZ`).
        if base.len() > suf.len()
            && name.is_char_boundary(name.len() - suf.len())
            && name[name.len() - suf.len()..].eq_ignore_ascii_case(suf)
        {
            return Some((&name[..name.len() - suf.len()], repl));
        }
    }
    None
}

/// The file operand `arg` (with `-d`, also `arg` plus the suffix): its
/// name, path and metadata (a symlink followed, with `-c` or `-f` only).
/// `None` when it is skipped, the message written.
fn locate(
    ctx: &mut CommandCtx<'_>,
    o: &Opts,
    st: &mut Status,
    arg: &str,
) -> Option<(String, String, Metadata)> {
    let mut name = arg.to_string();
    let mut path = ctx.path(&name);
    let mut meta = ctx.fs.symlink_metadata(&path);
    // gunzip FOO also finds FOO.gz.
    if o.decompress && meta == Err(FsError::NotFound) && strip_suffix(arg, o).is_none() {
        let with = format!("{arg}{}", o.suffix);
        let p = ctx.path(&with);
        meta = ctx.fs.symlink_metadata(&p);
        name = with;
        path = p;
    }
    let mut m = match meta {
        Ok(m) => m,
        Err(e) => {
            msg(ctx, format_args!("{name}: {e}"));
            st.error();
            return None;
        }
    };
    if m.kind == FileKind::Symlink {
        if !(o.stdout || o.force) {
            msg(ctx, format_args!("{name}: {}", FsError::TooManyLinks));
            st.error();
            return None;
        }
        match ctx.fs.metadata(&path) {
            Ok(t) => m = t,
            Err(e) => {
                msg(ctx, format_args!("{name}: {e}"));
                st.error();
                return None;
            }
        }
    }
    if m.kind == FileKind::Dir {
        if !o.quiet {
            msg(ctx, format_args!("{name} is a directory -- ignored"));
        }
        st.warning();
        return None;
    }
    Some((name, path, m))
}

/// The name to write: the operand without its suffix (`-d`) or with it
/// added. `None` when the file is skipped, the warning written.
fn output_name(
    ctx: &mut CommandCtx<'_>,
    o: &Opts,
    st: &mut Status,
    name: &str,
    to_stdout: bool,
) -> Option<String> {
    Some(if o.decompress {
        match strip_suffix(name, o) {
            Some((stem, repl)) => format!("{stem}{repl}"),
            None if to_stdout => String::new(),
            None => {
                if !o.quiet {
                    msg(ctx, format_args!("{name}: unknown suffix -- ignored"));
                }
                st.warning();
                return None;
            }
        }
    } else {
        if strip_suffix(name, o).is_some() && !o.force && !to_stdout {
            if !o.quiet {
                msg(
                    ctx,
                    format_args!("{name} already has {} suffix -- unchanged", o.suffix),
                );
            }
            st.warning();
            return None;
        }
        format!("{name}{}", o.suffix)
    })
}

fn do_file(ctx: &mut CommandCtx<'_>, o: &Opts, st: &mut Status, arg: &str) {
    let Some((name, path, m)) = locate(ctx, o, st, arg) else {
        return;
    };
    let to_stdout = o.stdout || o.test;
    let Some(out_name) = output_name(ctx, o, st, &name, to_stdout) else {
        return;
    };
    let data = match ctx.fs.read_shared(&path) {
        Ok(d) => d,
        Err(e) => {
            msg(ctx, format_args!("{name}: {e}"));
            st.error();
            return;
        }
    };
    let (out, garbage) = if o.decompress {
        match decompress(&data) {
            Ok(r) => r,
            Err(e) => {
                msg(ctx, format_args!("{name}: {e}"));
                st.error();
                return;
            }
        }
    } else {
        let base = name.rsplit('/').next().unwrap_or(&name);
        let (fname, mtime) = if o.no_name {
            (None, 0)
        } else {
            (Some(base), m.mtime.secs.clamp(0, u32::MAX as i64) as u32)
        };
        (gzip_bytes(&data, o.level, fname, mtime), false)
    };
    if garbage {
        if !o.quiet {
            msg(
                ctx,
                format_args!("{name}: decompression OK, trailing garbage ignored"),
            );
        }
        st.warning();
    }
    if o.test {
        return;
    }
    if to_stdout {
        let _ = ctx.stdout.write_all(&out);
        return;
    }
    let out_path = ctx.path(&out_name);
    if ctx.fs.symlink_metadata(&out_path).is_ok() {
        if !o.force {
            msg(
                ctx,
                format_args!("{out_name} already exists;\tnot overwritten"),
            );
            st.warning();
            return;
        }
        let _ = ctx.fs.remove_file(&out_path);
    }
    if let Err(e) = ctx.fs.write(&out_path, &out) {
        msg(ctx, format_args!("{out_name}: {e}"));
        st.error();
        return;
    }
    let _ = ctx.fs.set_mode(&out_path, m.mode);
    let _ = ctx.fs.set_mtime(
        &out_path,
        Timestamp {
            secs: m.mtime.secs,
            nanos: m.mtime.nanos,
        },
    );
    if o.verbose && !o.quiet {
        report_ratio(ctx, o, &name, &out_name, data.len(), out.len());
    }
    if !o.keep
        && let Err(e) = ctx.fs.remove_file(&path)
    {
        msg(ctx, format_args!("{name}: {e}"));
        st.error();
    }
}

/// `-v`: the compression ratio, as gzip computes it (net of the header).
fn report_ratio(
    ctx: &mut CommandCtx<'_>,
    o: &Opts,
    name: &str,
    out_name: &str,
    data_len: usize,
    out_len: usize,
) {
    let (plain, packed) = if o.decompress {
        (out_len, data_len)
    } else {
        (data_len, out_len)
    };
    let header = 10
        + 8
        + if o.decompress || o.no_name {
            0
        } else {
            name.rsplit('/').next().unwrap_or(name).len() + 1
        };
    let ratio = if plain == 0 {
        0.0
    } else {
        100.0 * (1.0 - (packed as f64 - header as f64) / plain as f64)
    };
    msg_plain(
        ctx,
        format_args!("{name}:\t{ratio:5.1}% -- replaced with {out_name}"),
    );
}

/// A line on stderr without the program-name prefix (gzip's verbose lines).
fn msg_plain(ctx: &mut CommandCtx<'_>, text: impl std::fmt::Display) {
    let _ = writeln!(ctx.stderr, "{text}");
}

/// Decompresses every gzip member in `data` (or a `compress` file's LZW);
/// the flag says whether non-gzip bytes (other than zero padding) followed
/// the last member.
fn decompress(data: &[u8]) -> Result<(Vec<u8>, bool), &'static str> {
    if data.starts_with(&super::lzw::MAGIC) {
        return super::lzw::decompress(data).map(|out| (out, false));
    }
    if !data.starts_with(&[0x1f, 0x8b]) {
        return Err("not in gzip format");
    }
    let mut out = Vec::with_capacity(data.len() * 3);
    let mut rest = data;
    loop {
        // Through a cancellation point per read: a gzip bomb is long work.
        let mut dec = GzDecoder::new(crate::cancel::Reader(rest));
        if let Err(e) = dec.read_to_end(&mut out) {
            return Err(match e.kind() {
                std::io::ErrorKind::UnexpectedEof => "unexpected end of file",
                _ if e.to_string().contains("crc") => "invalid compressed data--crc error",
                _ => "invalid compressed data--format violated",
            });
        }
        rest = dec.into_inner().0;
        if rest.is_empty() {
            return Ok((out, false));
        }
        if !rest.starts_with(&[0x1f, 0x8b]) {
            return Ok((out, rest.iter().any(|&b| b != 0)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multi_member_and_garbage() {
        let mut two = gzip_bytes(b"a\n", 6, None, 0);
        two.extend(gzip_bytes(b"b\n", 6, None, 0));
        assert_eq!(decompress(&two).unwrap(), (b"a\nb\n".to_vec(), false));
        let mut junk = gzip_bytes(b"a\n", 6, None, 0);
        junk.extend(b"junk\n");
        assert_eq!(decompress(&junk).unwrap(), (b"a\n".to_vec(), true));
        assert_eq!(decompress(b"zz"), Err("not in gzip format"));
        let gz = gzip_bytes(&[7u8; 10_000], 6, None, 0);
        assert_eq!(
            decompress(&gz[..gz.len() - 4]),
            Err("unexpected end of file")
        );
    }

    #[test]
    fn suffixes() {
        let o = Opts {
            decompress: true,
            stdout: false,
            keep: false,
            force: false,
            quiet: false,
            verbose: false,
            test: false,
            no_name: false,
            level: 6,
            suffix: ".gz".into(),
        };
        assert_eq!(strip_suffix("a.gz", &o), Some(("a", "")));
        assert_eq!(strip_suffix("x.tgz", &o), Some(("x", ".tar")));
        assert_eq!(strip_suffix("dir/.gz", &o), None);
        assert_eq!(strip_suffix("plain", &o), None);
    }
}
