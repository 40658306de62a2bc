//! The per-family cancellation check (issue 18), shared by the shell's
//! `cancellation` test and the toolbox crates' (`#[path]`-included there):
//! a run whose deadline passes while a command is busy returns within
//! [`LATE`] of it, says it timed out, and leaves no thread of it using CPU.
//!
//! The "no CPU after" check reads the whole process's CPU time, which any
//! other test running beside it would move: run these checks one at a time,
//! in a binary of their own or through [`run_alone`].

#![allow(dead_code)]
// Test support on the host: it reads /proc and re-runs the test binary.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::time::{Duration, Instant};

use sandkeep_shell::{LimitKind, RunOutput};

/// The deadline of the run under test.
pub const DEADLINE: Duration = Duration::from_millis(400);

/// How late a run may return: 100 ms, plus scheduling slack on a machine
/// shared with other builds.
pub const LATE: Duration = Duration::from_millis(100 + 100);

/// CPU time the process may use while it should be idle for 300 ms: the
/// test's own bookkeeping, a few clock ticks; a thread still spinning uses
/// all 300 ms.
pub const IDLE_CPU: Duration = Duration::from_millis(60);

/// User plus system CPU time of this whole process (all its threads).
pub fn cpu_time() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("/proc/self/stat");
    // Fields after the command name in parentheses; utime and stime are
    // fields 14 and 15 of the line, in clock ticks (100 per second).
    let rest = &stat[stat.rfind(')').expect("stat has the command") + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    Duration::from_millis(ticks * 10)
}

/// Runs `script` with `run(script, DEADLINE)` and checks it ends by timeout
/// (status 124, "timeout exceeded"), within [`LATE`] of the deadline, and
/// that nothing of it runs afterwards. `family` names it in messages and in
/// the lateness line the README reports (`-- --nocapture`).
pub fn stops_on_time(family: &str, script: &str, run: impl FnOnce(&str, Duration) -> RunOutput) {
    let started = Instant::now();
    let o = run(script, DEADLINE);
    let took = started.elapsed();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        o.limit,
        Some(LimitKind::Timeout),
        "{family}: `{script}` did not time out (status {}, stderr {stderr:?}): give it more work",
        o.exit_code
    );
    assert_eq!(o.exit_code, 124, "{family}: `{script}`: {stderr}");
    assert!(
        stderr.contains("timeout exceeded"),
        "{family}: `{script}`: {stderr:?}"
    );
    let late = took.saturating_sub(DEADLINE);
    eprintln!("{family}: returned {late:?} after the deadline: {script}");
    assert!(
        late <= LATE,
        "{family}: `{script}` returned {late:?} after its deadline"
    );
    let before = cpu_time();
    std::thread::sleep(Duration::from_millis(300));
    let used = cpu_time().saturating_sub(before);
    assert!(
        used <= IDLE_CPU,
        "{family}: `{script}`: the process used {used:?} of CPU in the 300 ms after the run"
    );
}

/// Runs the ignored test `test` (its full path) of this test binary in a
/// process of its own, alone, and fails with its output unless it passed.
pub fn run_alone(test: &str) {
    let exe = std::env::current_exe().expect("the test binary");
    let out = std::process::Command::new(exe)
        .args([
            "--exact",
            test,
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .output()
        .expect("running the test binary");
    let report = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("{report}");
    assert!(out.status.success(), "{report}");
    assert!(report.contains("1 passed"), "{report}");
}
