//! Repositories on local paths inside the sandbox (a path or a `file://`
//! URL; there is no network transport): `clone`, `fetch`, `pull`, `push`,
//! `ls-remote` and `remote`. Objects move between the two `.git`
//! directories as loose objects (everything reachable from the refs that
//! move and missing on the other side), refs as git names them
//! (`refs/remotes/<remote>/<branch>`, the clone's `packed-refs`).

use std::collections::{BTreeMap, HashSet};
use std::io::Write;

use gix_hash::ObjectId;
use gix_object::Kind;
use sandkeep_shell::Fs;

use super::{G, split_short};
use crate::config;
use crate::error::{GitError, Result};
use crate::repo::{HASH, Repo};

/// The path a remote URL names (`file://` stripped), absolute from `base`.
pub fn url_path(base: &str, url: &str) -> String {
    let p = url.strip_prefix("file://").unwrap_or(url);
    Fs::resolve(base, p)
}

/// Copies every object reachable from `tips` that `to` lacks (a commit
/// `to` has is taken to come with its history, as git's negotiation does).
pub fn copy_objects(
    g: &G<'_, '_>,
    from: &Repo<'_>,
    to: &Repo<'_>,
    tips: &[ObjectId],
) -> Result<()> {
    let mut stack: Vec<ObjectId> = tips.to_vec();
    let mut seen: HashSet<ObjectId> = HashSet::new();
    while let Some(id) = stack.pop() {
        if !seen.insert(id) || to.has_object(&id) {
            continue;
        }
        g.check()?;
        let (kind, data) = from.read_object(&id)?;
        match kind {
            Kind::Commit => {
                let c = from.commit(&id)?;
                stack.push(c.tree);
                stack.extend(c.parents.iter().copied());
            }
            Kind::Tree => {
                for (_, mode, child) in from.tree(&id)? {
                    if mode != 0o160000 {
                        stack.push(child);
                    }
                }
            }
            Kind::Tag => {
                if let Ok(t) = gix_object::TagRef::from_bytes(&data, HASH) {
                    stack.push(t.target());
                }
            }
            Kind::Blob => {}
        }
        to.write_object(kind, &data)?;
    }
    Ok(())
}

/// Sets `key` in the repository's own config file.
fn set_config(repo: &Repo<'_>, key: &str, value: &str) -> Result<()> {
    let path = repo.gp("config");
    let text = String::from_utf8_lossy(&repo.fs.read(&path).unwrap_or_default()).into_owned();
    repo.fs
        .write(&path, config::set_in_file(&text, key, value).as_bytes())?;
    Ok(())
}

/// Writes refs as a `packed-refs` file (what `clone` leaves), tags peeled.
fn write_packed_refs(repo: &Repo<'_>, refs: &BTreeMap<String, ObjectId>) -> Result<()> {
    let mut text = String::from("# pack-refs with: peeled fully-peeled sorted \n");
    for (name, id) in refs {
        text.push_str(&format!("{} {name}\n", id.to_hex()));
        if name.starts_with("refs/tags/")
            && let Ok(peeled) = super::peel_tag(repo, id)
            && peeled != *id
        {
            text.push_str(&format!("^{}\n", peeled.to_hex()));
        }
    }
    repo.fs.write(&repo.gp("packed-refs"), text.as_bytes())?;
    Ok(())
}

/// The error git gives for a path that holds no repository.
fn not_a_repo(url: &str) -> GitError {
    GitError::Raw(
        format!(
            "fatal: '{url}' does not appear to be a git repository\nfatal: Could not read from remote repository.\n\nPlease make sure you have the correct access rights\nand the repository exists."
        ),
        128,
    )
}

