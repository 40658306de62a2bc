//! A WASI preview1 host over sandkeep's virtual filesystem: runs
//! `wasm32-wasip1` programs (CPython) inside the local sandbox.
//!
//! The guest sees what a shell command sees and nothing else: descriptors
//! 0/1/2 are the command's streams (pipes, redirections, the run's output
//! cap), one preopened `/` is the sandbox's tree ([`sandkeep_shell::Fs`]),
//! its environment is the command's exported variables, its clocks are the
//! run's clock (fixed in deterministic mode), `random_get` follows the run's
//! seed, sockets answer `ENOTSUP`. No host path, variable or process is
//! reachable: every import is implemented here ([`preview1`]), none is
//! forwarded to the host.
//!
//! Limits bind inside the guest: the run's deadline and cancellation
//! interrupt it through wasmtime's epochs (a ticker thread, no fuel), a
//! `poll_oneoff` sleep never outlasts the deadline, linear-memory growth is
//! charged to the run's memory budget (a refused growth is the guest's own
//! out-of-memory error), the wasm stack is bounded.
//!
//! One [`Program`] per process holds the engine and the pre-instantiated
//! module; each [`Program::run`] gets a fresh store. Compiling a large
//! module (CPython: ~7 s) is paid once per machine: the compiled artifact
//! is cached on disk ([`cache`]).

mod abi;
pub mod cache;
mod guest;
mod limits;
mod memory;
mod overlay;
mod preview1;

use std::collections::BTreeMap;
use std::time::Instant;

use sandkeep_shell::{CommandCtx, LimitKind};
use wasmtime::{Config, Engine, InstancePre, Linker, Module, OptLevel, Store, Trap};

use guest::{Guest, Handle, Stop, Streams};
use limits::{MemoryLimiter, Ticker};

pub use cache::CacheError;
pub use overlay::Overlay;
/// The wasmtime this host is built on (its version is pinned).
pub use wasmtime;

/// The most wasm stack a guest may use; deeper recursion traps as a stack
/// overflow instead of reaching the host's stack.
pub const MAX_WASM_STACK: usize = 8 << 20;

/// The native stack a run gets (the wasm stack plus room for host frames).
const RUN_STACK: usize = MAX_WASM_STACK + (4 << 20);

/// Why a program could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The engine refused the module or the configuration.
    #[error("wasm: {0}")]
    Wasm(#[from] wasmtime::Error),
    /// The module's bytes could not be produced (e.g. decompressed).
    #[error("module: {0}")]
    Module(String),
}

/// How a guest run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// It returned from `_start` (0) or called `proc_exit`.
    Exited(i32),
    /// A limit of the run ended it (deadline, cancellation, output cap).
    Limit(LimitKind),
    /// It trapped; the text says why (`wasm stack overflow`, ...).
    Trapped(String),
}

/// How a run ended, and what the host saw on the way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ended {
    /// How the guest ended.
    pub outcome: Outcome,
    /// Whether a growth of the guest's memory was refused because the
    /// run's memory budget had no room for it (the guest saw it as its own
    /// out of memory; an embedder may name the budget when the guest fails).
    pub memory_refused: bool,
}

/// What one run is given besides the command's context.
pub struct Invocation<'a> {
    /// `argv` as the guest sees it.
    pub args: &'a [String],
    /// The environment as the guest sees it.
    pub env: &'a [(String, String)],
    /// Read-only files only the guest sees (absolute paths), e.g. an
    /// interpreter's start-up hook; the shell's tree never holds them.
    pub overlay: std::sync::Arc<Overlay>,
}

/// A compiled program, ready to run many times.
pub struct Program {
    engine: Engine,
    pre: InstancePre<Guest>,
    ticker: Ticker,
    /// Whether the compiled module came from the on-disk cache.
    pub from_cache: bool,
}

/// The engine configuration every program shares (part of the cache key).
fn config() -> Config {
    let mut config = Config::new();
    config
        .epoch_interruption(true)
        .max_wasm_stack(MAX_WASM_STACK)
        // Only checked against max_wasm_stack: guests run synchronously.
        .async_stack_size(MAX_WASM_STACK + (1 << 20))
        .cranelift_opt_level(OptLevel::Speed)
        // Small wasm functions inlined into their callers: the vendored
        // CPython was compiled at -O0, where every `Py_INCREF` is a call;
        // ~18% off a Python loop, for ~2x the (cached) compile time.
        .compiler_inlining(wasmtime::Inlining::Yes)
        .parallel_compilation(true);
    config
}

impl Program {
    /// Loads a program: from the compile cache when a valid entry exists
    /// for `name` + `sha256` (the module's hash) + this engine, else by
    /// compiling the module `wasm` produces (and caching the result).
    pub fn load(
        name: &str,
        sha256: &str,
        wasm: impl FnOnce() -> Result<Vec<u8>, String>,
    ) -> Result<Program, LoadError> {
        let engine = Engine::new(&config())?;
        let (module, from_cache) = cache::load(&engine, name, sha256, wasm)?;
        Program::from_module(engine, module, from_cache)
    }

