//! `format-patch` (one mail per commit: `From`, `Date`, `Subject: [PATCH
//! n/m]`, the message, a diffstat, the patch and git's signature) and `am`
//! (applying such mails in order, committing each with its author).

use std::io::Write;

use bstr::ByteSlice;
use gix_hash::ObjectId;

use super::apply::{ApplyOpts, apply_patch};
use super::diffcmd::{Output, print_changes};
use super::log::walk;
use super::merge::files_of;
use super::{G, split_short};
use crate::diff;
use crate::error::{GitError, Result};
use crate::repo::Repo;

/// The version git signs its patches with.
const SIGNATURE_VERSION: &str = "2.47.3";

/// git's `%f`: the subject with runs of other characters turned into `-`.
fn sanitized(subject: &str) -> String {
    let mut out = String::new();
    let mut space = 2;
    let chars: Vec<char> = subject.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_ascii_alphanumeric() || c == '.' || c == '_' {
            if space == 1 {
                out.push('-');
            }
            space = 0;
            out.push(c);
            if c == '.' {
                while chars.get(i + 1) == Some(&'.') {
                    i += 1;
                }
            }
        } else {
            space |= 1;
        }
        i += 1;
    }
    while out.ends_with(['.', '-']) {
        out.pop();
    }
    out
}

/// One commit as a mail.
fn mail(
    g: &G<'_, '_>,
    repo: &Repo<'_>,
    id: &ObjectId,
    n: usize,
    total: usize,
    numbered: bool,
) -> Result<Vec<u8>> {
    let c = repo.commit(id)?;
    let msg = c.message.to_str_lossy().into_owned();
    let subject = super::status::subject(&msg);
    let body: String = {
        let mut lines = msg.lines();
        for l in lines.by_ref() {
            if l.trim().is_empty() {
                break;
            }
        }
        let rest: Vec<&str> = lines.collect();
        rest.join("\n").trim_matches('\n').to_string()
    };
    let mut out = Vec::new();
    let _ = writeln!(out, "From {} Mon Sep 17 00:00:00 2001", id.to_hex());
    let _ = writeln!(out, "From: {} <{}>", c.author.name, c.author.email);
    let _ = writeln!(
        out,
        "Date: {}",
        c.author
            .time
            .format_or_unix(gix_date::time::format::GIT_RFC2822)
    );
    let prefix = if numbered {
        format!("[PATCH {n}/{total}]")
    } else {
        "[PATCH]".to_string()
    };
    let _ = writeln!(out, "Subject: {prefix} {subject}\n");
    if !body.is_empty() {
        let _ = writeln!(out, "{body}");
    }
    let _ = writeln!(out, "---");
    let old = diff::side_of(&files_of(repo, c.parents.first())?);
    let new = diff::side_of(&repo.flatten_tree(&c.tree)?);
    let check = g.checker();
    let changes = diff::changes_with_renames(repo, &old, &new, &|_| true, &check)?;
    let mut stat = Vec::new();
    print_changes(repo, &changes, Output::Stat, false, &mut stat, &check)?;
    out.extend_from_slice(&stat);
    let mut summary = Vec::new();
    super::status::write_modes_summary(&mut summary, &changes, true);
    out.extend_from_slice(&summary);
    out.push(b'\n');
    print_changes(repo, &changes, Output::Patch, false, &mut out, &check)?;
    let _ = writeln!(out, "-- \n{SIGNATURE_VERSION}\n");
    Ok(out)
}

