//! The policy tested the way an attacker would: denied hosts, redirects out
//! of the allow-list, IP literals and names that lead to denied addresses,
//! a policy tightened mid-session, limits, and an injected credential that
//! reaches the server while the sandbox sees no trace of it. Everything talks
//! to a test server on 127.0.0.1 only; names are pinned with a
//! [`StaticResolver`], so no DNS query leaves the machine.
//!
//! Run: `cargo test --release -p sandkeep-net --test net attacks::`.

use crate::support;

use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use sandkeep_net::{Denial, Egress, InjectedHeader, NetLimits, Policy, StaticResolver};
use support::server::TestServer;

fn env(server: &TestServer) -> Vec<(String, String)> {
    vec![("URL".to_string(), server.url())]
}

fn loopback() -> IpAddr {
    "127.0.0.1".parse().unwrap()
}

/// An egress allowing `rules`, names pinned, denials collected.
fn egress(rules: &[&str]) -> (Egress, Arc<Mutex<Vec<Denial>>>) {
    let egress = Egress::allowing(rules).unwrap();
    egress.set_resolver(Arc::new(
        StaticResolver::new()
            .with("internal.test", loopback())
            .with("public.test", "93.184.216.34".parse().unwrap()),
    ));
    let denials = Arc::new(Mutex::new(Vec::new()));
    let sink = denials.clone();
    egress.on_denial(Arc::new(move |d: &Denial| {
        sink.lock().unwrap().push(d.clone())
    }));
    (egress, denials)
}

#[test]
fn allowed_host_answers_and_denied_host_explains_itself() {
    let server = TestServer::start();
    let port = server.addr.port();
    let rule = format!("127.0.0.1:{port}");
    let (egress, denials) = egress(&[&rule, "*.example.org"]);
    let out = support::run_ours("curl -s \"$URL/text\"", &env(&server), &egress);
    assert_eq!((out.status, out.stdout.as_str()), (0, "hello world\n"));

    let out = support::run_ours(
        "curl -s https://api.evil.com/; echo \"rc=$?\"",
        &env(&server),
        &egress,
    );
    assert_eq!(out.stdout, "rc=56\n");
    assert_eq!(
        out.stderr,
        format!(
            "curl: (56) sandkeep: network policy denies api.evil.com:443 (allowed: 127.0.0.1:{port}, *.example.org); ask the operator to add it\n"
        ),
        "the denial is shown even with -s"
    );
    let out = support::run_ours(
        "wget -q -O - http://api.evil.com/; echo \"rc=$?\"",
        &env(&server),
        &egress,
    );
    assert_eq!(out.stdout, "rc=4\n");
    assert!(
        out.stderr
            .starts_with("wget: sandkeep: network policy denies api.evil.com:80 (allowed: "),
        "{}",
        out.stderr
    );
    let d = denials.lock().unwrap().clone();
    assert_eq!(d.len(), 2, "one record per denial: {d:?}");
    assert_eq!((d[0].host.as_str(), d[0].port), ("api.evil.com", 443));
    // Another port on the allowed address is another service: denied.
    let out = support::run_ours(
        &format!(
            "curl -s http://127.0.0.1:{}/; echo $?",
            port.wrapping_add(1).max(1)
        ),
        &[],
        &egress,
    );
    assert_eq!(out.stdout, "56\n");
    assert!(
        server.seen().iter().all(|s| s.target == "/text"),
        "nothing else reached the server"
    );
}

#[test]
fn redirect_from_allowed_to_denied_is_refused() {
    let server = TestServer::start();
    let port = server.addr.port();
    let (egress, denials) = egress(&[&format!("127.0.0.1:{port}")]);
    // The server is allowed; where it points is not.
    let script =
        "curl -sS -L \"$URL/to?url=http://169.254.169.254/latest/meta-data/\"; echo \"rc=$?\"";
    let out = support::run_ours(script, &env(&server), &egress);
    assert_eq!(out.stdout, "rc=56\n");
    assert!(
        out.stderr
            .contains("network policy denies 169.254.169.254:80"),
        "{}",
        out.stderr
    );
    let out = support::run_ours(
        "wget -q -O - \"$URL/to?url=http://api.evil.com/x\"; echo \"rc=$?\"",
        &env(&server),
        &egress,
    );
    assert_eq!(out.stdout, "rc=4\n");
    assert_eq!(denials.lock().unwrap().len(), 2);
    // A redirect that stays on the allowed host is followed.
    let out = support::run_ours("curl -s -L \"$URL/redirect/2\"", &env(&server), &egress);
    assert_eq!(out.stdout, "arrived\n");
}

