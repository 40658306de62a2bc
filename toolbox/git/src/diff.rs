//! Diffs the way git prints them: the changes between two sides (trees,
//! the index, the work tree) with exact rename detection, unified patches
//! byte-identical to git's (imara-diff's Myers with git's indent heuristic,
//! 3 lines of context, hunks joined across gaps of up to 6 lines, the
//! default function-name hunk headers), `--stat`, `--name-only` and
//! `--name-status`.

use std::collections::BTreeMap;
use std::io::Write;

use gix_hash::ObjectId;
use imara_diff::{Algorithm, Diff, IndentHeuristic, IndentLevel, InternedInput};

use crate::error::Result;
use crate::repo::Repo;
use crate::slide::Changes;
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
    /// How similar a rename's two sides are, in percent (git's similarity
    /// index); 0 when this is not a rename.
    pub similarity: u8,
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
                similarity: 0,
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
                similarity: 100,
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

/// git's scale of similarity scores (diffcore.h `MAX_SCORE`).
const MAX_SCORE: u64 = 60000;
/// The least score that makes a rename (50%, git's default for `-M`).
const MIN_RENAME_SCORE: u64 = 30000;
/// Past this many (deleted x added) pairs git gives up on inexact renames
/// (its `diff.renameLimit` of 1000, squared).
const RENAME_PAIR_LIMIT: usize = 1000 * 1000;

/// [`changes`] with renames paired the way git pairs them by default:
/// exact ones first, then deleted and added regular files whose content is
/// at least 50% alike (git's diffcore-rename scoring).
pub fn changes_with_renames(
    repo: &Repo<'_>,
    a: &Side,
    b: &Side,
    keep: &dyn Fn(&str) -> bool,
    check: Check<'_>,
) -> Result<Vec<Change>> {
    let mut out = changes(a, b, keep, true);
    check()?;
    pair_similar(repo, &mut out, check)?;
    Ok(out)
}

/// git's span hashes of `data` (diffcore-delta.c `hash_chars`): the text
/// is cut after each newline or 64 bytes; each span's hash counts its
/// length. Sorted by hash, equal hashes summed.
fn span_hashes(data: &[u8]) -> Vec<(u32, u64)> {
    const HASHBASE: u32 = 107927;
    let is_text = !is_binary(data);
    let mut spans: Vec<(u32, u64)> = Vec::new();
    let (mut accum1, mut accum2, mut n) = (0u32, 0u32, 0u64);
    let mut i = 0;
    while i < data.len() {
        let c = data[i] as u32;
        i += 1;
        // A CR of a CRLF in text is not counted.
        if is_text && c == u32::from(b'\r') && data.get(i) == Some(&b'\n') {
            continue;
        }
        let old1 = accum1;
        accum1 = (accum1 << 7) ^ (accum2 >> 25);
        accum2 = (accum2 << 7) ^ (old1 >> 25);
        accum1 = accum1.wrapping_add(c);
        n += 1;
        if n < 64 && c != u32::from(b'\n') {
            continue;
        }
        let h = accum1.wrapping_add(accum2.wrapping_mul(0x61)) % HASHBASE;
        spans.push((h, n));
        n = 0;
        accum1 = 0;
        accum2 = 0;
    }
    if n > 0 {
        let h = accum1.wrapping_add(accum2.wrapping_mul(0x61)) % HASHBASE;
        spans.push((h, n));
    }
    spans.sort_unstable_by_key(|s| s.0);
    let mut merged: Vec<(u32, u64)> = Vec::with_capacity(spans.len());
    for (h, n) in spans {
        match merged.last_mut() {
            Some(last) if last.0 == h => last.1 += n,
            _ => merged.push((h, n)),
        }
    }
    merged
}

