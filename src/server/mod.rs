//! `sandkeep serve`: an authenticated HTTP service (axum on tokio) that lets
//! many agents drive sandboxes over REST under `/v1` (JSON bodies, runs also
//! streamed as server-sent events) and over MCP Streamable HTTP at
//! `/mcp/{agent}`.
//!
//! Sessions park when idle (workspace kept, sandbox released) and resume
//! transparently on their next call; a SIGTERM parks every session before
//! the process exits. Callers present bearer tokens from a token file
//! ([`auth`]); the table of sessions is in [`sessions`], the routes in
//! [`routes`], the OpenAPI document in [`openapi`].
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! use sandkeep::{ServeConfig, Server};
//!
//! let runtime = sandkeep::Runtime::builder().data_dir("/tmp/data").build();
//! let server = Server::new(runtime, ServeConfig::default());
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//! let report = server.serve(listener, std::future::pending()).await?;
//! assert!(report.all_kept());
//! # Ok(())
//! # }
//! ```

pub mod auth;
mod guard;
pub(crate) mod mcp_http;
pub mod openapi;
pub mod parked;
mod routes;
pub mod sessions;

use std::sync::Arc;
use std::time::Duration;

use crate::runtime::Runtime;
use auth::Tokens;
use sessions::Table;

/// How the server behaves.
#[derive(Clone, Debug)]
pub struct ServeConfig {
    /// Who may call; `None` lets every caller touch every agent (only
    /// allowed on a loopback address, which the CLI checks).
    pub tokens: Option<Tokens>,
    /// A session idle this long is parked (default 5 minutes).
    pub idle: Duration,
    /// A session older than this is completed and forgotten (default 24 h).
    pub max_session: Duration,
    /// Open sessions on this server at most (default 1,000).
    pub max_sessions: usize,
    /// Open sessions per token at most (default 100).
    pub max_sessions_per_token: usize,
    /// Largest request body, e.g. a file upload (default 64 MiB).
    pub max_body: usize,
    /// A live session that ran something is kept as a generation at least
    /// this often, its sandbox left running, so a worker that dies loses at
    /// most this much work (default 30 s; `None`: only idle parks keep).
    pub checkpoint: Option<Duration>,
    /// How long a shutdown keeps retrying parks that failed before it gives
    /// up on them (default 20 s).
    pub park_grace: Duration,
    /// Variables never written to the store with a parked session's shell
    /// state (`--no-persist-var`, e.g. `AWS_*`; default none).
    pub no_persist: parked::NoPersist,
}

impl Default for ServeConfig {
    fn default() -> Self {
        ServeConfig {
            tokens: None,
            idle: Duration::from_secs(300),
            max_session: Duration::from_secs(86_400),
            max_sessions: 1000,
            max_sessions_per_token: 100,
            max_body: 64 << 20,
            checkpoint: Some(Duration::from_secs(30)),
            park_grace: Duration::from_secs(20),
            no_persist: parked::NoPersist::default(),
        }
    }
}

pub(crate) struct State {
    pub(crate) runtime: Runtime,
    pub(crate) config: ServeConfig,
    pub(crate) sessions: Table,
    pub(crate) mcp: mcp_http::McpServices,
}

impl State {
    /// Parks a REST session (see [`sessions::Live::park`]) and, when that
    /// released a sandbox, writes its record in the agent's store, so any
    /// worker sharing the store can resume it with its shell state. A
    /// record that cannot be written is logged: the workspace is kept, the
    /// shell state only in this worker.
    pub(crate) async fn park_slot(
        &self,
        slot: &sessions::Slot,
        live: &mut sessions::Live,
    ) -> Result<(), crate::session::SessionError> {
        let released = live.session.is_some();
        live.park().await?;
        if released
            && let Err(e) = parked::write(
                &self.runtime,
                &slot.id,
                &slot.agent,
                slot.token,
                live.shell.clone(),
                &self.config.no_persist,
            )
            .await
        {
            tracing::warn!("session {}: its record was not written: {e}", slot.id);
        }
        Ok(())
    }

