//! A session's shell keeps its state between runs (`Shell::run_keeping`):
//! each kind of state survives the next run and a snapshot round trip;
//! subshells and pipeline stages do not leak; failed and timed-out runs
//! keep what they reached. The differential cases run the same calls one
//! after another in ONE host bash (what an agent harness's shell is) and
//! compare what the last call prints.

#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::time::{Duration, Instant};

use sandkeep_shell::{Limits, RunOptions, Shell, ShellConfig, ShellSnapshot, ShellState};

fn shell() -> Shell {
    Shell::new(ShellConfig::default())
}

/// Runs `calls` in one session; the stdout of each.
fn session(shell: &Shell, state: &mut ShellState, calls: &[&str]) -> Vec<String> {
    calls
        .iter()
        .map(|c| {
            let out = shell.run_keeping(c, RunOptions::default(), state);
            String::from_utf8_lossy(&out.stdout).into_owned()
        })
        .collect()
}

/// The state after a trip through JSON (what the store keeps).
fn round_trip(state: &ShellState) -> ShellState {
    let snap = state.snapshot().expect("a run left state");
    let json = serde_json::to_vec(&snap).unwrap();
    let back: ShellSnapshot = serde_json::from_slice(&json).unwrap();
    assert_eq!(back, snap);
    ShellState::from_snapshot(&back).unwrap()
}

/// Each kind of state, set in one call, and a probe that prints it.
const KINDS: &[(&str, &str, &str, &str)] = &[
    // (kind, setting call, probe, expected probe output)
    (
        "cwd",
        "mkdir -p proj/src && cd proj/src",
        "pwd; echo $PWD",
        "/workspace/proj/src\n/workspace/proj/src\n",
    ),
    (
        "oldpwd",
        "mkdir -p a b && cd a && cd ../b",
        "echo $OLDPWD; cd - >/dev/null; pwd",
        "/workspace/a\n/workspace/a\n",
    ),
    (
        "dirstack",
        "mkdir -p d1 d2 && pushd d1 >/dev/null && pushd ../d2 >/dev/null",
        "dirs; popd >/dev/null; pwd",
        "~/d2 ~/d1 ~\n/workspace/d1\n",
    ),
    (
        "shell var",
        "XV=1",
        "echo ${XV-unset}; env | grep -c '^XV=' || true",
        "1\n0\n",
    ),
    ("exported var", "export XV=2", "env | grep '^XV='", "XV=2\n"),
    (
        "indexed array",
        "declare -a arr=(one 'two words' [7]=seven)",
        "declare -p arr",
        "declare -a arr=([0]=\"one\" [1]=\"two words\" [7]=\"seven\")\n",
    ),
    (
        "assoc array",
        "declare -A m=([k1]=v1 ['k 2']='v 2')",
        "echo \"${m[k1]}|${m[k 2]}|${#m[@]}\"; declare -p m | cut -c1-11",
        "v1|v 2|2\ndeclare -A \n",
    ),
    (
        "attributes",
        "declare -i n=4; declare -rx R=ro; declare -l low=ABC; declare -u up",
        "n+=1+1; echo $n; declare -p R low; up=abc; echo $up; (R=2) 2>/dev/null || echo readonly",
        "6\ndeclare -rx R=\"ro\"\ndeclare -l low=\"abc\"\nABC\nreadonly\n",
    ),
    (
        "nameref",
        "target=t1; declare -n ref=target",
        "echo $ref; ref=t2; echo $target",
        "t1\nt2\n",
    ),
    (
        "function",
        "f() { local x=$1; echo \"f:$x:${#FUNCNAME[@]}\"; }",
        "f arg; declare -F f",
        "f:arg:1\nf\n",
    ),
    (
        "alias",
        "alias ll='ls -1'",
        "alias ll",
        "alias ll='ls -1'\n",
    ),
    (
        "alias expands",
        "shopt -s expand_aliases; alias say='echo said'",
        "say it",
        "said it\n",
    ),
    (
        "set -o",
        "set -o pipefail; set -u",
        "false | true; echo $?; echo $-",
        "1\nhuBc\n",
    ),
    (
        "shopt",
        "shopt -s nullglob extglob",
        "echo none*; shopt extglob",
        "\nextglob        \ton\n",
    ),
    (
        "umask",
        "umask 027",
        "umask; : > f; stat -c %a f",
        "0027\n640\n",
    ),
];

