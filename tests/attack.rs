//! The attack suite: what an agent's hostile or broken input can do to the
//! host, case by case, each run as a child `sandkeep` process under
//! `/usr/bin/time -f %M`, so that an abort, a panic, a runaway allocation
//! or a run that outlives its deadline shows up as a failed case instead of
//! taking the test process down with it.
//!
//! Groups: `escapes` (host files, host environment, host writes), `resources`
//! (memory, time, depth, jobs), `malformed` (scripts, arguments, archives,
//! MCP lines), `durability` (what is kept, what a failure reports) and
//! `docker` (the container backend; skipped with a printed reason when no
//! daemon answers, unless `SANDKEEP_REQUIRE_DOCKER=1`).
//!
//! Every case asserts concrete outcomes (status, output, host state) and,
//! for all of them: no abort or panic, at most 1 GB peak RSS, and no more
//! than 1 s past the case's deadline. Run: `cargo test --release --test attack`.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Peak RSS no case may pass.
const MAX_RSS_KB: u64 = 1 << 20;

/// What a case checks besides the rules every case obeys.
#[derive(Clone, Debug)]
enum Check {
    /// The process's exit status.
    Status(i32),
    /// Any status but this one.
    NotStatus(i32),
    /// stdout contains the text.
    Stdout(&'static str),
    /// stdout is exactly the text.
    StdoutIs(String),
    /// stderr contains the text.
    Stderr(&'static str),
    /// Neither stream contains the text (a host secret).
    Never(String),
    /// The host path does not exist after the case.
    HostAbsent(PathBuf),
}

struct Case {
    group: &'static str,
    name: String,
    args: Vec<String>,
    stdin: Vec<u8>,
    /// When the case must be over (its run's deadline, or a bound for
    /// cases without one).
    deadline: Duration,
    checks: Vec<Check>,
}

struct Outcome {
    name: String,
    group: &'static str,
    failures: Vec<String>,
    rss_kb: u64,
    wall: Duration,
}

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_sandkeep")
}

/// A local run of `script` with a deadline of `timeout` seconds.
fn local(group: &'static str, name: &str, timeout: u64, script: &str, checks: Vec<Check>) -> Case {
    let mut args: Vec<String> = ["run", "--backend", "local", "--timeout"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    args.push(timeout.to_string());
    // One argument may hold 128 KiB at most and no NUL: such scripts come on stdin.
    let stdin = if script.len() > 64 << 10 || script.contains('\0') {
        args.push("-".into());
        script.as_bytes().to_vec()
    } else {
        args.push("-c".into());
        args.push(script.to_string());
        Vec::new()
    };
    Case {
        group,
        name: name.to_string(),
        args,
        stdin,
        deadline: Duration::from_secs(timeout),
        checks,
    }
}

fn args(group: &'static str, name: &str, a: &[&str], checks: Vec<Check>) -> Case {
    Case {
        group,
        name: name.to_string(),
        args: a.iter().map(|s| s.to_string()).collect(),
        stdin: Vec::new(),
        deadline: Duration::from_secs(10),
        checks,
    }
}

fn run_case(case: &Case, data: &Path, secret: &str) -> Outcome {
    let mut failures = Vec::new();
    let rss_file = tempfile::NamedTempFile::new().unwrap();
    let mut cmd = Command::new("/usr/bin/time");
    cmd.arg("-f")
        .arg("%M")
        .arg("-o")
        .arg(rss_file.path())
        .arg(bin())
        .args(&case.args)
        .env("SANDKEEP_DATA", data)
        .env("SANDKEEP_ATTACK_SECRET", secret)
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let start = Instant::now();
    let mut child = cmd.spawn().expect("/usr/bin/time runs");
    let stdin = child.stdin.take().unwrap();
    let input = case.stdin.clone();
    let feeder = std::thread::spawn(move || {
        let mut stdin = stdin;
        let _ = stdin.write_all(&input);
    });
    let out_pipe = child.stdout.take().unwrap();
    let err_pipe = child.stderr.take().unwrap();
    let reader = |mut p: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = p.read_to_end(&mut v);
            v
        })
    };
    let out_t = reader(Box::new(out_pipe));
    let err_t = reader(Box::new(err_pipe));
    let allowed = case.deadline + Duration::from_secs(1);
    let hard = case.deadline + Duration::from_secs(15);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break Some(s);
        }
        if start.elapsed() > hard {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let wall = start.elapsed();
    let _ = feeder.join();
    let stdout = out_t.join().unwrap();
    let stderr = err_t.join().unwrap();
    let stdout = String::from_utf8_lossy(&stdout).into_owned();
    let stderr = String::from_utf8_lossy(&stderr).into_owned();
    let rss_text = std::fs::read_to_string(rss_file.path()).unwrap_or_default();
    // `time` writes "Command exited with non-zero status N" first, then %M.
    let rss_kb = rss_text
        .lines()
        .filter_map(|l| l.trim().parse::<u64>().ok())
        .next_back()
        .unwrap_or(0);
    let code = status.and_then(|s| {
        use std::os::unix::process::ExitStatusExt;
        // Killed by a signal: `time` reports "Command terminated by signal".
        if rss_text.contains("terminated by signal") {
            failures.push(format!("killed by a signal: {}", rss_text.trim()));
        }
        s.code().or(s.signal().map(|n| 128 + n))
    });
    if status.is_none() {
        failures.push(format!("still running after {:?}: killed", hard));
    }
    if wall > allowed {
        failures.push(format!(
            "took {:.2}s, deadline {:.0}s",
            wall.as_secs_f64(),
            case.deadline.as_secs_f64()
        ));
    }
    if rss_kb > MAX_RSS_KB {
        failures.push(format!("peak RSS {rss_kb} KB"));
    }
    for bad in [
        "panicked at",
        "stack overflow",
        "fatal runtime error",
        "memory allocation of",
    ] {
        if stderr.contains(bad) {
            failures.push(format!("stderr shows `{bad}`"));
        }
    }
    if code == Some(134) || code == Some(139) {
        failures.push(format!("aborted (status {code:?})"));
    }
    for check in &case.checks {
        let ok = match check {
            Check::Status(s) => code == Some(*s),
            Check::NotStatus(s) => code != Some(*s),
            Check::Stdout(t) => stdout.contains(t),
            Check::StdoutIs(t) => stdout == *t,
            Check::Stderr(t) => stderr.contains(t),
            Check::Never(t) => !stdout.contains(t.as_str()) && !stderr.contains(t.as_str()),
            Check::HostAbsent(p) => !p.exists(),
        };
        if !ok {
            failures.push(format!(
                "{check:?} failed (status {code:?}); stdout {:?}; stderr {:?}",
                tail(&stdout),
                tail(&stderr)
            ));
        }
    }
    Outcome {
        name: case.name.clone(),
        group: case.group,
        failures,
        rss_kb,
        wall,
    }
}

