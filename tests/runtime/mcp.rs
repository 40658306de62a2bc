//! `sandkeep mcp` driven by a real MCP client nobody here wrote (the
//! official Python SDK, installed into a virtualenv under target/ on first
//! use), on both backends; and raw JSON-RPC abuse (malformed lines, unknown
//! methods) that must get errors while the server keeps serving.

use crate::docker_support;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn sandkeep() -> &'static str {
    env!("CARGO_BIN_EXE_sandkeep")
}

/// A python with the `mcp` package: `$SANDKEEP_MCP_PYTHON`, or a virtualenv
/// made under target/ (pip install mcp). `None` (test skipped, with the
/// reason printed) when that cannot be had, unless CI demands docker-level
/// completeness (`SANDKEEP_REQUIRE_DOCKER=1`), where it fails.
pub(crate) fn mcp_python() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("SANDKEEP_MCP_PYTHON") {
        return Some(PathBuf::from(p));
    }
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/mcp-venv");
    let python = venv.join("bin/python");
    let has_mcp = |py: &Path| {
        Command::new(py)
            .args(["-c", "import mcp"])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !has_mcp(&python) {
        let made = Command::new("python3")
            .arg("-m")
            .arg("venv")
            .arg(&venv)
            .status()
            .is_ok_and(|s| s.success())
            && Command::new(venv.join("bin/pip"))
                .args(["install", "-q", "mcp"])
                .status()
                .is_ok_and(|s| s.success());
        if !made || !has_mcp(&python) {
            let reason = "could not install the MCP Python SDK (pip install mcp)";
            assert!(!docker_support::docker_required(), "{reason}");
            eprintln!("skipping: {reason}");
            return None;
        }
    }
    Some(python)
}

fn client(python: &Path, data: &Path, agent: &str, backend: &str, step: &str) -> serde_json::Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/client.py");
    let out = Command::new(python)
        .arg(script)
        .args([sandkeep(), data.to_str().unwrap(), agent, backend, step])
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

#[test]
fn the_official_python_client_uses_a_persistent_sandbox() {
    let Some(python) = mcp_python() else { return };
    let docker = tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(docker_support::backend())
        .is_some();
    let backends: &[&str] = if docker {
        &["local", "docker"]
    } else {
        &["local"]
    };
    for backend in backends {
        let data = tempfile::tempdir().unwrap();
        let w = client(&python, data.path(), "mcp-agent", backend, "write");
        assert_eq!(w["server"], "sandkeep");
        let tools: Vec<&str> = w["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap())
            .collect();
        assert_eq!(
            tools,
            [
                "bash",
                "mindlog_append",
                "mindlog_read",
                "mindlog_search",
                "read_file",
                "workspace_diff",
                "workspace_history",
                "workspace_restore",
                "write_file"
            ]
        );
        assert_eq!(w["bash"], "17\n[exit code: 0]", "{backend}");
        assert_eq!(w["bash_error"], false);
        assert_eq!(w["append_error"], false);
        assert_eq!(w["exit3"], "[exit code: 3]", "{backend}");
        assert_eq!(w["timeout_error"], true, "{backend}");
        assert_eq!(w["bad_args_error"], true);
        assert!(
            w["bad_args"]
                .as_str()
                .unwrap()
                .contains("unknown field `cmd`")
        );
        assert!(
            w["unknown_tool"]
                .as_str()
                .unwrap()
                .contains("unknown tool: no_such_tool"),
            "{}",
            w["unknown_tool"]
        );
        assert_eq!(w["after_errors"], "still serving\n[exit code: 0]");

        // A second server process for the same agent: a new session that restores.
        let r = client(&python, data.path(), "mcp-agent", backend, "read");
        assert_eq!(r["read"], "persisted-by-mcp\n", "{backend}");
        assert_eq!(r["missing_error"], true);
        assert!(
            r["search"]
                .as_str()
                .unwrap()
                .contains("the launch code is banana"),
            "{}",
            r["search"]
        );
    }
}

#[test]
fn malformed_requests_get_json_rpc_errors_and_the_server_keeps_serving() {
    let data = tempfile::tempdir().unwrap();
    let mut child = Command::new(sandkeep())
        .args([
            "-q",
            "--data",
            data.path().to_str().unwrap(),
            "mcp",
            "--agent",
            "raw",
            "--backend",
            "local",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let lines = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        "this is not json",
        r#"{"jsonrpc":"2.0","id":2,"method":"no/such/method"}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"bash","arguments":{"command":42}}}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.txt","start_line":3,"end_line":1}}}"#,
        r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"bash","arguments":{"command":"echo ok"}}}"#,
    ];
    let mut stdin = child.stdin.take().unwrap();
    for l in lines {
        writeln!(stdin, "{l}").unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let replies: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("every reply is JSON"))
        .collect();
    let by_id = |id: i64| {
        replies
            .iter()
            .find(|r| r["id"] == id)
            .unwrap_or_else(|| panic!("no reply {id}: {replies:?}"))
    };
    assert!(
        replies
            .iter()
            .any(|r| r["id"].is_null() && r["error"]["code"] == -32700),
        "{replies:?}"
    );
    assert_eq!(by_id(2)["error"]["code"], -32601);
    assert_eq!(by_id(3)["result"]["isError"], true, "{}", by_id(3));
    assert_eq!(by_id(4)["result"]["isError"], true, "{}", by_id(4));
    assert!(by_id(5)["result"].is_object());
    assert_eq!(
        by_id(6)["result"]["content"][0]["text"],
        "ok\n[exit code: 0]"
    );
}

