//! Worker-process mode of the local backend: each sandbox lives in a child
//! process, the same `sandkeep` binary run as `sandkeep worker`, which puts
//! rlimits on its own address space and CPU time and serves the sandbox
//! over a framed protocol on its stdin and stdout ([`protocol`]).
//!
//! What it adds to the in-process mode: a bug in one run that the
//! in-process limits do not catch (an abort, a stack overflow, an
//! allocation the meter missed, a loop that ignores its deadline) ends that
//! worker only; the session's next call says the sandbox's worker died and
//! the server, and every other session, go on. A worker that does not answer
//! within its run's deadline plus [`GRACE`] is killed.
//!
//! The host side is this module's [`WorkerSandbox`]: it spawns the worker
//! (the one place the local backend starts a host process, with an argv it
//! builds itself) and talks to it under a lock, one request at a time.
//!
//! - [`protocol`]: frames, requests and replies
//! - [`serve`]: the worker's side

pub mod protocol;
pub mod serve;

use std::io::{BufReader, BufWriter};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use protocol::{Reply, Request, read_frame, write_frame};
pub use serve::WorkerLimits;

use super::workspace::parse_listing;
use super::{
    Backend, BackendKind, FileHead, Listing, RunRequest, RunResult, Sandbox, SandboxError,
    SandboxSpec, WorkspaceChanges,
};

/// How long past a run's deadline a worker may stay silent before it is
/// killed (requests without a deadline get [`DEFAULT_DEADLINE`]).
pub const GRACE: Duration = Duration::from_secs(5);

/// The deadline of requests that carry none (file and workspace transfers).
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(300);

/// Creates sandboxes that each run in a worker process.
#[derive(Clone, Debug)]
pub struct WorkerBackend {
    exe: PathBuf,
    limits: WorkerLimits,
    run_timeout: Duration,
}

impl WorkerBackend {
    /// Workers are `exe worker` (a `sandkeep` binary) with `limits`.
    pub fn new(exe: impl Into<PathBuf>, limits: WorkerLimits) -> WorkerBackend {
        WorkerBackend {
            exe: exe.into(),
            limits,
            run_timeout: sandkeep_shell::Limits::default().timeout,
        }
    }

    /// Workers are this very binary, re-executed.
    pub fn current_exe(limits: WorkerLimits) -> Result<WorkerBackend, SandboxError> {
        #[allow(clippy::disallowed_methods)]
        let exe = std::env::current_exe()
            .map_err(|e| SandboxError::Backend(format!("cannot find this program: {e}")))?;
        Ok(WorkerBackend::new(exe, limits))
    }

    /// Spawns a worker and creates its sandbox.
    pub async fn create_worker(&self, spec: &SandboxSpec) -> Result<WorkerSandbox, SandboxError> {
        let (exe, limits, spec) = (self.exe.clone(), self.limits, spec.clone());
        let run_timeout = self.run_timeout;
        tokio::task::spawn_blocking(move || WorkerSandbox::spawn(&exe, limits, &spec, run_timeout))
            .await
            .map_err(|e| SandboxError::Backend(e.to_string()))?
    }
}

#[async_trait::async_trait]
impl Backend for WorkerBackend {
    fn kind(&self) -> BackendKind {
        BackendKind::Local
    }

    async fn create(&self, spec: &SandboxSpec) -> Result<Arc<dyn Sandbox>, SandboxError> {
        Ok(Arc::new(self.create_worker(spec).await?))
    }
}

/// The pipes to a worker.
struct Channel {
    to: BufWriter<ChildStdin>,
    from: BufReader<ChildStdout>,
}

/// A local sandbox in a worker process.
pub struct WorkerSandbox {
    id: String,
    pid: u32,
    child: Arc<Mutex<Child>>,
    channel: Arc<Mutex<Channel>>,
    gone: Arc<AtomicBool>,
    run_timeout: Duration,
}

