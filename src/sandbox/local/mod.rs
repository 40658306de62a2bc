//! The local backend: each sandbox is an in-process [`Shell`] (the
//! `sandkeep-shell` interpreter over a virtual filesystem). Nothing here
//! touches the host: no container engine, no host files, no host processes.
//!
//! The interpreter is blocking CPU work that recurses on the native stack, so
//! every run gets its own OS thread with a large stack and reports back over a
//! oneshot channel; the async caller never blocks a runtime thread.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use sandkeep_shell::{FsError, LimitKind, RunOptions, Shell, ShellConfig, ShellState};
use tokio::sync::oneshot;

mod workspace;

use super::{
    Backend, BackendKind, Listing, RunRequest, RunResult, Sandbox, SandboxError, SandboxSpec,
    WorkspaceChanges,
};

/// Stack size of the thread that runs one script: the interpreter recurses on
/// the native stack (nested functions, subshells, command substitutions).
const RUN_STACK_SIZE: usize = 64 << 20;

/// Extra time a run gets past its own timeout before the caller gives up on
/// the interpreter thread (which enforces the timeout itself; this is only a
/// safety net against a stuck thread).
const TIMEOUT_GRACE: Duration = Duration::from_secs(5);

/// Cancels a run whose caller's future was dropped before the run ended.
struct CancelOnDrop(Option<sandkeep_shell::CancelHandle>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(stop) = self.0.take() {
            stop.cancel();
        }
    }
}

/// The in-process backend: creates [`LocalSandbox`]es.
///
/// ```
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// use sandkeep::{Backend, LocalBackend, SandboxSpec};
///
/// let backend = LocalBackend::new();
/// let sandbox = backend.create(&SandboxSpec::default()).await.unwrap();
/// sandbox.write_text("hello.txt", "hi\n").await.unwrap();
/// assert_eq!(sandbox.read_text("/workspace/hello.txt").await.unwrap().as_deref(), Some("hi\n"));
/// # });
/// ```
#[derive(Clone, Debug)]
pub struct LocalBackend {
    config: ShellConfig,
    /// Where `curl`/`wget` go out (feature `net`); `None`: no network.
    #[cfg(feature = "net")]
    egress: Option<sandkeep_net::Egress>,
}

impl Default for LocalBackend {
    fn default() -> LocalBackend {
        LocalBackend::with_config(ShellConfig::default())
    }
}

impl LocalBackend {
    /// A backend whose sandboxes use the default limits.
    pub fn new() -> LocalBackend {
        LocalBackend::default()
    }

    /// A backend whose sandboxes are built with `config` (limits,
    /// determinism); with the `python` feature (on by default) they also
    /// have `python3`/`python` (the embedded interpreter of
    /// `sandkeep-python`), with `sqlite` `sqlite3` (`sandkeep-sqlite`) and
    /// with `node` `node`/`nodejs` (`sandkeep-node`).
    pub fn with_config(config: ShellConfig) -> LocalBackend {
        #[cfg(feature = "python")]
        let config = sandkeep_python::install(config);
        #[cfg(feature = "sqlite")]
        let config = sandkeep_sqlite::install(config);
        #[cfg(feature = "node")]
        let config = sandkeep_node::install(config);
        LocalBackend {
            config,
            #[cfg(feature = "net")]
            egress: None,
        }
    }

    /// Gives every sandbox `curl` and `wget` going out through `egress`
    /// (its policy, credentials and limits; changeable while sessions run).
    ///
    /// ```
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// use sandkeep::{Backend, LocalBackend, RunRequest, SandboxSpec};
    ///
    /// let egress = sandkeep_net::Egress::allowing(["pypi.org"]).unwrap();
    /// let backend = LocalBackend::new().with_egress(egress);
    /// let sandbox = backend.create(&SandboxSpec::default()).await.unwrap();
    /// let out = sandbox.run(RunRequest::new("curl -s https://evil.example/")).await.unwrap();
    /// assert_eq!(out.exit_code, 56);
    /// assert!(out.stderr_text().contains("network policy denies evil.example:443 (allowed: pypi.org)"));
    /// # });
    /// ```
    #[cfg(feature = "net")]
    pub fn with_egress(mut self, egress: sandkeep_net::Egress) -> LocalBackend {
        self.egress = Some(egress);
        self
    }

