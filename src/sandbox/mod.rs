//! The [`Sandbox`] trait: one interface over the local (in-process) and docker
//! backends, so hooks and sessions are the same code on both.

#[cfg(feature = "docker")]
pub mod docker;
pub mod local;
#[cfg(feature = "docker")]
pub mod select;
pub mod worker;
pub mod workspace;

use std::sync::Arc;
use std::time::Duration;

pub use sandkeep_shell::{OutputSink, ShellSnapshot};
pub use workspace::{Listed, ListedKind, Listing, WorkspaceChanges};

/// The uid and gid of the sandbox user in tar headers sent into a sandbox
/// (the docker image's unprivileged user; the local backend ignores owners).
pub const SANDBOX_UID: u64 = 1000;

/// Which backend a sandbox runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BackendKind {
    /// The in-process shell over a virtual filesystem.
    Local,
    /// A Docker container.
    Docker,
}

impl std::fmt::Display for BackendKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            BackendKind::Local => "local",
            BackendKind::Docker => "docker",
        })
    }
}

/// A command to run, as `bash -c COMMAND` in the session's shell: it starts
/// from the shell state the sandbox's previous runs left (working
/// directory, variables, functions, aliases, options, umask) and leaves its
/// own, unless [`RunRequest::fresh_shell`] is set.
#[derive(Clone, Default)]
pub struct RunRequest {
    /// The script, as for `bash -c`.
    pub command: String,
    /// Working directory; relative paths resolve from `/workspace`. Default `/workspace`.
    pub cwd: Option<String>,
    /// Extra environment variables.
    pub env: Vec<(String, String)>,
    /// Bytes on stdin.
    pub stdin: Vec<u8>,
    /// Wall-clock limit; default: the backend's.
    pub timeout: Option<Duration>,
    /// Receives output while the command runs.
    pub sink: Option<Arc<dyn OutputSink>>,
    /// Ends the run from outside (its caller went away) when cancelled.
    pub cancel: Option<RunCancel>,
    /// Runs in a new shell that neither sees nor changes the session's
    /// shell state (the runtime's own scripts: workspace transport,
    /// clearing before a checkout).
    pub fresh_shell: bool,
}

/// Cancels a run from outside it: its caller went away and nobody will read
/// the result. The run ends as at its deadline (status 124): the local
/// backend stops the interpreter at its next check, the docker backend
/// kills the run's processes as its timeout does.
#[derive(Clone, Debug, Default)]
pub struct RunCancel(Arc<CancelState>);

#[derive(Debug, Default)]
struct CancelState {
    cancelled: std::sync::atomic::AtomicBool,
    wake: tokio::sync::Notify,
}

impl RunCancel {
    /// A handle not cancelled yet.
    pub fn new() -> RunCancel {
        RunCancel::default()
    }

    /// Cancels the run (now, or as soon as it starts).
    pub fn cancel(&self) {
        self.0
            .cancelled
            .store(true, std::sync::atomic::Ordering::SeqCst);
        self.0.wake.notify_waiters();
    }

    /// True once cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.0.cancelled.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Resolves once cancelled.
    pub async fn cancelled(&self) {
        loop {
            let notified = self.0.wake.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.is_cancelled() {
                return;
            }
            notified.await;
        }
    }

    /// [`RunCancel::cancelled`] of an optional handle: pending forever
    /// without one.
    pub(crate) async fn of(cancel: Option<&RunCancel>) {
        match cancel {
            Some(c) => c.cancelled().await,
            None => std::future::pending().await,
        }
    }
}

impl RunRequest {
    /// A request for `bash -c command` with defaults for everything else.
    pub fn new(command: impl Into<String>) -> RunRequest {
        RunRequest {
            command: command.into(),
            ..RunRequest::default()
        }
    }

    /// Sets the timeout.
    pub fn timeout(mut self, timeout: Duration) -> RunRequest {
        self.timeout = Some(timeout);
        self
    }

    /// Runs in a new shell, apart from the session's shell state (see
    /// [`RunRequest::fresh_shell`]).
    pub fn fresh_shell(mut self) -> RunRequest {
        self.fresh_shell = true;
        self
    }
}

/// What a run produced.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunResult {
    /// Exit status (124 when the timeout killed it, like `timeout(1)`).
    pub exit_code: i32,
    /// Standard output, up to the output limit.
    pub stdout: Vec<u8>,
    /// Standard error, up to the output limit.
    pub stderr: Vec<u8>,
    /// True when output was cut at the output limit.
    pub truncated: bool,
    /// True when the timeout ended the command.
    pub timed_out: bool,
}

impl RunResult {
    /// Stdout as (lossy) UTF-8.
    pub fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    /// Stderr as (lossy) UTF-8.
    pub fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }
}

/// The start of a file ([`Sandbox::read_file_head`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileHead {
    /// The first bytes, up to the asked maximum.
    pub data: Vec<u8>,
    /// The whole file's size in bytes.
    pub size: u64,
}

impl FileHead {
    /// True when [`FileHead::data`] is not the whole file.
    pub fn truncated(&self) -> bool {
        (self.data.len() as u64) < self.size
    }
}

/// Why a sandbox operation failed (as opposed to a command failing, which is a
/// non-zero [`RunResult::exit_code`]).
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// The sandbox was stopped or its container is gone.
    #[error("sandbox {0} is gone")]
    Gone(String),
    /// The backend failed (daemon unreachable, API error, ...).
    #[error("{0}")]
    Backend(String),
    /// A path the sandbox refuses (outside the tree, a directory, ...).
    #[error("{path}: {reason}")]
    Path {
        /// The path as given.
        path: String,
        /// Why it was refused.
        reason: String,
    },
}

