//! The only SQLite VFS of the process: database files served from the
//! sandbox's virtual filesystem, journals and temporary files in memory.
//!
//! Why a VFS rather than `sqlite3_deserialize`: `ATTACH 'other.db'`,
//! `VACUUM INTO 'copy.db'` and every other way SQL can name a file go through
//! the VFS, so serving all of them from the sandbox is what keeps SQL from
//! reaching host files. [`crate::engine::init`] unregisters SQLite's own
//! (`unix`, `unix-dotfile`, ...) before registering this one as the default,
//! so not even a URI's `?vfs=unix` finds a host filesystem.
//!
//! A database file is read from the VFS once, when SQLite opens it, and
//! worked on in memory; the pages SQLite wrote are written back
//! (`Fs::write_at`) when it syncs, i.e. at each commit, so a run cut by its
//! deadline keeps what it committed. Rollback journals, statement journals
//! and temporary databases never leave memory (a crash of the host process
//! loses the sandbox anyway). Locks are no-ops: one `sqlite3` owns its files
//! for its life; two at once on one file in a pipeline each keep their own
//! copy (the later commit's pages win).
//!
//! Which sandbox a call serves is the thread's [`Context`], set by
//! [`crate::engine::enter`] around a command: SQLite calls the VFS on the
//! thread that called it. With no context, every open fails.

use std::cell::RefCell;
use std::ffi::{CStr, c_char, c_int, c_void};
use std::ptr;

use rusqlite::ffi;
use sandkeep_shell::{Clock, Fs};

/// What the VFS needs of the sandbox whose command is running on this thread.
#[derive(Clone)]
pub struct Context {
    /// The sandbox's filesystem.
    pub fs: Fs,
    /// The command's working directory (relative names resolve against it).
    pub cwd: String,
    /// The run's clock (`date('now')`).
    pub clock: Clock,
    /// The run's seed for SQLite's PRNG (`random()`), if deterministic.
    pub seed: Option<u64>,
}

thread_local! {
    static CONTEXT: RefCell<Option<Context>> = const { RefCell::new(None) };
}

/// Sets (or with `None` clears) this thread's sandbox; returns the previous.
pub fn set_context(ctx: Option<Context>) -> Option<Context> {
    CONTEXT.with(|c| std::mem::replace(&mut *c.borrow_mut(), ctx))
}

fn with_context<T>(f: impl FnOnce(&Context) -> T) -> Option<T> {
    CONTEXT.with(|c| c.borrow().as_ref().map(f))
}

/// The name the VFS is registered under.
pub const NAME: &CStr = c"sandkeep";

/// One open file, as SQLite allocates it (`szOsFile` bytes): the base
/// struct SQLite reads first, then our state.
#[repr(C)]
struct OpenFile {
    base: ffi::sqlite3_file,
    state: *mut FileState,
}

/// An open file's contents and where they go back to.
struct FileState {
    fs: Option<Fs>,
    /// The absolute sandbox path (`None`: a memory-only file).
    path: Option<String>,
    data: Vec<u8>,
    /// Byte ranges written since the last sync (offset, length).
    dirty: Vec<(u64, usize)>,
    /// The file was truncated since the last sync.
    truncated: bool,
    read_only: bool,
}

impl FileState {
    /// Writes what changed back to the sandbox file.
    fn flush(&mut self) -> c_int {
        let (Some(fs), Some(path)) = (&self.fs, &self.path) else {
            self.dirty.clear();
            return ffi::SQLITE_OK;
        };
        if self.truncated {
            if fs.truncate(path, self.data.len() as u64).is_err() {
                return ffi::SQLITE_IOERR_TRUNCATE;
            }
            self.truncated = false;
        }
        if self.dirty.is_empty() {
            return ffi::SQLITE_OK;
        }
        let mut ranges = std::mem::take(&mut self.dirty);
        ranges.sort_unstable();
        let mut merged: Vec<(u64, u64)> = Vec::new();
        for (off, len) in ranges {
            let end = off + len as u64;
            match merged.last_mut() {
                Some(last) if off <= last.1 => last.1 = last.1.max(end),
                _ => merged.push((off, end)),
            }
        }
        for (start, end) in merged {
            let end = end.min(self.data.len() as u64);
            if start >= end {
                continue;
            }
            let slice = &self.data[start as usize..end as usize];
            if fs.write_at(path, start, slice).is_err() {
                return ffi::SQLITE_FULL;
            }
        }
        ffi::SQLITE_OK
    }
}

