//! Plumbing shared by the text commands: the shared option parser (re-exported
//! from [`crate::commands::options`]), opening operands (`-` is stdin), error
//! messages in GNU's shape, and a buffered stdout.

use std::io::{BufRead, Read, Write};
use std::sync::Arc;

use crate::commands::CommandCtx;
use crate::fs::{FileKind, Fs, FsError};

pub use crate::commands::options::{Arg, OptSpec, ParseMode, Parsed, opt, parse};

/// Writes `NAME: message` to `stderr`.
pub fn err(stderr: &mut dyn Write, name: &str, message: impl std::fmt::Display) {
    let _ = writeln!(stderr, "{name}: {message}");
}

pub use crate::commands::files::common::{quote_locale, quotef, try_help, usage_error};

/// How sed, binutils' `strings`, `file` and `xxd` answer a bad invocation:
/// the message (when there is one), then their whole usage on stderr.
pub fn usage_text_error(ctx: &mut CommandCtx<'_>, message: &str, usage: &str) {
    let _ = ctx.stdout.flush();
    if !message.is_empty() {
        let _ = writeln!(ctx.stderr, "{}: {message}", ctx.args[0]);
    }
    let _ = ctx.stderr.write_all(usage.as_bytes());
}

/// True when argv asks for `--help` (as an exact option before any `--`).
pub fn wants_help(args: &[String]) -> bool {
    args[1..]
        .iter()
        .take_while(|a| *a != "--")
        .any(|a| a == "--help")
}

/// Prints `usage` to stdout when `--help` was asked; returns true if it was.
/// For a command whose text depends on its name (the checksum family);
/// the others' help is answered by the registry.
pub fn help(ctx: &mut CommandCtx<'_>, usage: &str) -> bool {
    if wants_help(ctx.args) {
        let _ = ctx.stdout.write_all(usage.as_bytes());
        let _ = ctx.stdout.flush();
        return true;
    }
    false
}

/// diffutils' (`cmp`, `diff`) answer to a bad invocation: the message and
/// the Try line, both after `NAME: `. Returns their status, 2.
pub fn diffutils_usage_error(ctx: &mut CommandCtx<'_>, message: &str) -> i32 {
    let _ = ctx.stdout.flush();
    let name = &ctx.args[0];
    let _ = writeln!(ctx.stderr, "{name}: {message}");
    let _ = writeln!(
        ctx.stderr,
        "{name}: Try '{name} --help' for more information."
    );
    2
}

/// The usual start of a command: a bad option prints GNU's message and
/// `Try 'NAME --help'` line (returns `Err(bad_status)`), otherwise the
/// parsed arguments. (`--help` was answered by the registry before the
/// command ran.)
pub fn start(
    ctx: &mut CommandCtx<'_>,
    spec: &[OptSpec],
    mode: ParseMode,
    bad_status: i32,
) -> Result<Parsed, i32> {
    parse(ctx.args, spec, mode).map_err(|e| {
        usage_error(ctx, &e);
        bad_status
    })
}

/// An operand's name and content.
pub type Operand = (String, Arc<Vec<u8>>);

/// Reads each operand (stdin for none or `-`) whole, reporting unreadable
/// ones as `NAME: FILE: error`; returns the contents and whether all worked.
pub fn read_operands(ctx: &mut CommandCtx<'_>, operands: &[String]) -> (Vec<Operand>, bool) {
    read_operands_saying(ctx, operands, |name, e| format!("{}: {e}", quotef(name)))
}

/// What coreutils that read with `fread` (base64, join, shuf) say of an
/// operand: a directory's read error names no file.
pub fn fread_error(name: &str, e: FsError) -> String {
    match e {
        FsError::IsADirectory => format!("read error: {e}"),
        _ => format!("{}: {e}", quotef(name)),
    }
}

/// As [`read_operands`], for a tool with its own words for an operand it
/// could not read: `message(name, error)` follows `NAME: `.
pub fn read_operands_saying(
    ctx: &mut CommandCtx<'_>,
    operands: &[String],
    message: impl Fn(&str, FsError) -> String,
) -> (Vec<Operand>, bool) {
    let default = ["-".to_string()];
    let names = if operands.is_empty() {
        &default[..]
    } else {
        operands
    };
    let mut v = Vec::new();
    let mut ok = true;
    for n in names {
        match read_input(ctx.fs, ctx.cwd, ctx.stdin, n) {
            Ok(d) => v.push((n.clone(), d)),
            Err(e) => {
                let _ = writeln!(ctx.stderr, "{}: {}", ctx.args[0], message(n, e));
                ok = false;
            }
        }
    }
    (v, ok)
}

