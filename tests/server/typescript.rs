//! `clients/typescript`'s own suite (`npm ci && npm test`, Node's built-in
//! test runner) against this build's `sandkeep` binary: the suite starts its
//! own `sandkeep serve` processes on free loopback ports and stops them by
//! pid. Skipped with a printed reason without node and npm, unless
//! `SANDKEEP_REQUIRE_NODE=1` (CI), where that fails the test.

use super::*;

/// True when `SANDKEEP_REQUIRE_NODE=1`: a missing node or npm then fails
/// the test instead of skipping it.
fn node_required() -> bool {
    std::env::var("SANDKEEP_REQUIRE_NODE").as_deref() == Ok("1")
}

/// The major version of `node` on PATH, if it runs.
fn node_major() -> Option<u32> {
    let out = Command::new("node").arg("--version").output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    text.trim()
        .trim_start_matches('v')
        .split('.')
        .next()?
        .parse()
        .ok()
}

#[test]
fn the_typescript_client_suite_passes() {
    let npm_runs = Command::new("npm")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    // The suite's runner (`node --test` with its flags) needs Node 20.
    let reason = match node_major() {
        None => Some("node is not available (apt install nodejs npm)".to_string()),
        Some(v) if v < 20 => Some(format!("node {v} is older than 20")),
        Some(_) if !npm_runs => Some("npm is not available (apt install npm)".to_string()),
        Some(_) => None,
    };
    if let Some(reason) = reason {
        assert!(!node_required(), "SANDKEEP_REQUIRE_NODE=1 but {reason}");
        eprintln!("skipping: {reason}");
        return;
    }
    let package = Path::new(env!("CARGO_MANIFEST_DIR")).join("clients/typescript");
    let npm = |args: &[&str]| {
        let out = Command::new("npm")
            .args(args)
            .current_dir(&package)
            .env("SANDKEEP_BIN", env!("CARGO_BIN_EXE_sandkeep"))
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        let report = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "npm {args:?} failed:\n{report}");
        report
    };
    npm(&["ci", "--no-audit", "--no-fund"]);
    let report = npm(&["test"]);
    // The runner's summary: every test ran and passed, none skipped.
    let count = |name: &str| -> usize {
        report
            .lines()
            .find_map(|l| l.strip_prefix(&format!("ℹ {name} ")))
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or_else(|| panic!("no '{name}' line in the report:\n{report}"))
    };
    assert_eq!(count("fail"), 0, "{report}");
    assert_eq!(count("skipped"), 0, "{report}");
    assert!(count("pass") >= 40, "{report}");
}
