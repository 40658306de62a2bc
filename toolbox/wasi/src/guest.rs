//! The state of one guest run and the file operations behind the preview1
//! imports: a descriptor table over the sandbox's virtual filesystem and the
//! command's own streams. Nothing here reaches the host machine: paths
//! resolve in [`Fs`], the streams are the shell's, the clock is the run's.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::time::Instant;

use sandkeep_shell::{
    Device, FileKind, FileReader, Fs, LimitKind, Metadata, RunControl, Timestamp,
};

use crate::abi::{self, Errno, Filestat};

/// Why the host stopped a guest (carried through wasmtime as the error of
/// a host call or of the epoch callback).
#[derive(Debug, thiserror::Error)]
pub enum Stop {
    /// The guest called `proc_exit`.
    #[error("exit status {0}")]
    Exit(i32),
    /// A limit of the run (deadline, cancellation, output) ended it.
    #[error("{0} reached")]
    Limit(LimitKind),
}

/// One open descriptor.
pub enum Handle {
    /// The command's standard input.
    Stdin,
    /// The command's standard output.
    Stdout,
    /// The command's standard error.
    Stderr,
    /// A directory (the preopen `/` or one the guest opened).
    Dir { path: String },
    /// A regular file, read and written through the tree at `pos`.
    File(OpenFile),
    /// A stream that cannot seek: a FIFO or an endless device.
    Stream {
        reader: Option<Box<FileReader>>,
        device: Option<Device>,
    },
}

/// A regular file the guest opened.
pub struct OpenFile {
    pub path: String,
    pub pos: u64,
    pub read: bool,
    pub write: bool,
    pub append: bool,
}

/// The command's streams, borrowed for the length of one run (see
/// [`crate::Program::run`], which owns the store and drops it before the
/// borrow ends).
pub struct Streams {
    pub stdin: &'static mut dyn Read,
    pub stdout: &'static mut dyn Write,
    pub stderr: &'static mut dyn Write,
}

/// Everything one run of a guest may touch.
pub struct Guest {
    pub args: Vec<Vec<u8>>,
    pub env: Vec<Vec<u8>>,
    pub fs: Fs,
    pub control: &'static RunControl,
    pub streams: Streams,
    pub fds: BTreeMap<u32, Handle>,
    /// Files only the guest sees, read-only, by absolute path (the
    /// interpreter's start-up hook, its library); the shell's tree never
    /// holds them.
    pub overlay: std::sync::Arc<crate::Overlay>,
    /// Bytes for `random_get`: the tree's `/dev/urandom` stream, seeded by
    /// the run's seed in deterministic mode.
    pub random: Option<FileReader>,
    pub started: Instant,
    pub limiter: crate::limits::MemoryLimiter,
    pub memory: Option<wasmtime::Memory>,
}

/// The descriptor of the preopened root.
pub const ROOT_FD: u32 = 3;

impl Guest {
    /// The absolute path `rel` names relative to directory descriptor `fd`.
    pub fn resolve(&self, fd: u32, rel: &str) -> Result<String, Errno> {
        match self.fds.get(&fd) {
            Some(Handle::Dir { path }) => {
                if rel.contains('\0') {
                    return Err(Errno::INVAL);
                }
                Ok(Fs::resolve(path, rel))
            }
            Some(_) => Err(Errno::NOTDIR),
            None => Err(Errno::BADF),
        }
    }

    /// A free descriptor number (the lowest above the standard ones).
    fn next_fd(&self) -> u32 {
        let mut n = 3;
        while self.fds.contains_key(&n) {
            n += 1;
        }
        n
    }

    /// Adds `handle`; returns its number.
    pub fn insert(&mut self, handle: Handle) -> u32 {
        let fd = self.next_fd();
        self.fds.insert(fd, handle);
        fd
    }

    /// An overlay file at `path`.
    pub fn overlay_file(&self, path: &str) -> Option<&[u8]> {
        self.overlay.file(path).map(|d| &d[..])
    }

    /// The names in `path` when it is a directory of the overlay.
    pub fn overlay_dir(&self, path: &str) -> Option<Vec<String>> {
        self.overlay
            .dir(path)
            .map(|names| names.iter().cloned().collect())
    }

    /// Metadata of `path`, following symlinks or not.
    pub fn stat(&self, path: &str, follow: bool) -> Result<Metadata, Errno> {
        if path != "/" && self.overlay_dir(path).is_some() {
            return Ok(Metadata {
                kind: FileKind::Dir,
                mode: 0o555,
                size: 0,
                mtime: Timestamp::default(),
                ino: 2,
                nlink: 2,
            });
        }
        if let Some(data) = self.overlay_file(path) {
            return Ok(Metadata {
                kind: FileKind::File,
                mode: 0o444,
                size: data.len() as u64,
                mtime: Timestamp::default(),
                ino: 1,
                nlink: 1,
            });
        }
        let m = if follow {
            self.fs.metadata(path)
        } else {
            self.fs.symlink_metadata(path)
        };
        Ok(m?)
    }

