//! The session's egress handle ([`Egress`]): the policy, the injected headers,
//! the limits and their counters, the resolver and the TLS roots, shared by
//! every command of a session behind one `Arc` so the operator can change the
//! policy while the session runs (tighten it after dependencies are in).
//!
//! Also the injected-header rules (`--net-header 'HOST[:PORT]=Name: VALUE'`):
//! their values are expanded from the host environment once, when sandkeep
//! starts, and live only here, on the host side.

use std::collections::VecDeque;
use std::fmt;
use std::net::{IpAddr, SocketAddr, ToSocketAddrs};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use crate::policy::{Policy, Rule, RuleError, normalize_host};

/// A header the host side adds to requests for one host; the value is a secret.
#[derive(Clone, PartialEq, Eq)]
pub struct InjectedHeader {
    /// The host (lowercase) it is added for.
    pub host: String,
    /// The port it is limited to, if any.
    pub port: Option<u16>,
    /// The header name.
    pub name: String,
    value: String,
}

impl fmt::Debug for InjectedHeader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InjectedHeader")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("name", &self.name)
            .field("value", &"<redacted>")
            .finish()
    }
}

/// Why a `--net-header` could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HeaderError {
    /// Not `HOST[:PORT]=Name: VALUE`.
    #[error("bad --net-header {0:?}: expected 'HOST[:PORT]=Header-Name: VALUE'")]
    Shape(String),
    /// `${NAME}` names a variable the host environment does not have.
    #[error("--net-header for {host}: the environment variable {name} is not set")]
    Unset {
        /// The header's host.
        host: String,
        /// The missing variable.
        name: String,
    },
}

impl InjectedHeader {
    /// Parses `HOST[:PORT]=Header-Name: VALUE`, replacing each `${NAME}` in
    /// VALUE by `lookup(NAME)` (the host environment, read once at start).
    ///
    /// ```
    /// use sandkeep_net::InjectedHeader;
    ///
    /// let h = InjectedHeader::parse("api.example.com=Authorization: Bearer ${TOKEN}", |n| {
    ///     (n == "TOKEN").then(|| "s3cret".to_string())
    /// })
    /// .unwrap();
    /// assert_eq!((h.host.as_str(), h.name.as_str(), h.value()), ("api.example.com", "Authorization", "Bearer s3cret"));
    /// assert!(!format!("{h:?}").contains("s3cret"));
    /// assert!(InjectedHeader::parse("a.com=X: ${NOPE}", |_| None).is_err());
    /// ```
    pub fn parse(
        text: &str,
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<InjectedHeader, HeaderError> {
        let shape = || HeaderError::Shape(text.to_string());
        let (target, header) = text.split_once('=').ok_or_else(shape)?;
        let (name, raw_value) = header.split_once(':').ok_or_else(shape)?;
        let name = name.trim();
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_graphic() && b != b':') {
            return Err(shape());
        }
        let rule: Rule = target.trim().parse().map_err(|_| shape())?;
        let host = match &rule.host {
            crate::policy::HostPattern::Name(n) => n.clone(),
            crate::policy::HostPattern::Net(net) if net.prefix_len() == net.max_prefix_len() => {
                net.addr().to_string()
            }
            _ => return Err(shape()),
        };
        if rule.method.is_some() || rule.path_prefix.is_some() {
            return Err(shape());
        }
        let mut value = String::new();
        let mut rest = raw_value.trim();
        while let Some(start) = rest.find("${") {
            value.push_str(&rest[..start]);
            let after = &rest[start + 2..];
            let end = after.find('}').ok_or_else(shape)?;
            let var = &after[..end];
            let got = lookup(var).ok_or_else(|| HeaderError::Unset {
                host: host.clone(),
                name: var.to_string(),
            })?;
            value.push_str(&got);
            rest = &after[end + 1..];
        }
        value.push_str(rest);
        if value.bytes().any(|b| b == b'\r' || b == b'\n' || b == 0) {
            return Err(shape());
        }
        Ok(InjectedHeader {
            host,
            port: rule.port,
            name: name.to_string(),
            value,
        })
    }

    /// The secret value (host side only).
    pub fn value(&self) -> &str {
        &self.value
    }

