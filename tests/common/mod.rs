//! Scenarios of the sessions issue, generic over the backend: each takes an
//! `Arc<dyn Backend>` (and its CLI name where the CLI binary is involved), so
//! the same scenario runs on the local backend (`tests/runtime/sessions.rs`,
//! `tests/runtime/cli.rs`) and on docker (the parity tests). Scenarios of the
//! `Sandbox` trait alone are in [`sandbox`].
#![allow(dead_code, clippy::disallowed_methods, clippy::disallowed_types)]

pub mod sandbox;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Mutex};

use flate2::Compression;
use flate2::write::GzEncoder;
use sandkeep::testing::{ArchiveEntry, ArchiveTree};
use sandkeep::{
    Backend, GenerationId, Generations, Hook, HookContext, HookError, HookResult, ManifestKind,
    MindlogKind, RunResult, Runtime, Session,
};
use tempfile::TempDir;

/// A runtime on `backend` over a fresh data directory.
pub fn runtime(backend: &Arc<dyn Backend>) -> (TempDir, Runtime) {
    let data = tempfile::tempdir().unwrap();
    let rt = Runtime::builder()
        .backend(backend.clone())
        .data_dir(data.path())
        .build();
    (data, rt)
}

/// Runs a script in the session and asserts it succeeded.
pub async fn ok(session: &mut Session, script: &str) -> RunResult {
    let r = session.run_script(script).await.unwrap();
    assert_eq!(
        r.exit_code,
        0,
        "{script}: stdout {:?} stderr {:?}",
        r.stdout_text(),
        r.stderr_text()
    );
    r
}

/// The regular files of an agent's head generation, as (path, text).
pub fn archive_files(rt: &Runtime, agent: &str) -> Vec<(String, String)> {
    let gens = rt.generations(agent).unwrap();
    let head = gens.head().unwrap().expect("a generation was kept");
    files_of(&gens, &head.id)
}

/// The regular files of one generation, as (path, text).
pub fn files_of(gens: &Generations, id: &GenerationId) -> Vec<(String, String)> {
    gens.manifest(id)
        .unwrap()
        .entries
        .iter()
        .filter(|(_, e)| e.kind == ManifestKind::File)
        .map(|(p, e)| {
            let data = gens.store().read_blob(&e.hash.unwrap()).unwrap();
            (p.clone(), String::from_utf8_lossy(&data).into_owned())
        })
        .collect()
}

/// `sha256sum` of every file under /workspace (sorted), as the sandbox sees it.
pub async fn tree_hashes(s: &mut Session) -> String {
    ok(
        s,
        "find . -type f ! -name mindlog.jsonl | LC_ALL=C sort | while read -r f; do sha256sum \"$f\"; done; find . -type l | LC_ALL=C sort",
    )
    .await
    .stdout_text()
}

/// The seed's evidence through the library: two sessions, FIRES=1 then FIRES=2,
/// different session ids and different sandboxes.
pub async fn fires_twice(backend: Arc<dyn Backend>) {
    let (_data, rt) = runtime(&backend);
    let mut ids = Vec::new();
    for expected in ["FIRES=1\n", "FIRES=2\n"] {
        let mut s = rt.session("demo").unwrap();
        let r = ok(
            &mut s,
            "echo fire >> fires.txt; echo FIRES=$(wc -l < fires.txt)",
        )
        .await;
        assert_eq!(r.stdout_text(), expected);
        ids.push((s.id().to_string(), s.sandbox().unwrap().id().to_string()));
        s.complete().await.unwrap();
    }
    assert_ne!(ids[0].0, ids[1].0, "session ids differ");
    assert_ne!(ids[0].1, ids[1].1, "sandboxes differ");
    assert_eq!(
        archive_files(&rt, "demo"),
        [("fires.txt".to_string(), "fire\nfire\n".to_string())]
    );
}

/// Records the events it sees, to check their order.
#[derive(Default)]
pub struct Recorder {
    pub events: Mutex<Vec<String>>,
}