/// A sandbox rooted at `/workspace`, on either backend.
#[async_trait::async_trait]
pub trait Sandbox: Send + Sync {
    /// A unique id (the container id on docker).
    fn id(&self) -> &str;

    /// The backend this sandbox runs on.
    fn backend(&self) -> BackendKind;

    /// Runs `bash -c request.command`. Files persist for the life of the
    /// sandbox; so does the shell state (cwd, variables, functions, aliases,
    /// options, umask) on backends that keep it ([`Sandbox::shell_state`]),
    /// unless the request asks for a [fresh shell](RunRequest::fresh_shell).
    async fn run(&self, request: RunRequest) -> Result<RunResult, SandboxError>;

    /// The shell state the sandbox's runs left, as data (what a park keeps
    /// in the session's record); `None` when no run left any, or the
    /// backend keeps none.
    async fn shell_state(&self) -> Result<Option<ShellSnapshot>, SandboxError> {
        Ok(None)
    }

    /// Makes `snapshot` the shell state the next run starts from (a resumed
    /// session's). The default refuses: the backend keeps no shell state.
    async fn restore_shell_state(&self, snapshot: &ShellSnapshot) -> Result<(), SandboxError> {
        let _ = snapshot;
        Err(SandboxError::Backend(format!(
            "the {} backend keeps no shell state",
            self.backend()
        )))
    }

    /// A file's bytes, or `None` when it does not exist.
    async fn read_file(&self, path: &str) -> Result<Option<Vec<u8>>, SandboxError>;

    /// Writes a file, creating its parent directories.
    async fn write_file(&self, path: &str, data: &[u8]) -> Result<(), SandboxError>;

    /// Removes a file or a directory tree; a missing path is not an error.
    async fn remove_path(&self, path: &str) -> Result<(), SandboxError>;

    /// Stops the sandbox and releases what it holds (removes the container).
    async fn stop(&self) -> Result<(), SandboxError>;

    /// A file's first `max` bytes and its whole size, or `None` when it does
    /// not exist. Backends that can stop early (docker streams the file)
    /// hold no more than `max` bytes of it; the default reads it whole.
    async fn read_file_head(
        &self,
        path: &str,
        max: usize,
    ) -> Result<Option<FileHead>, SandboxError> {
        Ok(self.read_file(path).await?.map(|mut data| {
            let size = data.len() as u64;
            data.truncate(max);
            FileHead { data, size }
        }))
    }

    /// A file as UTF-8 text (lossy), or `None` when it does not exist.
    async fn read_text(&self, path: &str) -> Result<Option<String>, SandboxError> {
        Ok(self
            .read_file(path)
            .await?
            .map(|b| String::from_utf8_lossy(&b).into_owned()))
    }

    /// Writes UTF-8 text to a file, creating its parent directories.
    async fn write_text(&self, path: &str, text: &str) -> Result<(), SandboxError> {
        self.write_file(path, text.as_bytes()).await
    }

    /// Every path under `/workspace` with its kind, mode, size and mtime
    /// (the default runs `find -printf`).
    async fn list_workspace(&self) -> Result<Listing, SandboxError> {
        workspace::list_with_shell(self).await
    }

    /// An uncompressed tar of the named paths (relative to `/workspace`, no
    /// recursion into directories); a path that vanished is left out. The
    /// default runs `tar cf -T`.
    async fn export_paths(&self, paths: &[String]) -> Result<Vec<u8>, SandboxError> {
        workspace::export_with_shell(self, paths).await
    }

    /// Unpacks an uncompressed tar into `/workspace` (the default runs `tar xf`).
    async fn import_workspace(&self, tar: &[u8]) -> Result<(), SandboxError> {
        workspace::import_with_shell(self, tar).await
    }

    /// Marks the workspace as it is now as the base of the next
    /// [`Sandbox::workspace_changes`] (the sync calls it after a restore).
    /// The default touches a mark file whose mtime the next call compares
    /// change times with.
    async fn mark_workspace(&self) -> Result<(), SandboxError> {
        workspace::mark_with_shell(self).await
    }

    /// What changed under `/workspace` since the last mark (or since the
    /// sandbox was created), with the content of every file that may have
    /// been written; each call moves the mark to now. The default lists
    /// everything and tars the files whose status changed since the mark, in
    /// one script. `None` means the sandbox cannot say: the caller lists
    /// everything with [`Sandbox::list_workspace`] and compares.
    async fn workspace_changes(&self) -> Result<Option<WorkspaceChanges>, SandboxError> {
        workspace::changes_with_shell(self).await.map(Some)
    }
}

/// What a backend needs to create a sandbox for a session.
#[derive(Clone, Debug, Default)]
pub struct SandboxSpec {
    /// The session the sandbox belongs to (label `sandkeep.session` on docker).
    pub session_id: String,
    /// The agent the session belongs to (label `sandkeep.agent` on docker).
    pub agent: String,
    /// Extra environment for every run.
    pub env: Vec<(String, String)>,
}

/// A way to create sandboxes: the local backend or a docker daemon.
#[async_trait::async_trait]
pub trait Backend: Send + Sync {
    /// Which backend this is.
    fn kind(&self) -> BackendKind;

    /// Creates a fresh sandbox (an empty `/workspace`).
    async fn create(&self, spec: &SandboxSpec) -> Result<Arc<dyn Sandbox>, SandboxError>;

    /// The network egress its sandboxes go out through, if it has one
    /// (the runtime files its denials in the sessions' event logs).
    #[cfg(feature = "net")]
    fn egress(&self) -> Option<sandkeep_net::Egress> {
        None
    }

    /// Releases what the backend holds besides its sandboxes (the docker
    /// backend's warm pool); sandboxes already created are not touched.
    /// Called once when the process shuts down; nothing by default.
    async fn close(&self) {}
}
