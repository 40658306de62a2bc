//! The subcommands: dispatch, the state every subcommand shares ([`G`]:
//! arguments, environment, output buffers, the repository), revision
//! parsing and identities.

mod apply;
mod basic;
mod bisect;
mod blame;
mod branch;
mod branch_list;
mod check_ignore;
mod clean;
mod combined;
mod dates;
mod describe;
mod diffcmd;
mod graph;
mod grepcmd;
mod log;
mod merge;
mod noindex;
mod patches;
mod pick;
mod plumbing;
mod pretty;
mod rebase;
mod rebase_todo;
mod reflog;
mod refs;
mod remote;
mod remotes;
mod resolve;
mod rev_parse;
mod shortlog;
mod stash;
mod status;
mod unknown;
mod usage;
mod worktrees;

use std::io::Write;

use gix_hash::ObjectId;
use sandkeep_shell::CommandCtx;
use sandkeep_shell::{Fs, RunControl};

use crate::error::{GitError, Result};
use crate::repo::Repo;

/// What one subcommand works with.
pub struct G<'a, 'o> {
    /// Arguments after the subcommand name.
    pub args: Vec<String>,
    /// The sandbox environment.
    pub env: &'a [(String, String)],
    /// Working directory.
    pub cwd: String,
    /// Virtual filesystem.
    pub fs: &'a Fs,
    /// Limits and cancellation.
    pub control: &'a RunControl,
    /// Stdout, flushed when the command ends.
    pub out: &'o mut Vec<u8>,
    /// Stderr, flushed when the command ends.
    pub err: &'o mut Vec<u8>,
    /// Standard input (`--stdin`, `apply`, `am`, `shortlog` from a pipe).
    pub stdin: &'o mut dyn std::io::Read,
    /// Runs other programs (`bisect run`).
    pub exec: &'o mut dyn sandkeep_shell::Exec,
    /// Whether what went to stderr reaches the stream before stdout (git's
    /// stdout waits in its buffer while `am` reports on stderr).
    pub err_first: &'o mut bool,
}

impl<'a> G<'a, '_> {
    /// An environment variable.
    pub fn getenv(&self, name: &str) -> Option<&'a str> {
        self.env
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The repository holding the working directory.
    pub fn repo(&self) -> Result<Repo<'a>> {
        let repo = Repo::discover(self.fs, &self.cwd, self.getenv("HOME"))?;
        self.set_reflog_ident(&repo);
        Ok(repo)
    }

    /// Gives `repo` the committer identity its reflog entries carry.
    pub fn set_reflog_ident(&self, repo: &Repo<'_>) {
        if let Ok(who) = signature(self, repo, "committer") {
            let mut raw = Vec::new();
            let _ = who.time.write_to(&mut raw);
            *repo.reflog_ident.borrow_mut() = Some(format!(
                "{} <{}> {}",
                who.name,
                who.email,
                String::from_utf8_lossy(&raw)
            ));
        }
    }

    /// Fails with [`GitError::Interrupted`] when the run's deadline passed
    /// or it was cancelled.
    pub fn check(&self) -> Result<()> {
        self.control.check().map_err(|_| GitError::Interrupted)
    }

    /// All of standard input.
    pub fn read_stdin(&mut self) -> Vec<u8> {
        let mut data = Vec::new();
        let _ = self.stdin.read_to_end(&mut data);
        data
    }

    /// [`G::check`] as a closure holding only the run's control block, for
    /// code that writes to `out` while it checks.
    pub fn checker(&self) -> impl Fn() -> Result<()> + use<'a> {
        let control = self.control;
        move || control.check().map_err(|_| GitError::Interrupted)
    }
}

/// git's answer to an option a subcommand does not know (status 129).
pub fn usage_error(opt: &str) -> GitError {
    match opt.strip_prefix("--") {
        Some(long) => GitError::Usage(format!(
            "error: unknown option `{}'",
            long.split('=').next().unwrap_or(long)
        )),
        None => GitError::Usage(format!(
            "error: unknown switch `{}'",
            opt.trim_start_matches('-').chars().next().unwrap_or('-')
        )),
    }
}

