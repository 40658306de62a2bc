//! A generation's manifest: every path of `/workspace` with its kind, mode,
//! mtime, size, content hash and link target, and what changed between two
//! manifests.
//!
//! Manifests are plain data, sorted by path (a parent before its children),
//! so two of them compare and diff in one merge walk.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// A SHA-256 content hash.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Hash(pub [u8; 32]);

impl Hash {
    /// The hash of `data`.
    ///
    /// ```
    /// use sandkeep::Hash;
    /// assert_eq!(
    ///     Hash::of(b"").to_string(),
    ///     "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    /// );
    /// ```
    pub fn of(data: &[u8]) -> Hash {
        Hash(Sha256::digest(data).into())
    }

    /// Parses 64 hex digits.
    pub fn from_hex(text: &str) -> Option<Hash> {
        let mut out = [0u8; 32];
        hex::decode_to_slice(text, &mut out).ok()?;
        Some(Hash(out))
    }
}

impl fmt::Display for Hash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&hex::encode(self.0))
    }
}

impl fmt::Debug for Hash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Hash({})", &hex::encode(self.0)[..12])
    }
}

impl Serialize for Hash {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl<'de> Deserialize<'de> for Hash {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Hash, D::Error> {
        let text = String::deserialize(d)?;
        Hash::from_hex(&text).ok_or_else(|| serde::de::Error::custom("not a sha-256 hex digest"))
    }
}

/// What a manifest entry is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A regular file (its content is the blob [`Entry::hash`]).
    File,
    /// A directory.
    Dir,
    /// A symbolic link ([`Entry::link`]).
    Symlink,
}

/// One path of a manifest.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// What it is.
    pub kind: Kind,
    /// Permission bits (`0o7777`).
    pub mode: u32,
    /// Modification time, whole seconds since the epoch.
    pub mtime: i64,
    /// Size in bytes (files; 0 otherwise).
    #[serde(default)]
    pub size: u64,
    /// The content's hash (files only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hash: Option<Hash>,
    /// The target (symlinks only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
}

impl Entry {
    /// A regular file holding `data`, mode 0644.
    pub fn file(data: &[u8]) -> Entry {
        Entry {
            kind: Kind::File,
            mode: 0o644,
            mtime: 0,
            size: data.len() as u64,
            hash: Some(Hash::of(data)),
            link: None,
        }
    }

    /// A directory, mode 0755.
    pub fn dir() -> Entry {
        Entry {
            kind: Kind::Dir,
            mode: 0o755,
            mtime: 0,
            size: 0,
            hash: None,
            link: None,
        }
    }

    /// True when the two hold the same thing: kind, content, link target and
    /// (for files and links) mode. Mtimes do not count: re-packing or
    /// touching a file is not a change, and a directory's mtime moves with
    /// its children.
    pub fn same_content(&self, other: &Entry) -> bool {
        self.kind == other.kind
            && self.hash == other.hash
            && self.link == other.link
            && (self.kind == Kind::Dir || self.mode == other.mode)
    }
}

/// Every path of a workspace, relative to `/workspace` (`src/main.rs`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// Entries by path.
    pub entries: BTreeMap<String, Entry>,
}

impl Manifest {
    /// The hash identifying the tree: paths, kinds, modes, contents and link
    /// targets (mtimes are left out, as in [`Entry::same_content`]).
    pub fn tree_hash(&self) -> Hash {
        let mut h = Sha256::new();
        for (path, e) in &self.entries {
            h.update(path.as_bytes());
            h.update([0, e.kind as u8]);
            if e.kind != Kind::Dir {
                h.update(e.mode.to_le_bytes());
            }
            if let Some(hash) = &e.hash {
                h.update(hash.0);
            }
            if let Some(link) = &e.link {
                h.update(link.as_bytes());
            }
            h.update([0xff]);
        }
        Hash(h.finalize().into())
    }