/// `git format-patch [-N] [-o DIR] [--stdout] [-n] [--root] [REV | A..B]`.
pub fn format_patch(g: &mut G<'_, '_>) -> Result<i32> {
    let args = split_short(&g.args, &['o']);
    let mut count: Option<usize> = None;
    let mut dir: Option<String> = None;
    let (mut stdout, mut numbered, mut root) = (false, false, false);
    let mut revs = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        match a.as_str() {
            "-o" | "--output-directory" => {
                dir = args.get(i).cloned();
                i += 1;
            }
            s if s.starts_with("--output-directory=") => dir = Some(s[19..].to_string()),
            "--stdout" => stdout = true,
            "-n" | "--numbered" => numbered = true,
            "--root" => root = true,
            "-q" | "--quiet" | "-k" | "--keep-subject" | "--no-stat" => {}
            s if s.starts_with('-')
                && s[1..].chars().all(|c| c.is_ascii_digit())
                && s.len() > 1 =>
            {
                count = s[1..].parse().ok();
            }
            s if s.starts_with('-') => {
                return Err(GitError::Usage(format!(
                    "error: unknown option `{}'",
                    s.trim_start_matches('-')
                )));
            }
            _ => revs.push(a.clone()),
        }
    }
    let repo = g.repo()?;
    let head = repo
        .head()
        .ok_or_else(|| GitError::fatal("your current branch appears to be broken"))?;
    let mut ids = if let Some(n) = count {
        let start = match revs.first() {
            Some(r) => super::rev_commit(&repo, r)?,
            None => head,
        };
        let mut v = walk(g, &repo, &[start], &[], false)?;
        v.truncate(n);
        v
    } else if let Some(r) = revs.first() {
        if let Some((a, b)) = r.split_once("..") {
            let a = super::rev_commit(&repo, if a.is_empty() { "HEAD" } else { a })?;
            let b = super::rev_commit(&repo, if b.is_empty() { "HEAD" } else { b })?;
            walk(g, &repo, &[b], &[a], false)?
        } else if root {
            let r = super::rev_commit(&repo, r)?;
            walk(g, &repo, &[r], &[], false)?
        } else {
            let r = super::rev_commit(&repo, r)?;
            walk(g, &repo, &[head], &[r], false)?
        }
    } else {
        return Ok(0);
    };
    ids.retain(|id| repo.commit(id).is_ok_and(|c| c.parents.len() < 2));
    ids.reverse();
    let total = ids.len();
    let numbered = numbered || total > 1;
    if let Some(d) = &dir
        && !stdout
    {
        g.fs.mkdir_all(&sandkeep_shell::Fs::resolve(&g.cwd, d))?;
    }
    for (k, id) in ids.iter().enumerate() {
        g.check()?;
        let text = mail(g, &repo, id, k + 1, total, numbered)?;
        if stdout {
            // Mails on one stream are separated by an empty line.
            if k > 0 {
                g.out.push(b'\n');
            }
            g.out.extend_from_slice(&text);
            continue;
        }
        let subject = super::status::subject(&repo.commit(id)?.message.to_str_lossy());
        let mut name = format!("{:04}-{}", k + 1, sanitized(&subject));
        name.truncate(57);
        name.push_str(".patch");
        let shown = match &dir {
            Some(d) => format!("{}/{name}", d.trim_end_matches('/')),
            None => name,
        };
        g.fs.write(&sandkeep_shell::Fs::resolve(&g.cwd, &shown), &text)?;
        let _ = writeln!(g.out, "{shown}");
    }
    Ok(0)
}

/// One mail of a mailbox: author, date, message, patch.
struct Mail {
    name: String,
    email: String,
    date: String,
    message: String,
    patch: Vec<u8>,
}

