//! The misc family: small GNU utilities that fit no other family (`expr`,
//! `truncate`, `shuf`, `split`, `du`, `df`, `tree`, `file`, `dd`, `factor`), the
//! wrappers that run a command (`timeout`, `nohup`, `nice`, `stdbuf`) and the
//! names of host-only programs (`curl`, `python3`, ...) that explain they are
//! not available in the local sandbox.

pub mod bc;
pub mod dd;
pub mod du;
pub mod expr;
pub mod factor;

pub mod file;
pub mod hostonly;
pub mod shuf;
pub mod split;
pub mod timeout;

pub mod tree;
pub mod truncate;
pub mod wrappers;

use super::Command;

/// The commands of this family.
pub const COMMANDS: &[Command] = &[
    Command::alone("expr", expr::USAGE, 0, expr::expr),
    Command::gnu("bc", bc::USAGE, bc::bc),
    Command::gnu("truncate", truncate::USAGE, truncate::truncate),
    Command::gnu("shuf", shuf::USAGE, shuf::shuf),
    Command::gnu("split", split::USAGE, split::split),
    Command::stopping("timeout", timeout::USAGE, timeout::timeout),
    Command::stopping("nohup", wrappers::NOHUP_USAGE, wrappers::nohup),
    Command::stopping("nice", wrappers::NICE_USAGE, wrappers::nice),
    Command::stopping("stdbuf", wrappers::STDBUF_USAGE, wrappers::stdbuf),
    Command::gnu("du", du::DU_USAGE, du::du),
    Command::gnu("df", du::DF_USAGE, du::df),
    Command::gnu("tree", tree::USAGE, tree::tree),
    Command::gnu("file", file::USAGE, file::file),
    Command::gnu("dd", dd::USAGE, dd::dd),
    Command::gnu("factor", factor::USAGE, factor::factor),
    Command::own("curl", hostonly::unavailable),
    Command::own("wget", hostonly::unavailable),
    Command::own("python", hostonly::unavailable),
    Command::own("python3", hostonly::unavailable),
    Command::own("pip", hostonly::unavailable),
    Command::own("pip3", hostonly::unavailable),
    Command::own("node", hostonly::unavailable),
    Command::own("npm", hostonly::unavailable),
    Command::own("npx", hostonly::unavailable),
    Command::own("apt", hostonly::unavailable),
    Command::own("apt-get", hostonly::unavailable),
    Command::own("sudo", hostonly::unavailable),
    Command::own("docker", hostonly::unavailable),
    Command::own("ssh", hostonly::unavailable),
    Command::own("scp", hostonly::unavailable),
    Command::own("git", hostonly::unavailable),
    Command::own("ping", hostonly::unavailable),
    Command::own("nc", hostonly::unavailable),
];
