//! Listing refs as `branch`, `tag`, `for-each-ref` and `show-ref` do:
//! patterns, `--merged`/`--no-merged`/`--contains`/`--points-at`, `--sort`
//! keys (`refname`, `committerdate`, `creatordate`, `version:refname`,
//! `-` to reverse) and `--format` atoms.

use std::cmp::Ordering;
use std::collections::HashSet;
use std::io::Write;

use bstr::ByteSlice;
use gix_hash::ObjectId;

use super::log::walk;
use super::{G, peel_tag};
use crate::error::{GitError, Result};
use crate::repo::Repo;
use crate::worktree::wildmatch;

/// One listed ref.
pub struct RefItem {
    /// Full name (`refs/heads/main`).
    pub name: String,
    /// The object it points at.
    pub id: ObjectId,
}

impl RefItem {
    /// The name without `refs/heads/`, `refs/tags/`, `refs/remotes/`.
    pub fn short(&self) -> &str {
        for p in ["refs/heads/", "refs/tags/", "refs/remotes/", "refs/"] {
            if let Some(s) = self.name.strip_prefix(p) {
                return s;
            }
        }
        &self.name
    }
}

/// The filters and order of a listing.
#[derive(Default)]
pub struct Filter {
    /// Glob patterns on the short name (any matches).
    pub patterns: Vec<String>,
    /// `--merged REV`.
    pub merged: Vec<String>,
    /// `--no-merged REV`.
    pub no_merged: Vec<String>,
    /// `--contains REV`.
    pub contains: Vec<String>,
    /// `--no-contains REV`.
    pub no_contains: Vec<String>,
    /// `--points-at REV`.
    pub points_at: Vec<String>,
    /// `--sort` keys, last one first in importance.
    pub sort: Vec<String>,
}

impl Filter {
    /// Takes a listing option (`--merged`, `--sort=...`, ...) at `args[*i]`;
    /// whether it was one.
    pub fn take(&mut self, args: &[String], i: &mut usize) -> bool {
        let a = args[*i].as_str();
        let with_value = |name: &str, i: &mut usize| -> Option<Option<String>> {
            if let Some(v) = a.strip_prefix(name).and_then(|r| r.strip_prefix('=')) {
                return Some(Some(v.to_string()));
            }
            if a == name {
                let v = args.get(*i + 1).filter(|v| !v.starts_with('-')).cloned();
                if v.is_some() {
                    *i += 1;
                }
                return Some(v);
            }
            None
        };
        if let Some(v) = with_value("--merged", i) {
            self.merged.push(v.unwrap_or_else(|| "HEAD".into()));
        } else if let Some(v) = with_value("--no-merged", i) {
            self.no_merged.push(v.unwrap_or_else(|| "HEAD".into()));
        } else if let Some(v) = with_value("--contains", i) {
            self.contains.push(v.unwrap_or_else(|| "HEAD".into()));
        } else if let Some(v) = with_value("--no-contains", i) {
            self.no_contains.push(v.unwrap_or_else(|| "HEAD".into()));
        } else if let Some(v) = with_value("--points-at", i) {
            self.points_at.push(v.unwrap_or_else(|| "HEAD".into()));
        } else if let Some(v) = a.strip_prefix("--sort=") {
            self.sort.push(v.to_string());
        } else if a == "--sort" && args.get(*i + 1).is_some() {
            *i += 1;
            self.sort.push(args[*i].clone());
        } else {
            return false;
        }
        true
    }

    /// Whether a listing was asked for by these options alone.
    pub fn lists(&self) -> bool {
        !(self.merged.is_empty()
            && self.no_merged.is_empty()
            && self.contains.is_empty()
            && self.no_contains.is_empty()
            && self.points_at.is_empty())
    }
}

fn commit_of(repo: &Repo<'_>, id: &ObjectId) -> Option<ObjectId> {
    let p = peel_tag(repo, id).ok()?;
    repo.commit(&p).ok().map(|_| p)
}

