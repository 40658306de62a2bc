//! The host-side HTTP/1.1 client: one request, one connection, every check on
//! the way. It runs outside the sandbox (the local shell's `curl`/`wget` call
//! it over their `CommandCtx`); the sandbox never holds a socket.
//!
//! Order of checks for each request (and so for each redirect hop, which the
//! caller sends as a new request): the URL's scheme, the policy on what was
//! asked (method, host as written, port, path), the limits, the resolution of
//! the name by a resolver the host side controls, the policy on each address
//! before connecting to it (so a name cannot lead into the host's network),
//! then TLS with the name as SNI, and the headers the operator injects for
//! that host. The raw response head is kept so `curl -i` shows it verbatim.

use std::io::{Read, Write};
use std::net::{IpAddr, SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::egress::{Denial, Egress};
use crate::policy::normalize_host;

/// Largest response head accepted.
const MAX_HEAD: usize = 64 << 10;

/// What one request failed on. Each kind maps to curl's exit status.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NetError {
    /// The URL could not be parsed (curl 3).
    #[error("URL rejected: {0}")]
    BadUrl(String),
    /// Not http or https (curl 1).
    #[error("Protocol \"{0}\" not supported or disabled in libcurl")]
    Scheme(String),
    /// The policy refused it (curl 56, with the operator's wording).
    #[error(
        "sandkeep: network policy denies {target}{why} (allowed: {allowed}); ask the operator to add it"
    )]
    Denied {
        /// `host:port`.
        target: String,
        /// Extra words, e.g. ` (resolves to 127.0.0.1, not a public address)`.
        why: String,
        /// The policy in force.
        allowed: String,
    },
    /// A session limit was reached (curl 56).
    #[error("sandkeep: network limit reached: {0}")]
    Limit(String),
    /// The name has no address (curl 6).
    #[error("Could not resolve host: {0}")]
    Resolve(String),
    /// No address accepted a connection (curl 7).
    #[error("Failed to connect to {host} port {port} after {ms} ms: Couldn't connect to server")]
    Connect {
        /// Host as asked.
        host: String,
        /// Port.
        port: u16,
        /// Time spent.
        ms: u128,
    },
    /// Connect or read took too long (curl 28).
    #[error("{0}")]
    Timeout(String),
    /// TLS failed (curl 35 / 60).
    #[error("{message}")]
    Tls {
        /// curl's code for it.
        code: i32,
        /// What failed.
        message: String,
    },
    /// The server closed without a response (curl 52).
    #[error("Empty reply from server")]
    EmptyReply,
    /// The response was not HTTP (curl 1 / 8).
    #[error("{0}")]
    BadResponse(String),
    /// The body ended early (curl 18).
    #[error("transfer closed with {remaining} bytes remaining to read")]
    Partial {
        /// Bytes announced and never received.
        remaining: u64,
        /// What did arrive.
        received: Vec<u8>,
    },
    /// Receiving failed (curl 56).
    #[error("Recv failure: {0}")]
    Recv(String),
    /// Sending failed (curl 55).
    #[error("Send failure: {0}")]
    Send(String),
    /// `-L` met more redirects than allowed (curl 47).
    #[error("Maximum ({0}) redirects followed")]
    TooManyRedirects(u32),
    /// Writing the output failed (curl 23).
    #[error("{0}")]
    Write(String),
    /// A `--connect-to` entry names a bad port (curl 49).
    #[error("{0}")]
    ConnectTo(String),
    /// The run was cancelled (its deadline or a kill).
    #[error("Operation cancelled")]
    Cancelled,
}

impl NetError {
    /// curl's exit status for this error.
    pub fn curl_code(&self) -> i32 {
        match self {
            NetError::BadUrl(_) => 3,
            NetError::Scheme(_) => 1,
            NetError::Denied { .. } | NetError::Limit(_) | NetError::Recv(_) => 56,
            NetError::Resolve(_) => 6,
            NetError::Connect { .. } => 7,
            NetError::Timeout(_) => 28,
            NetError::Tls { code, .. } => *code,
            NetError::EmptyReply => 52,
            NetError::BadResponse(_) => 8,
            NetError::Partial { .. } => 18,
            NetError::Send(_) => 55,
            NetError::TooManyRedirects(_) => 47,
            NetError::Write(_) => 23,
            NetError::ConnectTo(_) => 49,
            NetError::Cancelled => 42,
        }
    }

