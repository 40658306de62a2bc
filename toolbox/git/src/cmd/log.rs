//! History: `log`, `rev-list`, `show`, `merge-base`; commit walking in
//! git's default order (newest committer date first), the log filters and
//! option parsing. The formats are in [`super::pretty`], `rev-parse` in
//! [`super::rev_parse`].

use std::collections::{BTreeMap, HashSet};
use std::io::Write;

use bstr::ByteSlice;
use gix_hash::ObjectId;

use super::diffcmd::{Output, output_option};
use super::pretty::{
    DateStyle, LogOpts, Pretty, fmt_date, parse_pretty, render_commit, separates, write_commit,
};
use super::{G, peel_to_commit, rev, rev_opt, split_short};
use crate::diff;
use crate::error::{GitError, Result};
use crate::repo::Repo;
use crate::worktree::Pathspec;

/// Commits reachable from `starts` but not from `hidden`, newest first
/// (committer date, then the order they were found).
pub fn walk(
    g: &G<'_, '_>,
    repo: &Repo<'_>,
    starts: &[ObjectId],
    hidden: &[ObjectId],
    first_parent: bool,
) -> Result<Vec<ObjectId>> {
    let mut excluded: HashSet<ObjectId> = HashSet::new();
    let mut stack: Vec<ObjectId> = hidden.to_vec();
    while let Some(id) = stack.pop() {
        if excluded.insert(id) {
            g.check()?;
            stack.extend(repo.commit(&id)?.parents.iter().copied());
        }
    }
    let mut seen: HashSet<ObjectId> = HashSet::new();
    // (time, sequence) -> id; pop the newest, ties in insertion order.
    let mut queue: BTreeMap<(std::cmp::Reverse<i64>, u64), (ObjectId, gix_object::Commit)> =
        BTreeMap::new();
    let mut seq = 0u64;
    for s in starts {
        if seen.insert(*s) && !excluded.contains(s) {
            let c = repo.commit(s)?;
            queue.insert((std::cmp::Reverse(c.committer.time.seconds), seq), (*s, c));
            seq += 1;
        }
    }
    let mut out = Vec::new();
    while let Some((_, (id, c))) = queue.pop_first() {
        g.check()?;
        out.push(id);
        let parents: Vec<ObjectId> = if first_parent {
            c.parents.iter().take(1).copied().collect()
        } else {
            c.parents.to_vec()
        };
        for p in parents {
            if seen.insert(p) && !excluded.contains(&p) {
                let pc = repo.commit(&p)?;
                queue.insert((std::cmp::Reverse(pc.committer.time.seconds), seq), (p, pc));
                seq += 1;
            }
        }
    }
    Ok(out)
}

/// Decorations of each commit: ` (HEAD -> main, tag: v1, other)`.
fn decorations(repo: &Repo<'_>, full: bool) -> BTreeMap<ObjectId, Vec<String>> {
    let mut map: BTreeMap<ObjectId, Vec<String>> = BTreeMap::new();
    let head = repo.head();
    let head_branch = repo.head_ref();
    if let Some(h) = head {
        match &head_branch {
            Some(b) => map.entry(h).or_default().push(format!(
                "HEAD -> {}",
                if full {
                    b.as_str()
                } else {
                    b.strip_prefix("refs/heads/").unwrap_or(b)
                }
            )),
            None => map.entry(h).or_default().push("HEAD".into()),
        }
    }
    let mut rest: Vec<(String, ObjectId)> = Vec::new();
    for (name, id) in repo.refs("refs/tags/") {
        let target = super::peel_tag(repo, &id).unwrap_or(id);
        rest.push((
            format!("tag: {}", if full { &name[..] } else { &name[10..] }),
            target,
        ));
    }
    for (name, id) in repo.refs("refs/heads/") {
        if Some(&name) == head_branch.as_ref() {
            continue;
        }
        rest.push((
            if full {
                name.clone()
            } else {
                name[11..].to_string()
            },
            id,
        ));
    }
    // The stash and remote-tracking refs, as git shows them.
    for (name, id) in repo.refs("refs/remotes/") {
        rest.push((
            if full {
                name.clone()
            } else {
                name[13..].to_string()
            },
            id,
        ));
    }
    if let Some(id) = repo.resolve_ref("refs/stash") {
        rest.push(("refs/stash".to_string(), id));
    }
    for (name, id) in rest {
        map.entry(id).or_default().push(name);
    }
    map
}

