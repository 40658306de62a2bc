//! `expr`: evaluate an expression given as separate arguments, GNU style.
//!
//! Precedence, loosest first: `|`, `&`, comparisons (`< <= = == != >= >`),
//! `+ -`, `* / %`, `:`, then the keywords `match substr index length`, `+
//! TOKEN` and parentheses. Integers are 128-bit (GNU's are unbounded; an
//! overflow is reported instead of wrapping). Exit status: 0 when the result
//! is neither empty nor zero, 1 when it is, 2 on a syntax or type error, 3
//! on any other error.

use std::cmp::Ordering;

use crate::commands::CommandCtx;
use crate::commands::text::posix_regex::{Flavor, Regex, RegexOptions, Syntax};

pub(crate) const USAGE: &str = "\
Usage: expr EXPRESSION
  or:  expr OPTION

      --help     display this help and exit

Print the value of EXPRESSION to standard output.  Operators, loosest first:
  ARG1 | ARG2, ARG1 & ARG2, ARG1 < <= = == != >= > ARG2, ARG1 + - ARG2,
  ARG1 * / % ARG2, STRING : REGEXP, match STRING REGEXP,
  substr STRING POS LENGTH, index STRING CHARS, length STRING, + TOKEN,
  ( EXPRESSION )

Exit status is 0 if EXPRESSION is neither null nor 0, 1 if EXPRESSION is null
or 0, 2 if EXPRESSION is syntactically invalid, and 3 if an error occurred.
";

/// A value: an integer or a string.
#[derive(Clone, Debug)]
enum Val {
    Int(i128),
    Str(String),
}

impl Val {
    fn text(&self) -> String {
        match self {
            Val::Int(i) => i.to_string(),
            Val::Str(s) => s.clone(),
        }
    }

    /// The integer this value stands for, if it looks like one (`-?[0-9]+`).
    fn int(&self) -> Option<Result<i128, ()>> {
        match self {
            Val::Int(i) => Some(Ok(*i)),
            Val::Str(s) => {
                let digits = s.strip_prefix('-').unwrap_or(s);
                if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                Some(s.parse::<i128>().map_err(|_| ()))
            }
        }
    }

    /// GNU's `null`: empty, or zero.
    fn null(&self) -> bool {
        match self {
            Val::Int(i) => *i == 0,
            Val::Str(s) => {
                let rest = s.strip_prefix('-').unwrap_or(s);
                s.is_empty() || (!rest.is_empty() && rest.bytes().all(|b| b == b'0'))
            }
        }
    }
}

/// An evaluation failure: the message and the exit status.
struct Fail(String, i32);

fn syntax(msg: String) -> Fail {
    Fail(format!("syntax error: {msg}"), 2)
}

