//! Crash-safe file primitives shared by the archive store and the mindlog:
//! atomic replacement (temp file in the same directory, fsync, rename, fsync
//! the directory) and an exclusive advisory lock held for a scope.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Prefix of the temp files [`write_atomic`] creates next to their target;
/// a leftover one belongs to a writer that died mid-write.
pub(crate) fn temp_prefix(target: &Path) -> String {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!(".{name}.tmp-")
}

/// Replaces `target` with `data` so that a crash at any moment leaves either the
/// old content or the new one, never a mix: the bytes go to a temp file in the
/// same directory, are synced, renamed over the target, and the directory entry
/// is synced too.
pub fn write_atomic(target: &Path, data: &[u8]) -> io::Result<()> {
    write_replacing(target, data, Sync::All)
}

/// Like [`write_atomic`] (a reader sees the old content or the new one) but
/// without fsync: for files that can be rebuilt from synced ones (a pack's
/// index), where a power loss may leave them stale but never a process
/// crash.
pub fn write_atomic_unsynced(target: &Path, data: &[u8]) -> io::Result<()> {
    write_replacing(target, data, Sync::Nothing)
}

/// Like [`write_atomic`], with the content synced but not the directory
/// entry: for files that only become reachable through a later
/// [`write_atomic`] (a store's packs and records, named by the head). A
/// journaling filesystem (ext4, xfs, btrfs) commits metadata in order, so the
/// later write's directory sync makes this rename durable too; until then a
/// crash may lose the file, but nothing names it yet. Saves one sync a file.
pub fn write_atomic_ordered(target: &Path, data: &[u8]) -> io::Result<()> {
    write_replacing(target, data, Sync::Content)
}

/// What [`write_replacing`] makes durable before it returns.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sync {
    Nothing,
    Content,
    All,
}

fn write_replacing(target: &Path, data: &[u8], sync: Sync) -> io::Result<()> {
    let dir = parent_dir(target);
    fs::create_dir_all(&dir)?;
    let temp = dir.join(format!(
        "{}{}-{:08x}",
        temp_prefix(target),
        std::process::id(),
        rand::random::<u32>()
    ));
    let result = (|| {
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)?;
        file.write_all(data)?;
        if sync != Sync::Nothing {
            file.sync_data()?;
        }
        drop(file);
        fs::rename(&temp, target)?;
        if sync == Sync::All {
            sync_dir(&dir)
        } else {
            Ok(())
        }
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    result
}

/// The directory holding `path` (`.` for a bare file name).
pub(crate) fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Makes a rename or file creation in `dir` durable.
fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// An exclusive advisory lock (`flock`) on a lock file, released on drop.
/// Works between processes and between handles of one process.
#[derive(Debug)]
pub struct FileLock {
    file: File,
}

impl FileLock {
    /// Blocks until the exclusive lock on `path` is held, creating the file
    /// (and its directory) if needed.
    pub fn acquire(path: &Path) -> io::Result<FileLock> {
        fs::create_dir_all(parent_dir(path))?;
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)?;
        fs4::fs_std::FileExt::lock_exclusive(&file)?;
        Ok(FileLock { file })
    }

    /// Takes an exclusive lock on an already open file (e.g. the mindlog itself).
    pub fn on_file(file: File) -> io::Result<FileLock> {
        fs4::fs_std::FileExt::lock_exclusive(&file)?;
        Ok(FileLock { file })
    }

    /// The locked file.
    pub fn file(&self) -> &File {
        &self.file
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        let _ = fs4::fs_std::FileExt::unlock(&self.file);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("a.tgz");
        write_atomic(&target, b"one").unwrap();
        write_atomic(&target, b"two").unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"two");
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }
}
