//! The docker backend against what a hostile script does to outlive its run
//! or fill the host's disk: background processes that drop the run's marker
//! or leave its session, a run that ends while another is still going, one
//! huge file, many files. Skips with a printed reason when no daemon
//! answers, unless `SANDKEEP_REQUIRE_DOCKER=1`.

use crate::docker_support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use docker_support::{backend, backend_with, sandbox, teardown, test_config};
use sandkeep::{DockerConfig, RunRequest};

/// The `sleep 30N` processes still running in the sandbox.
async fn leftovers(sb: &dyn sandkeep::Sandbox) -> String {
    let r = sb
        .run(RunRequest::new(
            "ps -eo args= | grep '^[/a-z]*sleep 3[0-9][0-9]' || true",
        ))
        .await
        .unwrap();
    r.stdout_text()
}

#[tokio::test]
async fn processes_that_drop_the_marker_or_leave_the_session_die_with_the_run() {
    let Some(backend) = backend().await else {
        return;
    };
    let sb = sandbox(&backend, "escapees").await;
    let started = Instant::now();
    let r = sb
        .run(
            RunRequest::new(
                "env -u SANDKEEP_RUN sleep 301 >/dev/null 2>&1 &
                 env -i /bin/sleep 303 >/dev/null 2>&1 &
                 setsid sleep 304 >/dev/null 2>&1 &
                 setsid env -i /bin/sleep 305 >/dev/null 2>&1 &
                 echo started; sleep 302",
            )
            .timeout(Duration::from_secs(2)),
        )
        .await
        .unwrap();
    assert_eq!((r.exit_code, r.timed_out), (124, true));
    assert_eq!(r.stdout_text(), "started\n");
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(
        leftovers(sb.as_ref()).await,
        "",
        "processes outlived the run"
    );

    // A run that ends normally leaves nothing behind either.
    let r = sb
        .run(RunRequest::new(
            "setsid env -i /bin/sleep 306 >/dev/null 2>&1 </dev/null & echo done",
        ))
        .await
        .unwrap();
    assert_eq!((r.exit_code, r.stdout_text().as_str()), (0, "done\n"));
    assert_eq!(leftovers(sb.as_ref()).await, "");
    teardown(&backend, sb).await;
}

#[tokio::test]
async fn a_run_that_ends_does_not_sweep_a_run_still_going() {
    let Some(backend) = backend().await else {
        return;
    };
    let sb = sandbox(&backend, "concurrent").await;
    let long = {
        let sb = Arc::clone(&sb);
        tokio::spawn(async move {
            sb.run(RunRequest::new("sleep 3; echo alive").timeout(Duration::from_secs(20)))
                .await
        })
    };
    tokio::time::sleep(Duration::from_millis(500)).await;
    let short = sb
        .run(RunRequest::new(
            "setsid sleep 307 >/dev/null 2>&1 & echo short",
        ))
        .await
        .unwrap();
    assert_eq!(short.stdout_text(), "short\n");
    let long = long.await.unwrap().unwrap();
    assert_eq!(
        (long.exit_code, long.stdout_text().as_str()),
        (0, "alive\n")
    );
    // Once both ended, the short run's escapee is gone too.
    assert_eq!(leftovers(sb.as_ref()).await, "");
    teardown(&backend, sb).await;
}

/// The peak resident set of this test process, in bytes.
fn peak_rss() -> u64 {
    #[allow(clippy::disallowed_methods)]
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .unwrap()
        * 1024
}

#[tokio::test]
async fn reading_a_huge_sparse_file_streams_only_its_head() {
    let Some(backend) = backend().await else {
        return;
    };
    let sb = sandbox(&backend, "sparse").await;
    let r = sb
        .run(RunRequest::new("truncate -s 700M sparse"))
        .await
        .unwrap();
    assert_eq!(r.exit_code, 0, "{}", r.stderr_text());
    let head = sb.read_file_head("sparse", 1 << 20).await.unwrap().unwrap();
    assert_eq!((head.data.len(), head.size), (1 << 20, 700 << 20));
    assert!(head.truncated() && head.data.iter().all(|&b| b == 0));
    // Whole reads are capped with a message naming the size.
    let err = sb.read_file("sparse").await.unwrap_err().to_string();
    assert!(
        err.contains("734003200 bytes") && err.contains("268435456"),
        "{err}"
    );
    assert!(peak_rss() < 600 << 20, "peak RSS {} bytes", peak_rss());
    teardown(&backend, sb).await;
}

#[tokio::test]
async fn a_sandbox_cannot_fill_the_hosts_disk() {
    let config = DockerConfig {
        storage_bytes: Some(64 << 20),
        ..test_config()
    };
    let Some(backend) = backend_with(config).await else {
        return;
    };
    let sb = sandbox(&backend, "storage").await;

    // One file past the limit: refused by the driver or by the file cap.
    let r = sb
        .run(
            RunRequest::new("head -c 100M /dev/zero > big; echo status $?; ls -l big")
                .timeout(Duration::from_secs(30)),
        )
        .await
        .unwrap();
    let out = r.stdout_text();
    assert!(!out.contains("status 0"), "{out} {}", r.stderr_text());
    assert!(
        r.stderr_text().contains("File size limit exceeded")
            || r.stderr_text().contains("No space left"),
        "{}",
        r.stderr_text()
    );
    sb.run(RunRequest::new("rm -f big")).await.unwrap();

    // Many files under the cap each: the run is ended with a clear message.
    let started = Instant::now();
    let r = sb
        .run(
            RunRequest::new(
                "for i in $(seq 40); do head -c 8M /dev/zero > f$i || exit 3; sleep 0.1; done; sleep 30",
            )
            .timeout(Duration::from_secs(60)),
        )
        .await
        .unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
    let err = r.stderr_text();
    assert!(
        (r.exit_code == 124 && err.contains("storage limit exceeded (67108864 bytes)"))
            || err.contains("No space left"),
        "status {}: {err}",
        r.exit_code
    );
    // Over the limit, cleaning up still works, and then writing again.
    let r = sb
        .run(RunRequest::new("rm -f f*; echo x > small && cat small"))
        .await
        .unwrap();
    assert_eq!(
        (r.exit_code, r.stdout_text().as_str()),
        (0, "x\n"),
        "{}",
        r.stderr_text()
    );
    teardown(&backend, sb).await;
}
