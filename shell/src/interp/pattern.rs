//! Shell patterns (`*`, `?`, `[...]`, extglob) matched against strings, and
//! pathname expansion over the virtual tree. OWNER: expand helper.
//!
//! A pattern is compiled once ([`Pattern::new`], cached per thread by
//! [`compiled`]) into tokens. Patterns without extglob groups match with a
//! small NFA simulation, which also yields every prefix that matches in one
//! pass (for `${x#pat}` / `${x##pat}`); extglob groups (`!(...)` can't be a
//! regular NFA) fall back to backtracking.
//!
//! Pieces for other modules:
//! - [`matches`]: `case`, `[[ == ]]`, `test`-free pattern matching.
//! - [`Pattern::strip_prefix_len`] / [`Pattern::strip_suffix_len`] /
//!   [`Pattern::find`]: `${x#p}`, `${x%p}`, `${x/p/r}`.
//! - [`to_regex`]: a pattern as a `regex::Regex`, for callers that want one
//!   (`find -name`, `tar --exclude`); `None` for `!(...)`.
//! - [`glob::glob`]: pathname expansion against the virtual filesystem.

pub mod glob;

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use super::vars::FastMap;

/// How a pattern is matched.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MatchOptions {
    /// `shopt -s extglob`
    pub extglob: bool,
    /// Case-insensitive (`nocasematch`, `nocaseglob`).
    pub nocase: bool,
}

/// True when the whole of `text` matches shell pattern `pattern`.
pub fn matches(pattern: &str, text: &str, options: MatchOptions) -> bool {
    compiled(pattern, options).matches(text)
}

/// True when `s` contains an unquoted `*` or `?`, a `[` followed later by
/// an unquoted `]`, or an extglob group when `extglob` is set: i.e. when it
/// is a pattern rather than a literal. Like bash's `glob_pattern_p`, a lone
/// `[` (as in `[ -d x ]`) or `[abc` is literal, so `nullglob` keeps it.
pub fn has_glob_chars(s: &str, extglob: bool) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    let mut open = false;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 1,
            b'*' | b'?' => return true,
            b'[' => open = true,
            b']' if open => return true,
            b'+' | b'@' | b'!' if extglob && b.get(i + 1) == Some(&b'(') => return true,
            _ => {}
        }
        i += 1;
    }
    false
}

/// Removes backslash quoting from a pattern: the literal string it stands for.
pub fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some(n) => out.push(n),
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Backslash-escapes every pattern-special character of `s`, so that the
/// result matches `s` literally.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 4);
    for c in s.chars() {
        if matches!(
            c,
            '*' | '?' | '[' | ']' | '\\' | '(' | ')' | '|' | '!' | '@' | '+' | '^' | '-'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

thread_local! {
    /// One cache per option combination, so lookups borrow the pattern.
    static CACHE: RefCell<[FastMap<Rc<Pattern>>; 4]> = RefCell::new(Default::default());
}

/// The compiled form of `pattern`, from a per-thread cache.
pub fn compiled(pattern: &str, options: MatchOptions) -> Rc<Pattern> {
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        let cache = &mut c[options.extglob as usize * 2 + options.nocase as usize];
        if let Some(p) = cache.get(pattern) {
            return p.clone();
        }
        if cache.len() > 512 {
            cache.clear();
        }
        let p = Rc::new(Pattern::new(pattern, options));
        cache.insert(pattern.to_string(), p.clone());
        p
    })
}

/// A named character class (`[[:alpha:]]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Named {
    Alnum,
    Alpha,
    Blank,
    Cntrl,
    Digit,
    Graph,
    Lower,
    Print,
    Punct,
    Space,
    Upper,
    Xdigit,
    Word,
}

impl Named {
    fn from_name(s: &str) -> Option<Named> {
        Some(match s {
            "alnum" => Named::Alnum,
            "alpha" => Named::Alpha,
            "blank" => Named::Blank,
            "cntrl" => Named::Cntrl,
            "digit" => Named::Digit,
            "graph" => Named::Graph,
            "lower" => Named::Lower,
            "print" => Named::Print,
            "punct" => Named::Punct,
            "space" => Named::Space,
            "upper" => Named::Upper,
            "xdigit" => Named::Xdigit,
            "word" => Named::Word,
            _ => return None,
        })
    }

