//! `bc`: an arbitrary-precision calculator, the common core of GNU bc:
//! numbers with `scale`, `+ - * / % ^`, unary minus, parentheses,
//! comparisons and `! && ||`, variables with `= += -= *= /= %= ^=` and
//! `++`/`--`, `ibase`/`obase` (integers), `sqrt length scale`, strings,
//! `{ }` blocks, `if`/`else`, `while`, `for`, `break`, `continue`, GNU's
//! `print`, `quit`, `/* */` and
//! `#` comments. Output lines wrap at 70 characters with a backslash, as
//! GNU bc does. `-l` sets `scale=20` and provides the math library's `s c a
//! l e` ([`mathlib`]; not `j`). User functions: `define` with parameters,
//! `auto` locals and `return` (no array parameters).

mod mathlib;
mod num;

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::rc::Rc;

use crate::commands::CommandCtx;
use crate::commands::text::common::{self, Arg, OptSpec, ParseMode, opt};
use num::Num;

pub(crate) const USAGE: &str = "\
usage: bc [options] [file ...]
  -h  --help         print this usage and exit
  -l  --mathlib      use the predefined math routines (sets scale=20)
  -q  --quiet        don't print initial banner
  -s  --standard     non-standard bc constructs are errors
  -w  --warn         warn about non-standard bc constructs
";

const SPEC: &[OptSpec] = &[
    opt("l", Some('l'), Some("mathlib"), Arg::None),
    opt("q", Some('q'), Some("quiet"), Arg::None),
    opt("s", Some('s'), Some("standard"), Arg::None),
    opt("w", Some('w'), Some("warn"), Arg::None),
    opt("h", Some('h'), None, Arg::None),
];

/// The largest `scale` honoured (the digit-by-digit division makes huge
/// scales slow; GNU allows more).
const MAX_SCALE: usize = 1000;

/// How deep `define`d functions may call each other (recursion ends in
/// an error, not a stack overflow).
const MAX_CALL_DEPTH: usize = 2000;

/// The largest power result computed, in digits.
const MAX_DIGITS: usize = 50_000;

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Num(String),
    Name(String),
    Str(String),
    Op(&'static str),
    Newline,
}

const OPS: &[&str] = &[
    "++", "--", "+=", "-=", "*=", "/=", "%=", "^=", "==", "!=", "<=", ">=", "&&", "||", "+", "-",
    "*", "/", "%", "^", "=", "<", ">", "!", "(", ")", "{", "}", ";", ",", "[", "]",
];

fn lex(src: &str) -> Result<Vec<(Tok, usize)>, (String, usize)> {
    let b = src.as_bytes();
    let mut i = 0;
    let mut line = 1;
    let mut out = Vec::new();
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            out.push((Tok::Newline, line));
            line += 1;
            i += 1;
        } else if c == b' ' || c == b'\t' || c == b'\r' {
            i += 1;
        } else if c == b'\\' && b.get(i + 1) == Some(&b'\n') {
            i += 2;
            line += 1;
        } else if c == b'#' {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if src[i..].starts_with("/*") {
            match src[i + 2..].find("*/") {
                Some(e) => {
                    line += src[i..i + 2 + e].matches('\n').count();
                    i += e + 4;
                }
                None => return Err(("comment end missing".into(), line)),
            }
        } else if c == b'"' {
            let Some(e) = src[i + 1..].find('"') else {
                return Err(("string end missing".into(), line));
            };
            let s = &src[i + 1..i + 1 + e];
            out.push((Tok::Str(s.to_string()), line));
            line += s.matches('\n').count();
            i += e + 2;
        } else if c.is_ascii_digit() || c.is_ascii_uppercase() || c == b'.' {
            let start = i;
            while i < b.len()
                && (b[i].is_ascii_digit() || b[i].is_ascii_uppercase() || b[i] == b'.')
            {
                i += 1;
            }
            out.push((Tok::Num(src[start..i].to_string()), line));
        } else if c.is_ascii_lowercase() {
            let start = i;
            while i < b.len()
                && (b[i].is_ascii_lowercase() || b[i].is_ascii_digit() || b[i] == b'_')
            {
                i += 1;
            }
            out.push((Tok::Name(src[start..i].to_string()), line));
        } else if let Some(op) = OPS.iter().find(|o| src[i..].starts_with(**o)) {
            out.push((Tok::Op(op), line));
            i += op.len();
        } else {
            return Err((format!("illegal character: {}", c as char), line));
        }
    }
    Ok(out)
}

