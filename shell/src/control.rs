//! State shared by every thread of one run: the deadline, counters and
//! cancellation, so a limit tripped in one pipeline stage stops them all.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use crate::clock::Clock;
use crate::limits::{LimitKind, Limits};

/// Shared control block of one run.
#[derive(Debug)]
pub struct RunControl {
    /// The limits in force.
    pub limits: Limits,
    /// The clock `date` and mtimes read.
    pub clock: Clock,
    /// When the run must end.
    pub deadline: Option<Instant>,
    /// Seed for `$RANDOM`, `mktemp`, `shuf`; `None` means seed from the clock.
    pub seed: Option<u64>,
    commands: AtomicU64,
    loop_iterations: AtomicU64,
    cancelled: AtomicBool,
    tripped: Mutex<Option<LimitKind>>,
}

impl RunControl {
    /// A control block for a run that started now.
    pub fn new(
        limits: Limits,
        clock: Clock,
        deadline: Option<Instant>,
        seed: Option<u64>,
    ) -> RunControl {
        RunControl {
            limits,
            clock,
            deadline,
            seed,
            commands: AtomicU64::new(0),
            loop_iterations: AtomicU64::new(0),
            cancelled: AtomicBool::new(false),
            tripped: Mutex::new(None),
        }
    }

    /// Records that `kind` was exceeded and cancels the run.
    pub fn trip(&self, kind: LimitKind) {
        let mut t = self.tripped.lock().unwrap();
        if t.is_none() {
            *t = Some(kind);
        }
        self.cancelled.store(true, Ordering::SeqCst);
    }

    /// The limit that ended the run, if any.
    pub fn tripped(&self) -> Option<LimitKind> {
        *self.tripped.lock().unwrap()
    }

    /// Checks cancellation and the deadline; cheap enough to call per command.
    pub fn check(&self) -> Result<(), LimitKind> {
        if self.cancelled.load(Ordering::Relaxed) {
            return Err(self.tripped().unwrap_or(LimitKind::Timeout));
        }
        if let Some(d) = self.deadline
            && Instant::now() >= d
        {
            self.trip(LimitKind::Timeout);
            return Err(LimitKind::Timeout);
        }
        Ok(())
    }

    /// Counts one simple command against the limits.
    pub fn count_command(&self) -> Result<(), LimitKind> {
        if self.commands.fetch_add(1, Ordering::Relaxed) >= self.limits.max_commands {
            self.trip(LimitKind::Commands);
            return Err(LimitKind::Commands);
        }
        self.check()
    }

    /// Counts one loop iteration against the limits.
    pub fn count_iteration(&self) -> Result<(), LimitKind> {
        if self.loop_iterations.fetch_add(1, Ordering::Relaxed) >= self.limits.max_loop_iterations {
            self.trip(LimitKind::LoopIterations);
            return Err(LimitKind::LoopIterations);
        }
        self.check()
    }

    /// The time left before the deadline (`None`: no deadline).
    pub fn remaining(&self) -> Option<std::time::Duration> {
        self.deadline
            .map(|d| d.saturating_duration_since(Instant::now()))
    }
}
