//! The egress allow-list: rules (`HOST`, `HOST:PORT`, `*.DOMAIN`, `IP`,
//! `CIDR`, each optionally with a METHOD and a path prefix), parsing them from
//! the operator's words, and deciding for one request whether a rule allows
//! it. Deny by default.
//!
//! Two questions are kept apart on purpose: whether the *request* (what the
//! sandbox asked for: host as written, port, method, path) is allowed, and
//! whether the *address actually connected* is. A DNS name or a wildcard rule
//! never lets a connection reach a loopback, private, link-local or otherwise
//! non-public address (no DNS rebinding into the host's network); only an
//! explicit IP or CIDR rule allows such an address, and exactly that one.

use std::fmt;
use std::net::IpAddr;

use ipnet::IpNet;

/// Why a rule could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad network rule {rule:?}: {reason}")]
pub struct RuleError {
    /// The rule as given.
    pub rule: String,
    /// What is wrong with it.
    pub reason: String,
}

/// The host part of a rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostPattern {
    /// One DNS name, lowercase, without a trailing dot.
    Name(String),
    /// `*.DOMAIN`: every name strictly below DOMAIN (not DOMAIN itself).
    Below(String),
    /// An IP address or network: only requests to an IP literal in it, and
    /// connections to an address in it.
    Net(IpNet),
}

/// One allow rule, e.g. `GET api.example.com:443/v1/`.
///
/// ```
/// use sandkeep_net::Rule;
///
/// let rule: Rule = "GET api.example.com/v1/".parse().unwrap();
/// assert!(rule.allows_request("GET", "api.example.com", 443, "/v1/users"));
/// assert!(!rule.allows_request("POST", "api.example.com", 443, "/v1/users"));
/// assert!(!rule.allows_request("GET", "api.example.com", 443, "/v2/"));
/// assert!(!"*.example.com".parse::<Rule>().unwrap().allows_request("GET", "example.com", 80, "/"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// The HTTP method it is limited to (uppercase), if any.
    pub method: Option<String>,
    /// Which hosts.
    pub host: HostPattern,
    /// The port it is limited to, if any (else every port).
    pub port: Option<u16>,
    /// The path prefix it is limited to, if any (starts with `/`).
    pub path_prefix: Option<String>,
}

impl std::str::FromStr for Rule {
    type Err = RuleError;

    fn from_str(text: &str) -> Result<Rule, RuleError> {
        let err = |reason: &str| RuleError {
            rule: text.to_string(),
            reason: reason.to_string(),
        };
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return Err(err("empty rule"));
        }
        let (method, target) = match trimmed.split_once(char::is_whitespace) {
            Some((m, rest)) => {
                // Known methods only: a typo such as `ex ample.com` must not
                // quietly become a rule for method EX.
                const METHODS: [&str; 9] = [
                    "GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "CONNECT", "TRACE",
                ];
                if !METHODS.iter().any(|k| k.eq_ignore_ascii_case(m)) {
                    return Err(err(
                        "expected [METHOD] HOST[:PORT][/PATH] with METHOD one of GET, HEAD, POST, PUT, DELETE, PATCH, OPTIONS, CONNECT, TRACE",
                    ));
                }
                (Some(m.to_ascii_uppercase()), rest.trim())
            }
            None => (None, trimmed),
        };
        if target.contains(char::is_whitespace) {
            return Err(err("expected [METHOD] HOST[:PORT][/PATH]"));
        }
        let target = target
            .strip_prefix("http://")
            .or_else(|| target.strip_prefix("https://"))
            .unwrap_or(target);
        // CIDR first: `10.0.0.0/8` is a network, not host `10.0.0.0` + path `/8`.
        if let Ok(net) = target.parse::<IpNet>() {
            return Ok(Rule {
                method,
                host: HostPattern::Net(net),
                port: None,
                path_prefix: None,
            });
        }
        let (authority, path_prefix) = match target.find('/') {
            Some(i) => (&target[..i], Some(target[i..].to_string())),
            None => (target, None),
        };
        let (host, port) = split_host_port(authority).map_err(|r| err(&r))?;
        let host = if let Ok(ip) = host.parse::<IpAddr>() {
            HostPattern::Net(IpNet::from(ip))
        } else if let Some(domain) = host.strip_prefix("*.") {
            HostPattern::Below(valid_name(domain).map_err(|r| err(&r))?)
        } else {
            HostPattern::Name(valid_name(host).map_err(|r| err(&r))?)
        };
        Ok(Rule {
            method,
            host,
            port,
            path_prefix,
        })
    }
}

