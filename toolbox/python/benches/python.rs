//! `python3` in the local sandbox (CPython 3.12 on the WASI host) side by
//! side with the host's CPython (`/usr/bin/python3`): start-up (`python3 -c
//! pass`, warm: the module is compiled and instantiated-ready), a
//! 1M-iteration loop, json load + dump of a 5 MB file, a regex over 10 MB.
//! Prints one line per workload with the median wall time of each side and
//! the ratio (ours / CPython); then the first-use costs: compiling the
//! module with an empty compile cache, loading it from the cache, and the
//! cache entry's size. A second start-up row runs the interpreter as it
//! started before its library was unpacked (the zip through `zipimport`,
//! the hook compiled from source), for the before/after comparison.
//!
//! Run: `cargo bench -p sandkeep-python --bench python` (`PY_BENCH_RUNS=N`
//! sets the repetitions, 5 by default).
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use sandkeep_shell::{
    Clock, CommandCtx, Exec, ExecRequest, Fs, FsLimits, Limits, RunControl, RunOptions, Shell,
    ShellConfig,
};
use sandkeep_wasi::{Invocation, Outcome, Overlay};

struct NoExec;

impl Exec for NoExec {
    fn exec(&mut self, _req: ExecRequest<'_>) -> i32 {
        127
    }
}

