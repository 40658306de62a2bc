//! `tar x` and `tar t`: reads an archive (GNU, ustar or pax; gzipped or
//! not) with the `tar` crate and extracts it into the virtual tree or lists it.
//!
//! Extraction refuses anything that could land outside the target
//! directory: names with `..` are skipped (GNU's "Member name contains '..'"),
//! leading `/` is stripped, and every parent directory of a member must
//! resolve inside the target. Symlinks whose target is absolute or climbs
//! with `..` are created only at the end, after an empty placeholder (as GNU
//! does), so a later member can't be written through them.

use crate::commands::text::common::read_stdin;
use std::io::Read;

use super::listing::{LineInfo, Listing};
use super::names::has_dot_dot;
use super::{Fatal, Op, Options, Status, error, safe_name, warn};
use crate::clock::Timestamp;
use crate::commands::CommandCtx;
use crate::fs::{FileKind, FsError, Metadata};

/// The umask GNU tar applies to modes when not run as root without `-p`.
const UMASK: u32 = 0o022;

/// A directory whose mode and mtime are set once everything below it is in
/// place (creating entries would move its mtime again).
struct DelayedDir {
    path: String,
    mode: u32,
    mtime: i64,
}

/// A symlink pointing outside the tree, created at the end in place of its
/// placeholder.
struct DelayedLink {
    path: String,
    target: String,
    mtime: i64,
    placeholder_ino: u64,
}

/// State of one extraction.
struct Extractor {
    base: String,
    /// `-P`: names are trusted as given (absolute ones from `/`).
    absolute: bool,
    delayed_dirs: Vec<DelayedDir>,
    delayed_links: Vec<DelayedLink>,
    /// The last parent directory verified to lie inside `base`, lexical and
    /// real path: consecutive members of one directory skip the walk.
    verified: Option<(String, String)>,
}

impl Extractor {
    /// An extractor with no base yet (`-C` is resolved when extracting).
    fn new(absolute: bool) -> Extractor {
        Extractor {
            base: String::new(),
            absolute,
            delayed_dirs: Vec::new(),
            delayed_links: Vec::new(),
            verified: None,
        }
    }
}

/// The archive's bytes, decompressed when `gzip`: through a cancellation
/// point per read, as a gzip bomb is long work.
fn archive_reader(data: &[u8], gzip: bool) -> Box<dyn Read + '_> {
    if gzip {
        Box::new(flate2::read::MultiGzDecoder::new(crate::cancel::Reader(
            data,
        )))
    } else {
        Box::new(data)
    }
}

