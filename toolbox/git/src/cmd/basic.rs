//! `init`, `config`, `add`, `rm`, `mv`, `ls-files` and the plumbing
//! `cat-file`, `hash-object`, `write-tree`.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;

use gix_hash::ObjectId;
use gix_object::Kind;
use sandkeep_shell::FileKind;

use super::{G, config_get, split_short};
use crate::config::{self, Config};
use crate::error::{GitError, Result};
use crate::repo::{IndexEntry, Repo, join};
use crate::worktree::{self, Ignore, Pathspec};

/// `git init [-q] [-b BRANCH] [DIR]`.
pub fn init(g: &mut G<'_, '_>) -> Result<i32> {
    let mut quiet = false;
    let mut branch: Option<String> = None;
    let mut dir: Option<String> = None;
    let mut bare = false;
    let mut i = 0;
    while i < g.args.len() {
        let a = g.args[i].clone();
        match a.as_str() {
            "-q" | "--quiet" => quiet = true,
            "--bare" => bare = true,
            "-b" | "--initial-branch" => {
                i += 1;
                branch = g.args.get(i).cloned();
            }
            s if s.starts_with("--initial-branch=") => branch = Some(s[17..].to_string()),
            s if s.starts_with('-') => {
                return Err(GitError::Usage(format!(
                    "error: unknown option `{}'",
                    s.trim_start_matches('-')
                )));
            }
            s => dir = Some(s.to_string()),
        }
        i += 1;
    }
    let work = match &dir {
        Some(d) => sandkeep_shell::Fs::resolve(&g.cwd, d),
        None => g.cwd.clone(),
    };
    g.fs.mkdir_all(&work)?;
    let git_dir = if bare {
        work.clone()
    } else {
        join(&work, ".git")
    };
    let existed = g.fs.exists(&join(&git_dir, "HEAD"));
    if !existed {
        let home_cfg = g
            .getenv("HOME")
            .and_then(|h| g.fs.read(&join(h, ".gitconfig")).ok())
            .map(|d| Config::parse(&d))
            .unwrap_or_default();
        let branch = branch
            .or_else(|| config_get(g, None, "init.defaultBranch"))
            .or_else(|| home_cfg.get("init.defaultBranch").map(str::to_string))
            .unwrap_or_else(|| "master".to_string());
        for d in [
            "objects/info",
            "objects/pack",
            "refs/heads",
            "refs/tags",
            "info",
            "branches",
            "hooks",
        ] {
            g.fs.mkdir_all(&join(&git_dir, d))?;
        }
        g.fs.write(
            &join(&git_dir, "HEAD"),
            format!("ref: refs/heads/{branch}\n").as_bytes(),
        )?;
        g.fs.write(
            &join(&git_dir, "config"),
            if bare {
                &b"[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = true\n"[..]
            } else {
                &b"[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n"[..]
            },
        )?;
        g.fs.write(
            &join(&git_dir, "description"),
            b"Unnamed repository; edit this file 'description' to name the repository.\n",
        )?;
        g.fs.write(
            &join(&git_dir, "info/exclude"),
            b"# git ls-files --others --exclude-from=.git/info/exclude\n# Lines that start with '#' are comments.\n# For a project mostly in C, the following would be a good set of\n# exclude patterns (uncomment them if you want to use them):\n# *.[oa]\n# *~\n",
        )?;
    } else if let Some(b) = &branch {
        let _ = writeln!(g.err, "warning: re-init: ignored --initial-branch={b}");
    }
    if !quiet {
        let what = if existed {
            "Reinitialized existing"
        } else {
            "Initialized empty"
        };
        let _ = writeln!(g.out, "{what} Git repository in {git_dir}/");
    }
    Ok(0)
}

