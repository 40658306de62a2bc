//! POSIX regular expressions (BRE and ERE, with GNU extensions) for grep and
//! sed, in the C locale: bytes, not characters.
//!
//! A pattern is parsed into a small tree ([`parse`]) and translated to the
//! `regex` crate's syntax ([`emit`]), which runs it in linear time. The regex
//! crate has no back-references; patterns that use them run on a small
//! backtracking matcher over the same tree ([`backtrack`]), with a step budget.
//! Matches are POSIX leftmost-longest: where the crate's leftmost-first rule
//! could pick a shorter match (`a|ab`), [`longest`] extends it.
//!
//! ```ignore
//! // Internal (the module is private), so not run as a doctest.
//! use sandkeep_shell::commands::text::posix_regex::{Flavor, Regex, RegexOptions, Syntax};
//!
//! let opts = RegexOptions { syntax: Syntax::Basic, flavor: Flavor::Grep, ..Default::default() };
//! let re = Regex::new(b"a\\(b\\)\\{2\\}", opts).unwrap();
//! assert_eq!(re.find_at(b"xabbb", 0), Some((1, 4)));
//! ```

mod backtrack;
mod emit;
mod longest;
pub mod parse;

use regex::bytes::{CaptureLocations, Regex as ByteRegex, RegexBuilder};
use regex_automata::util::captures::Captures as MetaCaptures;

use longest::LazyLongest;

/// Basic or extended syntax.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Syntax {
    /// POSIX basic (`grep`, `sed`).
    #[default]
    Basic,
    /// POSIX extended (`grep -E`, `sed -E`).
    Extended,
}

/// Whose dialect: grep searches lines in a buffer (nothing matches a
/// newline, `^`/`$` are line anchors), sed matches a pattern space that may
/// hold newlines (`.` matches one, `\n` is an escape).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Flavor {
    /// grep's line-oriented dialect.
    #[default]
    Grep,
    /// sed's pattern-space dialect.
    Sed,
    /// bash's `[[ =~ ]]`: glibc `regcomp` with `REG_EXTENDED` in a UTF-8
    /// locale. No escapes beyond the GNU operators (`\n` is `n`), `.` matches
    /// newline, `^`/`$` anchor the whole string, a repetition operator with
    /// nothing to repeat or a `{` that does not start a valid interval is an
    /// error, and `.`, negated brackets and letter classes match whole UTF-8
    /// characters (never an invalid byte).
    Bash,
}

/// Options of a compiled expression.
#[derive(Clone, Copy, Debug, Default)]
pub struct RegexOptions {
    /// BRE or ERE.
    pub syntax: Syntax,
    /// grep or sed dialect.
    pub flavor: Flavor,
    /// Case-insensitive (ASCII).
    pub icase: bool,
    /// sed's `M` flag: `^`/`$` also match around embedded newlines.
    pub multiline: bool,
    /// grep `-z`: lines end in NUL instead of newline.
    pub null_data: bool,
}

impl RegexOptions {
    /// The line terminator grep's lines end with.
    pub fn eol(&self) -> u8 {
        if self.null_data { 0 } else { b'\n' }
    }
}

/// A compiled POSIX regular expression.
#[derive(Clone, Debug)]
pub struct Regex {
    engine: Engine,
    /// Set when leftmost-first may pick a shorter match than POSIX wants:
    /// the fast engine then only finds where the match starts.
    longest: Option<Box<LazyLongest>>,
    groups: usize,
    /// Boxed slice, not Vec: keeps `Regex` small for enums that hold one.
    warnings: Box<[String]>,
    /// Set when the whole expression is one byte matched anywhere (grep's
    /// `grep -c 7`), which a byte scan decides faster than any regex.
    single_byte: Option<u8>,
}

#[derive(Clone, Debug)]
enum Engine {
    Fast(ByteRegex),
    Backtrack(backtrack::Prog),
    /// Several back-referencing patterns (grep `-e A -e B`): leftmost wins.
    Multi(Vec<backtrack::Prog>),
}

/// What grep requires of a match: anywhere, a whole word (`-w`), the whole
/// line (`-x`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Whole {
    /// Anywhere in the line.
    #[default]
    Any,
    /// Not preceded or followed by a word byte.
    Word,
    /// The entire line.
    Line,
}

/// Capture positions of one match: index 0 is the whole match.
pub type Captures = Vec<Option<(usize, usize)>>;

