//! Isolation and limits of the embedded `node`: scripts cannot read host
//! files, see the host environment, open sockets or start processes (each
//! refusal names the sandbox limit); a busy loop stops at the run's
//! deadline, a growing array at the run's memory budget; deep recursion is
//! a RangeError; bad input gets an error and a status, never a panic.
//!
//! Run: `cargo test -p sandkeep-node --test isolation`
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::time::{Duration, Instant};

use sandkeep_shell::{Determinism, LimitKind, RunOptions, RunOutput, Shell, ShellConfig};

// As in the sandkeep binary: QuickJS allocates through Rust's allocator
// (rquickjs's `rust-alloc`), so the run's budget sees JavaScript's heap.
#[global_allocator]
static ALLOCATOR: sandkeep_shell::MeteredAlloc = sandkeep_shell::MeteredAlloc;

fn shell() -> Shell {
    Shell::new(sandkeep_node::install(ShellConfig::default()))
}

fn run_in(shell: &Shell, script: &str, timeout: Duration) -> RunOutput {
    shell.run(
        script,
        RunOptions {
            timeout: Some(timeout),
            ..RunOptions::default()
        },
    )
}

fn run(script: &str) -> RunOutput {
    run_in(&shell(), script, Duration::from_secs(20))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn host_files_are_out_of_reach() {
    let dir = std::env::temp_dir().join(format!("sandkeep-node-secret-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("secret.txt"), "TOP-SECRET-4711").unwrap();
    std::fs::write(dir.join("mod.js"), "module.exports = 'TOP-SECRET-4711';").unwrap();
    let d = dir.display().to_string();
    for code in [
        format!("console.log(require('fs').readFileSync('{d}/secret.txt', 'utf8'))"),
        format!("console.log(require('fs').readdirSync('{d}'))"),
        format!("console.log(require('{d}/mod.js'))"),
        format!("import('{d}/mod.js').then(m => console.log(m.default))"),
        format!("require('fs').promises.readFile('{d}/secret.txt', 'utf8').then(console.log)"),
        format!("console.log(require('fs').existsSync('{d}/secret.txt'))"),
    ] {
        let out = run(&format!("node -e \"{code}\""));
        let all = text(&out.stdout) + &text(&out.stderr);
        assert!(!text(&out.stdout).contains("TOP-SECRET"), "{code}: {all}");
        assert!(!text(&out.stdout).contains("secret.txt"), "{code}: {all}");
    }
    // Writes land in the sandbox's tree.
    let out = run(&format!(
        "mkdir -p {d}; node -e \"require('fs').writeFileSync('{d}/w.txt', 'x')\"; cat {d}/w.txt"
    ));
    assert_eq!(text(&out.stdout), "x");
    assert!(!dir.join("w.txt").exists(), "node wrote a host file");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn host_environment_is_invisible() {
    assert!(std::env::var("CARGO_MANIFEST_DIR").is_ok());
    let out = run(
        "node -p 'process.env.CARGO_MANIFEST_DIR + \" \" + (\"CARGO_MANIFEST_DIR\" in process.env)'",
    );
    assert_eq!(text(&out.stdout), "undefined false\n");
    let out = run("export GREETING=hi; node -p 'process.env.GREETING'");
    assert_eq!(text(&out.stdout), "hi\n");
}

#[test]
fn the_clock_is_the_shells() {
    let shell = Shell::new(sandkeep_node::install(ShellConfig {
        deterministic: Some(Determinism::default()),
        ..ShellConfig::default()
    }));
    let epoch = Determinism::default().epoch_secs;
    let out = run_in(
        &shell,
        "node -p 'Math.floor(Date.now() / 1000) + \" \" + new Date().toISOString()'; date -u +%Y-%m-%dT%H:%M:%S",
        Duration::from_secs(20),
    );
    let s = text(&out.stdout);
    let lines: Vec<&str> = s.lines().collect();
    assert_eq!(lines.len(), 2, "{s}");
    assert!(lines[0].starts_with(&format!("{epoch} ")), "{s}");
    assert!(lines[0].contains(lines[1]), "{s}");
}

#[test]
fn no_sockets_or_processes() {
    for (code, word) in [
        ("require('child_process').execSync('ls')", "host processes"),
        ("require('child_process').spawn('ls')", "host processes"),
        (
            "require('http').createServer(() => {}).listen(8080)",
            "network",
        ),
        ("require('net').connect(80, 'example.com')", "network"),
        ("require('https').get('https://example.com')", "network"),
        ("require('dgram')", "network"),
        ("require('worker_threads')", "host processes"),
    ] {
        let out = run(&format!("node -e \"{code}\""));
        assert_eq!(out.exit_code, 1, "{code}");
        let err = text(&out.stderr);
        assert!(
            err.contains(word) && err.contains("local sandbox"),
            "{code}: {err}"
        );
    }
    let out = run("node -e \"fetch('https://example.com').catch(e => console.log(e.message))\"");
    assert!(
        text(&out.stdout).contains("network"),
        "{}",
        text(&out.stdout)
    );
    let out = run("node --input-type=module -e \"import http from 'node:http'\"");
    assert_eq!(out.exit_code, 1);
    assert!(
        text(&out.stderr).contains("network"),
        "{}",
        text(&out.stderr)
    );
    // npm and npx say why they cannot work.
    for cmd in ["npm install left-pad", "npx prettier --check ."] {
        let out = run(cmd);
        assert_eq!(out.exit_code, 1, "{cmd}");
        let err = text(&out.stderr);
        assert!(
            err.contains("local sandbox") && err.contains("no network"),
            "{cmd}: {err}"
        );
    }
}

#[test]
fn a_busy_loop_stops_at_the_deadline() {
    for code in [
        "while (true) {}",
        "for (;;) { Math.random(); }",
        "(async () => { for (;;) await null; })()",
        "setInterval(() => {}, 1)",
    ] {
        let start = Instant::now();
        let out = run_in(
            &shell(),
            &format!("node -e '{code}'; echo after"),
            Duration::from_secs(2),
        );
        assert!(
            start.elapsed() < Duration::from_secs(6),
            "{code}: took {:?}",
            start.elapsed()
        );
        assert_eq!(out.exit_code, 124, "{code}: {}", text(&out.stderr));
        assert_eq!(out.limit, Some(LimitKind::Timeout), "{code}");
        assert!(!text(&out.stdout).contains("after"), "{code}");
    }
    // A try/catch cannot swallow the interrupt.
    let out = run_in(
        &shell(),
        "node -e 'for (;;) { try { while (true) {} } catch (e) {} }'",
        Duration::from_secs(2),
    );
    assert_eq!(out.limit, Some(LimitKind::Timeout));
}

#[test]
fn a_growing_array_stops_at_the_memory_budget() {
    let mut config = ShellConfig::default();
    config.limits.max_memory_bytes = 64 << 20;
    let shell = Shell::new(sandkeep_node::install(config));
    for code in [
        "const a = []; while (true) a.push(\"x\".repeat(100) + a.length);",
        "const o = []; for (let i = 0; ; i++) o.push({i, s: String(i).repeat(20)});",
        "const m = new Map(); let i = 0; while (true) m.set(i, [i++]);",
    ] {
        let start = Instant::now();
        let out = run_in(
            &shell,
            &format!("node -e '{code}'; echo after"),
            Duration::from_secs(30),
        );
        let err = text(&out.stderr);
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "{code}: took {:?}",
            start.elapsed()
        );
        assert_eq!(out.exit_code, 124, "{code}: {err}");
        assert_eq!(out.limit, Some(LimitKind::Memory), "{code}: {err}");
        assert!(err.contains("memory"), "{code}: {err}");
        assert!(!text(&out.stdout).contains("after"), "{code}");
    }
}

#[test]
fn endless_output_meets_the_output_limit() {
    let start = Instant::now();
    let out = run_in(
        &shell(),
        "node -e 'for (;;) console.log(\"line\")'; echo after",
        Duration::from_secs(20),
    );
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "took {:?}",
        start.elapsed()
    );
    assert_eq!(out.limit, Some(LimitKind::Output), "{}", text(&out.stderr));
    assert_eq!(out.exit_code, 141);
    assert!(text(&out.stdout).starts_with("line\nline\n"));
}

#[test]
fn an_oversized_string_is_the_engines_error() {
    // QuickJS caps a string's length (Node: "Invalid string length"): an
    // error the script sees, status 1, no limit tripped.
    let out = run("node -e 'let s = \"x\"; while (true) s += s;'");
    assert_eq!(out.exit_code, 1, "{}", text(&out.stderr));
    assert!(out.limit.is_none());
    assert!(
        text(&out.stderr).contains("string too long"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn deep_recursion_is_a_range_error() {
    let out = run(
        "node -e 'const f = n => f(n + 1); try { f(0) } catch (e) { console.log(e instanceof RangeError, e.message) }'",
    );
    assert_eq!(out.exit_code, 0, "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).starts_with("true "),
        "{}",
        text(&out.stdout)
    );
    let out = run("node -e 'const f = n => f(n + 1); f(0)'");
    assert_eq!(out.exit_code, 1);
    assert!(
        text(&out.stderr).contains("RangeError"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn bad_input_gets_a_status_not_a_panic() {
    for script in [
        "node --bogus",
        "node -e",
        "node -e '\\x00'",
        "printf '\\xff\\xfe\\x00' > bad.js; node bad.js",
        "node -e 'throw null'",
        "node -e 'throw {a: 1}'",
        "node -e 'Promise.reject(42)'",
        "node -e 'process.exit(\"x\")'",
        "node -e 'require(\"fs\").readFileSync()'",
        "node -e 'require(\"fs\").writeFileSync(\"/dev/full\", \"x\")'",
        "node -e 'require(\"fs\").readdirSync(\"/proc\")'",
        "mkdir d; node d",
        "node -e 'new Array(1e10)'",
        "node -e 'import(\"./nope.mjs\")'",
        "node --input-type=module -e 'import x from \"./nope.mjs\"'",
        "node -e 'setTimeout(\"code\", 1)'",
        "echo 'export default 1' > m.mjs; node -e 'require(\"./m.mjs\")'",
    ] {
        let out = run(script);
        let err = text(&out.stderr);
        assert!(!err.contains("panicked"), "{script}: {err}");
        assert!(out.limit.is_none(), "{script}: {err}");
    }
}

/// Patterns that would let this crate's sources touch the host.
const FORBIDDEN: &[&str] = &[
    "std::fs::",
    "use std::fs",
    "std::process::",
    "use std::process",
    "std::env::",
    "set_current_dir(",
    "libc::",
    "std::net::",
    "std::os::unix::process",
    "SystemTime::now",
];

#[test]
fn source_never_touches_the_host() {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut hits = Vec::new();
    let mut files = 0;
    for e in std::fs::read_dir(&src).unwrap().flatten() {
        let p = e.path();
        if p.extension().is_none_or(|x| x != "rs") {
            continue;
        }
        files += 1;
        let text = std::fs::read_to_string(&p).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for pat in FORBIDDEN {
                if code.contains(pat) {
                    hits.push(format!("{}:{}: {}", p.display(), n + 1, line.trim()));
                }
            }
        }
    }
    assert!(files >= 3);
    assert!(hits.is_empty(), "host access in src:\n{}", hits.join("\n"));
}
