//! `python3` (and `python`) for sandkeep's local sandbox: an embedded,
//! pure-Rust Python (pydantic's `monty` interpreter) whose every reach
//! outside the interpreter (files, directories, environment, stdin, the
//! clock) is served from the sandbox by [`host::Host`], never the host
//! machine.
//!
//! Monty implements a subset of Python 3.14: no class inheritance, no
//! generators (`yield`), no method decorators, a handful of native modules
//! (`json`, `re`, `math`, `collections`, `dataclasses`, `pathlib`, ...). The
//! prelude (`prelude.py`) adds Python-level shims for what agents use most
//! (`sys.argv/stdin/exit`, `os`/`os.path`/`os.walk`, `open` with line
//! iteration, `csv`, `statistics`, `string`, `textwrap`, ...); user imports
//! are rewritten to them by [`imports`]. What is still missing fails with a
//! message that names the limit.
//!
//! ```
//! use sandkeep_shell::{RunOptions, Shell, ShellConfig};
//! let shell = Shell::new(sandkeep_python::install(ShellConfig::default()));
//! let out = shell.run("python3 -c 'import sys; print(sum(range(5)), sys.argv)' a", RunOptions::default());
//! assert_eq!(String::from_utf8_lossy(&out.stdout), "10 ['-c', 'a']\n");
//! ```

pub mod cli;
pub mod host;
pub mod imports;
mod re_scan;

use std::borrow::Cow;
use std::io::Write;

use std::sync::OnceLock;

use monty::{Dump, MontyRepl, ReplProgress, ReplStartError, Session, SessionRef};
use monty_types::{
    CompileOptions, ExcType, ExtFunctionResult, MontyException, MontyObject, NameLookupResult,
    PrintWriter, PrintWriterCallback, ResourceLimits, ResourceTracker, StackFrame, StringRepr,
};
use sandkeep_shell::CommandCtx;
use sandkeep_shell::{LimitKind, RunControl, ShellConfig};

use cli::{Invocation, Source, UsageError};
use host::{Host, Stop};

/// The text `python3 --version` prints.
pub const VERSION: &str = "Python 3.14.0 (embedded monty 0.0.23, standard-library subset)";

/// The prelude: Python-level shims for the modules the interpreter lacks.
const PRELUDE: &str = include_str!("prelude.py");

/// The script name the prelude's session is created with.
const PRELUDE_NAME: &str = "<prelude>";

/// Shims fed only to a run whose program imports them (`_sk_NAME` appears
/// in the rewritten source), so that the prelude's snapshot, restored by
/// every run, stays small and start-up fast.
const LAZY: &[(&str, &str)] = &[
    ("argparse", include_str!("shims/argparse.py")),
    ("hashlib", include_str!("shims/hashlib.py")),
    ("dataclasses", include_str!("shims/dataclasses.py")),
    ("re", include_str!("shims/re.py")),
];

/// The program `python3 -m json.tool` runs.
const JSON_TOOL: &str = include_str!("json_tool.py");

/// Nesting of Python calls allowed; deeper recursion raises `RecursionError`
/// (CPython's default limit is 1000 as well).
const MAX_RECURSION: usize = 1000;

/// The largest single allocation a program may ask for (`"a" * 10**12`
/// gets `MemoryError` instead of aborting the host process); less when
/// less is left of the run's memory budget. Monty checks such sizes up
/// front. A program that grows a structure step by step is stopped at the
/// interpreter's periodic checkpoint once the run's memory account (kept by
/// `sandkeep_shell::MeteredAlloc` when the binary installs it) is
/// over its budget.
pub const MAX_ALLOCATION: usize = 512 << 20;

/// Adds `python3` and `python` to a shell configuration.
///
/// ```
/// let config = sandkeep_python::install(sandkeep_shell::ShellConfig::default());
/// # let _ = config;
/// ```
pub fn install(config: ShellConfig) -> ShellConfig {
    config
        .command("python3", python3)
        .command("python", python3)
}