#[async_trait::async_trait]
impl Hook for Recorder {
    fn name(&self) -> &str {
        "recorder"
    }
    async fn session_started(&self, ctx: &HookContext) -> HookResult {
        // The sync hook ran first: the workspace is already restored.
        let r = ctx
            .sandbox()?
            .run(sandkeep::RunRequest::new(
                "cat kept.txt 2>/dev/null || echo none",
            ))
            .await?;
        self.events
            .lock()
            .unwrap()
            .push(format!("started:{}", r.stdout_text().trim()));
        Ok(())
    }
    async fn turn_started(&self, ctx: &HookContext) -> HookResult {
        self.events
            .lock()
            .unwrap()
            .push(format!("turn:{}", ctx.turn()));
        Ok(())
    }
    async fn session_waiting(&self, ctx: &HookContext) -> HookResult {
        self.events
            .lock()
            .unwrap()
            .push(format!("waiting:{}", ctx.turn()));
        Err("a failing hook does not stop the session".into())
    }
    async fn session_completed(&self, ctx: &HookContext) -> HookResult {
        let runs = ctx.take_state::<RunsSeen>().map_or(0, |r| r.0);
        self.events
            .lock()
            .unwrap()
            .push(format!("completed:runs={runs}"));
        Ok(())
    }
    async fn run_started(&self, ctx: &HookContext) -> HookResult {
        let run = ctx.run().expect("a run event carries its run");
        self.events
            .lock()
            .unwrap()
            .push(format!("run:{}:{}", run.number, run.command));
        if run.command.contains("forbidden") {
            return Err(HookError::critical("this command is not allowed"));
        }
        Ok(())
    }
    async fn run_finished(&self, ctx: &HookContext) -> HookResult {
        let run = ctx.run().expect("a run event carries its run");
        let how = match (&run.error, run.exit_code) {
            (Some(e), _) => e.clone(),
            (None, Some(code)) => code.to_string(),
            (None, None) => "?".into(),
        };
        self.events
            .lock()
            .unwrap()
            .push(format!("done:{}:{how}", run.number));
        let seen = ctx.take_state::<RunsSeen>().map_or(0, |r| r.0);
        ctx.put_state(RunsSeen(seen + 1));
        Ok(())
    }
}

/// The runs the recorder saw finish in one session (per-session hook state).
struct RunsSeen(u64);

/// Events come in order, hooks run after the default ones, a failing hook is
/// reported but harmless.
pub async fn hook_events_in_order(backend: Arc<dyn Backend>) {
    let data = tempfile::tempdir().unwrap();
    let recorder = Arc::new(Recorder::default());
    let rt = Runtime::builder()
        .backend(backend)
        .data_dir(data.path())
        .hook_arc(recorder.clone())
        .build();
    let mut s = rt.session("hooks").unwrap();
    ok(&mut s, "echo v1 > kept.txt").await;
    s.park().await.unwrap();
    let r = s.run_script("echo v2 > kept.txt; exit 3").await.unwrap();
    assert_eq!(r.exit_code, 3);
    assert_eq!(s.hook_failures().len(), 1);
    // A critical error at run.started refuses the run: it never happens.
    let refused = s.run_script("touch forbidden").await.unwrap_err();
    assert!(refused.to_string().contains("not allowed"), "{refused}");
    ok(&mut s, "test ! -e forb*").await;
    s.complete().await.unwrap();
    let mut s = rt.session("hooks").unwrap();
    s.start().await.unwrap();
    s.complete().await.unwrap();
    assert_eq!(
        *recorder.events.lock().unwrap(),
        [
            "started:none",
            "turn:1",
            "run:1:echo v1 > kept.txt",
            "done:1:0",
            "waiting:1",
            "turn:2",
            "run:2:echo v2 > kept.txt; exit 3",
            "done:2:3",
            "run:3:touch forbidden",
            "done:3:recorder: this command is not allowed",
            "run:4:test ! -e forb*",
            "done:4:0",
            "completed:runs=4",
            "started:v2",
            "completed:runs=0"
        ]
    );
}

/// Counts lines of a host file, and those containing `needle`.
fn count_lines(path: &Path, needle: &str) -> (usize, usize) {
    let text = std::fs::read_to_string(path).unwrap();
    (
        text.lines().count(),
        text.lines().filter(|l| l.contains(needle)).count(),
    )
}

