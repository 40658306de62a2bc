//! Hooks: code that runs at session events and moves state across the
//! sandbox boundary (the workspace archive, the mindlog, your own).
//!
//! A session emits, in order: [`HookEvent::SessionStarted`], then per turn
//! [`HookEvent::TurnStarted`], for each of the turn's runs
//! [`HookEvent::RunStarted`] and [`HookEvent::RunFinished`], then
//! [`HookEvent::SessionWaiting`] (the turn parked), and finally
//! [`HookEvent::SessionCompleted`] (after which the sandbox is stopped) or
//! [`HookEvent::SessionFailed`].
//!
//! Hooks run in registration order. A hook that returns an error is logged
//! with its name and the event; the session and the other hooks go on.
//! Hooks talk to the sandbox only through the [`Sandbox`] trait, so the same
//! hook works on every backend. What a hook keeps between one session's
//! events lives in that session ([`HookContext::put_state`]), so it goes
//! when the session goes, however it ends.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

mod mindlog_copy;
mod workspace_sync;

pub use mindlog_copy::MindlogCopy;
pub use workspace_sync::WorkspaceSync;
pub(crate) use workspace_sync::{SpoolUploads, upload_spooled};

use crate::runtime::AgentPaths;
use crate::sandbox::{Sandbox, SandboxError};
use crate::store::{Change, ChangeStats, GenerationId};

/// A session event hooks react to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HookEvent {
    /// The session's sandbox was created (before the first turn).
    SessionStarted,
    /// A turn begins.
    TurnStarted,
    /// The turn parked: the session waits for the next turn.
    SessionWaiting,
    /// The session ended normally; its sandbox is stopped after the hooks ran.
    SessionCompleted,
    /// The session ended with an error ([`HookContext::error`]).
    SessionFailed,
    /// A run is about to start ([`HookContext::run`] holds its command). A
    /// [critical](HookError::critical) error refuses the run.
    RunStarted,
    /// A run ended ([`HookContext::run`] holds its status, or why it failed).
    RunFinished,
}

impl HookEvent {
    /// The event's name: `session.started`, `turn.started`, `session.waiting`,
    /// `session.completed`, `session.failed`, `run.started`, `run.finished`.
    pub fn name(self) -> &'static str {
        match self {
            HookEvent::SessionStarted => "session.started",
            HookEvent::TurnStarted => "turn.started",
            HookEvent::SessionWaiting => "session.waiting",
            HookEvent::SessionCompleted => "session.completed",
            HookEvent::SessionFailed => "session.failed",
            HookEvent::RunStarted => "run.started",
            HookEvent::RunFinished => "run.finished",
        }
    }
}

impl fmt::Display for HookEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a hook sees of the session at an event.
#[derive(Clone)]
pub struct HookContext {
    pub(crate) event: HookEvent,
    pub(crate) session_id: String,
    pub(crate) agent: Option<String>,
    pub(crate) turn: u64,
    pub(crate) sandbox: Option<Arc<dyn Sandbox>>,
    pub(crate) paths: Option<AgentPaths>,
    pub(crate) error: Option<String>,
    pub(crate) run: Option<RunInfo>,
    pub(crate) state: Arc<SessionState>,
    /// Filled by the workspace-sync hook when it parks; read by the hooks
    /// after it and by the session's event log.
    pub(crate) kept: Arc<Mutex<Option<KeptGeneration>>>,
}

/// One run as hooks see it at [`HookEvent::RunStarted`] and
/// [`HookEvent::RunFinished`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RunInfo {
    /// The run's number in the session, from 1.
    pub number: u64,
    /// The script, as for `bash -c`.
    pub command: String,
    /// The exit status, once the run finished.
    pub exit_code: Option<i32>,
    /// True when the run was stopped at its timeout.
    pub timed_out: bool,
    /// How long it took, once it finished.
    pub duration: Option<Duration>,
    /// Why the run could not be carried out (the sandbox failed, or a hook
    /// refused it), at [`HookEvent::RunFinished`].
    pub error: Option<String>,
}

/// Values hooks keep for one session between its events, one per type.
/// The session owns it: they are dropped with the session, whether it
/// completed, failed or was dropped.
#[derive(Default)]
pub(crate) struct SessionState {
    values: Mutex<HashMap<TypeId, Box<dyn Any + Send>>>,
}

/// What a park kept of the workspace: the generation and how it differs
/// from the tree at the session's previous park (or restore). Hooks that run
/// after the workspace-sync hook at `session.waiting` and
/// `session.completed` see it with [`HookContext::kept`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct KeptGeneration {
    /// The generation that is now the session's base (the head's, unless
    /// the session's restore failed).
    pub id: GenerationId,
    /// False when nothing changed, so no generation was made.
    pub created: bool,
    /// True when another session had moved the head and ours was merged.
    pub merged: bool,
    /// `+added ~modified -deleted` and the bytes new in the store.
    pub stats: ChangeStats,
    /// The changed paths (directories included), in path order.
    pub changes: Vec<Change>,
}

