//! Side-by-side benchmark: each case runs in sandkeep's in-process shell and
//! through `bash -c` on the host (GNU tools) in the same run, and prints the
//! medians and their ratio. Run with `cargo bench -p sandkeep-shell`.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::process::Command;
use std::time::{Duration, Instant};

use sandkeep_shell::{RunOptions, Shell, ShellConfig};

/// One benchmark case: a setup script (not timed) and the timed script.
struct Case {
    name: &'static str,
    what: &'static str,
    setup: &'static str,
    script: &'static str,
    /// Whether the timed part includes creating a fresh sandbox.
    fresh: bool,
}

const CASES: &[Case] = &[
    Case {
        name: "C1",
        what: "new sandbox + echo hi",
        setup: "",
        script: "echo hi",
        fresh: true,
    },
    Case {
        name: "C2",
        what: "for i in $(seq 1 10000); x=$((x+i))",
        setup: "",
        script: "for i in $(seq 1 10000); do x=$((x+i)); done; echo $x",
        fresh: false,
    },
    Case {
        name: "C3",
        what: "grep -c 7 over a 10 MB file (seq 1 1388000)",
        setup: "seq 1 1388000 > big.txt",
        script: "grep -c 7 big.txt",
        fresh: false,
    },
    Case {
        name: "C4",
        what: "seq 1 100000 | sort -rn | head -3",
        setup: "",
        script: "seq 1 100000 | sort -rn | head -3",
        fresh: false,
    },
    Case {
        name: "C5",
        what: "1,000 files: tar czf + tar tzf | wc -l",
        setup: "mkdir -p ws && cd ws && for i in $(seq 1 1000); do echo \"file $i\" > f$i.txt; done",
        script: "cd ws && tar czf /tmp/ws.tgz -C . . && tar tzf /tmp/ws.tgz | wc -l",
        fresh: false,
    },
    Case {
        name: "C6",
        what: "printf '{\"a\":[1,2,3]}' | jq '.a | add'",
        setup: "",
        script: "printf '{\"a\":[1,2,3]}' | jq '.a | add'",
        fresh: false,
    },
    Case {
        name: "A1",
        what: "awk '{s+=$1} END{print s}' over 1M lines",
        setup: "seq 1 1000000 > n.txt",
        script: "awk '{s+=$1} END{print s}' n.txt",
        fresh: false,
    },
    Case {
        name: "J1",
        what: "jq length over a 5 MB JSON array",
        setup: "seq 1 700000 | awk 'BEGIN{printf \"[\"} NR>1{printf \",\"} {printf \"%d\", $1} END{print \"]\"}' > a.json",
        script: "jq length a.json",
        fresh: false,
    },
    Case {
        name: "F1",
        what: "find over 10,000 files | wc -l",
        setup: "mkdir -p t && for d in $(seq 1 100); do mkdir t/d$d; for f in $(seq 1 100); do : > t/d$d/f$f; done; done",
        script: "find t -type f | wc -l",
        fresh: false,
    },
    Case {
        name: "C7",
        what: "recursive f 10 with $( )",
        setup: "",
        script: "f(){ if [ $1 -le 1 ]; then echo 1; else echo $(( $1 * $(f $(( $1 - 1 ))) )); fi; }; f 10",
        fresh: false,
    },
    Case {
        name: "R1",
        what: "rg -c over a 100 MB tree (1,000 files of 100 KB)",
        setup: "seq 1 18000 > b && for d in $(seq 1 100); do mkdir -p t/d$d; for f in $(seq 1 10); do cp b t/d$d/f$f.txt; done; done",
        script: "rg -c 7777 t | wc -l",
        fresh: false,
    },
    Case {
        name: "R2",
        what: "rg -l over 10,000 small files",
        setup: "for i in $(seq 1 100); do mkdir -p s/$i; for j in $(seq 1 100); do echo \"line $j needle\" > s/$i/$j.txt; done; done",
        script: "rg -l 'line 7 ' s | wc -l",
        fresh: false,
    },
];

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Runs `f` repeatedly for about `budget` (at least 5 times) and returns the median.
fn measure(budget: Duration, mut f: impl FnMut()) -> Duration {
    f(); // warm-up
    let start = Instant::now();
    let mut samples = Vec::new();
    while samples.len() < 5 || (start.elapsed() < budget && samples.len() < 10_000) {
        let t = Instant::now();
        f();
        samples.push(t.elapsed());
    }
    median(samples)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let budget = Duration::from_millis(
        std::env::var("BENCH_MS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(2000),
    );
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    println!("| case | what | sandkeep (ms) | bash + GNU (ms) | bash / sandkeep |");
    println!("|---|---|---:|---:|---:|");
    for case in CASES {
        if !filter.is_empty() && !filter.iter().any(|f| f == case.name) {
            continue;
        }
        // sandkeep
        let shell = Shell::new(ShellConfig::default());
        if !case.setup.is_empty() {
            let out = shell.run(case.setup, RunOptions::default());
            assert_eq!(
                out.exit_code,
                0,
                "setup failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let check = shell.run(case.script, RunOptions::default());
        let ours = measure(budget, || {
            let out = if case.fresh {
                Shell::new(ShellConfig::default()).run(case.script, RunOptions::default())
            } else {
                shell.run(case.script, RunOptions::default())
            };
            std::hint::black_box(out);
        });
        // bash on the host, in a temp dir
        let dir = std::env::temp_dir().join(format!(
            "sandkeep-bench-{}-{}",
            case.name,
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let bash = |script: &str| {
            Command::new("bash")
                .arg("-c")
                .arg(script)
                .current_dir(&dir)
                .output()
                .unwrap()
        };
        if !case.setup.is_empty() {
            assert!(bash(case.setup).status.success());
        }
        let host_check = bash(case.script);
        let theirs = measure(budget, || {
            std::hint::black_box(bash(case.script));
        });
        std::fs::remove_dir_all(&dir).ok();
        let same = check.stdout == host_check.stdout;
        println!(
            "| {} | {} | {:.3} | {:.3} | {:.1}x{} |",
            case.name,
            case.what,
            ms(ours),
            ms(theirs),
            ms(theirs) / ms(ours),
            if same { "" } else { " (OUTPUT DIFFERS)" }
        );
    }
}
