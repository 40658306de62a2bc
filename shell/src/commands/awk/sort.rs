//! gawk's array sorting: `PROCINFO["sorted_in"]` for `for (k in a)`, and
//! the `asort()` / `asorti()` builtins. Orders are gawk's predefined ones
//! (`@ind_str_asc`, `@ind_num_asc`, `@val_type_asc`, `@val_str_asc`,
//! `@val_num_asc`, their `_desc` twins, `@unsorted`) or the name of a user
//! function `cmp(i1, v1, i2, v2)` returning <0, 0 or >0.
//!
//! Ties are broken as gawk does (by value string, then index string), so the
//! result does not depend on the array's internal order.

use std::cell::RefCell;
use std::cmp::Ordering;
use std::rc::Rc;

use super::ast::special::PROCINFO;
use super::ast::{Expr, Var};
use super::interp::{Array, Cell, Fatal, Interp, Res};
use super::value::Value;

/// What one sort key orders by.
#[derive(Clone, Copy, PartialEq)]
enum By {
    IndStr,
    IndNum,
    ValType,
    ValStr,
    ValNum,
}

/// A parsed ordering.
enum Order {
    /// Insertion order (`@unsorted`).
    Unsorted,
    /// A predefined order; `true` = descending.
    Builtin(By, bool),
    /// A user comparison function.
    Func(String),
}

fn parse_order(how: &str) -> Result<Order, String> {
    let Some(name) = how.strip_prefix('@') else {
        return Ok(Order::Func(how.to_string()));
    };
    if name == "unsorted" {
        return Ok(Order::Unsorted);
    }
    let (by, desc) = match name.rsplit_once('_') {
        Some((by, "asc")) => (by, false),
        Some((by, "desc")) => (by, true),
        _ => return Err(format!("`{how}' is not a valid sort order")),
    };
    let by = match by {
        "ind_str" => By::IndStr,
        "ind_num" => By::IndNum,
        "val_type" => By::ValType,
        "val_str" => By::ValStr,
        "val_num" => By::ValNum,
        _ => return Err(format!("`{how}' is not a valid sort order")),
    };
    Ok(Order::Builtin(by, desc))
}

/// gawk's ascending comparison for `by`, ties included.
fn compare(by: By, a: &(String, Value), b: &(String, Value), convfmt: &str) -> Ordering {
    let ind_str = || a.0.as_bytes().cmp(b.0.as_bytes());
    let val_str = || {
        a.1.str_with(convfmt)
            .as_bytes()
            .cmp(b.1.str_with(convfmt).as_bytes())
    };
    let num = |x: f64, y: f64| x.partial_cmp(&y).unwrap_or(Ordering::Equal);
    match by {
        By::IndStr => ind_str(),
        By::IndNum => {
            let (x, y) = (
                super::value::str_to_num(&a.0),
                super::value::str_to_num(&b.0),
            );
            num(x, y).then_with(ind_str)
        }
        By::ValStr => val_str().then_with(ind_str),
        By::ValNum => num(a.1.num(), b.1.num())
            .then_with(val_str)
            .then_with(ind_str),
        By::ValType => match (a.1.is_numeric(), b.1.is_numeric()) {
            (true, true) => num(a.1.num(), b.1.num()).then_with(ind_str),
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            (false, false) => val_str().then_with(ind_str),
        },
    }
}

/// A stable merge sort with a fallible comparator that may be inconsistent
/// (a user function): it never panics, whatever the comparator says.
fn merge_sort<T: Clone>(v: Vec<T>, cmp: &mut dyn FnMut(&T, &T) -> Res<Ordering>) -> Res<Vec<T>> {
    if v.len() <= 1 {
        return Ok(v);
    }
    let mut right = v;
    let left = right.drain(..right.len() / 2).collect();
    let left = merge_sort(left, cmp)?;
    let right = merge_sort(right, cmp)?;
    let mut out = Vec::with_capacity(left.len() + right.len());
    let (mut i, mut j) = (0, 0);
    while i < left.len() && j < right.len() {
        if cmp(&right[j], &left[i])? == Ordering::Less {
            out.push(right[j].clone());
            j += 1;
        } else {
            out.push(left[i].clone());
            i += 1;
        }
    }
    out.extend_from_slice(&left[i..]);
    out.extend_from_slice(&right[j..]);
    Ok(out)
}

