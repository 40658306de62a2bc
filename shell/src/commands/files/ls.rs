//! `ls`: list directory contents. Standard output is never a terminal in the
//! sandbox, so the default is one name per line, as in `ls | cat`.

use super::common::GnuError;
use std::io::Write;

use super::common::{Parsed, invalid_choice, mode_string, quote};
use crate::clock::Timestamp;
use crate::commands::CommandCtx;
use crate::fs::{FileKind, Metadata};
use crate::time::{Zone, strftime};

/// The fixed owner and group of every node.
pub const OWNER: &str = "sandbox";
/// The fixed numeric id of [`OWNER`].
pub const OWNER_ID: u32 = 1000;

declare_options! {
    /// `ls`'s options, in the order of its help.
    pub(crate) enum LsOpt {
        usage: "Usage: ls [OPTION]... [FILE]...",
        about: "\
List the FILEs, and the contents of those that are directories (by default,
the current directory), sorted by name unless an option says otherwise.
Output is one name per line unless -C, -x, -m or -l asks for another format.
",
        after: "",
        rows: [
            OnePerLine: '1' - none => "one entry per line",
            All: 'a' "all" none => "include entries whose names start with .",
            AlmostAll: 'A' "almost-all" none => "like -a, but leave out . and ..",
            Columns: 'C' - none => "list entries in columns, down then across",
            Color: - "color" optional "WHEN" => "accepted (always, never, auto); the output is
                never colored",
            Directory: 'd' "directory" none => "list directories themselves, not their contents",
            Unsorted: 'f' - none => "like -a -U: all entries, in directory order",
            Classify: 'F' "classify" none => "append one of */@| to names by file type",
            FileType: - "file-type" none => "likewise, except do not append '*'",
            Format: - "format" required "WORD" => "across -x, commas -m, horizontal -x, long -l,
                single-column -1, verbose -l, vertical -C",
            FullTime: - "full-time" none => "like -l --time-style=full-iso",
            NoOwner: 'g' - none => "like -l, without the owner",
            NoGroup: 'G' "no-group" none => "leave the group out of long listings",
            GroupDirectoriesFirst: - "group-directories-first" none => "list directories before files",
            HumanReadable: 'h' "human-readable" none => "with -l and -s, show sizes like 1K 234M 2G",
            Inode: 'i' "inode" none => "show each file's inode number",
            Long: 'l' - none => "long listing: mode, links, owner, group, size,
                time, name",
            Dereference: 'L' "dereference" none => "show the file a symbolic link points to, not
                the link",
            Commas: 'm' - none => "a comma-separated list filling the width",
            NumericUidGid: 'n' "numeric-uid-gid" none => "like -l, with numeric owner and group",
            Literal: 'N' "literal" none => "print names as they are, unquoted",
            LongNoGroup: 'o' - none => "like -l, without the group",
            IndicatorStyle: - "indicator-style" required "WORD" => "append indicator with style WORD to entry
                names: none, slash (-p), file-type
                (--file-type), classify (-F)",
            Slash: 'p' - none => "append / to directory names",
            HideControlChars: 'q' "hide-control-chars" none => "print ? instead of nongraphic characters",
            Reverse: 'r' "reverse" none => "reverse the sort order",
            Recursive: 'R' "recursive" none => "list subdirectories recursively",
            Size: 's' "size" none => "show each file's size in 1K blocks",
            SortBySize: 'S' - none => "sort by size, largest first",
            Sort: - "sort" required "WORD" => "sort by WORD: name, none (-U), size (-S),
                time (-t), version (-v), extension (-X),
                width (shortest name first)",
            SortByTime: 't' - none => "sort by modification time, newest first",
            TimeStyle: - "time-style" required "STYLE" => "time format of long listings: full-iso,
                long-iso, iso, locale, or +FORMAT (as date's;
                +OLD<newline>RECENT gives two formats)",
            DirectoryOrder: 'U' - none => "do not sort: list in directory order",
            SortByVersion: 'v' - none => "sort by version numbers within names",
            Width: 'w' "width" required "COLS" => "assume a line COLS wide (default: $COLUMNS
                or 80)",
            Across: 'x' - none => "list entries in rows, across then down",
            SortByExtension: 'X' - none => "sort by extension",
        ],
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Sort {
    Name,
    Time,
    Size,
    None,
    Ext,
    Version,
    /// `--sort=width`: shortest name first.
    Width,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Indicator {
    None,
    Slash,
    /// `--file-type`: as `-F` without the `*` of executables.
    FileType,
    Classify,
}

struct Opts {
    all: bool,
    almost_all: bool,
    long: bool,
    recursive: bool,
    sort: Sort,
    reverse: bool,
    human: bool,
    dirs_only: bool,
    indicator: Indicator,
    inode: bool,
    numeric: bool,
    show_owner: bool,
    show_group: bool,
    deref: bool,
    /// `-q`: nongraphic characters of names shown as `?`.
    hide_control: bool,
    /// `strftime` formats for old and recent times (`--time-style`).
    time_formats: (String, String),
    comma: bool,
    /// `-C` (Some(true), down columns) or `-x` (Some(false), across).
    columns: Option<bool>,
    /// Line width for `-C`, `-x` and `-m`.
    width: usize,
    size_blocks: bool,
    group_dirs: bool,
    now: Timestamp,
    /// Where times are shown: the zone `TZ` names.
    zone: Zone,
}

/// One listed node.
struct Entry {
    /// The name shown.
    name: String,
    /// The absolute virtual path.
    path: String,
    /// Metadata shown (the link itself unless dereferencing).
    meta: Metadata,
    /// For a symlink: its target text and the target's metadata, if it resolves.
    link: Option<(String, Option<Metadata>)>,
    /// For a device: its major and minor numbers (shown where the size goes).
    device: Option<(u32, u32)>,
}

impl Entry {
    fn is_dir_followed(&self) -> bool {
        match &self.link {
            Some((_, Some(m))) => m.kind == FileKind::Dir,
            _ => self.meta.kind == FileKind::Dir,
        }
    }
}

/// The options. `Err` is the status to exit with, the message written.
fn parse_options(ctx: &mut CommandCtx<'_>, p: &Parsed<LsOpt>) -> Result<Opts, i32> {
    let mut o = Opts {
        all: false,
        almost_all: false,
        long: false,
        recursive: false,
        sort: Sort::Name,
        reverse: false,
        human: false,
        dirs_only: false,
        indicator: Indicator::None,
        inode: false,
        numeric: false,
        show_owner: true,
        show_group: true,
        deref: false,
        hide_control: false,
        time_formats: ("%b %e  %Y".into(), "%b %e %H:%M".into()),
        comma: false,
        columns: None,
        width: 80,
        size_blocks: false,
        group_dirs: false,
        now: ctx.control.clock.now(),
        zone: Zone::from_env(ctx.env),
    };
    for (id, v) in &p.opts {
        apply_option(ctx, &mut o, *id, v.as_deref())?;
    }
    let default_formats = o.time_formats.clone();
    o.time_formats = time_formats(ctx, p, default_formats)?;
    let width_arg = p
        .last(LsOpt::Width)
        .map(String::from)
        .or_else(|| ctx.getenv("COLUMNS").map(String::from));
    if let Some(w) = width_arg {
        match w.parse::<usize>() {
            Ok(n) => o.width = n,
            Err(_) if p.last(LsOpt::Width).is_some() => {
                ctx.gnu_error(format_args!(
                    "invalid line width: {}",
                    super::common::quote_locale(&w)
                ));
                return Err(2);
            }
            Err(_) => {}
        }
    }
    Ok(o)
}

/// One option `id` (with its argument `v`), in command-line order: those
/// that override each other do so by coming later. `Err` is the status
/// after the error message.
fn apply_option(
    ctx: &mut CommandCtx<'_>,
    o: &mut Opts,
    id: LsOpt,
    v: Option<&str>,
) -> Result<(), i32> {
    match id {
        LsOpt::All => {
            o.all = true;
            o.almost_all = false;
        }
        LsOpt::AlmostAll => {
            o.almost_all = true;
            o.all = false;
        }
        LsOpt::Unsorted => {
            o.all = true;
            o.sort = Sort::None;
        }
        LsOpt::Long
        | LsOpt::NumericUidGid
        | LsOpt::NoOwner
        | LsOpt::LongNoGroup
        | LsOpt::FullTime => {
            o.long = true;
            o.comma = false;
            match id {
                LsOpt::NumericUidGid => o.numeric = true,
                LsOpt::NoOwner => o.show_owner = false,
                LsOpt::LongNoGroup => o.show_group = false,
                _ => {}
            }
        }
        LsOpt::OnePerLine | LsOpt::Columns | LsOpt::Across => {
            o.long = false;
            o.comma = false;
            o.columns = match id {
                LsOpt::Columns => Some(true),
                LsOpt::Across => Some(false),
                _ => None,
            };
        }
        LsOpt::Commas => {
            o.comma = true;
            o.columns = None;
            o.long = false;
        }
        LsOpt::SortByTime => o.sort = Sort::Time,
        LsOpt::SortBySize => o.sort = Sort::Size,
        LsOpt::DirectoryOrder => o.sort = Sort::None,
        LsOpt::SortByExtension => o.sort = Sort::Ext,
        LsOpt::SortByVersion => o.sort = Sort::Version,
        LsOpt::Classify => o.indicator = Indicator::Classify,
        LsOpt::Slash => o.indicator = Indicator::Slash,
        LsOpt::FileType => o.indicator = Indicator::FileType,
        LsOpt::IndicatorStyle => o.indicator = indicator_style(ctx, v.unwrap_or(""))?,
        // Each format is the option that asks for it.
        LsOpt::Format => {
            let same_as = format_option(ctx, v.unwrap_or(""))?;
            apply_option(ctx, o, same_as, None)?;
        }
        LsOpt::Color => check_color(ctx, v)?,
        LsOpt::Sort => o.sort = sort_word(ctx, v.unwrap_or(""))?,
        LsOpt::Recursive => o.recursive = true,
        LsOpt::Reverse => o.reverse = true,
        LsOpt::HumanReadable => o.human = true,
        LsOpt::Directory => o.dirs_only = true,
        LsOpt::Inode => o.inode = true,
        LsOpt::NoGroup => o.show_group = false,
        LsOpt::Dereference => o.deref = true,
        LsOpt::Size => o.size_blocks = true,
        LsOpt::GroupDirectoriesFirst => o.group_dirs = true,
        LsOpt::HideControlChars => o.hide_control = true,
        // Names are printed as they are on a pipe: -N changes nothing
        // (and, as in GNU, does not undo -q).
        LsOpt::Literal => {}
        // Read with the other time options by `time_formats`, and with
        // `$COLUMNS` after the loop.
        LsOpt::TimeStyle | LsOpt::Width => {}
    }
    Ok(())
}

/// `--indicator-style=WORD`. `Err` is the status after argmatch's message.
fn indicator_style(ctx: &mut CommandCtx<'_>, word: &str) -> Result<Indicator, i32> {
    Ok(match word {
        "none" => Indicator::None,
        "slash" => Indicator::Slash,
        "file-type" => Indicator::FileType,
        "classify" => Indicator::Classify,
        other => {
            let valid: &[&[&str]] = &[&["none"], &["slash"], &["file-type"], &["classify"]];
            return Err(invalid_choice(ctx, "--indicator-style", other, valid));
        }
    })
}

/// `--format=WORD`: the option that asks for the same format.
fn format_option(ctx: &mut CommandCtx<'_>, word: &str) -> Result<LsOpt, i32> {
    Ok(match word {
        "verbose" | "long" => LsOpt::Long,
        "commas" => LsOpt::Commas,
        "horizontal" | "across" => LsOpt::Across,
        "vertical" => LsOpt::Columns,
        "single-column" => LsOpt::OnePerLine,
        other => {
            let valid: &[&[&str]] = &[
                &["verbose", "long"],
                &["commas"],
                &["horizontal", "across"],
                &["vertical"],
                &["single-column"],
            ];
            return Err(invalid_choice(ctx, "--format", other, valid));
        }
    })
}

/// `--color[=WHEN]`: checked, then ignored (the output is never coloured).
fn check_color(ctx: &mut CommandCtx<'_>, when: Option<&str>) -> Result<(), i32> {
    let words = [
        "always", "yes", "force", "never", "no", "none", "auto", "tty", "if-tty",
    ];
    if let Some(w) = when.filter(|w| !words.contains(w)) {
        let valid: &[&[&str]] = &[
            &["always", "yes", "force"],
            &["never", "no", "none"],
            &["auto", "tty", "if-tty"],
        ];
        return Err(invalid_choice(ctx, "--color", w, valid));
    }
    Ok(())
}

/// `--sort=WORD`.
fn sort_word(ctx: &mut CommandCtx<'_>, word: &str) -> Result<Sort, i32> {
    Ok(match word {
        "none" => Sort::None,
        "time" => Sort::Time,
        "size" => Sort::Size,
        "extension" => Sort::Ext,
        "version" => Sort::Version,
        "name" => Sort::Name,
        "width" => Sort::Width,
        other => {
            let valid: &[&[&str]] = &[
                &["none"],
                &["time"],
                &["size"],
                &["extension"],
                &["version"],
                &["width"],
            ];
            return Err(invalid_choice(ctx, "--sort", other, valid));
        }
    })
}

/// `--time-style` / `--full-time`: the formats for old and recent times
/// (`default` for `locale` or neither). `Err` is the status after the error
/// message.
fn time_formats(
    ctx: &mut CommandCtx<'_>,
    p: &Parsed<LsOpt>,
    default: (String, String),
) -> Result<(String, String), i32> {
    let style = match p.last_of(&[LsOpt::FullTime, LsOpt::TimeStyle]) {
        Some(LsOpt::FullTime) => Some("full-iso".to_string()),
        Some(_) => p.last(LsOpt::TimeStyle).map(String::from),
        None => None,
    };
    let Some(style) = style else {
        return Ok(default);
    };
    let s = style.strip_prefix("posix-").unwrap_or(&style);
    Ok(match s {
        "full-iso" => (
            "%Y-%m-%d %H:%M:%S.%N %z".into(),
            "%Y-%m-%d %H:%M:%S.%N %z".into(),
        ),
        "long-iso" => ("%Y-%m-%d %H:%M".into(), "%Y-%m-%d %H:%M".into()),
        "iso" => ("%Y-%m-%d ".into(), "%m-%d %H:%M".into()),
        "locale" => default,
        f if f.starts_with('+') => match f[1..].split_once('\n') {
            Some((old, recent)) => (old.into(), recent.into()),
            None => (f[1..].into(), f[1..].into()),
        },
        _ => {
            let name = ctx.args[0].clone();
            let _ = ctx.stdout.flush();
            let _ = writeln!(
                ctx.stderr,
                "{name}: invalid argument {} for ‘time style’\nValid arguments are:\n  - [posix-]full-iso\n  - [posix-]long-iso\n  - [posix-]iso\n  - [posix-]locale\n  - +FORMAT (e.g., +%H:%M) for a 'date'-style format\nTry '{name} --help' for more information.",
                super::common::quote_locale(&style)
            );
            return Err(2);
        }
    })
}

/// A name as listed: with `-q`, each nongraphic character as `?`.
fn shown<'a>(name: &'a str, o: &Opts) -> std::borrow::Cow<'a, str> {
    if o.hide_control && name.chars().any(char::is_control) {
        let hidden = name.chars().map(|c| if c.is_control() { '?' } else { c });
        std::borrow::Cow::Owned(hidden.collect())
    } else {
        std::borrow::Cow::Borrowed(name)
    }
}

