//! A repository the local git built with `rebase`, `revert`, `stash`,
//! `cherry-pick` and `tag -a` is a repository real git reads: the sandbox's
//! files are copied to a host temp dir, where the host's git finds nothing
//! wrong (`fsck --strict`) and draws the same `log --graph` as ours; the
//! other way round, a repository host git built is read here with the same
//! graph.
//!
//! Run: `cargo test --release -p sandkeep-git --test host_reads`
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::path::Path;
use std::process::Command;

use sandkeep_shell::{FileKind, Fs, RunOptions, Shell, ShellConfig};

const IDENT: &str = "export GIT_AUTHOR_NAME='A U Thor' GIT_AUTHOR_EMAIL=author@example.com \
GIT_COMMITTER_NAME='C O Mitter' GIT_COMMITTER_EMAIL=committer@example.com TZ=UTC; \
T=1700000000; tick() { T=$((T+60)); export GIT_AUTHOR_DATE=\"$T +0000\" GIT_COMMITTER_DATE=\"$T +0000\"; }; tick; ";

/// What the local git does: branches, a rebase, a revert, a cherry-pick,
/// a stash kept, an annotated tag, a merge.
const SCRIPT: &str = "git init -q /r && cd /r && seq 1 10 > f && git add f && git commit -qm base \
&& git switch -q -c side && tick && echo s > s && git add s && git commit -qm side1 \
&& tick && sed -i 's/^3$/three/' f && git commit -qam side2 \
&& git switch -q master && tick && echo m > m && git add m && git commit -qm main1 \
&& git switch -q side && tick && git rebase -q master \
&& tick && git revert --no-edit HEAD >/dev/null \
&& git switch -q master && tick && git cherry-pick side~1 >/dev/null \
&& tick && git tag -a v1 -m 'release one' \
&& tick && git merge -q --no-ff side -m 'merge side' \
&& echo wip >> f && tick && git stash -q && git stash list | wc -l";

fn ours() -> Shell {
    Shell::new(sandkeep_git::install(ShellConfig::default()))
}

fn host_git_available() -> bool {
    Command::new("git")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Copies the sandbox directory `from` to the host directory `to`.
fn export(fs: &Fs, from: &str, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in fs.read_dir(from).unwrap() {
        let src = format!("{from}/{}", e.name);
        let dst = to.join(&e.name);
        match e.kind {
            FileKind::Dir => export(fs, &src, &dst),
            _ => std::fs::write(&dst, fs.read(&src).unwrap()).unwrap(),
        }
    }
}

/// Copies the host directory `from` into the sandbox at `to`.
fn import(fs: &Fs, from: &Path, to: &str) {
    fs.mkdir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dst = format!("{to}/{}", e.file_name().to_string_lossy());
        if e.file_type().unwrap().is_dir() {
            import(fs, &e.path(), &dst);
        } else {
            fs.write(&dst, &std::fs::read(e.path()).unwrap()).unwrap();
        }
    }
}

fn host(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let o = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .output()
        .expect("git");
    (
        o.status.code().unwrap_or(128),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn run(sh: &Shell, script: &str) -> String {
    let o = sh.run(&format!("{IDENT}{script}"), RunOptions::default());
    assert_eq!(
        o.exit_code,
        0,
        "{script}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn host_git_reads_what_the_local_git_wrote() {
    if !host_git_available() {
        eprintln!("no host git; skipped");
        return;
    }
    let sh = ours();
    assert_eq!(run(&sh, SCRIPT), "1\n");
    let graph = run(&sh, "cd /r && git log --graph --oneline --all");
    let tmp = std::env::temp_dir().join(format!("sandkeep-hostreads-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    export(sh.fs(), "/r", &tmp);
    let (code, out, err) = host(&tmp, &["fsck", "--strict"]);
    assert_eq!(code, 0, "git fsck: {out}{err}");
    assert!(
        !out.contains("error") && !err.contains("error"),
        "{out}{err}"
    );
    let (_, host_graph, _) = host(&tmp, &["log", "--graph", "--oneline", "--all"]);
    assert_eq!(graph, host_graph);
    let (_, stash, _) = host(&tmp, &["stash", "list"]);
    assert_eq!(stash.lines().count(), 1, "{stash}");
    let (_, tag, _) = host(&tmp, &["cat-file", "-p", "v1"]);
    assert!(tag.contains("release one"), "{tag}");
    // And back: host git works on it, the local git reads the result.
    let (code, _, err) = host(&tmp, &["stash", "pop", "-q"]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = host(
        &tmp,
        &[
            "-c",
            "user.name=H",
            "-c",
            "user.email=h@x",
            "commit",
            "-qam",
            "from host",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let (_, host_graph, _) = host(&tmp, &["log", "--graph", "--oneline", "--all"]);
    let back = ours();
    import(back.fs(), &tmp, "/r");
    let graph = run(&back, "cd /r && git log --graph --oneline --all");
    assert_eq!(graph, host_graph);
    assert_eq!(run(&back, "cd /r && git fsck && git status --short"), "");
    let _ = std::fs::remove_dir_all(&tmp);
}