impl WorkerSandbox {
    #[allow(clippy::disallowed_methods, clippy::disallowed_types)]
    fn spawn(
        exe: &std::path::Path,
        limits: WorkerLimits,
        spec: &SandboxSpec,
        run_timeout: Duration,
    ) -> Result<WorkerSandbox, SandboxError> {
        let mut child = Command::new(exe)
            .arg("worker")
            .arg("--address-space")
            .arg(limits.address_space_bytes.to_string())
            .arg("--cpu-seconds")
            .arg(limits.cpu_seconds.to_string())
            .env_clear()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| {
                SandboxError::Backend(format!("cannot start a worker ({}): {e}", exe.display()))
            })?;
        let (Some(to), Some(from)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            return Err(SandboxError::Backend("worker pipes missing".into()));
        };
        let pid = child.id();
        let sandbox = WorkerSandbox {
            id: format!("worker-{pid}-{}", spec.session_id),
            pid,
            child: Arc::new(Mutex::new(child)),
            channel: Arc::new(Mutex::new(Channel {
                to: BufWriter::new(to),
                from: BufReader::new(from),
            })),
            gone: Arc::new(AtomicBool::new(false)),
            run_timeout,
        };
        let create = Request::Create {
            session_id: spec.session_id.clone(),
            agent: spec.agent.clone(),
            env: spec.env.clone(),
        };
        match sandbox.exchange_blocking(&create, &[], DEFAULT_DEADLINE, None)? {
            (Reply::Ok, _) => Ok(sandbox),
            (other, _) => Err(unexpected(other)),
        }
    }

    /// The worker's process id.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// Sends one request and reads replies until a final one, streaming
    /// `Output` replies to `sink`. A worker silent past `deadline` is
    /// killed; a worker that died makes the sandbox gone.
    fn exchange_blocking(
        &self,
        request: &Request,
        blobs: &[&[u8]],
        deadline: Duration,
        sink: Option<&Arc<dyn super::OutputSink>>,
    ) -> Result<(Reply, Vec<Vec<u8>>), SandboxError> {
        if self.gone.load(Ordering::SeqCst) {
            return Err(SandboxError::Gone(self.id.clone()));
        }
        let mut channel = self
            .channel
            .lock()
            .map_err(|_| SandboxError::Backend("worker channel poisoned".into()))?;
        let watchdog = Watchdog::start(Arc::clone(&self.child), deadline + GRACE);
        let result = (|| -> std::io::Result<(Reply, Vec<Vec<u8>>)> {
            write_frame(&mut channel.to, request, blobs)?;
            loop {
                let Some((reply, mut blobs)) = read_frame::<_, Reply>(&mut channel.from)? else {
                    return Err(std::io::ErrorKind::UnexpectedEof.into());
                };
                if let Reply::Output { stream } = reply {
                    if let (Some(sink), Some(chunk)) = (sink, blobs.pop()) {
                        if stream == 2 {
                            sink.stderr(&chunk);
                        } else {
                            sink.stdout(&chunk);
                        }
                    }
                    continue;
                }
                return Ok((reply, blobs));
            }
        })();
        let killed = watchdog.stop();
        match result {
            Ok(answer) => Ok(answer),
            Err(e) => {
                self.gone.store(true, Ordering::SeqCst);
                Err(SandboxError::Backend(self.death_note(killed, &e)))
            }
        }
    }

    /// Why the worker stopped answering, for the session to show.
    fn death_note(&self, killed_for_silence: bool, e: &std::io::Error) -> String {
        let status = self.child.lock().ok().and_then(|mut c| {
            let _ = c.kill();
            c.wait().ok()
        });
        use std::os::unix::process::ExitStatusExt;
        let how = match status {
            _ if killed_for_silence => "was killed: it did not answer in time".to_string(),
            Some(s) if s.signal().is_some() => {
                format!("died of signal {}", s.signal().unwrap_or_default())
            }
            Some(s) => format!("exited with status {}", s.code().unwrap_or(-1)),
            None => format!("stopped answering ({e})"),
        };
        format!(
            "the worker process of this sandbox (pid {}) {how}; its sandbox is gone, \
             files not yet kept are lost; other sessions are unaffected, start a new session",
            self.pid
        )
    }

    async fn exchange(
        &self,
        request: Request,
        blobs: Vec<Vec<u8>>,
        deadline: Duration,
        sink: Option<Arc<dyn super::OutputSink>>,
    ) -> Result<(Reply, Vec<Vec<u8>>), SandboxError> {
        let this = self.handle();
        tokio::task::spawn_blocking(move || {
            let refs: Vec<&[u8]> = blobs.iter().map(Vec::as_slice).collect();
            this.exchange_blocking(&request, &refs, deadline, sink.as_ref())
        })
        .await
        .map_err(|e| SandboxError::Backend(e.to_string()))?
        .and_then(|(reply, blobs)| match reply {
            Reply::Error {
                kind,
                path,
                message,
            } => Err(match kind.as_str() {
                "gone" => SandboxError::Gone(message),
                "path" => SandboxError::Path {
                    path,
                    reason: message,
                },
                _ => SandboxError::Backend(message),
            }),
            other => Ok((other, blobs)),
        })
    }

    /// A second handle on the same worker (for blocking tasks).
    fn handle(&self) -> WorkerSandbox {
        WorkerSandbox {
            id: self.id.clone(),
            pid: self.pid,
            child: Arc::clone(&self.child),
            channel: Arc::clone(&self.channel),
            gone: Arc::clone(&self.gone),
            run_timeout: self.run_timeout,
        }
    }

    async fn simple(&self, request: Request, blobs: Vec<Vec<u8>>) -> Result<(), SandboxError> {
        match self
            .exchange(request, blobs, DEFAULT_DEADLINE, None)
            .await?
        {
            (Reply::Ok, _) => Ok(()),
            (other, _) => Err(unexpected(other)),
        }
    }
}

