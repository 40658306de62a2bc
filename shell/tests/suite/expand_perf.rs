//! Timing check of the expansion hot path (the C2 case). Ignored by
//! default; run with
//! `cargo test --release -p sandkeep-shell --test suite expand_perf:: -- --ignored --nocapture`.

use std::time::Instant;

use crate::support::median;
use sandkeep_shell::{RunOptions, Shell, ShellConfig};

#[test]
#[ignore]
fn arithmetic_loop_is_fast() {
    let shell = Shell::new(ShellConfig::default());
    let script = "for i in $(seq 1 10000); do x=$((x+i)); done; echo $x";
    let mut times = Vec::new();
    for _ in 0..15 {
        let t = Instant::now();
        let out = shell.run(script, RunOptions::default());
        times.push(t.elapsed());
        assert_eq!(out.stdout, b"50005000\n");
    }
    let m = median(times);
    println!("C2 median: {:.2} ms", m.as_secs_f64() * 1000.0);
    let script =
        "f(){ if [ $1 -le 1 ]; then echo 1; else echo $(( $1 * $(f $(( $1 - 1 ))) )); fi; }; f 10";
    let mut times = Vec::new();
    for _ in 0..50 {
        let t = Instant::now();
        let out = shell.run(script, RunOptions::default());
        times.push(t.elapsed());
        assert_eq!(out.stdout, b"3628800\n");
    }
    println!("C7 median: {:.3} ms", median(times).as_secs_f64() * 1000.0);
}