/// `sandkeep mcp` on the local backend for `agent`, driven over raw
/// JSON-RPC: the child, its stdin and its stdout read a line at a time.
fn raw_server(
    data: &Path,
    agent: &str,
) -> (
    std::process::Child,
    std::process::ChildStdin,
    std::io::BufReader<std::process::ChildStdout>,
) {
    let mut child = Command::new(sandkeep())
        .args(["-q", "--data", data.to_str().unwrap()])
        .args(["mcp", "--agent", agent, "--backend", "local"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdin = child.stdin.take().unwrap();
    let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    (child, stdin, stdout)
}

/// One request at a time over raw JSON-RPC: the workspace history tools see
/// each call's generation, and `workspace_restore` brings a deleted tree back
/// (kept as a new generation).
#[test]
fn workspace_history_diff_and_restore_over_mcp() {
    use std::io::BufRead;
    let data = tempfile::tempdir().unwrap();
    let (mut child, mut stdin, mut stdout) = raw_server(data.path(), "hist");
    let mut next_id = 0;
    let mut call = |method: &str, params: serde_json::Value| -> serde_json::Value {
        next_id += 1;
        let msg = serde_json::json!({"jsonrpc": "2.0", "id": next_id, "method": method, "params": params});
        writeln!(stdin, "{msg}").unwrap();
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap()
    };
    let tool = |call: &mut dyn FnMut(&str, serde_json::Value) -> serde_json::Value,
                name: &str,
                args: serde_json::Value| {
        let r = call(
            "tools/call",
            serde_json::json!({"name": name, "arguments": args}),
        );
        let text = r["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or("")
            .to_string();
        (r["result"]["isError"] == true, text)
    };
    call(
        "initialize",
        serde_json::json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
    );
    let (_, _) = tool(
        &mut call,
        "bash",
        serde_json::json!({"command": "mkdir src; echo one > src/a.txt"}),
    );
    let (_, _) = tool(
        &mut call,
        "bash",
        serde_json::json!({"command": "rm -rf src; echo two > b.txt"}),
    );
    let (err, history) = tool(&mut call, "workspace_history", serde_json::json!({}));
    assert!(!err, "{history}");
    assert_eq!(history.lines().count(), 2, "{history}");
    let (_, diff) = tool(&mut call, "workspace_diff", serde_json::json!({}));
    assert_eq!(diff, "A\tb.txt\nD\tsrc/a.txt", "{diff}");
    let (err, msg) = tool(
        &mut call,
        "workspace_restore",
        serde_json::json!({"generation": "HEAD~1", "path": "src"}),
    );
    assert!(!err, "{msg}");
    let (_, out) = tool(
        &mut call,
        "bash",
        serde_json::json!({"command": "cat src/a.txt b.txt"}),
    );
    assert_eq!(out, "one\ntwo\n[exit code: 0]");
    let (_, history) = tool(
        &mut call,
        "workspace_history",
        serde_json::json!({"limit": 10}),
    );
    assert_eq!(
        history.lines().count(),
        3,
        "the restore is a new generation: {history}"
    );
    let (err, msg) = tool(
        &mut call,
        "workspace_restore",
        serde_json::json!({"generation": "nope"}),
    );
    assert!(err && msg.contains("no generation nope"), "{msg}");
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

/// A park that fails (the store's pack directory replaced by a file between
/// two calls) makes that call's result an error saying the workspace was not
/// kept; the head stays the last kept generation, and once the store is
/// mended the next call keeps the failed call's change too.
#[test]
fn a_failed_park_is_an_error_result_and_the_head_stays() {
    let data = tempfile::tempdir().unwrap();
    let (mut child, mut stdin, mut stdout) = raw_server(data.path(), "park");
    let mut ask = |request: serde_json::Value| -> serde_json::Value {
        writeln!(stdin, "{request}").unwrap();
        stdin.flush().unwrap();
        let mut reply = String::new();
        std::io::BufRead::read_line(&mut stdout, &mut reply).unwrap();
        serde_json::from_str(&reply).unwrap()
    };
    let bash = |id: u32, command: &str| {
        serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "bash", "arguments": {"command": command}}})
    };
    ask(
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "park", "version": "1"}}}),
    );
    let r = ask(bash(2, "echo one > f"));
    assert_eq!(r["result"]["isError"], false, "{r}");
    let store = data.path().join("agents/park/store");
    let head = || std::fs::read_to_string(store.join("HEAD")).unwrap();
    let kept = head();
    let (packs, aside) = (store.join("packs"), data.path().join("packs-aside"));
    std::fs::rename(&packs, &aside).unwrap();
    std::fs::write(&packs, b"").unwrap();

    let r = ask(bash(3, "echo two > f"));
    assert_eq!(r["result"]["isError"], true, "{r}");
    let said = r["result"]["content"].to_string();
    assert!(
        said.contains("NOT kept") && said.contains("the last kept generation stays the head"),
        "{said}"
    );
    assert_eq!(head(), kept);

    std::fs::remove_file(&packs).unwrap();
    std::fs::rename(&aside, &packs).unwrap();
    let r = ask(bash(4, "cat f"));
    assert_eq!(r["result"]["structuredContent"]["stdout"], "two\n", "{r}");
    assert_ne!(
        head(),
        kept,
        "the mended store keeps the failed call's change"
    );
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

