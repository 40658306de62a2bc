//! The tree every sandbox starts with: `/workspace` (HOME and cwd), `/tmp`,
//! `/dev` (`null`, `zero`, `full`, `random`, `urandom` and the descriptor
//! names), a `/usr/bin` listing the available commands, `/bin -> usr/bin`,
//! and an `/etc` with nothing taken from the host.

use std::sync::{Arc, OnceLock};

use super::device::Device;
use super::tree::{ROOT, Tree};
use crate::clock::Clock;
use crate::limits::FsLimits;

/// What each `/usr/bin` entry holds: the commands are built in, the files
/// exist so that `ls /usr/bin`, `which` and `test -x` see them.
const STUB: &[u8] = b"#!/bin/sh\n# sandkeep builtin command\n";

/// Names under `/usr/bin`: every registry command plus the shell itself.
fn bin_names() -> &'static [&'static str] {
    static NAMES: OnceLock<Vec<&'static str>> = OnceLock::new();
    NAMES.get_or_init(|| {
        let mut v = crate::commands::names();
        v.extend(["bash", "sh"]);
        v.sort_unstable();
        v.dedup();
        v
    })
}

/// Builds the standard tree: a copy of one template built per process, so a
/// new sandbox costs a few allocations instead of a hundred inserts (the
/// directory maps are shared copy-on-write). The template ignores limits;
/// a host whose limits are smaller than the initial tree gets the tree anyway
/// and `No space left on device` on its first write.
pub(crate) fn standard_tree(limits: FsLimits, clock: Clock) -> Tree {
    static TEMPLATE: OnceLock<Tree> = OnceLock::new();
    let template = TEMPLATE.get_or_init(|| {
        let unlimited = FsLimits {
            max_total_bytes: u64::MAX,
            max_files: u64::MAX,
            max_file_size: u64::MAX,
        };
        let mut t = Tree::new(unlimited, Clock::fixed(0));
        // Only fails if the template itself is inconsistent; a partial tree
        // is still a working one.
        let _ = populate(&mut t);
        t
    });
    let mut t = template.clone();
    t.reset(limits, clock);
    t
}

fn populate(t: &mut Tree) -> super::FsResult<()> {
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
    let stub = Arc::new(STUB.to_vec());
    let mut path = String::with_capacity(32);
    for name in bin_names() {
        path.clear();
        path.push_str("/usr/bin/");
        path.push_str(name);
        t.add_shared_file(&path, &stub, 0o755)?;
    }
    Ok(())
}