    /// The configuration every new sandbox gets.
    pub fn config(&self) -> &ShellConfig {
        &self.config
    }

    /// Adds a program every sandbox of this backend can run: an agent
    /// builder's host tool, exposed as a shell command the agent can pipe and
    /// redirect. It runs on the host, in-process, with only what `run`
    /// captures and its [`CommandCtx`](sandkeep_shell::CommandCtx)
    /// (arguments, environment, streams, the sandbox's filesystem).
    ///
    /// ```
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// use std::io::{Read, Write};
    /// use sandkeep::{Backend, LocalBackend, RunRequest, SandboxSpec};
    ///
    /// // A "ticket" tool that counts the lines it is given.
    /// let backend = LocalBackend::new().command("ticket", |ctx| {
    ///     let mut input = String::new();
    ///     let _ = ctx.stdin.read_to_string(&mut input);
    ///     let _ = writeln!(ctx.stdout, "filed {} line(s)", input.lines().count());
    ///     0
    /// });
    /// let sandbox = backend.create(&SandboxSpec::default()).await.unwrap();
    /// let out = sandbox
    ///     .run(RunRequest::new("seq 3 | ticket > receipt.txt && cat receipt.txt"))
    ///     .await
    ///     .unwrap();
    /// assert_eq!(out.stdout_text(), "filed 3 line(s)\n");
    /// # });
    /// ```
    pub fn command(
        mut self,
        name: impl Into<String>,
        run: impl Fn(&mut sandkeep_shell::CommandCtx<'_>) -> i32 + Send + Sync + 'static,
    ) -> LocalBackend {
        self.config = self.config.command(name, run);
        self
    }
}

#[async_trait::async_trait]
impl Backend for LocalBackend {
    fn kind(&self) -> BackendKind {
        BackendKind::Local
    }

    async fn create(&self, spec: &SandboxSpec) -> Result<Arc<dyn Sandbox>, SandboxError> {
        #[cfg(feature = "net")]
        if let Some(egress) = &self.egress {
            let egress = egress.scoped(&spec.session_id);
            let config = sandkeep_net::install(self.config.clone(), &egress);
            let mut sandbox = LocalSandbox::new(config, spec);
            sandbox.net = Some(egress);
            return Ok(Arc::new(sandbox));
        }
        Ok(Arc::new(LocalSandbox::new(self.config.clone(), spec)))
    }

    #[cfg(feature = "net")]
    fn egress(&self) -> Option<sandkeep_net::Egress> {
        self.egress.clone()
    }
}

/// One in-process sandbox: a virtual filesystem rooted at `/workspace` and the
/// interpreter that runs scripts over it. [`Sandbox::stop`] drops the tree;
/// every later call fails with [`SandboxError::Gone`].
pub struct LocalSandbox {
    id: String,
    env: Vec<(String, String)>,
    default_timeout: Duration,
    shell: Mutex<Option<Shell>>,
    /// The session's shell state between runs: a run moves it out, runs
    /// from it and moves back what it reached.
    state: Arc<Mutex<ShellState>>,
    /// This sandbox's egress, whose usage counters each run starts afresh
    /// (the network limits are per run).
    #[cfg(feature = "net")]
    net: Option<sandkeep_net::Egress>,
}

impl std::fmt::Debug for LocalSandbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalSandbox")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

impl LocalSandbox {
    /// A fresh sandbox built with `config`, carrying `spec.env` into every run.
    pub fn new(config: ShellConfig, spec: &SandboxSpec) -> LocalSandbox {
        #[cfg(feature = "git")]
        let config = sandkeep_git::install(config);
        let default_timeout = config.limits.timeout;
        let shell = Shell::new(config);
        // Every change from birth is tracked, so a park needs no listing.
        shell.fs().track_changes();
        LocalSandbox {
            id: new_sandbox_id(),
            env: spec.env.clone(),
            default_timeout,
            shell: Mutex::new(Some(shell)),
            state: Arc::default(),
            #[cfg(feature = "net")]
            net: None,
        }
    }

    /// The shell, or `Gone` once stopped. Clones share the tree.
    fn shell(&self) -> Result<Shell, SandboxError> {
        self.shell
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
            .ok_or_else(|| SandboxError::Gone(self.id.clone()))
    }

