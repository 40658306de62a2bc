//! `status` (long, short, porcelain) and `commit`, which share the
//! comparison of `HEAD`, the index and the work tree.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use sandkeep_shell::{FileKind, Metadata};
use std::io::Write;

use gix_hash::ObjectId;

use super::{G, signature, split_short};
use crate::diff::{self, Change, Side, Version};
use crate::error::{GitError, Result};
use crate::repo::{IndexEntry, Repo};
use crate::worktree::{self, Ignore, Pathspec};

/// The three-way picture `status` prints.
pub struct State {
    /// The commit `HEAD` points at.
    pub head: Option<ObjectId>,
    /// The whole index.
    pub index: Vec<IndexEntry>,
    /// HEAD -> index.
    pub staged: Vec<Change>,
    /// index -> work tree.
    pub unstaged: Vec<Change>,
    /// Untracked files or directories (`dir/`), repo-relative.
    pub untracked: Vec<String>,
    /// Conflicted paths and their stages present (bit 1, 2, 4 for 1, 2, 3).
    pub unmerged: BTreeMap<String, u8>,
    /// Ignored files or directories (`dir/`), when asked for (`--ignored`).
    pub ignored: Vec<String>,
}

/// How untracked files are listed (`-u`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Untracked {
    /// `-uno`.
    No,
    /// The default: a directory without tracked files stands for its content.
    Normal,
    /// `-uall`: every file.
    All,
}

/// The work-tree side over the index's paths (content hashed).
pub fn work_side(repo: &Repo<'_>, index: &[IndexEntry]) -> Result<Side> {
    // One listing with metadata per directory instead of a path walk per
    // file: the index is sorted, so a directory's files come in runs.
    let mut dir_name = None::<&str>;
    let mut listing: HashMap<String, Metadata> = HashMap::new();
    let mut entries = Vec::with_capacity(index.len());
    for e in index.iter().filter(|e| e.stage == 0) {
        let (dir, name) = match e.path.rfind('/') {
            Some(i) => (&e.path[..i], &e.path[i + 1..]),
            None => ("", e.path.as_str()),
        };
        if dir_name != Some(dir) {
            dir_name = Some(dir);
            listing = match repo.fs.read_dir_metadata(&repo.wp(dir)) {
                Ok(l) => l.into_iter().collect(),
                Err(_) => HashMap::new(),
            };
        }
        let Some(meta) = listing.get(name) else {
            continue;
        };
        let mode = match meta.kind {
            FileKind::Symlink => 0o120000,
            FileKind::File if meta.mode & 0o100 != 0 => 0o100755,
            FileKind::File => 0o100644,
            _ => continue,
        };
        // Same size and mtime as when staged: trust the index's id (git's
        // stat check); anything else is hashed.
        let id = if meta.size == e.size
            && (meta.mtime.secs, meta.mtime.nanos) == e.mtime
            && e.mtime != (0, 0)
        {
            e.id
        } else {
            worktree::blob_id(&worktree::file_content(repo, &e.path)?)
        };
        entries.push((
            e.path.clone(),
            Version {
                mode,
                id,
                work: id != e.id,
            },
        ));
    }
    // Built in one go from a sorted list: cheaper than an insert per path.
    Ok(entries.into_iter().collect())
}

/// The index's stage-0 entries as a side.
pub fn index_side(index: &[IndexEntry]) -> Side {
    index
        .iter()
        .filter(|e| e.stage == 0)
        .map(|e| {
            (
                e.path.clone(),
                Version {
                    mode: e.mode,
                    id: e.id,
                    work: false,
                },
            )
        })
        .collect()
}

/// Computes the status of `repo`.
pub fn state(g: &G<'_, '_>, repo: &Repo<'_>, spec: &Pathspec, untracked: bool) -> Result<State> {
    let mode = if untracked {
        Untracked::Normal
    } else {
        Untracked::No
    };
    state_with(g, repo, spec, mode, false)
}

