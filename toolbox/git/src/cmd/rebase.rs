//! `rebase` without `-i`: the branch's own commits (those not in the
//! upstream, merges dropped, changes the upstream already has skipped)
//! re-applied one by one on the new base, then the branch moved there.
//! A conflict stops with the state in `.git/rebase-merge/` (git's layout:
//! `head-name`, `onto`, `orig-head`, `git-rebase-todo`, `done`,
//! `stopped-sha`) for `--continue`, `--skip` and `--abort`.

use std::collections::HashSet;
use std::io::Write;

use bstr::ByteSlice;
use gix_hash::ObjectId;

use super::branch::two_tree;
use super::log::{merge_bases, walk};
use super::merge::files_of;
use super::pick::{Action, PickOpts, Step, apply_one, index_files};
use super::{G, split_short};
use crate::error::{GitError, Result};
use crate::repo::Repo;

fn state(repo: &Repo<'_>, name: &str) -> String {
    repo.gp(&format!("rebase-merge/{name}"))
}

fn read_state(repo: &Repo<'_>, name: &str) -> Option<String> {
    repo.fs
        .read(&state(repo, name))
        .ok()
        .map(|d| String::from_utf8_lossy(&d).trim_end().to_string())
}

fn read_id(repo: &Repo<'_>, name: &str) -> Option<ObjectId> {
    read_state(repo, name).and_then(|s| ObjectId::from_hex(s.trim().as_bytes()).ok())
}

/// Whether a rebase is stopped (for `status`).
pub fn in_progress(repo: &Repo<'_>) -> bool {
    repo.fs.exists(&repo.gp("rebase-merge/head-name"))
}

