//! The backend benchmark: the same operations on the local backend and on
//! docker, in one run, as a table of medians and the ratio local/docker.
//! Ignored by default (it is a measurement, not a check):
//!
//! ```text
//! cargo test --release --test docker parity_bench:: -- --ignored --nocapture
//! ```

use crate::docker_support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use sandkeep::{Backend, LocalBackend, RunRequest, Sandbox, SandboxSpec};

/// One measured case: its name and the per-backend iteration counts.
struct Bench {
    name: &'static str,
    local_iters: usize,
    docker_iters: usize,
}

const BENCHES: &[Bench] = &[
    Bench {
        name: "create + stop a sandbox",
        local_iters: 200,
        docker_iters: 10,
    },
    Bench {
        name: "run `echo hi`",
        local_iters: 200,
        docker_iters: 20,
    },
    Bench {
        name: "1 MB write_file + read_file",
        local_iters: 100,
        docker_iters: 20,
    },
    Bench {
        name: "tar czf + tzf of 1,000 files",
        local_iters: 20,
        docker_iters: 10,
    },
];

fn spec() -> SandboxSpec {
    SandboxSpec {
        session_id: docker_support::session_id("bench"),
        agent: "bench".into(),
        env: vec![],
    }
}

async fn ok(sb: &dyn Sandbox, script: &str) -> String {
    let r = sb
        .run(RunRequest::new(script).timeout(Duration::from_secs(120)))
        .await
        .unwrap();
    assert_eq!(r.exit_code, 0, "{script}: {}", r.stderr_text());
    r.stdout_text()
}

/// Median wall time, in milliseconds, of `iters` runs of case `index`.
async fn measure(backend: &Arc<dyn Backend>, index: usize, iters: usize) -> f64 {
    let sb = backend.create(&spec()).await.unwrap();
    let data: Vec<u8> = (0..1u32 << 20).map(|i| (i * 7 % 251) as u8).collect();
    if index == 3 {
        ok(
            &*sb,
            "mkdir -p f && for i in $(seq 1 1000); do echo \"file $i\" > f/$i.txt; done",
        )
        .await;
    }
    let mut times = Vec::with_capacity(iters);
    for _ in 0..iters {
        let started = Instant::now();
        match index {
            0 => {
                let other = backend.create(&spec()).await.unwrap();
                other.stop().await.unwrap();
            }
            1 => assert_eq!(ok(&*sb, "echo hi").await, "hi\n"),
            2 => {
                sb.write_file("one-mb.bin", &data).await.unwrap();
                assert_eq!(
                    sb.read_file("one-mb.bin").await.unwrap().map(|d| d.len()),
                    Some(1 << 20)
                );
            }
            _ => {
                let n = ok(
                    &*sb,
                    "tar czf /tmp/ws.tgz -C f . && tar tzf /tmp/ws.tgz | wc -l",
                )
                .await;
                assert_eq!(n.trim(), "1001");
            }
        }
        times.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    sb.stop().await.unwrap();
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    times[times.len() / 2]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a benchmark: run with --ignored --nocapture (in --release)"]
async fn backend_benchmark() {
    let local: Arc<dyn Backend> = Arc::new(LocalBackend::new());
    let docker: Option<Arc<dyn Backend>> = docker_support::backend()
        .await
        .map(|d| Arc::new(d) as Arc<dyn Backend>);
    println!();
    println!("| case | local (median ms) | docker (median ms) | local/docker | speed-up |");
    println!("|---|---:|---:|---:|---:|");
    for (i, bench) in BENCHES.iter().enumerate() {
        let l = measure(&local, i, bench.local_iters).await;
        match &docker {
            Some(d) => {
                let d = measure(d, i, bench.docker_iters).await;
                println!(
                    "| {} | {l:.3} | {d:.1} | {:.1e} | {:.0}x |",
                    bench.name,
                    l / d,
                    d / l
                );
            }
            None => println!("| {} | {l:.3} | (no daemon) | | |", bench.name),
        }
    }
}
