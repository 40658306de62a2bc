//! Differential tests for the shell builtins, variables and options: each
//! script runs in our shell and, when `bash` is on the machine, in real
//! `bash -c` inside a fresh temp directory; stdout and exit status must match.
//!
//! `BUILTINS_FILTER=substr` runs only the cases whose name contains it.
#![allow(clippy::disallowed_methods)] // test knobs come from the environment

use std::time::{Duration, Instant};

use crate::support::cases::Case;
use crate::support::suite::{Suite, show_both};
use sandkeep_shell::{RunOptions, Shell, ShellConfig};

#[test]
fn builtins_differential() {
    let cases: Vec<Case> = crate::builtins_cases::CASES
        .iter()
        .map(|(name, script)| Case::new("builtins", name, *script))
        .collect();
    assert!(
        cases.len() >= 150,
        "the suite should keep at least 150 cases"
    );
    let mut suite = Suite::new("builtins_diff").filter_from("BUILTINS_FILTER");
    suite.run_cases(&cases);
    suite.finish();
}

/// Debug aid: `BUILTINS_SCRIPT='...' cargo test -p sandkeep-shell --test suite builtins_diff::run_one -- --ignored --nocapture`
/// prints what our shell and bash produce for one script.
#[test]
#[ignore]
fn run_one() {
    let Ok(script) = std::env::var("BUILTINS_SCRIPT") else {
        return;
    };
    show_both(&script, true);
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
