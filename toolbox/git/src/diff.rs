//! Diffs the way git prints them: the changes between two sides (trees,
//! the index, the work tree) with exact rename detection, unified patches
//! byte-identical to git's (imara-diff's Myers with git's indent heuristic,
//! 3 lines of context, hunks joined across gaps of up to 6 lines, the
//! default function-name hunk headers), `--stat`, `--name-only` and
//! `--name-status`.

use std::collections::BTreeMap;
use std::io::Write;

use gix_hash::ObjectId;
use imara_diff::{Algorithm, Diff, InternedInput};

use crate::error::Result;
use crate::repo::Repo;
use crate::worktree;

/// One side's version of a path: mode and blob id; `work` when the bytes
/// are read from the work tree (its blob may not be stored).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Version {
    /// File mode.
    pub mode: u32,
    /// Blob id.
    pub id: ObjectId,
    /// Whether the content lives in the work tree, not the object store.
    pub work: bool,
}

/// The files of one side: path -> version.
pub type Side = BTreeMap<String, Version>;

/// A side made of stored blobs.
pub fn side_of(map: &BTreeMap<String, (u32, ObjectId)>) -> Side {
    map.iter()
        .map(|(p, (mode, id))| {
            (
                p.clone(),
                Version {
                    mode: *mode,
                    id: *id,
                    work: false,
                },
            )
        })
        .collect()
}

/// One changed path.
#[derive(Clone, Debug)]
pub struct Change {
    /// The path (the new one for a rename).
    pub path: String,
    /// The old path of a rename.
    pub from: Option<String>,
    /// The old version (`None`: added).
    pub old: Option<Version>,
    /// The new version (`None`: deleted).
    pub new: Option<Version>,
}

impl Change {
    /// git's status letter: A, D, M, R, T.
    pub fn letter(&self) -> char {
        match (&self.old, &self.new) {
            (None, _) => 'A',
            (_, None) => 'D',
            _ if self.from.is_some() => 'R',
            (Some(o), Some(n)) if (o.mode == 0o120000) != (n.mode == 0o120000) => 'T',
            _ => 'M',
        }
    }
}

/// The changes from `a` to `b`, limited to paths `keep` accepts, sorted by
/// path; exact renames paired when `renames`.
pub fn changes(a: &Side, b: &Side, keep: &dyn Fn(&str) -> bool, renames: bool) -> Vec<Change> {
    let mut out = Vec::new();
    // Both sides are sorted by path: one merge pass, no lookups.
    let mut ia = a.iter().peekable();
    let mut ib = b.iter().peekable();
    loop {
        let order = match (ia.peek(), ib.peek()) {
            (None, None) => break,
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (Some((pa, _)), Some((pb, _))) => pa.cmp(pb),
        };
        let (path, old, new) = match order {
            std::cmp::Ordering::Less => {
                let (p, va) = ia.next().expect("peeked");
                (p, Some(*va), None)
            }
            std::cmp::Ordering::Greater => {
                let (p, vb) = ib.next().expect("peeked");
                (p, None, Some(*vb))
            }
            std::cmp::Ordering::Equal => {
                let (p, va) = ia.next().expect("peeked");
                let (_, vb) = ib.next().expect("peeked");
                if vb.id == va.id && vb.mode == va.mode {
                    continue;
                }
                (p, Some(*va), Some(*vb))
            }
        };
        if keep(path) {
            out.push(Change {
                path: path.clone(),
                from: None,
                old,
                new,
            });
        }
    }
    if renames {
        pair_renames(&mut out);
    }
    out.sort_by(|x, y| x.path.cmp(&y.path));
    out
}

fn pair_renames(changes: &mut Vec<Change>) {
    let deleted: Vec<usize> = (0..changes.len())
        .filter(|&i| changes[i].new.is_none())
        .collect();
    let mut used = vec![false; changes.len()];
    let mut merged = Vec::new();
    for i in 0..changes.len() {
        if changes[i].old.is_some() {
            continue;
        }
        let Some(n) = changes[i].new else { continue };
        if let Some(&d) = deleted
            .iter()
            .find(|&&d| !used[d] && changes[d].old.is_some_and(|o| o.id == n.id && !n.work))
        {
            used[d] = true;
            used[i] = true;
            merged.push(Change {
                path: changes[i].path.clone(),
                from: Some(changes[d].path.clone()),
                old: changes[d].old,
                new: Some(n),
            });
        }
    }
    let mut i = 0;
    changes.retain(|_| {
        let keep = !used[i];
        i += 1;
        keep
    });
    changes.extend(merged);
}

