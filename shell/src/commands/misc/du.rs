//! `du` (disk usage of trees) and `df` (free space of the one virtual
//! filesystem).
//!
//! The virtual filesystem has no blocks, so `du` charges what ext4 would: a
//! regular file takes its size rounded up to whole 4 KiB blocks (an empty
//! file 0), a directory one 4 KiB block, a symbolic link nothing.
//! `--apparent-size`/`-b` report byte sizes instead (a directory counts
//! 4096 bytes, a symlink the length of its target). Sizes print in 1 KiB
//! units (`-k`, the default), bytes (`-b`) or human form (`-h`, GNU's
//! rounding up: `4.0K`, `12K`, `1.5M`). A node reached twice (the same inode
//! under two operands, or hard links) is counted once, as GNU does.

use std::collections::HashSet;

use crate::commands::CommandCtx;
use crate::commands::files::common::join;
use crate::commands::text::common::{self, Arg, OptSpec, ParseMode, opt};
use crate::fs::{FileKind, Metadata};

pub(crate) const DU_USAGE: &str = "\
Usage: du [OPTION]... [FILE]...
Summarize disk usage of the set of FILEs, recursively for directories.

  -a, --all             write counts for all files, not just directories
      --apparent-size   print apparent sizes rather than disk usage
  -b, --bytes           equivalent to '--apparent-size --block-size=1'
  -c, --total           produce a grand total
  -d, --max-depth=N     print the total for a directory only if it is N or
                        fewer levels below the command line argument
  -h, --human-readable  print sizes in human readable format (e.g., 1K 234M 2G)
  -k                    like --block-size=1K
  -s, --summarize       display only a total for each argument
      --help            display this help and exit

Disk usage is computed as on ext4: files in whole 4 KiB blocks, 4 KiB per
directory.
";

const DU_SPEC: &[OptSpec] = &[
    opt("a", Some('a'), Some("all"), Arg::None),
    opt("app", None, Some("apparent-size"), Arg::None),
    opt("b", Some('b'), Some("bytes"), Arg::None),
    opt("c", Some('c'), Some("total"), Arg::None),
    opt("d", Some('d'), Some("max-depth"), Arg::Required),
    opt("h", Some('h'), Some("human-readable"), Arg::None),
    opt("k", Some('k'), None, Arg::None),
    opt("s", Some('s'), Some("summarize"), Arg::None),
];

/// The block size `du` charges per started block.
const BLOCK: u64 = 4096;

/// How sizes are measured and printed.
struct Style {
    apparent: bool,
    /// Print bytes (`-b`) rather than KiB.
    bytes: bool,
    human: bool,
}

impl Style {
    /// What one node costs, in bytes.
    fn cost(&self, m: &Metadata) -> u64 {
        match (m.kind, self.apparent) {
            (FileKind::Dir, _) => BLOCK,
            (_, true) => m.size,
            (FileKind::File, false) => m.size.div_ceil(BLOCK) * BLOCK,
            _ => 0,
        }
    }

    fn show(&self, bytes: u64) -> String {
        if self.human {
            human(bytes)
        } else if self.bytes {
            bytes.to_string()
        } else {
            bytes.div_ceil(1024).to_string()
        }
    }
}

/// GNU's `-h`: powers of 1024, rounded up, one decimal below 10.
pub fn human(bytes: u64) -> String {
    const UNITS: &[&str] = &["K", "M", "G", "T", "P", "E"];
    if bytes < 1024 {
        return bytes.to_string();
    }
    let mut v = bytes as f64;
    let mut unit = 0;
    v /= 1024.0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    if v < 10.0 {
        let t = (v * 10.0).ceil() / 10.0;
        if t >= 10.0 {
            return format!("10{}", UNITS[unit]);
        }
        format!("{t:.1}{}", UNITS[unit])
    } else {
        let t = v.ceil();
        if t >= 1024.0 && unit + 1 < UNITS.len() {
            return format!("1.0{}", UNITS[unit + 1]);
        }
        format!("{t:.0}{}", UNITS[unit])
    }
}

struct Walk<'c, 'a> {
    ctx: &'c mut CommandCtx<'a>,
    style: Style,
    all: bool,
    max_depth: Option<usize>,
    seen: HashSet<u64>,
    out: Vec<u8>,
    status: i32,
}

impl Walk<'_, '_> {
    /// Walks `shown` (the name to print) at virtual `path`; returns its total.
    fn walk(&mut self, shown: &str, path: &str, meta: &Metadata, depth: usize) -> u64 {
        if self.ctx.control.check().is_err() {
            self.status = 1;
            return 0;
        }
        if !self.seen.insert(meta.ino) {
            return 0;
        }
        let mut total = self.style.cost(meta);
        if meta.kind == FileKind::Dir {
            match self.ctx.fs.read_dir_metadata(path) {
                Ok(entries) => {
                    for (name, m) in entries {
                        let child_shown = join(shown, &name);
                        let child_path = join(path, &name);
                        total += self.walk(&child_shown, &child_path, &m, depth + 1);
                    }
                }
                Err(e) => {
                    let _ = writeln!(self.ctx.stderr, "du: cannot read directory '{shown}': {e}");
                    self.status = 1;
                }
            }
        }
        let printable = depth == 0 || meta.kind == FileKind::Dir || self.all;
        if printable && self.max_depth.is_none_or(|d| depth <= d) {
            let line = format!("{}\t{shown}\n", self.style.show(total));
            self.out.extend_from_slice(line.as_bytes());
        }
        total
    }
}