/// Splits `host`, `host:port`, `[v6]` or `[v6]:port`.
fn split_host_port(authority: &str) -> Result<(&str, Option<u16>), String> {
    let parse_port = |p: &str| {
        p.parse::<u16>()
            .ok()
            .filter(|p| *p != 0)
            .ok_or_else(|| format!("bad port {p:?}"))
    };
    if let Some(rest) = authority.strip_prefix('[') {
        let (host, after) = rest
            .split_once(']')
            .ok_or_else(|| "unclosed [".to_string())?;
        let port = match after {
            "" => None,
            p => Some(parse_port(
                p.strip_prefix(':')
                    .ok_or_else(|| "expected :PORT after ]".to_string())?,
            )?),
        };
        return Ok((host, port));
    }
    if authority.matches(':').count() > 1 {
        // A bare IPv6 address without a port.
        return Ok((authority, None));
    }
    match authority.split_once(':') {
        Some((h, p)) => Ok((h, Some(parse_port(p)?))),
        None => Ok((authority, None)),
    }
}

/// A DNS name in the form rules and requests compare: lowercase, no trailing dot.
fn valid_name(name: &str) -> Result<String, String> {
    let name = normalize_host(name);
    let ok = !name.is_empty()
        && name.len() <= 253
        && name.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        });
    if ok {
        Ok(name)
    } else {
        Err(format!("{name:?} is not a host name"))
    }
}

/// Lowercase, without a trailing dot (`Example.COM.` and `example.com` are one host).
pub fn normalize_host(host: &str) -> String {
    host.trim_end_matches('.').to_ascii_lowercase()
}

impl Rule {
    /// Whether this rule allows a request for `method host:port path`, `host`
    /// being the host as the URL names it (a name or an IP literal).
    pub fn allows_request(&self, method: &str, host: &str, port: u16, path: &str) -> bool {
        if let Some(m) = &self.method
            && !m.eq_ignore_ascii_case(method)
        {
            return false;
        }
        if self.port.is_some_and(|p| p != port) {
            return false;
        }
        if let Some(prefix) = &self.path_prefix
            && !path.starts_with(prefix.as_str())
        {
            return false;
        }
        let host = normalize_host(host.trim_start_matches('[').trim_end_matches(']'));
        match (&self.host, host.parse::<IpAddr>()) {
            (HostPattern::Net(net), Ok(ip)) => net.contains(&ip),
            (HostPattern::Name(name), Err(_)) => *name == host,
            (HostPattern::Below(domain), Err(_)) => host
                .strip_suffix(domain.as_str())
                .is_some_and(|head| head.len() > 1 && head.ends_with('.')),
            _ => false,
        }
    }

    /// Whether this rule explicitly allows connecting to `ip` on `port` (only
    /// IP and CIDR rules do).
    pub fn allows_address(&self, ip: IpAddr, port: u16) -> bool {
        matches!(&self.host, HostPattern::Net(net) if net.contains(&ip))
            && self.port.is_none_or(|p| p == port)
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(m) = &self.method {
            write!(f, "{m} ")?;
        }
        match &self.host {
            HostPattern::Name(n) => write!(f, "{n}")?,
            HostPattern::Below(d) => write!(f, "*.{d}")?,
            HostPattern::Net(net) if net.prefix_len() == net.max_prefix_len() => match net.addr() {
                IpAddr::V6(a) if self.port.is_some() => write!(f, "[{a}]")?,
                a => write!(f, "{a}")?,
            },
            HostPattern::Net(net) => write!(f, "{net}")?,
        }
        if let Some(p) = self.port {
            write!(f, ":{p}")?;
        }
        if let Some(p) = &self.path_prefix {
            write!(f, "{p}")?;
        }
        Ok(())
    }
}