struct Parser<'a> {
    toks: &'a [String],
    pos: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&str> {
        self.toks.get(self.pos).map(|s| s.as_str())
    }

    fn next_is(&mut self, op: &str) -> bool {
        if self.peek() == Some(op) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn missing(&self) -> Fail {
        if self.pos == 0 {
            Fail("missing operand".into(), 2)
        } else {
            syntax(format!(
                "missing argument after '{}'",
                self.toks[self.pos - 1]
            ))
        }
    }

    fn or(&mut self) -> Result<Val, Fail> {
        let mut l = self.and()?;
        while self.next_is("|") {
            let r = self.and()?;
            if l.null() {
                l = if r.null() { Val::Int(0) } else { r };
            }
        }
        Ok(l)
    }

    fn and(&mut self) -> Result<Val, Fail> {
        let mut l = self.cmp()?;
        while self.next_is("&") {
            let r = self.cmp()?;
            if l.null() || r.null() {
                l = Val::Int(0);
            }
        }
        Ok(l)
    }

    fn cmp(&mut self) -> Result<Val, Fail> {
        let mut l = self.add()?;
        loop {
            let op = match self.peek() {
                Some(o @ ("<" | "<=" | "=" | "==" | "!=" | ">=" | ">")) => o.to_string(),
                _ => return Ok(l),
            };
            self.pos += 1;
            let r = self.add()?;
            let ord = match (l.int(), r.int()) {
                (Some(Ok(a)), Some(Ok(b))) => a.cmp(&b),
                _ => l.text().as_bytes().cmp(r.text().as_bytes()),
            };
            let t = match op.as_str() {
                "<" => ord == Ordering::Less,
                "<=" => ord != Ordering::Greater,
                "=" | "==" => ord == Ordering::Equal,
                "!=" => ord != Ordering::Equal,
                ">=" => ord != Ordering::Less,
                _ => ord == Ordering::Greater,
            };
            l = Val::Int(t as i128);
        }
    }

    fn arith(l: &Val, r: &Val, op: &str) -> Result<Val, Fail> {
        let (a, b) = match (l.int(), r.int()) {
            (Some(a), Some(b)) => (a, b),
            _ => return Err(Fail("non-integer argument".into(), 2)),
        };
        let overflow = || Fail("integer overflow".into(), 3);
        let (a, b) = (a.map_err(|_| overflow())?, b.map_err(|_| overflow())?);
        if matches!(op, "/" | "%") && b == 0 {
            return Err(Fail("division by zero".into(), 2));
        }
        let v = match op {
            "+" => a.checked_add(b),
            "-" => a.checked_sub(b),
            "*" => a.checked_mul(b),
            "/" => a.checked_div(b),
            _ => a.checked_rem(b),
        };
        v.map(Val::Int).ok_or_else(overflow)
    }

    fn add(&mut self) -> Result<Val, Fail> {
        let mut l = self.mul()?;
        while let Some(op @ ("+" | "-")) = self.peek() {
            let op = op.to_string();
            self.pos += 1;
            let r = self.mul()?;
            l = Self::arith(&l, &r, &op)?;
        }
        Ok(l)
    }

    fn mul(&mut self) -> Result<Val, Fail> {
        let mut l = self.colon()?;
        while let Some(op @ ("*" | "/" | "%")) = self.peek() {
            let op = op.to_string();
            self.pos += 1;
            let r = self.colon()?;
            l = Self::arith(&l, &r, &op)?;
        }
        Ok(l)
    }

    fn colon(&mut self) -> Result<Val, Fail> {
        let mut l = self.unary()?;
        while self.next_is(":") {
            let r = self.unary()?;
            l = matches(&l.text(), &r.text())?;
        }
        Ok(l)
    }

    fn unary(&mut self) -> Result<Val, Fail> {
        let Some(t) = self.peek() else {
            return Err(self.missing());
        };
        match t {
            "+" => {
                self.pos += 1;
                match self.peek() {
                    Some(s) => {
                        let v = Val::Str(s.to_string());
                        self.pos += 1;
                        Ok(v)
                    }
                    None => Err(self.missing()),
                }
            }
            "length" => {
                self.pos += 1;
                let s = self.unary()?.text();
                Ok(Val::Int(s.chars().count() as i128))
            }
            "match" => {
                self.pos += 1;
                let s = self.unary()?.text();
                let re = self.unary()?.text();
                matches(&s, &re)
            }
            "index" => {
                self.pos += 1;
                let s = self.unary()?.text();
                let chars = self.unary()?.text();
                let pos = s
                    .chars()
                    .position(|c| chars.contains(c))
                    .map_or(0, |p| p + 1);
                Ok(Val::Int(pos as i128))
            }
            "substr" => {
                self.pos += 1;
                let s = self.unary()?.text();
                let p = self.unary()?;
                let n = self.unary()?;
                let num = |v: &Val| match v.int() {
                    Some(Ok(i)) => i,
                    _ => -1,
                };
                let (p, n) = (num(&p), num(&n));
                let len = s.chars().count() as i128;
                if p < 1 || n < 1 || p > len {
                    return Ok(Val::Str(String::new()));
                }
                let take = n.min(len - p + 1) as usize;
                Ok(Val::Str(
                    s.chars().skip(p as usize - 1).take(take).collect(),
                ))
            }
            _ => self.primary(),
        }
    }

    fn primary(&mut self) -> Result<Val, Fail> {
        let Some(t) = self.peek() else {
            return Err(self.missing());
        };
        if t == "(" {
            self.pos += 1;
            let v = self.or()?;
            return match self.peek() {
                Some(")") => {
                    self.pos += 1;
                    Ok(v)
                }
                Some(other) => Err(syntax(format!("expecting ')' instead of '{other}'"))),
                None => Err(syntax(format!(
                    "expecting ')' after '{}'",
                    self.toks[self.pos - 1]
                ))),
            };
        }
        if t == ")" {
            return Err(syntax("unexpected ')'".into()));
        }
        let v = Val::Str(t.to_string());
        self.pos += 1;
        Ok(v)
    }
}

/// `STRING : REGEX`: an anchored BRE match; the first group's text when the
/// expression has groups, else the number of characters matched.
fn matches(s: &str, re: &str) -> Result<Val, Fail> {
    let opts = RegexOptions {
        syntax: Syntax::Basic,
        flavor: Flavor::Sed,
        ..Default::default()
    };
    let r = Regex::new(re.as_bytes(), opts).map_err(|e| Fail(e, 2))?;
    let mut slots = r.capture_slots();
    let hit = r.captures_at(s.as_bytes(), 0, &mut slots)
        && slots
            .caps
            .first()
            .copied()
            .flatten()
            .is_some_and(|(a, _)| a == 0);
    if r.groups() > 0 {
        let g = if hit {
            slots
                .caps
                .get(1)
                .copied()
                .flatten()
                .map(|(a, b)| String::from_utf8_lossy(&s.as_bytes()[a..b]).into_owned())
                .unwrap_or_default()
        } else {
            String::new()
        };
        return Ok(Val::Str(g));
    }
    let n = if hit {
        let (_, e) = slots.caps[0].unwrap_or((0, 0));
        String::from_utf8_lossy(&s.as_bytes()[..e]).chars().count()
    } else {
        0
    };
    Ok(Val::Int(n as i128))
}

/// `expr`
pub fn expr(ctx: &mut CommandCtx<'_>) -> i32 {
    let mut toks = &ctx.args[1..];
    if toks.first().is_some_and(|t| t == "--") {
        toks = &toks[1..];
    }
    if toks.is_empty() {
        ctx.error("missing operand");
        let _ = writeln!(ctx.stderr, "Try 'expr --help' for more information.");
        return 2;
    }
    let mut p = Parser { toks, pos: 0 };
    let res = p.or().and_then(|v| match p.peek() {
        Some(t) => Err(syntax(format!("unexpected argument '{t}'"))),
        None => Ok(v),
    });
    match res {
        Ok(v) => {
            let _ = writeln!(ctx.stdout, "{}", v.text());
            if v.null() { 1 } else { 0 }
        }
        Err(Fail(msg, status)) => {
            ctx.error(msg);
            status
        }
    }
}
