//! jq's destructuring alternatives, `E as P1 ?// P2 | body`, which jaq's
//! parser does not know: the source is rewritten, before parsing, into
//!
//! ```text
//! E as $__sk_aN | null as $x | ... | try ($__sk_aN as P1 | body)
//!     catch ($__sk_aN as P2 | body)
//! ```
//!
//! with every variable of every pattern bound (to null when its pattern
//! did not match). As in jq, an error in an alternative's binding or body
//! moves on to the next alternative, and the last one's error propagates.
//!
//! The other rewrites of the text before jaq parses it live here too, on
//! the same tokens: numbers with a leading point (`.5`) and variable keys
//! of object patterns (`. as {$b: [$c]}`).

/// What a token of jq source is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Kind {
    /// A keyword or a name, `$name` included.
    Word,
    /// `?//`.
    Alt,
    /// `(`, `[` or `{`.
    Open,
    /// `)`, `]` or `}`.
    Close,
    /// `|` alone (not `|=`).
    Pipe,
    /// `;`.
    Semi,
    /// Anything else: strings, numbers, other operators.
    Other,
}

/// The tokens of `code`, as (start, end, kind).
pub(super) fn tokens(code: &str) -> Vec<(usize, usize, Kind)> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let start = i;
        let kind = match c {
            b' ' | b'\t' | b'\n' | b'\r' => {
                i += 1;
                continue;
            }
            b'#' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'"' => {
                i = skip_string(b, i);
                Kind::Other
            }
            b'?' if b[i..].starts_with(b"?//") => {
                i += 3;
                Kind::Alt
            }
            b'|' if b.get(i + 1) != Some(&b'=') => {
                i += 1;
                Kind::Pipe
            }
            b'(' | b'[' | b'{' => {
                i += 1;
                Kind::Open
            }
            b')' | b']' | b'}' => {
                i += 1;
                Kind::Close
            }
            b';' => {
                i += 1;
                Kind::Semi
            }
            c if c == b'$' || c == b'_' || c.is_ascii_alphabetic() => {
                i += 1;
                while i < b.len() && (b[i] == b'_' || b[i].is_ascii_alphanumeric()) {
                    i += 1;
                }
                Kind::Word
            }
            _ => {
                i += 1;
                if c == b'|' {
                    i += 1; // `|=`
                }
                // A whole char: tokens are sliced out of the text (`é`).
                while !code.is_char_boundary(i) {
                    i += 1;
                }
                Kind::Other
            }
        };
        out.push((start, i, kind));
    }
    out
}