    /// Whether `--retry` tries again after it (curl's "transient" errors).
    pub fn is_transient(&self) -> bool {
        matches!(self, NetError::Timeout(_) | NetError::Connect { .. })
    }
}

/// One request to send.
#[derive(Debug, Clone)]
pub struct Request {
    /// The method (`GET`, `POST`, ...).
    pub method: String,
    /// The absolute URL.
    pub url: url::Url,
    /// Headers the sandbox asked for, in order (name, value).
    pub headers: Vec<(String, String)>,
    /// The body, if any.
    pub body: Option<Vec<u8>>,
    /// `User-Agent` to send unless `headers` has one.
    pub user_agent: String,
    /// A shorter connect timeout than the session's, if asked for.
    pub connect_timeout: Option<Duration>,
    /// A shorter read timeout than the session's, if asked for.
    pub read_timeout: Option<Duration>,
}

/// One response.
#[derive(Debug, Clone, Default)]
pub struct Response {
    /// The status code.
    pub status: u16,
    /// `HTTP/1.1` or `HTTP/1.0`.
    pub version: String,
    /// The raw head (status line and headers, with the final blank line),
    /// exactly as received.
    pub head: Vec<u8>,
    /// The headers, in order.
    pub headers: Vec<(String, String)>,
    /// The body (decoded from chunked framing).
    pub body: Vec<u8>,
    /// The address connected to.
    pub peer: Option<SocketAddr>,
}

impl Response {
    /// The first header called `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// When a request must be over and how to tell it was cancelled.
#[derive(Clone, Copy)]
pub struct Deadline<'a> {
    /// The instant the whole operation must end (curl `-m`, the run's deadline).
    pub at: Option<Instant>,
    /// Whether the run was cancelled.
    pub cancelled: &'a dyn Fn() -> bool,
    /// When the operation started (for curl's "after N ms" messages).
    pub started: Instant,
}

impl Deadline<'_> {
    fn left(&self) -> Option<Duration> {
        self.at
            .map(|at| at.saturating_duration_since(Instant::now()))
    }

    fn timeout_error(&self, got: usize) -> NetError {
        NetError::Timeout(format!(
            "Operation timed out after {} milliseconds with {got} bytes received",
            self.started.elapsed().as_millis()
        ))
    }
}

enum Conn {
    Plain(TcpStream),
    Tls(Box<rustls::StreamOwned<rustls::ClientConnection, TcpStream>>),
}

impl Conn {
    fn tcp(&self) -> &TcpStream {
        match self {
            Conn::Plain(s) => s,
            Conn::Tls(s) => s.get_ref(),
        }
    }
}

impl Read for Conn {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Conn::Plain(s) => s.read(buf),
            Conn::Tls(s) => s.read(buf),
        }
    }
}

impl Write for Conn {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Conn::Plain(s) => s.write(buf),
            Conn::Tls(s) => s.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Conn::Plain(s) => s.flush(),
            Conn::Tls(s) => s.flush(),
        }
    }
}

impl Egress {
    pub(crate) fn deny(&self, method: &str, host: &str, port: u16, why: String) -> NetError {
        let reason = if why.is_empty() {
            "no rule allows it".to_string()
        } else {
            why.trim()
                .trim_start_matches('(')
                .trim_end_matches(')')
                .to_string()
        };
        self.deny_because(method, host, port, why, reason)
    }

    /// [`Egress::deny`] with the event log's `reason` given apart from the
    /// words shown to the sandbox (`why`).
    pub(crate) fn deny_because(
        &self,
        method: &str,
        host: &str,
        port: u16,
        why: String,
        reason: String,
    ) -> NetError {
        let allowed = self.policy().to_string();
        self.report_denial(&Denial {
            host: host.to_string(),
            port,
            method: method.to_string(),
            reason,
            allowed: allowed.clone(),
            scope: self.scope().map(str::to_string),
        });
        NetError::Denied {
            target: format!("{host}:{port}"),
            why,
            allowed,
        }
    }

