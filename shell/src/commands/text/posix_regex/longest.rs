//! POSIX leftmost-longest matching on top of the leftmost-first `regex` crate.
//!
//! POSIX (and GNU grep, sed, awk) report, among the matches starting at the
//! leftmost possible position, the longest one: `a|ab` matches all of `ab`.
//! The `regex` crate prefers the first alternative instead. The leftmost
//! start is the same under both rules, so the fast engine still finds it;
//! this module then runs an anchored search from that start with
//! [`MatchKind::All`], which ignores match priority and reports the last
//! (longest) end. Captures come from the same anchored search: the
//! highest-priority path that reaches that end.
//!
//! The extra search only runs for patterns where the two rules can disagree
//! ([`may_differ`]): alternation, or a repetition of something longer than
//! one byte (`a*(ab)?` on `aab`). A pattern built only from literals,
//! classes, anchors and repeated single bytes matches the same under both.

use std::sync::OnceLock;

use regex_automata::meta::{self, Regex as MetaRegex};
use regex_automata::util::captures::Captures as MetaCaptures;
use regex_automata::util::syntax;
use regex_automata::{Anchored, Input, MatchKind};

use super::parse::Node;
use super::{Captures, Flavor, RegexOptions};

/// True when leftmost-first and leftmost-longest can pick different ends for
/// a match of `node` (false positives only cost time).
pub fn may_differ(node: &Node) -> bool {
    match node {
        Node::Alt(v) => v.len() > 1 || v.iter().any(may_differ),
        Node::Group(n, _) => may_differ(n),
        Node::Concat(v) => v.iter().any(may_differ),
        Node::Repeat(n, _, _) => !single_byte(n),
        _ => false,
    }
}

/// True when `node` always matches exactly one byte.
fn single_byte(node: &Node) -> bool {
    match node {
        Node::Lit(_) | Node::Any | Node::Class(_) => true,
        Node::Group(n, None) => single_byte(n),
        Node::Concat(v) if v.len() == 1 => single_byte(&v[0]),
        _ => false,
    }
}

/// A [`Longest`] compiled on first use: grep without `-o` only needs to know
/// that a line matches, and should not pay for a second compilation (which
/// matters for `grep -f` with thousands of patterns).
#[derive(Clone, Debug)]
pub struct LazyLongest {
    src: String,
    opts: RegexOptions,
    built: OnceLock<Option<Longest>>,
}

impl LazyLongest {
    /// Remembers `src` (the `regex`-crate translation) for later compilation.
    pub fn new(src: String, opts: RegexOptions) -> LazyLongest {
        LazyLongest {
            src,
            opts,
            built: OnceLock::new(),
        }
    }

    /// The engine; `None` if it does not compile, in which case callers keep
    /// the leftmost-first match (the fast engine accepted the same source, so
    /// only a size limit could get here).
    pub fn get(&self) -> Option<&Longest> {
        self.built
            .get_or_init(|| Longest::new(&self.src, self.opts).ok())
            .as_ref()
    }
}

/// The anchored longest-match engine for one pattern.
#[derive(Clone, Debug)]
pub struct Longest {
    re: MetaRegex,
}

impl Longest {
    /// Compiles `src` (the `regex`-crate translation of the pattern) with the
    /// same syntax options as the fast engine, but all-match semantics.
    pub fn new(src: &str, opts: RegexOptions) -> Result<Longest, String> {
        let grep = opts.flavor == Flavor::Grep;
        let syn = syntax::Config::new()
            .unicode(false)
            .utf8(false)
            .case_insensitive(opts.icase)
            .multi_line(grep || opts.multiline)
            .line_terminator(if grep { opts.eol() } else { b'\n' });
        let cfg = meta::Config::new()
            .match_kind(MatchKind::All)
            .utf8_empty(false)
            .nfa_size_limit(Some(64 << 20))
            .hybrid_cache_capacity(16 << 20);
        let re = meta::Builder::new()
            .syntax(syn)
            .configure(cfg)
            .build(src)
            .map_err(|e| match e.size_limit() {
                Some(_) => "Regular expression too big".to_string(),
                None => format!("internal regex error: {e}"),
            })?;
        Ok(Longest { re })
    }