#[test]
fn names_never_lead_to_private_addresses() {
    let server = TestServer::start();
    let port = server.addr.port();
    // A name (and a wildcard) is allowed, but it resolves to loopback: that
    // would be DNS rebinding into the host's network.
    let (egress, denials) = egress(&["internal.test", "*.test"]);
    let out = support::run_ours(
        &format!("curl -sS http://internal.test:{port}/text; echo \"rc=$?\""),
        &[],
        &egress,
    );
    assert_eq!(out.stdout, "rc=56\n");
    assert!(
        out.stderr.contains(&format!(
            "denies internal.test:{port} (resolves to 127.0.0.1, not a public address"
        )),
        "{}",
        out.stderr
    );
    // An IP literal needs an IP rule: a name rule does not cover it.
    let out = support::run_ours(
        &format!("curl -s http://127.0.0.1:{port}/text; echo \"rc=$?\""),
        &[],
        &egress,
    );
    assert_eq!(out.stdout, "rc=56\n");
    // Other spellings of loopback are IP literals too.
    for host in [
        "127.1",
        "2130706433",
        "0x7f000001",
        "[::ffff:127.0.0.1]",
        "[::1]",
        "0.0.0.0",
        "localhost",
    ] {
        let out = support::run_ours(
            &format!("curl -s http://{host}:{port}/text; echo \"rc=$?\""),
            &[],
            &egress,
        );
        assert_eq!(out.stdout, "rc=56\n", "{host}: {out:?}");
    }
    assert!(
        server.seen().is_empty(),
        "nothing reached the server: {:?}",
        server.seen()
    );
    assert_eq!(denials.lock().unwrap().len(), 9);
    // With an explicit IP rule the same service answers.
    egress.set_policy(Policy::parse([format!("127.0.0.1:{port}")]).unwrap());
    let out = support::run_ours(
        &format!("curl -s http://127.0.0.1:{port}/text"),
        &[],
        &egress,
    );
    assert_eq!(out.stdout, "hello world\n");
}

#[test]
fn policy_tightens_while_the_session_runs() {
    let server = TestServer::start();
    let (egress, _) = egress(&["127.0.0.1"]);
    let shell = sandkeep_shell::Shell::new(sandkeep_net::install(
        sandkeep_shell::ShellConfig::default(),
        &egress,
    ));
    let opts = || sandkeep_shell::RunOptions {
        env: env(&server),
        ..Default::default()
    };
    let out = shell.run("curl -s \"$URL/text\"", opts());
    assert_eq!(out.stdout, b"hello world\n");
    egress.set_policy(Policy::deny_all());
    let out = shell.run("curl -s \"$URL/text\"; echo $?", opts());
    assert_eq!(String::from_utf8_lossy(&out.stdout), "56\n");
    assert!(String::from_utf8_lossy(&out.stderr).contains("(allowed: nothing)"));
}

#[test]
fn method_and_path_rules() {
    let server = TestServer::start();
    let port = server.addr.port();
    let (egress, _) = egress(&[&format!("GET 127.0.0.1:{port}/echo/")]);
    let e = env(&server);
    assert_eq!(
        support::run_ours("curl -s \"$URL/echo/method\"", &e, &egress).stdout,
        "GET\n"
    );
    assert_eq!(
        support::run_ours("curl -s -X POST \"$URL/echo/method\"; echo $?", &e, &egress).stdout,
        "56\n"
    );
    assert_eq!(
        support::run_ours("curl -s \"$URL/text\"; echo $?", &e, &egress).stdout,
        "56\n"
    );
}

