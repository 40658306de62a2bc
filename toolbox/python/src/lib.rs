//! `python3` (and `python`) for sandkeep's local sandbox: real CPython
//! 3.12.0 compiled to `wasm32-wasip1`, run by wasmtime over the
//! [`sandkeep_wasi`] host, so files, directories, the environment, the
//! streams and the clock are the sandbox's, never the host machine's.
//!
//! The module is VMware's WebAssembly Language Runtimes build of CPython
//! (standard library embedded in the module), vendored gzip-compressed with
//! its debug sections removed (`wasm/PROVENANCE.md` names the source, its
//! hashes and licences). The first `python3` of a process loads it: from the
//! compile cache when this machine compiled it before, else by compiling it
//! (seconds) and caching the result; the first use on a machine also has
//! CPython unpack its standard library for faster start-ups (`stdlib.rs`).
//! CPython parses its own command line:
//! `-c`, `-m MODULE`, `FILE ARGS`, `-` and a script on stdin, `-V`.
//!
//! What WASI does not have, the sandbox does not offer: processes
//! (`subprocess`, `os.system`), threads and sockets fail with CPython's own
//! errors, followed by a one-line note naming the limit.
//!
//! ```
//! use sandkeep_shell::{RunOptions, Shell, ShellConfig};
//! let shell = Shell::new(sandkeep_python::install(ShellConfig::default()));
//! let out = shell.run("python3 -c 'import sys; print(sum(range(5)), sys.argv)' a", RunOptions::default());
//! assert_eq!(String::from_utf8_lossy(&out.stdout), "10 ['-c', 'a']\n");
//! ```

mod stdlib;

use std::hash::{DefaultHasher, Hash, Hasher};
use std::io::Read;
use std::sync::{Arc, OnceLock};

use sandkeep_shell::{CommandCtx, LimitKind, ShellConfig};
use sandkeep_wasi::{Invocation, Outcome, Overlay, Program};

pub use stdlib::STDLIB_DIR;

/// What `python3 --version` prints (CPython's own answer).
pub const VERSION: &str = "Python 3.12.0";

/// The CPython module, debug sections removed, gzip-compressed.
const PYTHON_WASM_GZ: &[u8] = include_bytes!("../wasm/python-3.12.0.wasm.gz");

/// SHA-256 of the decompressed module (checked by a test; keys the cache).
pub const PYTHON_WASM_SHA256: &str =
    "324728b694d0ff4eff1f2e148f28faadb1061a80d6b2b3dbb92d21b0de56f181";

/// The start-up hook CPython's `site` imports (see `startup.py`).
pub const SITECUSTOMIZE: &[u8] = include_bytes!("startup.py");

/// Where the guest finds the hook: a directory only the guest sees.
pub const HOOK_DIR: &str = "/.sandkeep-python";

/// A loaded CPython and the files only its guest sees.
struct Loaded {
    program: Program,
    overlay: Arc<Overlay>,
}

