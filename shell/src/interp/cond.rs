//! `[[ ... ]]`: file tests, string and integer comparisons, `==` patterns,
//! `=~` with BASH_REMATCH. OWNER: expand helper.

use brush_parser::ast::ExtendedTestExpr;

use super::{Interp, Interrupt};

impl Interp {
    /// Evaluates a `[[ ]]` expression.
    pub fn eval_cond(&mut self, expr: &ExtendedTestExpr) -> Result<bool, Interrupt> {
        let _ = expr;
        todo!()
    }
}
