//! Member-name rules shared by creating and reading archives: GNU tar's
//! `--exclude` matching and its "safer name" rewriting of absolute and `..`
//! names.

/// GNU tar's default matching for `--exclude` patterns: wildcards that also
/// match `/`, not anchored (the pattern may match after any `/` in the name),
/// and matching a leading directory (`dir` excludes `dir/file`).
///
/// ```text
/// --exclude=x        excludes ./x, ./a/x and everything below them
/// --exclude=./x      excludes ./x only
/// --exclude='*.log'  excludes ./top.log and ./b/c.log
/// ```
#[derive(Clone, Debug, Default)]
pub(crate) struct Excludes {
    patterns: Vec<Vec<u8>>,
}

impl Excludes {
    /// Adds a pattern.
    pub(crate) fn add(&mut self, pattern: &str) {
        self.patterns.push(pattern.as_bytes().to_vec());
    }

    /// True when `name` (a member name; trailing slashes are ignored) is excluded.
    pub(crate) fn matches(&self, name: &str) -> bool {
        if self.patterns.is_empty() {
            return false;
        }
        let mut name = name.as_bytes();
        while name.len() > 1 && name.ends_with(b"/") {
            name = &name[..name.len() - 1];
        }
        self.patterns.iter().any(|p| unanchored_match(p, name))
    }
}

/// Matches `pattern` against `name` and against every part of `name` that
/// follows a `/` (gnulib's `exclude_fnmatch` without `EXCLUDE_ANCHORED`).
fn unanchored_match(pattern: &[u8], name: &[u8]) -> bool {
    if leading_dir_match(pattern, name) {
        return true;
    }
    (0..name.len()).any(|i| {
        name[i] == b'/'
            && name.get(i + 1).is_some_and(|&c| c != b'/')
            && leading_dir_match(pattern, &name[i + 1..])
    })
}

/// `fnmatch` with `FNM_LEADING_DIR`: the pattern may match the whole string
/// or any prefix of it that ends just before a `/`.
fn leading_dir_match(pattern: &[u8], s: &[u8]) -> bool {
    if fnmatch(pattern, s) {
        return true;
    }
    (0..s.len()).any(|i| s[i] == b'/' && fnmatch(pattern, &s[..i]))
}

/// Shell wildcard matching where `*` and `?` also match `/` and a leading
/// `.` is not special (no `FNM_PATHNAME`, no `FNM_PERIOD`).
pub(crate) fn fnmatch(p: &[u8], s: &[u8]) -> bool {
    // Iterative matcher with single-star backtracking: linear for the
    // patterns tar sees, no recursion.
    let (mut pi, mut si) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        if pi < p.len() {
            match p[pi] {
                b'*' => {
                    star = Some((pi, si));
                    pi += 1;
                    continue;
                }
                b'?' => {
                    pi += 1;
                    si += 1;
                    continue;
                }
                b'[' => {
                    if let Some((ok, next)) = bracket(&p[pi..], s[si]) {
                        if ok {
                            pi += next;
                            si += 1;
                            continue;
                        }
                    } else if s[si] == b'[' {
                        // An unterminated bracket is a literal `[`.
                        pi += 1;
                        si += 1;
                        continue;
                    }
                }
                b'\\' if pi + 1 < p.len() && p[pi + 1] == s[si] => {
                    pi += 2;
                    si += 1;
                    continue;
                }
                // An escaped byte that differs: no match here.
                b'\\' if pi + 1 < p.len() => {}
                c if c == s[si] => {
                    pi += 1;
                    si += 1;
                    continue;
                }
                _ => {}
            }
        }
        match star {
            Some((sp, ss)) => {
                pi = sp + 1;
                si = ss + 1;
                star = Some((sp, ss + 1));
            }
            None => return false,
        }
    }
    p[pi..].iter().all(|&c| c == b'*')
}

/// Matches one byte against a bracket expression at the start of `p`.
/// Returns whether it matched and the bracket's length, or `None` when the
/// bracket is not terminated.
fn bracket(p: &[u8], c: u8) -> Option<(bool, usize)> {
    let mut i = 1;
    let negate = matches!(p.get(i), Some(b'!') | Some(b'^'));
    if negate {
        i += 1;
    }
    let mut matched = false;
    let mut first = true;
    loop {
        let &b = p.get(i)?;
        if b == b']' && !first {
            return Some((matched != negate, i + 1));
        }
        first = false;
        if b == b'[' && p.get(i + 1) == Some(&b':') {
            let end = p[i + 2..].windows(2).position(|w| w == b":]")? + i + 2;
            let class = &p[i + 2..end];
            matched |= match class {
                b"alpha" => c.is_ascii_alphabetic(),
                b"digit" => c.is_ascii_digit(),
                b"alnum" => c.is_ascii_alphanumeric(),
                b"upper" => c.is_ascii_uppercase(),
                b"lower" => c.is_ascii_lowercase(),
                b"space" => c.is_ascii_whitespace(),
                b"punct" => c.is_ascii_punctuation(),
                b"xdigit" => c.is_ascii_hexdigit(),
                _ => false,
            };
            i = end + 2;
            continue;
        }
        let lo = if b == b'\\' && i + 1 < p.len() {
            i += 1;
            p[i]
        } else {
            b
        };
        if p.get(i + 1) == Some(&b'-') && p.get(i + 2).is_some_and(|&h| h != b']') {
            let hi = p[i + 2];
            matched |= lo <= c && c <= hi;
            i += 3;
        } else {
            matched |= lo == c;
            i += 1;
        }
    }
}

