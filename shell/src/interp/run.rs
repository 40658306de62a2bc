//! One run: build a fresh `bash -c` process over the sandbox's filesystem,
//! run the script, and assemble its [`RunOutput`].
//!
//! The environment is explicit (never the host's); output is collected up to
//! the output limit and streamed to the caller's sink; a tripped limit ends
//! the run with its status (124, or 141 for the output limit: never a
//! timeout's) and a message naming the limit on stderr.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::fd::{ByteSource, Collector, FdTable, Handle};
use super::keep::{Kept, ShellState};
use super::vars::{Attrs, Value, Vars};
use super::{Interp, Interrupt};
use crate::clock::Clock;
use crate::control::RunControl;
use crate::fs::{FileKind, Fs};
use crate::limits::LimitKind;
use crate::{RunOptions, RunOutput, Shell};

/// The sandbox's fixed environment (exported), before `RunOptions::env`.
const BASE_ENV: &[(&str, &str)] = &[
    ("PATH", "/usr/local/bin:/usr/bin:/bin"),
    ("HOME", "/workspace"),
    ("USER", "sandbox"),
    ("LOGNAME", "sandbox"),
    ("SHELL", "/bin/bash"),
    ("LANG", "C.UTF-8"),
    ("HOSTNAME", "sandbox"),
];

/// Shell variables every bash has (not exported).
const SHELL_VARS: &[(&str, &str)] = &[
    ("IFS", " \t\n"),
    ("PS4", "+ "),
    ("OPTIND", "1"),
    ("BASH", "/bin/bash"),
    ("BASH_VERSION", "5.2.15(1)-release"),
    ("HOSTTYPE", "x86_64"),
    ("OSTYPE", "linux-gnu"),
    ("MACHTYPE", "x86_64-pc-linux-gnu"),
    ("SHLVL", "1"),
];

/// `UID`, `EUID` and `PPID` are fixed and readonly in every shell; `$_`
/// starts as the shell's path (so `set -u` can read it at once); an unset
/// `SHELL` becomes the login shell.
pub(crate) fn set_identity(vars: &mut Vars) {
    for (k, v) in [("UID", "1000"), ("EUID", "1000"), ("PPID", "1")] {
        let var = vars.global_entry(k);
        var.value = Some(Value::Str(v.to_string()));
        var.attrs.insert(Attrs::READONLY);
    }
    if vars.get("_").is_none() {
        let _ = vars.set("_", Value::Str("/bin/bash".to_string()));
    }
    // A shell started without SHELL sets it (unexported) to the user's
    // login shell from the password database.
    if vars.get("SHELL").is_none() {
        let _ = vars.set("SHELL", Value::Str("/bin/bash".to_string()));
    }
}

/// What a limit prints when it ends the run.
/// `timeout` is the wall-clock limit in force for this run (which
/// `RunOptions::timeout` may set below or above the sandbox default).
fn limit_message(kind: LimitKind, control: &RunControl, timeout: Duration) -> String {
    let l = &control.limits;
    let detail = match kind {
        LimitKind::Timeout => format!("{:.1}s", timeout.as_secs_f64()),
        LimitKind::Commands => format!("{} commands", l.max_commands),
        LimitKind::LoopIterations => format!("{} iterations", l.max_loop_iterations),
        LimitKind::CallDepth => format!("depth {}", l.max_call_depth),
        LimitKind::Output => format!("{} bytes", l.max_output_bytes),
        LimitKind::Memory if control.memory().exceeded() => format!("{} bytes", l.max_memory_bytes),
        LimitKind::Memory => format!("{} bytes captured", l.fs.max_file_size),
        LimitKind::Processes => format!("{} processes", l.max_processes),
    };
    format!("bash: {kind} exceeded ({detail})\n")
}

impl Interp {
    /// A fresh top-level shell for one run.
    /// With `kept` (a session's state), the run starts from it: its
    /// variables, functions, aliases, options and directories, with the
    /// run's environment and identity set again on top.
    fn for_run(
        shell: &Shell,
        options: &RunOptions,
        control: Arc<RunControl>,
        fds: FdTable,
        kept: Option<Kept>,
    ) -> Interp {
        let (mut vars, funcs, aliases, opts, kept_cwd, dir_stack) = match kept {
            Some(k) => (k.vars, k.funcs, k.aliases, k.opts, Some(k.cwd), k.dir_stack),
            None => Default::default(),
        };
        let fresh = kept_cwd.is_none();
        let cwd = match (&options.cwd, kept_cwd) {
            (Some(c), _) => Fs::resolve("/workspace", c),
            (None, Some(c)) => c,
            (None, None) => "/workspace".to_string(),
        };
        if fresh {
            for (k, v) in BASE_ENV {
                let _ = vars.set(k, Value::Str((*v).to_string()));
            }
        }
        let _ = vars.set("PWD", Value::Str(cwd.clone()));
        for (k, v) in &options.env {
            let _ = vars.set(k, Value::Str(v.clone()));
        }
        if fresh {
            for name in vars.names() {
                if let Some(v) = vars.get_raw_mut(&name) {
                    v.attrs.insert(Attrs::EXPORT);
                }
            }
        } else {
            for (k, _) in &options.env {
                if let Some(v) = vars.get_raw_mut(k) {
                    v.attrs.insert(Attrs::EXPORT);
                }
            }
        }
        for (k, v) in SHELL_VARS {
            if vars.get(k).is_none() || (!fresh && matches!(*k, "BASH" | "SHLVL")) {
                let _ = vars.set(k, Value::Str((*v).to_string()));
            }
        }
        set_identity(&mut vars);
        let seed = control.seed.unwrap_or_else(|| {
            let t = Clock::real().now();
            (t.secs as u64) ^ ((t.nanos as u64) << 20)
        });
        Interp {
            fs: shell.fs().clone(),
            control,
            vars,
            funcs,
            aliases,
            opts,
            arg0: "bash".to_string(),
            positional: Vec::new(),
            cwd,
            last_status: 0,
            traps: HashMap::new(),
            call_stack: Vec::new(),
            call_lines: Vec::new(),
            line_base: 0,
            line_map: None,
            positional_sets: 0,
            dash_c: true,
            interactive: false,
            command_hash: Vec::new(),
            command_hash_path: String::new(),
            process_depth: 0,
            subshell_depth: 0,
            pid: super::expand::special::SHELL_PID,
            pending_signals: Default::default(),
            dir_stack,
            compound_words: Vec::new(),
            random_state: seed,
            lineno: 1,
            fds,
            errexit_quiet: 0,
            loop_depth: 0,
            script_name: None,
            registry: shell.registry().clone(),
            parse_cache: Default::default(),
            jobs: Default::default(),
            last_bg_pid: None,
            broken_pipe: false,
            write_error: None,
            stack_hops: 0,
            source_depth: 0,
            last_cmdsub_status: None,
            procsubs: Vec::new(),
            trap_depth: 0,
            in_debug_trap: false,
            in_err_trap: false,
            errexit_exempt: false,
            errexit_bang_off: 0,
            inherited_traps: Default::default(),
        }
    }
}