/// The process's CPython and overlay, loaded on first use.
fn loaded() -> Result<&'static Loaded, String> {
    static LOADED: OnceLock<Result<Loaded, String>> = OnceLock::new();
    LOADED
        .get_or_init(|| {
            let program = Program::load("cpython-3.12.0", PYTHON_WASM_SHA256, decompress)
                .map_err(|e| e.to_string())?;
            let overlay = Arc::new(overlay_for(&program));
            Ok(Loaded { program, overlay })
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// The overlay: the standard library unpacked and the hook compiled
/// (cached beside the compiled module, see `stdlib.rs`), or, when that
/// fails, the hook's source alone (CPython then reads its zip, slower).
fn overlay_for(program: &Program) -> Overlay {
    let mut h = DefaultHasher::new();
    (SITECUSTOMIZE, stdlib::UNPACK, 1u32).hash(&mut h);
    let key = format!("{}-{:016x}", &PYTHON_WASM_SHA256[..16], h.finish());
    let unpacked =
        sandkeep_wasi::cache::blob("cpython-3.12.0-stdlib", &key, || stdlib::unpack(program))
            .and_then(|records| stdlib::overlay_of(&records))
            // A damaged cache entry: unpack again rather than run slow.
            .or_else(|_| stdlib::unpack(program).and_then(|r| stdlib::overlay_of(&r)));
    unpacked.unwrap_or_else(|_| {
        let mut hook = Overlay::new();
        hook.insert(
            &format!("{HOOK_DIR}/sitecustomize.py"),
            SITECUSTOMIZE.to_vec(),
        );
        hook
    })
}

/// The files only the guest sees (read-only; not in the shell's tree):
/// the start-up hook and, once loaded, the standard library.
pub fn overlay() -> Arc<Overlay> {
    match loaded() {
        Ok(l) => l.overlay.clone(),
        Err(_) => Arc::new(Overlay::new()),
    }
}

/// Adds `python3` and `python` to a shell configuration.
///
/// ```
/// let config = sandkeep_python::install(sandkeep_shell::ShellConfig::default());
/// # let _ = config;
/// ```
///
/// The first call of a process also starts loading CPython on a thread of
/// its own (from the compile cache in milliseconds; the first time on a
/// machine, a compile of seconds), so that the first `python3` a script
/// runs does not spend its run's time on it.
pub fn install(config: ShellConfig) -> ShellConfig {
    static WARM: std::sync::Once = std::sync::Once::new();
    WARM.call_once(|| {
        let spawned = std::thread::Builder::new()
            .name("sandkeep-python-load".into())
            .spawn(|| {
                let _ = program();
            });
        // Without the thread the first python3 loads it instead.
        drop(spawned);
    });
    config
        .command("python3", python3)
        .command("python", python3)
}

/// The process's CPython, loaded on first use (with its overlay).
pub fn program() -> Result<&'static Program, String> {
    loaded().map(|l| &l.program)
}

/// The vendored module's bytes.
pub fn decompress() -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(14 << 20);
    flate2::read::GzDecoder::new(PYTHON_WASM_GZ)
        .read_to_end(&mut out)
        .map_err(|e| format!("decompressing the vendored CPython: {e}"))?;
    Ok(out)
}

/// The environment CPython is started with: the command's exported
/// variables, plus what the start-up hook needs (and removes again before
/// the program runs): its directory first on `PYTHONPATH`, the user's own
/// `PYTHONPATH` to restore, the working directory to change to (preview1
/// has none of its own). Bytecode caches stay off unless asked for, as
/// they would land in the user's tree (`__pycache__`).
pub fn guest_env(user: &[(String, String)], cwd: &str) -> Vec<(String, String)> {
    let user_path = user
        .iter()
        .rev()
        .find(|(k, _)| k == "PYTHONPATH")
        .map(|(_, v)| v.clone());
    let mut env: Vec<(String, String)> = user
        .iter()
        .filter(|(k, _)| k != "PYTHONPATH")
        .cloned()
        .collect();
    let mut path = match &user_path {
        Some(p) if !p.is_empty() => format!("{HOOK_DIR}:{p}"),
        _ => HOOK_DIR.to_string(),
    };
    // The unpacked library after the user's directories, before the zip.
    if overlay().dir(STDLIB_DIR).is_some() {
        path = format!("{path}:{STDLIB_DIR}");
    }
    env.push(("PYTHONPATH".into(), path));
    env.push(("_SANDKEEP_CWD".into(), cwd.to_string()));
    if let Some(p) = user_path {
        env.push(("_SANDKEEP_PYTHONPATH".into(), p));
    }
    if !user.iter().any(|(k, _)| k == "PYTHONDONTWRITEBYTECODE") {
        env.push(("PYTHONDONTWRITEBYTECODE".into(), "1".into()));
    }
    env
}