/// The bytes of `src` found again in `dst` (diffcore-delta.c
/// `diffcore_count_changes`, its `src_copied`).
fn copied_bytes(src: &[(u32, u64)], dst: &[(u32, u64)]) -> u64 {
    let mut copied = 0;
    let mut d = 0;
    for &(h, src_n) in src {
        while d < dst.len() && dst[d].0 < h {
            d += 1;
        }
        if d < dst.len() && dst[d].0 == h {
            copied += src_n.min(dst[d].1);
            d += 1;
        }
    }
    copied
}

/// Pairs the remaining deleted and added regular files by similarity, as
/// git's diffcore-rename does: every pair scored (at most 4 candidates kept
/// per added file), best scores first (a same file name wins a tie), each
/// file in at most one rename. `check` is asked per file loaded and per
/// added file scored (a row of up to 1,000 pairs).
fn pair_similar(repo: &Repo<'_>, changes: &mut Vec<Change>, check: Check<'_>) -> Result<()> {
    let regular = |v: &Version| v.mode == 0o100644 || v.mode == 0o100755;
    let deleted: Vec<usize> = (0..changes.len())
        .filter(|&i| changes[i].new.is_none() && changes[i].old.is_some_and(|v| regular(&v)))
        .collect();
    let added: Vec<usize> = (0..changes.len())
        .filter(|&i| changes[i].old.is_none() && changes[i].new.is_some_and(|v| regular(&v)))
        .collect();
    if deleted.is_empty()
        || added.is_empty()
        || deleted.len().saturating_mul(added.len()) > RENAME_PAIR_LIMIT
    {
        return Ok(());
    }
    let load = |i: usize, v: &Version| -> Result<(u64, Vec<(u32, u64)>)> {
        let data = content(repo, &changes[i].path, v)?;
        Ok((data.len() as u64, span_hashes(&data)))
    };
    let mut src_data = Vec::with_capacity(deleted.len());
    for &i in &deleted {
        check()?;
        src_data.push(load(i, &changes[i].old.expect("a deletion"))?);
    }
    let base = |p: &str| p.rsplit('/').next().unwrap_or(p).to_string();
    // (score, same base name, added index, deleted index)
    let mut candidates: Vec<(u64, bool, usize, usize)> = Vec::new();
    for (ai, &i) in added.iter().enumerate() {
        check()?;
        let (dst_size, dst_spans) = load(i, &changes[i].new.expect("an addition"))?;
        let mut best: Vec<(u64, bool, usize, usize)> = Vec::new();
        for (di, (src_size, src_spans)) in src_data.iter().enumerate() {
            let max_size = dst_size.max(*src_size);
            let delta = max_size - dst_size.min(*src_size);
            // git skips sizes too far apart to reach the minimum score.
            if max_size * (MAX_SCORE - MIN_RENAME_SCORE) < delta * MAX_SCORE || max_size == 0 {
                continue;
            }
            let score = copied_bytes(src_spans, &dst_spans) * MAX_SCORE / max_size;
            if score < MIN_RENAME_SCORE {
                continue;
            }
            let same_name = base(&changes[deleted[di]].path) == base(&changes[i].path);
            best.push((score, same_name, ai, di));
        }
        best.sort_by(|x, y| y.0.cmp(&x.0).then(y.1.cmp(&x.1)));
        best.truncate(4);
        candidates.extend(best);
    }
    candidates.sort_by(|x, y| y.0.cmp(&x.0).then(y.1.cmp(&x.1)));
    let mut src_used = vec![false; deleted.len()];
    let mut dst_used = vec![false; added.len()];
    let mut remove = vec![false; changes.len()];
    let mut renames = Vec::new();
    for (score, _, ai, di) in candidates {
        if src_used[di] || dst_used[ai] {
            continue;
        }
        src_used[di] = true;
        dst_used[ai] = true;
        let (d, a) = (deleted[di], added[ai]);
        remove[d] = true;
        remove[a] = true;
        renames.push(Change {
            path: changes[a].path.clone(),
            from: Some(changes[d].path.clone()),
            old: changes[d].old,
            new: changes[a].new,
            similarity: (score * 100 / MAX_SCORE) as u8,
        });
    }
    if renames.is_empty() {
        return Ok(());
    }
    let mut i = 0;
    changes.retain(|_| {
        let keep = !remove[i];
        i += 1;
        keep
    });
    changes.extend(renames);
    changes.sort_by(|x, y| x.path.cmp(&y.path));
    Ok(())
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

/// Asks whether the run may go on: `Err(Interrupted)` once its deadline
/// passed or it was cancelled. Every loop over unbounded input calls it
/// (issue 18: nothing of a run may outlive it).
pub type Check<'c> = &'c dyn Fn() -> Result<()>;

/// How many lines (tokens, hunks) are handled between two [`Check`]s: a
/// few hundred microseconds of work.
const LINES_PER_CHECK: usize = 1 << 14;

/// The changed line ranges between `old` and `new`, as git's Myers with
/// the indent heuristic finds them. `check` is asked between the phases
/// and inside those that are ours (interning, git's hunk sliding: see
/// [`crate::slide`]); the one call that is not (imara-diff's Myers) gets
/// only the lines left once the common head and tail are trimmed and the
/// lines of one side only are set aside, and its heuristics bound its cost.
pub fn hunks(old: &[u8], new: &[u8], check: Check<'_>) -> Result<Vec<imara_diff::Hunk>> {
    check()?;
    let input = intern_lines(old, new, check)?;
    check()?;
    let mut diff = Diff::default();
    diff.compute_with(
        Algorithm::Myers,
        &input.before,
        &input.after,
        input.interner.num_tokens(),
    );
    check()?;
    let mut changes = Changes {
        removed: (0..input.before.len() as u32)
            .map(|i| diff.is_removed(i))
            .collect(),
        added: (0..input.after.len() as u32)
            .map(|i| diff.is_added(i))
            .collect(),
    };
    drop(diff);
    check()?;
    let mut indent = IndentHeuristic::new(|token| {
        IndentLevel::for_ascii_line(input.interner[token].iter().copied(), 8)
    });
    changes.slide(&input.before, &input.after, &mut indent, check)?;
    changes.hunks(check)
}

/// The lines of both sides interned (equal lines get equal tokens), as
/// `InternedInput::new` does it, with `check` asked as it goes.
fn intern_lines<'d>(
    old: &'d [u8],
    new: &'d [u8],
    check: Check<'_>,
) -> Result<InternedInput<&'d [u8]>> {
    let mut input = InternedInput::default();
    input.reserve_for_token_source(&old, &new);
    for (i, line) in imara_diff::sources::byte_lines(old).enumerate() {
        if i.is_multiple_of(LINES_PER_CHECK) {
            check()?;
        }
        let token = input.interner.intern(line);
        input.before.push(token);
    }
    for (i, line) in imara_diff::sources::byte_lines(new).enumerate() {
        if i.is_multiple_of(LINES_PER_CHECK) {
            check()?;
        }
        let token = input.interner.intern(line);
        input.after.push(token);
    }
    Ok(input)
}