/// `git clone [-q] [--bare] [-b BRANCH] [-o NAME] [--depth N] SRC [DIR]`.
pub fn clone(g: &mut G<'_, '_>) -> Result<i32> {
    let args = split_short(&g.args, &['b', 'o']);
    let (mut quiet, mut bare, mut branch, mut origin) = (false, false, None, "origin".to_string());
    let mut operands = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        match a {
            "-q" | "--quiet" => quiet = true,
            "--bare" | "--mirror" => bare = true,
            "-b" | "--branch" => {
                i += 1;
                branch = args.get(i).cloned();
            }
            "-o" | "--origin" => {
                i += 1;
                origin = args.get(i).cloned().unwrap_or(origin);
            }
            "--depth" => i += 1,
            "--no-checkout" | "-n" | "--single-branch" | "--no-single-branch" | "--local"
            | "-l" | "--no-hardlinks" | "--shared" | "-s" | "--no-tags" | "--progress" => {}
            s if s.starts_with("--branch=") => branch = Some(s[9..].to_string()),
            s if s.starts_with("--depth=") || s.starts_with("--origin=") => {
                if let Some(o) = s.strip_prefix("--origin=") {
                    origin = o.to_string();
                }
            }
            s if s.starts_with('-') && s.len() > 1 => return Err(super::usage_error(s)),
            s => operands.push(s.to_string()),
        }
        i += 1;
    }
    let Some(src_url) = operands.first().cloned() else {
        return Err(GitError::Raw(
            "fatal: You must specify a repository to clone.".into(),
            129,
        ));
    };
    let src_path = url_path(&g.cwd, &src_url);
    let home = g.getenv("HOME");
    let Some(src) = Repo::open_any(g.fs, &src_path, home) else {
        return Err(GitError::fatal(format!(
            "repository '{src_url}' does not exist"
        )));
    };
    let name = match operands.get(1) {
        Some(d) => d.clone(),
        None => {
            let t = src_url.trim_end_matches('/');
            let t = t.strip_suffix("/.git").unwrap_or(t);
            let base = t.rsplit('/').next().unwrap_or(t);
            let base = base.strip_suffix(".git").unwrap_or(base);
            if bare {
                format!("{base}.git")
            } else {
                base.to_string()
            }
        }
    };
    let dst = Fs::resolve(&g.cwd, &name);
    if g.fs.exists(&dst) && g.fs.read_dir(&dst).map(|e| !e.is_empty()).unwrap_or(true) {
        return Err(GitError::fatal(format!(
            "destination path '{name}' already exists and is not an empty directory."
        )));
    }
    if !quiet {
        let what = if bare { "bare repository " } else { "" };
        let _ = writeln!(g.err, "Cloning into {what}'{name}'...");
    }
    // Create the repository the way `init` does.
    let mut init_args = vec!["-q".to_string()];
    if bare {
        init_args.push("--bare".into());
    }
    init_args.push(dst.clone());
    let saved = std::mem::replace(&mut g.args, init_args);
    super::basic::init(g)?;
    g.args = saved;
    let dst_repo = if bare {
        Repo::open_bare(g.fs, &dst, home)?
    } else {
        Repo::open(g.fs, &dst, home)?
    };
    g.set_reflog_ident(&dst_repo);
    let src_refs = src.refs("refs/");
    let tips: Vec<ObjectId> = src_refs.values().copied().collect();
    copy_objects(g, &src, &dst_repo, &tips)?;
    // The URL kept: a path made absolute, a file:// URL as given.
    let url = if src_url.starts_with("file://") {
        src_url.clone()
    } else {
        src_path.clone()
    };
    let head_branch = branch.clone().or_else(|| src.head_branch());
    if bare {
        let kept: BTreeMap<String, ObjectId> = src_refs
            .iter()
            .filter(|(n, _)| n.starts_with("refs/heads/") || n.starts_with("refs/tags/"))
            .map(|(n, id)| (n.clone(), *id))
            .collect();
        write_packed_refs(&dst_repo, &kept)?;
        set_config(&dst_repo, &format!("remote.{origin}.url"), &url)?;
        if let Some(b) = &head_branch {
            dst_repo.set_head_symbolic(&format!("refs/heads/{b}"))?;
        }
        if !quiet {
            let _ = writeln!(g.err, "done.");
        }
        return Ok(0);
    }
    let mut kept: BTreeMap<String, ObjectId> = BTreeMap::new();
    for (n, id) in &src_refs {
        if let Some(b) = n.strip_prefix("refs/heads/") {
            kept.insert(format!("refs/remotes/{origin}/{b}"), *id);
        } else if n.starts_with("refs/tags/") {
            kept.insert(n.clone(), *id);
        }
    }
    write_packed_refs(&dst_repo, &kept)?;
    set_config(&dst_repo, &format!("remote.{origin}.url"), &url)?;
    set_config(
        &dst_repo,
        &format!("remote.{origin}.fetch"),
        &format!("+refs/heads/*:refs/remotes/{origin}/*"),
    )?;
    let Some(b) = head_branch else {
        let _ = writeln!(
            g.err,
            "warning: You appear to have cloned an empty repository."
        );
        return Ok(0);
    };
    let Some(tip) = src.resolve_ref(&format!("refs/heads/{b}")) else {
        if branch.is_some() {
            return Err(GitError::fatal(format!(
                "Remote branch {b} not found in upstream {origin}"
            )));
        }
        let _ = writeln!(
            g.err,
            "warning: You appear to have cloned an empty repository."
        );
        return Ok(0);
    };
    let remote_head = dst_repo.gp(&format!("refs/remotes/{origin}/HEAD"));
    if let Some(i) = remote_head.rfind('/') {
        g.fs.mkdir_all(&remote_head[..i])?;
    }
    g.fs.write(
        &remote_head,
        format!("ref: refs/remotes/{origin}/{b}\n").as_bytes(),
    )?;
    set_config(&dst_repo, &format!("branch.{b}.remote"), &origin)?;
    set_config(
        &dst_repo,
        &format!("branch.{b}.merge"),
        &format!("refs/heads/{b}"),
    )?;
    dst_repo.set_head_symbolic(&format!("refs/heads/{b}"))?;
    dst_repo.reflog_message(format!("clone: from {url}"));
    dst_repo.set_ref(&format!("refs/heads/{b}"), &tip)?;
    let to = dst_repo.commit_files(Some(&tip))?;
    super::branch::two_tree(g, &dst_repo, &BTreeMap::new(), &to, true, "checkout")?;
    if !quiet {
        let _ = writeln!(g.err, "done.");
    }
    Ok(0)
}