    fn count(
        &self,
        f: impl FnOnce(&mut crate::NetUsage, &crate::NetLimits) -> Result<(), String>,
    ) -> Result<(), NetError> {
        let limits = self.limits();
        let mut usage = self.usage.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut usage, &limits).map_err(NetError::Limit)
    }

    /// Counts `requests` new tunnels and the bytes through them (out: from
    /// the sandbox; in: to it) against the limits; an error when that would
    /// pass one (nothing is counted then).
    pub(crate) fn count_tunnel(&self, requests: u64, out: u64, inn: u64) -> Result<(), NetError> {
        self.count(|usage, limits| {
            if usage.requests + requests > limits.max_requests {
                return Err(format!("{} requests", limits.max_requests));
            }
            if usage.bytes_out + out > limits.max_bytes_out {
                return Err(format!("{} bytes out", limits.max_bytes_out));
            }
            if usage.bytes_in + inn > limits.max_bytes_in {
                return Err(format!("{} bytes in", limits.max_bytes_in));
            }
            usage.requests += requests;
            usage.bytes_out += out;
            usage.bytes_in += inn;
            Ok(())
        })
    }

    /// Checks `req` against the policy without sending it.
    pub fn check(&self, method: &str, url: &url::Url) -> Result<(), NetError> {
        let (host, port) = host_port(url)?;
        let path = url.path();
        if self.policy().allows_request(method, &host, port, path) {
            Ok(())
        } else {
            Err(self.deny(method, &host, port, String::new()))
        }
    }

    /// Sends one request (no redirect following: the caller sends each hop,
    /// and each goes through every check again).
    ///
    /// ```
    /// use sandkeep_net::{Egress, http::{Deadline, NetError, Request}};
    ///
    /// let egress = Egress::allowing(["example.org"]).unwrap();
    /// let req = Request {
    ///     method: "GET".into(),
    ///     url: "http://evil.example.com/".parse().unwrap(),
    ///     headers: vec![],
    ///     body: None,
    ///     user_agent: "doc".into(),
    ///     connect_timeout: None,
    ///     read_timeout: None,
    /// };
    /// let never = || false;
    /// let deadline = Deadline { at: None, cancelled: &never, started: std::time::Instant::now() };
    /// let err = egress.send(&req, deadline).unwrap_err();
    /// assert_eq!(err.curl_code(), 56);
    /// assert_eq!(
    ///     err.to_string(),
    ///     "sandkeep: network policy denies evil.example.com:80 (allowed: example.org); ask the operator to add it"
    /// );
    /// ```
    pub fn send(&self, req: &Request, deadline: Deadline<'_>) -> Result<Response, NetError> {
        self.send_via(req, None, deadline)
    }

    /// [`Egress::send`], connecting to `connect_to` (host, port) instead of
    /// the URL's host and port (curl's `--connect-to`): the URL still names
    /// the request (`Host`, TLS server name, certificate checked for it), and
    /// the policy must allow both the URL's host and the one connected to.
    /// Headers the operator injects for the URL's host are not added when
    /// the connection goes elsewhere (another server must not receive them).
    pub fn send_via(
        &self,
        req: &Request,
        connect_to: Option<(&str, u16)>,
        deadline: Deadline<'_>,
    ) -> Result<Response, NetError> {
        let scheme = req.url.scheme();
        if scheme != "http" && scheme != "https" {
            return Err(NetError::Scheme(scheme.to_string()));
        }
        let (host, port) = host_port(&req.url)?;
        self.check(&req.method, &req.url)?;
        let (dest, dest_port) = match connect_to {
            Some((h, p)) => {
                let h = normalize_host(h.trim_start_matches('[').trim_end_matches(']'));
                if !self
                    .policy()
                    .allows_request(&req.method, &h, p, req.url.path())
                {
                    return Err(self.deny(&req.method, &h, p, String::new()));
                }
                (h, p)
            }
            None => (host.clone(), port),
        };
        let literal: Option<IpAddr> = match (connect_to, req.url.host()) {
            (Some(_), _) => dest.parse().ok(),
            (None, Some(url::Host::Ipv4(a))) => Some(IpAddr::V4(a)),
            (None, Some(url::Host::Ipv6(a))) => Some(IpAddr::V6(a)),
            _ => None,
        };
        let injected = if (dest.as_str(), dest_port) == (host.as_str(), port) {
            self.headers()
        } else {
            Vec::new()
        };
        let head = build_head(req, &host, port, &injected);
        let out_len = (head.len() + req.body.as_ref().map_or(0, Vec::len)) as u64;
        self.count(|usage, limits| {
            if usage.requests >= limits.max_requests {
                return Err(format!("{} requests", limits.max_requests));
            }
            if usage.bytes_out + out_len > limits.max_bytes_out {
                return Err(format!("{} bytes out", limits.max_bytes_out));
            }
            usage.requests += 1;
            usage.bytes_out += out_len;
            Ok(())
        })?;
        let addrs = match literal {
            Some(ip) => vec![SocketAddr::new(ip, dest_port)],
            None => {
                let resolver = self
                    .inner
                    .resolver
                    .read()
                    .unwrap_or_else(|e| e.into_inner())
                    .clone();
                match resolver.resolve(&dest, dest_port) {
                    Ok(a) if !a.is_empty() => a,
                    _ => return Err(NetError::Resolve(dest)),
                }
            }
        };
        let policy = self.policy();
        let allowed: Vec<SocketAddr> = addrs
            .iter()
            .copied()
            .filter(|a| policy.allows_address(a.ip(), dest_port, literal.is_some()))
            .collect();
        if allowed.is_empty() {
            let ip = addrs[0].ip();
            return Err(self.deny(
                &req.method,
                &dest,
                dest_port,
                format!(" (resolves to {ip}, not a public address; only an IP rule allows it)"),
            ));
        }
        let limits = self.limits();
        let connect_timeout = req
            .connect_timeout
            .map_or(limits.connect_timeout, |c| c.min(limits.connect_timeout));
        let (tcp, peer) = connect(&allowed, &dest, dest_port, connect_timeout, deadline)?;
        let mut conn = if scheme == "https" {
            Conn::Tls(Box::new(tls_connect(self.tls(), &host, tcp)?))
        } else {
            Conn::Plain(tcp)
        };
        let mut wire = head;
        if let Some(body) = &req.body {
            wire.extend_from_slice(body);
        }
        set_read_timeout(&conn, limits.read_timeout, deadline)?;
        conn.write_all(&wire)
            .and_then(|_| conn.flush())
            .map_err(|e| io_error(e, deadline, 0, NetError::Send))?;
        let mut reader = Reader {
            conn,
            buf: Vec::new(),
            pos: 0,
            got: 0,
            read_timeout: req
                .read_timeout
                .map_or(limits.read_timeout, |r| r.min(limits.read_timeout)),
            deadline,
            egress: self,
        };
        let mut response = loop {
            let r = reader.head()?;
            // 1xx interim responses (100 Continue) are skipped, as curl does
            // without -v.
            if !(100..200).contains(&r.status) || r.status == 101 {
                break r;
            }
        };
        response.peer = Some(peer);
        let no_body = req.method.eq_ignore_ascii_case("HEAD")
            || response.status == 204
            || response.status == 304
            || (100..200).contains(&response.status);
        if !no_body {
            response.body = reader.body(&response)?;
        }
        Ok(response)
    }
}

