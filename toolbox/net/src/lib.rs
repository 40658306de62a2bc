//! Network egress for sandkeep sandboxes, enforced on the host side.
//!
//! - [`policy`]: the allow-list (deny by default; `HOST`, `HOST:PORT`,
//!   `*.DOMAIN`, IP/CIDR, optional METHOD and path prefix);
//! - [`egress`]: the session's shared handle ([`Egress`]): policy, injected
//!   credentials, limits, resolver, TLS roots, the denial sink;
//! - [`http`]: the HTTP/1.1 client that checks every request, every
//!   redirect hop and every address it connects to;
//! - [`curl`] and [`wget`]: the local shell's commands over a `CommandCtx`,
//!   installed with [`install`];
//! - [`proxy`]: the same policy as an HTTP forward proxy with `CONNECT`
//!   tunnels checked on host and TLS SNI, for sandboxes that run real
//!   programs (the docker backend's way out, over a relay in the container);
//! - [`relay`]: the container side of that way out (a python3 relay over a
//!   `docker exec` stdio stream) and the host side that demultiplexes it;
//! - [`intercept`]: the per-sandbox CA that lets the proxy terminate TLS for
//!   hosts with an injected header (credentials into HTTPS);
//! - [`wrapper`]: the `curl`/`wget` a container runs, which show the proxy's
//!   refusals in the same words and status as the local backend.
//!
//! ```
//! use sandkeep_net::Egress;
//! use sandkeep_shell::{Shell, ShellConfig};
//!
//! let egress = Egress::allowing(["127.0.0.1:9"]).unwrap();
//! let shell = Shell::new(sandkeep_net::install(ShellConfig::default(), &egress));
//! let out = shell.run("curl -sS http://evil.example.com/; echo \"status $?\"", Default::default());
//! assert_eq!(String::from_utf8_lossy(&out.stdout), "status 56\n");
//! assert!(String::from_utf8_lossy(&out.stderr).contains("network policy denies evil.example.com:80"));
//! ```

pub mod curl;
pub mod egress;
pub mod http;
pub mod intercept;
pub mod policy;
pub mod proxy;
pub mod relay;
pub mod wget;
pub mod wrapper;

pub use egress::{
    Denial, DenialSink, Egress, HeaderError, InjectedHeader, NetLimits, NetUsage, Resolve,
    StaticResolver, SystemResolver,
};
pub use policy::{Policy, Rule, RuleError};

/// `config` with `curl` and `wget` going out through `egress`.
pub fn install(
    config: sandkeep_shell::ShellConfig,
    egress: &Egress,
) -> sandkeep_shell::ShellConfig {
    let for_curl = egress.clone();
    let for_wget = egress.clone();
    config
        .command("curl", move |ctx| curl::run(ctx, &for_curl))
        .command("wget", move |ctx| wget::run(ctx, &for_wget))
}
