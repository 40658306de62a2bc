//! `file`: guess a file's type from its first bytes, with the wording of
//! file 5.x for the common cases: empty, text (ASCII, UTF-8, ISO-8859, with
//! CRLF/CR/no line terminators, escape sequences), JSON, HTML, scripts by
//! their `#!` line, gzip, tar, zip, PNG, JPEG, GIF, PDF, ELF, directories
//! and symbolic links; `--mime-type` gives the MIME type instead.

use crate::commands::CommandCtx;
use crate::commands::text::common::{self, Arg, OptSpec, ParseMode, opt};
use crate::fs::FileKind;
use std::io::Read;

pub(crate) const USAGE: &str = "\
Usage: file [OPTION...] [FILE...]
Determine type of FILEs.

  -b, --brief                do not prepend filenames to output lines
  -h, --no-dereference       don't follow symlinks (default)
  -i, --mime                 output MIME type strings with charset
      --mime-type            output the MIME type
  -L, --dereference          follow symlinks
      --help                 display this help and exit
";

const SPEC: &[OptSpec] = &[
    opt("b", Some('b'), Some("brief"), Arg::None),
    opt("h", Some('h'), Some("no-dereference"), Arg::None),
    opt("L", Some('L'), Some("dereference"), Arg::None),
    opt("i", Some('i'), Some("mime"), Arg::None),
    opt("mt", None, Some("mime-type"), Arg::None),
];

/// A description and a MIME type.
struct Kind {
    desc: String,
    mime: &'static str,
    /// The charset for `-i` (`binary` for non-text).
    charset: &'static str,
}

fn kind(desc: impl Into<String>, mime: &'static str) -> Kind {
    Kind {
        desc: desc.into(),
        mime,
        charset: "binary",
    }
}