/// The host (as the URL names it, lowercase, IPv6 without brackets) and port.
pub fn host_port(url: &url::Url) -> Result<(String, u16), NetError> {
    let host = match url.host() {
        Some(url::Host::Domain(d)) => normalize_host(d),
        Some(url::Host::Ipv4(a)) => a.to_string(),
        Some(url::Host::Ipv6(a)) => a.to_string(),
        None => return Err(NetError::BadUrl("No host part in the URL".into())),
    };
    let port = url
        .port_or_known_default()
        .ok_or_else(|| NetError::BadUrl("no port".into()))?;
    Ok((host, port))
}

fn build_head(req: &Request, host: &str, port: u16, injected: &[crate::InjectedHeader]) -> Vec<u8> {
    let mut target = req.url.path().to_string();
    if let Some(q) = req.url.query() {
        target.push('?');
        target.push_str(q);
    }
    let has = |name: &str| {
        req.headers
            .iter()
            .any(|(n, _)| n.eq_ignore_ascii_case(name))
    };
    let mut head = format!("{} {} HTTP/1.1\r\n", req.method, target);
    if !has("host") {
        let shown = if host.contains(':') {
            format!("[{host}]")
        } else {
            host.to_string()
        };
        match req.url.port() {
            Some(p) => head.push_str(&format!("Host: {shown}:{p}\r\n")),
            None => head.push_str(&format!("Host: {shown}\r\n")),
        }
    }
    let injected: Vec<_> = injected
        .iter()
        .filter(|h| h.applies_to(host, port))
        .collect();
    // An injected header replaces one of the same name from the sandbox.
    let overridden = |name: &str| injected.iter().any(|h| h.name.eq_ignore_ascii_case(name));
    if !has("user-agent") && !req.user_agent.is_empty() {
        head.push_str(&format!("User-Agent: {}\r\n", req.user_agent));
    }
    if !has("accept") {
        head.push_str("Accept: */*\r\n");
    }
    for (n, v) in &req.headers {
        if overridden(n) || v.is_empty() && n.is_empty() {
            continue;
        }
        head.push_str(&format!("{n}: {v}\r\n"));
    }
    for h in injected {
        head.push_str(&format!("{}: {}\r\n", h.name, h.value()));
    }
    if let Some(body) = &req.body
        && !has("content-length")
    {
        head.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    head.push_str("\r\n");
    head.into_bytes()
}

fn connect(
    addrs: &[SocketAddr],
    host: &str,
    port: u16,
    connect_timeout: Duration,
    deadline: Deadline<'_>,
) -> Result<(TcpStream, SocketAddr), NetError> {
    for addr in addrs {
        if (deadline.cancelled)() {
            return Err(NetError::Cancelled);
        }
        let mut wait = connect_timeout;
        if let Some(left) = deadline.left() {
            wait = wait.min(left);
        }
        if wait.is_zero() {
            return Err(deadline.timeout_error(0));
        }
        match TcpStream::connect_timeout(addr, wait) {
            Ok(s) => {
                let _ = s.set_nodelay(true);
                return Ok((s, *addr));
            }
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {
                return Err(NetError::Timeout(format!(
                    "Failed to connect to {host} port {port} after {} ms: Timeout was reached",
                    deadline.started.elapsed().as_millis()
                )));
            }
            Err(_) => continue,
        }
    }
    Err(NetError::Connect {
        host: host.to_string(),
        port,
        ms: deadline.started.elapsed().as_millis(),
    })
}

fn tls_connect(
    config: Arc<rustls::ClientConfig>,
    host: &str,
    tcp: TcpStream,
) -> Result<rustls::StreamOwned<rustls::ClientConnection, TcpStream>, NetError> {
    let name =
        rustls_pki_types::ServerName::try_from(host.to_string()).map_err(|e| NetError::Tls {
            code: 35,
            message: format!("bad TLS server name {host}: {e}"),
        })?;
    let conn = rustls::ClientConnection::new(config, name).map_err(|e| NetError::Tls {
        code: 35,
        message: format!("TLS connect error: {e}"),
    })?;
    let mut stream = rustls::StreamOwned::new(conn, tcp);
    while stream.conn.is_handshaking() {
        stream.conn.complete_io(&mut stream.sock).map_err(|e| {
            let cert = e.to_string().contains("certificate");
            NetError::Tls {
                code: if cert { 60 } else { 35 },
                message: if cert {
                    format!("SSL certificate problem: {e}")
                } else {
                    format!("TLS connect error: {e}")
                },
            }
        })?;
    }
    Ok(stream)
}

fn set_read_timeout(
    conn: &Conn,
    read_timeout: Duration,
    deadline: Deadline<'_>,
) -> Result<(), NetError> {
    // Short slices so a cancelled run is noticed quickly.
    let mut wait = read_timeout.min(Duration::from_millis(200));
    if let Some(left) = deadline.left() {
        if left.is_zero() {
            return Err(deadline.timeout_error(0));
        }
        wait = wait.min(left);
    }
    conn.tcp()
        .set_read_timeout(Some(wait))
        .map_err(|e| NetError::Recv(e.to_string()))
}

fn io_error(
    e: std::io::Error,
    deadline: Deadline<'_>,
    got: usize,
    other: fn(String) -> NetError,
) -> NetError {
    match e.kind() {
        std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock => {
            deadline.timeout_error(got)
        }
        _ => other(e.to_string()),
    }
}

struct Reader<'a> {
    conn: Conn,
    buf: Vec<u8>,
    pos: usize,
    got: usize,
    read_timeout: Duration,
    deadline: Deadline<'a>,
    egress: &'a Egress,
}

