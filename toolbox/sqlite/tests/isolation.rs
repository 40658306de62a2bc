//! Isolation and limits of the embedded `sqlite3`: SQL cannot reach a host
//! file (ATTACH, VACUUM INTO, URI filenames naming another VFS, extension
//! loading), the host environment or a socket; a query that never ends
//! stops at the run's deadline, one that grows without bound at the run's
//! memory budget; bad input gets an error and a status, never a panic.
//! And the files it writes are real SQLite databases: the host's sqlite3
//! and Python's sqlite3 module read them, and it reads theirs.
//!
//! Run: `cargo test -p sandkeep-sqlite --test isolation`
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::process::Command;
use std::time::{Duration, Instant};

use sandkeep_shell::{LimitKind, RunOptions, RunOutput, Shell, ShellConfig};

// As in the sandkeep binary: every allocation (SQLite's included, which
// this crate routes through Rust's allocator) is charged to the run.
#[global_allocator]
static ALLOCATOR: sandkeep_shell::MeteredAlloc = sandkeep_shell::MeteredAlloc;

fn shell() -> Shell {
    Shell::new(sandkeep_sqlite::install(ShellConfig::default()))
}

fn run_in(shell: &Shell, script: &str, timeout: Duration) -> RunOutput {
    shell.run(
        script,
        RunOptions {
            timeout: Some(timeout),
            ..RunOptions::default()
        },
    )
}

