//! [`VfsAdapter`]: the sandbox tree seen through the `vfs` crate's
//! [`FileSystem`] trait, so a host can walk or fill a sandbox with
//! `vfs::VfsPath` like any other `vfs` filesystem.
//!
//! ```
//! use sandkeep_shell::{Clock, Fs, FsLimits, VfsAdapter};
//! use std::io::Write;
//!
//! let fs = Fs::new(FsLimits::default(), Clock::fixed(0), sandkeep_shell::usr_bin_names());
//! let root: vfs::VfsPath = VfsAdapter::new(fs.clone()).into();
//! write!(root.join("workspace/a.txt").unwrap().create_file().unwrap(), "hi").unwrap();
//! assert_eq!(fs.read("/workspace/a.txt").unwrap(), b"hi");
//! ```

use std::io::{self, Cursor, Seek, SeekFrom, Write};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use vfs::error::VfsErrorKind;
use vfs::{FileSystem, SeekAndRead, SeekAndWrite, VfsError, VfsFileType, VfsMetadata, VfsResult};

use super::{FileKind, Fs, FsError};
use crate::clock::Timestamp;

/// A [`Fs`] as a `vfs` [`FileSystem`]. Symlinks are followed; devices look
/// like empty files.
#[derive(Clone, Debug)]
pub struct VfsAdapter(pub Fs);

impl VfsAdapter {
    /// Wraps a sandbox tree.
    pub fn new(fs: Fs) -> VfsAdapter {
        VfsAdapter(fs)
    }
}

/// `vfs` names the root `""`; everything else is already absolute.
fn norm(path: &str) -> &str {
    if path.is_empty() { "/" } else { path }
}

fn to_vfs(e: FsError, path: &str) -> VfsError {
    let kind = match e {
        FsError::NotFound => VfsErrorKind::FileNotFound,
        FsError::AlreadyExists => VfsErrorKind::FileExists,
        other => VfsErrorKind::IoError(io::Error::other(other)),
    };
    let _ = path; // the vfs crate fills in the path itself
    VfsError::from(kind)
}

fn to_system_time(t: Timestamp) -> SystemTime {
    if t.secs >= 0 {
        UNIX_EPOCH + Duration::new(t.secs as u64, t.nanos)
    } else {
        UNIX_EPOCH - Duration::from_secs(t.secs.unsigned_abs())
            + Duration::from_nanos(t.nanos as u64)
    }
}

fn from_system_time(t: SystemTime) -> Timestamp {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => Timestamp {
            secs: d.as_secs() as i64,
            nanos: d.subsec_nanos(),
        },
        Err(e) => {
            let d = e.duration();
            let mut secs = -(d.as_secs() as i64);
            let mut nanos = d.subsec_nanos();
            if nanos > 0 {
                secs -= 1;
                nanos = 1_000_000_000 - nanos;
            }
            Timestamp { secs, nanos }
        }
    }
}

/// A file opened for writing: bytes collect in memory and reach the tree on
/// `flush` (and on drop, where an error can only be dropped too).
struct Writer {
    fs: Fs,
    path: String,
    buf: Cursor<Vec<u8>>,
    dirty: bool,
}

impl Write for Writer {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.dirty = true;
        self.buf.write(data)
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.dirty {
            self.fs
                .write(&self.path, self.buf.get_ref())
                .map_err(io::Error::other)?;
            self.dirty = false;
        }
        Ok(())
    }
}

impl Seek for Writer {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.buf.seek(pos)
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        let _ = self.flush();
    }
}

impl FileSystem for VfsAdapter {
    fn read_dir(&self, path: &str) -> VfsResult<Box<dyn Iterator<Item = String> + Send>> {
        let entries = self.0.read_dir(norm(path)).map_err(|e| to_vfs(e, path))?;
        Ok(Box::new(entries.into_iter().map(|e| e.name)))
    }

    fn create_dir(&self, path: &str) -> VfsResult<()> {
        match self.0.mkdir(norm(path), 0o755) {
            Err(FsError::AlreadyExists)
                if self
                    .0
                    .metadata(norm(path))
                    .is_ok_and(|m| m.kind == FileKind::Dir) =>
            {
                Err(VfsError::from(VfsErrorKind::DirectoryExists))
            }
            r => r.map_err(|e| to_vfs(e, path)),
        }
    }

    fn open_file(&self, path: &str) -> VfsResult<Box<dyn SeekAndRead + Send>> {
        let data = self
            .0
            .read_shared(norm(path))
            .map_err(|e| to_vfs(e, path))?;
        Ok(Box::new(Cursor::new(data.to_vec())))
    }

    fn create_file(&self, path: &str) -> VfsResult<Box<dyn SeekAndWrite + Send>> {
        self.0.write(norm(path), b"").map_err(|e| to_vfs(e, path))?;
        Ok(Box::new(Writer {
            fs: self.0.clone(),
            path: norm(path).to_string(),
            buf: Cursor::new(Vec::new()),
            dirty: false,
        }))
    }

    fn append_file(&self, path: &str) -> VfsResult<Box<dyn SeekAndWrite + Send>> {
        let data = self.0.read(norm(path)).map_err(|e| to_vfs(e, path))?;
        let mut buf = Cursor::new(data);
        buf.seek(SeekFrom::End(0)).map_err(VfsError::from)?;
        Ok(Box::new(Writer {
            fs: self.0.clone(),
            path: norm(path).to_string(),
            buf,
            dirty: false,
        }))
    }