/// A remote as a command names it: a configured name or a path/URL.
struct Remote {
    /// The configured name (`None` for a bare path or URL).
    name: Option<String>,
    /// The URL as configured or given.
    url: String,
    /// Where it is in the sandbox.
    path: String,
}

fn find_remote(repo: &Repo<'_>, name: &str) -> Remote {
    match repo.config.get(&format!("remote.{name}.url")) {
        Some(url) => Remote {
            name: Some(name.to_string()),
            url: url.to_string(),
            path: url_path(&repo.work_tree, url),
        },
        None => Remote {
            name: None,
            url: name.to_string(),
            path: url_path(&repo.work_tree, name),
        },
    }
}

/// The remote a command uses when none is named: the current branch's, or
/// `origin`.
fn default_remote(repo: &Repo<'_>) -> String {
    repo.head_branch()
        .and_then(|b| {
            repo.config
                .get(&format!("branch.{b}.remote"))
                .map(str::to_string)
        })
        .unwrap_or_else(|| "origin".into())
}

fn open_remote<'a>(g: &G<'a, '_>, r: &Remote) -> Result<Repo<'a>> {
    Repo::open_any(g.fs, &r.path, g.getenv("HOME")).ok_or_else(|| not_a_repo(&r.url))
}

/// What a fetch brought: the tip of each remote branch.
struct Fetched {
    branches: BTreeMap<String, ObjectId>,
}