pub(crate) fn run(ctx: &mut CommandCtx<'_>, opts: &Options, st: &mut Status) -> Result<(), Fatal> {
    let op = opts.op.unwrap_or(Op::List);
    let data = read_archive(ctx, opts)?;
    let mut ex = Extractor::new(opts.absolute_names);
    if op == Op::Extract && !opts.to_stdout {
        ex.base = extraction_base(ctx, opts)?;
    }
    let is_gzip = data.starts_with(&[0x1f, 0x8b]);
    if opts.gzip && !is_gzip {
        let _ = writeln!(ctx.stderr, "gzip: stdin: not in gzip format");
        warn(ctx, "Child returned status 1");
        return Err(Fatal);
    }
    if data.is_empty() {
        error(ctx, st, "This does not look like a tar archive");
        return Ok(());
    }
    let reader = archive_reader(&data, is_gzip);
    let mut archive = tar::Archive::new(reader);
    let entries = match archive.entries() {
        Ok(e) => e,
        Err(_) => {
            error(ctx, st, "This does not look like a tar archive");
            return Ok(());
        }
    };
    let mut listing = Listing::new(ctx.env);
    let mut matched = vec![false; opts.operands.len()];
    let mut seen_any = false;
    for entry in entries {
        if ctx.control.check().is_err() {
            return Err(Fatal);
        }
        let mut entry = match entry {
            Ok(e) => e,
            Err(e) => return read_error(ctx, st, is_gzip, seen_any, &e),
        };
        seen_any = true;
        let h = read_header(&entry);
        if matches!(h.typeflag, b'g' | b'x' | b'V' | b'L' | b'K') {
            continue;
        }
        let safe = safe_name(ctx, st, opts, &h.raw).to_string();
        // An operand whose members are all excluded is still found.
        let picked = selected(opts, &safe, &mut matched);
        if opts.excludes.matches(&safe) || !picked {
            continue;
        }
        let info = h.line_info();
        if op == Op::List {
            let line = listing_line(&mut listing, &info, opts.verbose > 0);
            let _ = writeln!(ctx.stdout, "{line}");
            continue;
        }
        if !opts.absolute_names && has_dot_dot(&h.raw) {
            error(
                ctx,
                st,
                format_args!("{}: Member name contains '..'", h.raw),
            );
            continue;
        }
        let Some(name) = strip(&safe, opts.strip) else {
            continue;
        };
        if name.is_empty() {
            continue;
        }
        if opts.verbose > 0 {
            let line = listing_line(&mut listing, &info, opts.verbose > 1);
            // With -O the members' data is the output: the listing goes to stderr.
            let out: &mut dyn std::io::Write = if opts.to_stdout {
                &mut *ctx.stderr
            } else {
                &mut *ctx.stdout
            };
            let _ = writeln!(out, "{line}");
        }
        if opts.to_stdout {
            if let Err(e) = member_to_stdout(ctx, &mut entry, h.typeflag) {
                return read_error(ctx, st, is_gzip, true, &e);
            }
            continue;
        }
        if h.size > ctx.control.limits.fs.max_file_size {
            error(
                ctx,
                st,
                format_args!("{name}: Cannot write: {}", FsError::FileTooLarge),
            );
            continue;
        }
        let mut content = Vec::new();
        // Regular files and unknown types (extracted as regular, like GNU).
        if !matches!(h.typeflag, b'1'..=b'6')
            && let Err(e) = entry.read_to_end(&mut content)
        {
            return read_error(ctx, st, is_gzip, true, &e);
        }
        let member = Member {
            name: &name,
            typeflag: h.typeflag,
            mode: h.mode,
            mtime: h.mtime,
            link: h.link.as_deref(),
            data: content,
        };
        ex.extract(ctx, st, opts, member);
    }
    if !seen_any && data.iter().any(|&b| b != 0) && !is_gzip {
        error(ctx, st, "This does not look like a tar archive");
    }
    if op == Op::Extract {
        ex.finish(ctx, st, opts);
    }
    report_unmatched(ctx, st, opts, &matched);
    Ok(())
}

/// `-O`: a regular member's data to stdout (other types have none).
fn member_to_stdout<R: Read>(
    ctx: &mut CommandCtx<'_>,
    entry: &mut tar::Entry<'_, R>,
    typeflag: u8,
) -> std::io::Result<()> {
    if matches!(typeflag, b'0' | 0 | b'7') {
        let mut buf = Vec::new();
        entry.read_to_end(&mut buf)?;
        let _ = ctx.stdout.write_all(&buf);
    }
    Ok(())
}

/// An error for each operand no member matched.
fn report_unmatched(ctx: &mut CommandCtx<'_>, st: &mut Status, opts: &Options, matched: &[bool]) {
    for (i, (_, operand)) in opts.operands.iter().enumerate() {
        if !matched[i] {
            error(ctx, st, format_args!("{operand}: Not found in archive"));
        }
    }
}

/// The archive's bytes: from `-f FILE`, or stdin.
fn read_archive(
    ctx: &mut CommandCtx<'_>,
    opts: &Options,
) -> Result<std::sync::Arc<Vec<u8>>, Fatal> {
    Ok(match opts.file.as_deref().filter(|f| *f != "-") {
        Some(path) => match ctx.fs.read_shared(path) {
            Ok(d) => d,
            Err(e) => {
                let shown = opts.file_arg.as_deref().unwrap_or(path);
                warn(ctx, format_args!("{shown}: Cannot open: {e}"));
                return Err(Fatal);
            }
        },
        None => match read_stdin(ctx.stdin, ctx.fs.max_file_size()) {
            Ok(v) => std::sync::Arc::new(v),
            Err(e) => {
                warn(ctx, format_args!("-: Cannot read: {e}"));
                return Err(Fatal);
            }
        },
    })
}

