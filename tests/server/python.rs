//! `clients/python`'s own suite and schemathesis against the OpenAPI
//! document, each against a running server (skipped without python3 or
//! schemathesis unless `SANDKEEP_REQUIRE_PYTHON=1`).

use super::*;

/// True when `SANDKEEP_REQUIRE_PYTHON=1` (CI): a missing Python tool then
/// fails the test instead of skipping it.
fn python_required() -> bool {
    std::env::var("SANDKEEP_REQUIRE_PYTHON").as_deref() == Ok("1")
}

/// `program` if it runs with `args`; `None` (skip, reason printed) if not,
/// unless [`python_required`].
fn python_tool(program: &str, args: &[&str], install: &str) -> Option<String> {
    let ok = Command::new(program)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if ok {
        return Some(program.to_string());
    }
    let reason = format!("{program} is not available ({install})");
    assert!(!python_required(), "SANDKEEP_REQUIRE_PYTHON=1 but {reason}");
    eprintln!("skipping: {reason}");
    None
}

/// clients/python's own unittest suite against a server with tokens: every
/// call of the client (sessions, runs, streamed runs, files, park/complete,
/// mindlog, generations, 401/403) on the local backend.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_client_suite_passes() {
    let Some(python) = python_tool("python3", &["-c", "import unittest"], "apt install python3")
    else {
        return;
    };
    let data = tempfile::tempdir().unwrap();
    let config = ServeConfig {
        tokens: Some(Tokens::parse(TOKENS).unwrap()),
        ..ServeConfig::default()
    };
    let srv = start(data.path(), config).await;
    let client = Path::new(env!("CARGO_MANIFEST_DIR")).join("clients/python");
    let out = tokio::process::Command::new(python)
        .args(["-m", "unittest", "discover", "-v", "-s"])
        .arg(client.join("tests"))
        .arg("-t")
        .arg(client.join("tests"))
        .env("SANDKEEP_URL", &srv.base)
        .env("SANDKEEP_TOKEN", "tok-alice-0123456789")
        .env("SANDKEEP_OTHER_TOKEN", "tok-bob-0123456789")
        .env("SANDKEEP_AGENT", "alice")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .await
        .unwrap();
    let report = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{report}");
    // Every test ran: none was skipped for a missing setting.
    assert!(report.contains("Ran 11 tests"), "{report}");
    assert!(!report.contains("skipped"), "{report}");
    srv.shutdown().await;
}

/// schemathesis (PyPI) against `/v1/openapi.json` of a server with tokens,
/// called with a token that grants every agent: no 5xx, and every response
/// matches the document (status codes, content types, headers, bodies),
/// schema-valid requests are accepted and schema-violating ones refused.
/// Examples are limited (`SANDKEEP_SCHEMATHESIS_EXAMPLES`, default 15 per
/// operation) and the seed fixed (`SANDKEEP_SCHEMATHESIS_SEED`) to keep the
/// run short and repeatable.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn schemathesis_finds_no_5xx_and_no_schema_mismatch() {
    let Some(st) = python_tool(
        "schemathesis",
        &["--version"],
        "python3 -m pip install schemathesis",
    ) else {
        return;
    };
    let data = tempfile::tempdir().unwrap();
    let config = ServeConfig {
        tokens: Some(Tokens::parse(TOKENS).unwrap()),
        ..ServeConfig::default()
    };
    let srv = start(data.path(), config).await;
    let examples = std::env::var("SANDKEEP_SCHEMATHESIS_EXAMPLES").unwrap_or("15".into());
    let seed = std::env::var("SANDKEEP_SCHEMATHESIS_SEED").unwrap_or("16".into());
    let work = tempfile::tempdir().unwrap();
    let out = tokio::process::Command::new(st)
        .current_dir(work.path())
        .args(["run", &format!("{}/v1/openapi.json", srv.base)])
        .args(["-H", "Authorization: Bearer tok-admin-0123456789"])
        .args([
            "--checks",
            "all",
            "--max-examples",
            &examples,
            "--seed",
            &seed,
        ])
        .args(["--no-shrink", "--workers", "1", "--request-timeout", "30"])
        .env("NO_COLOR", "1")
        .output()
        .await
        .unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "schemathesis found failures:\n{report}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(report.contains("16 selected"), "{report}");
    srv.shutdown().await;
}

/// The patterns the OpenAPI document gives are the server's own rules, so
/// a generator that follows the document is never refused as malformed.
#[test]
fn openapi_patterns_are_the_server_rules() {
    use sandkeep::testing::{AGENT_PATTERN, NOT_BLANK_PATTERN};
    let not_blank = regex::Regex::new(NOT_BLANK_PATTERN).unwrap();
    for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
        let text = format!("{c}");
        assert_eq!(
            not_blank.is_match(&text),
            !text.trim().is_empty(),
            "U+{:04X}",
            c as u32
        );
    }
    assert!(not_blank.is_match("  x  ") && !not_blank.is_match(" \t\u{3000}\n"));
    let agent = regex::Regex::new(AGENT_PATTERN).unwrap();
    let long = "a".repeat(64);
    let too_long = "a".repeat(65);
    for name in [
        "alice", "_x", "a.b-c_d", "9", &long, "", ".a", "-a", "a b", "é", &too_long, "a/b",
    ] {
        assert_eq!(
            agent.is_match(name),
            sandkeep::validate_agent(name).is_ok(),
            "{name:?}"
        );
    }
}