/// Issue 34 over MCP stdio: `bash` calls share one shell (cwd, variables,
/// functions, aliases, options) and the tool's description says so; a
/// server started again (a new session) starts clean.
#[test]
fn bash_calls_share_one_shell_over_mcp() {
    use std::io::BufRead;
    let data = tempfile::tempdir().unwrap();
    let session = |calls: &[&str]| -> (Vec<String>, String) {
        let (mut child, mut stdin, mut stdout) = raw_server(data.path(), "shelly");
        let mut next_id = 0;
        let mut call = |method: &str, params: serde_json::Value| -> serde_json::Value {
            next_id += 1;
            let msg = serde_json::json!({"jsonrpc": "2.0", "id": next_id, "method": method, "params": params});
            writeln!(stdin, "{msg}").unwrap();
            let mut line = String::new();
            stdout.read_line(&mut line).unwrap();
            serde_json::from_str(&line).unwrap()
        };
        call(
            "initialize",
            serde_json::json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
        );
        let tools = call("tools/list", serde_json::json!({}));
        let description = tools["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == "bash")
            .unwrap()["description"]
            .as_str()
            .unwrap()
            .to_string();
        let outs = calls
            .iter()
            .map(|c| {
                let r = call(
                    "tools/call",
                    serde_json::json!({"name": "bash", "arguments": {"command": c}}),
                );
                r["result"]["content"][0]["text"]
                    .as_str()
                    .unwrap_or("")
                    .to_string()
            })
            .collect();
        drop(stdin);
        child.wait().unwrap();
        (outs, description)
    };
    let (outs, description) = session(&[
        "mkdir -p repo/src && cd repo/src && export XV=1 && f(){ echo \"f:$XV\"; } && alias g='echo g' && set -o pipefail",
        "pwd; f; alias g; false | true; echo $?; cd ..; exit 3",
        "pwd",
    ]);
    assert!(
        description.contains("working directory") && description.contains("Traps"),
        "{description}"
    );
    assert_eq!(
        outs[1],
        "/workspace/repo/src\nf:1\nalias g='echo g'\n1\n[exit code: 3]"
    );
    assert_eq!(outs[2], "/workspace/repo\n[exit code: 0]");
    // A new server is a new session: files kept, shell new.
    let (outs, _) = session(&["pwd; echo ${XV-unset}; ls repo"]);
    assert_eq!(outs[0], "/workspace\nunset\nsrc\n[exit code: 0]");
}