/// [`state`] with the untracked listing `mode` and, when `ignored`, the
/// ignored files too.
pub fn state_with(
    g: &G<'_, '_>,
    repo: &Repo<'_>,
    spec: &Pathspec,
    mode: Untracked,
    want_ignored: bool,
) -> Result<State> {
    let untracked = mode != Untracked::No;
    let head = repo.head();
    let head_side = diff::side_of(&repo.commit_files(head.as_ref())?);
    let index = repo.read_index()?;
    let iside = index_side(&index);
    let keep = |p: &str| spec.matches(p);
    let mut unmerged: BTreeMap<String, u8> = BTreeMap::new();
    for e in index.iter().filter(|e| e.stage > 0) {
        *unmerged.entry(e.path.clone()).or_default() |= 1 << (e.stage - 1);
    }
    let staged = diff::changes_with_renames(repo, &head_side, &iside, &keep, &|| g.check())?;
    let wside = work_side(repo, &index)?;
    let staged: Vec<Change> = staged
        .into_iter()
        .filter(|c| !unmerged.contains_key(&c.path))
        .collect();
    let mut unstaged = diff::changes(&iside, &wside, &keep, false);
    unstaged.retain(|c| c.new.is_some() || c.old.is_some());
    let mut untracked_list = Vec::new();
    let mut ignored_list: Vec<String> = Vec::new();
    if untracked || want_ignored {
        let mut ig = Ignore::new(repo);
        let check = || g.check();
        let files = worktree::walk(repo, &mut ig, &check)?;
        let tracked: HashSet<&str> = index.iter().map(|e| e.path.as_str()).collect();
        let mut tracked_dirs: HashSet<&str> = HashSet::new();
        for e in &index {
            let mut at = e.path.len();
            // Every leading directory of the path, deepest first; a known
            // one means its parents are known too.
            while let Some(i) = e.path[..at].rfind('/') {
                if !tracked_dirs.insert(&e.path[..i]) {
                    break;
                }
                at = i;
            }
        }
        for f in files {
            if tracked.contains(f.path.as_str()) || !spec.matches(&f.path) {
                continue;
            }
            if f.ignored {
                if !want_ignored {
                    continue;
                }
                // The topmost ignored directory stands for its content.
                let mut shown = f.path.clone();
                if mode != Untracked::All {
                    let mut at = 0;
                    while let Some(i) = f.path[at..].find('/') {
                        let d = &f.path[..at + i];
                        if !tracked_dirs.contains(d) && ig.matches(d, true) {
                            shown = format!("{d}/");
                            break;
                        }
                        at += i + 1;
                    }
                }
                if ignored_list.last() != Some(&shown) {
                    ignored_list.push(shown);
                }
                continue;
            }
            if mode == Untracked::All {
                untracked_list.push(f.path.clone());
                continue;
            }
            // The topmost directory without tracked files stands for its content.
            let mut shown = f.path.clone();
            let mut at = 0;
            while let Some(i) = f.path[at..].find('/') {
                let d = &f.path[..at + i];
                if !tracked_dirs.contains(d) {
                    shown = format!("{d}/");
                    break;
                }
                at += i + 1;
            }
            if untracked_list.last() != Some(&shown) {
                untracked_list.push(shown);
            }
        }
    }
    Ok(State {
        head,
        index,
        staged,
        unstaged,
        untracked: if untracked {
            untracked_list
        } else {
            Vec::new()
        },
        unmerged,
        ignored: ignored_list,
    })
}

fn short_code(s: &State, path: &str) -> Option<String> {
    if let Some(bits) = s.unmerged.get(path) {
        let code = match bits {
            1 => "DD",
            2 => "AU",
            3 => "UD",
            4 => "UA",
            5 => "DU",
            6 => "AA",
            _ => "UU",
        };
        return Some(code.into());
    }
    let x = s.staged.iter().find(|c| c.path == path).map(|c| c.letter());
    let y = s
        .unstaged
        .iter()
        .find(|c| c.path == path)
        .map(|c| c.letter());
    if x.is_none() && y.is_none() {
        return None;
    }
    Some(format!("{}{}", x.unwrap_or(' '), y.unwrap_or(' ')))
}