fn do_fetch(
    g: &mut G<'_, '_>,
    repo: &Repo<'_>,
    remote: &Remote,
    prune: bool,
    quiet: bool,
) -> Result<Fetched> {
    let src = open_remote(g, remote)?;
    let src_refs = src.refs("refs/");
    let branches: BTreeMap<String, ObjectId> = src_refs
        .iter()
        .filter_map(|(n, id)| n.strip_prefix("refs/heads/").map(|b| (b.to_string(), *id)))
        .collect();
    let tips: Vec<ObjectId> = src_refs.values().copied().collect();
    copy_objects(g, &src, repo, &tips)?;
    let mut lines = Vec::new();
    if let Some(name) = &remote.name {
        for (b, id) in &branches {
            let r = format!("refs/remotes/{name}/{b}");
            let old = repo.resolve_ref(&r);
            if old != Some(*id) {
                repo.set_ref(&r, id)?;
                let how = match old {
                    None => " * [new branch]     ".to_string(),
                    Some(o) => format!("   {}..{} ", repo.abbrev(&o), repo.abbrev(id)),
                };
                lines.push(format!("{how} {b} -> {name}/{b}"));
            }
        }
        if prune {
            for r in repo.refs(&format!("refs/remotes/{name}/")).keys() {
                let b = &r[format!("refs/remotes/{name}/").len()..];
                if b != "HEAD" && !branches.contains_key(b) {
                    repo.delete_ref(r)?;
                    lines.push(format!(" - [deleted]         (none)     -> {name}/{b}"));
                }
            }
        }
    }
    for (n, id) in &src_refs {
        if n.starts_with("refs/tags/") && !repo.ref_exists(n) {
            repo.set_ref(n, id)?;
            let t = &n["refs/tags/".len()..];
            lines.push(format!(" * [new tag]         {t} -> {t}"));
        }
    }
    // FETCH_HEAD: the current branch's upstream first, for `pull`.
    let merge_branch = repo
        .head_branch()
        .and_then(|b| {
            repo.config
                .get(&format!("branch.{b}.merge"))
                .map(str::to_string)
        })
        .and_then(|m| m.strip_prefix("refs/heads/").map(str::to_string));
    let mut fetch_head = String::new();
    for (b, id) in &branches {
        let tag = if Some(b) == merge_branch.as_ref() {
            ""
        } else {
            "not-for-merge"
        };
        fetch_head.push_str(&format!(
            "{}\t{tag}\tbranch '{b}' of {}\n",
            id.to_hex(),
            remote.url
        ));
    }
    repo.fs
        .write(&repo.gp("FETCH_HEAD"), fetch_head.as_bytes())?;
    if !quiet && !lines.is_empty() {
        let _ = writeln!(g.err, "From {}", remote.url);
        for l in lines {
            let _ = writeln!(g.err, "{l}");
        }
    }
    Ok(Fetched { branches })
}

/// `git fetch [-q] [-p|--prune] [--all] [--tags] [REMOTE [REFSPEC...]]`.
pub fn fetch(g: &mut G<'_, '_>) -> Result<i32> {
    let repo = g.repo()?;
    let args = split_short(&g.args, &[]);
    let (mut quiet, mut prune, mut all) = (false, false, false);
    let mut operands = Vec::new();
    for a in &args {
        match a.as_str() {
            "-q" | "--quiet" => quiet = true,
            "-p" | "--prune" => prune = true,
            "--all" => all = true,
            "-t" | "--tags" | "-v" | "--verbose" | "--no-tags" | "--progress" => {}
            s if s.starts_with("--depth=") => {}
            s if s.starts_with('-') && s.len() > 1 => return Err(super::usage_error(s)),
            s => operands.push(s.to_string()),
        }
    }
    let names: Vec<String> = if all {
        remote_names(&repo)
    } else {
        vec![
            operands
                .first()
                .cloned()
                .unwrap_or_else(|| default_remote(&repo)),
        ]
    };
    for name in names {
        let remote = find_remote(&repo, &name);
        let fetched = do_fetch(g, &repo, &remote, prune, quiet)?;
        // `git fetch origin SRC:DST` also moves a local branch.
        for spec in operands.iter().skip(1) {
            let spec = spec.trim_start_matches('+');
            if let Some((s, d)) = spec.split_once(':')
                && !d.is_empty()
            {
                let s = s.strip_prefix("refs/heads/").unwrap_or(s);
                let Some(id) = fetched.branches.get(s) else {
                    return Err(GitError::fatal(format!("couldn't find remote ref {s}")));
                };
                let d = d.strip_prefix("refs/heads/").unwrap_or(d);
                repo.set_ref(&format!("refs/heads/{d}"), id)?;
            } else if !fetched
                .branches
                .contains_key(spec.strip_prefix("refs/heads/").unwrap_or(spec))
            {
                return Err(GitError::fatal(format!("couldn't find remote ref {spec}")));
            }
        }
    }
    Ok(0)
}