fn tail(s: &str) -> &str {
    let start = s.len().saturating_sub(300);
    let mut i = start;
    while !s.is_char_boundary(i) {
        i += 1;
    }
    &s[i..]
}

/// Host state the escape cases aim at: a file holding a secret marker and
/// paths the sandbox must not create.
struct Host {
    dir: tempfile::TempDir,
    secret_file: PathBuf,
    marker: String,
    env_secret: String,
}

fn host() -> Host {
    let dir = tempfile::tempdir().unwrap();
    let marker = format!("HOST-FILE-MARKER-{}", std::process::id());
    let secret_file = dir.path().join("secret.txt");
    std::fs::write(&secret_file, format!("{marker}\n")).unwrap();
    Host {
        env_secret: format!("HOST-ENV-SECRET-{}", std::process::id()),
        dir,
        secret_file,
        marker,
    }
}

fn escapes(h: &Host) -> Vec<Case> {
    use Check::*;
    let mut v = Vec::new();
    let f = h.secret_file.display().to_string();
    let d = h.dir.path().display().to_string();
    let readers = [
        ("cat", format!("cat {f}")),
        ("redirect", format!("cat < {f}")),
        ("dollar-lt", format!("echo \"$(< {f})\"")),
        ("source", format!("source {f}")),
        ("head", format!("head {f}")),
        ("tail", format!("tail {f}")),
        ("grep", format!("grep -r . {f}")),
        ("awk", format!("awk 1 {f}")),
        (
            "awk-getline",
            format!("awk 'BEGIN{{while((getline l < \"{f}\")>0) print l}}'"),
        ),
        ("sed", format!("sed -n p {f}")),
        ("jq-raw", format!("jq -R . {f}")),
        ("base64", format!("base64 {f}")),
        ("od", format!("od -c {f}")),
        ("cp", format!("cp {f} x && cat x")),
        ("symlink", format!("ln -s {f} l && cat l")),
        ("hardlink", format!("ln {f} l && cat l")),
        ("tar", format!("tar cf - {f} | tar xOf -")),
        (
            "read-loop",
            format!("while read -r l; do echo \"$l\"; done < {f}"),
        ),
        ("mapfile", format!("mapfile -t a < {f}; echo \"${{a[@]}}\"")),
        ("cd", format!("cd {d} && cat secret.txt")),
        ("find", format!("find {d} -type f -exec cat {{}} +")),
        ("ls", format!("ls -la {d}")),
        ("sort", format!("sort {f}")),
        ("xargs", format!("echo {f} | xargs cat")),
        ("diff", format!("diff {f} /dev/null")),
        ("wc-file", format!("wc -c {f}; cat {f}")),
        ("dd", format!("dd if={f} 2>/dev/null")),
        ("exec-fd", format!("exec 3< {f}; cat <&3")),
        ("tee-read", format!("tee < {f}")),
        ("md5-then-cat", format!("md5sum {f}; cat {f}")),
    ];
    for (name, script) in &readers {
        for (prefix_name, prefix) in [
            ("", ""),
            ("-dotdot", "/../../.."),
            ("-proc-root", "/proc/self/root"),
        ] {
            let script = script.replace(&f, &format!("{prefix}{f}"));
            let script = script.replace(&format!("cd {d}"), &format!("cd {prefix}{d}"));
            v.push(local(
                "escapes",
                &format!("read host file via {name}{prefix_name}"),
                10,
                &script,
                vec![Never(h.marker.clone())],
            ));
        }
    }
    let env_readers = [
        ("env", "env"),
        ("printenv", "printenv"),
        ("declare", "declare -p"),
        ("set", "set"),
        ("export", "export -p"),
        ("expand", "echo \"$SANDKEEP_ATTACK_SECRET\""),
        (
            "proc-environ",
            "cat /proc/self/environ; cat /proc/1/environ",
        ),
        (
            "compgen",
            "compgen -v | while read v; do echo \"${!v}\"; done",
        ),
        (
            "awk-environ",
            "awk 'BEGIN{for(k in ENVIRON) print ENVIRON[k]}'",
        ),
        ("jq-env", "jq -n env"),
        ("jq-ENV", "jq -n '$ENV'"),
        ("bash-c", "bash -c 'echo $SANDKEEP_ATTACK_SECRET'"),
    ];
    for (name, script) in env_readers {
        v.push(local(
            "escapes",
            &format!("host environment via {name}"),
            10,
            script,
            vec![Never(h.env_secret.clone())],
        ));
    }
    let writes = [
        ("redirect", "echo x > {P}"),
        ("tee", "echo x | tee {P}"),
        ("touch", "touch {P}"),
        ("mkdir", "mkdir -p {P}"),
        ("cp", "echo x > a; cp a {P}"),
        ("mv", "echo x > a; mv a {P}"),
        ("ln", "ln -s /etc/passwd {P}"),
        (
            "tar-x",
            "mkdir -p s; echo x > s/f; tar cf t.tar s; tar xf t.tar -C $(dirname {P})",
        ),
        ("dd", "dd if=/dev/zero of={P} bs=1 count=1"),
        ("awk-print", "awk 'BEGIN{print 1 > \"{P}\"}'"),
        ("sed-w", "echo x | sed -n 'w {P}'"),
    ];
    for (i, (name, script)) in writes.iter().enumerate() {
        let target = h.dir.path().join(format!("written-{i}"));
        let script = script.replace("{P}", &target.display().to_string());
        v.push(local(
            "escapes",
            &format!("write a host path via {name}"),
            10,
            &script,
            vec![HostAbsent(target)],
        ));
    }
    let sights = [
        ("root listing", "ls /", "bin\n"),
        ("cd above root", "cd /../../..; pwd", "/\n"),
        ("hostname", "hostname", "sandbox\n"),
        ("whoami", "whoami", "sandbox\n"),
        ("home", "echo $HOME", "/workspace\n"),
    ];
    for (name, script, want) in sights {
        v.push(local(
            "escapes",
            name,
            10,
            script,
            vec![Stdout(want), Status(0)],
        ));
    }
    for (name, script) in [
        (
            "no host programs",
            "perl -e 1 || gcc --version || /usr/bin/env ruby -e 1",
        ),
        (
            "no processes from the embedded python",
            "python3 -c 'import subprocess; subprocess.run([\"id\"])'",
        ),
        (
            "no host os calls from the embedded python",
            "python3 -c 'import os; os.system(\"id\")'",
        ),
        (
            "no network",
            "curl -s http://127.0.0.1:1/ || wget -q http://127.0.0.1:1/",
        ),
        ("no dev tcp", "echo x > /dev/tcp/127.0.0.1/22"),
        ("kill host pid 1", "kill -9 1"),
    ] {
        v.push(local("escapes", name, 10, script, vec![NotStatus(0)]));
    }
    v
}

