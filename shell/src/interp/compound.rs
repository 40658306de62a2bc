//! Compound commands: `{ }`, `( )`, `if`, `while`/`until`, `for`,
//! `for ((;;))`, `case`, `(( ))` and `coproc`.
//!
//! Loops count their iterations against the run's limit (which also checks
//! the deadline), so `while true; do :; done` always ends.

use brush_parser::ast::{self, CaseItemPostAction, CompoundCommand};

use super::pattern::{self, MatchOptions};
use super::{ExecResult, Interp, Interrupt};

/// What a loop body asked for.
pub(crate) enum Flow {
    Next,
    Stop,
}

impl Interp {
    /// Executes a compound command (its redirections are applied by the caller).
    pub(crate) fn exec_compound(&mut self, c: &CompoundCommand) -> ExecResult {
        match c {
            CompoundCommand::BraceGroup(g) => self.exec_list(&g.list),
            CompoundCommand::Subshell(sub) => {
                let mut child = self.subshell();
                let r = child.nest(|sh| sh.exec_list(&sub.list));
                let r = child.finish_subshell(r);
                let broken = child.broken_pipe;
                drop(child);
                if broken {
                    self.broken_pipe = true;
                }
                r
            }
            CompoundCommand::IfClause(i) => self.exec_if(i),
            CompoundCommand::WhileClause(w) => self.exec_while(w, false),
            CompoundCommand::UntilClause(w) => self.exec_while(w, true),
            CompoundCommand::ForClause(f) => self.exec_for(f),
            CompoundCommand::ArithmeticForClause(f) => self.exec_arith_for(f),
            CompoundCommand::CaseClause(c) => self.exec_case(c),
            CompoundCommand::Arithmetic(a) => {
                self.control.count_command().map_err(Interrupt::Limit)?;
                self.set_line(a.loc.start.line);
                self.debug_trap()?;
                if self.opts.xtrace {
                    let t = format!("(( {} ))", a.expr.value.trim());
                    self.trace(&t);
                }
                match self.eval_arith_cmd(&a.expr.value, "((")? {
                    Some(v) => Ok(i32::from(v == 0)),
                    None => Ok(1),
                }
            }
            CompoundCommand::Coprocess(c) => {
                // No concurrency with the shell: run the body to completion,
                // its output readable through the COPROC array's fd.
                let mut child = self.subshell();
                let r = child.exec_command(&c.body);
                let _ = child.finish_subshell(r)?;
                Ok(0)
            }
        }
    }

    fn cond(&mut self, list: &ast::CompoundList) -> ExecResult {
        self.errexit_quiet += 1;
        let r = self.exec_list(list);
        self.errexit_quiet -= 1;
        r
    }

    fn exec_if(&mut self, i: &ast::IfClauseCommand) -> ExecResult {
        if self.cond(&i.condition)? == 0 {
            return self.exec_list(&i.then);
        }
        if let Some(elses) = &i.elses {
            for e in elses {
                match &e.condition {
                    Some(c) => {
                        if self.cond(c)? == 0 {
                            return self.exec_list(&e.body);
                        }
                    }
                    None => return self.exec_list(&e.body),
                }
            }
        }
        Ok(0)
    }

    /// Runs one loop body, translating `break`/`continue`.
    pub(crate) fn loop_body(
        &mut self,
        body: &ast::CompoundList,
        status: &mut i32,
    ) -> Result<Flow, Interrupt> {
        match self.exec_list(body) {
            Ok(s) => {
                *status = s;
                Ok(Flow::Next)
            }
            // The loop's status is then that of `break`/`continue`: 0.
            Err(Interrupt::Break(n)) => {
                *status = 0;
                if n > 1 {
                    Err(Interrupt::Break(n - 1))
                } else {
                    Ok(Flow::Stop)
                }
            }
            Err(Interrupt::Continue(n)) => {
                *status = 0;
                if n > 1 {
                    Err(Interrupt::Continue(n - 1))
                } else {
                    Ok(Flow::Next)
                }
            }
            Err(e) => Err(e),
        }
    }

    pub(crate) fn looped<T>(
        &mut self,
        f: impl FnOnce(&mut Interp) -> Result<T, Interrupt>,
    ) -> Result<T, Interrupt> {
        self.loop_depth += 1;
        let r = f(self);
        self.loop_depth -= 1;
        r
    }

    fn exec_while(&mut self, w: &ast::WhileOrUntilClauseCommand, until: bool) -> ExecResult {
        self.looped(|sh| {
            let mut status = 0;
            loop {
                sh.control.count_iteration().map_err(Interrupt::Limit)?;
                let c = match sh.cond(&w.0) {
                    Ok(c) => c,
                    Err(Interrupt::Break(n)) => {
                        if n > 1 {
                            return Err(Interrupt::Break(n - 1));
                        }
                        break;
                    }
                    Err(Interrupt::Continue(n)) => {
                        if n > 1 {
                            return Err(Interrupt::Continue(n - 1));
                        }
                        continue;
                    }
                    Err(e) => return Err(e),
                };
                if (c == 0) == until {
                    break;
                }
                if let Flow::Stop = sh.loop_body(&w.1.list, &mut status)? {
                    break;
                }
            }
            Ok(status)
        })
    }

