//! The main input of the awk interpreter: ARGV operands (files and
//! `var=value` assignments), stdin, records cut by RS, and gawk's
//! BEGINFILE / ENDFILE rules around each file.

use std::rc::Rc;

use super::ast::special::*;
use super::ast::*;
use super::interp::{Cell, Fatal, Flow, Interp, Res, catch_flow};
use super::io::{Reader, RecordSep};
use super::regex::AwkRegex;
use super::value::Value;
use crate::fs::FsError;

impl Interp<'_, '_> {
    fn rs(&self) -> Res<RecordSep> {
        let rs = self.special_str(RS);
        let mut it = rs.chars();
        Ok(match (it.next(), it.next()) {
            (None, _) => RecordSep::Paragraph,
            (Some(c), None) if (c as u32) < 256 => RecordSep::Byte(c as u32 as u8),
            _ => RecordSep::Regex(AwkRegex::with_case(&rs, self.ignorecase).map_err(Fatal)?),
        })
    }

    /// Reads the next main-input record into `$0`, bumping NR/FNR; false at
    /// the end of all input.
    pub(super) fn next_main(&mut self, set_record: Option<&LValue>) -> Res<bool> {
        let rs = match &self.rs_cache {
            Some(r) => r.clone(),
            None => {
                let r = Rc::new(self.rs()?);
                self.rs_cache = Some(r.clone());
                r
            }
        };
        loop {
            if self.main_done {
                return Ok(false);
            }
            if self.main.is_none() {
                if !self.open_next_file()? {
                    self.main_done = true;
                    return Ok(false);
                }
                if let Flow::NextFile = self.file_rules(Pattern::BeginFile)? {
                    self.skip_file()?;
                    continue;
                }
            }
            let reader = self.main.as_mut().expect("open");
            match reader.next(&rs, self.ctx.stdin) {
                Some((rec, rt)) => {
                    self.recs = self.recs.wrapping_add(1);
                    if self.recs.is_multiple_of(256)
                        && let Err(k) = self.ctx.control.check()
                    {
                        return Err(Fatal(format!("{k} exceeded")));
                    }
                    let nr = self.get_var(Var::Global(NR))?.num() + 1.0;
                    self.globals[NR] = Cell::Val(Value::Num(nr));
                    let fnr = self.get_var(Var::Global(FNR))?.num() + 1.0;
                    self.globals[FNR] = Cell::Val(Value::Num(fnr));
                    if !matches!(*rs, RecordSep::Byte(_)) {
                        self.globals[RT] = Cell::Val(Value::Str(rt));
                    }
                    match set_record {
                        None => self.set_record(rec),
                        Some(lv) => self.set_lv(lv, Value::StrNum(rec))?,
                    }
                    return Ok(true);
                }
                None => {
                    if reader.read_a_directory() {
                        self.warn_directory("-");
                    }
                    self.skip_file()?
                }
            }
        }
    }

    /// Ends the current input file (at its end or by `nextfile`), running
    /// the ENDFILE rules.
    pub(super) fn skip_file(&mut self) -> Res<()> {
        if self.main.take().is_some() {
            self.file_rules(Pattern::EndFile)?;
        }
        Ok(())
    }

    /// Runs the BEGINFILE or ENDFILE rules; `Flow::NextFile` when one said
    /// `nextfile`. `exit` travels up as the `"\u{0}exit"` error.
    fn file_rules(&mut self, which: Pattern) -> Res<Flow> {
        if !self
            .prog
            .rules
            .iter()
            .any(|r| std::mem::discriminant(&r.pattern) == std::mem::discriminant(&which))
        {
            return Ok(Flow::Normal);
        }
        let prog = self.prog.clone();
        for r in &prog.rules {
            if std::mem::discriminant(&r.pattern) != std::mem::discriminant(&which) {
                continue;
            }
            let Some(a) = &r.action else { continue };
            match self.exec_block(a).or_else(catch_flow)? {
                Flow::NextFile => return Ok(Flow::NextFile),
                Flow::Exit => return Err(Fatal("\u{0}exit".into())),
                _ => {}
            }
        }
        Ok(Flow::Normal)
    }