/// `git config [--global|--local] [--get|--unset|--list|-l] [KEY [VALUE]]`.
pub fn config(g: &mut G<'_, '_>) -> Result<i32> {
    let mut global = false;
    let mut list = false;
    let mut unset = false;
    let mut get_all = false;
    let mut bool_type = false;
    let mut int_type = false;
    let (mut get_regexp, mut name_only, mut add, mut unset_all, mut remove_sec, mut show_origin) =
        (false, false, false, false, false, false);
    let mut rest = Vec::new();
    for a in g.args.clone() {
        match a.as_str() {
            "--global" => global = true,
            "--local" => global = false,
            "-l" | "--list" => list = true,
            "--unset" => unset = true,
            "--unset-all" => {
                unset = true;
                unset_all = true;
            }
            "--get" => {}
            "--get-all" => get_all = true,
            "--get-regexp" => get_regexp = true,
            "--name-only" => name_only = true,
            "--show-origin" => show_origin = true,
            "--remove-section" => remove_sec = true,
            "--bool" | "--type=bool" => bool_type = true,
            "--int" | "--type=int" => int_type = true,
            "--add" => add = true,
            "--replace-all" => {}
            s if s.starts_with('-') => {
                return Err(GitError::Usage(format!(
                    "error: unknown option `{}'",
                    s.trim_start_matches('-')
                )));
            }
            _ => rest.push(a),
        }
    }
    let repo = g.repo().ok();
    let home = g.getenv("HOME").map(str::to_string);
    let file_path = if global {
        match &home {
            Some(h) => join(h, ".gitconfig"),
            None => return Err(GitError::fatal("$HOME not set")),
        }
    } else {
        match &repo {
            Some(r) => r.gp("config"),
            None => {
                if list || rest.len() == 1 {
                    String::new()
                } else {
                    return Err(GitError::fatal("not in a git directory"));
                }
            }
        }
    };
    let read_cfg = |p: &str| -> Config {
        if p.is_empty() {
            return Config::default();
        }
        g.fs.read(p).map(|d| Config::parse(&d)).unwrap_or_default()
    };
    if list {
        let cfg = if global {
            read_cfg(&file_path)
        } else {
            let mut c = home
                .as_ref()
                .map(|h| read_cfg(&join(h, ".gitconfig")))
                .unwrap_or_default();
            if !file_path.is_empty() {
                c.merge(read_cfg(&file_path));
            }
            c
        };
        for (k, v) in &cfg.entries {
            if name_only {
                let _ = writeln!(g.out, "{k}");
                continue;
            }
            match v {
                Some(v) => {
                    let _ = writeln!(g.out, "{k}={v}");
                }
                None => {
                    let _ = writeln!(g.out, "{k}");
                }
            }
        }
        return Ok(0);
    }
    let Some(key) = rest.first().cloned() else {
        return Err(GitError::Usage("error: no action specified".into()));
    };
    if remove_sec {
        let text = String::from_utf8_lossy(&g.fs.read(&file_path).unwrap_or_default()).into_owned();
        let (new, found) = config::remove_section(&text, &key);
        if !found {
            return Err(GitError::fatal(format!("no such section: {key}")));
        }
        g.fs.write(&file_path, new.as_bytes())?;
        return Ok(0);
    }
    if get_regexp {
        let re = regex::Regex::new(&key)
            .map_err(|_| GitError::Raw(format!("error: invalid key pattern: {key}"), 6))?;
        let mut cfg = home
            .as_ref()
            .filter(|_| !file_path.ends_with("/config") || !global)
            .map(|h| read_cfg(&join(h, ".gitconfig")))
            .unwrap_or_default();
        if global {
            cfg = read_cfg(&file_path);
        } else if !file_path.is_empty() {
            cfg.merge(read_cfg(&file_path));
        }
        let mut found = false;
        for (k, v) in &cfg.entries {
            if !re.is_match(k) {
                continue;
            }
            found = true;
            match (v, name_only) {
                (_, true) | (None, _) => {
                    let _ = writeln!(g.out, "{k}");
                }
                (Some(v), false) => {
                    let _ = writeln!(g.out, "{k} {v}");
                }
            }
        }
        return Ok(if found { 0 } else { 1 });
    }
    let Some(canon) = config::canonical(&key) else {
        let _ = writeln!(g.err, "error: key does not contain a section: {key}");
        return Ok(1);
    };
    if unset {
        let text = String::from_utf8_lossy(&g.fs.read(&file_path).unwrap_or_default()).into_owned();
        if !unset_all && config::count_in_file(&text, &key) > 1 {
            let _ = writeln!(g.err, "warning: {canon} has multiple values");
            return Ok(5);
        }
        let (new, removed) = config::unset_in_file(&text, &canon_user(&key));
        if !removed {
            return Ok(5);
        }
        g.fs.write(&file_path, new.as_bytes())?;
        return Ok(0);
    }
    if rest.len() == 1 {
        let cfg = if global {
            read_cfg(&file_path)
        } else {
            let mut c = home
                .as_ref()
                .map(|h| read_cfg(&join(h, ".gitconfig")))
                .unwrap_or_default();
            if !file_path.is_empty() {
                c.merge(read_cfg(&file_path));
            }
            c
        };
        let values: Vec<String> = cfg
            .entries
            .iter()
            .filter(|(k, _)| *k == canon)
            .map(|(_, v)| v.clone().unwrap_or_else(|| "true".into()))
            .collect();
        if values.is_empty() {
            return Ok(1);
        }
        let shown: Vec<String> = if get_all {
            values
        } else {
            vec![values.last().cloned().unwrap_or_default()]
        };
        for v in shown {
            let v = if bool_type {
                match v.to_ascii_lowercase().as_str() {
                    "yes" | "on" | "1" | "true" | "" => "true".to_string(),
                    "no" | "off" | "0" | "false" => "false".to_string(),
                    _ => v,
                }
            } else if int_type {
                let lower = v.to_ascii_lowercase();
                let (num, mult) = match lower.chars().last() {
                    Some('k') => (&lower[..lower.len() - 1], 1024i64),
                    Some('m') => (&lower[..lower.len() - 1], 1024 * 1024),
                    Some('g') => (&lower[..lower.len() - 1], 1024 * 1024 * 1024),
                    _ => (lower.as_str(), 1),
                };
                match num.trim().parse::<i64>() {
                    Ok(n) => (n * mult).to_string(),
                    Err(_) => {
                        return Err(GitError::fatal(format!(
                            "bad numeric config value '{v}' for '{canon}': invalid unit"
                        )));
                    }
                }
            } else {
                v
            };
            if show_origin {
                let origin = if global || file_path.is_empty() {
                    home.as_ref()
                        .map(|h| join(h, ".gitconfig"))
                        .unwrap_or_default()
                } else {
                    ".git/config".to_string()
                };
                let _ = writeln!(g.out, "file:{origin}\t{v}");
            } else {
                let _ = writeln!(g.out, "{v}");
            }
        }
        return Ok(0);
    }
    let text = String::from_utf8_lossy(&g.fs.read(&file_path).unwrap_or_default()).into_owned();
    let new = if add {
        config::add_in_file(&text, &canon_user(&key), &rest[1])
    } else {
        config::set_in_file(&text, &canon_user(&key), &rest[1])
    };
    g.fs.write(&file_path, new.as_bytes())?;
    Ok(0)
}

