//! `blame`: for each line of a file, the commit that last changed it.
//! Lines pass from a commit to the first parent holding them unchanged
//! (so a merge hands each line to the side it came from); commits are
//! visited newest first; uncommitted lines belong to "Not Committed Yet".
//! The walk checks the run's deadline at every commit.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;

use bstr::ByteSlice;
use gix_hash::ObjectId;

use super::G;
use super::pretty::{DateStyle, fmt_date};
use crate::diff;
use crate::error::{GitError, Result};
use crate::worktree::Pathspec;

/// Who a line belongs to: a commit, or the work tree (`None`).
#[derive(Clone)]
struct Owner {
    commit: Option<ObjectId>,
    /// The line's number in the owner's version (from 1).
    orig_line: usize,
    /// The file's name in the owner's version.
    path: String,
}

struct Opts {
    suppress: bool,
    long: bool,
    email: bool,
    show_number: bool,
    porcelain: bool,
    line_porcelain: bool,
    ignore_ws: bool,
    range: Option<(String, Option<String>)>,
}

/// Each line with its spaces and tabs removed (`-w`).
fn without_ws(data: &[u8]) -> Vec<u8> {
    data.iter()
        .copied()
        .filter(|b| *b == b'\n' || !b.is_ascii_whitespace())
        .collect()
}

/// Lines of `new` that come unchanged from `old`: new index -> old index.
/// For each line of a new version, its line in the old one when unchanged.
struct LineMap(Vec<Option<usize>>);

impl LineMap {
    fn get(&self, line: &usize) -> Option<&usize> {
        self.0.get(*line).and_then(Option::as_ref)
    }

    fn contains_key(&self, line: &usize) -> bool {
        self.get(line).is_some()
    }

    fn insert(&mut self, new: usize, old: usize) {
        if let Some(slot) = self.0.get_mut(new) {
            *slot = Some(old);
        }
    }
}

/// The blob at `path` in `commit`'s tree, found along the path (no whole
/// tree listing per commit).
fn blob_in(
    repo: &crate::repo::Repo<'_>,
    commit: &ObjectId,
    path: &str,
) -> Result<Option<ObjectId>> {
    let mut cur = repo.commit(commit)?.tree;
    let parts: Vec<&str> = path.split('/').collect();
    for (k, part) in parts.iter().enumerate() {
        let entries = repo.tree(&cur)?;
        let Some((_, mode, id)) = entries.iter().find(|(n, _, _)| n == part) else {
            return Ok(None);
        };
        let is_tree = *mode == 0o40000;
        if k + 1 == parts.len() {
            return Ok(if is_tree { None } else { Some(*id) });
        }
        if !is_tree {
            return Ok(None);
        }
        cur = *id;
    }
    Ok(None)
}

fn unchanged_map(old: &[u8], new: &[u8], check: diff::Check<'_>) -> Result<LineMap> {
    let hunks = diff::hunks(old, new, check)?;
    let n_new = new.split_inclusive(|&b| b == b'\n').count();
    let mut map = LineMap(vec![None; n_new]);
    let (mut i_old, mut i_new) = (0usize, 0usize);
    for h in &hunks {
        while i_new < h.after.start as usize {
            map.insert(i_new, i_old);
            i_new += 1;
            i_old += 1;
        }
        i_new = h.after.end as usize;
        i_old = h.before.end as usize;
    }
    while i_new < n_new {
        map.insert(i_new, i_old);
        i_new += 1;
        i_old += 1;
    }
    Ok(map)
}

/// Parses `-L` bounds against a file of `n` lines: (first, last), from 1.
fn line_range(spec: &(String, Option<String>), n: usize, path: &str) -> Result<(usize, usize)> {
    let start: usize = spec
        .0
        .parse()
        .map_err(|_| GitError::fatal(format!("invalid -L range '{}'", spec.0)))?;
    let start = start.max(1);
    if start > n {
        return Err(GitError::fatal(format!(
            "file {path} has only {n} line{}",
            if n == 1 { "" } else { "s" }
        )));
    }
    let end = match spec.1.as_deref() {
        None | Some("") => n,
        Some(e) if e.starts_with('+') => {
            let k: usize = e[1..]
                .parse()
                .map_err(|_| GitError::fatal(format!("invalid -L range '{e}'")))?;
            (start + k.max(1) - 1).min(n)
        }
        Some(e) if e.starts_with('-') => {
            let k: usize = e[1..]
                .parse()
                .map_err(|_| GitError::fatal(format!("invalid -L range '{e}'")))?;
            return Ok((start.saturating_sub(k.max(1) - 1).max(1), start));
        }
        Some(e) => e
            .parse::<usize>()
            .map_err(|_| GitError::fatal(format!("invalid -L range '{e}'")))?
            .min(n),
    };
    Ok(if end < start {
        (end.max(1), start)
    } else {
        (start, end)
    })
}

