//! The system family: fixed facts about the sandbox (`uname`, `id`,
//! `whoami`), the environment (`env`, `printenv`, `which`), time (`date`,
//! `sleep`) and generators (`seq`, `yes`).

use super::CommandFn;

mod date;
pub mod dateparse;
mod env;
mod identity;
mod seq;
mod sleep;
pub mod which;

#[cfg(test)]
mod tests;

/// The commands of this family.
pub const COMMANDS: &[(&str, CommandFn)] = &[
    ("whoami", identity::whoami),
    ("logname", identity::logname),
    ("groups", identity::groups),
    ("hostname", identity::hostname),
    ("uname", identity::uname),
    ("id", identity::id),
    ("nproc", identity::nproc),
    ("arch", identity::arch),
    ("sync", identity::sync),
    ("tty", identity::tty),
    ("clear", identity::clear),
    ("env", env::env),
    ("printenv", env::printenv),
    ("which", which::which),
    ("sleep", sleep::sleep),
    ("yes", sleep::yes),
    ("date", date::date),
    ("seq", seq::seq),
];
