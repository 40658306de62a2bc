//! The awk interpreter: walks the AST over records, holding variables,
//! arrays, fields, open files and pipes.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use indexmap::IndexMap;

use super::ast::special::*;
use super::ast::*;
use super::fields::FieldSep;
use super::io::{Reader, RecordSep};
use super::regex::AwkRegex;
use super::value::{Value, num_to_string};
use crate::commands::CommandCtx;

/// An awk array: insertion-ordered.
pub type Array = IndexMap<String, Value>;

/// A variable slot: a scalar or an array (shared by reference).
#[derive(Clone, Debug)]
pub enum Cell {
    /// A scalar (or not yet used).
    Val(Value),
    /// An array.
    Arr(Rc<RefCell<Array>>),
}

/// Non-local control flow.
pub enum Flow {
    /// Fall through.
    Normal,
    /// `break`
    Break,
    /// `continue`
    Continue,
    /// `next`
    Next,
    /// `nextfile`
    NextFile,
    /// `return`
    Return(Value),
    /// `exit`
    Exit,
}

/// A fatal runtime error (message without the `awk: ` prefix).
pub struct Fatal(pub String);

/// Result of evaluation.
pub type Res<T> = Result<T, Fatal>;

const MAX_CALL_DEPTH: usize = 10_000;
const STACK_BUDGET: usize = 1 << 20;

/// The interpreter state.
pub struct Interp<'a, 'c> {
    pub(super) ctx: &'a mut CommandCtx<'c>,
    pub(super) prog: Rc<Program>,
    pub(super) globals: Vec<Cell>,
    pub(super) frames: Vec<Vec<Cell>>,
    pub(super) regexes: Vec<Rc<AwkRegex>>,
    pub(super) dyn_regex: HashMap<String, Rc<AwkRegex>>,
    /// gawk's `IGNORECASE` is non-zero: regexes, `index()` and string
    /// comparisons ignore case.
    pub(super) ignorecase: bool,
    /// FPAT (not FS) splits records: it was assigned last.
    fpat_mode: bool,
    /// Case-insensitive versions of `regexes`, compiled on first use.
    regexes_icase: Vec<Option<Rc<AwkRegex>>>,
    dyn_regex_icase: HashMap<String, Rc<AwkRegex>>,
    funcs: HashMap<String, usize>,
    /// `$0`.
    pub(super) record: String,
    /// `$1..$NF` when split.
    pub(super) fields: Vec<String>,
    pub(super) split_done: bool,
    pub(super) fs_cache: Option<(Rc<FieldSep>, bool)>,
    /// The splitter in force when `$0` was last set (taken by the split).
    record_sep: Option<(Rc<FieldSep>, bool)>,
    pub(super) rs_cache: Option<Rc<RecordSep>>,
    pub(super) recs: u32,
    /// stdout buffer.
    pub(super) out: Vec<u8>,
    pub(super) outputs: IndexMap<String, super::output::Output>,
    /// Open `getline` sources, with a command's exit status for `close()`.
    pub(super) readers: HashMap<String, (Reader, i32)>,
    pub(super) main: Option<Reader>,
    pub(super) arg_index: usize,
    pub(super) main_done: bool,
    pub(super) used_file: bool,
    range_active: Vec<bool>,
    pub(super) exit_code: i32,
    pub(super) rand_state: u64,
    pub(super) prev_seed: f64,
    iter: u32,
    convfmt: String,
    in_end: bool,
    /// Address of a local in the entry point: the stack's start.
    pub(super) stack_base: usize,
    /// The local time zone (`TZ` in the environment gawk was started
    /// with), read at the first time function that needs it.
    pub(super) zone: std::cell::OnceCell<crate::time::Zone>,
    /// The locale's characters are UTF-8 (`LC_ALL`, `LC_CTYPE`, `LANG`):
    /// `printf %c` of a number above 255 prints that code point.
    pub(super) utf8: bool,
}