    /// The entries at `path` and below it (`src` gives `src`, `src/a.rs`,
    /// ..., not `src2`), as a manifest of their own.
    pub fn subtree(&self, path: &str) -> Manifest {
        let mut out = Manifest::default();
        if let Some(e) = self.entries.get(path) {
            out.entries.insert(path.to_string(), e.clone());
        }
        // Children sort between `path/` and `path0` ('0' follows '/').
        let (from, to) = (format!("{path}/"), format!("{path}0"));
        for (p, e) in self.entries.range(from..to) {
            out.entries.insert(p.clone(), e.clone());
        }
        out
    }

    /// Total bytes of file content.
    pub fn content_bytes(&self) -> u64 {
        self.entries.values().map(|e| e.size).sum()
    }

    /// Files and links, not directories.
    pub fn file_count(&self) -> usize {
        self.entries
            .values()
            .filter(|e| e.kind != Kind::Dir)
            .count()
    }

    /// What changed from `self` (older) to `newer`, path by path.
    pub fn diff(&self, newer: &Manifest) -> Vec<Change> {
        let mut out = Vec::new();
        let mut old = self.entries.iter().peekable();
        let mut new = newer.entries.iter().peekable();
        loop {
            let ord = match (old.peek(), new.peek()) {
                (None, None) => break,
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (Some((a, _)), Some((b, _))) => a.cmp(b),
            };
            match ord {
                std::cmp::Ordering::Less => {
                    let (p, e) = old.next().unwrap_or_else(|| unreachable!());
                    out.push(Change::new(ChangeKind::Deleted, p, e));
                }
                std::cmp::Ordering::Greater => {
                    let (p, e) = new.next().unwrap_or_else(|| unreachable!());
                    out.push(Change::new(ChangeKind::Added, p, e));
                }
                std::cmp::Ordering::Equal => {
                    let (p, a) = old.next().unwrap_or_else(|| unreachable!());
                    let (_, b) = new.next().unwrap_or_else(|| unreachable!());
                    if modified(a, b) {
                        out.push(Change::new(ChangeKind::Modified, p, b));
                    }
                }
            }
        }
        out
    }
}

/// True when a path kept in both trees changed as a diff counts it: its
/// content, kind, mode or target (a directory's mode and mtime do not count).
fn modified(old: &Entry, new: &Entry) -> bool {
    !(old.same_content(new) || old.kind == Kind::Dir && new.kind == Kind::Dir)
}

/// How a path changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChangeKind {
    /// New in the newer manifest.
    Added,
    /// Different content, kind, mode or target.
    Modified,
    /// Gone from the newer manifest.
    Deleted,
}

impl ChangeKind {
    /// `A`, `M` or `D`, as `archive diff` prints it.
    pub fn letter(self) -> char {
        match self {
            ChangeKind::Added => 'A',
            ChangeKind::Modified => 'M',
            ChangeKind::Deleted => 'D',
        }
    }
}

/// One changed path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    /// How it changed.
    pub kind: ChangeKind,
    /// The path.
    pub path: String,
    /// The entry's kind (in the newer manifest; the older for deletions).
    pub entry_kind: Kind,
    /// Its size (in the newer manifest; the older for deletions).
    pub size: u64,
}

impl Change {
    fn new(kind: ChangeKind, path: &str, e: &Entry) -> Change {
        Change {
            kind,
            path: path.to_string(),
            entry_kind: e.kind,
            size: e.size,
        }
    }
}

/// Counts of a diff, as the sync log and `archive log` print them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChangeStats {
    /// Paths added (directories not counted).
    pub added: u64,
    /// Paths modified.
    pub modified: u64,
    /// Paths deleted.
    pub deleted: u64,
    /// Bytes of new blobs this generation wrote to the store (compressed).
    #[serde(default)]
    pub bytes_new: u64,
}

