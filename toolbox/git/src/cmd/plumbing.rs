//! Building commits by hand: `update-index` (`--add`, `--remove`,
//! `--force-remove`, `--cacheinfo`) and `commit-tree`; and `archive`, the
//! tar (or gzipped tar) of a tree as git writes it (a pax global header
//! naming the commit, `root`-owned entries, modes under git's `tar.umask`
//! of 002, the commit's time, records padded to 10240 bytes).

use std::io::Write;

use gix_hash::ObjectId;
use gix_object::Kind;

use super::{G, split_short};
use crate::error::{GitError, Result};
use crate::repo::{IndexEntry, Repo};
use crate::worktree;

/// `git update-index [--add] [--remove] [--force-remove] [--cacheinfo M,ID,PATH] [PATH...]`.
pub fn update_index(g: &mut G<'_, '_>) -> Result<i32> {
    let repo = g.repo()?;
    let mut index = repo.read_index()?;
    let (mut add, mut remove, mut force_remove) = (false, false, false);
    let args = g.args.clone();
    let mut i = 0;
    let upsert = |index: &mut Vec<IndexEntry>, e: IndexEntry| {
        index.retain(|x| x.path != e.path);
        index.push(e);
        index.sort_by(|a, b| {
            a.path
                .as_bytes()
                .cmp(b.path.as_bytes())
                .then(a.stage.cmp(&b.stage))
        });
    };
    while i < args.len() {
        let a = args[i].as_str();
        match a {
            "--add" => add = true,
            "--remove" => remove = true,
            "--force-remove" => force_remove = true,
            "-q" | "--refresh" | "--really-refresh" | "--ignore-missing" => {}
            "--cacheinfo" => {
                let (mode, id, path) = match args.get(i + 1).and_then(|v| {
                    let mut p = v.splitn(3, ',');
                    Some((
                        p.next()?.to_string(),
                        p.next()?.to_string(),
                        p.next()?.to_string(),
                    ))
                }) {
                    Some(t) => {
                        i += 1;
                        t
                    }
                    None if args.len() >= i + 4 => {
                        let t = (
                            args[i + 1].clone(),
                            args[i + 2].clone(),
                            args[i + 3].clone(),
                        );
                        i += 3;
                        t
                    }
                    None => {
                        return Err(GitError::Raw(
                            "error: option 'cacheinfo' expects <mode>,<sha1>,<path>".into(),
                            129,
                        ));
                    }
                };
                let mode = u32::from_str_radix(&mode, 8).map_err(|_| {
                    GitError::fatal(format!("git update-index: --cacheinfo cannot add {path}"))
                })?;
                let id = ObjectId::from_hex(id.as_bytes()).map_err(|_| {
                    GitError::Raw(
                        "error: option 'cacheinfo' expects <mode>,<sha1>,<path>".into(),
                        129,
                    )
                })?;
                if !add && !index.iter().any(|e| e.path == path) {
                    return Err(GitError::Raw(
                        format!(
                            "error: {path}: cannot add to the index - missing --add option?\nfatal: git update-index: --cacheinfo cannot add {path}"
                        ),
                        128,
                    ));
                }
                upsert(
                    &mut index,
                    IndexEntry {
                        path,
                        id,
                        mode,
                        stage: 0,
                        size: 0,
                        mtime: (0, 0),
                    },
                );
            }
            s if s.starts_with('-') && s.len() > 1 => return Err(super::usage_error(s)),
            path => {
                let rel = worktree::relative_to_cwd(&repo, &g.cwd, path);
                let rel = repo_path(&repo, &g.cwd, path).unwrap_or(rel);
                let exists = worktree::file_mode(&repo, &rel).is_some();
                let tracked = index.iter().any(|e| e.path == rel);
                if force_remove || (remove && !exists) {
                    index.retain(|e| e.path != rel);
                } else if !exists {
                    return Err(GitError::Raw(
                        format!(
                            "error: {path}: does not exist and --remove not passed\nfatal: Unable to process path {path}"
                        ),
                        128,
                    ));
                } else if !tracked && !add {
                    return Err(GitError::Raw(
                        format!(
                            "error: {path}: cannot add to the index - missing --add option?\nfatal: Unable to process path {path}"
                        ),
                        128,
                    ));
                } else {
                    let e = super::basic::stage_file(&repo, &rel)?;
                    upsert(&mut index, e);
                }
            }
        }
        i += 1;
    }
    repo.write_index(&index)?;
    Ok(0)
}

