//! `bisect`: finding the first bad commit by halving the suspects, by hand
//! (`start`, `good`, `bad`, `skip`, `reset`, `log`) or with `bisect run CMD`
//! (the command's status decides: 0 good, 125 skip, 1-127 bad). State in
//! git's files: `BISECT_START`, `refs/bisect/bad`, `refs/bisect/good-*`.

use std::collections::{HashMap, HashSet};
use std::io::Write;

use bstr::ByteSlice;
use gix_hash::ObjectId;

use super::G;
use super::log::walk;
use super::merge::files_of;
use crate::error::{GitError, Result};
use crate::repo::Repo;

fn goods(repo: &Repo<'_>) -> Vec<ObjectId> {
    repo.refs("refs/bisect/")
        .into_iter()
        .filter(|(n, _)| n.starts_with("refs/bisect/good-"))
        .map(|(_, id)| id)
        .collect()
}

fn skipped(repo: &Repo<'_>) -> HashSet<ObjectId> {
    repo.refs("refs/bisect/")
        .into_iter()
        .filter(|(n, _)| n.starts_with("refs/bisect/skip-"))
        .map(|(_, id)| id)
        .collect()
}

fn bad(repo: &Repo<'_>) -> Option<ObjectId> {
    repo.resolve_ref("refs/bisect/bad")
}

/// Moves `HEAD` (detached) and the work tree to `id`.
fn checkout(g: &mut G<'_, '_>, repo: &Repo<'_>, id: &ObjectId) -> Result<()> {
    let from = files_of(repo, repo.head().as_ref())?;
    let to = files_of(repo, Some(id))?;
    if !super::branch::two_tree(g, repo, &from, &to, false, "checkout")? {
        return Err(GitError::Raw(String::new(), 1));
    }
    repo.set_head_detached(id)
}

