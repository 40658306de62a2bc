//! The differential suite of the local `curl` and `wget`: every case in
//! `tests/curl_cases/*.txt` runs in our shell (through an [`Egress`] that
//! allows 127.0.0.1 and pins `*.invalid` names to no address) and in the
//! host's bash with Debian's curl and wget, both against the same
//! [`TestServer`] on 127.0.0.1; stdout, stderr (timings normalized) and the
//! exit status must match. Scripts see `$URL` (the server) and `$DEAD` (a
//! port where nothing listens).
//!
//! Run: `cargo test --release -p sandkeep-net --test net curl_diff::`.

use crate::support;

use std::path::Path;
use std::sync::Arc;

use sandkeep_net::{Egress, StaticResolver};
use support::server::{TestServer, dead_port};

#[test]
fn curl_and_wget_match_the_real_tools() {
    if !(support::host_has("curl") && support::host_has("wget")) {
        if std::env::var_os("CI").is_some() {
            panic!("curl and wget are required (apt-get install -y curl wget)");
        }
        eprintln!("skipped: the host has no curl or wget");
        return;
    }
    let server = TestServer::start();
    let env = vec![
        ("URL".to_string(), server.url()),
        (
            "DEAD".to_string(),
            format!("http://127.0.0.1:{}", dead_port()),
        ),
    ];
    // `connect.test` is only ever connected to through `--connect-to`.
    let egress = Egress::allowing(["127.0.0.1", "nosuch.invalid", "connect.test"]).unwrap();
    egress.set_resolver(Arc::new(StaticResolver::new()));
    let cases = support::load_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/curl_cases"));
    let only = std::env::var("CASE").ok();
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    let mut report = String::new();
    for case in &cases {
        if only
            .as_ref()
            .is_some_and(|o| !case.label.contains(o.as_str()))
        {
            continue;
        }
        if case.skip.is_some() {
            skipped += 1;
            continue;
        }
        let ours = support::run_ours(&case.script, &env, &egress);
        let host = support::run_host(&case.script, &env);
        let norm = |o: &support::Outcome| {
            (
                o.status,
                support::normalize(&o.stdout),
                support::normalize(&o.stderr),
            )
        };
        if norm(&ours) == norm(&host) {
            passed += 1;
        } else {
            failed += 1;
            report.push_str(&format!(
                "--- {}\n{}  ours: {:?}\n  host: {:?}\n",
                case.label,
                case.script,
                norm(&ours),
                norm(&host)
            ));
        }
    }
    eprintln!(
        "{report}curl/wget differential: {passed} passed, {failed} failed, {skipped} skipped"
    );
    assert_eq!(failed, 0, "{report}");
    if only.is_none() {
        assert!(passed >= 80, "only {passed} cases ran");
    }
}
