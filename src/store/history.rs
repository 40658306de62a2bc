//! [`Generations`]: an agent's history over any [`Store`]: commit (with the
//! merge when another writer moved the head first), resolve `HEAD~N` and
//! prefixes, log, checkout, restore of one path, fork, import and export as
//! `.tgz`, verify and gc.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use sha2::{Digest, Sha256};

use super::manifest::{ChangeStats, Delta, Edit, Entry, Hash, Kind, Manifest};
use super::merge::{self, Conflict};
use super::tarball;
use super::{DirStore, GenerationId, Record, Store, StoreError, StoredManifest};

/// A delta chain longer than this gets a full manifest instead, so reading a
/// generation never replays more than this many records.
const MAX_DELTA_DEPTH: u32 = 64;
/// How often a commit retries when other writers keep moving the head.
const MAX_COMMIT_TRIES: usize = 64;

/// What history `gc` keeps: the newest `keep` generations, and every one
/// younger than `keep_within`, but never more than `max`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Retention {
    /// Generations kept whatever their age.
    pub keep: usize,
    /// Generations younger than this are kept too.
    pub keep_within: Option<Duration>,
    /// The most generations kept.
    pub max: usize,
}

impl Default for Retention {
    /// 50 generations, and a day of history up to 1,000.
    fn default() -> Retention {
        Retention {
            keep: 50,
            keep_within: Some(Duration::from_secs(24 * 3600)),
            max: 1000,
        }
    }
}

impl Retention {
    /// Keeps the newest `keep` and nothing more.
    pub fn newest(keep: usize) -> Retention {
        Retention {
            keep,
            keep_within: None,
            max: keep.max(1),
        }
    }

    /// Sets `keep_within`.
    pub fn within(mut self, age: Option<Duration>) -> Retention {
        self.keep_within = age;
        if age.is_some() {
            self.max = self.max.max(Retention::default().max);
        }
        self
    }
}

/// What a commit did.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Commit {
    /// The new head's record (the old head when nothing changed).
    pub record: Record,
    /// The new head's manifest.
    pub manifest: Arc<Manifest>,
    /// True when another writer had moved the head and ours was merged in.
    pub merged: bool,
    /// Paths both sides changed (empty without a merge).
    pub conflicts: Vec<Conflict>,
    /// False when the tree was already the head's: no generation was made.
    pub created: bool,
}

impl Commit {
    /// A commit that made no generation: `record` (whose tree is `manifest`)
    /// already had the tree.
    fn existing(
        record: Record,
        manifest: Arc<Manifest>,
        merged: bool,
        conflicts: Vec<Conflict>,
    ) -> Commit {
        Commit {
            record,
            manifest,
            merged,
            conflicts,
            created: false,
        }
    }
}

/// The generations of one agent.
///
/// ```
/// use sandkeep::{Generations, Manifest, ManifestEntry};
///
/// let dir = tempfile::tempdir().unwrap();
/// let gens = Generations::in_dir(dir.path());
/// let mut m = Manifest::default();
/// m.entries.insert("a.txt".into(), ManifestEntry::file(b"one"));
/// gens.store().write_blobs(&[(m.entries["a.txt"].hash.unwrap(), b"one")]).unwrap();
/// let first = gens.commit(None, &m, 3, Some("s1"), 0, None).unwrap();
/// assert_eq!(first.record.seq, 1);
/// assert_eq!(gens.resolve("HEAD").unwrap(), first.record.id);
/// ```
#[derive(Clone, Debug)]
pub struct Generations {
    store: Arc<dyn Store>,
    cache: Arc<Mutex<HashMap<GenerationId, Arc<Manifest>>>>,
    records: Arc<Mutex<HashMap<GenerationId, Record>>>,
}

impl Generations {
    /// Generations kept in `store`.
    pub fn new(store: Arc<dyn Store>) -> Generations {
        Generations {
            store,
            cache: Arc::default(),
            records: Arc::default(),
        }
    }

    /// Generations kept in a [`DirStore`] at `dir`.
    pub fn in_dir(dir: impl Into<std::path::PathBuf>) -> Generations {
        Generations::new(Arc::new(DirStore::new(dir)))
    }

    /// The store underneath.
    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    /// The head's record, or `None` when nothing was kept yet.
    pub fn head(&self) -> Result<Option<Record>, StoreError> {
        match self.store.head()? {
            Some(id) => Ok(Some(self.store.read_record(&id)?)),
            None => Ok(None),
        }
    }