/// Reads the whole of a command's stdin; past `cap` bytes (an endless
/// producer such as `yes`) it stops with `File too large`.
pub fn read_stdin(stdin: &mut dyn Read, cap: u64) -> Result<Vec<u8>, FsError> {
    let mut v = Vec::new();
    let mut limited = Read::take(stdin, cap.saturating_add(1));
    // `< dir` fails every read, as on Linux; any other failure (a cancelled
    // run's pipe, which the interpreter reports) ends the input.
    if let Err(e) = limited.read_to_end(&mut v)
        && let Some(reported) = FsError::reported_read(&e)
    {
        return Err(reported);
    }
    if v.len() as u64 > cap {
        return Err(FsError::FileTooLarge);
    }
    Ok(v)
}

/// Opens an operand for reading its whole content: `-` is stdin (read to the
/// end), anything else a file in the virtual tree. A directory is an error
/// (`Is a directory`) like GNU's `read(2)` gives; an endless device or a
/// stream longer than the filesystem's file-size limit is `File too large`.
pub fn read_input(
    fs: &Fs,
    cwd: &str,
    stdin: &mut dyn Read,
    name: &str,
) -> Result<Arc<Vec<u8>>, FsError> {
    if name == "-" {
        return Ok(Arc::new(read_stdin(stdin, fs.max_file_size())?));
    }
    read_file(fs, cwd, name)
}

/// Reads a file operand from the virtual tree (never stdin).
pub fn read_file(fs: &Fs, cwd: &str, name: &str) -> Result<Arc<Vec<u8>>, FsError> {
    let path = Fs::resolve(cwd, name);
    if fs.metadata(&path)?.kind == FileKind::Dir {
        return Err(FsError::IsADirectory);
    }
    fs.read_shared(&path)
}

/// A line reader over one input: a file's bytes or stdin, without reading
/// stdin to its end first (so `yes | sed 3q` ends).
pub enum LineSource<'a> {
    /// A whole file.
    Buf(Arc<Vec<u8>>, usize),
    /// A stream, and the error that ended it (`< dir`'s `Is a directory`;
    /// other failures, a cancelled run's pipe among them, end it quietly as
    /// in [`read_stdin`]).
    Stream(std::io::BufReader<&'a mut dyn Read>, Option<FsError>),
}

impl<'a> LineSource<'a> {
    /// A reader over a file's content.
    pub fn buf(data: Arc<Vec<u8>>) -> LineSource<'a> {
        LineSource::Buf(data, 0)
    }

    /// A reader over a stream.
    pub fn stream(r: &'a mut dyn Read) -> LineSource<'a> {
        LineSource::Stream(std::io::BufReader::with_capacity(64 * 1024, r), None)
    }

    /// The read error that ended a stream, for the command to report.
    pub fn read_error(&self) -> Option<FsError> {
        match self {
            LineSource::Buf(..) => None,
            LineSource::Stream(_, error) => *error,
        }
    }

    /// Appends the next record (terminator included, if present) to `out`;
    /// returns false at end of input.
    pub fn next_record(&mut self, delim: u8, out: &mut Vec<u8>) -> bool {
        match self {
            LineSource::Buf(d, pos) => {
                if *pos >= d.len() {
                    return false;
                }
                let rest = &d[*pos..];
                let end = memchr::memchr(delim, rest)
                    .map(|i| i + 1)
                    .unwrap_or(rest.len());
                out.extend_from_slice(&rest[..end]);
                *pos += end;
                true
            }
            LineSource::Stream(r, error) => match r.read_until(delim, out) {
                Ok(n) => n > 0,
                Err(e) => {
                    *error = FsError::reported_read(&e);
                    false
                }
            },
        }
    }
}

/// Splits `data` into records ending in `delim` (the last may lack it);
/// yields each record without its terminator.
pub fn records(data: &[u8], delim: u8) -> impl Iterator<Item = &[u8]> {
    let mut pos = 0;
    std::iter::from_fn(move || {
        if pos >= data.len() {
            return None;
        }
        let rest = &data[pos..];
        match memchr::memchr(delim, rest) {
            Some(i) => {
                pos += i + 1;
                Some(&rest[..i])
            }
            None => {
                pos = data.len();
                Some(rest)
            }
        }
    })
}

/// Parses a decimal count the way GNU tools do (leading `+` allowed).
pub fn parse_count(s: &str) -> Option<u64> {
    let t = s.strip_prefix('+').unwrap_or(s);
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(t.parse::<u64>().unwrap_or(u64::MAX))
}