/// Loads a version's bytes.
pub fn content(repo: &Repo<'_>, path: &str, v: &Version) -> Result<Vec<u8>> {
    if v.work {
        worktree::file_content(repo, path)
    } else {
        Ok(repo.read_kind(&v.id, gix_object::Kind::Blob)?)
    }
}

/// Whether git treats `data` as binary (a NUL in the first 8000 bytes).
pub fn is_binary(data: &[u8]) -> bool {
    data[..data.len().min(8000)].contains(&0)
}

/// The changed line ranges between `old` and `new`, as git's Myers with
/// the indent heuristic finds them.
pub fn hunks(old: &[u8], new: &[u8]) -> Vec<imara_diff::Hunk> {
    let input = InternedInput::new(old, new);
    let mut diff = Diff::compute(Algorithm::Myers, &input);
    diff.postprocess_lines(&input);
    diff.hunks().collect()
}

/// (insertions, deletions) between two texts.
pub fn line_counts(old: &[u8], new: &[u8]) -> (usize, usize) {
    let mut ins = 0;
    let mut del = 0;
    for h in hunks(old, new) {
        ins += h.after.len();
        del += h.before.len();
    }
    (ins, del)
}

fn split_lines(data: &[u8]) -> Vec<&[u8]> {
    data.split_inclusive(|&b| b == b'\n').collect()
}

/// git's default function-name rule: a line starting with a letter, `_` or `$`.
fn func_line(line: &[u8]) -> Option<&[u8]> {
    let first = *line.first()?;
    if first.is_ascii_alphabetic() || first == b'_' || first == b'$' {
        let mut l = line;
        while let Some((&last, rest)) = l.split_last() {
            if last.is_ascii_whitespace() {
                l = rest;
            } else {
                break;
            }
        }
        Some(&l[..l.len().min(80)])
    } else {
        None
    }
}

/// The hunks of a unified diff with `context` lines (no file headers).
pub fn unified(old: &[u8], new: &[u8], context: u32, out: &mut Vec<u8>) {
    let a = split_lines(old);
    let b = split_lines(new);
    let hs = hunks(old, new);
    let mut i = 0;
    while i < hs.len() {
        // Join hunks whose gap is at most twice the context.
        let mut j = i;
        while j + 1 < hs.len() && hs[j + 1].before.start - hs[j].before.end <= 2 * context {
            j += 1;
        }
        let start_a = hs[i].before.start.saturating_sub(context);
        let start_b = hs[i].after.start - (hs[i].before.start - start_a);
        let end_a = (hs[j].before.end + context).min(a.len() as u32);
        let end_b = hs[j].after.end + (end_a - hs[j].before.end);
        let len_a = end_a - start_a;
        let len_b = end_b - start_b;
        let range = |start: u32, len: u32| -> String {
            let first = if len == 0 { start } else { start + 1 };
            if len == 1 {
                format!("{first}")
            } else {
                format!("{first},{len}")
            }
        };
        out.extend_from_slice(
            format!(
                "@@ -{} +{} @@",
                range(start_a, len_a),
                range(start_b, len_b)
            )
            .as_bytes(),
        );
        if let Some(f) = (0..start_a as usize).rev().find_map(|k| func_line(a[k])) {
            out.push(b' ');
            out.extend_from_slice(f);
        }
        out.push(b'\n');
        let mut pa = start_a;
        for h in &hs[i..=j] {
            while pa < h.before.start {
                line(out, b' ', a[pa as usize]);
                pa += 1;
            }
            for k in h.before.clone() {
                line(out, b'-', a[k as usize]);
            }
            for k in h.after.clone() {
                line(out, b'+', b[k as usize]);
            }
            pa = h.before.end;
        }
        while pa < end_a {
            line(out, b' ', a[pa as usize]);
            pa += 1;
        }
        i = j + 1;
    }
}

fn line(out: &mut Vec<u8>, sign: u8, text: &[u8]) {
    out.push(sign);
    out.extend_from_slice(text);
    if !text.ends_with(b"\n") {
        out.extend_from_slice(b"\n\\ No newline at end of file\n");
    }
}

