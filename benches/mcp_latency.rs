//! Tool-call latency of `sandkeep mcp` on the local backend: 1,000 `bash`
//! calls of `echo hi` through stdio, one after the other; prints the median
//! and the 90th/99th percentiles. Run with `cargo bench --bench mcp_latency`.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn main() {
    let calls: usize = std::env::var("CALLS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1000);
    let data = std::env::temp_dir().join(format!("sandkeep-mcp-bench-{}", std::process::id()));
    let mut child = Command::new(env!("CARGO_BIN_EXE_sandkeep"))
        .args([
            "-q",
            "--data",
            data.to_str().unwrap(),
            "mcp",
            "--agent",
            "bench",
            "--backend",
            "local",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start sandkeep mcp");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    let mut request = |id: usize, body: &str, stdin: &mut std::process::ChildStdin| {
        writeln!(stdin, r#"{{"jsonrpc":"2.0","id":{id},{body}}}"#).unwrap();
        stdin.flush().unwrap();
        line.clear();
        stdout.read_line(&mut line).unwrap();
        assert!(
            line.contains(&format!("\"id\":{id}")),
            "unexpected reply: {line}"
        );
    };
    request(
        0,
        r#""method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}"#,
        &mut stdin,
    );
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
    )
    .unwrap();
    let mut samples: Vec<Duration> = Vec::with_capacity(calls);
    for id in 1..=calls {
        let t = Instant::now();
        request(
            id,
            r#""method":"tools/call","params":{"name":"bash","arguments":{"command":"echo hi"}}"#,
            &mut stdin,
        );
        samples.push(t.elapsed());
    }
    drop(stdin);
    child.wait().unwrap();
    std::fs::remove_dir_all(&data).ok();
    samples.sort();
    let pct = |p: f64| {
        samples[((samples.len() as f64 * p) as usize).min(samples.len() - 1)].as_secs_f64() * 1e3
    };
    println!(
        "mcp bash `echo hi`, local backend, {calls} calls through stdio (each call a turn, parked):"
    );
    println!(
        "median {:.3} ms, p90 {:.3} ms, p99 {:.3} ms",
        pct(0.5),
        pct(0.9),
        pct(0.99)
    );
}
