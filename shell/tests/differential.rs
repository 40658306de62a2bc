//! Differential suite: every case in `tests/diff_cases/*.txt` runs in our
//! shell and, when `bash` is on the machine, in real bash inside a fresh temp
//! directory; stdout and exit status must match.
//!
//! Case format (one file holds many cases):
//!
//! ```text
//! ### name of the case
//! #skip: why it is skipped (optional, first body line)
//! script lines...
//! ```
//!
//! Lines before the first `###` are a free-form header. A case's script is
//! every line up to the next `###`, trailing blank lines removed.
//! `DIFF_FILTER=substr` runs only cases whose file or name contains it;
//! `DIFF_RUN_SKIPPED=1` runs the `#skip:` cases too.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use sandkeep_shell::{RunOptions, Shell, ShellConfig};

/// One case of the suite.
struct Case {
    file: String,
    name: String,
    script: String,
    skip: Option<String>,
}

/// What a run produced.
#[derive(Debug, PartialEq, Eq)]
struct Outcome {
    stdout: Vec<u8>,
    status: i32,
    stderr: Vec<u8>,
}

fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/diff_cases")
}

fn parse_cases(file: &str, text: &str) -> Vec<Case> {
    let mut cases = Vec::new();
    let mut current: Option<Case> = None;
    for line in text.lines() {
        if let Some(name) = line.strip_prefix("### ") {
            if let Some(c) = current.take() {
                cases.push(c);
            }
            current = Some(Case {
                file: file.to_string(),
                name: name.trim().to_string(),
                script: String::new(),
                skip: None,
            });
            continue;
        }
        let Some(c) = current.as_mut() else { continue };
        if c.script.is_empty()
            && c.skip.is_none()
            && let Some(reason) = line.strip_prefix("#skip:")
        {
            c.skip = Some(reason.trim().to_string());
            continue;
        }
        c.script.push_str(line);
        c.script.push('\n');
    }
    if let Some(c) = current.take() {
        cases.push(c);
    }
    for c in &mut cases {
        let trimmed = c.script.trim_end_matches('\n').to_string();
        c.script = format!("{trimmed}\n");
    }
    cases
}

fn load_cases() -> Vec<Case> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(cases_dir())
        .expect("tests/diff_cases exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    let mut all = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("case file is UTF-8");
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        all.extend(parse_cases(&name, &text));
    }
    all
}

fn bash_available() -> bool {
    Command::new("bash")
        .arg("-c")
        .arg("exit 0")
        .stdin(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn temp_dir() -> PathBuf {
    static N: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir().join(format!(
        "sandkeep-diff-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}

fn run_bash(script: &str) -> Outcome {
    let dir = temp_dir();
    let mut child = Command::new("bash")
        .arg("-c")
        .arg(script)
        .current_dir(&dir)
        .env_clear()
        .env("HOME", &dir)
        .env("PATH", "/usr/bin:/bin")
        .env("LANG", "C.UTF-8")
        .env("TZ", "UTC")
        .env("USER", "sandbox")
        .env("SHELL", "/bin/bash")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn bash");
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let t_out = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out.read_to_end(&mut v);
        v
    });
    let t_err = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err.read_to_end(&mut v);
        v
    });
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait bash") {
            break s.code().unwrap_or(128);
        }
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            let _ = child.wait();
            break 124;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let stdout = t_out.join().unwrap_or_default();
    let stderr = t_err.join().unwrap_or_default();
    let _ = std::fs::remove_dir_all(&dir);
    Outcome {
        stdout,
        status,
        stderr,
    }
}

fn run_ours(script: &str) -> Outcome {
    let script = script.to_string();
    let result = std::panic::catch_unwind(move || {
        let shell = Shell::new(ShellConfig::default());
        let opts = RunOptions {
            timeout: Some(Duration::from_secs(20)),
            ..RunOptions::default()
        };
        shell.run(&script, opts)
    });
    match result {
        Ok(out) => Outcome {
            stdout: out.stdout,
            status: out.exit_code,
            stderr: out.stderr,
        },
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Outcome {
                stdout: Vec::new(),
                status: -1,
                stderr: format!("PANIC: {msg}").into_bytes(),
            }
        }
    }
}