/// Whether `ip` is an address a DNS name may lead to: not loopback,
/// private, link-local, unspecified, multicast, shared (CGNAT),
/// documentation or otherwise reserved.
///
/// ```
/// use sandkeep_net::policy::is_public;
/// assert!(is_public("93.184.216.34".parse().unwrap()));
/// assert!(!is_public("127.0.0.1".parse().unwrap()));
/// assert!(!is_public("169.254.169.254".parse().unwrap()));
/// assert!(!is_public("::ffff:10.0.0.1".parse().unwrap()));
/// ```
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            !(v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_multicast()
                || v4.is_broadcast()
                || v4.is_documentation()
                || o[0] == 0
                || (o[0] == 100 && (o[1] & 0xc0) == 64)
                || (o[0] == 192 && o[1] == 0 && o[2] == 0)
                || (o[0] == 198 && (o[1] & 0xfe) == 18)
                || o[0] >= 240)
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_public(IpAddr::V4(v4));
            }
            let s = v6.segments();
            !(v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (s[0] & 0xfe00) == 0xfc00
                || (s[0] & 0xffc0) == 0xfe80
                || (s[0] == 0x2001 && s[1] == 0x0db8)
                || (s[0] == 0x64 && s[1] == 0xff9b)
                || (s[0] == 0 && s[1] == 0 && s[2] == 0 && s[3] == 0 && s[4] == 0 && s[5] == 0))
        }
    }
}

/// A whole allow-list: deny by default, allow what any rule allows.
///
/// ```
/// use sandkeep_net::Policy;
///
/// let policy = Policy::parse(["api.example.com", "*.example.org:443", "127.0.0.1:8080"]).unwrap();
/// assert!(policy.allows_request("GET", "api.example.com", 443, "/"));
/// assert!(policy.allows_request("GET", "a.example.org", 443, "/"));
/// assert!(!policy.allows_request("GET", "a.example.org", 80, "/"));
/// assert!(!policy.allows_request("GET", "evil.com", 443, "/"));
/// assert_eq!(policy.to_string(), "api.example.com, *.example.org:443, 127.0.0.1:8080");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Policy {
    rules: Vec<Rule>,
}

impl Policy {
    /// The empty policy: everything denied.
    pub fn deny_all() -> Policy {
        Policy::default()
    }

