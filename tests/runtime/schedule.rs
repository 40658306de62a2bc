//! `sandkeep schedule` end to end, through the real binary: every fire is a
//! new session that remembers the last (on both backends), `--once`,
//! `--list`, overlap `skip`, graceful shutdown, and bad schedule files.

use crate::docker_support;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

fn sandkeep(data: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_sandkeep"));
    cmd.arg("--data")
        .arg(data)
        .env_remove("SANDKEEP_BACKEND")
        .env_remove("RUST_LOG");
    cmd
}

/// A temp dir holding a schedules dir and a data dir.
struct Fixture {
    _tmp: tempfile::TempDir,
    /// The schedules dir.
    dir: PathBuf,
    /// The `--data` dir.
    data: PathBuf,
}

/// A fixture whose schedules dir holds `files` (name, text).
fn fixture(files: &[(&str, &str)]) -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let (dir, data) = (tmp.path().join("schedules"), tmp.path().join("data"));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    Fixture {
        _tmp: tmp,
        dir,
        data,
    }
}

impl Fixture {
    /// `sandkeep --data DATA schedule ARGS... DIR`.
    fn schedule(&self, args: &[&str]) -> Command {
        let mut cmd = sandkeep(&self.data);
        cmd.arg("schedule").args(args).arg(&self.dir);
        cmd
    }

    /// Starts the scheduler on `backend`, its output piped.
    fn start(&self, backend: &str) -> Child {
        self.schedule(&["--backend", backend])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    /// Runs the scheduler on the local backend for `wait`, then stops it.
    fn run_for(&self, wait: Duration) -> Output {
        let child = self.start("local");
        std::thread::sleep(wait);
        terminate(child)
    }
}

/// The backends to test: local always, docker when a daemon and the image
/// are there (required under `SANDKEEP_REQUIRE_DOCKER=1`).
fn backends() -> Vec<&'static str> {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let docker = rt.block_on(docker_support::backend()).is_some();
    if docker {
        vec!["local", "docker"]
    } else {
        vec!["local"]
    }
}

const FIRES: &str = "---\ncron: \"* * * * * *\"\nagent: counter\n---\nCount the fires.\n\n```bash\necho fire >> fires.txt\necho FIRES=$(wc -l < fires.txt)\n```\n";