impl<'a, 'c> Interp<'a, 'c> {
    /// A new interpreter for `prog`.
    pub fn new(ctx: &'a mut CommandCtx<'c>, prog: Program) -> Interp<'a, 'c> {
        let mut globals = vec![Cell::Val(Value::Uninit); prog.globals.len()];
        let s = |x: &str| Cell::Val(Value::Str(x.to_string()));
        globals[FS] = s(" ");
        globals[OFS] = s(" ");
        globals[ORS] = s("\n");
        globals[RS] = s("\n");
        globals[SUBSEP] = s("\x1c");
        globals[CONVFMT] = s("%.6g");
        globals[OFMT] = s("%.6g");
        globals[NR] = Cell::Val(Value::Num(0.0));
        globals[FNR] = Cell::Val(Value::Num(0.0));
        globals[RSTART] = Cell::Val(Value::Num(0.0));
        globals[RLENGTH] = Cell::Val(Value::Num(-1.0));
        globals[FPAT] = s("[^[:space:]]+");
        let mut env = Array::new();
        for (k, v) in ctx.env {
            env.insert(k.clone(), Value::StrNum(v.clone()));
        }
        globals[ENVIRON] = Cell::Arr(Rc::new(RefCell::new(env)));
        let mut procinfo = Array::new();
        for (k, v) in [
            ("version", "5.2.1"),
            ("platform", "posix"),
            ("FS", "FS"),
            ("strftime", "%a %b %e %H:%M:%S %Z %Y"),
        ] {
            procinfo.insert(k.to_string(), Value::Str(v.to_string()));
        }
        globals[PROCINFO] = Cell::Arr(Rc::new(RefCell::new(procinfo)));
        let funcs = prog
            .funcs
            .iter()
            .enumerate()
            .map(|(i, f)| (f.name.clone(), i))
            .collect();
        let seed = ctx.control.seed.unwrap_or(0);
        let utf8 = utf8_locale(ctx.env);
        Interp {
            ctx,
            globals,
            frames: Vec::new(),
            regexes: Vec::new(),
            dyn_regex: HashMap::new(),
            ignorecase: false,
            fpat_mode: false,
            regexes_icase: Vec::new(),
            dyn_regex_icase: HashMap::new(),
            funcs,
            record: String::new(),
            fields: Vec::new(),
            split_done: true,
            fs_cache: None,
            record_sep: None,
            rs_cache: None,
            recs: 0,
            out: Vec::with_capacity(64 * 1024),
            outputs: IndexMap::new(),
            readers: HashMap::new(),
            main: None,
            arg_index: 1,
            main_done: false,
            used_file: false,
            range_active: vec![false; prog.ranges],
            exit_code: 0,
            rand_state: seed ^ 0x853c_49e6_748f_ea9b,
            prev_seed: 1.0,
            iter: 0,
            convfmt: "%.6g".into(),
            in_end: false,
            stack_base: 0,
            zone: std::cell::OnceCell::new(),
            utf8,
            prog: Rc::new(prog),
        }
    }

    /// Compiles the program's regex literals.
    pub fn compile_regexes(&mut self) -> Result<(), String> {
        for r in &self.prog.regexes {
            self.regexes.push(Rc::new(AwkRegex::new(r)?));
        }
        self.regexes_icase = vec![None; self.regexes.len()];
        Ok(())
    }

    /// Sets ARGV/ARGC.
    pub fn set_argv(&mut self, argv: &[String]) {
        let mut a = Array::new();
        for (i, v) in argv.iter().enumerate() {
            a.insert(i.to_string(), Value::StrNum(v.clone()));
        }
        self.globals[ARGV] = Cell::Arr(Rc::new(RefCell::new(a)));
        self.globals[ARGC] = Cell::Val(Value::Num(argv.len() as f64));
    }

    /// Assigns a global by name (`-v`, operands), as input text.
    pub fn assign_global(&mut self, name: &str, val: String) {
        if let Some(i) = self.prog.globals.iter().position(|g| g == name) {
            let _ = self.set_var(Var::Global(i), Value::StrNum(val));
        }
    }

    // ---- variables ----

    fn cell(&mut self, v: Var) -> &mut Cell {
        match v {
            Var::Global(i) => &mut self.globals[i],
            Var::Local(i) => {
                let f = self.frames.last_mut().expect("in a function");
                &mut f[i]
            }
        }
    }

    pub(super) fn get_var(&mut self, v: Var) -> Res<Value> {
        if v == Var::Global(NF) {
            self.ensure_split();
            return Ok(Value::Num(self.fields.len() as f64));
        }
        match self.cell(v) {
            Cell::Val(x) => Ok(x.clone()),
            Cell::Arr(_) => Err(Fatal("attempt to use array in a scalar context".into())),
        }
    }

