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
//!   Bytes through a tunnel count against the session's byte limits.
//! - With an [`Interceptor`] (a per-sandbox CA the sandbox trusts), a tunnel
//!   to a host that has an injected header is terminated here instead: the
//!   proxy completes TLS with a leaf certificate for the host, reads the
//!   request and sends it through [`Egress::send`], which adds the header.
//!   Without one, such tunnels pass through untouched (no header).
//! - A denial answers `403` with the policy's words in the body and in an
//!   `X-Sandkeep-Denied` header, and is reported once to the denial sink.
//! - Requests of the `curl`/`wget` wrappers installed in containers
//!   ([`crate::wrapper`]) carry a run token as their proxy user name
//!   ([`RunToken`]). A refusal of such a request is also kept for that
//!   token, and the wrapper asks for it ([`VERDICT_METHOD`]) to show the
//!   policy's words as the local backend does; a refused forward request of
//!   the `curl` wrapper gets no answer at all (the connection is closed), so
//!   curl writes no 403 page where the download was to go. The verdict is
//!   the host side's: the wrapper only shows it.
//!
//! The proxy serves any [`ClientConn`]: a TCP connection ([`EgressProxy`]
//! listens on a host port) or a connection multiplexed over some other
//! stream ([`serve`]; the docker backend relays the container's connections
//! over a `docker exec` stdio stream). [`EgressProxy`] stops on drop.

use std::io::{Read, Write};
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::Egress;
use crate::http::{Deadline, NetError, Request};
use crate::intercept::Interceptor;
use crate::policy::normalize_host;

/// Largest request head or ClientHello the proxy reads.
const MAX_HEAD: usize = 64 << 10;

/// The method of a wrapper's request for the refusals noted for its run
/// token (`SANDKEEP-VERDICTS TOKEN HTTP/1.1`): answered `200` with one
/// refusal's words per line, oldest first, and forgotten once told.
pub const VERDICT_METHOD: &str = "SANDKEEP-VERDICTS";

/// Which wrapper a run token belongs to: how a refused forward request is
/// answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Presenter {
    /// `curl`: no answer (curl then writes nothing to its output).
    Curl,
    /// `wget`: the usual `403` (wget writes no error page and does not retry).
    Wget,
}

/// The run token of a wrapper's request: the proxy user name
/// `skc` (curl) or `skw` (wget) followed by 32 lowercase hex digits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunToken {
    /// The whole token.
    pub id: String,
    /// The wrapper it came from.
    pub presenter: Presenter,
}

impl RunToken {
    /// Parses a proxy user name.
    ///
    /// ```
    /// use sandkeep_net::proxy::{Presenter, RunToken};
    ///
    /// let t = RunToken::parse("skc0123456789abcdef0123456789abcdef").unwrap();
    /// assert_eq!(t.presenter, Presenter::Curl);
    /// assert!(RunToken::parse("skc0123").is_none());
    /// assert!(RunToken::parse("alice").is_none());
    /// ```
    pub fn parse(user: &str) -> Option<RunToken> {
        let presenter = match user.get(..3)? {
            "skc" => Presenter::Curl,
            "skw" => Presenter::Wget,
            _ => return None,
        };
        let hex = &user[3..];
        (hex.len() == 32 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))).then(
            || RunToken {
                id: user.to_string(),
                presenter,
            },
        )
    }

    /// The token in a request's `Proxy-Authorization: Basic` header.
    fn of(headers: &[(String, String)]) -> Option<RunToken> {
        use base64::Engine;
        let value = headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case("proxy-authorization"))?
            .1
            .trim();
        let (scheme, b64) = value.split_once(' ')?;
        if !scheme.eq_ignore_ascii_case("basic") {
            return None;
        }
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(b64.trim())
            .ok()?;
        let text = String::from_utf8(decoded).ok()?;
        RunToken::parse(text.split(':').next()?)
    }
}

/// Keeps a refusal's words for the wrapper of `token`, if any.
fn note(egress: &Egress, token: Option<&RunToken>, err: &NetError) {
    if let Some(t) = token
        && matches!(err, NetError::Denied { .. } | NetError::Limit(_))
    {
        egress.note_verdict(&t.id, &err.to_string());
    }
}

/// Whether a rule without METHOD or path (the only kind a tunnel can be
/// checked against) allows `host:port`.
fn tunnel_allowed(policy: &crate::Policy, host: &str, port: u16) -> bool {
    policy.rules().iter().any(|r| {
        r.method.is_none()
            && r.path_prefix.is_none()
            && r.allows_request("CONNECT", host, port, "/")
    })
}

