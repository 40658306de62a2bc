//! `cherry-pick` and `revert`: each named commit's change (or its
//! reverse) merged onto `HEAD` and committed, oldest first for a range.
//! A conflict stops with `CHERRY_PICK_HEAD`/`REVERT_HEAD`, `MERGE_MSG` and
//! the rest of the work in `.git/sequencer/`, for `--continue`, `--skip`
//! and `--abort`. `rebase` applies its commits with [`apply_one`] too.

use std::io::Write;

use bstr::ByteSlice;
use gix_hash::ObjectId;

use super::branch::two_tree;
use super::merge::{Files, apply_merge, files_of, merge_trees};
use super::{G, split_short};
use crate::diff;
use crate::error::{GitError, Result};
use crate::repo::{IndexEntry, Repo};

/// Which of the two commands.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Action {
    /// `cherry-pick`.
    Pick,
    /// `revert`.
    Revert,
}

impl Action {
    /// The reflog message of a commit this action made with `msg`.
    fn reflog(self, msg: &str) -> String {
        let what = match self {
            Action::Pick => "cherry-pick",
            Action::Revert => "revert",
        };
        format!("{what}: {}", super::status::subject(msg))
    }
}

impl Action {
    fn name(self) -> &'static str {
        match self {
            Action::Pick => "cherry-pick",
            Action::Revert => "revert",
        }
    }
    fn head_file(self) -> &'static str {
        match self {
            Action::Pick => "CHERRY_PICK_HEAD",
            Action::Revert => "REVERT_HEAD",
        }
    }
    fn verb(self) -> &'static str {
        match self {
            Action::Pick => "apply",
            Action::Revert => "revert",
        }
    }
}

/// Options of one run.
#[derive(Clone, Copy, Default)]
pub struct PickOpts {
    /// `-n`: leave the result in the index and work tree.
    pub no_commit: bool,
    /// `-x`: note the picked commit in the message.
    pub record_origin: bool,
    /// `-m N`: the parent a merge is diffed against.
    pub mainline: Option<usize>,
    /// Applying for `rebase`: its own conflict advice, no `*_HEAD` file.
    pub rebase: bool,
}

/// How applying one commit ended.
pub enum Step {
    /// Committed: the new `HEAD`.
    Committed(ObjectId),
    /// Merged into the index and work tree, not committed (`-n`).
    Staged,
    /// Stopped at a conflict (state written, messages printed).
    Conflict,
    /// The change was already there: nothing to commit.
    Empty,
}

/// The files of the index's merged entries.
pub fn index_files(index: &[IndexEntry]) -> Files {
    index
        .iter()
        .filter(|e| e.stage == 0)
        .map(|e| (e.path.clone(), (e.mode, e.id)))
        .collect()
}

/// The message of a commit made by `action` from `c` (`id`).
fn message(
    repo: &Repo<'_>,
    action: Action,
    id: &ObjectId,
    c: &gix_object::Commit,
    opts: PickOpts,
) -> String {
    let msg = c.message.to_str_lossy().into_owned();
    match action {
        Action::Pick => {
            if opts.record_origin {
                let mut m = msg.trim_end_matches('\n').to_string();
                m.push_str(&format!(
                    "\n\n(cherry picked from commit {})\n",
                    id.to_hex()
                ));
                m
            } else {
                msg
            }
        }
        Action::Revert => {
            let subject = super::status::subject(&msg);
            let mut m = format!(
                "Revert \"{subject}\"\n\nThis reverts commit {}",
                id.to_hex()
            );
            if let Some(n) = opts.mainline
                && let Some(p) = c.parents.get(n - 1)
            {
                m.push_str(&format!(", reversing\nchanges made to {}", p.to_hex()));
            }
            m.push_str(".\n");
            let _ = repo;
            m
        }
    }
}

