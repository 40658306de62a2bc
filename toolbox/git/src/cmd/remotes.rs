//! `git remote`: the `remote.<name>.*` sections of the config (list, `-v`,
//! `add`, `remove`/`rm`, `rename`, `get-url`, `set-url`, `show`, `prune`).

use std::io::Write;

use super::G;
use crate::config;
use crate::error::{GitError, Result};
use crate::repo::Repo;

/// The configured remotes in config order, with their URLs.
fn remotes(repo: &Repo<'_>) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for (k, v) in &repo.config.entries {
        if let Some(rest) = k.strip_prefix("remote.")
            && let Some(name) = rest.strip_suffix(".url")
        {
            let url = v.clone().unwrap_or_default();
            match out.iter_mut().find(|(n, _)| n == name) {
                Some(e) => e.1 = url,
                None => out.push((name.to_string(), url)),
            }
        }
    }
    out.sort();
    out
}

fn edit_config(repo: &Repo<'_>, edit: impl FnOnce(&str) -> String) -> Result<()> {
    let path = repo.gp("config");
    let text = String::from_utf8_lossy(&repo.fs.read(&path).unwrap_or_default()).into_owned();
    repo.fs.write(&path, edit(&text).as_bytes())?;
    Ok(())
}

fn no_such_remote(name: &str) -> GitError {
    GitError::Raw(format!("error: No such remote: '{name}'"), 2)
}

/// `git remote [-v] [SUBCOMMAND ...]`.
pub fn remote(g: &mut G<'_, '_>) -> Result<i32> {
    let repo = g.repo()?;
    let mut args = g.args.clone();
    let verbose = args.first().is_some_and(|a| a == "-v" || a == "--verbose");
    if verbose {
        args.remove(0);
    }
    let list = remotes(&repo);
    let Some(sub) = args.first().cloned() else {
        for (name, url) in &list {
            if verbose {
                let push = repo
                    .config
                    .get(&format!("remote.{name}.pushurl"))
                    .unwrap_or(url);
                let _ = writeln!(g.out, "{name}\t{url} (fetch)\n{name}\t{push} (push)");
            } else {
                let _ = writeln!(g.out, "{name}");
            }
        }
        return Ok(0);
    };
    let rest: Vec<String> = args[1..].to_vec();
    let find = |name: &str| list.iter().find(|(n, _)| n == name).map(|(_, u)| u.clone());
    match sub.as_str() {
        "add" => {
            let ops: Vec<&String> = rest.iter().filter(|a| !a.starts_with('-')).collect();
            let [name, url] = ops[..] else {
                return Err(GitError::Usage(
                    "usage: git remote add [<options>] <name> <url>".into(),
                ));
            };
            if find(name).is_some() {
                return Err(GitError::Raw(
                    format!("error: remote {name} already exists."),
                    3,
                ));
            }
            edit_config(&repo, |t| {
                let t = config::set_in_file(t, &format!("remote.{name}.url"), url);
                config::set_in_file(
                    &t,
                    &format!("remote.{name}.fetch"),
                    &format!("+refs/heads/*:refs/remotes/{name}/*"),
                )
            })?;
            if rest.iter().any(|a| a == "-f" || a == "--fetch") {
                g.args = vec!["-q".into(), name.clone()];
                return super::remote::fetch(g);
            }
            Ok(0)
        }
        "remove" | "rm" => {
            let Some(name) = rest.first() else {
                return Err(GitError::Usage("usage: git remote remove <name>".into()));
            };
            if find(name).is_none() {
                return Err(no_such_remote(name));
            }
            for r in repo.refs(&format!("refs/remotes/{name}/")).keys() {
                repo.delete_ref(r)?;
            }
            let _ = repo
                .fs
                .remove_file(&repo.gp(&format!("refs/remotes/{name}/HEAD")));
            let branches = branches_tracking(&repo, name);
            edit_config(&repo, |t| {
                let mut t = config::remove_section(t, &format!("remote.{name}")).0;
                for b in &branches {
                    t = config::unset_in_file(&t, &format!("branch.{b}.remote")).0;
                    t = config::unset_in_file(&t, &format!("branch.{b}.merge")).0;
                }
                t
            })?;
            Ok(0)
        }
        "rename" => {
            let [old, new] = &rest[..] else {
                return Err(GitError::Usage(
                    "usage: git remote rename [--[no-]progress] <old> <new>".into(),
                ));
            };
            let Some(url) = find(old) else {
                return Err(no_such_remote(old));
            };
            if find(new).is_some() {
                return Err(GitError::fatal(format!("remote {new} already exists.")));
            }
            for (r, id) in repo.refs(&format!("refs/remotes/{old}/")) {
                let b = &r[format!("refs/remotes/{old}/").len()..];
                repo.set_ref(&format!("refs/remotes/{new}/{b}"), &id)?;
                repo.delete_ref(&r)?;
            }
            let branches = branches_tracking(&repo, old);
            edit_config(&repo, |t| {
                let mut t = config::remove_section(t, &format!("remote.{old}")).0;
                t = config::set_in_file(&t, &format!("remote.{new}.url"), &url);
                t = config::set_in_file(
                    &t,
                    &format!("remote.{new}.fetch"),
                    &format!("+refs/heads/*:refs/remotes/{new}/*"),
                );
                for b in &branches {
                    t = config::set_in_file(&t, &format!("branch.{b}.remote"), new);
                }
                t
            })?;
            Ok(0)
        }
        "get-url" => {
            let Some(name) = rest.iter().find(|a| !a.starts_with('-')) else {
                return Err(GitError::Usage(
                    "usage: git remote get-url [--push] [--all] <name>".into(),
                ));
            };
            let Some(url) = find(name) else {
                return Err(no_such_remote(name));
            };
            let _ = writeln!(g.out, "{url}");
            Ok(0)
        }
        "set-url" => {
            let ops: Vec<&String> = rest.iter().filter(|a| !a.starts_with('-')).collect();
            let [name, url, ..] = ops[..] else {
                return Err(GitError::Usage(
                    "usage: git remote set-url [--push] <name> <newurl> [<oldurl>]".into(),
                ));
            };
            if find(name).is_none() {
                return Err(no_such_remote(name));
            }
            edit_config(&repo, |t| {
                config::set_in_file(t, &format!("remote.{name}.url"), url)
            })?;
            Ok(0)
        }
        "show" => show(g, &repo, &list, &rest),
        "prune" => {
            for name in rest.iter().filter(|a| !a.starts_with('-')) {
                g.args = vec!["-q".into(), "--prune".into(), name.clone()];
                super::remote::fetch(g)?;
            }
            Ok(0)
        }
        other => Err(GitError::Usage(format!(
            "error: unknown subcommand: `{other}'"
        ))),
    }
}

