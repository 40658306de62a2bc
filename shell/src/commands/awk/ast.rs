//! The awk program as plain data: expressions, statements, rules, functions.

/// Where a variable lives.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Var {
    /// A global, by index into the interpreter's globals.
    Global(usize),
    /// A function parameter, by index into the current frame.
    Local(usize),
}

/// Binary arithmetic operators.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Mod,
    /// `^`
    Pow,
}

/// Comparison operators.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CmpOp {
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

/// An assignable place.
#[derive(Clone, Debug)]
pub enum LValue {
    /// A scalar variable.
    Var(Var),
    /// An array element.
    Index(Var, Vec<Expr>),
    /// A field `$e`.
    Field(Box<Expr>),
}

/// Which `getline` form.
#[derive(Clone, Debug)]
pub enum GetlineSrc {
    /// From the main input.
    Main,
    /// `< file`
    File(Box<Expr>),
    /// `cmd |`
    Cmd(Box<Expr>),
}

/// An expression.
#[derive(Clone, Debug)]
pub enum Expr {
    /// A number.
    Num(f64),
    /// A string.
    Str(String),
    /// A bare regex: matches `$0`.
    Regex(usize),
    /// A regex literal used as a value (right of `~`, function arguments).
    RegexLit(usize, String),
    /// `$e`
    Field(Box<Expr>),
    /// A variable.
    Var(Var),
    /// `a[i, j]`
    Index(Var, Vec<Expr>),
    /// `lv = e` or `lv op= e`.
    Assign(Option<BinOp>, Box<LValue>, Box<Expr>),
    /// `c ? a : b`
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `a && b`
    And(Box<Expr>, Box<Expr>),
    /// `a || b`
    Or(Box<Expr>, Box<Expr>),
    /// `!e`
    Not(Box<Expr>),
    /// `-e`
    Neg(Box<Expr>),
    /// `+e`
    Plus(Box<Expr>),
    /// Arithmetic.
    Bin(BinOp, Box<Expr>, Box<Expr>),
    /// Comparison.
    Cmp(CmpOp, Box<Expr>, Box<Expr>),
    /// Concatenation.
    Concat(Box<Expr>, Box<Expr>),
    /// `a ~ b` (negated for `!~`).
    Match(bool, Box<Expr>, Box<Expr>),
    /// `(i, j) in a`
    In(Vec<Expr>, Var),
    /// `++lv`, `lv--`: (prefix, delta, place).
    IncDec(bool, f64, Box<LValue>),
    /// A user function call, by name.
    Call(String, Vec<Expr>),
    /// A builtin call.
    Builtin(String, Vec<Expr>),
    /// `getline [lv] [< file]`, `cmd | getline [lv]`.
    Getline(GetlineSrc, Option<Box<LValue>>),
    /// `(e)`, kept to tell `print (a) > b` apart.
    Group(Box<Expr>),
}

/// Output redirection of print/printf.
#[derive(Clone, Debug)]
pub enum Redirect {
    /// `> file`
    File(Expr),
    /// `>> file`
    Append(Expr),
    /// `| cmd`
    Pipe(Expr),
}

/// A statement.
#[derive(Clone, Debug)]
pub enum Stmt {
    /// An expression statement.
    Expr(Expr),
    /// `print args [redir]`
    Print(Vec<Expr>, Option<Redirect>),
    /// `printf fmt, args [redir]`
    Printf(Vec<Expr>, Option<Redirect>),
    /// `if`
    If(Expr, Box<Stmt>, Option<Box<Stmt>>),
    /// `while`
    While(Expr, Box<Stmt>),
    /// `do ... while`
    Do(Box<Stmt>, Expr),
    /// `for (init; cond; step)`
    For(
        Option<Box<Stmt>>,
        Option<Expr>,
        Option<Box<Stmt>>,
        Box<Stmt>,
    ),
    /// `for (k in a)`
    ForIn(Var, Var, Box<Stmt>),
    /// `{ ... }`
    Block(Vec<Stmt>),
    /// `next`
    Next,
    /// `nextfile`
    NextFile,
    /// `exit [e]`
    Exit(Option<Expr>),
    /// `return [e]`
    Return(Option<Expr>),
    /// `break`
    Break,
    /// `continue`
    Continue,
    /// `delete a[i]` / `delete a`
    Delete(Var, Option<Vec<Expr>>),
}

