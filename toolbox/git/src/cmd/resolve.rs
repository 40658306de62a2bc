//! Working on conflicted paths: `checkout --ours/--theirs` writes one
//! side's version (stage 2 or 3 of the index) into the work tree, and
//! `checkout -m` writes the conflict (markers and all) again.

use std::collections::BTreeSet;
use std::io::Write;

use super::G;
use crate::error::Result;
use crate::repo::Repo;
use crate::worktree;

/// `git checkout --ours|--theirs PATHS`: the conflicted paths' version
/// of one side into the work tree (the index keeps the conflict).
pub fn checkout_side(
    g: &mut G<'_, '_>,
    repo: &Repo<'_>,
    paths: &[String],
    stage: u8,
    quiet: bool,
) -> Result<i32> {
    let spec = worktree::Pathspec::new(repo, &g.cwd, paths)?;
    let index = repo.read_index()?;
    let mut n = 0;
    let mut seen = BTreeSet::new();
    for e in &index {
        if !spec.matches(&e.path) || !seen.insert(e.path.clone()) {
            continue;
        }
        let Some(side) = index.iter().find(|x| x.path == e.path && x.stage == stage) else {
            if e.stage == 0 {
                n += 1;
                continue;
            }
            let which = if stage == 2 { "our" } else { "their" };
            let _ = writeln!(
                g.err,
                "error: path '{}' does not have {which} version",
                e.path
            );
            return Ok(1);
        };
        let data = repo.read_kind(&side.id, gix_object::Kind::Blob)?;
        let path = repo.wp(&side.path);
        if let Some(i) = path.rfind('/') {
            repo.fs.mkdir_all(&path[..i])?;
        }
        repo.fs.write(&path, &data)?;
        n += 1;
    }
    if n == 0 {
        let _ = writeln!(
            g.err,
            "error: pathspec '{}' did not match any file(s) known to git",
            paths.first().cloned().unwrap_or_default()
        );
        return Ok(1);
    }
    if !quiet {
        let s = if n == 1 { "" } else { "s" };
        let _ = writeln!(g.err, "Updated {n} path{s} from the index");
    }
    Ok(0)
}

/// `git checkout -m PATHS`: the conflicted paths merged again from their
/// stages, markers labelled `ours` and `theirs`.
pub fn recreate_conflicts(g: &mut G<'_, '_>, repo: &Repo<'_>, paths: &[String]) -> Result<i32> {
    let spec = worktree::Pathspec::new(repo, &g.cwd, paths)?;
    let index = repo.read_index()?;
    let mut done = BTreeSet::new();
    for e in index
        .iter()
        .filter(|e| e.stage > 0 && spec.matches(&e.path))
    {
        if !done.insert(e.path.clone()) {
            continue;
        }
        let blob = |stage: u8| -> Result<Option<Vec<u8>>> {
            match index.iter().find(|x| x.path == e.path && x.stage == stage) {
                Some(x) => Ok(Some(repo.read_kind(&x.id, gix_object::Kind::Blob)?)),
                None => Ok(None),
            }
        };
        let (Some(ours), Some(theirs)) = (blob(2)?, blob(3)?) else {
            continue;
        };
        let base = blob(1)?.unwrap_or_default();
        let m = super::merge::merge_text_styled(
            &base,
            &ours,
            &theirs,
            ("ours", "theirs"),
            super::merge::MergeStyle::default(),
            &g.checker(),
        )?;
        repo.fs.write(&repo.wp(&e.path), &m.text)?;
    }
    if done.is_empty() {
        let _ = writeln!(
            g.err,
            "error: pathspec '{}' did not match any file(s) known to git",
            paths.first().cloned().unwrap_or_default()
        );
        return Ok(1);
    }
    let n = done.len();
    let s = if n == 1 { "" } else { "s" };
    let _ = writeln!(g.err, "Recreated {n} merge conflict{s}");
    Ok(0)
}
