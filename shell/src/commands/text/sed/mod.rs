//! `sed`: the stream editor, GNU flavour (`-n -e -f -E -r -i -s -z -l`).
//!
//! [`parse`] compiles the script into a flat program; [`exec`] runs it over
//! the input, line by line.

mod exec;
pub mod parse;

use std::io::{BufWriter, Write};

use super::common::{self, Arg, OptSpec, ParseMode, opt};
use crate::commands::CommandCtx;
use crate::fs::Fs;

use exec::{End, Input, Machine, Settings};

pub(crate) const USAGE: &str = "\
Usage: sed [OPTION]... {script-only-if-no-other-script} [input-file]...

  -n, --quiet, --silent
                 suppress automatic printing of pattern space
  -e script, --expression=script
                 add the script to the commands to be executed
  -f script-file, --file=script-file
                 add the contents of script-file to the commands to be executed
  -i[SUFFIX], --in-place[=SUFFIX]
                 edit files in place (makes backup if SUFFIX supplied)
  -l N, --line-length=N
                 specify the desired line-wrap length for the `l' command
  -E, -r, --regexp-extended
                 use extended regular expressions in the script
  -s, --separate
                 consider files as separate rather than as a single
                 continuous long stream.
  -z, --null-data
                 separate lines by NUL characters
      --help     display this help and exit

If no -e, --expression, -f, or --file option is given, then the first
non-option argument is taken as the sed script to interpret.  All
remaining arguments are names of input files; if no input files are
specified, then the standard input is read.
";

const SPEC: &[OptSpec] = &[
    opt("n", Some('n'), Some("quiet"), Arg::None),
    opt("n", None, Some("silent"), Arg::None),
    opt("e", Some('e'), Some("expression"), Arg::Required),
    opt("f", Some('f'), Some("file"), Arg::Required),
    opt("i", Some('i'), Some("in-place"), Arg::Optional),
    opt("l", Some('l'), Some("line-length"), Arg::Required),
    opt("E", Some('E'), Some("regexp-extended"), Arg::None),
    opt("E", Some('r'), None, Arg::None),
    opt("s", Some('s'), Some("separate"), Arg::None),
    opt("z", Some('z'), Some("null-data"), Arg::None),
    opt("u", Some('u'), Some("unbuffered"), Arg::None),
    opt("posix", None, Some("posix"), Arg::None),
    opt("debug", None, Some("debug"), Arg::None),
    opt("sandbox", None, Some("sandbox"), Arg::None),
    opt("follow-symlinks", None, Some("follow-symlinks"), Arg::None),
    opt("version", None, Some("version"), Arg::None),
    opt("help", None, Some("help"), Arg::None),
];

/// What the options give: the script (`-e`, `-f`), the settings, `-E`.
struct ScriptOptions {
    /// The `-e` and `-f` scripts, each ending in a newline.
    script: Vec<u8>,
    /// True when `-e` or `-f` gave the script (else it is the first operand).
    have_script: bool,
    set: Settings,
    /// `-E`/`-r`: extended regular expressions.
    extended: bool,
}

/// The options in order. `Err` is the status to exit with at once, the
/// message written (`--version` exits 0).
fn parse_options(ctx: &mut CommandCtx<'_>, parsed: &common::Parsed) -> Result<ScriptOptions, i32> {
    let name = "sed";
    let mut script: Vec<u8> = Vec::new();
    let mut have_script = false;
    let mut set = Settings {
        quiet: false,
        sep: b'\n',
        separate: false,
        in_place: None,
        line_wrap: 70,
    };
    let mut extended = false;
    for (id, val) in &parsed.opts {
        let v = val.as_deref().unwrap_or("");
        match *id {
            "n" => set.quiet = true,
            "e" => {
                // Pieces are joined by newlines; none follows the last, so
                // `-e '$a\'` ends the script right after its backslash.
                if script.last().is_some_and(|b| *b != b'\n') {
                    script.push(b'\n');
                }
                script.extend_from_slice(v.as_bytes());
                have_script = true;
            }
            "f" => {
                let data = match common::read_input(ctx.fs, ctx.cwd, ctx.stdin, v) {
                    Ok(d) => d,
                    Err(e) => {
                        common::err(ctx.stderr, name, format!("couldn't open file {v}: {e}"));
                        // GNU treats an unreadable script file as a fatal I/O error.
                        return Err(4);
                    }
                };
                if script.last().is_some_and(|b| *b != b'\n') {
                    script.push(b'\n');
                }
                script.extend_from_slice(&data);
                have_script = true;
            }
            "i" => {
                set.in_place = Some(v.to_string());
                set.separate = true;
            }
            "l" => match v.parse::<usize>() {
                Ok(n) => set.line_wrap = n,
                Err(_) => {
                    common::err(ctx.stderr, name, format!("invalid line length: {v}"));
                    return Err(1);
                }
            },
            "E" => extended = true,
            "s" => set.separate = true,
            "z" => set.sep = 0,
            "version" => {
                let _ = writeln!(ctx.stdout, "sed (GNU sed compatible) 4.9 (sandkeep)");
                return Err(0);
            }
            _ => {}
        }
    }
    Ok(ScriptOptions {
        script,
        have_script,
        set,
        extended,
    })
}