impl fmt::Debug for HookContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HookContext")
            .field("event", &self.event)
            .field("session_id", &self.session_id)
            .field("agent", &self.agent)
            .field("turn", &self.turn)
            .field(
                "sandbox",
                &self.sandbox.as_ref().map(|s| s.id().to_string()),
            )
            .finish_non_exhaustive()
    }
}

impl HookContext {
    /// The event being handled.
    pub fn event(&self) -> HookEvent {
        self.event
    }

    /// The session's unique id.
    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// The agent the session belongs to; `None` for an ephemeral session (one
    /// that keeps nothing: persistence hooks do nothing for it).
    pub fn agent(&self) -> Option<&str> {
        self.agent.as_deref()
    }

    /// The current turn, counting from 1 (0 before the first turn).
    pub fn turn(&self) -> u64 {
        self.turn
    }

    /// The session's sandbox. Absent only at [`HookEvent::SessionFailed`] when
    /// the sandbox could not be created.
    pub fn sandbox(&self) -> Result<&Arc<dyn Sandbox>, HookError> {
        self.sandbox
            .as_ref()
            .ok_or_else(|| HookError::msg("the session has no sandbox"))
    }

    /// Where the agent's state lives on the host (`None` for ephemeral sessions).
    pub fn paths(&self) -> Option<&AgentPaths> {
        self.paths.as_ref()
    }

    /// Why the session failed (only at [`HookEvent::SessionFailed`]).
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// What the workspace-sync hook kept at this event, once it has run
    /// (hooks registered after the default ones see it).
    pub fn kept(&self) -> Option<KeptGeneration> {
        self.kept.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The run, at [`HookEvent::RunStarted`] and [`HookEvent::RunFinished`].
    pub fn run(&self) -> Option<&RunInfo> {
        self.run.as_ref()
    }

    /// Takes the value of type `T` this session holds for hooks (put there
    /// at an earlier event with [`HookContext::put_state`]), leaving none.
    /// A hook keeps its per-session state this way, under a type of its
    /// own, instead of in a map keyed by session id that would outlive
    /// sessions dropped without an ending event.
    ///
    /// ```
    /// use sandkeep::{Hook, HookContext, HookResult};
    ///
    /// /// Counts each session's runs.
    /// struct RunCounter;
    /// struct Runs(u64);
    ///
    /// #[async_trait::async_trait]
    /// impl Hook for RunCounter {
    ///     fn name(&self) -> &str {
    ///         "run-counter"
    ///     }
    ///
    ///     async fn run_finished(&self, ctx: &HookContext) -> HookResult {
    ///         let Runs(n) = ctx.take_state::<Runs>().unwrap_or(Runs(0));
    ///         ctx.put_state(Runs(n + 1));
    ///         Ok(())
    ///     }
    /// }
    /// ```
    pub fn take_state<T: Send + 'static>(&self) -> Option<T> {
        let value = self
            .state
            .values
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&TypeId::of::<T>())?;
        value.downcast::<T>().ok().map(|b| *b)
    }

    /// Keeps `value` for this session until a hook takes it or the session
    /// goes (see [`HookContext::take_state`]); replaces an earlier `T`.
    pub fn put_state<T: Send + 'static>(&self, value: T) {
        self.state
            .values
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(TypeId::of::<T>(), Box::new(value));
    }

    pub(crate) fn set_kept(&self, kept: KeptGeneration) {
        *self.kept.lock().unwrap_or_else(|e| e.into_inner()) = Some(kept);
    }
}

/// An error a hook returns; logged with the hook's name. The other hooks
/// still run; a [critical](HookError::critical) one (work that was not kept)
/// also makes the session operation that emitted the event fail.
#[derive(Debug)]
pub struct HookError {
    error: Box<dyn std::error::Error + Send + Sync>,
    critical: bool,
}

impl HookError {
    /// An error with a plain message.
    pub fn msg(message: impl Into<String>) -> HookError {
        HookError {
            error: message.into().into(),
            critical: false,
        }
    }

    /// Wraps any error.
    pub fn new(error: impl std::error::Error + Send + Sync + 'static) -> HookError {
        HookError {
            error: Box::new(error),
            critical: false,
        }
    }

    /// An error the session must report as its own failure (a park whose
    /// snapshot was not kept).
    pub fn critical(message: impl Into<String>) -> HookError {
        HookError {
            error: message.into().into(),
            critical: true,
        }
    }

    /// True for [`HookError::critical`] errors.
    pub fn is_critical(&self) -> bool {
        self.critical
    }
}

impl fmt::Display for HookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.error, f)
    }
}

impl std::error::Error for HookError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.error.source()
    }
}

