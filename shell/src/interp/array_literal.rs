//! The elements of a compound array assignment `a=(x [k]=v [k]+=w)`, for
//! both the assignment statement and `declare`/`local` arguments.
//!
//! brush-parser only recognises `[k]=v` elements whose key holds no `]`, so
//! `[a[0]]=v` and `[k]+=v` reach us as plain words: which elements are keyed
//! is decided here from the raw text, with bash's rules. For an indexed
//! array bash expands every word before assigning (a keyed word that brace
//! expansion splits becomes plain values), and evaluates each key only when
//! its element is stored (`[a[0]]=v` sees the elements stored before it).

use super::expand::ParseMode;
use super::expand::brace::brace_expand_until;
use super::{Interp, Interrupt};
use brush_parser::ast::Word;

/// One element of a compound assignment, its key and value expanded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArrayElem {
    /// The subscript of `[key]=value` (not yet evaluated arithmetically).
    pub key: Option<String>,
    /// The value.
    pub value: String,
    /// `[key]+=value`: appended to the element's old value.
    pub append: bool,
}

impl ArrayElem {
    /// A plain (unkeyed) element.
    pub fn plain(value: String) -> ArrayElem {
        ArrayElem {
            key: None,
            value,
            append: false,
        }
    }
}

/// A `[key]=value` or `[key]+=value` element word, split as
/// (key text, append, value text). The key's brackets nest and may hold
/// quotes; `None` for any other word.
pub fn keyed_element(word: &str) -> Option<(&str, bool, &str)> {
    let b = word.as_bytes();
    if b.first() != Some(&b'[') {
        return None;
    }
    let mut depth = 0usize;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 1,
            b'\'' => i += b[i + 1..].iter().position(|&c| c == b'\'')? + 1,
            b'"' => i += closing_double_quote(&b[i + 1..])? + 1,
            b'[' => depth += 1,
            b']' => {
                depth -= 1;
                if depth == 0 {
                    let rest = &word[i + 1..];
                    return if let Some(v) = rest.strip_prefix('=') {
                        Some((&word[1..i], false, v))
                    } else {
                        rest.strip_prefix("+=").map(|v| (&word[1..i], true, v))
                    };
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Offset of the `"` closing a double-quoted run that starts after its `"`.
fn closing_double_quote(b: &[u8]) -> Option<usize> {
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 1,
            b'"' => return Some(i),
            _ => {}
        }
        i += 1;
    }
    None
}

impl Interp {
    /// Expands the raw element words of `name=( ... )` (or `+=`).
    pub(crate) fn expand_array_literal(
        &mut self,
        name: &str,
        words: &[String],
    ) -> Result<Vec<ArrayElem>, Interrupt> {
        let assoc = self.is_assoc(name);
        let mut elems = Vec::with_capacity(words.len());
        for w in words {
            let keyed = keyed_element(w).filter(|_| assoc || !self.brace_splits(w));
            if let Some((key, append, value)) = keyed {
                let key = self.expand_string(key)?;
                // Values get tilde expansion as in an assignment; bash 5.2
                // leaves it out for associative arrays.
                let value = if assoc {
                    self.expand_nosplit(value, ParseMode::NoTilde, false)?
                } else {
                    self.expand_assignment_value(value)?
                };
                elems.push(ArrayElem {
                    key: Some(key),
                    value,
                    append,
                });
                continue;
            }
            let word = Word {
                value: w.clone(),
                loc: None,
            };
            for f in self.expand_words(std::slice::from_ref(&word))? {
                elems.push(ArrayElem::plain(f));
            }
        }
        Ok(elems)
    }

    /// Whether brace expansion makes more than one word of `word`. The
    /// expansion stops with the run (a product of groups in an element
    /// ran 5 s past its deadline, found by script_fuzz).
    fn brace_splits(&self, word: &str) -> bool {
        let control = &self.control;
        self.opts.get_set_option("braceexpand") != Some(false)
            && word.contains('{')
            && brace_expand_until(word, &|| control.check_fast().is_err()).len() > 1
    }
}

#[cfg(test)]
mod tests {
    use super::keyed_element;

    #[test]
    fn keyed_elements_nest_and_append() {
        assert_eq!(keyed_element("[k]=v"), Some(("k", false, "v")));
        assert_eq!(keyed_element("[a[0]]=10"), Some(("a[0]", false, "10")));
        assert_eq!(keyed_element("[k]+=:34"), Some(("k", true, ":34")));
        assert_eq!(keyed_element("['a]b']=x"), Some(("'a]b'", false, "x")));
        assert_eq!(keyed_element("[k]"), None);
        assert_eq!(keyed_element("x[k]=v"), None);
        assert_eq!(keyed_element("[k]x=v"), None);
    }
}