static IO_METHODS: ffi::sqlite3_io_methods = ffi::sqlite3_io_methods {
    iVersion: 1,
    xClose: Some(x_close),
    xRead: Some(x_read),
    xWrite: Some(x_write),
    xTruncate: Some(x_truncate),
    xSync: Some(x_sync),
    xFileSize: Some(x_file_size),
    xLock: Some(x_lock),
    xUnlock: Some(x_lock),
    xCheckReservedLock: Some(x_check_reserved_lock),
    xFileControl: Some(x_file_control),
    xSectorSize: Some(x_sector_size),
    xDeviceCharacteristics: Some(x_device_characteristics),
    xShmMap: None,
    xShmLock: None,
    xShmBarrier: None,
    xShmUnmap: None,
    xFetch: None,
    xUnfetch: None,
};

/// The VFS record SQLite keeps a pointer to for the life of the process.
pub fn new_vfs() -> ffi::sqlite3_vfs {
    ffi::sqlite3_vfs {
        iVersion: 2,
        szOsFile: std::mem::size_of::<OpenFile>() as c_int,
        mxPathname: 1024,
        pNext: ptr::null_mut(),
        zName: NAME.as_ptr(),
        pAppData: ptr::null_mut(),
        xOpen: Some(x_open),
        xDelete: Some(x_delete),
        xAccess: Some(x_access),
        xFullPathname: Some(x_full_pathname),
        xDlOpen: None,
        xDlError: None,
        xDlSym: None,
        xDlClose: None,
        xRandomness: Some(x_randomness),
        xSleep: Some(x_sleep),
        xCurrentTime: Some(x_current_time),
        xGetLastError: None,
        xCurrentTimeInt64: Some(x_current_time_int64),
        xSetSystemCall: None,
        xGetSystemCall: None,
        xNextSystemCall: None,
    }
}

/// # Safety
/// `p` is a file SQLite opened through [`x_open`].
unsafe fn state<'a>(p: *mut ffi::sqlite3_file) -> &'a mut FileState {
    // SAFETY: x_open set `state` to a leaked Box before returning OK, and
    // SQLite calls no method after xClose.
    unsafe { &mut *(*(p as *mut OpenFile)).state }
}

unsafe extern "C" fn x_open(
    _vfs: *mut ffi::sqlite3_vfs,
    name: ffi::sqlite3_filename,
    file: *mut ffi::sqlite3_file,
    flags: c_int,
    out_flags: *mut c_int,
) -> c_int {
    // SAFETY: SQLite hands us `szOsFile` bytes to fill.
    let open = unsafe { &mut *(file as *mut OpenFile) };
    open.base.pMethods = ptr::null();
    open.state = ptr::null_mut();
    let persistent = flags & (ffi::SQLITE_OPEN_MAIN_DB) != 0 && !name.is_null();
    let read_only = flags & ffi::SQLITE_OPEN_READONLY != 0;
    let state = if persistent {
        // SAFETY: a non-null name is a NUL-terminated string.
        let path = unsafe { CStr::from_ptr(name) }
            .to_string_lossy()
            .into_owned();
        let create = flags & ffi::SQLITE_OPEN_CREATE != 0;
        let Some(opened) = with_context(|ctx| open_sandbox_file(ctx, &path, create)) else {
            return ffi::SQLITE_CANTOPEN;
        };
        match opened {
            Some((fs, data)) => FileState {
                fs: Some(fs),
                path: Some(path),
                data,
                dirty: Vec::new(),
                truncated: false,
                read_only,
            },
            None => return ffi::SQLITE_CANTOPEN,
        }
    } else {
        FileState {
            fs: None,
            path: None,
            data: Vec::new(),
            dirty: Vec::new(),
            truncated: false,
            read_only: false,
        }
    };
    open.state = Box::into_raw(Box::new(state));
    open.base.pMethods = &IO_METHODS;
    if !out_flags.is_null() {
        // SAFETY: SQLite passes a valid out pointer when it is not null.
        unsafe { *out_flags = flags };
    }
    ffi::SQLITE_OK
}

/// Reads (or creates, when allowed) the sandbox file `path`.
fn open_sandbox_file(ctx: &Context, path: &str, create: bool) -> Option<(Fs, Vec<u8>)> {
    match ctx.fs.metadata(path) {
        Ok(meta) if meta.kind == sandkeep_shell::FileKind::File => {
            let data = ctx.fs.read(path).ok()?;
            Some((ctx.fs.clone(), data))
        }
        Ok(_) => None,
        Err(_) if create => {
            ctx.fs.create(path, false).ok()?;
            Some((ctx.fs.clone(), Vec::new()))
        }
        Err(_) => None,
    }
}

