//! `git diff`: work tree against the index, `--cached` against a commit,
//! two commits; as patches, `--stat`, `--numstat`, `--name-only`,
//! `--name-status`, `--quiet`/`--exit-code`.

use std::io::Write;

use super::{G, rev_opt};
use crate::diff::{self, Change, Side};
use crate::error::{GitError, Result};
use crate::repo::Repo;
use crate::worktree::Pathspec;

/// How a list of changes is printed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Output {
    /// Unified patches.
    #[default]
    Patch,
    /// `--stat`.
    Stat,
    /// `--numstat`.
    NumStat,
    /// `--shortstat`.
    ShortStat,
    /// `--name-only`.
    NameOnly,
    /// `--name-status`.
    NameStatus,
    /// `--summary`.
    Summary,
    /// `-s`/`--no-patch`.
    Nothing,
    /// `--raw`: `:MODE MODE ID ID STATUS\tPATH`, ids abbreviated.
    Raw,
    /// `--raw --no-abbrev`.
    RawFull,
}

/// Parses a diff output option; `None` when `a` is not one.
pub fn output_option(a: &str) -> Option<Output> {
    Some(match a {
        "--stat" => Output::Stat,
        "--numstat" => Output::NumStat,
        "--shortstat" => Output::ShortStat,
        "--name-only" => Output::NameOnly,
        "--name-status" => Output::NameStatus,
        "--summary" => Output::Summary,
        "--raw" => Output::Raw,
        "-p" | "-u" | "--patch" => Output::Patch,
        "-s" | "--no-patch" => Output::Nothing,
        _ => return None,
    })
}

/// Prints `changes` as `how` says; `patch_too` adds patches after a stat
/// (`--stat -p`); `check` is asked for each file and inside each diff.
pub fn print_changes(
    repo: &Repo<'_>,
    changes: &[Change],
    how: Output,
    patch_too: bool,
    out: &mut Vec<u8>,
    check: diff::Check<'_>,
) -> Result<()> {
    print_changes_opts(
        repo,
        changes,
        (how, patch_too),
        diff::PatchOpts::default(),
        out,
        check,
    )
}

/// [`print_changes`] with `-U` and whitespace options for the patches.
pub fn print_changes_opts(
    repo: &Repo<'_>,
    changes: &[Change],
    (how, patch_too): (Output, bool),
    opts: diff::PatchOpts,
    out: &mut Vec<u8>,
    check: diff::Check<'_>,
) -> Result<()> {
    let non_ascii = repo.config.get_bool("core.quotePath").unwrap_or(true);
    let q = |p: &str| crate::worktree::quote_path(p, non_ascii, false);
    match how {
        Output::Nothing => {}
        Output::Patch => {
            for c in changes {
                diff::write_patch_opts(repo, c, opts, out, check)?;
            }
        }
        Output::Stat => {
            let lines = diff::stat_lines(repo, changes, check)?;
            diff::write_stat(&lines, out);
        }
        Output::ShortStat => {
            if !changes.is_empty() {
                let lines = diff::stat_lines(repo, changes, check)?;
                let (i, d) = lines
                    .iter()
                    .filter_map(|l| l.counts)
                    .fold((0, 0), |a, c| (a.0 + c.0, a.1 + c.1));
                let _ = writeln!(out, "{}", diff::summary(changes.len(), i, d));
            }
        }
        Output::NumStat => {
            for (c, l) in changes.iter().zip(diff::stat_lines(repo, changes, check)?) {
                let name = match &c.from {
                    Some(f) => diff::rename_name(f, &c.path),
                    None => c.path.clone(),
                };
                match l.counts {
                    Some((i, d)) => {
                        let _ = writeln!(out, "{i}\t{d}\t{name}");
                    }
                    None => {
                        let _ = writeln!(out, "-\t-\t{name}");
                    }
                }
            }
        }
        Output::NameOnly => {
            for c in changes {
                let _ = writeln!(out, "{}", q(&c.path));
            }
        }
        Output::NameStatus => {
            for c in changes {
                match &c.from {
                    Some(f) => {
                        let _ = writeln!(out, "R{:03}\t{}\t{}", c.similarity, q(f), q(&c.path));
                    }
                    None => {
                        let _ = writeln!(out, "{}\t{}", c.letter(), q(&c.path));
                    }
                }
            }
        }
        Output::Summary => super::status::write_modes_summary(out, changes, non_ascii),
        Output::Raw | Output::RawFull => {
            let zero = gix_hash::ObjectId::null(crate::repo::HASH);
            let id = |v: Option<&diff::Version>| {
                let id = v.map_or(zero, |v| v.id);
                if how == Output::RawFull {
                    id.to_hex().to_string()
                } else if id == zero {
                    "0000000".to_string()
                } else {
                    repo.abbrev(&id)
                }
            };
            for c in changes {
                let mode = |v: Option<&diff::Version>| v.map_or(0, |v| v.mode);
                let (o, n) = (c.old.as_ref(), c.new.as_ref());
                let _ = write!(out, ":{:06o} {:06o} {} {} ", mode(o), mode(n), id(o), id(n));
                match &c.from {
                    Some(f) => {
                        let _ = writeln!(out, "R{:03}\t{}\t{}", c.similarity, q(f), q(&c.path));
                    }
                    None => {
                        let _ = writeln!(out, "{}\t{}", c.letter(), q(&c.path));
                    }
                }
            }
        }
    }
    if patch_too && how != Output::Patch {
        if !changes.is_empty() && how == Output::Stat {
            out.push(b'\n');
        }
        for c in changes {
            diff::write_patch_opts(repo, c, opts, out, check)?;
        }
    }
    Ok(())
}

