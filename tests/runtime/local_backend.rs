//! The local backend through the `Sandbox` trait: runs, files, paths,
//! timeouts and stop.

use crate::common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::sandbox as scenario;

use sandkeep::{
    Backend, BackendKind, LocalBackend, OutputSink, RunRequest, Sandbox, SandboxError, SandboxSpec,
};

async fn sandbox() -> Arc<dyn Sandbox> {
    LocalBackend::new()
        .create(&SandboxSpec::default())
        .await
        .unwrap()
}

#[tokio::test]
async fn runs_share_one_shell_over_one_tree() {
    let sb = sandbox().await;
    assert_eq!(sb.backend(), BackendKind::Local);
    scenario::runs_share_one_shell_over_one_tree(sb.as_ref()).await;
}

#[tokio::test]
async fn stdin_env_and_cwd_reach_the_script() {
    let backend = LocalBackend::new();
    let spec = SandboxSpec {
        env: vec![("FROM_SPEC".into(), "spec".into())],
        ..SandboxSpec::default()
    };
    let sb = backend.create(&spec).await.unwrap();
    sb.run(RunRequest::new("mkdir -p sub/dir")).await.unwrap();
    let mut req = RunRequest::new("cat; echo \"$GREETING $FROM_SPEC $(pwd)\"");
    req.stdin = b"from stdin\n".to_vec();
    req.env = vec![("GREETING".into(), "hi".into())];
    req.cwd = Some("sub/dir".into());
    let r = sb.run(req).await.unwrap();
    assert_eq!(r.stdout_text(), "from stdin\nhi spec /workspace/sub/dir\n");
}

#[derive(Default)]
struct Collect(Mutex<Vec<Vec<u8>>>);

impl OutputSink for Collect {
    fn stdout(&self, chunk: &[u8]) {
        self.0.lock().unwrap().push(chunk.to_vec());
    }
    fn stderr(&self, _chunk: &[u8]) {}
}

#[tokio::test]
async fn output_streams_to_the_sink() {
    let sb = sandbox().await;
    let sink = Arc::new(Collect::default());
    let mut req = RunRequest::new("echo one; echo two");
    req.sink = Some(sink.clone());
    let r = sb.run(req).await.unwrap();
    assert_eq!(sink.0.lock().unwrap().concat(), r.stdout);
    assert_eq!(r.stdout_text(), "one\ntwo\n");
}

#[tokio::test]
async fn files_through_the_trait() {
    let sb = sandbox().await;
    assert_eq!(sb.read_file("missing.txt").await.unwrap(), None);
    sb.write_file("deep/er/f.txt", b"data").await.unwrap();
    assert_eq!(
        sb.read_file("/workspace/deep/er/f.txt")
            .await
            .unwrap()
            .as_deref(),
        Some(&b"data"[..])
    );
    let r = sb.run(RunRequest::new("cat deep/er/f.txt")).await.unwrap();
    assert_eq!(r.stdout_text(), "data");
    sb.write_text("/tmp/t.txt", "text").await.unwrap();
    assert_eq!(
        sb.read_text("/tmp/t.txt").await.unwrap().as_deref(),
        Some("text")
    );
    sb.remove_path("deep").await.unwrap();
    sb.remove_path("deep").await.unwrap();
    assert_eq!(sb.read_file("deep/er/f.txt").await.unwrap(), None);
    assert!(matches!(
        sb.read_file("/workspace").await,
        Err(SandboxError::Path { .. })
    ));
    // `..` stays inside the virtual tree.
    sb.write_file("../../../escape.txt", b"x").await.unwrap();
    assert_eq!(
        sb.read_file("/escape.txt").await.unwrap().as_deref(),
        Some(&b"x"[..])
    );
}

#[tokio::test]
async fn timeout_gives_124_and_the_sandbox_stays_usable() {
    let sb = sandbox().await;
    scenario::a_busy_loop_times_out(sb.as_ref(), Duration::from_millis(300)).await;
}

#[tokio::test]
async fn stopped_sandboxes_are_gone() {
    let sb = sandbox().await;
    sb.write_file("a", b"1").await.unwrap();
    scenario::stopped_means_gone(sb.as_ref()).await;
}

#[tokio::test]
async fn sandboxes_are_isolated_from_each_other() {
    let backend = LocalBackend::new();
    let a = backend.create(&SandboxSpec::default()).await.unwrap();
    let b = backend.create(&SandboxSpec::default()).await.unwrap();
    assert_ne!(a.id(), b.id());
    a.write_file("only-a", b"1").await.unwrap();
    assert_eq!(b.read_file("only-a").await.unwrap(), None);
}

#[tokio::test]
async fn deep_recursion_does_not_overflow_the_stack() {
    let sb = sandbox().await;
    let r = sb
        .run(RunRequest::new(
            "f(){ if [ $1 -gt 0 ]; then f $(( $1 - 1 )); else echo bottom; fi; }; f 300",
        ))
        .await
        .unwrap();
    assert_eq!(r.stdout_text(), "bottom\n", "{}", r.stderr_text());
}

/// A program that panics ends with status 2 and a message, and the sandbox
/// goes on: panics unwind to the run's boundary. (This binary links the
/// unwinder statically, as the `sandkeep` binary does: see build.rs.)
#[tokio::test]
async fn a_panicking_program_is_contained() {
    let config = sandkeep_shell::ShellConfig::default().command("boom", |_| panic!("kaboom"));
    let sb = LocalBackend::with_config(config)
        .create(&SandboxSpec::default())
        .await
        .unwrap();
    let out = sb
        .run(RunRequest::new("boom; echo \"after $?\""))
        .await
        .unwrap();
    assert_eq!(out.stdout_text(), "after 2\n");
    assert!(
        out.stderr_text().contains("boom: internal error"),
        "{}",
        out.stderr_text()
    );
    let again = sb.run(RunRequest::new("echo still here")).await.unwrap();
    assert_eq!(again.stdout_text(), "still here\n");
}