/// `ls [OPTION]... [FILE]...`
pub fn ls(ctx: &mut CommandCtx<'_>) -> i32 {
    let Some(p) = LsOpt::TABLE.parse_or_usage(ctx) else {
        return 2;
    };
    let o = match parse_options(ctx, &p) {
        Ok(o) => o,
        Err(status) => return status,
    };
    let operands = if p.operands.is_empty() {
        vec![".".to_string()]
    } else {
        p.operands.clone()
    };
    let follow_cmdline = o.deref || !(o.dirs_only || o.long || o.indicator == Indicator::Classify);
    let mut status = 0;
    let mut files = Vec::new();
    let mut dirs = Vec::new();
    for name in &operands {
        let path = ctx.path(name);
        let lmeta = match super::common::slash_check(ctx.fs, name, &path)
            .and_then(|()| ctx.fs.symlink_metadata(&path))
        {
            Ok(m) => m,
            Err(e) => {
                ctx.gnu_error(format_args!("cannot access {}: {e}", quote(name)));
                status = 2;
                continue;
            }
        };
        let mut entry = make_entry(ctx, name.clone(), path, lmeta, o.deref);
        if entry.meta.kind == FileKind::Symlink
            && (follow_cmdline || name.ends_with('/'))
            && let Some((_, Some(m))) = &entry.link
        {
            entry.meta = m.clone();
            entry.link = None;
        }
        if !o.dirs_only && entry.meta.kind == FileKind::Dir {
            dirs.push(entry);
        } else {
            files.push(entry);
        }
    }
    let mut out = Vec::new();
    sort_entries(&mut files, &o);
    sort_entries(&mut dirs, &o);
    let print_headers = operands.len() > 1 || o.recursive;
    let mut first = true;
    if !files.is_empty() {
        print_entries(&files, &o, false, &mut out);
        first = false;
    }
    for d in &dirs {
        let s = list_dir(ctx, d, &o, print_headers, &mut first, &mut out, true);
        status = status.max(s);
        if out.len() > 64 * 1024 {
            if write_names(ctx, &out).is_err() {
                return 2;
            }
            out.clear();
        }
        if ctx.control.check().is_err() {
            break;
        }
    }
    let _ = write_names(ctx, &out);
    status
}

