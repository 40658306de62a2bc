//! A repository made by the local sandbox's `git` moves to the docker
//! backend through the workspace generations and real git reads it (`log`,
//! a clean `status`, `fsck`), then a commit made by real git comes back and
//! our `git` shows both commits with a clean status. A second history, made
//! locally with `rebase`, `revert`, `cherry-pick`, `tag -a`, a merge and a
//! kept stash, passes real git's `fsck --strict` with the same
//! `log --graph`, and comes back after real git pops the stash and commits.
//! Skipped with a printed reason when no daemon answers (`SANDKEEP_REQUIRE_DOCKER=1` fails instead).
//!
//! Run: `DOCKER_HOST=unix:///tmp/dk/docker.sock cargo test --release --test docker git_cross_backend::`
#![cfg(feature = "git")]

use crate::docker_support;

use std::sync::Arc;

use sandkeep::{Backend, LocalBackend, Runtime, Session};

/// Fixed identities and dates, as the differential suite uses.
const IDENT: &str = "export GIT_AUTHOR_NAME='A U Thor' GIT_AUTHOR_EMAIL=author@example.com \
GIT_COMMITTER_NAME='C O Mitter' GIT_COMMITTER_EMAIL=committer@example.com; ";

async fn run(s: &mut Session, script: &str) -> (i32, String, String) {
    let r = s.run_script(&format!("{IDENT}{script}")).await.unwrap();
    (r.exit_code, r.stdout_text(), r.stderr_text())
}

async fn ok(s: &mut Session, script: &str) -> String {
    let (code, out, err) = run(s, script).await;
    assert_eq!(code, 0, "{script}: stdout {out:?} stderr {err:?}");
    out
}

/// The two backends over one data directory, so generations kept on one
/// restore on the other.
struct Backends {
    docker: Arc<dyn Backend>,
    local: Arc<dyn Backend>,
    data: tempfile::TempDir,
}

impl Backends {
    /// `None` (after printing why) when no docker daemon answers.
    async fn start() -> Option<Backends> {
        Some(Backends {
            docker: Arc::new(docker_support::backend().await?),
            local: Arc::new(LocalBackend::new()),
            data: tempfile::tempdir().unwrap(),
        })
    }

    fn runtime(&self, backend: &Arc<dyn Backend>) -> Runtime {
        Runtime::builder()
            .backend(backend.clone())
            .data_dir(self.data.path())
            .build()
    }
}

/// Real git refuses a repository owned by another user unless told otherwise.
const REAL: &str = "git -c safe.directory='*'";

#[tokio::test(flavor = "multi_thread")]
async fn repository_moves_local_to_docker_and_back() {
    let Some(both) = Backends::start().await else {
        return;
    };
    let (docker, local) = (both.docker.clone(), both.local.clone());
    let build = |b: &Arc<dyn Backend>| both.runtime(b);

    // Local: init, two commits on two branches.
    let mut s = build(&local).session("g").unwrap();
    ok(
        &mut s,
        "git init -q -b main repo && cd /workspace/repo && mkdir -p src && echo 'fn main() {}' > src/main.rs \
         && printf 'one\\ntwo\\n' > notes.txt && chmod +x src/main.rs && git add -A \
         && GIT_AUTHOR_DATE='1700000000 +0000' GIT_COMMITTER_DATE='1700000000 +0000' git commit -q -m first \
         && git branch topic && echo three >> notes.txt \
         && GIT_AUTHOR_DATE='1700000060 +0000' GIT_COMMITTER_DATE='1700000060 +0000' git commit -q -am second",
    )
    .await;
    let local_log = ok(
        &mut s,
        "cd /workspace/repo && git log --format='%H %s' && git branch",
    )
    .await;
    s.complete().await.unwrap();

    // Docker: real git agrees on the history, the status is clean, fsck passes.
    let mut s = build(&docker).session("g").unwrap();
    let docker_log = ok(
        &mut s,
        &format!("cd /workspace/repo && {REAL} log --format='%H %s' && {REAL} branch"),
    )
    .await;
    assert_eq!(docker_log, local_log);
    let status = ok(
        &mut s,
        &format!("cd /workspace/repo && {REAL} status --porcelain"),
    )
    .await;
    assert_eq!(status, "", "real git sees changes in a clean repository");
    let (code, out, err) = run(
        &mut s,
        &format!("cd /workspace/repo && {REAL} fsck --strict"),
    )
    .await;
    assert_eq!(code, 0, "git fsck: {out} {err}");
    // Real git commits on top.
    ok(
        &mut s,
        &format!(
            "cd /workspace/repo && echo docker > from-docker.txt && {REAL} add from-docker.txt \
             && GIT_AUTHOR_DATE='1700000120 +0000' GIT_COMMITTER_DATE='1700000120 +0000' {REAL} commit -q -m third"
        ),
    )
    .await;
    let docker_log = ok(
        &mut s,
        &format!("cd /workspace/repo && {REAL} log --format='%H %s'"),
    )
    .await;
    s.complete().await.unwrap();

    // Both parks went through the workspace generations: the newest one
    // holds the repository with the commit real git made.
    let gens = build(&local).generations("g").unwrap();
    let parks = gens.log(10).unwrap();
    assert!(
        parks.len() >= 2,
        "expected a generation per park: {parks:?}"
    );
    let newest = gens.head().unwrap().expect("a generation");
    let manifest = gens.manifest(&newest.id).unwrap();
    for path in ["repo/.git/HEAD", "repo/.git/index", "repo/from-docker.txt"] {
        assert!(
            manifest.entries.keys().any(|k| k.ends_with(path)),
            "{path} missing from the newest generation"
        );
    }

    // Local again: our git reads what real git wrote.
    let mut s = build(&local).session("g").unwrap();
    let back = ok(&mut s, "cd /workspace/repo && git log --format='%H %s'").await;
    assert_eq!(back, docker_log);
    assert_eq!(back.lines().count(), 3);
    let status = ok(&mut s, "cd /workspace/repo && git status --porcelain").await;
    assert_eq!(status, "", "our git sees changes after the round trip");
    let show = ok(
        &mut s,
        "cd /workspace/repo && git show HEAD:from-docker.txt && git diff HEAD~2 --stat",
    )
    .await;
    assert_eq!(
        show,
        "docker\n from-docker.txt | 1 +\n notes.txt       | 1 +\n 2 files changed, 2 insertions(+)\n"
    );
    s.complete().await.unwrap();
}

