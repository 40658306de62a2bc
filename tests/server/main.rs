//! `sandkeep serve` on the local backend, over real HTTP on 127.0.0.1: every
//! REST endpoint, SSE runs, auth (401, 403 across agents and sessions, ids
//! that leak nothing, tokens absent from logs), limits (429 + Retry-After),
//! idle park with transparent resume, SIGTERM parking every session, the
//! refusal to listen openly without tokens, and the OpenAPI document against
//! the routes. The endpoints, SSE and idle park again on the docker backend
//! (with and without the warm pool), and SIGTERM on docker leaving no
//! container: skipped with a printed reason when no daemon answers, unless
//! `SANDKEEP_REQUIRE_DOCKER=1`. An `#[ignore]`d measurement of session
//! creation to first output on docker (see `docker_latency`).
//!
//! Modules: `guard` (a web page's requests against a tokenless server,
//! input bounds, error shapes, SSE readers that stop reading or leave,
//! `Idempotency-Key`, MCP sessions under the session limits and idle
//! parks), `python` (the Python client's suite and schemathesis),
//! `typescript` (the TypeScript client's suite, `npm test`), `durability`
//! (storage faults through `fault_proxy`, the spool, checkpoints), `load`
//! (the ignored local load benchmark), `docker` (the docker backend, the
//! pool and its latency measurement); the harness and the local tests here.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]
// The spawned servers are returned to the tests, which kill and wait on them.
#![allow(clippy::zombie_processes)]

#[path = "../docker_support/mod.rs"]
mod docker_support;

mod docker;
mod durability;
mod fault_proxy;
mod guard;
mod load;
mod python;
mod s3;
mod shell_state;
mod typescript;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use reqwest::{Client, StatusCode};
use sandkeep::{DockerBackend, DockerConfig, PoolConfig, Runtime, ServeConfig, Server, Tokens};
use serde_json::{Value, json};

struct Running {
    base: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<std::io::Result<sandkeep::ShutdownReport>>,
}

impl Running {
    async fn shutdown(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        let report = self.task.await.unwrap().unwrap();
        assert!(report.all_kept(), "{report:?}");
    }
}

async fn start(data: &Path, config: ServeConfig) -> Running {
    start_on(Runtime::builder().data_dir(data).build(), config).await
}

/// Serves `runtime` (any backend) on a free loopback port.
async fn start_on(runtime: Runtime, config: ServeConfig) -> Running {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let server = Server::new(runtime, config);
    let task = tokio::spawn(server.serve(listener, async move {
        let _ = rx.await;
    }));
    Running {
        base,
        stop: Some(tx),
        task,
    }
}

/// An HTTP client for the tests. reqwest is built with rustls but without a
/// crypto provider of its own (sandkeep's S3 store installs ring, as here).
fn client() -> Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    Client::new()
}

async fn json_of(r: reqwest::Response) -> (StatusCode, Value) {
    let status = r.status();
    let text = r.text().await.unwrap();
    let v = serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON ({status}): {text}"));
    (status, v)
}

async fn create(c: &Client, base: &str, agent: &str, token: Option<&str>) -> (StatusCode, Value) {
    let mut req = c.post(format!("{base}/v1/agents/{agent}/sessions"));
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    json_of(req.send().await.unwrap()).await
}

