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
//! With object storage (`--store s3://...`) the mindlog is instead a set of
//! append-only segment objects ([`Segments`]), one per appended entry, named
//! `MILLIS-SEQ-RANDOM` (milliseconds since the epoch, then the writer's
//! count of appends, so names sort in time order and one writer's entries
//! keep their order) and created with a put that never overwrites: two workers
//! appending to one agent's mindlog at once both keep every entry. Reads
//! list the segments and merge them newest first, fetching only as many as
//! the answer needs.
//!
//! The hook that puts a copy into the sandbox at `/workspace/mindlog.jsonl`
//! when a turn starts is [`MindlogCopy`](crate::hooks::MindlogCopy) (the
//! workspace snapshot excludes it, so editing the copy changes nothing durable).

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use memchr::memmem;
use serde::{Deserialize, Serialize};

use crate::archive::atomic::FileLock;
use crate::store::Generations;

/// Where the copy of the mindlog lives inside the sandbox.
pub const SANDBOX_MINDLOG_PATH: &str = "/workspace/mindlog.jsonl";

/// Bytes read per step when scanning backwards.
const CHUNK: usize = 1 << 20;

/// Segments fetched at once when reading a mindlog kept as segments.
const SEGMENT_BATCH: usize = 64;

/// Where a mindlog kept as append-only segments lives (one object store
/// prefix per agent, see `store::s3`). Implementations block; call them
/// where blocking is allowed.
pub trait Segments: Send + Sync + std::fmt::Debug {
    /// Creates segment `name` holding `data` (whole lines); `false`, with
    /// nothing written, when a segment of that name exists already.
    fn create(&self, name: &str, data: &[u8]) -> io::Result<bool>;
    /// Every segment's name, in any order.
    fn names(&self) -> io::Result<Vec<String>>;
    /// The bytes of each named segment (`None` for one that is gone), in
    /// the order asked.
    fn read(&self, names: &[String]) -> io::Result<Vec<Option<Vec<u8>>>>;
}

/// What a mindlog looked like when last read: the copy hook recopies it
/// into a sandbox only when this changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Version {
    /// A file's length and modification time.
    File(u64, Option<SystemTime>),
    /// How many segments there are and the newest one's name.
    Segments(usize, String),
}

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
/// use sandkeep::{Mindlog, MindlogKind};
///
/// let dir = tempfile::tempdir().unwrap();
/// let log = Mindlog::new(dir.path().join("mindlog.jsonl"));
/// log.append(MindlogKind::Woke, "  morning  ", Some("s1")).unwrap();
/// assert!(log.append(MindlogKind::Note, "   ", None).unwrap().is_none(), "blank text is dropped");
/// log.append(MindlogKind::Said, "Hello, World", None).unwrap();
///
/// let newest = log.read(10, None).unwrap();
/// assert_eq!(newest.iter().map(|e| e.text.as_str()).collect::<Vec<_>>(), ["morning", "Hello, World"]);
/// assert_eq!(log.search("WORLD", 10).unwrap()[0].kind, MindlogKind::Said);
/// ```
#[derive(Clone, Debug)]
pub struct Mindlog {
    path: PathBuf,
    segments: Option<Arc<dyn Segments>>,
    generations: Option<Generations>,
}

impl Mindlog {
    /// The mindlog at `path` (created by the first append).
    pub fn new(path: impl Into<PathBuf>) -> Mindlog {
        Mindlog {
            path: path.into(),
            segments: None,
            generations: None,
        }
    }