/// The mindlog copy inside the sandbox matches the host log; edits to the
/// copy are not kept; host appends reach the next turn.
pub async fn mindlog_copy(backend: Arc<dyn Backend>) {
    let (_data, rt) = runtime(&backend);
    let log = rt.mindlog("m").unwrap();
    log.append(MindlogKind::Woke, "woke up", None).unwrap();
    log.append(MindlogKind::Note, "a note", None).unwrap();
    log.append(MindlogKind::Woke, "woke again", None).unwrap();
    log.append(MindlogKind::Said, "hello", None).unwrap();
    let (lines, wokes) = count_lines(log.path(), "woke");
    assert_eq!((lines, wokes), (4, 2));

    let mut s = rt.session("m").unwrap();
    let r = ok(
        &mut s,
        "wc -l < /workspace/mindlog.jsonl; grep -c woke /workspace/mindlog.jsonl",
    )
    .await;
    assert_eq!(
        r.stdout_text().split_whitespace().collect::<Vec<_>>(),
        [lines.to_string(), wokes.to_string()]
    );
    ok(
        &mut s,
        "echo '{\"fake\":\"woke\"}' >> /workspace/mindlog.jsonl; echo work > work.txt",
    )
    .await;
    s.park().await.unwrap();
    // A host append between turns reaches the next turn's copy.
    log.append(MindlogKind::Heard, "between turns", None)
        .unwrap();
    let r = ok(&mut s, "wc -l < mindlog.jsonl").await;
    assert_eq!(r.stdout_text().trim(), "5");
    s.complete().await.unwrap();
    assert_eq!(
        count_lines(log.path(), "woke"),
        (5, 2),
        "the host log is untouched by the copy's edit"
    );
    let kept: Vec<_> = archive_files(&rt, "m")
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    assert_eq!(kept, ["work.txt"], "the copy is excluded from the archive");

    let mut s = rt.session("m").unwrap();
    let r = ok(
        &mut s,
        "wc -l < mindlog.jsonl; grep -c fake mindlog.jsonl || true",
    )
    .await;
    assert_eq!(
        r.stdout_text().split_whitespace().collect::<Vec<_>>(),
        ["5", "0"]
    );
    s.complete().await.unwrap();
}

/// Which of two concurrent sessions parks first.
#[derive(Clone, Copy, Debug)]
pub enum Order {
    AFirst,
    BFirst,
}

/// Two sessions of one agent start from the same archive and change
/// different files (or the same file); whatever the order they park in, no
/// change is lost: a true conflict keeps theirs in place and ours beside.
pub async fn concurrent_sessions(
    backend: Arc<dyn Backend>,
    same_file: bool,
    order: Order,
    reps: usize,
) {
    for rep in 0..reps {
        let (_data, rt) = runtime(&backend);
        let mut seed = rt.session("c").unwrap();
        ok(
            &mut seed,
            "echo base > shared.txt; mkdir -p d; echo keep > d/keep.txt",
        )
        .await;
        seed.complete().await.unwrap();

        let mut a = rt.session("c").unwrap();
        let mut b = rt.session("c").unwrap();
        a.begin_turn().await.unwrap();
        b.begin_turn().await.unwrap();
        if same_file {
            ok(&mut a, "echo from-a > shared.txt").await;
            ok(&mut b, "echo from-b > shared.txt").await;
        } else {
            ok(&mut a, "echo from-a > a.txt").await;
            ok(&mut b, "echo from-b > b.txt; rm d/keep.txt").await;
        }
        let (a_id, b_id) = (a.id().to_string(), b.id().to_string());
        let (first, second) = match order {
            Order::AFirst => (a, b),
            Order::BFirst => (b, a),
        };
        let (first_id, second_id) = (first.id().to_string(), second.id().to_string());
        let (mut first, mut second) = (first, second);
        first.park().await.unwrap();
        second.park().await.unwrap();
        first.complete().await.unwrap();
        second.complete().await.unwrap();

        let files = archive_files(&rt, "c");
        let expected: Vec<(String, String)> = if same_file {
            let winner = if first_id == a_id { "from-a" } else { "from-b" };
            let loser = if first_id == a_id { "from-b" } else { "from-a" };
            let mut v = vec![
                ("d/keep.txt".to_string(), "keep\n".to_string()),
                ("shared.txt".to_string(), format!("{winner}\n")),
                (
                    format!("shared.txt.conflict-{second_id}"),
                    format!("{loser}\n"),
                ),
            ];
            v.sort();
            v
        } else {
            let _ = b_id;
            vec![
                ("a.txt".to_string(), "from-a\n".to_string()),
                ("b.txt".to_string(), "from-b\n".to_string()),
                ("shared.txt".to_string(), "base\n".to_string()),
            ]
        };
        assert_eq!(
            files, expected,
            "rep {rep}, {order:?}, same_file={same_file}"
        );
    }
}

/// Builds a tar.gz from raw entries (name, type, link, data), bypassing the
/// tar crate's name checks so malicious names can be written.
pub fn raw_tgz(entries: &[(&str, tar::EntryType, &str, &[u8])]) -> Vec<u8> {
    let mut b = tar::Builder::new(GzEncoder::new(Vec::new(), Compression::fast()));
    for (name, kind, link, data) in entries {
        let mut h = tar::Header::new_gnu();
        h.as_gnu_mut().unwrap().name[..name.len()].copy_from_slice(name.as_bytes());
        h.set_entry_type(*kind);
        h.set_mode(if *kind == tar::EntryType::Directory {
            0o755
        } else {
            0o644
        });
        h.set_mtime(1_700_000_000);
        h.set_size(data.len() as u64);
        if !link.is_empty() {
            h.set_link_name_literal(link).unwrap();
        }
        h.set_cksum();
        b.append(&h, *data).unwrap();
    }
    b.into_inner().unwrap().finish().unwrap()
}