/// `python3 -c pass` as it ran before the library was unpacked: the
/// overlay holds only the hook's source, `sys.path` only the zip.
fn start_zipped(hook_only: &std::sync::Arc<Overlay>) -> Duration {
    let program = sandkeep_python::program().expect("CPython");
    let fs = Fs::new(FsLimits::default(), Clock::real(), &[]);
    fs.mkdir_all("/workspace").unwrap();
    let control = RunControl::new(Limits::default(), Clock::real(), None, None);
    let args: Vec<String> = ["python3", "-c", "pass"].map(String::from).to_vec();
    let env: Vec<(String, String)> = [
        ("PYTHONPATH", sandkeep_python::HOOK_DIR),
        ("_SANDKEEP_CWD", "/workspace"),
        ("PYTHONDONTWRITEBYTECODE", "1"),
    ]
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .to_vec();
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    let mut stdin = std::io::empty();
    let mut ctx = CommandCtx {
        args: &args,
        env: &env,
        cwd: "/workspace",
        fs: &fs,
        stdin: &mut stdin,
        stdout: &mut stdout,
        stderr: &mut stderr,
        control: &control,
        exec: &mut NoExec,
    };
    let t = Instant::now();
    let ended = program.run(
        &mut ctx,
        &Invocation {
            args: &args,
            env: &env,
            overlay: hook_only.clone(),
        },
    );
    let took = t.elapsed();
    assert_eq!(
        ended.outcome,
        Outcome::Exited(0),
        "{}",
        String::from_utf8_lossy(&stderr)
    );
    took
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

const LOOP: &str = "x = 0\nfor i in range(1000000):\n    x += i\nprint(x)\n";
const JSON: &str = "import json\nwith open(\"big.json\") as f:\n    d = json.load(f)\ns = json.dumps(d)\nprint(len(d), len(s))\n";
const REGEX: &str = "import re\nwith open(\"big.txt\") as f:\n    t = f.read()\nprint(len(re.findall(r\"[a-z]+@[a-z]+\\.com\", t)))\n";

fn big_json() -> String {
    let mut items = Vec::new();
    let mut i = 0;
    let mut len = 2;
    while len < 5 << 20 {
        let item = format!(
            "{{\"id\": {i}, \"name\": \"user{i}\", \"tags\": [\"a\", \"b{}\"], \"score\": {}.5, \"active\": {}}}",
            i % 7,
            i % 100,
            i % 2 == 0
        );
        len += item.len() + 2;
        items.push(item);
        i += 1;
    }
    format!("[{}]", items.join(", "))
}

fn big_text() -> String {
    let line = "lorem ipsum dolor sit amet bob@example.com consectetur adipiscing elit\n";
    line.repeat((10 << 20) / line.len())
}

fn main() {
    let runs: usize = std::env::var("PY_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let json = big_json();
    let text = big_text();
    let host_dir = std::env::temp_dir().join(format!("sandkeep-pybench-{}", std::process::id()));
    std::fs::create_dir_all(&host_dir).unwrap();
    std::fs::write(host_dir.join("big.json"), &json).unwrap();
    std::fs::write(host_dir.join("big.txt"), &text).unwrap();
    for (name, file) in [
        ("bench_loop.py", LOOP),
        ("bench_json.py", JSON),
        ("bench_regex.py", REGEX),
    ] {
        std::fs::write(host_dir.join(name), file).unwrap();
    }
    let shell = Shell::new(sandkeep_python::install(ShellConfig::default()));
    shell
        .fs()
        .write("/workspace/big.json", json.as_bytes())
        .unwrap();
    shell
        .fs()
        .write("/workspace/big.txt", text.as_bytes())
        .unwrap();
    for (name, file) in [
        ("bench_loop.py", LOOP),
        ("bench_json.py", JSON),
        ("bench_regex.py", REGEX),
    ] {
        shell
            .fs()
            .write(&format!("/workspace/{name}"), file.as_bytes())
            .unwrap();
    }
    let opts = || RunOptions {
        timeout: Some(Duration::from_secs(120)),
        ..RunOptions::default()
    };
    // First use: compile with an empty cache, then load from it.
    let cache = std::env::temp_dir().join(format!("sandkeep-pybench-cache-{}", std::process::id()));
    // SAFETY (of set_var): the bench is single-threaded at this point.
    unsafe { std::env::set_var("SANDKEEP_CACHE_DIR", &cache) };
    let t = Instant::now();
    let compiled = sandkeep_wasi::Program::load(
        "cpython-3.12.0",
        sandkeep_python::PYTHON_WASM_SHA256,
        sandkeep_python::decompress,
    )
    .expect("compile");
    let compile = t.elapsed();
    assert!(!compiled.from_cache);
    let t = Instant::now();
    let cached = sandkeep_wasi::Program::load(
        "cpython-3.12.0",
        sandkeep_python::PYTHON_WASM_SHA256,
        sandkeep_python::decompress,
    )
    .expect("load");
    let load = t.elapsed();
    assert!(cached.from_cache);
    let size: u64 = std::fs::read_dir(&cache)
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap().len())
        .sum();
    let _ = std::fs::remove_dir_all(&cache);
    drop((compiled, cached));
    // SAFETY (of remove_var): still single-threaded; python3 below uses the
    // machine's own cache.
    unsafe { std::env::remove_var("SANDKEEP_CACHE_DIR") };
    // Warm-up: the first python3 of a process loads the module.
    shell.run("python3 -c pass", opts());
    let mut hook_only = Overlay::new();
    hook_only.insert(
        &format!("{}/sitecustomize.py", sandkeep_python::HOOK_DIR),
        sandkeep_python::SITECUSTOMIZE.to_vec(),
    );
    let hook_only = std::sync::Arc::new(hook_only);
    let zipped = median((0..runs).map(|_| start_zipped(&hook_only)).collect());
    println!("workload            ours        cpython     ratio");
    for (label, args) in [
        ("start-up (-c pass)", vec!["-c", "pass"]),
        ("1M-iteration loop", vec!["bench_loop.py"]),
        ("json 5 MB load+dump", vec!["bench_json.py"]),
        ("regex over 10 MB", vec!["bench_regex.py"]),
    ] {
        let script = format!(
            "python3 {}",
            args.iter()
                .map(|a| format!("'{a}'"))
                .collect::<Vec<_>>()
                .join(" ")
        );
        let mut ours = Vec::new();
        let mut out = None;
        for _ in 0..runs {
            let t = Instant::now();
            let o = shell.run(&script, opts());
            ours.push(t.elapsed());
            out = Some(o);
        }
        let o = out.unwrap();
        assert_eq!(
            o.exit_code,
            0,
            "{label}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let mut theirs = Vec::new();
        let mut host_out = Vec::new();
        for _ in 0..runs {
            let t = Instant::now();
            let h = Command::new("/usr/bin/python3")
                .args(&args)
                .current_dir(&host_dir)
                .stdin(Stdio::null())
                .output()
                .expect("host python3");
            theirs.push(t.elapsed());
            host_out = h.stdout;
        }
        assert_eq!(o.stdout, host_out, "{label}: outputs differ");
        let (a, b) = (median(ours), median(theirs));
        if label.starts_with("start-up") {
            println!(
                "{:<19} {:>9.2?}  {:>9.2?}  {:>6.2}x",
                "start-up, zip stdlib",
                zipped,
                b,
                zipped.as_secs_f64() / b.as_secs_f64()
            );
        }
        println!(
            "{label:<19} {:>9.2?}  {:>9.2?}  {:>6.2}x",
            a,
            b,
            a.as_secs_f64() / b.as_secs_f64()
        );
    }
    println!(
        "first use: compile {compile:.2?} (empty cache), load from cache {load:.2?}, cache entry {:.1} MB",
        size as f64 / 1e6
    );
    let _ = std::fs::remove_dir_all(&host_dir);
}
