//! `apply`: unified diffs (git's and plain `diff -u` ones) applied to the
//! work tree and/or the index.

use std::collections::BTreeMap;

use bstr::ByteSlice;
use gix_object::Kind;

use std::io::Write;

use super::G;
use crate::error::{GitError, Result};
use crate::repo::IndexEntry;
use crate::worktree::{self};

/// One file's part of a patch.
pub struct FilePatch {
    /// The old path (`None`: a new file).
    pub old: Option<String>,
    /// The new path (`None`: a deleted file).
    pub new: Option<String>,
    /// The mode of a new file or a mode change.
    pub new_mode: Option<u32>,
    /// (old start, lines) per hunk; lines keep their sign.
    pub hunks: Vec<(usize, Vec<Vec<u8>>)>,
    /// The (abbreviated) id of the old blob, from git's `index A..B` line.
    pub old_blob: Option<String>,
}

/// A path of a `---`/`+++` line with `strip` leading components removed.
fn strip_prefix_path(p: &str, strip: usize) -> Option<String> {
    let p = p.trim_end_matches(['\r', '\n']);
    let p = p.split('\t').next().unwrap_or(p);
    if p == "/dev/null" {
        return None;
    }
    let mut rest = p;
    for _ in 0..strip {
        rest = rest.split_once('/').map_or(rest, |(_, r)| r);
    }
    Some(rest.to_string())
}

/// The patch with its two sides swapped (`apply -R`).
fn reversed(fp: FilePatch) -> FilePatch {
    let hunks = fp
        .hunks
        .into_iter()
        .map(|(start, body)| {
            let body = body
                .into_iter()
                .map(|mut l| {
                    match l.first() {
                        Some(b'+') => l[0] = b'-',
                        Some(b'-') => l[0] = b'+',
                        _ => {}
                    }
                    l
                })
                .collect::<Vec<_>>();
            // The new side's start: old start plus the lines added before.
            (start, body)
        })
        .collect::<Vec<_>>();
    FilePatch {
        old: fp.new,
        new: fp.old,
        new_mode: fp.new_mode,
        hunks,
        old_blob: None,
    }
}