/// The `python3` command: runs `-c CODE`, `-m json.tool`, a script file from
/// the virtual filesystem, or a script on stdin; returns the exit status
/// (`sys.exit(n)`'s `n`, 1 for an uncaught exception, 2 for a usage error).
pub fn python3(ctx: &mut CommandCtx<'_>) -> i32 {
    let args = ctx.args.get(1..).unwrap_or_default().to_vec();
    let invocation = match cli::parse(&args) {
        Ok(i) => i,
        Err(e) => return usage_error(ctx, &e),
    };
    let (source, argv) = match invocation {
        Invocation::Version => {
            let _ = writeln!(ctx.stdout, "{VERSION}");
            return 0;
        }
        Invocation::Help => {
            let _ = ctx.stdout.write_all(HELP.as_bytes());
            return 0;
        }
        Invocation::Run { source, argv } => (source, argv),
    };
    let mut host = Host::new(ctx);
    let (code, script_name, argv) = match source {
        Source::Code(code) => (code, "<string>".to_string(), argv),
        Source::Stdin => {
            let mut buf = Vec::new();
            let _ = ctx.stdin.read_to_end(&mut buf);
            host.set_stdin(String::new());
            (
                String::from_utf8_lossy(&buf).into_owned(),
                "<stdin>".to_string(),
                argv,
            )
        }
        Source::File(path) => match ctx.fs.read(&ctx.path(&path)) {
            // CPython names the script by its absolute path in tracebacks.
            Ok(data) => (
                String::from_utf8_lossy(&data).into_owned(),
                ctx.path(&path),
                argv,
            ),
            Err(e) => {
                let abs = ctx.path(&path);
                let _ = writeln!(
                    ctx.stderr,
                    "{}: can't open file '{abs}': [Errno 2] {e}",
                    ctx.args[0]
                );
                return 2;
            }
        },
        Source::Module(m) if m == "json.tool" => {
            let mut argv = argv;
            argv[0] = "/usr/lib/python3/json/tool.py".to_string();
            (JSON_TOOL.to_string(), "json.tool".to_string(), argv)
        }
        Source::Module(m) => {
            let _ = writeln!(
                ctx.stderr,
                "{}: {}",
                ctx.args[0],
                host::refusal(&m).replace("module", "-m module")
            );
            return 1;
        }
    };
    run(ctx, &mut host, &code, &script_name, argv)
}

const HELP: &str = "usage: python3 [option] ... [-c cmd | -m mod | file | -] [arg] ...\n\
Embedded Python (monty) of the sandkeep local sandbox.\n\
-c cmd : program passed in as string\n\
-m mod : run library module as a script (json.tool only)\n\
-V     : print the Python version number and exit\n\
-u, -B, -E, -s, -S, -I, -O, -q : accepted, no effect here\n\
file   : program read from script file in the sandbox\n\
-      : program read from stdin (default when no file is given)\n";

fn usage_error(ctx: &mut CommandCtx<'_>, e: &UsageError) -> i32 {
    let _ = writeln!(ctx.stderr, "{e}");
    let _ = writeln!(
        ctx.stderr,
        "usage: {} [option] ... [-c cmd | -m mod | file | -] [arg] ...",
        ctx.args[0]
    );
    let _ = writeln!(ctx.stderr, "Try `python -h' for more information.");
    2
}

/// How a run ended.
enum Ended {
    /// The program finished.
    Done,
    /// An exception nobody caught (SystemExit included).
    Raised(MontyException),
}

/// stdout of a run: print() output is gathered here and written to the
/// command's stdout in chunks; the periodic `poll_flush` of the interpreter
/// is where the run's deadline and cancellation are enforced.
struct Out<'a> {
    buf: &'a mut Vec<u8>,
    sink: &'a mut dyn Write,
    control: &'a sandkeep_shell::RunControl,
}

impl Out<'_> {
    fn spill(&mut self) -> Result<(), MontyException> {
        if self.buf.len() >= 8192 {
            let _ = self.sink.write_all(self.buf);
            self.buf.clear();
        }
        Ok(())
    }
}

impl PrintWriterCallback for Out<'_> {
    fn stdout_write(&mut self, output: Cow<'_, str>) -> Result<(), MontyException> {
        self.buf.extend_from_slice(output.as_bytes());
        self.spill()
    }

    fn stdout_push(&mut self, end: char) -> Result<(), MontyException> {
        let mut b = [0u8; 4];
        self.buf
            .extend_from_slice(end.encode_utf8(&mut b).as_bytes());
        self.spill()
    }

    /// Every 255 instructions: the run's deadline, cancellation and memory
    /// budget (the sandkeep binary's allocator charges the run for every
    /// allocation the interpreter makes).
    fn poll_flush(&mut self) -> Result<(), MontyException> {
        self.control
            .check()
            .map_err(|kind| limit_exception(self.control, kind))
    }
}

