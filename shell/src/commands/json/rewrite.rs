//! Source rewrite of jq's assignment operators.
//!
//! jaq compiles `=`, `|=`, `+=`, ... to its own update machinery, which
//! fails where jq creates structure (`{} | .a.b = 1`, `[] | .[3] = 1`).
//! jaq offers no hook to redefine these operators, so the filter is parsed
//! with jaq's own parser and printed back with every assignment replaced by
//! a call of jq's definitions (builtin.jq's `_assign`/`_modify`):
//!
//! | jq          | becomes                                          |
//! |-------------|--------------------------------------------------|
//! | `l = r`     | `__sk_assign(l; r)`                              |
//! | `l \|= r`   | `__sk_modify(l; r)`                              |
//! | `l op= r`   | `r as $__sk_v \| __sk_modify(l; . op $__sk_v)`   |
//! | `l //= r`   | `r as $__sk_v \| __sk_modify(l; . // $__sk_v)`   |
//!
//! The same pass fixes other places where jaq's syntax means something else
//! than jq's: string interpolation prints numbers as jq does (`"\(1.0)"` is
//! `"1"`), slices are indexes by `{"start", "end"}` objects (so `null[1:]`
//! is `null`), `/` and `%` reject a zero divisor, `catch` sees errors in
//! jq's words, and `$__loc__` exists; a recursive definition starts with
//! a cancellation point (`super::ticks`).
//!
//! Printing from the syntax tree (every subterm parenthesised) keeps the
//! rewrite exact: no operand boundary is guessed from the text. Filters
//! that need none of this, or that jaq can't parse, are left as they are.

use std::fmt::Write;
use std::ops::{Deref, DerefMut};

use jaq_core::load::lex::StrPart;
use jaq_core::load::parse::{BinaryOp, Def, Pattern, Term};
use jaq_core::ops::Math;
use jaq_core::path::{Opt, Part, Path};

/// `code` rewritten for jq's meaning, or `None` when nothing needs it.
pub(super) fn rewrite(code: &str) -> Option<String> {
    let term = jaq_core::load::parse(code, |p| p.term())?;
    if !needs_rewrite(&term) {
        return None;
    }
    let mut out = Out {
        s: String::with_capacity(code.len() * 2),
        code,
        fresh: 0,
    };
    print(&mut out, &term);
    Some(out.s)
}

/// Whether `t` holds something jaq reads differently from jq.
fn needs_rewrite(t: &Term<&str>) -> bool {
    let mut found = false;
    visit(t, &mut |t| {
        found |= match t {
            Term::BinOp(l, op, r) => match op {
                BinaryOp::Pipe(Some(Pattern::Arr(_))) => true,
                BinaryOp::Assign
                | BinaryOp::Update
                | BinaryOp::UpdateMath(_)
                | BinaryOp::UpdateAlt
                | BinaryOp::Math(Math::Mul | Math::Div | Math::Rem) => true,
                BinaryOp::Math(_) | BinaryOp::Cmp(_) => may_yield_many(l) && may_yield_many(r),
                _ => false,
            },
            Term::Str(None, parts) => parts.iter().any(|p| matches!(p, StrPart::Term(_))),
            Term::Var(v) => *v == "$__loc__",
            Term::TryCatch(_, Some(_)) => true,
            // A recursive definition gets its cancellation point.
            Term::Def(defs, _) => defs.iter().any(super::ticks::recursive),
            Term::Path(_, path) => path.0.iter().any(|(p, _)| checked(p)),
            _ => false,
        };
    });
    found
}