/// `sed`
pub fn sed(ctx: &mut CommandCtx<'_>) -> i32 {
    let name = "sed";
    let parsed = match common::parse(ctx.args, SPEC, ParseMode::default()) {
        Ok(p) => p,
        Err(e) => {
            common::usage_text_error(ctx, &e, USAGE);
            return 1;
        }
    };
    let ScriptOptions {
        mut script,
        have_script,
        mut set,
        extended,
    } = match parse_options(ctx, &parsed) {
        Ok(o) => o,
        Err(status) => return status,
    };
    let mut operands = parsed.operands.into_iter();
    if !have_script {
        let Some(s) = operands.next() else {
            common::usage_text_error(ctx, "", USAGE);
            return 1;
        };
        script = s.into_bytes();
    }
    // POSIX: a script whose first line is exactly `#n` runs as with -n.
    if script.starts_with(b"#n") && matches!(script.get(2), None | Some(b'\n')) {
        set.quiet = true;
    }
    let cmds = match parse::parse(&script, parse::ParseOpts { extended }) {
        Ok(c) => c,
        Err(e) => {
            common::err(ctx.stderr, name, &e);
            // GNU reports a missing label through its fatal-error path.
            return if e.contains("can't find label") { 4 } else { 1 };
        }
    };
    let mut files: Vec<String> = operands.collect();
    if files.is_empty() {
        if set.in_place.is_some() {
            common::err(ctx.stderr, name, "no input files");
            return 1;
        }
        files.push("-".into());
    }
    let mut m = Machine::new(&cmds, &set, ctx.fs, ctx.cwd, ctx.control);
    if !m.open_wfiles(ctx.stderr) {
        return 4;
    }
    let end = if let Some(suffix) = &set.in_place {
        in_place(&mut m, ctx, &files, suffix)
    } else {
        let mut out = BufWriter::with_capacity(64 * 1024, &mut *ctx.stdout);
        let end = if set.separate {
            let mut end = End::Done;
            for f in &files {
                m.new_stream();
                let mut input = Input::new(vec![f.clone()], ctx.stdin, set.sep);
                end = m.run(&mut input, &mut out, ctx.stderr);
                if !matches!(end, End::Done) {
                    break;
                }
            }
            end
        } else {
            let mut input = Input::new(files, ctx.stdin, set.sep);
            m.run(&mut input, &mut out, ctx.stderr)
        };
        if out.flush().is_err() {
            return 4;
        }
        end
    };
    m.close_wfiles();
    match end {
        End::Done => m.status,
        End::Quit(c) => c,
        End::Fatal(c) => c,
    }
}

/// `-i`: each file is edited separately and replaced by the output.
fn in_place(m: &mut Machine<'_>, ctx: &mut CommandCtx<'_>, files: &[String], suffix: &str) -> End {
    for f in files {
        let path = Fs::resolve(ctx.cwd, f);
        if let Err(e) = common::read_file(ctx.fs, ctx.cwd, f) {
            let msg = if e == crate::fs::FsError::IsADirectory {
                format!("couldn't edit {f}: not a regular file")
            } else {
                format!("can't read {f}: {e}")
            };
            common::err(ctx.stderr, "sed", msg);
            m.status = 2;
            continue;
        }
        m.new_stream();
        let mut buf = Vec::new();
        let mut input = Input::new(vec![f.clone()], ctx.stdin, b'\n');
        let end = m.run(&mut input, &mut buf, ctx.stderr);
        if !suffix.is_empty() {
            let backup = if suffix.contains('*') {
                let base = f.rsplit('/').next().unwrap_or(f);
                let b = suffix.replace('*', base);
                if b.contains('/') {
                    b
                } else {
                    dir_of(f).to_string() + &b
                }
            } else {
                format!("{f}{suffix}")
            };
            if let Ok(old) = ctx.fs.read(&path) {
                let _ = ctx.fs.write(&Fs::resolve(ctx.cwd, &backup), &old);
            }
        }
        if let Err(e) = ctx.fs.write(&path, &buf) {
            common::err(ctx.stderr, "sed", format!("couldn't write {f}: {e}"));
            return End::Fatal(4);
        }
        if !matches!(end, End::Done) {
            return end;
        }
    }
    End::Done
}

fn dir_of(f: &str) -> &str {
    match f.rfind('/') {
        Some(i) => &f[..=i],
        None => "",
    }
}

#[cfg(test)]
mod tests;
