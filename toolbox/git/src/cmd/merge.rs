//! `merge` (fast-forward and three-way with conflict markers) and the
//! three-way merge of trees and of file contents that `cherry-pick`,
//! `revert`, `rebase` and `stash` share.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;

use gix_hash::ObjectId;
use gix_object::Kind;

use super::branch::{two_tree, write_work_file};
use super::{G, rev_commit, split_short};
use crate::diff;
use crate::error::{GitError, Result};
use crate::repo::{IndexEntry, Repo};

pub type Files = BTreeMap<String, (u32, ObjectId)>;

/// The result of merging one file's contents.
pub struct FileMerge {
    /// The merged text (with conflict markers when `conflict`).
    pub text: Vec<u8>,
    /// Whether a conflict remained.
    pub conflict: bool,
}

/// How conflicting hunks come out: git's `-X ours|theirs` and the diff3
/// conflict style (`merge.conflictStyle`), whose markers show the base.
#[derive(Clone, Copy, Default)]
pub struct MergeStyle<'l> {
    /// `Some(true)`: our side wins a conflicting hunk; `Some(false)`: theirs.
    pub favor_ours: Option<bool>,
    /// The label of the base section (`||||||| LABEL`) in diff3 style.
    pub diff3_base: Option<&'l str>,
}

fn lines(data: &[u8]) -> Vec<&[u8]> {
    data.split_inclusive(|&b| b == b'\n').collect()
}

