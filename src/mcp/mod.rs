//! An MCP server over stdio (on the official Rust SDK, `rmcp`), so agent
//! clients can use a persistent sandbox as their bash tool.
//!
//! The server's life is one session of one agent: `initialize` starts it
//! (restoring the workspace), every tool call is a turn that ends parked
//! (so every call's work is snapshotted), and end of input or SIGTERM
//! completes it.
//!
//! Beside the tools: the kept workspace as resources ([`resources`]), with
//! `notifications/resources/updated` for subscribed files a call changed; a
//! `bash` call with a progress token streams its output as progress
//! notifications; `logging/setLevel` turns on `notifications/message` with
//! the workspace-sync and network lines ([`logs`]).

mod framing;
mod logs;
mod resources;
mod tools;
mod workspace;

use std::collections::BTreeSet;
use std::sync::Arc;

use rmcp::model::SubscriptionFilter;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, InitializeRequestParams,
    InitializeResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ProgressNotificationParam, ProgressToken, ReadResourceRequestParams,
    ReadResourceResponse, ResourceUpdatedNotificationParam, ServerCapabilities, ServerConfig,
    SubscribeRequestParams, UnsubscribeRequestParams,
};
#[allow(deprecated)]
use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam, SetLevelRequestParams};
use rmcp::service::{Peer, RequestContext, SubscriptionContext, SubscriptionSink};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use tokio::sync::Mutex;
use tracing::instrument::WithSubscriber;

use crate::runtime::Runtime;
use crate::sandbox::OutputSink;
use crate::session::Session;
use crate::store::{GenerationId, Generations};

/// A parked session's shell state, waiting for the next call's session.
pub(crate) type ShellCell = Arc<std::sync::Mutex<Option<crate::sandbox::ShellSnapshot>>>;

/// The MCP server of one agent.
#[derive(Clone)]
pub struct McpServer {
    runtime: Runtime,
    agent: String,
    session: Arc<Mutex<Option<Session>>>,
    /// The shell state of the session an idle park released, for the
    /// session the next call starts.
    parked_shell: ShellCell,
    /// The resource URIs the client subscribed to (`resources/subscribe`,
    /// the 2025 protocol's way).
    subscriptions: Arc<std::sync::Mutex<BTreeSet<String>>>,
    /// The open `subscriptions/listen` streams (the 2026-07-28 protocol's
    /// way), each with the URIs it accepted; shared by every server of the
    /// agent over HTTP, where that protocol makes each request its own.
    listeners: Listeners,
    /// The level the client asked for with `logging/setLevel` (none: no messages).
    #[allow(deprecated)]
    log_level: Arc<std::sync::Mutex<Option<LoggingLevel>>>,
    /// Log lines kept by the tap, not sent yet.
    pending_logs: Arc<std::sync::Mutex<Vec<logs::Line>>>,
    /// The subscriber session work runs under (see [`logs`]).
    tap: tracing::Dispatch,
}

impl McpServer {
    /// A server whose tools run in sessions of `agent` on `runtime`.
    pub fn new(runtime: Runtime, agent: impl Into<String>) -> McpServer {
        let pending_logs = Arc::new(std::sync::Mutex::new(Vec::new()));
        McpServer {
            runtime,
            agent: agent.into(),
            session: Arc::new(Mutex::new(None)),
            parked_shell: Arc::default(),
            subscriptions: Arc::default(),
            listeners: Arc::default(),
            log_level: Arc::default(),
            tap: logs::Tap::dispatch(pending_logs.clone()),
            pending_logs,
        }
    }

    /// The same server, telling `listeners` (shared with other servers of
    /// the agent) about the files its calls change.
    pub(crate) fn with_listeners(mut self, listeners: Listeners) -> McpServer {
        self.listeners = listeners;
        self
    }

    /// The agent's generations.
    fn generations(&self) -> Result<Generations, McpError> {
        self.runtime
            .generations(&self.agent)
            .map_err(|e| McpError::internal_error(e.to_string(), None))
    }

    /// The head generation's id (none: nothing kept yet).
    async fn head(&self) -> Result<Option<GenerationId>, McpError> {
        let gens = self.generations()?;
        tokio::task::spawn_blocking(move || gens.store().head())
            .await
            .map_err(|e| McpError::internal_error(e.to_string(), None))?
            .map_err(|e| McpError::internal_error(e.to_string(), None))
    }