/// Writes listed text, names made from raw bytes as those bytes
/// ([`crate::bytes`]), as GNU ls writes them to a pipe.
fn write_names(ctx: &mut CommandCtx<'_>, out: &[u8]) -> std::io::Result<()> {
    match std::str::from_utf8(out) {
        Ok(text) => ctx.stdout.write_all(&crate::bytes::encode(text)),
        Err(_) => ctx.stdout.write_all(out),
    }
}

fn make_entry(
    ctx: &CommandCtx<'_>,
    name: String,
    path: String,
    lmeta: Metadata,
    deref: bool,
) -> Entry {
    let (meta, link) = if lmeta.kind == FileKind::Symlink {
        let target = ctx.fs.read_link(&path).unwrap_or_default();
        let tmeta = ctx.fs.metadata(&path).ok();
        match tmeta {
            Some(m) if deref => (m, None),
            _ => (lmeta, Some((target, tmeta))),
        }
    } else {
        (lmeta, None)
    };
    let device = (meta.kind == FileKind::CharDevice)
        .then(|| ctx.fs.device(&path).map(|d| d.numbers()))
        .flatten();
    Entry {
        name,
        path,
        meta,
        link,
        device,
    }
}

fn list_dir(
    ctx: &mut CommandCtx<'_>,
    dir: &Entry,
    o: &Opts,
    header: bool,
    first: &mut bool,
    out: &mut Vec<u8>,
    cmdline: bool,
) -> i32 {
    if !*first {
        out.push(b'\n');
    }
    *first = false;
    let listing = match ctx.fs.read_dir(&dir.path) {
        Ok(l) => l,
        Err(e) => {
            ctx.gnu_error(format_args!(
                "cannot open directory {}: {e}",
                quote(&dir.name)
            ));
            return if cmdline { 2 } else { 1 };
        }
    };
    if header {
        out.extend_from_slice(dir.name.as_bytes());
        out.extend_from_slice(b":\n");
    }
    let mut entries = Vec::new();
    if o.all {
        for n in [".", ".."] {
            let path = crate::fs::Fs::resolve(&dir.path, n);
            if let Ok(m) = ctx.fs.metadata(&path) {
                entries.push(Entry {
                    name: n.to_string(),
                    path,
                    meta: m,
                    link: None,
                    device: None,
                });
            }
        }
    }
    for de in listing {
        if de.name.starts_with('.') && !(o.all || o.almost_all) {
            continue;
        }
        let path = super::common::join(&dir.path, &de.name);
        let Ok(lmeta) = ctx.fs.symlink_metadata(&path) else {
            continue;
        };
        entries.push(make_entry(ctx, de.name, path, lmeta, o.deref));
    }
    sort_entries(&mut entries, o);
    if o.long || o.size_blocks {
        let total: u64 = entries.iter().map(|e| blocks(&e.meta)).sum();
        let t = if o.human {
            human(total * 1024)
        } else {
            total.to_string()
        };
        let _ = writeln!(out, "total {t}");
    }
    print_entries(&entries, o, true, out);
    let mut status = 0;
    if o.recursive {
        for e in &entries {
            if e.meta.kind == FileKind::Dir && e.name != "." && e.name != ".." {
                if ctx.control.check().is_err() {
                    return status;
                }
                let sub = Entry {
                    name: super::common::join(&dir.name, &e.name),
                    path: e.path.clone(),
                    meta: e.meta.clone(),
                    link: None,
                    device: None,
                };
                status = status.max(list_dir(ctx, &sub, o, true, first, out, false));
            }
        }
    }
    status
}