    /// A policy from rule texts (one rule each; see [`Rule`]).
    pub fn parse<I, S>(rules: I) -> Result<Policy, RuleError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let rules = rules
            .into_iter()
            .map(|r| r.as_ref().parse())
            .collect::<Result<Vec<Rule>, _>>()?;
        Ok(Policy { rules })
    }

    /// A policy from a comma-separated list (`SANDKEEP_ALLOW_NET`); blank
    /// items are ignored.
    pub fn parse_list(list: &str) -> Result<Policy, RuleError> {
        Policy::parse(list.split(',').map(str::trim).filter(|s| !s.is_empty()))
    }

    /// Adds one rule.
    pub fn allow(&mut self, rule: Rule) {
        if !self.rules.contains(&rule) {
            self.rules.push(rule);
        }
    }

    /// The rules, in the order given.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// Whether nothing is allowed.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// The first rule that allows the request, if any.
    pub fn matching_rule(&self, method: &str, host: &str, port: u16, path: &str) -> Option<&Rule> {
        self.rules
            .iter()
            .find(|r| r.allows_request(method, host, port, path))
    }

    /// Whether any rule allows the request.
    pub fn allows_request(&self, method: &str, host: &str, port: u16, path: &str) -> bool {
        self.matching_rule(method, host, port, path).is_some()
    }

    /// Whether a connection to `ip:port` is allowed for a request whose URL
    /// named `host_is_ip` (an IP literal, already allowed by a rule) or a DNS
    /// name: public addresses are fine for names; any other address needs an
    /// explicit IP/CIDR rule.
    pub fn allows_address(&self, ip: IpAddr, port: u16, host_is_ip: bool) -> bool {
        if self.rules.iter().any(|r| r.allows_address(ip, port)) {
            return true;
        }
        !host_is_ip && is_public(ip)
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.rules.is_empty() {
            return write!(f, "nothing");
        }
        for (i, r) in self.rules.iter().enumerate() {
            if i > 0 {
                write!(f, ", ")?;
            }
            write!(f, "{r}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(rules: &[&str]) -> Policy {
        Policy::parse(rules).unwrap()
    }

    #[test]
    fn deny_by_default() {
        let policy = Policy::deny_all();
        assert!(!policy.allows_request("GET", "example.com", 80, "/"));
        assert_eq!(policy.to_string(), "nothing");
    }

    #[test]
    fn names_ports_and_case() {
        let policy = p(&["Example.COM.", "api.example.net:8443"]);
        assert!(policy.allows_request("GET", "EXAMPLE.com", 80, "/"));
        assert!(policy.allows_request("GET", "example.com.", 443, "/x"));
        assert!(!policy.allows_request("GET", "sub.example.com", 80, "/"));
        assert!(!policy.allows_request("GET", "example.com.evil.org", 80, "/"));
        assert!(policy.allows_request("GET", "api.example.net", 8443, "/"));
        assert!(!policy.allows_request("GET", "api.example.net", 443, "/"));
    }

    #[test]
    fn wildcard_is_strictly_below() {
        let policy = p(&["*.example.org"]);
        assert!(policy.allows_request("GET", "a.example.org", 443, "/"));
        assert!(policy.allows_request("GET", "a.b.example.org", 443, "/"));
        assert!(!policy.allows_request("GET", "example.org", 443, "/"));
        assert!(!policy.allows_request("GET", "badexample.org", 443, "/"));
    }

    #[test]
    fn ip_and_cidr_rules_match_literals_only() {
        let policy = p(&["127.0.0.1:8080", "10.0.0.0/8", "[::1]:9000"]);
        assert!(policy.allows_request("GET", "127.0.0.1", 8080, "/"));
        assert!(!policy.allows_request("GET", "127.0.0.1", 8081, "/"));
        assert!(!policy.allows_request("GET", "localhost", 8080, "/"));
        assert!(policy.allows_request("GET", "10.2.3.4", 22, "/"));
        assert!(policy.allows_request("GET", "[::1]", 9000, "/"));
        assert!(policy.allows_address("127.0.0.1".parse().unwrap(), 8080, true));
        assert!(!policy.allows_address("127.0.0.2".parse().unwrap(), 8080, true));
    }

    #[test]
    fn names_never_reach_private_addresses() {
        let policy = p(&["internal.example.com", "*.example.com"]);
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "192.168.1.1",
            "169.254.169.254",
            "::1",
            "fe80::1",
            "0.0.0.0",
            "100.64.0.1",
            "::ffff:127.0.0.1",
        ] {
            assert!(
                !policy.allows_address(ip.parse().unwrap(), 80, false),
                "{ip}"
            );
        }
        assert!(policy.allows_address("93.184.216.34".parse().unwrap(), 80, false));
    }

    #[test]
    fn method_and_path() {
        let policy = p(&["get api.example.com/v1/"]);
        assert_eq!(policy.to_string(), "GET api.example.com/v1/");
        assert!(policy.allows_request("GET", "api.example.com", 443, "/v1/x"));
        assert!(!policy.allows_request("DELETE", "api.example.com", 443, "/v1/x"));
        assert!(!policy.allows_request("GET", "api.example.com", 443, "/v10"));
    }

    #[test]
    fn bad_rules_are_errors() {
        for bad in [
            "",
            "a b c",
            "host:0",
            "host:99999",
            "ex ample.com",
            "[::1",
            "G3T host",
            "*.",
            "-:80x",
        ] {
            assert!(bad.parse::<Rule>().is_err(), "{bad:?} parsed");
        }
        assert_eq!(
            Policy::parse_list(" a.com, ,b.com:81 ")
                .unwrap()
                .rules()
                .len(),
            2
        );
    }
}
