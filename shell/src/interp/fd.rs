//! The file-descriptor table of a shell and the handles it maps numbers to:
//! the run's output collectors, files of the virtual tree, pipe ends, capture
//! buffers for `$(...)`, in-memory input (stdin, here-docs), and the caller's
//! streams while a command runs another program through [`crate::commands::Exec`].
//!
//! A handle is cheap to clone (it is a few `Arc`s): a subshell's table is a
//! copy of its parent's, and both share positions exactly as forked processes
//! share open file descriptions.

use std::io::{self, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use super::pipe::{PipeReader, PipeWriter};
use crate::OutputSink;
use crate::control::RunControl;
use crate::fs::{Fs, FsError};
use crate::limits::LimitKind;

/// One open file description.
#[derive(Clone)]
pub enum Handle {
    /// The run's stdout or stderr.
    Out(Arc<Collector>),
    /// A file of the virtual tree.
    File(Arc<FileHandle>),
    /// Bytes read from memory with a shared position (stdin, here-docs).
    Bytes(Arc<ByteSource>),
    /// The read end of a pipe.
    PipeRead(Arc<PipeReader>),
    /// The write end of a pipe.
    PipeWrite(Arc<PipeWriter>),
    /// A growing buffer (`$(...)` and `<(...)` output).
    Capture(Arc<Capture>),
    /// `/dev/null`.
    Null,
    /// A directory opened for reading (`< dir`): the open succeeds, as in
    /// bash, and every read fails with EISDIR.
    Dir,
    /// A stream lent by a running command (see [`Borrowed`]).
    Borrowed(Arc<Borrowed>),
}

/// What a command substitution's commands wrote, held in memory up to the
/// filesystem's file-size limit: `x=$(yes)` trips the run's output limit
/// instead of growing until the host runs out of memory.
pub struct Capture {
    data: Mutex<Vec<u8>>,
    cap: usize,
    control: Arc<RunControl>,
}

impl Capture {
    /// An empty capture that holds at most `control`'s file-size limit.
    pub fn new(control: Arc<RunControl>) -> Arc<Capture> {
        let cap = usize::try_from(control.limits.fs.max_file_size).unwrap_or(usize::MAX);
        Arc::new(Capture {
            data: Mutex::new(Vec::new()),
            cap,
            control,
        })
    }

    fn write(&self, data: &[u8]) -> io::Result<()> {
        let mut held = self.data.lock().unwrap_or_else(|e| e.into_inner());
        if held.len().saturating_add(data.len()) > self.cap {
            self.control.trip(LimitKind::Memory);
            return Err(io::Error::from_raw_os_error(27)); // EFBIG
        }
        held.extend_from_slice(data);
        Ok(())
    }

    /// Takes what was captured so far.
    pub fn take(&self) -> Vec<u8> {
        std::mem::take(&mut *self.data.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

fn ebadf() -> io::Error {
    io::Error::from_raw_os_error(9)
}

impl Handle {
    /// Writes all of `data`.
    pub fn write(&self, data: &[u8]) -> io::Result<()> {
        match self {
            Handle::Out(c) => c.write(data),
            Handle::File(f) => f.write(data),
            Handle::PipeWrite(p) => p.write_all(data),
            Handle::Capture(c) => c.write(data),
            Handle::Null => Ok(()),
            Handle::Borrowed(b) => b.write(data),
            Handle::Bytes(_) | Handle::PipeRead(_) | Handle::Dir => Err(ebadf()),
        }
    }

    /// Reads into `buf`; `Ok(0)` at end of input.
    pub fn read(&self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Handle::File(f) => f.read(buf),
            Handle::Bytes(b) => Ok(b.read(buf)),
            Handle::PipeRead(p) => p.read(buf),
            Handle::Null => Ok(0),
            Handle::Dir => Err(io::Error::from_raw_os_error(21)), // EISDIR
            Handle::Borrowed(b) => b.read(buf),
            Handle::Out(_) | Handle::PipeWrite(_) | Handle::Capture(_) => Err(ebadf()),
        }
    }
}

/// Collects the run's stdout or stderr up to the output limit, streaming
/// each accepted chunk to the caller's sink (and keeping nothing when the
/// sink takes the output: unbounded output must not be held in memory).
pub struct Collector {
    kept: Mutex<Kept>,
    truncated: AtomicBool,
    limit: usize,
    stderr: bool,
    sink: Option<Arc<dyn OutputSink>>,
    /// The sink takes the output for good: count it, keep none of it.
    stream_only: bool,
    control: Arc<RunControl>,
}

/// What a collector holds: the bytes kept and how many were written.
#[derive(Default)]
struct Kept {
    bytes: Vec<u8>,
    written: usize,
}

impl Collector {
    /// A collector for stdout (`stderr == false`) or stderr.
    pub fn new(
        stderr: bool,
        limit: usize,
        sink: Option<Arc<dyn OutputSink>>,
        control: Arc<RunControl>,
    ) -> Collector {
        let stream_only = sink.as_ref().is_some_and(|s| s.takes_output());
        Collector {
            kept: Mutex::new(Kept::default()),
            truncated: AtomicBool::new(false),
            limit,
            stderr,
            sink,
            stream_only,
            control,
        }
    }

    fn emit(&self, chunk: &[u8]) {
        if let Some(sink) = &self.sink
            && !chunk.is_empty()
        {
            if self.stderr {
                sink.stderr(chunk);
            } else {
                sink.stdout(chunk);
            }
        }
    }

    /// True when the reader of this (stdout) stream is gone.
    fn reader_gone(&self) -> bool {
        !self.stderr && self.sink.as_ref().is_some_and(|s| s.stdout_closed())
    }

    /// Appends `data`; past the limit keeps what fits, flags truncation and
    /// trips the output limit (which ends the run). Fails as a broken pipe
    /// once the sink's reader is gone.
    pub fn write(&self, data: &[u8]) -> io::Result<()> {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        if self.truncated.load(Ordering::Relaxed) {
            return Err(io::Error::other("output limit reached"));
        }
        if self.reader_gone() {
            return Err(io::Error::from(io::ErrorKind::BrokenPipe));
        }
        let room = self.limit.saturating_sub(kept.written);
        let accepted = &data[..data.len().min(room)];
        kept.written += accepted.len();
        if !self.stream_only {
            kept.bytes.extend_from_slice(accepted);
        }
        drop(kept);
        self.emit(accepted);
        if accepted.len() == data.len() {
            return Ok(());
        }
        self.truncated.store(true, Ordering::Relaxed);
        self.control.trip(LimitKind::Output);
        Err(io::Error::other("output limit reached"))
    }

    /// Appends `data` even past the limit (the run's final messages).
    pub fn write_forced(&self, data: &[u8]) {
        if !self.stream_only {
            self.kept
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .bytes
                .extend_from_slice(data);
        }
        self.emit(data);
    }

    /// True when output was cut.
    pub fn truncated(&self) -> bool {
        self.truncated.load(Ordering::Relaxed)
    }

    /// Takes the collected bytes (none when the sink took them).
    pub fn take(&self) -> Vec<u8> {
        std::mem::take(&mut self.kept.lock().unwrap_or_else(|e| e.into_inner()).bytes)
    }
}

/// How a file was opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileMode {
    /// `<`
    Read,
    /// `>`, `>|`
    Write,
    /// `>>`
    Append,
    /// `<>`
    ReadWrite,
}

/// An open file of the virtual tree: writes go straight to the tree at the
/// shared position; reads come from a snapshot taken when it was opened.
pub struct FileHandle {
    fs: Fs,
    path: String,
    mode: FileMode,
    pos: Mutex<u64>,
    snapshot: Mutex<Option<Arc<Vec<u8>>>>,
    /// A write was refused at the file-size limit (not yet reported).
    too_large: AtomicBool,
    /// For a FIFO opened for writing: its writer count, held until the
    /// handle closes.
    fifo_writer: Option<crate::fs::FifoWriter>,
}

impl FileHandle {
    /// Wraps an already opened (created/truncated) file.
    pub fn new(fs: Fs, path: String, mode: FileMode, snapshot: Option<Arc<Vec<u8>>>) -> FileHandle {
        FileHandle {
            fs,
            path,
            mode,
            pos: Mutex::new(0),
            snapshot: Mutex::new(snapshot),
            too_large: AtomicBool::new(false),
            fifo_writer: None,
        }
    }

    /// The handle holds `writer` (a FIFO's writer count) until it closes.
    pub fn holding(mut self, writer: crate::fs::FifoWriter) -> FileHandle {
        self.fifo_writer = Some(writer);
        self
    }

    /// The file's path.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// True once if a write was refused at the file-size limit since the
    /// last call: the shell reports it when the redirection ends.
    pub fn take_too_large(&self) -> bool {
        self.too_large.swap(false, Ordering::Relaxed)
    }

    fn write(&self, data: &[u8]) -> io::Result<()> {
        let mut pos = self.pos.lock().unwrap_or_else(|e| e.into_inner());
        let r = match self.mode {
            FileMode::Read => return Err(ebadf()),
            FileMode::Append => self.fs.append(&self.path, data),
            FileMode::Write | FileMode::ReadWrite => self.fs.write_at(&self.path, *pos, data),
        };
        r.map_err(|e| match e {
            // Name the limit: a write cut at the size limit must say why.
            FsError::FileTooLarge => {
                self.too_large.store(true, Ordering::Relaxed);
                io::Error::other(format!(
                    "File too large (the sandbox's file size limit is {} bytes)",
                    self.fs.max_file_size()
                ))
            }
            // A FIFO whose readers left: EPIPE, as a pipe's writer gets.
            FsError::BrokenPipe => io::Error::from(io::ErrorKind::BrokenPipe),
            e => io::Error::other(e.to_string()),
        })?;
        *pos += data.len() as u64;
        Ok(())
    }

    fn read(&self, buf: &mut [u8]) -> io::Result<usize> {
        let data = match self.mode {
            FileMode::Read => {
                let snap = self.snapshot.lock().unwrap_or_else(|e| e.into_inner());
                match &*snap {
                    Some(d) => d.clone(),
                    None => return Ok(0),
                }
            }
            FileMode::ReadWrite => self
                .fs
                .read_shared(&self.path)
                .map_err(|e| io::Error::other(e.to_string()))?,
            _ => return Err(ebadf()),
        };
        let mut pos = self.pos.lock().unwrap_or_else(|e| e.into_inner());
        let start = (*pos as usize).min(data.len());
        let n = buf.len().min(data.len() - start);
        buf[..n].copy_from_slice(&data[start..start + n]);
        *pos += n as u64;
        Ok(n)
    }
}

/// Bytes in memory read through a shared position.
pub struct ByteSource {
    data: Arc<Vec<u8>>,
    pos: Mutex<usize>,
}

impl ByteSource {
    /// A source over `data`.
    pub fn new(data: impl Into<Arc<Vec<u8>>>) -> ByteSource {
        ByteSource {
            data: data.into(),
            pos: Mutex::new(0),
        }
    }

    fn read(&self, buf: &mut [u8]) -> usize {
        let mut pos = self.pos.lock().unwrap_or_else(|e| e.into_inner());
        let start = (*pos).min(self.data.len());
        let n = buf.len().min(self.data.len() - start);
        buf[..n].copy_from_slice(&self.data[start..start + n]);
        *pos += n;
        n
    }
}

/// A stream lent by a running command (`xargs`, `find -exec`, `env CMD`) to the
/// program it runs. It is valid only while [`crate::commands::Exec::exec`] runs;
/// `revoke` is called before that returns, after which it reads EOF and
/// refuses writes.
pub struct Borrowed {
    reader: Mutex<Option<*mut (dyn Read + 'static)>>,
    writer: Mutex<Option<*mut (dyn Write + 'static)>>,
}

// SAFETY: the raw pointers are only dereferenced under their mutex while the
// lending `exec` call is on the stack (every user of the handle runs inside
// that call, on scoped threads at most), and `revoke` clears them before the
// borrow ends.
unsafe impl Send for Borrowed {}
// SAFETY: see above; all access is serialised by the mutexes.
unsafe impl Sync for Borrowed {}

impl Borrowed {
    /// Lends a reader. The caller must call [`Borrowed::revoke`] before the borrow ends.
    pub fn reader(r: &mut dyn Read) -> Arc<Borrowed> {
        // SAFETY: erases the lifetime; `revoke` is called before it ends.
        let p: *mut (dyn Read + 'static) = unsafe { std::mem::transmute(r as *mut dyn Read) };
        Arc::new(Borrowed {
            reader: Mutex::new(Some(p)),
            writer: Mutex::new(None),
        })
    }

    /// Lends a writer. The caller must call [`Borrowed::revoke`] before the borrow ends.
    pub fn writer(w: &mut dyn Write) -> Arc<Borrowed> {
        // SAFETY: erases the lifetime; `revoke` is called before it ends.
        let p: *mut (dyn Write + 'static) = unsafe { std::mem::transmute(w as *mut dyn Write) };
        Arc::new(Borrowed {
            reader: Mutex::new(None),
            writer: Mutex::new(Some(p)),
        })
    }

    /// Ends the loan.
    pub fn revoke(&self) {
        *self.reader.lock().unwrap_or_else(|e| e.into_inner()) = None;
        *self.writer.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }

    fn read(&self, buf: &mut [u8]) -> io::Result<usize> {
        let g = self.reader.lock().unwrap_or_else(|e| e.into_inner());
        match *g {
            // SAFETY: valid while lent (see the type's docs); exclusive under the lock.
            Some(p) => unsafe { (*p).read(buf) },
            None => Ok(0),
        }
    }

    fn write(&self, data: &[u8]) -> io::Result<()> {
        let g = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        match *g {
            // SAFETY: valid while lent (see the type's docs); exclusive under the lock.
            Some(p) => unsafe { (*p).write_all(data) },
            None => Err(ebadf()),
        }
    }
}

/// File descriptor numbers mapped to open handles.
#[derive(Clone, Default)]
pub struct FdTable {
    slots: Vec<Option<Handle>>,
}

impl FdTable {
    /// The handle open on `fd`.
    pub fn get(&self, fd: i32) -> Option<&Handle> {
        if fd < 0 {
            return None;
        }
        self.slots.get(fd as usize).and_then(|h| h.as_ref())
    }

    /// Opens `handle` on `fd`, returning what was there.
    pub fn set(&mut self, fd: i32, handle: Option<Handle>) -> Option<Handle> {
        if fd < 0 {
            return None;
        }
        let i = fd as usize;
        if self.slots.len() <= i {
            handle.as_ref()?;
            self.slots.resize(i + 1, None);
        }
        std::mem::replace(&mut self.slots[i], handle)
    }

    /// The lowest free descriptor at or above `min` (`{fd}>file` uses 10).
    pub fn free_from(&self, min: i32) -> i32 {
        let mut fd = min.max(0);
        while self.get(fd).is_some() {
            fd += 1;
        }
        fd
    }
}

/// `Read` over a handle (a command's stdin).
pub struct HandleReader(pub Option<Handle>);

impl Read for HandleReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match &self.0 {
            Some(h) => h.read(buf),
            None => Err(ebadf()),
        }
    }
}

/// `Write` over a handle (a command's stdout/stderr). Remembers a broken pipe
/// so the caller can report status 141 like SIGPIPE would.
pub struct HandleWriter {
    handle: Option<Handle>,
    /// Set when a write failed because the reading end was gone.
    pub broken_pipe: bool,
}

impl HandleWriter {
    /// A writer over `handle` (`None`: a closed descriptor).
    pub fn new(handle: Option<Handle>) -> HandleWriter {
        HandleWriter {
            handle,
            broken_pipe: false,
        }
    }
}

impl Write for HandleWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &self.handle {
            Some(h) => match h.write(buf) {
                Ok(()) => Ok(buf.len()),
                Err(e) => {
                    if e.kind() == io::ErrorKind::BrokenPipe {
                        self.broken_pipe = true;
                    }
                    Err(e)
                }
            },
            None => Err(ebadf()),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
