//! Fixtures of the archive tests (`archive.rs`, `archive_gnu.rs`): `tar` and
//! `gzip` called directly over a virtual tree, host GNU tools, a small
//! workspace to pack, and hand-made tar archives. The `pub use`s are the
//! archive tests' prelude (`use support::archive::*`); other test binaries
//! leave them unused.
#![allow(unused_imports)]

pub use std::io::{Read, Write};
pub use std::path::{Path, PathBuf};
pub use std::process::Command;

pub use sandkeep_shell::Timestamp;
pub use sandkeep_shell::{Clock, RunControl};
pub use sandkeep_shell::{CommandCtx, Exec, testing as commands};
pub use sandkeep_shell::{FileKind, Fs};
pub use sandkeep_shell::{FsLimits, Limits};

pub use super::host::{TempDir, read_dir_sorted};
pub use super::ours::NoExec;
use super::ours::{self, Call};

/// The fixed clock of the virtual tree: 2024-01-01T00:00:00Z.
pub const EPOCH: i64 = 1_704_067_200;

/// What a command run produced.
pub struct Out {
    pub code: i32,
    pub stdout: String,
    pub stdout_bytes: Vec<u8>,
    pub stderr: String,
}

/// An empty virtual filesystem on the fixed clock.
pub fn new_fs() -> Fs {
    Fs::new(
        FsLimits::default(),
        Clock::fixed(EPOCH),
        sandkeep_shell::usr_bin_names(),
    )
}

/// Runs registry command `args[0]` in `cwd` over `fs`.
pub fn run_in(fs: &Fs, cwd: &str, args: &[&str], stdin: &[u8]) -> Out {
    let args = ours::args(args);
    let control = RunControl::new(Limits::default(), Clock::fixed(EPOCH), None, None);
    let o = ours::call(
        fs,
        &control,
        Call {
            cwd,
            stdin,
            ..Call::new(&args)
        },
    );
    Out {
        code: o.status,
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stdout_bytes: o.stdout,
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// Runs registry command `args[0]` in `/workspace` with empty stdin.
pub fn run(fs: &Fs, args: &[&str]) -> Out {
    run_in(fs, "/workspace", args, b"")
}

/// Whether the host has `tool`.
pub fn has(tool: &str) -> bool {
    super::host::host_has(tool)
}

/// Runs host program `cmd` in `cwd` (UTC, C locale).
pub fn host(cmd: &str, args: &[&str], cwd: &Path) -> std::process::Output {
    Command::new(cmd)
        .args(args)
        .current_dir(cwd)
        .env("TZ", "UTC")
        .env("LC_ALL", "C")
        .output()
        .unwrap()
}

/// A small workspace: files, a subdirectory, a symlink, an executable, the
/// mindlog that the sync hook excludes.
pub fn populate(fs: &Fs) {
    fs.write("/workspace/a.txt", b"alpha\n").unwrap();
    fs.mkdir_all("/workspace/sub/deeper").unwrap();
    fs.write("/workspace/sub/b.txt", b"bravo\n").unwrap();
    fs.write("/workspace/sub/deeper/c.log", b"charlie\n")
        .unwrap();
    fs.write("/workspace/run.sh", b"#!/bin/sh\necho hi\n")
        .unwrap();
    fs.set_mode("/workspace/run.sh", 0o755).unwrap();
    fs.symlink("a.txt", "/workspace/link").unwrap();
    fs.write("/workspace/mindlog.jsonl", b"{\"m\":1}\n")
        .unwrap();
    fs.write("/workspace/sub/mindlog.jsonl", b"{}\n").unwrap();
    fs.set_mtime(
        "/workspace/a.txt",
        Timestamp {
            secs: 1_600_000_000,
            nanos: 0,
        },
    )
    .unwrap();
}

/// The lines of `s`.
pub fn lines(s: &str) -> Vec<&str> {
    s.lines().collect()
}

/// Builds a raw tar archive from (name, typeflag, linkname, data) members.
pub fn raw_tar(members: &[(&str, u8, &str, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    for &(name, flag, link, data) in members {
        let mut h = tar::Header::new_ustar();
        h.as_old_mut().name[..name.len()].copy_from_slice(name.as_bytes());
        h.as_old_mut().linkname[..link.len()].copy_from_slice(link.as_bytes());
        h.set_mode(if flag == b'5' { 0o755 } else { 0o644 });
        h.set_size(data.len() as u64);
        h.set_mtime(0);
        h.set_entry_type(tar::EntryType::new(flag));
        h.set_cksum();
        out.extend_from_slice(h.as_bytes());
        out.extend_from_slice(data);
        out.resize(out.len().div_ceil(512) * 512, 0);
    }
    out.resize(out.len() + 1024, 0);
    out
}
