//! The S3 generation store against a real S3 server: moto's standalone
//! server (PyPI `moto[server]`), started here on a free port and stopped by
//! its pid. Without `moto_server` on PATH the tests skip with a printed
//! reason, unless `SANDKEEP_REQUIRE_S3=1` (CI) makes that a failure.
//!
//! Covered: the head's compare-and-swap (If-None-Match / If-Match), blobs
//! and records; two `sandkeep serve` workers on one bucket (state written
//! through one is read through the other; 20 rounds of concurrent parks of
//! one agent keep every change); a worker killed with `kill -9` mid-park
//! leaves a head that verifies; the mindlog as segment objects, appended
//! to by two workers at once.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]
// The spawned servers are returned to the tests, which kill and wait on them.
#![allow(clippy::zombie_processes)]

use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use reqwest::{Client, StatusCode};
use sandkeep::{GenerationId, Generations, Hash, Manifest, ManifestEntry, S3Stores, Store};
use serde_json::{Value, json};

use super::client;

/// A moto server on a free port, killed (by pid) when dropped.
pub(super) struct Moto {
    child: Child,
    pub(super) endpoint: String,
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(super) fn moto() -> Option<Moto> {
    let found = Command::new("moto_server")
        .arg("--help")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        if std::env::var("SANDKEEP_REQUIRE_S3").is_ok_and(|v| v == "1") {
            panic!(
                "SANDKEEP_REQUIRE_S3=1 but moto_server is not installed (pip install 'moto[server]')"
            );
        }
        eprintln!("skipping: moto_server not found (pip install 'moto[server]')");
        return None;
    }
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new("moto_server")
        .args(["-H", "127.0.0.1", "-p", &port.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let moto = Moto {
        child,
        endpoint: format!("http://127.0.0.1:{port}"),
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "moto_server did not start");
        std::thread::sleep(Duration::from_millis(100));
    }
    Some(moto)
}

fn aws_env(moto: &Moto) -> Vec<(&'static str, String)> {
    vec![
        ("AWS_ENDPOINT_URL", moto.endpoint.clone()),
        ("AWS_ALLOW_HTTP", "true".into()),
        ("AWS_REGION", "us-east-1".into()),
        ("AWS_ACCESS_KEY_ID", "testing".into()),
        ("AWS_SECRET_ACCESS_KEY", "testing".into()),
    ]
}

pub(super) async fn make_bucket(moto: &Moto, bucket: &str) {
    let r = client()
        .put(format!("{}/{bucket}", moto.endpoint))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "create bucket: {}", r.status());
}

