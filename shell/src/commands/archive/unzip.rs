//! `unzip` on the `zip` crate, as Info-ZIP's UnZip 6.0 does the common
//! cases: extract everything or the named members (`fnmatch` patterns),
//! `-l` to list, `-p` to print members, `-t` to test, `-d DIR`, `-o` to
//! overwrite and `-n` never to, `-j` to junk paths, `-q`; without `-o` or
//! `-n` an existing file asks on stdin as UnZip does (end of input answers
//! "None"). Members' modes and mtimes are restored; names that would leave
//! the target directory are refused. Statuses: 1 for a skipped file, 9 for
//! an unreadable archive, 11 for unmatched names.

use std::io::{Cursor, Read, Write};

use ::zip::ZipArchive;

use crate::clock::Timestamp;
use crate::commands::CommandCtx;
use crate::commands::options::{self, OptSpec, ParseMode, flag, with_arg};
use crate::commands::text::common::fnmatch;

/// What `unzip --help` (and `unzip -h`, or `unzip` alone) prints.
pub(crate) const USAGE: &str = "\
UnZip 6.00 of 20 April 2009, by Debian. Original by Info-ZIP.

Usage: unzip [-Z] [-opts[modifiers]] file[.zip] [list] [-x xlist] [-d exdir]
  Default action is to extract files in list, except those in xlist, to exdir;
  file[.zip] may be a wildcard.  -Z => ZipInfo mode (\"unzip -Z\" for usage).

  -p  extract files to pipe, no messages     -l  list files (short format)
  -t  test compressed archive data           -d  extract files into exdir
modifiers:
  -n  never overwrite existing files         -q  quiet mode (-qq => quieter)
  -o  overwrite files WITHOUT prompting      -j  junk paths (do not make directories)
";

const SPEC: &[OptSpec] = &[
    flag('l', None, "l"),
    flag('p', None, "p"),
    flag('t', None, "t"),
    flag('o', None, "o"),
    flag('n', None, "n"),
    flag('q', None, "q"),
    flag('j', None, "j"),
    flag('h', None, "help"),
    with_arg(Some('d'), None, "d"),
];

/// What to do with an existing file.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Overwrite {
    Ask,
    Always,
    Never,
}

/// `unzip`
pub fn unzip(ctx: &mut CommandCtx<'_>) -> i32 {
    if long_help(ctx.args) {
        let _ = ctx.stdout.write_all(USAGE.as_bytes());
        return 0;
    }
    let p = match options::parse(ctx.args, SPEC, ParseMode::default()) {
        Ok(p) => p,
        Err(e) => {
            let _ = writeln!(ctx.stderr, "unzip:  {e}");
            return 10;
        }
    };
    if p.has("help") || p.operands.is_empty() {
        let _ = ctx.stdout.write_all(USAGE.as_bytes());
        return 0;
    }
    let name = p.operands[0].clone();
    let Some((shown, data)) = open(ctx, &name) else {
        let _ = writeln!(
            ctx.stderr,
            "unzip:  cannot find or open {name}, {name}.zip or {name}.ZIP."
        );
        return 9;
    };
    let mut archive = match ZipArchive::new(Cursor::new(data.as_slice())) {
        Ok(a) => a,
        Err(_) => {
            if !p.has("p") {
                let _ = writeln!(ctx.stdout, "Archive:  {shown}");
            }
            // UnZip reports on stdout when testing, on stderr otherwise.
            let text = format!(
                "  End-of-central-directory signature not found.  Either this file is not\n  \
                 a zipfile, or it constitutes one disk of a multi-part archive.  In the\n  \
                 latter case the central directory and zipfile comment will be found on\n  \
                 the last disk(s) of this archive.\n\
                 unzip:  cannot find zipfile directory in one of {name} or\n        \
                 {name}.zip, and cannot find {name}.ZIP, period.\n"
            );
            let sink: &mut dyn Write = if p.has("t") { ctx.stdout } else { ctx.stderr };
            let _ = sink.write_all(text.as_bytes());
            return 9;
        }
    };
    let patterns = &p.operands[1..];
    let picked = pick(&mut archive, patterns);
    let mut status = 0;
    for pat in patterns {
        if !picked
            .iter()
            .any(|(_, n)| fnmatch(pat.as_bytes(), n.as_bytes()))
        {
            let _ = writeln!(ctx.stderr, "caution: filename not matched:  {pat}");
            status = 11;
        }
    }
    // -q once drops the chatter, twice the headers too.
    let quiet_n = p.opts.iter().filter(|(k, _)| *k == "q").count().min(2) as u8;
    let s = if p.has("l") {
        list(ctx, &mut archive, &picked, &shown, quiet_n)
    } else if p.has("p") {
        print(ctx, &mut archive, &picked)
    } else if p.has("t") {
        test(ctx, &mut archive, &picked, &shown, quiet_n)
    } else {
        let mode = match p.last_of(&["o", "n"]) {
            Some("o") => Overwrite::Always,
            Some(_) => Overwrite::Never,
            None => Overwrite::Ask,
        };
        let x = Extract {
            dir: p.last("d").unwrap_or(".").to_string(),
            junk: p.has("j"),
            quiet: quiet_n,
            mode,
            no_answer: false,
        };
        x.run(ctx, &mut archive, &picked, &shown)
    };
    if status != 0 && s == 0 { status } else { s }
}

