//! A backtracking matcher over the POSIX syntax tree, used only for
//! patterns with back-references (`\(.\)\1`), which the `regex` crate does
//! not support. Leftmost; greedy, or longest when the pattern can tell the
//! two apart (every path from the leftmost start is explored and the longest
//! end kept, POSIX's rule). A step budget bounds pathological patterns (a
//! search that exhausts it reports what it found so far, or no match, rather
//! than running away).

use super::parse::{Node, is_wide};
use super::{Captures, Flavor, RegexOptions};

/// Steps one search may take before it gives up.
const BUDGET: u64 = 20_000_000;

/// A pattern ready for backtracking.
#[derive(Clone, Debug)]
pub struct Prog {
    node: Node,
    groups: usize,
    icase: bool,
    multiline: bool,
    grep: bool,
    /// bash's dialect: `.` and wide classes match whole UTF-8 characters.
    utf8: bool,
    eol: u8,
    /// Explore every path for the longest match instead of taking the first.
    longest: bool,
}

struct Run<'h> {
    h: &'h [u8],
    steps: u64,
    p: &'h Prog,
}

type Cont<'k> = &'k mut dyn FnMut(&mut Run<'_>, usize, &mut Captures) -> bool;

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The length of the valid UTF-8 character at `h[pos..]`, if there is one.
fn char_len(h: &[u8], pos: usize) -> Option<usize> {
    let n = match h[pos] {
        0x00..=0x7F => 1,
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => return None,
    };
    std::str::from_utf8(h.get(pos..pos + n)?).ok().map(|_| n)
}

impl Prog {
    /// Prepares `node` (with `groups` capture groups) for matching; `longest`
    /// asks for POSIX's longest match rather than the first greedy one.
    pub fn new(node: Node, groups: usize, opts: RegexOptions, longest: bool) -> Prog {
        Prog {
            node,
            groups,
            icase: opts.icase,
            multiline: opts.multiline || opts.flavor == Flavor::Grep,
            grep: opts.flavor == Flavor::Grep,
            utf8: opts.flavor == Flavor::Bash,
            eol: if opts.flavor == Flavor::Grep {
                opts.eol()
            } else {
                b'\n'
            },
            longest,
        }
    }

    /// Searches from `start`; on success `caps` holds the match and groups.
    pub fn search(&self, h: &[u8], start: usize, caps: &mut Captures) -> bool {
        self.search_with(h, start, caps, self.longest)
    }

    /// Like [`Prog::search`], but takes the first greedy match unless
    /// `longest`: enough when only the match's start or existence matters.
    pub fn search_with(&self, h: &[u8], start: usize, caps: &mut Captures, longest: bool) -> bool {
        let mut run = Run {
            h,
            steps: 0,
            p: self,
        };
        for s in start..=h.len() {
            caps.clear();
            caps.resize(self.groups + 1, None);
            let mut best: Option<Captures> = None;
            let mut done = |_: &mut Run<'_>, e: usize, c: &mut Captures| {
                c[0] = Some((s, e));
                if !longest {
                    return true;
                }
                if best
                    .as_ref()
                    .is_none_or(|b| b[0].is_some_and(|(_, be)| e > be))
                {
                    best = Some(c.clone());
                }
                // Nothing can be longer than a match reaching the end.
                e == h.len()
            };
            let hit = run.m(&self.node, s, caps, &mut done);
            if let Some(b) = best {
                *caps = b;
                return true;
            }
            if hit {
                return true;
            }
            if run.steps > BUDGET {
                return false;
            }
        }
        false
    }
}

