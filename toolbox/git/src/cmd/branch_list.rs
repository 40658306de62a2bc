//! The listing of `git branch`: local, `-r`, `-a` (a remote's symbolic
//! `HEAD` as `-> target`), `*` for the current branch and `+` for one
//! checked out in another work tree, `-v`/`-vv` with upstreams.

use std::io::Write;

use gix_hash::ObjectId;

use super::G;
use crate::error::Result;
use crate::repo::Repo;

/// Which branches `git branch` lists.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Which {
    /// `refs/heads/`.
    Local,
    /// `-r`: `refs/remotes/`.
    Remotes,
    /// `-a`: both, remotes as `remotes/NAME`.
    All,
}

/// The listing of `git branch` (`-v`, `-vv` with the upstream and how far
/// ahead/behind, filters, `--sort`, `--format`).
pub fn list_branches(
    g: &mut G<'_, '_>,
    repo: &Repo<'_>,
    filter: &super::refs::Filter,
    verbose: u8,
    fmt: Option<&str>,
    which: Which,
) -> Result<i32> {
    let remotes_only = which == Which::Remotes;
    let prefix: &[&str] = match which {
        Which::Local => &["refs/heads/"],
        Which::Remotes => &["refs/remotes/"],
        Which::All => &["refs/heads/", "refs/remotes/"],
    };
    let items = super::refs::list(g, repo, prefix, filter)?;
    if let Some(f) = fmt {
        for r in &items {
            let line = super::refs::format(g, repo, r, f);
            let _ = writeln!(g.out, "{line}");
        }
        return Ok(0);
    }
    let current = repo.head_ref();
    let mut lines: Vec<(char, String, ObjectId, Option<String>)> = Vec::new();
    if current.is_none()
        && !remotes_only
        && let Some(h) = repo.head()
    {
        let keep = filter.patterns.is_empty() && !filter.lists();
        if keep {
            lines.push((
                '*',
                format!("(HEAD detached at {})", repo.abbrev(&h)),
                h,
                None,
            ));
        }
    }
    let elsewhere = super::worktrees::branches_elsewhere(repo);
    for r in &items {
        let mark = if current.as_deref() == Some(r.name.as_str()) {
            '*'
        } else if elsewhere.contains(&r.name) {
            '+'
        } else {
            ' '
        };
        let branch = r.name.strip_prefix("refs/heads/").map(str::to_string);
        let mut name = r.short().to_string();
        if let Some(remote) = r.name.strip_prefix("refs/remotes/") {
            if which == Which::All {
                name = format!("remotes/{remote}");
            }
            if let Ok(data) = repo.fs.read(&repo.gp(&r.name))
                && let Some(t) = String::from_utf8_lossy(&data).trim().strip_prefix("ref: ")
            {
                name = format!("{name} -> {}", t.strip_prefix("refs/remotes/").unwrap_or(t));
            }
        }
        lines.push((mark, name, r.id, branch));
    }
    let width = lines.iter().map(|l| l.1.chars().count()).max().unwrap_or(0);
    for (mark, name, id, branch) in lines {
        if verbose == 0 {
            let _ = writeln!(g.out, "{mark} {name}");
            continue;
        }
        let c = repo.commit(&id)?;
        let subj = super::status::subject(&c.message.to_string());
        let mut track = String::new();
        if let Some(b) = &branch
            && let Ok(full) = super::upstream_of(repo, b)
        {
            let short = full
                .strip_prefix("refs/heads/")
                .or_else(|| full.strip_prefix("refs/remotes/"))
                .unwrap_or(&full)
                .to_string();
            match repo.resolve_ref(&full) {
                Some(up) => {
                    let ahead = super::log::walk(g, repo, &[id], &[up], false)?.len();
                    let behind = super::log::walk(g, repo, &[up], &[id], false)?.len();
                    let shown = if verbose > 1 {
                        short.clone()
                    } else {
                        String::new()
                    };
                    let counts = match (ahead, behind) {
                        (0, 0) => String::new(),
                        (a, 0) => format!("ahead {a}"),
                        (0, b) => format!("behind {b}"),
                        (a, b) => format!("ahead {a}, behind {b}"),
                    };
                    track = match (shown.is_empty(), counts.is_empty()) {
                        (true, true) => String::new(),
                        (true, false) => format!("[{counts}] "),
                        (false, true) => format!("[{shown}] "),
                        (false, false) => format!("[{shown}: {counts}] "),
                    };
                }
                None if verbose > 1 => track = format!("[{short}: gone] "),
                None => track = "[gone] ".into(),
            }
        }
        let _ = writeln!(
            g.out,
            "{mark} {name:<width$} {} {track}{subj}",
            repo.abbrev(&id)
        );
    }
    Ok(0)
}