    pub(super) fn set_var(&mut self, v: Var, val: Value) -> Res<()> {
        if let Var::Global(i) = v {
            match i {
                NF => {
                    self.ensure_split();
                    let n = val.num().max(0.0) as usize;
                    if n > 1_000_000 {
                        return Err(Fatal("NF set to an absurd value".into()));
                    }
                    self.fields.resize(n, String::new());
                    self.rebuild_record()?;
                    return Ok(());
                }
                CONVFMT => self.convfmt = val.str_with("%.6g"),
                FS | FPAT => {
                    // Whichever of FS and FPAT was assigned last splits.
                    self.fpat_mode = i == FPAT;
                    self.fs_cache = None;
                }
                IGNORECASE => {
                    self.ignorecase = val.truthy();
                    self.fs_cache = None;
                    self.rs_cache = None;
                }
                RS => {
                    self.fs_cache = None;
                    self.rs_cache = None;
                }
                _ => {}
            }
        }
        match self.cell(v) {
            c @ Cell::Val(_) => {
                *c = Cell::Val(val);
                Ok(())
            }
            Cell::Arr(_) => Err(Fatal("attempt to use array in a scalar context".into())),
        }
    }

    pub(super) fn array(&mut self, v: Var) -> Res<Rc<RefCell<Array>>> {
        let c = self.cell(v);
        match c {
            Cell::Arr(a) => Ok(a.clone()),
            Cell::Val(Value::Uninit) => {
                let a = Rc::new(RefCell::new(Array::new()));
                *c = Cell::Arr(a.clone());
                Ok(a)
            }
            Cell::Val(_) => Err(Fatal("attempt to use a scalar value as array".into())),
        }
    }

    pub(super) fn special_str(&self, i: usize) -> String {
        match &self.globals[i] {
            Cell::Val(v) => v.str_with(&self.convfmt),
            Cell::Arr(_) => String::new(),
        }
    }

    fn subscript(&mut self, subs: &[Expr]) -> Res<String> {
        if subs.len() == 1 {
            return self.eval_str(&subs[0]);
        }
        let sep = self.special_str(SUBSEP);
        let mut s = String::new();
        for (i, e) in subs.iter().enumerate() {
            if i > 0 {
                s.push_str(&sep);
            }
            s.push_str(&self.eval_str(e)?);
        }
        Ok(s)
    }

    // ---- fields ----

    /// Sets `$0`; its fields will be split by the FS (or FPAT) in force
    /// now: an assignment to FS later in the same action applies from the
    /// next record on, as in gawk.
    pub(super) fn set_record(&mut self, rec: String) {
        self.record = rec;
        self.split_done = false;
        self.record_sep = Some(self.splitter());
    }

    pub(super) fn ensure_split(&mut self) {
        if self.split_done {
            return;
        }
        self.split_done = true;
        let (sep, para) = match self.record_sep.take() {
            Some(s) => s,
            None => self.splitter(),
        };
        let mut f = std::mem::take(&mut self.fields);
        sep.split(&self.record, &mut f, para);
        self.fields = f;
    }

    /// The field splitter of the current FS/FPAT and RS (cached until one
    /// of them is assigned), and whether RS is paragraph mode.
    fn splitter(&mut self) -> (Rc<FieldSep>, bool) {
        match &self.fs_cache {
            Some((sep, para)) => (sep.clone(), *para),
            None => {
                let sep = if self.fpat_mode {
                    let fpat = self.special_str(FPAT);
                    match AwkRegex::with_case(&fpat, self.ignorecase) {
                        Ok(re) => Rc::new(FieldSep::Pattern(Rc::new(re))),
                        Err(_) => Rc::new(FieldSep::Blank),
                    }
                } else {
                    let fs = self.special_str(FS);
                    Rc::new(FieldSep::with_case(&fs, self.ignorecase).unwrap_or(FieldSep::Blank))
                };
                let para = self.special_str(RS).is_empty();
                self.fs_cache = Some((sep.clone(), para));
                (sep, para)
            }
        }
    }

    fn rebuild_record(&mut self) -> Res<()> {
        let ofs = self.special_str(OFS);
        self.record = self.fields.join(&ofs);
        Ok(())
    }

    pub(super) fn get_field(&mut self, i: usize) -> Value {
        if i == 0 {
            return Value::StrNum(self.record.clone());
        }
        self.ensure_split();
        // A field past NF is an empty input string, not an uninitialized
        // value: gawk compares it as a string (`$2 != 0` holds).
        Value::StrNum(self.fields.get(i - 1).cloned().unwrap_or_default())
    }

    fn field_index(&mut self, e: &Expr) -> Res<usize> {
        let n = self.eval_num(e)?;
        if n < 0.0 {
            return Err(Fatal(format!("attempt to access field {}", n as i64)));
        }
        if n > 10_000_000.0 {
            return Err(Fatal("field index too large".into()));
        }
        Ok(n as usize)
    }

    pub(super) fn set_field(&mut self, i: usize, s: String) -> Res<()> {
        if i == 0 {
            self.set_record(s);
            return Ok(());
        }
        self.ensure_split();
        if i > self.fields.len() {
            self.fields.resize(i, String::new());
        }
        self.fields[i - 1] = s;
        self.rebuild_record()
    }

