//! `diff`: compares files line by line (Myers), prints normal, unified
//! (`-u`/`-U N`) or brief (`-q`) output, walks directories with `-r`.
//! Exit status: 0 same, 1 different, 2 trouble.

mod format;
mod lcs;

use super::super::CommandCtx;
use crate::commands::text::common::read_stdin;
use crate::fs::FileKind;

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

/// Runs `diff`.
pub fn diff(ctx: &mut CommandCtx<'_>) -> i32 {
    let args: Vec<String> = ctx.args[1..].to_vec();
    let mut o = Opts::default();
    let mut files = Vec::new();
    let mut i = 0;
    let mut only_files = false;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if only_files || !a.starts_with('-') || a == "-" {
            files.push(a.clone());
            continue;
        }
        if a == "--" {
            only_files = true;
            continue;
        }
        if let Some(long) = a.strip_prefix("--") {
            let (name, val) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (long, None),
            };
            match name {
                "unified" => o.unified = Some(val.and_then(|v| v.parse().ok()).unwrap_or(3)),
                "brief" => o.brief = true,
                "recursive" => o.recursive = true,
                "new-file" => o.new_file = true,
                "report-identical-files" => o.report_same = true,
                "ignore-case" => o.ignore_case = true,
                "ignore-all-space" => o.ignore_all_space = true,
                "ignore-space-change" => o.ignore_space_change = true,
                "ignore-blank-lines" => o.ignore_blank = true,
                "ignore-trailing-space" => o.ignore_trailing = true,
                "normal" => o.unified = None,
                "label" => {
                    let v = match val {
                        Some(v) => v,
                        None => {
                            i += 1;
                            match args.get(i - 1) {
                                Some(v) => v.clone(),
                                None => return usage(ctx, "option '--label' requires an argument"),
                            }
                        }
                    };
                    o.labels.push(v);
                    continue;
                }
                _ => return usage(ctx, &format!("unrecognized option '{a}'")),
            }
            o.switches.push(a.clone());
            continue;
        }
        let chars: Vec<char> = a[1..].chars().collect();
        let mut k = 0;
        while k < chars.len() {
            match chars[k] {
                'u' => o.unified = Some(3),
                'U' => {
                    let rest: String = chars[k + 1..].iter().collect();
                    let v = if rest.is_empty() {
                        i += 1;
                        args.get(i - 1).cloned().unwrap_or_default()
                    } else {
                        rest
                    };
                    match v.parse() {
                        Ok(n) => o.unified = Some(n),
                        Err(_) => return usage(ctx, &format!("invalid context length '{v}'")),
                    }
                    k = chars.len();
                    continue;
                }
                'q' => o.brief = true,
                'r' => o.recursive = true,
                'N' => o.new_file = true,
                's' => o.report_same = true,
                'i' => o.ignore_case = true,
                'w' => o.ignore_all_space = true,
                'b' => o.ignore_space_change = true,
                'B' => o.ignore_blank = true,
                'Z' => o.ignore_trailing = true,
                'a' => {}
                c => return usage(ctx, &format!("invalid option -- '{c}'")),
            }
            k += 1;
        }
        o.switches.push(a.clone());
    }
    if files.len() != 2 {
        let msg = match files.len() {
            0 => "missing operand after 'diff'".to_string(),
            1 => format!("missing operand after '{}'", files[0]),
            _ => format!("extra operand '{}'", files[2]),
        };
        return usage(ctx, &msg);
    }
    let mut d = Differ { ctx, o, status: 0 };
    d.compare(&files[0], &files[1], true);
    d.status
}

fn usage(ctx: &mut CommandCtx<'_>, msg: &str) -> i32 {
    ctx.error(msg);
    let _ = writeln!(ctx.stderr, "diff: Try 'diff --help' for more information.");
    2
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
        let db = self.read(&b, kb.is_none());
        let (Some(da), Some(db)) = (da, db) else {
            self.set(2);
            return;
        };
        let header = if top {
            None
        } else {
            Some(format!("diff {} {a} {b}", self.o.switches.join(" ")))
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