/// Writes the short format (`-s`, `--porcelain`).
pub fn write_short(
    g: &mut G<'_, '_>,
    repo: &Repo<'_>,
    s: &State,
    porcelain: bool,
    branch: bool,
    zero: bool,
) {
    let term = if zero { "\0" } else { "\n" };
    if branch {
        let head = match repo.head_branch() {
            Some(b) if s.head.is_none() => format!("No commits yet on {b}"),
            Some(b) => match tracking(g, repo) {
                Some((up, 0, 0)) => format!("{b}...{up}"),
                Some((up, a, 0)) => format!("{b}...{up} [ahead {a}]"),
                Some((up, 0, bh)) => format!("{b}...{up} [behind {bh}]"),
                Some((up, a, bh)) => format!("{b}...{up} [ahead {a}, behind {bh}]"),
                None => b,
            },
            None => "HEAD (no branch)".into(),
        };
        let _ = write!(g.out, "## {head}{term}");
    }
    let mut paths: BTreeSet<String> = BTreeSet::new();
    for c in s.staged.iter().chain(s.unstaged.iter()) {
        paths.insert(c.path.clone());
    }
    paths.extend(s.unmerged.keys().cloned());
    let cwd = g.cwd.clone();
    let non_ascii = super::quote_non_ascii(g, repo);
    let show = |p: &str| {
        let shown = if porcelain {
            p.to_string()
        } else {
            worktree::relative_to_cwd(repo, &cwd, p)
        };
        // `-z` prints names as they are; otherwise git quotes them, a
        // space included.
        if zero {
            shown
        } else {
            worktree::quote_path(&shown, non_ascii, true)
        }
    };
    for p in paths {
        let Some(code) = short_code(s, &p) else {
            continue;
        };
        let renamed = s
            .staged
            .iter()
            .find(|c| c.path == p)
            .and_then(|c| c.from.clone());
        match renamed {
            Some(from) if zero => {
                let _ = write!(g.out, "{code} {}\0{}\0", show(&p), show(&from));
            }
            Some(from) => {
                let _ = write!(g.out, "{code} {} -> {}{term}", show(&from), show(&p));
            }
            None => {
                let _ = write!(g.out, "{code} {}{term}", show(&p));
            }
        }
    }
    for u in &s.untracked {
        let _ = write!(g.out, "?? {}{term}", show(u));
    }
    for u in &s.ignored {
        let _ = write!(g.out, "!! {}{term}", show(u));
    }
}

/// Writes the long format; `initial_word` is "No commits yet" (status) or
/// "Initial commit" (commit's refusal).
/// The id in `.git/NAME` (`CHERRY_PICK_HEAD`, `REVERT_HEAD`), if any.
fn read_head_file(repo: &Repo<'_>, name: &str) -> Option<ObjectId> {
    let d = repo.fs.read(&repo.gp(name)).ok()?;
    ObjectId::from_hex(String::from_utf8_lossy(&d).trim().as_bytes()).ok()
}

/// The current branch's upstream (short name) and how many commits each
/// side has that the other lacks.
pub fn tracking(g: &G<'_, '_>, repo: &Repo<'_>) -> Option<(String, usize, usize)> {
    let full = super::upstream_of(repo, "").ok()?;
    let up = repo.resolve_ref(&full)?;
    let head = repo.head()?;
    let ahead = super::log::walk(g, repo, &[head], &[up], false).ok()?.len();
    let behind = super::log::walk(g, repo, &[up], &[head], false).ok()?.len();
    let short = full
        .strip_prefix("refs/heads/")
        .or_else(|| full.strip_prefix("refs/remotes/"))
        .unwrap_or(&full)
        .to_string();
    Some((short, ahead, behind))
}

