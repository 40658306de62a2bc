//! MCP over Streamable HTTP at `/mcp/{agent}`: the same server and tools as
//! `sandkeep mcp` ([`crate::mcp::McpServer`]), one per MCP session, so one MCP
//! session is one sandkeep session of the agent (every tool call a turn,
//! parked at its end). rmcp's transport does the protocol; this keeps one
//! transport service per agent, and the agent's `subscriptions/listen`
//! streams, which every server of the agent tells about the files it
//! changes (the 2026-07-28 protocol gives each request a server of its own).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use crate::mcp::{Listeners, McpServer};
use crate::runtime::Runtime;

type Service = StreamableHttpService<McpServer, LocalSessionManager>;

/// The MCP transport services, one per agent, made on first use.
#[derive(Default)]
pub(crate) struct McpServices {
    by_agent: Mutex<HashMap<String, Service>>,
    cancel: CancellationToken,
}

impl McpServices {
    /// The service of `agent` (whose name is already validated).
    pub(crate) fn for_agent(&self, runtime: &Runtime, agent: &str, check_host: bool) -> Service {
        let mut map = self.by_agent.lock().unwrap_or_else(|p| p.into_inner());
        map.entry(agent.to_string())
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
                StreamableHttpService::new(
                    move || {
                        Ok(McpServer::new(runtime.clone(), name.clone())
                            .with_listeners(listeners.clone()))
                    },
                    Arc::new(LocalSessionManager::default()),
                    config,
                )
            })
            .clone()
    }

    /// Ends every MCP session (each tool call already kept its work).
    pub(crate) async fn close_all(&self) {
        self.cancel.cancel();
    }
}
