//! `node` (and `nodejs`) for sandkeep's local sandbox: a JavaScript engine
//! in-process (QuickJS through `rquickjs`) with the Node.js surface agents
//! use in one-liners and small scripts: `-e`, `-p`, a script with
//! arguments, `console` with `util.inspect` formatting, `process`,
//! `require` and `import` of the sandbox's files, `fs` (sync, callback
//! and promise APIs) and `path` over the virtual filesystem, timers and
//! async/await, an uncaught error on stderr with status 1.
//!
//! Most of that surface is JavaScript ([`PRELUDE`], `prelude.js`) over a
//! small bridge to the sandbox ([`host`]). What the sandbox cannot offer
//! (`child_process`, `net`, `http`, ...) fails with an error naming the
//! limit. A busy loop stops at the run's deadline (QuickJS's interrupt
//! handler checks the run), a growing structure at the run's memory
//! budget (the runtime's memory limit, and QuickJS allocating through the
//! metered Rust allocator).
//!
//! ```
//! use sandkeep_shell::{RunOptions, Shell, ShellConfig};
//! let shell = Shell::new(sandkeep_node::install(ShellConfig::default()));
//! let out = shell.run("node -e 'console.log([1, \"a\"], {b: 2})'", RunOptions::default());
//! assert_eq!(String::from_utf8_lossy(&out.stdout), "[ 1, 'a' ] { b: 2 }\n");
//! ```

pub mod host;
pub mod modules;
pub mod options;

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::{Duration, Instant};

use rquickjs::{
    CatchResultExt, CaughtError, Context, Ctx, Function, Module, Object, Runtime, Value,
};
use sandkeep_shell::{CommandCtx, LimitKind, RunControl, ShellConfig};

use host::HostState;
use options::{Invocation, Source, UsageError};

/// The Node.js version the surface follows (scripts check it).
pub const NODE_VERSION: &str = "v20.20.2";

/// The JavaScript half of the Node surface.
pub const PRELUDE: &str = include_str!("prelude.js");

/// Where `process.execPath` says node lives.
const EXEC_PATH: &str = "/usr/bin/node";

/// Native stack QuickJS may use before `RangeError: Maximum call stack
/// size exceeded` (the command's thread has more than this).
const MAX_STACK: usize = 1 << 20;

/// Adds `node` and `nodejs` to a shell configuration, and `npm`/`npx`
/// that say why they cannot work here.
pub fn install(config: ShellConfig) -> ShellConfig {
    config
        .command("node", node)
        .command("nodejs", node)
        .command("npm", package_manager)
        .command("npx", package_manager)
}

/// `npm` and `npx`: refused with the reason (no registry, no network, no
/// host processes), status 1. Local scripts still run with `node FILE`.
pub fn package_manager(ctx: &mut CommandCtx<'_>) -> i32 {
    let _ = writeln!(
        ctx.stderr,
        "{}: not available in the local sandbox (it has no network and no package registry); \
         run local scripts with `node FILE`, or use the docker backend for packages",
        ctx.args[0]
    );
    1
}

/// The `node` command.
pub fn node(ctx: &mut CommandCtx<'_>) -> i32 {
    let args = ctx.args.get(1..).unwrap_or_default().to_vec();
    match options::parse(&args) {
        Err(e @ UsageError::BadOption(_)) => {
            let _ = writeln!(ctx.stderr, "{}: {e}", ctx.args[0]);
            9
        }
        Err(e) => {
            let _ = writeln!(ctx.stderr, "{}: {e}", ctx.args[0]);
            9
        }
        Ok(Invocation::Version) => {
            let _ = writeln!(ctx.stdout, "{NODE_VERSION}");
            0
        }
        Ok(Invocation::Help) => {
            let _ = ctx.stdout.write_all(options::help().as_bytes());
            0
        }
        Ok(Invocation::Run {
            source,
            module,
            check_only,
            preload,
            args,
            dash,
        }) => {
            let program = match load_program(ctx, &source) {
                Ok(p) => p,
                Err(status) => return status,
            };
            let mut argv = vec![EXEC_PATH.to_string()];
            match &source {
                Source::File(_) => argv.push(program.filename.clone()),
                Source::Stdin if dash => argv.push("-".into()),
                _ => {}
            }
            argv.extend(args);
            run(ctx, program, module, check_only, &preload, argv)
        }
    }
}