/// Splits `-abc` into `-a -b -c` for the commands whose short flags take no value.
pub fn split_short(args: &[String], with_value: &[char]) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = false;
    for a in args {
        if rest || a == "--" {
            rest = true;
            out.push(a.clone());
            continue;
        }
        if a.len() > 2 && a.starts_with('-') && !a.starts_with("--") {
            let chars: Vec<char> = a[1..].chars().collect();
            let mut i = 0;
            while i < chars.len() {
                if with_value.contains(&chars[i]) {
                    out.push(format!("-{}", chars[i]));
                    if i + 1 < chars.len() {
                        out.push(chars[i + 1..].iter().collect());
                    }
                    break;
                }
                out.push(format!("-{}", chars[i]));
                i += 1;
            }
        } else {
            out.push(a.clone());
        }
    }
    out
}

/// Entry point: runs `ctx.args[1..]`.
pub fn run(
    ctx: &mut CommandCtx<'_>,
    out: &mut Vec<u8>,
    err: &mut Vec<u8>,
    err_first: &mut bool,
) -> Result<i32> {
    let mut args: Vec<String> = ctx.args[1..].to_vec();
    let mut cwd = ctx.cwd.to_string();
    let mut config_overrides = Vec::new();
    // Global options before the subcommand.
    while let Some(first) = args.first().cloned() {
        match first.as_str() {
            "-C" if args.len() > 1 => {
                cwd = Fs::resolve(&cwd, &args[1]);
                args.drain(..2);
            }
            "-c" if args.len() > 1 => {
                config_overrides.push(args[1].clone());
                args.drain(..2);
            }
            "--no-pager" | "--no-optional-locks" | "-P" | "--literal-pathspecs" => {
                args.remove(0);
            }
            "--version" => {
                args[0] = "version".into();
                break;
            }
            "-h" | "--help" => {
                args[0] = "help".into();
                break;
            }
            _ => break,
        }
    }
    if args.is_empty() {
        let _ = writeln!(
            out,
            "usage: git [-C <path>] [-c <name>=<value>] <command> [<args>]\n\nThe local sandbox supports: {}",
            crate::SUBCOMMANDS.join(", ")
        );
        return Ok(1);
    }
    let name = args.remove(0);
    let mut extra_env: Vec<(String, String)> = ctx.env.to_vec();
    for o in &config_overrides {
        let (k, v) = o.split_once('=').unwrap_or((o.as_str(), "true"));
        extra_env.push((format!("GIT_CONFIG_OVERRIDE:{k}"), v.to_string()));
    }
    let mut g = G {
        args,
        env: &extra_env,
        cwd,
        fs: ctx.fs,
        control: ctx.control,
        out,
        err,
        stdin: &mut *ctx.stdin,
        exec: &mut *ctx.exec,
        err_first,
    };
    if !g
        .fs
        .metadata(&g.cwd)
        .is_ok_and(|m| m.kind == sandkeep_shell::FileKind::Dir)
    {
        return Err(GitError::fatal(format!(
            "cannot change to '{}': No such file or directory",
            g.cwd
        )));
    }
    let result = dispatch(&mut g, &name, 0);
    // An unknown option: git's synopsis of the subcommand follows.
    match result {
        Err(GitError::Usage(m)) if m.starts_with("error: unknown ") && !m.contains("\nusage:") => {
            match usage::synopsis(&name) {
                Some(syn) => Err(GitError::Usage(format!("{m}\n{}", syn.trim_end()))),
                None => Err(GitError::Usage(m)),
            }
        }
        other => other,
    }
}

