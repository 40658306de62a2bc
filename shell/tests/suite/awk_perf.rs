//! Benchmark (ignored by default): `awk '{s+=$1} END{print s}'` over
//! `seq 1 1000000`, ours in-process vs the host's gawk and mawk (process
//! start included, as an agent would pay it). Run with
//! `cargo test --release -p sandkeep-shell --test suite awk_perf:: -- --ignored --nocapture`.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::time::Instant;

use crate::support::median;
use sandkeep_shell::{RunOptions, Shell, ShellConfig};

#[test]
#[ignore]
fn awk_sum_one_million_lines() {
    let mut input = String::new();
    for i in 1..=1_000_000 {
        input.push_str(&i.to_string());
        input.push('\n');
    }
    let prog = "{s+=$1} END{print s}";
    let mut ours = Vec::new();
    for _ in 0..5 {
        let shell = Shell::new(ShellConfig::default());
        let opts = RunOptions {
            stdin: input.clone().into_bytes(),
            ..RunOptions::default()
        };
        let t = Instant::now();
        let o = shell.run(&format!("awk '{prog}'"), opts);
        ours.push(t.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(String::from_utf8_lossy(&o.stdout), "500000500000\n");
    }
    let tmp = std::env::temp_dir().join(format!("awk_perf_{}", std::process::id()));
    std::fs::write(&tmp, &input).unwrap();
    let mut report = format!("ours (in-process): {:.1} ms", median(ours.clone()));
    for tool in ["gawk", "mawk"] {
        let mut times = Vec::new();
        for _ in 0..5 {
            let t = Instant::now();
            let o = std::process::Command::new(tool)
                .arg(prog)
                .stdin(std::fs::File::open(&tmp).unwrap())
                .output();
            let Ok(o) = o else { break };
            times.push(t.elapsed().as_secs_f64() * 1000.0);
            // mawk prints 5.00001e+11 here; only the time is compared.
            assert!(!o.stdout.is_empty());
        }
        if !times.is_empty() {
            let m = median(times);
            report.push_str(&format!(
                "; {tool}: {m:.1} ms (ours/{tool} = {:.2})",
                median(ours.clone()) / m
            ));
        }
    }
    let _ = std::fs::remove_file(&tmp);
    eprintln!("{report}");
}
