//! Benchmarks of the sessions issue, each against a host reference measured
//! in the same run, printed as a table of medians and ratios:
//!
//! - workspace generations at 40 MB / 2,000 files and 1 GB / 20,000 files:
//!   session start + restore, the park of a one-file turn, a whole turn
//!   against the same turn on an empty workspace, `sandkeep run --agent` end
//!   to end and store bytes per one-file turn, on the local backend (and
//!   docker at 40 MB when a daemon answers), beside GNU `tar czf`/`tar xzf` of
//!   the same tree;
//! - mindlog search over 1,000,000 entries: the newest 20 matches of a common
//!   word, and a rare word (a full scan), vs `grep -ci` on the same file;
//!   `read` of the newest 20; append.
//!
//! Run: `cargo bench -p sandkeep --bench sessions` (`SANDKEEP_BENCH_QUICK=1`
//! for a smaller, faster run).
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use sandkeep::{
    Backend, BackendChoice, DockerConfig, LocalBackend, Mindlog, MindlogKind, Runtime,
    choose_backend,
};
use sandkeep_shell::ShellConfig;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64() * 1e3)
}

fn time_n(n: usize, mut f: impl FnMut()) -> Duration {
    median(
        (0..n)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed()
            })
            .collect(),
    )
}

/// A tiny deterministic generator (xorshift), so runs are comparable.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

const WORDS: &[&str] = &[
    "agent",
    "memory",
    "sandbox",
    "workspace",
    "the",
    "of",
    "and",
    "build",
    "test",
    "file",
    "commit",
    "review",
    "tokio",
    "archive",
    "session",
    "turn",
    "plan",
    "note",
    "error",
    "retry",
    "deploy",
    "config",
    "parser",
    "shell",
    "queue",
    "cache",
    "index",
    "merge",
    "patch",
    "docs",
];

/// Text that compresses about like source code (words plus some noise).
fn text(rng: &mut Rng, len: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(len + 16);
    while out.len() < len {
        let r = rng.next();
        if r.is_multiple_of(7) {
            out.extend_from_slice(format!("{:x} ", r >> 20).as_bytes());
        } else {
            out.extend_from_slice(WORDS[(r % WORDS.len() as u64) as usize].as_bytes());
            out.push(if r.is_multiple_of(11) { b'\n' } else { b' ' });
        }
    }
    out.truncate(len);
    out
}

/// 1,000 files of 12 KB in 20 directories on the host.
fn make_workspace(dir: &Path, files: usize, size: usize) {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for i in 0..files {
        let sub = dir.join(format!("dir{:02}", i % 20));
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(sub.join(format!("file{i:04}.txt")), text(&mut rng, size)).unwrap();
    }
}

struct Row {
    name: String,
    ours: Duration,
    reference: Option<(String, Duration)>,
}

fn print_table(rows: &[Row]) {
    println!();
    println!("| case | sandkeep (median ms) | reference | reference (median ms) | ratio |");
    println!("|---|---:|---|---:|---:|");
    for r in rows {
        match &r.reference {
            Some((what, d)) => println!(
                "| {} | {} | {} | {} | {:.2}x |",
                r.name,
                ms(r.ours),
                what,
                ms(*d),
                r.ours.as_secs_f64() / d.as_secs_f64()
            ),
            None => println!("| {} | {} | | | |", r.name, ms(r.ours)),
        }
    }
}

fn host_tar(ws: &Path, tmp: &Path, n: usize) -> (Duration, Duration) {
    let tgz = tmp.join("host.tgz");
    let pack = time_n(n, || {
        let ok = Command::new("tar")
            .arg("czf")
            .arg(&tgz)
            .arg("-C")
            .arg(ws)
            .arg(".")
            .status()
            .unwrap();
        assert!(ok.success());
    });
    let unpack = time_n(n, || {
        let out = tmp.join("host-restore");
        let _ = std::fs::remove_dir_all(&out);
        std::fs::create_dir_all(&out).unwrap();
        let ok = Command::new("tar")
            .arg("xzf")
            .arg(&tgz)
            .arg("-C")
            .arg(&out)
            .status()
            .unwrap();
        assert!(ok.success());
    });
    (pack, unpack)
}

