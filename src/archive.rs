//! The host-side workspace archive store: one `.tgz` of `/workspace` per agent.
//!
//! What it guarantees:
//! - **Atomic writes**: a crash at any moment leaves the old archive or the new
//!   one ([`atomic::write_atomic`]).
//! - **No lost updates**: a snapshot remembers the archive it was restored from
//!   (its *base*). When storing, under an exclusive lock, if the archive on disk
//!   is no longer that base (another session stored meanwhile), ours is merged
//!   into it file by file ([`merge`]) instead of replacing it.
//! - **No overwrite after a failed restore**: [`ArchiveStore::store_beside`]
//!   keeps such a snapshot next to the archive instead of over it.
//!
//! All methods block (file I/O, compression); call them from
//! `tokio::task::spawn_blocking` in async code.

pub mod atomic;
pub mod merge;
pub mod tree;

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use merge::{Conflict, Resolution};
pub use tree::{ArchiveEntry, ArchiveTree, EntryKind, Refused};

/// Why an archive operation failed.
#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    /// Reading or writing the archive file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file involved.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// The archive (or one side of a merge) is not a readable tar.gz.
    #[error("{what} is not a readable workspace archive: {source}")]
    Unreadable {
        /// Which archive: `the stored archive`, `the snapshot`, ...
        what: &'static str,
        /// The decoding error.
        source: io::Error,
    },
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> ArchiveError + '_ {
    move |source| ArchiveError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The bytes of an archive as read at one moment, with their content hash (the
/// archive's *generation*: any store changes it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Generation {
    /// The archive's bytes.
    pub bytes: Arc<Vec<u8>>,
    /// 64-bit FNV-1a hash of the bytes.
    pub hash: u64,
}

impl Generation {
    /// Wraps bytes and hashes them.
    pub fn new(bytes: Vec<u8>) -> Generation {
        let hash = content_hash(&bytes);
        Generation {
            bytes: Arc::new(bytes),
            hash,
        }
    }

    /// Size in bytes.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// True for an empty archive file.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
}

/// 64-bit FNV-1a over the bytes: stable across processes and versions, cheap,
/// and only used to tell generations apart (the bytes are compared too).
pub fn content_hash(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// What [`ArchiveStore::store`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoreOutcome {
    /// The archive was still the base (or absent): ours replaced it.
    Replaced {
        /// Bytes written.
        bytes: u64,
    },
    /// Another session had stored a newer archive: ours was merged into it.
    Merged {
        /// Bytes written.
        bytes: u64,
        /// Paths changed on both sides (empty when the changes did not overlap).
        conflicts: Vec<Conflict>,
    },
    /// The archive on disk was unreadable, so it could not be merged; ours was
    /// stored beside it and the archive left alone.
    StoredBeside {
        /// Bytes written.
        bytes: u64,
        /// Where ours went.
        path: PathBuf,
        /// Why the archive could not be merged.
        reason: String,
    },
}

impl StoreOutcome {
    /// Bytes written.
    pub fn bytes(&self) -> u64 {
        match self {
            StoreOutcome::Replaced { bytes }
            | StoreOutcome::Merged { bytes, .. }
            | StoreOutcome::StoredBeside { bytes, .. } => *bytes,
        }
    }
}

/// The archive file of one agent.
///
/// ```
/// use sandkeep::archive::{ArchiveEntry, ArchiveStore, ArchiveTree, StoreOutcome};
///
/// let dir = tempfile::tempdir().unwrap();
/// let store = ArchiveStore::new(dir.path().join("workspace.tgz"));
/// assert!(store.load().unwrap().is_none());
///
/// let mut tree = ArchiveTree::default();
/// tree.entries.insert("a.txt".into(), ArchiveEntry::file("a.txt", b"hello"));
/// let outcome = store.store(&tree.to_tgz().unwrap(), None, "s1").unwrap();
/// assert!(matches!(outcome, StoreOutcome::Replaced { .. }));
/// assert_eq!(store.list().unwrap().unwrap().entries["a.txt"].data, b"hello");
/// ```
#[derive(Clone, Debug)]
pub struct ArchiveStore {
    path: PathBuf,
}

