//! The host-side egress proxy for sandboxes that run real programs (the
//! docker backend): an HTTP forward proxy (`GET http://host/path`) and
//! `CONNECT host:port` tunnels, both under the session's [`Egress`].
//!
//! - Forwarded requests go through the same client as the local `curl`
//!   ([`Egress::send`]): the policy on method, host, port and path, the
//!   address check, injected headers, limits. The response is re-framed with
//!   a `Content-Length`.
//! - A tunnel is checked on the `CONNECT` host and port, then on each address
//!   (a name never reaches a non-public one), then on the TLS ClientHello's
//!   SNI: a tunnel to an allowed name whose SNI names another host is closed
//!   before a byte reaches the upstream. Rules with a METHOD or a path cannot
//!   be checked inside a tunnel, so only rules without them allow `CONNECT`.
//!   Headers are not injected into tunnels (that needs TLS termination, not
//!   built).
//! - A denial answers `403` with the policy's words in the body and in an
//!   `X-Sandkeep-Denied` header, and is reported once to the denial sink.
//!
//! The proxy listens where it is told (a loopback port; how a container
//! reaches it is the backend's business). [`EgressProxy`] stops on drop.

use std::io::{Read, Write};
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::Egress;
use crate::http::{Deadline, NetError, Request};
use crate::policy::normalize_host;

/// Largest request head or ClientHello the proxy reads.
const MAX_HEAD: usize = 64 << 10;

/// A running proxy; stopped (its accept loop ended) on drop.
pub struct EgressProxy {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    accept: Option<JoinHandle<()>>,
}

impl EgressProxy {
    /// Starts a proxy for `egress` on `bind` (e.g. `127.0.0.1:0`).
    pub fn start(egress: Egress, bind: SocketAddr) -> std::io::Result<EgressProxy> {
        let listener = TcpListener::bind(bind)?;
        let addr = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let stop2 = stop.clone();
        let accept = std::thread::Builder::new()
            .name("sandkeep-egress-proxy".into())
            .spawn(move || {
                for conn in listener.incoming() {
                    if stop2.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(conn) = conn else { continue };
                    let egress = egress.clone();
                    let _ = std::thread::Builder::new()
                        .name("sandkeep-egress-conn".into())
                        .spawn(move || handle(conn, &egress));
                }
            })?;
        Ok(EgressProxy {
            addr,
            stop,
            accept: Some(accept),
        })
    }

    /// Where it listens.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://ADDR`, for `HTTP_PROXY`/`HTTPS_PROXY`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }
}

impl Drop for EgressProxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr);
        if let Some(h) = self.accept.take() {
            let _ = h.join();
        }
    }
}

fn answer(conn: &mut TcpStream, code: u16, reason: &str, extra: &[(&str, String)], body: &[u8]) {
    let mut head = format!("HTTP/1.1 {code} {reason}\r\n");
    for (n, v) in extra {
        head.push_str(&format!("{n}: {v}\r\n"));
    }
    head.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    ));
    let _ = conn.write_all(head.as_bytes());
    let _ = conn.write_all(body);
    let _ = conn.flush();
}

fn refuse(conn: &mut TcpStream, err: &NetError) {
    let msg = err.to_string();
    let (code, reason) = match err {
        NetError::Denied { .. } | NetError::Limit(_) => (403, "Forbidden"),
        NetError::Timeout(_) => (504, "Gateway Timeout"),
        NetError::BadUrl(_) | NetError::Scheme(_) => (400, "Bad Request"),
        _ => (502, "Bad Gateway"),
    };
    answer(
        conn,
        code,
        reason,
        &[
            ("X-Sandkeep-Denied", msg.clone()),
            ("Content-Type", "text/plain".into()),
        ],
        format!("{msg}\n").as_bytes(),
    );
}

