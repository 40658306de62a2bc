//! Whole-script fuzzing (issue 17): scripts made by mutating real ones must
//! end with an exit status, never a panic.
//!
//! Seeds are the scripts of the differential cases (`tests/diff_cases/`,
//! `tests/builtins_cases/`) and, when the directory is there, of the Oils
//! spec cases (`../shared/spec/oils` beside the repository, or `OILS_SPEC_DIR`). A proptest
//! strategy picks a seed and a few byte/token edits that keep the text near
//! valid shell: splicing in part of another seed, inserting, deleting or
//! replacing shell metacharacters, quotes, `$((`, `${`, here-doc markers,
//! NULs and bytes that are not UTF-8 (through `$'\xff'` and stdin), and
//! wrapping a stretch in deep nesting. Each script runs in a fresh sandbox
//! with tight limits (200 ms, 64 KiB of output, 10,000 loop iterations), so
//! `sleep`, `yes` and reads of stdin are bounded by the limits rather than
//! left out. A panic (caught around the run), a command's caught panic
//! (`NAME: internal error`) or a run its limits did not stop is a failure
//! that prints the script, shrunk to what still fails.
//!
//! ```text
//! cargo test --release -p sandkeep-shell --test suite script_fuzz::
//! SANDKEEP_FUZZ_CASES=1000000 cargo test --release -p sandkeep-shell \
//!     --test suite script_fuzz::many -- --ignored --nocapture
//! ```
//!
//! `SANDKEEP_FUZZ_THREADS` (default 4) sets the workers of the manual run
//! (most of a timed-out run is waiting, not computing); `SANDKEEP_FUZZ_SEED`
//! changes its random stream; `SANDKEEP_FUZZ_LAST=DIR` keeps each worker's
//! current script in `DIR/worker-N.sh`, to find the script of a crash.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)] // seeds are host files, knobs env vars

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use proptest::sample::Index;
use proptest::strategy::Strategy;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner};
use sandkeep_shell::{Determinism, FsLimits, Limits, RunOptions, RunOutput, Shell, ShellConfig};

use crate::support::cases;
use crate::support::suite::off_suites;

/// Cases of the run in the test suite (CI): about 12 s in release.
const SUITE_CASES: u32 = 10_000;

/// Wall-clock limit of one script.
const TIMEOUT: Duration = Duration::from_millis(200);

/// A run that takes this long was not stopped by its limits.
const RUNAWAY: Duration = Duration::from_secs(20);

/// How the failure of such a run starts.
const RUNAWAY_MESSAGE: &str = "still running after";

/// The stack of a run: what the runtime gives one (`RUN_STACK_SIZE`).
const RUN_STACK: usize = 64 << 20;

/// Edits per script, at most.
const MAX_EDITS: usize = 4;

/// Runs of the script a shrink may try.
const SHRINK_TRIES: usize = 400;

/// What the edits insert: shell syntax that opens, closes or bends
/// something, bytes that are not plain text, and commands that run long.
const TOKENS: &[&str] = &[
    "$((",
    "))",
    "${",
    "}",
    "$(",
    ")",
    "(",
    "{ ",
    "; }",
    "`",
    "'",
    "\"",
    "\\",
    "$'",
    "\\x",
    "$'\\xff\\xfe'",
    "$'\\0'",
    "$'\\u00e9'",
    "\0",
    "\u{fffd}",
    "é",
    "\x01",
    "\t",
    "\r",
    "\n",
    " ",
    ";",
    ";;",
    ";&",
    "|",
    "||",
    "&",
    "&&",
    "|&",
    "!",
    "<<EOF\n",
    "<<-'EOF'\n",
    "\nEOF\n",
    "<<<",
    "<(",
    ">(",
    ">",
    ">>",
    "<",
    "2>&1",
    ">&-",
    "<&0",
    "3<>",
    "[[ ",
    " ]]",
    "[ ",
    " ]",
    "*",
    "?",
    "[!a-",
    "@(",
    "+(a|",
    "~",
    "=",
    "+=",
    "=(",
    "[0]",
    "[@]",
    "[-1]",
    "$@",
    "$*",
    "$#",
    "$?",
    "$!",
    "$-",
    "$$",
    "$0",
    "$9",
    "${#",
    "${!",
    "${x:",
    "${x/",
    "${x//",
    "${x%%",
    "${x^^",
    "${x@Q}",
    "${a[@]}",
    "${x:-",
    "${x:?",
    "${x:=",
    ":-1:",
    "-1",
    "0x",
    "08",
    "9223372036854775807",
    "99999999999999999999",
    "**",
    "/0",
    "%0",
    "<<",
    ">>=",
    "++",
    "--",
    ",",
    "#",
    "if ",
    " then ",
    " else ",
    " fi",
    "case x in ",
    " esac",
    " in ",
    " do ",
    " done",
    "while ",
    "until ",
    "for ",
    "select ",
    "function ",
    "f() ",
    "f ",
    "coproc ",
    "time ",
    "eval ",
    "source /dev/stdin",
    "read x",
    "read -r -d '' x",
    "cat",
    "yes",
    "sleep 1",
    "set -e",
    "set -u",
    "set -o pipefail",
    "shopt -s extglob",
    "trap 'echo t' EXIT",
    "exec ",
    "shift 9",
    "declare -A ",
    "local ",
    "readonly ",
    "unset ",
    "return ",
    "break ",
    "continue ",
    "exit ",
    "printf '%s\\n' ",
    "printf '%*d' ",
    "echo ",
    "IFS=",
    "PATH=",
    "alias ",
    "ulimit ",
    "jq ",
    "awk '{",
    "sed 's/",
    "grep -E '",
    "sort ",
    "| head -c5",
];