/// One client connection the proxy serves, and how to split it into a read
/// half and a write half for a tunnel's two directions.
pub trait ClientConn: Read + Write + Send + 'static {
    /// The read half (the client's bytes).
    type Reader: Read + Send + 'static;
    /// The write half; dropping it ends the proxy-to-client direction
    /// (the client reads end of file).
    type Writer: Write + Send + 'static;

    /// Makes reads fail with `TimedOut`/`WouldBlock` after `timeout`
    /// (`None`: wait forever).
    fn set_read_timeout(&mut self, timeout: Option<Duration>) -> std::io::Result<()>;

    /// The two halves.
    fn split(self) -> std::io::Result<(Self::Reader, Self::Writer)>;
}

/// The write half of a TCP client: shuts the direction down when dropped.
pub struct TcpWriteHalf(TcpStream);

impl Write for TcpWriteHalf {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

impl Drop for TcpWriteHalf {
    fn drop(&mut self) {
        let _ = self.0.shutdown(std::net::Shutdown::Write);
    }
}

impl ClientConn for TcpStream {
    type Reader = TcpStream;
    type Writer = TcpWriteHalf;

    fn set_read_timeout(&mut self, timeout: Option<Duration>) -> std::io::Result<()> {
        TcpStream::set_read_timeout(self, timeout)
    }

    fn split(self) -> std::io::Result<(TcpStream, TcpWriteHalf)> {
        let reader = self.try_clone()?;
        Ok((reader, TcpWriteHalf(self)))
    }
}

/// A running proxy; stopped (its accept loop ended) on drop.
pub struct EgressProxy {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    accept: Option<JoinHandle<()>>,
}

impl EgressProxy {
    /// Starts a proxy for `egress` on `bind` (e.g. `127.0.0.1:0`); tunnels
    /// are never terminated, so no header is injected into HTTPS.
    pub fn start(egress: Egress, bind: SocketAddr) -> std::io::Result<EgressProxy> {
        EgressProxy::start_with(egress, bind, None)
    }

    /// Starts a proxy for `egress` on `bind` that terminates TLS with
    /// `interceptor` for the hosts that have an injected header.
    pub fn start_with(
        egress: Egress,
        bind: SocketAddr,
        interceptor: Option<Arc<Interceptor>>,
    ) -> std::io::Result<EgressProxy> {
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
                    let interceptor = interceptor.clone();
                    let _ = std::thread::Builder::new()
                        .name("sandkeep-egress-conn".into())
                        .spawn(move || serve(conn, &egress, interceptor.as_deref()));
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

fn answer(conn: &mut impl Write, code: u16, reason: &str, extra: &[(&str, String)], body: &[u8]) {
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

fn refuse(conn: &mut impl Write, err: &NetError) {
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

/// One request head as read from a client.
struct Head {
    method: String,
    target: String,
    headers: Vec<(String, String)>,
    /// Bytes read past the head (the start of a body or of a tunnel).
    rest: Vec<u8>,
}

/// Reads one request head; `None` when the client closed, timed out or sent
/// something that is not HTTP (answered with 400 then).
fn read_head(conn: &mut (impl Read + Write)) -> Option<Head> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        let n = match conn.read(&mut chunk) {
            Ok(0) | Err(_) => return None,
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
                return Some(Head {
                    method: req.method.unwrap_or("").to_string(),
                    target: req.path.unwrap_or("").to_string(),
                    headers,
                    rest: buf[len..].to_vec(),
                });
            }
            Ok(httparse::Status::Partial) if buf.len() < MAX_HEAD => {}
            _ => {
                answer(conn, 400, "Bad Request", &[], b"bad request\n");
                return None;
            }
        }
    }
}

/// Serves one client connection under `egress`: one forwarded request, or
/// one tunnel. With `interceptor`, tunnels to hosts that have an injected
/// header are terminated and their request forwarded with the header.
pub fn serve<C: ClientConn>(mut conn: C, egress: &Egress, interceptor: Option<&Interceptor>) {
    let _ = conn.set_read_timeout(Some(Duration::from_secs(30)));
    let Some(head) = read_head(&mut conn) else {
        return;
    };
    if head.method == VERDICT_METHOD {
        let told = egress.take_verdicts(&head.target);
        let mut body = told.join("\n");
        if !body.is_empty() {
            body.push('\n');
        }
        answer(&mut conn, 200, "OK", &[], body.as_bytes());
        return;
    }
    let token = RunToken::of(&head.headers);
    if head.method.eq_ignore_ascii_case("CONNECT") {
        tunnel(
            conn,
            egress,
            &head.target,
            head.rest,
            interceptor,
            token.as_ref(),
        );
        return;
    }
    let url = match url::Url::parse(&head.target) {
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
    forward(&mut conn, egress, &head, url, token.as_ref());
}

fn forward(
    conn: &mut (impl Read + Write),
    egress: &Egress,
    head: &Head,
    url: url::Url,
    token: Option<&RunToken>,
) {
    let method = head.method.as_str();
    let len: usize = head
        .headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.trim().parse().ok())
        .unwrap_or(0);
    if head.headers.iter().any(|(n, v)| {
        n.eq_ignore_ascii_case("transfer-encoding") && !v.trim().eq_ignore_ascii_case("identity")
    }) {
        answer(
            conn,
            411,
            "Length Required",
            &[],
            b"sandkeep proxy: send the request body with a Content-Length\n",
        );
        return;
    }
    let mut body = head.rest.clone();
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
        headers: head
            .headers
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
            let body: &[u8] = if method.eq_ignore_ascii_case("HEAD") {
                &[]
            } else {
                &resp.body
            };
            answer(conn, resp.status, &reason, &kept, body);
        }
        Err(e) => {
            note(egress, token, &e);
            let denied = matches!(e, NetError::Denied { .. } | NetError::Limit(_));
            if !(denied && token.is_some_and(|t| t.presenter == Presenter::Curl)) {
                refuse(conn, &e);
            }
        }
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

/// A client's stream with bytes already read from it put back in front.
struct Replay<C> {
    early: std::io::Cursor<Vec<u8>>,
    conn: C,
}

impl<C: Read> Read for Replay<C> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if (self.early.position() as usize) < self.early.get_ref().len() {
            return self.early.read(buf);
        }
        self.conn.read(buf)
    }
}

