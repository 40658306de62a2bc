//! `md5sum`, `sha1sum`, `sha224sum`, `sha256sum`, `sha384sum`, `sha512sum`:
//! print or check (`-c`, `--quiet`, `--status`, `--strict`, `-w`) digests,
//! in GNU's formats (`HASH  NAME`, `--tag`, `-b` for `*NAME`, `-z`).

use md5::Md5;
use sha1::Sha1;
use sha2::{Digest, Sha224, Sha256, Sha384, Sha512};

use super::common::{self, Arg, OptSpec, ParseMode, opt};
use crate::commands::CommandCtx;

pub(crate) const USAGE: &str = "\
Usage: NAME [OPTION]... [FILE]...
Print or check checksums.

With no FILE, or when FILE is -, read standard input.

  -b, --binary         read in binary mode
  -c, --check          read checksums from the FILEs and check them
      --tag            create a BSD-style checksum
  -t, --text           read in text mode (default)
  -z, --zero           end each output line with NUL, not newline,
                       and disable file name escaping

The following five options are useful only when verifying checksums:
      --ignore-missing  don't fail or report status for missing files
      --quiet          don't print OK for each successfully verified file
      --status         don't output anything, status code shows success
      --strict         exit non-zero for improperly formatted checksum lines
  -w, --warn           warn about improperly formatted checksum lines

      --help        display this help and exit
";

const SPEC: &[OptSpec] = &[
    opt("b", Some('b'), Some("binary"), Arg::None),
    opt("c", Some('c'), Some("check"), Arg::None),
    opt("tag", None, Some("tag"), Arg::None),
    opt("t", Some('t'), Some("text"), Arg::None),
    opt("z", Some('z'), Some("zero"), Arg::None),
    opt("ignore-missing", None, Some("ignore-missing"), Arg::None),
    opt("quiet", None, Some("quiet"), Arg::None),
    opt("status", None, Some("status"), Arg::None),
    opt("strict", None, Some("strict"), Arg::None),
    opt("w", Some('w'), Some("warn"), Arg::None),
    opt("help", None, Some("help"), Arg::None),
];

/// The hex digest of `data` with the algorithm of command `name`.
pub fn digest_hex(name: &str, data: &[u8]) -> String {
    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }
    match name {
        "md5sum" => hex(&Md5::digest(data)),
        "sha1sum" => hex(&Sha1::digest(data)),
        "sha224sum" => hex(&Sha224::digest(data)),
        "sha384sum" => hex(&Sha384::digest(data)),
        "sha512sum" => hex(&Sha512::digest(data)),
        _ => hex(&Sha256::digest(data)),
    }
}

fn tag_name(name: &str) -> &'static str {
    match name {
        "md5sum" => "MD5",
        "sha1sum" => "SHA1",
        "sha224sum" => "SHA224",
        "sha384sum" => "SHA384",
        "sha512sum" => "SHA512",
        _ => "SHA256",
    }
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

/// Any of the checksum commands (by argv[0]).
pub fn sum(ctx: &mut CommandCtx<'_>) -> i32 {
    let name = ctx.args[0].clone();
    let usage = USAGE.replace("NAME", &name);
    if common::help(ctx, &usage) {
        return 0;
    }
    let p = match common::start(ctx, SPEC, ParseMode::default(), 1) {
        Ok(p) => p,
        Err(s) => return s,
    };
    let hex_len = digest_hex(&name, b"").len();
    if p.has("c") {
        return check(ctx, &name, &p, hex_len);
    }
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
                common::err(ctx.stderr, &name, format!("{}: {e}", common::quotef(f)));
                status = 1;
                continue;
            }
        };
        let h = digest_hex(&name, &data);
        let (esc, shown) = if p.has("z") {
            (false, f.clone())
        } else {
            escape(f)
        };
        let pre = if esc { "\\" } else { "" };
        if p.has("tag") {
            out.push_str(&format!("{pre}{} ({shown}) = {h}{eol}", tag_name(&name)));
        } else {
            let mode = if p.has("b") { '*' } else { ' ' };
            out.push_str(&format!("{pre}{h} {mode}{shown}{eol}"));
        }
    }
    let _ = ctx.stdout.write_all(out.as_bytes());
    status
}

/// Parses one checksum line: (hash, file name).
fn parse_line(line: &str, hex_len: usize, tag: &str) -> Option<(String, String)> {
    let (esc, line) = match line.strip_prefix('\\') {
        Some(rest) => (true, rest),
        None => (false, line),
    };
    let fix = |n: &str| if esc { unescape(n) } else { n.to_string() };
    if let Some(rest) = line.strip_prefix(tag).and_then(|r| r.strip_prefix(" (")) {
        let (n, h) = rest.rsplit_once(") = ")?;
        if h.len() == hex_len && h.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Some((h.to_ascii_lowercase(), fix(n)));
        }
        return None;
    }
    let h = line.get(..hex_len)?;
    if !h.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let rest = &line[hex_len..];
    let n = rest
        .strip_prefix("  ")
        .or_else(|| rest.strip_prefix(" *"))
        .or_else(|| rest.strip_prefix(' '))?;
    if n.is_empty() {
        return None;
    }
    Some((h.to_ascii_lowercase(), fix(n)))
}

fn check(ctx: &mut CommandCtx<'_>, name: &str, p: &common::Parsed, hex_len: usize) -> i32 {
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
            let Some((h, f)) = parse_line(line, hex_len, tag_name(name)) else {
                tally.bad_format += 1;
                if warn {
                    common::err(
                        ctx.stderr,
                        name,
                        format!(
                            "{shown_list}: {}: improperly formatted {} checksum line",
                            n + 1,
                            tag_name(name)
                        ),
                    );
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
                    if digest_hex(name, &d) == h {
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
        let _ = ctx.stdout.write_all(out.as_bytes());
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
