//! The files family: commands that read, list, create, move and remove nodes
//! of the virtual tree (`cat`, `ls`, `cp`, `mv`, `rm`, `stat`, ...).

use super::Command;

mod cat;
pub mod chmod;
pub mod common;
mod cp;
mod dirs;
mod fifo;
mod headtail;
pub mod input;
mod ln;
pub mod ls;
mod mktemp;
mod mv;
pub mod paths;
mod rm;
mod stat;
mod touch;
mod wc;

#[cfg(test)]
mod tests;
#[cfg(test)]
pub(crate) mod testutil;

/// The commands of this family.
pub const COMMANDS: &[Command] = &[
    Command::declared("cat", cat::CatOpt::HELP, cat::cat),
    Command::declared("ls", ls::LsOpt::HELP, ls::ls),
    Command::declared("mkdir", dirs::MkdirOpt::HELP, dirs::mkdir),
    Command::declared("rmdir", dirs::RmdirOpt::HELP, dirs::rmdir),
    Command::gnu("mkfifo", fifo::MKFIFO_USAGE, fifo::mkfifo),
    Command::gnu("mknod", fifo::MKNOD_USAGE, fifo::mknod),
    Command::declared("rm", rm::RmOpt::HELP, rm::rm),
    Command::gnu("cp", cp::USAGE, cp::cp),
    Command::gnu("mv", mv::USAGE, mv::mv),
    Command::declared("touch", touch::TouchOpt::HELP, touch::touch),
    Command::gnu("ln", ln::USAGE, ln::ln),
    Command::gnu("link", ln::LINK_USAGE, ln::link),
    Command::gnu("unlink", ln::UNLINK_USAGE, ln::unlink),
    Command::declared("readlink", paths::ReadlinkOpt::HELP, paths::readlink),
    Command::declared("realpath", paths::RealpathOpt::HELP, paths::realpath),
    Command::declared("basename", paths::BasenameOpt::HELP, paths::basename),
    Command::declared("dirname", paths::DirnameOpt::HELP, paths::dirname),
    Command::declared("pwd", paths::PwdOpt::HELP, paths::pwd),
    Command::gnu("stat", stat::USAGE, stat::stat),
    Command::gnu("chmod", chmod::USAGE, chmod::chmod),
    Command::gnu("head", headtail::HEAD_USAGE, headtail::head),
    Command::gnu("tail", headtail::TAIL_USAGE, headtail::tail),
    Command::declared("wc", wc::WcOpt::HELP, wc::wc),
    Command::gnu("mktemp", mktemp::USAGE, mktemp::mktemp),
];
