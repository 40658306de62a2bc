//! Differential tests for the shell builtins, variables and options: each
//! script runs in our shell and, when `bash` is on the machine, in real
//! `bash -c` inside a fresh temp directory; stdout and exit status must match.
//!
//! `BUILTINS_FILTER=substr` runs only the cases whose name contains it.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use sandkeep_shell::{RunOptions, Shell, ShellConfig};

mod builtins_cases;

/// What a run produced.
#[derive(Debug, PartialEq, Eq)]
struct Outcome {
    stdout: Vec<u8>,
    status: i32,
    stderr: Vec<u8>,
}

fn bash_available() -> bool {
    Command::new("bash")
        .arg("-c")
        .arg("exit 0")
        .stdin(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn temp_dir() -> PathBuf {
    static N: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir().join(format!(
        "sandkeep-builtins-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}

fn run_bash(script: &str) -> Outcome {
    let dir = temp_dir();
    let mut child = Command::new("bash")
        .arg("-c")
        .arg(script)
        .current_dir(&dir)
        .env_clear()
        .env("HOME", &dir)
        .env("PATH", "/usr/bin:/bin")
        .env("LANG", "C.UTF-8")
        .env("TZ", "UTC")
        .env("USER", "sandbox")
        .env("SHELL", "/bin/bash")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn bash");
    drop(child.stdin.take());
    let mut out = child.stdout.take().expect("stdout");
    let mut err = child.stderr.take().expect("stderr");
    let t_out = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out.read_to_end(&mut v);
        v
    });
    let t_err = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err.read_to_end(&mut v);
        v
    });
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait bash") {
            break s.code().unwrap_or(128);
        }
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            let _ = child.wait();
            break 124;
        }
        std::thread::sleep(Duration::from_millis(1));
    };
    let stdout = t_out.join().unwrap_or_default();
    let stderr = t_err.join().unwrap_or_default();
    let _ = std::fs::remove_dir_all(&dir);
    Outcome {
        stdout,
        status,
        stderr,
    }
}

fn run_ours(script: &str) -> Outcome {
    let script = script.to_string();
    let result = std::panic::catch_unwind(move || {
        let shell = Shell::new(ShellConfig::default());
        let opts = RunOptions {
            timeout: Some(Duration::from_secs(20)),
            ..RunOptions::default()
        };
        shell.run(&script, opts)
    });
    match result {
        Ok(out) => Outcome {
            stdout: out.stdout,
            status: out.exit_code,
            stderr: out.stderr,
        },
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Outcome {
                stdout: Vec::new(),
                status: -1,
                stderr: format!("PANIC: {msg}").into_bytes(),
            }
        }
    }
}

fn show(b: &[u8]) -> String {
    let s = String::from_utf8_lossy(b);
    if s.is_empty() {
        return "    (empty)\n".to_string();
    }
    s.lines().map(|l| format!("    |{l}\n")).collect()
}

#[test]
fn builtins_differential() {
    let filter = std::env::var("BUILTINS_FILTER").ok();
    let have_bash = bash_available();
    if !have_bash {
        eprintln!("builtins_diff: bash not found; checking our shell for panics only");
    }
    let cases = builtins_cases::CASES;
    assert!(
        cases.len() >= 150,
        "the suite should keep at least 150 cases"
    );
    let (mut passed, mut failed) = (0, 0);
    let mut report = String::new();
    for (name, script) in cases {
        if let Some(f) = &filter
            && !name.contains(f.as_str())
        {
            continue;
        }
        let ours = run_ours(script);
        let ok = if have_bash {
            let theirs = run_bash(script);
            let same = ours.stdout == theirs.stdout && ours.status == theirs.status;
            if !same {
                report.push_str(&format!(
                    "--- {name}\n  script:\n{}  bash (status {}):\n{}  ours (status {}):\n{}  our stderr:\n{}",
                    show(script.as_bytes()),
                    theirs.status,
                    show(&theirs.stdout),
                    ours.status,
                    show(&ours.stdout),
                    show(&ours.stderr)
                ));
            }
            same
        } else {
            ours.status >= 0
        };
        if ok {
            passed += 1;
        } else {
            failed += 1;
        }
    }
    eprintln!("builtins_diff: {passed} passed, {failed} failed");
    assert!(failed == 0, "{failed} case(s) differ from bash:\n{report}");
}

/// Debug aid: `BUILTINS_SCRIPT='...' cargo test --test builtins_diff run_one -- --ignored --nocapture`
/// prints what our shell and bash produce for one script.
#[test]
#[ignore]
fn run_one() {
    let Ok(script) = std::env::var("BUILTINS_SCRIPT") else {
        return;
    };
    let ours = run_ours(&script);
    let theirs = run_bash(&script);
    eprintln!(
        "ours (status {}):\n{}stderr:\n{}",
        ours.status,
        show(&ours.stdout),
        show(&ours.stderr)
    );
    eprintln!(
        "bash (status {}):\n{}stderr:\n{}",
        theirs.status,
        show(&theirs.stdout),
        show(&theirs.stderr)
    );
}

/// Rough timing of the variable hot path (run with `--release -- --ignored`):
/// `for i in $(seq 1 10000); do x=$((x+i)); done`.
#[test]
#[ignore]
fn loop_timing() {
    let shell = Shell::new(ShellConfig::default());
    let script = "for i in $(seq 1 10000); do x=$((x+i)); done; echo $x";
    let mut best = Duration::MAX;
    for _ in 0..10 {
        let t = Instant::now();
        let out = shell.run(script, RunOptions::default());
        best = best.min(t.elapsed());
        assert_eq!(out.stdout, b"50005000\n");
    }
    eprintln!("loop_timing: best of 10 = {best:?}");
}
