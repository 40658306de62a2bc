//! The sed script parser: addresses, commands, `s` replacements and text
//! arguments (GNU one-liner forms included), compiled into a flat program
//! whose blocks and branches are resolved to instruction indices.

use std::collections::HashMap;
use std::rc::Rc;

use super::super::posix_regex::{Flavor, Regex, RegexOptions, Syntax};

/// A regex of an address or `s` command; `None` means "the last regex used".
pub type Re = Option<Rc<Regex>>;

/// The first address of a command.
#[derive(Clone, Debug)]
pub enum Addr {
    /// A line number.
    Line(u64),
    /// `$`
    Last,
    /// `/re/`
    Re(Re),
    /// `first~step`
    Step(u64, u64),
    /// `0` (only as `0,/re/`)
    Zero,
}

/// The second address of a range.
#[derive(Clone, Debug)]
pub enum Addr2 {
    /// A line number.
    Line(u64),
    /// `$`
    Last,
    /// `/re/`
    Re(Re),
    /// `+N`
    Plus(u64),
    /// `~N`
    Tilde(u64),
}

/// One piece of an `s` replacement.
#[derive(Clone, Debug, PartialEq)]
pub enum Repl {
    /// Literal bytes.
    Lit(Vec<u8>),
    /// `&` (0) or `\N`.
    Group(usize),
    /// `\U`, `\L`, `\E`: case mode for what follows.
    Case(CaseMode),
    /// `\u`, `\l`: case of the next byte only.
    One(bool),
}

/// A case-conversion mode of a replacement.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CaseMode {
    /// `\U`
    Upper,
    /// `\L`
    Lower,
    /// `\E`
    None,
}

/// An `s` command.
#[derive(Clone, Debug)]
pub struct Subst {
    /// The regex.
    pub re: Re,
    /// The replacement.
    pub repl: Vec<Repl>,
    /// `g`
    pub global: bool,
    /// `N`: replace the Nth match (and later ones with `g`).
    pub nth: u64,
    /// `p` (may be given twice: print twice).
    pub print: u32,
    /// `w FILE`
    pub wfile: Option<String>,
}

/// What a command does.
#[derive(Clone, Debug)]
pub enum Kind {
    /// `{`: the index of the matching `}`.
    Block(usize),
    /// `}`
    EndBlock,
    /// `=`
    LineNo,
    /// `a`
    Append(Vec<u8>),
    /// `i`
    Insert(Vec<u8>),
    /// `c`
    Change(Vec<u8>),
    /// `b`: target index (`None`: end of script).
    Branch(Option<usize>),
    /// `t`
    BranchIf(Option<usize>),
    /// `T`
    BranchUnless(Option<usize>),
    /// `:label` (no-op at run time)
    Label,
    /// `d`
    Delete,
    /// `D`
    DeleteFirst,
    /// `p`
    Print,
    /// `P`
    PrintFirst,
    /// `n`
    Next,
    /// `N`
    NextAppend,
    /// `g`
    Get,
    /// `G`
    GetAppend,
    /// `h`
    Hold,
    /// `H`
    HoldAppend,
    /// `x`
    Exchange,
    /// `l [N]`
    List(Option<usize>),
    /// `q [code]`
    Quit(i32),
    /// `Q [code]`
    QuitSilent(i32),
    /// `r FILE`
    ReadFile(String),
    /// `R FILE`
    ReadLine(String),
    /// `w FILE`
    Write(String),
    /// `W FILE`
    WriteFirst(String),
    /// `s`
    Subst(Box<Subst>),
    /// `y`
    Translate(Box<[u8; 256]>),
    /// `z`
    Zap,
    /// `F`
    FileName,
}

/// One compiled command.
#[derive(Clone, Debug)]
pub struct Cmd {
    /// First address.
    pub a1: Option<Addr>,
    /// Second address (a range).
    pub a2: Option<Addr2>,
    /// `!`
    pub negate: bool,
    /// The command.
    pub kind: Kind,
}