fn parse_mails(data: &[u8]) -> Vec<Mail> {
    let text = data.to_str_lossy();
    let mut chunks: Vec<Vec<&str>> = Vec::new();
    for line in text.split_inclusive('\n') {
        let starts_mail = line.starts_with("From ")
            && line[5..]
                .split(' ')
                .next()
                .is_some_and(|h| h.len() == 40 && h.bytes().all(|b| b.is_ascii_hexdigit()));
        if starts_mail || chunks.is_empty() {
            chunks.push(Vec::new());
        }
        if let Some(c) = chunks.last_mut() {
            c.push(line);
        }
    }
    let mut mails = Vec::new();
    for lines in chunks {
        let mut i = 0;
        let (mut name, mut email, mut date, mut subject) =
            (String::new(), String::new(), String::new(), String::new());
        // Headers up to the first blank line.
        while i < lines.len() {
            let l = lines[i].trim_end_matches('\n');
            i += 1;
            if l.is_empty() {
                break;
            }
            if let Some(v) = l.strip_prefix("From: ") {
                match v.rsplit_once(" <") {
                    Some((n, e)) => {
                        name = n.trim_matches('"').to_string();
                        email = e.trim_end_matches('>').to_string();
                    }
                    None => email = v.to_string(),
                }
            } else if let Some(v) = l.strip_prefix("Date: ") {
                date = v.to_string();
            } else if let Some(v) = l.strip_prefix("Subject: ") {
                subject = v.to_string();
            } else if l.starts_with(' ') && !subject.is_empty() {
                subject.push_str(l);
            }
        }
        // "[PATCH n/m] " goes.
        let subject = match subject.strip_prefix('[').and_then(|s| s.split_once("] ")) {
            Some((tag, rest)) if tag.starts_with("PATCH") => rest.to_string(),
            _ => subject,
        };
        let mut body = Vec::new();
        while i < lines.len() {
            let l = lines[i];
            if l == "---\n" || l.starts_with("diff --git ") {
                break;
            }
            body.push(l);
            i += 1;
        }
        let patch: String = lines[i..].concat();
        let body = body.concat();
        let body = body.trim_matches('\n');
        let message = if body.is_empty() {
            format!("{subject}\n")
        } else {
            format!("{subject}\n\n{body}\n")
        };
        if subject.is_empty() && patch.is_empty() {
            continue;
        }
        mails.push(Mail {
            name,
            email,
            date,
            message,
            patch: patch.into_bytes(),
        });
    }
    mails
}

fn am_dir(repo: &Repo<'_>, name: &str) -> String {
    repo.gp(&format!("rebase-apply/{name}"))
}

/// Applies and commits mails from `next` on; stops at the first that fails.
fn am_run(
    g: &mut G<'_, '_>,
    repo: &Repo<'_>,
    mails: &[Mail],
    next: usize,
    quiet: bool,
) -> Result<i32> {
    for (k, m) in mails.iter().enumerate().skip(next) {
        g.check()?;
        let subject = super::status::subject(&m.message);
        if !quiet {
            let _ = writeln!(g.out, "Applying: {subject}");
        }
        let opts = ApplyOpts {
            index: true,
            strip: 1,
            ..ApplyOpts::default()
        };
        if let Err(e) = apply_patch(g, repo, &m.patch, opts) {
            let text = match &e {
                GitError::Raw(t, _) => t.clone(),
                other => other.to_string(),
            };
            let _ = writeln!(g.err, "{text}");
            repo.fs
                .write(&am_dir(repo, "next"), format!("{}\n", k + 1).as_bytes())?;
            let _ = writeln!(g.out, "Patch failed at {:04} {subject}", k + 1);
            *g.err_first = true;
            let _ = writeln!(
                g.err,
                "hint: Use 'git am --show-current-patch=diff' to see the failed patch\nhint: When you have resolved this problem, run \"git am --continue\".\nhint: If you prefer to skip this patch, run \"git am --skip\" instead.\nhint: To restore the original branch and stop patching, run \"git am --abort\".\nhint: Disable this message with \"git config advice.mergeConflict false\""
            );
            return Ok(128);
        }
        let index = repo.read_index()?;
        let tree = repo.write_index_tree(&index)?;
        let mut author = super::signature(g, repo, "author")?;
        if !m.email.is_empty() {
            author.name = m.name.as_str().into();
            author.email = m.email.as_str().into();
        }
        if let Ok(t) = gix_date::parse(&m.date, None) {
            author.time = t;
        }
        let parents: Vec<ObjectId> = repo.head().into_iter().collect();
        let new = super::status::make_commit(g, repo, tree, parents, &m.message, Some(author))?;
        repo.update_head(&new)?;
    }
    let _ = repo.fs.remove_all(&repo.gp("rebase-apply"));
    Ok(0)
}