fn handle(mut conn: TcpStream, egress: &Egress) {
    let _ = conn.set_read_timeout(Some(Duration::from_secs(30)));
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let (method, target, headers, head_len) = loop {
        let n = match conn.read(&mut chunk) {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        buf.extend_from_slice(&chunk[..n]);
        let mut hs = [httparse::EMPTY_HEADER; 100];
        let mut req = httparse::Request::new(&mut hs);
        match req.parse(&buf) {
            Ok(httparse::Status::Complete(len)) => {
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
            Ok(httparse::Status::Partial) if buf.len() < MAX_HEAD => {}
            _ => {
                answer(&mut conn, 400, "Bad Request", &[], b"bad request\n");
                return;
            }
        }
    };
    let rest = buf[head_len..].to_vec();
    if method.eq_ignore_ascii_case("CONNECT") {
        tunnel(conn, egress, &target, rest);
    } else {
        forward(conn, egress, &method, &target, &headers, rest);
    }
}

fn forward(
    mut conn: TcpStream,
    egress: &Egress,
    method: &str,
    target: &str,
    headers: &[(String, String)],
    mut body: Vec<u8>,
) {
    let url = match url::Url::parse(target) {
        Ok(u) if u.scheme() == "http" => u,
        _ => {
            answer(
                &mut conn,
                400,
                "Bad Request",
                &[],
                b"sandkeep proxy: expected an absolute http:// URL (use CONNECT for https)\n",
            );
            return;
        }
    };
    let len: usize = headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.trim().parse().ok())
        .unwrap_or(0);
    let mut chunk = [0u8; 8192];
    while body.len() < len {
        match conn.read(&mut chunk) {
            Ok(0) | Err(_) => return,
            Ok(n) => body.extend_from_slice(&chunk[..n]),
        }
    }
    body.truncate(len);
    // Hop-by-hop and framing headers are the proxy's own business.
    let skip = [
        "host",
        "content-length",
        "connection",
        "proxy-connection",
        "proxy-authorization",
        "keep-alive",
        "transfer-encoding",
        "te",
        "upgrade",
    ];
    let req = Request {
        method: method.to_string(),
        url,
        headers: headers
            .iter()
            .filter(|(n, _)| !skip.iter().any(|s| n.eq_ignore_ascii_case(s)))
            .cloned()
            .collect(),
        body: (len > 0 || matches!(method, "POST" | "PUT" | "PATCH")).then_some(body),
        user_agent: String::new(),
        connect_timeout: None,
        read_timeout: None,
    };
    let never = || false;
    let deadline = Deadline {
        at: None,
        cancelled: &never,
        started: Instant::now(),
    };
    match egress.send(&req, deadline) {
        Ok(resp) => {
            let reason = String::from_utf8_lossy(&resp.head)
                .lines()
                .next()
                .and_then(|l| l.splitn(3, ' ').nth(2).map(str::to_string))
                .unwrap_or_default();
            let kept: Vec<(&str, String)> = resp
                .headers
                .iter()
                .filter(|(n, _)| {
                    ![
                        "content-length",
                        "transfer-encoding",
                        "connection",
                        "keep-alive",
                    ]
                    .iter()
                    .any(|s| n.eq_ignore_ascii_case(s))
                })
                .map(|(n, v)| (n.as_str(), v.clone()))
                .collect();
            answer(&mut conn, resp.status, &reason, &kept, &resp.body);
        }
        Err(e) => refuse(&mut conn, &e),
    }
}

/// The SNI of a TLS ClientHello (`Ok(None)`: a ClientHello without one;
/// `Err`: not a complete ClientHello).
pub fn client_hello_sni(data: &[u8]) -> Result<Option<String>, &'static str> {
    fn take<'a>(d: &mut &'a [u8], n: usize) -> Result<&'a [u8], &'static str> {
        if d.len() < n {
            return Err("short ClientHello");
        }
        let (a, b) = d.split_at(n);
        *d = b;
        Ok(a)
    }
    fn u16be(d: &mut &[u8]) -> Result<usize, &'static str> {
        let b = take(d, 2)?;
        Ok(usize::from(b[0]) << 8 | usize::from(b[1]))
    }
    let mut d = data;
    let rec = take(&mut d, 5)?;
    if rec[0] != 0x16 {
        return Err("not a TLS handshake");
    }
    let rec_len = usize::from(rec[3]) << 8 | usize::from(rec[4]);
    let mut d = take(&mut d, rec_len)?;
    let hs = take(&mut d, 4)?;
    if hs[0] != 1 {
        return Err("not a ClientHello");
    }
    take(&mut d, 2 + 32)?;
    let sid = take(&mut d, 1)?[0];
    take(&mut d, usize::from(sid))?;
    let suites = u16be(&mut d)?;
    take(&mut d, suites)?;
    let comp = take(&mut d, 1)?[0];
    take(&mut d, usize::from(comp))?;
    if d.is_empty() {
        return Ok(None);
    }
    let ext_len = u16be(&mut d)?;
    let mut exts = take(&mut d, ext_len)?;
    while !exts.is_empty() {
        let kind = u16be(&mut exts)?;
        let len = u16be(&mut exts)?;
        let mut body = take(&mut exts, len)?;
        if kind == 0 {
            let _list = u16be(&mut body)?;
            let name_type = take(&mut body, 1)?[0];
            let n = u16be(&mut body)?;
            let name = take(&mut body, n)?;
            if name_type != 0 {
                return Err("unknown server name type");
            }
            return String::from_utf8(name.to_vec())
                .map(Some)
                .map_err(|_| "server name is not text");
        }
    }
    Ok(None)
}

