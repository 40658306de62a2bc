//! Our `git` in the local sandbox side by side with the host's git:
//! `status` and `diff` on a 2,000-file repository, `add -A` + `commit` of
//! 2,000 files, `log` of 1,000 commits. Host git is timed as a process
//! (its start counted, as an agent's shell pays it); ours as a script run in
//! the sandbox shell. Both sides build the same repository (same files,
//! identities and dates: the same commit ids, checked), each side is run
//! once to warm up, then the runs alternate ours/host so a busy machine
//! slows both alike. Prints the median of the runs and the ratio.
//!
//! Also `blame` of a 1,000-line file whose every line a different commit
//! changed, and `log --graph` of that 1,000-commit history with a merge
//! every 20 commits.
//!
//! Run: `cargo bench -p sandkeep-git --bench git_vs_host`
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use sandkeep_shell::{RunOptions, Shell, ShellConfig};

const ENV: &[(&str, &str)] = &[
    ("GIT_AUTHOR_NAME", "A U Thor"),
    ("GIT_AUTHOR_EMAIL", "author@example.com"),
    ("GIT_COMMITTER_NAME", "C O Mitter"),
    ("GIT_COMMITTER_EMAIL", "committer@example.com"),
    ("GIT_AUTHOR_DATE", "1700000000 +0000"),
    ("GIT_COMMITTER_DATE", "1700000000 +0000"),
    ("GIT_CONFIG_NOSYSTEM", "1"),
];

/// 2,000 files in 40 directories, each a few lines.
const MAKE_FILES: &str = "for d in $(seq 1 40); do mkdir -p dir$d; for f in $(seq 1 50); do printf 'line one of %s\\nline two\\nline three %s\\n' $d $f > dir$d/file$f.txt; done; done";
const MODIFY: &str = "for d in $(seq 1 20); do echo changed >> dir$d/file7.txt; done";
const RUNS: usize = 15;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ours_shell() -> Shell {
    Shell::new(sandkeep_git::install(ShellConfig::default()))
}

