//! Network egress through the runtime, on both backends, against servers
//! this test starts on the host's 127.0.0.1 (stopped when the test ends).
//!
//! - Local: an allowed loopback service answers, a denied host gets the
//!   policy's message and status 56 and exactly one `net.denied` record in
//!   the session's event log, and an injected credential reaches the server
//!   while the session's view (environment, files, output) and its event log
//!   hold no trace of it.
//! - Docker (skipped without a daemon unless `SANDKEEP_REQUIRE_DOCKER=1`):
//!   the container has no route out; the real curl, wget and python3 in it
//!   reach the host's test servers only through the relay to the egress
//!   proxy, by a name the host side resolves (`api.test`): allowed requests
//!   answer, denied ones carry the policy's words, a redirect to a denied
//!   host is refused, a tunnel whose TLS SNI names another host is cut, raw
//!   TCP and DNS fail, injected headers reach the servers over HTTP and
//!   HTTPS (TLS terminated with the sandbox's CA) while the container and
//!   the event log hold no trace of the secret, the policy tightens while
//!   the session runs, and a dead relay makes requests fail fast.
//!
//! Run: `cargo test --release --test docker net::` (docker: with `DOCKER_HOST` set).
#![cfg(feature = "net")]

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use sandkeep::{LocalBackend, Runtime};
use sandkeep_net::{Egress, InjectedHeader};

/// Answers `ok` to every request; records each request head.
fn serve(listener: TcpListener, heads: Arc<Mutex<Vec<String>>>) {
    for conn in listener.incoming() {
        let Ok(mut conn) = conn else { break };
        let mut buf = vec![0u8; 8192];
        let n = conn.read(&mut buf).unwrap_or(0);
        let head = String::from_utf8_lossy(&buf[..n]).into_owned();
        if head.starts_with("STOP") {
            break;
        }
        heads.lock().unwrap().push(head);
        let _ = conn
            .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: close\r\n\r\nok\n");
    }
}

#[tokio::test]
async fn local_sessions_go_out_only_as_the_policy_says() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let heads = Arc::new(Mutex::new(Vec::new()));
    let server = std::thread::spawn({
        let heads = heads.clone();
        move || serve(listener, heads)
    });

    let secret = "sk-live-93d0e1f7";
    let egress = Egress::allowing([addr.to_string()]).unwrap();
    egress.set_headers(vec![
        InjectedHeader::parse(&format!("{addr}=Authorization: Bearer ${{T}}"), |_| {
            Some(secret.to_string())
        })
        .unwrap(),
    ]);
    let data = tempfile::tempdir().unwrap();
    let rt = Runtime::builder()
        .data_dir(data.path())
        .backend(Arc::new(LocalBackend::new().with_egress(egress.clone())))
        .build();
    let mut s = rt.session("netagent").unwrap();
    let url = format!("http://{addr}/x");
    let r = s.run_script(&format!("curl -s {url}")).await.unwrap();
    assert_eq!((r.exit_code, r.stdout_text().as_str()), (0, "ok\n"));
    let r = s
        .run_script("curl -s https://api.evil.com/v1; echo rc=$?")
        .await
        .unwrap();
    assert_eq!(r.stdout_text(), "rc=56\n");
    assert_eq!(
        r.stderr_text(),
        format!(
            "curl: (56) sandkeep: network policy denies api.evil.com:443 (allowed: {addr}); ask the operator to add it\n"
        )
    );
    let probe = s
        .run_script(
            "env; cat /proc/self/environ; grep -r sk-live / ; ls -R / | grep -c sk-live; true",
        )
        .await
        .unwrap();
    assert!(!probe.stdout_text().contains(secret) && !probe.stderr_text().contains(secret));
    let path = s.event_log().unwrap().path();
    s.complete().await.unwrap();

    let records = sandkeep::read_event_log(&path).unwrap();
    let denied: Vec<_> = records
        .iter()
        .filter(|r| r["event"] == "net.denied")
        .collect();
    assert_eq!(denied.len(), 1, "{records:?}");
    assert_eq!(
        (denied[0]["host"].as_str(), denied[0]["port"].as_u64()),
        (Some("api.evil.com"), Some(443))
    );
    assert!(!std::fs::read_to_string(&path).unwrap().contains(secret));
    let seen = heads.lock().unwrap().clone();
    assert_eq!(seen.len(), 1);
    assert!(
        seen[0].contains(&format!("Authorization: Bearer {secret}\r\n")),
        "{}",
        seen[0]
    );

    let mut stop = std::net::TcpStream::connect(addr).unwrap();
    stop.write_all(b"STOP").unwrap();
    drop(stop);
    server.join().unwrap();
}

