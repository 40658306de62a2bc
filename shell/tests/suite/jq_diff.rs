//! Differential tests: our `jq` against the host's jq (1.6 here), comparing
//! stdout, stderr and exit status for each case of `tests/jq_cases/*.txt`.
//! Skips the comparison (with a message) when no jq is installed on the host.
//!
//! Case syntax, one per line (`#` starts a comment line), words quoted as in
//! bash (`'...'`, `"..."`, `$'...'`):
//!
//! ```text
//! -c '.a' <<< '{"a":1}'                 jq's arguments, then its stdin
//! -n '[inputs]'                         no `<<<`: empty stdin
//! [any-stderr] '{' <<< 1                stderr need not match byte for byte
//! -c '[limit(0; 1)]' => 0 $'[]\n'       jq 1.7's answer: status and stdout
//! ```
//!
//! The stdin word is fed as it is, without a newline added. A case with
//! `=>` is one where jq 1.6 is clearly buggy (a comment above it says how)
//! and jq 1.7 is what an agent expects: it is checked against our jq alone.
//! `JQ_DIFF_FILTER=text` runs only the cases whose line contains `text`.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::support::host::{TempDir, command};
use crate::support::ours::{Call, call};
use crate::support::text;
use sandkeep_shell::{Clock, Fs, Limits, RunControl};

/// The filter file both jqs find as `prog.jq`.
const PROG: &[u8] = b"# a comment\n.from? // [.[] | . * 2]\n";

/// Runs our jq with `args` on `input`; returns (stdout, stderr, status).
fn ours(args: &[&str], input: &str) -> (String, String, i32) {
    let fs = Fs::new(
        Default::default(),
        Clock::fixed(0),
        sandkeep_shell::usr_bin_names(),
    );
    fs.write("/workspace/in.json", b"{\"from\":\"file\"}\n[1,2]\n")
        .unwrap();
    fs.write("/workspace/prog.jq", PROG).unwrap();
    let argv: Vec<String> = std::iter::once("jq")
        .chain(args.iter().copied())
        .map(String::from)
        .collect();
    let control = RunControl::new(
        Limits::default(),
        Clock::fixed(0),
        Some(Instant::now() + std::time::Duration::from_secs(10)),
        Some(1),
    );
    let env = vec![("HOME".to_string(), "/workspace".to_string())];
    let o = call(
        &fs,
        &control,
        Call {
            env: &env,
            stdin: input.as_bytes(),
            ..Call::new(&argv)
        },
    );
    (text(&o.stdout), text(&o.stderr), o.status)
}

/// Runs the host's jq the same way; returns (stdout, stderr, status).
fn theirs(args: &[&str], input: &str) -> Option<(String, String, i32)> {
    let tmp = TempDir::new("jq");
    let dir = tmp.path();
    std::fs::write(dir.join("in.json"), b"{\"from\":\"file\"}\n[1,2]\n").unwrap();
    std::fs::write(dir.join("prog.jq"), PROG).unwrap();
    // No PATH in jq's environment: execvp's default, `/bin:/usr/bin`.
    let mut child = command("jq", "/bin:/usr/bin")
        .args(args)
        .current_dir(dir)
        .env_clear()
        .env("HOME", "/workspace")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    let _ = child.stdin.take().unwrap().write_all(input.as_bytes());
    let out = child.wait_with_output().unwrap();
    Some((
        text(&out.stdout),
        text(&out.stderr),
        out.status.code().unwrap_or(-1),
    ))
}

/// One case of a `jq_cases` file.
struct Case {
    /// `file:line: text`, for reports.
    label: String,
    args: Vec<String>,
    stdin: String,
    /// Stderr need not match byte for byte (`[any-stderr]`).
    any_stderr: bool,
    /// jq 1.7's (status, stdout), where jq 1.6 is buggy.
    expect: Option<(i32, String)>,
}

/// Splits `line` into words as bash would (`'..'`, `"..."`, `$'...'`, bare),
/// each with whether any of it was quoted.
fn words(line: &str) -> Vec<(String, bool)> {
    let c: Vec<char> = line.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        if c[i] == ' ' {
            i += 1;
            continue;
        }
        let (mut w, mut quoted) = (String::new(), false);
        while i < c.len() && c[i] != ' ' {
            if c[i] == '\'' || (c[i] == '$' && c.get(i + 1) == Some(&'\'')) {
                let ansi = c[i] == '$';
                i += if ansi { 2 } else { 1 };
                quoted = true;
                while c[i] != '\'' {
                    if ansi && c[i] == '\\' {
                        i += 1;
                        match c[i] {
                            'n' => w.push('\n'),
                            't' => w.push('\t'),
                            'r' => w.push('\r'),
                            'x' => {
                                let hex: String = c[i + 1..i + 3].iter().collect();
                                w.push(char::from(u8::from_str_radix(&hex, 16).unwrap()));
                                i += 2;
                            }
                            other => w.push(other),
                        }
                    } else {
                        w.push(c[i]);
                    }
                    i += 1;
                }
                i += 1;
            } else if c[i] == '"' {
                quoted = true;
                i += 1;
                while c[i] != '"' {
                    if c[i] == '\\' && matches!(c[i + 1], '"' | '\\' | '$' | '`') {
                        i += 1;
                    }
                    w.push(c[i]);
                    i += 1;
                }
                i += 1;
            } else {
                w.push(c[i]);
                i += 1;
            }
        }
        out.push((w, quoted));
    }
    out
}

