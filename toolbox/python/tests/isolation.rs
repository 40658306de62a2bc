//! Isolation and limits of the sandbox's `python3` (CPython on the WASI
//! host): it cannot read host files, see the host environment or clock,
//! open sockets or start processes or threads; runaway loops, sleeps, deep
//! recursion, growing memory and huge output end at the run's limits with a
//! clear message and an exit status, never a hang, a panic or an abort of
//! the host process.
//!
//! Run: `cargo test --release -p sandkeep-python --test isolation`
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::time::{Duration, Instant};

use sandkeep_shell::{Determinism, LimitKind, RunOptions, RunOutput, Shell, ShellConfig};

// As in the sandkeep binary: every allocation is charged to the run that
// made it, so the run's memory budget binds inside Python too.
#[global_allocator]
static ALLOCATOR: sandkeep_shell::MeteredAlloc = sandkeep_shell::MeteredAlloc;

fn shell() -> Shell {
    warm();
    Shell::new(sandkeep_python::install(ShellConfig::default()))
}

/// Loads CPython before any run, so that a compile on a machine without a
/// compile cache is not charged to the first test's run time.
fn warm() {
    sandkeep_python::program().expect("CPython loads");
}

fn run_with(shell: &Shell, script: &str, timeout: Duration) -> RunOutput {
    warm();
    shell.run(
        script,
        RunOptions {
            timeout: Some(timeout),
            ..RunOptions::default()
        },
    )
}

