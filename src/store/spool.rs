//! The spool: parks that could not reach a shared store, kept on the host
//! until it answers again.
//!
//! When a session's park cannot write to the agent's store (object storage
//! that does not answer), the workspace-sync hook writes the session's whole
//! tree here instead: under `DATA/agents/NAME/spool/SESSION/`, a
//! [`DirStore`] with the tree's blobs and one detached generation, and
//! `spool.json` naming the generation the session's workspace was based on.
//! [`Spool::upload`] later copies the blobs that the store lacks and commits
//! the tree on that base, so it merges with whatever other sessions kept
//! meanwhile, exactly as a park that had gone through would have. One
//! session has at most one spooled tree: a newer park replaces it, and a
//! park that reached the store removes it (it holds everything the spool
//! held).
//!
//! Writes are atomic: a spool is built in a temporary folder and renamed
//! into place, so a crash leaves the old spool or the new one.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::dir::io_at;
use super::{
    DirStore, GenerationId, Generations, Hash, Manifest, RESTORE_FAILED_NOTE, Record, Store,
    StoreError,
};

/// The sidecar file of one spooled park.
const META: &str = "spool.json";

/// What `spool.json` holds.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Meta {
    /// The session that parked.
    session: String,
    /// The generation its workspace was based on (`None`: the agent had none).
    base: Option<GenerationId>,
    /// The spooled generation in the spool's own store.
    generation: GenerationId,
    /// Seconds since the epoch when it was spooled.
    spooled_at: i64,
    /// Why the store was not written.
    reason: String,
    /// The session's restore had failed: its tree goes beside the head,
    /// never over it (a session whose restore failed never moves the head).
    #[serde(default)]
    detached: bool,
}

/// One spooled park, as listed by [`Spool::pending`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Spooled {
    /// The session that parked.
    pub session: String,
    /// Where it is kept.
    pub dir: PathBuf,
    /// The generation its workspace was based on.
    pub base: Option<GenerationId>,
    /// Seconds since the epoch when it was spooled.
    pub spooled_at: i64,
    /// Why the store was not written.
    pub reason: String,
}

/// One agent's spool (`DATA/agents/NAME/spool`).
///
/// ```
/// use sandkeep::{Generations, Manifest, ManifestEntry, Spool};
///
/// let dir = tempfile::tempdir().unwrap();
/// let spool = Spool::new(dir.path().join("spool"));
/// let mut tree = Manifest::default();
/// tree.entries.insert("a.txt".into(), ManifestEntry::file(b"kept"));
/// let blobs = vec![(tree.entries["a.txt"].hash.unwrap(), b"kept".to_vec())];
/// spool.write("s1", None, false, &tree, &blobs, 0, "the store did not answer").unwrap();
/// assert_eq!(spool.pending().unwrap().len(), 1);
///
/// let store = Generations::in_dir(dir.path().join("store"));
/// let record = spool.upload("s1", &store).unwrap();
/// assert_eq!(store.head().unwrap().unwrap().id, record.id);
/// assert!(spool.pending().unwrap().is_empty());
/// ```
#[derive(Clone, Debug)]
pub struct Spool {
    dir: PathBuf,
}

/// A session id as a folder name: ids are made by sandkeep, but a spool
/// must never write outside its folder whatever it is given.
fn folder_name(session: &str) -> String {
    let safe = !session.is_empty()
        && session.len() <= 128
        && !session.starts_with('.')
        && session
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    if safe {
        session.to_string()
    } else {
        format!("h-{}", &Hash::of(session.as_bytes()).to_string()[..32])
    }
}

impl Spool {
    /// The spool kept in `dir` (created on first write).
    pub fn new(dir: impl Into<PathBuf>) -> Spool {
        Spool { dir: dir.into() }
    }

