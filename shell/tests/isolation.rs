//! Attempts to escape the sandbox: none reaches the host, each gives a
//! bash-like result. Also scans shell/src for host-touching APIs.
//!
//! A test binary of its own, not a module of `tests/suite/`: it compares
//! listings of host `/tmp` before and after a run, and the suites there make
//! and remove host temp dirs all the time, so beside them it would fail.

#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::path::{Path, PathBuf};

use sandkeep_shell::{RunOptions, RunOutput, Shell, ShellConfig};

fn run(sh: &Shell, script: &str) -> RunOutput {
    sh.run(script, RunOptions::default())
}

fn out(o: &RunOutput) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &RunOutput) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A host directory listing, to prove it did not change.
fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

#[test]
fn host_files_are_invisible() {
    let sh = Shell::new(ShellConfig::default());
    let o = run(&sh, "cat /etc/passwd");
    assert_eq!(o.exit_code, 1);
    assert!(!out(&o).contains("root:"), "host passwd leaked");
    assert!(err(&o).contains("No such file or directory"), "{}", err(&o));

    let o = run(&sh, "ls /");
    assert_eq!(o.exit_code, 0);
    let names = out(&o);
    assert!(names.lines().any(|l| l == "workspace"), "{names}");
    for host_only in ["proc", "sys", "home", "root", "var"] {
        assert!(
            !names.lines().any(|l| l == host_only),
            "host's /{host_only} visible: {names}"
        );
    }
}

#[test]
fn dotdot_stays_inside() {
    let sh = Shell::new(ShellConfig::default());
    let o = run(
        &sh,
        "cd /../..; pwd; cd ../../..; pwd; cd /workspace/../../..; pwd",
    );
    assert_eq!(out(&o), "/\n/\n/\n");
    let marker = format!("sandkeep_escape_{}", std::process::id());
    let before = listing(Path::new("/tmp"));
    let o = run(
        &sh,
        &format!("echo x > ../../../../../tmp/{marker}; cat /tmp/{marker}"),
    );
    assert_eq!(out(&o), "x\n");
    assert!(
        !Path::new("/tmp").join(&marker).exists(),
        "a redirection reached the host"
    );
    assert_eq!(before, listing(Path::new("/tmp")));
}

#[test]
fn symlinks_resolve_in_the_virtual_tree() {
    let sh = Shell::new(ShellConfig::default());
    let o = run(&sh, "ln -s /etc x; cat x/passwd; echo status=$?");
    assert!(!out(&o).contains("root:"));
    assert!(out(&o).ends_with("status=1\n"), "{}", out(&o));
    let o = run(&sh, "ln -s ../../../../.. up; ls up/ | grep -c workspace");
    assert_eq!(out(&o), "1\n", "{}", err(&o));
}

#[test]
fn host_programs_never_run() {
    let sh = Shell::new(ShellConfig::default());
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let before = listing(&cwd);
    // `/bin/echo` is the sandbox's echo; `exec /bin/sh` is the sandbox's shell.
    let o = run(
        &sh,
        "/bin/echo hi; exec /bin/sh -c 'echo in-sh; touch made-by-sh'",
    );
    assert_eq!(out(&o), "hi\nin-sh\n", "{}", err(&o));
    let o = run(&sh, "ls made-by-sh");
    assert_eq!(out(&o), "made-by-sh\n");
    assert!(!cwd.join("made-by-sh").exists());
    let o = run(&sh, "/usr/bin/nonexistent-tool; echo $?");
    assert_eq!(out(&o), "127\n");
    let o = run(&sh, "python3 -c 'print(1)'; echo $?");
    assert_eq!(out(&o), "127\n");
    // Host-only tools are either unknown or named as unavailable here.
    let e = err(&o);
    assert!(
        e.contains("command not found") || e.contains("not available"),
        "{e}"
    );
    assert_eq!(before, listing(&cwd));
}