impl Reader<'_> {
    /// Reads more bytes into the buffer; `Ok(0)` at end of stream.
    fn fill(&mut self) -> Result<usize, NetError> {
        let idle_since = Instant::now();
        let mut chunk = [0u8; 16 << 10];
        loop {
            if (self.deadline.cancelled)() {
                return Err(NetError::Cancelled);
            }
            set_read_timeout(&self.conn, self.read_timeout, self.deadline)?;
            match self.conn.read(&mut chunk) {
                Ok(n) => {
                    if n > 0 {
                        self.egress.count(|usage, limits| {
                            if usage.bytes_in + n as u64 > limits.max_bytes_in {
                                return Err(format!("{} bytes in", limits.max_bytes_in));
                            }
                            usage.bytes_in += n as u64;
                            Ok(())
                        })?;
                        if self.pos > 0 && self.pos == self.buf.len() {
                            self.buf.clear();
                            self.pos = 0;
                        }
                        self.buf.extend_from_slice(&chunk[..n]);
                        self.got += n;
                    }
                    return Ok(n);
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
                    ) =>
                {
                    if self.deadline.left().is_some_and(|l| l.is_zero())
                        || idle_since.elapsed() >= self.read_timeout
                    {
                        return Err(self.deadline.timeout_error(self.got));
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                // A TLS peer that closes without close_notify is an end of
                // stream as far as framing by close is concerned.
                Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(0),
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset && self.got > 0 => {
                    return Ok(0);
                }
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {
                    return Err(NetError::Recv("Connection reset by peer".into()));
                }
                Err(e) => return Err(NetError::Recv(e.to_string())),
            }
        }
    }

    fn head(&mut self) -> Result<Response, NetError> {
        loop {
            let avail = &self.buf[self.pos..];
            let mut headers = [httparse::EMPTY_HEADER; 128];
            let mut parsed = httparse::Response::new(&mut headers);
            match parsed.parse(avail) {
                Ok(httparse::Status::Complete(len)) => {
                    let status = parsed.code.unwrap_or(0);
                    let version = format!("HTTP/1.{}", parsed.version.unwrap_or(1));
                    let headers = parsed
                        .headers
                        .iter()
                        .map(|h| {
                            (
                                h.name.to_string(),
                                String::from_utf8_lossy(h.value).into_owned(),
                            )
                        })
                        .collect();
                    let head = avail[..len].to_vec();
                    self.pos += len;
                    return Ok(Response {
                        status,
                        version,
                        head,
                        headers,
                        ..Response::default()
                    });
                }
                Ok(httparse::Status::Partial) => {
                    if avail.len() > MAX_HEAD {
                        return Err(NetError::BadResponse("response head too large".into()));
                    }
                }
                Err(e) => {
                    return Err(NetError::BadResponse(if self.got == 0 {
                        "Empty reply from server".into()
                    } else {
                        format!("Weird server reply: {e}")
                    }));
                }
            }
            if self.fill()? == 0 {
                return Err(if self.buf.len() == self.pos && self.got == 0 {
                    NetError::EmptyReply
                } else {
                    NetError::BadResponse("Received HTTP/0.9 when not allowed".into())
                });
            }
        }
    }

    fn take(&mut self, n: usize) -> Vec<u8> {
        let out = self.buf[self.pos..self.pos + n].to_vec();
        self.pos += n;
        out
    }

    fn avail(&self) -> usize {
        self.buf.len() - self.pos
    }

    fn body(&mut self, response: &Response) -> Result<Vec<u8>, NetError> {
        let chunked = response
            .header("transfer-encoding")
            .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
        if chunked {
            return self.chunked();
        }
        if let Some(len) = response.header("content-length") {
            let len: usize = len
                .trim()
                .parse()
                .map_err(|_| NetError::BadResponse("Invalid Content-Length: value".into()))?;
            while self.avail() < len {
                if self.fill()? == 0 {
                    let remaining = (len - self.avail()) as u64;
                    let n = self.avail();
                    return Err(NetError::Partial {
                        remaining,
                        received: self.take(n),
                    });
                }
            }
            return Ok(self.take(len));
        }
        while self.fill()? > 0 {}
        let n = self.avail();
        Ok(self.take(n))
    }

    fn line(&mut self) -> Result<String, NetError> {
        loop {
            if let Some(i) = self.buf[self.pos..].iter().position(|&b| b == b'\n') {
                let line = self.take(i + 1);
                return Ok(String::from_utf8_lossy(&line).trim_end().to_string());
            }
            if self.fill()? == 0 {
                return Err(NetError::Partial {
                    remaining: 0,
                    received: Vec::new(),
                });
            }
        }
    }

    fn chunked(&mut self) -> Result<Vec<u8>, NetError> {
        let mut body = Vec::new();
        loop {
            let size_line = self.line()?;
            let size_text = size_line.split(';').next().unwrap_or("").trim();
            let size = usize::from_str_radix(size_text, 16).map_err(|_| {
                NetError::Recv("Malformed encoding found in chunked-encoding".into())
            })?;
            if size == 0 {
                // Trailers up to the blank line.
                while !self.line()?.is_empty() {}
                return Ok(body);
            }
            while self.avail() < size + 2 {
                if self.fill()? == 0 {
                    return Err(NetError::Partial {
                        remaining: (size + 2 - self.avail()) as u64,
                        received: Vec::new(),
                    });
                }
            }
            body.extend(self.take(size));
            self.take(2);
        }
    }
}
