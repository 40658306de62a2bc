//! The differential suite of `node`: every case (a bash script that runs
//! node: `-e`/`-p` one-liners, script files, modules, fs/path over the
//! workspace, process, stdin, timers, error paths) runs in a local shell
//! with the embedded node installed AND in host bash with the host's
//! `/usr/bin/node` (Node 20) in a fresh temp dir; stdout and exit status
//! must match (the temp dir's path reads as `/workspace` on both sides).
//! Cases live in `tests/cases/*.txt` in the shell's `### name` format,
//! written from Node's documentation and agent usage before the
//! implementation; a case that differs for a known reason carries
//! `#skip: reason`, and the suite checks it still differs.
//!
//! Run: `cargo test -p sandkeep-node --test differential`
//! (`NODE_CASE=substring` runs only matching cases and prints both sides).
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

#[path = "../../../shell/tests/support/cases.rs"]
#[allow(dead_code)]
mod cases;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use sandkeep_shell::{RunOptions, Shell, ShellConfig};

/// What one side produced.
#[derive(Debug, PartialEq, Eq)]
struct Outcome {
    status: i32,
    stdout: String,
    stderr: String,
}

fn ours(script: &str) -> Outcome {
    let shell = Shell::new(sandkeep_node::install(ShellConfig::default()));
    let out = shell.run(
        script,
        RunOptions {
            timeout: Some(Duration::from_secs(20)),
            ..RunOptions::default()
        },
    );
    Outcome {
        status: out.exit_code,
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn host(script: &str) -> Outcome {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir().join(format!(
        "sandkeep-nodecase-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let out = Command::new("/bin/bash")
        .arg("-c")
        .arg(script)
        .current_dir(&dir)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", &dir)
        .env("LANG", "C.UTF-8")
        .env("TZ", "UTC")
        .stdin(Stdio::null())
        .output()
        .expect("run host bash");
    let _ = std::fs::remove_dir_all(&dir);
    let fix =
        |b: &[u8]| String::from_utf8_lossy(b).replace(&dir.display().to_string(), "/workspace");
    Outcome {
        status: out.status.code().unwrap_or(128),
        stdout: fix(&out.stdout),
        stderr: fix(&out.stderr),
    }
}

#[test]
fn node_matches_host_node() {
    if !Path::new("/usr/bin/node").exists() {
        eprintln!("SKIP: no /usr/bin/node on this host");
        return;
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let all = cases::load_dir(&dir);
    cases::assert_well_formed(&all);
    let only = std::env::var("NODE_CASE").ok();
    let (mut passed, mut failed, mut skipped, mut stale) = (0, Vec::new(), 0, Vec::new());
    for case in &all {
        if let Some(o) = &only
            && !case.label().contains(o.as_str())
        {
            continue;
        }
        let theirs = host(&case.script);
        let mine = ours(&case.script);
        let same = mine.status == theirs.status && mine.stdout == theirs.stdout;
        if only.is_some() {
            eprintln!(
                "--- {}\n{}host [{}]:\n{}{}\nours [{}]:\n{}{}",
                case.label(),
                case.script,
                theirs.status,
                theirs.stdout,
                theirs.stderr,
                mine.status,
                mine.stdout,
                mine.stderr
            );
        }
        match (&case.skip, same) {
            (Some(_), true) => stale.push(case.label()),
            (Some(_), false) => skipped += 1,
            (None, true) => passed += 1,
            (None, false) => failed.push(format!(
                "{}\n  host [{}]: {:?}\n  ours [{}]: {:?}\n  our stderr: {:?}",
                case.label(),
                theirs.status,
                theirs.stdout,
                mine.status,
                mine.stdout,
                mine.stderr.chars().take(300).collect::<String>()
            )),
        }
    }
    let total = passed + failed.len() + skipped + stale.len();
    eprintln!(
        "node differential: {passed} passed, {} failed, {skipped} skipped (known differences), {} stale skips, {total} cases",
        failed.len(),
        stale.len()
    );
    for f in &failed {
        eprintln!("FAIL {f}");
    }
    for s in &stale {
        eprintln!("STALE SKIP (now passes; remove its #skip) {s}");
    }
    assert!(
        failed.is_empty(),
        "{} cases differ from host node",
        failed.len()
    );
    assert!(stale.is_empty(), "{} skipped cases now pass", stale.len());
    if only.is_none() {
        assert!(total >= 150, "only {total} cases");
    }
}

/// An uncaught error's report has Node's shape where agents read it: the
/// `FILE:LINE` of the throw, the source line, and the `Name: message`
/// line (the stack frames below it are the engine's own and differ).
#[test]
fn uncaught_errors_are_node_shaped() {
    if !Path::new("/usr/bin/node").exists() {
        eprintln!("SKIP: no /usr/bin/node on this host");
        return;
    }
    let shape = |stderr: &str| -> Vec<String> {
        let lines: Vec<&str> = stderr.lines().collect();
        let mut out: Vec<String> = lines.iter().take(2).map(|l| l.to_string()).collect();
        if let Some(e) = lines.iter().find(|l| {
            l.split(':').next().is_some_and(|n| n.ends_with("Error")) && !l.starts_with(' ')
        }) {
            out.push(e.to_string());
        }
        out
    };
    let mut failures = Vec::new();
    for script in [
        "node -e 'throw new Error(\"boom\")'",
        "node -e 'const x = 1;\nnull.f()'",
        "printf 'const a = 1;\\nfunction f() {\\n  throw new TypeError(\"bad type\");\\n}\\nf();\\n' > t.js; node t.js",
        "node -e 'undefinedName + 1'",
    ] {
        let theirs = host(script);
        let mine = ours(script);
        if shape(&theirs.stderr) != shape(&mine.stderr) || theirs.status != mine.status {
            failures.push(format!(
                "{script}\n--- node [{}]: {:?}\n--- ours [{}]: {:?}\n{}",
                theirs.status,
                shape(&theirs.stderr),
                mine.status,
                shape(&mine.stderr),
                mine.stderr
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