    /// Whether it goes on a request to `host:port`.
    pub fn applies_to(&self, host: &str, port: u16) -> bool {
        normalize_host(host.trim_start_matches('[').trim_end_matches(']')) == self.host
            && self.port.is_none_or(|p| p == port)
    }
}

/// Limits of one session's network use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetLimits {
    /// Requests allowed (every redirect hop and retry counts).
    pub max_requests: u64,
    /// Response bytes (head and body) allowed in.
    pub max_bytes_in: u64,
    /// Request bytes (head and body) allowed out.
    pub max_bytes_out: u64,
    /// Time to open a connection (TCP, then TLS).
    pub connect_timeout: Duration,
    /// Longest wait for the next bytes of a response.
    pub read_timeout: Duration,
}

impl Default for NetLimits {
    fn default() -> NetLimits {
        NetLimits {
            max_requests: 1000,
            max_bytes_in: 256 << 20,
            max_bytes_out: 64 << 20,
            connect_timeout: Duration::from_secs(10),
            read_timeout: Duration::from_secs(30),
        }
    }
}

/// What was used so far against [`NetLimits`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NetUsage {
    /// Requests sent (or attempted).
    pub requests: u64,
    /// Response bytes received.
    pub bytes_in: u64,
    /// Request bytes sent.
    pub bytes_out: u64,
}

/// One refused request, as the event log records it (no header values).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Denial {
    /// The host as the sandbox named it.
    pub host: String,
    /// The port.
    pub port: u16,
    /// The method.
    pub method: String,
    /// Why: which check refused it.
    pub reason: String,
    /// The policy in force, as text (`allowed: ...`).
    pub allowed: String,
    /// Whose request it was ([`Egress::scoped`]): a session id, if set.
    pub scope: Option<String>,
}

/// Turns a host name into addresses. The default asks the host's resolver;
/// tests and embedders can pin names (`--resolve`-style) so no DNS is used.
pub trait Resolve: Send + Sync {
    /// The addresses of `host` for `port`, or an error when it has none.
    fn resolve(&self, host: &str, port: u16) -> std::io::Result<Vec<SocketAddr>>;
}

/// The host's resolver (`getaddrinfo`).
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemResolver;

impl Resolve for SystemResolver {
    fn resolve(&self, host: &str, port: u16) -> std::io::Result<Vec<SocketAddr>> {
        Ok((host, port).to_socket_addrs()?.collect())
    }
}

/// A fixed table of names; unknown names do not resolve (no DNS query).
#[derive(Debug, Default, Clone)]
pub struct StaticResolver {
    names: Vec<(String, IpAddr)>,
}

impl StaticResolver {
    /// An empty table.
    pub fn new() -> StaticResolver {
        StaticResolver::default()
    }

    /// Adds `name -> ip`.
    pub fn with(mut self, name: &str, ip: IpAddr) -> StaticResolver {
        self.names.push((normalize_host(name), ip));
        self
    }
}

impl Resolve for StaticResolver {
    fn resolve(&self, host: &str, port: u16) -> std::io::Result<Vec<SocketAddr>> {
        let host = normalize_host(host);
        let found: Vec<SocketAddr> = self
            .names
            .iter()
            .filter(|(n, _)| *n == host)
            .map(|(_, ip)| SocketAddr::new(*ip, port))
            .collect();
        if found.is_empty() {
            Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "no such host",
            ))
        } else {
            Ok(found)
        }
    }
}

/// Called once per denial (the runtime writes an event-log record).
pub type DenialSink = Arc<dyn Fn(&Denial) + Send + Sync>;

pub(crate) struct EgressInner {
    pub(crate) policy: RwLock<Policy>,
    pub(crate) headers: RwLock<Vec<InjectedHeader>>,
    pub(crate) limits: RwLock<NetLimits>,
    pub(crate) resolver: RwLock<Arc<dyn Resolve>>,
    /// The TLS client configuration; `None` until the first `https` request
    /// or [`Egress::add_ca_pem`] (building it costs a start that never
    /// connects anywhere).
    pub(crate) tls: RwLock<Option<Arc<rustls::ClientConfig>>>,
    pub(crate) on_denial: RwLock<Option<DenialSink>>,
    /// Refusals kept for the in-container `curl`/`wget` wrappers to show
    /// ([`Egress::note_verdict`]): (run token, message), oldest first.
    pub(crate) verdicts: Mutex<VecDeque<(String, String)>>,
}

