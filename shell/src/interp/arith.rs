//! Integer arithmetic: `$(( ))`, `(( ))`, `let`, array subscripts, `declare -i`.
//! OWNER: expand helper.
//!
//! The evaluator works like bash's `expr.c`: a recursive-descent parser that
//! evaluates while it parses (no AST), with a "no-eval" depth for the
//! branches that `&&`, `||` and `?:` skip. That keeps one `$((x+i))` well under
//! a microsecond and reproduces bash's error messages, including the
//! `(error token is "...")` suffix, which points at the last token read.
//!
//! Entry points:
//! - [`Interp::eval_arith`]: assignment semantics (`a[1/0]=x`, `declare -i`:
//!   an error is fatal: message, then `Interrupt::Exit(1)`).
//! - [`Interp::eval_arith_subst`]: `$(( ))` semantics (message, then
//!   `Interrupt::Discard(1)`: bash abandons only the current command).
//! - [`Interp::eval_arith_cmd`]: `(( ))`, `let`, `[[ -eq ]]` semantics (the
//!   error is printed with the command's name and the command fails with 1).
//! - [`Interp::try_eval_arith`]: no printing; the caller decides.

mod eval;

pub(crate) use eval::plain_decimal;

use super::{Interp, Interrupt};

/// Why an arithmetic evaluation failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArithFail {
    /// An expression error; the text is bash's message without the
    /// `bash: line N: ` prefix, e.g. `1/0: division by 0 (error token is "0")`.
    Error(String),
    /// Something that ends execution regardless of context (a limit, or a
    /// `set -u` failure or `${x:?}` inside the expression).
    Interrupt(Interrupt),
}

impl From<Interrupt> for ArithFail {
    fn from(i: Interrupt) -> Self {
        ArithFail::Interrupt(i)
    }
}

impl Interp {
    /// Evaluates an arithmetic expression (text as written, before expansion),
    /// with bash's 64-bit wrapping semantics. Errors print bash's message and
    /// interrupt like bash does.
    pub fn eval_arith(&mut self, expr: &str) -> Result<i64, Interrupt> {
        match self.try_eval_arith(expr) {
            Ok(v) => Ok(v),
            Err(ArithFail::Error(msg)) => {
                self.expansion_error(&msg);
                Err(Interrupt::Exit(1))
            }
            Err(ArithFail::Interrupt(i)) => Err(i),
        }
    }

    /// Evaluates the expression of `$(( ))`: an error prints bash's message
    /// and abandons the current command (the script goes on with the next
    /// one; a subshell ends), as bash does.
    pub fn eval_arith_subst(&mut self, expr: &str) -> Result<i64, Interrupt> {
        match self.try_eval_arith(expr) {
            Ok(v) => Ok(v),
            Err(ArithFail::Error(msg)) => {
                self.expansion_error(&msg);
                Err(Interrupt::Discard(1))
            }
            Err(ArithFail::Interrupt(i)) => Err(i),
        }
    }

    /// Evaluates `expr` for a command such as `((`, `let` or `[[`: an error is
    /// printed as `bash: line N: NAME: MESSAGE` and gives `Ok(None)` (the
    /// command then fails with status 1) instead of ending the shell.
    pub fn eval_arith_cmd(&mut self, expr: &str, name: &str) -> Result<Option<i64>, Interrupt> {
        match self.try_eval_arith(expr) {
            Ok(v) => Ok(Some(v)),
            Err(ArithFail::Error(msg)) => {
                self.expansion_error(&format!("{name}: {msg}"));
                Ok(None)
            }
            // Assigning to a readonly variable (already reported): bash fails
            // the `((`/`let` command and goes on with the same line.
            Err(ArithFail::Interrupt(Interrupt::Discard(_))) => Ok(None),
            Err(ArithFail::Interrupt(i)) => Err(i),
        }
    }

    /// Expands `$...`, `$(...)` and quotes in `expr` like bash does before
    /// arithmetic evaluation, then evaluates it. Prints nothing.
    pub fn try_eval_arith(&mut self, expr: &str) -> Result<i64, ArithFail> {
        self.arith_depth_ok(expr)?;
        let needs_expansion = expr
            .bytes()
            .any(|b| matches!(b, b'$' | b'`' | b'"' | b'\'' | b'\\'));
        if needs_expansion {
            let text = self.expand_arith_text(expr)?;
            self.arith_depth_ok(&text)?;
            eval::evaluate(self, &text, 0)
        } else {
            eval::evaluate(self, expr, 0)
        }
    }

    /// Evaluates an already expanded expression (no `$` expansion), e.g. the
    /// value of a variable used in another expression or an array subscript.
    pub fn eval_arith_expanded(&mut self, expr: &str) -> Result<i64, ArithFail> {
        self.arith_depth_ok(expr)?;
        eval::evaluate(self, expr, 0)
    }

    /// Refuses an expression nested deeper than the parser's stack allows.
    fn arith_depth_ok(&self, expr: &str) -> Result<(), ArithFail> {
        let limit = self.control.limits.max_nesting;
        if crate::depth::nesting(expr.as_bytes(), crate::depth::Syntax::Json, limit) > limit {
            return Err(ArithFail::Error(format!(
                "{}: {}",
                expr.chars().take(40).collect::<String>(),
                crate::depth::too_deep(limit)
            )));
        }
        Ok(())
    }
}

/// Evaluates an (already expanded) array subscript.
pub(crate) fn eval_sub(interp: &mut Interp, sub: &str) -> Result<i64, ArithFail> {
    eval::evaluate(interp, sub, 1)
}
