//! The awk parser: tokens to a [`Program`], by recursive descent over awk's
//! precedence levels (assignment, `?:`, `||`, `&&`, `in`, `~`, comparison,
//! concatenation, additive, multiplicative, unary, `^`, `++ --`, `$`); the
//! plain left-associative binary levels are one table ([`LEVELS`]) climbed
//! by a single function.

use std::collections::HashMap;

use super::ast::*;
use super::lexer::{Tok, Token, lex};

/// A syntax error: `(line, near)`.
#[derive(Debug)]
pub struct SyntaxError {
    /// 1-based line.
    pub line: usize,
    /// The message (`syntax error at or near X`).
    pub msg: String,
}

const MAX_DEPTH: usize = 200;

struct Parser {
    toks: Vec<Token>,
    pos: usize,
    globals: HashMap<String, usize>,
    prog: Program,
    /// Parameters of the function being parsed.
    locals: Option<Vec<String>>,
    array_locals: Vec<bool>,
    no_gt: bool,
    no_in: bool,
    depth: usize,
}

/// Parses an awk program.
pub fn parse(src: &str) -> Result<Program, SyntaxError> {
    let toks = lex(src).map_err(|(line, msg)| SyntaxError { line, msg })?;
    let mut p = Parser {
        toks,
        pos: 0,
        globals: HashMap::new(),
        prog: Program::default(),
        locals: None,
        array_locals: Vec::new(),
        no_gt: false,
        no_in: false,
        depth: 0,
    };
    for n in special::NAMES {
        p.global(n);
    }
    p.program()?;
    propagate_array_params(&mut p.prog);
    Ok(p.prog)
}

