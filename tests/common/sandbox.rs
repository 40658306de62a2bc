//! Scenarios of the `Sandbox` trait itself, generic over the backend: each
//! takes a live sandbox, so the same contract is checked on the local backend
//! (`tests/runtime/local_backend.rs`) and on docker (`tests/docker/backend.rs`).

use std::time::{Duration, Instant};

use sandkeep::{RunRequest, Sandbox, SandboxError};

/// Stdout, stderr and the exit status come back apart; runs go on in one
/// shell (variables and cwd carry over, issue 34) over one tree (files do);
/// a fresh-shell request neither sees nor changes that shell.
pub async fn runs_share_one_shell_over_one_tree(sb: &dyn Sandbox) {
    let r = sb
        .run(RunRequest::new("echo out; echo err >&2; exit 3"))
        .await
        .unwrap();
    assert_eq!(
        (r.exit_code, r.stdout_text(), r.stderr_text()),
        (3, "out\n".into(), "err\n".into())
    );
    assert!(!r.truncated && !r.timed_out);

    let r = sb
        .run(RunRequest::new(
            "x=1; cd /tmp; echo kept > /workspace/k.txt",
        ))
        .await
        .unwrap();
    assert_eq!(r.exit_code, 0);
    let r = sb
        .run(RunRequest::new("echo \"[${x-}]\"; pwd; x=2; cd /").fresh_shell())
        .await
        .unwrap();
    assert_eq!(r.stdout_text(), "[]\n/workspace\n");
    let r = sb
        .run(RunRequest::new("echo \"[$x]\"; pwd; cat /workspace/k.txt"))
        .await
        .unwrap();
    assert_eq!(r.stdout_text(), "[1]\n/tmp\nkept\n");
}

/// A busy loop past its timeout ends with status 124, flagged, promptly; the
/// sandbox still runs the next command.
pub async fn a_busy_loop_times_out(sb: &dyn Sandbox, timeout: Duration) {
    let started = Instant::now();
    let r = sb
        .run(RunRequest::new("while true; do :; done").timeout(timeout))
        .await
        .unwrap();
    assert!(r.timed_out);
    assert_eq!(r.exit_code, 124);
    assert!(
        started.elapsed() < timeout + Duration::from_secs(5),
        "took {:?}",
        started.elapsed()
    );
    let r = sb.run(RunRequest::new("echo alive")).await.unwrap();
    assert_eq!((r.exit_code, r.stdout_text().as_str()), (0, "alive\n"));
}

/// `stop` is idempotent, and afterwards runs and file calls say `Gone`.
pub async fn stopped_means_gone(sb: &dyn Sandbox) {
    sb.stop().await.unwrap();
    sb.stop().await.unwrap();
    assert!(matches!(
        sb.run(RunRequest::new("true")).await,
        Err(SandboxError::Gone(_))
    ));
    assert!(matches!(
        sb.read_file("a").await,
        Err(SandboxError::Gone(_))
    ));
    assert!(matches!(
        sb.write_file("a", b"").await,
        Err(SandboxError::Gone(_))
    ));
}