    // ---- lvalues ----

    pub(super) fn get_lv(&mut self, lv: &LValue) -> Res<Value> {
        match lv {
            LValue::Var(v) => self.get_var(*v),
            LValue::Index(v, subs) => {
                let k = self.subscript(subs)?;
                let a = self.array(*v)?;
                let mut a = a.borrow_mut();
                Ok(a.entry(k).or_insert(Value::Uninit).clone())
            }
            LValue::Field(e) => {
                let i = self.field_index(e)?;
                Ok(self.get_field(i))
            }
        }
    }

    pub(super) fn set_lv(&mut self, lv: &LValue, val: Value) -> Res<()> {
        match lv {
            LValue::Var(v) => self.set_var(*v, val),
            LValue::Index(v, subs) => {
                let k = self.subscript(subs)?;
                let a = self.array(*v)?;
                a.borrow_mut().insert(k, val);
                Ok(())
            }
            LValue::Field(e) => {
                let i = self.field_index(e)?;
                let s = val.str_with(&self.convfmt);
                self.set_field(i, s)
            }
        }
    }

    // ---- regexes ----

    pub(super) fn dyn_regex(&mut self, src: &str) -> Res<Rc<AwkRegex>> {
        let icase = self.ignorecase;
        let cache = if icase {
            &mut self.dyn_regex_icase
        } else {
            &mut self.dyn_regex
        };
        if let Some(r) = cache.get(src) {
            return Ok(r.clone());
        }
        let r = Rc::new(
            AwkRegex::with_case(src, icase)
                .map_err(|e| Fatal(format!("regular expression /{src}/: {e}")))?,
        );
        if cache.len() > 500 {
            cache.clear();
        }
        cache.insert(src.to_string(), r.clone());
        Ok(r)
    }

    /// Regex literal `i`, honouring `IGNORECASE`.
    pub(super) fn lit_regex(&mut self, i: usize) -> Rc<AwkRegex> {
        if !self.ignorecase {
            return self.regexes[i].clone();
        }
        if let Some(r) = &self.regexes_icase[i] {
            return r.clone();
        }
        let r = Rc::new(
            AwkRegex::with_case(&self.prog.regexes[i], true)
                .expect("compiled case-sensitively already"),
        );
        self.regexes_icase[i] = Some(r.clone());
        r
    }

    /// The regex an expression denotes (a literal, or a string's value).
    pub(super) fn regex_of(&mut self, e: &Expr) -> Res<Rc<AwkRegex>> {
        match e {
            Expr::RegexLit(i, _) | Expr::Regex(i) => Ok(self.lit_regex(*i)),
            other => {
                let s = self.eval_str(other)?;
                self.dyn_regex(&s)
            }
        }
    }

    // ---- evaluation ----

    pub(super) fn tick(&mut self) -> Res<()> {
        self.iter = self.iter.wrapping_add(1);
        // The memory budget and cancellation every time (two atomic loads:
        // one iteration of `s = s s` can double gigabytes); the clock less often.
        if let Err(k) = self.ctx.control.check_fast() {
            return Err(Fatal(format!("{k} exceeded")));
        }
        if self.iter.is_multiple_of(1024)
            && let Err(k) = self.ctx.control.check()
        {
            return Err(Fatal(format!("{k} exceeded")));
        }
        Ok(())
    }

    pub(super) fn eval_str(&mut self, e: &Expr) -> Res<String> {
        match e {
            Expr::Str(s) => Ok(s.clone()),
            _ => {
                let v = self.eval(e)?;
                Ok(v.str_with(&self.convfmt))
            }
        }
    }

    pub(super) fn eval_num(&mut self, e: &Expr) -> Res<f64> {
        match e {
            Expr::Num(n) => Ok(*n),
            Expr::Field(i) => {
                let i = self.field_index(i)?;
                if i == 0 {
                    return Ok(super::value::str_to_num(&self.record));
                }
                self.ensure_split();
                Ok(self
                    .fields
                    .get(i - 1)
                    .map(|s| super::value::str_to_num(s))
                    .unwrap_or(0.0))
            }
            Expr::Var(Var::Global(g)) if *g != NF => match &self.globals[*g] {
                Cell::Val(v) => Ok(v.num()),
                Cell::Arr(_) => Err(Fatal("attempt to use array in a scalar context".into())),
            },
            _ => Ok(self.eval(e)?.num()),
        }
    }

