//! `diff`: compares files line by line (Myers), prints normal, unified
//! (`-u`/`-U N`) or brief (`-q`) output, walks directories with `-r`.
//! Exit status: 0 same, 1 different, 2 trouble.

mod format;
mod lcs;

use super::super::CommandCtx;
use crate::commands::options::{
    self, Arg, OptSpec, ParseMode, flag, long_flag, opt, unimplemented, with_arg,
};
use crate::commands::text::common::{diffutils_usage_error, read_stdin};
use crate::fs::FileKind;

/// What `diff --help` prints.
pub(crate) const USAGE: &str = "\
Usage: diff [OPTION]... FILES
Compare two files line by line, or two directories file by file. FILES is
'FILE1 FILE2'; one of the two may be a directory, holding a file named as
the other, and - is standard input. The status is 0 when nothing differs,
1 when something does, 2 on trouble.

      --normal                  print a normal diff (the default)
  -q, --brief                   only say whether the files differ
  -s, --report-identical-files  also say when two files are the same
  -u, -U NUM, --unified[=NUM]   print a unified diff with NUM lines of
                                  context around changes (default 3)
      --label LABEL             name the file LABEL in the unified header
                                  (give it twice for the two files)
  -r, --recursive               compare subdirectories too
  -N, --new-file                take a missing file as an empty one
  -i, --ignore-case             ignore differences of case
  -b, --ignore-space-change     ignore changes in the amount of white space
  -w, --ignore-all-space        ignore white space altogether
  -Z, --ignore-trailing-space   ignore white space at the ends of lines
  -B, --ignore-blank-lines      ignore changes that only add or remove empty
                                  lines
  -a, --text                    treat every file as text (always the case)
      --help        display this help and exit
";

/// Parsed options.
#[derive(Default, Clone)]
pub struct Opts {
    pub unified: Option<usize>,
    pub brief: bool,
    pub recursive: bool,
    pub new_file: bool,
    pub report_same: bool,
    pub ignore_case: bool,
    pub ignore_all_space: bool,
    pub ignore_space_change: bool,
    pub ignore_blank: bool,
    pub ignore_trailing: bool,
    pub labels: Vec<String>,
    /// The option words as given, for `diff -r a/x b/x` headers.
    pub switches: Vec<String>,
}

/// diff 3.8's long options in the order of its table; the short ones it has
/// that are missing here are invalid options.
const SPEC: &[OptSpec] = &[
    unimplemented("binary"),
    flag('q', Some("brief"), "q"),
    unimplemented("changed-group-format"),
    unimplemented("color"),
    unimplemented("context"),
    unimplemented("ed"),
    unimplemented("exclude"),
    unimplemented("exclude-from"),
    unimplemented("expand-tabs"),
    unimplemented("forward-ed"),
    unimplemented("from-file"),
    unimplemented("help"),
    unimplemented("horizon-lines"),
    unimplemented("ifdef"),
    flag('w', Some("ignore-all-space"), "w"),
    flag('B', Some("ignore-blank-lines"), "B"),
    flag('i', Some("ignore-case"), "i"),
    unimplemented("ignore-file-name-case"),
    unimplemented("ignore-matching-lines"),
    flag('b', Some("ignore-space-change"), "b"),
    unimplemented("ignore-tab-expansion"),
    flag('Z', Some("ignore-trailing-space"), "Z"),
    unimplemented("inhibit-hunk-merge"),
    unimplemented("initial-tab"),
    with_arg(None, Some("label"), "label"),
    unimplemented("left-column"),
    unimplemented("line-format"),
    unimplemented("minimal"),
    flag('N', Some("new-file"), "N"),
    unimplemented("new-group-format"),
    unimplemented("new-line-format"),
    unimplemented("no-dereference"),
    unimplemented("no-ignore-file-name-case"),
    long_flag("normal", "normal"),
    unimplemented("old-group-format"),
    unimplemented("old-line-format"),
    unimplemented("paginate"),
    unimplemented("palette"),
    unimplemented("rcs"),
    flag('r', Some("recursive"), "r"),
    flag('s', Some("report-identical-files"), "s"),
    unimplemented("sdiff-merge-assist"),
    unimplemented("show-c-function"),
    unimplemented("show-function-line"),
    unimplemented("side-by-side"),
    unimplemented("speed-large-files"),
    unimplemented("starting-file"),
    unimplemented("strip-trailing-cr"),
    unimplemented("suppress-blank-empty"),
    unimplemented("suppress-common-lines"),
    unimplemented("tabsize"),
    flag('a', Some("text"), "a"),
    unimplemented("to-file"),
    unimplemented("unchanged-group-format"),
    unimplemented("unchanged-line-format"),
    unimplemented("unidirectional-new-file"),
    opt("U", None, Some("unified"), Arg::Optional),
    with_arg(Some('U'), None, "U"),
    flag('u', None, "u"),
    unimplemented("version"),
    unimplemented("width"),
    unimplemented("-presume-output-tty"),
];