pub fn write_long(g: &mut G<'_, '_>, repo: &Repo<'_>, s: &State, from_commit: bool) {
    let non_ascii = super::quote_non_ascii(g, repo);
    let rebasing = super::rebase::in_progress(repo);
    let track = tracking(g, repo);
    let o = &mut *g.out;
    match repo.head_branch() {
        Some(b) => {
            let _ = writeln!(o, "On branch {b}");
        }
        None if rebasing => {
            let (_, onto) = super::rebase::describe_state(repo);
            let _ = writeln!(o, "interactive rebase in progress; onto {onto}");
        }
        None => {
            let at = s.head.map(|h| repo.abbrev(&h)).unwrap_or_default();
            let _ = writeln!(o, "HEAD detached at {at}");
        }
    }
    if s.head.is_some()
        && let Some((up, ahead, behind)) = &track
    {
        let plural = |n: usize| if n == 1 { "commit" } else { "commits" };
        match (ahead, behind) {
            (0, 0) => {
                let _ = writeln!(o, "Your branch is up to date with '{up}'.");
            }
            (a, 0) => {
                let _ = writeln!(
                    o,
                    "Your branch is ahead of '{up}' by {a} {}.\n  (use \"git push\" to publish your local commits)",
                    plural(*a)
                );
            }
            (0, b) => {
                let _ = writeln!(
                    o,
                    "Your branch is behind '{up}' by {b} {}, and can be fast-forwarded.\n  (use \"git pull\" to update your local branch)",
                    plural(*b)
                );
            }
            (a, b) => {
                let _ = writeln!(
                    o,
                    "Your branch and '{up}' have diverged,\nand have {a} and {b} different commits each, respectively.\n  (use \"git pull\" if you want to integrate the remote branch with yours)"
                );
            }
        }
        let _ = writeln!(o);
    }
    let merging = repo.fs.exists(&repo.gp("MERGE_HEAD"));
    let picking = read_head_file(repo, "CHERRY_PICK_HEAD");
    let reverting = read_head_file(repo, "REVERT_HEAD");
    let unmerged = !s.unmerged.is_empty();
    if merging {
        if unmerged {
            let _ = writeln!(
                o,
                "You have unmerged paths.\n  (fix conflicts and run \"git commit\")\n  (use \"git merge --abort\" to abort the merge)\n"
            );
        } else {
            let _ = writeln!(
                o,
                "All conflicts fixed but you are still merging.\n  (use \"git commit\" to conclude merge)\n"
            );
        }
    } else if rebasing {
        let (branch, onto) = super::rebase::describe_state(repo);
        let (done, todo) = super::rebase::todo_lines(repo);
        if done.is_empty() {
            let _ = writeln!(o, "No commands done.");
        } else {
            let n = done.len();
            if n == 1 {
                let _ = writeln!(o, "Last command done (1 command done):");
            } else {
                let _ = writeln!(o, "Last commands done ({n} commands done):");
            }
            for l in &done[n.saturating_sub(2)..] {
                let _ = writeln!(o, "   {l}");
            }
            if n > 2 {
                let _ = writeln!(o, "  (see more in file {})", repo.gp("rebase-merge/done"));
            }
        }
        if todo.is_empty() {
            let _ = writeln!(o, "No commands remaining.");
        } else {
            let n = todo.len();
            if n == 1 {
                let _ = writeln!(o, "Next command to do (1 remaining command):");
            } else {
                let _ = writeln!(o, "Next commands to do ({n} remaining commands):");
            }
            for l in todo.iter().take(2) {
                let _ = writeln!(o, "   {l}");
            }
            let _ = writeln!(o, "  (use \"git rebase --edit-todo\" to view and edit)");
        }
        match &branch {
            Some(b) => {
                let _ = writeln!(o, "You are currently rebasing branch '{b}' on '{onto}'.");
            }
            None => {
                let _ = writeln!(o, "You are currently rebasing.");
            }
        }
        if unmerged {
            let _ = writeln!(
                o,
                "  (fix conflicts and then run \"git rebase --continue\")\n  (use \"git rebase --skip\" to skip this patch)\n  (use \"git rebase --abort\" to check out the original branch)\n"
            );
        } else {
            let _ = writeln!(
                o,
                "  (all conflicts fixed: run \"git rebase --continue\")\n"
            );
        }
    } else if let Some((id, what, name)) = picking
        .map(|id| (id, "cherry-picking", "cherry-pick"))
        .or(reverting.map(|id| (id, "reverting", "revert")))
    {
        let _ = writeln!(o, "You are currently {what} commit {}.", repo.abbrev(&id));
        if unmerged {
            let _ = writeln!(o, "  (fix conflicts and run \"git {name} --continue\")");
        } else {
            let _ = writeln!(o, "  (all conflicts fixed: run \"git {name} --continue\")");
        }
        let _ = writeln!(
            o,
            "  (use \"git {name} --skip\" to skip this patch)\n  (use \"git {name} --abort\" to cancel the {name} operation)\n"
        );
    }
    // Only a plain commit (or a revert/rebase) offers to unstage conflicts.
    let unstage_hint = !merging && picking.is_none();
    if s.head.is_none() {
        let _ = writeln!(
            o,
            "\n{}\n",
            if from_commit {
                "Initial commit"
            } else {
                "No commits yet"
            }
        );
    }
    let cwd = g.cwd.clone();
    let show =
        |p: &str| worktree::quote_path(&worktree::relative_to_cwd(repo, &cwd, p), non_ascii, false);
    if !s.staged.is_empty() {
        let _ = writeln!(o, "Changes to be committed:");
        if s.head.is_none() {
            let _ = writeln!(o, "  (use \"git rm --cached <file>...\" to unstage)");
        } else if unstage_hint {
            let _ = writeln!(o, "  (use \"git restore --staged <file>...\" to unstage)");
        }
        for c in &s.staged {
            let label = match c.letter() {
                'A' => "new file:",
                'D' => "deleted:",
                'R' => "renamed:",
                'T' => "typechange:",
                _ => "modified:",
            };
            let name = match &c.from {
                Some(f) => format!("{} -> {}", show(f), show(&c.path)),
                None => show(&c.path),
            };
            let _ = writeln!(o, "\t{label:<12}{name}");
        }
        let _ = writeln!(o);
    }
    if !s.unmerged.is_empty() {
        let _ = writeln!(o, "Unmerged paths:");
        if unstage_hint {
            let _ = writeln!(o, "  (use \"git restore --staged <file>...\" to unstage)");
        }
        let del_conflict = s.unmerged.values().any(|b| matches!(b, 1 | 3 | 5));
        if del_conflict {
            let _ = writeln!(
                o,
                "  (use \"git add/rm <file>...\" as appropriate to mark resolution)"
            );
        } else {
            let _ = writeln!(o, "  (use \"git add <file>...\" to mark resolution)");
        }
        for (p, bits) in &s.unmerged {
            let label = match bits {
                1 => "both deleted:",
                2 => "added by us:",
                3 => "deleted by them:",
                4 => "added by them:",
                5 => "deleted by us:",
                6 => "both added:",
                _ => "both modified:",
            };
            let _ = writeln!(o, "\t{label:<17}{}", show(p));
        }
        let _ = writeln!(o);
    }
    let unstaged: Vec<&Change> = s
        .unstaged
        .iter()
        .filter(|c| !s.unmerged.contains_key(&c.path))
        .collect();
    if !unstaged.is_empty() {
        let _ = writeln!(o, "Changes not staged for commit:");
        if unstaged.iter().any(|c| c.new.is_none()) {
            let _ = writeln!(
                o,
                "  (use \"git add/rm <file>...\" to update what will be committed)"
            );
        } else {
            let _ = writeln!(
                o,
                "  (use \"git add <file>...\" to update what will be committed)"
            );
        }
        let _ = writeln!(
            o,
            "  (use \"git restore <file>...\" to discard changes in working directory)"
        );
        for c in &unstaged {
            let label = match c.letter() {
                'D' => "deleted:",
                'T' => "typechange:",
                _ => "modified:",
            };
            let _ = writeln!(o, "\t{label:<12}{}", show(&c.path));
        }
        let _ = writeln!(o);
    }
    if !s.untracked.is_empty() {
        let _ = writeln!(
            o,
            "Untracked files:\n  (use \"git add <file>...\" to include in what will be committed)"
        );
        for u in &s.untracked {
            let _ = writeln!(o, "\t{}", show(u));
        }
        let _ = writeln!(o);
    }
    if !s.ignored.is_empty() {
        let _ = writeln!(
            o,
            "Ignored files:\n  (use \"git add -f <file>...\" to include in what will be committed)"
        );
        for u in &s.ignored {
            let _ = writeln!(o, "\t{}", show(u));
        }
        let _ = writeln!(o);
    }
    if s.staged.is_empty() && s.unmerged.is_empty() {
        if !unstaged.is_empty() {
            let _ = writeln!(
                o,
                "no changes added to commit (use \"git add\" and/or \"git commit -a\")"
            );
        } else if !s.untracked.is_empty() {
            let _ = writeln!(
                o,
                "nothing added to commit but untracked files present (use \"git add\" to track)"
            );
        } else if s.head.is_none() {
            let _ = writeln!(
                o,
                "nothing to commit (create/copy files and use \"git add\" to track)"
            );
        } else {
            let _ = writeln!(o, "nothing to commit, working tree clean");
        }
    } else if !s.unmerged.is_empty() && s.staged.is_empty() {
        let _ = writeln!(
            o,
            "no changes added to commit (use \"git add\" and/or \"git commit -a\")"
        );
    }
}