    pub(super) fn eval_bool(&mut self, e: &Expr) -> Res<bool> {
        match e {
            Expr::Regex(i) => {
                let re = self.lit_regex(*i);
                Ok(re.is_match(&self.record))
            }
            _ => Ok(self.eval(e)?.truthy()),
        }
    }

    fn compare(&mut self, op: CmpOp, a: &Value, b: &Value) -> bool {
        use std::cmp::Ordering;
        let ord = if a.is_numeric() && b.is_numeric() {
            let (x, y) = (a.num(), b.num());
            match x.partial_cmp(&y) {
                Some(o) => o,
                None => return matches!(op, CmpOp::Ne),
            }
        } else {
            let (x, y) = (a.str_with(&self.convfmt), b.str_with(&self.convfmt));
            if self.ignorecase {
                x.to_ascii_lowercase().cmp(&y.to_ascii_lowercase())
            } else {
                x.as_bytes().cmp(y.as_bytes())
            }
        };
        match op {
            CmpOp::Lt => ord == Ordering::Less,
            CmpOp::Le => ord != Ordering::Greater,
            CmpOp::Eq => ord == Ordering::Equal,
            CmpOp::Ne => ord != Ordering::Equal,
            CmpOp::Gt => ord == Ordering::Greater,
            CmpOp::Ge => ord != Ordering::Less,
        }
    }

    fn arith(op: BinOp, x: f64, y: f64) -> Res<f64> {
        Ok(match op {
            BinOp::Add => x + y,
            BinOp::Sub => x - y,
            BinOp::Mul => x * y,
            BinOp::Div => {
                if y == 0.0 {
                    return Err(Fatal("division by zero".into()));
                }
                x / y
            }
            BinOp::Mod => {
                if y == 0.0 {
                    return Err(Fatal("division by zero in %".into()));
                }
                x % y
            }
            BinOp::Pow => x.powf(y),
        })
    }

    /// Evaluates an expression.
    pub(super) fn eval(&mut self, e: &Expr) -> Res<Value> {
        Ok(match e {
            Expr::Num(n) => Value::Num(*n),
            Expr::Str(s) => Value::Str(s.clone()),
            Expr::Regex(i) => {
                let re = self.lit_regex(*i);
                Value::Num(re.is_match(&self.record) as i32 as f64)
            }
            Expr::RegexLit(i, _) => {
                let re = self.lit_regex(*i);
                Value::Num(re.is_match(&self.record) as i32 as f64)
            }
            Expr::Field(i) => {
                let i = self.field_index(i)?;
                self.get_field(i)
            }
            Expr::Var(v) => self.get_var(*v)?,
            Expr::Index(v, subs) => {
                let k = self.subscript(subs)?;
                let a = self.array(*v)?;
                let mut a = a.borrow_mut();
                a.entry(k).or_insert(Value::Uninit).clone()
            }
            Expr::Group(g) => self.eval(g)?,
            Expr::Assign(op, lv, rhs) => {
                let val = match op {
                    None => match self.eval(rhs)? {
                        Value::Uninit => Value::Uninit,
                        v => v,
                    },
                    Some(op) => {
                        let y = self.eval_num(rhs)?;
                        let x = self.get_lv(lv)?.num();
                        Value::Num(Self::arith(*op, x, y)?)
                    }
                };
                self.set_lv(lv, val.clone())?;
                val
            }
            Expr::Cond(c, a, b) => {
                if self.eval_bool(c)? {
                    self.eval(a)?
                } else {
                    self.eval(b)?
                }
            }
            Expr::And(a, b) => Value::Num((self.eval_bool(a)? && self.eval_bool(b)?) as i32 as f64),
            Expr::Or(a, b) => Value::Num((self.eval_bool(a)? || self.eval_bool(b)?) as i32 as f64),
            Expr::Not(a) => Value::Num((!self.eval_bool(a)?) as i32 as f64),
            Expr::Neg(a) => Value::Num(-self.eval_num(a)?),
            Expr::Plus(a) => Value::Num(self.eval_num(a)?),
            Expr::Bin(op, a, b) => {
                let x = self.eval_num(a)?;
                let y = self.eval_num(b)?;
                Value::Num(Self::arith(*op, x, y)?)
            }
            Expr::Cmp(op, a, b) => {
                let x = self.eval(a)?;
                let y = self.eval(b)?;
                Value::Num(self.compare(*op, &x, &y) as i32 as f64)
            }
            Expr::Concat(a, b) => {
                let mut x = self.eval_str(a)?;
                let y = self.eval_str(b)?;
                x.push_str(&y);
                Value::Str(x)
            }
            Expr::Match(neg, a, b) => {
                let s = self.eval_str(a)?;
                let re = self.regex_of(b)?;
                Value::Num((re.is_match(&s) != *neg) as i32 as f64)
            }
            Expr::In(subs, v) => {
                let k = self.subscript(subs)?;
                let a = self.array(*v)?;
                let r = a.borrow().contains_key(&k);
                Value::Num(r as i32 as f64)
            }
            Expr::IncDec(pre, d, lv) => {
                let old = self.get_lv(lv)?.num();
                self.set_lv(lv, Value::Num(old + d))?;
                Value::Num(if *pre { old + d } else { old })
            }
            Expr::Call(name, args) => self.call(name, args)?,
            Expr::Builtin(name, args) => self.builtin(name, args)?,
            Expr::Getline(src, lv) => self.getline(src, lv.as_deref())?,
        })
    }