    /// Runs a filesystem operation on a blocking thread (the tree may be large).
    async fn with_fs<T, F>(&self, f: F) -> Result<T, SandboxError>
    where
        T: Send + 'static,
        F: FnOnce(&Shell) -> Result<T, SandboxError> + Send + 'static,
    {
        let shell = self.shell()?;
        tokio::task::spawn_blocking(move || {
            catch_unwind(AssertUnwindSafe(|| f(&shell)))
                .unwrap_or_else(|p| Err(SandboxError::Backend(panic_message("filesystem", p))))
        })
        .await
        .map_err(|e| SandboxError::Backend(format!("filesystem task failed: {e}")))?
    }
}

/// A process-unique id: `local-<pid hex>-<counter>-<random>`.
fn new_sandbox_id() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!(
        "local-{:x}-{n}-{:08x}",
        std::process::id(),
        crate::ids::cheap_random_u32()
    )
}

/// Locks a mutex, a poisoned one too (a panicked run left a usable value).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Resolves a sandbox path: relative paths start at `/workspace`.
fn sandbox_path(path: &str) -> String {
    sandkeep_shell::Fs::resolve("/workspace", path)
}

fn path_error(path: &str, err: FsError) -> SandboxError {
    SandboxError::Path {
        path: path.to_string(),
        reason: err.to_string(),
    }
}

fn panic_message(what: &str, payload: Box<dyn std::any::Any + Send>) -> String {
    let msg = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string());
    format!("the local {what} panicked: {msg}")
}

#[async_trait::async_trait]
impl Sandbox for LocalSandbox {
    fn id(&self) -> &str {
        &self.id
    }

    fn backend(&self) -> BackendKind {
        BackendKind::Local
    }

    async fn run(&self, request: RunRequest) -> Result<RunResult, SandboxError> {
        let shell = self.shell()?;
        #[cfg(feature = "net")]
        if let Some(net) = &self.net {
            net.reset_usage();
        }
        let timeout = request.timeout.unwrap_or(self.default_timeout);
        let mut env = self.env.clone();
        env.extend(request.env);
        let sink = request.sink.clone();
        // Cancelled when the caller cancels, and when this future is dropped
        // before the run ends (a caller that went away), so no run goes on
        // unseen in the sandbox.
        let stop = sandkeep_shell::CancelHandle::new();
        let mut on_drop = CancelOnDrop(Some(stop.clone()));
        let options = RunOptions {
            cwd: request.cwd,
            env,
            stdin: request.stdin,
            timeout: Some(timeout),
            sink: request.sink,
            cancel: Some(stop.clone()),
        };
        let cancel = request.cancel;
        let command = request.command;
        let kept = (!request.fresh_shell).then(|| self.state.clone());
        let (tx, rx) = oneshot::channel();
        // What the run logs (a network denial) goes to the caller's
        // subscriber, e.g. the MCP server's, which forwards it to its client.
        let dispatch = tracing::dispatcher::get_default(tracing::Dispatch::clone);
        std::thread::Builder::new()
            .name(format!("sandkeep-run-{}", self.id))
            .stack_size(RUN_STACK_SIZE)
            .spawn(move || {
                let out = tracing::dispatcher::with_default(&dispatch, || {
                    catch_unwind(AssertUnwindSafe(|| match &kept {
                        Some(kept) => {
                            let mut state = std::mem::take(&mut *lock(kept));
                            let out = shell.run_keeping(&command, options, &mut state);
                            *lock(kept) = state;
                            out
                        }
                        None => shell.run(&command, options),
                    }))
                })
                .map_err(|p| panic_message("shell", p));
                let _ = tx.send(out);
            })
            .map_err(|e| SandboxError::Backend(format!("cannot start a shell thread: {e}")))?;
        let finished = async move {
            let mut rx = rx;
            tokio::select! {
                out = &mut rx => return out,
                () = super::RunCancel::of(cancel.as_ref()) => stop.cancel(),
            }
            rx.await
        };
        let waited = tokio::time::timeout(timeout.saturating_add(TIMEOUT_GRACE), finished).await;
        on_drop.0 = None;
        let out = match waited {
            Ok(Ok(Ok(out))) => out,
            Ok(Ok(Err(msg))) => return Err(SandboxError::Backend(msg)),
            Ok(Err(_)) => return Err(SandboxError::Backend("the shell thread vanished".into())),
            Err(_) => {
                // The interpreter missed its own deadline: report a timeout and
                // leave the thread to finish on its own. A sink that takes the
                // output gets the message too (the result holds none of it).
                let mut stderr = format!("sandkeep: timeout after {timeout:?}\n").into_bytes();
                if let Some(sink) = sink.filter(|s| s.takes_output()) {
                    sink.stderr(&std::mem::take(&mut stderr));
                }
                return Ok(RunResult {
                    exit_code: 124,
                    stderr,
                    timed_out: true,
                    ..RunResult::default()
                });
            }
        };
        let timed_out = out.limit == Some(LimitKind::Timeout);
        Ok(RunResult {
            exit_code: if timed_out { 124 } else { out.exit_code },
            stdout: out.stdout,
            stderr: out.stderr,
            truncated: out.truncated,
            timed_out,
        })
    }