/// `git remote show NAME`: URLs, the remote's HEAD and branches, and
/// which local branches pull from and push to it.
fn show(
    g: &mut G<'_, '_>,
    repo: &Repo<'_>,
    list: &[(String, String)],
    rest: &[String],
) -> Result<i32> {
    for name in rest.iter().filter(|a| !a.starts_with('-')) {
        let Some((_, url)) = list.iter().find(|(n, _)| n == name) else {
            let _ = writeln!(
                g.out,
                "* remote {name}\n  Fetch URL: {name}\n  Push  URL: {name}"
            );
            continue;
        };
        let path = super::remote::url_path(&repo.work_tree, url);
        let src = Repo::open_any(g.fs, &path, g.getenv("HOME")).ok_or_else(|| {
            GitError::fatal(format!("'{url}' does not appear to be a git repository"))
        })?;
        let _ = writeln!(
            g.out,
            "* remote {name}\n  Fetch URL: {url}\n  Push  URL: {url}"
        );
        let _ = writeln!(
            g.out,
            "  HEAD branch: {}",
            src.head_branch().unwrap_or_else(|| "(unknown)".into())
        );
        let remote_branches = src.refs("refs/heads/");
        let names: Vec<String> = remote_branches
            .keys()
            .map(|r| r["refs/heads/".len()..].to_string())
            .collect();
        let width = names.iter().map(String::len).max().unwrap_or(0);
        let _ = writeln!(
            g.out,
            "  Remote branch{}:",
            if names.len() == 1 { "" } else { "es" }
        );
        for b in &names {
            let state = if repo.ref_exists(&format!("refs/remotes/{name}/{b}")) {
                "tracked".to_string()
            } else {
                format!("new (next fetch will store in remotes/{name})")
            };
            let _ = writeln!(g.out, "    {b:width$} {state}");
        }
        let mut pulls: Vec<(String, String)> = Vec::new();
        for (k, v) in &repo.config.entries {
            if let Some(b) = k
                .strip_prefix("branch.")
                .and_then(|r| r.strip_suffix(".remote"))
                && v.as_deref() == Some(name.as_str())
                && let Some(m) = repo.config.get(&format!("branch.{b}.merge"))
            {
                pulls.push((
                    b.to_string(),
                    m.strip_prefix("refs/heads/").unwrap_or(m).to_string(),
                ));
            }
        }
        if !pulls.is_empty() {
            let _ = writeln!(
                g.out,
                "  Local branch{} configured for 'git pull':",
                if pulls.len() == 1 { "" } else { "es" }
            );
            let w = pulls.iter().map(|p| p.0.len()).max().unwrap_or(0);
            for (b, m) in &pulls {
                let _ = writeln!(g.out, "    {b:w$} merges with remote {m}");
            }
        }
        let pushes: Vec<(String, String)> = repo
            .refs("refs/heads/")
            .into_iter()
            .filter_map(|(r, id)| {
                let b = r["refs/heads/".len()..].to_string();
                let theirs = remote_branches.get(&r)?;
                let state = if *theirs == id {
                    "up to date"
                } else if repo.has_object(theirs)
                    && super::log::merge_bases(repo, theirs, &id, &|| Ok(()))
                        .ok()?
                        .contains(theirs)
                {
                    "fast-forwardable"
                } else {
                    "local out of date"
                };
                Some((b, state.to_string()))
            })
            .collect();
        if !pushes.is_empty() {
            let _ = writeln!(
                g.out,
                "  Local ref{} configured for 'git push':",
                if pushes.len() == 1 { "" } else { "s" }
            );
            let w = pushes.iter().map(|p| p.0.len()).max().unwrap_or(0);
            for (b, state) in &pushes {
                let _ = writeln!(g.out, "    {b:w$} pushes to {b:w$} ({state})");
            }
        }
    }
    Ok(0)
}

/// The branches whose `branch.B.remote` names `remote`.
fn branches_tracking(repo: &Repo<'_>, remote: &str) -> Vec<String> {
    repo.config
        .entries
        .iter()
        .filter(|(k, v)| k.ends_with(".remote") && v.as_deref() == Some(remote))
        .filter_map(|(k, _)| {
            k.strip_prefix("branch.")?
                .strip_suffix(".remote")
                .map(str::to_string)
        })
        .collect()
}