/// What Python code is told when the run hits limit `kind`: `MemoryError`
/// for the memory budget, `TimeoutError` for the rest.
pub(crate) fn limit_exception(control: &RunControl, kind: LimitKind) -> MontyException {
    match kind {
        LimitKind::Memory => {
            MontyException::new(ExcType::MemoryError, Some(memory_message(control)))
        }
        kind => MontyException::new(
            ExcType::TimeoutError,
            Some(format!("the run was stopped: {kind} reached")),
        ),
    }
}

/// What a program that outgrew the run's memory budget is told.
fn memory_message(control: &RunControl) -> String {
    format!(
        "the run's memory limit was exceeded ({} bytes)",
        control.memory().limit()
    )
}

/// The interpreter's limits for one run: the time left before the run's
/// deadline, and the largest single allocation: [`MAX_ALLOCATION`] or what
/// is left of the run's memory budget, whichever is less (monty checks a
/// size it knows up front, `"a" * n`, before allocating).
fn limits_for(control: &RunControl) -> ResourceLimits {
    let account = control.memory();
    let left = account
        .limit()
        .saturating_sub(u64::try_from(account.used()).unwrap_or(0));
    ResourceLimits {
        max_memory: Some(
            usize::try_from(left)
                .unwrap_or(usize::MAX)
                .min(MAX_ALLOCATION),
        ),
        max_recursion_depth: MAX_RECURSION,
        max_suspensions: usize::MAX,
        max_duration: control.remaining(),
        ..ResourceLimits::default()
    }
}

fn flush(buf: &mut Vec<u8>, ctx: &mut CommandCtx<'_>) {
    if !buf.is_empty() {
        let _ = ctx.stdout.write_all(buf);
        buf.clear();
    }
}

fn host_fn() -> MontyObject {
    MontyObject::Function {
        name: "_sk_host".to_string(),
        docstring: None,
    }
}

/// Runs `code` (already read) as `script_name` with `argv`.
fn run(
    ctx: &mut CommandCtx<'_>,
    host: &mut Host,
    code: &str,
    script_name: &str,
    argv: Vec<String>,
) -> i32 {
    let Some(mut repl) = prelude_session() else {
        let _ = writeln!(
            ctx.stderr,
            "{}: the embedded prelude failed to load",
            ctx.args[0]
        );
        return 1;
    };
    *repl.tracker_mut() = ResourceTracker::new(limits_for(ctx.control));
    let mut buf = Vec::new();
    let environ = MontyObject::Dict(
        host.env
            .iter()
            .map(|(k, v)| {
                (
                    MontyObject::String(k.clone()),
                    MontyObject::String(v.clone()),
                )
            })
            .collect::<Vec<_>>()
            .into(),
    );
    let mut inputs = vec![
        (
            "_sk_argv".to_string(),
            MontyObject::List(argv.into_iter().map(MontyObject::String).collect()),
        ),
        ("_sk_environ".to_string(), environ),
    ];
    let mut setup = String::from("_sk_sys.argv = _sk_argv\n_sk_os.environ = _sk_environ\n");
    // A program that reads stdin gets it up front: monty cannot call the
    // host from an implicit `__iter__` (`for line in sys.stdin`).
    if code.contains("stdin") {
        let data = host.take_stdin(ctx);
        inputs.push(("_sk_stdin".to_string(), MontyObject::String(data)));
        setup.push_str("_sk_sys.stdin._data = _sk_stdin\n");
    }
    let shimmed: Vec<&str> = prelude_modules();
    let rewritten = imports::rewrite(code, &|m| shimmed.contains(&m));
    // The setup, then the shims this program imports, each its own snippet.
    let mut snippets = vec![(setup.as_str(), inputs)];
    for (name, source) in LAZY {
        if rewritten.contains(&format!("_sk_{name}")) {
            snippets.push((source, Vec::new()));
        }
    }
    // Monty names the snippets of a session `<python-input-N>`: the
    // prelude is 0, then the ones above, then the program.
    let program_input = format!("<python-input-{}>", snippets.len() + 1);
    let mut repl = repl;
    for (snippet, inputs) in snippets {
        repl = match feed(ctx, host, &mut buf, repl, snippet, inputs) {
            (Some(repl), Ended::Done) => repl,
            (_, Ended::Raised(e)) => {
                flush(&mut buf, ctx);
                let _ = writeln!(ctx.stderr, "python3: the embedded prelude failed:\n{e}");
                return 1;
            }
            (None, Ended::Done) => return 1,
        };
    }
    let (_, ended) = feed(ctx, host, &mut buf, repl, &rewritten, vec![]);
    flush(&mut buf, ctx);
    match ended {
        Ended::Done => 0,
        Ended::Raised(e) => report(ctx, host, e, script_name, &program_input),
    }
}

