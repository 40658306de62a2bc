//! The attack suite: what an agent's hostile or broken input can do to the
//! host, case by case, each run as a child `sandkeep` process under
//! `/usr/bin/time -f %M`, so that an abort, a panic, a runaway allocation
//! or a run that outlives its deadline shows up as a failed case instead of
//! taking the test process down with it.
//!
//! Groups, a module each: `escapes` (host files, host environment, host writes), `resources`
//! (memory, time, depth, jobs), `malformed` (scripts, arguments, archives,
//! MCP lines), `durability` (what is kept, what a failure reports) and
//! `docker` (the container backend; skipped with a printed reason when no
//! daemon answers, unless `SANDKEEP_REQUIRE_DOCKER=1`).
//!
//! Every case asserts concrete outcomes (status, output, host state) and,
//! for all of them: no abort or panic, at most 1 GB peak RSS, and no more
//! than 1 s past the case's deadline. Run: `cargo test --release --test attack`.
//! `SANDKEEP_ATTACK_GROUPS=docker,durability` runs only those groups,
//! `SANDKEEP_ATTACK_CASES=mcp:,touch` only the cases whose names hold one of
//! those texts, and
//! `SANDKEEP_ATTACK_BIN=PATH` attacks another build (an earlier version's, to
//! see which cases it fails: the README's before-and-after table).
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

mod docker;
mod durability;
mod escapes;
mod malformed;
mod resources;

use docker::{docker_available, docker_cases};
use durability::durability;
use escapes::escapes;
use malformed::malformed;
use resources::{jq_recursion, parser_backtracking, resources};

/// Peak RSS no case may pass.
const MAX_RSS_KB: u64 = 1 << 20;

