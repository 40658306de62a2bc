//! The digest commands: `md5sum`, `sha1sum`, `sha224sum`, `sha256sum`,
//! `sha384sum`, `sha512sum` and `b2sum` (`-l BITS`), which print or check
//! (`-c`, `--quiet`, `--status`, `--strict`, `-w`) digests in GNU's formats
//! (`HASH  NAME`, `--tag`, `-b` for `*NAME`, `-z`); and the [`Algorithm`]s,
//! printing and checking that `cksum -a` shares.

use blake2::Blake2bVar;
use blake2::digest::{Update, VariableOutput};
use md5::Md5;
use sha1::Sha1;
use sha2::{Digest, Sha224, Sha256, Sha384, Sha512};
use sm3::Sm3;

use super::common::{self, Arg, OptSpec, ParseMode, Parsed, opt};
use crate::commands::CommandCtx;

/// The help of the options that only `-c` uses, shared with `cksum`.
macro_rules! check_options_help {
    () => {
        "The following five options are useful only when verifying checksums:
      --ignore-missing  don't fail or report status for missing files
      --quiet          don't print OK for each successfully verified file
      --status         don't output anything, status code shows success
      --strict         exit non-zero for improperly formatted checksum lines
  -w, --warn           warn about improperly formatted checksum lines
"
    };
}
pub(crate) use check_options_help;

pub(crate) const USAGE: &str = concat!(
    "Usage: NAME [OPTION]... [FILE]...
Print or check checksums.

With no FILE, or when FILE is -, read standard input.

  -b, --binary         read in binary mode
  -c, --check          read checksums from the FILEs and check them
LENGTH      --tag            create a BSD-style checksum
  -t, --text           read in text mode (default)
  -z, --zero           end each output line with NUL, not newline,
                       and disable file name escaping

",
    check_options_help!(),
    "
      --help        display this help and exit
"
);

/// The options of `-c`, shared with `cksum`.
pub const CHECK_SPEC: &[OptSpec] = &[
    opt("ignore-missing", None, Some("ignore-missing"), Arg::None),
    opt("quiet", None, Some("quiet"), Arg::None),
    opt("status", None, Some("status"), Arg::None),
    opt("strict", None, Some("strict"), Arg::None),
    opt("w", Some('w'), Some("warn"), Arg::None),
];

const SPEC: &[OptSpec] = &[
    opt("b", Some('b'), Some("binary"), Arg::None),
    opt("c", Some('c'), Some("check"), Arg::None),
    opt("tag", None, Some("tag"), Arg::None),
    opt("t", Some('t'), Some("text"), Arg::None),
    opt("z", Some('z'), Some("zero"), Arg::None),
    opt("help", None, Some("help"), Arg::None),
];

/// `b2sum`'s one more option.
const LENGTH: OptSpec = opt("l", Some('l'), Some("length"), Arg::Required);

/// A digest algorithm, named as `--tag` lines name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algorithm {
    Md5,
    Sha1,
    Sha224,
    Sha256,
    Sha384,
    Sha512,
    /// BLAKE2b with a digest of this many bits (8 to 512, by 8).
    Blake2b(usize),
    Sm3,
}

impl Algorithm {
    /// The algorithm of the command `name` (`b2sum`: 512 bits).
    pub fn of_command(name: &str) -> Algorithm {
        match name {
            "md5sum" => Algorithm::Md5,
            "sha1sum" => Algorithm::Sha1,
            "sha224sum" => Algorithm::Sha224,
            "sha384sum" => Algorithm::Sha384,
            "sha512sum" => Algorithm::Sha512,
            "b2sum" => Algorithm::Blake2b(512),
            _ => Algorithm::Sha256,
        }
    }

    /// The name `--tag` lines start with (`BLAKE2b-256` for a short BLAKE2b).
    pub fn tag(self) -> String {
        match self {
            Algorithm::Md5 => "MD5".into(),
            Algorithm::Sha1 => "SHA1".into(),
            Algorithm::Sha224 => "SHA224".into(),
            Algorithm::Sha256 => "SHA256".into(),
            Algorithm::Sha384 => "SHA384".into(),
            Algorithm::Sha512 => "SHA512".into(),
            Algorithm::Blake2b(512) => "BLAKE2b".into(),
            Algorithm::Blake2b(bits) => format!("BLAKE2b-{bits}"),
            Algorithm::Sm3 => "SM3".into(),
        }
    }