/// Runs the subcommand `name` (an alias expands into another, at most a
/// few levels deep).
fn dispatch(g: &mut G<'_, '_>, name: &str, depth: usize) -> Result<i32> {
    match name {
        "init" => basic::init(g),
        "config" => basic::config(g),
        "add" => basic::add(g),
        "rm" => basic::rm(g),
        "mv" => basic::mv(g),
        "ls-files" => basic::ls_files(g),
        "cat-file" => basic::cat_file(g),
        "hash-object" => basic::hash_object(g),
        "write-tree" => basic::write_tree(g),
        "ls-tree" => basic::ls_tree(g),
        "status" => status::status(g),
        "commit" => status::commit(g),
        "diff" => diffcmd::diff(g),
        "log" => log::log(g),
        "rev-list" => log::rev_list(g),
        "show" => log::show(g),
        "blame" => blame::blame(g),
        "rev-parse" => rev_parse::rev_parse(g),
        "merge-base" => log::merge_base_cmd(g),
        "symbolic-ref" => branch::symbolic_ref(g),
        "update-ref" => branch::update_ref(g),
        "branch" => branch::branch(g),
        "switch" => branch::switch(g),
        "checkout" => branch::checkout(g),
        "restore" => branch::restore(g),
        "reset" => branch::reset(g),
        "tag" => branch::tag(g),
        "stash" => stash::stash(g),
        "merge" => merge::merge(g),
        "cherry-pick" => pick::run(g, pick::Action::Pick),
        "revert" => pick::run(g, pick::Action::Revert),
        "rebase" => rebase::rebase(g),
        "reflog" => reflog::reflog(g),
        "clone" => remote::clone(g),
        "fetch" => remote::fetch(g),
        "pull" => remote::pull(g),
        "push" => remote::push(g),
        "ls-remote" => remote::ls_remote(g),
        "update-index" => plumbing::update_index(g),
        "commit-tree" => plumbing::commit_tree(g),
        "archive" => plumbing::archive(g),
        "remote" => remotes::remote(g),
        "format-patch" => patches::format_patch(g),
        "am" => patches::am(g),
        "bisect" => bisect::bisect(g),
        "for-each-ref" => refs::for_each_ref(g),
        "show-ref" => refs::show_ref(g),
        "worktree" => worktrees::worktree(g),
        "fsck" => basic::fsck(g),
        "clean" => clean::clean(g),
        "grep" => grepcmd::grep(g),
        "apply" => apply::apply(g),
        "check-ignore" => check_ignore::check_ignore(g),
        "describe" => describe::describe(g),
        "shortlog" => shortlog::shortlog(g),
        "version" => {
            let _ = writeln!(g.out, "git version 2.47.3 (sandkeep)");
            Ok(0)
        }
        "help" => {
            let _ = writeln!(
                g.out,
                "git in the local sandbox. Commands: {}",
                crate::SUBCOMMANDS.join(", ")
            );
            Ok(0)
        }
        other => match alias(g, other) {
            Some(expansion) => run_alias(g, &expansion, depth),
            None => Ok(unknown::not_a_command(other, g.err)),
        },
    }
}

/// The value of `alias.NAME` (repository config over the global one).
fn alias(g: &G<'_, '_>, name: &str) -> Option<String> {
    let key = format!("alias.{name}");
    if let Some(v) = config_get(g, None, &key) {
        return Some(v);
    }
    match g.repo() {
        Ok(repo) => repo.config.get(&key).map(str::to_string),
        Err(_) => {
            let home = g.getenv("HOME")?;
            let data = g.fs.read(&crate::repo::join(home, ".gitconfig")).ok()?;
            crate::config::Config::parse(&data)
                .get(&key)
                .map(str::to_string)
        }
    }
}

/// Runs an alias: `!cmd` through the shell (with the arguments after it),
/// anything else as git with its words before the arguments.
fn run_alias(g: &mut G<'_, '_>, expansion: &str, depth: usize) -> Result<i32> {
    if depth > 8 {
        return Err(GitError::fatal(
            "alias loop detected: expansion of aliases goes too deep",
        ));
    }
    let args = std::mem::take(&mut g.args);
    if let Some(cmd) = expansion.strip_prefix('!') {
        let mut argv = vec!["sh".to_string(), "-c".to_string()];
        if args.is_empty() {
            argv.push(cmd.to_string());
        } else {
            argv.push(format!("{cmd} \"$@\""));
            argv.push(cmd.to_string());
            argv.extend(args);
        }
        let mut child_out = Vec::new();
        let mut child_err = Vec::new();
        let status = g.exec.exec(sandkeep_shell::ExecRequest {
            argv: &argv,
            env: &[],
            cwd: &g.cwd,
            stdin: &mut *g.stdin,
            stdout: &mut child_out,
            stderr: &mut child_err,
            mode: sandkeep_shell::ExecMode::Inherit,
        });
        g.out.extend_from_slice(&child_out);
        g.err.extend_from_slice(&child_err);
        return Ok(status);
    }
    let mut words = split_words(expansion);
    if words.is_empty() {
        return Err(GitError::fatal("empty alias"));
    }
    let name = words.remove(0);
    words.extend(args);
    g.args = words;
    dispatch(g, &name, depth + 1)
}

