//! `clean`: removing untracked (and with -x/-X ignored) files.

use std::collections::BTreeSet;
use std::io::Write;

use super::{G, split_short};
use crate::error::{GitError, Result};
use crate::worktree::{self, Ignore, Pathspec};

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
