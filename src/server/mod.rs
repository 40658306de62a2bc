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
//! server.serve(listener, std::future::pending()).await
//! # }
//! ```

pub mod auth;
mod mcp_http;
pub mod openapi;
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
        }
    }
}

pub(crate) struct State {
    pub(crate) runtime: Runtime,
    pub(crate) config: ServeConfig,
    pub(crate) sessions: Table,
    pub(crate) mcp: mcp_http::McpServices,
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

    /// Serves on `listener` until `shutdown` resolves, parking idle sessions
    /// and completing expired ones in the background; then stops accepting,
    /// lets calls in flight finish and parks every session.
    pub async fn serve(
        self,
        listener: tokio::net::TcpListener,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        let reaper = tokio::spawn(reap(self.state.clone()));
        let result = axum::serve(listener, self.router())
            .with_graceful_shutdown(shutdown)
            .await;
        reaper.abort();
        self.park_all().await;
        // The docker pool's waiting containers go too.
        self.state.runtime.backend().close().await;
        result
    }

    /// Parks every session (their workspaces kept, sandboxes released); the
    /// sessions stay resumable while this server lives.
    pub async fn park_all(&self) {
        let slots = self.state.sessions.all();
        let parks = slots.into_iter().map(|slot| async move {
            let mut live = slot.live.lock().await;
            if let Err(e) = live.park().await {
                tracing::error!("session {}: park at shutdown failed: {e}", slot.id);
            }
        });
        futures_util::future::join_all(parks).await;
        self.state.mcp.close_all().await;
    }
}

/// Parks sessions idle past `--idle` and completes those older than
/// `--max-session`, checking a few times per idle period.
async fn reap(state: Arc<State>) {
    let tick = (state.config.idle / 4).clamp(Duration::from_millis(100), Duration::from_secs(5));
    loop {
        tokio::time::sleep(tick).await;
        for slot in state.sessions.all() {
            let expired = slot.created.elapsed() >= state.config.max_session;
            if !expired && slot.idle_for() < state.config.idle {
                continue;
            }
            // A session busy with a call is not idle.
            let Ok(mut live) = slot.live.try_lock() else {
                continue;
            };
            if expired {
                state.sessions.remove(&slot.id);
            } else if live.session.is_none() {
                continue;
            }
            match live.park().await {
                Ok(()) if expired => {
                    tracing::info!("session {} reached --max-session: completed", slot.id)
                }
                Ok(()) => tracing::info!("session {} idle: parked", slot.id),
                Err(e) => tracing::error!("session {}: idle park failed: {e}", slot.id),
            }
        }
    }
}
