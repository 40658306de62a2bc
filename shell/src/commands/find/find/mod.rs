//! `find`: parses the expression into a tree of predicates and actions, then
//! walks the virtual tree (directory before contents, or after with `-depth`)
//! evaluating it on each entry.

mod parse;

use parse::{Cmp, Expr, Options};

use super::super::{CommandCtx, ExecMode, ExecRequest};
use crate::fs::{FileKind, Metadata};

/// What `find --help` prints.
pub(crate) const USAGE: &str = "\
Usage: find [-H] [-L] [-P] [-Olevel] [-D debugopts] [path...] [expression]
Walk the tree under each path (by default .), evaluating the expression on
every entry; without an action in it, matching entries are printed.

  -H  follow symbolic links given as paths   -L  follow all symbolic links
  -P  follow no symbolic links (the default)

Operators, binding tightest first (-a is implied between two primaries):
  ( EXPR )   ! EXPR   -not EXPR   EXPR -a EXPR   EXPR -and EXPR
  EXPR -o EXPR   EXPR -or EXPR   EXPR , EXPR

Options (always true):
  -depth -d -maxdepth LEVELS -mindepth LEVELS -follow -regextype TYPE
  -xdev -mount -noleaf -ignore_readdir_race (these four change nothing)

Tests (a number N may be +N, more than N, or -N, less than N):
  -name PATTERN -iname PATTERN -path PATTERN -ipath PATTERN
  -wholename PATTERN -iwholename PATTERN -regex PATTERN -iregex PATTERN
  -type [fdlpscbD][,...] -empty -size N[bcwkMG] -mtime N -mmin N
  -newer FILE -samefile FILE -perm [-/]MODE -links N -inum N
  -user NAME -group NAME -uid N -gid N -nouser -nogroup -true -false
  -readable -writable -executable (always true)
  -atime -amin -anewer -ctime -cmin -cnewer (on the modification time,
  the only time the sandbox keeps)

Actions:
  -print -print0 -printf FORMAT -delete -prune -quit
  -exec COMMAND ;   -exec COMMAND {} +   -execdir COMMAND ;
  -execdir COMMAND {} +   -ok COMMAND ;   -okdir COMMAND ;
  (-ok and -okdir have no one to ask, so they are always false)

-printf knows %p %f %h %P %s %d %m %M %y %i %n %k %l %u %g %U %G %T@ %TY
%Tm %Td %TH %TM %TS %TT %TF ..., widths like %-10p, and \\n \\t \\0 \\\\.

      --help        display this help and exit
";

/// State shared by the whole walk.
struct Walk<'c, 'a> {
    ctx: &'c mut CommandCtx<'a>,
    opts: Options,
    status: i32,
    quit: bool,
    /// Paths collected for `-exec ... {} +`, per `-exec` node id.
    batches: Vec<(Vec<String>, Vec<String>)>,
    now: i64,
    /// Where `-printf` shows times: the zone `TZ` names.
    zone: crate::time::Zone,
}

/// One visited entry.
struct Entry<'e> {
    path: &'e str,
    meta: &'e Metadata,
    depth: usize,
}

