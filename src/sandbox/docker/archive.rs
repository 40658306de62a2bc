//! Paths and tar streams for the Engine archive API: how a sandbox path maps to
//! an absolute container path, the one-file tar a `write_file` uploads, and how
//! the tar a `read_file` downloads is read back.

use crate::sandbox::SandboxError;

/// The sandbox user's uid and gid, written into every uploaded tar header:
/// the daemon's own `copyUIDGID` fails on engine 20.10 ("getent unable to find
/// entry"), so ownership travels in the archive instead.
pub const SANDBOX_UID: u64 = 1000;

/// The sandbox user's name, for the tar header's uname/gname fields.
pub const SANDBOX_USER: &str = "sandbox";

/// Resolves `path` to an absolute, normalised container path: relative paths
/// start at `/workspace`, `.` and `..` are folded (never above `/`).
pub fn resolve(path: &str) -> Result<String, SandboxError> {
    if path.is_empty() {
        return Err(SandboxError::Path {
            path: String::new(),
            reason: "empty path".into(),
        });
    }
    if path.contains('\0') {
        return Err(SandboxError::Path {
            path: path.into(),
            reason: "NUL byte in path".into(),
        });
    }
    let joined = if path.starts_with('/') {
        path.to_string()
    } else {
        format!("/workspace/{path}")
    };
    let mut parts: Vec<&str> = Vec::new();
    for part in joined.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    Ok(format!("/{}", parts.join("/")))
}

/// Splits an absolute normalised path into its parent directory and file name.
pub fn split_parent(abs: &str) -> Result<(&str, &str), SandboxError> {
    match abs.rsplit_once('/') {
        Some((_, "")) | None => Err(SandboxError::Path {
            path: abs.into(),
            reason: "is a directory".into(),
        }),
        Some(("", name)) => Ok(("/", name)),
        Some((parent, name)) => Ok((parent, name)),
    }
}

/// A tar holding one regular file `name` (mode 0644, owned by the sandbox
/// user), to be extracted in the file's parent directory.
pub fn single_file_tar(name: &str, data: &[u8], mtime: u64) -> Result<Vec<u8>, SandboxError> {
    let mut header = tar::Header::new_gnu();
    header.set_entry_type(tar::EntryType::Regular);
    header.set_size(data.len() as u64);
    header.set_mode(0o644);
    header.set_uid(SANDBOX_UID);
    header.set_gid(SANDBOX_UID);
    header.set_mtime(mtime);
    let tar_err = |e: std::io::Error| SandboxError::Path {
        path: name.into(),
        reason: e.to_string(),
    };
    header.set_username(SANDBOX_USER).map_err(tar_err)?;
    header.set_groupname(SANDBOX_USER).map_err(tar_err)?;
    let mut builder = tar::Builder::new(Vec::with_capacity(data.len() + 2048));
    // append_data writes a GNU long-name entry first when the name needs one.
    builder
        .append_data(&mut header, name, data)
        .map_err(tar_err)?;
    builder.into_inner().map_err(tar_err)
}

/// The first entry of a downloaded archive: what the path named.
#[derive(Debug, PartialEq, Eq)]
pub enum Downloaded {
    /// A regular file and its bytes.
    File(Vec<u8>),
    /// A directory.
    Directory,
    /// A symbolic link and its target, as stored.
    Symlink(String),
    /// Something else (device, fifo, ...).
    Other,
}

/// Reads the first entry of the tar the archive API returned for one path.
/// The API's downloads go through [`Head`] now; the unit tests keep this
/// reader to check the archives they build.
#[cfg(test)]
pub fn first_entry(tar_bytes: &[u8]) -> Result<Downloaded, String> {
    use std::io::Read;
    let mut archive = tar::Archive::new(tar_bytes);
    let mut entries = archive
        .entries()
        .map_err(|e| format!("reading archive: {e}"))?;
    let Some(entry) = entries.next() else {
        return Err("the daemon returned an empty archive".into());
    };
    let mut entry = entry.map_err(|e| format!("reading archive: {e}"))?;
    let kind = entry.header().entry_type();
    Ok(if kind.is_file() {
        let mut data = Vec::with_capacity(entry.size() as usize);
        entry
            .read_to_end(&mut data)
            .map_err(|e| format!("reading archive: {e}"))?;
        Downloaded::File(data)
    } else if kind.is_dir() {
        Downloaded::Directory
    } else if kind.is_symlink() {
        let target = entry
            .link_name_bytes()
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default();
        Downloaded::Symlink(target)
    } else {
        Downloaded::Other
    })
}

