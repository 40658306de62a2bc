//! Import rewriting: the modules the interpreter lacks or has only in part
//! (`sys`, `os`, `csv`, `statistics`, ...) are served by Python-level shims
//! in the prelude (`prelude.py`), bound to names `_sk_<module>`. An `import`
//! of such a module is rewritten, in place and on the same line so that
//! tracebacks keep their line numbers, into an assignment from its shim:
//! `import os.path as p` becomes `p = _sk_os.path`. Imports of modules the
//! sandbox refuses (`subprocess`, `socket`, ...) become a call that ends the
//! run with a clear "not available" message.
//!
//! The statements are found with ruff's parser (the one the interpreter
//! itself uses), so an `import` inside a string is never touched.

use ruff_python_ast::visitor::{Visitor, walk_expr, walk_stmt};
use ruff_python_ast::{Expr, Operator, Stmt, StmtImport, StmtImportFrom};
use ruff_text_size::Ranged;

/// Modules the prelude serves (the top-level name; submodules such as
/// `os.path` are attributes of the shim).
pub const SHIMMED: &[&str] = &[
    "sys",
    "os",
    "csv",
    "statistics",
    "string",
    "itertools",
    "functools",
    "collections",
    "time",
    "textwrap",
    "copy",
    "shutil",
    "random",
    "operator",
    "io",
    "glob",
    "fnmatch",
    "argparse",
    "heapq",
    "bisect",
    "pprint",
    "decimal",
    "fractions",
    "tempfile",
    "warnings",
    "traceback",
    "contextlib",
    "enum",
    "abc",
    "types",
    "hashlib",
    "uuid",
    "platform",
    "locale",
    "shlex",
    "html",
    "urllib",
    "struct",
    "array",
    "math_extra",
];

/// Modules that need the host (processes, network, packages): importing one
/// ends the run with the sandbox's message instead of `ModuleNotFoundError`.
pub const REFUSED: &[&str] = &[
    "subprocess",
    "socket",
    "ssl",
    "http",
    "requests",
    "urllib3",
    "multiprocessing",
    "threading",
    "asyncio.subprocess",
    "ctypes",
    "pip",
    "signal",
    "select",
    "selectors",
    "pty",
    "resource",
    "sqlite3",
];

/// Rewrites the imports of `source` (see the module docs). Source that does
/// not parse is returned unchanged, so the interpreter reports the syntax
/// error itself.
///
/// ```
/// let out = sandkeep_python::imports::rewrite("import sys, json\nfrom os import path as p\n", &|m| {
///     sandkeep_python::imports::SHIMMED.contains(&m)
/// });
/// assert_eq!(out, "sys = _sk_sys; import json\np = _sk_from(_sk_os, \"os\", \"path\")\n");
/// ```
pub fn rewrite(source: &str, shimmed: &dyn Fn(&str) -> bool) -> String {
    let Ok(parsed) = ruff_python_parser::parse_module(source) else {
        return source.to_string();
    };
    let mut finder = Finder {
        shimmed,
        source,
        edits: Vec::new(),
    };
    for stmt in &parsed.syntax().body {
        finder.visit_stmt(stmt);
    }
    let mut edits = finder.edits;
    edits.sort_by_key(|e| e.0);
    let mut out = String::with_capacity(source.len() + 64);
    let mut at = 0;
    for (start, end, text) in edits {
        if start < at || end > source.len() {
            continue;
        }
        out.push_str(&source[at..start]);
        out.push_str(&text);
        at = end;
    }
    out.push_str(&source[at..]);
    out
}

struct Finder<'s> {
    shimmed: &'s dyn Fn(&str) -> bool,
    source: &'s str,
    /// (start, end, replacement) byte ranges of statements to replace.
    edits: Vec<(usize, usize, String)>,
}

fn top(module: &str) -> &str {
    module.split('.').next().unwrap_or(module)
}

fn refused(module: &str) -> bool {
    REFUSED.contains(&module) || REFUSED.contains(&top(module))
}

fn shim_path(module: &str) -> String {
    let mut parts = module.split('.');
    let mut s = format!("_sk_{}", parts.next().unwrap_or(module));
    for p in parts {
        s.push('.');
        s.push_str(p);
    }
    s
}