/// Splits an alias value into words (single and double quotes group).
fn split_words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut has = false;
    for c in s.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => cur.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                has = true;
            }
            (None, c) if c.is_whitespace() => {
                if has || !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                    has = false;
                }
            }
            (None, c) => cur.push(c),
        }
    }
    if has || !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// A config value: `-c` overrides first, then the repository's config.
pub fn config_get(g: &G<'_, '_>, repo: Option<&Repo<'_>>, key: &str) -> Option<String> {
    let canon = crate::config::canonical(key)?;
    for (k, v) in g.env.iter().rev() {
        if let Some(ok) = k.strip_prefix("GIT_CONFIG_OVERRIDE:")
            && crate::config::canonical(ok).as_deref() == Some(canon.as_str())
        {
            return Some(v.clone());
        }
    }
    repo.and_then(|r| r.config.get(key).map(str::to_string))
}

/// Whether paths with bytes past ASCII are printed quoted (git's
/// `core.quotePath`, on unless set false).
pub fn quote_non_ascii(g: &G<'_, '_>, repo: &Repo<'_>) -> bool {
    config_get(g, Some(repo), "core.quotePath")
        .map(|v| {
            !matches!(
                v.to_ascii_lowercase().as_str(),
                "false" | "no" | "off" | "0"
            )
        })
        .unwrap_or(true)
}

/// A person and time for a commit or tag.
pub fn signature(g: &G<'_, '_>, repo: &Repo<'_>, who: &str) -> Result<gix_actor::Signature> {
    let upper = who.to_ascii_uppercase();
    let name = g
        .getenv(&format!("GIT_{upper}_NAME"))
        .map(str::to_string)
        .or_else(|| config_get(g, Some(repo), "user.name"));
    let email = g
        .getenv(&format!("GIT_{upper}_EMAIL"))
        .map(str::to_string)
        .or_else(|| config_get(g, Some(repo), "user.email"))
        .or_else(|| g.getenv("EMAIL").map(str::to_string));
    let (Some(name), Some(email)) = (name, email) else {
        return Err(GitError::Raw(
            "Author identity unknown\n\n*** Please tell me who you are.\n\nRun\n\n  git config --global user.email \"you@example.com\"\n  git config --global user.name \"Your Name\"\n\nto set your account's default identity.\nOmit --global to set the identity only in this repository.\n\nfatal: unable to auto-detect email address".to_string(),
            128,
        ));
    };
    if name.trim().is_empty() {
        return Err(GitError::fatal("empty ident name (for <>) not allowed"));
    }
    let time = match g.getenv(&format!("GIT_{upper}_DATE")) {
        Some(d) => parse_date(d)?,
        None => now(g),
    };
    Ok(gix_actor::Signature {
        name: name.trim().into(),
        email: email
            .trim()
            .trim_start_matches('<')
            .trim_end_matches('>')
            .into(),
        time,
    })
}

/// The current time, UTC.
pub fn now(g: &G<'_, '_>) -> gix_date::Time {
    let t = g.control.clock.now();
    gix_date::Time::new(t.secs, 0)
}

/// Parses a date as git accepts it in `GIT_*_DATE` and `--date`.
pub fn parse_date(d: &str) -> Result<gix_date::Time> {
    let d = d.trim();
    // git's internal form: `<seconds> <offset>`.
    if let Some((s, off)) = d.split_once(' ')
        && let Ok(secs) = s.parse::<i64>()
        && let Some(t) = parse_offset(off)
    {
        return Ok(gix_date::Time::new(secs, t));
    }
    gix_date::parse(d, None).map_err(|_| GitError::fatal(format!("invalid date format: {d}")))
}

