//! A bound on the work of one parse (a sandkeep patch; see `../SANDKEEP.md`).
//!
//! The PEG grammars backtrack, and some inputs made them retry the same
//! text at every level of nesting, a cost that doubled (or more) per level
//! inside one call nothing can interrupt. The shapes found are memoized now;
//! this is the backstop for the ones not found yet. The recursive rules
//! count their entries here; once a parse has used its budget every rule
//! fails at once, the parse ends with an error, and the caller learns from
//! [`with_step_limit`] that the bound, not the syntax, stopped it.

use std::cell::Cell;

thread_local! {
    /// Rule entries the running parse may still make (`u64::MAX` outside
    /// [`with_step_limit`]: unbounded, upstream's behaviour).
    static STEPS_LEFT: Cell<u64> = const { Cell::new(u64::MAX) };
    /// Asked every [`CHECK_EVERY`] steps whether the parse should stop now
    /// (its caller's deadline passed): a parse can be slow without many
    /// steps, when each step copies a large subtree.
    static INTERRUPTED: Cell<fn() -> bool> = const { Cell::new(never) };
}

/// Steps between two calls of the interruption check.
const CHECK_EVERY: u64 = 1024;

fn never() -> bool {
    false
}

/// Runs `parse` with at most `steps` entries into the grammars' recursive
/// rules, and says whether that bound ended it.
///
/// Nested calls share the thread's budget: an inner call gets no more than
/// what the outer one has left, and its use counts against the outer one.
pub fn with_step_limit<R>(steps: u64, parse: impl FnOnce() -> R) -> (R, bool) {
    with_interruptible_step_limit(steps, never, parse)
}

/// As [`with_step_limit`], and `interrupted` is asked every thousand steps
/// or so whether to end the parse now, as if its budget were spent.
pub fn with_interruptible_step_limit<R>(
    steps: u64,
    interrupted: fn() -> bool,
    parse: impl FnOnce() -> R,
) -> (R, bool) {
    /// Puts the outer budget back, less what this call used, even when
    /// `parse` unwinds.
    struct Restore {
        outer: u64,
        granted: u64,
        outer_check: fn() -> bool,
    }
    impl Drop for Restore {
        fn drop(&mut self) {
            let used = self.granted - STEPS_LEFT.get();
            STEPS_LEFT.set(self.outer.saturating_sub(used));
            INTERRUPTED.set(self.outer_check);
        }
    }
    let outer = STEPS_LEFT.get();
    let granted = steps.min(outer);
    STEPS_LEFT.set(granted);
    let outer_check = INTERRUPTED.replace(interrupted);
    let restore = Restore {
        outer,
        granted,
        outer_check,
    };
    let result = parse();
    let exhausted = STEPS_LEFT.get() == 0;
    drop(restore);
    (result, exhausted)
}

/// Counts one rule entry; `false` once the budget is spent.
pub(crate) fn step() -> bool {
    let left = STEPS_LEFT.get();
    if left == 0 {
        return false;
    }
    if left != u64::MAX {
        if left % CHECK_EVERY == 0 && INTERRUPTED.get()() {
            STEPS_LEFT.set(0);
            return false;
        }
        STEPS_LEFT.set(left - 1);
    }
    true
}