/// The file patches of a unified diff, paths stripped of `strip` components.
pub fn parse_patch(data: &[u8], strip: usize) -> Result<Vec<FilePatch>> {
    let lines: Vec<&[u8]> = data.split_inclusive(|&b| b == b'\n').collect();
    let mut out: Vec<FilePatch> = Vec::new();
    let mut i = 0;
    let mut mode: Option<u32> = None;
    // A git header's rename, waiting for its `---`/`+++` (or standing alone).
    let mut git_header = false;
    let mut renamed: Option<usize> = None;
    let mut rename_from: Option<String> = None;
    let mut old_blob: Option<String> = None;
    while i < lines.len() {
        let l = lines[i];
        if l.starts_with(b"diff --git ") {
            mode = None;
            git_header = true;
            renamed = None;
            rename_from = None;
        } else if let Some(ids) = l.strip_prefix(b"index ") {
            old_blob = ids
                .to_str_lossy()
                .split("..")
                .next()
                .map(|x| x.trim().to_string());
        } else if let Some(f) = l.strip_prefix(b"rename from ") {
            rename_from = Some(f.trim_end().to_str_lossy().into_owned());
        } else if let Some(t) = l.strip_prefix(b"rename to ") {
            out.push(FilePatch {
                old: rename_from.take(),
                new: Some(t.trim_end().to_str_lossy().into_owned()),
                new_mode: mode,
                hunks: Vec::new(),
                old_blob: None,
            });
            renamed = Some(out.len() - 1);
        } else if let Some(m) = l
            .strip_prefix(b"new file mode ")
            .or_else(|| l.strip_prefix(b"new mode "))
        {
            mode = u32::from_str_radix(m.trim().to_str_lossy().as_ref(), 8).ok();
        } else if l.starts_with(b"--- ") && i + 1 < lines.len() && lines[i + 1].starts_with(b"+++ ")
        {
            let mut old = strip_prefix_path(&l[4..].to_str_lossy(), strip);
            let new = strip_prefix_path(&lines[i + 1][4..].to_str_lossy(), strip);
            // A plain `diff -u` between two names patches the file in place,
            // under the name it gives last.
            if !git_header && old.is_some() && new.is_some() {
                old = new.clone();
            }
            i += 2;
            if renamed.is_some() {
                // The rename's own header: its hunks follow.
                continue;
            }
            out.push(FilePatch {
                old,
                new,
                new_mode: mode,
                hunks: Vec::new(),
                old_blob: old_blob.take(),
            });
            git_header = false;
            continue;
        } else if l.starts_with(b"@@ ") {
            let Some(fp) = out.last_mut() else {
                return Err(GitError::error("patch fragment without header"));
            };
            let header = l.to_str_lossy();
            let nums: Vec<&str> = header.split(' ').collect();
            let parse = |s: &str| -> (usize, usize) {
                let s = &s[1..];
                match s.split_once(',') {
                    Some((a, b)) => (a.parse().unwrap_or(0), b.parse().unwrap_or(0)),
                    None => (s.parse().unwrap_or(0), 1),
                }
            };
            let (old_start, mut old_n) = parse(nums.get(1).copied().unwrap_or("-0"));
            let (_, mut new_n) = parse(nums.get(2).copied().unwrap_or("+0"));
            let mut body: Vec<Vec<u8>> = Vec::new();
            i += 1;
            while i < lines.len() && (old_n > 0 || new_n > 0) {
                let b = lines[i];
                match b.first() {
                    Some(b' ') => {
                        old_n = old_n.saturating_sub(1);
                        new_n = new_n.saturating_sub(1);
                    }
                    Some(b'-') => old_n = old_n.saturating_sub(1),
                    Some(b'+') => new_n = new_n.saturating_sub(1),
                    Some(b'\n') => {
                        old_n = old_n.saturating_sub(1);
                        new_n = new_n.saturating_sub(1);
                    }
                    // "\ No newline at end of file": the line before has none.
                    Some(b'\\') => {
                        if let Some(last) = body.last_mut()
                            && last.ends_with(b"\n")
                        {
                            last.pop();
                        }
                        i += 1;
                        continue;
                    }
                    _ => return Err(corrupt(i + 1)),
                }
                body.push(b.to_vec());
                i += 1;
            }
            if old_n > 0 || new_n > 0 {
                return Err(corrupt(i + 1));
            }
            // "\ No newline at end of file" strips the newline of the line before.
            while i < lines.len() && lines[i].starts_with(b"\\ ") {
                if let Some(last) = body.last_mut()
                    && last.ends_with(b"\n")
                {
                    last.pop();
                }
                i += 1;
            }
            fp.hunks.push((old_start, body));
            continue;
        }
        i += 1;
    }
    if out.is_empty() {
        return Err(GitError::Raw(
            "error: No valid patches in input (allow with \"--allow-empty\")".into(),
            128,
        ));
    }
    Ok(out)
}

/// git's error for a patch that ends or breaks inside a hunk (1-based line).
fn corrupt(line: usize) -> GitError {
    GitError::Raw(format!("error: corrupt patch at line {line}"), 128)
}

/// `old` with `fp`'s hunks applied (each found near its line, as git does
/// when lines moved); git's error when one does not fit.
pub fn apply_hunks(old: &[u8], fp: &FilePatch, name: &str) -> Result<Vec<u8>> {
    apply_hunks_rejecting(old, fp, name, None)
}

