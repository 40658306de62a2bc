//! A workspace archive read into memory as a map of entries, and written back.
//!
//! The reader is the host side's guard against tar slips: entries with an
//! absolute name, a `..` component, or a name that passes through a symlink
//! stored earlier in the same archive are refused (listed in
//! [`ArchiveTree::refused`], never returned as entries), as are device nodes
//! and fifos. Nothing here extracts to the host filesystem.
//!
//! A whole archive is held in memory, so what it may hold is capped before
//! it is read: [`MAX_MEMBER_BYTES`] per member and [`MAX_CONTENT_BYTES`] in
//! all. A tiny compressed (or sparse) archive can expand to gigabytes; past
//! a cap the read stops with an error that names the member and the limit,
//! having held at most the cap.

use std::collections::BTreeMap;
use std::io::{self, Read, Write};

use flate2::Compression;
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use tar::{EntryType, Header};

use super::names;

/// Bytes one member may expand to: a file larger than this is refused.
pub const MAX_MEMBER_BYTES: u64 = 256 << 20;

/// Bytes of file content a whole archive may expand to.
pub const MAX_CONTENT_BYTES: u64 = 1 << 30;

/// The error a read past a cap ends with (`InvalidData`).
fn too_large(name: &str, what: &str, limit: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("archive member {name}: {what} (limit {limit} bytes); nothing was imported"),
    )
}

/// The kind of an archive entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EntryKind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A symbolic link (its target in [`ArchiveEntry::link`]).
    Symlink,
    /// A hard link to an earlier entry (its name in [`ArchiveEntry::link`]).
    HardLink,
}

/// One member of a workspace archive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArchiveEntry {
    /// Path relative to `/workspace`, without `./` or a trailing `/` (e.g. `src/main.rs`).
    pub path: String,
    /// What the entry is.
    pub kind: EntryKind,
    /// Permission bits.
    pub mode: u32,
    /// Modification time, seconds since the epoch.
    pub mtime: u64,
    /// Owner ids as stored.
    pub uid: u64,
    /// Group id as stored.
    pub gid: u64,
    /// File content (empty for anything but a regular file).
    pub data: Vec<u8>,
    /// Symlink target or hard-link source, as stored.
    pub link: Option<String>,
}

impl ArchiveEntry {
    /// A regular file entry with mode 0644.
    pub fn file(path: &str, data: &[u8]) -> ArchiveEntry {
        ArchiveEntry {
            path: path.to_string(),
            kind: EntryKind::File,
            mode: 0o644,
            mtime: 0,
            uid: 0,
            gid: 0,
            data: data.to_vec(),
            link: None,
        }
    }

    /// A directory entry with mode 0755.
    pub fn dir(path: &str) -> ArchiveEntry {
        ArchiveEntry {
            kind: EntryKind::Dir,
            mode: 0o755,
            data: Vec::new(),
            ..ArchiveEntry::file(path, b"")
        }
    }

    /// True when the two entries hold the same thing: kind, mode, content and
    /// link target (mtimes and owners are not compared: touching a file or
    /// re-packing it does not count as a change).
    pub fn same_content(&self, other: &ArchiveEntry) -> bool {
        self.kind == other.kind
            && self.link == other.link
            && (self.kind == EntryKind::Dir || (self.mode == other.mode && self.data == other.data))
    }

    /// Size of the content in bytes.
    pub fn size(&self) -> u64 {
        self.data.len() as u64
    }
}

/// An entry the reader refused, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    /// The name as stored in the archive.
    pub name: String,
    /// Why it was refused.
    pub reason: &'static str,
}

/// A whole archive in memory, keyed by normalized path (sorted, so a parent
/// always comes before its children).
#[derive(Clone, Debug, Default)]
pub struct ArchiveTree {
    /// The accepted entries.
    pub entries: BTreeMap<String, ArchiveEntry>,
    /// Entries that were refused (tar slips, unsupported types).
    pub refused: Vec<Refused>,
}

impl ArchiveTree {
    /// Reads a gzip-compressed tar archive.
    pub fn from_tgz(bytes: &[u8]) -> io::Result<ArchiveTree> {
        ArchiveTree::from_tar(GzDecoder::new(bytes))
    }