/// Whether `t` may yield more than one output: when both operands of an
/// arithmetic or comparison operator may, the order of the results differs
/// between jaq (left operand outside) and jq (right operand outside).
fn may_yield_many(t: &Term<&str>) -> bool {
    match t {
        Term::Id | Term::Num(_) | Term::Var(_) | Term::Arr(_) | Term::Break(_) => false,
        Term::Str(_, parts) => parts
            .iter()
            .any(|p| matches!(p, StrPart::Term(t) if may_yield_many(t))),
        Term::Neg(t) => may_yield_many(t),
        Term::Obj(entries) => entries
            .iter()
            .any(|(k, v)| may_yield_many(k) || v.as_ref().is_some_and(may_yield_many)),
        Term::Path(t, path) => {
            may_yield_many(t)
                || path.0.iter().any(|(p, _)| match p {
                    Part::Index(i) => may_yield_many(i),
                    Part::Range(None, None) => true,
                    Part::Range(a, b) => a.iter().chain(b.iter()).any(may_yield_many),
                })
        }
        Term::BinOp(l, op, r) => match op {
            BinaryOp::Comma => true,
            BinaryOp::Pipe(_) => may_yield_many(l) || may_yield_many(r),
            _ => may_yield_many(l) || may_yield_many(r),
        },
        Term::IfThenElse(branches, else_) => {
            branches
                .iter()
                .any(|(c, t)| may_yield_many(c) || may_yield_many(t))
                || else_.as_deref().is_some_and(may_yield_many)
        }
        _ => true,
    }
}

/// The text being printed, and the source it comes from (for `$__loc__`).
struct Out<'c> {
    s: String,
    code: &'c str,
    /// Variables named so far (`$__sk_oN`), to keep nested names apart.
    fresh: usize,
}

impl Deref for Out<'_> {
    type Target = String;
    fn deref(&self) -> &String {
        &self.s
    }
}

impl DerefMut for Out<'_> {
    fn deref_mut(&mut self) -> &mut String {
        &mut self.s
    }
}

impl Out<'_> {
    /// The 1-based line of `slice`, a part of the source.
    fn line_of(&self, slice: &str) -> usize {
        let offset = (slice.as_ptr() as usize).saturating_sub(self.code.as_ptr() as usize);
        let before = self.code.get(..offset.min(self.code.len())).unwrap_or("");
        before.matches('\n').count() + 1
    }
}

/// Calls `f` on `t` and every term inside it.
fn visit(t: &Term<&str>, f: &mut dyn FnMut(&Term<&str>)) {
    f(t);
    match t {
        Term::Id | Term::Recurse | Term::Num(_) | Term::Var(_) | Term::Break(_) => {}
        Term::Str(_, parts) => {
            for p in parts {
                if let StrPart::Term(t) = p {
                    visit(t, f);
                }
            }
        }
        Term::Arr(t) => {
            if let Some(t) = t {
                visit(t, f);
            }
        }
        Term::Obj(entries) => {
            for (k, v) in entries {
                visit(k, f);
                if let Some(v) = v {
                    visit(v, f);
                }
            }
        }
        Term::Neg(t) | Term::Label(_, t) => visit(t, f),
        Term::BinOp(l, op, r) => {
            visit(l, f);
            if let BinaryOp::Pipe(Some(p)) = op {
                visit_pattern(p, f);
            }
            visit(r, f);
        }
        Term::Fold(_, xs, p, args) => {
            visit(xs, f);
            visit_pattern(p, f);
            args.iter().for_each(|a| visit(a, f));
        }
        Term::TryCatch(t, c) => {
            visit(t, f);
            if let Some(c) = c {
                visit(c, f);
            }
        }
        Term::IfThenElse(branches, else_) => {
            for (c, t) in branches {
                visit(c, f);
                visit(t, f);
            }
            if let Some(e) = else_ {
                visit(e, f);
            }
        }
        Term::Def(defs, t) => {
            defs.iter().for_each(|d| visit(&d.body, f));
            visit(t, f);
        }
        Term::Call(_, args) => args.iter().for_each(|a| visit(a, f)),
        Term::Path(t, path) => {
            visit(t, f);
            for (part, _) in &path.0 {
                match part {
                    Part::Index(i) => visit(i, f),
                    Part::Range(a, b) => {
                        a.iter().chain(b.iter()).for_each(|t| visit(t, f));
                    }
                }
            }
        }
    }
}