    /// Sends the kept log lines at or above `level` (a request's own, from
    /// its `_meta` as the 2026-07-28 protocol carries it), else the level set
    /// with `logging/setLevel`; lines below it are dropped. With neither,
    /// the lines wait (up to a bound) for a level.
    #[allow(deprecated)]
    async fn send_logs(&self, peer: &Peer<RoleServer>, level: Option<LoggingLevel>) {
        let set = *self.log_level.lock().unwrap_or_else(|p| p.into_inner());
        let Some(level) = level.or(set) else {
            return;
        };
        let lines =
            std::mem::take(&mut *self.pending_logs.lock().unwrap_or_else(|p| p.into_inner()));
        for line in lines {
            let line_level = logs::mcp_level(line.level);
            if logs::rank(line_level) < logs::rank(level) {
                continue;
            }
            let mut param = LoggingMessageNotificationParam::new(
                line_level,
                serde_json::Value::String(line.text),
            );
            param.logger = Some(line.logger.to_string());
            if let Err(e) = peer.notify_logging_message(param).await {
                tracing::debug!("[mcp] a log message was not sent: {e}");
            }
        }
    }

    /// True when some client asked to hear about file changes.
    fn watched(&self) -> bool {
        let subscribed = !self
            .subscriptions
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_empty();
        subscribed
            || !self
                .listeners
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .is_empty()
    }

    /// Tells the client which of its subscribed files changed between
    /// generations `before` and the head now: on the session for
    /// `resources/subscribe`, on each `subscriptions/listen` stream for the
    /// URIs it accepted.
    async fn notify_updates(&self, peer: &Peer<RoleServer>, before: Option<GenerationId>) {
        let subscribed = self
            .subscriptions
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        let listeners: Vec<(SubscriptionSink, BTreeSet<String>)> = self
            .listeners
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .map(|l| (l.sink.clone(), l.uris.clone()))
            .collect();
        if subscribed.is_empty() && listeners.is_empty() {
            return;
        }
        let Ok(Some(after)) = self.head().await else {
            return;
        };
        if before.as_ref() == Some(&after) {
            return;
        }
        let Ok(gens) = self.generations() else { return };
        let changed = tokio::task::spawn_blocking(move || {
            resources::changed_uris(&gens, before.as_ref(), &after)
        })
        .await;
        let Ok(Ok(changed)) = changed else { return };
        for uri in changed.intersection(&subscribed) {
            let param = ResourceUpdatedNotificationParam::new(uri.clone());
            if let Err(e) = peer.notify_resource_updated(param).await {
                tracing::debug!("[mcp] a resource update was not sent: {e}");
            }
        }
        for (sink, uris) in listeners {
            for uri in changed.intersection(&uris) {
                if let Err(e) = sink.notify_resource_updated(uri.clone()).await {
                    tracing::debug!("[mcp] a resource update was not sent: {e}");
                }
            }
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
            let parked = self
                .parked_shell
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .take();
            if let Some(shell) = parked {
                session
                    .restore_shell_state(shell)
                    .await
                    .map_err(|e| e.to_string())?;
            }
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

    /// Where an idle park leaves the released session's shell state, for
    /// the session the next call starts.
    #[cfg(feature = "server")]
    pub(crate) fn shell_cell(&self) -> ShellCell {
        self.parked_shell.clone()
    }
}

impl ServerHandler for McpServer {
    #[allow(deprecated)]
    fn get_info(&self) -> ServerConfig {
        InitializeResult::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_resources_subscribe()
                .enable_logging()
                .build(),
        )
        .with_server_info(Implementation::new("sandkeep", env!("CARGO_PKG_VERSION")))
        .with_instructions(format!(
            "A persistent Linux-like sandbox for agent {:?}: `bash` runs commands in \
                 /workspace like one interactive shell (files persist across calls and sessions; \
                 the working directory, variables, functions, aliases, set/shopt options and \
                 umask persist from call to call within this session, even after a failed or \
                 timed-out call; traps and background jobs do not), `read_file`/`write_file` access files, and `mindlog_*` keep notes \
                 that survive sessions. The files as last kept are resources \
                 (file:///workspace/PATH; every kept generation's as \
                 sandkeep://generations/ID/PATH).",
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
                .with_subscriber(self.tap.clone())
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
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let watching = self.watched();
        let before = if watching { self.head().await? } else { None };
        let progress = match context.meta.get_progress_token() {
            Some(token) if request.name == "bash" => {
                Some(ProgressSink::start(context.peer.clone(), token))
            }
            _ => None,
        };
        let sink = progress
            .as_ref()
            .map(|p| p.sink.clone() as Arc<dyn OutputSink>);
        let result = async {
            // Started and used under one lock: an idle park between the two
            // cannot take the session away.
            let mut guard = self
                .started()
                .await
                .map_err(|e| McpError::internal_error(e, None))?;
            let session = guard.as_mut().expect("started above");
            let args = request.arguments.unwrap_or_default();
            tools::call(&self.runtime, session, &request.name, args, sink).await
        }
        .with_subscriber(self.tap.clone())
        .await;
        if let Some(progress) = progress {
            progress.finish().await;
        }
        self.send_logs(&context.peer, context.meta.log_level())
            .await;
        if watching {
            self.notify_updates(&context.peer, before).await;
        }
        Ok(result?.into())
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let gens = self.generations()?;
        let cursor = request.and_then(|r| r.cursor);
        tokio::task::spawn_blocking(move || resources::list(&gens, cursor.as_deref()))
            .await
            .map_err(|e| McpError::internal_error(e.to_string(), None))?
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        Ok(resources::templates())
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let gens = self.generations()?;
        let read = tokio::task::spawn_blocking(move || resources::read(&gens, &request.uri))
            .await
            .map_err(|e| McpError::internal_error(e.to_string(), None))??;
        Ok(read.into())
    }

    #[allow(deprecated)]
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        // Any URI may be watched, one not kept yet included: it is told
        // about when a call creates it.
        self.subscriptions
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(request.uri);
        Ok(())
    }

    #[allow(deprecated)]
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.subscriptions
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&request.uri);
        Ok(())
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        // Updates of any resource URI, as `resources/subscribe` takes them;
        // the lists themselves never change (tools are fixed, and the
        // resource list follows the workspace: watch its files instead).
        let mut accepted = SubscriptionFilter::new();
        accepted.resource_subscriptions = requested.resource_subscriptions.clone();
        Some(accepted)
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), McpError> {
        let uris: BTreeSet<String> = context
            .accepted()
            .resource_subscriptions
            .iter()
            .flatten()
            .cloned()
            .collect();
        let sink = context.sink().clone();
        self.listeners
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(Listener {
                sink: sink.clone(),
                uris,
            });
        context.cancelled().await;
        self.listeners
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .retain(|l| l.sink.id() != sink.id());
        Ok(())
    }