fn run(script: &str) -> RunOutput {
    run_with(&shell(), script, Duration::from_secs(20))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn host_files_are_out_of_reach() {
    let dir = std::env::temp_dir().join(format!("sandkeep-py-secret-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let secret = dir.join("secret.txt");
    std::fs::write(&secret, "TOP-SECRET-4711").unwrap();
    let p = secret.display().to_string();
    for code in [
        format!("print(open({p:?}).read())"),
        format!("from pathlib import Path; print(Path({p:?}).read_text())"),
        format!(
            "import os; print(os.path.exists({p:?}), os.listdir({:?}))",
            dir.display().to_string()
        ),
    ] {
        let out = run(&format!("python3 -c '{code}'"));
        assert!(
            !text(&out.stdout).contains("TOP-SECRET") && !text(&out.stdout).contains("secret.txt"),
            "{code}: {}",
            text(&out.stdout)
        );
        assert!(
            out.exit_code != 0 || text(&out.stdout).starts_with("False"),
            "{code}: status {} {}",
            out.exit_code,
            text(&out.stdout)
        );
    }
    // What Python writes lands in the virtual tree, not on the host.
    let out = run(&format!(
        "python3 -c 'open({:?}, \"w\").write(\"x\")'; cat {:?}",
        dir.join("w.txt").display().to_string(),
        dir.join("w.txt").display().to_string()
    ));
    assert!(!dir.join("w.txt").exists(), "python wrote a host file");
    let _ = out;
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn host_environment_is_invisible() {
    // Cargo sets CARGO_MANIFEST_DIR in the test process's environment.
    assert!(std::env::var("CARGO_MANIFEST_DIR").is_ok());
    let out = run(
        "python3 -c 'import os; print(os.getenv(\"CARGO_MANIFEST_DIR\"), \"CARGO_MANIFEST_DIR\" in os.environ)'",
    );
    assert_eq!(text(&out.stdout), "None False\n");
    // The shell's exported variables are what Python sees.
    let out = run("export GREETING=hi; python3 -c 'import os; print(os.environ[\"GREETING\"])'");
    assert_eq!(text(&out.stdout), "hi\n");
}

#[test]
fn the_clock_is_the_shells() {
    let shell = Shell::new(sandkeep_python::install(ShellConfig {
        deterministic: Some(Determinism::default()),
        ..ShellConfig::default()
    }));
    let epoch = Determinism::default().epoch_secs;
    let out = run_with(
        &shell,
        "python3 -c 'import time; print(int(time.time()))'",
        Duration::from_secs(20),
    );
    assert_eq!(text(&out.stdout), format!("{epoch}\n"));
    // datetime and date read the same clock (2024-01-01T00:00:00Z), in UTC
    // like the shell's `date`.
    let out = run_with(
        &shell,
        "python3 - <<'EOF'\nimport datetime, time\nfrom datetime import date, timezone, timedelta\nprint(datetime.datetime.now())\nprint(date.today())\nprint(datetime.datetime.now(timezone.utc).isoformat())\nprint(datetime.datetime.now(timezone(timedelta(hours=2))))\nprint(time.time() == datetime.datetime.now(timezone.utc).timestamp())\nEOF\ndate -u +%F",
        Duration::from_secs(20),
    );
    assert_eq!(
        text(&out.stdout),
        "2024-01-01 00:00:00\n2024-01-01\n2024-01-01T00:00:00+00:00\n2024-01-01 02:00:00+02:00\nTrue\n2024-01-01\n",
        "{}",
        text(&out.stderr)
    );
    // A real clock: now() is today's date by the shell's `date`, not refused.
    let out = run("python3 -c 'import datetime; print(datetime.date.today())'; date -u +%F");
    let lines: Vec<String> = text(&out.stdout).lines().map(str::to_string).collect();
    assert_eq!(lines.len(), 2, "{}", text(&out.stderr));
    assert_eq!(lines[0], lines[1]);
}

#[test]
fn no_sockets_processes_or_threads() {
    // CPython's own error, then one line naming the sandbox's limit.
    for (code, error, what) in [
        (
            "import socket; socket.create_connection((\"127.0.0.1\", 22))",
            "Error",
            "sockets",
        ),
        ("import socket; socket.socket()", "OSError", "sockets"),
        (
            "import subprocess; subprocess.run([\"ls\"])",
            "Error",
            "processes",
        ),
        (
            "import threading; threading.Thread(target=print).start()",
            "RuntimeError",
            "threads",
        ),
        (
            "import urllib.request; urllib.request.urlopen(\"http://127.0.0.1:9/\")",
            "Error",
            "network access",
        ),
    ] {
        let out = run(&format!("python3 -c '{code}'"));
        assert_eq!(out.exit_code, 1, "{code}: {}", text(&out.stderr));
        let err = text(&out.stderr);
        assert!(
            err.starts_with("Traceback (most recent call last):"),
            "{code}: {err}"
        );
        assert!(err.contains(error), "{code}: {err}");
        assert!(
            err.contains(&format!("has no {what}; this is a limit of the sandbox")),
            "{code}: {err}"
        );
    }
    // os.system and friends do not exist on WASI at all.
    let out = run("python3 -c 'import os; print(hasattr(os, \"system\"), hasattr(os, \"fork\"))'");
    assert_eq!(text(&out.stdout), "False False\n", "{}", text(&out.stderr));
    // A third-party package is simply not installed.
    let out = run("python3 -c 'import numpy'");
    assert_eq!(out.exit_code, 1);
    assert!(text(&out.stderr).contains("ModuleNotFoundError: No module named 'numpy'"));
}

#[test]
fn runaway_loop_ends_at_the_run_timeout() {
    let start = Instant::now();
    let out = run_with(
        &shell(),
        "python3 -c 'while True: pass'; echo after",
        Duration::from_secs(1),
    );
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "took {:?}",
        start.elapsed()
    );
    assert_ne!(out.exit_code, 0);
    assert!(!text(&out.stdout).contains("after"));
    let start = Instant::now();
    let out = run_with(
        &shell(),
        "python3 -c 'import time; time.sleep(60)'",
        Duration::from_secs(1),
    );
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "sleep took {:?}",
        start.elapsed()
    );
    assert_ne!(out.exit_code, 0);
}

#[test]
fn deep_recursion_is_a_recursion_error() {
    // On a thread with a small stack, as a server's worker might have.
    let out = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| run("python3 -c 'def f(n): return f(n + 1)\nf(0)'"))
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(out.exit_code, 1);
    let err = text(&out.stderr);
    assert!(
        err.starts_with("Traceback (most recent call last):"),
        "{err}"
    );
    assert!(
        err.contains("RecursionError: maximum recursion depth exceeded"),
        "{err}"
    );
}

#[test]
fn huge_allocations_are_memory_errors() {
    for code in [
        "x = \"a\" * 10**12",
        "x = [0] * 10**11",
        "x = bytes(10**12)",
    ] {
        let out = run(&format!("python3 -c '{code}'"));
        assert_eq!(out.exit_code, 1, "{code}");
        // wasm32 is a 32-bit platform: a size past 2**31 is an
        // OverflowError there, as in any 32-bit CPython.
        let err = text(&out.stderr);
        assert!(
            err.contains("MemoryError") || err.contains("OverflowError"),
            "{code}: {err}"
        );
    }
}

#[test]
fn the_runs_memory_budget_binds_inside_python() {
    let mut config = ShellConfig::default();
    config.limits.max_memory_bytes = 64 << 20;
    let shell = Shell::new(sandkeep_python::install(config));
    for code in [
        "x = []\nwhile True: x.append(\"a\" * 1000)",
        "d = {}\ni = 0\nwhile True:\n    d[i] = str(i) * 10\n    i += 1",
        "s = \"a\"\nwhile True: s = s + s",
        "x = bytearray(200 << 20)",
    ] {
        let start = Instant::now();
        let out = run_with(
            &shell,
            &format!("python3 -c '{code}'; echo status $?; echo after"),
            Duration::from_secs(30),
        );
        let err = text(&out.stderr);
        assert!(
            start.elapsed() < Duration::from_secs(15),
            "{code}: took {:?}",
            start.elapsed()
        );
        // The guest's memory could not grow past the budget: CPython
        // raised MemoryError, uncaught here, so python3 failed with its
        // traceback and a note naming the budget; the shell goes on.
        assert_eq!(out.exit_code, 0, "{code}: {err}");
        assert_eq!(out.limit, None, "{code}: {err}");
        assert!(err.contains("\nMemoryError"), "{code}: {err}");
        assert!(
            err.contains("python3: note: the run's memory limit (67108864 bytes) refused"),
            "{code}: {err}"
        );
        assert_eq!(text(&out.stdout), "status 1\nafter\n", "{code}");
    }
    // A script that catches the MemoryError goes on, its memory freed.
    let out = run_with(
        &shell,
        "python3 -c '\ntry:\n    x = []\n    while True: x.append(\"a\" * 1000)\nexcept MemoryError:\n    n = len(x)\n    del x\n    print(\"caught\", n > 1000)\ny = [\"b\" * 1000 for _ in range(10000)]\nprint(\"went on\", len(y))\n'",
        Duration::from_secs(30),
    );
    assert_eq!(out.exit_code, 0, "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "caught True\nwent on 10000\n");
    assert!(!text(&out.stderr).contains("note"), "{}", text(&out.stderr));
    // The next run of the same shell has its whole budget again.
    let out = run_with(
        &shell,
        "python3 -c 'print(len([\"a\" * 1000 for _ in range(1000)]))'",
        Duration::from_secs(30),
    );
    assert_eq!(text(&out.stdout), "1000\n", "{}", text(&out.stderr));
}

#[test]
fn a_huge_print_ends_at_the_output_limit() {
    let mut config = ShellConfig::default();
    config.limits.max_output_bytes = 1 << 20;
    let shell = Shell::new(sandkeep_python::install(config));
    let start = Instant::now();
    let out = run_with(
        &shell,
        "python3 -c 'while True: print(\"x\" * 1000)'; echo after",
        Duration::from_secs(30),
    );
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "took {:?}",
        start.elapsed()
    );
    assert_eq!(out.limit, Some(LimitKind::Output), "{}", text(&out.stderr));
    assert!(out.stdout.len() <= 1 << 20);
    assert!(!text(&out.stdout).contains("after"));
}

#[test]
fn python_cannot_take_the_host_process_down() {
    // Each of these ends its own python3 only; the shell's next command
    // runs and the process is intact.
    for (code, word) in [
        ("def f(n): return f(n + 1)\nf(0)", "RecursionError"),
        // Recursion through C code overflows the build's C stack: the
        // interpreter traps and that python3 ends with a message.
        (
            "import functools\n@functools.lru_cache(None)\ndef f(n): return n if n < 1 else f(n - 1)\nf(5000)",
            "C stack overflowed",
        ),
        (
            "import json; json.loads(\"[\" * 100000 + \"]\" * 100000)",
            "RecursionError",
        ),
        ("import os; os.abort()", "python3:"),
    ] {
        let out = run(&format!("python3 -c '{code}'; echo next"));
        assert_eq!(text(&out.stdout), "next\n", "{code}: {}", text(&out.stderr));
        assert!(
            text(&out.stderr).contains(word),
            "{code}: {}",
            text(&out.stderr)
        );
    }
}

#[test]
fn the_working_directory_and_argv_are_the_shells() {
    let out = run(
        "mkdir -p /workspace/d/e && cd /workspace/d && echo hi > f.txt && printf 'import sys, os\nprint(os.getcwd(), sys.argv, open(\"f.txt\").read().strip())\n' > s.py && python3 s.py a 'b c'",
    );
    assert_eq!(
        text(&out.stdout),
        "/workspace/d ['s.py', 'a', 'b c'] hi\n",
        "{}",
        text(&out.stderr)
    );
    // A module next to the script imports; PYTHONPATH is the user's alone.
    let out = run(
        "cd /workspace && echo 'X = 42' > helper.py && python3 -c 'import helper, os, sys; print(helper.X, os.environ.get(\"PYTHONPATH\"), [p for p in sys.path if \"sandkeep\" in p])'",
    );
    assert_eq!(text(&out.stdout), "42 None []\n", "{}", text(&out.stderr));
    let out = run(
        "export PYTHONPATH=/workspace/lib; python3 -c 'import os, sys; print(os.environ[\"PYTHONPATH\"], \"/workspace/lib\" in sys.path)'",
    );
    assert_eq!(
        text(&out.stdout),
        "/workspace/lib True\n",
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn stdin_streams_while_the_writer_writes() {
    // The reader sees the first line before the writer has finished: a
    // blocking read pulls from the pipe as it fills.
    let out = run(
        "{ echo first; sleep 1; echo second; } | python3 -c 'import sys, time\nt = time.monotonic()\nl1 = sys.stdin.readline()\nt1 = time.monotonic() - t\nl2 = sys.stdin.readline()\nprint(l1.strip(), l2.strip(), t1 < 0.8)'",
    );
    assert_eq!(
        text(&out.stdout),
        "first second True\n",
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn bad_input_gets_a_status_not_a_panic() {
    for (script, status) in [
        ("python3 -c 'def ('", 1),
        ("python3 -c", 2),
        ("python3 --frobnicate", 2),
        ("python3 /nonexistent.py", 2),
        ("printf '\\xff\\xfe' > b.py; python3 b.py", 1),
        ("python3 -c 'import sys; sys.exit(\"bye\")'", 1),
        ("python3 -c 'print(open(\"/\").read())'", 1),
    ] {
        let out = run(script);
        assert_eq!(out.exit_code, status, "{script}: {}", text(&out.stderr));
        assert!(!text(&out.stderr).is_empty(), "{script}: no message");
    }
}

/// Cooperative cancellation of `python3`, as `shell/tests/cancellation.rs`
/// checks it for the shell's own commands: a run whose deadline passes while
/// Python is busy returns within 100 ms of it (plus scheduling slack), says
/// it timed out, and leaves no thread using CPU afterwards.
///
/// The "no CPU after" check reads the whole process's CPU time, which the
/// other tests of this binary would move: [`python_stops_on_time`] runs
/// [`python_stops_on_time_alone`] in a process of its own.
#[path = "../../../shell/tests/support/deadline.rs"]
mod deadline;

mod cancellation {
    use super::*;

    fn stops_on_time(sh: &Shell, script: &str) {
        deadline::stops_on_time("python3", script, |script, timeout| {
            run_with(sh, script, timeout)
        });
    }

    #[test]
    fn python_stops_on_time() {
        deadline::run_alone("cancellation::python_stops_on_time_alone");
    }

    /// Run by [`python_stops_on_time`] in a process of its own.
    #[test]
    #[ignore = "run alone by python_stops_on_time"]
    fn python_stops_on_time_alone() {
        let sh = shell();
        for script in [
            "python3 -c 'while True: pass'",
            "python3 -c 'x = [i * i for i in range(10**12)]'",
            "python3 -c 'n = 0\nfor i in range(10**12): n += i'",
            // Long loops in CPython's C code (the re engine, hashing): wasm
            // like the rest, so the epoch interrupts them mid-call; each
            // is repeated so that it outlasts the deadline on any machine.
            "python3 -c 'import re\nwhile True: len(re.sub(\"a\", \"bb\", \"a\" * 4 * 10**5))'",
            "python3 -c 'import re\nwhile True: len(re.sub(\"(a)\", r\"<\\1>\", \"é\" + \"a\" * 4 * 10**5))'",
            "python3 -c 'import re\nwhile True: re.findall(\"a+b\", \"a\" * 1000)'",
            "python3 -c 'import re\nwhile True: len(re.findall(\"a\", \"a\" * 2 * 10**6))'",
            "python3 -c 'import re\nwhile True: len(list(re.finditer(\"a\", \"a\" * 2 * 10**6)))'",
            "python3 -c 'import re\nwhile True: len(re.split(\"(a)\", \"a\" * 2 * 10**6))'",
            "python3 -c 'import re\nwhile True: re.subn(\"a\", \"bb\", \"a\" * 2 * 10**6)[1]'",
            "python3 -c 'import re\nwhile True: len(re.sub(\"a\", lambda m: m.group() * 2, \"a\" * 2 * 10**6))'",
            "python3 -c 'import re\np = re.compile(\"a\")\nwhile True: len(p.sub(\"bb\", \"a\" * 2 * 10**6))'",
            "python3 -c 'import re\np = re.compile(\"(a)\")\nwhile True: len(p.findall(\"é\" + \"a\" * 2 * 10**6))'",
            "python3 -c 'import re\np = re.compile(\"a\")\nwhile True: len(p.split(\"a\" * 2 * 10**6))'",
            "python3 -c 'import hashlib\nd = b\"a\" * (32 << 20)\nwhile True: hashlib.sha512(d).digest()'",
            "python3 -c 'def f(n):\n    return 0 if n < 1 else f(n - 1) + f(n - 1)\nf(60)'",
            "python3 -c 's = \"ab\" * 1000\nwhile True: s = s.replace(\"ab\", \"ba\").replace(\"ba\", \"ab\")'",
        ] {
            stops_on_time(&sh, script);
        }
    }
}

/// `-V` says what runs: CPython 3.12.0 (the README says on what).
#[test]
fn the_version_is_cpythons_own() {
    let out = run(
        "python3 -V; python --version; python3 -c 'import sys; print(sys.platform, sys.implementation.name)'",
    );
    assert_eq!(
        text(&out.stdout),
        "Python 3.12.0\nPython 3.12.0\nwasi cpython\n",
        "{}",
        text(&out.stderr)
    );
}

/// In deterministic mode the run's seed is Python's entropy: `random`,
/// `os.urandom`, `uuid4` and the order of a set of strings (hash
/// randomization) repeat from one shell to the next; with the real clock
/// and no seed they differ.
#[test]
fn randomness_follows_the_runs_seed() {
    let script = "python3 -c 'import random, os, uuid; print(random.random(), os.urandom(4).hex(), uuid.uuid4(), list({\"alpha\", \"beta\", \"gamma\", \"delta\"}))'";
    let seeded = || {
        let shell = Shell::new(sandkeep_python::install(ShellConfig {
            deterministic: Some(Determinism::default()),
            ..ShellConfig::default()
        }));
        text(&run_with(&shell, script, Duration::from_secs(20)).stdout)
    };
    let (a, b) = (seeded(), seeded());
    assert!(!a.is_empty());
    assert_eq!(a, b);
    let (c, d) = (text(&run(script).stdout), text(&run(script).stdout));
    assert_ne!(c, d);
}

/// A read of stdin that would wait past the deadline is cut by it.
#[test]
fn a_blocked_stdin_read_ends_at_the_deadline() {
    let start = Instant::now();
    let out = run_with(
        &shell(),
        "sleep 30 | python3 -c 'import sys; sys.stdin.read()'; echo after",
        Duration::from_secs(1),
    );
    assert!(
        start.elapsed() < Duration::from_secs(6),
        "took {:?}",
        start.elapsed()
    );
    assert_eq!(out.limit, Some(LimitKind::Timeout));
    assert!(!text(&out.stdout).contains("after"));
}