/// Three-way merge of texts (git's default `merge` conflict style, with
/// the zealous trimming of lines both sides share), or as `style` says.
pub fn merge_text_styled(
    base: &[u8],
    ours: &[u8],
    theirs: &[u8],
    (our_label, their_label): (&str, &str),
    style: MergeStyle<'_>,
    check: diff::Check<'_>,
) -> Result<FileMerge> {
    let b = lines(base);
    let o = lines(ours);
    let t = lines(theirs);
    let ho = diff::hunks(base, ours, check)?;
    let ht = diff::hunks(base, theirs, check)?;
    // (start, end in base, side 0/1, after start, after end)
    let mut all: Vec<(u32, u32, usize, u32, u32)> = Vec::new();
    for h in &ho {
        all.push((h.before.start, h.before.end, 0, h.after.start, h.after.end));
    }
    for h in &ht {
        all.push((h.before.start, h.before.end, 1, h.after.start, h.after.end));
    }
    all.sort_by_key(|x| (x.0, x.1));
    let mut out: Vec<u8> = Vec::new();
    let mut conflict = false;
    let mut pos = 0u32;
    let mut i = 0;
    let (mut delta_o, mut delta_t) = (0i64, 0i64);
    while i < all.len() {
        let lo = all[i].0;
        let mut hi = all[i].1;
        let mut j = i + 1;
        // Changes that overlap or touch form one region (git conflicts on both).
        while j < all.len() && all[j].0 <= hi {
            hi = hi.max(all[j].1);
            j += 1;
        }
        for k in pos..lo {
            out.extend_from_slice(b[k as usize]);
        }
        let cluster = &all[i..j];
        let side_range = |side: usize, delta: i64| -> (usize, usize, i64) {
            let hs: Vec<&(u32, u32, usize, u32, u32)> =
                cluster.iter().filter(|h| h.2 == side).collect();
            let d_in: i64 = hs
                .iter()
                .map(|h| (h.4 - h.3) as i64 - (h.1 - h.0) as i64)
                .sum();
            let start = (lo as i64 + delta) as usize;
            let end = (hi as i64 + delta + d_in) as usize;
            (start, end, d_in)
        };
        let has_o = cluster.iter().any(|h| h.2 == 0);
        let has_t = cluster.iter().any(|h| h.2 == 1);
        let (os, oe, dio) = side_range(0, delta_o);
        let (ts, te, dit) = side_range(1, delta_t);
        let oc: Vec<&[u8]> = o[os.min(o.len())..oe.min(o.len())].to_vec();
        let tc: Vec<&[u8]> = t[ts.min(t.len())..te.min(t.len())].to_vec();
        if has_o && !has_t {
            oc.iter().for_each(|l| out.extend_from_slice(l));
        } else if has_t && !has_o {
            tc.iter().for_each(|l| out.extend_from_slice(l));
        } else if oc == tc {
            oc.iter().for_each(|l| out.extend_from_slice(l));
        } else if let Some(ours_wins) = style.favor_ours {
            let side = if ours_wins { &oc } else { &tc };
            side.iter().for_each(|l| out.extend_from_slice(l));
        } else if let Some(label) = style.diff3_base {
            // diff3 keeps the whole regions: the base needs them untrimmed.
            conflict = true;
            let push_side = |out: &mut Vec<u8>, ls: &[&[u8]]| {
                for l in ls {
                    out.extend_from_slice(l);
                    if !l.ends_with(b"\n") {
                        out.push(b'\n');
                    }
                }
            };
            let bc: Vec<&[u8]> = b[(lo as usize).min(b.len())..(hi as usize).min(b.len())].to_vec();
            let _ = writeln!(out, "<<<<<<< {our_label}");
            push_side(&mut out, &oc);
            let _ = writeln!(out, "||||||| {label}");
            push_side(&mut out, &bc);
            out.extend_from_slice(b"=======\n");
            push_side(&mut out, &tc);
            let _ = writeln!(out, ">>>>>>> {their_label}");
        } else {
            conflict = true;
            let mut p = 0;
            while p < oc.len() && p < tc.len() && oc[p] == tc[p] {
                out.extend_from_slice(oc[p]);
                p += 1;
            }
            let mut s = 0;
            while s < oc.len() - p
                && s < tc.len() - p
                && oc[oc.len() - 1 - s] == tc[tc.len() - 1 - s]
            {
                s += 1;
            }
            let push_side = |out: &mut Vec<u8>, ls: &[&[u8]]| {
                for l in ls {
                    out.extend_from_slice(l);
                    if !l.ends_with(b"\n") {
                        out.push(b'\n');
                    }
                }
            };
            let _ = writeln!(out, "<<<<<<< {our_label}");
            push_side(&mut out, &oc[p..oc.len() - s]);
            out.extend_from_slice(b"=======\n");
            push_side(&mut out, &tc[p..tc.len() - s]);
            let _ = writeln!(out, ">>>>>>> {their_label}");
            for l in &oc[oc.len() - s..] {
                out.extend_from_slice(l);
            }
        }
        delta_o += dio;
        delta_t += dit;
        pos = hi;
        i = j;
    }
    for l in &b[(pos as usize).min(b.len())..] {
        out.extend_from_slice(l);
    }
    Ok(FileMerge {
        text: out,
        conflict,
    })
}

/// The outcome of a tree merge.
pub struct TreeMerge {
    /// Clean results: path -> (mode, id); conflicted paths hold their marked-up blob.
    pub files: Files,
    /// Conflicted paths with (base, ours, theirs) versions.
    pub conflicts: BTreeMap<String, [Option<(u32, ObjectId)>; 3]>,
    /// Paths merged with content from both sides (git says "Auto-merging").
    pub auto_merged: Vec<String>,
    /// Conflict messages in git's words.
    pub messages: Vec<String>,
}

/// Merges `ours` and `theirs` over `base`.
pub fn merge_trees(
    repo: &Repo<'_>,
    base: &Files,
    ours: &Files,
    theirs: &Files,
    our_label: &str,
    their_label: &str,
    check: diff::Check<'_>,
) -> Result<TreeMerge> {
    merge_trees_styled(
        repo,
        [base, ours, theirs],
        (our_label, their_label),
        MergeStyle::default(),
        check,
    )
}