impl Run<'_> {
    fn byte_eq(&self, a: u8, b: u8) -> bool {
        a == b || (self.p.icase && a.eq_ignore_ascii_case(&b))
    }

    fn at_line_start(&self, pos: usize) -> bool {
        pos == 0 || (self.p.multiline && self.h[pos - 1] == self.p.eol)
    }

    fn at_line_end(&self, pos: usize) -> bool {
        pos == self.h.len() || (self.p.multiline && self.h[pos] == self.p.eol)
    }

    fn word_before(&self, pos: usize) -> bool {
        pos > 0 && is_word(self.h[pos - 1])
    }

    fn word_after(&self, pos: usize) -> bool {
        pos < self.h.len() && is_word(self.h[pos])
    }

    fn m(&mut self, node: &Node, pos: usize, caps: &mut Captures, k: Cont<'_>) -> bool {
        self.steps += 1;
        if self.steps > BUDGET {
            return false;
        }
        let h = self.h;
        match node {
            Node::Empty => k(self, pos, caps),
            Node::Lit(b) => pos < h.len() && self.byte_eq(h[pos], *b) && k(self, pos + 1, caps),
            Node::Any if self.p.utf8 => {
                pos < h.len() && char_len(h, pos).is_some_and(|n| k(self, pos + n, caps))
            }
            Node::Any => {
                pos < h.len() && !(self.p.grep && h[pos] == self.p.eol) && k(self, pos + 1, caps)
            }
            Node::Class(set) => {
                if pos >= h.len() {
                    return false;
                }
                let b = h[pos];
                if self.p.utf8 && b >= 0x80 && is_wide(set) {
                    return char_len(h, pos).is_some_and(|n| k(self, pos + n, caps));
                }
                let hit = set[b as usize]
                    || (self.p.icase
                        && (set[b.to_ascii_lowercase() as usize]
                            || set[b.to_ascii_uppercase() as usize]));
                hit && k(self, pos + 1, caps)
            }
            Node::Group(n, cap) => match cap {
                None => self.m(n, pos, caps, k),
                Some(i) => {
                    let i = *i;
                    let mut inner = |r: &mut Run<'_>, e: usize, c: &mut Captures| {
                        let prev = c[i];
                        c[i] = Some((pos, e));
                        if k(r, e, c) {
                            return true;
                        }
                        c[i] = prev;
                        false
                    };
                    self.m(n, pos, caps, &mut inner)
                }
            },
            Node::Concat(v) => self.seq(v, pos, caps, k),
            Node::Alt(v) => {
                for n in v {
                    if self.m(n, pos, caps, k) {
                        return true;
                    }
                }
                false
            }
            Node::Repeat(n, min, max) => self.rep(n, *min, *max, 0, pos, caps, k),
            Node::Backref(i) => {
                let Some((s, e)) = caps.get(*i).copied().flatten() else {
                    return false;
                };
                let len = e - s;
                if pos + len > h.len() {
                    return false;
                }
                let ok = (0..len).all(|j| self.byte_eq(h[s + j], h[pos + j]));
                ok && k(self, pos + len, caps)
            }
            Node::LineStart => self.at_line_start(pos) && k(self, pos, caps),
            Node::LineEnd => self.at_line_end(pos) && k(self, pos, caps),
            Node::TextStart => {
                let ok = if self.p.grep {
                    self.at_line_start(pos)
                } else {
                    pos == 0
                };
                ok && k(self, pos, caps)
            }
            Node::TextEnd => {
                let ok = if self.p.grep {
                    self.at_line_end(pos)
                } else {
                    pos == h.len()
                };
                ok && k(self, pos, caps)
            }
            Node::WordBoundary => {
                (self.word_before(pos) != self.word_after(pos)) && k(self, pos, caps)
            }
            Node::NotWordBoundary => {
                (self.word_before(pos) == self.word_after(pos)) && k(self, pos, caps)
            }
            Node::WordStart => {
                (!self.word_before(pos) && self.word_after(pos)) && k(self, pos, caps)
            }
            Node::WordEnd => (self.word_before(pos) && !self.word_after(pos)) && k(self, pos, caps),
            Node::NotWordBefore => !self.word_before(pos) && k(self, pos, caps),
            Node::NotWordAfter => !self.word_after(pos) && k(self, pos, caps),
        }
    }

    fn seq(&mut self, v: &[Node], pos: usize, caps: &mut Captures, k: Cont<'_>) -> bool {
        match v.split_first() {
            None => k(self, pos, caps),
            Some((first, rest)) => {
                let mut next = |r: &mut Run<'_>, p: usize, c: &mut Captures| r.seq(rest, p, c, k);
                self.m(first, pos, caps, &mut next)
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn rep(
        &mut self,
        n: &Node,
        min: u32,
        max: Option<u32>,
        count: u32,
        pos: usize,
        caps: &mut Captures,
        k: Cont<'_>,
    ) -> bool {
        if max.is_none_or(|m| count < m) {
            let mut again = |r: &mut Run<'_>, p: usize, c: &mut Captures| {
                // An empty iteration past the minimum cannot lead anywhere new.
                if p == pos && count >= min {
                    return false;
                }
                r.rep(n, min, max, count + 1, p, c, k)
            };
            if self.m(n, pos, caps, &mut again) {
                return true;
            }
        }
        count >= min && k(self, pos, caps)
    }
}
