//! Runs the Oils spec cases (`*.test.sh`) through the in-process shell and
//! counts how many give bash's stdout and exit status.
//!
//! ```text
//! cargo run --release -p sandkeep-shell --example conformance -- DIR [--filter TEXT] [--verbose]
//! ```
//!
//! Like the Oils harness it sets `SH=bash` and `TMP` (a directory of the
//! virtual tree) and provides `argv.py`, `printenv.py`, `stdout_stderr.py` and
//! `read_from_fd.py` as test-only commands. Prints one line per file and, last,
//! `oils: P passed, F failed, S skipped`.
//!
//! With `--bash`, each case also runs under the host's bash (see
//! `conformance/host_bash.rs`), and the last line adds how many cases real
//! bash passes and how many of those ours passes: the issue's measure.

#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

#[path = "conformance/helpers.rs"]
mod helpers;
#[path = "conformance/host_bash.rs"]
mod host_bash;
#[path = "conformance/spec.rs"]
mod spec;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::time::Duration;

use sandkeep_shell::{Determinism, Limits, RunOptions, Shell, ShellConfig};

/// Cases that need a real process model or terminal; skipped with a reason.
const SKIPS: &[(&str, &str, &str)] = &[
    (
        "background.test.sh",
        "jobs",
        "job control: no job table without real processes",
    ),
    (
        "background.test.sh",
        "%job_spec",
        "job control: no job table without real processes",
    ),
    (
        "background.test.sh",
        "wait -n",
        "background jobs run to completion at once",
    ),
    (
        "background.test.sh",
        "Signal message",
        "no signals between in-process jobs",
    ),
    (
        "builtin-process.test.sh",
        "ulimit",
        "host resource limits are not the sandbox's",
    ),
    (
        "builtin-process.test.sh",
        "resource limit",
        "host resource limits are not the sandbox's",
    ),
];

fn skip_reason(file: &str, case: &str) -> Option<&'static str> {
    SKIPS
        .iter()
        .find(|(f, c, _)| *f == file && case.contains(c))
        .map(|(_, _, r)| *r)
}

struct Args {
    dir: PathBuf,
    /// `--run SCRIPT`: run one script and show its output (for debugging).
    run: Option<String>,
    filter: Option<String>,
    verbose: bool,
    /// `--no-skip`: run the cases of the skip list too.
    no_skip: bool,
    /// `--bash`: run every case under host bash too.
    bash: bool,
}

fn args() -> Args {
    let mut dir = None;
    let mut filter = None;
    let mut verbose = false;
    let mut run = None;
    let mut no_skip = false;
    let mut bash = false;
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--filter" => filter = it.next(),
            "--verbose" | "-v" => verbose = true,
            "--run" => run = it.next(),
            "--no-skip" => no_skip = true,
            "--bash" => bash = true,
            _ => dir = Some(PathBuf::from(a)),
        }
    }
    if run.is_some() {
        return Args {
            dir: PathBuf::new(),
            run,
            filter,
            verbose,
            no_skip,
            bash,
        };
    }
    let dir = dir.unwrap_or_else(|| {
        eprintln!("usage: conformance DIR [--filter TEXT] [--verbose] [--no-skip] [--bash]");
        std::process::exit(2)
    });
    Args {
        dir,
        run,
        filter,
        verbose,
        no_skip,
        bash,
    }
}

/// Runs one case in a child process (a stack overflow aborts the process),
/// returning (stdout, status, stderr) or why it crashed.
/// `legacy_tmp`: the file says `## legacy_tmp_dir: yes`; the Oils harness
/// then runs its cases in a directory that has a `_tmp` subdirectory.
fn run_isolated(code: &str, legacy_tmp: bool) -> Result<(Vec<u8>, i32, Vec<u8>), String> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut child = Command::new(exe)
        .arg("--one")
        .args(legacy_tmp.then_some("--legacy-tmp"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(code.as_bytes());
    }
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    let err = out.stderr;
    let marker = b"\n@@@status=";
    let Some(pos) = err.windows(marker.len()).rposition(|w| w == marker) else {
        return Err(format!(
            "crashed ({}): {}",
            out.status,
            String::from_utf8_lossy(&err)
        ));
    };
    let status = String::from_utf8_lossy(&err[pos + marker.len()..])
        .trim()
        .parse()
        .unwrap_or(-1);
    Ok((out.stdout, status, err[..pos].to_vec()))
}

/// `--one`: the child side of [`run_isolated`].
fn run_one() {
    use std::io::{Read, Write};
    let mut code = String::new();
    let _ = std::io::stdin().read_to_string(&mut code);
    let legacy_tmp = std::env::args().nth(2).as_deref() == Some("--legacy-tmp");
    match run_case(&code, legacy_tmp) {
        Ok((out, status, err)) => {
            let _ = std::io::stdout().write_all(&out);
            let _ = std::io::stderr().write_all(&err);
            let _ = write!(std::io::stderr(), "\n@@@status={status}\n");
        }
        Err(p) => {
            let _ = write!(std::io::stderr(), "panic: {p}");
        }
    }
}

