//! Sessions: one agent's stretch of work in one sandbox.
//!
//! A session gets a unique id, creates its sandbox on first use and emits the
//! hook events in order: `session.started`, then per turn `turn.started` ...
//! the turn's runs ... `session.waiting` ([`Session::park`]), and finally
//! `session.completed` ([`Session::complete`], which then stops the sandbox)
//! or `session.failed` ([`Session::fail`]). Every event and run is recorded in
//! the session's event log.

use std::sync::Arc;
use std::time::Instant;

use serde_json::json;

use crate::eventlog::{self, EventLog, Stream};
use crate::hooks::{HookContext, HookEvent, HookFailure, RunInfo, SessionState};
use crate::runtime::{AgentPaths, Inner};
use crate::sandbox::{RunRequest, RunResult, Sandbox, SandboxError, SandboxSpec, ShellSnapshot};

/// Why a session operation failed.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The sandbox could not be created or failed.
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
    /// The session already completed or failed.
    #[error("session {0} has ended")]
    Ended(String),
    /// A hook failed in a way that loses work, e.g. the workspace was not
    /// kept at a park; the last kept generation stays the head.
    #[error("{hook}: {error}")]
    Hook {
        /// The hook's name.
        hook: String,
        /// What it reported.
        error: String,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// No sandbox yet.
    New,
    /// Started, no turn open (before the first turn or after a park).
    Idle,
    /// A turn is open.
    InTurn,
    /// Completed or failed.
    Ended,
}

/// One session of an agent (or an ephemeral one). Methods take `&mut self`:
/// a session does one thing at a time.
///
/// ```
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// use sandkeep::Runtime;
///
/// let data = tempfile::tempdir().unwrap();
/// let runtime = Runtime::builder().data_dir(data.path()).build();
/// let mut session = runtime.session("demo").unwrap();
///
/// session.begin_turn().await.unwrap(); // creates the sandbox: session.started, turn.started
/// let out = session.run_script("echo hi > a.txt; cat a.txt").await.unwrap();
/// assert_eq!(out.stdout_text(), "hi\n");
/// session.park().await.unwrap(); // session.waiting: the workspace is kept
///
/// session.run_script("echo again >> a.txt").await.unwrap(); // opens turn 2
/// assert_eq!(session.turn(), 2);
/// session.complete().await.unwrap(); // session.completed, sandbox stopped
/// # });
/// ```
pub struct Session {
    rt: Arc<Inner>,
    id: String,
    paths: Option<AgentPaths>,
    sandbox: Option<Arc<dyn Sandbox>>,
    state: State,
    turn: u64,
    runs: u64,
    events: Option<EventLog>,
    hook_failures: Vec<HookFailure>,
    /// What hooks keep for this session between its events.
    hook_state: Arc<SessionState>,
    /// The shell state the sandbox starts from once created (a resumed
    /// session's).
    resume_shell: Option<ShellSnapshot>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("id", &self.id)
            .field("agent", &self.agent())
            .field("state", &self.state)
            .field("turn", &self.turn)
            .finish_non_exhaustive()
    }
}

/// A new session id: UTC date and time plus a random suffix, e.g.
/// `20261203-031500-4f3a9c` (sortable, safe in file names).
pub fn new_session_id() -> String {
    format!(
        "{}-{:06x}",
        crate::timestamp::now_compact(),
        crate::ids::cheap_random_u32() & 0xff_ffff
    )
}

impl Session {
    pub(crate) fn new(rt: Arc<Inner>, paths: Option<AgentPaths>) -> Session {
        Session {
            rt,
            id: new_session_id(),
            paths,
            sandbox: None,
            state: State::New,
            turn: 0,
            runs: 0,
            events: None,
            hook_failures: Vec::new(),
            hook_state: Arc::default(),
            resume_shell: None,
        }
    }

    /// Makes `snapshot` the shell state the session's runs start from: at
    /// once when the sandbox exists, else when [`Session::start`] creates
    /// it. A backend that keeps no shell state refuses.
    pub async fn restore_shell_state(
        &mut self,
        snapshot: ShellSnapshot,
    ) -> Result<(), SessionError> {
        match &self.sandbox {
            Some(sandbox) => Ok(sandbox.restore_shell_state(&snapshot).await?),
            None => {
                self.resume_shell = Some(snapshot);
                Ok(())
            }
        }
    }

