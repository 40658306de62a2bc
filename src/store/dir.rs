//! [`DirStore`]: the generation store in a host directory.
//!
//! ```text
//! DIR/HEAD                      the head generation's id
//! DIR/lock                      flock serializing head moves and pack rewrites
//! DIR/generations/ID.json.gz    one record (and manifest or delta) per generation
//! DIR/packs/NAME.pack           blobs, LZ4-compressed, many per file
//! DIR/packs/NAME.idx            where each blob of the pack starts
//! ```
//!
//! Every file is written atomically (temp file, fsync, rename), packs before
//! records before the head, so a crash leaves at worst an unreferenced pack.
//! Only the head's rename is followed by a directory sync: on a journaling
//! filesystem that commits the earlier renames too (metadata is committed in
//! order), so a park costs three content syncs and one directory sync.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::io::{self, Read, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use flate2::Compression;
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;

use super::{GenerationId, Hash, Record, Store, StoreError};
use crate::archive::atomic::{FileLock, write_atomic, write_atomic_ordered, write_atomic_unsynced};

const PACK_MAGIC: &[u8; 8] = b"SKPACK1\n";
const IDX_MAGIC: &[u8; 8] = b"SKIDX1\n\0";
/// hash, offset, compressed length, raw length.
const IDX_ROW: usize = 32 + 8 + 8 + 8;
/// Packs younger than this are never collected: their writer's record may
/// not have landed yet.
const DEFAULT_GRACE: Duration = Duration::from_secs(15 * 60);

/// Where one blob lives.
#[derive(Clone, Debug)]
struct Loc {
    pack: String,
    offset: u64,
    comp_len: u64,
    raw_len: u64,
}

#[derive(Debug, Default)]
struct Index {
    blobs: HashMap<Hash, Loc>,
    packs: HashSet<String>,
}

/// The generation store of one agent, in a host directory.
///
/// ```
/// use sandkeep::{DirStore, Hash, Store};
///
/// let dir = tempfile::tempdir().unwrap();
/// let store = DirStore::new(dir.path());
/// let hash = Hash::of(b"hello");
/// store.write_blobs(&[(hash, b"hello")]).unwrap();
/// assert_eq!(store.read_blob(&hash).unwrap(), b"hello");
/// assert_eq!(store.head().unwrap(), None);
/// ```
#[derive(Debug)]
pub struct DirStore {
    root: PathBuf,
    grace: Duration,
    index: Mutex<Index>,
}

/// Turns an I/O error on `path` into a [`StoreError`] naming it.
pub(super) fn io_at(path: &Path) -> impl FnOnce(io::Error) -> StoreError + '_ {
    move |e| StoreError::io(path.display(), e)
}

impl DirStore {
    /// A store in `root` (created on first write).
    pub fn new(root: impl Into<PathBuf>) -> DirStore {
        DirStore {
            root: root.into(),
            grace: DEFAULT_GRACE,
            index: Mutex::new(Index::default()),
        }
    }

    /// Sets how old a pack must be before [`Store::retain_blobs`] may remove
    /// or rewrite it (default 15 minutes).
    pub fn with_grace(mut self, grace: Duration) -> DirStore {
        self.grace = grace;
        self
    }