/// 1 KiB blocks a node occupies, as a 4 KiB-block filesystem would report.
fn blocks(m: &Metadata) -> u64 {
    match m.kind {
        FileKind::Dir => 4,
        FileKind::File => m.size.div_ceil(4096) * 4,
        _ => 0,
    }
}

/// The size `ls -l` and `stat` show: directories are one 4 KiB block.
pub fn display_size(m: &Metadata) -> u64 {
    match m.kind {
        FileKind::Dir => 4096,
        _ => m.size,
    }
}

fn sort_entries(v: &mut [Entry], o: &Opts) {
    match o.sort {
        Sort::None => {}
        Sort::Name => v.sort_by(|a, b| a.name.cmp(&b.name)),
        Sort::Version => v.sort_by(|a, b| version_cmp(&a.name, &b.name)),
        Sort::Ext => v.sort_by(|a, b| {
            let ea = a
                .name
                .rfind('.')
                .filter(|&i| i > 0)
                .map(|i| &a.name[i..])
                .unwrap_or("");
            let eb = b
                .name
                .rfind('.')
                .filter(|&i| i > 0)
                .map(|i| &b.name[i..])
                .unwrap_or("");
            ea.cmp(eb).then_with(|| a.name.cmp(&b.name))
        }),
        Sort::Time => v.sort_by(|a, b| {
            b.meta
                .mtime
                .cmp(&a.meta.mtime)
                .then_with(|| a.name.cmp(&b.name))
        }),
        Sort::Width => v.sort_by(|a, b| {
            let width = |e: &Entry| e.name.chars().count();
            width(a).cmp(&width(b)).then_with(|| a.name.cmp(&b.name))
        }),
        Sort::Size => v.sort_by(|a, b| {
            display_size(&b.meta)
                .cmp(&display_size(&a.meta))
                .then_with(|| a.name.cmp(&b.name))
        }),
    }
    if o.reverse && o.sort != Sort::None {
        v.reverse();
    }
    if o.group_dirs {
        v.sort_by_key(|e| !e.is_dir_followed());
    }
}

