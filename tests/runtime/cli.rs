//! The `sandkeep` binary on the local backend: the seed's FIRES evidence,
//! logs, exit statuses, the REPL, the mindlog and archive commands, a corrupt
//! archive, crash safety under `kill -9`, and output: whole and streamed by
//! default (compared with bash and GNU tools), cut by `--max-output`, ended
//! by a closed stdout as SIGPIPE ends bash.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use crate::common;

use std::path::Path;
use std::time::Instant;

use common::{cli, cli_output, cli_with_stdin, sync_lines};
use sandkeep::Generations;

const LOCAL: &str = "local";

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn fires_twice_with_the_sync_log_lines() {
    common::fires_via_cli(LOCAL);
}

#[test]
fn quiet_hides_the_sync_lines_and_stdout_stays_clean() {
    let data = tempfile::tempdir().unwrap();
    let o = cli_output(
        data.path(),
        LOCAL,
        &["-q", "run", "--agent", "q", "-c", "echo out; echo err >&2"],
    );
    assert!(o.status.success());
    assert_eq!(
        text(&o.stdout),
        "out\n",
        "only the script's stdout on stdout"
    );
    assert_eq!(text(&o.stderr), "err\n", "no log lines with -q");
    let o = cli_output(
        data.path(),
        LOCAL,
        &["run", "--agent", "q", "-c", "echo out"],
    );
    assert_eq!(text(&o.stdout), "out\n");
    assert_eq!(sync_lines(&o.stderr).len(), 2, "{}", text(&o.stderr));
}

