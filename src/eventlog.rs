//! The session event log: `DIR/agents/NAME/sessions/ID.jsonl`, one JSON
//! object per line for each session event and each run (command, exit code,
//! output sizes, a capped excerpt).
//!
//! Streamed output is stored as **deltas**: each record holds only the bytes
//! that arrived since the previous one, never the text so far (which would grow
//! quadratically). Small chunks are coalesced into records of up to
//! [`DELTA_RECORD_BYTES`] so the per-record overhead stays small.
//!
//! Writing the log is best effort: a failure is logged once and the session
//! goes on.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value, json};

use crate::sandbox::OutputSink;

/// Deltas are coalesced into records of about this many bytes.
pub const DELTA_RECORD_BYTES: usize = 8 << 10;

/// Bytes of stdout and of stderr kept as the excerpt of a finished run.
pub const EXCERPT_BYTES: usize = 512;

/// Which stream a delta belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stream {
    /// A run's standard output.
    Stdout,
    /// A run's standard error.
    Stderr,
    /// The agent's reply text in a turn.
    Reply,
}

impl Stream {
    fn key(self) -> &'static str {
        match self {
            Stream::Stdout => "stdout",
            Stream::Stderr => "stderr",
            Stream::Reply => "reply",
        }
    }
}

/// One session's event log. Cheap to clone; clones write to the same file.
#[derive(Clone, Debug)]
pub struct EventLog {
    inner: Arc<Mutex<Writer>>,
}

#[derive(Debug)]
struct Writer {
    path: PathBuf,
    file: Option<File>,
    /// Coalesced delta not yet written: (stream, run or turn number, bytes).
    pending: Option<(Stream, u64, Vec<u8>)>,
    warned: bool,
}

impl EventLog {
    /// Opens (creating it and its directory) the log at `path` for appending.
    pub fn open(path: impl Into<PathBuf>) -> io::Result<EventLog> {
        let path = path.into();
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let file = OpenOptions::new().create(true).append(true).open(&path)?;
        Ok(EventLog {
            inner: Arc::new(Mutex::new(Writer {
                path,
                file: Some(file),
                pending: None,
                warned: false,
            })),
        })
    }

    /// The log file.
    pub fn path(&self) -> PathBuf {
        self.lock().path.clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Writer> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Writes a record (`event` plus `fields`) stamped with the current time,
    /// after any pending delta.
    pub fn record(&self, event: &str, fields: Value) {
        let mut line = Map::new();
        line.insert(
            "at".into(),
            Value::String(crate::timestamp::now_iso_millis()),
        );
        line.insert("event".into(), Value::String(event.into()));
        if let Value::Object(fields) = fields {
            line.extend(fields);
        }
        let mut w = self.lock();
        w.flush_pending();
        w.write_line(&Value::Object(line));
    }

    /// Adds a chunk of streamed output (`id` is the run number for stdout and
    /// stderr, the turn number for a reply). Only the new bytes are stored.
    pub fn delta(&self, stream: Stream, id: u64, chunk: &[u8]) {
        if chunk.is_empty() {
            return;
        }
        let mut w = self.lock();
        if w.pending
            .as_ref()
            .is_some_and(|(s, i, _)| (*s, *i) != (stream, id))
        {
            w.flush_pending();
        }
        let pending = w.pending.get_or_insert_with(|| (stream, id, Vec::new()));
        pending.2.extend_from_slice(chunk);
        if pending.2.len() >= DELTA_RECORD_BYTES {
            w.flush_pending();
        }
    }

    /// Writes out any coalesced delta.
    pub fn flush(&self) {
        self.lock().flush_pending();
    }

    /// A sink that records a run's output as deltas and forwards it to `next`.
    pub fn sink(&self, run: u64, next: Option<Arc<dyn OutputSink>>) -> Arc<dyn OutputSink> {
        Arc::new(DeltaSink {
            log: self.clone(),
            run,
            next,
        })
    }
}

impl Writer {
    fn flush_pending(&mut self) {
        let Some((stream, id, mut bytes)) = self.pending.take() else {
            return;
        };
        // Keep an incomplete UTF-8 sequence at the end for the next record, so a
        // character split across chunks is not mangled.
        let keep = incomplete_utf8_tail(&bytes);
        let rest = bytes.split_off(bytes.len() - keep);
        let id_key = if stream == Stream::Reply {
            "turn"
        } else {
            "run"
        };
        let mut line = Map::new();
        line.insert(id_key.into(), json!(id));
        line.insert(
            stream.key().into(),
            Value::String(String::from_utf8_lossy(&bytes).into_owned()),
        );
        self.write_line(&Value::Object(line));
        if !rest.is_empty() {
            self.pending = Some((stream, id, rest));
        }
    }