/// `(done, remaining)` lines of a stopped rebase, `pick ID subject` each.
pub fn todo_lines(repo: &Repo<'_>) -> (Vec<String>, Vec<String>) {
    let lines = |n: &str| -> Vec<String> {
        read_state(repo, n)
            .map(|s| {
                s.lines()
                    .filter(|l| !l.is_empty())
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    };
    (lines("done"), lines("git-rebase-todo"))
}

/// The branch being rebased (`side`) and the abbreviated onto id.
pub fn describe_state(repo: &Repo<'_>) -> (Option<String>, String) {
    let branch = read_state(repo, "head-name")
        .and_then(|h| h.strip_prefix("refs/heads/").map(str::to_string));
    let onto = read_id(repo, "onto")
        .map(|o| repo.abbrev(&o))
        .unwrap_or_default();
    (branch, onto)
}

fn pick_line(repo: &Repo<'_>, id: &ObjectId) -> Result<String> {
    let c = repo.commit(id)?;
    Ok(format!(
        "pick {} {}",
        repo.abbrev(id),
        super::status::subject(&c.message.to_str_lossy())
    ))
}

fn write_todo(repo: &Repo<'_>, todo: &[ObjectId]) -> Result<()> {
    let mut s = String::new();
    for id in todo {
        s.push_str(&pick_line(repo, id)?);
        s.push('\n');
    }
    repo.fs
        .write(&state(repo, "git-rebase-todo"), s.as_bytes())?;
    Ok(())
}

fn read_todo(repo: &Repo<'_>) -> Vec<ObjectId> {
    let (_, rest) = todo_lines(repo);
    rest.iter()
        .filter_map(|l| l.split_whitespace().nth(1))
        .filter_map(|short| repo.ids_with_prefix(short).first().copied())
        .collect()
}

fn clear(repo: &Repo<'_>) {
    let _ = repo.fs.remove_all(&repo.gp("rebase-merge"));
    let _ = repo.fs.remove_file(&repo.gp("MERGE_MSG"));
    let _ = repo.fs.remove_file(&repo.gp("REBASE_HEAD"));
}

/// The changes of a commit against its parent, as (path, old, new) blob ids:
/// two commits with the same ones carry the same patch.
/// One path's change: (path, old blob, new blob).
type PathChange = (String, Option<ObjectId>, Option<ObjectId>);

fn patch_key(repo: &Repo<'_>, id: &ObjectId) -> Result<Vec<PathChange>> {
    let c = repo.commit(id)?;
    let old = files_of(repo, c.parents.first())?;
    let new = repo.flatten_tree(&c.tree)?;
    let mut key = Vec::new();
    for (p, v) in &new {
        if old.get(p) != Some(v) {
            key.push((p.clone(), old.get(p).map(|o| o.1), Some(v.1)));
        }
    }
    for (p, v) in &old {
        if !new.contains_key(p) {
            key.push((p.clone(), Some(v.1), None));
        }
    }
    key.sort();
    Ok(key)
}

/// Ends a rebase: the branch moved to `HEAD`, `HEAD` back on it.
fn finish(g: &mut G<'_, '_>, repo: &Repo<'_>, quiet: bool) -> Result<i32> {
    let head_name = read_state(repo, "head-name").unwrap_or_default();
    let head = repo.head();
    if let (Some(b), Some(h)) = (head_name.strip_prefix("refs/heads/"), head) {
        repo.set_ref(&format!("refs/heads/{b}"), &h)?;
        repo.set_head_symbolic(&head_name)?;
    }
    clear(repo);
    if !quiet {
        let name = if head_name.starts_with("refs/") {
            head_name.as_str()
        } else {
            "HEAD"
        };
        let _ = writeln!(g.err, "Successfully rebased and updated {name}.");
    }
    Ok(0)
}

/// Applies the remaining commits; stops at a conflict.
fn run_todo(
    g: &mut G<'_, '_>,
    repo: &Repo<'_>,
    mut todo: Vec<ObjectId>,
    quiet: bool,
) -> Result<i32> {
    let opts = PickOpts {
        rebase: true,
        ..PickOpts::default()
    };
    while !todo.is_empty() {
        g.check()?;
        let id = todo.remove(0);
        let head = repo
            .head()
            .ok_or_else(|| GitError::fatal("rebase onto an unborn branch"))?;
        let line = pick_line(repo, &id)?;
        let mut done = read_state(repo, "done").unwrap_or_default();
        if !quiet {
            let n = done.lines().filter(|l| !l.is_empty()).count() + 1;
            let end = read_state(repo, "end")
                .and_then(|e| e.trim().parse().ok())
                .unwrap_or(n);
            let _ = write!(g.err, "Rebasing ({n}/{end})\r");
        }
        if !done.is_empty() {
            done.push('\n');
        }
        done.push_str(&line);
        done.push('\n');
        repo.fs.write(&state(repo, "done"), done.as_bytes())?;
        write_todo(repo, &todo)?;
        match apply_one(g, repo, Action::Pick, &id, &head, opts)? {
            Step::Committed(_) | Step::Staged | Step::Empty => {}
            Step::Conflict => {
                repo.fs.write(
                    &state(repo, "stopped-sha"),
                    format!("{}\n", id.to_hex()).as_bytes(),
                )?;
                repo.fs.write(
                    &repo.gp("REBASE_HEAD"),
                    format!("{}\n", id.to_hex()).as_bytes(),
                )?;
                return Ok(1);
            }
        }
    }
    finish(g, repo, quiet)
}

/// `git rebase [-q] [--onto NEWBASE] [UPSTREAM [BRANCH]]`, `--continue`,
/// `--skip`, `--abort`, `--quit`.
pub fn rebase(g: &mut G<'_, '_>) -> Result<i32> {
    let args = split_short(&g.args, &[]);
    let mut quiet = false;
    let mut onto_arg: Option<String> = None;
    let mut control: Option<String> = None;
    let mut rest = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        match a.as_str() {
            "-q" | "--quiet" => quiet = true,
            "--onto" => {
                onto_arg = args.get(i).cloned();
                i += 1;
            }
            s if s.starts_with("--onto=") => onto_arg = Some(s[7..].to_string()),
            "--continue" | "--skip" | "--abort" | "--quit" => control = Some(a.clone()),
            "-i" | "--interactive" => {
                return Err(GitError::fatal(
                    "interactive rebase needs an editor; it is not available in the local sandbox",
                ));
            }
            "-v" | "--verbose" | "--no-autostash" | "--merge" | "-m" | "--no-verify"
            | "--fork-point" | "--no-fork-point" => {}
            s if s.starts_with('-') => {
                return Err(GitError::Usage(format!(
                    "error: unknown option `{}'",
                    s.trim_start_matches('-')
                )));
            }
            _ => rest.push(a.clone()),
        }
    }
    let repo = g.repo()?;
    if let Some(c) = control {
        if !in_progress(&repo) {
            return Err(GitError::fatal("no rebase in progress"));
        }
        match c.as_str() {
            "--abort" => {
                let orig = read_id(&repo, "orig-head");
                let head_name = read_state(&repo, "head-name").unwrap_or_default();
                let from = files_of(&repo, repo.head().as_ref())?;
                let to = files_of(&repo, orig.as_ref())?;
                two_tree(g, &repo, &from, &to, true, "reset")?;
                if let Some(o) = orig {
                    if let Some(b) = head_name.strip_prefix("refs/heads/") {
                        repo.set_ref(&format!("refs/heads/{b}"), &o)?;
                        repo.set_head_symbolic(&head_name)?;
                    } else {
                        repo.set_head_detached(&o)?;
                    }
                }
                clear(&repo);
                return Ok(0);
            }
            "--quit" => {
                clear(&repo);
                return Ok(0);
            }
            "--skip" => {
                let head = repo.head();
                let to = files_of(&repo, head.as_ref())?;
                two_tree(g, &repo, &to, &to, true, "reset")?;
                let _ = repo.fs.remove_file(&repo.gp("MERGE_MSG"));
                let todo = read_todo(&repo);
                return run_todo(g, &repo, todo, quiet);
            }
            _ => {
                let index = repo.read_index()?;
                let mut unmerged: Vec<&str> = index
                    .iter()
                    .filter(|e| e.stage > 0)
                    .map(|e| e.path.as_str())
                    .collect();
                unmerged.dedup();
                if !unmerged.is_empty() {
                    for p in unmerged {
                        let _ = writeln!(g.err, "{p}: needs merge");
                    }
                    let _ = writeln!(
                        g.err,
                        "You must edit all merge conflicts and then\nmark them as resolved using git add"
                    );
                    return Ok(1);
                }
                if let (Some(stopped), Some(head)) = (read_id(&repo, "stopped-sha"), repo.head()) {
                    let tree = repo.write_index_tree(&index)?;
                    if tree != repo.commit(&head)?.tree {
                        let c = repo.commit(&stopped)?;
                        let new = super::status::make_commit(
                            g,
                            &repo,
                            tree,
                            vec![head],
                            &c.message.to_str_lossy(),
                            Some(c.author.clone()),
                        )?;
                        repo.update_head(&new)?;
                        super::pick::report_commit(g, &repo, &head, &new, false)?;
                    }
                    let _ = repo.fs.remove_file(&state(&repo, "stopped-sha"));
                    let _ = repo.fs.remove_file(&repo.gp("MERGE_MSG"));
                    let _ = repo.fs.remove_file(&repo.gp("REBASE_HEAD"));
                }
                let todo = read_todo(&repo);
                return run_todo(g, &repo, todo, quiet);
            }
        }
    }
    if in_progress(&repo) {
        return Err(GitError::Raw(
            format!(
                "fatal: It seems that there is already a rebase-merge directory, and\nI wonder if you are in the middle of another rebase.  If that is the\ncase, please try\n\tgit rebase (--continue | --abort | --skip)\nIf that is not the case, please\n\trm -fr \"{}\"\nand run me again.  I am stopping in case you still have something\nvaluable there.\n",
                repo.gp("rebase-merge")
            ),
            128,
        ));
    }
    if rest.len() > 2 {
        return Err(GitError::Usage("usage: git rebase [-i] [options] [--exec <cmd>] [--onto <newbase> | --keep-base] [<upstream> [<branch>]]".into()));
    }
    let upstream_arg = match rest.first() {
        Some(u) => u.clone(),
        None => {
            return Err(GitError::fatal(
                "There is no tracking information for the current branch.\nPlease specify which branch you want to rebase against.",
            ));
        }
    };
    let Some(upstream_id) = super::rev_opt(&repo, &upstream_arg)? else {
        return Err(GitError::Raw(
            format!("fatal: invalid upstream '{upstream_arg}'"),
            128,
        ));
    };
    let upstream = super::peel_to_commit(&repo, &upstream_id)?;
    let onto = match &onto_arg {
        Some(o) => match super::rev_opt(&repo, o)? {
            Some(id) => super::peel_to_commit(&repo, &id)?,
            None => {
                return Err(GitError::Raw(
                    format!("fatal: Does not point to a valid commit '{o}'"),
                    128,
                ));
            }
        },
        None => upstream,
    };
    if let Some(b) = rest.get(1) {
        let branch_ref = format!("refs/heads/{b}");
        if repo.resolve_ref(&branch_ref).is_some() {
            if repo.head_ref().as_deref() != Some(branch_ref.as_str()) {
                let from = files_of(&repo, repo.head().as_ref())?;
                let to = files_of(&repo, repo.resolve_ref(&branch_ref).as_ref())?;
                if !two_tree(g, &repo, &from, &to, false, "checkout")? {
                    return Ok(1);
                }
                repo.set_head_symbolic(&branch_ref)?;
            }
        } else {
            let id = super::rev_commit(&repo, b)?;
            let from = files_of(&repo, repo.head().as_ref())?;
            let to = files_of(&repo, Some(&id))?;
            two_tree(g, &repo, &from, &to, false, "checkout")?;
            repo.set_head_detached(&id)?;
        }
    }
    let head = repo
        .head()
        .ok_or_else(|| GitError::fatal("invalid upstream 'HEAD'"))?;
    // Tracked changes block a rebase, as in git.
    let index = repo.read_index()?;
    let at_head = files_of(&repo, Some(&head))?;
    let spec = crate::worktree::Pathspec { items: Vec::new() };
    let st = super::status::state(g, &repo, &spec, false)?;
    if !st.unstaged.is_empty() || index_files(&index) != at_head {
        let what = if st.unstaged.is_empty() {
            "Your index contains uncommitted changes."
        } else {
            "You have unstaged changes."
        };
        let _ = writeln!(
            g.err,
            "error: cannot rebase: {what}\nerror: Please commit or stash them."
        );
        return Ok(1);
    }
    let head_name = repo.head_ref().unwrap_or_else(|| "detached HEAD".into());
    let branch_label = head_name
        .strip_prefix("refs/heads/")
        .unwrap_or("HEAD")
        .to_string();
    let check = g.checker();
    let bases = merge_bases(&repo, &head, &upstream, &check)?;
    if onto_arg.is_none() && bases.first() == Some(&upstream) {
        // Already on top of the upstream.
        if !quiet {
            let _ = writeln!(g.out, "Current branch {branch_label} is up to date.");
        }
        return Ok(0);
    }
    let mut todo = walk(g, &repo, &[head], &[upstream], false)?;
    todo.retain(|id| repo.commit(id).is_ok_and(|c| c.parents.len() < 2));
    todo.reverse();
    // Changes the new base already has are dropped.
    let theirs = walk(g, &repo, &[onto], &[head], false)?;
    let mut known = HashSet::new();
    for id in &theirs {
        if repo.commit(id)?.parents.len() < 2 {
            known.insert(patch_key(&repo, id)?);
        }
    }
    let mut kept = Vec::new();
    for id in todo {
        if !known.contains(&patch_key(&repo, &id)?) {
            kept.push(id);
        }
    }
    // Start: HEAD detached at the new base.
    repo.fs.mkdir_all(&repo.gp("rebase-merge"))?;
    repo.fs.write(
        &state(&repo, "head-name"),
        format!("{head_name}\n").as_bytes(),
    )?;
    repo.fs.write(
        &state(&repo, "onto"),
        format!("{}\n", onto.to_hex()).as_bytes(),
    )?;
    repo.fs.write(
        &state(&repo, "orig-head"),
        format!("{}\n", head.to_hex()).as_bytes(),
    )?;
    repo.fs.write(&state(&repo, "interactive"), b"")?;
    repo.fs
        .write(&state(&repo, "end"), format!("{}\n", kept.len()).as_bytes())?;
    repo.fs.write(
        &repo.gp("ORIG_HEAD"),
        format!("{}\n", head.to_hex()).as_bytes(),
    )?;
    let to = files_of(&repo, Some(&onto))?;
    if !two_tree(g, &repo, &at_head, &to, false, "checkout")? {
        clear(&repo);
        return Ok(1);
    }
    repo.set_head_detached(&onto)?;
    run_todo(g, &repo, kept, quiet)
}
