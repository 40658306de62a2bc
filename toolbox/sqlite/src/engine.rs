//! The process-wide SQLite set-up, done once before the first connection:
//! SQLite's memory comes from Rust's allocator (so the sandkeep binary's
//! metered allocator charges it to the run that asked), and the sandbox
//! VFS ([`crate::vfs`]) is the only VFS left registered.

use std::alloc::{Layout, alloc, dealloc, realloc};
use std::ffi::{c_int, c_void};
use std::sync::OnceLock;

use rusqlite::ffi;

use crate::vfs;

/// Bytes in front of every block SQLite gets: its size, for xSize/xFree.
const HEADER: usize = 16;

unsafe extern "C" fn mem_malloc(n: c_int) -> *mut c_void {
    let n = n.max(0) as usize;
    let Ok(layout) = Layout::from_size_align(n + HEADER, HEADER) else {
        return std::ptr::null_mut();
    };
    // SAFETY: a non-zero-sized layout.
    let p = unsafe { alloc(layout) };
    if p.is_null() {
        return p.cast();
    }
    // SAFETY: the block holds HEADER bytes before the caller's part.
    unsafe {
        (p as *mut usize).write(n);
        p.add(HEADER).cast()
    }
}

/// The block SQLite's pointer `p` belongs to, and its size.
///
/// # Safety
/// `p` came from [`mem_malloc`] or [`mem_realloc`].
unsafe fn block(p: *mut c_void) -> (*mut u8, usize) {
    // SAFETY: per the contract, HEADER bytes precede `p`.
    unsafe {
        let base = (p as *mut u8).sub(HEADER);
        (base, (base as *const usize).read())
    }
}

unsafe extern "C" fn mem_free(p: *mut c_void) {
    if p.is_null() {
        return;
    }
    // SAFETY: SQLite frees only what it got from us.
    unsafe {
        let (base, n) = block(p);
        dealloc(base, Layout::from_size_align_unchecked(n + HEADER, HEADER));
    }
}

unsafe extern "C" fn mem_realloc(p: *mut c_void, n: c_int) -> *mut c_void {
    if p.is_null() {
        // SAFETY: plain allocation.
        return unsafe { mem_malloc(n) };
    }
    let n = n.max(0) as usize;
    // SAFETY: `p` is ours; the new size keeps the same alignment.
    unsafe {
        let (base, old) = block(p);
        let q = realloc(
            base,
            Layout::from_size_align_unchecked(old + HEADER, HEADER),
            n + HEADER,
        );
        if q.is_null() {
            return q.cast();
        }
        (q as *mut usize).write(n);
        q.add(HEADER).cast()
    }
}

unsafe extern "C" fn mem_size(p: *mut c_void) -> c_int {
    if p.is_null() {
        return 0;
    }
    // SAFETY: `p` is ours.
    unsafe { block(p).1 as c_int }
}

unsafe extern "C" fn mem_roundup(n: c_int) -> c_int {
    (n + 7) & !7
}

unsafe extern "C" fn mem_init(_: *mut c_void) -> c_int {
    ffi::SQLITE_OK
}

unsafe extern "C" fn mem_shutdown(_: *mut c_void) {}

/// Configures SQLite once per process; `Err` with SQLite's code if it could
/// not be (then no database is opened at all).
pub fn init() -> Result<(), c_int> {
    static DONE: OnceLock<Result<(), c_int>> = OnceLock::new();
    *DONE.get_or_init(|| {
        let mem: &'static ffi::sqlite3_mem_methods =
            Box::leak(Box::new(ffi::sqlite3_mem_methods {
                xMalloc: Some(mem_malloc),
                xFree: Some(mem_free),
                xRealloc: Some(mem_realloc),
                xSize: Some(mem_size),
                xRoundup: Some(mem_roundup),
                xInit: Some(mem_init),
                xShutdown: Some(mem_shutdown),
                pAppData: std::ptr::null_mut(),
            }));
        // SAFETY: called before sqlite3_initialize (nothing else in the
        // process opens SQLite first: this crate is its only user and every
        // path to a connection passes here); MEM and the VFS live forever.
        unsafe {
            let rc = ffi::sqlite3_config(
                ffi::SQLITE_CONFIG_MALLOC,
                mem as *const ffi::sqlite3_mem_methods,
            );
            if rc != ffi::SQLITE_OK && rc != ffi::SQLITE_MISUSE {
                return Err(rc);
            }
            let rc = ffi::sqlite3_initialize();
            if rc != ffi::SQLITE_OK {
                return Err(rc);
            }
            // Remove every VFS SQLite registered (they reach host files).
            loop {
                let v = ffi::sqlite3_vfs_find(std::ptr::null());
                if v.is_null() {
                    break;
                }
                ffi::sqlite3_vfs_unregister(v);
            }
            let ours: &'static mut ffi::sqlite3_vfs = Box::leak(Box::new(vfs::new_vfs()));
            let rc = ffi::sqlite3_vfs_register(ours, 1);
            if rc != ffi::SQLITE_OK {
                return Err(rc);
            }
        }
        Ok(())
    })
}

/// While alive, this thread's VFS calls serve `ctx`'s sandbox.
pub struct Entered {
    previous: Option<vfs::Context>,
}

/// Makes `ctx` the sandbox of this thread's SQLite calls until the guard drops.
pub fn enter(ctx: vfs::Context) -> Entered {
    Entered {
        previous: vfs::set_context(Some(ctx)),
    }
}

impl Drop for Entered {
    fn drop(&mut self) {
        vfs::set_context(self.previous.take());
    }
}