/// `git status [-s|--short] [--porcelain[=v1]] [-b] [-u[no]] [PATHSPEC...]`.
pub fn status(g: &mut G<'_, '_>) -> Result<i32> {
    let (u_opts, other): (Vec<String>, Vec<String>) =
        g.args.iter().cloned().partition(|a| a.starts_with("-u"));
    let mut args = split_short(&other, &[]);
    args.extend(u_opts);
    let (mut short, mut porcelain, mut branch, mut zero) = (false, false, false, false);
    let mut untracked = Untracked::Normal;
    let mut ignored = false;
    let mut paths = Vec::new();
    for a in args {
        match a.as_str() {
            "-s" | "--short" => short = true,
            "--porcelain" | "--porcelain=v1" => porcelain = true,
            "-b" | "--branch" => branch = true,
            "-z" => {
                zero = true;
                porcelain = !short;
            }
            "-uno" | "--untracked-files=no" => untracked = Untracked::No,
            "-u" | "-uall" | "--untracked-files" | "--untracked-files=all" => {
                untracked = Untracked::All
            }
            "-unormal" | "--untracked-files=normal" => untracked = Untracked::Normal,
            "--ignored" | "--ignored=traditional" | "--ignored=matching" => ignored = true,
            "--ignored=no" => ignored = false,
            "--long" | "--" => {}
            s if s.starts_with('-') => {
                return Err(GitError::Usage(format!(
                    "error: unknown option `{}'",
                    s.trim_start_matches('-')
                )));
            }
            _ => paths.push(a),
        }
    }
    let repo = g.repo()?;
    let spec = Pathspec::new(&repo, &g.cwd, &paths)?;
    let s = state_with(g, &repo, &spec, untracked, ignored)?;
    if short || porcelain {
        write_short(g, &repo, &s, porcelain, branch, zero);
    } else {
        write_long(g, &repo, &s, false);
    }
    Ok(0)
}