/// Applies `id` (or its reverse) onto `head`; commits unless `-n`.
pub fn apply_one(
    g: &mut G<'_, '_>,
    repo: &Repo<'_>,
    action: Action,
    id: &ObjectId,
    head: &ObjectId,
    opts: PickOpts,
) -> Result<Step> {
    let c = repo.commit(id)?;
    let parent = if c.parents.len() > 1 {
        let Some(n) = opts.mainline else {
            return Err(GitError::Raw(
                format!(
                    "error: commit {} is a merge but no -m option was given.\nfatal: {} failed",
                    id.to_hex(),
                    action.name()
                ),
                128,
            ));
        };
        match c.parents.get(n.wrapping_sub(1)) {
            Some(p) => Some(*p),
            None => {
                return Err(GitError::Raw(
                    format!(
                        "error: commit {} does not have parent {n}\nfatal: {} failed",
                        id.to_hex(),
                        action.name()
                    ),
                    128,
                ));
            }
        }
    } else {
        if opts.mainline.is_some() {
            return Err(GitError::Raw(
                format!(
                    "error: mainline was specified but commit {} is not a merge.\nfatal: {} failed",
                    id.to_hex(),
                    action.name()
                ),
                128,
            ));
        }
        c.parents.first().copied()
    };
    let index = repo.read_index()?;
    let current = if opts.no_commit {
        index_files(&index)
    } else {
        let at_head = files_of(repo, Some(head))?;
        if index_files(&index) != at_head || index.iter().any(|e| e.stage > 0) {
            return Err(GitError::Raw(
                format!(
                    "error: your local changes would be overwritten by {}.\nhint: commit your changes or stash them to proceed.\nfatal: {} failed",
                    action.name(),
                    action.name()
                ),
                128,
            ));
        }
        at_head
    };
    let picked = repo.flatten_tree(&c.tree)?;
    let parent_files = files_of(repo, parent.as_ref())?;
    let subject = super::status::subject(&c.message.to_str_lossy());
    let short = repo.abbrev(id);
    let (base, theirs, label) = match action {
        Action::Pick => (parent_files, picked, format!("{short} ({subject})")),
        Action::Revert => (
            picked,
            parent_files,
            format!("parent of {short} ({subject})"),
        ),
    };
    let m = merge_trees(repo, &base, &current, &theirs, "HEAD", &label, &g.checker())?;
    if !apply_merge(g, repo, &current, &m)? {
        return Err(GitError::Raw(
            format!("fatal: {} failed", action.name()),
            128,
        ));
    }
    for p in &m.auto_merged {
        let _ = writeln!(g.out, "Auto-merging {p}");
    }
    let msg = message(repo, action, id, &c, opts);
    if !m.conflicts.is_empty() {
        for line in &m.messages {
            let _ = writeln!(g.out, "{line}");
        }
        if !opts.no_commit && !opts.rebase {
            repo.fs.write(
                &repo.gp(action.head_file()),
                format!("{}\n", id.to_hex()).as_bytes(),
            )?;
        }
        let mut merge_msg = msg.clone();
        merge_msg.push_str("\n# Conflicts:\n");
        for p in m.conflicts.keys() {
            merge_msg.push_str(&format!("#\t{p}\n"));
        }
        repo.fs.write(&repo.gp("MERGE_MSG"), merge_msg.as_bytes())?;
        if opts.no_commit {
            let _ = writeln!(
                g.err,
                "error: could not {} {short}... {subject}\nhint: after resolving the conflicts, mark the corrected paths\nhint: with 'git add <paths>' or 'git rm <paths>'\nhint: Disable this message with \"git config advice.mergeConflict false\"",
                action.verb()
            );
            return Ok(Step::Conflict);
        }
        if opts.rebase {
            let _ = writeln!(
                g.err,
                "error: could not apply {short}... {subject}\nhint: Resolve all conflicts manually, mark them as resolved with\nhint: \"git add/rm <conflicted_files>\", then run \"git rebase --continue\".\nhint: You can instead skip this commit: run \"git rebase --skip\".\nhint: To abort and get back to the state before \"git rebase\", run \"git rebase --abort\".\nhint: Disable this message with \"git config advice.mergeConflict false\"\nCould not apply {short}... {subject}"
            );
            return Ok(Step::Conflict);
        }
        let _ = writeln!(
            g.err,
            "error: could not {} {short}... {subject}\nhint: After resolving the conflicts, mark them with\nhint: \"git add/rm <pathspec>\", then run\nhint: \"git {0} --continue\".\nhint: You can instead skip this commit with \"git {0} --skip\".\nhint: To abort and get back to the state before \"git {0}\",\nhint: run \"git {0} --abort\".\nhint: Disable this message with \"git config advice.mergeConflict false\"",
            action.verb(),
        )
        .map(|_| ());
        return Ok(Step::Conflict);
    }
    if opts.no_commit && opts.rebase {
        return Ok(Step::Staged);
    }
    if opts.no_commit {
        // As git: the pick stays in progress until a commit or `--abort`.
        repo.fs.write(
            &repo.gp(action.head_file()),
            format!("{}\n", id.to_hex()).as_bytes(),
        )?;
        return Ok(Step::Staged);
    }
    let index = repo.read_index()?;
    let tree = repo.write_index_tree(&index)?;
    if tree == repo.commit(head)?.tree {
        return Ok(Step::Empty);
    }
    let author = match action {
        Action::Pick => Some(c.author.clone()),
        Action::Revert => None,
    };
    let new = super::status::make_commit(g, repo, tree, vec![*head], &msg, author)?;
    if opts.rebase {
        repo.reflog_message(format!("rebase (pick): {}", super::status::subject(&msg)));
    } else {
        repo.reflog_message(action.reflog(&msg));
    }
    repo.update_head(&new)?;
    Ok(Step::Committed(new))
}