/// A fresh session with the prelude loaded. The prelude runs once per
/// process (it is ~2,200 lines: compiling and running it costs tens of
/// milliseconds);
/// each run restores the session from that snapshot.
fn prelude_session() -> Option<MontyRepl> {
    static SNAPSHOT: OnceLock<Option<Vec<u8>>> = OnceLock::new();
    let bytes = SNAPSHOT.get_or_init(|| {
        let limits = ResourceLimits {
            max_memory: Some(MAX_ALLOCATION),
            max_recursion_depth: MAX_RECURSION,
            max_suspensions: usize::MAX,
            ..ResourceLimits::default()
        };
        let mut repl = MontyRepl::new(
            PRELUDE_NAME,
            ResourceTracker::new(limits),
            CompileOptions::default(),
        );
        repl.feed_run(PRELUDE, vec![], PrintWriter::Disabled).ok()?;
        monty::dump("<string>", None, SessionRef::Idle(&repl)).ok()
    });
    match Dump::load(bytes.as_ref()?).ok()?.state {
        Session::Idle(repl) => Some(*repl),
        _ => None,
    }
}

/// The modules the prelude serves, from its `_sk_modules` list, and the
/// ones served by [`LAZY`] shims.
fn prelude_modules() -> Vec<&'static str> {
    let Some(line) = PRELUDE.lines().find(|l| l.starts_with("_sk_modules = [")) else {
        return Vec::new();
    };
    line.trim_start_matches("_sk_modules = [")
        .trim_end_matches(']')
        .split(',')
        .map(|s| s.trim().trim_matches('"'))
        .filter(|s| !s.is_empty())
        .chain(LAZY.iter().map(|(name, _)| *name))
        .collect()
}

/// The exit status and stderr of an uncaught exception.
fn report(
    ctx: &mut CommandCtx<'_>,
    host: &mut Host,
    e: MontyException,
    script_name: &str,
    program_input: &str,
) -> i32 {
    if let Some(Stop::Refused(msg)) = host.stop.take() {
        let _ = writeln!(ctx.stderr, "{}: {msg}", ctx.args[0]);
        return 1;
    }
    if e.exc_type() == ExcType::SystemExit {
        return match e.message() {
            None | Some("None") | Some("") => 0,
            Some(m) => match (m.strip_prefix("msg:"), m.trim().parse::<i64>()) {
                (None, Ok(n)) => (n & 0xff) as i32,
                (text, _) => {
                    let _ = writeln!(ctx.stderr, "{}", text.unwrap_or(m));
                    1
                }
            },
        };
    }
    if let Err(kind) = ctx.control.check() {
        let _ = match kind {
            LimitKind::Memory => writeln!(
                ctx.stderr,
                "{}: MemoryError: {}",
                ctx.args[0],
                memory_message(ctx.control)
            ),
            _ => writeln!(ctx.stderr, "{}: stopped: {kind} reached", ctx.args[0]),
        };
        return 124;
    }
    let _ = writeln!(ctx.stderr, "{}", traceback(&e, script_name, program_input));
    if e.exc_type() == ExcType::ModuleNotFoundError
        && let Some(name) = e
            .message()
            .and_then(|m| m.strip_prefix("No module named '"))
            .map(|m| m.trim_end_matches('\''))
    {
        let _ = writeln!(ctx.stderr, "{}: {}", ctx.args[0], host::refusal(name));
    }
    if e.exc_type() == ExcType::NotImplementedError
        && e.message()
            .is_some_and(|m| m.contains("monty syntax parser"))
    {
        let _ = writeln!(
            ctx.stderr,
            "{}: this construct is not available in the local sandbox's embedded Python",
            ctx.args[0]
        );
    }
    1
}