impl Interp<'_, '_> {
    /// `PROCINFO["sorted_in"]`, when set and not empty.
    pub(super) fn sorted_in(&self) -> Option<String> {
        let Cell::Arr(p) = &self.globals[PROCINFO] else {
            return None;
        };
        let how = p.borrow().get("sorted_in")?.str_with("%.6g");
        (!how.is_empty()).then_some(how)
    }

    /// The entries of `arr` in order `how`.
    fn sorted_entries(&mut self, arr: &Array, how: &str) -> Res<Vec<(String, Value)>> {
        let entries: Vec<(String, Value)> =
            arr.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        match parse_order(how).map_err(Fatal)? {
            Order::Unsorted => Ok(entries),
            Order::Builtin(by, desc) => {
                let convfmt = self.special_str(super::ast::special::CONVFMT);
                merge_sort(entries, &mut |a, b| {
                    let o = compare(by, a, b, &convfmt);
                    Ok(if desc { o.reverse() } else { o })
                })
            }
            Order::Func(name) => merge_sort(entries, &mut |a, b| {
                let r = self.call_values(
                    &name,
                    vec![
                        Value::StrNum(a.0.clone()),
                        a.1.clone(),
                        Value::StrNum(b.0.clone()),
                        b.1.clone(),
                    ],
                )?;
                Ok(r.num().partial_cmp(&0.0).unwrap_or(Ordering::Equal))
            }),
        }
    }

    /// The keys of `arr` in order `how` (for `for (k in a)`).
    pub(super) fn sorted_keys(&mut self, arr: &Rc<RefCell<Array>>, how: &str) -> Res<Vec<String>> {
        let snapshot = arr.borrow().clone();
        Ok(self
            .sorted_entries(&snapshot, how)?
            .into_iter()
            .map(|(k, _)| k)
            .collect())
    }

    /// `asort(src [, dest [, how]])` (values) and `asorti(...)` (indices):
    /// fills `dest` (or `src`) with 1..n in order; returns n.
    pub(super) fn asort(&mut self, indices: bool, args: &[Expr]) -> Res<Value> {
        let name = if indices { "asorti" } else { "asort" };
        if args.is_empty() || args.len() > 3 {
            return Err(Fatal(format!(
                "{name}: called with {} arguments",
                args.len()
            )));
        }
        let array_arg = |e: &Expr, which: &str| match e {
            Expr::Var(v) => Ok(*v),
            _ => Err(Fatal(format!("{name}: {which} argument is not an array"))),
        };
        let src: Var = array_arg(&args[0], "first")?;
        let dest = match args.get(1) {
            Some(e) => Some(array_arg(e, "second")?),
            None => None,
        };
        let how = match args.get(2) {
            Some(e) => self.eval_str(e)?,
            None if indices => "@ind_str_asc".to_string(),
            None => "@val_type_asc".to_string(),
        };
        let src = self.array(src)?;
        let snapshot = src.borrow().clone();
        let sorted = self.sorted_entries(&snapshot, &how)?;
        let target = match dest {
            Some(d) => self.array(d)?,
            None => src,
        };
        let mut t = target.borrow_mut();
        t.clear();
        let n = sorted.len();
        for (i, (k, v)) in sorted.into_iter().enumerate() {
            t.insert(
                (i + 1).to_string(),
                if indices { Value::StrNum(k) } else { v },
            );
        }
        Ok(Value::Num(n as f64))
    }
}
