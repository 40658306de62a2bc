//! Worker-process mode (`--isolation process`): each sandbox in a child
//! `sandkeep worker` with rlimits. What a session sees of it (runs, files,
//! streamed output, workspace transfer), and what happens when a worker dies
//! under it: only that sandbox is gone, with a message saying so, and the
//! next sandbox works.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sandkeep::{
    Backend, OutputSink, RunRequest, Sandbox, SandboxError, SandboxSpec, WorkerBackend,
    WorkerLimits,
};

fn backend() -> WorkerBackend {
    WorkerBackend::new(env!("CARGO_BIN_EXE_sandkeep"), WorkerLimits::default())
}

fn spec(name: &str) -> SandboxSpec {
    SandboxSpec {
        session_id: format!("{name}-{}", std::process::id()),
        agent: "tests".into(),
        env: vec![("GREETING".into(), "hello".into())],
    }
}

#[derive(Default)]
struct Recorder(Mutex<Vec<u8>>);

impl OutputSink for Recorder {
    fn stdout(&self, chunk: &[u8]) {
        self.0.lock().unwrap().extend_from_slice(chunk);
    }
    fn stderr(&self, _: &[u8]) {}
}

#[tokio::test]
async fn a_worker_sandbox_runs_keeps_files_and_moves_workspaces() {
    let backend = backend();
    let sb = backend.create(&spec("basic")).await.unwrap();
    let r = sb
        .run(RunRequest::new(
            "echo $GREETING > f; cat f; echo err >&2; exit 3",
        ))
        .await
        .unwrap();
    assert_eq!(
        (
            r.exit_code,
            r.stdout_text().as_str(),
            r.stderr_text().as_str()
        ),
        (3, "hello\n", "err\n")
    );
    let mut req = RunRequest::new("tr a-z A-Z < /dev/stdin; cat f");
    req.stdin = b"abc\n".to_vec();
    let sink = Arc::new(Recorder::default());
    req.sink = Some(sink.clone());
    let r = sb.run(req).await.unwrap();
    assert_eq!(r.stdout_text(), "ABC\nhello\n");
    assert_eq!(sink.0.lock().unwrap().as_slice(), b"ABC\nhello\n");

    sb.write_file("d/bin.dat", &[0, 255, 1]).await.unwrap();
    assert_eq!(
        sb.read_file("d/bin.dat").await.unwrap().unwrap(),
        [0, 255, 1]
    );
    assert!(sb.read_file("nope").await.unwrap().is_none());
    let head = sb.read_file_head("f", 2).await.unwrap().unwrap();
    assert_eq!((head.data.as_slice(), head.size), (&b"he"[..], 6));

    let listing = sb.list_workspace().await.unwrap();
    let mut paths: Vec<&str> = listing.entries.iter().map(|e| e.path.as_str()).collect();
    paths.sort();
    assert_eq!(paths, ["d", "d/bin.dat", "f"]);
    let tar = sb
        .export_paths(&["d".to_string(), "d/bin.dat".to_string(), "f".to_string()])
        .await
        .unwrap();

    let other = backend.create(&spec("import")).await.unwrap();
    other.import_workspace(&tar).await.unwrap();
    let r = other
        .run(RunRequest::new("cat f; od -An -tx1 d/bin.dat"))
        .await
        .unwrap();
    assert_eq!(r.stdout_text(), "hello\n 00 ff 01\n");
    other.mark_workspace().await.unwrap();
    other.run(RunRequest::new("echo new > g")).await.unwrap();
    let changes = other.workspace_changes().await.unwrap().unwrap();
    assert!(changes.listing.entries.iter().any(|e| e.path == "g"));
    sb.stop().await.unwrap();
    other.stop().await.unwrap();
    assert!(matches!(
        sb.run(RunRequest::new("true")).await,
        Err(SandboxError::Gone(_))
    ));
}