    #[allow(deprecated)]
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        *self.log_level.lock().unwrap_or_else(|p| p.into_inner()) = Some(request.level);
        // What was kept before (the restore at session start) goes now.
        self.send_logs(&context.peer, None).await;
        Ok(())
    }
}

/// The open `subscriptions/listen` streams of an agent.
pub(crate) type Listeners = Arc<std::sync::Mutex<Vec<Listener>>>;

/// One open `subscriptions/listen` stream.
pub(crate) struct Listener {
    sink: SubscriptionSink,
    uris: BTreeSet<String>,
}

/// A `bash` call's output as progress notifications: chunks go through a
/// channel (the sink is called from the run, synchronously) to a task that
/// sends each as one notification, its progress the bytes so far.
struct ProgressSink {
    sink: Arc<ChunkSink>,
    task: tokio::task::JoinHandle<()>,
}

struct ChunkSink(tokio::sync::mpsc::UnboundedSender<Vec<u8>>);

impl OutputSink for ChunkSink {
    fn stdout(&self, chunk: &[u8]) {
        let _ = self.0.send(chunk.to_vec());
    }
    fn stderr(&self, chunk: &[u8]) {
        let _ = self.0.send(chunk.to_vec());
    }
}

impl ProgressSink {
    fn start(peer: Peer<RoleServer>, token: ProgressToken) -> ProgressSink {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Vec<u8>>();
        let task = tokio::spawn(async move {
            let mut sent = 0usize;
            while let Some(chunk) = rx.recv().await {
                sent += chunk.len();
                let param = ProgressNotificationParam::new(token.clone(), sent as f64)
                    .with_message(String::from_utf8_lossy(&chunk));
                if let Err(e) = peer.notify_progress(param).await {
                    tracing::debug!("[mcp] a progress notification was not sent: {e}");
                }
            }
        });
        ProgressSink {
            sink: Arc::new(ChunkSink(tx)),
            task,
        }
    }

    /// Waits until every chunk was sent (the run has ended and dropped its
    /// reference to the sink), so they all come before the call's result.
    async fn finish(self) {
        drop(self.sink);
        let _ = self.task.await;
    }
}
