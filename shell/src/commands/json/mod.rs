//! The json family: `jq`, on the jaq crates (jaq-core, jaq-std, jaq-json)
//! with jq's command line and jq 1.6's output formatting.

mod format;
mod jq;

use super::CommandFn;

/// The commands of this family.
pub const COMMANDS: &[(&str, CommandFn)] = &[("jq", jq::main)];
