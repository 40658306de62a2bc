//! `describe`: the newest tag a commit descends from, as
//! `TAG-DISTANCE-gABBREV` (`--tags`, `--always`, `--abbrev`, `--dirty`,
//! `--long`, `--match`, `--contains`).

use std::collections::{HashMap, HashSet};
use std::io::Write;

use gix_hash::ObjectId;

use super::log::walk;
use super::{G, peel_tag, rev_commit};
use crate::error::{GitError, Result};
use crate::repo::Repo;
use crate::worktree::{Pathspec, wildmatch};

/// A tag that may name a commit.
struct Candidate {
    name: String,
    annotated: bool,
    /// The tagger's time (annotated tags), for choosing among tags of one commit.
    time: i64,
}

/// Tags by the commit they point at (after peeling).
fn tags_by_commit(
    repo: &Repo<'_>,
    all: bool,
    patterns: &[String],
) -> Result<(HashMap<ObjectId, Candidate>, bool)> {
    let mut map: HashMap<ObjectId, Candidate> = HashMap::new();
    let mut lightweight_seen = false;
    for (name, id) in repo.refs("refs/tags/") {
        let short = name["refs/tags/".len()..].to_string();
        if !patterns.is_empty()
            && !patterns
                .iter()
                .any(|p| wildmatch(p.as_bytes(), short.as_bytes(), false))
        {
            continue;
        }
        let (kind, data) = repo.read_object(&id)?;
        let annotated = kind == gix_object::Kind::Tag;
        if !annotated {
            lightweight_seen = true;
            if !all {
                continue;
            }
        }
        let time = if annotated {
            gix_object::TagRef::from_bytes(&data, crate::repo::HASH)
                .ok()
                .and_then(|t| t.tagger().ok().flatten())
                .and_then(|s| s.time().ok())
                .map(|t| t.seconds)
                .unwrap_or(0)
        } else {
            0
        };
        let Ok(target) = peel_tag(repo, &id) else {
            continue;
        };
        let cand = Candidate {
            name: short,
            annotated,
            time,
        };
        let better = match map.get(&target) {
            None => true,
            Some(old) => (cand.annotated, cand.time) > (old.annotated, old.time),
        };
        if better {
            map.insert(target, cand);
        }
    }
    Ok((map, lightweight_seen))
}

/// Whether the work tree or index differs from `HEAD` (tracked files only).
fn dirty(g: &G<'_, '_>, repo: &Repo<'_>) -> Result<bool> {
    let spec = Pathspec { items: Vec::new() };
    let s = super::status::state(g, repo, &spec, false)?;
    Ok(!s.staged.is_empty() || !s.unstaged.is_empty() || !s.unmerged.is_empty())
}

