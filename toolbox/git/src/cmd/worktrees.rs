//! `git worktree`: linked work trees (`add`, `list`, `remove`, `prune`).
//! A linked tree's `.git` is a file naming `.git/worktrees/<name>` of the
//! main repository, which holds its own `HEAD`, index and `commondir`;
//! objects, refs and config stay shared ([`Repo::gp`] routes each path).

use std::collections::BTreeMap;
use std::io::Write;

use gix_hash::ObjectId;
use sandkeep_shell::Fs;

use super::{G, split_short};
use crate::error::{GitError, Result};
use crate::repo::{Repo, join};

/// One work tree: its path, `HEAD`'s commit and branch.
struct Tree {
    path: String,
    head: Option<ObjectId>,
    branch: Option<String>,
}

/// The main work tree then every linked one, by name.
fn trees(repo: &Repo<'_>) -> Vec<Tree> {
    let fs = repo.fs;
    let common = repo.common_dir.clone();
    let main_path = common.strip_suffix("/.git").unwrap_or(&common).to_string();
    let mut out = Vec::new();
    if let Ok(main) = Repo::open(fs, &main_path, None) {
        out.push(Tree {
            path: main_path.clone(),
            head: main.head(),
            branch: main.head_ref(),
        });
    }
    let dir = join(&common, "worktrees");
    let mut names: Vec<String> = fs
        .read_dir(&dir)
        .map(|es| es.into_iter().map(|e| e.name).collect())
        .unwrap_or_default();
    names.sort();
    for name in names {
        let gd = join(&dir, &name);
        let Ok(gitfile) = fs.read(&join(&gd, "gitdir")) else {
            continue;
        };
        let gitfile = String::from_utf8_lossy(&gitfile).trim().to_string();
        let path = gitfile
            .strip_suffix("/.git")
            .unwrap_or(&gitfile)
            .to_string();
        let Ok(linked) = Repo::open_linked(fs, &path, &gd, None) else {
            continue;
        };
        out.push(Tree {
            path,
            head: linked.head(),
            branch: linked.head_ref(),
        });
    }
    out
}

/// The branches checked out in the other work trees of `repo` (full
/// names), which `git branch` marks with `+`.
pub fn branches_elsewhere(repo: &Repo<'_>) -> Vec<String> {
    let here = repo.work_tree.trim_end_matches('/').to_string();
    trees(repo)
        .into_iter()
        .filter(|t| t.path != here)
        .filter_map(|t| t.branch)
        .collect()
}

/// `git worktree list|add|remove|prune`.
pub fn worktree(g: &mut G<'_, '_>) -> Result<i32> {
    let repo = g.repo()?;
    let sub = g.args.first().cloned().unwrap_or_default();
    let rest: Vec<String> = g.args.iter().skip(1).cloned().collect();
    match sub.as_str() {
        "list" => list(g, &repo, &rest),
        "add" => add(g, &repo, &rest),
        "remove" | "prune" => remove(g, &repo, &sub, &rest),
        "" => Err(GitError::Usage(
            "usage: git worktree add [-f] [--detach] [-b <new-branch>] <path> [<commit-ish>]\n   or: git worktree list [-v | --porcelain [-z]]\n   or: git worktree prune\n   or: git worktree remove [-f] <worktree>".into(),
        )),
        other => Err(GitError::Raw(
            format!("error: worktree {other} is not available in the local sandbox"),
            1,
        )),
    }
}

fn list(g: &mut G<'_, '_>, repo: &Repo<'_>, rest: &[String]) -> Result<i32> {
    let all = trees(repo);
    if rest.iter().any(|a| a == "--porcelain") {
        for t in &all {
            let head = t
                .head
                .map(|h| h.to_hex().to_string())
                .unwrap_or_else(|| "0".repeat(40));
            let _ = writeln!(g.out, "worktree {}\nHEAD {head}", t.path);
            match &t.branch {
                Some(b) => {
                    let _ = writeln!(g.out, "branch {b}");
                }
                None => {
                    let _ = writeln!(g.out, "detached");
                }
            }
            let _ = writeln!(g.out);
        }
        return Ok(0);
    }
    let width = all.iter().map(|t| t.path.len()).max().unwrap_or(0);
    for t in &all {
        let id = t
            .head
            .map(|h| repo.abbrev(&h))
            .unwrap_or_else(|| "0000000".into());
        let what = match &t.branch {
            Some(b) => format!("[{}]", b.strip_prefix("refs/heads/").unwrap_or(b)),
            None => "(detached HEAD)".into(),
        };
        let _ = writeln!(g.out, "{:width$}  {id} {what}", t.path);
    }
    Ok(0)
}

