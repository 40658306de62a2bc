//! `tree`: list directories as an indented tree with tree 2.x's box drawing
//! (`├── `, `└── `, `│  `) and its closing `N directories, M files` line.
//! Like tree, the vertical continuation is `│` followed by two no-break
//! spaces and a space. Entries sort bytewise (the C locale); hidden names show with `-a`.
//! The count includes each root directory; a symlink counts as a directory
//! when it points at one (it is shown, never followed).

use crate::commands::CommandCtx;
use crate::commands::files::common::join;
use crate::commands::text::common::{self, Arg, OptSpec, ParseMode, fnmatch, opt};
use crate::fs::FileKind;

pub(crate) const USAGE: &str = "\
usage: tree [-adf] [-L level] [-I pattern] [--noreport] [--] [directory ...]
  -a            All files are listed.
  -d            List directories only.
  -f            Print the full path prefix for each file.
  -L level      Descend only level directories deep.
  -I pattern    Do not list files that match the given pattern.
  --noreport    Turn off file/directory count at end of tree listing.
  --help        Print usage and this help message and exit.
";

const SPEC: &[OptSpec] = &[
    opt("a", Some('a'), None, Arg::None),
    opt("d", Some('d'), None, Arg::None),
    opt("f", Some('f'), None, Arg::None),
    opt("L", Some('L'), None, Arg::Required),
    opt("I", Some('I'), None, Arg::Required),
    opt("noreport", None, Some("noreport"), Arg::None),
];

struct Tree<'c, 'a> {
    ctx: &'c mut CommandCtx<'a>,
    all: bool,
    dirs_only: bool,
    full: bool,
    max: Option<usize>,
    ignore: Vec<String>,
    dirs: u64,
    files: u64,
    out: Vec<u8>,
}

impl Tree<'_, '_> {
    fn ignored(&self, name: &str) -> bool {
        self.ignore
            .iter()
            .any(|p| fnmatch(p.as_bytes(), name.as_bytes()))
    }

    /// Lists the directory at `path` (shown as `shown`), at `depth` (1 for
    /// the root's children), each line after `indent`.
    fn list(&mut self, shown: &str, path: &str, indent: &str, depth: usize) -> bool {
        if self.ctx.control.check().is_err() {
            return false;
        }
        let Ok(mut entries) = self.ctx.fs.read_dir_metadata(path) else {
            return true;
        };
        entries.retain(|(n, m)| {
            (self.all || !n.starts_with('.'))
                && !self.ignored(n)
                && (!self.dirs_only || self.is_dir(path, n, m.kind))
        });
        entries.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        let n = entries.len();
        for (i, (name, meta)) in entries.into_iter().enumerate() {
            let last = i + 1 == n;
            let child_path = join(path, &name);
            let child_shown = join(shown, &name);
            let label = if self.full { &child_shown } else { &name };
            let mut line = format!("{indent}{}{label}", if last { "└── " } else { "├── " });
            let is_dir = self.is_dir(path, &name, meta.kind);
            if meta.kind == FileKind::Symlink {
                let target = self.ctx.fs.read_link(&child_path).unwrap_or_default();
                line.push_str(&format!(" -> {target}"));
            }
            line.push('\n');
            self.out.extend_from_slice(line.as_bytes());
            if is_dir {
                self.dirs += 1;
                if meta.kind == FileKind::Dir && self.max.is_none_or(|m| depth < m) {
                    let next = format!("{indent}{}", if last { "    " } else { "│\u{a0}\u{a0} " });
                    if !self.list(&child_shown, &child_path, &next, depth + 1) {
                        return false;
                    }
                }
            } else {
                self.files += 1;
            }
        }
        true
    }

    fn is_dir(&self, dir: &str, name: &str, kind: FileKind) -> bool {
        match kind {
            FileKind::Dir => true,
            FileKind::Symlink => self
                .ctx
                .fs
                .metadata(&join(dir, name))
                .is_ok_and(|m| m.kind == FileKind::Dir),
            _ => false,
        }
    }
}

/// `tree`
pub fn tree(ctx: &mut CommandCtx<'_>) -> i32 {
    let p = match common::start(ctx, SPEC, ParseMode::default(), 1) {
        Ok(p) => p,
        Err(s) => return s,
    };
    let max = match p.last("L") {
        Some(l) => match l.parse::<usize>() {
            Ok(n) if n > 0 => Some(n),
            _ => {
                let _ = writeln!(ctx.stderr, "tree: Invalid level, must be greater than 0.");
                return 1;
            }
        },
        None => None,
    };
    let ignore = p
        .opts
        .iter()
        .filter(|(id, _)| *id == "I")
        .flat_map(|(_, v)| v.as_deref().unwrap_or("").split('|').map(str::to_string))
        .collect();
    let roots = if p.operands.is_empty() {
        vec![".".to_string()]
    } else {
        p.operands.clone()
    };
    let mut t = Tree {
        ctx,
        all: p.has("a"),
        dirs_only: p.has("d"),
        full: p.has("f"),
        max,
        ignore,
        dirs: 0,
        files: 0,
        out: Vec::new(),
    };
    let mut status = 0;
    for root in &roots {
        let path = t.ctx.path(root);
        match t.ctx.fs.metadata(&path) {
            Ok(m) if m.kind == FileKind::Dir => {
                t.out.extend_from_slice(format!("{root}\n").as_bytes());
                t.dirs += 1;
                let shown = root.trim_end_matches('/');
                let shown = if shown.is_empty() { "/" } else { shown };
                if !t.list(shown, &path, "", 1) {
                    status = 1;
                    break;
                }
            }
            Ok(_) => {
                t.out
                    .extend_from_slice(format!("{root}  [error opening dir]\n").as_bytes());
                t.files += 1;
            }
            Err(_) => {
                t.out
                    .extend_from_slice(format!("{root}  [error opening dir]\n").as_bytes());
                status = 2;
            }
        }
    }
    if !p.has("noreport") {
        let plural =
            |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        let mut report = format!("\n{}", plural(t.dirs, "directory", "directories"));
        if !t.dirs_only {
            report.push_str(&format!(", {}", plural(t.files, "file", "files")));
        }
        report.push('\n');
        t.out.extend_from_slice(report.as_bytes());
    }
    if t.ctx.stdout.write_all(&t.out).is_err() {
        return 1;
    }
    status
}