#[test]
fn each_kind_of_state_survives_the_next_run_and_a_snapshot() {
    let shell = shell();
    let mut failed = Vec::new();
    for (kind, set, probe, want) in KINDS {
        for via_snapshot in [false, true] {
            let sh = shell.clone();
            sh.fs().remove_all("/workspace").unwrap();
            sh.fs().mkdir_all("/workspace").unwrap();
            let mut state = ShellState::default();
            let set_out = sh.run_keeping(set, RunOptions::default(), &mut state);
            if via_snapshot {
                state = round_trip(&state);
            }
            let out = sh.run_keeping(probe, RunOptions::default(), &mut state);
            let got = String::from_utf8_lossy(&out.stdout);
            if got != *want {
                failed.push(format!(
                    "{kind} (snapshot {via_snapshot}): got {got:?}, want {want:?}; stderr {:?} {:?}",
                    String::from_utf8_lossy(&set_out.stderr),
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
        }
    }
    assert!(
        failed.is_empty(),
        "{} failed:\n{}",
        failed.len(),
        failed.join("\n")
    );
}

#[test]
fn a_new_state_is_a_new_shell() {
    let shell = shell();
    let mut used = ShellState::default();
    session(
        &shell,
        &mut used,
        &["mkdir -p d; cd d; X=1; f(){ :; }; alias a=b; set -e"],
    );
    let mut fresh = ShellState::default();
    assert!(fresh.is_new());
    let out = session(
        &shell,
        &mut fresh,
        &["pwd; echo ${X-unset}; type f 2>&1 | head -1; alias; echo $-"],
    );
    assert_eq!(
        out[0],
        "/workspace\nunset\nbash: line 1: type: f: not found\nhBc\n"
    );
}

#[test]
fn subshells_and_pipeline_stages_do_not_leak() {
    let shell = shell();
    let mut state = ShellState::default();
    let out = session(
        &shell,
        &mut state,
        &[
            "mkdir -p sub; (cd sub; S=1; g(){ :; }); echo x | { P=1; cd sub; }; Q=$(Q=1; cd sub; echo v)",
            "pwd; echo ${S-unset} ${P-unset} $Q; declare -F g || echo no g",
            "shopt -s lastpipe; set +m; echo y | read L; echo ${L-unset}",
            "echo ${L-unset}",
        ],
    );
    assert_eq!(out[1], "/workspace\nunset unset v\nno g\n");
    // With lastpipe the last stage runs in the shell itself, as in bash.
    assert_eq!(out[2], "y\n");
    assert_eq!(out[3], "y\n");
}

#[test]
fn failed_and_cut_runs_keep_what_they_reached() {
    let shell = Shell::new(ShellConfig {
        limits: Limits {
            timeout: Duration::from_millis(300),
            ..Limits::default()
        },
        ..ShellConfig::default()
    });
    let mut state = ShellState::default();
    let out = session(
        &shell,
        &mut state,
        &[
            "mkdir -p fail; cd fail; F=1; false",
            "set -e; G=1; false; H=1",
            "T=1; mkdir -p ../t; cd ../t; while :; do :; done; T=2",
            "exit 3; E=1",
            "pwd; echo $F $G ${H-unset} $T ${E-unset}; echo $-",
        ],
    );
    assert_eq!(out[4], "/workspace/t\n1 1 unset 1 unset\nehBc\n");
    // A run cut inside a function keeps the globals, not its locals.
    let mut state = ShellState::default();
    let out = session(
        &shell,
        &mut state,
        &[
            "spin() { local L=1; GL=1; while :; do :; done; }; spin",
            "echo ${L-unset} $GL; declare -F spin",
        ],
    );
    assert_eq!(out[1], "unset 1\nspin\n");
}

#[test]
fn the_run_environment_applies_on_top_and_cwd_of_a_removed_directory_falls_back() {
    let shell = shell();
    let mut state = ShellState::default();
    session(
        &shell,
        &mut state,
        &["export A=mine B=mine; mkdir -p gone && cd gone"],
    );
    let options = RunOptions {
        env: vec![("B".into(), "given".into())],
        ..RunOptions::default()
    };
    let out = shell.run_keeping("echo $A $B; rmdir ../gone", options, &mut state);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "mine given\n");
    let out = shell.run_keeping("pwd", RunOptions::default(), &mut state);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "/workspace\n");
}

#[test]
fn a_snapshot_leaves_out_identity_and_dynamic_variables() {
    let shell = shell();
    let mut state = ShellState::default();
    session(
        &shell,
        &mut state,
        &["X=1; echo $RANDOM $SECONDS $LINENO >/dev/null"],
    );
    let snap = state.snapshot().unwrap();
    let names: Vec<&str> = snap.variables.iter().map(|v| v.name.as_str()).collect();
    assert!(names.contains(&"X") && names.contains(&"PATH") && names.contains(&"HOME"));
    for dynamic in [
        "UID",
        "EUID",
        "PPID",
        "RANDOM",
        "SECONDS",
        "LINENO",
        "PWD",
        "BASH_VERSION",
        "_",
    ] {
        assert!(!names.contains(&dynamic), "{dynamic} in {names:?}");
    }
    // A snapshot with a readonly UID (from another bash) restores without
    // taking it: the run's own identity wins.
    let mut foreign = snap.clone();
    foreign.variables.push(sandkeep_shell::SnapshotVar {
        name: "UID".into(),
        attrs: "ir".into(),
        value: Some(sandkeep_shell::SnapshotValue::Scalar("0".into())),
    });
    let mut state = ShellState::from_snapshot(&foreign).unwrap();
    let out = session(&shell, &mut state, &["echo $UID $X"]);
    assert_eq!(out[0], "1000 1\n");
}

#[test]
fn a_function_source_that_does_not_parse_is_refused() {
    let snap = ShellSnapshot {
        cwd: "/workspace".into(),
        functions: vec![sandkeep_shell::SnapshotFunction {
            name: "f".into(),
            source: "f() { echo; }; rm -rf /".into(),
        }],
        ..ShellSnapshot::default()
    };
    let err = ShellState::from_snapshot(&snap).unwrap_err();
    assert!(err.to_string().contains("function f"), "{err}");
}

/// The same calls in one host bash, one after another: the last call's
/// output must match. Cases avoid paths (the host runs in a temp dir).
#[test]
fn matches_one_host_bash_running_the_calls_in_turn() {
    let cases: &[&[&str]] = &[
        &["x=1; y=(a b c); declare -A z=([q]=1)", "declare -p x y z"],
        &["f() { echo \"in f: $*\"; return 3; }", "f 1 2; echo $?"],
        &["g() { echo a; echo b; }", "declare -f g"],
        &["declare -ir I=5; export E=e", "declare -p I E"],
        &[
            "set -o pipefail -o noglob",
            "set -o | grep -E '^(pipefail|noglob|errexit)'",
        ],
        &[
            "shopt -s dotglob nocasematch",
            "shopt dotglob nocasematch extglob",
        ],
        &["umask 077", "umask; umask -S"],
        &["alias a1='echo one' a2='echo two'", "alias"],
        &["(A=1); echo 1 | B=1; C=$(C=1)", "echo ${A-u} ${B-u} ${C-u}"],
        &["false; D=1", "echo $D"],
    ];
    let mut failed = Vec::new();
    for calls in cases {
        let mut script = String::new();
        for c in &calls[..calls.len() - 1] {
            script.push_str("{ ");
            script.push_str(c);
            script.push_str("\n} >/dev/null 2>&1\n");
        }
        script.push_str("echo @@@\n");
        script.push_str(calls[calls.len() - 1]);
        script.push('\n');
        let host = std::process::Command::new("bash")
            .arg("-c")
            .arg(&script)
            .current_dir(std::env::temp_dir())
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .output()
            .expect("host bash");
        let host = String::from_utf8_lossy(&host.stdout);
        let want = host.split_once("@@@\n").map(|(_, b)| b).unwrap_or("");
        let shell = shell();
        let mut state = ShellState::default();
        let got = session(&shell, &mut state, calls).pop().unwrap();
        if got != want {
            failed.push(format!("{calls:?}: got {got:?}, host bash {want:?}"));
        }
    }
    assert!(
        failed.is_empty(),
        "{} of {} differ:\n{}",
        failed.len(),
        cases.len(),
        failed.join("\n")
    );
}

/// Issue 34's budget: a state of 1,000 variables and 200 functions costs
/// at most 2 ms per run. Prints the side-by-side times; run with
/// `cargo test --release -p sandkeep-shell --test session_state -- --ignored --nocapture`.
#[test]
#[ignore = "a measurement: prints the cost of a large state per run"]
fn cost_of_a_large_state_per_run() {
    let shell = shell();
    let mut setup = String::new();
    for i in 0..1000 {
        setup.push_str(&format!("v{i}='value number {i}'\n"));
    }
    for i in 0..200 {
        setup.push_str(&format!(
            "f{i}() {{ local a=$1; echo \"$a {i}\"; return 0; }}\n"
        ));
    }
    let mut big = ShellState::default();
    shell.run_keeping(&setup, RunOptions::default(), &mut big);
    let snap = big.snapshot().unwrap();
    assert!(snap.variables.len() >= 1000 && snap.functions.len() == 200);
    let mut empty = ShellState::default();
    shell.run_keeping(":", RunOptions::default(), &mut empty);
    let runs = 300;
    let time = |state: &mut ShellState| {
        let start = Instant::now();
        for _ in 0..runs {
            shell.run_keeping("echo hi >/dev/null", RunOptions::default(), state);
        }
        start.elapsed() / runs
    };
    let _ = time(&mut big);
    let (e, b) = (time(&mut empty), time(&mut big));
    let (e2, b2) = (time(&mut empty), time(&mut big));
    let (empty_t, big_t) = (e.min(e2), b.min(b2));
    let start = Instant::now();
    let json = serde_json::to_vec(&big.snapshot().unwrap()).unwrap();
    let snapshot_t = start.elapsed();
    let start = Instant::now();
    let _ = ShellState::from_snapshot(&serde_json::from_slice(&json).unwrap()).unwrap();
    let restore_t = start.elapsed();
    println!(
        "per run: empty state {empty_t:?}, 1000 vars + 200 functions {big_t:?}, extra {:?} (ratio {:.2}); \
         snapshot to JSON {snapshot_t:?} ({} bytes), restore {restore_t:?}",
        big_t.saturating_sub(empty_t),
        big_t.as_secs_f64() / empty_t.as_secs_f64(),
        json.len()
    );
}