impl ChangeStats {
    /// Counts the changes that are not directories.
    pub fn of(changes: &[Change]) -> ChangeStats {
        let mut s = ChangeStats::default();
        for c in changes.iter().filter(|c| c.entry_kind != Kind::Dir) {
            match c.kind {
                ChangeKind::Added => s.added += 1,
                ChangeKind::Modified => s.modified += 1,
                ChangeKind::Deleted => s.deleted += 1,
            }
        }
        s
    }
}

impl fmt::Display for ChangeStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "+{} ~{} -{}", self.added, self.modified, self.deleted)
    }
}

/// A manifest stored as its changes from another generation's.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Delta {
    /// Paths added or changed, with their new entries.
    #[serde(default)]
    pub set: BTreeMap<String, Entry>,
    /// Paths removed.
    #[serde(default)]
    pub removed: Vec<String>,
}

impl Delta {
    /// The delta that turns `base` into `target` (mtime-only changes included,
    /// so applying it gives `target` exactly).
    pub fn between(base: &Manifest, target: &Manifest) -> Delta {
        Edit::between(base, target).delta(target)
    }

    /// Applies the delta to `base`.
    pub fn apply(&self, base: &mut Manifest) {
        for p in &self.removed {
            base.entries.remove(p);
        }
        for (p, e) in &self.set {
            base.entries.insert(p.clone(), e.clone());
        }
    }

    /// Number of paths it touches.
    pub fn len(&self) -> usize {
        self.set.len() + self.removed.len()
    }

    /// True when it changes nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The paths an in-place edit of a manifest touched, each with the entry it
/// had before (`None`: it was absent).
///
/// A park edits the session's tree where it stands and records what it
/// touched here, so the commit can describe the change (its delta, its
/// counts, the blobs to check) in the time of the change rather than of
/// the whole tree.
///
/// ```
/// use sandkeep::{Edit, Manifest, ManifestEntry};
///
/// let mut tree = Manifest::default();
/// tree.entries.insert("a".into(), ManifestEntry::file(b"one"));
/// let mut edit = Edit::default();
/// edit.insert(&mut tree, "b".into(), ManifestEntry::file(b"two"));
/// edit.remove(&mut tree, "a");
/// assert_eq!(edit.diff(&tree).len(), 2);
/// edit.revert(&mut tree);
/// assert!(tree.entries.contains_key("a") && !tree.entries.contains_key("b"));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Edit {
    before: BTreeMap<String, Option<Entry>>,
}

impl Edit {
    /// The edit that turns `old` into `new` (comparing every path).
    pub fn between(old: &Manifest, new: &Manifest) -> Edit {
        let mut before = BTreeMap::new();
        for (p, e) in &new.entries {
            let o = old.entries.get(p);
            if o != Some(e) {
                before.insert(p.clone(), o.cloned());
            }
        }
        for (p, e) in &old.entries {
            if !new.entries.contains_key(p) {
                before.insert(p.clone(), Some(e.clone()));
            }
        }
        Edit { before }
    }

    fn touch(&mut self, tree: &Manifest, path: &str) {
        if !self.before.contains_key(path) {
            self.before
                .insert(path.to_string(), tree.entries.get(path).cloned());
        }
    }

    /// Sets `path` to `entry` in `tree`.
    pub fn insert(&mut self, tree: &mut Manifest, path: String, entry: Entry) {
        self.touch(tree, &path);
        tree.entries.insert(path, entry);
    }

    /// Removes `path` from `tree`.
    pub fn remove(&mut self, tree: &mut Manifest, path: &str) {
        if tree.entries.contains_key(path) {
            self.touch(tree, path);
            tree.entries.remove(path);
        }
    }

    /// Empties `tree`.
    pub fn clear(&mut self, tree: &mut Manifest) {
        for (p, e) in std::mem::take(&mut tree.entries) {
            self.before.entry(p).or_insert(Some(e));
        }
    }

    /// What `path` was before the edit, `tree` being the edited tree.
    pub fn original<'a>(&'a self, tree: &'a Manifest, path: &str) -> Option<&'a Entry> {
        match self.before.get(path) {
            Some(old) => old.as_ref(),
            None => tree.entries.get(path),
        }
    }

