//! The find family: `find` (expression parser, walker, `-printf`),
//! `xargs` (both run commands in the sandbox through `ctx.exec`) and `diff`.

mod diff;
#[allow(clippy::module_inception)]
mod find;
mod xargs;

use super::Command;

/// The commands of this family.
pub const COMMANDS: &[Command] = &[
    Command::gnu("diff", diff::USAGE, diff::diff),
    Command::gnu("find", find::USAGE, find::find),
    Command::stopping("xargs", xargs::USAGE, xargs::xargs),
];
