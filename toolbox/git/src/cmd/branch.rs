//! Branches and moving between trees: `branch`, `switch`, `checkout`,
//! `restore`, `reset`, `tag`, `symbolic-ref`, `update-ref`, and the
//! two-tree checkout that carries local changes the way git does.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;

use gix_hash::ObjectId;

use super::{G, rev, rev_commit, signature, split_short};
use crate::error::{GitError, Result};
use crate::repo::{IndexEntry, Repo};
use crate::worktree::{self, Pathspec};

type Files = BTreeMap<String, (u32, ObjectId)>;

/// Writes a blob to the work tree at `rel` with `mode`.
pub fn write_work_file(repo: &Repo<'_>, rel: &str, mode: u32, id: &ObjectId) -> Result<IndexEntry> {
    let data = repo.read_kind(id, gix_object::Kind::Blob)?;
    let path = repo.wp(rel);
    if let Some(i) = path.rfind('/') {
        // A file where a directory must go is replaced.
        let dir = &path[..i];
        if repo
            .fs
            .metadata(dir)
            .is_ok_and(|m| m.kind != sandkeep_shell::FileKind::Dir)
        {
            repo.fs.remove_file(dir)?;
        }
        repo.fs.mkdir_all(dir)?;
    }
    if repo
        .fs
        .symlink_metadata(&path)
        .is_ok_and(|m| m.kind == sandkeep_shell::FileKind::Dir)
    {
        repo.fs.remove_all(&path)?;
    }
    if mode == 0o120000 {
        let _ = repo.fs.remove_file(&path);
        repo.fs.symlink(&String::from_utf8_lossy(&data), &path)?;
    } else {
        if repo
            .fs
            .symlink_metadata(&path)
            .is_ok_and(|m| m.kind == sandkeep_shell::FileKind::Symlink)
        {
            repo.fs.remove_file(&path)?;
        }
        repo.fs.write(&path, &data)?;
        repo.fs
            .set_mode(&path, if mode == 0o100755 { 0o755 } else { 0o644 })?;
    }
    let meta = repo.fs.symlink_metadata(&path)?;
    Ok(IndexEntry {
        path: rel.to_string(),
        id: *id,
        mode,
        stage: 0,
        size: data.len() as u64,
        mtime: (meta.mtime.secs, meta.mtime.nanos),
    })
}

fn remove_work_file(repo: &Repo<'_>, rel: &str) {
    let _ = repo.fs.remove_file(&repo.wp(rel));
    super::basic::remove_empty_parents(repo, rel);
}

/// Moves index and work tree from `from` to `to` (two flattened trees).
/// Without `force`, local changes to paths that differ between them stop
/// it (`what` names the operation in the message).
pub fn two_tree(
    g: &mut G<'_, '_>,
    repo: &Repo<'_>,
    from: &Files,
    to: &Files,
    force: bool,
    what: &str,
) -> Result<bool> {
    let index = repo.read_index()?;
    let mut by_path: BTreeMap<String, IndexEntry> = index
        .into_iter()
        .filter(|e| e.stage == 0 || force)
        .map(|e| (e.path.clone(), e))
        .collect();
    let paths: BTreeSet<&String> = from.keys().chain(to.keys()).collect();
    let mut dirty = Vec::new();
    let mut untracked = Vec::new();
    if !force {
        for p in &paths {
            let (h, t) = (from.get(*p), to.get(*p));
            if h == t {
                continue;
            }
            let i = by_path.get(*p).map(|e| (e.mode, e.id));
            let w = worktree::file_mode(repo, p).map(|m| {
                (
                    m,
                    worktree::blob_id(&worktree::file_content(repo, p).unwrap_or_default()),
                )
            });
            if i.is_none() && h.is_none() {
                if w.is_some() && w.map(|x| x.1) != t.map(|x| x.1) {
                    untracked.push((*p).clone());
                }
                continue;
            }
            let staged_dirty = i != h.copied() && i != t.copied();
            let work_dirty = w != i && !(w.is_none() && i.is_none());
            if staged_dirty || (work_dirty && !(i == t.copied() && w == i)) {
                if i == t.copied() && w == i {
                    continue;
                }
                dirty.push((*p).clone());
            }
        }
        if !dirty.is_empty() {
            let _ = writeln!(
                g.err,
                "error: Your local changes to the following files would be overwritten by {what}:"
            );
            for p in &dirty {
                let _ = writeln!(g.err, "\t{p}");
            }
            let tail = if what == "checkout" {
                "Please commit your changes or stash them before you switch branches."
            } else {
                "Please commit your changes or stash them before you merge."
            };
            let _ = writeln!(g.err, "{tail}\nAborting");
            return Ok(false);
        }
        if !untracked.is_empty() {
            let _ = writeln!(
                g.err,
                "error: The following untracked working tree files would be overwritten by {what}:"
            );
            for p in &untracked {
                let _ = writeln!(g.err, "\t{p}");
            }
            let tail = if what == "checkout" {
                "Please move or remove them before you switch branches."
            } else {
                "Please move or remove them before you merge."
            };
            let _ = writeln!(g.err, "{tail}\nAborting");
            return Ok(false);
        }
    }
    for p in paths {
        g.check()?;
        let (h, t) = (from.get(p), to.get(p));
        if h == t && !force {
            continue;
        }
        match t {
            Some((mode, id)) => {
                let e = write_work_file(repo, p, *mode, id)?;
                by_path.insert(p.clone(), e);
            }
            None => {
                if by_path.remove(p).is_some() || h.is_some() {
                    remove_work_file(repo, p);
                }
            }
        }
    }
    if force {
        // reset --hard: tracked paths outside both trees are removed too.
        let extra: Vec<String> = by_path
            .keys()
            .filter(|p| !to.contains_key(*p))
            .cloned()
            .collect();
        for p in extra {
            by_path.remove(&p);
            remove_work_file(repo, &p);
        }
        by_path.retain(|_, e| e.stage == 0);
    }
    let entries: Vec<IndexEntry> = by_path.into_values().collect();
    repo.write_index(&entries)?;
    Ok(true)
}