/// What a case checks besides the rules every case obeys.
#[derive(Clone, Debug)]
enum Check {
    /// The process's exit status.
    Status(i32),
    /// Any status but this one.
    NotStatus(i32),
    /// stdout contains the text.
    Stdout(&'static str),
    /// stdout is exactly the text.
    StdoutIs(String),
    /// stderr contains the text.
    Stderr(&'static str),
    /// Neither stream contains the text (a host secret).
    Never(String),
    /// The host path does not exist after the case.
    HostAbsent(PathBuf),
}

struct Case {
    group: &'static str,
    name: String,
    /// What runs under `time`: `sandkeep ARGS`, or, for cases that need
    /// several `sandkeep` processes at once (concurrent sessions), `bash -c
    /// SCRIPT` with the binary under attack in `$SK`.
    program: Program,
    args: Vec<String>,
    stdin: Vec<u8>,
    /// When the case must be over (its run's deadline, or a bound for
    /// cases without one).
    deadline: Duration,
    checks: Vec<Check>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Program {
    Sandkeep,
    HostBash,
}

struct Outcome {
    name: String,
    group: &'static str,
    failures: Vec<String>,
    rss_kb: u64,
    wall: Duration,
}

/// The binary under attack: this build's, or `SANDKEEP_ATTACK_BIN` (an
/// earlier version's build, to show which cases it fails).
fn bin() -> String {
    std::env::var("SANDKEEP_ATTACK_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_sandkeep").into())
}

/// A local run of `script` with a deadline of `timeout` seconds.
fn local(group: &'static str, name: &str, timeout: u64, script: &str, checks: Vec<Check>) -> Case {
    let mut args: Vec<String> = ["run", "--backend", "local", "--timeout"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    args.push(timeout.to_string());
    // One argument may hold 128 KiB at most and no NUL: such scripts come on stdin.
    let stdin = if script.len() > 64 << 10 || script.contains('\0') {
        args.push("-".into());
        script.as_bytes().to_vec()
    } else {
        args.push("-c".into());
        args.push(script.to_string());
        Vec::new()
    };
    Case {
        group,
        name: name.to_string(),
        program: Program::Sandkeep,
        args,
        stdin,
        deadline: Duration::from_secs(timeout),
        checks,
    }
}

/// A host bash script driving `$SK` (the binary under attack), for cases
/// that need concurrent sessions; `deadline` bounds the whole script.
fn host_script(
    group: &'static str,
    name: &str,
    deadline: u64,
    script: &str,
    checks: Vec<Check>,
) -> Case {
    Case {
        group,
        name: name.to_string(),
        program: Program::HostBash,
        args: vec!["-c".into(), script.to_string()],
        stdin: Vec::new(),
        deadline: Duration::from_secs(deadline),
        checks,
    }
}

fn args(group: &'static str, name: &str, a: &[&str], checks: Vec<Check>) -> Case {
    Case {
        group,
        name: name.to_string(),
        program: Program::Sandkeep,
        args: a.iter().map(|s| s.to_string()).collect(),
        stdin: Vec::new(),
        deadline: Duration::from_secs(10),
        checks,
    }
}

fn run_case(case: &Case, data: &Path, secret: &str) -> Outcome {
    let mut failures = Vec::new();
    let rss_file = tempfile::NamedTempFile::new().unwrap();
    let mut cmd = Command::new("/usr/bin/time");
    cmd.arg("-f")
        .arg("%M")
        .arg("-o")
        .arg(rss_file.path())
        .arg(match case.program {
            Program::Sandkeep => bin(),
            Program::HostBash => "bash".into(),
        })
        .args(&case.args)
        .env("SK", bin())
        .env("SANDKEEP_DATA", data)
        .env("SANDKEEP_ATTACK_SECRET", secret)
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // A group of its own: a case past its hard limit is killed with
    // `sandkeep` under `time`, whose open pipes would otherwise keep the
    // readers below waiting.
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let start = Instant::now();
    let mut child = cmd.spawn().expect("/usr/bin/time runs");
    let stdin = child.stdin.take().unwrap();
    let input = case.stdin.clone();
    let feeder = std::thread::spawn(move || {
        let mut stdin = stdin;
        let _ = stdin.write_all(&input);
    });
    let out_pipe = child.stdout.take().unwrap();
    let err_pipe = child.stderr.take().unwrap();
    let reader = |mut p: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = p.read_to_end(&mut v);
            v
        })
    };
    let out_t = reader(Box::new(out_pipe));
    let err_t = reader(Box::new(err_pipe));
    let allowed = case.deadline + Duration::from_secs(1);
    let hard = case.deadline + Duration::from_secs(15);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break Some(s);
        }
        if start.elapsed() > hard {
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", child.id())])
                .status();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let wall = start.elapsed();
    let _ = feeder.join();
    let stdout = out_t.join().unwrap();
    let stderr = err_t.join().unwrap();
    let stdout = String::from_utf8_lossy(&stdout).into_owned();
    let stderr = String::from_utf8_lossy(&stderr).into_owned();
    let rss_text = std::fs::read_to_string(rss_file.path()).unwrap_or_default();
    // `time` writes "Command exited with non-zero status N" first, then %M.
    let rss_kb = rss_text
        .lines()
        .filter_map(|l| l.trim().parse::<u64>().ok())
        .next_back()
        .unwrap_or(0);
    let code = status.and_then(|s| {
        use std::os::unix::process::ExitStatusExt;
        // Killed by a signal: `time` reports "Command terminated by signal".
        if rss_text.contains("terminated by signal") {
            failures.push(format!("killed by a signal: {}", rss_text.trim()));
        }
        s.code().or(s.signal().map(|n| 128 + n))
    });
    if status.is_none() {
        failures.push(format!("still running after {:?}: killed", hard));
    }
    if wall > allowed {
        failures.push(format!(
            "took {:.2}s, deadline {:.0}s",
            wall.as_secs_f64(),
            case.deadline.as_secs_f64()
        ));
    }
    if rss_kb > MAX_RSS_KB {
        failures.push(format!("peak RSS {rss_kb} KB"));
    }
    for bad in [
        "panicked at",
        "stack overflow",
        "fatal runtime error",
        "memory allocation of",
    ] {
        if stderr.contains(bad) {
            failures.push(format!("stderr shows `{bad}`"));
        }
    }
    if code == Some(134) || code == Some(139) {
        failures.push(format!("aborted (status {code:?})"));
    }
    for check in &case.checks {
        let ok = match check {
            Check::Status(s) => code == Some(*s),
            Check::NotStatus(s) => code != Some(*s),
            Check::Stdout(t) => stdout.contains(t),
            Check::StdoutIs(t) => stdout == *t,
            Check::Stderr(t) => stderr.contains(t),
            Check::Never(t) => !stdout.contains(t.as_str()) && !stderr.contains(t.as_str()),
            Check::HostAbsent(p) => !p.exists(),
        };
        if !ok {
            failures.push(format!(
                "{check:?} failed (status {code:?}); stdout {:?}; stderr {:?}",
                tail(&stdout),
                tail(&stderr)
            ));
        }
    }
    Outcome {
        name: case.name.clone(),
        group: case.group,
        failures,
        rss_kb,
        wall,
    }
}

fn tail(s: &str) -> &str {
    let start = s.len().saturating_sub(300);
    let mut i = start;
    while !s.is_char_boundary(i) {
        i += 1;
    }
    &s[i..]
}

/// Host state the escape cases aim at: a file holding a secret marker and
/// paths the sandbox must not create.
struct Host {
    dir: tempfile::TempDir,
    secret_file: PathBuf,
    marker: String,
    env_secret: String,
}

fn host() -> Host {
    let dir = tempfile::tempdir().unwrap();
    let marker = format!("HOST-FILE-MARKER-{}", std::process::id());
    let secret_file = dir.path().join("secret.txt");
    std::fs::write(&secret_file, format!("{marker}\n")).unwrap();
    Host {
        env_secret: format!("HOST-ENV-SECRET-{}", std::process::id()),
        dir,
        secret_file,
        marker,
    }
}

/// Cases that still fail (see the README): run them with
/// `cargo test --release --test attack -- --ignored`.
const KNOWN_DEFECTS: &[&str] = &[];

#[test]
#[ignore = "known defects: cargo test --release --test attack -- --ignored"]
fn attack_known_defects() {
    suite(true);
}

#[test]
fn attack_suite() {
    suite(false);
}