    /// The touched paths.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.before.keys().map(String::as_str)
    }

    /// True when `tree` (the edited tree) is entry for entry what it was.
    pub fn is_noop(&self, tree: &Manifest) -> bool {
        self.before
            .iter()
            .all(|(p, old)| tree.entries.get(p) == old.as_ref())
    }

    /// What changed, path by path, as [`Manifest::diff`] of the tree before
    /// and `tree` would say.
    pub fn diff(&self, tree: &Manifest) -> Vec<Change> {
        let mut out = Vec::new();
        for (p, old) in &self.before {
            match (old, tree.entries.get(p)) {
                (None, Some(n)) => out.push(Change::new(ChangeKind::Added, p, n)),
                (Some(o), None) => out.push(Change::new(ChangeKind::Deleted, p, o)),
                (Some(o), Some(n)) if modified(o, n) => {
                    out.push(Change::new(ChangeKind::Modified, p, n));
                }
                _ => {}
            }
        }
        out
    }

    /// The delta from the tree before to `tree`, as [`Delta::between`] of
    /// the two would give it.
    pub fn delta(&self, tree: &Manifest) -> Delta {
        let mut d = Delta::default();
        for (p, old) in &self.before {
            match tree.entries.get(p) {
                Some(e) if old.as_ref() != Some(e) => {
                    d.set.insert(p.clone(), e.clone());
                }
                None if old.is_some() => d.removed.push(p.clone()),
                _ => {}
            }
        }
        d
    }

    /// Turns `tree` (the edited tree) back into the tree before.
    pub fn revert(&self, tree: &mut Manifest) {
        for (p, old) in &self.before {
            match old {
                Some(e) => {
                    tree.entries.insert(p.clone(), e.clone());
                }
                None => {
                    tree.entries.remove(p);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(files: &[(&str, &str)]) -> Manifest {
        let mut out = Manifest::default();
        for (p, d) in files {
            out.entries.insert(p.to_string(), Entry::file(d.as_bytes()));
        }
        out
    }

    #[test]
    fn diff_lists_added_modified_deleted_in_path_order() {
        let a = m(&[("a", "1"), ("b", "1"), ("c", "1")]);
        let b = m(&[("a", "2"), ("c", "1"), ("d", "1")]);
        let letters: Vec<_> = a
            .diff(&b)
            .iter()
            .map(|c| format!("{}{}", c.kind.letter(), c.path))
            .collect();
        assert_eq!(letters, ["Ma", "Db", "Ad"]);
        assert_eq!(ChangeStats::of(&a.diff(&b)).to_string(), "+1 ~1 -1");
    }

    #[test]
    fn mtime_does_not_change_the_tree_hash_but_content_does() {
        let a = m(&[("a", "1")]);
        let mut b = a.clone();
        b.entries.get_mut("a").unwrap().mtime = 99;
        assert_eq!(a.tree_hash(), b.tree_hash());
        assert!(a.diff(&b).is_empty());
        assert_ne!(a.tree_hash(), m(&[("a", "2")]).tree_hash());
    }

    #[test]
    fn subtree_takes_the_path_and_below_only() {
        let t = m(&[
            ("src", "d"),
            ("src/a", "1"),
            ("src/b/c", "2"),
            ("src2", "3"),
            ("s", "4"),
        ]);
        let names: Vec<_> = t.subtree("src").entries.into_keys().collect();
        assert_eq!(names, ["src", "src/a", "src/b/c"]);
        assert!(t.subtree("nope").entries.is_empty());
    }

    #[test]
    fn delta_round_trips() {
        let a = m(&[("a", "1"), ("b", "1")]);
        let b = m(&[("a", "2"), ("c", "3")]);
        let d = Delta::between(&a, &b);
        let mut x = a.clone();
        d.apply(&mut x);
        assert_eq!(x, b);
        assert_eq!(d.len(), 3);
    }
}