#[tokio::test]
async fn a_killed_worker_ends_its_sandbox_only() {
    let backend = backend();
    let doomed = backend.create_worker(&spec("doomed")).await.unwrap();
    let bystander = backend.create(&spec("bystander")).await.unwrap();
    doomed.run(RunRequest::new("echo x > f")).await.unwrap();

    // A run in flight when its worker dies (as an abort or a stack overflow
    // in it would end it) reports that, instead of hanging or panicking.
    let pid = doomed.pid();
    let killer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        std::process::Command::new("kill")
            .args(["-9", &pid.to_string()])
            .status()
            .unwrap()
    });
    let started = Instant::now();
    let err = doomed
        .run(RunRequest::new("sleep 20").timeout(Duration::from_secs(30)))
        .await
        .unwrap_err();
    assert!(killer.join().unwrap().success());
    assert!(started.elapsed() < Duration::from_secs(10));
    let msg = err.to_string();
    assert!(
        msg.contains("died of signal 9") && msg.contains("start a new session"),
        "{msg}"
    );
    // The sandbox stays gone; the other worker and a new one work.
    assert!(matches!(
        doomed.run(RunRequest::new("true")).await,
        Err(SandboxError::Gone(_))
    ));
    let r = bystander.run(RunRequest::new("echo fine")).await.unwrap();
    assert_eq!(r.stdout_text(), "fine\n");
    let fresh = backend.create(&spec("fresh")).await.unwrap();
    let r = fresh.run(RunRequest::new("echo new")).await.unwrap();
    assert_eq!(r.stdout_text(), "new\n");
}

#[tokio::test]
async fn a_worker_keeps_the_in_process_limits_under_its_rlimits() {
    let limits = WorkerLimits {
        address_space_bytes: 2 << 30,
        cpu_seconds: 60,
    };
    let backend = WorkerBackend::new(env!("CARGO_BIN_EXE_sandkeep"), limits);
    let sb = backend.create(&spec("limits")).await.unwrap();
    // Memory: the run's budget ends it; the worker lives on.
    let r = sb
        .run(
            RunRequest::new("x=aaaaaaaa; while :; do x=$x$x; done")
                .timeout(Duration::from_secs(20)),
        )
        .await
        .unwrap();
    assert_eq!(r.exit_code, 124, "{}", r.stderr_text());
    assert!(
        r.stderr_text().contains("memory limit exceeded"),
        "{}",
        r.stderr_text()
    );
    // Time: the deadline ends a busy loop.
    let r = sb
        .run(RunRequest::new("while :; do :; done").timeout(Duration::from_secs(1)))
        .await
        .unwrap();
    assert!(r.timed_out);
    let r = sb.run(RunRequest::new("echo alive")).await.unwrap();
    assert_eq!(r.stdout_text(), "alive\n");
}

#[test]
fn the_cli_runs_a_session_in_a_worker() {
    let data = tempfile::tempdir().unwrap();
    let run = |script: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_sandkeep"))
            .args(["-q", "run", "--backend", "local", "--isolation", "process"])
            .args(["--agent", "w", "-c", script])
            .env("SANDKEEP_DATA", data.path())
            .output()
            .unwrap()
    };
    let o = run("echo kept > k; echo ran");
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "ran\n",
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(o.status.success());
    let o = run("cat k");
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "kept\n",
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Issue 34 in worker-process mode: runs share the worker's shell, a
/// fresh-shell request does not see or change it, and the state moves out
/// and into another worker as a snapshot.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_sandbox_keeps_its_shell_and_moves_it_as_a_snapshot() {
    let b = backend();
    let sb = b.create(&spec("shell-a")).await.unwrap();
    assert_eq!(sb.shell_state().await.unwrap(), None, "no run yet");
    sb.run(RunRequest::new(
        "mkdir -p d && cd d && K=v && h(){ echo h$K; }",
    ))
    .await
    .unwrap();
    let fresh = sb
        .run(RunRequest::new("pwd; echo ${K-unset}; cd /tmp").fresh_shell())
        .await
        .unwrap();
    assert_eq!(fresh.stdout_text(), "/workspace\nunset\n");
    let kept = sb.run(RunRequest::new("pwd; h")).await.unwrap();
    assert_eq!(kept.stdout_text(), "/workspace/d\nhv\n");
    let snapshot = sb.shell_state().await.unwrap().expect("a state");
    sb.stop().await.unwrap();

    let other = b.create(&spec("shell-b")).await.unwrap();
    other.run(RunRequest::new("mkdir -p d")).await.unwrap();
    other.restore_shell_state(&snapshot).await.unwrap();
    let out = other.run(RunRequest::new("pwd; h")).await.unwrap();
    assert_eq!(out.stdout_text(), "/workspace/d\nhv\n");
    other.stop().await.unwrap();
}