    /// Forgets a completed session: its record goes from the store too.
    pub(crate) async fn forget_slot(&self, slot: &sessions::Slot) {
        self.sessions.remove(&slot.id);
        if let Err(e) = parked::remove(&self.runtime, &slot.id, &slot.agent).await {
            tracing::warn!("session {}: its record was not removed: {e}", slot.id);
        }
    }
}

/// The HTTP service.
#[derive(Clone)]
pub struct Server {
    state: Arc<State>,
}

impl Server {
    /// A server over `runtime`'s backend and stores.
    pub fn new(runtime: Runtime, config: ServeConfig) -> Server {
        Server {
            state: Arc::new(State {
                runtime,
                config,
                sessions: Table::default(),
                mcp: mcp_http::McpServices::default(),
            }),
        }
    }

    /// The axum router (every route, auth included).
    pub fn router(&self) -> axum::Router {
        routes::router(self.state.clone())
    }

    /// How many sessions are open.
    pub fn session_count(&self) -> usize {
        self.state.sessions.len()
    }

    /// Serves on `listener` until `shutdown` resolves, parking idle sessions,
    /// checkpointing busy ones, completing expired ones and uploading spooled
    /// parks in the background; then stops accepting, lets calls in flight
    /// finish and parks every session. What the shutdown could not keep in
    /// the store is in the report.
    ///
    /// # Errors
    ///
    /// The listener's I/O error.
    pub async fn serve(
        self,
        listener: tokio::net::TcpListener,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<ShutdownReport> {
        let reaper = tokio::spawn(reap(self.state.clone()));
        let result = axum::serve(listener, self.router())
            .with_graceful_shutdown(shutdown)
            .await;
        reaper.abort();
        let report = self.park_all().await;
        // The docker pool's waiting containers go too.
        self.state.runtime.backend().close().await;
        result.map(|()| report)
    }

    /// Parks every session (their workspaces kept, sandboxes released),
    /// retrying a failed park with backoff for up to
    /// [`ServeConfig::park_grace`], then uploads what is spooled; the
    /// sessions stay resumable while this server lives.
    pub async fn park_all(&self) -> ShutdownReport {
        let slots = self.state.sessions.all();
        let grace = self.state.config.park_grace;
        let parks = slots.into_iter().map(|slot| async move {
            if let Some(link) = &slot.mcp {
                // Every tool call kept its work: completing releases the
                // sandbox.
                if let Some(cell) = link.session.get()
                    && let Some(session) = cell.lock().await.take()
                    && let Err(e) = session.complete().await
                {
                    tracing::warn!("MCP session {}: completing at shutdown: {e}", slot.id);
                }
                return None;
            }
            let mut live = slot.live.lock().await;
            let deadline = tokio::time::Instant::now() + grace;
            let mut wait = Duration::from_millis(250);
            loop {
                match self.state.park_slot(&slot, &mut live).await {
                    Ok(()) => return None,
                    Err(e) if tokio::time::Instant::now() + wait >= deadline => {
                        tracing::error!("session {}: park at shutdown failed: {e}", slot.id);
                        return Some((slot.agent.clone(), slot.id.clone(), e.to_string()));
                    }
                    Err(e) => {
                        tracing::warn!(
                            "session {}: park at shutdown failed, retrying in {wait:?}: {e}",
                            slot.id
                        );
                        tokio::time::sleep(wait).await;
                        wait = (wait * 2).min(Duration::from_secs(4));
                    }
                }
            }
        });
        let lost = futures_util::future::join_all(parks).await;
        self.state.mcp.close_all().await;
        let runtime = self.state.runtime.clone();
        let spools = tokio::task::spawn_blocking(move || runtime.upload_spools())
            .await
            .unwrap_or_default();
        ShutdownReport {
            not_kept: lost.into_iter().flatten().collect(),
            spooled: spools.pending,
        }
    }
}

/// What a shutdown could not keep in the store.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ShutdownReport {
    /// Sessions whose park failed and could not be spooled either: agent,
    /// session, why. Their unkept work is lost with the process.
    pub not_kept: Vec<(String, String, String)>,
    /// Parks kept only on this host (`DATA/agents/NAME/spool`), uploaded at
    /// this worker's next start: agent, session, why they are still there.
    pub spooled: Vec<(String, String, String)>,
}

