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
    Command::new("cat", cat::USAGE, cat::cat),
    Command::new("ls", ls::USAGE, ls::ls),
    Command::new("mkdir", dirs::MKDIR_USAGE, dirs::mkdir),
    Command::new("rmdir", dirs::RMDIR_USAGE, dirs::rmdir),
    Command::new("mkfifo", fifo::MKFIFO_USAGE, fifo::mkfifo),
    Command::new("mknod", fifo::MKNOD_USAGE, fifo::mknod),
    Command::new("rm", rm::USAGE, rm::rm),
    Command::new("cp", cp::USAGE, cp::cp),
    Command::new("mv", mv::USAGE, mv::mv),
    Command::new("touch", touch::USAGE, touch::touch),
    Command::new("ln", ln::USAGE, ln::ln),
    Command::new("readlink", paths::READLINK_USAGE, paths::readlink),
    Command::new("realpath", paths::REALPATH_USAGE, paths::realpath),
    Command::new("basename", paths::BASENAME_USAGE, paths::basename),
    Command::new("dirname", paths::DIRNAME_USAGE, paths::dirname),
    Command::new("pwd", paths::PWD_USAGE, paths::pwd),
    Command::new("stat", stat::USAGE, stat::stat),
    Command::new("chmod", chmod::USAGE, chmod::chmod),
    Command::new("head", headtail::HEAD_USAGE, headtail::head),
    Command::new("tail", headtail::TAIL_USAGE, headtail::tail),
    Command::new("wc", wc::USAGE, wc::wc),
    Command::new("mktemp", mktemp::USAGE, mktemp::mktemp),
];