#[test]
fn limits_stop_requests_and_bytes() {
    let server = TestServer::start();
    let (egress, _) = egress(&["127.0.0.1"]);
    egress.set_limits(NetLimits {
        max_requests: 2,
        ..NetLimits::default()
    });
    let out = support::run_ours(
        "for i in 1 2 3; do curl -sS \"$URL/text\"; done",
        &env(&server),
        &egress,
    );
    assert_eq!(out.stdout, "hello world\nhello world\n");
    assert!(
        out.stderr.contains("network limit reached: 2 requests"),
        "{}",
        out.stderr
    );
    egress.reset_usage();
    egress.set_limits(NetLimits {
        max_bytes_in: 10_000,
        ..NetLimits::default()
    });
    let out = support::run_ours(
        "curl -sS -o big \"$URL/bytes/50000\"; echo $?; ls big 2>&1",
        &env(&server),
        &egress,
    );
    assert!(out.stdout.starts_with("56\n"), "{out:?}");
    assert!(out.stderr.contains("10000 bytes in"), "{}", out.stderr);
}

#[test]
fn downloads_respect_the_filesystem_limits() {
    let server = TestServer::start();
    let (egress, _) = egress(&["127.0.0.1"]);
    let mut config = sandkeep_shell::ShellConfig::default();
    config.limits.fs.max_file_size = 1000;
    let shell = sandkeep_shell::Shell::new(sandkeep_net::install(config, &egress));
    let out = shell.run(
        "curl -sS -o big \"$URL/bytes/5000\"; echo $?; wget -q -O big2 \"$URL/bytes/5000\"; echo $?",
        sandkeep_shell::RunOptions { env: env(&server), ..Default::default() },
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "23\n3\n");
}

#[test]
fn injected_header_reaches_the_server_and_never_the_sandbox() {
    let server = TestServer::start();
    let port = server.addr.port();
    let (egress, denials) = egress(&[&format!("127.0.0.1:{port}")]);
    let secret = "tok-3f9a1c-SECRET";
    let header = InjectedHeader::parse(
        &format!("127.0.0.1:{port}=Authorization: Bearer ${{API_TOKEN}}"),
        |name| (name == "API_TOKEN").then(|| secret.to_string()),
    )
    .unwrap();
    egress.set_headers(vec![header]);
    // The sandbox asks without a credential (and tries to set its own).
    let out = support::run_ours(
        "curl -s -o /dev/null -w '%{http_code}\\n' -H 'Authorization: Bearer guess' \"$URL/text\"",
        &env(&server),
        &egress,
    );
    assert_eq!(out.stdout, "200\n");
    let seen = server.seen();
    assert_eq!(seen.len(), 1);
    assert!(
        seen[0]
            .head
            .contains(&format!("Authorization: Bearer {secret}\r\n")),
        "{}",
        seen[0].head
    );
    assert!(
        !seen[0].head.contains("guess"),
        "the injected header replaces the sandbox's"
    );
    // Everything the sandbox can look at.
    let probe = "env; cat /proc/self/environ 2>&1; grep -r tok-3f9a1c / 2>/dev/null; grep -r SECRET / 2>/dev/null; \
                 curl -s -i \"$URL/text\"; curl -s -w '%{header{authorization}}' \"$URL/text\"; \
                 curl -s https://denied.example/ 2>&1; echo done";
    let out = support::run_ours(probe, &env(&server), &egress);
    assert!(out.stdout.ends_with("done\n"), "{out:?}");
    assert!(
        !out.stdout.contains(secret) && !out.stderr.contains(secret),
        "{out:?}"
    );
    assert!(!format!("{:?}", denials.lock().unwrap()).contains(secret));
    assert!(!format!("{egress:?}").contains(secret));
    // Another host does not get it: a redirect to a second allowed service.
    let other = TestServer::start();
    egress.set_policy(
        Policy::parse([
            format!("127.0.0.1:{port}"),
            format!("127.0.0.1:{}", other.addr.port()),
        ])
        .unwrap(),
    );
    let out = support::run_ours(
        &format!(
            "curl -s -L \"$URL/to?url=http://{}/echo/header/Authorization\"",
            other.addr
        ),
        &env(&server),
        &egress,
    );
    assert_eq!(out.stdout, "Authorization: (none)\n");
}

#[test]
fn unset_variable_in_a_header_is_an_error_at_start() {
    let err = InjectedHeader::parse(
        "api.example.com=Authorization: Bearer ${NOT_SET_ANYWHERE}",
        |_| None,
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "--net-header for api.example.com: the environment variable NOT_SET_ANYWHERE is not set"
    );
    assert!(InjectedHeader::parse("no-equals-sign", |_| None).is_err());
    assert!(InjectedHeader::parse("a.com=X: a\r\nInjected: 1", |_| None).is_err());
}