impl Finder<'_> {
    fn import(&mut self, stmt: &StmtImport) {
        let mut parts = Vec::new();
        let mut changed = false;
        for alias in &stmt.names {
            let module = alias.name.as_str();
            let asname = alias.asname.as_ref().map(|a| a.as_str());
            if refused(module) {
                parts.push(format!("_sk_refuse({module:?})"));
                changed = true;
            } else if (self.shimmed)(top(module)) {
                changed = true;
                match asname {
                    Some(a) => parts.push(format!("{a} = {}", shim_path(module))),
                    None => parts.push(format!("{0} = _sk_{0}", top(module))),
                }
            } else {
                match asname {
                    Some(a) => parts.push(format!("import {module} as {a}")),
                    None => parts.push(format!("import {module}")),
                }
            }
        }
        if changed {
            self.edits.push((
                stmt.range().start().to_usize(),
                stmt.range().end().to_usize(),
                parts.join("; "),
            ));
        }
    }

    fn import_from(&mut self, stmt: &StmtImportFrom) {
        let Some(module) = stmt.module.as_ref().map(|m| m.as_str()) else {
            return;
        };
        if stmt.level > 0 {
            return;
        }
        let text = if refused(module) {
            format!("_sk_refuse({module:?})")
        } else if (self.shimmed)(top(module)) {
            let base = shim_path(module);
            let mut parts = Vec::new();
            for alias in &stmt.names {
                let name = alias.name.as_str();
                if name == "*" {
                    parts.push(format!("_sk_star({base}, globals())"));
                    continue;
                }
                let bound = alias.asname.as_ref().map_or(name, |a| a.as_str());
                parts.push(format!("{bound} = _sk_from({base}, {module:?}, {name:?})"));
            }
            parts.join("; ")
        } else {
            return;
        };
        self.edits.push((
            stmt.range().start().to_usize(),
            stmt.range().end().to_usize(),
            text,
        ));
    }
}

impl<'a> Visitor<'a> for Finder<'_> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::Import(s) => self.import(s),
            Stmt::ImportFrom(s) => self.import_from(s),
            _ => walk_stmt(self, stmt),
        }
    }

    /// `"fmt" % args` (printf-style formatting, which the interpreter
    /// lacks) becomes `_sk_pct("fmt", args)`, served by the prelude.
    fn visit_expr(&mut self, expr: &'a Expr) {
        if let Expr::BinOp(b) = expr
            && b.op == Operator::Mod
            && matches!(*b.left, Expr::StringLiteral(_))
        {
            let (l, r) = (b.left.range(), b.right.range());
            let left = &self.source[l.start().to_usize()..l.end().to_usize()];
            let right = &self.source[r.start().to_usize()..r.end().to_usize()];
            self.edits.push((
                expr.range().start().to_usize(),
                expr.range().end().to_usize(),
                format!("_sk_pct({left}, ({right}))"),
            ));
            return;
        }
        walk_expr(self, expr);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rw(s: &str) -> String {
        rewrite(s, &|m| SHIMMED.contains(&m))
    }

    #[test]
    fn rewrites_in_place() {
        assert_eq!(rw("import json\n"), "import json\n");
        assert_eq!(rw("import os.path\n"), "os = _sk_os\n");
        assert_eq!(rw("import os.path as osp\n"), "osp = _sk_os.path\n");
        assert_eq!(
            rw("def f():\n    from sys import argv, exit as ex\n"),
            "def f():\n    argv = _sk_from(_sk_sys, \"sys\", \"argv\"); ex = _sk_from(_sk_sys, \"sys\", \"exit\")\n"
        );
        assert_eq!(rw("import subprocess\n"), "_sk_refuse(\"subprocess\")\n");
        assert_eq!(rw("s = 'import sys'\n"), "s = 'import sys'\n");
        assert_eq!(rw("x = '%d' % (1 + 2)\n"), "x = _sk_pct('%d', (1 + 2))\n");
        assert_eq!(rw("x = y % 2\n"), "x = y % 2\n");
        assert_eq!(rw("def (:\n"), "def (:\n");
    }
}
