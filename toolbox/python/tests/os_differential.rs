//! The OS-level differential of the WASI host: Python scripts that work the
//! operating system (files, directories, symlinks, hard links, rename, stat
//! sizes and times, the working directory, environment, standard streams,
//! exit codes, large files, unicode names, `os.walk`, `shutil`,
//! `tempfile`, `glob`, `sqlite3`, archives) run on sandkeep's CPython over
//! its preview1 host and virtual filesystem, and on the host's CPython on
//! Linux in a fresh temp directory; exit status, stdout and the last line
//! of stderr must be identical. Errors are printed by name
//! (`errno.errorcode`), as WASI numbers errno values differently.
//!
//! The same scripts also run on wasmtime-wasi's preview1 host (the
//! reference implementation of WASI, a dev-dependency pinned beside our
//! wasmtime) over a temp directory preopened as `/`: the same CPython
//! module, the same start-up hook, the same arguments, environment and
//! stdin; only the host differs. Linux through the host's CPython is the
//! stricter reference (it also checks what a WASI host could get wrong
//! consistently); wasmtime-wasi is the one that tells a WASI-level
//! difference from a CPython-on-WASI one.
//!
//! Both sides run the script in an empty `workspace` directory, with the
//! same arguments, environment and stdin. Cases live in
//! `tests/os_cases/*.txt` (`### name`, then Python source; no script
//! prints what the two trees may legitimately differ in: inode numbers,
//! real mtimes, the listing of `/`).
//!
//! Run: `cargo test -p sandkeep-python --test os_differential` (both
//! references)
//! (`PY_CASE=substring` runs the matching cases and prints both sides).
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

#[path = "../../../shell/tests/support/cases.rs"]
#[allow(dead_code)]
mod cases;

use std::io::{Cursor, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use sandkeep_shell::{Clock, CommandCtx, Exec, ExecRequest, Fs, FsLimits, Limits, RunControl};

/// What one side produced.
#[derive(Debug, PartialEq, Eq)]
struct Outcome {
    status: i32,
    stdout: String,
    stderr: String,
}

const STDIN: &str = "3\n4\nline three\n";

fn user_env() -> Vec<(String, String)> {
    [
        ("FOO", "bar"),
        ("FOO_2", "x"),
        ("UNICODE_VAR", "héllo wörld"),
        ("HOME", "/workspace"),
        ("LANG", "C.UTF-8"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}

/// Runs nothing: no script here starts another program.
struct NoExec;

impl Exec for NoExec {
    fn exec(&mut self, _req: ExecRequest<'_>) -> i32 {
        127
    }
}

fn ours(code: &str) -> Outcome {
    let fs = Fs::new(FsLimits::default(), Clock::real(), &[]);
    let control = RunControl::new(Limits::default(), Clock::real(), None, None);
    let args: Vec<String> = ["python3", "-c", code]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let env = user_env();
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    let mut stdin = Cursor::new(STDIN.as_bytes().to_vec());
    let mut ctx = CommandCtx {
        args: &args,
        env: &env,
        cwd: "/workspace",
        fs: &fs,
        stdin: &mut stdin,
        stdout: &mut stdout,
        stderr: &mut stderr,
        control: &control,
        exec: &mut NoExec,
    };
    let status = sandkeep_python::python3(&mut ctx);
    Outcome {
        status,
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: last_line(&String::from_utf8_lossy(&stderr)),
    }
}

/// The same script under the host's CPython (3.11) on Linux, in a fresh
/// temp directory, with the same arguments, environment and stdin.
fn reference(code: &str) -> Outcome {
    let root =
        std::env::temp_dir().join(format!("sandkeep-osdiff-{}-{}", std::process::id(), next()));
    let work = root.join("workspace");
    std::fs::create_dir_all(&work).unwrap();
    let mut child = Command::new("/usr/bin/python3")
        .args(["-c", code])
        .current_dir(&work)
        .env_clear()
        .envs(user_env().into_iter().map(|(k, v)| {
            let v = if k == "HOME" {
                work.display().to_string()
            } else {
                v
            };
            (k, v)
        }))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("host python3");
    // A script that does not read stdin may end before it is written.
    let _ = child.stdin.take().unwrap().write_all(STDIN.as_bytes());
    let out = child.wait_with_output().unwrap();
    let _ = std::fs::remove_dir_all(&root);
    let host_dir = work.display().to_string();
    Outcome {
        status: out.status.code().unwrap_or(128),
        stdout: String::from_utf8_lossy(&out.stdout).replace(&host_dir, "/workspace"),
        stderr: last_line(&String::from_utf8_lossy(&out.stderr).replace(&host_dir, "/workspace")),
    }
}

/// The same script on wasmtime-wasi's preview1 host: the CPython module
/// sandkeep runs (its engine and compiled module), a fresh temp directory
/// preopened as `/` holding `workspace/`, the overlay preopened at its
/// place ([`hook_dir`]), the same arguments, environment (the one
/// `python3` builds) and stdin.
fn wasmtime_wasi(code: &str) -> Outcome {
    use sandkeep_wasi::wasmtime::{Linker, Store};
    use wasmtime_wasi::p2::pipe::{MemoryInputPipe, MemoryOutputPipe};
    use wasmtime_wasi::{FsPerms, I32Exit, WasiCtxBuilder, p1};

    let program = sandkeep_python::program().expect("CPython loads");
    let root =
        std::env::temp_dir().join(format!("sandkeep-wwdiff-{}-{}", std::process::id(), next()));
    std::fs::create_dir_all(root.join("workspace")).unwrap();
    let env = sandkeep_python::guest_env(&user_env(), "/workspace");
    let stdout = MemoryOutputPipe::new(64 << 20);
    let stderr = MemoryOutputPipe::new(64 << 20);
    let ctx = WasiCtxBuilder::new()
        .args(&["python3", "-c", code])
        .envs(&env)
        .stdin(MemoryInputPipe::new(STDIN.as_bytes().to_vec()))
        .stdout(stdout.clone())
        .stderr(stderr.clone())
        .preopened_dir(&root, "/", FsPerms::ReadWrite)
        .expect("preopen")
        .preopened_dir(hook_dir(), sandkeep_python::HOOK_DIR, FsPerms::ReadOnly)
        .expect("preopen the hook")
        .build_p1();
    let engine = program.engine().clone();
    let module = program.module().clone();
    // Guest code runs on this thread: a stack as large as the one
    // sandkeep-wasi gives its runs, so the wasm stack limit binds first.
    let status = std::thread::Builder::new()
        .stack_size(16 << 20)
        .spawn(move || {
            let mut linker: Linker<p1::WasiP1Ctx> = Linker::new(&engine);
            p1::add_to_linker_sync(&mut linker, |t| t).expect("link");
            let mut store = Store::new(&engine, ctx);
            // The engine interrupts by epochs; nothing advances them here.
            store.set_epoch_deadline(u64::MAX / 2);
            let run = linker.instantiate(&mut store, &module).and_then(|i| {
                i.get_typed_func::<(), ()>(&mut store, "_start")?
                    .call(&mut store, ())
            });
            match run {
                Ok(()) => 0,
                Err(e) => match e.downcast_ref::<I32Exit>() {
                    Some(exit) => exit.0 & 0xff,
                    None => 134,
                },
            }
        })
        .unwrap()
        .join()
        .unwrap();
    let _ = std::fs::remove_dir_all(&root);
    Outcome {
        status,
        stdout: String::from_utf8_lossy(&stdout.contents()).into_owned(),
        stderr: last_line(&String::from_utf8_lossy(&stderr.contents())),
    }
}

/// The overlay sandkeep's host shows the guest (the start-up hook and the
/// unpacked standard library), written once to a host directory that
/// wasmtime-wasi preopens read-only at the same guest path.
fn hook_dir() -> &'static Path {
    static DIR: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("sandkeep-wwhook-{}", std::process::id()));
        for (path, bytes) in sandkeep_python::overlay().files() {
            let rel = path
                .strip_prefix(sandkeep_python::HOOK_DIR)
                .expect("overlay files are under the hook directory");
            let at = dir.join(rel.trim_start_matches('/'));
            std::fs::create_dir_all(at.parent().unwrap()).unwrap();
            std::fs::write(at, bytes).unwrap();
        }
        dir
    })
}

