//! The json family: `jq`, on the jaq crates (jaq-core, jaq-std, jaq-json)
//! with jq's command line and jq 1.6's output formatting.
//!
//! Where jaq means something else than jq, the filter is first rewritten
//! (`rewrite`: assignments, slices, interpolation, `/`, `catch`) onto jq
//! definitions (`prelude`) and natives (`paths`, `values`, `regex`,
//! `errors`); jq 1.7 is followed where 1.6 is known to be buggy.

mod alternatives;
mod errors;
mod format;
mod jq;
mod modules;
mod parse_errors;
mod paths;
mod prelude;
mod reading;
mod regex;
mod rewrite;
mod ticks;
mod values;

use super::Command;

/// The commands of this family.
pub const COMMANDS: &[Command] = &[Command::own("jq", jq::main)];
