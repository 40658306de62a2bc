//! A bounded in-memory pipe joining two pipeline stages.
//!
//! Writers block while the buffer is full and readers block while it is empty,
//! like a kernel pipe. Every wait is bounded (it wakes up periodically to
//! re-check the run's deadline and cancellation), so no stage can hang a run.
//! When the last reader goes away, writes fail with `BrokenPipe` (the EPIPE a
//! real writer would get along with SIGPIPE); when the last writer goes away,
//! reads return end of input.

use std::collections::VecDeque;
use std::io;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use crate::control::RunControl;

/// Bytes a pipe holds before writers wait (Linux's default pipe size).
const CAPACITY: usize = 64 * 1024;

/// How long a blocked reader or writer sleeps before re-checking the run.
const POLL: Duration = Duration::from_millis(20);

#[derive(Default)]
struct State {
    buf: VecDeque<u8>,
    writer_closed: bool,
    reader_closed: bool,
    /// Bytes accepted after the reader left (see `write_all`).
    discarded: usize,
}

struct Shared {
    state: Mutex<State>,
    changed: Condvar,
    control: Arc<RunControl>,
}

/// The read end. Dropping the last clone of its `Arc` closes it.
pub struct PipeReader {
    shared: Arc<Shared>,
}

/// The write end. Dropping the last clone of its `Arc` closes it.
pub struct PipeWriter {
    shared: Arc<Shared>,
}

/// A new pipe whose waits observe `control`.
pub fn pipe(control: Arc<RunControl>) -> (PipeReader, PipeWriter) {
    let shared = Arc::new(Shared {
        state: Mutex::new(State::default()),
        changed: Condvar::new(),
        control,
    });
    (
        PipeReader {
            shared: shared.clone(),
        },
        PipeWriter { shared },
    )
}

fn limit_error() -> io::Error {
    io::Error::new(io::ErrorKind::Interrupted, "run cancelled")
}

impl PipeReader {
    /// Reads available bytes, waiting for some; `Ok(0)` once every writer is gone.
    pub fn read(&self, out: &mut [u8]) -> io::Result<usize> {
        if out.is_empty() {
            return Ok(0);
        }
        let mut st = self.shared.state.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if !st.buf.is_empty() {
                let n = out.len().min(st.buf.len());
                let (a, b) = st.buf.as_slices();
                if n <= a.len() {
                    out[..n].copy_from_slice(&a[..n]);
                } else {
                    out[..a.len()].copy_from_slice(a);
                    out[a.len()..n].copy_from_slice(&b[..n - a.len()]);
                }
                st.buf.drain(..n);
                self.shared.changed.notify_all();
                return Ok(n);
            }
            if st.writer_closed {
                return Ok(0);
            }
            if self.shared.control.check().is_err() {
                return Err(limit_error());
            }
            st = self
                .shared
                .changed
                .wait_timeout(st, POLL)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
}

impl PipeWriter {
    /// Writes all of `data`, waiting for room; `BrokenPipe` once the reader is gone.
    pub fn write_all(&self, mut data: &[u8]) -> io::Result<()> {
        let mut st = self.shared.state.lock().unwrap_or_else(|e| e.into_inner());
        while !data.is_empty() {
            if st.reader_closed {
                // A kernel pipe whose reader just exited usually still took a
                // small write (the writer ran first); only a writer that keeps
                // going gets EPIPE. Model that: the pipe's capacity is accepted.
                if st.discarded + data.len() <= CAPACITY {
                    st.discarded += data.len();
                    return Ok(());
                }
                return Err(io::Error::from(io::ErrorKind::BrokenPipe));
            }
            let room = CAPACITY.saturating_sub(st.buf.len());
            if room > 0 {
                let n = room.min(data.len());
                st.buf.extend(&data[..n]);
                data = &data[n..];
                self.shared.changed.notify_all();
                continue;
            }
            if self.shared.control.check().is_err() {
                return Err(limit_error());
            }
            st = self
                .shared
                .changed
                .wait_timeout(st, POLL)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        Ok(())
    }
}

impl Drop for PipeReader {
    fn drop(&mut self) {
        let mut st = self.shared.state.lock().unwrap_or_else(|e| e.into_inner());
        st.reader_closed = true;
        st.discarded = st.buf.len();
        st.buf.clear();
        self.shared.changed.notify_all();
    }
}

impl Drop for PipeWriter {
    fn drop(&mut self) {
        let mut st = self.shared.state.lock().unwrap_or_else(|e| e.into_inner());
        st.writer_closed = true;
        self.shared.changed.notify_all();
    }
}