/// Most refusals kept for wrappers that have not asked for them yet.
const MAX_VERDICTS: usize = 256;

/// A session's network egress: the policy and everything that enforces it.
/// Clones share one state, so a change made through any clone (a new policy,
/// a tightened limit) applies to the next request of every command. The
/// usage counted against the limits belongs to a handle and its clones:
/// [`Egress::scoped`] starts a fresh count (one per sandbox), and the
/// backends call [`Egress::reset_usage`] when a run starts, so the limits
/// are per run.
///
/// ```
/// use sandkeep_net::{Egress, Policy};
///
/// let egress = Egress::new(Policy::parse(["pypi.org", "files.pythonhosted.org"]).unwrap());
/// let shared = egress.clone();
/// assert!(shared.policy().allows_request("GET", "pypi.org", 443, "/simple/"));
/// // Dependencies are in: nothing more goes out.
/// egress.set_policy(Policy::deny_all());
/// assert!(!shared.policy().allows_request("GET", "pypi.org", 443, "/simple/"));
/// ```
#[derive(Clone)]
pub struct Egress {
    pub(crate) inner: Arc<EgressInner>,
    pub(crate) usage: Arc<Mutex<NetUsage>>,
    scope: Option<Arc<str>>,
}

impl fmt::Debug for Egress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Egress")
            .field("policy", &self.policy().to_string())
            .field(
                "headers",
                &self.inner.headers.read().map(|h| h.len()).unwrap_or(0),
            )
            .finish_non_exhaustive()
    }
}

impl Default for Egress {
    fn default() -> Egress {
        Egress::new(Policy::deny_all())
    }
}

fn read<T: Clone>(lock: &RwLock<T>) -> T {
    lock.read().unwrap_or_else(|e| e.into_inner()).clone()
}

fn write<T>(lock: &RwLock<T>, value: T) {
    *lock.write().unwrap_or_else(|e| e.into_inner()) = value;
}

impl Egress {
    /// Egress under `policy`, the default limits, the host resolver and the
    /// webpki roots.
    pub fn new(policy: Policy) -> Egress {
        Egress {
            inner: Arc::new(EgressInner {
                policy: RwLock::new(policy),
                headers: RwLock::new(Vec::new()),
                limits: RwLock::new(NetLimits::default()),
                resolver: RwLock::new(Arc::new(SystemResolver)),
                tls: RwLock::new(None),
                on_denial: RwLock::new(None),
                verdicts: Mutex::new(VecDeque::new()),
            }),
            usage: Arc::new(Mutex::new(NetUsage::default())),
            scope: None,
        }
    }

    /// The same egress (one policy, one set of headers and limits), whose
    /// denials carry `scope` (a session id) so the sink can file them under
    /// it, with usage counters of its own (one sandbox's use never counts
    /// against another's limits).
    ///
    /// ```
    /// use sandkeep_net::Egress;
    ///
    /// let egress = Egress::allowing(["example.org"]).unwrap();
    /// let a = egress.scoped("session-a");
    /// assert_eq!(a.scope(), Some("session-a"));
    /// assert_eq!(a.usage(), Default::default());
    /// ```
    pub fn scoped(&self, scope: &str) -> Egress {
        Egress {
            inner: self.inner.clone(),
            usage: Arc::new(Mutex::new(NetUsage::default())),
            scope: Some(Arc::from(scope)),
        }
    }

    /// The scope of this handle, if any.
    pub fn scope(&self) -> Option<&str> {
        self.scope.as_deref()
    }