fn reachable(g: &G<'_, '_>, repo: &Repo<'_>, rev: &str) -> Result<HashSet<ObjectId>> {
    let id = super::rev_commit(repo, rev)
        .map_err(|_| GitError::Raw(format!("error: malformed object name {rev}"), 129))?;
    Ok(walk(g, repo, &[id], &[], false)?.into_iter().collect())
}

/// git's `versioncmp`: digits compared as numbers.
pub fn version_cmp(a: &str, b: &str) -> Ordering {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i].is_ascii_digit() && b[j].is_ascii_digit() {
            let si = i;
            while i < a.len() && a[i].is_ascii_digit() {
                i += 1;
            }
            let sj = j;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            let na = a[si..i].trim_start_with(|c| c == '0');
            let nb = b[sj..j].trim_start_with(|c| c == '0');
            let o = na.len().cmp(&nb.len()).then_with(|| na.cmp(nb));
            if o != Ordering::Equal {
                return o;
            }
        } else {
            if a[i] != b[j] {
                return a[i].cmp(&b[j]);
            }
            i += 1;
            j += 1;
        }
    }
    (a.len() - i).cmp(&(b.len() - j))
}

/// The time a sort key orders by: the commit's (committerdate) or the
/// tagger's for annotated tags (creatordate).
fn date_of(repo: &Repo<'_>, id: &ObjectId, creator: bool) -> i64 {
    if let Ok((kind, data)) = repo.read_object(id) {
        if kind == gix_object::Kind::Tag {
            if creator
                && let Ok(t) = gix_object::TagRef::from_bytes(&data, crate::repo::HASH)
                && let Ok(Some(s)) = t.tagger()
            {
                return s.time().map(|t| t.seconds).unwrap_or(0);
            }
            if let Some(c) = commit_of(repo, id) {
                return repo
                    .commit(&c)
                    .map(|c| c.committer.time.seconds)
                    .unwrap_or(0);
            }
            return 0;
        }
        if kind == gix_object::Kind::Commit
            && let Ok(c) = repo.commit(id)
        {
            return c.committer.time.seconds;
        }
    }
    0
}

/// The refs under `prefix` that pass `f`, in its order.
pub fn list(g: &G<'_, '_>, repo: &Repo<'_>, prefixes: &[&str], f: &Filter) -> Result<Vec<RefItem>> {
    let mut items: Vec<RefItem> = Vec::new();
    for p in prefixes {
        for (name, id) in repo.refs(p) {
            items.push(RefItem { name, id });
        }
    }
    if !f.patterns.is_empty() {
        items.retain(|r| {
            f.patterns.iter().any(|p| {
                wildmatch(p.as_bytes(), r.short().as_bytes(), false)
                    || wildmatch(p.as_bytes(), r.name.as_bytes(), false)
            })
        });
    }
    for m in &f.merged {
        let set = reachable(g, repo, m)?;
        items.retain(|r| commit_of(repo, &r.id).is_some_and(|c| set.contains(&c)));
    }
    for m in &f.no_merged {
        let set = reachable(g, repo, m)?;
        items.retain(|r| commit_of(repo, &r.id).is_some_and(|c| !set.contains(&c)));
    }
    for (revs, want) in [(&f.contains, true), (&f.no_contains, false)] {
        for c in revs {
            let target = super::rev_commit(repo, c)?;
            let mut keep = Vec::new();
            for r in items {
                let has = match commit_of(repo, &r.id) {
                    Some(tip) => walk(g, repo, &[tip], &[], false)?.contains(&target),
                    None => false,
                };
                if has == want {
                    keep.push(r);
                }
            }
            items = keep;
        }
    }
    for p in &f.points_at {
        let target = super::rev(repo, p)?;
        items.retain(|r| r.id == target || peel_tag(repo, &r.id).ok() == Some(target));
    }
    // Sorted by name first; each key (the last given the most important) on top.
    items.sort_by(|a, b| a.name.cmp(&b.name));
    for key in &f.sort {
        let (rev, k) = match key.strip_prefix('-') {
            Some(k) => (true, k),
            None => (false, key.as_str()),
        };
        let cmp = |a: &RefItem, b: &RefItem| -> Ordering {
            match k {
                "refname" => a.name.cmp(&b.name),
                "version:refname" | "v:refname" => version_cmp(a.short(), b.short()),
                "committerdate" => date_of(repo, &a.id, false).cmp(&date_of(repo, &b.id, false)),
                "creatordate" | "taggerdate" | "authordate" => {
                    date_of(repo, &a.id, true).cmp(&date_of(repo, &b.id, true))
                }
                "objectname" => a.id.cmp(&b.id),
                _ => Ordering::Equal,
            }
        };
        items.sort_by(|a, b| {
            let o = cmp(a, b);
            if rev { o.reverse() } else { o }
        });
    }
    Ok(items)
}