    /// Its folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Keeps `tree` (whose file contents are in `blobs`) as session
    /// `session`'s park on `base` (`None` with `detached`: a session whose
    /// restore had failed, whose tree is uploaded beside the head), replacing
    /// what that session spooled before; returns the spooled generation's id.
    ///
    /// # Errors
    ///
    /// A host I/O error when the spool cannot be written; nothing is kept
    /// then, and the previous spool of the session, if any, stays.
    #[allow(clippy::too_many_arguments)]
    pub fn write(
        &self,
        session: &str,
        base: Option<&GenerationId>,
        detached: bool,
        tree: &Manifest,
        blobs: &[(Hash, Vec<u8>)],
        listed_at: i64,
        reason: &str,
    ) -> Result<GenerationId, StoreError> {
        std::fs::create_dir_all(&self.dir).map_err(io_at(&self.dir))?;
        let name = folder_name(session);
        let tmp = self.dir.join(format!(
            ".new-{name}-{:08x}",
            crate::ids::cheap_random_u32()
        ));
        let result = (|| {
            let store = Arc::new(DirStore::new(&tmp));
            let refs: Vec<(Hash, &[u8])> = blobs.iter().map(|(h, d)| (*h, d.as_slice())).collect();
            let bytes = store.write_blobs(&refs)?;
            let record = Generations::new(store).commit_detached(
                tree,
                bytes,
                Some(session),
                listed_at,
                &format!("spooled park of session {session}"),
            )?;
            let meta = Meta {
                session: session.to_string(),
                base: base.cloned(),
                generation: record.id.clone(),
                spooled_at: crate::timestamp::unix_now(),
                reason: reason.to_string(),
                detached,
            };
            let json = serde_json::to_vec_pretty(&meta).map_err(|e| StoreError::Damaged {
                what: "a spool record".into(),
                reason: e.to_string(),
            })?;
            let meta_path = tmp.join(META);
            crate::archive::atomic::write_atomic(&meta_path, &json).map_err(io_at(&meta_path))?;
            self.replace(&name, &tmp)?;
            Ok(record.id)
        })();
        if result.is_err() {
            let _ = std::fs::remove_dir_all(&tmp);
        }
        result
    }

    /// Moves the finished folder `tmp` to `name`, the old one out of the way
    /// first (a rename cannot replace a non-empty folder).
    fn replace(&self, name: &str, tmp: &Path) -> Result<(), StoreError> {
        let target = self.dir.join(name);
        let old = self.dir.join(format!(
            ".old-{name}-{:08x}",
            crate::ids::cheap_random_u32()
        ));
        let had_old = match std::fs::rename(&target, &old) {
            Ok(()) => true,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
            Err(e) => return Err(StoreError::io(target.display(), e)),
        };
        if let Err(e) = std::fs::rename(tmp, &target) {
            if had_old {
                let _ = std::fs::rename(&old, &target);
            }
            return Err(StoreError::io(target.display(), e));
        }
        if had_old {
            let _ = std::fs::remove_dir_all(&old);
        }
        Ok(())
    }

    fn read_meta(dir: &Path) -> Result<Meta, StoreError> {
        let path = dir.join(META);
        let bytes = std::fs::read(&path).map_err(io_at(&path))?;
        serde_json::from_slice(&bytes).map_err(|e| StoreError::Damaged {
            what: path.display().to_string(),
            reason: e.to_string(),
        })
    }

