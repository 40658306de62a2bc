//! `stash`, `merge` (fast-forward and three-way with conflict markers),
//! `cherry-pick`, `clean` and `grep`, with the three-way merge of trees and
//! of file contents they share.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;

use bstr::ByteSlice;
use gix_hash::ObjectId;
use gix_object::Kind;

use super::branch::{two_tree, write_work_file};
use super::{G, rev_commit, split_short};
use crate::diff;
use crate::error::{GitError, Result};
use crate::repo::{IndexEntry, Repo};
use crate::worktree::{self, Ignore, Pathspec};

type Files = BTreeMap<String, (u32, ObjectId)>;

/// The result of merging one file's contents.
pub struct FileMerge {
    /// The merged text (with conflict markers when `conflict`).
    pub text: Vec<u8>,
    /// Whether a conflict remained.
    pub conflict: bool,
}

fn lines(data: &[u8]) -> Vec<&[u8]> {
    data.split_inclusive(|&b| b == b'\n').collect()
}

/// Three-way merge of texts (git's default `merge` conflict style, with
/// the zealous trimming of lines both sides share).
pub fn merge_text(
    base: &[u8],
    ours: &[u8],
    theirs: &[u8],
    our_label: &str,
    their_label: &str,
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
                    let m = merge_text(&bd, &od, &td, our_label, their_label, check)?;
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
fn apply_merge(g: &mut G<'_, '_>, repo: &Repo<'_>, current: &Files, m: &TreeMerge) -> Result<bool> {
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

fn files_of(repo: &Repo<'_>, id: Option<&ObjectId>) -> Result<Files> {
    repo.commit_files(id)
}

/// `git merge [--no-ff|--ff-only] [-m MSG] [--abort] COMMIT`.
pub fn merge(g: &mut G<'_, '_>) -> Result<i32> {
    let repo = g.repo()?;
    let args = split_short(&g.args, &['m']);
    let (mut no_ff, mut ff_only, mut abort, mut quiet, mut no_commit) =
        (false, false, false, false, false);
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
            "-m" => {
                i += 1;
                message = args.get(i).cloned();
            }
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
    let Some(ours) = repo.head() else {
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
        repo.set_ref("ORIG_HEAD", &ours)?;
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
            "hint: Diverging branches can't be fast-forwarded, you need to either:\nhint:\nhint: \tgit merge --no-ff\nhint:\nhint: or:\nhint:\nhint: \tgit rebase\nhint:\nhint: Disable this message with \"git config set advice.diverging false\"\nfatal: Not possible to fast-forward, aborting."
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
    let m = merge_trees(
        &repo,
        &base_files,
        &current,
        &theirs_files,
        "HEAD",
        &target,
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
    repo.update_head(&id)?;
    if !quiet {
        let _ = writeln!(g.out, "Merge made by the 'ort' strategy.");
        let old = diff::side_of(&current);
        let new = super::status::index_side(&index);
        super::status::merge_summary(g, &repo, &old, &new)?;
    }
    Ok(0)
}

/// `git cherry-pick COMMIT`.
pub fn cherry_pick(g: &mut G<'_, '_>) -> Result<i32> {
    let repo = g.repo()?;
    let targets: Vec<String> = g
        .args
        .iter()
        .filter(|a| !a.starts_with('-'))
        .cloned()
        .collect();
    if g.args.iter().any(|a| a == "--abort") {
        let head = repo.head();
        let to = files_of(&repo, head.as_ref())?;
        two_tree(g, &repo, &to, &to, true, "reset")?;
        let _ = repo.fs.remove_file(&repo.gp("CHERRY_PICK_HEAD"));
        let _ = repo.fs.remove_file(&repo.gp("MERGE_MSG"));
        return Ok(0);
    }
    let Some(head) = repo.head() else {
        return Err(GitError::fatal(
            "cherry-pick on an unborn branch is not available in the local sandbox",
        ));
    };
    let mut head = head;
    for t in targets {
        let id = rev_commit(&repo, &t)?;
        let c = repo.commit(&id)?;
        if c.parents.len() > 1 {
            return Err(GitError::error(format!(
                "commit {} is a merge but no -m option was given.\nfatal: cherry-pick failed",
                id.to_hex()
            )));
        }
        let base = files_of(&repo, c.parents.first())?;
        let current = files_of(&repo, Some(&head))?;
        let theirs = repo.flatten_tree(&c.tree)?;
        let subj = super::status::subject(&c.message.to_string());
        let label = format!("{} ({subj})", repo.abbrev(&id));
        let m = merge_trees(
            &repo,
            &base,
            &current,
            &theirs,
            "HEAD",
            &label,
            &g.checker(),
        )?;
        if !apply_merge(g, &repo, &current, &m)? {
            let _ = writeln!(g.err, "error: cherry-pick failed");
            return Ok(128);
        }
        for p in &m.auto_merged {
            let _ = writeln!(g.out, "Auto-merging {p}");
        }
        if !m.conflicts.is_empty() {
            for msg_line in &m.messages {
                let _ = writeln!(g.out, "{msg_line}");
            }
            repo.fs.write(
                &repo.gp("CHERRY_PICK_HEAD"),
                format!("{}\n", id.to_hex()).as_bytes(),
            )?;
            repo.fs.write(&repo.gp("MERGE_MSG"), c.message.as_slice())?;
            let _ = writeln!(
                g.err,
                "error: could not apply {label}...\nhint: After resolving the conflicts, mark them with\nhint: \"git add/rm <pathspec>\", then run\nhint: \"git cherry-pick --continue\".\nhint: You can instead skip this commit with \"git cherry-pick --skip\".\nhint: To abort and get back to the state before \"git cherry-pick\",\nhint: run \"git cherry-pick --abort\".\nhint: Disable this message with \"git config set advice.mergeConflict false\""
            );
            return Ok(1);
        }
        let index = repo.read_index()?;
        let tree = repo.write_index_tree(&index)?;
        let parent_tree = repo.commit(&head)?.tree;
        if tree == parent_tree {
            let _ = writeln!(
                g.err,
                "The previous cherry-pick is now empty, possibly due to conflict resolution."
            );
            return Ok(1);
        }
        let new = super::status::make_commit(
            g,
            &repo,
            tree,
            vec![head],
            &c.message.to_string(),
            Some(c.author.clone()),
        )?;
        repo.update_head(&new)?;
        let branch = repo.head_branch().unwrap_or_else(|| "detached HEAD".into());
        let _ = writeln!(g.out, "[{branch} {}] {subj}", repo.abbrev(&new));
        super::status::write_author_lines(g.out, &repo.commit(&new)?);
        super::status::commit_summary(
            g,
            &repo,
            &diff::side_of(&current),
            &diff::side_of(&theirs_applied(&index)),
        )?;
        head = new;
    }
    Ok(0)
}

fn theirs_applied(index: &[IndexEntry]) -> Files {
    index
        .iter()
        .filter(|e| e.stage == 0)
        .map(|e| (e.path.clone(), (e.mode, e.id)))
        .collect()
}

/// The stash entries, newest first: (commit, message).
pub fn stash_entries(repo: &Repo<'_>) -> Vec<(ObjectId, String)> {
    let mut out = Vec::new();
    if let Ok(data) = repo.fs.read(&repo.gp("logs/refs/stash")) {
        for line in data.lines() {
            let line = line.to_str_lossy();
            let Some((head, msg)) = line.split_once('\t') else {
                continue;
            };
            let mut parts = head.split(' ');
            let _old = parts.next();
            if let Some(new) = parts.next()
                && let Ok(id) = ObjectId::from_hex(new.as_bytes())
            {
                out.push((id, msg.to_string()));
            }
        }
    }
    out.reverse();
    out
}

fn write_stash_log(g: &G<'_, '_>, repo: &Repo<'_>, entries: &[(ObjectId, String)]) -> Result<()> {
    if entries.is_empty() {
        let _ = repo.fs.remove_file(&repo.gp("logs/refs/stash"));
        repo.delete_ref("refs/stash")?;
        return Ok(());
    }
    let sig = super::signature(g, repo, "committer")?;
    let mut text = String::new();
    let mut prev = ObjectId::null(crate::repo::HASH);
    for (id, msg) in entries.iter().rev() {
        let mut t = Vec::new();
        let _ = sig.time.write_to(&mut t);
        text.push_str(&format!(
            "{} {} {} <{}> {}\t{}\n",
            prev.to_hex(),
            id.to_hex(),
            sig.name,
            sig.email,
            String::from_utf8_lossy(&t),
            msg
        ));
        prev = *id;
    }
    repo.fs.mkdir_all(&repo.gp("logs/refs"))?;
    repo.fs
        .write(&repo.gp("logs/refs/stash"), text.as_bytes())?;
    repo.set_ref("refs/stash", &entries[0].0)?;
    Ok(())
}

fn stash_index(arg: Option<&String>) -> Result<usize> {
    match arg {
        None => Ok(0),
        Some(a) => {
            let n = a.trim_start_matches("stash@{").trim_end_matches('}');
            n.parse()
                .map_err(|_| GitError::error(format!("{a} is not a valid reference")))
        }
    }
}

/// `git stash [push [-m MSG] [-u]|pop|apply|list|drop|show|clear]`.
pub fn stash(g: &mut G<'_, '_>) -> Result<i32> {
    let repo = g.repo()?;
    let mut args = g.args.clone();
    let sub = if args.is_empty() || args[0].starts_with('-') {
        "push".to_string()
    } else {
        args.remove(0)
    };
    let mut entries = stash_entries(&repo);
    match sub.as_str() {
        "push" | "save" => {
            let mut message: Option<String> = None;
            let mut untracked = false;
            let mut quiet = false;
            let mut i = 0;
            while i < args.len() {
                match args[i].as_str() {
                    "-m" | "--message" => {
                        i += 1;
                        message = args.get(i).cloned();
                    }
                    "-u" | "--include-untracked" => untracked = true,
                    "-q" | "--quiet" => quiet = true,
                    s if !s.starts_with('-') && sub == "save" => message = Some(s.to_string()),
                    _ => {}
                }
                i += 1;
            }
            let Some(head) = repo.head() else {
                return Err(GitError::fatal("You do not have the initial commit yet"));
            };
            let spec = Pathspec::default();
            let st = super::status::state(g, &repo, &spec, untracked)?;
            if st.staged.is_empty()
                && st.unstaged.is_empty()
                && (!untracked || st.untracked.is_empty())
            {
                let _ = writeln!(g.out, "No local changes to save");
                return Ok(0);
            }
            let branch = repo.head_branch().unwrap_or_else(|| "(no branch)".into());
            let hc = repo.commit(&head)?;
            let desc = format!(
                "{} {}",
                repo.abbrev(&head),
                super::status::subject(&hc.message.to_string())
            );
            let index_tree = repo.write_index_tree(&st.index)?;
            let i_commit = super::status::make_commit(
                g,
                &repo,
                index_tree,
                vec![head],
                &format!("index on {branch}: {desc}\n"),
                None,
            )?;
            // The work tree of tracked files.
            let mut work: Files = st
                .index
                .iter()
                .filter(|e| e.stage == 0)
                .map(|e| (e.path.clone(), (e.mode, e.id)))
                .collect();
            for c in &st.unstaged {
                match &c.new {
                    Some(v) => {
                        let data = worktree::file_content(&repo, &c.path)?;
                        let id = repo.write_object(Kind::Blob, &data)?;
                        work.insert(c.path.clone(), (v.mode, id));
                    }
                    None => {
                        work.remove(&c.path);
                    }
                }
            }
            let files: Vec<(&str, u32, ObjectId)> = work
                .iter()
                .map(|(p, (m, id))| (p.as_str(), *m, *id))
                .collect();
            let work_tree = repo.write_tree(&files)?;
            let msg = match &message {
                Some(m) => format!("On {branch}: {m}"),
                None => format!("WIP on {branch}: {desc}"),
            };
            let mut parents = vec![head, i_commit];
            let mut untracked_paths = Vec::new();
            if untracked {
                let mut ig = Ignore::new(&repo);
                let check = || g.check();
                let all = worktree::walk(&repo, &mut ig, &check)?;
                let tracked: BTreeSet<&str> = st.index.iter().map(|e| e.path.as_str()).collect();
                let mut ufiles = Vec::new();
                for f in all
                    .iter()
                    .filter(|f| !f.ignored && !tracked.contains(f.path.as_str()))
                {
                    let data = worktree::file_content(&repo, &f.path)?;
                    let id = repo.write_object(Kind::Blob, &data)?;
                    ufiles.push((
                        f.path.clone(),
                        worktree::file_mode(&repo, &f.path).unwrap_or(0o100644),
                        id,
                    ));
                    untracked_paths.push(f.path.clone());
                }
                let refs: Vec<(&str, u32, ObjectId)> = ufiles
                    .iter()
                    .map(|(p, m, id)| (p.as_str(), *m, *id))
                    .collect();
                let ut = repo.write_tree(&refs)?;
                let u_commit = super::status::make_commit(
                    g,
                    &repo,
                    ut,
                    vec![],
                    &format!("untracked files on {branch}: {desc}\n"),
                    None,
                )?;
                parents.push(u_commit);
            }
            let w_commit = super::status::make_commit(g, &repo, work_tree, parents, &msg, None)?;
            entries.insert(0, (w_commit, msg.clone()));
            write_stash_log(g, &repo, &entries)?;
            let head_files = files_of(&repo, Some(&head))?;
            two_tree(g, &repo, &head_files, &head_files, true, "reset")?;
            for p in untracked_paths {
                let _ = repo.fs.remove_file(&repo.wp(&p));
                super::basic::remove_empty_parents(&repo, &p);
            }
            if !quiet {
                let _ = writeln!(g.out, "Saved working directory and index state {msg}");
            }
            Ok(0)
        }
        "list" => {
            for (n, (_, msg)) in entries.iter().enumerate() {
                let _ = writeln!(g.out, "stash@{{{n}}}: {msg}");
            }
            Ok(0)
        }
        "show" => {
            let n = stash_index(args.iter().find(|a| !a.starts_with('-')))?;
            let Some((id, _)) = entries.get(n) else {
                return Err(GitError::error(format!(
                    "stash@{{{n}}} is not a valid reference"
                )));
            };
            let c = repo.commit(id)?;
            let base = diff::side_of(&files_of(&repo, c.parents.first())?);
            let new = diff::side_of(&repo.flatten_tree(&c.tree)?);
            let check = g.checker();
            let changes = diff::changes_with_renames(&repo, &base, &new, &|_| true, &check)?;
            let how = if args.iter().any(|a| a == "-p" || a == "--patch") {
                super::diffcmd::Output::Patch
            } else {
                super::diffcmd::Output::Stat
            };
            super::diffcmd::print_changes(&repo, &changes, how, false, g.out, &check)?;
            Ok(0)
        }
        "drop" => {
            let n = stash_index(args.iter().find(|a| !a.starts_with('-')))?;
            if n >= entries.len() {
                if entries.is_empty() {
                    return Err(GitError::error("No stash entries found."));
                }
                return Err(GitError::error(format!(
                    "stash@{{{n}}} is not a valid reference"
                )));
            }
            let (id, _) = entries.remove(n);
            write_stash_log(g, &repo, &entries)?;
            let _ = writeln!(g.out, "Dropped refs/stash@{{{n}}} ({})", id.to_hex());
            Ok(0)
        }
        "clear" => {
            write_stash_log(g, &repo, &[])?;
            Ok(0)
        }
        "pop" | "apply" => {
            let quiet = args.iter().any(|a| a == "-q" || a == "--quiet");
            let n = stash_index(args.iter().find(|a| !a.starts_with('-')))?;
            let Some((id, _)) = entries.get(n).cloned() else {
                if entries.is_empty() {
                    return Err(GitError::error("No stash entries found."));
                }
                return Err(GitError::error(format!(
                    "stash@{{{n}}} is not a valid reference"
                )));
            };
            let c = repo.commit(&id)?;
            let base = files_of(&repo, c.parents.first())?;
            let head = repo.head();
            let current = files_of(&repo, head.as_ref())?;
            let theirs = repo.flatten_tree(&c.tree)?;
            let m = merge_trees(
                &repo,
                &base,
                &current,
                &theirs,
                "Updated upstream",
                "Stashed changes",
                &g.checker(),
            )?;
            // Apply onto the work tree; the index keeps HEAD except for new files.
            let index_before = repo.read_index()?;
            if !apply_merge(g, &repo, &current, &m)? {
                return Ok(1);
            }
            let mut index = repo.read_index()?;
            if m.conflicts.is_empty() {
                let old: BTreeMap<String, IndexEntry> = index_before
                    .into_iter()
                    .map(|e| (e.path.clone(), e))
                    .collect();
                for e in index.iter_mut() {
                    if let Some(o) = old.get(&e.path) {
                        *e = o.clone();
                    } else if let Some((mode, id)) = current.get(&e.path) {
                        e.mode = *mode;
                        e.id = *id;
                    }
                }
                index.retain(|e| {
                    old.contains_key(&e.path)
                        || current.contains_key(&e.path)
                        || !base.contains_key(&e.path)
                });
                // Files deleted by the stash stay tracked until `git rm`.
                for (p, v) in &current {
                    if !index.iter().any(|e| &e.path == p) && old.contains_key(p) {
                        index.push(IndexEntry {
                            path: p.clone(),
                            id: v.1,
                            mode: v.0,
                            stage: 0,
                            size: 0,
                            mtime: (0, 0),
                        });
                    }
                }
                repo.write_index(&index)?;
            }
            if c.parents.len() > 2 {
                let u = repo.commit(&c.parents[2])?;
                for (p, (mode, oid)) in repo.flatten_tree(&u.tree)? {
                    write_work_file(&repo, &p, mode, &oid)?;
                }
            }
            for p in &m.auto_merged {
                let _ = writeln!(g.out, "Auto-merging {p}");
            }
            for msg_line in &m.messages {
                let _ = writeln!(g.out, "{msg_line}");
            }
            if !m.conflicts.is_empty() {
                let _ = writeln!(
                    g.out,
                    "On branch {}",
                    repo.head_branch().unwrap_or_default()
                );
                let _ = writeln!(g.err, "The stash entry is kept in case you need it again.");
                return Ok(1);
            }
            if !quiet {
                let st = super::status::state(g, &repo, &Pathspec::default(), true)?;
                super::status::write_long(g, &repo, &st, false);
            }
            if sub == "pop" {
                entries.remove(n);
                write_stash_log(g, &repo, &entries)?;
                if !quiet {
                    let _ = writeln!(g.out, "Dropped refs/stash@{{{n}}} ({})", id.to_hex());
                }
            }
            Ok(0)
        }
        other => Err(GitError::Usage(format!(
            "error: unknown subcommand: `{other}'"
        ))),
    }
}

/// `git clean [-f] [-d] [-n] [-x] [-X] [-q] [PATHS]`.
pub fn clean(g: &mut G<'_, '_>) -> Result<i32> {
    let repo = g.repo()?;
    let args = split_short(&g.args, &[]);
    let (mut force, mut dirs, mut dry, mut all, mut only_ignored, mut quiet) =
        (false, false, false, false, false, false);
    let mut paths = Vec::new();
    for a in args {
        match a.as_str() {
            "-f" | "--force" => force = true,
            "-d" => dirs = true,
            "-n" | "--dry-run" => dry = true,
            "-x" => all = true,
            "-X" => only_ignored = true,
            "-q" | "--quiet" => quiet = true,
            "--" => {}
            s if s.starts_with('-') => {
                return Err(GitError::Usage(format!(
                    "error: unknown option `{}'",
                    s.trim_start_matches('-')
                )));
            }
            s => paths.push(s.to_string()),
        }
    }
    if !force
        && !dry
        && super::config_get(g, Some(&repo), "clean.requireForce").is_none_or(|v| v != "false")
    {
        return Err(GitError::fatal(
            "clean.requireForce is true and -f not given: refusing to clean",
        ));
    }
    let spec = Pathspec::new(&repo, &g.cwd, &paths)?;
    let st = super::status::state(g, &repo, &spec, false)?;
    let tracked: BTreeSet<&str> = st.index.iter().map(|e| e.path.as_str()).collect();
    let mut ig = Ignore::new(&repo);
    let check = || g.check();
    let files = worktree::walk(&repo, &mut ig, &check)?;
    let tracked_dirs: BTreeSet<String> = st
        .index
        .iter()
        .flat_map(|e| {
            let mut v = Vec::new();
            let mut at = 0;
            while let Some(i) = e.path[at..].find('/') {
                v.push(e.path[..at + i].to_string());
                at += i + 1;
            }
            v
        })
        .collect();
    let mut targets: Vec<String> = Vec::new();
    for f in &files {
        if tracked.contains(f.path.as_str()) || !spec.matches(&f.path) {
            continue;
        }
        let wanted = if only_ignored {
            f.ignored
        } else {
            all || !f.ignored
        };
        if !wanted {
            continue;
        }
        let mut shown = f.path.clone();
        let mut at = 0;
        let mut in_untracked_dir = false;
        while let Some(i) = f.path[at..].find('/') {
            let d = &f.path[..at + i];
            if !tracked_dirs.contains(d) {
                shown = format!("{d}/");
                in_untracked_dir = true;
                break;
            }
            at += i + 1;
        }
        if in_untracked_dir && !dirs {
            continue;
        }
        if targets.last() != Some(&shown) {
            targets.push(shown);
        }
    }
    let cwd = g.cwd.clone();
    for t in &targets {
        let shown = worktree::relative_to_cwd(&repo, &cwd, t);
        if dry {
            let _ = writeln!(g.out, "Would remove {shown}");
            continue;
        }
        if !quiet {
            let _ = writeln!(g.out, "Removing {shown}");
        }
        let p = repo.wp(t.trim_end_matches('/'));
        if t.ends_with('/') {
            g.fs.remove_all(&p)?;
        } else {
            g.fs.remove_file(&p)?;
        }
    }
    Ok(0)
}

/// Turns a POSIX basic regular expression into the `regex` crate's syntax.
fn bre_to_ere(p: &str) -> String {
    let mut out = String::new();
    let mut chars = p.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(n @ ('(' | ')' | '{' | '}' | '|' | '+' | '?')) => out.push(n),
                Some(n) => {
                    out.push('\\');
                    out.push(n);
                }
                None => out.push_str("\\\\"),
            },
            '(' | ')' | '{' | '}' | '|' | '+' | '?' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// `git grep [-n] [-i] [-l] [-c] [-w] [-v] [-E|-F] [-e] PATTERN [-- PATHS]`.
pub fn grep(g: &mut G<'_, '_>) -> Result<i32> {
    let repo = g.repo()?;
    let args = split_short(&g.args, &['e']);
    let (mut line_no, mut icase, mut names, mut count, mut word, mut invert, mut ere, mut fixed) =
        (false, false, false, false, false, false, false, false);
    let mut patterns: Vec<String> = Vec::new();
    let mut paths = Vec::new();
    let mut dashdash = false;
    let mut i = 0;
    while i < args.len() {
        let a = args[i].clone();
        i += 1;
        if dashdash {
            paths.push(a);
            continue;
        }
        match a.as_str() {
            "-n" | "--line-number" => line_no = true,
            "-i" | "--ignore-case" => icase = true,
            "-l" | "--files-with-matches" | "--name-only" => names = true,
            "-c" | "--count" => count = true,
            "-w" | "--word-regexp" => word = true,
            "-v" | "--invert-match" => invert = true,
            "-E" | "--extended-regexp" => ere = true,
            "-F" | "--fixed-strings" => fixed = true,
            "-G" | "--basic-regexp" | "--no-color" | "-I" => {}
            "-e" => {
                patterns.push(args.get(i).cloned().unwrap_or_default());
                i += 1;
            }
            "--" => dashdash = true,
            s if s.starts_with('-') => {
                return Err(GitError::Usage(format!(
                    "error: unknown switch `{}'",
                    s.trim_start_matches('-')
                )));
            }
            _ => {
                if patterns.is_empty() {
                    patterns.push(a);
                } else {
                    paths.push(a);
                }
            }
        }
    }
    if patterns.is_empty() {
        return Err(GitError::fatal("no pattern given"));
    }
    let alts: Vec<String> = patterns
        .iter()
        .map(|p| {
            let body = if fixed {
                regex::escape(p)
            } else if ere {
                p.clone()
            } else {
                bre_to_ere(p)
            };
            if word {
                format!(r"\b(?:{body})\b")
            } else {
                format!("(?:{body})")
            }
        })
        .collect();
    let re = regex::bytes::RegexBuilder::new(&alts.join("|"))
        .case_insensitive(icase)
        .build()
        .map_err(|e| GitError::fatal(format!("command line, '{}': {e}", patterns[0])))?;
    let spec = Pathspec::new(&repo, &g.cwd, &paths)?;
    let index = repo.read_index()?;
    let cwd = g.cwd.clone();
    let root = repo.work_tree.trim_end_matches('/').to_string();
    let cwd_prefix = cwd
        .strip_prefix(&format!("{root}/"))
        .map(|s| format!("{s}/"))
        .unwrap_or_default();
    let mut found = false;
    let mut last = "";
    for e in &index {
        if e.stage > 1
            || !spec.matches(&e.path)
            || e.path == last
            || !e.path.starts_with(&cwd_prefix)
        {
            continue;
        }
        last = &e.path;
        g.check()?;
        let Ok(data) = worktree::file_content(&repo, &e.path) else {
            continue;
        };
        let shown = worktree::relative_to_cwd(&repo, &cwd, &e.path);
        if diff::is_binary(&data) {
            if re.is_match(&data) != invert {
                found = true;
                let _ = writeln!(g.out, "Binary file {shown} matches");
            }
            continue;
        }
        let mut n_match = 0;
        for (n, l) in data.lines().enumerate() {
            if re.is_match(l) != invert {
                found = true;
                n_match += 1;
                if names || count {
                    continue;
                }
                g.out.extend_from_slice(shown.as_bytes());
                g.out.push(b':');
                if line_no {
                    let _ = write!(g.out, "{}:", n + 1);
                }
                g.out.extend_from_slice(l);
                g.out.push(b'\n');
            }
        }
        if n_match > 0 && names {
            let _ = writeln!(g.out, "{shown}");
        } else if n_match > 0 && count {
            let _ = writeln!(g.out, "{shown}:{n_match}");
        }
    }
    Ok(if found { 0 } else { 1 })
}

/// One file's part of a patch.
struct FilePatch {
    old: Option<String>,
    new: Option<String>,
    new_mode: Option<u32>,
    /// (old start, old lines, new lines) per hunk; lines keep their sign.
    hunks: Vec<(usize, Vec<Vec<u8>>)>,
}

fn strip_prefix_path(p: &str) -> Option<String> {
    let p = p.trim_end_matches(['\r', '\n']);
    let p = p.split('\t').next().unwrap_or(p);
    if p == "/dev/null" {
        return None;
    }
    Some(p.split_once('/').map_or(p, |(_, rest)| rest).to_string())
}

fn parse_patch(data: &[u8]) -> Result<Vec<FilePatch>> {
    let lines: Vec<&[u8]> = data.split_inclusive(|&b| b == b'\n').collect();
    let mut out: Vec<FilePatch> = Vec::new();
    let mut i = 0;
    let mut mode: Option<u32> = None;
    while i < lines.len() {
        let l = lines[i];
        if l.starts_with(b"diff --git ") {
            mode = None;
        } else if let Some(m) = l
            .strip_prefix(b"new file mode ")
            .or_else(|| l.strip_prefix(b"new mode "))
        {
            mode = u32::from_str_radix(m.trim().to_str_lossy().as_ref(), 8).ok();
        } else if l.starts_with(b"--- ") && i + 1 < lines.len() && lines[i + 1].starts_with(b"+++ ")
        {
            let old = strip_prefix_path(&l[4..].to_str_lossy());
            let new = strip_prefix_path(&lines[i + 1][4..].to_str_lossy());
            out.push(FilePatch {
                old,
                new,
                new_mode: mode,
                hunks: Vec::new(),
            });
            i += 2;
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
                    _ => break,
                }
                body.push(b.to_vec());
                i += 1;
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
        return Err(GitError::error(
            "No valid patches in input (allow with \"--allow-empty\")",
        ));
    }
    Ok(out)
}

fn apply_hunks(old: &[u8], fp: &FilePatch, name: &str) -> Result<Vec<u8>> {
    let src: Vec<&[u8]> = old.split_inclusive(|&b| b == b'\n').collect();
    let mut out: Vec<u8> = Vec::new();
    let mut pos = 0usize;
    for (start, body) in &fp.hunks {
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
        let fits =
            |at: usize| at + before.len() <= src.len() && src[at..at + before.len()] == before[..];
        let found = (0..=src.len())
            .flat_map(|d| [want.checked_add(d), want.checked_sub(d)])
            .flatten()
            .find(|&at| at >= pos && fits(at));
        let Some(at) = found else {
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

/// `git apply [--check] [--cached] [--index] [-R] PATCH...`.
pub fn apply(g: &mut G<'_, '_>) -> Result<i32> {
    let check = g.args.iter().any(|a| a == "--check");
    let cached = g.args.iter().any(|a| a == "--cached");
    let index_too = cached || g.args.iter().any(|a| a == "--index");
    let files: Vec<String> = g
        .args
        .iter()
        .filter(|a| !a.starts_with('-'))
        .cloned()
        .collect();
    let repo = g.repo()?;
    let mut data = Vec::new();
    for f in &files {
        data.extend(g.fs.read(&sandkeep_shell::Fs::resolve(&g.cwd, f))?);
    }
    let patches = parse_patch(&data)?;
    // Compute every result first, so a failing file changes nothing.
    let index = repo.read_index()?;
    let mut results: Vec<Applied> = Vec::new();
    for fp in &patches {
        let name = fp
            .new
            .clone()
            .or_else(|| fp.old.clone())
            .unwrap_or_default();
        let old = match &fp.old {
            Some(p) if cached => {
                let e = index
                    .iter()
                    .find(|e| &e.path == p && e.stage == 0)
                    .ok_or_else(|| {
                        GitError::Raw(format!("error: {p}: does not exist in index"), 1)
                    })?;
                repo.read_kind(&e.id, Kind::Blob)?
            }
            Some(p) => worktree::file_content(&repo, p)
                .map_err(|_| GitError::Raw(format!("error: {p}: No such file or directory"), 1))?,
            None => {
                if worktree::file_mode(&repo, &name).is_some() && !cached {
                    return Err(GitError::Raw(
                        format!("error: {name}: already exists in working directory"),
                        1,
                    ));
                }
                Vec::new()
            }
        };
        let new = if fp.new.is_some() {
            Some(apply_hunks(&old, fp, &name)?)
        } else {
            None
        };
        let mode = fp
            .new_mode
            .or_else(|| fp.old.as_ref().and_then(|p| worktree::file_mode(&repo, p)))
            .unwrap_or(0o100644);
        results.push((fp.old.clone(), fp.new.clone(), new, mode));
    }
    if check {
        return Ok(0);
    }
    let mut entries: BTreeMap<String, IndexEntry> =
        index.into_iter().map(|e| (e.path.clone(), e)).collect();
    for (old, new, content, mode) in results {
        if let Some(o) = &old
            && new.as_deref() != Some(o.as_str())
        {
            if !cached {
                let _ = g.fs.remove_file(&repo.wp(o));
            }
            if index_too {
                entries.remove(o);
            }
        }
        if let (Some(n), Some(data)) = (new, content) {
            let id = repo.write_object(Kind::Blob, &data)?;
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
                        id,
                        mode,
                        stage: 0,
                        size: 0,
                        mtime: (0, 0),
                    }
                } else {
                    super::basic::stage_file(&repo, &n)?
                };
                entries.insert(n, e);
            }
        }
    }
    if index_too {
        let list: Vec<IndexEntry> = entries.into_values().collect();
        repo.write_index(&list)?;
    }
    Ok(0)
}