/// [`apply_hunks`]; with `rejects`, a hunk that does not fit is left out
/// and its number (0-based) noted there instead of failing.
pub fn apply_hunks_rejecting(
    old: &[u8],
    fp: &FilePatch,
    name: &str,
    mut rejects: Option<&mut Vec<usize>>,
) -> Result<Vec<u8>> {
    let src: Vec<&[u8]> = old.split_inclusive(|&b| b == b'\n').collect();
    let mut out: Vec<u8> = Vec::new();
    let mut pos = 0usize;
    for (n, (start, body)) in fp.hunks.iter().enumerate() {
        let before: Vec<&[u8]> = body
            .iter()
            .filter(|l| l.first() != Some(&b'+'))
            .map(|l| {
                if l.first() == Some(&b'\n') {
                    &l[..]
                } else {
                    &l[1..]
                }
            })
            .collect();
        let after: Vec<&[u8]> = body
            .iter()
            .filter(|l| l.first() != Some(&b'-'))
            .map(|l| {
                if l.first() == Some(&b'\n') {
                    &l[..]
                } else {
                    &l[1..]
                }
            })
            .collect();
        let want = if before.is_empty() {
            *start
        } else {
            start.saturating_sub(1)
        };
        // Without context on a side, a hunk is tied to that end of the file.
        let leading = body
            .iter()
            .take_while(|l| l.first() == Some(&b' ') || l.first() == Some(&b'\n'))
            .count();
        let trailing = body
            .iter()
            .rev()
            .take_while(|l| l.first() == Some(&b' ') || l.first() == Some(&b'\n'))
            .count();
        let at_start = *start <= 1 && leading == 0;
        let at_end = trailing == 0;
        let fits = |at: usize| {
            at + before.len() <= src.len()
                && src[at..at + before.len()] == before[..]
                && (!at_start || at == 0)
                && (!at_end || at + before.len() == src.len())
        };
        let found = (0..=src.len())
            .flat_map(|d| [want.checked_add(d), want.checked_sub(d)])
            .flatten()
            .find(|&at| at >= pos && fits(at));
        let Some(at) = found else {
            if let Some(r) = rejects.as_deref_mut() {
                r.push(n);
                continue;
            }
            return Err(GitError::Raw(
                format!("error: patch failed: {name}:{start}\nerror: {name}: patch does not apply"),
                1,
            ));
        };
        for l in &src[pos..at] {
            out.extend_from_slice(l);
        }
        for l in &after {
            out.extend_from_slice(l);
        }
        pos = at + before.len();
    }
    for l in &src[pos..] {
        out.extend_from_slice(l);
    }
    Ok(out)
}

/// One file's result: old path, new path, new content, mode.
type Applied = (Option<String>, Option<String>, Option<Vec<u8>>, u32);

/// How `apply` (and `am`) applies a patch.
#[derive(Clone, Copy, Default)]
pub struct ApplyOpts {
    /// `--check`: only see whether it applies.
    pub check: bool,
    /// `--cached`: the index only.
    pub cached: bool,
    /// `--index`: the work tree and the index.
    pub index: bool,
    /// `-R`.
    pub reverse: bool,
    /// `-v`: name each file on stderr.
    pub verbose: bool,
    /// `-p N` (1 by default).
    pub strip: usize,
    /// `--reject`: hunks that fit are applied, the others go to `.rej` files.
    pub reject: bool,
    /// `--3way`: a patch that does not fit is merged from the blob it names.
    pub three_way: bool,
}

/// Applies the patch text `data` to the repository; git's errors (status 1,
/// nothing changed) when a file does not fit.
pub fn apply_patch(
    g: &mut G<'_, '_>,
    repo: &crate::repo::Repo<'_>,
    data: &[u8],
    o: ApplyOpts,
) -> Result<()> {
    apply_patch_rejecting(g, repo, data, o).map(|_| ())
}

