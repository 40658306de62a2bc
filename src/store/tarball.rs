//! Tar streams in and out of the store: the transport across the sandbox
//! boundary, and the `.tgz` format of `archive export`/`import` (the shape
//! `tar czf X -C /workspace .` produces, so GNU tar reads it and the seed's
//! archives import).
//!
//! Reading goes through [`ArchiveTree`], the host side's guard against tar
//! slips: absolute names, `..`, names through a stored symlink and device
//! nodes are refused, never returned.

use std::collections::HashMap;
use std::io::{self, Read, Write};

use tar::{EntryType, Header};

use super::StoreError;
use super::manifest::{Entry, Hash, Kind, Manifest};
use crate::archive::names;
use crate::archive::tree::ancestors;
use crate::archive::{ArchiveTree, EntryKind};

/// One member read from a tar stream, with its content.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TarEntry {
    /// Path relative to `/workspace`.
    pub path: String,
    /// Its manifest entry (hash filled in for files).
    pub entry: Entry,
    /// File content (empty otherwise).
    pub data: Vec<u8>,
}

/// Reads a tar stream's members (slips refused; hard links become copies of
/// what they link to). Returns the members and the refused names with reasons.
pub fn read_tar_entries<R: Read>(reader: R) -> io::Result<(Vec<TarEntry>, Vec<String>)> {
    let tree = ArchiveTree::from_tar(reader)?;
    // A hard link's copy of its target, taken before the contents are moved
    // out of the tree (each file's bytes are held once, not twice).
    let linked: HashMap<String, Vec<u8>> = tree
        .entries
        .values()
        .filter(|e| e.kind == EntryKind::HardLink)
        .filter_map(|e| {
            let target = crate::archive::tree::normalize(e.link.as_deref()?).ok()?;
            let t = tree.entries.get(&target)?;
            (t.kind == EntryKind::File).then(|| (e.path.clone(), t.data.clone()))
        })
        .collect();
    let refused = tree
        .refused
        .iter()
        .map(|r| format!("{}: {}", r.name, r.reason))
        .collect();
    let mut out = Vec::with_capacity(tree.entries.len());
    let mut linked = linked;
    for e in tree.entries.into_values() {
        let (kind, data, link) = match e.kind {
            EntryKind::File => (Kind::File, e.data, None),
            EntryKind::Dir => (Kind::Dir, Vec::new(), None),
            EntryKind::Symlink => (Kind::Symlink, Vec::new(), e.link),
            EntryKind::HardLink => match linked.remove(&e.path) {
                Some(data) => (Kind::File, data, None),
                None => continue,
            },
        };
        let entry = Entry {
            kind,
            mode: e.mode,
            mtime: i64::try_from(e.mtime).unwrap_or(i64::MAX),
            size: data.len() as u64,
            hash: (kind == Kind::File).then(|| Hash::of(&data)),
            link,
        };
        out.push(TarEntry {
            path: e.path,
            entry,
            data,
        });
    }
    Ok((out, refused))
}

/// Blobs by hash, as read from a tar.
pub type Blobs = Vec<(Hash, Vec<u8>)>;

/// A manifest and its blobs from a (gzip-compressed when `gzip`) tar.
pub fn manifest_from_tar(bytes: &[u8], gzip: bool) -> Result<(Manifest, Blobs), StoreError> {
    let read = if gzip {
        read_tar_entries(flate2::read::GzDecoder::new(bytes))
    } else {
        read_tar_entries(bytes)
    };
    let (entries, _refused) = read.map_err(|e| StoreError::BadArchive(e.to_string()))?;
    let mut manifest = Manifest::default();
    let mut blobs: HashMap<Hash, Vec<u8>> = HashMap::new();
    for t in entries {
        if let Some(h) = t.entry.hash {
            blobs.entry(h).or_insert(t.data);
        }
        manifest.entries.insert(t.path, t.entry);
    }
    add_missing_parents(&mut manifest);
    Ok((manifest, blobs.into_iter().collect()))
}

/// Adds a directory entry for every parent a path names but the manifest
/// lacks (tar streams may omit them).
pub(crate) fn add_missing_parents(manifest: &mut Manifest) {
    let missing: Vec<String> = manifest
        .entries
        .keys()
        .flat_map(|p| ancestors(p).map(str::to_string).collect::<Vec<_>>())
        .filter(|a| !manifest.entries.contains_key(a))
        .collect();
    for dir in missing {
        manifest.entries.entry(dir).or_insert_with(Entry::dir);
    }
}

