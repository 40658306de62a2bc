//! The docker backend against a real daemon: runs (output, exit codes, stdin,
//! env, cwd, timeouts, output limits), files through the archive API, the
//! container's lifecycle (stop, drop guard, reaper), image errors and backend
//! selection. Skips with a printed reason when no daemon answers, unless
//! `SANDKEEP_REQUIRE_DOCKER=1`.

mod common;
mod docker_support;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::sandbox as scenario;
use docker_support::{backend, backend_with, containers_of, sandbox, teardown, test_config};
use sandkeep::sandbox::docker::{DockerBackend, DockerConfig, PullPolicy};
use sandkeep::sandbox::select::{BackendChoice, choose_backend};
use sandkeep::sandbox::{
    Backend, BackendKind, OutputSink, RunRequest, Sandbox, SandboxError, SandboxSpec,
};

#[tokio::test]
async fn runs_bash_with_exit_codes_and_separate_streams() {
    let Some(backend) = backend().await else {
        return;
    };
    let sb = sandbox(&backend, "streams").await;
    assert_eq!(sb.backend(), BackendKind::Docker);
    scenario::runs_are_fresh_shells_over_one_tree(sb.as_ref()).await;

    let r = sb
        .run(RunRequest::new("no_such_command_xyz"))
        .await
        .unwrap();
    assert_eq!(r.exit_code, 127);
    assert!(
        r.stderr_text().contains("command not found"),
        "{}",
        r.stderr_text()
    );

    let r = sb
        .run(RunRequest::new("echo $((6*7)) $0; pwd; whoami"))
        .await
        .unwrap();
    assert_eq!(r.stdout_text(), "42 bash\n/workspace\nsandbox\n");
    teardown(&backend, sb).await;
}

#[tokio::test]
async fn stdin_env_and_cwd_reach_the_command() {
    let Some(backend) = backend().await else {
        return;
    };
    let sb = sandbox(&backend, "stdin").await;

    let mut req = RunRequest::new("tr a-z A-Z; echo \"$GREETING from $(pwd)\"");
    req.stdin = b"hello stdin\n".to_vec();
    req.env = vec![("GREETING".into(), "hi there".into())];
    sb.run(RunRequest::new("mkdir -p sub/dir")).await.unwrap();
    req.cwd = Some("sub/dir".into());
    let r = sb.run(req).await.unwrap();
    assert_eq!(
        r.stdout_text(),
        "HELLO STDIN\nhi there from /workspace/sub/dir\n"
    );

    // A large stdin is written while the output is read: no deadlock.
    let mut req = RunRequest::new("wc -c");
    req.stdin = vec![b'x'; 3 << 20];
    let r = sb.run(req).await.unwrap();
    assert_eq!(r.stdout_text().trim(), (3 << 20).to_string());

    // No stdin means EOF, not a hang.
    let r = sb
        .run(RunRequest::new("cat; echo end").timeout(Duration::from_secs(10)))
        .await
        .unwrap();
    assert_eq!((r.stdout_text().as_str(), r.timed_out), ("end\n", false));

    // The fixed sandbox environment.
    let r = sb
        .run(RunRequest::new("echo $HOME $USER $SHELL $LANG; echo $PATH"))
        .await
        .unwrap();
    assert_eq!(
        r.stdout_text(),
        "/workspace sandbox /bin/bash C.UTF-8\n/usr/local/bin:/usr/bin:/bin\n"
    );

    // A missing cwd reads as bash's cd error and the command runs in
    // /workspace, as on the local backend (not runc's refusal).
    let mut req = RunRequest::new("pwd; echo \"[$OLDPWD]\"");
    req.cwd = Some("/no/such/dir".into());
    let r = sb.run(req).await.unwrap();
    assert_eq!(r.exit_code, 0);
    assert_eq!(r.stdout_text(), "/workspace\n[]\n");
    assert_eq!(
        r.stderr_text(),
        "bash: line 0: cd: /no/such/dir: No such file or directory\n"
    );
    teardown(&backend, sb).await;
}

