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
fn decorations(repo: &Repo<'_>) -> BTreeMap<ObjectId, Vec<String>> {
    let mut map: BTreeMap<ObjectId, Vec<String>> = BTreeMap::new();
    let head = repo.head();
    let head_branch = repo.head_ref();
    if let Some(h) = head {
        match &head_branch {
            Some(b) => map.entry(h).or_default().push(format!(
                "HEAD -> {}",
                b.strip_prefix("refs/heads/").unwrap_or(b)
            )),
            None => map.entry(h).or_default().push("HEAD".into()),
        }
    }
    let mut rest: Vec<(String, ObjectId)> = Vec::new();
    for (name, id) in repo.refs("refs/tags/") {
        let target = super::peel_tag(repo, &id).unwrap_or(id);
        rest.push((format!("tag: {}", &name[10..]), target));
    }
    for (name, id) in repo.refs("refs/heads/") {
        if Some(&name) == head_branch.as_ref() {
            continue;
        }
        rest.push((name[11..].to_string(), id));
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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DateStyle {
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

fn fmt_date(t: &gix_date::Time, style: DateStyle) -> String {
    use gix_date::time::format;
    match style {
        DateStyle::Default => t.format_or_unix(format::DEFAULT),
        DateStyle::Iso => t.format_or_unix(format::ISO8601),
        DateStyle::IsoStrict => t.format_or_unix(format::ISO8601_STRICT),
        DateStyle::Short => t.format_or_unix(format::SHORT),
        DateStyle::Raw => t.format_or_unix(format::RAW),
        DateStyle::Unix => t.seconds.to_string(),
        DateStyle::Rfc => t.format_or_unix(format::GIT_RFC2822),
    }
}

/// Options shared by log and show.
pub struct LogOpts {
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
    date: DateStyle,
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
                    'D' => out.push_str(&fmt_date(&p.time, DateStyle::Rfc)),
                    't' => out.push_str(&p.time.seconds.to_string()),
                    'i' => out.push_str(&fmt_date(&p.time, DateStyle::Iso)),
                    'I' => out.push_str(&fmt_date(&p.time, DateStyle::IsoStrict)),
                    's' => out.push_str(&fmt_date(&p.time, DateStyle::Short)),
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
    let hash = if opts.abbrev_commit {
        repo.abbrev(id)
    } else {
        id.to_hex().to_string()
    };
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
            s.push_str(&format_commit(repo, id, &c, f, opts.date, decos));
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
                        fmt_date(&c.author.time, opts.date)
                    ));
                    s.push_str(&format!("Commit:     {}\n", sig(&c.committer)));
                    s.push_str(&format!(
                        "CommitDate: {}\n",
                        fmt_date(&c.committer.time, opts.date)
                    ));
                }
                _ => {
                    s.push_str(&format!("Author: {}\n", sig(&c.author)));
                    s.push_str(&format!(
                        "Date:   {}\n",
                        fmt_date(&c.author.time, opts.date)
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
    g.out.extend_from_slice(s.as_bytes());
    if has_diff {
        let Some(how) = opts.diff else { return Ok(()) };
        if c.parents.len() > 1 {
            // git's combined diff of a clean merge prints only its separator.
            if opts.combined_separator {
                g.out.push(b'\n');
            }
            return Ok(());
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
            match &opts.pretty {
                Pretty::Oneline | Pretty::OnelineFull => {}
                Pretty::Format(f, _) if f.is_empty() => {}
                _ => g.out.push(b'\n'),
            }
            if matches!(how, Output::Stat | Output::NumStat | Output::ShortStat)
                && matches!(opts.pretty, Pretty::Format(_, _))
            {
                // git separates a tformat line from its stat with nothing more.
            }
            g.out.extend_from_slice(&buf);
        }
    }
    Ok(())
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

/// What `log`/`show` arguments parse into: options, revisions, paths,
/// `-n`, `--reverse`, `--first-parent`.
type ParsedLog = (LogOpts, Vec<String>, Vec<String>, Option<usize>, bool, bool);

fn parse_log_args(g: &mut G<'_, '_>, repo: &Repo<'_>, is_show: bool) -> Result<ParsedLog> {
    let args = split_short(&g.args, &['n']);
    let mut opts = LogOpts {
        pretty: Pretty::Medium,
        date: DateStyle::Default,
        diff: if is_show { Some(Output::Patch) } else { None },
        patch_too: false,
        decorate: false,
        abbrev_commit: false,
        combined_separator: is_show,
    };
    let mut revs = Vec::new();
    let mut paths = Vec::new();
    let mut max: Option<usize> = None;
    let mut reverse = false;
    let mut first_parent = false;
    let mut dashdash = false;
    let mut i = 0;
    while i < args.len() {
        let a = args[i].clone();
        i += 1;
        if dashdash {
            paths.push(a);
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
            max = n.parse().ok();
            continue;
        }
        match a.as_str() {
            "--" => dashdash = true,
            "-n" | "--max-count" => {
                max = args.get(i).and_then(|v| v.parse().ok());
                i += 1;
            }
            s if s.starts_with("--max-count=") => max = s[12..].parse().ok(),
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
                    _ => DateStyle::Default,
                }
            }
            "--decorate" | "--decorate=short" => opts.decorate = true,
            "--no-decorate" => opts.decorate = false,
            "--abbrev-commit" => opts.abbrev_commit = true,
            "--reverse" => reverse = true,
            "--first-parent" => first_parent = true,
            "--no-color" | "--graph" | "--all" | "--no-merges" | "--no-walk" | "--topo-order"
            | "--date-order" => {
                if a == "--all" {
                    revs.push("--all".into());
                }
            }
            s if s.starts_with('-') => {
                return Err(GitError::fatal(format!("unrecognized argument: {s}")));
            }
            _ => {
                let base = a
                    .split("..")
                    .find(|s| !s.is_empty())
                    .unwrap_or("HEAD")
                    .trim_start_matches('^');
                if paths.is_empty() && rev_opt(repo, base).ok().flatten().is_some() {
                    revs.push(a);
                } else if g.fs.exists(&sandkeep_shell::Fs::resolve(&g.cwd, &a)) {
                    paths.push(a);
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
    Ok((opts, revs, paths, max, reverse, first_parent))
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
            starts.extend(repo.refs("refs/heads/").values().copied());
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

/// `git log [OPTIONS] [REVS] [-- PATHS]`.
pub fn log(g: &mut G<'_, '_>) -> Result<i32> {
    let repo = g.repo()?;
    let (opts, revs, paths, max, reverse, first_parent) = parse_log_args(g, &repo, false)?;
    let (starts, hidden) = if revs.is_empty() {
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
        rev_range(&repo, &revs, &|| g.check())?
    };
    let spec = Pathspec::new(&repo, &g.cwd, &paths)?;
    let mut ids = walk(g, &repo, &starts, &hidden, first_parent)?;
    if !paths.is_empty() {
        let mut kept = Vec::new();
        for id in ids {
            g.check()?;
            if touches(&repo, &id, &spec)? {
                kept.push(id);
            }
        }
        ids = kept;
    }
    if let Some(m) = max {
        ids.truncate(m);
    }
    if reverse {
        ids.reverse();
    }
    let decos = decorations(&repo);
    for (n, id) in ids.iter().enumerate() {
        // Printing (with patches) is the long part of a big log.
        g.check()?;
        write_commit(g, &repo, id, &opts, &decos, n == 0, &spec)?;
    }
    Ok(0)
}

/// `git rev-list [--count] [-n N] REVS`.
pub fn rev_list(g: &mut G<'_, '_>) -> Result<i32> {
    let count = g.args.iter().any(|a| a == "--count");
    g.args.retain(|a| a != "--count");
    let repo = g.repo()?;
    let (_, revs, _, max, reverse, first_parent) = parse_log_args(g, &repo, false)?;
    let (starts, hidden) = rev_range(&repo, &revs, &|| g.check())?;
    let mut ids = walk(g, &repo, &starts, &hidden, first_parent)?;
    if let Some(m) = max {
        ids.truncate(m);
    }
    if reverse {
        ids.reverse();
    }
    if count {
        let _ = writeln!(g.out, "{}", ids.len());
    } else {
        for id in ids {
            let _ = writeln!(g.out, "{}", id.to_hex());
        }
    }
    Ok(0)
}

/// `git show [OPTIONS] [OBJECT...]`.
pub fn show(g: &mut G<'_, '_>) -> Result<i32> {
    let repo = g.repo()?;
    let (opts, revs, paths, _, _, _) = parse_log_args(g, &repo, true)?;
    let revs = if revs.is_empty() {
        vec!["HEAD".to_string()]
    } else {
        revs
    };
    let spec = Pathspec::new(&repo, &g.cwd, &paths)?;
    let decos = decorations(&repo);
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
                if let Ok(Some(tagger)) = t.tagger() {
                    let time = tagger.time().unwrap_or_default();
                    let _ = writeln!(
                        g.out,
                        "Tagger: {} <{}>\nDate:   {}\n",
                        tagger.name,
                        tagger.email,
                        fmt_date(&time, opts.date)
                    );
                }
                g.out.extend_from_slice(t.message);
                if !t.message.ends_with(b"\n") {
                    g.out.push(b'\n');
                }
                g.out.push(b'\n');
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
    let mut short: Option<usize> = None;
    let mut abbrev_ref = false;
    let mut verify = false;
    let mut quiet = false;
    let args = g.args.clone();
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
            "--symbolic-full-name" | "--" => {}
            _ => {
                let repo = g.repo()?;
                if abbrev_ref && (a == "HEAD" || a == "@") {
                    match repo.head_branch() {
                        Some(b) if repo.head().is_some() => {
                            let _ = writeln!(g.out, "{b}");
                        }
                        Some(_) => {
                            let _ = writeln!(g.out, "HEAD");
                            let _ = writeln!(
                                g.err,
                                "fatal: ambiguous argument 'HEAD': unknown revision or path not in the working tree."
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
                                let ab = repo.abbrev(&id);
                                let n = n.max(ab.len());
                                let _ = writeln!(g.out, "{}", &id.to_hex().to_string()[..n]);
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

/// `git blame FILE` (plain output): each line with the commit that last
/// changed it, following first parents.
pub fn blame(g: &mut G<'_, '_>) -> Result<i32> {
    let repo = g.repo()?;
    let rest: Vec<String> = g
        .args
        .iter()
        .filter(|a| !a.starts_with('-'))
        .cloned()
        .collect();
    let (rev_arg, file) = match rest.as_slice() {
        [f] => (None, f.clone()),
        [r, f] => (Some(r.clone()), f.clone()),
        _ => {
            return Err(GitError::Usage(
                "usage: git blame [<rev>] [--] <file>".into(),
            ));
        }
    };
    let path = Pathspec::new(&repo, &g.cwd, std::slice::from_ref(&file))?.items[0].clone();
    let start = match &rev_arg {
        Some(r) => super::rev_commit(&repo, r)?,
        None => repo
            .head()
            .ok_or_else(|| GitError::fatal("no such ref: HEAD"))?,
    };
    let blob_at = |c: &ObjectId| -> Result<Option<ObjectId>> {
        Ok(repo.commit_files(Some(c))?.get(&path).map(|v| v.1))
    };
    let Some(start_blob) = blob_at(&start)? else {
        return Err(GitError::fatal(format!("no such path '{path}' in HEAD")));
    };
    let content = repo.read_kind(&start_blob, gix_object::Kind::Blob)?;
    if rev_arg.is_none()
        && let Ok(work) = crate::worktree::file_content(&repo, &path)
        && work != content
    {
        return Err(GitError::fatal(
            "blame of uncommitted changes is not available in the local sandbox; commit or stash them first",
        ));
    }
    let n_lines = content.split_inclusive(|&b| b == b'\n').count();
    let mut owner: Vec<Option<ObjectId>> = vec![None; n_lines];
    // (final line, line in the current commit's version)
    let mut pending: Vec<(usize, usize)> = (0..n_lines).map(|i| (i, i)).collect();
    let mut current = start;
    let mut cur_blob = start_blob;
    let mut boundary: HashSet<ObjectId> = HashSet::new();
    while !pending.is_empty() {
        g.check()?;
        let c = repo.commit(&current)?;
        let parent = c.parents.first().copied();
        let parent_blob = match &parent {
            Some(p) => blob_at(p)?,
            None => None,
        };
        let (Some(p), Some(pb)) = (parent, parent_blob) else {
            if parent.is_none() {
                boundary.insert(current);
            }
            for (f, _) in pending.drain(..) {
                owner[f] = Some(current);
            }
            break;
        };
        if pb == cur_blob {
            current = p;
            continue;
        }
        let old = repo.read_kind(&pb, gix_object::Kind::Blob)?;
        let new = repo.read_kind(&cur_blob, gix_object::Kind::Blob)?;
        let hunks = diff::hunks(&old, &new, &|| g.check())?;
        let mut next = Vec::new();
        for (f, line) in pending.drain(..) {
            let l = line as u32;
            let mut delta: i64 = 0;
            let mut changed = false;
            for h in &hunks {
                if l >= h.after.end {
                    delta = h.before.end as i64 - h.after.end as i64;
                    continue;
                }
                if l >= h.after.start {
                    changed = true;
                }
                break;
            }
            if changed {
                owner[f] = Some(current);
            } else {
                next.push((f, (l as i64 + delta) as usize));
            }
        }
        pending = next;
        current = p;
        cur_blob = pb;
    }
    let mut infos: BTreeMap<ObjectId, gix_object::Commit> = BTreeMap::new();
    for id in owner.iter().flatten() {
        if !infos.contains_key(id) {
            infos.insert(*id, repo.commit(id)?);
        }
    }
    let name_w = owner
        .iter()
        .flatten()
        .map(|id| infos[id].author.name.to_str_lossy().chars().count())
        .max()
        .unwrap_or(0);
    let num_w = n_lines.to_string().len();
    for (i, (line, id)) in content
        .split_inclusive(|&b| b == b'\n')
        .zip(owner.iter())
        .enumerate()
    {
        let Some(id) = id else { continue };
        let c = &infos[id];
        let hex = id.to_hex().to_string();
        let shown = if boundary.contains(id) {
            format!("^{}", &hex[..7])
        } else {
            hex[..8].to_string()
        };
        let _ = write!(
            g.out,
            "{shown} ({:<name_w$} {} {:>num_w$}) ",
            c.author.name.to_str_lossy(),
            fmt_date(&c.author.time, DateStyle::Iso),
            i + 1
        );
        g.out.extend_from_slice(line);
        if !line.ends_with(b"\n") {
            g.out.push(b'\n');
        }
    }
    Ok(0)
}
