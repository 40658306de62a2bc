//! The virtual filesystem: a POSIX-like tree (directories, regular files,
//! symlinks, modes, mtimes) that lives entirely in memory.
//!
//! All paths given to [`Fs`] are absolute virtual paths (`/workspace/a.txt`);
//! use [`Fs::resolve`] to join a path with a working directory first. `..` at
//! the root stays at the root and symlinks, absolute or relative, resolve
//! inside the virtual tree: nothing here can name a host path.
//!
//! The tree itself is an inode slab behind one mutex (`tree.rs`); every method
//! here locks it once and never calls out while holding it. Hosts that speak
//! the `vfs` crate's [`vfs::FileSystem`] trait can use [`VfsAdapter`].
//!
//! Character devices ([`Device`]) live in `/dev`. `/dev/zero`, `/dev/full`
//! and the random devices are endless: [`Fs::open_read`] streams them, while
//! the whole-file readers refuse them with `File too large`.

mod device;
mod error;
mod fifo;
mod init;
mod path;
mod tree;
mod vfs_adapter;

#[cfg(test)]
mod tests;

pub use device::{Device, FileReader};
pub use error::{FsError, strerror};
pub use fifo::{Fifo, FifoWriter};
pub use tree::Changes;
pub use vfs_adapter::VfsAdapter;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use tree::{Opened, Tree};

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
    /// A FIFO (named pipe, `mkfifo`).
    Fifo,
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
    tree: Arc<Mutex<Tree>>,
    clock: Clock,
    /// Random-device opens so far: each open's generator gets its own seed,
    /// so two reads of `/dev/urandom` in one run differ, reproducibly.
    random_opens: Arc<AtomicU64>,
}

impl std::fmt::Debug for Fs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (bytes, nodes) = self.usage();
        f.debug_struct("Fs")
            .field("bytes", &bytes)
            .field("nodes", &nodes)
            .finish()
    }
}

impl Fs {
    /// A new tree: `/workspace`, `/tmp`,
    /// `/dev/{null,zero,full,random,urandom,stdin,stdout,stderr}`,
    /// `/usr/bin` (one executable stub per name of `programs`, in that
    /// order; a shell passes [`crate::usr_bin_names`]), `/bin -> usr/bin`.
    pub fn new(limits: FsLimits, clock: Clock, programs: &[&str]) -> Fs {
        let tree = init::standard_tree(limits, clock, programs);
        Fs {
            tree: Arc::new(Mutex::new(tree)),
            clock,
            random_opens: Arc::default(),
        }
    }

