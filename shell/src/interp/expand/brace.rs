//! Brace expansion on the raw word text, before every other expansion:
//! `a{b,c}d`, `{1..10}`, `{01..10..2}`, `{a..e}`, nested braces. Quoted text,
//! `${...}` and `$(...)` are never brace-expanded. A brace group without a
//! top-level comma or a valid sequence stays literal.

/// Brace-expands a word (raw text, quotes kept; always at least one word),
/// giving up (with the words so far) once `stop` says so: a product of groups (`{1..1000}{1..1000}{1..1000}`) is a billion
/// words, which a cancelled run must not wait for.
pub fn brace_expand_until(word: &str, stop: &dyn Fn() -> bool) -> Vec<String> {
    let b = word.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'\'' => i = skip_single(b, i),
            b'"' => i = skip_double(b, i),
            b'$' if matches!(b.get(i + 1), Some(b'{') | Some(b'(')) => {
                i = skip_group(b, i + 1);
            }
            b'`' => i = skip_backquote(b, i),
            b'{' => {
                if let Some(close) = find_close(b, i) {
                    let inner = &word[i + 1..close];
                    if let Some(alts) = alternatives(inner) {
                        let prefix = &word[..i];
                        let suffixes = brace_expand_until(&word[close + 1..], stop);
                        let mut out = Vec::new();
                        let account = crate::alloc::current();
                        for alt in alts {
                            for a in brace_expand_until(&alt, stop) {
                                for s in &suffixes {
                                    out.push(format!("{prefix}{a}{s}"));
                                    // A product of groups can outgrow
                                    // memory and time: stop once the run's
                                    // budget is spent or the run is
                                    // cancelled (the run then ends with that
                                    // limit). Checked per word: one `a`
                                    // times all suffixes can be millions.
                                    if account.as_ref().is_some_and(|a| a.exceeded()) || stop() {
                                        return out;
                                    }
                                }
                            }
                        }
                        return out;
                    }
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    vec![word.to_string()]
}

fn skip_single(b: &[u8], i: usize) -> usize {
    let mut j = i + 1;
    while j < b.len() && b[j] != b'\'' {
        j += 1;
    }
    j + 1
}

fn skip_double(b: &[u8], i: usize) -> usize {
    let mut j = i + 1;
    while j < b.len() && b[j] != b'"' {
        if b[j] == b'\\' {
            j += 1;
        }
        j += 1;
    }
    j + 1
}

fn skip_backquote(b: &[u8], i: usize) -> usize {
    let mut j = i + 1;
    while j < b.len() && b[j] != b'`' {
        if b[j] == b'\\' {
            j += 1;
        }
        j += 1;
    }
    j + 1
}

/// Skips a `{...}` or `(...)` group starting at `i` (nesting and quotes aware).
fn skip_group(b: &[u8], i: usize) -> usize {
    let (open, close) = if b[i] == b'{' {
        (b'{', b'}')
    } else {
        (b'(', b')')
    };
    let mut depth = 0;
    let mut j = i;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 1,
            b'\'' => {
                j = skip_single(b, j);
                continue;
            }
            b'"' => {
                j = skip_double(b, j);
                continue;
            }
            c if c == open => depth += 1,
            c if c == close => {
                depth -= 1;
                if depth == 0 {
                    return j + 1;
                }
            }
            _ => {}
        }
        j += 1;
    }
    b.len()
}

/// The index of the `}` matching the `{` at `i`.
fn find_close(b: &[u8], i: usize) -> Option<usize> {
    let mut depth = 0;
    let mut j = i;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 1,
            b'\'' => {
                j = skip_single(b, j);
                continue;
            }
            b'"' => {
                j = skip_double(b, j);
                continue;
            }
            b'$' if matches!(b.get(j + 1), Some(b'{') | Some(b'(')) => {
                j = skip_group(b, j + 1);
                continue;
            }
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(j);
                }
            }
            _ => {}
        }
        j += 1;
    }
    None
}

/// The alternatives of a brace group's inner text: split at top-level
/// commas, or a sequence. `None` when the group is not an expansion.
fn alternatives(inner: &str) -> Option<Vec<String>> {
    let b = inner.as_bytes();
    let mut parts = Vec::new();
    let mut depth = 0;
    let mut start = 0;
    let mut j = 0;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 1,
            b'\'' => {
                j = skip_single(b, j);
                continue;
            }
            b'"' => {
                j = skip_double(b, j);
                continue;
            }
            b'$' if matches!(b.get(j + 1), Some(b'{') | Some(b'(')) => {
                j = skip_group(b, j + 1);
                continue;
            }
            b'{' => depth += 1,
            b'}' => depth -= 1,
            b',' if depth == 0 => {
                parts.push(inner[start..j].to_string());
                start = j + 1;
            }
            _ => {}
        }
        j += 1;
    }
    if !parts.is_empty() {
        parts.push(inner[start.min(inner.len())..].to_string());
        return Some(parts);
    }
    sequence(inner)
}