/// A key with its section lowercased and its name as the user wrote it.
fn canon_user(key: &str) -> String {
    let first = key.find('.').unwrap_or(0);
    format!("{}{}", key[..first].to_ascii_lowercase(), &key[first..])
}

/// The index entry for the work-tree file `rel`, its blob written.
pub fn stage_file(repo: &Repo<'_>, rel: &str) -> Result<IndexEntry> {
    let data = worktree::file_content(repo, rel)?;
    let mode = worktree::file_mode(repo, rel).unwrap_or(0o100644);
    let id = repo.write_object(Kind::Blob, &data)?;
    let meta = repo.fs.symlink_metadata(&repo.wp(rel))?;
    Ok(IndexEntry {
        path: rel.to_string(),
        id,
        mode,
        stage: 0,
        size: data.len() as u64,
        mtime: (meta.mtime.secs, meta.mtime.nanos),
    })
}

/// `git add [-A|-u|-f|-n|-v] [PATHSPEC...]`.
pub fn add(g: &mut G<'_, '_>) -> Result<i32> {
    let args = split_short(&g.args, &[]);
    let mut all = false;
    let mut update = false;
    let mut force = false;
    let mut dry = false;
    let mut verbose = false;
    let mut paths = Vec::new();
    let mut dashdash = false;
    for a in args {
        if dashdash {
            paths.push(a);
            continue;
        }
        match a.as_str() {
            "--" => dashdash = true,
            "-A" | "--all" => all = true,
            "-u" | "--update" => update = true,
            "-f" | "--force" => force = true,
            "-n" | "--dry-run" => dry = true,
            "-v" | "--verbose" => verbose = true,
            s if s.starts_with('-') && s.len() > 1 => {
                return Err(GitError::Usage(format!(
                    "error: unknown option `{}'",
                    s.trim_start_matches('-')
                )));
            }
            _ => paths.push(a),
        }
    }
    let repo = g.repo()?;
    if paths.is_empty() && !all && !update {
        let _ = writeln!(
            g.err,
            "Nothing specified, nothing added.\nhint: Maybe you wanted to say 'git add .'?\nhint: Disable this message with \"git config advice.addEmptyPathspec false\""
        );
        return Ok(0);
    }
    let spec = Pathspec::new(&repo, &g.cwd, &paths)?;
    let mut index = repo.read_index()?;
    let mut ignore = Ignore::new(&repo);
    let check = || g.check();
    let files = worktree::walk(&repo, &mut ignore, &check)?;
    let tracked: BTreeSet<String> = index.iter().map(|e| e.path.clone()).collect();
    // Pathspecs that name nothing.
    for item in &spec.items {
        let hit = files.iter().any(|f| worktree::item_matches(item, &f.path))
            || tracked.iter().any(|p| worktree::item_matches(item, p));
        if !hit {
            return Err(GitError::fatal(format!(
                "pathspec '{}' did not match any files",
                paths[spec.items.iter().position(|x| x == item).unwrap_or(0)]
            )));
        }
    }
    let mut ignored_named = Vec::new();
    let mut by_path: BTreeMap<String, IndexEntry> =
        index.drain(..).map(|e| (e.path.clone(), e)).collect();
    let mut messages = Vec::new();
    for f in &files {
        if !spec.matches(&f.path) {
            continue;
        }
        let is_tracked = by_path.contains_key(&f.path);
        if update && !is_tracked {
            continue;
        }
        if f.ignored && !is_tracked && !force {
            if spec.items.iter().any(|i| i == &f.path) {
                ignored_named.push(f.path.clone());
            }
            continue;
        }
        let old = by_path.get(&f.path);
        let data = worktree::file_content(&repo, &f.path)?;
        let id = worktree::blob_id(&data);
        let mode = worktree::file_mode(&repo, &f.path).unwrap_or(0o100644);
        if let Some(o) = old
            && o.id == id
            && o.mode == mode
            && o.stage == 0
        {
            continue;
        }
        messages.push(format!("add '{}'", f.path));
        if !dry {
            by_path.remove(&f.path);
            let e = stage_file(&repo, &f.path)?;
            by_path.insert(f.path.clone(), e);
        }
    }
    let present: BTreeSet<&str> = files.iter().map(|f| f.path.as_str()).collect();
    let gone: Vec<String> = by_path
        .keys()
        .filter(|p| spec.matches(p) && !present.contains(p.as_str()))
        .cloned()
        .collect();
    for p in gone {
        messages.push(format!("remove '{p}'"));
        if !dry {
            by_path.remove(&p);
        }
    }
    if verbose || dry {
        for m in &messages {
            let _ = writeln!(g.out, "{m}");
        }
    }
    let entries: Vec<IndexEntry> = by_path.into_values().collect();
    if !dry {
        repo.write_index(&entries)?;
    }
    if !ignored_named.is_empty() {
        let _ = writeln!(
            g.err,
            "The following paths are ignored by one of your .gitignore files:"
        );
        for p in &ignored_named {
            let _ = writeln!(g.err, "{p}");
        }
        let _ = writeln!(
            g.err,
            "hint: Use -f if you really want to add them.\nhint: Disable this message with \"git config advice.addIgnoredFile false\""
        );
        return Ok(1);
    }
    Ok(0)
}

