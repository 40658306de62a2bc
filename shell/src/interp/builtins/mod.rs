//! Shell builtins: commands that need the interpreter's state. OWNER: builtins helper.

use super::{ExecResult, Interp};

/// A builtin's entry point: `args[0]` is its name.
pub type BuiltinFn = fn(&mut Interp, &[String]) -> ExecResult;

/// The builtin called `name`, if there is one.
pub fn lookup(name: &str) -> Option<BuiltinFn> {
    let _ = name;
    None
}