#[derive(Clone, Debug)]
enum Expr {
    Num(String),
    Var(String),
    /// `a[i]`: an element of array `a` (a namespace apart from variable `a`).
    Elem(String, Box<Expr>),
    /// `a[]` as a call's argument: the whole array, passed by value.
    Array(String),
    Neg(Box<Expr>),
    Not(Box<Expr>),
    Bin(&'static str, Box<Expr>, Box<Expr>),
    Assign(&'static str, Target, Box<Expr>),
    /// `++x` / `--x` (pre) and `x++` / `x--` (post).
    Step(Target, i64, bool),
    Call(String, Vec<Expr>),
}

/// What an assignment or `++`/`--` changes: a variable, or an array's
/// element.
#[derive(Clone, Debug)]
enum Target {
    Var(String),
    Elem(String, Box<Expr>),
}

/// A `define`d function: parameters, `auto` locals (an array one written
/// `name[]`), body.
#[derive(Debug)]
struct Func {
    params: Vec<String>,
    autos: Vec<String>,
    body: Vec<Stmt>,
}

#[derive(Clone, Debug)]
enum Stmt {
    Expr(Expr),
    Str(String),
    Block(Vec<Stmt>),
    If(Expr, Box<Stmt>, Option<Box<Stmt>>),
    While(Expr, Box<Stmt>),
    For(Option<Expr>, Option<Expr>, Option<Expr>, Box<Stmt>),
    Break,
    Continue,
    /// GNU's `print` list: numbers without newline, strings with escapes.
    Print(Vec<PrintItem>),
    Quit,
    Empty,
    /// `define NAME(PARAMS) { auto ...; BODY }`
    Define(String, Rc<Func>),
    /// `return` / `return (EXPR)` in a function.
    Return(Option<Expr>),
}

/// One item of a `print` list.
#[derive(Clone, Debug)]
enum PrintItem {
    Str(String),
    Expr(Expr),
}

struct Parser {
    toks: Vec<(Tok, usize)>,
    pos: usize,
    /// `for`/`while` bodies being parsed: `break` and `continue` need one.
    loops: usize,
    /// The message of the last parse error when it is not "syntax error".
    message: Option<&'static str>,
    /// Parsing a function body: `return` is allowed.
    in_function: bool,
    /// The statement about to be parsed begins a line: only there may a
    /// `define` stand (GNU: `x=1; define f()...` is a syntax error).
    at_line_start: bool,
    /// A `quit` was read.
    quit_seen: bool,
}

type PResult<T> = Result<T, usize>;

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.0)
    }

    fn line(&self) -> usize {
        self.toks
            .get(self.pos)
            .or(self.toks.last())
            .map_or(1, |t| t.1 + usize::from(self.pos >= self.toks.len()))
    }

    fn is_op(&self, op: &str) -> bool {
        matches!(self.peek(), Some(Tok::Op(o)) if *o == op)
    }

    fn eat(&mut self, op: &str) -> bool {
        if self.is_op(op) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, op: &str) -> PResult<()> {
        if self.eat(op) {
            Ok(())
        } else {
            Err(self.line())
        }
    }

    fn skip_newlines(&mut self) {
        while matches!(self.peek(), Some(Tok::Newline)) || self.is_op(";") {
            self.pos += 1;
        }
    }

    fn stmt(&mut self) -> PResult<Stmt> {
        let line_start = std::mem::take(&mut self.at_line_start);
        match self.peek().cloned() {
            None | Some(Tok::Newline) => Ok(Stmt::Empty),
            Some(Tok::Op(";")) => Ok(Stmt::Empty),
            Some(Tok::Str(s)) => {
                self.pos += 1;
                Ok(Stmt::Str(s))
            }
            Some(Tok::Op("{")) => {
                self.pos += 1;
                let mut v = Vec::new();
                loop {
                    self.skip_newlines();
                    if self.eat("}") {
                        return Ok(Stmt::Block(v));
                    }
                    if self.peek().is_none() {
                        return Err(self.line());
                    }
                    v.push(self.stmt()?);
                }
            }
            Some(Tok::Name(n)) if n == "quit" || n == "halt" => {
                self.pos += 1;
                // `quit` ends bc when read, even where it would not run.
                self.quit_seen |= n == "quit";
                Ok(Stmt::Quit)
            }
            Some(Tok::Name(n)) if n == "break" || n == "continue" => {
                if self.loops == 0 {
                    self.message = Some(if n == "break" {
                        "Break outside a for/while"
                    } else {
                        "Continue outside a for"
                    });
                    return Err(self.line());
                }
                self.pos += 1;
                Ok(if n == "break" {
                    Stmt::Break
                } else {
                    Stmt::Continue
                })
            }
            Some(Tok::Name(n)) if n == "print" => {
                self.pos += 1;
                self.print_list()
            }
            Some(Tok::Name(n)) if n == "if" => {
                self.pos += 1;
                self.expect("(")?;
                let c = self.expr()?;
                self.expect(")")?;
                self.skip_nl_only();
                let t = self.stmt()?;
                let save = self.pos;
                self.skip_newlines();
                if matches!(self.peek(), Some(Tok::Name(n)) if n == "else") {
                    self.pos += 1;
                    self.skip_nl_only();
                    let e = self.stmt()?;
                    return Ok(Stmt::If(c, Box::new(t), Some(Box::new(e))));
                }
                self.pos = save;
                Ok(Stmt::If(c, Box::new(t), None))
            }
            Some(Tok::Name(n)) if n == "while" => {
                self.pos += 1;
                self.expect("(")?;
                let c = self.expr()?;
                self.expect(")")?;
                self.skip_nl_only();
                Ok(Stmt::While(c, Box::new(self.loop_body()?)))
            }
            Some(Tok::Name(n)) if n == "for" => {
                self.pos += 1;
                self.for_stmt()
            }
            Some(Tok::Name(n)) if n == "define" && !self.in_function && line_start => {
                self.pos += 1;
                self.define()
            }
            Some(Tok::Name(n)) if n == "return" && self.in_function => {
                self.pos += 1;
                if matches!(self.peek(), None | Some(Tok::Newline))
                    || self.is_op(";")
                    || self.is_op("}")
                {
                    return Ok(Stmt::Return(None));
                }
                Ok(Stmt::Return(Some(self.expr()?)))
            }
            Some(Tok::Name(n)) if n == "return" => {
                self.message = Some("Return outside of a function.");
                Err(self.line())
            }
            Some(Tok::Name(n)) if n == "define" || n == "auto" => Err(self.line()),
            _ => Ok(Stmt::Expr(self.expr()?)),
        }
    }

    /// `define NAME(A, B) { auto X, Y ... }` (after `define`).
    fn define(&mut self) -> PResult<Stmt> {
        let Some(Tok::Name(name)) = self.peek().cloned() else {
            return Err(self.line());
        };
        self.pos += 1;
        self.expect("(")?;
        let params = self.names(")")?;
        self.expect(")")?;
        self.skip_nl_only();
        self.expect("{")?;
        self.skip_newlines();
        let mut autos = Vec::new();
        if matches!(self.peek(), Some(Tok::Name(n)) if n == "auto") {
            self.pos += 1;
            autos = self.names("")?;
        }
        let (loops, in_function) = (self.loops, self.in_function);
        self.loops = 0;
        self.in_function = true;
        let mut body = Vec::new();
        let result = loop {
            self.skip_newlines();
            if self.eat("}") {
                break Ok(());
            }
            if self.peek().is_none() {
                break Err(self.line());
            }
            match self.stmt() {
                Ok(st) => body.push(st),
                Err(e) => break Err(e),
            }
        };
        self.loops = loops;
        self.in_function = in_function;
        result?;
        let func = Func {
            params,
            autos,
            body,
        };
        Ok(Stmt::Define(name, Rc::new(func)))
    }

    /// A comma-separated list of names, up to `end` (or any non-name).
    fn names(&mut self, end: &str) -> PResult<Vec<String>> {
        let mut v = Vec::new();
        if !end.is_empty() && self.is_op(end) {
            return Ok(v);
        }
        loop {
            let Some(Tok::Name(n)) = self.peek().cloned() else {
                return Err(self.line());
            };
            self.pos += 1;
            if self.is_op("[") && matches!(self.toks.get(self.pos + 1), Some((Tok::Op("]"), _))) {
                self.pos += 2;
                v.push(format!("{n}[]"));
            } else {
                v.push(n);
            }
            if !self.eat(",") {
                return Ok(v);
            }
        }
    }

    /// `for (A; B; C) BODY` (after `for`); each part may be empty.
    fn for_stmt(&mut self) -> PResult<Stmt> {
        self.expect("(")?;
        let mut parts = Vec::new();
        for end in [";", ";", ")"] {
            parts.push(if self.is_op(end) {
                None
            } else {
                Some(self.expr()?)
            });
            self.expect(end)?;
        }
        let c = parts.pop().flatten();
        let b = parts.pop().flatten();
        let a = parts.pop().flatten();
        self.skip_nl_only();
        Ok(Stmt::For(a, b, c, Box::new(self.loop_body()?)))
    }

    fn loop_body(&mut self) -> PResult<Stmt> {
        self.loops += 1;
        let body = self.stmt();
        self.loops -= 1;
        body
    }

    /// `print a, "text", b`.
    fn print_list(&mut self) -> PResult<Stmt> {
        let mut items = Vec::new();
        loop {
            match self.peek().cloned() {
                Some(Tok::Str(s)) => {
                    self.pos += 1;
                    items.push(PrintItem::Str(s));
                }
                _ => items.push(PrintItem::Expr(self.expr()?)),
            }
            if !self.eat(",") {
                return Ok(Stmt::Print(items));
            }
        }
    }

    fn skip_nl_only(&mut self) {
        while matches!(self.peek(), Some(Tok::Newline)) {
            self.pos += 1;
        }
    }

    fn expr(&mut self) -> PResult<Expr> {
        let mut l = self.and()?;
        while self.eat("||") {
            l = Expr::Bin("||", Box::new(l), Box::new(self.and()?));
        }
        Ok(l)
    }

    fn and(&mut self) -> PResult<Expr> {
        let mut l = self.not()?;
        while self.eat("&&") {
            l = Expr::Bin("&&", Box::new(l), Box::new(self.not()?));
        }
        Ok(l)
    }

    fn not(&mut self) -> PResult<Expr> {
        if self.eat("!") {
            return Ok(Expr::Not(Box::new(self.not()?)));
        }
        self.rel()
    }

    fn rel(&mut self) -> PResult<Expr> {
        let l = self.assign()?;
        for op in ["==", "!=", "<=", ">=", "<", ">"] {
            if self.eat(op) {
                return Ok(Expr::Bin(op, Box::new(l), Box::new(self.assign()?)));
            }
        }
        Ok(l)
    }

    fn assign(&mut self) -> PResult<Expr> {
        let start = self.pos;
        if let Some(Tok::Name(n)) = self.peek().cloned() {
            self.pos += 1;
            let target = if self.eat("[") {
                let i = self.expr()?;
                self.expect("]")?;
                Target::Elem(n, Box::new(i))
            } else {
                Target::Var(n)
            };
            if let Some((Tok::Op(op), _)) = self.toks.get(self.pos).cloned()
                && matches!(op, "=" | "+=" | "-=" | "*=" | "/=" | "%=" | "^=")
            {
                self.pos += 1;
                let r = self.assign()?;
                return Ok(Expr::Assign(op, target, Box::new(r)));
            }
            self.pos = start;
        }
        self.add()
    }

    /// `NAME` or `NAME[INDEX]` after `++`/`--`.
    fn target(&mut self, line: usize) -> PResult<Target> {
        let Some(Tok::Name(n)) = self.peek().cloned() else {
            return Err(line);
        };
        self.pos += 1;
        if self.eat("[") {
            let i = self.expr()?;
            self.expect("]")?;
            return Ok(Target::Elem(n, Box::new(i)));
        }
        Ok(Target::Var(n))
    }

    fn add(&mut self) -> PResult<Expr> {
        let mut l = self.mul()?;
        loop {
            let op = if self.eat("+") {
                "+"
            } else if self.eat("-") {
                "-"
            } else {
                return Ok(l);
            };
            l = Expr::Bin(op, Box::new(l), Box::new(self.mul()?));
        }
    }

    fn mul(&mut self) -> PResult<Expr> {
        let mut l = self.unary()?;
        loop {
            let op = if self.eat("*") {
                "*"
            } else if self.eat("/") {
                "/"
            } else if self.eat("%") {
                "%"
            } else {
                return Ok(l);
            };
            l = Expr::Bin(op, Box::new(l), Box::new(self.unary()?));
        }
    }

    /// `^` (right associative) over a possibly negated operand: bc's
    /// unary minus binds tighter than `^` (`-2^2` is 4).
    fn unary(&mut self) -> PResult<Expr> {
        let base = self.negated()?;
        if self.eat("^") {
            let e = self.unary()?;
            return Ok(Expr::Bin("^", Box::new(base), Box::new(e)));
        }
        Ok(base)
    }

    fn negated(&mut self) -> PResult<Expr> {
        if self.eat("-") {
            return Ok(Expr::Neg(Box::new(self.negated()?)));
        }
        self.postfix()
    }

    fn postfix(&mut self) -> PResult<Expr> {
        let line = self.line();
        let Some(t) = self.peek().cloned() else {
            return Err(line);
        };
        self.pos += 1;
        match t {
            Tok::Num(n) => Ok(Expr::Num(n)),
            Tok::Op("(") => {
                let e = self.expr()?;
                self.expect(")")?;
                Ok(e)
            }
            Tok::Op(op @ ("++" | "--")) => {
                let t = self.target(line)?;
                Ok(Expr::Step(t, if op == "++" { 1 } else { -1 }, true))
            }
            Tok::Name(n) => {
                if self.eat("(") {
                    let mut args = Vec::new();
                    if !self.is_op(")") {
                        loop {
                            // `a[]`: the whole array.
                            if let (
                                Some(Tok::Name(a)),
                                Some((Tok::Op("["), _)),
                                Some((Tok::Op("]"), _)),
                            ) = (
                                self.peek().cloned(),
                                self.toks.get(self.pos + 1),
                                self.toks.get(self.pos + 2),
                            ) {
                                self.pos += 3;
                                args.push(Expr::Array(a));
                                if !self.eat(",") {
                                    break;
                                }
                                continue;
                            }
                            args.push(self.expr()?);
                            if !self.eat(",") {
                                break;
                            }
                        }
                    }
                    self.expect(")")?;
                    return Ok(Expr::Call(n, args));
                }
                let target = if self.eat("[") {
                    let i = self.expr()?;
                    self.expect("]")?;
                    Target::Elem(n, Box::new(i))
                } else {
                    Target::Var(n)
                };
                if self.eat("++") {
                    return Ok(Expr::Step(target, 1, false));
                }
                if self.eat("--") {
                    return Ok(Expr::Step(target, -1, false));
                }
                Ok(match target {
                    Target::Var(n) => Expr::Var(n),
                    Target::Elem(n, i) => Expr::Elem(n, i),
                })
            }
            _ => Err(line),
        }
    }
}

