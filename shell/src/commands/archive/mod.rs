//! The archive family of commands: `tar`, `gzip`/`gunzip`/`zcat`,
//! `bzip2`/`bunzip2`/`bzcat`, `xz`/`unxz`/`xzcat` and `zip`/`unzip`, over the
//! virtual tree, with GNU's options, messages and exit statuses.

mod bzip2;
mod codec;
mod gzip;
mod lzw;
mod tar;
mod unzip;
mod xz;
mod zip;

use std::io::Write;

use flate2::{Compression, GzBuilder};

use super::Command;

/// The commands of this family.
pub const COMMANDS: &[Command] = &[
    Command::own("tar", tar::tar),
    Command::own("gzip", gzip::gzip),
    Command::own("gunzip", gzip::gunzip),
    Command::own("zcat", gzip::zcat),
    Command::own("bzip2", bzip2::bzip2),
    Command::own("bunzip2", bzip2::bunzip2),
    Command::own("bzcat", bzip2::bzcat),
    Command::own("xz", xz::xz),
    Command::own("unxz", xz::unxz),
    Command::own("xzcat", xz::xzcat),
    Command::own("zip", zip::zip),
    Command::own("unzip", unzip::unzip),
];

/// Gzips `data` at `level` with the header gzip writes: the original file
/// name (if any), its mtime, OS = Unix.
pub(crate) fn gzip_bytes(data: &[u8], level: u32, name: Option<&str>, mtime: u32) -> Vec<u8> {
    let mut b = GzBuilder::new().mtime(mtime).operating_system(3);
    if let Some(n) = name {
        b = b.filename(n.as_bytes());
    }
    let mut enc = b.write(
        Vec::with_capacity(data.len() / 3 + 64),
        Compression::new(level),
    );
    // Writing into a Vec can't fail. In chunks: compressing a big file is
    // long work, which a cancelled run leaves.
    for chunk in data.chunks(crate::cancel::CHUNK) {
        crate::cancel::point();
        let _ = enc.write_all(chunk);
    }
    enc.finish().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gzip_header_like_gnu() {
        let gz = gzip_bytes(b"hi\n", 6, None, 0);
        assert_eq!(&gz[..10], &[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]);
        let gz = gzip_bytes(b"hi\n", 6, Some("g1"), 5);
        assert_eq!(&gz[3..8], &[8, 5, 0, 0, 0]);
        assert_eq!(&gz[10..13], b"g1\0");
    }
}
