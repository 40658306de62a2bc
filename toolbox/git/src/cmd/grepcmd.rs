//! `grep`: searching tracked files, the index, revisions and, with
//! `--untracked`, the rest of the work tree.

use std::io::Write;

use bstr::ByteSlice;
use gix_hash::ObjectId;

use super::{G, split_short};
use crate::diff;
use crate::error::{GitError, Result};
use crate::worktree::{self, Pathspec};

/// Turns a POSIX basic regular expression into the `regex` crate's syntax.
pub fn bre_to_ere(p: &str) -> String {
    let mut out = String::new();
    let mut chars = p.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(n @ ('(' | ')' | '{' | '}' | '|' | '+' | '?')) => out.push(n),
                Some(n) => {
                    out.push('\\');
                    out.push(n);
                }
                None => out.push_str("\\\\"),
            },
            '(' | ')' | '{' | '}' | '|' | '+' | '?' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// What `grep` searches: the work tree's tracked files, the index, a
/// revision's tree, or also the untracked files.
enum Source {
    Work { untracked: bool },
    Cached,
    Tree(String, ObjectId),
}

/// Output options of one run.
struct Show {
    line_no: bool,
    names: bool,
    names_without: bool,
    count: bool,
    quiet: bool,
    no_name: bool,
    only: bool,
    heading: bool,
    brk: bool,
    before: usize,
    after: usize,
}