/// Whether a `--` word among the options asks for the help. UnZip reads an
/// option word letter by letter, a `-` being one more letter (it negates
/// the next option), so `--help` is `h` with `e`, `l` and `p`: an `h` in
/// any option word before the archive name prints the help, status 0.
/// The parser sees to `-h` and `-lh`; this is for `--help`, `--h`, ...
/// (`-d` takes the rest of its word, or the next word, as exdir).
fn long_help(args: &[String]) -> bool {
    let mut words = args.iter().skip(1);
    while let Some(w) = words.next() {
        let Some(letters) = w.strip_prefix('-') else {
            return false;
        };
        if letters.is_empty() || letters == "-" {
            return false;
        }
        let before_d = letters.split('d').next().unwrap_or(letters);
        if letters.starts_with('-') && before_d.contains('h') {
            return true;
        }
        if before_d.len() + 1 == letters.len() && letters.ends_with('d') {
            words.next();
        }
    }
    false
}

/// The archive's bytes, trying `NAME`, `NAME.zip` and `NAME.ZIP`.
fn open(ctx: &mut CommandCtx<'_>, name: &str) -> Option<(String, Vec<u8>)> {
    for cand in [
        name.to_string(),
        format!("{name}.zip"),
        format!("{name}.ZIP"),
    ] {
        let path = ctx.path(&cand);
        if let Ok(m) = ctx.fs.metadata(&path)
            && m.kind != crate::fs::FileKind::Dir
            && let Ok(d) = ctx.fs.read(&path)
        {
            return Some((cand, d));
        }
    }
    None
}

type Archive<'a> = ZipArchive<Cursor<&'a [u8]>>;

/// The members matching `patterns` (all with none), by index and name.
fn pick(archive: &mut Archive<'_>, patterns: &[String]) -> Vec<(usize, String)> {
    (0..archive.len())
        .filter_map(|i| {
            let f = archive.by_index_raw(i).ok()?;
            let n = f.name().ok()?.to_string();
            (patterns.is_empty() || patterns.iter().any(|p| fnmatch(p.as_bytes(), n.as_bytes())))
                .then_some((i, n))
        })
        .collect()
}

/// A member's bytes, through a cancellation point per chunk and no larger
/// than a file may be.
fn read_member(archive: &mut Archive<'_>, i: usize, cap: u64) -> Result<Vec<u8>, String> {
    let f = archive.by_index(i).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    let mut r = crate::cancel::Reader(f).take(cap.saturating_add(1));
    r.read_to_end(&mut out).map_err(|e| e.to_string())?;
    if out.len() as u64 > cap {
        return Err("File too large".to_string());
    }
    Ok(out)
}