/// The repository-relative path of `path` given from `cwd`.
fn repo_path(repo: &Repo<'_>, cwd: &str, path: &str) -> Option<String> {
    let abs = sandkeep_shell::Fs::resolve(cwd, path);
    let root = repo.work_tree.trim_end_matches('/');
    abs.strip_prefix(root)
        .map(|r| r.trim_start_matches('/').to_string())
}

/// `git commit-tree TREE [-p PARENT]... [-m MSG]... [-F FILE]`: writes the
/// commit and prints its id; the message comes from stdin without `-m`/`-F`.
pub fn commit_tree(g: &mut G<'_, '_>) -> Result<i32> {
    let repo = g.repo()?;
    let args = split_short(&g.args, &['p', 'm', 'F']);
    let mut tree: Option<String> = None;
    let mut parents = Vec::new();
    let mut messages: Vec<String> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        let value = args.get(i + 1).cloned();
        match a {
            "-p" | "-m" | "-F" => {
                let Some(v) = value else {
                    return Err(GitError::Usage(format!(
                        "error: switch `{}' requires a value",
                        &a[1..]
                    )));
                };
                i += 1;
                match a {
                    "-p" => parents
                        .push(super::rev_commit(&repo, &v).map_err(|_| {
                            GitError::fatal(format!("not a valid object name {v}"))
                        })?),
                    "-m" => messages.push(v),
                    _ => {
                        let data = if v == "-" {
                            g.read_stdin()
                        } else {
                            g.fs.read(&sandkeep_shell::Fs::resolve(&g.cwd, &v))?
                        };
                        messages.push(String::from_utf8_lossy(&data).into_owned());
                    }
                }
            }
            s if s.starts_with('-') && s.len() > 1 => return Err(super::usage_error(s)),
            s => tree = Some(s.to_string()),
        }
        i += 1;
    }
    let Some(tree) = tree else {
        return Err(GitError::Usage(
            "usage: git commit-tree <tree> [(-p <parent>)...]".into(),
        ));
    };
    let tree_id = super::rev_opt(&repo, &tree)
        .ok()
        .flatten()
        .and_then(|id| super::peel_to_tree(&repo, &id).ok())
        .ok_or_else(|| GitError::fatal(format!("not a valid object name {tree}")))?;
    let message = if messages.is_empty() {
        String::from_utf8_lossy(&g.read_stdin()).into_owned()
    } else {
        let mut m = messages
            .iter()
            .map(|m| m.trim_end_matches('\n').to_string())
            .collect::<Vec<_>>()
            .join("\n\n");
        m.push('\n');
        m
    };
    let id = super::status::make_commit(g, &repo, tree_id, parents, &message, None)?;
    let _ = writeln!(g.out, "{}", id.to_hex());
    Ok(0)
}

/// One 512-byte tar header as git writes it (ustar, `root` owner).
fn tar_header(name: &[u8], mode: u32, size: u64, mtime: i64, kind: u8, link: &[u8]) -> [u8; 512] {
    let mut h = [0u8; 512];
    let put = |h: &mut [u8; 512], at: usize, len: usize, v: &[u8]| {
        let n = v.len().min(len);
        h[at..at + n].copy_from_slice(&v[..n]);
    };
    put(&mut h, 0, 100, name);
    put(&mut h, 100, 8, format!("{mode:07o}").as_bytes());
    put(&mut h, 108, 8, b"0000000");
    put(&mut h, 116, 8, b"0000000");
    put(&mut h, 124, 12, format!("{size:011o}").as_bytes());
    put(&mut h, 136, 12, format!("{:011o}", mtime.max(0)).as_bytes());
    h[156] = kind;
    put(&mut h, 157, 100, link);
    put(&mut h, 257, 6, b"ustar\0");
    put(&mut h, 263, 2, b"00");
    put(&mut h, 265, 32, b"root");
    put(&mut h, 297, 32, b"root");
    put(&mut h, 329, 8, b"0000000");
    put(&mut h, 337, 8, b"0000000");
    h[148..156].copy_from_slice(b"        ");
    let sum: u32 = h.iter().map(|&b| u32::from(b)).sum();
    put(&mut h, 148, 8, format!("{sum:07o}\0").as_bytes());
    h
}

