//! Output formats of `diff`: normal (`3c3`), unified (`@@ -1,3 +1,3 @@`) and
//! brief (`Files a and b differ`).

use super::Opts;
use super::lcs::{Op, diff};
use crate::commands::CommandCtx;

/// Splits data into lines, each with its `\n` (the last may lack it).
fn lines(d: &[u8]) -> Vec<&[u8]> {
    d.split_inclusive(|b| *b == b'\n').collect()
}

/// The comparison key of a line under `-i -w -b`.
fn key(l: &[u8], o: &Opts) -> Vec<u8> {
    let mut v: Vec<u8> = if o.ignore_case {
        l.to_ascii_lowercase()
    } else {
        l.to_vec()
    };
    if o.ignore_trailing && !o.ignore_all_space {
        let nl = v.last() == Some(&b'\n');
        while v.last().is_some_and(|c| c.is_ascii_whitespace()) {
            v.pop();
        }
        if nl {
            v.push(b'\n');
        }
    }
    if o.ignore_all_space {
        v.retain(|c| !c.is_ascii_whitespace() || *c == b'\n');
    } else if o.ignore_space_change {
        let mut out = Vec::new();
        let mut sp = false;
        for &c in &v {
            if c != b'\n' && c.is_ascii_whitespace() {
                sp = true;
            } else {
                if sp && c != b'\n' {
                    out.push(b' ');
                }
                sp = false;
                out.push(c);
            }
        }
        v = out;
    }
    if o.ignore_all_space || o.ignore_space_change {
        // A missing final newline is whitespace too.
        if v.last() != Some(&b'\n') {
            v.push(b'\n');
        }
    }
    v
}

/// Writes the difference of two files; true when they differ.
pub fn emit(
    ctx: &mut CommandCtx<'_>,
    o: &Opts,
    (an, ad): (&str, &[u8]),
    (bn, bd): (&str, &[u8]),
    header: Option<&str>,
) -> bool {
    let (la, lb) = (lines(ad), lines(bd));
    let ka: Vec<Vec<u8>> = la.iter().map(|l| key(l, o)).collect();
    let kb: Vec<Vec<u8>> = lb.iter().map(|l| key(l, o)).collect();
    let ops = diff(&ka, &kb);
    let mut hunks = changes(&ops);
    if o.ignore_blank {
        hunks.retain(|h| {
            !(h.a.clone().all(|i| la[i].trim_ascii().is_empty())
                && h.b.clone().all(|j| lb[j].trim_ascii().is_empty()))
        });
    }
    if hunks.is_empty() {
        return false;
    }
    let out = &mut *ctx.stdout;
    if o.brief {
        let _ = writeln!(out, "Files {an} and {bn} differ");
        return true;
    }
    if let Some(h) = header {
        let _ = writeln!(out, "{h}");
    }
    let mut buf = Vec::new();
    match o.unified {
        None => normal(&mut buf, &hunks, &la, &lb),
        Some(ctxn) => {
            let label = |i: usize, n: &str| -> String {
                if let Some(l) = o.labels.get(i) {
                    return l.clone();
                }
                let t = ctx.fs.metadata(&ctx.path(n)).map(|m| m.mtime).ok();
                let zone = crate::time::Zone::from_env(ctx.env);
                match t {
                    Some(t) => format!("{n}\t{}", stamp(t.secs, t.nanos, &zone)),
                    None => format!("{n}\t{}", stamp(0, 0, &zone)),
                }
            };
            buf.extend(format!("--- {}\n+++ {}\n", label(0, an), label(1, bn)).bytes());
            unified(&mut buf, &hunks, &la, &lb, ctxn);
        }
    }
    let _ = ctx.stdout.write_all(&buf);
    true
}

/// One change: a range of `a` replaced by a range of `b`.
#[derive(Clone)]
pub struct Change {
    a: std::ops::Range<usize>,
    b: std::ops::Range<usize>,
}

