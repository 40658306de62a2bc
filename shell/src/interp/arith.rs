//! Integer arithmetic: `$(( ))`, `(( ))`, `let`, array subscripts, `declare -i`.
//! OWNER: expand helper.

use super::{Interp, Interrupt};

impl Interp {
    /// Evaluates an arithmetic expression (text as written, before expansion),
    /// with bash's 64-bit wrapping semantics. Errors print bash's message and
    /// interrupt like bash does.
    pub fn eval_arith(&mut self, expr: &str) -> Result<i64, Interrupt> {
        let _ = expr;
        todo!()
    }
}