    /// Opens `path` (`path_open`).
    pub fn open(
        &mut self,
        path: String,
        follow: bool,
        oflags: u16,
        write: bool,
        read: bool,
        fdflags: u16,
    ) -> Result<u32, Errno> {
        let append = fdflags & abi::FDFLAG_APPEND != 0;
        if self.overlay_file(&path).is_some() {
            if write || oflags & (abi::O_TRUNC | abi::O_EXCL) != 0 {
                return Err(Errno::ROFS);
            }
            // Overlay files are read through `read_overlay`; a `File`
            // handle on them reads the overlay (see `read_file`).
            return Ok(self.insert(Handle::File(OpenFile {
                path,
                pos: 0,
                read: true,
                write: false,
                append: false,
            })));
        }
        let meta = self.stat(&path, follow);
        let meta = match meta {
            Ok(m) => {
                if oflags & abi::O_CREAT != 0 && oflags & abi::O_EXCL != 0 {
                    return Err(Errno::EXIST);
                }
                m
            }
            Err(Errno::NOENT) if oflags & abi::O_CREAT != 0 => {
                if oflags & abi::O_DIRECTORY != 0 {
                    return Err(Errno::INVAL);
                }
                self.fs.create(&path, true)?;
                self.stat(&path, true)?
            }
            Err(e) => return Err(e),
        };
        match meta.kind {
            FileKind::Symlink => Err(Errno::LOOP),
            FileKind::Dir => {
                if write {
                    return Err(Errno::ISDIR);
                }
                Ok(self.insert(Handle::Dir { path }))
            }
            _ if oflags & abi::O_DIRECTORY != 0 => Err(Errno::NOTDIR),
            FileKind::CharDevice => {
                let device = self.fs.device(&path);
                if device == Some(Device::Descriptor) {
                    let handle = match path.as_str() {
                        "/dev/stdin" | "/dev/fd/0" => Handle::Stdin,
                        "/dev/stdout" | "/dev/fd/1" => Handle::Stdout,
                        "/dev/stderr" | "/dev/fd/2" => Handle::Stderr,
                        _ => Handle::Stream {
                            reader: None,
                            device,
                        },
                    };
                    return Ok(self.insert(handle));
                }
                let reader = if read {
                    Some(Box::new(self.fs.open_read(&path, self.control.seed)?))
                } else {
                    None
                };
                Ok(self.insert(Handle::Stream { reader, device }))
            }
            FileKind::Fifo => {
                if write {
                    return Err(Errno::NOTSUP);
                }
                let reader = Box::new(self.fs.open_read(&path, self.control.seed)?);
                Ok(self.insert(Handle::Stream {
                    reader: Some(reader),
                    device: None,
                }))
            }
            FileKind::File => {
                if oflags & abi::O_TRUNC != 0 && write && meta.size > 0 {
                    self.fs.truncate(&path, 0)?;
                }
                Ok(self.insert(Handle::File(OpenFile {
                    path,
                    pos: 0,
                    read,
                    write,
                    append,
                })))
            }
        }
    }

    /// Reads from `fd` into `bufs` (one read of a stream; files fill every
    /// buffer). `at`: `fd_pread`'s offset.
    pub fn read(
        &mut self,
        fd: u32,
        bufs: &mut [&mut [u8]],
        at: Option<u64>,
    ) -> Result<usize, Errno> {
        let total: usize = bufs.iter().map(|b| b.len()).sum();
        if total == 0 {
            return Ok(0);
        }
        let overlay = self.overlay.clone();
        let fs = self.fs.clone();
        match self.fds.get_mut(&fd).ok_or(Errno::BADF)? {
            Handle::Stdin => {
                let buf = bufs
                    .iter_mut()
                    .find(|b| !b.is_empty())
                    .ok_or(Errno::INVAL)?;
                loop {
                    match self.streams.stdin.read(buf) {
                        Ok(n) => return Ok(n),
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                        Err(_) => return Err(Errno::IO),
                    }
                }
            }
            Handle::Stdout | Handle::Stderr => Err(Errno::BADF),
            Handle::Dir { .. } => Err(Errno::ISDIR),
            Handle::Stream { reader, .. } => {
                let Some(reader) = reader else {
                    return Ok(0);
                };
                let buf = bufs
                    .iter_mut()
                    .find(|b| !b.is_empty())
                    .ok_or(Errno::INVAL)?;
                reader.read(buf).map_err(|_| Errno::IO)
            }
            Handle::File(file) => {
                if !file.read {
                    return Err(Errno::BADF);
                }
                let shared;
                let data: &[u8] = match overlay.file(&file.path) {
                    Some(d) => d,
                    None => {
                        shared = fs.read_shared(&file.path)?;
                        &shared[..]
                    }
                };
                let start = at.unwrap_or(file.pos);
                let mut pos = usize::try_from(start).unwrap_or(usize::MAX).min(data.len());
                let mut n = 0;
                for buf in bufs.iter_mut() {
                    let take = buf.len().min(data.len() - pos);
                    buf[..take].copy_from_slice(&data[pos..pos + take]);
                    pos += take;
                    n += take;
                    if take < buf.len() {
                        break;
                    }
                }
                if at.is_none() {
                    file.pos = pos as u64;
                }
                Ok(n)
            }
        }
    }