/// The cases of every `tests/jq_cases/*.txt`, in file order.
fn cases() -> Vec<Case> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/jq_cases");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    let filter = std::env::var("JQ_DIFF_FILTER").ok();
    let mut all = Vec::new();
    for f in files {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        for (n, line) in std::fs::read_to_string(&f).unwrap().lines().enumerate() {
            let mut t = line.trim();
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
            if filter.as_deref().is_some_and(|f| !t.contains(f)) {
                continue;
            }
            let any_stderr = t.starts_with("[any-stderr]");
            if any_stderr {
                t = t["[any-stderr]".len()..].trim_start();
            }
            let (mut args, mut stdin, mut expect) = (Vec::new(), String::new(), None);
            let mut ws = words(t).into_iter();
            while let Some((w, quoted)) = ws.next() {
                match w.as_str() {
                    "<<<" if !quoted => stdin = ws.next().expect("stdin after <<<").0,
                    "=>" if !quoted => {
                        let status = ws.next().expect("status after =>").0.parse().unwrap();
                        expect = Some((status, ws.next().expect("stdout after status").0));
                    }
                    _ => args.push(w),
                }
            }
            all.push(Case {
                label: format!("{name}:{}: {t}", n + 1),
                args,
                stdin,
                any_stderr,
                expect,
            });
        }
    }
    all
}

/// Our jq against the host's on every case without `=>`; jq 1.7's answers
/// on the others.
#[test]
fn jq_matches_host_jq() {
    let have_jq = Command::new("jq").arg("--version").output().is_ok();
    if !have_jq {
        eprintln!("skipping the comparison: no jq on this machine");
    }
    let (mut failures, mut passed) = (Vec::new(), 0);
    for case in cases() {
        let args: Vec<&str> = case.args.iter().map(String::as_str).collect();
        let (out, err, status) = ours(&args, &case.stdin);
        let problem = if let Some((want_status, want)) = &case.expect {
            if out != *want || status != *want_status {
                Some(format!(
                    "  ours:   {status} {out:?} (stderr {err:?})\n  want:   {want_status} {want:?}"
                ))
            } else if status != 0 && err.is_empty() {
                Some(format!("  status {status} without a message"))
            } else {
                None
            }
        } else if !have_jq {
            continue;
        } else {
            let (want, want_err, want_status) = theirs(&args, &case.stdin).unwrap();
            // jq 1.6 exits 4 on a JSON parse error of its input; 2 is jq's
            // documented status (and 1.7's), which we follow.
            let status_ok =
                status == want_status || (want_status == 4 && status == 2 && !err.is_empty());
            let err_ok =
                err == want_err || (case.any_stderr && err.is_empty() == want_err.is_empty());
            (out != want || !status_ok || !err_ok).then(|| {
                format!(
                    "  ours:   {status} {out:?}\n          stderr {err:?}\n  theirs: {want_status} {want:?}\n          stderr {want_err:?}"
                )
            })
        };
        match problem {
            Some(p) => failures.push(format!("{}\n{p}", case.label)),
            None => passed += 1,
        }
    }
    let failed = failures.len();
    eprintln!("{}", failures.join("\n"));
    eprintln!("jq_diff: {passed} passed, {failed} failed");
    assert!(failures.is_empty(), "{failed} case(s) differ; see above");
}

#[test]
fn jq_writes_debug_and_jq_worded_errors_on_stderr() {
    let (out, err, status) = ours(&["-c", "debug | . + 1"], "1");
    assert_eq!(
        (out.as_str(), err.as_str(), status),
        ("2\n", "[\"DEBUG:\",1]\n", 0)
    );
    let (_, err, status) = ours(&[".a"], "1");
    assert_eq!(status, 5);
    assert!(
        err.contains("Cannot index number with string \"a\""),
        "{err}"
    );
    let (_, err, status) = ours(&[".[]"], "null");
    assert_eq!(status, 5);
    assert!(err.contains("Cannot iterate over null (null)"), "{err}");
    let (_, err, _) = ours(&["error({\"a\":1})"], "null");
    assert!(err.contains("(not a string): {\"a\":1}"), "{err}");
}

/// Updates fold over the paths with one getpath/setpath each: linear, not a
/// copy of the array per element.
#[test]
fn jq_update_of_a_large_array_is_linear() {
    let start = Instant::now();
    let (out, err, status) = ours(
        &[
            "-c",
            "[range(200000)] | .[] |= . + 1 | .[5] = 0 | [length, .[5], .[199999]]",
        ],
        "null",
    );
    assert_eq!((out.as_str(), status), ("[200000,0,200000]\n", 0), "{err}");
    assert!(start.elapsed().as_secs() < 8, "took {:?}", start.elapsed());
    let start = Instant::now();
    let (out, err, status) = ours(
        &[
            "-c",
            "[range(50000) | \"ab\"] | add | gsub(\"a\"; \"x\") | length",
        ],
        "null",
    );
    assert_eq!((out.as_str(), status), ("100000\n", 0), "{err}");
    assert!(start.elapsed().as_secs() < 8, "took {:?}", start.elapsed());
}