/// `git rm [--cached] [-r] [-f] [-q] PATHSPEC...`.
pub fn rm(g: &mut G<'_, '_>) -> Result<i32> {
    let args = split_short(&g.args, &[]);
    let (mut cached, mut recursive, mut force, mut quiet, mut dry) =
        (false, false, false, false, false);
    let mut paths = Vec::new();
    for a in args {
        match a.as_str() {
            "--cached" => cached = true,
            "-r" => recursive = true,
            "-f" | "--force" => force = true,
            "-q" | "--quiet" => quiet = true,
            "-n" | "--dry-run" => dry = true,
            "--" => {}
            s if s.starts_with('-') && s.len() > 1 => {
                return Err(GitError::Usage(format!(
                    "error: unknown option `{}'",
                    s.trim_start_matches('-')
                )));
            }
            _ => paths.push(a),
        }
    }
    if paths.is_empty() {
        return Err(GitError::Usage(
            "usage: git rm [<options>] [--] <file>...".into(),
        ));
    }
    let repo = g.repo()?;
    let spec = Pathspec::new(&repo, &g.cwd, &paths)?;
    let index = repo.read_index()?;
    let head_files = repo.commit_files(repo.head().as_ref())?;
    let mut remove: Vec<String> = Vec::new();
    for (n, item) in spec.items.iter().enumerate() {
        let matched: Vec<&IndexEntry> = index
            .iter()
            .filter(|e| worktree::item_matches(item, &e.path))
            .collect();
        if matched.is_empty() {
            return Err(GitError::fatal(format!(
                "pathspec '{}' did not match any files",
                paths[n]
            )));
        }
        if !recursive && matched.iter().any(|e| &e.path != item) && !item.contains(['*', '?', '['])
        {
            return Err(GitError::fatal(format!(
                "not removing '{}' recursively without -r",
                paths[n]
            )));
        }
        for e in matched {
            if !remove.contains(&e.path) {
                remove.push(e.path.clone());
            }
        }
    }
    remove.sort();
    if !force {
        let mut staged = Vec::new();
        let mut local = Vec::new();
        let mut both = Vec::new();
        for p in &remove {
            let Some(e) = index.iter().find(|e| &e.path == p) else {
                continue;
            };
            if e.stage != 0 {
                // An unmerged path: removing it is how a conflict is resolved.
                continue;
            }
            let in_head = head_files.get(p).map(|(m, id)| (*m, *id));
            let staged_diff = in_head != Some((e.mode, e.id));
            let work = worktree::file_content(&repo, p).ok();
            let local_diff = work.as_ref().is_some_and(|d| worktree::blob_id(d) != e.id);
            if staged_diff && local_diff && in_head.is_some() {
                both.push(p.clone());
            } else if local_diff && !cached {
                local.push(p.clone());
            } else if staged_diff && !cached && work.is_some() && in_head.is_some() {
                staged.push(p.clone());
            } else if staged_diff && local_diff {
                both.push(p.clone());
            }
        }
        let report = |g: &mut G<'_, '_>, what: &str, list: &[String]| {
            let s = if list.len() == 1 {
                "file has"
            } else {
                "files have"
            };
            let _ = writeln!(g.err, "error: the following {s} {what}:");
            for p in list {
                let _ = writeln!(g.err, "    {p}");
            }
        };
        if !both.is_empty() {
            report(
                g,
                "staged content different from both the\nfile and the HEAD",
                &both,
            );
            let _ = writeln!(g.err, "(use -f to force removal)");
            return Ok(1);
        }
        if !staged.is_empty() {
            report(g, "changes staged in the index", &staged);
            let _ = writeln!(
                g.err,
                "(use --cached to keep the file, or -f to force removal)"
            );
            return Ok(1);
        }
        if !local.is_empty() {
            report(g, "local modifications", &local);
            let _ = writeln!(
                g.err,
                "(use --cached to keep the file, or -f to force removal)"
            );
            return Ok(1);
        }
    }
    for p in &remove {
        if !quiet {
            let _ = writeln!(g.out, "rm '{p}'");
        }
    }
    if dry {
        return Ok(0);
    }
    let kept: Vec<IndexEntry> = index
        .into_iter()
        .filter(|e| !remove.contains(&e.path))
        .collect();
    repo.write_index(&kept)?;
    if !cached {
        for p in &remove {
            let _ = g.fs.remove_file(&repo.wp(p));
            remove_empty_parents(&repo, p);
        }
    }
    Ok(0)
}

