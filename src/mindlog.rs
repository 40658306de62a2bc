//! The mindlog: an agent's append-only memory, one JSON object per line
//! (`{id, at, kind, text, sessionId}`) in `DIR/agents/NAME/mindlog.jsonl`.
//!
//! - [`Mindlog::append`] writes one whole line with a single `O_APPEND` write
//!   under an exclusive file lock, so concurrent writers never interleave.
//! - [`Mindlog::read`] and [`Mindlog::search`] want the newest entries, so they
//!   read the file backwards in chunks and stop once they have enough. Search
//!   matches case-insensitively on the raw bytes first and parses JSON only for
//!   lines that match. Corrupt or torn lines are skipped, a missing file reads
//!   as empty.
//!
//! The hook that puts a copy into the sandbox at `/workspace/mindlog.jsonl`
//! when a turn starts is [`MindlogCopy`](crate::hooks::MindlogCopy) (the
//! workspace snapshot excludes it, so editing the copy changes nothing durable).

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use memchr::memmem;
use serde::{Deserialize, Serialize};

use crate::archive::atomic::FileLock;
use crate::store::Generations;

/// Where the copy of the mindlog lives inside the sandbox.
pub const SANDBOX_MINDLOG_PATH: &str = "/workspace/mindlog.jsonl";

/// Bytes read per step when scanning backwards.
const CHUNK: usize = 1 << 20;

/// What an entry records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// The agent woke up (a session started).
    Woke,
    /// The agent heard something (input).
    Heard,
    /// The agent thought something.
    Thought,
    /// The agent said something (output).
    Said,
    /// The agent did something (an action).
    Did,
    /// A note.
    Note,
}

impl Kind {
    /// Every kind, in the documented order.
    pub const ALL: [Kind; 6] = [
        Kind::Woke,
        Kind::Heard,
        Kind::Thought,
        Kind::Said,
        Kind::Did,
        Kind::Note,
    ];

    /// The kind's name as stored.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Woke => "woke",
            Kind::Heard => "heard",
            Kind::Thought => "thought",
            Kind::Said => "said",
            Kind::Did => "did",
            Kind::Note => "note",
        }
    }
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Kind {
    type Err = MindlogError;

    fn from_str(s: &str) -> Result<Kind, MindlogError> {
        Kind::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| MindlogError::UnknownKind(s.to_string()))
    }
}

/// One mindlog line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// Unique id: milliseconds since the epoch and a random suffix.
    pub id: String,
    /// When it was written: ISO-8601 UTC with milliseconds.
    pub at: String,
    /// What it records.
    pub kind: Kind,
    /// The text, trimmed, never blank.
    pub text: String,
    /// The session that wrote it, if any.
    #[serde(rename = "sessionId")]
    pub session_id: Option<String>,
    /// The head generation of the workspace when it was written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generation: Option<String>,
}

/// Why a mindlog operation failed.
#[derive(Debug, thiserror::Error)]
pub enum MindlogError {
    /// Reading or writing the file failed.
    #[error("{path}: {source}")]
    Io {
        /// The mindlog file.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// A kind that is not one of `woke heard thought said did note`.
    #[error("unknown mindlog kind '{0}' (expected one of: woke, heard, thought, said, did, note)")]
    UnknownKind(String),
}

/// An agent's mindlog file.
///
/// ```
/// use sandkeep::mindlog::{Kind, Mindlog};
///
/// let dir = tempfile::tempdir().unwrap();
/// let log = Mindlog::new(dir.path().join("mindlog.jsonl"));
/// log.append(Kind::Woke, "  morning  ", Some("s1")).unwrap();
/// assert!(log.append(Kind::Note, "   ", None).unwrap().is_none(), "blank text is dropped");
/// log.append(Kind::Said, "Hello, World", None).unwrap();
///
/// let newest = log.read(10, None).unwrap();
/// assert_eq!(newest.iter().map(|e| e.text.as_str()).collect::<Vec<_>>(), ["morning", "Hello, World"]);
/// assert_eq!(log.search("WORLD", 10).unwrap()[0].kind, Kind::Said);
/// ```
#[derive(Clone, Debug)]
pub struct Mindlog {
    path: PathBuf,
    generations: Option<Generations>,
}

impl Mindlog {
    /// The mindlog at `path` (created by the first append).
    pub fn new(path: impl Into<PathBuf>) -> Mindlog {
        Mindlog {
            path: path.into(),
            generations: None,
        }
    }

