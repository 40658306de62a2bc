//! `echo [-neE] ARGS`: bash's echo. What it prints is
//! [`crate::builtin_core::echo::echo_bytes`], shared with the program.

use super::out;
use crate::builtin_core::echo::echo_bytes;
use crate::interp::{ExecResult, Interp};

/// `echo`
pub fn echo(interp: &mut Interp, args: &[String]) -> ExecResult {
    let data = echo_bytes(&args[1..], interp.opts.xpg_echo);
    Ok(if out(interp, &data) { 0 } else { 1 })
}