/// Removes the directories of `rel` that became empty (as git does).
pub fn remove_empty_parents(repo: &Repo<'_>, rel: &str) {
    let mut dir = rel;
    while let Some(i) = dir.rfind('/') {
        dir = &dir[..i];
        let p = repo.wp(dir);
        if repo.fs.read_dir(&p).is_ok_and(|e| e.is_empty()) {
            let _ = repo.fs.remove_dir(&p);
        } else {
            break;
        }
    }
}

/// `git mv [-f] [-k] [-n] [-v] SRC... DST`.
pub fn mv(g: &mut G<'_, '_>) -> Result<i32> {
    let args = split_short(&g.args, &[]);
    let mut force = false;
    let mut verbose = false;
    let mut dry = false;
    let mut paths = Vec::new();
    for a in args {
        match a.as_str() {
            "-f" | "--force" => force = true,
            "-v" | "--verbose" => verbose = true,
            "-n" | "--dry-run" => dry = true,
            "-k" | "--" => {}
            _ => paths.push(a),
        }
    }
    if paths.len() < 2 {
        return Err(GitError::Usage(
            "usage: git mv [<options>] <source>... <destination>".into(),
        ));
    }
    let repo = g.repo()?;
    let dst_arg = paths.pop().unwrap_or_default();
    let spec_dst = Pathspec::new(&repo, &g.cwd, std::slice::from_ref(&dst_arg))?;
    let dst_rel = spec_dst.items[0].clone();
    let dst_is_dir =
        g.fs.metadata(&repo.wp(&dst_rel))
            .is_ok_and(|m| m.kind == FileKind::Dir);
    if paths.len() > 1 && !dst_is_dir {
        return Err(GitError::fatal(format!(
            "destination '{dst_arg}' is not a directory"
        )));
    }
    let mut index = repo.read_index()?;
    for src_arg in &paths {
        let src_rel = Pathspec::new(&repo, &g.cwd, std::slice::from_ref(src_arg))?.items[0].clone();
        let base = src_rel.rsplit('/').next().unwrap_or(&src_rel).to_string();
        let target = if dst_is_dir {
            join(&dst_rel, &base)
        } else {
            dst_rel.clone()
        };
        let src_meta = g.fs.symlink_metadata(&repo.wp(&src_rel));
        if src_meta.is_err() {
            return Err(GitError::fatal(format!(
                "bad source, source={src_rel}, destination={target}"
            )));
        }
        let is_dir = src_meta.as_ref().is_ok_and(|m| m.kind == FileKind::Dir);
        let prefix = format!("{src_rel}/");
        let tracked = index
            .iter()
            .any(|e| e.path == src_rel || (is_dir && e.path.starts_with(&prefix)));
        if !tracked {
            return Err(GitError::fatal(format!(
                "not under version control, source={src_rel}, destination={target}"
            )));
        }
        if g.fs.exists(&repo.wp(&target)) && !force {
            return Err(GitError::fatal(format!(
                "destination exists, source={src_rel}, destination={target}"
            )));
        }
        if verbose || dry {
            let _ = writeln!(g.out, "Renaming {src_rel} to {target}");
        }
        if dry {
            continue;
        }
        if force && !is_dir {
            let _ = g.fs.remove_file(&repo.wp(&target));
        }
        g.fs.rename(&repo.wp(&src_rel), &repo.wp(&target))?;
        index.retain(|e| !(force && e.path == target));
        for e in index.iter_mut() {
            if e.path == src_rel {
                e.path = target.clone();
            } else if is_dir && e.path.starts_with(&prefix) {
                e.path = format!("{target}/{}", &e.path[prefix.len()..]);
            }
        }
    }
    if !dry {
        repo.write_index(&index)?;
    }
    Ok(0)
}