/// `git branch [-a|-l|-v|-d|-D|-m|-M|-c|--show-current] [NAME [START]]`.
pub fn branch(g: &mut G<'_, '_>) -> Result<i32> {
    let args = split_short(&g.args, &['u']);
    let repo = g.repo()?;
    let (
        mut delete,
        mut force_delete,
        mut rename,
        mut copy,
        mut show_current,
        mut verbose,
        mut force,
    ) = (false, false, false, false, false, 0u8, false);
    let (mut list, mut remotes_only, mut quiet, mut unset_upstream) = (false, false, false, false);
    let mut all = false;
    let mut upstream: Option<String> = None;
    let mut fmt: Option<String> = None;
    let mut filter = super::refs::Filter::default();
    let mut names = Vec::new();
    let mut i = 0;
    while i < args.len() {
        if filter.take(&args, &mut i) {
            i += 1;
            continue;
        }
        let a = args[i].clone();
        i += 1;
        match a.as_str() {
            "-d" | "--delete" => delete = true,
            "-D" => {
                delete = true;
                force_delete = true;
            }
            "-m" | "--move" => rename = true,
            "-M" => {
                rename = true;
                force = true;
            }
            "-c" | "--copy" => copy = true,
            "-C" => {
                copy = true;
                force = true;
            }
            "-f" | "--force" => force = true,
            "--show-current" => show_current = true,
            "-v" | "--verbose" => verbose += 1,
            "-vv" => verbose += 2,
            "-q" | "--quiet" => quiet = true,
            "-l" | "--list" => list = true,
            "-r" | "--remotes" => remotes_only = true,
            "-a" | "--all" => all = true,
            "--no-color" | "--color=never" | "--no-column" => {}
            "-u" => {
                upstream = args.get(i).cloned();
                i += 1;
            }
            "--unset-upstream" => unset_upstream = true,
            s if s.starts_with("--set-upstream-to=") => upstream = Some(s[18..].to_string()),
            "--set-upstream-to" => {
                upstream = args.get(i).cloned();
                i += 1;
            }
            s if s.starts_with("--format=") => fmt = Some(s[9..].to_string()),
            "--format" => {
                fmt = args.get(i).cloned();
                i += 1;
            }
            s if s.starts_with('-') => {
                return Err(GitError::Usage(format!(
                    "error: unknown option `{}'",
                    s.trim_start_matches('-')
                )));
            }
            _ => names.push(a),
        }
    }
    if let Some(up) = upstream {
        let branch = match names.first() {
            Some(b) => b.clone(),
            None => repo
                .head_branch()
                .ok_or_else(|| GitError::fatal("could not set upstream of HEAD to master when it does not point to any branch."))?,
        };
        if !repo.ref_exists(&format!("refs/heads/{branch}")) {
            return Err(GitError::fatal(format!("branch '{branch}' does not exist")));
        }
        let (remote, merge) = if repo.ref_exists(&format!("refs/heads/{up}")) {
            (".".to_string(), format!("refs/heads/{up}"))
        } else if let Some((r, b)) = up.split_once('/')
            && repo.ref_exists(&format!("refs/remotes/{up}"))
        {
            (r.to_string(), format!("refs/heads/{b}"))
        } else {
            return Err(GitError::fatal(format!(
                "the requested upstream branch '{up}' does not exist\nhint: \nhint: If you are planning on basing your work on an upstream\nhint: branch that already exists at the remote, you may need to\nhint: run \"git fetch\" to retrieve it.\nhint: \nhint: If you are planning to push out a new local branch that\nhint: will track its remote counterpart, you may want to use\nhint: \"git push -u\" to set the upstream config as you push.\nhint: Disable this message with \"git config advice.setUpstreamFailure false\""
            )));
        };
        if remote == "." && merge == format!("refs/heads/{branch}") {
            let _ = writeln!(
                g.err,
                "warning: not setting branch '{branch}' as its own upstream"
            );
            return Ok(0);
        }
        let path = repo.gp("config");
        let text = String::from_utf8_lossy(&g.fs.read(&path).unwrap_or_default()).into_owned();
        let text = crate::config::set_in_file(&text, &format!("branch.{branch}.remote"), &remote);
        let text = crate::config::set_in_file(&text, &format!("branch.{branch}.merge"), &merge);
        g.fs.write(&path, text.as_bytes())?;
        if !quiet {
            let _ = writeln!(g.out, "branch '{branch}' set up to track '{up}'.");
        }
        return Ok(0);
    }
    if unset_upstream {
        let branch = names
            .first()
            .cloned()
            .or_else(|| repo.head_branch())
            .unwrap_or_default();
        let path = repo.gp("config");
        let text = String::from_utf8_lossy(&g.fs.read(&path).unwrap_or_default()).into_owned();
        let (text, _) = crate::config::unset_in_file(&text, &format!("branch.{branch}.remote"));
        let (text, _) = crate::config::unset_in_file(&text, &format!("branch.{branch}.merge"));
        g.fs.write(&path, text.as_bytes())?;
        return Ok(0);
    }
    if list
        || filter.lists()
        || fmt.is_some()
        || remotes_only
        || all
        || (!delete && !rename && !copy && !show_current && names.is_empty())
    {
        filter.patterns = names.clone();
        let which = match (remotes_only, all) {
            (_, true) => super::branch_list::Which::All,
            (true, false) => super::branch_list::Which::Remotes,
            _ => super::branch_list::Which::Local,
        };
        return super::branch_list::list_branches(
            g,
            &repo,
            &filter,
            verbose,
            fmt.as_deref(),
            which,
        );
    }
    if show_current {
        if let Some(b) = repo.head_branch() {
            let _ = writeln!(g.out, "{b}");
        }
        return Ok(0);
    }
    let current = repo.head_branch();
    if delete {
        if names.is_empty() {
            return Err(GitError::fatal("branch name required"));
        }
        let mut status = 0;
        for n in &names {
            let r = format!("refs/heads/{n}");
            let Some(id) = repo.resolve_ref(&r) else {
                let _ = writeln!(g.err, "error: branch '{n}' not found");
                status = 1;
                continue;
            };
            if current.as_deref() == Some(n.as_str()) {
                let _ = writeln!(
                    g.err,
                    "error: cannot delete branch '{n}' used by worktree at '{}'",
                    repo.work_tree
                );
                status = 1;
                continue;
            }
            if !force_delete
                && let Some(h) = repo.head()
                && !super::log::merge_bases(&repo, &id, &h, &|| g.check())?.contains(&id)
            {
                let _ = writeln!(
                    g.err,
                    "error: the branch '{n}' is not fully merged\nhint: If you are sure you want to delete it, run 'git branch -D {n}'\nhint: Disable this message with \"git config advice.forceDeleteBranch false\""
                );
                status = 1;
                continue;
            }
            repo.delete_ref(&r)?;
            let _ = writeln!(g.out, "Deleted branch {n} (was {}).", repo.abbrev(&id));
        }
        return Ok(status);
    }
    if rename || copy {
        let (old, new) = match names.len() {
            1 => (current.clone().unwrap_or_default(), names[0].clone()),
            2 => (names[0].clone(), names[1].clone()),
            _ => return Err(GitError::fatal("branch name required")),
        };
        let Some(id) = repo.resolve_ref(&format!("refs/heads/{old}")) else {
            if current.as_deref() == Some(old.as_str()) && repo.head().is_none() {
                repo.set_head_symbolic(&format!("refs/heads/{new}"))?;
                return Ok(0);
            }
            return Err(GitError::error(format!(
                "refname refs/heads/{old} not found\nfatal: Branch rename failed"
            )));
        };
        check_name(&new)?;
        if repo.ref_exists(&format!("refs/heads/{new}")) && !force {
            return Err(GitError::fatal(format!(
                "a branch named '{new}' already exists"
            )));
        }
        // The branch's reflog goes with it, then notes the rename.
        if let Ok(log) = repo.fs.read(&repo.gp(&format!("logs/refs/heads/{old}"))) {
            let path = repo.gp(&format!("logs/refs/heads/{new}"));
            if let Some(i) = path.rfind('/') {
                repo.fs.mkdir_all(&path[..i])?;
            }
            repo.fs.write(&path, &log)?;
        }
        let verb = if rename { "renamed" } else { "copied" };
        repo.reflog_message(format!(
            "Branch: {verb} refs/heads/{old} to refs/heads/{new}"
        ));
        repo.set_ref(&format!("refs/heads/{new}"), &id)?;
        if rename {
            repo.delete_ref(&format!("refs/heads/{old}"))?;
            if current.as_deref() == Some(old.as_str()) {
                repo.set_head_symbolic(&format!("refs/heads/{new}"))?;
                repo.append_reflog("HEAD", Some(id), &id);
            }
        }
        return Ok(0);
    }
    let name = names[0].clone();
    check_name(&name)?;
    let start = match names.get(1) {
        Some(s) => rev_commit(&repo, s)?,
        None => match repo.head() {
            Some(h) => h,
            None => {
                let b = current.unwrap_or_default();
                return Err(GitError::fatal(format!("not a valid object name: '{b}'")));
            }
        },
    };
    if repo.ref_exists(&format!("refs/heads/{name}")) && !force {
        return Err(GitError::fatal(format!(
            "a branch named '{name}' already exists"
        )));
    }
    repo.reflog_message(format!(
        "branch: Created from {}",
        names.get(1).map(String::as_str).unwrap_or("HEAD")
    ));
    repo.set_ref(&format!("refs/heads/{name}"), &start)?;
    Ok(0)
}

