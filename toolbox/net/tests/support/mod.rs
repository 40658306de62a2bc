//! Test support of the network suites: the test HTTP server ([`server`]),
//! `### name` case files (the shape of `shell/tests/support/cases.rs`), and
//! running one script in our shell (with `curl`/`wget` installed over an
//! [`Egress`]) or in the host's bash with the real curl and wget.
#![allow(dead_code)]

pub mod server;

use std::path::Path;
use std::process::Command;

use sandkeep_net::Egress;
use sandkeep_shell::{RunOptions, Shell, ShellConfig};

/// What one run produced.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Exit status.
    pub status: i32,
    /// Stdout.
    pub stdout: String,
    /// Stderr.
    pub stderr: String,
}

/// One case: name, script, optional skip reason.
#[derive(Clone, Debug)]
pub struct Case {
    /// File and name.
    pub label: String,
    /// The script.
    pub script: String,
    /// Why it is skipped.
    pub skip: Option<String>,
}

/// Every `### name` case of every `*.txt` in `dir`, files in name order.
pub fn load_dir(dir: &Path) -> Vec<Case> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    let mut cases: Vec<Case> = Vec::new();
    for f in files {
        let file = f.file_name().unwrap().to_string_lossy().into_owned();
        let mut in_file: Vec<Case> = Vec::new();
        for line in std::fs::read_to_string(&f).unwrap().lines() {
            if let Some(name) = line.strip_prefix("### ") {
                in_file.push(Case {
                    label: format!("{file} :: {}", name.trim()),
                    script: String::new(),
                    skip: None,
                });
                continue;
            }
            let Some(c) = in_file.last_mut() else {
                continue;
            };
            if c.script.is_empty()
                && c.skip.is_none()
                && let Some(r) = line.strip_prefix("#skip:")
            {
                c.skip = Some(r.trim().to_string());
                continue;
            }
            c.script.push_str(line);
            c.script.push('\n');
        }
        for c in &in_file {
            assert!(
                !c.script.trim().is_empty() || c.skip.is_some(),
                "empty case {}",
                c.label
            );
            assert!(
                !cases.iter().any(|o| o.label == c.label),
                "duplicate case {}",
                c.label
            );
        }
        cases.extend(in_file);
    }
    cases
}

/// Timing numbers in curl's messages (`after 1001 ms`) vary run to run.
pub fn normalize(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("after ") {
        out.push_str(&rest[..i + 6]);
        rest = &rest[i + 6..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 {
            out.push('N');
            rest = &rest[digits..];
        }
    }
    out.push_str(rest);
    out
}

/// Runs `script` in a fresh shell of ours whose `curl`/`wget` go through `egress`.
pub fn run_ours(script: &str, env: &[(String, String)], egress: &Egress) -> Outcome {
    let shell = Shell::new(sandkeep_net::install(ShellConfig::default(), egress));
    let out = shell.run(
        script,
        RunOptions {
            env: env.to_vec(),
            ..RunOptions::default()
        },
    );
    Outcome {
        status: out.exit_code,
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs `script` with the host's bash in a fresh temp dir and a clean
/// environment (no ~/.curlrc or ~/.wgetrc). A script naming a `.invalid`
/// host runs without a network (`unshare -n`), so its failed lookup sends no
/// DNS query anywhere.
pub fn run_host(script: &str, env: &[(String, String)]) -> Outcome {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = if script.contains(".invalid") {
        let mut c = Command::new("unshare");
        c.args(["-n", "bash", "-c", script]);
        c
    } else {
        let mut c = Command::new("bash");
        c.args(["-c", script]);
        c
    };
    cmd.current_dir(dir.path())
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", dir.path())
        .env("LC_ALL", "C.UTF-8")
        .envs(env.iter().map(|(k, v)| (k, v)));
    let out = cmd.output().expect("run host bash");
    Outcome {
        status: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Whether the host has `tool` on PATH.
pub fn host_has(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|o| o.status.success())
}