fn visit_pattern(p: &Pattern<&str>, f: &mut dyn FnMut(&Term<&str>)) {
    match p {
        Pattern::Var(_) => {}
        Pattern::Arr(ps) => ps.iter().for_each(|p| visit_pattern(p, f)),
        Pattern::Obj(entries) => {
            for (k, p) in entries {
                visit(k, f);
                visit_pattern(p, f);
            }
        }
    }
}

/// Prints `t` parenthesised.
fn paren(out: &mut Out, t: &Term<&str>) {
    out.push('(');
    print(out, t);
    out.push(')');
}

/// Prints `t` as jq source, assignments rewritten.
fn print(out: &mut Out, t: &Term<&str>) {
    match t {
        Term::Id => out.push('.'),
        Term::Recurse => out.push_str(".."),
        Term::Num(n) => out.push_str(n),
        Term::Var(v) if *v == "$__loc__" => {
            let line = out.line_of(v);
            let _ = write!(out, "{{\"file\":\"<top-level>\",\"line\":{line}}}");
        }
        Term::Var(v) | Term::Break(v) => {
            if matches!(t, Term::Break(_)) {
                out.push_str("break ");
            }
            out.push_str(v);
        }
        Term::Str(fmt, parts) => print_str(out, *fmt, parts),
        Term::Arr(None) => out.push_str("[]"),
        Term::Arr(Some(t)) => {
            out.push('[');
            print(out, t);
            out.push(']');
        }
        Term::Obj(entries) => {
            out.push('{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                match v {
                    Some(v) => {
                        paren(out, k);
                        out.push_str(": ");
                        paren(out, v);
                    }
                    // `{a}`, `{"a"}`, `{$x}`: printed as the same shorthand.
                    None => print(out, k),
                }
            }
            out.push('}');
        }
        Term::Neg(t) => {
            out.push('-');
            paren(out, t);
        }
        Term::BinOp(l, op, r) => print_binop(out, l, op, r),
        Term::Label(x, t) => {
            let _ = write!(out, "label {x} | ");
            paren(out, t);
        }
        Term::Fold(kw, xs, p, args) => {
            let _ = write!(out, "{kw} ");
            paren(out, xs);
            out.push_str(" as ");
            print_pattern(out, p);
            print_args(out, args);
        }
        Term::TryCatch(t, c) => {
            out.push_str("try ");
            paren(out, t);
            // jaq words its errors its own way: `catch` sees jq's words.
            if let Some(c) = c {
                out.push_str(" catch (__sk_jqerr | ");
                paren(out, c);
                out.push(')');
            }
        }
        Term::IfThenElse(branches, else_) => {
            for (i, (c, t)) in branches.iter().enumerate() {
                out.push_str(if i == 0 { "if " } else { " elif " });
                paren(out, c);
                out.push_str(" then ");
                paren(out, t);
            }
            if let Some(e) = else_ {
                out.push_str(" else ");
                paren(out, e);
            }
            out.push_str(" end");
        }
        Term::Def(defs, t) => {
            for d in defs {
                print_def(out, d);
            }
            paren(out, t);
        }
        Term::Call(name, args) => {
            out.push_str(name);
            print_args(out, args);
        }
        Term::Path(t, path) => print_path_term(out, t, path),
    }
}

/// Whether jq and jaq may disagree on a path part: jaq indexes an object
/// by any key (null for a non-string one), jq fails; a string literal key
/// and `.[]` mean the same in both.
fn checked(part: &Part<Term<&str>>) -> bool {
    match part {
        Part::Index(k) => !matches!(k, Term::Str(..)),
        Part::Range(a, b) => a.is_some() || b.is_some(),
    }
}

/// Whether `t` yields the same whatever its input.
fn constant(t: &Term<&str>) -> bool {
    match t {
        Term::Num(_) | Term::Var(_) => true,
        Term::Neg(t) => constant(t),
        Term::Str(_, parts) => parts.iter().all(|p| !matches!(p, StrPart::Term(_))),
        _ => false,
    }
}

