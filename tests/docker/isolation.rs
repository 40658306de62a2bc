//! Isolation of a docker sandbox, checked from both sides: the daemon's
//! inspect (no mounts, not privileged, every capability dropped, network none,
//! limits) and the inside (the `sandbox` user, no capabilities, no new
//! privileges, no host files, only `lo` under deny-all).

use crate::docker_support;

use bollard::query_parameters::InspectContainerOptions;
use docker_support::{backend, backend_with, sandbox, teardown, test_config};
use sandkeep::{DockerConfig, NetworkPolicy, RunRequest, Sandbox};

async fn sh(sb: &dyn Sandbox, script: &str) -> String {
    let r = sb.run(RunRequest::new(script)).await.unwrap();
    assert_eq!(r.exit_code, 0, "{script}: {}", r.stderr_text());
    r.stdout_text()
}

#[tokio::test]
async fn inspect_shows_a_locked_down_container() {
    let Some(backend) = backend().await else {
        return;
    };
    let sb = sandbox(&backend, "inspect").await;
    let info = backend
        .docker()
        .inspect_container(sb.id(), None::<InspectContainerOptions>)
        .await
        .unwrap();
    assert!(info.mounts.unwrap_or_default().is_empty(), "mounts present");
    let host = info.host_config.unwrap();
    assert_eq!(host.privileged, Some(false));
    assert!(
        host.cap_add.unwrap_or_default().is_empty(),
        "capabilities added"
    );
    assert_eq!(host.cap_drop.unwrap_or_default(), vec!["ALL".to_string()]);
    assert_eq!(host.network_mode.as_deref(), Some("none"));
    assert!(host.binds.unwrap_or_default().is_empty());
    let security = host.security_opt.unwrap_or_default();
    assert!(
        security.iter().any(|s| s.starts_with("no-new-privileges")),
        "{security:?}"
    );
    assert_eq!(host.init, Some(true));
    assert_eq!(host.memory, Some(test_config().memory_bytes));
    assert_eq!(host.pids_limit, Some(test_config().pids_limit));
    assert_eq!(host.nano_cpus, Some(test_config().nano_cpus));
    let config = info.config.unwrap();
    assert_eq!(config.user.as_deref(), Some("sandbox"));
    assert_eq!(config.working_dir.as_deref(), Some("/workspace"));
    let labels = config.labels.unwrap_or_default();
    assert!(labels["sandkeep.session"].starts_with("test-inspect-"));
    assert_eq!(labels["sandkeep.agent"], "tests");
    assert_eq!(labels["sandkeep.owner"], std::process::id().to_string());
    teardown(&backend, sb).await;
}

#[tokio::test]
async fn inside_the_sandbox_user_has_no_privileges_and_no_host() {
    let Some(backend) = backend().await else {
        return;
    };
    // A host file that must not be visible inside.
    let marker = std::env::temp_dir().join(format!("sandkeep-host-marker-{}", std::process::id()));
    std::fs::write(&marker, "host secret").unwrap();
    let sb = sandbox(&backend, "inside").await;

    assert_eq!(
        sh(&*sb, "whoami; id -u; id -g").await,
        "sandbox\n1000\n1000\n"
    );
    // No effective, permitted or bounding capabilities; no_new_privs set.
    let status = sh(
        &*sb,
        "grep -E '^(CapEff|CapPrm|CapBnd|NoNewPrivs):' /proc/self/status",
    )
    .await;
    assert!(status.contains("CapEff:\t0000000000000000"), "{status}");
    assert!(status.contains("CapPrm:\t0000000000000000"), "{status}");
    assert!(status.contains("CapBnd:\t0000000000000000"), "{status}");
    assert!(status.contains("NoNewPrivs:\t1"), "{status}");
    // Root-owned places stay read-only to the sandbox user.
    let r = sb.run(RunRequest::new("touch /etc/x")).await.unwrap();
    assert_ne!(r.exit_code, 0);
    assert!(
        r.stderr_text().contains("Permission denied"),
        "{}",
        r.stderr_text()
    );

    // Host paths are absent.
    let probe = format!(
        "test -e {} && echo visible || echo absent",
        marker.display()
    );
    assert_eq!(sh(&*sb, &probe).await, "absent\n");
    assert_eq!(
        sh(&*sb, "test -e /work && echo visible || echo absent").await,
        "absent\n"
    );
    assert_eq!(sh(&*sb, "ls -A /workspace | wc -l").await.trim(), "0");
    // No docker socket, no host processes.
    assert_eq!(
        sh(&*sb, "ls /var/run/docker.sock 2>/dev/null | wc -l")
            .await
            .trim(),
        "0"
    );
    let pids = sh(&*sb, "ls -d /proc/[0-9]* | wc -l").await;
    assert!(
        pids.trim().parse::<u32>().unwrap() < 20,
        "sees {pids} processes"
    );

    // deny-all: loopback only, and no route out.
    assert_eq!(sh(&*sb, "ls /sys/class/net").await, "lo\n");
    let r = sb
        .run(
            RunRequest::new("exec 3<>/dev/tcp/1.1.1.1/80")
                .timeout(std::time::Duration::from_secs(5)),
        )
        .await
        .unwrap();
    assert_ne!(r.exit_code, 0);
    assert!(!r.timed_out);
    teardown(&backend, sb).await;
    std::fs::remove_file(marker).unwrap();
}

#[tokio::test]
async fn allow_all_gives_the_container_a_bridge_interface() {
    let config = DockerConfig {
        network: NetworkPolicy::AllowAll,
        ..test_config()
    };
    let Some(backend) = backend_with(config).await else {
        return;
    };
    let sb = sandbox(&backend, "allowall").await;
    let info = backend
        .docker()
        .inspect_container(sb.id(), None::<InspectContainerOptions>)
        .await
        .unwrap();
    assert_eq!(
        info.host_config.unwrap().network_mode.as_deref(),
        Some("bridge")
    );
    let ifaces = sh(&*sb, "ls /sys/class/net").await;
    assert!(ifaces.lines().any(|l| l != "lo"), "only {ifaces:?}");
    teardown(&backend, sb).await;
}
