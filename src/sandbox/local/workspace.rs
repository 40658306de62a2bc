//! The local backend's workspace transport: listing, export and import served
//! straight from the virtual filesystem, with no shell round trip. The tar
//! stream is the same one `tar cf`/`tar xf` would produce and read, which is
//! what keeps the two backends interchangeable.

use sandkeep_shell::FileKind;
use sandkeep_shell::Timestamp;
use sandkeep_shell::{Fs, FsError};
use tar::{EntryType, Header};

use crate::archive::{ArchiveTree, EntryKind, names};
use crate::sandbox::{Listed, ListedKind, Listing, SandboxError, WorkspaceChanges};

const ROOT: &str = "/workspace";

fn fs_error(path: &str, e: FsError) -> SandboxError {
    SandboxError::Path {
        path: path.to_string(),
        reason: e.to_string(),
    }
}

fn listed_kind(kind: FileKind) -> ListedKind {
    match kind {
        FileKind::File => ListedKind::File,
        FileKind::Dir => ListedKind::Dir,
        FileKind::Symlink => ListedKind::Symlink,
        FileKind::CharDevice | FileKind::Fifo => ListedKind::Other,
    }
}

/// `/workspace/a/b` as `a/b` (`""` for `/workspace` itself).
fn relative(abs: &str) -> String {
    abs.strip_prefix(ROOT)
        .map(|r| r.trim_start_matches('/'))
        .unwrap_or(abs)
        .to_string()
}

/// What the filesystem's change log says changed under `/workspace` since
/// the last mark, with the written files' content; `None` when the log
/// cannot say (tracking off, or too much changed): the caller lists all.
pub(super) fn changes(fs: &Fs) -> Result<Option<WorkspaceChanges>, SandboxError> {
    let listed_at = fs.clock().now().secs;
    let Some(changes) = fs.take_changes(ROOT) else {
        return Ok(None);
    };
    let entries = changes
        .entries
        .into_iter()
        .map(|(abs, meta, link)| Listed {
            path: relative(&abs),
            kind: listed_kind(meta.kind),
            mode: meta.mode,
            size: meta.size,
            mtime: meta.mtime.secs,
            link,
        })
        .collect();
    let written: Vec<String> = changes.written.iter().map(|p| relative(p)).collect();
    Ok(Some(WorkspaceChanges {
        listed_dirs: changes.listed_dirs.iter().map(|p| relative(p)).collect(),
        listed_trees: changes.listed_trees.iter().map(|p| relative(p)).collect(),
        listing: Listing { entries, listed_at },
        written: export(fs, &written)?,
    }))
}

/// Every path under `/workspace` (symlinks not followed).
pub(super) fn list(fs: &Fs) -> Result<Listing, SandboxError> {
    let listed_at = fs.clock().now().secs;
    let mut entries = Vec::new();
    let mut dirs = vec![String::new()];
    while let Some(rel) = dirs.pop() {
        let abs = if rel.is_empty() {
            ROOT.to_string()
        } else {
            format!("{ROOT}/{rel}")
        };
        let children = match fs.read_dir_metadata(&abs) {
            Ok(c) => c,
            Err(FsError::NotFound) if rel.is_empty() => break,
            Err(e) => return Err(fs_error(&abs, e)),
        };
        for (name, meta) in children {
            let path = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            let kind = listed_kind(meta.kind);
            let link = match kind {
                ListedKind::Symlink => Some(
                    fs.read_link(&format!("{ROOT}/{path}"))
                        .map_err(|e| fs_error(&path, e))?,
                ),
                _ => None,
            };
            if kind == ListedKind::Dir {
                dirs.push(path.clone());
            }
            entries.push(Listed {
                path,
                kind,
                mode: meta.mode,
                size: meta.size,
                mtime: meta.mtime.secs,
                link,
            });
        }
    }
    Ok(Listing { entries, listed_at })
}