/// Brackets a [`Edit::Nest`] wraps a stretch of the script in.
const NESTS: &[(&str, &str)] = &[
    ("(", ")"),
    ("{ ", "; }"),
    ("$(", ")"),
    ("$((", "))"),
    ("\"${x:-", "}\""),
    ("[[ ", " ]]"),
    ("`", "`"),
    ("f() { ", "; }; f"),
    ("if ", "; then :; fi"),
    ("eval '", "'"),
];

/// One change to a seed script. Positions are [`Index`]es, so one edit
/// fits any script.
#[derive(Clone, Debug)]
enum Edit {
    /// The script up to `at`, then another seed from `from` on.
    Splice {
        other: Index,
        at: Index,
        from: Index,
    },
    /// [`TOKENS`]`[token]` inserted at `at`.
    Insert { at: Index, token: usize },
    /// Up to `len` bytes removed at `at`.
    Delete { at: Index, len: usize },
    /// Up to `len` bytes at `at` replaced by [`TOKENS`]`[token]`.
    Replace { at: Index, len: usize, token: usize },
    /// Up to `len` bytes at `at` wrapped `depth` times in [`NESTS`]`[kind]`.
    Nest {
        at: Index,
        len: usize,
        kind: usize,
        depth: usize,
    },
    /// Up to `len` bytes at `at` written `times` times.
    Repeat { at: Index, len: usize, times: usize },
}

/// One fuzz input: a seed, the edits made to it, and what stdin holds.
#[derive(Clone, Debug)]
struct Input {
    seed: Index,
    edits: Vec<Edit>,
    stdin: Vec<u8>,
}

fn edit() -> impl Strategy<Value = Edit> {
    use proptest::prelude::*;
    let token = 0..TOKENS.len();
    // Mostly shallow; sometimes deep, which brush-parser's backtracking
    // made exponential before its rules were memoized and each parse got a
    // step budget (vendor/brush-parser/SANDKEEP.md); sometimes past
    // `Limits::max_nesting` (1,000), which must be refused before parsing.
    let depth = prop_oneof![4 => 1usize..12, 1 => 12usize..1_000, 1 => 1_001usize..1_100];
    prop_oneof![
        2 => (any::<Index>(), any::<Index>(), any::<Index>())
            .prop_map(|(other, at, from)| Edit::Splice { other, at, from }),
        4 => (any::<Index>(), token.clone()).prop_map(|(at, token)| Edit::Insert { at, token }),
        2 => (any::<Index>(), 1usize..24).prop_map(|(at, len)| Edit::Delete { at, len }),
        3 => (any::<Index>(), 1usize..8, token)
            .prop_map(|(at, len, token)| Edit::Replace { at, len, token }),
        2 => (any::<Index>(), 0usize..64, 0..NESTS.len(), depth)
            .prop_map(|(at, len, kind, depth)| Edit::Nest { at, len, kind, depth }),
        1 => (any::<Index>(), 1usize..32, 2usize..50)
            .prop_map(|(at, len, times)| Edit::Repeat { at, len, times }),
    ]
}

