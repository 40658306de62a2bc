//! Parses `find`'s command line: leading `-H -L -P`, the starting points, then
//! the expression (operators by GNU precedence: `!` > `-a` > `-o` > `,`).

use regex::Regex;

/// Global options that shape the walk rather than test entries.
#[derive(Default)]
pub struct Options {
    pub maxdepth: Option<usize>,
    pub mindepth: usize,
    pub depth: bool,
    pub follow_roots: bool,
    pub follow_all: bool,
    /// Number of `-exec ... +` nodes.
    pub nbatch: usize,
    pub warnings: Vec<String>,
}

/// A numeric comparison: `+N`, `-N` or `N`.
#[derive(Clone, Copy, Debug)]
pub enum Cmp {
    Gt,
    Lt,
    Eq,
}

impl Cmp {
    pub fn test(self, v: i64, n: i64) -> bool {
        match self {
            Cmp::Gt => v > n,
            Cmp::Lt => v < n,
            Cmp::Eq => v == n,
        }
    }
}

/// A node of the expression tree.
pub enum Expr {
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Comma(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    Const(bool),
    Name(String, bool),
    Path(String, bool),
    Regex(Regex),
    Type(Vec<char>),
    Empty,
    Size(Cmp, i64, u64),
    Mtime(Cmp, i64, i64),
    Newer((i64, u32)),
    SameFile(u64),
    Perm(char, u32),
    Links(Cmp, i64),
    Inum(Cmp, i64),
    Prune,
    Quit,
    Print(&'static str),
    Printf(String),
    Delete,
    Exec {
        argv: Vec<String>,
        plus: bool,
        dir: bool,
        id: usize,
    },
}

struct Parser<'a> {
    args: &'a [String],
    pos: usize,
    opts: Options,
    has_action: bool,
    regextype_ere: bool,
    seen_test: bool,
    mtime_of: &'a MtimeOf<'a>,
}

/// Looks up a reference file: (mtime secs, mtime nanos, inode).
pub type MtimeOf<'f> = dyn Fn(&str) -> Result<(i64, u32, u64), String> + 'f;

/// Parsed command line: options, starting points, expression.
pub type Parsed = (Options, Vec<String>, Expr);

/// Parses `find`'s arguments (without argv\[0\]); `mtime_of` gives the
/// modification time and inode of a `-newer` / `-samefile` reference file.
pub fn parse(args: &[String], mtime_of: &MtimeOf<'_>) -> Result<Parsed, String> {
    let mut i = 0;
    let mut opts = Options::default();
    while i < args.len() {
        match args[i].as_str() {
            "-H" => opts.follow_roots = true,
            "-L" => {
                opts.follow_roots = true;
                opts.follow_all = true
            }
            "-P" => {
                opts.follow_roots = false;
                opts.follow_all = false
            }
            _ => break,
        }
        i += 1;
    }
    let mut paths = Vec::new();
    while i < args.len() {
        let a = &args[i];
        if (a.starts_with('-') && a.len() > 1) || a == "(" || a == "!" {
            break;
        }
        paths.push(a.clone());
        i += 1;
    }
    let mut p = Parser {
        args,
        pos: i,
        opts,
        has_action: false,
        regextype_ere: false,
        seen_test: false,
        mtime_of,
    };
    let expr = if p.pos < args.len() {
        let e = p.comma()?;
        if p.pos < args.len() {
            let a = &args[p.pos];
            if a == ")" {
                return Err("invalid expression; you have too many ')'".into());
            }
            return Err(format!(
                "paths must precede expression: \u{2018}{a}\u{2019}"
            ));
        }
        e
    } else {
        Expr::Const(true)
    };
    let expr = if p.has_action {
        expr
    } else {
        Expr::And(Box::new(expr), Box::new(Expr::Print("\n")))
    };
    Ok((p.opts, paths, expr))
}

impl Parser<'_> {
    fn peek(&self) -> Option<&str> {
        self.args.get(self.pos).map(|s| s.as_str())
    }

    fn comma(&mut self) -> Result<Expr, String> {
        let mut e = self.or()?;
        while self.peek() == Some(",") {
            self.pos += 1;
            let r = self.or()?;
            e = Expr::Comma(Box::new(e), Box::new(r));
        }
        Ok(e)
    }