/// `-l`: UnZip's short listing.
fn list(
    ctx: &mut CommandCtx<'_>,
    archive: &mut Archive<'_>,
    picked: &[(usize, String)],
    shown: &str,
    quiet: u8,
) -> i32 {
    let mut out = String::new();
    if quiet == 0 {
        out.push_str(&format!("Archive:  {shown}\n"));
    }
    if quiet < 2 {
        out.push_str("  Length      Date    Time    Name\n---------  ---------- -----   ----\n");
    }
    let mut total = 0u64;
    for (i, name) in picked {
        let Ok(f) = archive.by_index_raw(*i) else {
            continue;
        };
        total += f.size();
        let (date, time) =
            member_mtime(&f).map_or(("1980-00-00".to_string(), "00:00".to_string()), |secs| {
                let t = crate::time::from_epoch(secs, 0);
                (
                    format!("{:04}-{:02}-{:02}", t.year, t.month, t.day),
                    format!("{:02}:{:02}", t.hour, t.min),
                )
            });
        out.push_str(&format!("{:>9}  {date} {time}   {name}\n", f.size()));
    }
    if quiet < 2 {
        let files = if picked.len() == 1 { "file" } else { "files" };
        out.push_str(&format!(
            "---------                     -------\n{total:>9}                     {} {files}\n",
            picked.len()
        ));
    }
    let _ = ctx.stdout.write_all(out.as_bytes());
    0
}

/// `-p`: the members' bytes on stdout, nothing else.
fn print(ctx: &mut CommandCtx<'_>, archive: &mut Archive<'_>, picked: &[(usize, String)]) -> i32 {
    let cap = ctx.fs.max_file_size();
    let mut status = 0;
    for (i, name) in picked {
        if name.ends_with('/') {
            continue;
        }
        match read_member(archive, *i, cap) {
            Ok(d) => {
                let _ = ctx.stdout.write_all(&d);
            }
            Err(e) => {
                let _ = writeln!(ctx.stderr, "error:  {name}: {e}");
                status = 2;
            }
        }
    }
    status
}

/// `-t`: each member decompressed and its CRC checked.
fn test(
    ctx: &mut CommandCtx<'_>,
    archive: &mut Archive<'_>,
    picked: &[(usize, String)],
    shown: &str,
    quiet: u8,
) -> i32 {
    let cap = ctx.fs.max_file_size();
    let mut bad = 0;
    if quiet == 0 {
        let _ = writeln!(ctx.stdout, "Archive:  {shown}");
    }
    for (i, name) in picked {
        let ok = name.ends_with('/') || read_member(archive, *i, cap).is_ok();
        if !ok {
            bad += 1;
        }
        if quiet == 0 {
            let verdict = if ok { "OK" } else { "bad CRC" };
            let _ = writeln!(ctx.stdout, "    testing: {name:<22}   {verdict}");
        }
    }
    if bad == 0 {
        if quiet < 2 {
            let _ = writeln!(
                ctx.stdout,
                "No errors detected in compressed data of {shown}."
            );
        }
        0
    } else {
        let _ = writeln!(ctx.stdout, "At least one error was detected in {shown}.");
        2
    }
}

/// Extraction settings.
struct Extract {
    dir: String,
    junk: bool,
    quiet: u8,
    mode: Overwrite,
    /// The question met the end of stdin: the skipped files are errors.
    no_answer: bool,
}

