//! The find family: `find` (expression parser, walker, `-printf`),
//! `xargs` (both run commands in the sandbox through `ctx.exec`) and `diff`.

mod diff;
#[allow(clippy::module_inception)]
mod find;
mod xargs;

use super::CommandFn;

/// The commands of this family.
pub const COMMANDS: &[(&str, CommandFn)] = &[
    ("diff", diff::diff),
    ("find", find::find),
    ("xargs", xargs::xargs),
];