fn check_name(name: &str) -> Result<()> {
    let bad = name.is_empty()
        || name.starts_with('-')
        || name.starts_with('.')
        || name.ends_with('/')
        || name.ends_with(".lock")
        || name.contains("..")
        || name.contains("@{")
        || name.contains("//")
        || name
            .chars()
            .any(|c| c.is_control() || " ~^:?*[\\".contains(c));
    if bad {
        return Err(GitError::Raw(
            format!(
                "fatal: '{name}' is not a valid branch name\nhint: See `man git check-ref-format`\nhint: Disable this message with \"git config advice.refSyntax false\""
            ),
            128,
        ));
    }
    Ok(())
}

/// Runs `f`; with `quiet`, drops what a successful switch said on stderr
/// (git's `-q`), keeping errors.
fn quietly(
    g: &mut G<'_, '_>,
    quiet: bool,
    f: impl FnOnce(&mut G<'_, '_>) -> Result<i32>,
) -> Result<i32> {
    let mark = g.err.len();
    let status = f(g)?;
    if quiet && status == 0 {
        g.err.truncate(mark);
    }
    Ok(status)
}

/// Switches to `target` (a branch name or a commit); `create` makes the branch first.
/// `-` and `@{-N}`: the branch (or commit) checked out N switches ago,
/// from `HEAD`'s reflog; other names unchanged.
fn previous_ref(repo: &Repo<'_>, target: &str) -> Result<String> {
    let n: usize = if target == "-" {
        1
    } else if let Some(k) = target.strip_prefix("@{-").and_then(|r| r.strip_suffix('}')) {
        k.parse().unwrap_or(0)
    } else {
        return Ok(target.to_string());
    };
    let log = repo.fs.read(&repo.gp("logs/HEAD")).unwrap_or_default();
    let text = String::from_utf8_lossy(&log);
    let found = text
        .lines()
        .rev()
        .filter_map(|l| l.split_once('\t').map(|x| x.1))
        .filter_map(|m| m.strip_prefix("checkout: moving from "))
        .filter_map(|m| m.split_once(" to ").map(|x| x.0.to_string()))
        .nth(n.saturating_sub(1));
    found
        .filter(|_| n > 0)
        .ok_or_else(|| GitError::fatal(format!("invalid reference: @{{-{n}}}")))
}