    /// Records in every appended entry the workspace generation that is the
    /// head of `generations` at that moment, so "why is this file like
    /// this" can be answered from the mindlog.
    pub fn with_generations(mut self, generations: Generations) -> Mindlog {
        self.generations = Some(generations);
        self
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn io(&self) -> impl FnOnce(io::Error) -> MindlogError + '_ {
        |source| MindlogError::Io {
            path: self.path.clone(),
            source,
        }
    }

    /// Appends an entry; returns it, or `None` when the trimmed text is blank
    /// (nothing is written). One line, one `write` under an exclusive lock.
    pub fn append(
        &self,
        kind: Kind,
        text: &str,
        session_id: Option<&str>,
    ) -> Result<Option<Entry>, MindlogError> {
        let text = text.trim();
        if text.is_empty() {
            return Ok(None);
        }
        let now = time::OffsetDateTime::from(SystemTime::now());
        let entry = Entry {
            id: format!(
                "{}-{:08x}",
                now.unix_timestamp_nanos() / 1_000_000,
                rand::random::<u32>()
            ),
            at: iso_millis(now),
            kind,
            text: text.to_string(),
            session_id: session_id.map(str::to_string),
            generation: self
                .generations
                .as_ref()
                .and_then(|g| g.store().head().ok().flatten())
                .map(|id| id.0),
        };
        let mut line = serde_json::to_vec(&entry).expect("an entry always serializes");
        line.push(b'\n');
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(self.io())?;
        }
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .read(true)
            .open(&self.path)
            .map_err(self.io())?;
        let lock = FileLock::on_file(file).map_err(self.io())?;
        let mut file = lock.file();
        // A writer killed mid-line left a torn tail: start on a fresh line so
        // ours stays whole (the torn one is skipped by readers).
        let len = file.metadata().map_err(self.io())?.len();
        if len > 0 {
            let mut last = [0u8];
            file.read_exact_at(&mut last, len - 1).map_err(self.io())?;
            if last[0] != b'\n' {
                line.insert(0, b'\n');
            }
        }
        file.write_all(&line).map_err(self.io())?;
        Ok(Some(entry))
    }

    /// The newest `limit` entries, oldest first. With `before` (an entry id),
    /// only entries older than that entry (for paging back); an unknown id
    /// gives nothing.
    pub fn read(&self, limit: usize, before: Option<&str>) -> Result<Vec<Entry>, MindlogError> {
        let mut found = Vec::new();
        if limit == 0 {
            return Ok(found);
        }
        let Some(mut chunks) = Backward::open(&self.path).map_err(self.io())? else {
            return Ok(found);
        };
        let mut waiting_for = before.map(|id| (id, memmem::Finder::new(id.as_bytes())));
        while let Some(block) = chunks.next_block().map_err(self.io())? {
            for line in block.rsplit(|&b| b == b'\n') {
                if line.is_empty() {
                    continue;
                }
                if let Some((id, finder)) = &waiting_for {
                    if finder.find(line).is_some() && parse(line).is_some_and(|e| e.id == *id) {
                        waiting_for = None;
                    }
                    continue;
                }
                if let Some(entry) = parse(line) {
                    found.push(entry);
                    if found.len() == limit {
                        found.reverse();
                        return Ok(found);
                    }
                }
            }
        }
        found.reverse();
        Ok(found)
    }