/// [`apply_patch`]; whether hunks were rejected (`--reject`).
fn apply_patch_rejecting(
    g: &mut G<'_, '_>,
    repo: &crate::repo::Repo<'_>,
    data: &[u8],
    o: ApplyOpts,
) -> Result<bool> {
    let mut any_rejected = false;
    let mut conflicted: Vec<ThreeWay> = Vec::new();
    let mut patches = parse_patch(data, o.strip)?;
    if o.reverse {
        patches = patches.into_iter().map(reversed).collect();
    }
    let cached = o.cached;
    let index_too = o.cached || o.index;
    // Compute every result first, so a failing file changes nothing.
    let index = repo.read_index()?;
    let mut results: Vec<Applied> = Vec::new();
    for fp in &patches {
        let name = fp
            .new
            .clone()
            .or_else(|| fp.old.clone())
            .unwrap_or_default();
        if o.verbose {
            let _ = writeln!(g.err, "Checking patch {name}...");
        }
        let old = match &fp.old {
            Some(p) if index_too => {
                let e = index
                    .iter()
                    .find(|e| &e.path == p && e.stage == 0)
                    .ok_or_else(|| {
                        GitError::Raw(format!("error: {p}: does not exist in index"), 1)
                    })?;
                repo.read_kind(&e.id, Kind::Blob)?
            }
            Some(p) => worktree::file_content(repo, p)
                .map_err(|_| GitError::Raw(format!("error: {p}: No such file or directory"), 1))?,
            None => {
                if worktree::file_mode(repo, &name).is_some() && !cached {
                    return Err(GitError::Raw(
                        format!("error: {name}: already exists in working directory"),
                        1,
                    ));
                }
                Vec::new()
            }
        };
        if o.reject && !o.verbose {
            let _ = writeln!(g.err, "Checking patch {name}...");
        }
        let new = if fp.new.is_some() && o.reject {
            let mut rejected = Vec::new();
            let text = apply_hunks_rejecting(&old, fp, &name, Some(&mut rejected))?;
            report_rejects(g, repo, fp, &name, &rejected)?;
            any_rejected |= !rejected.is_empty();
            Some(text)
        } else if fp.new.is_some() && o.three_way {
            match apply_hunks(&old, fp, &name) {
                Ok(text) => Some(text),
                Err(e) => match three_way(g, repo, fp, &name, &old)? {
                    Some(merged) => {
                        conflicted.push(merged);
                        continue;
                    }
                    None => return Err(e),
                },
            }
        } else if fp.new.is_some() {
            Some(apply_hunks(&old, fp, &name)?)
        } else {
            // A deletion must remove all of the file.
            let rest = apply_hunks(&old, fp, &name)?;
            if !rest.is_empty() {
                return Err(GitError::Raw(
                    format!(
                        "error: removal patch leaves file contents\nerror: {name}: patch does not apply"
                    ),
                    1,
                ));
            }
            None
        };
        if index_too
            && !cached
            && let Some(p) = &fp.old
            && !index.iter().any(|e| &e.path == p)
        {
            return Err(GitError::Raw(
                format!("error: {p}: does not exist in index"),
                1,
            ));
        }
        let mode = fp
            .new_mode
            .or_else(|| fp.old.as_ref().and_then(|p| worktree::file_mode(repo, p)))
            .unwrap_or(0o100644);
        results.push((fp.old.clone(), fp.new.clone(), new, mode));
    }
    if o.verbose || (o.reject && !any_rejected) {
        for (old, new, _, _) in &results {
            let name = new.clone().or_else(|| old.clone()).unwrap_or_default();
            let _ = writeln!(g.err, "Applied patch {name} cleanly.");
        }
    }
    if o.check {
        return Ok(any_rejected);
    }
    let mut entries: BTreeMap<String, IndexEntry> =
        index.into_iter().map(|e| (e.path.clone(), e)).collect();
    for (old, new, content, mode) in results {
        if let Some(o) = &old
            && new.as_deref() != Some(o.as_str())
        {
            if !cached {
                let _ = g.fs.remove_file(&repo.wp(o));
                super::basic::remove_empty_parents(repo, o);
            }
            if index_too {
                entries.remove(o);
            }
        }
        if let (Some(n), Some(data)) = (new, content) {
            if !cached {
                let p = repo.wp(&n);
                if let Some(i) = p.rfind('/') {
                    g.fs.mkdir_all(&p[..i])?;
                }
                g.fs.write(&p, &data)?;
                g.fs.set_mode(&p, if mode == 0o100755 { 0o755 } else { 0o644 })?;
            }
            if index_too {
                let e = if cached {
                    IndexEntry {
                        path: n.clone(),
                        id: repo.write_object(Kind::Blob, &data)?,
                        mode,
                        stage: 0,
                        size: 0,
                        mtime: (0, 0),
                    }
                } else {
                    super::basic::stage_file(repo, &n)?
                };
                entries.insert(n, e);
            }
        }
    }
    let mut list: Vec<IndexEntry> = entries.into_values().collect();
    for m in &conflicted {
        let p = repo.wp(&m.path);
        if let Some(i) = p.rfind('/') {
            g.fs.mkdir_all(&p[..i])?;
        }
        g.fs.write(&p, &m.text)?;
        list.retain(|e| e.path != m.path);
        if m.conflict {
            for (stage, id) in [(1u8, m.base), (2, m.ours), (3, m.theirs)] {
                list.push(IndexEntry {
                    path: m.path.clone(),
                    id,
                    mode: 0o100644,
                    stage,
                    size: 0,
                    mtime: (0, 0),
                });
            }
            let _ = writeln!(g.err, "Applied patch to '{}' with conflicts.", m.path);
        } else {
            list.push(super::basic::stage_file(repo, &m.path)?);
            let _ = writeln!(g.err, "Applied patch to '{}' cleanly.", m.path);
        }
    }
    for m in conflicted.iter().filter(|m| m.conflict) {
        let _ = writeln!(g.err, "U {}", m.path);
    }
    if index_too || !conflicted.is_empty() {
        list.sort_by(|a, b| {
            a.path
                .as_bytes()
                .cmp(b.path.as_bytes())
                .then(a.stage.cmp(&b.stage))
        });
        repo.write_index(&list)?;
    }
    Ok(any_rejected || conflicted.iter().any(|m| m.conflict))
}

