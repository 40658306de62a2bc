//! awk's builtin functions and the `getline` forms.

use std::rc::Rc;

use super::ast::special::*;
use super::ast::*;
use super::fields::{FieldSep, split_with_seps};
use super::interp::{Fatal, Interp, Res};
use super::io::{Reader, RecordSep};
use super::regex::{AwkRegex, slice};
use super::value::Value;
use crate::commands::{ExecMode, ExecRequest};

fn num(n: f64) -> Value {
    Value::Num(n)
}

impl Interp<'_, '_> {
    fn arg_str(&mut self, args: &[Expr], i: usize) -> Res<String> {
        match args.get(i) {
            Some(e) => self.eval_str(e),
            None => Ok(String::new()),
        }
    }

    fn arg_num(&mut self, args: &[Expr], i: usize) -> Res<f64> {
        match args.get(i) {
            Some(e) => self.eval_num(e),
            None => Ok(0.0),
        }
    }

    fn want(&self, name: &str, args: &[Expr], lo: usize, hi: usize) -> Res<()> {
        if args.len() < lo || args.len() > hi {
            return Err(Fatal(format!(
                "{name}: called with {} arguments",
                args.len()
            )));
        }
        Ok(())
    }

    fn rand_next(&mut self) -> f64 {
        // xorshift64*: deterministic for a given seed.
        let mut x = self.rand_state;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.rand_state = x;
        (x.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Calls builtin `name`.
    pub(super) fn builtin(&mut self, name: &str, args: &[Expr]) -> Res<Value> {
        Ok(match name {
            "length" => self.builtin_length(args)?,
            "substr" => self.builtin_substr(args)?,
            "index" => {
                self.want(name, args, 2, 2)?;
                let mut s = self.arg_str(args, 0)?;
                let mut t = self.arg_str(args, 1)?;
                if self.ignorecase {
                    s.make_ascii_lowercase();
                    t.make_ascii_lowercase();
                }
                num(match s.find(&t) {
                    Some(i) => i as f64 + 1.0,
                    None => 0.0,
                })
            }
            "split" => self.builtin_split(args)?,
            "sub" | "gsub" => self.builtin_sub(name, args)?,
            "gensub" => self.builtin_gensub(args)?,
            "match" => self.builtin_match(args)?,
            "sprintf" => {
                if args.is_empty() {
                    return Err(Fatal("sprintf: no arguments".into()));
                }
                let fmt = self.eval_str(&args[0])?;
                let mut vals = Vec::new();
                for a in &args[1..] {
                    vals.push(self.eval(a)?);
                }
                let mut out = String::new();
                let conv = self.special_str(CONVFMT);
                super::printf::format(&fmt, &vals, &conv, self.utf8, &mut out).map_err(Fatal)?;
                Value::Str(out)
            }
            "tolower" => {
                self.want(name, args, 1, 1)?;
                Value::Str(self.arg_str(args, 0)?.to_ascii_lowercase())
            }
            "toupper" => {
                self.want(name, args, 1, 1)?;
                Value::Str(self.arg_str(args, 0)?.to_ascii_uppercase())
            }
            "sin" | "cos" | "exp" | "log" | "sqrt" | "int" => {
                self.want(name, args, 1, 1)?;
                let x = self.arg_num(args, 0)?;
                num(match name {
                    "sin" => x.sin(),
                    "cos" => x.cos(),
                    "exp" => x.exp(),
                    "log" => x.ln(),
                    "sqrt" => x.sqrt(),
                    _ => x.trunc(),
                })
            }
            "atan2" => {
                self.want(name, args, 2, 2)?;
                let y = self.arg_num(args, 0)?;
                let x = self.arg_num(args, 1)?;
                num(y.atan2(x))
            }
            "rand" => num(self.rand_next()),
            "srand" => self.builtin_srand(args)?,
            "systime" => num(self.ctx.control.clock.now().secs as f64),
            "strftime" => self.builtin_strftime(args)?,
            "mktime" => {
                self.want(name, args, 1, 2)?;
                let spec = self.arg_str(args, 0)?;
                let utc = match args.get(1) {
                    Some(e) => self.eval(e)?.truthy(),
                    None => false,
                };
                let zone = if utc {
                    &crate::time::Zone::utc()
                } else {
                    self.local_zone()
                };
                num(super::time::mktime(&spec, zone))
            }
            "asort" | "asorti" => return self.asort(name == "asorti", args),
            "typeof" => {
                self.want(name, args, 1, 1)?;
                let t = match &args[0] {
                    Expr::Var(v) if self.is_array(*v) => "array",
                    e => type_name(&self.eval(e)?),
                };
                Value::Str(t.to_string())
            }
            "strtonum" => {
                self.want(name, args, 1, 1)?;
                let v = self.eval(&args[0])?;
                num(match v {
                    Value::Num(n) => n,
                    other => strtonum(&other.str_with("%.6g")),
                })
            }
            "and" | "or" | "xor" => self.builtin_bitwise(name, args)?,
            "lshift" | "rshift" => {
                self.want(name, args, 2, 2)?;
                let x = self.bit_arg(name, args, 0)?;
                let n = self.bit_arg(name, args, 1)?.min(63) as u32;
                num(if name == "lshift" { x << n } else { x >> n } as f64)
            }
            "compl" => {
                self.want(name, args, 1, 1)?;
                // gawk works on 53-bit integers.
                let x = self.bit_arg(name, args, 0)?;
                num((!x & ((1u64 << 53) - 1)) as f64)
            }
            "patsplit" => return self.patsplit(args),
            "system" => self.builtin_system(args)?,
            "close" => self.builtin_close(args)?,
            "fflush" => self.builtin_fflush(args)?,
            _ => return Err(Fatal(format!("function `{name}' not defined"))),
        })
    }

    /// `length([x])`: of the record, a string, or an array.
    fn builtin_length(&mut self, args: &[Expr]) -> Res<Value> {
        let name = "length";
        self.want(name, args, 0, 1)?;
        Ok(match args.first() {
            None => {
                let n = self.record.len();
                num(n as f64)
            }
            Some(Expr::Var(v)) => {
                let is_arr = match v {
                    Var::Global(i) => {
                        matches!(self.globals[*i], super::interp::Cell::Arr(_))
                    }
                    Var::Local(i) => matches!(
                        self.frames.last().map(|f| &f[*i]),
                        Some(super::interp::Cell::Arr(_))
                    ),
                };
                if is_arr {
                    let a = self.array(*v)?;
                    let n = a.borrow().len();
                    num(n as f64)
                } else {
                    let s = self.eval_str(&args[0])?;
                    num(s.len() as f64)
                }
            }
            Some(e) => {
                let s = self.eval_str(e)?;
                num(s.len() as f64)
            }
        })
    }

    /// `substr(s, m[, n])`, with gawk's truncation of `m` and `n`.
    fn builtin_substr(&mut self, args: &[Expr]) -> Res<Value> {
        let name = "substr";
        self.want(name, args, 2, 3)?;
        let s = self.arg_str(args, 0)?;
        let len = s.len() as f64;
        // gawk truncates both and starts a low start at 1.
        let m = self.arg_num(args, 1)?.trunc();
        let n = if args.len() > 2 {
            self.arg_num(args, 2)?.trunc()
        } else {
            f64::INFINITY
        };
        let start = m.max(1.0);
        let end = (start + n).min(len + 1.0);
        Ok(if end <= start || start.is_nan() || end.is_nan() {
            Value::Str(String::new())
        } else {
            let (a, b) = (start as usize - 1, end as usize - 1);
            Value::Str(slice(&s, a, b).into_owned())
        })
    }

    /// `split(s, a[, fs[, seps]])`: fills `a` (and gawk's `seps`); the count.
    fn builtin_split(&mut self, args: &[Expr]) -> Res<Value> {
        let name = "split";
        self.want(name, args, 2, 4)?;
        let s = self.arg_str(args, 0)?;
        let Some(Expr::Var(av)) = args.get(1) else {
            return Err(Fatal("split: second argument is not an array".into()));
        };
        let sep = match args.get(2) {
            None => {
                let fs = self.special_str(FS);
                FieldSep::with_case(&fs, self.ignorecase).map_err(Fatal)?
            }
            Some(Expr::RegexLit(i, _)) => FieldSep::Regex(self.lit_regex(*i)),
            Some(e) => {
                let fs = self.eval_str(e)?;
                FieldSep::with_case(&fs, self.ignorecase).map_err(Fatal)?
            }
        };
        let (parts, seps) = match args.get(3) {
            None => {
                let mut parts = Vec::new();
                sep.split(&s, &mut parts, false);
                (parts, None)
            }
            Some(Expr::Var(sv)) => {
                let (p, sp) = split_with_seps(&sep, &s);
                (p, Some((*sv, sp)))
            }
            Some(_) => {
                return Err(Fatal("split: fourth argument is not an array".into()));
            }
        };
        self.fill_array(*av, parts)?;
        if let Some((sv, sp)) = seps {
            let a = self.array(sv)?;
            let mut a = a.borrow_mut();
            a.clear();
            for (i, t) in sp {
                a.insert(i.to_string(), Value::StrNum(t));
            }
        }
        let n = self.array(*av)?.borrow().len();
        Ok(num(n as f64))
    }

    /// `sub`/`gsub(re, repl[, target])`: replaces in place; the count.
    fn builtin_sub(&mut self, name: &str, args: &[Expr]) -> Res<Value> {
        self.want(name, args, 2, 3)?;
        let re = self.regex_of(&args[0])?;
        let repl = self.arg_str(args, 1)?;
        let target = match args.get(2) {
            None => LValue::Field(Box::new(Expr::Num(0.0))),
            Some(e) => match to_lv(e) {
                Some(lv) => lv,
                None => {
                    // Not assignable: gawk warns and works on a copy.
                    let s = self.eval_str(e)?;
                    let (_, n) = substitute(&re, &s, &repl, name == "gsub");
                    return Ok(num(n as f64));
                }
            },
        };
        let s = self.get_lv(&target)?.str_with("%.6g");
        let s = match self.get_lv(&target)? {
            Value::Num(_) => self.eval_str(&lv_expr(&target))?,
            _ => s,
        };
        let (out, n) = substitute(&re, &s, &repl, name == "gsub");
        if n > 0 {
            self.set_lv(&target, Value::Str(out))?;
        }
        Ok(num(n as f64))
    }

    /// gawk's `gensub(re, repl, how[, target])`: the result, target untouched.
    fn builtin_gensub(&mut self, args: &[Expr]) -> Res<Value> {
        let name = "gensub";
        self.want(name, args, 3, 4)?;
        let re = self.regex_of(&args[0])?;
        let repl = self.arg_str(args, 1)?;
        let how = self.eval(&args[2])?;
        let s = match args.get(3) {
            Some(e) => self.eval_str(e)?,
            None => self.record.clone(),
        };
        let hs = how.str_with("%.6g");
        let which = if hs.starts_with('g') || hs.starts_with('G') {
            0
        } else {
            (how.num() as i64).max(1) as usize
        };
        Ok(Value::Str(gensub(&re, &s, &repl, which)))
    }

    /// `match(s, re[, a])`: sets RSTART and RLENGTH (and gawk's `a`).
    fn builtin_match(&mut self, args: &[Expr]) -> Res<Value> {
        let name = "match";
        self.want(name, args, 2, 3)?;
        let s = self.arg_str(args, 0)?;
        let re = self.regex_of(&args[1])?;
        let caps = re.captures_at(&s, 0);
        let (start, len) = match &caps {
            Some(c) => match c.first().copied().flatten() {
                Some((a, b)) => (a as f64 + 1.0, (b - a) as f64),
                None => (0.0, -1.0),
            },
            None => (0.0, -1.0),
        };
        if let Some(Expr::Var(av)) = args.get(2) {
            let a = self.array(*av)?;
            let mut a = a.borrow_mut();
            a.clear();
            if let Some(c) = &caps {
                for (i, g) in c.iter().enumerate() {
                    if let Some((x, y)) = g {
                        a.insert(i.to_string(), Value::StrNum(slice(&s, *x, *y).into_owned()));
                        let st = *x + 1;
                        let ln = *y - *x;
                        a.insert(format!("{i}\x1cstart"), num(st as f64));
                        a.insert(format!("{i}\x1clength"), num(ln as f64));
                    }
                }
            }
        }
        self.globals[RSTART] = super::interp::Cell::Val(num(start));
        self.globals[RLENGTH] = super::interp::Cell::Val(num(len));
        Ok(num(start))
    }

    /// `srand([seed])`: the previous seed.
    fn builtin_srand(&mut self, args: &[Expr]) -> Res<Value> {
        let prev = self.prev_seed;
        let seed = if args.is_empty() {
            self.ctx.control.clock.now().secs as f64
        } else {
            self.arg_num(args, 0)?
        };
        self.prev_seed = seed;
        self.rand_state = (seed as i64 as u64) ^ 0x853c_49e6_748f_ea9b;
        if self.rand_state == 0 {
            self.rand_state = 1;
        }
        Ok(num(prev))
    }

    /// gawk's `strftime([fmt[, t[, utc]]])`.
    fn builtin_strftime(&mut self, args: &[Expr]) -> Res<Value> {
        let name = "strftime";
        self.want(name, args, 0, 3)?;
        let fmt = if args.is_empty() {
            match &self.globals[PROCINFO] {
                super::interp::Cell::Arr(p) => p
                    .borrow()
                    .get("strftime")
                    .map(|v| v.str_with("%.6g"))
                    .unwrap_or_default(),
                _ => String::new(),
            }
        } else {
            self.arg_str(args, 0)?
        };
        let t = if args.len() > 1 {
            self.arg_num(args, 1)? as i64
        } else {
            self.ctx.control.clock.now().secs
        };
        let utc = match args.get(2) {
            Some(e) => self.eval(e)?.truthy(),
            None => false,
        };
        Ok(Value::Str(super::time::strftime(
            &fmt,
            t,
            utc,
            self.local_zone(),
        )))
    }

    /// The zone `TZ` in gawk's environment names, read once.
    fn local_zone(&self) -> &crate::time::Zone {
        self.zone
            .get_or_init(|| crate::time::Zone::from_env(self.ctx.env))
    }

    /// gawk's `and`, `or`, `xor` over two or more arguments.
    fn builtin_bitwise(&mut self, name: &str, args: &[Expr]) -> Res<Value> {
        if args.len() < 2 {
            return Err(Fatal(format!(
                "{name}: called with less than two arguments"
            )));
        }
        let mut acc = self.bit_arg(name, args, 0)?;
        for i in 1..args.len() {
            let x = self.bit_arg(name, args, i)?;
            acc = match name {
                "and" => acc & x,
                "or" => acc | x,
                _ => acc ^ x,
            };
        }
        Ok(num(acc as f64))
    }

    /// `system(cmd)`: runs `bash -c cmd` after flushing; its status.
    fn builtin_system(&mut self, args: &[Expr]) -> Res<Value> {
        let cmd = self.arg_str(args, 0)?;
        // gawk flushes stdout and open files first, so the command's
        // output lands after what was printed before.
        self.flush_all()?;
        let argv = ["bash".to_string(), "-c".to_string(), cmd];
        let ctx = &mut *self.ctx;
        let st = ctx.exec.exec(ExecRequest {
            argv: &argv,
            env: &[],
            cwd: ctx.cwd,
            stdin: ctx.stdin,
            stdout: ctx.stdout,
            stderr: ctx.stderr,
            mode: ExecMode::Inherit,
        });
        Ok(num(st as f64))
    }

    /// `close(name)`: closes a reader or an output; its status, or -1.
    fn builtin_close(&mut self, args: &[Expr]) -> Res<Value> {
        let name = "close";
        self.want(name, args, 1, 2)?;
        let n = self.arg_str(args, 0)?;
        self.flush_stdout()?;
        let mut r = -1;
        if let Some((_, status)) = self.readers.remove(&n) {
            r = status;
        }
        if self.outputs.contains_key(&n) {
            r = self.close_output(&n);
        }
        Ok(num(r as f64))
    }

    /// `fflush([name])`: all outputs, or one (a warning if not open).
    fn builtin_fflush(&mut self, args: &[Expr]) -> Res<Value> {
        let name = "fflush";
        self.want(name, args, 0, 1)?;
        let which = match args.first() {
            Some(e) => self.eval_str(e)?,
            None => String::new(),
        };
        Ok(if which.is_empty() {
            self.flush_all()?;
            num(0.0)
        } else {
            let r = self.flush_one(&which)?;
            if r < 0 {
                let _ = writeln!(
                    self.ctx.stderr,
                    "awk: warning: fflush: `{which}' is not an open file, pipe or co-process"
                );
            }
            num(r as f64)
        })
    }

    /// An argument of the bit functions: a non-negative integer.
    fn bit_arg(&mut self, name: &str, args: &[Expr], i: usize) -> Res<u64> {
        let x = self.arg_num(args, i)?;
        if x < 0.0 {
            return Err(Fatal(format!("{name}: negative values are not allowed")));
        }
        Ok(x as u64)
    }

    /// Replaces array `v`'s contents with `parts` at 1..=n.
    fn fill_array(&mut self, v: Var, parts: Vec<String>) -> Res<()> {
        let a = self.array(v)?;
        let mut a = a.borrow_mut();
        a.clear();
        for (i, p) in parts.into_iter().enumerate() {
            a.insert((i + 1).to_string(), Value::StrNum(p));
        }
        Ok(())
    }

    /// Whether variable `v` holds an array.
    fn is_array(&self, v: Var) -> bool {
        let cell = match v {
            Var::Global(i) => self.globals.get(i),
            Var::Local(i) => self.frames.last().and_then(|f| f.get(i)),
        };
        matches!(cell, Some(super::interp::Cell::Arr(_)))
    }

    /// gawk's `patsplit(s, parts [, regex [, seps]])`: the fields are the
    /// regex's matches (default FPAT), the separators the text between.
    fn patsplit(&mut self, args: &[Expr]) -> Res<Value> {
        self.want("patsplit", args, 2, 4)?;
        let s = self.arg_str(args, 0)?;
        let Some(Expr::Var(av)) = args.get(1) else {
            return Err(Fatal("patsplit: second argument is not an array".into()));
        };
        let re = match args.get(2) {
            Some(e) => self.regex_of(e)?,
            None => {
                let fpat = self.special_str(FPAT);
                self.dyn_regex(&fpat)?
            }
        };
        let (parts, seps) = split_with_seps(&FieldSep::Pattern(re), &s);
        let n = parts.len();
        self.fill_array(*av, parts)?;
        if let Some(e) = args.get(3) {
            let Expr::Var(sv) = e else {
                return Err(Fatal("patsplit: fourth argument is not an array".into()));
            };
            let a = self.array(*sv)?;
            let mut a = a.borrow_mut();
            a.clear();
            for (i, t) in seps {
                a.insert(i.to_string(), Value::StrNum(t));
            }
        }
        Ok(num(n as f64))
    }

    /// Runs a `getline` form: 1 read, 0 end of input, -1 error.
    pub(super) fn getline(&mut self, src: &GetlineSrc, lv: Option<&LValue>) -> Res<Value> {
        match src {
            GetlineSrc::Main => {
                let got = self.next_main(lv)?;
                Ok(num(if got { 1.0 } else { 0.0 }))
            }
            GetlineSrc::File(e) | GetlineSrc::Cmd(e) => {
                let is_cmd = matches!(src, GetlineSrc::Cmd(_));
                let name = self.eval_str(e)?;
                if !self.readers.contains_key(&name) {
                    // The command runs to its end now; `close()` returns its
                    // status. It reads awk's own stdin, as in gawk.
                    let mut status = 0;
                    let data = if is_cmd {
                        let argv = ["bash".to_string(), "-c".to_string(), name.clone()];
                        let mut out = Vec::new();
                        let ctx = &mut *self.ctx;
                        status = ctx.exec.exec(ExecRequest {
                            argv: &argv,
                            env: &[],
                            cwd: ctx.cwd,
                            stdin: ctx.stdin,
                            stdout: &mut out,
                            stderr: ctx.stderr,
                            mode: ExecMode::Inherit,
                        });
                        out
                    } else if name == "-" || name == "/dev/stdin" {
                        let mut v = Vec::new();
                        let _ = self.ctx.stdin.read_to_end(&mut v);
                        v
                    } else {
                        let path = self.ctx.path(&name);
                        match self.ctx.fs.read_shared(&path) {
                            Ok(d) => d.to_vec(),
                            Err(_) => return Ok(num(-1.0)),
                        }
                    };
                    self.readers
                        .insert(name.clone(), (Reader::bytes(data), status));
                }
                let rs = self.special_str(RS);
                let mut it = rs.chars();
                let sep = match (it.next(), it.next()) {
                    (None, _) => RecordSep::Paragraph,
                    (Some(c), None) if (c as u32) < 256 => RecordSep::Byte(c as u32 as u8),
                    _ => {
                        RecordSep::Regex(AwkRegex::with_case(&rs, self.ignorecase).map_err(Fatal)?)
                    }
                };
                let (reader, _) = self.readers.get_mut(&name).expect("inserted");
                let mut empty: &[u8] = &[];
                match reader.next(&sep, &mut empty) {
                    Some((rec, _)) => {
                        match lv {
                            None => {
                                self.set_record(rec);
                            }
                            Some(lv) => self.set_lv(lv, Value::StrNum(rec))?,
                        }
                        Ok(num(1.0))
                    }
                    None => Ok(num(0.0)),
                }
            }
        }
    }
}

fn to_lv(e: &Expr) -> Option<LValue> {
    match e {
        Expr::Var(v) => Some(LValue::Var(*v)),
        Expr::Index(v, s) => Some(LValue::Index(*v, s.clone())),
        Expr::Field(f) => Some(LValue::Field(f.clone())),
        Expr::Group(g) => to_lv(g),
        _ => None,
    }
}

fn lv_expr(lv: &LValue) -> Expr {
    match lv {
        LValue::Var(v) => Expr::Var(*v),
        LValue::Index(v, s) => Expr::Index(*v, s.clone()),
        LValue::Field(f) => Expr::Field(f.clone()),
    }
}

/// Expands a sub/gsub replacement: `&` is the match, `\&` a literal `&`,
/// `\\` a backslash.
fn expand_repl(repl: &str, m: &str, out: &mut String) {
    let b: Vec<char> = repl.chars().collect();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            '\\' if i + 1 < b.len() && (b[i + 1] == '&' || b[i + 1] == '\\') => {
                out.push(b[i + 1]);
                i += 2;
            }
            '&' => {
                out.push_str(m);
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
}

/// Runs sub (first match) or gsub (all) over `s`.
pub fn substitute(re: &Rc<AwkRegex>, s: &str, repl: &str, global: bool) -> (String, usize) {
    let mut out = String::new();
    let mut pos = 0;
    let mut n = 0;
    let mut last_end: Option<usize> = None;
    let mut search = 0;
    while search <= s.len() {
        let Some((a, b)) = re.find_at(s, search) else {
            break;
        };
        if a == b && last_end == Some(a) {
            // An empty match right after a match: step over one character.
            let step = next_char_len(s, a);
            if a + step > s.len() || step == 0 {
                break;
            }
            search = a + step;
            continue;
        }
        out.push_str(&slice(s, pos, a));
        expand_repl(repl, &slice(s, a, b), &mut out);
        n += 1;
        if a == b {
            let step = next_char_len(s, a);
            out.push_str(&slice(s, a, a + step));
            pos = a + step;
            search = a + step;
            if step == 0 {
                break;
            }
        } else {
            pos = b;
            search = b;
        }
        last_end = Some(b);
        if !global {
            break;
        }
    }
    if pos < s.len() {
        out.push_str(&slice(s, pos, s.len()));
    }
    (out, n)
}

fn next_char_len(s: &str, i: usize) -> usize {
    s.get(i..)
        .and_then(|r| r.chars().next())
        .map(|c| c.len_utf8())
        .unwrap_or(if i < s.len() { 1 } else { 0 })
}

/// gawk's gensub: `\0`/`&` whole match, `\1`..`\9` groups; `which` 0 = all.
fn gensub(re: &AwkRegex, s: &str, repl: &str, which: usize) -> String {
    let mut out = String::new();
    let mut pos = 0;
    let mut search = 0;
    let mut count = 0;
    let rb: Vec<char> = repl.chars().collect();
    while search <= s.len() {
        let Some(caps) = re.captures_at(s, search) else {
            break;
        };
        let Some((a, b)) = caps[0] else { break };
        count += 1;
        if which == 0 || count == which {
            out.push_str(&slice(s, pos, a));
            let mut i = 0;
            while i < rb.len() {
                match rb[i] {
                    '\\' if i + 1 < rb.len() => {
                        let c = rb[i + 1];
                        if let Some(d) = c.to_digit(10) {
                            if let Some(Some((x, y))) = caps.get(d as usize) {
                                out.push_str(&slice(s, *x, *y));
                            }
                        } else {
                            out.push(c);
                        }
                        i += 2;
                    }
                    '&' => {
                        out.push_str(&slice(s, a, b));
                        i += 1;
                    }
                    c => {
                        out.push(c);
                        i += 1;
                    }
                }
            }
            pos = b;
        }
        if a == b {
            let step = next_char_len(s, a);
            if which == 0 || count == which {
                out.push_str(&slice(s, a, a + step));
                pos = a + step;
            }
            if step == 0 {
                break;
            }
            search = a + step;
        } else {
            search = b;
        }
        if which != 0 && count >= which {
            break;
        }
    }
    if pos < s.len() {
        out.push_str(&slice(s, pos, s.len()));
    }
    out
}

/// gawk's `typeof()` name of a scalar value.
fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Uninit => "untyped",
        Value::Num(_) => "number",
        Value::Str(_) => "string",
        Value::StrNum(s) if super::value::looks_numeric(s) => "strnum",
        Value::StrNum(_) => "string",
    }
}

/// gawk's `strtonum()`: `0x` hex and leading-0 octal, else decimal.
fn strtonum(s: &str) -> f64 {
    if let Some(hex) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        let d: String = hex.chars().take_while(|c| c.is_ascii_hexdigit()).collect();
        u64::from_str_radix(&d, 16).map_or(0.0, |x| x as f64)
    } else if s.starts_with('0') && s[1..].starts_with(|c: char| c.is_ascii_digit()) {
        let d: String = s.chars().take_while(|c| ('0'..='7').contains(c)).collect();
        u64::from_str_radix(&d, 8).map_or(0.0, |x| x as f64)
    } else {
        super::value::str_to_num(s)
    }
}