/// The real path of the `-C` directory members are extracted into.
fn extraction_base(ctx: &mut CommandCtx<'_>, opts: &Options) -> Result<String, Fatal> {
    match ctx.fs.canonicalize(&opts.dir) {
        Ok(b) if ctx.fs.metadata(&b).is_ok_and(|m| m.kind == FileKind::Dir) => Ok(b),
        Ok(_) => {
            warn(
                ctx,
                format_args!("{}: Cannot open: {}", opts.dir, FsError::NotADirectory),
            );
            Err(Fatal)
        }
        Err(e) => {
            warn(ctx, format_args!("{}: Cannot open: {e}", opts.dir));
            Err(Fatal)
        }
    }
}

/// What the listing and extraction need of a member's header.
struct EntryHeader {
    typeflag: u8,
    /// The member name as stored.
    raw: String,
    link: Option<String>,
    mode: u32,
    mtime: i64,
    size: u64,
    user: String,
    group: String,
}

impl EntryHeader {
    fn line_info(&self) -> LineInfo<'_> {
        LineInfo {
            typeflag: self.typeflag,
            mode: self.mode,
            user: &self.user,
            group: &self.group,
            size: self.size,
            mtime: self.mtime,
            name: &self.raw,
            link: self.link.as_deref(),
        }
    }
}

fn read_header<R: Read>(entry: &tar::Entry<'_, R>) -> EntryHeader {
    let header = entry.header();
    EntryHeader {
        typeflag: header.entry_type().as_byte(),
        raw: String::from_utf8_lossy(&entry.path_bytes()).into_owned(),
        link: entry
            .link_name_bytes()
            .map(|l| String::from_utf8_lossy(&l).into_owned()),
        mode: header.mode().unwrap_or(0o644) & 0o7777,
        mtime: header.mtime().unwrap_or(0) as i64,
        size: entry.size(),
        user: owner(header.username_bytes(), header.uid().unwrap_or(0)),
        group: owner(header.groupname_bytes(), header.gid().unwrap_or(0)),
    }
}

/// A member's line in a listing: `ls -l`-like when `long`, else its name.
fn listing_line(listing: &mut Listing, info: &LineInfo<'_>, long: bool) -> String {
    if long {
        listing.line(info)
    } else {
        info.name.to_string()
    }
}

/// Reports a failure to read the archive: a bad first header means it is
/// not an archive; later, the archive was cut short.
fn read_error(
    ctx: &mut CommandCtx<'_>,
    st: &mut Status,
    is_gzip: bool,
    seen_any: bool,
    e: &std::io::Error,
) -> Result<(), Fatal> {
    let gz_error = is_gzip
        && matches!(
            e.kind(),
            std::io::ErrorKind::InvalidInput | std::io::ErrorKind::InvalidData
        );
    if gz_error {
        let _ = writeln!(
            ctx.stderr,
            "gzip: stdin: invalid compressed data--format violated"
        );
        warn(ctx, "Child returned status 1");
        return Err(Fatal);
    }
    if !seen_any && e.kind() != std::io::ErrorKind::UnexpectedEof {
        error(ctx, st, "This does not look like a tar archive");
        return Ok(());
    }
    if is_gzip && e.kind() == std::io::ErrorKind::UnexpectedEof {
        let _ = writeln!(ctx.stderr, "gzip: stdin: unexpected end of file");
    }
    warn(ctx, "Unexpected EOF in archive");
    Err(Fatal)
}

/// `uname` from the header, or the numeric id when it has none.
fn owner(name: Option<&[u8]>, id: u64) -> String {
    match name {
        Some(n) if !n.is_empty() => String::from_utf8_lossy(n).into_owned(),
        _ => id.to_string(),
    }
}

/// True when the member is wanted: no operands, or it is an operand or lies
/// below one. Marks the operands that matched.
fn selected(opts: &Options, name: &str, matched: &mut [bool]) -> bool {
    if opts.operands.is_empty() {
        return true;
    }
    let name = name.trim_end_matches('/');
    let mut any = false;
    for (i, (_, op)) in opts.operands.iter().enumerate() {
        let op = op.trim_end_matches('/');
        if name == op || (name.starts_with(op) && name.as_bytes().get(op.len()) == Some(&b'/')) {
            matched[i] = true;
            any = true;
        }
    }
    any
}