/// Whether commit `id` changes a path `spec` selects (against its first parent).
fn touches(repo: &Repo<'_>, id: &ObjectId, spec: &Pathspec) -> Result<bool> {
    let c = repo.commit(id)?;
    let new = repo.flatten_tree(&c.tree)?;
    let keep = |p: &str| spec.matches(p);
    if c.parents.is_empty() {
        return Ok(new.keys().any(|p| keep(p)));
    }
    for p in &c.parents {
        let old = repo.commit_files(Some(p))?;
        let same = old
            .iter()
            .filter(|(k, _)| keep(k))
            .eq(new.iter().filter(|(k, _)| keep(k)));
        if same {
            return Ok(false);
        }
    }
    Ok(true)
}

/// What `log`/`show`/`rev-list` arguments parse into.
pub struct ParsedLog {
    /// How commits print.
    pub opts: LogOpts,
    /// Revisions (`A`, `A..B`, `A...B`, `^A`, `--all`).
    pub revs: Vec<String>,
    /// Paths after the revisions.
    pub paths: Vec<String>,
    /// `-n`.
    pub max: Option<usize>,
    /// `--skip`.
    pub skip: usize,
    /// `--reverse` (after `-n`, as git does).
    pub reverse: bool,
    /// `--first-parent`.
    pub first_parent: bool,
    /// `--graph`.
    pub graph: bool,
    /// `--left-right`.
    pub left_right: bool,
    /// Which commits are shown.
    pub filter: Filter,
    /// `--follow`: the one path followed through renames.
    pub follow: bool,
    /// `--decorate=full`: full ref names.
    pub decorate_full: bool,
}

/// The commit limiters of `log`/`rev-list`.
#[derive(Default)]
pub struct Filter {
    authors: Vec<String>,
    committers: Vec<String>,
    greps: Vec<String>,
    ignore_case: bool,
    invert_grep: bool,
    all_match: bool,
    fixed: bool,
    extended: bool,
    since: Option<String>,
    until: Option<String>,
    pickaxe_string: Option<String>,
    pickaxe_regex: Option<String>,
    /// `Some(true)`: merges only; `Some(false)`: no merges.
    merges: Option<bool>,
    /// `--min-parents=N` / `--max-parents=N`.
    parents: (Option<usize>, Option<usize>),
    diff_filter: Option<String>,
}

/// A [`Filter`] with its patterns compiled and dates read.
struct Compiled {
    authors: Vec<regex::bytes::Regex>,
    committers: Vec<regex::bytes::Regex>,
    greps: Vec<regex::bytes::Regex>,
    invert_grep: bool,
    all_match: bool,
    since: Option<i64>,
    until: Option<i64>,
    pickaxe_string: Option<Vec<u8>>,
    pickaxe_regex: Option<regex::bytes::Regex>,
    merges: Option<bool>,
    parents: (Option<usize>, Option<usize>),
    diff_filter: Option<String>,
}

impl Filter {
    fn is_empty(&self) -> bool {
        self.authors.is_empty()
            && self.committers.is_empty()
            && self.greps.is_empty()
            && self.since.is_none()
            && self.until.is_none()
            && self.pickaxe_string.is_none()
            && self.pickaxe_regex.is_none()
            && self.merges.is_none()
            && self.parents == (None, None)
            && self.diff_filter.is_none()
    }

    fn compile(&self, now: i64) -> Result<Compiled> {
        let re = |p: &str, fixed: bool| -> Result<regex::bytes::Regex> {
            let body = if fixed || self.fixed {
                regex::escape(p)
            } else if self.extended {
                p.to_string()
            } else {
                super::grepcmd::bre_to_ere(p)
            };
            regex::bytes::RegexBuilder::new(&body)
                .case_insensitive(self.ignore_case)
                .multi_line(true)
                .build()
                .map_err(|e| GitError::fatal(format!("invalid regular expression: {p}: {e}")))
        };
        let date = |d: &Option<String>| -> Result<Option<i64>> {
            match d {
                None => Ok(None),
                Some(v) => Ok(Some(super::dates::approxidate(v, now).ok_or_else(
                    || GitError::fatal(format!("invalid date format: {v}")),
                )?)),
            }
        };
        Ok(Compiled {
            authors: self
                .authors
                .iter()
                .map(|p| re(p, false))
                .collect::<Result<_>>()?,
            committers: self
                .committers
                .iter()
                .map(|p| re(p, false))
                .collect::<Result<_>>()?,
            greps: self
                .greps
                .iter()
                .map(|p| re(p, false))
                .collect::<Result<_>>()?,
            invert_grep: self.invert_grep,
            all_match: self.all_match,
            since: date(&self.since)?,
            until: date(&self.until)?,
            pickaxe_string: self.pickaxe_string.as_ref().map(|s| s.as_bytes().to_vec()),
            pickaxe_regex: self
                .pickaxe_regex
                .as_deref()
                .map(|p| re(p, false))
                .transpose()?,
            merges: self.merges,
            parents: self.parents,
            diff_filter: self.diff_filter.clone(),
        })
    }
}

