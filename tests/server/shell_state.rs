//! Issue 34 over `serve`: a session's shell (cwd, OLDPWD, the directory
//! stack, variables and arrays with attributes, functions, aliases, set -o
//! and shopt options, umask) survives the next call, an idle park and
//! resume, a restart of the server on the same data directory and a resume
//! on a second worker sharing an S3 store (moto); subshell and pipeline
//! changes do not leak; a new session starts clean; failed and timed-out
//! runs keep their state; a `--no-persist-var` variable is absent from
//! every stored byte while the others are there.
//!
//! The expected probe output is host bash 5.2's for the same two calls run
//! in one shell (checked by `the_probe_matches_one_host_bash`).

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use reqwest::Client;
use sandkeep::{NoPersist, Runtime, S3Stores, ServeConfig, Store};
use serde_json::{Value, json};

use super::{client, create, run, start_on, walk};

/// One call that sets every kind of state (and some in a subshell and a
/// pipeline stage, which must not leak).
const SET: &str = "mkdir -p proj/src proj/other && cd proj && pushd src >/dev/null && cd ../other && cd ../src; \
    export XV=1; SV=2; declare -a ARR=(a \"b c\"); declare -A MAP=([k]=v); declare -ir RO=7; \
    f(){ echo \"f:$1\"; }; alias ll=\"ls -1\"; set -o pipefail; shopt -s nullglob; umask 027; \
    (cd /; SUB=1); echo x | { PIPE=1; }";

/// A later call that prints every kind of state.
const PROBE: &str = "pwd; echo $OLDPWD; dirs -l; echo $XV $SV; env | grep -c \"^SV=\"; \
    declare -p ARR MAP RO; f a; alias ll; set -o | grep pipefail; shopt nullglob; umask; \
    echo ${SUB-none} ${PIPE-none}";

fn probe_expected(root: &str) -> String {
    format!(
        "{root}/proj/src\n{root}/proj/other\n{root}/proj/src {root}/proj\n1 2\n0\n\
         declare -a ARR=([0]=\"a\" [1]=\"b c\")\ndeclare -A MAP=([k]=\"v\" )\ndeclare -ir RO=\"7\"\n\
         f:a\nalias ll='ls -1'\npipefail       \ton\nnullglob       \ton\n0027\nnone none\n"
    )
}

/// What a new shell prints for the probe (nothing kept).
const PROBE_NEW: &str = "/workspace\n\n/workspace\n\n0\n";

#[test]
fn the_probe_matches_one_host_bash() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!("{SET}\n{PROBE}"))
        .current_dir(&root)
        .env("HOME", &root)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        probe_expected(root.to_str().unwrap())
    );
}

async fn session(c: &Client, base: &str, agent: &str) -> String {
    let (status, v) = create(c, base, agent, None).await;
    assert!(status.is_success(), "{v}");
    v["session"].as_str().unwrap().to_string()
}

async fn probe(c: &Client, base: &str, id: &str) -> String {
    let out = run(c, base, id, PROBE).await;
    format!(
        "{}{}",
        out["stdout"].as_str().unwrap(),
        out["stderr"].as_str().unwrap()
    )
}