use crate::docker_support;

/// A plain HTTP server on 127.0.0.1 for the docker test: `/ok` answers
/// `ok`, `/redirect` sends to a denied host; every request head is kept.
struct HttpServer {
    addr: std::net::SocketAddr,
    heads: Arc<Mutex<Vec<String>>>,
    stop: Arc<std::sync::atomic::AtomicBool>,
}

impl HttpServer {
    fn start() -> HttpServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let heads = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (seen, stopped) = (heads.clone(), stop.clone());
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                if stopped.load(std::sync::atomic::Ordering::SeqCst) {
                    break;
                }
                let Ok(mut conn) = conn else { break };
                let mut buf = vec![0u8; 8192];
                let n = conn.read(&mut buf).unwrap_or(0);
                let head = String::from_utf8_lossy(&buf[..n]).into_owned();
                seen.lock().unwrap().push(head.clone());
                if let Some(n) = head
                    .strip_prefix("GET /big/")
                    .and_then(|r| r.split(' ').next())
                    .and_then(|n| n.parse::<usize>().ok())
                {
                    // `n` bytes of "0123456789abcde\n" over and over.
                    let _ = conn.write_all(
                        format!(
                            "HTTP/1.1 200 OK\r\nContent-Length: {n}\r\nConnection: close\r\n\r\n"
                        )
                        .as_bytes(),
                    );
                    let line = b"0123456789abcde\n".repeat(4096);
                    let mut left = n;
                    while left > 0 {
                        let take = left.min(line.len());
                        if conn.write_all(&line[..take]).is_err() {
                            break;
                        }
                        left -= take;
                    }
                    continue;
                }
                let answer: &[u8] = if head.starts_with("GET /redirect ") {
                    b"HTTP/1.1 302 Found\r\nLocation: http://api.evil.com/next\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                } else {
                    b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: close\r\n\r\nok\n"
                };
                let _ = conn.write_all(answer);
            }
        });
        HttpServer { addr, heads, stop }
    }

    fn heads(&self) -> Vec<String> {
        self.heads.lock().unwrap().clone()
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
        let _ = std::net::TcpStream::connect(self.addr);
    }
}

/// An HTTPS server on 127.0.0.1 with a certificate for `api.test` from its
/// own CA (which only the host side trusts); answers `secure ok`.
struct TlsServer {
    addr: std::net::SocketAddr,
    ca_pem: String,
    heads: Arc<Mutex<Vec<String>>>,
    stop: Arc<std::sync::atomic::AtomicBool>,
}

impl TlsServer {
    fn start() -> TlsServer {
        let ca = sandkeep_net::intercept::Interceptor::generate("upstream test CA").unwrap();
        let config = ca.server_config("api.test").unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let heads = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (seen, stopped) = (heads.clone(), stop.clone());
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                if stopped.load(std::sync::atomic::Ordering::SeqCst) {
                    break;
                }
                let Ok(conn) = conn else { break };
                let _ = conn.set_read_timeout(Some(std::time::Duration::from_secs(10)));
                let Ok(server) = rustls::ServerConnection::new(config.clone()) else {
                    continue;
                };
                let mut tls = rustls::StreamOwned::new(server, conn);
                let mut buf = vec![0u8; 8192];
                let n = tls.read(&mut buf).unwrap_or(0);
                seen.lock()
                    .unwrap()
                    .push(String::from_utf8_lossy(&buf[..n]).into_owned());
                let _ = tls.write_all(
                    b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\nConnection: close\r\n\r\nsecure ok\n",
                );
                tls.conn.send_close_notify();
                let _ = tls.flush();
            }
        });
        TlsServer {
            addr,
            ca_pem: ca.ca_pem().to_string(),
            heads,
            stop,
        }
    }
}

