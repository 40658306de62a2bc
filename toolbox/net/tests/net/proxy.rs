//! The egress proxy (`sandkeep_net::proxy`) driven by Debian's curl and by a
//! rustls client, against the test server on 127.0.0.1: forwarded requests
//! and tunnels to allowed services pass, denied hosts get 403 (curl exit 56
//! for a tunnel), a tunnel whose TLS SNI names another host is cut before
//! anything reaches upstream, and injected headers are added on forwarded
//! requests.
//!
//! Run: `cargo test --release -p sandkeep-net --test net proxy::`.

use crate::support;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::sync::{Arc, Mutex};

use sandkeep_net::proxy::{EgressProxy, client_hello_sni};
use sandkeep_net::{Denial, Egress, InjectedHeader, StaticResolver};
use support::server::TestServer;

fn curl(args: &[&str]) -> (i32, String, String) {
    let out = Command::new("curl")
        .args(args)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .output()
        .expect("curl");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn setup(server: &TestServer) -> (EgressProxy, Arc<Mutex<Vec<Denial>>>, Egress) {
    let egress = Egress::allowing([server.addr.to_string()]).unwrap();
    egress.set_resolver(Arc::new(StaticResolver::new()));
    let denials = Arc::new(Mutex::new(Vec::new()));
    let sink = denials.clone();
    egress.on_denial(Arc::new(move |d: &Denial| {
        sink.lock().unwrap().push(d.clone())
    }));
    let proxy = EgressProxy::start(egress.clone(), "127.0.0.1:0".parse().unwrap()).unwrap();
    (proxy, denials, egress)
}

#[test]
fn forward_and_tunnel_follow_the_policy() {
    if !support::host_has("curl") {
        eprintln!("skipped: no curl on the host");
        return;
    }
    let server = TestServer::start();
    let (proxy, denials, egress) = setup(&server);
    let p = proxy.url();
    let text = format!("{}/text", server.url());
    // Forwarded and tunnelled requests to the allowed service answer.
    assert_eq!(
        curl(&["-s", "-x", &p, &text]),
        (0, "hello world\n".into(), String::new())
    );
    assert_eq!(
        curl(&["-s", "-p", "-x", &p, &text]),
        (0, "hello world\n".into(), String::new())
    );
    // Denied: the policy's words in a 403.
    let (code, out, _) = curl(&["-s", "-x", &p, "http://api.evil.com/x"]);
    assert_eq!(code, 0);
    assert!(
        out.starts_with("sandkeep: network policy denies api.evil.com:80 (allowed: 127.0.0.1:"),
        "{out}"
    );
    assert_eq!(curl(&["-s", "-f", "-x", &p, "http://api.evil.com/x"]).0, 22);
    // A denied tunnel: curl's status 56.
    let (code, _, err) = curl(&["-sS", "-x", &p, "https://api.evil.com/"]);
    assert_eq!(code, 56, "{err}");
    assert!(err.contains("CONNECT tunnel failed, response 403"), "{err}");
    // A name that would resolve to loopback is refused even when allowed
    // (only an IP rule opens a loopback service).
    egress.set_resolver(Arc::new(
        StaticResolver::new().with("inside.test", server.addr.ip()),
    ));
    egress.set_policy(sandkeep_net::Policy::parse(["inside.test"]).unwrap());
    let (code, out, _) = curl(&[
        "-s",
        "-x",
        &p,
        &format!("http://inside.test:{}/text", server.addr.port()),
    ]);
    assert_eq!(code, 0);
    assert!(
        out.contains("resolves to 127.0.0.1, not a public address"),
        "{out}"
    );
    assert_eq!(denials.lock().unwrap().len(), 4);
    assert!(server.seen().iter().all(|s| s.target == "/text"));
}

#[test]
fn tunnel_with_a_foreign_sni_is_cut() {
    let server = TestServer::start();
    let (proxy, denials, _) = setup(&server);
    let mut conn = TcpStream::connect(proxy.addr()).unwrap();
    conn.write_all(
        format!(
            "CONNECT {} HTTP/1.1\r\nHost: {}\r\n\r\n",
            server.addr, server.addr
        )
        .as_bytes(),
    )
    .unwrap();
    let mut buf = [0u8; 256];
    let n = conn.read(&mut buf).unwrap();
    assert!(String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 200"));
    // A real ClientHello naming evil.test, from rustls.
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_root_certificates(rustls::RootCertStore::empty())
    .with_no_client_auth();
    let mut tls =
        rustls::ClientConnection::new(Arc::new(config), "evil.test".try_into().unwrap()).unwrap();
    let mut hello = Vec::new();
    tls.write_tls(&mut hello).unwrap();
    assert_eq!(client_hello_sni(&hello), Ok(Some("evil.test".to_string())));
    conn.write_all(&hello).unwrap();
    conn.set_read_timeout(Some(std::time::Duration::from_secs(5)))
        .unwrap();
    let got = conn.read(&mut buf).unwrap_or(0);
    assert_eq!(got, 0, "the proxy closes the tunnel");
    let d = denials.lock().unwrap().clone();
    assert_eq!(d.len(), 1);
    assert!(
        d[0].reason
            .contains("TLS server name evil.test does not match"),
        "{d:?}"
    );
    assert!(server.seen().is_empty(), "nothing reached the upstream");
}

#[test]
fn forwarded_requests_carry_injected_headers() {
    if !support::host_has("curl") {
        eprintln!("skipped: no curl on the host");
        return;
    }
    let server = TestServer::start();
    let (proxy, _, egress) = setup(&server);
    egress.set_headers(vec![
        InjectedHeader::parse(&format!("{}=X-Api-Key: ${{K}}", server.addr), |_| {
            Some("k-123-secret".into())
        })
        .unwrap(),
    ]);
    let (code, out, _) = curl(&[
        "-s",
        "-x",
        &proxy.url(),
        &format!("{}/echo/header/X-Api-Key", server.url()),
    ]);
    assert_eq!((code, out.as_str()), (0, "X-Api-Key: k-123-secret\n"));
}

/// An HTTPS server on 127.0.0.1 whose certificate (for the IP) comes from
/// its own CA; answers `secure ok` and records each request head.
struct TlsServer {
    addr: std::net::SocketAddr,
    ca_pem: String,
    heads: Arc<Mutex<Vec<String>>>,
}

impl TlsServer {
    fn start() -> TlsServer {
        use sandkeep_net::intercept::Interceptor;
        let ca = Interceptor::generate("upstream test CA").unwrap();
        let config = ca.server_config("127.0.0.1").unwrap();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let heads = Arc::new(Mutex::new(Vec::new()));
        let seen = heads.clone();
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(conn) = conn else { break };
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
        }
    }
}

#[test]
fn https_to_a_host_with_an_injected_header_is_terminated_and_carries_it() {
    if !support::host_has("curl") {
        eprintln!("skipped: no curl on the host");
        return;
    }
    use sandkeep_net::intercept::Interceptor;
    let upstream = TlsServer::start();
    let egress = Egress::allowing([upstream.addr.to_string()]).unwrap();
    egress.set_resolver(Arc::new(StaticResolver::new()));
    egress.add_ca_pem(upstream.ca_pem.as_bytes()).unwrap();
    egress.set_headers(vec![
        InjectedHeader::parse(
            &format!("{}=Authorization: Bearer ${{T}}", upstream.addr),
            |_| Some("tok-77-secret".into()),
        )
        .unwrap(),
    ]);
    let sandbox_ca = Arc::new(Interceptor::generate("sandbox CA").unwrap());
    let dir = tempfile::tempdir().unwrap();
    let ca_file = dir.path().join("sandbox-ca.pem");
    std::fs::write(&ca_file, sandbox_ca.ca_pem()).unwrap();
    let proxy = EgressProxy::start_with(
        egress.clone(),
        "127.0.0.1:0".parse().unwrap(),
        Some(sandbox_ca.clone()),
    )
    .unwrap();
    let url = format!("https://{}/secure?q=1", upstream.addr);
    let (code, out, err) = curl(&[
        "-sS",
        "-x",
        &proxy.url(),
        "--cacert",
        ca_file.to_str().unwrap(),
        &url,
    ]);
    assert_eq!((code, out.as_str()), (0, "secure ok\n"), "{err}");
    let heads = upstream.heads.lock().unwrap().clone();
    assert_eq!(heads.len(), 1);
    assert!(
        heads[0].starts_with("GET /secure?q=1 HTTP/1.1\r\n"),
        "{}",
        heads[0]
    );
    assert!(
        heads[0].contains("Authorization: Bearer tok-77-secret\r\n"),
        "{}",
        heads[0]
    );
    // The proxy's certificate is the sandbox CA's, not the server's: a
    // client that does not trust that CA refuses it (curl 60).
    let (code, _, err) = curl(&["-sS", "-x", &proxy.url(), &url]);
    assert_eq!(code, 60, "{err}");
    // Without an injected header for it, the same host is tunnelled, not
    // terminated: the client sees the server's own certificate.
    egress.set_headers(vec![]);
    let up_ca = dir.path().join("upstream-ca.pem");
    std::fs::write(&up_ca, &upstream.ca_pem).unwrap();
    let (code, out, err) = curl(&[
        "-sS",
        "-x",
        &proxy.url(),
        "--cacert",
        up_ca.to_str().unwrap(),
        &url,
    ]);
    assert_eq!((code, out.as_str()), (0, "secure ok\n"), "{err}");
    assert!(!upstream.heads.lock().unwrap()[1].contains("Authorization"));
}

#[test]
fn tunnels_count_against_the_byte_limits() {
    let upstream = TlsServer::start();
    let egress = Egress::allowing([upstream.addr.to_string()]).unwrap();
    let proxy = EgressProxy::start(egress.clone(), "127.0.0.1:0".parse().unwrap()).unwrap();
    let mut conn = TcpStream::connect(proxy.addr()).unwrap();
    let connect = format!("CONNECT {0} HTTP/1.1\r\nHost: {0}\r\n\r\n", upstream.addr);
    conn.write_all(connect.as_bytes()).unwrap();
    let mut buf = [0u8; 256];
    let n = conn.read(&mut buf).unwrap();
    assert!(String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 200"));
    // Plain bytes (not TLS) through the tunnel are counted as bytes out.
    conn.write_all(&[b'x'; 100]).unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while egress.usage().bytes_out < 100 {
        assert!(std::time::Instant::now() < deadline, "{:?}", egress.usage());
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert_eq!(egress.usage().requests, 1);
    // Over the limit, the tunnel is closed.
    let mut limits = egress.limits();
    limits.max_bytes_out = 150;
    egress.set_limits(limits);
    let _ = conn.write_all(&[b'y'; 100]);
    conn.set_read_timeout(Some(std::time::Duration::from_secs(5)))
        .unwrap();
    let mut rest = Vec::new();
    let _ = conn.read_to_end(&mut rest);
    assert_eq!(
        egress.usage().bytes_out,
        100,
        "the 100 bytes over the limit never counted"
    );
}

/// The container's `curl`/`wget` wrappers (`sandkeep_net::wrapper`), run
/// here on the host in front of Debian's curl and wget with the proxy
/// announced as the docker backend announces it, say what the local
/// backend's commands say for the same request under the same policy:
/// the same stdout, stderr and status, and one denial record each.
#[test]
fn the_wrappers_show_refusals_as_the_local_commands_do() {
    if !(support::host_has("curl") && support::host_has("wget") && support::host_has("python3")) {
        eprintln!("skipped: the host lacks curl, wget or python3");
        return;
    }
    let server = TestServer::start();
    let (proxy, denials, egress) = setup(&server);
    let bin = tempfile::tempdir().unwrap();
    for name in ["curl", "wget"] {
        let path = bin.path().join(name);
        std::fs::write(&path, sandkeep_net::wrapper::script(proxy.addr().port())).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let wrapped = |script: &str| {
        let out = Command::new("bash")
            .arg("-c")
            .arg(script)
            .env_clear()
            .env("PATH", format!("{}:/usr/bin:/bin", bin.path().display()))
            .env("http_proxy", proxy.url())
            .env("https_proxy", proxy.url())
            .env("HOME", bin.path())
            .output()
            .expect("bash");
        support::Outcome {
            status: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    };
    let port = server.addr.port();
    let allowed = egress.policy().to_string();
    let denied_line = |target: &str| {
        format!(
            "sandkeep: network policy denies {target} (allowed: {allowed}); ask the operator to add it\n"
        )
    };
    let cases = [
        // (script, the denial line's target or "" for an allowed request)
        (
            "curl -sS http://api.evil.com/x".to_string(),
            "api.evil.com:80",
        ),
        (
            "curl -s http://api.evil.com/x".to_string(),
            "api.evil.com:80",
        ),
        (
            "curl -sS https://api.evil.com/x".to_string(),
            "api.evil.com:443",
        ),
        (
            format!(
                "curl -sSL '{}/to?url=http://api.evil.com/next'",
                server.url()
            ),
            "api.evil.com:80",
        ),
        (
            format!(
                "curl -sS --connect-to api.evil.com:{port}:127.0.0.1:{port} https://api.evil.com:{port}/"
            ),
            "",
        ),
        (
            "wget -q -O- http://api.evil.com/x".to_string(),
            "api.evil.com:80",
        ),
        (
            "wget -q -O- https://api.evil.com/x".to_string(),
            "api.evil.com:443",
        ),
        (format!("curl -sS {}/text", server.url()), ""),
        (format!("wget -q -O- {}/text", server.url()), ""),
        (format!("curl -sS -f {}/status/404", server.url()), ""),
    ];
    for (script, target) in &cases {
        let before = denials.lock().unwrap().len();
        let ours = support::run_ours(script, &[], &egress);
        let local_denials = denials.lock().unwrap().len() - before;
        let theirs = wrapped(script);
        let wrapper_denials = denials.lock().unwrap().len() - before - local_denials;
        assert_eq!(theirs, ours, "{script}");
        assert_eq!(local_denials, wrapper_denials, "{script}");
        if !target.is_empty() {
            let tool = &script[..4];
            let (prefix, status) = if tool == "curl" {
                ("curl: (56) ", 56)
            } else {
                ("wget: ", 4)
            };
            assert_eq!(
                (theirs.status, theirs.stdout.as_str(), theirs.stderr),
                (status, "", format!("{prefix}{}", denied_line(target))),
                "{script}"
            );
            assert_eq!(wrapper_denials, 1, "{script}");
        }
    }
    // The SNI case: the tunnel to the allowed address is opened, the
    // ClientHello names a denied host: the same words as the local curl.
    let sni = wrapped(&format!(
        "curl -sS --connect-to api.evil.com:{port}:127.0.0.1:{port} https://api.evil.com:{port}/"
    ));
    assert_eq!(
        (sni.status, sni.stderr),
        (
            56,
            format!(
                "curl: (56) {}",
                denied_line(&format!("api.evil.com:{port}"))
            )
        )
    );
    // The same tools without the wrapper are refused just the same, in
    // their own words: the wrapper decides nothing.
    let (code, _, err) = curl(&["-sS", "-x", &proxy.url(), "https://api.evil.com/x"]);
    assert_eq!(code, 56, "{err}");
    assert!(err.contains("CONNECT tunnel failed, response 403"), "{err}");
    assert!(server.seen().iter().all(|s| !s.target.starts_with("/next")));
}