async fn run(c: &Client, base: &str, id: &str, command: &str) -> Value {
    let r = c
        .post(format!("{base}/v1/sessions/{id}/run"))
        .json(&json!({ "command": command }))
        .send()
        .await
        .unwrap();
    let (status, v) = json_of(r).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_rest_endpoint_round_trips() {
    let data = tempfile::tempdir().unwrap();
    let srv = start(data.path(), ServeConfig::default()).await;
    every_rest_endpoint(srv, "local").await;
}

/// Every REST endpoint on a server over `backend`: sessions, runs, files,
/// park and resume, mindlog, complete, generations, and clean errors.
async fn every_rest_endpoint(srv: Running, backend: &str) {
    let (b, c) = (srv.base.clone(), client());

    let (status, health) = json_of(c.get(format!("{b}/v1/health")).send().await.unwrap()).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(health["status"], "ok");
    assert_eq!(health["backend"], backend);

    let (status, created) = create(&c, &b, "alice", None).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_eq!(created["agent"], "alice");
    let id = created["session"].as_str().unwrap().to_string();

    // run: stdout, stderr, exit code, stdin, timeout.
    let r = run(&c, &b, &id, "echo hi; echo oops >&2; exit 3").await;
    assert_eq!(
        r,
        json!({"stdout": "hi\n", "stderr": "oops\n", "exit_code": 3, "truncated": false, "timed_out": false})
    );
    let r = c
        .post(format!("{b}/v1/sessions/{id}/run"))
        .json(&json!({"command": "tr a-z A-Z", "stdin": "shout\n"}))
        .send()
        .await
        .unwrap();
    assert_eq!(json_of(r).await.1["stdout"], "SHOUT\n");
    let r = c
        .post(format!("{b}/v1/sessions/{id}/run"))
        .json(&json!({"command": "while true; do :; done", "timeout_ms": 200}))
        .send()
        .await
        .unwrap();
    let (_, v) = json_of(r).await;
    assert_eq!(v["timed_out"], true, "{v}");
    assert_eq!(v["exit_code"], 124);

    // Bad bodies are 400 with a JSON error, not a crash.
    for body in [
        "{",
        "{\"cmd\": \"ls\"}",
        "{\"command\": 5}",
        "{\"command\": \"ls\", \"timeout_ms\": 0}",
    ] {
        let r = c
            .post(format!("{b}/v1/sessions/{id}/run"))
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap();
        let (status, v) = json_of(r).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}: {v}");
        assert!(v["error"].is_string());
    }

    // files: PUT, GET, DELETE, and the run sees them.
    let r = c
        .put(format!("{b}/v1/sessions/{id}/files/notes/todo.txt"))
        .body("milk\n")
        .send()
        .await
        .unwrap();
    assert_eq!(
        json_of(r).await,
        (
            StatusCode::OK,
            json!({"path": "notes/todo.txt", "bytes": 5})
        )
    );
    assert_eq!(
        run(&c, &b, &id, "cat /workspace/notes/todo.txt").await["stdout"],
        "milk\n"
    );
    let r = c
        .get(format!("{b}/v1/sessions/{id}/files/notes/todo.txt"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.bytes().await.unwrap().as_ref(), b"milk\n");
    let r = c
        .get(format!("{b}/v1/sessions/{id}/files/nope.txt"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    let r = c
        .get(format!(
            "{b}/v1/sessions/{id}/files/x%2F..%2F..%2Fetc%2Fpasswd"
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    run(&c, &b, &id, "echo bye > gone.txt").await;
    let r = c
        .delete(format!("{b}/v1/sessions/{id}/files/gone.txt"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    assert_eq!(run(&c, &b, &id, "ls").await["stdout"], "notes\n");

    // park: kept as a generation; the next call resumes with the same files.
    let (status, parked) = json_of(
        c.post(format!("{b}/v1/sessions/{id}/park"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{parked}");
    let first = parked["generation"].as_str().unwrap().to_string();
    assert_eq!(
        run(
            &c,
            &b,
            &id,
            "cat notes/todo.txt; echo eggs >> notes/todo.txt"
        )
        .await["stdout"],
        "milk\n"
    );

    // mindlog
    let r = c
        .post(format!("{b}/v1/agents/alice/mindlog"))
        .json(&json!({"kind": "thought", "text": "buy milk", "session": id}))
        .send()
        .await
        .unwrap();
    let (status, entry) = json_of(r).await;
    assert_eq!(status, StatusCode::CREATED, "{entry}");
    assert_eq!(entry["kind"], "thought");
    c.post(format!("{b}/v1/agents/alice/mindlog"))
        .json(&json!({"text": "call bob"}))
        .send()
        .await
        .unwrap();
    let (_, all) = json_of(
        c.get(format!("{b}/v1/agents/alice/mindlog?limit=10"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    let texts: Vec<&str> = all["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts, ["buy milk", "call bob"]);
    let (_, found) = json_of(
        c.get(format!("{b}/v1/agents/alice/mindlog?query=MILK"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(found["entries"].as_array().unwrap().len(), 1);
    let r = c
        .post(format!("{b}/v1/agents/alice/mindlog"))
        .json(&json!({"text": "  "}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    let r = c
        .get(format!("{b}/v1/agents/alice/mindlog?limit=zero"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);

    // complete: the second change is kept, the session is gone.
    let (status, done) = json_of(
        c.delete(format!("{b}/v1/sessions/{id}"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{done}");
    let second = done["generation"].as_str().unwrap().to_string();
    assert_ne!(first, second);
    let r = c
        .post(format!("{b}/v1/sessions/{id}/run"))
        .json(&json!({"command": "ls"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);

    // generations: log, show, a file as kept, diff, checkout, verify.
    let (_, log) = json_of(
        c.get(format!("{b}/v1/agents/alice/generations"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    let ids: Vec<&str> = log["generations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [second.as_str(), first.as_str()]);
    let (_, show) = json_of(
        c.get(format!("{b}/v1/agents/alice/generations/HEAD"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert!(
        show["files"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["path"] == "notes/todo.txt" && f["size"] == 10)
    );
    let r = c
        .get(format!(
            "{b}/v1/agents/alice/generations/HEAD~1/files/notes/todo.txt"
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(r.bytes().await.unwrap().as_ref(), b"milk\n");
    let (_, diff) = json_of(
        c.get(format!("{b}/v1/agents/alice/diff"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(
        diff["changes"],
        json!([{"change": "M", "path": "notes/todo.txt", "size": 10}])
    );
    let r = c
        .get(format!("{b}/v1/agents/alice/generations/ffffffff"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    let (status, co) = json_of(
        c.post(format!("{b}/v1/agents/alice/generations/{first}/checkout"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{co}");
    let (_, created) = create(&c, &b, "alice", None).await;
    let id2 = created["session"].as_str().unwrap();
    assert_eq!(
        run(&c, &b, id2, "cat notes/todo.txt").await["stdout"],
        "milk\n",
        "the checkout is what a new session sees"
    );
    let (_, verify) = json_of(
        c.post(format!("{b}/v1/agents/alice/verify"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(verify, json!({"ok": true, "damaged": []}));

    // Unknown routes and bad agent names are clean errors.
    let r = c.get(format!("{b}/v1/nope")).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    let (status, _) = create(&c, &b, "..", None).await;
    assert!(
        status == StatusCode::BAD_REQUEST || status == StatusCode::NOT_FOUND,
        "{status}"
    );
    let (status, _) = create(&c, &b, "-x", None).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    srv.shutdown().await;
}

/// Parses an SSE body into (event, data) pairs.
fn sse_events(body: &str) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for block in body.split("\n\n") {
        let mut event = String::new();
        let mut data = String::new();
        for line in block.lines() {
            if let Some(e) = line.strip_prefix("event:") {
                event = e.trim().to_string();
            } else if let Some(d) = line.strip_prefix("data:") {
                data.push_str(d.trim_start());
            }
        }
        if !event.is_empty() {
            out.push((event, serde_json::from_str(&data).unwrap()));
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_streams_as_server_sent_events() {
    let data = tempfile::tempdir().unwrap();
    streams_as_sse(start(data.path(), ServeConfig::default()).await).await;
}

async fn streams_as_sse(srv: Running) {
    let (b, c) = (srv.base.clone(), client());
    let (_, created) = create(&c, &b, "streamer", None).await;
    let id = created["session"].as_str().unwrap();
    let r = c
        .post(format!("{b}/v1/sessions/{id}/run"))
        .header("accept", "text/event-stream")
        .json(&json!({"command": "echo one; echo two >&2; echo three; exit 7"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert!(
        r.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    let events = sse_events(&r.text().await.unwrap());
    let (last_event, last) = events.last().unwrap();
    assert_eq!(last_event, "exit");
    assert_eq!(last["exit_code"], 7);
    let joined = |stream: &str| -> String {
        events
            .iter()
            .filter(|(e, _)| e == stream)
            .map(|(_, d)| d["data"].as_str().unwrap())
            .collect()
    };
    assert_eq!(joined("stdout"), "one\nthree\n");
    assert_eq!(joined("stderr"), "two\n");
    srv.shutdown().await;
}

const TOKENS: &str = r#"{"tok-alice-0123456789": ["alice"], "tok-bob-0123456789": ["bob"], "tok-admin-0123456789": "*"}"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_scope_agents_and_sessions() {
    let data = tempfile::tempdir().unwrap();
    let config = ServeConfig {
        tokens: Some(Tokens::parse(TOKENS).unwrap()),
        ..ServeConfig::default()
    };
    let srv = start(data.path(), config).await;
    let (b, c) = (srv.base.clone(), client());
    let (alice, bob, admin) = (
        "tok-alice-0123456789",
        "tok-bob-0123456789",
        "tok-admin-0123456789",
    );

    // 401: no token, a wrong one, a non-bearer scheme.
    let (status, v) = create(&c, &b, "alice", None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{v}");
    let (status, _) = create(&c, &b, "alice", Some("tok-alice-0123456788")).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let r = c
        .post(format!("{b}/v1/agents/alice/sessions"))
        .basic_auth("alice", Some(alice))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    // health needs no token.
    assert_eq!(
        c.get(format!("{b}/v1/health"))
            .send()
            .await
            .unwrap()
            .status(),
        StatusCode::OK
    );

    // 403 across agents.
    let (status, _) = create(&c, &b, "bob", Some(alice)).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let r = c
        .get(format!("{b}/v1/agents/bob/mindlog"))
        .bearer_auth(alice)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    let r = c
        .get(format!("{b}/v1/agents/bob/generations"))
        .bearer_auth(alice)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);

    // 403 across sessions, with the same answer as for an id that does not exist.
    let (status, created) = create(&c, &b, "bob", Some(bob)).await;
    assert_eq!(status, StatusCode::CREATED);
    let bobs = created["session"].as_str().unwrap();
    let foreign = c
        .post(format!("{b}/v1/sessions/{bobs}/run"))
        .bearer_auth(alice)
        .json(&json!({"command": "ls"}))
        .send()
        .await
        .unwrap();
    let (fs, fbody) = json_of(foreign).await;
    let made_up = format!("s-{}", "0".repeat(32));
    let unknown = c
        .post(format!("{b}/v1/sessions/{made_up}/run"))
        .bearer_auth(alice)
        .json(&json!({"command": "ls"}))
        .send()
        .await
        .unwrap();
    let (us, ubody) = json_of(unknown).await;
    assert_eq!(
        (fs, &fbody),
        (StatusCode::FORBIDDEN, &ubody),
        "a foreign id and an unknown id look alike"
    );
    assert_eq!(us, StatusCode::FORBIDDEN);
    for (method, path) in [
        ("GET", "files/x"),
        ("PUT", "files/x"),
        ("DELETE", "files/x"),
        ("POST", "park"),
    ] {
        let r = c
            .request(
                method.parse().unwrap(),
                format!("{b}/v1/sessions/{bobs}/{path}"),
            )
            .bearer_auth(alice)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::FORBIDDEN, "{method} {path}");
    }
    let r = c
        .delete(format!("{b}/v1/sessions/{bobs}"))
        .bearer_auth(alice)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    // The owner and the admin token get through.
    let r = c
        .post(format!("{b}/v1/sessions/{bobs}/run"))
        .bearer_auth(bob)
        .json(&json!({"command": "echo mine"}))
        .send()
        .await
        .unwrap();
    assert_eq!(json_of(r).await.1["stdout"], "mine\n");
    let r = c
        .post(format!("{b}/v1/sessions/{bobs}/run"))
        .bearer_auth(admin)
        .json(&json!({"command": "echo admin"}))
        .send()
        .await
        .unwrap();
    assert_eq!(json_of(r).await.1["stdout"], "admin\n");
    let r = c
        .delete(format!("{b}/v1/sessions/{bobs}"))
        .bearer_auth(bob)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    srv.shutdown().await;

    // Tokens never reach the event logs or anything else in the data dir.
    for entry in walk(data.path()) {
        let bytes = std::fs::read(&entry).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        for t in [alice, bob, admin] {
            assert!(!text.contains(t), "{} holds a token", entry.display());
        }
    }
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_limits_answer_429_with_retry_after() {
    let data = tempfile::tempdir().unwrap();
    let config = ServeConfig {
        tokens: Some(Tokens::parse(TOKENS).unwrap()),
        max_sessions: 3,
        max_sessions_per_token: 2,
        ..ServeConfig::default()
    };
    let srv = start(data.path(), config).await;
    let (b, c) = (srv.base.clone(), client());
    let alice = "tok-alice-0123456789";
    let mut ids = Vec::new();
    for _ in 0..2 {
        let (status, v) = create(&c, &b, "alice", Some(alice)).await;
        assert_eq!(status, StatusCode::CREATED);
        ids.push(v["session"].as_str().unwrap().to_string());
    }
    let r = c
        .post(format!("{b}/v1/agents/alice/sessions"))
        .bearer_auth(alice)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::TOO_MANY_REQUESTS);
    let retry: u64 = r.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(retry >= 1);
    // Another token still has room, up to the server's total.
    let (status, _) = create(&c, &b, "bob", Some("tok-bob-0123456789")).await;
    assert_eq!(status, StatusCode::CREATED);
    let (status, _) = create(&c, &b, "bob", Some("tok-bob-0123456789")).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "the total limit");
    // Completing one frees a place.
    c.delete(format!("{b}/v1/sessions/{}", ids[0]))
        .bearer_auth(alice)
        .send()
        .await
        .unwrap();
    let (status, _) = create(&c, &b, "alice", Some(alice)).await;
    assert_eq!(status, StatusCode::CREATED);
    srv.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_session_is_parked_and_resumes_transparently() {
    let data = tempfile::tempdir().unwrap();
    let srv = start(data.path(), idle_config()).await;
    idle_park_and_resume(srv, data.path()).await;
}

fn idle_config() -> ServeConfig {
    ServeConfig {
        idle: Duration::from_millis(300),
        ..ServeConfig::default()
    }
}

/// A session idle past `--idle` is kept and its sandbox released; the next
/// call resumes it in a new sandbox with the same files.
async fn idle_park_and_resume(srv: Running, data: &Path) {
    let (b, c) = (srv.base.clone(), client());
    let (_, created) = create(&c, &b, "sleepy", None).await;
    let id = created["session"].as_str().unwrap();
    run(&c, &b, id, "echo kept > a.txt").await;
    let gens = Runtime::builder()
        .data_dir(data)
        .build()
        .generations("sleepy")
        .unwrap();
    assert!(
        gens.head().unwrap().is_none(),
        "nothing kept before the idle park"
    );
    // Wait for the idle park: the workspace becomes a generation by itself,
    // and the sandbox is released (the first sandkeep session completes; on
    // docker that is a moment after the generation is kept).
    let sessions = data.join("agents/sleepy/sessions");
    let completed = || {
        let logs = walk(&sessions);
        logs.len() == 1
            && std::fs::read_to_string(&logs[0])
                .unwrap()
                .contains("session.completed")
    };
    let mut parked = false;
    for _ in 0..150 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        if gens.head().unwrap().is_some() && completed() {
            parked = true;
            break;
        }
    }
    assert!(gens.head().unwrap().is_some(), "the idle session was kept");
    assert!(parked, "the idle session's sandbox was released");
    assert_eq!(walk(&sessions).len(), 1);
    // The next call resumes in a new sandbox with the same files.
    assert_eq!(run(&c, &b, id, "cat a.txt").await["stdout"], "kept\n");
    assert_eq!(
        walk(&sessions).len(),
        2,
        "a new sandbox under the same session id"
    );
    srv.shutdown().await;
}

fn spawn_serve(data: &Path, extra: &[&str]) -> (Child, String) {
    spawn_serve_on("local", data, extra)
}

fn spawn_serve_on(backend: &str, data: &Path, extra: &[&str]) -> (Child, String) {
    let mut cmd = serve_command(data, backend, extra);
    cmd.env("RUST_LOG", "debug");
    serve_child(cmd, true)
}

/// `sandkeep --data DATA serve --backend BACKEND --listen 127.0.0.1:0 EXTRA`,
/// its stdout discarded and its stderr piped for [`serve_child`].
fn serve_command(data: &Path, backend: &str, extra: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_sandkeep"));
    cmd.arg("--data")
        .arg(data)
        .args(["serve", "--backend", backend, "--listen", "127.0.0.1:0"])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    cmd
}

/// Starts a serve process and waits for its `serving on URL` line; the rest
/// of its stderr is drained by a thread, so the server never blocks on a
/// full pipe, and kept in `LOGS` for the test to read when `keep_log`.
fn serve_child(mut cmd: Command, keep_log: bool) -> (Child, String) {
    let mut child = cmd.spawn().unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    loop {
        line.clear();
        assert!(
            lines.read_line(&mut line).unwrap() > 0,
            "serve exited before listening"
        );
        if let Some(url) = line.trim().strip_prefix("sandkeep: serving on ") {
            let url = url.to_string();
            let log = std::thread::spawn(move || {
                let mut rest = String::new();
                let _ = std::io::Read::read_to_string(&mut lines, &mut rest);
                rest
            });
            if keep_log {
                LOGS.with(|l| l.borrow_mut().push(log));
            }
            return (child, url);
        }
    }
}

thread_local! {
    static LOGS: std::cell::RefCell<Vec<std::thread::JoinHandle<String>>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn sigterm(child: &Child) {
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn sigterm_parks_every_session_and_tokens_stay_out_of_the_log() {
    let data = tempfile::tempdir().unwrap();
    let tokens = data.path().join("tokens.json");
    std::fs::write(&tokens, TOKENS).unwrap();
    let (mut child, base) = spawn_serve(data.path(), &["--tokens", tokens.to_str().unwrap()]);
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let c = client();
        for (agent, token) in [
            ("alice", "tok-alice-0123456789"),
            ("bob", "tok-bob-0123456789"),
        ] {
            let (status, v) = create(&c, &base, agent, Some(token)).await;
            assert_eq!(status, StatusCode::CREATED, "{v}");
            let id = v["session"].as_str().unwrap();
            let r = c
                .post(format!("{base}/v1/sessions/{id}/run"))
                .bearer_auth(token)
                .json(&json!({"command": format!("echo {agent} > who.txt")}))
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), StatusCode::OK);
        }
        // A failed attempt with a wrong token must not be logged either.
        create(&c, &base, "alice", Some("tok-wrong-0123456789")).await;
    });
    sigterm(&child);
    let status = child.wait().unwrap();
    assert!(status.success(), "{status}");
    let log = LOGS.with(|l| l.borrow_mut().pop().unwrap()).join().unwrap();
    assert!(log.contains("every session parked"), "{log}");
    for t in [
        "tok-alice-0123456789",
        "tok-bob-0123456789",
        "tok-admin-0123456789",
        "tok-wrong-0123456789",
    ] {
        assert!(!log.contains(t), "a token in the log:\n{log}");
    }
    assert_kept_at_sigterm(data.path());
}

/// Each of alice's and bob's sessions was parked at SIGTERM: the head of
/// each holds the `who.txt` the test wrote (the agent's name).
fn assert_kept_at_sigterm(data: &Path) {
    let runtime = Runtime::builder().data_dir(data).build();
    for agent in ["alice", "bob"] {
        let gens = runtime.generations(agent).unwrap();
        let head = gens.head().unwrap().expect("kept at SIGTERM");
        let tree = gens.manifest(&head.id).unwrap();
        let blob = gens
            .store()
            .read_blob(&tree.entries["who.txt"].hash.unwrap())
            .unwrap();
        assert_eq!(blob, format!("{agent}\n").as_bytes());
    }
}

#[test]
fn an_open_listen_without_tokens_is_refused() {
    let data = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_sandkeep"))
        .arg("--data")
        .arg(data.path())
        .args(["serve", "--backend", "local", "--listen", "0.0.0.0:0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(125));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("without --tokens"), "{err}");
    // A bad token file is refused too, without echoing its contents.
    let tokens = data.path().join("t.json");
    std::fs::write(&tokens, r#"{"secret-token-xyz": "everyone"}"#).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_sandkeep"))
        .arg("--data")
        .arg(data.path())
        .args([
            "serve",
            "--backend",
            "local",
            "--listen",
            "127.0.0.1:0",
            "--tokens",
        ])
        .arg(&tokens)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(125));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("grant must be"), "{err}");
    assert!(!err.contains("secret-token-xyz"), "{err}");
}

/// Every operation the OpenAPI document lists is a route of the server (the
/// fallback's "no such route" never answers), and every route of the server
/// is documented.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openapi_document_matches_the_routes() {
    let data = tempfile::tempdir().unwrap();
    let srv = start(data.path(), ServeConfig::default()).await;
    let (b, c) = (srv.base.clone(), client());
    let (status, doc) = json_of(c.get(format!("{b}/v1/openapi.json")).send().await.unwrap()).await;
    assert_eq!(status, StatusCode::OK);
    assert!(doc["openapi"].as_str().unwrap().starts_with("3."));
    let (_, created) = create(&c, &b, "doc", None).await;
    let id = created["session"].as_str().unwrap().to_string();
    let mut operations = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            let url = path
                .replace("{agent}", "doc")
                .replace("{id}", &id)
                .replace("{generation}", "HEAD")
                .replace("{path}", "x.txt");
            let mut req = c.request(method.to_uppercase().parse().unwrap(), format!("{b}{url}"));
            if url.ends_with("/run") {
                req = req.json(&json!({"command": "true"}));
            } else if url.ends_with("/mindlog") && method == "post" {
                req = req.json(&json!({"text": "doc"}));
            }
            if url == format!("/v1/sessions/{id}") {
                continue; // completing it would end the walk's session
            }
            let r = req.send().await.unwrap();
            let status = r.status();
            let body = r.text().await.unwrap();
            assert!(
                !body.contains("no such route"),
                "{method} {path} is documented but not served"
            );
            let documented = &item[method]["responses"];
            assert!(
                documented.get(status.as_str()).is_some(),
                "{method} {path} answered {status}, which the document does not list: {body}"
            );
            operations += 1;
        }
    }
    assert_eq!(operations, 16, "every operation but completeSession");
    let r = c
        .delete(format!("{b}/v1/sessions/{id}"))
        .send()
        .await
        .unwrap();
    assert!(
        doc["paths"]["/v1/sessions/{id}"]["delete"]["responses"]
            .get(r.status().as_str())
            .is_some()
    );
    srv.shutdown().await;
}

/// A python with the official MCP SDK: `$SANDKEEP_MCP_PYTHON`, the virtualenv
/// tests/runtime/mcp.rs makes, or python3 itself; `None` (skipped, reason printed)
/// without one, unless `SANDKEEP_REQUIRE_S3=1` (CI), where it fails.
fn mcp_python() -> Option<std::path::PathBuf> {
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/mcp-venv/bin/python");
    let candidates = std::env::var("SANDKEEP_MCP_PYTHON")
        .map(std::path::PathBuf::from)
        .into_iter()
        .chain([venv, "python3".into()]);
    for py in candidates {
        let ok = Command::new(&py)
            .args(["-c", "import mcp.client.streamable_http"])
            .output()
            .is_ok_and(|o| o.status.success());
        if ok {
            return Some(py);
        }
    }
    let reason = "no python with the MCP SDK (pip install mcp)";
    assert!(
        std::env::var("SANDKEEP_REQUIRE_S3").as_deref() != Ok("1"),
        "{reason}"
    );
    eprintln!("skipping: {reason}");
    None
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_mcp_sdk_uses_streamable_http() {
    let Some(python) = mcp_python() else { return };
    let data = tempfile::tempdir().unwrap();
    let config = ServeConfig {
        tokens: Some(Tokens::parse(TOKENS).unwrap()),
        ..ServeConfig::default()
    };
    let srv = start(data.path(), config).await;
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/http_client.py");
    let url = format!("{}/mcp/alice", srv.base);
    let out = tokio::process::Command::new(&python)
        .arg(&script)
        .args([url.as_str(), "tok-alice-0123456789"])
        .output()
        .await
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seen: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(seen["server"], "sandkeep");
    assert!(
        seen["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t == "bash"),
        "{seen}"
    );
    assert!(
        seen["bash"].as_str().unwrap().starts_with("over-http\n"),
        "{seen}"
    );
    assert_eq!(seen["bash_error"], false);
    assert_eq!(seen["read"], "over-http\n");
    // Every tool call was a parked turn: the file is kept for the agent.
    let gens = Runtime::builder()
        .data_dir(data.path())
        .build()
        .generations("alice")
        .unwrap();
    let head = gens.head().unwrap().expect("kept by the MCP calls");
    assert!(
        gens.manifest(&head.id)
            .unwrap()
            .entries
            .contains_key("mcp.txt")
    );
    // Another agent's token, or none, does not get in.
    for token in ["tok-bob-0123456789", "-"] {
        let out = tokio::process::Command::new(&python)
            .arg(&script)
            .args([url.as_str(), token])
            .output()
            .await
            .unwrap();
        assert!(!out.status.success(), "token {token} reached alice's MCP");
    }
    let c = client();
    let r = c
        .post(&url)
        .bearer_auth("tok-bob-0123456789")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    let r = c.post(&url).body("{}").send().await.unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    srv.shutdown().await;
}

/// The `q` quantile (nearest rank) of sorted latencies; `None` if empty.
fn quantile<T: Copy>(sorted: &[T], q: f64) -> Option<T> {
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted.get(rank.clamp(1, sorted.len().max(1)) - 1).copied()
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