/// A tar of the named paths; paths that vanished are left out.
pub(super) fn export(fs: &Fs, paths: &[String]) -> Result<Vec<u8>, SandboxError> {
    let tar_err = |p: &str, e: std::io::Error| SandboxError::Path {
        path: p.to_string(),
        reason: e.to_string(),
    };
    let mut builder = tar::Builder::new(Vec::new());
    for path in paths {
        let abs = format!("{ROOT}/{path}");
        let meta = match fs.symlink_metadata(&abs) {
            Ok(m) => m,
            Err(FsError::NotFound) => continue,
            Err(e) => return Err(fs_error(path, e)),
        };
        let mut h = Header::new_gnu();
        h.set_mode(meta.mode);
        h.set_mtime(u64::try_from(meta.mtime.secs).unwrap_or(0));
        h.set_size(0);
        let name = format!("./{path}");
        let result = match meta.kind {
            FileKind::File => {
                let data = match fs.read_shared(&abs) {
                    Ok(d) => d,
                    Err(FsError::NotFound) => continue,
                    Err(e) => return Err(fs_error(path, e)),
                };
                h.set_entry_type(EntryType::Regular);
                h.set_size(data.len() as u64);
                builder.append_data(&mut h, names::to_path(&name), &data[..])
            }
            FileKind::Dir => {
                h.set_entry_type(EntryType::Directory);
                builder.append_data(
                    &mut h,
                    names::to_path(&format!("{name}/")),
                    std::io::empty(),
                )
            }
            FileKind::Symlink => {
                let target = fs.read_link(&abs).map_err(|e| fs_error(path, e))?;
                h.set_entry_type(EntryType::Symlink);
                builder.append_link(&mut h, names::to_path(&name), names::to_path(&target))
            }
            // Like the host's archive reader, the workspace keeps no special files.
            FileKind::CharDevice | FileKind::Fifo => continue,
        };
        result.map_err(|e| tar_err(path, e))?;
    }
    builder.into_inner().map_err(|e| tar_err("the export", e))
}

/// Unpacks a tar into `/workspace` as `tar xf` would (slips refused).
pub(super) fn import(fs: &Fs, tar: &[u8]) -> Result<(), SandboxError> {
    let tree = ArchiveTree::from_tar(tar).map_err(|e| SandboxError::Backend(e.to_string()))?;
    fs.mkdir_all(ROOT).map_err(|e| fs_error(ROOT, e))?;
    let stamp = |secs: u64| Timestamp {
        secs: i64::try_from(secs).unwrap_or(0),
        nanos: 0,
    };
    let mut dirs = Vec::new();
    for e in tree.entries.values() {
        let abs = format!("{ROOT}/{}", e.path);
        let err = |x| fs_error(&e.path, x);
        match e.kind {
            EntryKind::Dir => {
                fs.mkdir_all(&abs).map_err(err)?;
                fs.set_mode(&abs, e.mode).map_err(err)?;
                dirs.push((abs, e.mtime));
            }
            EntryKind::File => {
                if fs.symlink_metadata(&abs).is_ok() {
                    fs.remove_all(&abs).map_err(err)?;
                }
                fs.write(&abs, &e.data).map_err(err)?;
                fs.set_mode(&abs, e.mode).map_err(err)?;
                fs.set_mtime(&abs, stamp(e.mtime)).map_err(err)?;
            }
            EntryKind::Symlink => {
                if fs.symlink_metadata(&abs).is_ok() {
                    fs.remove_all(&abs).map_err(err)?;
                }
                fs.symlink(e.link.as_deref().unwrap_or(""), &abs)
                    .map_err(err)?;
                fs.set_symlink_mtime(&abs, stamp(e.mtime)).map_err(err)?;
            }
            EntryKind::HardLink => {
                let target = e.link.as_deref().unwrap_or("");
                let target = target.trim_start_matches("./");
                fs.hard_link(&format!("{ROOT}/{target}"), &abs)
                    .map_err(err)?;
            }
        }
    }
    // Children were created after their directory: set directory times last.
    for (abs, mtime) in dirs.into_iter().rev() {
        fs.set_mtime(&abs, stamp(mtime))
            .map_err(|e| fs_error(&abs, e))?;
    }
    Ok(())
}