fn suite(known: bool) {
    if !Path::new("/usr/bin/time").exists() {
        panic!("the attack suite measures RSS with /usr/bin/time (Debian package `time`)");
    }
    let h = host();
    let data = tempfile::tempdir().unwrap();
    let mut parallel = Vec::new();
    parallel.extend(escapes(&h));
    parallel.extend(resources());
    parallel.extend(malformed(&h));
    let mut serial = durability();
    if docker_available() {
        serial.extend(docker_cases(&h));
    } else if std::env::var("SANDKEEP_REQUIRE_DOCKER").as_deref() == Ok("1") {
        panic!("SANDKEEP_REQUIRE_DOCKER=1 but no docker daemon answers");
    } else {
        eprintln!("attack suite: skipping the docker group: no docker daemon answers");
    }
    parallel.extend(jq_recursion());
    parallel.extend(parser_backtracking());
    // `SANDKEEP_ATTACK_GROUPS=docker,durability` runs only those groups.
    let only_groups = std::env::var("SANDKEEP_ATTACK_GROUPS").ok();
    // `SANDKEEP_ATTACK_CASES=mcp:,touch` runs only the cases whose names
    // hold one of those texts.
    let only_cases = std::env::var("SANDKEEP_ATTACK_CASES").ok();
    let chosen = |c: &Case| {
        KNOWN_DEFECTS.contains(&c.name.as_str()) == known
            && only_groups
                .as_deref()
                .is_none_or(|g| g.split(',').any(|g| g == c.group))
            && only_cases
                .as_deref()
                .is_none_or(|n| n.split(',').any(|n| c.name.contains(n)))
    };
    parallel.retain(chosen);
    serial.retain(chosen);
    let total = parallel.len() + serial.len();
    let results = Mutex::new(Vec::new());
    let next = Mutex::new(0usize);
    let started = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..3 {
            s.spawn(|| {
                loop {
                    let i = {
                        let mut n = next.lock().unwrap();
                        let i = *n;
                        *n += 1;
                        i
                    };
                    let Some(case) = parallel.get(i) else { break };
                    let o = run_case(case, data.path(), &h.env_secret);
                    results.lock().unwrap().push(o);
                }
            });
        }
        s.spawn(|| {
            for case in &serial {
                let o = run_case(case, data.path(), &h.env_secret);
                results.lock().unwrap().push(o);
            }
        });
    });
    let results = results.into_inner().unwrap();
    let mut groups: std::collections::BTreeMap<&str, (usize, usize)> = Default::default();
    for r in &results {
        let g = groups.entry(r.group).or_default();
        g.0 += 1;
        if r.failures.is_empty() {
            g.1 += 1;
        }
    }
    let max_rss = results.iter().map(|r| r.rss_kb).max().unwrap_or(0);
    let max_wall = results.iter().map(|r| r.wall).max().unwrap_or_default();
    eprintln!(
        "attack suite: {} cases in {:.1}s; peak RSS {} MB; longest case {:.2}s",
        total,
        started.elapsed().as_secs_f64(),
        max_rss / 1024,
        max_wall.as_secs_f64()
    );
    for (g, (n, ok)) in &groups {
        eprintln!("  {g}: {ok}/{n} passed");
    }
    let failed: Vec<&Outcome> = results.iter().filter(|r| !r.failures.is_empty()).collect();
    for r in &failed {
        eprintln!("FAILED [{}] {}:", r.group, r.name);
        for f in &r.failures {
            eprintln!("    {f}");
        }
    }
    assert!(
        known || only_groups.is_some() || only_cases.is_some() || total >= 150,
        "the suite has {total} cases, fewer than 150"
    );
    assert!(
        failed.is_empty(),
        "{} of {total} cases failed",
        failed.len()
    );
}

/// SIGTERM while a client keeps stdin open: the server completes the
/// session (the last call's work is kept) and exits within 5 s.
#[test]
fn mcp_sigterm_completes_the_session_and_exits() {
    let data = tempfile::tempdir().unwrap();
    let mut child = Command::new(bin())
        .args(["-q", "mcp", "--backend", "local", "--agent", "term"])
        .env("SANDKEEP_DATA", data.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut ask = |line: &str| {
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
        let mut reply = String::new();
        std::io::BufRead::read_line(&mut stdout, &mut reply).unwrap();
        reply
    };
    ask(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
    );
    let reply = ask(
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"bash","arguments":{"command":"echo survived > t.txt"}}}"#,
    );
    assert!(reply.contains(r#""id":2"#), "{reply}");
    let sent = Instant::now();
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let exited = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break Some(s);
        }
        if sent.elapsed() > Duration::from_secs(5) {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(exited.is_some(), "the server still ran 5 s after SIGTERM");
    // stdin stays open until here: the server did not exit for lack of input.
    drop(stdin);
    let o = Command::new(bin())
        .args([
            "-q",
            "run",
            "--backend",
            "local",
            "--agent",
            "term",
            "-c",
            "cat t.txt",
        ])
        .env("SANDKEEP_DATA", data.path())
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&o.stdout), "survived\n");
}