fn show(b: &[u8]) -> String {
    let s = String::from_utf8_lossy(b);
    if s.is_empty() {
        return "    (empty)\n".to_string();
    }
    s.lines().map(|l| format!("    |{l}\n")).collect()
}

#[test]
fn differential() {
    let filter = std::env::var("DIFF_FILTER").ok();
    // DIFF_RUN_SKIPPED=1 also runs the cases marked `#skip:` (to see if they pass now).
    let run_skipped = std::env::var_os("DIFF_RUN_SKIPPED").is_some();
    let cases = load_cases();
    assert!(
        !cases.is_empty(),
        "no cases found in {}",
        cases_dir().display()
    );
    let have_bash = bash_available();
    if !have_bash {
        eprintln!("differential: bash not found; running our shell only (checking for panics)");
    }
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    let mut report = String::new();
    let mut skips = String::new();
    for c in &cases {
        if let Some(f) = &filter
            && !c.name.contains(f.as_str())
            && !c.file.contains(f.as_str())
        {
            continue;
        }
        if let Some(reason) = &c.skip
            && !run_skipped
        {
            skipped += 1;
            skips.push_str(&format!("  skip {} :: {} ({reason})\n", c.file, c.name));
            continue;
        }
        let ours = run_ours(&c.script);
        let ok = if have_bash {
            let theirs = run_bash(&c.script);
            let same = ours.stdout == theirs.stdout && ours.status == theirs.status;
            if !same {
                report.push_str(&format!(
                    "\n=== MISMATCH {} :: {}\n--- script:\n{}--- bash (status {}):\n{}--- bash stderr:\n{}--- ours (status {}):\n{}--- ours stderr:\n{}",
                    c.file,
                    c.name,
                    show(c.script.as_bytes()),
                    theirs.status,
                    show(&theirs.stdout),
                    show(&theirs.stderr),
                    ours.status,
                    show(&ours.stdout),
                    show(&ours.stderr),
                ));
            }
            same
        } else {
            let ok = ours.status >= 0;
            if !ok {
                report.push_str(&format!(
                    "\n=== PANIC {} :: {}\n{}",
                    c.file,
                    c.name,
                    show(&ours.stderr)
                ));
            }
            ok
        };
        if ok {
            passed += 1;
        } else {
            failed += 1;
        }
    }
    if !report.is_empty() {
        eprintln!("{report}");
    }
    if !skips.is_empty() {
        eprintln!("skipped cases:\n{skips}");
    }
    eprintln!("differential: {passed} passed, {failed} failed, {skipped} skipped");
    assert_eq!(
        failed, 0,
        "{failed} differential case(s) differ from bash; see the report above"
    );
}

#[test]
fn case_files_parse() {
    let cases = load_cases();
    let mut names = std::collections::HashSet::new();
    for c in &cases {
        assert!(
            !c.script.trim().is_empty() || c.skip.is_some(),
            "empty case {} :: {}",
            c.file,
            c.name
        );
        assert!(
            names.insert((c.file.clone(), c.name.clone())),
            "duplicate case name {} :: {}",
            c.file,
            c.name
        );
    }
}

/// Debugging aid: `DIFF_ADHOC='script' cargo test --test differential adhoc -- --nocapture`
/// prints both shells' results for one script (`DIFF_ADHOC_OURS=1`: ours only).
#[test]
fn adhoc() {
    let Ok(script) = std::env::var("DIFF_ADHOC") else {
        return;
    };
    let ours = run_ours(&script);
    eprintln!(
        "--- ours (status {}):\n{}--- ours stderr:\n{}",
        ours.status,
        show(&ours.stdout),
        show(&ours.stderr)
    );
    // DIFF_ADHOC_OURS=1 skips real bash (for scripts that must not run on the host).
    if bash_available() && std::env::var_os("DIFF_ADHOC_OURS").is_none() {
        let theirs = run_bash(&script);
        eprintln!(
            "--- bash (status {}):\n{}--- bash stderr:\n{}",
            theirs.status,
            show(&theirs.stdout),
            show(&theirs.stderr)
        );
    }
}