/// `du`
pub fn du(ctx: &mut CommandCtx<'_>) -> i32 {
    let p = match common::start(ctx, DU_SPEC, ParseMode::default(), 1) {
        Ok(p) => p,
        Err(s) => return s,
    };
    if p.has("s") && p.has("a") {
        common::usage_error(ctx, "cannot both summarize and show all entries");
        return 1;
    }
    let mut max_depth = match p.last("d") {
        Some(d) => match d.parse::<usize>() {
            Ok(n) => Some(n),
            Err(_) => {
                let d = common::quote_locale(d);
                common::usage_error(ctx, &format!("invalid maximum depth {d}"));
                return 1;
            }
        },
        None => None,
    };
    if p.has("s") {
        if max_depth.is_some_and(|d| d != 0) {
            ctx.error("warning: summarizing conflicts with --max-depth=0");
            return 1;
        }
        max_depth = Some(0);
    }
    // `-k` after `-b` returns to KiB units (the last unit option wins).
    let unit = p.opts.iter().rev().find_map(|(id, _)| match *id {
        "b" | "k" | "h" => Some(*id),
        _ => None,
    });
    let style = Style {
        apparent: p.has("app") || p.has("b"),
        bytes: unit == Some("b"),
        human: unit == Some("h"),
    };
    let operands = if p.operands.is_empty() {
        vec![".".to_string()]
    } else {
        p.operands.clone()
    };
    let total_wanted = p.has("c");
    let mut w = Walk {
        ctx,
        style,
        all: p.has("a"),
        max_depth,
        seen: HashSet::new(),
        out: Vec::new(),
        status: 0,
    };
    let mut grand = 0;
    for name in &operands {
        let path = w.ctx.path(name);
        match w.ctx.fs.symlink_metadata(&path) {
            Ok(m) => {
                // GNU prints the operand as given, trailing slashes
                // squeezed to one (`d//` shows as `d/`, its children `d/s`).
                let trimmed = name.trim_end_matches('/');
                let shown = if trimmed.len() < name.len() {
                    format!("{trimmed}/")
                } else {
                    name.clone()
                };
                grand += w.walk(&shown, &path, &m, 0);
            }
            Err(e) => {
                let _ = w.ctx.stdout.write_all(&w.out);
                w.out.clear();
                let _ = writeln!(w.ctx.stderr, "du: cannot access '{name}': {e}");
                w.status = 1;
            }
        }
    }
    if total_wanted {
        let line = format!("{}\ttotal\n", w.style.show(grand));
        w.out.extend_from_slice(line.as_bytes());
    }
    if w.ctx.stdout.write_all(&w.out).is_err() {
        return 1;
    }
    w.status
}

pub(crate) const DF_USAGE: &str = "\
Usage: df [OPTION]... [FILE]...
Show information about the file system on which each FILE resides,
or all file systems by default.  The sandbox has one: 'sandbox' on '/',
its size being the sandbox's storage limit.

  -h, --human-readable  print sizes in powers of 1024 (e.g., 1023M)
  -k                    like --block-size=1K
      --help            display this help and exit
";

const DF_SPEC: &[OptSpec] = &[
    opt("h", Some('h'), Some("human-readable"), Arg::None),
    opt("k", Some('k'), None, Arg::None),
    opt("a", Some('a'), Some("all"), Arg::None),
    opt("l", Some('l'), Some("local"), Arg::None),
];

/// `df`: one line for the virtual filesystem.
pub fn df(ctx: &mut CommandCtx<'_>) -> i32 {
    let p = match common::start(ctx, DF_SPEC, ParseMode::default(), 1) {
        Ok(p) => p,
        Err(s) => return s,
    };
    for name in &p.operands {
        let path = ctx.path(name);
        if let Err(e) = ctx.fs.symlink_metadata(&path) {
            ctx.error(format!("{}: {e}", common::quotef(name)));
            return 1;
        }
    }
    let size = ctx.control.limits.fs.max_total_bytes;
    let used = ctx.fs.usage().0.min(size);
    let avail = size - used;
    let pct = if size == 0 {
        "-".to_string()
    } else {
        format!("{}%", (used * 100).div_ceil(size))
    };
    let human = p.opts.iter().rev().find_map(|(id, _)| match *id {
        "h" | "k" => Some(*id == "h"),
        _ => None,
    }) == Some(true);
    let show = |b: u64| {
        if human {
            human_df(b)
        } else {
            b.div_ceil(1024).to_string()
        }
    };
    let head = if human {
        ["Filesystem", "Size", "Used", "Avail", "Use%", "Mounted on"]
    } else {
        [
            "Filesystem",
            "1K-blocks",
            "Used",
            "Available",
            "Use%",
            "Mounted on",
        ]
    };
    let row = [
        "sandbox".to_string(),
        show(size),
        show(used),
        show(avail),
        pct,
        "/".to_string(),
    ];
    let widths: Vec<usize> = (0..6).map(|i| head[i].len().max(row[i].len())).collect();
    let line = |cells: [&str; 6]| {
        let mut s = format!("{:<w$}", cells[0], w = widths[0].max(14));
        for i in 1..5 {
            s.push_str(&format!(" {:>w$}", cells[i], w = widths[i]));
        }
        s.push_str(&format!(" {}\n", cells[5]));
        s
    };
    let mut out = line(head);
    out.push_str(&line([
        &row[0], &row[1], &row[2], &row[3], &row[4], &row[5],
    ]));
    if ctx.stdout.write_all(out.as_bytes()).is_err() {
        return 1;
    }
    0
}

/// df's `-h`: as du's but a whole number from 10 up, `0` for nothing.
fn human_df(bytes: u64) -> String {
    if bytes == 0 { "0".into() } else { human(bytes) }
}