    fn or(&mut self) -> Result<Expr, String> {
        let mut e = self.and()?;
        while matches!(self.peek(), Some("-o" | "-or")) {
            self.pos += 1;
            if self.peek().is_none() {
                return Err("invalid expression; you have used a binary operator '-o' with nothing after it.".into());
            }
            let r = self.and()?;
            e = Expr::Or(Box::new(e), Box::new(r));
        }
        Ok(e)
    }

    fn and(&mut self) -> Result<Expr, String> {
        let mut e = self.unary()?;
        loop {
            match self.peek() {
                Some("-a" | "-and") => {
                    self.pos += 1;
                    if self.peek().is_none() {
                        return Err("invalid expression; you have used a binary operator '-a' with nothing after it.".into());
                    }
                }
                Some("-o" | "-or" | "," | ")") | None => return Ok(e),
                _ => {}
            }
            let r = self.unary()?;
            e = Expr::And(Box::new(e), Box::new(r));
        }
    }

    fn unary(&mut self) -> Result<Expr, String> {
        match self.peek() {
            Some("!" | "-not") => {
                self.pos += 1;
                if self.peek().is_none() {
                    return Err("invalid expression; you have used a unary operator '!' with nothing after it.".into());
                }
                Ok(Expr::Not(Box::new(self.unary()?)))
            }
            Some("(") => {
                self.pos += 1;
                if self.peek() == Some(")") {
                    return Err("invalid expression; empty parentheses are not allowed.".into());
                }
                let e = self.comma()?;
                if self.peek() != Some(")") {
                    return Err("invalid expression; I was expecting to find a ')' somewhere but did not see one.".into());
                }
                self.pos += 1;
                Ok(e)
            }
            Some(_) => self.primary(),
            None => Err("invalid expression".into()),
        }
    }

    fn arg(&mut self, name: &str) -> Result<String, String> {
        match self.args.get(self.pos) {
            Some(a) => {
                self.pos += 1;
                Ok(a.clone())
            }
            None => Err(format!("missing argument to \u{2018}{name}\u{2019}")),
        }
    }

    fn num(&mut self, name: &str) -> Result<(Cmp, i64), String> {
        let a = self.arg(name)?;
        let (cmp, rest) = if let Some(r) = a.strip_prefix('+') {
            (Cmp::Gt, r)
        } else if let Some(r) = a.strip_prefix('-') {
            (Cmp::Lt, r)
        } else {
            (Cmp::Eq, a.as_str())
        };
        rest.parse::<i64>()
            .map(|n| (cmp, n))
            .map_err(|_| format!("invalid argument \u{2018}{a}\u{2019} to \u{2018}{name}\u{2019}"))
    }

    fn global(&mut self, name: &str) {
        if self.seen_test {
            self.opts.warnings.push(format!(
                "warning: you have specified the global option {name} after the argument -name, but global options are not positional, i.e., {name} affects tests specified before it as well as those specified after it.  Please specify global options before other arguments."
            ));
        }
    }

    fn primary(&mut self) -> Result<Expr, String> {
        let name = self.arg("")?;
        let n = name.as_str();
        if n != "-maxdepth" && n != "-mindepth" && n != "-depth" {
            self.seen_test = true;
        }
        if let Some(e) = self.test_primary(n)? {
            return Ok(e);
        }
        if let Some(e) = self.option_primary(n)? {
            return Ok(e);
        }
        if let Some(e) = self.action_primary(n)? {
            return Ok(e);
        }
        if n.starts_with('-') {
            return Err(format!("unknown predicate `{n}'"));
        }
        Err(format!(
            "paths must precede expression: \u{2018}{n}\u{2019}"
        ))
    }