/// The program to run.
struct Program {
    code: String,
    /// An absolute path, `[eval]` or `[stdin]`.
    filename: String,
    print: bool,
    from_file: bool,
}

fn load_program(ctx: &mut CommandCtx<'_>, source: &Source) -> Result<Program, i32> {
    Ok(match source {
        Source::Eval { code, print } => Program {
            code: code.clone(),
            filename: "[eval]".into(),
            print: *print,
            from_file: false,
        },
        Source::Stdin => {
            let mut buf = Vec::new();
            let _ = ctx.stdin.read_to_end(&mut buf);
            Program {
                code: String::from_utf8_lossy(&buf).into_owned(),
                filename: "[stdin]".into(),
                print: false,
                from_file: false,
            }
        }
        Source::File(f) => {
            let path = ctx.path(f);
            let found = modules_resolve_main(ctx, &path);
            match found.and_then(|p| ctx.fs.read(&p).ok().map(|d| (p, d))) {
                Some((p, data)) => Program {
                    code: String::from_utf8_lossy(&data).into_owned(),
                    filename: p,
                    print: false,
                    from_file: true,
                },
                None => {
                    let _ = writeln!(
                        ctx.stderr,
                        "node:internal/modules/cjs/loader:1080\n  throw err;\n  ^\n\nError: Cannot find module '{path}'\n    at Module._resolveFilename (node:internal/modules/cjs/loader:1077:15)\n    at node:internal/main/run_main_module:23:47 {{\n  code: 'MODULE_NOT_FOUND',\n  requireStack: []\n}}\n\nNode.js {NODE_VERSION}"
                    );
                    return Err(1);
                }
            }
        }
    })
}

/// The entry script's file: as named, else with `.js`/`.mjs`/`.cjs` added.
fn modules_resolve_main(ctx: &CommandCtx<'_>, path: &str) -> Option<String> {
    let is_file = |p: &str| {
        ctx.fs
            .metadata(p)
            .is_ok_and(|m| m.kind == sandkeep_shell::FileKind::File)
    };
    if is_file(path) {
        return Some(path.to_string());
    }
    [".js", ".mjs", ".cjs"]
        .iter()
        .map(|e| format!("{path}{e}"))
        .find(|p| is_file(p))
}

/// Whether the program may read stdin (read up front, before it runs: the
/// engine cannot block on the command's stream from inside JavaScript).
fn wants_stdin(code: &str) -> bool {
    [
        "stdin",
        "readFileSync(0",
        "readFile(0",
        "/dev/stdin",
        "readline",
    ]
    .iter()
    .any(|w| code.contains(w))
}

/// How the run ended.
enum End {
    /// Normally, or by `process.exit`.
    Exit(i32),
    /// An uncaught error (already reported).
    Failed,
    /// A limit of the run.
    Limit(LimitKind),
}