fn resources() -> Vec<Case> {
    use Check::*;
    let limit = |what: &'static str| vec![Status(124), Stderr(what)];
    let mut v = vec![
        local(
            "resources",
            "variable doubling",
            10,
            "x=a; while :; do x=$x$x; done",
            limit("memory limit exceeded"),
        ),
        local(
            "resources",
            "python list growth",
            10,
            "python3 -c 'x = []\nwhile True: x.append(\"a\" * 1000)'",
            vec![
                Status(124),
                Stderr("MemoryError"),
                Stderr("memory limit exceeded"),
            ],
        ),
        local(
            "resources",
            "python string doubling",
            10,
            "python3 -c 's = \"a\"\nwhile True: s = s + s'",
            vec![Stderr("MemoryError")],
        ),
        local(
            "resources",
            "array growth",
            10,
            "a=(); while :; do a+=(aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa); done",
            vec![Status(124)],
        ),
        local(
            "resources",
            "awk string doubling",
            10,
            "awk 'BEGIN{s=\"a\"; while(1) s = s s}'",
            vec![Stderr("exceeded")],
        ),
        local(
            "resources",
            "sed hold-space doubling",
            10,
            "echo a | sed ':a;h;G;ba' > /dev/null",
            vec![Stderr("exceeded")],
        ),
        local(
            "resources",
            "printf padding",
            10,
            "printf '%*d' 2000000000 1 | wc -c",
            vec![Stderr("too large")],
        ),
        local(
            "resources",
            "here-doc doubling",
            10,
            "x=a; while :; do x=$(cat <<EOF\n$x$x\nEOF\n); done",
            vec![Status(124)],
        ),
        local(
            "resources",
            "fork bomb",
            10,
            ":(){ :|:& };:",
            vec![Status(124), Stderr("process limit exceeded")],
        ),
        local(
            "resources",
            "background job flood",
            10,
            "while :; do sleep 100 & done",
            vec![Status(124)],
        ),
        local(
            "resources",
            "infinite while",
            1,
            "while :; do :; done",
            limit("timeout exceeded"),
        ),
        local(
            "resources",
            "infinite for",
            1,
            "for ((;;)); do :; done",
            limit("timeout exceeded"),
        ),
        local(
            "resources",
            "infinite until",
            1,
            "until false; do :; done",
            vec![Status(124)],
        ),
        local(
            "resources",
            "infinite recursion",
            10,
            "f(){ f; }; f",
            vec![Status(124), Stderr("call depth limit")],
        ),
        local(
            "resources",
            "sleep past deadline",
            1,
            "sleep 100",
            vec![Status(124)],
        ),
        local(
            "resources",
            "background sleep past deadline",
            1,
            "sleep 100 & wait",
            vec![Status(124)],
        ),
        local(
            "resources",
            "yes into a pipe forever",
            1,
            "yes > /dev/null",
            vec![Status(124)],
        ),
        local(
            "resources",
            "cat of an endless device",
            1,
            "cat /dev/zero > /dev/null",
            vec![Status(124)],
        ),
        local(
            "resources",
            "capture of yes",
            10,
            "x=$(yes)",
            vec![Status(124), Stderr("memory limit")],
        ),
        local(
            "resources",
            "file size limit names the limit",
            10,
            "head -c 200M /dev/zero > f; echo rc=$?",
            vec![Stdout("rc=1"), Stderr("file size limit")],
        ),
        local(
            "resources",
            "yes into a file",
            10,
            "yes | head -c 10G > f; echo rc=$?",
            vec![Stdout("rc="), Stderr("file size limit")],
        ),
        local(
            "resources",
            "brace expansion in budget",
            10,
            "set -- {1..50000}; echo $#",
            vec![StdoutIs("50000\n".into())],
        ),
        local(
            "resources",
            "brace expansion of five million words",
            10,
            "set -- {1..5000000}; echo $#",
            // Past the 256 MiB budget: refused with the memory limit, never
            // left as the literal word (which made `$#` 1).
            limit("memory limit exceeded"),
        ),
        local(
            "resources",
            "cat of two files past the file size limit",
            10,
            "head -c 100M /dev/zero > a; head -c 100M /dev/zero > b; cat a b > h; echo rc=$?",
            vec![Stdout("rc=1"), Stderr("file size limit")],
        ),
        local(
            "resources",
            "brace expansion past budget",
            10,
            "set -- {1..50000000}; echo $#",
            vec![Status(124), Stderr("memory limit")],
        ),
        local(
            "resources",
            "brace product",
            10,
            "echo {1..1000}{1..1000}{1..1000} | wc -c",
            vec![Status(124), Stderr("exceeded")],
        ),
        local(
            "resources",
            "seq huge",
            1,
            "seq 1e12 > /dev/null",
            vec![Status(124)],
        ),
        local(
            "resources",
            "sort of an endless device",
            10,
            "sort /dev/zero",
            vec![NotStatus(0)],
        ),
        local(
            "resources",
            "grep endless",
            1,
            "yes | grep -c x",
            vec![Status(124)],
        ),
        local(
            "resources",
            "awk infinite loop",
            1,
            "awk 'BEGIN{while(1);}'",
            vec![Status(124)],
        ),
        local(
            "resources",
            "sed infinite branch",
            1,
            "echo a | sed ':a;ba'",
            vec![Status(124)],
        ),
        local(
            "resources",
            "bc infinite loop",
            1,
            "echo 'while(1){}' | bc",
            vec![Status(124)],
        ),
        local(
            "resources",
            "gzip endless",
            1,
            "gzip -c /dev/zero > /dev/null",
            vec![NotStatus(0)],
        ),
        local(
            "resources",
            "find over a symlink loop",
            10,
            "mkdir d; ln -s .. d/up; find -L . > /dev/null; echo done",
            vec![Stdout("done")],
        ),
        local(
            "resources",
            "tar of a big file",
            10,
            "head -c 100M /dev/zero > f && tar czf f.tgz f && ls -l f.tgz | wc -l",
            vec![Status(0)],
        ),
        local(
            "resources",
            "many files",
            10,
            "mkdir d; for i in $(seq 30000); do :> d/$i; done; ls d | wc -l",
            vec![Status(0)],
        ),
        local(
            "resources",
            "jq giant array",
            10,
            "jq -n '[range(1e9)]' | wc -c",
            vec![NotStatus(0)],
        ),
        local(
            "resources",
            "extglob backtracking",
            2,
            "shopt -s extglob; x=$(printf 'a%.0s' {1..200}); [[ $x == *(a)*(a)*(a)*(a)*(a)c ]]; echo $?",
            vec![StdoutIs("1\n".into()), Status(0)],
        ),
    ];
    let deep = |n: usize, open: &str, mid: &str, close: &str| {
        format!("{}{}{}", open.repeat(n), mid, close.repeat(n))
    };
    for (name, script) in [
        ("nested subshells", deep(100_000, "(", "true", ")")),
        ("nested groups", deep(100_000, "{ ", "true; ", "}; ")),
        (
            "nested arithmetic",
            format!("echo $(({}))", deep(100_000, "(", "1", ")")),
        ),
        (
            "nested conditional",
            format!("[[ {} ]]", deep(100_000, "( ", "a", " )")),
        ),
        (
            "nested command substitution",
            deep(20_000, "$(", "echo", ")"),
        ),
        (
            "nested jq program",
            format!("jq -n '{}'", deep(100_000, "[", "1", "]")),
        ),
        (
            "nested jq input",
            "head -c 300000 /dev/zero | tr '\\0' '[' | jq .".to_string(),
        ),
        (
            "nested arithmetic from a variable",
            "x=$(printf '(%.0s' {1..100000}); echo $(( $x 1 ))".to_string(),
        ),
        (
            "nested eval",
            "s=true; for i in {1..3000}; do s=\"($s)\"; done; eval \"$s\"; echo $?".to_string(),
        ),
        (
            "nested json for fromjson",
            "printf '%.0s[' {1..100000} > d; jq -Rr 'fromjson?' d; echo done".to_string(),
        ),
    ] {
        v.push(local(
            "resources",
            &format!("depth: {name}"),
            10,
            &script,
            // Refused with a message naming the nesting, or (fromjson?)
            // handled as a failed parse; never a crash (checked for all).
            if name == "nested json for fromjson" {
                vec![Stdout("done")]
            } else if name == "nested eval" {
                vec![Stderr("nesting too deep"), Stdout("2")]
            } else {
                vec![NotStatus(0)]
            },
        ));
    }
    for (name, script, want) in [
        (
            "shallow subshells still run",
            deep(100, "(\n", "echo ok", "\n)"),
            "ok\n",
        ),
        (
            "shallow arithmetic still runs",
            format!("echo $(({}))", deep(100, "(", "7", ")")),
            "7\n",
        ),
        (
            "shallow jq still runs",
            format!("jq -nc '{}'", deep(100, "[", "1", "]")),
            "[[[[",
        ),
    ] {
        v.push(local(
            "resources",
            &format!("depth: {name}"),
            10,
            &script,
            vec![Status(0), Stdout(want)],
        ));
    }
    v
}