    fn write_line(&mut self, value: &Value) {
        let Some(file) = self.file.as_mut() else {
            return;
        };
        let mut line = serde_json::to_vec(value).expect("JSON values always serialize");
        line.push(b'\n');
        if let Err(e) = file.write_all(&line) {
            if !self.warned {
                tracing::warn!("event log {} not written: {e}", self.path.display());
                self.warned = true;
            }
            self.file = None;
        }
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        self.flush_pending();
    }
}

/// Length of a trailing incomplete UTF-8 sequence (0 when the bytes end on a
/// character boundary or are not UTF-8 there anyway).
fn incomplete_utf8_tail(bytes: &[u8]) -> usize {
    for back in 1..=3.min(bytes.len()) {
        let b = bytes[bytes.len() - back];
        if b & 0xC0 != 0x80 {
            let need = match b {
                0xC0..=0xDF => 2,
                0xE0..=0xEF => 3,
                0xF0..=0xF7 => 4,
                _ => return 0,
            };
            return if need > back { back } else { 0 };
        }
    }
    0
}

struct DeltaSink {
    log: EventLog,
    run: u64,
    next: Option<Arc<dyn OutputSink>>,
}

impl OutputSink for DeltaSink {
    fn stdout(&self, chunk: &[u8]) {
        self.log.delta(Stream::Stdout, self.run, chunk);
        if let Some(next) = &self.next {
            next.stdout(chunk);
        }
    }

    fn stderr(&self, chunk: &[u8]) {
        self.log.delta(Stream::Stderr, self.run, chunk);
        if let Some(next) = &self.next {
            next.stderr(chunk);
        }
    }
}

/// The first [`EXCERPT_BYTES`] of some output, as (lossy) text.
pub fn excerpt(bytes: &[u8]) -> String {
    let cut = bytes.len().min(EXCERPT_BYTES);
    let cut = cut - incomplete_utf8_tail(&bytes[..cut]);
    String::from_utf8_lossy(&bytes[..cut]).into_owned()
}

/// Reads a whole event log back (skipping unparsable lines); for tools and tests.
pub fn read_records(path: &Path) -> io::Result<Vec<Value>> {
    let text = std::fs::read_to_string(path)?;
    Ok(text
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deltas_are_coalesced_and_never_cumulative() {
        let dir = tempfile::tempdir().unwrap();
        let log = EventLog::open(dir.path().join("s.jsonl")).unwrap();
        let chunk = "x".repeat(100);
        for _ in 0..1000 {
            log.delta(Stream::Reply, 1, chunk.as_bytes());
        }
        log.record("session.completed", json!({}));
        let size = std::fs::metadata(log.path()).unwrap().len();
        assert!(size as f64 <= 100_000.0 * 1.1, "{size}");
        let records = read_records(&log.path()).unwrap();
        let total: usize = records
            .iter()
            .filter_map(|r| r["reply"].as_str())
            .map(str::len)
            .sum();
        assert_eq!(total, 100_000);
    }

    #[test]
    fn split_characters_survive() {
        let dir = tempfile::tempdir().unwrap();
        let log = EventLog::open(dir.path().join("s.jsonl")).unwrap();
        let text = "é".repeat(DELTA_RECORD_BYTES);
        for b in text.as_bytes().chunks(3) {
            log.delta(Stream::Stdout, 1, b);
        }
        log.flush();
        let records = read_records(&log.path()).unwrap();
        let joined: String = records
            .iter()
            .filter_map(|r| r["stdout"].as_str())
            .collect();
        assert_eq!(joined, text);
    }
}