/// (insertions, deletions) between two texts.
pub fn line_counts(old: &[u8], new: &[u8], check: Check<'_>) -> Result<(usize, usize)> {
    let mut ins = 0;
    let mut del = 0;
    for h in hunks(old, new, check)? {
        ins += h.after.len();
        del += h.before.len();
    }
    Ok((ins, del))
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

/// The function-name line a hunk header shows: the nearest line above the
/// hunk that git's default rule takes. Found as git finds it (xemit.c
/// `get_func_line`): the search stops where the previous hunk's began and
/// takes that hunk's answer, so a long file of hunks is scanned once.
struct FuncLines<'d> {
    /// Lines before this one were searched already.
    searched_to: usize,
    /// What that search found.
    found: Option<&'d [u8]>,
}

impl<'d> FuncLines<'d> {
    fn above(&mut self, lines: &[&'d [u8]], start: usize) -> Option<&'d [u8]> {
        let from = self.searched_to.min(start);
        if let Some(f) = (from..start).rev().find_map(|k| func_line(lines[k])) {
            self.found = Some(f);
        }
        self.searched_to = start;
        self.found
    }
}

/// The hunks of a unified diff with `context` lines (no file headers);
/// `check` is asked once per [`LINES_PER_CHECK`] lines written.
pub fn unified(
    old: &[u8],
    new: &[u8],
    context: u32,
    out: &mut Vec<u8>,
    check: Check<'_>,
) -> Result<()> {
    let hs = hunks(old, new, check)?;
    write_hunks(old, new, &hs, context, out, check)
}

/// Writes `hs` (hunks between `old` and `new`) with `context` lines; the
/// context comes from `new`, as git shows it when whitespace is ignored.
fn write_hunks(
    old: &[u8],
    new: &[u8],
    hs: &[imara_diff::Hunk],
    context: u32,
    out: &mut Vec<u8>,
    check: Check<'_>,
) -> Result<()> {
    let a = split_lines(old);
    let b = split_lines(new);
    let mut func = FuncLines {
        searched_to: 0,
        found: None,
    };
    let mut written = 0;
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
        hunk_header(out, (start_a, end_a - start_a), (start_b, end_b - start_b));
        if let Some(f) = func.above(&a, start_a as usize) {
            out.push(b' ');
            out.extend_from_slice(f);
        }
        out.push(b'\n');
        let mut pa = start_a;
        for h in &hs[i..=j] {
            let shown = (h.before.start - pa) + h.before.len() as u32 + h.after.len() as u32;
            written += shown as usize;
            if written >= LINES_PER_CHECK {
                written = 0;
                check()?;
            }
            while pa < h.before.start {
                let pb = h.after.start - (h.before.start - pa);
                line(
                    out,
                    b' ',
                    b.get(pb as usize).copied().unwrap_or(a[pa as usize]),
                );
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
            let pb = hs[j].after.end + (pa - hs[j].before.end);
            line(
                out,
                b' ',
                b.get(pb as usize).copied().unwrap_or(a[pa as usize]),
            );
            pa += 1;
        }
        i = j + 1;
    }
    Ok(())
}

/// `@@ -A,n +B,m @@` (without its function name and newline).
fn hunk_header(out: &mut Vec<u8>, (start_a, len_a): (u32, u32), (start_b, len_b): (u32, u32)) {
    let range = |start: u32, len: u32| -> String {
        let first = if len == 0 { start } else { start + 1 };
        if len == 1 {
            format!("{first}")
        } else {
            format!("{first},{len}")
        }
    };
    let _ = write!(
        out,
        "@@ -{} +{} @@",
        range(start_a, len_a),
        range(start_b, len_b)
    );
}

fn line(out: &mut Vec<u8>, sign: u8, text: &[u8]) {
    out.push(sign);
    out.extend_from_slice(text);
    if !text.ends_with(b"\n") {
        out.extend_from_slice(b"\n\\ No newline at end of file\n");
    }
}

/// Which whitespace differences a diff ignores (`--ignore-space-at-eol`,
/// `-b`, `-w`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Whitespace {
    /// Every byte counts.
    #[default]
    Exact,
    /// `--ignore-space-at-eol`.
    AtEol,
    /// `-b`/`--ignore-space-change`: runs of spaces compare equal, trailing ones vanish.
    Change,
    /// `-w`/`--ignore-all-space`.
    All,
}

/// How patches are written: context lines (`-U`) and whitespace rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PatchOpts {
    /// Lines of context around each change.
    pub context: u32,
    /// What whitespace differences are ignored.
    pub ws: Whitespace,
}

