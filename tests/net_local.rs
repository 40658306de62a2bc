//! The local backend with a network egress, through the runtime: an allowed
//! loopback service answers, a denied host gets the policy's message and
//! status 56 and exactly one `net.denied` record in the session's event log,
//! and an injected credential reaches the server while the session's view
//! (environment, files, output) and its event log hold no trace of it.
//! The server runs on 127.0.0.1 and is stopped when the test ends.
#![cfg(feature = "net")]

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use sandkeep::Runtime;
use sandkeep::sandbox::local::LocalBackend;
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

    let records = sandkeep::eventlog::read_records(&path).unwrap();
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
