//! `match` as jq reports it: every capture group is listed, including the
//! ones that took no part in the match (`{"offset": -1, "string": null}`),
//! each with its `name` (null when unnamed), offsets in code points.
//! `test`, `capture`, `scan`, `sub`, `gsub` and `split` are defined on it
//! in [`super::prelude`], so they all get the same regex dialect.
//!
//! Uses fancy-regex, which has Oniguruma's look-around and back-references.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use fancy_regex::Regex;
use jaq_core::native::{Filter, Fun, bome, run, v};
use jaq_core::{DataT, RunPtr, ValT};
use jaq_json::Val;

use super::paths::type_name;

type Error = jaq_core::Error<Val>;

/// The native filters of this module.
pub(super) fn funs<D: for<'a> DataT<V<'a> = Val>>() -> impl Iterator<Item = Fun<D>> {
    base().into_vec().into_iter().map(run)
}

fn base<D: for<'a> DataT<V<'a> = Val>>() -> Box<[Filter<RunPtr<D>>]> {
    Box::new([
        ("__sk_match", v(2), |mut cv| {
            let flags = cv.0.pop_var();
            let re = cv.0.pop_var();
            bome(matches(&cv.1, &re, &flags))
        }),
        // `__sk_splice($matches; $replacements)`: the input with each match
        // replaced (what `sub`/`gsub` build on).
        ("__sk_splice", v(2), |mut cv| {
            let reps = cv.0.pop_var();
            let ms = cv.0.pop_var();
            bome(splice(&cv.1, &ms, Some(&reps)))
        }),
        // `__sk_split_at($matches)`: the pieces between the matches.
        ("__sk_split_at", v(1), |mut cv| {
            let ms = cv.0.pop_var();
            bome(splice(&cv.1, &ms, None))
        }),
    ])
}

/// jq's modifier letters, read.
#[derive(Default, Clone, Copy)]
struct Flags {
    global: bool,
    skip_empty: bool,
}

/// The compiled regex for `re` with `flags`, cached per thread (filters
/// often test every element of an array against one expression).
fn compile(re: &str, flags: &str) -> Result<(Rc<Regex>, Flags), Error> {
    type Cache = HashMap<(String, String), (Rc<Regex>, Flags)>;
    thread_local! {
        static CACHE: RefCell<Cache> = RefCell::new(HashMap::new());
    }
    let key = (re.to_string(), flags.to_string());
    if let Some(hit) = CACHE.with(|c| c.borrow().get(&key).cloned()) {
        return Ok(hit);
    }
    let mut f = Flags::default();
    let mut inline = String::new();
    for c in flags.chars() {
        match c {
            'g' => f.global = true,
            'n' => f.skip_empty = true,
            'i' | 'x' | 's' => inline.push(c),
            'p' => inline.push('s'),
            'l' => {}
            _ => {
                return Err(Error::str(format!(
                    "{flags} is not a valid modifier string"
                )));
            }
        }
    }
    let pattern = if inline.is_empty() {
        re.to_string()
    } else {
        format!("(?{inline}){re}")
    };
    let regex = Regex::new(&pattern)
        .map_err(|e| Error::str(format!("{re} (at offset 0) is not a valid regex: {e}")))?;
    let hit = (Rc::new(regex), f);
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= 64 {
            c.clear();
        }
        c.insert(key, hit.clone());
    });
    Ok(hit)
}

/// The bytes of a string argument; `role` words the error as jq does.
fn text_of<'v>(v: &'v Val, role: &str) -> Result<&'v [u8], Error> {
    match v {
        Val::TStr(s) | Val::BStr(s) => Ok(s),
        v => Err(Error::str(format!(
            "{} ({}) {role}",
            type_name(v),
            super::values::to_json(v)
        ))),
    }
}

fn obj(entries: Vec<(&str, Val)>) -> Val {
    let entries = entries
        .into_iter()
        .map(|(k, v)| (Val::from(k.to_string()), v));
    <Val as ValT>::from_map(entries).unwrap_or_default()
}