/// Runs `find`.
pub fn find(ctx: &mut CommandCtx<'_>) -> i32 {
    let args: Vec<String> = ctx.args[1..].to_vec();
    let mtime_of = |f: &str| -> Result<(i64, u32, u64), String> {
        let abs = ctx.path(f);
        ctx.fs
            .metadata(&abs)
            .map(|m| (m.mtime.secs, m.mtime.nanos, m.ino))
            .map_err(|e| format!("\u{2018}{f}\u{2019}: {e}"))
    };
    let parsed = parse::parse(&args, &mtime_of);
    let (opts, mut paths, expr) = match parsed {
        Ok(v) => v,
        Err(msg) => {
            ctx.error(msg);
            return 1;
        }
    };
    for w in &opts.warnings {
        ctx.error(w);
    }
    if paths.is_empty() {
        paths.push(".".into());
    }
    let nbatch = opts.nbatch;
    let now = ctx.fs.clock().now().secs;
    let mut walk = Walk {
        ctx,
        opts,
        status: 0,
        quit: false,
        batches: vec![(Vec::new(), Vec::new()); nbatch],
        now,
        zone: crate::time::Zone::utc(),
    };
    walk.zone = crate::time::Zone::from_env(walk.ctx.env);
    for p in &paths {
        if walk.quit {
            break;
        }
        let abs = walk.ctx.path(p);
        let meta = if walk.opts.follow_roots {
            walk.ctx
                .fs
                .metadata(&abs)
                .or_else(|_| walk.ctx.fs.symlink_metadata(&abs))
        } else {
            walk.ctx.fs.symlink_metadata(&abs)
        };
        match meta {
            Ok(m) => {
                if walk.visit(&expr, p, &abs, &m, 0).is_err() {
                    return 1;
                }
            }
            Err(e) => {
                walk.ctx.error(format!("\u{2018}{p}\u{2019}: {e}"));
                walk.status = 1;
            }
        }
    }
    walk.flush_batches(&expr);
    walk.status
}

impl Walk<'_, '_> {
    /// Visits `path` (as displayed) at `abs`, then its children.
    fn visit(
        &mut self,
        expr: &Expr,
        path: &str,
        abs: &str,
        meta: &Metadata,
        depth: usize,
    ) -> Result<(), ()> {
        if self.ctx.control.check().is_err() {
            return Err(());
        }
        let in_range = depth >= self.opts.mindepth;
        let mut prune = false;
        if !self.opts.depth && in_range {
            let e = Entry { path, meta, depth };
            self.eval(expr, &e, &mut prune);
        }
        if self.quit {
            return Ok(());
        }
        let is_dir = meta.kind == FileKind::Dir;
        if is_dir && !prune && self.opts.maxdepth.is_none_or(|m| depth < m) {
            match self.ctx.fs.read_dir_metadata(abs) {
                Ok(list) => {
                    for (name, m) in list {
                        let m = if self.opts.follow_all && m.kind == FileKind::Symlink {
                            let child = join(abs, &name);
                            self.ctx.fs.metadata(&child).unwrap_or(m)
                        } else {
                            m
                        };
                        let child_path = join(path, &name);
                        let child_abs = join(abs, &name);
                        self.visit(expr, &child_path, &child_abs, &m, depth + 1)?;
                        if self.quit {
                            return Ok(());
                        }
                    }
                }
                Err(e) => {
                    self.ctx.error(format!("\u{2018}{path}\u{2019}: {e}"));
                    self.status = 1;
                }
            }
        }
        if self.opts.depth && in_range && !self.quit {
            let e = Entry { path, meta, depth };
            self.eval(expr, &e, &mut prune);
        }
        Ok(())
    }

