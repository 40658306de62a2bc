//! jq's wording for the run-time errors jaq raises: `Cannot index number
//! with "a"`, `Cannot iterate over null (null)`, `object ({}) and number
//! (1) cannot be added`. Used for the messages on stderr and, through the
//! `__sk_jqerr` native the rewrite puts in `catch`, for caught errors.
//! (jq 1.6 words `.a` on a number `Cannot index number with string "a"`.)

use jaq_core::native::{Filter, Fun, bome, run, v};
use jaq_core::{DataT, RunPtr};
use jaq_json::Val;

use super::paths::type_name;
use super::values::describe;

/// The native filters of this module.
pub(super) fn funs<D: for<'a> DataT<V<'a> = Val>>() -> impl Iterator<Item = Fun<D>> {
    base().into_vec().into_iter().map(run)
}

fn base<D: for<'a> DataT<V<'a> = Val>>() -> Box<[Filter<RunPtr<D>>]> {
    Box::new([("__sk_jqerr", v(0), |cv| {
        bome(Ok(match &cv.1 {
            Val::TStr(s) => match jq_message(&String::from_utf8_lossy(s)) {
                Some(m) => Val::from(m),
                None => cv.1,
            },
            _ => cv.1,
        }))
    })])
}

/// A value as jaq printed it in a message, read back.
fn value(text: &str) -> Option<Val> {
    jaq_json::read::parse_single(text.as_bytes()).ok()
}

/// jq's message for a jaq error message, when it is one jaq words its own way.
pub(super) fn jq_message(msg: &str) -> Option<String> {
    if let Some(rest) = msg.strip_prefix("cannot index ") {
        // `cannot index L with R`: try each split, R is usually short.
        for (i, _) in rest
            .match_indices(" with ")
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
        {
            if let (Some(l), Some(r)) = (value(&rest[..i]), value(&rest[i + 6..])) {
                return Some(match r {
                    Val::TStr(k) => format!(
                        "Cannot index {} with string \"{}\"",
                        type_name(&l),
                        String::from_utf8_lossy(&k)
                    ),
                    r => format!("Cannot index {} with {}", type_name(&l), type_name(&r)),
                });
            }
        }
        return None;
    }
    if let Some(rest) = msg.strip_prefix("cannot use ") {
        if let Some(v) = rest.strip_suffix(" as number") {
            return Some(format!("{} number required", describe(&value(v)?)));
        }
        let v = rest.strip_suffix(" as iterable (array or object)")?;
        return Some(format!("Cannot iterate over {}", describe(&value(v)?)));
    }
    if let Some(rest) = msg.strip_prefix("cannot parse ") {
        // `fromjson`, `tonumber`: `cannot parse "text" as JSON: ...`.
        let (quoted, _) = rest.split_once(" as JSON: ")?;
        let Val::TStr(text) = value(quoted)? else {
            return None;
        };
        let m = super::parse_errors::message(&text)?;
        return Some(format!(
            "{m} (while parsing '{}')",
            String::from_utf8_lossy(&text)
        ));
    }
    if let Some(rest) = msg.strip_prefix("cannot calculate ") {
        for (op, verb) in [
            (" + ", "added"),
            (" - ", "subtracted"),
            (" * ", "multiplied"),
            (" / ", "divided"),
            (" % ", "divided"),
        ] {
            for (i, _) in rest.match_indices(op) {
                if let (Some(l), Some(r)) = (value(&rest[..i]), value(&rest[i + 3..])) {
                    return Some(format!(
                        "{} and {} cannot be {verb}",
                        describe(&l),
                        describe(&r)
                    ));
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_errors_like_jq() {
        assert_eq!(
            jq_message(r#"cannot index 1 with "a""#).as_deref(),
            Some(r#"Cannot index number with string "a""#)
        );
        assert_eq!(
            jq_message("cannot index {} with 0").as_deref(),
            Some("Cannot index object with number")
        );
        assert_eq!(
            jq_message("cannot use null as iterable (array or object)").as_deref(),
            Some("Cannot iterate over null (null)")
        );
        assert_eq!(
            jq_message(r#"cannot calculate {"a":"x + y"} + 1"#).as_deref(),
            Some(r#"object ({"a":"x + y...) and number (1) cannot be added"#)
        );
        assert_eq!(jq_message("boom"), None);
    }
}