    /// The shell state the session's runs have reached (cwd, variables,
    /// functions, aliases, options, umask), as data; `None` before any run
    /// or on a backend that keeps none.
    pub async fn shell_state(&self) -> Result<Option<ShellSnapshot>, SessionError> {
        match &self.sandbox {
            Some(sandbox) => Ok(sandbox.shell_state().await?),
            None => Ok(self.resume_shell.clone()),
        }
    }

    /// Completes the session ([`Session::complete`]) and returns the shell
    /// state it had reached, for the session that resumes it. A state that
    /// cannot be read is logged and not carried; the completion goes on.
    pub async fn complete_keeping_shell(self) -> Result<Option<ShellSnapshot>, SessionError> {
        let shell = match self.shell_state().await {
            Ok(shell) => shell,
            Err(e) => {
                tracing::warn!("session {}: shell state not kept: {e}", self.id);
                None
            }
        };
        self.complete().await?;
        Ok(shell)
    }

    /// The session's unique id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The agent, or `None` for an ephemeral session.
    pub fn agent(&self) -> Option<&str> {
        self.paths.as_ref().map(|p| p.agent.as_str())
    }

    /// Where the agent's state lives (`None` for an ephemeral session).
    pub fn paths(&self) -> Option<&AgentPaths> {
        self.paths.as_ref()
    }

    /// The current turn number (0 before the first turn).
    pub fn turn(&self) -> u64 {
        self.turn
    }

    /// The sandbox, once created.
    pub fn sandbox(&self) -> Option<&Arc<dyn Sandbox>> {
        self.sandbox.as_ref()
    }

    /// The event log, when the session keeps one (agent sessions, once started).
    pub fn event_log(&self) -> Option<&EventLog> {
        self.events.as_ref()
    }

    /// Hooks that failed so far (each was also logged).
    pub fn hook_failures(&self) -> &[HookFailure] {
        &self.hook_failures
    }

    /// True once the session completed or failed.
    pub fn has_ended(&self) -> bool {
        self.state == State::Ended
    }

    fn context(
        &self,
        event: HookEvent,
        error: Option<String>,
        run: Option<RunInfo>,
    ) -> HookContext {
        HookContext {
            event,
            session_id: self.id.clone(),
            agent: self.agent().map(str::to_string),
            turn: self.turn,
            sandbox: self.sandbox.clone(),
            paths: self.paths.clone(),
            error,
            run,
            state: self.hook_state.clone(),
            kept: Default::default(),
        }
    }

    /// Records a session event in the event log and runs its hooks.
    async fn emit(&mut self, event: HookEvent, error: Option<String>) -> Result<(), SessionError> {
        if let Some(log) = &self.events {
            let mut fields = json!({ "turn": self.turn });
            if let Some(e) = &error {
                fields["error"] = json!(e);
            }
            log.record(event.name(), fields);
        }
        self.run_hooks(self.context(event, error, None)).await
    }

    /// Runs the hooks for `ctx`'s event, logs what they kept and how they
    /// failed; a critical failure is the operation's error.
    async fn run_hooks(&mut self, ctx: HookContext) -> Result<(), SessionError> {
        let failures = self.rt.hooks.emit(&ctx).await;
        if let Some(log) = &self.events {
            if let Some(kept) = ctx.kept() {
                log.record(
                    "workspace.kept",
                    json!({
                        "generation": kept.id.as_str(),
                        "created": kept.created,
                        "merged": kept.merged,
                        "added": kept.stats.added,
                        "modified": kept.stats.modified,
                        "deleted": kept.stats.deleted,
                        "bytes_new": kept.stats.bytes_new,
                    }),
                );
            }
            for f in &failures {
                log.record(
                    "hook.failed",
                    json!({ "hook": f.hook, "on": f.event.name(), "error": f.error }),
                );
            }
        }
        let critical = failures
            .iter()
            .find(|f| f.critical)
            .map(|f| SessionError::Hook {
                hook: f.hook.clone(),
                error: f.error.clone(),
            });
        self.hook_failures.extend(failures);
        critical.map_or(Ok(()), Err)
    }