/// `git describe [--tags] [--always] [--abbrev=N] [--long] [--dirty[=MARK]] [--match P] [--contains] [COMMIT...]`.
pub fn describe(g: &mut G<'_, '_>) -> Result<i32> {
    let (mut all, mut always, mut long, mut contains) = (false, false, false, false);
    let mut abbrev: usize = 7;
    let mut dirty_mark: Option<String> = None;
    let mut patterns = Vec::new();
    let mut revs = Vec::new();
    let args = g.args.clone();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        match a.as_str() {
            "--tags" => all = true,
            "--all" => all = true,
            "--always" => always = true,
            "--long" => long = true,
            "--contains" => contains = true,
            "--dirty" => dirty_mark = Some("-dirty".into()),
            "--match" => {
                patterns.extend(args.get(i).cloned());
                i += 1;
            }
            s if s.starts_with("--match=") => patterns.push(s[8..].to_string()),
            s if s.starts_with("--dirty=") => dirty_mark = Some(s[8..].to_string()),
            s if s.starts_with("--abbrev=") => {
                abbrev = s[9..]
                    .parse()
                    .map_err(|_| GitError::fatal("option `abbrev' expects a numerical value"))?;
            }
            "--abbrev" => abbrev = 7,
            s if s.starts_with('-') => {
                return Err(GitError::Usage(format!(
                    "error: unknown option `{}'",
                    &s[2..]
                )));
            }
            _ => revs.push(a.clone()),
        }
    }
    let repo = g.repo()?;
    if dirty_mark.is_some() && !revs.is_empty() {
        return Err(GitError::fatal(
            "option '--dirty' and commit-ishes cannot be used together",
        ));
    }
    if revs.is_empty() {
        revs.push("HEAD".into());
    }
    let (tags, lightweight_seen) = tags_by_commit(&repo, all || contains, &patterns)?;
    let short = |id: &ObjectId| {
        if abbrev == 0 {
            String::new()
        } else {
            repo.abbrev_len(id, abbrev.max(4))
        }
    };
    if tags.is_empty() && !lightweight_seen && !always && !contains {
        return Err(GitError::fatal("No names found, cannot describe anything."));
    }
    for r in &revs {
        g.check()?;
        let id = match super::rev_opt(&repo, r)? {
            Some(id) => super::peel_to_commit(&repo, &id)?,
            None => return Err(GitError::fatal(format!("Not a valid object name {r}"))),
        };
        let suffix = match &dirty_mark {
            Some(m) if dirty(g, &repo)? => m.clone(),
            _ => String::new(),
        };
        if contains {
            let name = name_rev(g, &repo, &id, &tags)?;
            match name {
                Some(n) => {
                    let _ = writeln!(g.out, "{n}");
                }
                None if always => {
                    let _ = writeln!(g.out, "{}", short(&id));
                }
                None => {
                    return Err(GitError::fatal(format!(
                        "cannot describe '{}'",
                        id.to_hex()
                    )));
                }
            }
            continue;
        }
        if let Some(t) = tags.get(&id)
            && !long
        {
            let _ = writeln!(g.out, "{}{suffix}", t.name);
            continue;
        }
        // The tag with the fewest commits between it and the commit; the
        // first found in date order wins a tie.
        let order = walk(g, &repo, &[id], &[], false)?;
        let mut best: Option<(usize, &Candidate, ObjectId)> = None;
        let mut found = 0;
        for c in &order {
            let Some(t) = tags.get(c) else { continue };
            found += 1;
            let depth = walk(g, &repo, &[id], &[*c], false)?.len();
            if best.as_ref().is_none_or(|(d, _, _)| depth < *d) {
                best = Some((depth, t, *c));
            }
            if found >= 10 {
                break;
            }
        }
        match best {
            Some((depth, t, _)) => {
                if abbrev == 0 {
                    let _ = writeln!(g.out, "{}{suffix}", t.name);
                } else {
                    let _ = writeln!(g.out, "{}-{depth}-g{}{suffix}", t.name, short(&id));
                }
            }
            None if always => {
                let _ = writeln!(g.out, "{}{suffix}", repo.abbrev_len(&id, abbrev.max(4)));
            }
            None if tags.is_empty() && !lightweight_seen => {
                return Err(GitError::fatal("No names found, cannot describe anything."));
            }
            None if !all && lightweight_seen => {
                return Err(GitError::fatal(format!(
                    "No annotated tags can describe '{}'.\nHowever, there were unannotated tags: try --tags.",
                    id.to_hex()
                )));
            }
            None => {
                return Err(GitError::fatal(format!(
                    "No tags can describe '{}'.\nTry --always, or create some tags.",
                    id.to_hex()
                )));
            }
        }
    }
    Ok(0)
}

/// `--contains`: the tag `id` leads to, as `TAG~N` (first-parent steps),
/// the tag with the fewest steps.
fn name_rev(
    g: &G<'_, '_>,
    repo: &Repo<'_>,
    id: &ObjectId,
    tags: &HashMap<ObjectId, Candidate>,
) -> Result<Option<String>> {
    let mut best: Option<(usize, String)> = None;
    for (tip, cand) in tags {
        g.check()?;
        let mut cur = *tip;
        let mut steps = 0;
        let mut seen = HashSet::new();
        loop {
            if cur == *id {
                let name = if steps == 0 {
                    if cand.annotated {
                        format!("{}^0", cand.name)
                    } else {
                        cand.name.clone()
                    }
                } else {
                    format!("{}~{steps}", cand.name)
                };
                if best
                    .as_ref()
                    .is_none_or(|(s, n)| steps < *s || (steps == *s && name < *n))
                {
                    best = Some((steps, name));
                }
                break;
            }
            if !seen.insert(cur) {
                break;
            }
            match repo.commit(&cur)?.parents.first() {
                Some(p) => {
                    cur = *p;
                    steps += 1;
                }
                None => break,
            }
        }
    }
    let _ = rev_commit;
    Ok(best.map(|(_, n)| n))
}