#[tokio::test]
async fn a_timeout_kills_the_command_and_its_children() {
    let Some(backend) = backend().await else {
        return;
    };
    let sb = sandbox(&backend, "timeout").await;
    let started = Instant::now();
    let r = sb
        .run(
            RunRequest::new("echo before; sleep 300 & sleep 300; echo never")
                .timeout(Duration::from_secs(1)),
        )
        .await
        .unwrap();
    let took = started.elapsed();
    assert!(r.timed_out);
    assert_eq!(r.exit_code, 124);
    assert_eq!(r.stdout_text(), "before\n");
    assert_eq!(r.stderr_text(), "bash: timeout exceeded (1.0s)\n");
    assert!(took < Duration::from_secs(8), "took {took:?}");

    // Nothing of that run survives, and the sandbox stays usable.
    let r = sb
        .run(RunRequest::new(
            "ps -eo args= | grep -c '^sleep 300' || true",
        ))
        .await
        .unwrap();
    assert_eq!(r.stdout_text().trim(), "0", "leftover processes");

    // A busy loop ends too, and the sandbox stays usable.
    scenario::a_busy_loop_times_out(sb.as_ref(), Duration::from_millis(500)).await;
    teardown(&backend, sb).await;
}

#[tokio::test]
async fn output_beyond_the_limit_is_cut_flagged_and_stopped() {
    let config = DockerConfig {
        max_output_bytes: 64 << 10,
        ..test_config()
    };
    let Some(backend) = backend_with(config).await else {
        return;
    };
    let sb = sandbox(&backend, "outlimit").await;

    let started = Instant::now();
    let r = sb
        .run(RunRequest::new("yes").timeout(Duration::from_secs(20)))
        .await
        .unwrap();
    assert!(started.elapsed() < Duration::from_secs(15));
    assert!(r.truncated && !r.timed_out);
    assert_eq!(r.stdout.len(), 64 << 10);
    assert!(r.stdout.starts_with(b"y\ny\n"));
    assert_eq!(r.exit_code, 124);
    assert!(
        r.stderr_text()
            .ends_with("bash: output limit exceeded (65536 bytes)\n"),
        "{}",
        r.stderr_text()
    );

    // Just under the limit: complete and unflagged.
    let r = sb
        .run(RunRequest::new("head -c 65536 /dev/zero"))
        .await
        .unwrap();
    assert_eq!(
        (r.stdout.len(), r.truncated, r.exit_code),
        (65536, false, 0)
    );
    teardown(&backend, sb).await;
}

#[derive(Default)]
struct Recorder(Mutex<(Vec<u8>, Vec<u8>)>);

impl OutputSink for Recorder {
    fn stdout(&self, chunk: &[u8]) {
        self.0.lock().unwrap().0.extend_from_slice(chunk);
    }
    fn stderr(&self, chunk: &[u8]) {
        self.0.lock().unwrap().1.extend_from_slice(chunk);
    }
}

#[tokio::test]
async fn output_streams_to_the_sink() {
    let Some(backend) = backend().await else {
        return;
    };
    let sb = sandbox(&backend, "sink").await;
    let sink = Arc::new(Recorder::default());
    let mut req = RunRequest::new("for i in 1 2 3; do echo $i; echo e$i >&2; done");
    req.sink = Some(sink.clone());
    let r = sb.run(req).await.unwrap();
    let seen = sink.0.lock().unwrap().clone();
    assert_eq!(seen.0, r.stdout);
    assert_eq!(seen.1, r.stderr);
    assert_eq!(r.stdout_text(), "1\n2\n3\n");
    teardown(&backend, sb).await;
}

