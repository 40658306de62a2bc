//! Test support: runs a command function over a given filesystem with
//! in-memory streams and a dummy [`Exec`].

use std::io::{Read, Write};

use crate::clock::Clock;
use crate::commands::{CommandCtx, CommandFn, Exec};
use crate::control::RunControl;
use crate::fs::Fs;
use crate::limits::Limits;

/// What a test run produced.
pub struct Out {
    /// Exit status.
    pub status: i32,
    /// Captured stdout, lossily decoded.
    pub stdout: String,
    /// Captured stderr, lossily decoded.
    pub stderr: String,
}

struct NoExec;

impl Exec for NoExec {
    fn exec(
        &mut self,
        argv: &[String],
        env: &[(String, String)],
        _cwd: &str,
        _stdin: &mut dyn Read,
        stdout: &mut dyn Write,
        _stderr: &mut dyn Write,
    ) -> i32 {
        let _ = writeln!(stdout, "exec {argv:?} {env:?}");
        0
    }
}

/// A fresh filesystem with a fixed clock (2024-01-01T00:00:00Z).
pub fn new_fs() -> Fs {
    Fs::new(Limits::default().fs, Clock::fixed(1_704_067_200))
}

/// Runs `f` with argv `args` in `/workspace`.
pub fn run(fs: &Fs, f: CommandFn, args: &[&str], stdin: &str) -> Out {
    let control = RunControl::new(
        Limits::default(),
        Clock::fixed(1_704_067_200),
        None,
        Some(42),
    );
    run_with(fs, f, args, stdin, &control)
}

/// Runs `f` under a given control block (deadline, seed).
pub fn run_with(fs: &Fs, f: CommandFn, args: &[&str], stdin: &str, control: &RunControl) -> Out {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let env = vec![
        (
            "PATH".to_string(),
            "/usr/local/bin:/usr/bin:/bin".to_string(),
        ),
        ("HOME".to_string(), "/workspace".to_string()),
    ];
    let mut input = stdin.as_bytes();
    let mut out = Vec::new();
    let mut err = Vec::new();
    let mut exec = NoExec;
    let status = {
        let mut ctx = CommandCtx {
            args: &args,
            env: &env,
            cwd: "/workspace",
            fs,
            stdin: &mut input,
            stdout: &mut out,
            stderr: &mut err,
            control,
            exec: &mut exec,
        };
        f(&mut ctx)
    };
    Out {
        status,
        stdout: String::from_utf8_lossy(&out).into_owned(),
        stderr: String::from_utf8_lossy(&err).into_owned(),
    }
}