/// The configured remotes, in config order.
fn remote_names(repo: &Repo<'_>) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for (k, _) in &repo.config.entries {
        if let Some(rest) = k.strip_prefix("remote.")
            && let Some(name) = rest.strip_suffix(".url")
            && !names.iter().any(|n| n == name)
        {
            names.push(name.to_string());
        }
    }
    names
}

/// `git pull [-q] [--rebase|--no-rebase] [--ff-only] [--no-edit] [REMOTE [BRANCH]]`.
pub fn pull(g: &mut G<'_, '_>) -> Result<i32> {
    let repo = g.repo()?;
    let args = split_short(&g.args, &[]);
    let (mut quiet, mut rebase, mut ff_only, mut no_rebase) = (false, None::<bool>, false, false);
    let mut operands = Vec::new();
    for a in &args {
        match a.as_str() {
            "-q" | "--quiet" => quiet = true,
            "-r" | "--rebase" => rebase = Some(true),
            "--no-rebase" => no_rebase = true,
            "--ff-only" => ff_only = true,
            "--no-edit" | "--ff" | "--no-ff" | "-v" | "--verbose" | "--progress" => {}
            s if s.starts_with('-') && s.len() > 1 => return Err(super::usage_error(s)),
            s => operands.push(s.to_string()),
        }
    }
    let name = operands
        .first()
        .cloned()
        .unwrap_or_else(|| default_remote(&repo));
    let remote = find_remote(&repo, &name);
    let current = repo.head_branch();
    let fetched = do_fetch(g, &repo, &remote, false, quiet)?;
    let wanted = match operands.get(1) {
        Some(b) => b.strip_prefix("refs/heads/").unwrap_or(b).to_string(),
        None => {
            let merge = current
                .as_ref()
                .and_then(|b| repo.config.get(&format!("branch.{b}.merge")));
            match merge {
                Some(m) => m.strip_prefix("refs/heads/").unwrap_or(m).to_string(),
                None => {
                    let _ = writeln!(
                        g.err,
                        "There is no tracking information for the current branch.\nPlease specify which branch you want to merge with.\nSee git-pull(1) for details.\n\n    git pull <remote> <branch>\n\nIf you wish to set tracking information for this branch you can do so with:\n\n    git branch --set-upstream-to={name}/<branch> {}\n",
                        current.as_deref().unwrap_or("<branch>")
                    );
                    return Ok(1);
                }
            }
        }
    };
    let Some(theirs) = fetched.branches.get(&wanted).copied() else {
        return Err(GitError::fatal(format!(
            "couldn't find remote ref {wanted}"
        )));
    };
    let pull_rebase = rebase.or_else(|| {
        super::config_get(g, Some(&repo), "pull.rebase")
            .map(|v| matches!(v.to_ascii_lowercase().as_str(), "true" | "yes" | "on" | "1"))
    });
    let ours = repo.head();
    let fast_forward = match ours {
        None => true,
        Some(o) => {
            let bases = super::log::merge_bases(&repo, &o, &theirs, &|| g.check())?;
            bases.contains(&o) || bases.contains(&theirs)
        }
    };
    if !fast_forward && ff_only {
        return Err(GitError::fatal("Not possible to fast-forward, aborting."));
    }
    let ff_config = super::config_get(g, Some(&repo), "pull.ff");
    if !fast_forward && !no_rebase && pull_rebase.is_none() && ff_config.is_none() {
        let _ = writeln!(
            g.err,
            "hint: You have divergent branches and need to specify how to reconcile them.\nhint: You can do so by running one of the following commands sometime before\nhint: your next pull:\nhint:\nhint:   git config pull.rebase false  # merge\nhint:   git config pull.rebase true   # rebase\nhint:   git config pull.ff only       # fast-forward only\nhint:\nhint: You can replace \"git config\" in the command above with \"git config --global\"\nhint: to set a default preference for all repositories. You can also pass --rebase,\nhint: --no-rebase, or --ff-only on the command line to override the configured default per\nhint: invocation.\nfatal: Need to specify how to reconcile divergent branches."
        );
        return Ok(128);
    }
    let hex = theirs.to_hex().to_string();
    let mut env: Vec<(String, String)> = g.env.to_vec();
    env.push(("GIT_REFLOG_ACTION".into(), "pull".into()));
    let mut sub_args: Vec<String> = Vec::new();
    if quiet {
        sub_args.push("-q".into());
    }
    let use_rebase = pull_rebase == Some(true) && !no_rebase;
    if !use_rebase {
        sub_args.push("--no-edit".into());
        sub_args.push("-m".into());
        sub_args.push(format!("Merge branch '{wanted}' of {}", remote.url));
    }
    sub_args.push(hex);
    let mut sub = G {
        args: sub_args,
        env: &env,
        cwd: g.cwd.clone(),
        fs: g.fs,
        control: g.control,
        out: &mut *g.out,
        err: &mut *g.err,
        stdin: &mut *g.stdin,
        exec: &mut *g.exec,
        err_first: &mut *g.err_first,
    };
    if use_rebase {
        super::rebase::rebase(&mut sub)
    } else {
        super::merge::merge(&mut sub)
    }
}

