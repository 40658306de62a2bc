//! Test support shared by every command family: runs one command function
//! (with `--help` answered as the registry does) over a filesystem with in-memory streams, a fixed clock and seed, and an
//! [`Exec`] that records what it was asked to run instead of running it.

use std::io::Read;

use crate::clock::Clock;
use crate::commands::registry::Help;
use crate::commands::{Command, CommandCtx, CommandFn, Exec, ExecRequest, lookup};
use crate::control::RunControl;
use crate::fs::Fs;
use crate::limits::Limits;

/// The clock every test run sees: 2024-01-01T00:00:00Z.
pub const EPOCH: i64 = 1_704_067_200;

/// What a test run produced.
pub struct Out {
    /// Exit status.
    pub status: i32,
    /// Captured stdout.
    pub stdout: Vec<u8>,
    /// Captured stderr.
    pub stderr: Vec<u8>,
}

/// Prints `exec [argv] [env]` instead of running a command, so tests of
/// `env`, `timeout` or `xargs` can see what would have run.
struct EchoExec;

impl Exec for EchoExec {
    fn exec(&mut self, req: ExecRequest<'_>) -> i32 {
        let _ = writeln!(req.stdout, "exec {:?} {:?}", req.argv, req.env);
        0
    }
}

/// A fresh filesystem on the test clock.
pub fn new_fs() -> Fs {
    Fs::new(
        Limits::default().fs,
        Clock::fixed(EPOCH),
        crate::usr_bin_names(),
    )
}

/// The control block of a test run: default limits, test clock, seed 42.
pub fn control() -> RunControl {
    RunControl::new(Limits::default(), Clock::fixed(EPOCH), None, Some(42))
}

/// Runs `f` with argv `args` in `/workspace` reading `stdin`, under `control`.
pub fn run_cmd(
    fs: &Fs,
    f: CommandFn,
    args: &[&str],
    stdin: &mut dyn Read,
    control: &RunControl,
) -> Out {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let env = vec![
        (
            "PATH".to_string(),
            "/usr/local/bin:/usr/bin:/bin".to_string(),
        ),
        ("HOME".to_string(), "/workspace".to_string()),
        // The sandbox's locale: GNU's messages quote with ‘’ in it.
        ("LANG".to_string(), "C.UTF-8".to_string()),
    ];
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    // `--help` as the registry answers it for the command `args[0]` names.
    let command = Command {
        name: "",
        help: lookup(&args[0]).map_or(Help::Own, |c| c.help),
        run: f,
    };
    let status = command.call(&mut CommandCtx {
        args: &args,
        env: &env,
        cwd: "/workspace",
        fs,
        stdin,
        stdout: &mut stdout,
        stderr: &mut stderr,
        control,
        exec: &mut EchoExec,
    });
    Out {
        status,
        stdout,
        stderr,
    }
}