impl Default for PatchOpts {
    fn default() -> PatchOpts {
        PatchOpts {
            context: 3,
            ws: Whitespace::Exact,
        }
    }
}

/// `data` with each line reduced as `ws` says (the line count kept), so
/// lines that differ only in ignored whitespace compare equal.
pub fn normalize(data: &[u8], ws: Whitespace) -> Vec<u8> {
    if ws == Whitespace::Exact {
        return data.to_vec();
    }
    let mut out = Vec::with_capacity(data.len());
    for l in data.split_inclusive(|&b| b == b'\n') {
        let (body, nl) = match l.strip_suffix(b"\n") {
            Some(b) => (b, true),
            None => (l, false),
        };
        let blank = |b: &u8| b.is_ascii_whitespace();
        match ws {
            Whitespace::All => out.extend(body.iter().filter(|b| !blank(b))),
            Whitespace::Change => {
                let mut space = false;
                for &b in body {
                    if blank(&b) {
                        space = true;
                    } else {
                        if space {
                            out.push(b' ');
                        }
                        space = false;
                        out.push(b);
                    }
                }
            }
            _ => {
                let end = body.iter().rposition(|b| !blank(b)).map_or(0, |i| i + 1);
                out.extend_from_slice(&body[..end]);
            }
        }
        if nl {
            out.push(b'\n');
        }
    }
    out
}

