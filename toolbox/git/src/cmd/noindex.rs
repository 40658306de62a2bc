//! `diff --no-index A B`: two files (or two directories, file by file) of
//! the filesystem compared as git compares blobs, with or without a
//! repository around them; status 1 when they differ.

use std::io::Write;

use sandkeep_shell::{FileKind, Fs};

use super::G;
use crate::diff::{self, StatLine};
use crate::error::{GitError, Result};
use crate::worktree::blob_id;

/// One side of a compared pair: its shown name and content (`None`: absent).
struct Side {
    name: String,
    data: Option<Vec<u8>>,
    mode: u32,
}

fn mode_of(fs: &Fs, path: &str) -> u32 {
    match fs.metadata(path) {
        Ok(m) if m.mode & 0o111 != 0 => 0o100755,
        _ => 0o100644,
    }
}

/// The file pairs to compare under `a` and `b` (directories walked).
fn pairs(fs: &Fs, a: &str, b: &str, an: &str, bn: &str, out: &mut Vec<(Side, Side)>) -> Result<()> {
    let is_dir = |p: &str| fs.metadata(p).is_ok_and(|m| m.kind == FileKind::Dir);
    if is_dir(a) && is_dir(b) {
        let mut names: Vec<String> = Vec::new();
        for d in [a, b] {
            for e in fs.read_dir(d)? {
                names.push(e.name);
            }
        }
        names.sort();
        names.dedup();
        for n in names {
            pairs(
                fs,
                &format!("{a}/{n}"),
                &format!("{b}/{n}"),
                &format!("{an}/{n}"),
                &format!("{bn}/{n}"),
                out,
            )?;
        }
        return Ok(());
    }
    let read = |p: &str| -> Option<Vec<u8>> {
        if p == "/dev/null" {
            return None;
        }
        fs.read(p).ok()
    };
    out.push((
        Side {
            name: an.to_string(),
            data: read(a),
            mode: mode_of(fs, a),
        },
        Side {
            name: bn.to_string(),
            data: read(b),
            mode: mode_of(fs, b),
        },
    ));
    Ok(())
}

/// `git diff --no-index [--stat|--numstat|--name-only|--name-status|--quiet|-U<n>] A B`.
pub fn diff_no_index(g: &mut G<'_, '_>) -> Result<i32> {
    let mut how = "patch";
    let mut quiet = false;
    let mut context = 3u32;
    let mut files = Vec::new();
    for a in g.args.clone() {
        match a.as_str() {
            "--no-index" | "--exit-code" | "--no-color" | "-p" | "-u" | "--patch" | "--" => {}
            "--stat" => how = "stat",
            "--numstat" => how = "numstat",
            "--shortstat" => how = "shortstat",
            "--name-only" => how = "name-only",
            "--name-status" => how = "name-status",
            "--quiet" => quiet = true,
            s if s.starts_with("-U") => context = s[2..].parse().unwrap_or(3),
            s if s.starts_with("--unified=") => context = s[10..].parse().unwrap_or(3),
            s if s.starts_with('-') && s.len() > 1 => {
                return Err(GitError::Usage(format!("error: invalid option: {s}")));
            }
            _ => files.push(a),
        }
    }
    if files.len() != 2 {
        return Err(GitError::Raw(
            "usage: git diff --no-index [<options>] <path> <path>".into(),
            129,
        ));
    }
    let abs: Vec<String> = files.iter().map(|f| Fs::resolve(&g.cwd, f)).collect();
    for (f, p) in files.iter().zip(&abs) {
        if p != "/dev/null" && !g.fs.exists(p) {
            let _ = writeln!(g.err, "error: Could not access '{f}'");
            return Ok(1);
        }
    }
    let shown = |f: &str| {
        f.trim_start_matches("./")
            .trim_start_matches('/')
            .to_string()
    };
    let mut list = Vec::new();
    pairs(
        g.fs,
        &abs[0],
        &abs[1],
        &shown(&files[0]),
        &shown(&files[1]),
        &mut list,
    )?;
    let check = g.checker();
    let mut differ = false;
    let mut stats: Vec<StatLine> = Vec::new();
    let mut body = Vec::new();
    for (a, b) in &list {
        if a.data == b.data {
            continue;
        }
        differ = true;
        if quiet {
            continue;
        }
        let old = a.data.clone().unwrap_or_default();
        let new = b.data.clone().unwrap_or_default();
        // A file against nothing is named by the side that exists.
        let (an, bn) = match (&a.data, &b.data) {
            (None, Some(_)) => (b.name.clone(), b.name.clone()),
            (Some(_), None) => (a.name.clone(), a.name.clone()),
            _ => (a.name.clone(), b.name.clone()),
        };
        match how {
            "stat" | "numstat" | "shortstat" => {
                let (ins, del) = diff::line_counts(&old, &new, &check)?;
                let name = if an == bn {
                    an.clone()
                } else {
                    diff::rename_name(&an, &bn)
                };
                if how == "numstat" {
                    let _ = writeln!(body, "{ins}\t{del}\t{name}");
                }
                stats.push(StatLine {
                    name,
                    counts: Some((ins, del)),
                    sizes: (old.len(), new.len()),
                });
            }
            "name-only" => {
                let _ = writeln!(body, "{an}");
            }
            "name-status" => {
                let letter = match (&a.data, &b.data) {
                    (None, _) => 'A',
                    (_, None) => 'D',
                    _ => 'M',
                };
                let _ = writeln!(body, "{letter}\t{an}");
            }
            _ => {
                let _ = writeln!(body, "diff --git a/{an} b/{bn}");
                let ida = blob_id(&old).to_hex().to_string();
                let idb = blob_id(&new).to_hex().to_string();
                match (&a.data, &b.data) {
                    (None, Some(_)) => {
                        let _ = writeln!(
                            body,
                            "new file mode {:o}\nindex 0000000..{}",
                            b.mode,
                            &idb[..7]
                        );
                    }
                    (Some(_), None) => {
                        let _ = writeln!(
                            body,
                            "deleted file mode {:o}\nindex {}..0000000",
                            a.mode,
                            &ida[..7]
                        );
                    }
                    _ => {
                        if a.mode != b.mode {
                            let _ = writeln!(body, "old mode {:o}\nnew mode {:o}", a.mode, b.mode);
                            let _ = writeln!(body, "index {}..{}", &ida[..7], &idb[..7]);
                        } else {
                            let _ =
                                writeln!(body, "index {}..{} {:o}", &ida[..7], &idb[..7], a.mode);
                        }
                    }
                }
                if diff::is_binary(&old) || diff::is_binary(&new) {
                    let _ = writeln!(body, "Binary files a/{an} and b/{bn} differ");
                    continue;
                }
                if a.data.is_some() {
                    let _ = writeln!(body, "--- a/{an}");
                } else {
                    body.extend_from_slice(b"--- /dev/null\n");
                }
                if b.data.is_some() {
                    let _ = writeln!(body, "+++ b/{bn}");
                } else {
                    body.extend_from_slice(b"+++ /dev/null\n");
                }
                diff::unified(&old, &new, context, &mut body, &check)?;
            }
        }
    }
    match how {
        "stat" => diff::write_stat(&stats, g.out),
        "shortstat" if !stats.is_empty() => {
            let (i, d) = stats
                .iter()
                .filter_map(|l| l.counts)
                .fold((0, 0), |a, c| (a.0 + c.0, a.1 + c.1));
            let _ = writeln!(g.out, "{}", diff::summary(stats.len(), i, d));
        }
        _ => g.out.extend_from_slice(&body),
    }
    Ok(i32::from(differ))
}
