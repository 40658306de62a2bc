//! `grep`: searching tracked files, the index, revisions and, with
//! `--untracked`, the rest of the work tree.

use std::io::Write;

use bstr::ByteSlice;

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

/// `git grep [-n] [-i] [-l] [-c] [-w] [-v] [-E|-F] [-e] PATTERN [-- PATHS]`.
pub fn grep(g: &mut G<'_, '_>) -> Result<i32> {
    let repo = g.repo()?;
    let args = split_short(&g.args, &['e']);
    let (mut line_no, mut icase, mut names, mut count, mut word, mut invert, mut ere, mut fixed) =
        (false, false, false, false, false, false, false, false);
    let mut patterns: Vec<String> = Vec::new();
    let mut paths = Vec::new();
    let mut dashdash = false;
    let mut i = 0;
    while i < args.len() {
        let a = args[i].clone();
        i += 1;
        if dashdash {
            paths.push(a);
            continue;
        }
        match a.as_str() {
            "-n" | "--line-number" => line_no = true,
            "-i" | "--ignore-case" => icase = true,
            "-l" | "--files-with-matches" | "--name-only" => names = true,
            "-c" | "--count" => count = true,
            "-w" | "--word-regexp" => word = true,
            "-v" | "--invert-match" => invert = true,
            "-E" | "--extended-regexp" => ere = true,
            "-F" | "--fixed-strings" => fixed = true,
            "-G" | "--basic-regexp" | "--no-color" | "-I" => {}
            "-e" => {
                patterns.push(args.get(i).cloned().unwrap_or_default());
                i += 1;
            }
            "--" => dashdash = true,
            s if s.starts_with('-') => {
                return Err(GitError::Usage(format!(
                    "error: unknown switch `{}'",
                    s.trim_start_matches('-')
                )));
            }
            _ => {
                if patterns.is_empty() {
                    patterns.push(a);
                } else {
                    paths.push(a);
                }
            }
        }
    }
    if patterns.is_empty() {
        return Err(GitError::fatal("no pattern given"));
    }
    let alts: Vec<String> = patterns
        .iter()
        .map(|p| {
            let body = if fixed {
                regex::escape(p)
            } else if ere {
                p.clone()
            } else {
                bre_to_ere(p)
            };
            if word {
                format!(r"\b(?:{body})\b")
            } else {
                format!("(?:{body})")
            }
        })
        .collect();
    let re = regex::bytes::RegexBuilder::new(&alts.join("|"))
        .case_insensitive(icase)
        .build()
        .map_err(|e| GitError::fatal(format!("command line, '{}': {e}", patterns[0])))?;
    let spec = Pathspec::new(&repo, &g.cwd, &paths)?;
    let index = repo.read_index()?;
    let cwd = g.cwd.clone();
    let root = repo.work_tree.trim_end_matches('/').to_string();
    let cwd_prefix = cwd
        .strip_prefix(&format!("{root}/"))
        .map(|s| format!("{s}/"))
        .unwrap_or_default();
    let mut found = false;
    let mut last = "";
    for e in &index {
        if e.stage > 1
            || !spec.matches(&e.path)
            || e.path == last
            || !e.path.starts_with(&cwd_prefix)
        {
            continue;
        }
        last = &e.path;
        g.check()?;
        let Ok(data) = worktree::file_content(&repo, &e.path) else {
            continue;
        };
        let shown = worktree::relative_to_cwd(&repo, &cwd, &e.path);
        if diff::is_binary(&data) {
            if re.is_match(&data) != invert {
                found = true;
                let _ = writeln!(g.out, "Binary file {shown} matches");
            }
            continue;
        }
        let mut n_match = 0;
        for (n, l) in data.lines().enumerate() {
            if re.is_match(l) != invert {
                found = true;
                n_match += 1;
                if names || count {
                    continue;
                }
                g.out.extend_from_slice(shown.as_bytes());
                g.out.push(b':');
                if line_no {
                    let _ = write!(g.out, "{}:", n + 1);
                }
                g.out.extend_from_slice(l);
                g.out.push(b'\n');
            }
        }
        if n_match > 0 && names {
            let _ = writeln!(g.out, "{shown}");
        } else if n_match > 0 && count {
            let _ = writeln!(g.out, "{shown}:{n_match}");
        }
    }
    Ok(if found { 0 } else { 1 })
}