/// A file `--3way` merged: its text (markers when `conflict`) and the
/// three blobs of its stages.
struct ThreeWay {
    path: String,
    text: Vec<u8>,
    conflict: bool,
    base: gix_hash::ObjectId,
    ours: gix_hash::ObjectId,
    theirs: gix_hash::ObjectId,
}

/// `--3way`'s fallback: the patch applied to the blob it names (the base),
/// merged with the file as it is; `None` when that blob is not here.
fn three_way(
    g: &mut G<'_, '_>,
    repo: &crate::repo::Repo<'_>,
    fp: &FilePatch,
    name: &str,
    current: &[u8],
) -> Result<Option<ThreeWay>> {
    let Some(short) = fp.old_blob.as_deref() else {
        return Ok(None);
    };
    let Some(base) = repo.ids_with_prefix(short).first().copied() else {
        return Ok(None);
    };
    let base_text = repo.read_kind(&base, Kind::Blob)?;
    let Ok(theirs_text) = apply_hunks(&base_text, fp, name) else {
        return Ok(None);
    };
    let m = super::merge::merge_text_styled(
        &base_text,
        current,
        &theirs_text,
        ("ours", "theirs"),
        super::merge::MergeStyle::default(),
        &g.checker(),
    )?;
    Ok(Some(ThreeWay {
        path: name.to_string(),
        text: m.text,
        conflict: m.conflict,
        base,
        ours: repo.write_object(Kind::Blob, current)?,
        theirs: repo.write_object(Kind::Blob, &theirs_text)?,
    }))
}