/// Notes a switch in `HEAD`'s reflog (git's `checkout: moving from A to B`),
/// which `-` and `@{-1}` read.
fn log_switch(
    repo: &Repo<'_>,
    from: Option<ObjectId>,
    from_name: &str,
    to: &ObjectId,
    to_name: &str,
) {
    repo.reflog_message(format!("checkout: moving from {from_name} to {to_name}"));
    repo.append_reflog("HEAD", from, to);
}

/// The local changes a switch carried over, as git lists them after it
/// (`M\tpath` on stdout).
fn local_changes(g: &mut G<'_, '_>, repo: &Repo<'_>) -> Result<()> {
    if g.args.iter().any(|a| a == "-q" || a == "--quiet") {
        return Ok(());
    }
    let spec = crate::worktree::Pathspec { items: Vec::new() };
    let st = super::status::state(g, repo, &spec, false)?;
    let mut seen: BTreeMap<String, char> = BTreeMap::new();
    for c in st.staged.iter().chain(st.unstaged.iter()) {
        seen.entry(c.path.clone()).or_insert(c.letter());
    }
    for (p, l) in seen {
        let _ = writeln!(g.out, "{l}\t{p}");
    }
    Ok(())
}

fn switch_to(
    g: &mut G<'_, '_>,
    repo: &Repo<'_>,
    target: &str,
    create: Option<(&str, Option<&str>, bool)>,
    detach: bool,
    force: bool,
) -> Result<i32> {
    let head = repo.head();
    let from = repo.commit_files(head.as_ref())?;
    if let Some((name, start, reset)) = create {
        check_name(name)?;
        let start_id = match start {
            Some(s) => Some(rev_commit(repo, s)?),
            None => head,
        };
        if repo.ref_exists(&format!("refs/heads/{name}")) && !reset {
            return Err(GitError::fatal(format!(
                "a branch named '{name}' already exists"
            )));
        }
        let to = repo.commit_files(start_id.as_ref())?;
        if !two_tree(g, repo, &from, &to, force, "checkout")? {
            return Ok(1);
        }
        if let Some(id) = start_id {
            repo.reflog_message(format!("branch: Created from {}", start.unwrap_or("HEAD")));
            repo.set_ref(&format!("refs/heads/{name}"), &id)?;
            let from_name = repo
                .head_branch()
                .unwrap_or_else(|| head.map(|h| h.to_hex().to_string()).unwrap_or_default());
            log_switch(repo, head, &from_name, &id, name);
        }
        repo.set_head_symbolic(&format!("refs/heads/{name}"))?;
        let _ = writeln!(g.err, "Switched to a new branch '{name}'");
        return Ok(0);
    }
    let branch_ref = format!("refs/heads/{target}");
    if !detach && let Some(id) = repo.resolve_ref(&branch_ref) {
        let to = repo.commit_files(Some(&id))?;
        if repo.head_ref().as_deref() == Some(branch_ref.as_str()) {
            let _ = writeln!(g.err, "Already on '{target}'");
            return Ok(0);
        }
        if !two_tree(g, repo, &from, &to, force, "checkout")? {
            return Ok(1);
        }
        let from_name = repo
            .head_branch()
            .unwrap_or_else(|| head.map(|h| h.to_hex().to_string()).unwrap_or_default());
        if let Some(prev) = head
            && repo.head_ref().is_none()
            && prev != id
        {
            let c = repo.commit(&prev)?;
            let _ = writeln!(
                g.err,
                "Previous HEAD position was {} {}",
                repo.abbrev(&prev),
                super::status::subject(&c.message.to_string())
            );
        }
        repo.set_head_symbolic(&branch_ref)?;
        log_switch(repo, head, &from_name, &id, target);
        local_changes(g, repo)?;
        let _ = writeln!(g.err, "Switched to branch '{target}'");
        return Ok(0);
    }
    let id = rev_commit(repo, target)?;
    let to = repo.commit_files(Some(&id))?;
    if !two_tree(g, repo, &from, &to, force, "checkout")? {
        return Ok(1);
    }
    let was_detached = repo.head_ref().is_none();
    let from_name = repo
        .head_branch()
        .unwrap_or_else(|| head.map(|h| h.to_hex().to_string()).unwrap_or_default());
    repo.set_head_detached(&id)?;
    log_switch(repo, head, &from_name, &id, target);
    let c = repo.commit(&id)?;
    let subj = super::status::subject(&c.message.to_string());
    local_changes(g, repo)?;
    if was_detached || detach {
        let _ = writeln!(g.err, "HEAD is now at {} {subj}", repo.abbrev(&id));
    } else {
        let _ = writeln!(
            g.err,
            "Note: switching to '{target}'.\n\nYou are in 'detached HEAD' state. You can look around, make experimental\nchanges and commit them, and you can discard any commits you make in this\nstate without impacting any branches by switching back to a branch.\n\nIf you want to create a new branch to retain commits you create, you may\ndo so (now or later) by using -c with the switch command. Example:\n\n  git switch -c <new-branch-name>\n\nOr undo this operation with:\n\n  git switch -\n\nTurn off this advice by setting config variable advice.detachedHead to false\n\nHEAD is now at {} {subj}",
            repo.abbrev(&id)
        );
    }
    Ok(0)
}