/// One ref a push moves: local source (`None` deletes) to the remote's name.
struct PushSpec {
    src: Option<ObjectId>,
    src_name: String,
    dst: String,
    force: bool,
}

fn full_branch(name: &str) -> String {
    if name.starts_with("refs/") {
        name.to_string()
    } else {
        format!("refs/heads/{name}")
    }
}

/// `git push [-q] [-u] [-f] [--tags] [-d] [REMOTE [REFSPEC...]]`.
pub fn push(g: &mut G<'_, '_>) -> Result<i32> {
    let repo = g.repo()?;
    let args = split_short(&g.args, &[]);
    let (mut quiet, mut upstream, mut force, mut tags, mut delete, mut all) =
        (false, false, false, false, false, false);
    let mut operands = Vec::new();
    for a in &args {
        match a.as_str() {
            "-q" | "--quiet" => quiet = true,
            "-u" | "--set-upstream" => upstream = true,
            "-f" | "--force" | "--force-with-lease" => force = true,
            "--tags" => tags = true,
            "-d" | "--delete" => delete = true,
            "--all" | "--branches" => all = true,
            "-v" | "--verbose" | "--progress" | "--no-verify" => {}
            s if s.starts_with("--force-with-lease=") => force = true,
            s if s.starts_with('-') && s.len() > 1 => return Err(super::usage_error(s)),
            s => operands.push(s.to_string()),
        }
    }
    let name = operands
        .first()
        .cloned()
        .unwrap_or_else(|| default_remote(&repo));
    let remote = find_remote(&repo, &name);
    if remote.name.is_none() && !g.fs.exists(&remote.path) && operands.is_empty() {
        return Err(GitError::Raw(
            "fatal: No configured push destination.\nEither specify the URL from the command-line or configure a remote repository using\n\n    git remote add <name> <url>\n\nand then push using the remote name\n\n    git push <name>".into(),
            128,
        ));
    }
    let dst = open_remote(g, &remote)?;
    let mut specs: Vec<PushSpec> = Vec::new();
    for s in operands.iter().skip(1) {
        let (force_one, s) = match s.strip_prefix('+') {
            Some(r) => (true, r),
            None => (false, s.as_str()),
        };
        let (src, dst_name) = match s.split_once(':') {
            Some((a, b)) => (a.to_string(), b.to_string()),
            None => (s.to_string(), s.to_string()),
        };
        if delete || src.is_empty() {
            specs.push(PushSpec {
                src: None,
                src_name: String::new(),
                dst: full_branch(&dst_name),
                force: true,
            });
            continue;
        }
        let src_name = if src == "HEAD" {
            repo.head_branch().unwrap_or_else(|| "HEAD".into())
        } else {
            src.clone()
        };
        let dst_name = if dst_name == "HEAD" {
            src_name.clone()
        } else {
            dst_name
        };
        let id = super::rev_opt(&repo, &src)?.ok_or_else(|| {
            GitError::Raw(
                format!("error: src refspec {src} does not match any\nerror: failed to push some refs to '{}'", remote.url),
                1,
            )
        })?;
        let dst_full =
            if repo.ref_exists(&format!("refs/tags/{src}")) && !dst_name.starts_with("refs/") {
                format!("refs/tags/{dst_name}")
            } else {
                full_branch(&dst_name)
            };
        specs.push(PushSpec {
            src: Some(id),
            src_name,
            dst: dst_full,
            force: force || force_one,
        });
    }
    if all {
        for (n, id) in repo.refs("refs/heads/") {
            let b = n["refs/heads/".len()..].to_string();
            specs.push(PushSpec {
                src: Some(id),
                src_name: b,
                dst: n,
                force,
            });
        }
    }
    if tags {
        for (n, id) in repo.refs("refs/tags/") {
            let t = n["refs/tags/".len()..].to_string();
            specs.push(PushSpec {
                src: Some(id),
                src_name: t,
                dst: n,
                force,
            });
        }
    }
    if specs.is_empty() && !tags {
        let Some(b) = repo.head_branch() else {
            return Err(GitError::fatal(
                "You are not currently on a branch.\nTo push the history leading to the current (detached HEAD)\nstate now, use\n\n    git push <remote> HEAD:<name-of-remote-branch>\n",
            ));
        };
        let has_upstream = repo.config.get(&format!("branch.{b}.merge")).is_some();
        if !has_upstream && !upstream {
            return Err(GitError::fatal(format!(
                "The current branch {b} has no upstream branch.\nTo push the current branch and set the remote as upstream, use\n\n    git push --set-upstream {name} {b}\n\nTo have this happen automatically for branches without a tracking\nupstream, see 'push.autoSetupRemote' in 'git help config'.\n"
            )));
        }
        let merge = repo
            .config
            .get(&format!("branch.{b}.merge"))
            .map(str::to_string)
            .unwrap_or_else(|| format!("refs/heads/{b}"));
        let id = repo.head().ok_or_else(|| {
            GitError::Raw(format!("error: src refspec {b} does not match any"), 1)
        })?;
        specs.push(PushSpec {
            src: Some(id),
            src_name: b,
            dst: merge,
            force,
        });
    }
    let mut report = Vec::new();
    let mut failed = false;
    for s in &specs {
        g.check()?;
        let old = dst.resolve_ref(&s.dst);
        let short = s
            .dst
            .strip_prefix("refs/heads/")
            .or_else(|| s.dst.strip_prefix("refs/tags/"))
            .unwrap_or(&s.dst)
            .to_string();
        let Some(new) = s.src else {
            if old.is_none() {
                report.push(format!(
                    " ! [remote rejected] {short} (remote ref does not exist)"
                ));
                failed = true;
                continue;
            }
            dst.delete_ref(&s.dst)?;
            if let Some(r) = &remote.name {
                let _ = repo.delete_ref(&format!("refs/remotes/{r}/{short}"));
            }
            report.push(format!(" - [deleted]         {short}"));
            continue;
        };
        if old == Some(new) {
            continue;
        }
        if !dst.bare && dst.head_ref().as_deref() == Some(s.dst.as_str()) {
            report.push(format!(
                " ! [remote rejected] {} -> {short} (branch is currently checked out)",
                s.src_name
            ));
            let _ = writeln!(
                g.err,
                "remote: error: refusing to update checked out branch: {}",
                s.dst
            );
            failed = true;
            continue;
        }
        copy_objects(g, &repo, &dst, &[new])?;
        if let Some(o) = old
            && !s.force
            && s.dst.starts_with("refs/heads/")
        {
            let known = repo.has_object(&o);
            let ff = known && super::log::merge_bases(&repo, &o, &new, &|| g.check())?.contains(&o);
            if !ff {
                let why = if known {
                    "non-fast-forward"
                } else {
                    "fetch first"
                };
                report.push(format!(
                    " ! [rejected]        {} -> {short} ({why})",
                    s.src_name
                ));
                failed = true;
                continue;
            }
        }
        dst.set_ref(&s.dst, &new)?;
        let how = match old {
            None if s.dst.starts_with("refs/tags/") => " * [new tag]         ".to_string(),
            None => " * [new branch]      ".to_string(),
            Some(o) => format!("   {}..{}  ", repo.abbrev(&o), repo.abbrev(&new)),
        };
        report.push(format!("{how}{} -> {short}", s.src_name));
        if let Some(r) = &remote.name
            && s.dst.starts_with("refs/heads/")
        {
            repo.set_ref(&format!("refs/remotes/{r}/{short}"), &new)?;
            if upstream {
                set_config(&repo, &format!("branch.{}.remote", s.src_name), r)?;
                set_config(&repo, &format!("branch.{}.merge", s.src_name), &s.dst)?;
                if !quiet {
                    let _ = writeln!(
                        g.out,
                        "branch '{}' set up to track '{r}/{short}'.",
                        s.src_name
                    );
                }
            }
        }
    }
    if report.is_empty() && !failed {
        if !quiet {
            let _ = writeln!(g.err, "Everything up-to-date");
        }
        return Ok(0);
    }
    if !quiet || failed {
        let _ = writeln!(g.err, "To {}", remote.url);
        for l in &report {
            let _ = writeln!(g.err, "{l}");
        }
    }
    if failed {
        let _ = writeln!(g.err, "error: failed to push some refs to '{}'", remote.url);
        return Ok(1);
    }
    Ok(0)
}

