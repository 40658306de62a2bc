//! `stash`: push, pop, apply, list, show, drop, clear, branch.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;

use bstr::ByteSlice;
use gix_hash::ObjectId;
use gix_object::Kind;

use super::G;
use super::branch::{two_tree, write_work_file};
use crate::diff;
use crate::error::{GitError, Result};
use crate::repo::{IndexEntry, Repo};
use crate::worktree::{self, Ignore, Pathspec};

use super::merge::{Files, apply_merge, files_of, merge_trees};

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
    let mut args = super::split_short(&g.args, &['m']);
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
            let mut keep_index = false;
            let mut paths: Vec<String> = Vec::new();
            let mut i = 0;
            while i < args.len() {
                match args[i].as_str() {
                    "-m" | "--message" => {
                        i += 1;
                        message = args.get(i).cloned();
                    }
                    "-u" | "--include-untracked" => untracked = true,
                    "-q" | "--quiet" => quiet = true,
                    "-k" | "--keep-index" => keep_index = true,
                    "--" => {}
                    s if !s.starts_with('-') && sub == "save" => message = Some(s.to_string()),
                    s if !s.starts_with('-') => paths.push(s.to_string()),
                    _ => {}
                }
                i += 1;
            }
            let pathspec = Pathspec::new(&repo, &g.cwd, &paths)?;
            let Some(head) = repo.head() else {
                return Err(GitError::fatal("You do not have the initial commit yet"));
            };
            let st = super::status::state(g, &repo, &pathspec, untracked)?;
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
            let head_files = files_of(&repo, Some(&head))?;
            // With paths, only their changes go into the stash.
            let index_files: Files = if paths.is_empty() {
                super::pick::index_files(&st.index)
            } else {
                let mut f = head_files.clone();
                f.retain(|p, _| !pathspec.matches(p));
                for e in st
                    .index
                    .iter()
                    .filter(|e| e.stage == 0 && pathspec.matches(&e.path))
                {
                    f.insert(e.path.clone(), (e.mode, e.id));
                }
                f
            };
            let index_list: Vec<(&str, u32, ObjectId)> = index_files
                .iter()
                .map(|(p, (m, id))| (p.as_str(), *m, *id))
                .collect();
            let index_tree = repo.write_tree(&index_list)?;
            let i_commit = super::status::make_commit(
                g,
                &repo,
                index_tree,
                vec![head],
                &format!("index on {branch}: {desc}\n"),
                None,
            )?;
            // The work tree of tracked files.
            let mut work: Files = index_files.clone();
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
            if paths.is_empty() {
                two_tree(g, &repo, &head_files, &head_files, true, "reset")?;
            } else {
                // Only the stashed paths go back to HEAD, in the index and on disk.
                let mut index = repo.read_index()?;
                index.retain(|e| !pathspec.matches(&e.path));
                let changed: BTreeSet<String> = st
                    .staged
                    .iter()
                    .chain(st.unstaged.iter())
                    .map(|c| c.path.clone())
                    .collect();
                for (p, (mode, id)) in head_files.iter().filter(|(p, _)| pathspec.matches(p)) {
                    let e = if changed.contains(p) {
                        write_work_file(&repo, p, *mode, id)?
                    } else {
                        match repo.read_index()?.into_iter().find(|e| &e.path == p) {
                            Some(e) => e,
                            None => write_work_file(&repo, p, *mode, id)?,
                        }
                    };
                    index.push(e);
                }
                for p in &changed {
                    if !head_files.contains_key(p) {
                        let _ = repo.fs.remove_file(&repo.wp(p));
                    }
                }
                index.sort_by(|a, b| a.path.cmp(&b.path));
                repo.write_index(&index)?;
            }
            if keep_index {
                two_tree(g, &repo, &head_files, &index_files, true, "reset")?;
            }
            for p in untracked_paths {
                let _ = repo.fs.remove_file(&repo.wp(&p));
                super::basic::remove_empty_parents(&repo, &p);
            }
            // git's stash resets the work tree with `reset --hard`, which
            // `HEAD`'s reflog notes.
            if let Some(h) = repo.head() {
                repo.reflog_message("reset: moving to HEAD");
                repo.append_reflog("HEAD", Some(h), &h);
            }
            if !quiet {
                let _ = writeln!(g.out, "Saved working directory and index state {msg}");
            }
            Ok(0)
        }
        "list" => {
            let mut fmt: Option<String> = None;
            let mut oneline = false;
            for a in &args {
                if let Some(f) = a
                    .strip_prefix("--format=")
                    .or_else(|| a.strip_prefix("--pretty=format:"))
                    .or_else(|| a.strip_prefix("--pretty=tformat:"))
                {
                    fmt = Some(f.to_string());
                } else if a == "--oneline" {
                    oneline = true;
                }
            }
            for (n, (id, msg)) in entries.iter().enumerate() {
                if oneline {
                    let _ = writeln!(g.out, "{} refs/stash@{{{n}}}: {msg}", repo.abbrev(id));
                } else if let Some(f) = &fmt {
                    let c = repo.commit(id)?;
                    let f = f
                        .replace("%gd", &format!("stash@{{{n}}}"))
                        .replace("%gs", msg);
                    let line = super::pretty::format_commit(
                        &repo,
                        id,
                        &c,
                        &f,
                        &super::pretty::DateStyle::Default,
                        g.control.clock.now().secs,
                        &Default::default(),
                    );
                    let _ = writeln!(g.out, "{line}");
                } else {
                    let _ = writeln!(g.out, "stash@{{{n}}}: {msg}");
                }
            }
            Ok(0)
        }
        "branch" => {
            let Some(name) = args.iter().find(|a| !a.starts_with('-')).cloned() else {
                return Err(GitError::fatal("No branch name specified"));
            };
            let n = stash_index(args.iter().filter(|a| !a.starts_with('-')).nth(1))?;
            let Some((id, _)) = entries.get(n).cloned() else {
                return Err(GitError::Raw("No stash entries found.".into(), 1));
            };
            let base = repo
                .commit(&id)?
                .parents
                .first()
                .copied()
                .ok_or_else(|| GitError::fatal("stash entry without a base commit"))?;
            g.args = vec!["-c".into(), name, base.to_hex().to_string()];
            let r = super::branch::switch(g)?;
            if r != 0 {
                return Ok(r);
            }
            g.args = vec!["pop".into(), format!("stash@{{{n}}}")];
            stash(g)
        }
        "show" => {
            let n = stash_index(args.iter().find(|a| !a.starts_with('-')))?;
            let Some((id, _)) = entries.get(n) else {
                if entries.is_empty() {
                    return Err(GitError::Raw("No stash entries found.".into(), 1));
                }
                return Err(GitError::error(format!(
                    "stash@{{{n}}} is not a valid reference"
                )));
            };
            let c = repo.commit(id)?;
            let base = diff::side_of(&files_of(&repo, c.parents.first())?);
            let new = diff::side_of(&repo.flatten_tree(&c.tree)?);
            let check = g.checker();
            let changes = diff::changes_with_renames(&repo, &base, &new, &|_| true, &check)?;
            let how = args
                .iter()
                .filter_map(|a| super::diffcmd::output_option(a))
                .next_back()
                .unwrap_or(super::diffcmd::Output::Stat);
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
                let st = super::status::state(g, &repo, &Pathspec::default(), true)?;
                super::status::write_long(g, &repo, &st, false);
                let _ = writeln!(g.out, "The stash entry is kept in case you need it again.");
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