/// A pax record `"LEN key=value\n"` (LEN counts itself).
fn pax_record(key: &str, value: &[u8]) -> Vec<u8> {
    let body = value.len() + key.len() + 3;
    let mut len = body + 1;
    while len.to_string().len() + body != len {
        len = len.to_string().len() + body;
    }
    let mut r = format!("{len} {key}=").into_bytes();
    r.extend_from_slice(value);
    r.push(b'\n');
    r
}

/// Appends `data` padded to a 512-byte block.
fn push_padded(out: &mut Vec<u8>, data: &[u8]) {
    out.extend_from_slice(data);
    let pad = (512 - data.len() % 512) % 512;
    out.resize(out.len() + pad, 0);
}

/// Appends one entry (a pax header first when the name is too long).
fn tar_entry(out: &mut Vec<u8>, name: &str, mode: u32, mtime: i64, kind: u8, data: &[u8]) {
    let (size, link) = if kind == b'2' {
        (0, data)
    } else {
        (data.len() as u64, &b""[..])
    };
    let mut short = name.as_bytes();
    if name.len() > 100 || link.len() > 100 {
        let mut rec = pax_record("path", name.as_bytes());
        if link.len() > 100 {
            rec.extend(pax_record("linkpath", link));
        }
        out.extend_from_slice(&tar_header(
            b"PaxHeader",
            0o666,
            rec.len() as u64,
            mtime,
            b'x',
            b"",
        ));
        push_padded(out, &rec);
        short = &name.as_bytes()[..100.min(name.len())];
    }
    out.extend_from_slice(&tar_header(short, mode, size, mtime, kind, link));
    if kind == b'0' {
        push_padded(out, data);
    }
}