impl Regex {
    /// Compiles `pattern`; the error is glibc's message (`Unmatched ( or \(`).
    pub fn new(pattern: &[u8], opts: RegexOptions) -> Result<Regex, String> {
        let parsed = parse::parse(pattern, opts.syntax, opts.flavor, opts.eol())?;
        let differ = longest::may_differ(&parsed.node);
        let mut longest = None;
        let engine = if parsed.node.has_backref() {
            Engine::Backtrack(backtrack::Prog::new(
                parsed.node,
                parsed.groups,
                opts,
                differ,
            ))
        } else {
            let src = emit::emit(&parsed.node, opts);
            let re = Self::build(&src, opts)?;
            if differ {
                longest = Some(Box::new(LazyLongest::new(src, opts)));
            }
            Engine::Fast(re)
        };
        Ok(Regex {
            engine,
            longest,
            groups: parsed.groups,
            warnings: parsed.warnings.into(),
            single_byte: None,
        })
    }

    /// Compiles grep's pattern list: any pattern may match. `fixed` takes
    /// them as literal strings (`-F`).
    pub fn new_grep(
        patterns: &[Vec<u8>],
        fixed: bool,
        whole: Whole,
        opts: RegexOptions,
    ) -> Result<Regex, String> {
        let mut nodes = Vec::new();
        let mut warnings = Vec::new();
        let mut groups = 0;
        for p in patterns {
            let (node, g) = if fixed {
                (
                    parse::Node::Concat(p.iter().map(|b| parse::Node::Lit(*b)).collect()),
                    0,
                )
            } else {
                let parsed = parse::parse(p, opts.syntax, opts.flavor, opts.eol())?;
                warnings.extend(parsed.warnings);
                (parsed.node, parsed.groups)
            };
            groups = groups.max(g);
            let inner = parse::Node::Group(Box::new(node), None);
            let node = match whole {
                Whole::Any => inner,
                Whole::Word => parse::Node::Concat(vec![
                    parse::Node::NotWordBefore,
                    inner,
                    parse::Node::NotWordAfter,
                ]),
                Whole::Line => {
                    parse::Node::Concat(vec![parse::Node::LineStart, inner, parse::Node::LineEnd])
                }
            };
            nodes.push((node, g));
        }
        let differ = nodes.len() > 1 || nodes.iter().any(|(n, _)| longest::may_differ(n));
        if nodes.iter().any(|(n, _)| n.has_backref()) {
            let progs = nodes
                .into_iter()
                .map(|(n, g)| {
                    let d = longest::may_differ(&n);
                    backtrack::Prog::new(n, g, opts, d)
                })
                .collect();
            return Ok(Regex {
                engine: Engine::Multi(progs),
                longest: None,
                groups: 0,
                warnings: warnings.into(),
                single_byte: None,
            });
        }
        let single_byte = match (patterns, whole) {
            ([p], Whole::Any) if p.len() == 1 && (fixed || p[0].is_ascii_alphanumeric()) => {
                let b = p[0];
                (b != opts.eol() && !(opts.icase && b.is_ascii_alphabetic())).then_some(b)
            }
            _ => None,
        };
        let src: Vec<String> = nodes.iter().map(|(n, _)| emit::emit(n, opts)).collect();
        // No pattern at all (`-f /dev/null`) matches nothing.
        let src = if src.is_empty() {
            "[^\\x00-\\xFF]".to_string()
        } else {
            src.join("|")
        };
        let re = Self::build(&src, opts)?;
        let longest = differ.then(|| Box::new(LazyLongest::new(src, opts)));
        Ok(Regex {
            engine: Engine::Fast(re),
            longest,
            groups,
            warnings: warnings.into(),
            single_byte,
        })
    }

    /// The byte this expression amounts to, when it is a single literal byte.
    pub fn single_byte(&self) -> Option<u8> {
        self.single_byte
    }

    fn build(src: &str, opts: RegexOptions) -> Result<ByteRegex, String> {
        RegexBuilder::new(src)
            .unicode(false)
            .case_insensitive(opts.icase)
            .multi_line(opts.flavor == Flavor::Grep || opts.multiline)
            .line_terminator(if opts.flavor == Flavor::Grep {
                opts.eol()
            } else {
                b'\n'
            })
            .size_limit(64 << 20)
            .dfa_size_limit(16 << 20)
            .build()
            .map_err(|e| match e {
                regex::Error::CompiledTooBig(_) => "Regular expression too big".to_string(),
                other => format!("internal regex error: {other}"),
            })
    }