    /// Reads an uncompressed tar stream, within [`MAX_MEMBER_BYTES`] and
    /// [`MAX_CONTENT_BYTES`].
    pub fn from_tar<R: Read>(reader: R) -> io::Result<ArchiveTree> {
        ArchiveTree::from_tar_capped(reader, MAX_MEMBER_BYTES, MAX_CONTENT_BYTES)
    }

    /// Reads an uncompressed tar stream; a member over `max_member` bytes,
    /// or content over `max_content` bytes in all, is an `InvalidData`
    /// error (read no further than the cap).
    pub fn from_tar_capped<R: Read>(
        reader: R,
        max_member: u64,
        max_content: u64,
    ) -> io::Result<ArchiveTree> {
        let mut tree = ArchiveTree::default();
        let mut content: u64 = 0;
        let mut archive = tar::Archive::new(reader);
        for entry in archive.entries()? {
            let mut entry = entry?;
            // Names that are not UTF-8 are kept byte-exact (`names`).
            let raw_name = names::from_bytes(&entry.path_bytes());
            let header = entry.header().clone();
            let kind = match header.entry_type() {
                EntryType::Regular | EntryType::Continuous | EntryType::GNUSparse => {
                    EntryKind::File
                }
                EntryType::Directory => EntryKind::Dir,
                EntryType::Symlink => EntryKind::Symlink,
                EntryType::Link => EntryKind::HardLink,
                EntryType::XGlobalHeader => continue,
                _ => {
                    tree.refused.push(Refused {
                        name: raw_name,
                        reason: "unsupported entry type",
                    });
                    continue;
                }
            };
            let path = match normalize(&raw_name) {
                Ok(p) => p,
                Err(reason) => {
                    tree.refused.push(Refused {
                        name: raw_name,
                        reason,
                    });
                    continue;
                }
            };
            if path.is_empty() {
                // The archive's root (`./`): /workspace itself.
                continue;
            }
            if tree.passes_through_symlink(&path) {
                tree.refused.push(Refused {
                    name: raw_name,
                    reason: "path goes through a symlink",
                });
                continue;
            }
            let link = entry.link_name_bytes().map(|b| names::from_bytes(&b));
            if kind == EntryKind::HardLink {
                match link.as_deref().map(normalize) {
                    Some(Ok(_)) => {}
                    _ => {
                        tree.refused.push(Refused {
                            name: raw_name,
                            reason: "hard link leaves the archive",
                        });
                        continue;
                    }
                }
            }
            let mut data = Vec::new();
            if kind == EntryKind::File {
                // The header's size is not to be trusted (sparse members
                // expand): read one byte past the cap and look.
                let cap = max_member.min(max_content.saturating_sub(content));
                (&mut entry)
                    .take(cap.saturating_add(1))
                    .read_to_end(&mut data)?;
                let len = data.len() as u64;
                if len > max_member {
                    return Err(too_large(
                        &raw_name,
                        "larger than one file may be",
                        max_member,
                    ));
                }
                if len > cap {
                    return Err(too_large(
                        &raw_name,
                        "the archive's files together are larger than allowed",
                        max_content,
                    ));
                }
                content += len;
            }
            let entry = ArchiveEntry {
                path: path.clone(),
                kind,
                mode: header.mode().unwrap_or(0o644) & 0o7777,
                mtime: header.mtime().unwrap_or(0),
                uid: header.uid().unwrap_or(0),
                gid: header.gid().unwrap_or(0),
                data,
                link: if matches!(kind, EntryKind::Symlink | EntryKind::HardLink) {
                    link
                } else {
                    None
                },
            };
            if entry.kind != EntryKind::Dir {
                // A later non-directory replaces a directory and all below it,
                // as extraction would.
                tree.remove_below(&path);
            }
            tree.entries.insert(path, entry);
        }
        Ok(tree)
    }

    /// True when a proper prefix of `path` is a symlink already in the tree.
    fn passes_through_symlink(&self, path: &str) -> bool {
        ancestors(path).any(|a| {
            self.entries
                .get(a)
                .is_some_and(|e| e.kind == EntryKind::Symlink)
        })
    }

