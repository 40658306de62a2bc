//! `column` (util-linux): tables (`-t`, `-s SEPS`, `-o SEP`, `-N NAMES`,
//! `-R COLS`) and filling columns to a width (`-c`, `-x`).

use super::common::{self, Arg, OptSpec, ParseMode, opt};
use crate::commands::CommandCtx;
use crate::fs::FsError;

pub(crate) const USAGE: &str = "
Usage:
 column [options] [<file>...]

Columnate lists.

Options:
 -t, --table                      create a table
 -N, --table-columns <names>      comma separated columns names
 -R, --table-right <columns>      right align text in these columns
 -s, --separator <string>         possible table delimiters
 -o, --output-separator <string>  columns separator for table output
                                    (default is two spaces)
 -c, --output-width <width>       width of output in number of characters
 -x, --fillrows                   fill rows before columns
 -h, --help                       display this help
";

const SPEC: &[OptSpec] = &[
    opt("t", Some('t'), Some("table"), Arg::None),
    opt("N", Some('N'), Some("table-columns"), Arg::Required),
    opt("R", Some('R'), Some("table-right"), Arg::Required),
    opt("s", Some('s'), Some("separator"), Arg::Required),
    opt("o", Some('o'), Some("output-separator"), Arg::Required),
    opt("c", Some('c'), Some("output-width"), Arg::Required),
    opt("x", Some('x'), Some("fillrows"), Arg::None),
    opt("n", Some('n'), Some("table-name"), Arg::Required),
    opt("e", Some('e'), Some("table-header-repeat"), Arg::None),
    opt("help", Some('h'), Some("help"), Arg::None),
];

/// `column`
pub fn column(ctx: &mut CommandCtx<'_>) -> i32 {
    let p = match common::start(ctx, SPEC, ParseMode::default(), 1) {
        Ok(p) => p,
        Err(s) => return s,
    };
    if p.has("help") {
        let _ = ctx.stdout.write_all(USAGE.as_bytes());
        return 0;
    }
    // util-linux's words: the name bare; a read that fails is unnamed.
    let (inputs, ok) = common::read_operands_saying(ctx, &p.operands, |name, e| match e {
        FsError::IsADirectory => format!("read failed: {e}"),
        _ => format!("{name}: {e}"),
    });
    let mut lines: Vec<&[u8]> = Vec::new();
    for (_, d) in &inputs {
        lines.extend(common::records(d, b'\n'));
    }
    let mut out = Vec::new();
    if p.has("t") {
        let seps: Option<Vec<u8>> = p.last("s").map(|s| s.as_bytes().to_vec());
        let osep = p.last("o").unwrap_or("  ").as_bytes().to_vec();
        let mut rows: Vec<Vec<&[u8]>> = Vec::new();
        if let Some(names) = p.last("N") {
            rows.push(names.split(',').map(str::as_bytes).collect());
        }
        for l in lines.iter().filter(|l| !l.is_empty()) {
            let cells: Vec<&[u8]> = match &seps {
                Some(s) => l.split(|b| s.contains(b)).collect(),
                None => l
                    .split(|b| *b == b' ' || *b == b'\t')
                    .filter(|c| !c.is_empty())
                    .collect(),
            };
            rows.push(cells);
        }
        let ncols = rows.iter().map(Vec::len).max().unwrap_or(0);
        let mut widths = vec![0usize; ncols];
        for r in &rows {
            for (k, c) in r.iter().enumerate() {
                widths[k] = widths[k].max(c.len());
            }
        }
        let right: Vec<usize> = p
            .last("R")
            .map(|r| {
                r.split(',')
                    .filter_map(|x| x.parse::<usize>().ok())
                    .map(|x| x.saturating_sub(1))
                    .collect()
            })
            .unwrap_or_default();
        for r in &rows {
            // Short rows are padded with empty cells to the table's width.
            for (k, w) in widths.iter().enumerate() {
                let c: &[u8] = r.get(k).copied().unwrap_or(b"");
                let last = k + 1 == ncols;
                if right.contains(&k) {
                    out.extend(std::iter::repeat_n(b' ', w - c.len()));
                    out.extend_from_slice(c);
                } else {
                    out.extend_from_slice(c);
                    if !last {
                        out.extend(std::iter::repeat_n(b' ', w - c.len()));
                    }
                }
                if !last {
                    out.extend_from_slice(&osep);
                }
            }
            out.push(b'\n');
        }
    } else {
        let width: usize = p.last("c").and_then(|c| c.parse().ok()).unwrap_or(80);
        let items: Vec<&[u8]> = lines.into_iter().filter(|l| !l.is_empty()).collect();
        if !items.is_empty() {
            let maxlen = items.iter().map(|i| i.len()).max().unwrap_or(0);
            let colw = (maxlen + 8) & !7;
            let cols = (width / colw).max(1);
            let rows = items.len().div_ceil(cols);
            let fill_rows = p.has("x");
            for r in 0..rows {
                let row: Vec<&[u8]> = (0..cols)
                    .filter_map(|c| {
                        let idx = if fill_rows {
                            r * cols + c
                        } else {
                            c * rows + r
                        };
                        items.get(idx).copied()
                    })
                    .collect();
                for (k, it) in row.iter().enumerate() {
                    out.extend_from_slice(it);
                    if k + 1 < row.len() {
                        // Pad with tabs to the next column.
                        let mut col = it.len();
                        while col < colw {
                            out.push(b'\t');
                            col = (col + 8) & !7;
                        }
                    }
                }
                out.push(b'\n');
            }
        }
    }
    if ctx.stdout.write_all(&out).is_err() {
        return 1;
    }
    if ok { 0 } else { 1 }
}
