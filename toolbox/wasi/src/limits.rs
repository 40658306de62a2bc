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
/// guest's allocator sees a failed grow (CPython raises `MemoryError`), and
/// the run has gone over its budget, so it ends at its memory limit as
/// for any other command (the guest at its next host call or epoch tick);
/// the host process is untouched.
pub struct MemoryLimiter {
    pub control: &'static RunControl,
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
            // Marks the account over budget and trips the run's limit.
            let _ = self.control.reserve(desired as u64);
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