    fn eval(&mut self, expr: &Expr, e: &Entry<'_>, prune: &mut bool) -> bool {
        if self.quit {
            return false;
        }
        match expr {
            Expr::And(a, b) => self.eval(a, e, prune) && self.eval(b, e, prune),
            Expr::Or(a, b) => self.eval(a, e, prune) || self.eval(b, e, prune),
            Expr::Comma(a, b) => {
                self.eval(a, e, prune);
                self.eval(b, e, prune)
            }
            Expr::Not(a) => !self.eval(a, e, prune),
            Expr::Const(b) => *b,
            Expr::Name(p, nocase) => {
                let base = base_name(e.path);
                glob(p, base, *nocase)
            }
            Expr::Path(p, nocase) => glob(p, e.path, *nocase),
            Expr::Regex(re) => re.is_match(e.path),
            Expr::Type(kinds) => kinds.contains(&type_char(e.meta.kind)),
            Expr::Empty => match e.meta.kind {
                FileKind::File => e.meta.size == 0,
                FileKind::Dir => {
                    let abs = self.ctx.path(e.path);
                    self.ctx
                        .fs
                        .read_dir(&abs)
                        .map(|l| l.is_empty())
                        .unwrap_or(false)
                }
                _ => false,
            },
            Expr::Size(cmp, n, unit) => {
                let size = e.meta.size;
                let v = if *unit == 1 {
                    size
                } else {
                    size.div_ceil(*unit)
                };
                cmp.test(v as i64, *n)
            }
            Expr::Mtime(cmp, n, secs_per) => {
                mtime_matches(self.now - e.meta.mtime.secs, *cmp, *n, *secs_per)
            }
            Expr::Newer(t) => {
                let m = &e.meta.mtime;
                (m.secs, m.nanos) > *t
            }
            Expr::Perm(kind, mode) => {
                let m = e.meta.mode & 0o7777;
                match kind {
                    '=' => m == *mode,
                    '-' => m & mode == *mode,
                    _ => *mode == 0 || m & mode != 0,
                }
            }
            Expr::SameFile(ino) => e.meta.ino == *ino,
            Expr::Links(cmp, n) => cmp.test(e.meta.nlink as i64, *n),
            Expr::Inum(cmp, n) => cmp.test(e.meta.ino as i64, *n),
            Expr::Prune => {
                if !self.opts.depth {
                    *prune = true;
                }
                true
            }
            Expr::Quit => {
                self.quit = true;
                true
            }
            // Names made from raw bytes go out as those bytes (crate::bytes).
            Expr::Print(term) => {
                let _ = self.ctx.stdout.write_all(&crate::bytes::encode(e.path));
                let _ = write!(self.ctx.stdout, "{term}");
                true
            }
            Expr::Printf(fmt) => {
                let s = self.printf(fmt, e);
                let _ = self.ctx.stdout.write_all(&crate::bytes::encode(&s));
                true
            }
            Expr::Delete => self.delete(e),
            Expr::Exec {
                argv,
                plus,
                dir,
                id,
            } => self.exec(argv, *plus, *dir, *id, e),
        }
    }

    /// `-delete` (never `.`); false after the error message.
    fn delete(&mut self, e: &Entry<'_>) -> bool {
        let abs = self.ctx.path(e.path);
        if e.path == "." {
            return true;
        }
        let r = if e.meta.kind == FileKind::Dir {
            self.ctx.fs.remove_dir(&abs)
        } else {
            self.ctx.fs.remove_file(&abs)
        };
        match r {
            Ok(()) => true,
            Err(err) => {
                self.ctx
                    .error(format!("cannot delete \u{2018}{}\u{2019}: {err}", e.path));
                self.status = 1;
                false
            }
        }
    }

    /// `-exec`/`-execdir` (`dir`): runs the command with `{}` replaced, or
    /// with `+` (`plus`) adds the path to batch `id`, run at the end.
    fn exec(&mut self, argv: &[String], plus: bool, dir: bool, id: usize, e: &Entry<'_>) -> bool {
        let (arg_path, cwd) = if dir {
            let abs = self.ctx.path(e.path);
            let parent = match abs.rfind('/') {
                Some(0) => "/".to_string(),
                Some(i) => abs[..i].to_string(),
                None => self.ctx.cwd.to_string(),
            };
            (format!("./{}", base_name(e.path)), parent)
        } else {
            (e.path.to_string(), self.ctx.cwd.to_string())
        };
        if plus {
            let b = &mut self.batches[id];
            b.0 = argv.to_vec();
            b.1.push(arg_path);
            return true;
        }
        let full: Vec<String> = argv.iter().map(|a| a.replace("{}", &arg_path)).collect();
        self.run(&full, &cwd) == 0
    }

    fn run(&mut self, argv: &[String], cwd: &str) -> i32 {
        let ctx = &mut *self.ctx;
        let mut empty: &[u8] = &[];
        ctx.exec.exec(ExecRequest {
            argv,
            env: &[],
            cwd,
            stdin: &mut empty,
            stdout: ctx.stdout,
            stderr: ctx.stderr,
            mode: ExecMode::Inherit,
        })
    }

