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
    "dataclasses",
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
        containers: std::collections::HashSet::new(),
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
    /// Where expressions start that are the value of an attribute or
    /// subscript.
    containers: std::collections::HashSet<usize>,
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

    /// Expressions the interpreter lacks, rewritten to prelude helpers
    /// (see [`Finder::expr`]).
    fn visit_expr(&mut self, expr: &'a Expr) {
        self.expr(expr);
        walk_expr(self, expr);
    }
}

/// Names of methods of the built-in types (`str`, `dict`, `list`, ...):
/// passed as a value (`key=str.lower`, `key=d.get`, `map(str.strip, xs)`)
/// they become a function of the prelude, since the interpreter cannot
/// load a built-in method without calling it.
const BUILTIN_METHODS: &[&str] = &[
    "get",
    "lower",
    "upper",
    "strip",
    "lstrip",
    "rstrip",
    "title",
    "capitalize",
    "casefold",
    "split",
    "rsplit",
    "join",
    "startswith",
    "endswith",
    "isdigit",
    "isalpha",
    "isalnum",
    "isspace",
    "isupper",
    "islower",
    "isnumeric",
    "isdecimal",
    "isidentifier",
    "replace",
    "format",
    "count",
    "index",
    "find",
    "rfind",
    "items",
    "keys",
    "values",
    "append",
    "add",
    "extend",
    "pop",
    "update",
    "setdefault",
    "encode",
    "decode",
    "zfill",
    "swapcase",
    "splitlines",
    "partition",
    "rpartition",
    "center",
    "ljust",
    "rjust",
    "removeprefix",
    "removesuffix",
    "expandtabs",
    "maketrans",
    "translate",
    "discard",
    "remove",
    "insert",
    "copy",
    "clear",
    "union",
    "intersection",
    "difference",
    "issubset",
    "issuperset",
    "hex",
    "bit_length",
    "is_integer",
    "fromkeys",
];

/// The built-in types whose unbound methods (`str.lower`) are rewritten.
const BUILTIN_TYPES: &[&str] = &[
    "str",
    "dict",
    "list",
    "set",
    "frozenset",
    "tuple",
    "int",
    "float",
    "bytes",
];

/// Methods the interpreter's own types lack, called through the prelude's
/// `_sk_call(obj, name)`: the object's own attribute when it has one (a
/// user class, a module), else the prelude's version of the method.
const SHIMMED_METHODS: &[&str] = &["move_to_end", "glob", "rglob", "from_iterable", "translate"];

