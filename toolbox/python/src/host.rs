//! Everything the embedded interpreter asks of the outside world, served
//! from the sandbox: monty's OS calls (`pathlib`, `datetime.now`,
//! `os.getenv`) and the prelude's `_sk_host(op, ...)` calls (stdin, stderr,
//! files, directories, the clock, random numbers). Paths are resolved
//! against the command's working directory in the virtual filesystem; the
//! environment is the shell's exported variables; the clock is the run's
//! [`Clock`](sandkeep_shell::Clock). Nothing here reaches the host.

use std::time::Instant;

use chrono::{Datelike, Timelike};

use crate::re_scan::Scan;
use monty_types::{
    ExcType, ExtFunctionResult, MontyException, MontyObject, OsFunctionCall, dir_stat, file_stat,
};
use sandkeep_shell::CommandCtx;
use sandkeep_shell::Fs;
use sandkeep_shell::Timestamp;
use sandkeep_shell::{FileKind, FsError};

/// Why a run stops before its program ends, decided by the host side.
#[derive(Debug)]
pub enum Stop {
    /// A module or facility the sandbox refuses; the message names it.
    Refused(String),
}

/// The state one `python3` run keeps between host calls.
pub struct Host {
    /// The Python-level working directory (`os.chdir` moves it).
    pub cwd: String,
    /// The shell's exported variables.
    pub env: Vec<(String, String)>,
    stdin: Option<String>,
    started: Instant,
    rng: u64,
    /// A stop the host decided on (the driver ends the run with it).
    pub stop: Option<Stop>,
    /// The `re` walk over a big string in progress (see [`Scan`]).
    scan: Option<Scan>,
}

impl Host {
    /// The host state of a run in `ctx`.
    pub fn new(ctx: &CommandCtx<'_>) -> Host {
        let now = ctx.control.clock.now();
        let seed = ctx
            .control
            .seed
            .unwrap_or((now.secs as u64) ^ ((now.nanos as u64) << 20));
        Host {
            cwd: ctx.cwd.to_string(),
            env: ctx.env.to_vec(),
            stdin: None,
            started: Instant::now(),
            rng: seed | 1,
            stop: None,
            scan: None,
        }
    }

    /// Sets what `sys.stdin` reads (the script itself came from stdin).
    pub fn set_stdin(&mut self, text: String) {
        self.stdin = Some(text);
    }

    /// All of stdin (once: later calls get the empty rest).
    pub fn take_stdin(&mut self, ctx: &mut CommandCtx<'_>) -> String {
        if self.stdin.is_none() {
            let mut buf = Vec::new();
            let _ = ctx.stdin.read_to_end(&mut buf);
            self.stdin = Some(String::from_utf8_lossy(&buf).into_owned());
        }
        self.stdin.replace(String::new()).unwrap_or_default()
    }

    fn path(&self, p: &str) -> String {
        Fs::resolve(&self.cwd, p)
    }

