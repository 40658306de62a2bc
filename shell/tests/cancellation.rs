//! Cooperative cancellation, one test per command family: a run whose
//! deadline passes while a command is busy (an endless loop, or long work on
//! a generous input) returns within 100 ms of its deadline, says it timed
//! out, and leaves no thread of it using CPU afterwards.
//!
//! A test binary of its own, its tests one at a time (a lock): the "no CPU
//! after" check reads this process's CPU time, which any other test running
//! beside it would move. Timing assertions are what the acceptance of issue
//! 18 asks for; the slack above 100 ms covers a loaded CI machine's
//! scheduling, not slow cancellation.

#![allow(clippy::disallowed_methods)]

use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use sandkeep_shell::{Limits, RunOptions, RunOutput, Shell, ShellConfig};

#[path = "support/deadline.rs"]
mod deadline;

fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A shell whose only limit that matters is each run's deadline.
fn shell() -> Shell {
    Shell::new(ShellConfig {
        limits: Limits {
            timeout: Duration::from_secs(120),
            max_commands: u64::MAX,
            max_loop_iterations: u64::MAX,
            ..Limits::default()
        },
        ..ShellConfig::default()
    })
}

fn run(sh: &Shell, script: &str, timeout: Duration) -> RunOutput {
    sh.run(
        script,
        RunOptions {
            timeout: Some(timeout),
            ..RunOptions::default()
        },
    )
}

