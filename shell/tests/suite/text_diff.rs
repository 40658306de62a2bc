//! Differential suite of the text commands: every case in
//! `tests/text_cases/*.cases` runs through our command (called directly over a
//! fresh virtual filesystem holding `tests/text_cases/files/`) and through the
//! real GNU tool on the host (in a temp dir holding the same files,
//! `LC_ALL=C`), and the two must agree on stdout and exit status. When GNU
//! fails with a message, ours must print one too.
//!
//! Case syntax, one per line (`#` starts a comment line):
//!
//! ```text
//! [flags] command arg 'quoted arg' "dq arg" < stdin-file
//! grep -c foo words.txt
//! sed -n 2p <<< 'one line'
//! [sorted] grep -r TODO .
//! [check:out.txt] tee out.txt < words.txt
//! ```
//!
//! `[shell]` runs the whole line (pipelines, redirections) through the
//! interpreter instead of calling one command; `[sorted]` compares stdout lines sorted (for directory walks, whose order
//! differs between the host filesystem and ours); `[check:F]` also compares
//! the content of file F afterwards; `<<< text` feeds `text` plus a newline.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::path::{Path, PathBuf};

use crate::support::Outcome;
use crate::support::host::{HostBash, TempDir, host_has, read_dir_sorted};
use crate::support::ours::{self, Call};
use crate::support::suite::{Compare, Suite};
use sandkeep_shell::{Clock, Fs, Limits, RunControl};

/// One parsed case.
struct Case {
    line: String,
    argv: Vec<String>,
    stdin: Stdin,
    sorted: bool,
    check: Option<String>,
    /// Run the whole line through the interpreter (pipelines).
    shell: bool,
}

enum Stdin {
    None,
    File(String),
    Text(String),
}

/// Splits a command line into words, honouring quotes and backslashes, and
/// pulls out `< file` / `<<< text`.
fn parse_line(line: &str) -> Case {
    let mut rest = line.trim();
    let mut sorted = false;
    let mut shell = false;
    let mut check = None;
    while rest.starts_with('[') {
        let end = rest.find(']').expect("closing ]");
        let flag = &rest[1..end];
        if flag == "sorted" {
            sorted = true;
        } else if flag == "shell" {
            shell = true;
        } else if let Some(f) = flag.strip_prefix("check:") {
            check = Some(f.to_string());
        } else {
            panic!("unknown flag {flag}");
        }
        rest = rest[end + 1..].trim_start();
    }
    let mut words: Vec<(String, bool)> = Vec::new();
    let chars: Vec<char> = rest.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        while i < chars.len() && chars[i] == ' ' {
            i += 1;
        }
        if i >= chars.len() {
            break;
        }
        let mut w = String::new();
        let mut quoted = false;
        while i < chars.len() && chars[i] != ' ' {
            match chars[i] {
                '\'' => {
                    quoted = true;
                    i += 1;
                    while chars[i] != '\'' {
                        w.push(chars[i]);
                        i += 1;
                    }
                    i += 1;
                }
                '"' => {
                    quoted = true;
                    i += 1;
                    while chars[i] != '"' {
                        if chars[i] == '\\' && matches!(chars[i + 1], '"' | '\\' | '$' | '`') {
                            i += 1;
                        }
                        w.push(chars[i]);
                        i += 1;
                    }
                    i += 1;
                }
                '\\' => {
                    quoted = true;
                    w.push(chars[i + 1]);
                    i += 2;
                }
                c => {
                    w.push(c);
                    i += 1;
                }
            }
        }
        words.push((w, quoted));
    }
    let mut argv = Vec::new();
    let mut stdin = Stdin::None;
    let mut k = 0;
    while k < words.len() {
        let (w, q) = &words[k];
        if !q && w == "<" {
            stdin = Stdin::File(words[k + 1].0.clone());
            k += 2;
        } else if !q && w == "<<<" {
            stdin = Stdin::Text(format!("{}\n", words[k + 1].0));
            k += 2;
        } else {
            argv.push(w.clone());
            k += 1;
        }
    }
    Case {
        line: rest.to_string(),
        argv,
        stdin,
        sorted,
        check,
        shell,
    }
}

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/text_cases/files")
}