    /// The tests (`-name`, `-type`, `-size`, `-mtime`, ...); `None` for
    /// another primary.
    fn test_primary(&mut self, n: &str) -> Result<Option<Expr>, String> {
        Ok(Some(match n {
            "-name" | "-iname" => Expr::Name(self.arg(n)?, n == "-iname"),
            "-path" | "-ipath" | "-wholename" | "-iwholename" => {
                Expr::Path(self.arg(n)?, n.starts_with("-i"))
            }
            "-regextype" => {
                let t = self.arg(n)?;
                self.regextype_ere =
                    matches!(t.as_str(), "posix-extended" | "egrep" | "posix-egrep");
                Expr::Const(true)
            }
            "-regex" | "-iregex" => {
                let pat = self.arg(n)?;
                let body = if self.regextype_ere {
                    pat.clone()
                } else {
                    emacs_to_ere(&pat)
                };
                let full = format!("{}^(?:{body})$", if n == "-iregex" { "(?i)" } else { "" });
                let re = Regex::new(&full)
                    .map_err(|_| format!("Invalid regular expression \u{2018}{pat}\u{2019}"))?;
                Expr::Regex(re)
            }
            "-type" => Expr::Type(type_letters(&self.arg(n)?)?),
            "-empty" => Expr::Empty,
            "-size" => size_test(&self.arg(n)?)?,
            "-mtime" | "-atime" | "-ctime" => {
                let (c, v) = self.num(n)?;
                Expr::Mtime(c, v, 86400)
            }
            "-mmin" | "-amin" | "-cmin" => {
                let (c, v) = self.num(n)?;
                Expr::Mtime(c, v, 60)
            }
            "-newer" | "-anewer" | "-cnewer" => {
                let f = self.arg(n)?;
                let (secs, nanos, _) = (self.mtime_of)(&f)?;
                Expr::Newer((secs, nanos))
            }
            "-samefile" => {
                let f = self.arg(n)?;
                Expr::SameFile((self.mtime_of)(&f)?.2)
            }
            "-perm" => {
                let a = self.arg(n)?;
                let (kind, body) = match a.chars().next() {
                    Some('-') => ('-', &a[1..]),
                    Some('/') => ('/', &a[1..]),
                    _ => ('=', a.as_str()),
                };
                let mode =
                    parse_mode(body).ok_or_else(|| format!("invalid mode \u{2018}{a}\u{2019}"))?;
                Expr::Perm(kind, mode)
            }
            "-links" => {
                let (c, v) = self.num(n)?;
                Expr::Links(c, v)
            }
            "-inum" => {
                let (c, v) = self.num(n)?;
                Expr::Inum(c, v)
            }
            "-user" | "-group" => {
                let u = self.arg(n)?;
                Expr::Const(u == "sandbox" || u == "1000")
            }
            "-uid" | "-gid" => {
                let (c, v) = self.num(n)?;
                Expr::Const(c.test(1000, v))
            }
            "-nouser" | "-nogroup" => Expr::Const(false),
            "-readable" | "-writable" | "-executable" => Expr::Const(true),
            "-true" => Expr::Const(true),
            "-false" => Expr::Const(false),
            _ => return Ok(None),
        }))
    }

    /// The options that look like tests (`-maxdepth`, `-depth`, `-follow`,
    /// ...): they set [`Options`] and are always true.
    fn option_primary(&mut self, n: &str) -> Result<Option<Expr>, String> {
        Ok(Some(match n {
            "-maxdepth" | "-mindepth" => {
                self.global(n);
                let a = self.arg(n)?;
                let v: usize = a.parse().map_err(|_| {
                    format!("Expected a positive decimal integer argument to {n}, but got \u{2018}{a}\u{2019}")
                })?;
                if n == "-maxdepth" {
                    self.opts.maxdepth = Some(v);
                } else {
                    self.opts.mindepth = v;
                }
                Expr::Const(true)
            }
            "-depth" | "-d" => {
                self.opts.depth = true;
                Expr::Const(true)
            }
            "-follow" => {
                self.opts.follow_roots = true;
                self.opts.follow_all = true;
                Expr::Const(true)
            }
            "-xdev" | "-mount" | "-noleaf" | "-ignore_readdir_race" => Expr::Const(true),
            _ => return Ok(None),
        }))
    }

    /// The actions (`-print`, `-delete`, `-exec`, ...).
    fn action_primary(&mut self, n: &str) -> Result<Option<Expr>, String> {
        Ok(Some(match n {
            "-prune" => Expr::Prune,
            "-quit" => Expr::Quit,
            "-print" => {
                self.has_action = true;
                Expr::Print("\n")
            }
            "-print0" => {
                self.has_action = true;
                Expr::Print("\0")
            }
            "-printf" => {
                self.has_action = true;
                Expr::Printf(self.arg(n)?)
            }
            "-delete" => {
                self.has_action = true;
                self.opts.depth = true;
                Expr::Delete
            }
            "-exec" | "-execdir" | "-ok" | "-okdir" => self.exec_primary(n)?,
            _ => return Ok(None),
        }))
    }

