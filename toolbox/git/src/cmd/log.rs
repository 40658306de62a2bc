//! History: `log`, `rev-list`, `show`, `rev-parse`, `merge-base`; commit
//! walking in git's default order (newest committer date first) and the
//! pretty formats (medium, oneline, short, full, fuller, raw-ish
//! `format:`/`tformat:` placeholders).

use std::collections::{BTreeMap, HashSet};
use std::io::Write;

use bstr::ByteSlice;
use gix_hash::ObjectId;

use super::diffcmd::{Output, output_option, print_changes};
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

/// How `log`/`show` print a commit.
#[derive(Clone, Debug)]
pub enum Pretty {
    /// The default.
    Medium,
    /// `--oneline`.
    Oneline,
    /// `--pretty=oneline`: the full id.
    OnelineFull,
    /// `--pretty=short`.
    Short,
    /// `--pretty=full`.
    Full,
    /// `--pretty=fuller`.
    Fuller,
    /// `--format=...` (`true`: terminator semantics, `tformat`).
    Format(String, bool),
}

fn parse_pretty(v: &str) -> Pretty {
    match v {
        "oneline" => Pretty::OnelineFull,
        "short" => Pretty::Short,
        "medium" => Pretty::Medium,
        "full" => Pretty::Full,
        "fuller" => Pretty::Fuller,
        s if s.starts_with("format:") => Pretty::Format(s[7..].to_string(), false),
        s if s.starts_with("tformat:") => Pretty::Format(s[8..].to_string(), true),
        s => Pretty::Format(s.to_string(), true),
    }
}

/// Date styles of `--date`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DateStyle {
    /// `--date=relative`, against this time (seconds).
    Relative(i64),
    /// `--date=format:...`.
    Format(std::sync::Arc<str>),
    /// `--date=local`: the default form in the sandbox's zone (UTC), no offset.
    Local,
    /// git's default.
    Default,
    /// `--date=iso`.
    Iso,
    /// `--date=iso-strict`.
    IsoStrict,
    /// `--date=short`.
    Short,
    /// `--date=raw`.
    Raw,
    /// `--date=unix`.
    Unix,
    /// `--date=rfc`.
    Rfc,
}

pub fn fmt_date(t: &gix_date::Time, style: &DateStyle) -> String {
    use gix_date::time::format;
    match style {
        DateStyle::Relative(now) => super::dates::relative(t, *now),
        DateStyle::Format(f) => super::dates::strftime(t, f),
        DateStyle::Local => {
            super::dates::strftime(&gix_date::Time::new(t.seconds, 0), "%a %b %-d %H:%M:%S %Y")
        }
        DateStyle::Default => t.format_or_unix(format::DEFAULT),
        DateStyle::Iso => t.format_or_unix(format::ISO8601),
        // git writes a zero offset as `Z`.
        DateStyle::IsoStrict if t.offset == 0 => {
            let s = t.format_or_unix(format::ISO8601_STRICT);
            match s.strip_suffix("+00:00") {
                Some(base) => format!("{base}Z"),
                None => s,
            }
        }
        DateStyle::IsoStrict => t.format_or_unix(format::ISO8601_STRICT),
        DateStyle::Short => t.format_or_unix(format::SHORT),
        DateStyle::Raw => t.format_or_unix(format::RAW),
        DateStyle::Unix => t.seconds.to_string(),
        DateStyle::Rfc => t.format_or_unix(format::GIT_RFC2822),
    }
}

/// Options shared by log and show.
#[derive(Clone)]
pub struct LogOpts {
    /// `--left-right`'s mark for the commit being written.
    pub mark: Option<char>,
    /// The time relative dates count from.
    pub now: i64,
    /// `--abbrev=N` for abbreviated ids.
    pub abbrev: Option<usize>,
    /// Commit format.
    pub pretty: Pretty,
    /// Date style.
    pub date: DateStyle,
    /// Diff output after each commit, if any.
    pub diff: Option<Output>,
    /// `--stat -p`.
    pub patch_too: bool,
    /// `--decorate`.
    pub decorate: bool,
    /// `--abbrev-commit` (medium etc).
    pub abbrev_commit: bool,
    /// `show` of a merge prints the (empty) combined diff's blank line.
    pub combined_separator: bool,
}

/// Subject and body of a message.
fn split_message(msg: &str) -> (String, String) {
    let subject = super::status::subject(msg);
    let mut lines = msg.lines();
    for l in lines.by_ref() {
        if l.trim().is_empty() {
            break;
        }
    }
    let body: Vec<&str> = lines.collect();
    let mut b = body.join("\n");
    let start = b.len() - b.trim_start_matches('\n').len();
    b.drain(..start);
    if !b.is_empty() {
        b.push('\n');
    }
    (subject, b)
}