/// Compares names the way `ls -v` / `sort -V` do: digit runs numerically.
pub fn version_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    let (ab, bb) = (a.as_bytes(), b.as_bytes());
    let (mut i, mut j) = (0, 0);
    while i < ab.len() && j < bb.len() {
        if ab[i].is_ascii_digit() && bb[j].is_ascii_digit() {
            let si = i;
            while i < ab.len() && ab[i].is_ascii_digit() {
                i += 1;
            }
            let sj = j;
            while j < bb.len() && bb[j].is_ascii_digit() {
                j += 1;
            }
            let na = a[si..i].trim_start_matches('0');
            let nb = b[sj..j].trim_start_matches('0');
            let c = na.len().cmp(&nb.len()).then_with(|| na.cmp(nb));
            if c != std::cmp::Ordering::Equal {
                return c;
            }
        } else {
            if ab[i] != bb[j] {
                return ab[i].cmp(&bb[j]);
            }
            i += 1;
            j += 1;
        }
    }
    (ab.len() - i).cmp(&(bb.len() - j))
}

/// GNU's multi-column layout (`-C` down, `-x` across): as many columns as
/// fit in `width`, each as wide as its longest name plus two, padded with
/// tabs (tab stops of 8) the way `ls` does.
fn print_columns(texts: &[String], vertical: bool, width: usize, out: &mut Vec<u8>) {
    const MIN_COL: usize = 3;
    let n = texts.len();
    let lens: Vec<usize> = texts.iter().map(|t| t.chars().count()).collect();
    let max_cols = if width == 0 {
        n
    } else {
        (width / MIN_COL).max(1).min(n)
    };
    let mut best: (usize, Vec<usize>) = (1, vec![lens.iter().copied().max().unwrap_or(0)]);
    for cols in (1..=max_cols).rev() {
        let rows = n.div_ceil(cols);
        let mut widths = vec![MIN_COL; cols];
        for (k, len) in lens.iter().enumerate() {
            let col = if vertical { k / rows } else { k % cols };
            if col >= cols {
                continue;
            }
            let w = len + if col == cols - 1 { 0 } else { 2 };
            widths[col] = widths[col].max(w);
        }
        let total: usize = widths.iter().sum();
        if width == 0 || total < width || cols == 1 {
            best = (cols, widths);
            break;
        }
    }
    let (cols, widths) = best;
    let rows = n.div_ceil(cols);
    for r in 0..rows {
        let mut pos = 0;
        let mut c = 0;
        loop {
            let k = if vertical { r + c * rows } else { r * cols + c };
            if k >= n || (!vertical && c >= cols) {
                break;
            }
            out.extend_from_slice(texts[k].as_bytes());
            let next = if vertical { k + rows } else { k + 1 };
            let next_in_row = if vertical {
                next < n
            } else {
                c + 1 < cols && next < n
            };
            if !next_in_row {
                break;
            }
            let from = pos + lens[k];
            let to = pos + widths[c];
            let mut f = from;
            while f < to {
                if to / 8 > (f + 1) / 8 {
                    out.push(b'\t');
                    f += 8 - f % 8;
                } else {
                    out.push(b' ');
                    f += 1;
                }
            }
            pos = to;
            c += 1;
        }
        out.push(b'\n');
    }
}