fn tunnel(mut conn: TcpStream, egress: &Egress, target: &str, mut early: Vec<u8>) {
    let parsed = url::Url::parse(&format!("https://{target}/"));
    let Ok(url) = parsed else {
        answer(&mut conn, 400, "Bad Request", &[], b"bad CONNECT target\n");
        return;
    };
    let Ok((host, port)) = crate::http::host_port(&url) else {
        answer(&mut conn, 400, "Bad Request", &[], b"bad CONNECT target\n");
        return;
    };
    let policy = egress.policy();
    let allowed = policy.rules().iter().any(|r| {
        r.method.is_none()
            && r.path_prefix.is_none()
            && r.allows_request("CONNECT", &host, port, "/")
    });
    if !allowed {
        let err = egress.deny("CONNECT", &host, port, String::new());
        refuse(&mut conn, &err);
        return;
    }
    let literal = host.parse::<IpAddr>().ok();
    let addrs = match literal {
        Some(ip) => vec![SocketAddr::new(ip, port)],
        None => match egress.resolve(&host, port) {
            Ok(a) if !a.is_empty() => a,
            _ => {
                refuse(&mut conn, &NetError::Resolve(host));
                return;
            }
        },
    };
    let Some(addr) = addrs
        .iter()
        .copied()
        .find(|a| policy.allows_address(a.ip(), port, literal.is_some()))
    else {
        let ip = addrs[0].ip();
        let err = egress.deny(
            "CONNECT",
            &host,
            port,
            format!(" (resolves to {ip}, not a public address; only an IP rule allows it)"),
        );
        refuse(&mut conn, &err);
        return;
    };
    let _ = conn.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n");
    // Read the client's first bytes: a TLS ClientHello must name this host.
    let mut chunk = [0u8; 8192];
    let _ = conn.set_read_timeout(Some(Duration::from_secs(10)));
    loop {
        if !early.is_empty() {
            if early[0] != 0x16 {
                break; // Not TLS: a plain stream to an allowed host and port.
            }
            match client_hello_sni(&early) {
                Ok(sni) => {
                    let fine = match (&sni, literal) {
                        (Some(name), _) => normalize_host(name) == host,
                        (None, Some(_)) => true,
                        (None, None) => false,
                    };
                    if !fine {
                        let shown = sni.unwrap_or_else(|| "(none)".into());
                        let _ = egress.deny(
                            "CONNECT",
                            &host,
                            port,
                            format!(" (TLS server name {shown} does not match the tunnel's host)"),
                        );
                        let _ = conn.shutdown(std::net::Shutdown::Both);
                        return;
                    }
                    break;
                }
                Err("short ClientHello") if early.len() < MAX_HEAD => {}
                Err(_) => {
                    let _ = conn.shutdown(std::net::Shutdown::Both);
                    return;
                }
            }
        }
        match conn.read(&mut chunk) {
            Ok(0) | Err(_) => return,
            Ok(n) => early.extend_from_slice(&chunk[..n]),
        }
    }
    let limits = egress.limits();
    let Ok(mut upstream) = TcpStream::connect_timeout(&addr, limits.connect_timeout) else {
        let _ = conn.shutdown(std::net::Shutdown::Both);
        return;
    };
    if upstream.write_all(&early).is_err() {
        return;
    }
    let _ = conn.set_read_timeout(None);
    let (Ok(mut up_read), Ok(mut down_write)) = (upstream.try_clone(), conn.try_clone()) else {
        return;
    };
    let back = std::thread::spawn(move || {
        let _ = std::io::copy(&mut up_read, &mut down_write);
        let _ = down_write.shutdown(std::net::Shutdown::Write);
    });
    let _ = std::io::copy(&mut conn, &mut upstream);
    let _ = upstream.shutdown(std::net::Shutdown::Write);
    let _ = back.join();
}

impl Egress {
    pub(crate) fn resolve(&self, host: &str, port: u16) -> std::io::Result<Vec<SocketAddr>> {
        let resolver = self
            .inner
            .resolver
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        resolver.resolve(host, port)
    }
}

/// `NO_PROXY` for a container: nothing local is bypassed except loopback.
pub const NO_PROXY: &str = "localhost,127.0.0.1,::1";