    /// `-exec CMD ;`, `-exec CMD {} +`, `-execdir`, and `-ok`/`-okdir` (which
    /// ask, and so are always false here).
    fn exec_primary(&mut self, n: &str) -> Result<Expr, String> {
        self.has_action = true;
        let mut argv = Vec::new();
        let mut plus = false;
        loop {
            let Some(a) = self.args.get(self.pos) else {
                return Err(format!("missing argument to \u{2018}{n}\u{2019}"));
            };
            self.pos += 1;
            if a == ";" {
                break;
            }
            if a == "+" && argv.last().is_some_and(|l: &String| l == "{}") {
                plus = true;
                break;
            }
            argv.push(a.clone());
        }
        if argv.is_empty() {
            return Err(format!("missing argument to \u{2018}{n}\u{2019}"));
        }
        if n.starts_with("-ok") {
            // No terminal to ask: every answer is "no".
            return Ok(Expr::Const(false));
        }
        let id = if plus {
            self.opts.nbatch += 1;
            self.opts.nbatch - 1
        } else {
            0
        };
        Ok(Expr::Exec {
            argv,
            plus,
            dir: n == "-execdir",
            id,
        })
    }
}

/// `-type` letters, comma-separated.
fn type_letters(t: &str) -> Result<Vec<char>, String> {
    let mut v = Vec::new();
    for part in t.split(',') {
        let mut cs = part.chars();
        match (cs.next(), cs.next()) {
            (Some(c @ ('f' | 'd' | 'l' | 'p' | 's' | 'c' | 'b' | 'D')), None) => v.push(c),
            _ => {
                return Err(format!("Unknown argument to -type: {part}"));
            }
        }
    }
    Ok(v)
}

/// `-size [+-]N[cwkMGb]` (512-byte blocks by default).
fn size_test(a: &str) -> Result<Expr, String> {
    let (unit, body) = match a.chars().last() {
        Some('c') => (1, &a[..a.len() - 1]),
        Some('w') => (2, &a[..a.len() - 1]),
        Some('k') => (1024, &a[..a.len() - 1]),
        Some('M') => (1 << 20, &a[..a.len() - 1]),
        Some('G') => (1 << 30, &a[..a.len() - 1]),
        Some('b') => (512, &a[..a.len() - 1]),
        _ => (512, a),
    };
    let (cmp, rest) = split_sign(body);
    let v: i64 = rest
        .parse()
        .map_err(|_| format!("invalid -size type \u{2018}{a}\u{2019}"))?;
    Ok(Expr::Size(cmp, v, unit))
}

fn split_sign(s: &str) -> (Cmp, &str) {
    if let Some(r) = s.strip_prefix('+') {
        (Cmp::Gt, r)
    } else if let Some(r) = s.strip_prefix('-') {
        (Cmp::Lt, r)
    } else {
        (Cmp::Eq, s)
    }
}

/// Octal or symbolic (`u=rw,g+x`) mode, applied to 0 as find does.
fn parse_mode(s: &str) -> Option<u32> {
    if !s.is_empty() && s.chars().all(|c| c.is_digit(8)) {
        return u32::from_str_radix(s, 8).ok().filter(|m| *m <= 0o7777);
    }
    let mut mode = 0u32;
    for clause in s.split(',') {
        let who_end = clause.find(['+', '-', '='])?;
        let (who, rest) = clause.split_at(who_end);
        let mut mask = 0;
        for c in who.chars() {
            mask |= match c {
                'u' => 0o4700,
                'g' => 0o2070,
                'o' => 0o1007,
                'a' => 0o7777,
                _ => return None,
            };
        }
        if who.is_empty() {
            mask = 0o7777;
        }
        let op = rest.chars().next()?;
        let mut bits = 0;
        for c in rest[1..].chars() {
            bits |= match c {
                'r' => 0o444,
                'w' => 0o222,
                'x' => 0o111,
                's' => 0o6000,
                't' => 0o1000,
                _ => return None,
            };
        }
        let bits = bits & mask;
        match op {
            '+' => mode |= bits,
            '-' => mode &= !bits,
            _ => mode = (mode & !mask) | bits,
        }
    }
    Some(mode)
}

/// Translates an emacs-style regex (find's default) to Rust regex syntax:
/// `\(`, `\)`, `\|` are the operators; bare `( ) | { }` are literals.
fn emacs_to_ere(p: &str) -> String {
    let mut out = String::new();
    let mut it = p.chars();
    while let Some(c) = it.next() {
        match c {
            '\\' => match it.next() {
                Some('(') => out.push('('),
                Some(')') => out.push(')'),
                Some('|') => out.push('|'),
                Some(o) => {
                    out.push('\\');
                    out.push(o);
                }
                None => out.push_str("\\\\"),
            },
            '(' | ')' | '|' | '{' | '}' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}