/// GNU's `-h` format: one decimal below 10, rounded up; powers of 1024.
pub fn human(n: u64) -> String {
    if n < 1024 {
        return n.to_string();
    }
    let units = ['K', 'M', 'G', 'T', 'P', 'E'];
    let mut v = n as f64;
    let mut u = 0;
    v /= 1024.0;
    loop {
        if v < 10.0 {
            let r = (v * 10.0).ceil() / 10.0;
            if r < 10.0 {
                return format!("{r:.1}{}", units[u]);
            }
            return format!("10{}", units[u]);
        }
        let r = v.ceil();
        if r < 1024.0 || u == units.len() - 1 {
            return format!("{}{}", r as u64, units[u]);
        }
        v /= 1024.0;
        u += 1;
    }
}

fn indicator(e: &Entry, o: &Opts) -> &'static str {
    let kind = e.meta.kind;
    match o.indicator {
        Indicator::None => "",
        Indicator::Slash => {
            if kind == FileKind::Dir {
                "/"
            } else {
                ""
            }
        }
        Indicator::FileType | Indicator::Classify => match kind {
            FileKind::Dir => "/",
            FileKind::Symlink => "@",
            FileKind::Fifo => "|",
            FileKind::File if o.indicator == Indicator::Classify && e.meta.mode & 0o111 != 0 => "*",
            _ => "",
        },
    }
}