    /// One generation's record (records never change once written, except
    /// that gc may store a delta as a full manifest: same tree, same id).
    pub fn record(&self, id: &GenerationId) -> Result<Record, StoreError> {
        let mut cache = self.records.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(r) = cache.get(id) {
            return Ok(r.clone());
        }
        drop(cache);
        let record = self.store.read_record(id)?;
        cache = self.records.lock().unwrap_or_else(|e| e.into_inner());
        if cache.len() >= 16 {
            cache.clear();
        }
        cache.insert(id.clone(), record.clone());
        Ok(record)
    }

    /// One generation's whole manifest (replaying its delta chain).
    pub fn manifest(&self, id: &GenerationId) -> Result<Arc<Manifest>, StoreError> {
        if let Some(m) = self.cache_get(id) {
            return Ok(m);
        }
        let mut deltas = Vec::new();
        let mut at = id.clone();
        let mut manifest = loop {
            if let Some(m) = self.cache_get(&at) {
                break (*m).clone();
            }
            let record = self.store.read_record(&at)?;
            match record.manifest {
                StoredManifest::Full(m) => break m,
                StoredManifest::Delta { base, delta } => {
                    deltas.push(delta);
                    if deltas.len() > MAX_DELTA_DEPTH as usize * 4 {
                        return Err(StoreError::Damaged {
                            what: format!("generation {id}"),
                            reason: "its delta chain does not end".into(),
                        });
                    }
                    at = base;
                }
            }
        };
        for d in deltas.iter().rev() {
            d.apply(&mut manifest);
        }
        let manifest = Arc::new(manifest);
        self.cache_put(id, manifest.clone());
        Ok(manifest)
    }

    fn cache_get(&self, id: &GenerationId) -> Option<Arc<Manifest>> {
        self.cache
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(id)
            .cloned()
    }

    fn cache_put(&self, id: &GenerationId, m: Arc<Manifest>) {
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if cache.len() >= 8 {
            cache.clear();
        }
        cache.insert(id.clone(), m);
    }