fn malformed(h: &Host) -> Vec<Case> {
    use Check::*;
    let mut v = Vec::new();
    for (name, script, status, err) in [
        ("unterminated quote", "echo 'abc", 2, "unexpected EOF"),
        ("unterminated subst", "echo $(echo", 2, "syntax error"),
        ("stray fi", "fi", 2, "syntax error"),
        ("bad redirect", "echo >", 2, "syntax error"),
        ("division by zero", "echo $((1/0))", 1, "division by 0"),
        ("unset required", "echo ${x:?gone}", 127, "gone"),
        ("bad substitution", "echo ${x!}", 1, "bad substitution"),
        (
            "unknown command",
            "no-such-command",
            127,
            "command not found",
        ),
        (
            "bad option",
            "set -o no-such-option",
            2,
            "invalid option name",
        ),
        (
            "non-executable",
            "echo x > f; ./f",
            126,
            "Permission denied",
        ),
    ] {
        v.push(local(
            "malformed",
            name,
            10,
            script,
            vec![Status(status), Stderr(err)],
        ));
    }
    for (name, script) in [
        ("NUL bytes", "echo a\u{0}b; echo after"),
        (
            "invalid utf8 in a word",
            "printf '\\xff\\xfe' | od -c | head -1; echo after",
        ),
        (
            "huge word",
            &format!("x={}; echo ${{#x}}; echo after", "a".repeat(200_000)),
        ),
        ("many lines", &"echo line\n".repeat(20_000)),
        (
            "deep alias loop",
            "shopt -s expand_aliases; alias a=b; alias b=a; a; echo after",
        ),
        ("time in a pipe", "{ time; } |& wc -l; echo after"),
        ("time alone", "time; echo after"),
        ("empty script", ""),
        ("only comments", "# nothing\n# here"),
        ("jq bad json", "echo '{' | jq .; echo after"),
        ("jq bad program", "jq -n '(((' ; echo after"),
        ("awk bad program", "awk '{' ; echo after"),
        ("sed bad program", "sed 's/' < /dev/null; echo after"),
        (
            "tar of garbage",
            "echo garbage > g.tar; tar tf g.tar; echo after",
        ),
        (
            "gunzip of garbage",
            "echo garbage > g.gz; gunzip g.gz; echo after",
        ),
        (
            "regex bomb grep",
            "echo aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa | grep -E '(a*)*b'; echo after",
        ),
        (
            "regex bomb sed",
            "echo aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa | sed -E 's/(a|aa)*c/x/'; echo after",
        ),
        ("base64 garbage", "echo '!!!' | base64 -d; echo after"),
        ("printf bad format", "printf '%Z' 1; echo after"),
        ("read from closed fd", "cat <&9; echo after"),
    ] {
        v.push(local("malformed", name, 10, script, vec![Stdout("after")]));
    }
    // Some scripts have no "after": they only must not crash.
    for c in v.iter_mut() {
        if c.name == "empty script" || c.name == "only comments" || c.name == "many lines" {
            c.checks = vec![Status(0)];
        }
    }
    let garbage = h.dir.path().join("garbage.tgz");
    std::fs::write(&garbage, b"\x1f\x8b\x08\x00garbage-not-a-real-gzip").unwrap();
    let g = garbage.display().to_string();
    let file_as_data = h.secret_file.display().to_string();
    for (name, a, checks) in [
        (
            "timeout 1e20",
            vec![
                "run",
                "--backend",
                "local",
                "--timeout",
                "1e20",
                "-c",
                "echo ok",
            ],
            vec![Stderr("too large"), NotStatus(0)],
        ),
        (
            "timeout negative",
            vec![
                "run",
                "--backend",
                "local",
                "--timeout",
                "-1",
                "-c",
                "echo ok",
            ],
            vec![NotStatus(0)],
        ),
        (
            "timeout nan",
            vec![
                "run",
                "--backend",
                "local",
                "--timeout",
                "NaN",
                "-c",
                "echo ok",
            ],
            vec![NotStatus(0)],
        ),
        (
            "timeout words",
            vec![
                "run",
                "--backend",
                "local",
                "--timeout",
                "soon",
                "-c",
                "echo ok",
            ],
            vec![NotStatus(0)],
        ),
        (
            "agent path traversal",
            vec![
                "run",
                "--backend",
                "local",
                "--agent",
                "../../x",
                "-c",
                "echo ok",
            ],
            vec![NotStatus(0)],
        ),
        (
            "agent slash",
            vec![
                "run",
                "--backend",
                "local",
                "--agent",
                "a/b",
                "-c",
                "echo ok",
            ],
            vec![NotStatus(0)],
        ),
        (
            "agent empty",
            vec!["run", "--backend", "local", "--agent", "", "-c", "echo ok"],
            vec![NotStatus(0)],
        ),
        (
            "data is a file",
            vec![
                "--data",
                file_as_data.as_str(),
                "run",
                "--backend",
                "local",
                "--agent",
                "a",
                "-c",
                "echo ok",
            ],
            vec![NotStatus(0)],
        ),
        (
            "restore of a garbage archive",
            vec![
                "run",
                "--backend",
                "local",
                "--agent",
                "garbage",
                "--workspace-archive",
                g.as_str(),
                "-c",
                "echo ok",
            ],
            vec![Stderr("restore failed")],
        ),
        (
            "archive ls without a store",
            vec![
                "archive",
                "ls",
                "--agent",
                "nobody",
                "--data",
                "/nonexistent/d",
                "1",
            ],
            vec![NotStatus(0)],
        ),
        (
            "unknown subcommand",
            vec!["no-such-subcommand"],
            vec![Status(2)],
        ),
        (
            "script file missing",
            vec!["run", "--backend", "local", "/nonexistent/script.sh"],
            vec![NotStatus(0)],
        ),
    ] {
        let owned: Vec<String> = a.iter().map(|s| s.to_string()).collect();
        let refs: Vec<&str> = owned.iter().map(|s| s.as_str()).collect();
        v.push(args("malformed", name, &refs, checks));
    }
    // A small archive holding a huge member of zeros: restoring it must
    // stream and cap, not hold the member in memory.
    let sparse = h.dir.path().join("sparse.tgz");
    {
        let f = std::fs::File::create(&sparse).unwrap();
        let gz = flate2::write::GzEncoder::new(f, flate2::Compression::fast());
        let mut t = tar::Builder::new(gz);
        let mut header = tar::Header::new_gnu();
        header.set_path("huge.bin").unwrap();
        header.set_size(600 << 20);
        header.set_mode(0o644);
        header.set_cksum();
        let zeros = std::io::repeat(0).take(600 << 20);
        t.append(&header, zeros).unwrap();
        t.into_inner().unwrap().finish().unwrap();
    }
    let s = sparse.display().to_string();
    v.push(args(
        "malformed",
        "restore of an archive with a huge member",
        &[
            "run",
            "--backend",
            "local",
            "--agent",
            "sparse",
            "--workspace-archive",
            &s,
            "-c",
            "echo ok",
        ],
        vec![Stderr(
            "larger than one file may be (limit 268435456 bytes)",
        )],
    ));
    // 163 bytes of gzip holding a GNU sparse member of 2.5 GB, left as an
    // agent's legacy workspace.tgz: listing the agent imports it first.
    let bomb_data = h.dir.path().join("bomb-data");
    {
        let dir = bomb_data.join("agents").join("bomb");
        std::fs::create_dir_all(&dir).unwrap();
        let f = std::fs::File::create(dir.join("workspace.tgz")).unwrap();
        let gz = flate2::write::GzEncoder::new(f, flate2::Compression::best());
        let mut t = tar::Builder::new(gz);
        let mut header = tar::Header::new_gnu();
        header.set_path("sparse.bin").unwrap();
        header.set_entry_type(tar::EntryType::GNUSparse);
        header.set_mode(0o644);
        header.set_size(512);
        let real = 2_500_000_000u64;
        let gnu = header.as_gnu_mut().unwrap();
        gnu.set_real_size(real);
        gnu.sparse[0].set_offset(real - 512);
        gnu.sparse[0].set_length(512);
        header.set_cksum();
        t.append(&header, &[7u8; 512][..]).unwrap();
        t.into_inner().unwrap().finish().unwrap();
    }
    let bd = bomb_data.display().to_string();
    v.push(args(
        "malformed",
        "archive ls of a sparse bomb",
        &["--data", &bd, "archive", "ls", "--agent", "bomb"],
        vec![NotStatus(0), Stderr("limit 268435456 bytes")],
    ));
    v.extend(mcp_cases());
    v
}