/// [`merge_trees`] with a conflict style.
pub fn merge_trees_styled(
    repo: &Repo<'_>,
    [base, ours, theirs]: [&Files; 3],
    (our_label, their_label): (&str, &str),
    style: MergeStyle<'_>,
    check: diff::Check<'_>,
) -> Result<TreeMerge> {
    let mut files = Files::new();
    let mut conflicts = BTreeMap::new();
    let mut auto_merged = Vec::new();
    let mut messages = Vec::new();
    let paths: BTreeSet<&String> = base
        .keys()
        .chain(ours.keys())
        .chain(theirs.keys())
        .collect();
    for p in paths {
        let (b, o, t) = (
            base.get(p).copied(),
            ours.get(p).copied(),
            theirs.get(p).copied(),
        );
        let pick = if o == t {
            o
        } else if b == o {
            t
        } else if b == t {
            o
        } else {
            match (b, o, t) {
                (_, Some(ov), Some(tv)) => {
                    auto_merged.push(p.clone());
                    let bd = match b {
                        Some((_, id)) => repo.read_kind(&id, Kind::Blob)?,
                        None => Vec::new(),
                    };
                    let od = repo.read_kind(&ov.1, Kind::Blob)?;
                    let td = repo.read_kind(&tv.1, Kind::Blob)?;
                    check()?;
                    let m =
                        merge_text_styled(&bd, &od, &td, (our_label, their_label), style, check)?;
                    let id = repo.write_object(Kind::Blob, &m.text)?;
                    let mode = if ov.0 == tv.0 {
                        ov.0
                    } else if b.is_some_and(|bv| bv.0 == ov.0) {
                        tv.0
                    } else {
                        ov.0
                    };
                    if m.conflict {
                        let kind = if b.is_none() { "add/add" } else { "content" };
                        messages.push(format!("CONFLICT ({kind}): Merge conflict in {p}"));
                        conflicts.insert(p.clone(), [b, o, t]);
                    }
                    Some((mode, id))
                }
                (Some(_), Some(ov), None) => {
                    messages.push(format!("CONFLICT (modify/delete): {p} deleted in {their_label} and modified in {our_label}.  Version {our_label} of {p} left in tree."));
                    conflicts.insert(p.clone(), [b, o, t]);
                    Some(ov)
                }
                (Some(_), None, Some(tv)) => {
                    messages.push(format!("CONFLICT (modify/delete): {p} deleted in {our_label} and modified in {their_label}.  Version {their_label} of {p} left in tree."));
                    conflicts.insert(p.clone(), [b, o, t]);
                    Some(tv)
                }
                _ => None,
            }
        };
        if let Some(v) = pick {
            files.insert(p.clone(), v);
        }
    }
    Ok(TreeMerge {
        files,
        conflicts,
        auto_merged,
        messages,
    })
}

/// Writes a merge result to the index (conflicts as stages 1-3) and work tree.
pub fn apply_merge(
    g: &mut G<'_, '_>,
    repo: &Repo<'_>,
    current: &Files,
    m: &TreeMerge,
) -> Result<bool> {
    let mut clean_target = m.files.clone();
    for p in m.conflicts.keys() {
        clean_target.remove(p);
    }
    // Move to the clean result first (checks local changes), then add conflicts.
    let mut target_with_conflicts = clean_target.clone();
    for (p, v) in &m.files {
        if m.conflicts.contains_key(p) {
            target_with_conflicts.insert(p.clone(), *v);
        }
    }
    if !two_tree(g, repo, current, &target_with_conflicts, false, "merge")? {
        return Ok(false);
    }
    if m.conflicts.is_empty() {
        return Ok(true);
    }
    let mut index: Vec<IndexEntry> = repo
        .read_index()?
        .into_iter()
        .filter(|e| !m.conflicts.contains_key(&e.path))
        .collect();
    for (p, stages) in &m.conflicts {
        for (n, s) in stages.iter().enumerate() {
            if let Some((mode, id)) = s {
                index.push(IndexEntry {
                    path: p.clone(),
                    id: *id,
                    mode: *mode,
                    stage: n as u8 + 1,
                    size: 0,
                    mtime: (0, 0),
                });
            }
        }
        if let Some((mode, id)) = m.files.get(p) {
            write_work_file(repo, p, *mode, id)?;
        }
    }
    repo.write_index(&index)?;
    Ok(true)
}

