//! `--bash`: the cases run by the host's bash too, the way the Oils harness
//! runs them (`bash -c CODE` in a fresh directory, `SH` and `TMP` set, the
//! helper programs on `PATH`), so a run says which cases real bash passes
//! and how many of those ours passes. The helpers are small Python 3 scripts
//! doing what `helpers.rs` does in the sandbox.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// `argv.py`: its arguments' bytes as a Python 2 list of byte strings.
const ARGV_PY: &str = r#"import os, sys
def py2_repr(b):
    quote = '"' if b"'" in b and b'"' not in b else "'"
    out = quote
    for c in b:
        ch = chr(c)
        if ch in '\\\n\t\r':
            out += {'\\': '\\\\', '\n': '\\n', '\t': '\\t', '\r': '\\r'}[ch]
        elif ch == quote:
            out += '\\' + quote
        elif c < 0x20 or c >= 0x7f:
            out += '\\x%02x' % c
        else:
            out += ch
    return out + quote
print('[' + ', '.join(py2_repr(os.fsencode(a)) for a in sys.argv[1:]) + ']')
"#;

/// `printenv.py NAMES`: each variable's value, or `None`.
const PRINTENV_PY: &str = r#"import os, sys
for name in sys.argv[1:]:
    sys.stdout.buffer.write(os.environb.get(os.fsencode(name), b'None') + b'\n')
"#;

/// `stdout_stderr.py [OUT [ERR [STATUS]]]`: stderr first, as a buffered
/// Python stdout gives it.
const STDOUT_STDERR_PY: &str = r#"import sys
args = sys.argv[1:] + [None, None, None]
sys.stderr.write((args[1] or 'STDERR') + '\n')
sys.stderr.flush()
sys.stdout.write((args[0] or 'STDOUT') + '\n')
sys.exit(int(args[2]) if args[2] else 0)
"#;

/// `read_from_fd.py FDS`: `N: ` and what each descriptor holds.
const READ_FROM_FD_PY: &str = r#"import os, sys
for a in sys.argv[1:]:
    fd = int(a)
    try:
        chunks = []
        while True:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            chunks.append(chunk)
    except OSError:
        sys.stderr.write('read_from_fd.py: fd %d is not open\n' % fd)
        sys.exit(1)
    sys.stdout.buffer.write(b'%d: ' % fd + b''.join(chunks))
"#;

/// How long one case may run under host bash.
const TIMEOUT: Duration = Duration::from_secs(5);

/// A host directory holding the helper programs, removed on drop.
pub struct Helpers(PathBuf);

impl Helpers {
    /// Writes the helpers into a fresh directory.
    pub fn new() -> std::io::Result<Helpers> {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("sandkeep-oils-bin-{}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        for (name, body) in [
            ("argv.py", ARGV_PY),
            ("printenv.py", PRINTENV_PY),
            ("stdout_stderr.py", STDOUT_STDERR_PY),
            ("read_from_fd.py", READ_FROM_FD_PY),
        ] {
            let path = dir.join(name);
            std::fs::write(&path, format!("#!/usr/bin/env python3\n{body}"))?;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))?;
        }
        Ok(Helpers(dir))
    }

    fn dir(&self) -> &Path {
        &self.0
    }
}

impl Drop for Helpers {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs `code` with host bash in a fresh directory; (stdout, status), or
/// why it could not run. A case past [`TIMEOUT`] is killed (status 124).
pub fn run(
    helpers: &Helpers,
    code: &str,
    legacy_tmp: bool,
    n: usize,
) -> Result<(Vec<u8>, i32), String> {
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    let work = std::env::temp_dir().join(format!("sandkeep-oils-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    let tmp = work.join("spec-tmp");
    std::fs::create_dir_all(&tmp).map_err(|e| e.to_string())?;
    if legacy_tmp {
        std::fs::create_dir_all(work.join("_tmp/spec-tmp")).map_err(|e| e.to_string())?;
    }
    let path = format!("{}:/usr/bin:/bin", helpers.dir().display());
    let mut child = Command::new("bash")
        .arg("-c")
        .arg(code)
        .current_dir(&work)
        .env_clear()
        .env("PATH", path)
        .env("SH", "bash")
        .env("TMP", &tmp)
        .env("REPO_ROOT", &work)
        .env("HOME", &work)
        .env("LANG", "C.UTF-8")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .map_err(|e| e.to_string())?;
    let mut stdout = child.stdout.take().ok_or("no stdout")?;
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        let _ = stdout.read_to_end(&mut out);
        out
    });
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().map_err(|e| e.to_string())? {
            break s.code().unwrap_or_else(|| 128 + s.signal().unwrap_or(0));
        }
        if start.elapsed() > TIMEOUT {
            kill_group(child.id());
            let _ = child.wait();
            break 124;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    // Background jobs the case left behind would hold stdout open.
    kill_group(child.id());
    let out = reader.join().unwrap_or_default();
    let _ = std::fs::remove_dir_all(&work);
    Ok((out, status))
}

/// Kills the process group `pgid` (a case's bash and its jobs).
fn kill_group(pgid: u32) {
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{pgid}")])
        .stderr(Stdio::null())
        .status();
}
