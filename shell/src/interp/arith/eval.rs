//! The arithmetic evaluator proper: a tokenizer and a recursive-descent parser
//! that evaluates as it goes, following bash's `expr.c` (precedence, no-eval
//! of skipped branches, error-token reporting).

use super::ArithFail;
use crate::interp::Interp;

/// Nesting limit of expressions evaluated through variable values: bash's
/// (ble.sh-style recursive expressions go some hundred levels deep). Each
/// level also checks the native stack (`deep_point`), so a thread with a
/// small stack stops cleanly before overflowing.
const MAX_DEPTH: usize = 1024;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Comma,
    Assign,
    Compound(Bin),
    Quest,
    Colon,
    LOr,
    LAnd,
    Bin(Bin),
    Not,
    BNot,
    PreInc,
    PreDec,
    LParen,
    RParen,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bin {
    BOr,
    BXor,
    BAnd,
    Eq,
    Ne,
    Le,
    Ge,
    Lt,
    Gt,
    Shl,
    Shr,
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Pow,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tok {
    Eof,
    Num(i64),
    /// An identifier, with an optional subscript: byte ranges into the text.
    Ident {
        name: (usize, usize),
        sub: Option<(usize, usize)>,
    },
    Op(Op),
}

thread_local! {
    static ACTIVE: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// One [`evaluate`] under way on this thread, counted while it lives.
struct Active;

impl Active {
    fn enter() -> Active {
        ACTIVE.with(|a| a.set(a.get() + 1));
        Active
    }

    fn count() -> usize {
        ACTIVE.with(std::cell::Cell::get)
    }
}

impl Drop for Active {
    fn drop(&mut self) {
        ACTIVE.with(|a| a.set(a.get().saturating_sub(1)));
    }
}

/// Evaluates `text` (already expanded) at recursion depth `depth`.
pub(super) fn evaluate(interp: &mut Interp, text: &str, depth: usize) -> Result<i64, ArithFail> {
    // Fast path: a plain decimal constant (the common case for variable values).
    if let Some(v) = plain_decimal(text) {
        return Ok(v);
    }
    if depth > 0 {
        crate::cancel::deep_point();
    }
    // `depth` restarts at each array subscript (`arith_element` evaluates
    // one from 0), so `ref='a[ref}'; echo ${!ref}` recursed through
    // subscripts without reaching MAX_DEPTH; during an expansion no cancel
    // scope is set, so `deep_point` could not stop it either, and the
    // stack overflow aborted the process. The evaluations under way on this
    // thread bound every path (one more than `depth` on a plain chain).
    let _active = Active::enter();
    if depth >= MAX_DEPTH || Active::count() > MAX_DEPTH {
        return Err(ArithFail::Error(format!(
            "{text}: expression recursion level exceeded (error token is \"{text}\")"
        )));
    }
    let mut ev = Ev {
        interp,
        text,
        s: text.as_bytes(),
        pos: 0,
        lasttp: 0,
        tok: Tok::Eof,
        ntok: 0,
        noeval: 0,
        depth,
    };
    ev.next()?;
    if ev.tok == Tok::Eof {
        return Ok(0);
    }
    let v = ev.comma()?;
    if ev.tok != Tok::Eof {
        return Err(ev.err("syntax error in expression"));
    }
    Ok(v)
}

/// A decimal literal with optional surrounding blanks, without overflow.
pub(crate) fn plain_decimal(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    if b.is_empty() || b.len() > 18 {
        return None;
    }
    let mut v: i64 = 0;
    let mut i = 0;
    while i < b.len() && b[i] == b' ' {
        i += 1;
    }
    let start = i;
    if i < b.len() && b[i] == b'0' && b.len() > i + 1 {
        return None; // octal / hex / base: the general path
    }
    while i < b.len() && b[i].is_ascii_digit() {
        v = v * 10 + (b[i] - b'0') as i64;
        i += 1;
    }
    if i == start {
        return None;
    }
    while i < b.len() && b[i] == b' ' {
        i += 1;
    }
    (i == b.len()).then_some(v)
}

/// Parses a numeric constant: decimal, `0x` hex, `0` octal, `BASE#DIGITS`.
pub(super) fn parse_number(s: &str) -> Result<i64, &'static str> {
    let b = s.as_bytes();
    if let Some(hash) = s.find('#') {
        // bash reads a base with a leading zero as an octal constant
        // followed by junk.
        if s.starts_with('0') {
            return Err("invalid number");
        }
        let base: i64 = s[..hash].parse().map_err(|_| "invalid arithmetic base")?;
        if !(2..=64).contains(&base) {
            return Err("invalid arithmetic base");
        }
        let digits = &b[hash + 1..];
        if digits.is_empty() {
            return Err("invalid integer constant");
        }
        return parse_digits(digits, base);
    }
    if b.len() >= 2 && b[0] == b'0' && (b[1] == b'x' || b[1] == b'X') {
        if b.len() == 2 {
            return Ok(0);
        }
        return parse_digits(&b[2..], 16);
    }
    if b.len() > 1 && b[0] == b'0' {
        return parse_digits(&b[1..], 8);
    }
    parse_digits(b, 10)
}

fn parse_digits(digits: &[u8], base: i64) -> Result<i64, &'static str> {
    let mut v: i64 = 0;
    for &c in digits {
        let d = match c {
            b'0'..=b'9' => (c - b'0') as i64,
            b'a'..=b'z' => (c - b'a') as i64 + 10,
            b'A'..=b'Z' => {
                if base <= 36 {
                    (c - b'A') as i64 + 10
                } else {
                    (c - b'A') as i64 + 36
                }
            }
            b'@' => 62,
            b'_' => 63,
            _ => return Err("invalid number"),
        };
        if d >= base {
            return Err("value too great for base");
        }
        v = v.wrapping_mul(base).wrapping_add(d);
    }
    Ok(v)
}

