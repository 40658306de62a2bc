//! The differential suite of `sqlite3`: every case (a bash script that runs
//! sqlite3: one-liners, heredocs, dot-commands, error paths) runs in a local
//! shell with the embedded sqlite3 installed AND in host bash with the
//! host's `/usr/bin/sqlite3` (Debian's 3.40.1) in a fresh temp dir; stdout
//! and exit status must match (cases about errors send stderr to stdout
//! with `2>&1`, so sqlite3's words are compared too). Cases live in
//! `tests/cases/*.txt` in the shell's `### name` format, written from
//! sqlite.org/cli.html and agent usage before the implementation; a case
//! that differs for a known reason carries `#skip: reason`, and the suite
//! checks it still differs (a skip that passes is reported).
//!
//! Run: `cargo test -p sandkeep-sqlite --test differential`
//! (`SQ_CASE=substring` runs only matching cases and prints both sides).
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
    let shell = Shell::new(sandkeep_sqlite::install(ShellConfig::default()));
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
        "sandkeep-sqcase-{}-{}",
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
fn sqlite3_matches_host_sqlite3() {
    if !Path::new("/usr/bin/sqlite3").exists() {
        eprintln!("SKIP: no /usr/bin/sqlite3 on this host");
        return;
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let all = cases::load_dir(&dir);
    cases::assert_well_formed(&all);
    let only = std::env::var("SQ_CASE").ok();
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
        "sqlite3 differential: {passed} passed, {} failed, {skipped} skipped (known differences), {} stale skips, {total} cases",
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
        "{} cases differ from host sqlite3",
        failed.len()
    );
    assert!(stale.is_empty(), "{} skipped cases now pass", stale.len());
    if only.is_none() {
        assert!(total >= 150, "only {total} cases");
    }
}