/// Parser settings.
#[derive(Clone, Copy, Debug, Default)]
pub struct ParseOpts {
    /// `-E`/`-r`
    pub extended: bool,
}

struct P<'a> {
    s: &'a [u8],
    i: usize,
    opts: ParseOpts,
    labels: HashMap<Vec<u8>, usize>,
    pending: Vec<(usize, Vec<u8>)>,
    blocks: Vec<usize>,
    cmds: Vec<Cmd>,
}

/// Parses a whole script. Errors are GNU's text after `-e expression #1, char N: `.
pub fn parse(script: &[u8], opts: ParseOpts) -> Result<Vec<Cmd>, String> {
    let mut p = P {
        s: script,
        i: 0,
        opts,
        labels: HashMap::new(),
        pending: Vec::new(),
        blocks: Vec::new(),
        cmds: Vec::new(),
    };
    p.script()
        .map_err(|e| format!("-e expression #1, char {}: {e}", p.i.min(script.len())))?;
    Ok(p.cmds)
}

fn is_space(c: u8) -> bool {
    c == b' ' || c == b'\t'
}

impl P<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(is_space) {
            self.i += 1;
        }
    }

    fn skip_ws_nl(&mut self) {
        while self
            .peek()
            .is_some_and(|c| is_space(c) || c == b'\n' || c == b';')
        {
            self.i += 1;
        }
    }

    fn script(&mut self) -> Result<(), String> {
        loop {
            self.skip_ws_nl();
            let Some(c) = self.peek() else { break };
            if c == b'#' {
                while self.peek().is_some_and(|c| c != b'\n') {
                    self.i += 1;
                }
                continue;
            }
            self.command()?;
        }
        if !self.blocks.is_empty() {
            return Err("unmatched `{'".into());
        }
        for (idx, label) in std::mem::take(&mut self.pending) {
            let Some(&target) = self.labels.get(&label) else {
                return Err(format!(
                    "can't find label for jump to `{}'",
                    String::from_utf8_lossy(&label)
                ));
            };
            match &mut self.cmds[idx].kind {
                Kind::Branch(t) | Kind::BranchIf(t) | Kind::BranchUnless(t) => *t = Some(target),
                _ => unreachable!(),
            }
        }
        Ok(())
    }

    fn number(&mut self) -> Option<u64> {
        let st = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
        }
        (self.i > st).then(|| {
            std::str::from_utf8(&self.s[st..self.i])
                .unwrap()
                .parse()
                .unwrap_or(u64::MAX)
        })
    }

    fn regex_addr(&mut self, delim: u8) -> Result<Re, String> {
        let body = self.delimited(delim, true)?;
        let mut icase = false;
        let mut multi = false;
        loop {
            match self.peek() {
                Some(b'I') => icase = true,
                Some(b'M') => multi = true,
                _ => break,
            }
            self.i += 1;
        }
        self.compile(&body, icase, multi)
    }

    fn compile(&self, body: &[u8], icase: bool, multiline: bool) -> Result<Re, String> {
        if body.is_empty() {
            return Ok(None);
        }
        let opts = RegexOptions {
            syntax: if self.opts.extended {
                Syntax::Extended
            } else {
                Syntax::Basic
            },
            flavor: Flavor::Sed,
            icase,
            multiline,
            null_data: false,
        };
        Regex::new(body, opts).map(|r| Some(Rc::new(r)))
    }

    fn addr1(&mut self) -> Result<Option<Addr>, String> {
        Ok(Some(match self.peek() {
            Some(b'$') => {
                self.i += 1;
                Addr::Last
            }
            Some(b'/') => {
                self.i += 1;
                Addr::Re(self.regex_addr(b'/')?)
            }
            Some(b'\\') => {
                self.i += 1;
                let Some(d) = self.peek() else {
                    return Err("unexpected `,'".into());
                };
                self.i += 1;
                Addr::Re(self.regex_addr(d)?)
            }
            Some(c) if c.is_ascii_digit() => {
                let n = self.number().unwrap();
                if self.peek() == Some(b'~') {
                    self.i += 1;
                    let step = self.number().unwrap_or(0);
                    Addr::Step(n, step)
                } else if n == 0 {
                    Addr::Zero
                } else {
                    Addr::Line(n)
                }
            }
            _ => return Ok(None),
        }))
    }

    fn addr2(&mut self) -> Result<Addr2, String> {
        self.skip_ws();
        Ok(match self.peek() {
            Some(b'$') => {
                self.i += 1;
                Addr2::Last
            }
            Some(b'/') => {
                self.i += 1;
                Addr2::Re(self.regex_addr(b'/')?)
            }
            Some(b'\\') => {
                self.i += 1;
                let Some(d) = self.peek() else {
                    return Err("unexpected `,'".into());
                };
                self.i += 1;
                Addr2::Re(self.regex_addr(d)?)
            }
            Some(b'+') | Some(b'~') => {
                let c = self.peek().unwrap();
                self.i += 1;
                let Some(n) = self.number() else {
                    return Err("expected newer version of sed".into());
                };
                if c == b'+' {
                    Addr2::Plus(n)
                } else {
                    Addr2::Tilde(n)
                }
            }
            Some(c) if c.is_ascii_digit() => Addr2::Line(self.number().unwrap()),
            _ => return Err("unexpected `,'".into()),
        })
    }

    /// One command: its addresses, `!`, the command letter and its arguments.
    fn command(&mut self) -> Result<(), String> {
        let a1 = self.addr1()?;
        let mut a2 = None;
        if a1.is_some() {
            self.skip_ws();
            if self.peek() == Some(b',') {
                self.i += 1;
                a2 = Some(self.addr2()?);
            }
        }
        if matches!(a1, Some(Addr::Zero)) && !matches!(a2, Some(Addr2::Re(_))) {
            return Err("invalid usage of line address 0".into());
        }
        self.skip_ws();
        let mut negate = false;
        while self.peek() == Some(b'!') {
            negate = true;
            self.i += 1;
            self.skip_ws();
        }
        let Some(c) = self.peek() else {
            return Err("missing command".into());
        };
        self.i += 1;
        let kind = self.command_kind(c, a1.is_some(), a2.is_some())?;
        self.cmds.push(Cmd {
            a1,
            a2,
            negate,
            kind,
        });
        self.end_of_command(c)
    }

    /// The command `c` (just read) with its arguments; `has_addr` and
    /// `two_addrs` say what addresses it was given, for the commands that
    /// refuse them.
    fn command_kind(&mut self, c: u8, has_addr: bool, two_addrs: bool) -> Result<Kind, String> {
        Ok(match c {
            b'{' => {
                self.blocks.push(self.cmds.len());
                Kind::Block(0)
            }
            b'}' => {
                if has_addr {
                    return Err("} doesn't want any addresses".into());
                }
                let Some(open) = self.blocks.pop() else {
                    return Err("unexpected `}'".into());
                };
                let here = self.cmds.len();
                self.cmds[open].kind = Kind::Block(here);
                Kind::EndBlock
            }
            b'=' => Kind::LineNo,
            b'a' | b'i' | b'c' => {
                let t = self.text()?;
                match c {
                    b'a' => Kind::Append(t),
                    b'i' => Kind::Insert(t),
                    _ => Kind::Change(t),
                }
            }
            b':' => {
                if has_addr {
                    return Err(": doesn't want any addresses".into());
                }
                let l = self.label();
                if l.is_empty() {
                    return Err("\":\" lacks a label".into());
                }
                self.labels.insert(l, self.cmds.len());
                Kind::Label
            }
            b'b' | b't' | b'T' => {
                let l = self.label();
                if !l.is_empty() {
                    self.pending.push((self.cmds.len(), l));
                }
                match c {
                    b'b' => Kind::Branch(None),
                    b't' => Kind::BranchIf(None),
                    _ => Kind::BranchUnless(None),
                }
            }
            b'd' => Kind::Delete,
            b'D' => Kind::DeleteFirst,
            b'p' => Kind::Print,
            b'P' => Kind::PrintFirst,
            b'n' => Kind::Next,
            b'N' => Kind::NextAppend,
            b'g' => Kind::Get,
            b'G' => Kind::GetAppend,
            b'h' => Kind::Hold,
            b'H' => Kind::HoldAppend,
            b'x' => Kind::Exchange,
            b'z' => Kind::Zap,
            b'F' => Kind::FileName,
            b'l' => {
                self.skip_ws();
                Kind::List(self.number().map(|n| n as usize))
            }
            b'q' | b'Q' => {
                if two_addrs {
                    return Err("command only uses one address".into());
                }
                self.skip_ws();
                let n = self.number().unwrap_or(0) as i32;
                if c == b'q' {
                    Kind::Quit(n)
                } else {
                    Kind::QuitSilent(n)
                }
            }
            b'r' | b'R' | b'w' | b'W' => {
                let f = self.filename();
                if f.is_empty() && c != b'r' {
                    return Err("missing filename in r/R/w/W commands".into());
                }
                match c {
                    b'r' => Kind::ReadFile(f),
                    b'R' => Kind::ReadLine(f),
                    b'w' => Kind::Write(f),
                    _ => Kind::WriteFirst(f),
                }
            }
            b's' => Kind::Subst(Box::new(self.subst()?)),
            b'y' => Kind::Translate(Box::new(self.translate()?)),
            b'e' => return Err("e command is not supported in the sandbox".into()),
            b'v' => {
                self.label();
                Kind::Label
            }
            b'#' => return Err("comments don't accept any addresses".into()),
            _ => return Err(format!("unknown command: `{}'", c as char)),
        })
    }

    /// After a command: spaces, then `;`, newline, `}`, `#` or the end.
    fn end_of_command(&mut self, c: u8) -> Result<(), String> {
        if matches!(
            c,
            b'a' | b'i' | b'c' | b'r' | b'R' | b'w' | b'W' | b':' | b'b' | b't' | b'T' | b'{'
        ) {
            return Ok(());
        }
        self.skip_ws();
        match self.peek() {
            None | Some(b';') | Some(b'\n') | Some(b'}') | Some(b'#') => Ok(()),
            Some(_) => Err("extra characters after command".into()),
        }
    }

    /// A label of `:`, `b`, `t`, `T`: it ends at a blank, newline, `;`,
    /// `}` or `#` (GNU 4.9), so `b l }` and `b l}` close a block.
    fn label(&mut self) -> Vec<u8> {
        self.skip_ws();
        let st = self.i;
        while self
            .peek()
            .is_some_and(|c| !matches!(c, b'\n' | b';' | b'}' | b'#') && !is_space(c))
        {
            self.i += 1;
        }
        self.s[st..self.i].to_vec()
    }

    fn filename(&mut self) -> String {
        self.skip_ws();
        let st = self.i;
        while self.peek().is_some_and(|c| c != b'\n') {
            self.i += 1;
        }
        String::from_utf8_lossy(&self.s[st..self.i]).into_owned()
    }

    /// The text of `a`, `i`, `c`: `a\` + newline + lines (a trailing `\`
    /// continues), or GNU's one-liner `a text`.
    fn text(&mut self) -> Result<Vec<u8>, String> {
        self.skip_ws();
        if self.peek().is_none() {
            return Err("expected \\ after `a', `c' or `i'".into());
        }
        if self.peek() == Some(b'\\') {
            self.i += 1;
            // `$a\` ending the script has no text at all: it only adds a
            // missing final newline (the idiom that ends a file with one).
            if self.peek().is_none() {
                return Ok(Vec::new());
            }
            if self.peek() == Some(b'\n') {
                self.i += 1;
            }
        }
        let mut t = Vec::new();
        loop {
            match self.peek() {
                None => break,
                Some(b'\n') => {
                    self.i += 1;
                    break;
                }
                Some(b'\\') => {
                    self.i += 1;
                    match self.peek() {
                        None => break,
                        Some(c) => {
                            t.push(match c {
                                b't' => b'\t',
                                b'n' => b'\n',
                                b'r' => b'\r',
                                b'f' => 0x0c,
                                b'v' => 0x0b,
                                b'a' => 0x07,
                                _ => c,
                            });
                            self.i += 1;
                        }
                    }
                }
                Some(c) => {
                    t.push(c);
                    self.i += 1;
                }
            }
        }
        t.push(b'\n');
        Ok(t)
    }

    /// Reads up to an unescaped `delim`; in a regex (`re`), `\delim` becomes
    /// `delim` and `\n` a newline, other escapes are kept for the regex parser.
    fn delimited(&mut self, delim: u8, re: bool) -> Result<Vec<u8>, String> {
        let mut out = Vec::new();
        let mut in_bracket = false;
        loop {
            let Some(c) = self.peek() else {
                return Err(if re {
                    "unterminated address regex".into()
                } else {
                    "unterminated `s' command".into()
                });
            };
            self.i += 1;
            if c == b'\\' {
                let Some(n) = self.peek() else {
                    return Err("unterminated `s' command".into());
                };
                self.i += 1;
                if n == delim && !in_bracket {
                    out.push(delim);
                } else if n == b'\n' {
                    out.push(b'\n');
                } else {
                    out.push(b'\\');
                    out.push(n);
                }
                continue;
            }
            if re && c == b'[' && !in_bracket {
                in_bracket = true;
                out.push(c);
                // A `]` right after `[` or `[^` is literal.
                if self.peek() == Some(b'^') {
                    out.push(b'^');
                    self.i += 1;
                }
                if self.peek() == Some(b']') {
                    out.push(b']');
                    self.i += 1;
                }
                continue;
            }
            if in_bracket {
                if c == b'[' && matches!(self.peek(), Some(b':') | Some(b'.') | Some(b'=')) {
                    let k = self.peek().unwrap();
                    out.push(c);
                    out.push(k);
                    self.i += 1;
                    while let Some(x) = self.peek() {
                        self.i += 1;
                        out.push(x);
                        if x == k && self.peek() == Some(b']') {
                            out.push(b']');
                            self.i += 1;
                            break;
                        }
                    }
                    continue;
                }
                if c == b']' {
                    in_bracket = false;
                }
                out.push(c);
                continue;
            }
            if c == delim {
                return Ok(out);
            }
            if c == b'\n' && re {
                return Err("unterminated address regex".into());
            }
            out.push(c);
        }
    }

    fn subst(&mut self) -> Result<Subst, String> {
        let Some(delim) = self.peek() else {
            return Err("unterminated `s' command".into());
        };
        if delim == b'\n' || delim == b'\\' {
            return Err("unterminated `s' command".into());
        }
        self.i += 1;
        let pat = self
            .delimited(delim, true)
            .map_err(|_| "unterminated `s' command".to_string())?;
        let repl = self.replacement(delim)?;
        let mut s = Subst {
            re: None,
            repl,
            global: false,
            nth: 1,
            print: 0,
            wfile: None,
        };
        let (mut icase, mut multi) = (false, false);
        let mut nth_given = false;
        loop {
            match self.peek() {
                Some(b'g') => s.global = true,
                Some(b'p') => s.print += 1,
                Some(b'i') | Some(b'I') => icase = true,
                Some(b'm') | Some(b'M') => multi = true,
                Some(b'e') => return Err("e flag is not supported in the sandbox".into()),
                Some(c) if c.is_ascii_digit() => {
                    if nth_given {
                        return Err("multiple number options to `s' command".into());
                    }
                    let n = self.number().unwrap();
                    if n == 0 {
                        return Err("number option to `s' command may not be zero".into());
                    }
                    s.nth = n;
                    nth_given = true;
                    continue;
                }
                Some(b'w') => {
                    self.i += 1;
                    s.wfile = Some(self.filename());
                    break;
                }
                _ => break,
            }
            self.i += 1;
        }
        s.re = self.compile(&pat, icase, multi)?;
        Ok(s)
    }

    fn replacement(&mut self, delim: u8) -> Result<Vec<Repl>, String> {
        let mut v: Vec<Repl> = Vec::new();
        let mut lit = Vec::new();
        let flush = |lit: &mut Vec<u8>, v: &mut Vec<Repl>| {
            if !lit.is_empty() {
                v.push(Repl::Lit(std::mem::take(lit)));
            }
        };
        loop {
            let Some(c) = self.peek() else {
                return Err("unterminated `s' command".into());
            };
            self.i += 1;
            if c == delim {
                break;
            }
            match c {
                b'&' => {
                    flush(&mut lit, &mut v);
                    v.push(Repl::Group(0));
                }
                b'\\' => {
                    let Some(n) = self.peek() else {
                        return Err("unterminated `s' command".into());
                    };
                    self.i += 1;
                    match n {
                        // `\` + the delimiter is the delimiter itself, even
                        // a digit or `n` (`s1a1\11` writes a `1`).
                        _ if n == delim => lit.push(n),
                        b'0'..=b'9' => {
                            flush(&mut lit, &mut v);
                            v.push(Repl::Group((n - b'0') as usize));
                        }
                        b'n' => lit.push(b'\n'),
                        b't' => lit.push(b'\t'),
                        b'r' => lit.push(b'\r'),
                        b'f' => lit.push(0x0c),
                        b'v' => lit.push(0x0b),
                        b'a' => lit.push(0x07),
                        b'U' | b'L' | b'E' => {
                            flush(&mut lit, &mut v);
                            v.push(Repl::Case(match n {
                                b'U' => CaseMode::Upper,
                                b'L' => CaseMode::Lower,
                                _ => CaseMode::None,
                            }));
                        }
                        b'u' | b'l' => {
                            flush(&mut lit, &mut v);
                            v.push(Repl::One(n == b'u'));
                        }
                        b'c' => {
                            if let Some(x) = self.peek() {
                                self.i += 1;
                                lit.push(x.to_ascii_uppercase() ^ 0x40);
                            }
                        }
                        b'x' => {
                            let st = self.i;
                            while self.i < self.s.len()
                                && self.i - st < 2
                                && self.s[self.i].is_ascii_hexdigit()
                            {
                                self.i += 1;
                            }
                            if self.i == st {
                                lit.push(b'x');
                            } else {
                                let h = std::str::from_utf8(&self.s[st..self.i]).unwrap();
                                lit.push(u8::from_str_radix(h, 16).unwrap());
                            }
                        }
                        _ => lit.push(n),
                    }
                }
                _ => lit.push(c),
            }
        }
        flush(&mut lit, &mut v);
        Ok(v)
    }

    fn translate(&mut self) -> Result<[u8; 256], String> {
        let Some(delim) = self.peek() else {
            return Err("unterminated `y' command".into());
        };
        self.i += 1;
        let mut parts = Vec::new();
        for _ in 0..2 {
            let mut out = Vec::new();
            loop {
                let Some(c) = self.peek() else {
                    return Err("unterminated `y' command".into());
                };
                self.i += 1;
                if c == delim {
                    break;
                }
                if c == b'\\' {
                    let Some(n) = self.peek() else {
                        return Err("unterminated `y' command".into());
                    };
                    self.i += 1;
                    out.push(match n {
                        b'n' => b'\n',
                        b't' => b'\t',
                        b'r' => b'\r',
                        b'\\' => b'\\',
                        _ if n == delim => n,
                        _ => return Err("unknown option to `y'".into()),
                    });
                    continue;
                }
                out.push(c);
            }
            parts.push(out);
        }
        if parts[0].len() != parts[1].len() {
            return Err("strings for `y' command are different lengths".into());
        }
        let mut map = [0u8; 256];
        for (i, m) in map.iter_mut().enumerate() {
            *m = i as u8;
        }
        for (a, b) in parts[0].iter().zip(parts[1].iter()) {
            map[*a as usize] = *b;
        }
        Ok(map)
    }
}