impl ArchiveStore {
    /// A store for the archive at `path` (which need not exist yet).
    pub fn new(path: impl Into<PathBuf>) -> ArchiveStore {
        ArchiveStore { path: path.into() }
    }

    /// The archive file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The lock file serializing stores (`<archive>.lock`).
    pub fn lock_path(&self) -> PathBuf {
        let mut name = self.path.as_os_str().to_owned();
        name.push(".lock");
        PathBuf::from(name)
    }

    /// The archive as it is now, or `None` when nothing was kept yet. Reads are
    /// lock-free: writers replace the file by rename, so a read sees one whole
    /// generation.
    pub fn load(&self) -> Result<Option<Generation>, ArchiveError> {
        match fs::read(&self.path) {
            Ok(bytes) => Ok(Some(Generation::new(bytes))),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io_err(&self.path)(e)),
        }
    }

    /// Reads the archive's entries (tar slips refused), or `None` when absent.
    pub fn list(&self) -> Result<Option<ArchiveTree>, ArchiveError> {
        let Some(generation) = self.load()? else {
            return Ok(None);
        };
        ArchiveTree::from_tgz(&generation.bytes)
            .map(Some)
            .map_err(|source| ArchiveError::Unreadable {
                what: "the stored archive",
                source,
            })
    }

    /// Stores a snapshot (`ours`, a tar.gz) that was made from `base` (the
    /// generation restored at session start; `None` when nothing was kept then).
    ///
    /// Under the store's lock: if the archive on disk is still `base`, ours
    /// replaces it; if another session stored meanwhile, ours is merged into
    /// theirs against `base` (see [`merge`]).
    pub fn store(
        &self,
        ours: &[u8],
        base: Option<&[u8]>,
        session_id: &str,
    ) -> Result<StoreOutcome, ArchiveError> {
        let _lock =
            atomic::FileLock::acquire(&self.lock_path()).map_err(io_err(&self.lock_path()))?;
        atomic::remove_stale_temps(&self.path);
        let current = self.load()?;
        let unchanged = match (&current, base) {
            (None, None) => true,
            (Some(cur), Some(base)) => cur.bytes.as_slice() == base,
            _ => false,
        };
        if unchanged {
            atomic::write_atomic(&self.path, ours).map_err(io_err(&self.path))?;
            return Ok(StoreOutcome::Replaced {
                bytes: ours.len() as u64,
            });
        }
        let Some(current) = current else {
            // Someone removed the archive since we restored: nothing to merge with.
            atomic::write_atomic(&self.path, ours).map_err(io_err(&self.path))?;
            return Ok(StoreOutcome::Replaced {
                bytes: ours.len() as u64,
            });
        };
        let theirs = match ArchiveTree::from_tgz(&current.bytes) {
            Ok(t) => t,
            Err(e) => {
                let path = self.write_beside_locked(ours, session_id)?;
                return Ok(StoreOutcome::StoredBeside {
                    bytes: ours.len() as u64,
                    path,
                    reason: format!("the stored archive is unreadable ({e})"),
                });
            }
        };
        let ours_tree = ArchiveTree::from_tgz(ours).map_err(|source| ArchiveError::Unreadable {
            what: "the snapshot",
            source,
        })?;
        // A base we restored from was readable then; if it is not, merge as if
        // nothing had been kept (every difference is then kept on both sides).
        let base_tree = base
            .and_then(|b| ArchiveTree::from_tgz(b).ok())
            .unwrap_or_default();
        let (merged, conflicts) = merge::merge(&base_tree, &theirs, &ours_tree, session_id);
        let bytes = merged.to_tgz().map_err(io_err(&self.path))?;
        atomic::write_atomic(&self.path, &bytes).map_err(io_err(&self.path))?;
        Ok(StoreOutcome::Merged {
            bytes: bytes.len() as u64,
            conflicts,
        })
    }

    /// Stores a snapshot next to the archive (`workspace.unrestored-<session-id>.tgz`)
    /// and leaves the archive itself alone: for sessions whose restore failed,
    /// whose workspace therefore does not hold what the archive holds.
    pub fn store_beside(&self, ours: &[u8], session_id: &str) -> Result<PathBuf, ArchiveError> {
        let _lock =
            atomic::FileLock::acquire(&self.lock_path()).map_err(io_err(&self.lock_path()))?;
        self.write_beside_locked(ours, session_id)
    }

    /// Where [`ArchiveStore::store_beside`] puts a session's snapshot.
    pub fn beside_path(&self, session_id: &str) -> PathBuf {
        let stem = self
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let stem = stem.strip_suffix(".tgz").unwrap_or(&stem);
        atomic::parent_dir(&self.path).join(format!("{stem}.unrestored-{session_id}.tgz"))
    }

    fn write_beside_locked(&self, ours: &[u8], session_id: &str) -> Result<PathBuf, ArchiveError> {
        let path = self.beside_path(session_id);
        atomic::write_atomic(&path, ours).map_err(io_err(&path))?;
        Ok(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tgz(files: &[(&str, &str)]) -> Vec<u8> {
        let mut t = ArchiveTree::default();
        for (p, d) in files {
            t.entries
                .insert(p.to_string(), ArchiveEntry::file(p, d.as_bytes()));
        }
        t.to_tgz().unwrap()
    }

    fn contents(store: &ArchiveStore) -> Vec<(String, String)> {
        store
            .list()
            .unwrap()
            .unwrap()
            .entries
            .values()
            .filter(|e| e.kind == EntryKind::File)
            .map(|e| {
                (
                    e.path.clone(),
                    String::from_utf8_lossy(&e.data).into_owned(),
                )
            })
            .collect()
    }

    #[test]
    fn concurrent_sessions_merge_instead_of_overwriting() {
        let dir = tempfile::tempdir().unwrap();
        let store = ArchiveStore::new(dir.path().join("agents/a/workspace.tgz"));
        store.store(&tgz(&[("a", "1")]), None, "s0").unwrap();
        let base = store.load().unwrap().unwrap();
        let one = store
            .store(
                &tgz(&[("a", "1"), ("x", "from s1")]),
                Some(&base.bytes),
                "s1",
            )
            .unwrap();
        assert!(matches!(one, StoreOutcome::Replaced { .. }));
        let two = store
            .store(
                &tgz(&[("a", "1"), ("y", "from s2")]),
                Some(&base.bytes),
                "s2",
            )
            .unwrap();
        assert!(matches!(two, StoreOutcome::Merged { ref conflicts, .. } if conflicts.is_empty()));
        assert_eq!(
            contents(&store),
            [
                ("a".into(), "1".into()),
                ("x".into(), "from s1".into()),
                ("y".into(), "from s2".into())
            ]
        );
    }

    #[test]
    fn unreadable_archive_is_never_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("workspace.tgz");
        fs::write(&path, b"garbage").unwrap();
        let store = ArchiveStore::new(&path);
        let base = store.load().unwrap().unwrap();
        // Even a caller claiming the garbage as its base cannot replace it
        // through a merge: only an exact base match replaces.
        let out = store
            .store(&tgz(&[("a", "1")]), Some(b"other"), "s1")
            .unwrap();
        assert!(matches!(out, StoreOutcome::StoredBeside { .. }), "{out:?}");
        assert_eq!(fs::read(&path).unwrap(), *base.bytes);
        let beside = store.store_beside(&tgz(&[("b", "2")]), "s2").unwrap();
        assert!(beside.ends_with("workspace.unrestored-s2.tgz"));
        assert_eq!(fs::read(&path).unwrap(), b"garbage");
    }
}