fn run(script: &str) -> RunOutput {
    run_in(&shell(), script, Duration::from_secs(20))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A host directory holding a real SQLite database with a secret in it.
fn host_secret_db(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("sandkeep-sq-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("plain.txt"), "TOP-SECRET-4711").unwrap();
    dir
}

#[test]
fn sql_cannot_reach_host_files() {
    let dir = host_secret_db("files");
    let host_db = dir.join("secret.db");
    let made = Command::new("sqlite3")
        .arg(&host_db)
        .arg("create table s(v); insert into s values('TOP-SECRET-4711')")
        .status();
    let have_host_sqlite = made.is_ok_and(|s| s.success());
    let d = dir.display().to_string();
    for sql in [
        format!("attach '{d}/secret.db' as h; select v from h.s"),
        format!("attach 'file:{d}/secret.db?vfs=unix' as h; select v from h.s"),
        format!("attach 'file:{d}/secret.db?vfs=unix-none' as h; select v from h.s"),
        format!("select readfile('{d}/plain.txt')"),
        format!("select load_extension('{d}/plain.txt')"),
    ] {
        let out = run(&format!("sqlite3 :memory: \"{sql}\""));
        let all = text(&out.stdout) + &text(&out.stderr);
        assert!(!all.contains("TOP-SECRET"), "{sql}: {all}");
        if sql.starts_with("attach") && have_host_sqlite {
            // The sandbox has no such file: ATTACH makes an empty one
            // (inside the sandbox) or is refused; either way no rows.
            assert!(!text(&out.stdout).contains("TOP"), "{sql}");
        }
    }
    // `.import`, `.read` and `.open` of a host path see the sandbox's tree.
    for cmd in [
        format!(".import --csv {d}/plain.txt t"),
        format!(".read {d}/plain.txt"),
    ] {
        let out = run(&format!("sqlite3 :memory: '{cmd}'"));
        assert_ne!(out.exit_code, 0, "{cmd}");
        assert!(
            text(&out.stderr).contains("cannot open"),
            "{cmd}: {}",
            text(&out.stderr)
        );
    }
    // Writes land in the virtual tree, not on the host.
    let out = run(&format!(
        "mkdir -p {d}; sqlite3 {d}/made.db 'create table t(x)'; sqlite3 :memory: \"vacuum into '{d}/copy.db'\"; ls {d}"
    ));
    assert_eq!(out.exit_code, 0, "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("made.db"),
        "{}",
        text(&out.stdout)
    );
    assert!(!dir.join("made.db").exists(), "sqlite3 wrote a host file");
    assert!(
        !dir.join("copy.db").exists(),
        "VACUUM INTO wrote a host file"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn host_environment_and_network_are_invisible() {
    assert!(std::env::var("CARGO_MANIFEST_DIR").is_ok());
    // SQLite has no environment access of its own; the shell's `.shell`
    // and `.system` (host processes) are refused.
    let out = run("sqlite3 :memory: '.shell echo HOSTPROC'");
    assert_ne!(out.exit_code, 0);
    assert!(!text(&out.stdout).contains("HOSTPROC"));
    assert!(
        text(&out.stderr).contains("no host processes"),
        "{}",
        text(&out.stderr)
    );
    let out = run("sqlite3 :memory: '.output |cat' 'select 1'");
    assert!(
        text(&out.stderr).contains("no host processes"),
        "{}",
        text(&out.stderr)
    );
    // .import from a command is refused too.
    let out = run("sqlite3 :memory: '.import \"|echo 1\" t'");
    assert_ne!(out.exit_code, 0);
}

#[test]
fn a_query_that_never_ends_stops_at_the_deadline() {
    let start = Instant::now();
    let out = run_in(
        &shell(),
        "sqlite3 :memory: 'with recursive c(x) as (select 1 union all select x+1 from c) select count(*) from c'; echo after",
        Duration::from_secs(2),
    );
    let took = start.elapsed();
    assert!(took < Duration::from_secs(6), "took {took:?}");
    assert_eq!(out.exit_code, 124, "{}", text(&out.stderr));
    assert_eq!(out.limit, Some(LimitKind::Timeout));
    assert!(!text(&out.stdout).contains("after"));
}

#[test]
fn a_growing_result_stops_at_the_memory_budget() {
    let mut config = ShellConfig::default();
    config.limits.max_memory_bytes = 64 << 20;
    let shell = Shell::new(sandkeep_sqlite::install(config));
    let start = Instant::now();
    // group_concat over an endless series grows one string without bound.
    let out = run_in(
        &shell,
        "sqlite3 :memory: \"with recursive c(x) as (select 1 union all select x+1 from c) select length(group_concat(printf('%0100d', x))) from c\"; echo after",
        Duration::from_secs(30),
    );
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "took {:?}",
        start.elapsed()
    );
    assert_ne!(out.exit_code, 0, "{}", text(&out.stderr));
    assert!(!text(&out.stdout).contains("after"));
    let err = text(&out.stderr);
    assert_eq!(out.limit, Some(LimitKind::Memory), "{err}");
    assert!(
        err.contains("memory limit exceeded (67108864 bytes)"),
        "{err}"
    );
    // A single huge value is refused by SQLite's length limit, which is
    // set to what is left of the budget.
    let out = run_in(
        &shell,
        "sqlite3 :memory: 'select length(zeroblob(900000000))'",
        Duration::from_secs(30),
    );
    assert_ne!(out.exit_code, 0);
    assert!(
        text(&out.stderr).contains("too big"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn bad_input_gets_a_status_not_a_panic() {
    for script in [
        "printf 'not a database at all, but long enough to look like a header.................................................' > x.db; sqlite3 x.db .tables",
        "sqlite3 -cmd",
        "sqlite3 :memory: '.mode'  '.import' '.read' '.once' '.nullvalue' '.separator'",
        "mkdir d; sqlite3 d 'select 1'",
        "sqlite3 :memory: \"$(printf 'select %s;' $(seq 1 2000))\" | tail -1",
        "head -c 4096 /dev/urandom > r.db; sqlite3 r.db 'select * from sqlite_master'",
        "printf '\\x00\\x01select' | sqlite3",
        "sqlite3 :memory: 'select 1' '.dump nope' '.schema %' '.tables [' '.width a b'",
    ] {
        let out = run(script);
        let err = text(&out.stderr);
        assert!(!err.contains("panicked"), "{script}: {err}");
        assert!(out.limit.is_none(), "{script}: {err}");
    }
}

/// Copies a sandbox file out to a host path.
fn export(shell: &Shell, sandbox_path: &str, host_path: &std::path::Path) {
    let data = shell.fs().read(sandbox_path).expect("sandbox file");
    std::fs::write(host_path, data).unwrap();
}

#[test]
fn databases_are_real_sqlite_files_both_ways() {
    let host_ok = Command::new("sqlite3").arg("-version").output().is_ok();
    let py_ok = Command::new("python3").arg("-V").output().is_ok();
    if !host_ok || !py_ok {
        eprintln!("SKIP: host sqlite3 or python3 missing");
        return;
    }
    let dir = host_secret_db("interop");
    let sh = shell();
    let out = run_in(
        &sh,
        "sqlite3 app.db \"create table t(id integer primary key, name text, score real, data blob); insert into t(name, score, data) values ('ann', 9.5, x'00ff'), ('bob', null, null); create index t_name on t(name)\"",
        Duration::from_secs(20),
    );
    assert_eq!(out.exit_code, 0, "{}", text(&out.stderr));
    let host_db = dir.join("app.db");
    export(&sh, "/workspace/app.db", &host_db);
    let host = Command::new("sqlite3")
        .arg(&host_db)
        .arg("pragma integrity_check; select id, name, score, hex(data) from t order by id")
        .output()
        .unwrap();
    assert_eq!(
        text(&host.stdout),
        "ok\n1|ann|9.5|00FF\n2|bob||\n",
        "{}",
        text(&host.stderr)
    );
    let py = Command::new("python3")
        .arg("-c")
        .arg("import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print(c.execute('select name from t order by id').fetchall())")
        .arg(&host_db)
        .output()
        .unwrap();
    assert_eq!(
        text(&py.stdout),
        "[('ann',), ('bob',)]\n",
        "{}",
        text(&py.stderr)
    );
    // And back: a database the host wrote (WAL off, several pages) is read
    // and extended in the sandbox.
    let host_made = dir.join("host.db");
    let made = Command::new("python3")
        .arg("-c")
        .arg("import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('create table big(i, s)'); c.executemany('insert into big values (?, ?)', [(i, 'x'*50) for i in range(5000)]); c.commit()")
        .arg(&host_made)
        .status()
        .unwrap();
    assert!(made.success());
    sh.fs()
        .write("/workspace/host.db", &std::fs::read(&host_made).unwrap())
        .unwrap();
    let out = run_in(
        &sh,
        "sqlite3 host.db 'select count(*), sum(i) from big; insert into big values (-1, null)'; sqlite3 host.db 'select count(*) from big'",
        Duration::from_secs(20),
    );
    assert_eq!(
        text(&out.stdout),
        "5000|12497500\n5001\n",
        "{}",
        text(&out.stderr)
    );
    export(&sh, "/workspace/host.db", &host_made);
    let host = Command::new("sqlite3")
        .arg(&host_made)
        .arg("pragma integrity_check; select count(*) from big")
        .output()
        .unwrap();
    assert_eq!(text(&host.stdout), "ok\n5001\n");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Patterns that would let this crate's sources touch the host.
const FORBIDDEN: &[&str] = &[
    "std::fs::",
    "use std::fs",
    "std::process::",
    "use std::process",
    "std::env::",
    "set_current_dir(",
    "libc::",
    "std::net::",
    "std::os::unix::process",
    "SystemTime::now",
];

#[test]
fn source_never_touches_the_host() {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut hits = Vec::new();
    let mut files = 0;
    for e in std::fs::read_dir(&src).unwrap().flatten() {
        let p = e.path();
        if p.extension().is_none_or(|x| x != "rs") {
            continue;
        }
        files += 1;
        let text = std::fs::read_to_string(&p).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for pat in FORBIDDEN {
                if code.contains(pat) {
                    hits.push(format!("{}:{}: {}", p.display(), n + 1, line.trim()));
                }
            }
        }
    }
    assert!(files >= 3);
    assert!(hits.is_empty(), "host access in src:\n{}", hits.join("\n"));
}