/// Prints `t` followed by `path`; each checked part `[k]` becomes a call of
/// the prelude's `__sk_idx(k)` on the value so far (`(..)?` when optional:
/// jq's `?` covers the whole term to its left). A key that depends on the
/// input is evaluated on the path's input, bound first as `$__sk_oN`.
fn print_path_term(out: &mut Out, t: &Term<&str>, path: &Path<Term<&str>>) {
    if !path.0.iter().any(|(p, _)| checked(p)) {
        if matches!(t, Term::Id) {
            out.push('.');
        } else {
            paren(out, t);
        }
        print_path(out, path);
        return;
    }
    let n = out.fresh;
    out.fresh += 1;
    let input = format!("$__sk_o{n}");
    // Prints a key, on the path's input unless it is constant.
    let key = |out: &mut Out, k: &Term<&str>| {
        if constant(k) {
            print(out, k);
        } else {
            let _ = write!(out, "{input} | ");
            paren(out, k);
        }
    };
    let mut cur = sub(out, |out| {
        if matches!(t, Term::Id) {
            out.push('.');
        } else {
            paren(out, t);
        }
    });
    for (part, opt) in &path.0 {
        if !checked(part) {
            cur.push_str(&sub(out, |out| {
                print_path(out, &Path(vec![(part.clone(), *opt)]))
            }));
            continue;
        }
        let k = sub(out, |out| match part {
            Part::Index(k) => key(out, k),
            Part::Range(a, b) => {
                out.push_str("{\"start\": (");
                match a {
                    Some(a) => key(out, a),
                    None => out.push_str("null"),
                }
                out.push_str("), \"end\": (");
                match b {
                    Some(b) => key(out, b),
                    None => out.push_str("null"),
                }
                out.push_str(")}");
            }
        });
        cur = format!("({cur} | __sk_idx({k}))");
        if let Opt::Optional = opt {
            cur = format!("(try {cur})");
        }
    }
    let bind = path.0.iter().any(|(p, _)| match p {
        Part::Index(k) => !constant(k),
        Part::Range(a, b) => a.iter().chain(b.iter()).any(|k| !constant(k)),
    });
    if bind {
        let _ = write!(out, "(. as {input} | {cur})");
    } else {
        out.push_str(&cur);
    }
}

/// What `f` prints, as a string of its own.
fn sub(out: &mut Out, f: impl FnOnce(&mut Out)) -> String {
    let mut o = Out {
        s: String::new(),
        code: out.code,
        fresh: out.fresh,
    };
    f(&mut o);
    out.fresh = o.fresh;
    o.s
}

fn print_def(out: &mut Out, d: &Def<&str>) {
    let _ = write!(out, "def {}", d.name);
    if !d.args.is_empty() {
        let _ = write!(out, "({})", d.args.join("; "));
    }
    out.push_str(": ");
    // A recursive definition checks the run first (see `super::ticks`).
    if super::ticks::recursive(d) {
        out.push_str(super::ticks::TICK);
        out.push_str(" | ");
        paren(out, &d.body);
    } else {
        print(out, &d.body);
    }
    out.push_str("; ");
}

fn print_args(out: &mut Out, args: &[Term<&str>]) {
    if args.is_empty() {
        return;
    }
    out.push('(');
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            out.push_str("; ");
        }
        print(out, a);
    }
    out.push(')');
}

fn print_path(out: &mut Out, path: &Path<Term<&str>>) {
    for (part, opt) in &path.0 {
        out.push('[');
        match part {
            Part::Index(i) => print(out, i),
            Part::Range(None, None) => {}
            // jq's own path key for a slice; jaq indexes `null` with it.
            Part::Range(a, b) => {
                out.push_str("{\"start\": ");
                print_or_null(out, a.as_ref());
                out.push_str(", \"end\": ");
                print_or_null(out, b.as_ref());
                out.push('}');
            }
        }
        out.push(']');
        if let Opt::Optional = opt {
            out.push('?');
        }
    }
}

