//! Parser of POSIX basic and extended regular expressions with the GNU
//! extensions grep and sed accept (`\+ \? \|` in BRE, `\w \s \b \< \>`,
//! back-references), into a small syntax tree. Error texts are glibc's
//! `regcomp` messages, which grep and sed print verbatim.

use super::{Flavor, Syntax};

/// A set of bytes.
pub type ByteSet = [bool; 256];

/// A node of the syntax tree.
#[derive(Clone, Debug)]
pub enum Node {
    /// Matches the empty string.
    Empty,
    /// One byte.
    Lit(u8),
    /// Any byte but, for grep, newline.
    Any,
    /// A set of bytes (negation already applied).
    Class(Box<ByteSet>),
    /// A parenthesised group; `Some(n)` is capture group `n` (1-based).
    Group(Box<Node>, Option<usize>),
    /// A sequence.
    Concat(Vec<Node>),
    /// Alternatives.
    Alt(Vec<Node>),
    /// Repetition `{min,max}` (`None`: unbounded).
    Repeat(Box<Node>, u32, Option<u32>),
    /// `\N`
    Backref(usize),
    /// `^`
    LineStart,
    /// `$`
    LineEnd,
    /// `\``
    TextStart,
    /// `\'`
    TextEnd,
    /// `\b`
    WordBoundary,
    /// `\B`
    NotWordBoundary,
    /// `\<`
    WordStart,
    /// `\>`
    WordEnd,
    /// No word byte just before (grep `-w` start).
    NotWordBefore,
    /// No word byte just after (grep `-w` end).
    NotWordAfter,
}

impl Node {
    /// True if a back-reference appears anywhere below.
    pub fn has_backref(&self) -> bool {
        match self {
            Node::Backref(_) => true,
            Node::Group(n, _) | Node::Repeat(n, _, _) => n.has_backref(),
            Node::Concat(v) | Node::Alt(v) => v.iter().any(Node::has_backref),
            _ => false,
        }
    }
}

/// The largest repetition count glibc accepts (`RE_DUP_MAX`).
const DUP_MAX: u32 = 0x7fff;

/// glibc's message for a repetition operator with nothing to repeat, which
/// bash's stricter syntax rejects.
const BADRPT: &str = "Invalid preceding regular expression";

/// True when `set` holds every byte from 0x80 up: in bash's UTF-8 dialect
/// such a class matches any whole non-ASCII character.
pub fn is_wide(set: &ByteSet) -> bool {
    set[0x80..].iter().all(|&b| b)
}

/// The bytes of the UTF-8 character whose lead byte `lead` is at `p[i - 1]`:
/// `p[i - 1..end]` with `end` past its continuation bytes.
fn utf8_end(p: &[u8], i: usize, lead: u8) -> usize {
    let n = match lead {
        0xC0..=0xDF => 1,
        0xE0..=0xEF => 2,
        0xF0..=0xF7 => 3,
        _ => 0,
    };
    let mut end = i;
    while end < p.len() && end - i < n && (0x80..0xC0).contains(&p[end]) {
        end += 1;
    }
    end
}

/// The result of parsing: the tree, the number of groups and warnings to print.
pub struct Parsed {
    /// The tree.
    pub node: Node,
    /// Number of capture groups.
    pub groups: usize,
    /// Warnings (`* at start of expression`), for grep to print.
    pub warnings: Vec<String>,
}

struct Parser<'a> {
    p: &'a [u8],
    i: usize,
    ere: bool,
    flavor: Flavor,
    eol: u8,
    groups: usize,
    closed: Vec<usize>,
    depth: usize,
    warnings: Vec<String>,
}