/// `--strip-components=N`: drops N leading components (runs of slashes
/// count once); `None` when the name has no more than N.
fn strip(name: &str, n: usize) -> Option<String> {
    if n == 0 {
        return Some(name.to_string());
    }
    let b = name.as_bytes();
    let mut i = 0;
    while i < b.len() && b[i] == b'/' {
        i += 1;
    }
    let mut left = n;
    while i < b.len() {
        let slash = b[i] == b'/';
        i += 1;
        if slash {
            left -= 1;
            if left == 0 {
                return Some(name[i..].to_string());
            }
            while i < b.len() && b[i] == b'/' {
                i += 1;
            }
        }
    }
    None
}

/// One member to extract.
struct Member<'a> {
    name: &'a str,
    typeflag: u8,
    mode: u32,
    mtime: i64,
    link: Option<&'a str>,
    data: Vec<u8>,
}

fn ts(secs: i64) -> Timestamp {
    Timestamp { secs, nanos: 0 }
}

fn is_within(path: &str, base: &str) -> bool {
    base == "/"
        || path == base
        || (path.starts_with(base) && path.as_bytes().get(base.len()) == Some(&b'/'))
}

impl Extractor {
    /// Makes sure every directory above `name` exists inside the base
    /// (creating missing ones) and returns the real path `name` lands on.
    fn place(&mut self, ctx: &mut CommandCtx<'_>, name: &str) -> Result<String, FsError> {
        let trimmed = name.trim_end_matches('/');
        let (parent_rel, last) = match trimmed.rfind('/') {
            Some(i) => (&trimmed[..i], &trimmed[i + 1..]),
            None => ("", trimmed),
        };
        // Absolute names (only with -P) start from `/` and bypass the cache.
        let from_root = trimmed.starts_with('/');
        let parent_real = match &self.verified {
            Some((lex, real)) if lex == parent_rel && !from_root => real.clone(),
            _ => {
                let mut cur = if from_root {
                    "/".to_string()
                } else {
                    self.base.clone()
                };
                for comp in parent_rel.split('/').filter(|c| !c.is_empty() && *c != ".") {
                    let next = join(&cur, comp);
                    match ctx.fs.symlink_metadata(&next) {
                        Err(FsError::NotFound) => {
                            ctx.fs.mkdir(&next, 0o755)?;
                            cur = next;
                        }
                        Err(e) => return Err(e),
                        Ok(m) if m.kind == FileKind::Dir => cur = next,
                        Ok(m) if m.kind == FileKind::Symlink => {
                            if self.delayed_links.iter().any(|l| l.path == next) {
                                return Err(FsError::NotADirectory);
                            }
                            let real = ctx.fs.canonicalize(&next)?;
                            if !self.absolute && !is_within(&real, &self.base) {
                                return Err(FsError::NotADirectory);
                            }
                            if ctx.fs.metadata(&real)?.kind != FileKind::Dir {
                                return Err(FsError::NotADirectory);
                            }
                            cur = real;
                        }
                        Ok(_) => return Err(FsError::NotADirectory),
                    }
                }
                if !from_root {
                    self.verified = Some((parent_rel.to_string(), cur.clone()));
                }
                cur
            }
        };
        Ok(match last {
            "" | "." => parent_real,
            _ => join(&parent_real, last),
        })
    }

    fn extract(
        &mut self,
        ctx: &mut CommandCtx<'_>,
        st: &mut Status,
        opts: &Options,
        m: Member<'_>,
    ) {
        let target = match self.place(ctx, m.name) {
            Ok(t) => t,
            Err(e) => {
                error(ctx, st, format_args!("{}: Cannot open: {e}", m.name));
                return;
            }
        };
        let mode = if opts.preserve_perms {
            m.mode
        } else {
            m.mode & !UMASK
        };
        let existing = ctx.fs.symlink_metadata(&target).ok();
        match m.typeflag {
            b'5' => self.extract_dir(ctx, st, &m, target, existing, mode),
            b'2' => self.extract_symlink(ctx, st, opts, &m, target, existing),
            b'1' => self.extract_hard_link(ctx, st, opts, &m, target, existing),
            b'6' => self.extract_fifo(ctx, st, opts, &m, target, existing, mode),
            b'3' | b'4' => {
                error(
                    ctx,
                    st,
                    format_args!("{}: Cannot mknod: Operation not permitted", m.name),
                );
            }
            _ => {
                let in_place =
                    opts.overwrite && existing.as_ref().is_some_and(|e| e.kind == FileKind::File);
                if !in_place
                    && !self.clear(
                        ctx,
                        st,
                        opts,
                        m.name,
                        &target,
                        existing.map(|e| e.kind),
                        "Cannot open",
                    )
                {
                    return;
                }
                if let Err(e) = ctx.fs.write(&target, &m.data) {
                    let what = if matches!(e, FsError::NoSpace | FsError::FileTooLarge) {
                        "Cannot write"
                    } else {
                        "Cannot open"
                    };
                    error(ctx, st, format_args!("{}: {what}: {e}", m.name));
                    return;
                }
                let _ = ctx.fs.set_mode(&target, mode);
                if !opts.touch {
                    let _ = ctx.fs.set_mtime(&target, ts(m.mtime));
                }
            }
        }
    }