    /// The mindlog kept as append-only segments in `segments` (e.g. an
    /// object-store prefix shared by several workers).
    pub fn on_segments(segments: Arc<dyn Segments>) -> Mindlog {
        Mindlog {
            path: PathBuf::from(format!("{segments:?}")),
            segments: Some(segments),
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

    /// The file (for a mindlog on segments: a description of where they are).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What the mindlog looks like now; `None` when it has no entries yet.
    pub fn version(&self) -> Result<Option<Version>, MindlogError> {
        if let Some(segments) = &self.segments {
            let names = segments.names().map_err(self.io())?;
            return Ok(names
                .iter()
                .max()
                .map(|newest| Version::Segments(names.len(), newest.clone())));
        }
        match std::fs::metadata(&self.path) {
            Ok(m) => Ok(Some(Version::File(m.len(), m.modified().ok()))),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(self.io()(e)),
        }
    }

    /// The whole mindlog as JSON lines, oldest first (segments merged in
    /// the order of their names); empty when it has no entries.
    pub fn contents(&self) -> Result<Vec<u8>, MindlogError> {
        if let Some(segments) = &self.segments {
            let mut names = segments.names().map_err(self.io())?;
            names.sort();
            let mut all = Vec::new();
            for batch in names.chunks(SEGMENT_BATCH) {
                for data in segments
                    .read(batch)
                    .map_err(self.io())?
                    .into_iter()
                    .flatten()
                {
                    all.extend_from_slice(&data);
                    if !all.ends_with(b"\n") {
                        all.push(b'\n');
                    }
                }
            }
            return Ok(all);
        }
        match std::fs::read(&self.path) {
            Ok(data) => Ok(data),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(self.io()(e)),
        }
    }

    /// Entries of the segments `names` (sorted oldest first), newest first,
    /// fetched a batch at a time until `wanted` says stop.
    fn segments_newest_first(
        &self,
        segments: &dyn Segments,
        names: &[String],
        mut wanted: impl FnMut(Entry) -> bool,
    ) -> Result<(), MindlogError> {
        for batch in names.rchunks(SEGMENT_BATCH) {
            let data = segments.read(batch).map_err(self.io())?;
            for bytes in data.iter().rev().flatten() {
                for line in bytes.rsplit(|&b| b == b'\n') {
                    if let Some(entry) = parse(line)
                        && !wanted(entry)
                    {
                        return Ok(());
                    }
                }
            }
        }
        Ok(())
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
        let now = jiff::Timestamp::now();
        let entry = Entry {
            id: format!("{}-{:08x}", now.as_millisecond(), rand::random::<u32>()),
            at: crate::timestamp::iso_millis(now),
            kind,
            text: text.to_string(),
            session_id: session_id.map(str::to_string),
            generation: self
                .generations
                .as_ref()
                .and_then(|g| g.store().head().ok().flatten())
                .map(|id| id.0),
        };
        if let Some(segments) = &self.segments {
            return self.append_segment(segments.as_ref(), entry, now);
        }
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

    /// Writes `entry` as a new segment (see [`segment_name`]); another id (a
    /// new random suffix) on the rare clash with an existing one.
    fn append_segment(
        &self,
        segments: &dyn Segments,
        mut entry: Entry,
        now: jiff::Timestamp,
    ) -> Result<Option<Entry>, MindlogError> {
        for _ in 0..8 {
            let mut line = serde_json::to_vec(&entry).expect("an entry always serializes");
            line.push(b'\n');
            if segments
                .create(&segment_name(&entry.id), &line)
                .map_err(self.io())?
            {
                return Ok(Some(entry));
            }
            entry.id = format!("{}-{:08x}", now.as_millisecond(), rand::random::<u32>());
        }
        Err(self.io()(io::Error::other(
            "no free segment name after 8 attempts",
        )))
    }

    /// The newest `limit` entries, oldest first. With `before` (an entry id),
    /// only entries older than that entry (for paging back); an unknown id
    /// gives nothing.
    pub fn read(&self, limit: usize, before: Option<&str>) -> Result<Vec<Entry>, MindlogError> {
        let mut found = Vec::new();
        if limit == 0 {
            return Ok(found);
        }
        if let Some(segments) = &self.segments {
            let mut names = segments.names().map_err(self.io())?;
            names.sort();
            if let Some(id) = before {
                match names.iter().rposition(|n| segment_entry_id(n) == id) {
                    Some(at) => names.truncate(at),
                    None => return Ok(found),
                }
            }
            self.segments_newest_first(segments.as_ref(), &names, |entry| {
                found.push(entry);
                found.len() < limit
            })?;
            found.reverse();
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
        let query_lower = query.to_lowercase();
        if let Some(segments) = &self.segments {
            let mut names = segments.names().map_err(self.io())?;
            names.sort();
            self.segments_newest_first(segments.as_ref(), &names, |entry| {
                if query_lower.is_empty() || entry.text.to_lowercase().contains(&query_lower) {
                    found.push(entry);
                }
                found.len() < limit
            })?;
            found.reverse();
            return Ok(found);
        }
        let Some(mut chunks) = Backward::open(&self.path).map_err(self.io())? else {
            return Ok(found);
        };
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

/// Appends by this process, so entries of one millisecond keep their order.
static SEGMENT_SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// The segment name of entry `id` (`MILLIS-RANDOM`): `MILLIS-SEQ-RANDOM`,
/// with SEQ this process's count of appends, zero-padded, so names sort by
/// time and, within a millisecond, in this process's order of appends
/// (entries of two workers in one millisecond are concurrent anyway).
fn segment_name(id: &str) -> String {
    let seq = SEGMENT_SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    match id.split_once('-') {
        Some((millis, random)) => format!("{millis}-{seq:020}-{random}"),
        None => format!("{id}-{seq:020}"),
    }
}

/// The entry id a segment name holds (see [`segment_name`]).
fn segment_entry_id(name: &str) -> String {
    let mut parts = name.splitn(3, '-');
    match (parts.next(), parts.next(), parts.next()) {
        (Some(millis), Some(_seq), Some(random)) => format!("{millis}-{random}"),
        _ => name.to_string(),
    }
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
