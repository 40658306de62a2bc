//! CPython's standard library as files of the overlay, and the start-up
//! hook precompiled: what makes `python3 -c pass` start in tens of
//! milliseconds rather than a hundred and fifty.
//!
//! The module carries its standard library as `python312.zip` inside its
//! own embedded filesystem. CPython opens it with `zipimport`, which is
//! Python code: it reads the zip's whole directory (thousands of entries)
//! on every start, and at this build's `-O0` that alone took ~60 ms of
//! each run. So the first use on a machine asks the interpreter itself to
//! unpack the zip (and to compile the start-up hook, another ~10-30 ms per
//! run otherwise), keeps the result beside the compiled module in the
//! compile cache, and every run then finds the library as plain `.pyc`
//! files in the overlay, first on `sys.path` after the user's own
//! `PYTHONPATH` (the zip stays behind it, unused). Nothing here changes
//! what a module contains: they are the zip's files, byte for byte.

use std::io::Cursor;
use std::sync::Arc;
use std::time::Duration;

use sandkeep_shell::{Clock, CommandCtx, Exec, ExecRequest, Fs, FsLimits, Limits, RunControl};
use sandkeep_wasi::{Invocation, Outcome, Overlay, Program};

use crate::{HOOK_DIR, SITECUSTOMIZE};

/// Where the unpacked library is in the guest's view.
pub const STDLIB_DIR: &str = "/.sandkeep-python/stdlib";

/// The script the interpreter runs (with `-S`, so no hook and no `site`)
/// to unpack its library: every file of the zip on `sys.path`, then the
/// hook (its source on stdin) compiled to a `.pyc`; all of it on stdout
/// as `(u32 length, name, u32 length, bytes)` records, little-endian.
pub const UNPACK: &str = r#"import sys, struct, zipfile, marshal, importlib.util
out = sys.stdout.buffer
def put(name, data):
    n = name.encode()
    out.write(struct.pack("<I", len(n)) + n + struct.pack("<I", len(data)) + data)
zips = [p for p in sys.path if p.endswith(".zip")]
with zipfile.ZipFile(zips[0]) as z:
    for info in z.infolist():
        if not info.is_dir():
            put(info.filename, z.read(info))
code = compile(sys.stdin.buffer.read(), "/.sandkeep-python/sitecustomize.py", "exec")
put("\0sitecustomize", importlib.util.MAGIC_NUMBER + bytes(12) + marshal.dumps(code))
out.flush()
"#;

/// No process runs during the unpacking.
struct NoExec;

impl Exec for NoExec {
    fn exec(&mut self, _req: ExecRequest<'_>) -> i32 {
        127
    }
}

/// Runs [`UNPACK`] in a throwaway tree; returns its records.
pub fn unpack(program: &Program) -> Result<Vec<u8>, String> {
    let limits = Limits {
        timeout: Duration::from_secs(600),
        max_memory_bytes: 1 << 30,
        max_output_bytes: usize::MAX,
        ..Limits::default()
    };
    let fs = Fs::new(FsLimits::default(), Clock::fixed(0), &[]);
    let control = RunControl::new(limits, Clock::fixed(0), None, None);
    let args: Vec<String> = ["python3", "-S", "-c", UNPACK]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let env = vec![("PYTHONDONTWRITEBYTECODE".to_string(), "1".to_string())];
    let mut stdin = Cursor::new(SITECUSTOMIZE);
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    let mut ctx = CommandCtx {
        args: &args,
        env: &env,
        cwd: "/",
        fs: &fs,
        stdin: &mut stdin,
        stdout: &mut stdout,
        stderr: &mut stderr,
        control: &control,
        exec: &mut NoExec,
    };
    let ended = program.run(
        &mut ctx,
        &Invocation {
            args: &args,
            env: &env,
            overlay: Arc::new(Overlay::new()),
        },
    );
    match ended.outcome {
        Outcome::Exited(0) => Ok(stdout),
        other => Err(format!(
            "unpacking the standard library: {other:?}: {}",
            String::from_utf8_lossy(&stderr)
        )),
    }
}

/// The overlay from [`unpack`]'s records: the library under
/// [`STDLIB_DIR`], the compiled hook in [`HOOK_DIR`].
pub fn overlay_of(records: &[u8]) -> Result<Overlay, String> {
    fn take<'a>(rest: &mut &'a [u8], n: usize) -> Result<&'a [u8], String> {
        if rest.len() < n {
            return Err("truncated record".into());
        }
        let (part, tail) = rest.split_at(n);
        *rest = tail;
        Ok(part)
    }
    fn length(rest: &mut &[u8]) -> Result<usize, String> {
        let b = take(rest, 4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
    }
    let mut overlay = Overlay::new();
    let mut rest = records;
    let mut hook = false;
    while !rest.is_empty() {
        let n = length(&mut rest)?;
        let name = std::str::from_utf8(take(&mut rest, n)?).map_err(|e| e.to_string())?;
        let d = length(&mut rest)?;
        let data = take(&mut rest, d)?.to_vec();
        if name == "\0sitecustomize" {
            overlay.insert(&format!("{HOOK_DIR}/sitecustomize.pyc"), data);
            hook = true;
        } else if name
            .split('/')
            .any(|p| p.is_empty() || p == "." || p == "..")
        {
            return Err(format!("unexpected name in the library: {name:?}"));
        } else {
            overlay.insert(&format!("{STDLIB_DIR}/{name}"), data);
        }
    }
    if !hook || overlay.len() < 100 {
        return Err(format!("only {} files unpacked", overlay.len()));
    }
    Ok(overlay)
}