/// Writes an agent's legacy `workspace.tgz` directly (what the previous
/// version kept), to be imported on first use.
pub fn plant_archive(rt: &Runtime, agent: &str, bytes: &[u8]) -> PathBuf {
    let path = rt.paths(agent).unwrap().archive;
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, bytes).unwrap();
    path
}

/// A corrupt legacy archive: the session still runs in an empty workspace,
/// the archive is left as it was, and the session's work is kept as a
/// generation beside the head (which stays empty).
pub async fn corrupt_archive(backend: Arc<dyn Backend>) {
    let (_data, rt) = runtime(&backend);
    let garbage = b"\x1f\x8b\x08\x00this is not really gzip".to_vec();
    let path = plant_archive(&rt, "x", &garbage);
    let mut s = rt.session("x").unwrap();
    let r = ok(
        &mut s,
        "ls -A /workspace | grep -v '^mindlog.jsonl$' | wc -l; echo new > new.txt",
    )
    .await;
    assert_eq!(r.stdout_text().trim(), "0", "the workspace starts empty");
    s.complete().await.unwrap();
    assert_eq!(
        std::fs::read(&path).unwrap(),
        garbage,
        "the corrupt archive is left as it was"
    );
    let gens = rt.paths("x").unwrap().generations();
    assert!(gens.head().unwrap().is_none(), "the head did not move");
    let ids = gens.store().record_ids().unwrap();
    assert_eq!(ids.len(), 1, "the session's work is kept beside the head");
    assert_eq!(
        files_of(&gens, &ids[0]),
        [("new.txt".into(), "new\n".into())]
    );
}

/// A store whose blob was damaged: the restore fails naming the path, the
/// session runs on an empty workspace, and its park never replaces the head.
pub async fn damaged_store_keeps_its_head(backend: Arc<dyn Backend>) {
    let (_data, rt) = runtime(&backend);
    let mut s = rt.session("d").unwrap();
    ok(&mut s, "seq 1 2000 > numbers.txt").await;
    s.complete().await.unwrap();
    let gens = rt.generations("d").unwrap();
    let head = gens.head().unwrap().unwrap().id;
    flip_a_byte_in_every_pack(&rt.paths("d").unwrap().store);
    let problems = gens.verify().unwrap();
    assert!(
        problems.iter().any(|p| p.contains("numbers.txt")),
        "verify names the path: {problems:?}"
    );
    let mut s = rt.session("d").unwrap();
    let r = ok(
        &mut s,
        "ls | grep -v mindlog | wc -l; echo after > after.txt",
    )
    .await;
    assert_eq!(r.stdout_text().trim(), "0");
    s.complete().await.unwrap();
    assert_eq!(gens.head().unwrap().unwrap().id, head, "the head stays");
}

/// Flips one byte near the end of each pack file of a store.
pub fn flip_a_byte_in_every_pack(store: &Path) {
    for e in std::fs::read_dir(store.join("packs")).unwrap().flatten() {
        if e.path().extension().is_some_and(|x| x == "pack") {
            let mut bytes = std::fs::read(e.path()).unwrap();
            let at = bytes.len() - 2;
            bytes[at] ^= 0x20;
            std::fs::write(e.path(), bytes).unwrap();
        }
    }
}

/// `rm -rf` in one session, `checkout HEAD~1`: the next session sees every
/// file byte for byte as before; and a fork starts another agent there.
pub async fn rollback_and_fork(backend: Arc<dyn Backend>) {
    let (_data, rt) = runtime(&backend);
    let mut s = rt.session("r").unwrap();
    ok(
        &mut s,
        "mkdir -p src/deep bin; seq 1 5000 > src/n.txt; printf '\\000\\377\\001' > src/bin.dat; \
         echo 'echo run' > bin/tool; chmod 755 bin/tool; echo deep > src/deep/x; ln -s deep/x src/link",
    )
    .await;
    let before = tree_hashes(&mut s).await;
    s.complete().await.unwrap();
    let mut s = rt.session("r").unwrap();
    ok(&mut s, "rm -rf src bin").await;
    s.complete().await.unwrap();
    let gens = rt.generations("r").unwrap();
    let diff = gens
        .manifest(&gens.resolve("HEAD~1").unwrap())
        .unwrap()
        .diff(&gens.manifest(&gens.resolve("HEAD").unwrap()).unwrap());
    assert!(diff.iter().any(|c| c.path == "src/n.txt"), "{diff:?}");
    gens.checkout(&gens.resolve("HEAD~1").unwrap()).unwrap();
    assert_eq!(gens.log(10).unwrap().len(), 3, "rollback keeps history");
    let mut s = rt.session("r").unwrap();
    assert_eq!(tree_hashes(&mut s).await, before, "byte for byte");
    let r = ok(&mut s, "bin/tool; stat -c %a bin/tool").await;
    assert_eq!(r.stdout_text(), "run\n755\n");
    s.complete().await.unwrap();
    let forked = rt.generations("r2").unwrap();
    gens.fork_to(&forked, &gens.resolve("HEAD~2").unwrap())
        .unwrap();
    let mut s = rt.session("r2").unwrap();
    assert_eq!(tree_hashes(&mut s).await, before, "the fork");
    s.complete().await.unwrap();
}