/// `git grep [-n] [-i] [-l|-L] [-c] [-w] [-v] [-h] [-q] [-o] [-E|-F] [-e P]...
/// [--and] [-A|-B|-C N] [--cached|--untracked] [--full-name] [--max-depth N]
/// [--break] [--heading] PATTERN [REV...] [-- PATHS]`.
pub fn grep(g: &mut G<'_, '_>) -> Result<i32> {
    let repo = g.repo()?;
    let args = split_short(&g.args, &['e', 'A', 'B', 'C']);
    let (mut icase, mut word, mut invert, mut ere, mut fixed) = (false, false, false, false, false);
    let mut show = Show {
        line_no: false,
        names: false,
        names_without: false,
        count: false,
        quiet: false,
        no_name: false,
        only: false,
        heading: false,
        brk: false,
        before: 0,
        after: 0,
    };
    let (mut cached, mut untracked, mut full_name, mut all_match) = (false, false, false, false);
    let mut max_depth: Option<usize> = None;
    let mut patterns: Vec<String> = Vec::new();
    let mut rest = Vec::new();
    let mut paths = Vec::new();
    let mut dashdash = false;
    let mut i = 0;
    let num = |v: Option<&String>| -> Result<usize> {
        v.and_then(|v| v.parse().ok())
            .ok_or_else(|| GitError::Usage("error: switch expects a numerical value".into()))
    };
    while i < args.len() {
        let a = args[i].clone();
        i += 1;
        if dashdash {
            paths.push(a);
            continue;
        }
        match a.as_str() {
            "-n" | "--line-number" => show.line_no = true,
            "-i" | "--ignore-case" => icase = true,
            "-l" | "--files-with-matches" | "--name-only" => show.names = true,
            "-L" | "--files-without-match" => show.names_without = true,
            "-c" | "--count" => show.count = true,
            "-w" | "--word-regexp" => word = true,
            "-v" | "--invert-match" => invert = true,
            "-E" | "--extended-regexp" => ere = true,
            "-F" | "--fixed-strings" => fixed = true,
            "-P" | "--perl-regexp" => ere = true,
            "-h" => show.no_name = true,
            "-H" => show.no_name = false,
            "-q" | "--quiet" => show.quiet = true,
            "-o" | "--only-matching" => show.only = true,
            "--heading" => show.heading = true,
            "--break" => show.brk = true,
            "--cached" => cached = true,
            "--untracked" => untracked = true,
            "--no-index" => untracked = true,
            "--full-name" => full_name = true,
            "--all-match" => all_match = true,
            "--and" | "--or" | "--not" | "(" | ")" => {
                // Patterns joined with --and must all match one line.
                if a == "--and" {
                    all_match = true;
                }
            }
            "-A" | "--after-context" => {
                show.after = num(args.get(i))?;
                i += 1;
            }
            "-B" | "--before-context" => {
                show.before = num(args.get(i))?;
                i += 1;
            }
            "-C" | "--context" => {
                let n = num(args.get(i))?;
                show.before = n;
                show.after = n;
                i += 1;
            }
            "--max-depth" => {
                max_depth = Some(num(args.get(i))?);
                i += 1;
            }
            s if s.starts_with("--max-depth=") => max_depth = s[12..].parse().ok(),
            s if s.starts_with("-A") || s.starts_with("-B") || s.starts_with("-C") => {}
            "-G" | "--basic-regexp" | "--no-color" | "-I" | "--color=never" | "-r"
            | "--recursive" => {}
            "-e" => {
                patterns.push(args.get(i).cloned().unwrap_or_default());
                i += 1;
            }
            "--" => dashdash = true,
            s if s.starts_with('-') && s.len() > 1 => {
                return Err(GitError::Usage(format!(
                    "error: unknown switch `{}'",
                    s.trim_start_matches('-')
                )));
            }
            _ => {
                if patterns.is_empty() {
                    patterns.push(a);
                } else {
                    rest.push(a);
                }
            }
        }
    }
    if patterns.is_empty() {
        return Err(GitError::fatal("no pattern given"));
    }
    // Words after the pattern: revisions first, then paths.
    let mut trees: Vec<(String, ObjectId)> = Vec::new();
    for r in rest {
        if let Ok(Some(id)) = super::rev_opt(&repo, &r)
            && let Ok(tree) = super::peel_to_tree(&repo, &id)
        {
            trees.push((r, tree));
        } else {
            paths.push(r);
        }
    }
    let compile = |p: &String| -> Result<regex::bytes::Regex> {
        let body = if fixed {
            regex::escape(p)
        } else if ere {
            p.clone()
        } else {
            bre_to_ere(p)
        };
        let body = if word {
            format!(r"\b(?:{body})\b")
        } else {
            body
        };
        regex::bytes::RegexBuilder::new(&body)
            .case_insensitive(icase)
            .build()
            .map_err(|e| GitError::fatal(format!("command line, '{p}': {e}")))
    };
    let res: Vec<regex::bytes::Regex> = patterns.iter().map(compile).collect::<Result<_>>()?;
    let line_hits = |l: &[u8]| -> bool {
        let hit = if all_match {
            res.iter().all(|r| r.is_match(l))
        } else {
            res.iter().any(|r| r.is_match(l))
        };
        hit != invert
    };
    let spec = Pathspec::new(&repo, &g.cwd, &paths)?;
    let cwd = g.cwd.clone();
    let root = repo.work_tree.trim_end_matches('/').to_string();
    let cwd_prefix = cwd
        .strip_prefix(&format!("{root}/"))
        .map(|s| format!("{s}/"))
        .unwrap_or_default();
    // Without paths, a subdirectory searches only itself.
    let in_scope = |p: &str| -> bool {
        if !spec.matches(p) {
            return false;
        }
        if paths.is_empty() && !p.starts_with(&cwd_prefix) {
            return false;
        }
        if let Some(d) = max_depth {
            let base = spec
                .items
                .iter()
                .filter(|it| worktree::item_matches(it, p))
                .map(|it| it.matches('/').count() + usize::from(!it.is_empty()))
                .min()
                .unwrap_or(cwd_prefix.matches('/').count());
            if p.matches('/').count() > base + d {
                return false;
            }
        }
        true
    };
    let sources: Vec<Source> = if trees.is_empty() {
        vec![if cached {
            Source::Cached
        } else {
            Source::Work { untracked }
        }]
    } else {
        trees.into_iter().map(|(n, t)| Source::Tree(n, t)).collect()
    };
    let mut found = false;
    let mut first_file = true;
    for source in sources {
        // (shown name, content)
        let mut files: Vec<(String, Vec<u8>)> = Vec::new();
        let shown_of = |p: &str| -> String {
            if full_name {
                p.to_string()
            } else {
                worktree::relative_to_cwd(&repo, &cwd, p)
            }
        };
        match &source {
            Source::Tree(name, tree) => {
                for (p, (mode, id)) in repo.flatten_tree(tree)? {
                    if mode == 0o160000 || !in_scope(&p) {
                        continue;
                    }
                    g.check()?;
                    let data = repo.read_kind(&id, gix_object::Kind::Blob)?;
                    files.push((format!("{name}:{}", shown_of(&p)), data));
                }
            }
            Source::Cached => {
                let index = repo.read_index()?;
                let mut last = String::new();
                for e in &index {
                    if e.stage > 1 || e.path == last || !in_scope(&e.path) {
                        continue;
                    }
                    last = e.path.clone();
                    g.check()?;
                    let data = repo.read_kind(&e.id, gix_object::Kind::Blob)?;
                    files.push((shown_of(&e.path), data));
                }
            }
            Source::Work { untracked } => {
                let index = repo.read_index()?;
                let mut list: Vec<String> = Vec::new();
                for e in &index {
                    if e.stage <= 1 && list.last() != Some(&e.path) {
                        list.push(e.path.clone());
                    }
                }
                if *untracked {
                    let mut ig = worktree::Ignore::new(&repo);
                    let check = g.checker();
                    for f in worktree::walk(&repo, &mut ig, &check)? {
                        if !f.ignored {
                            list.push(f.path);
                        }
                    }
                    list.sort();
                    list.dedup();
                }
                for p in list {
                    if !in_scope(&p) {
                        continue;
                    }
                    g.check()?;
                    let Ok(data) = worktree::file_content(&repo, &p) else {
                        continue;
                    };
                    files.push((shown_of(&p), data));
                }
            }
        }
        for (shown, data) in files {
            if diff::is_binary(&data) {
                if res.iter().any(|r| r.is_match(&data)) != invert {
                    found = true;
                    if !show.quiet {
                        let _ = writeln!(g.out, "Binary file {shown} matches");
                    }
                }
                continue;
            }
            let lines: Vec<&[u8]> = data.lines().collect();
            let hits: Vec<bool> = lines.iter().map(|l| line_hits(l)).collect();
            let n_match = hits.iter().filter(|h| **h).count();
            if n_match > 0 {
                found = true;
            }
            if show.quiet {
                if found {
                    return Ok(0);
                }
                continue;
            }
            if show.names_without {
                if n_match == 0 {
                    let _ = writeln!(g.out, "{shown}");
                }
                continue;
            }
            if n_match == 0 {
                continue;
            }
            if show.names {
                let _ = writeln!(g.out, "{shown}");
                continue;
            }
            if show.count {
                if show.no_name {
                    let _ = writeln!(g.out, "{n_match}");
                } else {
                    let _ = writeln!(g.out, "{shown}:{n_match}");
                }
                continue;
            }
            if !first_file && show.brk {
                g.out.push(b'\n');
            }
            first_file = false;
            if show.heading {
                let _ = writeln!(g.out, "{shown}");
            }
            let prefix = |out: &mut Vec<u8>, n: usize, sep: u8| {
                if !show.no_name && !show.heading {
                    out.extend_from_slice(shown.as_bytes());
                    out.push(sep);
                }
                if show.line_no {
                    let _ = write!(out, "{}", n + 1);
                    out.push(sep);
                }
            };
            let mut last_printed: Option<usize> = None;
            for (n, l) in lines.iter().enumerate() {
                if !hits[n] {
                    continue;
                }
                let from = n.saturating_sub(show.before);
                if let Some(lp) = last_printed
                    && from > lp + 1
                    && (show.before > 0 || show.after > 0)
                {
                    g.out.extend_from_slice(b"--\n");
                }
                let start = last_printed.map_or(from, |lp| from.max(lp + 1));
                for (k, text) in lines.iter().enumerate().take(n).skip(start) {
                    prefix(g.out, k, b'-');
                    g.out.extend_from_slice(text);
                    g.out.push(b'\n');
                }
                if show.only && !invert {
                    for r in &res {
                        for m in r.find_iter(l) {
                            prefix(g.out, n, b':');
                            g.out.extend_from_slice(m.as_bytes());
                            g.out.push(b'\n');
                        }
                    }
                } else {
                    prefix(g.out, n, b':');
                    g.out.extend_from_slice(l);
                    g.out.push(b'\n');
                }
                last_printed = Some(n);
                // After-context lines that are not themselves matches.
                let mut k = n + 1;
                while k < lines.len() && k <= n + show.after && !hits[k] {
                    prefix(g.out, k, b'-');
                    g.out.extend_from_slice(lines[k]);
                    g.out.push(b'\n');
                    last_printed = Some(k);
                    k += 1;
                }
            }
        }
    }
    Ok(if found { 0 } else { 1 })
}
