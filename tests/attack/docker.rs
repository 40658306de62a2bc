//! The docker group: the same attacks against a container, and processes
//! that outlive a run across MCP turns (skipped without a daemon unless
//! `SANDKEEP_REQUIRE_DOCKER=1`).

use super::*;

pub(super) fn docker_available() -> bool {
    Command::new("docker")
        .args(["version"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

pub(super) fn docker_cases(h: &Host) -> Vec<Case> {
    use Check::*;
    let mut v = Vec::new();
    let f = h.secret_file.display().to_string();
    for (name, script, checks) in [
        (
            "host file",
            format!("cat {f}"),
            vec![Never(h.marker.clone())],
        ),
        (
            "host env",
            "env".to_string(),
            vec![Never(h.env_secret.clone())],
        ),
        (
            "timeout",
            "while :; do :; done".to_string(),
            vec![Status(124)],
        ),
        (
            "network off",
            "curl -s -m 2 http://1.1.1.1/ || echo blocked".to_string(),
            vec![Stdout("blocked")],
        ),
        ("not root", "id -u".to_string(), vec![NotStatus(-1)]),
        (
            "one file past the storage limit",
            "head -c 1100M /dev/zero > big; echo status=$?".to_string(),
            vec![Stdout("status=153"), Stderr("File size limit exceeded")],
        ),
        (
            "many files past the storage limit",
            "for i in $(seq 40); do head -c 64M /dev/zero > f$i || exit 3; done; sleep 30"
                .to_string(),
            vec![
                Status(124),
                Stderr("storage limit exceeded (1073741824 bytes)"),
            ],
        ),
    ] {
        v.push(Case {
            group: "docker",
            name: format!("docker: {name}"),
            program: Program::Sandkeep,
            args: [
                "run",
                "--backend",
                "docker",
                "--timeout",
                "20",
                "-c",
                &script,
            ]
            .iter()
            .map(|s| s.to_string())
            .collect(),
            stdin: Vec::new(),
            deadline: Duration::from_secs(60),
            checks,
        });
    }
    v.extend(docker_mcp_cases());
    v.extend(docker_store_cases());
    v.push(sparse_read_file());
    v
}

/// MCP `read_file` of a 700 MB sparse file on docker: the head comes back
/// with a note, in bounded host memory. The read is sent once the file
/// exists (the server answers calls concurrently), and the file lies
/// outside `/workspace`, where no park has to refuse it.
fn sparse_read_file() -> Case {
    use Check::*;
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let make = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"bash","arguments":{"command":"truncate -s 700M /tmp/sparse"}}}"#;
    let read = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"/tmp/sparse"}}}"#;
    host_script(
        "docker",
        "docker: read_file of a 700 MB sparse file returns its head in bounded memory",
        60,
        &format!(
            "{{ printf '%s\\n' '{init}' '{make}'; sleep 6; printf '%s\\n' '{read}'; sleep 4; }} \\
             | \"$SK\" mcp --backend docker --agent attack-sparse"
        ),
        vec![
            Stdout(r#""id":3"#),
            Stdout("[truncated: /tmp/sparse is 734003200 bytes"),
            Status(0),
        ],
    )
}

/// What one backend parks the other restores: raw-byte names, names and
/// paths up to Linux's limits, and a merge of concurrent docker sessions.
fn docker_store_cases() -> Vec<Case> {
    use Check::*;
    let names = "for f in *.bin; do printf %s \"$f\" | od -An -tx1; done";
    let make_raw = "f=$(printf \"\\377.bin\"); printf N > \"$f\"";
    let run = |backend: &str, agent: &str, script: &str| {
        format!("\"$SK\" run --backend {backend} -q --agent {agent} -c '{script}'")
    };
    let long = "n=$(printf %0255d 0); echo long > $n; d=$(printf \"d%.0s\" {1..200}); \
                p=$d; for i in $(seq 18); do p=$p/$d; done; mkdir -p $p && echo deep > $p/f";
    vec![
        host_script(
            "docker",
            "docker: a raw-byte name parked on docker reads back on docker and local",
            60,
            &[
                run("docker", "raw-name", make_raw),
                run("docker", "raw-name", names),
                run("local", "raw-name", names),
            ]
            .join(" && "),
            vec![Stdout(" ff 2e 62 69 6e\n ff 2e 62 69 6e\n"), Status(0)],
        ),
        host_script(
            "docker",
            "docker: a raw-byte name survives a merge of concurrent docker sessions",
            60,
            &format!(
                "{} && {}",
                super::durability::concurrent(
                    "raw-merge",
                    "docker",
                    "echo o > other",
                    make_raw,
                    "cat other"
                ),
                run("local", "raw-merge", names)
            ),
            vec![Stdout("o\n ff 2e 62 69 6e\n"), Status(0)],
        ),
        host_script(
            "docker",
            "docker: a 255-byte name and a 3,800-byte path parked on local restore on docker",
            60,
            &format!(
                "{} && {}",
                run("local", "long-names", long),
                run(
                    "docker",
                    "long-names",
                    "cat 0*; find . -name f -exec cat {} +"
                )
            ),
            vec![StdoutIs("long\ndeep\n".into()), Status(0)],
        ),
    ]
}

/// Docker sessions over MCP, where a second tool call is the next turn.
pub(super) fn docker_mcp_cases() -> Vec<Case> {
    use Check::*;
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let call = |id: u32, tool: &str, args: serde_json::Value| {
        serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": args}})
        .to_string()
    };
    let session = |name: &str, lines: Vec<String>, checks: Vec<Check>| {
        let mut stdin = format!("{init}\n").into_bytes();
        for l in lines {
            stdin.extend(l.as_bytes());
            stdin.push(b'\n');
        }
        Case {
            group: "docker",
            name: format!("docker: {name}"),
            program: Program::Sandkeep,
            args: ["mcp", "--backend", "docker", "--agent", "attack-docker"]
                .iter()
                .map(|s| s.to_string())
                .collect(),
            stdin,
            deadline: Duration::from_secs(60),
            checks,
        }
    };
    let escape = "env -u SANDKEEP_RUN sleep 301 >/dev/null 2>&1 &
        env -i /bin/sleep 303 >/dev/null 2>&1 &
        setsid sleep 304 >/dev/null 2>&1 &
        setsid env -i /bin/sleep 305 >/dev/null 2>&1 &
        sleep 302";
    // The server answers calls concurrently: the second waits out the first.
    let count = "sleep 5; echo leftover=$(ps -eo args= | grep -c '^[/a-z]*sleep 30[1-5]')";
    vec![session(
        "processes that left the run are gone in the next turn",
        vec![
            call(
                2,
                "bash",
                serde_json::json!({"command": escape, "timeout_ms": 2000}),
            ),
            call(3, "bash", serde_json::json!({"command": count})),
        ],
        vec![Stdout(r#""id":2"#), Stdout("leftover=0")],
    )]
}