/// git's whitespace cleanup of a message: trailing spaces and blank lines
/// at both ends removed, runs of blank lines collapsed.
pub fn cleanup_message(msg: &str, strip_comments: bool) -> String {
    let mut lines: Vec<&str> = Vec::new();
    for l in msg.lines() {
        if strip_comments && l.starts_with('#') {
            continue;
        }
        let t = l.trim_end();
        if t.is_empty() && lines.last().is_none_or(|p| p.is_empty()) {
            continue;
        }
        lines.push(t);
    }
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    if lines.is_empty() {
        return String::new();
    }
    let mut s = lines.join("\n");
    s.push('\n');
    s
}

/// The first line of a message (git's subject: the first paragraph joined).
pub fn subject(msg: &str) -> String {
    let mut parts = Vec::new();
    for l in msg.lines() {
        if l.trim().is_empty() {
            break;
        }
        parts.push(l.trim());
    }
    parts.join(" ")
}

/// Writes the summary after a commit: stat line and create/delete/rename/mode lines.
pub fn commit_summary(g: &mut G<'_, '_>, repo: &Repo<'_>, old: &Side, new: &Side) -> Result<()> {
    let check = g.checker();
    let changes = diff::changes_with_renames(repo, old, new, &|_| true, &check)?;
    if changes.is_empty() {
        // An empty commit: git prints no " 0 files changed" line.
        return Ok(());
    }
    let lines = diff::stat_lines(repo, &changes, &check)?;
    let (mut ins, mut del) = (0, 0);
    for l in &lines {
        if let Some((i, d)) = l.counts {
            ins += i;
            del += d;
        }
    }
    let _ = writeln!(g.out, "{}", diff::summary(changes.len(), ins, del));
    write_modes_summary(g.out, &changes, super::quote_non_ascii(g, repo));
    Ok(())
}

/// The diffstat and summary `merge` prints.
pub fn merge_summary(g: &mut G<'_, '_>, repo: &Repo<'_>, old: &Side, new: &Side) -> Result<()> {
    let check = g.checker();
    let changes = diff::changes_with_renames(repo, old, new, &|_| true, &check)?;
    let lines = diff::stat_lines(repo, &changes, &check)?;
    diff::write_stat(&lines, g.out);
    write_modes_summary(g.out, &changes, super::quote_non_ascii(g, repo));
    Ok(())
}

/// The ` create mode ...` / ` delete mode ...` / ` rename ...` lines.
pub fn write_modes_summary(out: &mut Vec<u8>, changes: &[Change], non_ascii: bool) {
    let q = |p: &str| worktree::quote_path(p, non_ascii, false);
    for c in changes {
        match (&c.old, &c.new) {
            (None, Some(n)) => {
                let _ = writeln!(out, " create mode {:o} {}", n.mode, q(&c.path));
            }
            (Some(o), None) => {
                let _ = writeln!(out, " delete mode {:o} {}", o.mode, q(&c.path));
            }
            (Some(o), Some(n)) => {
                if let Some(f) = &c.from {
                    let _ = writeln!(
                        out,
                        " rename {} ({}%)",
                        diff::rename_name(f, &c.path),
                        c.similarity
                    );
                }
                if o.mode != n.mode {
                    let _ = writeln!(
                        out,
                        " mode change {:o} => {:o} {}",
                        o.mode,
                        n.mode,
                        q(&c.path)
                    );
                }
            }
            _ => {}
        }
    }
}