/// A `workspace.tgz` as the previous version wrote it restores as
/// generation 1, and the old file is kept aside.
pub async fn legacy_archive_migrates(backend: Arc<dyn Backend>) {
    let (_data, rt) = runtime(&backend);
    let mut tree = ArchiveTree::default();
    tree.entries.insert(
        "old.txt".into(),
        ArchiveEntry::file("old.txt", b"from the old version\n"),
    );
    tree.entries.insert("d".into(), ArchiveEntry::dir("d"));
    tree.entries
        .insert("d/x".into(), ArchiveEntry::file("d/x", b"x\n"));
    let path = plant_archive(&rt, "m", &tree.to_tgz().unwrap());
    let mut s = rt.session("m").unwrap();
    let r = ok(&mut s, "cat old.txt d/x").await;
    assert_eq!(r.stdout_text(), "from the old version\nx\n");
    s.complete().await.unwrap();
    let gens = rt.generations("m").unwrap();
    let log = gens.log(10).unwrap();
    assert_eq!(log.last().unwrap().seq, 1);
    assert!(!path.exists());
    let mut kept = path.into_os_string();
    kept.push(".imported");
    assert!(Path::new(&kept).exists());
}

/// A malicious archive (`../evil`, `/etc/x`, a symlink to /tmp then a file
/// through it) restores nothing outside /workspace.
pub async fn malicious_archive(backend: Arc<dyn Backend>) {
    use tar::EntryType::{Directory, Regular, Symlink};
    let (_data, rt) = runtime(&backend);
    let tag = format!("{:08x}", rand::random::<u32>());
    let evil = format!("../evil-{tag}");
    let abs = format!("/tmp/abs-{tag}");
    let through = format!("./esc/pwned-{tag}");
    let bytes = raw_tgz(&[
        ("./", Directory, "", b""),
        ("./fine.txt", Regular, "", b"fine\n"),
        (&evil, Regular, "", b"evil\n"),
        ("../../tmp/up-evil", Regular, "", b"evil\n"),
        (&abs, Regular, "", b"abs\n"),
        ("./esc", Symlink, "/tmp", b""),
        (&through, Regular, "", b"pwned\n"),
    ]);
    plant_archive(&rt, "mal", &bytes);
    let mut s = rt.session("mal").unwrap();
    let check = format!(
        "for p in /evil-{tag} /workspace/../evil-{tag} /tmp/up-evil /tmp/pwned-{tag} /tmp/abs-{tag}; do \
           if [ -e $p ]; then echo FOUND $p; fi; done; echo checked"
    );
    let r = ok(&mut s, &check).await;
    assert_eq!(r.stdout_text(), "checked\n", "nothing outside /workspace");
    s.complete().await.unwrap();
    // And nothing reached the host either.
    for p in [
        format!("/tmp/pwned-{tag}"),
        format!("/tmp/abs-{tag}"),
        format!("/evil-{tag}"),
    ] {
        assert!(!Path::new(&p).exists(), "{p} exists on the host");
    }
    let refused = ArchiveTree::from_tgz(&bytes).unwrap().refused;
    assert_eq!(
        refused.len(),
        4,
        "the host-side reader refuses them too: {refused:?}"
    );
}