    /// Resolves `HEAD`, `HEAD~N`, a full id or a unique prefix of one.
    pub fn resolve(&self, spec: &str) -> Result<GenerationId, StoreError> {
        let spec = spec.trim();
        if let Some(rest) = spec.strip_prefix("HEAD") {
            let back: usize = match rest {
                "" => 0,
                r => r
                    .strip_prefix('~')
                    .and_then(|n| {
                        if n.is_empty() {
                            Some(1)
                        } else {
                            n.parse().ok()
                        }
                    })
                    .ok_or_else(|| StoreError::NoGeneration(spec.to_string()))?,
            };
            let mut id = self.store.head()?.ok_or(StoreError::Empty)?;
            for _ in 0..back {
                let record = self.store.read_record(&id)?;
                id = record
                    .parents
                    .first()
                    .cloned()
                    .ok_or_else(|| StoreError::NoGeneration(spec.to_string()))?;
            }
            return Ok(id);
        }
        if spec.is_empty() || !spec.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(StoreError::NoGeneration(spec.to_string()));
        }
        let matches: Vec<_> = self
            .store
            .record_ids()?
            .into_iter()
            .filter(|id| id.0.starts_with(spec))
            .collect();
        match matches.len() {
            0 => Err(StoreError::NoGeneration(spec.to_string())),
            1 => Ok(matches.into_iter().next().unwrap_or_else(|| unreachable!())),
            _ => Err(StoreError::Ambiguous(spec.to_string())),
        }
    }

    /// The head and its first parents, newest first, at most `limit` (the
    /// walk stops where gc removed older history).
    pub fn log(&self, limit: usize) -> Result<Vec<Record>, StoreError> {
        let mut out = Vec::new();
        let mut next = self.store.head()?;
        while let Some(id) = next {
            if out.len() >= limit {
                break;
            }
            let record = match self.store.read_record(&id) {
                Ok(r) => r,
                Err(StoreError::NoGeneration(_)) if !out.is_empty() => break,
                Err(e) => return Err(e),
            };
            next = record.parents.first().cloned();
            out.push(record);
        }
        Ok(out)
    }

    /// A record for `tree`, whose change from its first parent's tree is
    /// `changes` (the parent's record, the delta and the diff counts).
    fn build_record(
        &self,
        parents: Vec<GenerationId>,
        parent: Option<(&Record, Delta, ChangeStats)>,
        tree: &Manifest,
        tree_hash: Hash,
        fields: RecordFields<'_>,
    ) -> Record {
        let created = crate::timestamp::unix_now();
        let seq = parent.as_ref().map(|p| p.0.seq + 1).unwrap_or(1);
        let mut h = Sha256::new();
        h.update(seq.to_le_bytes());
        for p in &parents {
            h.update(p.0.as_bytes());
        }
        h.update(fields.session.unwrap_or("").as_bytes());
        h.update(created.to_le_bytes());
        h.update(tree_hash.0);
        h.update(rand::random::<u64>().to_le_bytes());
        let id = GenerationId(hex::encode(&h.finalize()[..8]));
        let (depth, manifest, mut stats) = match parent {
            Some((p, delta, stats)) if p.depth < MAX_DELTA_DEPTH => (
                p.depth + 1,
                StoredManifest::Delta {
                    base: p.id.clone(),
                    delta,
                },
                stats,
            ),
            Some((_, _, stats)) => (0, StoredManifest::Full(tree.clone()), stats),
            None => (
                0,
                StoredManifest::Full(tree.clone()),
                ChangeStats::of(&Manifest::default().diff(tree)),
            ),
        };
        stats.bytes_new = fields.bytes_new;
        Record {
            id,
            seq,
            parents,
            session: fields.session.map(str::to_string),
            created,
            listed_at: fields.listed_at,
            tree: tree_hash,
            stats,
            note: fields.note.map(str::to_string),
            depth,
            manifest,
        }
    }

    /// Every file's blob must be stored before a record names it.
    fn check_blobs(&self, tree: &Manifest) -> Result<(), StoreError> {
        self.check_entries(tree.entries.values())
    }

    fn check_entries<'a>(
        &self,
        entries: impl Iterator<Item = &'a Entry>,
    ) -> Result<(), StoreError> {
        for e in entries {
            if let Some(h) = &e.hash
                && !self.store.has_blob(h)?
            {
                return Err(StoreError::MissingBlob(*h));
            }
        }
        Ok(())
    }

    /// Commits `ours`, a tree made from generation `base` (`None`: from
    /// nothing), whose new blobs are already stored (`bytes_new` of them).
    /// If the head is still `base`, ours becomes the head; if another writer
    /// moved it, ours is merged into the head against `base` and the merge
    /// becomes the head, its record naming both parents.
    pub fn commit(
        &self,
        base: Option<&GenerationId>,
        ours: &Manifest,
        bytes_new: u64,
        session: Option<&str>,
        listed_at: i64,
        note: Option<&str>,
    ) -> Result<Commit, StoreError> {
        let ours = Arc::new(ours.clone());
        self.commit_inner(base, None, ours, bytes_new, session, listed_at, note)
    }

    /// [`Generations::commit`] for a session whose tree derives from
    /// `base_tree` rather than from `base`'s manifest (after its previous park
    /// was merged, the head holds other sessions' files its sandbox lacks):
    /// ours then always merges against `base_tree`.
    pub fn commit_from(
        &self,
        base: Option<&GenerationId>,
        base_tree: Option<(Arc<Manifest>, Hash)>,
        ours: Arc<Manifest>,
        bytes_new: u64,
        session: Option<&str>,
        listed_at: i64,
    ) -> Result<Commit, StoreError> {
        self.commit_inner(base, base_tree, ours, bytes_new, session, listed_at, None)
    }

    /// [`Generations::commit_from`] for a tree edited in place: `ours` is
    /// generation `base`'s tree (whose hash is `base_hash`) with `edit`
    /// applied. While the head is still `base`, the commit costs the edit,
    /// not the tree: only the edited entries' blobs are checked and the
    /// record's delta and counts come from the edit. Otherwise the base tree
    /// is rebuilt from the edit and the commit merges as any other.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use sandkeep::{Edit, Generations, Manifest, ManifestEntry};
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// let gens = Generations::in_dir(dir.path());
    /// let mut tree = Manifest::default();
    /// tree.entries.insert("a".into(), ManifestEntry::file(b"one"));
    /// gens.store().write_blobs(&[(tree.entries["a"].hash.unwrap(), b"one")]).unwrap();
    /// let first = gens.commit(None, &tree, 3, None, 0, None).unwrap().record;
    /// let mut edit = Edit::default();
    /// edit.insert(&mut tree, "b".into(), ManifestEntry::file(b"two"));
    /// gens.store().write_blobs(&[(tree.entries["b"].hash.unwrap(), b"two")]).unwrap();
    /// let second = gens
    ///     .commit_edit(&first.id, first.tree, Arc::new(tree), &edit, 3, None, 0)
    ///     .unwrap();
    /// assert_eq!(second.record.stats.to_string(), "+1 ~0 -0");
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub fn commit_edit(
        &self,
        base: &GenerationId,
        base_hash: Hash,
        ours: Arc<Manifest>,
        edit: &Edit,
        bytes_new: u64,
        session: Option<&str>,
        listed_at: i64,
    ) -> Result<Commit, StoreError> {
        self.check_entries(edit.paths().filter_map(|p| ours.entries.get(p)))?;
        let ours_hash = ours.tree_hash();
        if self.store.head()?.as_ref() == Some(base) {
            let head = self.record(base)?;
            if head.tree == base_hash {
                if ours_hash == base_hash {
                    return Ok(Commit::existing(head, ours, false, Vec::new()));
                }
                let fields = RecordFields {
                    session,
                    listed_at,
                    bytes_new,
                    note: None,
                };
                let changes = (&head, edit.delta(&ours), ChangeStats::of(&edit.diff(&ours)));
                let record =
                    self.build_record(vec![base.clone()], Some(changes), &ours, ours_hash, fields);
                if let Some(commit) =
                    self.publish(Some(base), record, ours.clone(), false, Vec::new())?
                {
                    return Ok(commit);
                }
            }
        }
        // Another writer moved the head: merge against the tree we started from.
        let mut base_tree = (*ours).clone();
        edit.revert(&mut base_tree);
        let base_tree = Some((Arc::new(base_tree), base_hash));
        self.commit_inner(
            Some(base),
            base_tree,
            ours,
            bytes_new,
            session,
            listed_at,
            None,
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn commit_inner(
        &self,
        base: Option<&GenerationId>,
        base_tree: Option<(Arc<Manifest>, Hash)>,
        ours: Arc<Manifest>,
        bytes_new: u64,
        session: Option<&str>,
        listed_at: i64,
        note: Option<&str>,
    ) -> Result<Commit, StoreError> {
        self.check_blobs(&ours)?;
        let (base_manifest, base_tree_hash) = match (base_tree, base) {
            (Some((t, h)), _) => (Some(t), Some(h)),
            (None, Some(b)) => (Some(self.manifest(b)?), Some(self.record(b)?.tree)),
            (None, None) => (None, None),
        };
        let ours_hash = ours.tree_hash();
        for _ in 0..MAX_COMMIT_TRIES {
            let head = self.store.head()?;
            let head_record = match &head {
                Some(id) => Some(self.record(id)?),
                None => None,
            };
            let merged = head.as_ref() != base
                || matches!((&head_record, base_tree_hash), (Some(r), Some(h)) if r.tree != h);
            if !merged
                && let Some(r) = &head_record
                && r.tree == ours_hash
            {
                return Ok(Commit::existing(r.clone(), ours, merged, Vec::new()));
            }
            let head_manifest = match &head {
                Some(id) => Some(self.manifest(id)?),
                None => None,
            };
            let (tree, tree_hash, conflicts) = if merged {
                let empty = Manifest::default();
                let (tree, conflicts) = merge::merge(
                    base_manifest.as_deref().unwrap_or(&empty),
                    head_manifest.as_deref().unwrap_or(&empty),
                    &ours,
                    session.unwrap_or("unknown"),
                );
                let hash = tree.tree_hash();
                (Arc::new(tree), hash, conflicts)
            } else {
                (ours.clone(), ours_hash, Vec::new())
            };
            if let (Some(r), Some(m)) = (&head_record, &head_manifest)
                && r.tree == tree_hash
            {
                return Ok(Commit::existing(r.clone(), m.clone(), merged, conflicts));
            }
            let mut parents: Vec<GenerationId> = head.iter().cloned().collect();
            if merged && let Some(b) = base {
                parents.push(b.clone());
            }
            let parent = head_record
                .as_ref()
                .zip(head_manifest.as_deref())
                .map(|(r, m)| (r, Delta::between(m, &tree), ChangeStats::of(&m.diff(&tree))));
            let note = note.or(merged.then_some("merge of two sessions"));
            let fields = RecordFields {
                session,
                listed_at,
                bytes_new,
                note,
            };
            let record = self.build_record(parents, parent, &tree, tree_hash, fields);
            if let Some(commit) = self.publish(head.as_ref(), record, tree, merged, conflicts)? {
                return Ok(commit);
            }
        }
        Err(StoreError::Damaged {
            what: "the head".into(),
            reason: format!("it kept moving: {MAX_COMMIT_TRIES} tries"),
        })
    }

    /// Writes `record` (whose tree is `tree`) and moves the head to it if the
    /// head is still `expected`; `None` when another writer moved the head
    /// first.
    ///
    /// The losing record is left where it is, for gc to collect: a head
    /// move whose answer was lost may have landed after all and been built
    /// on by another writer, and deleting a record a head (or a delta) names
    /// would leave that agent unreadable.
    fn publish(
        &self,
        expected: Option<&GenerationId>,
        record: Record,
        tree: Arc<Manifest>,
        merged: bool,
        conflicts: Vec<Conflict>,
    ) -> Result<Option<Commit>, StoreError> {
        self.store.write_record(&record)?;
        if !self.store.set_head(expected, &record.id)? {
            return Ok(None);
        }
        self.cache_put(&record.id, tree.clone());
        Ok(Some(Commit {
            record,
            manifest: tree,
            merged,
            conflicts,
            created: true,
        }))
    }

    /// Writes `tree` as a generation the head does not move to (a session
    /// whose restore failed keeps its work there, never over the head).
    pub fn commit_detached(
        &self,
        tree: &Manifest,
        bytes_new: u64,
        session: Option<&str>,
        listed_at: i64,
        note: &str,
    ) -> Result<Record, StoreError> {
        self.check_blobs(tree)?;
        let fields = RecordFields {
            session,
            listed_at,
            bytes_new,
            note: Some(note),
        };
        let record = self.build_record(Vec::new(), None, tree, tree.tree_hash(), fields);
        self.store.write_record(&record)?;
        Ok(record)
    }

    /// A new head whose tree is `generation`'s: a rollback that keeps history.
    pub fn checkout(&self, generation: &GenerationId) -> Result<Commit, StoreError> {
        let tree = self.manifest(generation)?;
        let listed_at = self.store.read_record(generation)?.listed_at;
        let head = self.store.head()?;
        let note = format!("checkout of {generation}");
        self.commit_inner(head.as_ref(), None, tree, 0, None, listed_at, Some(&note))
    }

    /// A new head that is the current one with `path` (and what is below it)
    /// as it was in `generation`.
    pub fn restore_path(
        &self,
        generation: &GenerationId,
        path: &str,
    ) -> Result<Commit, StoreError> {
        let path = path.trim_matches('/');
        let from = self.manifest(generation)?;
        let head = self.store.head()?.ok_or(StoreError::Empty)?;
        let mut tree = (*self.manifest(&head)?).clone();
        let restored = from.subtree(path);
        if restored.entries.is_empty() {
            return Err(StoreError::NoGeneration(format!("{generation}:{path}")));
        }
        for p in tree.subtree(path).entries.keys() {
            tree.entries.remove(p);
        }
        tree.entries.extend(restored.entries);
        tarball::add_missing_parents(&mut tree);
        let note = format!("restore of {path} from {generation}");
        self.commit(Some(&head), &tree, 0, None, 0, Some(&note))
    }

    /// Starts `to` (another agent's generations) from `generation` of ours:
    /// the blobs are copied and `to` gets a new head with that tree.
    pub fn fork_to(
        &self,
        to: &Generations,
        generation: &GenerationId,
    ) -> Result<Commit, StoreError> {
        let tree = self.manifest(generation)?;
        // One pack for the whole fork, not one per blob.
        let mut missing = Vec::new();
        for h in tree.entries.values().filter_map(|e| e.hash.as_ref()) {
            if !to.store.has_blob(h)? {
                missing.push((*h, self.store.read_blob(h)?));
            }
        }
        let refs: Vec<(Hash, &[u8])> = missing.iter().map(|(h, d)| (*h, d.as_slice())).collect();
        let bytes = to.store.write_blobs(&refs)?;
        let head = to.store.head()?;
        let note = format!("fork of {generation}");
        to.commit(head.as_ref(), &tree, bytes, None, 0, Some(&note))
    }

    /// Imports a `.tgz` (the seed's format, or `archive export`'s) as a new head.
    pub fn import_tgz(&self, bytes: &[u8], note: &str) -> Result<Commit, StoreError> {
        let (tree, blobs) = tarball::manifest_from_tar(bytes, true)?;
        let refs: Vec<(Hash, &[u8])> = blobs.iter().map(|(h, d)| (*h, d.as_slice())).collect();
        let written = self.store.write_blobs(&refs)?;
        let head = self.store.head()?;
        self.commit(head.as_ref(), &tree, written, None, 0, Some(note))
    }

    /// `generation` as an uncompressed tar (uid/gid as given): the whole
    /// tree, or only `below` (a path, and what is under it, with its parents).
    pub fn tar(
        &self,
        generation: &GenerationId,
        below: Option<&str>,
        uid: u64,
    ) -> Result<Vec<u8>, StoreError> {
        let mut tree = self.manifest(generation)?;
        if let Some(path) = below.map(|p| p.trim_matches('/')) {
            let mut part = tree.subtree(path);
            if part.entries.is_empty() {
                return Err(StoreError::NoGeneration(format!("{generation}:{path}")));
            }
            for a in crate::archive::tree::ancestors(path) {
                if let Some(e) = tree.entries.get(a) {
                    part.entries.insert(a.to_string(), e.clone());
                }
            }
            tree = Arc::new(part);
        }
        let blobs = self.read_blobs(&tree)?;
        tarball::write_tar(
            &tree,
            uid,
            &|h| blobs.get(h).cloned().ok_or(StoreError::MissingBlob(*h)),
            Vec::new(),
        )
    }

    /// Every blob `tree` names, read (and verified) on two threads: a restore
    /// reads them all, and decompression and hashing dominate it.
    fn read_blobs(&self, tree: &Manifest) -> Result<HashMap<Hash, Vec<u8>>, StoreError> {
        let hashes: Vec<Hash> = tree
            .entries
            .values()
            .filter_map(|e| e.hash)
            .collect::<HashSet<_>>()
            .into_iter()
            .collect();
        let (left, right) = hashes.split_at(hashes.len() / 2);
        let read = |part: &[Hash]| -> Result<Vec<(Hash, Vec<u8>)>, StoreError> {
            part.iter()
                .map(|h| Ok((*h, self.store.read_blob(h)?)))
                .collect()
        };
        let (a, b) = std::thread::scope(|s| {
            let other = s.spawn(|| read(right));
            let mine = read(left);
            (mine, other.join())
        });
        let b =
            b.map_err(|_| StoreError::io("a blob reader", std::io::Error::other("panicked")))?;
        Ok(a?.into_iter().chain(b?).collect())
    }

    /// `generation` as a `.tgz` GNU tar reads.
    pub fn export_tgz(&self, generation: &GenerationId) -> Result<Vec<u8>, StoreError> {
        let tree = self.manifest(generation)?;
        let store = self.store.clone();
        let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        let mut gz = tarball::write_tar(&tree, 0, &|h| store.read_blob(h), gz)?;
        gz.flush()
            .and_then(|_| gz.finish())
            .map_err(|e| StoreError::io("the export", e))
    }

    /// Checks every stored generation: its record decodes, its manifest
    /// replays, every file's blob is there and hashes right. Returns one line
    /// per problem (`generation ID: PATH: REASON`); empty when all is well.
    pub fn verify(&self) -> Result<Vec<String>, StoreError> {
        let mut problems = Vec::new();
        let mut checked: HashMap<Hash, Option<String>> = HashMap::new();
        let mut ids = self.store.record_ids()?;
        ids.sort();
        if let Some(head) = self.store.head()?
            && !ids.contains(&head)
        {
            problems.push(format!(
                "HEAD names {head}, which is not stored (`archive repair` re-points it)"
            ));
        }
        for id in ids {
            let tree = match self.manifest(&id) {
                Ok(t) => t,
                Err(e) => {
                    problems.push(format!("generation {id}: {e}"));
                    continue;
                }
            };
            for (path, e) in &tree.entries {
                let Some(h) = e.hash else { continue };
                let verdict = checked
                    .entry(h)
                    .or_insert_with(|| self.store.read_blob(&h).err().map(|e| e.to_string()));
                if let Some(reason) = verdict {
                    problems.push(format!("generation {id}: {path}: {reason}"));
                }
            }
        }
        Ok(problems)
    }

    /// Re-points a head whose generation cannot be read whole (its record
    /// missing or damaged, or one of its blobs missing) to the newest
    /// generation that can, by sequence number then time; `None` when the
    /// head is sound (or there is none). Detached generations kept after a
    /// failed restore are never chosen.
    ///
    /// # Errors
    ///
    /// [`StoreError::Damaged`] when no stored generation reads whole, or when
    /// another writer moved the head meanwhile (it is no longer the broken
    /// one); a store error as it comes.
    ///
    /// ```
    /// use sandkeep::{Generations, GenerationId, Manifest, ManifestEntry};
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// let gens = Generations::in_dir(dir.path());
    /// let mut m = Manifest::default();
    /// m.entries.insert("a".into(), ManifestEntry::file(b"one"));
    /// gens.store().write_blobs(&[(m.entries["a"].hash.unwrap(), b"one")]).unwrap();
    /// let good = gens.commit(None, &m, 3, None, 0, None).unwrap().record.id;
    /// let lost = GenerationId("00000000deadbeef".into());
    /// assert!(gens.store().set_head(Some(&good), &lost).unwrap());
    /// let repair = gens.repair().unwrap().unwrap();
    /// assert_eq!((repair.broken, repair.head), (lost, good.clone()));
    /// assert!(gens.verify().unwrap().is_empty());
    /// assert!(gens.repair().unwrap().is_none());
    /// ```
    pub fn repair(&self) -> Result<Option<Repair>, StoreError> {
        let Some(head) = self.store.head()? else {
            return Ok(None);
        };
        let Some(reason) = self.unreadable(&head)? else {
            return Ok(None);
        };
        let mut candidates: Vec<Record> = self
            .store
            .record_ids()?
            .iter()
            .filter(|id| **id != head)
            .filter_map(|id| self.store.read_record(id).ok())
            .filter(|r| {
                !r.note
                    .as_deref()
                    .is_some_and(|n| n.starts_with(RESTORE_FAILED_NOTE))
            })
            .collect();
        candidates.sort_by_key(|r| std::cmp::Reverse((r.seq, r.created)));
        for candidate in candidates {
            if self.unreadable(&candidate.id)?.is_some() {
                continue;
            }
            if !self.store.set_head(Some(&head), &candidate.id)? {
                return Err(StoreError::Damaged {
                    what: "the head".into(),
                    reason: "another writer moved it during the repair".into(),
                });
            }
            return Ok(Some(Repair {
                broken: head,
                reason,
                head: candidate.id,
            }));
        }
        Err(StoreError::Damaged {
            what: format!("the head {head}"),
            reason: format!("{reason}, and no stored generation reads whole"),
        })
    }

    /// Why generation `id` cannot be restored, or `None` when it can (its
    /// manifest replays and every blob it names is stored). Store errors
    /// that say nothing about the generation (I/O) are returned as errors.
    fn unreadable(&self, id: &GenerationId) -> Result<Option<String>, StoreError> {
        let tree = match self.manifest(id) {
            Ok(t) => t,
            Err(e @ (StoreError::NoGeneration(_) | StoreError::Damaged { .. })) => {
                return Ok(Some(e.to_string()));
            }
            Err(e) => return Err(e),
        };
        for (path, e) in &tree.entries {
            if let Some(h) = &e.hash
                && !self.store.has_blob(h)?
            {
                return Ok(Some(format!("{path}: blob {h} is missing")));
            }
        }
        Ok(None)
    }

    /// Removes the generations `retention` does not keep and the blobs no
    /// kept generation holds.
    pub fn gc(&self, retention: Retention) -> Result<GcReport, StoreError> {
        let chain = self.log(usize::MAX)?;
        let now = crate::timestamp::unix_now();
        let young = |r: &Record| {
            retention
                .keep_within
                .is_some_and(|age| now - r.created <= age.as_secs() as i64)
        };
        let mut kept = 0;
        for (i, r) in chain.iter().enumerate() {
            if i < retention.keep.max(1) || (young(r) && i < retention.max) {
                kept = i + 1;
            } else {
                break;
            }
        }
        let keep_ids: HashSet<GenerationId> = chain[..kept].iter().map(|r| r.id.clone()).collect();
        // The oldest kept generation must not depend on one that goes.
        if let Some(oldest) = chain.get(kept.wrapping_sub(1))
            && kept < chain.len()
            && oldest.depth > 0
        {
            let mut full = oldest.clone();
            full.manifest = StoredManifest::Full((*self.manifest(&oldest.id)?).clone());
            full.depth = 0;
            self.store.write_record(&full)?;
        }
        let mut removed = 0;
        for id in self.store.record_ids()? {
            if keep_ids.contains(&id) {
                continue;
            }
            let on_chain = chain.iter().any(|r| r.id == id);
            let record = self.store.read_record(&id).ok();
            let old_detached = record.as_ref().is_none_or(|r| !young(r));
            if on_chain || old_detached {
                self.store.remove_record(&id)?;
                removed += 1;
            }
        }
        self.cache.lock().unwrap_or_else(|e| e.into_inner()).clear();
        let mut blobs = HashSet::new();
        for id in self.store.record_ids()? {
            for e in self.manifest(&id)?.entries.values() {
                if e.kind == Kind::File
                    && let Some(h) = e.hash
                {
                    blobs.insert(h);
                }
            }
        }
        let freed = self.store.retain_blobs(&blobs)?;
        // A parked session's record lives as long as a young generation:
        // past `keep_within` its session is long expired on every worker.
        let mut sessions_removed = 0;
        if let Some(age) = retention.keep_within {
            for (id, secs) in self.store.session_ids()? {
                if secs > age.as_secs() {
                    self.store.remove_session(&id)?;
                    sessions_removed += 1;
                }
            }
        }
        Ok(GcReport {
            kept,
            removed,
            freed_bytes: freed,
            sessions_removed,
        })
    }
}

/// The note that starts a detached generation kept after a failed restore.
pub(crate) const RESTORE_FAILED_NOTE: &str = "the restore had failed";

/// What [`Generations::repair`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Repair {
    /// The generation the head named, which could not be read whole.
    pub broken: GenerationId,
    /// Why it could not.
    pub reason: String,
    /// The generation the head names now.
    pub head: GenerationId,
}

