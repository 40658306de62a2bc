//! The official MCP conformance suite (`@modelcontextprotocol/conformance`,
//! pinned in tests/mcp/conformance/package.json) against sandkeep's MCP
//! server on both transports: `sandkeep serve`'s Streamable HTTP endpoint,
//! and `sandkeep mcp` over stdio through `stdio-bridge.mjs` (the suite speaks
//! HTTP only; the bridge relays each JSON-RPC message unchanged, one child
//! process per session). The scenarios are those that test what a sandbox
//! offers: initialize, ping, tools/list, resources/list over a kept
//! workspace, reading a text and a binary resource, a resource template,
//! subscribe and unsubscribe, a tool call's progress, logging/setLevel.
//!
//! Four scenarios ask for fixtures of the suite's reference server by name
//! (`test://static-text`, `test://static-binary`,
//! `test://template/{id}/data`, a tool `test_tool_with_progress`);
//! `sandkeep-fixtures.mjs` gives them the sandbox's equivalents (files of
//! the kept workspace, its file template, a `bash` call printing three
//! chunks) and their checks run unchanged.
//!
//! The suite 0.1.16 imports `fs.globSync`, which Node 20 lacks (the machine
//! image's Node): `node20-fs-shim.mjs` is preloaded with `--import`. Skipped
//! without Node 20+ and npm unless `SANDKEEP_REQUIRE_NODE=1` (CI).

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use super::mcp_resources::{serve, stop};

const SCENARIOS: &[&str] = &[
    "server-initialize",
    "ping",
    "tools-list",
    "resources-list",
    "resources-read-text",
    "resources-read-binary",
    "resources-templates-read",
    "resources-subscribe",
    "resources-unsubscribe",
    "logging-set-level",
    "tools-call-with-progress",
];

/// Why node cannot run the suite here, if it cannot.
fn node_missing() -> Option<String> {
    let version = Command::new("node").arg("--version").output().ok();
    let major: Option<u32> = version.as_ref().and_then(|o| {
        String::from_utf8_lossy(&o.stdout)
            .trim()
            .trim_start_matches('v')
            .split('.')
            .next()?
            .parse()
            .ok()
    });
    let npm = Command::new("npm")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    match major {
        None => Some("node is not available".into()),
        Some(v) if v < 20 => Some(format!("node {v} is older than 20")),
        Some(_) if !npm => Some("npm is not available".into()),
        Some(_) => None,
    }
}

#[test]
fn the_mcp_conformance_suite_passes_on_http_and_stdio() {
    if let Some(reason) = node_missing() {
        assert!(
            std::env::var("SANDKEEP_REQUIRE_NODE").as_deref() != Ok("1"),
            "SANDKEEP_REQUIRE_NODE=1 but {reason}"
        );
        eprintln!("skipping: {reason}");
        return;
    }
    let suite = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/conformance");
    let installed = Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund"])
        .current_dir(&suite)
        .output()
        .unwrap();
    assert!(
        installed.status.success(),
        "npm ci: {}",
        String::from_utf8_lossy(&installed.stderr)
    );
    let data = tempfile::tempdir().unwrap();
    // A kept workspace holding the files the scenarios read (see
    // sandkeep-fixtures.mjs).
    let kept = Command::new(env!("CARGO_BIN_EXE_sandkeep"))
        .args(["-q", "--data", data.path().to_str().unwrap()])
        .args(["run", "--agent", "conf", "--backend", "local", "-c"])
        .arg(
            "echo hi > a.txt; mkdir -p d t/123; printf '\\377' > 'd/b c.bin'; \
             echo '{\"id\":\"123\"}' > t/123/data",
        )
        .output()
        .unwrap();
    assert!(kept.status.success(), "{kept:?}");
    let mut failures = Vec::new();

    // Streamable HTTP. Open (no tokens): the suite sends none; loopback only.
    let (mut server, base) = serve(data.path(), None);
    failures.extend(run_scenarios(&suite, "http", &format!("{base}/mcp/conf")));
    stop(&mut server);

    // stdio, through the bridge.
    let (mut bridge, url) = stdio_bridge(&suite, data.path());
    failures.extend(run_scenarios(&suite, "stdio", &url));
    stop(&mut bridge);

    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Runs every scenario against the MCP server at `url`; the failures, each
/// with the suite's report.
fn run_scenarios(suite: &Path, transport: &str, url: &str) -> Vec<String> {
    let mut failures = Vec::new();
    for scenario in SCENARIOS {
        let out = Command::new("node")
            .args(["--import", "./node20-fs-shim.mjs"])
            .args(["--import", "./sandkeep-fixtures.mjs"])
            .arg("node_modules/@modelcontextprotocol/conformance/dist/index.js")
            .args(["server", "--url", url, "--scenario", scenario, "--verbose"])
            .env("NO_COLOR", "1")
            .current_dir(suite)
            .output()
            .unwrap();
        let report = String::from_utf8_lossy(&out.stdout).into_owned();
        let passed = out.status.success() && report.contains("0 failed, 0 warnings");
        if !passed {
            failures.push(format!(
                "{transport} {scenario}:\n{report}\n{}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        if *scenario == "resources-list" {
            // The listing it checked is the kept workspace.
            assert!(
                report.contains("\"resourceCount\": 3")
                    && report.contains("file:///workspace/a.txt")
                    && report.contains("file:///workspace/d/b%20c.bin"),
                "{transport}: {report}"
            );
        }
    }
    failures
}

/// `sandkeep mcp` over stdio behind `stdio-bridge.mjs`: the bridge's
/// process and the URL it printed.
fn stdio_bridge(suite: &Path, data: &Path) -> (Child, String) {
    let mut bridge = Command::new("node")
        .arg("stdio-bridge.mjs")
        .arg("--")
        .arg(env!("CARGO_BIN_EXE_sandkeep"))
        .args(["-q", "--data", data.to_str().unwrap()])
        .args(["mcp", "--backend", "local", "--agent", "conf"])
        .current_dir(suite)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut url = String::new();
    BufReader::new(bridge.stdout.take().unwrap())
        .read_line(&mut url)
        .unwrap();
    assert!(url.starts_with("http://"), "the bridge printed {url:?}");
    (bridge, url.trim().to_owned())
}