    fn exec_for(&mut self, f: &ast::ForClauseCommand) -> ExecResult {
        self.set_line(f.loc.start.line);
        let (name, select, empty_in) = super::parse::loop_header_name(&f.variable_name);
        if !super::vars::is_valid_name(name) {
            self.shell_error(format_args!("`{name}': not a valid identifier"));
            return Ok(1);
        }
        let values = match &f.values {
            Some(words) => self.expand_words(words)?,
            None if empty_in => Vec::new(),
            None => self.positional.clone(),
        };
        if select {
            if self.opts.xtrace {
                self.trace(&loop_header_text(f, name, select, empty_in));
            }
            return self.exec_select(f, name, values);
        }
        self.looped(|sh| {
            let mut status = 0;
            for v in values {
                sh.control.count_iteration().map_err(Interrupt::Limit)?;
                // DEBUG runs before each assignment of the loop variable.
                sh.set_line(f.loc.start.line);
                sh.debug_trap()?;
                if sh.opts.xtrace {
                    sh.trace(&loop_header_text(f, name, false, empty_in));
                }
                if let Err(e) = sh.assign(name, &v, false) {
                    if let super::vars::VarError::Interrupted(i) = e {
                        return Err(i);
                    }
                    sh.shell_error(&e);
                    return Ok(1);
                }
                if let Flow::Stop = sh.loop_body(&f.body.list, &mut status)? {
                    break;
                }
            }
            Ok(status)
        })
    }

    fn arith_step(
        &mut self,
        e: &Option<ast::UnexpandedArithmeticExpr>,
        line: usize,
    ) -> Result<Option<i64>, Interrupt> {
        // Each of the three expressions is a command for the DEBUG trap.
        self.set_line(line);
        self.debug_trap()?;
        match e {
            Some(e) if !e.value.trim().is_empty() => self.eval_arith_cmd(&e.value, "(("),
            _ => Ok(Some(1)),
        }
    }

    fn exec_arith_for(&mut self, f: &ast::ArithmeticForClauseCommand) -> ExecResult {
        let line = f.loc.start.line;
        if self.arith_step(&f.initializer, line)?.is_none() {
            return Ok(1);
        }
        self.looped(|sh| {
            let mut status = 0;
            loop {
                sh.control.count_iteration().map_err(Interrupt::Limit)?;
                match sh.arith_step(&f.condition, line)? {
                    None => return Ok(1),
                    Some(0) => break,
                    Some(_) => {}
                }
                if let Flow::Stop = sh.loop_body(&f.body.list, &mut status)? {
                    break;
                }
                if sh.arith_step(&f.updater, line)?.is_none() {
                    return Ok(1);
                }
            }
            Ok(status)
        })
    }

    fn exec_case(&mut self, c: &ast::CaseClauseCommand) -> ExecResult {
        self.set_line(c.loc.start.line);
        self.debug_trap()?;
        if self.opts.xtrace {
            self.trace(&format!("case {} in", c.value.value));
        }
        let value = self.expand_string(&c.value.value)?;
        let opts = MatchOptions {
            extglob: true,
            nocase: self.opts.nocasematch,
        };
        let mut status = 0;
        let mut i = 0;
        let mut fall_through = false;
        while i < c.cases.len() {
            let item = &c.cases[i];
            let mut hit = fall_through;
            if !hit {
                for p in &item.patterns {
                    let pat = self.expand_pattern(&p.value)?;
                    if pattern::matches(&pat, &value, opts) {
                        hit = true;
                        break;
                    }
                }
            }
            if !hit {
                i += 1;
                continue;
            }
            status = match &item.cmd {
                Some(list) => self.exec_list(list)?,
                None => 0,
            };
            match item.post_action {
                CaseItemPostAction::ExitCase => return Ok(status),
                CaseItemPostAction::UnconditionallyExecuteNextCaseItem => fall_through = true,
                CaseItemPostAction::ContinueEvaluatingCases => fall_through = false,
            }
            i += 1;
        }
        Ok(status)
    }
}

/// A `for` or `select` header as `set -x` shows it: the words as written,
/// `in "$@"` for a loop over the positional parameters.
fn loop_header_text(f: &ast::ForClauseCommand, name: &str, select: bool, empty_in: bool) -> String {
    let keyword = if select { "select" } else { "for" };
    let words = match &f.values {
        Some(words) => words
            .iter()
            .map(|w| w.value.as_str())
            .collect::<Vec<_>>()
            .join(" "),
        None if empty_in => String::new(),
        None => "\"$@\"".to_string(),
    };
    format!("{keyword} {name} in {words}")
}
