//! The run's limits inside the guest: linear-memory growth charged to the
//! run's memory budget, and the epoch ticker that lets the deadline and
//! cancellation interrupt guest code without fuel.

use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

use sandkeep_shell::RunControl;
use wasmtime::{Engine, ResourceLimiter};

/// How often the ticker bumps the engine's epoch: the longest a busy guest
/// runs past a deadline or a cancel before its next check.
pub const TICK: Duration = Duration::from_millis(10);

/// The most linear memory one guest may hold, whatever the run's budget
/// (wasm32 cannot address more than 4 GiB anyway).
pub const MAX_GUEST_MEMORY: u64 = 2 << 30;

/// Refuses a `memory.grow` that would take the guest's linear memory, plus
/// what the run's threads already hold, past the run's memory budget. The
/// guest's allocator sees a failed grow and the guest handles it as its
/// own out of memory (CPython raises `MemoryError`, which a script may
/// catch and go on from): the memory was never granted, so the run is
/// still within its budget and its limit is not tripped. The host process
/// is untouched either way.
pub struct MemoryLimiter {
    pub control: &'static RunControl,
    /// Whether a growth was refused during the run (the host reports it
    /// when the guest then fails).
    pub refused: bool,
}

impl ResourceLimiter for MemoryLimiter {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        let account = self.control.memory();
        let held = u64::try_from(account.used()).unwrap_or(0);
        let fits = (desired as u64) <= MAX_GUEST_MEMORY
            && held.saturating_add(desired as u64) <= account.limit();
        if !fits {
            self.refused = true;
        }
        Ok(fits)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        Ok(desired <= 1 << 20)
    }
}

/// The thread that advances an engine's epoch every [`TICK`] while at
/// least one guest runs, and sleeps otherwise.
pub struct Ticker {
    active: Arc<(Mutex<usize>, Condvar)>,
}

impl Ticker {
    /// Starts the ticker thread for `engine`.
    pub fn start(engine: &Engine) -> Ticker {
        let active: Arc<(Mutex<usize>, Condvar)> = Arc::default();
        let (engine, shared) = (engine.clone(), active.clone());
        let spawned = std::thread::Builder::new()
            .name("sandkeep-wasi-epoch".into())
            .stack_size(64 << 10)
            .spawn(move || {
                let (count, wake) = &*shared;
                loop {
                    {
                        let mut n = count.lock().unwrap_or_else(PoisonError::into_inner);
                        while *n == 0 {
                            n = wake.wait(n).unwrap_or_else(PoisonError::into_inner);
                        }
                    }
                    std::thread::sleep(TICK);
                    engine.increment_epoch();
                }
            });
        // Without the thread a guest still stops at its host calls (each
        // checks the run); only a pure busy loop would outlive its deadline.
        if let Err(e) = spawned {
            tracing::warn!("sandkeep-wasi: no epoch ticker thread: {e}");
        }
        Ticker { active }
    }

    /// Marks one guest running until the guard drops.
    pub fn running(&self) -> Running<'_> {
        let (count, wake) = &*self.active;
        *count.lock().unwrap_or_else(PoisonError::into_inner) += 1;
        wake.notify_all();
        Running(self)
    }
}

/// One running guest (see [`Ticker::running`]).
pub struct Running<'a>(&'a Ticker);

impl Drop for Running<'_> {
    fn drop(&mut self) {
        let (count, _) = &*self.0.active;
        let mut n = count.lock().unwrap_or_else(PoisonError::into_inner);
        *n = n.saturating_sub(1);
    }
}