/// What one workspace size measured.
struct GenerationRows {
    start: Duration,
    park: Duration,
    turn: Duration,
    cli: Option<Duration>,
    mcp: Option<Duration>,
    growth: u64,
}

fn dir_bytes(dir: &Path) -> u64 {
    let mut total = 0;
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let m = e.metadata().unwrap();
            total += if m.is_dir() {
                dir_bytes(&e.path())
            } else {
                m.len()
            };
        }
    }
    total
}

/// Seeds an agent with `archive` (imported as its first generation), then
/// measures on `backend`: session start + restore; the park of a turn that
/// changes one 1 KB file; a whole turn (run + park, what one MCP `bash` call
/// does); `sandkeep run --agent` end to end (local only); store bytes added
/// per one-file turn.
async fn generations_bench(
    backend: Arc<dyn Backend>,
    archive: &[u8],
    files: usize,
    n: usize,
    cli_backend: Option<&str>,
) -> GenerationRows {
    let data = tempfile::tempdir().unwrap();
    let rt = Runtime::builder()
        .backend(backend)
        .data_dir(data.path())
        .build();
    rt.generations("bench")
        .unwrap()
        .import_tgz(archive, "bench seed")
        .unwrap();
    let store = rt.paths("bench").unwrap().store;
    let (mut starts, mut parks, mut turns, mut growth) = (vec![], vec![], vec![], vec![]);
    for i in 0..n {
        let mut s = rt.session("bench").unwrap();
        let t = Instant::now();
        s.start().await.unwrap();
        starts.push(t.elapsed());
        let r = s.run_script("ls dir00 | wc -l").await.unwrap();
        assert_eq!(
            r.stdout_text().trim(),
            (files / 20).to_string(),
            "restored: {}",
            r.stderr_text()
        );
        s.park().await.unwrap();
        for j in 0..5 {
            let before = dir_bytes(&store);
            s.run_script(&format!(
                "head -c 1000 dir00/file0000.txt > one.txt; echo {i}-{j} >> one.txt"
            ))
            .await
            .unwrap();
            let t = Instant::now();
            s.park().await.unwrap();
            parks.push(t.elapsed());
            growth.push(Duration::from_nanos(dir_bytes(&store) - before));
            let t = Instant::now();
            s.run_script(&format!("echo {i}-{j} > two.txt"))
                .await
                .unwrap();
            s.park().await.unwrap();
            turns.push(t.elapsed());
        }
        s.complete().await.unwrap();
    }
    let cli = cli_backend.map(|b| {
        time_n(n, || {
            let o = Command::new(env!("CARGO_BIN_EXE_sandkeep"))
                .args(["-q", "--data"])
                .arg(data.path())
                .args([
                    "run",
                    "--backend",
                    b,
                    "--storage",
                    "4G",
                    "--agent",
                    "bench",
                    "-c",
                    "echo hi > one.txt",
                ])
                .output()
                .unwrap();
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        })
    });
    let mcp = cli_backend.map(|b| mcp_call_median(data.path(), b, if n > 2 { 100 } else { 20 }));
    GenerationRows {
        start: median(starts),
        park: median(parks),
        turn: median(turns),
        cli,
        mcp,
        growth: median(growth).as_nanos() as u64,
    }
}