    /// Removes every entry strictly below `path`.
    fn remove_below(&mut self, path: &str) {
        let prefix = format!("{path}/");
        let below: Vec<String> = self
            .entries
            .range(prefix.clone()..)
            .take_while(|(k, _)| k.starts_with(&prefix))
            .map(|(k, _)| k.clone())
            .collect();
        for k in below {
            self.entries.remove(&k);
        }
    }

    /// Writes the tree as a gzip-compressed tar in the shape `tar czf X -C
    /// /workspace .` produces: `./` first, names `./path`, directories with a
    /// trailing slash, missing parent directories added.
    pub fn to_tgz(&self) -> io::Result<Vec<u8>> {
        let encoder = GzEncoder::new(Vec::new(), Compression::default());
        let mut builder = tar::Builder::new(encoder);
        let newest = self.entries.values().map(|e| e.mtime).max().unwrap_or(0);
        append_dir(&mut builder, "./", 0o755, newest)?;
        let mut written_dirs = std::collections::HashSet::new();
        for entry in self.entries.values() {
            for parent in ancestors(&entry.path).collect::<Vec<_>>().into_iter().rev() {
                if !self.entries.contains_key(parent) && written_dirs.insert(parent.to_string()) {
                    append_dir(&mut builder, &format!("./{parent}/"), 0o755, entry.mtime)?;
                }
            }
            let mut header = Header::new_gnu();
            header.set_mode(entry.mode);
            header.set_mtime(entry.mtime);
            header.set_uid(entry.uid);
            header.set_gid(entry.gid);
            match entry.kind {
                EntryKind::File => {
                    header.set_entry_type(EntryType::Regular);
                    header.set_size(entry.size());
                    builder.append_data(
                        &mut header,
                        names::to_path(&format!("./{}", entry.path)),
                        entry.data.as_slice(),
                    )?;
                }
                EntryKind::Dir => {
                    written_dirs.insert(entry.path.clone());
                    header.set_entry_type(EntryType::Directory);
                    header.set_size(0);
                    builder.append_data(
                        &mut header,
                        names::to_path(&format!("./{}/", entry.path)),
                        io::empty(),
                    )?;
                }
                EntryKind::Symlink | EntryKind::HardLink => {
                    header.set_entry_type(if entry.kind == EntryKind::Symlink {
                        EntryType::Symlink
                    } else {
                        EntryType::Link
                    });
                    header.set_size(0);
                    let target = entry.link.clone().unwrap_or_default();
                    let target = if entry.kind == EntryKind::HardLink {
                        format!("./{target}")
                    } else {
                        target
                    };
                    builder.append_link(
                        &mut header,
                        names::to_path(&format!("./{}", entry.path)),
                        names::to_path(&target),
                    )?;
                }
            }
        }
        let encoder = builder.into_inner()?;
        let mut out = encoder.finish()?;
        out.flush()?;
        Ok(out)
    }

    /// Total bytes of file content.
    pub fn content_bytes(&self) -> u64 {
        self.entries.values().map(ArchiveEntry::size).sum()
    }
}

fn append_dir<W: Write>(
    builder: &mut tar::Builder<W>,
    name: &str,
    mode: u32,
    mtime: u64,
) -> io::Result<()> {
    let mut header = Header::new_gnu();
    header.set_entry_type(EntryType::Directory);
    header.set_mode(mode);
    header.set_mtime(mtime);
    header.set_size(0);
    builder.append_data(&mut header, names::to_path(name), io::empty())
}

/// The proper ancestors of a normalized path, nearest first (`a/b/c` → `a/b`, `a`).
pub(crate) fn ancestors(path: &str) -> impl Iterator<Item = &str> {
    let mut rest = path;
    std::iter::from_fn(move || {
        let (parent, _) = rest.rsplit_once('/')?;
        rest = parent;
        Some(parent)
    })
}