/// Expands `--format` placeholders for one commit.
pub fn format_commit(
    repo: &Repo<'_>,
    id: &ObjectId,
    c: &gix_object::Commit,
    fmt: &str,
    date: &DateStyle,
    now: i64,
    decos: &BTreeMap<ObjectId, Vec<String>>,
) -> String {
    let msg = c.message.to_str_lossy().into_owned();
    let (subject, body) = split_message(&msg);
    let mut out = String::new();
    let chars: Vec<char> = fmt.chars().collect();
    let mut i = 0;
    let person = |who: char| if who == 'a' { &c.author } else { &c.committer };
    while i < chars.len() {
        if chars[i] != '%' || i + 1 >= chars.len() {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let n = chars[i + 1];
        i += 2;
        match n {
            '%' => out.push('%'),
            'n' => out.push('\n'),
            'H' => out.push_str(&id.to_hex().to_string()),
            'h' => out.push_str(&repo.abbrev(id)),
            'T' => out.push_str(&c.tree.to_hex().to_string()),
            't' => out.push_str(&repo.abbrev(&c.tree)),
            'P' => out.push_str(
                &c.parents
                    .iter()
                    .map(|p| p.to_hex().to_string())
                    .collect::<Vec<_>>()
                    .join(" "),
            ),
            'p' => out.push_str(
                &c.parents
                    .iter()
                    .map(|p| repo.abbrev(p))
                    .collect::<Vec<_>>()
                    .join(" "),
            ),
            's' => out.push_str(&subject),
            'b' => out.push_str(&body),
            'B' => out.push_str(&msg),
            'd' | 'D' => {
                if let Some(d) = decos.get(id) {
                    if n == 'd' {
                        out.push_str(&format!(" ({})", d.join(", ")));
                    } else {
                        out.push_str(&d.join(", "));
                    }
                }
            }
            'x' if i + 1 < chars.len() => {
                let hex: String = chars[i..i + 2].iter().collect();
                if let Ok(b) = u8::from_str_radix(&hex, 16) {
                    out.push(b as char);
                }
                i += 2;
            }
            'a' | 'c' if i < chars.len() => {
                let p = person(n);
                let f = chars[i];
                i += 1;
                match f {
                    'n' => out.push_str(&p.name.to_str_lossy()),
                    'e' => out.push_str(&p.email.to_str_lossy()),
                    'd' => out.push_str(&fmt_date(&p.time, date)),
                    'D' => out.push_str(&fmt_date(&p.time, &DateStyle::Rfc)),
                    'r' => out.push_str(&super::dates::relative(&p.time, now)),
                    't' => out.push_str(&p.time.seconds.to_string()),
                    'i' => out.push_str(&fmt_date(&p.time, &DateStyle::Iso)),
                    'I' => out.push_str(&fmt_date(&p.time, &DateStyle::IsoStrict)),
                    's' => out.push_str(&fmt_date(&p.time, &DateStyle::Short)),
                    _ => {
                        out.push('%');
                        out.push(n);
                        out.push(f);
                    }
                }
            }
            'C' => {
                // Colours: nothing when not on a terminal.
                if chars.get(i) == Some(&'(') {
                    while i < chars.len() && chars[i] != ')' {
                        i += 1;
                    }
                    i += 1;
                } else {
                    for name in ["reset", "red", "green", "blue"] {
                        let s: String = chars[i..].iter().take(name.len()).collect();
                        if s == name {
                            i += name.len();
                            break;
                        }
                    }
                }
            }
            other => {
                out.push('%');
                out.push(other);
            }
        }
    }
    out
}

fn indent_message(msg: &str, out: &mut String) {
    let lines: Vec<&str> = msg.trim_end_matches('\n').lines().collect();
    for l in lines {
        out.push_str("    ");
        out.push_str(&expand_tabs(l));
        out.push('\n');
    }
}

fn expand_tabs(l: &str) -> String {
    if !l.contains('\t') {
        return l.to_string();
    }
    let mut s = String::new();
    let mut col = 0;
    for ch in l.chars() {
        if ch == '\t' {
            let n = 8 - (col % 8);
            s.push_str(&" ".repeat(n));
            col += n;
        } else {
            s.push(ch);
            col += 1;
        }
    }
    s
}

/// Writes one commit in `opts`' format, followed by its diff.
fn write_commit(
    g: &mut G<'_, '_>,
    repo: &Repo<'_>,
    id: &ObjectId,
    opts: &LogOpts,
    decos: &BTreeMap<ObjectId, Vec<String>>,
    first: bool,
    spec: &Pathspec,
) -> Result<()> {
    let (text, separator, diff) = render_commit(g, repo, id, opts, decos, first, spec)?;
    g.out.extend_from_slice(&text);
    if separator {
        g.out.push(b'\n');
    }
    g.out.extend_from_slice(&diff);
    Ok(())
}

/// Whether commits in `pretty` are separated by a blank line (rather than
/// each ending in its own newline).
fn separates(pretty: &Pretty) -> bool {
    !matches!(
        pretty,
        Pretty::Oneline | Pretty::OnelineFull | Pretty::Format(_, true)
    )
}

/// One commit in `opts`' format: its text, whether a blank line comes
/// before its diff, and the diff.
fn render_commit(
    g: &G<'_, '_>,
    repo: &Repo<'_>,
    id: &ObjectId,
    opts: &LogOpts,
    decos: &BTreeMap<ObjectId, Vec<String>>,
    first: bool,
    spec: &Pathspec,
) -> Result<(Vec<u8>, bool, Vec<u8>)> {
    let c = repo.commit(id)?;
    let msg = c.message.to_str_lossy().into_owned();
    let mut s = String::new();
    let deco = if opts.decorate {
        decos
            .get(id)
            .map(|d| format!(" ({})", d.join(", ")))
            .unwrap_or_default()
    } else {
        String::new()
    };
    let mut hash = if opts.abbrev_commit {
        repo.abbrev_len(id, opts.abbrev.unwrap_or(7).clamp(4, 40))
    } else {
        id.to_hex().to_string()
    };
    if let Some(m) = opts.mark {
        hash = format!("{m} {hash}");
    }
    let sig = |p: &gix_actor::Signature| format!("{} <{}>", p.name, p.email);
    let has_diff = opts.diff.is_some_and(|d| d != Output::Nothing);
    match &opts.pretty {
        Pretty::Oneline | Pretty::OnelineFull => {
            s.push_str(&format!("{hash}{deco} {}\n", super::status::subject(&msg)));
        }
        Pretty::Format(f, tformat) => {
            if !first && !*tformat {
                s.push('\n');
            }
            s.push_str(&format_commit(repo, id, &c, f, &opts.date, opts.now, decos));
            if *tformat {
                s.push('\n');
            }
        }
        other => {
            if !first {
                s.push('\n');
            }
            s.push_str(&format!("commit {hash}{deco}\n"));
            if c.parents.len() > 1 {
                let ps: Vec<String> = c.parents.iter().map(|p| repo.abbrev(p)).collect();
                s.push_str(&format!("Merge: {}\n", ps.join(" ")));
            }
            match other {
                Pretty::Short => s.push_str(&format!("Author: {}\n", sig(&c.author))),
                Pretty::Full => {
                    s.push_str(&format!("Author: {}\n", sig(&c.author)));
                    s.push_str(&format!("Commit: {}\n", sig(&c.committer)));
                }
                Pretty::Fuller => {
                    s.push_str(&format!("Author:     {}\n", sig(&c.author)));
                    s.push_str(&format!(
                        "AuthorDate: {}\n",
                        fmt_date(&c.author.time, &opts.date)
                    ));
                    s.push_str(&format!("Commit:     {}\n", sig(&c.committer)));
                    s.push_str(&format!(
                        "CommitDate: {}\n",
                        fmt_date(&c.committer.time, &opts.date)
                    ));
                }
                _ => {
                    s.push_str(&format!("Author: {}\n", sig(&c.author)));
                    s.push_str(&format!(
                        "Date:   {}\n",
                        fmt_date(&c.author.time, &opts.date)
                    ));
                }
            }
            s.push('\n');
            if matches!(other, Pretty::Short) {
                s.push_str(&format!("    {}\n", super::status::subject(&msg)));
            } else {
                indent_message(&msg, &mut s);
            }
        }
    }
    let text = s.into_bytes();
    let mut diff_out = Vec::new();
    let mut separator = false;
    if has_diff {
        let Some(how) = opts.diff else {
            return Ok((text, false, diff_out));
        };
        if c.parents.len() > 1 {
            // git's combined diff of a clean merge prints only its separator.
            return Ok((text, opts.combined_separator, diff_out));
        }
        let old = match c.parents.first() {
            Some(p) => diff::side_of(&repo.commit_files(Some(p))?),
            None => diff::Side::new(),
        };
        let new = diff::side_of(&repo.flatten_tree(&c.tree)?);
        let keep = |p: &str| spec.matches(p);
        let check = g.checker();
        let changes = diff::changes_with_renames(repo, &old, &new, &keep, &check)?;
        let mut buf = Vec::new();
        print_changes(repo, &changes, how, opts.patch_too, &mut buf, &check)?;
        if !buf.is_empty() {
            separator = match &opts.pretty {
                Pretty::Oneline | Pretty::OnelineFull => false,
                Pretty::Format(f, _) => !f.is_empty(),
                _ => true,
            };
            diff_out = buf;
        }
    }
    Ok((text, separator, diff_out))
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
                g.repo()?;
                let _ = writeln!(g.out, "false");
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