/// `--reject`'s report of one file (git's words, on stderr) and its
/// `NAME.rej` with the hunks that did not fit.
fn report_rejects(
    g: &mut G<'_, '_>,
    repo: &crate::repo::Repo<'_>,
    fp: &FilePatch,
    name: &str,
    rejected: &[usize],
) -> Result<()> {
    if rejected.is_empty() {
        return Ok(());
    }
    let side = |body: &Vec<Vec<u8>>, skip: u8| -> Vec<u8> {
        body.iter()
            .filter(|l| l.first() != Some(&skip))
            .flat_map(|l| {
                if l.first() == Some(&b'\n') {
                    l.clone()
                } else {
                    l[1..].to_vec()
                }
            })
            .collect()
    };
    for &n in rejected {
        let (start, body) = &fp.hunks[n];
        let _ = writeln!(
            g.err,
            "error: while searching for:\n{}\nerror: patch failed: {name}:{start}",
            side(body, b'+').to_str_lossy()
        );
    }
    let s = if rejected.len() == 1 { "" } else { "s" };
    let _ = writeln!(
        g.err,
        "Applying patch {name} with {} reject{s}...",
        rejected.len()
    );
    let mut rej = format!("diff a/{name} b/{name}\t(rejected hunks)\n").into_bytes();
    for (n, (start, body)) in fp.hunks.iter().enumerate() {
        if !rejected.contains(&n) {
            let _ = writeln!(g.err, "Hunk #{} applied cleanly.", n + 1);
            continue;
        }
        let _ = writeln!(g.err, "Rejected hunk #{}.", n + 1);
        let old_n = body.iter().filter(|l| l.first() != Some(&b'+')).count();
        let new_n = body.iter().filter(|l| l.first() != Some(&b'-')).count();
        let _ = writeln!(rej, "@@ -{start},{old_n} +{start},{new_n} @@");
        for l in body {
            rej.extend_from_slice(l);
            if !l.ends_with(b"\n") {
                rej.push(b'\n');
            }
        }
    }
    repo.fs.write(&repo.wp(&format!("{name}.rej")), &rej)?;
    Ok(())
}

/// `--whitespace=fix`: trailing whitespace taken off the lines a patch
/// adds, each reported as git does (`FILE:LINE: trailing whitespace.`).
fn fix_whitespace(g: &mut G<'_, '_>, data: &[u8], source: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len());
    let mut in_hunk = false;
    let mut fixed = 0;
    for (n, l) in data.split_inclusive(|&b| b == b'\n').enumerate() {
        if l.starts_with(b"@@ ") {
            in_hunk = true;
        } else if !matches!(l.first(), Some(b' ' | b'+' | b'-' | b'\\' | b'\n')) {
            in_hunk = false;
        }
        let body = l.strip_suffix(b"\n").unwrap_or(l);
        let trailing = body.last().is_some_and(|c| *c == b' ' || *c == b'\t');
        if in_hunk && l.starts_with(b"+") && trailing {
            let kept = body.trim_end_with(|c| c == ' ' || c == '\t');
            let _ = writeln!(
                g.err,
                "{source}:{}: trailing whitespace.\n{}",
                n + 1,
                body[1..].to_str_lossy()
            );
            fixed += 1;
            out.extend_from_slice(kept);
            if l.ends_with(b"\n") {
                out.push(b'\n');
            }
            continue;
        }
        out.extend_from_slice(l);
    }
    if fixed > 0 {
        let s = if fixed == 1 { "" } else { "s" };
        let _ = writeln!(
            g.err,
            "warning: {fixed} line{s} applied after fixing whitespace errors."
        );
    }
    out
}

/// Insertions and deletions of one file patch.
fn counts(fp: &FilePatch) -> (usize, usize) {
    let mut ins = 0;
    let mut del = 0;
    for (_, body) in &fp.hunks {
        for l in body {
            match l.first() {
                Some(b'+') => ins += 1,
                Some(b'-') => del += 1,
                _ => {}
            }
        }
    }
    (ins, del)
}