fn changes(ops: &[Op]) -> Vec<Change> {
    let mut v = Vec::new();
    let (mut i, mut j) = (0, 0);
    let mut k = 0;
    while k < ops.len() {
        match ops[k] {
            Op::Equal(x, y) => {
                i = x + 1;
                j = y + 1;
                k += 1;
            }
            _ => {
                let (sa, sb) = (i, j);
                while k < ops.len() && !matches!(ops[k], Op::Equal(..)) {
                    match ops[k] {
                        Op::Delete(_) => i += 1,
                        Op::Insert(_) => j += 1,
                        Op::Equal(..) => {}
                    }
                    k += 1;
                }
                v.push(Change { a: sa..i, b: sb..j });
            }
        }
    }
    v
}

fn line_out(buf: &mut Vec<u8>, prefix: &str, l: &[u8]) {
    buf.extend_from_slice(prefix.as_bytes());
    buf.extend_from_slice(l);
    if l.last() != Some(&b'\n') {
        buf.extend_from_slice(b"\n\\ No newline at end of file\n");
    }
}

fn range(r: &std::ops::Range<usize>) -> String {
    if r.len() <= 1 {
        // An empty range names the line before it.
        if r.is_empty() {
            r.start.to_string()
        } else {
            (r.start + 1).to_string()
        }
    } else {
        format!("{},{}", r.start + 1, r.end)
    }
}

fn normal(buf: &mut Vec<u8>, hunks: &[Change], la: &[&[u8]], lb: &[&[u8]]) {
    for h in hunks {
        let op = match (h.a.is_empty(), h.b.is_empty()) {
            (true, _) => 'a',
            (_, true) => 'd',
            _ => 'c',
        };
        buf.extend(format!("{}{op}{}\n", range(&h.a), range(&h.b)).bytes());
        for i in h.a.clone() {
            line_out(buf, "< ", la[i]);
        }
        if op == 'c' {
            buf.extend_from_slice(b"---\n");
        }
        for j in h.b.clone() {
            line_out(buf, "> ", lb[j]);
        }
    }
}

fn urange(start: usize, len: usize) -> String {
    match len {
        0 => format!("{start},0"),
        1 => format!("{}", start + 1),
        _ => format!("{},{len}", start + 1),
    }
}

fn unified(buf: &mut Vec<u8>, hunks: &[Change], la: &[&[u8]], lb: &[&[u8]], n: usize) {
    let mut k = 0;
    while k < hunks.len() {
        // Merge changes whose contexts touch.
        let mut end = k;
        while end + 1 < hunks.len()
            && hunks[end + 1].a.start - hunks[end].a.end <= n.saturating_mul(2)
        {
            end += 1;
        }
        let first = &hunks[k];
        let last = &hunks[end];
        let a0 = first.a.start.saturating_sub(n);
        let b0 = first.b.start - (first.a.start - a0);
        let a1 = last.a.end.saturating_add(n).min(la.len());
        let b1 = last.b.end + (a1 - last.a.end);
        buf.extend(format!("@@ -{} +{} @@\n", urange(a0, a1 - a0), urange(b0, b1 - b0)).bytes());
        let mut ai = a0;
        for h in &hunks[k..=end] {
            for l in &la[ai..h.a.start] {
                line_out(buf, " ", l);
            }
            for i in h.a.clone() {
                line_out(buf, "-", la[i]);
            }
            for j in h.b.clone() {
                line_out(buf, "+", lb[j]);
            }
            ai = h.a.end;
        }
        for l in &la[ai..a1] {
            line_out(buf, " ", l);
        }
        k = end + 1;
    }
}

/// `2024-01-01 00:00:00.000000000 +0000`, in local time.
fn stamp(secs: i64, nanos: u32, zone: &crate::time::Zone) -> String {
    crate::time::strftime("%4Y-%m-%d %H:%M:%S.%N %z", &zone.local(secs, nanos))
}