#[test]
fn signals_and_umask_stay_inside() {
    let sh = Shell::new(ShellConfig::default());
    let o = run(
        &sh,
        "kill -9 1; echo k=$?; umask 077; umask; kill -TERM $$; echo not-reached",
    );
    let text = out(&o);
    assert!(text.contains("k=1"), "{text}");
    // SIGTERM to `$$` ends the script as it ends bash (128 + 15), and only it.
    assert!(text.ends_with("0077\n"), "{text}");
    assert_eq!(o.exit_code, 143, "{text}");
    // The host process is obviously still here; a new run has the default umask.
    let o = run(&sh, "umask");
    assert_eq!(out(&o), "0022\n");
}

#[test]
fn environment_is_not_the_hosts() {
    let sh = Shell::new(ShellConfig::default());
    let o = run(&sh, "echo $HOME $USER $PATH $SHELL; env | grep -c CARGO");
    assert_eq!(
        out(&o),
        "/workspace sandbox /usr/local/bin:/usr/bin:/bin /bin/bash\n0\n"
    );
}

/// Patterns that would let shell/src touch the host.
const FORBIDDEN: &[&str] = &[
    "std::fs::",
    "std::fs;",
    "use std::fs",
    "std::process::",
    "use std::process",
    "std::env::set_var",
    "std::env::remove_var",
    "std::env::var",
    "std::env::set_current_dir",
    "set_current_dir(",
    "libc::",
    "nix::",
    "std::os::unix::process",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn source_never_touches_the_host() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 10);
    let mut hits = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for pat in FORBIDDEN {
                if code.contains(pat) {
                    hits.push(format!("{}:{}: {}", f.display(), n + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        hits.is_empty(),
        "host access in shell/src:\n{}",
        hits.join("\n")
    );
}

/// `env -i` and `env -u` hide the sandbox's variables from the program they
/// run: only the given environment reaches it.
#[test]
fn env_can_clear_and_hide_variables() {
    let sh = Shell::new(ShellConfig::default());
    let o = run(
        &sh,
        "export FOO=1; env -u FOO printenv FOO; echo rc=$?; env -i A=b env; \
         env -i bash -c 'echo \"[$HOME]\"'; FOO=2 env printenv FOO",
    );
    assert_eq!(out(&o), "rc=1\nA=b\n[]\n2\n", "{}", err(&o));
}

/// `rg` walks and reads the virtual tree only: the host's files (its
/// `/etc/passwd`, its ignore files, the `.git` of the checkout the tests run
/// in) are neither found nor read, by a walk from `/` or by name.
#[test]
fn rg_searches_only_the_virtual_tree() {
    let sh = Shell::new(ShellConfig::default());
    let o = run(
        &sh,
        "rg -l root /etc/passwd /proc/self/environ; echo \"[$?]\"",
    );
    assert!(!out(&o).contains("passwd\n"), "{}", out(&o));
    assert!(out(&o).ends_with("[2]\n"), "{}", out(&o));
    assert!(err(&o).contains("No such file or directory"), "{}", err(&o));
    let o = run(
        &sh,
        "echo sandboxed-needle > /workspace/n; rg -uuu --files / | grep -c .; rg -l -uuu sandboxed-needle /",
    );
    let listed: usize = out(&o).lines().next().unwrap_or("0").parse().unwrap_or(0);
    assert!(
        listed < 1000,
        "rg listed {listed} files: more than the sandbox holds"
    );
    assert!(out(&o).ends_with("/workspace/n\n"), "{}", out(&o));
    // A `.gitignore` of the host (the checkout's) never applies: `*.rs`
    // files are searched in the sandbox's tree.
    let o = run(
        &sh,
        "cd /workspace && echo x > a.rs && mkdir -p target && echo x > target/t && rg -l x --sort path",
    );
    assert_eq!(out(&o), "a.rs\nn\ntarget/t\n");
}
