//! The egress proxy (`sandkeep_net::proxy`) driven by Debian's curl and by a
//! rustls client, against the test server on 127.0.0.1: forwarded requests
//! and tunnels to allowed services pass, denied hosts get 403 (curl exit 56
//! for a tunnel), a tunnel whose TLS SNI names another host is cut before
//! anything reaches upstream, and injected headers are added on forwarded
//! requests.
//!
//! Run: `cargo test --release -p sandkeep-net --test proxy`.

mod support;

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