/// `a..b` or `a..b..step` (integers, or single letters).
fn sequence(inner: &str) -> Option<Vec<String>> {
    let parts: Vec<&str> = inner.split("..").collect();
    if parts.len() != 2 && parts.len() != 3 {
        return None;
    }
    let step: i64 = match parts.get(2) {
        Some(s) => parse_int(s)?,
        None => 1,
    };
    if let (Some(a), Some(b)) = (parse_int(parts[0]), parse_int(parts[1])) {
        let width = if has_leading_zero(parts[0]) || has_leading_zero(parts[1]) {
            parts[0].len().max(parts[1].len())
        } else {
            0
        };
        let step = if step == 0 {
            1
        } else {
            step.unsigned_abs() as i64
        };
        // The words cost memory, not a fixed cap: ask the run's budget for
        // them first, so `{1..5000000}` expands when it fits and otherwise
        // ends the run with the memory limit (never silently stays literal).
        let count = (a.abs_diff(b) / step as u64).saturating_add(1);
        let bytes = count.saturating_mul(std::mem::size_of::<String>() as u64 + 16);
        if let Some(account) = crate::alloc::current()
            && !account.reserve(bytes)
        {
            return None;
        }
        let mut out = Vec::new();
        let mut v = a;
        loop {
            out.push(pad(v, width));
            if a <= b {
                v = v.checked_add(step)?;
                if v > b {
                    break;
                }
            } else {
                v = v.checked_sub(step)?;
                if v < b {
                    break;
                }
            }
        }
        return Some(out);
    }
    let ca = single_letter(parts[0])?;
    let cb = single_letter(parts[1])?;
    let step = if step == 0 {
        1
    } else {
        step.unsigned_abs() as u32
    };
    let (a, b) = (ca as u32, cb as u32);
    let mut out = Vec::new();
    let mut v = a;
    loop {
        out.push(char::from_u32(v)?.to_string());
        if a <= b {
            v += step;
            if v > b {
                break;
            }
        } else {
            if v < step || v - step < b {
                break;
            }
            v -= step;
        }
    }
    Some(out)
}

fn parse_int(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['-', '+']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

fn has_leading_zero(s: &str) -> bool {
    let d = s.strip_prefix(['-', '+']).unwrap_or(s);
    d.len() > 1 && d.starts_with('0')
}

fn pad(v: i64, width: usize) -> String {
    if width == 0 {
        return v.to_string();
    }
    if v < 0 {
        format!("-{:0>w$}", v.unsigned_abs(), w = width.saturating_sub(1))
    } else {
        format!("{v:0>width$}")
    }
}

fn single_letter(s: &str) -> Option<char> {
    let mut it = s.chars();
    let c = it.next()?;
    (it.next().is_none() && c.is_ascii_alphabetic()).then_some(c)
}

#[cfg(test)]
mod tests {
    use super::brace_expand_until;

    fn brace_expand(word: &str) -> Vec<String> {
        brace_expand_until(word, &|| false)
    }

    fn e(w: &str) -> String {
        brace_expand(w).join(" ")
    }

    #[test]
    fn lists_and_sequences_match_bash() {
        assert_eq!(e("{01..3}"), "01 02 03");
        assert_eq!(e("{a..e..2}"), "a c e");
        assert_eq!(e("{5..1}"), "5 4 3 2 1");
        assert_eq!(e("{1..10..-3}"), "1 4 7 10");
        assert_eq!(e("{a,b}{1,2}"), "a1 a2 b1 b2");
        assert_eq!(e("x{,a}y"), "xy xay");
        assert_eq!(e("{a}"), "{a}");
        assert_eq!(e("a{,}b"), "ab ab");
        assert_eq!(e("{a,b"), "{a,b");
        assert_eq!(e("{-1..02}"), "-1 00 01 02");
        assert_eq!(e("\"{a,b}\""), "\"{a,b}\"");
        assert_eq!(e("{a,{b,c}}"), "a b c");
        assert_eq!(e("{x..1}"), "{x..1}");
        assert_eq!(e("${x},{a,b}"), "${x},a ${x},b");
        assert_eq!(e("{ab,c}d{}e"), "abd{}e cd{}e");
    }
}