impl Extract {
    fn run(
        mut self,
        ctx: &mut CommandCtx<'_>,
        archive: &mut Archive<'_>,
        picked: &[(usize, String)],
        shown: &str,
    ) -> i32 {
        let mut out = String::new();
        if self.quiet == 0 {
            out.push_str(&format!("Archive:  {shown}\n"));
        }
        let base = ctx.path(&self.dir);
        // UnZip makes the last directory of -d only, not its parents.
        if !ctx.fs.exists(&base)
            && let Err(e) = ctx.fs.mkdir(&base, 0o755)
        {
            let _ = ctx.stdout.write_all(out.as_bytes());
            let _ = writeln!(
                ctx.stderr,
                "checkdir:  cannot create extraction directory: {}\n           {e}",
                self.dir
            );
            return 2;
        }
        let mut status = 0;
        for (i, name) in picked {
            crate::cancel::point();
            let Some(rel) = safe_name(name, self.junk) else {
                let _ = writeln!(
                    ctx.stderr,
                    "warning:  skipped \"../\" path component(s) in {name}"
                );
                continue;
            };
            let shown_name = if self.dir == "." {
                rel.clone()
            } else {
                format!("{}/{rel}", self.dir.trim_end_matches('/'))
            };
            let path = format!("{}/{rel}", base.trim_end_matches('/'));
            let s = self.one(ctx, archive, *i, name, &path, &shown_name, &mut out);
            status = status.max(s);
        }
        let _ = ctx.stdout.write_all(out.as_bytes());
        status
    }

    /// Extracts one member to `path`; the status it sets.
    #[allow(clippy::too_many_arguments)]
    fn one(
        &mut self,
        ctx: &mut CommandCtx<'_>,
        archive: &mut Archive<'_>,
        i: usize,
        name: &str,
        path: &str,
        shown: &str,
        out: &mut String,
    ) -> i32 {
        let (mode, mtime) = match archive.by_index_raw(i) {
            Ok(f) => (f.unix_mode(), member_mtime(&f)),
            Err(_) => (None, None),
        };
        if name.ends_with('/') {
            // UnZip names only the directories it makes.
            if !self.junk && !ctx.fs.exists(path.trim_end_matches('/')) {
                if self.quiet == 0 {
                    out.push_str(&format!("   creating: {shown}\n"));
                }
                let _ = ctx.fs.mkdir_all(path);
            }
            return 0;
        }
        if ctx.fs.symlink_metadata(path).is_ok() && !self.may_replace(ctx, shown, out) {
            return i32::from(self.no_answer);
        }
        let data = match read_member(archive, i, ctx.fs.max_file_size()) {
            Ok(d) => d,
            Err(e) => {
                let _ = writeln!(
                    ctx.stderr,
                    "error:  invalid compressed data to inflate {shown}: {e}"
                );
                return 2;
            }
        };
        let stored = archive
            .by_index_raw(i)
            .map(|f| f.compression() == ::zip::CompressionMethod::Stored)
            .unwrap_or(false);
        if self.quiet == 0 {
            let verb = if stored { " extracting" } else { "  inflating" };
            out.push_str(&format!("{verb}: {shown:<22}  \n"));
        }
        if let Some(parent) = path
            .rsplit_once('/')
            .map(|(p, _)| p)
            .filter(|p| !p.is_empty())
        {
            let _ = ctx.fs.mkdir_all(parent);
        }
        let _ = ctx.fs.remove_file(path);
        if let Err(e) = ctx.fs.write(path, &data) {
            let _ = writeln!(ctx.stderr, "error:  cannot create {shown}\n        {e}");
            return 1;
        }
        if let Some(m) = mode {
            let _ = ctx.fs.set_mode(path, m & 0o7777);
        }
        if let Some(secs) = mtime {
            let _ = ctx.fs.set_mtime(path, Timestamp { secs, nanos: 0 });
        }
        0
    }

