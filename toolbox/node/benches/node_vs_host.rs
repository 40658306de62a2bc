//! `node` in the local sandbox side by side with the host's Node 20
//! (`/usr/bin/node`): start-up (`node -e '0'`), a `-p` one-liner that
//! formats an object, a 1M-iteration loop, and a script that reads,
//! parses and rewrites a 1 MB JSON file. Prints the median wall time of
//! each side and the ratio (ours / host).
//!
//! Run: `cargo bench -p sandkeep-node --bench node_vs_host`
//! (`NODE_BENCH_RUNS=N` sets the repetitions, 7 by default).
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use sandkeep_shell::{RunOptions, Shell, ShellConfig};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

const JSON_SCRIPT: &str = "const fs = require('fs'); const d = JSON.parse(fs.readFileSync('big.json', 'utf8')); d.forEach(o => o.score *= 2); fs.writeFileSync('out.json', JSON.stringify(d)); console.log(d.length);";

fn big_json() -> String {
    let items: Vec<String> = (0..12_000)
        .map(|i| {
            format!(
                "{{\"id\":{i},\"name\":\"user{i}\",\"tags\":[\"a\",\"b\"],\"score\":{}}}",
                i % 100
            )
        })
        .collect();
    format!("[{}]", items.join(","))
}

fn main() {
    let runs: usize = std::env::var("NODE_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(7);
    let json = big_json();
    let dir = std::env::temp_dir().join(format!("sandkeep-nodebench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("big.json"), &json).unwrap();
    std::fs::write(dir.join("j.js"), JSON_SCRIPT).unwrap();
    let shell = Shell::new(sandkeep_node::install(ShellConfig::default()));
    shell
        .fs()
        .write("/workspace/big.json", json.as_bytes())
        .unwrap();
    shell
        .fs()
        .write("/workspace/j.js", JSON_SCRIPT.as_bytes())
        .unwrap();
    let workloads: [(&str, &[&str]); 4] = [
        ("start-up: node -e '0'", &["-e", "0"]),
        (
            "node -p (object formatting)",
            &["-p", "({a: [1, 2, {b: 'x'}], n: null})"],
        ),
        (
            "1M-iteration loop",
            &[
                "-e",
                "let s = 0; for (let i = 0; i < 1e6; i++) s += i; console.log(s)",
            ],
        ),
        ("read, parse, rewrite 1 MB JSON", &["j.js"]),
    ];
    println!(
        "{:<34} {:>12} {:>12} {:>8}",
        "workload", "sandbox", "host", "ratio"
    );
    for (name, args) in workloads {
        let quoted: Vec<String> = args
            .iter()
            .map(|a| format!("'{}'", a.replace('\'', "'\\''")))
            .collect();
        let script = format!("node {} > /dev/null", quoted.join(" "));
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        for _ in 0..runs {
            let t = Instant::now();
            let out = shell.run(&script, RunOptions::default());
            ours.push(t.elapsed());
            assert_eq!(out.exit_code, 0, "{}", String::from_utf8_lossy(&out.stderr));
            let t = Instant::now();
            let st = Command::new("/usr/bin/node")
                .args(args)
                .current_dir(&dir)
                .stdout(Stdio::null())
                .status()
                .unwrap();
            theirs.push(t.elapsed());
            assert!(st.success());
        }
        let (o, h) = (median(ours), median(theirs));
        println!(
            "{name:<34} {:>10.1}ms {:>10.1}ms {:>7.2}x",
            o.as_secs_f64() * 1e3,
            h.as_secs_f64() * 1e3,
            o.as_secs_f64() / h.as_secs_f64()
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
