//! `rev-parse`: revisions to ids, names and the repository's paths.

use std::io::Write;

use super::{G, peel_to_commit, rev_opt};
use crate::error::{GitError, Result};

/// `git rev-parse [--short[=N]] [--verify] [--abbrev-ref] [--show-toplevel] [--git-dir] [--is-inside-work-tree] REVS`.
pub fn rev_parse(g: &mut G<'_, '_>) -> Result<i32> {
    // git reports a bad revision before the words it echoes reach stdout.
    *g.err_first = true;
    let mut short: Option<usize> = None;
    let mut abbrev_ref = false;
    let mut verify = false;
    let mut verify_seen = false;
    let mut symbolic_full = false;
    let mut quiet = false;
    let args = g.args.clone();
    if args.iter().any(|a| a == "--verify")
        && args.iter().filter(|a| !a.starts_with('-')).count() > 1
    {
        if args.iter().any(|a| a == "-q" || a == "--quiet") {
            return Ok(1);
        }
        let _ = writeln!(g.err, "fatal: Needed a single revision");
        return Ok(128);
    }
    for a in &args {
        match a.as_str() {
            "--is-inside-work-tree" => {
                let inside = g.repo().is_ok();
                if !inside {
                    return Err(GitError::fatal(
                        "not a git repository (or any of the parent directories): .git",
                    ));
                }
                let _ = writeln!(g.out, "true");
                continue;
            }
            "--is-bare-repository" => {
                let bare = g.repo()?.bare;
                let _ = writeln!(g.out, "{bare}");
                continue;
            }
            "--show-toplevel" => {
                let r = g.repo()?;
                let _ = writeln!(g.out, "{}", r.work_tree);
                continue;
            }
            "--git-dir" => {
                let r = g.repo()?;
                let shown = if g.cwd == r.work_tree {
                    ".git".to_string()
                } else {
                    r.git_dir.clone()
                };
                let _ = writeln!(g.out, "{shown}");
                continue;
            }
            "--show-cdup" => {
                let r = g.repo()?;
                let root = r.work_tree.trim_end_matches('/');
                let depth = g
                    .cwd
                    .strip_prefix(&format!("{root}/"))
                    .map(|s| s.split('/').filter(|p| !p.is_empty()).count())
                    .unwrap_or(0);
                let _ = writeln!(g.out, "{}", "../".repeat(depth));
                continue;
            }
            "--is-inside-git-dir" => {
                g.repo()?;
                let _ = writeln!(g.out, "false");
                continue;
            }
            "--show-prefix" => {
                let r = g.repo()?;
                let root = r.work_tree.trim_end_matches('/');
                let p = g
                    .cwd
                    .strip_prefix(&format!("{root}/"))
                    .map(|s| format!("{s}/"))
                    .unwrap_or_default();
                let _ = writeln!(g.out, "{p}");
                continue;
            }
            "--short" => short = Some(7),
            s if s.starts_with("--short=") => {
                short = s[8..].parse().ok().map(|n: usize| n.clamp(4, 40))
            }
            "--abbrev-ref" => abbrev_ref = true,
            "--verify" => verify = true,
            "-q" | "--quiet" => quiet = true,
            "--symbolic-full-name" => symbolic_full = true,
            "--" => {}
            _ => {
                let repo = g.repo()?;
                if verify && verify_seen {
                    let _ = writeln!(g.err, "fatal: Needed a single revision");
                    return Ok(128);
                }
                verify_seen = true;
                let upstream = a
                    .strip_suffix("@{u}")
                    .or_else(|| a.strip_suffix("@{upstream}"))
                    .or_else(|| a.strip_suffix("@{U}"));
                if (abbrev_ref || symbolic_full)
                    && let Some(b) = upstream
                {
                    let full = super::upstream_of(&repo, b)?;
                    let shown = if abbrev_ref {
                        full.strip_prefix("refs/heads/")
                            .or_else(|| full.strip_prefix("refs/remotes/"))
                            .unwrap_or(&full)
                            .to_string()
                    } else {
                        full
                    };
                    let _ = writeln!(g.out, "{shown}");
                    continue;
                }
                if symbolic_full && !abbrev_ref {
                    if a == "HEAD" || a == "@" {
                        match repo.head_ref() {
                            Some(r) => {
                                let _ = writeln!(g.out, "{r}");
                            }
                            None => {
                                let _ = writeln!(g.out, "HEAD");
                            }
                        }
                        continue;
                    }
                    let mut found = false;
                    for cand in [
                        format!("refs/heads/{a}"),
                        format!("refs/tags/{a}"),
                        a.to_string(),
                    ] {
                        if cand.starts_with("refs/") && repo.ref_exists(&cand) {
                            let _ = writeln!(g.out, "{cand}");
                            found = true;
                            break;
                        }
                    }
                    if found || rev_opt(&repo, a).ok().flatten().is_some() {
                        continue;
                    }
                }
                if !verify
                    && let Some((x, y)) = a.split_once("..")
                    && !a.contains("...")
                {
                    let y = super::rev_commit(&repo, if y.is_empty() { "HEAD" } else { y })?;
                    let x = super::rev_commit(&repo, if x.is_empty() { "HEAD" } else { x })?;
                    let _ = writeln!(g.out, "{}\n^{}", y.to_hex(), x.to_hex());
                    continue;
                }
                if abbrev_ref && (a == "HEAD" || a == "@") {
                    match repo.head_branch() {
                        Some(b) if repo.head().is_some() => {
                            let _ = writeln!(g.out, "{b}");
                        }
                        Some(_) => {
                            let _ = writeln!(g.out, "HEAD");
                            let _ = writeln!(
                                g.err,
                                "fatal: ambiguous argument 'HEAD': unknown revision or path not in the working tree.\nUse '--' to separate paths from revisions, like this:\n'git <command> [<revision>...] -- [<file>...]'"
                            );
                            return Ok(128);
                        }
                        None => {
                            let _ = writeln!(g.out, "HEAD");
                        }
                    }
                    continue;
                }
                if abbrev_ref && repo.ref_exists(&format!("refs/heads/{a}")) {
                    let _ = writeln!(g.out, "{a}");
                    continue;
                }
                match rev_opt(&repo, a) {
                    Ok(Some(id)) => {
                        let id = if a.ends_with("^{commit}") {
                            peel_to_commit(&repo, &id)?
                        } else {
                            id
                        };
                        match short {
                            Some(n) => {
                                let _ = writeln!(g.out, "{}", repo.abbrev_len(&id, n));
                            }
                            None => {
                                let _ = writeln!(g.out, "{}", id.to_hex());
                            }
                        }
                    }
                    Err(e @ crate::error::GitError::Fatal(_)) if a.contains("@{") => {
                        return Err(e);
                    }
                    Ok(None) | Err(_) => {
                        if verify {
                            if quiet {
                                return Ok(1);
                            }
                            let _ = writeln!(g.err, "fatal: Needed a single revision");
                            return Ok(128);
                        }
                        let _ = writeln!(g.out, "{a}");
                        let _ = writeln!(
                            g.err,
                            "fatal: ambiguous argument '{a}': unknown revision or path not in the working tree.\nUse '--' to separate paths from revisions, like this:\n'git <command> [<revision>...] -- [<file>...]'"
                        );
                        return Ok(128);
                    }
                }
            }
        }
    }
    Ok(0)
}