    /// UnZip's question for an existing file, answered from stdin.
    fn may_replace(&mut self, ctx: &mut CommandCtx<'_>, shown: &str, out: &mut String) -> bool {
        match self.mode {
            Overwrite::Always => return true,
            Overwrite::Never => return false,
            Overwrite::Ask => {}
        }
        let _ = ctx.stdout.write_all(out.as_bytes());
        out.clear();
        let _ = ctx.stdout.flush();
        let _ = write!(
            ctx.stderr,
            "replace {shown}? [y]es, [n]o, [A]ll, [N]one, [r]ename: "
        );
        let answer = read_answer(ctx.stdin);
        match answer.as_deref() {
            Some("y") | Some("Y") => true,
            Some("A") => {
                self.mode = Overwrite::Always;
                true
            }
            Some("N") => {
                self.mode = Overwrite::Never;
                false
            }
            Some(_) => false,
            None => {
                let _ = writeln!(
                    ctx.stderr,
                    " NULL\n(EOF or read error, treating as \"[N]one\" ...)"
                );
                self.mode = Overwrite::Never;
                self.no_answer = true;
                false
            }
        }
    }
}

/// One line from stdin, trimmed; `None` at end of input.
fn read_answer(stdin: &mut dyn Read) -> Option<String> {
    let mut line = Vec::new();
    let mut b = [0u8; 1];
    loop {
        match stdin.read(&mut b) {
            Ok(1) if b[0] == b'\n' => break,
            Ok(1) => line.push(b[0]),
            _ if line.is_empty() => return None,
            _ => break,
        }
    }
    Some(String::from_utf8_lossy(&line).trim().to_string())
}

/// A member name as a relative path inside the target, `..` and leading
/// slashes refused; with `junk`, only the last component.
fn safe_name(name: &str, junk: bool) -> Option<String> {
    let parts: Vec<&str> = name
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    if parts.contains(&"..") || parts.is_empty() {
        return None;
    }
    if junk {
        return parts.last().map(|s| s.to_string());
    }
    let mut s = parts.join("/");
    if name.ends_with('/') {
        s.push('/');
    }
    Some(s)
}

/// A member's modification time in epoch seconds: the extended timestamp
/// (extra field 0x5455, exact to the second) when Info-ZIP wrote one, as
/// UnZip prefers it; otherwise the DOS date and time, which `zip` rounds up
/// to an even second.
fn member_mtime<R: std::io::Read>(f: &::zip::read::ZipFile<'_, R>) -> Option<i64> {
    let exact = f.extra_data_fields().find_map(|field| match field {
        ::zip::extra_fields::ExtraField::ExtendedTimestamp(t) => t.mod_time(),
        _ => None,
    });
    if let Some(secs) = exact {
        return Some(i64::from(secs));
    }
    let t = f.last_modified()?;
    Some(crate::time::to_epoch(
        i64::from(t.year()),
        u32::from(t.month()),
        u32::from(t.day()),
        u32::from(t.hour()),
        u32::from(t.minute()),
        u32::from(t.second()),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(safe_name("a/b", false).as_deref(), Some("a/b"));
        assert_eq!(safe_name("/etc/x", false).as_deref(), Some("etc/x"));
        assert_eq!(safe_name("../x", false), None);
        assert_eq!(safe_name("d/", false).as_deref(), Some("d/"));
        assert_eq!(safe_name("a/b/c", true).as_deref(), Some("c"));
    }

    fn run(args: &[&str]) -> (i32, String, String) {
        use crate::commands::testing::{control, new_fs, run_cmd};
        let o = run_cmd(&new_fs(), unzip, args, &mut &b""[..], &control());
        let text = |b: Vec<u8>| String::from_utf8_lossy(&b).into_owned();
        (o.status, text(o.stdout), text(o.stderr))
    }

    #[test]
    fn help_as_info_zip_gives_it() {
        let help = (0, USAGE.to_string(), String::new());
        for args in [
            &["unzip", "--help"][..],
            &["unzip", "-h"],
            &["unzip", "-lh", "x.zip"],
            &["unzip", "--h"],
            &["unzip", "-q", "--help", "x.zip"],
        ] {
            assert_eq!(run(args), help, "{args:?}");
        }
        // `-d` takes the next word as exdir.
        let (status, _, err) = run(&["unzip", "-d", "--help", "x.zip"]);
        assert_eq!(status, 9, "{err}");
    }
}