/// `Name <email>` of a signature, what `--author`/`--committer` match.
fn ident(p: &gix_actor::Signature) -> Vec<u8> {
    let mut v = p.name.to_vec();
    v.extend_from_slice(b" <");
    v.extend_from_slice(&p.email);
    v.push(b'>');
    v
}

/// Non-overlapping occurrences of `needle` in `hay`.
fn occurrences(hay: &[u8], needle: &[u8]) -> usize {
    if needle.is_empty() {
        return 0;
    }
    let mut n = 0;
    let mut at = 0;
    while let Some(p) = hay[at..].find(needle) {
        n += 1;
        at += p + needle.len();
    }
    n
}

impl Compiled {
    /// Whether commit `id` passes every limiter.
    fn keeps(
        &self,
        repo: &Repo<'_>,
        id: &ObjectId,
        spec: &Pathspec,
        check: &dyn Fn() -> Result<()>,
    ) -> Result<bool> {
        let c = repo.commit(id)?;
        match self.merges {
            Some(true) if c.parents.len() < 2 => return Ok(false),
            Some(false) if c.parents.len() > 1 => return Ok(false),
            _ => {}
        }
        let n = c.parents.len();
        if self.parents.0.is_some_and(|m| n < m) || self.parents.1.is_some_and(|m| n > m) {
            return Ok(false);
        }
        if self.since.is_some_and(|s| c.committer.time.seconds < s)
            || self.until.is_some_and(|u| c.committer.time.seconds > u)
        {
            return Ok(false);
        }
        if !self.authors.is_empty() && !self.authors.iter().any(|r| r.is_match(&ident(&c.author))) {
            return Ok(false);
        }
        if !self.committers.is_empty()
            && !self
                .committers
                .iter()
                .any(|r| r.is_match(&ident(&c.committer)))
        {
            return Ok(false);
        }
        if !self.greps.is_empty() {
            let msg: &[u8] = &c.message;
            let hit = if self.all_match {
                self.greps.iter().all(|r| r.is_match(msg))
            } else {
                self.greps.iter().any(|r| r.is_match(msg))
            };
            if hit == self.invert_grep {
                return Ok(false);
            }
        }
        if self.pickaxe_string.is_none()
            && self.pickaxe_regex.is_none()
            && self.diff_filter.is_none()
        {
            return Ok(true);
        }
        // The diff limiters look at the change against the only parent;
        // git does not diff a merge for them.
        if c.parents.len() > 1 {
            return Ok(false);
        }
        let old = match c.parents.first() {
            Some(p) => diff::side_of(&repo.commit_files(Some(p))?),
            None => diff::Side::new(),
        };
        let new = diff::side_of(&repo.flatten_tree(&c.tree)?);
        let keep = |p: &str| spec.matches(p);
        let changes = if self.diff_filter.is_some() {
            diff::changes_with_renames(repo, &old, &new, &keep, check)?
        } else {
            diff::changes(&old, &new, &keep, false)
        };
        if let Some(letters) = &self.diff_filter {
            let (wanted, unwanted): (Vec<char>, Vec<char>) =
                letters.chars().partition(|c| c.is_ascii_uppercase());
            let any = changes.iter().any(|ch| {
                let l = ch.letter();
                (wanted.is_empty() || wanted.contains(&l))
                    && !unwanted.contains(&l.to_ascii_lowercase())
            });
            if !any {
                return Ok(false);
            }
        }
        if self.pickaxe_string.is_none() && self.pickaxe_regex.is_none() {
            return Ok(true);
        }
        for ch in &changes {
            check()?;
            let old = match &ch.old {
                Some(v) => diff::content(repo, ch.from.as_deref().unwrap_or(&ch.path), v)?,
                None => Vec::new(),
            };
            let new = match &ch.new {
                Some(v) => diff::content(repo, &ch.path, v)?,
                None => Vec::new(),
            };
            if let Some(needle) = &self.pickaxe_string {
                if occurrences(&old, needle) != occurrences(&new, needle) {
                    return Ok(true);
                }
                continue;
            }
            if let Some(re) = &self.pickaxe_regex {
                let old_lines: Vec<&[u8]> = old.lines().collect();
                let new_lines: Vec<&[u8]> = new.lines().collect();
                for h in diff::hunks(&old, &new, check)? {
                    let removed = &old_lines[h.before.start as usize..h.before.end as usize];
                    let added = &new_lines[h.after.start as usize..h.after.end as usize];
                    if removed.iter().chain(added).any(|l| re.is_match(l)) {
                        return Ok(true);
                    }
                }
            }
        }
        Ok(false)
    }
}