    /// A directory: replaces a non-directory, and leaves its mode and mtime
    /// for [`Extractor::finish`] (extracting its members would change them).
    fn extract_dir(
        &mut self,
        ctx: &mut CommandCtx<'_>,
        st: &mut Status,
        m: &Member<'_>,
        target: String,
        existing: Option<Metadata>,
        mode: u32,
    ) {
        if let Some(e) = &existing
            && e.kind != FileKind::Dir
            && let Err(err) = ctx.fs.remove_file(&target)
        {
            error(ctx, st, format_args!("{}: Cannot mkdir: {err}", m.name));
            return;
        }
        if existing.as_ref().is_some_and(|e| e.kind != FileKind::Dir) {
            self.verified = None;
        }
        if existing.as_ref().is_none_or(|e| e.kind != FileKind::Dir)
            && let Err(err) = ctx.fs.mkdir(&target, 0o755)
        {
            error(ctx, st, format_args!("{}: Cannot mkdir: {err}", m.name));
            return;
        }
        self.delayed_dirs.push(DelayedDir {
            path: target,
            mode,
            mtime: m.mtime,
        });
    }

    /// A symlink. One pointing outside (absolute, or with `..`) is created
    /// last, after a placeholder file ([`Extractor::finish`]), so that no
    /// later member is written through it.
    fn extract_symlink(
        &mut self,
        ctx: &mut CommandCtx<'_>,
        st: &mut Status,
        opts: &Options,
        m: &Member<'_>,
        target: String,
        existing: Option<Metadata>,
    ) {
        let Some(link) = m.link else { return };
        if !self.clear(
            ctx,
            st,
            opts,
            m.name,
            &target,
            existing.map(|e| e.kind),
            "Cannot create symlink",
        ) {
            return;
        }
        // Anything below this name must be re-verified.
        self.verified = None;
        if link.starts_with('/') || has_dot_dot(link) {
            match ctx
                .fs
                .write(&target, b"")
                .and_then(|_| ctx.fs.symlink_metadata(&target))
            {
                Ok(meta) => self.delayed_links.push(DelayedLink {
                    path: target,
                    target: link.to_string(),
                    mtime: m.mtime,
                    placeholder_ino: meta.ino,
                }),
                Err(e) => error(ctx, st, format_args!("{}: Cannot open: {e}", m.name)),
            }
            return;
        }
        match ctx.fs.symlink(link, &target) {
            Ok(()) => {
                if !opts.touch {
                    let _ = ctx.fs.set_symlink_mtime(&target, ts(m.mtime));
                }
            }
            Err(e) => error(
                ctx,
                st,
                format_args!("{}: Cannot create symlink to '{link}': {e}", m.name),
            ),
        }
    }

    /// A FIFO (`mkfifo` needs no privilege, unlike device nodes).
    #[allow(clippy::too_many_arguments)]
    fn extract_fifo(
        &mut self,
        ctx: &mut CommandCtx<'_>,
        st: &mut Status,
        opts: &Options,
        m: &Member<'_>,
        target: String,
        existing: Option<Metadata>,
        mode: u32,
    ) {
        let kind = existing.map(|e| e.kind);
        if !self.clear(ctx, st, opts, m.name, &target, kind, "Cannot mknod") {
            return;
        }
        if let Err(e) = ctx.fs.mkfifo(&target, mode) {
            error(ctx, st, format_args!("{}: Cannot mknod: {e}", m.name));
            return;
        }
        if !opts.touch {
            let _ = ctx.fs.set_mtime(&target, ts(m.mtime));
        }
    }

