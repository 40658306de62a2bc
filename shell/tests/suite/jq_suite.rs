//! jq's own test suite (`../shared/spec/jq/jq.test`, jq's file at commit
//! 579e6f7) run against our `jq`, the way jq's `--run-tests` harness reads
//! it: a program line, an input line, the expected values up to a blank line,
//! compared as JSON values (numbers as doubles, objects in any key order);
//! output after the last expected value must be an error or nothing. A
//! `%%FAIL` block's program must be rejected at compile time (status 3).
//!
//! The file tracks jq 1.7+; our `jq` follows jq 1.6, so the tests jq 1.6
//! fails (their first lines are in `jq16-fails.txt`) are run and reported
//! but do not count. The goal: at least 98% of the rest (the test holds the
//! floor reached so far, [`MIN_PASSED`]), and every `%%FAIL` program jq 1.6
//! rejects, rejected with status 3.
//!
//! ```text
//! cargo test --release -p sandkeep-shell --test suite jq_suite::
//! JQ_SUITE_VERBOSE=1 ...     print every failing counted test
//! JQ_SUITE_HOST=1 ...        run the host's jq instead (checks the harness)
//! ```
//!
//! The suite directory is outside the repository (`../shared/spec/jq` or
//! `JQ_SUITE_DIR`); without it the test says so and passes.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::support::host::command;
use crate::support::ours::{Call, call};
use sandkeep_shell::{Clock, Fs, Limits, RunControl};
use serde_json::Value;

/// How many of the tests jq 1.6 passes ours must pass (of 377).
const MIN_PASSED: usize = 370;

/// One test of `jq.test`.
struct Test {
    /// The line of its program.
    line: usize,
    program: String,
    kind: Kind,
}

enum Kind {
    /// Input line and the expected values' lines.
    Run {
        input: String,
        expected: Vec<String>,
    },
    /// A `%%FAIL` block: the program must not compile.
    MustFail,
}

/// Where the suite lives.
fn suite_dir() -> PathBuf {
    std::env::var_os("JQ_SUITE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/spec/jq"))
}

/// Reads `jq.test` as jq's harness does: `#` lines and blank lines between
/// tests are skipped; a blank line ends a test's expected values.
fn parse(text: &str) -> Vec<Test> {
    let lines: Vec<&str> = text.lines().collect();
    let blank = |l: &str| l.trim().is_empty();
    let skip = |l: &str| blank(l) || l.starts_with('#');
    let mut tests = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if skip(lines[i]) {
            i += 1;
            continue;
        }
        if lines[i].starts_with("%%FAIL") {
            let program = lines.get(i + 1).copied().unwrap_or_default();
            tests.push(Test {
                line: i + 2,
                program: program.to_string(),
                kind: Kind::MustFail,
            });
            i += 2;
            while i < lines.len() && !blank(lines[i]) {
                i += 1;
            }
            continue;
        }
        let line = i + 1;
        let program = lines[i].to_string();
        let input = lines.get(i + 1).copied().unwrap_or_default().to_string();
        i += 2;
        let mut expected = Vec::new();
        while i < lines.len() && !skip(lines[i]) {
            expected.push(lines[i].to_string());
            i += 1;
        }
        tests.push(Test {
            line,
            program,
            kind: Kind::Run { input, expected },
        });
    }
    tests
}

/// Copies the host directory `from` into our filesystem at `to`.
fn copy_tree(fs: &Fs, from: &Path, to: &str) {
    fs.mkdir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().into_owned();
        let target = format!("{to}/{name}");
        if entry.file_type().unwrap().is_dir() {
            copy_tree(fs, &entry.path(), &target);
        } else {
            fs.write(&target, &std::fs::read(entry.path()).unwrap())
                .unwrap();
        }
    }
}

/// Runs `jq -L modules -c PROGRAM` on `input`: (status, stdout, stderr).
trait Jq {
    fn run(&self, program: &str, input: &str) -> (i32, String, String);
}

/// Our jq, called directly over a filesystem holding the modules.
struct Ours {
    fs: Fs,
}

impl Jq for Ours {
    fn run(&self, program: &str, input: &str) -> (i32, String, String) {
        let argv: Vec<String> = ["jq", "-L", "modules", "-c", program]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let control = RunControl::new(
            Limits::default(),
            Clock::fixed(0),
            Some(Instant::now() + Duration::from_secs(10)),
            Some(1),
        );
        let stdin = format!("{input}\n");
        let o = call(
            &self.fs,
            &control,
            Call {
                stdin: stdin.as_bytes(),
                ..Call::new(&argv)
            },
        );
        (
            o.status,
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    }
}

/// The host's jq, in the suite directory.
struct Host {
    dir: PathBuf,
}

impl Jq for Host {
    fn run(&self, program: &str, input: &str) -> (i32, String, String) {
        // Some jq 1.7 tests loop forever in jq 1.6.
        let mut child = command("timeout", "/bin:/usr/bin")
            .args(["5", "jq", "-L", "modules", "-c", program])
            .current_dir(&self.dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("host jq");
        let _ = child
            .stdin
            .take()
            .unwrap()
            .write_all(format!("{input}\n").as_bytes());
        let out = child.wait_with_output().unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }
}

/// `a` and `b` as jq's `jv_equal` compares them: numbers as doubles.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// One expected or produced value: parsed, or its text when serde_json
/// cannot hold it (a number beyond f64).
enum Json {
    Value(Value),
    Text(String),
}

fn json(text: &str) -> Json {
    match serde_json::from_str(text.trim()) {
        Ok(v) => Json::Value(v),
        Err(_) => Json::Text(text.trim().to_string()),
    }
}

fn matches(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Value(a), Json::Value(b)) => same(a, b),
        (Json::Text(a), Json::Text(b)) => a == b,
        _ => false,
    }
}