    /// A tree holding only an empty root directory, for tests and hosts that
    /// build their own layout.
    pub fn empty(limits: FsLimits, clock: Clock) -> Fs {
        Fs {
            tree: Arc::new(Mutex::new(Tree::new(limits, clock))),
            clock,
            random_opens: Arc::default(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Tree> {
        // Every filesystem call of a command is a cancellation point, taken
        // before the tree is touched: a command working through a million
        // operands (`touch {1..1000000}`) stops at its run's deadline
        // however rarely it checks itself. Not while unwinding already (a
        // destructor flushing a file), where a second unwind would abort.
        if !std::thread::panicking() {
            crate::cancel::point();
        }
        // A panic while holding the lock can't leave the tree half-changed
        // (mutations check everything first), so a poisoned lock is usable.
        self.tree.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Starts (or restarts) change tracking: [`Fs::take_changes`] then
    /// reports what changed from this moment on, so a host that keeps a copy
    /// of a directory re-reads only what changed.
    pub fn track_changes(&self) {
        self.lock().track_changes();
    }

    /// What changed below the directory `root` since tracking (re)started,
    /// and restarts it; `None` when tracking is off or too much changed to
    /// say exactly (the caller then lists everything).
    ///
    /// ```
    /// use sandkeep_shell::{Clock, FileKind, Fs};
    ///
    /// let fs = Fs::empty(Default::default(), Clock::Fixed(1_700_000_000));
    /// fs.mkdir_all("/w/src").unwrap();
    /// fs.write("/w/src/a.txt", b"one").unwrap();
    /// fs.track_changes();
    /// fs.write("/w/src/a.txt", b"two").unwrap();
    /// let changes = fs.take_changes("/w").unwrap();
    /// assert_eq!(changes.written, ["/w/src/a.txt"]);
    /// assert_eq!(changes.entries[0].1.kind, FileKind::File);
    /// assert!(fs.take_changes("/w").unwrap().entries.is_empty());
    /// ```
    pub fn take_changes(&self, root: &str) -> Option<Changes> {
        self.lock().take_changes(root)
    }

    /// Joins `path` onto `cwd` lexically (no symlink resolution), normalising
    /// `.`/`..`/duplicate slashes; `..` never climbs above `/`.
    pub fn resolve(cwd: &str, path: &str) -> String {
        path::resolve(cwd, path)
    }

    /// Metadata, following symlinks.
    pub fn metadata(&self, path: &str) -> FsResult<Metadata> {
        self.lock().metadata(path, true)
    }

    /// Metadata of the node itself (a symlink is not followed).
    pub fn symlink_metadata(&self, path: &str) -> FsResult<Metadata> {
        self.lock().metadata(path, false)
    }

    /// True when `path` exists (following symlinks).
    pub fn exists(&self, path: &str) -> bool {
        self.metadata(path).is_ok()
    }

    /// A file's whole content. `/dev/null` and the descriptor nodes read
    /// empty; the endless devices (`/dev/zero`, `/dev/full`, `/dev/random`,
    /// `/dev/urandom`) have no whole content and fail with
    /// [`FsError::FileTooLarge`] at once: stream them with [`Fs::open_read`].
    pub fn read(&self, path: &str) -> FsResult<Vec<u8>> {
        self.read_shared(path).map(|d| d.to_vec())
    }

    /// A file's whole content without copying it (a snapshot: later writes do
    /// not change the returned bytes). Devices as in [`Fs::read`].
    /// A FIFO reads until its writers are done (see `fifo.rs`).
    pub fn read_shared(&self, path: &str) -> FsResult<Arc<Vec<u8>>> {
        let found = self.lock().read_shared(path)?;
        match found {
            Opened::Data(data) => Ok(data),
            Opened::Device(_) => Err(FsError::FileTooLarge),
            Opened::Fifo(fifo) => {
                let whole = fifo.open_reader().read_whole(self.max_file_size());
                whole.map(Arc::new)
            }
        }
    }

    /// Opens `path` for streaming: a regular file reads its snapshot (see
    /// [`FileReader::snapshot`] to keep a whole-buffer path), a device reads
    /// its stream, endless for `/dev/zero`, `/dev/full` and the random
    /// devices. `seed` is the run's seed ([`crate::RunControl::seed`]): with
    /// one, the random devices give the same bytes for the same sequence of
    /// opens; without one they are seeded from the clock and per-process
    /// entropy (no host file is read). Directories are `IsADirectory`.
    pub fn open_read(&self, path: &str, seed: Option<u64>) -> FsResult<FileReader> {
        let found = self.lock().open_read(path)?;
        Ok(match found {
            Opened::Data(data) => FileReader::bytes(data),
            Opened::Fifo(fifo) => FileReader::fifo(fifo.open_reader()),
            Opened::Device(device) => {
                let stream_seed = match device {
                    Device::Random | Device::Urandom => {
                        let n = self.random_opens.fetch_add(1, Ordering::Relaxed);
                        device::stream_seed(seed, n)
                    }
                    _ => 0,
                };
                FileReader::device(device, stream_seed)
            }
        })
    }

    /// The device at `path` (following symlinks), or `None` for any other
    /// node or a missing path.
    pub fn device(&self, path: &str) -> Option<Device> {
        self.lock().device(path)
    }

    /// The FIFO at `path` (following symlinks), or `None` for any other
    /// node or a missing path: a redirection holds it open for writing
    /// ([`Fifo::open_writer`]) while its command runs.
    pub fn fifo(&self, path: &str) -> Option<Arc<Fifo>> {
        self.lock().fifo(path)
    }

    /// Creates a FIFO (`mkfifo`) with permission bits `mode`; the parent
    /// must exist and the name must be free.
    pub fn mkfifo(&self, path: &str, mode: u32) -> FsResult<()> {
        crate::alloc::untracked(|| self.lock().mkfifo(path, mode))
    }

    /// Creates or truncates a regular file (mode `0o644` when created) and
    /// writes `data`. The parent must exist.
    pub fn write(&self, path: &str, data: &[u8]) -> FsResult<()> {
        crate::alloc::untracked(|| self.lock().write(path, data))
    }

    /// Appends to a regular file, creating it (mode `0o644`) if missing.
    pub fn append(&self, path: &str, data: &[u8]) -> FsResult<()> {
        crate::alloc::untracked(|| self.lock().append(path, data))
    }

    /// Writes `data` at `offset`, extending the file with zeros if needed.
    pub fn write_at(&self, path: &str, offset: u64, data: &[u8]) -> FsResult<()> {
        crate::alloc::untracked(|| self.lock().write_at(path, offset, data))
    }

    /// Creates an empty regular file; with `exclusive`, fails if it exists
    /// (`set -o noclobber`, `mktemp`), otherwise leaves an existing file alone.
    pub fn create(&self, path: &str, exclusive: bool) -> FsResult<()> {
        crate::alloc::untracked(|| self.lock().create(path, exclusive))
    }

    /// Sets a file's length, cutting or extending with zeros.
    pub fn truncate(&self, path: &str, len: u64) -> FsResult<()> {
        crate::alloc::untracked(|| self.lock().truncate(path, len))
    }

    /// Creates one directory; the parent must exist.
    pub fn mkdir(&self, path: &str, mode: u32) -> FsResult<()> {
        crate::alloc::untracked(|| self.lock().mkdir(path, mode).map(|_| ()))
    }

    /// Creates a directory and its missing parents (`mkdir -p`).
    pub fn mkdir_all(&self, path: &str) -> FsResult<()> {
        crate::alloc::untracked(|| self.lock().mkdir_all(path))
    }

    /// Lists a directory (following symlinks to it), sorted by name bytewise,
    /// without `.` and `..`.
    pub fn read_dir(&self, path: &str) -> FsResult<Vec<DirEntry>> {
        self.lock().read_dir(path)
    }

    /// Lists a directory like [`Fs::read_dir`], with each entry's metadata
    /// (symlinks not followed), under one lock: what `ls -l`, `find` and
    /// `tar` want without a path walk per entry.
    pub fn read_dir_metadata(&self, path: &str) -> FsResult<Vec<(String, Metadata)>> {
        self.lock().read_dir_metadata(path)
    }

    /// Removes a file, symlink or device node (`unlink`).
    pub fn remove_file(&self, path: &str) -> FsResult<()> {
        crate::alloc::untracked(|| self.lock().remove_file(path))
    }

    /// Removes an empty directory (`rmdir`).
    pub fn remove_dir(&self, path: &str) -> FsResult<()> {
        crate::alloc::untracked(|| self.lock().remove_dir(path))
    }

    /// Removes a node and, for a directory, everything below it (`rm -rf`);
    /// symlinks are removed, never followed.
    pub fn remove_all(&self, path: &str) -> FsResult<()> {
        crate::alloc::untracked(|| self.lock().remove_all(path))
    }

    /// Moves a node (`rename(2)` semantics: replaces a file or empty directory).
    pub fn rename(&self, from: &str, to: &str) -> FsResult<()> {
        crate::alloc::untracked(|| self.lock().rename(from, to))
    }

    /// Creates a symlink at `link` pointing at `target` (stored verbatim).
    pub fn symlink(&self, target: &str, link: &str) -> FsResult<()> {
        crate::alloc::untracked(|| self.lock().symlink(target, link))
    }

    /// Creates a hard link `new` to the node at `existing` (`link(2)`: a final
    /// symlink is not followed; directories are refused).
    pub fn hard_link(&self, existing: &str, new: &str) -> FsResult<()> {
        crate::alloc::untracked(|| self.lock().hard_link(existing, new))
    }

    /// The target of a symlink, as stored.
    pub fn read_link(&self, path: &str) -> FsResult<String> {
        self.lock().read_link(path)
    }

    /// Sets permission bits (following symlinks).
    pub fn set_mode(&self, path: &str, mode: u32) -> FsResult<()> {
        self.lock().set_mode(path, mode)
    }

    /// Sets the modification time (following symlinks).
    pub fn set_mtime(&self, path: &str, mtime: Timestamp) -> FsResult<()> {
        self.lock().set_mtime(path, mtime)
    }

    /// Sets the access time (following symlinks): `touch -a`.
    pub fn set_atime(&self, path: &str, atime: Timestamp) -> FsResult<()> {
        self.lock().set_atime(path, atime)
    }

    /// The access time (following symlinks): what `touch` set last, else
    /// the creation time. Reads leave it alone.
    pub fn atime(&self, path: &str) -> FsResult<Timestamp> {
        self.lock().atime(path)
    }

    /// Sets the modification time of the node itself (a symlink is not
    /// followed), like `touch -h`.
    pub fn set_symlink_mtime(&self, path: &str, mtime: Timestamp) -> FsResult<()> {
        self.lock().set_symlink_mtime(path, mtime)
    }

    /// The path with every symlink, `.` and `..` resolved; the node must exist.
    pub fn canonicalize(&self, path: &str) -> FsResult<String> {
        self.lock().canonicalize(path)
    }

    /// Bytes of file content and number of nodes in the tree.
    pub fn usage(&self) -> (u64, u64) {
        self.lock().usage()
    }

    /// The largest file this filesystem accepts; also the most a command
    /// may buffer from a stream it reads whole (`sort`, `tac`, `od`), so
    /// `yes | sort` fails with `File too large` instead of exhausting memory.
    pub fn max_file_size(&self) -> u64 {
        self.lock().max_file_size()
    }

    /// The clock that stamps mtimes.
    pub fn clock(&self) -> Clock {
        self.clock
    }
}
