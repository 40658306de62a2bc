//! jq's path primitives over jaq values, as native filters: `setpath` that
//! creates the objects and arrays a path runs through (padding arrays with
//! nulls), `delpaths` that deletes all paths at once, and the folds behind
//! the assignment operators (`=`, `|=`, `+=`, ...), which the
//! [`super::rewrite`] pass turns into calls of these.
//!
//! jaq updates values through its own path machinery, which refuses to index
//! `null` or to grow an array; jq builds `|=` from `path(f)`, `getpath` and
//! `setpath` instead (builtin.jq's `_modify`), and so do we.

use jaq_core::box_iter::box_once;
use jaq_core::native::{Filter, Fun, run, v};
use jaq_core::{Bind, DataT, Exn, RunPtr, ValT};
use jaq_json::{Num, Rc, Val};

type Error = jaq_core::Error<Val>;

/// The native filters of this module.
pub(super) fn funs<D: for<'a> DataT<V<'a> = Val>>() -> impl Iterator<Item = Fun<D>> {
    base().into_vec().into_iter().map(run)
}

fn base<D: for<'a> DataT<V<'a> = Val>>() -> Box<[Filter<RunPtr<D>>]> {
    let var_fun: Box<[Bind]> = [Bind::Var(()), Bind::Fun(())].into();
    Box::new([
        ("__sk_setpath", v(2), |mut cv| {
            let x = cv.0.pop_var();
            let p = cv.0.pop_var();
            let mut y = cv.1;
            box_once(
                as_path(&p)
                    .and_then(|p| set_path(&mut y, p, x))
                    .map(|()| y)
                    .map_err(Exn::from),
            )
        }),
        ("__sk_delpaths", v(1), |mut cv| {
            let ps = cv.0.pop_var();
            box_once(del_paths(cv.1, &ps).map_err(Exn::from))
        }),
        // `__sk_setpaths($paths; $x)`: set every path to `$x`.
        ("__sk_setpaths", v(2), |mut cv| {
            let x = cv.0.pop_var();
            let ps = cv.0.pop_var();
            let mut y = cv.1;
            let r = (|| -> Result<Val, Error> {
                for p in as_paths(&ps)? {
                    set_path(&mut y, as_path(p)?, x.clone())?;
                }
                Ok(y)
            })();
            box_once(r.map_err(Exn::from))
        }),
        // `__sk_update($paths; f)`: jq 1.7's `_modify`: each path gets the
        // first output of `f` on its value; paths where `f` yields nothing
        // are deleted at the end, all at once.
        ("__sk_update", var_fun, |mut cv| {
            let (f, fc) = cv.0.pop_fun();
            let ps = cv.0.pop_var();
            let mut y = cv.1;
            let r = (|| -> Result<Val, Exn<'_, Val>> {
                let mut gone = Vec::new();
                for p in as_paths(&ps)? {
                    let path = as_path(p)?;
                    let old = get_path(&y, path)?;
                    match f.run((fc.clone(), old)).next() {
                        None => gone.push(p.clone()),
                        Some(Ok(new)) => set_path(&mut y, path, new)?,
                        Some(Err(e)) => return Err(e),
                    }
                }
                if !gone.is_empty() {
                    y = del_paths(y, &Val::from_iter(gone))?;
                }
                Ok(y)
            })();
            box_once(r)
        }),
    ])
}

/// jq's name for the type of `v`.
pub(super) fn type_name(v: &Val) -> &'static str {
    match v {
        Val::Null => "null",
        Val::Bool(_) => "boolean",
        Val::Num(_) => "number",
        Val::TStr(_) | Val::BStr(_) => "string",
        Val::Arr(_) => "array",
        Val::Obj(_) => "object",
    }
}

fn err(msg: impl ToString) -> Error {
    Error::str(msg)
}

fn as_paths(ps: &Val) -> Result<&[Val], Error> {
    match ps {
        Val::Arr(a) => Ok(a),
        _ => Err(err("Paths must be specified as an array")),
    }
}

fn as_path(p: &Val) -> Result<&[Val], Error> {
    match p {
        Val::Arr(a) => Ok(a),
        _ => Err(err("Path must be specified as an array")),
    }
}

/// One of `delpaths`' paths, which jq words its own way.
fn as_deleted_path(p: &Val) -> Result<&[Val], Error> {
    match p {
        Val::Arr(a) => Ok(a),
        v => Err(err(format!(
            "Path must be specified as array, not {}",
            type_name(v)
        ))),
    }
}

fn num_f64(n: &Num) -> f64 {
    super::format::num_to_f64(n)
}

