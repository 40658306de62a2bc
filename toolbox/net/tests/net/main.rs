//! The egress crate's integration tests in one binary (one link instead of
//! three): `attacks` (the policy tested as an attacker would), `curl_diff`
//! (our `curl`/`wget` against Debian's tools on one loopback server) and
//! `proxy` (the host-side egress proxy with Debian's curl), over the shared
//! test server and runners in `tests/support`. Select one by module path:
//!
//! ```text
//! cargo test --release -p sandkeep-net --test net curl_diff::
//! ```

#[path = "../support/mod.rs"]
mod support;

mod attacks;
mod curl_diff;
mod proxy;