    /// A program from a module compiled in memory (no cache): for tests and
    /// small modules.
    pub fn compile(wasm: &[u8]) -> Result<Program, LoadError> {
        let engine = Engine::new(&config())?;
        let module = Module::from_binary(&engine, wasm)?;
        Program::from_module(engine, module, false)
    }

    fn from_module(engine: Engine, module: Module, from_cache: bool) -> Result<Program, LoadError> {
        let mut linker = Linker::new(&engine);
        preview1::add_to_linker(&mut linker)?;
        let pre = linker.instantiate_pre(&module)?;
        let ticker = Ticker::start(&engine);
        Ok(Program {
            engine,
            pre,
            ticker,
            from_cache,
        })
    }

    /// The engine the program was compiled for (to run the same module
    /// under another host, as the reference tests do).
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The compiled module.
    pub fn module(&self) -> &Module {
        self.pre.module()
    }

    /// Runs the program's `_start` as the command `ctx` describes, with
    /// `inv`'s arguments and environment; the working directory is the
    /// guest's business (preview1 has none: paths are relative to `/`).
    pub fn run(&self, ctx: &mut CommandCtx<'_>, inv: &Invocation<'_>) -> Ended {
        // Guest code runs on this thread; give it a stack of known size so
        // the wasm stack limit, not the host's stack, is what a deep
        // recursion meets.
        stacker::grow(RUN_STACK, || self.run_here(ctx, inv))
    }

    fn run_here(&self, ctx: &mut CommandCtx<'_>, inv: &Invocation<'_>) -> Ended {
        // SAFETY: the store that holds these references is created and
        // dropped within this call, and nothing derived from it (instance,
        // memory, functions) outlives it; the engine, ticker and
        // pre-instantiated module keep no store data. So the borrows of
        // `ctx` are never used after this function returns.
        let (streams, control) = unsafe {
            (
                Streams {
                    stdin: std::mem::transmute::<
                        &mut dyn std::io::Read,
                        &'static mut dyn std::io::Read,
                    >(&mut *ctx.stdin),
                    stdout: std::mem::transmute::<
                        &mut dyn std::io::Write,
                        &'static mut dyn std::io::Write,
                    >(&mut *ctx.stdout),
                    stderr: std::mem::transmute::<
                        &mut dyn std::io::Write,
                        &'static mut dyn std::io::Write,
                    >(&mut *ctx.stderr),
                },
                std::mem::transmute::<
                    &sandkeep_shell::RunControl,
                    &'static sandkeep_shell::RunControl,
                >(ctx.control),
            )
        };
        let mut fds = BTreeMap::new();
        fds.insert(0, Handle::Stdin);
        fds.insert(1, Handle::Stdout);
        fds.insert(2, Handle::Stderr);
        fds.insert(guest::ROOT_FD, Handle::Dir { path: "/".into() });
        let guest = Guest {
            args: inv.args.iter().map(|a| a.as_bytes().to_vec()).collect(),
            env: inv
                .env
                .iter()
                .map(|(k, v)| format!("{k}={v}").into_bytes())
                .collect(),
            fs: ctx.fs.clone(),
            control,
            streams,
            fds,
            overlay: inv.overlay.clone(),
            random: None,
            started: Instant::now(),
            limiter: MemoryLimiter {
                control,
                refused: false,
            },
            memory: None,
        };
        let mut store = Store::new(&self.engine, guest);
        store.limiter(|g| &mut g.limiter);
        store.set_epoch_deadline(1);
        store.epoch_deadline_callback(|cx| match cx.data().control.check() {
            Ok(()) => Ok(wasmtime::UpdateDeadline::Continue(1)),
            Err(kind) => Err(wasmtime::Error::new(Stop::Limit(kind))),
        });
        let _running = self.ticker.running();
        let result = (|| {
            let instance = self.pre.instantiate(&mut store)?;
            let memory = instance.get_memory(&mut store, "memory");
            store.data_mut().memory = memory;
            let start = instance.get_typed_func::<(), ()>(&mut store, "_start")?;
            start.call(&mut store, ())
        })();
        let outcome = match result {
            Ok(()) => Outcome::Exited(0),
            Err(e) => outcome_of(&e, ctx.control),
        };
        let memory_refused = store.data().limiter.refused;
        drop(store);
        Ended {
            outcome,
            memory_refused,
        }
    }
}

/// The outcome a guest's error stands for.
fn outcome_of(e: &wasmtime::Error, control: &sandkeep_shell::RunControl) -> Outcome {
    if let Some(stop) = e.downcast_ref::<Stop>() {
        return match stop {
            Stop::Exit(code) => Outcome::Exited(*code),
            Stop::Limit(kind) => Outcome::Limit(*kind),
        };
    }
    if let Some(kind) = control.tripped() {
        return Outcome::Limit(kind);
    }
    match e.downcast_ref::<Trap>() {
        Some(Trap::StackOverflow) => Outcome::Trapped("wasm stack overflow".into()),
        Some(trap) => Outcome::Trapped(trap.to_string()),
        None => Outcome::Trapped(format!("{e:#}")),
    }
}