#[test]
fn exit_status_is_the_scripts() {
    let data = tempfile::tempdir().unwrap();
    let o = cli_output(data.path(), LOCAL, &["run", "-c", "echo partial; exit 7"]);
    assert_eq!(o.status.code(), Some(7));
    assert_eq!(text(&o.stdout), "partial\n");
    let o = cli_output(data.path(), LOCAL, &["run", "-c", "no_such_command_here"]);
    assert_eq!(o.status.code(), Some(127));
    assert!(
        text(&o.stderr).contains("command not found"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn ephemeral_runs_keep_nothing() {
    let data = tempfile::tempdir().unwrap();
    let o = cli_output(
        data.path(),
        LOCAL,
        &["run", "-c", "echo x > x.txt; cat x.txt"],
    );
    assert_eq!(text(&o.stdout), "x\n");
    assert!(sync_lines(&o.stderr).is_empty());
    assert_eq!(
        std::fs::read_dir(data.path()).unwrap().count(),
        0,
        "nothing written under --data"
    );
}

#[test]
fn scripts_from_files_and_stdin() {
    let data = tempfile::tempdir().unwrap();
    let script = data.path().join("s.sh");
    std::fs::write(&script, "echo from file\n").unwrap();
    let o = cli_output(data.path(), LOCAL, &["run", script.to_str().unwrap()]);
    assert_eq!(text(&o.stdout), "from file\n");
    let o = cli_with_stdin(data.path(), LOCAL, &["run", "-"], "echo from stdin\n");
    assert_eq!(text(&o.stdout), "from stdin\n");
    let o = cli_with_stdin(
        data.path(),
        LOCAL,
        &["run", "-c", "cat; echo done"],
        "piped\n",
    );
    assert_eq!(text(&o.stdout), "piped\ndone\n");
    let o = cli_output(data.path(), LOCAL, &["run", "/no/such/file.sh"]);
    assert_eq!(o.status.code(), Some(125));
    assert!(
        text(&o.stderr).contains("/no/such/file.sh"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn shell_runs_one_turn_per_line_and_keeps_after_each() {
    let data = tempfile::tempdir().unwrap();
    let o = cli_with_stdin(
        data.path(),
        LOCAL,
        &["shell", "--agent", "r"],
        "echo one > f.txt\ncd /tmp; x=5\necho \"[$x] $(pwd)\"; cat /workspace/f.txt\n\nexit 3\n",
    );
    // One shell for the session's lines (issue 34): cwd and variables carry.
    assert_eq!(text(&o.stdout), "[5] /tmp\none\n");
    assert_eq!(o.status.code(), Some(3), "the last line's status");
    let lines = sync_lines(&o.stderr);
    let outcomes: Vec<_> = lines
        .iter()
        .map(|(_, o)| o.split(' ').next().unwrap())
        .collect();
    assert_eq!(outcomes[0], "nothing");
    // One park per line; only the first changed anything, so only it made a
    // generation.
    assert_eq!(
        outcomes.iter().filter(|o| **o == "kept").count(),
        1,
        "{lines:?}"
    );
    assert_eq!(
        outcomes.iter().filter(|o| **o == "unchanged").count(),
        4,
        "{lines:?}"
    );
    let o = cli_output(
        data.path(),
        LOCAL,
        &["run", "--agent", "r", "-c", "cat f.txt"],
    );
    assert_eq!(text(&o.stdout), "one\n");
}

#[test]
fn mindlog_commands() {
    let data = tempfile::tempdir().unwrap();
    let d = data.path();
    for (kind, t) in [
        ("woke", "woke up early"),
        ("note", "Buy MILK"),
        ("said", "hello there"),
        ("note", "milk again"),
    ] {
        let o = cli_output(
            d,
            LOCAL,
            &["mindlog", "append", "--agent", "m", "--kind", kind, t],
        );
        assert!(o.status.success(), "{}", text(&o.stderr));
        assert!(!text(&o.stdout).trim().is_empty(), "prints the id");
    }
    let o = cli_output(d, LOCAL, &["mindlog", "append", "--agent", "m", "   "]);
    assert!(o.status.success());
    assert!(text(&o.stderr).contains("blank"));
    let o = cli_output(
        d,
        LOCAL,
        &["mindlog", "append", "--agent", "m", "--kind", "dreamt", "x"],
    );
    assert_eq!(o.status.code(), Some(125));
    assert!(
        text(&o.stderr).contains("unknown mindlog kind"),
        "{}",
        text(&o.stderr)
    );

    let o = cli_output(
        d,
        LOCAL,
        &["mindlog", "read", "--agent", "m", "--limit", "2"],
    );
    let lines: Vec<_> = text(&o.stdout).lines().map(str::to_string).collect();
    assert_eq!(lines.len(), 2);
    assert!(
        lines[0].contains("said") && lines[0].ends_with("hello there"),
        "{lines:?}"
    );
    assert!(lines[1].ends_with("milk again"));

    let o = cli_output(
        d,
        LOCAL,
        &["mindlog", "search", "--agent", "m", "milk", "--json"],
    );
    let hits: Vec<serde_json::Value> = text(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        hits.iter()
            .map(|h| h["text"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["Buy MILK", "milk again"]
    );
    assert_eq!(
        std::fs::read_to_string(d.join("agents/m/mindlog.jsonl"))
            .unwrap()
            .lines()
            .count(),
        4
    );
}

#[test]
fn archive_ls_lists_what_was_kept() {
    let data = tempfile::tempdir().unwrap();
    let o = cli_output(data.path(), LOCAL, &["archive", "ls", "--agent", "a"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("no workspace kept yet"));
    cli_output(
        data.path(),
        LOCAL,
        &[
            "run",
            "--agent",
            "a",
            "-c",
            "mkdir d; echo hello > d/f.txt; ln -s d/f.txt l",
        ],
    );
    let o = cli_output(data.path(), LOCAL, &["archive", "ls", "--agent", "a"]);
    assert!(o.status.success());
    let out = text(&o.stdout);
    assert!(
        out.lines()
            .any(|l| l.starts_with("drwx") && l.ends_with(" d/")),
        "{out}"
    );
    assert!(
        out.lines()
            .any(|l| l.starts_with("-rw") && l.contains(" 6 ") && l.ends_with(" d/f.txt")),
        "{out}"
    );
    assert!(
        out.lines()
            .any(|l| l.starts_with('l') && l.ends_with(" l -> d/f.txt")),
        "{out}"
    );
}

#[test]
fn workspace_archive_env_overrides_the_path() {
    let data = tempfile::tempdir().unwrap();
    let custom = data.path().join("elsewhere/ws.tgz");
    let o = cli(data.path(), LOCAL)
        .env("WORKSPACE_ARCHIVE", &custom)
        .args(["run", "--agent", "e", "-c", "echo hi > h.txt"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        data.path()
            .join("elsewhere/ws.tgz.generations/HEAD")
            .exists()
    );
    assert!(!data.path().join("agents/e/store").exists());
}

#[test]
fn corrupt_archive_session_runs_and_archive_survives() {
    let data = tempfile::tempdir().unwrap();
    let archive = data.path().join("agents/c/workspace.tgz");
    std::fs::create_dir_all(archive.parent().unwrap()).unwrap();
    std::fs::write(&archive, b"definitely not a tgz").unwrap();
    let o = cli_output(
        data.path(),
        LOCAL,
        &[
            "run",
            "--agent",
            "c",
            "-c",
            "ls -A | wc -l; echo new > n.txt",
        ],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout).trim(), "0");
    let lines = sync_lines(&o.stderr);
    assert!(lines[0].1.starts_with("restore failed: "), "{lines:?}");
    assert!(lines[1].1.contains("beside the head"), "{lines:?}");
    assert_eq!(std::fs::read(&archive).unwrap(), b"definitely not a tgz");
}

#[test]
fn help_is_useful() {
    let o = cli_output(Path::new("."), LOCAL, &["--help"]);
    let out = text(&o.stdout);
    for word in ["run", "shell", "mindlog", "archive", "--data", "-q"] {
        assert!(out.contains(word), "{word} missing from --help:\n{out}");
    }
    let o = cli_output(Path::new("."), LOCAL, &["run"]);
    assert_eq!(o.status.code(), Some(2), "usage errors exit 2");
}

/// The head generation's `gen.txt` and the size of `big.txt`, after checking
/// that every kept generation verifies.
fn archive_state(store: &Path) -> (String, usize) {
    let gens = Generations::in_dir(store);
    let problems = gens.verify().unwrap();
    assert!(problems.is_empty(), "{problems:?}");
    let head = gens.head().unwrap().expect("a head");
    let tree = gens.manifest(&head.id).unwrap();
    let read = |p: &str| {
        gens.store()
            .read_blob(&tree.entries[p].hash.unwrap())
            .unwrap()
    };
    let gen_ = String::from_utf8_lossy(&read("gen.txt")).trim().to_string();
    (gen_, read("big.txt").len())
}

#[test]
fn kill_9_during_snapshots_leaves_a_head_that_verifies() {
    let data = tempfile::tempdir().unwrap();
    let d = data.path();
    let archive = d.join("agents/crash/store");
    let seed = cli_output(
        d,
        LOCAL,
        &[
            "-q",
            "run",
            "--agent",
            "crash",
            "-c",
            "seq 1 600000 > big.txt; echo 0 > gen.txt",
        ],
    );
    assert!(seed.status.success(), "{}", text(&seed.stderr));
    let (_, big) = archive_state(&archive);
    assert!(big > 3_000_000);

    // How long one full session takes: kills land anywhere in it.
    let started = Instant::now();
    let o = cli_output(
        d,
        LOCAL,
        &["-q", "run", "--agent", "crash", "-c", "echo 0 > gen.txt"],
    );
    assert!(o.status.success());
    let full = started.elapsed();

    let mut last = "0".to_string();
    let mut kept_new = 0;
    for i in 1..=100 {
        let mut child = cli(d, LOCAL)
            .args([
                "-q",
                "run",
                "--agent",
                "crash",
                "-c",
                &format!("echo {i} > gen.txt"),
            ])
            .spawn()
            .unwrap();
        let wait = full.mul_f64(rand::random::<f64>() * 1.2);
        std::thread::sleep(wait);
        let _ = child.kill();
        let _ = child.wait();
        let (now, size) = archive_state(&archive);
        assert_eq!(size, big, "iteration {i}: big.txt intact");
        assert!(
            now == last || now == i.to_string(),
            "iteration {i}: gen.txt is {now}, expected {last} or {i}"
        );
        if now != last {
            kept_new += 1;
        }
        last = now;
    }
    eprintln!(
        "{kept_new} of 100 killed sessions had stored their snapshot (one session takes {full:?})"
    );
    // A normal session afterwards restores the last kept state.
    let o = cli_output(
        d,
        LOCAL,
        &["-q", "run", "--agent", "crash", "-c", "cat gen.txt"],
    );
    assert_eq!(text(&o.stdout).trim(), last);
}

#[test]
fn a_conflict_between_live_sessions_is_logged_and_both_versions_kept() {
    use std::io::{BufRead, BufReader, Write};
    let data = tempfile::tempdir().unwrap();
    let d = data.path();
    let o = cli_output(
        d,
        LOCAL,
        &["run", "--agent", "k", "-c", "echo base > shared.txt"],
    );
    assert!(o.status.success());
    // Session A restores and parks; session B then changes the same file and
    // completes; A changes it too and parks: a true conflict.
    let mut a = cli(d, LOCAL)
        .args(["shell", "--agent", "k"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut a_in = a.stdin.take().unwrap();
    let mut a_out = BufReader::new(a.stdout.take().unwrap());
    writeln!(a_in, "cat shared.txt").unwrap();
    let mut line = String::new();
    a_out.read_line(&mut line).unwrap();
    assert_eq!(line, "base\n");
    let o = cli_output(
        d,
        LOCAL,
        &["run", "--agent", "k", "-c", "echo from-b > shared.txt"],
    );
    assert!(o.status.success());
    writeln!(a_in, "echo from-a > shared.txt").unwrap();
    drop(a_in);
    let out = a.wait_with_output().unwrap();
    assert!(out.status.success());
    let lines = sync_lines(&out.stderr);
    let a_id = lines[0].0.clone();
    assert!(
        lines
            .iter()
            .any(|(_, o)| o.starts_with("conflict: shared.txt changed in both sessions")),
        "{lines:?}"
    );
    let o = cli_output(
        d,
        LOCAL,
        &[
            "run",
            "--agent",
            "k",
            "-c",
            "cat shared.txt shared.txt.conflict-*",
        ],
    );
    assert_eq!(text(&o.stdout), "from-b\nfrom-a\n");
    let o = cli_output(d, LOCAL, &["run", "--agent", "k", "-c", "ls"]);
    assert!(
        text(&o.stdout).contains(&format!("shared.txt.conflict-{a_id}")),
        "{}",
        text(&o.stdout)
    );
}

#[test]
fn mindlog_file_override_and_paging() {
    let data = tempfile::tempdir().unwrap();
    let custom = data.path().join("custom.jsonl");
    let mut ids = Vec::new();
    for i in 0..5 {
        let o = cli(data.path(), LOCAL)
            .env("MINDLOG_FILE", &custom)
            .args(["mindlog", "append", "--agent", "p", &format!("entry {i}")])
            .output()
            .unwrap();
        ids.push(text(&o.stdout).trim().to_string());
    }
    assert_eq!(std::fs::read_to_string(&custom).unwrap().lines().count(), 5);
    let o = cli(data.path(), LOCAL)
        .env("MINDLOG_FILE", &custom)
        .args([
            "mindlog", "read", "--agent", "p", "--limit", "2", "--before", &ids[3],
        ])
        .output()
        .unwrap();
    let got: Vec<_> = text(&o.stdout)
        .lines()
        .map(|l| l.rsplit("  ").next().unwrap().to_string())
        .collect();
    assert_eq!(got, ["entry 1", "entry 2"]);
}

#[test]
fn bad_input_gets_one_clear_error_not_a_panic() {
    let data = tempfile::tempdir().unwrap();
    for t in ["1e20", "inf", "0"] {
        let o = cli_output(
            data.path(),
            LOCAL,
            &["run", "--timeout", t, "-c", "echo hi"],
        );
        assert_eq!(
            o.status.code(),
            Some(125),
            "--timeout {t}: {}",
            text(&o.stderr)
        );
        assert!(text(&o.stderr).contains("--timeout"), "{}", text(&o.stderr));
        assert!(!text(&o.stderr).contains("panicked"), "{}", text(&o.stderr));
    }
    let file = data.path().join("not-a-dir");
    std::fs::write(&file, "x").unwrap();
    let o = cli_output(&file, LOCAL, &["run", "--agent", "a", "-c", "echo hi"]);
    assert_eq!(o.status.code(), Some(125));
    let err = text(&o.stderr);
    assert_eq!(err.lines().count(), 1, "one clear error: {err}");
    assert!(err.contains("is not a directory"), "{err}");
}

#[test]
fn archive_history_commands_work_end_to_end() {
    let data = tempfile::tempdir().unwrap();
    let d = data.path();
    let run = |script: &str| {
        let o = cli_output(d, LOCAL, &["-q", "run", "--agent", "h", "-c", script]);
        assert!(o.status.success(), "{}", text(&o.stderr));
    };
    run("mkdir src; echo one > src/a.txt; echo keep > k.txt");
    run("rm -rf src; echo two > b.txt");
    let out = |args: &[&str]| {
        let o = cli_output(d, LOCAL, args);
        (o.status.code(), text(&o.stdout), text(&o.stderr))
    };
    let (code, log, _) = out(&["archive", "log", "--agent", "h"]);
    assert_eq!(code, Some(0));
    assert_eq!(log.lines().count(), 2, "{log}");
    assert!(log.lines().next().unwrap().contains("+1 ~0 -1"), "{log}");
    let (_, diff, _) = out(&["archive", "diff", "--agent", "h"]);
    assert_eq!(diff, "A\tb.txt\nD\tsrc/a.txt\n");
    let (_, shown, _) = out(&["archive", "show", "--agent", "h", "HEAD~1:src/a.txt"]);
    assert_eq!(shown, "one\n");
    let (code, _, err) = out(&["archive", "show", "--agent", "h", "HEAD~7:x"]);
    assert_eq!(code, Some(125), "{err}");
    let (code, _, _) = out(&["archive", "checkout", "--agent", "h", "HEAD~1"]);
    assert_eq!(code, Some(0));
    let o = cli_output(
        d,
        LOCAL,
        &["-q", "run", "--agent", "h", "-c", "cat src/a.txt; ls"],
    );
    assert_eq!(text(&o.stdout), "one\nk.txt\nsrc\n");
    let tgz = d.join("h.tgz");
    let (code, _, _) = out(&[
        "archive",
        "export",
        "--agent",
        "h",
        "-o",
        tgz.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0));
    let listed = std::process::Command::new("tar")
        .arg("tzf")
        .arg(&tgz)
        .output()
        .unwrap();
    assert!(text(&listed.stdout).contains("src/a.txt"));
    let (code, _, _) = out(&["archive", "import", "--agent", "i", tgz.to_str().unwrap()]);
    assert_eq!(code, Some(0));
    let (code, _, _) = out(&["archive", "fork", "--agent", "h", "--to", "f", "HEAD~2"]);
    assert_eq!(code, Some(0));
    let o = cli_output(d, LOCAL, &["-q", "run", "--agent", "f", "-c", "ls"]);
    assert_eq!(text(&o.stdout), "k.txt\nsrc\n");
    let (code, _, _) = out(&["archive", "verify", "--agent", "h"]);
    assert_eq!(code, Some(0));
    let (code, gc, _) = out(&["archive", "gc", "--agent", "h", "--keep", "1"]);
    assert_eq!(code, Some(0));
    assert!(gc.starts_with("kept 1 generation(s), removed 2"), "{gc}");
    let (_, log, _) = out(&["archive", "log", "--agent", "h"]);
    assert_eq!(log.lines().count(), 1, "{log}");
    // A flipped byte in the store: verify names the path and exits 1.
    sandkeep_flip(&d.join("agents/h/store"));
    let (code, _, err) = out(&["archive", "verify", "--agent", "h"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("src/a.txt") || err.contains("k.txt"), "{err}");
}

/// Flips one byte near the end of each pack of a store.
fn sandkeep_flip(store: &Path) {
    common::flip_a_byte_in_every_pack(store);
}

/// A park that fails is the run's failure: status 125 naming the reason, and
/// the head stays the last kept generation, which the next run restores once
/// the store is mended. (The store's pack directory is a file here, so the
/// restore fails too and the run starts empty; it is the park that fails the
/// run.)
#[test]
fn a_failed_park_is_a_failure_and_the_head_stays() {
    let data = tempfile::tempdir().unwrap();
    let run = |script: &str| cli_output(data.path(), LOCAL, &["run", "--agent", "p", "-c", script]);
    let o = run("echo one > f");
    assert!(o.status.success(), "{}", text(&o.stderr));
    let store = data.path().join("agents/p/store");
    let head = || std::fs::read_to_string(store.join("HEAD")).unwrap();
    let kept = head();
    let (packs, aside) = (store.join("packs"), data.path().join("packs-aside"));
    std::fs::rename(&packs, &aside).unwrap();
    std::fs::write(&packs, b"").unwrap();

    let o = run("echo two > f");
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(125), "{err}");
    assert!(
        err.contains("snapshot failed") && err.contains("the last kept generation stays the head"),
        "{err}"
    );
    assert_eq!(head(), kept);

    std::fs::remove_file(&packs).unwrap();
    std::fs::rename(&aside, &packs).unwrap();
    let o = run("cat f");
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), "one\n");
}

/// `script` run by the host's bash and by `sandkeep run` (ephemeral, local),
/// each with stdout piped to a reader that takes `keep` bytes and then
/// closes its end: (bytes read, exit status) of both.
fn both_with_a_closing_reader(script: &str, keep: usize) -> [(Vec<u8>, Option<i32>); 2] {
    use std::io::Read;
    use std::process::{Command, Stdio};
    let data = tempfile::tempdir().unwrap();
    let mut bash = Command::new("bash");
    bash.args(["-c", script]);
    let mut ours = cli(data.path(), LOCAL);
    ours.args(["run", "-c", script]);
    [bash, ours].map(|mut cmd| {
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut head = vec![0; keep];
        child.stdout.take().unwrap().read_exact(&mut head).unwrap();
        // The pipe's read end is closed here, as by `head -c KEEP`.
        let started = Instant::now();
        let status = child.wait().unwrap();
        assert!(
            started.elapsed().as_secs() < 20,
            "{script:?} went on after its reader left"
        );
        // A shell killed by SIGPIPE reports 128 + 13, as its parent shell would.
        let code = status
            .code()
            .or_else(|| std::os::unix::process::ExitStatusExt::signal(&status).map(|s| 128 + s));
        (head, code)
    })
}

#[test]
fn whole_output_is_streamed_past_a_mebibyte() {
    // 1.3 MB: past the 1 MiB cap that MCP and the server keep.
    let script = "seq 1 200000";
    let gnu = std::process::Command::new("bash")
        .args(["-c", script])
        .output()
        .unwrap();
    assert!(gnu.stdout.len() > 1 << 20);
    let data = tempfile::tempdir().unwrap();
    let o = cli_output(data.path(), LOCAL, &["run", "-c", script]);
    assert_eq!(o.status.code(), gnu.status.code(), "{}", text(&o.stderr));
    assert_eq!(o.stdout.len(), gnu.stdout.len());
    assert!(o.stdout == gnu.stdout, "the same bytes as GNU seq");
    assert_eq!(text(&o.stderr), text(&gnu.stderr));
    // Both streams: stderr is not capped either.
    let script = "seq 1 200000 >&2";
    let o = cli_output(data.path(), LOCAL, &["run", "-c", script]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(o.stderr, gnu.stdout);
}

#[test]
fn max_output_cuts_with_141_never_a_timeouts_124() {
    let data = tempfile::tempdir().unwrap();
    for (args, env) in [
        (&["run", "--max-output", "64K", "-c", "yes"][..], None),
        (&["run", "-c", "yes"][..], Some("64k")),
    ] {
        let mut cmd = cli(data.path(), LOCAL);
        if let Some(size) = env {
            cmd.env("SANDKEEP_MAX_OUTPUT", size);
        }
        let o = cmd.args(args).output().unwrap();
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(141), "{args:?} {err}");
        assert_eq!(o.stdout.len(), 64 << 10, "{args:?}");
        assert!(o.stdout.starts_with(b"y\ny\n"));
        assert!(
            err.contains("[output truncated: output limit of 65536 bytes reached]")
                && err.ends_with("bash: output limit exceeded (65536 bytes)\n"),
            "{err}"
        );
    }
    // Under the cap: whole, status 0; a real timeout stays 124.
    let o = cli_output(
        data.path(),
        LOCAL,
        &[
            "run",
            "--max-output",
            "64K",
            "-c",
            "head -c 65536 /dev/zero",
        ],
    );
    assert_eq!((o.stdout.len(), o.status.code()), (65536, Some(0)));
    let o = cli_output(
        data.path(),
        LOCAL,
        &["run", "--timeout", "0.3", "-c", "while :; do :; done"],
    );
    assert_eq!(o.status.code(), Some(124), "{}", text(&o.stderr));
    let o = cli_output(
        data.path(),
        LOCAL,
        &["run", "--max-output", "lots", "-c", ":"],
    );
    assert_eq!(o.status.code(), Some(2), "a usage error");
    assert!(
        text(&o.stderr).contains("--max-output"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn a_closed_stdout_ends_the_run_as_sigpipe_ends_bash() {
    for script in ["yes", "yes; echo after", "while :; do echo loop; done"] {
        let [(bash_head, bash_status), (our_head, our_status)] =
            both_with_a_closing_reader(script, 4096);
        assert_eq!(our_head, bash_head, "{script:?}");
        assert_eq!(our_status, bash_status, "{script:?}");
    }
}

#[test]
fn unbounded_output_is_not_held_in_memory() {
    // 2 GiB through our stdout into `wc -c`: the process's peak RSS stays
    // far below it (the output is streamed, not collected).
    let data = tempfile::tempdir().unwrap();
    let rss = data.path().join("rss");
    let bin = env!("CARGO_BIN_EXE_sandkeep");
    let pipeline = format!(
        "/usr/bin/time -f %M -o {rss} {bin} --data {data} run --backend local --timeout 120 \
         -c 'yes | head -c 2G' | wc -c",
        rss = rss.display(),
        data = data.path().display(),
    );
    let o = std::process::Command::new("bash")
        .args(["-o", "pipefail", "-c", &pipeline])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout).trim(), (2u64 << 30).to_string());
    let peak_kb: u64 = std::fs::read_to_string(&rss)
        .unwrap()
        .trim()
        .lines()
        .last()
        .unwrap()
        .parse()
        .unwrap();
    assert!(peak_kb < 100 << 10, "peak RSS {peak_kb} kB");
}