/// `Cannot index <type> with ...`, worded like jq.
fn index_error(v: &Val, k: &Val) -> Error {
    match k {
        Val::TStr(s) | Val::BStr(s) => err(format!(
            "Cannot index {} with string \"{}\"",
            type_name(v),
            String::from_utf8_lossy(s)
        )),
        k => err(format!(
            "Cannot index {} with {}",
            type_name(v),
            type_name(k)
        )),
    }
}

/// jq's slice bounds `[start, end)` of a `{"start": s, "end": e}` key over a
/// sequence of `len` items (negative bounds count from the end, then clamp).
fn slice_bounds(key: &Val, len: usize) -> Result<(usize, usize), Error> {
    let Val::Obj(o) = key else {
        return Err(err(
            "Start and end indices of an array slice must be numbers",
        ));
    };
    let bound = |name: &str, default: f64| match o.get(&Val::from(name.to_string())) {
        None | Some(Val::Null) => Ok(default),
        Some(Val::Num(n)) => Ok(num_f64(n)),
        Some(_) => Err(err(
            "Start and end indices of an array slice must be numbers",
        )),
    };
    let len_f = len as f64;
    let mut start = bound("start", 0.0)?;
    let mut end = bound("end", len_f)?;
    if start < 0.0 {
        start += len_f;
    }
    if end < 0.0 {
        end += len_f;
    }
    let start = start.clamp(0.0, len_f);
    let end = end.min(len_f).max(start);
    let end = if end > end.floor() {
        end.floor() as usize + 1
    } else {
        end as usize
    };
    Ok((start as usize, end.min(len)))
}

/// An array index as jq reads it: truncated, negative from the end.
fn array_index(n: &Num, len: usize) -> Option<usize> {
    let i = num_f64(n).trunc();
    let i = if i < 0.0 { i + len as f64 } else { i };
    (i >= 0.0 && i.is_finite()).then_some(i as usize)
}

/// `getpath`: `null` along a missing path; an error where a value can't be
/// indexed by the key.
pub(super) fn get_path(v: &Val, path: &[Val]) -> Result<Val, Error> {
    let mut cur = v.clone();
    for k in path {
        cur = match (&cur, k) {
            (Val::Null, _) => return Ok(Val::Null),
            (Val::Obj(o), Val::TStr(_) | Val::BStr(_)) => o.get(k).cloned().unwrap_or_default(),
            (Val::Arr(a), Val::Num(n)) => array_index(n, a.len())
                .and_then(|i| a.get(i).cloned())
                .unwrap_or_default(),
            (Val::Arr(a), Val::Obj(_)) => {
                let (s, e) = slice_bounds(k, a.len())?;
                Val::from_iter(a[s..e].iter().cloned())
            }
            (Val::TStr(_) | Val::BStr(_), Val::Obj(_)) => cur.clone().index(k)?,
            _ => return Err(index_error(&cur, k)),
        };
    }
    Ok(cur)
}

/// `setpath`: sets `path` in `v` to `x`, turning `null`s along the way into
/// objects or arrays and padding arrays with `null`s.
pub(super) fn set_path(v: &mut Val, path: &[Val], x: Val) -> Result<(), Error> {
    let Some((k, rest)) = path.split_first() else {
        *v = x;
        return Ok(());
    };
    if let Val::Null = v {
        *v = match k {
            Val::TStr(_) | Val::BStr(_) => Val::obj(Default::default()),
            Val::Num(_) | Val::Obj(_) => Val::from_iter(std::iter::empty()),
            _ => return Err(index_error(v, k)),
        };
    }
    match (&mut *v, k) {
        (Val::Obj(o), Val::TStr(_) | Val::BStr(_)) => {
            let slot = Rc::make_mut(o).entry(k.clone()).or_default();
            set_path(slot, rest, x)
        }
        (Val::Arr(a), Val::Num(n)) => {
            let len = a.len();
            let Some(i) = array_index(n, len) else {
                return Err(err("Out of bounds negative array index"));
            };
            let a = Rc::make_mut(a);
            if i >= len {
                a.resize(i + 1, Val::Null);
            }
            set_path(&mut a[i], rest, x)
        }
        (Val::Arr(a), Val::Obj(_)) => {
            let (s, e) = slice_bounds(k, a.len())?;
            let mut part = Val::from_iter(a[s..e].iter().cloned());
            set_path(&mut part, rest, x)?;
            let Val::Arr(part) = part else {
                return Err(err(
                    "A slice of an array can only be assigned another array",
                ));
            };
            Rc::make_mut(a).splice(s..e, part.iter().cloned());
            Ok(())
        }
        (Val::Arr(_), Val::Arr(_)) => Err(err("Cannot update field at array index of array")),
        (Val::TStr(_) | Val::BStr(_), Val::Obj(_)) => Err(err(format!(
            "Cannot update field at object index of {}",
            type_name(v)
        ))),
        _ => Err(index_error(v, k)),
    }
}

