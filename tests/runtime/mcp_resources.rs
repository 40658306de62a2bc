//! MCP resources, subscriptions, progress and logging, driven by the
//! official MCP Python SDK (tests/mcp/resources_client.py) over both
//! transports: `sandkeep mcp` on stdio, and `sandkeep serve`'s Streamable
//! HTTP endpoint with a token. The same assertions hold for both.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use serde_json::Value;

fn sandkeep() -> &'static str {
    env!("CARGO_BIN_EXE_sandkeep")
}

fn drive(python: &Path, args: &[&str]) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/resources_client.py");
    let out = Command::new(python)
        .arg(script)
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "client failed: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(stdout.lines().last().unwrap_or_default()).expect("client prints JSON")
}

/// What both transports must show.
fn check(seen: &Value, transport: &str) {
    let ctx = format!("{transport}: {seen}");
    assert_eq!(
        seen["caps"],
        serde_json::json!({"resources": true, "subscribe": true, "logging": true}),
        "{ctx}"
    );
    assert_eq!(seen["before_any_call"], 0, "{ctx}");
    assert_eq!(seen["write_error"], false, "{ctx}");
    // 152 files in pages of 100: two pages, every file once.
    assert_eq!(seen["pages"], 2, "{ctx}");
    assert_eq!(seen["listed"], 152, "{ctx}");
    assert_eq!(seen["distinct"], 152, "{ctx}");
    assert_eq!(seen["has_spaced"], true, "{ctx}");
    assert_eq!(
        seen["listed_note"],
        serde_json::json!({"name": "notes.txt", "mime": "text/plain", "size": 6}),
        "{ctx}"
    );
    assert_eq!(
        seen["text"],
        serde_json::json!({"uri": "file:///workspace/notes.txt", "mime": "text/plain", "text": "hello\n"}),
        "{ctx}"
    );
    assert_eq!(
        seen["binary"],
        serde_json::json!({"mime": "image/png", "bytes": [0x89, b'P', b'N', b'G', 13, 10, 26, 10, 0, 1, 255]}),
        "{ctx}"
    );
    assert_eq!(seen["spaced_text"], "7\n", "{ctx}");
    assert_eq!(
        seen["templates"],
        serde_json::json!([
            "file:///workspace/{+path}",
            "sandkeep://generations/{generation}/{+path}"
        ]),
        "{ctx}"
    );
    assert_eq!(seen["missing"]["code"], -32002, "{ctx}");
    assert!(
        seen["escape"]
            .as_str()
            .unwrap()
            .contains("not a file path inside /workspace"),
        "{ctx}"
    );
    assert!(
        seen["big"]
            .as_str()
            .unwrap()
            .contains("big.txt is 9000000 bytes; resources are read up to 8388608 bytes"),
        "{ctx}"
    );
    // Subscribed: told about notes.txt only when a call changed it, and not
    // after unsubscribing.
    assert_eq!(seen["updates_after_other"], serde_json::json!([]), "{ctx}");
    assert_eq!(
        seen["updates_after_change"],
        serde_json::json!(["file:///workspace/notes.txt"]),
        "{ctx}"
    );
    assert_eq!(seen["text_after_change"], "changed\n", "{ctx}");
    assert_eq!(
        seen["updates_after_unsubscribe"],
        serde_json::json!(["file:///workspace/notes.txt"]),
        "{ctx}"
    );
    // Kept generations are resources too.
    assert_eq!(seen["first_generation_note"], "hello\n", "{ctx}");
    assert_eq!(seen["head_1_note"], "changed\n", "{ctx}");
    // Progress: the three lines as they came, progress growing.
    let progress = seen["progress"].as_array().unwrap();
    let messages: String = progress
        .iter()
        .map(|p| p["message"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(messages, "tick1\ntick2\ntick3\n", "{ctx}");
    assert!(progress.len() >= 3, "{ctx}");
    let values: Vec<f64> = progress
        .iter()
        .map(|p| p["progress"].as_f64().unwrap())
        .collect();
    assert!(values.windows(2).all(|w| w[0] < w[1]), "{ctx}");
    assert_eq!(values.last().copied(), Some(18.0), "{ctx}");
    assert!(
        seen["progress_result"]
            .as_str()
            .unwrap()
            .starts_with("tick1\ntick2\ntick3\n"),
        "{ctx}"
    );
    // Logging: the workspace-sync lines, under their logger, at info.
    let logs = seen["logs"].as_array().unwrap();
    let sync: Vec<&str> = logs
        .iter()
        .filter(|l| l["logger"] == "workspace-sync")
        .map(|l| l["data"].as_str().unwrap())
        .collect();
    assert!(
        sync.iter()
            .any(|l| l.starts_with("[workspace-sync] ") && l.contains("nothing kept yet")),
        "{ctx}"
    );
    assert!(sync.iter().any(|l| l.contains("kept generation")), "{ctx}");
    // And the network policy's denial, under its own logger.
    assert!(
        logs.iter().any(|l| l["logger"] == "network"
            && l["data"] == "network policy denied GET example.com:80 (no rule allows it)"),
        "{ctx}"
    );
    assert!(
        logs.iter()
            .all(|l| l["level"] == "info" || l["level"] == "warning"),
        "{ctx}"
    );
}

#[test]
fn resources_subscriptions_progress_and_logs_over_stdio() {
    let Some(python) = super::mcp::mcp_python() else {
        return;
    };
    let data = tempfile::tempdir().unwrap();
    let seen = drive(
        &python,
        &[
            "stdio",
            sandkeep(),
            data.path().to_str().unwrap(),
            "res-agent",
        ],
    );
    check(&seen, "stdio");
}

#[test]
fn resources_subscriptions_progress_and_logs_over_streamable_http() {
    let Some(python) = super::mcp::mcp_python() else {
        return;
    };
    let data = tempfile::tempdir().unwrap();
    let tokens = data.path().join("tokens.json");
    std::fs::write(&tokens, r#"{"tok-res-0123456789": ["res-agent"]}"#).unwrap();
    let (mut server, base) = serve(&data.path().join("data"), Some(&tokens));
    let seen = drive(
        &python,
        &[
            "http",
            &format!("{base}/mcp/res-agent"),
            "tok-res-0123456789",
        ],
    );
    stop(&mut server);
    check(&seen, "streamable HTTP");
}

/// `sandkeep serve` on a free loopback port over `data` (with a token file,
/// or open): the child and its base URL, read from the line it prints.
pub(crate) fn serve(data: &Path, tokens: Option<&Path>) -> (Child, String) {
    let mut command = Command::new(sandkeep());
    command.args(["--data", data.to_str().unwrap()]).args([
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--backend",
        "local",
    ]);
    if let Some(tokens) = tokens {
        command.arg("--tokens").arg(tokens);
    }
    let mut server = command
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(server.stderr.take().unwrap());
    let mut base = None;
    let mut line = String::new();
    while stderr.read_line(&mut line).unwrap_or(0) > 0 {
        if let Some(at) = line.find("serving on ") {
            base = Some(line[at + "serving on ".len()..].trim().to_string());
            break;
        }
        line.clear();
    }
    // Keep draining the server's log so it never blocks on a full pipe.
    std::thread::spawn(move || for _ in stderr.lines() {});
    (server, base.expect("the server printed its address"))
}

/// Stops a server by its pid (SIGTERM parks every session) and reaps it.
pub(crate) fn stop(server: &mut Child) {
    // SAFETY: kill(2) on the pid of a child this test spawned and has not reaped.
    unsafe {
        libc::kill(server.id() as i32, libc::SIGTERM);
    }
    let _ = server.wait();
}

/// Runs tests/mcp/modern_client.py with `args` and checks what it saw: the
/// SDK's high-level `Client` negotiates the 2026-07-28 protocol, where a
/// `subscriptions/listen` stream replaces `resources/subscribe` and each
/// request carries its log level; the update and the sync lines still come.
fn check_modern(python: &Path, args: &[&str], transport: &str) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/modern_client.py");
    let out = Command::new(python)
        .arg(script)
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{transport}: client failed: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seen: Value = serde_json::from_str(stdout.lines().last().unwrap_or_default()).unwrap();
    let ctx = format!("{transport}: {seen}");
    assert_eq!(seen["protocol"], "2026-07-28", "{ctx}");
    assert_eq!(
        seen["event"],
        serde_json::json!({"type": "ResourceUpdated", "uri": "file:///workspace/watched.txt"}),
        "{ctx}"
    );
    assert_eq!(seen["text"], "two\n", "{ctx}");
    let logs: Vec<&str> = seen["logs"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(logs.iter().any(|l| l.contains("nothing kept yet")), "{ctx}");
    assert_eq!(
        logs.iter()
            .filter(|l| l.contains("kept generation"))
            .count(),
        3,
        "{ctx}"
    );
}

#[test]
fn a_2026_client_listens_for_updates_and_gets_logs_over_stdio() {
    let Some(python) = super::mcp::mcp_python() else {
        return;
    };
    let data = tempfile::tempdir().unwrap();
    let args = [
        "stdio",
        sandkeep(),
        data.path().to_str().unwrap(),
        "modern-agent",
    ];
    check_modern(&python, &args, "stdio");
}

/// Over HTTP the 2026 protocol gives each request a server of its own, so
/// the listen stream and the tool calls meet through the agent's shared
/// listeners.
#[test]
fn a_2026_client_listens_for_updates_and_gets_logs_over_streamable_http() {
    let Some(python) = super::mcp::mcp_python() else {
        return;
    };
    let data = tempfile::tempdir().unwrap();
    let (mut server, base) = serve(data.path(), None);
    let url = format!("{base}/mcp/modern-agent");
    check_modern(&python, &["http", &url], "streamable HTTP");
    stop(&mut server);
}