fn input() -> impl Strategy<Value = Input> {
    use proptest::prelude::*;
    let stdin = prop_oneof![
        3 => Just(Vec::new()),
        2 => proptest::collection::vec(any::<u8>(), 0..64),
        1 => Just(b"line one\nline two\n\0\xff\xfe tail".to_vec()),
    ];
    (
        any::<Index>(),
        proptest::collection::vec(edit(), 0..=MAX_EDITS),
        stdin,
    )
        .prop_map(|(seed, edits, stdin)| Input { seed, edits, stdin })
}

/// `i` as a byte offset into `s`, moved back to a char boundary.
fn offset(s: &str, i: &Index) -> usize {
    boundary(s, i.index(s.len() + 1))
}

/// `at` moved back to a char boundary of `s` (and within it).
fn boundary(s: &str, at: usize) -> usize {
    let mut at = at.min(s.len());
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The stretch of `len` bytes (at most) of `s` starting at `at`.
fn stretch(s: &str, at: &Index, len: usize) -> (usize, usize) {
    let start = offset(s, at);
    (start, boundary(s, start + len))
}

/// `s` with `edit` made, drawing other seeds from `seeds`.
fn apply(s: &str, edit: &Edit, seeds: &[String]) -> String {
    match edit {
        Edit::Splice { other, at, from } => {
            let other = other.get(seeds);
            format!("{}{}", &s[..offset(s, at)], &other[offset(other, from)..])
        }
        Edit::Insert { at, token } => {
            let at = offset(s, at);
            format!("{}{}{}", &s[..at], TOKENS[*token], &s[at..])
        }
        Edit::Delete { at, len } => {
            let (a, b) = stretch(s, at, *len);
            format!("{}{}", &s[..a], &s[b..])
        }
        Edit::Replace { at, len, token } => {
            let (a, b) = stretch(s, at, *len);
            format!("{}{}{}", &s[..a], TOKENS[*token], &s[b..])
        }
        Edit::Nest {
            at,
            len,
            kind,
            depth,
        } => {
            let (a, b) = stretch(s, at, *len);
            let (open, close) = NESTS[*kind];
            let (open, close) = (open.repeat(*depth), close.repeat(*depth));
            format!("{}{open}{}{close}{}", &s[..a], &s[a..b], &s[b..])
        }
        Edit::Repeat { at, len, times } => {
            let (a, b) = stretch(s, at, *len);
            format!("{}{}{}", &s[..b], s[a..b].repeat(*times - 1), &s[b..])
        }
    }
}

/// The script `input` stands for.
fn script(input: &Input, seeds: &[String]) -> String {
    let mut s = input.seed.get(seeds).clone();
    for e in &input.edits {
        s = apply(&s, e, seeds);
    }
    s
}

/// Every seed script, loaded once.
fn seeds() -> &'static [String] {
    static SEEDS: OnceLock<Vec<String>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/diff_cases");
        let mut all: Vec<String> = cases::load_dir(&dir)
            .into_iter()
            .map(|c| c.script)
            .collect();
        all.extend(
            crate::builtins_cases::CASES
                .iter()
                .map(|(_, s)| s.to_string()),
        );
        all.extend(oils_seeds());
        all
    })
}

/// Where the Oils spec cases live.
fn oils_dir() -> PathBuf {
    std::env::var_os("OILS_SPEC_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/spec/oils"))
}

/// The scripts of the Oils spec cases, or none (said once) without them.
fn oils_seeds() -> Vec<String> {
    let dir = oils_dir();
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!(
            "script_fuzz: no Oils cases at {} (seeds from the differential cases only)",
            dir.display()
        );
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".test.sh"))
        .collect();
    files.sort();
    files
        .iter()
        .filter_map(|f| std::fs::read_to_string(f).ok())
        .flat_map(|text| oils_scripts(&text))
        .collect()
}

/// The code of each `#### name` case of a spec file: its lines up to the
/// first `## ` line (where the expectations start), as the Oils harness
/// splits them (`examples/conformance/spec.rs`).
fn oils_scripts(text: &str) -> Vec<String> {
    let mut scripts: Vec<String> = Vec::new();
    let mut in_code = false;
    for line in text.lines() {
        if line.starts_with("#### ") {
            scripts.push(String::new());
            in_code = true;
        } else if line.starts_with("## ") {
            in_code = false;
        } else if in_code && let Some(s) = scripts.last_mut() {
            s.push_str(line);
            s.push('\n');
        }
    }
    scripts.retain(|s| !s.trim().is_empty());
    scripts
}