fn be32(d: &[u8], at: usize) -> u32 {
    d.get(at..at + 4)
        .map_or(0, |b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

fn le16(d: &[u8], at: usize, big: bool) -> u16 {
    d.get(at..at + 2).map_or(0, |b| {
        if big {
            u16::from_be_bytes([b[0], b[1]])
        } else {
            u16::from_le_bytes([b[0], b[1]])
        }
    })
}

/// Binary formats recognised by their magic bytes.
fn magic(d: &[u8]) -> Option<Kind> {
    if d.starts_with(b"\x89PNG\r\n\x1a\n") {
        let mut s = "PNG image data".to_string();
        if &d.get(12..16)? == b"IHDR" {
            let (w, h) = (be32(d, 16), be32(d, 20));
            let depth = *d.get(24)?;
            let color = match d.get(25)? {
                0 => "grayscale",
                2 => "RGB",
                3 => "colormap",
                4 => "gray+alpha",
                6 => "RGBA",
                _ => "unknown",
            };
            let lace = if d.get(28) == Some(&1) {
                "interlaced"
            } else {
                "non-interlaced"
            };
            s = format!("{s}, {w} x {h}, {depth}-bit/color {color}, {lace}");
        }
        return Some(kind(s, "image/png"));
    }
    if d.starts_with(b"GIF87a") || d.starts_with(b"GIF89a") {
        let (w, h) = (le16(d, 6, false), le16(d, 8, false));
        let v = String::from_utf8_lossy(&d[3..6]).into_owned();
        return Some(kind(
            format!("GIF image data, version {v}, {w} x {h}"),
            "image/gif",
        ));
    }
    if d.starts_with(b"\xff\xd8\xff") {
        return Some(kind("JPEG image data", "image/jpeg"));
    }
    if d.starts_with(b"%PDF-") {
        let v: String = d[5..]
            .iter()
            .take_while(|b| b.is_ascii_digit() || **b == b'.')
            .map(|b| *b as char)
            .collect();
        return Some(kind(
            format!("PDF document, version {v}"),
            "application/pdf",
        ));
    }
    if d.starts_with(b"\x1f\x8b") {
        return Some(kind(gzip_desc(d), "application/gzip"));
    }
    if d.starts_with(b"BZh") {
        return Some(kind("bzip2 compressed data", "application/x-bzip2"));
    }
    if d.starts_with(b"\xfd7zXZ\x00") {
        return Some(kind("XZ compressed data", "application/x-xz"));
    }
    if d.starts_with(b"PK\x03\x04") && d.len() >= 30 {
        let v = le16(d, 4, false);
        let method = match le16(d, 8, false) {
            0 => "store",
            8 => "deflate",
            _ => "other",
        };
        let s = format!(
            "Zip archive data, at least v{}.{} to extract, compression method={method}",
            v / 10,
            v % 10
        );
        return Some(kind(s, "application/zip"));
    }
    if d.len() >= 263 && &d[257..262] == b"ustar" {
        let gnu = &d[257..265] == b"ustar  \0";
        let s = if gnu {
            "POSIX tar archive (GNU)"
        } else {
            "POSIX tar archive"
        };
        return Some(kind(s, "application/x-tar"));
    }
    if d.starts_with(b"\x7fELF") && d.len() >= 20 {
        return Some(elf(d));
    }
    None
}

fn gzip_desc(d: &[u8]) -> String {
    let mut s = "gzip compressed data".to_string();
    let flags = d.get(3).copied().unwrap_or(0);
    if flags & 0x08 != 0 {
        let mut at = 10;
        if flags & 0x04 != 0 {
            at += 2 + le16(d, 10, false) as usize;
        }
        if let Some(rest) = d.get(at..) {
            let name: Vec<u8> = rest.iter().take_while(|b| **b != 0).copied().collect();
            s.push_str(&format!(", was \"{}\"", String::from_utf8_lossy(&name)));
        }
    }
    match d.get(8) {
        Some(2) => s.push_str(", max compression"),
        Some(4) => s.push_str(", max speed"),
        _ => {}
    }
    if d.get(9) == Some(&3) {
        s.push_str(", from Unix");
    }
    if d.len() >= 18 {
        let n = &d[d.len() - 4..];
        let size = u32::from_le_bytes([n[0], n[1], n[2], n[3]]);
        s.push_str(&format!(", original size modulo 2^32 {size}"));
    }
    s
}

fn elf(d: &[u8]) -> Kind {
    let bits = if d[4] == 2 { "64-bit" } else { "32-bit" };
    let big = d[5] == 2;
    let order = if big { "MSB" } else { "LSB" };
    let (what, mime) = match le16(d, 16, big) {
        1 => ("relocatable", "application/x-object"),
        2 => ("executable", "application/x-executable"),
        3 => ("shared object", "application/x-sharedlib"),
        4 => ("core file", "application/x-coredump"),
        _ => ("unknown type", "application/octet-stream"),
    };
    let machine = match le16(d, 18, big) {
        3 => "Intel 80386",
        0x28 => "ARM",
        0x3e => "x86-64",
        0xb7 => "ARM aarch64",
        0xf3 => "UCB RISC-V",
        _ => "unknown arch",
    };
    let abi = match d[7] {
        3 => "GNU/Linux",
        _ => "SYSV",
    };
    kind(
        format!(
            "ELF {bits} {order} {what}, {machine}, version {} ({abi})",
            d[6]
        ),
        mime,
    )
}

/// The interpreter named by a `#!` line, as file names it.
fn script(first: &str) -> Option<(String, &'static str)> {
    let rest = first.strip_prefix("#!")?.trim();
    let mut words = rest.split_whitespace();
    let mut prog = words.next()?;
    if prog.ends_with("/env") {
        prog = words.next().unwrap_or(prog);
    }
    let base = prog.rsplit('/').next().unwrap_or(prog);
    Some(match base {
        "bash" => ("Bourne-Again shell script".into(), "text/x-shellscript"),
        "sh" | "dash" => ("POSIX shell script".into(), "text/x-shellscript"),
        "zsh" => ("Paul Falstad's zsh script".into(), "text/x-shellscript"),
        b if b.starts_with("python") => ("Python script".into(), "text/x-script.python"),
        "perl" => ("Perl script text".into(), "text/x-perl"),
        "node" => ("Node.js script".into(), "application/javascript"),
        "ruby" => ("Ruby script".into(), "text/x-ruby"),
        _ => (format!("a {prog} script"), "text/plain"),
    })
}

/// Text classification: the encoding words, or `None` for binary data.
fn text(d: &[u8]) -> Option<Kind> {
    let printable =
        |b: u8| b >= 0x20 && b != 0x7f || matches!(b, b'\t' | b'\n' | b'\r' | 0x0c | 0x08 | 0x1b);
    if !d.iter().all(|b| *b >= 0x80 || printable(*b)) {
        return None;
    }
    let ascii = d.is_ascii();
    let (enc, charset) = if ascii {
        ("ASCII text", "us-ascii")
    } else if std::str::from_utf8(d).is_ok() {
        ("Unicode text, UTF-8 text", "utf-8")
    } else if d.iter().all(|b| *b < 0x80 || *b >= 0xa0) {
        ("ISO-8859 text", "iso-8859-1")
    } else {
        return None;
    };
    let first = d.split(|b| *b == b'\n').next().unwrap_or(&[]);
    let first = String::from_utf8_lossy(first);
    let first = first.trim_end_matches('\r');
    let mut desc;
    let mut mime = "text/plain";
    if let Some((s, m)) = script(first) {
        mime = m;
        desc = if s.ends_with("text") {
            format!("{s} executable")
        } else if m == "application/javascript" {
            format!("{s} executable, {enc}")
        } else {
            format!("{s}, {enc} executable")
        };
    } else if looks_like_json(d) {
        return Some(Kind {
            desc: "JSON text data".into(),
            mime: "application/json",
            charset,
        });
    } else if first.trim_start().to_ascii_lowercase().starts_with("<html")
        || first
            .trim_start()
            .to_ascii_lowercase()
            .starts_with("<!doctype html")
    {
        desc = format!("HTML document, {enc}");
        mime = "text/html";
    } else {
        desc = enc.to_string();
    }
    let crlf = d.windows(2).any(|w| w == b"\r\n");
    let lone_cr = d
        .iter()
        .enumerate()
        .any(|(i, b)| *b == b'\r' && d.get(i + 1) != Some(&b'\n'));
    let lf = d.contains(&b'\n');
    if crlf {
        desc.push_str(", with CRLF line terminators");
    } else if lone_cr && !lf {
        desc.push_str(", with CR line terminators");
    } else if !lf {
        desc.push_str(", with no line terminators");
    }
    if d.contains(&0x1b) {
        desc.push_str(", with escape sequences");
    }
    Some(Kind {
        desc,
        mime,
        charset,
    })
}

/// An object or array that parses as JSON (file requires one of the two).
fn looks_like_json(d: &[u8]) -> bool {
    let t = d.trim_ascii();
    if !(t.starts_with(b"{") && t.ends_with(b"}") || t.starts_with(b"[") && t.ends_with(b"]")) {
        return false;
    }
    let mut p = JsonCheck { d: t, i: 0 };
    p.value() && {
        p.ws();
        p.i == t.len()
    }
}

/// A tiny JSON validator (structure only).
struct JsonCheck<'a> {
    d: &'a [u8],
    i: usize,
}

impl JsonCheck<'_> {
    fn ws(&mut self) {
        while self.i < self.d.len() && self.d[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    fn eat(&mut self, b: u8) -> bool {
        self.ws();
        if self.d.get(self.i) == Some(&b) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn value(&mut self) -> bool {
        self.ws();
        match self.d.get(self.i) {
            Some(b'{') => {
                self.i += 1;
                if self.eat(b'}') {
                    return true;
                }
                loop {
                    self.ws();
                    if !self.string() || !self.eat(b':') || !self.value() {
                        return false;
                    }
                    if self.eat(b'}') {
                        return true;
                    }
                    if !self.eat(b',') {
                        return false;
                    }
                }
            }
            Some(b'[') => {
                self.i += 1;
                if self.eat(b']') {
                    return true;
                }
                loop {
                    if !self.value() {
                        return false;
                    }
                    if self.eat(b']') {
                        return true;
                    }
                    if !self.eat(b',') {
                        return false;
                    }
                }
            }
            Some(b'"') => self.string(),
            Some(_) => {
                let start = self.i;
                while self.i < self.d.len()
                    && (self.d[self.i].is_ascii_alphanumeric() || b"+-.".contains(&self.d[self.i]))
                {
                    self.i += 1;
                }
                let w = &self.d[start..self.i];
                matches!(w, b"true" | b"false" | b"null")
                    || (!w.is_empty()
                        && std::str::from_utf8(w).is_ok_and(|s| s.parse::<f64>().is_ok()))
            }
            None => false,
        }
    }

    fn string(&mut self) -> bool {
        if self.d.get(self.i) != Some(&b'"') {
            return false;
        }
        self.i += 1;
        while let Some(&b) = self.d.get(self.i) {
            self.i += 1;
            match b {
                b'\\' => self.i += 1,
                b'"' => return true,
                _ => {}
            }
        }
        false
    }
}

/// `file`
pub fn file(ctx: &mut CommandCtx<'_>) -> i32 {
    let p = match common::start(ctx, SPEC, ParseMode::default(), 1) {
        Ok(p) => p,
        Err(s) => return s,
    };
    if p.operands.is_empty() {
        let _ = ctx
            .stderr
            .write_all(b"Usage: file [-bhiL] [--mime-type] [--] <file> ...\n");
        return 1;
    }
    let follow = p.opts.iter().rev().find_map(|(id, _)| match *id {
        "L" => Some(true),
        "h" => Some(false),
        _ => None,
    }) == Some(true);
    let mime_type = p.has("mt");
    let mime_full = p.has("i") && !mime_type;
    let width = p.operands.iter().map(|n| shown(n).len()).max().unwrap_or(0);
    let mut out = String::new();
    for name in &p.operands {
        if ctx.control.check().is_err() {
            return 1;
        }
        let label = shown(name);
        let k = classify(ctx, name, follow);
        let text = if mime_type {
            k.mime.to_string()
        } else if mime_full {
            format!("{}; charset={}", k.mime, k.charset)
        } else {
            k.desc
        };
        if p.has("b") {
            out.push_str(&format!("{text}\n"));
        } else {
            out.push_str(&format!(
                "{label}:{:w$}{text}\n",
                "",
                w = width - label.len() + 1
            ));
        }
    }
    if ctx.stdout.write_all(out.as_bytes()).is_err() {
        return 1;
    }
    0
}

fn shown(name: &str) -> &str {
    if name == "-" { "/dev/stdin" } else { name }
}

fn classify(ctx: &mut CommandCtx<'_>, name: &str, follow: bool) -> Kind {
    let data = if name == "-" {
        // Like GNU file, classify from the first bytes only (its
        // `bytes` parameter), so `yes | file -` ends.
        let mut head = Vec::new();
        let _ = Read::take(&mut *ctx.stdin, 1 << 20).read_to_end(&mut head);
        head
    } else {
        let path = ctx.path(name);
        let meta = if follow {
            ctx.fs.metadata(&path)
        } else {
            ctx.fs.symlink_metadata(&path)
        };
        let meta = match meta {
            Ok(m) => m,
            Err(e) => {
                return kind(format!("cannot open `{name}' ({e})"), "cannot open");
            }
        };
        match meta.kind {
            FileKind::Dir => return kind("directory", "inode/directory"),
            FileKind::CharDevice => {
                return kind("character special", "inode/chardevice");
            }
            FileKind::Fifo => return kind("fifo (named pipe)", "inode/fifo"),
            FileKind::Symlink => {
                let target = ctx.fs.read_link(&path).unwrap_or_default();
                let desc = if ctx.fs.metadata(&path).is_ok() {
                    format!("symbolic link to {target}")
                } else {
                    format!("broken symbolic link to {target}")
                };
                return kind(desc, "inode/symlink");
            }
            FileKind::File => {}
        }
        match ctx.fs.read_shared(&path) {
            Ok(d) => d.to_vec(),
            Err(e) => return kind(format!("cannot open `{name}' ({e})"), "cannot open"),
        }
    };
    if data.is_empty() {
        return kind("empty", "inode/x-empty");
    }
    magic(&data)
        .or_else(|| text(&data))
        .unwrap_or_else(|| kind("data", "application/octet-stream"))
}