/// Writes one change as a git patch (`diff --git` header and hunks).
pub fn write_patch(repo: &Repo<'_>, c: &Change, out: &mut Vec<u8>) -> Result<()> {
    let old_path = c.from.as_deref().unwrap_or(&c.path);
    let _ = writeln!(out, "diff --git a/{old_path} b/{}", c.path);
    let abbrev = |v: Option<&Version>| match v {
        Some(v) => repo.abbrev(&v.id),
        None => "0000000".to_string(),
    };
    match (&c.old, &c.new) {
        (None, Some(n)) => {
            let _ = writeln!(out, "new file mode {:o}", n.mode);
            let _ = writeln!(out, "index 0000000..{}", abbrev(Some(n)));
        }
        (Some(o), None) => {
            let _ = writeln!(out, "deleted file mode {:o}", o.mode);
            let _ = writeln!(out, "index {}..0000000", abbrev(Some(o)));
        }
        (Some(o), Some(n)) => {
            if c.from.is_some() {
                let sim = if o.id == n.id { 100 } else { 0 };
                let _ = writeln!(out, "similarity index {sim}%");
                let _ = writeln!(out, "rename from {old_path}");
                let _ = writeln!(out, "rename to {}", c.path);
            }
            if o.mode != n.mode {
                let _ = writeln!(out, "old mode {:o}", o.mode);
                let _ = writeln!(out, "new mode {:o}", n.mode);
            }
            if o.id != n.id {
                if o.mode == n.mode {
                    let _ = writeln!(
                        out,
                        "index {}..{} {:o}",
                        abbrev(Some(o)),
                        abbrev(Some(n)),
                        o.mode
                    );
                } else {
                    let _ = writeln!(out, "index {}..{}", abbrev(Some(o)), abbrev(Some(n)));
                }
            }
        }
        (None, None) => {}
    }
    let old = match &c.old {
        Some(v) => content(repo, old_path, v)?,
        None => Vec::new(),
    };
    let new = match &c.new {
        Some(v) => content(repo, &c.path, v)?,
        None => Vec::new(),
    };
    if c.old.is_some() && c.new.is_some() && c.old.map(|v| v.id) == c.new.map(|v| v.id) {
        return Ok(());
    }
    if is_binary(&old) || is_binary(&new) {
        let a = if c.old.is_some() {
            format!("a/{old_path}")
        } else {
            "/dev/null".into()
        };
        let b = if c.new.is_some() {
            format!("b/{}", c.path)
        } else {
            "/dev/null".into()
        };
        let _ = writeln!(out, "Binary files {a} and {b} differ");
        return Ok(());
    }
    if old.is_empty() && new.is_empty() {
        return Ok(());
    }
    match &c.old {
        Some(_) => {
            let _ = writeln!(out, "--- a/{old_path}");
        }
        None => out.extend_from_slice(b"--- /dev/null\n"),
    }
    match &c.new {
        Some(_) => {
            let _ = writeln!(out, "+++ b/{}", c.path);
        }
        None => out.extend_from_slice(b"+++ /dev/null\n"),
    }
    unified(&old, &new, 3, out);
    Ok(())
}

/// Per-file numbers of a `--stat`.
pub struct StatLine {
    /// The name shown (`old => new` for renames).
    pub name: String,
    /// Insertions and deletions; `None` for a binary file.
    pub counts: Option<(usize, usize)>,
    /// Old and new sizes, for binary files.
    pub sizes: (usize, usize),
}

/// Counts for each change.
pub fn stat_lines(repo: &Repo<'_>, changes: &[Change]) -> Result<Vec<StatLine>> {
    let mut out = Vec::new();
    for c in changes {
        let old_path = c.from.as_deref().unwrap_or(&c.path);
        let old = match &c.old {
            Some(v) => content(repo, old_path, v)?,
            None => Vec::new(),
        };
        let new = match &c.new {
            Some(v) => content(repo, &c.path, v)?,
            None => Vec::new(),
        };
        let name = match &c.from {
            Some(f) => rename_name(f, &c.path),
            None => c.path.clone(),
        };
        let counts = if is_binary(&old) || is_binary(&new) {
            None
        } else {
            Some(line_counts(&old, &new))
        };
        out.push(StatLine {
            name,
            counts,
            sizes: (old.len(), new.len()),
        });
    }
    Ok(out)
}

