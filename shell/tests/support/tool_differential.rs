//! The differential harness of the toolbox commands that have a host twin
//! (`sqlite3`, `node`): each case runs in a local shell with the command
//! installed AND in host bash in a fresh temp dir (its path reads as
//! `/workspace` on both sides); stdout and exit status must match. Included
//! by path (`#[path]`) from each crate's `tests/differential.rs`, beside
//! `cases.rs`, which it needs as `cases`.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use sandkeep_shell::{RunOptions, Shell, ShellConfig};

/// One command's suite.
pub struct Suite {
    /// The command's name in messages (`sqlite3`).
    pub name: &'static str,
    /// Adds the command to a shell configuration.
    pub install: fn(ShellConfig) -> ShellConfig,
    /// The host tool the cases need (the suite skips without it).
    pub host_tool: &'static str,
    /// The variable that selects cases by substring and prints both sides.
    pub only_var: &'static str,
    /// The folder of `*.txt` case files.
    pub cases: &'static str,
    /// The fewest cases a full run must hold.
    pub min_cases: usize,
}

/// What one side produced.
#[derive(Debug, PartialEq, Eq)]
pub struct Outcome {
    pub status: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Suite {
    /// True when the host tool is there (else the suite says it skips).
    pub fn host_has_tool(&self) -> bool {
        let found = Path::new(self.host_tool).exists();
        if !found {
            eprintln!("SKIP: no {} on this host", self.host_tool);
        }
        found
    }

    /// `script` in a local shell with the command installed.
    pub fn ours(&self, script: &str) -> Outcome {
        let shell = Shell::new((self.install)(ShellConfig::default()));
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

    /// `script` in host bash, in a fresh temp dir.
    pub fn host(&self, script: &str) -> Outcome {
        use std::sync::atomic::{AtomicU64, Ordering};
        static N: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!(
            "sandkeep-{}-case-{}-{}",
            self.name,
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

    /// Runs every case on both sides and asserts they agree (a `#skip`
    /// case must still differ).
    pub fn run(&self) {
        if !self.host_has_tool() {
            return;
        }
        let all = super::cases::load_dir(Path::new(self.cases));
        super::cases::assert_well_formed(&all);
        let only = std::env::var(self.only_var).ok();
        let (mut passed, mut failed, mut skipped, mut stale) = (0, Vec::new(), 0, Vec::new());
        for case in &all {
            if let Some(o) = &only
                && !case.label().contains(o.as_str())
            {
                continue;
            }
            let theirs = self.host(&case.script);
            let mine = self.ours(&case.script);
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
            "{} differential: {passed} passed, {} failed, {skipped} skipped (known differences), {} stale skips, {total} cases",
            self.name,
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
            "{} cases differ from host {}",
            failed.len(),
            self.name
        );
        assert!(stale.is_empty(), "{} skipped cases now pass", stale.len());
        if only.is_none() {
            assert!(total >= self.min_cases, "only {total} cases");
        }
    }
}
