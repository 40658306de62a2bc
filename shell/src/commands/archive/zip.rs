//! `zip` on the `zip` crate (deflate through flate2), as Info-ZIP's zip 3.0
//! does the common cases: `zip [-r] [-q] [-j] [-D] [-0..-9] ARCHIVE FILE...`
//! adds or replaces members (`adding:`/`updating:` lines with the deflate
//! ratio), stores what deflate cannot shrink, recurses into directories with
//! `-r`, appends `.zip` to an archive name without a suffix, and ends with
//! `Nothing to do!` (status 12) when no name matched. Each member keeps its
//! file's mode and mtime (the sandbox clock's time when the run made it),
//! as a DOS time in UTC. Like Info-ZIP, it writes its warnings and errors
//! on stdout.

use std::io::{Cursor, Write};

use ::zip::write::SimpleFileOptions;
use ::zip::{CompressionMethod, DateTime, ZipArchive, ZipWriter};

use crate::commands::CommandCtx;
use crate::commands::options::{self, OptSpec, ParseMode, flag};
use crate::fs::FileKind;

const HELP: &str = "\
Copyright (c) 1990-2008 Info-ZIP - Type 'zip \"-L\"' for software license.
Zip 3.0 (July 5th 2008). Usage:
zip [-options] [-b path] [-t mmddyyyy] [-n suffixes] [zipfile list] [-xi list]
  The default action is to add or replace zipfile entries from list, which
  can include the special name - to compress standard input.
  If zipfile and list are omitted, zip compresses stdin to stdout.
  -r   recurse into directories     -j   junk (don't record) directory names
  -0   store only                   -D   do not add directory entries
  -1   compress faster              -9   compress better
  -q   quiet operation              -h   show this help
";

const SPEC: &[OptSpec] = &[
    flag('r', Some("recurse-paths"), "r"),
    flag('q', Some("quiet"), "q"),
    flag('j', Some("junk-paths"), "j"),
    flag('D', Some("no-dir-entries"), "D"),
    flag('h', Some("help"), "help"),
    flag('0', None, "0"),
    flag('1', None, "1"),
    flag('2', None, "2"),
    flag('3', None, "3"),
    flag('4', None, "4"),
    flag('5', None, "5"),
    flag('6', None, "6"),
    flag('7', None, "7"),
    flag('8', None, "8"),
    flag('9', None, "9"),
];

/// One member to write: its name in the archive and its source.
struct Member {
    name: String,
    /// Its path in the tree.
    path: String,
    /// The file's bytes; `None` for a directory entry.
    data: Option<Vec<u8>>,
    mode: u32,
    mtime: i64,
}

/// Info-ZIP's words for a getopt error: `long option 'X' not supported`,
/// `short option 'Q' not supported`; others as getopt says them.
fn info_zip_wording(error: &str) -> String {
    let quoted = |e: &str, prefix: &str| {
        e.strip_prefix(prefix)
            .and_then(|rest| rest.strip_suffix('\''))
            .map(str::to_string)
    };
    if let Some(long) = quoted(error, "unrecognized option '--") {
        return format!("long option '{long}' not supported");
    }
    if let Some(short) = quoted(error, "invalid option -- '") {
        return format!("short option '{short}' not supported");
    }
    error.to_string()
}

/// `zip`
pub fn zip(ctx: &mut CommandCtx<'_>) -> i32 {
    let p = match options::parse(ctx.args, SPEC, ParseMode::default()) {
        Ok(p) => p,
        Err(e) => {
            let _ = writeln!(
                ctx.stdout,
                "\nzip error: Invalid command arguments ({})",
                info_zip_wording(&e)
            );
            return 16;
        }
    };
    if p.has("help") || p.operands.is_empty() {
        let _ = ctx.stdout.write_all(HELP.as_bytes());
        return 0;
    }
    const LEVELS: [&str; 10] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"];
    let level: i64 = p.last_of(&LEVELS).map_or(6, |l| l.parse().unwrap_or(6));
    let mut archive = p.operands[0].clone();
    if !archive.rsplit('/').next().unwrap_or("").contains('.') {
        archive.push_str(".zip");
    }
    let mut members = Vec::new();
    for name in &p.operands[1..] {
        if !collect(ctx, name, p.has("r"), p.has("D"), p.has("j"), &mut members) {
            let _ = writeln!(ctx.stdout, "\tzip warning: name not matched: {name}");
        }
    }
    // The archive never goes into itself.
    let own = ctx.path(&archive);
    members.retain(|m| m.path != own);
    if members.is_empty() {
        let _ = writeln!(ctx.stdout, "\nzip error: Nothing to do! ({archive})");
        return 12;
    }
    write_archive(ctx, &archive, members, level, p.has("q"))
}

/// Adds `name` (and with `recurse` what is under it) to `out`; false when
/// it does not exist.
fn collect(
    ctx: &mut CommandCtx<'_>,
    name: &str,
    recurse: bool,
    no_dirs: bool,
    junk: bool,
    out: &mut Vec<Member>,
) -> bool {
    crate::cancel::point();
    let path = ctx.path(name);
    let Ok(meta) = ctx.fs.metadata(&path) else {
        return false;
    };
    let stored = name.trim_start_matches("./").trim_start_matches('/');
    let stored = if junk {
        stored.rsplit('/').next().unwrap_or(stored)
    } else {
        stored
    };
    if meta.kind == FileKind::Dir {
        let dir_name = format!("{}/", stored.trim_end_matches('/'));
        // `.` itself is no member (its contents are).
        if !no_dirs && !junk && !matches!(stored.trim_end_matches('/'), "" | ".") {
            out.push(Member {
                name: dir_name.clone(),
                path: path.clone(),
                data: None,
                mode: meta.mode,
                mtime: meta.mtime.secs,
            });
        }
        if recurse && let Ok(entries) = ctx.fs.read_dir(&path) {
            let mut names: Vec<String> = entries.into_iter().map(|e| e.name).collect();
            names.sort();
            for n in names {
                let child = format!("{}/{n}", name.trim_end_matches('/'));
                collect(ctx, &child, recurse, no_dirs, junk, out);
            }
        }
        return true;
    }
    // Symlinks are followed, as zip does without -y.
    let Ok(data) = ctx.fs.read(&path) else {
        return false;
    };
    out.push(Member {
        name: stored.to_string(),
        path,
        data: Some(data),
        mode: meta.mode,
        mtime: meta.mtime.secs,
    });
    true
}

/// Writes the archive: the old members kept (those named again replaced in
/// place), the new ones after them. The exit status.
fn write_archive(
    ctx: &mut CommandCtx<'_>,
    archive: &str,
    members: Vec<Member>,
    level: i64,
    quiet: bool,
) -> i32 {
    let path = ctx.path(archive);
    let old = ctx.fs.read(&path).ok();
    let mut w = ZipWriter::new(Cursor::new(Vec::new()));
    let mut pending: Vec<Option<Member>> = members.into_iter().map(Some).collect();
    let mut log = String::new();
    if let Some(old) = &old {
        let Ok(mut zin) = ZipArchive::new(Cursor::new(old.as_slice())) else {
            let _ = writeln!(
                ctx.stdout,
                "\nzip error: Zip file structure invalid ({archive})"
            );
            return 3;
        };
        for i in 0..zin.len() {
            let Ok(file) = zin.by_index_raw(i) else {
                continue;
            };
            let name = file.name().map(|n| n.to_string()).unwrap_or_default();
            let again = pending
                .iter_mut()
                .find(|m| m.as_ref().is_some_and(|m| m.name == name));
            match again.and_then(Option::take) {
                Some(m) => {
                    drop(file);
                    add(&mut w, &m, level, "updating", &mut log);
                }
                None => {
                    let _ = w.raw_copy_file(file);
                }
            }
        }
    }
    for m in pending.into_iter().flatten() {
        add(&mut w, &m, level, "adding", &mut log);
    }
    let bytes = match w.finish() {
        Ok(c) => c.into_inner(),
        Err(e) => {
            let _ = writeln!(ctx.stdout, "zip error: {e}");
            return 15;
        }
    };
    if !quiet {
        let _ = ctx.stdout.write_all(log.as_bytes());
    }
    if let Err(e) = ctx.fs.write(&path, &bytes) {
        let _ = writeln!(ctx.stdout, "zip I/O error: {e}");
        let _ = writeln!(
            ctx.stdout,
            "zip error: Could not create output file ({archive})"
        );
        return 15;
    }
    0
}

/// Writes one member, stored when deflate would not shrink it, and logs
/// Info-ZIP's line for it.
fn add(w: &mut ZipWriter<Cursor<Vec<u8>>>, m: &Member, level: i64, verb: &str, log: &mut String) {
    crate::cancel::point();
    let tm = crate::time::from_epoch(m.mtime.max(315_532_800), 0);
    let time = DateTime::from_date_and_time(
        tm.year.clamp(1980, 2107) as u16,
        tm.month as u8,
        tm.day as u8,
        tm.hour as u8,
        tm.min as u8,
        tm.sec as u8,
    )
    .unwrap_or_default();
    let opts = SimpleFileOptions::default()
        .last_modified_time(time)
        .unix_permissions(m.mode & 0o7777)
        .large_file(
            m.data
                .as_ref()
                .is_some_and(|d| d.len() as u64 >= u32::MAX as u64),
        );
    let Some(data) = &m.data else {
        let _ = w.add_directory(m.name.trim_end_matches('/'), opts);
        log.push_str(&format!("{verb:>8}: {} (stored 0%)\n", m.name));
        return;
    };
    let packed = deflated_len(data, level);
    let deflate = level > 0 && packed < data.len();
    let opts = if deflate {
        opts.compression_method(CompressionMethod::Deflated)
            .compression_level(Some(level))
    } else {
        opts.compression_method(CompressionMethod::Stored)
    };
    if w.start_file(m.name.as_str(), opts).is_ok() {
        for chunk in data.chunks(crate::cancel::CHUNK) {
            crate::cancel::point();
            let _ = w.write_all(chunk);
        }
    }
    let how = if deflate {
        format!("deflated {}%", percent(data.len() as u64, packed as u64))
    } else {
        "stored 0%".to_string()
    };
    log.push_str(&format!("{verb:>8}: {} ({how})\n", m.name));
}

/// The raw deflate size of `data` at `level`.
fn deflated_len(data: &[u8], level: i64) -> usize {
    let mut enc = flate2::write::DeflateEncoder::new(
        Vec::new(),
        flate2::Compression::new(level.clamp(0, 9) as u32),
    );
    for chunk in data.chunks(crate::cancel::CHUNK) {
        crate::cancel::point();
        let _ = enc.write_all(chunk);
    }
    enc.finish().map_or(usize::MAX, |v| v.len())
}

/// Info-ZIP's rounded saving percentage.
fn percent(n: u64, m: u64) -> u64 {
    let (mut n, mut m) = (n, m);
    while n > 0xff_ffff {
        n = (n + 0x80) >> 8;
        m = (m + 0x80) >> 8;
    }
    if n > m {
        (200 * (n - m) / n).div_ceil(2)
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentages_like_info_zip() {
        assert_eq!(percent(3893, 1830), 53);
        assert_eq!(percent(6, 8), 0);
        assert_eq!(percent(100, 0), 100);
    }
}