/// `[branch id] subject` and the change summary of a new commit; the
/// author's date shows when `show_date` (git's sequencer always shows it,
/// a resumed commit only when the author came from another commit).
pub fn report_commit(
    g: &mut G<'_, '_>,
    repo: &Repo<'_>,
    old: &ObjectId,
    new: &ObjectId,
    show_date: bool,
) -> Result<()> {
    let c = repo.commit(new)?;
    let branch = repo.head_branch().unwrap_or_else(|| "detached HEAD".into());
    let subject = super::status::subject(&c.message.to_str_lossy());
    let _ = writeln!(g.out, "[{branch} {}] {subject}", repo.abbrev(new));
    if c.author.name != c.committer.name || c.author.email != c.committer.email {
        let _ = writeln!(g.out, " Author: {} <{}>", c.author.name, c.author.email);
    }
    if show_date {
        let _ = writeln!(
            g.out,
            " Date: {}",
            c.author
                .time
                .format_or_unix(gix_date::time::format::DEFAULT)
        );
    }
    super::status::commit_summary(
        g,
        repo,
        &diff::side_of(&files_of(repo, Some(old))?),
        &diff::side_of(&repo.flatten_tree(&c.tree)?),
    )
}

/// The commits a list of arguments names, in the order they are applied
/// (`A..B` oldest first).
fn targets(g: &G<'_, '_>, repo: &Repo<'_>, args: &[String]) -> Result<Vec<ObjectId>> {
    let mut out = Vec::new();
    for a in args {
        if let Some((x, y)) = a.split_once("..") {
            let hide = super::rev_commit(repo, if x.is_empty() { "HEAD" } else { x })?;
            let start = super::rev_commit(repo, if y.is_empty() { "HEAD" } else { y })?;
            let mut ids = super::log::walk(g, repo, &[start], &[hide], false)?;
            ids.retain(|id| repo.commit(id).is_ok_and(|c| c.parents.len() < 2));
            ids.reverse();
            out.extend(ids);
        } else {
            let id = super::rev_opt(repo, a)?
                .ok_or_else(|| GitError::fatal(format!("bad revision '{a}'")))?;
            out.push(super::peel_to_commit(repo, &id)?);
        }
    }
    Ok(out)
}

fn seq_path(repo: &Repo<'_>, name: &str) -> String {
    repo.gp(&format!("sequencer/{name}"))
}

fn clear_state(repo: &Repo<'_>) {
    for f in ["CHERRY_PICK_HEAD", "REVERT_HEAD", "MERGE_MSG"] {
        let _ = repo.fs.remove_file(&repo.gp(f));
    }
    for f in ["head", "todo", "opts", "action"] {
        let _ = repo.fs.remove_file(&seq_path(repo, f));
    }
    let _ = repo.fs.remove_dir(&repo.gp("sequencer"));
}

fn save_todo(repo: &Repo<'_>, action: Action, rest: &[ObjectId], opts: PickOpts) -> Result<()> {
    let _ = repo.fs.mkdir_all(&repo.gp("sequencer"));
    let todo: String = rest.iter().map(|id| format!("{}\n", id.to_hex())).collect();
    repo.fs.write(&seq_path(repo, "todo"), todo.as_bytes())?;
    repo.fs
        .write(&seq_path(repo, "action"), action.name().as_bytes())?;
    let o = format!(
        "{} {} {}\n",
        u8::from(opts.no_commit),
        u8::from(opts.record_origin),
        opts.mainline.unwrap_or(0)
    );
    repo.fs.write(&seq_path(repo, "opts"), o.as_bytes())?;
    Ok(())
}

