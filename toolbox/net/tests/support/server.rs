//! The HTTP server the network tests talk to: plain `std` sockets on
//! 127.0.0.1, one thread per connection, fixed routes whose answers are
//! byte-for-byte deterministic (no `Date` header), so our `curl`/`wget` and
//! the host's real ones see exactly the same bytes. Every request it receives
//! is recorded (method, path, raw head) for the attack tests to inspect.
//! Dropping the [`TestServer`] stops it.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// One request as the server saw it.
#[derive(Clone, Debug)]
pub struct Seen {
    /// The method.
    pub method: String,
    /// The request target (path and query).
    pub target: String,
    /// The raw head as received.
    pub head: String,
}

/// A running server; stopped on drop.
pub struct TestServer {
    /// Where it listens.
    pub addr: SocketAddr,
    seen: Arc<Mutex<Vec<Seen>>>,
    stop: Arc<AtomicBool>,
    accept: Option<JoinHandle<()>>,
}

impl TestServer {
    /// Starts a server on 127.0.0.1 with an ephemeral port.
    pub fn start() -> TestServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let addr = listener.local_addr().unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (seen2, stop2) = (seen.clone(), stop.clone());
        let accept = std::thread::spawn(move || {
            for conn in listener.incoming() {
                if stop2.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                let seen = seen2.clone();
                std::thread::spawn(move || serve(conn, addr, &seen));
            }
        });
        TestServer {
            addr,
            seen,
            stop,
            accept: Some(accept),
        }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every request received so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr);
        if let Some(h) = self.accept.take() {
            let _ = h.join();
        }
    }
}

/// A port on 127.0.0.1 where nothing listens (bound, then released).
pub fn dead_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

fn reason(code: u16) -> &'static str {
    match code {
        200 => "OK",
        201 => "Created",
        202 => "Accepted",
        204 => "No Content",
        301 => "Moved Permanently",
        302 => "Found",
        303 => "See Other",
        304 => "Not Modified",
        307 => "Temporary Redirect",
        308 => "Permanent Redirect",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        418 => "I'm a teapot",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        _ => "Other",
    }
}

fn respond(conn: &mut TcpStream, code: u16, headers: &[(&str, String)], body: &[u8]) {
    let mut head = format!("HTTP/1.1 {code} {}\r\n", reason(code));
    for (n, v) in headers {
        head.push_str(&format!("{n}: {v}\r\n"));
    }
    if !headers
        .iter()
        .any(|(n, _)| n.eq_ignore_ascii_case("content-type"))
        && !body.is_empty()
    {
        head.push_str("Content-Type: text/plain\r\n");
    }
    head.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    ));
    let _ = conn.write_all(head.as_bytes());
    let _ = conn.write_all(body);
    let _ = conn.flush();
}