    /// Egress under the rules `rules` (see [`Rule`]).
    pub fn allowing<I, S>(rules: I) -> Result<Egress, RuleError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        Ok(Egress::new(Policy::parse(rules)?))
    }

    /// The policy in force.
    pub fn policy(&self) -> Policy {
        read(&self.inner.policy)
    }

    /// Replaces the policy; the next request of every command sees it.
    pub fn set_policy(&self, policy: Policy) {
        write(&self.inner.policy, policy);
    }

    /// Replaces the injected headers.
    pub fn set_headers(&self, headers: Vec<InjectedHeader>) {
        write(&self.inner.headers, headers);
    }

    /// The injected headers (host side only).
    pub fn headers(&self) -> Vec<InjectedHeader> {
        read(&self.inner.headers)
    }

    /// The limits in force.
    pub fn limits(&self) -> NetLimits {
        read(&self.inner.limits)
    }

    /// Replaces the limits (the usage counted so far stays).
    pub fn set_limits(&self, limits: NetLimits) {
        write(&self.inner.limits, limits);
    }

    /// What this handle (and its clones) used so far.
    pub fn usage(&self) -> NetUsage {
        *self.usage.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Starts counting afresh: the backends call it when a run starts.
    pub fn reset_usage(&self) {
        *self.usage.lock().unwrap_or_else(|e| e.into_inner()) = NetUsage::default();
    }

    /// Keeps `message` (a refusal's words) for the wrapper that runs under
    /// `token`, until it asks with [`Egress::take_verdicts`]. At most
    /// [`MAX_VERDICTS`] are kept; the oldest go first.
    pub fn note_verdict(&self, token: &str, message: &str) {
        let mut kept = self
            .inner
            .verdicts
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if kept.len() >= MAX_VERDICTS {
            kept.pop_front();
        }
        kept.push_back((token.to_string(), message.to_string()));
    }

    /// The refusals noted for `token` since it last asked, oldest first.
    ///
    /// ```
    /// use sandkeep_net::Egress;
    ///
    /// let egress = Egress::default();
    /// egress.note_verdict("run-1", "sandkeep: network policy denies a.test:80");
    /// assert_eq!(egress.take_verdicts("run-2"), Vec::<String>::new());
    /// assert_eq!(egress.take_verdicts("run-1"), ["sandkeep: network policy denies a.test:80"]);
    /// assert!(egress.take_verdicts("run-1").is_empty());
    /// ```
    pub fn take_verdicts(&self, token: &str) -> Vec<String> {
        let mut kept = self
            .inner
            .verdicts
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let mut taken = Vec::new();
        kept.retain(|(t, m)| {
            if t == token {
                taken.push(m.clone());
                false
            } else {
                true
            }
        });
        taken
    }

    /// Uses `resolver` for host names.
    pub fn set_resolver(&self, resolver: Arc<dyn Resolve>) {
        write(&self.inner.resolver, resolver);
    }

    /// Trusts the PEM certificates in `pem` in addition to the webpki roots
    /// (a company CA, or a test server's).
    pub fn add_ca_pem(&self, pem: &[u8]) -> Result<usize, String> {
        use rustls_pki_types::pem::PemObject;
        let mut roots = rustls::RootCertStore {
            roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        };
        let mut added = 0;
        for cert in rustls_pki_types::CertificateDer::pem_slice_iter(pem) {
            let cert = cert.map_err(|e| format!("bad PEM: {e}"))?;
            roots
                .add(cert)
                .map_err(|e| format!("bad CA certificate: {e}"))?;
            added += 1;
        }
        write(&self.inner.tls, Some(Arc::new(tls_config(roots))));
        Ok(added)
    }

    /// The TLS client configuration, built with the webpki roots on first use.
    pub(crate) fn tls(&self) -> Arc<rustls::ClientConfig> {
        let mut tls = self.inner.tls.write().unwrap_or_else(|e| e.into_inner());
        tls.get_or_insert_with(|| {
            Arc::new(tls_config(rustls::RootCertStore {
                roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
            }))
        })
        .clone()
    }

    /// Calls `sink` once for every refused request.
    pub fn on_denial(&self, sink: DenialSink) {
        write(&self.inner.on_denial, Some(sink));
    }

    pub(crate) fn report_denial(&self, denial: &Denial) {
        if let Some(sink) = read(&self.inner.on_denial) {
            sink(denial);
        }
    }
}

fn tls_config(roots: rustls::RootCertStore) -> rustls::ClientConfig {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map(|b| b.with_root_certificates(roots).with_no_client_auth())
        .unwrap_or_else(|_| {
            // The ring provider supports the default versions; this branch
            // only keeps a misbuilt provider from panicking.
            rustls::ClientConfig::builder_with_provider(Arc::new(
                rustls::crypto::ring::default_provider(),
            ))
            .with_protocol_versions(&[&rustls::version::TLS13])
            .map(|b| {
                b.with_root_certificates(rustls::RootCertStore::empty())
                    .with_no_client_auth()
            })
            .unwrap_or_else(|e| unreachable!("ring supports TLS 1.3: {e}"))
        })
}