/// Runs one case; returns (stdout, status) or a panic message.
fn run_case(code: &str, legacy_tmp: bool) -> Result<(Vec<u8>, i32, Vec<u8>), String> {
    let config = ShellConfig {
        limits: Limits {
            timeout: Duration::from_secs(5),
            max_output_bytes: 1 << 20,
            ..Limits::default()
        },
        deterministic: Some(Determinism::default()),
        commands: helpers::commands(),
    };
    let code = code.to_string();
    let h = std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(move || {
            catch_unwind(AssertUnwindSafe(|| {
                let shell = Shell::new(config);
                let _ = shell.fs().mkdir_all("/tmp/spec-tmp");
                if legacy_tmp {
                    let _ = shell.fs().mkdir_all("/workspace/_tmp/spec-tmp");
                }
                let opts = RunOptions {
                    env: vec![
                        ("SH".into(), "bash".into()),
                        ("TMP".into(), "/tmp/spec-tmp".into()),
                        // The harness's checkout; legacy cases `cd` there.
                        ("REPO_ROOT".into(), "/workspace".into()),
                    ],
                    ..RunOptions::default()
                };
                let out = shell.run(&code, opts);
                (out.stdout, out.exit_code, out.stderr)
            }))
        });
    match h {
        Ok(h) => match h.join() {
            Ok(Ok(r)) => Ok(r),
            Ok(Err(p)) | Err(p) => Err(p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "panic".into())),
        },
        Err(e) => Err(e.to_string()),
    }
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some("--one") {
        std::panic::set_hook(Box::new(|_| {}));
        run_one();
        return;
    }
    if std::env::args().nth(1).as_deref() == Some("--time") {
        // `--time N SCRIPT`: median wall time of N fresh-sandbox runs.
        let n: usize = std::env::args()
            .nth(2)
            .and_then(|s| s.parse().ok())
            .unwrap_or(10);
        let script = std::env::args().nth(3).unwrap_or_default();
        let mut times = Vec::new();
        for _ in 0..n {
            let t = std::time::Instant::now();
            let shell = Shell::new(ShellConfig::default());
            let out = shell.run(&script, RunOptions::default());
            times.push(t.elapsed());
            std::hint::black_box(out);
        }
        times.sort();
        println!("median {:?} min {:?}", times[n / 2], times[0]);
        return;
    }
    let args = args();
    if let Some(script) = &args.run {
        match run_case(script, false) {
            Ok((out, status, err)) => {
                print!("{}", String::from_utf8_lossy(&out));
                eprint!("{}", String::from_utf8_lossy(&err));
                println!("[status {status}]");
            }
            Err(p) => println!("[panic {p}]"),
        }
        return;
    }
    // A panicking case is a failure, reported once, not a crash of the runner.
    std::panic::set_hook(Box::new(|_| {}));
    let mut files: Vec<PathBuf> = std::fs::read_dir(&args.dir)
        .unwrap_or_else(|e| {
            eprintln!("{}: {e}", args.dir.display());
            std::process::exit(2)
        })
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".test.sh"))
        .collect();
    files.sort();
    let (mut passed, mut failed, mut skipped) = (0usize, 0usize, 0usize);
    // `--bash`: cases host bash passes, and how many of them ours passes.
    let helpers = args.bash.then(|| {
        host_bash::Helpers::new().unwrap_or_else(|e| {
            eprintln!("writing the helper programs: {e}");
            std::process::exit(2)
        })
    });
    let (mut bash_passed, mut ours_of_bash, mut n) = (0usize, 0usize, 0usize);
    for path in files {
        let fname = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let (mut p, mut f, mut s) = (0, 0, 0);
        let legacy_tmp = text.contains("\n## legacy_tmp_dir: yes");
        for case in spec::parse(&text) {
            let id = format!("{fname}: {}", case.name);
            if let Some(filter) = &args.filter
                && !id.contains(filter.as_str())
            {
                continue;
            }
            if let Some(reason) = skip_reason(&fname, &case.name).filter(|_| !args.no_skip) {
                s += 1;
                if args.verbose {
                    println!("SKIP {id} ({reason})");
                }
                continue;
            }
            n += 1;
            let bash_ok = helpers.as_ref().is_some_and(|h| {
                host_bash::run(h, &case.code, legacy_tmp, n)
                    .is_ok_and(|(stdout, status)| case.matches(&stdout, status))
            });
            bash_passed += usize::from(bash_ok);
            match run_isolated(&case.code, legacy_tmp) {
                Ok((stdout, status, stderr)) => {
                    if case.matches(&stdout, status) {
                        p += 1;
                        ours_of_bash += usize::from(bash_ok);
                    } else {
                        f += 1;
                        if args.verbose {
                            let bash = if bash_ok { " (bash passes)" } else { "" };
                            println!("FAIL {id}{bash}");
                            println!("  code:\n{}", indent(&case.code));
                            if let Some(e) = &case.stdout {
                                println!("  expected stdout:\n{}", indent(e));
                            }
                            println!(
                                "  got stdout:\n{}",
                                indent(&String::from_utf8_lossy(&stdout))
                            );
                            println!("  stderr:\n{}", indent(&String::from_utf8_lossy(&stderr)));
                            println!("  status: expected {} got {status}", case.status);
                        }
                    }
                }
                Err(msg) => {
                    f += 1;
                    if args.verbose {
                        println!("FAIL {id}: {msg}");
                    }
                }
            }
        }
        if p + f + s > 0 {
            println!("{fname}: {p} passed, {f} failed, {s} skipped");
        }
        passed += p;
        failed += f;
        skipped += s;
    }
    println!("oils: {passed} passed, {failed} failed, {skipped} skipped");
    if helpers.is_some() {
        println!("oils: host bash passes {bash_passed}; ours passes {ours_of_bash} of those");
    }
}

fn indent(s: &str) -> String {
    s.lines()
        .map(|l| format!("    |{l}"))
        .collect::<Vec<_>>()
        .join("\n")
}
