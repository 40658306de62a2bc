//! Cancellation points deep inside a command: a loop that has no
//! [`crate::commands::CommandCtx`] at hand (a bignum multiplication in `bc`,
//! a sort comparator, a compressor's input, jq's evaluator inside jaq) calls
//! [`point`], which leaves the command by unwinding once its run is
//! cancelled (deadline, `kill`, another limit) or over its memory budget.
//!
//! Every command runs inside [`scope`] (the interpreter sets it up around
//! each call), which catches that unwind; the command then ends with status
//! 124 and the run reports the limit. Unwinding skips the panic hook, so
//! nothing is printed, and it only leaves code that was about to be
//! abandoned anyway.
//!
//! A point costs a thread-local read and a few atomic loads: the deadline
//! reaches it through the run's cancel flag, which the watchdog sets (see
//! [`crate::watchdog`]), so the hot path reads no clock once the watchdog
//! runs.

use std::cell::{Cell, RefCell};
use std::sync::Arc;

use crate::control::RunControl;

/// Why a [`scope`] was left early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// The run was cancelled or went over its memory budget.
    Cancelled,
    /// A recursion came within [`STACK_RESERVE`] of the end of the stack
    /// ([`deep_point`]).
    TooDeep,
}

struct Unwind(Stop);

/// Stack a [`deep_point`] keeps free: room for one more level of the
/// recursion calling it, and for the unwind.
pub const STACK_RESERVE: usize = 1 << 20;

thread_local! {
    static RUN: Cell<*const RunControl> = const { Cell::new(std::ptr::null()) };
}

struct Restore(*const RunControl);

impl Drop for Restore {
    fn drop(&mut self) {
        RUN.with(|r| r.set(self.0));
    }
}

/// Runs `f` with `control` reachable from [`point`]; how it was left when a
/// point ended it.
///
/// ```ignore
/// // Internal (the module is private), so not run as a doctest.
/// use sandkeep_shell::cancel::{point, scope, Stop};
/// use sandkeep_shell::{Clock, Limits, RunControl, LimitKind};
///
/// let control = RunControl::new(Limits::default(), Clock::real(), None, None);
/// assert_eq!(scope(&control, || { point(); 7 }), Ok(7));
/// control.trip(LimitKind::Timeout);
/// assert_eq!(scope(&control, || { point(); 7 }), Err(Stop::Cancelled));
/// ```
pub fn scope<T>(control: &RunControl, f: impl FnOnce() -> T) -> Result<T, Stop> {
    let previous = RUN.with(|r| r.replace(control as *const RunControl));
    let _restore = Restore(previous);
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(v) => Ok(v),
        Err(payload) => match payload.downcast::<Unwind>() {
            Ok(stop) => Err(stop.0),
            Err(payload) => std::panic::resume_unwind(payload),
        },
    }
}

fn current() -> Option<&'static RunControl> {
    let p = RUN.with(|r| r.get());
    // SAFETY: `scope` set the pointer from a reference that outlives the
    // closure it runs, and restores the previous one when it ends; the
    // reference does not escape this module's callers' stack frames.
    (!p.is_null()).then(|| unsafe { &*p })
}

/// Leaves the enclosing [`scope`] when its run must stop, as
/// [`RunControl::check_fast`] sees it. Outside a scope it does nothing.
pub fn point() {
    let Some(control) = current() else { return };
    if control.check_fast().is_err() {
        std::panic::resume_unwind(Box::new(Unwind(Stop::Cancelled)));
    }
}

/// [`point`] on every 256th call only: for the innermost loops (a sort's
/// comparisons), where even two atomic loads per step would show.
pub fn sometimes() {
    thread_local! {
        static CALLS: Cell<u32> = const { Cell::new(0) };
    }
    let n = CALLS.with(|c| {
        let n = c.get().wrapping_add(1);
        c.set(n);
        n
    });
    if n.is_multiple_of(256) {
        point();
    }
}

/// [`point`], and for a recursion: leaves the scope with [`Stop::TooDeep`]
/// once less than [`STACK_RESERVE`] of the thread's stack is left, before
/// the stack can overflow (which would abort the process).
pub fn deep_point() {
    point();
    if current().is_some() && stacker::remaining_stack().is_some_and(|left| left < STACK_RESERVE) {
        std::panic::resume_unwind(Box::new(Unwind(Stop::TooDeep)));
    }
}

/// A reader that passes a [`point`] before every read: a decompressor
/// reading through it stops with its run.
pub struct Reader<R>(pub R);

impl<R: std::io::Read> std::io::Read for Reader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        point();
        self.0.read(buf)
    }
}

impl<R: std::io::BufRead> std::io::BufRead for Reader<R> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        point();
        self.0.fill_buf()
    }
    fn consume(&mut self, amt: usize) {
        self.0.consume(amt)
    }
}

/// Bytes a compressor takes between two [`point`]s (a few milliseconds of
/// work at gzip's default level).
pub const CHUNK: usize = 256 << 10;

thread_local! {
    /// The run this thread works for, for [`requested`]: set for the
    /// thread's whole life (the run's first thread and every thread it
    /// starts, see [`crate::alloc::inheriting`]).
    static WATCHED: RefCell<Option<Arc<RunControl>>> = const { RefCell::new(None) };
}

/// Makes [`requested`] on this thread ask `control` until dropped.
#[must_use = "the thread watches the run only while the guard lives"]
pub struct Watching(Option<Arc<RunControl>>);

impl Drop for Watching {
    fn drop(&mut self) {
        let previous = self.0.take();
        let _ = WATCHED.try_with(|w| *w.borrow_mut() = previous);
    }
}

/// Lets code with no way out by unwinding (the interpreter's own
/// matchers) ask with [`requested`] whether `control`'s run was cancelled.
pub fn watch(control: Option<Arc<RunControl>>) -> Watching {
    let previous = WATCHED
        .try_with(|w| std::mem::replace(&mut *w.borrow_mut(), control))
        .ok()
        .flatten();
    Watching(previous)
}

/// The run this thread watches, to hand to a thread it starts.
pub fn watched() -> Option<Arc<RunControl>> {
    WATCHED.try_with(|w| w.borrow().clone()).ok().flatten()
}

/// Whether the run this thread watches was cancelled or went over its
/// memory budget (false when it watches none). For loops that can give up
/// with a plain answer (a pattern match that then reports no match) and
/// leave reporting the limit to the interpreter's next check.
pub fn requested() -> bool {
    WATCHED
        .try_with(|w| w.borrow().as_ref().is_some_and(|c| c.check_fast().is_err()))
        .unwrap_or(false)
}