/// git's ` Author:` and ` Date:` lines after a commit's first line, when
/// the author differs from the committer.
pub fn write_author_lines(out: &mut Vec<u8>, c: &gix_object::Commit) {
    if c.author.name != c.committer.name || c.author.email != c.committer.email {
        let _ = writeln!(out, " Author: {} <{}>", c.author.name, c.author.email);
    }
    if c.author.time != c.committer.time {
        let _ = writeln!(
            out,
            " Date: {}",
            c.author
                .time
                .format_or_unix(gix_date::time::format::DEFAULT)
        );
    }
}

/// Creates a commit of `tree` with `parents` and moves HEAD; returns its id.
pub fn make_commit(
    g: &G<'_, '_>,
    repo: &Repo<'_>,
    tree: ObjectId,
    parents: Vec<ObjectId>,
    message: &str,
    author: Option<gix_actor::Signature>,
) -> Result<ObjectId> {
    let author = match author {
        Some(a) => a,
        None => signature(g, repo, "author")?,
    };
    let committer = signature(g, repo, "committer")?;
    let commit = gix_object::Commit {
        tree,
        parents: parents.into_iter().collect(),
        author,
        committer,
        encoding: None,
        message: message.into(),
        extra_headers: Vec::new(),
    };
    repo.write(&commit)
}