    /// True when matching runs on the backtracker (slow: search line by line).
    pub fn is_backtracking(&self) -> bool {
        !matches!(self.engine, Engine::Fast(_))
    }

    /// Warnings from parsing (`* at start of expression`).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Number of capture groups.
    pub fn groups(&self) -> usize {
        self.groups
    }

    /// The first match at or after `start` (context before `start` is seen
    /// by anchors and word boundaries).
    pub fn find_at(&self, hay: &[u8], start: usize) -> Option<(usize, usize)> {
        match &self.engine {
            Engine::Fast(re) => {
                let m = re.find_at(hay, start)?;
                let end = match self.longest.as_ref().and_then(|l| l.get()) {
                    Some(l) => l
                        .end_from(hay, m.start())
                        .map_or(m.end(), |e| e.max(m.end())),
                    None => m.end(),
                };
                Some((m.start(), end))
            }
            Engine::Backtrack(p) => {
                let mut caps = Vec::new();
                p.search(hay, start, &mut caps).then(|| caps[0].unwrap())
            }
            Engine::Multi(progs) => {
                let mut caps = Vec::new();
                let mut best: Option<(usize, usize)> = None;
                for p in progs {
                    if p.search(hay, start, &mut caps) {
                        let m = caps[0].unwrap();
                        if best.is_none_or(|b| m.0 < b.0 || (m.0 == b.0 && m.1 > b.1)) {
                            best = Some(m);
                        }
                    }
                }
                best
            }
        }
    }

    /// Where the first match at or after `start` begins: [`Regex::find_at`]
    /// without the cost of finding the longest end (grep's line search).
    pub fn find_start_at(&self, hay: &[u8], start: usize) -> Option<usize> {
        match &self.engine {
            Engine::Fast(re) => re.find_at(hay, start).map(|m| m.start()),
            Engine::Backtrack(p) => {
                let mut caps = Vec::new();
                p.search_with(hay, start, &mut caps, false)
                    .then(|| caps[0].unwrap().0)
            }
            Engine::Multi(progs) => {
                let mut caps = Vec::new();
                let mut best: Option<usize> = None;
                for p in progs {
                    if p.search_with(hay, start, &mut caps, false) {
                        let s = caps[0].unwrap().0;
                        best = Some(best.map_or(s, |b| b.min(s)));
                    }
                }
                best
            }
        }
    }

    /// True when the expression matches somewhere in `hay`.
    pub fn is_match(&self, hay: &[u8]) -> bool {
        match &self.engine {
            Engine::Fast(re) => re.is_match(hay),
            _ => self.find_start_at(hay, 0).is_some(),
        }
    }

    /// Reusable capture storage for [`Regex::captures_at`].
    pub fn capture_slots(&self) -> Slots {
        Slots {
            locs: match &self.engine {
                Engine::Fast(re) => Some(re.capture_locations()),
                _ => None,
            },
            longest: self
                .longest
                .as_ref()
                .and_then(|l| l.get())
                .map(|l| l.new_captures()),
            caps: Vec::new(),
        }
    }

    /// Finds the first match at or after `start` and fills `slots.caps` with
    /// the positions of the match and its groups.
    pub fn captures_at(&self, hay: &[u8], start: usize, slots: &mut Slots) -> bool {
        slots.caps.clear();
        match &self.engine {
            Engine::Fast(re) => {
                let l = self.longest.as_ref().and_then(|l| l.get());
                if let (Some(l), Some(scratch)) = (l, slots.longest.as_mut()) {
                    // The leftmost start is the same under both rules; the
                    // cheap search finds it, the anchored one the longest end.
                    let Some(m) = re.find_at(hay, start) else {
                        return false;
                    };
                    if l.captures_from(hay, m.start(), scratch, &mut slots.caps) {
                        return true;
                    }
                }
                let locs: &mut CaptureLocations = slots.locs.as_mut().expect("slots of this regex");
                if re.captures_read_at(locs, hay, start).is_none() {
                    return false;
                }
                for i in 0..locs.len() {
                    slots.caps.push(locs.get(i));
                }
                true
            }
            Engine::Backtrack(p) => p.search(hay, start, &mut slots.caps),
            Engine::Multi(_) => match self.find_at(hay, start) {
                Some(m) => {
                    slots.caps.push(Some(m));
                    true
                }
                None => false,
            },
        }
    }
}

