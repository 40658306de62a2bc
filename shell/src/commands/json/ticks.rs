//! Cancellation points for jq's recursion.
//!
//! jaq's evaluator has no hook where a run's deadline could stop it, and a
//! jq program loops only by recursion: `def f: f; f`, and the standard
//! library's `repeat`, `while`, `until`, `recurse` are all recursive
//! definitions (jaq turns tail calls into loops, so such a program spins
//! forever without a native call). Every recursive definition therefore
//! starts with `__sk_tick`, an identity native that checks the run (see
//! `jq.rs`'s `cancel`): `def f: f;` becomes `def f: __sk_tick | f;`.
//!
//! A definition is recursive when its body (nested definitions included)
//! calls its own name: jq's scoping lets a definition reach only itself and
//! what was defined before it, so every cycle of calls passes through such
//! a definition. A name that merely shadows another gets a needless tick,
//! which costs one native call.
//!
//! The standard library's definitions are changed here on the syntax tree;
//! the user's filter is printed with the ticks by [`super::rewrite`].

use jaq_core::load::lex::StrPart;
use jaq_core::load::parse::{BinaryOp, Def, Pattern, Term};
use jaq_core::path::Part;

/// The name of the native that checks the run.
pub(super) const TICK: &str = "__sk_tick";

/// `d` with a tick at the start of its body when it is recursive, and of
/// every recursive definition nested in it.
pub(super) fn def(mut d: Def<&'static str>) -> Def<&'static str> {
    tick(&mut d);
    d
}

fn tick(d: &mut Def<&'static str>) {
    nested(&mut d.body);
    if recursive(d) {
        let body = std::mem::take(&mut d.body);
        d.body = Term::BinOp(
            Box::new(Term::Call(TICK, Vec::new())),
            BinaryOp::Pipe(None),
            Box::new(body),
        );
    }
}

/// Whether `d`'s body calls `d`'s name.
pub(super) fn recursive<S: AsRef<str>>(d: &Def<S>) -> bool {
    calls(&d.body, d.name.as_ref())
}

/// Ticks every recursive definition inside `t`.
fn nested(t: &mut Term<&'static str>) {
    if let Term::Def(defs, _) = t {
        defs.iter_mut().for_each(tick);
    }
    children_mut(t, &mut nested);
}

/// Whether `t` calls `name` anywhere.
fn calls<S: AsRef<str>>(t: &Term<S>, name: &str) -> bool {
    if let Term::Call(n, _) = t
        && n.as_ref() == name
    {
        return true;
    }
    let mut found = false;
    children(t, &mut |c| found = found || calls(c, name));
    found
}

/// Calls `f` on each term directly inside `t`.
fn children<S>(t: &Term<S>, f: &mut dyn FnMut(&Term<S>)) {
    match t {
        Term::Id | Term::Recurse | Term::Num(_) | Term::Var(_) | Term::Break(_) => {}
        Term::Str(_, parts) => parts.iter().for_each(|p| {
            if let StrPart::Term(t) = p {
                f(t)
            }
        }),
        Term::Arr(t) => t.iter().for_each(|t| f(t)),
        Term::Obj(entries) => entries.iter().for_each(|(k, v)| {
            f(k);
            v.iter().for_each(&mut *f);
        }),
        Term::Neg(t) | Term::Label(_, t) => f(t),
        Term::BinOp(l, op, r) => {
            f(l);
            if let BinaryOp::Pipe(Some(p)) = op {
                pattern(p, f);
            }
            f(r);
        }
        Term::Fold(_, xs, p, args) => {
            f(xs);
            pattern(p, f);
            args.iter().for_each(&mut *f);
        }
        Term::TryCatch(t, c) => {
            f(t);
            c.iter().for_each(|c| f(c));
        }
        Term::IfThenElse(branches, else_) => {
            branches.iter().for_each(|(c, t)| {
                f(c);
                f(t);
            });
            else_.iter().for_each(|e| f(e));
        }
        Term::Def(defs, t) => {
            defs.iter().for_each(|d| f(&d.body));
            f(t);
        }
        Term::Call(_, args) => args.iter().for_each(&mut *f),
        Term::Path(t, path) => {
            f(t);
            path.0.iter().for_each(|(part, _)| match part {
                Part::Index(i) => f(i),
                Part::Range(a, b) => a.iter().chain(b.iter()).for_each(&mut *f),
            });
        }
    }
}

fn pattern<S>(p: &Pattern<S>, f: &mut dyn FnMut(&Term<S>)) {
    match p {
        Pattern::Var(_) => {}
        Pattern::Arr(ps) => ps.iter().for_each(|p| pattern(p, f)),
        Pattern::Obj(entries) => entries.iter().for_each(|(k, p)| {
            f(k);
            pattern(p, f);
        }),
    }
}

/// Calls `f` on each term directly inside `t` that may hold a definition
/// (patterns hold only keys, which are not searched).
fn children_mut<S>(t: &mut Term<S>, f: &mut dyn FnMut(&mut Term<S>)) {
    match t {
        Term::Id | Term::Recurse | Term::Num(_) | Term::Var(_) | Term::Break(_) => {}
        Term::Str(_, parts) => parts.iter_mut().for_each(|p| {
            if let StrPart::Term(t) = p {
                f(t)
            }
        }),
        Term::Arr(t) => t.iter_mut().for_each(|t| f(t)),
        Term::Obj(entries) => entries.iter_mut().for_each(|(k, v)| {
            f(k);
            v.iter_mut().for_each(&mut *f);
        }),
        Term::Neg(t) | Term::Label(_, t) => f(t),
        Term::BinOp(l, _, r) => {
            f(l);
            f(r);
        }
        Term::Fold(_, xs, _, args) => {
            f(xs);
            args.iter_mut().for_each(&mut *f);
        }
        Term::TryCatch(t, c) => {
            f(t);
            c.iter_mut().for_each(|c| f(c));
        }
        Term::IfThenElse(branches, else_) => {
            branches.iter_mut().for_each(|(c, t)| {
                f(c);
                f(t);
            });
            else_.iter_mut().for_each(|e| f(e));
        }
        // The definitions themselves are handled by the caller.
        Term::Def(_, t) => f(t),
        Term::Call(_, args) => args.iter_mut().for_each(&mut *f),
        Term::Path(t, path) => {
            f(t);
            path.0.iter_mut().for_each(|(part, _)| match part {
                Part::Index(i) => f(i),
                Part::Range(a, b) => a.iter_mut().chain(b.iter_mut()).for_each(&mut *f),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(code: &'static str) -> Vec<Def<&'static str>> {
        jaq_core::load::parse(code, |p| p.defs()).unwrap()
    }

    fn ticked(d: &Def<&str>) -> bool {
        matches!(&d.body, Term::BinOp(l, BinaryOp::Pipe(None), _) if matches!(**l, Term::Call(TICK, _)))
    }

    #[test]
    fn recursive_definitions_and_only_they_start_with_a_tick() {
        let defs: Vec<_> = parse("def f: f; def g: 1 + 2; def h(x): x | h(x);")
            .into_iter()
            .map(def)
            .collect();
        assert!(ticked(&defs[0]));
        assert!(!ticked(&defs[1]));
        assert!(ticked(&defs[2]));
    }

    #[test]
    fn a_recursive_definition_nested_in_another_gets_its_tick() {
        let d = def(parse("def repeat(f): def rec: f, rec; rec;").remove(0));
        // `repeat` calls `rec`, not itself; `rec` calls itself.
        assert!(!ticked(&d));
        let Term::Def(inner, _) = &d.body else {
            panic!("repeat's body starts with its definition of rec")
        };
        assert!(ticked(&inner[0]));
    }
}
