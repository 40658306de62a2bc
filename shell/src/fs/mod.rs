//! The virtual filesystem: a POSIX-like tree (directories, regular files,
//! symlinks, modes, mtimes) that lives entirely in memory.
//!
//! All paths given to [`Fs`] are absolute virtual paths (`/workspace/a.txt`);
//! use [`Fs::resolve`] to join a path with a working directory first. `..` at
//! the root stays at the root and symlinks, absolute or relative, resolve
//! inside the virtual tree: nothing here can name a host path.
//!
//! OWNER: fs helper. The signatures below are the contract other modules code
//! against; bodies are filled in by the fs module's implementation.

mod error;

pub use error::FsError;

use std::sync::Arc;

use crate::clock::{Clock, Timestamp};
use crate::limits::FsLimits;

/// Result type of filesystem operations.
pub type FsResult<T> = Result<T, FsError>;

/// The kind of a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FileKind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A symbolic link.
    Symlink,
    /// A character device (`/dev/null` and friends).
    CharDevice,
}

/// What `stat` reports about a node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Metadata {
    /// The node's kind.
    pub kind: FileKind,
    /// Permission bits (`0o7777` mask), e.g. `0o644`.
    pub mode: u32,
    /// Size in bytes (a symlink: the length of its target).
    pub size: u64,
    /// Last modification time.
    pub mtime: Timestamp,
    /// Inode number, unique within the tree.
    pub ino: u64,
    /// Link count.
    pub nlink: u32,
}

/// One entry of a directory listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DirEntry {
    /// The entry's name (no slashes).
    pub name: String,
    /// The entry's kind (a symlink is `Symlink`, not followed).
    pub kind: FileKind,
}

/// A handle on the virtual filesystem. Cheap to clone; clones share the tree,
/// and every method is safe to call from several threads (pipeline stages).
#[derive(Clone)]
pub struct Fs {
    _todo: Arc<()>,
    _limits: FsLimits,
    _clock: Clock,
}

impl Fs {
    /// A new tree: `/workspace`, `/tmp`, `/dev/{null,stdin,stdout,stderr}`,
    /// `/usr/bin` (one entry per available command), `/bin -> usr/bin`.
    pub fn new(limits: FsLimits, clock: Clock) -> Fs {
        Fs { _todo: Arc::new(()), _limits: limits, _clock: clock }
    }

    /// Joins `path` onto `cwd` lexically (no symlink resolution), normalising
    /// `.`/`..`/duplicate slashes; `..` never climbs above `/`.
    pub fn resolve(cwd: &str, path: &str) -> String {
        let _ = (cwd, path);
        todo!()
    }

    /// Metadata, following symlinks.
    pub fn metadata(&self, path: &str) -> FsResult<Metadata> {
        let _ = path;
        todo!()
    }

    /// Metadata of the node itself (a symlink is not followed).
    pub fn symlink_metadata(&self, path: &str) -> FsResult<Metadata> {
        let _ = path;
        todo!()
    }

    /// True when `path` exists (following symlinks).
    pub fn exists(&self, path: &str) -> bool {
        self.metadata(path).is_ok()
    }

    /// A file's whole content.
    pub fn read(&self, path: &str) -> FsResult<Vec<u8>> {
        self.read_shared(path).map(|d| d.to_vec())
    }

    /// A file's whole content without copying it (a snapshot: later writes do
    /// not change the returned bytes).
    pub fn read_shared(&self, path: &str) -> FsResult<Arc<Vec<u8>>> {
        let _ = path;
        todo!()
    }

    /// Creates or truncates a regular file (mode `0o644` when created) and
    /// writes `data`. The parent must exist.
    pub fn write(&self, path: &str, data: &[u8]) -> FsResult<()> {
        let _ = (path, data);
        todo!()
    }

    /// Appends to a regular file, creating it (mode `0o644`) if missing.
    pub fn append(&self, path: &str, data: &[u8]) -> FsResult<()> {
        let _ = (path, data);
        todo!()
    }

    /// Writes `data` at `offset`, extending the file with zeros if needed.
    pub fn write_at(&self, path: &str, offset: u64, data: &[u8]) -> FsResult<()> {
        let _ = (path, offset, data);
        todo!()
    }

    /// Creates an empty regular file; with `exclusive`, fails if it exists
    /// (`set -o noclobber`, `mktemp`), otherwise leaves an existing file alone.
    pub fn create(&self, path: &str, exclusive: bool) -> FsResult<()> {
        let _ = (path, exclusive);
        todo!()
    }

    /// Sets a file's length, cutting or extending with zeros.
    pub fn truncate(&self, path: &str, len: u64) -> FsResult<()> {
        let _ = (path, len);
        todo!()
    }

    /// Creates one directory; the parent must exist.
    pub fn mkdir(&self, path: &str, mode: u32) -> FsResult<()> {
        let _ = (path, mode);
        todo!()
    }

    /// Creates a directory and its missing parents (`mkdir -p`).
    pub fn mkdir_all(&self, path: &str) -> FsResult<()> {
        let _ = path;
        todo!()
    }

    /// Lists a directory (following symlinks to it), sorted by name bytewise,
    /// without `.` and `..`.
    pub fn read_dir(&self, path: &str) -> FsResult<Vec<DirEntry>> {
        let _ = path;
        todo!()
    }

    /// Removes a file, symlink or device node (`unlink`).
    pub fn remove_file(&self, path: &str) -> FsResult<()> {
        let _ = path;
        todo!()
    }

    /// Removes an empty directory (`rmdir`).
    pub fn remove_dir(&self, path: &str) -> FsResult<()> {
        let _ = path;
        todo!()
    }

    /// Removes a node and, for a directory, everything below it (`rm -rf`);
    /// symlinks are removed, never followed.
    pub fn remove_all(&self, path: &str) -> FsResult<()> {
        let _ = path;
        todo!()
    }

    /// Moves a node (`rename(2)` semantics: replaces a file or empty directory).
    pub fn rename(&self, from: &str, to: &str) -> FsResult<()> {
        let _ = (from, to);
        todo!()
    }

    /// Creates a symlink at `link` pointing at `target` (stored verbatim).
    pub fn symlink(&self, target: &str, link: &str) -> FsResult<()> {
        let _ = (target, link);
        todo!()
    }

    /// The target of a symlink, as stored.
    pub fn read_link(&self, path: &str) -> FsResult<String> {
        let _ = path;
        todo!()
    }

    /// Sets permission bits (following symlinks).
    pub fn set_mode(&self, path: &str, mode: u32) -> FsResult<()> {
        let _ = (path, mode);
        todo!()
    }

    /// Sets the modification time (following symlinks).
    pub fn set_mtime(&self, path: &str, mtime: Timestamp) -> FsResult<()> {
        let _ = (path, mtime);
        todo!()
    }

    /// The path with every symlink, `.` and `..` resolved; the node must exist.
    pub fn canonicalize(&self, path: &str) -> FsResult<String> {
        let _ = path;
        todo!()
    }

    /// Bytes of file content and number of nodes in the tree.
    pub fn usage(&self) -> (u64, u64) {
        todo!()
    }

    /// The clock that stamps mtimes.
    pub fn clock(&self) -> Clock {
        self._clock
    }
}
