//! The stream devices `/dev/zero`, `/dev/full`, `/dev/random` and
//! `/dev/urandom`: read by name and through `<`, in pipelines, with byte
//! counts compared against real bash where the output is deterministic;
//! `/dev/full` refusing writes; the random devices following the shell's
//! determinism option; endless reads ending with the run's timeout, and so
//! do reads of a FIFO no writer comes to.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::suite::off_suites;
use crate::support::text;
use sandkeep_shell::{Determinism, LimitKind, Limits, RunOptions, RunOutput, Shell, ShellConfig};

fn shell() -> Shell {
    Shell::new(ShellConfig::default())
}

fn seeded(seed: u64) -> Shell {
    Shell::new(ShellConfig {
        deterministic: Some(Determinism {
            seed,
            ..Determinism::default()
        }),
        ..ShellConfig::default()
    })
}

fn run(sh: &Shell, script: &str) -> RunOutput {
    sh.run(
        script,
        RunOptions {
            timeout: Some(Duration::from_secs(20)),
            ..RunOptions::default()
        },
    )
}

/// Real bash's stdout and status for `script`, run in a fresh temp dir;
/// `None` when bash (or the host device) is missing.
fn bash(script: &str) -> Option<(String, i32)> {
    if !std::path::Path::new("/dev/urandom").exists() {
        return None;
    }
    let dir = std::env::temp_dir().join(format!(
        "sandkeep-devices-{}-{}",
        std::process::id(),
        script.len()
    ));
    std::fs::create_dir_all(&dir).ok()?;
    let out = Command::new("bash")
        .arg("-c")
        .arg(script)
        .current_dir(&dir)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("LANG", "C.UTF-8")
        .stdin(Stdio::null())
        .output()
        .ok();
    let _ = std::fs::remove_dir_all(&dir);
    let out = out?;
    Some((text(&out.stdout), out.status.code().unwrap_or(128)))
}

/// Scripts whose output does not depend on the random bytes: byte and line
/// counts, zeros, statuses.
const COUNTS: &[&str] = &[
    "head -c 2048 /dev/zero > f; wc -c f",
    "head -c 16 /dev/urandom | wc -c",
    "head -c 16 /dev/random | wc -c",
    "head -c 70000 /dev/urandom | wc -c",
    "head -c 100000 < /dev/zero | wc -c",
    "tr -dc 'a-z' < /dev/urandom | head -c 8 | wc -c",
    "tr -dc 'a-z' < /dev/urandom | head -c 300 | tr -d 'a-z' | wc -c",
    "cat /dev/zero | head -c 5 | od -An -c",
    "cat /dev/urandom | head -c 5 | wc -c",
    "head -c 4 < /dev/zero | od -An -tx1",
    "cat /dev/full | head -c 3 | od -An -tx1",
    "head -c 3 < /dev/full | od -An -tx1",
    "head -c 3 /dev/null | wc -c; wc -c < /dev/null; cat /dev/null | wc -c",
    // `tr` first: our wc -l loses a newline right after a truncated UTF-8
    // lead byte (commands/files/wc.rs), which random bytes hit often.
    "head -n 3 /dev/urandom | tr -dc '\\n' | wc -c",
    "head -c 1000 /dev/urandom | base64 -w0 | wc -c",
    "head -c 1000 < /dev/zero | tr '\\0' x | head -c 10; echo",
    "cd /dev && head -c 3 zero | wc -c",
    "ln -s /dev/urandom r && head -c 7 r | wc -c",
    "exec 3</dev/zero; head -c 2 <&3 | wc -c; head -c 3 <&3 | wc -c; exec 3<&-",
    "echo hi > /dev/full; echo $?",
    "printf x >> /dev/full; echo $?",
    ": > /dev/full; echo $?",
    "echo gone > /dev/zero; echo $?; echo gone > /dev/urandom; echo $?",
    "[ -c /dev/zero ] && [ -c /dev/full ] && [ -c /dev/urandom ] && [ -r /dev/random ] && echo chars",
    "for d in zero full random urandom null; do stat -c '%n %F %a' /dev/$d; done",
    "ls -l /dev/zero /dev/full /dev/random /dev/urandom | cut -c1-10",
    "ls /dev | grep -E '^(null|zero|full|random|urandom)$'",
    "i=0; while [ $i -lt 50 ]; do head -c 1 < /dev/urandom; i=$((i+1)); done | wc -c",
    "x=$(head -c 12 /dev/urandom | od -An -tx1 -v | wc -w); echo $x",
];

