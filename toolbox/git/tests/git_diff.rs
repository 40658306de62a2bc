//! The differential suite of `git`: every case of `tests/git_cases/*.txt`
//! runs in a fresh sandbox shell with our `git`, and in host bash with the
//! host's git (2.47) in a temp dir, with the same fixed identities and
//! dates, `HOME` an empty directory and `GIT_CONFIG_NOSYSTEM=1`; stdout and
//! exit status must agree (commit ids included).
//!
//! Run: `cargo test --release -p sandkeep-git --test git_diff`
//! (`GIT_CASES=word` runs the cases whose file or name contains `word`).
//! Cases marked `#skip:` are known differences, listed with the reason.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

#[path = "../../../shell/tests/support/cases.rs"]
#[allow(dead_code)]
mod cases;

use std::path::Path;
use std::process::{Command, Stdio};

use sandkeep_shell::{RunOptions, Shell, ShellConfig};

/// What each script starts with, on both sides: identities, a clock that
/// `tick` advances (as git's own test suite does), a home of its own.
const PRELUDE: &str = r#"export GIT_AUTHOR_NAME='A U Thor' GIT_AUTHOR_EMAIL=author@example.com
export GIT_COMMITTER_NAME='C O Mitter' GIT_COMMITTER_EMAIL=committer@example.com
export GIT_CONFIG_NOSYSTEM=1 TZ=UTC
T=1700000000
export GIT_AUTHOR_DATE="$T +0000" GIT_COMMITTER_DATE="$T +0000"
tick() { T=$((T+60)); export GIT_AUTHOR_DATE="$T +0000" GIT_COMMITTER_DATE="$T +0000"; }
mkdir -p "$HOME"
setup() { git init -q && echo one > a.txt && printf 'x\ny\nz\n' > b.txt && git add . && git commit -q -m initial; }
hist() { git init -q && for i in 1 2 3 4 5; do echo "line $i" >> f.txt; git add f.txt; tick; git commit -q -m "commit $i"; done; }
merged() { setup; git switch -q -c side; tick; echo s > s.txt; git add s.txt; git commit -qm 'side work'; git switch -q master; tick; echo m > m.txt; git add m.txt; git commit -qm 'main work'; tick; git merge -q --no-ff side -m 'Merge branch side'; }
"#;

struct Outcome {
    status: i32,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

fn ours(script: &str) -> Outcome {
    let shell = Shell::new(sandkeep_git::install(ShellConfig::default()));
    let out = shell.run(
        &format!("{PRELUDE}{script}"),
        RunOptions {
            env: vec![("HOME".into(), "/tmp/home".into())],
            timeout: Some(std::time::Duration::from_secs(30)),
            ..RunOptions::default()
        },
    );
    Outcome {
        status: out.exit_code,
        stdout: out.stdout,
        stderr: out.stderr,
    }
}

fn host_git_available() -> bool {
    Command::new("git")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn host(script: &str, n: usize) -> Outcome {
    let root = std::env::temp_dir().join(format!("sandkeep-gitdiff-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let work = root.join("work");
    std::fs::create_dir_all(&work).expect("temp dir");
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!("{PRELUDE}{script}"))
        .current_dir(&work)
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", root.join("home"))
        .env("LANG", "C")
        .stdin(Stdio::null())
        .output()
        .expect("run bash");
    let _ = std::fs::remove_dir_all(&root);
    Outcome {
        status: out.status.code().unwrap_or(128),
        stdout: out.stdout,
        stderr: out.stderr,
    }
}

fn show(b: &[u8]) -> String {
    let s = String::from_utf8_lossy(b);
    s.lines().map(|l| format!("    |{l}\n")).collect()
}

#[test]
fn git_cases_match_host_git() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/git_cases");
    let all = cases::load_dir(&dir);
    cases::assert_well_formed(&all);
    let filter = std::env::var("GIT_CASES").ok();
    let have_git = host_git_available();
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    let mut report = String::new();
    for (n, c) in all.iter().enumerate() {
        if filter
            .as_deref()
            .is_some_and(|f| !c.file.contains(f) && !c.name.contains(f))
        {
            continue;
        }
        if let Some(reason) = &c.skip {
            skipped += 1;
            report.push_str(&format!("  skip {} ({reason})\n", c.label()));
            continue;
        }
        let o = ours(&c.script);
        if !have_git {
            passed += 1;
            continue;
        }
        let h = host(&c.script, n);
        if o.stdout == h.stdout && o.status == h.status {
            passed += 1;
        } else {
            failed += 1;
            report.push_str(&format!(
                "\n=== MISMATCH {}\n--- script:\n{}--- git (status {}):\n{}--- git stderr:\n{}--- ours (status {}):\n{}--- ours stderr:\n{}",
                c.label(),
                show(c.script.as_bytes()),
                h.status,
                show(&h.stdout),
                show(&h.stderr),
                o.status,
                show(&o.stdout),
                show(&o.stderr)
            ));
        }
    }
    eprintln!("{report}");
    eprintln!("git cases: {passed} passed, {failed} failed, {skipped} skipped");
    let total = passed + failed;
    if filter.is_none() {
        assert!(
            total + skipped >= 300,
            "the suite must hold at least 300 cases, it has {}",
            total + skipped
        );
    }
    assert_eq!(
        failed, 0,
        "{failed} git case(s) differ from host git; see the report above"
    );
}
