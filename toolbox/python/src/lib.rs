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
//! (seconds) and caching the result. CPython parses its own command line:
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

use std::io::Read;
use std::sync::OnceLock;

use sandkeep_shell::{CommandCtx, LimitKind, ShellConfig};
use sandkeep_wasi::{Invocation, Outcome, Program};

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

/// Files only the guest sees (read-only; not in the shell's tree).
pub const OVERLAY: &[(&str, &[u8])] = &[("/.sandkeep-python/sitecustomize.py", SITECUSTOMIZE)];

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

/// The process's CPython, loaded on first use.
pub fn program() -> Result<&'static Program, String> {
    static PROGRAM: OnceLock<Result<Program, String>> = OnceLock::new();
    PROGRAM
        .get_or_init(|| {
            Program::load("cpython-3.12.0", PYTHON_WASM_SHA256, decompress)
                .map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(Clone::clone)
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
    let path = match &user_path {
        Some(p) if !p.is_empty() => format!("{HOOK_DIR}:{p}"),
        _ => HOOK_DIR.to_string(),
    };
    env.push(("PYTHONPATH".into(), path));
    env.push(("_SANDKEEP_CWD".into(), cwd.to_string()));
    env.push((
        "_SANDKEEP_PYTHONPATH".into(),
        user_path.unwrap_or_else(|| "\0".into()),
    ));
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
    let env = guest_env(ctx.env, ctx.cwd);
    let args = ctx.args.to_vec();
    let outcome = program.run(
        ctx,
        &Invocation {
            args: &args,
            env: &env,
            overlay: OVERLAY,
        },
    );
    match outcome {
        Outcome::Exited(code) => code & 0xff,
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
            let _ = writeln!(
                ctx.stderr,
                "{}: {why} (the run goes on; the interpreter was stopped)",
                ctx.args[0]
            );
            134
        }
    }
}

#[cfg(test)]
mod tests {
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
