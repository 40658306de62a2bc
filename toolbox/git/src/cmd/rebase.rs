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
use super::pick::{Action, PickOpts, Step as Picked, apply_one, index_files};
use super::rebase_todo::{self as todo, Step, Verb};
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

fn write_todo(repo: &Repo<'_>, todo: &[Step]) -> Result<()> {
    let mut s = String::new();
    for step in todo {
        s.push_str(&todo::step_line(repo, step)?);
        s.push('\n');
    }
    repo.fs
        .write(&state(repo, "git-rebase-todo"), s.as_bytes())?;
    Ok(())
}

fn read_todo(repo: &Repo<'_>) -> Result<Vec<Step>> {
    let text = read_state(repo, "git-rebase-todo").unwrap_or_default();
    todo::parse_todo(repo, &text)
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
        let onto = read_state(repo, "onto").unwrap_or_default();
        repo.reflog_message(format!("rebase (finish): {head_name} onto {}", onto.trim()));
        repo.set_ref(&format!("refs/heads/{b}"), &h)?;
        repo.set_head_symbolic(&head_name)?;
        repo.reflog_message(format!("rebase (finish): returning to {head_name}"));
        repo.append_reflog("HEAD", Some(h), &h);
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

/// Under `--root`, a commit made on the empty start commit is made again
/// without a parent: the rewritten history starts at a root of its own.
fn drop_squash_onto(repo: &Repo<'_>) -> Result<()> {
    let (Some(e), Some(head)) = (read_id(repo, "squash-onto"), repo.head()) else {
        return Ok(());
    };
    let mut c = repo.commit(&head)?;
    if c.parents.len() == 1 && c.parents[0] == e {
        c.parents.clear();
        let id = repo.write(&c)?;
        repo.update_head(&id)?;
    }
    Ok(())
}

/// Stops at a conflicting commit: its id kept for `--continue`.
fn stop_at_conflict(repo: &Repo<'_>, id: &ObjectId) -> Result<i32> {
    repo.fs.write(
        &state(repo, "stopped-sha"),
        format!("{}\n", id.to_hex()).as_bytes(),
    )?;
    repo.fs.write(
        &repo.gp("REBASE_HEAD"),
        format!("{}\n", id.to_hex()).as_bytes(),
    )?;
    Ok(1)
}

/// Applies one commit on `HEAD`: moves `HEAD` to it when its parent is
/// `HEAD` already (git does not rewrite what need not change), else picks.
fn pick(g: &mut G<'_, '_>, repo: &Repo<'_>, id: &ObjectId, opts: PickOpts) -> Result<Option<i32>> {
    let head = repo
        .head()
        .ok_or_else(|| GitError::fatal("rebase onto an unborn branch"))?;
    let c = repo.commit(id)?;
    let on_head = match c.parents.len() {
        0 => read_id(repo, "squash-onto") == Some(head),
        1 => c.parents[0] == head,
        _ => false,
    };
    if on_head {
        let from = files_of(repo, Some(&head))?;
        let to = files_of(repo, Some(id))?;
        two_tree(g, repo, &from, &to, true, "reset")?;
        repo.reflog_message(format!(
            "rebase (pick): {}",
            super::status::subject(&c.message.to_str_lossy())
        ));
        repo.update_head(id)?;
        return Ok(None);
    }
    match apply_one(g, repo, Action::Pick, id, &head, opts)? {
        Picked::Committed(_) | Picked::Staged | Picked::Empty => Ok(None),
        Picked::Conflict => stop_at_conflict(repo, id).map(Some),
    }
}

/// Folds `id` into `HEAD` (`squash` joins the messages, `fixup` keeps
/// `HEAD`'s).
fn fold(g: &mut G<'_, '_>, repo: &Repo<'_>, id: &ObjectId, squash: bool) -> Result<Option<i32>> {
    let head = repo
        .head()
        .ok_or_else(|| GitError::fatal("rebase onto an unborn branch"))?;
    let opts = PickOpts {
        rebase: true,
        no_commit: true,
        ..PickOpts::default()
    };
    if let Picked::Conflict = apply_one(g, repo, Action::Pick, id, &head, opts)? {
        return stop_at_conflict(repo, id).map(Some);
    }
    let prev = repo.commit(&head)?;
    let this = repo.commit(id)?;
    let index = repo.read_index()?;
    let tree = repo.write_index_tree(&index)?;
    let prev_msg = prev.message.to_str_lossy().into_owned();
    let msg = if squash {
        let joined = todo::squash_message(&prev_msg, &this.message.to_str_lossy());
        todo::edit_message(g, repo, &joined)?
    } else {
        prev_msg
    };
    let parents: Vec<ObjectId> = prev.parents.iter().copied().collect();
    let new = super::status::make_commit(g, repo, tree, parents, &msg, Some(prev.author.clone()))?;
    let verb = if squash { "squash" } else { "fixup" };
    repo.reflog_message(format!("rebase ({verb}): {}", super::status::subject(&msg)));
    repo.update_head(&new)?;
    Ok(None)
}

/// Lets the message editor reword `HEAD`.
fn reword(g: &mut G<'_, '_>, repo: &Repo<'_>) -> Result<()> {
    let Some(head) = repo.head() else {
        return Ok(());
    };
    let c = repo.commit(&head)?;
    let old = c.message.to_str_lossy().into_owned();
    let msg = todo::edit_message(g, repo, &old)?;
    if msg != old {
        let parents: Vec<ObjectId> = c.parents.iter().copied().collect();
        let new =
            super::status::make_commit(g, repo, c.tree, parents, &msg, Some(c.author.clone()))?;
        repo.update_head(&new)?;
    }
    Ok(())
}

/// Runs the remaining steps; stops at a conflict, an `edit`, a `break` or
/// a failing `exec`.
fn run_todo(g: &mut G<'_, '_>, repo: &Repo<'_>, mut steps: Vec<Step>, quiet: bool) -> Result<i32> {
    let opts = PickOpts {
        rebase: true,
        ..PickOpts::default()
    };
    while !steps.is_empty() {
        g.check()?;
        let step = steps.remove(0);
        let line = todo::step_line(repo, &step)?;
        let mut done = read_state(repo, "done").unwrap_or_default();
        let had_commit = done.lines().any(|l| {
            todo::parse_line(repo, l)
                .ok()
                .flatten()
                .is_some_and(|s| matches!(s, Step::Commit(v, _) if v != Verb::Drop))
        });
        let folds_nothing =
            matches!(step, Step::Commit(Verb::Squash | Verb::Fixup, _)) && !had_commit;
        if !quiet && !folds_nothing {
            let n = done.lines().filter(|l| !l.is_empty()).count() + 1;
            let end = read_state(repo, "end")
                .and_then(|e| e.trim().parse().ok())
                .unwrap_or(n);
            let _ = write!(g.err, "Rebasing ({n}/{end})\r");
        }
        if !done.is_empty() && !done.ends_with('\n') {
            done.push('\n');
        }
        done.push_str(&line);
        done.push('\n');
        repo.fs.write(&state(repo, "done"), done.as_bytes())?;
        write_todo(repo, &steps)?;
        let stopped = match step {
            Step::Commit(Verb::Drop, _) => None,
            Step::Commit(v @ (Verb::Squash | Verb::Fixup), id) => {
                if folds_nothing {
                    let _ = writeln!(
                        g.err,
                        "error: cannot '{}' without a previous commit\nYou can fix this with 'git rebase --edit-todo' and then run 'git rebase --continue'.\nOr you can abort the rebase with 'git rebase --abort'.",
                        v.word()
                    );
                    return Ok(1);
                }
                fold(g, repo, &id, v == Verb::Squash)?
            }
            Step::Commit(v, id) => match pick(g, repo, &id, opts)? {
                Some(s) => Some(s),
                None if v == Verb::Reword => {
                    reword(g, repo)?;
                    None
                }
                None if v == Verb::Edit => {
                    todo::stopped_at(g, repo, &id)?;
                    Some(0)
                }
                None => None,
            },
            Step::Exec(cmd) => {
                let _ = writeln!(g.err, "Executing: {cmd}");
                let status = todo::run_command(g, &cmd);
                if status != 0 {
                    let _ = writeln!(
                        g.err,
                        "warning: execution failed: {cmd}\nYou can fix the problem, and then run\n\n  git rebase --continue\n"
                    );
                    Some(1)
                } else {
                    None
                }
            }
            Step::Break => Some(0),
        };
        drop_squash_onto(repo)?;
        if let Some(status) = stopped {
            return Ok(status);
        }
    }
    finish(g, repo, quiet)
}

/// `git rebase [-q] [--onto NEWBASE] [UPSTREAM [BRANCH]]`, `--continue`,
/// `--skip`, `--abort`, `--quit`.
pub fn rebase(g: &mut G<'_, '_>) -> Result<i32> {
    let args = split_short(&g.args, &['x']);
    let mut quiet = false;
    let (mut interactive, mut autosquash, mut root) = (false, false, false);
    let mut execs: Vec<String> = Vec::new();
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
            "-i" | "--interactive" => interactive = true,
            "--autosquash" => autosquash = true,
            "--root" => root = true,
            "--no-autosquash" => autosquash = false,
            "-x" | "--exec" => {
                execs.extend(args.get(i).cloned());
                i += 1;
            }
            s if s.starts_with("--exec=") => execs.push(s[7..].to_string()),
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
                let steps = read_todo(&repo)?;
                return run_todo(g, &repo, steps, quiet);
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
                let steps = read_todo(&repo)?;
                return run_todo(g, &repo, steps, quiet);
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
    // `--root`: everything is replayed onto an empty commit (git's
    // squash-onto), which no rewritten commit keeps as its parent.
    let squash_onto = if root {
        let tree = repo.write_tree(&[])?;
        let e = super::status::make_commit(g, &repo, tree, Vec::new(), "", None)?;
        rest.insert(0, e.to_hex().to_string());
        Some(e)
    } else {
        None
    };
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
    if onto_arg.is_none() && bases.first() == Some(&upstream) && !interactive && execs.is_empty() {
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
    let mut steps: Vec<Step> = if autosquash {
        todo::autosquash(&repo, &kept)?
    } else {
        kept.iter()
            .map(|id| Step::Commit(Verb::Pick, *id))
            .collect()
    };
    steps = todo::add_exec(steps, &execs);
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
    if let Some(e) = squash_onto {
        repo.fs.write(
            &state(&repo, "squash-onto"),
            format!("{}\n", e.to_hex()).as_bytes(),
        )?;
    }
    if interactive {
        // The list goes to the sequence editor, which may rewrite it.
        let mut text = String::new();
        for step in &steps {
            text.push_str(&todo::step_line(&repo, step)?);
            text.push('\n');
        }
        text.push_str(&todo::help_text(&repo, &onto, &head, steps.len()));
        let path = state(&repo, "git-rebase-todo");
        repo.fs.write(&path, text.as_bytes())?;
        if let Some(editor) = todo::sequence_editor(g, &repo)
            && todo::run_editor(g, &editor, &path) != 0
        {
            clear(&repo);
            return Err(GitError::Raw(
                format!("error: there was a problem with the editor '{editor}'"),
                1,
            ));
        }
        let edited = repo.fs.read(&path)?;
        steps = match todo::parse_todo(&repo, &String::from_utf8_lossy(&edited)) {
            Ok(s) => s,
            Err(e) => {
                clear(&repo);
                return Err(e);
            }
        };
        if steps.is_empty() {
            clear(&repo);
            return Err(GitError::Raw("error: nothing to do".into(), 1));
        }
    }
    repo.fs.write(
        &state(&repo, "end"),
        format!("{}\n", steps.len()).as_bytes(),
    )?;
    repo.fs.write(
        &repo.gp("ORIG_HEAD"),
        format!("{}\n", head.to_hex()).as_bytes(),
    )?;
    // Leading picks already on the new base stay as they are (git's
    // skip_unnecessary_picks): the start moves past them.
    let mut start = onto;
    let mut done = String::new();
    while let Some(Step::Commit(Verb::Pick, id)) = steps.first().cloned() {
        let c = repo.commit(&id)?;
        let on_start = match c.parents.len() {
            0 => squash_onto == Some(start),
            1 => c.parents[0] == start,
            _ => false,
        };
        if !on_start {
            break;
        }
        done.push_str(&todo::step_line(&repo, &steps[0])?);
        done.push('\n');
        start = id;
        steps.remove(0);
    }
    repo.fs.write(&state(&repo, "done"), done.as_bytes())?;
    let to = files_of(&repo, Some(&start))?;
    if !two_tree(g, &repo, &at_head, &to, false, "checkout")? {
        clear(&repo);
        return Ok(1);
    }
    repo.set_head_detached(&start)?;
    let what = if root { "--root" } else { &upstream_arg };
    repo.reflog_message(format!(
        "rebase (start): checkout {}",
        onto_arg.as_deref().unwrap_or(what)
    ));
    repo.append_reflog("HEAD", Some(head), &start);
    run_todo(g, &repo, steps, quiet)
}