fn run(
    ctx: &mut CommandCtx<'_>,
    program: Program,
    module_flag: bool,
    check_only: bool,
    preload: &[String],
    argv: Vec<String>,
) -> i32 {
    let stdin = if program.filename != "[stdin]" && wants_stdin(&program.code) {
        let mut buf = Vec::new();
        let _ = ctx.stdin.read_to_end(&mut buf);
        buf
    } else {
        Vec::new()
    };
    let seed = ctx.control.seed.unwrap_or_else(|| {
        let t = ctx.control.clock.now();
        (t.secs as u64).wrapping_mul(1_000_003) ^ u64::from(t.nanos)
    });
    let state = Rc::new(HostState {
        fs: ctx.fs.clone(),
        cwd: ctx.cwd.to_string(),
        out: RefCell::new(Vec::new()),
        exit: Cell::new(None),
        exit_code: Cell::new(0),
        stdin: RefCell::new(stdin),
        clock: ctx.control.clock,
        rng: Cell::new(seed),
        started: Instant::now(),
        max_held: ctx.control.limits.max_output_bytes.saturating_add(1 << 16),
        overflow: Cell::new(false),
    });
    let rt = match Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            let _ = writeln!(ctx.stderr, "node: the embedded engine could not start: {e}");
            return 1;
        }
    };
    let account = ctx.control.memory();
    let left = account
        .limit()
        .saturating_sub(u64::try_from(account.used()).unwrap_or(0));
    rt.set_memory_limit(usize::try_from(left).unwrap_or(usize::MAX).max(8 << 20));
    rt.set_max_stack_size(MAX_STACK);
    // The interrupt handler gets the run's control block by address: the
    // runtime is dropped before this function returns, so the block
    // outlives every call.
    let control_addr = ctx.control as *const RunControl as usize;
    let exit_state = state.clone();
    rt.set_interrupt_handler(Some(Box::new(move || {
        // SAFETY: see above; RunControl is Sync and only read here.
        let control = unsafe { &*(control_addr as *const RunControl) };
        exit_state.exit.get().is_some()
            || exit_state.overflow.get()
            || control.check_fast().is_err()
    })));
    rt.set_loader(
        modules::VfsResolver {
            fs: ctx.fs.clone(),
            cwd: ctx.cwd.to_string(),
        },
        modules::VfsLoader { fs: ctx.fs.clone() },
    );
    let context = match Context::full(&rt) {
        Ok(c) => c,
        Err(e) => {
            let _ = writeln!(ctx.stderr, "node: the embedded engine could not start: {e}");
            return 1;
        }
    };
    let rejections: Rc<RefCell<Vec<String>>> = Rc::default();
    {
        let rej = rejections.clone();
        rt.set_host_promise_rejection_tracker(Some(Box::new(
            move |c, promise, reason, handled| {
                let _ = (promise, &c);
                let text = describe(&c, &reason);
                let mut r = rej.borrow_mut();
                if handled {
                    // A handler came later: forget the matching report.
                    if let Some(i) = r.iter().position(|t| *t == text) {
                        r.remove(i);
                    }
                } else {
                    r.push(text);
                }
            },
        )));
    }
    let env: Vec<(String, String)> = ctx.env.to_vec();
    let end = context.with(|jsctx| {
        if let Err(e) = boot(&jsctx, &state, &env, &argv) {
            let _ = writeln!(ctx.stderr, "node: the embedded prelude failed: {e}");
            return End::Exit(1);
        }
        for m in preload {
            let r: rquickjs::Result<()> = (|| {
                let h: Object = jsctx.globals().get("__sk_host")?;
                let f: Function = h.get("requireFile")?;
                let path = sandkeep_shell::Fs::resolve(ctx.cwd, m);
                f.call::<_, Value>((path,))?;
                Ok(())
            })();
            if let Err(e) = r.catch(&jsctx) {
                return report(ctx, &state, &jsctx, e, &program);
            }
        }
        let is_module = module_flag
            || program.filename.ends_with(".mjs")
            || (program.from_file
                && program.filename.ends_with(".js")
                && package_is_module(&jsctx, &program.filename, &program.code));
        if check_only {
            let r = if is_module {
                Module::declare(
                    jsctx.clone(),
                    program.filename.as_str(),
                    program.code.clone(),
                )
                .map(|_| ())
            } else {
                let wrapped = format!("(function () {{{}\n}})", program.code);
                host::eval_script(&jsctx, wrapped, program.filename.clone()).map(|_| ())
            };
            return match r.catch(&jsctx) {
                Ok(()) => End::Exit(0),
                Err(e) => report(ctx, &state, &jsctx, e, &program),
            };
        }
        let started = if is_module {
            start_module(&jsctx, &state, &program).map(|_| ())
        } else {
            start_script(&jsctx, &state, &program)
        };
        flush(ctx, &state);
        if let Err(e) = started.catch(&jsctx) {
            return report(ctx, &state, &jsctx, e, &program);
        }
        event_loop(ctx, &state, &jsctx, &program, &rejections)
    });
    flush(ctx, &state);
    let status = match end {
        End::Exit(code) => code,
        End::Failed => 1,
        End::Limit(kind) => {
            let _ = writeln!(ctx.stderr, "node: stopped: {kind} reached");
            kind.exit_status()
        }
    };
    drop(context);
    drop(rt);
    status
}

/// Runs the prelude: the Node globals and modules.
fn boot<'js>(
    ctx: &Ctx<'js>,
    state: &Rc<HostState>,
    env: &[(String, String)],
    argv: &[String],
) -> rquickjs::Result<()> {
    let sk = host::bridge(ctx, state)?;
    let boot = Object::new(ctx.clone())?;
    boot.set("argv", argv.to_vec())?;
    let env_obj = Object::new(ctx.clone())?;
    for (k, v) in env {
        env_obj.set(k.as_str(), v.as_str())?;
    }
    boot.set("env", env_obj)?;
    boot.set("cwd", state.cwd.as_str())?;
    boot.set("execPath", EXEC_PATH)?;
    boot.set("version", NODE_VERSION)?;
    boot.set("engine", "quickjs-ng (rquickjs 0.14)")?;
    let f: Function =
        host::eval_script(ctx, PRELUDE.to_string(), "node:internal/sandkeep".into())?.get()?;
    f.call::<_, ()>((sk, boot))
}

