//! Attacks on a server that runs without tokens on 127.0.0.1, and on its
//! input bounds, over real HTTP: what a web page in the user's browser can
//! send (a cross-site form `POST` with `Content-Type: text/plain`, a
//! request whose `Host` is a re-bound name), file paths no file system
//! holds (NUL, a component past `NAME_MAX`, a path past `PATH_MAX`), the
//! shape of the errors axum answers itself (405, 413), and an SSE client
//! that stops reading while its run writes a lot.

use super::*;

/// A cross-site form post: `text/plain` (a "simple" request, sent without a
/// CORS preflight), with or without the `Origin` a browser adds.
fn form_post(c: &Client, url: String, origin: Option<&str>) -> reqwest::RequestBuilder {
    let req = c
        .post(url)
        .header("content-type", "text/plain")
        .body(r#"{"text": "written by a web page", "kind": "note"}"#);
    match origin {
        Some(o) => req.header("origin", o),
        None => req,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cross_site_post_writes_no_mindlog_and_checks_out_nothing() {
    let data = tempfile::tempdir().unwrap();
    let srv = start(data.path(), ServeConfig::default()).await;
    let (b, c) = (srv.base.clone(), client());
    // Two generations, the second the head.
    let (_, created) = create(&c, &b, "victim", None).await;
    let id = created["session"].as_str().unwrap().to_string();
    run(&c, &b, &id, "echo one > f").await;
    let (_, parked) = json_of(
        c.post(format!("{b}/v1/sessions/{id}/park"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    let first = parked["generation"].as_str().unwrap().to_string();
    run(&c, &b, &id, "echo two > f").await;
    let (_, parked) = json_of(
        c.post(format!("{b}/v1/sessions/{id}/park"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    let second = parked["generation"].as_str().unwrap().to_string();

    for origin in [None, Some("http://evil.example"), Some("null")] {
        let r = form_post(&c, format!("{b}/v1/agents/victim/mindlog"), origin)
            .send()
            .await
            .unwrap();
        let (status, v) = json_of(r).await;
        let want = if origin.is_some() {
            StatusCode::FORBIDDEN
        } else {
            StatusCode::UNSUPPORTED_MEDIA_TYPE
        };
        assert_eq!(status, want, "mindlog, origin {origin:?}: {v}");
        assert!(v["error"].is_string(), "{v}");
        let r = form_post(
            &c,
            format!("{b}/v1/agents/victim/generations/{first}/checkout"),
            origin,
        )
        .send()
        .await
        .unwrap();
        let (status, v) = json_of(r).await;
        assert_eq!(status, want, "checkout, origin {origin:?}: {v}");
    }
    // An empty form from a page still carries its Origin.
    let r = c
        .post(format!("{b}/v1/agents/victim/generations/{first}/checkout"))
        .header("origin", "http://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);

    let (_, log) = json_of(
        c.get(format!("{b}/v1/agents/victim/mindlog"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(log["entries"], json!([]), "nothing written");
    let (_, head) = json_of(
        c.get(format!("{b}/v1/agents/victim/generations/HEAD"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(head["id"], second, "the head did not move");

    // The server's own page and a JSON client still get through.
    let port = b.rsplit(':').next().unwrap();
    let r = c
        .post(format!("{b}/v1/agents/victim/mindlog"))
        .header("origin", format!("http://127.0.0.1:{port}"))
        .json(&json!({"text": "mine"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    srv.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rebound_host_gets_403_on_every_rest_route() {
    let data = tempfile::tempdir().unwrap();
    let srv = start(data.path(), ServeConfig::default()).await;
    let (b, c) = (srv.base.clone(), client());
    let (_, created) = create(&c, &b, "victim", None).await;
    let id = created["session"].as_str().unwrap().to_string();
    run(&c, &b, &id, "echo secret > s.txt").await;
    let port = b.rsplit(':').next().unwrap();
    let evil = format!("evil.example:{port}");
    let requests = [
        c.get(format!("{b}/v1/sessions/{id}/files/s.txt")),
        c.post(format!("{b}/v1/sessions/{id}/run"))
            .json(&json!({"command": "cat s.txt"})),
        c.get(format!("{b}/v1/agents/victim/mindlog")),
        c.get(format!("{b}/v1/agents/victim/generations")),
        c.post(format!("{b}/v1/agents/victim/sessions")),
        c.get(format!("{b}/v1/health")),
    ];
    for req in requests {
        let r = req.header("host", &evil).send().await.unwrap();
        let (status, v) = json_of(r).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{v}");
        assert!(!v.to_string().contains("secret"), "{v}");
    }
    // localhost, by name, is this machine.
    let r = c
        .get(format!("{b}/v1/sessions/{id}/files/s.txt"))
        .header("host", format!("localhost:{port}"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    srv.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn file_names_no_file_system_holds_get_400_and_parks_go_on() {
    let data = tempfile::tempdir().unwrap();
    let srv = start(data.path(), ServeConfig::default()).await;
    let (b, c) = (srv.base.clone(), client());
    let (_, created) = create(&c, &b, "bounds", None).await;
    let id = created["session"].as_str().unwrap().to_string();
    let long_name = "n".repeat(256);
    let long_path = vec!["d".repeat(200); 21].join("/");
    for (what, path) in [
        ("a NUL byte", "a%00b".to_string()),
        ("a NUL byte in a directory", "dir%00/x".to_string()),
        ("a 256-byte name", long_name.clone()),
        ("a 4,220-byte path", long_path),
    ] {
        let r = c
            .put(format!("{b}/v1/sessions/{id}/files/{path}"))
            .body("x")
            .send()
            .await
            .unwrap();
        let (status, v) = json_of(r).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{what}: {v}");
        assert!(v["error"].is_string());
    }
    // The longest name Linux allows is fine.
    let ok_name = "n".repeat(255);
    let r = c
        .put(format!("{b}/v1/sessions/{id}/files/{ok_name}"))
        .body("fits")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    for _ in 0..2 {
        run(&c, &b, &id, "echo more >> log").await;
        let (status, v) = json_of(
            c.post(format!("{b}/v1/sessions/{id}/park"))
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "the park after the attack: {v}");
    }
    assert_eq!(
        run(&c, &b, &id, &format!("cat {ok_name}; cat log")).await["stdout"],
        "fitsmore\nmore\n"
    );
    srv.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_405_and_a_413_have_json_bodies() {
    let data = tempfile::tempdir().unwrap();
    let config = ServeConfig {
        max_body: 1 << 10,
        ..ServeConfig::default()
    };
    let srv = start(data.path(), config).await;
    let (b, c) = (srv.base.clone(), client());
    let (_, created) = create(&c, &b, "shapes", None).await;
    let id = created["session"].as_str().unwrap().to_string();

    let r = c
        .get(format!("{b}/v1/sessions/{id}/run"))
        .send()
        .await
        .unwrap();
    assert!(r.headers().contains_key("allow"), "{:?}", r.headers());
    let (status, v) = json_of(r).await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
    assert!(v["error"].as_str().is_some_and(|e| !e.is_empty()), "{v}");

    let r = c
        .put(format!("{b}/v1/sessions/{id}/files/big.bin"))
        .body(vec![b'x'; 4 << 10])
        .send()
        .await
        .unwrap();
    let (status, v) = json_of(r).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(v["error"].is_string(), "{v}");
    let r = c
        .post(format!("{b}/v1/sessions/{id}/run"))
        .json(&json!({"command": "x".repeat(4 << 10)}))
        .send()
        .await
        .unwrap();
    let (status, v) = json_of(r).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{v}");
    srv.shutdown().await;
}

/// The serve process's resident memory, in KiB.
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

/// Sends a streaming run on a raw socket and never reads the answer.
fn unread_stream(base: &str, id: &str, command: &str) -> std::net::TcpStream {
    use std::io::Write;
    let addr = base.trim_start_matches("http://");
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    // The smallest receive buffer, so the kernel holds little of what the
    // server sends and the rest waits in the server.
    let body = json!({ "command": command }).to_string();
    write!(
        s,
        "POST /v1/sessions/{id}/run HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    s
}

/// Clients that stop reading a stream of many small writes: the server
/// keeps at most its bounded buffer for each (it kept one event per write,
/// +122 MiB per client).
#[test]
fn sse_clients_that_stop_reading_do_not_grow_the_server() {
    let data = tempfile::tempdir().unwrap();
    let (mut child, base) = spawn_serve(data.path(), &[]);
    let rt = tokio::runtime::Runtime::new().unwrap();
    const CLIENTS: usize = 4;
    // Output in small writes, up to the run's 1 MiB output limit.
    let command = "i=0; while :; do echo $i; i=$((i+1)); done";
    let (ids, before) = rt.block_on(async {
        let c = client();
        let mut ids = Vec::new();
        for _ in 0..CLIENTS {
            let (_, created) = create(&c, &base, "flood", None).await;
            let id = created["session"].as_str().unwrap().to_string();
            // Warm up the session's allocations.
            run(&c, &base, &id, "seq 1000 > /dev/null").await;
            ids.push(id);
        }
        (ids, rss_kib(child.id()))
    });
    let sockets: Vec<_> = ids
        .iter()
        .map(|id| unread_stream(&base, id, command))
        .collect();
    rt.block_on(async {
        let c = client();
        // Runs of one session are serialized: this one answers once the
        // flood is over.
        for id in &ids {
            let r = c
                .post(format!("{base}/v1/sessions/{id}/run"))
                .json(&json!({"command": "echo after", "timeout_ms": 120_000}))
                .timeout(Duration::from_secs(300))
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), StatusCode::OK);
        }
    });
    let after = rss_kib(child.id());
    let grown_mib = after.saturating_sub(before) / 1024;
    eprintln!("serve RSS {before} KiB -> {after} KiB with {CLIENTS} unread streams");
    assert!(
        grown_mib < 8 * CLIENTS as u64,
        "the server grew {grown_mib} MiB for {CLIENTS} clients that do not read"
    );
    drop(sockets);
    let _ = child.kill();
    let _ = child.wait();
}

/// One MCP message over Streamable HTTP: the JSON-RPC reply (from a JSON
/// or an SSE body) when there is one, and the session id header.
async fn mcp_post(
    c: &Client,
    url: &str,
    session: Option<&str>,
    token: Option<&str>,
    message: Value,
) -> (StatusCode, Option<String>, Option<Value>) {
    let mut req = c
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-06-18")
        .json(&message);
    if let Some(s) = session {
        req = req.header("mcp-session-id", s);
    }
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    let r = req.send().await.unwrap();
    let status = r.status();
    let id = r
        .headers()
        .get("mcp-session-id")
        .map(|v| v.to_str().unwrap().to_string());
    let text = r.text().await.unwrap();
    let reply = serde_json::from_str(&text).ok().or_else(|| {
        text.lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
            .find(|v| v.get("id").is_some())
    });
    (status, id, reply)
}

/// Initializes an MCP session of `agent`: its id, or the refusal's status.
async fn mcp_open(
    c: &Client,
    base: &str,
    agent: &str,
    token: Option<&str>,
) -> Result<String, StatusCode> {
    let url = format!("{base}/mcp/{agent}");
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "guard-test", "version": "1"}}});
    let (status, id, reply) = mcp_post(c, &url, None, token, init).await;
    let Some(id) = id else {
        return Err(status);
    };
    assert!(reply.is_some_and(|r| r.get("result").is_some()));
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let (status, _, _) = mcp_post(c, &url, Some(&id), token, note).await;
    assert!(status.is_success(), "{status}");
    Ok(id)
}

/// Runs `command` with the MCP `bash` tool; its text.
async fn mcp_bash(c: &Client, base: &str, agent: &str, session: &str, command: &str) -> String {
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "bash", "arguments": {"command": command}}});
    let (status, _, reply) =
        mcp_post(c, &format!("{base}/mcp/{agent}"), Some(session), None, call).await;
    assert_eq!(status, StatusCode::OK);
    let reply = reply.expect("a reply");
    reply["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{reply}"))
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_sessions_count_against_the_session_limits() {
    let data = tempfile::tempdir().unwrap();
    let config = ServeConfig {
        tokens: Some(Tokens::parse(TOKENS).unwrap()),
        max_sessions: 3,
        max_sessions_per_token: 2,
        ..ServeConfig::default()
    };
    let srv = start(data.path(), config).await;
    let (b, c) = (srv.base.clone(), client());
    let alice = Some("tok-alice-0123456789");
    let bob_token = "tok-bob-0123456789";
    let bob = Some(bob_token);
    mcp_open(&c, &b, "alice", alice).await.unwrap();
    let (status, _) = create(&c, &b, "alice", alice).await;
    assert_eq!(status, StatusCode::CREATED);
    assert_eq!(
        mcp_open(&c, &b, "alice", alice).await,
        Err(StatusCode::TOO_MANY_REQUESTS),
        "past --max-sessions-per-token"
    );
    let (status, _) = create(&c, &b, "alice", alice).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    let bobs = mcp_open(&c, &b, "bob", bob).await.unwrap();
    assert_eq!(
        mcp_open(&c, &b, "bob", bob).await,
        Err(StatusCode::TOO_MANY_REQUESTS),
        "past --max-sessions"
    );
    // An MCP session's id is no REST session, and a failed initialize
    // holds no place.
    let r = c
        .post(format!("{b}/v1/sessions/{bobs}/run"))
        .bearer_auth("tok-admin-0123456789")
        .json(&json!({"command": "ls"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    // Closing an MCP session gives its place back.
    let r = c
        .delete(format!("{b}/mcp/bob"))
        .header("mcp-session-id", &bobs)
        .bearer_auth(bob_token)
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.status());
    let mut reopened = Err(StatusCode::TOO_MANY_REQUESTS);
    for _ in 0..100 {
        reopened = mcp_open(&c, &b, "bob", bob).await;
        if reopened.is_ok() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(reopened.is_ok(), "{reopened:?}");
    srv.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_mcp_session_is_parked_and_resumes_transparently() {
    let data = tempfile::tempdir().unwrap();
    let config = ServeConfig {
        idle: Duration::from_millis(300),
        ..ServeConfig::default()
    };
    let srv = start(data.path(), config).await;
    let (b, c) = (srv.base.clone(), client());
    let id = mcp_open(&c, &b, "dozy", None).await.unwrap();
    let out = mcp_bash(&c, &b, "dozy", &id, "echo kept > a.txt; echo ok").await;
    assert!(out.contains("ok"), "{out}");
    // Each sandbox of the session leaves a log under `sessions/`; the idle
    // park completes the first one (it stayed open until the client left).
    let sessions = data.path().join("agents/dozy/sessions");
    let completed = || {
        let logs = if sessions.exists() {
            walk(&sessions)
        } else {
            Vec::new()
        };
        logs.len() == 1
            && std::fs::read_to_string(&logs[0])
                .unwrap()
                .contains("session.completed")
    };
    let mut parked = false;
    for _ in 0..150 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        if completed() {
            parked = true;
            break;
        }
    }
    assert!(parked, "the idle MCP session's sandbox was released");
    let out = mcp_bash(&c, &b, "dozy", &id, "cat a.txt").await;
    assert!(out.contains("kept"), "{out}");
    assert_eq!(
        walk(&sessions).len(),
        2,
        "a new sandbox under the same MCP session: {:?}",
        walk(&sessions)
    );
    srv.shutdown().await;
}

/// Starts a streaming run and reads its first output, then drops the
/// connection.
async fn stream_then_leave(c: &Client, base: &str, id: &str, body: Value) {
    let mut r = c
        .post(format!("{base}/v1/sessions/{id}/run"))
        .header("accept", "text/event-stream")
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let first = r.chunk().await.unwrap();
    assert!(first.is_some());
    drop(r);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_streaming_client_that_leaves_cancels_its_run_unless_detached() {
    let data = tempfile::tempdir().unwrap();
    leaving_cancels_unless_detached(start(data.path(), ServeConfig::default()).await).await;
}

/// A streaming client that drops its connection cancels its run (the next
/// run of the session starts within moments and no tick follows), unless
/// the run asked for `detach`. Shared with the docker suite.
pub(super) async fn leaving_cancels_unless_detached(srv: Running) {
    let (b, c) = (srv.base.clone(), client());
    let (_, created) = create(&c, &b, "leaver", None).await;
    let id = created["session"].as_str().unwrap().to_string();
    // A minute of ticks, printed and counted in a file.
    let ticks = "for i in $(seq 600); do echo $i; echo $i >> ticks; sleep 0.1; done";
    stream_then_leave(
        &c,
        &b,
        &id,
        json!({"command": ticks, "timeout_ms": 120_000}),
    )
    .await;
    // Runs of one session are serialized: this one starts once the first
    // ended, within moments of the client leaving (not after its minute).
    let started = Instant::now();
    let count = run(&c, &b, &id, "wc -l < ticks").await;
    let waited = started.elapsed();
    let n: u64 = count["stdout"].as_str().unwrap().trim().parse().unwrap();
    assert!(n < 300, "the run went on after its client left: {n} ticks");
    assert!(
        waited < Duration::from_secs(30),
        "the next run waited {waited:?} for the abandoned one"
    );
    let again = run(&c, &b, &id, "wc -l < ticks").await;
    assert_eq!(again["stdout"], count["stdout"], "no tick after the cancel");

    // detach: the run goes on to its end.
    let short = "rm -f ticks; for i in $(seq 20); do echo $i; echo $i >> ticks; sleep 0.1; done";
    stream_then_leave(&c, &b, &id, json!({"command": short, "detach": true})).await;
    assert_eq!(run(&c, &b, &id, "wc -l < ticks").await["stdout"], "20\n");
    srv.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retry_with_the_same_idempotency_key_runs_once() {
    let data = tempfile::tempdir().unwrap();
    let srv = start(data.path(), ServeConfig::default()).await;
    let (b, c) = (srv.base.clone(), client());
    let (_, created) = create(&c, &b, "retrier", None).await;
    let id = created["session"].as_str().unwrap().to_string();
    let body = json!({"command": "echo ran >> log; sleep 1; wc -l < log"});
    let send = |key: &'static str, body: Value, timeout: Option<Duration>| {
        let mut req = c
            .post(format!("{b}/v1/sessions/{id}/run"))
            .header("idempotency-key", key)
            .json(&body);
        if let Some(t) = timeout {
            req = req.timeout(t);
        }
        req.send()
    };
    // A client that gives up before the answer, then retries twice while
    // the first is still running, and once after.
    let gave_up = send("k-1", body.clone(), Some(Duration::from_millis(200))).await;
    assert!(gave_up.is_err(), "the first attempt timed out");
    let (r1, r2) = tokio::join!(
        send("k-1", body.clone(), None),
        send("k-1", body.clone(), None)
    );
    let (s1, v1) = json_of(r1.unwrap()).await;
    let (s2, v2) = json_of(r2.unwrap()).await;
    assert_eq!((s1, s2), (StatusCode::OK, StatusCode::OK), "{v1} {v2}");
    assert_eq!(v1["stdout"], "1\n", "ran once: {v1}");
    assert_eq!(v1, v2);
    let (_, v3) = json_of(send("k-1", body.clone(), None).await.unwrap()).await;
    assert_eq!(v3, v1);
    assert_eq!(run(&c, &b, &id, "wc -l < log").await["stdout"], "1\n");
    // The same key for another request is refused; a new key runs.
    let other = json!({"command": "echo other"});
    let r = send("k-1", other.clone(), None).await.unwrap();
    let (status, v) = json_of(r).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    let (_, v4) = json_of(send("k-2", body.clone(), None).await.unwrap()).await;
    assert_eq!(v4["stdout"], "2\n");
    // A streamed retry replays the result.
    let r = c
        .post(format!("{b}/v1/sessions/{id}/run"))
        .header("idempotency-key", "k-2")
        .header("accept", "text/event-stream")
        .json(&body)
        .send()
        .await
        .unwrap();
    let text = r.text().await.unwrap();
    assert!(text.contains("event: exit"), "{text}");
    assert!(text.contains(r#"2\n"#), "{text}");
    assert_eq!(run(&c, &b, &id, "wc -l < log").await["stdout"], "2\n");
    srv.shutdown().await;
}