/// Extra fixtures that are awkward to keep in git (binary content).
fn generated() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("bin.dat", b"text line\nbin\0ary line\nmore text\n".to_vec()),
        ("crlf.txt", b"one\r\ntwo\r\n".to_vec()),
        ("zero.dat", b"a1\0b2\0a3\0".to_vec()),
        (
            "big.txt",
            (1..=2000)
                .map(|i| format!("{i}\n"))
                .collect::<String>()
                .into_bytes(),
        ),
    ]
}

fn collect(dir: &Path, rel: &str, out: &mut Vec<(String, Option<Vec<u8>>)>) {
    for e in read_dir_sorted(dir) {
        let name = e.file_name().to_string_lossy().into_owned();
        let r = if rel.is_empty() {
            name.clone()
        } else {
            format!("{rel}/{name}")
        };
        if e.file_type().unwrap().is_dir() {
            out.push((r.clone(), None));
            collect(&e.path(), &r, out);
        } else {
            out.push((r, Some(std::fs::read(e.path()).unwrap())));
        }
    }
}

fn fixture_list() -> Vec<(String, Option<Vec<u8>>)> {
    let mut v = Vec::new();
    collect(&fixtures_dir(), "", &mut v);
    for (n, d) in generated() {
        v.push((n.to_string(), Some(d)));
    }
    v
}

/// A host directory holding the fixtures.
fn host_dir(files: &[(String, Option<Vec<u8>>)]) -> TempDir {
    let t = TempDir::new("text-diff");
    for (n, d) in files {
        let p = t.path().join(n);
        match d {
            None => std::fs::create_dir_all(&p).unwrap(),
            Some(d) => std::fs::write(&p, d).unwrap(),
        }
    }
    t
}

/// Writes the fixtures into `fs` under `/workspace`.
fn fill(fs: &Fs, files: &[(String, Option<Vec<u8>>)]) {
    for (n, d) in files {
        let p = format!("/workspace/{n}");
        match d {
            None => fs.mkdir_all(&p).unwrap(),
            Some(d) => fs.write(&p, d).unwrap(),
        }
    }
}

fn our_fs(files: &[(String, Option<Vec<u8>>)]) -> Fs {
    let fs = Fs::new(
        Limits::default().fs,
        Clock::fixed(1_704_067_200),
        sandkeep_shell::usr_bin_names(),
    );
    fill(&fs, files);
    fs
}

/// The content of the `[check:F]` file of `case` in our tree.
fn checked_file(fs: &Fs, case: &Case) -> Option<Vec<u8>> {
    let f = case.check.as_ref()?;
    fs.read(&format!("/workspace/{f}")).ok()
}

/// Runs a `[shell]` case through the interpreter over a sandbox holding the
/// fixtures; returns its outcome and the checked file.
fn run_shell(files: &[(String, Option<Vec<u8>>)], case: &Case) -> (Outcome, Option<Vec<u8>>) {
    let shell = ours::shell();
    fill(shell.fs(), files);
    let o = ours::run_script(&shell, &case.line, &[("LC_ALL", "C")]);
    (o, checked_file(shell.fs(), case))
}

/// Calls the case's command directly over `fs`.
fn run_ours(fs: &Fs, case: &Case) -> (Outcome, Option<Vec<u8>>) {
    let env = vec![("LC_ALL".to_string(), "C".to_string())];
    let control = RunControl::new(
        Limits::default(),
        Clock::fixed(1_704_067_200),
        None,
        Some(42),
    );
    let input: Vec<u8> = match &case.stdin {
        Stdin::None => Vec::new(),
        Stdin::Text(t) => t.clone().into_bytes(),
        Stdin::File(f) => fs.read(&format!("/workspace/{f}")).unwrap(),
    };
    let call = Call {
        env: &env,
        stdin: &input,
        ..Call::new(&case.argv)
    };
    (ours::call(fs, &control, call), checked_file(fs, case))
}

