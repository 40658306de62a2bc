//! `stat`: display node metadata, GNU's default layout or `-c`/`--printf`
//! formats.

use super::common::GnuError;
use super::common::{OptSpec, flag, mode_string, parse_or_usage, quote, usage_error, with_arg};
use super::ls::{OWNER, OWNER_ID, display_size};
use crate::clock::Timestamp;
use crate::commands::CommandCtx;
use crate::fs::{FileKind, Metadata};
use crate::time::{Zone, strftime};

/// What `stat --help` prints.
pub(crate) const USAGE: &str = "\
Usage: stat [OPTION]... FILE...
Show what is known of each FILE: type, size, inode, links, mode, owner and
times.

  -L, --dereference     describe the file a symbolic link points to
  -c, --format=FORMAT   print FORMAT for each FILE, then a newline
      --printf=FORMAT   like --format, but with backslash escapes (\\n, \\t,
                          \\NNN ...) and no newline added
  -t, --terse           print the fields on one line, tersely
      --help        display this help and exit

FORMAT sequences (a width and flags may follow the %, as in %-10n):
  %n  file name           %N  quoted name, with '-> TARGET' for a link
  %s  size in bytes       %b  blocks allocated, of %B bytes each
  %a  mode in octal       %A  mode as in ls -l
  %f  raw mode in hex     %F  file type
  %u  owner's ID          %U  owner's name (%g, %G: the group's)
  %h  hard links          %i  inode number
  %o  I/O block size      %d, %D  device number, in decimal or hex
  %y  modification time   %Y  the same, in seconds since the Epoch
  %x  access time         %X  the same, in seconds since the Epoch
  %z, %Z  as %y, %Y (the sandbox keeps no change time)
  %%  a %
";

const SPEC: &[OptSpec] = &[
    flag('L', Some("dereference"), "L"),
    with_arg(Some('c'), Some("format"), "c"),
    with_arg(None, Some("printf"), "printf"),
    flag('t', Some("terse"), "t"),
    flag('f', Some("file-system"), "f"),
];

fn kind_name(m: &Metadata) -> &'static str {
    match m.kind {
        FileKind::File if m.size == 0 => "regular empty file",
        FileKind::File => "regular file",
        FileKind::Dir => "directory",
        FileKind::Symlink => "symbolic link",
        FileKind::CharDevice => "character special file",
        FileKind::Fifo => "fifo",
    }
}

fn type_bits(m: &Metadata) -> u32 {
    match m.kind {
        FileKind::File => 0o100000,
        FileKind::Dir => 0o040000,
        FileKind::Symlink => 0o120000,
        FileKind::CharDevice => 0o020000,
        FileKind::Fifo => 0o010000,
    }
}

fn blocks512(m: &Metadata) -> u64 {
    match m.kind {
        FileKind::Dir => 8,
        FileKind::File => m.size.div_ceil(4096) * 8,
        _ => 0,
    }
}

/// A time as stat prints it: local time in `zone`, with its offset.
fn time_str(t: Timestamp, zone: &Zone) -> String {
    strftime("%Y-%m-%d %H:%M:%S.%N %z", &zone.local(t.secs, t.nanos))
}

/// Interprets backslash escapes of `--printf`.
fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('a') => out.push('\x07'),
            Some('b') => out.push('\x08'),
            Some('f') => out.push('\x0c'),
            Some('v') => out.push('\x0b'),
            Some('\\') => out.push('\\'),
            Some('"') => out.push('"'),
            Some(d @ '0'..='7') => {
                let mut v = d.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match it.peek().and_then(|c| c.to_digit(8)) {
                        Some(x) => {
                            v = v * 8 + x;
                            it.next();
                        }
                        None => break,
                    }
                }
                out.push(char::from_u32(v).unwrap_or('?'));
            }
            Some(o) => {
                out.push('\\');
                out.push(o);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// The widest field `%WIDTHx` pads to: as wide as printf builds one.
const MAX_WIDTH: u64 = 1 << 26;

/// `v` padded to `width` chars (on the right with `left`, with zeros with
/// `zero`). Past [`MAX_WIDTH`] the field is left out, as GNU stat leaves
/// out one wider than an `int` (`format!` itself panics past 65,535).
fn pad_field(v: &str, width: u64, left: bool, zero: bool) -> String {
    if width > MAX_WIDTH {
        return String::new();
    }
    let fill = (width as usize).saturating_sub(v.chars().count());
    let pad = if zero { "0" } else { " " }.repeat(fill);
    if left {
        format!("{v}{pad}")
    } else {
        format!("{pad}{v}")
    }
}

/// The access time and the zone times are shown in.
struct Times<'z> {
    atime: Timestamp,
    zone: &'z Zone,
}