/// A sandbox with tight limits and a few files to work on.
fn sandbox() -> Shell {
    let limits = Limits {
        timeout: TIMEOUT,
        max_commands: 20_000,
        max_loop_iterations: 10_000,
        max_output_bytes: 64 << 10,
        max_memory_bytes: 64 << 20,
        max_processes: 32,
        fs: FsLimits {
            max_total_bytes: 8 << 20,
            max_files: 2_000,
            max_file_size: 4 << 20,
        },
        ..Limits::default()
    };
    let shell = Shell::new(ShellConfig {
        limits,
        deterministic: Some(Determinism::default()),
        ..ShellConfig::default()
    });
    let fs = shell.fs();
    let _ = fs.write("/workspace/in.txt", b"b 2\na 1\n\nc 3\n");
    let _ = fs.write("/workspace/data.json", br#"{"a":[1,2,{"b":null}]}"#);
    let _ = fs.mkdir_all("/workspace/dir/sub");
    shell
}

/// Runs `script` in a fresh [`sandbox`], on a thread of its own with the
/// runtime's stack: its output, or why it has none (a panic's message, or a
/// run its limits did not stop, whose thread is left behind).
fn run(script: &str, stdin: &[u8]) -> Result<RunOutput, String> {
    let options = RunOptions {
        stdin: stdin.to_vec(),
        env: vec![("TMP".into(), "/tmp".into())],
        ..RunOptions::default()
    };
    let script = script.to_string();
    let (tx, rx) = std::sync::mpsc::channel();
    let spawned = std::thread::Builder::new()
        .stack_size(RUN_STACK)
        .spawn(move || {
            let out = catch_unwind(AssertUnwindSafe(|| sandbox().run(&script, options)));
            let _ = tx.send(out.map_err(|p| panic_message(p.as_ref())));
        });
    if let Err(e) = spawned {
        return Err(format!("no thread for the run: {e}"));
    }
    match rx.recv_timeout(RUNAWAY) {
        Ok(Ok(out)) => Ok(out),
        Ok(Err(msg)) => Err(format!("panicked: {msg}")),
        Err(_) => Err(format!(
            "{RUNAWAY_MESSAGE} {RUNAWAY:?}, past its {TIMEOUT:?} timeout"
        )),
    }
}

/// The message a panic carried.
fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "panic without a message".into())
}

/// Why running `script` is a failure, if it is.
fn failure(script: &str, stdin: &[u8]) -> Option<String> {
    let out = match run(script, stdin) {
        Ok(out) => out,
        Err(why) => return Some(why),
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    // A command's panic, caught by the interpreter (interp/program.rs).
    if let Some(line) = stderr.lines().find(|l| l.ends_with(": internal error")) {
        return Some(format!("a command panicked: {line}"));
    }
    None
}

/// `script` made smaller while it still fails: whole lines first, then
/// ever smaller stretches of bytes.
fn shrink(script: &str, stdin: &[u8]) -> String {
    let mut best = script.to_string();
    let mut tries = 0;
    let mut chunk = best.len().div_ceil(2).max(1);
    while chunk >= 1 && tries < SHRINK_TRIES {
        let mut at = 0;
        let mut shrunk = false;
        while at < best.len() && tries < SHRINK_TRIES {
            let (a, b) = (boundary(&best, at), boundary(&best, at + chunk));
            let candidate = format!("{}{}", &best[..a], &best[b..]);
            tries += 1;
            if a < b && failure(&candidate, stdin).is_some() {
                best = candidate;
                shrunk = true;
            } else {
                at = b.max(a + 1);
            }
        }
        if !shrunk {
            chunk /= 2;
        }
    }
    best
}

thread_local! {
    /// Where this worker writes each script before it runs it
    /// (`SANDKEEP_FUZZ_LAST`): after a crash no test can report (a stack
    /// overflow aborts the process), the file holds the script that did it.
    static LAST_SCRIPT: std::cell::RefCell<Option<PathBuf>> = const { std::cell::RefCell::new(None) };
}

/// Runs one input; a failure carries the shrunk script.
fn check(input: &Input) -> Result<(), TestCaseError> {
    let seeds = seeds();
    let text = script(input, seeds);
    LAST_SCRIPT.with(|last| {
        if let Some(path) = last.borrow().as_ref() {
            let _ = std::fs::write(path, &text);
        }
    });
    let Some(why) = failure(&text, &input.stdin) else {
        return Ok(());
    };
    eprintln!("script_fuzz: {why}: {text:?}");
    // Each try of a run that does not stop would take RUNAWAY.
    let small = if why.starts_with(RUNAWAY_MESSAGE) {
        text.clone()
    } else {
        shrink(&text, &input.stdin)
    };
    let small_why = failure(&small, &input.stdin).unwrap_or(why);
    Err(TestCaseError::fail(format!(
        "{small_why}\nscript (shrunk): {small:?}\nstdin: {:?}\nscript (as generated): {text:?}",
        String::from_utf8_lossy(&input.stdin)
    )))
}

/// Inputs between two progress lines of the manual run.
const PROGRESS_EVERY: u64 = 5_000;

/// How many inputs the workers have run, for the progress lines.
static DONE: AtomicU64 = AtomicU64::new(0);

/// One stretch of a worker: up to `cases` inputs from the random stream
/// `stream`, ending at the first failure. Returns how many inputs ran and
/// the failure, if one ended it.
fn stretch_of_inputs(cases: u32, stream: u64, progress: bool) -> (u32, Option<String>) {
    let mut seed = [0u8; 32];
    seed[..8].copy_from_slice(&stream.to_le_bytes());
    let config = Config {
        cases,
        failure_persistence: None,
        // `shrink` makes the failing script small; proptest's shrinking of
        // the edits would rerun it for nothing.
        max_shrink_iters: 0,
        ..Config::default()
    };
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &seed));
    let ran = std::cell::Cell::new(0u32);
    let result = runner.run(&input(), |input| {
        let r = check(&input);
        ran.set(ran.get() + 1);
        let n = DONE.fetch_add(1, Ordering::Relaxed) + 1;
        if progress && n.is_multiple_of(PROGRESS_EVERY) {
            eprintln!(
                "script_fuzz: {n} inputs, {} failed so far",
                FAILED.load(Ordering::Relaxed)
            );
        }
        r
    });
    let failure = match result {
        Ok(()) => None,
        Err(TestError::Fail(why, _)) => Some(why.to_string()),
        Err(TestError::Abort(why)) => Some(format!("aborted: {why}")),
    };
    if failure.is_some() {
        FAILED.fetch_add(1, Ordering::Relaxed);
    }
    (ran.get(), failure)
}