/// The last line of stderr: the exception (or message) itself. Traceback
/// bodies differ between 3.11 and 3.12 (caret lines) and are compared by
/// the python differential's traceback test instead.
fn last_line(s: &str) -> String {
    s.lines().last().unwrap_or("").to_string()
}

fn next() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

#[test]
fn our_host_matches_linux() {
    if !Path::new("/usr/bin/python3").exists() {
        eprintln!("SKIP: no /usr/bin/python3 on this host");
        return;
    }
    differential("Linux (host CPython)", reference);
}

#[test]
fn our_host_matches_wasmtime_wasi() {
    differential("wasmtime-wasi's preview1 host", wasmtime_wasi);
    let _ = std::fs::remove_dir_all(hook_dir());
}

/// Runs every case on our host and on `reference`, and fails listing the
/// scripts whose outcomes differ.
fn differential(name: &str, reference: fn(&str) -> Outcome) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/os_cases");
    let all = cases::load_dir(&dir);
    cases::assert_well_formed(&all);
    let only = std::env::var("PY_CASE").ok();
    let mut failed = Vec::new();
    let mut ran = 0;
    let mut skipped = 0;
    for case in &all {
        if let Some(o) = &only
            && !case.label().contains(o.as_str())
        {
            continue;
        }
        if case.skip.is_some() {
            skipped += 1;
            continue;
        }
        ran += 1;
        let theirs = reference(&case.script);
        let mine = ours(&case.script);
        if only.is_some() {
            eprintln!(
                "--- {}\n{}\nreference [{}]:\n{}{}\nours [{}]:\n{}{}",
                case.label(),
                case.script,
                theirs.status,
                theirs.stdout,
                theirs.stderr,
                mine.status,
                mine.stdout,
                mine.stderr
            );
        }
        if mine != theirs {
            failed.push(format!(
                "{}\n  reference [{}]: {:?} {:?}\n  ours      [{}]: {:?} {:?}",
                case.label(),
                theirs.status,
                theirs.stdout,
                theirs.stderr,
                mine.status,
                mine.stdout,
                mine.stderr
            ));
        }
    }
    eprintln!(
        "OS-level differential against {name}: {} of {ran} identical, {skipped} skipped",
        ran - failed.len()
    );
    for f in &failed {
        eprintln!("DIFF {f}");
    }
    assert!(failed.is_empty(), "{} scripts differ", failed.len());
    if only.is_none() {
        assert!(ran >= 100, "only {ran} scripts ran");
    }
}
