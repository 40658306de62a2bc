//! `check-ignore`: which paths the ignore rules exclude, and with `-v`
//! which rule decides (`source:line:pattern<TAB>path`).

use std::io::Write;

use super::{G, split_short};
use crate::error::{GitError, Result};
use crate::worktree::{Ignore, Pathspec};

/// `git check-ignore [-q] [-v] [-n] [--no-index] [--stdin] PATH...`.
pub fn check_ignore(g: &mut G<'_, '_>) -> Result<i32> {
    let args = split_short(&g.args, &[]);
    let (mut quiet, mut verbose, mut non_matching, mut no_index, mut stdin) =
        (false, false, false, false, false);
    let mut paths = Vec::new();
    let mut dashdash = false;
    for a in args {
        if dashdash {
            paths.push(a);
            continue;
        }
        match a.as_str() {
            "-q" | "--quiet" => quiet = true,
            "-v" | "--verbose" => verbose = true,
            "-n" | "--non-matching" => non_matching = true,
            "--no-index" => no_index = true,
            "--stdin" => stdin = true,
            "-z" => {}
            "--" => dashdash = true,
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
    if stdin {
        if !paths.is_empty() {
            return Err(GitError::fatal("cannot specify pathnames with --stdin"));
        }
        let data = g.read_stdin();
        paths = String::from_utf8_lossy(&data)
            .lines()
            .map(str::to_string)
            .collect();
    } else if paths.is_empty() {
        return Err(GitError::fatal("no path specified"));
    }
    if quiet && paths.len() > 1 {
        return Err(GitError::fatal(
            "--quiet is only valid with a single pathname",
        ));
    }
    if quiet && verbose {
        return Err(GitError::fatal("cannot have both --quiet and --verbose"));
    }
    if non_matching && !verbose {
        return Err(GitError::fatal(
            "--non-matching is only valid with --verbose",
        ));
    }
    let tracked: std::collections::HashSet<String> = if no_index {
        Default::default()
    } else {
        repo.read_index()?.into_iter().map(|e| e.path).collect()
    };
    let mut ignore = Ignore::new(&repo);
    let mut found = 0;
    for p in &paths {
        g.check()?;
        let rel = Pathspec::new(&repo, &g.cwd, std::slice::from_ref(p))?.items[0].clone();
        let is_dir = p.ends_with('/')
            || g.fs
                .metadata(&repo.wp(&rel))
                .is_ok_and(|m| m.kind == sandkeep_shell::FileKind::Dir);
        let rel = rel.trim_end_matches('/').to_string();
        let pattern = if tracked.contains(&rel) || rel.is_empty() {
            None
        } else {
            ignore.explain(&repo, &rel, is_dir)
        };
        let pattern = pattern.filter(|pat| verbose || !pat.negated);
        if pattern.is_some() {
            found += 1;
        }
        if quiet {
            continue;
        }
        match (&pattern, verbose) {
            (Some(pat), true) => {
                let _ = writeln!(g.out, "{}:{}:{}\t{p}", pat.source, pat.line, pat.text);
            }
            (Some(_), false) => {
                let _ = writeln!(g.out, "{p}");
            }
            (None, true) if non_matching => {
                let _ = writeln!(g.out, "::\t{p}");
            }
            _ => {}
        }
    }
    Ok(if found > 0 { 0 } else { 1 })
}