/// Sends SIGTERM and waits for the process.
fn terminate(child: Child) -> Output {
    Command::new("kill")
        .arg("-TERM")
        .arg(child.id().to_string())
        .status()
        .unwrap();
    child.wait_with_output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn every_fire_is_a_new_session_that_remembers_the_last() {
    for backend in backends() {
        let fx = fixture(&[("fires.md", FIRES)]);
        let child = fx.start(backend);
        // Wait for three fires (each fire completes its session before the next).
        let fires = fx.data.join("agents/counter/mindlog.jsonl");
        let deadline = std::time::Instant::now()
            + Duration::from_secs(if backend == "docker" { 60 } else { 20 });
        while std::time::Instant::now() < deadline {
            let did = std::fs::read_to_string(&fires)
                .unwrap_or_default()
                .matches("\"did\"")
                .count();
            if did >= 3 {
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let out = terminate(child);
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert!(
            out.status.success(),
            "{backend}: exit {:?}\n{stderr}",
            out.status
        );
        let lines: Vec<&str> = stdout.lines().collect();
        assert!(lines.len() >= 3, "{backend}: {stdout}\n{stderr}");
        assert_eq!(
            &lines[..3],
            ["[fires] FIRES=1", "[fires] FIRES=2", "[fires] FIRES=3"],
            "{backend}: {stderr}"
        );
        // The first fire found nothing kept; the next ones restored the archive,
        // each from a session of its own.
        let sync: Vec<&str> = stderr
            .lines()
            .filter(|l| l.contains("[workspace-sync]"))
            .collect();
        assert!(sync[0].contains("nothing kept yet"), "{backend}: {sync:?}");
        let restored: Vec<&str> = sync
            .iter()
            .copied()
            .filter(|l| l.contains("restored"))
            .collect();
        assert!(restored.len() >= 2, "{backend}: {sync:?}");
        let sessions: std::collections::HashSet<&str> = sync
            .iter()
            .filter_map(|l| l.split("[workspace-sync] ").nth(1)?.split(' ').next())
            .collect();
        assert!(sessions.len() >= 3, "{backend}: sessions {sessions:?}");
        // Each fire recorded what woke it and what it did.
        let log = std::fs::read_to_string(&fires).unwrap();
        assert!(
            log.matches("\"woke\"").count() >= 3 && log.contains("Count the fires."),
            "{log}"
        );
    }
}

#[test]
fn once_fires_now_and_exits_with_the_status() {
    let fx = fixture(&[
        ("ok.md", FIRES),
        (
            "bad.md",
            "---\ncron: \"@daily\"\n---\n```bash\necho half; exit 3\n```\n",
        ),
    ]);
    for expected in ["[ok] FIRES=1\n", "[ok] FIRES=2\n"] {
        let out = fx
            .schedule(&["--backend", "local", "--once", "ok"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert_eq!(text(&out.stdout), expected);
    }
    let out = sandkeep(&fx.data)
        .args(["-q", "schedule", "--backend", "local", "--once", "bad"])
        .arg(&fx.dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(text(&out.stdout), "[bad] half\n");
    let out = fx.schedule(&["--once", "nope"]).output().unwrap();
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("no schedule named \"nope\""),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn list_prints_each_schedule_with_its_next_three_fires() {
    let fx = fixture(&[(
        "hourly.md",
        "---\ncron: \"@hourly\"\nagent: owl\n---\n```bash\ntrue\n```\n",
    )]);
    let out = fx.schedule(&["--list"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let line = stdout.lines().next().unwrap();
    assert!(
        line.starts_with("hourly\tagent=owl\tcron=\"@hourly\"\tnext: "),
        "{line}"
    );
    let times: Vec<&str> = line.split("next: ").nth(1).unwrap().split(", ").collect();
    assert_eq!(times.len(), 3);
    for t in times {
        assert!(t.contains(":00:00"), "{t}");
    }
}

#[test]
fn overlap_skip_skips_fires_while_the_previous_session_runs() {
    let fx = fixture(&[(
        "slow.md",
        "---\ncron: \"* * * * * *\"\n---\n```bash\necho start >> runs.txt; sleep 2.5; echo RUNS=$(wc -l < runs.txt)\n```\n",
    )]);
    let out = fx.run_for(Duration::from_millis(4500));
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(
        stderr.contains("slow skipped: the previous session is still running"),
        "{stderr}"
    );
    // Fires never overlapped: each run saw only its own line and the ones before.
    assert!(stdout.starts_with("[slow] RUNS=1"), "{stdout}\n{stderr}");
}

#[test]
fn shutdown_lets_the_running_fire_keep_its_work() {
    let fx = fixture(&[(
        "late.md",
        "---\ncron: \"* * * * * *\"\nagent: late\n---\n```bash\nsleep 1.5; echo done > finished.txt\n```\n",
    )]);
    // Stop while the first fire is sleeping.
    let out = fx.run_for(Duration::from_millis(1800));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let ls = sandkeep(&fx.data)
        .args(["archive", "ls", "--agent", "late"])
        .output()
        .unwrap();
    assert!(
        text(&ls.stdout).contains("finished.txt"),
        "{}\n{}",
        text(&ls.stdout),
        text(&out.stderr)
    );
}

#[test]
fn bad_files_are_named_and_the_others_still_run() {
    let fx = fixture(&[
        ("good.md", FIRES),
        (
            "badcron.md",
            "---\ncron: \"99 * * * *\"\n---\n```bash\ntrue\n```\n",
        ),
        ("nofront.md", "just text\n"),
        ("nocode.md", "---\ncron: \"@daily\"\n---\nonly prose\n"),
    ]);
    let out = fx.schedule(&["--list"]).output().unwrap();
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("badcron.md:2: invalid cron expression"),
        "{stderr}"
    );
    assert!(
        stderr.contains("nofront.md:1: missing frontmatter"),
        "{stderr}"
    );
    assert!(
        text(&out.stdout).contains("good\tagent=counter"),
        "{}",
        text(&out.stdout)
    );
    // A schedule with no code block and no custom agent fails when fired, by name.
    let out = fx
        .schedule(&["--backend", "local", "--once", "nocode"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("nocode.md: no ```bash block to run"),
        "{}",
        text(&out.stderr)
    );
}

/// `allow_net:` in the frontmatter opens the network for that schedule's
/// sessions only; a schedule without it is denied (network feature).
#[cfg(feature = "net")]
#[test]
fn allow_net_in_frontmatter_applies_to_that_schedule_only() {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let server = std::thread::spawn(move || {
        // Exactly one request is expected: the allowed schedule's.
        if let Ok((mut conn, _)) = listener.accept() {
            let mut buf = [0u8; 4096];
            let _ = conn.read(&mut buf);
            let _ = conn.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\nConnection: close\r\n\r\nfetch\n",
            );
        }
    });
    let script = format!("```bash\ncurl -sS http://{addr}/\n```\n");
    let fx = fixture(&[
        (
            "open.md",
            &format!("---\ncron: \"@daily\"\nallow_net: {addr}\n---\n{script}"),
        ),
        (
            "closed.md",
            &format!("---\ncron: \"@daily\"\n---\n{script}"),
        ),
    ]);
    let out = fx
        .schedule(&["--backend", "local", "--once", "closed"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(56), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains(&format!("network policy denies {addr} (allowed: nothing)"))
            || text(&out.stdout).contains("network policy denies"),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    let out = fx
        .schedule(&["--backend", "local", "--once", "open"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "[open] fetch\n");
    server.join().unwrap();
    let bad = fixture(&[(
        "bad.md",
        "---\ncron: \"@daily\"\nallow_net: ex!ample.com\n---\ntrue\n",
    )]);
    let out = bad.schedule(&["--list"]).output().unwrap();
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("bad network rule"),
        "{}",
        text(&out.stderr)
    );
}