/// `git ls-remote [--heads] [--tags] [REMOTE]`.
pub fn ls_remote(g: &mut G<'_, '_>) -> Result<i32> {
    let (mut heads, mut tags) = (false, false);
    let mut operands = Vec::new();
    for a in g.args.clone() {
        match a.as_str() {
            "--heads" | "-h" | "--branches" | "-b" => heads = true,
            "--tags" | "-t" => tags = true,
            "-q" | "--quiet" | "--refs" => {}
            s if s.starts_with('-') && s.len() > 1 => return Err(super::usage_error(s)),
            s => operands.push(s.to_string()),
        }
    }
    let remote = match g.repo() {
        Ok(repo) => {
            let name = operands
                .first()
                .cloned()
                .unwrap_or_else(|| default_remote(&repo));
            find_remote(&repo, &name)
        }
        Err(e) => match operands.first() {
            Some(u) => Remote {
                name: None,
                url: u.clone(),
                path: url_path(&g.cwd, u),
            },
            None => return Err(e),
        },
    };
    let src = open_remote(g, &remote)?;
    if !heads
        && !tags
        && let Some(h) = src.head()
    {
        let _ = writeln!(g.out, "{}\tHEAD", h.to_hex());
    }
    for (n, id) in src.refs("refs/") {
        let keep = (!heads && !tags)
            || (heads && n.starts_with("refs/heads/"))
            || (tags && n.starts_with("refs/tags/"));
        if !keep {
            continue;
        }
        let _ = writeln!(g.out, "{}\t{n}", id.to_hex());
        if n.starts_with("refs/tags/")
            && let Ok(p) = super::peel_tag(&src, &id)
            && p != id
        {
            let _ = writeln!(g.out, "{}\t{n}^{{}}", p.to_hex());
        }
    }
    Ok(0)
}
