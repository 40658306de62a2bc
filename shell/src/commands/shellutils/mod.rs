//! Bash builtins that also exist as programs (`echo`, `printf`, `test`, `[`,
//! `true`, `false`), for `xargs`, `env`, `find -exec`. OWNER: builtins helper.

use super::CommandFn;

/// The commands of this family.
pub const COMMANDS: &[(&str, CommandFn)] = &[];