fn parse_offset(off: &str) -> Option<i32> {
    let b = off.as_bytes();
    if b.len() != 5 || !(b[0] == b'+' || b[0] == b'-') || !b[1..].iter().all(u8::is_ascii_digit) {
        return None;
    }
    let h: i32 = off[1..3].parse().ok()?;
    let m: i32 = off[3..5].parse().ok()?;
    let v = h * 3600 + m * 60;
    Some(if b[0] == b'-' { -v } else { v })
}

/// Resolves a revision (`HEAD~2`, `main^`, `v1^{tree}`, `abc123`, `HEAD:path`) to an object id.
pub fn rev(repo: &Repo<'_>, spec: &str) -> Result<ObjectId> {
    rev_opt(repo, spec)?.ok_or_else(|| {
        GitError::fatal(format!(
            "ambiguous argument '{spec}': unknown revision or path not in the working tree.\nUse '--' to separate paths from revisions, like this:\n'git <command> [<revision>...] -- [<file>...]'"
        ))
    })
}

/// Like [`rev`], `None` when nothing matches.
pub fn rev_opt(repo: &Repo<'_>, spec: &str) -> Result<Option<ObjectId>> {
    if let Some((r, path)) = spec.split_once(':')
        && !r.contains('{')
    {
        let base = if r.is_empty() { "HEAD" } else { r };
        let Some(commit) = rev_opt(repo, base)? else {
            return Ok(None);
        };
        let tree = peel_to_tree(repo, &commit)?;
        let path = path.trim_start_matches("./").trim_end_matches('/');
        if path.is_empty() {
            return Ok(Some(tree));
        }
        let mut cur = tree;
        for part in path.split('/') {
            let entries = repo.tree(&cur)?;
            match entries.iter().find(|(n, _, _)| n == part) {
                Some((_, _, id)) => cur = *id,
                None => {
                    return Err(GitError::fatal(format!(
                        "path '{path}' does not exist in '{r}'"
                    )));
                }
            }
        }
        return Ok(Some(cur));
    }
    // Split the base from its suffixes (~N, ^N, ^{...}).
    let cut = spec
        .char_indices()
        .find(|(i, c)| (*c == '~' || *c == '^') && *i > 0)
        .map(|(i, _)| i)
        .unwrap_or(spec.len());
    let (base, mut suffix) = spec.split_at(cut);
    let Some(mut id) = base_rev(repo, base)? else {
        return Ok(None);
    };
    while !suffix.is_empty() {
        if let Some(rest) = suffix.strip_prefix("^{") {
            let Some(end) = rest.find('}') else {
                return Ok(None);
            };
            let what = &rest[..end];
            suffix = &rest[end + 1..];
            id = match what {
                "" => peel_tag(repo, &id)?,
                "commit" => peel_to_commit(repo, &id)?,
                "tree" => peel_to_tree(repo, &id)?,
                _ => return Ok(None),
            };
            continue;
        }
        let (op, rest) = suffix.split_at(1);
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        suffix = &rest[digits.len()..];
        let n: usize = if digits.is_empty() {
            1
        } else {
            digits.parse().unwrap_or(usize::MAX)
        };
        id = peel_to_commit(repo, &id)?;
        if op == "~" {
            for _ in 0..n {
                match repo.commit(&id)?.parents.first() {
                    Some(p) => id = *p,
                    None => return Ok(None),
                }
            }
        } else if n > 0 {
            match repo.commit(&id)?.parents.get(n - 1) {
                Some(p) => id = *p,
                None => return Ok(None),
            }
        }
    }
    Ok(Some(id))
}