/// `git am [-q] [MBOX...]`, `--abort`, `--skip`, `--continue`.
pub fn am(g: &mut G<'_, '_>) -> Result<i32> {
    let repo = g.repo()?;
    let mut quiet = false;
    let mut files = Vec::new();
    let mut control = None;
    for a in g.args.clone() {
        match a.as_str() {
            "-q" | "--quiet" => quiet = true,
            "--abort" | "--skip" | "--continue" | "--quit" => control = Some(a),
            "-3" | "--3way" | "-k" | "--keep" | "-s" | "--signoff" => {}
            s if s.starts_with('-') => {
                return Err(GitError::Usage(format!(
                    "error: unknown option `{}'",
                    s.trim_start_matches('-')
                )));
            }
            _ => files.push(a),
        }
    }
    let in_progress = repo.fs.exists(&am_dir(&repo, "mbox"));
    if let Some(c) = control {
        if !in_progress {
            return Err(GitError::fatal(
                "Resolve operation not in progress, we are not resuming.",
            ));
        }
        let data = repo.fs.read(&am_dir(&repo, "mbox"))?;
        let mails = parse_mails(&data);
        let next: usize = repo
            .fs
            .read(&am_dir(&repo, "next"))
            .ok()
            .and_then(|d| String::from_utf8_lossy(&d).trim().parse().ok())
            .unwrap_or(1);
        match c.as_str() {
            "--abort" => {
                let orig = repo
                    .fs
                    .read(&am_dir(&repo, "orig-head"))
                    .ok()
                    .and_then(|d| {
                        ObjectId::from_hex(String::from_utf8_lossy(&d).trim().as_bytes()).ok()
                    });
                let from = files_of(&repo, repo.head().as_ref())?;
                let to = files_of(&repo, orig.as_ref())?;
                super::branch::two_tree(g, &repo, &from, &to, true, "reset")?;
                if let Some(o) = orig {
                    repo.update_head(&o)?;
                }
                let _ = repo.fs.remove_all(&repo.gp("rebase-apply"));
                return Ok(0);
            }
            "--quit" => {
                let _ = repo.fs.remove_all(&repo.gp("rebase-apply"));
                return Ok(0);
            }
            "--skip" => {
                let head = repo.head();
                let to = files_of(&repo, head.as_ref())?;
                super::branch::two_tree(g, &repo, &to, &to, true, "reset")?;
                return am_run(g, &repo, &mails, next, quiet);
            }
            _ => {
                // The fixed-up patch is in the index: commit it, go on.
                if let Some(m) = mails.get(next - 1) {
                    let index = repo.read_index()?;
                    let tree = repo.write_index_tree(&index)?;
                    let mut author = super::signature(g, &repo, "author")?;
                    author.name = m.name.as_str().into();
                    author.email = m.email.as_str().into();
                    if let Ok(t) = gix_date::parse(&m.date, None) {
                        author.time = t;
                    }
                    let parents: Vec<ObjectId> = repo.head().into_iter().collect();
                    let new = super::status::make_commit(
                        g,
                        &repo,
                        tree,
                        parents,
                        &m.message,
                        Some(author),
                    )?;
                    repo.update_head(&new)?;
                }
                return am_run(g, &repo, &mails, next, quiet);
            }
        }
    }
    if in_progress {
        return Err(GitError::fatal(format!(
            "previous rebase directory {} still exists but mbox given.",
            repo.gp("rebase-apply")
        )));
    }
    let mut data = Vec::new();
    if files.is_empty() {
        data = g.read_stdin();
    }
    for f in &files {
        data.extend(
            g.fs.read(&sandkeep_shell::Fs::resolve(&g.cwd, f))
                .map_err(|_| {
                    GitError::fatal(format!(
                        "could not open '{f}' for reading: No such file or directory"
                    ))
                })?,
        );
    }
    let mails = parse_mails(&data);
    if mails.is_empty() {
        return Err(GitError::Raw("Patch format detection failed.".into(), 128));
    }
    repo.fs.mkdir_all(&repo.gp("rebase-apply"))?;
    repo.fs.write(&am_dir(&repo, "mbox"), &data)?;
    if let Some(h) = repo.head() {
        repo.fs.write(
            &am_dir(&repo, "orig-head"),
            format!("{}\n", h.to_hex()).as_bytes(),
        )?;
        repo.fs.write(
            &repo.gp("ORIG_HEAD"),
            format!("{}\n", h.to_hex()).as_bytes(),
        )?;
    }
    am_run(g, &repo, &mails, 0, quiet)
}