fn ours_run(shell: &Shell, script: &str) -> Duration {
    let opts = RunOptions {
        env: ENV
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .chain([("HOME".to_string(), "/tmp".to_string())])
            .collect(),
        timeout: Some(Duration::from_secs(600)),
        ..RunOptions::default()
    };
    let start = Instant::now();
    let out = shell.run(script, opts);
    let took = start.elapsed();
    assert_eq!(
        out.exit_code,
        0,
        "ours: {script}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    took
}

fn host_bash(dir: &Path, script: &str) {
    let out = Command::new("bash")
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .env("HOME", dir)
        .envs(ENV.iter().copied())
        .stdout(Stdio::null())
        .output()
        .expect("bash");
    assert!(
        out.status.success(),
        "host: {script}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn host_git(dir: &Path, args: &[&str]) -> Duration {
    let start = Instant::now();
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("HOME", dir)
        .envs(ENV.iter().copied())
        .stdout(Stdio::null())
        .output()
        .expect("git");
    let took = start.elapsed();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    took
}

/// Times `ours_script` and host `git host_args` alternately (after one
/// warm-up run of each); the medians.
fn side_by_side(
    shell: &Shell,
    ours_script: &str,
    dir: &Path,
    host_args: &[&str],
) -> (Duration, Duration) {
    ours_run(shell, ours_script);
    host_git(dir, host_args);
    let mut ours = Vec::new();
    let mut host = Vec::new();
    for _ in 0..RUNS {
        ours.push(ours_run(shell, ours_script));
        host.push(host_git(dir, host_args));
    }
    (median(ours), median(host))
}

/// Checks that both sides hold the same history (same `HEAD` id).
fn same_head(shell: &Shell, dir: &Path) {
    let ours = shell.run(
        "git rev-parse HEAD",
        RunOptions {
            env: vec![("HOME".into(), "/tmp".into())],
            ..RunOptions::default()
        },
    );
    let host = Command::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(dir)
        .output()
        .expect("git");
    assert_eq!(
        String::from_utf8_lossy(&ours.stdout),
        String::from_utf8_lossy(&host.stdout),
        "the two repositories differ"
    );
}

fn report(name: &str, ours: Duration, host: Duration) {
    println!(
        "{name:<34} ours {:>9.2} ms   host git {:>9.2} ms   ours/host {:>5.2}",
        ours.as_secs_f64() * 1e3,
        host.as_secs_f64() * 1e3,
        ours.as_secs_f64() / host.as_secs_f64()
    );
}

fn main() {
    if Command::new("git").arg("--version").output().is_err() {
        eprintln!("host git not found; nothing to compare");
        return;
    }
    let tmp = std::env::temp_dir().join(format!("sandkeep-gitbench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);

    // 2,000 files: status and diff.
    let host_dir = tmp.join("files");
    std::fs::create_dir_all(&host_dir).unwrap();
    let setup =
        format!("git init -q && {MAKE_FILES} && git add -A && git commit -q -m base && {MODIFY}");
    host_bash(&host_dir, &setup);
    let shell = ours_shell();
    ours_run(&shell, &setup);
    same_head(&shell, &host_dir);
    let (ours, host) = side_by_side(&shell, "git status > /dev/null", &host_dir, &["status"]);
    report("status, 2,000 files (20 modified)", ours, host);
    let (ours, host) = side_by_side(&shell, "git diff > /dev/null", &host_dir, &["diff"]);
    report("diff, 2,000 files (20 modified)", ours, host);

    // add -A + commit of 2,000 new files, each run in a fresh repository.
    let mut ours_t = Vec::new();
    let mut host_t = Vec::new();
    for n in 0..RUNS {
        let d = tmp.join(format!("commit{n}"));
        std::fs::create_dir_all(&d).unwrap();
        host_bash(&d, &format!("git init -q && {MAKE_FILES}"));
        let a = host_git(&d, &["add", "-A"]);
        let c = host_git(&d, &["commit", "-q", "-m", "all"]);
        host_t.push(a + c);
        let shell = ours_shell();
        ours_run(&shell, &format!("git init -q && {MAKE_FILES}"));
        ours_t.push(ours_run(&shell, "git add -A && git commit -q -m all"));
        same_head(&shell, &d);
    }
    report(
        "add -A + commit of 2,000 files",
        median(ours_t),
        median(host_t),
    );

    // log of 1,000 commits.
    let log_dir = tmp.join("log");
    std::fs::create_dir_all(&log_dir).unwrap();
    let make_log = "git init -q && for i in $(seq 1 1000); do echo $i > f; git add f; GIT_COMMITTER_DATE=\"$((1700000000+i)) +0000\" git commit -q -m \"commit $i\"; done";
    host_bash(&log_dir, make_log);
    let shell = ours_shell();
    ours_run(&shell, make_log);
    same_head(&shell, &log_dir);
    let (ours, host) = side_by_side(&shell, "git log > /dev/null", &log_dir, &["log"]);
    report("log of 1,000 commits", ours, host);
    let (ours, host) = side_by_side(
        &shell,
        "git log --oneline > /dev/null",
        &log_dir,
        &["log", "--oneline"],
    );
    report("log --oneline of 1,000 commits", ours, host);

    // blame and log --graph: 1,000 commits, each rewriting one line of a
    // 1,000-line file, a side branch merged every 20 commits.
    let blame_dir = tmp.join("blame");
    std::fs::create_dir_all(&blame_dir).unwrap();
    let make_blame = "git init -q && seq 1 1000 > f && git add f && git commit -q -m base && \
        for i in $(seq 1 1000); do sed -i \"${i}s/.*/x$i/\" f; \
        GIT_COMMITTER_DATE=\"$((1700000000+i)) +0000\" git commit -q -am \"c$i\"; \
        if [ $((i % 20)) -eq 0 ]; then git switch -q -c t$i HEAD~2 && echo $i > s$i && git add s$i && \
        GIT_COMMITTER_DATE=\"$((1700000000+i)) +0000\" git commit -q -m \"s$i\" && git switch -q master && \
        GIT_COMMITTER_DATE=\"$((1700000000+i)) +0000\" git merge -q --no-ff t$i -m \"m$i\"; fi; done";
    host_bash(&blame_dir, make_blame);
    let shell = ours_shell();
    ours_run(&shell, make_blame);
    same_head(&shell, &blame_dir);
    let (ours, host) = side_by_side(
        &shell,
        "git blame f > /dev/null",
        &blame_dir,
        &["blame", "f"],
    );
    report("blame, 1,000 lines by 1,000 commits", ours, host);
    let (ours, host) = side_by_side(
        &shell,
        "git log --graph --oneline > /dev/null",
        &blame_dir,
        &["log", "--graph", "--oneline"],
    );
    report("log --graph --oneline, 1,050 commits", ours, host);

    let _ = std::fs::remove_dir_all(&tmp);
}
