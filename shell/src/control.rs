//! State shared by every thread of one run: the deadline, counters and
//! cancellation, so a limit tripped in one pipeline stage stops them all.
//!
//! A background job (`cmd &`) gets a control block of its own, linked to the
//! run's ([`RunControl::for_job`]): the run's limits and counters still apply
//! to it, and `kill` can stop the job alone.

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use crate::alloc::MemoryAccount;
use crate::clock::Clock;
use crate::limits::{LimitKind, Limits};

/// Whether a run (or job) was cancelled, and by which limit.
#[derive(Debug, Default)]
struct Ending {
    cancelled: AtomicBool,
    tripped: Mutex<Option<LimitKind>>,
}

impl Ending {
    fn trip(&self, kind: LimitKind) {
        let mut t = self.tripped.lock().unwrap_or_else(PoisonError::into_inner);
        if t.is_none() {
            *t = Some(kind);
        }
        self.cancelled.store(true, Ordering::SeqCst);
    }
}

impl crate::watchdog::Expire for Ending {
    fn expire(&self) {
        self.trip(LimitKind::Timeout);
    }
}

/// Cancels a run from outside it: the caller that asked for the run went
/// away (an HTTP client disconnected) and nobody will read its result. Give
/// a clone to [`crate::RunOptions::cancel`]; [`CancelHandle::cancel`] then
/// ends the run as its deadline would (status 124, every thread of the
/// run stopping at its next check), before it started or while it runs.
#[derive(Clone, Debug, Default)]
pub struct CancelHandle(Arc<CancelState>);

#[derive(Debug, Default)]
struct CancelState {
    /// The run's ending (weak: a handle kept after the run holds nothing)
    /// and whether the handle was used, under one lock so a cancel racing
    /// the run's start is never missed.
    run: Mutex<(Option<std::sync::Weak<Ending>>, bool)>,
}

impl CancelHandle {
    /// A handle for a run not started yet.
    pub fn new() -> CancelHandle {
        CancelHandle::default()
    }

    /// Ends the run (now, or as soon as it starts).
    pub fn cancel(&self) {
        let mut run = self.0.run.lock().unwrap_or_else(PoisonError::into_inner);
        run.1 = true;
        if let Some(ending) = run.0.as_ref().and_then(std::sync::Weak::upgrade) {
            ending.trip(LimitKind::Timeout);
        }
    }

    /// True once [`CancelHandle::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.0.run.lock().unwrap_or_else(PoisonError::into_inner).1
    }

    /// Ties the handle to the run of `control`.
    pub(crate) fn attach(&self, control: &RunControl) {
        let mut run = self.0.run.lock().unwrap_or_else(PoisonError::into_inner);
        run.0 = Some(Arc::downgrade(&control.ending));
        if run.1 {
            control.ending.trip(LimitKind::Timeout);
        }
    }
}

/// Shared control block of one run.
#[derive(Debug)]
pub struct RunControl {
    /// The limits in force.
    pub limits: Limits,
    /// The clock `date` and mtimes read.
    pub clock: Clock,
    /// When the run must end.
    pub deadline: Option<Instant>,
    /// When the run (or job) started.
    started: Instant,
    /// Seed for `$RANDOM`, `mktemp`, `shuf`; `None` means seed from the clock.
    pub seed: Option<u64>,
    commands: AtomicU64,
    loop_iterations: AtomicU64,
    /// Cancellation and the limit that caused it; shared with the deadline
    /// watchdog (see [`crate::watchdog`]).
    ending: Arc<Ending>,
    /// Threads (pipeline stages, background jobs) working for the run now.
    threads: AtomicUsize,
    /// The run's control block when this one is a background job's.
    parent: Option<Arc<RunControl>>,
    /// The signal `kill` sent this job (0: none).
    signal: AtomicI32,
    /// The run's memory budget, shared by all its threads and jobs.
    memory: Arc<MemoryAccount>,
}

impl RunControl {
    /// A control block for a run that started now.
    pub fn new(
        limits: Limits,
        clock: Clock,
        deadline: Option<Instant>,
        seed: Option<u64>,
    ) -> RunControl {
        let control = RunControl::unwatched(limits, clock, deadline, seed);
        crate::watchdog::watch_run(deadline, &control.ending);
        control
    }

    fn unwatched(
        limits: Limits,
        clock: Clock,
        deadline: Option<Instant>,
        seed: Option<u64>,
    ) -> RunControl {
        let memory = MemoryAccount::new(limits.max_memory_bytes);
        RunControl {
            memory,
            limits,
            clock,
            deadline,
            started: Instant::now(),
            seed,
            commands: AtomicU64::new(0),
            loop_iterations: AtomicU64::new(0),
            ending: Arc::default(),
            threads: AtomicUsize::new(0),
            parent: None,
            signal: AtomicI32::new(0),
        }
    }

    /// The control block of a background job started under `parent`: same
    /// limits, clock, deadline and seed; commands and loop iterations count
    /// against the run, a tripped limit ends the whole run, and
    /// [`RunControl::kill`] ends only the job.
    pub fn for_job(parent: &Arc<RunControl>) -> Arc<RunControl> {
        // The run's deadline already has the watchdog's eye: a job sees it
        // through its parent.
        let mut job = RunControl::unwatched(
            parent.limits.clone(),
            parent.clock,
            parent.deadline,
            parent.seed,
        );
        job.parent = Some(parent.clone());
        job.memory = parent.memory.clone();
        Arc::new(job)
    }