fn print_or_null(out: &mut Out, t: Option<&Term<&str>>) {
    match t {
        Some(t) => paren(out, t),
        None => out.push_str("null"),
    }
}

fn print_pattern(out: &mut Out, p: &Pattern<&str>) {
    match p {
        Pattern::Var(v) => out.push_str(v),
        Pattern::Arr(ps) => {
            out.push('[');
            for (i, p) in ps.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                print_pattern(out, p);
            }
            out.push(']');
        }
        Pattern::Obj(entries) => {
            out.push('{');
            for (i, (k, p)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                paren(out, k);
                out.push_str(": ");
                print_pattern(out, p);
            }
            out.push('}');
        }
    }
}

fn print_str(out: &mut Out, fmt: Option<&str>, parts: &[StrPart<&str, Term<&str>>]) {
    let terms: Vec<&Term<&str>> = parts
        .iter()
        .filter_map(|p| match p {
            StrPart::Term(t) => Some(t),
            _ => None,
        })
        .collect();
    // jq builds "a\(x)b\(y)" from `+`, so the last part's outputs loop
    // outside: bind the parts last to first, then interpolate the variables.
    let bind = terms.iter().filter(|t| may_yield_many(t)).count() > 1;
    if bind {
        out.push('(');
        for (k, t) in terms.iter().enumerate().rev() {
            paren(out, t);
            let _ = write!(out, " as $__sk_i{k} | ");
        }
    }
    if let Some(fmt) = fmt {
        out.push_str(fmt);
        out.push(' ');
    }
    out.push('"');
    let mut k = 0;
    for part in parts {
        match part {
            // Text between escapes: holds no `"` or `\`.
            StrPart::Str(s) => out.push_str(s),
            StrPart::Term(t) => {
                out.push_str("\\((");
                if bind {
                    let _ = write!(out, "$__sk_i{k}");
                } else {
                    print(out, t);
                }
                k += 1;
                out.push(')');
                // jaq's interpolation prints numbers its own way: print jq's.
                if matches!(fmt, None | Some("@text")) {
                    out.push_str(" | __sk_tostring");
                }
                out.push(')');
            }
            StrPart::Char(c) => match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\t' => out.push_str("\\t"),
                '\r' => out.push_str("\\r"),
                c if (*c as u32) < 0x20 || *c == '\u{7f}' => {
                    let _ = write!(out, "\\u{:04x}", *c as u32);
                }
                c => out.push(*c),
            },
        }
    }
    out.push('"');
    if bind {
        out.push(')');
    }
}

