//! The docker backend against a real daemon: runs (output, exit codes, stdin,
//! env, cwd, timeouts, output limits), files through the archive API, the
//! container's lifecycle (stop, drop guard, reaper), image errors and backend
//! selection. Skips with a printed reason when no daemon answers, unless
//! `SANDKEEP_REQUIRE_DOCKER=1`.

use crate::common;
use crate::docker_support;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::sandbox as scenario;
use docker_support::{backend, backend_with, containers_of, sandbox, teardown, test_config};
use sandkeep::{
    Backend, BackendChoice, BackendKind, DockerBackend, DockerConfig, OutputSink, PullPolicy,
    RunRequest, Sandbox, SandboxError, SandboxSpec, choose_backend,
};

#[tokio::test]
async fn runs_bash_with_exit_codes_and_separate_streams() {
    let Some(backend) = backend().await else {
        return;
    };
    let sb = sandbox(&backend, "streams").await;
    assert_eq!(sb.backend(), BackendKind::Docker);
    scenario::runs_share_one_shell_over_one_tree(sb.as_ref()).await;

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
        .run(RunRequest::new("echo $((6*7)) $0; pwd; whoami").fresh_shell())
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
    let mut req = RunRequest::new("pwd; echo \"[$OLDPWD]\"").fresh_shell();
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
    // 141 as under SIGPIPE: a cut output is never a timeout's 124.
    assert_eq!(r.exit_code, 141);
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

/// Polls `stats` until `ready` containers wait in the pool (60 s at most).
async fn pool_ready(backend: &DockerBackend, ready: usize) -> sandkeep::PoolStats {
    for _ in 0..600 {
        let stats = backend.pool_stats().expect("a pool");
        if stats.ready >= ready {
            return stats;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!(
        "the pool never got {ready} ready: {:?}",
        backend.pool_stats()
    );
}

/// What a session can see of its container: who it is, the environment, the
/// empty workspace, the processes, capabilities, limits and network.
const PROBE: &str = r#"id; hostname; pwd
env | grep -v '^SANDKEEP_RUN=' | sort
echo "workspace: [$(ls -A /workspace)]"
ps -eo user=,comm= | sort
grep -E '^(Cap|NoNewPrivs|Seccomp)' /proc/self/status
ulimit -a
cat /proc/net/dev | tail -n +3 | cut -d: -f1 | sort
df -P /workspace | tail -1 | awk '{print $1}'
ls /tmp /var/tmp /dev/shm | sort"#;

/// The parts of a container's inspect a session's hardening is made of.
async fn hardening(backend: &DockerBackend, id: &str) -> String {
    let c = backend
        .docker()
        .inspect_container(
            id,
            None::<bollard::query_parameters::InspectContainerOptions>,
        )
        .await
        .unwrap();
    let (config, host) = (c.config.unwrap(), c.host_config.unwrap());
    let mut env = config.env.unwrap_or_default();
    env.sort();
    format!(
        "image={:?} user={:?} workdir={:?} hostname={:?} env={env:?} cmd={:?} entrypoint={:?}\n\
         privileged={:?} cap_add={:?} cap_drop={:?} security_opt={:?} network={:?} memory={:?} \
         swap={:?} pids={:?} cpus={:?} init={:?} binds={:?} mounts={:?} ulimits={:?} readonly={:?}",
        config.image,
        config.user,
        config.working_dir,
        config.hostname,
        config.cmd,
        config.entrypoint,
        host.privileged,
        host.cap_add,
        host.cap_drop,
        host.security_opt,
        host.network_mode,
        host.memory,
        host.memory_swap,
        host.pids_limit,
        host.nano_cpus,
        host.init,
        host.binds,
        host.mounts,
        host.ulimits,
        host.readonly_rootfs,
    )
}

async fn labels_of(backend: &DockerBackend, id: &str) -> HashMap<String, String> {
    backend
        .docker()
        .inspect_container(
            id,
            None::<bollard::query_parameters::InspectContainerOptions>,
        )
        .await
        .unwrap()
        .config
        .unwrap()
        .labels
        .unwrap_or_default()
}

/// A container from the pool against a fresh one of the same configuration:
/// the same hardening and environment, an empty workspace, the same
/// processes, and the sweep ending what a run left behind. The pool serves
/// each container once, refills, gives a spec with an environment of its own
/// a fresh container, and `close` removes what still waits.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pooled_container_is_a_fresh_one_used_once() {
    use sandkeep::PoolConfig;
    let pool_config = DockerConfig {
        pool: PoolConfig {
            size: 1,
            ..PoolConfig::default()
        },
        ..test_config()
    };
    let Some(pooled) = backend_with(pool_config).await else {
        return;
    };
    let Some(fresh) = backend().await else {
        return;
    };
    let before = pool_ready(&pooled, 1).await;
    let spec = |name: &str| SandboxSpec {
        session_id: docker_support::session_id(name),
        agent: "tests".into(),
        env: vec![],
    };
    let (pooled_spec, fresh_spec) = (spec("pooled"), spec("fresh"));
    let a = pooled.create(&pooled_spec).await.unwrap();
    let b = fresh.create(&fresh_spec).await.unwrap();
    let after = pooled.pool_stats().unwrap();
    assert_eq!(after.hits, before.hits + 1, "{after:?}");

    assert_eq!(
        hardening(&pooled, a.id()).await,
        hardening(&fresh, b.id()).await
    );
    let (la, lb) = (
        labels_of(&pooled, a.id()).await,
        labels_of(&fresh, b.id()).await,
    );
    for owner in [
        "sandkeep.owner",
        "sandkeep.owner.host",
        "sandkeep.owner.start",
    ] {
        assert_eq!(la[owner], lb[owner], "{owner}");
    }
    assert!(la.contains_key("sandkeep.session") && la.contains_key("sandkeep.pool"));

    // The probe lists processes: a sweep still ending after an earlier
    // exec (the pool's warm-up) may show for a moment under load, so the
    // two are compared again before a difference counts.
    let mut tries = 0;
    let (pa, pb) = loop {
        let (pa, pb) = (
            a.run(RunRequest::new(PROBE)).await.unwrap(),
            b.run(RunRequest::new(PROBE)).await.unwrap(),
        );
        tries += 1;
        if pa.stdout_text() == pb.stdout_text() || tries == 5 {
            break (pa, pb);
        }
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    };
    assert_eq!(pa.exit_code, 0, "{}", pa.stderr_text());
    assert_eq!(pa.stdout_text(), pb.stdout_text());
    assert!(
        pa.stdout_text().contains("workspace: []"),
        "{}",
        pa.stdout_text()
    );

    // What a run leaves behind outside its session is swept after it.
    for sb in [&a, &b] {
        let r = sb
            .run(RunRequest::new(
                "setsid sleep 1000 </dev/null >/dev/null 2>&1 & echo started",
            ))
            .await
            .unwrap();
        assert_eq!(r.stdout_text(), "started\n");
        let r = sb
            .run(RunRequest::new("ps -eo comm=,args= | grep -c '^sleep'"))
            .await
            .unwrap();
        assert_eq!(
            r.stdout_text(),
            "1\n",
            "only the container's idle sleep is left"
        );
    }

    // Taken from the pool, the container is named after its session.
    let mut named = String::new();
    for _ in 0..50 {
        named = backend_name(&pooled, a.id()).await;
        if named.contains(&pooled_spec.session_id) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(named.contains(&pooled_spec.session_id), "{named}");

    // Used once: stopping removes it, and the next sandbox is another container.
    let first = a.id().to_string();
    teardown(&pooled, a).await;
    teardown(&fresh, b).await;
    pool_ready(&pooled, 1).await;
    let c = pooled.create(&spec("pooled-2")).await.unwrap();
    assert_ne!(c.id(), first);
    let stats = pooled.pool_stats().unwrap();
    assert_eq!(stats.hits, before.hits + 2, "{stats:?}");
    teardown(&pooled, c).await;

    // An environment of its own is fixed at create: a fresh container.
    let with_env = SandboxSpec {
        env: vec![("ONLY_HERE".into(), "1".into())],
        ..spec("pooled-env")
    };
    let d = pooled.create(&with_env).await.unwrap();
    let r = d.run(RunRequest::new("echo $ONLY_HERE")).await.unwrap();
    assert_eq!(r.stdout_text(), "1\n");
    let stats = pooled.pool_stats().unwrap();
    assert_eq!(stats.misses, before.misses + 1, "{stats:?}");
    teardown(&pooled, d).await;

    // Closing removes the containers still waiting, and the pool stays shut.
    pool_ready(&pooled, 1).await;
    pooled.close().await;
    assert_eq!(pool_containers(&pooled).await, Vec::<String>::new());
    assert_eq!(pooled.pool_stats().unwrap().ready, 0);
    let e = pooled.create(&spec("after-close")).await.unwrap();
    assert!(pool_containers(&pooled).await.is_empty());
    teardown(&pooled, e).await;
}

async fn backend_name(backend: &DockerBackend, id: &str) -> String {
    backend
        .docker()
        .inspect_container(
            id,
            None::<bollard::query_parameters::InspectContainerOptions>,
        )
        .await
        .unwrap()
        .name
        .unwrap_or_default()
}

/// The pool containers of this process (running or not).
async fn pool_containers(backend: &DockerBackend) -> Vec<String> {
    use bollard::query_parameters::ListContainersOptions;
    let filters = HashMap::from([(
        "label".to_string(),
        vec![
            "sandkeep.pool".to_string(),
            format!("sandkeep.owner={}", std::process::id()),
        ],
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