/// `git switch [-c|-C NEW [START]] [--detach] [-f] BRANCH`.
pub fn switch(g: &mut G<'_, '_>) -> Result<i32> {
    // "Switched to ..." comes before the local changes listed on stdout.
    *g.err_first = true;
    let repo = g.repo()?;
    let args = split_short(&g.args, &['c', 'C']);
    let (mut create, mut reset, mut detach, mut force) = (None, false, false, false);
    let mut quiet = false;
    let mut rest = Vec::new();
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "-c" | "--create" => {
                i += 1;
                create = args.get(i).cloned();
            }
            "-C" | "--force-create" => {
                i += 1;
                create = args.get(i).cloned();
                reset = true;
            }
            "-d" | "--detach" => detach = true,
            "-f" | "--force" | "--discard-changes" => force = true,
            "-q" | "--quiet" => quiet = true,
            s if s.starts_with('-') && s != "-" => {
                return Err(GitError::Usage(format!(
                    "error: unknown option `{}'",
                    s.trim_start_matches('-')
                )));
            }
            s => rest.push(s.to_string()),
        }
        i += 1;
    }
    if let Some(name) = create {
        return quietly(g, quiet, |g| {
            switch_to(
                g,
                &repo,
                &name,
                Some((&name, rest.first().map(String::as_str), reset)),
                false,
                force,
            )
        });
    }
    let Some(target) = rest.first() else {
        return Err(GitError::fatal("missing branch or commit argument"));
    };
    let target = &previous_ref(&repo, target)?;
    // A previous position that was no branch detaches again.
    let detach = detach
        || (rest[0].starts_with('-') || rest[0].starts_with("@{-"))
            && !repo.ref_exists(&format!("refs/heads/{target}"));
    if !detach && !repo.ref_exists(&format!("refs/heads/{target}")) {
        if rev_commit(&repo, target).is_ok() {
            return Err(GitError::fatal(format!(
                "a branch is expected, got commit '{target}'\nhint: If you want to detach HEAD at the commit, try again with the --detach option."
            )));
        }
        return Err(GitError::fatal(format!("invalid reference: {target}")));
    }
    quietly(g, quiet, |g| {
        switch_to(g, &repo, target, None, detach, force)
    })
}

/// `git checkout [-b|-B NEW] [-f] [BRANCH|COMMIT] [-- PATHS]`.
pub fn checkout(g: &mut G<'_, '_>) -> Result<i32> {
    *g.err_first = true;
    let repo = g.repo()?;
    let args = split_short(&g.args, &['b', 'B']);
    let (mut create, mut reset, mut force, mut detach) = (None, false, false, false);
    let mut quiet = false;
    let mut side: Option<u8> = None;
    let mut rest = Vec::new();
    let mut paths = Vec::new();
    let mut dashdash = false;
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        if dashdash {
            paths.push(a.to_string());
        } else {
            match a {
                "--" => dashdash = true,
                "-b" => {
                    i += 1;
                    create = args.get(i).cloned();
                }
                "-B" => {
                    i += 1;
                    create = args.get(i).cloned();
                    reset = true;
                }
                "-f" | "--force" => force = true,
                "--detach" => detach = true,
                "-q" | "--quiet" => quiet = true,
                "--ours" | "-2" => side = Some(2),
                "-m" | "--merge" => side = Some(0),
                "--theirs" | "-3" => side = Some(3),
                s if s.starts_with('-') && s != "-" => {
                    return Err(GitError::Usage(format!(
                        "error: unknown switch `{}'",
                        s.trim_start_matches('-')
                    )));
                }
                s => rest.push(s.to_string()),
            }
        }
        i += 1;
    }
    if let Some(name) = create {
        return quietly(g, quiet, |g| {
            switch_to(
                g,
                &repo,
                &name,
                Some((&name, rest.first().map(String::as_str), reset)),
                false,
                force,
            )
        });
    }
    if side == Some(0) && !(paths.is_empty() && rest.is_empty()) {
        paths.append(&mut rest);
        return super::resolve::recreate_conflicts(g, &repo, &paths);
    }
    if let Some(stage) = side.filter(|s| *s > 0) {
        paths.append(&mut rest);
        return super::resolve::checkout_side(g, &repo, &paths, stage, quiet);
    }
    // `checkout X` without `--`: a branch/commit first, else paths.
    if !dashdash && !rest.is_empty() {
        if rest[0] == "-" || rest[0].starts_with("@{-") {
            rest[0] = previous_ref(&repo, &rest[0])?;
        }
        let first = rest[0].clone();
        let is_rev = repo.ref_exists(&format!("refs/heads/{first}"))
            || super::rev_opt(&repo, &first).ok().flatten().is_some();
        if is_rev && rest.len() == 1 {
            return quietly(g, quiet, |g| {
                switch_to(g, &repo, &first, None, detach, force)
            });
        }
        if is_rev {
            paths = rest[1..].to_vec();
            rest.truncate(1);
        } else {
            paths = rest.clone();
            rest.clear();
        }
    }
    if paths.is_empty() {
        if detach && rest.is_empty() {
            return quietly(g, quiet, |g| switch_to(g, &repo, "HEAD", None, true, force));
        }
        return Ok(0);
    }
    let source = rest.first().cloned();
    restore_paths(
        g,
        &repo,
        &paths,
        source.as_deref(),
        source.is_some(),
        true,
        "checkout",
    )
}