pub fn files_of(repo: &Repo<'_>, id: Option<&ObjectId>) -> Result<Files> {
    repo.commit_files(id)
}

/// `git merge [--no-ff|--ff-only] [-m MSG] [--abort] COMMIT`.
pub fn merge(g: &mut G<'_, '_>) -> Result<i32> {
    let repo = g.repo()?;
    let args = split_short(&g.args, &['m', 'X', 's']);
    let (mut no_ff, mut ff_only, mut abort, mut quiet, mut no_commit) =
        (false, false, false, false, false);
    let (mut favor_ours, mut squash) = (None, false);
    let mut message: Option<String> = None;
    let mut targets = Vec::new();
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--no-ff" => no_ff = true,
            "--ff-only" => ff_only = true,
            "--ff" | "--no-edit" | "--stat" | "--no-stat" | "-n" => {}
            "--abort" => abort = true,
            "--no-commit" => no_commit = true,
            "-q" | "--quiet" => quiet = true,
            "--squash" => squash = true,
            "-m" => {
                i += 1;
                message = args.get(i).cloned();
            }
            "-X" | "--strategy-option" | "-s" | "--strategy" => {
                let opt = args[i].clone();
                i += 1;
                let v = args.get(i).cloned().unwrap_or_default();
                if opt == "-X" || opt == "--strategy-option" {
                    favor_ours = strategy_option(&v)?.or(favor_ours);
                } else if !matches!(v.as_str(), "ort" | "recursive" | "resolve") {
                    return Err(GitError::fatal(format!(
                        "Could not find merge strategy '{v}'."
                    )));
                }
            }
            s if s.starts_with("--strategy-option=") => {
                favor_ours = strategy_option(&s[18..])?.or(favor_ours);
            }
            s if s.starts_with("-X") => favor_ours = strategy_option(&s[2..])?.or(favor_ours),
            s if s.starts_with('-') => {
                return Err(GitError::Usage(format!(
                    "error: unknown option `{}'",
                    s.trim_start_matches('-')
                )));
            }
            s => targets.push(s.to_string()),
        }
        i += 1;
    }
    if abort {
        if !repo.fs.exists(&repo.gp("MERGE_HEAD")) {
            return Err(GitError::fatal(
                "There is no merge to abort (MERGE_HEAD missing).",
            ));
        }
        let head = repo.head();
        let to = files_of(&repo, head.as_ref())?;
        two_tree(g, &repo, &to, &to, true, "reset")?;
        for f in ["MERGE_HEAD", "MERGE_MSG", "MERGE_MODE"] {
            let _ = repo.fs.remove_file(&repo.gp(f));
        }
        return Ok(0);
    }
    if repo.fs.exists(&repo.gp("MERGE_HEAD")) {
        return Err(GitError::fatal(
            "You have not concluded your merge (MERGE_HEAD exists).\nPlease, commit your changes before you merge.",
        ));
    }
    let Some(target) = targets.first().cloned() else {
        return Err(GitError::fatal("No remote for the current branch."));
    };
    let theirs = match rev_commit(&repo, &target) {
        Ok(id) => id,
        Err(_) => {
            return Err(GitError::Raw(
                format!("merge: {target} - not something we can merge"),
                1,
            ));
        }
    };
    let action = g
        .getenv("GIT_REFLOG_ACTION")
        .map(str::to_string)
        .unwrap_or_else(|| format!("merge {target}"));
    let Some(ours) = repo.head() else {
        repo.reflog_message(format!("{action}: Fast-forward"));
        // Unborn: fast-forward to theirs.
        let to = files_of(&repo, Some(&theirs))?;
        two_tree(g, &repo, &Files::new(), &to, false, "merge")?;
        repo.update_head(&theirs)?;
        return Ok(0);
    };
    let bases = super::log::merge_bases(&repo, &ours, &theirs, &|| g.check())?;
    if bases.contains(&theirs) {
        let _ = writeln!(g.out, "Already up to date.");
        return Ok(0);
    }
    let current = files_of(&repo, Some(&ours))?;
    if bases.contains(&ours) && !no_ff {
        let to = files_of(&repo, Some(&theirs))?;
        if !quiet {
            let _ = writeln!(
                g.out,
                "Updating {}..{}",
                repo.abbrev(&ours),
                repo.abbrev(&theirs)
            );
        }
        if !two_tree(g, &repo, &current, &to, false, "merge")? {
            return Ok(1);
        }
        if squash {
            write_squash_msg(g, &repo, &ours, &theirs)?;
            if !quiet {
                let _ = writeln!(g.out, "Fast-forward\nSquash commit -- not updating HEAD");
                let old = diff::side_of(&current);
                let new = diff::side_of(&to);
                super::status::merge_summary(g, &repo, &old, &new)?;
            }
            return Ok(0);
        }
        repo.set_ref("ORIG_HEAD", &ours)?;
        repo.reflog_message(format!("{action}: Fast-forward"));
        repo.update_head(&theirs)?;
        if !quiet {
            let _ = writeln!(g.out, "Fast-forward");
            let old = diff::side_of(&current);
            let new = diff::side_of(&to);
            super::status::merge_summary(g, &repo, &old, &new)?;
        }
        return Ok(0);
    }
    if ff_only {
        let _ = writeln!(
            g.err,
            "hint: Diverging branches can't be fast-forwarded, you need to either:\nhint:\nhint: \tgit merge --no-ff\nhint:\nhint: or:\nhint:\nhint: \tgit rebase\nhint:\nhint: Disable this message with \"git config advice.diverging false\"\nfatal: Not possible to fast-forward, aborting."
        );
        return Ok(128);
    }
    let base_files = match bases.first() {
        Some(b) => files_of(&repo, Some(b))?,
        None => {
            return Err(GitError::fatal("refusing to merge unrelated histories"));
        }
    };
    let theirs_files = files_of(&repo, Some(&theirs))?;
    let base_label = bases.first().map(|b| repo.abbrev(b)).unwrap_or_default();
    let diff3 = super::config_get(g, Some(&repo), "merge.conflictStyle")
        .is_some_and(|v| v == "diff3" || v == "zdiff3");
    let style = MergeStyle {
        favor_ours,
        diff3_base: diff3.then_some(base_label.as_str()),
    };
    let m = merge_trees_styled(
        &repo,
        [&base_files, &current, &theirs_files],
        ("HEAD", &target),
        style,
        &g.checker(),
    )?;
    let branch = repo.head_branch();
    let msg = match &message {
        Some(m) => super::status::cleanup_message(m, false),
        None => {
            let what = if repo.ref_exists(&format!("refs/heads/{target}")) {
                format!("branch '{target}'")
            } else {
                format!("commit '{target}'")
            };
            match branch.as_deref() {
                Some("master") | Some("main") | None => format!("Merge {what}\n"),
                Some(b) => format!("Merge {what} into {b}\n"),
            }
        }
    };
    if !apply_merge(g, &repo, &current, &m)? {
        return Ok(2);
    }
    for p in &m.auto_merged {
        let _ = writeln!(g.out, "Auto-merging {p}");
    }
    for msg_line in &m.messages {
        let _ = writeln!(g.out, "{msg_line}");
    }
    if squash {
        write_squash_msg(g, &repo, &ours, &theirs)?;
        let _ = writeln!(g.out, "Squash commit -- not updating HEAD");
        if m.conflicts.is_empty() {
            let _ = writeln!(
                g.err,
                "Automatic merge went well; stopped before committing as requested"
            );
            return Ok(0);
        }
        let _ = writeln!(
            g.out,
            "Automatic merge failed; fix conflicts and then commit the result."
        );
        return Ok(1);
    }
    repo.set_ref("ORIG_HEAD", &ours)?;
    if !m.conflicts.is_empty() || no_commit {
        repo.fs.write(
            &repo.gp("MERGE_HEAD"),
            format!("{}\n", theirs.to_hex()).as_bytes(),
        )?;
        let mut merge_msg = msg.clone();
        if !m.conflicts.is_empty() {
            merge_msg.push_str("\n# Conflicts:\n");
            for p in m.conflicts.keys() {
                merge_msg.push_str(&format!("#\t{p}\n"));
            }
        }
        repo.fs.write(&repo.gp("MERGE_MSG"), merge_msg.as_bytes())?;
        repo.fs.write(&repo.gp("MERGE_MODE"), b"")?;
        if m.conflicts.is_empty() {
            let _ = writeln!(
                g.err,
                "Automatic merge went well; stopped before committing as requested"
            );
            return Ok(0);
        }
        let _ = writeln!(
            g.out,
            "Automatic merge failed; fix conflicts and then commit the result."
        );
        return Ok(1);
    }
    let index = repo.read_index()?;
    let tree = repo.write_index_tree(&index)?;
    let id = super::status::make_commit(g, &repo, tree, vec![ours, theirs], &msg, None)?;
    repo.reflog_message(format!("{action}: Merge made by the 'ort' strategy."));
    repo.update_head(&id)?;
    if !quiet {
        let _ = writeln!(g.out, "Merge made by the 'ort' strategy.");
        let old = diff::side_of(&current);
        let new = super::status::index_side(&index);
        super::status::merge_summary(g, &repo, &old, &new)?;
    }
    Ok(0)
}