/// `git archive [--format=tar|tar.gz|tgz] [--prefix=P] [-o FILE] TREE-ISH [PATH...]`.
pub fn archive(g: &mut G<'_, '_>) -> Result<i32> {
    let repo = g.repo()?;
    let args = split_short(&g.args, &['o']);
    let (mut format, mut prefix, mut output) = (None::<String>, String::new(), None::<String>);
    let mut operands = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        if a == "-o" || a == "--output" {
            i += 1;
            output = args.get(i).cloned();
        } else if let Some(v) = a.strip_prefix("--output=") {
            output = Some(v.to_string());
        } else if let Some(v) = a.strip_prefix("--format=") {
            format = Some(v.to_string());
        } else if let Some(v) = a.strip_prefix("--prefix=") {
            prefix = v.to_string();
        } else if a == "--list" || a == "-l" {
            let _ = writeln!(g.out, "tar\ntgz\ntar.gz");
            return Ok(0);
        } else if a == "-v" || a == "--verbose" || a == "--worktree-attributes" {
        } else if a.starts_with('-') && a.len() > 1 && !a.starts_with("-9") && !a.starts_with("-0")
        {
            return Err(super::usage_error(a));
        } else if !(a.len() == 2 && a.as_bytes()[1].is_ascii_digit() && a.starts_with('-')) {
            operands.push(a.to_string());
        }
        i += 1;
    }
    let format = format.unwrap_or_else(|| match &output {
        Some(o) if o.ends_with(".tar.gz") || o.ends_with(".tgz") => "tar.gz".into(),
        Some(o) if o.ends_with(".zip") => "zip".into(),
        _ => "tar".into(),
    });
    if !matches!(format.as_str(), "tar" | "tar.gz" | "tgz") {
        return Err(GitError::fatal(format!(
            "Unknown archive format '{format}'"
        )));
    }
    let Some(treeish) = operands.first().cloned() else {
        return Err(GitError::Usage(
            "usage: git archive [<options>] <tree-ish> [<path>...]".into(),
        ));
    };
    let id = super::rev_opt(&repo, &treeish)?
        .ok_or_else(|| GitError::fatal(format!("not a valid object name: {treeish}")))?;
    let peeled = super::peel_tag(&repo, &id)?;
    let commit = match repo.read_object(&peeled)?.0 {
        Kind::Commit => Some(peeled),
        _ => None,
    };
    let tree = super::peel_to_tree(&repo, &peeled)
        .map_err(|_| GitError::fatal(format!("not a tree object: {}", peeled.to_hex())))?;
    let mtime = match &commit {
        Some(c) => repo.commit(c)?.committer.time.seconds,
        None => super::now(g).seconds,
    };
    let paths: Vec<String> = operands[1..]
        .iter()
        .map(|p| p.trim_end_matches('/').to_string())
        .collect();
    let mut entries: Vec<(String, u32, ObjectId)> = Vec::new();
    collect(g, &repo, &tree, "", &mut entries)?;
    for p in &paths {
        if !entries
            .iter()
            .any(|(n, _, _)| n.trim_end_matches('/') == p || n.starts_with(&format!("{p}/")))
        {
            return Err(GitError::fatal(format!(
                "pathspec '{p}' did not match any files"
            )));
        }
    }
    let wanted = |n: &str| {
        let n = n.trim_end_matches('/');
        paths.is_empty()
            || paths.iter().any(|p| {
                n == p || n.starts_with(&format!("{p}/")) || p.starts_with(&format!("{n}/"))
            })
    };
    let mut tar = Vec::new();
    if let Some(c) = &commit {
        let rec = pax_record("comment", c.to_hex().to_string().as_bytes());
        tar.extend_from_slice(&tar_header(
            b"pax_global_header",
            0o666,
            rec.len() as u64,
            mtime,
            b'g',
            b"",
        ));
        push_padded(&mut tar, &rec);
    }
    if !prefix.is_empty() && prefix.ends_with('/') {
        tar_entry(&mut tar, &prefix, 0o775, mtime, b'5', b"");
    }
    for (name, mode, oid) in &entries {
        g.check()?;
        if !wanted(name) {
            continue;
        }
        let full = format!("{prefix}{name}");
        match *mode {
            0o040000 => tar_entry(&mut tar, &full, 0o775, mtime, b'5', b""),
            0o120000 => {
                let data = repo.read_kind(oid, Kind::Blob)?;
                tar_entry(&mut tar, &full, 0o777, mtime, b'2', &data);
            }
            0o160000 => tar_entry(&mut tar, &full, 0o775, mtime, b'5', b""),
            m => {
                let data = repo.read_kind(oid, Kind::Blob)?;
                let perm = if m & 0o111 != 0 { 0o775 } else { 0o664 };
                tar_entry(&mut tar, &full, perm, mtime, b'0', &data);
            }
        }
    }
    tar.resize(tar.len() + 1024, 0);
    let record = 10240;
    let pad = (record - tar.len() % record) % record;
    tar.resize(tar.len() + pad, 0);
    let bytes = if format == "tar" {
        tar
    } else {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        let _ = enc.write_all(&tar);
        enc.finish().map_err(|e| GitError::fatal(e.to_string()))?
    };
    match output {
        Some(o) => {
            g.fs.write(&sandkeep_shell::Fs::resolve(&g.cwd, &o), &bytes)?
        }
        None => g.out.extend_from_slice(&bytes),
    }
    Ok(0)
}

/// Every entry under `tree` in git's order, directories (with a trailing
/// `/`) before what they hold.
fn collect(
    g: &G<'_, '_>,
    repo: &Repo<'_>,
    tree: &ObjectId,
    base: &str,
    out: &mut Vec<(String, u32, ObjectId)>,
) -> Result<()> {
    g.check()?;
    for (name, mode, id) in repo.tree(tree)? {
        let path = format!("{base}{name}");
        if mode == 0o040000 {
            out.push((format!("{path}/"), mode, id));
            collect(g, repo, &id, &format!("{path}/"), out)?;
        } else {
            out.push((path, mode, id));
        }
    }
    Ok(())
}