/// Failures found so far, for the progress lines.
static FAILED: AtomicU64 = AtomicU64::new(0);

/// One worker: `cases` inputs; after a failure it goes on with a new
/// random stream, so a long run reports every failure it meets.
fn worker(cases: u32, stream: u64, progress: bool) -> Vec<String> {
    if let Some(dir) = std::env::var_os("SANDKEEP_FUZZ_LAST") {
        let path = Path::new(&dir).join(format!("worker-{stream}.sh"));
        LAST_SCRIPT.with(|last| *last.borrow_mut() = Some(path));
    }
    let (mut left, mut stream, mut failures) = (cases, stream, Vec::new());
    while left > 0 {
        let (ran, failure) = stretch_of_inputs(left, stream, progress);
        left = left.saturating_sub(ran.max(1));
        failures.extend(failure);
        stream += 1 << 32;
    }
    failures
}

/// Runs `cases` inputs over `threads` workers; panics listing the failures.
fn fuzz(cases: u32, threads: u32, stream: u64, progress: bool) {
    let _guard = off_suites();
    let start = Instant::now();
    let before = DONE.load(Ordering::Relaxed);
    let per = cases.div_ceil(threads);
    let failures: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                std::thread::Builder::new()
                    .spawn_scoped(s, move || {
                        worker(per, stream * 1_000 + u64::from(t), progress)
                    })
                    .expect("spawning a fuzz worker")
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|_| vec!["worker died".into()]))
            .collect()
    });
    eprintln!(
        "script_fuzz: {} inputs over {} seeds in {:?}, {} failures",
        DONE.load(Ordering::Relaxed) - before,
        seeds().len(),
        start.elapsed(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// A number from the environment, or `default`.
fn knob(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.replace('_', "").parse().ok())
        .unwrap_or(default)
}

#[test]
fn scripts_end_with_a_status() {
    fuzz(SUITE_CASES, 2, 0, false);
}

/// The run by hand: `SANDKEEP_FUZZ_CASES` inputs (a million by default).
#[test]
#[ignore = "a million scripts: run by hand (see the module's header)"]
fn many() {
    let cases = u32::try_from(knob("SANDKEEP_FUZZ_CASES", 1_000_000)).unwrap_or(u32::MAX);
    let threads = u32::try_from(knob("SANDKEEP_FUZZ_THREADS", 4))
        .unwrap_or(4)
        .max(1);
    fuzz(cases, threads, knob("SANDKEEP_FUZZ_SEED", 1), true);
}

/// Scripts the fuzzing found that panicked or ran on past their limits,
/// in a smaller form (the differential cases in `35_issue17.txt` hold the
/// ones bash can be compared on).
fn found_scripts() -> Vec<String> {
    let unclosed_default = "${x:-\"".repeat(40);
    vec![
        // declare.rs split compound values inside a char.
        "typeset y=(é)\ndeclare -a z=(1 \\é)\n".to_string(),
        // Words parsed at run time with unclosed `${` and `$(`: brush-parser
        // backtracked through each (expand/mod.rs).
        format!("typeset -A A\ntest -v 'A[{}]'\necho $?\n", "$(".repeat(40)),
        format!("set -x\nPS4='+$(echo \"{unclosed_default}'\necho hi\n"),
        format!("shopt -s extglob\necho @(__nope__*|_\"{unclosed_default})\n"),
        format!("declare -A a\na=([k{}1]=v1 [k2]=v2)\n", "$((".repeat(11)),
        format!("cat <<EOF\n\"{unclosed_default}\nEOF\n"),
        // An empty here-doc tag at the end of input, before its body began:
        // brush-parser's tokenizer matched it forever, growing without bound.
        "[[ <<'' || ''& echo $(".to_string(),
        "cat <<''".to_string(),
        // jq counted lines from the start of its input for each value:
        // 100,000 values took 14 s, far past the timeout.
        "seq 100000 |````````jq ``".to_string(),
        // Builtins cut an invalid option inside its char (source.rs, ...).
        "eval -$'\\ue9'\n".to_string(),
        // jq's token scan (json/alternatives.rs) cut a char.
        "jq -n 'x=é'\n".to_string(),
        // stat.rs and find's pad: `format!` panics past a width of 65,535.
        "stat -c '%9223372036854775807n %F %70000a' /dev/null\n".to_string(),
        "find /dev/null -printf '%70000p %99999999999999999999s'\n".to_string(),
        // Time fields (time.rs) and nl: the same `format!` widths.
        "printf '%(%-109999999999999999999B|%70000d)T\\n' 0; echo a | nl -w 70000\n".to_string(),
        // A prompt that expands itself (expand/prompt.rs) overflowed the stack.
        "PS1='x${PS1@P}'\necho \"${PS1@P}\"\n".to_string(),
        // Unclosed `(` and `case` (parse.rs).
        format!("{}echo )\n", "(".repeat(40)),
        // `((` around a syntax error: brush-parser tried each `(` as a group
        // and as a token, 8 s at 40 levels (vendor/brush-parser).
        format!(
            "if if :; then :; {} fi; then :; fi {}\n",
            "(".repeat(40),
            ")".repeat(40)
        ),
        format!(
            "declare -A A; A[x]=x; echo {}x{}\n",
            "${A[".repeat(40),
            "]}".repeat(40)
        ),
        "case a in b) echo\n".repeat(45),
    ]
}

#[test]
fn found_scripts_end_with_a_status() {
    let _guard = off_suites();
    for script in found_scripts() {
        let why = failure(&script, b"");
        assert!(why.is_none(), "{why:?} for {script:?}");
    }
}

#[test]
fn seeds_include_the_differential_cases() {
    let seeds = seeds();
    assert!(seeds.len() > 1_000, "only {} seeds", seeds.len());
    assert!(seeds.iter().all(|s| !s.trim().is_empty()));
}

#[test]
fn oils_cases_split_at_their_expectations() {
    let text =
        "header\n#### one\necho a\n## stdout: a\n#### two\nx=1\necho $x\n## STDOUT:\n1\n## END\n";
    assert_eq!(oils_scripts(text), ["echo a\n", "x=1\necho $x\n"]);
}

/// Runs the script in the file `SANDKEEP_FUZZ_REPLAY` once and prints what
/// it gave and how long it took: for looking into a failure by hand.
#[test]
#[ignore = "replays one script by hand"]
fn replay() {
    let Some(path) = std::env::var_os("SANDKEEP_FUZZ_REPLAY") else {
        panic!("set SANDKEEP_FUZZ_REPLAY to a script file");
    };
    let script = std::fs::read_to_string(&path).expect("reading the script");
    let start = Instant::now();
    match run(&script, b"") {
        Ok(out) => eprintln!(
            "status {} in {:?}\nstdout: {:?}\nstderr: {:?}",
            out.exit_code,
            start.elapsed(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(why) => panic!("{why}"),
    }
}