struct RecordFields<'a> {
    session: Option<&'a str>,
    listed_at: i64,
    bytes_new: u64,
    note: Option<&'a str>,
}

/// What [`Generations::gc`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct GcReport {
    /// Generations kept on the head's history.
    pub kept: usize,
    /// Generation records removed.
    pub removed: usize,
    /// Bytes of packs freed.
    pub freed_bytes: u64,
    /// Parked sessions' records removed (older than the retention's
    /// `keep_within`; completed sessions remove their own).
    pub sessions_removed: usize,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Entry;

    fn tree(files: &[(&str, &str)]) -> Manifest {
        let mut m = Manifest::default();
        for (p, d) in files {
            m.entries.insert(p.to_string(), Entry::file(d.as_bytes()));
        }
        m
    }

    fn put(g: &Generations, files: &[(&str, &str)]) {
        for (_, d) in files {
            g.store()
                .write_blobs(&[(Hash::of(d.as_bytes()), d.as_bytes())])
                .unwrap();
        }
    }

    #[test]
    fn concurrent_commits_from_one_base_merge() {
        let dir = tempfile::tempdir().unwrap();
        let g = Generations::in_dir(dir.path());
        let files = [("a", "1"), ("x", "X"), ("y", "Y"), ("a2", "2")];
        put(&g, &files);
        let base = g
            .commit(None, &tree(&[("a", "1")]), 0, Some("s0"), 0, None)
            .unwrap();
        let id = base.record.id.clone();
        let one = g
            .commit(
                Some(&id),
                &tree(&[("a", "1"), ("x", "X")]),
                0,
                Some("s1"),
                0,
                None,
            )
            .unwrap();
        assert!(!one.merged);
        let two = g
            .commit(
                Some(&id),
                &tree(&[("a", "2"), ("y", "Y")]),
                0,
                Some("s2"),
                0,
                None,
            )
            .unwrap();
        assert!(two.merged && two.conflicts.is_empty());
        assert_eq!(two.record.parents, [one.record.id.clone(), id.clone()]);
        let names: Vec<_> = two.manifest.entries.keys().cloned().collect();
        assert_eq!(names, ["a", "x", "y"]);
        assert_eq!(g.resolve("HEAD~2").unwrap(), id);
        assert_eq!(g.log(10).unwrap().len(), 3);
        assert_eq!(g.resolve(&id.0[..6]).unwrap(), id);
    }

    #[test]
    fn gc_keeps_the_newest_and_they_still_read() {
        let dir = tempfile::tempdir().unwrap();
        let g = Generations::new(Arc::new(
            DirStore::new(dir.path()).with_grace(Duration::ZERO),
        ));
        let mut head = None;
        for i in 0..10 {
            let text = format!("v{i}");
            put(&g, &[("f", &text)]);
            let c = g
                .commit(head.as_ref(), &tree(&[("f", &text)]), 0, None, 0, None)
                .unwrap();
            head = Some(c.record.id);
        }
        let report = g.gc(Retention::newest(3)).unwrap();
        assert_eq!((report.kept, report.removed), (3, 7));
        assert!(g.verify().unwrap().is_empty());
        let oldest = g.resolve("HEAD~2").unwrap();
        let m = g.manifest(&oldest).unwrap();
        assert_eq!(
            g.store().read_blob(&m.entries["f"].hash.unwrap()).unwrap(),
            b"v7"
        );
        assert!(!g.store().has_blob(&Hash::of(b"v0")).unwrap());
    }
}