/// Normalizes a member name to a path relative to the archive root: strips
/// `./` components, duplicate and trailing slashes. Refuses absolute names and
/// `..` components (what GNU tar refuses to extract).
pub(crate) fn normalize(name: &str) -> Result<String, &'static str> {
    if name.starts_with('/') {
        return Err("absolute path");
    }
    let mut parts = Vec::new();
    for part in name.split('/') {
        match part {
            "" | "." => {}
            ".." => return Err("path contains '..'"),
            p => parts.push(p),
        }
    }
    Ok(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw_tgz(build: impl FnOnce(&mut tar::Builder<GzEncoder<Vec<u8>>>)) -> Vec<u8> {
        let mut b = tar::Builder::new(GzEncoder::new(Vec::new(), Compression::fast()));
        build(&mut b);
        b.into_inner().unwrap().finish().unwrap()
    }

    /// Writes a header with a raw name, bypassing the tar crate's own checks.
    fn raw_entry(
        b: &mut tar::Builder<GzEncoder<Vec<u8>>>,
        name: &str,
        kind: EntryType,
        link: &str,
        data: &[u8],
    ) {
        let mut h = Header::new_gnu();
        h.as_gnu_mut().unwrap().name[..name.len()].copy_from_slice(name.as_bytes());
        h.set_entry_type(kind);
        h.set_mode(0o644);
        h.set_size(data.len() as u64);
        if !link.is_empty() {
            h.set_link_name_literal(link).unwrap();
        }
        h.set_cksum();
        b.append(&h, data).unwrap();
    }

    #[test]
    fn round_trip_keeps_files_dirs_links_and_modes() {
        let mut tree = ArchiveTree::default();
        tree.entries.insert("d".into(), ArchiveEntry::dir("d"));
        let mut f = ArchiveEntry::file("d/run.sh", b"echo hi\n");
        f.mode = 0o755;
        f.mtime = 1_700_000_000;
        tree.entries.insert(f.path.clone(), f);
        let mut l = ArchiveEntry::file("link", b"");
        l.kind = EntryKind::Symlink;
        l.link = Some("d/run.sh".into());
        tree.entries.insert("link".into(), l);
        tree.entries
            .insert("deep/er/x".into(), ArchiveEntry::file("deep/er/x", b"x"));
        let back = ArchiveTree::from_tgz(&tree.to_tgz().unwrap()).unwrap();
        assert!(back.refused.is_empty());
        assert_eq!(back.entries["d/run.sh"].mode, 0o755);
        assert_eq!(back.entries["d/run.sh"].mtime, 1_700_000_000);
        assert_eq!(back.entries["link"].link.as_deref(), Some("d/run.sh"));
        assert_eq!(
            back.entries["deep/er"].kind,
            EntryKind::Dir,
            "parents are added"
        );
        assert_eq!(back.entries["deep/er/x"].data, b"x");
    }

    #[test]
    fn tar_slips_are_refused() {
        let bytes = raw_tgz(|b| {
            raw_entry(b, "./ok.txt", EntryType::Regular, "", b"ok");
            raw_entry(b, "../evil", EntryType::Regular, "", b"evil");
            raw_entry(b, "/etc/x", EntryType::Regular, "", b"x");
            raw_entry(b, "./esc", EntryType::Symlink, "/etc", b"");
            raw_entry(b, "./esc/passwd", EntryType::Regular, "", b"pwned");
            raw_entry(b, "./hl", EntryType::Link, "../../etc/shadow", b"");
        });
        let tree = ArchiveTree::from_tgz(&bytes).unwrap();
        let names: Vec<_> = tree.entries.keys().cloned().collect();
        assert_eq!(names, ["esc", "ok.txt"]);
        let refused: Vec<_> = tree.refused.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(refused, ["../evil", "/etc/x", "./esc/passwd", "./hl"]);
    }

    #[test]
    fn members_past_the_caps_are_refused_without_being_held() {
        let tar = raw_tgz(|b| {
            raw_entry(b, "small", EntryType::Regular, "", &[1u8; 100]);
            raw_entry(b, "big", EntryType::Regular, "", &[2u8; 5000]);
        });
        let gz = || GzDecoder::new(&tar[..]);
        let err = ArchiveTree::from_tar_capped(gz(), 4096, 1 << 20).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        assert!(
            err.to_string().contains("big") && err.to_string().contains("4096"),
            "{err}"
        );
        let err = ArchiveTree::from_tar_capped(gz(), 8192, 4000).unwrap_err();
        assert!(err.to_string().contains("together"), "{err}");
        let tree = ArchiveTree::from_tar_capped(gz(), 5000, 5100).unwrap();
        assert_eq!(tree.content_bytes(), 5100);
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        assert!(ArchiveTree::from_tgz(b"not a gzip stream at all").is_err());
    }
}