/// `git commit [-m MSG]... [-a] [--amend] [--allow-empty] [-q] [-F FILE] [--author A] [--date D]`.
pub fn commit(g: &mut G<'_, '_>) -> Result<i32> {
    let args = split_short(&g.args, &['m', 'F', 'C']);
    let mut messages: Vec<String> = Vec::new();
    let (mut all, mut amend, mut allow_empty, mut quiet, mut no_edit, mut allow_empty_msg) =
        (false, false, false, false, false, false);
    let mut author_override: Option<String> = None;
    let mut date_override: Option<String> = None;
    let mut reuse: Option<String> = None;
    let mut i = 0;
    let mut paths = Vec::new();
    while i < args.len() {
        let a = args[i].clone();
        let value = |i: &mut usize| -> Result<String> {
            *i += 1;
            args.get(*i)
                .cloned()
                .ok_or_else(|| GitError::Usage(format!("error: option `{a}' requires a value")))
        };
        match a.as_str() {
            "-m" | "--message" => messages.push(value(&mut i)?),
            s if s.starts_with("--message=") => messages.push(s[10..].to_string()),
            "-F" | "--file" => {
                let f = value(&mut i)?;
                let data = if f == "-" {
                    Vec::new()
                } else {
                    g.fs.read(&sandkeep_shell::Fs::resolve(&g.cwd, &f))?
                };
                messages.push(String::from_utf8_lossy(&data).into_owned());
            }
            "-C" | "--reuse-message" => reuse = Some(value(&mut i)?),
            "-a" | "--all" => all = true,
            "--amend" => amend = true,
            "--allow-empty" => allow_empty = true,
            "--allow-empty-message" => allow_empty_msg = true,
            "-q" | "--quiet" => quiet = true,
            "--no-edit" => no_edit = true,
            "--no-verify" | "-n" | "-v" | "--verbose" | "-s" | "--signoff" | "--" => {}
            s if s.starts_with("--author=") => author_override = Some(s[9..].to_string()),
            "--author" => author_override = Some(value(&mut i)?),
            s if s.starts_with("--date=") => date_override = Some(s[7..].to_string()),
            s if s.starts_with('-') => {
                return Err(GitError::Usage(format!(
                    "error: unknown option `{}'",
                    s.trim_start_matches('-')
                )));
            }
            _ => paths.push(a),
        }
        i += 1;
    }
    let repo = g.repo()?;
    let mut index = repo.read_index()?;
    if index.iter().any(|e| e.stage > 0) {
        let _ = writeln!(
            g.err,
            "error: Committing is not possible because you have unmerged files.\nhint: Fix them up in the work tree, and then use 'git add/rm <file>'\nhint: as appropriate to mark resolution and make a commit.\nfatal: Exiting because of an unresolved conflict."
        );
        return Ok(128);
    }
    if all || !paths.is_empty() {
        let spec = Pathspec::new(&repo, &g.cwd, &paths)?;
        let mut updated = Vec::new();
        for e in index.drain(..) {
            if !spec.matches(&e.path) {
                updated.push(e);
                continue;
            }
            if worktree::file_mode(&repo, &e.path).is_none() {
                continue;
            }
            updated.push(super::basic::stage_file(&repo, &e.path)?);
        }
        index = updated;
        repo.write_index(&index)?;
    }
    let head = repo.head();
    let mut parents: Vec<ObjectId> = head.into_iter().collect();
    let mut author = None;
    let mut old_message = None;
    if amend {
        let Some(h) = head else {
            return Err(GitError::fatal("You have nothing to amend."));
        };
        let c = repo.commit(&h)?;
        parents = c.parents.to_vec();
        author = Some(c.author.clone());
        old_message = Some(c.message.to_string());
    }
    if let Some(r) = &reuse {
        let id = super::rev_commit(&repo, r)?;
        let c = repo.commit(&id)?;
        author = Some(c.author.clone());
        old_message = Some(c.message.to_string());
    }
    if let Some(a) = &author_override {
        let (name, email) = match a.split_once('<') {
            Some((n, e)) => (n.trim().to_string(), e.trim_end_matches('>').to_string()),
            None => {
                return Err(GitError::fatal(format!(
                    "--author '{a}' is not 'Name <email>' and matches no existing author"
                )));
            }
        };
        let mut s = signature(g, &repo, "author")?;
        s.name = name.into();
        s.email = email.into();
        author = Some(s);
    }
    if let Some(d) = &date_override {
        let mut s = match author {
            Some(a) => a,
            None => signature(g, &repo, "author")?,
        };
        s.time = super::parse_date(d)?;
        author = Some(s);
    }
    let tree = repo.write_index_tree(&index)?;
    let parent_tree = match parents.first() {
        Some(p) => Some(repo.commit(p)?.tree),
        None => None,
    };
    let merging = repo.resolve_ref("MERGE_HEAD");
    let empty_tree_same = match parent_tree {
        Some(pt) => pt == tree,
        None => index.is_empty(),
    };
    if empty_tree_same && !allow_empty && !amend && merging.is_none() {
        let spec = Pathspec::default();
        let s = state(g, &repo, &spec, true)?;
        write_long(g, &repo, &s, true);
        return Ok(1);
    }
    let raw = if !messages.is_empty() {
        messages.join("\n\n")
    } else if let Some(m) = old_message
        .clone()
        .filter(|_| no_edit || reuse.is_some() || amend)
    {
        m
    } else if let Ok(m) = repo.fs.read(&repo.gp("MERGE_MSG")) {
        String::from_utf8_lossy(&m).into_owned()
    } else {
        let _ = writeln!(
            g.err,
            "error: there is no editor in the local sandbox; use -m or -F"
        );
        let _ = writeln!(
            g.err,
            "Please supply the message using either -m or -F option."
        );
        return Ok(1);
    };
    let message = cleanup_message(&raw, false);
    if message.is_empty() && !allow_empty_msg {
        let _ = writeln!(g.err, "Aborting commit due to empty commit message.");
        return Ok(1);
    }
    if let Some(m) = merging {
        parents.push(m);
    }
    let id = make_commit(g, &repo, tree, parents.clone(), &message, author)?;
    if let Some(h) = head {
        repo.set_ref("ORIG_HEAD", &h).ok();
    }
    let how = if amend {
        " (amend)"
    } else if merging.is_some() {
        " (merge)"
    } else if parents.is_empty() {
        " (initial)"
    } else {
        ""
    };
    repo.reflog_message(format!("commit{how}: {}", subject(&message)));
    repo.update_head(&id)?;
    for f in [
        "MERGE_HEAD",
        "MERGE_MSG",
        "MERGE_MODE",
        "CHERRY_PICK_HEAD",
        "REVERT_HEAD",
        "SQUASH_MSG",
    ] {
        let _ = repo.fs.remove_file(&repo.gp(f));
    }
    if !quiet {
        let branch = match repo.head_branch() {
            Some(b) => b,
            None => "detached HEAD".into(),
        };
        let root = if parents.is_empty() && !amend {
            " (root-commit)"
        } else {
            ""
        };
        let _ = writeln!(
            g.out,
            "[{branch}{root} {}] {}",
            repo.abbrev(&id),
            subject(&message)
        );
        let c = repo.commit(&id)?;
        write_author_lines(g.out, &c);
        let old_side = match parent_tree {
            Some(t) => diff::side_of(&repo.flatten_tree(&t)?),
            None => Side::new(),
        };
        let new_side = index_side(&index);
        commit_summary(g, &repo, &old_side, &new_side)?;
    }
    Ok(0)
}