/// All matches of `re` in the input, as jq's match objects.
fn matches(input: &Val, re: &Val, flags: &Val) -> Result<Val, Error> {
    let text = String::from_utf8_lossy(text_of(input, "cannot be matched, as it is not a string")?);
    let re = String::from_utf8_lossy(text_of(re, "is not a string")?);
    let flags = match flags {
        Val::Null => String::new(),
        f => String::from_utf8_lossy(text_of(f, "is not a string")?).into_owned(),
    };
    let (regex, f) = compile(&re, &flags)?;
    let names: Vec<Option<String>> = regex
        .capture_names()
        .skip(1)
        .map(|n| n.map(str::to_string))
        .collect();
    // Code point offset of each byte offset, counted incrementally.
    let (mut byte_at, mut char_at) = (0usize, 0usize);
    let mut chars_to = |b: usize| {
        if b < byte_at {
            (byte_at, char_at) = (0, 0);
        }
        char_at += text[byte_at..b].chars().count();
        byte_at = b;
        char_at
    };
    let mut out = Vec::new();
    for caps in regex.captures_iter(&text) {
        let caps = caps.map_err(|e| Error::str(format!("regex failed: {e}")))?;
        let whole = caps.get(0).expect("group 0 always matches");
        if f.skip_empty && whole.as_str().is_empty() {
            continue;
        }
        let offset = chars_to(whole.start());
        let mut groups = Vec::new();
        let mut describe = |m: Option<fancy_regex::Match<'_>>, name: Option<&String>| {
            let name = name.map_or(Val::Null, |n| Val::from(n.clone()));
            match m {
                Some(m) => obj(vec![
                    ("offset", Val::from(chars_to(m.start()) as isize)),
                    ("length", Val::from(m.as_str().chars().count() as isize)),
                    ("string", Val::from(m.as_str().to_string())),
                    ("name", name),
                ]),
                // jq's own key order for a group that did not take part.
                None => obj(vec![
                    ("offset", Val::from(-1isize)),
                    ("string", Val::Null),
                    ("length", Val::from(0isize)),
                    ("name", name),
                ]),
            }
        };
        for (i, name) in names.iter().enumerate() {
            groups.push(describe(caps.get(i + 1), name.as_ref()));
        }
        out.push(obj(vec![
            ("offset", Val::from(offset as isize)),
            ("length", Val::from(whole.as_str().chars().count() as isize)),
            ("string", Val::from(whole.as_str().to_string())),
            ("captures", Val::from_iter(groups)),
        ]));
        if !f.global {
            break;
        }
    }
    Ok(Val::from_iter(out))
}

/// A field of a match object, as a number.
fn field(m: &Val, name: &str) -> Result<usize, Error> {
    let Val::Obj(o) = m else {
        return Err(Error::str("match objects must be objects"));
    };
    match o.get(&Val::from(name.to_string())) {
        Some(Val::Num(n)) => Ok(super::format::num_to_f64(n).max(0.0) as usize),
        _ => Err(Error::str(format!("match objects need a numeric {name}"))),
    }
}

/// Replaces each of the (ascending) matches `ms` in the input string by the
/// string of `reps` at the same position; without `reps`, the pieces
/// between the matches, as an array.
fn splice(input: &Val, ms: &Val, reps: Option<&Val>) -> Result<Val, Error> {
    let text = String::from_utf8_lossy(text_of(input, "cannot be matched, as it is not a string")?);
    let (Val::Arr(ms), reps) = (ms, reps) else {
        return Err(Error::str("matches must be an array"));
    };
    let reps: Option<&[Val]> = match reps {
        Some(Val::Arr(r)) => Some(r),
        Some(_) => return Err(Error::str("replacements must be an array")),
        None => None,
    };
    // Byte offset of each code point offset, plus the end.
    let bytes: Vec<usize> = text
        .char_indices()
        .map(|(b, _)| b)
        .chain([text.len()])
        .collect();
    let at = |c: usize| bytes[c.min(bytes.len() - 1)];
    let (mut out, mut pieces, mut prev) = (String::new(), Vec::new(), 0usize);
    for (i, m) in ms.iter().enumerate() {
        let (start, end) = (
            at(field(m, "offset")?),
            at(field(m, "offset")? + field(m, "length")?),
        );
        let start = start.max(prev);
        match reps {
            Some(reps) => {
                out.push_str(&text[prev..start]);
                match reps.get(i) {
                    Some(Val::TStr(r) | Val::BStr(r)) => out.push_str(&String::from_utf8_lossy(r)),
                    Some(r) => {
                        return Err(Error::str(format!(
                            "{} and {} cannot be added",
                            super::values::describe(&Val::from(out)),
                            super::values::describe(r)
                        )));
                    }
                    None => {}
                }
            }
            None => pieces.push(Val::from(text[prev..start].to_string())),
        }
        prev = end.max(start);
    }
    Ok(match reps {
        Some(_) => {
            out.push_str(&text[prev..]);
            Val::from(out)
        }
        None => {
            pieces.push(Val::from(text[prev..].to_string()));
            Val::from_iter(pieces)
        }
    })
}