/// `delpaths`: deletes all `paths` from `v` at once, as jq does (so that
/// deleting `.[0]` does not shift the element another path names).
pub(super) fn del_paths(v: Val, paths: &Val) -> Result<Val, Error> {
    let mut ps: Vec<&[Val]> = as_paths(paths)?
        .iter()
        .map(as_deleted_path)
        .collect::<Result<_, _>>()?;
    if ps.is_empty() {
        return Ok(v);
    }
    ps.sort();
    if ps[0].is_empty() {
        return Ok(Val::Null);
    }
    del_sorted(v, &ps, 0)
}

/// Deletes the sorted `paths` (all longer than `depth`, sharing their first
/// `depth` keys) from `v`.
fn del_sorted(mut v: Val, paths: &[&[Val]], depth: usize) -> Result<Val, Error> {
    let mut keys = Vec::new();
    let mut i = 0;
    while i < paths.len() {
        let key = &paths[i][depth];
        let j = i + paths[i..].iter().take_while(|p| &p[depth] == key).count();
        if paths[i].len() == depth + 1 {
            // The whole key goes: deeper deletions under it don't matter.
            keys.push(key);
        } else {
            let sub = get_path(&v, std::slice::from_ref(key))?;
            if !matches!(sub, Val::Null) {
                let sub = del_sorted(sub, &paths[i..j], depth + 1)?;
                set_path(&mut v, std::slice::from_ref(key), sub)?;
            }
        }
        i = j;
    }
    del_keys(v, &keys)
}

/// Deletes the keys (indices, slices, or field names) from `v` at once.
fn del_keys(mut v: Val, keys: &[&Val]) -> Result<Val, Error> {
    if keys.is_empty() {
        return Ok(v);
    }
    match &mut v {
        Val::Null => {}
        Val::Arr(a) => {
            let len = a.len();
            let mut drop = vec![false; len];
            for k in keys {
                match k {
                    Val::Num(n) => {
                        if let Some(i) = array_index(n, len).filter(|i| *i < len) {
                            drop[i] = true;
                        }
                    }
                    Val::Obj(_) => {
                        let (s, e) = slice_bounds(k, len)?;
                        drop[s..e].iter_mut().for_each(|d| *d = true);
                    }
                    k => {
                        return Err(err(format!(
                            "Cannot delete {} element of array",
                            type_name(k)
                        )));
                    }
                }
            }
            let mut it = drop.into_iter();
            Rc::make_mut(a).retain(|_| !it.next().unwrap_or(false));
        }
        Val::Obj(o) => {
            let o = Rc::make_mut(o);
            for k in keys {
                match k {
                    Val::TStr(_) | Val::BStr(_) => {
                        o.shift_remove(*k);
                    }
                    k => {
                        return Err(err(format!(
                            "Cannot delete {} field of object",
                            type_name(k)
                        )));
                    }
                }
            }
        }
        v => {
            return Err(err(format!("Cannot delete fields from {}", type_name(v))));
        }
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(s: &str) -> Val {
        jaq_json::read::parse_single(s.as_bytes()).unwrap()
    }

    #[test]
    fn setpath_creates_and_pads() {
        let mut v = Val::Null;
        let path = [json(r#""a""#), json("2"), json(r#""b""#)];
        set_path(&mut v, &path, json("1")).unwrap();
        assert_eq!(v, json(r#"{"a":[null,null,{"b":1}]}"#));
        let mut v = json("[1,2]");
        assert!(set_path(&mut v, &[json("-3")], json("0")).is_err());
        set_path(&mut v, &[json("-1")], json("9")).unwrap();
        assert_eq!(v, json("[1,9]"));
    }

    #[test]
    fn delpaths_deletes_at_once() {
        let v = del_paths(json("[1,2,3,4]"), &json("[[-3],[2]]")).unwrap();
        assert_eq!(v, json("[1,4]"));
        let v = del_paths(
            json(r#"{"a":{"b":1,"c":2}}"#),
            &json(r#"[["a","b"],["x","y"]]"#),
        );
        assert_eq!(v.unwrap(), json(r#"{"a":{"c":2}}"#));
    }
}