    /// Creates the sandbox and runs the `session.started` hooks (restore).
    /// Does nothing if already started. A sandbox that cannot be created ends
    /// the session (`session.failed`).
    pub async fn start(&mut self) -> Result<(), SessionError> {
        match self.state {
            State::New => {}
            State::Ended => return Err(SessionError::Ended(self.id.clone())),
            State::Idle | State::InTurn => return Ok(()),
        }
        let spec = SandboxSpec {
            session_id: self.id.clone(),
            agent: self.agent().unwrap_or_default().to_string(),
            env: self.rt.env.clone(),
        };
        if self.rt.event_log
            && let Some(paths) = &self.paths
        {
            let path = paths.event_log(&self.id);
            match EventLog::open(&path) {
                Ok(log) => {
                    #[cfg(feature = "net")]
                    self.rt.net_logs.register(&self.id, log.clone());
                    self.events = Some(log);
                }
                Err(e) => tracing::warn!("event log {} not opened: {e}", path.display()),
            }
        }
        match self.rt.backend.create(&spec).await {
            Ok(sandbox) => {
                if let Some(log) = &self.events {
                    log.record(
                        "session.created",
                        json!({
                            "session": self.id,
                            "agent": self.agent(),
                            "backend": sandbox.backend().to_string(),
                            "sandbox": sandbox.id(),
                        }),
                    );
                }
                if let Some(shell) = self.resume_shell.take()
                    && let Err(e) = sandbox.restore_shell_state(&shell).await
                {
                    tracing::warn!("session {}: shell state not restored: {e}", self.id);
                }
                self.sandbox = Some(sandbox);
                self.state = State::Idle;
                self.emit(HookEvent::SessionStarted, None).await
            }
            Err(e) => {
                self.state = State::Ended;
                let _ = self
                    .emit(HookEvent::SessionFailed, Some(e.to_string()))
                    .await;
                Err(e.into())
            }
        }
    }

    /// Opens a new turn (starting the session first if needed) and runs the
    /// `turn.started` hooks. Returns the turn number. An open turn is parked
    /// first.
    pub async fn begin_turn(&mut self) -> Result<u64, SessionError> {
        if self.state == State::InTurn {
            self.park().await?;
        }
        self.start().await?;
        self.turn += 1;
        self.state = State::InTurn;
        self.emit(HookEvent::TurnStarted, None).await?;
        Ok(self.turn)
    }

    /// Runs a command in the sandbox (`bash -c`), opening a turn if none is
    /// open. The output is streamed to `request.sink` and recorded as deltas
    /// in the event log.
    pub async fn run(&mut self, mut request: RunRequest) -> Result<RunResult, SessionError> {
        if self.state != State::InTurn {
            self.begin_turn().await?;
        }
        let sandbox = self
            .sandbox
            .clone()
            .ok_or_else(|| SessionError::Ended(self.id.clone()))?;
        self.runs += 1;
        let run = self.runs;
        let mut info = RunInfo {
            number: run,
            command: request.command.clone(),
            ..RunInfo::default()
        };
        if let Some(log) = &self.events {
            log.record(
                "run.started",
                json!({ "turn": self.turn, "run": run, "command": request.command }),
            );
            request.sink = Some(log.sink(run, request.sink.take()));
        }
        let ctx = self.context(HookEvent::RunStarted, None, Some(info.clone()));
        if let Err(refused) = self.run_hooks(ctx).await {
            if let Some(log) = &self.events {
                log.record(
                    "run.failed",
                    json!({ "turn": self.turn, "run": run, "error": refused.to_string() }),
                );
            }
            info.error = Some(refused.to_string());
            let ctx = self.context(HookEvent::RunFinished, None, Some(info));
            let _ = self.run_hooks(ctx).await;
            return Err(refused);
        }
        // The run's own time, without the hooks around it (as the event log
        // reported it before hooks saw runs).
        let started = Instant::now();
        let result = sandbox.run(request).await;
        info.duration = Some(started.elapsed());
        match &result {
            Ok(r) => {
                info.exit_code = Some(r.exit_code);
                info.timed_out = r.timed_out;
            }
            Err(e) => info.error = Some(e.to_string()),
        }
        if let Some(log) = &self.events {
            match &result {
                Ok(r) => log.record(
                    "run.finished",
                    json!({
                        "turn": self.turn,
                        "run": run,
                        "exitCode": r.exit_code,
                        "stdoutBytes": r.stdout.len(),
                        "stderrBytes": r.stderr.len(),
                        "truncated": r.truncated,
                        "timedOut": r.timed_out,
                        "durationMs": started.elapsed().as_millis() as u64,
                        "excerpt": { "stdout": eventlog::excerpt(&r.stdout), "stderr": eventlog::excerpt(&r.stderr) },
                    }),
                ),
                Err(e) => log.record("run.failed", json!({ "turn": self.turn, "run": run, "error": e.to_string() })),
            }
        }
        let ctx = self.context(HookEvent::RunFinished, None, Some(info));
        let finished = self.run_hooks(ctx).await;
        let result = result?;
        finished.map(|()| result)
    }