/// Whether `jq` passes `test`; on failure, why.
fn check(jq: &dyn Jq, test: &Test) -> Result<(), String> {
    let (status, stdout, stderr) = jq.run(
        &test.program,
        match &test.kind {
            Kind::Run { input, .. } => input,
            Kind::MustFail => "null",
        },
    );
    match &test.kind {
        Kind::MustFail => {
            if status == 3 {
                Ok(())
            } else {
                Err(format!(
                    "compiled (status {status}), must be rejected with 3"
                ))
            }
        }
        Kind::Run { expected, .. } => {
            if status == 3 || status == 2 {
                return Err(format!("did not compile: {}", stderr.trim()));
            }
            // `-c` prints one value a line.
            let got: Vec<Json> = stdout.lines().map(json).collect();
            let want: Vec<Json> = expected.iter().map(|l| json(l)).collect();
            let agree =
                got.len() == want.len() && got.iter().zip(&want).all(|(g, w)| matches(g, w));
            if agree {
                Ok(())
            } else {
                Err(format!(
                    "expected {:?}, got {:?} (status {status}, stderr {:?})",
                    expected,
                    stdout.lines().collect::<Vec<_>>(),
                    stderr.trim()
                ))
            }
        }
    }
}

#[test]
fn jq_suite_passes_what_jq16_passes() {
    // A few jq 1.7 tests nest 10,000 arrays deep, deeper than our jq's
    // recursion fits in a test thread's stack (issue 18 bounds the depth).
    std::thread::Builder::new()
        .stack_size(1 << 30)
        .spawn(run_suite)
        .unwrap()
        .join()
        .unwrap();
}

fn run_suite() {
    let dir = suite_dir();
    let Ok(text) = std::fs::read_to_string(dir.join("jq.test")) else {
        eprintln!("jq_suite: no {} here; skipped", dir.display());
        return;
    };
    let jq16_fails: HashSet<usize> = std::fs::read_to_string(dir.join("jq16-fails.txt"))
        .unwrap()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect();
    let tests = parse(&text);
    let jq: Box<dyn Jq> = if std::env::var_os("JQ_SUITE_HOST").is_some() {
        Box::new(Host { dir: dir.clone() })
    } else {
        let fs = Fs::new(
            Default::default(),
            Clock::fixed(0),
            sandkeep_shell::usr_bin_names(),
        );
        copy_tree(&fs, &dir.join("modules"), "/workspace/modules");
        Box::new(Ours { fs })
    };
    let verbose = std::env::var_os("JQ_SUITE_VERBOSE").is_some();
    let (mut counted, mut passed, mut extra_passed, mut fail_tests, mut fail_passed) =
        (0, 0, 0, 0, 0);
    let mut failures = Vec::new();
    for test in &tests {
        if std::env::var_os("JQ_SUITE_TRACE").is_some() {
            eprintln!("running line {}", test.line);
        }
        let result = check(jq.as_ref(), test);
        match test.kind {
            Kind::MustFail => {
                fail_tests += 1;
                match result {
                    Ok(()) => fail_passed += 1,
                    // jq 1.6 compiles this one (`module []; 0`) too.
                    Err(e) if test.line != 1940 => {
                        failures.push(format!("line {}: {}: {e}", test.line, test.program))
                    }
                    Err(_) => {}
                }
            }
            Kind::Run { .. } if jq16_fails.contains(&test.line) => {
                extra_passed += usize::from(result.is_ok());
            }
            Kind::Run { .. } => {
                counted += 1;
                match result {
                    Ok(()) => passed += 1,
                    Err(e) => failures.push(format!("line {}: {}: {e}", test.line, test.program)),
                }
            }
        }
    }
    if verbose {
        for f in &failures {
            eprintln!("{f}");
        }
    }
    eprintln!(
        "jq_suite: {passed}/{counted} of the tests jq 1.6 passes ({:.1}%), \
         {extra_passed}/{} of jq 1.7+'s own, {fail_passed}/{fail_tests} %%FAIL rejected",
        100.0 * passed as f64 / counted.max(1) as f64,
        tests.len() - counted - fail_tests,
    );
    // The goal is 98% (370 of jq 1.6's 377); this is the floor reached so
    // far, so that nothing passing now regresses. Left: jq's wording of
    // invalid path expressions (7), NaN/Infinity in input (2), jq 1.6's
    // doubles for big integers (3), `modulemeta`, `$b:[...]` object
    // patterns, `"abc" * nan`, `try input` ("break"), a setpath message
    // and a 10,000-deep parse.
    let floor = if std::env::var_os("JQ_SUITE_HOST").is_some() {
        counted
    } else {
        MIN_PASSED
    };
    assert!(
        passed >= floor,
        "{passed}/{counted} < {floor}:\n{}",
        failures.join("\n")
    );
    assert!(
        fail_passed + 1 >= fail_tests,
        "%%FAIL programs compiled:\n{}",
        failures.join("\n")
    );
}
