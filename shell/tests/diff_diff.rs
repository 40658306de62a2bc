//! Differential suite of `diff`: each case runs after a common setup script
//! (a few files and two directory trees) in our shell and in the host's bash
//! in a fresh temp dir with `LC_ALL=C`. Stdout and exit status must agree;
//! when GNU prints an error, ours must print one too. Output whose order is
//! Unified headers carry host mtimes, so most `-u` cases drop them
//! (`tail -n +3`) or set `--label`.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use sandkeep_shell::{RunOptions, Shell, ShellConfig};

const SETUP: &str = "printf '1\\n2\\n3\\n4\\n5\\n6\\n7\\n8\\n9\\n10\\n' > a; printf '1\\n2\\nthree\\n4\\n5\\n6\\n7\\n8\\n9\\n10\\n11\\n' > b; \
printf 'x\\ny' > nonl; printf 'x\\ny\\n' > nl; printf 'A  b\\nc\\n' > s1; printf 'a b\\n\\nc\\n' > s2; : > empty; \
mkdir -p d1/sub d2/sub d1/only1; printf 'same\\n' > d1/f; printf 'same\\n' > d2/f; printf 'old\\n' > d1/sub/g; \
printf 'new\\n' > d2/sub/g; printf 'x\\n' > d2/extra; seq 1 40 > long1; seq 1 40 | sed 's/^5$/five/; s/^30$/thirty/' > long2; ";

/// One case per line; blank lines and `#` comments are skipped.
const CASES: &str = r#"
diff a a
diff a b
diff b a
diff a empty
diff empty a
diff empty empty
diff nonl nl
diff nl nonl
diff -q a b
diff -q a a
diff --brief a b
diff -s a a
diff -s a b
diff -u a b | tail -n +3
diff -u b a | tail -n +3
diff -U 1 a b | tail -n +3
diff -U0 a b | tail -n +3
diff -U 0 long1 long2 | tail -n +3
diff -u long1 long2 | tail -n +3
diff -U 10 long1 long2 | tail -n +3
diff long1 long2
diff -u nonl nl | tail -n +3
diff -u empty a | tail -n +3
diff -u a empty | tail -n +3
diff -u --label x --label y a b
diff --label=x --label=y -u a b
diff -u a a
diff -i s1 s2
diff -w s1 s2
diff -b s1 s2
diff -B s1 s2
diff -wB s1 s2
diff -iwB s1 s2
diff a missing
diff missing a
diff a
diff
diff a b c
diff -Z a b
printf "a  \nb\n" > x; printf "a\nb\n" > y; diff -Z x y; echo $?
diff d1 d2
diff -r d1 d2
diff -rq d1 d2
diff -qr d1 d2
diff -ru d1 d2 | grep -v '^[-+][-+][-+]'
diff -rN d1 d2
diff -r d1 d1
diff -q d1 d2
diff a d1
diff d1/f d2
printf '1\n2\n' | diff - a
printf '1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n' | diff a -
diff -N a nosuch
diff -N nosuch a
diff -u -N nosuch a | tail -n +3
seq 1 100 > x; seq 1 100 | sed '50d' > y; diff x y
seq 1 100 > x; seq 1 100 | sed '1d;$d' > y; diff x y
seq 1 100 > x; seq 1 100 | sed '1d;$d' > y; diff -u x y | tail -n +3
seq 1 100 > x; seq 1 100 | sed 's/7/X/' > y; diff x y
seq 1 100 > x; seq 1 100 | sed 's/7/X/' > y; diff -u x y | tail -n +3
seq 1 50 > x; seq 1 50 | sort > y; diff x y
seq 1 50 > x; seq 1 50 | sort > y; diff -u x y | tail -n +3
printf 'a\nb\nc\n' > x; printf 'c\nb\na\n' > y; diff x y
printf 'a\nb\nc\n' > x; printf 'c\nb\na\n' > y; diff -u x y | tail -n +3
printf 'a\na\nb\n' > x; printf 'a\nb\nb\n' > y; diff x y
printf 'p\nq\n' > x; printf 'p\nq\nr\ns\n' > y; diff x y; echo $?
printf 'p\nq\nr\ns\n' > x; printf 'q\nr\n' > y; diff x y
printf 'p\nq\nr\ns\n' > x; printf 'q\nr\n' > y; diff -u x y | tail -n +3
diff a b > /dev/null; echo $?
diff a a > /dev/null; echo $?
diff a missing 2>/dev/null; echo $?
cmp a a; echo $?
"#;

static SEQ: AtomicUsize = AtomicUsize::new(0);

fn host_run(script: &str) -> (Vec<u8>, Vec<u8>, i32) {
    let dir: PathBuf = std::env::temp_dir().join(format!(
        "diff_diff_{}_{}",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::SeqCst)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let out = Command::new("bash")
        .arg("-c")
        .arg(script)
        .current_dir(&dir)
        .env("LC_ALL", "C")
        .output()
        .expect("run bash");
    let _ = std::fs::remove_dir_all(&dir);
    (out.stdout, out.stderr, out.status.code().unwrap_or(128))
}

#[test]
fn diff_matches_gnu() {
    let mut failures = Vec::new();
    let mut passed = 0;
    for case in CASES.lines().map(str::trim) {
        if case.is_empty() || case.starts_with('#') {
            continue;
        }
        let script = format!("{SETUP}{case}");
        let (hout, herr, hstatus) = host_run(&script);
        let shell = Shell::new(ShellConfig::default());
        let ours = shell.run(&script, RunOptions::default());
        let mut problems = Vec::new();
        if ours.stdout != hout {
            problems.push(format!(
                "stdout differs\n  ours: {:?}\n  gnu:  {:?}\n  our stderr: {:?}",
                String::from_utf8_lossy(&ours.stdout),
                String::from_utf8_lossy(&hout),
                String::from_utf8_lossy(&ours.stderr)
            ));
        }
        if ours.exit_code != hstatus {
            problems.push(format!("status ours {} gnu {hstatus}", ours.exit_code));
        }
        if hstatus != 0 && !herr.is_empty() && ours.stderr.is_empty() {
            problems.push(format!(
                "gnu printed an error, we did not: {:?}",
                String::from_utf8_lossy(&herr)
            ));
        }
        if problems.is_empty() {
            passed += 1;
        } else {
            failures.push(format!("case: {case}\n  {}", problems.join("\n  ")));
        }
    }
    eprintln!("diff_diff: {passed} passed, {} failed", failures.len());
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