/// A function's local while a call runs, or its outer value saved.
enum Local {
    Unset,
    Var(Num),
    Array(BTreeMap<u32, Num>),
}

/// GNU bc's largest array index (`BC_DIM_MAX` - 1).
const MAX_ARRAY_INDEX: i64 = 16_777_214;

/// Why evaluation stopped early.
enum Flow {
    Break,
    Continue,
    /// `return` with the function's value.
    Return(Num),
    Quit,
    Error(String),
}

struct Machine<'c, 'a> {
    ctx: &'c mut CommandCtx<'a>,
    vars: HashMap<String, Num>,
    /// The arrays, by name (apart from the variables of the same name).
    arrays: HashMap<String, BTreeMap<u32, Num>>,
    scale: usize,
    ibase: u32,
    obase: u32,
    /// `-l`: the math library's functions exist.
    mathlib: bool,
    /// The `define`d functions.
    funcs: HashMap<String, Rc<Func>>,
    /// Calls in progress.
    depth: usize,
    out: String,
}

impl Machine<'_, '_> {
    fn get(&self, name: &str) -> Num {
        match name {
            "scale" => Num::from_i64(self.scale as i64),
            "ibase" => Num::from_i64(self.ibase as i64),
            "obase" => Num::from_i64(self.obase as i64),
            _ => self.vars.get(name).cloned().unwrap_or_default(),
        }
    }

