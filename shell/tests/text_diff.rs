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

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

use sandkeep_shell::commands::{self, CommandCtx, Exec};
use sandkeep_shell::{Clock, Fs, Limits, RunControl, RunOptions, Shell, ShellConfig};

struct NoExec;

impl Exec for NoExec {
    fn exec(
        &mut self,
        _argv: &[String],
        _env: &[(String, String)],
        _cwd: &str,
        _stdin: &mut dyn Read,
        _stdout: &mut dyn Write,
        _stderr: &mut dyn Write,
    ) -> i32 {
        127
    }
}

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
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
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

/// A host temp directory removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn host_dir(files: &[(String, Option<Vec<u8>>)]) -> TempDir {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let p = std::env::temp_dir().join(format!(
        "sandkeep-text-diff-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&p).unwrap();
    let t = TempDir(p);
    for (n, d) in files {
        let p = t.path().join(n);
        match d {
            None => std::fs::create_dir_all(&p).unwrap(),
            Some(d) => std::fs::write(&p, d).unwrap(),
        }
    }
    t
}

fn our_fs(files: &[(String, Option<Vec<u8>>)]) -> Fs {
    let fs = Fs::new(Limits::default().fs, Clock::fixed(1_704_067_200));
    for (n, d) in files {
        let p = format!("/workspace/{n}");
        match d {
            None => fs.mkdir_all(&p).unwrap(),
            Some(d) => fs.write(&p, d).unwrap(),
        }
    }
    fs
}

struct Outcome {
    status: i32,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    file: Option<Vec<u8>>,
}

/// Runs a `[shell]` case through the interpreter over a sandbox holding the fixtures.
fn run_shell(files: &[(String, Option<Vec<u8>>)], case: &Case) -> Outcome {
    let shell = Shell::new(ShellConfig::default());
    for (n, d) in files {
        let p = format!("/workspace/{n}");
        match d {
            None => shell.fs().mkdir_all(&p).unwrap(),
            Some(d) => shell.fs().write(&p, d).unwrap(),
        }
    }
    let opts = RunOptions {
        env: vec![("LC_ALL".to_string(), "C".to_string())],
        ..RunOptions::default()
    };
    let o = shell.run(&case.line, opts);
    let file = case
        .check
        .as_ref()
        .and_then(|c| shell.fs().read(&format!("/workspace/{c}")).ok());
    Outcome {
        status: o.exit_code,
        stdout: o.stdout,
        stderr: o.stderr,
        file,
    }
}

fn run_ours(fs: &Fs, case: &Case) -> Outcome {
    let Some(f) = commands::lookup(&case.argv[0]) else {
        panic!("no command {}", case.argv[0]);
    };
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
    let mut inp: &[u8] = &input;
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let mut exec = NoExec;
    let status = {
        let mut ctx = CommandCtx {
            args: &case.argv,
            env: &env,
            cwd: "/workspace",
            fs,
            stdin: &mut inp,
            stdout: &mut out,
            stderr: &mut err,
            control: &control,
            exec: &mut exec,
        };
        f(&mut ctx)
    };
    let file = case
        .check
        .as_ref()
        .and_then(|c| fs.read(&format!("/workspace/{c}")).ok());
    Outcome {
        status,
        stdout: out,
        stderr: err,
        file,
    }
}

fn run_host(dir: &Path, case: &Case) -> Outcome {
    let mut cmd = Command::new("bash");
    cmd.arg("-c")
        .arg(&case.line)
        .current_dir(dir)
        .env("LC_ALL", "C")
        .env("POSIXLY_CORRECT_UNSET", "1");
    cmd.env_remove("POSIXLY_CORRECT");
    cmd.stdin(std::process::Stdio::null());
    let o = cmd.output().expect("bash runs");
    let file = case
        .check
        .as_ref()
        .and_then(|c| std::fs::read(dir.join(c)).ok());
    Outcome {
        status: o.status.code().unwrap_or(-1),
        stdout: o.stdout,
        stderr: o.stderr,
        file,
    }
}

