//! Benchmarks of the sessions issue, each against a host reference measured
//! in the same run, printed as a table of medians and ratios:
//!
//! - session start + restore, and snapshot, of a 1,000-file 12 MB workspace:
//!   local backend (and docker when a daemon answers) vs host GNU tar;
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

use sandkeep::Runtime;
use sandkeep::mindlog::{Kind, Mindlog};
use sandkeep::sandbox::Backend;
use sandkeep::sandbox::docker::DockerConfig;
use sandkeep::sandbox::local::LocalBackend;
use sandkeep::sandbox::select::{BackendChoice, choose_backend};

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

/// Session start + restore, and a snapshot (park), on `backend`.
async fn session_bench(
    backend: Arc<dyn Backend>,
    archive: &[u8],
    n: usize,
) -> (Duration, Duration) {
    let data = tempfile::tempdir().unwrap();
    let rt = Runtime::builder()
        .backend(backend)
        .data_dir(data.path())
        .build();
    let path = rt.paths("bench").unwrap().archive;
    let mut starts = Vec::new();
    let mut snaps = Vec::new();
    for _ in 0..n {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, archive).unwrap();
        let mut s = rt.session("bench").unwrap();
        let t = Instant::now();
        s.start().await.unwrap();
        starts.push(t.elapsed());
        let r = s
            .run_script("ls dir00 | wc -l; echo more >> dir00/file0000.txt")
            .await
            .unwrap();
        assert_eq!(
            r.stdout_text().trim(),
            "50",
            "restored: {}",
            r.stderr_text()
        );
        let t = Instant::now();
        s.park().await.unwrap();
        snaps.push(t.elapsed());
        s.complete().await.unwrap();
    }
    (median(starts), median(snaps))
}

fn write_mindlog(path: &Path, entries: usize, rare_every: usize) {
    let mut rng = Rng(42);
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let kinds = Kind::ALL;
    for i in 0..entries {
        let mut t = String::from_utf8(text(&mut rng, 120))
            .unwrap()
            .replace('\n', " ");
        if i % rare_every == 7 {
            t.push_str(" Zanzibar");
        }
        let e = sandkeep::mindlog::Entry {
            id: format!(
                "{}-{:08x}",
                1_700_000_000_000u64 + i as u64,
                rng.next() as u32
            ),
            at: "2026-12-03T03:10:43.123Z".into(),
            kind: kinds[i % kinds.len()],
            text: t,
            session_id: Some(format!("20261203-031043-{:06x}", i / 50)),
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

    // Workspace archives.
    let ws = tmp.path().join("ws");
    make_workspace(&ws, 1_000, 12 * 1024);
    let (tar_pack, tar_unpack) = host_tar(&ws, tmp.path(), reps);
    let archive = std::fs::read(tmp.path().join("host.tgz")).unwrap();
    eprintln!(
        "workspace: 1,000 files, 12 MB; GNU tar archive {} bytes",
        archive.len()
    );

    let local: Arc<dyn Backend> = Arc::new(LocalBackend::new());
    let (start, snap) = session_bench(local, &archive, reps).await;
    rows.push(Row {
        name: "local: session start + restore (1,000 files, 12 MB)".into(),
        ours: start,
        reference: Some(("GNU tar xzf".into(), tar_unpack)),
    });
    rows.push(Row {
        name: "local: snapshot (pack + store)".into(),
        ours: snap,
        reference: Some(("GNU tar czf".into(), tar_pack)),
    });
    match choose_backend(
        BackendChoice::Docker,
        DockerConfig::from_env(),
        Arc::new(LocalBackend::new()),
    )
    .await
    {
        Ok(docker) => {
            let (start, snap) = session_bench(docker, &archive, reps.min(3)).await;
            rows.push(Row {
                name: "docker: session start + restore".into(),
                ours: start,
                reference: Some(("GNU tar xzf".into(), tar_unpack)),
            });
            rows.push(Row {
                name: "docker: snapshot (pack + store)".into(),
                ours: snap,
                reference: Some(("GNU tar czf".into(), tar_pack)),
            });
        }
        Err(e) => eprintln!("docker: skipped ({e})"),
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
            Kind::Note,
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