fn print_binop(out: &mut Out, l: &Term<&str>, op: &BinaryOp<&str>, r: &Term<&str>) {
    let sym = match op {
        BinaryOp::Pipe(None) => "|",
        BinaryOp::Pipe(Some(p)) => {
            // jaq binds `[$a]` to an object's (missing) key 0; jq fails.
            if let Pattern::Arr(_) = p {
                out.push('(');
                paren(out, l);
                out.push_str(" | __sk_arrpat)");
            } else {
                paren(out, l);
            }
            out.push_str(" as ");
            print_pattern(out, p);
            out.push_str(" | ");
            paren(out, r);
            return;
        }
        BinaryOp::Comma => ",",
        BinaryOp::Alt => "//",
        BinaryOp::Or => "or",
        BinaryOp::And => "and",
        BinaryOp::Math(m @ (Math::Mul | Math::Div | Math::Rem)) => {
            // jq: the right operand is the outer loop.
            let f = match m {
                Math::Mul => "__sk_mul",
                Math::Div => "__sk_div",
                _ => "__sk_rem",
            };
            out.push('(');
            paren(out, r);
            out.push_str(" as $__sk_r | ");
            paren(out, l);
            let _ = write!(out, " as $__sk_l | {f}($__sk_l; $__sk_r))");
            return;
        }
        BinaryOp::Math(_) | BinaryOp::Cmp(_) if may_yield_many(l) && may_yield_many(r) => {
            // jq loops over the right operand's outputs outside the left's.
            let sym = match op {
                BinaryOp::Math(m) => m.as_str(),
                BinaryOp::Cmp(c) => c.as_str(),
                _ => unreachable!("matched above"),
            };
            out.push('(');
            paren(out, r);
            out.push_str(" as $__sk_r | ");
            paren(out, l);
            let _ = write!(out, " as $__sk_l | $__sk_l {sym} $__sk_r)");
            return;
        }
        BinaryOp::Math(m) => m.as_str(),
        BinaryOp::Cmp(c) => c.as_str(),
        BinaryOp::Assign => {
            out.push_str("__sk_assign(");
            print(out, l);
            out.push_str("; ");
            print(out, r);
            out.push(')');
            return;
        }
        BinaryOp::Update => {
            out.push_str("__sk_modify(");
            print(out, l);
            out.push_str("; ");
            print(out, r);
            out.push(')');
            return;
        }
        BinaryOp::UpdateMath(m) => {
            print_update_with(out, l, m.as_str(), r);
            return;
        }
        BinaryOp::UpdateAlt => {
            print_update_with(out, l, "//", r);
            return;
        }
    };
    paren(out, l);
    let _ = write!(out, " {sym} ");
    paren(out, r);
}

/// `l op= r`: `r` runs on the input, then each path's value becomes
/// `. op $r` (jq's `gen_update`).
fn print_update_with(out: &mut Out, l: &Term<&str>, op: &str, r: &Term<&str>) {
    out.push('(');
    paren(out, r);
    out.push_str(" as $__sk_v | __sk_modify(");
    print(out, l);
    let _ = write!(out, "; . {op} $__sk_v))");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaves_other_filters_alone() {
        assert_eq!(rewrite(".a | . == 1"), None);
        assert_eq!(rewrite("map(.+1)"), None);
    }

    #[test]
    fn rewrites_assignments_into_calls() {
        assert_eq!(
            rewrite(".a.b = 1").as_deref(),
            Some(r#"__sk_assign(.["a"]["b"]; 1)"#)
        );
        assert_eq!(
            rewrite(".a += 1").as_deref(),
            Some(r#"((1) as $__sk_v | __sk_modify(.["a"]; . + $__sk_v))"#)
        );
        let s = rewrite(r#"def f($x): .x |= "a\(.)\n\"" ; f(1)"#).unwrap();
        assert!(
            s.contains(r#"__sk_modify(.["x"]; "a\((.) | __sk_tostring)\n\"")"#),
            "{s}"
        );
    }

    #[test]
    fn checks_keys_that_are_not_string_literals() {
        assert_eq!(rewrite(".a.b | .[\"c\"]"), None);
        assert_eq!(
            rewrite(".a[0]?").as_deref(),
            Some(r#"(try (.["a"] | __sk_idx(0)))"#)
        );
        assert_eq!(
            rewrite(".a[.i].b").as_deref(),
            Some(r#"(. as $__sk_o0 | (.["a"] | __sk_idx($__sk_o0 | (.["i"])))["b"])"#)
        );
        assert_eq!(
            rewrite(". as [$a] | $a").as_deref(),
            Some("((.) | __sk_arrpat) as [$a] | ($a)")
        );
    }

    #[test]
    fn rewrites_slices_division_and_loc() {
        assert_eq!(
            rewrite(".[1:]").as_deref(),
            Some(r#"(. | __sk_idx({"start": (1), "end": (null)}))"#)
        );
        assert_eq!(
            rewrite(".a / 2").as_deref(),
            Some(r#"((2) as $__sk_r | (.["a"]) as $__sk_l | __sk_div($__sk_l; $__sk_r))"#)
        );
        assert_eq!(
            rewrite("1,\n$__loc__").as_deref(),
            Some(r#"(1) , ({"file":"<top-level>","line":2})"#)
        );
    }
}