#[tokio::test]
async fn files_round_trip_through_the_archive_api() {
    let Some(backend) = backend().await else {
        return;
    };
    let sb = sandbox(&backend, "files").await;

    // Parents are created; the file belongs to the sandbox user.
    sb.write_text("deep/er/note.txt", "hello\n").await.unwrap();
    let r = sb
        .run(RunRequest::new(
            "cat deep/er/note.txt; stat -c '%u:%g %a' deep/er/note.txt deep/er",
        ))
        .await
        .unwrap();
    assert_eq!(r.stdout_text(), "hello\n1000:1000 644\n1000:1000 755\n");
    assert_eq!(
        sb.read_text("/workspace/deep/er/note.txt")
            .await
            .unwrap()
            .as_deref(),
        Some("hello\n")
    );

    // Written by bash, read by the API.
    sb.run(RunRequest::new("printf 'a\\0b' > bin.dat"))
        .await
        .unwrap();
    assert_eq!(
        sb.read_file("bin.dat").await.unwrap(),
        Some(b"a\0b".to_vec())
    );

    // Overwrite, empty files, a missing file, a directory.
    sb.write_file("bin.dat", b"").await.unwrap();
    assert_eq!(sb.read_file("bin.dat").await.unwrap(), Some(Vec::new()));
    assert_eq!(sb.read_file("missing.txt").await.unwrap(), None);
    assert_eq!(sb.read_file("no/such/dir/x").await.unwrap(), None);
    assert!(matches!(
        sb.read_file("deep").await,
        Err(SandboxError::Path { .. })
    ));

    // Symlinks are followed when read.
    sb.run(RunRequest::new(
        "ln -s deep/er/note.txt link; ln -s /tmp/t abs",
    ))
    .await
    .unwrap();
    sb.write_text("/tmp/t", "tmp\n").await.unwrap();
    assert_eq!(
        sb.read_text("link").await.unwrap().as_deref(),
        Some("hello\n")
    );
    assert_eq!(sb.read_text("abs").await.unwrap().as_deref(), Some("tmp\n"));

    // remove_path: files, trees, and missing paths alike.
    sb.remove_path("deep").await.unwrap();
    sb.remove_path("never-existed").await.unwrap();
    let r = sb.run(RunRequest::new("ls")).await.unwrap();
    assert_eq!(r.stdout_text(), "abs\nbin.dat\nlink\n");
    teardown(&backend, sb).await;
}

#[tokio::test]
async fn stop_removes_the_container_and_later_calls_say_gone() {
    let Some(backend) = backend().await else {
        return;
    };
    let spec = SandboxSpec {
        session_id: docker_support::session_id("stop"),
        agent: "tests".into(),
        env: vec![],
    };
    let sb = backend.create(&spec).await.unwrap();
    assert_eq!(containers_of(&backend, &spec.session_id).await.len(), 1);
    scenario::stopped_means_gone(sb.as_ref()).await;
    assert!(containers_of(&backend, &spec.session_id).await.is_empty());
}

#[tokio::test]
async fn a_container_removed_from_outside_reads_as_gone() {
    let Some(backend) = backend().await else {
        return;
    };
    let sb = sandbox(&backend, "outside").await;
    let options = bollard::query_parameters::RemoveContainerOptions {
        force: true,
        ..Default::default()
    };
    backend
        .docker()
        .remove_container(sb.id(), Some(options))
        .await
        .unwrap();
    assert!(matches!(
        sb.run(RunRequest::new("true")).await,
        Err(SandboxError::Gone(_))
    ));
    assert!(matches!(
        sb.write_text("a", "b").await,
        Err(SandboxError::Gone(_))
    ));
    assert!(matches!(
        sb.read_file("a").await,
        Err(SandboxError::Gone(_))
    ));
    sb.stop().await.unwrap();
}

#[tokio::test]
async fn dropping_a_sandbox_without_stop_removes_its_container() {
    let Some(backend) = backend().await else {
        return;
    };
    let spec = SandboxSpec {
        session_id: docker_support::session_id("drop"),
        agent: "tests".into(),
        env: vec![],
    };
    let sb = backend.create(&spec).await.unwrap();
    sb.run(RunRequest::new("true")).await.unwrap();
    drop(sb);
    assert!(containers_of(&backend, &spec.session_id).await.is_empty());
}