/// Writes one change as a git patch (`diff --git` header and hunks).
pub fn write_patch(repo: &Repo<'_>, c: &Change, out: &mut Vec<u8>, check: Check<'_>) -> Result<()> {
    write_patch_opts(repo, c, PatchOpts::default(), out, check)
}

/// [`write_patch`] with `-U` and whitespace options; a change that is all
/// ignored whitespace writes nothing, as in git.
pub fn write_patch_opts(
    repo: &Repo<'_>,
    c: &Change,
    opts: PatchOpts,
    out: &mut Vec<u8>,
    check: Check<'_>,
) -> Result<()> {
    check()?;
    let start = out.len();
    let old_path = c.from.as_deref().unwrap_or(&c.path);
    // Names needing it are quoted with their a/ or b/ prefix inside.
    let non_ascii = repo.config.get_bool("core.quotePath").unwrap_or(true);
    let qa = worktree::quote_path(&format!("a/{old_path}"), non_ascii, false);
    let qb = worktree::quote_path(&format!("b/{}", c.path), non_ascii, false);
    let _ = writeln!(out, "diff --git {qa} {qb}");
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
                let _ = writeln!(out, "similarity index {}%", c.similarity);
                let _ = writeln!(
                    out,
                    "rename from {}",
                    worktree::quote_path(old_path, non_ascii, false)
                );
                let _ = writeln!(
                    out,
                    "rename to {}",
                    worktree::quote_path(&c.path, non_ascii, false)
                );
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
            qa.clone()
        } else {
            "/dev/null".into()
        };
        let b = if c.new.is_some() {
            qb.clone()
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
            let _ = writeln!(out, "--- {qa}");
        }
        None => out.extend_from_slice(b"--- /dev/null\n"),
    }
    match &c.new {
        Some(_) => {
            let _ = writeln!(out, "+++ {qb}");
        }
        None => out.extend_from_slice(b"+++ /dev/null\n"),
    }
    if opts.ws != Whitespace::Exact {
        let (na, nb) = (normalize(&old, opts.ws), normalize(&new, opts.ws));
        let hs = hunks(&na, &nb, check)?;
        if hs.is_empty() && c.old.is_some() && c.new.is_some() && c.from.is_none() {
            out.truncate(start);
            return Ok(());
        }
        return write_hunks(&old, &new, &hs, opts.context, out, check);
    }
    unified(&old, &new, opts.context, out, check)
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

/// Counts for each change; `check` asked for each.
pub fn stat_lines(repo: &Repo<'_>, changes: &[Change], check: Check<'_>) -> Result<Vec<StatLine>> {
    let non_ascii = repo.config.get_bool("core.quotePath").unwrap_or(true);
    let mut out = Vec::new();
    for c in changes {
        check()?;
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
            None => worktree::quote_path(&c.path, non_ascii, false),
        };
        let counts = if is_binary(&old) || is_binary(&new) {
            None
        } else {
            Some(line_counts(&old, &new, check)?)
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
