//! awk's builtin functions and the `getline` forms.

use std::io::Write;
use std::rc::Rc;

use super::ast::special::*;
use super::ast::*;
use super::interp::{Fatal, Interp, Res};
use super::io::{Reader, RecordSep};
use super::regex::{AwkRegex, slice};
use super::value::Value;

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
            "length" => {
                self.want(name, args, 0, 1)?;
                match args.first() {
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
                }
            }
            "substr" => {
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
                if end <= start || start.is_nan() || end.is_nan() {
                    Value::Str(String::new())
                } else {
                    let (a, b) = (start as usize - 1, end as usize - 1);
                    Value::Str(slice(&s, a, b).into_owned())
                }
            }
            "index" => {
                self.want(name, args, 2, 2)?;
                let s = self.arg_str(args, 0)?;
                let t = self.arg_str(args, 1)?;
                num(match s.find(&t) {
                    Some(i) => i as f64 + 1.0,
                    None => 0.0,
                })
            }
            "split" => {
                self.want(name, args, 2, 4)?;
                let s = self.arg_str(args, 0)?;
                let Some(Expr::Var(av)) = args.get(1) else {
                    return Err(Fatal("split: second argument is not an array".into()));
                };
                let mut parts = Vec::new();
                match args.get(2) {
                    None => {
                        let fs = self.special_str(FS);
                        let sep = super::fields::FieldSep::new(&fs).map_err(Fatal)?;
                        sep.split(&s, &mut parts, false);
                    }
                    Some(Expr::RegexLit(i, _)) => {
                        let re = self.regexes[*i].clone();
                        let sep = super::fields::FieldSep::Regex(re);
                        sep.split(&s, &mut parts, false);
                    }
                    Some(e) => {
                        let fs = self.eval_str(e)?;
                        let sep = super::fields::FieldSep::new(&fs).map_err(Fatal)?;
                        sep.split(&s, &mut parts, false);
                    }
                }
                let a = self.array(*av)?;
                let mut a = a.borrow_mut();
                a.clear();
                let n = parts.len();
                for (i, p) in parts.into_iter().enumerate() {
                    a.insert((i + 1).to_string(), Value::StrNum(p));
                }
                num(n as f64)
            }
            "sub" | "gsub" => {
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
                num(n as f64)
            }
            "gensub" => {
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
                Value::Str(gensub(&re, &s, &repl, which))
            }
            "match" => {
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
                                a.insert(
                                    i.to_string(),
                                    Value::StrNum(slice(&s, *x, *y).into_owned()),
                                );
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
                num(start)
            }
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
                super::printf::format(&fmt, &vals, &conv, &mut out).map_err(Fatal)?;
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
            "srand" => {
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
                num(prev)
            }
            "systime" => num(self.ctx.control.clock.now().secs as f64),
            "strftime" => {
                let fmt = if args.is_empty() {
                    "%a %b %e %H:%M:%S %Z %Y".to_string()
                } else {
                    self.arg_str(args, 0)?
                };
                let t = if args.len() > 1 {
                    self.arg_num(args, 1)? as i64
                } else {
                    self.ctx.control.clock.now().secs
                };
                Value::Str(strftime(&fmt, t))
            }
            "system" => {
                let cmd = self.arg_str(args, 0)?;
                self.flush_stdout()?;
                let argv = ["bash".to_string(), "-c".to_string(), cmd];
                let ctx = &mut *self.ctx;
                let mut empty: &[u8] = &[];
                let st = ctx
                    .exec
                    .exec(&argv, &[], ctx.cwd, &mut empty, ctx.stdout, ctx.stderr);
                num(st as f64)
            }
            "close" => {
                let n = self.arg_str(args, 0)?;
                let mut r = -1;
                if self.readers.remove(&n).is_some() {
                    r = 0;
                }
                if self.outputs.contains_key(&n) {
                    r = self.flush_output(&n, true);
                }
                num(r as f64)
            }
            "fflush" => {
                self.flush_stdout()?;
                if let Some(e) = args.first() {
                    let n = self.eval_str(e)?;
                    self.flush_output(&n, false);
                }
                let _ = self.ctx.stdout.flush();
                num(0.0)
            }
            _ => return Err(Fatal(format!("function `{name}' not defined"))),
        })
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
                    let data = if is_cmd {
                        self.flush_stdout()?;
                        let argv = ["bash".to_string(), "-c".to_string(), name.clone()];
                        let mut out = Vec::new();
                        let ctx = &mut *self.ctx;
                        let mut empty: &[u8] = &[];
                        ctx.exec
                            .exec(&argv, &[], ctx.cwd, &mut empty, &mut out, ctx.stderr);
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
                    self.readers.insert(name.clone(), Reader::bytes(data));
                }
                let rs = self.special_str(RS);
                let mut it = rs.chars();
                let sep = match (it.next(), it.next()) {
                    (None, _) => RecordSep::Paragraph,
                    (Some(c), None) if (c as u32) < 256 => RecordSep::Byte(c as u32 as u8),
                    _ => RecordSep::Regex(AwkRegex::new(&rs).map_err(Fatal)?),
                };
                let reader = self.readers.get_mut(&name).expect("inserted");
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