fn add(g: &mut G<'_, '_>, repo: &Repo<'_>, rest: &[String]) -> Result<i32> {
    let args = split_short(rest, &['b', 'B']);
    let (mut quiet, mut detach, mut force) = (false, false, false);
    let mut new_branch: Option<String> = None;
    let mut ops = Vec::new();
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "-q" | "--quiet" => quiet = true,
            "--detach" | "-d" => detach = true,
            "-f" | "--force" => force = true,
            "-b" | "-B" => {
                i += 1;
                new_branch = args.get(i).cloned();
            }
            "--checkout" | "--no-track" | "--track" | "--lock" => {}
            s if s.starts_with('-') && s.len() > 1 => return Err(super::usage_error(s)),
            s => ops.push(s.to_string()),
        }
        i += 1;
    }
    let Some(path_arg) = ops.first().cloned() else {
        return Err(GitError::Usage(
            "usage: git worktree add [<options>] <path> [<commit-ish>]".into(),
        ));
    };
    let path = Fs::resolve(&g.cwd, &path_arg);
    if g.fs.exists(&path) && g.fs.read_dir(&path).map(|e| !e.is_empty()).unwrap_or(true) {
        return Err(GitError::fatal(format!("'{path_arg}' already exists")));
    }
    let name = path
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or("wt")
        .to_string();
    let existing: Vec<String> = trees(repo)
        .iter()
        .filter_map(|t| t.branch.clone())
        .collect();
    // What the new tree checks out: a new branch, an existing one, or a
    // detached commit.
    let (branch, commit, created) = match (&new_branch, ops.get(1)) {
        (Some(b), start) => {
            let id = super::rev_commit(repo, start.map(String::as_str).unwrap_or("HEAD"))?;
            if repo.ref_exists(&format!("refs/heads/{b}")) && !force {
                return Err(GitError::fatal(format!(
                    "a branch named '{b}' already exists"
                )));
            }
            (Some(b.clone()), id, true)
        }
        (None, Some(c)) if !detach && repo.ref_exists(&format!("refs/heads/{c}")) => {
            let r = format!("refs/heads/{c}");
            if existing.contains(&r) && !force {
                return Err(GitError::fatal(format!(
                    "'{c}' is already used by worktree at '{}'",
                    trees(repo)
                        .iter()
                        .find(|t| t.branch.as_deref() == Some(r.as_str()))
                        .map(|t| t.path.clone())
                        .unwrap_or_default()
                )));
            }
            (Some(c.clone()), super::rev_commit(repo, c)?, false)
        }
        (None, Some(c)) => (None, super::rev_commit(repo, c)?, false),
        (None, None) if detach => (None, super::rev_commit(repo, "HEAD")?, false),
        (None, None) => {
            let r = format!("refs/heads/{name}");
            let id = super::rev_commit(repo, "HEAD")?;
            let exists = repo.ref_exists(&r);
            (
                Some(name.clone()),
                if exists {
                    repo.resolve_ref(&r).unwrap_or(id)
                } else {
                    id
                },
                !exists,
            )
        }
    };
    if !quiet {
        let what = match (&branch, created) {
            (Some(b), true) => format!("new branch '{b}'"),
            (Some(b), false) => format!("checking out '{b}'"),
            (None, _) => format!("detached HEAD {}", repo.abbrev(&commit)),
        };
        let _ = writeln!(g.err, "Preparing worktree ({what})");
    }
    if created && let Some(b) = &branch {
        repo.reflog_message(format!(
            "branch: Created from {}",
            ops.get(1).map(String::as_str).unwrap_or("HEAD")
        ));
        repo.set_ref(&format!("refs/heads/{b}"), &commit)?;
    }
    let mut admin_name = name.clone();
    let base = join(&repo.common_dir, "worktrees");
    let mut n = 1;
    while g.fs.exists(&join(&base, &admin_name)) {
        admin_name = format!("{name}{n}");
        n += 1;
    }
    let admin = join(&base, &admin_name);
    g.fs.mkdir_all(&admin)?;
    g.fs.mkdir_all(&path)?;
    g.fs.write(&join(&admin, "commondir"), b"../..\n")?;
    g.fs.write(&join(&admin, "gitdir"), format!("{path}/.git\n").as_bytes())?;
    let head = match &branch {
        Some(b) => format!("ref: refs/heads/{b}\n"),
        None => format!("{}\n", commit.to_hex()),
    };
    g.fs.write(&join(&admin, "HEAD"), head.as_bytes())?;
    g.fs.write(
        &join(&path, ".git"),
        format!("gitdir: {admin}\n").as_bytes(),
    )?;
    let linked = Repo::open_linked(g.fs, &path, &admin, g.getenv("HOME"))?;
    g.set_reflog_ident(&linked);
    let to = linked.commit_files(Some(&commit))?;
    super::branch::two_tree(g, &linked, &BTreeMap::new(), &to, true, "checkout")?;
    if !quiet {
        let c = repo.commit(&commit)?;
        let _ = writeln!(
            g.out,
            "HEAD is now at {} {}",
            repo.abbrev(&commit),
            super::status::subject(&c.message.to_string())
        );
    }
    Ok(0)
}

fn remove(g: &mut G<'_, '_>, repo: &Repo<'_>, sub: &str, rest: &[String]) -> Result<i32> {
    let base = join(&repo.common_dir, "worktrees");
    let names: Vec<String> =
        g.fs.read_dir(&base)
            .map(|es| es.into_iter().map(|e| e.name).collect())
            .unwrap_or_default();
    let target = rest
        .iter()
        .find(|a| !a.starts_with('-'))
        .map(|p| Fs::resolve(&g.cwd, p));
    if sub == "remove" && target.is_none() {
        return Err(GitError::Usage(
            "usage: git worktree remove [<options>] <worktree>".into(),
        ));
    }
    let mut found = false;
    for name in names {
        let admin = join(&base, &name);
        let gitfile = g.fs.read(&join(&admin, "gitdir")).unwrap_or_default();
        let gitfile = String::from_utf8_lossy(&gitfile).trim().to_string();
        let path = gitfile
            .strip_suffix("/.git")
            .unwrap_or(&gitfile)
            .to_string();
        let gone = !g.fs.exists(&gitfile);
        let matches = match &target {
            Some(t) => *t == path,
            None => gone,
        };
        if !matches {
            continue;
        }
        found = true;
        if sub == "remove" && !gone {
            g.fs.remove_all(&path)?;
        }
        g.fs.remove_all(&admin)?;
    }
    if sub == "remove" && !found {
        return Err(GitError::fatal(format!(
            "'{}' is not a working tree",
            rest.iter()
                .find(|a| !a.starts_with('-'))
                .cloned()
                .unwrap_or_default()
        )));
    }
    Ok(0)
}