fn base_rev(repo: &Repo<'_>, base: &str) -> Result<Option<ObjectId>> {
    if let Some(found) = reflog::at_revision(repo, base) {
        return found;
    }
    if base == "HEAD" || base == "@" {
        return Ok(repo.head());
    }
    if let Some(branch) = base
        .strip_suffix("@{u}")
        .or_else(|| base.strip_suffix("@{upstream}"))
        .or_else(|| base.strip_suffix("@{U}"))
    {
        let full = upstream_of(repo, branch)?;
        return Ok(repo.resolve_ref(&full));
    }
    if let Some(n) = base
        .strip_prefix("stash@{")
        .and_then(|s| s.strip_suffix('}'))
    {
        let n: usize = n.parse().unwrap_or(usize::MAX);
        return Ok(stash::stash_entries(repo).get(n).map(|e| e.0));
    }
    if base == "ORIG_HEAD"
        || base == "MERGE_HEAD"
        || base == "CHERRY_PICK_HEAD"
        || base == "FETCH_HEAD"
    {
        return Ok(repo.resolve_ref(base));
    }
    for cand in [
        base.to_string(),
        format!("refs/{base}"),
        format!("refs/tags/{base}"),
        format!("refs/heads/{base}"),
        format!("refs/remotes/{base}"),
    ] {
        if cand.starts_with("refs/")
            && let Some(id) = repo.resolve_ref(&cand)
        {
            return Ok(Some(id));
        }
    }
    if base.len() == 40
        && let Ok(id) = ObjectId::from_hex(base.as_bytes())
        && repo.has_object(&id)
    {
        return Ok(Some(id));
    }
    let found = repo.ids_with_prefix(base);
    match found.len() {
        1 => Ok(Some(found[0])),
        0 => Ok(None),
        _ => Err(GitError::fatal(format!(
            "short object ID {base} is ambiguous"
        ))),
    }
}

/// The full name of the upstream of `branch` (`""`: the current one), from
/// `branch.<name>.remote`/`.merge`; git's error when there is none.
pub fn upstream_of(repo: &Repo<'_>, branch: &str) -> Result<String> {
    let name = if branch.is_empty() || branch == "HEAD" {
        repo.head_branch()
            .ok_or_else(|| GitError::fatal("HEAD does not point to a branch"))?
    } else {
        branch.to_string()
    };
    let merge = repo.config.get(&format!("branch.{name}.merge"));
    let remote = repo.config.get(&format!("branch.{name}.remote"));
    match (remote, merge) {
        (Some("."), Some(m)) => Ok(m.to_string()),
        (Some(r), Some(m)) => Ok(format!(
            "refs/remotes/{r}/{}",
            m.strip_prefix("refs/heads/").unwrap_or(m)
        )),
        _ => Err(GitError::fatal(format!(
            "no upstream configured for branch '{name}'"
        ))),
    }
}

/// The commits every ref points at (tags peeled; refs to other objects
/// left out), what `--all` starts from besides `HEAD`.
pub fn all_ref_commits(repo: &Repo<'_>) -> Vec<ObjectId> {
    repo.refs("refs/")
        .values()
        .filter_map(|id| peel_to_commit(repo, id).ok())
        .collect()
}

/// Peels tags until a non-tag object.
pub fn peel_tag(repo: &Repo<'_>, id: &ObjectId) -> Result<ObjectId> {
    let mut id = *id;
    for _ in 0..20 {
        let (kind, data) = repo.read_object(&id)?;
        if kind != gix_object::Kind::Tag {
            return Ok(id);
        }
        let t = gix_object::TagRef::from_bytes(&data, crate::repo::HASH)
            .map_err(|e| GitError::fatal(format!("tag {id} is corrupt: {e}")))?;
        id = t.target();
    }
    Ok(id)
}

/// Peels to a commit (tags followed).
pub fn peel_to_commit(repo: &Repo<'_>, id: &ObjectId) -> Result<ObjectId> {
    let id = peel_tag(repo, id)?;
    let (kind, _) = repo.read_object(&id)?;
    if kind != gix_object::Kind::Commit {
        return Err(GitError::fatal(format!("{} is not a commit", id.to_hex())));
    }
    Ok(id)
}

/// Peels to a tree (a commit's tree, tags followed).
pub fn peel_to_tree(repo: &Repo<'_>, id: &ObjectId) -> Result<ObjectId> {
    let id = peel_tag(repo, id)?;
    let (kind, _) = repo.read_object(&id)?;
    match kind {
        gix_object::Kind::Tree => Ok(id),
        gix_object::Kind::Commit => Ok(repo.commit(&id)?.tree),
        _ => Err(GitError::fatal(format!("{} is not a tree", id.to_hex()))),
    }
}

/// A commit revision (fatal when it is not one).
pub fn rev_commit(repo: &Repo<'_>, spec: &str) -> Result<ObjectId> {
    let id = rev(repo, spec)?;
    peel_to_commit(repo, &id)
}