    fn flush_batches(&mut self, _expr: &Expr) {
        let batches = std::mem::take(&mut self.batches);
        for (argv, paths) in batches {
            if paths.is_empty() {
                continue;
            }
            let mut full = Vec::new();
            for a in &argv {
                if a == "{}" {
                    full.extend(paths.iter().cloned());
                } else {
                    full.push(a.clone());
                }
            }
            let cwd = self.ctx.cwd.to_string();
            if self.run(&full, &cwd) != 0 {
                self.status = 1;
            }
        }
    }

    fn printf(&mut self, fmt: &str, e: &Entry<'_>) -> String {
        let mut out = String::new();
        let mut it = fmt.chars().peekable();
        while let Some(c) = it.next() {
            match c {
                '\\' => match it.next() {
                    Some('n') => out.push('\n'),
                    Some('t') => out.push('\t'),
                    Some('0') => out.push('\0'),
                    Some('\\') => out.push('\\'),
                    Some(o) => {
                        out.push('\\');
                        out.push(o);
                    }
                    None => out.push('\\'),
                },
                '%' => {
                    let mut spec = String::new();
                    while let Some(&d) = it.peek() {
                        if d == '-' || d.is_ascii_digit() || d == '.' {
                            spec.push(d);
                            it.next();
                        } else {
                            break;
                        }
                    }
                    let Some(d) = it.next() else {
                        out.push('%');
                        break;
                    };
                    let val = match d {
                        '%' => "%".to_string(),
                        'p' => e.path.to_string(),
                        'f' => base_name(e.path).to_string(),
                        'h' => match e.path.rfind('/') {
                            Some(0) => "/".into(),
                            Some(i) => e.path[..i].to_string(),
                            None => ".".into(),
                        },
                        'P' => {
                            // Path relative to the starting point.
                            let mut p = e.path;
                            for _ in 0..e.depth {
                                p = p.rsplit_once('/').map(|x| x.0).unwrap_or("");
                            }
                            let rest = &e.path[p.len()..];
                            rest.trim_start_matches('/').to_string()
                        }
                        's' => e.meta.size.to_string(),
                        'd' => e.depth.to_string(),
                        'm' => format!("{:o}", e.meta.mode & 0o7777),
                        'M' => super::super::files::common::mode_string(e.meta),
                        'y' => type_char(e.meta.kind).to_string(),
                        'u' | 'g' => "sandbox".into(),
                        'U' | 'G' => "1000".into(),
                        'i' => e.meta.ino.to_string(),
                        'n' => e.meta.nlink.to_string(),
                        // GNU counts allocated 4 KiB blocks, in KiB.
                        'k' => (e.meta.size.div_ceil(4096) * 4).to_string(),
                        'l' => {
                            if e.meta.kind == FileKind::Symlink {
                                let abs = self.ctx.path(e.path);
                                self.ctx.fs.read_link(&abs).unwrap_or_default()
                            } else {
                                String::new()
                            }
                        }
                        // Access, change and modification time: the tree
                        // keeps no change time (the modification time
                        // stands for it).
                        't' | 'a' | 'c' | 'T' | 'A' | 'C' => {
                            let t = if matches!(d, 'a' | 'A') {
                                self.ctx
                                    .fs
                                    .atime(&self.ctx.path(e.path))
                                    .unwrap_or(e.meta.mtime)
                            } else {
                                e.meta.mtime
                            };
                            if matches!(d, 't' | 'a' | 'c') {
                                time_part(t, 'c', true, &self.zone)
                            } else {
                                match it.next() {
                                    Some(k) => time_part(t, k, false, &self.zone),
                                    None => String::new(),
                                }
                            }
                        }
                        other => format!("%{other}"),
                    };
                    out.push_str(&pad(&spec, &val));
                }
                c => out.push(c),
            }
        }
        out
    }
}

