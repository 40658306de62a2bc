//! `paste`: merge lines of files side by side (`-d LIST`, `-s`, `-z`).

use std::sync::Arc;

use super::common::{self, Arg, OptSpec, ParseMode, opt};
use crate::commands::CommandCtx;

pub(crate) const USAGE: &str = "\
Usage: paste [OPTION]... [FILE]...
Write lines consisting of the sequentially corresponding lines from
each FILE, separated by TABs, to standard output.

With no FILE, or when FILE is -, read standard input.

  -d, --delimiters=LIST   reuse characters from LIST instead of TABs
  -s, --serial            paste one file at a time instead of in parallel
  -z, --zero-terminated    line delimiter is NUL, not newline
      --help        display this help and exit
";

const SPEC: &[OptSpec] = &[
    opt("d", Some('d'), Some("delimiters"), Arg::Required),
    opt("s", Some('s'), Some("serial"), Arg::None),
    opt("z", Some('z'), Some("zero-terminated"), Arg::None),
    opt("help", None, Some("help"), Arg::None),
];

/// Parses a `-d` list: `\n \t \\ \0` escapes; `\0` is "no delimiter".
fn delims(s: &str) -> Vec<Option<u8>> {
    let b = s.as_bytes();
    let mut v = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 1 < b.len() {
            v.push(match b[i + 1] {
                b'n' => Some(b'\n'),
                b't' => Some(b'\t'),
                b'0' => None,
                c => Some(c),
            });
            i += 2;
        } else {
            v.push(Some(b[i]));
            i += 1;
        }
    }
    v
}

/// `paste`
pub fn paste(ctx: &mut CommandCtx<'_>) -> i32 {
    let p = match common::start(ctx, SPEC, ParseMode::default(), 1) {
        Ok(p) => p,
        Err(s) => return s,
    };
    let d = delims(p.last("d").unwrap_or("\t"));
    // An empty list means no delimiter.
    let d = if d.is_empty() { vec![None] } else { d };
    let eol = if p.has("z") { 0 } else { b'\n' };
    let names: Vec<String> = if p.operands.is_empty() {
        vec!["-".into()]
    } else {
        p.operands.clone()
    };
    // Standard input named several times is read once and dealt out line by line.
    let mut stdin_data: Option<Arc<Vec<u8>>> = None;
    let mut files: Vec<Vec<&[u8]>> = Vec::new();
    let mut datas: Vec<Arc<Vec<u8>>> = Vec::new();
    for n in &names {
        let data = if n == "-" {
            match &stdin_data {
                Some(d) => d.clone(),
                None => match common::read_stdin(ctx.stdin, ctx.fs.max_file_size()) {
                    Ok(d) => stdin_data.insert(Arc::new(d)).clone(),
                    Err(e) => {
                        common::err(ctx.stderr, "paste", format!("-: {e}"));
                        return 1;
                    }
                },
            }
        } else {
            match common::read_file(ctx.fs, ctx.cwd, n) {
                Ok(d) => d,
                Err(e) => {
                    common::err(ctx.stderr, "paste", format!("{}: {e}", common::quotef(n)));
                    return 1;
                }
            }
        };
        datas.push(data);
    }
    let stdin_count = names.iter().filter(|n| *n == "-").count();
    let mut stdin_lines: Vec<&[u8]> = Vec::new();
    if let Some(s) = &stdin_data {
        stdin_lines = common::records(s, eol).collect();
    }
    let mut stdin_seen = 0;
    for (i, n) in names.iter().enumerate() {
        if n == "-" && !p.has("s") {
            // Each `-` takes every stdin_count-th line, offset by its rank.
            let rank = stdin_seen;
            stdin_seen += 1;
            files.push(
                stdin_lines
                    .iter()
                    .skip(rank)
                    .step_by(stdin_count)
                    .copied()
                    .collect(),
            );
        } else if n == "-" {
            let first = stdin_seen == 0;
            stdin_seen += 1;
            files.push(if first {
                stdin_lines.clone()
            } else {
                Vec::new()
            });
        } else {
            files.push(common::records(&datas[i], eol).collect());
        }
    }
    let mut out = Vec::new();
    if p.has("s") {
        for f in &files {
            for (k, l) in f.iter().enumerate() {
                if k > 0
                    && let Some(c) = d[(k - 1) % d.len()]
                {
                    out.push(c);
                }
                out.extend_from_slice(l);
            }
            out.push(eol);
        }
    } else {
        let rows = files.iter().map(|f| f.len()).max().unwrap_or(0);
        for r in 0..rows {
            for (k, f) in files.iter().enumerate() {
                if k > 0
                    && let Some(c) = d[(k - 1) % d.len()]
                {
                    out.push(c);
                }
                if let Some(l) = f.get(r) {
                    out.extend_from_slice(l);
                }
            }
            out.push(eol);
        }
    }
    if ctx.stdout.write_all(&out).is_err() {
        return 1;
    }
    0
}