/// A 100 KB reply streamed in 1,000 chunks (and a run printing 100 KB in
/// 1,000 writes) stores at most 1.1x its size in the event log.
pub async fn event_log_stores_deltas(backend: Arc<dyn Backend>) {
    let (_data, rt) = runtime(&backend);
    let mut s = rt.session("ev").unwrap();
    s.begin_turn().await.unwrap();
    let chunk = "r".repeat(100);
    for _ in 0..1000 {
        s.reply_delta(&chunk);
    }
    let path = s.event_log().unwrap().path();
    s.park().await.unwrap();
    let reply_size = std::fs::metadata(&path).unwrap().len();
    assert!(
        reply_size as f64 <= 1.1 * 100_000.0,
        "event log {reply_size} bytes for a 100 KB reply"
    );

    let r = ok(&mut s, "for i in $(seq 1000); do printf '%0100d' 0; done").await;
    assert_eq!(r.stdout.len(), 100_000);
    s.complete().await.unwrap();
    let total = std::fs::metadata(&path).unwrap().len();
    assert!(
        (total - reply_size) as f64 <= 1.1 * 100_000.0,
        "event log grew {} bytes for 100 KB of output",
        total - reply_size
    );
    let records = sandkeep::read_event_log(&path).unwrap();
    let streamed: usize = records
        .iter()
        .filter_map(|r| r["stdout"].as_str())
        .map(str::len)
        .sum();
    assert_eq!(streamed, 100_000, "the output is all there, as deltas");
    let events: Vec<_> = records.iter().filter_map(|r| r["event"].as_str()).collect();
    for e in [
        "session.started",
        "turn.started",
        "session.waiting",
        "run.started",
        "run.finished",
        "session.completed",
    ] {
        assert!(events.contains(&e), "{e} missing from {events:?}");
    }
}

/// Parks in quick succession keep rewrites the stat cannot tell apart: the
/// same size and the mtime pinned back, so only the sandbox's own account of
/// what it wrote says the file changed (and a file it did not write, listed
/// in the same second, is not read again but keeps its content).
pub async fn quick_rewrites_are_kept(backend: Arc<dyn Backend>) {
    let (_data, rt) = runtime(&backend);
    let mut s = rt.session("quick").unwrap();
    ok(&mut s, "printf same > still.txt").await;
    s.park().await.unwrap();
    for round in 0..8 {
        ok(
            &mut s,
            &format!("printf 'v%02d' {round} > f && touch -d @1700000000 f"),
        )
        .await;
        s.park().await.unwrap();
        let files = archive_files(&rt, "quick");
        assert!(
            files.contains(&("f".into(), format!("v{round:02}"))),
            "round {round}: {files:?}"
        );
        assert!(
            files.contains(&("still.txt".into(), "same".into())),
            "{files:?}"
        );
    }
    s.complete().await.unwrap();
}

/// A workspace kept by a session on `from` restores in a session on `to`.
pub async fn cross_backend(from: Arc<dyn Backend>, to: Arc<dyn Backend>) {
    let data = tempfile::tempdir().unwrap();
    let build = |b: &Arc<dyn Backend>| {
        Runtime::builder()
            .backend(b.clone())
            .data_dir(data.path())
            .build()
    };
    let mut s = build(&from).session("x").unwrap();
    ok(&mut s, "mkdir -p src/deep; echo 'echo run' > src/run.sh; chmod +x src/run.sh; echo hi > src/deep/hi.txt; ln -s deep/hi.txt src/link").await;
    s.complete().await.unwrap();
    let mut s = build(&to).session("x").unwrap();
    let r = ok(
        &mut s,
        "cat src/deep/hi.txt src/link; test -x src/run.sh && echo exec; readlink src/link",
    )
    .await;
    assert_eq!(r.stdout_text(), "hi\nhi\nexec\ndeep/hi.txt\n");
    s.complete().await.unwrap();
    // The seed's .tgz format: exported from this agent, GNU tar reads it and
    // it imports into another agent whose session restores it.
    let rt = build(&to);
    let gens = rt.generations("x").unwrap();
    let tgz = gens.export_tgz(&gens.resolve("HEAD").unwrap()).unwrap();
    let listed = Command::new("tar")
        .arg("tzf")
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            c.stdin.take().unwrap().write_all(&tgz)?;
            c.wait_with_output()
        })
        .unwrap();
    let names = String::from_utf8_lossy(&listed.stdout);
    assert!(
        names
            .lines()
            .any(|l| l.trim_start_matches("./") == "src/deep/hi.txt"),
        "GNU tar lists: {names} {}",
        String::from_utf8_lossy(&listed.stderr)
    );
    rt.generations("y")
        .unwrap()
        .import_tgz(&tgz, "test import")
        .unwrap();
    let mut s = build(&from).session("y").unwrap();
    let r = ok(&mut s, "cat src/link; test -x src/run.sh && echo exec").await;
    assert_eq!(r.stdout_text(), "hi\nexec\n");
    s.complete().await.unwrap();
}