/// Whether the host has the GNU tool (the suite skips cases it cannot compare).
fn host_has(tool: &str) -> bool {
    use std::collections::HashMap;
    use std::sync::Mutex;
    static SEEN: Mutex<Option<HashMap<String, bool>>> = Mutex::new(None);
    let mut g = SEEN.lock().unwrap();
    *g.get_or_insert_with(HashMap::new)
        .entry(tool.to_string())
        .or_insert_with(|| {
            Command::new("bash")
                .arg("-c")
                .arg(format!("command -v {tool}"))
                .output()
                .map(|o| o.status.success())
                .unwrap_or(false)
        })
}

fn norm(data: &[u8], sorted: bool) -> Vec<u8> {
    if !sorted {
        return data.to_vec();
    }
    let mut lines: Vec<&[u8]> = data.split(|b| *b == b'\n').collect();
    lines.sort();
    lines.join(&b'\n')
}

/// Runs every case of the `.cases` files whose name starts with `prefix`;
/// returns (cases run, failure descriptions).
fn run_suite(prefix: &str) -> (usize, Vec<String>) {
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
    let filter = std::env::var("TEXT_DIFF_FILTER").ok();
    let mut count = 0;
    let mut failures = Vec::new();
    for n in names {
        let text = std::fs::read_to_string(cases_dir.join(&n)).unwrap();
        // A case continues over several lines while a single quote is open.
        let mut joined: Vec<(usize, String)> = Vec::new();
        let mut open = false;
        for (ln, line) in text.lines().enumerate() {
            if open {
                let last = joined.last_mut().unwrap();
                last.1.push('\n');
                last.1.push_str(line);
            } else {
                joined.push((ln, line.to_string()));
            }
            if line.matches('\'').count() % 2 == 1 {
                open = !open;
            }
        }
        for (ln, line) in joined {
            let t = line.trim();
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
            if filter.as_ref().is_some_and(|f| !t.contains(f.as_str())) {
                continue;
            }
            let case = parse_line(t);
            if !case.shell && !host_has(&case.argv[0]) {
                eprintln!("skipped (no {} on this host): {}", case.argv[0], case.line);
                continue;
            }
            count += 1;
            let (ours, host) = if case.shell {
                let d = host_dir(&files);
                (run_shell(&files, &case), run_host(d.path(), &case))
            } else if case.check.is_some() {
                let d = host_dir(&files);
                let fs = our_fs(&files);
                (run_ours(&fs, &case), run_host(d.path(), &case))
            } else {
                (
                    run_ours(&shared_fs, &case),
                    run_host(shared_host.path(), &case),
                )
            };
            let mut problems = Vec::new();
            if ours.status != host.status {
                problems.push(format!("status ours {} gnu {}", ours.status, host.status));
            }
            if norm(&ours.stdout, case.sorted) != norm(&host.stdout, case.sorted) {
                problems.push(format!(
                    "stdout differs\n  ours: {:?}\n  gnu:  {:?}",
                    String::from_utf8_lossy(&ours.stdout),
                    String::from_utf8_lossy(&host.stdout)
                ));
            }
            if host.status != 0 && !host.stderr.is_empty() && ours.stderr.is_empty() {
                problems.push(format!(
                    "no error message (gnu: {:?})",
                    String::from_utf8_lossy(&host.stderr)
                ));
            }
            if ours.file != host.file {
                problems.push(format!(
                    "file {:?} differs\n  ours: {:?}\n  gnu:  {:?}",
                    case.check,
                    ours.file.as_deref().map(String::from_utf8_lossy),
                    host.file.as_deref().map(String::from_utf8_lossy)
                ));
            }
            if !problems.is_empty() {
                failures.push(format!(
                    "{n}:{}: {}\n  {}\n  (our stderr: {:?})",
                    ln + 1,
                    case.line,
                    problems.join("\n  "),
                    String::from_utf8_lossy(&ours.stderr)
                ));
            }
        }
    }
    (count, failures)
}

fn check(prefix: &str, min_cases: usize) {
    let (count, failures) = run_suite(prefix);
    for f in &failures {
        eprintln!("{f}\n");
    }
    eprintln!("{prefix}: {} cases, {} failed", count, failures.len());
    assert!(
        failures.is_empty(),
        "{} of {count} cases differ from GNU",
        failures.len()
    );
    if std::env::var("TEXT_DIFF_FILTER").is_err() {
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