/// A small strftime in UTC.
fn strftime(fmt: &str, t: i64) -> String {
    let days = t.div_euclid(86400);
    let secs = t.rem_euclid(86400);
    let (h, mi, se) = (secs / 3600, secs % 3600 / 60, secs % 60);
    // Civil from days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + if m <= 2 { 1 } else { 0 };
    let wd = (days + 4).rem_euclid(7);
    const WD: [&str; 7] = [
        "Sunday",
        "Monday",
        "Tuesday",
        "Wednesday",
        "Thursday",
        "Friday",
        "Saturday",
    ];
    const MN: [&str; 12] = [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ];
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let cum = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];
    let yday = cum[(m - 1) as usize] + d + if leap && m > 2 { 1 } else { 0 };
    let mut out = String::new();
    let mut it = fmt.chars();
    while let Some(c) = it.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('Y') => out.push_str(&y.to_string()),
            Some('y') => out.push_str(&format!("{:02}", y % 100)),
            Some('m') => out.push_str(&format!("{m:02}")),
            Some('d') => out.push_str(&format!("{d:02}")),
            Some('e') => out.push_str(&format!("{d:2}")),
            Some('H') => out.push_str(&format!("{h:02}")),
            Some('I') => out.push_str(&format!("{:02}", if h % 12 == 0 { 12 } else { h % 12 })),
            Some('M') => out.push_str(&format!("{mi:02}")),
            Some('S') => out.push_str(&format!("{se:02}")),
            Some('p') => out.push_str(if h < 12 { "AM" } else { "PM" }),
            Some('j') => out.push_str(&format!("{yday:03}")),
            Some('a') => out.push_str(&WD[wd as usize][..3]),
            Some('A') => out.push_str(WD[wd as usize]),
            Some('b') | Some('h') => out.push_str(&MN[(m - 1) as usize][..3]),
            Some('B') => out.push_str(MN[(m - 1) as usize]),
            Some('u') => out.push_str(&(if wd == 0 { 7 } else { wd }).to_string()),
            Some('w') => out.push_str(&wd.to_string()),
            Some('Z') => out.push_str("UTC"),
            Some('z') => out.push_str("+0000"),
            Some('s') => out.push_str(&t.to_string()),
            Some('F') => out.push_str(&format!("{y}-{m:02}-{d:02}")),
            Some('T') => out.push_str(&format!("{h:02}:{mi:02}:{se:02}")),
            Some('D') => out.push_str(&format!("{m:02}/{d:02}/{:02}", y % 100)),
            Some('R') => out.push_str(&format!("{h:02}:{mi:02}")),
            Some('c') => out.push_str(&format!(
                "{} {} {d:2} {h:02}:{mi:02}:{se:02} {y}",
                &WD[wd as usize][..3],
                &MN[(m - 1) as usize][..3]
            )),
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('%') => out.push('%'),
            Some(o) => {
                out.push('%');
                out.push(o);
            }
            None => out.push('%'),
        }
    }
    out
}

#[allow(dead_code)]
fn _w(w: &mut dyn Write) {
    let _ = w.flush();
}
