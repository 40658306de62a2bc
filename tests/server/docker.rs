//! `sandkeep serve` on the docker backend: every endpoint with the warm
//! pool, SSE, a client that leaves cancelling its run, idle park into a warm container, SIGTERM leaving no container,
//! and the ignored latency measurement (`docker_latency`).

use super::*;

/// A runtime over the docker backend with a pool of `pool` warm containers
/// (0: none), or `None` after printing why the docker tests are skipped.
async fn docker_runtime(data: &Path, pool: usize) -> Option<(Runtime, Arc<DockerBackend>)> {
    let config = DockerConfig {
        pool: PoolConfig {
            size: pool,
            ..PoolConfig::default()
        },
        ..docker_support::test_config()
    };
    let backend = Arc::new(docker_support::backend_with(config).await?);
    let runtime = Runtime::builder()
        .data_dir(data)
        .backend(backend.clone())
        .build();
    Some((runtime, backend))
}

/// The containers the sessions under `data` ran in (from their event logs).
fn containers_used(data: &Path) -> Vec<String> {
    let mut ids = Vec::new();
    for log in walk(&data.join("agents")) {
        if log.extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        for line in std::fs::read_to_string(&log).unwrap_or_default().lines() {
            if let Ok(v) = serde_json::from_str::<Value>(line)
                && v["event"] == "session.created"
                && let Some(id) = v["sandbox"].as_str()
            {
                ids.push(id.to_string());
            }
        }
    }
    ids
}