    fn set(&mut self, name: &str, v: Num) {
        let small = v.to_i64().unwrap_or(i64::MAX);
        match name {
            "scale" => self.scale = small.clamp(0, MAX_SCALE as i64) as usize,
            // GNU bc 1.07 takes bases up to 36 (digits 0-9, A-Z).
            "ibase" => self.ibase = small.clamp(2, 36) as u32,
            "obase" => self.obase = small.clamp(2, 999) as u32,
            _ => {
                self.vars.insert(name.to_string(), v);
            }
        }
    }

    /// The value of an array index: its integer part, within GNU's bound.
    fn index(&mut self, name: &str, i: &Expr) -> Result<u32, Flow> {
        let v = self.eval(i)?.to_i64().unwrap_or(-1);
        if !(0..=MAX_ARRAY_INDEX).contains(&v) {
            return Err(Flow::Error(format!(
                "Array {name} subscript out of bounds."
            )));
        }
        Ok(v as u32)
    }

    fn load(&mut self, t: &Target) -> Result<Num, Flow> {
        Ok(match t {
            Target::Var(n) => self.get(n),
            Target::Elem(n, i) => {
                let i = self.index(n, i)?;
                self.arrays
                    .get(n)
                    .and_then(|a| a.get(&i))
                    .cloned()
                    .unwrap_or_default()
            }
        })
    }

