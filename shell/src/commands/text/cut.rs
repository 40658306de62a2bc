//! `cut`: select bytes, characters or fields of each line (`-b -c -f -d -s
//! --complement --output-delimiter -z`).

use std::io::{BufWriter, Write};

use super::common::{self, LineSource, Parsed};
use crate::commands::CommandCtx;

declare_options! {
    /// cut's options.
    pub(crate) enum CutOpt {
        usage: "Usage: cut OPTION... [FILE]...",
        about: "Print selected parts of lines from each FILE to standard output.

With no FILE, or when FILE is -, read standard input.
",
        after: "Each LIST is made up of one range, or many ranges separated by commas.
Each range is one of: N, N-, N-M, -M (counted from 1).",
        column: 26,
        rows: [
            Bytes: 'b' "bytes" required "LIST" => "select only these bytes",
            Characters: 'c' "characters" required "LIST" => "select only these characters",
            Delimiter: 'd' "delimiter" required "DELIM" => "use DELIM instead of TAB for field delimiter",
            Fields: 'f' "fields" required "LIST" => "select only these fields;  also print any line
                that contains no delimiter character, unless
                the -s option is specified",
            Ignored: 'n' - none => "(ignored)",
            Complement: - "complement" none => "complement the set of selected bytes, characters
                or fields",
            OnlyDelimited: 's' "only-delimited" none => "do not print lines not containing delimiters",
            OutputDelimiter: - "output-delimiter" required "STRING" => "use STRING as the output delimiter
                the default is to use the input delimiter",
            ZeroTerminated: 'z' "zero-terminated" none => "line delimiter is NUL, not newline",
        ],
    }
}

/// Sorted, merged 1-based inclusive ranges (`usize::MAX` = open end), of
/// fields or else of byte/character positions, with GNU's errors.
fn parse_list(list: &str, fields: bool) -> Result<Vec<(usize, usize)>, String> {
    let what = if fields {
        "fields"
    } else {
        "byte/character positions"
    };
    let mut v = Vec::new();
    let mut offset = 0;
    for part in list.split([',', ' ']) {
        let start = offset;
        offset += part.len() + 1;
        if part.is_empty() {
            return Err(format!("{what} are numbered from 1"));
        }
        let num = |s: &str| -> Result<usize, String> {
            if !s.bytes().all(|b| b.is_ascii_digit()) {
                // GNU quotes the rest of the list from the first bad character.
                let bad = part
                    .find(|c: char| !c.is_ascii_digit() && c != '-')
                    .unwrap_or(0);
                let rest = common::quote_locale(&list[start + bad..]);
                let noun = if fields {
                    "field value"
                } else {
                    "byte/character position"
                };
                return Err(format!("invalid {noun} {rest}"));
            }
            let n = s.parse::<usize>().unwrap_or(usize::MAX);
            if n == 0 {
                return Err(format!("{what} are numbered from 1"));
            }
            Ok(n)
        };
        let (lo, hi) = match part.split_once('-') {
            None => {
                let n = num(part)?;
                (n, n)
            }
            Some(("", "")) => return Err("invalid range with no endpoint: -".into()),
            Some(("", b)) => (1, num(b)?),
            Some((a, "")) => (num(a)?, usize::MAX),
            Some((a, b)) => {
                let (x, y) = (num(a)?, num(b)?);
                if y < x {
                    return Err("invalid decreasing range".into());
                }
                (x, y)
            }
        };
        v.push((lo, hi));
    }
    v.sort();
    let mut merged: Vec<(usize, usize)> = Vec::new();
    for (lo, hi) in v {
        match merged.last_mut() {
            Some(last) if lo <= last.1.saturating_add(1) => last.1 = last.1.max(hi),
            _ => merged.push((lo, hi)),
        }
    }
    Ok(merged)
}

fn selected(ranges: &[(usize, usize)], i: usize, complement: bool) -> bool {
    ranges.iter().any(|(lo, hi)| *lo <= i && i <= *hi) != complement
}

/// What the options ask for.
struct CutOptions {
    /// `b`, `c` or `f`: which list was given.
    kind: char,
    /// The list, parsed.
    ranges: Vec<(usize, usize)>,
    /// `-d` (TAB by default).
    delim: u8,
    /// `--output-delimiter`, if given.
    out_delim: Option<Vec<u8>>,
    complement: bool,
    only_delimited: bool,
    /// The record terminator (`-z`: NUL).
    eol: u8,
}