/// `git ls-files [-s] [-o] [-m] [-d] [-c] [--exclude-standard] [-z] [PATHSPEC...]`.
pub fn ls_files(g: &mut G<'_, '_>) -> Result<i32> {
    let args = split_short(&g.args, &[]);
    let (
        mut stage,
        mut others,
        mut modified,
        mut deleted,
        mut cached,
        mut std_ex,
        mut ignored,
        mut zero,
        mut unmerged,
    ) = (
        false, false, false, false, false, false, false, false, false,
    );
    let mut paths = Vec::new();
    for a in args {
        match a.as_str() {
            "-s" | "--stage" => stage = true,
            "-o" | "--others" => others = true,
            "-m" | "--modified" => modified = true,
            "-d" | "--deleted" => deleted = true,
            "-c" | "--cached" => cached = true,
            "-i" | "--ignored" => ignored = true,
            "-u" | "--unmerged" => unmerged = true,
            "-z" => zero = true,
            "--exclude-standard" => std_ex = true,
            "--" | "--full-name" => {}
            s if s.starts_with('-') && s.len() > 1 => {
                return Err(GitError::Usage(format!(
                    "error: unknown option `{}'",
                    s.trim_start_matches('-')
                )));
            }
            _ => paths.push(a),
        }
    }
    let repo = g.repo()?;
    let spec = Pathspec::new(&repo, &g.cwd, &paths)?;
    let index = repo.read_index()?;
    let term = if zero { '\0' } else { '\n' };
    if !others && !modified && !deleted && !unmerged {
        cached = true;
    }
    if unmerged {
        stage = true;
    }
    let mut lines: Vec<String> = Vec::new();
    let cwd = g.cwd.clone();
    let non_ascii = super::quote_non_ascii(g, &repo);
    let show = |p: &str| {
        let shown = worktree::relative_to_cwd(&repo, &cwd, p);
        if zero {
            shown
        } else {
            worktree::quote_path(&shown, non_ascii, false)
        }
    };
    // Only entries under the working directory.
    let root = repo.work_tree.trim_end_matches('/').to_string();
    let cwd_prefix = cwd
        .strip_prefix(&format!("{root}/"))
        .map(|s| format!("{s}/"))
        .unwrap_or_default();
    let under = |p: &str| cwd_prefix.is_empty() || p.starts_with(&cwd_prefix);
    if cached || stage || unmerged {
        for e in &index {
            if !spec.matches(&e.path) || !under(&e.path) || (unmerged && e.stage == 0) {
                continue;
            }
            if stage {
                lines.push(format!(
                    "{:o} {} {}\t{}",
                    e.mode,
                    e.id.to_hex(),
                    e.stage,
                    show(&e.path)
                ));
            } else if lines.last().is_none_or(|l| *l != show(&e.path)) {
                lines.push(show(&e.path));
            }
        }
    }
    if modified || deleted {
        for e in &index {
            if !spec.matches(&e.path) || !under(&e.path) {
                continue;
            }
            match worktree::file_content(&repo, &e.path) {
                Err(_) => {
                    if deleted {
                        lines.push(show(&e.path));
                    }
                    if modified {
                        lines.push(show(&e.path));
                    }
                }
                Ok(d) => {
                    if modified
                        && (worktree::blob_id(&d) != e.id
                            || worktree::file_mode(&repo, &e.path) != Some(e.mode))
                    {
                        lines.push(show(&e.path));
                    }
                }
            }
        }
    }
    if others {
        let mut ig = if std_ex {
            Ignore::new(&repo)
        } else {
            Ignore::default()
        };
        let check = || g.check();
        let files = worktree::walk(&repo, &mut ig, &check)?;
        let tracked: BTreeSet<&str> = index.iter().map(|e| e.path.as_str()).collect();
        for f in files {
            if tracked.contains(f.path.as_str()) || !spec.matches(&f.path) || !under(&f.path) {
                continue;
            }
            if (std_ex && f.ignored) != ignored && std_ex {
                continue;
            }
            lines.push(show(&f.path));
        }
    }
    for l in lines {
        let _ = write!(g.out, "{l}{term}");
    }
    Ok(0)
}