/// GNU tar's `safer_name_suffix`: the leading part of `name` that must be
/// removed so that it can't name something outside the working directory
/// (leading slashes, and everything up to the last `..` component), and the
/// rest. The prefix is empty when the name is already safe.
pub(crate) fn split_unsafe_prefix(name: &str) -> (&str, &str) {
    let b = name.as_bytes();
    let mut prefix_len = 0;
    let mut i = 0;
    while i < b.len() {
        let end = b[i..]
            .iter()
            .position(|&c| c == b'/')
            .map_or(b.len(), |p| i + p);
        if &b[i..end] == b".." {
            prefix_len = end;
        }
        i = end + 1;
    }
    // Slashes right after the prefix (or leading ones) belong to it too.
    while prefix_len < b.len() && b[prefix_len] == b'/' {
        prefix_len += 1;
    }
    (&name[..prefix_len], &name[prefix_len..])
}

/// True when a component of `name` is `..`.
pub(crate) fn has_dot_dot(name: &str) -> bool {
    name.split('/').any(|c| c == "..")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ex(p: &str, name: &str) -> bool {
        let mut e = Excludes::default();
        e.add(p);
        e.matches(name)
    }

    #[test]
    fn gnu_exclude_rules() {
        // measured with GNU tar 1.34 on `tar c -C src .`
        assert!(ex("./x", "./x"));
        assert!(!ex("./x", "./a/x"));
        assert!(ex("x", "./x") && ex("x", "./a/x") && ex("x", "./x/f"));
        assert!(ex("*.log", "./top.log") && ex("*.log", "./b/c.log"));
        assert!(ex("a", "./a") && ex("a", "./a/x/g"));
        assert!(ex("a/x", "./a/x") && !ex("a/x", "./x"));
        assert!(ex("x/*", "./x/f") && ex("x/*", "./a/x/g") && !ex("x/*", "./x"));
        assert!(ex("mindlog.jsonl", "./a/mindlog.jsonl"));
        assert!(ex("./mindlog.jsonl", "./mindlog.jsonl"));
        assert!(!ex("./mindlog.jsonl", "./a/mindlog.jsonl"));
        assert!(ex("*x", "./a/x") && !ex("*x", "./b"));
        assert!(ex("./*", "./b") && !ex("./*", "."));
        assert!(!ex("a/", "./a"));
        assert!(!ex("src", "./a"));
        assert!(ex("?", "."));
        assert!(ex(".", "./b/c.log"));
        assert!(ex("a*", "./a/mindlog.jsonl"));
        assert!(ex("*.hidden", "./.hidden"));
        assert!(
            ex("[ab]", "./b")
                && !ex("[!ab]", "b")
                && ex("[!ab]", "./b")
                && ex("[a-c]", "./b/c.log")
        );
    }

    #[test]
    fn fnmatch_basics() {
        assert!(fnmatch(b"*", b""));
        assert!(fnmatch(b"a*b*c", b"aXbYbc"));
        assert!(!fnmatch(b"a*b*c", b"aXbYbd"));
        assert!(fnmatch(b"\\*", b"*") && !fnmatch(b"\\*", b"x"));
        assert!(fnmatch(b"[[:digit:]]x", b"5x"));
        assert!(fnmatch(b"[", b"["));
    }

    #[test]
    fn safer_names_like_gnu() {
        assert_eq!(split_unsafe_prefix("../evil"), ("../", "evil"));
        assert_eq!(split_unsafe_prefix("/abs/x"), ("/", "abs/x"));
        assert_eq!(split_unsafe_prefix("a/../../b"), ("a/../../", "b"));
        assert_eq!(split_unsafe_prefix("x/../y"), ("x/../", "y"));
        assert_eq!(split_unsafe_prefix("./../z"), ("./../", "z"));
        assert_eq!(split_unsafe_prefix(".."), ("..", ""));
        assert_eq!(split_unsafe_prefix("//dbl/q"), ("//", "dbl/q"));
        assert_eq!(split_unsafe_prefix("a..b"), ("", "a..b"));
        assert_eq!(split_unsafe_prefix("./ok/x"), ("", "./ok/x"));
        assert_eq!(split_unsafe_prefix("a//b"), ("", "a//b"));
        assert!(has_dot_dot("a/../b") && has_dot_dot("..") && !has_dot_dot("a..b/..c"));
    }
}