/// Prepares the files a case needs (no deadline to speak of).
fn setup(sh: &Shell, script: &str) {
    let o = run(sh, script, Duration::from_secs(120));
    assert_eq!(
        o.exit_code,
        0,
        "setup `{script}` failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// [`deadline::stops_on_time`] on this file's shell.
fn stops_on_time(sh: &Shell, family: &str, script: &str) {
    deadline::stops_on_time(family, script, |script, timeout| run(sh, script, timeout));
}

#[test]
fn interpreter_loops() {
    let _serial = serial();
    let sh = shell();
    for script in [
        "while :; do :; done",
        "for ((;;)); do :; done",
        "until false; do :; done",
        "f() { f2; }; f2() { :; }; while :; do f; done",
        "while :; do :; done | cat",
        "while :; do echo; done > /dev/null & wait",
        "x=$(while :; do :; done)",
        "shopt -s extglob; x=$(printf 'a%.0s' {1..3000}); [[ $x == *(a|aa)*(a|aa)*(a|aa)c ]]",
    ] {
        stops_on_time(&sh, "interpreter", script);
    }
}

#[test]
fn brace_expansion() {
    let _serial = serial();
    let sh = shell();
    stops_on_time(
        &sh,
        "brace expansion",
        "echo {1..300}{1..300}{1..300} | wc -c",
    );
}

/// A command given many operands: parsing them was quadratic (minutes for
/// a million, with no cancellation point), and touching them checked the
/// run nowhere; every filesystem call is a cancellation point now.
#[test]
fn file_operands() {
    let _serial = serial();
    let sh = shell();
    // Enough operands that one touch outlasts the deadline in release too.
    setup(&sh, "seq 300000 > /tmp/ops");
    for script in [
        "mapfile -t a < /tmp/ops; touch \"${a[@]}\"",
        "mapfile -t a < /tmp/ops; touch \"${a[@]}\"; while :; do touch \"${a[@]}\"; done",
    ] {
        stops_on_time(&sh, "file operands", script);
        setup(&sh, "cd /workspace && rm -rf ./*");
    }
}

#[test]
fn jq() {
    let _serial = serial();
    let sh = shell();
    for script in [
        "jq -n 'def f: f; f'",
        "jq -n '[recurse(.+1)]'",
        "jq -n 'until(false; .)'",
        "jq -n '[repeat(1)] | length'",
        "jq -n 'reduce range(1e12) as $i (0; . + $i)'",
        "jq -n 'last(range(1e12))'",
        "jq -n '[limit(1e9; repeat(1))] | length'",
    ] {
        stops_on_time(&sh, "jq", script);
    }
}

#[test]
fn awk() {
    let _serial = serial();
    let sh = shell();
    for script in [
        "awk 'BEGIN { while (1) ; }'",
        "awk 'BEGIN { for (;;) n++ }'",
        "yes | awk '{ n += length($0) } END { print n }'",
        "awk 'function f(n) { return n < 1 ? 0 : f(n - 1) + f(n - 1) } BEGIN { print f(60) }'",
    ] {
        stops_on_time(&sh, "awk", script);
    }
}

#[test]
fn sed() {
    let _serial = serial();
    let sh = shell();
    for script in [
        "echo a | sed ':a;ba'",
        "yes | sed 's/y/n/' > /dev/null",
        "echo a | sed ':a;s/a/aa/;ta' > /dev/null",
    ] {
        stops_on_time(&sh, "sed", script);
    }
}

#[test]
fn grep() {
    let _serial = serial();
    let sh = shell();
    for script in ["yes | grep -c x", "yes | grep -E -c '(y|yy)+x'"] {
        stops_on_time(&sh, "grep", script);
    }
}

#[test]
fn sort() {
    let _serial = serial();
    let sh = shell();
    setup(&sh, "seq 3000000 | rev > lines");
    for script in [
        "sort lines > /dev/null",
        "sort -n lines > /dev/null",
        "sort -k1,1 -t 0 lines > /dev/null",
    ] {
        stops_on_time(&sh, "sort", script);
    }
}

#[test]
fn bc() {
    let _serial = serial();
    let sh = shell();
    for script in [
        // bc refuses powers past 50,000 digits; a product of two near
        // that size is long schoolbook work.
        "echo 'x = 7^50000; y = x * x' | bc",
        "echo 'while (1) { }' | bc",
    ] {
        stops_on_time(&sh, "bc", script);
    }
}

#[test]
fn find() {
    let _serial = serial();
    let sh = shell();
    setup(&sh, "mkdir -p t/{1..40}/{1..40}/{1..40}");
    for script in [
        "while :; do find / > /dev/null; done",
        // Twenty walks of the tree in one `find`: one walk can end
        // inside the deadline on an idle machine.
        "find / / / / / / / / / / / / / / / / / / / / -exec true {} \\; > /dev/null",
    ] {
        stops_on_time(&sh, "find", script);
    }
}

#[test]
fn tar_and_gzip() {
    let _serial = serial();
    let sh = shell();
    setup(
        &sh,
        "mkdir big && head -c 60M /dev/urandom > big/a && head -c 60M /dev/urandom > big/b",
    );
    for script in [
        "tar czf t.tgz big",
        "gzip -c big/a > /dev/null",
        "gzip -9 -c big/a > /dev/null",
    ] {
        stops_on_time(&sh, "tar/gzip", script);
    }
}

/// A run cancelled from outside (its caller went away) ends as at its
/// deadline, whether the handle is used while it runs or before it starts.
#[test]
fn a_cancel_handle_ends_the_run_from_outside() {
    let _serial = serial();
    let sh = shell();
    let cancel = sandkeep_shell::CancelHandle::new();
    let trigger = cancel.clone();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        trigger.cancel();
    });
    let started = std::time::Instant::now();
    let o = sh.run(
        "while :; do :; done",
        RunOptions {
            timeout: Some(Duration::from_secs(60)),
            cancel: Some(cancel.clone()),
            ..RunOptions::default()
        },
    );
    canceller.join().unwrap();
    assert_eq!(o.exit_code, 124, "{o:?}");
    assert!(cancel.is_cancelled());
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "ended {:?} after its start, its cancel at 300 ms",
        started.elapsed()
    );
    let early = sandkeep_shell::CancelHandle::new();
    early.cancel();
    let o = sh.run(
        "sleep 30; echo never",
        RunOptions {
            cancel: Some(early),
            ..RunOptions::default()
        },
    );
    assert_eq!(o.exit_code, 124, "{o:?}");
    assert!(o.stdout.is_empty());
}