/// Parses `pattern` in the given syntax.
pub fn parse(pattern: &[u8], syntax: Syntax, flavor: Flavor, eol: u8) -> Result<Parsed, String> {
    let mut p = Parser {
        eol,
        p: pattern,
        i: 0,
        ere: syntax == Syntax::Extended,
        flavor,
        groups: 0,
        closed: Vec::new(),
        depth: 0,
        warnings: Vec::new(),
    };
    let node = p.alt()?;
    if p.i < p.p.len() {
        // Only an unmatched close can stop the top level early.
        return Err("Unmatched ) or \\)".into());
    }
    Ok(Parsed {
        node,
        groups: p.groups,
        warnings: p.warnings,
    })
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.p.get(self.i).copied()
    }

    fn peek2(&self) -> Option<u8> {
        self.p.get(self.i + 1).copied()
    }

    fn at_alt(&self) -> bool {
        if self.ere {
            self.peek() == Some(b'|')
        } else {
            self.peek() == Some(b'\\') && self.peek2() == Some(b'|')
        }
    }

    fn at_close(&self) -> bool {
        if self.ere {
            self.peek() == Some(b')') && self.depth > 0
        } else {
            self.peek() == Some(b'\\') && self.peek2() == Some(b')')
        }
    }

    fn alt(&mut self) -> Result<Node, String> {
        let mut branches = vec![self.concat()?];
        while self.at_alt() {
            self.i += if self.ere { 1 } else { 2 };
            branches.push(self.concat()?);
        }
        Ok(if branches.len() == 1 {
            branches.pop().unwrap()
        } else {
            Node::Alt(branches)
        })
    }

    fn concat(&mut self) -> Result<Node, String> {
        let mut items: Vec<Node> = Vec::new();
        let mut at_start = true;
        loop {
            if self.i >= self.p.len() || self.at_alt() || self.at_close() {
                break;
            }
            if !self.ere && self.peek() == Some(b'\\') && self.peek2() == Some(b')') {
                break;
            }
            let c = self.p[self.i];
            // Quantifiers with nothing to repeat.
            if at_start {
                if self.flavor == Flavor::Bash && matches!(c, b'*' | b'+' | b'?' | b'{') {
                    return Err(BADRPT.into());
                }
                if self.ere && matches!(c, b'*' | b'+' | b'?') {
                    self.warnings
                        .push(format!("{} at start of expression", c as char));
                    self.i += 1;
                    continue;
                }
                if self.ere && c == b'{' && self.interval_ahead() {
                    self.warnings.push("{...} at start of expression".into());
                    self.i += 1;
                    self.interval()?;
                    continue;
                }
                if !self.ere && c == b'*' {
                    self.warnings.push("* at start of expression".into());
                    self.i += 1;
                    items.push(self.quantified(Node::Lit(b'*'))?);
                    at_start = false;
                    continue;
                }
            }
            let atom = self.atom(at_start)?;
            if self.flavor == Flavor::Bash
                && matches!(atom, Node::LineEnd)
                && matches!(self.peek(), Some(b'*' | b'+' | b'?' | b'{'))
            {
                return Err(BADRPT.into());
            }
            let anchor = matches!(atom, Node::LineStart);
            let node = if anchor { atom } else { self.quantified(atom)? };
            items.push(node);
            // `*` right after a leading `^` is literal too.
            at_start = anchor && at_start;
        }
        Ok(match items.len() {
            0 => Node::Empty,
            1 => items.pop().unwrap(),
            _ => Node::Concat(items),
        })
    }

    /// True when a valid ERE interval starts at the current `{`.
    fn interval_ahead(&self) -> bool {
        let mut j = self.i + 1;
        let mut seen = false;
        while j < self.p.len() && (self.p[j].is_ascii_digit() || self.p[j] == b',') {
            seen = true;
            j += 1;
        }
        seen && j < self.p.len() && self.p[j] == b'}'
    }

    /// Parses an interval body after `{` / `\{`, consuming the close.
    fn interval(&mut self) -> Result<(u32, Option<u32>), String> {
        let num = |s: &mut Self| -> Option<u32> {
            let st = s.i;
            while s.peek().is_some_and(|c| c.is_ascii_digit()) {
                s.i += 1;
            }
            if s.i == st {
                None
            } else {
                Some(
                    std::str::from_utf8(&s.p[st..s.i])
                        .unwrap()
                        .parse::<u32>()
                        .unwrap_or(u32::MAX),
                )
            }
        };
        let min = num(self);
        let comma = self.peek() == Some(b',');
        let max = if comma {
            self.i += 1;
            num(self)
        } else {
            Some(min.unwrap_or(0))
        };
        if self.flavor == Flavor::Bash && min.is_none() && !comma {
            return Err("Invalid content of \\{\\}".into());
        }
        let close_ok = if self.ere {
            self.peek() == Some(b'}')
        } else {
            self.peek() == Some(b'\\') && self.peek2() == Some(b'}')
        };
        if !close_ok {
            if self.i >= self.p.len()
                || (!self.ere && self.peek() == Some(b'\\') && self.peek2().is_none())
            {
                return Err("Unmatched \\{".into());
            }
            return Err("Invalid content of \\{\\}".into());
        }
        self.i += if self.ere { 1 } else { 2 };
        let min = min.unwrap_or(0);
        if let Some(m) = max
            && m < min
        {
            return Err("Invalid content of \\{\\}".into());
        }
        if min > DUP_MAX || max.is_some_and(|m| m > DUP_MAX) {
            return Err("Regular expression too big".into());
        }
        Ok((min, max))
    }

    fn quantified(&mut self, mut atom: Node) -> Result<Node, String> {
        loop {
            let (min, max) = match (self.peek(), self.ere) {
                (Some(b'*'), _) => {
                    self.i += 1;
                    (0, None)
                }
                (Some(b'+'), true) => {
                    self.i += 1;
                    (1, None)
                }
                (Some(b'?'), true) => {
                    self.i += 1;
                    (0, Some(1))
                }
                (Some(b'{'), true) => {
                    if self.flavor != Flavor::Bash && !self.ere_interval_start() {
                        break;
                    }
                    self.i += 1;
                    self.interval()?
                }
                (Some(b'\\'), false) => match self.peek2() {
                    Some(b'+') => {
                        self.i += 2;
                        (1, None)
                    }
                    Some(b'?') => {
                        self.i += 2;
                        (0, Some(1))
                    }
                    Some(b'{') => {
                        self.i += 2;
                        self.interval()?
                    }
                    _ => break,
                },
                _ => break,
            };
            atom = Node::Repeat(Box::new(atom), min, max);
        }
        Ok(atom)
    }

    /// An ERE `{` starts an interval unless what follows cannot be one
    /// (then glibc takes the `{` literally).
    fn ere_interval_start(&self) -> bool {
        let mut j = self.i + 1;
        if !self
            .p
            .get(j)
            .is_some_and(|c| c.is_ascii_digit() || *c == b',')
        {
            return false;
        }
        while j < self.p.len() && (self.p[j].is_ascii_digit() || self.p[j] == b',') {
            j += 1;
        }
        // Reaching the end without a close: literal.
        j < self.p.len()
    }

    fn atom(&mut self, at_start: bool) -> Result<Node, String> {
        let c = self.p[self.i];
        self.i += 1;
        match c {
            b'.' => Ok(Node::Any),
            b'[' => self.bracket(),
            b'^' if self.ere || at_start => Ok(Node::LineStart),
            b'$' if self.ere || self.at_bre_end() => Ok(Node::LineEnd),
            b'(' if self.ere => self.group(),
            b'\\' => self.escape(),
            b'{' if self.flavor == Flavor::Bash => Err(BADRPT.into()),
            0xC0.. if self.flavor == Flavor::Bash => {
                // A multibyte character repeats as a whole (`é+`).
                let end = utf8_end(self.p, self.i, c);
                let bytes = self.p[self.i - 1..end].iter().map(|&b| Node::Lit(b));
                self.i = end;
                Ok(Node::Group(Box::new(Node::Concat(bytes.collect())), None))
            }
            _ => Ok(Node::Lit(c)),
        }
    }

    fn at_bre_end(&self) -> bool {
        self.i >= self.p.len()
            || (self.peek() == Some(b'\\') && matches!(self.peek2(), Some(b')') | Some(b'|')))
    }

    fn group(&mut self) -> Result<Node, String> {
        self.groups += 1;
        let n = self.groups;
        self.depth += 1;
        let inner = self.alt()?;
        self.depth -= 1;
        let closed = if self.ere {
            self.peek() == Some(b')')
        } else {
            self.peek() == Some(b'\\') && self.peek2() == Some(b')')
        };
        if !closed {
            return Err("Unmatched ( or \\(".into());
        }
        self.i += if self.ere { 1 } else { 2 };
        self.closed.push(n);
        Ok(Node::Group(Box::new(inner), Some(n)))
    }

    fn escape(&mut self) -> Result<Node, String> {
        let Some(c) = self.peek() else {
            return Err("Trailing backslash".into());
        };
        self.i += 1;
        Ok(match c {
            b'(' if !self.ere => return self.group(),
            b')' if !self.ere => return Err("Unmatched ) or \\)".into()),
            b'{' if !self.ere => Node::Lit(b'{'),
            b'1'..=b'9' => {
                let n = (c - b'0') as usize;
                if !self.closed.contains(&n) {
                    return Err("Invalid back reference".into());
                }
                Node::Backref(n)
            }
            b'w' | b'W' | b's' | b'S' => {
                let mut set = [false; 256];
                for b in 0..=255u8 {
                    set[b as usize] = if c.eq_ignore_ascii_case(&b'w') {
                        b.is_ascii_alphanumeric() || b == b'_'
                    } else {
                        matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
                    };
                }
                if c.is_ascii_uppercase() {
                    for v in set.iter_mut() {
                        *v = !*v;
                    }
                }
                if self.flavor == Flavor::Grep {
                    set[self.eol as usize] = false;
                }
                Node::Class(Box::new(set))
            }
            b'b' => Node::WordBoundary,
            b'B' => Node::NotWordBoundary,
            b'<' => Node::WordStart,
            b'>' => Node::WordEnd,
            b'`' => Node::TextStart,
            b'\'' => Node::TextEnd,
            _ if self.flavor == Flavor::Sed => match self.sed_escape(c)? {
                Some(b) => Node::Lit(b),
                None => Node::Lit(c),
            },
            _ => Node::Lit(c),
        })
    }

    /// GNU sed's character escapes (`\n`, `\t`, `\xHH`, `\o`, `\d`, `\cX`).
    fn sed_escape(&mut self, c: u8) -> Result<Option<u8>, String> {
        Ok(Some(match c {
            b'n' => b'\n',
            b't' => b'\t',
            b'r' => b'\r',
            b'f' => 0x0c,
            b'v' => 0x0b,
            b'a' => 0x07,
            b'c' => {
                let Some(x) = self.peek() else {
                    return Ok(Some(b'c'));
                };
                self.i += 1;
                x.to_ascii_uppercase() ^ 0x40
            }
            b'd' | b'o' | b'x' => {
                let (radix, maxlen) = match c {
                    b'd' => (10, 3),
                    b'o' => (8, 3),
                    _ => (16, 2),
                };
                let st = self.i;
                while self.i < self.p.len()
                    && self.i - st < maxlen
                    && (self.p[self.i] as char).is_digit(radix)
                {
                    self.i += 1;
                }
                if self.i == st {
                    return Ok(None);
                }
                let s = std::str::from_utf8(&self.p[st..self.i]).unwrap();
                (u32::from_str_radix(s, radix).unwrap_or(0) & 0xff) as u8
            }
            _ => return Ok(None),
        }))
    }

    fn bracket(&mut self) -> Result<Node, String> {
        const UNMATCHED: &str = "Unmatched [, [^, [:, [., or [=";
        let start = self.i;
        let mut set = [false; 256];
        let negate = self.peek() == Some(b'^');
        if negate {
            self.i += 1;
        }
        let mut first = true;
        let mut prev: Option<u8> = None;
        // Multibyte characters listed in a bash bracket (`[éa]`).
        let mut chars: Vec<Node> = Vec::new();
        loop {
            let Some(c) = self.peek() else {
                return Err(UNMATCHED.into());
            };
            if c == b']' && !first {
                self.i += 1;
                break;
            }
            first = false;
            // A character-class-like construct.
            if c == b'[' && matches!(self.peek2(), Some(b':') | Some(b'=') | Some(b'.')) {
                prev = self.bracket_construct(&mut set)?;
                continue;
            }
            self.i += 1;
            let mut c = c;
            if c >= 0xC0 && self.flavor == Flavor::Bash && !negate {
                let end = utf8_end(self.p, self.i, c);
                let bytes = self.p[self.i - 1..end].iter().map(|&b| Node::Lit(b));
                chars.push(Node::Concat(bytes.collect()));
                self.i = end;
                prev = None;
                continue;
            }
            if c == b'\\' && self.flavor == Flavor::Sed {
                match self.peek() {
                    Some(b'n') => {
                        self.i += 1;
                        c = b'\n';
                    }
                    Some(b't') => {
                        self.i += 1;
                        c = b'\t';
                    }
                    Some(b'\\') => {
                        self.i += 1;
                    }
                    Some(b']') => {
                        self.i += 1;
                        c = b']';
                    }
                    _ => {}
                }
            }
            // A range `c-d` (a `-` before the closing `]` is literal).
            if c == b'-' && prev.is_some() && self.peek() != Some(b']') && self.peek().is_some() {
                self.bracket_range(&mut set, prev.unwrap())?;
                prev = None;
                continue;
            }
            set[c as usize] = true;
            prev = Some(c);
        }
        let body = &self.p[start..self.i - 1];
        if self.flavor == Flavor::Grep
            && body.len() >= 2
            && body[0] == b':'
            && body[body.len() - 1] == b':'
        {
            let name = String::from_utf8_lossy(body);
            return Err(format!(
                "character class syntax is [[{name}]], not [{name}]"
            ));
        }
        if negate {
            for v in set.iter_mut() {
                *v = !*v;
            }
            if self.flavor == Flavor::Grep {
                set[self.eol as usize] = false;
            }
        }
        if self.flavor == Flavor::Grep {
            set[self.eol as usize] = false;
        }
        let class = Node::Class(Box::new(set));
        if chars.is_empty() {
            return Ok(class);
        }
        chars.push(class);
        Ok(Node::Group(Box::new(Node::Alt(chars)), None))
    }

    /// A `[:class:]`, `[=c=]` or `[.c.]` inside a bracket (at `self.i`),
    /// added to `set`; the character a following `-` ranges from, if any.
    fn bracket_construct(&mut self, set: &mut ByteSet) -> Result<Option<u8>, String> {
        const UNMATCHED: &str = "Unmatched [, [^, [:, [., or [=";
        let kind = self.peek2().unwrap();
        let body_start = self.i + 2;
        let mut j = body_start;
        while j + 1 < self.p.len() && !(self.p[j] == kind && self.p[j + 1] == b']') {
            j += 1;
        }
        if j + 1 >= self.p.len() {
            return Err(UNMATCHED.into());
        }
        let body = &self.p[body_start..j];
        self.i = j + 2;
        match kind {
            b':' => {
                let name = std::str::from_utf8(body).unwrap_or("");
                if !add_class(set, name) {
                    return Err("Invalid character class name".into());
                }
                if self.flavor == Flavor::Bash
                    && matches!(name, "alpha" | "alnum" | "print" | "graph")
                {
                    // Most non-ASCII characters are letters.
                    set[0x80..].fill(true);
                }
                Ok(None)
            }
            _ => {
                if body.len() != 1 {
                    return Err("Invalid collation character".into());
                }
                set[body[0] as usize] = true;
                Ok(Some(body[0]))
            }
        }
    }

    /// The range `lo-HI` inside a bracket, `self.i` at HI (a byte or
    /// `[.c.]`), added to `set`.
    fn bracket_range(&mut self, set: &mut ByteSet, lo: u8) -> Result<(), String> {
        let mut hi = self.p[self.i];
        self.i += 1;
        if hi == b'[' && self.peek() == Some(b'.') {
            let j = self.i + 1;
            if j + 2 < self.p.len() + 1
                && self.p.get(j + 1) == Some(&b'.')
                && self.p.get(j + 2) == Some(&b']')
            {
                hi = self.p[j];
                self.i = j + 3;
            } else {
                return Err("Invalid range end".into());
            }
        }
        if hi < lo {
            return Err("Invalid range end".into());
        }
        for b in lo..=hi {
            set[b as usize] = true;
        }
        Ok(())
    }
}

/// Adds the POSIX class `name` (C locale) to `set`; false for an unknown name.
pub fn add_class(set: &mut ByteSet, name: &str) -> bool {
    let f: fn(u8) -> bool = match name {
        "alpha" => |b| b.is_ascii_alphabetic(),
        "digit" => |b| b.is_ascii_digit(),
        "alnum" => |b| b.is_ascii_alphanumeric(),
        "upper" => |b| b.is_ascii_uppercase(),
        "lower" => |b| b.is_ascii_lowercase(),
        "space" => |b| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c),
        "blank" => |b| b == b' ' || b == b'\t',
        "punct" => |b| b.is_ascii_punctuation(),
        "print" => |b| (0x20..0x7f).contains(&b),
        "graph" => |b| (0x21..0x7f).contains(&b),
        "cntrl" => |b| b < 0x20 || b == 0x7f,
        "xdigit" => |b| b.is_ascii_hexdigit(),
        _ => return false,
    };
    for b in 0..=255u8 {
        if f(b) {
            set[b as usize] = true;
        }
    }
    true
}