/// A patch with `a/` and `b/` replaced by other prefixes (`--src-prefix`,
/// `--dst-prefix`, `--no-prefix`).
fn with_prefixes(patch: &[u8], a: &str, b: &str) -> Vec<u8> {
    let mut out = Vec::new();
    for line in patch.split_inclusive(|&c| c == b'\n') {
        let text = String::from_utf8_lossy(line);
        if let Some(rest) = text.strip_prefix("diff --git a/") {
            match rest.split_once(" b/") {
                Some((x, y)) => {
                    out.extend_from_slice(format!("diff --git {a}{x} {b}{y}").as_bytes())
                }
                None => out.extend_from_slice(line),
            }
        } else if let Some(rest) = text.strip_prefix("--- a/") {
            out.extend_from_slice(format!("--- {a}{rest}").as_bytes());
        } else if let Some(rest) = text.strip_prefix("+++ b/") {
            out.extend_from_slice(format!("+++ {b}{rest}").as_bytes());
        } else {
            out.extend_from_slice(line);
        }
    }
    out
}

/// `git diff [OPTIONS] [--cached [COMMIT]] [COMMIT [COMMIT]] [-- PATHS]`.
pub fn diff(g: &mut G<'_, '_>) -> Result<i32> {
    if g.args.iter().any(|a| a == "--no-index") {
        return super::noindex::diff_no_index(g);
    }
    let repo = match g.repo() {
        Ok(r) => r,
        // Outside a repository two paths are compared as files.
        Err(_) if g.args.iter().filter(|a| !a.starts_with('-')).count() == 2 => {
            return super::noindex::diff_no_index(g);
        }
        Err(e) => return Err(e),
    };
    let mut cached = false;
    let mut how = Output::Patch;
    let mut patch_too = false;
    let mut quiet = false;
    let mut exit_code = false;
    let mut no_renames = false;
    let mut word: Option<crate::worddiff::WordMode> = None;
    let mut word_regex: Option<String> = None;
    let mut prefixes: Option<(String, String)> = None;
    let mut filter: Option<String> = None;
    let mut revs: Vec<String> = Vec::new();
    let mut paths: Vec<String> = Vec::new();
    let mut dashdash = false;
    let mut opts = diff::PatchOpts::default();
    let mut explicit_patch = false;
    for a in g.args.clone() {
        if dashdash {
            paths.push(a);
            continue;
        }
        let a = match a
            .strip_prefix("--unified=")
            .or_else(|| a.strip_prefix("-U"))
        {
            Some(n) => {
                opts.context = n.parse().map_err(|_| {
                    GitError::Usage("error: switch `U' expects a numerical value".into())
                })?;
                // `-U` asks for patches, as `-p` does.
                "-p".to_string()
            }
            None => a,
        };
        match a.as_str() {
            "-w" | "--ignore-all-space" => {
                opts.ws = diff::Whitespace::All;
                continue;
            }
            "-b" | "--ignore-space-change" => {
                opts.ws = opts.ws.max(diff::Whitespace::Change);
                continue;
            }
            "--ignore-space-at-eol" => {
                opts.ws = opts.ws.max(diff::Whitespace::AtEol);
                continue;
            }
            _ => {}
        }
        if let Some(o) = output_option(&a) {
            if o == Output::Patch && how != Output::Patch {
                patch_too = true;
            } else if o == Output::Patch {
                // An explicit `-p` (or `-U`) before a stat keeps the patches.
                explicit_patch = true;
            } else {
                patch_too |= explicit_patch;
                how = o;
            }
            continue;
        }
        match a.as_str() {
            "--" => dashdash = true,
            "--cached" | "--staged" => cached = true,
            "--quiet" => {
                quiet = true;
                exit_code = true;
            }
            "--exit-code" => exit_code = true,
            "--no-renames" => no_renames = true,
            "--word-diff" | "--word-diff=plain" => word = Some(crate::worddiff::WordMode::Plain),
            "--word-diff=porcelain" => word = Some(crate::worddiff::WordMode::Porcelain),
            "--word-diff=color" | "--color-words" => word = Some(crate::worddiff::WordMode::Color),
            "--word-diff=none" => word = None,
            s if s.starts_with("--word-diff-regex=") => word_regex = Some(s[18..].to_string()),
            s if s.starts_with("--src-prefix=") => {
                let d = prefixes.take().map_or_else(|| "b/".to_string(), |p| p.1);
                prefixes = Some((s[13..].to_string(), d));
            }
            s if s.starts_with("--dst-prefix=") => {
                let a = prefixes.take().map_or_else(|| "a/".to_string(), |p| p.0);
                prefixes = Some((a, s[13..].to_string()));
            }
            "--no-prefix" => prefixes = Some((String::new(), String::new())),
            s if s.starts_with("--diff-filter=") => filter = Some(s[14..].to_string()),
            s if s.starts_with("--color-words=") => {
                word = Some(crate::worddiff::WordMode::Color);
                word_regex = Some(s[14..].to_string());
            }
            "--no-color" | "--no-ext-diff" | "-M" | "--find-renames" => {}
            s if s.starts_with('-') => {
                return Err(GitError::Usage(format!("error: invalid option: {s}")));
            }
            _ => {
                if paths.is_empty() && rev_opt(&repo, a.split("..").next().unwrap_or(&a))?.is_some()
                {
                    revs.push(a);
                } else if g.fs.exists(&sandkeep_shell::Fs::resolve(&g.cwd, &a)) {
                    paths.push(a);
                } else {
                    return Err(super::rev(&repo, &a)
                        .err()
                        .unwrap_or_else(|| GitError::fatal(format!("bad revision '{a}'"))));
                }
            }
        }
    }
    if revs.len() == 1
        && let Some((a, b)) = revs[0].clone().split_once("...")
    {
        // A...B: from the merge base of A and B to B.
        let a = if a.is_empty() { "HEAD" } else { a };
        let b = if b.is_empty() { "HEAD" } else { b };
        let (ia, ib) = (super::rev_commit(&repo, a)?, super::rev_commit(&repo, b)?);
        let bases = super::log::merge_bases(&repo, &ia, &ib, &|| g.check())?;
        let Some(base) = bases.first() else {
            return Err(GitError::fatal(format!("{a}...{b}: no merge base")));
        };
        revs = vec![base.to_hex().to_string(), b.to_string()];
    }
    if revs.len() == 1 && revs[0].contains("..") {
        let r = revs.remove(0);
        let (a, b) = r.split_once("..").unwrap_or((&r, ""));
        revs.push(if a.is_empty() {
            "HEAD".into()
        } else {
            a.to_string()
        });
        revs.push(if b.is_empty() {
            "HEAD".into()
        } else {
            b.trim_start_matches('.').to_string()
        });
    }
    let spec = Pathspec::new(&repo, &g.cwd, &paths)?;
    let keep = |p: &str| spec.matches(p);
    let tree_side = |spec_: &str| -> Result<Side> {
        let id = super::rev(&repo, spec_)?;
        let tree = super::peel_to_tree(&repo, &id)?;
        Ok(diff::side_of(&repo.flatten_tree(&tree)?))
    };
    let index = repo.read_index()?;
    let check = g.checker();
    let changes = if revs.len() >= 2 {
        diff::changes_with_renames(
            &repo,
            &tree_side(&revs[0])?,
            &tree_side(&revs[1])?,
            &keep,
            &check,
        )?
    } else if cached {
        let base = match revs.first() {
            Some(r) => tree_side(r)?,
            None => diff::side_of(&repo.commit_files(repo.head().as_ref())?),
        };
        diff::changes_with_renames(
            &repo,
            &base,
            &super::status::index_side(&index),
            &keep,
            &check,
        )?
    } else if let Some(r) = revs.first() {
        let base = tree_side(r)?;
        // Commit against the work tree: tracked files as they are on disk.
        let mut work = super::status::work_side(&repo, &index)?;
        for v in work.values_mut() {
            v.work = true;
        }
        if no_renames {
            diff::changes(&base, &work, &keep, false)
        } else {
            diff::changes_with_renames(&repo, &base, &work, &keep, &check)?
        }
    } else {
        let mut work = super::status::work_side(&repo, &index)?;
        for v in work.values_mut() {
            v.work = true;
        }
        let iside = super::status::index_side(&index);
        let mut cs = diff::changes(&iside, &work, &keep, false);
        // A path with the same content is not a change (stat-only differences).
        cs.retain(|c| {
            !(c.old.is_some()
                && c.new.is_some()
                && c.old.map(|o| (o.id, o.mode)) == c.new.map(|n| (n.id, n.mode)))
        });
        let mut unmerged: Vec<String> = index
            .iter()
            .filter(|e| e.stage > 0)
            .map(|e| e.path.clone())
            .collect();
        unmerged.dedup();
        let wants_u = filter.as_deref().is_none_or(|f| f.contains('U'));
        for p in unmerged {
            if !keep(&p) || quiet || !wants_u {
                continue;
            }
            match how {
                Output::Patch => {
                    let mut buf = Vec::new();
                    super::combined::write(g, &repo, &index, &p, &mut buf)?;
                    g.out.extend_from_slice(&buf);
                }
                Output::NameOnly => {
                    let _ = writeln!(g.out, "{p}");
                }
                Output::NameStatus => {
                    let _ = writeln!(g.out, "U\t{p}");
                }
                Output::Stat => {
                    let _ = writeln!(g.out, " {p} | Unmerged");
                }
                _ => {}
            }
            // Besides, the work tree against our side (stage 2), as git
            // shows it for the outputs that are not patches.
            if how != Output::Patch
                && let Some(ours) = index.iter().find(|e| e.path == p && e.stage == 2)
                && let Ok(data) = crate::worktree::file_content(&repo, &p)
            {
                let id = crate::worktree::blob_id(&data);
                if id != ours.id {
                    cs.push(Change {
                        path: p.clone(),
                        from: None,
                        old: Some(diff::Version {
                            mode: ours.mode,
                            id: ours.id,
                            work: false,
                        }),
                        new: Some(diff::Version {
                            mode: crate::worktree::file_mode(&repo, &p).unwrap_or(ours.mode),
                            id,
                            work: true,
                        }),
                        similarity: 0,
                    });
                }
            }
        }
        cs.sort_by(|a, b| a.path.cmp(&b.path));
        cs
    };
    // `--diff-filter`: upper-case letters keep, lower-case ones drop.
    let changes: Vec<Change> = match &filter {
        Some(f) => {
            let (keep_l, drop_l): (Vec<char>, Vec<char>) =
                f.chars().partition(|c| c.is_ascii_uppercase());
            changes
                .into_iter()
                .filter(|c| {
                    let l = c.letter();
                    (keep_l.is_empty() || keep_l.contains(&l))
                        && !drop_l.contains(&l.to_ascii_lowercase())
                })
                .collect()
        }
        None => changes,
    };
    // Changes that are only ignored whitespace are no changes.
    let changes: Vec<Change> = if opts.ws == diff::Whitespace::Exact {
        changes
    } else {
        let mut kept = Vec::new();
        for c in changes {
            if let (Some(o), Some(n)) = (&c.old, &c.new) {
                let a = diff::content(&repo, c.from.as_deref().unwrap_or(&c.path), o)?;
                let b = diff::content(&repo, &c.path, n)?;
                if o.mode == n.mode && diff::normalize(&a, opts.ws) == diff::normalize(&b, opts.ws)
                {
                    continue;
                }
            }
            kept.push(c);
        }
        kept
    };
    if !quiet {
        match word {
            Some(mode) if how == Output::Patch => {
                let re = match &word_regex {
                    Some(r) => Some(regex::bytes::Regex::new(r).map_err(|_| {
                        GitError::fatal(format!("invalid regular expression: {r}"))
                    })?),
                    None => None,
                };
                let mut buf = Vec::new();
                print_changes(&repo, &changes, how, patch_too, &mut buf, &check)?;
                g.out
                    .extend_from_slice(&crate::worddiff::rewrite(&buf, mode, re.as_ref()));
            }
            _ => {
                let mut buf = Vec::new();
                print_changes_opts(&repo, &changes, (how, patch_too), opts, &mut buf, &check)?;
                match &prefixes {
                    Some((a, b)) => g.out.extend_from_slice(&with_prefixes(&buf, a, b)),
                    None => g.out.extend_from_slice(&buf),
                }
            }
        }
    }
    Ok(if exit_code && !changes.is_empty() {
        1
    } else {
        0
    })
}
