//! The system family: fixed facts about the sandbox (`uname`, `id`,
//! `whoami`), the environment (`env`, `printenv`, `which`), time (`date`,
//! `sleep`) and generators (`seq`, `yes`).

use super::Command;

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
pub const COMMANDS: &[Command] = &[
    Command::gnu("whoami", identity::WHOAMI_USAGE, identity::whoami),
    Command::gnu("logname", identity::LOGNAME_USAGE, identity::logname),
    Command::gnu("groups", identity::GROUPS_USAGE, identity::groups),
    Command::own("hostname", identity::hostname),
    Command::gnu("uname", identity::UNAME_USAGE, identity::uname),
    Command::gnu("id", identity::ID_USAGE, identity::id),
    Command::gnu("nproc", identity::NPROC_USAGE, identity::nproc),
    Command::gnu("arch", identity::ARCH_USAGE, identity::arch),
    Command::gnu("sync", identity::SYNC_USAGE, identity::sync),
    Command::gnu("tty", identity::TTY_USAGE, identity::tty),
    Command::own("clear", identity::clear),
    Command::stopping("env", env::ENV_USAGE, env::env),
    Command::gnu("printenv", env::PRINTENV_USAGE, env::printenv),
    Command::own("which", which::which),
    Command::gnu("sleep", sleep::SLEEP_USAGE, sleep::sleep),
    Command::gnu("yes", sleep::YES_USAGE, sleep::yes),
    Command::gnu("date", date::USAGE, date::date),
    Command::stopping("seq", seq::USAGE, seq::seq),
];