/// Waits until the reaper parked session `id` (its record is in the store).
async fn wait_parked(runtime: &Runtime, agent: &str, id: &str) {
    let gens = runtime.generations(agent).unwrap();
    for _ in 0..200 {
        let (g, i) = (gens.clone(), id.to_string());
        let found = tokio::task::spawn_blocking(move || g.store().read_session(&i).unwrap())
            .await
            .unwrap();
        if found.is_some() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("session {id} was not parked");
}

fn config(idle: Duration, secrets: &[&str]) -> ServeConfig {
    ServeConfig {
        idle,
        no_persist: NoPersist::new(secrets).unwrap(),
        ..ServeConfig::default()
    }
}

/// The state-carrying scenario on `runtime` (any backend): the next call,
/// an idle park, a failed and a timed-out run, a new session.
/// On docker a run the timeout kills never runs its capture: the next run
/// starts from the state before it (`timeout_keeps` false).
async fn next_call_idle_park_and_failures(runtime: Runtime, agent: &str, timeout_keeps: bool) {
    let srv = start_on(runtime.clone(), config(Duration::from_millis(400), &[])).await;
    let (b, c) = (srv.base.clone(), client());
    let id = session(&c, &b, agent).await;
    run(&c, &b, &id, SET).await;
    let want = probe_expected("/workspace");
    assert_eq!(probe(&c, &b, &id).await, want, "the next call");
    wait_parked(&runtime, agent, &id).await;
    assert_eq!(probe(&c, &b, &id).await, want, "after an idle park");

    // A failed run and a timed-out one keep the state they reached.
    let failed = run(&c, &b, &id, "cd /workspace/proj; FAILED=1; false").await;
    assert_eq!(failed["exit_code"], 1);
    let timed = c
        .post(format!("{b}/v1/sessions/{id}/run"))
        .json(&json!({ "command": "cd other; TIMED=1; sleep 30; TIMED=2", "timeout_ms": 1500 }))
        .send()
        .await
        .unwrap()
        .json::<Value>()
        .await
        .unwrap();
    assert_eq!(timed["timed_out"], true, "{timed}");
    let after = run(&c, &b, &id, "pwd; echo $FAILED ${TIMED-unset}").await;
    let want = if timeout_keeps {
        "/workspace/proj/other\n1 1\n"
    } else {
        "/workspace/proj\n1 unset\n"
    };
    assert_eq!(after["stdout"], want);

    // Another session of the same agent starts clean (same files).
    let other = session(&c, &b, agent).await;
    assert_eq!(
        probe(&c, &b, &other)
            .await
            .lines()
            .take(5)
            .collect::<Vec<_>>()
            .join("\n")
            + "\n",
        PROBE_NEW,
        "a new session is a new shell"
    );
    srv.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn local_state_survives_calls_idle_parks_and_failures() {
    let data = tempfile::tempdir().unwrap();
    let runtime = Runtime::builder().data_dir(data.path()).build();
    next_call_idle_park_and_failures(runtime, "keeper", true).await;
}

/// The docker backend (skipped without a daemon unless
/// `SANDKEEP_REQUIRE_DOCKER=1`), with `stores` when given.
async fn docker_runtime(
    data: &Path,
    env: &[(&str, &str)],
    stores: Option<Arc<S3Stores>>,
) -> Option<Runtime> {
    let backend = super::docker_support::backend_with(super::docker_support::test_config()).await?;
    let mut builder = Runtime::builder().data_dir(data).backend(Arc::new(backend));
    for (k, v) in env {
        builder = builder.env(*k, *v);
    }
    if let Some(stores) = stores {
        builder = builder.stores(stores);
    }
    Some(builder.build())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn docker_state_survives_calls_idle_parks_and_failures() {
    let data = tempfile::tempdir().unwrap();
    let Some(runtime) = docker_runtime(data.path(), &[], None).await else {
        return;
    };
    next_call_idle_park_and_failures(runtime, "keeper", false).await;
}

/// A restart on the same data directory: the session id still answers,
/// with its shell; the listed secret is in no stored byte, an unlisted
/// variable of the same run is (so the search can fail).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn local_state_survives_a_restart_and_secrets_stay_out_of_the_store() {
    let data = tempfile::tempdir().unwrap();
    let runtime = || {
        Runtime::builder()
            .data_dir(data.path())
            .env("AWS_SECRET_ACCESS_KEY", "sekrit-4f1d9c")
            .build()
    };
    restart_keeps_state_not_secrets([runtime(), runtime(), runtime()], data.path()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn docker_state_survives_a_restart_and_secrets_stay_out_of_the_store() {
    let data = tempfile::tempdir().unwrap();
    let env = [("AWS_SECRET_ACCESS_KEY", "sekrit-4f1d9c")];
    let Some(one) = docker_runtime(data.path(), &env, None).await else {
        return;
    };
    let two = docker_runtime(data.path(), &env, None).await.unwrap();
    let three = docker_runtime(data.path(), &env, None).await.unwrap();
    restart_keeps_state_not_secrets([one, two, three], data.path()).await;
}

/// Three lives of a server on one data directory (`runtimes`, one each).
async fn restart_keeps_state_not_secrets(runtimes: [Runtime; 3], data: &Path) {
    let [one, two, three] = runtimes;
    let srv = start_on(one, config(Duration::from_secs(300), &["AWS_*"])).await;
    let (b, c) = (srv.base.clone(), client());
    let id = session(&c, &b, "restart").await;
    run(&c, &b, &id, SET).await;
    run(
        &c,
        &b,
        &id,
        "export AWS_SESSION_TOKEN=tok-77a1e; PLAIN=visible-5e2b",
    )
    .await;
    srv.shutdown().await;

    // The store (event logs, outside it, record commands as typed).
    assert_no_secret(
        &data.join("agents/restart/store"),
        &["sekrit-4f1d9c", "tok-77a1e"],
        "visible-5e2b",
    );

    let srv = start_on(two, config(Duration::from_secs(300), &["AWS_*"])).await;
    let b = srv.base.clone();
    assert_eq!(probe(&c, &b, &id).await, probe_expected("/workspace"));
    let out = run(
        &c,
        &b,
        &id,
        "echo ${AWS_SESSION_TOKEN-gone} $PLAIN $AWS_SECRET_ACCESS_KEY",
    )
    .await;
    // The injected secret comes back from the operator's environment, the
    // agent's own AWS_ variable is not stored.
    assert_eq!(out["stdout"], "gone visible-5e2b sekrit-4f1d9c\n");
    // Completing removes the record: the id is gone on a restart.
    let r = c
        .delete(format!("{b}/v1/sessions/{id}"))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success());
    srv.shutdown().await;
    let srv = start_on(three, ServeConfig::default()).await;
    let r = c
        .post(format!("{}/v1/sessions/{id}/run", srv.base))
        .json(&json!({ "command": "true" }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), reqwest::StatusCode::NOT_FOUND);
    srv.shutdown().await;
}

/// Every byte under `dir` (an agent's store), gzip'd records unpacked:
/// none of `secrets`, and `control` somewhere (the state was stored).
fn assert_no_secret(dir: &Path, secrets: &[&str], control: &str) {
    let mut control_seen = false;
    for file in walk(dir) {
        let bytes = std::fs::read(&file).unwrap();
        let mut plain = Vec::new();
        let bytes = if std::io::Read::read_to_end(
            &mut flate2::read::GzDecoder::new(&bytes[..]),
            &mut plain,
        )
        .is_ok()
        {
            plain
        } else {
            bytes
        };
        let text = String::from_utf8_lossy(&bytes);
        for s in secrets {
            assert!(!text.contains(s), "{s} stored in {}", file.display());
        }
        control_seen |= text.contains(control)
            && file.to_string_lossy().contains("/sessions/")
            && file.extension().is_some_and(|e| e == "json");
    }
    assert!(
        control_seen,
        "the unlisted variable {control} is in a stored session record"
    );
}

fn s3_stores(moto: &super::s3::Moto, prefix: &str) -> Arc<S3Stores> {
    let pairs = [
        ("aws_endpoint_url", moto.endpoint.as_str()),
        ("aws_allow_http", "true"),
        ("aws_region", "us-east-1"),
        ("aws_access_key_id", "testing"),
        ("aws_secret_access_key", "testing"),
    ];
    Arc::new(S3Stores::from_url_with(&format!("s3://shells/{prefix}"), pairs).unwrap())
}

/// Two workers (in-process servers with their own data directories) on
/// one S3 bucket: a session parked on the first resumes on the second with
/// its shell, and the secret is in no object of the bucket.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn local_state_resumes_on_a_second_worker_sharing_s3() {
    let Some(moto) = super::s3::moto() else {
        return;
    };
    super::s3::make_bucket(&moto, "shells").await;
    let (d1, d2) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let one = Runtime::builder()
        .data_dir(d1.path())
        .stores(s3_stores(&moto, "l"))
        .build();
    let two = Runtime::builder()
        .data_dir(d2.path())
        .stores(s3_stores(&moto, "l"))
        .build();
    second_worker_resumes(one, two, s3_stores(&moto, "l")).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn docker_state_resumes_on_a_second_worker_sharing_s3() {
    let (d1, d2) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    if docker_runtime(d1.path(), &[], None).await.is_none() {
        return;
    }
    let Some(moto) = super::s3::moto() else {
        return;
    };
    super::s3::make_bucket(&moto, "shells").await;
    let one = docker_runtime(d1.path(), &[], Some(s3_stores(&moto, "d")))
        .await
        .unwrap();
    let two = docker_runtime(d2.path(), &[], Some(s3_stores(&moto, "d")))
        .await
        .unwrap();
    second_worker_resumes(one, two, s3_stores(&moto, "d")).await;
}

async fn second_worker_resumes(one: Runtime, two: Runtime, stores: Arc<S3Stores>) {
    let w1 = start_on(one, config(Duration::from_secs(300), &["AWS_*", "*_TOKEN"])).await;
    let w2 = start_on(two, config(Duration::from_secs(300), &["AWS_*", "*_TOKEN"])).await;
    let c = client();
    let id = session(&c, &w1.base, "roaming").await;
    run(&c, &w1.base, &id, SET).await;
    run(
        &c,
        &w1.base,
        &id,
        "echo data > file; export GH_TOKEN=ghp-31c0ffee AWS_X=aws-9d8e; PLAIN=plain-0a1b",
    )
    .await;
    // Not parked yet: the second worker does not know it (today's answer).
    let r = c
        .post(format!("{}/v1/sessions/{id}/run", w2.base))
        .json(&json!({ "command": "true" }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), reqwest::StatusCode::NOT_FOUND);
    let r = c
        .post(format!("{}/v1/sessions/{id}/park", w1.base))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success());

    // Every object of the agent's store: no secret, the plain variable
    // present.
    let objects = store_objects(stores, "roaming").await;
    assert!(!objects.is_empty());
    let mut plain_seen = false;
    for (key, body) in &objects {
        let text = String::from_utf8_lossy(body);
        for s in ["ghp-31c0ffee", "aws-9d8e"] {
            assert!(!text.contains(s), "{s} stored in {key}");
        }
        plain_seen |= text.contains("plain-0a1b");
    }
    assert!(plain_seen, "the session record is in the store");

    assert_eq!(probe(&c, &w2.base, &id).await, probe_expected("/workspace"));
    let out = run(
        &c,
        &w2.base,
        &id,
        "cat file; echo ${GH_TOKEN-gone} ${AWS_X-gone} $PLAIN",
    )
    .await;
    assert_eq!(out["stdout"], "data\ngone gone plain-0a1b\n");
    w1.shutdown().await;
    w2.shutdown().await;
}

/// Every object of `agent`'s store read through the store (blobs
/// checked and unpacked, records, session records, the head).
async fn store_objects(stores: Arc<S3Stores>, agent: &str) -> Vec<(String, Vec<u8>)> {
    let agent = agent.to_string();
    tokio::task::spawn_blocking(move || {
        let store = stores.agent(&agent);
        let mut out = Vec::new();
        out.push((
            "HEAD".to_string(),
            format!("{:?}", store.head().unwrap()).into_bytes(),
        ));
        for h in store.blob_hashes().unwrap() {
            out.push((format!("blob {h}"), store.read_blob(&h).unwrap()));
        }
        for id in store.record_ids().unwrap() {
            let r = store.read_record(&id).unwrap();
            out.push((format!("record {id}"), format!("{r:?}").into_bytes()));
        }
        for (id, _) in store.session_ids().unwrap() {
            out.push((
                format!("session {id}"),
                store.read_session(&id).unwrap().unwrap(),
            ));
        }
        out
    })
    .await
    .unwrap()
}