/// Writes `manifest` as an uncompressed tar in `tar cf - -C /workspace .`
/// shape (`./` first, `./path`, directories with a trailing slash), reading
/// each file's bytes through `blob` (which verifies them). A failing blob
/// stops the stream with an error naming the path.
pub fn write_tar<W: Write>(
    manifest: &Manifest,
    uid: u64,
    blob: &dyn Fn(&Hash) -> Result<Vec<u8>, StoreError>,
    out: W,
) -> Result<W, StoreError> {
    let tar_err = |path: &str, e: io::Error| StoreError::Damaged {
        what: path.to_string(),
        reason: e.to_string(),
    };
    let mut builder = tar::Builder::new(out);
    let newest = manifest
        .entries
        .values()
        .map(|e| e.mtime)
        .max()
        .unwrap_or(0);
    let mut root = header(EntryType::Directory, 0o755, newest, uid);
    builder
        .append_data(&mut root, "./", io::empty())
        .map_err(|e| tar_err("./", e))?;
    for (path, e) in &manifest.entries {
        let mut h = header(EntryType::Regular, e.mode, e.mtime, uid);
        let result = match e.kind {
            Kind::File => {
                let hash = e.hash.ok_or_else(|| StoreError::Damaged {
                    what: path.clone(),
                    reason: "a file without a content hash".into(),
                })?;
                let data = blob(&hash).map_err(|err| StoreError::Damaged {
                    what: path.clone(),
                    reason: err.to_string(),
                })?;
                h.set_size(data.len() as u64);
                builder.append_data(&mut h, names::to_path(&format!("./{path}")), &data[..])
            }
            Kind::Dir => {
                h.set_entry_type(EntryType::Directory);
                builder.append_data(&mut h, names::to_path(&format!("./{path}/")), io::empty())
            }
            Kind::Symlink => {
                h.set_entry_type(EntryType::Symlink);
                builder.append_link(
                    &mut h,
                    names::to_path(&format!("./{path}")),
                    names::to_path(e.link.as_deref().unwrap_or("")),
                )
            }
        };
        result.map_err(|err| tar_err(path, err))?;
    }
    builder.into_inner().map_err(|e| tar_err("the archive", e))
}

fn header(kind: EntryType, mode: u32, mtime: i64, uid: u64) -> Header {
    let mut h = Header::new_gnu();
    h.set_entry_type(kind);
    h.set_mode(mode);
    h.set_mtime(u64::try_from(mtime).unwrap_or(0));
    h.set_uid(uid);
    h.set_gid(uid);
    h.set_size(0);
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_tar_reads_back_as_the_same_manifest() {
        let mut m = Manifest::default();
        let long = format!("d/{}", "n".repeat(200));
        let mut f = Entry::file(b"hello");
        f.mtime = 1_700_000_000;
        f.mode = 0o755;
        m.entries.insert("d".into(), Entry::dir());
        m.entries.insert(long.clone(), f.clone());
        m.entries.insert(
            "l".into(),
            Entry {
                kind: Kind::Symlink,
                mode: 0o777,
                mtime: 0,
                size: 0,
                hash: None,
                link: Some("d".into()),
            },
        );
        let tar = write_tar(&m, 0, &|_| Ok(b"hello".to_vec()), Vec::new()).unwrap();
        let (back, blobs) = manifest_from_tar(&tar, false).unwrap();
        assert_eq!(back.tree_hash(), m.tree_hash());
        assert_eq!(back.entries[&long].mtime, 1_700_000_000);
        assert_eq!(blobs.len(), 1);
    }

    /// Issue 18: a name that is not UTF-8 (a docker workspace's Latin-1
    /// file) came back as U+FFFD; it must come back byte for byte, its
    /// symlink target too, and a merge's conflict copy keeps the bytes.
    #[test]
    fn names_that_are_not_utf8_round_trip_byte_exact() {
        use std::os::unix::ffi::OsStrExt;
        let mut b = tar::Builder::new(Vec::new());
        let mut h = Header::new_gnu();
        h.set_entry_type(EntryType::Regular);
        h.set_size(2);
        h.set_mode(0o644);
        let raw: &[u8] = b"./caf\xe9/\xff\xfe.txt";
        b.append_data(&mut h, std::ffi::OsStr::from_bytes(raw), &b"hi"[..])
            .unwrap();
        let mut l = Header::new_gnu();
        l.set_entry_type(EntryType::Symlink);
        l.set_size(0);
        b.append_link(
            &mut l,
            std::ffi::OsStr::from_bytes(b"./l\x80"),
            std::ffi::OsStr::from_bytes(b"caf\xe9/\xff\xfe.txt"),
        )
        .unwrap();
        let tar = b.into_inner().unwrap();
        let (m, _) = manifest_from_tar(&tar, false).unwrap();
        let names: Vec<Vec<u8>> = m
            .entries
            .keys()
            .map(|p| crate::archive::names::to_bytes(p).into_owned())
            .collect();
        assert!(
            names.contains(&b"caf\xe9/\xff\xfe.txt".to_vec()),
            "{names:?}"
        );
        assert!(m.entries.keys().all(|p| !p.contains('\u{FFFD}')));
        let link = m.entries.values().find_map(|e| e.link.clone()).unwrap();
        assert_eq!(
            &*crate::archive::names::to_bytes(&link),
            b"caf\xe9/\xff\xfe.txt"
        );
        // Written back for a restore: the very bytes, as GNU tar reads them.
        let out = write_tar(&m, 0, &|_| Ok(b"hi".to_vec()), Vec::new()).unwrap();
        let mut archive = tar::Archive::new(&out[..]);
        let written: Vec<Vec<u8>> = archive
            .entries()
            .unwrap()
            .map(|e| e.unwrap().path_bytes().into_owned())
            .collect();
        assert!(
            written.contains(&b"caf\xe9/\xff\xfe.txt".to_vec()),
            "{written:?}"
        );
        assert!(written.contains(&b"l\x80".to_vec()), "{written:?}");
        // A conflict copy of such a file keeps its bytes, suffix after them.
        let path = m.entries.keys().find(|p| p.ends_with(".txt")).unwrap();
        let copy = crate::store::merge::conflict_name(path, "S");
        assert_eq!(
            &*crate::archive::names::to_bytes(&copy),
            b"caf\xe9/\xff\xfe.txt.conflict-S"
        );
    }
}