    /// Runs a script with default options (see [`Session::run`]).
    pub async fn run_script(&mut self, script: &str) -> Result<RunResult, SessionError> {
        self.run(RunRequest::new(script)).await
    }

    /// Records a chunk of the agent's streamed reply for this turn in the
    /// event log (as a delta: only the new text).
    pub fn reply_delta(&mut self, text: &str) {
        if let Some(log) = &self.events {
            log.delta(Stream::Reply, self.turn, text.as_bytes());
        }
    }

    /// Parks the open turn: runs the `session.waiting` hooks (the workspace is
    /// snapshotted). Does nothing when no turn is open.
    pub async fn park(&mut self) -> Result<(), SessionError> {
        match self.state {
            State::InTurn => {}
            State::Ended => return Err(SessionError::Ended(self.id.clone())),
            State::New | State::Idle => return Ok(()),
        }
        self.state = State::Idle;
        self.emit(HookEvent::SessionWaiting, None).await
    }

    /// Completes the session: runs the `session.completed` hooks (the
    /// workspace is snapshotted), then stops the sandbox. A session that never
    /// started completes without events.
    pub async fn complete(mut self) -> Result<(), SessionError> {
        match self.state {
            State::Ended => return Err(SessionError::Ended(self.id.clone())),
            State::New => {
                self.state = State::Ended;
                return Ok(());
            }
            State::Idle | State::InTurn => {}
        }
        let hooks = self.emit(HookEvent::SessionCompleted, None).await;
        self.state = State::Ended;
        self.stop_sandbox().await?;
        hooks
    }

    /// Ends the session with an error: runs the `session.failed` hooks (no
    /// snapshot is taken), then stops the sandbox.
    pub async fn fail(mut self, error: impl Into<String>) -> Result<(), SessionError> {
        if self.state == State::Ended {
            return Err(SessionError::Ended(self.id.clone()));
        }
        let _ = self
            .emit(HookEvent::SessionFailed, Some(error.into()))
            .await;
        self.state = State::Ended;
        self.stop_sandbox().await
    }

    async fn stop_sandbox(&mut self) -> Result<(), SessionError> {
        if let Some(log) = &self.events {
            log.flush();
        }
        if let Some(sandbox) = self.sandbox.take() {
            sandbox.stop().await?;
        }
        Ok(())
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        #[cfg(feature = "net")]
        self.rt.net_logs.unregister(&self.id);
        // Dropped without complete/fail: nothing is kept, but the sandbox (a
        // container on docker) must not outlive the session.
        if let Some(sandbox) = self.sandbox.take() {
            tracing::warn!(
                "session {} dropped without complete(): nothing kept, stopping its sandbox",
                self.id
            );
            if let Ok(handle) = tokio::runtime::Handle::try_current() {
                handle.spawn(async move {
                    let _ = sandbox.stop().await;
                });
            }
        }
    }
}