impl<C: Write> Write for Replay<C> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.conn.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.conn.flush()
    }
}

/// What the first bytes of a tunnel say.
enum Opening {
    /// Not TLS: a plain stream to an allowed host and port.
    Plain,
    /// A TLS ClientHello whose server name matches the tunnel's host.
    Tls,
    /// Refused (denial reported) or the client went away.
    Closed,
}

/// Reads the client's first bytes into `early`: a TLS ClientHello must name
/// `host` (or none, for an IP literal tunnel).
fn check_opening(
    conn: &mut impl Read,
    egress: &Egress,
    host: &str,
    port: u16,
    literal: bool,
    early: &mut Vec<u8>,
    token: Option<&RunToken>,
) -> Opening {
    let mut chunk = [0u8; 8192];
    loop {
        if !early.is_empty() {
            if early[0] != 0x16 {
                return Opening::Plain;
            }
            match client_hello_sni(early) {
                Ok(sni) => {
                    let fine = match (&sni, literal) {
                        (Some(name), _) => normalize_host(name) == host,
                        (None, true) => true,
                        (None, false) => false,
                    };
                    if !fine {
                        let shown = sni.unwrap_or_else(|| "(none)".into());
                        let named = normalize_host(&shown);
                        // A server name no rule allows is denied in the
                        // same words as a request for it (what the local
                        // backend says to `curl --connect-to`); an allowed
                        // one still may not ride another host's tunnel.
                        let err = if shown != "(none)"
                            && !tunnel_allowed(&egress.policy(), &named, port)
                        {
                            egress.deny_because(
                                "CONNECT",
                                &named,
                                port,
                                String::new(),
                                format!(
                                    "TLS server name {named} does not match the tunnel's host {host}:{port}, and no rule allows it"
                                ),
                            )
                        } else {
                            egress.deny(
                                "CONNECT",
                                host,
                                port,
                                format!(
                                    " (TLS server name {shown} does not match the tunnel's host)"
                                ),
                            )
                        };
                        note(egress, token, &err);
                        return Opening::Closed;
                    }
                    return Opening::Tls;
                }
                Err("short ClientHello") if early.len() < MAX_HEAD => {}
                Err(_) => return Opening::Closed,
            }
        }
        match conn.read(&mut chunk) {
            Ok(0) | Err(_) => return Opening::Closed,
            Ok(n) => early.extend_from_slice(&chunk[..n]),
        }
    }
}

