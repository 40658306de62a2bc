//! Our side of a comparison: a script run by a [`Shell`] (a panic becomes an
//! [`Outcome`] with status -1, so one bad case does not hide the others), or
//! one registry command called directly over an [`Fs`].

use std::panic::AssertUnwindSafe;
use std::time::Duration;

use sandkeep_shell::{CommandCtx, Exec, ExecRequest, testing as commands};
use sandkeep_shell::{Determinism, Fs, RunControl, RunOptions, RunOutput, Shell, ShellConfig};

use super::Outcome;

/// How long one script may run in our shell.
pub const TIMEOUT: Duration = Duration::from_secs(20);

/// A shell with the configuration the differential suites compare with bash.
pub fn shell() -> Shell {
    Shell::new(ShellConfig::default())
}

/// A shell with the deterministic clock and random source of
/// [`Determinism::default`].
pub fn deterministic_shell() -> Shell {
    Shell::new(ShellConfig {
        deterministic: Some(Determinism::default()),
        ..ShellConfig::default()
    })
}

/// Runs `script` in `shell` with the default [`RunOptions`] (the shell's own
/// limits) and returns its [`RunOutput`] as it is, limit and flags included;
/// a panic is not caught.
pub fn run_raw(shell: &Shell, script: &str) -> RunOutput {
    shell.run(script, RunOptions::default())
}

/// Runs `script` in a fresh [`shell`].
pub fn run_fresh(script: &str) -> Outcome {
    run_fresh_with(script, &[])
}

/// Runs `script` in a fresh [`shell`], with `env` on top of the sandbox's
/// environment.
pub fn run_fresh_with(script: &str, env: &[(&str, &str)]) -> Outcome {
    catch(|| shell().run(script, options(env)))
}

/// Runs `script` in `shell` (which a test may have filled with files), with
/// `env` on top of the sandbox's environment.
pub fn run_script(shell: &Shell, script: &str, env: &[(&str, &str)]) -> Outcome {
    catch(|| shell.run(script, options(env)))
}

fn options(env: &[(&str, &str)]) -> RunOptions {
    RunOptions {
        env: env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        timeout: Some(TIMEOUT),
        ..RunOptions::default()
    }
}

/// Runs `f`, turning a panic into status -1 and `PANIC: message` on stderr.
fn catch(f: impl FnOnce() -> RunOutput) -> Outcome {
    match std::panic::catch_unwind(AssertUnwindSafe(f)) {
        Ok(out) => Outcome {
            status: out.exit_code,
            stdout: out.stdout,
            stderr: out.stderr,
        },
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Outcome {
                status: -1,
                stdout: Vec::new(),
                stderr: format!("PANIC: {msg}").into_bytes(),
            }
        }
    }
}

/// The [`Exec`] of a command called on its own: there is no interpreter to
/// run another program, so every attempt is "not found".
pub struct NoExec;

impl Exec for NoExec {
    fn exec(&mut self, _req: ExecRequest<'_>) -> i32 {
        127
    }
}

/// One direct call of a registry command: `args[0]` names it.
pub struct Call<'a> {
    /// The command and its arguments.
    pub args: &'a [String],
    /// The environment the command sees.
    pub env: &'a [(String, String)],
    /// The working directory.
    pub cwd: &'a str,
    /// What the command reads on stdin.
    pub stdin: &'a [u8],
}

impl<'a> Call<'a> {
    /// `args` in `/workspace`, no environment, empty stdin.
    pub fn new(args: &'a [String]) -> Call<'a> {
        Call {
            args,
            env: &[],
            cwd: "/workspace",
            stdin: b"",
        }
    }
}

/// Calls the registry command `call.args[0]` over `fs` under `control`.
pub fn call(fs: &Fs, control: &RunControl, call: Call) -> Outcome {
    let Some(f) = commands::lookup(&call.args[0]) else {
        panic!("no command {}", call.args[0]);
    };
    let mut input = call.stdin;
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    let mut exec = NoExec;
    let status = f.call(&mut CommandCtx {
        args: call.args,
        env: call.env,
        cwd: call.cwd,
        fs,
        stdin: &mut input,
        stdout: &mut stdout,
        stderr: &mut stderr,
        control,
        exec: &mut exec,
    });
    Outcome {
        status,
        stdout,
        stderr,
    }
}

/// `words` as owned arguments.
pub fn args(words: &[&str]) -> Vec<String> {
    words.iter().map(|s| s.to_string()).collect()
}