    fn call(&mut self, name: &str, args: &[Expr]) -> Res<Value> {
        // Recursion loops too (`f(n-1) + f(n-1)`): each call is a step.
        self.tick()?;
        let Some(&fi) = self.funcs.get(name) else {
            return Err(Fatal(format!("function `{name}' not defined")));
        };
        let prog = self.prog.clone();
        let f = &prog.funcs[fi];
        if args.len() > f.nparams {
            return Err(Fatal(format!(
                "function `{name}' called with more arguments than declared"
            )));
        }
        // Bound recursion by the stack actually used (frames are much larger
        // in debug builds), so deep recursion errs instead of overflowing.
        let here = &prog as *const _ as usize;
        if self.frames.len() >= MAX_CALL_DEPTH || self.stack_base.abs_diff(here) > STACK_BUDGET {
            return Err(Fatal(format!(
                "function `{name}': call nesting too deep ({} levels)",
                self.frames.len()
            )));
        }
        let mut frame = Vec::with_capacity(f.nparams);
        for (i, a) in args.iter().enumerate() {
            let by_ref = match a {
                Expr::Var(v) => {
                    let is_arr = matches!(self.cell(*v), Cell::Arr(_));
                    let uninit = matches!(self.cell(*v), Cell::Val(Value::Uninit));
                    if is_arr || (uninit && f.array_params[i]) {
                        Some(self.array(*v)?)
                    } else {
                        None
                    }
                }
                _ => None,
            };
            frame.push(match by_ref {
                Some(a) => Cell::Arr(a),
                None => Cell::Val(self.eval(a)?),
            });
        }
        self.run_function(fi, frame)
    }

    /// Calls user function `name` with scalar arguments (the comparison
    /// functions of `PROCINFO["sorted_in"]` and `asort()`).
    pub(super) fn call_values(&mut self, name: &str, vals: Vec<Value>) -> Res<Value> {
        let Some(&fi) = self.funcs.get(name) else {
            return Err(Fatal(format!(
                "sort comparison function `{name}' is not defined"
            )));
        };
        let mut frame: Vec<Cell> = vals.into_iter().map(Cell::Val).collect();
        frame.truncate(self.prog.funcs[fi].nparams);
        self.run_function(fi, frame)
    }

    /// Runs function `fi` on `frame` (padded to its parameter count).
    fn run_function(&mut self, fi: usize, mut frame: Vec<Cell>) -> Res<Value> {
        let prog = self.prog.clone();
        let f = &prog.funcs[fi];
        let here = &prog as *const _ as usize;
        if self.frames.len() >= MAX_CALL_DEPTH || self.stack_base.abs_diff(here) > STACK_BUDGET {
            return Err(Fatal(format!(
                "function `{}': call nesting too deep ({} levels)",
                f.name,
                self.frames.len()
            )));
        }
        frame.resize(f.nparams, Cell::Val(Value::Uninit));
        self.frames.push(frame);
        let r = self.exec_block(&f.body);
        self.frames.pop();
        match r? {
            Flow::Return(v) => Ok(v),
            Flow::Exit => Err(Fatal("\u{0}exit".into())),
            Flow::Next => Err(Fatal("\u{0}next".into())),
            Flow::NextFile => Err(Fatal("\u{0}nextfile".into())),
            _ => Ok(Value::Uninit),
        }
    }

    // ---- statements ----