    /// Every spooled park, oldest first (an empty list when there is no
    /// spool). Half-written folders of a crashed write are not listed.
    ///
    /// # Errors
    ///
    /// A host I/O error reading the folder, or a `spool.json` that does not
    /// decode.
    pub fn pending(&self) -> Result<Vec<Spooled>, StoreError> {
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(rd) => rd,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(StoreError::io(self.dir.display(), e)),
        };
        let mut out = Vec::new();
        for entry in entries {
            let entry = entry.map_err(io_at(&self.dir))?;
            let name = entry.file_name();
            if name.to_string_lossy().starts_with('.') {
                continue;
            }
            let dir = entry.path();
            let meta = Spool::read_meta(&dir)?;
            out.push(Spooled {
                session: meta.session,
                dir,
                base: meta.base,
                spooled_at: meta.spooled_at,
                reason: meta.reason,
            });
        }
        out.sort_by_key(|s| s.spooled_at);
        Ok(out)
    }

    /// True when `session` has a spooled park.
    pub fn holds(&self, session: &str) -> bool {
        self.dir.join(folder_name(session)).join(META).exists()
    }

    /// Forgets `session`'s spooled park (a park that reached the store holds
    /// everything it held). Nothing to do when there is none.
    ///
    /// # Errors
    ///
    /// A host I/O error removing the folder.
    pub fn remove(&self, session: &str) -> Result<(), StoreError> {
        let dir = self.dir.join(folder_name(session));
        match std::fs::remove_dir_all(&dir) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(StoreError::io(dir.display(), e)),
        }
    }

    /// Uploads `session`'s spooled park into `to`: the blobs `to` lacks,
    /// then a commit on the generation the session was based on (a merge
    /// when the head moved since), or a generation beside the head for a
    /// session whose restore had failed; the spool is removed once it
    /// landed. Returns the generation's record.
    ///
    /// # Errors
    ///
    /// A store error from either side; the spool stays for a later try.
    pub fn upload(&self, session: &str, to: &Generations) -> Result<Record, StoreError> {
        let dir = self.dir.join(folder_name(session));
        let meta = Spool::read_meta(&dir)?;
        let local = Generations::new(Arc::new(DirStore::new(&dir)));
        let tree = local.manifest(&meta.generation)?;
        let record = local.record(&meta.generation)?;
        let mut missing = Vec::new();
        for h in tree.entries.values().filter_map(|e| e.hash.as_ref()) {
            if !to.store().has_blob(h)? && !missing.iter().any(|(m, _)| m == h) {
                missing.push((*h, local.store().read_blob(h)?));
            }
        }
        let refs: Vec<(Hash, &[u8])> = missing.iter().map(|(h, d)| (*h, d.as_slice())).collect();
        let bytes = to.store().write_blobs(&refs)?;
        if meta.detached {
            let note = format!("{RESTORE_FAILED_NOTE}: upload of session {session}'s spooled park");
            let kept = to.commit_detached(&tree, bytes, Some(session), record.listed_at, &note)?;
            self.remove(session)?;
            return Ok(kept);
        }
        // A base that gc removed meanwhile: merge against nothing (a file both
        // sides hold differently is kept twice, never lost).
        let base = match &meta.base {
            Some(b) => match to.store().read_record(b) {
                Ok(_) => Some(b),
                Err(StoreError::NoGeneration(_)) => None,
                Err(e) => return Err(e),
            },
            None => None,
        };
        let commit = to.commit(
            base,
            &tree,
            bytes,
            Some(session),
            record.listed_at,
            Some(&format!("upload of session {session}'s spooled park")),
        )?;
        self.remove(session)?;
        Ok(commit.record)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Entry;

    fn tree(files: &[(&str, &str)]) -> (Manifest, Vec<(Hash, Vec<u8>)>) {
        let mut m = Manifest::default();
        let mut blobs = Vec::new();
        for (p, d) in files {
            let e = Entry::file(d.as_bytes());
            blobs.push((e.hash.unwrap(), d.as_bytes().to_vec()));
            m.entries.insert(p.to_string(), e);
        }
        (m, blobs)
    }

    #[test]
    fn a_spooled_park_merges_with_what_others_kept_meanwhile() {
        let dir = tempfile::tempdir().unwrap();
        let gens = Generations::in_dir(dir.path().join("store"));
        let (base_tree, blobs) = tree(&[("a", "1")]);
        let refs: Vec<(Hash, &[u8])> = blobs.iter().map(|(h, d)| (*h, d.as_slice())).collect();
        gens.store().write_blobs(&refs).unwrap();
        let base = gens.commit(None, &base_tree, 0, None, 0, None).unwrap();
        // Another session keeps b while ours is spooled with c.
        let (other, blobs) = tree(&[("a", "1"), ("b", "B")]);
        let refs: Vec<(Hash, &[u8])> = blobs.iter().map(|(h, d)| (*h, d.as_slice())).collect();
        gens.store().write_blobs(&refs).unwrap();
        gens.commit(Some(&base.record.id), &other, 0, None, 0, None)
            .unwrap();
        let spool = Spool::new(dir.path().join("spool"));
        let (ours, blobs) = tree(&[("a", "1"), ("c", "C")]);
        spool
            .write(
                "s-1",
                Some(&base.record.id),
                false,
                &ours,
                &blobs,
                0,
                "down",
            )
            .unwrap();
        assert!(spool.holds("s-1"));
        let record = spool.upload("s-1", &gens).unwrap();
        assert_eq!(record.parents.len(), 2, "a merge");
        let names: Vec<_> = gens
            .manifest(&record.id)
            .unwrap()
            .entries
            .keys()
            .cloned()
            .collect();
        assert_eq!(names, ["a", "b", "c"]);
        assert!(gens.verify().unwrap().is_empty());
        assert!(!spool.holds("s-1"));
    }

    #[test]
    fn a_newer_park_replaces_the_spool_and_odd_names_stay_inside() {
        let dir = tempfile::tempdir().unwrap();
        let spool = Spool::new(dir.path().join("spool"));
        let (one, blobs) = tree(&[("a", "1")]);
        spool
            .write("../x", None, false, &one, &blobs, 0, "down")
            .unwrap();
        let (two, blobs) = tree(&[("a", "2")]);
        spool
            .write("../x", None, true, &two, &blobs, 0, "down")
            .unwrap();
        let pending = spool.pending().unwrap();
        assert_eq!(pending.len(), 1);
        assert!(pending[0].dir.starts_with(dir.path().join("spool")));
        assert_eq!(pending[0].session, "../x");
        let gens = Generations::in_dir(dir.path().join("store"));
        let record = spool.upload("../x", &gens).unwrap();
        let h = gens.manifest(&record.id).unwrap().entries["a"]
            .hash
            .unwrap();
        assert_eq!(gens.store().read_blob(&h).unwrap(), b"2");
        assert_eq!(
            gens.head().unwrap(),
            None,
            "a detached park never moves the head"
        );
        assert!(!dir.path().join("x").exists());
    }
}
