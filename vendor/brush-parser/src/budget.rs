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
}

/// Runs `parse` with at most `steps` entries into the grammars' recursive
/// rules, and says whether that bound ended it.
///
/// Nested calls share the thread's budget: an inner call gets no more than
/// what the outer one has left, and its use counts against the outer one.
pub fn with_step_limit<R>(steps: u64, parse: impl FnOnce() -> R) -> (R, bool) {
    /// Puts the outer budget back, less what this call used, even when
    /// `parse` unwinds.
    struct Restore {
        outer: u64,
        granted: u64,
    }
    impl Drop for Restore {
        fn drop(&mut self) {
            let used = self.granted - STEPS_LEFT.get();
            STEPS_LEFT.set(self.outer.saturating_sub(used));
        }
    }
    let outer = STEPS_LEFT.get();
    let granted = steps.min(outer);
    STEPS_LEFT.set(granted);
    let restore = Restore { outer, granted };
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
        STEPS_LEFT.set(left - 1);
    }
    true
}