use std::io::Read as _;

/// MCP: one line each, then a good request: the server must answer both.
fn mcp_cases() -> Vec<Case> {
    use Check::*;
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let list = r#"{"jsonrpc":"2.0","id":99,"method":"tools/list"}"#;
    let mut v = Vec::new();
    let bad_lines: Vec<(&str, Vec<u8>, &'static str)> = vec![
        ("garbage", b"garbage here".to_vec(), r#""code":-32700"#),
        (
            "invalid utf8",
            b"\xff\xfe\xfd{\"id\":3}".to_vec(),
            r#""code":-32700"#,
        ),
        (
            "binary",
            (0u8..=255).filter(|b| *b != b'\n').collect(),
            r#""code":-32700"#,
        ),
        ("json array", b"[1,2,3]".to_vec(), r#""code":-32600"#),
        ("json number", b"42".to_vec(), r#""code":-32600"#),
        (
            "no jsonrpc",
            br#"{"id":5,"method":"tools/list"}"#.to_vec(),
            r#""id":5"#,
        ),
        (
            "truncated json",
            br#"{"jsonrpc":"2.0","id":6,"method":"#.to_vec(),
            r#""id":6"#,
        ),
        (
            "oversized",
            {
                let mut l =
                    br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"x":""#.to_vec();
                l.extend(std::iter::repeat_n(b'a', 17 << 20));
                l.extend(br#""}}"#);
                l
            },
            r#""id":7"#,
        ),
    ];
    for (name, line, want) in bad_lines {
        let mut stdin = Vec::new();
        stdin.extend(init.as_bytes());
        stdin.push(b'\n');
        stdin.extend(&line);
        stdin.push(b'\n');
        stdin.extend(list.as_bytes());
        stdin.push(b'\n');
        v.push(Case {
            group: "malformed",
            name: format!("mcp: {name} line"),
            args: vec![
                "mcp".into(),
                "--backend".into(),
                "local".into(),
                "--agent".into(),
                "mcp-attack".into(),
            ],
            stdin,
            deadline: Duration::from_secs(15),
            checks: vec![Stdout(want), Stdout(r#""id":99"#)],
        });
    }
    v
}

fn durability() -> Vec<Case> {
    use Check::*;
    let run = |agent: &str, script: &str| -> Vec<String> {
        [
            "run",
            "--backend",
            "local",
            "-q",
            "--agent",
            agent,
            "-c",
            script,
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    let mut v = Vec::new();
    // Cases run in order within this group (see `main`): the second reads
    // what the first kept.
    let pairs: [(&str, &str, &str, &'static str); 6] = [
        ("file", "echo kept > f", "cat f", "kept"),
        (
            "nested dirs",
            "mkdir -p a/b/c && echo deep > a/b/c/f",
            "cat a/b/c/f",
            "deep",
        ),
        (
            "binary content",
            "printf '\\x00\\xff\\x01' > b",
            "od -An -tx1 b",
            "00 ff 01",
        ),
        ("symlink", "echo t > t && ln -s t l", "readlink l", "t"),
        ("mode", "echo x > e && chmod 755 e", "stat -c %a e", "755"),
        (
            "after a timeout",
            "echo before > g; while :; do :; done",
            "cat g",
            "before",
        ),
    ];
    for (i, (name, first, second, want)) in pairs.iter().enumerate() {
        let agent = format!("dur{i}");
        let mut a = run(&agent, first);
        a.insert(3, "--timeout".into());
        a.insert(4, "2".into());
        v.push(Case {
            group: "durability",
            name: format!("{name}: write"),
            args: a,
            stdin: Vec::new(),
            deadline: Duration::from_secs(10),
            checks: vec![],
        });
        v.push(Case {
            group: "durability",
            name: format!("{name}: read back"),
            args: run(&agent, second),
            stdin: Vec::new(),
            deadline: Duration::from_secs(10),
            checks: vec![Stdout(want), Status(0)],
        });
    }
    v
}

fn docker_available() -> bool {
    Command::new("docker")
        .args(["version"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

fn docker_cases(h: &Host) -> Vec<Case> {
    use Check::*;
    let mut v = Vec::new();
    let f = h.secret_file.display().to_string();
    for (name, script, checks) in [
        (
            "host file",
            format!("cat {f}"),
            vec![Never(h.marker.clone())],
        ),
        (
            "host env",
            "env".to_string(),
            vec![Never(h.env_secret.clone())],
        ),
        (
            "timeout",
            "while :; do :; done".to_string(),
            vec![Status(124)],
        ),
        (
            "network off",
            "curl -s -m 2 http://1.1.1.1/ || echo blocked".to_string(),
            vec![Stdout("blocked")],
        ),
        ("not root", "id -u".to_string(), vec![NotStatus(-1)]),
        (
            "one file past the storage limit",
            "head -c 1100M /dev/zero > big; echo status=$?".to_string(),
            vec![Stdout("status=153"), Stderr("File size limit exceeded")],
        ),
        (
            "many files past the storage limit",
            "for i in $(seq 40); do head -c 64M /dev/zero > f$i || exit 3; done; sleep 30"
                .to_string(),
            vec![
                Status(124),
                Stderr("storage limit exceeded (1073741824 bytes)"),
            ],
        ),
    ] {
        v.push(Case {
            group: "docker",
            name: format!("docker: {name}"),
            args: [
                "run",
                "--backend",
                "docker",
                "--timeout",
                "20",
                "-c",
                &script,
            ]
            .iter()
            .map(|s| s.to_string())
            .collect(),
            stdin: Vec::new(),
            deadline: Duration::from_secs(60),
            checks,
        });
    }
    v.extend(docker_mcp_cases());
    v
}

/// Docker sessions over MCP, where a second tool call is the next turn.
fn docker_mcp_cases() -> Vec<Case> {
    use Check::*;
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let call = |id: u32, tool: &str, args: serde_json::Value| {
        serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": args}})
        .to_string()
    };
    let session = |name: &str, lines: Vec<String>, checks: Vec<Check>| {
        let mut stdin = format!("{init}\n").into_bytes();
        for l in lines {
            stdin.extend(l.as_bytes());
            stdin.push(b'\n');
        }
        Case {
            group: "docker",
            name: format!("docker: {name}"),
            args: ["mcp", "--backend", "docker", "--agent", "attack-docker"]
                .iter()
                .map(|s| s.to_string())
                .collect(),
            stdin,
            deadline: Duration::from_secs(60),
            checks,
        }
    };
    let escape = "env -u SANDKEEP_RUN sleep 301 >/dev/null 2>&1 &
        env -i /bin/sleep 303 >/dev/null 2>&1 &
        setsid sleep 304 >/dev/null 2>&1 &
        setsid env -i /bin/sleep 305 >/dev/null 2>&1 &
        sleep 302";
    // The server answers calls concurrently: the second waits out the first.
    let count = "sleep 5; echo leftover=$(ps -eo args= | grep -c '^[/a-z]*sleep 30[1-5]')";
    vec![session(
        "processes that left the run are gone in the next turn",
        vec![
            call(
                2,
                "bash",
                serde_json::json!({"command": escape, "timeout_ms": 2000}),
            ),
            call(3, "bash", serde_json::json!({"command": count})),
        ],
        vec![Stdout(r#""id":2"#), Stdout("leftover=0")],
    )]
}

/// Cases that still fail (see the README): run them with
/// `cargo test --release --test attack -- --ignored`.
const KNOWN_DEFECTS: &[&str] = &[];

/// jq programs that loop or nest by recursion alone (no `range`): each
/// ends at its deadline, or for a nesting one with an error, never by
/// overflowing the stack.
fn jq_recursion() -> Vec<Case> {
    use Check::*;
    let timeout = |what: &str, program: &str| {
        local(
            "resources",
            &format!("jq recursion: {what}"),
            2,
            &format!("jq -n '{program}'"),
            vec![Status(124), Stderr("timeout exceeded")],
        )
    };
    vec![
        timeout("endless tail call", "def f: f; f"),
        timeout("recurse", "[recurse(.+1)]"),
        timeout("until", "until(false; .)"),
        timeout("repeat", "[repeat(1)] | length"),
        timeout("while", "[while(true; .)] | length"),
        local(
            "resources",
            "jq recursion: nesting",
            10,
            "jq -n 'def f: 1 + f; f'",
            vec![NotStatus(0)],
        ),
        local(
            "resources",
            "jq recursion: nesting arrays",
            10,
            "jq -n 'def f: [f]; f'",
            vec![NotStatus(0)],
        ),
        local(
            "resources",
            "jq fromjson ten thousand deep",
            10,
            "printf '%.0s[' {1..10000} | jq -R 'fromjson'; echo rc=$?",
            vec![Stdout("rc=5"), Stderr("Exceeds depth limit for parsing")],
        ),
        local(
            "resources",
            "jq fromjson ten thousand deep, closed",
            10,
            "x=$(printf '%.0s[' {1..10000}; printf '%.0s]' {1..10000}); jq -n --arg x \"$x\" '$x | fromjson | length'; echo rc=$?",
            vec![Stdout("rc=5"), Stderr("Exceeds depth limit for parsing")],
        ),
    ]
}

#[test]
#[ignore = "known defects: cargo test --release --test attack -- --ignored"]
fn attack_known_defects() {
    suite(true);
}

#[test]
fn attack_suite() {
    suite(false);
}

fn suite(known: bool) {
    if !Path::new("/usr/bin/time").exists() {
        panic!("the attack suite measures RSS with /usr/bin/time (Debian package `time`)");
    }
    let h = host();
    let data = tempfile::tempdir().unwrap();
    let mut parallel = Vec::new();
    parallel.extend(escapes(&h));
    parallel.extend(resources());
    parallel.extend(malformed(&h));
    let mut serial = durability();
    if docker_available() {
        serial.extend(docker_cases(&h));
    } else if std::env::var("SANDKEEP_REQUIRE_DOCKER").as_deref() == Ok("1") {
        panic!("SANDKEEP_REQUIRE_DOCKER=1 but no docker daemon answers");
    } else {
        eprintln!("attack suite: skipping the docker group: no docker daemon answers");
    }
    parallel.extend(jq_recursion());
    parallel.retain(|c| KNOWN_DEFECTS.contains(&c.name.as_str()) == known);
    serial.retain(|c| KNOWN_DEFECTS.contains(&c.name.as_str()) == known);
    let total = parallel.len() + serial.len();
    let results = Mutex::new(Vec::new());
    let next = Mutex::new(0usize);
    let started = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..3 {
            s.spawn(|| {
                loop {
                    let i = {
                        let mut n = next.lock().unwrap();
                        let i = *n;
                        *n += 1;
                        i
                    };
                    let Some(case) = parallel.get(i) else { break };
                    let o = run_case(case, data.path(), &h.env_secret);
                    results.lock().unwrap().push(o);
                }
            });
        }
        s.spawn(|| {
            for case in &serial {
                let o = run_case(case, data.path(), &h.env_secret);
                results.lock().unwrap().push(o);
            }
        });
    });
    let results = results.into_inner().unwrap();
    let mut groups: std::collections::BTreeMap<&str, (usize, usize)> = Default::default();
    for r in &results {
        let g = groups.entry(r.group).or_default();
        g.0 += 1;
        if r.failures.is_empty() {
            g.1 += 1;
        }
    }
    let max_rss = results.iter().map(|r| r.rss_kb).max().unwrap_or(0);
    let max_wall = results.iter().map(|r| r.wall).max().unwrap_or_default();
    eprintln!(
        "attack suite: {} cases in {:.1}s; peak RSS {} MB; longest case {:.2}s",
        total,
        started.elapsed().as_secs_f64(),
        max_rss / 1024,
        max_wall.as_secs_f64()
    );
    for (g, (n, ok)) in &groups {
        eprintln!("  {g}: {ok}/{n} passed");
    }
    let failed: Vec<&Outcome> = results.iter().filter(|r| !r.failures.is_empty()).collect();
    for r in &failed {
        eprintln!("FAILED [{}] {}:", r.group, r.name);
        for f in &r.failures {
            eprintln!("    {f}");
        }
    }
    assert!(
        known || total >= 150,
        "the suite has {total} cases, fewer than 150"
    );
    assert!(
        failed.is_empty(),
        "{} of {total} cases failed",
        failed.len()
    );
}

/// SIGTERM while a client keeps stdin open: the server completes the
/// session (the last call's work is kept) and exits within 5 s.
#[test]
fn mcp_sigterm_completes_the_session_and_exits() {
    let data = tempfile::tempdir().unwrap();
    let mut child = Command::new(bin())
        .args(["-q", "mcp", "--backend", "local", "--agent", "term"])
        .env("SANDKEEP_DATA", data.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut ask = |line: &str| {
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
        let mut reply = String::new();
        std::io::BufRead::read_line(&mut stdout, &mut reply).unwrap();
        reply
    };
    ask(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
    );
    let reply = ask(
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"bash","arguments":{"command":"echo survived > t.txt"}}}"#,
    );
    assert!(reply.contains(r#""id":2"#), "{reply}");
    let sent = Instant::now();
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let exited = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break Some(s);
        }
        if sent.elapsed() > Duration::from_secs(5) {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(exited.is_some(), "the server still ran 5 s after SIGTERM");
    // stdin stays open until here: the server did not exit for lack of input.
    drop(stdin);
    let o = Command::new(bin())
        .args([
            "-q",
            "run",
            "--backend",
            "local",
            "--agent",
            "term",
            "-c",
            "cat t.txt",
        ])
        .env("SANDKEEP_DATA", data.path())
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&o.stdout), "survived\n");
}