/// `git blame [-s] [-l] [-e] [-n] [-w] [-L A,B] [--porcelain] [REV] [--] FILE`.
pub fn blame(g: &mut G<'_, '_>) -> Result<i32> {
    let mut o = Opts {
        suppress: false,
        long: false,
        email: false,
        show_number: false,
        porcelain: false,
        line_porcelain: false,
        ignore_ws: false,
        range: None,
    };
    let args = g.args.clone();
    let mut rest = Vec::new();
    let mut dashdash = false;
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if dashdash {
            rest.push(a.clone());
            continue;
        }
        let mut range_arg = |v: &str| {
            let (x, y) = match v.split_once(',') {
                Some((x, y)) => (x.to_string(), Some(y.to_string())),
                None => (v.to_string(), Some(String::new())),
            };
            o.range = Some((x, y));
        };
        match a.as_str() {
            "--" => dashdash = true,
            "-s" => o.suppress = true,
            "-l" => o.long = true,
            "-e" | "--show-email" => o.email = true,
            "-n" | "--show-number" => o.show_number = true,
            "-p" | "--porcelain" => o.porcelain = true,
            "--line-porcelain" => {
                o.porcelain = true;
                o.line_porcelain = true;
            }
            "-w" => o.ignore_ws = true,
            "-M" | "-C" | "--root" | "-f" | "--show-name" | "-c" => {}
            "-L" => {
                let v = args.get(i).cloned().unwrap_or_default();
                i += 1;
                range_arg(&v);
            }
            s if s.starts_with("-L") => range_arg(&s[2..]),
            s if s.starts_with('-') && s.len() > 1 => {
                return Err(GitError::Usage(format!(
                    "error: unknown option `{}'",
                    s.trim_start_matches('-')
                )));
            }
            _ => rest.push(a.clone()),
        }
    }
    let repo = g.repo()?;
    let (rev_arg, file) = match rest.as_slice() {
        [f] => (None, f.clone()),
        [r, f] => (Some(r.clone()), f.clone()),
        _ => {
            return Err(GitError::Usage(
                "usage: git blame [<options>] [<rev-opts>] [<rev>] [--] <file>".into(),
            ));
        }
    };
    let path = Pathspec::new(&repo, &g.cwd, std::slice::from_ref(&file))?.items[0].clone();
    let start = match &rev_arg {
        Some(r) => super::rev_commit(&repo, r)?,
        None => repo
            .head()
            .ok_or_else(|| GitError::fatal("no such ref: HEAD"))?,
    };
    let head_blob = blob_in(&repo, &start, &path)?;
    let work = if rev_arg.is_none() {
        crate::worktree::file_content(&repo, &path).ok()
    } else {
        None
    };
    let (final_content, head_content) = match (&work, head_blob) {
        (Some(w), Some(b)) => (w.clone(), repo.read_kind(&b, gix_object::Kind::Blob)?),
        (Some(_), None) | (None, None) => {
            return Err(GitError::fatal(format!(
                "no such path '{path}' in {}",
                rev_arg.as_deref().unwrap_or("HEAD")
            )));
        }
        (None, Some(b)) => {
            let c = repo.read_kind(&b, gix_object::Kind::Blob)?;
            (c.clone(), c)
        }
    };
    let final_lines: Vec<&[u8]> = final_content.split_inclusive(|&b| b == b'\n').collect();
    let n = final_lines.len();
    let check = g.checker();
    let mut owner: Vec<Option<Owner>> = vec![None; n];
    // Lines still looking for their commit, per commit and file name:
    // (final, in that version).
    type Pending =
        BTreeMap<(std::cmp::Reverse<i64>, u64), (ObjectId, ObjectId, String, Vec<(usize, usize)>)>;
    let mut pending: Pending = BTreeMap::new();
    let mut seq = 0u64;
    let mut queue_lines = |pending: &mut Pending,
                           c: ObjectId,
                           blob: ObjectId,
                           at: String,
                           lines: Vec<(usize, usize)>,
                           time: i64| {
        pending.insert((std::cmp::Reverse(time), seq), (c, blob, at, lines));
        seq += 1;
    };
    let ws = o.ignore_ws;
    let unchanged = |old: &[u8], new: &[u8]| -> Result<LineMap> {
        if ws {
            unchanged_map(&without_ws(old), &without_ws(new), &check)
        } else {
            unchanged_map(old, new, &check)
        }
    };
    let head_lines: Vec<(usize, usize)> = if final_content == head_content {
        (0..n).map(|i| (i, i)).collect()
    } else {
        let map = unchanged(&head_content, &final_content)?;
        let mut v = Vec::new();
        for (f, slot) in owner.iter_mut().enumerate() {
            match map.get(&f) {
                Some(&h) => v.push((f, h)),
                None => {
                    *slot = Some(Owner {
                        commit: None,
                        orig_line: f + 1,
                        path: path.clone(),
                    })
                }
            }
        }
        v
    };
    let Some(hb) = head_blob else {
        return Err(GitError::fatal(format!("no such path '{path}' in HEAD")));
    };
    let mut boundary: std::collections::HashSet<ObjectId> = Default::default();
    let t = repo.commit(&start)?.committer.time.seconds;
    queue_lines(&mut pending, start, hb, path.clone(), head_lines, t);
    while let Some((_, (c, blob, at, lines))) = pending.pop_first() {
        g.check()?;
        // Lines of the same commit queued twice (through two children) merge.
        let mut lines = lines;
        let same: Vec<_> = pending
            .iter()
            .filter(|(_, v)| v.0 == c && v.2 == at)
            .map(|(k, _)| *k)
            .collect();
        for k in same {
            if let Some((_, _, _, more)) = pending.remove(&k) {
                lines.extend(more);
            }
        }
        let commit = repo.commit(&c)?;
        let content = repo.read_kind(&blob, gix_object::Kind::Blob)?;
        let mut left = lines;
        if commit.parents.is_empty() {
            boundary.insert(c);
        }
        for p in &commit.parents {
            if left.is_empty() {
                break;
            }
            // The file under its name in the parent, or the name it had
            // before a rename this commit made.
            let (pat, pb) = match blob_in(&repo, p, &at)? {
                Some(v) => (at.clone(), v),
                None => {
                    let parent_files = repo.commit_files(Some(p))?;
                    let here = repo.flatten_tree(&commit.tree)?;
                    let changes = diff::changes_with_renames(
                        &repo,
                        &diff::side_of(&parent_files),
                        &diff::side_of(&here),
                        &|_| true,
                        &check,
                    )?;
                    match changes
                        .iter()
                        .find(|ch| ch.path == at)
                        .and_then(|ch| ch.from.clone())
                        .and_then(|f| parent_files.get(&f).map(|v| (f, v.1)))
                    {
                        Some(found) => found,
                        None => continue,
                    }
                }
            };
            let pt = repo.commit(p)?.committer.time.seconds;
            if pb == blob {
                queue_lines(&mut pending, *p, pb, pat, std::mem::take(&mut left), pt);
                break;
            }
            let old = repo.read_kind(&pb, gix_object::Kind::Blob)?;
            let map = unchanged(&old, &content)?;
            let (moved, stay): (Vec<_>, Vec<_>) =
                left.into_iter().partition(|(_, l)| map.contains_key(l));
            left = stay;
            if !moved.is_empty() {
                let moved = moved
                    .into_iter()
                    .map(|(f, l)| (f, map.get(&l).copied().unwrap_or(l)))
                    .collect();
                queue_lines(&mut pending, *p, pb, pat, moved, pt);
            }
        }
        for (f, l) in left {
            owner[f] = Some(Owner {
                commit: Some(c),
                orig_line: l + 1,
                path: at.clone(),
            });
        }
    }
    let (first, last) = match &o.range {
        Some(r) => line_range(r, n, &path)?,
        None => (1, n),
    };
    let mut infos: HashMap<ObjectId, gix_object::Commit> = HashMap::new();
    for ow in owner.iter().flatten() {
        if let Some(c) = ow.commit
            && !infos.contains_key(&c)
        {
            infos.insert(c, repo.commit(&c)?);
        }
    }
    let now = super::now(g);
    let not_committed = gix_actor::Signature {
        name: "Not Committed Yet".into(),
        email: "not.committed.yet".into(),
        time: now,
    };
    let person = |ow: &Owner| -> &gix_actor::Signature {
        match ow.commit {
            Some(c) => &infos[&c].author,
            None => &not_committed,
        }
    };
    if o.porcelain {
        let mut shown: std::collections::HashSet<Option<ObjectId>> = Default::default();
        let mut idx = first - 1;
        while idx < last {
            let Some(ow) = owner[idx].clone() else { break };
            // A group: consecutive lines of one commit, consecutive in it too.
            let mut len = 1;
            while idx + len < last
                && owner[idx + len]
                    .as_ref()
                    .is_some_and(|x| x.commit == ow.commit && x.orig_line == ow.orig_line + len)
            {
                len += 1;
            }
            for k in 0..len {
                let w = owner[idx + k].clone().unwrap_or_else(|| ow.clone());
                let hex = w
                    .commit
                    .map(|c| c.to_hex().to_string())
                    .unwrap_or_else(|| "0".repeat(40));
                if k == 0 {
                    let _ = writeln!(g.out, "{hex} {} {} {len}", w.orig_line, idx + k + 1);
                } else {
                    let _ = writeln!(g.out, "{hex} {} {}", w.orig_line, idx + k + 1);
                }
                if o.line_porcelain || shown.insert(w.commit) {
                    let a = person(&w);
                    let (cn, ce, ct) = match w.commit {
                        Some(c) => {
                            let cm = &infos[&c].committer;
                            (cm.name.to_string(), cm.email.to_string(), cm.time)
                        }
                        None => ("Not Committed Yet".into(), "not.committed.yet".into(), now),
                    };
                    let tz = |t: &gix_date::Time| {
                        fmt_date(t, &DateStyle::Raw)
                            .split(' ')
                            .nth(1)
                            .unwrap_or("+0000")
                            .to_string()
                    };
                    let summary = match w.commit {
                        Some(c) => super::status::subject(&infos[&c].message.to_str_lossy()),
                        None => "Version of ".to_string() + &path + " from " + &path,
                    };
                    let _ = writeln!(
                        g.out,
                        "author {}\nauthor-mail <{}>\nauthor-time {}\nauthor-tz {}",
                        a.name,
                        a.email,
                        a.time.seconds,
                        tz(&a.time)
                    );
                    let _ = writeln!(
                        g.out,
                        "committer {cn}\ncommitter-mail <{ce}>\ncommitter-time {}\ncommitter-tz {}",
                        ct.seconds,
                        tz(&ct)
                    );
                    let _ = writeln!(g.out, "summary {summary}");
                    if let Some(c) = w.commit {
                        if boundary.contains(&c) {
                            let _ = writeln!(g.out, "boundary");
                        } else if let Some(p) = infos[&c].parents.first() {
                            let _ = writeln!(g.out, "previous {} {}", p.to_hex(), w.path);
                        }
                    }
                    let _ = writeln!(g.out, "filename {}", w.path);
                }
                g.out.push(b'\t');
                g.out.extend_from_slice(final_lines[idx + k]);
                if !final_lines[idx + k].ends_with(b"\n") {
                    g.out.push(b'\n');
                }
            }
            idx += len;
        }
        return Ok(0);
    }
    let shown_range = first - 1..last;
    let name_of = |ow: &Owner| -> String {
        let p = person(ow);
        if o.email {
            format!("<{}>", p.email)
        } else {
            p.name.to_str_lossy().into_owned()
        }
    };
    let name_w = owner[shown_range.clone()]
        .iter()
        .flatten()
        .map(|ow| name_of(ow).chars().count())
        .max()
        .unwrap_or(0);
    let num_w = last.to_string().len();
    let orig_w = owner[shown_range.clone()]
        .iter()
        .flatten()
        .map(|ow| ow.orig_line.to_string().len())
        .max()
        .unwrap_or(1);
    // A line that came from another name shows the names, as git does.
    let show_names = owner[shown_range.clone()]
        .iter()
        .flatten()
        .any(|ow| ow.path != path);
    let path_w = owner[shown_range.clone()]
        .iter()
        .flatten()
        .map(|ow| ow.path.chars().count())
        .max()
        .unwrap_or(0);
    for idx in shown_range {
        let Some(ow) = owner[idx].clone() else {
            continue;
        };
        let shown = match ow.commit {
            None => {
                if o.long {
                    "0".repeat(40)
                } else {
                    "00000000".into()
                }
            }
            Some(c) => {
                let hex = c.to_hex().to_string();
                let len = if o.long {
                    40
                } else {
                    repo.abbrev(&c).len() + 1
                };
                if boundary.contains(&c) {
                    format!("^{}", &hex[..len - 1])
                } else {
                    hex[..len].to_string()
                }
            }
        };
        let mut line = shown;
        if show_names {
            line.push_str(&format!(" {:<path_w$}", ow.path));
        }
        if o.show_number {
            line.push_str(&format!(" {:>orig_w$}", ow.orig_line));
        }
        if o.suppress {
            line.push_str(&format!(" {:>num_w$}) ", idx + 1));
        } else {
            let p = person(&ow);
            line.push_str(&format!(
                " ({:<name_w$} {} {:>num_w$}) ",
                name_of(&ow),
                fmt_date(&p.time, &DateStyle::Iso),
                idx + 1
            ));
        }
        g.out.extend_from_slice(line.as_bytes());
        g.out.extend_from_slice(final_lines[idx]);
        if !final_lines[idx].ends_with(b"\n") {
            g.out.push(b'\n');
        }
    }
    Ok(0)
}