/// `-X ours|theirs` (other strategy options are accepted and change nothing).
fn strategy_option(v: &str) -> Result<Option<bool>> {
    Ok(match v {
        "ours" => Some(true),
        "theirs" => Some(false),
        "patience"
        | "histogram"
        | "minimal"
        | "diff-algorithm=myers"
        | "ignore-space-change"
        | "ignore-all-space"
        | "ignore-space-at-eol"
        | "renormalize"
        | "no-renormalize"
        | "find-renames" => None,
        s if s.starts_with("find-renames=") || s.starts_with("diff-algorithm=") => None,
        other => {
            return Err(GitError::fatal(format!(
                "unknown strategy option: -X{other}"
            )));
        }
    })
}

/// `.git/SQUASH_MSG` as `merge --squash` writes it: every commit being
/// squashed, newest first, in `log`'s medium format.
fn write_squash_msg(
    g: &G<'_, '_>,
    repo: &Repo<'_>,
    ours: &ObjectId,
    theirs: &ObjectId,
) -> Result<()> {
    let ids = super::log::walk(g, repo, &[*theirs], &[*ours], false)?;
    let mut msg = String::from("Squashed commit of the following:\n");
    for id in ids {
        let c = repo.commit(&id)?;
        let date = super::pretty::fmt_date(&c.author.time, &super::pretty::DateStyle::Default);
        msg.push_str(&format!(
            "\ncommit {}\nAuthor: {} <{}>\nDate:   {date}\n\n",
            id.to_hex(),
            c.author.name,
            c.author.email
        ));
        for l in c.message.to_string().trim_end().lines() {
            if l.is_empty() {
                msg.push('\n');
            } else {
                msg.push_str(&format!("    {l}\n"));
            }
        }
    }
    repo.fs.write(&repo.gp("SQUASH_MSG"), msg.as_bytes())?;
    Ok(())
}