    /// A hard link to a member extracted before (its name stripped and
    /// placed like the member's own).
    fn extract_hard_link(
        &mut self,
        ctx: &mut CommandCtx<'_>,
        st: &mut Status,
        opts: &Options,
        m: &Member<'_>,
        target: String,
        existing: Option<Metadata>,
    ) {
        let Some(link) = m.link else { return };
        let link_safe = super::names::split_unsafe_prefix(link).1;
        if has_dot_dot(link) && !opts.absolute_names {
            error(ctx, st, format_args!("{}: Member name contains '..'", link));
            return;
        }
        let source = match strip(link_safe, opts.strip) {
            None => return,
            Some(l) => match self.place(ctx, &l) {
                Ok(s) => s,
                Err(e) => {
                    error(
                        ctx,
                        st,
                        format_args!("{}: Cannot hard link to '{link}': {e}", m.name),
                    );
                    return;
                }
            },
        };
        if !self.clear(
            ctx,
            st,
            opts,
            m.name,
            &target,
            existing.map(|e| e.kind),
            "Cannot hard link",
        ) {
            return;
        }
        if let Err(e) = ctx.fs.hard_link(&source, &target) {
            error(
                ctx,
                st,
                format_args!("{}: Cannot hard link to '{link}': {e}", m.name),
            );
        }
    }

    /// Removes what is in the way of a non-directory member (never writing
    /// through an existing symlink). False when the member must be skipped.
    #[allow(clippy::too_many_arguments)]
    fn clear(
        &mut self,
        ctx: &mut CommandCtx<'_>,
        st: &mut Status,
        opts: &Options,
        name: &str,
        target: &str,
        existing: Option<FileKind>,
        what: &str,
    ) -> bool {
        let Some(kind) = existing else { return true };
        if opts.skip_old {
            return false;
        }
        if opts.keep_old {
            error(
                ctx,
                st,
                format_args!("{name}: {what}: {}", FsError::AlreadyExists),
            );
            return false;
        }
        let r = if kind == FileKind::Dir {
            ctx.fs.remove_dir(target)
        } else {
            ctx.fs.remove_file(target)
        };
        match r {
            Ok(()) => {
                // A removed directory or symlink may be a cached parent.
                if kind != FileKind::File {
                    self.verified = None;
                }
                true
            }
            Err(FsError::DirectoryNotEmpty) => {
                error(
                    ctx,
                    st,
                    format_args!("{name}: {what}: {}", FsError::IsADirectory),
                );
                false
            }
            Err(e) => {
                error(ctx, st, format_args!("{name}: {what}: {e}"));
                false
            }
        }
    }

    /// Creates the delayed symlinks, then sets directory modes and mtimes.
    fn finish(&mut self, ctx: &mut CommandCtx<'_>, st: &mut Status, opts: &Options) {
        for l in std::mem::take(&mut self.delayed_links) {
            // Only replace the placeholder if nothing changed it since.
            let unchanged = ctx.fs.symlink_metadata(&l.path).is_ok_and(|m| {
                m.ino == l.placeholder_ino && m.kind == FileKind::File && m.size == 0
            });
            if !unchanged {
                continue;
            }
            let r = ctx
                .fs
                .remove_file(&l.path)
                .and_then(|_| ctx.fs.symlink(&l.target, &l.path));
            match r {
                Ok(()) => {
                    if !opts.touch {
                        let _ = ctx.fs.set_symlink_mtime(&l.path, ts(l.mtime));
                    }
                }
                Err(e) => error(
                    ctx,
                    st,
                    format_args!("{}: Cannot create symlink to '{}': {e}", l.path, l.target),
                ),
            }
        }
        for d in std::mem::take(&mut self.delayed_dirs).into_iter().rev() {
            let _ = ctx.fs.set_mode(&d.path, d.mode);
            if !opts.touch {
                let _ = ctx.fs.set_mtime(&d.path, ts(d.mtime));
            }
        }
    }
}

fn join(dir: &str, name: &str) -> String {
    if dir == "/" {
        format!("/{name}")
    } else {
        format!("{dir}/{name}")
    }
}