/// Restores `paths` from `source` (a commit; the index when `None`) into
/// the index (`staged`) and/or the work tree (`worktree`).
fn restore_paths(
    g: &mut G<'_, '_>,
    repo: &Repo<'_>,
    paths: &[String],
    source: Option<&str>,
    staged: bool,
    work: bool,
    cmd: &str,
) -> Result<i32> {
    let spec = Pathspec::new(repo, &g.cwd, paths)?;
    let mut index = repo.read_index()?;
    let from_tree: Option<Files> = match source {
        Some(s) => {
            let id = rev(repo, s)?;
            let tree = super::peel_to_tree(repo, &id)?;
            Some(repo.flatten_tree(&tree)?)
        }
        None => None,
    };
    for (n, item) in spec.items.iter().enumerate() {
        let in_index = index.iter().any(|e| worktree::item_matches(item, &e.path));
        let in_tree = from_tree
            .as_ref()
            .is_some_and(|t| t.keys().any(|p| worktree::item_matches(item, p)));
        if !in_index && !in_tree {
            let _ = writeln!(
                g.err,
                "error: pathspec '{}' did not match any file(s) known to git",
                paths[n]
            );
            return Ok(1);
        }
    }
    if staged {
        let head_tree = match &from_tree {
            Some(t) => t.clone(),
            None => repo.commit_files(repo.head().as_ref())?,
        };
        let tree = if source.is_some() {
            from_tree.clone().unwrap_or_default()
        } else {
            head_tree
        };
        let mut by_path: BTreeMap<String, IndexEntry> =
            index.drain(..).map(|e| (e.path.clone(), e)).collect();
        let matched: Vec<String> = by_path
            .keys()
            .filter(|p| spec.matches(p))
            .cloned()
            .collect();
        for p in matched {
            if !tree.contains_key(&p) {
                by_path.remove(&p);
            }
        }
        for (p, (mode, id)) in &tree {
            if spec.matches(p) {
                let keep_stat = by_path
                    .get(p)
                    .filter(|e| e.id == *id && e.mode == *mode)
                    .cloned();
                by_path.insert(
                    p.clone(),
                    keep_stat.unwrap_or(IndexEntry {
                        path: p.clone(),
                        id: *id,
                        mode: *mode,
                        stage: 0,
                        size: 0,
                        mtime: (0, 0),
                    }),
                );
            }
        }
        index = by_path.into_values().collect();
        repo.write_index(&index)?;
    }
    if work {
        let wanted: Files = match (&from_tree, staged) {
            (Some(t), _) => t
                .iter()
                .filter(|(p, _)| spec.matches(p))
                .map(|(p, v)| (p.clone(), *v))
                .collect(),
            (None, _) => index
                .iter()
                .filter(|e| e.stage == 0 && spec.matches(&e.path))
                .map(|e| (e.path.clone(), (e.mode, e.id)))
                .collect(),
        };
        let unmerged: BTreeSet<&str> = index
            .iter()
            .filter(|e| e.stage > 0 && spec.matches(&e.path))
            .map(|e| e.path.as_str())
            .collect();
        if let Some(p) = unmerged.iter().next()
            && from_tree.is_none()
        {
            let _ = writeln!(g.err, "error: path '{p}' is unmerged");
            return Ok(1);
        }
        let mut new_entries = Vec::new();
        for (p, (mode, id)) in &wanted {
            let e = write_work_file(repo, p, *mode, id)?;
            new_entries.push(e);
        }
        if source.is_some() && cmd == "restore" && !staged {
            // Files the source lacks are removed from the work tree.
            for e in index
                .iter()
                .filter(|e| spec.matches(&e.path) && !wanted.contains_key(&e.path))
            {
                remove_work_file(repo, &e.path);
            }
        }
        // Refresh the stat data of the entries written.
        let mut by_path: BTreeMap<String, IndexEntry> =
            index.into_iter().map(|e| (e.path.clone(), e)).collect();
        for e in new_entries {
            if let Some(old) = by_path.get_mut(&e.path)
                && old.id == e.id
                && old.mode == e.mode
            {
                old.size = e.size;
                old.mtime = e.mtime;
            }
        }
        let entries: Vec<IndexEntry> = by_path.into_values().collect();
        repo.write_index(&entries)?;
    }
    Ok(0)
}

/// `git restore [--staged] [--worktree] [--source=TREE] PATHS`.
pub fn restore(g: &mut G<'_, '_>) -> Result<i32> {
    let repo = g.repo()?;
    let args = split_short(&g.args, &['s']);
    let (mut staged, mut work) = (false, false);
    let mut source: Option<String> = None;
    let mut paths = Vec::new();
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "-S" | "--staged" => staged = true,
            "-W" | "--worktree" => work = true,
            "-s" | "--source" => {
                i += 1;
                source = args.get(i).cloned();
            }
            s if s.starts_with("--source=") => source = Some(s[9..].to_string()),
            "--" | "-q" | "--quiet" => {}
            s if s.starts_with('-') => {
                return Err(GitError::Usage(format!(
                    "error: unknown option `{}'",
                    s.trim_start_matches('-')
                )));
            }
            s => paths.push(s.to_string()),
        }
        i += 1;
    }
    if paths.is_empty() {
        return Err(GitError::fatal("you must specify path(s) to restore"));
    }
    if !staged {
        work = true;
    }
    let src = match (&source, staged) {
        (Some(s), _) => Some(s.clone()),
        (None, true) => Some("HEAD".to_string()),
        (None, false) => None,
    };
    if staged && repo.head().is_none() && source.is_none() {
        return Err(GitError::fatal("could not resolve HEAD"));
    }
    if staged && !work {
        return restore_paths(g, &repo, &paths, src.as_deref(), true, false, "restore");
    }
    if staged && work {
        return restore_paths(g, &repo, &paths, src.as_deref(), true, true, "restore");
    }
    restore_paths(g, &repo, &paths, src.as_deref(), false, true, "restore")
}