/// Applies a printf width spec (`-10`, `5`) to a value.
fn pad(spec: &str, val: &str) -> String {
    let (left, w) = match spec.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, spec),
    };
    let w: u64 = w
        .split('.')
        .next()
        .map(|x| x.parse().unwrap_or(if x.is_empty() { 0 } else { u64::MAX }))
        .unwrap_or(0);
    // GNU find leaves out a field wider than an `int`; one past printf's
    // 64 MiB is left out too (`format!` itself panics past 65,535).
    if w > 1 << 26 {
        return String::new();
    }
    let fill = " ".repeat((w as usize).saturating_sub(val.chars().count()));
    if left {
        format!("{val}{fill}")
    } else {
        format!("{fill}{val}")
    }
}

/// `%T<k>` (and `%A<k>`, `%C<k>`) of `-printf`: the time as GNU find
/// prints it, in local time. `k` is a `strftime` letter, `@` (seconds since the
/// epoch) or `+` (date+time); `%t` is `%Tc` with the seconds' fraction
/// (`fraction`), as GNU's `ctime`-style field.
fn time_part(
    t: crate::clock::Timestamp,
    k: char,
    fraction: bool,
    zone: &crate::time::Zone,
) -> String {
    let tm = zone.local(t.secs, 0);
    // GNU find prints the ten digits of its timespec fraction.
    let frac = format!("{:09}0", t.nanos);
    match k {
        '@' => format!("{}.{frac}", t.secs),
        '+' => format!(
            "{}.{frac}",
            crate::time::strftime("%4Y-%m-%d+%H:%M:%S", &tm)
        ),
        'c' if fraction => {
            let date = crate::time::strftime("%a %b %e %H:%M:%S", &tm);
            format!("{date}.{frac} {}", crate::time::strftime("%Y", &tm))
        }
        'c' => crate::time::strftime("%a %b %e %H:%M:%S %Y", &tm),
        // Years with at least four digits, as find prints them.
        'Y' => crate::time::strftime("%4Y", &tm),
        'F' => crate::time::strftime("%4Y-%m-%d", &tm),
        'S' => format!("{}.{frac}", crate::time::strftime("%S", &tm)),
        'T' | 'X' => format!("{}.{frac}", crate::time::strftime("%T", &tm)),
        // Any other letter is strftime's (which keeps one it lacks, `%q`).
        k => crate::time::strftime(&format!("%{k}"), &tm),
    }
}

fn type_char(k: FileKind) -> char {
    match k {
        FileKind::File => 'f',
        FileKind::Dir => 'd',
        FileKind::Symlink => 'l',
        FileKind::CharDevice => 'c',
        FileKind::Fifo => 'p',
    }
}

fn glob(pat: &str, text: &str, nocase: bool) -> bool {
    if nocase {
        let p = pat.to_lowercase();
        let t = text.to_lowercase();
        super::super::text::common::fnmatch(p.as_bytes(), t.as_bytes())
    } else {
        super::super::text::common::fnmatch(pat.as_bytes(), text.as_bytes())
    }
}

/// The last component of a displayed path (`a/b/` → `b`, `/` → `/`).
fn base_name(p: &str) -> &str {
    let t = p.trim_end_matches('/');
    if t.is_empty() {
        return if p.is_empty() { "" } else { "/" };
    }
    t.rsplit('/').next().unwrap_or(t)
}

fn join(dir: &str, name: &str) -> String {
    if dir.ends_with('/') {
        format!("{dir}{name}")
    } else {
        format!("{dir}/{name}")
    }
}

/// `-mtime N` (`secs_per` a day) / `-mmin N` (a minute) for a file `age`
/// seconds old.
fn mtime_matches(age: i64, cmp: Cmp, n: i64, secs_per: i64) -> bool {
    let v = if secs_per == 60 {
        // -mmin rounds up partial minutes like GNU.
        (age + 59).div_euclid(60)
    } else {
        age.div_euclid(secs_per)
    };
    if secs_per == 60 {
        match cmp {
            Cmp::Eq => v == n,
            Cmp::Gt => age > n * 60,
            Cmp::Lt => age < n * 60,
        }
    } else {
        cmp.test(v, n)
    }
}