/// Applies the limiters, `--skip`, `-n` and `--reverse` to walked commits.
fn limit(
    g: &G<'_, '_>,
    repo: &Repo<'_>,
    ids: Vec<ObjectId>,
    p: &ParsedLog,
    spec: &Pathspec,
) -> Result<Vec<ObjectId>> {
    let mut ids = ids;
    if !p.filter.is_empty() {
        let compiled = p.filter.compile(g.control.clock.now().secs)?;
        let check = g.checker();
        let mut kept = Vec::new();
        for id in ids {
            check()?;
            if compiled.keeps(repo, &id, spec, &check)? {
                kept.push(id);
            }
        }
        ids = kept;
    }
    let mut ids: Vec<ObjectId> = ids.into_iter().skip(p.skip).collect();
    if let Some(m) = p.max {
        ids.truncate(m);
    }
    if p.reverse {
        ids.reverse();
    }
    Ok(ids)
}

fn parse_log_args(g: &mut G<'_, '_>, repo: &Repo<'_>, is_show: bool) -> Result<ParsedLog> {
    // `-<number>` is all digits in git (`-1p` is no count and no `-p`).
    if let Some(bad) = g
        .args
        .iter()
        .take_while(|a| *a != "--")
        .filter_map(|a| a.strip_prefix('-'))
        .find(|n| {
            n.starts_with(|c: char| c.is_ascii_digit()) && !n.chars().all(|c| c.is_ascii_digit())
        })
    {
        return Err(GitError::fatal(format!("'{bad}': not an integer")));
    }
    let args = split_short(&g.args, &['n', 'S', 'G']);
    let mut opts = LogOpts {
        pretty: Pretty::Medium,
        date: DateStyle::Default,
        diff: if is_show { Some(Output::Patch) } else { None },
        patch_too: false,
        decorate: false,
        abbrev_commit: false,
        combined_separator: is_show,
        abbrev: None,
        mark: None,
        now: g.control.clock.now().secs,
    };
    let mut p = ParsedLog {
        opts: LogOpts { ..opts.clone() },
        revs: Vec::new(),
        paths: Vec::new(),
        max: None,
        skip: 0,
        reverse: false,
        first_parent: false,
        graph: false,
        left_right: false,
        filter: Filter::default(),
        follow: false,
        decorate_full: false,
    };
    let mut dashdash = false;
    let mut negate = false;
    let mut i = 0;
    // The value of `--opt=V` or `--opt V`.
    let value = |a: &str, name: &str, i: &mut usize| -> Option<String> {
        if let Some(v) = a.strip_prefix(name).and_then(|r| r.strip_prefix('=')) {
            return Some(v.to_string());
        }
        if a == name {
            let v = args.get(*i).cloned();
            *i += 1;
            return v;
        }
        None
    };
    while i < args.len() {
        let a = args[i].clone();
        i += 1;
        if dashdash {
            p.paths.push(a);
            continue;
        }
        if let Some(o) = output_option(&a) {
            match (opts.diff, o) {
                (Some(Output::Stat), Output::Patch)
                | (Some(Output::NameStatus), Output::Patch)
                | (Some(Output::NameOnly), Output::Patch) => opts.patch_too = true,
                (Some(Output::Patch), o) if o != Output::Patch && !is_show => {
                    opts.diff = Some(o);
                    opts.patch_too = true;
                }
                _ => opts.diff = Some(o),
            }
            continue;
        }
        if let Some(n) = a.strip_prefix('-')
            && !n.is_empty()
            && n.chars().all(|c| c.is_ascii_digit())
        {
            p.max = n.parse().ok();
            continue;
        }
        let f = &mut p.filter;
        if let Some(v) = value(&a, "--author", &mut i) {
            f.authors.push(v);
            continue;
        }
        if let Some(v) = value(&a, "--committer", &mut i) {
            f.committers.push(v);
            continue;
        }
        if let Some(v) = value(&a, "--grep", &mut i) {
            f.greps.push(v);
            continue;
        }
        if let Some(v) = value(&a, "--since", &mut i)
            .or_else(|| value(&a, "--after", &mut i))
            .or_else(|| value(&a, "--since-as-filter", &mut i))
        {
            f.since = Some(v);
            continue;
        }
        if let Some(v) = value(&a, "--until", &mut i).or_else(|| value(&a, "--before", &mut i)) {
            f.until = Some(v);
            continue;
        }
        if let Some(v) = value(&a, "--skip", &mut i) {
            p.skip = v
                .parse()
                .map_err(|_| GitError::fatal(format!("'{v}': not an integer")))?;
            continue;
        }
        if let Some(v) = value(&a, "--diff-filter", &mut i) {
            f.diff_filter = Some(v);
            continue;
        }
        if let Some(v) = value(&a, "--max-count", &mut i) {
            p.max = v.parse().ok();
            continue;
        }
        if let Some(v) = a.strip_prefix("--abbrev=") {
            opts.abbrev = v.parse().ok();
            continue;
        }
        match a.as_str() {
            "--" => dashdash = true,
            "--not" => negate = !negate,
            "--follow" => p.follow = true,
            "--decorate=full" => {
                opts.decorate = true;
                p.decorate_full = true;
            }
            "-n" => {
                p.max = args.get(i).and_then(|v| v.parse().ok());
                i += 1;
            }
            "-S" => {
                f.pickaxe_string = args.get(i).cloned();
                i += 1;
            }
            "-G" => {
                f.pickaxe_regex = args.get(i).cloned();
                i += 1;
            }
            "-i" | "--regexp-ignore-case" => f.ignore_case = true,
            "--invert-grep" => f.invert_grep = true,
            "--all-match" => f.all_match = true,
            "-F" | "--fixed-strings" => f.fixed = true,
            "-E" | "--extended-regexp" => f.extended = true,
            "--basic-regexp" => f.extended = false,
            "--merges" => f.merges = Some(true),
            "--no-merges" => f.merges = Some(false),
            s if s.starts_with("--min-parents=") => f.parents.0 = s[14..].parse().ok(),
            s if s.starts_with("--max-parents=") => f.parents.1 = s[14..].parse().ok(),
            "--graph" => p.graph = true,
            "--left-right" => p.left_right = true,
            "--oneline" => {
                opts.pretty = Pretty::Oneline;
            }
            s if s.starts_with("--pretty=") || s.starts_with("--format=") => {
                opts.pretty = parse_pretty(&s[9..])
            }
            "--pretty" => opts.pretty = Pretty::Medium,
            s if s.starts_with("--date=") => {
                opts.date = match &s[7..] {
                    "iso" | "iso8601" => DateStyle::Iso,
                    "iso-strict" | "iso8601-strict" => DateStyle::IsoStrict,
                    "short" => DateStyle::Short,
                    "raw" => DateStyle::Raw,
                    "unix" => DateStyle::Unix,
                    "rfc" | "rfc2822" => DateStyle::Rfc,
                    "relative" => DateStyle::Relative(g.control.clock.now().secs),
                    "local" | "default-local" => DateStyle::Local,
                    "default" => DateStyle::Default,
                    other => match other
                        .strip_prefix("format:")
                        .or_else(|| other.strip_prefix("format-local:"))
                    {
                        Some(f) => DateStyle::Format(std::sync::Arc::from(f)),
                        None => {
                            return Err(GitError::fatal(format!("unknown date format {other}")));
                        }
                    },
                }
            }
            "--decorate" | "--decorate=short" => opts.decorate = true,
            "--no-decorate" => opts.decorate = false,
            "--abbrev-commit" => opts.abbrev_commit = true,
            "--no-abbrev-commit" => opts.abbrev_commit = false,
            "--no-abbrev" => {
                if opts.diff == Some(Output::Raw) {
                    opts.diff = Some(Output::RawFull);
                }
            }
            "--reverse" => p.reverse = true,
            "--first-parent" => p.first_parent = true,
            "--all" => p.revs.push("--all".into()),
            "--no-color" | "--no-walk" | "--topo-order" | "--date-order" | "--no-renames"
            | "-M" | "--color=never" | "--no-patch" => {}
            s if s.starts_with('-') => {
                return Err(GitError::fatal(format!("unrecognized argument: {s}")));
            }
            _ => {
                let base = a
                    .split("..")
                    .find(|s| !s.is_empty())
                    .unwrap_or("HEAD")
                    .trim_start_matches('^');
                if p.paths.is_empty() && rev_opt(repo, base).ok().flatten().is_some() {
                    if negate && !a.contains("..") {
                        p.revs.push(format!("^{}", a.trim_start_matches('^')));
                    } else {
                        p.revs.push(a);
                    }
                } else if g.fs.exists(&sandkeep_shell::Fs::resolve(&g.cwd, &a)) {
                    p.paths.push(a);
                } else {
                    return Err(rev(repo, &a)
                        .err()
                        .unwrap_or_else(|| GitError::fatal(format!("bad revision '{a}'"))));
                }
            }
        }
    }
    if matches!(opts.pretty, Pretty::Oneline) {
        opts.abbrev_commit = true;
    }
    p.opts = opts;
    Ok(p)
}

