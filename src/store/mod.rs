//! The generation store: an agent's workspace history on the host.
//!
//! Every park that changed something becomes a **generation**: a record
//! (id, parents, session, time, change counts) and a **manifest** (every path
//! with kind, mode, mtime, size, content hash, link target). File contents
//! are **blobs** addressed by their SHA-256, written once however many
//! generations hold them, packed together and compressed so that many small
//! files do not mean many host files. A **head** names the current
//! generation and moves only by compare-and-swap on the generation a writer
//! was based on, so two writers never lose each other's work: the loser
//! merges ([`merge`]) and tries again.
//!
//! The parts:
//! - [`Store`]: the primitives a backend provides (records, blobs, the head
//!   with compare-and-swap); [`DirStore`] keeps them in a host directory,
//!   another backend (object storage) implements the same trait;
//! - [`Generations`]: what sync and the CLI use on top of any [`Store`]:
//!   commit with merge, history, resolving `HEAD~N`, checkout, fork, verify,
//!   gc, and export/import as tar;
//! - [`manifest`] and [`merge`]: plain data and the three-way merge rules;
//! - [`Spool`]: parks that could not reach a shared store, kept on the host
//!   and uploaded when it answers again.
//!
//! Everything here blocks (file I/O, hashing, compression): call it from
//! `tokio::task::spawn_blocking` in async code.

mod dir;
mod history;
pub mod manifest;
pub mod merge;
#[cfg(feature = "s3")]
pub mod s3;
mod spool;
mod tarball;

use std::collections::HashSet;
use std::fmt;

use serde::{Deserialize, Serialize};

pub use dir::DirStore;
pub(crate) use history::RESTORE_FAILED_NOTE;
pub use history::{Commit, GcReport, Generations, Repair, Retention};
pub use manifest::{Change, ChangeKind, ChangeStats, Delta, Edit, Entry, Hash, Kind, Manifest};
pub use merge::{Conflict, Resolution};
pub use spool::{Spool, Spooled};
pub(crate) use tarball::manifest_from_tar;
pub use tarball::read_tar_entries;

/// A generation's id: 16 hex digits of the hash of its record.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct GenerationId(pub String);

impl GenerationId {
    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for GenerationId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for GenerationId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "GenerationId({})", self.0)
    }
}

/// How a record holds its manifest.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StoredManifest {
    /// The whole manifest.
    Full(Manifest),
    /// The changes from another generation's manifest (its first parent), so
    /// a one-file turn writes a record of one entry, not of the whole tree.
    Delta {
        /// The generation the delta applies to.
        base: GenerationId,
        /// The changes.
        delta: manifest::Delta,
    },
}

/// One generation as stored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// Its id.
    pub id: GenerationId,
    /// 1 for an agent's first generation, then one more than its first parent.
    pub seq: u64,
    /// The head it was committed on (first), and for a merge the generation
    /// the merged session had started from.
    pub parents: Vec<GenerationId>,
    /// The session that made it, if any.
    pub session: Option<String>,
    /// When it was committed, seconds since the epoch (UTC).
    pub created: i64,
    /// The sandbox clock when its workspace was listed (files modified in the
    /// second before may have changed unseen, so the next park re-reads them).
    pub listed_at: i64,
    /// [`Manifest::tree_hash`] of its manifest.
    pub tree: Hash,
    /// What changed from its first parent.
    pub stats: ChangeStats,
    /// How it came to be when not by a park: `checkout of X`, `merge`, ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Length of the delta chain down to a full manifest (0: full).
    #[serde(default)]
    pub depth: u32,
    /// The manifest.
    pub manifest: StoredManifest,
}

