//! The bridge between the JavaScript prelude and the sandbox: the `__sk`
//! object's functions (files of the virtual filesystem, output, stdin,
//! exit, hashes, randomness, the run's clock). Every path is resolved
//! against the command's working directory inside the sandbox; nothing
//! here reaches the host.
//!
//! Bytes cross into JavaScript as "binary strings" (one char per byte,
//! 0-255), which the prelude turns into `Buffer`s; text crosses as UTF-8
//! decoded strings.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Instant;

use rquickjs::{Array, Ctx, Function, Object, Result as JsResult, String as JsString, Value};
use sandkeep_shell::{Clock, FileKind, Fs, FsError};

/// The state the bridge shares with the command (lib.rs).
pub struct HostState {
    /// The sandbox's filesystem.
    pub fs: Fs,
    /// The working directory.
    pub cwd: String,
    /// Output not yet written, in order: (fd, bytes).
    pub out: RefCell<Vec<(u8, Vec<u8>)>>,
    /// `process.exit(code)` was called.
    pub exit: Cell<Option<i32>>,
    /// `process.exitCode`.
    pub exit_code: Cell<i32>,
    /// All of stdin, read before the program ran (when it mentions stdin).
    pub stdin: RefCell<Vec<u8>>,
    /// The run's clock.
    pub clock: Clock,
    /// Randomness state (seeded from the run's seed or clock).
    pub rng: Cell<u64>,
    /// When the program started (for `performance.now()`).
    pub started: Instant,
    /// Output held at most: past it the program is interrupted and the
    /// output flushed (a script printing in an endless loop meets the
    /// shell's output limit instead of filling memory).
    pub max_held: usize,
    /// Held output passed `max_held`.
    pub overflow: Cell<bool>,
}

impl HostState {
    /// Appends output for `fd` (1 or 2).
    pub fn push(&self, fd: u8, bytes: &[u8]) {
        let mut out = self.out.borrow_mut();
        match out.last_mut() {
            Some((f, buf)) if *f == fd => buf.extend_from_slice(bytes),
            _ => out.push((fd, bytes.to_vec())),
        }
        if out.iter().map(|(_, b)| b.len()).sum::<usize>() > self.max_held {
            self.overflow.set(true);
        }
    }

    fn path(&self, p: &str) -> String {
        Fs::resolve(&self.cwd, p)
    }

    fn next_random(&self) -> u64 {
        // splitmix64: not for secrets (nor is anything in a sandbox's JS).
        let mut z = self.rng.get().wrapping_add(0x9E37_79B9_7F4A_7C15);
        self.rng.set(z);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// Node's error code for a filesystem error.
pub fn errno_code(e: &FsError) -> &'static str {
    match e {
        FsError::NotFound => "ENOENT",
        FsError::NotADirectory => "ENOTDIR",
        FsError::IsADirectory => "EISDIR",
        FsError::AlreadyExists => "EEXIST",
        FsError::DirectoryNotEmpty => "ENOTEMPTY",
        FsError::PermissionDenied | FsError::ReadOnly => "EACCES",
        FsError::NoSpace => "ENOSPC",
        FsError::FileTooLarge => "EFBIG",
        FsError::TooManyLinks => "ELOOP",
        FsError::InvalidArgument => "EINVAL",
        FsError::BadDescriptor => "EBADF",
        _ => "EIO",
    }
}

fn kind_name(k: FileKind) -> &'static str {
    match k {
        FileKind::File => "file",
        FileKind::Dir => "dir",
        FileKind::Symlink => "symlink",
        FileKind::CharDevice => "device",
        FileKind::Fifo => "fifo",
    }
}

/// Bytes as a binary string (one char per byte).
pub fn to_binary(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| char::from(b)).collect()
}

/// A binary string back to bytes (chars above 255 keep their low byte).
pub fn from_binary(s: &str) -> Vec<u8> {
    s.chars().map(|c| (c as u32 & 0xff) as u8).collect()
}

/// Throws the error code as a JS string (the prelude makes the Node error).
fn throw<T>(ctx: &Ctx<'_>, code: &str) -> JsResult<T> {
    let v = JsString::from_str(ctx.clone(), code)?;
    Err(ctx.throw(v.into_value()))
}

fn fs_result<T>(ctx: &Ctx<'_>, r: Result<T, FsError>) -> JsResult<T> {
    match r {
        Ok(v) => Ok(v),
        Err(e) => throw(ctx, errno_code(&e)),
    }
}