fn stores(moto: &Moto, url: &str) -> S3Stores {
    let env = aws_env(moto);
    let pairs: Vec<(String, String)> = env
        .iter()
        .map(|(k, v)| (k.to_ascii_lowercase(), v.clone()))
        .collect();
    S3Stores::from_url_with(url, pairs.iter().map(|(k, v)| (k.as_str(), v.as_str()))).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn head_moves_only_by_compare_and_swap_on_s3() {
    let Some(moto) = moto() else { return };
    make_bucket(&moto, "cas").await;
    let stores = stores(&moto, "s3://cas/p");
    tokio::task::spawn_blocking(move || {
        let store = stores.agent("a");
        let (one, two) = (GenerationId("1111".into()), GenerationId("2222".into()));
        assert_eq!(store.head().unwrap(), None);
        assert!(store.set_head(None, &one).unwrap(), "create when absent");
        assert!(
            !store.set_head(None, &two).unwrap(),
            "If-None-Match refuses a second create"
        );
        assert!(
            !store.set_head(Some(&two), &two).unwrap(),
            "a stale expectation loses"
        );
        assert!(store.set_head(Some(&one), &two).unwrap());
        assert_eq!(store.head().unwrap(), Some(two.clone()));
        // Another agent's head is separate.
        assert_eq!(stores.agent("b").head().unwrap(), None);

        // Blobs round-trip, are checked, listed and collected.
        let data = b"hello blob".as_slice();
        let h = Hash::of(data);
        assert!(!store.has_blob(&h).unwrap());
        assert!(store.write_blobs(&[(h, data)]).unwrap() > 0);
        assert!(store.has_blob(&h).unwrap());
        assert_eq!(store.read_blob(&h).unwrap(), data);
        assert_eq!(store.blob_hashes().unwrap(), vec![h]);
        assert!(matches!(
            store.read_blob(&Hash::of(b"absent")),
            Err(sandkeep::StoreError::MissingBlob(_))
        ));
        let graceless = stores.clone().with_grace(Duration::ZERO).agent("a");
        std::thread::sleep(Duration::from_millis(1100));
        assert!(
            graceless.retain_blobs(&[h].into()).unwrap() == 0,
            "kept blobs stay"
        );
        assert!(graceless.retain_blobs(&Default::default()).unwrap() > 0);
        assert!(graceless.blob_hashes().unwrap().is_empty());

        // Generations on top: commit, log, verify.
        let gens = Generations::new(std::sync::Arc::new(stores.agent("c")));
        let mut m = Manifest::default();
        m.entries
            .insert("a.txt".into(), ManifestEntry::file(b"one"));
        gens.store()
            .write_blobs(&[(m.entries["a.txt"].hash.unwrap(), b"one")])
            .unwrap();
        let first = gens.commit(None, &m, 3, Some("s1"), 0, None).unwrap();
        assert_eq!(gens.log(10).unwrap().len(), 1);
        assert_eq!(gens.resolve("HEAD").unwrap(), first.record.id);
        assert_eq!(
            gens.store().record_ids().unwrap(),
            vec![first.record.id.clone()]
        );
        assert!(gens.verify().unwrap().is_empty());
    })
    .await
    .unwrap();
}

/// A `sandkeep serve` worker on the S3 store at `url`.
fn spawn_worker(data: &Path, moto: &Moto, url: &str) -> (Child, String) {
    let mut cmd = super::serve_command(data, "local", &["--store", url]);
    cmd.env("RUST_LOG", "warn").envs(aws_env(moto));
    super::serve_child(cmd, false)
}

async fn post(c: &Client, url: String, body: Value) -> Value {
    let r = c.post(url).json(&body).send().await.unwrap();
    let status = r.status();
    let text = r.text().await.unwrap();
    assert!(status.is_success(), "{status}: {text}");
    serde_json::from_str(&text).unwrap()
}

async fn session(c: &Client, base: &str, agent: &str) -> String {
    let v = post(c, format!("{base}/v1/agents/{agent}/sessions"), json!({})).await;
    v["session"].as_str().unwrap().to_string()
}

async fn run(c: &Client, base: &str, id: &str, command: &str) -> Value {
    post(
        c,
        format!("{base}/v1/sessions/{id}/run"),
        json!({ "command": command }),
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_workers_share_agents_and_concurrent_parks_keep_every_change() {
    let Some(moto) = moto() else { return };
    make_bucket(&moto, "shared").await;
    let url = "s3://shared/workers";
    let (d1, d2) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (mut w1, b1) = spawn_worker(d1.path(), &moto, url);
    let (mut w2, b2) = spawn_worker(d2.path(), &moto, url);
    let c = client();

    // Written through worker 1, read through worker 2.
    let s1 = session(&c, &b1, "pat").await;
    run(&c, &b1, &s1, "echo from-one > hello.txt").await;
    let r = c
        .delete(format!("{b1}/v1/sessions/{s1}"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let s2 = session(&c, &b2, "pat").await;
    assert_eq!(
        run(&c, &b2, &s2, "cat hello.txt").await["stdout"],
        "from-one\n"
    );

    // 20 rounds: each worker writes its own file and both park at once.
    let s1 = session(&c, &b1, "pat").await;
    for round in 0..20 {
        run(&c, &b1, &s1, &format!("echo {round} > one-{round}.txt")).await;
        run(&c, &b2, &s2, &format!("echo {round} > two-{round}.txt")).await;
        let (p1, p2) = tokio::join!(
            post(&c, format!("{b1}/v1/sessions/{s1}/park"), json!({})),
            post(&c, format!("{b2}/v1/sessions/{s2}/park"), json!({})),
        );
        assert!(p1["generation"].is_string() && p2["generation"].is_string());
    }
    for (b, s) in [(&b1, &s1), (&b2, &s2)] {
        let r = c
            .delete(format!("{b}/v1/sessions/{s}"))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::OK);
    }
    let s3 = session(&c, &b1, "pat").await;
    let listing = run(&c, &b1, &s3, "ls | sort").await;
    let mut expected: Vec<String> = (0..20)
        .flat_map(|r| [format!("one-{r}.txt"), format!("two-{r}.txt")])
        .collect();
    expected.push("hello.txt".into());
    expected.sort();
    let got: Vec<&str> = listing["stdout"].as_str().unwrap().lines().collect();
    assert_eq!(got, expected, "every change of both workers is kept");

    for w in [&mut w1, &mut w2] {
        let _ = w.kill();
        let _ = w.wait();
    }
    let stores = stores(&moto, url);
    let problems = tokio::task::spawn_blocking(move || {
        Generations::new(std::sync::Arc::new(stores.agent("pat")))
            .verify()
            .unwrap()
    })
    .await
    .unwrap();
    assert!(problems.is_empty(), "{problems:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_mid_park_leaves_a_head_that_verifies() {
    let Some(moto) = moto() else { return };
    make_bucket(&moto, "crash").await;
    let url = "s3://crash/k";
    let c = client();
    let fill = |round: usize| {
        format!(
            "mkdir -p r{round}; for i in $(seq 1 300); do echo {round}-$i-$RANDOM$RANDOM > r{round}/f$i.txt; done"
        )
    };
    // A baseline generation, and how long a park of 300 new files takes.
    let data = tempfile::tempdir().unwrap();
    let (mut worker, base) = spawn_worker(data.path(), &moto, url);
    let s = session(&c, &base, "crashy").await;
    run(&c, &base, &s, &fill(0)).await;
    let started = Instant::now();
    post(&c, format!("{base}/v1/sessions/{s}/park"), json!({})).await;
    let full_park = started.elapsed();
    let _ = worker.kill();
    let _ = worker.wait();
    let verify = || {
        let stores = stores(&moto, url);
        tokio::task::spawn_blocking(move || {
            let gens = Generations::new(std::sync::Arc::new(stores.agent("crashy")));
            (gens.verify().unwrap(), gens.head().unwrap().map(|r| r.id))
        })
    };
    let (problems, baseline) = verify().await.unwrap();
    assert!(problems.is_empty(), "{problems:?}");
    let baseline = baseline.expect("the baseline park kept a head");
    let mut moved = 0;
    for (round, fraction) in [0.1f64, 0.3, 0.5, 0.7, 0.9].into_iter().enumerate() {
        let round = round + 1;
        let data = tempfile::tempdir().unwrap();
        let (mut worker, base) = spawn_worker(data.path(), &moto, url);
        let s = session(&c, &base, "crashy").await;
        run(&c, &base, &s, &fill(round)).await;
        let park_url = format!("{base}/v1/sessions/{s}/park");
        let park = tokio::spawn({
            let c = c.clone();
            async move { c.post(park_url).send().await }
        });
        tokio::time::sleep(full_park.mul_f64(fraction)).await;
        worker.kill().unwrap(); // SIGKILL, by pid
        worker.wait().unwrap();
        let _ = park.await;
        let (problems, head) = verify().await.unwrap();
        assert!(
            problems.is_empty(),
            "round {round} (kill at {fraction} of a park): {problems:?}"
        );
        let head = head.expect("a head survives");
        if head != baseline {
            moved += 1;
        }
        eprintln!(
            "round {round}: kill at {fraction:.1} of {full_park:?}, head {head} (baseline {baseline})"
        );
    }
    eprintln!("{moved} of 5 killed parks had moved the head");
    // A fresh worker resumes from whatever head survived.
    let data = tempfile::tempdir().unwrap();
    let (mut worker, base) = spawn_worker(data.path(), &moto, url);
    let s = session(&c, &base, "crashy").await;
    let out = run(&c, &base, &s, "ls r0 | wc -l").await;
    assert_eq!(out["stdout"], "300\n");
    let _ = worker.kill();
    let _ = worker.wait();
}

/// The mindlog on S3 (client16): two workers appending to one agent's
/// mindlog at once both keep every entry (append-only segment objects, one
/// per entry, created with If-None-Match), every worker reads the merged
/// log in time order with paging and search, nothing lands in either
/// worker's data directory, and a session's `/workspace/mindlog.jsonl` copy
/// holds the merged log.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_workers_append_to_one_mindlog_on_s3_and_keep_every_entry() {
    let Some(moto) = moto() else { return };
    make_bucket(&moto, "minds").await;
    let url = "s3://minds/m";
    let (d1, d2) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (mut w1, b1) = spawn_worker(d1.path(), &moto, url);
    let (mut w2, b2) = spawn_worker(d2.path(), &moto, url);
    let c = client();
    const EACH: usize = 25;
    let appends = |base: String, worker: usize| {
        let c = c.clone();
        async move {
            let mut ids = Vec::new();
            for i in 0..EACH {
                let e = post(
                    &c,
                    format!("{base}/v1/agents/kim/mindlog"),
                    json!({"kind": "note", "text": format!("worker {worker} entry {i}")}),
                )
                .await;
                ids.push(e["id"].as_str().unwrap().to_string());
            }
            ids
        }
    };
    let (ids1, ids2) = tokio::join!(appends(b1.clone(), 1), appends(b2.clone(), 2));
    let mut all: Vec<String> = ids1.iter().chain(&ids2).cloned().collect();
    all.sort();
    let millis = |id: &str| id.split('-').next().unwrap().parse::<u64>().unwrap();

    for base in [&b1, &b2] {
        let r = c
            .get(format!("{base}/v1/agents/kim/mindlog?limit=1000"))
            .send()
            .await
            .unwrap();
        let v: Value = r.json().await.unwrap();
        let entries = v["entries"].as_array().unwrap();
        let ids: Vec<String> = entries
            .iter()
            .map(|e| e["id"].as_str().unwrap().to_string())
            .collect();
        let mut got = ids.clone();
        got.sort();
        assert_eq!(got, all, "every entry of both workers");
        assert!(
            ids.windows(2).all(|w| millis(&w[0]) <= millis(&w[1])),
            "oldest first: {ids:?}"
        );
        for own in [&ids1, &ids2] {
            let order: Vec<&String> = ids.iter().filter(|id| own.contains(id)).collect();
            assert_eq!(
                order,
                own.iter().collect::<Vec<_>>(),
                "each worker's own order"
            );
        }
        let expected = ids.clone();
        for worker in [1, 2] {
            for i in [0, EACH - 1] {
                let text = format!("worker {worker} entry {i}");
                assert!(entries.iter().any(|e| e["text"] == text.as_str()), "{text}");
            }
        }
        // The newest 3, then the 2 before them.
        let v: Value = c
            .get(format!("{base}/v1/agents/kim/mindlog?limit=3"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let newest: Vec<&str> = v["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["id"].as_str().unwrap())
            .collect();
        assert_eq!(newest, expected[expected.len() - 3..]);
        let v: Value = c
            .get(format!(
                "{base}/v1/agents/kim/mindlog?limit=2&before={}",
                newest[0]
            ))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let page: Vec<&str> = v["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["id"].as_str().unwrap())
            .collect();
        assert_eq!(page, expected[expected.len() - 5..expected.len() - 3]);
        let v: Value = c
            .get(format!(
                "{base}/v1/agents/kim/mindlog?query=WORKER%202%20ENTRY%207"
            ))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(v["entries"].as_array().unwrap().len(), 1, "{v}");
    }

    // The sandbox's copy is the merged log.
    let s = session(&c, &b2, "kim").await;
    let out = run(
        &c,
        &b2,
        &s,
        "wc -l < mindlog.jsonl; grep -c 'worker 1' mindlog.jsonl",
    )
    .await;
    assert_eq!(out["stdout"], format!("{}\n{EACH}\n", 2 * EACH), "{out}");
    // Nothing went to the workers' own disks.
    for d in [&d1, &d2] {
        assert!(!d.path().join("agents/kim/mindlog.jsonl").exists());
    }

    for w in [&mut w1, &mut w2] {
        let _ = w.kill();
        let _ = w.wait();
    }
    // One object per entry under the agent's mindlog prefix.
    let stores = stores(&moto, url);
    let names = tokio::task::spawn_blocking(move || {
        use sandkeep::MindlogSegments;
        stores.mindlog("kim").names().unwrap()
    })
    .await
    .unwrap();
    assert_eq!(names.len(), 2 * EACH);
}

/// Segments in memory: the merge rules of a mindlog on segments without an
/// S3 server (the moto test above covers the real one).
#[derive(Debug, Default)]
struct MemorySegments(std::sync::Mutex<std::collections::BTreeMap<String, Vec<u8>>>);

impl sandkeep::MindlogSegments for MemorySegments {
    fn create(&self, name: &str, data: &[u8]) -> std::io::Result<bool> {
        let mut map = self.0.lock().unwrap();
        if map.contains_key(name) {
            return Ok(false);
        }
        map.insert(name.to_string(), data.to_vec());
        Ok(true)
    }

    fn names(&self) -> std::io::Result<Vec<String>> {
        // Any order: the reader must sort.
        Ok(self.0.lock().unwrap().keys().rev().cloned().collect())
    }

    fn read(&self, names: &[String]) -> std::io::Result<Vec<Option<Vec<u8>>>> {
        let map = self.0.lock().unwrap();
        Ok(names.iter().map(|n| map.get(n).cloned()).collect())
    }
}

#[test]
fn a_mindlog_on_segments_reads_merged_pages_and_searches() {
    use sandkeep::{Mindlog, MindlogKind, MindlogVersion};
    let segments = std::sync::Arc::new(MemorySegments::default());
    let log = Mindlog::on_segments(segments.clone());
    assert_eq!(log.version().unwrap(), None);
    assert!(log.read(5, None).unwrap().is_empty());
    assert!(log.contents().unwrap().is_empty());
    // More entries than one fetch batch (64).
    let mut ids = Vec::new();
    for i in 0..150 {
        let text = if i % 50 == 7 {
            format!("{i} Needle")
        } else {
            format!("{i} hay")
        };
        ids.push(
            log.append(MindlogKind::Note, &text, None)
                .unwrap()
                .unwrap()
                .id,
        );
    }
    assert!(log.append(MindlogKind::Note, "  ", None).unwrap().is_none());
    // A torn segment and one of several lines are read around and through.
    segments
        .0
        .lock()
        .unwrap()
        .insert("0-torn".into(), b"{\"id\":".to_vec());
    // Many entries share a millisecond: they still read in append order.
    let read: Vec<String> = log
        .read(1000, None)
        .unwrap()
        .into_iter()
        .map(|e| e.id)
        .collect();
    assert_eq!(read, ids);
    let texts = |v: Vec<sandkeep::MindlogEntry>| v.into_iter().map(|e| e.text).collect::<Vec<_>>();
    assert_eq!(texts(log.read(2, None).unwrap()), ["148 hay", "149 hay"]);
    assert_eq!(log.read(1000, None).unwrap().len(), 150);
    assert_eq!(
        texts(log.read(3, Some(&ids[100])).unwrap()),
        ["97 hay", "98 hay", "99 hay"]
    );
    assert!(log.read(3, Some("no-such-id")).unwrap().is_empty());
    assert_eq!(
        texts(log.search("NEEDLE", 10).unwrap()),
        ["7 Needle", "57 Needle", "107 Needle"]
    );
    assert_eq!(texts(log.search("needle", 1).unwrap()), ["107 Needle"]);
    let all = String::from_utf8(log.contents().unwrap()).unwrap();
    assert_eq!(all.lines().count(), 151, "150 entries and the torn line");
    assert!(all.lines().nth(1).unwrap().contains("\"0 hay\""));
    let Some(MindlogVersion::Segments(count, newest)) = log.version().unwrap() else {
        panic!("no version")
    };
    assert_eq!(count, 151);
    assert!(
        newest.ends_with(ids[149].split('-').nth(1).unwrap()),
        "{newest}"
    );
}