/// See [`super::run_script`].
pub(crate) fn run_script(shell: &Shell, script: &str, options: RunOptions) -> RunOutput {
    run_script_in(shell, script, options, None)
}

/// One run, from a session's `state` when given (left holding what the
/// run's top shell reached, whatever ended it).
pub(crate) fn run_script_in(
    shell: &Shell,
    script: &str,
    options: RunOptions,
    mut state: Option<&mut ShellState>,
) -> RunOutput {
    let limits = shell.config().limits.clone();
    let timeout = options.timeout.unwrap_or(limits.timeout);
    let deadline = Instant::now().checked_add(timeout);
    let seed = shell.config().deterministic.map(|d| d.seed);
    let control = Arc::new(RunControl::new(
        limits.clone(),
        shell.fs().clock(),
        deadline,
        seed,
    ));
    if let Some(cancel) = &options.cancel {
        cancel.attach(&control);
    }
    let out = Arc::new(Collector::new(
        false,
        limits.max_output_bytes,
        options.sink.clone(),
        control.clone(),
    ));
    let err = Arc::new(Collector::new(
        true,
        limits.max_output_bytes,
        options.sink.clone(),
        control.clone(),
    ));
    // Every allocation of the run, on this thread and the ones it starts,
    // is charged to the run's budget.
    let _charging = crate::alloc::charge_to(Some(control.memory().clone()));
    let _watching = crate::cancel::watch(Some(control.clone()));
    let mut fds = FdTable::default();
    fds.set(
        0,
        Some(Handle::Bytes(Arc::new(ByteSource::new(
            options.stdin.clone(),
        )))),
    );
    fds.set(1, Some(Handle::Out(out.clone())));
    fds.set(2, Some(Handle::Out(err.clone())));
    let kept = state.as_mut().and_then(|s| s.0.take()).map(|k| *k);
    let mut sh = Interp::for_run(shell, &options, control.clone(), fds, kept);
    if !matches!(shell.fs().metadata(&sh.cwd), Ok(m) if m.kind == FileKind::Dir) {
        let msg = format!("bash: line 0: cd: {}: No such file or directory\n", sh.cwd);
        err.write_forced(msg.as_bytes());
        sh.cwd = "/workspace".to_string();
    }
    let r = sh.run_source(script);
    let mut status = match r {
        Ok(s) => s,
        Err(Interrupt::Exit(s)) | Err(Interrupt::Return(s)) | Err(Interrupt::Discard(s)) => s,
        Err(Interrupt::Break(_)) | Err(Interrupt::Continue(_)) => sh.last_status,
        Err(Interrupt::Limit(_)) => 124,
    };
    // A builtin of this shell wrote to a closed pipe (the caller's stdout
    // went away): bash dies of SIGPIPE there, with no EXIT trap.
    let killed_by_sigpipe = sh.broken_pipe;
    if killed_by_sigpipe {
        status = 141;
    }
    sh.last_status = status;
    if control.tripped().is_none() && !killed_by_sigpipe {
        let _ = sh.run_exit_trap();
        status = sh.last_status;
    }
    if let Some(state) = state {
        state.0 = Some(Box::new(Kept::take_from(&mut sh)));
    }
    drop(sh);
    let limit = control.tripped();
    if let Some(kind) = limit {
        status = kind.exit_status();
        if kind == LimitKind::Output {
            let marker = format!(
                "[output truncated: output limit of {} bytes reached]\n",
                limits.max_output_bytes
            );
            err.write_forced(marker.as_bytes());
        }
        err.write_forced(limit_message(kind, &control, timeout).as_bytes());
    }
    RunOutput {
        exit_code: status & 0xff,
        stdout: out.take(),
        stderr: err.take(),
        truncated: out.truncated() || err.truncated(),
        limit,
    }
}