    /// The store's directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    fn packs_dir(&self) -> PathBuf {
        self.root.join("packs")
    }

    /// A session record's file (`sessions/ID.json`; ids are the server's
    /// `s-HEX-AGENT`, safe as file names).
    fn session_path(&self, id: &str) -> PathBuf {
        self.root.join("sessions").join(format!("{id}.json"))
    }

    fn record_path(&self, id: &GenerationId) -> PathBuf {
        self.root
            .join("generations")
            .join(format!("{}.json.gz", id.0))
    }

    fn lock(&self) -> Result<FileLock, StoreError> {
        let path = self.root.join("lock");
        FileLock::acquire(&path).map_err(io_at(&path))
    }

    /// Loads the index of every pack not seen yet.
    fn refresh(&self, index: &mut Index) -> Result<(), StoreError> {
        let dir = self.packs_dir();
        let names = match fs::read_dir(&dir) {
            Ok(rd) => rd
                .flatten()
                .filter_map(|e| {
                    let name = e.file_name().to_string_lossy().into_owned();
                    name.strip_suffix(".pack").map(str::to_string)
                })
                .collect::<Vec<_>>(),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(StoreError::io(dir.display(), e)),
        };
        for name in names {
            if index.packs.contains(&name) {
                continue;
            }
            for (hash, loc) in self.read_index(&name)? {
                index.blobs.insert(hash, loc);
            }
            index.packs.insert(name);
        }
        Ok(())
    }

    /// A pack's index: its `.idx`, or a scan of the pack when that is missing.
    fn read_index(&self, pack: &str) -> Result<Vec<(Hash, Loc)>, StoreError> {
        let idx_path = self.packs_dir().join(format!("{pack}.idx"));
        match fs::read(&idx_path) {
            Ok(bytes) if bytes.starts_with(IDX_MAGIC) => {
                let rows = &bytes[IDX_MAGIC.len()..];
                let pack_len = fs::metadata(self.packs_dir().join(format!("{pack}.pack")))
                    .map(|m| m.len())
                    .unwrap_or(0);
                let fits = |r: &[u8]| {
                    let n = |i: usize| u64::from_le_bytes(r[i..i + 8].try_into().unwrap_or([0; 8]));
                    n(32)
                        .checked_add(n(40))
                        .is_some_and(|end| end <= pack_len && n(32) > 0)
                };
                if rows.len() % IDX_ROW == 0 && rows.chunks_exact(IDX_ROW).all(fits) {
                    return Ok(rows
                        .chunks_exact(IDX_ROW)
                        .map(|r| {
                            let n = |i: usize| {
                                u64::from_le_bytes(r[i..i + 8].try_into().unwrap_or([0; 8]))
                            };
                            let mut h = [0u8; 32];
                            h.copy_from_slice(&r[..32]);
                            (
                                Hash(h),
                                Loc {
                                    pack: pack.to_string(),
                                    offset: n(32),
                                    comp_len: n(40),
                                    raw_len: n(48),
                                },
                            )
                        })
                        .collect());
                }
            }
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(StoreError::io(idx_path.display(), e)),
        }
        self.scan_pack(pack)
    }

    /// Reads a pack's blob headers from the pack itself.
    fn scan_pack(&self, pack: &str) -> Result<Vec<(Hash, Loc)>, StoreError> {
        let path = self.packs_dir().join(format!("{pack}.pack"));
        let bytes = fs::read(&path).map_err(io_at(&path))?;
        let damaged = |reason: &str| StoreError::Damaged {
            what: format!("pack {pack}"),
            reason: reason.to_string(),
        };
        if !bytes.starts_with(PACK_MAGIC) {
            return Err(damaged("bad header"));
        }
        let mut out = Vec::new();
        let mut at = PACK_MAGIC.len();
        while at < bytes.len() {
            let head = bytes.get(at..at + 48).ok_or_else(|| damaged("truncated"))?;
            let mut h = [0u8; 32];
            h.copy_from_slice(&head[..32]);
            let raw_len = u64::from_le_bytes(head[32..40].try_into().unwrap_or([0; 8]));
            let comp_len = u64::from_le_bytes(head[40..48].try_into().unwrap_or([0; 8]));
            let offset = (at + 48) as u64;
            if offset + comp_len > bytes.len() as u64 {
                return Err(damaged("truncated"));
            }
            out.push((
                Hash(h),
                Loc {
                    pack: pack.to_string(),
                    offset,
                    comp_len,
                    raw_len,
                },
            ));
            at = (offset + comp_len) as usize;
        }
        Ok(out)
    }

    fn locate(&self, hash: &Hash) -> Result<Option<Loc>, StoreError> {
        let mut index = self.index.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(loc) = index.blobs.get(hash) {
            return Ok(Some(loc.clone()));
        }
        self.refresh(&mut index)?;
        Ok(index.blobs.get(hash).cloned())
    }

    /// Writes one pack holding `blobs` (compressed bytes ready) and its index.
    fn write_pack(&self, blobs: &[(Hash, u64, Vec<u8>)]) -> Result<(String, u64), StoreError> {
        let name = format!(
            "{:012x}-{:08x}",
            SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .map(|d| d.as_millis())
                .unwrap_or(0),
            rand::random::<u32>()
        );
        let mut pack = Vec::with_capacity(
            PACK_MAGIC.len() + blobs.iter().map(|b| b.2.len() + 48).sum::<usize>(),
        );
        let mut idx = Vec::with_capacity(IDX_MAGIC.len() + blobs.len() * IDX_ROW);
        pack.extend_from_slice(PACK_MAGIC);
        idx.extend_from_slice(IDX_MAGIC);
        let mut locs = Vec::with_capacity(blobs.len());
        for (hash, raw_len, comp) in blobs {
            pack.extend_from_slice(&hash.0);
            pack.extend_from_slice(&raw_len.to_le_bytes());
            pack.extend_from_slice(&(comp.len() as u64).to_le_bytes());
            let offset = pack.len() as u64;
            pack.extend_from_slice(comp);
            idx.extend_from_slice(&hash.0);
            idx.extend_from_slice(&offset.to_le_bytes());
            idx.extend_from_slice(&(comp.len() as u64).to_le_bytes());
            idx.extend_from_slice(&raw_len.to_le_bytes());
            locs.push((
                *hash,
                Loc {
                    pack: name.clone(),
                    offset,
                    comp_len: comp.len() as u64,
                    raw_len: *raw_len,
                },
            ));
        }
        let dir = self.packs_dir();
        let pack_path = dir.join(format!("{name}.pack"));
        // Named by a record, named by the head: the head's sync makes it durable.
        write_atomic_ordered(&pack_path, &pack).map_err(io_at(&pack_path))?;
        // The index is derived from the pack (a scan rebuilds it), so it is
        // not worth a second fsync per park.
        let idx_path = dir.join(format!("{name}.idx"));
        write_atomic_unsynced(&idx_path, &idx).map_err(io_at(&idx_path))?;
        let mut index = self.index.lock().unwrap_or_else(|e| e.into_inner());
        for (h, loc) in locs {
            index.blobs.insert(h, loc);
        }
        index.packs.insert(name.clone());
        Ok((name, pack.len() as u64))
    }

    fn read_comp(&self, loc: &Loc) -> Result<Vec<u8>, StoreError> {
        let path = self.packs_dir().join(format!("{}.pack", loc.pack));
        let file = fs::File::open(&path).map_err(io_at(&path))?;
        let len = usize::try_from(loc.comp_len).map_err(|_| StoreError::Damaged {
            what: format!("pack {}", loc.pack),
            reason: "blob too large".into(),
        })?;
        let mut comp = vec![0u8; len];
        file.read_exact_at(&mut comp, loc.offset)
            .map_err(io_at(&path))?;
        Ok(comp)
    }
}