/// A parameter passed on to another function's array parameter is an array
/// parameter too; iterate to a fixpoint.
fn propagate_array_params(prog: &mut Program) {
    let mut edges: Vec<Vec<(String, usize, usize)>> = Vec::new();
    for f in &prog.funcs {
        let mut e = Vec::new();
        for st in &f.body {
            walk_stmt(st, &mut e);
        }
        edges.push(e);
    }
    loop {
        let mut changed = false;
        for (fi, fedges) in edges.iter().enumerate() {
            for (callee, pos, local) in fedges {
                let is_arr = prog
                    .funcs
                    .iter()
                    .find(|f| &f.name == callee)
                    .is_some_and(|f| f.array_params.get(*pos).copied().unwrap_or(false));
                if is_arr && !prog.funcs[fi].array_params[*local] {
                    prog.funcs[fi].array_params[*local] = true;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
}

fn walk_stmt(s: &Stmt, out: &mut Vec<(String, usize, usize)>) {
    match s {
        Stmt::Expr(e) => walk_expr(e, out),
        Stmt::Print(a, r) | Stmt::Printf(a, r) => {
            a.iter().for_each(|e| walk_expr(e, out));
            if let Some(Redirect::File(e) | Redirect::Append(e) | Redirect::Pipe(e)) = r {
                walk_expr(e, out);
            }
        }
        Stmt::If(c, a, b) => {
            walk_expr(c, out);
            walk_stmt(a, out);
            if let Some(b) = b {
                walk_stmt(b, out);
            }
        }
        Stmt::While(c, b) | Stmt::Do(b, c) => {
            walk_expr(c, out);
            walk_stmt(b, out);
        }
        Stmt::For(i, c, st, b) => {
            if let Some(i) = i {
                walk_stmt(i, out);
            }
            if let Some(c) = c {
                walk_expr(c, out);
            }
            if let Some(st) = st {
                walk_stmt(st, out);
            }
            walk_stmt(b, out);
        }
        Stmt::ForIn(_, _, b) => walk_stmt(b, out),
        Stmt::Block(v) => v.iter().for_each(|s| walk_stmt(s, out)),
        Stmt::Exit(Some(e)) | Stmt::Return(Some(e)) => walk_expr(e, out),
        Stmt::Delete(_, Some(v)) => v.iter().for_each(|e| walk_expr(e, out)),
        _ => {}
    }
}

fn walk_expr(e: &Expr, out: &mut Vec<(String, usize, usize)>) {
    match e {
        Expr::Call(name, args) => {
            for (i, a) in args.iter().enumerate() {
                if let Expr::Var(Var::Local(l)) = a {
                    out.push((name.clone(), i, *l));
                }
                walk_expr(a, out);
            }
        }
        Expr::Field(a) | Expr::Not(a) | Expr::Neg(a) | Expr::Plus(a) | Expr::Group(a) => {
            walk_expr(a, out)
        }
        Expr::Index(_, v) | Expr::Builtin(_, v) | Expr::In(v, _) => {
            v.iter().for_each(|e| walk_expr(e, out))
        }
        Expr::Assign(_, _, r) => walk_expr(r, out),
        Expr::Cond(a, b, c) => {
            walk_expr(a, out);
            walk_expr(b, out);
            walk_expr(c, out);
        }
        Expr::And(a, b)
        | Expr::Or(a, b)
        | Expr::Bin(_, a, b)
        | Expr::Cmp(_, a, b)
        | Expr::Concat(a, b)
        | Expr::Match(_, a, b) => {
            walk_expr(a, out);
            walk_expr(b, out);
        }
        _ => {}
    }
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::Num(n) => format!("{n}"),
        Tok::Str(s) => format!("\"{s}\""),
        Tok::Regex(s) => format!("/{s}/"),
        Tok::Name(s) | Tok::FuncName(s) | Tok::Builtin(s) => s.clone(),
        Tok::Kw(k) => k.to_string(),
        Tok::Op(o) => o.to_string(),
        Tok::Newline => "end of line".into(),
        Tok::Eof => "end of file".into(),
    }
}

type R<T> = Result<T, SyntaxError>;

/// The node a binary operator builds.
#[derive(Clone, Copy)]
enum Node {
    Or,
    And,
    /// `~` (false) or `!~` (true).
    Match(bool),
    Arith(BinOp),
}

impl Node {
    fn build(self, l: Expr, r: Expr) -> Expr {
        let (l, r) = (Box::new(l), Box::new(r));
        match self {
            Node::Or => Expr::Or(l, r),
            Node::And => Expr::And(l, r),
            Node::Match(neg) => Expr::Match(neg, l, Box::new(regex_value(*r))),
            Node::Arith(op) => Expr::Bin(op, l, r),
        }
    }
}

/// What a binary level's operands are: the next level of [`LEVELS`], or
/// one of the levels with their own rules (`in`, non-associative
/// comparison with `| getline` and concatenation, unary operators).
#[derive(Clone, Copy)]
enum Operand {
    Next,
    In,
    Comparison,
    Unary,
}

/// A left-associative binary precedence level.
struct Level {
    ops: &'static [(&'static str, Node)],
    /// A newline may follow the operator (`||`, `&&`).
    newlines: bool,
    operand: Operand,
}

/// awk's left-associative binary levels, loosest first; `in`, comparison,
/// `| getline` and concatenation sit between `~` and `+` (see
/// [`Operand`]).
const LEVELS: &[Level] = &[
    Level {
        ops: &[("||", Node::Or)],
        newlines: true,
        operand: Operand::Next,
    },
    Level {
        ops: &[("&&", Node::And)],
        newlines: true,
        operand: Operand::In,
    },
    Level {
        ops: &[("~", Node::Match(false)), ("!~", Node::Match(true))],
        newlines: false,
        operand: Operand::Comparison,
    },
    Level {
        ops: &[
            ("+", Node::Arith(BinOp::Add)),
            ("-", Node::Arith(BinOp::Sub)),
        ],
        newlines: false,
        operand: Operand::Next,
    },
    Level {
        ops: &[
            ("*", Node::Arith(BinOp::Mul)),
            ("/", Node::Arith(BinOp::Div)),
            ("%", Node::Arith(BinOp::Mod)),
        ],
        newlines: false,
        operand: Operand::Unary,
    },
];
/// `||`: the loosest binary level.
const OR: usize = 0;
/// `~ !~`
const MATCH: usize = 2;
/// `+ -`
const ADDITIVE: usize = 3;

impl Parser {
    fn peek(&self) -> &Tok {
        &self.toks[self.pos.min(self.toks.len() - 1)].tok
    }
    fn peek_at(&self, n: usize) -> &Tok {
        &self.toks[(self.pos + n).min(self.toks.len() - 1)].tok
    }
    fn next(&mut self) -> Tok {
        let t = self.peek().clone();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        t
    }
    fn err<T>(&self) -> R<T> {
        let t = &self.toks[self.pos.min(self.toks.len() - 1)];
        Err(SyntaxError {
            line: t.line,
            msg: format!("syntax error at or near {}", describe(&t.tok)),
        })
    }
    fn is_op(&self, o: &str) -> bool {
        matches!(self.peek(), Tok::Op(x) if *x == o)
    }
    fn is_kw(&self, k: &str) -> bool {
        matches!(self.peek(), Tok::Kw(x) if *x == k)
    }
    fn eat_op(&mut self, o: &str) -> bool {
        if self.is_op(o) {
            self.next();
            true
        } else {
            false
        }
    }
    fn expect_op(&mut self, o: &str) -> R<()> {
        if self.eat_op(o) { Ok(()) } else { self.err() }
    }
    fn opt_newlines(&mut self) {
        while *self.peek() == Tok::Newline {
            self.next();
        }
    }
    fn global(&mut self, name: &str) -> usize {
        if let Some(i) = self.globals.get(name) {
            return *i;
        }
        let i = self.prog.globals.len();
        self.prog.globals.push(name.to_string());
        self.globals.insert(name.to_string(), i);
        i
    }
    fn var(&mut self, name: &str) -> Var {
        if let Some(l) = &self.locals
            && let Some(i) = l.iter().position(|p| p == name)
        {
            return Var::Local(i);
        }
        Var::Global(self.global(name))
    }
    fn array_var(&mut self, name: &str) -> Var {
        let v = self.var(name);
        if let Var::Local(i) = v {
            self.array_locals[i] = true;
        }
        v
    }
    fn regex(&mut self, s: String) -> usize {
        self.prog.regexes.push(s);
        self.prog.regexes.len() - 1
    }

    fn program(&mut self) -> R<()> {
        loop {
            while matches!(self.peek(), Tok::Newline) || self.is_op(";") {
                self.next();
            }
            match self.peek().clone() {
                Tok::Eof => return Ok(()),
                Tok::Kw("function") => self.function()?,
                Tok::Kw(k @ ("BEGIN" | "END" | "BEGINFILE" | "ENDFILE")) => {
                    self.next();
                    self.opt_newlines();
                    if !self.is_op("{") {
                        return self.err();
                    }
                    let a = self.block()?;
                    let pattern = match k {
                        "BEGIN" => Pattern::Begin,
                        "END" => Pattern::End,
                        "BEGINFILE" => Pattern::BeginFile,
                        _ => Pattern::EndFile,
                    };
                    self.prog.rules.push(Rule {
                        pattern,
                        action: Some(a),
                    });
                }
                Tok::Op("{") => {
                    let a = self.block()?;
                    self.prog.rules.push(Rule {
                        pattern: Pattern::All,
                        action: Some(a),
                    });
                }
                _ => {
                    let e = self.expr()?;
                    let pattern = if self.eat_op(",") {
                        self.opt_newlines();
                        let e2 = self.expr()?;
                        self.prog.ranges += 1;
                        Pattern::Range(e, e2, self.prog.ranges - 1)
                    } else {
                        Pattern::Expr(e)
                    };
                    let action = if self.is_op("{") {
                        Some(self.block()?)
                    } else {
                        None
                    };
                    if action.is_none()
                        && !matches!(self.peek(), Tok::Newline | Tok::Eof | Tok::Op(";"))
                    {
                        return self.err();
                    }
                    self.prog.rules.push(Rule { pattern, action });
                }
            }
        }
    }

    fn function(&mut self) -> R<()> {
        self.next();
        let name = match self.next() {
            Tok::Name(n) | Tok::FuncName(n) => n,
            _ => {
                self.pos -= 1;
                return self.err();
            }
        };
        if self.prog.funcs.iter().any(|f| f.name == name) {
            let line = self.toks[self.pos].line;
            return Err(SyntaxError {
                line,
                msg: format!("function `{name}' redefined"),
            });
        }
        self.expect_op("(")?;
        let mut params = Vec::new();
        self.opt_newlines();
        while !self.is_op(")") {
            match self.next() {
                Tok::Name(n) => params.push(n),
                _ => {
                    self.pos -= 1;
                    return self.err();
                }
            }
            self.opt_newlines();
            if !self.is_op(")") {
                self.expect_op(",")?;
                self.opt_newlines();
            }
        }
        self.next();
        self.opt_newlines();
        let n = params.len();
        self.locals = Some(params);
        self.array_locals = vec![false; n];
        // Register first so recursion and later calls resolve.
        self.prog.funcs.push(Func {
            name: name.clone(),
            nparams: n,
            array_params: vec![],
            body: vec![],
        });
        let body = self.block()?;
        self.locals = None;
        let f = self
            .prog
            .funcs
            .iter_mut()
            .find(|f| f.name == name)
            .expect("registered");
        f.body = body;
        f.array_params = std::mem::take(&mut self.array_locals);
        Ok(())
    }

    fn block(&mut self) -> R<Vec<Stmt>> {
        self.expect_op("{")?;
        let mut v = Vec::new();
        loop {
            while matches!(self.peek(), Tok::Newline) || self.is_op(";") {
                self.next();
            }
            if self.eat_op("}") {
                return Ok(v);
            }
            if *self.peek() == Tok::Eof {
                return self.err();
            }
            v.push(self.stmt()?);
        }
    }

    /// Ends a simple statement: `;`, newline, or before `}`.
    fn end_simple(&mut self) -> R<()> {
        match self.peek() {
            Tok::Newline | Tok::Op(";") => {
                self.next();
                Ok(())
            }
            Tok::Op("}") | Tok::Eof => Ok(()),
            _ => self.err(),
        }
    }

    fn simple_or_block(&mut self) -> R<Stmt> {
        self.opt_newlines();
        if self.is_op(";") {
            self.next();
            return Ok(Stmt::Block(vec![]));
        }
        self.stmt()
    }

    fn stmt(&mut self) -> R<Stmt> {
        self.nested(Self::stmt_inner)
    }

    /// Runs `f` one nesting level deeper: too deep a nesting is a syntax
    /// error, never a stack overflow.
    fn nested<T>(&mut self, f: fn(&mut Self) -> R<T>) -> R<T> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.err();
        }
        let r = f(self);
        self.depth -= 1;
        r
    }

    /// An array name (after `in` or `delete`).
    fn array_name(&mut self) -> R<Var> {
        match self.next() {
            Tok::Name(n) => Ok(self.array_var(&n)),
            _ => {
                self.pos -= 1;
                self.err()
            }
        }
    }

    fn stmt_inner(&mut self) -> R<Stmt> {
        match self.peek().clone() {
            Tok::Op("{") => Ok(Stmt::Block(self.block()?)),
            Tok::Kw("if") => {
                self.next();
                self.expect_op("(")?;
                let c = self.expr()?;
                self.expect_op(")")?;
                let then = self.simple_or_block()?;
                // `else` may follow newlines or a `;`.
                let save = self.pos;
                while matches!(self.peek(), Tok::Newline) || self.is_op(";") {
                    self.next();
                }
                if self.is_kw("else") {
                    self.next();
                    let els = self.simple_or_block()?;
                    Ok(Stmt::If(c, Box::new(then), Some(Box::new(els))))
                } else {
                    self.pos = save;
                    Ok(Stmt::If(c, Box::new(then), None))
                }
            }
            Tok::Kw("while") => {
                self.next();
                self.expect_op("(")?;
                let c = self.expr()?;
                self.expect_op(")")?;
                if self.is_op(";") {
                    self.next();
                    return Ok(Stmt::While(c, Box::new(Stmt::Block(vec![]))));
                }
                let body = self.simple_or_block()?;
                Ok(Stmt::While(c, Box::new(body)))
            }
            Tok::Kw("do") => {
                self.next();
                let body = self.simple_or_block()?;
                while matches!(self.peek(), Tok::Newline) || self.is_op(";") {
                    self.next();
                }
                if !self.is_kw("while") {
                    return self.err();
                }
                self.next();
                self.expect_op("(")?;
                let c = self.expr()?;
                self.expect_op(")")?;
                self.end_simple()?;
                Ok(Stmt::Do(Box::new(body), c))
            }
            Tok::Kw("for") => {
                self.next();
                self.expect_op("(")?;
                if let (Tok::Name(k), Tok::Kw("in"), Tok::Name(a), Tok::Op(")")) = (
                    self.peek().clone(),
                    self.peek_at(1).clone(),
                    self.peek_at(2).clone(),
                    self.peek_at(3).clone(),
                ) {
                    self.pos += 4;
                    let kv = self.var(&k);
                    let av = self.array_var(&a);
                    let body = self.simple_or_block()?;
                    return Ok(Stmt::ForIn(kv, av, Box::new(body)));
                }
                let init = if self.is_op(";") {
                    None
                } else {
                    Some(Box::new(self.simple_stmt()?))
                };
                self.expect_op(";")?;
                self.opt_newlines();
                let cond = if self.is_op(";") {
                    None
                } else {
                    Some(self.expr()?)
                };
                self.expect_op(";")?;
                self.opt_newlines();
                let step = if self.is_op(")") {
                    None
                } else {
                    Some(Box::new(self.simple_stmt()?))
                };
                self.expect_op(")")?;
                if self.is_op(";") {
                    self.next();
                    return Ok(Stmt::For(init, cond, step, Box::new(Stmt::Block(vec![]))));
                }
                let body = self.simple_or_block()?;
                Ok(Stmt::For(init, cond, step, Box::new(body)))
            }
            Tok::Op(";") => {
                self.next();
                Ok(Stmt::Block(vec![]))
            }
            _ => {
                let s = self.simple_stmt()?;
                self.end_simple()?;
                Ok(s)
            }
        }
    }

    fn simple_stmt(&mut self) -> R<Stmt> {
        match self.peek().clone() {
            Tok::Kw("print") | Tok::Kw("printf") => {
                let is_printf = self.is_kw("printf");
                self.next();
                let args = self.print_args()?;
                if is_printf && args.is_empty() {
                    return self.err();
                }
                let redir = if self.eat_op(">") {
                    Some(Redirect::File(self.concat_no_gt()?))
                } else if self.eat_op(">>") {
                    Some(Redirect::Append(self.concat_no_gt()?))
                } else if self.eat_op("|") {
                    Some(Redirect::Pipe(self.concat_no_gt()?))
                } else {
                    None
                };
                Ok(if is_printf {
                    Stmt::Printf(args, redir)
                } else {
                    Stmt::Print(args, redir)
                })
            }
            Tok::Kw(k @ ("next" | "nextfile" | "break" | "continue")) => {
                self.next();
                Ok(match k {
                    "next" => Stmt::Next,
                    "nextfile" => Stmt::NextFile,
                    "break" => Stmt::Break,
                    _ => Stmt::Continue,
                })
            }
            Tok::Kw(k @ ("exit" | "return")) => {
                self.next();
                let e = if self.at_end() {
                    None
                } else {
                    Some(self.expr()?)
                };
                Ok(if k == "exit" {
                    Stmt::Exit(e)
                } else {
                    Stmt::Return(e)
                })
            }
            Tok::Kw("delete") => {
                self.next();
                let v = self.array_name()?;
                if self.eat_op("[") {
                    let subs = self.expr_list_until("]")?;
                    Ok(Stmt::Delete(v, Some(subs)))
                } else {
                    Ok(Stmt::Delete(v, None))
                }
            }
            _ => Ok(Stmt::Expr(self.expr()?)),
        }
    }

    fn at_end(&self) -> bool {
        matches!(
            self.peek(),
            Tok::Newline | Tok::Eof | Tok::Op(";") | Tok::Op("}")
        )
    }

    fn print_args(&mut self) -> R<Vec<Expr>> {
        if self.at_end() || self.is_op(">") || self.is_op(">>") || self.is_op("|") {
            return Ok(vec![]);
        }
        if self.is_op("(") {
            let save = self.pos;
            self.next();
            let old = (self.no_gt, self.no_in);
            self.no_gt = false;
            self.no_in = false;
            let list = self.expr_list_until(")");
            self.no_gt = old.0;
            self.no_in = old.1;
            if let Ok(list) = list
                && (self.at_end() || self.is_op(">") || self.is_op(">>") || self.is_op("|"))
            {
                return Ok(list);
            }
            self.pos = save;
        }
        let old = self.no_gt;
        self.no_gt = true;
        let mut v = vec![self.expr()?];
        while self.eat_op(",") {
            self.opt_newlines();
            v.push(self.expr()?);
        }
        self.no_gt = old;
        Ok(v)
    }

    fn concat_no_gt(&mut self) -> R<Expr> {
        let old = self.no_gt;
        self.no_gt = true;
        let e = self.concat();
        self.no_gt = old;
        e
    }

    fn expr_list_until(&mut self, close: &str) -> R<Vec<Expr>> {
        let old = (self.no_gt, self.no_in);
        self.no_gt = false;
        self.no_in = false;
        let mut v = Vec::new();
        self.opt_newlines();
        if !self.is_op(close) {
            loop {
                v.push(self.expr()?);
                self.opt_newlines();
                if !self.eat_op(",") {
                    break;
                }
                self.opt_newlines();
            }
        }
        self.no_gt = old.0;
        self.no_in = old.1;
        self.expect_op(close)?;
        Ok(v)
    }

    /// expr: assignment level.
    pub fn expr(&mut self) -> R<Expr> {
        self.nested(Self::assign)
    }

    fn assign(&mut self) -> R<Expr> {
        let lhs = self.ternary()?;
        let op = match self.peek() {
            Tok::Op("=") => None,
            Tok::Op("+=") => Some(BinOp::Add),
            Tok::Op("-=") => Some(BinOp::Sub),
            Tok::Op("*=") => Some(BinOp::Mul),
            Tok::Op("/=") => Some(BinOp::Div),
            Tok::Op("%=") => Some(BinOp::Mod),
            Tok::Op("^=") | Tok::Op("**=") => Some(BinOp::Pow),
            _ => return Ok(lhs),
        };
        let Some(lv) = to_lvalue(&lhs) else {
            return Ok(lhs);
        };
        self.next();
        self.opt_newlines();
        let rhs = self.expr()?;
        Ok(Expr::Assign(op, Box::new(lv), Box::new(rhs)))
    }

    fn ternary(&mut self) -> R<Expr> {
        let c = self.binary(OR)?;
        if self.eat_op("?") {
            self.opt_newlines();
            let a = self.expr()?;
            self.opt_newlines();
            self.expect_op(":")?;
            self.opt_newlines();
            let b = self.expr()?;
            return Ok(Expr::Cond(Box::new(c), Box::new(a), Box::new(b)));
        }
        Ok(c)
    }

    /// A left-associative binary level of [`LEVELS`] (precedence climbing
    /// over the table: each level's operands are the next tighter level).
    fn binary(&mut self, level: usize) -> R<Expr> {
        let lv = &LEVELS[level];
        let mut l = self.operand(level)?;
        loop {
            let Some(&(_, node)) = lv.ops.iter().find(|(o, _)| self.is_op(o)) else {
                return Ok(l);
            };
            self.next();
            if lv.newlines {
                self.opt_newlines();
            }
            let r = self.operand(level)?;
            l = node.build(l, r);
        }
    }

    /// The operand of binary level `level`.
    fn operand(&mut self, level: usize) -> R<Expr> {
        match LEVELS[level].operand {
            Operand::Next => self.binary(level + 1),
            Operand::In => self.in_expr(),
            Operand::Comparison => self.comparison(),
            Operand::Unary => self.unary(),
        }
    }

    fn in_expr(&mut self) -> R<Expr> {
        let mut l = self.binary(MATCH)?;
        while !self.no_in && self.is_kw("in") {
            self.next();
            let v = self.array_name()?;
            l = Expr::In(vec![l], v);
        }
        Ok(l)
    }

    fn comparison(&mut self) -> R<Expr> {
        let l = self.pipe_getline()?;
        let op = match self.peek() {
            Tok::Op("<") => CmpOp::Lt,
            Tok::Op("<=") => CmpOp::Le,
            Tok::Op("==") => CmpOp::Eq,
            Tok::Op("!=") => CmpOp::Ne,
            Tok::Op(">") if !self.no_gt => CmpOp::Gt,
            Tok::Op(">=") => CmpOp::Ge,
            _ => return Ok(l),
        };
        self.next();
        let r = self.pipe_getline()?;
        Ok(Expr::Cmp(op, Box::new(l), Box::new(r)))
    }

    fn pipe_getline(&mut self) -> R<Expr> {
        let mut l = self.concat()?;
        while self.is_op("|") && *self.peek_at(1) == Tok::Kw("getline") {
            self.pos += 2;
            let lv = self.opt_getline_lvalue()?;
            l = Expr::Getline(GetlineSrc::Cmd(Box::new(l)), lv);
        }
        Ok(l)
    }

    fn opt_getline_lvalue(&mut self) -> R<Option<Box<LValue>>> {
        match self.peek() {
            Tok::Name(_) | Tok::Op("$") => {
                let e = self.incdec()?;
                match to_lvalue(&e) {
                    Some(lv) => Ok(Some(Box::new(lv))),
                    None => self.err(),
                }
            }
            _ => Ok(None),
        }
    }

    fn starts_operand(&self) -> bool {
        match self.peek() {
            Tok::Num(_)
            | Tok::Str(_)
            | Tok::Regex(_)
            | Tok::Name(_)
            | Tok::FuncName(_)
            | Tok::Builtin(_) => true,
            Tok::Op(o) => matches!(*o, "$" | "!" | "(" | "-" | "+" | "++" | "--"),
            Tok::Kw("getline") => true,
            _ => false,
        }
    }

    fn concat(&mut self) -> R<Expr> {
        let mut l = self.binary(ADDITIVE)?;
        while self.starts_operand() && !(self.no_in && self.is_kw("in")) {
            // `a -1` is subtraction (handled in additive); here only operands.
            let r = self.binary(ADDITIVE)?;
            l = Expr::Concat(Box::new(l), Box::new(r));
        }
        Ok(l)
    }

    fn unary(&mut self) -> R<Expr> {
        self.nested(Self::unary_inner)
    }

    fn unary_inner(&mut self) -> R<Expr> {
        match self.peek() {
            Tok::Op("!") => {
                self.next();
                self.unary().map(|e| Expr::Not(Box::new(e)))
            }
            Tok::Op("-") => {
                self.next();
                self.unary().map(|e| Expr::Neg(Box::new(e)))
            }
            Tok::Op("+") => {
                self.next();
                self.unary().map(|e| Expr::Plus(Box::new(e)))
            }
            _ => self.power(),
        }
    }

    fn power(&mut self) -> R<Expr> {
        let base = self.incdec()?;
        if self.is_op("^") || self.is_op("**") {
            self.next();
            // Right associative; the exponent may carry a unary minus.
            let exp = if self.is_op("-") || self.is_op("+") || self.is_op("!") {
                self.unary()?
            } else {
                self.power()?
            };
            return Ok(Expr::Bin(BinOp::Pow, Box::new(base), Box::new(exp)));
        }
        Ok(base)
    }

    fn incdec(&mut self) -> R<Expr> {
        if self.is_op("++") || self.is_op("--") {
            let d = if self.is_op("++") { 1.0 } else { -1.0 };
            self.next();
            let e = self.incdec()?;
            return match to_lvalue(&e) {
                Some(lv) => Ok(Expr::IncDec(true, d, Box::new(lv))),
                None => self.err(),
            };
        }
        let e = self.primary()?;
        if (self.is_op("++") || self.is_op("--"))
            && let Some(lv) = to_lvalue(&e)
        {
            let d = if self.is_op("++") { 1.0 } else { -1.0 };
            self.next();
            return Ok(Expr::IncDec(false, d, Box::new(lv)));
        }
        Ok(e)
    }

    fn primary(&mut self) -> R<Expr> {
        self.nested(Self::primary_inner)
    }

    fn primary_inner(&mut self) -> R<Expr> {
        match self.next() {
            Tok::Num(n) => Ok(Expr::Num(n)),
            Tok::Str(s) => Ok(Expr::Str(s)),
            Tok::Regex(s) => {
                let i = self.regex(s);
                Ok(Expr::Regex(i))
            }
            Tok::Op("$") => {
                let e = if self.is_op("++") || self.is_op("--") {
                    self.incdec()?
                } else if self.is_op("-") {
                    self.next();
                    Expr::Neg(Box::new(self.primary()?))
                } else {
                    self.primary()?
                };
                Ok(Expr::Field(Box::new(e)))
            }
            Tok::Op("(") => {
                let list = self.expr_list_until(")")?;
                if list.len() > 1 {
                    if !self.is_kw("in") {
                        return self.err();
                    }
                    self.next();
                    let v = self.array_name()?;
                    return Ok(Expr::In(list, v));
                }
                match list.into_iter().next() {
                    Some(e) => Ok(Expr::Group(Box::new(e))),
                    None => {
                        self.pos -= 1;
                        self.err()
                    }
                }
            }
            Tok::Op("-") => Ok(Expr::Neg(Box::new(self.unary()?))),
            Tok::Op("+") => Ok(Expr::Plus(Box::new(self.unary()?))),
            Tok::Op("!") => Ok(Expr::Not(Box::new(self.unary()?))),
            Tok::Name(n) => {
                if self.eat_op("[") {
                    let subs = self.expr_list_until("]")?;
                    if subs.is_empty() {
                        return self.err();
                    }
                    let v = self.array_var(&n);
                    Ok(Expr::Index(v, subs))
                } else {
                    Ok(Expr::Var(self.var(&n)))
                }
            }
            Tok::FuncName(n) => {
                self.expect_op("(")?;
                let args = self.expr_list_until(")")?;
                // Bare names passed along may be arrays: mark locals.
                Ok(Expr::Call(n, args))
            }
            Tok::Builtin(n) => {
                if self.eat_op("(") {
                    let args = self.expr_list_until(")")?;
                    // Which argument is a regex, and which are arrays.
                    let (regex_arg, array_args): (Option<usize>, &[usize]) = match n.as_str() {
                        "split" => (Some(2), &[1, 3]),
                        "patsplit" => (Some(2), &[1, 3]),
                        "match" => (Some(1), &[2]),
                        "sub" | "gsub" | "gensub" => (Some(0), &[]),
                        "asort" | "asorti" => (None, &[0, 1]),
                        _ => (None, &[]),
                    };
                    let args: Vec<Expr> = args
                        .into_iter()
                        .enumerate()
                        .map(|(i, a)| {
                            if Some(i) == regex_arg {
                                regex_value(a)
                            } else {
                                a
                            }
                        })
                        .collect();
                    for &ai in array_args {
                        if let Some(Expr::Var(Var::Local(i))) = args.get(ai) {
                            self.array_locals[*i] = true;
                        }
                    }
                    Ok(Expr::Builtin(n, args))
                } else if n == "length" {
                    Ok(Expr::Builtin(n, vec![]))
                } else {
                    self.pos -= 1;
                    self.err()
                }
            }
            Tok::Kw("getline") => {
                let lv = self.opt_getline_lvalue()?;
                if self.eat_op("<") {
                    let f = self.incdec()?;
                    Ok(Expr::Getline(GetlineSrc::File(Box::new(f)), lv))
                } else {
                    Ok(Expr::Getline(GetlineSrc::Main, lv))
                }
            }
            _ => {
                self.pos -= 1;
                self.err()
            }
        }
    }
}

/// A regex literal in a value position stays a regex (for `~`, `split`, ...).
fn regex_value(e: Expr) -> Expr {
    match e {
        Expr::Regex(i) => Expr::RegexLit(i, String::new()),
        other => other,
    }
}

fn to_lvalue(e: &Expr) -> Option<LValue> {
    match e {
        Expr::Var(v) => Some(LValue::Var(*v)),
        Expr::Index(v, s) => Some(LValue::Index(*v, s.clone())),
        Expr::Field(f) => Some(LValue::Field(f.clone())),
        Expr::Group(g) => to_lvalue(g),
        _ => None,
    }
}
