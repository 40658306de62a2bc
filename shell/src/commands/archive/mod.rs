//! The archive family of commands: `tar`, `gzip`/`gunzip`/`zcat`,
//! `bzip2`/`bunzip2`/`bzcat`, `xz`/`unxz`/`xzcat` and `zip`/`unzip`, over the
//! virtual tree, with GNU's options, messages and exit statuses.

mod bzip2;
mod codec;
mod gzip;
mod tar;
mod unzip;
mod xz;
mod zip;

use std::io::Write;

use flate2::{Compression, GzBuilder};

use super::CommandFn;

/// The commands of this family.
pub const COMMANDS: &[(&str, CommandFn)] = &[
    ("tar", tar::tar),
    ("gzip", gzip::gzip),
    ("gunzip", gzip::gunzip),
    ("zcat", gzip::zcat),
    ("bzip2", bzip2::bzip2),
    ("bunzip2", bzip2::bunzip2),
    ("bzcat", bzip2::bzcat),
    ("xz", xz::xz),
    ("unxz", xz::unxz),
    ("xzcat", xz::xzcat),
    ("zip", zip::zip),
    ("unzip", unzip::unzip),
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

/// Splits seconds since the epoch into UTC `(year, month, day, hour, minute, second)`.
pub(crate) fn civil(secs: i64) -> (i64, u32, u32, u32, u32, u32) {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (
        y,
        m,
        d,
        (rem / 3600) as u32,
        (rem % 3600 / 60) as u32,
        (rem % 60) as u32,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates() {
        assert_eq!(civil(0), (1970, 1, 1, 0, 0, 0));
        assert_eq!(civil(1_796_267_700), (2026, 12, 3, 3, 15, 0));
        assert_eq!(civil(951_782_400), (2000, 2, 29, 0, 0, 0));
        assert_eq!(civil(-1), (1969, 12, 31, 23, 59, 59));
    }

    #[test]
    fn gzip_header_like_gnu() {
        let gz = gzip_bytes(b"hi\n", 6, None, 0);
        assert_eq!(&gz[..10], &[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]);
        let gz = gzip_bytes(b"hi\n", 6, Some("g1"), 5);
        assert_eq!(&gz[3..8], &[8, 5, 0, 0, 0]);
        assert_eq!(&gz[10..13], b"g1\0");
    }
}