/// Every container in `ids` is gone.
async fn all_removed(backend: &DockerBackend, ids: &[String]) {
    for id in ids {
        let inspect = backend
            .docker()
            .inspect_container(
                id,
                None::<bollard::query_parameters::InspectContainerOptions>,
            )
            .await;
        assert!(inspect.is_err(), "container {id} outlived its session");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_rest_endpoint_round_trips_on_docker_with_a_pool() {
    let data = tempfile::tempdir().unwrap();
    let Some((runtime, backend)) = docker_runtime(data.path(), 2).await else {
        return;
    };
    every_rest_endpoint(start_on(runtime, ServeConfig::default()).await, "docker").await;
    let stats = backend.pool_stats().unwrap();
    assert!(stats.hits >= 1, "sessions took warm containers: {stats:?}");
    assert_eq!(stats.ready, 0, "the shutdown emptied the pool: {stats:?}");
    let used = containers_used(data.path());
    assert!(used.len() >= 3, "{used:?}");
    all_removed(&backend, &used).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_streams_as_server_sent_events_on_docker() {
    let data = tempfile::tempdir().unwrap();
    let Some((runtime, backend)) = docker_runtime(data.path(), 0).await else {
        return;
    };
    streams_as_sse(start_on(runtime, ServeConfig::default()).await).await;
    all_removed(&backend, &containers_used(data.path())).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_session_on_docker_is_parked_and_resumes_in_a_warm_container() {
    let data = tempfile::tempdir().unwrap();
    let Some((runtime, backend)) = docker_runtime(data.path(), 1).await else {
        return;
    };
    idle_park_and_resume(start_on(runtime, idle_config()).await, data.path()).await;
    let used = containers_used(data.path());
    assert_eq!(used.len(), 2, "one container before the park, one after");
    all_removed(&backend, &used).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_streaming_client_that_leaves_cancels_its_docker_run_unless_detached() {
    let data = tempfile::tempdir().unwrap();
    let Some((runtime, backend)) = docker_runtime(data.path(), 0).await else {
        return;
    };
    let srv = start_on(runtime, ServeConfig::default()).await;
    guard::leaving_cancels_unless_detached(srv).await;
    all_removed(&backend, &containers_used(data.path())).await;
}

/// The containers labelled with owner `pid` (running or not).
async fn containers_owned_by(backend: &DockerBackend, pid: u32) -> Vec<String> {
    use bollard::query_parameters::ListContainersOptions;
    let filters = std::collections::HashMap::from([(
        "label".to_string(),
        vec![format!("sandkeep.owner={pid}")],
    )]);
    let options = ListContainersOptions {
        all: true,
        filters: Some(filters),
        ..Default::default()
    };
    backend
        .docker()
        .list_containers(Some(options))
        .await
        .unwrap()
        .into_iter()
        .filter_map(|c| c.id)
        .collect()
}

#[test]
fn sigterm_on_docker_parks_every_session_and_leaves_no_container() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let Some(backend) = rt.block_on(docker_support::backend()) else {
        return;
    };
    let data = tempfile::tempdir().unwrap();
    let (mut child, base) = spawn_serve_on("docker", data.path(), &["--docker-pool", "2"]);
    rt.block_on(async {
        let c = client();
        for agent in ["alice", "bob"] {
            let (status, v) = create(&c, &base, agent, None).await;
            assert_eq!(status, StatusCode::CREATED, "{v}");
            let id = v["session"].as_str().unwrap();
            run(&c, &base, id, &format!("echo {agent} > who.txt")).await;
        }
        // Two sessions' containers, and the pool refilling behind them.
        let owned = containers_owned_by(&backend, child.id()).await;
        assert!(owned.len() >= 2, "{owned:?}");
    });
    sigterm(&child);
    let status = child.wait().unwrap();
    assert!(status.success(), "{status}");
    let log = LOGS.with(|l| l.borrow_mut().pop().unwrap()).join().unwrap();
    assert!(log.contains("every session parked"), "{log}");
    let left = rt.block_on(containers_owned_by(&backend, child.id()));
    assert!(
        left.is_empty(),
        "containers left after SIGTERM: {left:?}\n{log}"
    );
    assert_kept_at_sigterm(data.path());
}

/// `serve --docker-pool` on the local backend is refused with the reason.
#[test]
fn a_docker_pool_without_docker_is_refused() {
    let data = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_sandkeep"))
        .arg("--data")
        .arg(data.path())
        .args(["serve", "--backend", "local", "--listen", "127.0.0.1:0"])
        .args(["--docker-pool", "2"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--docker-pool 2 needs the docker backend"),
        "{err}"
    );
}

fn summary(name: &str, mut ms: Vec<f64>) -> String {
    ms.sort_by(f64::total_cmp);
    format!(
        "{name:<44} n={:<4} p50 {:>7.1} ms  p95 {:>7.1} ms  p99 {:>7.1} ms  max {:>7.1} ms",
        ms.len(),
        quantile(&ms, 0.50).unwrap_or(f64::NAN),
        quantile(&ms, 0.95).unwrap_or(f64::NAN),
        quantile(&ms, 0.99).unwrap_or(f64::NAN),
        ms.last().copied().unwrap_or(f64::NAN)
    )
}

fn ms_since(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

/// One session: created, its first command streamed until the first
/// `stdout` event, then completed. Returns (create, first output, exit) in
/// ms from the start of the creation.
async fn one_session(c: &Client, base: &str, agent: &str) -> Result<(f64, f64, f64), String> {
    let t0 = Instant::now();
    let (status, v) = create(c, base, agent, None).await;
    if status != StatusCode::CREATED {
        return Err(format!("create: {status} {v}"));
    }
    let created = ms_since(t0);
    let id = v["session"].as_str().unwrap().to_string();
    let mut r = c
        .post(format!("{base}/v1/sessions/{id}/run"))
        .header("accept", "text/event-stream")
        .json(&json!({"command": "echo hi"}))
        .send()
        .await
        .map_err(|e| e.to_string())?;
    let (mut body, mut first) = (String::new(), None);
    while let Some(chunk) = r.chunk().await.map_err(|e| e.to_string())? {
        body.push_str(&String::from_utf8_lossy(&chunk));
        if first.is_none() && body.contains("event: stdout") {
            first = Some(ms_since(t0));
        }
    }
    let done = ms_since(t0);
    let events = sse_events(&body);
    if !events
        .iter()
        .any(|(e, d)| e == "exit" && d["exit_code"] == 0)
    {
        return Err(format!("run: {body}"));
    }
    let r = c
        .delete(format!("{base}/v1/sessions/{id}"))
        .send()
        .await
        .map_err(|e| e.to_string())?;
    if !r.status().is_success() {
        return Err(format!("complete: {}", r.status()));
    }
    Ok((created, first.ok_or("no stdout event")?, done))
}

/// Measurement, not a check: it prints figures (and fails only on errors).
/// Session creation to first output over `SANDKEEP_BENCH_SESSIONS` (100)
/// sessions with a pool of `SANDKEEP_BENCH_POOL` (4) and without; 10
/// agents x 10 `echo hi` runs at once through the HTTP API; and for
/// reference a bare `docker exec true` and a sandbox run without HTTP.
///
/// `DOCKER_HOST=... cargo test --release --test server -- --ignored --nocapture docker_latency`
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore]
async fn docker_latency() {
    use sandkeep::{Backend, RunRequest, SandboxSpec};
    let sessions = env_usize("SANDKEEP_BENCH_SESSIONS", 100);
    let pool = env_usize("SANDKEEP_BENCH_POOL", 4);
    let mut report = Vec::new();

    // Reference: one exec, and one sandbox run (exec, exit code, sweep).
    let data = tempfile::tempdir().unwrap();
    let Some((_, backend)) = docker_runtime(data.path(), 0).await else {
        return;
    };
    let spec = SandboxSpec {
        session_id: docker_support::session_id("bench"),
        agent: "bench".into(),
        env: vec![],
    };
    let sandbox = backend.create(&spec).await.unwrap();
    let unwatched = DockerConfig {
        storage_bytes: None,
        ..docker_support::test_config()
    };
    let unwatched = docker_support::backend_with(unwatched).await.unwrap();
    let unwatched_sandbox = unwatched.create(&spec).await.unwrap();
    let docker = backend.docker();
    let (mut exec_ms, mut output_ms, mut run_ms, mut unwatched_ms) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..30 {
        let t = Instant::now();
        let exec = docker
            .create_exec(
                sandbox.id(),
                bollard::exec::CreateExecOptions::<String> {
                    attach_stdout: Some(true),
                    cmd: Some(vec!["echo".into(), "hi".into()]),
                    ..Default::default()
                },
            )
            .await
            .unwrap();
        if let bollard::exec::StartExecResults::Attached { mut output, .. } =
            docker.start_exec(&exec.id, None).await.unwrap()
        {
            let mut first = true;
            while futures_util::StreamExt::next(&mut output).await.is_some() {
                if std::mem::take(&mut first) {
                    output_ms.push(ms_since(t));
                }
            }
        }
        docker.inspect_exec(&exec.id).await.unwrap();
        exec_ms.push(ms_since(t));
        let t = Instant::now();
        sandbox.run(RunRequest::new("echo hi")).await.unwrap();
        run_ms.push(ms_since(t));
        let t = Instant::now();
        unwatched_sandbox
            .run(RunRequest::new("echo hi"))
            .await
            .unwrap();
        unwatched_ms.push(ms_since(t));
    }
    sandbox.stop().await.unwrap();
    unwatched_sandbox.stop().await.unwrap();
    report.push(summary("docker exec echo hi: first output", output_ms));
    report.push(summary("docker exec echo hi: exit code known", exec_ms));
    report.push(summary("sandbox.run(echo hi) (exec + sweep)", run_ms));
    report.push(summary("the same without the storage watch", unwatched_ms));

    for pool_size in [pool, 0] {
        let data = tempfile::tempdir().unwrap();
        let (runtime, backend) = docker_runtime(data.path(), pool_size).await.unwrap();
        let srv = start_on(runtime, ServeConfig::default()).await;
        let c = client();
        let (mut created, mut first, mut done, mut errors) = (vec![], vec![], vec![], 0);
        for i in 0..sessions {
            if pool_size > 0 {
                // Measures a pool that keeps up: refills are not timed.
                for _ in 0..300 {
                    if backend.pool_stats().unwrap().ready >= 1 {
                        break;
                    }
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            }
            match one_session(&c, &srv.base, &format!("bench{i}")).await {
                Ok((a, b, d)) => {
                    created.push(a);
                    first.push(b);
                    done.push(d);
                }
                Err(e) => {
                    errors += 1;
                    eprintln!("session {i}: {e}");
                }
            }
        }
        let label = if pool_size > 0 {
            format!("pool {pool_size}")
        } else {
            "no pool".to_string()
        };
        report.push(format!(
            "-- {label}: {errors} errors, {:?}",
            backend.pool_stats()
        ));
        report.push(summary(&format!("{label}: POST sessions"), created));
        report.push(summary(
            &format!("{label}: creation to first output"),
            first,
        ));
        report.push(summary(&format!("{label}: creation to exit event"), done));
        srv.shutdown().await;
        assert_eq!(errors, 0);
    }

    // 10 agents x 10 runs of `echo hi` at once (sessions opened first).
    let data = tempfile::tempdir().unwrap();
    let (runtime, _backend) = docker_runtime(data.path(), 10).await.unwrap();
    let srv = start_on(runtime, ServeConfig::default()).await;
    tokio::time::sleep(Duration::from_secs(10)).await;
    let c = client();
    let mut ids = Vec::new();
    for a in 0..10 {
        let (status, v) = create(&c, &srv.base, &format!("load{a}"), None).await;
        assert_eq!(status, StatusCode::CREATED, "{v}");
        ids.push(v["session"].as_str().unwrap().to_string());
    }
    let t = Instant::now();
    let agents = ids.into_iter().map(|id| {
        let (c, base) = (c.clone(), srv.base.clone());
        tokio::spawn(async move {
            let (mut ms, mut errors) = (Vec::new(), 0);
            for _ in 0..10 {
                let t = Instant::now();
                let r = c
                    .post(format!("{base}/v1/sessions/{id}/run"))
                    .json(&json!({"command": "echo hi"}))
                    .send()
                    .await;
                match r {
                    Ok(r) if r.status() == StatusCode::OK => {
                        let v: Value = r.json().await.unwrap_or_default();
                        if v["stdout"] == "hi\n" {
                            ms.push(ms_since(t));
                            continue;
                        }
                        errors += 1;
                    }
                    _ => errors += 1,
                }
            }
            (ms, errors)
        })
    });
    let (mut all, mut errors) = (Vec::new(), 0);
    for done in futures_util::future::join_all(agents).await {
        let (ms, e) = done.unwrap();
        all.extend(ms);
        errors += e;
    }
    let wall = t.elapsed().as_secs_f64();
    report.push(format!(
        "-- 10 agents x 10 runs: {errors} errors, {} runs in {wall:.2} s = {:.1} runs/s",
        all.len(),
        all.len() as f64 / wall
    ));
    report.push(summary("10x10 echo hi: run latency", all));
    srv.shutdown().await;
    println!("\n{}", report.join("\n"));
    assert_eq!(errors, 0);
}
