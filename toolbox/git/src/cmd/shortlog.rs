//! `shortlog`: commits grouped by author (or committer), names sorted, each
//! group's subjects oldest first; `-s` counts only, `-n` by count, `-e`
//! with emails. Without a revision it reads `git log` output from standard
//! input, as git does when its input is not a terminal.

use std::collections::BTreeMap;
use std::io::Write;

use bstr::ByteSlice;

use super::log::walk;
use super::{G, split_short};
use crate::error::{GitError, Result};

/// `git shortlog [-s] [-n] [-e] [-c] [REVS]`.
pub fn shortlog(g: &mut G<'_, '_>) -> Result<i32> {
    let args = split_short(&g.args, &[]);
    let (mut summary, mut numbered, mut email, mut committer) = (false, false, false, false);
    let mut revs = Vec::new();
    for a in args {
        match a.as_str() {
            "-s" | "--summary" => summary = true,
            "-n" | "--numbered" => numbered = true,
            "-e" | "--email" => email = true,
            "-c" | "--committer" => committer = true,
            "--no-merges" | "--" => {}
            s if s.starts_with('-') && s != "--all" => {
                return Err(GitError::Usage(format!(
                    "error: unknown option `{}'",
                    s.trim_start_matches('-')
                )));
            }
            _ => revs.push(a),
        }
    }
    // (who, subjects newest first)
    let mut groups: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let who = |name: &[u8], mail: &[u8]| {
        if email {
            format!("{} <{}>", name.to_str_lossy(), mail.to_str_lossy())
        } else {
            name.to_str_lossy().into_owned()
        }
    };
    if revs.is_empty() {
        let data = g.read_stdin();
        let mut author: Option<String> = None;
        let mut want_subject = false;
        for line in data.lines() {
            if let Some(rest) = line.strip_prefix(b"Author: ") {
                let (name, mail) = match rest.find(b" <") {
                    Some(p) => (&rest[..p], rest[p + 2..].trim_end_with(|c| c == '>')),
                    None => (rest, &b""[..]),
                };
                author = Some(who(name, mail));
                want_subject = true;
            } else if want_subject
                && let Some(subject) = line.strip_prefix(b"    ")
                && let Some(a) = &author
            {
                groups
                    .entry(a.clone())
                    .or_default()
                    .push(subject.to_str_lossy().into_owned());
                want_subject = false;
            }
        }
    } else {
        let repo = g.repo()?;
        let mut starts = Vec::new();
        let mut hidden = Vec::new();
        for r in &revs {
            if r == "--all" {
                starts.extend(super::all_ref_commits(&repo));
                starts.extend(repo.head());
            } else if let Some((a, b)) = r.split_once("..") {
                hidden.push(super::rev_commit(
                    &repo,
                    if a.is_empty() { "HEAD" } else { a },
                )?);
                starts.push(super::rev_commit(
                    &repo,
                    if b.is_empty() { "HEAD" } else { b },
                )?);
            } else if let Some(x) = r.strip_prefix('^') {
                hidden.push(super::rev_commit(&repo, x)?);
            } else {
                starts.push(super::rev_commit(&repo, r)?);
            }
        }
        for id in walk(g, &repo, &starts, &hidden, false)? {
            let c = repo.commit(&id)?;
            let p = if committer { &c.committer } else { &c.author };
            let subject = super::status::subject(&c.message.to_str_lossy());
            groups
                .entry(who(&p.name, &p.email))
                .or_default()
                .push(subject);
        }
    }
    let mut list: Vec<(String, Vec<String>)> = groups.into_iter().collect();
    if numbered {
        list.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then_with(|| a.0.cmp(&b.0)));
    }
    for (name, subjects) in list {
        if summary {
            let _ = writeln!(g.out, "{:6}\t{name}", subjects.len());
            continue;
        }
        let _ = writeln!(g.out, "{name} ({}):", subjects.len());
        for s in subjects.iter().rev() {
            let _ = writeln!(g.out, "      {s}");
        }
        let _ = writeln!(g.out);
    }
    Ok(0)
}