#[test]
fn counts_and_statuses_match_bash() {
    let _off_suites = off_suites();
    let sh = shell();
    let mut failures = Vec::new();
    for script in COUNTS {
        let ours = run(&sh, script);
        let got = (text(&ours.stdout), ours.exit_code);
        let Some(want) = bash(script) else {
            eprintln!("bash or /dev/urandom missing: checking our shell only");
            assert!(ours.limit.is_none(), "{script}: {}", text(&ours.stderr));
            continue;
        };
        if got != want {
            failures.push(format!(
                "{script}\n  bash: {want:?}\n  ours: {got:?} stderr {:?}",
                text(&ours.stderr)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn urandom_gives_varied_bytes() {
    let _off_suites = off_suites();
    let sh = shell();
    let o = run(&sh, "tr -dc 'a-z' < /dev/urandom | head -c 2000");
    assert_eq!(o.exit_code, 0, "{}", text(&o.stderr));
    assert_eq!(o.stdout.len(), 2000);
    assert!(o.stdout.iter().all(u8::is_ascii_lowercase));
    let mut seen = [false; 26];
    for b in &o.stdout {
        seen[(b - b'a') as usize] = true;
    }
    assert!(seen.iter().all(|&s| s), "every letter shows up in 2000");
    // Every byte value turns up in 64 KiB of random bytes.
    let o = run(
        &sh,
        "head -c 65536 /dev/urandom | od -An -tu1 -v | tr -s ' ' '\\n' | sort -u | grep -c .",
    );
    assert_eq!(text(&o.stdout), "256\n", "{}", text(&o.stderr));
}

#[test]
fn each_open_reads_different_bytes() {
    let _off_suites = off_suites();
    for sh in [shell(), seeded(7)] {
        let o = run(
            &sh,
            "a=$(head -c 16 /dev/urandom | od -An -tx1)\n\
             b=$(head -c 16 < /dev/urandom | od -An -tx1)\n\
             c=$(head -c 16 /dev/random | od -An -tx1)\n\
             [ \"$a\" != \"$b\" ] && [ \"$b\" != \"$c\" ] && [ \"$a\" != \"$c\" ] && echo differ",
        );
        assert_eq!(text(&o.stdout), "differ\n", "{}", text(&o.stderr));
    }
}

#[test]
fn deterministic_shells_repeat_their_bytes() {
    let _off_suites = off_suites();
    let script = "head -c 32 /dev/urandom | od -An -tx1; head -c 8 < /dev/random | od -An -tx1; \
                  tr -dc 'A-Za-z0-9' < /dev/urandom | head -c 12; echo";
    let a = run(&seeded(42), script);
    let b = run(&seeded(42), script);
    assert_eq!(a.exit_code, 0, "{}", text(&a.stderr));
    assert_eq!(a.stdout, b.stdout, "same seed, same bytes");
    let c = run(&seeded(43), script);
    assert_ne!(a.stdout, c.stdout, "another seed, other bytes");
    // Without determinism, two sandboxes differ.
    let d = run(&shell(), script);
    let e = run(&shell(), script);
    assert_ne!(d.stdout, e.stdout);
}

/// A shell whose runs time out after `secs`.
fn timed(secs: u64) -> Shell {
    Shell::new(ShellConfig {
        limits: Limits {
            timeout: Duration::from_secs(secs),
            ..Limits::default()
        },
        ..ShellConfig::default()
    })
}

/// `script` (which echoes "never" if it gets past its endless part) ends
/// at the run's timeout, well within 5 s, and prints no "never".
fn ends_with_the_timeout(sh: &Shell, script: &str) {
    let start = Instant::now();
    let o = sh.run(script, RunOptions::default());
    let took = start.elapsed();
    assert_eq!(o.exit_code, 124, "{script}: {}", text(&o.stderr));
    assert_eq!(o.limit, Some(LimitKind::Timeout), "{script}");
    assert!(!text(&o.stdout).contains("never"), "{script}");
    assert!(took < Duration::from_secs(5), "{script} took {took:?}");
}

#[test]
fn endless_reads_end_with_the_timeout() {
    let _off_suites = off_suites();
    let sh = timed(1);
    for script in [
        "cat /dev/zero > /dev/null; echo never",
        "cat < /dev/zero > /dev/null; echo never",
        "cat /dev/urandom | wc -c; echo never",
        "tail -c 5 /dev/zero; echo never",
        "while :; do head -c 1000 /dev/zero; done > /dev/null; echo never",
        "while :; do head -c 1000 < /dev/urandom; done | wc -c > /dev/null; echo never",
    ] {
        ends_with_the_timeout(&sh, script);
    }
    // The sandbox is usable afterwards and nothing was left behind.
    let o = sh.run("head -c 3 /dev/zero | wc -c", RunOptions::default());
    assert_eq!((text(&o.stdout), o.exit_code), ("3\n".into(), 0));
}

#[test]
fn fifo_reads_without_a_writer_end_with_the_timeout() {
    let _off_suites = off_suites();
    let sh = timed(1);
    let o = sh.run("mkfifo p", RunOptions::default());
    assert_eq!(o.exit_code, 0, "{}", text(&o.stderr));
    for script in [
        "cat p; echo never",
        "cat < p; echo never",
        "read -r x < p; echo never",
        "wc -l p; echo never",
        "sort p | head -1; echo never",
    ] {
        ends_with_the_timeout(&sh, script);
    }
    // A writer that ran before the reader (as a deterministic run runs a
    // background job) leaves its data queued; the reader takes it and ends.
    let script = "mkfifo q; printf 'a\\nb\\n' > q & sort -r q; wait; echo 'x' > q; cat q";
    for sh in [shell(), seeded(7)] {
        let o = run(&sh, script);
        assert_eq!(
            (text(&o.stdout), o.exit_code),
            ("b\na\nx\n".into(), 0),
            "{}",
            text(&o.stderr)
        );
    }
}

#[test]
fn full_refuses_writes_and_reads_zeros() {
    let _off_suites = off_suites();
    let sh = shell();
    let o = run(
        &sh,
        "echo hi > /dev/full; echo $?; printf x >> /dev/full; echo $?; \
         head -c 10000 /dev/zero > /dev/full; echo $?",
    );
    assert_eq!(text(&o.stdout), "1\n1\n1\n", "{}", text(&o.stderr));
    let o = run(&sh, "head -c 5 /dev/full | tr '\\0' z");
    assert_eq!(text(&o.stdout), "zzzzz");
    // `/dev/full` is not replaced by a regular file.
    let o = run(
        &sh,
        "echo x > /dev/full; [ -c /dev/full ] && echo still a device",
    );
    assert_eq!(text(&o.stdout), "still a device\n");
}

/// Write errors on `/dev/full` as bash and coreutils report them.
#[test]
fn full_write_error_messages() {
    let _off_suites = off_suites();
    let sh = shell();
    for (script, stderr) in [
        (
            "echo hi > /dev/full",
            "bash: line 1: echo: write error: No space left on device\n",
        ),
        (
            "printf x > /dev/full",
            "bash: line 1: printf: write error: No space left on device\n",
        ),
        (
            "cat /etc/hostname > /dev/full",
            "cat: write error: No space left on device\n",
        ),
    ] {
        let o = run(&sh, script);
        assert_eq!(
            (o.exit_code, text(&o.stderr)),
            (1, stderr.into()),
            "{script}"
        );
    }
}

#[test]
fn devices_write_nothing_to_the_tree() {
    let _off_suites = off_suites();
    let sh = shell();
    let before = sh.fs().usage();
    let o = run(
        &sh,
        "head -c 100000 /dev/urandom > /dev/null; cat /dev/zero | head -c 10 > /dev/zero; echo x > /dev/urandom",
    );
    assert_eq!(o.exit_code, 0, "{}", text(&o.stderr));
    assert_eq!(sh.fs().usage(), before);
}