#[tokio::test]
async fn the_reaper_removes_orphans_and_spares_live_owners() {
    let Some(backend) = backend().await else {
        return;
    };
    use bollard::models::ContainerCreateBody;
    // An orphan: labelled like a sandbox of a process that no longer exists.
    let session = docker_support::session_id("orphan");
    let labels = HashMap::from([
        ("sandkeep.session".to_string(), session.clone()),
        ("sandkeep.agent".to_string(), "tests".to_string()),
        ("sandkeep.owner".to_string(), "4194305".to_string()),
        ("sandkeep.owner.host".to_string(), hostname()),
    ]);
    let body = ContainerCreateBody {
        image: Some(backend.config().image.clone()),
        cmd: Some(vec!["true".into()]),
        labels: Some(labels),
        host_config: Some(bollard::models::HostConfig {
            network_mode: Some("none".into()),
            ..Default::default()
        }),
        ..Default::default()
    };
    backend
        .docker()
        .create_container(
            None::<bollard::query_parameters::CreateContainerOptions>,
            body,
        )
        .await
        .unwrap();
    let live = sandbox(&backend, "live").await;

    let reaped = backend.reap_orphans().await.unwrap();
    assert!(reaped >= 1);
    assert!(
        containers_of(&backend, &session).await.is_empty(),
        "orphan survived"
    );
    let r = live.run(RunRequest::new("echo still here")).await.unwrap();
    assert_eq!(r.stdout_text(), "still here\n");
    teardown(&backend, live).await;
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .unwrap()
        .trim()
        .to_string()
}

#[tokio::test]
async fn a_missing_image_names_the_build_script() {
    let config = DockerConfig {
        image: "sandkeep-no-such-image:never".into(),
        ..test_config()
    };
    let Ok(backend) = DockerBackend::connect(config).await else {
        // backend() prints the skip reason (or fails under SANDKEEP_REQUIRE_DOCKER).
        let _ = backend().await;
        return;
    };
    let spec = SandboxSpec {
        session_id: "never-created".into(),
        ..Default::default()
    };
    let err = backend
        .create(&spec)
        .await
        .err()
        .expect("creating from a missing image fails");
    let text = err.to_string();
    assert!(text.contains("sandkeep-no-such-image:never"), "{text}");
    assert!(text.contains("fixtures/docker/build-image.sh"), "{text}");
}

/// A stand-in for the local backend: selection only needs its kind.
struct FakeLocal;

#[async_trait::async_trait]
impl Backend for FakeLocal {
    fn kind(&self) -> BackendKind {
        BackendKind::Local
    }
    async fn create(&self, _: &SandboxSpec) -> Result<Arc<dyn Sandbox>, SandboxError> {
        Err(SandboxError::Backend("fake".into()))
    }
}

#[tokio::test]
async fn selection_follows_the_choice_and_the_daemon() {
    let local: Arc<dyn Backend> = Arc::new(FakeLocal);
    let nowhere = DockerConfig {
        host: Some("unix:///nonexistent/docker.sock".into()),
        ping_timeout: Duration::from_millis(300),
        ..DockerConfig::default()
    };
    // No daemon: auto falls back, an explicit docker choice is an error.
    let b = choose_backend(BackendChoice::Auto, nowhere.clone(), local.clone())
        .await
        .unwrap();
    assert_eq!(b.kind(), BackendKind::Local);
    let err = choose_backend(BackendChoice::Docker, nowhere.clone(), local.clone())
        .await
        .err()
        .unwrap();
    assert!(
        err.to_string().contains("no docker daemon answered"),
        "{err}"
    );
    let b = choose_backend(BackendChoice::Local, test_config(), local.clone())
        .await
        .unwrap();
    assert_eq!(b.kind(), BackendKind::Local);

    // An address that never answers: auto gives up within the ping timeout.
    let silent = DockerConfig {
        host: Some("tcp://10.255.255.1:2375".into()),
        ..nowhere
    };
    let started = Instant::now();
    let b = choose_backend(BackendChoice::Auto, silent, local.clone())
        .await
        .unwrap();
    assert_eq!(b.kind(), BackendKind::Local);
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );

    let Some(_) = backend().await else { return };
    let b = choose_backend(BackendChoice::Auto, test_config(), local.clone())
        .await
        .unwrap();
    assert_eq!(b.kind(), BackendKind::Docker);
    // A daemon without the image (and no pulls) is not picked by auto.
    let no_image = DockerConfig {
        image: "sandkeep-no-such-image:never".into(),
        pull: PullPolicy::Never,
        ..test_config()
    };
    let b = choose_backend(BackendChoice::Auto, no_image, local)
        .await
        .unwrap();
    assert_eq!(b.kind(), BackendKind::Local);
}
