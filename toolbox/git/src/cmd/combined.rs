//! The combined diff `git diff` prints for an unmerged path (`diff --cc`):
//! the work-tree file against both sides of the conflict (stages 2 and 3)
//! at once, one sign column per side, only the hunks where the file
//! differs from both (git's dense form).

use std::io::Write;

use super::G;
use crate::diff;
use crate::error::Result;
use crate::repo::{IndexEntry, Repo};

fn lines(data: &[u8]) -> Vec<&[u8]> {
    data.split_inclusive(|&b| b == b'\n').collect()
}

/// How one side lines up with the result: which result lines it lacks
/// (`added`) and which of its lines the result lacks, by the result line
/// they come before (`removed`).
struct Alignment<'d> {
    added: Vec<bool>,
    removed: Vec<Vec<&'d [u8]>>,
}

fn align<'d>(side: &'d [u8], result: &[u8], check: diff::Check<'_>) -> Result<Alignment<'d>> {
    let side_lines = lines(side);
    let n = lines(result).len();
    let mut added = vec![false; n];
    let mut removed: Vec<Vec<&[u8]>> = vec![Vec::new(); n + 1];
    for h in diff::hunks(side, result, check)? {
        for r in h.after.clone() {
            added[r as usize] = true;
        }
        for k in h.before.clone() {
            removed[h.after.start as usize].push(side_lines[k as usize]);
        }
    }
    Ok(Alignment { added, removed })
}

/// The side's line count before result line `r` (its removed lines at
/// `r` not counted).
fn side_before(a: &Alignment<'_>, r: usize) -> usize {
    let kept = (0..r).filter(|&k| !a.added[k]).count();
    let gone: usize = a.removed[..r].iter().map(Vec::len).sum();
    kept + gone
}

fn push_line(out: &mut Vec<u8>, signs: &str, text: &[u8]) {
    out.extend_from_slice(signs.as_bytes());
    out.extend_from_slice(text);
    if !text.ends_with(b"\n") {
        out.extend_from_slice(b"\n\\ No newline at end of file\n");
    }
}

/// Writes `diff --cc PATH` for the unmerged `path`; nothing when it lacks
/// a side or the file.
pub fn write(
    g: &G<'_, '_>,
    repo: &Repo<'_>,
    index: &[IndexEntry],
    path: &str,
    out: &mut Vec<u8>,
) -> Result<()> {
    let stage = |s: u8| index.iter().find(|e| e.path == path && e.stage == s);
    let (Some(ours), Some(theirs)) = (stage(2), stage(3)) else {
        let _ = writeln!(out, "* Unmerged path {path}");
        return Ok(());
    };
    let Ok(result) = crate::worktree::file_content(repo, path) else {
        let _ = writeln!(out, "* Unmerged path {path}");
        return Ok(());
    };
    let sides = [
        repo.read_kind(&ours.id, gix_object::Kind::Blob)?,
        repo.read_kind(&theirs.id, gix_object::Kind::Blob)?,
    ];
    let check = g.checker();
    let al = [
        align(&sides[0], &result, &check)?,
        align(&sides[1], &result, &check)?,
    ];
    let res = lines(&result);
    let n = res.len();
    // Interesting: result lines new to both sides, and places where both
    // sides lost lines.
    let interesting: Vec<usize> = (0..=n)
        .filter(|&r| {
            (r < n && al[0].added[r] && al[1].added[r])
                || (!al[0].removed[r].is_empty() && !al[1].removed[r].is_empty())
        })
        .collect();
    let _ = writeln!(out, "diff --cc {path}");
    let _ = writeln!(
        out,
        "index {},{}..0000000",
        repo.abbrev(&ours.id),
        repo.abbrev(&theirs.id)
    );
    if interesting.is_empty() {
        return Ok(());
    }
    let _ = writeln!(out, "--- a/{path}\n+++ b/{path}");
    let context = 3usize;
    let mut groups: Vec<(usize, usize)> = Vec::new();
    for &r in &interesting {
        let (s, e) = (r.saturating_sub(context), (r + 1 + context).min(n));
        match groups.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => groups.push((s, e)),
        }
    }
    for (s, e) in groups {
        let range = |a: &Alignment<'_>| {
            let (b0, b1) = (
                side_before(a, s),
                side_before(a, e) + if e == n { a.removed[n].len() } else { 0 },
            );
            format!("-{},{}", if b1 > b0 { b0 + 1 } else { b0 }, b1 - b0)
        };
        let _ = writeln!(
            out,
            "@@@ {} {} +{},{} @@@",
            range(&al[0]),
            range(&al[1]),
            if e > s { s + 1 } else { s },
            e - s
        );
        let last = if e == n { n + 1 } else { e };
        for r in s..last {
            let (g0, g1) = (&al[0].removed[r], &al[1].removed[r]);
            if !g0.is_empty() && g0 == g1 {
                for l in g0 {
                    push_line(out, "--", l);
                }
            } else {
                for l in g0 {
                    push_line(out, "- ", l);
                }
                for l in g1 {
                    push_line(out, " -", l);
                }
            }
            if let Some(line) = res.get(r).filter(|_| r < e) {
                let c = |a: &Alignment<'_>| if a.added[r] { '+' } else { ' ' };
                let signs = format!("{}{}", c(&al[0]), c(&al[1]));
                push_line(out, &signs, line);
            }
        }
    }
    Ok(())
}
