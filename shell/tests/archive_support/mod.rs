//! Helpers shared by the archive test files: running a command over a
//! virtual tree with a minimal [`CommandCtx`], host tools, temp dirs, and
//! hand-made tar archives.
#![allow(dead_code, clippy::disallowed_methods, clippy::disallowed_types)]

pub use std::io::{Read, Write};
pub use std::path::{Path, PathBuf};
pub use std::process::Command;

pub use sandkeep_shell::clock::Timestamp;
pub use sandkeep_shell::commands::{self, CommandCtx, Exec};
pub use sandkeep_shell::fs::{FileKind, Fs};
pub use sandkeep_shell::limits::{FsLimits, Limits};
pub use sandkeep_shell::{Clock, RunControl};

pub const EPOCH: i64 = 1_704_067_200; // 2024-01-01T00:00:00Z

pub struct NoExec;

impl Exec for NoExec {
    fn exec(
        &mut self,
        _argv: &[String],
        _env: &[(String, String)],
        _cwd: &str,
        _stdin: &mut dyn Read,
        _stdout: &mut dyn Write,
        _stderr: &mut dyn Write,
    ) -> i32 {
        127
    }
}

/// What a command run produced.
pub struct Out {
    pub code: i32,
    pub stdout: String,
    pub stdout_bytes: Vec<u8>,
    pub stderr: String,
}

pub fn new_fs() -> Fs {
    Fs::new(FsLimits::default(), Clock::fixed(EPOCH))
}

/// Runs registry command `args[0]` in `cwd` over `fs`.
pub fn run_in(fs: &Fs, cwd: &str, args: &[&str], stdin: &[u8]) -> Out {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let control = RunControl::new(Limits::default(), Clock::fixed(EPOCH), None, None);
    let mut input = stdin;
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let mut exec = NoExec;
    let f = commands::lookup(&args[0]).expect("command registered");
    let code = {
        let mut ctx = CommandCtx {
            args: &args,
            env: &[],
            cwd,
            fs,
            stdin: &mut input,
            stdout: &mut out,
            stderr: &mut err,
            control: &control,
            exec: &mut exec,
        };
        f(&mut ctx)
    };
    Out {
        code,
        stdout: String::from_utf8_lossy(&out).into_owned(),
        stdout_bytes: out,
        stderr: String::from_utf8_lossy(&err).into_owned(),
    }
}

pub fn run(fs: &Fs, args: &[&str]) -> Out {
    run_in(fs, "/workspace", args, b"")
}

pub fn has(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A fresh host temp dir, removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let p =
            std::env::temp_dir().join(format!("sandkeep-archive-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

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