    fn next_random(&mut self) -> u64 {
        // xorshift64*: enough for `random.random()` in a sandbox, seeded
        // from the run's seed so deterministic runs repeat.
        let mut x = self.rng;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.rng = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Serves one prelude call `_sk_host(op, args...)`.
    pub fn call(&mut self, ctx: &mut CommandCtx<'_>, args: Vec<MontyObject>) -> ExtFunctionResult {
        match self.dispatch(ctx, args) {
            Ok(v) => ExtFunctionResult::Return(v),
            Err(e) => ExtFunctionResult::Error(e),
        }
    }

    fn dispatch(
        &mut self,
        ctx: &mut CommandCtx<'_>,
        args: Vec<MontyObject>,
    ) -> Result<MontyObject, MontyException> {
        let mut it = args.into_iter();
        let op = match it.next() {
            Some(MontyObject::String(s)) => s,
            _ => return Err(type_error("_sk_host: operation name expected")),
        };
        let rest: Vec<MontyObject> = it.collect();
        let s = |i: usize| -> Result<String, MontyException> { string_arg(&rest, i) };
        let flag = |i: usize| matches!(rest.get(i), Some(MontyObject::Bool(true)));
        match op.as_str() {
            "stdin" => Ok(MontyObject::String(self.take_stdin(ctx))),
            "stderr" => {
                let text = s(0)?;
                let _ = ctx.stderr.write_all(text.as_bytes());
                Ok(MontyObject::None)
            }
            "refuse" => {
                let name = s(0)?;
                self.stop = Some(Stop::Refused(refusal(&name)));
                Err(MontyException::new(
                    ExcType::ModuleNotFoundError,
                    Some(refusal(&name)),
                ))
            }
            "getcwd" => Ok(MontyObject::String(self.cwd.clone())),
            "chdir" => {
                let p = self.path(&s(0)?);
                match ctx.fs.metadata(&p) {
                    Ok(m) if m.kind == FileKind::Dir => {
                        self.cwd = p;
                        Ok(MontyObject::None)
                    }
                    Ok(_) => Err(os_error(FsError::NotADirectory, &s(0)?)),
                    Err(e) => Err(os_error(e, &s(0)?)),
                }
            }
            "kind" => {
                let p = self.path(&s(0)?);
                let follow = rest.len() < 2 || flag(1);
                let meta = if follow {
                    ctx.fs.metadata(&p)
                } else {
                    ctx.fs.symlink_metadata(&p)
                };
                Ok(match meta {
                    Ok(m) => MontyObject::String(
                        match m.kind {
                            FileKind::Dir => "dir",
                            FileKind::Symlink => "link",
                            FileKind::File => "file",
                            _ => "other",
                        }
                        .to_string(),
                    ),
                    Err(_) => MontyObject::None,
                })
            }
            "listdir" => {
                let arg = s(0)?;
                let entries = ctx
                    .fs
                    .read_dir(&self.path(&arg))
                    .map_err(|e| os_error(e, &arg))?;
                Ok(MontyObject::List(
                    entries
                        .into_iter()
                        .map(|e| MontyObject::String(e.name))
                        .collect(),
                ))
            }
            "stat" => {
                let arg = s(0)?;
                let m = ctx
                    .fs
                    .metadata(&self.path(&arg))
                    .map_err(|e| os_error(e, &arg))?;
                Ok(stat_object(&m))
            }
            "makedirs" => {
                let arg = s(0)?;
                let p = self.path(&arg);
                if !flag(1) && ctx.fs.exists(&p) {
                    return Err(os_error(FsError::AlreadyExists, &arg));
                }
                ctx.fs.mkdir_all(&p).map_err(|e| os_error(e, &arg))?;
                Ok(MontyObject::None)
            }
            "mkdir" => {
                let arg = s(0)?;
                ctx.fs
                    .mkdir(&self.path(&arg), 0o755)
                    .map_err(|e| os_error(e, &arg))?;
                Ok(MontyObject::None)
            }
            "remove" => {
                let arg = s(0)?;
                ctx.fs
                    .remove_file(&self.path(&arg))
                    .map_err(|e| os_error(e, &arg))?;
                Ok(MontyObject::None)
            }
            "rmdir" => {
                let arg = s(0)?;
                ctx.fs
                    .remove_dir(&self.path(&arg))
                    .map_err(|e| os_error(e, &arg))?;
                Ok(MontyObject::None)
            }
            "rmtree" => {
                let arg = s(0)?;
                match ctx.fs.remove_all(&self.path(&arg)) {
                    Err(e) if !flag(1) => Err(os_error(e, &arg)),
                    _ => Ok(MontyObject::None),
                }
            }
            "rename" => {
                let (a, b) = (s(0)?, s(1)?);
                ctx.fs
                    .rename(&self.path(&a), &self.path(&b))
                    .map_err(|e| os_error(e, &a))?;
                Ok(MontyObject::None)
            }
            "copy" => {
                let (a, b) = (s(0)?, s(1)?);
                let data = ctx.fs.read(&self.path(&a)).map_err(|e| os_error(e, &a))?;
                ctx.fs
                    .write(&self.path(&b), &data)
                    .map_err(|e| os_error(e, &b))?;
                Ok(MontyObject::None)
            }
            "copytree" => {
                let (a, b) = (s(0)?, s(1)?);
                copy_tree(ctx.fs, &self.path(&a), &self.path(&b)).map_err(|e| os_error(e, &a))?;
                Ok(MontyObject::None)
            }
            "open" => {
                let (arg, mode) = (s(0)?, s(1)?);
                self.open(ctx.fs, &arg, &mode)?;
                Ok(MontyObject::None)
            }
            "read" => {
                let arg = s(0)?;
                let data = ctx
                    .fs
                    .read(&self.path(&arg))
                    .map_err(|e| os_error(e, &arg))?;
                if flag(1) {
                    return Ok(MontyObject::Bytes(data));
                }
                let text = decode(data, &arg)?;
                // Universal newlines unless `newline=''` was given.
                let translate =
                    !matches!(rest.get(2), Some(MontyObject::String(s)) if s.is_empty());
                Ok(MontyObject::String(if translate && text.contains('\r') {
                    text.replace("\r\n", "\n").replace('\r', "\n")
                } else {
                    text
                }))
            }
            "append" => {
                let arg = s(0)?;
                let bytes = match rest.get(1) {
                    Some(MontyObject::String(t)) => t.as_bytes().to_vec(),
                    Some(MontyObject::Bytes(b)) => b.clone(),
                    _ => return Err(type_error("write() argument must be str or bytes")),
                };
                ctx.fs
                    .append(&self.path(&arg), &bytes)
                    .map_err(|e| os_error(e, &arg))?;
                Ok(MontyObject::None)
            }
            "bytes" => {
                let mut out = Vec::new();
                for v in rest.first().map_or(&[][..], |v| match v {
                    MontyObject::List(items) => items.as_slice(),
                    _ => &[],
                }) {
                    match v {
                        MontyObject::Int(i) if (0..256).contains(i) => out.push(*i as u8),
                        _ => return Err(value_error("bytes must be in range(0, 256)")),
                    }
                }
                Ok(MontyObject::Bytes(out))
            }
            "digest" => {
                let name = s(0)?;
                let data = match rest.get(1) {
                    Some(MontyObject::Bytes(b)) => b.as_slice(),
                    Some(other) => {
                        return Err(type_error(&format!(
                            "object supporting the buffer API required, not '{}'",
                            other.type_name()
                        )));
                    }
                    None => &[][..],
                };
                Ok(MontyObject::Bytes(
                    digest(&name, data, ctx.control)?
                        .ok_or_else(|| value_error(&format!("unsupported hash type {name}")))?,
                ))
            }
            "time" => {
                let t = ctx.control.clock.now();
                Ok(MontyObject::Float(t.secs as f64 + t.nanos as f64 / 1e9))
            }
            "monotonic" => Ok(MontyObject::Float(self.started.elapsed().as_secs_f64())),
            "sleep" => {
                let secs = match rest.first() {
                    Some(MontyObject::Int(i)) => *i as f64,
                    Some(MontyObject::Float(f)) => *f,
                    _ => 0.0,
                };
                sleep_within(ctx, secs)
            }
            "randbelow" => {
                let n = match rest.first() {
                    Some(MontyObject::Int(i)) if *i > 0 => *i as u64,
                    _ => return Err(value_error("randbelow: positive int expected")),
                };
                Ok(MontyObject::Int((self.next_random() % n) as i64))
            }
            "seed" => {
                if let Some(MontyObject::Int(i)) = rest.first() {
                    self.rng = (*i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
                }
                Ok(MontyObject::None)
            }
            "re_open" => {
                let flags = match rest.get(1) {
                    Some(MontyObject::Int(i)) => *i,
                    _ => 0,
                };
                let scan = Scan::open(&s(0)?, flags, s(2)?)?;
                let names = scan.group_names();
                self.scan = Some(scan);
                Ok(names)
            }
            "re_next" => {
                let limit = match rest.first() {
                    Some(MontyObject::Int(i)) if *i > 0 => *i as usize,
                    _ => return Err(value_error("re_next: positive int expected")),
                };
                match self.scan.as_mut() {
                    Some(scan) => scan.next_batch(ctx.control, limit),
                    None => Ok(MontyObject::None),
                }
            }
            other => Err(MontyException::new(
                ExcType::NotImplementedError,
                Some(format!("_sk_host: unknown operation {other:?}")),
            )),
        }
    }

    fn open(&self, fs: &Fs, arg: &str, mode: &str) -> Result<(), MontyException> {
        let p = self.path(arg);
        let valid = !mode.is_empty()
            && mode.chars().all(|c| "rwaxbt+".contains(c))
            && mode.chars().filter(|c| "rwax".contains(*c)).count() == 1;
        if !valid {
            return Err(value_error(&format!("invalid mode: '{mode}'")));
        }
        if let Ok(m) = fs.metadata(&p)
            && m.kind == FileKind::Dir
        {
            return Err(os_error(FsError::IsADirectory, arg));
        }
        if mode.contains('w') {
            fs.write(&p, b"").map_err(|e| os_error(e, arg))?;
        } else if mode.contains('x') {
            fs.create(&p, true).map_err(|e| os_error(e, arg))?;
        } else if mode.contains('a') {
            if !fs.exists(&p) {
                fs.write(&p, b"").map_err(|e| os_error(e, arg))?;
            }
        } else {
            fs.metadata(&p).map_err(|e| os_error(e, arg))?;
        }
        Ok(())
    }

    /// Serves one of monty's own OS calls (`pathlib`, `datetime`, `os.getenv`).
    pub fn os_call(&mut self, ctx: &mut CommandCtx<'_>, call: OsFunctionCall) -> ExtFunctionResult {
        match self.os_dispatch(ctx, call) {
            Ok(v) => ExtFunctionResult::Return(v),
            Err(e) => ExtFunctionResult::Error(e),
        }
    }

    fn os_dispatch(
        &mut self,
        ctx: &mut CommandCtx<'_>,
        call: OsFunctionCall,
    ) -> Result<MontyObject, MontyException> {
        let fs = ctx.fs;
        let kind = |p: &str| fs.metadata(&self.path(p)).map(|m| m.kind);
        Ok(match call {
            OsFunctionCall::Exists(p) => MontyObject::Bool(kind(&p).is_ok()),
            OsFunctionCall::IsFile(p) => MontyObject::Bool(kind(&p) == Ok(FileKind::File)),
            OsFunctionCall::IsDir(p) => MontyObject::Bool(kind(&p) == Ok(FileKind::Dir)),
            OsFunctionCall::IsSymlink(p) => MontyObject::Bool(
                fs.symlink_metadata(&self.path(&p))
                    .is_ok_and(|m| m.kind == FileKind::Symlink),
            ),
            OsFunctionCall::ReadText(p) => {
                let data = fs.read(&self.path(&p)).map_err(|e| os_error(e, &p))?;
                MontyObject::String(decode(data, &p)?)
            }
            OsFunctionCall::ReadBytes(p) => {
                MontyObject::Bytes(fs.read(&self.path(&p)).map_err(|e| os_error(e, &p))?)
            }
            OsFunctionCall::Stat(p) => {
                stat_object(&fs.metadata(&self.path(&p)).map_err(|e| os_error(e, &p))?)
            }
            OsFunctionCall::Iterdir(p) => {
                let entries = fs.read_dir(&self.path(&p)).map_err(|e| os_error(e, &p))?;
                let base = p.trim_end_matches('/').to_string();
                MontyObject::List(
                    entries
                        .into_iter()
                        .map(|e| {
                            MontyObject::Path(if base.is_empty() || base == "." {
                                e.name
                            } else {
                                format!("{base}/{}", e.name)
                            })
                        })
                        .collect(),
                )
            }
            OsFunctionCall::Resolve(p) => MontyObject::Path(
                fs.canonicalize(&self.path(&p))
                    .unwrap_or_else(|_| self.path(&p)),
            ),
            OsFunctionCall::Absolute(p) => MontyObject::Path(self.path(&p)),
            OsFunctionCall::WriteText(a) => {
                fs.write(&self.path(&a.path), a.data.as_bytes())
                    .map_err(|e| os_error(e, &a.path))?;
                MontyObject::Int(a.data.chars().count() as i64)
            }
            OsFunctionCall::AppendText(a) => {
                fs.append(&self.path(&a.path), a.data.as_bytes())
                    .map_err(|e| os_error(e, &a.path))?;
                MontyObject::Int(a.data.chars().count() as i64)
            }
            OsFunctionCall::WriteBytes(a) => {
                fs.write(&self.path(&a.path), &a.data)
                    .map_err(|e| os_error(e, &a.path))?;
                MontyObject::Int(a.data.len() as i64)
            }
            OsFunctionCall::AppendBytes(a) => {
                fs.append(&self.path(&a.path), &a.data)
                    .map_err(|e| os_error(e, &a.path))?;
                MontyObject::Int(a.data.len() as i64)
            }
            OsFunctionCall::Open(a) => {
                self.open(fs, &a.path, a.mode.as_str())?;
                MontyObject::FileHandle(monty_types::MontyFileHandle {
                    path: a.path.to_string(),
                    mode: a.mode,
                    position: 0,
                })
            }
            OsFunctionCall::Mkdir(a) => {
                let p = self.path(&a.path);
                if fs.exists(&p) {
                    if !a.exist_ok {
                        return Err(os_error(FsError::AlreadyExists, &a.path));
                    }
                } else if a.parents {
                    fs.mkdir_all(&p).map_err(|e| os_error(e, &a.path))?;
                } else {
                    fs.mkdir(&p, 0o755).map_err(|e| os_error(e, &a.path))?;
                }
                MontyObject::None
            }
            OsFunctionCall::Unlink(p) => {
                fs.remove_file(&self.path(&p))
                    .map_err(|e| os_error(e, &p))?;
                MontyObject::None
            }
            OsFunctionCall::Rmdir(p) => {
                fs.remove_dir(&self.path(&p)).map_err(|e| os_error(e, &p))?;
                MontyObject::None
            }
            OsFunctionCall::Rename(a) => {
                fs.rename(&self.path(&a.src), &self.path(&a.dst))
                    .map_err(|e| os_error(e, &a.src))?;
                MontyObject::Path(a.dst.to_string())
            }
            OsFunctionCall::Getenv(a) => self
                .env
                .iter()
                .rev()
                .find(|(k, _)| *k == a.key)
                .map_or(a.default, |(_, v)| MontyObject::String(v.clone())),
            OsFunctionCall::GetEnviron => MontyObject::Dict(
                self.env
                    .iter()
                    .map(|(k, v)| {
                        (
                            MontyObject::String(k.clone()),
                            MontyObject::String(v.clone()),
                        )
                    })
                    .collect::<Vec<_>>()
                    .into(),
            ),
            // The shell's clock (real, or fixed for reproducible runs), in
            // UTC like the shell's `date`: never the host's local time.
            OsFunctionCall::DateToday => {
                let now = utc(ctx.control.clock.now(), 0)?;
                MontyObject::Date(monty_types::MontyDate {
                    year: now.year(),
                    month: now.month() as u8,
                    day: now.day() as u8,
                })
            }
            OsFunctionCall::DateTimeNow(tz) => {
                let offset = tz.as_ref().map(|t| t.offset_seconds);
                let now = utc(ctx.control.clock.now(), offset.unwrap_or(0))?;
                MontyObject::DateTime(monty_types::MontyDateTime {
                    year: now.year(),
                    month: now.month() as u8,
                    day: now.day() as u8,
                    hour: now.hour() as u8,
                    minute: now.minute() as u8,
                    second: now.second() as u8,
                    microsecond: now.nanosecond().min(999_999_999) / 1000,
                    offset_seconds: offset,
                    timezone_name: tz.and_then(|t| t.name),
                })
            }
        })
    }
}

/// `hashlib`'s digest of `data` with the algorithm `name` (None: not one
/// the sandbox has).
/// Bytes hashed between two reads of the run's cancel flag (a few
/// milliseconds of SHA-512 on a slow core).
const DIGEST_BYTES_PER_CHECK: usize = 1 << 20;

/// The `name` digest of `data`, fed in pieces with `control` checked
/// between them (hashing hundreds of megabytes in one call would outlast
/// the run's deadline). `Ok(None)`: no such hash.
fn digest(
    name: &str,
    data: &[u8],
    control: &sandkeep_shell::RunControl,
) -> Result<Option<Vec<u8>>, MontyException> {
    Ok(Some(match name {
        "md5" => digest_in_pieces::<md5::Md5>(data, control)?,
        "sha1" => digest_in_pieces::<sha1::Sha1>(data, control)?,
        "sha224" => digest_in_pieces::<sha2::Sha224>(data, control)?,
        "sha256" => digest_in_pieces::<sha2::Sha256>(data, control)?,
        "sha384" => digest_in_pieces::<sha2::Sha384>(data, control)?,
        "sha512" => digest_in_pieces::<sha2::Sha512>(data, control)?,
        _ => return Ok(None),
    }))
}

fn digest_in_pieces<D: sha2::Digest>(
    data: &[u8],
    control: &sandkeep_shell::RunControl,
) -> Result<Vec<u8>, MontyException> {
    let mut hasher = D::new();
    for piece in data.chunks(DIGEST_BYTES_PER_CHECK) {
        control
            .check_fast()
            .map_err(|kind| crate::limit_exception(control, kind))?;
        hasher.update(piece);
    }
    Ok(hasher.finalize().to_vec())
}

/// The wall-clock time `t` at `offset_seconds` east of UTC.
fn utc(t: Timestamp, offset_seconds: i32) -> Result<chrono::NaiveDateTime, MontyException> {
    chrono::DateTime::from_timestamp(t.secs.saturating_add(i64::from(offset_seconds)), t.nanos)
        .map(|d| d.naive_utc())
        .ok_or_else(|| {
            MontyException::new(
                ExcType::OverflowError,
                Some("the shell's clock is outside the range of datetime".into()),
            )
        })
}

/// The sandbox's message for a refused module or facility.
pub fn refusal(name: &str) -> String {
    if name == "os.system" {
        return "os.system is not available in the local sandbox (the local sandbox starts no processes)".to_string();
    }
    let why = match name.split('.').next().unwrap_or(name) {
        "subprocess" | "os.system" | "multiprocessing" | "pty" | "signal" => {
            "the local sandbox starts no processes"
        }
        "socket" | "ssl" | "http" | "requests" | "urllib3" | "select" | "selectors" => {
            "the local sandbox has no network"
        }
        "pip" => "packages cannot be installed in the local sandbox",
        _ => "embedded Python: standard-library subset",
    };
    format!("module '{name}' is not available in the local sandbox ({why})")
}

fn copy_tree(fs: &Fs, from: &str, to: &str) -> Result<(), FsError> {
    fs.mkdir_all(to)?;
    for e in fs.read_dir(from)? {
        let (src, dst) = (format!("{from}/{}", e.name), format!("{to}/{}", e.name));
        if fs.metadata(&src)?.kind == FileKind::Dir {
            copy_tree(fs, &src, &dst)?;
        } else {
            fs.write(&dst, &fs.read(&src)?)?;
        }
    }
    Ok(())
}

fn sleep_within(ctx: &CommandCtx<'_>, secs: f64) -> Result<MontyObject, MontyException> {
    if !secs.is_finite() || secs < 0.0 {
        return Err(value_error("sleep length must be non-negative"));
    }
    let want = std::time::Duration::from_secs_f64(secs.min(1e6));
    let until = Instant::now() + want;
    // Sleeps in slices so a cancelled or timed-out run stops promptly.
    loop {
        if ctx.control.check().is_err() {
            return Err(MontyException::new(
                ExcType::TimeoutError,
                Some("the run's time limit was reached".into()),
            ));
        }
        let now = Instant::now();
        if now >= until {
            return Ok(MontyObject::None);
        }
        std::thread::sleep((until - now).min(std::time::Duration::from_millis(10)));
    }
}

fn stat_object(m: &sandkeep_shell::Metadata) -> MontyObject {
    let mtime = ts(m.mtime);
    match m.kind {
        FileKind::Dir => dir_stat(m.mode as i64, mtime),
        _ => file_stat(m.mode as i64, m.size as i64, mtime),
    }
}

fn ts(t: Timestamp) -> f64 {
    t.secs as f64 + t.nanos as f64 / 1e9
}

fn decode(data: Vec<u8>, path: &str) -> Result<String, MontyException> {
    String::from_utf8(data).map_err(|e| {
        MontyException::new(
            ExcType::UnicodeDecodeError,
            Some(format!(
                "'utf-8' codec can't decode byte 0x{:02x} in position {}: invalid start byte ({path})",
                e.as_bytes()[e.utf8_error().valid_up_to()],
                e.utf8_error().valid_up_to()
            )),
        )
    })
}

fn string_arg(args: &[MontyObject], i: usize) -> Result<String, MontyException> {
    match args.get(i) {
        Some(MontyObject::String(s)) | Some(MontyObject::Path(s)) => Ok(s.clone()),
        Some(other) => Err(type_error(&format!(
            "expected str, bytes or os.PathLike object, not {}",
            other.type_name()
        ))),
        None => Err(type_error("missing argument")),
    }
}

fn type_error(msg: &str) -> MontyException {
    MontyException::new(ExcType::TypeError, Some(msg.to_string()))
}

fn value_error(msg: &str) -> MontyException {
    MontyException::new(ExcType::ValueError, Some(msg.to_string()))
}

/// CPython's `OSError` subclass and message for a filesystem error on `path`.
fn os_error(e: FsError, path: &str) -> MontyException {
    let (exc, errno) = match e {
        FsError::NotFound => (ExcType::FileNotFoundError, 2),
        FsError::AlreadyExists => (ExcType::FileExistsError, 17),
        FsError::IsADirectory => (ExcType::IsADirectoryError, 21),
        FsError::NotADirectory => (ExcType::NotADirectoryError, 20),
        FsError::PermissionDenied => (ExcType::PermissionError, 13),
        FsError::DirectoryNotEmpty => (ExcType::OSError, 39),
        FsError::NoSpace => (ExcType::OSError, 28),
        FsError::FileTooLarge => (ExcType::OSError, 27),
        _ => (ExcType::OSError, 22),
    };
    MontyException::new(exc, Some(format!("[Errno {errno}] {e}: '{path}'")))
}