impl From<SandboxError> for HookError {
    fn from(e: SandboxError) -> HookError {
        HookError::new(e)
    }
}

impl From<std::io::Error> for HookError {
    fn from(e: std::io::Error) -> HookError {
        HookError::new(e)
    }
}

impl From<String> for HookError {
    fn from(e: String) -> HookError {
        HookError::msg(e)
    }
}

impl From<&str> for HookError {
    fn from(e: &str) -> HookError {
        HookError::msg(e)
    }
}

/// What a hook handler returns.
pub type HookResult = Result<(), HookError>;

/// Code that runs at session events. Every handler defaults to doing nothing:
/// implement the ones you need.
///
/// ```
/// use sandkeep::{Hook, HookContext, HookResult};
///
/// /// Leaves a note in every fresh sandbox.
/// struct Greeter;
///
/// #[async_trait::async_trait]
/// impl Hook for Greeter {
///     fn name(&self) -> &str {
///         "greeter"
///     }
///
///     async fn session_started(&self, ctx: &HookContext) -> HookResult {
///         ctx.sandbox()?.write_text("/workspace/HELLO", ctx.session_id()).await?;
///         Ok(())
///     }
/// }
/// ```
#[async_trait::async_trait]
pub trait Hook: Send + Sync {
    /// The hook's name, used in logs.
    fn name(&self) -> &str;

    /// The sandbox was created; runs before the first turn.
    async fn session_started(&self, _ctx: &HookContext) -> HookResult {
        Ok(())
    }

    /// A turn begins.
    async fn turn_started(&self, _ctx: &HookContext) -> HookResult {
        Ok(())
    }

    /// The turn parked; the session waits for the next one.
    async fn session_waiting(&self, _ctx: &HookContext) -> HookResult {
        Ok(())
    }

    /// The session completed; the sandbox is still up and is stopped afterwards.
    async fn session_completed(&self, _ctx: &HookContext) -> HookResult {
        Ok(())
    }

    /// The session failed ([`HookContext::error`] says why); the sandbox, if
    /// any, is stopped afterwards.
    async fn session_failed(&self, _ctx: &HookContext) -> HookResult {
        Ok(())
    }

    /// A run is about to start ([`HookContext::run`]); a critical error
    /// refuses it.
    async fn run_started(&self, _ctx: &HookContext) -> HookResult {
        Ok(())
    }

    /// A run ended ([`HookContext::run`] has its status).
    async fn run_finished(&self, _ctx: &HookContext) -> HookResult {
        Ok(())
    }
}

/// Hooks in registration order.
#[derive(Clone, Default)]
pub struct Hooks {
    hooks: Vec<Arc<dyn Hook>>,
}

impl fmt::Debug for Hooks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.hooks.iter().map(|h| h.name().to_string()))
            .finish()
    }
}

/// A hook that failed at an event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HookFailure {
    /// The hook's name.
    pub hook: String,
    /// The event it failed at.
    pub event: HookEvent,
    /// The error it returned.
    pub error: String,
    /// True when the session operation fails with it ([`HookError::critical`]).
    pub critical: bool,
}

impl Hooks {
    /// No hooks.
    pub fn new() -> Hooks {
        Hooks::default()
    }

    /// Adds a hook after the ones already registered.
    pub fn push(&mut self, hook: Arc<dyn Hook>) {
        self.hooks.push(hook);
    }

    /// The registered hooks, in order.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<dyn Hook>> {
        self.hooks.iter()
    }

    /// Number of hooks.
    pub fn len(&self) -> usize {
        self.hooks.len()
    }

    /// True when no hook is registered.
    pub fn is_empty(&self) -> bool {
        self.hooks.is_empty()
    }

    /// Runs every hook's handler for `ctx.event()` in order. Errors are logged
    /// (with the hook's name) and returned; they never stop the other hooks.
    pub async fn emit(&self, ctx: &HookContext) -> Vec<HookFailure> {
        let mut failures = Vec::new();
        for hook in &self.hooks {
            let result = match ctx.event {
                HookEvent::SessionStarted => hook.session_started(ctx).await,
                HookEvent::TurnStarted => hook.turn_started(ctx).await,
                HookEvent::SessionWaiting => hook.session_waiting(ctx).await,
                HookEvent::SessionCompleted => hook.session_completed(ctx).await,
                HookEvent::SessionFailed => hook.session_failed(ctx).await,
                HookEvent::RunStarted => hook.run_started(ctx).await,
                HookEvent::RunFinished => hook.run_finished(ctx).await,
            };
            if let Err(e) = result {
                tracing::warn!(
                    "hook {} failed at {} in session {}: {e}",
                    hook.name(),
                    ctx.event,
                    ctx.session_id
                );
                failures.push(HookFailure {
                    hook: hook.name().to_string(),
                    event: ctx.event,
                    error: e.to_string(),
                    critical: e.is_critical(),
                });
            }
        }
        failures
    }
}