/// `git apply [--check] [--cached] [--index] [-R] [-p N] [-v] [--stat]
/// [--numstat] [--summary] [PATCH...]` (standard input without a patch file).
pub fn apply(g: &mut G<'_, '_>) -> Result<i32> {
    let args = super::split_short(&g.args, &['p']);
    let mut o = ApplyOpts {
        strip: 1,
        ..ApplyOpts::default()
    };
    let (mut stat, mut numstat, mut summary, mut also_apply) = (false, false, false, false);
    let mut fix_ws = false;
    let mut files = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        match a.as_str() {
            "--check" => o.check = true,
            "--cached" => o.cached = true,
            "--index" => o.index = true,
            "-R" | "--reverse" => o.reverse = true,
            "-v" | "--verbose" => o.verbose = true,
            "--stat" => stat = true,
            "--numstat" => numstat = true,
            "--summary" => summary = true,
            "--apply" => also_apply = true,
            "-p" => {
                o.strip = args.get(i).and_then(|v| v.parse().ok()).unwrap_or(1);
                i += 1;
            }
            "--reject" => o.reject = true,
            "--whitespace=fix" | "--whitespace=strip" => fix_ws = true,
            "--3way" | "-3" => {
                o.three_way = true;
                o.index = !o.cached;
            }
            "--whitespace=nowarn" | "--whitespace=warn" | "--recount" | "--unidiff-zero" => {}
            s if s.starts_with("-p") => o.strip = s[2..].parse().unwrap_or(1),
            "-" => files.push(a.clone()),
            s if s.starts_with('-') => {
                return Err(GitError::Usage(format!(
                    "error: unknown option `{}'",
                    s.trim_start_matches('-')
                )));
            }
            _ => files.push(a.clone()),
        }
    }
    let mut data = Vec::new();
    if files.is_empty() {
        data = g.read_stdin();
    }
    for f in &files {
        if f == "-" {
            data.extend(g.read_stdin());
            continue;
        }
        match g.fs.read(&sandkeep_shell::Fs::resolve(&g.cwd, f)) {
            Ok(d) => data.extend(d),
            Err(_) => {
                return Err(GitError::Raw(
                    format!("error: can't open patch '{f}': No such file or directory"),
                    128,
                ));
            }
        }
    }
    if stat || numstat || summary {
        let mut patches = parse_patch(&data, o.strip)?;
        if o.reverse {
            patches = patches.into_iter().map(reversed).collect();
        }
        if numstat {
            for fp in &patches {
                let (ins, del) = counts(fp);
                let name = fp
                    .new
                    .clone()
                    .or_else(|| fp.old.clone())
                    .unwrap_or_default();
                let _ = writeln!(g.out, "{ins}\t{del}\t{name}");
            }
        }
        if stat {
            // git apply's diffstat: counts right-aligned in four columns.
            let names: Vec<String> = patches
                .iter()
                .map(|fp| match (&fp.old, &fp.new) {
                    (Some(o), Some(n)) if o != n => crate::diff::rename_name(o, n),
                    _ => fp
                        .new
                        .clone()
                        .or_else(|| fp.old.clone())
                        .unwrap_or_default(),
                })
                .collect();
            let width = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
            let (mut ins_total, mut del_total) = (0, 0);
            for (fp, name) in patches.iter().zip(&names) {
                let (ins, del) = counts(fp);
                ins_total += ins;
                del_total += del;
                let _ = writeln!(
                    g.out,
                    " {name:<width$} | {:>4} {}{}",
                    ins + del,
                    "+".repeat(ins),
                    "-".repeat(del)
                );
            }
            let _ = writeln!(
                g.out,
                "{}",
                crate::diff::summary(patches.len(), ins_total, del_total)
            );
        }
        if summary {
            for fp in &patches {
                match (&fp.old, &fp.new) {
                    (None, Some(n)) => {
                        let _ = writeln!(
                            g.out,
                            " create mode {:o} {n}",
                            fp.new_mode.unwrap_or(0o100644)
                        );
                    }
                    (Some(old), None) => {
                        let _ = writeln!(
                            g.out,
                            " delete mode {:o} {old}",
                            fp.new_mode.unwrap_or(0o100644)
                        );
                    }
                    _ => {}
                }
            }
        }
        if !also_apply {
            return Ok(0);
        }
    }
    if fix_ws {
        let source = files.first().map_or("<stdin>", String::as_str).to_string();
        data = fix_whitespace(g, &data, &source);
    }
    let repo = match g.repo() {
        Ok(r) => r,
        // Outside a repository git applies to the files as `patch` does.
        Err(_) if !o.index && !o.cached => crate::repo::Repo::open(g.fs, &g.cwd, g.getenv("HOME"))?,
        Err(e) => return Err(e),
    };
    Ok(if apply_patch_rejecting(g, &repo, &data, o)? {
        1
    } else {
        0
    })
}
