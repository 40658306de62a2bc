//! Per-run memory accounting: one budget shared by every thread of a run.
//!
//! Why an allocator: a script grows memory in a hundred places (a variable
//! doubled in a loop, awk's `s = s s`, sed's hold space, jq arrays, pipe
//! buffers). Checking each growth point by hand misses some; counting at the
//! allocator misses none. [`MeteredAlloc`] wraps the system allocator and
//! charges every allocation made on a thread that is working for a run to
//! that run's [`MemoryAccount`]. When the account goes over its budget it
//! raises a flag; [`crate::RunControl::check`] sees the flag at the run's next
//! check (every command, loop iteration and command-inner loop) and ends the
//! run with `memory limit exceeded (N bytes)`. The allocator itself never
//! fails an allocation: a failed allocation aborts a Rust process, which is
//! exactly what the budget exists to prevent.
//!
//! The binary installs the allocator (`#[global_allocator] static A:
//! MeteredAlloc = MeteredAlloc;`); an embedder that does not install it
//! still gets the other limits, and [`MemoryAccount::used`] stays 0.
//!
//! File contents kept in the virtual filesystem are not the run's memory
//! (they outlive it and have their own limits), so the filesystem's
//! mutating calls run [`untracked`].

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};

/// The memory one run may hold, and what it holds now.
#[derive(Debug)]
pub struct MemoryAccount {
    used: AtomicI64,
    peak: AtomicI64,
    limit: i64,
    exceeded: AtomicBool,
}

impl MemoryAccount {
    /// An empty account with a budget of `limit` bytes.
    ///
    /// ```ignore
    /// // Internal (the module is private), so not run as a doctest.
    /// let a = sandkeep_shell::alloc::MemoryAccount::new(1 << 20);
    /// assert!(!a.exceeded());
    /// assert_eq!(a.limit(), 1 << 20);
    /// ```
    pub fn new(limit: u64) -> Arc<MemoryAccount> {
        Arc::new(MemoryAccount {
            used: AtomicI64::new(0),
            peak: AtomicI64::new(0),
            limit: i64::try_from(limit).unwrap_or(i64::MAX),
            exceeded: AtomicBool::new(false),
        })
    }

    /// The budget in bytes.
    pub fn limit(&self) -> u64 {
        self.limit as u64
    }

    /// Bytes charged now (live allocations made for the run).
    pub fn used(&self) -> i64 {
        self.used.load(Ordering::Relaxed)
    }

    /// The most bytes charged at once.
    pub fn peak(&self) -> i64 {
        self.peak.load(Ordering::Relaxed)
    }

    /// True once the run went over its budget.
    pub fn exceeded(&self) -> bool {
        self.exceeded.load(Ordering::Relaxed)
    }

    /// Asks for `bytes` more before building something that large: false
    /// (and the account marked exceeded) when they would not fit. For growth
    /// points that know their size up front (`string * n`, a brace
    /// expansion, a preallocated buffer).
    pub fn reserve(&self, bytes: u64) -> bool {
        let want = i64::try_from(bytes).unwrap_or(i64::MAX);
        if self.used().saturating_add(want) > self.limit {
            self.exceeded.store(true, Ordering::Relaxed);
            return false;
        }
        true
    }

    fn charge(&self, delta: i64) {
        let now = self.used.fetch_add(delta, Ordering::Relaxed) + delta;
        if delta > 0 {
            if now > self.peak.load(Ordering::Relaxed) {
                self.peak.store(now, Ordering::Relaxed);
            }
            if now > self.limit {
                self.exceeded.store(true, Ordering::Relaxed);
            }
        }
    }
}

thread_local! {
    /// The account this thread's allocations go to (null: none). A plain
    /// pointer so the allocator can read it without allocating; the
    /// [`Charging`] guard that set it keeps the account alive.
    static CURRENT: Cell<*const MemoryAccount> = const { Cell::new(std::ptr::null()) };
}

fn current_ptr() -> *const MemoryAccount {
    CURRENT.try_with(|c| c.get()).unwrap_or(std::ptr::null())
}

fn charge(delta: i64) {
    let p = current_ptr();
    if !p.is_null() {
        // SAFETY: a non-null CURRENT was set by a live `Charging` guard on
        // this thread, which holds an `Arc` to the account.
        unsafe { (*p).charge(delta) }
    }
}

/// Charges this thread's allocations to an account until dropped (then the
/// previous account, if any, is charged again).
#[must_use = "the thread is charged only while the guard lives"]
pub struct Charging {
    previous: *const MemoryAccount,
    _account: Option<Arc<MemoryAccount>>,
}

impl Drop for Charging {
    fn drop(&mut self) {
        let _ = CURRENT.try_with(|c| c.set(self.previous));
    }
}

/// Charges the calling thread's allocations to `account` while the guard
/// lives. Threads a run starts call this first with [`current`].
///
/// ```ignore
/// // Internal (the module is private), so not run as a doctest.
/// use sandkeep_shell::alloc::{charge_to, current, MemoryAccount};
/// let a = MemoryAccount::new(1 << 30);
/// {
///     let _g = charge_to(Some(a.clone()));
///     assert!(current().is_some());
/// }
/// assert!(current().is_none());
/// ```
pub fn charge_to(account: Option<Arc<MemoryAccount>>) -> Charging {
    let p = account.as_ref().map_or(std::ptr::null(), Arc::as_ptr);
    let previous = CURRENT
        .try_with(|c| c.replace(p))
        .unwrap_or(std::ptr::null());
    Charging {
        previous,
        _account: account,
    }
}

/// The account the calling thread is charged to, to hand to a thread it starts.
pub fn current() -> Option<Arc<MemoryAccount>> {
    let p = current_ptr();
    if p.is_null() {
        return None;
    }
    // SAFETY: as in `charge`, a live guard on this thread owns a strong
    // reference, so adding one is sound.
    unsafe {
        Arc::increment_strong_count(p);
        Some(Arc::from_raw(p))
    }
}

/// Wraps the body of a thread the caller is about to start so that the new
/// thread is charged to the caller's account.
pub fn inheriting<T>(f: impl FnOnce() -> T) -> impl FnOnce() -> T {
    let account = current();
    // The thread also watches the caller's run (see `crate::cancel::requested`).
    let run = crate::cancel::watched();
    move || {
        let _g = charge_to(account);
        let _w = crate::cancel::watch(run);
        f()
    }
}

/// Runs `f` with no account charged (the filesystem's stored contents).
pub fn untracked<T>(f: impl FnOnce() -> T) -> T {
    let _g = charge_to(None);
    f()
}

/// The global allocator that charges runs: the system allocator plus one
/// thread-local read and one atomic add per call.
pub struct MeteredAlloc;

// SAFETY: every call forwards to `System` with the same arguments; the
// accounting only reads a thread-local pointer and updates atomics, and
// never allocates or unwinds.
unsafe impl GlobalAlloc for MeteredAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            charge(layout.size() as i64);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            charge(layout.size() as i64);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        charge(-(layout.size() as i64));
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            charge(new_size as i64 - layout.size() as i64);
        }
        p
    }
}
