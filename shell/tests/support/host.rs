//! The host side of a comparison: host bash run in a fresh temp dir with a
//! clean environment, temp dirs that remove themselves, and which tools the
//! host has.

use std::collections::HashMap;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::Outcome;

/// A fresh host temp dir, removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    /// A new empty directory `sandkeep-{tag}-{pid}-{n}` under the temp dir.
    pub fn new(tag: &str) -> TempDir {
        static N: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!(
            "sandkeep-{tag}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create temp dir");
        TempDir(dir)
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// How host bash runs a script: `bash -c` with stdin at EOF, a cleared
/// environment holding only what the sandbox also sets (HOME is the run's
/// directory), plus any variables a suite adds; killed (status 124) after a
/// timeout.
#[derive(Clone, Debug)]
pub struct HostBash {
    env: Vec<(String, String)>,
    timeout: Duration,
}

impl Default for HostBash {
    fn default() -> HostBash {
        let env = [
            ("PATH", "/usr/bin:/bin"),
            ("LANG", "C.UTF-8"),
            ("TZ", "UTC"),
            ("USER", "sandbox"),
            ("SHELL", "/bin/bash"),
        ];
        HostBash {
            env: env
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            timeout: Duration::from_secs(20),
        }
    }
}

impl HostBash {
    /// The clean environment, 20 s timeout.
    pub fn new() -> HostBash {
        HostBash::default()
    }

    /// Also sets `name=value` (replacing an earlier value of `name`).
    pub fn env(mut self, name: &str, value: &str) -> HostBash {
        self.env.retain(|(k, _)| k != name);
        self.env.push((name.to_string(), value.to_string()));
        self
    }

    /// The locale variables (`LC_*`) added to the clean environment, for
    /// our shell to run with too.
    pub fn locale(&self) -> Vec<(&str, &str)> {
        self.env
            .iter()
            .filter(|(k, _)| k.starts_with("LC_"))
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect()
    }

    /// Runs `script` in a fresh temp dir, removed afterwards.
    pub fn run(&self, script: &str) -> Outcome {
        let dir = TempDir::new("bash");
        self.run_in(dir.path(), script)
    }

    /// Runs `script` in `dir`.
    pub fn run_in(&self, dir: &Path, script: &str) -> Outcome {
        let path = self.env.iter().find(|(k, _)| k == "PATH");
        let mut child = command("bash", path.map_or("", |(_, v)| v.as_str()))
            .arg("-c")
            .arg(script)
            .current_dir(dir)
            .env_clear()
            .env("HOME", dir)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn bash");
        // Both pipes are drained while bash runs, so neither can fill and block it.
        let t_out = drain(child.stdout.take().expect("stdout"));
        let t_err = drain(child.stderr.take().expect("stderr"));
        let start = Instant::now();
        let status = loop {
            if let Some(s) = child.try_wait().expect("wait bash") {
                break s.code().unwrap_or(128);
            }
            if start.elapsed() > self.timeout {
                let _ = child.kill();
                let _ = child.wait();
                break 124;
            }
            std::thread::sleep(Duration::from_millis(1));
        };
        Outcome {
            status,
            stdout: t_out.join().unwrap_or_default(),
            stderr: t_err.join().unwrap_or_default(),
        }
    }
}

/// A [`Command`] running `program` as found on `path` (a `PATH` value; the
/// bare name when it is not there), named `program` in its `argv[0]`.
///
/// A test that sets or clears the child's `PATH` and names its program
/// bare makes std fork the whole test process to find the program on the
/// new `PATH`, page tables and all, and the one test binary is large (and
/// holds what its tests allocated). An absolute path lets std use
/// `posix_spawn` (a vfork) whatever the size; the program found, its `$0`
/// and its messages are the same.
pub fn command(program: &str, path: &str) -> Command {
    let found = path
        .split(':')
        .filter(|d| !d.is_empty())
        .map(|d| Path::new(d).join(program))
        .find(|p| p.is_file());
    match found {
        Some(abs) => {
            let mut c = Command::new(abs);
            c.arg0(program);
            c
        }
        None => Command::new(program),
    }
}

fn drain(mut r: impl Read + Send + 'static) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = r.read_to_end(&mut v);
        v
    })
}

/// The entries of host directory `dir`, in name order.
pub fn read_dir_sorted(dir: &Path) -> Vec<std::fs::DirEntry> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|e| e.unwrap())
        .collect();
    entries.sort_by_key(|e| e.file_name());
    entries
}

/// Whether host bash can run at all.
pub fn bash_available() -> bool {
    Command::new("bash")
        .arg("-c")
        .arg("exit 0")
        .stdin(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Whether the host has `tool` on the clean PATH (asked once per tool).
pub fn host_has(tool: &str) -> bool {
    static SEEN: Mutex<Option<HashMap<String, bool>>> = Mutex::new(None);
    let mut seen = SEEN.lock().unwrap_or_else(|p| p.into_inner());
    *seen
        .get_or_insert_with(HashMap::new)
        .entry(tool.to_string())
        .or_insert_with(|| {
            Command::new("bash")
                .arg("-c")
                .arg(format!("command -v {tool}"))
                .env("PATH", "/usr/bin:/bin")
                .stdin(Stdio::null())
                .output()
                .is_ok_and(|o| o.status.success())
        })
}
