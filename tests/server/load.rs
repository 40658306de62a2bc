//! The load benchmark: 100 concurrent agents x 20 `run` calls of `echo hi`
//! through the HTTP API of a separate `sandkeep serve --backend local`
//! (ignored; run it on a quiet machine).

use super::*;

/// `sandkeep serve --backend local` on a free loopback port, logging only
/// warnings (a benchmark should not measure debug logging); its URL.
fn spawn_quiet_serve(data: &Path, extra: &[&str]) -> (Child, String) {
    let mut cmd = serve_command(data, "local", extra);
    cmd.env("RUST_LOG", "warn");
    serve_child(cmd, false)
}

/// The load benchmark of issue 16: `AGENTS` concurrent agents (default 100),
/// each opening a session and sending `RUNS` (default 20) `run` calls of
/// `echo hi` one after another, through a `sandkeep serve --backend local`
/// process on loopback (a separate process, as in production; this test is
/// the load generator). Prints errors, runs/s and p50/p99/max latency of the
/// runs; fails on any error, and on missed targets (>= 2,000 runs/s, p99 <=
/// 50 ms) only with `SANDKEEP_LOAD_ASSERT=1` (the numbers depend on how busy
/// the machine is).
///
/// Run: `cargo test --release --test server -- --ignored --nocapture
/// load_100_agents_x_20_runs` (`SANDKEEP_LOAD_AGENTS`, `SANDKEEP_LOAD_RUNS`
/// change the shape).
#[test]
#[ignore = "load benchmark; run on a quiet machine, see the doc comment"]
fn load_100_agents_x_20_runs() {
    let agents = env_usize("SANDKEEP_LOAD_AGENTS", 100);
    let runs = env_usize("SANDKEEP_LOAD_RUNS", 20);
    let data = tempfile::tempdir().unwrap();
    let per_token = agents.max(100).to_string();
    let (mut child, base) = spawn_quiet_serve(
        data.path(),
        &[
            "--max-sessions-per-token",
            &per_token,
            "--max-sessions",
            &per_token,
        ],
    );
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (latencies, errors, wall, create_wall) = rt.block_on(async {
        let c = Client::builder()
            .pool_max_idle_per_host(agents)
            .build()
            .unwrap();
        // Sessions first (not timed as runs): the benchmark is about runs.
        let started = std::time::Instant::now();
        let mut ids = Vec::new();
        for chunk in (0..agents).collect::<Vec<_>>().chunks(20) {
            let creates = chunk.iter().map(|i| {
                let (c, base) = (c.clone(), base.clone());
                async move { create(&c, &base, &format!("load-{i}"), None).await }
            });
            for (status, v) in futures_util::future::join_all(creates).await {
                assert_eq!(status, StatusCode::CREATED, "{v}");
                ids.push(v["session"].as_str().unwrap().to_string());
            }
        }
        let create_wall = started.elapsed();
        let started = std::time::Instant::now();
        let tasks: Vec<_> = ids
            .into_iter()
            .map(|id| {
                let (c, base) = (c.clone(), base.clone());
                tokio::spawn(async move {
                    let mut times = Vec::with_capacity(runs);
                    let mut errors = 0usize;
                    for _ in 0..runs {
                        let t = std::time::Instant::now();
                        let ok = match c
                            .post(format!("{base}/v1/sessions/{id}/run"))
                            .json(&json!({"command": "echo hi"}))
                            .send()
                            .await
                        {
                            Ok(r) if r.status() == StatusCode::OK => r
                                .json::<Value>()
                                .await
                                .is_ok_and(|v| v["stdout"] == "hi\n" && v["exit_code"] == 0),
                            _ => false,
                        };
                        times.push(t.elapsed());
                        errors += usize::from(!ok);
                    }
                    (times, errors)
                })
            })
            .collect();
        let mut latencies = Vec::new();
        let mut errors = 0;
        for t in tasks {
            let (times, e) = t.await.unwrap();
            latencies.extend(times);
            errors += e;
        }
        (latencies, errors, started.elapsed(), create_wall)
    });
    sigterm(&child);
    let _ = child.wait();
    let mut sorted = latencies;
    sorted.sort();
    let total = sorted.len();
    let per_sec = total as f64 / wall.as_secs_f64();
    let q = |at| quantile(&sorted, at).unwrap_or_default();
    let (p50, p99) = (q(0.50), q(0.99));
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "load: {agents} agents x {runs} runs of `echo hi`: {total} runs, {errors} errors, \
         {per_sec:.0} runs/s, p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms \
         ({agents} sessions created in {:.0} ms; loadavg before teardown: {})",
        p50.as_secs_f64() * 1e3,
        p99.as_secs_f64() * 1e3,
        sorted[total - 1].as_secs_f64() * 1e3,
        create_wall.as_secs_f64() * 1e3,
        load.trim()
    );
    assert_eq!(errors, 0, "runs failed");
    if std::env::var("SANDKEEP_LOAD_ASSERT").as_deref() == Ok("1") {
        assert!(per_sec >= 2000.0, "{per_sec:.0} runs/s < 2,000");
        assert!(p99 <= Duration::from_millis(50), "p99 {p99:?} > 50 ms");
    }
}