/// What [`parse_head`] made of the start of a downloaded archive.
#[derive(Debug, PartialEq, Eq)]
pub enum Head {
    /// More bytes are needed.
    NeedMore,
    /// The first entry, with a regular file's first bytes (up to the cap)
    /// and its whole size.
    Entry(Downloaded, u64),
}

/// Parses the first entry of the tar the archive API streams, from as much
/// of it as arrived, keeping at most `max` bytes of a file's content: the
/// download can stop there, however large the file is. GNU long-name and
/// PAX headers before the entry are skipped. With `whole`, a file larger
/// than `max` is answered at once, with no content, as soon as its header
/// is in: the caller wants all of it or nothing.
pub fn parse_head(buf: &[u8], max: usize, whole: bool) -> Result<Head, String> {
    let mut offset = 0usize;
    let mut long_link: Option<String> = None;
    loop {
        let Some(block) = buf.get(offset..offset + 512) else {
            return Ok(Head::NeedMore);
        };
        if block.iter().all(|&b| b == 0) {
            return Err("the daemon returned an empty archive".into());
        }
        let header = tar::Header::from_byte_slice(block);
        let size = header
            .entry_size()
            .map_err(|e| format!("reading archive: {e}"))?;
        let kind = header.entry_type();
        let data_start = offset + 512;
        let padded = size.div_ceil(512).saturating_mul(512);
        match kind {
            tar::EntryType::GNULongName
            | tar::EntryType::GNULongLink
            | tar::EntryType::XHeader
            | tar::EntryType::XGlobalHeader => {
                let end = usize::try_from(size)
                    .ok()
                    .and_then(|n| data_start.checked_add(n))
                    .ok_or("reading archive: oversized header")?;
                let Some(data) = buf.get(data_start..end) else {
                    return Ok(Head::NeedMore);
                };
                if kind == tar::EntryType::GNULongLink {
                    let name = data.split(|&b| b == 0).next().unwrap_or_default();
                    long_link = Some(String::from_utf8_lossy(name).into_owned());
                } else if kind == tar::EntryType::XHeader {
                    for ext in tar::PaxExtensions::new(data).flatten() {
                        if ext.key() == Ok("linkpath") {
                            long_link =
                                Some(String::from_utf8_lossy(ext.value_bytes()).into_owned());
                        }
                    }
                }
                offset = usize::try_from(padded)
                    .ok()
                    .and_then(|p| data_start.checked_add(p))
                    .ok_or("reading archive: oversized header")?;
            }
            k if k.is_file() => {
                if whole && size > max as u64 {
                    return Ok(Head::Entry(Downloaded::File(Vec::new()), size));
                }
                let want = usize::try_from(size).unwrap_or(usize::MAX).min(max);
                let Some(data) = buf.get(data_start..data_start + want) else {
                    return Ok(Head::NeedMore);
                };
                return Ok(Head::Entry(Downloaded::File(data.to_vec()), size));
            }
            k if k.is_dir() => return Ok(Head::Entry(Downloaded::Directory, 0)),
            k if k.is_symlink() => {
                let target = long_link.unwrap_or_else(|| {
                    header
                        .link_name_bytes()
                        .map(|b| String::from_utf8_lossy(&b).into_owned())
                        .unwrap_or_default()
                });
                return Ok(Head::Entry(Downloaded::Symlink(target), 0));
            }
            _ => return Ok(Head::Entry(Downloaded::Other, 0)),
        }
    }
}

