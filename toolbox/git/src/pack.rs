//! Reading objects from pack files that real git wrote (after `git gc` or a
//! `git repack` in the container): the version-2 `.idx` lookup and the pack
//! entries, deltas (offset and ref) applied. Packs are read from bytes the
//! virtual filesystem holds; nothing here writes a pack.

use std::io::Read;

use gix_hash::ObjectId;
use gix_object::Kind;

use crate::repo::{Repo, join};

/// Finds the base object of a ref delta outside the pack.
pub type External<'a> = &'a dyn Fn(&ObjectId) -> Option<(Kind, Vec<u8>)>;

fn be32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn be64(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_be_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

/// Number of objects in a v2 index and where the names start.
fn layout(idx: &[u8]) -> Option<usize> {
    if idx.get(..8)? != b"\xfftOc\0\0\0\x02" {
        return None;
    }
    Some(be32(idx, 8 + 255 * 4)? as usize)
}

/// The pack offset of `id` according to the v2 index `idx`.
pub fn find_offset(idx: &[u8], id: &ObjectId) -> Option<u64> {
    let n = layout(idx)?;
    let bytes = id.as_bytes();
    let first = bytes[0] as usize;
    let lo = if first == 0 {
        0
    } else {
        be32(idx, 8 + (first - 1) * 4)? as usize
    };
    let hi = be32(idx, 8 + first * 4)? as usize;
    let names = 8 + 256 * 4;
    let (mut lo, mut hi) = (lo, hi.min(n));
    while lo < hi {
        let mid = (lo + hi) / 2;
        let name = idx.get(names + mid * 20..names + mid * 20 + 20)?;
        match name.cmp(bytes) {
            std::cmp::Ordering::Equal => {
                let offsets = names + n * 20 + n * 4;
                let off = be32(idx, offsets + mid * 4)?;
                if off & 0x8000_0000 != 0 {
                    let large = offsets + n * 4 + (off & 0x7fff_ffff) as usize * 8;
                    return be64(idx, large);
                }
                return Some(off as u64);
            }
            std::cmp::Ordering::Less => lo = mid + 1,
            std::cmp::Ordering::Greater => hi = mid,
        }
    }
    None
}

/// Every id of every pack of `repo` that starts with the hex `prefix`.
pub fn ids_with_prefix(repo: &Repo<'_>, prefix: &str) -> Vec<ObjectId> {
    let mut out = Vec::new();
    let dir = repo.gp("objects/pack");
    let Ok(entries) = repo.fs.read_dir(&dir) else {
        return out;
    };
    for e in entries.iter().filter(|e| e.name.ends_with(".idx")) {
        let Ok(idx) = repo.fs.read_shared(&join(&dir, &e.name)) else {
            continue;
        };
        let Some(n) = layout(&idx) else { continue };
        let names = 8 + 256 * 4;
        for i in 0..n {
            if let Some(name) = idx.get(names + i * 20..names + i * 20 + 20)
                && let Ok(id) = ObjectId::try_from(name)
                && id.to_hex().to_string().starts_with(prefix)
            {
                out.push(id);
            }
        }
    }
    out
}

fn inflate(data: &[u8], size: usize) -> Option<Vec<u8>> {
    // The size comes from the pack: reserve no more than a sane start.
    let mut out = Vec::with_capacity(size.min(1 << 20));
    flate2::read::ZlibDecoder::new(data)
        .take(size as u64)
        .read_to_end(&mut out)
        .ok()?;
    (out.len() == size).then_some(out)
}

/// Reads the object at `offset` of `pack`; `external` finds the base of a
/// ref delta.
pub fn read_at(pack: &[u8], offset: u64, external: External<'_>) -> Option<(Kind, Vec<u8>)> {
    read_depth(pack, offset as usize, external, 0)
}

fn read_depth(
    pack: &[u8],
    mut at: usize,
    external: External<'_>,
    depth: usize,
) -> Option<(Kind, Vec<u8>)> {
    if depth > 4096 {
        return None;
    }
    let start = at;
    let mut c = *pack.get(at)?;
    at += 1;
    let ty = (c >> 4) & 7;
    let mut size = (c & 15) as usize;
    let mut shift = 4;
    while c & 0x80 != 0 {
        c = *pack.get(at)?;
        at += 1;
        size |= ((c & 0x7f) as usize).checked_shl(shift)?;
        shift += 7;
    }
    let kind = match ty {
        1 => Some(Kind::Commit),
        2 => Some(Kind::Tree),
        3 => Some(Kind::Blob),
        4 => Some(Kind::Tag),
        _ => None,
    };
    if let Some(kind) = kind {
        return Some((kind, inflate(pack.get(at..)?, size)?));
    }
    let (base_kind, base) = match ty {
        6 => {
            let mut c = *pack.get(at)?;
            at += 1;
            let mut back = (c & 0x7f) as usize;
            while c & 0x80 != 0 {
                c = *pack.get(at)?;
                at += 1;
                back = ((back + 1) << 7) | (c & 0x7f) as usize;
            }
            read_depth(pack, start.checked_sub(back)?, external, depth + 1)?
        }
        7 => {
            let id = ObjectId::try_from(pack.get(at..at + 20)?).ok()?;
            at += 20;
            external(&id)?
        }
        _ => return None,
    };
    let delta = inflate(pack.get(at..)?, size)?;
    Some((base_kind, apply_delta(&base, &delta)?))
}

fn varint(d: &[u8], at: &mut usize) -> Option<usize> {
    let mut v = 0usize;
    let mut shift = 0;
    loop {
        let c = *d.get(*at)?;
        *at += 1;
        v |= ((c & 0x7f) as usize).checked_shl(shift)?;
        shift += 7;
        if c & 0x80 == 0 {
            return Some(v);
        }
    }
}

fn apply_delta(base: &[u8], d: &[u8]) -> Option<Vec<u8>> {
    let mut at = 0;
    let base_len = varint(d, &mut at)?;
    let out_len = varint(d, &mut at)?;
    if base_len != base.len() {
        return None;
    }
    let mut out = Vec::with_capacity(out_len.min(1 << 20));
    while at < d.len() {
        let op = d[at];
        at += 1;
        if op & 0x80 != 0 {
            let mut off = 0usize;
            let mut len = 0usize;
            for i in 0..4 {
                if op & (1 << i) != 0 {
                    off |= (*d.get(at)? as usize) << (8 * i);
                    at += 1;
                }
            }
            for i in 0..3 {
                if op & (0x10 << i) != 0 {
                    len |= (*d.get(at)? as usize) << (8 * i);
                    at += 1;
                }
            }
            if len == 0 {
                len = 0x10000;
            }
            out.extend_from_slice(base.get(off..off.checked_add(len)?)?);
        } else if op != 0 {
            out.extend_from_slice(d.get(at..at + op as usize)?);
            at += op as usize;
        } else {
            return None;
        }
    }
    (out.len() == out_len).then_some(out)
}
