//! An MCP server over stdio (on the official Rust SDK, `rmcp`), so agent
//! clients can use a persistent sandbox as their bash tool.
//!
//! The server's life is one session of one agent: `initialize` starts it
//! (restoring the workspace), every tool call is a turn that ends parked
//! (so every call's work is snapshotted), and end of input or SIGTERM
//! completes it.

mod framing;
mod tools;
mod workspace;

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, InitializeRequestParams,
    InitializeResult, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use tokio::sync::Mutex;

use crate::runtime::Runtime;
use crate::session::Session;

/// The MCP server of one agent.
#[derive(Clone)]
pub struct McpServer {
    runtime: Runtime,
    agent: String,
    session: Arc<Mutex<Option<Session>>>,
}

impl McpServer {
    /// A server whose tools run in sessions of `agent` on `runtime`.
    pub fn new(runtime: Runtime, agent: impl Into<String>) -> McpServer {
        McpServer {
            runtime,
            agent: agent.into(),
            session: Arc::new(Mutex::new(None)),
        }
    }

    /// Serves MCP on stdin/stdout until end of input or `shutdown`, then
    /// completes the session (the final snapshot).
    pub async fn serve_stdio(
        self,
        shutdown: impl std::future::Future<Output = ()>,
    ) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        let session = self.session.clone();
        let (stdin, stdout) = rmcp::transport::stdio();
        let service = self.serve(framing::frame(stdin, stdout)).await?;
        let cancel = service.cancellation_token();
        tokio::select! {
            r = service.waiting() => { r?; }
            _ = shutdown => { cancel.cancel(); }
        }
        if let Some(session) = session.lock().await.take() {
            session.complete().await?;
        }
        Ok(())
    }

    /// The session, started (its workspace restored) if it has not started
    /// yet or was parked; held locked for the caller.
    async fn started(&self) -> Result<tokio::sync::MutexGuard<'_, Option<Session>>, String> {
        let mut guard = self.session.lock().await;
        if guard.is_none() {
            let mut session = self
                .runtime
                .session(&self.agent)
                .map_err(|e| e.to_string())?;
            session.start().await.map_err(|e| e.to_string())?;
            *guard = Some(session);
        }
        Ok(guard)
    }

    /// The cell holding this server's session, for the HTTP server to park
    /// it when idle (the next call starts it again, restoring the
    /// workspace) and to complete it at the end.
    #[cfg(feature = "server")]
    pub(crate) fn session_cell(&self) -> Arc<Mutex<Option<Session>>> {
        self.session.clone()
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("sandkeep", env!("CARGO_PKG_VERSION")))
            .with_instructions(format!(
                "A persistent Linux-like sandbox for agent {:?}: `bash` runs commands in \
                 /workspace (files persist across calls and sessions; shell variables and cwd \
                 do not), `read_file`/`write_file` access files, and `mindlog_*` keep notes \
                 that survive sessions.",
                self.agent
            ))
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, McpError> {
        context.peer.set_peer_info(request.clone());
        drop(
            self.started()
                .await
                .map_err(|e| McpError::internal_error(e, None))?,
        );
        self.negotiate_initialize(&request)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(tools::definitions()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        // Started and used under one lock: an idle park between the two
        // cannot take the session away.
        let mut guard = self
            .started()
            .await
            .map_err(|e| McpError::internal_error(e, None))?;
        let session = guard.as_mut().expect("started above");
        let args = request.arguments.unwrap_or_default();
        let result = tools::call(&self.runtime, session, &request.name, args).await?;
        Ok(result.into())
    }
}