fn package_is_module(ctx: &Ctx<'_>, filename: &str, code: &str) -> bool {
    let r: rquickjs::Result<String> = (|| {
        let h: Object = ctx.globals().get("__sk_host")?;
        let f: Function = h.get("packageType")?;
        let dir = filename.rsplit_once('/').map(|(d, _)| d).unwrap_or("/");
        f.call((if dir.is_empty() { "/" } else { dir }, code))
    })();
    r.is_ok_and(|t| t == "module")
}

fn start_script<'js>(ctx: &Ctx<'js>, state: &HostState, program: &Program) -> rquickjs::Result<()> {
    let h: Object = ctx.globals().get("__sk_host")?;
    let run_main: Function = h.get("runMain")?;
    let kind = if program.from_file { "cjs" } else { "eval" };
    let value: Value = run_main.call((kind, program.code.as_str(), program.filename.as_str()))?;
    if program.print {
        let log_text: Function = h.get("logText")?;
        let text: String = log_text.call((value,))?;
        state.push(1, text.as_bytes());
        state.push(1, b"\n");
    }
    Ok(())
}

fn start_module<'js>(ctx: &Ctx<'js>, state: &HostState, program: &Program) -> rquickjs::Result<()> {
    // Relative imports of `-e`/stdin code resolve from the working directory.
    let name = if program.from_file {
        program.filename.clone()
    } else {
        format!("{}/{}", state.cwd.trim_end_matches('/'), program.filename)
    };
    let m = Module::declare(ctx.clone(), name.as_str(), program.code.clone())?;
    if program.from_file {
        modules::set_meta(&m, &name)?;
    }
    let (_m, promise) = m.eval()?;
    ctx.globals().set("__sk_main_promise", promise)?;
    Ok(())
}

/// Writes the program's pending output to the command's streams.
fn flush(ctx: &mut CommandCtx<'_>, state: &HostState) {
    let chunks = std::mem::take(&mut *state.out.borrow_mut());
    for (fd, bytes) in chunks {
        if fd == 2 {
            let _ = ctx.stderr.write_all(&bytes);
        } else {
            // Flushed chunk by chunk, so stdout and stderr keep their order.
            let _ = ctx.stdout.write_all(&bytes);
            let _ = ctx.stdout.flush();
        }
    }
}

/// Microtasks, then timers in due order, until nothing is left to do.
fn event_loop<'js>(
    ctx: &mut CommandCtx<'_>,
    state: &Rc<HostState>,
    js: &Ctx<'js>,
    program: &Program,
    rejections: &Rc<RefCell<Vec<String>>>,
) -> End {
    let step = |js: &Ctx<'js>, name: &str| -> rquickjs::Result<f64> {
        let h: Object = js.globals().get("__sk_host")?;
        let timers: Object = h.get("timers")?;
        let f: Function = timers.get(name)?;
        if name == "next" {
            f.call(())
        } else {
            f.call::<_, ()>(()).map(|_| 0.0)
        }
    };
    let run_ticks = |js: &Ctx<'js>| -> rquickjs::Result<bool> {
        let h: Object = js.globals().get("__sk_host")?;
        let f: Function = h.get("runTicks")?;
        f.call(())
    };
    loop {
        // process.nextTick callbacks before each promise job, as in Node.
        loop {
            if let Err(e) = run_ticks(js).catch(js) {
                return report(ctx, state, js, e, program);
            }
            if state.exit.get().is_some() || !js.execute_pending_job() {
                break;
            }
        }
        flush(ctx, state);
        if let Some(code) = state.exit.get() {
            return End::Exit(code);
        }
        if let Some(kind) = ctx.control.tripped() {
            return End::Limit(kind);
        }
        // A module whose evaluation failed.
        if let Ok(p) = js
            .globals()
            .get::<_, rquickjs::Promise>("__sk_main_promise")
            && let Some(Err(e)) = p.result::<Value>()
        {
            let _ = js.globals().remove("__sk_main_promise");
            let caught = CaughtError::from_error(js, e);
            return report(ctx, state, js, caught, program);
        }
        let first = rejections.borrow_mut().drain(..).next();
        if let Some(text) = first {
            let location = source_location(&text, program);
            let _ = writeln!(ctx.stderr, "{location}{text}\n\nNode.js {NODE_VERSION}");
            return End::Failed;
        }
        let next = match step(js, "next").catch(js) {
            Ok(n) => n,
            Err(e) => return report(ctx, state, js, e, program),
        };
        if next < 0.0 {
            break;
        }
        if next > 0.0 && !sleep(ctx.control, Duration::from_secs_f64(next / 1000.0)) {
            return End::Limit(ctx.control.tripped().unwrap_or(LimitKind::Timeout));
        }
        if let Err(e) = step(js, "fire").catch(js) {
            return report(ctx, state, js, e, program);
        }
    }
    // The 'exit' event, then the status.
    let code = state.exit_code.get();
    let r: rquickjs::Result<()> = (|| {
        let h: Object = js.globals().get("__sk_host")?;
        let f: Function = h.get("emitExit")?;
        f.call::<_, ()>((code,))
    })();
    flush(ctx, state);
    if let Some(code) = state.exit.get() {
        return End::Exit(code);
    }
    if let Err(e) = r.catch(js) {
        return report(ctx, state, js, e, program);
    }
    End::Exit(state.exit_code.get())
}