    fn test(self, c: char) -> bool {
        match self {
            Named::Alnum => c.is_alphanumeric(),
            Named::Alpha => c.is_alphabetic(),
            Named::Blank => c == ' ' || c == '\t',
            Named::Cntrl => c.is_control(),
            Named::Digit => c.is_ascii_digit(),
            Named::Graph => !c.is_control() && !c.is_whitespace(),
            Named::Lower => c.is_lowercase(),
            Named::Print => !c.is_control(),
            Named::Punct => c.is_ascii_punctuation(),
            Named::Space => c.is_whitespace(),
            Named::Upper => c.is_uppercase(),
            Named::Xdigit => c.is_ascii_hexdigit(),
            Named::Word => c.is_alphanumeric() || c == '_',
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum ClassItem {
    Char(char),
    Range(char, char),
    Named(Named),
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Class {
    negated: bool,
    items: Vec<ClassItem>,
}

impl Class {
    fn test(&self, c: char, nocase: bool) -> bool {
        let hit = |c: char| {
            self.items.iter().any(|it| match *it {
                ClassItem::Char(x) => x == c,
                ClassItem::Range(a, b) => a <= c && c <= b,
                ClassItem::Named(n) => n.test(c),
            })
        };
        let mut found = hit(c);
        if !found && nocase {
            found = c.to_lowercase().any(hit) || c.to_uppercase().any(hit);
        }
        found != self.negated
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ExtKind {
    /// `?(...)`
    ZeroOrOne,
    /// `*(...)`
    ZeroOrMore,
    /// `+(...)`
    OneOrMore,
    /// `@(...)`
    One,
    /// `!(...)`
    Not,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Lit(char),
    Any,
    Star,
    Class(Rc<Class>),
    Ext(ExtKind, Rc<Vec<Vec<Tok>>>),
}

/// A compiled shell pattern.
#[derive(Clone, Debug)]
pub struct Pattern {
    toks: Vec<Tok>,
    has_ext: bool,
    nocase: bool,
}

impl Pattern {
    /// Compiles `pattern` (backslash escapes quote the next character).
    pub fn new(pattern: &str, options: MatchOptions) -> Pattern {
        let chars: Vec<char> = pattern.chars().collect();
        let mut i = 0;
        let mut groups = ExtMemo::new();
        let toks = parse_seq(&chars, &mut i, options.extglob, false, &mut groups);
        let has_ext = toks.iter().any(|t| matches!(t, Tok::Ext(..)));
        Pattern {
            toks,
            has_ext,
            nocase: options.nocase,
        }
    }

    /// True when the first token is a literal `.` (globbing: hidden files).
    pub fn starts_with_dot(&self) -> bool {
        matches!(self.toks.first(), Some(Tok::Lit('.')))
    }

    /// True when the whole of `text` matches.
    pub fn matches(&self, text: &str) -> bool {
        let t: Vec<char> = text.chars().collect();
        if self.has_ext {
            return match_bt(&self.toks, &t, self.nocase);
        }
        let ends = self.prefix_ends(&t);
        ends.last() == Some(&t.len())
    }

    /// Every `j` such that the pattern matches `t[..j]`, ascending (no extglob).
    fn prefix_ends(&self, t: &[char]) -> Vec<usize> {
        nfa_prefix_ends(&self.toks, t, self.nocase)
    }

    /// The number of characters (not bytes) of the shortest (`longest`:
    /// longest) prefix of `text` that the pattern matches.
    pub fn strip_prefix_len(&self, text: &[char], longest: bool) -> Option<usize> {
        if self.has_ext {
            let range: Box<dyn Iterator<Item = usize>> = if longest {
                Box::new((0..=text.len()).rev())
            } else {
                Box::new(0..=text.len())
            };
            for j in range {
                if match_bt(&self.toks, &text[..j], self.nocase) {
                    return Some(j);
                }
            }
            return None;
        }
        let ends = self.prefix_ends(text);
        if longest {
            ends.last().copied()
        } else {
            ends.first().copied()
        }
    }

    /// The number of characters of the shortest (`longest`: longest) suffix
    /// of `text` that the pattern matches.
    pub fn strip_suffix_len(&self, text: &[char], longest: bool) -> Option<usize> {
        let n = text.len();
        if self.has_ext {
            let range: Box<dyn Iterator<Item = usize>> = if longest {
                Box::new(0..=n)
            } else {
                Box::new((0..=n).rev())
            };
            for i in range {
                if match_bt(&self.toks, &text[i..], self.nocase) {
                    return Some(n - i);
                }
            }
            return None;
        }
        // Match the reversed pattern against the reversed text.
        let rev_toks = reverse_toks(&self.toks);
        let rev: Vec<char> = text.iter().rev().copied().collect();
        let ends = nfa_prefix_ends(&rev_toks, &rev, self.nocase);
        if longest {
            ends.last().copied()
        } else {
            ends.first().copied()
        }
    }

    /// The leftmost match at or after `from`, longest at that position:
    /// `(start, end)` in characters (`${x/pat/rep}`).
    pub fn find(&self, text: &[char], from: usize) -> Option<(usize, usize)> {
        for start in from..=text.len() {
            if let Some(len) = self.strip_prefix_len(&text[start..], true) {
                return Some((start, start + len));
            }
        }
        None
    }
}

fn reverse_toks(toks: &[Tok]) -> Vec<Tok> {
    toks.iter().rev().cloned().collect()
}

/// What [`parse_ext`] made of the group opening at each index: a group
/// left unclosed is read again as literal text by every enclosing group,
/// which without this doubles the work per level of nesting.
type ExtMemo = HashMap<usize, Option<(Tok, usize)>>;

/// Parses tokens until the end (or, inside an extglob group, until `|`/`)`).
fn parse_seq(
    c: &[char],
    i: &mut usize,
    extglob: bool,
    in_group: bool,
    groups: &mut ExtMemo,
) -> Vec<Tok> {
    let mut toks = Vec::new();
    while *i < c.len() {
        let ch = c[*i];
        if in_group && (ch == '|' || ch == ')') {
            break;
        }
        if extglob
            && matches!(ch, '?' | '*' | '+' | '@' | '!')
            && c.get(*i + 1) == Some(&'(')
            && let Some((tok, next)) = parse_ext(c, *i, extglob, groups)
        {
            toks.push(tok);
            *i = next;
            continue;
        }
        match ch {
            '\\' => {
                *i += 1;
                toks.push(Tok::Lit(c.get(*i).copied().unwrap_or('\\')));
                *i += 1;
            }
            '*' => {
                if toks.last() != Some(&Tok::Star) {
                    toks.push(Tok::Star);
                }
                *i += 1;
            }
            '?' => {
                toks.push(Tok::Any);
                *i += 1;
            }
            '[' => match parse_class(c, *i) {
                Some((class, next)) => {
                    toks.push(Tok::Class(Rc::new(class)));
                    *i = next;
                }
                None => {
                    toks.push(Tok::Lit('['));
                    *i += 1;
                }
            },
            _ => {
                toks.push(Tok::Lit(ch));
                *i += 1;
            }
        }
    }
    toks
}

fn parse_ext(
    c: &[char],
    start: usize,
    extglob: bool,
    groups: &mut ExtMemo,
) -> Option<(Tok, usize)> {
    if let Some(known) = groups.get(&start) {
        return known.clone();
    }
    let parsed = parse_ext_at(c, start, extglob, groups);
    groups.insert(start, parsed.clone());
    parsed
}

fn parse_ext_at(
    c: &[char],
    start: usize,
    extglob: bool,
    groups: &mut ExtMemo,
) -> Option<(Tok, usize)> {
    let kind = match c[start] {
        '?' => ExtKind::ZeroOrOne,
        '*' => ExtKind::ZeroOrMore,
        '+' => ExtKind::OneOrMore,
        '@' => ExtKind::One,
        _ => ExtKind::Not,
    };
    let mut i = start + 2;
    let mut alts = Vec::new();
    loop {
        let seq = parse_seq(c, &mut i, extglob, true, groups);
        alts.push(seq);
        match c.get(i) {
            Some('|') => i += 1,
            Some(')') => return Some((Tok::Ext(kind, Rc::new(alts)), i + 1)),
            _ => return None,
        }
    }
}

/// Parses `[...]` starting at `start`; `None` when there is no closing `]`.
fn parse_class(c: &[char], start: usize) -> Option<(Class, usize)> {
    let mut i = start + 1;
    let mut negated = false;
    if matches!(c.get(i), Some('!') | Some('^')) {
        negated = true;
        i += 1;
    }
    let mut items = Vec::new();
    let mut first = true;
    loop {
        let ch = *c.get(i)?;
        if ch == ']' && !first {
            return Some((Class { negated, items }, i + 1));
        }
        first = false;
        if ch == '[' && c.get(i + 1) == Some(&':') {
            // [:name:]
            let rest: String = c[i + 2..].iter().collect();
            if let Some(end) = rest.find(":]") {
                let name = &rest[..end];
                if let Some(n) = Named::from_name(name) {
                    items.push(ClassItem::Named(n));
                    i += 2 + name.chars().count() + 2;
                    continue;
                }
            }
        }
        let lo = if ch == '\\' {
            i += 1;
            *c.get(i)?
        } else {
            ch
        };
        i += 1;
        if c.get(i) == Some(&'-') && c.get(i + 1).is_some_and(|&n| n != ']') {
            let mut hi = c[i + 1];
            i += 2;
            if hi == '\\' {
                hi = *c.get(i)?;
                i += 1;
            }
            items.push(ClassItem::Range(lo, hi));
        } else {
            items.push(ClassItem::Char(lo));
        }
    }
}

fn eq_char(a: char, b: char, nocase: bool) -> bool {
    a == b || (nocase && a.to_lowercase().eq(b.to_lowercase()))
}

fn single(tok: &Tok, ch: char, nocase: bool) -> bool {
    match tok {
        Tok::Lit(l) => eq_char(*l, ch, nocase),
        Tok::Any => true,
        Tok::Class(cl) => cl.test(ch, nocase),
        Tok::Star | Tok::Ext(..) => false,
    }
}

/// NFA simulation over tokens without extglob groups: returns every `j`
/// such that `toks` matches `t[..j]`.
fn nfa_prefix_ends(toks: &[Tok], t: &[char], nocase: bool) -> Vec<usize> {
    let m = toks.len();
    let mut cur = vec![false; m + 1];
    let mut next = vec![false; m + 1];
    cur[0] = true;
    close(toks, &mut cur);
    let mut ends = Vec::new();
    if cur[m] {
        ends.push(0);
    }
    for (j, &ch) in t.iter().enumerate() {
        next.iter_mut().for_each(|x| *x = false);
        let mut any = false;
        for s in 0..m {
            if !cur[s] {
                continue;
            }
            match &toks[s] {
                Tok::Star => {
                    next[s] = true;
                    any = true;
                }
                tok => {
                    if single(tok, ch, nocase) {
                        next[s + 1] = true;
                        any = true;
                    }
                }
            }
        }
        if !any {
            break;
        }
        close(toks, &mut next);
        std::mem::swap(&mut cur, &mut next);
        if cur[m] {
            ends.push(j + 1);
        }
    }
    ends
}

/// Epsilon closure: a `*` may match nothing.
fn close(toks: &[Tok], set: &mut [bool]) {
    for s in 0..toks.len() {
        if set[s] && toks[s] == Tok::Star {
            set[s + 1] = true;
        }
    }
}

/// Backtracking match of the whole of `t` (handles extglob groups).
///
/// Results are memoised per (token suffix, text slice): without it,
/// `*(a)*(a)*(a)*(a)*(a)c` against 200 `a`s backtracks exponentially and
/// never ends; with it the work is polynomial in the text's length.
fn match_bt(toks: &[Tok], t: &[char], nocase: bool) -> bool {
    let mut memo = Memo::default();
    memo_bt(toks, t, nocase, &mut memo)
}

/// Answers already computed, keyed by the slices' addresses and lengths
/// (every slice is a view of one pattern's tokens and one text).
///
/// Polynomial is still long for a long text (`*(a|aa)*(a|aa)c` on
/// thousands of characters): every 1024 steps the match asks whether its
/// run was cancelled, and once it was, gives up as no match (the
/// interpreter's next check then ends the run).
#[derive(Default)]
struct Memo {
    bt: HashMap<(usize, usize, usize, usize), bool>,
    ext: HashMap<(usize, usize, u8, usize, usize), bool>,
    steps: u32,
    cancelled: bool,
}

impl Memo {
    /// Counts a step; true once the run was cancelled.
    fn cancelled(&mut self) -> bool {
        self.steps = self.steps.wrapping_add(1);
        if !self.cancelled && self.steps.is_multiple_of(1024) {
            self.cancelled = crate::cancel::requested();
        }
        self.cancelled
    }
}

fn memo_bt(toks: &[Tok], t: &[char], nocase: bool, memo: &mut Memo) -> bool {
    if memo.cancelled() {
        return false;
    }
    let Some((first, rest)) = toks.split_first() else {
        return t.is_empty();
    };
    let key = (
        toks.as_ptr() as usize,
        toks.len(),
        t.as_ptr() as usize,
        t.len(),
    );
    if let Some(&r) = memo.bt.get(&key) {
        return r;
    }
    let r = match first {
        Tok::Star => rest.is_empty() || (0..=t.len()).any(|k| memo_bt(rest, &t[k..], nocase, memo)),
        Tok::Ext(kind, alts) => (0..=t.len()).any(|k| {
            ext_matches(*kind, alts, &t[..k], nocase, memo) && memo_bt(rest, &t[k..], nocase, memo)
        }),
        tok => !t.is_empty() && single(tok, t[0], nocase) && memo_bt(rest, &t[1..], nocase, memo),
    };
    memo.bt.insert(key, r);
    r
}

fn any_alt(alts: &[Vec<Tok>], s: &[char], nocase: bool, memo: &mut Memo) -> bool {
    alts.iter().any(|a| memo_bt(a, s, nocase, memo))
}

/// True when the extglob group matches exactly `s`.
fn ext_matches(
    kind: ExtKind,
    alts: &[Vec<Tok>],
    s: &[char],
    nocase: bool,
    memo: &mut Memo,
) -> bool {
    if memo.cancelled() {
        return false;
    }
    let key = (
        alts.as_ptr() as usize,
        alts.len(),
        kind as u8,
        s.as_ptr() as usize,
        s.len(),
    );
    if let Some(&r) = memo.ext.get(&key) {
        return r;
    }
    let r = match kind {
        ExtKind::One => any_alt(alts, s, nocase, memo),
        ExtKind::ZeroOrOne => s.is_empty() || any_alt(alts, s, nocase, memo),
        ExtKind::Not => !any_alt(alts, s, nocase, memo),
        ExtKind::ZeroOrMore | ExtKind::OneOrMore => {
            if s.is_empty() {
                kind == ExtKind::ZeroOrMore || any_alt(alts, s, nocase, memo)
            } else {
                // s = piece + rest, piece non-empty and matching one alternative.
                (1..=s.len()).any(|k| {
                    any_alt(alts, &s[..k], nocase, memo)
                        && (k == s.len()
                            || ext_matches(ExtKind::ZeroOrMore, alts, &s[k..], nocase, memo))
                })
            }
        }
    };
    memo.ext.insert(key, r);
    r
}

#[cfg(test)]
mod tests;