/// Where a symlink at `link` (absolute) pointing to `target` leads.
pub fn follow(link: &str, target: &str) -> Result<String, SandboxError> {
    if target.starts_with('/') {
        resolve(target)
    } else {
        let (parent, _) = split_parent(link)?;
        resolve(&format!("{parent}/{target}"))
    }
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use super::*;

    #[test]
    fn resolve_anchors_relative_paths_at_the_workspace() {
        assert_eq!(resolve("a/b.txt").unwrap(), "/workspace/a/b.txt");
        assert_eq!(resolve("./a//b/../c").unwrap(), "/workspace/a/c");
        assert_eq!(resolve("/tmp/x").unwrap(), "/tmp/x");
        assert_eq!(resolve("../../../etc").unwrap(), "/etc");
        assert_eq!(resolve("/").unwrap(), "/");
        assert!(resolve("").is_err());
        assert!(resolve("a\0b").is_err());
    }

    #[test]
    fn split_parent_refuses_the_root() {
        assert_eq!(split_parent("/workspace/a").unwrap(), ("/workspace", "a"));
        assert_eq!(split_parent("/a").unwrap(), ("/", "a"));
        assert!(split_parent("/").is_err());
    }

    #[test]
    fn single_file_tar_round_trips_with_owner_and_long_unicode_names() {
        let name = format!("{} é ü {}.bin", "x".repeat(120), "y".repeat(40));
        let data: Vec<u8> = (0..=255u8).cycle().take(70_000).collect();
        let tar = single_file_tar(&name, &data, 1_700_000_000).unwrap();
        let mut archive = tar::Archive::new(&tar[..]);
        let mut entry = archive.entries().unwrap().next().unwrap().unwrap();
        assert_eq!(entry.path().unwrap().to_str().unwrap(), name);
        assert_eq!(entry.header().uid().unwrap(), 1000);
        assert_eq!(entry.header().gid().unwrap(), 1000);
        assert_eq!(entry.header().mode().unwrap(), 0o644);
        let mut back = Vec::new();
        entry.read_to_end(&mut back).unwrap();
        assert_eq!(back, data);
        assert_eq!(first_entry(&tar).unwrap(), Downloaded::File(data));
    }

    #[test]
    fn the_head_of_a_stream_keeps_only_the_cap_of_a_file() {
        let name = format!("{}.bin", "n".repeat(150));
        let data: Vec<u8> = (0..=255u8).cycle().take(10_000).collect();
        let tar = single_file_tar(&name, &data, 0).unwrap();
        // Too little has arrived yet: ask for more, at every cut.
        for cut in [0, 100, 512, 1024, 1536, 1600] {
            assert_eq!(
                parse_head(&tar[..cut], 4096, false).unwrap(),
                Head::NeedMore,
                "{cut}"
            );
        }
        match parse_head(&tar, 4096, false).unwrap() {
            Head::Entry(Downloaded::File(head), size) => {
                assert_eq!((head.as_slice(), size), (&data[..4096], 10_000));
            }
            other => panic!("{other:?}"),
        }
        // Under the cap: the whole file.
        match parse_head(&tar, 1 << 20, true).unwrap() {
            Head::Entry(Downloaded::File(all), 10_000) => assert_eq!(all, data),
            other => panic!("{other:?}"),
        }
        assert!(parse_head(&[0u8; 1024], 10, false).is_err());
        // All or nothing: the size alone, from the header alone.
        assert_eq!(
            parse_head(&tar[..1536], 4096, true).unwrap(),
            Head::Entry(Downloaded::File(Vec::new()), 10_000)
        );
    }

    #[test]
    fn the_head_reads_symlinks_and_directories() {
        let mut b = tar::Builder::new(Vec::new());
        let mut h = tar::Header::new_gnu();
        h.set_entry_type(tar::EntryType::Symlink);
        h.set_size(0);
        let target = format!("/workspace/{}", "t".repeat(200));
        b.append_link(&mut h, "l", &target).unwrap();
        let tar = b.into_inner().unwrap();
        assert_eq!(
            parse_head(&tar, 10, false).unwrap(),
            Head::Entry(Downloaded::Symlink(target), 0)
        );
        let mut b = tar::Builder::new(Vec::new());
        let mut h = tar::Header::new_gnu();
        h.set_entry_type(tar::EntryType::Directory);
        h.set_size(0);
        b.append_data(&mut h, "d/", std::io::empty()).unwrap();
        let tar = b.into_inner().unwrap();
        assert_eq!(
            parse_head(&tar, 10, false).unwrap(),
            Head::Entry(Downloaded::Directory, 0)
        );
    }

    #[test]
    fn follow_resolves_relative_and_absolute_targets() {
        assert_eq!(follow("/workspace/l", "t.txt").unwrap(), "/workspace/t.txt");
        assert_eq!(follow("/workspace/d/l", "../t").unwrap(), "/workspace/t");
        assert_eq!(follow("/workspace/l", "/tmp/t").unwrap(), "/tmp/t");
    }
}