/// git's estimate of the steps left among `all` suspects.
fn steps(all: usize) -> usize {
    if all < 3 {
        return 0;
    }
    let n = usize::BITS as usize - 1 - all.leading_zeros() as usize;
    let e = 1usize << n;
    let x = all - e;
    if e < 3 * x { n } else { n - 1 }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The next commit to test, or the first bad one; prints what git prints.
/// Returns `Some(first_bad)` when the search is over.
fn next(g: &mut G<'_, '_>, repo: &Repo<'_>) -> Result<Option<ObjectId>> {
    let Some(b) = bad(repo) else {
        let _ = writeln!(g.out, "status: waiting for both good and bad commits");
        return Ok(None);
    };
    let good = goods(repo);
    if good.is_empty() {
        let _ = writeln!(
            g.out,
            "status: waiting for good commit(s), bad commit known"
        );
        return Ok(None);
    }
    let suspects = walk(g, repo, &[b], &good, false)?;
    let skip = skipped(repo);
    let all = suspects.len();
    if all <= 1 {
        report_first_bad(g, &b)?;
        return Ok(Some(b));
    }
    let set: HashSet<ObjectId> = suspects.iter().copied().collect();
    // How many suspects each suspect reaches (itself included).
    let mut weight: HashMap<ObjectId, usize> = HashMap::new();
    for id in &suspects {
        g.check()?;
        let mut seen = HashSet::new();
        let mut stack = vec![*id];
        while let Some(c) = stack.pop() {
            if set.contains(&c) && seen.insert(c) {
                stack.extend(repo.commit(&c)?.parents.iter().copied());
            }
        }
        weight.insert(*id, seen.len());
    }
    // git's choice: the first commit found about halfway (merges first, in
    // walk order, then the others from the oldest up, the oldest ones
    // themselves not checked), else the one that best halves the rest.
    let halfway = |id: &ObjectId| {
        let d = 2 * weight[id] as i64 - all as i64;
        (-1..=1).contains(&d) && !skip.contains(id)
    };
    let in_set_parents = |id: &ObjectId| -> usize {
        repo.commit(id)
            .map(|c| c.parents.iter().filter(|p| set.contains(*p)).count())
            .unwrap_or(0)
    };
    let best = suspects
        .iter()
        .find(|id| in_set_parents(id) > 1 && halfway(id))
        .or_else(|| {
            suspects
                .iter()
                .rev()
                .find(|id| in_set_parents(id) == 1 && halfway(id))
        })
        .copied()
        .or_else(|| {
            let mut best: Option<(usize, ObjectId)> = None;
            for id in suspects.iter().filter(|id| !skip.contains(*id)) {
                let d = weight[id].min(all - weight[id]);
                if best.is_none_or(|(b, _)| d > b) {
                    best = Some((d, *id));
                }
            }
            best.map(|b| b.1)
        });
    let Some(best) = best else {
        let _ = writeln!(g.out, "There are only 'skip'ped commits left to test.");
        return Ok(Some(b));
    };
    if best == b {
        report_first_bad(g, &b)?;
        return Ok(Some(b));
    }
    let reaches = weight[&best];
    let left = all - reaches - 1;
    let _ = writeln!(
        g.out,
        "Bisecting: {} left to test after this (roughly {})",
        plural(left, "revision", "revisions"),
        plural(steps(all), "step", "steps")
    );
    checkout(g, repo, &best)?;
    let c = repo.commit(&best)?;
    let _ = writeln!(
        g.out,
        "[{}] {}",
        best.to_hex(),
        super::status::subject(&c.message.to_str_lossy())
    );
    Ok(None)
}

fn report_first_bad(g: &mut G<'_, '_>, id: &ObjectId) -> Result<()> {
    let _ = writeln!(g.out, "{} is the first bad commit", id.to_hex());
    let saved = std::mem::take(&mut g.args);
    g.args = vec![
        "--stat".into(),
        "--no-abbrev-commit".into(),
        id.to_hex().to_string(),
    ];
    let r = super::log::show(g);
    g.args = saved;
    r.map(|_| ())
}

fn mark(g: &mut G<'_, '_>, repo: &Repo<'_>, what: &str, revs: &[String]) -> Result<()> {
    let ids: Vec<ObjectId> = if revs.is_empty() {
        vec![
            repo.head()
                .ok_or_else(|| GitError::fatal("Bad rev input: HEAD"))?,
        ]
    } else {
        revs.iter()
            .map(|r| {
                super::rev_commit(repo, r)
                    .map_err(|_| GitError::fatal(format!("Bad rev input: {r}")))
            })
            .collect::<Result<_>>()?
    };
    for id in ids {
        let hex = id.to_hex().to_string();
        match what {
            "bad" => repo.set_ref("refs/bisect/bad", &id)?,
            "good" => repo.set_ref(&format!("refs/bisect/good-{hex}"), &id)?,
            _ => repo.set_ref(&format!("refs/bisect/skip-{hex}"), &id)?,
        }
        let c = repo.commit(&id)?;
        let line = format!(
            "# {what}: [{hex}] {}\ngit bisect {what} {hex}\n",
            super::status::subject(&c.message.to_str_lossy())
        );
        let _ = repo.fs.append(&repo.gp("BISECT_LOG"), line.as_bytes());
    }
    let _ = g;
    Ok(())
}

fn in_progress(repo: &Repo<'_>) -> bool {
    repo.fs.exists(&repo.gp("BISECT_START"))
}

fn reset(g: &mut G<'_, '_>, repo: &Repo<'_>) -> Result<i32> {
    if !in_progress(repo) {
        let _ = writeln!(g.out, "We are not bisecting.");
        return Ok(0);
    }
    let start = repo
        .fs
        .read(&repo.gp("BISECT_START"))
        .map(|d| String::from_utf8_lossy(&d).trim().to_string())
        .unwrap_or_default();
    let branch_ref = format!("refs/heads/{start}");
    let target = repo
        .resolve_ref(&branch_ref)
        .or_else(|| super::rev_opt(repo, &start).ok().flatten());
    if let Some(t) = target {
        let prev = repo.head();
        let from = files_of(repo, prev.as_ref())?;
        let to = files_of(repo, Some(&t))?;
        super::branch::two_tree(g, repo, &from, &to, false, "checkout")?;
        if repo.ref_exists(&branch_ref) {
            if let Some(p) = prev
                && p != t
            {
                let c = repo.commit(&p)?;
                let _ = writeln!(
                    g.err,
                    "Previous HEAD position was {} {}",
                    repo.abbrev(&p),
                    super::status::subject(&c.message.to_str_lossy())
                );
            }
            repo.set_head_symbolic(&branch_ref)?;
            let _ = writeln!(g.err, "Switched to branch '{start}'");
        } else {
            repo.set_head_detached(&t)?;
        }
    }
    for name in repo.refs("refs/bisect/").keys() {
        let _ = repo.delete_ref(name);
    }
    for f in [
        "BISECT_START",
        "BISECT_LOG",
        "BISECT_TERMS",
        "BISECT_NAMES",
        "BISECT_EXPECTED_REV",
    ] {
        let _ = repo.fs.remove_file(&repo.gp(f));
    }
    Ok(0)
}

/// `git bisect start|bad|good|new|old|skip|reset|log|run ...`.
pub fn bisect(g: &mut G<'_, '_>) -> Result<i32> {
    let repo = g.repo()?;
    let mut args = g.args.clone();
    if args.is_empty() {
        return Err(GitError::Usage("usage: git bisect [help|start|bad|good|new|old|terms|skip|next|reset|visualize|view|replay|log|run]".into()));
    }
    let sub = args.remove(0);
    match sub.as_str() {
        "start" => {
            if in_progress(&repo) {
                reset(g, &repo)?;
            }
            let revs: Vec<String> = args.into_iter().filter(|a| !a.starts_with('-')).collect();
            let start = repo
                .head_branch()
                .or_else(|| repo.head().map(|h| h.to_hex().to_string()))
                .unwrap_or_default();
            repo.fs
                .write(&repo.gp("BISECT_START"), format!("{start}\n").as_bytes())?;
            repo.fs
                .write(&repo.gp("BISECT_LOG"), b"git bisect start\n")?;
            if let Some(b) = revs.first() {
                mark(g, &repo, "bad", std::slice::from_ref(b))?;
            }
            if revs.len() > 1 {
                mark(g, &repo, "good", &revs[1..])?;
            }
            next(g, &repo)?;
            Ok(0)
        }
        "bad" | "new" | "good" | "old" | "skip" => {
            if !in_progress(&repo) {
                let _ = writeln!(
                    g.err,
                    "You need to start by \"git bisect start\"\n\nYou then need to give me at least one good and one bad revision.\n(You can use \"git bisect bad\" and \"git bisect good\" for that.)"
                );
                return Ok(1);
            }
            let what = match sub.as_str() {
                "new" => "bad",
                "old" => "good",
                s => s,
            };
            mark(g, &repo, what, &args)?;
            next(g, &repo)?;
            Ok(0)
        }
        "reset" => reset(g, &repo),
        "log" => {
            if !in_progress(&repo) {
                return Err(GitError::Raw("error: We are not bisecting.".into(), 1));
            }
            g.out
                .extend(repo.fs.read(&repo.gp("BISECT_LOG")).unwrap_or_default());
            Ok(0)
        }
        "run" => {
            if !in_progress(&repo) {
                let _ = writeln!(g.err, "You need to start by \"git bisect start\".");
                return Ok(1);
            }
            if args.is_empty() {
                return Err(GitError::Raw(
                    "error: bisect run failed: no command provided.".into(),
                    1,
                ));
            }
            for _ in 0..64 {
                g.check()?;
                let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
                let _ = writeln!(g.out, "running {}", quoted.join(" "));
                let mut child_out = Vec::new();
                let mut child_err = Vec::new();
                let mut empty: &[u8] = &[];
                let status = g.exec.exec(sandkeep_shell::ExecRequest {
                    argv: &args,
                    env: &[],
                    cwd: &g.cwd,
                    stdin: &mut empty,
                    stdout: &mut child_out,
                    stderr: &mut child_err,
                    mode: sandkeep_shell::ExecMode::Inherit,
                });
                g.out.extend_from_slice(&child_out);
                g.err.extend_from_slice(&child_err);
                let what = match status {
                    0 => "good",
                    125 => "skip",
                    1..=127 => "bad",
                    s => {
                        let _ = writeln!(
                            g.err,
                            "bisect run failed: exit code {s} from {} is < 0 or >= 128",
                            quoted.join(" ")
                        );
                        return Ok(1);
                    }
                };
                mark(g, &repo, what, &[])?;
                if next(g, &repo)?.is_some() {
                    let _ = writeln!(g.out, "bisect found first bad commit");
                    return Ok(0);
                }
            }
            Ok(1)
        }
        other => Err(GitError::Raw(
            format!(
                "error: unknown command: '{other}'\nusage: git bisect [help|start|bad|good|new|old|terms|skip|next|reset|visualize|view|replay|log|run]"
            ),
            1,
        )),
    }
}