/// git's `a => b` / `dir/{a => b}` rename name.
pub fn rename_name(from: &str, to: &str) -> String {
    let fb = from.as_bytes();
    let tb = to.as_bytes();
    let mut pre = 0;
    for i in 0..fb.len().min(tb.len()) {
        if fb[i] != tb[i] {
            break;
        }
        if fb[i] == b'/' {
            pre = i + 1;
        }
    }
    let mut suf = 0;
    for i in 1..=fb.len().min(tb.len()) {
        if fb[fb.len() - i] != tb[tb.len() - i] || fb.len() - i < pre || tb.len() - i < pre {
            break;
        }
        if fb[fb.len() - i] == b'/' {
            suf = i;
        }
    }
    if pre == 0 && suf == 0 {
        return format!("{from} => {to}");
    }
    format!(
        "{}{{{} => {}}}{}",
        &from[..pre],
        &from[pre..fb.len() - suf],
        &to[pre..tb.len() - suf],
        &from[fb.len() - suf..]
    )
}

/// The ` N files changed, I insertions(+), D deletions(-)` line.
pub fn summary(files: usize, ins: usize, del: usize) -> String {
    let mut s = format!(" {files} file{} changed", if files == 1 { "" } else { "s" });
    if ins > 0 || del == 0 {
        s.push_str(&format!(
            ", {ins} insertion{}(+)",
            if ins == 1 { "" } else { "s" }
        ));
    }
    if del > 0 || ins == 0 {
        s.push_str(&format!(
            ", {del} deletion{}(-)",
            if del == 1 { "" } else { "s" }
        ));
    }
    s
}

/// Writes a `--stat` block the way git lays it out when not on a
/// terminal: 80 columns, the graph scaled when it does not fit, long names
/// cut from the left behind `...`.
pub fn write_stat(lines: &[StatLine], out: &mut Vec<u8>) {
    if lines.is_empty() {
        return;
    }
    let width = 80usize;
    let mut name_width = lines
        .iter()
        .map(|l| l.name.chars().count())
        .max()
        .unwrap_or(0);
    let max_change = lines
        .iter()
        .map(|l| l.counts.map_or(0, |(i, d)| i + d))
        .max()
        .unwrap_or(0);
    let has_bin = lines.iter().any(|l| l.counts.is_none());
    let mut number_width = max_change.to_string().len();
    if has_bin && number_width < 3 {
        number_width = 3;
    }
    let mut graph_width = max_change;
    if width < name_width + number_width + 6 + graph_width {
        let limit = (width * 3 / 8).saturating_sub(number_width + 6);
        if graph_width > limit {
            graph_width = limit.max(6);
        }
        let rest = width.saturating_sub(number_width + 6 + graph_width);
        if name_width > rest {
            name_width = rest;
        } else {
            graph_width = width - number_width - 6 - name_width;
        }
    }
    let scale = |n: usize| -> usize {
        if n == 0 {
            0
        } else {
            1 + n * (graph_width.saturating_sub(1)) / max_change
        }
    };
    let (mut ins_total, mut del_total) = (0, 0);
    for l in lines {
        let chars: Vec<char> = l.name.chars().collect();
        let name = if chars.len() > name_width {
            let keep = name_width.saturating_sub(3);
            let tail: String = chars[chars.len() - keep..].iter().collect();
            let tail = match tail.find('/') {
                Some(i) => tail[i..].to_string(),
                None => tail,
            };
            format!("...{tail}")
        } else {
            l.name.clone()
        };
        let pad = name_width.saturating_sub(name.chars().count());
        match l.counts {
            None => {
                let _ = writeln!(
                    out,
                    " {name}{} | {:>nw$} {} -> {} bytes",
                    " ".repeat(pad),
                    "Bin",
                    l.sizes.0,
                    l.sizes.1,
                    nw = number_width
                );
            }
            Some((ins, del)) => {
                ins_total += ins;
                del_total += del;
                let (mut add, mut rem) = (ins, del);
                if graph_width <= max_change {
                    let mut total = scale(add + rem);
                    if total < 2 && add > 0 && rem > 0 {
                        total = 2;
                    }
                    if add < rem {
                        add = scale(add);
                        rem = total - add;
                    } else {
                        rem = scale(rem);
                        add = total - rem;
                    }
                }
                let graph = format!("{}{}", "+".repeat(add), "-".repeat(rem));
                let sep = if graph.is_empty() { "" } else { " " };
                let _ = writeln!(
                    out,
                    " {name}{} | {:>nw$}{sep}{graph}",
                    " ".repeat(pad),
                    ins + del,
                    nw = number_width
                );
            }
        }
    }
    let _ = writeln!(out, "{}", summary(lines.len(), ins_total, del_total));
}
