//! The process-wide deadline watchdog: one thread that cancels each run when
//! its deadline passes.
//!
//! Why: a hot loop (awk's `while(1)`, sed's `:a;ba`, jq's recursion, a sort
//! comparator, brace expansion) can afford an atomic load per step but not a
//! clock read. With the watchdog setting the run's cancel flag at the
//! deadline, every such loop sees the timeout through that one flag
//! ([`crate::RunControl::check_fast`]) within a few milliseconds, however
//! rarely it reads the clock itself.
//!
//! One thread serves every run of the process: it sleeps until the earliest
//! deadline it holds, trips the runs whose deadline passed, and holds only a
//! weak reference to each, so a run that ended costs nothing but its slot
//! until the slot's deadline (or the next prune).
//!
//! The thread starts only once a run has lasted [`START_AFTER`]: most runs
//! (`sandkeep run -c 'echo hi'`, an agent's `ls`) end sooner, and creating
//! a thread (and tearing it down at exit) was a tenth of such a process's
//! start. Until then `check_fast` reads the clock on every 1024th call
//! ([`poll_due`]), which is also what starts the thread for a run that
//! spends its time in such a loop.

use std::cell::Cell;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::{Arc, Condvar, Mutex, OnceLock, PoisonError, Weak};
use std::time::{Duration, Instant};

/// What the watchdog does to a run whose deadline passed.
pub(crate) trait Expire: Send + Sync {
    /// Ends the run with the timeout (a no-op once it ended otherwise).
    fn expire(&self);
}

struct Entry {
    deadline: Instant,
    run: Weak<dyn Expire>,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.deadline == other.deadline
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.deadline.cmp(&other.deadline)
    }
}

struct Watchdog {
    pending: Mutex<BinaryHeap<Reverse<Entry>>>,
    wake: Condvar,
}

/// The deadlines of the process's runs, held from their registration on
/// (the thread, once started, serves those registered before it too).
static DOG: Watchdog = Watchdog {
    pending: Mutex::new(BinaryHeap::new()),
    wake: Condvar::new(),
};

/// Whether the thread runs: unset until a run lasted [`START_AFTER`], then
/// whether the host gave us the thread.
static THREAD: OnceLock<bool> = OnceLock::new();

/// How long a run goes before the watchdog thread is started for it.
pub(crate) const START_AFTER: Duration = Duration::from_millis(20);

/// While the thread does not run, `check_fast` reads the clock on every
/// this many calls on a thread.
const POLL_EVERY: u32 = 1024;

/// Above this many pending entries, entries of runs that already ended are
/// dropped before a new one is added (long deadlines, many short runs).
const PRUNE_ABOVE: usize = 4096;

/// The longest the watchdog sleeps between looks (also how late a deadline
/// far in the future is noticed after an earlier one is added: never, the
/// condvar wakes it; this only bounds a missed wakeup).
const MAX_NAP: Duration = Duration::from_secs(1);

/// Whether the watchdog thread runs (so hot loops need not read the clock).
pub(crate) fn running() -> bool {
    THREAD.get() == Some(&true)
}

/// Starts the watchdog thread unless it was started (or refused) before.
pub(crate) fn start() {
    THREAD.get_or_init(|| {
        // The watchdog's own allocations are no run's memory.
        let started = crate::alloc::untracked(|| {
            std::thread::Builder::new()
                .name("sandkeep-deadlines".into())
                .stack_size(256 << 10)
                .spawn(|| watch(&DOG))
        });
        // Without the thread (the host refused one), runs still end at
        // their deadline through the clock reads of `RunControl::check`.
        started.is_ok()
    });
}

/// Counts one `check_fast` on this thread; true on every [`POLL_EVERY`]th
/// while the thread does not run: time for that check to read the clock.
pub(crate) fn poll_due() -> bool {
    thread_local! {
        static CALLS: Cell<u32> = const { Cell::new(0) };
    }
    if running() {
        return false;
    }
    CALLS.with(|c| {
        let n = c.get().wrapping_add(1);
        c.set(n);
        n.is_multiple_of(POLL_EVERY)
    })
}

/// Arranges for `run` to expire at `deadline`.
pub(crate) fn register(deadline: Instant, run: Weak<dyn Expire>) {
    crate::alloc::untracked(|| {
        let mut pending = DOG.pending.lock().unwrap_or_else(PoisonError::into_inner);
        if pending.len() > PRUNE_ABOVE {
            pending.retain(|Reverse(e)| e.run.strong_count() > 0);
        }
        let earliest = pending
            .peek()
            .is_none_or(|Reverse(e)| deadline < e.deadline);
        pending.push(Reverse(Entry { deadline, run }));
        drop(pending);
        if earliest {
            DOG.wake.notify_one();
        }
    });
}

fn watch(dog: &'static Watchdog) {
    let mut pending = dog.pending.lock().unwrap_or_else(PoisonError::into_inner);
    loop {
        let now = Instant::now();
        let mut due = Vec::new();
        while let Some(Reverse(e)) = pending.peek() {
            if e.deadline > now {
                break;
            }
            if let Some(Reverse(e)) = pending.pop() {
                due.push(e.run);
            }
        }
        if !due.is_empty() {
            // Expire outside the lock: a run's trip takes its own locks.
            drop(pending);
            for run in due {
                if let Some(run) = run.upgrade() {
                    run.expire();
                }
            }
            pending = dog.pending.lock().unwrap_or_else(PoisonError::into_inner);
            continue;
        }
        let nap = pending
            .peek()
            .map_or(MAX_NAP, |Reverse(e)| {
                e.deadline.saturating_duration_since(now)
            })
            .min(MAX_NAP);
        pending = dog
            .wake
            .wait_timeout(pending, nap)
            .unwrap_or_else(PoisonError::into_inner)
            .0;
    }
}

/// Keeps `ending` registered for its run's deadline; see [`register`].
pub(crate) fn watch_run<E: Expire + 'static>(deadline: Option<Instant>, ending: &Arc<E>) {
    if let Some(d) = deadline {
        let weak: Weak<dyn Expire> = Arc::downgrade(ending) as Weak<E>;
        register(d, weak);
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use crate::{Clock, LimitKind, Limits, RunControl};

    fn run_ending_in(after: Duration) -> RunControl {
        RunControl::new(
            Limits::default(),
            Clock::real(),
            Some(Instant::now() + after),
            None,
        )
    }

    /// Spins on the clock-free check until it fails; how long that took.
    fn spin_until_cancelled(control: &RunControl) -> Duration {
        let started = Instant::now();
        while control.check_fast().is_ok() {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "never cancelled"
            );
            std::hint::spin_loop();
        }
        started.elapsed()
    }

    #[test]
    fn a_deadline_reaches_the_cancel_flag_without_a_clock_read() {
        // A later deadline registered first: the earlier one must still
        // wake the watchdog on time.
        let late = run_ending_in(Duration::from_secs(60));
        let soon = run_ending_in(Duration::from_millis(50));
        let took = spin_until_cancelled(&soon);
        assert!(took >= Duration::from_millis(45), "{took:?}");
        assert!(took < Duration::from_secs(2), "{took:?}");
        assert_eq!(soon.tripped(), Some(LimitKind::Timeout));
        assert!(late.check_fast().is_ok());
    }

    #[test]
    fn a_run_without_a_deadline_is_never_expired() {
        let forever = RunControl::new(Limits::default(), Clock::real(), None, None);
        let soon = run_ending_in(Duration::from_millis(20));
        spin_until_cancelled(&soon);
        assert!(forever.check_fast().is_ok());
        assert_eq!(forever.tripped(), None);
    }
}