/// A rule's pattern.
#[derive(Clone, Debug)]
pub enum Pattern {
    /// `BEGIN`
    Begin,
    /// `END`
    End,
    /// gawk's `BEGINFILE`: before each input file.
    BeginFile,
    /// gawk's `ENDFILE`: after each input file.
    EndFile,
    /// Every record.
    All,
    /// An expression.
    Expr(Expr),
    /// `p1, p2` (index into the range-state table).
    Range(Expr, Expr, usize),
}

/// A pattern-action rule; `None` action means `{ print }`.
#[derive(Clone, Debug)]
pub struct Rule {
    /// The pattern.
    pub pattern: Pattern,
    /// The action.
    pub action: Option<Vec<Stmt>>,
}

/// A user-defined function.
#[derive(Clone, Debug)]
pub struct Func {
    /// Its name.
    pub name: String,
    /// Number of parameters.
    pub nparams: usize,
    /// Which parameters the body uses as arrays.
    pub array_params: Vec<bool>,
    /// The body.
    pub body: Vec<Stmt>,
}

/// A parsed program.
#[derive(Clone, Debug, Default)]
pub struct Program {
    /// Rules in source order.
    pub rules: Vec<Rule>,
    /// Functions by name.
    pub funcs: Vec<Func>,
    /// Global variable names by index.
    pub globals: Vec<String>,
    /// Regex literals by index.
    pub regexes: Vec<String>,
    /// Number of range patterns.
    pub ranges: usize,
}

/// Indices of the special variables in [`Program::globals`].
pub mod special {
    /// Names, in index order.
    pub const NAMES: &[&str] = &[
        "NR",
        "NF",
        "FNR",
        "FS",
        "OFS",
        "ORS",
        "RS",
        "FILENAME",
        "SUBSEP",
        "RSTART",
        "RLENGTH",
        "CONVFMT",
        "OFMT",
        "ENVIRON",
        "ARGC",
        "ARGV",
        "RT",
        "IGNORECASE",
        "PROCINFO",
        "FPAT",
        "ERRNO",
    ];
    /// NR
    pub const NR: usize = 0;
    /// NF
    pub const NF: usize = 1;
    /// FNR
    pub const FNR: usize = 2;
    /// FS
    pub const FS: usize = 3;
    /// OFS
    pub const OFS: usize = 4;
    /// ORS
    pub const ORS: usize = 5;
    /// RS
    pub const RS: usize = 6;
    /// FILENAME
    pub const FILENAME: usize = 7;
    /// SUBSEP
    pub const SUBSEP: usize = 8;
    /// RSTART
    pub const RSTART: usize = 9;
    /// RLENGTH
    pub const RLENGTH: usize = 10;
    /// CONVFMT
    pub const CONVFMT: usize = 11;
    /// OFMT
    pub const OFMT: usize = 12;
    /// ENVIRON
    pub const ENVIRON: usize = 13;
    /// ARGC
    pub const ARGC: usize = 14;
    /// ARGV
    pub const ARGV: usize = 15;
    /// RT
    pub const RT: usize = 16;
    /// IGNORECASE (gawk)
    pub const IGNORECASE: usize = 17;
    /// PROCINFO (gawk)
    pub const PROCINFO: usize = 18;
    /// FPAT (gawk)
    pub const FPAT: usize = 19;
    /// ERRNO (gawk)
    pub const ERRNO: usize = 20;
}