    async fn shell_state(&self) -> Result<Option<super::ShellSnapshot>, SandboxError> {
        let state = lock(&self.state).clone();
        tokio::task::spawn_blocking(move || state.snapshot())
            .await
            .map_err(|e| SandboxError::Backend(format!("shell state task failed: {e}")))
    }

    async fn restore_shell_state(
        &self,
        snapshot: &super::ShellSnapshot,
    ) -> Result<(), SandboxError> {
        let state = ShellState::from_snapshot(snapshot)
            .map_err(|e| SandboxError::Backend(format!("shell state not restored: {e}")))?;
        *lock(&self.state) = state;
        Ok(())
    }

    async fn read_file(&self, path: &str) -> Result<Option<Vec<u8>>, SandboxError> {
        let abs = sandbox_path(path);
        let shown = path.to_string();
        self.with_fs(move |shell| match shell.fs().read(&abs) {
            Ok(data) => Ok(Some(data)),
            Err(FsError::NotFound) => Ok(None),
            Err(e) => Err(path_error(&shown, e)),
        })
        .await
    }

    async fn write_file(&self, path: &str, data: &[u8]) -> Result<(), SandboxError> {
        let abs = sandbox_path(path);
        let shown = path.to_string();
        let data = data.to_vec();
        self.with_fs(move |shell| {
            let fs = shell.fs();
            if let Some((parent, _)) = abs.rsplit_once('/')
                && !parent.is_empty()
            {
                fs.mkdir_all(parent).map_err(|e| path_error(&shown, e))?;
            }
            fs.write(&abs, &data).map_err(|e| path_error(&shown, e))
        })
        .await
    }

    async fn remove_path(&self, path: &str) -> Result<(), SandboxError> {
        let abs = sandbox_path(path);
        let shown = path.to_string();
        self.with_fs(move |shell| match shell.fs().remove_all(&abs) {
            Ok(()) | Err(FsError::NotFound) => Ok(()),
            Err(e) => Err(path_error(&shown, e)),
        })
        .await
    }

    async fn list_workspace(&self) -> Result<Listing, SandboxError> {
        self.with_fs(|shell| workspace::list(shell.fs())).await
    }

    async fn export_paths(&self, paths: &[String]) -> Result<Vec<u8>, SandboxError> {
        let paths = paths.to_vec();
        self.with_fs(move |shell| workspace::export(shell.fs(), &paths))
            .await
    }

    async fn import_workspace(&self, tar: &[u8]) -> Result<(), SandboxError> {
        let tar = tar.to_vec();
        self.with_fs(move |shell| workspace::import(shell.fs(), &tar))
            .await
    }

    async fn mark_workspace(&self) -> Result<(), SandboxError> {
        self.with_fs(|shell| {
            shell.fs().track_changes();
            Ok(())
        })
        .await
    }

    async fn workspace_changes(&self) -> Result<Option<WorkspaceChanges>, SandboxError> {
        self.with_fs(|shell| workspace::changes(shell.fs())).await
    }

    async fn stop(&self) -> Result<(), SandboxError> {
        // Dropping our handle frees the tree once no run still holds a clone.
        self.shell.lock().unwrap_or_else(|e| e.into_inner()).take();
        Ok(())
    }
}