impl ShutdownReport {
    /// True when every session's workspace is in the store.
    pub fn all_kept(&self) -> bool {
        self.not_kept.is_empty() && self.spooled.is_empty()
    }
}

/// How often spooled parks are offered to the store again.
const SPOOL_RETRY: Duration = Duration::from_secs(30);

/// Parks sessions idle past `--idle`, checkpoints live ones with work older
/// than `--checkpoint`, completes those older than `--max-session`
/// (checking a few times per idle period), and uploads spooled parks once
/// at start and then every [`SPOOL_RETRY`].
///
/// A session whose park fails is never dropped: it keeps its sandbox (or
/// its spooled park) and is tried again at a later tick.
async fn reap(state: Arc<State>) {
    let mut tick = state.config.idle / 4;
    if let Some(c) = state.config.checkpoint {
        tick = tick.min(c / 2);
    }
    let tick = tick.clamp(Duration::from_millis(100), Duration::from_secs(5));
    let mut spools_due = tokio::time::Instant::now();
    loop {
        if tokio::time::Instant::now() >= spools_due {
            let runtime = state.runtime.clone();
            if let Ok(report) = tokio::task::spawn_blocking(move || runtime.upload_spools()).await {
                for (agent, session, why) in report.pending {
                    tracing::warn!(
                        "agent {agent}: session {session}'s park is still spooled: {why}"
                    );
                }
            }
            spools_due = tokio::time::Instant::now() + SPOOL_RETRY;
        }
        tokio::time::sleep(tick).await;
        for slot in state.sessions.all() {
            keep_or_park(&state, &slot).await;
        }
    }
}

/// One MCP session's turn of the reaper: gone when the client closed it or
/// it reached `--max-session` (completed), parked when idle.
async fn keep_or_park_mcp(state: &State, slot: &sessions::Slot, link: &mcp_http::McpLink) {
    let expired = slot.created.elapsed() >= state.config.max_session;
    if expired || !link.alive().await {
        if link.session_id.get().is_none() && !expired {
            // Still being initialized.
            return;
        }
        match link.park().await {
            Ok(true) => {}
            Ok(false) => return,
            Err(e) => {
                tracing::error!("MCP session {}: completing failed: {e}", slot.id);
                return;
            }
        }
        link.close().await;
        if let Some(id) = link.session_id.get() {
            state.mcp.forget(id);
        }
        state.sessions.remove(&slot.id);
        tracing::info!("MCP session {} ended", slot.id);
        return;
    }
    if slot.idle_for() >= state.config.idle {
        match link.park().await {
            Ok(true) => {}
            Ok(false) => {}
            Err(e) => tracing::error!("MCP session {}: idle park failed: {e}", slot.id),
        }
    }
}

/// One session's turn of the reaper.
async fn keep_or_park(state: &State, slot: &sessions::Slot) {
    if let Some(link) = &slot.mcp {
        return keep_or_park_mcp(state, slot, link).await;
    }
    let expired = slot.created.elapsed() >= state.config.max_session;
    let idle = slot.idle_for() >= state.config.idle;
    // A session busy with a call is not idle, and is checkpointed after it.
    let Ok(mut live) = slot.live.try_lock() else {
        return;
    };
    if !expired && !idle {
        if let Some(every) = state.config.checkpoint
            && live.unkept_for(every)
        {
            match live.checkpoint().await {
                Ok(()) => tracing::info!("session {}: checkpoint kept", slot.id),
                Err(e) => tracing::error!("session {}: checkpoint failed: {e}", slot.id),
            }
        }
        return;
    }
    if !expired && live.session.is_none() {
        return;
    }
    match state.park_slot(slot, &mut live).await {
        Ok(()) if expired => {
            state.forget_slot(slot).await;
            tracing::info!("session {} reached --max-session: completed", slot.id)
        }
        Ok(()) => tracing::info!("session {} idle: parked", slot.id),
        Err(e) => tracing::error!(
            "session {}: park failed, its sandbox is kept and the park retried: {e}",
            slot.id
        ),
    }
}