/// `git cat-file (-t|-s|-p|-e|TYPE) OBJECT`.
pub fn cat_file(g: &mut G<'_, '_>) -> Result<i32> {
    let repo = g.repo()?;
    if g.args.len() != 2 {
        return Err(GitError::Usage(
            "usage: git cat-file (-t | -s | -e | -p | <type>) <object>".into(),
        ));
    }
    let (mode, spec) = (g.args[0].clone(), g.args[1].clone());
    let id = match super::rev_opt(&repo, &spec)? {
        Some(id) => id,
        None if mode == "-e" => return Ok(1),
        None => return Err(GitError::fatal(format!("Not a valid object name {spec}"))),
    };
    let (kind, data) = repo.read_object(&id)?;
    match mode.as_str() {
        "-t" => {
            let _ = writeln!(g.out, "{kind}");
        }
        "-s" => {
            let _ = writeln!(g.out, "{}", data.len());
        }
        "-e" => {}
        "-p" => match kind {
            Kind::Tree => {
                for (name, m, oid) in repo.tree(&id)? {
                    let t = if m == 0o40000 {
                        "tree"
                    } else if m == 0o160000 {
                        "commit"
                    } else {
                        "blob"
                    };
                    let _ = writeln!(g.out, "{m:06o} {t} {}\t{name}", oid.to_hex());
                }
            }
            _ => g.out.extend_from_slice(&data),
        },
        t => {
            if t != kind.to_string() {
                return Err(GitError::fatal(format!("git cat-file {spec}: bad file")));
            }
            g.out.extend_from_slice(&data);
        }
    }
    Ok(0)
}

/// `git hash-object [-w] [--stdin] FILE...`.
pub fn hash_object(g: &mut G<'_, '_>) -> Result<i32> {
    let args = g.args.clone();
    let mut write = false;
    let (mut stdin, mut stdin_paths) = (false, false);
    let mut files = Vec::new();
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "-w" => write = true,
            "--stdin" => stdin = true,
            "--stdin-paths" => stdin_paths = true,
            "-t" => {
                i += 1;
                let t = args.get(i).cloned().unwrap_or_default();
                if t != "blob" {
                    return Err(GitError::fatal(format!(
                        "only blob objects can be hashed in the local sandbox, not '{t}'"
                    )));
                }
            }
            "--no-filters" | "--literally" | "--" => {}
            s if s.starts_with('-') => {
                return Err(GitError::Usage(format!(
                    "error: unknown option `{}'",
                    s.trim_start_matches('-')
                )));
            }
            s => files.push(s.to_string()),
        }
        i += 1;
    }
    let repo = g.repo().ok();
    let mut inputs: Vec<(String, Option<Vec<u8>>)> = Vec::new();
    if stdin {
        let data = g.read_stdin();
        inputs.push(("-".into(), Some(data)));
    }
    if stdin_paths {
        let data = g.read_stdin();
        for l in String::from_utf8_lossy(&data).lines() {
            files.push(l.to_string());
        }
    }
    for f in files {
        inputs.push((f, None));
    }
    for (name, data) in inputs {
        let data = match data {
            Some(d) => d,
            None => {
                g.fs.read(&sandkeep_shell::Fs::resolve(&g.cwd, &name))
                    .map_err(|_| {
                        GitError::fatal(format!(
                            "could not open '{name}' for reading: No such file or directory"
                        ))
                    })?
            }
        };
        let id = match (&repo, write) {
            (Some(r), true) => r.write_object(Kind::Blob, &data)?,
            _ => worktree::blob_id(&data),
        };
        let _ = writeln!(g.out, "{}", id.to_hex());
    }
    Ok(0)
}