/// Builds the `__sk` object.
pub fn bridge<'js>(ctx: &Ctx<'js>, st: &Rc<HostState>) -> JsResult<Object<'js>> {
    let sk = Object::new(ctx.clone())?;
    macro_rules! f {
        ($name:literal, $body:expr) => {
            sk.set($name, Function::new(ctx.clone(), $body)?.with_name($name)?)?;
        };
    }
    let s = st.clone();
    f!("write", move |fd: i32, text: String| {
        s.push(if fd == 2 { 2 } else { 1 }, text.as_bytes());
    });
    let s = st.clone();
    f!("writeBytes", move |fd: i32, bin: String| {
        s.push(if fd == 2 { 2 } else { 1 }, &from_binary(&bin));
    });
    f!("utf8Decode", |bin: String| -> String {
        String::from_utf8_lossy(&from_binary(&bin)).into_owned()
    });
    let s = st.clone();
    f!("readText", move |ctx: Ctx<'js>,
                         p: String|
          -> JsResult<String> {
        let r = s.fs.read(&s.path(&p));
        fs_result(&ctx, r).map(|d| String::from_utf8_lossy(&d).into_owned())
    });
    let s = st.clone();
    f!("readBytes", move |ctx: Ctx<'js>,
                          p: String|
          -> JsResult<String> {
        let path = s.path(&p);
        if s.fs.metadata(&path).is_ok_and(|m| m.kind == FileKind::Dir) {
            return throw(&ctx, "EISDIR");
        }
        let r = s.fs.read(&path);
        fs_result(&ctx, r).map(|d| to_binary(&d))
    });
    let s = st.clone();
    f!("writeText", move |ctx: Ctx<'js>,
                          p: String,
                          text: String,
                          append: bool|
          -> JsResult<()> {
        write_file(&ctx, &s, &p, text.as_bytes(), append)
    });
    let s = st.clone();
    f!("writeBytes2", move |ctx: Ctx<'js>,
                            p: String,
                            bin: String,
                            append: bool|
          -> JsResult<()> {
        write_file(&ctx, &s, &p, &from_binary(&bin), append)
    });
    let s = st.clone();
    f!("stat", move |ctx: Ctx<'js>,
                     p: String,
                     link: bool|
          -> JsResult<Array<'js>> {
        let path = s.path(&p);
        let r = if link {
            s.fs.symlink_metadata(&path)
        } else {
            s.fs.metadata(&path)
        };
        let m = fs_result(&ctx, r)?;
        let a = Array::new(ctx.clone())?;
        a.set(0, kind_name(m.kind))?;
        a.set(1, m.size as f64)?;
        let type_bits = match m.kind {
            FileKind::Dir => 0o040000,
            FileKind::Symlink => 0o120000,
            FileKind::CharDevice => 0o020000,
            FileKind::Fifo => 0o010000,
            FileKind::File => 0o100000,
        };
        a.set(2, f64::from(type_bits | m.mode))?;
        a.set(
            3,
            m.mtime.secs as f64 * 1000.0 + f64::from(m.mtime.nanos / 1_000_000),
        )?;
        a.set(4, m.ino as f64)?;
        a.set(5, f64::from(m.nlink))?;
        Ok(a)
    });
    let s = st.clone();
    f!("readdir", move |ctx: Ctx<'js>,
                        p: String|
          -> JsResult<Array<'js>> {
        let path = s.path(&p);
        if let Ok(m) = s.fs.metadata(&path)
            && m.kind != FileKind::Dir
        {
            return throw(&ctx, "ENOTDIR");
        }
        let r = s.fs.read_dir(&path);
        let mut entries = fs_result(&ctx, r)?;
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        let a = Array::new(ctx.clone())?;
        for (i, e) in entries.iter().enumerate() {
            let pair = Array::new(ctx.clone())?;
            pair.set(0, e.name.as_str())?;
            pair.set(1, kind_name(e.kind))?;
            a.set(i, pair)?;
        }
        Ok(a)
    });
    let s = st.clone();
    f!("exists", move |p: String| -> bool {
        s.fs.exists(&s.path(&p))
    });
    let s = st.clone();
    f!("isLink", move |p: String| -> bool {
        s.fs.symlink_metadata(&s.path(&p))
            .is_ok_and(|m| m.kind == FileKind::Symlink)
    });
    let s = st.clone();
    f!("mkdir", move |ctx: Ctx<'js>,
                      p: String,
                      recursive: bool|
          -> JsResult<()> {
        let path = s.path(&p);
        let r = if recursive {
            s.fs.mkdir_all(&path)
        } else {
            s.fs.mkdir(&path, 0o755)
        };
        fs_result(&ctx, r)
    });
    let s = st.clone();
    f!("rmdir", move |ctx: Ctx<'js>, p: String| -> JsResult<()> {
        let r = s.fs.remove_dir(&s.path(&p));
        fs_result(&ctx, r)
    });
    let s = st.clone();
    f!("unlink", move |ctx: Ctx<'js>, p: String| -> JsResult<()> {
        let path = s.path(&p);
        if s.fs
            .symlink_metadata(&path)
            .is_ok_and(|m| m.kind == FileKind::Dir)
        {
            return throw(&ctx, "EISDIR");
        }
        let r = s.fs.remove_file(&path);
        fs_result(&ctx, r)
    });
    let s = st.clone();
    f!("rm", move |ctx: Ctx<'js>,
                   p: String,
                   recursive: bool|
          -> JsResult<()> {
        let path = s.path(&p);
        let r = if recursive {
            s.fs.remove_all(&path)
        } else {
            s.fs.remove_file(&path)
        };
        fs_result(&ctx, r)
    });
    let s = st.clone();
    f!("rename", move |ctx: Ctx<'js>,
                       a: String,
                       b: String|
          -> JsResult<()> {
        let r = s.fs.rename(&s.path(&a), &s.path(&b));
        fs_result(&ctx, r)
    });
    let s = st.clone();
    f!("realpath", move |ctx: Ctx<'js>,
                         p: String|
          -> JsResult<String> {
        let r = s.fs.canonicalize(&s.path(&p));
        fs_result(&ctx, r)
    });
    let s = st.clone();
    f!("readlink", move |ctx: Ctx<'js>,
                         p: String|
          -> JsResult<String> {
        let r = s.fs.read_link(&s.path(&p));
        fs_result(&ctx, r)
    });
    let s = st.clone();
    f!("symlink", move |ctx: Ctx<'js>,
                        target: String,
                        p: String|
          -> JsResult<()> {
        let r = s.fs.symlink(&target, &s.path(&p));
        fs_result(&ctx, r)
    });
    let s = st.clone();
    f!("chmod", move |ctx: Ctx<'js>,
                      p: String,
                      mode: u32|
          -> JsResult<()> {
        let r = s.fs.set_mode(&s.path(&p), mode & 0o7777);
        fs_result(&ctx, r)
    });
    let s = st.clone();
    f!("exit", move |code: i32| {
        s.exit.set(Some(code & 0xff));
    });
    let s = st.clone();
    f!("setExitCode", move |code: i32| {
        s.exit_code.set(code & 0xff);
    });
    let s = st.clone();
    f!("stdin", move || -> String { to_binary(&s.stdin.borrow()) });
    f!("hash", |ctx: Ctx<'js>,
                alg: String,
                bin: String|
     -> JsResult<String> {
        let data = from_binary(&bin);
        let digest = match alg.as_str() {
            "md5" => {
                use md5::Digest;
                md5::Md5::digest(&data).to_vec()
            }
            "sha1" => {
                use sha1::Digest;
                sha1::Sha1::digest(&data).to_vec()
            }
            "sha224" => {
                use sha2::Digest;
                sha2::Sha224::digest(&data).to_vec()
            }
            "sha256" => {
                use sha2::Digest;
                sha2::Sha256::digest(&data).to_vec()
            }
            "sha384" => {
                use sha2::Digest;
                sha2::Sha384::digest(&data).to_vec()
            }
            "sha512" => {
                use sha2::Digest;
                sha2::Sha512::digest(&data).to_vec()
            }
            _ => return throw(&ctx, "EINVAL"),
        };
        Ok(to_binary(&digest))
    });
    let s = st.clone();
    f!("random", move |n: usize| -> String {
        let n = n.min(1 << 16);
        let mut bytes = Vec::with_capacity(n);
        while bytes.len() < n {
            bytes.extend_from_slice(&s.next_random().to_le_bytes());
        }
        bytes.truncate(n);
        to_binary(&bytes)
    });
    let s = st.clone();
    f!("now", move || -> f64 {
        let t = s.clock.now();
        t.secs as f64 * 1000.0 + f64::from(t.nanos / 1_000_000)
    });
    let s = st.clone();
    f!("monotonic", move || -> f64 {
        s.started.elapsed().as_secs_f64() * 1000.0
    });
    f!("compile", |ctx: Ctx<'js>,
                   src: String,
                   filename: String|
     -> JsResult<Value<'js>> {
        eval_script(&ctx, src, filename)
    });
    f!("compileScript", |ctx: Ctx<'js>,
                         src: String,
                         filename: String|
     -> JsResult<Value<'js>> {
        eval_script(&ctx, src, filename)
    });
    Ok(sk)
}

/// Evaluates a script in the global scope, named `filename` in stacks.
pub fn eval_script<'js>(ctx: &Ctx<'js>, src: String, filename: String) -> JsResult<Value<'js>> {
    let mut opts = rquickjs::context::EvalOptions::default();
    opts.global = true;
    opts.strict = false;
    opts.backtrace_barrier = false;
    opts.filename = Some(filename);
    ctx.eval_with_options(src, opts)
}

fn write_file(ctx: &Ctx<'_>, s: &HostState, p: &str, data: &[u8], append: bool) -> JsResult<()> {
    let path = s.path(p);
    if s.fs.metadata(&path).is_ok_and(|m| m.kind == FileKind::Dir) {
        return throw(ctx, "EISDIR");
    }
    let r = if append {
        s.fs.append(&path, data)
    } else {
        s.fs.write(&path, data)
    };
    fs_result(ctx, r)
}