/// An ephemeral session keeps nothing and writes nothing on the host.
pub async fn ephemeral_keeps_nothing(backend: Arc<dyn Backend>) {
    let (data, rt) = runtime(&backend);
    let mut s = rt.ephemeral_session();
    ok(&mut s, "echo x > x.txt").await;
    s.complete().await.unwrap();
    assert_eq!(std::fs::read_dir(data.path()).unwrap().count(), 0);
}

// ---- the CLI binary ----

/// The CLI, with a data dir and backend.
pub fn cli(data: &Path, backend: &str) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_sandkeep"));
    cmd.arg("--data")
        .arg(data)
        .env("SANDKEEP_BACKEND", backend)
        .env_remove("RUST_LOG");
    cmd.env_remove("WORKSPACE_ARCHIVE")
        .env_remove("MINDLOG_FILE")
        .env_remove("SANDKEEP_DATA");
    cmd.stdin(Stdio::null());
    cmd
}

/// Runs the CLI with `args` and returns its output.
pub fn cli_output(data: &Path, backend: &str, args: &[&str]) -> Output {
    cli(data, backend).args(args).output().unwrap()
}

/// Runs the CLI feeding `stdin`.
pub fn cli_with_stdin(data: &Path, backend: &str, args: &[&str], stdin: &str) -> Output {
    let mut child = cli(data, backend)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// `[workspace-sync] <id> <outcome>` lines of some stderr, as (id, outcome).
pub fn sync_lines(stderr: &[u8]) -> Vec<(String, String)> {
    String::from_utf8_lossy(stderr)
        .lines()
        .filter_map(|l| l.strip_prefix("[workspace-sync] "))
        .filter_map(|l| l.split_once(' '))
        .map(|(id, rest)| (id.to_string(), rest.to_string()))
        .collect()
}

/// The seed's evidence through the real binary: FIRES=1 then FIRES=2 from two
/// sessions, with the logs `nothing kept yet`, `kept N`, `restored N`, `kept M`.
pub fn fires_via_cli(backend: &str) {
    let data = tempfile::tempdir().unwrap();
    let script = "echo fire >> fires.txt; echo FIRES=$(wc -l < fires.txt)";
    let one = cli_output(
        data.path(),
        backend,
        &["run", "--agent", "demo", "-c", script],
    );
    let two = cli_output(
        data.path(),
        backend,
        &["run", "--agent", "demo", "-c", script],
    );
    for o in [&one, &two] {
        assert!(
            o.status.success(),
            "stderr: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    assert_eq!(String::from_utf8_lossy(&one.stdout), "FIRES=1\n");
    assert_eq!(String::from_utf8_lossy(&two.stdout), "FIRES=2\n");
    let l1 = sync_lines(&one.stderr);
    let l2 = sync_lines(&two.stderr);
    assert_eq!(l1.len(), 2, "{l1:?}");
    assert_eq!(l2.len(), 2, "{l2:?}");
    assert_eq!(l1[0].1, "nothing kept yet");
    // `kept generation ID: +1 ~0 -0 (N bytes new)`, then restored from it.
    let kept = |line: &str| -> String {
        let rest = line.strip_prefix("kept generation ").expect(line);
        rest.split(':').next().unwrap().to_string()
    };
    let first = kept(&l1[1].1);
    assert!(l1[1].1.contains(": +1 ~0 -0 ("), "{:?}", l1[1]);
    assert!(
        l2[0]
            .1
            .starts_with(&format!("restored generation {first} (")),
        "{:?}",
        l2[0]
    );
    let second = kept(&l2[1].1);
    assert!(l2[1].1.contains(": +0 ~1 -0 ("), "{:?}", l2[1]);
    assert_ne!(first, second);
    assert_eq!(l1[0].0, l1[1].0);
    assert_eq!(l2[0].0, l2[1].0);
    assert_ne!(l1[0].0, l2[0].0, "two sessions, two ids");
    let log = cli_output(data.path(), backend, &["archive", "log", "--agent", "demo"]);
    let log = String::from_utf8_lossy(&log.stdout).into_owned();
    let ids: Vec<_> = log
        .lines()
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(ids, [second.as_str(), first.as_str()], "{log}");
}

/// Issue 18's naming cases across backends: a workspace with names up to
/// the limits (a 255-byte component, a path of about 4,000 bytes, 100
/// directories deep, multibyte UTF-8) and names that are not UTF-8, kept by
/// `from` and restored by `to` byte for byte (GNU tar reads what we pack),
/// then `archive ls` quoting the raw names and `archive export` carrying
/// their exact bytes.
pub async fn long_and_raw_names(from: Arc<dyn Backend>, to: Arc<dyn Backend>) {
    let data = tempfile::tempdir().unwrap();
    let build = |b: &Arc<dyn Backend>| {
        Runtime::builder()
            .backend(b.clone())
            .data_dir(data.path())
            .build()
    };
    // `$long`: a 255-byte component; `$deep`: 100 nested directories and
    // 15 components of 249 bytes: a path of 3,949 bytes; `$uni`: 2- 3- and
    // 4-byte UTF-8 in a 248-byte component.
    let names = r#"long=$(printf 'L%.0s' {1..255})
seg=$(printf 's%.0s' {1..249})
deep=$(printf 'd/%.0s' {1..100})$(printf "$seg/%.0s" {1..14})$seg
uni=$(printf 'é€𝄞%.0s' {1..27})x.txt
raw=$'caf\xe9-\xff\xfe'"#;
    let write = format!(
        "{names}\nmkdir -p \"$(dirname \"$deep\")\" && echo deep > \"$deep\" && echo long > \"$long\" \
         && echo uni > \"$uni\" && mkdir \"$raw\" && echo raw > \"$raw/$raw.txt\" && ln -s \"$raw/$raw.txt\" \"l$raw\" \
         && echo ${{#deep}} ${{#long}}"
    );
    let mut s = build(&from).session("names").unwrap();
    let r = ok(&mut s, &write).await;
    assert_eq!(r.stdout_text(), "3949 255\n");
    s.complete().await.unwrap();
    let check = format!(
        "{names}\ncat \"$deep\" \"$long\" \"$uni\" \"$raw/$raw.txt\" \"l$raw\"; \
         for f in c* l*; do [ \"$f\" = \"$raw\" ] || [ \"$f\" = \"l$raw\" ] && echo same; done; \
         printf %s c* | wc -c"
    );
    let mut s = build(&to).session("names").unwrap();
    let r = ok(&mut s, &check).await;
    assert_eq!(
        r.stdout_text(),
        "deep\nlong\nuni\nraw\nraw\nsame\nsame\n7\n",
        "{}",
        r.stderr_text()
    );
    // And back, after a change on `to`.
    ok(&mut s, &format!("{names}\necho again >> \"$raw/$raw.txt\"")).await;
    s.complete().await.unwrap();
    let mut s = build(&from).session("names").unwrap();
    let r = ok(&mut s, &check).await;
    assert!(
        r.stdout_text()
            .starts_with("deep\nlong\nuni\nraw\nagain\nraw\nagain\n"),
        "{}{}",
        r.stdout_text(),
        r.stderr_text()
    );
    s.complete().await.unwrap();
    // `archive ls` quotes the raw names as git does; `archive export` holds
    // their bytes, as GNU tar lists them.
    let ls = cli_output(data.path(), "local", &["archive", "ls", "--agent", "names"]);
    let ls = String::from_utf8_lossy(&ls.stdout);
    assert!(ls.contains(r#" "caf\351-\377\376"/"#), "{ls}");
    assert!(
        ls.contains(r#" "lcaf\351-\377\376" -> "caf\351-\377\376/caf\351-\377\376.txt""#),
        "{ls}"
    );
    let show = cli_output(
        data.path(),
        "local",
        &[
            "archive",
            "show",
            "--agent",
            "names",
            r#"HEAD:"caf\351-\377\376/caf\351-\377\376.txt""#,
        ],
    );
    assert_eq!(String::from_utf8_lossy(&show.stdout), "raw\nagain\n");
    let rt = build(&to);
    let gens = rt.generations("names").unwrap();
    let tgz = gens.export_tgz(&gens.resolve("HEAD").unwrap()).unwrap();
    let listed = Command::new("tar")
        .args(["tzf", "-", "--quoting-style=literal"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            c.stdin.take().unwrap().write_all(&tgz)?;
            c.wait_with_output()
        })
        .unwrap();
    assert!(listed.status.success());
    let lines: Vec<&[u8]> = listed
        .stdout
        .split(|&b| b == b'\n')
        .map(|l| l.strip_prefix(b"./").unwrap_or(l))
        .collect();
    assert!(
        lines.contains(&&b"caf\xe9-\xff\xfe/caf\xe9-\xff\xfe.txt"[..]),
        "GNU tar lists: {:?}",
        lines
            .iter()
            .filter(|l| l.len() < 40)
            .map(|l| String::from_utf8_lossy(l))
            .collect::<Vec<_>>()
    );
    assert!(
        lines.iter().any(|l| l.len() == 3949),
        "GNU tar did not list the 3,949-byte path"
    );
    assert!(lines.iter().any(|l| l.len() == 255));
}
