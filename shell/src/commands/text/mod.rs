//! The text family of commands: searching, editing, sorting and reshaping
//! lines and bytes (`grep`, `sed`, `sort`, `cut`, `tr`, ...), each verified
//! against the GNU tool it stands for (LC_ALL=C behaviour).

pub mod common;
pub mod grep;
pub mod posix_regex;
pub mod sed;

use super::CommandFn;

/// The commands of this family.
pub const COMMANDS: &[(&str, CommandFn)] = &[
    ("grep", grep::grep),
    ("egrep", grep::grep),
    ("fgrep", grep::grep),
    ("sed", sed::sed),
];