impl Drop for TlsServer {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
        let _ = std::net::TcpStream::connect(self.addr);
    }
}

#[tokio::test]
async fn docker_sessions_go_out_only_through_the_host_side_proxy() {
    let http = HttpServer::start();
    let tls = TlsServer::start();
    let (hp, tp) = (http.addr.port(), tls.addr.port());
    let secret = "sk-live-5be1c0de";
    // The container names the servers `api.test`; the host side resolves it
    // to 127.0.0.1, which only the explicit IP rules open.
    let egress = Egress::allowing([
        format!("api.test:{hp}"),
        format!("127.0.0.1:{hp}"),
        format!("api.test:{tp}"),
        format!("127.0.0.1:{tp}"),
    ])
    .unwrap();
    egress.set_resolver(Arc::new(
        sandkeep_net::StaticResolver::new().with("api.test", "127.0.0.1".parse().unwrap()),
    ));
    egress.add_ca_pem(tls.ca_pem.as_bytes()).unwrap();
    let header = |port: u16| {
        InjectedHeader::parse(
            &format!("api.test:{port}=Authorization: Bearer ${{T}}"),
            |_| Some(secret.to_string()),
        )
        .unwrap()
    };
    egress.set_headers(vec![header(hp), header(tp)]);
    let mut config = docker_support::test_config();
    config.egress = Some(egress.clone());
    let Some(backend) = docker_support::backend_with(config).await else {
        return;
    };
    let data = tempfile::tempdir().unwrap();
    let rt = Runtime::builder()
        .data_dir(data.path())
        .backend(Arc::new(backend))
        .build();
    let mut s = rt.session("netdocker").unwrap();
    let run = async |s: &mut sandkeep::Session, script: &str| {
        let r = s.run_script(script).await.unwrap();
        (r.exit_code, r.stdout_text(), r.stderr_text())
    };

    // Allowed: the real curl and wget, through the announced proxy.
    let ok = format!("http://api.test:{hp}/ok");
    assert_eq!(
        run(&mut s, &format!("curl -sS {ok}")).await,
        (0, "ok\n".into(), String::new())
    );
    assert_eq!(run(&mut s, &format!("wget -qO- {ok}")).await.1, "ok\n");
    let (_, out, _) = run(&mut s, "echo $HTTP_PROXY $https_proxy $NO_PROXY").await;
    assert!(
        out.starts_with("http://127.0.0.1:") && out.ends_with(" localhost,127.0.0.1,::1\n"),
        "{out}"
    );

    // HTTPS with an injected header: TLS terminated with the sandbox's CA
    // (in the container's trust store), the real server verified on the host.
    let secure = format!("https://api.test:{tp}/secure");
    assert_eq!(
        run(&mut s, &format!("curl -sS {secure}")).await,
        (0, "secure ok\n".into(), String::new())
    );
    let py = format!(
        "python3 -c \"import urllib.request; print(urllib.request.urlopen('{secure}').read().decode(), end='')\""
    );
    assert_eq!(
        run(&mut s, &py).await,
        (0, "secure ok\n".into(), String::new())
    );
    let tls_heads = tls.heads.lock().unwrap().clone();
    assert_eq!(tls_heads.len(), 2, "{tls_heads:?}");
    assert!(
        tls_heads
            .iter()
            .all(|h| h.contains(&format!("Authorization: Bearer {secret}\r\n"))),
        "{tls_heads:?}"
    );

    // Denied: the policy's words, as the local backend says them (the
    // wrappers in /usr/local/bin show the proxy's verdict; see also
    // `denials_read_the_same_on_both_backends`).
    let allowed = egress.policy().to_string();
    let denied = |target: &str| {
        format!(
            "sandkeep: network policy denies {target} (allowed: {allowed}); ask the operator to add it\n"
        )
    };
    assert_eq!(
        run(&mut s, "curl -sS http://api.evil.com/x").await,
        (
            56,
            String::new(),
            format!("curl: (56) {}", denied("api.evil.com:80"))
        )
    );
    assert_eq!(
        run(&mut s, "curl -sS https://api.evil.com/x").await,
        (
            56,
            String::new(),
            format!("curl: (56) {}", denied("api.evil.com:443"))
        )
    );
    assert_eq!(
        run(&mut s, "wget -q -O- http://api.evil.com/x; echo rc=$?").await,
        (
            0,
            "rc=4\n".into(),
            format!("wget: {}", denied("api.evil.com:80"))
        )
    );
    // A redirect from the allowed host to a denied one: the hop is refused.
    assert_eq!(
        run(&mut s, &format!("curl -sSL http://api.test:{hp}/redirect")).await,
        (
            56,
            String::new(),
            format!("curl: (56) {}", denied("api.evil.com:80"))
        )
    );

    // A tunnel to an allowed name whose TLS SNI names another host is cut.
    let sni = format!(
        r#"python3 - <<'PY'
import os, socket, ssl
port = int(os.environ["HTTPS_PROXY"].rsplit(":", 1)[1])
s = socket.create_connection(("127.0.0.1", port))
s.sendall(b"CONNECT api.test:{tp} HTTP/1.1\r\nHost: api.test:{tp}\r\n\r\n")
print(s.recv(200).split(b"\r\n")[0].decode())
try:
    ssl.create_default_context().wrap_socket(s, server_hostname="evil.test")
    print("handshake done")
except (ssl.SSLError, OSError):
    print("handshake failed")
PY"#
    );
    assert_eq!(
        run(&mut s, &sni).await.1,
        "HTTP/1.1 200 Connection established\nhandshake failed\n"
    );

    // No way around the proxy: no route, no DNS, no raw TCP.
    let seen_before = http.heads().len();
    let raw = format!(
        r#"tail -n +2 /proc/net/route | wc -l
python3 -c 'import socket; socket.create_connection(("127.0.0.1", {hp}), timeout=5)' 2>/dev/null; echo py=$?
(echo > /dev/tcp/127.0.0.1/{hp}) 2>/dev/null; echo bash=$?
curl -sS --noproxy '*' -m 5 {ok} 2>/dev/null; echo curl=$?
getent hosts example.com; echo dns=$?"#
    );
    assert_eq!(
        run(&mut s, &raw).await.1,
        "0\npy=1\nbash=1\ncurl=6\ndns=2\n"
    );
    assert_eq!(
        http.heads().len(),
        seen_before,
        "nothing reached the server"
    );

    // The injected header reached the HTTP server; the sandbox never saw it.
    let heads = http.heads();
    assert!(
        heads[0].contains(&format!("Authorization: Bearer {secret}\r\n")),
        "{}",
        heads[0]
    );
    let probe = run(
        &mut s,
        "env; cat /proc/self/environ; timeout 25 grep -r sk-live / 2>/dev/null; true",
    )
    .await;
    assert!(!probe.1.contains(secret) && !probe.2.contains(secret));

    // The policy tightens while the session runs.
    egress.set_policy(sandkeep_net::Policy::deny_all());
    assert_eq!(
        run(&mut s, &format!("curl -sS {ok}")).await,
        (
            56,
            String::new(),
            format!(
                "curl: (56) sandkeep: network policy denies api.test:{hp} (allowed: nothing); ask the operator to add it\n"
            )
        )
    );

    let path = s.event_log().unwrap().path();
    s.complete().await.unwrap();
    let records = sandkeep::read_event_log(&path).unwrap();
    let denied: Vec<_> = records
        .iter()
        .filter(|r| r["event"] == "net.denied")
        .map(|r| {
            (
                r["method"].as_str().unwrap_or("").to_string(),
                r["host"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    let want: Vec<(String, String)> = [
        ("GET", "api.evil.com"),
        ("CONNECT", "api.evil.com"),
        ("GET", "api.evil.com"),
        ("GET", "api.evil.com"),
        ("CONNECT", "evil.test"),
        ("GET", "api.test"),
    ]
    .iter()
    .map(|(m, h)| (m.to_string(), h.to_string()))
    .collect();
    assert_eq!(denied, want, "{records:?}");
    assert!(!std::fs::read_to_string(&path).unwrap().contains(secret));
}

#[tokio::test]
async fn a_dead_relay_fails_requests_at_once_and_the_sandbox_still_stops() {
    use sandkeep::{Backend, RunRequest, SandboxSpec};
    let egress = Egress::allowing(["api.test"]).unwrap();
    let mut config = docker_support::test_config();
    config.egress = Some(egress);
    let Some(backend) = docker_support::backend_with(config).await else {
        return;
    };
    let spec = SandboxSpec {
        session_id: docker_support::session_id("relaydeath"),
        agent: "tests".into(),
        env: vec![],
    };
    let sb = backend.create(&spec).await.unwrap();
    let run = async |script: &str| {
        let r = sb
            .run(RunRequest {
                command: script.into(),
                ..Default::default()
            })
            .await
            .unwrap();
        (
            r.exit_code,
            String::from_utf8_lossy(&r.stdout).into_owned(),
            String::from_utf8_lossy(&r.stderr).into_owned(),
        )
    };
    // The sandbox user can neither kill the relay (it runs as root)...
    let (code, _, err) =
        run("pkill -u root python3 2>/dev/null; curl -sS http://api.evil.com/").await;
    assert!(
        code == 56 && err.starts_with("curl: (56) sandkeep: network policy denies api.evil.com:80"),
        "{code} {err}"
    );
    // ... nor does its death hang a run: kill it as root from outside.
    let exec = backend
        .docker()
        .create_exec(
            sb.id(),
            bollard::exec::CreateExecOptions::<String> {
                cmd: Some(vec![
                    "pkill".into(),
                    "-u".into(),
                    "root".into(),
                    "python3".into(),
                ]),
                user: Some("root".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    backend.docker().start_exec(&exec.id, None).await.unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    let started = std::time::Instant::now();
    let (_, out, _) = run("curl -sS http://api.test/ 2>/dev/null; echo rc=$?").await;
    assert_eq!(out, "rc=7\n");
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    docker_support::teardown(&backend, sb).await;
}

/// One egress under the policy the docker tests use: the container names
/// the test servers `api.test`, which the host side resolves to 127.0.0.1,
/// opened by explicit IP rules. Two runtimes must not share one egress
/// (each files denials through its own sink), so each gets a twin.
fn test_egress(http: &HttpServer, tls: &TlsServer) -> Egress {
    let (hp, tp) = (http.addr.port(), tls.addr.port());
    let egress = Egress::allowing([
        format!("api.test:{hp}"),
        format!("127.0.0.1:{hp}"),
        format!("api.test:{tp}"),
        format!("127.0.0.1:{tp}"),
        // Allowed by name, but it resolves to loopback: refused on every
        // port no IP rule names.
        "inside.test".to_string(),
    ])
    .unwrap();
    egress.set_resolver(Arc::new(
        sandkeep_net::StaticResolver::new()
            .with("api.test", "127.0.0.1".parse().unwrap())
            .with("inside.test", "127.0.0.1".parse().unwrap()),
    ));
    egress.add_ca_pem(tls.ca_pem.as_bytes()).unwrap();
    egress
}

/// A local runtime and a docker runtime (each with its own twin of the
/// egress `make` builds), or `None` without a docker daemon.
async fn both_backends(make: impl Fn() -> Egress) -> Option<(Runtime, Runtime, tempfile::TempDir)> {
    let mut config = docker_support::test_config();
    config.egress = Some(make());
    let backend = docker_support::backend_with(config).await?;
    let data = tempfile::tempdir().unwrap();
    let local = Runtime::builder()
        .data_dir(data.path().join("local"))
        .backend(Arc::new(LocalBackend::new().with_egress(make())))
        .build();
    let docker = Runtime::builder()
        .data_dir(data.path().join("docker"))
        .backend(Arc::new(backend))
        .build();
    Some((local, docker, data))
}

async fn outcome(s: &mut sandkeep::Session, script: &str) -> (i32, String, String) {
    let r = s.run_script(script).await.unwrap();
    (r.exit_code, r.stdout_text(), r.stderr_text())
}

/// The `net.denied` records of a finished session: (method, host, port).
fn denial_records(path: &std::path::Path) -> Vec<(String, String, u64)> {
    sandkeep::read_event_log(path)
        .unwrap()
        .iter()
        .filter(|r| r["event"] == "net.denied")
        .map(|r| {
            (
                r["method"].as_str().unwrap_or("").to_string(),
                r["host"].as_str().unwrap_or("").to_string(),
                r["port"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}

/// A denial reads the same on both backends: the same stderr line, the
/// same status (curl 56, wget 4), nothing on stdout, one `net.denied`
/// record each. On docker the real curl and wget run (behind the wrappers
/// that show the host side's verdict).
#[tokio::test]
async fn denials_read_the_same_on_both_backends() {
    let http = HttpServer::start();
    let tls = TlsServer::start();
    let (hp, tp) = (http.addr.port(), tls.addr.port());
    let Some((local, docker, _data)) = both_backends(|| test_egress(&http, &tls)).await else {
        return;
    };
    let allowed = test_egress(&http, &tls).policy().to_string();
    let line = |tool: &str, target: &str| {
        let words = format!(
            "sandkeep: network policy denies {target} (allowed: {allowed}); ask the operator to add it\n"
        );
        // A name that resolves to a non-public address says so.
        let words = if target.starts_with("inside.test") {
            words.replacen(
                " (allowed:",
                " (resolves to 127.0.0.1, not a public address; only an IP rule allows it) (allowed:",
                1,
            )
        } else {
            words
        };
        if tool == "curl" {
            (56, String::new(), format!("curl: (56) {words}"))
        } else {
            (4, String::new(), format!("wget: {words}"))
        }
    };
    let cases = [
        (
            "denied plain HTTP",
            "curl -sS http://api.evil.com/x".to_string(),
            line("curl", "api.evil.com:80"),
        ),
        (
            "denied plain HTTP under -s",
            "curl -s -o out.txt http://api.evil.com/x".to_string(),
            line("curl", "api.evil.com:80"),
        ),
        (
            "denied HTTPS (CONNECT)",
            "curl -sS https://api.evil.com/x".to_string(),
            line("curl", "api.evil.com:443"),
        ),
        (
            "redirect from an allowed host to a denied one",
            format!("curl -sSL http://api.test:{hp}/redirect"),
            line("curl", "api.evil.com:80"),
        ),
        (
            "denied SNI in a tunnel to an allowed host",
            format!(
                "curl -sS --connect-to api.evil.com:{tp}:api.test:{tp} https://api.evil.com:{tp}/"
            ),
            line("curl", &format!("api.evil.com:{tp}")),
        ),
        (
            "an IP literal no rule names",
            "curl -sS http://10.1.2.3/x".to_string(),
            line("curl", "10.1.2.3:80"),
        ),
        (
            "an allowed name that resolves to loopback",
            "curl -sS http://inside.test/ok".to_string(),
            line("curl", "inside.test:80"),
        ),
        (
            "an allowed name that resolves to loopback, HTTPS",
            "curl -sS https://inside.test/".to_string(),
            line("curl", "inside.test:443"),
        ),
        (
            "wget, denied plain HTTP",
            "wget -q -O- http://api.evil.com/x".to_string(),
            line("wget", "api.evil.com:80"),
        ),
        (
            "wget, denied HTTPS",
            "wget -q -O- https://api.evil.com/x".to_string(),
            line("wget", "api.evil.com:443"),
        ),
    ];
    let mut logs = Vec::new();
    for (name, rt) in [("local", &local), ("docker", &docker)] {
        let mut s = rt.session(&format!("parity-{name}")).unwrap();
        for (case, script, want) in &cases {
            assert_eq!(&outcome(&mut s, script).await, want, "{name}: {case}");
        }
        // Nothing was written where the refused download was to go.
        assert_eq!(
            outcome(&mut s, "ls out.txt 2>&1 >/dev/null | wc -l")
                .await
                .1,
            "1\n",
            "{name}"
        );
        logs.push(s.event_log().unwrap().path());
        s.complete().await.unwrap();
    }
    let tp = u64::from(tp);
    let want: Vec<(String, String, u64)> = [
        ("GET", "api.evil.com", 80),
        ("GET", "api.evil.com", 80),
        ("CONNECT", "api.evil.com", 443),
        ("GET", "api.evil.com", 80),
        ("CONNECT", "api.evil.com", tp),
        ("GET", "10.1.2.3", 80),
        ("GET", "inside.test", 80),
        ("CONNECT", "inside.test", 443),
        ("GET", "api.evil.com", 80),
        ("CONNECT", "api.evil.com", 443),
    ]
    .iter()
    .map(|(m, h, p)| (m.to_string(), h.to_string(), *p))
    .collect();
    // One record per denial on each backend (the local backend checks the
    // method as asked: GET; the proxy sees a tunnel: CONNECT).
    let local_records = denial_records(&logs[0]);
    let docker_records = denial_records(&logs[1]);
    assert_eq!(docker_records, want);
    assert_eq!(
        local_records
            .iter()
            .map(|(_, h, p)| (h.clone(), *p))
            .collect::<Vec<_>>(),
        want.iter()
            .map(|(_, h, p)| (h.clone(), *p))
            .collect::<Vec<_>>()
    );
    assert!(
        http.heads().iter().all(|h| !h.contains("/next")),
        "nothing reached a denied host's path"
    );
}

/// The request limit is per run on both backends: two runs each under it
/// succeed, a run over it fails with the local backend's words.
#[tokio::test]
async fn network_limits_are_per_run_on_both_backends() {
    let http = HttpServer::start();
    let tls = TlsServer::start();
    let hp = http.addr.port();
    let limited = || {
        let e = test_egress(&http, &tls);
        e.set_limits(sandkeep_net::NetLimits {
            max_requests: 2,
            ..Default::default()
        });
        e
    };
    let Some((local, docker, _data)) = both_backends(limited).await else {
        return;
    };
    let ok = format!("http://api.test:{hp}/ok");
    let two = format!("curl -sS {ok}; curl -sS {ok}");
    for (name, rt) in [("local", &local), ("docker", &docker)] {
        let mut s = rt.session(&format!("limits-{name}")).unwrap();
        for run in 1..=2 {
            assert_eq!(
                outcome(&mut s, &two).await,
                (0, "ok\nok\n".into(), String::new()),
                "{name}: run {run}"
            );
        }
        assert_eq!(
            outcome(&mut s, &format!("{two}; curl -sS {ok}")).await,
            (
                56,
                "ok\nok\n".into(),
                "curl: (56) sandkeep: network limit reached: 2 requests\n".into()
            ),
            "{name}: a run over the limit"
        );
        s.complete().await.unwrap();
    }
}

/// A large download through the relay to a client that reads slowly
/// arrives whole, and the relay in the container never holds more than a
/// few windows of it (its peak memory stays far below the download).
#[tokio::test]
async fn a_large_download_through_the_relay_is_flow_controlled() {
    const SIZE: usize = 96 << 20;
    let http = HttpServer::start();
    let tls = TlsServer::start();
    let hp = http.addr.port();
    let mut config = docker_support::test_config();
    config.egress = Some(test_egress(&http, &tls));
    let Some(backend) = docker_support::backend_with(config).await else {
        return;
    };
    let data = tempfile::tempdir().unwrap();
    let rt = Runtime::builder()
        .data_dir(data.path())
        .backend(Arc::new(backend))
        .build();
    let mut s = rt.session("bigdownload").unwrap();
    // The reader sleeps before it reads anything: every byte waits in the
    // pipeline (curl, the relay, the host side) until it starts.
    let script = format!(
        r#"curl -sS http://api.test:{hp}/big/{SIZE} | (sleep 4; cmp - <(yes 0123456789abcde | head -c {SIZE}) && echo same)
echo "curl=${{PIPESTATUS[0]}}"
for p in $(pgrep -u root python3); do grep -q MAX_CONNS /proc/$p/cmdline && awk '/VmHWM/ {{print $2}}' /proc/$p/status; done"#
    );
    let (code, out, err) = outcome(&mut s, &script).await;
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        (code, &lines[..2]),
        (0, &["same", "curl=0"][..]),
        "{out}{err}"
    );
    let peak_kib: u64 = lines[2].trim().parse().unwrap_or_else(|_| panic!("{out}"));
    assert!(
        peak_kib < 48 << 10,
        "the relay peaked at {peak_kib} KiB for a {} MiB download",
        SIZE >> 20
    );
    eprintln!(
        "relay peak memory {peak_kib} KiB for a {} MiB download",
        SIZE >> 20
    );
    s.complete().await.unwrap();
}