/// The options, checked as GNU does; the error is a usage error's message.
fn parse_options(parsed: &Parsed<CutOpt>) -> Result<CutOptions, String> {
    let mut mode: Option<(char, String)> = None;
    let mut delim: Option<u8> = None;
    let (mut complement, mut only_delimited) = (false, false);
    let mut out_delim: Option<Vec<u8>> = None;
    let mut eol = b'\n';
    for (id, val) in &parsed.opts {
        let v = val.as_deref().unwrap_or("");
        match id {
            CutOpt::Bytes | CutOpt::Characters | CutOpt::Fields => {
                if mode.is_some() {
                    return Err("only one list may be specified".into());
                }
                let kind = match id {
                    CutOpt::Bytes => 'b',
                    CutOpt::Characters => 'c',
                    _ => 'f',
                };
                mode = Some((kind, v.to_string()));
            }
            CutOpt::Delimiter => {
                if v.len() > 1 {
                    return Err("the delimiter must be a single character".into());
                }
                delim = Some(v.as_bytes().first().copied().unwrap_or(b'\0'));
            }
            CutOpt::Ignored => {}
            CutOpt::Complement => complement = true,
            CutOpt::OnlyDelimited => only_delimited = true,
            CutOpt::OutputDelimiter => out_delim = Some(v.as_bytes().to_vec()),
            CutOpt::ZeroTerminated => eol = 0,
        }
    }
    let Some((kind, list)) = mode else {
        return Err("you must specify a list of bytes, characters, or fields".into());
    };
    if kind != 'f' && delim.is_some() {
        return Err("an input delimiter may be specified only when operating on fields".into());
    }
    if kind != 'f' && only_delimited {
        return Err(
            "suppressing non-delimited lines makes sense\n\tonly when operating on fields".into(),
        );
    }
    let ranges = parse_list(&list, kind == 'f')?;
    Ok(CutOptions {
        kind,
        ranges,
        delim: delim.unwrap_or(b'\t'),
        out_delim,
        complement,
        only_delimited,
        eol,
    })
}

/// `cut`
pub fn cut(ctx: &mut CommandCtx<'_>) -> i32 {
    let name = "cut";
    let Some(parsed) = CutOpt::TABLE.parse_or_usage(ctx) else {
        return 1;
    };
    let o = match parse_options(&parsed) {
        Ok(o) => o,
        Err(e) => {
            common::usage_error(ctx, &e);
            return 1;
        }
    };
    let eol = o.eol;
    let od = o.out_delim.clone().unwrap_or_else(|| vec![o.delim]);
    let files = if parsed.operands.is_empty() {
        vec!["-".to_string()]
    } else {
        parsed.operands.clone()
    };
    let mut status = 0;
    let mut out = BufWriter::with_capacity(64 * 1024, &mut *ctx.stdout);
    let mut line = Vec::new();
    for f in &files {
        let mut src = if f == "-" {
            LineSource::stream(&mut *ctx.stdin)
        } else {
            match common::read_file(ctx.fs, ctx.cwd, f) {
                Ok(data) => LineSource::buf(data),
                Err(e) => {
                    common::err(ctx.stderr, name, format!("{}: {e}", common::quotef(f)));
                    status = 1;
                    continue;
                }
            }
        };
        loop {
            line.clear();
            if !src.next_record(eol, &mut line) {
                break;
            }
            if line.last() == Some(&eol) {
                line.pop();
            }
            let r = if o.kind == 'f' {
                cut_fields(
                    &line,
                    &o.ranges,
                    o.complement,
                    o.delim,
                    &od,
                    o.only_delimited,
                    eol,
                    &mut out,
                )
            } else {
                cut_bytes(
                    &line,
                    &o.ranges,
                    o.complement,
                    o.out_delim.as_deref(),
                    eol,
                    &mut out,
                )
            };
            if r.is_err() {
                return 1;
            }
        }
        if let Some(e) = src.read_error() {
            common::err(ctx.stderr, name, format!("{}: {e}", common::quotef(f)));
            status = 1;
        }
    }
    if out.flush().is_err() {
        return 1;
    }
    status
}

fn cut_bytes(
    line: &[u8],
    ranges: &[(usize, usize)],
    complement: bool,
    od: Option<&[u8]>,
    eol: u8,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let mut prev: Option<usize> = None;
    for (i, b) in line.iter().enumerate() {
        if selected(ranges, i + 1, complement) {
            if let (Some(od), Some(p)) = (od, prev)
                && p + 1 != i
            {
                out.write_all(od)?;
            }
            out.write_all(&[*b])?;
            prev = Some(i);
        }
    }
    out.write_all(&[eol])
}

#[allow(clippy::too_many_arguments)]
fn cut_fields(
    line: &[u8],
    ranges: &[(usize, usize)],
    complement: bool,
    d: u8,
    od: &[u8],
    only_delimited: bool,
    eol: u8,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    if memchr::memchr(d, line).is_none() {
        if !only_delimited {
            out.write_all(line)?;
            out.write_all(&[eol])?;
        }
        return Ok(());
    }
    let mut first = true;
    for (i, field) in line.split(|b| *b == d).enumerate() {
        if selected(ranges, i + 1, complement) {
            if !first {
                out.write_all(od)?;
            }
            out.write_all(field)?;
            first = false;
        }
    }
    out.write_all(&[eol])
}