/// GNU's `xdectoimax`/`xdectoumax`: a decimal option value in `min..=max`
/// (`signed` lets it start with `-`). The error is what GNU appends to
/// `invalid ...: ‘VALUE’`: nothing for a malformed number, strerror's
/// words for one out of range (EOVERFLOW past a C `int` or the type,
/// ERANGE otherwise).
pub fn decimal_in_range(text: &str, min: i64, max: i64, signed: bool) -> Result<i64, &'static str> {
    const ERANGE: &str = ": Numerical result out of range";
    const EOVERFLOW: &str = ": Value too large for defined data type";
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) if signed => (true, rest),
        Some(_) => return Err(""),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err("");
    }
    let type_max = if signed {
        i64::MAX as i128
    } else {
        u64::MAX as i128
    };
    let magnitude = digits.parse::<i128>().ok().filter(|m| *m <= type_max + 1);
    let Some(value) = magnitude.map(|m| if negative { -m } else { m }) else {
        return Err(EOVERFLOW);
    };
    if value > type_max || value < i64::MIN as i128 {
        return Err(EOVERFLOW);
    }
    if (min as i128..=max as i128).contains(&value) {
        return Ok(value as i64);
    }
    if value < i32::MIN as i128 || value > i32::MAX as i128 {
        Err(EOVERFLOW)
    } else {
        Err(ERANGE)
    }
}

/// Shell-style wildcard match (`*`, `?`, `[...]`, `\\`) of a whole name,
/// as `fnmatch(3)` without flags does (grep `--include`).
pub fn fnmatch(pat: &[u8], name: &[u8]) -> bool {
    let (mut p, mut n) = (0usize, 0usize);
    let (mut star_p, mut star_n) = (usize::MAX, 0usize);
    while n < name.len() {
        if p < pat.len() {
            match pat[p] {
                b'*' => {
                    star_p = p;
                    star_n = n;
                    p += 1;
                    continue;
                }
                b'?' => {
                    p += 1;
                    n += 1;
                    continue;
                }
                b'[' => {
                    if let Some((hit, len)) = bracket(&pat[p..], name[n]) {
                        if hit {
                            p += len;
                            n += 1;
                            continue;
                        }
                    } else if name[n] == b'[' {
                        p += 1;
                        n += 1;
                        continue;
                    }
                }
                b'\\' if p + 1 < pat.len() => {
                    if pat[p + 1] == name[n] {
                        p += 2;
                        n += 1;
                        continue;
                    }
                }
                c => {
                    if c == name[n] {
                        p += 1;
                        n += 1;
                        continue;
                    }
                }
            }
        }
        if star_p == usize::MAX {
            return false;
        }
        p = star_p + 1;
        star_n += 1;
        n = star_n;
    }
    pat[p..].iter().all(|c| *c == b'*')
}

/// Matches one byte against a bracket expression at the start of `pat`;
/// returns (matched, length of the expression), or None if it is not one.
fn bracket(pat: &[u8], c: u8) -> Option<(bool, usize)> {
    let mut i = 1;
    let neg = matches!(pat.get(i), Some(b'!') | Some(b'^'));
    if neg {
        i += 1;
    }
    let mut hit = false;
    let mut first = true;
    loop {
        let b = *pat.get(i)?;
        if b == b']' && !first {
            return Some((hit != neg, i + 1));
        }
        first = false;
        if b == b'[' && pat.get(i + 1) == Some(&b':') {
            let end = pat[i + 2..].windows(2).position(|w| w == b":]")? + i + 2;
            let mut set = [false; 256];
            super::posix_regex::parse::add_class(
                &mut set,
                std::str::from_utf8(&pat[i + 2..end]).ok()?,
            );
            hit |= set[c as usize];
            i = end + 2;
            continue;
        }
        let lo = if b == b'\\' {
            i += 1;
            *pat.get(i)?
        } else {
            b
        };
        if pat.get(i + 1) == Some(&b'-') && pat.get(i + 2).is_some_and(|x| *x != b']') {
            let hi = pat[i + 2];
            hit |= lo <= c && c <= hi;
            i += 3;
        } else {
            hit |= lo == c;
            i += 1;
        }
    }
}

/// Test support: runs a text command over a filesystem with in-memory streams.
#[cfg(test)]
pub mod testing {
    use crate::commands::CommandFn;
    use crate::commands::testing::{control, new_fs, run_cmd};
    use crate::fs::Fs;

    /// Runs `f` with `args` over `fs` in `/workspace`; returns (status,
    /// stdout, stderr).
    pub fn run_fs(fs: &Fs, f: CommandFn, args: &[&str], stdin: &[u8]) -> (i32, Vec<u8>, Vec<u8>) {
        let o = run_cmd(fs, f, args, &mut &stdin[..], &control());
        (o.status, o.stdout, o.stderr)
    }

    /// Runs `f` on stdin only; returns (status, stdout as text).
    pub fn run(f: CommandFn, args: &[&str], stdin: &str) -> (i32, String) {
        let (s, o, _) = run_fs(&new_fs(), f, args, stdin.as_bytes());
        (s, String::from_utf8_lossy(&o).into_owned())
    }
}