fn load_todo(repo: &Repo<'_>) -> (Vec<ObjectId>, PickOpts) {
    let todo = repo
        .fs
        .read(&seq_path(repo, "todo"))
        .map(|d| {
            String::from_utf8_lossy(&d)
                .lines()
                .filter_map(|l| ObjectId::from_hex(l.trim().as_bytes()).ok())
                .collect()
        })
        .unwrap_or_default();
    let mut opts = PickOpts::default();
    if let Ok(d) = repo.fs.read(&seq_path(repo, "opts")) {
        let s = String::from_utf8_lossy(&d).into_owned();
        let v: Vec<&str> = s.split_whitespace().collect();
        opts.no_commit = v.first() == Some(&"1");
        opts.record_origin = v.get(1) == Some(&"1");
        opts.mainline = v.get(2).and_then(|m| m.parse().ok()).filter(|&m| m > 0);
    }
    (todo, opts)
}

/// Runs picks one after another from `head`; stops at a conflict.
fn run_todo(
    g: &mut G<'_, '_>,
    repo: &Repo<'_>,
    action: Action,
    mut todo: Vec<ObjectId>,
    opts: PickOpts,
) -> Result<i32> {
    while !todo.is_empty() {
        g.check()?;
        let id = todo.remove(0);
        let Some(head) = repo.head() else {
            return Err(GitError::fatal(format!(
                "{} on an unborn branch is not available",
                action.name()
            )));
        };
        match apply_one(g, repo, action, &id, &head, opts)? {
            Step::Committed(new) => report_commit(g, repo, &head, &new, true)?,
            Step::Staged => {}
            Step::Conflict => {
                save_todo(repo, action, &todo, opts)?;
                return Ok(1);
            }
            Step::Empty => {
                save_todo(repo, action, &todo, opts)?;
                if !opts.no_commit {
                    repo.fs.write(
                        &repo.gp(action.head_file()),
                        format!("{}\n", id.to_hex()).as_bytes(),
                    )?;
                }
                let _ = writeln!(
                    g.err,
                    "The previous cherry-pick is now empty, possibly due to conflict resolution.\nIf you wish to commit it anyway, use:\n\n    git commit --allow-empty\n\nOtherwise, please use 'git cherry-pick --skip'"
                );
                return Ok(1);
            }
        }
    }
    if opts.no_commit {
        // The pick stays in progress (its HEAD file and message) until a
        // commit or `--abort`; only the sequencer's list goes.
        for f in ["head", "todo", "opts", "action"] {
            let _ = repo.fs.remove_file(&seq_path(repo, f));
        }
        let _ = repo.fs.remove_dir(&repo.gp("sequencer"));
    } else {
        clear_state(repo);
    }
    Ok(0)
}