    /// Whether the program has BEGINFILE or ENDFILE rules.
    pub(super) fn has_file_rules(&self) -> bool {
        self.prog
            .rules
            .iter()
            .any(|r| matches!(r.pattern, Pattern::BeginFile | Pattern::EndFile))
    }

    fn open_next_file(&mut self) -> Res<bool> {
        loop {
            let argc = self.get_var(Var::Global(ARGC))?.num() as usize;
            if self.arg_index >= argc {
                // No file operands at all: read stdin once.
                if !self.used_file {
                    self.used_file = true;
                    self.main = Some(Reader::stdin());
                    // gawk names implicit stdin "-".
                    self.globals[FILENAME] = Cell::Val(Value::Str("-".into()));
                    self.globals[FNR] = Cell::Val(Value::Num(0.0));
                    return Ok(true);
                }
                return Ok(false);
            }
            let i = self.arg_index;
            self.arg_index += 1;
            let argv = self.array(Var::Global(ARGV))?;
            let arg = argv
                .borrow()
                .get(&i.to_string())
                .map(|v| v.str_with("%.6g"));
            let Some(arg) = arg else { continue };
            if arg.is_empty() {
                continue;
            }
            if let Some((name, val)) = arg.split_once('=')
                && is_name(name)
            {
                let val = super::lexer::unescape(val);
                self.assign_global_dyn(name, val)?;
                continue;
            }
            self.used_file = true;
            self.globals[FNR] = Cell::Val(Value::Num(0.0));
            self.globals[FILENAME] = Cell::Val(Value::Str(arg.clone()));
            if arg == "-" || arg == "/dev/stdin" {
                self.main = Some(Reader::stdin());
                return Ok(true);
            }
            let path = self.ctx.path(&arg);
            match self.ctx.fs.read_shared(&path) {
                Ok(d) => {
                    self.main = Some(Reader::bytes(d.to_vec()));
                    return Ok(true);
                }
                // gawk skips a directory with a warning (after BEGINFILE).
                Err(FsError::IsADirectory) => {
                    if self.has_file_rules() {
                        self.file_rules(Pattern::BeginFile)?;
                    }
                    self.warn_directory(&arg);
                }
                Err(e) => {
                    let why = super::output::describe_error(&e.to_string());
                    if self.has_file_rules() {
                        // BEGINFILE sees the failure in ERRNO and may skip
                        // the file with `nextfile`; otherwise it is fatal.
                        self.globals[ERRNO] = Cell::Val(Value::Str(why.clone()));
                        let flow = self.file_rules(Pattern::BeginFile)?;
                        self.globals[ERRNO] = Cell::Val(Value::Str(String::new()));
                        if let Flow::NextFile = flow {
                            continue;
                        }
                    }
                    return Err(Fatal(format!(
                        "fatal: cannot open file `{arg}' for reading: {why}"
                    )));
                }
            }
        }
    }

    /// gawk's word on a directory operand (stdin included, as `-`), which
    /// it skips.
    fn warn_directory(&mut self, arg: &str) {
        let _ = self.flush_stdout();
        let warning =
            format!("awk: warning: command line argument `{arg}' is a directory: skipped");
        let _ = writeln!(self.ctx.stderr, "{warning}");
    }

    fn assign_global_dyn(&mut self, name: &str, val: String) -> Res<()> {
        match self.prog.globals.iter().position(|g| g == name) {
            Some(i) => self.set_var(Var::Global(i), Value::StrNum(val)),
            None => Ok(()),
        }
    }
}

fn is_name(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some(x) if x.is_ascii_alphabetic() || x == '_')
        && c.all(|x| x.is_ascii_alphanumeric() || x == '_')
}