/// Expands `%(atom)`s of `--format` for one ref.
pub fn format(g: &G<'_, '_>, repo: &Repo<'_>, r: &RefItem, fmt: &str) -> String {
    let mut out = String::new();
    let mut rest = fmt;
    while let Some(p) = rest.find("%(") {
        out.push_str(&rest[..p]);
        let after = &rest[p + 2..];
        let Some(end) = after.find(')') else {
            out.push_str(&rest[p..]);
            return out;
        };
        let atom = &after[..end];
        out.push_str(&atom_value(g, repo, r, atom));
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out.replace("%%", "%")
}

fn atom_value(g: &G<'_, '_>, repo: &Repo<'_>, r: &RefItem, atom: &str) -> String {
    let (kind, data) = repo
        .read_object(&r.id)
        .unwrap_or((gix_object::Kind::Blob, Vec::new()));
    let message: String = match kind {
        gix_object::Kind::Tag => gix_object::TagRef::from_bytes(&data, crate::repo::HASH)
            .map(|t| t.message.to_str_lossy().into_owned())
            .unwrap_or_default(),
        gix_object::Kind::Commit => repo
            .commit(&r.id)
            .map(|c| c.message.to_str_lossy().into_owned())
            .unwrap_or_default(),
        _ => String::new(),
    };
    match atom {
        "refname" => r.name.clone(),
        "refname:short" => r.short().to_string(),
        "objectname" => r.id.to_hex().to_string(),
        "objectname:short" => repo.abbrev(&r.id),
        "objecttype" => kind.to_string(),
        "subject" | "contents:subject" => super::status::subject(&message),
        "contents" => message,
        "HEAD" => {
            if repo.head_ref().as_deref() == Some(r.name.as_str()) {
                "*".into()
            } else {
                " ".into()
            }
        }
        "upstream" | "upstream:short" => {
            let b = r.name.strip_prefix("refs/heads/").unwrap_or("");
            match super::upstream_of(repo, b) {
                Ok(full) if atom == "upstream" => full,
                Ok(full) => full
                    .strip_prefix("refs/heads/")
                    .or_else(|| full.strip_prefix("refs/remotes/"))
                    .unwrap_or(&full)
                    .to_string(),
                Err(_) => String::new(),
            }
        }
        a if a.starts_with("committerdate")
            || a.starts_with("authordate")
            || a.starts_with("creatordate") =>
        {
            let t = date_of(repo, &r.id, a.starts_with("creator"));
            let style = match a.split_once(':').map(|x| x.1) {
                Some("short") => super::pretty::DateStyle::Short,
                Some("iso") => super::pretty::DateStyle::Iso,
                Some("unix") => super::pretty::DateStyle::Unix,
                Some("relative") => super::pretty::DateStyle::Relative(g.control.clock.now().secs),
                _ => super::pretty::DateStyle::Default,
            };
            super::pretty::fmt_date(&gix_date::Time::new(t, 0), &style)
        }
        "authorname" | "committername" | "taggername" => match repo.commit(&r.id) {
            Ok(c) if atom == "authorname" => c.author.name.to_string(),
            Ok(c) => c.committer.name.to_string(),
            Err(_) => String::new(),
        },
        _ => String::new(),
    }
}

/// `git for-each-ref [--format=F] [--sort=K] [--count=N] [PATTERN...]`.
pub fn for_each_ref(g: &mut G<'_, '_>) -> Result<i32> {
    let repo = g.repo()?;
    let args = g.args.clone();
    let mut f = Filter::default();
    let mut fmt: Option<String> = None;
    let mut count: Option<usize> = None;
    let mut prefixes: Vec<String> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        if f.take(&args, &mut i) {
            i += 1;
            continue;
        }
        let a = &args[i];
        if let Some(v) = a.strip_prefix("--format=") {
            fmt = Some(v.to_string());
        } else if a == "--format" {
            i += 1;
            fmt = args.get(i).cloned();
        } else if let Some(v) = a.strip_prefix("--count=") {
            count = v.parse().ok();
        } else if a.starts_with('-') {
            return Err(GitError::Usage(format!(
                "error: unknown option `{}'",
                a.trim_start_matches('-')
            )));
        } else {
            prefixes.push(a.clone());
        }
        i += 1;
    }
    let mut items = list(g, &repo, &["refs/"], &f)?;
    if !prefixes.is_empty() {
        items.retain(|r| {
            prefixes.iter().any(|p| {
                let p = p.trim_end_matches('/');
                r.name == p
                    || r.name.starts_with(&format!("{p}/"))
                    || wildmatch(p.as_bytes(), r.name.as_bytes(), true)
            })
        });
    }
    if let Some(n) = count {
        items.truncate(n);
    }
    for r in &items {
        let line = match &fmt {
            Some(f) => format(g, &repo, r, f),
            None => {
                let kind = repo
                    .read_object(&r.id)
                    .map(|(k, _)| k.to_string())
                    .unwrap_or_default();
                format!("{} {kind}\t{}", r.id.to_hex(), r.name)
            }
        };
        let _ = writeln!(g.out, "{line}");
    }
    Ok(0)
}

