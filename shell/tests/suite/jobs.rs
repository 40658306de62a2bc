//! Background jobs: runaway jobs end with the run's limits, nothing outlives
//! a run, `kill` stops a job alone, and a deterministic run keeps its bytes
//! reproducible. (Their bash semantics are compared with real bash in
//! `diff_cases/34_jobs.txt`.)

use std::time::{Duration, Instant};

use crate::support::ours::run_raw as run;
use crate::support::suite::off_suites;
use crate::support::text;
use sandkeep_shell::{Determinism, LimitKind, Limits, Shell, ShellConfig};

fn shell(limits: Limits, deterministic: bool) -> Shell {
    Shell::new(ShellConfig {
        limits,
        deterministic: deterministic.then(Determinism::default),
        ..ShellConfig::default()
    })
}

#[test]
fn a_runaway_job_ends_with_the_runs_limit_and_the_sandbox_stays_usable() {
    let _off_suites = off_suites();
    let sh = shell(
        Limits {
            max_loop_iterations: 50_000,
            timeout: Duration::from_secs(20),
            ..Limits::default()
        },
        false,
    );
    let o = run(&sh, "while :; do :; done & echo started");
    assert_eq!(text(&o.stdout), "started\n");
    assert_eq!(o.limit, Some(LimitKind::LoopIterations));
    assert_eq!(o.exit_code, 124);
    assert!(text(&o.stderr).contains("loop iteration limit exceeded"));
    let o = run(&sh, "echo again");
    assert_eq!(text(&o.stdout), "again\n");
    assert_eq!(o.limit, None);
}

#[test]
fn a_job_still_running_at_the_end_is_bounded_by_the_timeout() {
    let _off_suites = off_suites();
    let sh = shell(
        Limits {
            timeout: Duration::from_millis(500),
            ..Limits::default()
        },
        false,
    );
    let started = Instant::now();
    let o = run(&sh, "sleep 100 & echo started");
    // Generous: only "not 100 seconds" matters here.
    assert!(started.elapsed() < Duration::from_secs(30));
    assert_eq!(text(&o.stdout), "started\n");
    assert_eq!(o.limit, Some(LimitKind::Timeout));
}

#[test]
fn output_of_a_job_is_collected_before_the_run_returns() {
    let _off_suites = off_suites();
    let sh = shell(Limits::default(), false);
    let o = run(&sh, "(sleep 0.2; echo from job) & echo from shell");
    assert_eq!(text(&o.stdout), "from shell\nfrom job\n");
    assert_eq!(o.exit_code, 0);
}

#[test]
fn kill_stops_one_job_and_the_shell_goes_on() {
    let _off_suites = off_suites();
    let sh = shell(Limits::default(), false);
    let started = Instant::now();
    let o = run(
        &sh,
        "sleep 60 & a=$!; yes > /dev/null & b=$!; kill $a; wait $a; echo a=$?; \
         kill -s KILL $b; wait $b; echo b=$?; echo on",
    );
    assert_eq!(text(&o.stdout), "a=143\nb=137\non\n", "{}", text(&o.stderr));
    assert!(started.elapsed() < Duration::from_secs(30));
}

#[test]
fn jobs_run_concurrently() {
    let _off_suites = off_suites();
    // Two jobs that each wait for the other's file: they only both finish
    // if they run at the same time.
    let sh = shell(
        Limits {
            timeout: Duration::from_secs(20),
            ..Limits::default()
        },
        false,
    );
    let o = run(
        &sh,
        "(touch a; until [ -e b ]; do sleep 0.01; done; echo A) & \
         (touch b; until [ -e a ]; do sleep 0.01; done; echo B) & wait; echo both",
    );
    assert_eq!(o.limit, None, "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(
        out.ends_with("both\n") && out.contains("A\n") && out.contains("B\n"),
        "{out}"
    );
}

#[test]
fn a_deterministic_run_finishes_each_job_where_it_starts() {
    let _off_suites = off_suites();
    let sh = shell(Limits::default(), true);
    let script = "(sleep 0.2; echo job) & echo shell; kill $!; wait $!; echo status $?";
    let first = run(&sh, script);
    assert_eq!(text(&first.stdout), "job\nshell\nstatus 143\n");
    for _ in 0..3 {
        assert_eq!(run(&sh, script).stdout, first.stdout);
    }
}