/// `git cherry-pick` / `git revert` with `[-n] [-x] [-m N] [--no-edit] COMMIT...`
/// or `--continue`, `--skip`, `--abort`, `--quit`.
pub fn run(g: &mut G<'_, '_>, action: Action) -> Result<i32> {
    let args = split_short(&g.args, &['m']);
    let mut opts = PickOpts::default();
    let mut control: Option<String> = None;
    let mut revs = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        match a.as_str() {
            "-n" | "--no-commit" => opts.no_commit = true,
            "-x" => opts.record_origin = true,
            "-m" | "--mainline" => {
                let v = args.get(i).cloned().unwrap_or_default();
                i += 1;
                opts.mainline = Some(v.parse().ok().filter(|&n| n > 0).ok_or_else(|| {
                    GitError::Raw(
                        "error: option `mainline' expects a number greater than zero".into(),
                        129,
                    )
                })?);
            }
            "--no-edit" | "-e" | "--edit" | "--ff" | "-s" | "--signoff" | "--allow-empty" => {}
            "--continue" | "--skip" | "--abort" | "--quit" => control = Some(a.clone()),
            s if s.starts_with("--mainline=") => opts.mainline = s[11..].parse().ok(),
            s if s.starts_with('-') && s.len() > 1 => {
                return Err(GitError::Usage(format!(
                    "error: unknown option `{}'",
                    s.trim_start_matches('-')
                )));
            }
            _ => revs.push(a.clone()),
        }
    }
    let repo = g.repo()?;
    let in_progress =
        repo.fs.exists(&repo.gp(action.head_file())) || repo.fs.exists(&seq_path(&repo, "todo"));
    match control.as_deref() {
        Some("--abort") => {
            if !in_progress {
                return Err(GitError::Raw(
                    format!(
                        "error: no {} in progress\nfatal: {} failed",
                        action.name(),
                        action.name()
                    ),
                    128,
                ));
            }
            let target = repo
                .fs
                .read(&seq_path(&repo, "head"))
                .ok()
                .and_then(|d| {
                    ObjectId::from_hex(String::from_utf8_lossy(&d).trim().as_bytes()).ok()
                })
                .or(repo.head());
            let to = files_of(&repo, target.as_ref())?;
            let from = files_of(&repo, repo.head().as_ref())?;
            two_tree(g, &repo, &from, &to, true, "reset")?;
            if let Some(t) = target {
                repo.update_head(&t)?;
            }
            clear_state(&repo);
            return Ok(0);
        }
        Some("--quit") => {
            clear_state(&repo);
            return Ok(0);
        }
        Some("--skip") => {
            if !in_progress {
                return Err(GitError::Raw(
                    format!(
                        "error: no {} in progress\nfatal: {} failed",
                        action.name(),
                        action.name()
                    ),
                    128,
                ));
            }
            let head = repo.head();
            let to = files_of(&repo, head.as_ref())?;
            two_tree(g, &repo, &to, &to, true, "reset")?;
            let _ = repo.fs.remove_file(&repo.gp(action.head_file()));
            let _ = repo.fs.remove_file(&repo.gp("MERGE_MSG"));
            let (todo, opts) = load_todo(&repo);
            return run_todo(g, &repo, action, todo, opts);
        }
        Some("--continue") => {
            if !in_progress {
                return Err(GitError::Raw(
                    format!(
                        "error: no {} in progress\nfatal: {} failed",
                        action.name(),
                        action.name()
                    ),
                    128,
                ));
            }
            let index = repo.read_index()?;
            if index.iter().any(|e| e.stage > 0) {
                return Err(GitError::Raw(
                    "error: Committing is not possible because you have unmerged files.\nhint: Fix them up in the work tree, and then use 'git add/rm <file>'\nhint: as appropriate to mark resolution and make a commit.\nfatal: Exiting because of an unresolved conflict.".into(),
                    128,
                ));
            }
            let (todo, opts) = load_todo(&repo);
            if let Some(picked) = repo
                .fs
                .read(&repo.gp(action.head_file()))
                .ok()
                .and_then(|d| {
                    ObjectId::from_hex(String::from_utf8_lossy(&d).trim().as_bytes()).ok()
                })
                && let Some(head) = repo.head()
            {
                let msg = repo
                    .fs
                    .read(&repo.gp("MERGE_MSG"))
                    .map(|d| String::from_utf8_lossy(&d).into_owned())
                    .unwrap_or_default();
                let msg = super::status::cleanup_message(&msg, true);
                let tree = repo.write_index_tree(&index)?;
                let author = match action {
                    Action::Pick => Some(repo.commit(&picked)?.author),
                    Action::Revert => None,
                };
                let new = super::status::make_commit(g, &repo, tree, vec![head], &msg, author)?;
                repo.reflog_message(action.reflog(&msg));
                repo.update_head(&new)?;
                report_commit(g, &repo, &head, &new, action == Action::Pick)?;
                let _ = repo.fs.remove_file(&repo.gp(action.head_file()));
                let _ = repo.fs.remove_file(&repo.gp("MERGE_MSG"));
            }
            return run_todo(g, &repo, action, todo, opts);
        }
        _ => {}
    }
    if revs.is_empty() {
        return Err(GitError::Usage(format!(
            "usage: git {} [--[no-]edit] [-n] [-m <parent-number>] [-s] [-x] [--ff]\n                   [-S[<keyid>]] <commit>...\n   or: git {0} (--continue | --skip | --abort | --quit)",
            action.name()
        )));
    }
    if in_progress {
        return Err(GitError::Raw(
            format!(
                "error: {} is already in progress\nhint: try \"git {} (--continue | --abort | --quit)\"\nfatal: {} failed",
                if action == Action::Pick {
                    "cherry-pick"
                } else {
                    "revert"
                },
                action.name(),
                action.name()
            ),
            128,
        ));
    }
    let todo = targets(g, &repo, &revs)?;
    if let Some(h) = repo.head() {
        let _ = repo.fs.mkdir_all(&repo.gp("sequencer"));
        repo.fs.write(
            &seq_path(&repo, "head"),
            format!("{}\n", h.to_hex()).as_bytes(),
        )?;
    }
    run_todo(g, &repo, action, todo, opts)
}