/// Turns revision arguments into (starts, hidden).
fn rev_range(
    repo: &Repo<'_>,
    revs: &[String],
    check: &dyn Fn() -> Result<()>,
) -> Result<(Vec<ObjectId>, Vec<ObjectId>)> {
    let mut starts = Vec::new();
    let mut hidden = Vec::new();
    for r in revs {
        if r == "--all" {
            starts.extend(super::all_ref_commits(repo));
            starts.extend(repo.head());
            continue;
        }
        if let Some((a, b)) = r.split_once("...") {
            let a = super::rev_commit(repo, if a.is_empty() { "HEAD" } else { a })?;
            let b = super::rev_commit(repo, if b.is_empty() { "HEAD" } else { b })?;
            starts.push(a);
            starts.push(b);
            hidden.extend(merge_bases(repo, &a, &b, check)?);
        } else if let Some((a, b)) = r.split_once("..") {
            hidden.push(super::rev_commit(
                repo,
                if a.is_empty() { "HEAD" } else { a },
            )?);
            starts.push(super::rev_commit(
                repo,
                if b.is_empty() { "HEAD" } else { b },
            )?);
        } else if let Some(x) = r.strip_prefix('^') {
            hidden.push(super::rev_commit(repo, x)?);
        } else {
            starts.push(super::rev_commit(repo, r)?);
        }
    }
    Ok((starts, hidden))
}