/// Waits `d` (a timer's delay), waking to check the run's limits; false
/// when a limit ended the run meanwhile.
fn sleep(control: &RunControl, d: Duration) -> bool {
    let until = Instant::now() + d;
    loop {
        if control.check().is_err() {
            return false;
        }
        let now = Instant::now();
        if now >= until {
            return true;
        }
        std::thread::sleep((until - now).min(Duration::from_millis(20)));
    }
}

/// A thrown value as Node prints an uncaught one.
fn describe<'js>(ctx: &Ctx<'js>, v: &Value<'js>) -> String {
    let r: rquickjs::Result<String> = (|| {
        let h: Object = ctx.globals().get("__sk_host")?;
        if v.as_object().is_some_and(|o| o.is_error()) {
            let f: Function = h.get("errorText")?;
            return f.call((v.clone(),));
        }
        let f: Function = h.get("inspect")?;
        let s: String = f.call((v.clone(),))?;
        Ok(format!("Uncaught {s}"))
    })();
    r.unwrap_or_else(|_| "Uncaught exception".into())
}

/// Reports an uncaught error (or the limit / exit behind it).
fn report<'js>(
    ctx: &mut CommandCtx<'_>,
    state: &HostState,
    js: &Ctx<'js>,
    e: CaughtError<'js>,
    program: &Program,
) -> End {
    flush(ctx, state);
    if let Some(code) = state.exit.get() {
        return End::Exit(code);
    }
    if let Some(kind) = ctx.control.tripped() {
        return End::Limit(kind);
    }
    if state.overflow.get() {
        // More output than the run may write: the shell has cut it.
        return End::Limit(ctx.control.tripped().unwrap_or(LimitKind::Output));
    }
    let text = match &e {
        CaughtError::Exception(ex) => {
            let v = ex.clone().into_value();
            if ex.message().is_some_and(|m| m.contains("out of memory")) {
                ctx.control.trip(LimitKind::Memory);
                let _ = writeln!(
                    ctx.stderr,
                    "FATAL ERROR: JavaScript heap out of memory (the run's memory limit, {} bytes)",
                    ctx.control.memory().limit()
                );
                return End::Limit(LimitKind::Memory);
            }
            describe(js, &v)
        }
        CaughtError::Value(v) => describe(js, v),
        CaughtError::Error(err) => format!("Error: {err}"),
    };
    let location = source_location(&text, program);
    let _ = writeln!(ctx.stderr, "{location}{text}\n\nNode.js {NODE_VERSION}");
    End::Failed
}

/// `FILE:LINE\nsource line\n^\n\n` for the error's first frame in the
/// program, as Node starts an uncaught error's report.
fn source_location(text: &str, program: &Program) -> String {
    let name = &program.filename;
    let Some(at) = text.find(&format!("{name}:")) else {
        return String::new();
    };
    let rest = &text[at + name.len() + 1..];
    let line: usize = rest
        .chars()
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .unwrap_or(0);
    let Some(src) = program.code.lines().nth(line.saturating_sub(1)) else {
        return String::new();
    };
    format!("{name}:{line}\n{src}\n^\n\n")
}