    fn metadata(&self, path: &str) -> VfsResult<VfsMetadata> {
        let m = self.0.metadata(norm(path)).map_err(|e| to_vfs(e, path))?;
        let (file_type, len) = match m.kind {
            FileKind::Dir => (VfsFileType::Directory, 0),
            _ => (VfsFileType::File, m.size),
        };
        Ok(VfsMetadata {
            file_type,
            len,
            created: None,
            modified: Some(to_system_time(m.mtime)),
            accessed: None,
        })
    }

    fn set_modification_time(&self, path: &str, time: SystemTime) -> VfsResult<()> {
        self.0
            .set_mtime(norm(path), from_system_time(time))
            .map_err(|e| to_vfs(e, path))
    }

    fn exists(&self, path: &str) -> VfsResult<bool> {
        Ok(self.0.exists(norm(path)))
    }

    fn remove_file(&self, path: &str) -> VfsResult<()> {
        self.0.remove_file(norm(path)).map_err(|e| to_vfs(e, path))
    }

    fn remove_dir(&self, path: &str) -> VfsResult<()> {
        self.0.remove_dir(norm(path)).map_err(|e| to_vfs(e, path))
    }

    fn copy_file(&self, src: &str, dest: &str) -> VfsResult<()> {
        let data = self.0.read_shared(norm(src)).map_err(|e| to_vfs(e, src))?;
        self.0.write(norm(dest), &data).map_err(|e| to_vfs(e, dest))
    }

    fn move_file(&self, src: &str, dest: &str) -> VfsResult<()> {
        self.0
            .rename(norm(src), norm(dest))
            .map_err(|e| to_vfs(e, src))
    }

    fn move_dir(&self, src: &str, dest: &str) -> VfsResult<()> {
        self.0
            .rename(norm(src), norm(dest))
            .map_err(|e| to_vfs(e, src))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Clock;
    use crate::limits::FsLimits;
    use std::io::Read;
    use vfs::VfsPath;

    fn root() -> (Fs, VfsPath) {
        let fs = Fs::new(
            FsLimits::default(),
            Clock::fixed(1_700_000_000),
            crate::usr_bin_names(),
        );
        (fs.clone(), VfsAdapter::new(fs).into())
    }

    #[test]
    fn vfs_path_round_trip() {
        let (fs, root) = root();
        let dir = root.join("workspace/sub").unwrap();
        dir.create_dir().unwrap();
        let f = dir.join("a.txt").unwrap();
        write!(f.create_file().unwrap(), "hello").unwrap();
        write!(f.append_file().unwrap(), " world").unwrap();
        let mut s = String::new();
        f.open_file().unwrap().read_to_string(&mut s).unwrap();
        assert_eq!(s, "hello world");
        assert_eq!(fs.read("/workspace/sub/a.txt").unwrap(), b"hello world");
        let names: Vec<String> = dir.read_dir().unwrap().map(|p| p.filename()).collect();
        assert_eq!(names, ["a.txt"]);
        let md = f.metadata().unwrap();
        assert_eq!(md.file_type, VfsFileType::File);
        assert_eq!(md.len, 11);
        assert_eq!(
            md.modified,
            Some(UNIX_EPOCH + Duration::from_secs(1_700_000_000))
        );
        assert!(root.join("usr/bin/bash").unwrap().exists().unwrap());
    }

    #[test]
    fn vfs_errors_and_moves() {
        let (fs, root) = root();
        let missing = root.join("workspace/nope").unwrap();
        assert!(matches!(
            missing.open_file().map(|_| ()).unwrap_err().kind(),
            VfsErrorKind::FileNotFound
        ));
        let ws = root.join("workspace").unwrap();
        assert!(matches!(
            ws.create_dir().unwrap_err().kind(),
            VfsErrorKind::DirectoryExists
        ));
        let a = root.join("workspace/a").unwrap();
        write!(a.create_file().unwrap(), "x").unwrap();
        let b = root.join("tmp/b").unwrap();
        a.move_file(&b).unwrap();
        assert!(!fs.exists("/workspace/a"));
        assert_eq!(fs.read("/tmp/b").unwrap(), b"x");
        b.copy_file(&root.join("workspace/c").unwrap()).unwrap();
        assert_eq!(fs.read("/workspace/c").unwrap(), b"x");
        root.join("workspace/d/e")
            .unwrap()
            .create_dir_all()
            .unwrap();
        root.join("workspace/d").unwrap().remove_dir_all().unwrap();
        assert!(!fs.exists("/workspace/d"));
        let t = UNIX_EPOCH + Duration::from_secs(5);
        b.set_modification_time(t).unwrap();
        assert_eq!(b.metadata().unwrap().modified, Some(t));
    }

    #[test]
    fn time_conversions() {
        for t in [
            Timestamp { secs: 5, nanos: 7 },
            Timestamp {
                secs: -3,
                nanos: 250,
            },
            Timestamp::default(),
        ] {
            assert_eq!(from_system_time(to_system_time(t)), t);
        }
    }
}
