//! The files family: commands that read, list, create, move and remove nodes
//! of the virtual tree (`cat`, `ls`, `cp`, `mv`, `rm`, `stat`, ...).

use super::CommandFn;

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
pub const COMMANDS: &[(&str, CommandFn)] = &[
    ("cat", cat::cat),
    ("ls", ls::ls),
    ("mkdir", dirs::mkdir),
    ("rmdir", dirs::rmdir),
    ("mkfifo", fifo::mkfifo),
    ("mknod", fifo::mknod),
    ("rm", rm::rm),
    ("cp", cp::cp),
    ("mv", mv::mv),
    ("touch", touch::touch),
    ("ln", ln::ln),
    ("readlink", paths::readlink),
    ("realpath", paths::realpath),
    ("basename", paths::basename),
    ("dirname", paths::dirname),
    ("pwd", paths::pwd),
    ("stat", stat::stat),
    ("chmod", chmod::chmod),
    ("head", headtail::head),
    ("tail", headtail::tail),
    ("wc", wc::wc),
    ("mktemp", mktemp::mktemp),
];
