//! FIFOs (named pipes, `mkfifo`): a node whose content is an in-memory
//! queue of bytes shared by its readers and writers.
//!
//! A kernel FIFO blocks `open(2)` until both ends are there. An in-process
//! shell cannot block a writer that way without risking a hang (a
//! deterministic run starts a background job where it is written, before the
//! reader that follows it), so writers never wait: what they write is queued
//! (up to the filesystem's per-file size limit, beyond which a write fails
//! with `File too large`). A reader takes what is queued; with nothing queued
//! it waits while a writer holds the FIFO open and, when no writer has come
//! since it opened, for one to come. Every wait re-checks the reader's stop
//! condition (the run's deadline and cancellation: given, or else the run
//! the thread works for, [`crate::cancel::watched`]): a reader that has no
//! way to stop never waits, and none waits past its run's end. When the
//! last reader leaves while a writer holds the FIFO open, what is queued is
//! dropped and writes fail with `EPIPE` until the writers are gone (so
//! `yes > p & head -1 p` ends instead of filling memory).

use std::collections::VecDeque;
use std::io;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

use super::FsError;

/// How long a waiting reader sleeps before re-checking its stop condition.
const POLL: Duration = Duration::from_millis(20);

#[derive(Default)]
struct State {
    queue: VecDeque<u8>,
    /// Writers holding the FIFO open ([`FifoWriter`]).
    writers: usize,
    /// Writer sessions so far: each [`FifoWriter`] and each write by path
    /// counts one, so a reader knows whether a writer came since it opened.
    sessions: u64,
    /// Readers holding the FIFO open.
    readers: usize,
    /// The last reader left while writers were there: writes fail (`EPIPE`)
    /// until the writers are gone.
    broken: bool,
}

/// The shared queue of one FIFO node.
#[derive(Default)]
pub struct Fifo {
    state: Mutex<State>,
    changed: Condvar,
}

impl Fifo {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Queues `data` as one writer session (a write by path: `tee p`), or
    /// refuses it when the queue would pass `cap` bytes.
    pub(crate) fn push(&self, data: &[u8], cap: u64) -> Result<(), FsError> {
        if data.is_empty() {
            // Opening with `O_TRUNC` (`: > p`) writes nothing.
            return Ok(());
        }
        let mut st = self.lock();
        if st.broken {
            return Err(FsError::BrokenPipe);
        }
        if (st.queue.len() + data.len()) as u64 > cap {
            return Err(FsError::FileTooLarge);
        }
        st.queue.extend(data);
        st.sessions += 1;
        self.changed.notify_all();
        Ok(())
    }

    /// Holds the FIFO open for writing until the returned guard is dropped:
    /// readers wait for its data instead of seeing end of input.
    pub fn open_writer(self: &Arc<Self>) -> FifoWriter {
        let mut st = self.lock();
        st.writers += 1;
        st.sessions += 1;
        FifoWriter {
            fifo: Arc::clone(self),
        }
    }

    /// Opens the FIFO for reading.
    pub fn open_reader(self: &Arc<Self>) -> FifoReader {
        let mut st = self.lock();
        st.readers += 1;
        let sessions = st.sessions;
        FifoReader {
            fifo: Arc::clone(self),
            sessions_at_open: sessions,
            saw_writer: false,
        }
    }
}

/// A writer's hold on a FIFO (see [`Fifo::open_writer`]).
pub struct FifoWriter {
    fifo: Arc<Fifo>,
}

impl Drop for FifoWriter {
    fn drop(&mut self) {
        let mut st = self.fifo.lock();
        st.writers = st.writers.saturating_sub(1);
        if st.writers == 0 {
            st.broken = false;
        }
        self.fifo.changed.notify_all();
    }
}

impl Drop for FifoReader {
    fn drop(&mut self) {
        let mut st = self.fifo.lock();
        st.readers = st.readers.saturating_sub(1);
        if st.readers == 0 && st.writers > 0 {
            st.broken = true;
            st.queue.clear();
        }
    }
}

/// The read end of a FIFO opened by [`Fifo::open_reader`].
pub struct FifoReader {
    fifo: Arc<Fifo>,
    sessions_at_open: u64,
    /// A writer or its data was seen: once none is left, input ends.
    saw_writer: bool,
}

impl FifoReader {
    /// Reads queued bytes, waiting for some while a writer is (or may still
    /// come) and `stop` says to go on; `Ok(0)` at end of input. When `stop`
    /// turns true while waiting, the read fails with `Interrupted` carrying
    /// `run cancelled` (what the shell's pipes return).
    pub fn read_until(&mut self, out: &mut [u8], stop: &dyn Fn() -> bool) -> io::Result<usize> {
        if out.is_empty() {
            return Ok(0);
        }
        let mut st = self.fifo.lock();
        loop {
            if !st.queue.is_empty() {
                let n = out.len().min(st.queue.len());
                for (slot, byte) in out.iter_mut().zip(st.queue.drain(..n)) {
                    *slot = byte;
                }
                self.saw_writer = true;
                return Ok(n);
            }
            if st.writers > 0 || st.sessions > self.sessions_at_open {
                self.saw_writer = true;
            }
            if st.writers == 0 && self.saw_writer {
                return Ok(0);
            }
            if stop() {
                return Err(io::Error::new(io::ErrorKind::Interrupted, "run cancelled"));
            }
            st = self
                .fifo
                .changed
                .wait_timeout(st, POLL)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    /// Reads like [`FifoReader::read_until`], stopping with the run this
    /// thread works for; a thread outside any run never waits (it takes what
    /// is queued, then reads end of input).
    pub fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        match crate::cancel::watched() {
            Some(run) => self.read_until(out, &|| run.check().is_err()),
            None => match self.read_until(out, &|| true) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => Ok(0),
                r => r,
            },
        }
    }

    /// Everything the writers send until they are done (the whole-file
    /// readers: `sort p`), at most `cap` bytes (`File too large` beyond).
    /// When the run is cancelled meanwhile, what came so far.
    pub(crate) fn read_whole(mut self, cap: u64) -> Result<Vec<u8>, FsError> {
        let mut all = Vec::new();
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match self.read(&mut buf) {
                Ok(0) | Err(_) => return Ok(all),
                Ok(n) if (all.len() + n) as u64 > cap => return Err(FsError::FileTooLarge),
                Ok(n) => all.extend_from_slice(&buf[..n]),
            }
        }
    }
}
