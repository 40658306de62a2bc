//! The logic of the bash builtins that also exist as programs: what `echo`
//! prints ([`echo`]), the `printf` formatter ([`printf`]), the `test`/`[`
//! evaluator ([`test`]), and the shell quoting they and other builtins use
//! ([`quote`]).
//!
//! A leaf: it imports neither `crate::interp` nor `crate::commands`, so the
//! builtins (`interp::builtins`) and the programs (`commands::shellutils`)
//! both call it, and `env echo -e` agrees with `echo -e`.

pub mod echo;
pub mod printf;
pub mod quote;
pub mod test;