/// Capture storage reused across matches.
#[derive(Debug)]
pub struct Slots {
    locs: Option<CaptureLocations>,
    longest: Option<MetaCaptures>,
    /// Positions of the last match (index 0) and its groups.
    pub caps: Captures,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn re(p: &str, syntax: Syntax) -> Result<Regex, String> {
        Regex::new(
            p.as_bytes(),
            RegexOptions {
                syntax,
                ..Default::default()
            },
        )
    }

    fn m(p: &str, syntax: Syntax, h: &str) -> Option<(usize, usize)> {
        re(p, syntax).unwrap().find_at(h.as_bytes(), 0)
    }

    #[test]
    fn bre_specials() {
        use Syntax::Basic as B;
        assert_eq!(m("a+", B, "aa+"), Some((1, 3)));
        assert_eq!(m("a\\+", B, "xaa"), Some((1, 3)));
        assert_eq!(m("a|b", B, "b a|b"), Some((2, 5)));
        assert_eq!(m("a\\|b", B, "xb"), Some((1, 2)));
        assert_eq!(m("*x", B, "a*x"), Some((1, 3)));
        assert_eq!(m("x^y", B, "x^y"), Some((0, 3)));
        assert_eq!(m("x$y", B, "x$y"), Some((0, 3)));
        assert_eq!(m("a{1}", B, "a{1}"), Some((0, 4)));
        assert_eq!(m("a\\{2\\}", B, "aaa"), Some((0, 2)));
        assert_eq!(m("\\(ab\\)*c", B, "ababc"), Some((0, 5)));
        assert_eq!(m("[]a]", B, "x]"), Some((1, 2)));
        assert_eq!(m("[^a]", B, "a\nb"), Some((2, 3)));
        assert_eq!(m("[[:digit:]]\\+", B, "ab123"), Some((2, 5)));
    }

    #[test]
    fn ere_specials() {
        use Syntax::Extended as E;
        assert_eq!(m("a{1", E, "a{1"), Some((0, 3)));
        assert_eq!(m("(a|b)+", E, "xabab"), Some((1, 5)));
        assert_eq!(m("*a", E, "a"), Some((0, 1)));
        assert_eq!(m("a)", E, "a)"), Some((0, 2)));
        assert_eq!(m("a**", E, "aa"), Some((0, 2)));
        assert_eq!(m("\\<b", E, "ab b"), Some((3, 4)));
    }

    #[test]
    fn errors() {
        assert_eq!(re("\\(a", Syntax::Basic).unwrap_err(), "Unmatched ( or \\(");
        assert_eq!(
            re("(a", Syntax::Extended).unwrap_err(),
            "Unmatched ( or \\("
        );
        assert_eq!(re("a\\)", Syntax::Basic).unwrap_err(), "Unmatched ) or \\)");
        assert_eq!(re("a\\{1", Syntax::Basic).unwrap_err(), "Unmatched \\{");
        assert_eq!(
            re("a{2,1}", Syntax::Extended).unwrap_err(),
            "Invalid content of \\{\\}"
        );
        assert_eq!(
            re("[a", Syntax::Basic).unwrap_err(),
            "Unmatched [, [^, [:, [., or [="
        );
        assert_eq!(
            re("[[:foo:]]", Syntax::Basic).unwrap_err(),
            "Invalid character class name"
        );
        assert_eq!(
            re("\\1", Syntax::Basic).unwrap_err(),
            "Invalid back reference"
        );
        assert_eq!(re("a\\", Syntax::Basic).unwrap_err(), "Trailing backslash");
        assert_eq!(re("[z-a]", Syntax::Basic).unwrap_err(), "Invalid range end");
    }

    #[test]
    fn backrefs() {
        assert_eq!(m("\\(a*\\)b\\1", Syntax::Basic, "xaabaa"), Some((1, 6)));
        assert_eq!(m("(.)\\1", Syntax::Extended, "abccd"), Some((2, 4)));
        assert_eq!(
            m("^(.)(.).\\2\\1$", Syntax::Extended, "xy\nabcba"),
            Some((3, 8))
        );
        let r = Regex::new(
            b"\\(A\\)\\1",
            RegexOptions {
                icase: true,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(r.find_at(b"aA", 0), Some((0, 2)));
    }
}