/// Runs `diff`.
pub fn diff(ctx: &mut CommandCtx<'_>) -> i32 {
    let mode = ParseMode {
        digit_option: true,
        ..ParseMode::default()
    };
    let p = match options::parse(ctx.args, SPEC, mode) {
        Ok(p) => p,
        Err(e) => return diffutils_usage_error(ctx, &e),
    };
    let mut o = Opts {
        brief: p.has("q"),
        recursive: p.has("r"),
        new_file: p.has("N"),
        report_same: p.has("s"),
        ignore_case: p.has("i"),
        ignore_all_space: p.has("w"),
        ignore_space_change: p.has("b"),
        ignore_blank: p.has("B"),
        ignore_trailing: p.has("Z"),
        labels: p.values("label").into_iter().map(String::from).collect(),
        switches: p.words,
        ..Opts::default()
    };
    match context(&p.opts) {
        Ok(unified) => o.unified = unified,
        Err(e) => return diffutils_usage_error(ctx, &e),
    }
    let files = p.operands;
    if files.len() != 2 {
        let msg = match files.len() {
            0 => "missing operand after 'diff'".to_string(),
            1 => format!("missing operand after '{}'", files[0]),
            _ => format!("extra operand '{}'", files[2]),
        };
        return diffutils_usage_error(ctx, &msg);
    }
    let mut d = Differ { ctx, o, status: 0 };
    d.compare(&files[0], &files[1], true);
    d.status
}

/// The unified context length the options ask for (`None`: normal output),
/// by diff's rules: `-U N`/`--unified=N` and `-u` (3) keep the largest
/// value; a `-NUM` (digits of adjacent digit options run together) then
/// wins when larger, or when no `-U`/`--unified` was given.
fn context(opts: &[(&str, Option<String>)]) -> Result<Option<usize>, String> {
    let mut context: Option<usize> = None;
    let mut explicit = false;
    let mut digits: Option<String> = None;
    let mut prev_digits = false;
    let mut normal = false;
    for (id, v) in opts {
        let is_digits = *id == "NUM";
        match (*id, v) {
            ("NUM", Some(d)) => match digits.as_mut() {
                Some(acc) if prev_digits => acc.push_str(d),
                _ => digits = Some(d.clone()),
            },
            ("u", _) => context = Some(context.unwrap_or(0).max(3)),
            ("U", v) => {
                let n = match v {
                    Some(v) => {
                        context_length(v).ok_or_else(|| format!("invalid context length '{v}'"))?
                    }
                    None => 3,
                };
                context = Some(context.unwrap_or(0).max(n));
                explicit = true;
            }
            ("normal", _) => normal = true,
            _ => {}
        }
        if context.is_some() && normal {
            return Err("conflicting output style options".to_string());
        }
        prev_digits = is_digits;
    }
    let Some(c) = context else {
        return Ok(None);
    };
    let digits = digits.map(|d| context_length(&d).unwrap_or(usize::MAX));
    Ok(Some(match digits {
        Some(d) if d > c || (d < c && !explicit) => d,
        _ => c,
    }))
}

/// A context length as diff reads it with `strtoimax`: blanks and a sign
/// before the digits; an empty string is 0, a huge one the largest length.
fn context_length(s: &str) -> Option<usize> {
    let t = s.trim_start_matches([' ', '\t', '\n', '\x0b', '\x0c', '\r']);
    let (neg, digits) = match t.strip_prefix(['+', '-']) {
        Some(d) => (t.starts_with('-'), d),
        None => (false, t),
    };
    if s.is_empty() {
        return Some(0);
    }
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let zero = digits.bytes().all(|b| b == b'0');
    if neg && !zero {
        return None;
    }
    Some(digits.parse().unwrap_or(usize::MAX))
}

struct Differ<'c, 'a> {
    ctx: &'c mut CommandCtx<'a>,
    o: Opts,
    status: i32,
}

impl Differ<'_, '_> {
    fn kind(&self, p: &str) -> Option<FileKind> {
        if p == "-" {
            return Some(FileKind::File);
        }
        self.ctx.fs.metadata(&self.ctx.path(p)).ok().map(|m| m.kind)
    }