    fn input<'h>(hay: &'h [u8], start: usize) -> Input<'h> {
        Input::new(hay).range(start..).anchored(Anchored::Yes)
    }

    /// The end of the longest match starting exactly at `start`.
    pub fn end_from(&self, hay: &[u8], start: usize) -> Option<usize> {
        self.re
            .search_half(&Self::input(hay, start))
            .map(|m| m.offset())
    }

    /// Storage for [`Longest::captures_from`].
    pub fn new_captures(&self) -> MetaCaptures {
        self.re.create_captures()
    }

    /// Fills `out` with the longest match starting at `start` and its groups.
    pub fn captures_from(
        &self,
        hay: &[u8],
        start: usize,
        scratch: &mut MetaCaptures,
        out: &mut Captures,
    ) -> bool {
        self.re.search_captures(&Self::input(hay, start), scratch);
        if !scratch.is_match() {
            return false;
        }
        out.clear();
        for i in 0..scratch.group_len() {
            out.push(scratch.get_group(i).map(|s| (s.start, s.end)));
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Regex, Syntax, emit, parse};
    use super::*;

    fn ere(p: &str) -> Regex {
        let opts = RegexOptions {
            syntax: Syntax::Extended,
            flavor: Flavor::Sed,
            ..Default::default()
        };
        Regex::new(p.as_bytes(), opts).unwrap()
    }

    fn find(p: &str, h: &str) -> Option<(usize, usize)> {
        ere(p).find_at(h.as_bytes(), 0)
    }

    fn caps(p: &str, h: &str) -> Vec<Option<(usize, usize)>> {
        let re = ere(p);
        let mut slots = re.capture_slots();
        assert!(re.captures_at(h.as_bytes(), 0, &mut slots));
        slots.caps
    }

    // Expected values are what GNU sed 4.9 / grep 3.8 report here.
    #[test]
    fn longest_alternative_wins() {
        assert_eq!(find("a|ab|abc", "abcd"), Some((0, 3)));
        assert_eq!(find("x|xy|xyz", "wxyz"), Some((1, 4)));
        assert_eq!(find("([^,]+)|(\"[^\"]+\")", "\"b,c\""), Some((0, 5)));
        assert_eq!(find("b|bcd", "abcd"), Some((1, 4)));
        assert_eq!(find("a*(ab)?", "aab"), Some((0, 3)));
    }

    #[test]
    fn groups_follow_the_longest_match() {
        let c = caps("(a|ab)(c|bcd)", "abcd");
        assert_eq!(c, vec![Some((0, 4)), Some((0, 1)), Some((1, 4))]);
        let c = caps("([^,]+)|(\"[^\"]+\")", "\"b,c\"");
        assert_eq!(c, vec![Some((0, 5)), None, Some((0, 5))]);
        // GNU: `s/(a|ab)(b*)/[\1|\2]/` on abab gives `[a|b]ab`.
        let c = caps("(a|ab)(b*)", "abab");
        assert_eq!(c, vec![Some((0, 2)), Some((0, 1)), Some((1, 2))]);
        // GNU: `s/(a|aa)*/[\1]/` on aaa gives `[a]`.
        let c = caps("(a|aa)*", "aaa");
        assert_eq!(c, vec![Some((0, 3)), Some((2, 3))]);
    }

    #[test]
    fn backreferences_take_the_longest_too() {
        assert_eq!(find("(a|ab)\\1", "ababaa"), Some((0, 4)));
        assert_eq!(find("(a|ab)(\\1)*", "ababx"), Some((0, 4)));
    }

    #[test]
    fn context_outside_the_match_still_counts() {
        let opts = RegexOptions {
            syntax: Syntax::Extended,
            ..Default::default()
        };
        let re = Regex::new(b"(foo|foobar)$", opts).unwrap();
        assert_eq!(re.find_at(b"foobar\nx", 0), Some((0, 6)));
        let re = Regex::new(b"\\<(ab|abc)\\>", opts).unwrap();
        assert_eq!(re.find_at(b"abc abcd", 0), Some((0, 3)));
        assert_eq!(re.find_at(b"abcd ab", 0), Some((5, 7)));
    }

    #[test]
    fn start_only_search_agrees() {
        for (p, h) in [
            ("a|ab", "xxabc"),
            ("(a|ab)\\1", "abaabab"),
            ("q|r", "abc"),
            ("b*", "abc"),
        ] {
            let re = ere(p);
            let h = h.as_bytes();
            assert_eq!(re.find_start_at(h, 1), re.find_at(h, 1).map(|m| m.0), "{p}");
        }
    }

    /// A tiny deterministic generator (xorshift), enough to vary patterns.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }
    }

    /// Patterns [`may_differ`] calls safe really match the same under
    /// leftmost-first as under leftmost-longest.
    #[test]
    fn safe_patterns_agree_with_longest() {
        let atoms = ["a", "b", "[ab]", ".", "\\b", "\\B", "^", "$", "\\<", "\\>"];
        let reps = ["", "", "*", "+", "?", "{2}", "{1,2}", "{0,3}"];
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let opts = RegexOptions {
            syntax: Syntax::Extended,
            flavor: Flavor::Sed,
            ..Default::default()
        };
        let mut checked = 0;
        for _ in 0..3000 {
            let mut p = String::new();
            for _ in 0..1 + rng.next(5) {
                let a = atoms[rng.next(atoms.len())];
                p.push_str(a);
                if a.len() <= 4 && !a.starts_with('\\') && a != "^" && a != "$" {
                    p.push_str(reps[rng.next(reps.len())]);
                }
            }
            let Ok(parsed) = parse::parse(p.as_bytes(), opts.syntax, opts.flavor, b'\n') else {
                continue;
            };
            if may_differ(&parsed.node) {
                continue;
            }
            let re = Regex::new(p.as_bytes(), opts).unwrap();
            let long = Longest::new(&emit::emit(&parsed.node, opts), opts).unwrap();
            for _ in 0..8 {
                let h: Vec<u8> = (0..rng.next(7)).map(|_| b"ab b"[rng.next(4)]).collect();
                if let Some((s, e)) = re.find_at(&h, 0) {
                    assert_eq!(long.end_from(&h, s), Some(e), "{p} on {h:?}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 1000, "only {checked} matches checked");
    }
}