    /// Stores `v` into `t` (an element's index already evaluated as `at`)
    /// and returns what it now holds.
    fn store(&mut self, t: &Target, at: Option<u32>, v: Num) -> Num {
        match (t, at) {
            (Target::Elem(n, _), Some(i)) => {
                self.arrays
                    .entry(n.clone())
                    .or_default()
                    .insert(i, v.clone());
                v
            }
            (Target::Var(n), _) | (Target::Elem(n, _), None) => {
                self.set(n, v);
                self.get(n)
            }
        }
    }

    fn eval(&mut self, e: &Expr) -> Result<Num, Flow> {
        Ok(match e {
            Expr::Num(n) => Num::parse(n, self.ibase),
            Expr::Var(n) => self.get(n),
            Expr::Elem(n, i) => self.load(&Target::Elem(n.clone(), i.clone()))?,
            Expr::Array(n) => return Err(Flow::Error(format!("Array {n}[] used as a value."))),
            Expr::Neg(x) => self.eval(x)?.neg(),
            Expr::Not(x) => Num::from_i64(self.eval(x)?.is_zero() as i64),
            Expr::Bin(op, a, b) => {
                let x = self.eval(a)?;
                if *op == "&&" && x.is_zero() {
                    return Ok(Num::zero());
                }
                if *op == "||" && !x.is_zero() {
                    return Ok(Num::from_i64(1));
                }
                let y = self.eval(b)?;
                self.binary(op, &x, &y)?
            }
            Expr::Assign(op, target, r) => {
                let at = match target {
                    Target::Elem(n, i) => Some(self.index(n, i)?),
                    Target::Var(_) => None,
                };
                let v = self.eval(r)?;
                let v = if *op == "=" {
                    v
                } else {
                    let cur = self.load_at(target, at);
                    self.binary(&op[..1], &cur, &v)?
                };
                self.store(target, at, v)
            }
            Expr::Step(target, d, pre) => {
                let at = match target {
                    Target::Elem(n, i) => Some(self.index(n, i)?),
                    Target::Var(_) => None,
                };
                let cur = self.load_at(target, at);
                let next = cur.add(&Num::from_i64(*d));
                let now = self.store(target, at, next);
                if *pre { now } else { cur }
            }
            Expr::Call(f, args) => {
                if let Some(func) = self.funcs.get(f).cloned() {
                    return self.call(f, &func, args);
                }
                let [arg] = args.as_slice() else {
                    return Err(Flow::Error(format!("Function {f} not defined.")));
                };
                let v = self.eval(arg)?;
                match f.as_str() {
                    "sqrt" => v
                        .sqrt(self.scale)
                        .ok_or_else(|| Flow::Error("Square root of a negative number".into()))?,
                    "length" => Num::from_i64(v.length() as i64),
                    "scale" => Num::from_i64(v.scale as i64),
                    "s" if self.mathlib => mathlib::sin(&v, self.scale),
                    "c" if self.mathlib => mathlib::cos(&v, self.scale),
                    "a" if self.mathlib => mathlib::atan(&v, self.scale),
                    "e" if self.mathlib => mathlib::exp(&v, self.scale),
                    "l" if self.mathlib => mathlib::ln(&v, self.scale),
                    _ => return Err(Flow::Error(format!("Function {f} not defined."))),
                }
            }
        })
    }