unsafe extern "C" fn x_close(file: *mut ffi::sqlite3_file) -> c_int {
    // SAFETY: see `state`; the Box is taken back exactly once.
    let open = unsafe { &mut *(file as *mut OpenFile) };
    if open.state.is_null() {
        return ffi::SQLITE_OK;
    }
    // SAFETY: `state` came from Box::into_raw in x_open.
    let mut st = unsafe { Box::from_raw(open.state) };
    open.state = ptr::null_mut();
    st.flush()
}

unsafe extern "C" fn x_read(
    file: *mut ffi::sqlite3_file,
    buf: *mut c_void,
    amount: c_int,
    offset: ffi::sqlite3_int64,
) -> c_int {
    // SAFETY: see `state`.
    let st = unsafe { state(file) };
    let amount = amount.max(0) as usize;
    // SAFETY: SQLite passes a buffer of `amount` bytes.
    let out = unsafe { std::slice::from_raw_parts_mut(buf as *mut u8, amount) };
    let start = (offset.max(0) as usize).min(st.data.len());
    let end = start.saturating_add(amount).min(st.data.len());
    let got = end - start;
    out[..got].copy_from_slice(&st.data[start..end]);
    if got < amount {
        // SQLite requires the unread tail zeroed on a short read.
        out[got..].fill(0);
        return ffi::SQLITE_IOERR_SHORT_READ;
    }
    ffi::SQLITE_OK
}

unsafe extern "C" fn x_write(
    file: *mut ffi::sqlite3_file,
    buf: *const c_void,
    amount: c_int,
    offset: ffi::sqlite3_int64,
) -> c_int {
    // SAFETY: see `state`.
    let st = unsafe { state(file) };
    if st.read_only {
        return ffi::SQLITE_READONLY;
    }
    let amount = amount.max(0) as usize;
    // SAFETY: SQLite passes `amount` readable bytes.
    let src = unsafe { std::slice::from_raw_parts(buf as *const u8, amount) };
    let start = offset.max(0) as usize;
    let end = start.saturating_add(amount);
    if let Some(fs) = &st.fs
        && end as u64 > fs.max_file_size()
    {
        return ffi::SQLITE_FULL;
    }
    if st.data.len() < end {
        st.data.resize(end, 0);
    }
    st.data[start..end].copy_from_slice(src);
    if st.fs.is_some() {
        st.dirty.push((start as u64, amount));
    }
    ffi::SQLITE_OK
}

unsafe extern "C" fn x_truncate(file: *mut ffi::sqlite3_file, size: ffi::sqlite3_int64) -> c_int {
    // SAFETY: see `state`.
    let st = unsafe { state(file) };
    let size = size.max(0) as usize;
    if size < st.data.len() {
        st.data.truncate(size);
        st.truncated = true;
    }
    ffi::SQLITE_OK
}

unsafe extern "C" fn x_sync(file: *mut ffi::sqlite3_file, _flags: c_int) -> c_int {
    // SAFETY: see `state`.
    unsafe { state(file) }.flush()
}

unsafe extern "C" fn x_file_size(
    file: *mut ffi::sqlite3_file,
    size: *mut ffi::sqlite3_int64,
) -> c_int {
    // SAFETY: see `state`; `size` is a valid out pointer.
    unsafe { *size = state(file).data.len() as ffi::sqlite3_int64 };
    ffi::SQLITE_OK
}

unsafe extern "C" fn x_lock(_file: *mut ffi::sqlite3_file, _level: c_int) -> c_int {
    ffi::SQLITE_OK
}

unsafe extern "C" fn x_check_reserved_lock(
    _file: *mut ffi::sqlite3_file,
    out: *mut c_int,
) -> c_int {
    // SAFETY: a valid out pointer.
    unsafe { *out = 0 };
    ffi::SQLITE_OK
}

unsafe extern "C" fn x_file_control(
    _file: *mut ffi::sqlite3_file,
    _op: c_int,
    _arg: *mut c_void,
) -> c_int {
    ffi::SQLITE_NOTFOUND
}

unsafe extern "C" fn x_sector_size(_file: *mut ffi::sqlite3_file) -> c_int {
    4096
}

unsafe extern "C" fn x_device_characteristics(_file: *mut ffi::sqlite3_file) -> c_int {
    // Writes land in memory whole: no torn pages, and a sync orders them.
    ffi::SQLITE_IOCAP_ATOMIC | ffi::SQLITE_IOCAP_SAFE_APPEND | ffi::SQLITE_IOCAP_SEQUENTIAL
}