    /// The newest `limit` entries whose text contains `query`, ignoring case,
    /// oldest first. An empty query matches every entry.
    pub fn search(&self, query: &str, limit: usize) -> Result<Vec<Entry>, MindlogError> {
        let mut found = Vec::new();
        if limit == 0 {
            return Ok(found);
        }
        let Some(mut chunks) = Backward::open(&self.path).map_err(self.io())? else {
            return Ok(found);
        };
        let query_lower = query.to_lowercase();
        let needle = prefilter_needle(query);
        let finder = needle.as_deref().map(memmem::Finder::new);
        let mut lower = Vec::new();
        let mut hits = Vec::new();
        while let Some(block) = chunks.next_block().map_err(self.io())? {
            // Candidate lines, as (start, end) offsets, oldest first.
            hits.clear();
            match &finder {
                Some(f) => {
                    // ASCII case folding of the whole block is a cheap vectorized
                    // pass; the forward SIMD search then finds the candidates.
                    lower.clear();
                    lower.extend_from_slice(&block);
                    lower.make_ascii_lowercase();
                    let mut from = 0;
                    while let Some(p) = f.find(&lower[from..]).map(|i| from + i) {
                        let start = memchr::memrchr(b'\n', &lower[..p]).map_or(0, |i| i + 1);
                        let stop =
                            memchr::memchr(b'\n', &lower[p..]).map_or(lower.len(), |i| p + i);
                        hits.push((start, stop));
                        from = stop;
                    }
                }
                None => {
                    let mut start = 0;
                    for stop in memchr::memchr_iter(b'\n', &block).chain([block.len()]) {
                        hits.push((start, stop));
                        start = stop + 1;
                    }
                }
            }
            for &(start, stop) in hits.iter().rev() {
                if let Some(entry) = parse(&block[start..stop])
                    && (query_lower.is_empty() || entry.text.to_lowercase().contains(&query_lower))
                {
                    found.push(entry);
                    if found.len() == limit {
                        found.reverse();
                        return Ok(found);
                    }
                }
            }
        }
        found.reverse();
        Ok(found)
    }
}

/// `2026-12-03T03:10:43.123Z`.
fn iso_millis(t: time::OffsetDateTime) -> String {
    let t = t.to_offset(time::UtcOffset::UTC);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second(),
        t.millisecond()
    )
}

/// Parses one line; `None` for corrupt or torn lines.
fn parse(line: &[u8]) -> Option<Entry> {
    serde_json::from_slice(line).ok()
}

/// The bytes every raw line whose text matches `query` must contain (ASCII
/// lowercased): the query as JSON escapes it, or its longest ASCII run when it
/// has non-ASCII letters (whose case ASCII folding cannot ignore). `None`: no
/// usable prefilter, every line is a candidate.
fn prefilter_needle(query: &str) -> Option<Vec<u8>> {
    let escaped = serde_json::to_string(query).ok()?;
    let escaped = &escaped[1..escaped.len() - 1];
    let best = escaped
        .split(|c: char| !c.is_ascii())
        .max_by_key(|s| s.len())
        .unwrap_or("");
    if best.is_empty() {
        return None;
    }
    Some(best.bytes().map(|b| b.to_ascii_lowercase()).collect())
}

/// Reads a file from the end in blocks of whole lines.
struct Backward {
    file: File,
    /// Bytes before this offset are not read yet.
    pos: u64,
    /// The start of the oldest line seen so far, whose beginning lies before `pos`.
    carry: Vec<u8>,
}