    pub(super) fn exec_block(&mut self, b: &[Stmt]) -> Res<Flow> {
        for s in b {
            match self.exec(s)? {
                Flow::Normal => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Normal)
    }

    fn exec(&mut self, s: &Stmt) -> Res<Flow> {
        match s {
            Stmt::Expr(e) => {
                self.eval(e)?;
            }
            Stmt::Print(args, redir) => self.exec_print(args, redir)?,
            Stmt::Printf(args, redir) => {
                let fmt = self.eval_str(&args[0])?;
                let mut vals = Vec::with_capacity(args.len());
                for a in &args[1..] {
                    vals.push(self.eval(a)?);
                }
                let mut out = String::new();
                super::printf::format(&fmt, &vals, &self.convfmt, self.utf8, &mut out)
                    .map_err(Fatal)?;
                self.emit(redir, out.as_bytes())?;
            }
            Stmt::If(c, a, b) => {
                if self.eval_bool(c)? {
                    return self.exec(a);
                } else if let Some(b) = b {
                    return self.exec(b);
                }
            }
            Stmt::While(c, body) => {
                while self.eval_bool(c)? {
                    self.tick()?;
                    match self.exec(body)? {
                        Flow::Break => break,
                        Flow::Normal | Flow::Continue => {}
                        other => return Ok(other),
                    }
                }
            }
            Stmt::Do(body, c) => loop {
                self.tick()?;
                match self.exec(body)? {
                    Flow::Break => break,
                    Flow::Normal | Flow::Continue => {}
                    other => return Ok(other),
                }
                if !self.eval_bool(c)? {
                    break;
                }
            },
            Stmt::For(init, cond, step, body) => {
                if let Some(i) = init {
                    self.exec(i)?;
                }
                loop {
                    if let Some(c) = cond
                        && !self.eval_bool(c)?
                    {
                        break;
                    }
                    self.tick()?;
                    match self.exec(body)? {
                        Flow::Break => break,
                        Flow::Normal | Flow::Continue => {}
                        other => return Ok(other),
                    }
                    if let Some(s) = step {
                        self.exec(s)?;
                    }
                }
            }
            Stmt::ForIn(k, a, body) => return self.exec_for_in(*k, *a, body),
            Stmt::Block(b) => return self.exec_block(b),
            Stmt::Next => {
                if self.in_end {
                    return Err(Fatal("`next' used in END action".into()));
                }
                return Ok(Flow::Next);
            }
            Stmt::NextFile => return Ok(Flow::NextFile),
            Stmt::Exit(e) => {
                if let Some(e) = e {
                    self.exit_code = self.eval_num(e)? as i32 & 0xff;
                }
                return Ok(Flow::Exit);
            }
            Stmt::Return(e) => {
                let v = match e {
                    Some(e) => self.eval(e)?,
                    None => Value::Uninit,
                };
                return Ok(Flow::Return(v));
            }
            Stmt::Break => return Ok(Flow::Break),
            Stmt::Continue => return Ok(Flow::Continue),
            Stmt::Delete(v, subs) => {
                let a = self.array(*v)?;
                match subs {
                    Some(s) => {
                        let k = self.subscript(s)?;
                        a.borrow_mut().shift_remove(&k);
                    }
                    None => a.borrow_mut().clear(),
                }
            }
        }
        Ok(Flow::Normal)
    }

    /// `print [args] [> redir]`: the arguments joined by OFS (numbers by
    /// OFMT), then ORS; no arguments print the record.
    fn exec_print(&mut self, args: &[Expr], redir: &Option<Redirect>) -> Res<()> {
        let mut line = String::new();
        if args.is_empty() {
            line.push_str(&self.record);
        } else {
            let ofs = self.special_str(OFS);
            for (i, a) in args.iter().enumerate() {
                if i > 0 {
                    line.push_str(&ofs);
                }
                let a = match a {
                    Expr::Group(g) => g,
                    x => x,
                };
                match self.eval(a)? {
                    Value::Num(n) => {
                        let ofmt = self.special_str(OFMT);
                        line.push_str(&num_to_string(n, &ofmt));
                    }
                    v => line.push_str(&v.str_with(&self.convfmt)),
                }
            }
        }
        line.push_str(&self.special_str(ORS));
        self.emit(redir, line.as_bytes())?;
        Ok(())
    }

    /// `for (k in a) body`: over a snapshot of the keys (in PROCINFO
    /// sorted_in order when set), skipping keys deleted meanwhile.
    fn exec_for_in(&mut self, k: Var, a: Var, body: &Stmt) -> Res<Flow> {
        let arr = self.array(a)?;
        let keys: Vec<String> = match self.sorted_in() {
            Some(how) => self.sorted_keys(&arr, &how)?,
            None => arr.borrow().keys().cloned().collect(),
        };
        for key in keys {
            if !arr.borrow().contains_key(&key) {
                continue;
            }
            self.tick()?;
            self.set_var(k, Value::StrNum(key))?;
            match self.exec(body)? {
                Flow::Break => break,
                Flow::Normal | Flow::Continue => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Normal)
    }

    // ---- the program ----

    /// Runs BEGIN, the main loop and END; returns the exit status.
    pub fn run(&mut self) -> i32 {
        let marker = 0u8;
        self.stack_base = &marker as *const u8 as usize;
        let r = self.run_inner();
        let status = match r {
            Ok(()) => self.exit_code,
            Err(Fatal(m)) => {
                let _ = self.flush_stdout();
                let _ = writeln!(self.ctx.stderr, "awk: {}", m.trim_start_matches('\u{0}'));
                2
            }
        };
        self.close_all();
        status
    }

    fn rules_of(&self, begin: bool) -> Vec<usize> {
        self.prog
            .rules
            .iter()
            .enumerate()
            .filter(|(_, r)| {
                matches!(
                    (&r.pattern, begin),
                    (Pattern::Begin, true) | (Pattern::End, false)
                )
            })
            .map(|(i, _)| i)
            .collect()
    }

    fn run_inner(&mut self) -> Res<()> {
        let prog = self.prog.clone();
        let mut exiting = false;
        for i in self.rules_of(true) {
            if let Some(a) = &prog.rules[i].action
                && let Flow::Exit = self.exec_block(a).or_else(catch_flow)?
            {
                exiting = true;
                break;
            }
        }
        let has_main = prog
            .rules
            .iter()
            .any(|r| !matches!(r.pattern, Pattern::Begin | Pattern::End));
        let has_main = has_main || self.has_file_rules();
        let has_end = prog.rules.iter().any(|r| matches!(r.pattern, Pattern::End));
        if !exiting && (has_main || has_end) {
            'records: loop {
                match self.next_main(None) {
                    Ok(true) => {}
                    Ok(false) => break,
                    // `exit` in a BEGINFILE/ENDFILE rule.
                    Err(f) => {
                        catch_flow(f)?;
                        exiting = true;
                        break;
                    }
                }
                for rule in &prog.rules {
                    let matched = match &rule.pattern {
                        Pattern::Begin | Pattern::End | Pattern::BeginFile | Pattern::EndFile => {
                            continue;
                        }
                        Pattern::All => true,
                        Pattern::Expr(e) => self.eval_bool(e)?,
                        Pattern::Range(a, b, idx) => {
                            if self.range_active[*idx] {
                                if self.eval_bool(b)? {
                                    self.range_active[*idx] = false;
                                }
                                true
                            } else if self.eval_bool(a)? {
                                if !self.eval_bool(b)? {
                                    self.range_active[*idx] = true;
                                }
                                true
                            } else {
                                false
                            }
                        }
                    };
                    if !matched {
                        continue;
                    }
                    let flow = match &rule.action {
                        None => {
                            let mut line = self.record.clone();
                            line.push_str(&self.special_str(ORS));
                            self.emit(&None, line.as_bytes())?;
                            Flow::Normal
                        }
                        Some(a) => self.exec_block(a).or_else(catch_flow)?,
                    };
                    match flow {
                        Flow::Next => continue 'records,
                        Flow::NextFile => {
                            if let Err(f) = self.skip_file() {
                                catch_flow(f)?;
                                exiting = true;
                                break 'records;
                            }
                            continue 'records;
                        }
                        Flow::Exit => {
                            exiting = true;
                            break 'records;
                        }
                        _ => {}
                    }
                }
            }
        }
        let _ = exiting;
        self.in_end = true;
        for i in self.rules_of(false) {
            if let Some(a) = &prog.rules[i].action
                && let Flow::Exit = self.exec_block(a).or_else(catch_flow)?
            {
                break;
            }
        }
        Ok(())
    }
}

/// Turns `exit`/`next` raised inside a function back into control flow.
pub(super) fn catch_flow(f: Fatal) -> Res<Flow> {
    match f.0.as_str() {
        "\u{0}exit" => Ok(Flow::Exit),
        "\u{0}next" => Ok(Flow::Next),
        "\u{0}nextfile" => Ok(Flow::NextFile),
        _ => Err(f),
    }
}

/// Whether the locale the environment names (`LC_ALL`, else `LC_CTYPE`,
/// else `LANG`; the first one set and not empty) has UTF-8 characters.
fn utf8_locale(env: &[(String, String)]) -> bool {
    let get = |name: &str| {
        env.iter()
            .rev()
            .find(|(k, v)| k == name && !v.is_empty())
            .map(|(_, v)| v.to_ascii_lowercase())
    };
    get("LC_ALL")
        .or_else(|| get("LC_CTYPE"))
        .or_else(|| get("LANG"))
        .is_some_and(|l| l.contains("utf-8") || l.contains("utf8"))
}
