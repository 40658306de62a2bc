//! The misc family: small GNU utilities that fit no other family (`expr`,
//! `truncate`, `shuf`, `split`, `du`, `df`, `tree`, `file`, `timeout`, `dd`, `factor`) and the
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

use super::CommandFn;

/// The commands of this family.
pub const COMMANDS: &[(&str, CommandFn)] = &[
    ("expr", expr::expr),
    ("bc", bc::bc),
    ("truncate", truncate::truncate),
    ("shuf", shuf::shuf),
    ("split", split::split),
    ("timeout", timeout::timeout),
    ("du", du::du),
    ("df", du::df),
    ("tree", tree::tree),
    ("file", file::file),
    ("dd", dd::dd),
    ("factor", factor::factor),
    ("curl", hostonly::unavailable),
    ("wget", hostonly::unavailable),
    ("python", hostonly::unavailable),
    ("python3", hostonly::unavailable),
    ("pip", hostonly::unavailable),
    ("pip3", hostonly::unavailable),
    ("node", hostonly::unavailable),
    ("npm", hostonly::unavailable),
    ("npx", hostonly::unavailable),
    ("apt", hostonly::unavailable),
    ("apt-get", hostonly::unavailable),
    ("sudo", hostonly::unavailable),
    ("docker", hostonly::unavailable),
    ("ssh", hostonly::unavailable),
    ("scp", hostonly::unavailable),
    ("git", hostonly::unavailable),
    ("ping", hostonly::unavailable),
    ("nc", hostonly::unavailable),
];
