//! The awk family of commands.

use super::CommandFn;

/// The commands of this family.
pub const COMMANDS: &[(&str, CommandFn)] = &[];
