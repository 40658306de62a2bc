//! MCP over Streamable HTTP at `/mcp/{agent}`: the same server and tools as
//! `sandkeep mcp` ([`crate::mcp::McpServer`]), one per MCP session, so one MCP
//! session is one sandkeep session of the agent (every tool call a turn,
//! parked at its end). rmcp's transport does the protocol; this keeps one
//! transport service per agent, and the agent's `subscriptions/listen`
//! streams, which every server of the agent tells about the files it
//! changes (the 2026-07-28 protocol gives each request a server of its own).
//!
//! An MCP session is a session of this server like a REST one: it takes a
//! place in the table of sessions ([`super::sessions::Table`]), so it counts
//! against `--max-sessions` and `--max-sessions-per-token` (a new one past
//! them gets 429), its idle clock runs between requests, the reaper parks
//! it when idle (its sandbox released, the next call restoring the
//! workspace) and ends it at `--max-session`; a session the client closed
//! leaves the table at the next turn of the reaper.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use rmcp::transport::streamable_http_server::session::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use super::sessions::Slot;
use crate::mcp::{Listeners, McpServer};
use crate::runtime::Runtime;
use crate::session::Session;

type Service = StreamableHttpService<McpServer, LocalSessionManager>;

/// What ties a slot of the session table to the MCP session under it.
pub struct McpLink {
    /// rmcp's session id, once the initialize made one.
    pub(crate) session_id: OnceLock<String>,
    /// The MCP server's sandkeep session (`None` while parked).
    pub(crate) session: OnceLock<Arc<tokio::sync::Mutex<Option<Session>>>>,
    /// Where a park leaves the session's shell state for the next call.
    pub(crate) shell: OnceLock<crate::mcp::ShellCell>,
    manager: Arc<LocalSessionManager>,
}

impl McpLink {
    /// True while rmcp still serves the session (the client did not close
    /// it).
    pub(crate) async fn alive(&self) -> bool {
        match self.session_id.get() {
            Some(id) => self.manager.sessions.read().await.contains_key(id.as_str()),
            None => false,
        }
    }

    /// Releases the sandbox, keeping the workspace (the session's next call
    /// restores it). False when a call holds the session now.
    pub(crate) async fn park(&self) -> Result<bool, crate::session::SessionError> {
        let Some(cell) = self.session.get() else {
            return Ok(true);
        };
        let Ok(mut guard) = cell.try_lock() else {
            return Ok(false);
        };
        match guard.take() {
            Some(session) => {
                let shell = session.complete_keeping_shell().await?;
                if let Some(cell) = self.shell.get() {
                    *cell.lock().unwrap_or_else(|p| p.into_inner()) = shell;
                }
                Ok(true)
            }
            None => Ok(true),
        }
    }

    /// Ends the MCP session in rmcp (the client's next request gets 404).
    pub(crate) async fn close(&self) {
        if let Some(id) = self.session_id.get() {
            let _ = self.manager.close_session(&id.as_str().into()).await;
        }
    }
}

tokio::task_local! {
    /// The link of the slot reserved for the request being handled, for the
    /// service factory (which rmcp calls inside that request's handling when
    /// it makes a new session).
    static NEW_LINK: Arc<McpLink>;
}

/// The MCP transport services, one per agent, made on first use.
#[derive(Default)]
pub(crate) struct McpServices {
    by_agent: Mutex<HashMap<String, (Service, Arc<LocalSessionManager>)>>,
    /// The table's slot of each MCP session, by rmcp's session id.
    by_session: Mutex<HashMap<String, Arc<Slot>>>,
    cancel: CancellationToken,
}

impl McpServices {
    /// The service of `agent` (whose name is already validated) and a link
    /// for a new session of it.
    pub(crate) fn for_agent(
        &self,
        runtime: &Runtime,
        agent: &str,
        check_host: bool,
    ) -> (Service, Arc<McpLink>) {
        let mut map = self.by_agent.lock().unwrap_or_else(|p| p.into_inner());
        let (service, manager) = map
            .entry(agent.to_string())
            .or_insert_with(|| {
                let runtime = runtime.clone();
                let name = agent.to_string();
                let listeners = Listeners::default();
                let mut config = StreamableHttpServerConfig::default()
                    .with_cancellation_token(self.cancel.child_token());
                if !check_host {
                    // Behind tokens the server may be reached by any host
                    // name; the Host check guards unauthenticated loopback.
                    config = config.disable_allowed_hosts();
                }
                let mut manager = LocalSessionManager::default();
                // The server's reaper parks idle sessions and ends old ones,
                // as for REST sessions; rmcp's own 5-minute expiry would end
                // a session the client still holds an id of.
                manager.session_config.keep_alive = None;
                let manager = Arc::new(manager);
                let service = StreamableHttpService::new(
                    move || {
                        let server = McpServer::new(runtime.clone(), name.clone())
                            .with_listeners(listeners.clone());
                        let _ = NEW_LINK.try_with(|link| {
                            let _ = link.shell.set(server.shell_cell());
                            link.session.set(server.session_cell())
                        });
                        Ok(server)
                    },
                    manager.clone(),
                    config,
                );
                (service, manager)
            })
            .clone();
        let link = Arc::new(McpLink {
            session_id: OnceLock::new(),
            session: OnceLock::new(),
            shell: OnceLock::new(),
            manager,
        });
        (service, link)
    }

    /// Handles `request` with `link` reachable by the service factory.
    pub(crate) async fn handle_new(
        &self,
        service: &Service,
        link: Arc<McpLink>,
        request: axum::extract::Request,
    ) -> axum::response::Response {
        let response = NEW_LINK.scope(link, service.handle(request)).await;
        response.map(axum::body::Body::new)
    }

    /// Remembers the slot of the MCP session `id`.
    pub(crate) fn register(&self, id: String, slot: Arc<Slot>) {
        self.sessions().insert(id, slot);
    }

    /// The slot of the MCP session `id`.
    pub(crate) fn slot(&self, id: &str) -> Option<Arc<Slot>> {
        self.sessions().get(id).cloned()
    }

    /// Forgets the MCP session `id`.
    pub(crate) fn forget(&self, id: &str) {
        self.sessions().remove(id);
    }

    fn sessions(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Slot>>> {
        self.by_session.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Ends every MCP session (each tool call already kept its work).
    pub(crate) async fn close_all(&self) {
        self.cancel.cancel();
    }
}