/// LZ4: restores read every blob, and LZ4 decompresses several times faster
/// than zlib for a compression ratio that is still about 2x on source text.
fn compress(data: &[u8]) -> Vec<u8> {
    lz4_flex::block::compress(data)
}

impl Store for DirStore {
    fn head(&self) -> Result<Option<GenerationId>, StoreError> {
        let path = self.root.join("HEAD");
        match fs::read_to_string(&path) {
            Ok(text) if !text.trim().is_empty() => Ok(Some(GenerationId(text.trim().to_string()))),
            Ok(_) => Ok(None),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(StoreError::io(path.display(), e)),
        }
    }

    fn set_head(
        &self,
        expected: Option<&GenerationId>,
        new: &GenerationId,
    ) -> Result<bool, StoreError> {
        let _lock = self.lock()?;
        if self.head()?.as_ref() != expected {
            return Ok(false);
        }
        let path = self.root.join("HEAD");
        write_atomic(&path, format!("{new}\n").as_bytes()).map_err(io_at(&path))?;
        Ok(true)
    }

    fn read_record(&self, id: &GenerationId) -> Result<Record, StoreError> {
        let path = self.record_path(id);
        let bytes = match fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(StoreError::NoGeneration(id.0.clone()));
            }
            Err(e) => return Err(StoreError::io(path.display(), e)),
        };
        let mut text = Vec::new();
        GzDecoder::new(&bytes[..])
            .read_to_end(&mut text)
            .and_then(|_| serde_json::from_slice::<Record>(&text).map_err(io::Error::other))
            .map_err(|e| StoreError::Damaged {
                what: format!("generation {id}"),
                reason: e.to_string(),
            })
    }

    fn write_record(&self, record: &Record) -> Result<(), StoreError> {
        let json = serde_json::to_vec(record).map_err(|e| StoreError::Damaged {
            what: format!("generation {}", record.id),
            reason: e.to_string(),
        })?;
        let mut enc = GzEncoder::new(Vec::new(), Compression::default());
        let _ = enc.write_all(&json);
        let bytes = enc.finish().unwrap_or_default();
        let path = self.record_path(&record.id);
        // Reachable only once the head names it: the head's sync makes it durable.
        write_atomic_ordered(&path, &bytes).map_err(io_at(&path))
    }

    fn remove_record(&self, id: &GenerationId) -> Result<(), StoreError> {
        let path = self.record_path(id);
        match fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(StoreError::io(path.display(), e)),
        }
    }

    fn read_session(&self, id: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let path = self.session_path(id);
        match fs::read(&path) {
            Ok(b) => Ok(Some(b)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(StoreError::io(path.display(), e)),
        }
    }

    fn write_session(&self, id: &str, record: &[u8]) -> Result<(), StoreError> {
        let path = self.session_path(id);
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir).map_err(|e| StoreError::io(dir.display(), e))?;
        }
        write_atomic_ordered(&path, record).map_err(io_at(&path))
    }

    fn remove_session(&self, id: &str) -> Result<(), StoreError> {
        let path = self.session_path(id);
        match fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(StoreError::io(path.display(), e)),
        }
    }

    fn session_ids(&self) -> Result<Vec<(String, u64)>, StoreError> {
        let dir = self.root.join("sessions");
        match fs::read_dir(&dir) {
            Ok(rd) => Ok(rd
                .flatten()
                .filter_map(|e| {
                    let name = e.file_name().to_string_lossy().into_owned();
                    let id = name.strip_suffix(".json")?.to_string();
                    let age = e
                        .metadata()
                        .ok()
                        .and_then(|m| m.modified().ok())
                        .and_then(|t| t.elapsed().ok())
                        .map_or(0, |d| d.as_secs());
                    Some((id, age))
                })
                .collect()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(StoreError::io(dir.display(), e)),
        }
    }

    fn record_ids(&self) -> Result<Vec<GenerationId>, StoreError> {
        let dir = self.root.join("generations");
        match fs::read_dir(&dir) {
            Ok(rd) => Ok(rd
                .flatten()
                .filter_map(|e| {
                    let name = e.file_name().to_string_lossy().into_owned();
                    name.strip_suffix(".json.gz")
                        .map(|s| GenerationId(s.to_string()))
                })
                .collect()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(StoreError::io(dir.display(), e)),
        }
    }

    fn has_blob(&self, hash: &Hash) -> Result<bool, StoreError> {
        let mut index = self.index.lock().unwrap_or_else(|e| e.into_inner());
        if index.blobs.contains_key(hash) {
            return Ok(true);
        }
        self.refresh(&mut index)?;
        Ok(index.blobs.contains_key(hash))
    }

    fn read_blob(&self, hash: &Hash) -> Result<Vec<u8>, StoreError> {
        let loc = self.locate(hash)?.ok_or(StoreError::MissingBlob(*hash))?;
        let comp = self.read_comp(&loc)?;
        let damaged = |reason: String| StoreError::Damaged {
            what: format!("blob {hash}"),
            reason,
        };
        let raw_len = usize::try_from(loc.raw_len).map_err(|e| damaged(e.to_string()))?;
        let data =
            lz4_flex::block::decompress(&comp, raw_len).map_err(|e| damaged(e.to_string()))?;
        if data.len() as u64 != loc.raw_len || Hash::of(&data) != *hash {
            return Err(damaged("content does not match its hash".into()));
        }
        Ok(data)
    }

    fn write_blobs(&self, blobs: &[(Hash, &[u8])]) -> Result<u64, StoreError> {
        // One look at the packs directory for the whole batch (a miss in
        // `has_blob` rescans it, once per blob).
        let absent: Vec<(Hash, &[u8])> = {
            let mut index = self.index.lock().unwrap_or_else(|e| e.into_inner());
            self.refresh(&mut index)?;
            let mut seen = HashSet::new();
            blobs
                .iter()
                .filter(|(h, _)| !index.blobs.contains_key(h) && seen.insert(*h))
                .map(|(h, d)| (*h, *d))
                .collect()
        };
        let fresh: Vec<_> = absent
            .into_iter()
            .map(|(hash, data)| (hash, data.len() as u64, compress(data)))
            .collect();
        if fresh.is_empty() {
            return Ok(0);
        }
        Ok(self.write_pack(&fresh)?.1)
    }

    fn retain_blobs(&self, keep: &HashSet<Hash>) -> Result<u64, StoreError> {
        let _lock = self.lock()?;
        let mut index = self.index.lock().unwrap_or_else(|e| e.into_inner());
        self.refresh(&mut index)?;
        let mut by_pack: HashMap<String, Vec<(Hash, Loc)>> = HashMap::new();
        for (h, loc) in &index.blobs {
            by_pack
                .entry(loc.pack.clone())
                .or_default()
                .push((*h, loc.clone()));
        }
        drop(index);
        let mut freed = 0;
        for (pack, blobs) in by_pack {
            let pack_path = self.packs_dir().join(format!("{pack}.pack"));
            let young = fs::metadata(&pack_path)
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_none_or(|age| age < self.grace);
            let kept: Vec<_> = blobs.iter().filter(|(h, _)| keep.contains(h)).collect();
            if young || kept.len() == blobs.len() {
                continue;
            }
            let before = fs::metadata(&pack_path).map(|m| m.len()).unwrap_or(0);
            let mut after = 0;
            if !kept.is_empty() {
                let mut rows = Vec::with_capacity(kept.len());
                for (h, loc) in kept {
                    rows.push((*h, loc.raw_len, self.read_comp(loc)?));
                }
                after = self.write_pack(&rows)?.1;
            }
            for ext in ["idx", "pack"] {
                let p = self.packs_dir().join(format!("{pack}.{ext}"));
                let _ = fs::remove_file(&p);
            }
            freed += before.saturating_sub(after);
        }
        // Forget removed packs: the next lookup re-reads what is there.
        *self.index.lock().unwrap_or_else(|e| e.into_inner()) = Index::default();
        Ok(freed)
    }

    fn blob_hashes(&self) -> Result<Vec<Hash>, StoreError> {
        let mut index = self.index.lock().unwrap_or_else(|e| e.into_inner());
        self.refresh(&mut index)?;
        Ok(index.blobs.keys().copied().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blobs_round_trip_and_a_flipped_byte_is_caught() {
        let dir = tempfile::tempdir().unwrap();
        let store = DirStore::new(dir.path());
        let a = Hash::of(b"aaaa");
        let b = Hash::of(b"bbbb");
        assert!(store.write_blobs(&[(a, b"aaaa"), (b, b"bbbb")]).unwrap() > 0);
        assert_eq!(store.write_blobs(&[(a, b"aaaa")]).unwrap(), 0, "dedup");
        // A fresh handle finds them through the index files.
        let again = DirStore::new(dir.path());
        assert_eq!(again.read_blob(&b).unwrap(), b"bbbb");
        let pack = fs::read_dir(dir.path().join("packs"))
            .unwrap()
            .flatten()
            .find(|e| e.file_name().to_string_lossy().ends_with(".pack"))
            .unwrap()
            .path();
        let mut bytes = fs::read(&pack).unwrap();
        let last = bytes.len() - 3;
        bytes[last] ^= 0x40;
        fs::write(&pack, &bytes).unwrap();
        let err = DirStore::new(dir.path()).read_blob(&b).unwrap_err();
        assert!(matches!(err, StoreError::Damaged { .. }), "{err}");
    }

    #[test]
    fn head_moves_only_from_the_expected_generation() {
        let dir = tempfile::tempdir().unwrap();
        let store = DirStore::new(dir.path());
        let one = GenerationId("1".into());
        let two = GenerationId("2".into());
        assert!(store.set_head(None, &one).unwrap());
        assert!(!store.set_head(None, &two).unwrap());
        assert!(store.set_head(Some(&one), &two).unwrap());
        assert_eq!(store.head().unwrap(), Some(two));
    }

    #[test]
    fn retain_drops_unkept_blobs_past_the_grace_period() {
        let dir = tempfile::tempdir().unwrap();
        let store = DirStore::new(dir.path()).with_grace(Duration::ZERO);
        let a = Hash::of(b"keep");
        let b = Hash::of(b"drop");
        store.write_blobs(&[(a, b"keep"), (b, b"drop")]).unwrap();
        store.retain_blobs(&HashSet::from([a])).unwrap();
        assert!(store.has_blob(&a).unwrap());
        assert!(!store.has_blob(&b).unwrap());
        assert_eq!(store.read_blob(&a).unwrap(), b"keep");
    }
}