    fn set(&mut self, s: i32) {
        self.status = self.status.max(s);
    }

    fn compare(&mut self, a: &str, b: &str, top: bool) {
        if self.ctx.control.check().is_err() {
            self.set(2);
            return;
        }
        let (ka, kb) = (self.kind(a), self.kind(b));
        let (mut a, mut b) = (a.to_string(), b.to_string());
        match (ka, kb) {
            (None, _) | (_, None) if !(self.o.new_file && (ka.is_some() || kb.is_some())) => {
                for (p, k) in [(&a, ka), (&b, kb)] {
                    if k.is_none() {
                        self.ctx.error(format!("{p}: No such file or directory"));
                    }
                }
                self.set(2);
                return;
            }
            (Some(FileKind::Dir), Some(FileKind::Dir))
            | (Some(FileKind::Dir), None)
            | (None, Some(FileKind::Dir)) => {
                self.compare_dirs(&a, &b);
                return;
            }
            (Some(FileKind::Dir), Some(_)) if top => {
                a = format!("{}/{}", a.trim_end_matches('/'), base(&b));
            }
            (Some(_), Some(FileKind::Dir)) if top => {
                b = format!("{}/{}", b.trim_end_matches('/'), base(&a));
            }
            (Some(FileKind::Dir), _) | (_, Some(FileKind::Dir)) if !top => {
                let (d, f) = if ka == Some(FileKind::Dir) {
                    (&a, &b)
                } else {
                    (&b, &a)
                };
                let _ = writeln!(
                    self.ctx.stdout,
                    "File {d} is a directory while file {f} is a regular file"
                );
                self.set(1);
                return;
            }
            _ => {}
        }
        let da = self.read(&a, ka.is_none());
        // `diff - -` compares standard input with itself (GNU sees one
        // file twice): reading it again would give nothing.
        let db = if a == "-" && b == "-" {
            da.clone()
        } else {
            self.read(&b, kb.is_none())
        };
        let (Some(da), Some(db)) = (da, db) else {
            self.set(2);
            return;
        };
        let header = if top {
            None
        } else {
            let switches: String = self.o.switches.iter().map(|w| format!(" {w}")).collect();
            Some(format!("diff{switches} {a} {b}"))
        };
        let differ = format::emit(self.ctx, &self.o, (&a, &da), (&b, &db), header.as_deref());
        if differ {
            self.set(1);
        } else if self.o.report_same {
            let _ = writeln!(self.ctx.stdout, "Files {a} and {b} are identical");
        }
    }

    fn read(&mut self, p: &str, absent: bool) -> Option<Vec<u8>> {
        if absent {
            return Some(Vec::new());
        }
        if p == "-" {
            return match read_stdin(self.ctx.stdin, self.ctx.fs.max_file_size()) {
                Ok(v) => Some(v),
                Err(e) => {
                    self.ctx.error(format!("-: {e}"));
                    None
                }
            };
        }
        match self.ctx.fs.read(&self.ctx.path(p)) {
            Ok(d) => Some(d),
            Err(e) => {
                self.ctx.error(format!("{p}: {e}"));
                None
            }
        }
    }

    fn compare_dirs(&mut self, a: &str, b: &str) {
        let list = |s: &Self, p: &str| -> Vec<String> {
            s.ctx
                .fs
                .read_dir(&s.ctx.path(p))
                .map(|v| v.into_iter().map(|e| e.name).collect())
                .unwrap_or_default()
        };
        let la = list(self, a);
        let lb = list(self, b);
        let mut names: Vec<&String> = la.iter().chain(lb.iter()).collect();
        names.sort();
        names.dedup();
        for n in names {
            let pa = format!("{}/{n}", a.trim_end_matches('/'));
            let pb = format!("{}/{n}", b.trim_end_matches('/'));
            let (ina, inb) = (la.contains(n), lb.contains(n));
            if ina && inb || self.o.new_file {
                let both_dirs =
                    self.kind(&pa) == Some(FileKind::Dir) && self.kind(&pb) == Some(FileKind::Dir);
                if both_dirs && !self.o.recursive {
                    let _ = writeln!(self.ctx.stdout, "Common subdirectories: {pa} and {pb}");
                } else {
                    self.compare(&pa, &pb, false);
                }
            } else {
                let dir = if ina { a } else { b };
                let _ = writeln!(
                    self.ctx.stdout,
                    "Only in {}: {n}",
                    dir.trim_end_matches('/')
                );
                self.set(1);
            }
        }
    }
}

fn base(p: &str) -> &str {
    p.trim_end_matches('/').rsplit('/').next().unwrap_or(p)
}