/// `git reset [--soft|--mixed|--hard] [COMMIT]` and `git reset [COMMIT] -- PATHS`.
pub fn reset(g: &mut G<'_, '_>) -> Result<i32> {
    let repo = g.repo()?;
    let mut mode = "mixed";
    let mut quiet = false;
    let mut rest = Vec::new();
    let mut paths = Vec::new();
    let mut dashdash = false;
    for a in g.args.clone() {
        if dashdash {
            paths.push(a);
            continue;
        }
        match a.as_str() {
            "--soft" => mode = "soft",
            "--mixed" => mode = "mixed",
            "--hard" => mode = "hard",
            "--keep" | "--merge" => mode = "hard",
            "-q" | "--quiet" => quiet = true,
            "--" => dashdash = true,
            s if s.starts_with('-') => {
                return Err(GitError::Usage(format!(
                    "error: unknown option `{}'",
                    s.trim_start_matches('-')
                )));
            }
            _ => rest.push(a),
        }
    }
    // `reset X` where X is not a commit: paths.
    if !rest.is_empty() && super::rev_opt(&repo, &rest[0]).ok().flatten().is_none() {
        if repo.head().is_none()
            || g.fs.exists(&sandkeep_shell::Fs::resolve(&g.cwd, &rest[0]))
            || repo.read_index()?.iter().any(|e| e.path == rest[0])
        {
            paths.append(&mut rest);
        } else {
            return Err(super::rev(&repo, &rest[0])
                .err()
                .unwrap_or_else(|| GitError::fatal("bad revision")));
        }
    } else if rest.len() > 1 {
        paths.extend(rest.drain(1..));
    }
    if !paths.is_empty() {
        let source = rest.first().cloned().unwrap_or_else(|| "HEAD".into());
        if repo.head().is_none() {
            let spec = Pathspec::new(&repo, &g.cwd, &paths)?;
            let index: Vec<IndexEntry> = repo
                .read_index()?
                .into_iter()
                .filter(|e| !spec.matches(&e.path))
                .collect();
            repo.write_index(&index)?;
            return Ok(0);
        }
        let spec = Pathspec::new(&repo, &g.cwd, &paths)?;
        let tree = repo.commit_files(Some(&rev_commit(&repo, &source)?))?;
        let mut by_path: BTreeMap<String, IndexEntry> = repo
            .read_index()?
            .into_iter()
            .map(|e| (e.path.clone(), e))
            .collect();
        let matched: Vec<String> = by_path
            .keys()
            .filter(|p| spec.matches(p))
            .cloned()
            .collect();
        for p in matched {
            if !tree.contains_key(&p) {
                by_path.remove(&p);
            }
        }
        for (p, (m, id)) in &tree {
            if spec.matches(p) && by_path.get(p).is_none_or(|e| e.id != *id || e.mode != *m) {
                by_path.insert(
                    p.clone(),
                    IndexEntry {
                        path: p.clone(),
                        id: *id,
                        mode: *m,
                        stage: 0,
                        size: 0,
                        mtime: (0, 0),
                    },
                );
            }
        }
        let entries: Vec<IndexEntry> = by_path.into_values().collect();
        repo.write_index(&entries)?;
        if !quiet {
            unstaged_after_reset(g, &repo)?;
        }
        return Ok(0);
    }
    let target = match rest.first() {
        Some(r) => rev_commit(&repo, r)?,
        None => match repo.head() {
            Some(h) => h,
            None => {
                if mode == "hard" || mode == "mixed" {
                    repo.write_index(&[])?;
                }
                return Ok(0);
            }
        },
    };
    let head = repo.head();
    if let Some(h) = head {
        repo.set_ref("ORIG_HEAD", &h)?;
    }
    let to = repo.commit_files(Some(&target))?;
    match mode {
        "soft" => {}
        "mixed" => {
            let old: BTreeMap<String, IndexEntry> = repo
                .read_index()?
                .into_iter()
                .map(|e| (e.path.clone(), e))
                .collect();
            let entries: Vec<IndexEntry> = to
                .iter()
                .map(|(p, (m, id))| match old.get(p) {
                    Some(e) if e.id == *id && e.mode == *m && e.stage == 0 => e.clone(),
                    _ => IndexEntry {
                        path: p.clone(),
                        id: *id,
                        mode: *m,
                        stage: 0,
                        size: 0,
                        mtime: (0, 0),
                    },
                })
                .collect();
            repo.write_index(&entries)?;
        }
        _ => {
            let from = repo.commit_files(head.as_ref())?;
            two_tree(g, &repo, &from, &to, true, "reset")?;
        }
    }
    repo.reflog_message(format!(
        "reset: moving to {}",
        rest.first().map(String::as_str).unwrap_or("HEAD")
    ));
    repo.update_head(&target)?;
    for f in ["MERGE_HEAD", "MERGE_MSG", "MERGE_MODE", "CHERRY_PICK_HEAD"] {
        let _ = repo.fs.remove_file(&repo.gp(f));
    }
    if mode == "hard" && !quiet {
        let c = repo.commit(&target)?;
        let _ = writeln!(
            g.out,
            "HEAD is now at {} {}",
            repo.abbrev(&target),
            super::status::subject(&c.message.to_string())
        );
    } else if mode == "mixed" && !quiet {
        unstaged_after_reset(g, &repo)?;
    }
    Ok(0)
}

fn unstaged_after_reset(g: &mut G<'_, '_>, repo: &Repo<'_>) -> Result<()> {
    let index = repo.read_index()?;
    let work = super::status::work_side(repo, &index)?;
    let iside = super::status::index_side(&index);
    let changes = crate::diff::changes(&iside, &work, &|_| true, false);
    let changes: Vec<_> = changes
        .into_iter()
        .filter(|c| c.old.map(|o| (o.id, o.mode)) != c.new.map(|n| (n.id, n.mode)))
        .collect();
    if !changes.is_empty() {
        let _ = writeln!(g.out, "Unstaged changes after reset:");
        for c in changes {
            let _ = writeln!(g.out, "{}\t{}", c.letter(), c.path);
        }
    }
    Ok(())
}