/// The commits `log`/`rev-list` print, in order.
fn selected(
    g: &G<'_, '_>,
    repo: &Repo<'_>,
    p: &ParsedLog,
    spec: &Pathspec,
) -> Result<Vec<ObjectId>> {
    let (starts, hidden) = if p.revs.is_empty() {
        match repo.head() {
            Some(h) => (vec![h], Vec::new()),
            None => {
                let b = repo.head_branch().unwrap_or_else(|| "HEAD".into());
                return Err(GitError::fatal(format!(
                    "your current branch '{b}' does not have any commits yet"
                )));
            }
        }
    } else {
        rev_range(repo, &p.revs, &|| g.check())?
    };
    let mut ids = walk(g, repo, &starts, &hidden, p.first_parent)?;
    if p.graph {
        ids = super::graph::topo_order(repo, &ids, &g.checker())?;
    }
    if p.follow && spec.items.len() == 1 {
        ids = follow(g, repo, ids, &spec.items[0])?;
    } else if !p.paths.is_empty() {
        let mut kept = Vec::new();
        for id in ids {
            g.check()?;
            if touches(repo, &id, spec)? {
                kept.push(id);
            }
        }
        ids = kept;
    }
    limit(g, repo, ids, p, spec)
}

/// `--follow PATH`: the commits that change the file, its name followed
/// back through each rename git detects (first parents).
fn follow(g: &G<'_, '_>, repo: &Repo<'_>, ids: Vec<ObjectId>, path: &str) -> Result<Vec<ObjectId>> {
    let mut cur = path.to_string();
    let mut kept = Vec::new();
    let check = g.checker();
    for id in ids {
        check()?;
        let c = repo.commit(&id)?;
        let new = repo.flatten_tree(&c.tree)?;
        let old = repo.commit_files(c.parents.first())?;
        if old.get(&cur) == new.get(&cur) {
            continue;
        }
        kept.push(id);
        if !old.contains_key(&cur) && new.contains_key(&cur) {
            let changes = diff::changes_with_renames(
                repo,
                &diff::side_of(&old),
                &diff::side_of(&new),
                &|_| true,
                &check,
            )?;
            match changes
                .iter()
                .find(|ch| ch.path == cur)
                .and_then(|ch| ch.from.clone())
            {
                Some(from) => cur = from,
                None => break,
            }
        }
    }
    Ok(kept)
}

/// The commits the revision arguments exclude (`^A`, `A..`, the merge
/// bases of `A...B`): the graph draws no line to them.
fn hidden_set(g: &G<'_, '_>, repo: &Repo<'_>, p: &ParsedLog) -> Result<HashSet<ObjectId>> {
    if p.revs.is_empty() {
        return Ok(HashSet::new());
    }
    let (_, hidden) = rev_range(repo, &p.revs, &|| g.check())?;
    Ok(walk(g, repo, &hidden, &[], false)?.into_iter().collect())
}