fn unexpected(reply: Reply) -> SandboxError {
    SandboxError::Backend(format!("unexpected reply from the worker: {reply:?}"))
}

/// Kills the worker if a request takes longer than its deadline.
struct Watchdog {
    done: Arc<(Mutex<bool>, std::sync::Condvar)>,
    thread: Option<std::thread::JoinHandle<bool>>,
}

impl Watchdog {
    fn start(child: Arc<Mutex<Child>>, limit: Duration) -> Watchdog {
        let done = Arc::new((Mutex::new(false), std::sync::Condvar::new()));
        let flag = Arc::clone(&done);
        let thread = std::thread::Builder::new()
            .name("sandkeep-worker-watchdog".into())
            .spawn(move || {
                let (lock, cvar) = &*flag;
                let Ok(guard) = lock.lock() else { return false };
                let Ok((guard, timeout)) = cvar.wait_timeout_while(guard, limit, |done| !*done)
                else {
                    return false;
                };
                if *guard || !timeout.timed_out() {
                    return false;
                }
                drop(guard);
                if let Ok(mut c) = child.lock() {
                    let _ = c.kill();
                }
                true
            })
            .ok();
        Watchdog { done, thread }
    }

    /// Ends the watch; whether it killed the worker.
    fn stop(mut self) -> bool {
        let (lock, cvar) = &*self.done;
        if let Ok(mut d) = lock.lock() {
            *d = true;
        }
        cvar.notify_all();
        self.thread
            .take()
            .and_then(|t| t.join().ok())
            .unwrap_or(false)
    }
}

#[async_trait::async_trait]
impl Sandbox for WorkerSandbox {
    fn id(&self) -> &str {
        &self.id
    }

    fn backend(&self) -> BackendKind {
        BackendKind::Local
    }

    async fn run(&self, request: RunRequest) -> Result<RunResult, SandboxError> {
        let deadline = request.timeout.unwrap_or(self.run_timeout);
        let req = Request::Run {
            command: request.command,
            cwd: request.cwd,
            env: request.env,
            timeout_ms: request
                .timeout
                .map(|t| u64::try_from(t.as_millis()).unwrap_or(u64::MAX)),
            stream: request.sink.is_some(),
            fresh_shell: request.fresh_shell,
        };
        match self
            .exchange(req, vec![request.stdin], deadline, request.sink)
            .await?
        {
            (
                Reply::Ran {
                    exit_code,
                    truncated,
                    timed_out,
                },
                mut blobs,
            ) if blobs.len() == 2 => {
                let stderr = blobs.pop().unwrap_or_default();
                let stdout = blobs.pop().unwrap_or_default();
                Ok(RunResult {
                    exit_code,
                    stdout,
                    stderr,
                    truncated,
                    timed_out,
                })
            }
            (other, _) => Err(unexpected(other)),
        }
    }

    async fn read_file(&self, path: &str) -> Result<Option<Vec<u8>>, SandboxError> {
        Ok(self
            .read_file_head(path, usize::MAX)
            .await?
            .map(|head| head.data))
    }