impl Backward {
    fn open(path: &Path) -> io::Result<Option<Backward>> {
        match File::open(path) {
            Ok(file) => {
                let pos = file.metadata()?.len();
                Ok(Some(Backward {
                    file,
                    pos,
                    carry: Vec::new(),
                }))
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The next older block: whole lines (the newest line of the file may lack
    /// its newline), or `None` at the start of the file.
    fn next_block(&mut self) -> io::Result<Option<Vec<u8>>> {
        loop {
            if self.pos == 0 {
                if self.carry.is_empty() {
                    return Ok(None);
                }
                return Ok(Some(std::mem::take(&mut self.carry)));
            }
            let n = CHUNK.min(self.pos as usize);
            let start = self.pos - n as u64;
            let mut buf = vec![0u8; n];
            self.file.read_exact_at(&mut buf, start)?;
            self.pos = start;
            let fresh = n;
            buf.extend_from_slice(&self.carry);
            self.carry.clear();
            if self.pos == 0 {
                return Ok(Some(buf));
            }
            // Everything up to the first newline belongs to a line that starts
            // in an older block.
            match memchr::memchr(b'\n', &buf[..fresh]) {
                Some(i) => {
                    let block = buf.split_off(i + 1);
                    self.carry = buf;
                    if !block.is_empty() {
                        return Ok(Some(block));
                    }
                }
                None => self.carry = buf,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log() -> (tempfile::TempDir, Mindlog) {
        let dir = tempfile::tempdir().unwrap();
        let log = Mindlog::new(dir.path().join("m.jsonl"));
        (dir, log)
    }

    #[test]
    fn entry_shape_and_timestamp() {
        let (_d, log) = log();
        let e = log.append(Kind::Note, "x", Some("s")).unwrap().unwrap();
        let raw = std::fs::read_to_string(log.path()).unwrap();
        let v: serde_json::Value = serde_json::from_str(raw.trim()).unwrap();
        assert_eq!(v["kind"], "note");
        assert_eq!(v["sessionId"], "s");
        assert_eq!(v["id"], e.id.as_str());
        let at = v["at"].as_str().unwrap();
        assert_eq!(at.len(), "2026-12-03T03:10:43.123Z".len(), "{at}");
        assert!(at.ends_with('Z') && at.as_bytes()[19] == b'.', "{at}");
    }

    #[test]
    fn missing_file_reads_empty() {
        let (_d, log) = log();
        assert!(log.read(5, None).unwrap().is_empty());
        assert!(log.search("x", 5).unwrap().is_empty());
    }

    #[test]
    fn torn_and_corrupt_lines_are_skipped_and_appends_stay_whole() {
        let (_d, log) = log();
        log.append(Kind::Note, "first", None).unwrap();
        std::fs::OpenOptions::new()
            .append(true)
            .open(log.path())
            .unwrap()
            .write_all(b"not json\n{\"id\":\"x\",\"at")
            .unwrap();
        log.append(Kind::Note, "second", None).unwrap();
        let texts: Vec<_> = log
            .read(10, None)
            .unwrap()
            .into_iter()
            .map(|e| e.text)
            .collect();
        assert_eq!(texts, ["first", "second"]);
    }

    #[test]
    fn read_pages_backwards_across_chunks() {
        let (_d, log) = log();
        // Long lines so the file spans several chunks.
        let pad = "p".repeat(100_000);
        let mut ids = Vec::new();
        for i in 0..30 {
            ids.push(
                log.append(Kind::Note, &format!("{i} {pad}"), None)
                    .unwrap()
                    .unwrap()
                    .id,
            );
        }
        let last3: Vec<_> = log
            .read(3, None)
            .unwrap()
            .into_iter()
            .map(|e| e.id)
            .collect();
        assert_eq!(last3, ids[27..]);
        let page: Vec<_> = log
            .read(2, Some(&ids[10]))
            .unwrap()
            .into_iter()
            .map(|e| e.id)
            .collect();
        assert_eq!(page, ids[8..10]);
        assert_eq!(log.read(100, None).unwrap().len(), 30);
        assert!(log.read(5, Some("no-such-id")).unwrap().is_empty());
    }

    #[test]
    fn search_is_case_insensitive_on_text_only_newest_first() {
        let (_d, log) = log();
        log.append(Kind::Note, "Apple pie", None).unwrap();
        log.append(Kind::Said, "nothing here", Some("apple-session"))
            .unwrap();
        log.append(Kind::Note, "an APPLE a day", None).unwrap();
        log.append(Kind::Note, "say \"quoted\" back\\slash", None)
            .unwrap();
        log.append(Kind::Note, "Ünïcode ÉTÉ", None).unwrap();
        let hits: Vec<_> = log
            .search("apple", 10)
            .unwrap()
            .into_iter()
            .map(|e| e.text)
            .collect();
        assert_eq!(hits, ["Apple pie", "an APPLE a day"]);
        assert_eq!(log.search("apple", 1).unwrap()[0].text, "an APPLE a day");
        assert_eq!(log.search("\"QUOTED\" back\\", 5).unwrap().len(), 1);
        assert_eq!(log.search("été", 5).unwrap().len(), 1);
        assert_eq!(log.search("", 2).unwrap().len(), 2);
    }

    #[test]
    fn concurrent_appends_are_whole_lines() {
        let (_d, log) = log();
        let threads: Vec<_> = (0..8)
            .map(|t| {
                let log = log.clone();
                std::thread::spawn(move || {
                    for i in 0..200 {
                        log.append(
                            Kind::Did,
                            &format!("thread {t} line {i} {}", "x".repeat(t * 300)),
                            None,
                        )
                        .unwrap();
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let raw = std::fs::read_to_string(log.path()).unwrap();
        assert_eq!(raw.lines().count(), 1600);
        assert!(
            raw.lines()
                .all(|l| serde_json::from_str::<Entry>(l).is_ok())
        );
    }
}