/// The `python3` command: CPython with the command's arguments, streams,
/// environment and working directory; returns its exit status.
pub fn python3(ctx: &mut CommandCtx<'_>) -> i32 {
    let program = match program() {
        Ok(p) => p,
        Err(e) => {
            let _ = writeln!(ctx.stderr, "{}: cannot load CPython: {e}", ctx.args[0]);
            return 1;
        }
    };
    let mut env = guest_env(ctx.env, ctx.cwd);
    let mut args = ctx.args.to_vec();
    // CPython makes a script's path absolute while it configures itself,
    // before the start-up hook can change directory: hand it the absolute
    // path, and the hook puts the name as typed back in `sys.argv[0]`.
    if let Some(at) = script_index(&args)
        && !args[at].starts_with('/')
    {
        env.push(("_SANDKEEP_ARGV0".into(), args[at].clone()));
        args[at] = sandkeep_shell::Fs::resolve(ctx.cwd, &args[at]);
    }
    let ended = program.run(
        ctx,
        &Invocation {
            args: &args,
            env: &env,
            overlay: overlay(),
        },
    );
    // A limit tripped while the guest ran ends the run even when the guest
    // got to exit first.
    let outcome = match (ended.outcome, ctx.control.tripped()) {
        (Outcome::Exited(_), Some(kind)) => Outcome::Limit(kind),
        (outcome, _) => outcome,
    };
    match outcome {
        Outcome::Exited(code) => {
            // The budget refused the interpreter memory and the script did
            // not recover (an uncaught MemoryError, or a failure of its
            // own): name the budget under CPython's traceback.
            if code != 0 && ended.memory_refused {
                let _ = writeln!(
                    ctx.stderr,
                    "{}: note: the run's memory limit ({} bytes) refused the interpreter more memory",
                    ctx.args[0],
                    ctx.control.memory().limit()
                );
            }
            code & 0xff
        }
        Outcome::Limit(kind) => {
            let _ = match kind {
                LimitKind::Memory => writeln!(
                    ctx.stderr,
                    "{}: MemoryError: the run's memory limit was exceeded ({} bytes)",
                    ctx.args[0],
                    ctx.control.memory().limit()
                ),
                LimitKind::Output => Ok(()),
                _ => writeln!(ctx.stderr, "{}: stopped: {kind} reached", ctx.args[0]),
            };
            kind.exit_status()
        }
        Outcome::Trapped(why) => {
            // The build's C stack (512 KiB) comes first in linear memory:
            // when it overflows, the access below address 0 traps as out of
            // bounds. Nothing else in a working interpreter does.
            let hint = if why.contains("out of bounds memory access") {
                " (most likely the interpreter's C stack overflowed: deep recursion through C code)"
            } else {
                ""
            };
            let _ = writeln!(ctx.stderr, "{}: stopped by a {why}{hint}", ctx.args[0]);
            134
        }
    }
}

/// Where the script's path is in a CPython command line, if it runs a
/// script file (not `-c`, `-m`, `-` or stdin).
fn script_index(args: &[String]) -> Option<usize> {
    let mut i = 1;
    while i < args.len() {
        let a = args[i].as_str();
        if a == "--" {
            return (i + 1 < args.len() && args[i + 1] != "-").then_some(i + 1);
        }
        if a == "-" || !a.starts_with('-') {
            return (a != "-").then_some(i);
        }
        if let Some(long) = a.strip_prefix("--") {
            if long == "check-hash-based-pycs" {
                i += 1;
            }
            i += 1;
            continue;
        }
        for (n, c) in a[1..].char_indices() {
            match c {
                'c' | 'm' => return None,
                'W' | 'X' => {
                    if n + 2 == a.len() {
                        i += 1;
                    }
                    break;
                }
                _ => {}
            }
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_script_is_found_after_the_options() {
        let find = |line: &str| {
            let args: Vec<String> = line.split(' ').map(str::to_string).collect();
            super::script_index(&args)
        };
        assert_eq!(find("python3 x.py a"), Some(1));
        assert_eq!(find("python3 -u -W ignore x.py"), Some(4));
        assert_eq!(find("python3 -Wignore -X dev x.py"), Some(4));
        assert_eq!(find("python3 -uB x.py"), Some(2));
        assert_eq!(find("python3 -c pass x.py"), None);
        assert_eq!(find("python3 -um json.tool f"), None);
        assert_eq!(find("python3 - x.py"), None);
        assert_eq!(find("python3"), None);
        assert_eq!(find("python3 -- x.py"), Some(2));
    }

    #[test]
    fn vendored_module_matches_its_recorded_hash() {
        use std::fmt::Write;
        let bytes = super::decompress().expect("decompress");
        let digest = sha256(&bytes);
        let mut hex = String::new();
        for b in digest {
            let _ = write!(hex, "{b:02x}");
        }
        assert_eq!(hex, super::PYTHON_WASM_SHA256);
    }

    fn sha256(data: &[u8]) -> [u8; 32] {
        use sha2::Digest;
        sha2::Sha256::digest(data).into()
    }
}
