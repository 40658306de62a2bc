//! `git reflog`: the entries commit, checkout, reset, merge, cherry-pick,
//! revert and clone append to `.git/logs/` (see [`Repo::append_reflog`]),
//! shown newest first as `HEAD@{N}`, and the `REF@{N}` revisions that name
//! them.

use std::collections::BTreeMap;
use std::io::Write;

use gix_hash::ObjectId;

use super::G;
use super::pretty::{DateStyle, format_commit};
use crate::error::{GitError, Result};
use crate::repo::Repo;

/// The reflog a name given by a user reads (`HEAD`, `master`,
/// `refs/heads/master`, `""` for the current branch), with the name git
/// shows for it.
fn log_ref(repo: &Repo<'_>, name: &str) -> Option<(String, String)> {
    if name.is_empty() {
        let r = repo.head_ref()?;
        let short = r.strip_prefix("refs/heads/").unwrap_or(&r).to_string();
        return Some((r, short));
    }
    if name == "HEAD" {
        return Some(("HEAD".into(), "HEAD".into()));
    }
    for cand in [
        name.to_string(),
        format!("refs/{name}"),
        format!("refs/tags/{name}"),
        format!("refs/heads/{name}"),
        format!("refs/remotes/{name}"),
    ] {
        if cand.starts_with("refs/")
            && (repo.fs.exists(&repo.gp(&format!("logs/{cand}"))) || repo.ref_exists(&cand))
        {
            return Some((cand, name.to_string()));
        }
    }
    None
}

/// Resolves `REF@{N}` (`None` when `spec` is not of that form).
pub fn at_revision(repo: &Repo<'_>, spec: &str) -> Option<Result<Option<ObjectId>>> {
    let (name, rest) = spec.split_once("@{")?;
    let n: usize = rest.strip_suffix('}')?.parse().ok()?;
    let Some((full, shown)) = log_ref(repo, name) else {
        return Some(Ok(None));
    };
    let entries = repo.reflog(&full);
    if let Some(e) = entries.get(n) {
        return Some(Ok(Some(e.1)));
    }
    if entries.is_empty() {
        return Some(Ok(None));
    }
    Some(Err(GitError::fatal(format!(
        "log for '{shown}' only has {} entries",
        entries.len()
    ))))
}

/// `git reflog [show] [--format=F] [-n N] [REF]`.
pub fn reflog(g: &mut G<'_, '_>) -> Result<i32> {
    let repo = g.repo()?;
    let mut args = g.args.clone();
    if matches!(args.first().map(String::as_str), Some("show")) {
        args.remove(0);
    }
    if let Some(sub @ ("expire" | "delete" | "exists")) = args.first().map(String::as_str) {
        return Err(GitError::fatal(format!(
            "reflog {sub} is not available in the local sandbox"
        )));
    }
    let mut fmt = "%h %gd: %gs".to_string();
    let mut max: Option<usize> = None;
    let mut name: Option<String> = None;
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        if let Some(f) = a
            .strip_prefix("--format=")
            .or_else(|| a.strip_prefix("--pretty=format:"))
            .or_else(|| a.strip_prefix("--pretty=tformat:"))
        {
            fmt = f.to_string();
        } else if a == "--oneline" {
            fmt = "%h %gd: %gs".into();
        } else if a == "-n" || a == "--max-count" {
            i += 1;
            max = args.get(i).and_then(|v| v.parse().ok());
        } else if let Some(v) = a
            .strip_prefix("--max-count=")
            .or_else(|| a.strip_prefix("-n"))
            .or_else(|| a.strip_prefix('-').filter(|v| v.parse::<usize>().is_ok()))
        {
            max = v.parse().ok();
        } else if a.starts_with('-') {
            return Err(GitError::Usage(format!(
                "error: unknown option `{}'",
                a.trim_start_matches('-')
            )));
        } else {
            name = Some(a.to_string());
        }
        i += 1;
    }
    let name = name.unwrap_or_else(|| "HEAD".into());
    let Some((full, shown)) = log_ref(&repo, &name) else {
        return Err(GitError::fatal(format!(
            "ambiguous argument '{name}': unknown revision or path not in the working tree.\nUse '--' to separate paths from revisions, like this:\n'git <command> [<revision>...] -- [<file>...]'"
        )));
    };
    let decos = BTreeMap::new();
    let now = super::now(g).seconds;
    for (n, (_, new, msg)) in repo.reflog(&full).iter().enumerate() {
        if max.is_some_and(|m| n >= m) {
            break;
        }
        g.check()?;
        let selector = format!("{shown}@{{{n}}}");
        let with_log = fmt
            .replace("%gd", &selector.replace('%', "%%"))
            .replace("%gD", &selector.replace('%', "%%"))
            .replace("%gs", &msg.replace('%', "%%"));
        let line = match repo.commit(new) {
            Ok(c) => format_commit(&repo, new, &c, &with_log, &DateStyle::Default, now, &decos),
            Err(_) => with_log.replace("%h", &repo.abbrev(new)),
        };
        let _ = writeln!(g.out, "{line}");
    }
    Ok(0)
}