fn tunnel<C: ClientConn>(
    mut conn: C,
    egress: &Egress,
    target: &str,
    mut early: Vec<u8>,
    interceptor: Option<&Interceptor>,
    token: Option<&RunToken>,
) {
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
    if !tunnel_allowed(&policy, &host, port) {
        let err = egress.deny("CONNECT", &host, port, String::new());
        note(egress, token, &err);
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
        note(egress, token, &err);
        refuse(&mut conn, &err);
        return;
    };
    if let Err(e) = egress.count_tunnel(1, 0, 0) {
        note(egress, token, &e);
        refuse(&mut conn, &e);
        return;
    }
    let _ = conn.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n");
    let _ = conn.flush();
    let _ = conn.set_read_timeout(Some(Duration::from_secs(10)));
    let opening = check_opening(
        &mut conn,
        egress,
        &host,
        port,
        literal.is_some(),
        &mut early,
        token,
    );
    let inject = egress.headers().iter().any(|h| h.applies_to(&host, port));
    match (opening, interceptor) {
        (Opening::Closed, _) => {}
        (Opening::Tls, Some(ca)) if inject => {
            terminate(conn, egress, ca, (&host, port), early, token)
        }
        (Opening::Tls | Opening::Plain, _) => splice(conn, egress, addr, early, token),
    }
}

/// Answers the tunnel's TLS with a certificate for `host` from `ca`, then
/// sends the request inside it through the checked client (which adds the
/// injected header and verifies the real server).
fn terminate<C: ClientConn>(
    conn: C,
    egress: &Egress,
    ca: &Interceptor,
    (host, port): (&str, u16),
    early: Vec<u8>,
    token: Option<&RunToken>,
) {
    let Ok(config) = ca.server_config(host) else {
        return;
    };
    let Ok(server) = rustls::ServerConnection::new(config) else {
        return;
    };
    let mut tls = rustls::StreamOwned::new(
        server,
        Replay {
            early: std::io::Cursor::new(early),
            conn,
        },
    );
    let _ = tls
        .sock
        .conn
        .set_read_timeout(Some(Duration::from_secs(30)));
    let Some(head) = read_head(&mut tls) else {
        return;
    };
    let authority = if port == 443 {
        host.to_string()
    } else {
        format!("{host}:{port}")
    };
    let authority = if host.contains(':') && !host.starts_with('[') {
        // An IPv6 literal.
        if port == 443 {
            format!("[{host}]")
        } else {
            format!("[{host}]:{port}")
        }
    } else {
        authority
    };
    let path = if head.target.starts_with('/') {
        head.target.clone()
    } else {
        format!("/{}", head.target)
    };
    match url::Url::parse(&format!("https://{authority}{path}")) {
        Ok(url) => forward(&mut tls, egress, &head, url, token),
        Err(_) => answer(&mut tls, 400, "Bad Request", &[], b"bad request target\n"),
    }
    tls.conn.send_close_notify();
    let _ = tls.flush();
}

/// Connects to `addr` and copies both ways, counting the bytes against the
/// session's limits (a tunnel over its byte limit is closed).
fn splice<C: ClientConn>(
    conn: C,
    egress: &Egress,
    addr: SocketAddr,
    early: Vec<u8>,
    token: Option<&RunToken>,
) {
    let limits = egress.limits();
    let Ok(mut upstream) = TcpStream::connect_timeout(&addr, limits.connect_timeout) else {
        return;
    };
    if let Err(e) = egress.count_tunnel(0, early.len() as u64, 0) {
        note(egress, token, &e);
        return;
    }
    if upstream.write_all(&early).is_err() {
        return;
    }
    let mut conn = conn;
    let _ = conn.set_read_timeout(None);
    let (Ok((mut client_read, mut client_write)), Ok(mut up_read)) =
        (conn.split(), upstream.try_clone())
    else {
        return;
    };
    let Ok(up_stop) = upstream.try_clone() else {
        return;
    };
    let back_egress = egress.clone();
    let back_token = token.cloned();
    let back = std::thread::spawn(move || {
        let mut chunk = vec![0u8; 16 << 10];
        loop {
            let n = match up_read.read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            if let Err(e) = back_egress.count_tunnel(0, 0, n as u64) {
                note(&back_egress, back_token.as_ref(), &e);
                let _ = up_stop.shutdown(std::net::Shutdown::Both);
                break;
            }
            if client_write.write_all(&chunk[..n]).is_err() {
                break;
            }
            let _ = client_write.flush();
        }
        drop(client_write);
    });
    let mut chunk = vec![0u8; 16 << 10];
    loop {
        let n = match client_read.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        if let Err(e) = egress.count_tunnel(0, n as u64, 0) {
            note(egress, token, &e);
            let _ = upstream.shutdown(std::net::Shutdown::Both);
            break;
        }
        if upstream.write_all(&chunk[..n]).is_err() {
            break;
        }
    }
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