/// `git show-ref [--heads] [--tags] [-s] [PATTERN...]`.
pub fn show_ref(g: &mut G<'_, '_>) -> Result<i32> {
    let repo = g.repo()?;
    let (mut heads, mut tags, mut hash_only) = (false, false, false);
    let (mut verify, mut quiet, mut exists) = (false, false, false);
    let mut patterns = Vec::new();
    for a in super::split_short(&g.args, &[]) {
        match a.as_str() {
            "--heads" | "--branches" => heads = true,
            "--tags" => tags = true,
            "-s" | "--hash" => hash_only = true,
            "--verify" => verify = true,
            "-q" | "--quiet" => quiet = true,
            "--exists" => exists = true,
            s if s.starts_with('-') => {
                return Err(GitError::Usage(format!(
                    "error: unknown option `{}'",
                    s.trim_start_matches('-')
                )));
            }
            _ => patterns.push(a),
        }
    }
    if verify || exists {
        // Whole names only; the first missing one ends it.
        for p in &patterns {
            let id = if p == "HEAD" || p.starts_with("refs/") {
                repo.resolve_ref(p)
            } else {
                None
            };
            match id {
                Some(id) if !quiet && !exists => {
                    if hash_only {
                        let _ = writeln!(g.out, "{}", id.to_hex());
                    } else {
                        let _ = writeln!(g.out, "{} {p}", id.to_hex());
                    }
                }
                Some(_) => {}
                None if exists => {
                    let _ = writeln!(g.err, "error: reference does not exist");
                    return Ok(2);
                }
                None if quiet => return Ok(1),
                None => return Err(GitError::fatal(format!("'{p}' - not a valid ref"))),
            }
        }
        return Ok(0);
    }
    let mut prefixes = Vec::new();
    if heads {
        prefixes.push("refs/heads/");
    }
    if tags {
        prefixes.push("refs/tags/");
    }
    if prefixes.is_empty() {
        prefixes.push("refs/");
    }
    let items = list(g, &repo, &prefixes, &Filter::default())?;
    let mut found = false;
    for r in items {
        if !patterns.is_empty()
            && !patterns
                .iter()
                .any(|p| r.name == *p || r.name.ends_with(&format!("/{p}")))
        {
            continue;
        }
        found = true;
        if hash_only {
            let _ = writeln!(g.out, "{}", r.id.to_hex());
        } else {
            let _ = writeln!(g.out, "{} {}", r.id.to_hex(), r.name);
        }
    }
    Ok(if found { 0 } else { 1 })
}