    /// The algorithm a `--tag` line names.
    fn from_tag(tag: &str) -> Option<Algorithm> {
        Some(match tag {
            "MD5" => Algorithm::Md5,
            "SHA1" => Algorithm::Sha1,
            "SHA224" => Algorithm::Sha224,
            "SHA256" => Algorithm::Sha256,
            "SHA384" => Algorithm::Sha384,
            "SHA512" => Algorithm::Sha512,
            "SM3" => Algorithm::Sm3,
            "BLAKE2b" => Algorithm::Blake2b(512),
            _ => {
                let bits = tag.strip_prefix("BLAKE2b-")?.parse().ok()?;
                Algorithm::Blake2b(blake2b_bits(bits)?)
            }
        })
    }

    /// The digest of `data`, in lowercase hex.
    pub fn hex(self, data: &[u8]) -> String {
        let bytes: Vec<u8> = match self {
            Algorithm::Md5 => Md5::digest(data).to_vec(),
            Algorithm::Sha1 => Sha1::digest(data).to_vec(),
            Algorithm::Sha224 => Sha224::digest(data).to_vec(),
            Algorithm::Sha256 => Sha256::digest(data).to_vec(),
            Algorithm::Sha384 => Sha384::digest(data).to_vec(),
            Algorithm::Sha512 => Sha512::digest(data).to_vec(),
            Algorithm::Sm3 => Sm3::digest(data).to_vec(),
            Algorithm::Blake2b(bits) => {
                let mut out = vec![0u8; bits / 8];
                // `bits` is checked to be 8..=512 by 8: a valid size.
                if let Ok(mut h) = Blake2bVar::new(out.len()) {
                    h.update(data);
                    let _ = h.finalize_variable(&mut out);
                }
                out
            }
        };
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// How many hex digits a digest has.
    fn hex_len(self) -> usize {
        match self {
            Algorithm::Md5 => 32,
            Algorithm::Sha1 => 40,
            Algorithm::Sha224 => 56,
            Algorithm::Sha256 | Algorithm::Sm3 => 64,
            Algorithm::Sha384 => 96,
            Algorithm::Sha512 => 128,
            Algorithm::Blake2b(bits) => bits / 4,
        }
    }
}

/// A BLAKE2b length GNU accepts: a multiple of 8 up to 512 (0: 512).
fn blake2b_bits(bits: usize) -> Option<usize> {
    match bits {
        0 => Some(512),
        b if b % 8 == 0 && b <= 512 => Some(b),
        _ => None,
    }
}

/// `-l BITS` of `b2sum` and `cksum -a blake2b`, checked with GNU's words:
/// `Ok(None)` without it, `Err(status)` after the message.
pub fn length_option(ctx: &mut CommandCtx<'_>, p: &Parsed) -> Result<Option<usize>, i32> {
    let Some(v) = p.last("l") else {
        return Ok(None);
    };
    let why = match v.parse::<usize>() {
        Ok(bits) => match blake2b_bits(bits) {
            Some(bits) => return Ok(Some(bits)),
            None if bits % 8 != 0 => Some("length is not a multiple of 8".to_string()),
            None => Some(format!(
                "maximum digest length for {} is 512 bits",
                common::quote_locale("BLAKE2b")
            )),
        },
        Err(_) => None,
    };
    common::err(
        ctx.stderr,
        &ctx.args[0],
        format!("invalid length: {}", common::quote_locale(v)),
    );
    if let Some(why) = why {
        common::err(ctx.stderr, &ctx.args[0], why);
    }
    Err(1)
}

/// GNU escapes `\` and newline in names (and then prefixes the line with `\`).
fn escape(name: &str) -> (bool, String) {
    if !name.contains(['\\', '\n', '\r']) {
        return (false, name.to_string());
    }
    (
        true,
        name.replace('\\', "\\\\")
            .replace('\n', "\\n")
            .replace('\r', "\\r"),
    )
}

fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c == '\\' {
            match it.next() {
                Some('n') => out.push('\n'),
                Some('r') => out.push('\r'),
                Some(o) => out.push(o),
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Any of the digest commands (by argv[0]).
pub fn sum(ctx: &mut CommandCtx<'_>) -> i32 {
    let name = ctx.args[0].clone();
    let b2sum = name == "b2sum";
    let length_help = if b2sum {
        "  -l, --length=BITS    digest length in bits; must not exceed the maximum for\n                       the blake2 algorithm and must be a multiple of 8\n"
    } else {
        ""
    };
    let usage = USAGE.replace("NAME", &name).replace("LENGTH", length_help);
    if common::help(ctx, &usage) {
        return 0;
    }
    let spec: Vec<OptSpec> = SPEC
        .iter()
        .chain(CHECK_SPEC)
        .copied()
        .chain(b2sum.then_some(LENGTH))
        .collect();
    let p = match common::start(ctx, &spec, ParseMode::default(), 1) {
        Ok(p) => p,
        Err(s) => return s,
    };
    let bits = match length_option(ctx, &p) {
        Ok(bits) => bits,
        Err(status) => return status,
    };
    let algorithm = match bits {
        Some(bits) => Algorithm::Blake2b(bits),
        None => Algorithm::of_command(&name),
    };
    if p.has("c") {
        // b2sum reads each digest's length off its line, even with -l.
        let expect = if b2sum {
            Expect::Blake2bAnyLength
        } else {
            Expect::Only(algorithm)
        };
        return check(ctx, expect, &p);
    }
    print_digests(ctx, algorithm, &p, p.has("tag"))
}

/// Prints the digest of each operand (stdin without one), `--tag`ged
/// (`ALGO (NAME) = HASH`) or not (`HASH  NAME`, `*NAME` with `-b`).
pub fn print_digests(
    ctx: &mut CommandCtx<'_>,
    algorithm: Algorithm,
    p: &Parsed,
    tagged: bool,
) -> i32 {
    let names = if p.operands.is_empty() {
        vec!["-".to_string()]
    } else {
        p.operands.clone()
    };
    let eol = if p.has("z") { "\0" } else { "\n" };
    let mut status = 0;
    let mut out = String::new();
    for f in &names {
        let data = match common::read_input(ctx.fs, ctx.cwd, ctx.stdin, f) {
            Ok(d) => d,
            Err(e) => {
                common::err(
                    ctx.stderr,
                    &ctx.args[0],
                    format!("{}: {e}", common::quotef(f)),
                );
                status = 1;
                continue;
            }
        };
        let h = algorithm.hex(&data);
        let (esc, shown) = if p.has("z") {
            (false, f.clone())
        } else {
            escape(f)
        };
        let pre = if esc { "\\" } else { "" };
        if tagged {
            out.push_str(&format!("{pre}{} ({shown}) = {h}{eol}", algorithm.tag()));
        } else {
            let mode = if p.has("b") { '*' } else { ' ' };
            out.push_str(&format!("{pre}{h} {mode}{shown}{eol}"));
        }
    }
    let _ = ctx.stdout.write_all(out.as_bytes());
    status
}

/// Which digest lines `-c` accepts.
#[derive(Clone, Copy, Debug)]
pub enum Expect {
    /// Lines of this algorithm, tagged or not.
    Only(Algorithm),
    /// BLAKE2b lines of any length (`b2sum -c` without `-l`).
    Blake2bAnyLength,
    /// Tagged lines of any algorithm (`cksum -c` without `-a`); GNU names
    /// the default algorithm, `CRC`, in its warnings.
    AnyTagged,
}

impl Expect {
    /// The algorithm named in `improperly formatted ... checksum line`.
    fn tag(self) -> String {
        match self {
            Expect::Only(a) => a.tag(),
            Expect::Blake2bAnyLength => "BLAKE2b".into(),
            Expect::AnyTagged => "CRC".into(),
        }
    }

    /// Whether a line's algorithm is one this check takes.
    fn accepts(self, a: Algorithm) -> bool {
        match self {
            Expect::Only(want) => a == want,
            Expect::Blake2bAnyLength => matches!(a, Algorithm::Blake2b(_)),
            Expect::AnyTagged => true,
        }
    }
}

/// Parses one checksum line: its algorithm, hash and file name.
fn parse_line(line: &str, expect: Expect) -> Option<(Algorithm, String, String)> {
    let (esc, line) = match line.strip_prefix('\\') {
        Some(rest) => (true, rest),
        None => (false, line),
    };
    let fix = |n: &str| if esc { unescape(n) } else { n.to_string() };
    let hex_ok =
        |h: &str, a: Algorithm| h.len() == a.hex_len() && h.bytes().all(|b| b.is_ascii_hexdigit());
    if let Some((tag, rest)) = line.split_once(" (")
        && let Some(a) = Algorithm::from_tag(tag).filter(|a| expect.accepts(*a))
    {
        let (n, h) = rest.rsplit_once(") = ")?;
        return hex_ok(h, a).then(|| (a, h.to_ascii_lowercase(), fix(n)));
    }
    let hex_run = line.bytes().take_while(u8::is_ascii_hexdigit).count();
    let a = match expect {
        Expect::Only(a) => a,
        Expect::Blake2bAnyLength => {
            Algorithm::Blake2b(blake2b_bits(hex_run * 4).filter(|b| *b > 0 && hex_run > 0)?)
        }
        Expect::AnyTagged => return None,
    };
    let h = line.get(..a.hex_len())?;
    if !hex_ok(h, a) {
        return None;
    }
    let rest = &line[a.hex_len()..];
    let n = rest
        .strip_prefix("  ")
        .or_else(|| rest.strip_prefix(" *"))
        .or_else(|| rest.strip_prefix(' '))?;
    if n.is_empty() {
        return None;
    }
    Some((a, h.to_ascii_lowercase(), fix(n)))
}

/// `-c`: checks the digests listed in each operand (stdin without one).
pub fn check(ctx: &mut CommandCtx<'_>, expect: Expect, p: &Parsed) -> i32 {
    let name = ctx.args[0].clone();
    let name = name.as_str();
    let (quiet, status_only, strict, warn, ignore_missing) = (
        p.has("quiet"),
        p.has("status"),
        p.has("strict"),
        p.has("w"),
        p.has("ignore-missing"),
    );
    let lists = if p.operands.is_empty() {
        vec!["-".to_string()]
    } else {
        p.operands.clone()
    };
    let mut out = String::new();
    let mut status = 0;
    for list in &lists {
        let data = match common::read_input(ctx.fs, ctx.cwd, ctx.stdin, list) {
            Ok(d) => d,
            Err(e) => {
                common::err(ctx.stderr, name, format!("{list}: {e}"));
                status = 1;
                continue;
            }
        };
        let shown_list = if list == "-" {
            "standard input"
        } else {
            list.as_str()
        };
        let mut tally = CheckTally::default();
        for (n, line) in common::records(&data, b'\n').enumerate() {
            let line = String::from_utf8_lossy(line);
            let line = line.strip_suffix('\r').unwrap_or(&line);
            let Some((algorithm, h, f)) = parse_line(line, expect) else {
                tally.bad_format += 1;
                if warn {
                    let tag = expect.tag();
                    let at = n + 1;
                    let what =
                        format!("{shown_list}: {at}: improperly formatted {tag} checksum line");
                    common::err(ctx.stderr, name, what);
                }
                continue;
            };
            match common::read_input(ctx.fs, ctx.cwd, ctx.stdin, &f) {
                Err(e) => {
                    if ignore_missing && e == crate::fs::FsError::NotFound {
                        continue;
                    }
                    tally.unreadable += 1;
                    common::err(ctx.stderr, name, format!("{}: {e}", common::quotef(&f)));
                    if !status_only {
                        out.push_str(&format!("{f}: FAILED open or read\n"));
                    }
                }
                Ok(d) => {
                    if algorithm.hex(&d) == h {
                        tally.good += 1;
                        if !quiet && !status_only {
                            out.push_str(&format!("{f}: OK\n"));
                        }
                    } else {
                        tally.failed += 1;
                        if !status_only {
                            out.push_str(&format!("{f}: FAILED\n"));
                        }
                    }
                }
            }
        }
        // Flushed before the warnings, as GNU's error() does.
        let _ = ctx.stdout.write_all(out.as_bytes());
        let _ = ctx.stdout.flush();
        out.clear();
        if tally.good + tally.failed + tally.unreadable == 0 {
            common::err(
                ctx.stderr,
                name,
                format!("{shown_list}: no properly formatted checksum lines found"),
            );
            status = 1;
            continue;
        }
        if !status_only {
            warn_summary(ctx, name, &tally);
        }
        if tally.failed > 0 || tally.unreadable > 0 || (strict && tally.bad_format > 0) {
            status = 1;
        }
    }
    status
}

/// What checking one list found, line by line.
#[derive(Default)]
struct CheckTally {
    /// Lines that are no checksum line.
    bad_format: usize,
    /// Files whose digest differs.
    failed: usize,
    /// Files that could not be read.
    unreadable: usize,
    /// Files whose digest matches.
    good: usize,
}

/// The `WARNING:` lines GNU prints after a list with problems.
fn warn_summary(ctx: &mut CommandCtx<'_>, name: &str, t: &CheckTally) {
    let (bad_format, unreadable, failed) = (t.bad_format, t.unreadable, t.failed);
    let s = |n: usize| if n == 1 { "" } else { "s" };
    if bad_format > 0 {
        common::err(
            ctx.stderr,
            name,
            format!(
                "WARNING: {bad_format} line{} {} improperly formatted",
                s(bad_format),
                if bad_format == 1 { "is" } else { "are" }
            ),
        );
    }
    if unreadable > 0 {
        common::err(
            ctx.stderr,
            name,
            format!(
                "WARNING: {unreadable} listed file{} could not be read",
                s(unreadable)
            ),
        );
    }
    if failed > 0 {
        common::err(
            ctx.stderr,
            name,
            format!(
                "WARNING: {failed} computed checksum{} did NOT match",
                s(failed)
            ),
        );
    }
}