fn serve(mut conn: TcpStream, addr: SocketAddr, seen: &Mutex<Vec<Seen>>) {
    let _ = conn.set_read_timeout(Some(Duration::from_secs(10)));
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let (method, target, headers, head_len) = loop {
        let Ok(n) = conn.read(&mut chunk) else { return };
        if n == 0 {
            return;
        }
        buf.extend_from_slice(&chunk[..n]);
        let mut hs = [httparse::EMPTY_HEADER; 64];
        let mut req = httparse::Request::new(&mut hs);
        if let Ok(httparse::Status::Complete(len)) = req.parse(&buf) {
            let headers: Vec<(String, String)> = req
                .headers
                .iter()
                .map(|h| {
                    (
                        h.name.to_string(),
                        String::from_utf8_lossy(h.value).into_owned(),
                    )
                })
                .collect();
            break (
                req.method.unwrap_or("").to_string(),
                req.path.unwrap_or("").to_string(),
                headers,
                len,
            );
        }
        if buf.len() > 1 << 20 {
            return;
        }
    };
    let header = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
    };
    let body_len: usize = header("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    while buf.len() < head_len + body_len {
        match conn.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
    let body = buf[head_len.min(buf.len())..].to_vec();
    seen.lock().unwrap().push(Seen {
        method: method.clone(),
        target: target.clone(),
        head: String::from_utf8_lossy(&buf[..head_len]).into_owned(),
    });
    let (path, query) = target.split_once('?').unwrap_or((target.as_str(), ""));
    let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let text = |s: &str| s.as_bytes().to_vec();
    match parts.as_slice() {
        [""] => respond(&mut conn, 200, &[], b"root\n"),
        ["text"] => respond(&mut conn, 200, &[], b"hello world\n"),
        ["json"] => respond(
            &mut conn,
            200,
            &[("Content-Type", "application/json".into())],
            b"{\"ok\":true,\"n\":3}\n",
        ),
        ["html"] => respond(
            &mut conn,
            200,
            &[("Content-Type", "text/html; charset=utf-8".into())],
            b"<html><body>hi</body></html>\n",
        ),
        ["status", code] => {
            let code: u16 = code.parse().unwrap_or(500);
            respond(&mut conn, code, &[], &text(&format!("status {code}\n")));
        }
        ["echo", "method"] => respond(&mut conn, 200, &[], &text(&format!("{method}\n"))),
        ["echo", "body"] => {
            let ct = header("content-type").unwrap_or_else(|| "(none)".into());
            let mut out = format!("{method} {ct} {}\n", body.len()).into_bytes();
            out.extend_from_slice(&body);
            respond(&mut conn, 200, &[], &out);
        }
        ["echo", "query"] => respond(&mut conn, 200, &[], &text(&format!("[{query}]\n"))),
        ["echo", "header", name] => {
            let v = header(name).unwrap_or_else(|| "(none)".into());
            respond(&mut conn, 200, &[], &text(&format!("{name}: {v}\n")));
        }
        ["redirect", n] => {
            let n: u32 = n.parse().unwrap_or(0);
            if n == 0 {
                respond(&mut conn, 200, &[], b"arrived\n");
            } else {
                respond(
                    &mut conn,
                    302,
                    &[("Location", format!("/redirect/{}", n - 1))],
                    &text(&format!("go to {}\n", n - 1)),
                );
            }
        }
        ["abs-redirect"] => respond(
            &mut conn,
            301,
            &[("Location", format!("http://{addr}/text"))],
            b"moved\n",
        ),
        ["rel-redirect", "a", "b"] => respond(&mut conn, 302, &[("Location", "../c".into())], b""),
        ["rel-redirect", "c"] => respond(&mut conn, 200, &[], b"relative ok\n"),
        ["code-redirect", code] => {
            let code: u16 = code.parse().unwrap_or(302);
            respond(
                &mut conn,
                code,
                &[("Location", "/echo/body".into())],
                b"redirecting\n",
            );
        }
        ["to"] => {
            let target = url::form_urlencoded::parse(query.as_bytes())
                .find(|(k, _)| k == "url")
                .map(|(_, v)| v.into_owned())
                .unwrap_or_default();
            respond(&mut conn, 302, &[("Location", target)], b"");
        }
        ["loop"] => respond(&mut conn, 302, &[("Location", "/loop".into())], b""),
        ["chunked"] => {
            let _ = conn.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n7\r\nchunk1\n\r\n7\r\nchunk2\n\r\n0\r\n\r\n",
            );
        }
        ["http10"] => {
            let _ = conn
                .write_all(b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nold style body\n");
        }
        ["slow", ms] => {
            std::thread::sleep(Duration::from_millis(ms.parse().unwrap_or(3000)));
            respond(&mut conn, 200, &[], b"slow\n");
        }
        ["empty-reply"] => {}
        ["partial"] => {
            let _ = conn.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\nConnection: close\r\n\r\n0123456789",
            );
        }
        ["reset"] => {
            // Closing with a zero linger sends a reset instead of a FIN.
            let _ = socket2::SockRef::from(&conn).set_linger(Some(Duration::ZERO));
        }
        ["bytes", n] => {
            let n: usize = n.parse().unwrap_or(0);
            let body: Vec<u8> = (0..n).map(|i| b'a' + (i % 26) as u8).collect();
            respond(
                &mut conn,
                200,
                &[("Content-Type", "application/octet-stream".into())],
                &body,
            );
        }
        ["auth"] => {
            if header("authorization").as_deref() == Some("Basic dXNlcjpwYXNz") {
                respond(&mut conn, 200, &[], b"authorized\n");
            } else {
                respond(
                    &mut conn,
                    401,
                    &[("WWW-Authenticate", "Basic realm=\"test\"".into())],
                    b"who are you?\n",
                );
            }
        }
        ["multi-header"] => respond(
            &mut conn,
            200,
            &[
                ("Set-Cookie", "a=1".into()),
                ("Set-Cookie", "b=2".into()),
                ("X-Custom", "some value".into()),
                ("x-lower", "kept as sent".into()),
            ],
            b"multi\n",
        ),
        ["no-content"] => {
            let _ = conn.write_all(b"HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n");
        }
        ["not-modified"] => {
            let _ = conn.write_all(b"HTTP/1.1 304 Not Modified\r\nConnection: close\r\n\r\n");
        }
        ["files", "report.txt"] => respond(&mut conn, 200, &[], b"report line 1\nreport line 2\n"),
        ["files", ""] => respond(
            &mut conn,
            200,
            &[("Content-Type", "text/html".into())],
            b"<p>index</p>\n",
        ),
        _ => respond(&mut conn, 404, &[], b"not found\n"),
    }
}