/// `git tag [-l [PATTERN]] [-d NAME] [-a -m MSG] [-f] [NAME [COMMIT]]`.
pub fn tag(g: &mut G<'_, '_>) -> Result<i32> {
    let repo = g.repo()?;
    // `-n3` is one option: -n with its count.
    let (counts, plain): (Vec<String>, Vec<String>) = g.args.iter().cloned().partition(|a| {
        a.len() > 2 && a.starts_with("-n") && a[2..].chars().all(|c| c.is_ascii_digit())
    });
    let mut args = split_short(&plain, &['m', 'F']);
    args.extend(counts);
    let (mut list, mut delete, mut annotate, mut force) = (false, false, false, false);
    let mut message: Option<String> = None;
    let mut lines: Option<usize> = None;
    let mut fmt: Option<String> = None;
    let mut filter = super::refs::Filter::default();
    let mut names = Vec::new();
    let mut i = 0;
    while i < args.len() {
        if filter.take(&args, &mut i) {
            i += 1;
            continue;
        }
        match args[i].as_str() {
            "-l" | "--list" => list = true,
            "-d" | "--delete" => delete = true,
            "-a" | "--annotate" => annotate = true,
            "-f" | "--force" => force = true,
            "-m" | "--message" => {
                i += 1;
                let m = args.get(i).cloned().unwrap_or_default();
                message = Some(match message {
                    Some(old) => format!("{old}\n\n{m}"),
                    None => m,
                });
                annotate = true;
            }
            "-F" | "--file" => {
                i += 1;
                let f = args.get(i).cloned().unwrap_or_default();
                let data = if f == "-" {
                    g.read_stdin()
                } else {
                    g.fs.read(&sandkeep_shell::Fs::resolve(&g.cwd, &f))
                        .map_err(|_| {
                            GitError::fatal(format!(
                                "could not open or read '{f}': No such file or directory"
                            ))
                        })?
                };
                message = Some(String::from_utf8_lossy(&data).into_owned());
                annotate = true;
            }
            "-n" => lines = Some(1),
            s if s.starts_with("-n") && s[2..].chars().all(|c| c.is_ascii_digit()) => {
                lines = s[2..].parse().ok();
            }
            s if s.starts_with("--format=") => fmt = Some(s[9..].to_string()),
            "--no-color" | "--color=never" | "--no-column" => {}
            s if s.starts_with('-') => {
                return Err(GitError::Usage(format!(
                    "error: unknown option `{}'",
                    s.trim_start_matches('-')
                )));
            }
            s => names.push(s.to_string()),
        }
        i += 1;
    }
    if delete {
        let mut status = 0;
        for n in &names {
            let r = format!("refs/tags/{n}");
            match repo.resolve_ref(&r) {
                Some(id) => {
                    repo.delete_ref(&r)?;
                    let _ = writeln!(g.out, "Deleted tag '{n}' (was {})", repo.abbrev(&id));
                }
                None => {
                    let _ = writeln!(g.err, "error: tag '{n}' not found.");
                    status = 1;
                }
            }
        }
        return Ok(status);
    }
    if list || names.is_empty() || lines.is_some() || filter.lists() || fmt.is_some() {
        filter.patterns = names.clone();
        let items = super::refs::list(g, &repo, &["refs/tags/"], &filter)?;
        for r in &items {
            if let Some(f) = &fmt {
                let line = super::refs::format(g, &repo, r, f);
                let _ = writeln!(g.out, "{line}");
                continue;
            }
            let Some(n) = lines else {
                let _ = writeln!(g.out, "{}", r.short());
                continue;
            };
            // The tag's message (a lightweight tag: its commit's), N lines.
            let (kind, data) = repo.read_object(&r.id)?;
            let msg = match kind {
                gix_object::Kind::Tag => gix_object::TagRef::from_bytes(&data, crate::repo::HASH)
                    .map(|t| t.message.to_string())
                    .unwrap_or_default(),
                gix_object::Kind::Commit => repo.commit(&r.id)?.message.to_string(),
                _ => String::new(),
            };
            let body: Vec<&str> = msg.trim_end_matches('\n').lines().take(n.max(1)).collect();
            let mut line = format!("{:<15}", r.short());
            if body.is_empty() {
                let _ = writeln!(g.out, "{}", line.trim_end());
                continue;
            }
            line.push(' ');
            line.push_str(body[0]);
            let _ = writeln!(g.out, "{line}");
            for b in &body[1..] {
                let _ = writeln!(g.out, "    {b}");
            }
        }
        return Ok(0);
    }
    let name = names[0].clone();
    check_name(&name).map_err(|_| GitError::fatal(format!("'{name}' is not a valid tag name.")))?;
    let target = match names.get(1) {
        Some(r) => rev(&repo, r)?,
        None => repo
            .head()
            .ok_or_else(|| GitError::fatal("Failed to resolve 'HEAD' as a valid ref."))?,
    };
    let r = format!("refs/tags/{name}");
    if let Some(old) = repo.resolve_ref(&r) {
        if !force {
            return Err(GitError::fatal(format!("tag '{name}' already exists")));
        }
        let _ = writeln!(g.out, "Updated tag '{name}' (was {})", repo.abbrev(&old));
    }
    if annotate {
        let Some(msg) = message else {
            return Err(GitError::fatal(
                "no tag message given and no editor in the local sandbox; use -m",
            ));
        };
        let msg = super::status::cleanup_message(&msg, false);
        let (kind, _) = repo.read_object(&target)?;
        let tagger = signature(g, &repo, "committer")?;
        let t = gix_object::Tag {
            target,
            target_kind: kind,
            name: name.as_str().into(),
            tagger: Some(tagger),
            message: msg.into(),
            signature: None,
        };
        let id = repo.write(&t)?;
        repo.set_ref(&r, &id)?;
    } else {
        repo.set_ref(&r, &target)?;
    }
    Ok(0)
}

/// `git symbolic-ref [--short] HEAD [REF]`.
pub fn symbolic_ref(g: &mut G<'_, '_>) -> Result<i32> {
    let repo = g.repo()?;
    let short = g.args.iter().any(|a| a == "--short");
    let rest: Vec<String> = g
        .args
        .iter()
        .filter(|a| !a.starts_with('-'))
        .cloned()
        .collect();
    match rest.len() {
        1 => match repo.head_ref() {
            Some(r) => {
                let shown = if short {
                    r.strip_prefix("refs/heads/").unwrap_or(&r).to_string()
                } else {
                    r
                };
                let _ = writeln!(g.out, "{shown}");
                Ok(0)
            }
            None => Err(GitError::fatal("ref HEAD is not a symbolic ref")),
        },
        2 => {
            repo.set_head_symbolic(&rest[1])?;
            Ok(0)
        }
        _ => Err(GitError::Usage(
            "usage: git symbolic-ref [-q] [--short] <name> [<ref>]".into(),
        )),
    }
}

/// `git update-ref [-d] REF [NEWVALUE]`.
pub fn update_ref(g: &mut G<'_, '_>) -> Result<i32> {
    let repo = g.repo()?;
    let delete = g.args.iter().any(|a| a == "-d");
    let rest: Vec<String> = g
        .args
        .iter()
        .filter(|a| !a.starts_with('-'))
        .cloned()
        .collect();
    if delete {
        if let Some(r) = rest.first() {
            repo.delete_ref(r)?;
        }
        return Ok(0);
    }
    if rest.len() < 2 {
        return Err(GitError::Usage(
            "usage: git update-ref [<options>] <refname> <new-val> [<old-val>]".into(),
        ));
    }
    let id = rev(&repo, &rest[1])?;
    if rest[0] == "HEAD" {
        repo.update_head(&id)?;
    } else {
        repo.set_ref(&rest[0], &id)?;
    }
    Ok(0)
}