/// The end of the string literal starting at `b[i]` (a `"`), interpolations
/// `\(...)` (which may hold strings) included.
fn skip_string(b: &[u8], mut i: usize) -> usize {
    i += 1;
    while i < b.len() {
        match b[i] {
            b'"' => return i + 1,
            b'\\' if b.get(i + 1) == Some(&b'(') => {
                i += 2;
                let mut depth = 1;
                while i < b.len() && depth > 0 {
                    match b[i] {
                        b'"' => {
                            i = skip_string(b, i);
                            continue;
                        }
                        b'(' => depth += 1,
                        b')' => depth -= 1,
                        _ => {}
                    }
                    i += 1;
                }
            }
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
    b.len()
}

/// The compile error jq 1.6 gives for a constant that cannot be where it
/// is, which jaq accepts: a parenthesized number, boolean or null as an
/// object key (`{(0):1}`, `. as {(true):$x}`), and module metadata that is
/// not a constant object (`module (.+1);`, `include "a" [];`).
pub(super) fn constant_errors(code: &str) -> Option<String> {
    let toks = tokens(code);
    let text = |i: usize| toks.get(i).map_or("", |&(s, e, _)| &code[s..e]);
    let mut stack: Vec<&str> = Vec::new();
    let mut found = None;
    for (i, &(_, _, kind)) in toks.iter().enumerate() {
        let t = text(i);
        match kind {
            Kind::Open => {
                let in_object = stack.last() == Some(&"{");
                let key_position =
                    text(i.wrapping_sub(1)) == "{" || (in_object && text(i.wrapping_sub(1)) == ",");
                if t == "(" && key_position && text(i + 2) == ")" && text(i + 3) == ":" {
                    let k = text(i + 1);
                    let kind = match k {
                        "true" | "false" => Some("boolean"),
                        "null" => Some("null"),
                        k if k.as_bytes().first().is_some_and(u8::is_ascii_digit) => Some("number"),
                        _ => None,
                    };
                    if let Some(kind) = kind {
                        found = Some(format!("Cannot use {kind} ({k}) as object key"));
                        break;
                    }
                }
                stack.push(t);
            }
            Kind::Close => {
                stack.pop();
            }
            Kind::Word if stack.is_empty() && matches!(t, "module" | "import" | "include") => {
                // The metadata follows `module`, or the path (and `as NAME`).
                let mut j = i + 1;
                if t != "module" {
                    j += 1;
                    if text(j) == "as" {
                        j += 2;
                    }
                }
                let meta = text(j);
                if meta == ";" || meta.is_empty() {
                    continue;
                }
                found = Some(
                    if meta == "{" {
                        continue;
                    } else if meta == "["
                        || meta.starts_with('"')
                        || meta.as_bytes()[0].is_ascii_digit()
                    {
                        "Module metadata must be an object"
                    } else {
                        "Module metadata must be constant"
                    }
                    .to_string(),
                );
                break;
            }
            _ => {}
        }
    }
    let what = found?;
    let first_line = code.lines().next().unwrap_or("");
    Some(format!(
        "jq: error: {what} at <top-level>, line 1:\n{first_line}\njq: 1 compile error"
    ))
}

/// `code` with a `0` before each number literal that starts with its
/// decimal point (`.00005`, which jq reads and jaq's lexer does not), or
/// `None` if it has none. A `.` starts a number where a term may start:
/// first, or after an opening bracket, `|`, `;` or an operator.
pub(super) fn leading_dot_numbers(code: &str) -> Option<String> {
    let b = code.as_bytes();
    let toks = tokens(code);
    let mut at = Vec::new();
    for (n, &(s, e, kind)) in toks.iter().enumerate() {
        if kind != Kind::Other
            || e - s != 1
            || b[s] != b'.'
            || !b.get(e).is_some_and(u8::is_ascii_digit)
        {
            continue;
        }
        let starts_term = match n.checked_sub(1).map(|p| toks[p]) {
            None => true,
            Some((ps, pe, pk)) => match pk {
                Kind::Open | Kind::Pipe | Kind::Semi | Kind::Alt => true,
                Kind::Word | Kind::Close => false,
                Kind::Other => {
                    let last = b[pe - 1];
                    pe - ps >= 1 && !last.is_ascii_digit() && !matches!(last, b'.' | b'"' | b'?')
                }
            },
        };
        if starts_term {
            at.push(s);
        }
    }
    if at.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(code.len() + at.len());
    let mut from = 0;
    for s in at {
        out.push_str(&code[from..s]);
        out.push('0');
        from = s;
    }
    out.push_str(&code[from..]);
    Some(out)
}

/// `code` with each `$name: pattern` entry of an object pattern (`. as
/// {$b: [$c, $d]}`, which binds `$b` to `.b` and destructures it too, and
/// which jaq's parser does not know) written `$name, "name": pattern`, or
/// `None` if there is none. Only brackets opened right after `as` or `?//`,
/// and those nested in them, are patterns; an object built with such a key
/// stays the syntax error it is in jq 1.6.
pub(super) fn variable_key_patterns(code: &str) -> Option<String> {
    let b = code.as_bytes();
    let toks = tokens(code);
    // For each open bracket: whether it is (part of) a pattern.
    let mut open: Vec<bool> = Vec::new();
    let mut at = Vec::new();
    for (n, &(s, e, kind)) in toks.iter().enumerate() {
        let prev = n.checked_sub(1).map(|p| toks[p]);
        match kind {
            Kind::Open => {
                let after_as = prev.is_some_and(|(ps, pe, pk)| {
                    pk == Kind::Alt || (pk == Kind::Word && &code[ps..pe] == "as")
                });
                let inside = open.last() == Some(&true) && b[s] != b'(';
                open.push(after_as || inside);
            }
            Kind::Close => {
                open.pop();
            }
            Kind::Word if b[s] == b'$' && open.last() == Some(&true) => {
                let entry_start =
                    prev.is_some_and(|(ps, pe, _)| pe - ps == 1 && matches!(b[ps], b'{' | b','));
                let colon = toks
                    .get(n + 1)
                    .is_some_and(|&(cs, ce, _)| &code[cs..ce] == ":");
                if entry_start && colon {
                    at.push((s, e));
                }
            }
            _ => {}
        }
    }
    if at.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(code.len() + at.len() * 8);
    let mut from = 0;
    for (s, e) in at {
        out.push_str(&code[from..e]);
        out.push_str(&format!(", \"{}\"", &code[s + 1..e]));
        from = e;
    }
    out.push_str(&code[from..]);
    Some(out)
}

/// `code` with every `?//` alternative rewritten, or `None` if it has none
/// (or one this does not understand, left for the parser to reject).
pub(super) fn rewrite(code: &str) -> Option<String> {
    if !code.contains("?//") {
        return None;
    }
    let mut code = code.to_string();
    // The last alternative first: its body may sit inside an earlier one's.
    for n in 0..32 {
        let toks = tokens(&code);
        let Some(last_alt) = toks.iter().rposition(|t| t.2 == Kind::Alt) else {
            return Some(code);
        };
        let word = |i: usize, w: &str| toks[i].2 == Kind::Word && &code[toks[i].0..toks[i].1] == w;
        let as_at = (0..last_alt).rev().find(|&i| word(i, "as"))?;
        // The patterns: up to the `|` at their own depth.
        let mut depth = 0i32;
        let mut patterns = vec![String::new()];
        let mut vars: Vec<String> = Vec::new();
        let mut i = as_at + 1;
        let mut from = toks.get(i)?.0;
        let pipe = loop {
            let (s, e, k) = *toks.get(i)?;
            match k {
                Kind::Open => depth += 1,
                Kind::Close => depth -= 1,
                Kind::Alt if depth == 0 => {
                    patterns.last_mut()?.push_str(&code[from..s]);
                    patterns.push(String::new());
                    from = e;
                }
                Kind::Pipe if depth == 0 => {
                    patterns.last_mut()?.push_str(&code[from..s]);
                    break i;
                }
                Kind::Word
                    if code[s..e].starts_with('$') && !vars.iter().any(|v| *v == code[s..e]) =>
                {
                    vars.push(code[s..e].to_string());
                }
                _ => {}
            }
            if depth < 0 {
                return None;
            }
            i += 1;
        };
        let body_start = toks.get(pipe + 1)?.0;
        let body_end = body_end(&code, &toks[pipe + 1..]);
        let body = code[body_start..body_end].trim_end();
        let body_end = body_start + body.len();
        let var = format!("$__sk_a{n}");
        let mut alt = format!("{var} | ");
        for v in &vars {
            alt.push_str(&format!("null as {v} | "));
        }
        let last = patterns.len() - 1;
        for (k, p) in patterns.iter().enumerate() {
            let one = format!("({var} as {} | {body})", p.trim());
            if k < last {
                alt.push_str(&format!("try {one} catch ("));
            } else {
                alt.push_str(&one);
            }
        }
        alt.push_str(&")".repeat(last));
        code = format!("{}as {alt}{}", &code[..toks[as_at].0], &code[body_end..]);
    }
    None
}

/// Where the body that starts at `toks[0]` ends: before the first closing
/// bracket, `;`, or `then`/`elif`/`else`/`end` that is not its own.
fn body_end(code: &str, toks: &[(usize, usize, Kind)]) -> usize {
    let (mut depth, mut ifs, mut defs) = (0usize, 0usize, 0usize);
    for &(s, e, k) in toks {
        match k {
            Kind::Open => depth += 1,
            Kind::Close if depth == 0 => return s,
            Kind::Close => depth -= 1,
            Kind::Semi if depth == 0 && defs == 0 => return s,
            Kind::Semi if depth == 0 => defs -= 1,
            Kind::Word if depth == 0 => match &code[s..e] {
                "if" => ifs += 1,
                "def" => defs += 1,
                "end" if ifs == 0 => return s,
                "end" => ifs -= 1,
                "then" | "elif" | "else" if ifs == 0 => return s,
                _ => {}
            },
            _ => {}
        }
    }
    code.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_constant_keys_and_bad_module_metadata() {
        for code in [
            "{(0):1}",
            "{non_const:., (0):1}",
            ". as {(true):$foo} | $foo",
            "module (.+1); 0",
            "include \"a\" (.+1); 0",
            "include \"a\" []; 0",
        ] {
            assert!(constant_errors(code).is_some(), "{code}");
        }
        for code in [
            "{(\"a\"):1}",
            "[(0)]",
            "{a:(1)}",
            "import \"a\" as x {search:\"./\"}; 0",
            "f((0):1)",
        ] {
            assert_eq!(constant_errors(code), None, "{code}");
        }
    }

    #[test]
    fn spells_out_variable_keys_of_object_patterns() {
        assert_eq!(
            variable_key_patterns(". as {$a, $b:[$c, $d]} | $b").as_deref(),
            Some(". as {$a, $b, \"b\":[$c, $d]} | $b")
        );
        assert_eq!(variable_key_patterns("{$b: 1}"), None);
    }

    #[test]
    fn reads_numbers_with_a_leading_point() {
        assert_eq!(
            leading_dot_numbers("select(.>.00005)").as_deref(),
            Some("select(.>0.00005)")
        );
        assert_eq!(
            leading_dot_numbers(".5, [.25]").as_deref(),
            Some("0.5, [0.25]")
        );
        assert_eq!(leading_dot_numbers(".a | 1.5 | .[0]"), None);
    }

    #[test]
    fn rewrites_alternatives_into_try() {
        assert_eq!(rewrite(". as [$a] | $a"), None);
        assert_eq!(
            rewrite(".[] as [$a] ?// $a | $a").as_deref(),
            Some(
                ".[] as $__sk_a0 | null as $a | try ($__sk_a0 as [$a] | $a) catch (($__sk_a0 as $a | $a))"
            )
        );
        let s = rewrite("[.[] as [$a] ?// {b: $b} ?// $c | [$a, $b]], 1").unwrap();
        assert!(s.ends_with("[$a, $b])))], 1"), "{s}");
        assert!(s.contains("null as $c |"), "{s}");
    }

    #[test]
    fn bodies_end_where_their_term_does() {
        let s = rewrite("if . then . as [$a] ?// $a | $a else 0 end").unwrap();
        assert!(s.ends_with("| $a)) else 0 end"), "{s}");
        let s = rewrite(r#"f(. as [$a] ?// $a | "\($a)"; 2)"#).unwrap();
        assert!(s.ends_with(r#"| "\($a)")); 2)"#), "{s}");
    }
}