    /// Stops a background job as signal `signal` would: its commands see
    /// cancellation at their next check.
    pub fn kill(&self, signal: i32) {
        let _ = self
            .signal
            .compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst);
        self.ending.cancelled.store(true, Ordering::SeqCst);
    }

    /// The signal [`RunControl::kill`] sent, if any.
    pub fn killed_by(&self) -> Option<i32> {
        match self.signal.load(Ordering::SeqCst) {
            0 => None,
            s => Some(s),
        }
    }

    /// Records that `kind` was exceeded and cancels the run.
    pub fn trip(&self, kind: LimitKind) {
        if let Some(run) = &self.parent {
            run.trip(kind);
            return;
        }
        self.ending.trip(kind);
    }

    /// The limit that ended the run, if any.
    pub fn tripped(&self) -> Option<LimitKind> {
        match &self.parent {
            Some(run) => run.tripped(),
            None => *self
                .ending
                .tripped
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        }
    }

    /// Checks cancellation and the deadline; cheap enough to call per command.
    pub fn check(&self) -> Result<(), LimitKind> {
        if let Some(run) = &self.parent {
            run.check()?;
        }
        if self.ending.cancelled.load(Ordering::Relaxed) {
            return Err(self.tripped().unwrap_or(LimitKind::Timeout));
        }
        if self.memory.exceeded() {
            self.trip(LimitKind::Memory);
            return Err(LimitKind::Memory);
        }
        if let Some(d) = self.deadline {
            let now = Instant::now();
            if now >= d {
                self.trip(LimitKind::Timeout);
                return Err(LimitKind::Timeout);
            }
            if now.duration_since(self.started) >= crate::watchdog::START_AFTER {
                crate::watchdog::start();
            }
        }
        Ok(())
    }

    /// Counts one simple command against the limits.
    pub fn count_command(&self) -> Result<(), LimitKind> {
        if let Some(run) = &self.parent {
            run.count_command()?;
            return self.check();
        }
        if self.commands.fetch_add(1, Ordering::Relaxed) >= self.limits.max_commands {
            self.trip(LimitKind::Commands);
            return Err(LimitKind::Commands);
        }
        self.check()
    }

    /// Counts one loop iteration against the limits.
    pub fn count_iteration(&self) -> Result<(), LimitKind> {
        if let Some(run) = &self.parent {
            run.count_iteration()?;
            return self.check();
        }
        if self.loop_iterations.fetch_add(1, Ordering::Relaxed) >= self.limits.max_loop_iterations {
            self.trip(LimitKind::LoopIterations);
            return Err(LimitKind::LoopIterations);
        }
        self.check()
    }

    /// The run's memory account: threads working for the run charge it
    /// (see [`crate::MeteredAlloc`]).
    pub fn memory(&self) -> &Arc<MemoryAccount> {
        &self.memory
    }

    /// Asks the memory budget for `bytes` before building something that
    /// large; trips the memory limit when they do not fit.
    pub fn reserve(&self, bytes: u64) -> Result<(), LimitKind> {
        if self.memory.reserve(bytes) {
            Ok(())
        } else {
            self.trip(LimitKind::Memory);
            Err(LimitKind::Memory)
        }
    }

    /// A cheap check for hot inner loops: the cancel flags (this job's and
    /// its run's) and the memory budget. The deadline reaches it through the
    /// flag, which the watchdog sets when the deadline passes; until a run
    /// has lasted long enough to start the watchdog, every 1024th call on a
    /// thread is a full [`RunControl::check`] (see [`crate::watchdog`]).
    pub fn check_fast(&self) -> Result<(), LimitKind> {
        if self.memory.exceeded() {
            self.trip(LimitKind::Memory);
            return Err(LimitKind::Memory);
        }
        if self.is_cancelled() {
            return Err(self.tripped().unwrap_or(LimitKind::Timeout));
        }
        if crate::watchdog::poll_due() {
            return self.check();
        }
        Ok(())
    }

    /// Whether this run, or for a job the job or any shell above it, was
    /// cancelled (a limit, the deadline, `kill`).
    pub fn is_cancelled(&self) -> bool {
        let mut c = Some(self);
        while let Some(control) = c {
            if control.ending.cancelled.load(Ordering::Relaxed) {
                return true;
            }
            c = control.parent.as_deref();
        }
        false
    }

    /// Counts one more thread (pipeline stage, background job) working for
    /// the run; the guard gives it back when the thread ends. Past
    /// [`Limits::max_processes`] the run ends with the thread limit, as a fork
    /// bomb must.
    pub fn start_thread(self: &Arc<Self>) -> Result<ThreadSlot, LimitKind> {
        let run = self.root();
        let before = run.threads.fetch_add(1, Ordering::SeqCst);
        let slot = ThreadSlot { run: run.clone() };
        if before >= run.limits.max_processes {
            run.trip(LimitKind::Processes);
            return Err(LimitKind::Processes);
        }
        Ok(slot)
    }

    /// The run's own control block (a job's topmost parent).
    fn root(self: &Arc<Self>) -> &Arc<RunControl> {
        let mut c = self;
        while let Some(p) = &c.parent {
            c = p;
        }
        c
    }

    /// The time left before the deadline (`None`: no deadline).
    pub fn remaining(&self) -> Option<std::time::Duration> {
        self.deadline
            .map(|d| d.saturating_duration_since(Instant::now()))
    }
}

/// One thread's place in its run's thread count (see
/// [`RunControl::start_thread`]); dropping it gives the place back.
#[derive(Debug)]
pub struct ThreadSlot {
    run: Arc<RunControl>,
}

impl Drop for ThreadSlot {
    fn drop(&mut self) {
        self.run.threads.fetch_sub(1, Ordering::SeqCst);
    }
}