/// For `--left-right` over `A...B`: the commits reachable from `A`.
fn left_side(g: &G<'_, '_>, repo: &Repo<'_>, p: &ParsedLog) -> Result<HashSet<ObjectId>> {
    let mut left = HashSet::new();
    if !p.left_right {
        return Ok(left);
    }
    for r in &p.revs {
        if let Some((a, _)) = r.split_once("...") {
            let a = super::rev_commit(repo, if a.is_empty() { "HEAD" } else { a })?;
            left.extend(walk(g, repo, &[a], &[], false)?);
        }
    }
    Ok(left)
}

/// `git log [OPTIONS] [REVS] [-- PATHS]`.
pub fn log(g: &mut G<'_, '_>) -> Result<i32> {
    let repo = g.repo()?;
    let p = parse_log_args(g, &repo, false)?;
    let spec = Pathspec::new(&repo, &g.cwd, &p.paths)?;
    let ids = selected(g, &repo, &p, &spec)?;
    let decos = decorations(&repo, p.decorate_full);
    let left = left_side(g, &repo, &p)?;
    let mut opts = p.opts.clone();
    if p.graph {
        let hidden: HashSet<ObjectId> = hidden_set(g, &repo, &p)?;
        let mut graph = super::graph::Graph::new();
        for (n, id) in ids.iter().enumerate() {
            g.check()?;
            let c = repo.commit(id)?;
            let mut shown: Vec<ObjectId> = c
                .parents
                .iter()
                .filter(|p| !hidden.contains(*p))
                .copied()
                .collect();
            if p.first_parent {
                shown.truncate(1);
            }
            let mark = if p.left_right {
                if left.contains(id) { b'<' } else { b'>' }
            } else {
                b'*'
            };
            graph.update(*id, shown, mark);
            let (text, sep, diff) = render_commit(g, &repo, id, &opts, &decos, true, &spec)?;
            let mut out = Vec::new();
            graph.write_commit(
                &text,
                &diff,
                sep,
                n > 0 && separates(&opts.pretty),
                &mut out,
            );
            g.out.extend_from_slice(&out);
        }
        return Ok(0);
    }
    for (n, id) in ids.iter().enumerate() {
        // Printing (with patches) is the long part of a big log.
        g.check()?;
        opts.mark = if p.left_right {
            Some(if left.contains(id) { '<' } else { '>' })
        } else {
            None
        };
        write_commit(g, &repo, id, &opts, &decos, n == 0, &spec)?;
    }
    Ok(0)
}

/// `git rev-list [--count] [--left-right] [-n N] REVS`.
pub fn rev_list(g: &mut G<'_, '_>) -> Result<i32> {
    let count = g.args.iter().any(|a| a == "--count");
    let parents = g.args.iter().any(|a| a == "--parents");
    g.args.retain(|a| a != "--count" && a != "--parents");
    let repo = g.repo()?;
    let p = parse_log_args(g, &repo, false)?;
    if p.revs.is_empty() {
        return Err(GitError::Usage(
            "usage: git rev-list [<options>] <commit>... [--] [<path>...]".into(),
        ));
    }
    let spec = Pathspec::new(&repo, &g.cwd, &p.paths)?;
    let ids = selected(g, &repo, &p, &spec)?;
    let left = left_side(g, &repo, &p)?;
    if count {
        if p.left_right {
            let l = ids.iter().filter(|i| left.contains(*i)).count();
            let _ = writeln!(g.out, "{l}\t{}", ids.len() - l);
        } else {
            let _ = writeln!(g.out, "{}", ids.len());
        }
        return Ok(0);
    }
    let oneline = matches!(p.opts.pretty, Pretty::Oneline);
    for id in ids {
        if p.left_right {
            g.out.push(if left.contains(&id) { b'<' } else { b'>' });
        }
        if oneline {
            let c = repo.commit(&id)?;
            let _ = writeln!(
                g.out,
                "{} {}",
                repo.abbrev(&id),
                super::status::subject(&c.message.to_str_lossy())
            );
            continue;
        }
        let _ = write!(g.out, "{}", id.to_hex());
        if parents {
            for par in repo.commit(&id)?.parents {
                let _ = write!(g.out, " {}", par.to_hex());
            }
        }
        g.out.push(b'\n');
    }
    Ok(0)
}