    /// Calls a `define`d function: the parameters and `auto` names get
    /// fresh values for the call (bc's dynamic scope), restored after.
    fn call(&mut self, name: &str, func: &Func, args: &[Expr]) -> Result<Num, Flow> {
        if args.len() != func.params.len() {
            return Err(Flow::Error("Parameter number mismatch".into()));
        }
        if self.depth >= MAX_CALL_DEPTH {
            return Err(Flow::Error(format!("{name}: calls nested too deeply")));
        }
        let mut values = Vec::with_capacity(args.len());
        for (a, p) in args.iter().zip(&func.params) {
            values.push(match (a, p.strip_suffix("[]")) {
                (Expr::Array(n), Some(_)) => {
                    Local::Array(self.arrays.get(n).cloned().unwrap_or_default())
                }
                (Expr::Array(_), None) | (_, Some(_)) => {
                    return Err(Flow::Error("Parameter type mismatch".into()));
                }
                (e, None) => Local::Var(self.eval(e)?),
            });
        }
        let locals: Vec<&String> = func.params.iter().chain(func.autos.iter()).collect();
        let saved: Vec<Local> = locals.iter().map(|n| self.take_local(n)).collect();
        for (p, v) in func.params.iter().zip(values) {
            self.put_local(p, v);
        }
        self.depth += 1;
        let mut result = Ok(Num::zero());
        for st in &func.body {
            match self.run(st) {
                Ok(()) => {}
                Err(Flow::Return(v)) => {
                    result = Ok(v);
                    break;
                }
                Err(Flow::Break | Flow::Continue) => break,
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        self.depth -= 1;
        for (n, old) in locals.into_iter().zip(saved) {
            self.put_local(n, old);
        }
        result
    }

    /// Takes a local's outer value away (`name[]`: an array), leaving it
    /// unset for the call.
    fn take_local(&mut self, name: &str) -> Local {
        match name.strip_suffix("[]") {
            Some(a) => Local::Array(self.arrays.remove(a).unwrap_or_default()),
            None => self.vars.remove(name).map_or(Local::Unset, Local::Var),
        }
    }

    fn put_local(&mut self, name: &str, v: Local) {
        let array = name.strip_suffix("[]");
        match (v, array) {
            (Local::Array(a), Some(n)) => {
                self.arrays.insert(n.to_string(), a);
            }
            (Local::Var(v), None) => {
                self.vars.insert(name.to_string(), v);
            }
            (_, Some(n)) => {
                self.arrays.remove(n);
            }
            (_, None) => {
                self.vars.remove(name);
            }
        }
    }

    /// A target's value, an element's index already evaluated as `at`.
    fn load_at(&self, t: &Target, at: Option<u32>) -> Num {
        match (t, at) {
            (Target::Elem(n, _), Some(i)) => self
                .arrays
                .get(n)
                .and_then(|a| a.get(&i))
                .cloned()
                .unwrap_or_default(),
            (Target::Var(n), _) | (Target::Elem(n, _), None) => self.get(n),
        }
    }

    fn binary(&mut self, op: &str, x: &Num, y: &Num) -> Result<Num, Flow> {
        let zero = || Flow::Error("Divide by zero".into());
        let b = |t: bool| Num::from_i64(t as i64);
        Ok(match op {
            "+" => x.add(y),
            "-" => x.sub(y),
            "*" => x.mul(y, self.scale),
            "/" => x.div(y, self.scale).ok_or_else(zero)?,
            "%" => x.rem(y, self.scale).ok_or_else(zero)?,
            "^" => {
                let e = y
                    .to_i64()
                    .ok_or_else(|| Flow::Error("exponent too large".into()))?;
                // Keep results printable in a sandbox run: at most ~50k digits.
                if x.length().saturating_mul(e.unsigned_abs() as usize) > MAX_DIGITS {
                    return Err(Flow::Error("exponent too large".into()));
                }
                x.pow(e, self.scale).ok_or_else(zero)?
            }
            "==" => b(x.cmp(y).is_eq()),
            "!=" => b(!x.cmp(y).is_eq()),
            "<" => b(x.cmp(y).is_lt()),
            "<=" => b(x.cmp(y).is_le()),
            ">" => b(x.cmp(y).is_gt()),
            ">=" => b(x.cmp(y).is_ge()),
            "&&" => b(!x.is_zero() && !y.is_zero()),
            _ => b(!x.is_zero() || !y.is_zero()),
        })
    }

    fn print_num(&mut self, n: &Num) {
        let s = n.format(self.obase);
        let chars: Vec<char> = s.chars().collect();
        let mut i = 0;
        while chars.len() - i > 68 {
            self.out.extend(&chars[i..i + 68]);
            self.out.push_str("\\\n");
            i += 68;
        }
        self.out.extend(&chars[i..]);
        self.out.push('\n');
    }

    fn run(&mut self, s: &Stmt) -> Result<(), Flow> {
        if self.ctx.control.check().is_err() {
            return Err(Flow::Quit);
        }
        match s {
            Stmt::Empty => {}
            Stmt::Quit => return Err(Flow::Quit),
            Stmt::Break => return Err(Flow::Break),
            Stmt::Continue => return Err(Flow::Continue),
            Stmt::Define(name, func) => {
                self.funcs.insert(name.clone(), func.clone());
            }
            Stmt::Return(e) => {
                let v = match e {
                    Some(e) => self.eval(e)?,
                    None => Num::zero(),
                };
                return Err(Flow::Return(v));
            }
            Stmt::Print(items) => {
                for item in items {
                    match item {
                        PrintItem::Str(t) => self.out.push_str(&print_escapes(t)),
                        PrintItem::Expr(e) => {
                            let v = self.eval(e)?;
                            self.out.push_str(&v.format(self.obase));
                            self.vars.insert("last".into(), v);
                        }
                    }
                }
            }
            Stmt::Str(t) => self.out.push_str(&unescape(t)),
            Stmt::Expr(e) => {
                let v = self.eval(e)?;
                if !matches!(e, Expr::Assign(..)) {
                    self.print_num(&v);
                    self.vars.insert("last".into(), v);
                }
            }
            Stmt::Block(v) => {
                for s in v {
                    self.run(s)?;
                }
            }
            Stmt::If(c, t, e) => {
                if !self.eval(c)?.is_zero() {
                    self.run(t)?;
                } else if let Some(e) = e {
                    self.run(e)?;
                }
            }
            Stmt::While(c, body) => {
                while !self.eval(c)?.is_zero() {
                    match self.run(body) {
                        Err(Flow::Break) => break,
                        Err(Flow::Continue) => continue,
                        r => r?,
                    }
                }
            }
            Stmt::For(a, c, step, body) => {
                if let Some(a) = a {
                    self.eval(a)?;
                }
                while match c {
                    Some(c) => !self.eval(c)?.is_zero(),
                    None => true,
                } {
                    match self.run(body) {
                        Err(Flow::Break) => break,
                        Err(Flow::Continue) => {}
                        r => r?,
                    }
                    if let Some(s) = step {
                        self.eval(s)?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// bc strings print as written (GNU bc has no escapes in strings).
fn unescape(s: &str) -> String {
    s.to_string()
}

/// A `print` string: GNU reads `\a \b \f \n \q (") \r \t \\`; it drops
/// any other escape, backslash and character.
fn print_escapes(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('a') => out.push('\x07'),
            Some('b') => out.push('\x08'),
            Some('f') => out.push('\x0c'),
            Some('n') => out.push('\n'),
            Some('q') => out.push('"'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('\\') => out.push('\\'),
            _ => {}
        }
    }
    out
}

/// The statements of one input line (a statement may span lines), as GNU
/// bc reads them before running any: a syntax error anywhere drops the
/// whole line (`None`, the message written).
fn parse_line(parser: &mut Parser, stderr: &mut dyn Write) -> Option<Vec<Stmt>> {
    let mut line = Vec::new();
    loop {
        parser.at_line_start =
            parser.pos == 0 || matches!(parser.toks.get(parser.pos - 1), Some((Tok::Newline, _)));
        let failed_at = match parser.stmt() {
            Ok(st) => {
                line.push(st);
                if parser.quit_seen {
                    return Some(line);
                }
                match parser.peek() {
                    None | Some(Tok::Newline) => return Some(line),
                    Some(Tok::Op(";")) => {
                        parser.pos += 1;
                        if matches!(parser.peek(), None | Some(Tok::Newline)) {
                            return Some(line);
                        }
                        continue;
                    }
                    _ => parser.line(),
                }
            }
            Err(at) => at,
        };
        let msg = parser.message.take().unwrap_or("syntax error");
        let _ = writeln!(stderr, "(standard_in) {failed_at}: {msg}");
        // Resynchronise at the next line, as bc does.
        while !matches!(parser.peek(), None | Some(Tok::Newline)) {
            parser.pos += 1;
        }
        return None;
    }
}

/// `bc`
pub fn bc(ctx: &mut CommandCtx<'_>) -> i32 {
    let p = match common::parse(ctx.args, SPEC, ParseMode::default()) {
        Ok(p) => p,
        Err(e) => {
            // GNU bc follows the message with its usage, on stdout.
            ctx.error(e);
            let _ = ctx.stdout.write_all(USAGE.as_bytes());
            return 1;
        }
    };
    if p.has("h") {
        let _ = ctx.stdout.write_all(USAGE.as_bytes());
        return 0;
    }
    let mut sources = Vec::new();
    for f in &p.operands {
        match common::read_file(ctx.fs, ctx.cwd, f) {
            Ok(d) => sources.push(String::from_utf8_lossy(&d).into_owned()),
            Err(e) => {
                ctx.error(format!("File {f} is unavailable: {e}"));
                return 1;
            }
        }
    }
    match common::read_stdin(ctx.stdin, ctx.fs.max_file_size()) {
        Ok(d) => sources.push(String::from_utf8_lossy(&d).into_owned()),
        Err(e) => {
            ctx.error(format!("stdin: {e}"));
            return 1;
        }
    }
    let mut m = Machine {
        ctx,
        vars: HashMap::new(),
        arrays: HashMap::new(),
        scale: if p.has("l") { 20 } else { 0 },
        ibase: 10,
        obase: 10,
        mathlib: p.has("l"),
        funcs: HashMap::new(),
        depth: 0,
        out: String::new(),
    };
    'files: for src in &sources {
        let toks = match lex(src) {
            Ok(t) => t,
            Err((msg, line)) => {
                let _ = writeln!(m.ctx.stderr, "(standard_in) {line}: {msg}");
                continue;
            }
        };
        let mut parser = Parser {
            toks,
            pos: 0,
            loops: 0,
            message: None,
            in_function: false,
            at_line_start: false,
            quit_seen: false,
        };
        loop {
            parser.skip_newlines();
            if parser.peek().is_none() {
                break;
            }
            let Some(line) = parse_line(&mut parser, m.ctx.stderr) else {
                continue;
            };
            if parser.quit_seen {
                break 'files;
            }
            for stmt in &line {
                match m.run(stmt) {
                    Ok(()) | Err(Flow::Break) | Err(Flow::Continue) | Err(Flow::Return(_)) => {}
                    Err(Flow::Quit) => break 'files,
                    Err(Flow::Error(msg)) => {
                        let out = std::mem::take(&mut m.out);
                        let _ = m.ctx.stdout.write_all(out.as_bytes());
                        let _ = writeln!(m.ctx.stderr, "Runtime error (func=(main), adr=0): {msg}");
                        // The rest of the line is not run.
                        break;
                    }
                }
            }
        }
    }
    let out = std::mem::take(&mut m.out);
    if m.ctx.stdout.write_all(out.as_bytes()).is_err() {
        return 1;
    }
    0
}