/// `git write-tree`.
pub fn write_tree(g: &mut G<'_, '_>) -> Result<i32> {
    let repo = g.repo()?;
    let index = repo.read_index()?;
    let id = repo.write_index_tree(&index)?;
    let _ = writeln!(g.out, "{}", id.to_hex());
    Ok(0)
}

/// `git ls-tree [-r] [--name-only] TREE-ISH [PATHS]`.
pub fn ls_tree(g: &mut G<'_, '_>) -> Result<i32> {
    let repo = g.repo()?;
    let recursive = g.args.iter().any(|a| a == "-r");
    let names = g
        .args
        .iter()
        .any(|a| a == "--name-only" || a == "--name-status");
    let rest: Vec<String> = g
        .args
        .iter()
        .filter(|a| !a.starts_with('-'))
        .cloned()
        .collect();
    let Some(spec) = rest.first() else {
        return Err(GitError::Usage(
            "usage: git ls-tree [<options>] <tree-ish> [<path>...]".into(),
        ));
    };
    let id = super::rev(&repo, spec)?;
    let tree = super::peel_to_tree(&repo, &id)?;
    let paths = Pathspec {
        items: rest[1..].to_vec(),
    };
    let mut stack = vec![(String::new(), tree)];
    let mut lines = Vec::new();
    while let Some((prefix, t)) = stack.pop() {
        for (name, mode, oid) in repo.tree(&t)? {
            let path = join(&prefix, &name);
            if mode == 0o40000 && recursive {
                stack.push((path, oid));
                continue;
            }
            if !paths.matches(&path) {
                continue;
            }
            let kind = if mode == 0o40000 {
                "tree"
            } else if mode == 0o160000 {
                "commit"
            } else {
                "blob"
            };
            lines.push((
                path.clone(),
                if names {
                    path
                } else {
                    format!("{mode:06o} {kind} {}\t{path}", oid.to_hex())
                },
            ));
        }
    }
    lines.sort();
    for (_, l) in lines {
        let _ = writeln!(g.out, "{l}");
    }
    Ok(0)
}

/// `git fsck`: every object reachable from the refs, `HEAD` and the index
/// is read and parsed; a missing or broken one is reported as git reports
/// it (`missing blob ID`, `broken link from ...`), with status 2.
pub fn fsck(g: &mut G<'_, '_>) -> Result<i32> {
    let repo = g.repo()?;
    let mut roots: Vec<ObjectId> = repo.refs("refs/").values().copied().collect();
    roots.extend(repo.head());
    let mut seen = std::collections::HashSet::new();
    let mut stack: Vec<(ObjectId, Kind)> = Vec::new();
    for r in roots {
        if let Ok((k, _)) = repo.read_object(&r) {
            stack.push((r, k));
        } else {
            let _ = writeln!(g.out, "missing object {}", r.to_hex());
        }
    }
    for e in repo.read_index()? {
        stack.push((e.id, Kind::Blob));
    }
    let mut bad = false;
    while let Some((id, want)) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        g.check()?;
        let Ok((kind, data)) = repo.read_object(&id) else {
            let _ = writeln!(g.out, "missing {want} {}", id.to_hex());
            bad = true;
            continue;
        };
        match kind {
            Kind::Commit => {
                let c = repo.commit(&id)?;
                stack.push((c.tree, Kind::Tree));
                stack.extend(c.parents.iter().map(|p| (*p, Kind::Commit)));
            }
            Kind::Tree => {
                for (_, mode, child) in repo.tree(&id)? {
                    // Submodule entries point outside the repository.
                    if mode == 0o160000 {
                        continue;
                    }
                    stack.push((
                        child,
                        if mode == 0o40000 {
                            Kind::Tree
                        } else {
                            Kind::Blob
                        },
                    ));
                }
            }
            Kind::Tag => {
                if let Ok(t) = gix_object::TagRef::from_bytes(&data, crate::repo::HASH) {
                    stack.push((t.target(), t.target_kind));
                }
            }
            Kind::Blob => {}
        }
    }
    Ok(if bad { 2 } else { 0 })
}