fn format(fmt: &str, name: &str, m: &Metadata, link: Option<&str>, t: &Times<'_>) -> String {
    let zone = t.zone;
    let mut out = String::new();
    let chars: Vec<char> = fmt.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        if c != '%' {
            out.push(c);
            continue;
        }
        // Flags and width, e.g. %-10n, %08s
        let start = i;
        while i < chars.len() && matches!(chars[i], '-' | '0' | '+' | ' ' | '#' | '\'') {
            i += 1;
        }
        while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
            i += 1;
        }
        let spec: String = chars[start..i].iter().collect();
        let Some(&d) = chars.get(i) else {
            out.push('%');
            out.push_str(&spec);
            break;
        };
        i += 1;
        let v: String = match d {
            '%' => {
                out.push('%');
                continue;
            }
            'n' => name.to_string(),
            'N' => match link {
                Some(t) => format!("{} -> {}", quote(name), quote(t)),
                None => quote(name),
            },
            's' => display_size(m).to_string(),
            'a' => format!("{:o}", m.mode & 0o7777),
            'A' => mode_string(m),
            'f' => format!("{:x}", type_bits(m) | m.mode),
            'F' => kind_name(m).to_string(),
            'U' | 'G' => OWNER.to_string(),
            'u' | 'g' => OWNER_ID.to_string(),
            'h' => m.nlink.to_string(),
            'i' => m.ino.to_string(),
            'b' => blocks512(m).to_string(),
            'B' => "512".into(),
            'o' => "4096".into(),
            'd' => "42".into(),
            'D' => "2a".into(),
            't' | 'T' => "0".into(),
            'm' => "/".into(),
            'w' | 'W' => {
                if d == 'w' {
                    "-".into()
                } else {
                    "0".into()
                }
            }
            'x' => time_str(t.atime, zone),
            'y' | 'z' => time_str(m.mtime, zone),
            'X' => t.atime.secs.to_string(),
            'Y' | 'Z' => m.mtime.secs.to_string(),
            _ => "?".into(),
        };
        let padded = if spec.is_empty() {
            v
        } else {
            let left = spec.contains('-');
            let zero = spec.starts_with('0') && !left;
            let w: u64 = spec
                .trim_start_matches(['-', '0', '+', ' ', '#', '\''])
                .split('.')
                .next()
                .map(|x| x.parse().unwrap_or(if x.is_empty() { 0 } else { u64::MAX }))
                .unwrap_or(0);
            pad_field(&v, w, left, zero)
        };
        out.push_str(&padded);
    }
    out
}

fn default_layout(name: &str, m: &Metadata, link: Option<&str>, t: &Times<'_>) -> String {
    let zone = t.zone;
    let file = match link {
        Some(t) => format!("{name} -> {t}"),
        None => name.to_string(),
    };
    let dev = if m.kind == FileKind::CharDevice {
        "Device type: 1,3"
    } else {
        ""
    };
    let ts = time_str(m.mtime, zone);
    let size = display_size(m);
    let mut s = String::new();
    s.push_str(&format!("  File: {file}\n"));
    s.push_str(&format!(
        "  Size: {size:<10}\tBlocks: {:<10} IO Block: 4096   {}\n",
        blocks512(m),
        kind_name(m)
    ));
    let links = format!("Links: {}", m.nlink);
    let inode = format!("Inode: {:<11}", m.ino);
    if dev.is_empty() {
        s.push_str(&format!("Device: 0,42\t{inode} {links}\n"));
    } else {
        s.push_str(&format!("Device: 0,42\t{inode} {links}     {dev}\n"));
    }
    let mode = format!("{:04o}/{}", m.mode & 0o7777, mode_string(m));
    s.push_str(&format!(
        "Access: ({mode})  Uid: ( {OWNER_ID:>4}/ {OWNER:>7})   Gid: ( {OWNER_ID:>4}/ {OWNER:>7})\n"
    ));
    s.push_str(&format!(
        "Access: {}\nModify: {ts}\nChange: {ts}\n Birth: -\n",
        time_str(t.atime, zone)
    ));
    s
}

/// `stat [-L] [-c FORMAT | --printf FORMAT | -t] FILE...`
pub fn stat(ctx: &mut CommandCtx<'_>) -> i32 {
    let Some(p) = parse_or_usage(ctx, SPEC, false) else {
        return 1;
    };
    if p.operands.is_empty() {
        usage_error(ctx, "missing operand");
        return 1;
    }
    if p.has("f") {
        ctx.gnu_error("file system status (-f) is not supported in the sandbox");
        return 1;
    }
    let deref = p.has("L");
    let mut status = 0;
    for name in &p.operands {
        let zone = Zone::from_env(ctx.env);
        let path = ctx.path(name);
        let meta = if deref {
            ctx.fs.metadata(&path)
        } else {
            ctx.fs.symlink_metadata(&path)
        };
        let meta = match super::common::slash_check(ctx.fs, name, &path).and(meta) {
            Ok(m) => m,
            Err(e) => {
                ctx.gnu_error(format_args!("cannot statx {}: {e}", quote(name)));
                status = 1;
                continue;
            }
        };
        let atime = if meta.kind == FileKind::Symlink {
            meta.mtime
        } else {
            ctx.fs.atime(&path).unwrap_or(meta.mtime)
        };
        let times = Times { atime, zone: &zone };
        let link = if meta.kind == FileKind::Symlink {
            ctx.fs.read_link(&path).ok()
        } else {
            None
        };
        let text = if let Some(f) = p.last("printf") {
            format(&unescape(f), name, &meta, link.as_deref(), &times)
        } else if let Some(f) = p.last("c") {
            format!("{}\n", format(f, name, &meta, link.as_deref(), &times))
        } else if p.has("t") {
            format!(
                "{name} {} {} {:x} {OWNER_ID} {OWNER_ID} 2a {} {} 0 0 {} {} {} 0 4096\n",
                display_size(&meta),
                blocks512(&meta),
                type_bits(&meta) | meta.mode,
                meta.ino,
                meta.nlink,
                meta.mtime.secs,
                meta.mtime.secs,
                meta.mtime.secs
            )
        } else {
            default_layout(name, &meta, link.as_deref(), &times)
        };
        if ctx.stdout.write_all(text.as_bytes()).is_err() {
            return 1;
        }
    }
    status
}