/// `git show [OPTIONS] [OBJECT...]`.
pub fn show(g: &mut G<'_, '_>) -> Result<i32> {
    let repo = g.repo()?;
    let ParsedLog {
        opts, revs, paths, ..
    } = parse_log_args(g, &repo, true)?;
    let revs = if revs.is_empty() {
        vec!["HEAD".to_string()]
    } else {
        revs
    };
    let spec = Pathspec::new(&repo, &g.cwd, &paths)?;
    let decos = decorations(&repo, false);
    for (n, r) in revs.iter().enumerate() {
        let id = rev(&repo, r)?;
        let (kind, data) = repo.read_object(&id)?;
        match kind {
            gix_object::Kind::Commit => write_commit(g, &repo, &id, &opts, &decos, n == 0, &spec)?,
            gix_object::Kind::Blob => g.out.extend_from_slice(&data),
            gix_object::Kind::Tree => {
                let _ = writeln!(g.out, "tree {r}\n");
                for (name, mode, _) in repo.tree(&id)? {
                    let _ = writeln!(g.out, "{name}{}", if mode == 0o40000 { "/" } else { "" });
                }
            }
            gix_object::Kind::Tag => {
                let t = gix_object::TagRef::from_bytes(&data, crate::repo::HASH)
                    .map_err(|e| GitError::fatal(format!("tag {id} is corrupt: {e}")))?;
                let _ = writeln!(g.out, "tag {}", t.name);
                let oneline = matches!(opts.pretty, Pretty::Oneline | Pretty::OnelineFull);
                if oneline {
                    g.out.push(b'\n');
                } else if let Ok(Some(tagger)) = t.tagger() {
                    let time = tagger.time().unwrap_or_default();
                    let _ = writeln!(
                        g.out,
                        "Tagger: {} <{}>\nDate:   {}\n",
                        tagger.name,
                        tagger.email,
                        fmt_date(&time, &opts.date)
                    );
                }
                g.out.extend_from_slice(t.message);
                if !t.message.ends_with(b"\n") {
                    g.out.push(b'\n');
                }
                if !oneline {
                    g.out.push(b'\n');
                }
                let target = t.target();
                write_commit(
                    g,
                    &repo,
                    &peel_to_commit(&repo, &target)?,
                    &opts,
                    &decos,
                    true,
                    &spec,
                )?;
            }
        }
    }
    Ok(0)
}

/// The best common ancestors of two commits: the common ancestors no other
/// common ancestor reaches. One walk each for `a`'s and `b`'s ancestors and
/// one from the parents of the common ones (what they reach is not best),
/// with `check` asked per commit read.
pub fn merge_bases(
    repo: &Repo<'_>,
    a: &ObjectId,
    b: &ObjectId,
    check: &dyn Fn() -> Result<()>,
) -> Result<Vec<ObjectId>> {
    let reach = |starts: Vec<ObjectId>| -> Result<HashSet<ObjectId>> {
        let mut seen = HashSet::new();
        let mut stack = starts;
        while let Some(id) = stack.pop() {
            if seen.insert(id) {
                check()?;
                stack.extend(repo.commit(&id)?.parents.iter().copied());
            }
        }
        Ok(seen)
    };
    let aa = reach(vec![*a])?;
    let bb = reach(vec![*b])?;
    let common: HashSet<ObjectId> = aa.intersection(&bb).copied().collect();
    let mut parents = Vec::new();
    for c in &common {
        parents.extend(repo.commit(c)?.parents.iter().copied());
    }
    let dominated = reach(parents)?;
    let mut best: Vec<ObjectId> = common.difference(&dominated).copied().collect();
    best.sort();
    Ok(best)
}

/// `git merge-base A B`.
pub fn merge_base_cmd(g: &mut G<'_, '_>) -> Result<i32> {
    let repo = g.repo()?;
    let is_anc = g.args.iter().any(|a| a == "--is-ancestor");
    let revs: Vec<String> = g
        .args
        .iter()
        .filter(|a| !a.starts_with('-'))
        .cloned()
        .collect();
    if revs.len() != 2 {
        return Err(GitError::Usage(
            "usage: git merge-base <commit> <commit>".into(),
        ));
    }
    let a = super::rev_commit(&repo, &revs[0])?;
    let b = super::rev_commit(&repo, &revs[1])?;
    let bases = merge_bases(&repo, &a, &b, &|| g.check())?;
    if is_anc {
        return Ok(if bases.contains(&a) { 0 } else { 1 });
    }
    match bases.first() {
        Some(x) => {
            let _ = writeln!(g.out, "{}", x.to_hex());
            Ok(0)
        }
        None => Ok(1),
    }
}