/// Runs the case's line in host bash in `dir`.
fn run_host(dir: &Path, case: &Case) -> (Outcome, Option<Vec<u8>>) {
    let o = HostBash::new().env("LC_ALL", "C").run_in(dir, &case.line);
    let file = case
        .check
        .as_ref()
        .and_then(|c| std::fs::read(dir.join(c)).ok());
    (o, file)
}

/// The cases of one `.cases` file, as (line number, text): a case continues
/// over several lines while a single quote is open.
fn case_lines(text: &str) -> Vec<(usize, String)> {
    let mut joined: Vec<(usize, String)> = Vec::new();
    let mut open = false;
    for (ln, line) in text.lines().enumerate() {
        if open {
            let last = joined.last_mut().unwrap();
            last.1.push('\n');
            last.1.push_str(line);
        } else {
            joined.push((ln + 1, line.to_string()));
        }
        if line.matches('\'').count() % 2 == 1 {
            open = !open;
        }
    }
    joined
}

/// Runs every case of the `.cases` files whose name starts with `prefix`
/// (`TEXT_DIFF_FILTER=substr`: only lines containing it) and checks that at
/// least `min_cases` ran.
fn check(prefix: &str, min_cases: usize) {
    let files = fixture_list();
    let shared_host = host_dir(&files);
    let shared_fs = our_fs(&files);
    let cases_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/text_cases");
    let mut names: Vec<_> = std::fs::read_dir(&cases_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".cases") && n.starts_with(prefix))
        .collect();
    names.sort();
    let mut suite = Suite::new(prefix).filter_from("TEXT_DIFF_FILTER");
    for n in names {
        let text = std::fs::read_to_string(cases_dir.join(&n)).unwrap();
        for (ln, line) in case_lines(&text) {
            let t = line.trim();
            if t.is_empty() || t.starts_with('#') || !suite.selects(&[t]) {
                continue;
            }
            let case = parse_line(t);
            let label = format!("{n}:{ln}: {}", case.line);
            if !case.shell && !host_has(&case.argv[0]) {
                suite.skip(&label, &format!("no {} on this host", case.argv[0]));
                continue;
            }
            // Cases that write (`[shell]`, `[check:F]`) get trees of their own.
            let ((ours, our_file), host) = if case.shell {
                let d = host_dir(&files);
                (
                    run_shell(&files, &case),
                    suite.have_bash().then(|| run_host(d.path(), &case)),
                )
            } else if case.check.is_some() {
                let d = host_dir(&files);
                let fs = our_fs(&files);
                (
                    run_ours(&fs, &case),
                    suite.have_bash().then(|| run_host(d.path(), &case)),
                )
            } else {
                (
                    run_ours(&shared_fs, &case),
                    suite
                        .have_bash()
                        .then(|| run_host(shared_host.path(), &case)),
                )
            };
            let Some((theirs, their_file)) = host else {
                suite.record(&label, &case.line, &ours, None, Vec::new());
                continue;
            };
            let compare = Compare {
                sorted_lines: case.sorted,
                ..Compare::WITH_ERRORS
            };
            let mut problems = compare.problems(&ours, &theirs);
            if our_file != their_file {
                problems.push(format!(
                    "file {:?} differs\n      ours: {:?}\n      gnu:  {:?}",
                    case.check,
                    our_file.as_deref().map(String::from_utf8_lossy),
                    their_file.as_deref().map(String::from_utf8_lossy)
                ));
            }
            suite.record(&label, &case.line, &ours, Some(&theirs), problems);
        }
    }
    let (passed, failed, _) = suite.counts();
    let filtered = suite.filtered();
    suite.finish();
    let count = passed + failed;
    if !filtered {
        assert!(
            count >= min_cases,
            "expected at least {min_cases} cases, found {count}"
        );
    }
}

#[test]
fn grep_matches_gnu() {
    check("grep", 150);
}

#[test]
fn sed_matches_gnu() {
    check("sed", 150);
}

#[test]
fn sort_family_matches_gnu() {
    check("sort", 90);
}

#[test]
fn other_tools_match_gnu() {
    check("tools", 150);
}