    /// Writes `data` to `fd`. `at`: `fd_pwrite`'s offset.
    pub fn write(&mut self, fd: u32, data: &[u8], at: Option<u64>) -> Result<usize, Errno> {
        let fs = self.fs.clone();
        let result = match self.fds.get_mut(&fd).ok_or(Errno::BADF)? {
            Handle::Stdout => self.streams.stdout.write_all(data).map_err(|_| Errno::PIPE),
            Handle::Stderr => self.streams.stderr.write_all(data).map_err(|_| Errno::PIPE),
            Handle::Stdin => Err(Errno::BADF),
            Handle::Dir { .. } => Err(Errno::ISDIR),
            Handle::Stream { device, .. } => match device {
                Some(Device::Full) if !data.is_empty() => Err(Errno::NOSPC),
                _ => Ok(()),
            },
            Handle::File(file) => {
                if !file.write {
                    return Err(Errno::BADF);
                }
                match at {
                    Some(offset) => fs.write_at(&file.path, offset, data)?,
                    None if file.append => {
                        fs.append(&file.path, data)?;
                        file.pos = fs.metadata(&file.path)?.size;
                    }
                    None => {
                        fs.write_at(&file.path, file.pos, data)?;
                        file.pos += data.len() as u64;
                    }
                }
                Ok(())
            }
        };
        result.map(|()| data.len())
    }

    /// The `filestat` of an open descriptor.
    pub fn fd_filestat(&self, fd: u32) -> Result<Filestat, Errno> {
        match self.fds.get(&fd).ok_or(Errno::BADF)? {
            Handle::Stdin | Handle::Stdout | Handle::Stderr => Ok(Filestat {
                filetype: 0,
                nlink: 1,
                ..Filestat::default()
            }),
            Handle::Dir { path } => Ok(filestat(&self.stat(path, true)?)),
            Handle::File(f) => Ok(filestat(&self.stat(&f.path, true)?)),
            Handle::Stream { .. } => Ok(Filestat {
                filetype: abi::FILETYPE_CHAR_DEVICE,
                nlink: 1,
                ..Filestat::default()
            }),
        }
    }

    /// The path behind an open file or directory.
    pub fn fd_path(&self, fd: u32) -> Result<&str, Errno> {
        match self.fds.get(&fd).ok_or(Errno::BADF)? {
            Handle::Dir { path } => Ok(path),
            Handle::File(f) => Ok(&f.path),
            _ => Err(Errno::INVAL),
        }
    }

    /// Time for the guest's clocks, in nanoseconds.
    pub fn clock(&self, id: u32) -> Result<u64, Errno> {
        match id {
            abi::CLOCK_REALTIME => Ok(timestamp_ns(self.control.clock.now())),
            // Time since the run began, offset so it is never 0: no host
            // uptime shows through.
            abi::CLOCK_MONOTONIC | abi::CLOCK_PROCESS_CPUTIME | abi::CLOCK_THREAD_CPUTIME => {
                Ok(1_000_000_000 + self.started.elapsed().as_nanos() as u64)
            }
            _ => Err(Errno::INVAL),
        }
    }

    /// Fills `buf` with random bytes.
    pub fn random(&mut self, buf: &mut [u8]) -> Result<(), Errno> {
        if self.random.is_none() {
            self.random = Some(self.fs.open_read("/dev/urandom", self.control.seed)?);
        }
        let reader = self.random.as_mut().ok_or(Errno::IO)?;
        reader.read_exact(buf).map_err(|_| Errno::IO)
    }

    /// Ends the guest when the run was cancelled or passed a limit.
    pub fn check(&self) -> Result<(), Stop> {
        self.control.check().map_err(Stop::Limit)
    }
}

/// Nanoseconds since the epoch (0 before it).
pub fn timestamp_ns(t: Timestamp) -> u64 {
    u64::try_from(t.secs)
        .unwrap_or(0)
        .saturating_mul(1_000_000_000)
        .saturating_add(u64::from(t.nanos))
}

/// A timestamp from nanoseconds since the epoch.
pub fn ns_timestamp(ns: u64) -> Timestamp {
    Timestamp {
        secs: (ns / 1_000_000_000) as i64,
        nanos: (ns % 1_000_000_000) as u32,
    }
}

/// The `filestat` of a node.
pub fn filestat(m: &Metadata) -> Filestat {
    let t = timestamp_ns(m.mtime);
    Filestat {
        dev: 1,
        ino: m.ino,
        filetype: abi::filetype(m.kind),
        nlink: u64::from(m.nlink),
        size: m.size,
        atim: t,
        mtim: t,
        ctim: t,
    }
}
