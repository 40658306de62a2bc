//! The tree every sandbox starts with: `/workspace` (HOME and cwd), `/tmp`,
//! `/dev` (`null`, `zero`, `full`, `random`, `urandom` and the descriptor
//! names), a `/usr/bin` listing the programs the caller names (the
//! filesystem knows no commands: `Shell::new` passes the registry's names),
//! `/bin -> usr/bin`, and an `/etc` with nothing taken from the host.

use std::sync::{Arc, OnceLock};

use super::device::Device;
use super::tree::{ROOT, Tree};
use crate::clock::Clock;
use crate::limits::FsLimits;

/// What each `/usr/bin` entry holds: the commands are built in, the files
/// exist so that `ls /usr/bin`, `which` and `test -x` see them.
const STUB: &[u8] = b"#!/bin/sh\n# sandkeep builtin command\n";

/// Builds the standard tree, with one `/usr/bin` stub per name of `programs`
/// (created in that order, so inode numbers follow it). It is a copy of a
/// template built once per process, so a new sandbox costs a few allocations
/// instead of a hundred inserts (the directory maps are shared copy-on-write);
/// a caller naming other programs than the template's gets a tree of its own.
/// The template ignores limits; a host whose limits are smaller than the
/// initial tree gets the tree anyway and `No space left on device` on its
/// first write.
pub(crate) fn standard_tree(limits: FsLimits, clock: Clock, programs: &[&str]) -> Tree {
    static TEMPLATE: OnceLock<(Vec<String>, Tree)> = OnceLock::new();
    let (template_programs, template) = TEMPLATE.get_or_init(|| {
        let names = programs.iter().map(|p| p.to_string()).collect();
        (names, unlimited_tree(programs))
    });
    let same_programs = template_programs
        .iter()
        .map(String::as_str)
        .eq(programs.iter().copied());
    let mut t = if same_programs {
        template.clone()
    } else {
        unlimited_tree(programs)
    };
    t.reset(limits, clock);
    t
}

/// The standard tree without limits, at time 0.
fn unlimited_tree(programs: &[&str]) -> Tree {
    let unlimited = FsLimits {
        max_total_bytes: u64::MAX,
        max_files: u64::MAX,
        max_file_size: u64::MAX,
    };
    let mut t = Tree::new(unlimited, Clock::fixed(0));
    // Only fails if the template itself is inconsistent; a partial tree
    // is still a working one.
    let _ = populate(&mut t, programs);
    t
}

fn populate(t: &mut Tree, programs: &[&str]) -> super::FsResult<()> {
    for (dir, mode) in [
        ("/workspace", 0o755),
        ("/tmp", 0o1777),
        ("/dev", 0o755),
        ("/dev/fd", 0o755),
        ("/etc", 0o755),
        ("/usr", 0o755),
        ("/usr/bin", 0o755),
        ("/usr/local", 0o755),
        ("/usr/local/bin", 0o755),
    ] {
        t.mkdir(dir, mode)?;
    }
    let dev = t.lookup("/dev", false)?;
    t.pin(dev);
    t.pin(ROOT);
    for (name, device) in [
        ("/dev/null", Device::Null),
        ("/dev/zero", Device::Zero),
        ("/dev/full", Device::Full),
        ("/dev/random", Device::Random),
        ("/dev/urandom", Device::Urandom),
    ] {
        t.add_device(name, 0o666, device)?;
    }
    for name in [
        "/dev/stdin",
        "/dev/stdout",
        "/dev/stderr",
        "/dev/fd/0",
        "/dev/fd/1",
        "/dev/fd/2",
    ] {
        t.add_device(name, 0o620, Device::Descriptor)?;
    }
    t.symlink("usr/bin", "/bin")?;
    t.add_shared_file("/etc/hostname", &Arc::new(b"sandbox\n".to_vec()), 0o644)?;
    t.fill_dir_shared("/usr/bin", programs, &Arc::new(STUB.to_vec()), 0o755)
}