    async fn read_file_head(
        &self,
        path: &str,
        max: usize,
    ) -> Result<Option<FileHead>, SandboxError> {
        let req = Request::Read {
            path: path.to_string(),
            max: max as u64,
        };
        match self
            .exchange(req, Vec::new(), DEFAULT_DEADLINE, None)
            .await?
        {
            (Reply::File { size: None }, _) => Ok(None),
            (Reply::File { size: Some(size) }, mut blobs) => Ok(Some(FileHead {
                data: blobs.pop().unwrap_or_default(),
                size,
            })),
            (other, _) => Err(unexpected(other)),
        }
    }

    async fn write_file(&self, path: &str, data: &[u8]) -> Result<(), SandboxError> {
        let req = Request::Write {
            path: path.to_string(),
        };
        self.simple(req, vec![data.to_vec()]).await
    }

    async fn remove_path(&self, path: &str) -> Result<(), SandboxError> {
        let req = Request::Remove {
            path: path.to_string(),
        };
        self.simple(req, Vec::new()).await
    }

    async fn stop(&self) -> Result<(), SandboxError> {
        if self.gone.load(Ordering::SeqCst) {
            return Ok(());
        }
        let result = self.simple(Request::Stop, Vec::new()).await;
        self.gone.store(true, Ordering::SeqCst);
        if let Ok(mut c) = self.child.lock() {
            let _ = c.wait();
        }
        result
    }

    async fn shell_state(&self) -> Result<Option<super::ShellSnapshot>, SandboxError> {
        match self
            .exchange(Request::ShellState, Vec::new(), DEFAULT_DEADLINE, None)
            .await?
        {
            (Reply::State, blobs) => match blobs.first() {
                Some(json) => serde_json::from_slice(json)
                    .map(Some)
                    .map_err(|e| SandboxError::Backend(format!("the worker's shell state: {e}"))),
                None => Ok(None),
            },
            (other, _) => Err(unexpected(other)),
        }
    }

    async fn restore_shell_state(
        &self,
        snapshot: &super::ShellSnapshot,
    ) -> Result<(), SandboxError> {
        let json = serde_json::to_vec(snapshot)
            .map_err(|e| SandboxError::Backend(format!("shell state not encoded: {e}")))?;
        self.simple(Request::RestoreShellState, vec![json]).await
    }

    async fn list_workspace(&self) -> Result<Listing, SandboxError> {
        match self
            .exchange(Request::List, Vec::new(), DEFAULT_DEADLINE, None)
            .await?
        {
            (Reply::Listing, mut blobs) => parse_listing(&blobs.pop().unwrap_or_default()),
            (other, _) => Err(unexpected(other)),
        }
    }

    async fn export_paths(&self, paths: &[String]) -> Result<Vec<u8>, SandboxError> {
        let req = Request::Export {
            paths: paths.to_vec(),
        };
        match self
            .exchange(req, Vec::new(), DEFAULT_DEADLINE, None)
            .await?
        {
            (Reply::Tar, mut blobs) => Ok(blobs.pop().unwrap_or_default()),
            (other, _) => Err(unexpected(other)),
        }
    }

    async fn import_workspace(&self, tar: &[u8]) -> Result<(), SandboxError> {
        self.simple(Request::Import, vec![tar.to_vec()]).await
    }

    async fn mark_workspace(&self) -> Result<(), SandboxError> {
        self.simple(Request::Mark, Vec::new()).await
    }

    async fn workspace_changes(&self) -> Result<Option<WorkspaceChanges>, SandboxError> {
        match self
            .exchange(Request::Changes, Vec::new(), DEFAULT_DEADLINE, None)
            .await?
        {
            (Reply::Changes { known: false, .. }, _) => Ok(None),
            (
                Reply::Changes {
                    known: true,
                    listed_dirs,
                    listed_trees,
                },
                mut blobs,
            ) if blobs.len() == 2 => {
                let listing = parse_listing(&blobs.pop().unwrap_or_default())?;
                let written = blobs.pop().unwrap_or_default();
                Ok(Some(WorkspaceChanges {
                    listed_dirs,
                    listed_trees,
                    listing,
                    written,
                }))
            }
            (other, _) => Err(unexpected(other)),
        }
    }
}

impl Drop for WorkerSandbox {
    /// A dropped sandbox ends its worker (only the last handle does: the
    /// blocking tasks hold second handles on the same child).
    fn drop(&mut self) {
        if Arc::strong_count(&self.child) > 1 {
            return;
        }
        if let Ok(mut c) = self.child.lock()
            && let Ok(None) = c.try_wait()
        {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}