fn format_time(t: Timestamp, o: &Opts) -> String {
    let tm = o.zone.local(t.secs, t.nanos);
    let six_months = 31_556_952 / 2;
    let recent = t.secs > o.now.secs - six_months && t <= o.now;
    if recent {
        strftime(&o.time_formats.1, &tm)
    } else {
        strftime(&o.time_formats.0, &tm)
    }
}

fn print_entries(entries: &[Entry], o: &Opts, _in_dir: bool, out: &mut Vec<u8>) {
    if entries.is_empty() {
        return;
    }
    let w = prefix_widths(entries, o);
    let frill = |e: &Entry| -> String {
        let mut s = prefix(e, o, &w);
        s.push_str(&shown(&e.name, o));
        s.push_str(indicator(e, o));
        s
    };
    if o.comma {
        // GNU wraps `-m` output at the line width.
        let mut pos = 0;
        for (k, e) in entries.iter().enumerate() {
            let text = frill(e);
            let len = text.chars().count();
            if k > 0 {
                if o.width == 0 || pos + len + 2 < o.width {
                    out.extend_from_slice(b", ");
                    pos += 2;
                } else {
                    out.extend_from_slice(b",\n");
                    pos = 0;
                }
            }
            out.extend_from_slice(text.as_bytes());
            pos += len;
        }
        out.push(b'\n');
        return;
    }
    if let Some(vertical) = o.columns {
        let texts: Vec<String> = entries.iter().map(frill).collect();
        print_columns(&texts, vertical, o.width, out);
        return;
    }
    if !o.long {
        for e in entries {
            out.extend_from_slice(frill(e).as_bytes());
            out.push(b'\n');
        }
        return;
    }
    print_long(entries, o, &w, out);
}