/// The uncaught exception `e` as CPython prints it for `script_name`:
/// frames of the program itself (monty's `program_input`) under its name
/// (`<string>` for `-c`, `<stdin>` for a script on stdin, the path for a
/// file), the prelude's and shims' own frames left out (CPython's would be
/// the standard library's), source lines shown only for a file (CPython
/// cannot show them for `-c` or stdin).
fn traceback(e: &MontyException, script_name: &str, program_input: &str) -> String {
    let from_file = !script_name.starts_with('<');
    let frames: Vec<StackFrame> = e
        .traceback()
        .iter()
        .filter(|f| f.filename == program_input)
        .map(|f| {
            let mut f = f.clone();
            f.filename = script_name.to_string();
            if !from_file {
                f.preview_line = None;
            }
            f
        })
        .collect();
    // KeyError shows its key quoted, as `str(exc)` does (monty keeps the
    // key's str() as the message).
    let message = match (e.exc_type(), e.message()) {
        (ExcType::KeyError, Some(m)) => Some(StringRepr(m).to_string()),
        (_, m) => m.map(str::to_string),
    };
    MontyException::with_traceback(e.exc_type(), message, frames).to_string()
}

/// Feeds one snippet to the REPL and services its suspensions until it ends.
fn feed(
    ctx: &mut CommandCtx<'_>,
    host: &mut Host,
    buf: &mut Vec<u8>,
    repl: MontyRepl,
    code: &str,
    inputs: Vec<(String, MontyObject)>,
) -> (Option<MontyRepl>, Ended) {
    let mut progress = {
        let mut out = Out {
            buf,
            sink: &mut *ctx.stdout,
            control: ctx.control,
        };
        repl.feed_start(code, inputs, PrintWriter::Callback(&mut out))
    };
    loop {
        let step: Result<ReplProgress, Box<ReplStartError>> = match progress {
            Ok(ReplProgress::Complete { repl, .. }) => return (Some(repl), Ended::Done),
            Err(err) => {
                let ReplStartError { repl, error } = *err;
                return (Some(repl), Ended::Raised(error));
            }
            Ok(ReplProgress::FunctionCall(call)) => {
                // Host calls may write stderr: stdout first, in order.
                flush(buf, ctx);
                let result = if call.function_name == "_sk_host" {
                    host.call(ctx, call.args.clone())
                } else {
                    ExtFunctionResult::NotFound(call.function_name.clone())
                };
                let mut out = Out {
                    buf,
                    sink: &mut *ctx.stdout,
                    control: ctx.control,
                };
                call.resume(result, PrintWriter::Callback(&mut out))
            }
            Ok(ReplProgress::OsCall(call)) => {
                let result = host.os_call(ctx, call.function_call.clone());
                let mut out = Out {
                    buf,
                    sink: &mut *ctx.stdout,
                    control: ctx.control,
                };
                call.resume(result, PrintWriter::Callback(&mut out))
            }
            Ok(ReplProgress::NameLookup(lookup)) => {
                let result = if lookup.name == "_sk_host" {
                    NameLookupResult::Value(host_fn())
                } else {
                    NameLookupResult::Undefined
                };
                let mut out = Out {
                    buf,
                    sink: &mut *ctx.stdout,
                    control: ctx.control,
                };
                lookup.resume(result, PrintWriter::Callback(&mut out))
            }
            Ok(ReplProgress::ResolveFutures(f)) => {
                let e = MontyException::new(
                    ExcType::NotImplementedError,
                    Some("asyncio host futures are not available in the local sandbox".into()),
                );
                let mut out = Out {
                    buf,
                    sink: &mut *ctx.stdout,
                    control: ctx.control,
                };
                f.abort(e, PrintWriter::Callback(&mut out))
            }
        };
        progress = step;
    }
}