unsafe extern "C" fn x_delete(
    _vfs: *mut ffi::sqlite3_vfs,
    name: *const c_char,
    _sync_dir: c_int,
) -> c_int {
    // Only journals are ever deleted, and they never reach the sandbox.
    let _ = name;
    ffi::SQLITE_OK
}

unsafe extern "C" fn x_access(
    _vfs: *mut ffi::sqlite3_vfs,
    name: *const c_char,
    _flags: c_int,
    out: *mut c_int,
) -> c_int {
    let exists = if name.is_null() {
        false
    } else {
        // SAFETY: a NUL-terminated string from SQLite.
        let path = unsafe { CStr::from_ptr(name) }.to_string_lossy();
        // Journals and WAL files live in memory only: a sandbox file of that
        // name is not one of ours, and must not be replayed as a hot journal.
        let ours = path.ends_with("-journal") || path.ends_with("-wal") || path.ends_with("-shm");
        !ours && with_context(|ctx| ctx.fs.exists(&path)).unwrap_or(false)
    };
    // SAFETY: a valid out pointer.
    unsafe { *out = c_int::from(exists) };
    ffi::SQLITE_OK
}

unsafe extern "C" fn x_full_pathname(
    _vfs: *mut ffi::sqlite3_vfs,
    name: *const c_char,
    n_out: c_int,
    out: *mut c_char,
) -> c_int {
    // SAFETY: a NUL-terminated string from SQLite.
    let rel = unsafe { CStr::from_ptr(name) }.to_string_lossy();
    let Some(full) = with_context(|ctx| Fs::resolve(&ctx.cwd, &rel)) else {
        return ffi::SQLITE_CANTOPEN;
    };
    let bytes = full.as_bytes();
    if bytes.len() + 1 > n_out.max(0) as usize || bytes.contains(&0) {
        return ffi::SQLITE_CANTOPEN;
    }
    // SAFETY: `out` holds `n_out` bytes, checked above.
    unsafe {
        ptr::copy_nonoverlapping(bytes.as_ptr(), out as *mut u8, bytes.len());
        *out.add(bytes.len()) = 0;
    }
    ffi::SQLITE_OK
}

unsafe extern "C" fn x_randomness(
    _vfs: *mut ffi::sqlite3_vfs,
    n: c_int,
    out: *mut c_char,
) -> c_int {
    // Seeds SQLite's PRNG: the run's seed when it is deterministic, else
    // the clock and a counter (not for secrets: SQLite's randomness never is).
    use std::sync::atomic::{AtomicU64, Ordering};
    static CALLS: AtomicU64 = AtomicU64::new(0);
    let seed = with_context(|ctx| {
        ctx.seed.unwrap_or_else(|| {
            let t = ctx.clock.now();
            (t.secs as u64).wrapping_mul(1_000_000_007) ^ u64::from(t.nanos)
        })
    })
    .unwrap_or(0)
        ^ CALLS
            .fetch_add(1, Ordering::Relaxed)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let mut x = seed | 1;
    for i in 0..n.max(0) as usize {
        // xorshift64*
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        let byte = (x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 56) as u8;
        // SAFETY: `out` holds `n` bytes.
        unsafe { *out.add(i) = byte as c_char };
    }
    n
}

unsafe extern "C" fn x_sleep(_vfs: *mut ffi::sqlite3_vfs, micros: c_int) -> c_int {
    // Nothing to wait for: no other process holds our locks.
    micros
}

/// Julian day number of the Unix epoch, in milliseconds.
const UNIX_EPOCH_JD_MS: i64 = 210_866_760_000_000;

fn now_ms() -> i64 {
    let t = with_context(|ctx| ctx.clock.now()).unwrap_or_default();
    t.secs * 1000 + i64::from(t.nanos / 1_000_000)
}

unsafe extern "C" fn x_current_time(_vfs: *mut ffi::sqlite3_vfs, out: *mut f64) -> c_int {
    // SAFETY: a valid out pointer.
    unsafe { *out = (UNIX_EPOCH_JD_MS + now_ms()) as f64 / 86_400_000.0 };
    ffi::SQLITE_OK
}

unsafe extern "C" fn x_current_time_int64(
    _vfs: *mut ffi::sqlite3_vfs,
    out: *mut ffi::sqlite3_int64,
) -> c_int {
    // SAFETY: a valid out pointer.
    unsafe { *out = UNIX_EPOCH_JD_MS + now_ms() };
    ffi::SQLITE_OK
}