/// The median of `calls` MCP `bash` calls through `sandkeep mcp`'s stdio,
/// each writing one file (so each is a turn that keeps a generation).
fn mcp_call_median(data: &Path, backend: &str, calls: usize) -> Duration {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_sandkeep"))
        .args(["-q", "--data"])
        .arg(data)
        .args([
            "mcp",
            "--agent",
            "bench",
            "--backend",
            backend,
            "--storage",
            "4G",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut call = |id: usize, body: &str| {
        writeln!(stdin, r#"{{"jsonrpc":"2.0","id":{id},{body}}}"#).unwrap();
        stdin.flush().unwrap();
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        assert!(line.contains(&format!("\"id\":{id}")), "{line}");
        assert!(!line.contains("\"isError\":true"), "{line}");
    };
    call(
        0,
        r#""method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}"#,
    );
    let samples = (1..=calls)
        .map(|id| {
            let t = Instant::now();
            call(
                id,
                &format!(
                    r#""method":"tools/call","params":{{"name":"bash","arguments":{{"command":"echo {id} > one.txt"}}}}"#
                ),
            );
            t.elapsed()
        })
        .collect();
    drop(stdin);
    child.wait().unwrap();
    median(samples)
}

/// A local backend whose filesystem holds a 1 GB workspace.
fn big_local() -> Arc<dyn Backend> {
    let mut config = ShellConfig::default();
    config.limits.fs.max_total_bytes = 4 << 30;
    Arc::new(LocalBackend::with_config(config))
}

/// The rows of one workspace size on one backend.
#[allow(clippy::too_many_arguments)]
fn push_generation_rows(
    rows: &mut Vec<Row>,
    label: &str,
    g: &GenerationRows,
    empty: &GenerationRows,
    tar_pack: Duration,
    tar_unpack: Duration,
) {
    rows.push(Row {
        name: format!("{label}: session start + restore"),
        ours: g.start,
        reference: Some(("GNU tar xzf".into(), tar_unpack)),
    });
    rows.push(Row {
        name: format!("{label}: park of a one-file (1 KB) turn"),
        ours: g.park,
        reference: Some(("GNU tar czf".into(), tar_pack)),
    });
    rows.push(Row {
        name: format!("{label}: a whole turn (run + park, as one MCP call)"),
        ours: g.turn,
        reference: Some(("the same turn, empty workspace".into(), empty.turn)),
    });
    if let (Some(mcp), Some(empty_mcp)) = (g.mcp, empty.mcp) {
        rows.push(Row {
            name: format!("{label}: MCP `bash` call writing one file, through stdio (median)"),
            ours: mcp,
            reference: Some(("the same call, empty workspace".into(), empty_mcp)),
        });
    }
    if let Some(cli) = g.cli {
        rows.push(Row {
            name: format!("{label}: `sandkeep run --agent` end to end"),
            ours: cli,
            reference: None,
        });
    }
    println!("{label}: store bytes added per one-file turn: {}", g.growth);
}

/// Builds a workspace of `files` files of `size` bytes and its GNU tar
/// archive; returns the archive and GNU tar's pack and unpack times.
fn workspace_with_tar(
    tmp: &Path,
    name: &str,
    files: usize,
    size: usize,
    n: usize,
) -> (Vec<u8>, Duration, Duration) {
    let ws = tmp.join(name);
    make_workspace(&ws, files, size);
    let work = tmp.join(format!("{name}-tar"));
    std::fs::create_dir_all(&work).unwrap();
    let (pack, unpack) = host_tar(&ws, &work, n);
    let archive = std::fs::read(work.join("host.tgz")).unwrap();
    let _ = std::fs::remove_dir_all(&ws);
    let _ = std::fs::remove_dir_all(&work);
    (archive, pack, unpack)
}

fn write_mindlog(path: &Path, entries: usize, rare_every: usize) {
    let mut rng = Rng(42);
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let kinds = MindlogKind::ALL;
    for i in 0..entries {
        let mut t = String::from_utf8(text(&mut rng, 120))
            .unwrap()
            .replace('\n', " ");
        if i % rare_every == 7 {
            t.push_str(" Zanzibar");
        }
        let e = sandkeep::MindlogEntry {
            id: format!(
                "{}-{:08x}",
                1_700_000_000_000u64 + i as u64,
                rng.next() as u32
            ),
            at: "2026-12-03T03:10:43.123Z".into(),
            kind: kinds[i % kinds.len()],
            text: t,
            session_id: Some(format!("20261203-031043-{:06x}", i / 50)),
            generation: None,
        };
        serde_json::to_writer(&mut out, &e).unwrap();
        out.write_all(b"\n").unwrap();
    }
    out.flush().unwrap();
}

fn grep_ci(word: &str, path: &Path, n: usize) -> Duration {
    time_n(n, || {
        let o = Command::new("grep")
            .arg("-ci")
            .arg(word)
            .arg(path)
            .output()
            .unwrap();
        assert!(o.status.success() || o.status.code() == Some(1));
    })
}

#[tokio::main]
async fn main() {
    let quick = std::env::var("SANDKEEP_BENCH_QUICK").is_ok_and(|v| v == "1");
    let reps = if quick { 3 } else { 7 };
    let mut rows = Vec::new();
    let tmp = tempfile::tempdir().unwrap();

    // Generations: 40 MB / 2,000 files and 1 GB / 20,000 files.
    let docker = choose_backend(
        BackendChoice::Docker,
        DockerConfig::from_env(),
        Arc::new(LocalBackend::new()),
    )
    .await;
    let empty = tempfile::tempdir().unwrap();
    let empty_tgz = tmp.path().join("empty.tgz");
    let ok = Command::new("tar")
        .arg("czf")
        .arg(&empty_tgz)
        .arg("-C")
        .arg(empty.path())
        .arg(".")
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    let empty_archive = if ok {
        std::fs::read(&empty_tgz).unwrap()
    } else {
        Vec::new()
    };
    let sizes: &[(&str, usize, usize)] = if quick {
        &[("40 MB / 2,000 files", 2_000, 20 * 1024)]
    } else {
        &[
            ("40 MB / 2,000 files", 2_000, 20 * 1024),
            ("1 GB / 20,000 files", 20_000, 50 * 1024),
        ]
    };
    for &(label, files, size) in sizes {
        let (archive, tar_pack, tar_unpack) =
            workspace_with_tar(tmp.path(), "ws", files, size, reps.min(3));
        eprintln!("workspace {label}: GNU tar archive {} bytes", archive.len());
        let n = if files > 5_000 { 2 } else { reps };
        let mut empty_ws = empty_archive.clone();
        if empty_ws.is_empty() {
            empty_ws = archive.clone();
        }
        // The CLI rows (`run --agent`, MCP) with `--storage 4G`.
        let cli = Some("local");
        let local = generations_bench(big_local(), &archive, files, n, cli).await;
        let local_empty = generations_bench(big_local(), &empty_ws, 0, n, cli).await;
        push_generation_rows(
            &mut rows,
            &format!("local, {label}"),
            &local,
            &local_empty,
            tar_pack,
            tar_unpack,
        );
        if files <= 5_000 {
            match &docker {
                Ok(d) => {
                    let g = generations_bench(d.clone(), &archive, files, 2, None).await;
                    let e = generations_bench(d.clone(), &empty_ws, 0, 2, None).await;
                    push_generation_rows(
                        &mut rows,
                        &format!("docker, {label}"),
                        &g,
                        &e,
                        tar_pack,
                        tar_unpack,
                    );
                }
                Err(e) => eprintln!("docker: skipped ({e})"),
            }
        }
    }

    // Mindlog.
    let entries = if quick { 100_000 } else { 1_000_000 };
    let log_path = tmp.path().join("mindlog.jsonl");
    write_mindlog(&log_path, entries, entries / 3);
    let size = std::fs::metadata(&log_path).unwrap().len();
    eprintln!("mindlog: {entries} entries, {:.0} MB", size as f64 / 1e6);
    let log = Mindlog::new(&log_path);
    let _ = log.search("zanzibar", 20).unwrap(); // warm the page cache
    let grep_common = grep_ci("memory", &log_path, reps);
    let grep_rare = grep_ci("zanzibar", &log_path, reps);
    let common = time_n(reps * 3, || {
        assert_eq!(log.search("memory", 20).unwrap().len(), 20)
    });
    let rare = time_n(reps, || {
        assert_eq!(log.search("zanzibar", 20).unwrap().len(), 3)
    });
    let read = time_n(reps * 3, || {
        assert_eq!(log.read(20, None).unwrap().len(), 20)
    });
    rows.push(Row {
        name: format!("mindlog search, newest 20 of a common word ({entries} entries)"),
        ours: common,
        reference: Some(("grep -ci (full scan)".into(), grep_common)),
    });
    rows.push(Row {
        name: "mindlog search, rare word (full scan)".into(),
        ours: rare,
        reference: Some(("grep -ci".into(), grep_rare)),
    });
    rows.push(Row {
        name: "mindlog read, newest 20".into(),
        ours: read,
        reference: None,
    });
    let append = time_n(if quick { 200 } else { 1_000 }, || {
        log.append(
            MindlogKind::Note,
            "a note appended during the benchmark",
            Some("bench"),
        )
        .unwrap();
    });
    rows.push(Row {
        name: "mindlog append (one entry)".into(),
        ours: append,
        reference: None,
    });
    print_table(&rows);
}