/// The widths of the `-i` (inode) and `-s` (blocks) columns over a listing;
/// 0 for a column not shown.
struct PrefixWidths {
    ino: usize,
    blocks: usize,
}

fn prefix_widths(entries: &[Entry], o: &Opts) -> PrefixWidths {
    let ino = if o.inode {
        entries
            .iter()
            .map(|e| e.meta.ino.to_string().len())
            .max()
            .unwrap_or(1)
    } else {
        0
    };
    let blocks = if o.size_blocks {
        entries
            .iter()
            .map(|e| block_count(e, o).len())
            .max()
            .unwrap_or(1)
    } else {
        0
    };
    PrefixWidths { ino, blocks }
}

/// The `-s` column of one entry: its 1K blocks (human-readable with `-h`).
fn block_count(e: &Entry, o: &Opts) -> String {
    if o.human {
        human(blocks(&e.meta) * 1024)
    } else {
        blocks(&e.meta).to_string()
    }
}

/// What comes before an entry's name: its `-i` and `-s` columns.
fn prefix(e: &Entry, o: &Opts, w: &PrefixWidths) -> String {
    let mut s = String::new();
    if o.inode {
        s.push_str(&format!("{:>ino_w$} ", e.meta.ino, ino_w = w.ino));
    }
    if o.size_blocks {
        let b = block_count(e, o);
        s.push_str(&format!("{b:>blk_w$} ", blk_w = w.blocks));
    }
    s
}

/// `-l`: mode, links, owner, group, size, time, name, link target.
fn print_long(entries: &[Entry], o: &Opts, w: &PrefixWidths, out: &mut Vec<u8>) {
    let owner = if o.numeric {
        OWNER_ID.to_string()
    } else {
        OWNER.to_string()
    };
    let sizes: Vec<String> = entries
        .iter()
        .map(|e| {
            if let Some((major, minor)) = e.device {
                format!("{major}, {minor}")
            } else if o.human {
                human(display_size(&e.meta))
            } else {
                display_size(&e.meta).to_string()
            }
        })
        .collect();
    let size_w = sizes.iter().map(|s| s.len()).max().unwrap_or(1);
    let link_w = entries
        .iter()
        .map(|e| e.meta.nlink.to_string().len())
        .max()
        .unwrap_or(1);
    for (e, size) in entries.iter().zip(&sizes) {
        out.extend_from_slice(prefix(e, o, w).as_bytes());
        let _ = write!(out, "{} {:>link_w$} ", mode_string(&e.meta), e.meta.nlink);
        if o.show_owner {
            let _ = write!(out, "{owner} ");
        }
        if o.show_group {
            let _ = write!(out, "{owner} ");
        }
        let _ = write!(
            out,
            "{size:>size_w$} {} {}",
            format_time(e.meta.mtime, o),
            shown(&e.name, o)
        );
        match &e.link {
            Some((target, tmeta)) => {
                let _ = write!(out, " -> {target}");
                if matches!(o.indicator, Indicator::FileType | Indicator::Classify)
                    && let Some(m) = tmeta
                {
                    let t = Entry {
                        name: String::new(),
                        path: String::new(),
                        meta: m.clone(),
                        link: None,
                        device: None,
                    };
                    out.extend_from_slice(indicator(&t, o).as_bytes());
                }
            }
            None => out.extend_from_slice(indicator(e, o).as_bytes()),
        }
        out.push(b'\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_sizes_round_up_like_gnu() {
        assert_eq!(human(1000), "1000");
        assert_eq!(human(1024), "1.0K");
        assert_eq!(human(1500), "1.5K");
        assert_eq!(human(1025), "1.1K");
        assert_eq!(human(10 * 1024), "10K");
        assert_eq!(human(10 * 1024 + 1), "11K");
        assert_eq!(human(5 << 20), "5.0M");
    }

    #[test]
    fn version_order() {
        assert!(version_cmp("a2", "a10").is_lt());
        assert!(version_cmp("a10", "a9").is_gt());
        assert!(version_cmp("b", "a1").is_gt());
    }
}