/// Dates that move one minute per step, so hashes are fixed.
const TICK: &str = "T=1700000000; tick() { T=$((T+60)); \
export GIT_AUTHOR_DATE=\"$T +0000\" GIT_COMMITTER_DATE=\"$T +0000\"; }; tick; ";

/// The history commands agents reach for, run by the local git: a rebase,
/// a revert, a cherry-pick, an annotated tag, a merge and a kept stash.
const HISTORY: &str = "git init -q r && cd r && seq 1 10 > f && git add f && git commit -qm base \
&& git switch -q -c side && tick && echo s > s && git add s && git commit -qm side1 \
&& tick && sed -i 's/^3$/three/' f && git commit -qam side2 \
&& git switch -q master && tick && echo m > m && git add m && git commit -qm main1 \
&& git switch -q side && tick && git rebase -q master \
&& tick && git revert --no-edit HEAD >/dev/null \
&& git switch -q master && tick && git cherry-pick side~1 >/dev/null \
&& tick && git tag -a v1 -m 'release one' \
&& tick && git merge -q --no-ff side -m 'merge side' \
&& echo wip >> f && tick && git stash -q && git stash list | wc -l";

#[tokio::test(flavor = "multi_thread")]
async fn rebase_revert_stash_and_tag_are_read_by_real_git_and_back() {
    let Some(both) = Backends::start().await else {
        return;
    };
    let (docker, local) = (both.docker.clone(), both.local.clone());
    let build = |b: &Arc<dyn Backend>| both.runtime(b);
    let graph = "cd /workspace/r && GIT git log --graph --oneline --all";

    // Local: the history, then its graph.
    let mut s = build(&local).session("h").unwrap();
    assert_eq!(ok(&mut s, &format!("{TICK}{HISTORY}")).await, "1\n");
    let local_graph = ok(&mut s, &graph.replace("GIT ", "")).await;
    s.complete().await.unwrap();

    // Docker: real git finds nothing wrong and draws the same graph; the
    // stash and the annotated tag are there; it pops the stash and commits.
    let mut s = build(&docker).session("h").unwrap();
    let (code, out, err) = run(&mut s, &format!("cd /workspace/r && {REAL} fsck --strict")).await;
    assert_eq!(code, 0, "git fsck: {out} {err}");
    assert!(!format!("{out}{err}").contains("error"), "{out}{err}");
    let docker_graph = ok(&mut s, &graph.replace("GIT git", REAL)).await;
    assert_eq!(docker_graph, local_graph);
    let stash = ok(&mut s, &format!("cd /workspace/r && {REAL} stash list")).await;
    assert_eq!(stash.lines().count(), 1, "{stash}");
    let tag = ok(&mut s, &format!("cd /workspace/r && {REAL} cat-file -p v1")).await;
    assert!(tag.contains("release one"), "{tag}");
    ok(
        &mut s,
        &format!(
            "{TICK}cd /workspace/r && {REAL} stash pop -q && {REAL} commit -qam 'from docker'"
        ),
    )
    .await;
    let docker_graph = ok(&mut s, &graph.replace("GIT git", REAL)).await;
    s.complete().await.unwrap();

    // Local again: our git draws real git's graph, fsck and status are clean.
    let mut s = build(&local).session("h").unwrap();
    assert_eq!(ok(&mut s, &graph.replace("GIT ", "")).await, docker_graph);
    assert_eq!(
        ok(&mut s, "cd /workspace/r && git fsck && git status --short").await,
        ""
    );
    s.complete().await.unwrap();
}