impl Finder<'_> {
    fn insert(&mut self, at: usize, text: String) {
        self.edits.push((at, at, text));
    }

    fn replace(&mut self, from: usize, to: usize, text: String) {
        self.edits.push((from, to, text));
    }

    /// `left OP right` becomes `helper(left , right)`: text inserted
    /// around the expression and the operator replaced by a comma, so
    /// rewrites inside the operands still apply.
    fn wrap_binop(&mut self, helper: &str, expr: &Expr, left: &Expr, right: &Expr, op: char) {
        let (from, to) = (
            left.range().end().to_usize(),
            right.range().start().to_usize(),
        );
        let Some(op_at) = self.source.get(from..to).and_then(|t| t.find(op)) else {
            return;
        };
        self.insert(expr.range().start().to_usize(), format!("{helper}("));
        self.replace(from + op_at, from + op_at + 1, ",".to_string());
        self.insert(expr.range().end().to_usize(), ")".to_string());
    }

    /// Where the `.` of `obj.name` is.
    fn dot(&self, attr: &ruff_python_ast::ExprAttribute) -> Option<usize> {
        self.source
            .get(..attr.attr.range().start().to_usize())
            .and_then(|t| t.rfind('.'))
    }

    /// `obj.name` becomes `_sk_attr(obj, "name", lambda ...)`: the attribute
    /// itself when the interpreter has it, else a function calling it.
    fn bind_method(&mut self, attr: &ruff_python_ast::ExprAttribute) {
        let Some(dot) = self.dot(attr) else { return };
        let name = attr.attr.as_str();
        self.insert(attr.range().start().to_usize(), "_sk_attr(".to_string());
        // Positional arguments only: monty 0.0.23 miscounts an empty
        // `**kwargs` passed on to a built-in method.
        self.replace(
            dot,
            attr.range().end().to_usize(),
            format!(", {name:?}, lambda _sk_o, *_sk_a: _sk_o.{name}(*_sk_a))"),
        );
    }

    /// `obj.name(` becomes `helper(obj, "name")(` (with `quoted`) or
    /// `helper(obj, ` (without).
    fn call_through(
        &mut self,
        helper: &str,
        attr: &ruff_python_ast::ExprAttribute,
        upto: usize,
        tail: String,
    ) {
        let Some(dot) = self.dot(attr) else { return };
        self.insert(attr.range().start().to_usize(), format!("{helper}("));
        self.replace(dot, upto, tail);
    }

    fn expr(&mut self, expr: &Expr) {
        match expr {
            // `"fmt" % args` and `fmt % (a, b)` (printf-style formatting,
            // which the interpreter lacks) become `_sk_pct(fmt, args)`; a
            // tuple or dict on the right is never arithmetic.
            Expr::BinOp(b)
                if b.op == Operator::Mod
                    && (matches!(*b.left, Expr::StringLiteral(_) | Expr::FString(_))
                        || matches!(*b.right, Expr::Tuple(_) | Expr::Dict(_))) =>
            {
                self.wrap_binop("_sk_pct", expr, &b.left, &b.right, '%');
            }
            // `{...} | other`: dict union.
            Expr::BinOp(b)
                if b.op == Operator::BitOr
                    && (matches!(*b.left, Expr::Dict(_) | Expr::DictComp(_))
                        || matches!(*b.right, Expr::Dict(_) | Expr::DictComp(_))) =>
            {
                self.wrap_binop("_sk_dict_or", expr, &b.left, &b.right, '|');
            }
            // `f.__name__` (monty's functions carry no `__name__`) and
            // `obj.__dict__` read as a whole (of a dataclass instance).
            Expr::Attribute(a) if a.ctx.is_load() && a.attr.as_str() == "__name__" => {
                self.call_through("_sk_name", a, a.range().end().to_usize(), ")".to_string());
            }
            Expr::Attribute(a)
                if a.ctx.is_load()
                    && a.attr.as_str() == "__dict__"
                    && !self.containers.contains(&a.range().start().to_usize()) =>
            {
                self.call_through("_sk_vars", a, a.range().end().to_usize(), ")".to_string());
            }
            Expr::Call(call) => {
                match &*call.func {
                    // `xs.sort(key=cmp_to_key(f))`
                    Expr::Attribute(a)
                        if a.attr.as_str() == "sort"
                            && call.arguments.keywords.iter().any(|k| {
                                matches!(&k.value, Expr::Call(c) if matches!(&*c.func,
                                    Expr::Name(n) if n.id.as_str() == "cmp_to_key")
                                    || matches!(&*c.func,
                                    Expr::Attribute(f) if f.attr.as_str() == "cmp_to_key"))
                            }) =>
                    {
                        let tail = ", \"sort\")".to_string();
                        self.call_through("_sk_call", a, a.range().end().to_usize(), tail);
                    }
                    // `bytes([1, 2])`, `SystemExit(2)`: constructors the
                    // interpreter takes only a string or nothing for.
                    Expr::Name(n) if n.id.as_str() == "bytes" || n.id.as_str() == "SystemExit" => {
                        let r = n.range();
                        self.replace(
                            r.start().to_usize(),
                            r.end().to_usize(),
                            format!("_sk_{}", n.id.as_str()),
                        );
                    }
                    // `m.groups(default="-")`
                    Expr::Attribute(a)
                        if a.attr.as_str() == "groups"
                            && call.arguments.keywords.iter().any(|k| {
                                k.arg.as_ref().is_some_and(|n| n.as_str() == "default")
                            }) =>
                    {
                        let upto = call.arguments.range().start().to_usize() + 1;
                        self.call_through("_sk_match_groups", a, upto, ", ".to_string());
                    }
                    Expr::Attribute(a) if SHIMMED_METHODS.contains(&a.attr.as_str()) => {
                        let tail = format!(", {:?})", a.attr.as_str());
                        self.call_through("_sk_call", a, a.range().end().to_usize(), tail);
                    }
                    // `str.format("{}", 1)`: an unbound method of a built-in type.
                    Expr::Attribute(a)
                        if matches!(&*a.value, Expr::Name(n) if BUILTIN_TYPES.contains(&n.id.as_str()))
                            && BUILTIN_METHODS.contains(&a.attr.as_str()) =>
                    {
                        self.bind_method(a);
                    }
                    _ => {}
                }
                // A built-in method passed as a value: `key=str.lower`.
                let args = call.arguments.args.iter();
                let keywords = call.arguments.keywords.iter().map(|k| &k.value);
                for arg in args.chain(keywords) {
                    if let Expr::Attribute(a) = arg
                        && BUILTIN_METHODS.contains(&a.attr.as_str())
                    {
                        self.bind_method(a);
                    }
                }
            }
            _ => {}
        }
        // The value of `x.attr` / `x[k]`: a `__dict__` there is used in
        // place (`self.__dict__.update(...)`), not read as a copy.
        // (Recorded after the rewrites above: parents are visited first.)
        match expr {
            Expr::Attribute(a) => {
                self.containers.insert(a.value.range().start().to_usize());
            }
            Expr::Subscript(s) => {
                self.containers.insert(s.value.range().start().to_usize());
            }
            _ => {}
        }
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
        assert_eq!(rw("x = '%d' % (1 + 2)\n"), "x = _sk_pct('%d' , (1 + 2))\n");
        assert_eq!(rw("x = fmt % (a, b)\n"), "x = _sk_pct(fmt , (a, b))\n");
        assert_eq!(rw("x = (n) % 3\n"), "x = (n) % 3\n");
        assert_eq!(rw("x = y % 2\n"), "x = y % 2\n");
        assert_eq!(rw("def (:\n"), "def (:\n");
    }

    #[test]
    fn rewrites_what_the_interpreter_lacks() {
        let bound = |o: &str, n: &str| {
            format!("_sk_attr({o}, {n:?}, lambda _sk_o, *_sk_a: _sk_o.{n}(*_sk_a))")
        };
        assert_eq!(
            rw("sorted(xs, key=str.lower)\n"),
            format!("sorted(xs, key={})\n", bound("str", "lower"))
        );
        assert_eq!(
            rw("max(d, key=(d).get)\n"),
            format!("max(d, key={})\n", bound("(d)", "get"))
        );
        // Only a method passed as a value: a call or another attribute stays.
        assert_eq!(rw("f(s.lower(), o.size)\n"), "f(s.lower(), o.size)\n");
        assert_eq!(
            rw("str.format('{}', 1)\n"),
            format!("{}('{{}}', 1)\n", bound("str", "format"))
        );
        assert_eq!(rw("b = bytes([1, 2])\n"), "b = _sk_bytes([1, 2])\n");
        assert_eq!(rw("raise SystemExit(2)\n"), "raise _sk_SystemExit(2)\n");
        assert_eq!(rw("x = {'a': 1} | d\n"), "x = _sk_dict_or({'a': 1} , d)\n");
        assert_eq!(rw("x = a | b\n"), "x = a | b\n");
        assert_eq!(
            rw("m.groups(default='-')\n"),
            "_sk_match_groups(m, default='-')\n"
        );
        assert_eq!(
            rw("itertools.chain.from_iterable(x)\n"),
            "_sk_call(itertools.chain, \"from_iterable\")(x)\n"
        );
        // Nested rewrites both apply.
        assert_eq!(
            rw("print('%s' % bytes(x))\n"),
            "print(_sk_pct('%s' , _sk_bytes(x)))\n"
        );
    }
}
