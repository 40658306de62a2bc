//! `sqlite3` in the local sandbox side by side with the host's
//! `/usr/bin/sqlite3`: 100k inserts (one transaction, from a script on
//! stdin), 2k autocommit inserts (the host syncs its file at each), and a
//! grouped query over the 100k rows.
//! Each workload runs in a fresh sandbox / temp dir; prints the median wall
//! time of each side and the ratio (ours / host).
//!
//! Run: `cargo bench -p sandkeep-sqlite --bench sqlite_vs_host`
//! (`SQ_BENCH_RUNS=N` sets the repetitions, 5 by default).
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use sandkeep_shell::{RunOptions, Shell, ShellConfig};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn inserts(n: usize, transaction: bool) -> String {
    let mut s = String::from("create table t(id integer primary key, name text, score real);\n");
    if transaction {
        s.push_str("begin;\n");
    }
    for i in 0..n {
        s.push_str(&format!(
            "insert into t(name, score) values ('user{i}', {}.5);\n",
            i % 100
        ));
    }
    if transaction {
        s.push_str("commit;\n");
    }
    s.push_str("select count(*) from t;\n");
    s
}

fn main() {
    let runs: usize = std::env::var("SQ_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let big = inserts(100_000, true);
    let auto = inserts(2_000, false);
    let query = "select name like 'user1%', count(*), avg(score) from t group by 1;";
    let workloads: [(&str, &str, &str); 3] = [
        ("100k inserts in one transaction", &big, "bench.sql"),
        ("2k autocommit inserts", &auto, "auto.sql"),
        ("group by over 100k rows", query, "query.sql"),
    ];
    println!(
        "{:<34} {:>12} {:>12} {:>8}",
        "workload", "sandbox", "host", "ratio"
    );
    for (name, sql, file) in workloads {
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        for _ in 0..runs {
            let shell = Shell::new(sandkeep_sqlite::install(ShellConfig::default()));
            let dir = std::env::temp_dir().join(format!("sandkeep-sqbench-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            // The query workload needs the 100k rows first (not timed).
            if file == "query.sql" {
                shell
                    .fs()
                    .write("/workspace/seed.sql", big.as_bytes())
                    .unwrap();
                shell.run("sqlite3 b.db < seed.sql", RunOptions::default());
                std::fs::write(dir.join("seed.sql"), &big).unwrap();
                Command::new("sqlite3")
                    .arg(dir.join("b.db"))
                    .stdin(std::fs::File::open(dir.join("seed.sql")).unwrap())
                    .stdout(Stdio::null())
                    .status()
                    .unwrap();
            }
            shell
                .fs()
                .write(&format!("/workspace/{file}"), sql.as_bytes())
                .unwrap();
            std::fs::write(dir.join(file), sql).unwrap();
            let opts = RunOptions {
                timeout: Some(Duration::from_secs(300)),
                ..RunOptions::default()
            };
            let t = Instant::now();
            let out = shell.run(&format!("sqlite3 b.db < {file} > /dev/null"), opts);
            ours.push(t.elapsed());
            assert_eq!(out.exit_code, 0, "{}", String::from_utf8_lossy(&out.stderr));
            let t = Instant::now();
            let st = Command::new("sqlite3")
                .arg(dir.join("b.db"))
                .stdin(std::fs::File::open(dir.join(file)).unwrap())
                .stdout(Stdio::null())
                .status()
                .unwrap();
            theirs.push(t.elapsed());
            assert!(st.success());
            let _ = std::fs::remove_dir_all(&dir);
        }
        let (o, h) = (median(ours), median(theirs));
        println!(
            "{name:<34} {:>10.1}ms {:>10.1}ms {:>7.2}x",
            o.as_secs_f64() * 1e3,
            h.as_secs_f64() * 1e3,
            o.as_secs_f64() / h.as_secs_f64()
        );
    }
}