/// Why a store operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// Host I/O failed.
    #[error("{path}: {source}")]
    Io {
        /// The file involved.
        path: String,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A generation that is not in the store.
    #[error("no generation {0}")]
    NoGeneration(String),
    /// A name that matches several generations.
    #[error("generation prefix {0} is ambiguous")]
    Ambiguous(String),
    /// A blob that is not in the store.
    #[error("blob {0} is missing from the store")]
    MissingBlob(Hash),
    /// Stored bytes that do not hash to their name, or do not decode.
    #[error("{what} is damaged: {reason}")]
    Damaged {
        /// What was read.
        what: String,
        /// What is wrong with it.
        reason: String,
    },
    /// An archive to import that cannot be read.
    #[error("not a readable workspace archive: {0}")]
    BadArchive(String),
    /// The agent has no generation yet.
    #[error("nothing kept yet")]
    Empty,
}

impl StoreError {
    /// An I/O error on `path`.
    pub fn io(path: impl fmt::Display, source: std::io::Error) -> StoreError {
        StoreError::Io {
            path: path.to_string(),
            source,
        }
    }
}

/// What a store backend provides. Implementations must make
/// [`Store::set_head`] a compare-and-swap and every write atomic (a crash
/// leaves the old state or the new one); the order writers use (blobs, then
/// the record, then the head) makes a crash leave at worst unreferenced
/// objects, which [`Store::retain_blobs`] removes.
pub trait Store: Send + Sync + fmt::Debug {
    /// The current head, or `None` when nothing was kept yet.
    fn head(&self) -> Result<Option<GenerationId>, StoreError>;

    /// Moves the head to `new` if it is still `expected`; `false` when
    /// another writer moved it first.
    fn set_head(
        &self,
        expected: Option<&GenerationId>,
        new: &GenerationId,
    ) -> Result<bool, StoreError>;

    /// Reads one record ([`StoreError::NoGeneration`] when absent).
    fn read_record(&self, id: &GenerationId) -> Result<Record, StoreError>;

    /// Writes (or replaces) a record.
    fn write_record(&self, record: &Record) -> Result<(), StoreError>;

    /// Removes a record (a missing one is not an error).
    fn remove_record(&self, id: &GenerationId) -> Result<(), StoreError>;

    /// The ids of every stored record, in no order.
    fn record_ids(&self) -> Result<Vec<GenerationId>, StoreError>;

    /// True when the blob is stored.
    fn has_blob(&self, hash: &Hash) -> Result<bool, StoreError>;

    /// A blob's bytes, checked against its hash.
    fn read_blob(&self, hash: &Hash) -> Result<Vec<u8>, StoreError>;

    /// Stores blobs (together, as one pack); returns the bytes written.
    fn write_blobs(&self, blobs: &[(Hash, &[u8])]) -> Result<u64, StoreError>;

    /// Removes every blob not in `keep` (older than a grace period, so a
    /// writer's blobs are safe until its record lands); returns bytes freed.
    fn retain_blobs(&self, keep: &HashSet<Hash>) -> Result<u64, StoreError>;

    /// Every stored blob's hash, for verification.
    fn blob_hashes(&self) -> Result<Vec<Hash>, StoreError>;

    /// A parked session's record (its shell state, base generation, owner:
    /// JSON the server writes), `None` when there is none. Stores that
    /// keep no session records have none.
    fn read_session(&self, id: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let _ = id;
        Ok(None)
    }

    /// Writes (or replaces) a parked session's record, atomically. The
    /// default refuses: this store keeps no session records.
    fn write_session(&self, id: &str, record: &[u8]) -> Result<(), StoreError> {
        let _ = record;
        Err(StoreError::Damaged {
            what: format!("session {id}"),
            reason: "this store keeps no session records".into(),
        })
    }

    /// Removes a session's record (a missing one is not an error).
    fn remove_session(&self, id: &str) -> Result<(), StoreError> {
        let _ = id;
        Ok(())
    }

    /// The ids of every stored session record, with its age in seconds
    /// (for retention).
    fn session_ids(&self) -> Result<Vec<(String, u64)>, StoreError> {
        Ok(Vec::new())
    }
}