/// Where an assignment goes: a variable, or an array element.
#[derive(Clone, Copy)]
struct Lvalue {
    name: (usize, usize),
    sub: Option<(usize, usize)>,
}

struct Ev<'a, 'i> {
    interp: &'i mut Interp,
    text: &'a str,
    s: &'a [u8],
    /// Position just after the current token.
    pos: usize,
    /// Start of the last non-EOF token (bash's `lasttp`), for error messages.
    lasttp: usize,
    tok: Tok,
    /// Tokens read so far (to tell a lone identifier from an expression).
    ntok: u32,
    /// > 0 while evaluating a branch whose value is discarded.
    noeval: u32,
    depth: usize,
}

fn is_name_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn is_name_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

impl Ev<'_, '_> {
    fn err(&self, msg: &str) -> ArithFail {
        let tok = &self.text[self.lasttp.min(self.text.len())..];
        ArithFail::Error(format!("{}: {msg} (error token is \"{tok}\")", self.text))
    }

    fn skip_ws(&mut self) {
        while self.pos < self.s.len() && matches!(self.s[self.pos], b' ' | b'\t' | b'\n' | b'\r') {
            self.pos += 1;
        }
    }

    /// Reads the next token into `self.tok`.
    fn next(&mut self) -> Result<(), ArithFail> {
        self.skip_ws();
        self.ntok += 1;
        let s = self.s;
        if self.pos >= s.len() {
            self.tok = Tok::Eof;
            return Ok(());
        }
        let start = self.pos;
        self.lasttp = start;
        let c = s[start];
        if c.is_ascii_digit() {
            let mut i = start;
            while i < s.len() && (is_name_char(s[i]) || s[i] == b'#' || s[i] == b'@') {
                i += 1;
            }
            self.pos = i;
            let v = parse_number(&self.text[start..i]).map_err(|m| self.err(m))?;
            self.tok = Tok::Num(v);
            return Ok(());
        }
        if is_name_start(c) {
            let mut i = start;
            while i < s.len() && is_name_char(s[i]) {
                i += 1;
            }
            let name = (start, i);
            let mut sub = None;
            if i < s.len() && s[i] == b'[' {
                // Subscript up to the matching `]`.
                let mut depth = 0;
                let mut j = i;
                let mut close = None;
                while j < s.len() {
                    match s[j] {
                        b'[' => depth += 1,
                        b']' => {
                            depth -= 1;
                            if depth == 0 {
                                close = Some(j);
                                break;
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
                match close {
                    Some(j) => {
                        sub = Some((i + 1, j));
                        i = j + 1;
                    }
                    None => {
                        self.pos = s.len();
                        return Err(self.err("bad array subscript"));
                    }
                }
            }
            self.pos = i;
            self.tok = Tok::Ident { name, sub };
            return Ok(());
        }
        let c1 = s.get(start + 1).copied().unwrap_or(0);
        let c2 = s.get(start + 2).copied().unwrap_or(0);
        let (op, len) = match (c, c1, c2) {
            (b'<', b'<', b'=') => (Op::Compound(Bin::Shl), 3),
            (b'>', b'>', b'=') => (Op::Compound(Bin::Shr), 3),
            (b'*', b'*', _) => (Op::Bin(Bin::Pow), 2),
            (b'<', b'<', _) => (Op::Bin(Bin::Shl), 2),
            (b'>', b'>', _) => (Op::Bin(Bin::Shr), 2),
            (b'<', b'=', _) => (Op::Bin(Bin::Le), 2),
            (b'>', b'=', _) => (Op::Bin(Bin::Ge), 2),
            (b'=', b'=', _) => (Op::Bin(Bin::Eq), 2),
            (b'!', b'=', _) => (Op::Bin(Bin::Ne), 2),
            (b'&', b'&', _) => (Op::LAnd, 2),
            (b'|', b'|', _) => (Op::LOr, 2),
            (b'+', b'+', _) if self.var_follows(start + 2) => (Op::PreInc, 2),
            (b'-', b'-', _) if self.var_follows(start + 2) => (Op::PreDec, 2),
            (b'*', b'=', _) => (Op::Compound(Bin::Mul), 2),
            (b'/', b'=', _) => (Op::Compound(Bin::Div), 2),
            (b'%', b'=', _) => (Op::Compound(Bin::Mod), 2),
            (b'+', b'=', _) => (Op::Compound(Bin::Add), 2),
            (b'-', b'=', _) => (Op::Compound(Bin::Sub), 2),
            (b'&', b'=', _) => (Op::Compound(Bin::BAnd), 2),
            (b'|', b'=', _) => (Op::Compound(Bin::BOr), 2),
            (b'^', b'=', _) => (Op::Compound(Bin::BXor), 2),
            (b'=', _, _) => (Op::Assign, 1),
            (b',', _, _) => (Op::Comma, 1),
            (b'?', _, _) => (Op::Quest, 1),
            (b':', _, _) => (Op::Colon, 1),
            (b'|', _, _) => (Op::Bin(Bin::BOr), 1),
            (b'^', _, _) => (Op::Bin(Bin::BXor), 1),
            (b'&', _, _) => (Op::Bin(Bin::BAnd), 1),
            (b'<', _, _) => (Op::Bin(Bin::Lt), 1),
            (b'>', _, _) => (Op::Bin(Bin::Gt), 1),
            (b'+', _, _) => (Op::Bin(Bin::Add), 1),
            (b'-', _, _) => (Op::Bin(Bin::Sub), 1),
            (b'*', _, _) => (Op::Bin(Bin::Mul), 1),
            (b'/', _, _) => (Op::Bin(Bin::Div), 1),
            (b'%', _, _) => (Op::Bin(Bin::Mod), 1),
            (b'!', _, _) => (Op::Not, 1),
            (b'~', _, _) => (Op::BNot, 1),
            (b'(', _, _) => (Op::LParen, 1),
            (b')', _, _) => (Op::RParen, 1),
            _ => {
                self.pos = start + 1;
                return Err(self.err("syntax error: invalid arithmetic operator"));
            }
        };
        self.pos = start + len;
        self.tok = Tok::Op(op);
        Ok(())
    }

    /// True when a variable name starts at `i` (after blanks): `++x` is a
    /// pre-increment, `++5` is two unary pluses.
    fn var_follows(&self, mut i: usize) -> bool {
        while i < self.s.len() && matches!(self.s[i], b' ' | b'\t' | b'\n') {
            i += 1;
        }
        i < self.s.len() && is_name_start(self.s[i])
    }

    /// `expr , expr`
    fn comma(&mut self) -> Result<i64, ArithFail> {
        let mut v = self.assign()?;
        while self.tok == Tok::Op(Op::Comma) {
            self.next()?;
            v = self.assign()?;
        }
        Ok(v)
    }

    /// `lvalue = expr`, `lvalue op= expr` (right associative), else `?:`.
    fn assign(&mut self) -> Result<i64, ArithFail> {
        let before = self.tok;
        let before_n = self.ntok;
        let v = self.cond()?;
        let op = match self.tok {
            Tok::Op(Op::Assign) => None,
            Tok::Op(Op::Compound(b)) => Some(b),
            _ => return Ok(v),
        };
        // The left side must have been a lone identifier.
        let lv = match before {
            Tok::Ident { name, sub } if self.ntok == before_n + 1 => Lvalue { name, sub },
            _ => return Err(self.err("attempted assignment to non-variable")),
        };
        self.next()?;
        let rhs = self.assign()?;
        let value = match op {
            None => rhs,
            Some(b) => self.binop(b, v, rhs)?,
        };
        if self.noeval == 0 {
            self.store(lv, value)?;
        }
        Ok(value)
    }
}

impl Ev<'_, '_> {
    /// `a ? b : c`
    fn cond(&mut self) -> Result<i64, ArithFail> {
        let c = self.lor()?;
        if self.tok != Tok::Op(Op::Quest) {
            return Ok(c);
        }
        self.next()?;
        if matches!(self.tok, Tok::Eof | Tok::Op(Op::Colon)) {
            return Err(self.err("expression expected"));
        }
        if c == 0 {
            self.noeval += 1;
        }
        let a = self.comma();
        if c == 0 {
            self.noeval -= 1;
        }
        let a = a?;
        if self.tok != Tok::Op(Op::Colon) {
            return Err(self.err("`:' expected for conditional expression"));
        }
        self.next()?;
        if self.tok == Tok::Eof {
            return Err(self.err("expression expected"));
        }
        if c != 0 {
            self.noeval += 1;
        }
        let b = self.cond();
        if c != 0 {
            self.noeval -= 1;
        }
        let b = b?;
        Ok(if c != 0 { a } else { b })
    }

    fn lor(&mut self) -> Result<i64, ArithFail> {
        let mut v = self.land()?;
        while self.tok == Tok::Op(Op::LOr) {
            self.next()?;
            let skip = v != 0;
            if skip {
                self.noeval += 1;
            }
            let r = self.land();
            if skip {
                self.noeval -= 1;
            }
            let r = r?;
            v = (v != 0 || r != 0) as i64;
        }
        Ok(v)
    }

    fn land(&mut self) -> Result<i64, ArithFail> {
        let mut v = self.binary(0)?;
        while self.tok == Tok::Op(Op::LAnd) {
            self.next()?;
            let skip = v == 0;
            if skip {
                self.noeval += 1;
            }
            let r = self.binary(0);
            if skip {
                self.noeval -= 1;
            }
            let r = r?;
            v = (v != 0 && r != 0) as i64;
        }
        Ok(v)
    }

    /// Left-associative binary operators from `|` (level 0) to `* / %`
    /// (level 7), by precedence climbing: one call per operand instead of
    /// one per precedence level.
    fn binary(&mut self, min_level: u8) -> Result<i64, ArithFail> {
        let mut v = self.power()?;
        loop {
            let (b, level) = match self.tok {
                Tok::Op(Op::Bin(b)) => match bin_level(b) {
                    Some(l) if l >= min_level => (b, l),
                    _ => return Ok(v),
                },
                _ => return Ok(v),
            };
            self.next()?;
            let r = self.binary(level + 1)?;
            v = self.binop(b, v, r)?;
        }
    }

    /// `a ** b`, right associative.
    fn power(&mut self) -> Result<i64, ArithFail> {
        let base = self.unary()?;
        if self.tok != Tok::Op(Op::Bin(Bin::Pow)) {
            return Ok(base);
        }
        self.next()?;
        let exp = self.power()?;
        self.binop(Bin::Pow, base, exp)
    }

    fn unary(&mut self) -> Result<i64, ArithFail> {
        match self.tok {
            Tok::Op(Op::Not) => {
                self.next()?;
                Ok((self.unary()? == 0) as i64)
            }
            Tok::Op(Op::BNot) => {
                self.next()?;
                Ok(!self.unary()?)
            }
            Tok::Op(Op::Bin(Bin::Sub)) => {
                self.next()?;
                Ok(self.unary()?.wrapping_neg())
            }
            Tok::Op(Op::Bin(Bin::Add)) => {
                self.next()?;
                self.unary()
            }
            _ => self.primary(),
        }
    }

    fn primary(&mut self) -> Result<i64, ArithFail> {
        match self.tok {
            Tok::Op(op @ (Op::PreInc | Op::PreDec)) => {
                self.next()?;
                let Tok::Ident { name, sub } = self.tok else {
                    return Err(self.err("syntax error: operand expected"));
                };
                let lv = Lvalue { name, sub };
                let v = self.load(lv)?;
                let nv = if op == Op::PreInc {
                    v.wrapping_add(1)
                } else {
                    v.wrapping_sub(1)
                };
                if self.noeval == 0 {
                    self.store(lv, nv)?;
                }
                self.next()?;
                Ok(nv)
            }
            Tok::Op(Op::LParen) => {
                self.next()?;
                let v = self.comma()?;
                if self.tok != Tok::Op(Op::RParen) {
                    return Err(self.err("missing `)'"));
                }
                self.next()?;
                Ok(v)
            }
            Tok::Num(n) => {
                self.next()?;
                Ok(n)
            }
            Tok::Ident { name, sub } => {
                let lv = Lvalue { name, sub };
                // Post-increment: `x++` / `x--` right after the name.
                let mut i = self.pos;
                while i < self.s.len() && matches!(self.s[i], b' ' | b'\t') {
                    i += 1;
                }
                let pair = (self.s.get(i).copied(), self.s.get(i + 1).copied());
                let post = match pair {
                    (Some(b'+'), Some(b'+')) => Some(1i64),
                    (Some(b'-'), Some(b'-')) => Some(-1i64),
                    _ => None,
                };
                if let Some(d) = post {
                    let v = self.load(lv)?;
                    if self.noeval == 0 {
                        self.store(lv, v.wrapping_add(d))?;
                    }
                    self.pos = i + 2;
                    self.lasttp = i;
                    self.next()?;
                    return Ok(v);
                }
                // A plain `=` follows: the old value is not needed (and must
                // not trip `set -u`); `op=` still reads it.
                let plain_assign = self.s.get(i) == Some(&b'=') && self.s.get(i + 1) != Some(&b'=');
                let v = if self.noeval > 0 || plain_assign {
                    0
                } else {
                    self.load(lv)?
                };
                self.next()?;
                Ok(v)
            }
            Tok::Eof | Tok::Op(_) => Err(self.err("syntax error: operand expected")),
        }
    }

    fn binop(&self, b: Bin, l: i64, r: i64) -> Result<i64, ArithFail> {
        Ok(match b {
            Bin::BOr => l | r,
            Bin::BXor => l ^ r,
            Bin::BAnd => l & r,
            Bin::Eq => (l == r) as i64,
            Bin::Ne => (l != r) as i64,
            Bin::Le => (l <= r) as i64,
            Bin::Ge => (l >= r) as i64,
            Bin::Lt => (l < r) as i64,
            Bin::Gt => (l > r) as i64,
            Bin::Shl => l.wrapping_shl(r as u32),
            Bin::Shr => l.wrapping_shr(r as u32),
            Bin::Add => l.wrapping_add(r),
            Bin::Sub => l.wrapping_sub(r),
            Bin::Mul => l.wrapping_mul(r),
            Bin::Div | Bin::Mod => {
                if r == 0 {
                    if self.noeval > 0 {
                        return Ok(0);
                    }
                    return Err(self.err("division by 0"));
                }
                if b == Bin::Div {
                    l.wrapping_div(r)
                } else {
                    l.wrapping_rem(r)
                }
            }
            Bin::Pow => {
                if r < 0 {
                    if self.noeval > 0 {
                        return Ok(0);
                    }
                    return Err(self.err("exponent less than 0"));
                }
                let mut acc: i64 = 1;
                let mut base = l;
                let mut e = r as u64;
                while e > 0 {
                    if e & 1 == 1 {
                        acc = acc.wrapping_mul(base);
                    }
                    base = base.wrapping_mul(base);
                    e >>= 1;
                }
                acc
            }
        })
    }

    fn name(&self, lv: Lvalue) -> &str {
        &self.text[lv.name.0..lv.name.1]
    }

    /// The value of a variable or element, evaluated as an expression.
    fn load(&mut self, lv: Lvalue) -> Result<i64, ArithFail> {
        if self.noeval > 0 {
            return Ok(0);
        }
        let text = self.text;
        let name = &text[lv.name.0..lv.name.1];
        if lv.sub.is_none()
            && let Some(n) = self.interp.plain_int_var(name)
        {
            return Ok(n);
        }
        let value = match lv.sub {
            None => self.interp.arith_var(name)?,
            Some((a, b)) => self.interp.arith_element(name, &text[a..b])?,
        };
        match value {
            None => Ok(0),
            Some(v) => {
                if let Some(n) = plain_decimal(&v) {
                    return Ok(n);
                }
                if v.trim().is_empty() {
                    return Ok(0);
                }
                evaluate(self.interp, &v, self.depth + 1).map_err(|e| match e {
                    ArithFail::Error(m) if m.contains("expression recursion level exceeded") => {
                        ArithFail::Error(format!(
                            "{}: expression recursion level exceeded (error token is \"{}\")",
                            self.name(lv),
                            self.name(lv)
                        ))
                    }
                    other => other,
                })
            }
        }
    }

    fn store(&mut self, lv: Lvalue, value: i64) -> Result<(), ArithFail> {
        let text = self.text;
        let name = &text[lv.name.0..lv.name.1];
        match lv.sub {
            None => self.interp.arith_assign(name, value),
            Some((a, b)) => self.interp.arith_assign_element(name, &text[a..b], value),
        }
    }
}

fn bin_level(b: Bin) -> Option<u8> {
    Some(match b {
        Bin::BOr => 0,
        Bin::BXor => 1,
        Bin::BAnd => 2,
        Bin::Eq | Bin::Ne => 3,
        Bin::Le | Bin::Ge | Bin::Lt | Bin::Gt => 4,
        Bin::Shl | Bin::Shr => 5,
        Bin::Add | Bin::Sub => 6,
        Bin::Mul | Bin::Div | Bin::Mod => 7,
        Bin::Pow => return None,
    })
}
