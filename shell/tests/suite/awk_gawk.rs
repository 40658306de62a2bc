//! Behaviour tests of awk's gawk extensions and I/O ordering that the
//! differential suite (`awk_diff.rs`) cannot pin down on its own: output that
//! depends on the clock (`strftime()`/`systime()` under the deterministic
//! shell clock) and scripts whose expected bytes were taken from gawk 5.2
//! once, so they are checked even on hosts without gawk.
//!
//! `AWK_PROBE=file cargo test -p sandkeep-shell --test suite awk_gawk::probe -- --ignored --nocapture`
//! prints ours and gawk's output for each line of `file` (a debugging aid).
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use crate::support::ours::{deterministic_shell, run_raw};
use sandkeep_shell::{RunOptions, RunOutput, Shell, ShellConfig};

fn run(script: &str) -> RunOutput {
    let shell = Shell::new(ShellConfig::default());
    let opts = RunOptions {
        env: vec![("LC_ALL".to_string(), "C".to_string())],
        ..RunOptions::default()
    };
    shell.run(script, opts)
}

fn run_fixed_clock(script: &str) -> RunOutput {
    run_raw(&deterministic_shell(), script)
}

fn stdout(script: &str) -> String {
    let o = run(script);
    assert_eq!(
        o.exit_code,
        0,
        "{script}: stderr {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
#[ignore]
fn probe() {
    let Ok(file) = std::env::var("AWK_PROBE") else {
        return;
    };
    for line in std::fs::read_to_string(file).unwrap().lines() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let o = run(line);
        let g = std::process::Command::new("bash")
            .arg("-c")
            .arg(line)
            .current_dir(std::env::temp_dir())
            .env("LC_ALL", "C")
            .output()
            .unwrap();
        let (ours, theirs) = (
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&g.stdout),
        );
        let mark = if ours == theirs && o.exit_code == g.status.code().unwrap_or(-1) {
            "same"
        } else {
            "DIFF"
        };
        eprintln!(
            "{mark}: {line}\n  ours ({}): {ours:?} err {:?}\n  gawk ({}): {theirs:?} err {:?}",
            o.exit_code,
            String::from_utf8_lossy(&o.stderr),
            g.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&g.stderr)
        );
    }
}

#[test]
fn strftime_and_systime_follow_the_shell_clock() {
    let o =
        run_fixed_clock("awk 'BEGIN { print systime(); print strftime(\"%Y-%m-%d %H:%M:%S\") }'");
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "1704067200\n2024-01-01 00:00:00\n"
    );
}

/// (script, gawk 5.2's stdout).
const FROM_GAWK: &[(&str, &str)] = &[
    // A pipe's command runs at close(); stdout is written last at exit.
    (
        "printf 'c\\na\\nb\\n' | awk '{ print | \"sort\" } END { close(\"sort\"); print \"done\" }'",
        "a\nb\nc\ndone\n",
    ),
    (
        "printf 'c\\na\\nb\\n' | awk '{ print | \"sort\" } END { print \"done\" }'",
        "a\nb\nc\ndone\n",
    ),
    // system() flushes stdout first.
    (
        "awk 'BEGIN { printf \"a\"; system(\"echo b\"); print \"c\" }'",
        "ab\nc\n",
    ),
    (
        "awk 'BEGIN { print \"x\" | \"cat 1>&2\"; print \"y\" }' 2>&1",
        "x\ny\n",
    ),
    // close() returns the command's status, -1 when nothing is open.
    (
        "awk 'BEGIN { print \"q\" | \"cat >/dev/null; exit 9\"; print close(\"cat >/dev/null; exit 9\"); print close(\"nope\") }'",
        "9\n-1\n",
    ),
    (
        "awk 'BEGIN { a[\"x\"] = 5; a[\"y\"] = 1; a[\"z\"] = 3; PROCINFO[\"sorted_in\"] = \"@val_num_desc\"; for (k in a) print k, a[k] }'",
        "x 5\nz 3\ny 1\n",
    ),
    (
        "awk 'BEGIN { IGNORECASE = 1; s = \"Hello HELLO\"; n = gsub(/hello/, \"x\", s); print n, s }'",
        "2 x x\n",
    ),
    (
        "printf 'a\\nb\\n' > f1; printf 'c\\n' > f2; awk 'BEGINFILE { print \"start\", FILENAME } ENDFILE { print \"end\", FILENAME, FNR } { print }' f1 f2",
        "start f1\na\nb\nend f1 2\nstart f2\nc\nend f2 1\n",
    ),
    (
        "printf 'a,,b\\n' | awk 'BEGIN { FPAT = \"[^,]*\" } { print NF \":\" $2 \":\" $3 }'",
        "3::b\n",
    ),
    (
        "awk 'BEGIN { a[1] = 10; a[2] = \"9\"; a[3] = \"abc\"; a[4] = 2; n = asort(a); for (i = 1; i <= n; i++) printf \"%s \", a[i]; n = asorti(a, k, \"@ind_num_desc\"); print k[1] }'",
        "2 10 9 abc 4\n",
    ),
];

#[test]
fn matches_recorded_gawk_output() {
    for (script, want) in FROM_GAWK {
        assert_eq!(stdout(script), *want, "{script}");
    }
}

#[test]
fn inconsistent_sort_function_does_not_panic() {
    // A comparison function that is not an order must not crash the sort.
    let out = stdout(
        "awk 'function c(i1, v1, i2, v2) { return 1 } BEGIN { for (i = 0; i < 50; i++) a[i]; PROCINFO[\"sorted_in\"] = \"c\"; for (k in a) n++; print n }'",
    );
    assert_eq!(out, "50\n");
}

#[test]
fn unknown_sort_order_is_an_error() {
    let o = run("awk 'BEGIN { PROCINFO[\"sorted_in\"] = \"@nope\"; a[1]; for (k in a) print k }'");
    assert_eq!(o.exit_code, 2);
    assert!(!o.stderr.is_empty());
}
